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

# shellcheck source=scripts/dev-server.sh
. scripts/dev-server.sh
release_tools loadtest.sh vroom-loadtest

work=$(mktemp -d -t vroom-loadtest.XXXXXX)
cat > "$work/vroom.json" <<JSON
{ "rooms": { "maxParticipantsLimit": 1000 } }
JSON
# shellcheck disable=SC2086 # VROOM_SERVER_EXTRA is a list of flags.
start_dev_server loadtest.sh --config "$work/vroom.json" ${VROOM_SERVER_EXTRA:-}
echo "loadtest.sh: vroom-server pid $server_pid on http://127.0.0.1:$port" >&2

status=0
"$bin/vroom-loadtest" --scenario "$scenario" --url "http://127.0.0.1:$port" --server-pid "$server_pid" "$@" || status=$?
exit "$status"
