// The meeting page, built only on the JavaScript SDK (/sdk/vroom.js, the
// API of twilio-video.js): a join form, a tile per participant with its
// name, microphone and camera state ("muted"/"off", "paused" for an
// interruption), network-quality bars and the dominant speaker outlined; a
// screen share shown large; switched-off video marked; device choice;
// errors with their code.
//
// ?token=... fills the token; with a --dev server, ?name=&room= join
// without one (GET /dev/token); ?autojoin=1 joins at load. window.meet
// exposes the room and what each tile shows, for tests.
import {
  connect, createLocalTracks, createLocalAudioTrack, createLocalVideoTrack, LocalVideoTrack, logger,
} from "./sdk/vroom.js";

const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);
const QUALITY_BARS = 5;
// `overlays`: each change of a tile's overlay text, [identity, text], so a
// test sees a state that lasted less than its polling interval.
const meet = { room: null, warnings: [], tiles, errors: [], overlays: [] };
window.meet = meet;
logger.warn = (...args) => {
  meet.warnings.push(args.map((a) => (a && a.message) || String(a)).join(" "));
  console.warn("vroom:", ...args);
};

let local = { audio: null, video: null, screen: null };
let devMode = false;

function status(text, error = false) {
  $("status").textContent = text;
  $("status").classList.toggle("error", error);
}

function describeError(error) {
  return error && error.code ? `Error ${error.code} (${error.name}): ${error.message}` : String((error && error.message) || error);
}

// A --dev server answers GET /dev/token without an identity with 400; others 404.
async function detectDevMode() {
  try {
    const response = await fetch("/dev/token");
    devMode = response.status === 400;
  } catch (_) {
    devMode = false;
  }
  $("name-field").hidden = !devMode;
}

async function tokenFromForm() {
  const token = $("token").value.trim();
  if (token) return token;
  if (!devMode) throw new Error("an access token is needed");
  const name = $("name").value.trim();
  if (!name) throw new Error("a name is needed");
  const query = new URLSearchParams({ identity: name, room: $("room").value.trim() });
  const response = await fetch("/dev/token?" + query);
  const body = await response.json();
  if (!response.ok) throw new Error(body.message || `GET /dev/token: ${response.status}`);
  return body.token;
}

async function join(event) {
  if (event) event.preventDefault();
  $("join").disabled = true;
  try {
    status("Starting camera and microphone...");
    const tracks = await createLocalTracks({ audio: { name: "mic" }, video: { width: 1280, height: 720, name: "camera" } });
    local.audio = tracks.find((t) => t.kind === "audio") || null;
    local.video = tracks.find((t) => t.kind === "video") || null;
    status("Connecting...");
    const room = await connect(await tokenFromForm(), {
      name: $("room").value.trim() || undefined, tracks,
      preferredVideoCodecs: [{ codec: "VP8", simulcast: true }],
      bandwidthProfile: { video: { mode: "collaboration", dominantSpeakerPriority: "high" } },
      dominantSpeaker: true, networkQuality: { local: 1, remote: 1 },
    });
    meet.room = room;
    setUpRoom(room);
    status(`In ${room.name} as ${room.localParticipant.identity}.`);
    $("join-form").hidden = true;
    $("controls").hidden = false;
    await listDevices();
  } catch (error) {
    meet.errors.push(describeError(error));
    status(describeError(error), true);
    for (const track of [local.audio, local.video]) if (track) track.stop();
    $("join").disabled = false;
  }
}

function setUpRoom(room) {
  addTile(room.localParticipant, true);
  for (const participant of room.participants.values()) addTile(participant, false);
  room.on("participantConnected", (participant) => addTile(participant, false));
  room.on("participantDisconnected", (participant) => removeTile(participant));
  room.on("trackSubscribed", (track, publication, participant) => attachRemote(track, publication, participant));
  room.on("trackUnsubscribed", (track, publication, participant) => detachRemote(track, publication, participant));
  for (const event of ["trackEnabled", "trackDisabled", "trackPublished", "trackUnpublished",
    "participantReconnecting", "participantReconnected"]) {
    room.on(event, (publication, participant) => render(participant || publication));
  }
  for (const event of ["trackSwitchedOff", "trackSwitchedOn"]) {
    room.on(event, (track, publication, participant) => render(participant));
  }
  room.on("networkQualityLevelChanged", (participant) => render(participant));
  room.on("dominantSpeakerChanged", () => { for (const p of everyone()) render(p); });
  room.on("reconnecting", () => status("Reconnecting...", false));
  room.on("reconnected", () => status(`In ${room.name} as ${room.localParticipant.identity}.`));
  room.on("disconnected", (_, error) => {
    status(error ? `Disconnected. ${describeError(error)}` : "Left the room.", !!error);
    if (error) meet.errors.push(describeError(error));
    for (const tile of document.querySelectorAll(".tile, #presentation video")) tile.remove();
    $("presentation").hidden = true;
    for (const track of Object.values(local)) if (track) track.stop();
    local = { audio: null, video: null, screen: null };
    $("controls").hidden = true;
    $("join-form").hidden = false;
    $("join").disabled = false;
  });
  // Tracks already subscribed before these listeners.
  for (const participant of room.participants.values()) {
    for (const publication of participant.tracks.values()) {
      if (publication.track) attachRemote(publication.track, publication, participant);
    }
  }
}

function everyone() {
  return meet.room ? [meet.room.localParticipant, ...meet.room.participants.values()] : [];
}

function tileOf(participant) {
  return document.querySelector(`.tile[data-sid="${participant.sid}"]`);
}

function addTile(participant, isLocal) {
  if (tileOf(participant)) return;
  const tile = document.createElement("div");
  tile.className = "tile";
  tile.dataset.sid = participant.sid;
  tile.dataset.local = isLocal ? "1" : "0";
  tile.innerHTML = `<video autoplay playsinline muted></video><span class="overlay"></span>
    <div class="label"><span class="name"></span><span class="state mic"></span><span class="state camera"></span>
    <span class="quality" title="network quality"></span></div>`;
  tile.querySelector(".name").textContent = participant.identity + (isLocal ? " (you)" : "");
  $("grid").append(tile);
  if (isLocal && local.video) local.video.attach(tile.querySelector("video"));
  render(participant);
}

function removeTile(participant) {
  const tile = tileOf(participant);
  if (tile) tile.remove();
  const screen = document.querySelector(`#presentation video[data-sid="${participant.sid}"]`);
  if (screen) { screen.remove(); $("presentation").hidden = !$("presentation").querySelector("video"); }
}

function attachRemote(track, publication, participant) {
  if (track.kind === "audio") {
    const element = track.attach();
    element.dataset.track = track.sid;
    document.body.append(element);
  } else if (publication.trackName === "screen") {
    const element = track.attach();
    element.dataset.sid = participant.sid;
    element.dataset.track = track.sid;
    $("presentation").append(element);
    $("presentation").hidden = false;
  } else {
    const tile = tileOf(participant);
    if (tile) track.attach(tile.querySelector("video"));
  }
  render(participant);
}

function detachRemote(track, publication, participant) {
  for (const element of track.detach()) {
    if (element.closest(".tile")) continue;  // the tile's own element stays
    element.remove();
  }
  $("presentation").hidden = !$("presentation").querySelector("video");
  render(participant);
}

// What a participant's tile shows, from the SDK's state alone.
function stateOf(participant) {
  const isLocal = meet.room && participant === meet.room.localParticipant;
  const publications = [...participant.tracks.values()];
  const mic = publications.find((p) => p.kind === "audio");
  const camera = publications.find((p) => p.kind === "video" && p.trackName !== "screen");
  const trackState = (publication, off) => {
    if (!publication) return isLocal ? off : `no ${off.split(" ")[0]}`;
    if (publication.isTrackEnabled) return "";
    return publication.isTrackInterrupted ? `${off.split(" ")[0]} paused` : off;
  };
  const video = camera && camera.track;
  let overlay = "";
  if (camera && !camera.isTrackEnabled) overlay = camera.isTrackInterrupted ? "camera paused" : "camera off";
  else if (video && video.isSwitchedOff) overlay = `video switched off (${video.switchOffReason || "bandwidth"})`;
  if (participant.state === "reconnecting") overlay = "reconnecting...";
  return {
    sid: participant.sid, identity: participant.identity, local: !!isLocal,
    mic: trackState(mic, "muted"), camera: trackState(camera, "camera off"), overlay,
    quality: participant.networkQualityLevel, speaking: !!meet.room && meet.room.dominantSpeaker === participant,
  };
}

function render(participant) {
  if (!participant || !participant.sid) return;
  const tile = tileOf(participant);
  if (!tile) return;
  const state = stateOf(participant);
  tile.querySelector(".mic").textContent = state.mic;
  tile.querySelector(".mic").classList.toggle("paused", state.mic.endsWith("paused"));
  tile.querySelector(".camera").textContent = state.camera;
  tile.querySelector(".camera").classList.toggle("paused", state.camera.endsWith("paused"));
  const overlay = tile.querySelector(".overlay");
  if (overlay.textContent !== state.overlay) meet.overlays.push([participant.identity, state.overlay]);
  overlay.textContent = state.overlay;
  const level = state.quality;
  tile.querySelector(".quality").textContent = level === null || level === undefined ? ""
    : "▮".repeat(level) + "▯".repeat(QUALITY_BARS - level);
  tile.classList.toggle("speaking", state.speaking);
}

/** For tests: what each tile shows, as text. */
function tiles() {
  return [...document.querySelectorAll(".tile")].map((tile) => {
    const video = tile.querySelector("video");
    return {
      sid: tile.dataset.sid, local: tile.dataset.local === "1",
      name: tile.querySelector(".name").textContent, mic: tile.querySelector(".mic").textContent,
      camera: tile.querySelector(".camera").textContent, overlay: tile.querySelector(".overlay").textContent,
      quality: tile.querySelector(".quality").textContent, speaking: tile.classList.contains("speaking"),
      videoWidth: video ? video.videoWidth : 0,
    };
  });
}

// MARK: - Controls

function toggle(kind) {
  const track = local[kind];
  if (!track) return;
  track.isEnabled ? track.disable() : track.enable();
  $(kind === "audio" ? "mic" : "camera").textContent = kind === "audio"
    ? (track.isEnabled ? "Mute" : "Unmute") : (track.isEnabled ? "Stop camera" : "Start camera");
  render(meet.room.localParticipant);
}

async function share() {
  const participant = meet.room.localParticipant;
  if (local.screen) {
    participant.unpublishTrack(local.screen);
    local.screen.stop();
    local.screen = null;
    $("share").textContent = "Share screen";
    return;
  }
  try {
    const stream = await navigator.mediaDevices.getDisplayMedia({ video: true });
    local.screen = new LocalVideoTrack(stream.getVideoTracks()[0], { name: "screen" });
    local.screen.mediaStreamTrack.addEventListener("ended", () => { if (local.screen) share(); });
    await participant.publishTrack(local.screen, { priority: "high" });
    $("share").textContent = "Stop sharing";
  } catch (error) {
    status(describeError(error), true);
    local.screen = null;
  }
}

async function listDevices() {
  const devices = await navigator.mediaDevices.enumerateDevices();
  for (const [select, kind, current] of [[$("camera-device"), "videoinput", local.video],
    [$("mic-device"), "audioinput", local.audio]]) {
    select.textContent = "";
    const chosen = current && current.mediaStreamTrack.getSettings().deviceId;
    for (const device of devices.filter((d) => d.kind === kind)) {
      const option = new Option(device.label || `${kind} ${select.length + 1}`, device.deviceId);
      option.selected = device.deviceId === chosen;
      select.append(option);
    }
  }
}

// Another device: the track captures from it (restart: the publication
// stays, nothing is renegotiated).
async function switchDevice(kind, deviceId) {
  const track = local[kind];
  if (!track) return;
  try {
    const constraints = kind === "audio" ? { deviceId: { exact: deviceId } }
      : { deviceId: { exact: deviceId }, width: 1280, height: 720 };
    await track.restart(constraints);
    render(meet.room.localParticipant);
  } catch (error) {
    status(describeError(error), true);
  }
}

$("join-form").addEventListener("submit", join);
$("mic").onclick = () => toggle("audio");
$("camera").onclick = () => toggle("video");
$("share").onclick = share;
$("leave").onclick = () => meet.room && meet.room.disconnect();
$("camera-device").onchange = (e) => switchDevice("video", e.target.value);
meet.switchDevice = switchDevice;
meet.sdk = { createLocalVideoTrack };
$("mic-device").onchange = (e) => switchDevice("audio", e.target.value);
$("token").value = params.get("token") || "";
$("name").value = params.get("name") || "";
$("room").value = params.get("room") || "";
detectDevMode().then(() => { if (params.get("autojoin") === "1") join(); });
