#!/usr/bin/env bash
# Runs the Benchmarks package targets (release build) and checks the malloc
# budgets of DESIGN.md: every RTP/RTCP packet-path benchmark must allocate
# nothing per packet. Time figures are printed, never checked (shared, noisy
# machines): compare them as ratios between runs on one machine.
#
#   scripts/bench.sh                 run and check
#   scripts/bench.sh --filter RTP    pass options through to the benchmark plugin
set -euo pipefail
cd "$(dirname "$0")/.."

out=$(mktemp)
trap 'rm -f "$out"' EXIT
swift package --disable-sandbox benchmark --target PacketBenchmarks --target SFUBenchmarks --no-progress "$@" 2>&1 | tee "$out" \
  | grep -vE '^\[[0-9]+/[0-9]+\]|^(Building|Build of|Compiling|Write|Note: skipping)'

# "Malloc (total)" of the "(mallocs)" variants is per packet, unscaled (one
# packet per sample); its p100 column is the worst sample.
python3 - "$out" <<'PY'
import re, sys
# Packet-path benchmarks: 0 mallocs per packet, SRTP included (ours, on
# OpenSSL, issue 16). The libsrtp2 columns are the comparison only:
# Debian's libsrtp2 (on NSS) allocates inside every protect.
budget = re.compile(r'^(RTP|RTCP|SFU VP8|SFU worker path|SFU Pacer|SRTP .*, ours )')
# Forwarding to N subscribers, per ingress packet: divided by N, the time
# per forwarded copy (the figure issue 16's targets are about). "SFU worker
# path" is the media worker's whole path, SRTP and sendmmsg included.
forward = re.compile(r'^SFU( worker path)? VP8 forward to (\d+) subscriber\(s\) \(x1000\)$')
units = {'ns': 1, 'μs': 1000, 'us': 1000, 'ms': 1_000_000}
name, failures, checked = None, [], 0
for line in open(sys.argv[1], encoding='utf-8'):
    line = line.rstrip('\n')
    if line and not line.startswith(('│', '╒', '╞', '├', '╘', '=', ' ')) and '(' in line:
        name = line.strip()
    elif line.startswith('│ Time (wall clock) (') and name and forward.match(name):
        unit = line.split('(')[2].split(')')[0]
        cells = [c.strip() for c in line.strip('│').split('│')]
        if unit in units:
            p50 = float(cells[3].replace(',', '')) * units[unit]
            copies = int(forward.match(name).group(2))
            print(f"bench: {name}: {p50 / copies:.0f} ns per forwarded copy (p50)")
    elif line.startswith('│ Malloc (total)') and name and name.endswith('(mallocs)'):
        cells = [c.strip() for c in line.strip('│').split('│')]
        worst = int(cells[7].replace(',', ''))
        print(f"bench: {name}: {worst} malloc(s) per packet (worst sample)")
        if budget.match(name):
            checked += 1
            if worst != 0:
                failures.append(name)
if checked == 0:
    print("bench: no packet-path malloc figures found in the output"); sys.exit(1)
if failures:
    print("bench: malloc budget (0 per packet) exceeded by: " + "; ".join(failures)); sys.exit(1)
print(f"bench: {checked} packet-path benchmark(s) within the 0-malloc budget")
PY
