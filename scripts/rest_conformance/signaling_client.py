"""A tiny blocking signaling client (PROTOCOL.md sections 1 and 3) for the REST conformance run.

A reader thread queues every JSON frame the server sends and a keepalive
thread sends `{"type":"ping"}` every 4 s (the server's silence rule is 15 s,
PROTOCOL.md 3.6), so a participant stays connected while the REST calls run.
"""

import json
import queue
import subprocess
import threading
import time

from websockets.sync.client import connect

# A minimal publish offer a real client could send, as in
# Tests/VroomServerTests/SignalingEndToEndTests.swift: one Opus and one VP8
# m-line, both sendonly, BUNDLEd, with ICE credentials, a fingerprint and
# rtcp-mux (the server answers it for real; no media flows in these tests).
FINGERPRINT = ":".join(["AB"] * 32)
_TRANSPORT = (
    "a=ice-ufrag:abcd\r\n"
    "a=ice-pwd:abcdefghijklmnopqrstuvwx\r\n"
    f"a=fingerprint:sha-256 {FINGERPRINT}\r\n"
)
PUBLISH_OFFER = (
    "v=0\r\n"
    "o=- 4611731400430051336 2 IN IP4 127.0.0.1\r\n"
    "s=-\r\n"
    "t=0 0\r\n"
    "a=group:BUNDLE 0 1\r\n"
    "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"
    "c=IN IP4 0.0.0.0\r\n"
    + _TRANSPORT +
    "a=setup:actpass\r\n"
    "a=mid:0\r\n"
    "a=sendonly\r\n"
    "a=rtcp-mux\r\n"
    "a=rtpmap:111 opus/48000/2\r\n"
    "m=video 9 UDP/TLS/RTP/SAVPF 96\r\n"
    "c=IN IP4 0.0.0.0\r\n"
    + _TRANSPORT +
    "a=setup:actpass\r\n"
    "a=mid:1\r\n"
    "a=sendonly\r\n"
    "a=rtcp-mux\r\n"
    "a=rtpmap:96 VP8/90000\r\n"
)


def subscriber_answer(offer):
    """A client's answer to a server subscriber offer: every m-line accepted
    recvonly (inactive where the offer is) with its first format."""
    sections = offer.split("\r\nm=")[1:]
    mids = [line[6:] for section in sections for line in section.split("\r\n") if line.startswith("a=mid:")]
    lines = ["v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE " + " ".join(mids)]
    for section in sections:
        section_lines = section.split("\r\n")
        kind, _, proto, fmt = section_lines[0].split(" ")[:4]
        lines += [f"m={kind} 9 {proto} {fmt}", "c=IN IP4 0.0.0.0", "a=ice-ufrag:wxyz",
                  "a=ice-pwd:abcdefghijklmnopqrstuvwx", f"a=fingerprint:sha-256 {FINGERPRINT}", "a=setup:active"]
        lines += [l for l in section_lines if l.startswith("a=mid:") or l.startswith(f"a=rtpmap:{fmt} ")]
        lines += ["a=inactive" if "a=inactive" in section_lines else "a=recvonly", "a=rtcp-mux"]
    return "\r\n".join(lines) + "\r\n"


def mint_token(server_bin, identity, api_key="devkey", api_secret="devsecret", ttl=900):
    """A token from `vroom-server token`, the command people use (`--dev` for devkey / devsecret)."""
    keys = ["--dev"] if (api_key, api_secret) == ("devkey", "devsecret") else ["--api-key", api_key, "--api-secret", api_secret]
    out = subprocess.run([server_bin, "token", *keys, "--identity", identity, "--ttl", str(ttl)],
                         check=True, capture_output=True, text=True, timeout=60)
    return out.stdout.strip()


class SignalingClient:
    def __init__(self, base_url, token, signal_url=None):
        """signal_url overrides ws://HOST:PORT/v1/signal (only mock_server.py needs that)."""
        ws_url = (signal_url or base_url.replace("http://", "ws://", 1).rstrip("/") + "/v1/signal") + "?access_token=" + token
        self.ws = connect(ws_url, open_timeout=10, ping_interval=5, max_size=None)
        self.frames = queue.Queue()
        self.seen = []
        self.closed = threading.Event()
        self._stop = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._keepalive, daemon=True).start()

    def _read(self):
        try:
            for raw in self.ws:
                if isinstance(raw, str):
                    self.frames.put(json.loads(raw))
        except Exception:
            pass
        finally:
            self.closed.set()

    def _keepalive(self):
        while not self._stop.wait(4):
            try:
                self.send({"type": "ping"})
            except Exception:
                return

    def send(self, obj):
        self.ws.send(json.dumps(obj))

    def next(self, type_, where=lambda f: True, timeout=10):
        """The next frame of this type that satisfies `where` (earlier non-matching frames are kept in `seen`)."""
        for f in self.seen:
            if f.get("type") == type_ and where(f):
                self.seen.remove(f)
                return f
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {type_!r} frame within {timeout} s; got {[f.get('type') for f in self.seen]}")
            try:
                f = self.frames.get(timeout=left)
            except queue.Empty:
                continue
            if f.get("type") == type_ and where(f):
                return f
            self.seen.append(f)

    def join(self, room, rules=None):
        msg = {"type": "join", "id": "join", "room": room}
        if rules is not None:
            msg["rules"] = rules
        self.send(msg)
        return self.next("joined")

    def close(self):
        self._stop.set()
        try:
            self.ws.close()
        except Exception:
            pass
