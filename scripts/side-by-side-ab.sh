#!/usr/bin/env bash
# Alternates two vroom-server binaries in ../shared/bench, P publishers x S
# subscribers each, N pairs, and prints each run's line and both medians:
# a change is judged on medians of alternating runs, because one binary's
# runs spread wider than most single changes (docs/README.md, issue 16).
# Each run also gives the server's user and system CPU per forwarded packet
# over 20 s inside its window (/proc/PID/stat), with the user medians: the
# bench's figure is mostly kernel time, whose noise hides a user-space
# change of a few percent (session 37). A tick is 10 ms, about 0.15 us per
# packet at 1 x 30.
#
#   scripts/side-by-side-ab.sh OLD_BIN NEW_BIN P S [N=3] [SECONDS=30]
#
# Build each with `swift build -c release --product vroom-server` (a git
# worktree for the old one). VROOM_ARGS defaults to "--consent-timeout 600":
# the bench's webrtcbin sends no consent checks after nomination.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 4 ]]; then sed -n 2,16p "$0" >&2; exit 2; fi
old=$(readlink -f "$1") new=$(readlink -f "$2") p=$3 s=$4 n=${5:-3} seconds=${6:-30}
# The server starts about 2 s in and the bench warms up 10 s: the CPU
# sample (15 s to 35 s after the start) must end inside the window.
((seconds >= 25)) || { echo "SECONDS must be at least 25 (the CPU sample ends 35 s after the server starts)" >&2; exit 2; }
bench=${BENCH:-../shared/bench}
export VROOM_ARGS=${VROOM_ARGS:---consent-timeout 600}
hz=$(getconf CLK_TCK)
work=$(mktemp -d /tmp/side-by-side-ab.XXXXXX)
trap 'rm -rf "$work"' EXIT
declare -A figures=([old]="" [new]="") users=([old]="" [new]="")
# One run of `bin`: the bench's line, then "user US sys US" per forwarded packet.
run() {
	local bin=$1 pid="" cpu=""
	VROOM_BIN=$bin "$bench/vroom/measure.sh" "$p" "$s" "$seconds" > "$work/bench.out" 2> /dev/null &
	local bench_pid=$!
	# The bench starts the server once it found the machine quiet (up to 180 s).
	for _ in $(seq 400); do
		pid=$(pgrep -n -f -- "^$bin " || true)
		[[ -n $pid ]] && break
		kill -0 "$bench_pid" 2> /dev/null || break
		sleep 0.5
	done
	if [[ -n $pid ]]; then
		sleep 15
		local u0 s0 u1 s1
		read -r u0 s0 < <(awk '{print $14, $15}' "/proc/$pid/stat")
		sleep 20
		read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$pid/stat") && cpu="$((u1 - u0)) $((s1 - s0))"
	fi
	wait "$bench_pid" || true
	local line
	line=$(grep '^vroom' "$work/bench.out" | tail -1 || true)
	echo "$line"
	python3 - "$line" "$hz" $cpu <<'PY'
import re, sys
line, hz = sys.argv[1], int(sys.argv[2])
pps = re.search(r'fwd_pps=([0-9.]+)', line)
if len(sys.argv) < 5 or not pps or float(pps.group(1)) == 0:
    print("no CPU figure")
else:
    per = lambda ticks: int(ticks) * 1e6 / hz / (20 * float(pps.group(1)))
    print(f"user {per(sys.argv[3]):.2f} sys {per(sys.argv[4]):.2f}")
PY
}
for i in $(seq "$n"); do
	for which in old new; do
		bin=$old; [[ $which == new ]] && bin=$new
		output=$(run "$bin")
		line=$(head -1 <<< "$output") cpu=$(tail -1 <<< "$output")
		echo "$which $i $line"
		echo "$which $i $cpu"
		us=$(grep -o 'us_per_fwd_pkt=[0-9.]*' <<<"$line" | cut -d= -f2 || true)
		[[ -n $us ]] && figures[$which]+="$us "
		user=$(awk '$1 == "user" {print $2}' <<< "$cpu")
		[[ -n $user ]] && users[$which]+="$user "
	done
done
median() { # LABEL WHAT FIGURE...
	python3 -c 'import statistics, sys; v = [float(x) for x in sys.argv[3:]]; print(sys.argv[1], "median", sys.argv[2], statistics.median(v) if v else "none", "us of", len(v), "runs")' "$@"
}
for which in old new; do
	median "$which" "per forwarded packet (bench)" ${figures[$which]}
	median "$which" "user CPU per forwarded packet" ${users[$which]}
done
