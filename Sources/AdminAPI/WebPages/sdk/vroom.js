// Vroom's JavaScript SDK: an ES module, no build step, no dependencies,
// shaped like twilio-video.js 2.x so that an app written against it moves
// by changing its import and its token endpoint (docs/migrating-from-twilio.md).
// The wire contract is PROTOCOL.md (version 1.1): one WebSocket for
// signaling, a publisher RTCPeerConnection (this side offers) and a
// subscriber one (the server offers). The server is ICE-lite and takes no
// trickle: each side's SDP is sent once ICE gathering is done.
//
//   import { connect, createLocalTracks } from "https://vroom.example.com/sdk/vroom.js";
//   const room = await connect(token, { name: "standup", audio: true, video: true });
//
// Nothing the server sends makes this module throw into the app: unknown
// message types, malformed frames and events about unknown participants or
// tracks are logged as warnings (`logger`) and skipped; an app's listener
// that throws is logged too.

export const version = "0.1.0";

// PROTOCOL.md 8: clients follow at most 3 redirects.
const MAX_REDIRECTS = 3;
const PING_INTERVAL_MS = 5000;
const CONTENT_PREFERENCES_DEBOUNCE_MS = 300;
const GATHER_TIMEOUT_MS = 3000;
// Simulcast layers, lowest first (the order of a=simulcast): rid and how
// much smaller than the capture.
const SIMULCAST_LAYERS = [
  { rid: "q", scaleResolutionDownBy: 4 },
  { rid: "h", scaleResolutionDownBy: 2 },
  { rid: "f", scaleResolutionDownBy: 1 },
];

// Twilio's names for the protocol's codes (PROTOCOL.md 4).
const ERROR_NAMES = {
  20101: "AccessTokenInvalidError", 20103: "AccessTokenIssuerInvalidError", 20104: "AccessTokenExpiredError",
  20105: "AccessTokenNotYetValidError", 20106: "AccessTokenGrantsInvalidError",
  20107: "AccessTokenSignatureInvalidError", 53000: "SignalingConnectionError",
  53001: "SignalingConnectionDisconnectedError", 53002: "SignalingConnectionTimeoutError",
  53003: "SignalingIncomingMessageInvalidError", 53006: "SignalingServerBusyError", 53100: "RoomNameInvalidError",
  53101: "RoomNameTooLongError", 53102: "RoomNameCharsInvalidError", 53105: "RoomMaxParticipantsExceededError",
  53106: "RoomNotFoundError", 53118: "RoomCompletedError", 53200: "ParticipantIdentityInvalidError",
  53201: "ParticipantIdentityTooLongError", 53202: "ParticipantIdentityCharsInvalidError",
  53203: "ParticipantMaxTracksExceededError", 53205: "ParticipantDuplicateIdentityError",
  53216: "ParticipantRemovedError", 53300: "TrackInvalidError", 53301: "TrackNameInvalidError",
  53302: "TrackNameTooLongError", 53304: "TrackNameIsDuplicatedError", 53400: "MediaClientLocalDescFailedError",
  53401: "MediaServerLocalDescFailedError", 53402: "MediaClientRemoteDescFailedError",
  53403: "MediaServerRemoteDescFailedError", 53404: "MediaNoSupportedCodecError",
  53405: "MediaConnectionError", 53407: "MediaDTLSTransportFailedError",
};

/** An error with the protocol's code (`error.code`), named as twilio-video.js names it. */
export class VroomError extends Error {
  constructor(code, message) {
    super(message || ERROR_NAMES[code] || `error ${code}`);
    this.code = code;
    this.name = ERROR_NAMES[code] || "VroomError";
  }
}

/** Where the SDK's warnings go: replace `logger.warn` to collect them. */
export const logger = {
  warn: (...args) => console.warn("vroom:", ...args),
  debug: () => {},
};

/** The events of twilio-video.js objects: on/once/off and their aliases. */
export class EventEmitter {
  constructor() { this._listeners = new Map(); }
  on(event, listener) {
    if (!this._listeners.has(event)) this._listeners.set(event, []);
    this._listeners.get(event).push(listener);
    return this;
  }
  addListener(event, listener) { return this.on(event, listener); }
  once(event, listener) {
    const wrapper = (...args) => { this.off(event, wrapper); listener(...args); };
    wrapper.listener = listener;
    return this.on(event, wrapper);
  }
  off(event, listener) {
    const list = this._listeners.get(event);
    if (list) this._listeners.set(event, list.filter((l) => l !== listener && l.listener !== listener));
    return this;
  }
  removeListener(event, listener) { return this.off(event, listener); }
  removeAllListeners(event) {
    if (event === undefined) this._listeners.clear(); else this._listeners.delete(event);
    return this;
  }
  listenerCount(event) { return (this._listeners.get(event) || []).length; }
  /** Calls each listener; one that throws is logged, never thrown into the SDK. */
  emit(event, ...args) {
    for (const listener of [...(this._listeners.get(event) || [])]) {
      try { listener(...args); } catch (error) { logger.warn(`a '${event}' listener threw`, error); }
    }
    return (this._listeners.get(event) || []).length > 0;
  }
}

// MARK: - Tracks

class Track extends EventEmitter {
  constructor(mediaStreamTrack, name) {
    super();
    this.mediaStreamTrack = mediaStreamTrack;
    this.kind = mediaStreamTrack.kind;
    this.name = name || mediaStreamTrack.id;
    this._attachments = new Set();
  }
  get isStarted() { return this.mediaStreamTrack.readyState === "live"; }
  /** Plays the track in `element` (a selector, an element, or a new one when absent); returns it. */
  attach(element) {
    let el = typeof element === "string" ? document.querySelector(element) : element;
    if (!el) {
      el = document.createElement(this.kind);
      el.autoplay = true;
      el.playsInline = true;
      if (this.kind === "video") el.muted = true;
    }
    el.srcObject = new MediaStream([this.mediaStreamTrack]);
    this._attachments.add(el);
    if (el.play) el.play().catch(() => {});
    this._attached(el);
    return el;
  }
  /** Stops playing in `element`, or in every element; returns those detached. */
  detach(element) {
    const targets = element === undefined ? [...this._attachments]
      : [typeof element === "string" ? document.querySelector(element) : element].filter(Boolean);
    for (const el of targets) {
      if (!this._attachments.delete(el)) continue;
      el.srcObject = null;
      this._detached(el);
    }
    return element === undefined ? targets : targets[0];
  }
  _attached() {}
  _detached() {}
}

class LocalTrack extends Track {
  constructor(mediaStreamTrack, options = {}) {
    super(mediaStreamTrack, options.name);
    this.id = mediaStreamTrack.id;
    this._publications = new Set();  // LocalTrackPublications, to tell the server
    this._constraints = options.constraints;  // what `restart()` captures with by default
  }
  get isEnabled() { return this.mediaStreamTrack.enabled; }
  enable(enabled = true) {
    if (this.mediaStreamTrack.enabled === enabled) return this;
    this.mediaStreamTrack.enabled = enabled;
    for (const publication of this._publications) publication._setEnabled(enabled);
    this.emit(enabled ? "enabled" : "disabled", this);
    return this;
  }
  disable() { return this.enable(false); }
  stop() {
    this.mediaStreamTrack.stop();
    this.emit("stopped", this);
    return this;
  }
  /**
   * Captures again, with `constraints` (another device: `{deviceId: {exact: id}}`) or those it was
   * made with, as twilio-video.js's `restart`. The new MediaStreamTrack takes the old one's place in
   * the published sender (no renegotiation: the publication and its SID stay) and in every element
   * it plays in; the old one stops. Emits `started`.
   */
  restart(constraints) {
    // One at a time, in the order asked: the last device chosen wins.
    const run = (this._restarting || Promise.resolve()).then(() => this._restart(constraints));
    this._restarting = run.catch(() => {});
    return run;
  }
  async _restart(constraints) {
    const wanted = constraints !== undefined ? constraints : this._constraints;
    const stream = await navigator.mediaDevices.getUserMedia({ [this.kind]: strip(wanted) || true });
    const next = stream.getTracks().find((t) => t.kind === this.kind);
    const old = this.mediaStreamTrack;
    next.enabled = old.enabled;
    try {
      for (const publication of this._publications) await publication._replaceTrack(next);
    } catch (error) {
      next.stop();  // the old capture goes on in every sender it was in
      throw error;
    }
    this._constraints = wanted;
    this.mediaStreamTrack = next;
    for (const el of this._attachments) {
      el.srcObject = new MediaStream([next]);
      if (el.play) el.play().catch(() => {});
    }
    old.stop();
    this.emit("started", this);
  }
}

export class LocalAudioTrack extends LocalTrack {}
/** A camera, or a screen share: `new LocalVideoTrack(displayStream.getVideoTracks()[0], {name: "screen"})`. */
export class LocalVideoTrack extends LocalTrack {}

class RemoteTrack extends Track {
  constructor(mediaStreamTrack, publication, room) {
    super(mediaStreamTrack, publication.trackName);
    this.sid = publication.trackSid;
    this._room = room;
  }
  get isEnabled() { return this._publication().isTrackEnabled; }
  _publication() { return this._room._publicationBySid(this.sid) || {}; }
}

export class RemoteAudioTrack extends RemoteTrack {}

export class RemoteVideoTrack extends RemoteTrack {
  constructor(mediaStreamTrack, publication, room) {
    super(mediaStreamTrack, publication, room);
    this.isSwitchedOff = false;
    this.switchOffReason = null;
    this.priority = null;
    this._renderTimer = null;
    this._lastDimensions = null;
    this._resize = typeof ResizeObserver === "function" ? new ResizeObserver(() => this._scheduleRenderDimensions()) : null;
  }
  /** Caps the layer the server sends at `renderDimensions` (PROTOCOL.md 7). */
  setContentPreferences({ renderDimensions } = {}) {
    if (!renderDimensions) return;
    this._manualDimensions = true;
    this._sendDimensions(renderDimensions);
  }
  /** With `clientTrackSwitchOffControl: "manual"`: switch this track on or off for this subscriber. */
  switchOn() { this._room._requestQuietly({ type: "switchOnTrack", trackSid: this.sid }); return this; }
  switchOff() { this._room._requestQuietly({ type: "switchOffTrack", trackSid: this.sid }); return this; }
  /** This subscriber's priority for the track: "low", "standard", "high", or null for the publisher's. */
  setPriority(priority) {
    this.priority = priority === undefined ? null : priority;
    this._room._requestQuietly({ type: "setTrackPriority", trackSid: this.sid, priority: this.priority });
    return this;
  }
  _attached(el) {
    if (this._resize) this._resize.observe(el);
    this._scheduleRenderDimensions();
  }
  _detached(el) {
    if (this._resize) this._resize.unobserve(el);
  }
  _switched(off, reason) {
    this.isSwitchedOff = off;
    this.switchOffReason = off ? reason || null : null;
    this.emit(off ? "switchedOff" : "switchedOn", this, this.switchOffReason);
  }
  // The largest attached element's size in device pixels, ~300 ms after
  // it settles, when it changed (contentPreferencesMode "auto").
  _scheduleRenderDimensions() {
    if (this._manualDimensions || this._room._contentPreferencesMode !== "auto") return;
    clearTimeout(this._renderTimer);
    this._renderTimer = setTimeout(() => {
      const scale = (typeof window !== "undefined" && window.devicePixelRatio) || 1;
      let width = 0, height = 0;
      for (const el of this._attachments) {
        width = Math.max(width, Math.round(el.clientWidth * scale));
        height = Math.max(height, Math.round(el.clientHeight * scale));
      }
      if (width > 0 && height > 0) this._sendDimensions({ width, height });
    }, CONTENT_PREFERENCES_DEBOUNCE_MS);
  }
  _sendDimensions({ width, height }) {
    const last = this._lastDimensions;
    if (last && last.width === width && last.height === height) return;
    this._lastDimensions = { width, height };
    this._room._requestQuietly({ type: "setContentPreferences", trackSid: this.sid, renderDimensions: { width, height } });
  }
  _stop() {
    clearTimeout(this._renderTimer);
    if (this._resize) this._resize.disconnect();
  }
}

// MARK: - Publications

class TrackPublication extends EventEmitter {
  constructor(trackSid, trackName, kind) {
    super();
    this.trackSid = trackSid;
    this.trackName = trackName;
    this.kind = kind;
  }
}

export class LocalTrackPublication extends TrackPublication {
  constructor(info, track, participant) {
    super(info.sid, info.name, info.kind);
    this.track = track;
    this.priority = info.priority || "standard";
    this._participant = participant;
    track._publications.add(this);
  }
  get isTrackEnabled() { return this.track.isEnabled; }
  unpublish() { this._participant.unpublishTrack(this.track); return this; }
  _replaceTrack(mediaStreamTrack) { return this._participant._room._publisher.replaceTrack(this, mediaStreamTrack); }
  _setEnabled(enabled) {
    this._participant._room._requestQuietly({ type: "setTrackEnabled", trackSid: this.trackSid, enabled });
  }
}

export class RemoteTrackPublication extends TrackPublication {
  constructor(info) {
    super(info.sid, info.name, info.kind);
    this.isTrackEnabled = info.enabled !== false;
    this.isTrackInterrupted = false;
    this.publishPriority = info.priority || "standard";
    this.track = null;
  }
  get isSubscribed() { return this.track !== null; }
}

// MARK: - Participants

class Participant extends EventEmitter {
  constructor(sid, identity) {
    super();
    this.sid = sid;
    this.identity = identity;
    this.tracks = new Map();
    this.audioTracks = new Map();
    this.videoTracks = new Map();
    this.networkQualityLevel = null;
    this.networkQualityStats = null;
    this.state = "connected";
  }
  _addPublication(publication) {
    this.tracks.set(publication.trackSid, publication);
    (publication.kind === "audio" ? this.audioTracks : this.videoTracks).set(publication.trackSid, publication);
  }
  _removePublication(trackSid) {
    const publication = this.tracks.get(trackSid);
    this.tracks.delete(trackSid);
    this.audioTracks.delete(trackSid);
    this.videoTracks.delete(trackSid);
    return publication;
  }
}

export class RemoteParticipant extends Participant {}

export class LocalParticipant extends Participant {
  constructor(room, sid, identity) {
    super(sid, identity);
    this._room = room;
    this._pending = [];  // LocalTracks published, not yet answered
  }
  /** Publishes a LocalTrack (or a MediaStreamTrack); resolves to its LocalTrackPublication. */
  async publishTrack(track, options = {}) {
    if (!(track instanceof LocalTrack)) {
      track = track.kind === "audio" ? new LocalAudioTrack(track, options) : new LocalVideoTrack(track, options);
    } else if (options.name) {
      track.name = options.name;
    }
    const existing = [...this.tracks.values()].find((p) => p.track === track);
    if (existing) return existing;
    return this._room._publisher.publish(track, options.priority);
  }
  async publishTracks(tracks) { return Promise.all(tracks.map((t) => this.publishTrack(t))); }
  /** Unpublishes the track (its m-line goes inactive); resolves to its former publication. */
  unpublishTrack(track) {
    const publication = [...this.tracks.values()].find((p) => p.track === track || p.track.mediaStreamTrack === track);
    if (!publication) return null;
    this._removePublication(publication.trackSid);
    publication.track._publications.delete(publication);
    this._room._publisher.unpublish(publication);
    return publication;
  }
  unpublishTracks(tracks) { return tracks.map((t) => this.unpublishTrack(t)).filter(Boolean); }
  /** A user-defined message to everyone else, or to `to` (identities); resolves to its SID (PROTOCOL.md 3.5). */
  async sendMessage(content, options = {}) {
    const message = { type: "sendMessage", content: typeof content === "string" ? content : JSON.stringify(content),
      contentType: "application/json" };
    if (options.to) message.to = options.to;
    const reply = await this._room._signaling.request(message);
    if (reply.type === "messageFailed") throw new VroomError(reply.code, reply.reason);
    return reply.sid;
  }
}

// MARK: - Signaling

// One signaling session over a succession of WebSockets: the first join,
// redirects, resumes after a drop and moves to another node. Requests are
// correlated by `id`; an `error` reply rejects with its code.
class Signaling {
  constructor(room, url, token) {
    this.room = room;
    this.url = url;
    this.token = token;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map();
  }

  open(url) {
    this.url = url;
    const separator = url.includes("?") ? "&" : "?";
    return new Promise((resolve, reject) => {
      let ws;
      try {
        ws = new WebSocket(url + separator + "access_token=" + encodeURIComponent(this.token));
      } catch (error) {
        return reject(new VroomError(53000, `cannot open ${url}: ${error.message}`));
      }
      this.ws = ws;
      ws.onopen = () => resolve(ws);
      ws.onerror = () => {};
      ws.onmessage = (event) => { if (this.ws === ws) this.receive(event.data); };
      ws.onclose = (event) => {
        if (this.ws !== ws) return;
        this.ws = null;
        this.failPending(new VroomError(53000, "the signaling connection closed"));
        reject(new VroomError(53000, `cannot reach ${url}`));
        this.room._signalingClosed(event);
      };
    });
  }

  /** Gives the socket up without ending the session: its requests fail quietly. */
  drop() {
    const ws = this.ws;
    this.ws = null;
    this.failPending(new VroomError(53000, "superseded"), true);
    if (ws) ws.close();
  }

  failPending(error, quietly = false) {
    for (const { reject } of this.pending.values()) reject(Object.assign(error, { quietly }));
    this.pending.clear();
  }

  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  request(message) {
    const id = String(this.nextId++);
    return new Promise((resolve, reject) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
        return reject(new VroomError(53000, "not connected"));
      }
      this.pending.set(id, { resolve, reject });
      this.send(Object.assign({}, message, { id }));
    });
  }

  receive(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch (error) {
      logger.warn("a malformed frame from the server, skipped:", String(data).slice(0, 200));
      return;
    }
    if (!message || typeof message !== "object" || typeof message.type !== "string") {
      logger.warn("a frame without a type, skipped:", message);
      return;
    }
    if (message.id !== undefined && this.pending.has(String(message.id)) && message.type !== "subscribeOffer") {
      const { resolve, reject } = this.pending.get(String(message.id));
      this.pending.delete(String(message.id));
      if (message.type === "error") reject(new VroomError(message.code, message.message));
      else resolve(message);
      return;
    }
    try {
      this.room._handle(message);
    } catch (error) {
      logger.warn(`handling '${message.type}' failed`, error);
    }
  }
}

// MARK: - Publisher connection

// The publisher RTCPeerConnection: every change (publish, unpublish) is a
// full offer of every current publication (PROTOCOL.md 3.2), one at a time.
class Publisher {
  constructor(room) {
    this.room = room;
    this.pc = null;
    this.entries = [];  // {track, transceiver, priority, publication}
    this.chain = Promise.resolve();
  }

  ensure() {
    if (this.pc) return this.pc;
    this.pc = new RTCPeerConnection(this.room._rtcConfiguration());
    const pc = this.pc;
    pc.onconnectionstatechange = () => {
      if (pc !== this.pc) return;
      if (pc.connectionState === "failed") this.room._mediaFailed("publisher");
    };
    return pc;
  }

  publish(track, priority) {
    const pc = this.ensure();
    // trackId: the id the SDP's msid names (the capture's at publish time;
    // `restart()` swaps the capture, not the msid).
    const entry = { track, transceiver: this.addTransceiver(pc, track), priority, publication: null,
      trackId: track.mediaStreamTrack.id };
    this.entries.push(entry);
    return this.negotiate().then(() => {
      if (!entry.publication) throw new VroomError(53300, `the server did not accept '${track.name}'`);
      return entry.publication;
    }).catch((error) => {
      // A refused publish (53304 for a duplicate name, say) leaves nothing
      // behind: the next offer must not carry the refused track again.
      if (!entry.publication) this.discard(entry);
      throw error;
    });
  }

  /** A send-only transceiver for `track`: video as simulcast layers when asked for. */
  addTransceiver(pc, track) {
    const init = { direction: "sendonly", streams: [] };
    if (track.kind === "video" && this.room._simulcast) {
      init.sendEncodings = SIMULCAST_LAYERS.map((l) => ({ rid: l.rid, scaleResolutionDownBy: l.scaleResolutionDownBy }));
    }
    return pc.addTransceiver(track.mediaStreamTrack, init);
  }

  discard(entry) {
    this.entries = this.entries.filter((e) => e !== entry);
    try {
      entry.transceiver.stop();
    } catch (error) {
      logger.warn("discarding a refused publication", error);
    }
  }

  /** `restart()`: the sender of `publication` sends `mediaStreamTrack` from now on. */
  replaceTrack(publication, mediaStreamTrack) {
    const entry = this.entries.find((e) => e.publication === publication);
    return entry ? entry.transceiver.sender.replaceTrack(mediaStreamTrack) : Promise.resolve();
  }

  unpublish(publication) {
    const entry = this.entries.find((e) => e.publication === publication);
    if (!entry) return;
    this.entries = this.entries.filter((e) => e !== entry);
    try {
      entry.transceiver.sender.replaceTrack(null);
      entry.transceiver.direction = "inactive";
    } catch (error) {
      logger.warn("unpublish", error);
    }
    this.negotiate().catch((error) => logger.warn("renegotiation after unpublish", error));
  }

  /** Republishes every track on a new connection (a move to another node). */
  restart() {
    if (this.pc) this.pc.close();
    this.pc = null;
    const entries = this.entries;
    this.entries = [];
    if (entries.length === 0) return Promise.resolve();
    const pc = this.ensure();
    for (const entry of entries) {
      entry.transceiver = this.addTransceiver(pc, entry.track);
      entry.trackId = entry.track.mediaStreamTrack.id;
      this.entries.push(entry);
    }
    return this.negotiate();
  }

  negotiate() {
    const run = this.chain.then(() => this.offer());
    this.chain = run.catch(() => {});
    return run;
  }

  async offer() {
    const pc = this.pc;
    if (!pc) return;
    await pc.setLocalDescription(await pc.createOffer());
    await gathered(pc);
    if (pc !== this.pc) return;
    const sdp = pc.localDescription.sdp;
    const tracks = this.entries.map((entry) => {
      // Chromium leaves a transceiver added after a rolled-back offer
      // without its mid although the offer names one: read it from the SDP.
      const mid = entry.transceiver.mid || midOfTrack(sdp, entry.trackId);
      entry.mid = mid;
      const t = { mid, name: entry.track.name, kind: entry.track.kind };
      if (entry.priority) t.priority = entry.priority;
      if (entry.track.kind === "video" && this.room._simulcast) t.layers = layerSizes(entry.track.mediaStreamTrack);
      return t;
    });
    let answer;
    try {
      answer = await this.room._signaling.request({ type: "publish", sdp, tracks });
    } catch (error) {
      if (pc === this.pc) await pc.setLocalDescription({ type: "rollback" }).catch(() => {});
      throw error;
    }
    if (pc !== this.pc) return;
    try {
      await pc.setRemoteDescription({ type: "answer", sdp: answer.sdp });
    } catch (error) {
      throw new VroomError(53402, `the server's answer could not be applied: ${error.message}`);
    }
    const participant = this.room.localParticipant;
    for (const info of answer.tracks || []) {
      const entry = this.entries.find((e) => e.mid === info.mid);
      if (!entry) continue;
      if (entry.publication && entry.publication.trackSid === info.sid) continue;
      entry.publication = new LocalTrackPublication(Object.assign({ priority: entry.priority }, info), entry.track, participant);
      participant._addPublication(entry.publication);
      participant.emit("trackPublished", entry.publication);
      if (!entry.track.isEnabled) entry.publication._setEnabled(false);
    }
    for (const entry of this.entries) {
      if (entry.track.kind === "video" && this.room._simulcast) {
        await singleStreamFallback(entry.transceiver, entry.mid, answer.sdp);
      }
    }
  }

  /** `publisherLayers`: pause the encodings no subscriber needs. */
  layers(trackSid, active) {
    const entry = this.entries.find((e) => e.publication && e.publication.trackSid === trackSid);
    if (!entry || !Array.isArray(active)) return;
    this.chain = this.chain.then(async () => {
      const sender = entry.transceiver.sender;
      const parameters = sender.getParameters();
      if (!parameters.encodings || parameters.encodings.length < 2) return;
      let changed = false;
      for (const encoding of parameters.encodings) {
        const on = active.includes(encoding.rid);
        if (encoding.active !== on) { encoding.active = on; changed = true; }
      }
      if (changed) await sender.setParameters(parameters);
    }).catch((error) => logger.warn("publisherLayers", error));
  }

  close() {
    if (this.pc) this.pc.close();
    this.pc = null;
  }
}

// MARK: - Room

export class Room extends EventEmitter {
  constructor(options) {
    super();
    this.sid = null;
    this.name = null;
    this.state = "connecting";
    this.participants = new Map();
    this.dominantSpeaker = null;
    this.localParticipant = null;
    this.mediaRegion = "vroom";
    this._options = options;
    this._simulcast = (options.preferredVideoCodecs || []).some((c) => (c.codec || c) === "VP8" && c.simulcast);
    const video = (options.bandwidthProfile && options.bandwidthProfile.video) || {};
    this._contentPreferencesMode = video.contentPreferencesMode || "auto";
    this._iceServers = options.iceServers || [];
    this._publisher = new Publisher(this);
    this._subscriber = null;
    this._remote = new Map();  // mid -> {trackSid, participantSid, name, kind}
    this._offers = Promise.resolve();
    this._sessionToken = null;
    this._reconnectWindowMs = 30000;
    this._redirects = 0;
    this._pinger = null;
  }

  /** Leaves the room; the local tracks keep running (stop them yourself). */
  disconnect() {
    if (this.state === "disconnected") return this;
    this._signaling.send({ type: "leave" });
    this._end(null);
    return this;
  }

  /** getStats() of both connections, raw. */
  async getStats() {
    const out = [];
    for (const pc of [this._publisher.pc, this._subscriber]) if (pc) out.push(await pc.getStats());
    return out;
  }

  // The join, its redirects, and what `joined` says.
  async _join(url, resume) {
    for (;;) {
      const ws = await this._signaling.open(url);
      const message = { type: "join" };
      if (this._options.name) message.room = this._options.name;
      if (this._options.bandwidthProfile) message.bandwidthProfile = this._options.bandwidthProfile;
      if (resume) message.resume = resume;
      this._redirectTo = null;
      let joined;
      try {
        joined = await this._signaling.request(message);
      } catch (error) {
        if (this._redirectTo && ws !== this._signaling.ws) {
          if (++this._redirects > MAX_REDIRECTS) {
            throw new VroomError(53000, `redirected more than ${MAX_REDIRECTS} times (last to ${this._redirectTo})`);
          }
          url = this._redirectTo;
          continue;
        }
        this._signaling.drop();
        throw error;
      }
      this._redirects = 0;
      this._applyJoined(joined, !!resume);
      return joined;
    }
  }

  _applyJoined(joined, resumed) {
    this.sid = joined.room.sid;
    this.name = joined.room.name;
    this._sessionToken = joined.sessionToken;
    if (joined.reconnectWindowSeconds) this._reconnectWindowMs = joined.reconnectWindowSeconds * 1000;
    if (!this._options.iceServers) this._iceServers = joined.iceServers || [];
    if (!this.localParticipant) {
      this.localParticipant = new LocalParticipant(this, joined.participant.sid, joined.participant.identity);
    }
    const present = new Set();
    for (const info of joined.participants || []) {
      present.add(info.sid);
      let participant = this.participants.get(info.sid);
      if (!participant) {
        participant = this._addParticipant(info);
        if (resumed) this.emit("participantConnected", participant);
      } else {
        this._syncPublications(participant, info.tracks || []);
      }
    }
    if (resumed) {
      for (const participant of [...this.participants.values()]) {
        if (!present.has(participant.sid)) this._removeParticipant(participant.sid);
      }
    }
    this.state = "connected";
  }

  _addParticipant(info) {
    const participant = new RemoteParticipant(info.sid, info.identity);
    if (info.state === "reconnecting") participant.state = "reconnecting";
    this.participants.set(info.sid, participant);
    for (const track of info.tracks || []) participant._addPublication(new RemoteTrackPublication(track));
    return participant;
  }

  _syncPublications(participant, tracks) {
    const sids = new Set(tracks.map((t) => t.sid));
    for (const sid of [...participant.tracks.keys()]) if (!sids.has(sid)) this._unpublished(participant, sid);
    for (const track of tracks) {
      if (!participant.tracks.has(track.sid)) this._published(participant, track);
    }
  }

  _removeParticipant(sid) {
    const participant = this.participants.get(sid);
    if (!participant) return;
    for (const publication of [...participant.tracks.values()]) this._unsubscribe(publication, participant);
    this.participants.delete(sid);
    participant.state = "disconnected";
    if (this.dominantSpeaker === participant) {
      this.dominantSpeaker = null;
      this.emit("dominantSpeakerChanged", null);
    }
    participant.emit("disconnected", participant);
    this.emit("participantDisconnected", participant);
  }

  _published(participant, info) {
    const publication = new RemoteTrackPublication(info);
    participant._addPublication(publication);
    participant.emit("trackPublished", publication);
    this.emit("trackPublished", publication, participant);
  }

  _unpublished(participant, trackSid) {
    const publication = participant.tracks.get(trackSid);
    if (!publication) return;
    this._unsubscribe(publication, participant);
    participant._removePublication(trackSid);
    participant.emit("trackUnpublished", publication);
    this.emit("trackUnpublished", publication, participant);
  }

  _unsubscribe(publication, participant) {
    const track = publication.track;
    if (!track) return;
    publication.track = null;
    if (track._stop) track._stop();
    track.detach();
    publication.emit("unsubscribed", track);
    participant.emit("trackUnsubscribed", track, publication);
    this.emit("trackUnsubscribed", track, publication, participant);
  }

  _publicationBySid(trackSid) {
    for (const participant of this.participants.values()) {
      const publication = participant.tracks.get(trackSid);
      if (publication) return publication;
    }
    return null;
  }

  _participantOf(trackSid) {
    for (const participant of this.participants.values()) if (participant.tracks.has(trackSid)) return participant;
    return null;
  }

  _rtcConfiguration() {
    const config = { bundlePolicy: "max-bundle", rtcpMuxPolicy: "require", iceServers: this._iceServers };
    if (this._options.iceTransportPolicy) config.iceTransportPolicy = this._options.iceTransportPolicy;
    return config;
  }

  _requestQuietly(message) {
    if (this.state === "disconnected") return;
    this._signaling.request(message).catch((error) => {
      if (!error.quietly) logger.warn(`${message.type} refused`, error);
    });
  }

  // Every server message that is not a reply.
  _handle(message) {
    switch (message.type) {
      case "subscribeOffer": this._onSubscribeOffer(message); return;
      case "participantConnected": {
        const info = message.participant;
        if (!info || !info.sid) return logger.warn("participantConnected without a participant", message);
        if (this.participants.has(info.sid)) return;
        this.emit("participantConnected", this._addParticipant(info));
        return;
      }
      case "participantDisconnected": return this._removeParticipant(message.participantSid);
      case "participantReconnecting":
      case "participantReconnected": {
        const participant = this._known(message.participantSid, message.type);
        if (!participant) return;
        const reconnecting = message.type === "participantReconnecting";
        participant.state = reconnecting ? "reconnecting" : "connected";
        participant.emit(reconnecting ? "reconnecting" : "reconnected", participant);
        this.emit(message.type, participant);
        return;
      }
      case "trackPublished": {
        const participant = this._known(message.participantSid, message.type);
        if (participant && message.track && !participant.tracks.has(message.track.sid)) {
          this._published(participant, message.track);
        }
        return;
      }
      case "trackUnpublished": {
        const participant = this._known(message.participantSid, message.type);
        if (participant) this._unpublished(participant, message.trackSid);
        return;
      }
      case "trackEnabled":
      case "trackDisabled": return this._onTrackEnabled(message);
      case "trackSwitchedOff":
      case "trackSwitchedOn": return this._onSwitched(message);
      case "dominantSpeaker": {
        const participant = message.participantSid ? this.participants.get(message.participantSid) || null : null;
        if (participant === this.dominantSpeaker) return;
        this.dominantSpeaker = participant;
        this.emit("dominantSpeakerChanged", participant);
        return;
      }
      case "networkQuality": {
        const participant = message.participantSid === this.localParticipant.sid ? this.localParticipant
          : this._known(message.participantSid, message.type);
        if (!participant || participant.networkQualityLevel === message.level) return;
        participant.networkQualityLevel = message.level;
        participant.networkQualityStats = { level: message.level, warnings: message.warnings || [] };
        participant.emit("networkQualityLevelChanged", message.level, participant.networkQualityStats);
        this.emit("networkQualityLevelChanged", participant, message.level);
        return;
      }
      case "message": {
        const from = message.from && this.participants.get(message.from.sid);
        let content = message.content;
        if (message.contentType === "application/json") try { content = JSON.parse(content); } catch (_) { /* as sent */ }
        this.emit("messageReceived", { sid: message.sid, content, contentType: message.contentType,
          sequenceNumber: message.sequenceNumber }, from || null);
        return;
      }
      case "publisherLayers": return this._publisher.layers(message.trackSid, message.active);
      case "redirect": return this._onRedirect(message.url);
      case "reconnect": return this._onMove(message.url);
      case "disconnected": {
        // 53002 (silence) is treated like a drop on both sides (PROTOCOL.md 3.6): resume.
        if (message.code === 53002) return logger.warn("the server cut the session for silence: resuming");
        this._closing = new VroomError(message.code, message.message);
        return;
      }
      case "pong": return;
      case "error": return logger.warn("server error", new VroomError(message.code, message.message));
      default: logger.warn(`unknown message type '${message.type}', skipped`);
    }
  }

  _known(participantSid, what) {
    const participant = this.participants.get(participantSid);
    if (!participant) logger.warn(`${what} for an unknown participant ${participantSid}, skipped`);
    return participant || null;
  }

  _onTrackEnabled(message) {
    const participant = this._known(message.participantSid, message.type);
    const publication = participant && participant.tracks.get(message.trackSid);
    if (!publication) return participant && logger.warn(`${message.type} for an unknown track ${message.trackSid}`);
    const enabled = message.type === "trackEnabled";
    publication.isTrackEnabled = enabled;
    publication.isTrackInterrupted = !enabled && message.reason === "interrupted";
    const event = enabled ? "trackEnabled" : "trackDisabled";
    publication.emit(enabled ? "trackEnabled" : "trackDisabled");
    if (publication.track) publication.track.emit(enabled ? "enabled" : "disabled", publication.track);
    participant.emit(event, publication);
    this.emit(event, publication, participant);
    if (publication.isTrackInterrupted) {
      participant.emit("trackInterrupted", publication);
      this.emit("trackInterrupted", publication, participant);
    }
  }

  _onSwitched(message) {
    const publication = this._publicationBySid(message.trackSid);
    const participant = this._participantOf(message.trackSid);
    if (!publication) return logger.warn(`${message.type} for an unknown track ${message.trackSid}`);
    const off = message.type === "trackSwitchedOff";
    publication._switchedOff = off ? message.reason || null : undefined;
    const track = publication.track;
    if (!track || !track._switched) return;  // applied when the track arrives
    track._switched(off, message.reason);
    publication.emit(off ? "trackSwitchedOff" : "trackSwitchedOn", track, message.reason || null);
    participant.emit(off ? "trackSwitchedOff" : "trackSwitchedOn", track, publication);
    this.emit(off ? "trackSwitchedOff" : "trackSwitchedOn", track, publication, participant);
  }

  // subscribeOffer: answered one at a time, in order. `tracks` lists every
  // track on the connection: new ones are subscribed, missing ones
  // unsubscribed (their m-line stays, inactive).
  _onSubscribeOffer(message) {
    const ws = this._signaling.ws;
    this._offers = this._offers.then(async () => {
      if (this._signaling.ws !== ws) return;
      if (!this._subscriber) {
        const pc = new RTCPeerConnection(this._rtcConfiguration());
        pc.onconnectionstatechange = () => {
          if (pc === this._subscriber && pc.connectionState === "failed") this._mediaFailed("subscriber");
        };
        this._subscriber = pc;
      }
      const pc = this._subscriber;
      let sdp;
      try {
        await pc.setRemoteDescription({ type: "offer", sdp: message.sdp });
        await pc.setLocalDescription(await pc.createAnswer());
        await gathered(pc);
        sdp = pc.localDescription.sdp;
      } catch (error) {
        // Answer anyway (every m-line refused) so that signaling goes on:
        // the server sends no further offer before an answer.
        logger.warn("the server's offer could not be applied", error);
        sdp = inactiveAnswer(message.sdp);
      }
      if (this._signaling.ws !== ws) return;
      this._signaling.send({ type: "subscribeAnswer", sdp });
      this._syncSubscriptions(pc, Array.isArray(message.tracks) ? message.tracks : []);
    }).catch((error) => logger.warn("subscribeOffer", error));
  }

  _syncSubscriptions(pc, tracks) {
    const byMid = new Map(tracks.map((t) => [t.mid, t]));
    for (const [mid, previous] of this._remote) {
      const now = byMid.get(mid);
      if (now && now.trackSid === previous.trackSid) continue;
      const participant = this.participants.get(previous.participantSid);
      const publication = participant && participant.tracks.get(previous.trackSid);
      if (publication) this._unsubscribe(publication, participant);
      this._remote.delete(mid);
    }
    for (const info of tracks) {
      if (this._remote.has(info.mid)) continue;
      const participant = this._known(info.participantSid, "subscribeOffer");
      if (!participant) continue;
      let publication = participant.tracks.get(info.trackSid);
      if (!publication) {
        publication = new RemoteTrackPublication({ sid: info.trackSid, name: info.name, kind: info.kind });
        participant._addPublication(publication);
      }
      const transceiver = pc.getTransceivers().find((t) => t.mid === info.mid);
      if (!transceiver) { logger.warn(`no transceiver for mid ${info.mid}`); continue; }
      this._remote.set(info.mid, info);
      const Kind = info.kind === "video" ? RemoteVideoTrack : RemoteAudioTrack;
      const track = new Kind(transceiver.receiver.track, publication, this);
      publication.track = track;
      publication.emit("subscribed", track);
      participant.emit("trackSubscribed", track, publication);
      this.emit("trackSubscribed", track, publication, participant);
      if (publication._switchedOff !== undefined && track._switched) {
        track._switched(true, publication._switchedOff);
        this.emit("trackSwitchedOff", track, publication, participant);
      }
    }
  }

  // `redirect` answers a join: the join loop follows it.
  _onRedirect(url) {
    if (this.state === "connected") return logger.warn("redirect after joined, skipped");
    this._redirectTo = url;
    this._signaling.drop();
  }

  // `reconnect`: the room moves to another node. Both connections are made
  // again there: the publisher republishes every track after the resumed
  // `joined`, the subscriber answers the new node's first offer.
  async _onMove(url) {
    if (this.state !== "connected" || !this._sessionToken) return;
    this.state = "reconnecting";
    this.emit("reconnecting", new VroomError(53001, `the room moves to ${url}`));
    this._signaling.drop();
    this._publisher.close();
    this._closeSubscriber();
    try {
      await this._join(url, this._sessionToken);
      await this._publisher.restart();
      this.emit("reconnected");
    } catch (error) {
      this._end(error.code ? error : new VroomError(53001, error.message));
    }
  }

  _closeSubscriber() {
    if (this._subscriber) this._subscriber.close();
    this._subscriber = null;
    for (const [, info] of this._remote) {
      const participant = this.participants.get(info.participantSid);
      const publication = participant && participant.tracks.get(info.trackSid);
      if (publication) this._unsubscribe(publication, participant);
    }
    this._remote.clear();
  }

  // The socket closed. After `disconnected` (or our own leave) the room
  // ends; otherwise it is a drop: resume within the reconnect window.
  _signalingClosed() {
    if (this.state === "disconnected" || this._redirectTo) return;
    if (this._closing) return this._end(this._closing);
    if (this.state !== "connected" || !this._sessionToken) return;
    this.state = "reconnecting";
    this.emit("reconnecting", new VroomError(53001, "the signaling connection dropped"));
    this._resume(Date.now() + this._reconnectWindowMs, 250);
  }

  async _resume(deadline, delay) {
    if (this.state !== "reconnecting") return;
    try {
      await this._join(this._signaling.url, this._sessionToken);
      this.emit("reconnected");
    } catch (error) {
      if (this.state !== "reconnecting") return;
      const final = error.code && error.code !== 53000;
      if (final || Date.now() + delay > deadline) {
        return this._end(final ? error : new VroomError(53001, "the reconnect window passed"));
      }
      setTimeout(() => this._resume(deadline, Math.min(delay * 2, 4000)), delay);
    }
  }

  _mediaFailed(which) {
    logger.warn(`the ${which} connection failed`);
    if (which === "subscriber") this._requestQuietly({ type: "restartIce" });
  }

  _end(error) {
    if (this.state === "disconnected") return;
    this.state = "disconnected";
    clearInterval(this._pinger);
    this._signaling.drop();
    this._publisher.close();
    this._closeSubscriber();
    for (const participant of this.participants.values()) participant.state = "disconnected";
    this.localParticipant && (this.localParticipant.state = "disconnected");
    this.emit("disconnected", this, error);
  }
}

// MARK: - Entry points

/**
 * Joins a room (twilio-video.js's `connect`). Options: name (the room),
 * audio, video (true or constraints: local tracks are created), tracks
 * (LocalTracks to publish), bandwidthProfile, preferredVideoCodecs
 * ([{codec: "VP8", simulcast: true}] publishes video as simulcast),
 * dominantSpeaker and networkQuality (the server always sends both),
 * iceServers and iceTransportPolicy (default: the server's joined.iceServers),
 * signalingURL (default: /v1/signal on the server this module came from).
 */
export async function connect(token, options = {}) {
  if (!token || typeof token !== "string") throw new VroomError(20101, "connect needs an access token");
  let tracks = options.tracks;
  if (!tracks) {
    tracks = (options.audio || options.video)
      ? await createLocalTracks({ audio: options.audio || false, video: options.video || false }) : [];
  }
  const room = new Room(options);
  room._signaling = new Signaling(room, null, token);
  await room._join(options.signalingURL || defaultSignalingURL(), null);
  room._pinger = setInterval(() => room._signaling.send({ type: "ping" }), PING_INTERVAL_MS);
  const published = tracks.map((t) => room.localParticipant.publishTrack(t).catch((error) => {
    logger.warn(`publishing '${t.name}' failed`, error);
    room.localParticipant.emit("trackPublicationFailed", error, t);
    return null;
  }));
  await Promise.all(published);
  return room;
}

/** Camera and/or microphone tracks (getUserMedia). */
export async function createLocalTracks(options = { audio: true, video: true }) {
  const constraints = {
    audio: options.audio === undefined ? true : options.audio,
    video: options.video === undefined ? true : options.video,
  };
  if (!constraints.audio && !constraints.video) return [];
  const name = (kind) => (typeof constraints[kind] === "object" && constraints[kind].name) || undefined;
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: strip(constraints.audio), video: strip(constraints.video) });
  return stream.getTracks().map((t) => t.kind === "audio"
    ? new LocalAudioTrack(t, { name: name("audio"), constraints: constraints.audio })
    : new LocalVideoTrack(t, { name: name("video"), constraints: constraints.video }));
}

export async function createLocalAudioTrack(options = {}) {
  return (await createLocalTracks({ audio: Object.keys(options).length ? options : true, video: false }))[0];
}

export async function createLocalVideoTrack(options = {}) {
  return (await createLocalTracks({ audio: false, video: Object.keys(options).length ? options : true }))[0];
}

export const isSupported = typeof RTCPeerConnection === "function" && typeof WebSocket === "function";

// MARK: - Helpers

function strip(constraints) {
  if (typeof constraints !== "object" || constraints === null) return constraints;
  const copy = Object.assign({}, constraints);
  delete copy.name;
  return copy;
}

function defaultSignalingURL() {
  const base = new URL("../v1/signal", import.meta.url);
  base.protocol = base.protocol === "https:" ? "wss:" : "ws:";
  return base.toString();
}

function gathered(pc, timeoutMs = GATHER_TIMEOUT_MS) {
  return new Promise((resolve) => {
    if (pc.iceGatheringState === "complete") return resolve();
    const done = () => { if (pc.iceGatheringState === "complete") resolve(); };
    pc.addEventListener("icegatheringstatechange", done);
    setTimeout(resolve, timeoutMs);
  });
}

// Each simulcast layer's size, from what the camera captures.
function layerSizes(track) {
  const settings = track.getSettings ? track.getSettings() : {};
  return SIMULCAST_LAYERS.map((l) => ({
    rid: l.rid,
    width: Math.round((settings.width || 0) / l.scaleResolutionDownBy),
    height: Math.round((settings.height || 0) / l.scaleResolutionDownBy),
  }));
}

// The mid of the m-line whose a=msid names `trackId` (its last field).
// The mid of the sending m-line whose msid names `trackId`: the last one
// (an unpublished, inactive m-line of the same track comes before it).
function midOfTrack(sdp, trackId) {
  let found = null;
  for (const section of sdp.split(/\r?\nm=/).slice(1)) {
    const lines = section.split(/\r?\n/);
    if (!lines.some((l) => l.startsWith("a=msid:") && l.trim().split(" ").pop() === trackId)) continue;
    if (lines.includes("a=inactive") || lines.includes("a=recvonly")) continue;
    const mid = lines.find((l) => l.startsWith("a=mid:"));
    if (mid) found = mid.slice(6).trim();
  }
  return found;
}

function mediaSection(sdp, mid) {
  for (const section of sdp.split(/\r?\nm=/).slice(1)) {
    const lines = section.split(/\r?\n/);
    if (lines.includes("a=mid:" + mid)) return lines;
  }
  return [];
}

// A server that answers without a=simulcast gets one stream: the browser
// then keeps only the first (lowest) encoding, so send it at full size.
async function singleStreamFallback(transceiver, mid, answer) {
  if (mediaSection(answer, mid).some((l) => l.startsWith("a=simulcast:recv"))) return;
  const sender = transceiver.sender;
  const parameters = sender.getParameters();
  if (!parameters.encodings || parameters.encodings.length !== 1 || parameters.encodings[0].scaleResolutionDownBy === 1) return;
  parameters.encodings[0].scaleResolutionDownBy = 1;
  await sender.setParameters(parameters).catch((error) => logger.warn("single-stream fallback", error));
}

function inactiveAnswer(offer) {
  const lines = ["v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "t=0 0"];
  for (const section of offer.split(/\r?\nm=/).slice(1)) {
    const media = section.split(/\r?\n/);
    const [kind, , proto, format] = media[0].split(" ");
    lines.push(`m=${kind} 0 ${proto} ${format || "0"}`, "c=IN IP4 0.0.0.0");
    for (const line of media) if (line.startsWith("a=mid:")) lines.push(line);
    lines.push("a=inactive");
  }
  return lines.join("\r\n") + "\r\n";
}
