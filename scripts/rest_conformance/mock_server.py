#!/usr/bin/env python3
"""A stand-in for vroom-server's REST routes, to check the conformance harness itself.

It implements the room routes of PROTOCOL.md section 6 in memory (no
participants ever join: it has no signaling socket), so that the harness can
be seen passing where a conformant server would pass, and failing from the
first participant step on. Not a reference implementation: the Swift routes in
Sources/AdminAPI are the product.

Usage: mock_server.py [PORT]   (prints `http: listening on 127.0.0.1:PORT`)
Then:  VROOM_SERVER_BIN=.build/debug/vroom-server scripts/rest-conformance.sh http://127.0.0.1:PORT
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
            if self.command == "GET" and raw_path == "/metrics":
                return self.reply(200, "vroom_rooms 0\n", "text/plain; version=0.0.4")
            body_params = self.params()  # read the body first: the connection is kept alive
            if segments[:2] != ["v1", "Rooms"]:
                raise Problem(404, 20404, "Not found")
            auth = self.headers.get("Authorization") or ""
            expected = "Basic " + base64.b64encode(f"{KEY}:{SECRET}".encode()).decode()
            if auth != expected:
                raise Problem(401, 20003, "Authentication Error - invalid username")
            params = body_params
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
                        "status_callback": params.get("StatusCallback")}
                rooms.append(room)
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
            return self.reply(200, page([], "participants", params, base, raw_path))
        raise Problem(404, 53204, "Participant not found")

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
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Handler)
    print(f"http: listening on 127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
