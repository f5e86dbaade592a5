#!/usr/bin/env bash
# Runs the interop scenarios (scripts/interop/interop_test.py) against a real
# vroom-server on loopback:
#
#   scripts/interop/run.sh [scenario...] [--verbose]     scenarios: self shape a a2 a3 b c d icetcp icetcp-loss turn ipv6 nq-loss
#                                                          nq-rtt speaker failover drain (default), sim sim-switchoff sim-layers
#                                                          sim-plain (by name, or all four as `simulcast`),
#                                                          bwe-3 bwe-cut bwe-grid (by name, or as `bwe`)
#
# Sets up the venv (scripts/interop/setup.sh), builds vroom-server and
# vroom-impair when they are missing (VROOM_SERVER / VROOM_IMPAIR name other
# binaries), then runs the test inside a fresh network namespace holding only
# loopback (`unshare --net` + `ip link set lo up`, as root), so neither
# aiortc nor Chromium can reach anything but 127.0.0.1. Without unshare it
# runs directly (aiortc is kept on 127.0.0.1 by its own patch, Chromium by
# its flags). Exit status: the test's (0 = every scenario passed).
set -euo pipefail
cd "$(dirname "$0")/../.."

python=$(scripts/interop/setup.sh)
server="${VROOM_SERVER:-.build/debug/vroom-server}"
impair="${VROOM_IMPAIR:-.build/debug/vroom-impair}"
[ -x "$server" ] || swift build --product vroom-server
[ -x "$impair" ] || swift build --product vroom-impair
# icetcp-loss drives the SDK through vroom-loadtest.
[ -x .build/debug/vroom-loadtest ] || [ -x .build/release/vroom-loadtest ] || swift build --product vroom-loadtest

run=("$python" scripts/interop/interop_test.py --server "$server" --impair "$impair" "$@")
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && unshare --net true 2>/dev/null; then
  echo "interop: running in a loopback-only network namespace"
  exec unshare --net bash -c 'ip link set lo up && exec "$@"' interop "${run[@]}"
else
  echo "interop: unshare unavailable; running without a private network namespace" >&2
  exec "${run[@]}"
fi
