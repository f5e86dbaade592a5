#!/usr/bin/env bash
# Alternates two vroom-server binaries in ../shared/bench, P publishers x S
# subscribers each, N pairs, and prints the server's user and system CPU per
# forwarded packet over 20 s inside each run's window (/proc/PID/stat), then
# the medians. A change to user-space code is judged on user CPU: the
# bench's own figure is mostly kernel time, whose noise hides a change of a
# few percent (docs/README.md, issue 16, session 37). One clock tick is
# 10 ms, about 0.15 us per packet at 1 x 30.
#
#   scripts/user-cpu-ab.sh OLD_BIN NEW_BIN P S [N=4]
#
# Both binaries must be named vroom-server (copy each into its own folder).
# VROOM_ARGS defaults to "--consent-timeout 600", as in side-by-side-ab.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 4 ]]; then sed -n 2,13p "$0" >&2; exit 2; fi
old=$(readlink -f "$1") new=$(readlink -f "$2") p=$3 s=$4 n=${5:-4}
bench=${BENCH:-../shared/bench}
export VROOM_ARGS=${VROOM_ARGS:---consent-timeout 600}
for bin in "$old" "$new"; do
	[[ $(basename "$bin") == vroom-server ]] || { echo "$bin: the binary must be named vroom-server" >&2; exit 2; }
done
if pgrep -x vroom-server > /dev/null; then echo "a vroom-server is already running: stop it first" >&2; exit 1; fi
hz=$(getconf CLK_TCK)
work=$(mktemp -d /tmp/user-cpu-ab.XXXXXX)
trap 'rm -rf "$work"' EXIT
declare -A users=([old]="" [new]="")
# One run: prints "user US sys US bench US" per forwarded packet.
run() {
	VROOM_BIN=$1 "$bench/vroom/measure.sh" "$p" "$s" 40 > "$work/bench.out" 2> /dev/null &
	local bench_pid=$! pid=""
	for _ in $(seq 400); do
		pid=$(pgrep -n -x vroom-server || true)
		[[ -n $pid ]] && break
		sleep 0.5
	done
	[[ -n $pid ]] || { wait "$bench_pid" || true; echo "no vroom-server started"; return; }
	# Set-up takes about 2 s and the bench warms up 10 s before its window.
	sleep 15
	pid=$(pgrep -n -x vroom-server)
	read -r u0 s0 < <(awk '{print $14, $15}' "/proc/$pid/stat")
	sleep 20
	read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$pid/stat")
	wait "$bench_pid" || true
	local line
	line=$(grep '^vroom' "$work/bench.out" | tail -1 || true)
	python3 - "$line" $((u1 - u0)) $((s1 - s0)) "$hz" <<'PY'
import re, sys
line, user, system, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
pps = re.search(r'fwd_pps=([0-9.]+)', line)
us = re.search(r'us_per_fwd_pkt=([0-9.]+)', line)
if not pps or float(pps.group(1)) == 0:
    print("no bench figure")
else:
    per = lambda ticks: ticks * 1e6 / hz / (20 * float(pps.group(1)))
    print(f"user {per(user):.2f} sys {per(system):.2f} bench {us.group(1) if us else '?'}")
PY
}
for i in $(seq "$n"); do
	for which in old new; do
		bin=$old; [[ $which == new ]] && bin=$new
		figures=$(run "$bin")
		echo "$which $i $figures"
		user=$(awk '$1 == "user" {print $2}' <<< "$figures")
		[[ -n $user ]] && users[$which]+="$user "
	done
done
for which in old new; do
	python3 -c 'import statistics, sys; v = [float(x) for x in sys.argv[2:]]; print(sys.argv[1], "median user", statistics.median(v) if v else "none", "us per forwarded packet of", len(v), "runs")' \
		"$which" ${users[$which]}
done
