"""A scripted signaling server for the JavaScript SDK's state-machine test
(interop scenario `sdk-unit`): it speaks just enough of PROTOCOL.md for the
SDK to join, and plays one script per access token, so each case sees the
order of events, the error codes, a resume and a redirect exactly as the
server would send them, with no media.

Scripts (the token names one; the path may add "/node2" after a redirect):
- ok: joined (bob, with a mic), then carol connects, publishes a camera,
  its camera is disabled for an interruption, carol becomes dominant
  speaker, gets network quality 3, sends a message, bob leaves.
- expired: the join is refused with 20104.
- redirect-once: redirected to /node2/v1/signal, joined there.
- redirect-loop: redirected to itself each time (the SDK gives up after 3).
- drop: joined, then the socket closes without `disconnected`; a resume
  with the session token is joined again (resumed).
- late: joined with a 1 s reconnect window, then dropped; every resume is
  refused with 53001.
- duplicate: joined, then `disconnected` 53205 and close.
- move: joined, then `reconnect` to /node2/v1/signal (the room moves,
  PROTOCOL.md 8); the resume there with the session token is joined.
- requests: joined; sendMessage fails with 429, setTrackPriority gets an
  error, an unknown request type gets 53003.
"""
import asyncio
import json
import threading
import urllib.parse

import websockets


def participant(sid, identity, tracks=()):
    return {"sid": sid, "identity": identity, "state": "connected", "tracks": list(tracks)}


def track(sid, name, kind, enabled=True):
    return {"sid": sid, "name": name, "kind": kind, "enabled": enabled}


class FakeSignaling:
    """`start()` runs it on 127.0.0.1 in a thread of its own; `url` is its
    ws:// base; `joins` records every join message per script."""

    def __init__(self):
        self.loop = None
        self.port = None
        self.joins = []
        self._ready = threading.Event()
        self._stop = None

    @property
    def url(self):
        return f"ws://127.0.0.1:{self.port}"

    def start(self):
        threading.Thread(target=self._run, daemon=True).start()
        if not self._ready.wait(10):
            raise RuntimeError("the fake signaling server did not start")
        return self

    def stop(self):
        if self.loop and self._stop:
            self.loop.call_soon_threadsafe(self._stop.set_result, None)

    def _run(self):
        self.loop = asyncio.new_event_loop()
        self.loop.run_until_complete(self._serve())

    async def _serve(self):
        self._stop = self.loop.create_future()
        async with websockets.serve(self._session, "127.0.0.1", 0) as server:
            self.port = server.sockets[0].getsockname()[1]
            self._ready.set()
            await self._stop

    async def _session(self, ws):
        target = urllib.parse.urlsplit(ws.request.path)
        script = urllib.parse.parse_qs(target.query).get("access_token", [""])[0]
        node2 = target.path.startswith("/node2/")
        try:
            async for text in ws:
                message = json.loads(text)
                kind, mid = message.get("type"), message.get("id")
                if kind == "ping":
                    await ws.send(json.dumps({"type": "pong"}))
                elif kind == "join":
                    self.joins.append((script, node2, message))
                    if await self._join(ws, script, node2, message) == "close":
                        await ws.close()
                        return
                elif kind == "sendMessage":
                    await ws.send(json.dumps({"type": "messageFailed", "id": mid, "code": 429,
                                              "reason": "rate-limited"}))
                elif kind in ("setTrackPriority", "noSuchRequest"):
                    await ws.send(json.dumps({"type": "error", "id": mid, "code": 53003,
                                              "message": f"{kind} refused"}))
                elif mid is not None:
                    await ws.send(json.dumps({"type": "ok", "id": mid}))
        except websockets.ConnectionClosed:
            pass

    async def _join(self, ws, script, node2, message):
        mid = message.get("id")
        resume = message.get("resume")

        def joined(**extra):
            body = {"type": "joined", "id": mid, "room": {"sid": "RM" + "1" * 32, "name": "fake", "maxParticipants": 50},
                    "participant": {"sid": "PA" + "a" * 32, "identity": "alice"},
                    "participants": [participant("PA" + "b" * 32, "bob", [track("MT" + "b" * 32, "mic", "audio")])],
                    "sessionToken": "session-1", "reconnectWindowSeconds": 5, "iceServers": []}
            body.update(extra)
            return json.dumps(body)

        if script == "expired":
            await ws.send(json.dumps({"type": "error", "id": mid, "code": 20104, "message": "token expired"}))
            return "close"
        if script == "redirect-loop" or (script == "redirect-once" and not node2):
            path = "/node2/v1/signal" if script == "redirect-once" else "/v1/signal"
            await ws.send(json.dumps({"type": "redirect", "url": f"{self.url}{path}"}))
            return "close"
        if script == "late":
            if resume:
                await ws.send(json.dumps({"type": "error", "id": mid, "code": 53001, "message": "window passed"}))
                return "close"
            await ws.send(joined(reconnectWindowSeconds=1))
            await asyncio.sleep(0.3)
            return "close"
        if script == "move":
            if node2:
                await ws.send(joined(sessionToken="session-2", resumed=True))
                return None
            await ws.send(joined())
            await asyncio.sleep(0.3)
            await ws.send(json.dumps({"type": "reconnect", "url": f"{self.url}/node2/v1/signal"}))
            return None
        if script == "drop":
            if resume == "session-1":
                await ws.send(joined(sessionToken="session-2", resumed=True))
                return None
            await ws.send(joined())
            await asyncio.sleep(0.3)
            return "close"
        await ws.send(joined())
        if script == "ok":
            carol = "PA" + "c" * 32
            camera = "MT" + "c" * 32
            for event in (
                {"type": "participantConnected", "participant": participant(carol, "carol")},
                {"type": "trackPublished", "participantSid": carol, "track": track(camera, "camera", "video")},
                {"type": "trackDisabled", "participantSid": carol, "trackSid": camera, "reason": "interrupted"},
                {"type": "dominantSpeaker", "participantSid": carol},
                {"type": "networkQuality", "participantSid": carol, "level": 3, "warnings": []},
                {"type": "message", "sid": "ME" + "0" * 32, "from": {"sid": carol, "identity": "carol"},
                 "content": "{\"hello\":1}", "contentType": "application/json", "sequenceNumber": 0},
                {"type": "participantDisconnected", "participantSid": "PA" + "b" * 32},
            ):
                await ws.send(json.dumps(event))
        elif script == "duplicate":
            await asyncio.sleep(0.3)
            await ws.send(json.dumps({"type": "disconnected", "code": 53205, "message": "duplicate identity"}))
            return "close"
        return None
