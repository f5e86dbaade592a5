#!/usr/bin/env python3
"""Holds a live room with participants while schemathesis fuzzes, so that the
participant and track routes are reached with real identifiers, not only with
random ones that 404.

alice and bob join an ad-hoc room over the signaling WebSocket, alice publishes
a mic and a camera, bob answers his subscriber offers. The script then writes
a schemathesis config (the static schemathesis.toml plus fuzz dictionaries
that bind RoomSid, ParticipantSid and TrackSid to these identifiers with
probability 0.7; the other draws stay random) and prints `seeded` once. It
keeps the sockets open (and answers offers) until SIGTERM or 15 minutes.

Usage: seed_participants.py --base-url URL --server-bin PATH --static TOML --out TOML
"""

import argparse
import json
import signal
import sys
import threading
import uuid

from signaling_client import PUBLISH_OFFER, SignalingClient, mint_token, subscriber_answer


def toml_list(values):
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--server-bin", required=True)
    parser.add_argument("--static", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--api-key", default="devkey")
    parser.add_argument("--signal-url", help="the signaling WebSocket, default BASE/v1/signal (mock_server.py has its own)")
    parser.add_argument("--api-secret", default="devsecret")
    args = parser.parse_args()

    room_name = f"fuzz-{uuid.uuid4().hex[:8]}"
    alice = SignalingClient(args.base_url, mint_token(args.server_bin, "fuzz-alice", args.api_key, args.api_secret), args.signal_url)
    bob = SignalingClient(args.base_url, mint_token(args.server_bin, "fuzz-bob", args.api_key, args.api_secret), args.signal_url)
    a = alice.join(room_name)
    b = bob.join(room_name)
    alice.send({"type": "publish", "id": "pub", "sdp": PUBLISH_OFFER,
                "tracks": [{"mid": "0", "name": "mic", "kind": "audio"}, {"mid": "1", "name": "camera", "kind": "video"}]})
    tracks = [t["sid"] for t in alice.next("publishAnswer")["tracks"]]

    config = open(args.static).read()
    config += "\n# Written by seed_participants.py for this run.\n"
    config += f"[dictionaries.rooms]\nvalues = {toml_list([a['room']['sid'], room_name])}\n"
    config += f"[dictionaries.participants]\nvalues = {toml_list([a['participant']['sid'], b['participant']['sid'], 'fuzz-alice', 'fuzz-bob'])}\n"
    config += f"[dictionaries.tracks]\nvalues = {toml_list(tracks)}\n"
    config += "[parameters]\n"
    config += '"path.RoomSid" = { dictionary = "rooms", probability = 0.7 }\n'
    config += '"path.ParticipantSid" = { dictionary = "participants", probability = 0.7 }\n'
    config += '"path.TrackSid" = { dictionary = "tracks", probability = 0.7 }\n'
    with open(args.out, "w") as out:
        out.write(config)
    print(f"seeded room {a['room']['sid']} ({room_name}), participants {a['participant']['sid']} {b['participant']['sid']}, tracks {' '.join(tracks)}", flush=True)

    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())

    def answer_offers():
        while not done.is_set() and not bob.closed.is_set():
            try:
                offer = bob.next("subscribeOffer", timeout=1)
                bob.send({"type": "subscribeAnswer", "sdp": subscriber_answer(offer["sdp"])})
            except Exception:
                pass

    threading.Thread(target=answer_offers, daemon=True).start()
    done.wait(900)
    alice.close()
    bob.close()


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # noqa: BLE001 - the caller falls back to the static config
        print(f"seed_participants: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
