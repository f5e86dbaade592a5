"use strict";
// A plain client of PROTOCOL.md: one WebSocket for signaling, a publisher
// RTCPeerConnection (this page offers) and a subscriber one (the server
// offers). The server is ICE-lite and needs no trickle: each side's SDP is
// sent once ICE gathering has finished.
//
// Adaptive video (PROTOCOL.md 7): the camera is published as VP8 simulcast
// (three layers, lowest first; `?simulcast=0` publishes one plain stream),
// every remote video's rendered size is sent as `setContentPreferences`,
// `trackSwitchedOff` / `trackSwitchedOn` mark its tile, and
// `publisherLayers` pauses the encodings nobody needs. A server that does
// not do simulcast (no `a=simulcast` in its answer) gets one full-size
// stream, and errors to these requests are noted, not shown.
//
// For tests (scripts/interop, the `bwe` group): `?publish=0` joins without
// camera or microphone and publishes nothing (a subscriber only);
// `?bandwidthProfile=<JSON>` is sent as the join's bandwidthProfile;
// `?contentPreferences=0` sends no render dimensions (no layer cap).
//
// Several nodes (PROTOCOL.md 8): a `redirect` answering `join` is followed
// with the same token, at most MAX_REDIRECTS times (one more is an error,
// 53000, like a server that cannot be reached). A `reconnect` (the node
// drains) moves the session: both PeerConnections are closed, the page
// resumes at the URL with its sessionToken, publishes the same tracks on a
// new publisher connection and answers the new node's offer on a new
// subscriber connection. A socket that merely drops still ends the session.
const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);
const rtcConfig = { bundlePolicy: "max-bundle", rtcpMuxPolicy: "require", iceServers: [] };  // iceServers: from joined
// ?iceTransportPolicy=relay: media only through the TURN server of joined.iceServers.
if (params.get("iceTransportPolicy") === "relay") rtcConfig.iceTransportPolicy = "relay";
const simulcast = params.get("simulcast") !== "0";
const publishMedia = params.get("publish") !== "0";
const sendsContentPreferences = params.get("contentPreferences") !== "0";
const bandwidthProfile = params.get("bandwidthProfile") ? JSON.parse(params.get("bandwidthProfile")) : null;
// Simulcast layers, lowest first (the order of a=simulcast): rid and how much
// smaller than the capture. Chromium sends all three only from a capture of
// about 1280x720 or more (INTEROP.md).
const LAYERS = [
  { rid: "q", scaleResolutionDownBy: 4 },
  { rid: "h", scaleResolutionDownBy: 2 },
  { rid: "f", scaleResolutionDownBy: 1 },
];
const CONTENT_PREFERENCES_DEBOUNCE_MS = 300;
// PROTOCOL.md 8: clients follow at most 3 redirects.
const MAX_REDIRECTS = 3;

const vroom = {
  ws: null, pcPub: null, pcSub: null, localStream: null,
  participantSid: null, room: null,
  signalURL: null,         // the signaling URL of the current socket (no token)
  sessionToken: null,      // from the latest joined: what a move resumes with
  joinResume: null,        // the sessionToken the current socket's join resumes, if any
  redirects: 0,            // redirects followed since the latest joined
  moves: 0,                // `reconnect`s followed
  identities: {},          // participant SID -> identity
  published: {},           // "mic" / "camera" -> {sid, mid, kind}
  remote: {},              // mid -> {trackSid, participantSid, name, kind}
  events: [], errors: [], answeredOffers: 0, joined: false,
  simulcast,               // whether the camera is offered as simulcast
  simulcastAccepted: null, // whether the publishAnswer accepted it (a=simulcast:recv)
  publishSdp: null,        // {offer, answer} of the latest publish
  publishTracks: null,     // the `tracks` of the latest publish
  cameraSender: null,      // the camera's RTCRtpSender
  contentPreferences: {},  // trackSid -> {width, height} last sent
  switchedOff: {},         // trackSid -> reason, while switched off
  publisherLayers: {},     // trackSid -> active rids, as the server last said
  unsupported: {},         // request type -> the server's error (an older server)
  join, leave, setTrackEnabled, summary, senderEncodings, handleMessage: onMessage,
};
window.vroom = vroom;

function status(text) {
  $("status").textContent = text;
}
function fail(where, error) {
  const message = `${where}: ${error && error.message ? error.message : error}`;
  vroom.errors.push(message);
  console.error(message);
  status(message);
}

function send(message) {
  if (vroom.ws && vroom.ws.readyState === WebSocket.OPEN) vroom.ws.send(JSON.stringify(message));
}

let nextId = 1;
const pending = new Map();
function request(message) {
  const id = String(nextId++);
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    send(Object.assign({}, message, { id }));
  });
}

function gathered(pc, timeoutMs = 3000) {
  return new Promise((resolve) => {
    if (pc.iceGatheringState === "complete") return resolve();
    const done = () => { if (pc.iceGatheringState === "complete") resolve(); };
    pc.addEventListener("icegatheringstatechange", done);
    setTimeout(resolve, timeoutMs);
  });
}

function firstSignalURL() {
  const base = params.get("server") ||
    ((location.protocol === "https:" ? "wss://" : "ws://") + location.host);
  return base.replace(/^http/, "ws") + "/v1/signal";
}

// Requests of a socket that is given up (redirect, move) never get their
// reply: they fail with this, which nobody reports.
const SUPERSEDED = "superseded";

async function join() {
  const token = $("token").value.trim();
  const room = $("room").value.trim();
  if (!token) return status("A token is needed (?token=... or paste one).");
  $("join").disabled = true;
  status("Starting camera and microphone...");
  if (publishMedia) try {
    const video = simulcast ? { width: 1280, height: 720 } : { width: 640, height: 480 };
    vroom.localStream = await navigator.mediaDevices.getUserMedia({ audio: true, video });
    $("local").srcObject = vroom.localStream;
  } catch (error) {
    $("join").disabled = false;
    return fail("getUserMedia", error);
  }
  status("Connecting...");
  vroom.token = token;
  vroom.roomName = room;
  vroom.redirects = 0;
  openSignaling(firstSignalURL(), null);
  vroom.pinger = setInterval(() => send({ type: "ping" }), 5000);
}

// One signaling socket to `url`, whose `join` resumes `resume` when given
// (a move). Events of a socket that has been replaced are ignored.
function openSignaling(url, resume) {
  vroom.signalURL = url;
  vroom.joinResume = resume;  // a redirected resume keeps resuming
  const separator = url.includes("?") ? "&" : "?";
  const ws = new WebSocket(url + separator + "access_token=" + encodeURIComponent(vroom.token));
  vroom.ws = ws;
  ws.onmessage = (event) => { if (vroom.ws === ws) onMessage(JSON.parse(event.data)); };
  ws.onclose = () => {
    if (vroom.ws !== ws) return;
    status("Disconnected.");
    cleanUp();
  };
  ws.onopen = async () => {
    try {
      const joined = await request(Object.assign({ type: "join", name: "browser" },
                                                 vroom.roomName ? { room: vroom.roomName } : {},
                                                 bandwidthProfile ? { bandwidthProfile } : {},
                                                 resume ? { resume } : {}));
      vroom.joined = true;
      vroom.redirects = 0;
      vroom.sessionToken = joined.sessionToken;
      // TURN credentials when the server has a TURN server (PROTOCOL.md section 9), else [].
      rtcConfig.iceServers = joined.iceServers || [];
      vroom.participantSid = joined.participant.sid;
      vroom.room = joined.room;
      vroom.identities[joined.participant.sid] = joined.participant.identity;
      for (const p of joined.participants || []) vroom.identities[p.sid] = p.identity;
      status(`${resume ? "Resumed" : "Joined"} ${joined.room.name} as ${joined.participant.identity}` +
             (vroom.moves > 0 || vroom.signalURL !== firstSignalURL() ? ` at ${vroom.signalURL}.` : "."));
      $("leave").disabled = false;
      if (!publishMedia) return;
      $("mic").disabled = $("camera").disabled = false;
      await publish();
    } catch (error) {
      if (error.message !== SUPERSEDED) fail("join", error);
    }
  };
}

// Gives up the current socket without ending the session: pending requests
// fail quietly, its close and late frames are ignored.
function dropSocket() {
  const ws = vroom.ws;
  vroom.ws = null;
  for (const { reject } of pending.values()) reject(new Error(SUPERSEDED));
  pending.clear();
  if (ws) ws.close();
}

// `redirect`: the room lives on another node; join there with the same token.
function followRedirect(url) {
  if (vroom.joined) return;  // only a join is redirected
  if (vroom.redirects >= MAX_REDIRECTS) {
    fail("join", `53000 Signaling connection error: redirected more than ${MAX_REDIRECTS} times (the last redirect was to ${url})`);
    dropSocket();
    cleanUp();
    return;
  }
  vroom.redirects += 1;
  status(`Redirected to ${url} (${vroom.redirects} of ${MAX_REDIRECTS})...`);
  dropSocket();
  openSignaling(url, vroom.joinResume);
}

// `reconnect`: the room moves to another node. The new node makes new
// PeerConnections, so this page does too: both are closed now, the
// publisher is made again after the resumed `joined`, the subscriber on
// the new node's first offer.
function moveTo(url) {
  if (!vroom.joined || !vroom.sessionToken) return;
  vroom.moves += 1;
  status(`The room moves to ${url}: resuming there...`);
  dropSocket();
  vroom.joined = false;
  closePeerConnections();
  vroom.redirects = 0;
  openSignaling(url, vroom.sessionToken);
}

// Both PeerConnections and what hangs on them: tiles, the remote track
// list, per-track state the next node will send again.
function closePeerConnections() {
  for (const pc of [vroom.pcPub, vroom.pcSub]) if (pc) pc.close();
  vroom.pcPub = vroom.pcSub = null;
  vroom.cameraSender = null;
  for (const element of document.querySelectorAll("[data-mid]")) {
    const video = element.querySelector("video");
    if (video) renderSizeObserver.unobserve(video);
    element.remove();
  }
  vroom.remote = {};
  vroom.contentPreferences = {};
  vroom.switchedOff = {};
  vroom.publisherLayers = {};
}

async function publish() {
  const pc = new RTCPeerConnection(rtcConfig);
  vroom.pcPub = pc;
  pc.onconnectionstatechange = () => vroom.events.push({ type: "publisher:" + pc.connectionState });
  const tracks = [];
  const transceivers = {};
  for (const track of vroom.localStream.getTracks()) {
    const name = track.kind === "audio" ? "mic" : "camera";
    const init = { direction: "sendonly", streams: [vroom.localStream] };
    if (track.kind === "video" && simulcast) {
      init.sendEncodings = LAYERS.map((l) => ({ rid: l.rid, scaleResolutionDownBy: l.scaleResolutionDownBy }));
    }
    transceivers[name] = pc.addTransceiver(track, init);
  }
  if (transceivers.camera) vroom.cameraSender = transceivers.camera.sender;
  await pc.setLocalDescription(await pc.createOffer());
  await gathered(pc);
  if (vroom.pcPub !== pc) return;  // closed by a move meanwhile
  for (const [name, t] of Object.entries(transceivers)) {
    const entry = { mid: t.mid, name, kind: t.sender.track.kind };
    if (name === "camera" && simulcast) entry.layers = layerSizes(t.sender.track);
    tracks.push(entry);
  }
  const offer = pc.localDescription.sdp;
  vroom.publishTracks = tracks;
  const answer = await request({ type: "publish", sdp: offer, tracks });
  if (vroom.pcPub !== pc) return;  // closed by a move meanwhile
  vroom.publishSdp = { offer, answer: answer.sdp };
  for (const t of answer.tracks) vroom.published[t.name] = t;
  try {
    await pc.setRemoteDescription({ type: "answer", sdp: answer.sdp });
  } catch (error) {
    fail("publisher answer", error);
    return;
  }
  if (simulcast && transceivers.camera) await afterSimulcastAnswer(transceivers.camera, answer.sdp);
}

// Each layer's size, from what the camera really captures.
function layerSizes(track) {
  const settings = track.getSettings();
  return LAYERS.map((l) => ({
    rid: l.rid,
    width: Math.round((settings.width || 0) / l.scaleResolutionDownBy),
    height: Math.round((settings.height || 0) / l.scaleResolutionDownBy),
  }));
}

// The m-line of `mid` in `sdp`, as its lines.
function mediaSection(sdp, mid) {
  for (const section of sdp.split(/\r?\nm=/).slice(1)) {
    const lines = section.split(/\r?\n/);
    if (lines.includes("a=mid:" + mid)) return lines;
  }
  return [];
}

// A server that answers without a=simulcast gets one stream: Chromium then
// keeps only the first (lowest) encoding, so send it at the capture's size.
async function afterSimulcastAnswer(transceiver, answer) {
  vroom.simulcastAccepted = mediaSection(answer, transceiver.mid).some((l) => l.startsWith("a=simulcast:recv"));
  if (vroom.simulcastAccepted) return;
  const sender = transceiver.sender;
  const parameters = sender.getParameters();
  if (parameters.encodings.length !== 1 || parameters.encodings[0].scaleResolutionDownBy === 1) return;
  parameters.encodings[0].scaleResolutionDownBy = 1;
  try {
    await sender.setParameters(parameters);
  } catch (error) {
    console.warn("single-stream fallback", error);
  }
}

// publisherLayers: pause the encodings no subscriber needs, resume the
// others. setParameters calls are chained (each needs the latest
// getParameters).
let layersChain = Promise.resolve();
function onPublisherLayers(message) {
  vroom.publisherLayers[message.trackSid] = message.active;
  layersChain = layersChain.then(async () => {
    const camera = vroom.published.camera;
    const sender = vroom.cameraSender;
    if (!camera || camera.sid !== message.trackSid || !sender) return;
    const parameters = sender.getParameters();
    if (!parameters.encodings || parameters.encodings.length < 2) return;
    let changed = false;
    for (const encoding of parameters.encodings) {
      const active = message.active.includes(encoding.rid);
      if (encoding.active !== active) { encoding.active = active; changed = true; }
    }
    if (changed) await sender.setParameters(parameters);
  }).catch((error) => console.warn("publisherLayers", error));
}

// For tests: the camera sender's encodings (rid, active, scale).
function senderEncodings() {
  if (!vroom.cameraSender) return [];
  return vroom.cameraSender.getParameters().encodings.map((e) => ({
    rid: e.rid || null, active: e.active !== false, scaleResolutionDownBy: e.scaleResolutionDownBy || 1 }));
}

// Offers are handled one at a time, in order (renegotiations).
let offerChain = Promise.resolve();
function onSubscribeOffer(message) {
  const ws = vroom.ws;  // an offer of a socket given up meanwhile (a move) is not answered
  offerChain = offerChain.then(async () => {
    if (vroom.ws !== ws) return;
    if (!vroom.pcSub) {
      vroom.pcSub = new RTCPeerConnection(rtcConfig);
      vroom.pcSub.ontrack = onTrack;
      vroom.pcSub.onconnectionstatechange = () => vroom.events.push({ type: "subscriber:" + vroom.pcSub.connectionState });
    }
    vroom.remote = {};
    for (const t of message.tracks) vroom.remote[t.mid] = t;
    let sdp;
    try {
      await vroom.pcSub.setRemoteDescription({ type: "offer", sdp: message.sdp });
      await vroom.pcSub.setLocalDescription(await vroom.pcSub.createAnswer());
      await gathered(vroom.pcSub);
      sdp = vroom.pcSub.localDescription.sdp;
    } catch (error) {
      // Answer anyway (every m-line refused) so that signaling goes on: the
      // server sends no further offer before an answer.
      fail("subscriber offer", error);
      sdp = inactiveAnswer(message.sdp);
    }
    if (vroom.ws !== ws) return;
    send({ type: "subscribeAnswer", sdp });
    vroom.answeredOffers += 1;
    refreshTiles();
  });
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

function tileLabel(info) {
  const who = vroom.identities[info.participantSid] || info.participantSid;
  return `${who} - ${info.name}`;
}

function onTrack(event) {
  const mid = event.transceiver.mid;
  const stream = new MediaStream([event.track]);
  if (event.track.kind === "video") {
    const tile = document.createElement("div");
    tile.className = "tile";
    tile.dataset.mid = mid;
    const video = document.createElement("video");
    video.autoplay = true; video.playsInline = true; video.muted = true;
    video.srcObject = stream;
    const name = document.createElement("span");
    name.className = "name";
    const overlay = document.createElement("span");
    overlay.className = "switched-off";
    tile.append(video, name, overlay);
    $("grid").append(tile);
    renderSizeObserver.observe(video);
  } else {
    const audio = document.createElement("audio");
    audio.autoplay = true;
    audio.dataset.mid = mid;
    audio.srcObject = stream;
    $("audio").append(audio);
  }
  refreshTiles();
}

// Names, hidden m-lines (removed tracks keep an inactive m-line), disabled
// and switched-off tracks.
function refreshTiles() {
  for (const element of document.querySelectorAll("[data-mid]")) {
    const info = vroom.remote[element.dataset.mid];
    element.hidden = !info;
    if (!info) continue;
    const label = element.querySelector(".name");
    if (label) label.textContent = tileLabel(info) + (info.enabled === false ? " (off)" : "");
    element.classList.toggle("off", info.enabled === false);
    const reason = vroom.switchedOff[info.trackSid];
    const overlay = element.querySelector(".switched-off");
    if (overlay) overlay.textContent = reason ? `switched off: ${reason}` : "";
    element.classList.toggle("switched-off", !!reason);
  }
  for (const video of document.querySelectorAll(".tile[data-mid] video")) scheduleContentPreferences(video);
}

// setContentPreferences: each remote video's rendered size in device pixels,
// sent ~300 ms after it settles and only when it changed (or the m-line now
// carries another track).
const renderSizeObserver = new ResizeObserver((entries) => {
  for (const entry of entries) scheduleContentPreferences(entry.target);
});
const contentPreferenceTimers = new Map();
function scheduleContentPreferences(video) {
  clearTimeout(contentPreferenceTimers.get(video));
  contentPreferenceTimers.set(video, setTimeout(() => sendContentPreferences(video), CONTENT_PREFERENCES_DEBOUNCE_MS));
}
function sendContentPreferences(video) {
  contentPreferenceTimers.delete(video);
  const tile = video.closest("[data-mid]");
  const info = tile && vroom.remote[tile.dataset.mid];
  if (!info || info.kind !== "video" || !vroom.joined || !sendsContentPreferences) return;
  const scale = window.devicePixelRatio || 1;
  const width = Math.round(video.clientWidth * scale);
  const height = Math.round(video.clientHeight * scale);
  if (width === 0 || height === 0) return;  // hidden
  const last = vroom.contentPreferences[info.trackSid];
  if (last && last.width === width && last.height === height) return;
  vroom.contentPreferences[info.trackSid] = { width, height };
  const message = { type: "setContentPreferences", trackSid: info.trackSid, renderDimensions: { width, height } };
  request(message).catch((error) => {
    if (error.message !== SUPERSEDED) vroom.unsupported[message.type] = String(error.message || error);
  });
}

function onMessage(message) {
  vroom.events.push(message);
  if (message.id && pending.has(message.id)) {
    const { resolve, reject } = pending.get(message.id);
    pending.delete(message.id);
    if (message.type === "error") reject(new Error(`${message.code} ${message.message}`));
    else resolve(message);
    return;
  }
  switch (message.type) {
    case "subscribeOffer": onSubscribeOffer(message); break;
    case "participantConnected": vroom.identities[message.participant.sid] = message.participant.identity; break;
    case "trackEnabled": case "trackDisabled":
      for (const info of Object.values(vroom.remote)) {
        if (info.trackSid === message.trackSid) info.enabled = message.type === "trackEnabled";
      }
      refreshTiles();
      break;
    case "trackSwitchedOff": case "trackSwitchedOn":
      if (message.type === "trackSwitchedOff") vroom.switchedOff[message.trackSid] = message.reason || "switched off";
      else delete vroom.switchedOff[message.trackSid];
      refreshTiles();
      break;
    case "publisherLayers": onPublisherLayers(message); break;
    case "redirect": followRedirect(message.url); break;
    case "reconnect": moveTo(message.url); break;
    case "disconnected": status(`Disconnected: ${message.code} ${message.message || ""}`); break;
    case "error": fail("server", `${message.code} ${message.message || ""}`); break;
  }
}

async function setTrackEnabled(kind, enabled) {
  const name = kind === "audio" ? "mic" : "camera";
  for (const track of vroom.localStream.getTracks()) if (track.kind === kind) track.enabled = enabled;
  const published = vroom.published[name];
  if (published) await request({ type: "setTrackEnabled", trackSid: published.sid, enabled });
  $(name).textContent = (kind === "audio" ? (enabled ? "Mute mic" : "Unmute mic")
                                          : (enabled ? "Stop camera" : "Start camera"));
}

function cleanUp() {
  clearInterval(vroom.pinger);
  for (const pc of [vroom.pcPub, vroom.pcSub]) if (pc) pc.close();
  if (vroom.localStream) for (const track of vroom.localStream.getTracks()) track.stop();
  for (const element of document.querySelectorAll("[data-mid]")) element.remove();
  renderSizeObserver.disconnect();
  vroom.pcPub = vroom.pcSub = null;
  vroom.joined = false;
  vroom.sessionToken = null;
  $("join").disabled = false;
  $("leave").disabled = $("mic").disabled = $("camera").disabled = true;
}

function leave() {
  send({ type: "leave" });
  const ws = vroom.ws;
  vroom.ws = null;
  if (ws) ws.close();
  cleanUp();
  status("Left.");
}

// For tests: the numbers that matter from both connections' getStats().
async function summary() {
  const out = { inboundVideo: [], inboundAudio: [], outboundVideo: [], outboundAudio: [], time: performance.now() };
  const collect = async (pc) => pc ? [...(await pc.getStats()).values()] : [];
  for (const s of await collect(vroom.pcSub)) {
    if (s.type !== "inbound-rtp") continue;
    if (s.kind === "video") out.inboundVideo.push({ mid: s.mid, framesDecoded: s.framesDecoded || 0,
      frameWidth: s.frameWidth || 0, frameHeight: s.frameHeight || 0, packetsReceived: s.packetsReceived || 0 });
    else out.inboundAudio.push({ mid: s.mid, packetsReceived: s.packetsReceived || 0,
      totalSamplesReceived: s.totalSamplesReceived || 0 });
  }
  for (const s of await collect(vroom.pcPub)) {
    if (s.type !== "outbound-rtp") continue;
    const entry = { mid: s.mid, bytesSent: s.bytesSent || 0, packetsSent: s.packetsSent || 0,
      timestamp: s.timestamp, targetBitrate: s.targetBitrate || 0, framesEncoded: s.framesEncoded || 0 };
    if (s.kind === "video") Object.assign(entry, { rid: s.rid || null, frameWidth: s.frameWidth || 0,
      frameHeight: s.frameHeight || 0, framesPerSecond: s.framesPerSecond || 0, active: s.active !== false,
      qualityLimitationReason: s.qualityLimitationReason || null });
    (s.kind === "video" ? out.outboundVideo : out.outboundAudio).push(entry);
  }
  // The selected ICE path of each connection: the local candidate's type
  // (host, relay...) and protocol, and the server's address it goes to.
  out.paths = {};
  for (const [role, pc] of [["pub", vroom.pcPub], ["sub", vroom.pcSub]]) {
    const stats = await collect(pc);
    const transport = stats.find((s) => s.type === "transport" && s.selectedCandidatePairId);
    const pair = transport && stats.find((s) => s.id === transport.selectedCandidatePairId);
    const local = pair && stats.find((s) => s.id === pair.localCandidateId);
    const remote = pair && stats.find((s) => s.id === pair.remoteCandidateId);
    if (local) {
      out.paths[role] = { candidateType: local.candidateType, protocol: local.protocol,
        remoteAddress: remote ? remote.address || remote.ip || null : null };
    }
  }
  return out;
}

$("join").onclick = join;
$("leave").onclick = leave;
$("mic").onclick = () => setTrackEnabled("audio", $("mic").textContent.startsWith("Unmute"));
$("camera").onclick = () => setTrackEnabled("video", $("camera").textContent.startsWith("Start"));
$("token").value = params.get("token") || "";
$("room").value = params.get("room") || "";
if (params.get("autojoin") === "1") join();
