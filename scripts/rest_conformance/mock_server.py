#!/usr/bin/env python3
"""A stand-in for vroom-server's REST routes, to check the conformance harness itself.

It implements the routes of PROTOCOL.md section 6 in memory, with a fake
signaling WebSocket on a second port (join, publish, subscribe offers; only
include-all / exclude-all rules; no token check), so that the harness can be
seen passing where a conformant server would pass. Not a reference
implementation: the Swift routes in Sources/AdminAPI are the product.

Usage: mock_server.py [PORT]   (prints `signal: listening on 127.0.0.1:SPORT`
                                and `http: listening on 127.0.0.1:PORT`)
Then:  VROOM_SERVER_BIN=.build/debug/vroom-server REST_CONFORMANCE_SIGNAL_URL=ws://127.0.0.1:SPORT \
         scripts/rest-conformance.sh http://127.0.0.1:PORT
"""

import base64
import datetime
import json
import re
import secrets
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

KEY, SECRET = "devkey", "devsecret"
ACCOUNT = "AC" + "1" * 32
lock = threading.Lock()
rooms = []  # newest last


def now():
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)


def stamp(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ") if t else None


class Problem(Exception):
    def __init__(self, status, code, message):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def room_json(room, base):
    url = f"{base}/v1/Rooms/{room['sid']}"
    ended = room["end_time"]
    return {
        "sid": room["sid"], "status": room["status"], "date_created": stamp(room["created"]),
        "date_updated": stamp(room["updated"]), "account_sid": ACCOUNT, "enable_turn": True,
        "unique_name": room["unique_name"], "status_callback": room["status_callback"],
        "status_callback_method": "POST", "end_time": stamp(ended),
        "duration": int((ended - room["created"]).total_seconds()) if ended else None, "type": "group",
        "max_participants": room["max_participants"], "max_participant_duration": 14400,
        "max_concurrent_published_tracks": 0, "record_participants_on_connect": False, "video_codecs": ["VP8"],
        "media_region": None, "audio_only": False, "empty_room_timeout": room["empty"],
        "unused_room_timeout": room["unused"], "large_room": False, "url": url,
        "links": {"participants": url + "/Participants"},
    }


def integer(params, name, default, low, high, code):
    if name not in params:
        return default
    try:
        value = int(params[name])
    except ValueError:
        raise Problem(400, code, f"{name} must be an integer")
    if not low <= value <= high:
        raise Problem(400, code, f"{name} out of range")
    return value


def parse_date(params, name):
    if name not in params:
        return None
    try:
        return datetime.datetime.strptime(params[name], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    except ValueError:
        raise Problem(400, 20001, f"{name} must be YYYY-MM-DDTHH:MM:SSZ")


def find_room(key):
    matches = [r for r in rooms if r["sid"] == key] or [r for r in rooms if r["unique_name"] == key]
    live = [r for r in matches if r["status"] == "in-progress"]
    if live:
        return live[-1]
    if matches:
        return matches[-1]
    raise Problem(404, 53106, "Room not found")


def page(items, key, params, base, path):
    size = integer(params, "PageSize", 50, 1, 1000, 20001)
    number = integer(params, "Page", 0, 0, 10**9, 20001)
    filters = {k: v for k, v in params.items() if k not in ("PageSize", "Page")}

    def url(n):
        return f"{base}{quote(path)}?" + urlencode({**filters, "PageSize": size, "Page": n})

    chunk = items[number * size:(number + 1) * size]
    return {key: chunk, "meta": {
        "page": number, "page_size": size, "first_page_url": url(0),
        "previous_page_url": url(number - 1) if number > 0 else None,
        "next_page_url": url(number + 1) if (number + 1) * size < len(items) else None,
        "url": url(number), "key": key}}


def post_hook(url, body, content_type):
    """Signed webhook (X-Vroom-Signature), sent from a thread; only 127.0.0.1 URLs."""
    import hashlib
    import hmac
    import urllib.request
    if not url or urlsplit(url).hostname != "127.0.0.1":
        return
    if content_type == "application/json":
        text = url.encode() + body
    else:
        pairs = sorted((k, v[-1]) for k, v in parse_qs(body.decode(), keep_blank_values=True).items())
        text = (url + "".join(k + v for k, v in pairs)).encode()
    sig = base64.b64encode(hmac.new(SECRET.encode(), text, hashlib.sha256).digest()).decode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": content_type, "X-Vroom-Signature": sig})
    threading.Thread(target=lambda: urllib.request.urlopen(request, timeout=5).read(), daemon=True).start()


def status_hook(room, event):
    body = urlencode({"StatusCallbackEvent": event, "RoomSid": room["sid"], "RoomName": room["unique_name"],
                      "RoomStatus": room["status"]}).encode()
    post_hook(room.get("status_callback"), body, "application/x-www-form-urlencoded")


def find_participant(room, key):
    matches = [p for p in room["participants"] if p["sid"] == key]
    matches = matches or [p for p in room["participants"] if p["identity"] == key and p["status"] == "connected"]
    if not matches:
        raise Problem(404, 53204, "Participant not found")
    return matches[-1]


def participant_json(room, p, base):
    url = f"{base}/v1/Rooms/{room['sid']}/Participants/{p['sid']}"
    end = p["end_time"]
    return {
        "sid": p["sid"], "room_sid": room["sid"], "account_sid": ACCOUNT, "status": p["status"],
        "identity": p["identity"], "date_created": stamp(p["created"]), "date_updated": stamp(end or p["created"]),
        "start_time": stamp(p["created"]), "end_time": stamp(end),
        "duration": int((end - p["created"]).total_seconds()) if end else None, "url": url,
        "links": {"published_tracks": url + "/PublishedTracks", "subscribed_tracks": url + "/SubscribedTracks",
                  "subscribe_rules": url + "/SubscribeRules"},
    }


def track_json(room, publisher, t, subscriber, base):
    owner = subscriber or publisher
    kind = "SubscribedTracks" if subscriber else "PublishedTracks"
    body = {
        "sid": t["sid"], "participant_sid": owner["sid"], "room_sid": room["sid"], "name": t["name"],
        "date_created": stamp(t["created"]), "date_updated": stamp(t["created"]), "enabled": True, "kind": t["kind"],
        "url": f"{base}/v1/Rooms/{room['sid']}/Participants/{owner['sid']}/{kind}/{t['sid']}",
    }
    if subscriber:
        body["publisher_sid"] = publisher["sid"]
    return body


def subscribed(room, p):
    """Tracks of the others; only the rules include-all and exclude-all are understood here."""
    if p["status"] != "connected" or not any(r.get("type") == "include" for r in p["rules"][-1:]):
        return []
    return [(o, t) for o in room["participants"] if o is not p and o["status"] == "connected" for t in o["tracks"]]


def offer_tracks(room, p):
    return [{"mid": str(i), "trackSid": t["sid"], "participantSid": o["sid"], "name": t["name"], "kind": t["kind"]}
            for i, (o, t) in enumerate(subscribed(room, p))]


def send(p, obj):
    try:
        p["conn"].send(json.dumps(obj))
    except Exception:
        pass


def remove(room, p, code):
    p["status"], p["end_time"] = "disconnected", now()
    send(p, {"type": "disconnected", "code": code, "message": "removed"})
    try:
        p["conn"].close()
    except Exception:
        pass
    for o in room["participants"]:
        if o["status"] == "connected":
            send(o, {"type": "participantDisconnected", "participantSid": p["sid"]})
            send(o, {"type": "subscribeOffer", "sdp": "v=0\r\n", "tracks": offer_tracks(room, o)})


def signaling(conn):
    """A fake /v1/signal: join (ad-hoc rooms), publish, subscribe offers, ping; no token check."""
    query = parse_qs(urlsplit(conn.request.path).query)
    token = (query.get("access_token") or [""])[0]
    try:
        claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
        identity = claims["grants"]["identity"]
    except Exception:
        conn.send(json.dumps({"type": "error", "code": 20101, "message": "bad token"}))
        return
    room = p = None
    for raw in conn:
        msg = json.loads(raw)
        with lock:
            if msg.get("type") == "join":
                try:
                    room = find_room(msg["room"])
                    if room["status"] != "in-progress":
                        raise Problem(404, 53106, "ended")
                except Problem:
                    sid = "RM" + secrets.token_hex(16)
                    room = {"sid": sid, "unique_name": msg["room"], "status": "in-progress", "created": now(),
                            "updated": now(), "end_time": None, "max_participants": 50, "empty": 5, "unused": 5,
                            "status_callback": None, "participants": []}
                    rooms.append(room)
                p = {"sid": "PA" + secrets.token_hex(16), "identity": identity, "status": "connected", "created": now(),
                     "end_time": None, "conn": conn, "tracks": [], "rules": [{"type": "include", "all": True}], "hooks": []}
                others = [o for o in room["participants"] if o["status"] == "connected"]
                room["participants"].append(p)
                conn.send(json.dumps({"type": "joined", "id": msg.get("id"), "room": {"sid": room["sid"], "name": room["unique_name"]},
                                      "participant": {"sid": p["sid"], "identity": identity},
                                      "participants": [{"sid": o["sid"], "identity": o["identity"]} for o in others]}))
                for o in others:
                    send(o, {"type": "participantConnected", "participant": {"sid": p["sid"], "identity": identity}})
            elif msg.get("type") == "publish" and p:
                p["tracks"] = [{"sid": "MT" + secrets.token_hex(16), "name": t["name"], "kind": t["kind"], "mid": t["mid"],
                                "created": now()} for t in msg["tracks"]]
                conn.send(json.dumps({"type": "publishAnswer", "id": msg.get("id"), "sdp": "v=0\r\n",
                                      "tracks": [{k: t[k] for k in ("mid", "sid", "name", "kind")} for t in p["tracks"]]}))
                for o in room["participants"]:
                    if o is not p and o["status"] == "connected":
                        send(o, {"type": "subscribeOffer", "sdp": "v=0\r\n", "tracks": offer_tracks(room, o)})
            elif msg.get("type") == "sendMessage" and p:
                sid = "ME" + secrets.token_hex(16)
                conn.send(json.dumps({"type": "messageSent", "id": msg.get("id"), "sid": sid}))
                body = json.dumps({"ContentType": "application/json", "Content": msg.get("content"), "SequenceNumber": 0,
                                   "ParticipantSid": p["sid"], "RoomSid": room["sid"], "Sid": sid,
                                   "Timestamp": now().strftime("%a, %d %b %Y %H:%M:%S +0000")}).encode()
                for hook in p["hooks"]:
                    post_hook(hook, body, "application/json")
            elif msg.get("type") == "ping":
                conn.send(json.dumps({"type": "pong"}))
    with lock:
        if p and p["status"] == "connected":
            p["status"], p["end_time"] = "disconnected", now()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body, content_type="application/json"):
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def params(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.command == "POST" and raw.strip() == b"" and not (self.headers.get("Content-Type") or "").startswith("application/x-www"):
            raw = b""
        query = {k: v[-1] for k, v in parse_qs(urlsplit(self.path).query, keep_blank_values=True).items()}
        if self.command != "POST":
            return query
        if (self.headers.get("Content-Type") or "").startswith("application/json"):
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                raise Problem(400, 20001, "Body is not JSON")
            if not isinstance(body, dict):
                raise Problem(400, 20001, "Body must be an object")
            return {k: v if isinstance(v, str) else json.dumps(v) for k, v in body.items()}
        try:
            return {k: v[-1] for k, v in parse_qs(raw.decode(), keep_blank_values=True, strict_parsing=False).items()}
        except UnicodeDecodeError:
            raise Problem(400, 20001, "Body is not UTF-8")

    def handle_any(self):
        try:
            base = f"http://{self.headers.get('Host')}"
            raw_path = urlsplit(self.path).path
            segments = [unquote(s) for s in raw_path.strip("/").split("/")]
            if self.command == "GET" and raw_path == "/healthz":
                return self.reply(200, {"status": "ok", "rtcPorts": [7882]})
            if self.command == "GET" and raw_path == "/readyz":
                return self.reply(200, {"status": "ok"})
            if self.command == "GET" and raw_path == "/metrics":
                return self.reply(200, "vroom_rooms 0\n", "text/plain; version=0.0.4")
            body_params = self.params()  # read the body first: the connection is kept alive
            tokens = len(segments) == 4 and segments[:2] == ["2010-04-01", "Accounts"] and segments[3] == "Tokens.json"
            if segments[:2] != ["v1", "Rooms"] and not (tokens and self.command == "POST"):
                raise Problem(404, 20404, "Not found")
            auth = self.headers.get("Authorization") or ""
            expected = "Basic " + base64.b64encode(f"{KEY}:{SECRET}".encode()).decode()
            if auth != expected:
                raise Problem(401, 20003, "Authentication Error - invalid username")
            params = body_params
            if tokens:
                # No TURN configured: Twilio's shape with an empty ice_servers (PROTOCOL.md section 9).
                ttl = integer(params, "Ttl", 86400, 1, 86400, 20001)
                stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%a, %d %b %Y %H:%M:%S +0000")
                return self.reply(201, {"account_sid": "AC" + "0" * 32, "date_created": stamp, "date_updated": stamp,
                                        "ice_servers": [], "password": None, "ttl": str(ttl), "username": None})
            with lock:
                return self.route(segments[2:], params, base, raw_path)
        except Problem as p:
            self.reply(p.status, {"code": p.code, "message": p.message, "status": p.status})

    def route(self, rest, params, base, raw_path):
        path = "/v1/Rooms" + "".join("/" + s for s in rest)
        if not rest:
            if self.command == "POST":
                name = params.get("UniqueName")
                if name is not None and (not name or len(name) > 128 or any(ord(c) < 32 for c in name)):
                    raise Problem(400, 53100, "Room name is invalid")
                max_p = integer(params, "MaxParticipants", 50, 1, 50, 53107)
                empty = integer(params, "EmptyRoomTimeout", 5, 1, 60, 53109)
                unused = integer(params, "UnusedRoomTimeout", 5, 1, 60, 53109)
                if name and any(r["unique_name"] == name and r["status"] == "in-progress" for r in rooms):
                    raise Problem(409, 53113, "Room exists")
                sid = "RM" + secrets.token_hex(16)
                t = now()
                room = {"sid": sid, "unique_name": name or sid, "status": "in-progress", "created": t, "updated": t,
                        "end_time": None, "max_participants": max_p, "empty": empty, "unused": unused,
                        "status_callback": params.get("StatusCallback"), "participants": []}
                rooms.append(room)
                status_hook(room, "room-created")
                return self.reply(201, room_json(room, base))
            status = params.get("Status")
            if status is not None and status not in ("in-progress", "completed", "failed"):
                raise Problem(400, 20001, "Status is invalid")
            after, before = parse_date(params, "DateCreatedAfter"), parse_date(params, "DateCreatedBefore")
            items = [r for r in reversed(rooms)
                     if (status is None or r["status"] == status)
                     and ("UniqueName" not in params or r["unique_name"] == params["UniqueName"])
                     and (after is None or r["created"] >= after) and (before is None or r["created"] <= before)]
            listed = page(items, "rooms", params, base, raw_path)
            listed["rooms"] = [room_json(r, base) for r in listed["rooms"]]
            return self.reply(200, listed)
        room = find_room(rest[0])
        if len(rest) == 1:
            if self.command == "POST":
                if params.get("Status") != "completed" or room["status"] != "in-progress":
                    raise Problem(400, 53112, "Room status is invalid")
                room["status"], room["end_time"] = "completed", now()
                room["updated"] = room["end_time"]
                for p in room["participants"]:
                    if p["status"] == "connected":
                        remove(room, p, 53118)
                status_hook(room, "room-ended")
                return self.reply(202, room_json(room, base))
            return self.reply(200, room_json(room, base))
        if rest[1:] == ["Stats"] and self.command == "GET":
            return self.reply(200, {"room_sid": room["sid"], "participants": []})
        if rest[1] != "Participants":
            raise Problem(404, 20404, "Not found")
        if len(rest) == 2 and self.command == "GET":
            status = params.get("Status")
            if status is not None and status not in ("connected", "reconnecting", "disconnected"):
                raise Problem(400, 20001, "Status is invalid")
            if status is None and room["status"] == "in-progress":
                status = "connected"
            items = [p for p in reversed(room["participants"]) if (status is None or p["status"] == status)
                     and ("Identity" not in params or p["identity"] == params["Identity"])]
            listed = page(items, "participants", params, base, raw_path)
            listed["participants"] = [participant_json(room, p, base) for p in listed["participants"]]
            return self.reply(200, listed)
        p = find_participant(room, rest[2])
        tail = rest[3:]
        if not tail:
            if self.command == "POST":
                if params.get("Status") != "disconnected" or p["status"] != "connected":
                    raise Problem(400, 53204, "Participant status is invalid")
                remove(room, p, 53216)
                return self.reply(202, participant_json(room, p, base))
            return self.reply(200, participant_json(room, p, base))
        if tail[0] == "PublishedTracks" and self.command == "GET":
            tracks = p["tracks"]
            if len(tail) == 1:
                listed = page(tracks, "published_tracks", params, base, raw_path)
                listed["published_tracks"] = [track_json(room, p, t, None, base) for t in listed["published_tracks"]]
                return self.reply(200, listed)
            for t in tracks:
                if t["sid"] == tail[1]:
                    return self.reply(200, track_json(room, p, t, None, base))
            raise Problem(404, 20404, "Track not found")
        if tail[0] == "SubscribedTracks" and self.command == "GET":
            subs = subscribed(room, p)
            if len(tail) == 1:
                listed = page(subs, "subscribed_tracks", params, base, raw_path)
                listed["subscribed_tracks"] = [track_json(room, pub, t, p, base) for pub, t in listed["subscribed_tracks"]]
                return self.reply(200, listed)
            for pub, t in subs:
                if t["sid"] == tail[1]:
                    return self.reply(200, track_json(room, pub, t, p, base))
            raise Problem(404, 20404, "Track not found")
        if tail == ["SubscribeRules"]:
            if self.command == "POST":
                try:
                    rules = json.loads(params.get("Rules", ""))
                except ValueError:
                    raise Problem(400, 53003, "Rules is not JSON")
                if not isinstance(rules, list) or not all(isinstance(r, dict) and r.get("type") in ("include", "exclude") for r in rules):
                    raise Problem(400, 53003, "Rules are invalid")
                p["rules"] = [{k: v for k, v in r.items() if k in ("type", "all", "kind", "publisher", "track")} for r in rules]
                send(p, {"type": "subscribeOffer", "sdp": "v=0\r\n", "tracks": offer_tracks(room, p)})
            return self.reply(200, {"participant_sid": p["sid"], "room_sid": room["sid"], "rules": p["rules"],
                                    "date_created": None, "date_updated": None})
        if tail == ["MessageSubscriptions"] and self.command == "POST":
            if not params.get("Callback"):
                raise Problem(400, 400, "Callback is required")
            p["hooks"].append(params["Callback"])
            return self.reply(201, {"room_sid": room["sid"], "participant_sid": p["sid"], "callback": params["Callback"]})
        if tail == ["Messages"] and self.command == "POST":
            if p["status"] != "connected":
                raise Problem(409, 409, "Participant is not connected")
            try:
                json.loads(params.get("Content", ""))
            except ValueError:
                raise Problem(400, 400, "invalid-content")
            sid = "ME" + secrets.token_hex(16)
            send(p, {"type": "message", "sid": sid, "from": None, "content": params["Content"],
                     "contentType": "application/json", "sequenceNumber": 0})
            return self.reply(201, {"sid": sid, "room_sid": room["sid"], "participant_sid": p["sid"], "date_created": stamp(now())})
        raise Problem(404, 20404, "Not found")

    do_GET = handle_any
    do_POST = handle_any

    def not_allowed(self):
        self.params()
        self.reply(405, {"code": 20004, "message": "Method not allowed", "status": 405})

    def __getattr__(self, name):
        # Any other method (PUT, DELETE, TRACE, QUERY, ...): 405.
        if name.startswith("do_"):
            return self.not_allowed
        raise AttributeError(name)


def main():
    from websockets.sync.server import serve

    signal_server = serve(signaling, "127.0.0.1", 0)
    threading.Thread(target=signal_server.serve_forever, daemon=True).start()
    print(f"signal: listening on 127.0.0.1:{signal_server.socket.getsockname()[1]}", flush=True)
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Handler)
    print(f"http: listening on 127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
