#!/usr/bin/env bash
# Join/leave churn benchmark (issue 11, item 4): a release `vroom-server --dev`
# on kernel-chosen loopback ports, one participant staying in room "churn"
# while another joins and leaves it CYCLES times over the signaling
# WebSocket. Prints the time per join/leave and the server's RSS (VmRSS)
# every 1,000 cycles and fails (exit 1) when, after the warm-up, RSS grows
# more than 10% or the time per 1,000 cycles more than 50% (first two
# windows after warm-up against the last two).
#
#   scripts/churn.sh                   20,000 cycles (the issue's figure)
#   scripts/churn.sh --cycles 5000     flags go to ChurnBenchmark
#
# Environment:
#   VROOM_BIN_DIR      use vroom-server and ChurnBenchmark from this folder
#                      (default: build both with `swift build -c release`)
#   VROOM_KEEP_LOGS=1  keep the server's log folder (its path is printed)
# Exit status: 0 flat, 1 grew past a limit, 2 could not run, 64 bad flags.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

if [[ -n "${VROOM_BIN_DIR:-}" ]]; then
  bin=$VROOM_BIN_DIR
else
  echo "churn.sh: building vroom-server and ChurnBenchmark (release)..." >&2
  swift build -c release --product vroom-server >&2
  swift build -c release --product ChurnBenchmark >&2
  bin=$(swift build -c release --show-bin-path)
fi
for tool in vroom-server ChurnBenchmark; do
  [[ -x "$bin/$tool" ]] || { echo "churn.sh: no $bin/$tool" >&2; exit 2; }
done

work=$(mktemp -d -t vroom-churn.XXXXXX)
"$bin/vroom-server" --dev --http-port 0 --rtc-port 0 --db "$work/vroom.sqlite" \
  2> "$work/server.log" > /dev/null &
server_pid=$!

cleanup() {
  if kill -0 "$server_pid" 2> /dev/null; then
    kill -TERM "$server_pid" 2> /dev/null || true
    for _ in $(seq 50); do kill -0 "$server_pid" 2> /dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2> /dev/null || true
  fi
  wait "$server_pid" 2> /dev/null || true
  if [[ "${VROOM_KEEP_LOGS:-0}" == 1 ]]; then
    echo "churn.sh: server log kept in $work/server.log" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

# The server logs "http: listening on 127.0.0.1:PORT" once it accepts connections.
port=
for _ in $(seq 300); do
  port=$(sed -nE 's/.*http: listening on 127\.0\.0\.1:([0-9]+).*/\1/p' "$work/server.log" | head -n 1)
  [[ -n "$port" ]] && break
  kill -0 "$server_pid" 2> /dev/null || break
  sleep 0.1
done
if [[ -z "$port" ]]; then
  echo "churn.sh: vroom-server did not start; its log:" >&2
  cat "$work/server.log" >&2
  exit 2
fi

stay_token=$("$bin/vroom-server" token --dev --identity stayer --room churn --ttl 86400 2> /dev/null)
churn_token=$("$bin/vroom-server" token --dev --identity churner --room churn --ttl 86400 2> /dev/null)

status=0
"$bin/ChurnBenchmark" --url "ws://127.0.0.1:$port/v1/signal" --server-pid "$server_pid" \
  --stay-token "$stay_token" --churn-token "$churn_token" "$@" || status=$?
exit "$status"
