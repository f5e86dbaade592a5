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

# shellcheck source=scripts/dev-server.sh
. scripts/dev-server.sh
release_tools churn.sh ChurnBenchmark
start_dev_server churn.sh

stay_token=$("$bin/vroom-server" token --dev --identity stayer --room churn --ttl 86400 2> /dev/null)
churn_token=$("$bin/vroom-server" token --dev --identity churner --room churn --ttl 86400 2> /dev/null)

status=0
"$bin/ChurnBenchmark" --url "ws://127.0.0.1:$port/v1/signal" --server-pid "$server_pid" \
  --stay-token "$stay_token" --churn-token "$churn_token" "$@" || status=$?
exit "$status"
