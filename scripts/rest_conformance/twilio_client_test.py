#!/usr/bin/env python3
"""Drives a live vroom-server through Twilio's own Python helper library (PROTOCOL.md section 6).

The library is used unchanged: `Client(api_key, api_secret, account_sid)`, with
the Video domain's base URL (`client.video.base_url`, which every
`client.video.v1` URL is built from) set to the local server. A capturing
HttpClient records every response; afterwards each JSON response is checked
against Twilio's own schema (twilio_schema.py).

Usage: twilio_client_test.py --base-url http://127.0.0.1:PORT --server-bin PATH --twilio-schema PATH
Prints one line per check and `twilio-client: N passed, M failed`; exit 1 on any failure.
Only 127.0.0.1 is contacted.
"""

import argparse
import base64
import datetime
import hashlib
import hmac
import json
import sys
import time
import traceback
import uuid
from urllib.parse import parse_qs, urlencode, urlsplit

from twilio.base.exceptions import TwilioRestException
from twilio.jwt.access_token import AccessToken
from twilio.jwt.access_token.grants import VideoGrant
from twilio.http.http_client import TwilioHttpClient
from twilio.rest import Client

from signaling_client import PUBLISH_OFFER, SignalingClient, mint_token, subscriber_answer
from twilio_schema import TwilioSchema

# Twilio's helper needs an account SID for API-key auth; Video URLs do not contain it.
ACCOUNT_SID = "AC" + "0" * 32


class CapturingHttpClient(TwilioHttpClient):
    """Twilio's own HTTP client, recording (method, url, status, body) of every exchange."""

    def __init__(self, allowed_netloc):
        super().__init__(timeout=30)
        self.allowed_netloc = allowed_netloc
        self.exchanges = []

    def request(self, method, url, params=None, data=None, headers=None, auth=None, timeout=None, allow_redirects=False):
        netloc = urlsplit(url).netloc
        if netloc != self.allowed_netloc:
            # Never leave the machine: a page URL pointing elsewhere is a failure, not a request.
            raise AssertionError(f"refusing to contact {url}: only {self.allowed_netloc} is allowed")
        response = super().request(method, url, params=params, data=data, headers=headers, auth=auth,
                                   timeout=timeout, allow_redirects=allow_redirects)
        full_url = url + ("?" + urlencode(params, doseq=True) if params else "")
        self.exchanges.append((method, full_url, response.status_code, response.text))
        return response


class WebhookReceiver:
    """Collects the server's webhooks on 127.0.0.1 (status callbacks and message subscriptions)."""

    def __init__(self, secret):
        import http.server
        import threading
        received = self.received = []
        self.secret = secret

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                received.append((self.path, dict(self.headers), body))
                self.send_response(204)
                self.end_headers()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, path, where, timeout=10.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for item in list(self.received):
                if item[0] == path and where(item):
                    return item
            time.sleep(0.1)
        raise TimeoutError(f"no webhook to {path} within {timeout} s; got {[(p, b[:80]) for p, _, b in self.received]}")

    def form(self, item):
        return {k: v[-1] for k, v in parse_qs(item[2].decode(), keep_blank_values=True).items()}

    def signed(self, item):
        """X-Vroom-Signature: HMAC-SHA256 over URL + sorted name+value (form) or URL + raw body (JSON)."""
        path, headers, body = item
        url = self.url + path
        if (headers.get("Content-Type") or "").startswith("application/json"):
            text = url.encode() + body
        else:
            pairs = sorted((k, v[-1]) for k, v in parse_qs(body.decode(), keep_blank_values=True).items())
            text = (url + "".join(k + v for k, v in pairs)).encode()
        expected = base64.b64encode(hmac.new(self.secret.encode(), text, hashlib.sha256).digest()).decode()
        return headers.get("X-Vroom-Signature") == expected

    def close(self):
        self.server.shutdown()


class Results:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, condition, name, detail=""):
        if condition:
            self.passed += 1
            print(f"ok   {name}")
        else:
            self.failed += 1
            print(f"FAIL {name}" + (f": {detail}" if detail else ""))
        return condition

    def step(self, name, fn):
        """Runs fn; an exception is one failure (with its message) and returns None."""
        try:
            return fn()
        except Exception as e:  # noqa: BLE001 - every failure is reported, the run goes on where it can
            self.failed += 1
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            print(f"FAIL {name}: {type(e).__name__}: {first}")
            if not isinstance(e, (TwilioRestException, AssertionError, TimeoutError)):
                traceback.print_exc(limit=3)
            return None


def is_date(value):
    return isinstance(value, datetime.datetime)


def expect_rest_error(results, name, fn, status, code):
    try:
        fn()
    except TwilioRestException as e:
        results.check(e.status == status and e.code == code, name, f"got status {e.status} code {e.code} ({e.msg})")
        return
    except Exception as e:  # noqa: BLE001
        results.check(False, name, f"{type(e).__name__}: {e}")
        return
    results.check(False, name, "the call succeeded")


def poll(fn, until, timeout=5.0):
    """fn() until until(value) or the timeout; returns the last value (the server applies WebSocket effects asynchronously)."""
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if until(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


def run(args):
    r = Results()
    base = args.base_url.rstrip("/")
    http = CapturingHttpClient(urlsplit(base).netloc)
    client = Client(args.api_key, args.api_secret, ACCOUNT_SID, http_client=http)
    client.video.base_url = base  # the library's Domain base URL, normally https://video.twilio.com
    client.api.base_url = base  # the Api domain (Tokens.json), normally https://api.twilio.com
    video = client.video.v1
    # A cluster (--owner-url): rooms are created at the owner and participants
    # join there; everything else goes to --base-url, a node that does not own
    # them, which carries actions to the owner (PROTOCOL.md section 8).
    owner = (args.owner_url or base).rstrip("/")
    creator = video
    signal_url = args.signal_url
    if owner != base:
        owner_http = CapturingHttpClient(urlsplit(owner).netloc)
        owner_http.exchanges = http.exchanges  # one record, checked against the schema alike
        owner_client = Client(args.api_key, args.api_secret, ACCOUNT_SID, http_client=owner_http)
        owner_client.video.base_url = owner
        creator = owner_client.video.v1
        signal_url = signal_url or owner.replace("http://", "ws://", 1) + "/v1/signal"
    # Network Traversal Service through the library, as a back end asks
    # Twilio for ICE servers (docs/migrating-from-twilio.md); this server
    # has no TURN, so the list is empty.
    nts = r.step("client.tokens.create(ttl=600) (Tokens.json)", lambda: client.tokens.create(ttl=600))
    if nts is not None:
        r.check(nts.ttl == "600" and nts.ice_servers == [], "the Tokens resource: ttl 600, no ICE servers without TURN",
                f"{nts.ttl!r} {nts.ice_servers!r}")
    tag = uuid.uuid4().hex[:8]
    name = f"conformance-{tag}"
    sockets = []
    hooks = WebhookReceiver(args.api_secret)

    try:
        # Rooms: create, fetch by SID and by unique name, list with filters and paging.
        room = r.step("create room", lambda: creator.rooms.create(unique_name=name, max_participants=10,
                                                               empty_room_timeout=5, unused_room_timeout=5,
                                                               status_callback=hooks.url + "/status"))
        if room is None:
            return r, http
        r.check(isinstance(room.sid, str) and room.sid.startswith("RM") and len(room.sid) == 34, "room sid is RM + 32 hex", room.sid)
        r.check(room.unique_name == name, "room unique_name", room.unique_name)
        r.check(room.status == "in-progress", "new room is in-progress", room.status)
        r.check(room.type == "group", "room type is group", room.type)
        r.check(room.max_participants == 10, "room max_participants", room.max_participants)
        r.check(room.empty_room_timeout == 5 and room.unused_room_timeout == 5, "room timeouts")
        r.check(is_date(room.date_created) and is_date(room.date_updated), "room dates parse as datetimes", f"{room.date_created!r}")
        r.check(room.end_time is None, "in-progress room has no end_time", room.end_time)
        r.check(isinstance(room.account_sid, str) and room.account_sid.startswith("AC"), "room account_sid", room.account_sid)
        r.check(isinstance(room.url, str) and room.url.startswith(owner) and room.sid in room.url, "room url is absolute", room.url)
        r.check(isinstance(room.links, dict) and str(room.links.get("participants", "")).startswith(owner),
                "room links.participants", room.links)

        r.check(room.status_callback == hooks.url + "/status", "room status_callback", room.status_callback)
        created = r.step("status callback room-created", lambda: hooks.wait(
            "/status", lambda h: hooks.form(h).get("StatusCallbackEvent") == "room-created"))
        if created:
            r.check(hooks.form(created).get("RoomSid") == room.sid, "room-created names the room", hooks.form(created))
            r.check(hooks.signed(created), "room-created carries a valid X-Vroom-Signature", created[1].get("X-Vroom-Signature"))

        fetched = r.step("fetch room by sid", lambda: video.rooms(room.sid).fetch())
        if fetched:
            r.check(fetched.sid == room.sid and fetched.unique_name == name, "fetch by sid returns the room")
        by_name = r.step("fetch room by unique name", lambda: video.rooms(name).fetch())
        if by_name:
            r.check(by_name.sid == room.sid, "fetch by unique name returns the room", by_name.sid)

        expect_rest_error(r, "create duplicate unique name: 409 53113", lambda: video.rooms.create(unique_name=name), 409, 53113)
        expect_rest_error(r, "fetch unknown room: 404 53106", lambda: video.rooms("RM" + "0" * 32).fetch(), 404, 53106)
        expect_rest_error(r, "MaxParticipants 0: 400 53107", lambda: video.rooms.create(unique_name=name + "-bad", max_participants=0), 400, 53107)
        expect_rest_error(r, "EmptyRoomTimeout 61: 400 53109", lambda: video.rooms.create(unique_name=name + "-bad2", empty_room_timeout=61), 400, 53109)

        extra = [r.step(f"create room {name}-{i}", lambda i=i: creator.rooms.create(unique_name=f"{name}-{i}")) for i in range(2)]
        listed = r.step("list rooms by UniqueName and Status", lambda: video.rooms.list(unique_name=name, status="in-progress", limit=20))
        if listed is not None:
            r.check([x.sid for x in listed] == [room.sid], "filtered list holds exactly the room", [x.sid for x in listed])
        none = r.step("list completed rooms of that name", lambda: video.rooms.list(unique_name=name, status="completed", limit=20))
        if none is not None:
            r.check(none == [], "no completed room of that name yet", [x.sid for x in none])
        hour_ago = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=1)
        recent = r.step("list rooms DateCreatedAfter", lambda: video.rooms.list(unique_name=name, date_created_after=hour_ago, limit=20))
        if recent is not None:
            r.check(room.sid in [x.sid for x in recent], "DateCreatedAfter an hour ago includes the room")
        future = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)
        later = r.step("list rooms DateCreatedAfter tomorrow", lambda: video.rooms.list(unique_name=name, date_created_after=future, limit=20))
        if later is not None:
            r.check(later == [], "DateCreatedAfter tomorrow is empty", [x.sid for x in later])
        paged = r.step("list rooms one per page (follows next_page_url)", lambda: video.rooms.list(status="in-progress", page_size=1, limit=3))
        if paged is not None:
            sids = [x.sid for x in paged]
            r.check(len(sids) == 3 and len(set(sids)) == 3, "paging yields 3 distinct rooms", sids)
        page = r.step("fetch one page", lambda: video.rooms.page(status="in-progress", page_size=1))
        if page is not None:
            r.check(page._payload.get("meta", {}).get("key") == "rooms", "page meta.key is rooms")
            r.check(page._payload.get("meta", {}).get("page_size") == 1, "page meta.page_size is 1")
            next_url = page._payload.get("meta", {}).get("next_page_url")
            r.check(isinstance(next_url, str) and "Status=in-progress" in next_url and next_url.startswith(base),
                    "next_page_url is absolute and keeps the filter", next_url)

        # Participants join over the signaling WebSocket.
        alice = r.step("alice joins over WebSocket", lambda: SignalingClient(base, mint_token(args.server_bin, "alice", args.api_key, args.api_secret), signal_url))
        # bob's token comes from Twilio's own helper library (AccessToken
        # with a VideoGrant), as a back end moving from Twilio mints it
        # (docs/migrating-from-twilio.md): only the key and secret change.
        bob = r.step("bob joins over WebSocket with a token from twilio.jwt.access_token",
                     lambda: SignalingClient(base, twilio_token(args, "bob", name), signal_url))
        sockets += [s for s in (alice, bob) if s]
        if not (alice and bob):
            return r, http
        alice_joined = r.step("alice joined", lambda: alice.join(name))
        bob_joined = r.step("bob joined", lambda: bob.join(name))
        if not (alice_joined and bob_joined):
            return r, http
        alice_sid = alice_joined["participant"]["sid"]
        bob_sid = bob_joined["participant"]["sid"]
        r.check(alice_joined["room"]["sid"] == room.sid, "alice joined the REST-created room", alice_joined["room"])

        participants = video.rooms(room.sid).participants
        if args.owner_url:
            # Through another node, reads come from the database, where the
            # owner writes a join a moment after it happens (in order, off
            # the room's path): wait for bob's record (at most 2 s) before
            # reading, as any client of a cluster would see it.
            deadline = time.monotonic() + 2
            while len(participants.list(limit=50)) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
        plist = r.step("list participants", lambda: participants.list(limit=50))
        if plist is not None:
            r.check(sorted(p.identity for p in plist) == ["alice", "bob"], "participants are alice and bob", [p.identity for p in plist])
            r.check(all(p.status == "connected" for p in plist), "participants are connected", [p.status for p in plist])
        only = r.step("list participants by Identity", lambda: participants.list(identity="alice", limit=50))
        if only is not None:
            r.check([p.sid for p in only] == [alice_sid], "Identity filter", [p.sid for p in only])
        pa = r.step("fetch participant by sid", lambda: participants(alice_sid).fetch())
        if pa:
            r.check(pa.sid == alice_sid and pa.identity == "alice" and pa.room_sid == room.sid, "participant fields")
            r.check(is_date(pa.date_created) and is_date(pa.start_time), "participant dates parse", f"{pa.start_time!r}")
            r.check(pa.end_time is None and pa.duration is None, "connected participant has no end_time/duration", f"{pa.end_time!r} {pa.duration!r}")
            r.check(isinstance(pa.links, dict) and {"published_tracks", "subscribed_tracks", "subscribe_rules"} <= set(pa.links),
                    "participant links", pa.links)
        pa_by_identity = r.step("fetch participant by identity", lambda: participants("alice").fetch())
        if pa_by_identity:
            r.check(pa_by_identity.sid == alice_sid, "identity addresses the current session", pa_by_identity.sid)
        expect_rest_error(r, "fetch unknown participant: 404 53204", lambda: participants("PA" + "0" * 32).fetch(), 404, 53204)

        # alice publishes; bob is offered her tracks.
        alice.send({"type": "publish", "id": "pub", "sdp": PUBLISH_OFFER,
                    "tracks": [{"mid": "0", "name": "mic", "kind": "audio"}, {"mid": "1", "name": "camera", "kind": "video"}]})
        answer = r.step("alice publishes", lambda: alice.next("publishAnswer"))
        if not answer:
            return r, http
        track_sids = {t["name"]: t["sid"] for t in answer["tracks"]}
        offer = r.step("bob is offered alice's tracks", lambda: bob.next("subscribeOffer", where=lambda f: len(f.get("tracks", [])) == 2))
        if offer:
            bob.send({"type": "subscribeAnswer", "sdp": subscriber_answer(offer["sdp"])})

        published = r.step("list published tracks", lambda: participants(alice_sid).published_tracks.list(limit=50))
        if published is not None:
            r.check(sorted((t.name, t.kind) for t in published) == [("camera", "video"), ("mic", "audio")], "published tracks",
                    [(t.name, t.kind) for t in published])
            r.check(all(t.enabled is True and t.participant_sid == alice_sid and t.room_sid == room.sid and is_date(t.date_created)
                        for t in published), "published track fields")
        camera = r.step("fetch published track", lambda: participants(alice_sid).published_tracks(track_sids["camera"]).fetch())
        if camera:
            r.check(camera.sid == track_sids["camera"] and camera.name == "camera" and camera.kind == "video", "fetched publication")
        try:
            participants(alice_sid).published_tracks("MT" + "0" * 32).fetch()
            r.check(False, "fetch unknown published track: 404", "the call succeeded")
        except TwilioRestException as e:
            r.check(e.status == 404, "fetch unknown published track: 404", f"status {e.status}")

        subscribed = r.step("list bob's subscribed tracks",
                            lambda: poll(lambda: participants(bob_sid).subscribed_tracks.list(limit=50), lambda v: len(v) == 2))
        if subscribed is not None:
            r.check(sorted(t.sid for t in subscribed) == sorted(track_sids.values()), "bob receives alice's two tracks",
                    [t.sid for t in subscribed])
            r.check(all(t.publisher_sid == alice_sid and t.participant_sid == bob_sid for t in subscribed), "subscribed track publisher_sid")
            one = r.step("fetch subscribed track", lambda: participants(bob_sid).subscribed_tracks(track_sids["mic"]).fetch())
            if one:
                r.check(one.sid == track_sids["mic"] and one.kind == "audio", "fetched subscribed track")

        # Subscribe rules: read the default, replace with exclude-all.
        rules = r.step("fetch subscribe rules", lambda: participants(bob_sid).subscribe_rules.fetch())
        if rules:
            r.check(rules.participant_sid == bob_sid and rules.room_sid == room.sid, "subscribe rules sids")
            r.check([{k: v for k, v in x.items() if v is not None} for x in (rules.rules or [])] == [{"type": "include", "all": True}],
                    "default rules are include all", rules.rules)
        updated = r.step("update subscribe rules", lambda: participants(bob_sid).subscribe_rules.update(rules=[{"type": "exclude", "all": True}]))
        if updated:
            r.check([{k: v for k, v in x.items() if v is not None} for x in (updated.rules or [])] == [{"type": "exclude", "all": True}],
                    "updated rules are returned", updated.rules)
            empty = r.step("bob's subscriptions follow the rules",
                           lambda: poll(lambda: participants(bob_sid).subscribed_tracks.list(limit=50), lambda v: len(v) == 0))
            if empty is not None:
                r.check(empty == [], "exclude all leaves bob no subscribed tracks", [t.sid for t in empty])

        # A server-to-participant message (a Vroom route, so through the library's raw request).
        sent = r.step("POST Messages", lambda: client.request(
            "POST", f"{base}/v1/Rooms/{room.sid}/Participants/{alice_sid}/Messages",
            data={"Content": '{"k":1}', "ContentType": "application/json"}))
        if sent is not None:
            http.exchanges.append(("POST", f"{base}/v1/Rooms/{room.sid}/Participants/{alice_sid}/Messages", sent.status_code, sent.text))
            r.check(sent.status_code == 201, "message POST answers 201", f"{sent.status_code} {sent.text[:200]}")
            got = r.step("alice receives the message", lambda: alice.next("message"))
            if got:
                r.check(got.get("content") == '{"k":1}', "message content", got)

        # A message subscription: alice's messages are POSTed as JSON to the callback.
        subscribed_hook = r.step("POST MessageSubscriptions", lambda: client.request(
            "POST", f"{base}/v1/Rooms/{room.sid}/Participants/{alice_sid}/MessageSubscriptions",
            data={"Callback": hooks.url + "/messages"}))
        if subscribed_hook is not None:
            r.check(subscribed_hook.status_code == 201, "message subscription answers 201",
                    f"{subscribed_hook.status_code} {subscribed_hook.text[:200]}")
            alice.send({"type": "sendMessage", "id": "hook", "content": '{"hook":1}', "contentType": "application/json"})
            delivered = r.step("message webhook delivered", lambda: hooks.wait("/messages", lambda h: b"hook" in h[2]))
            if delivered:
                payload = json.loads(delivered[2])
                r.check(payload.get("Content") == '{"hook":1}' and payload.get("ParticipantSid") == alice_sid
                        and payload.get("RoomSid") == room.sid and str(payload.get("Sid", "")).startswith("ME"),
                        "message webhook fields", payload)
                r.check(hooks.signed(delivered), "message webhook carries a valid X-Vroom-Signature")

        # Remove bob: he gets disconnected 53216.
        removed = r.step("remove bob (Status=disconnected)", lambda: participants(bob_sid).update(status="disconnected"))
        if removed:
            r.check(removed.status == "disconnected", "removed participant status", removed.status)
            r.check(is_date(removed.end_time) and isinstance(removed.duration, int), "removed participant end_time and duration",
                    f"{removed.end_time!r} {removed.duration!r}")
        gone = r.step("bob gets disconnected", lambda: bob.next("disconnected"))
        if gone:
            r.check(gone.get("code") == 53216, "bob's disconnected code is 53216", gone)
        left = r.step("alice sees bob leave", lambda: alice.next("participantDisconnected"))
        if left:
            r.check(left.get("participantSid") == bob_sid, "participantDisconnected names bob")
        disconnected = r.step("list disconnected participants", lambda: participants.list(status="disconnected", limit=50))
        if disconnected is not None:
            r.check(bob_sid in [p.sid for p in disconnected], "bob is listed as disconnected", [p.sid for p in disconnected])

        # Complete the room: alice gets disconnected 53118.
        done = r.step("complete the room", lambda: video.rooms(room.sid).update(status="completed"))
        if done:
            r.check(done.status == "completed", "room status completed", done.status)
            r.check(is_date(done.end_time) and isinstance(done.duration, int), "completed room end_time and duration",
                    f"{done.end_time!r} {done.duration!r}")
        ended = r.step("alice gets disconnected", lambda: alice.next("disconnected"))
        if ended:
            r.check(ended.get("code") == 53118, "alice's disconnected code is 53118", ended)
        again = r.step("fetch completed room", lambda: video.rooms(room.sid).fetch())
        if again:
            r.check(again.status == "completed", "completed room is kept", again.status)
        ended_hook = r.step("status callback room-ended", lambda: hooks.wait(
            "/status", lambda h: hooks.form(h).get("StatusCallbackEvent") == "room-ended"))
        if ended_hook:
            r.check(hooks.form(ended_hook).get("RoomStatus") == "completed", "room-ended says completed", hooks.form(ended_hook))
        expect_rest_error(r, "complete it again: 400 53112", lambda: video.rooms(room.sid).update(status="completed"), 400, 53112)
        history = r.step("list completed rooms by name", lambda: video.rooms.list(unique_name=name, status="completed", limit=20))
        if history is not None:
            r.check([x.sid for x in history] == [room.sid], "the completed room is listed", [x.sid for x in history])
        for x in extra:
            if x:
                r.step(f"complete {x.unique_name}", lambda x=x: video.rooms(x.sid).update(status="completed"))

        # Wrong credentials: 401 20003.
        bad = Client(args.api_key, "wrong-secret", ACCOUNT_SID, http_client=CapturingHttpClient(urlsplit(base).netloc))
        bad.video.base_url = base
        expect_rest_error(r, "wrong secret: 401 20003", lambda: bad.video.v1.rooms(room.sid).fetch(), 401, 20003)
    finally:
        for s in sockets:
            s.close()
        hooks.close()
    return r, http


def twilio_token(args, identity, room):
    """An access token minted by Twilio's helper library, signed with Vroom's API key and secret."""
    token = AccessToken(ACCOUNT_SID, args.api_key, args.api_secret, identity=identity, ttl=900)
    token.add_grant(VideoGrant(room=room))
    return token.to_jwt()


def validate_captured(r, http, schema):
    """Part d: every JSON response the library saw, against Twilio's own schema."""
    checked = 0
    for method, url, status, body in http.exchanges:
        problems = schema.check(method, url, status, body)
        if problems is None:
            continue
        checked += 1
        path = urlsplit(url).path
        r.check(not problems, f"Twilio schema: {method} {path} {status}", "; ".join(problems[:8]))
    r.check(checked > 0, "Twilio schema: at least one response was checked", f"{len(http.exchanges)} exchanges")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--server-bin", required=True)
    parser.add_argument("--twilio-schema", required=True)
    parser.add_argument("--api-key", default="devkey")
    parser.add_argument("--signal-url", help="the signaling WebSocket, default BASE/v1/signal (mock_server.py has its own)")
    parser.add_argument("--api-secret", default="devsecret")
    parser.add_argument("--owner-url", help="a cluster node to create the rooms at and join them through; "
                        "--base-url is then another node, which carries the actions to it")
    parser.add_argument("--dump", help="write the captured exchanges here as JSON")
    args = parser.parse_args()
    if urlsplit(args.base_url).hostname != "127.0.0.1" or (args.owner_url and urlsplit(args.owner_url).hostname != "127.0.0.1"):
        sys.exit("twilio_client_test: only http://127.0.0.1:PORT is allowed")

    schema = TwilioSchema(args.twilio_schema)
    r, http = run(args)
    validate_captured(r, http, schema)
    if args.dump:
        with open(args.dump, "w") as out:
            json.dump([{"method": m, "url": u, "status": s, "body": b} for m, u, s, b in http.exchanges], out, indent=1)
    print(f"twilio-client: {r.passed} passed, {r.failed} failed")
    sys.exit(1 if r.failed else 0)


if __name__ == "__main__":
    main()
