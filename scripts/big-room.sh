#!/usr/bin/env bash
# Issue 16 item 4: one room of 1 presenter and 200 viewers
# (loadtest/scenarios/big-room.json) against a release vroom-server with
# 1 media worker, then with 2. With 2, the viewers past rtc.spreadRoomAfter
# (32) go to the worker holding fewest of the room's, which gets the
# presenter's packets from the room's home worker through a RelayRing.
# Checks, for each run: every viewer joined, loss under 0.5%, the run
# passed; with 2 workers, that the second one forwarded (relayed packets).
# Prints the server's CPU per forwarded packet for both, and their ratio.
#
#   scripts/big-room.sh [vroom-loadtest flags...]      e.g. --duration 30
#
# VROOM_BIN_DIR as for loadtest.sh. Exit status: 0 pass, 1 a check failed,
# 2 could not run.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/dev-server.sh
. scripts/dev-server.sh
release_tools big-room.sh vroom-loadtest
export VROOM_BIN_DIR=$bin
out=$(mktemp -d -t vroom-big-room.XXXXXX)
trap 'rm -rf "$out"' EXIT

for workers in 1 2; do
  echo "big-room.sh: 1 x 200 with --rtc-workers $workers..." >&2
  status=0
  VROOM_SERVER_EXTRA="--rtc-workers $workers" scripts/loadtest.sh big-room --json --quiet "$@" \
    > "$out/workers-$workers.json" 2> "$out/workers-$workers.log" || status=$?
  echo "$status" > "$out/workers-$workers.status"
done

python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
failures = []
rows = {}
for workers in (1, 2):
    status = int(open(f"{out}/workers-{workers}.status").read())
    try:
        report = json.load(open(f"{out}/workers-{workers}.json"))
    except ValueError:
        print(open(f"{out}/workers-{workers}.log").read()[-4000:])
        failures.append(f"{workers} worker(s): no report (exit {status})")
        continue
    server = report["server"]
    counts = server.get("counts") or {}
    people = report["participants"]
    loss = report.get("lossFraction")
    per_packet = server.get("cpuSecondsPerForwardedPacket")
    rows[workers] = per_packet
    relayed = counts.get("relayedPackets") or 0
    print(f"big-room: {workers} worker(s): joined {people['joined']}/{people['planned']}, loss {loss if loss is not None else float('nan'):.4%}, "
          f"forwarded {counts.get('packetsForwarded', 0):.0f} ({server.get('forwardedPacketsPerSecond') or 0:.0f}/s), "
          f"relayed {relayed:.0f}, server CPU {(per_packet or 0) * 1e6:.2f} us per forwarded packet, "
          f"load tester saturated: {(report.get('loadTester') or {}).get('saturated')}")
    if status != 0:
        failures.append(f"{workers} worker(s): vroom-loadtest exit {status}: {report['verdict']['reasons']}")
    if people["joined"] != people["planned"]:
        failures.append(f"{workers} worker(s): {people['joined']} of {people['planned']} joined")
    if loss is None or loss >= 0.005:
        failures.append(f"{workers} worker(s): loss {loss}")
    if workers == 2 and relayed <= 0:
        failures.append("2 workers: the second worker forwarded nothing (no relayed packets)")
    for reason in ("relay_full", "relay_unknown"):
        if (counts.get("droppedByReason") or {}).get(reason):
            failures.append(f"{workers} worker(s): {counts['droppedByReason'][reason]:.0f} packets dropped ({reason})")
if rows.get(1) and rows.get(2):
    print(f"big-room: CPU per forwarded packet, 2 workers / 1 worker: {rows[2] / rows[1]:.2f}")
for failure in failures:
    print(f"big-room: FAIL {failure}")
sys.exit(1 if failures else 0)
PY
