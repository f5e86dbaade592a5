"""An aiortc participant that speaks Vroom's signaling (PROTOCOL.md 1-3, 5).

One WebSocket to /v1/signal?access_token=..., `join`, a publisher
PeerConnection (the client offers: max-bundle, sendonly Opus + VP8, `publish`
with the tracks by mid) and a subscriber PeerConnection that answers every
`subscribeOffer` (renegotiation included), a `ping` every 5 s. Loopback only:
importing this module makes aioice gather 127.0.0.1 alone (INTEROP.md).

While the server's SDP is a placeholder (no ICE or DTLS parameters), aiortc
refuses it: the participant records that in `stages` and answers the offer
with an inactive mirror of it, so the signaling flow can still be checked.

Several nodes (PROTOCOL.md 8): `join` follows `redirect` with the same
token, at most MAX_REDIRECTS times (one more raises ProtocolError, 53000).
A `reconnect` moves the session: both PeerConnections are closed, the
participant resumes at the URL with its sessionToken, publishes the same
tracks on a new publisher connection (the video's frame numbers go on) and
answers the new node's offer on a new subscriber connection.
A socket that drops without `leave` (closed, or its node died) is resumed
the same way when the participant has `fallback_urls` (like the SDK's
`ConnectOptions.fallbackURLs`): at each fallback in turn, then at the node
it was on, with a short backoff, until the reconnect window of `joined`
closes (PROTOCOL.md 3.6 and 8: a dead node's sessions resume at any node).
Without fallbacks a dropped socket is left dropped.

ICE servers come from `joined.iceServers` (PROTOCOL.md 9: TURN with
expiring credentials); `ice_transport_policy="relay"` keeps the
participant's media on its TURN relay, as `iceTransportPolicy: "relay"`
does in a browser.
"""

import asyncio
import base64
import hashlib
import hmac
import itertools
import json
import time
import uuid

import aioice.ice
import websockets
from aiortc import RTCConfiguration, RTCIceServer, RTCPeerConnection, RTCSessionDescription
from aiortc.rtcconfiguration import RTCBundlePolicy, RTCIceTransportPolicy

from media import NumberedVideoTrack, ToneTrack, TrackSink


# aioice skips loopback interfaces; INTEROP.md: keep tests on 127.0.0.1
# (or on ::1 alone: `use_host_addresses(["::1"])`).
HOST_ADDRESSES = ["127.0.0.1"]


def use_host_addresses(addresses):
    """The addresses aioice gathers host candidates on from now on."""
    HOST_ADDRESSES[:] = addresses


def loopback_only(*args, **kwargs):
    return list(HOST_ADDRESSES)


aioice.ice.get_host_addresses = loopback_only

PING_INTERVAL = 5.0
MAX_REDIRECTS = 3  # PROTOCOL.md 8: clients follow at most 3 redirects
# A resume whose socket is not open after this long tries the next URL: a
# dead host that answers no SYN would hold it for websockets' 10 s, a third
# of the reconnect window (the SDK's socketOpenTimeout).
RESUME_OPEN_TIMEOUT = 5.0


def _b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def make_token(identity, room=None, api_key="devkey", api_secret="devsecret", ttl=3600):
    """An access token (PROTOCOL.md 2): HS256 JWT, kid = iss = the API key."""
    now = int(time.time())
    grants = {"identity": identity}
    if room is not None:
        grants["video"] = {"room": room}
    header = {"alg": "HS256", "typ": "JWT", "kid": api_key}
    claims = {"iss": api_key, "sub": "interop", "jti": uuid.uuid4().hex, "nbf": now - 5,
              "exp": now + ttl, "grants": grants}
    signing_input = _b64(json.dumps(header).encode()) + "." + _b64(json.dumps(claims).encode())
    signature = hmac.new(api_secret.encode(), signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + _b64(signature)


def munge_candidates(sdp, port):
    """The server's SDP with every candidate (and m= line) port replaced by
    `port`: sends the client's media through the impairment relay."""
    if port is None:
        return sdp
    out = []
    for line in sdp.splitlines():
        if line.startswith("a=candidate:"):
            fields = line.split(" ")
            if len(fields) > 5:
                fields[5] = str(port)
            line = " ".join(fields)
        elif line.startswith("m=") and line.split(" ")[1] != "0":
            fields = line.split(" ")
            fields[1] = str(port)
            line = " ".join(fields)
        out.append(line)
    return "\r\n".join(out) + "\r\n"


def inactive_answer(offer_sdp):
    """An answer that refuses every m-line of `offer_sdp` (port 0, inactive,
    same mid): used only when aiortc cannot use the server's offer, so that
    signaling goes on (the server sends no second offer before an answer)."""
    lines = ["v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "t=0 0"]
    for media in offer_sdp.split("\nm=")[1:]:
        media_lines = media.replace("\r", "").split("\n")
        kind, _, proto, *formats = media_lines[0].split(" ")
        lines.append(f"m={kind} 0 {proto} {formats[0] if formats else '0'}")
        lines.append("c=IN IP4 0.0.0.0")
        lines += [l for l in media_lines if l.startswith("a=mid:")]
        lines.append("a=inactive")
    return "\r\n".join(lines) + "\r\n"


def sdp_media_sections(sdp):
    """[(mid, direction, kind, lines)] of an SDP."""
    sections = []
    for media in sdp.replace("\r", "").split("\nm=")[1:]:
        lines = media.split("\n")
        kind = lines[0].split(" ")[0]
        mid = next((l[6:] for l in lines if l.startswith("a=mid:")), None)
        direction = next((l[2:] for l in lines if l[2:] in ("sendrecv", "sendonly", "recvonly", "inactive")),
                         "sendrecv")
        sections.append((mid, direction, kind, lines))
    return sections


class ProtocolError(Exception):
    pass


class Participant:
    """One aiortc participant. `stages` records how far each step got:
    name -> (ok, detail), in order, for the test's report."""

    def __init__(self, http_url, identity, room, tone=440.0, relay_port=None, log=print,
                 video_size=(320, 240), publish_audio=True, publish_video=True, token=None, amplitude=10000,
                 read_numbers=True, video_priority=None, video_noise=False, fallback_urls=(),
                 ice_transport_policy="all"):
        self.http_url = http_url.rstrip("/")
        self.identity = identity
        self.room = room
        self.tone = tone
        self.amplitude = amplitude
        self.relay_port = relay_port
        self.log = log
        self.video_size = video_size
        self.publish_audio = publish_audio
        self.publish_video = publish_video
        self.token = token or make_token(identity, room)
        self.read_numbers = read_numbers  # False: the video received carries no frame numbers
        self.video_noise = video_noise  # noisy frames: the encoder spends its whole target bitrate
        self.video_priority = video_priority  # the camera's `priority` in `tracks` (PROTOCOL.md 7); None: not sent
        self.fallback_urls = [u.rstrip("/") for u in fallback_urls]  # base URLs a dropped socket resumes at
        self.ice_transport_policy = RTCIceTransportPolicy(ice_transport_policy)  # "relay": TURN only
        self.ice_servers = []  # joined's iceServers
        self.ws = None
        self.signal_url = None  # the signaling URL of the current socket (no token)
        self.home_url = None  # the signaling URL of the latest `joined`
        self.session_token = None  # from the latest joined: what a move resumes with
        self.reconnect_window = 30.0  # joined's reconnectWindowSeconds
        self.room_sid = None
        self.redirects = 0  # redirects followed by the latest join
        self.moves = 0  # `reconnect`s followed
        self.resumes = []  # (monotonic time, joined) of each resume after a drop
        self._joined_ws = None  # the socket `joined` came on: only its drop is resumed
        self._leaving = False
        self._join_options = {}
        self._socket_tasks = []  # the current socket's reader and pinger
        self.messages = []  # (monotonic time, message) in arrival order
        self._changed = asyncio.Event()
        self._ids = itertools.count(1)
        self._tasks = []
        self.stages = {}
        self.participant_sid = None
        self.identities = {}  # participant SID -> identity
        self.pc_pub = None
        self.pub_transceivers = {}  # track name -> transceiver
        self.published = {}  # track name -> {"mid", "sid", "kind"}
        self.audio_source = None
        self.video_source = None
        self.pc_sub = None
        self.sinks = []  # TrackSink, with .transceiver, of the current subscriber connection
        self.previous_sinks = []  # those of subscriber connections closed by a move
        self.offers = []  # (monotonic time, subscribeOffer message)
        self._offer_queue = asyncio.Queue()
        self.answered_offers = 0

    # -- bookkeeping --------------------------------------------------------

    def stage(self, name, ok, detail=""):
        self.stages[name] = (ok, detail)
        mark = "ok  " if ok else "FAIL"
        self.log(f"  [{self.identity}] {mark} {name}{': ' + detail if detail else ''}")
        return ok

    def first_failed_stage(self):
        for name, (ok, detail) in self.stages.items():
            if not ok:
                return name, detail
        return None

    async def _send(self, message):
        await self.ws.send(json.dumps(message))

    async def request(self, message, reply_types, timeout=10.0):
        """Sends `message` with a fresh id and returns the reply with that id."""
        message = dict(message, id=str(next(self._ids)))
        start = len(self.messages)
        await self._send(message)
        reply = await self.wait_for(lambda m: m.get("id") == message["id"], timeout=timeout, start=start)
        if reply["type"] == "error" or reply["type"] not in reply_types:
            raise ProtocolError(f"{message['type']} -> {json.dumps(reply)[:300]}")
        return reply

    async def wait_for(self, predicate, timeout=10.0, start=0):
        """The first message from index `start` on that satisfies `predicate`."""
        deadline = time.monotonic() + timeout
        index = start
        while True:
            while index < len(self.messages):
                message = self.messages[index][1]
                index += 1
                if predicate(message):
                    return message
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise asyncio.TimeoutError(f"{self.identity}: no matching message in {timeout} s")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), remaining)
            except asyncio.TimeoutError:
                pass

    async def _read(self, ws):
        try:
            async for raw in ws:
                message = json.loads(raw)
                self.messages.append((time.monotonic(), message))
                kind = message.get("type")
                if kind == "participantConnected":
                    p = message["participant"]
                    self.identities[p["sid"]] = p["identity"]
                elif kind == "subscribeOffer":
                    self.offers.append((time.monotonic(), message))
                    self._offer_queue.put_nowait((ws, message))
                elif kind == "reconnect":
                    # The socket is handed over, its close is no drop. Its own
                    # task: the move closes this socket and cancels this reader.
                    self._joined_ws = None
                    self._tasks.append(asyncio.ensure_future(self._move([message["url"]], "reconnect")))
                elif kind == "disconnected" and message.get("code") != 53002:
                    self._joined_ws = None  # the server ended the session; 53002 (silence) is a drop (3.6)
                self._changed.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self._changed.set()
        # Not cancelled: the socket closed under this participant.
        if ws is self.ws and ws is self._joined_ws and self.fallback_urls and not self._leaving:
            self.log(f"  [{self.identity}] the signaling socket dropped: resuming")
            self._tasks.append(asyncio.ensure_future(self._move(self._drop_resume_urls(), "drop")))

    async def _ping(self, ws):
        while True:
            await asyncio.sleep(PING_INTERVAL)
            try:
                await ws.send(json.dumps({"type": "ping"}))
            except websockets.ConnectionClosed:
                return

    # -- signaling ----------------------------------------------------------

    def _first_signal_url(self):
        return self.http_url.replace("https://", "wss://").replace("http://", "ws://") + "/v1/signal"

    def _drop_resume_urls(self):
        """Where a dropped session resumes, in turn: the fallbacks, then the
        node it was on (a drop does not say the node is gone; a live owner
        redirects a resume at another node back to itself)."""
        urls = [u.replace("https://", "wss://").replace("http://", "ws://") + "/v1/signal" for u in self.fallback_urls]
        return list(dict.fromkeys(urls + [self.home_url]))

    async def _open(self, url, open_timeout=10.0):
        self.signal_url = url
        separator = "&" if "?" in url else "?"
        ws = await websockets.connect(url + separator + "access_token=" + self.token, max_size=None,
                                      open_timeout=open_timeout)
        self.ws = ws
        self._socket_tasks = [asyncio.ensure_future(self._read(ws)), asyncio.ensure_future(self._ping(ws))]

    async def _close_socket(self):
        ws, self.ws = self.ws, None
        for task in self._socket_tasks:
            task.cancel()
        self._socket_tasks = []
        if ws is not None:
            try:
                await ws.close()
            except Exception:
                pass

    async def _join_at(self, url, resume=None):
        """`join` at `url` (resuming the session `resume` when given),
        following the server's redirects; returns `joined`."""
        self.redirects = 0
        while True:
            await self._open(url, RESUME_OPEN_TIMEOUT if resume else 10.0)
            message = {"type": "join", "room": self.room, "name": f"{self.identity} (aiortc)",
                       "id": str(next(self._ids))}
            message.update({k: v for k, v in self._join_options.items() if v is not None})
            if resume is not None:
                message["resume"] = resume
            start = len(self.messages)
            await self._send(message)
            reply = await self.wait_for(
                lambda m: m.get("id") == message["id"] or m.get("type") == "redirect", start=start)
            if reply["type"] == "joined":
                self.session_token = reply.get("sessionToken")
                self.ice_servers = reply.get("iceServers") or []
                self.reconnect_window = float(reply.get("reconnectWindowSeconds", self.reconnect_window))
                self.home_url = url
                self._joined_ws = self.ws
                return reply
            if reply["type"] != "redirect":
                raise ProtocolError(f"join -> {json.dumps(reply)[:300]}")
            url = reply["url"]
            await self._close_socket()
            if self.redirects >= MAX_REDIRECTS:
                raise ProtocolError(f"53000 signaling connection error: redirected more than {MAX_REDIRECTS} "
                                    f"times (the last redirect was to {url})")
            self.redirects += 1
            self.log(f"  [{self.identity}] redirected to {url} ({self.redirects} of {MAX_REDIRECTS})")

    async def join(self, rules=None, bandwidth_profile=None):
        self._join_options = {"rules": rules, "bandwidthProfile": bandwidth_profile}
        self._tasks.append(asyncio.ensure_future(self._answer_offers()))
        try:
            joined = await self._join_at(self._first_signal_url())
        except ProtocolError as error:
            self.stage("joined", False, str(error))
            raise
        self.participant_sid = joined["participant"]["sid"]
        self.room_sid = joined["room"]["sid"]
        self.identities[self.participant_sid] = self.identity
        for p in joined.get("participants", []):
            self.identities[p["sid"]] = p["identity"]
        where = f" at {self.signal_url}" if self.redirects else ""
        return self.stage("joined", True, self.participant_sid + where)

    async def _move(self, urls, cause):
        """The session goes on at another node, which makes new
        PeerConnections; so does this participant. `cause` "reconnect"
        (PROTOCOL.md 8: the room moves to `urls[0]`) or "drop" (the socket
        closed under it; 3.6). Resumes with the session token at `urls` in
        turn, the first attempt at once, then after 0.25, 0.5, 1, 2, 2... s
        until the reconnect window closes; then publishes the same tracks
        again (the subscriber connection is made on the new node's first
        offer)."""
        started = time.monotonic()
        deadline = started + self.reconnect_window
        if cause == "reconnect":
            self.moves += 1
            self.log(f"  [{self.identity}] reconnect: the room moves to {urls[0]}")
        published = [name for name, t in self.pub_transceivers.items() if t.direction in ("sendonly", "sendrecv")]
        had_publisher = self.pc_pub is not None
        await self._close_socket()
        for pc in (self.pc_pub, self.pc_sub):
            if pc is not None:
                await pc.close()
        self.pc_pub = self.pc_sub = None
        for sink in self.sinks:
            sink.stop()
        self.previous_sinks += self.sinks
        self.sinks = []
        stage = f"resumed after {cause}"
        for attempt in itertools.count():
            url = urls[attempt % len(urls)]
            try:
                joined = await self._join_at(url, resume=self.session_token)
                break
            except (ProtocolError, asyncio.TimeoutError, OSError, websockets.WebSocketException) as error:
                await self._close_socket()
                failure = f"{type(error).__name__}: {error}"
                backoff = min(2.0, 0.25 * 2 ** attempt)
                if time.monotonic() + backoff >= deadline:
                    return self.stage(stage, False, f"{attempt + 1} attempt(s) in the {self.reconnect_window:.0f} s "
                                                    f"window; the last at {url}: {failure}")
                self.log(f"  [{self.identity}] resume at {url} failed ({failure}); next in {backoff} s")
                await asyncio.sleep(backoff)
        self.resumes.append((time.monotonic(), joined))
        self.stage(stage, True, f"at {self.signal_url}, {time.monotonic() - started:.2f} s after, "
                                f"attempt {attempt + 1}" + (f", move {self.moves}" if cause == "reconnect" else ""))
        if had_publisher:
            await self._publish_again(published)

    async def _publish_again(self, names):
        """A new publisher connection with the tracks `names`: a new tone and
        a video whose frame numbers go on from the old one (fresh sources, so
        their real-time pacing does not burst to catch up on the move)."""
        self.pc_pub = RTCPeerConnection(self._rtc_configuration())
        self.pc_pub.on("connectionstatechange", lambda: self._connection_state("publisher", self.pc_pub))
        self.pub_transceivers = {}
        if "mic" in names:
            self.audio_source = ToneTrack(self.tone, self.audio_source.amplitude)
            self.pub_transceivers["mic"] = self.pc_pub.addTransceiver(self.audio_source, direction="sendonly")
        if "camera" in names:
            self.video_source = NumberedVideoTrack.continuing(self.video_source)
            self.pub_transceivers["camera"] = self.pc_pub.addTransceiver(self.video_source, direction="sendonly")
        return await self.renegotiate_publisher()

    def _rtc_configuration(self):
        """max-bundle, with joined's ICE servers and the transport policy."""
        servers = [RTCIceServer(urls=s["urls"], username=s.get("username"), credential=s.get("credential"))
                   for s in self.ice_servers]
        return RTCConfiguration(iceServers=servers, iceTransportPolicy=self.ice_transport_policy,
                                bundlePolicy=RTCBundlePolicy.MAX_BUNDLE)

    def selected_candidates(self):
        """{"publisher"|"subscriber": (local candidate type, its transport, its address)}
        of each connection's nominated ICE pair (aioice's own state: aiortc
        has no getStats for it)."""
        out = {}
        for role, pc in (("publisher", self.pc_pub), ("subscriber", self.pc_sub)):
            transceivers = pc.getTransceivers() if pc is not None else []
            if not transceivers or transceivers[0].sender.transport is None:
                continue
            connection = transceivers[0].sender.transport.transport._connection
            pair = next(iter(connection._nominated.values()), None)
            if pair is not None:
                out[role] = (pair.local_candidate.type, pair.local_candidate.transport, pair.local_candidate.host)
        return out

    async def publish(self):
        """Creates the publisher connection with a tone and numbered video and
        publishes them; True when aiortc accepted the server's answer."""
        self.pc_pub = RTCPeerConnection(self._rtc_configuration())
        self.pc_pub.on("connectionstatechange", lambda: self._connection_state("publisher", self.pc_pub))
        if self.publish_audio:
            self.audio_source = ToneTrack(self.tone, self.amplitude)
            self.pub_transceivers["mic"] = self.pc_pub.addTransceiver(self.audio_source, direction="sendonly")
        if self.publish_video:
            self.video_source = NumberedVideoTrack(*self.video_size, noise=self.video_noise)
            self.pub_transceivers["camera"] = self.pc_pub.addTransceiver(self.video_source, direction="sendonly")
        return await self.renegotiate_publisher()

    async def renegotiate_publisher(self):
        """A full offer describing every current publication (PROTOCOL.md 3.2)."""
        await self.pc_pub.setLocalDescription(await self.pc_pub.createOffer())
        tracks = []
        for name, transceiver in self.pub_transceivers.items():
            if transceiver.direction in ("sendonly", "sendrecv"):
                entry = {"mid": transceiver.mid, "name": name, "kind": transceiver.kind}
                if transceiver.kind == "video" and self.video_priority:
                    entry["priority"] = self.video_priority
                tracks.append(entry)
        try:
            answer = await self.request(
                {"type": "publish", "sdp": self.pc_pub.localDescription.sdp, "tracks": tracks}, ["publishAnswer"])
        except (ProtocolError, asyncio.TimeoutError) as error:
            return self.stage("publishAnswer received", False, str(error))
        self.published = {t["name"]: t for t in answer["tracks"]}
        self.stage("publishAnswer received", True,
                   ", ".join(f"{t['name']}={t['sid']}" for t in answer["tracks"]))
        try:
            await self.pc_pub.setRemoteDescription(
                RTCSessionDescription(munge_candidates(answer["sdp"], self.relay_port), "answer"))
        except Exception as error:
            return self.stage("publishAnswer applied by aiortc", False, f"{type(error).__name__}: {error}")
        return self.stage("publishAnswer applied by aiortc", True)

    async def set_track_enabled(self, name, enabled):
        await self.request({"type": "setTrackEnabled", "trackSid": self.published[name]["sid"],
                            "enabled": enabled}, ["ok"])

    async def unpublish(self, name):
        """`unpublish`, then a new offer with the track's m-line inactive."""
        sid = self.published[name]["sid"]
        await self.request({"type": "unpublish", "trackSid": sid}, ["ok"])
        self.pub_transceivers[name].direction = "inactive"
        await self.renegotiate_publisher()
        return sid

    # -- adaptive video (PROTOCOL.md 7): each reply is `ok` -------------------

    async def set_content_preferences(self, track_sid, width, height):
        await self.request({"type": "setContentPreferences", "trackSid": track_sid,
                            "renderDimensions": {"width": width, "height": height}}, ["ok"])

    async def switch_off_track(self, track_sid):
        await self.request({"type": "switchOffTrack", "trackSid": track_sid}, ["ok"])

    async def switch_on_track(self, track_sid):
        await self.request({"type": "switchOnTrack", "trackSid": track_sid}, ["ok"])

    def _connection_state(self, which, pc):
        state = pc.connectionState
        self.log(f"  [{self.identity}] {which} connection: {state}")
        if state == "connected":
            self.stage(f"{which} connected (ICE+DTLS)", True)
        elif state == "failed":
            self.stage(f"{which} connected (ICE+DTLS)", False, "connectionState failed")

    # -- subscriber ---------------------------------------------------------

    async def _answer_offers(self):
        while True:
            ws, offer = await self._offer_queue.get()
            if ws is not self.ws:
                continue  # an offer of a socket given up meanwhile (a move)
            sdp = None
            try:
                if self.pc_sub is None:
                    self.pc_sub = RTCPeerConnection(self._rtc_configuration())
                    pc = self.pc_sub
                    pc.on("track", lambda track, pc=pc: self._on_track(pc, track))
                    pc.on("connectionstatechange", lambda pc=pc: self._connection_state("subscriber", pc))
                await self.pc_sub.setRemoteDescription(
                    RTCSessionDescription(munge_candidates(offer["sdp"], self.relay_port), "offer"))
                await self.pc_sub.setLocalDescription(await self.pc_sub.createAnswer())
                sdp = self.pc_sub.localDescription.sdp
                self.stage("subscribeOffer applied by aiortc", True, f"{len(offer['tracks'])} track(s)")
            except Exception as error:
                self.stage("subscribeOffer applied by aiortc", False,
                           f"{type(error).__name__}: {error} (answered inactive so signaling goes on)")
                sdp = inactive_answer(offer["sdp"])
            if ws is not self.ws:
                continue
            try:
                await ws.send(json.dumps({"type": "subscribeAnswer", "sdp": sdp}))
                self.answered_offers += 1
                self._changed.set()
            except websockets.ConnectionClosed:
                return

    def _on_track(self, pc, track):
        transceiver = next((t for t in pc.getTransceivers() if t.receiver.track is track), None)
        sink = TrackSink(track, None, read_numbers=self.read_numbers)
        sink.transceiver = transceiver
        self.sinks.append(sink)

    def events_of(self, kind, since=0.0):
        """[(monotonic time, message)] of `kind` received at or after `since`."""
        return [(t, m) for t, m in self.messages if m.get("type") == kind and t >= since]

    def latest_offer_tracks(self):
        return self.offers[-1][1]["tracks"] if self.offers else []

    def sinks_by_publisher(self):
        """{(publisher identity, kind): TrackSink} for the tracks of the latest offer."""
        by_mid = {}
        for sink in self.sinks:
            mid = sink.transceiver.mid if sink.transceiver is not None else None
            by_mid[mid] = sink
        result = {}
        for track in self.latest_offer_tracks():
            sink = by_mid.get(track["mid"])
            if sink is not None:
                identity = self.identities.get(track["participantSid"], track["participantSid"])
                result[(identity, track["kind"])] = sink
        return result

    # -- the end ------------------------------------------------------------

    async def close(self):
        self._leaving = True
        for task in self._tasks + self._socket_tasks:
            task.cancel()
        for sink in self.sinks:
            sink.stop()
        if self.ws is not None:
            try:
                await self._send({"type": "leave"})
            except Exception:
                pass
            await self.ws.close()
        for pc in (self.pc_pub, self.pc_sub):
            if pc is not None:
                await pc.close()
