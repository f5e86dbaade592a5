#!/usr/bin/env python3
"""Writes the copy of openapi.yaml that schemathesis fuzzes.

The server POSTs webhooks to any URL a request names (StatusCallback,
MessageSubscriptions' Callback), and a fuzzer would name arbitrary hosts; the
test rule is that nothing but 127.0.0.1 is ever contacted. So the fuzzed copy
drops those parameters and the MessageSubscriptions operation; everything else
is fuzzed as written. twilio_client_test.py covers what is left out here only
where it can stay on loopback.

Usage: fuzz_spec.py openapi.yaml OUT.yaml
"""

import sys

import yaml


def main():
    spec = yaml.safe_load(open(sys.argv[1]))
    create = spec["components"]["schemas"]["CreateRoomRequest"]["properties"]
    for name in ("StatusCallback", "StatusCallbackMethod"):
        create.pop(name, None)
    for path in list(spec["paths"]):
        if path.endswith("/MessageSubscriptions"):
            del spec["paths"][path]
    for name in ("MessageSubscriptionRequest", "MessageSubscription"):
        spec["components"]["schemas"].pop(name, None)
    for schema in spec["components"]["schemas"].values():
        if "Callback" in schema.get("properties", {}):
            raise SystemExit("fuzz_spec: a schema still names a Callback; drop it from the fuzzed copy too")
    with open(sys.argv[2], "w") as out:
        yaml.safe_dump(spec, out, sort_keys=False)


if __name__ == "__main__":
    main()
