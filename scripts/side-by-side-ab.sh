#!/usr/bin/env bash
# Alternates two vroom-server binaries in ../shared/bench, P publishers x S
# subscribers each, N pairs, and prints each run's line and both medians:
# a change is judged on medians of alternating runs, because one binary's
# runs spread wider than most single changes (docs/README.md, issue 16).
#
#   scripts/side-by-side-ab.sh OLD_BIN NEW_BIN P S [N=3] [SECONDS=30]
#
# Build each with `swift build -c release --product vroom-server` (a git
# worktree for the old one). VROOM_ARGS defaults to "--consent-timeout 600":
# the bench's webrtcbin sends no consent checks after nomination.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 4 ]]; then sed -n 2,11p "$0" >&2; exit 2; fi
old=$(readlink -f "$1") new=$(readlink -f "$2") p=$3 s=$4 n=${5:-3} seconds=${6:-30}
bench=${BENCH:-../shared/bench}
export VROOM_ARGS=${VROOM_ARGS:---consent-timeout 600}
declare -A figures=([old]="" [new]="")
for i in $(seq "$n"); do
	for which in old new; do
		bin=$old; [[ $which == new ]] && bin=$new
		line=$(VROOM_BIN=$bin "$bench/vroom/measure.sh" "$p" "$s" "$seconds" 2>/dev/null | grep '^vroom' | tail -1 || true)
		echo "$which $i $line"
		us=$(grep -o 'us_per_fwd_pkt=[0-9.]*' <<<"$line" | cut -d= -f2 || true)
		[[ -n $us ]] && figures[$which]+="$us "
	done
done
for which in old new; do
	python3 -c 'import statistics, sys; v = [float(x) for x in sys.argv[2:]]; print(sys.argv[1], "median", statistics.median(v) if v else "none", "us of", len(v), "runs")' \
		"$which" ${figures[$which]}
done
