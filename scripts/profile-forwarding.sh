#!/usr/bin/env bash
# Where an SFU's CPU goes, in us per forwarded packet: runs the side-by-side
# bench (../shared/bench, P publishers x S subscribers each, SECONDS of
# measurement), samples the server with perf over 20 s in the middle of the
# bench's window, and folds the call stacks into kernel send, loopback
# delivery, waiting, crypto, runtime and own code (scripts/profile_breakdown.py),
# scaled to the bench's own CPU per forwarded packet.
#
#   scripts/profile-forwarding.sh vroom|janus P S [SECONDS=45]
#
# vroom: VROOM_BIN (default .build/release/vroom-server: build it with
# `swift build -c release --product vroom-server`), VROOM_ARGS (default
# "--consent-timeout 600", as scripts/side-by-side-ab.sh). Needs root and
# perf (scripts/bootstrap.sh --bench). PERF_DATA keeps the recording.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 3 ]]; then sed -n 2,13p "$0" >&2; exit 2; fi
sfu=$1 p=$2 s=$3 seconds=${4:-45}
bench=${BENCH:-../shared/bench}
case $sfu in
	vroom) process=vroom-server own='vroom-server' marker='MediaIO0A6Worker'
		export VROOM_ARGS=${VROOM_ARGS:---consent-timeout 600} ;;
	janus) process=janus own='/janus$|libjanus' marker='janus_ice' ;;
	*) echo "unknown SFU $sfu (vroom, janus)" >&2; exit 2 ;;
esac
((seconds >= 40)) || { echo "SECONDS must be at least 40 (perf samples 20 s after a 15 s start)" >&2; exit 2; }
command -v perf > /dev/null || { echo "perf is missing: scripts/bootstrap.sh --bench" >&2; exit 1; }
if pgrep -x "$process" > /dev/null; then echo "a $process is already running: stop it first" >&2; exit 1; fi

work=$(mktemp -d /tmp/profile-forwarding.XXXXXX)
data=${PERF_DATA:-$work/perf.data}
"$bench/$sfu/measure.sh" "$p" "$s" "$seconds" > "$work/bench.out" 2> "$work/bench.err" &
bench_pid=$!
trap 'kill "$bench_pid" 2> /dev/null || true' EXIT
# The server starts once the bench found the machine quiet (up to 180 s).
pid=""
for _ in $(seq 400); do
	pid=$(pgrep -n -x "$process" || true)
	[[ -n $pid ]] && break
	kill -0 "$bench_pid" 2> /dev/null || break
	sleep 0.5
done
[[ -n $pid ]] || { echo "no $process started; see $work/bench.err" >&2; exit 1; }
# Set-up takes about 2 s and the bench warms up 10 s before its window.
sleep 15
perf record -F 2999 -g -p "$pid" -o "$data" -- sleep 20 2> "$work/perf.err" > /dev/null
wait "$bench_pid"
trap - EXIT
line=$(grep "^$sfu " "$work/bench.out" | tail -1)
echo "$line" | cut -d'|' -f1
us=$(grep -o 'us_per_fwd_pkt=[0-9.]*' <<< "$line" | cut -d= -f2)
perf script -i "$data" 2> /dev/null | python3 scripts/profile_breakdown.py --us "$us" --own "$own" --worker-marker "$marker"
