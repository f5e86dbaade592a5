#!/usr/bin/env bash
# Runs one vroom-loadtest scenario against a vroom-server started here on
# kernel-chosen loopback ports, prints the report, and stops the server.
#
#   scripts/loadtest.sh SCENARIO [vroom-loadtest flags...]
#   scripts/loadtest.sh small-meeting
#   scripts/loadtest.sh webinar --duration 60 --json > report.json
#
# SCENARIO is a name in loadtest/scenarios/ (smoke, small-meeting, webinar,
# audio-town-hall) or a path to a scenario file; flags after it override it.
#
# Environment:
#   VROOM_BIN_DIR        use vroom-server and vroom-loadtest from this folder
#                        (default: build both with `swift build -c release`)
#   VROOM_SERVER_EXTRA   extra vroom-server flags, e.g. "--rtc-workers 1"
#   VROOM_KEEP_LOGS=1    keep the server's log folder (its path is printed)
#
# The server runs with --dev (devkey/devsecret, loopback only), its own
# SQLite file in a temporary folder, and rooms.maxParticipantsLimit 1000 so
# the webinar's 101-participant room can be created. The exit status is
# vroom-loadtest's: 0 pass, 1 thresholds failed, 2 could not run, 64 bad flags.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -lt 1 || "$1" == -* ]]; then
  sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
  exit 64
fi
scenario=$1
shift

if [[ -n "${VROOM_BIN_DIR:-}" ]]; then
  bin=$VROOM_BIN_DIR
else
  echo "loadtest.sh: building vroom-server and vroom-loadtest (release)..." >&2
  swift build -c release --product vroom-server >&2
  swift build -c release --product vroom-loadtest >&2
  bin=$(swift build -c release --show-bin-path)
fi
for tool in vroom-server vroom-loadtest; do
  [[ -x "$bin/$tool" ]] || { echo "loadtest.sh: no $bin/$tool" >&2; exit 2; }
done

work=$(mktemp -d -t vroom-loadtest.XXXXXX)
cat > "$work/vroom.json" <<JSON
{ "rooms": { "maxParticipantsLimit": 1000 } }
JSON

# shellcheck disable=SC2086 # VROOM_SERVER_EXTRA is a list of flags.
"$bin/vroom-server" --dev --http-port 0 --rtc-port 0 --config "$work/vroom.json" --db "$work/vroom.sqlite" \
  ${VROOM_SERVER_EXTRA:-} 2> "$work/server.log" > /dev/null &
server_pid=$!

cleanup() {
  if kill -0 "$server_pid" 2> /dev/null; then
    kill -TERM "$server_pid" 2> /dev/null || true
    for _ in $(seq 50); do kill -0 "$server_pid" 2> /dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2> /dev/null || true
  fi
  wait "$server_pid" 2> /dev/null || true
  if [[ "${VROOM_KEEP_LOGS:-0}" == 1 ]]; then
    echo "loadtest.sh: server log kept in $work/server.log" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

# The server logs "http: listening on 127.0.0.1:PORT" once it accepts
# connections (as VroomTesting.ServerProcess reads it).
port=
for _ in $(seq 200); do
  port=$(sed -nE 's/.*http: listening on 127\.0\.0\.1:([0-9]+).*/\1/p' "$work/server.log" | head -n 1)
  [[ -n "$port" ]] && break
  kill -0 "$server_pid" 2> /dev/null || break
  sleep 0.1
done
if [[ -z "$port" ]]; then
  echo "loadtest.sh: vroom-server did not start; its log:" >&2
  cat "$work/server.log" >&2
  exit 2
fi
echo "loadtest.sh: vroom-server pid $server_pid on http://127.0.0.1:$port" >&2

status=0
"$bin/vroom-loadtest" --scenario "$scenario" --url "http://127.0.0.1:$port" --server-pid "$server_pid" "$@" || status=$?
exit "$status"
