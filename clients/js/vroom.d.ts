// Types of Vroom's JavaScript SDK (vroom.js, served at /sdk/vroom.js),
// after twilio-video.js 2.x. See README.md.

export const version: string;
export const isSupported: boolean;

/** An error with the protocol's code (PROTOCOL.md section 4), named as twilio-video.js names it. */
export class VroomError extends Error {
  readonly code: number;
  constructor(code: number, message?: string);
}

/** Where the SDK's warnings go (unknown or malformed server frames, listeners that throw). */
export const logger: { warn: (...args: unknown[]) => void; debug: (...args: unknown[]) => void };

export class EventEmitter {
  on(event: string, listener: (...args: any[]) => void): this;
  addListener(event: string, listener: (...args: any[]) => void): this;
  once(event: string, listener: (...args: any[]) => void): this;
  off(event: string, listener: (...args: any[]) => void): this;
  removeListener(event: string, listener: (...args: any[]) => void): this;
  removeAllListeners(event?: string): this;
  listenerCount(event: string): number;
  emit(event: string, ...args: any[]): boolean;
}

export type TrackKind = "audio" | "video";
export type TrackPriority = "low" | "standard" | "high";
export type SwitchOffReason =
  | "network-congestion" | "max-bandwidth-reached" | "disabled-by-subscriber" | "disabled-by-publisher";

declare class Track extends EventEmitter {
  readonly kind: TrackKind;
  name: string;
  readonly mediaStreamTrack: MediaStreamTrack;
  readonly isStarted: boolean;
  attach(element?: HTMLMediaElement | string): HTMLMediaElement;
  detach(): HTMLMediaElement[];
  detach(element: HTMLMediaElement | string): HTMLMediaElement;
}

declare class LocalTrack extends Track {
  constructor(mediaStreamTrack: MediaStreamTrack, options?: { name?: string; constraints?: MediaTrackConstraints });
  readonly id: string;
  readonly isEnabled: boolean;
  enable(enabled?: boolean): this;
  disable(): this;
  stop(): this;
  /** Captures again (another device, or the same one): the publication and its SID stay. Emits "started". */
  restart(constraints?: MediaTrackConstraints): Promise<void>;
}
export class LocalAudioTrack extends LocalTrack {}
export class LocalVideoTrack extends LocalTrack {}

declare class RemoteTrack extends Track {
  readonly sid: string;
  readonly isEnabled: boolean;
}
export class RemoteAudioTrack extends RemoteTrack {}
export class RemoteVideoTrack extends RemoteTrack {
  readonly isSwitchedOff: boolean;
  readonly switchOffReason: SwitchOffReason | null;
  readonly priority: TrackPriority | null;
  setContentPreferences(preferences: { renderDimensions: { width: number; height: number } }): void;
  switchOn(): this;
  switchOff(): this;
  setPriority(priority: TrackPriority | null): this;
}

declare class TrackPublication extends EventEmitter {
  readonly trackSid: string;
  readonly trackName: string;
  readonly kind: TrackKind;
}
export class LocalTrackPublication extends TrackPublication {
  readonly track: LocalAudioTrack | LocalVideoTrack;
  readonly priority: TrackPriority;
  readonly isTrackEnabled: boolean;
  unpublish(): this;
}
export class RemoteTrackPublication extends TrackPublication {
  readonly track: RemoteAudioTrack | RemoteVideoTrack | null;
  readonly isSubscribed: boolean;
  readonly isTrackEnabled: boolean;
  /** The publisher disabled it for an interruption (a phone call, the app in the background). */
  readonly isTrackInterrupted: boolean;
  readonly publishPriority: TrackPriority;
}

export type ParticipantState = "connected" | "reconnecting" | "disconnected";

declare class Participant extends EventEmitter {
  readonly sid: string;
  readonly identity: string;
  readonly state: ParticipantState;
  readonly networkQualityLevel: number | null;
  readonly networkQualityStats: { level: number; warnings: string[] } | null;
}
export class RemoteParticipant extends Participant {
  readonly tracks: Map<string, RemoteTrackPublication>;
  readonly audioTracks: Map<string, RemoteTrackPublication>;
  readonly videoTracks: Map<string, RemoteTrackPublication>;
}
export class LocalParticipant extends Participant {
  readonly tracks: Map<string, LocalTrackPublication>;
  readonly audioTracks: Map<string, LocalTrackPublication>;
  readonly videoTracks: Map<string, LocalTrackPublication>;
  publishTrack(
    track: LocalAudioTrack | LocalVideoTrack | MediaStreamTrack,
    options?: { name?: string; priority?: TrackPriority },
  ): Promise<LocalTrackPublication>;
  publishTracks(tracks: Array<LocalAudioTrack | LocalVideoTrack | MediaStreamTrack>): Promise<LocalTrackPublication[]>;
  unpublishTrack(track: LocalAudioTrack | LocalVideoTrack | MediaStreamTrack): LocalTrackPublication | null;
  unpublishTracks(tracks: Array<LocalAudioTrack | LocalVideoTrack | MediaStreamTrack>): LocalTrackPublication[];
  /** A user-defined message (PROTOCOL.md 3.5); resolves to its SID. */
  sendMessage(content: unknown, options?: { to?: string[] }): Promise<string>;
}

export type RoomState = "connecting" | "connected" | "reconnecting" | "disconnected";

export interface ReceivedMessage {
  sid: string;
  content: unknown;
  contentType: string;
  sequenceNumber: number;
}

/**
 * Events: participantConnected(p), participantDisconnected(p), participantReconnecting(p),
 * participantReconnected(p), reconnecting(error), reconnected(), disconnected(room, error | null),
 * dominantSpeakerChanged(p | null), trackPublished(publication, p), trackUnpublished(publication, p),
 * trackSubscribed(track, publication, p), trackUnsubscribed(track, publication, p),
 * trackEnabled(publication, p), trackDisabled(publication, p), trackInterrupted(publication, p),
 * trackSwitchedOff(track, publication, p), trackSwitchedOn(track, publication, p),
 * networkQualityLevelChanged(p, level), messageReceived(message, p | null).
 */
export class Room extends EventEmitter {
  readonly sid: string;
  readonly name: string;
  readonly state: RoomState;
  readonly localParticipant: LocalParticipant;
  readonly participants: Map<string, RemoteParticipant>;
  readonly dominantSpeaker: RemoteParticipant | null;
  disconnect(): this;
  getStats(): Promise<RTCStatsReport[]>;
}

export interface BandwidthProfileOptions {
  video?: {
    mode?: "grid" | "collaboration" | "presentation";
    dominantSpeakerPriority?: TrackPriority;
    maxSubscriptionBitrate?: number | null;
    trackSwitchOffMode?: "detected" | "predicted" | "disabled";
    clientTrackSwitchOffControl?: "auto" | "manual";
    contentPreferencesMode?: "auto" | "manual";
  };
}

export interface ConnectOptions {
  /** The room's unique name (optional when the token's grant names one). */
  name?: string;
  audio?: boolean | MediaTrackConstraints & { name?: string };
  video?: boolean | MediaTrackConstraints & { name?: string };
  tracks?: Array<LocalAudioTrack | LocalVideoTrack>;
  bandwidthProfile?: BandwidthProfileOptions;
  preferredVideoCodecs?: Array<"VP8" | { codec: "VP8"; simulcast?: boolean }>;
  dominantSpeaker?: boolean;
  networkQuality?: boolean | { local?: number; remote?: number };
  iceServers?: RTCIceServer[];
  iceTransportPolicy?: RTCIceTransportPolicy;
  /** Default: ws(s)://<the server this module was loaded from>/v1/signal. */
  signalingURL?: string;
}

export function connect(token: string, options?: ConnectOptions): Promise<Room>;
export function createLocalTracks(options?: {
  audio?: boolean | MediaTrackConstraints & { name?: string };
  video?: boolean | MediaTrackConstraints & { name?: string };
}): Promise<Array<LocalAudioTrack | LocalVideoTrack>>;
export function createLocalAudioTrack(options?: MediaTrackConstraints & { name?: string }): Promise<LocalAudioTrack>;
export function createLocalVideoTrack(options?: MediaTrackConstraints & { name?: string }): Promise<LocalVideoTrack>;
