#!/usr/bin/env bash
# Runs every test of Vroom, in order, and stops at the first failing stage:
#   1. build      debug build of every target and test, which must print no warning
#   2. capture    fresh SDP from this machine's Chromium, aiortc and Firefox ESR
#                 (when installed) (for stage 3)
#   3. unit       swift test: unit, property, robustness and process tests (the
#                 client SDK against a real server, a vroom-loadtest smoke run)
#   4. fuzz       every libFuzzer target for $VROOM_FUZZ_SECONDS (default 30) s,
#                 two at a time at nice 19 beside the client SDK's suites of
#                 stage 3 (they leave more than one of the two cores idle)
#   5. interop    real WebRTC clients through a real vroom-server on loopback:
#                 aiortc (2 and 3 participants, disable/enable, unpublish, 5% loss
#                 and jitter through vroom-impair) and headless Chromium on the
#                 demo page (also over ICE-TCP with UDP dropped by nftables:
#                 scenario icetcp; and the SDK over UDP against ICE-TCP through
#                 one 2% loss link: scenario icetcp-loss); network quality under
#                 loss and delay, dominant
#                 speaker; kill -9 of a cluster node (two nodes on a private
#                 PostgreSQL): its aiortc participants resume at the other one
#                 (scripts/interop/run.sh)
#   6. rest       the admin REST API against openapi.yaml (schemathesis), Twilio's
#                 Python helper library and Twilio's own schema, on a live server
#   7. deploy     static checks of deploy/ (Dockerfile, systemd unit, sample config,
#                 Prometheus scrape config, Grafana dashboard against a live /metrics)
#   8. bench      release benchmarks; packet-path malloc budgets (0 per packet)
#   9. bwe        downlink estimation and allocation (issue 13): Chromium subscribers
#                 on htb-shaped links (scripts/interop/run.sh bwe: bwe-3, bwe-cut,
#                 bwe-grid; about 5 minutes). Last and alone: four Chromium pages
#                 and a server fill both cores, and its timing checks would suffer
#                 beside any other stage (nor should a failure here hide the others)
# Needs what scripts/bootstrap.sh installs.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

fuzz_seconds="${VROOM_FUZZ_SECONDS:-30}"
passed=0
started=$(date +%s)
stage() { printf '\n==== %s: %s ====\n' "$1" "$2"; }
done_stage() { passed=$((passed + 1)); printf '==== %s passed (%ss elapsed) ====\n' "$1" "$(( $(date +%s) - started ))"; }
fail() { printf '\n==== %s FAILED ====\n%s passed, 1 failed\n' "$1" "$passed"; exit 1; }

stage build "swift build --build-tests (warnings are errors)"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! swift build --build-tests >"$log" 2>&1; then
  grep -E 'error:' "$log" || tail -n 40 "$log"
  fail build
fi
grep -E '^Build' "$log" || true
# Our warnings only: those naming a file of this repository (not a dependency
# checkout under .build) or this package itself.
root=$(pwd)
package=$(basename "$root")
ours() { grep -E 'warning:' "$log" | grep -E "^$root/|warning: '$package'" | grep -v "^$root/\.build" | sort -u; }
if [ -n "$(ours)" ]; then
  ours
  fail build
fi
done_stage build

stage capture "scripts/capture-sdp-fixtures.sh into a temporary folder"
capture_dir=$(mktemp -d)
scripts/capture-sdp-fixtures.sh "$capture_dir" || fail capture
export VROOM_SDP_CAPTURE_DIR="$capture_dir"
done_stage capture

stage unit "swift test (the client SDK's real-time suites after the rest)"
# Two runs: everything but VroomClientTests in parallel, then the SDK's
# suites, whose real VP8/Opus at 30-50 frames a second would starve the
# timing-sensitive server tests if they ran beside them on 2 cores. The
# SDK's suites run one at a time and used 0.45 of the 2 cores (session 41,
# /usr/bin/time): the fuzzers (stage 4) take the rest, at nice 19, so that
# the suites keep the cores whenever they want them.
tests=0
fuzz_log=$(mktemp)
fuzz_pid=
# Its own process group (setsid), so that a failed stage 3 stops it whole.
trap 'rm -f "$log" "$fuzz_log"; [ -z "$fuzz_pid" ] || kill -- -"$fuzz_pid" 2>/dev/null || true' EXIT
for run in "--skip VroomClientTests" "--filter VroomClientTests"; do
  if [ "$run" = "--filter VroomClientTests" ]; then
    setsid nice -n 19 scripts/fuzz.sh --seconds "$fuzz_seconds" --jobs 2 >"$fuzz_log" 2>&1 &
    fuzz_pid=$!
  fi
  unit_log=$(mktemp)
  unit_status=0
  # shellcheck disable=SC2086
  swift test $run >"$unit_log" 2>&1 || unit_status=$?
  grep -vE '^\[[0-9]+/[0-9]+\]|Executed 0 tests|^Test Suite|^\s*$' "$unit_log" || true
  [ "$unit_status" -eq 0 ] || fail unit
  count=$(sed -n 's/.*Test run with \([0-9]*\) tests.*/\1/p' "$unit_log" | tail -n1)
  rm -f "$unit_log"
  [ -n "$count" ] && [ "$count" -gt 0 ] || { echo "no tests ran ($run)"; fail unit; }
  tests=$((tests + count))
done
done_stage unit

stage fuzz "scripts/fuzz.sh --seconds $fuzz_seconds --jobs 2 (beside stage 3's SDK suites)"
fuzz_status=0
wait "$fuzz_pid" || fuzz_status=$?
fuzz_pid=
cat "$fuzz_log"
[ "$fuzz_status" -eq 0 ] || fail fuzz
done_stage fuzz

stage interop "scripts/interop/run.sh"
interop_log=$(mktemp)
interop_status=0
scripts/interop/run.sh >"$interop_log" 2>&1 || interop_status=$?
grep -E '^(==|    (PASS|FAIL|figure:)|interop:)' "$interop_log" || tail -n 40 "$interop_log"
[ "$interop_status" -eq 0 ] || { tail -n 40 "$interop_log"; fail interop; }
interop=$(sed -n 's/^interop: \([0-9]*\) passed.*/\1/p' "$interop_log" | tail -n1)
rm -f "$interop_log"
done_stage interop

stage rest "scripts/rest-conformance.sh"
scripts/rest-conformance.sh || fail rest
done_stage rest

stage deploy "scripts/check-deploy.sh"
scripts/check-deploy.sh || fail deploy
done_stage deploy

stage bench "scripts/bench.sh"
scripts/bench.sh || fail bench
done_stage bench

stage bwe "scripts/interop/run.sh bwe"
bwe_log=$(mktemp)
bwe_status=0
scripts/interop/run.sh bwe >"$bwe_log" 2>&1 || bwe_status=$?
grep -E '^(==|    (PASS|FAIL|STOPPED)|interop:)' "$bwe_log" || tail -n 40 "$bwe_log"
# On failure the whole log (a few hundred lines): the per-second tables
# are what says why a check failed.
[ "$bwe_status" -eq 0 ] || { echo "---- the bwe log ----"; cat "$bwe_log"; rm -f "$bwe_log"; fail bwe; }
bwe=$(sed -n 's/^interop: \([0-9]*\) passed.*/\1/p' "$bwe_log" | tail -n1)
rm -f "$bwe_log"
done_stage bwe

printf '\nvroom: all %s stages passed in %ss (swift test: %s tests; %s interop and %s bwe scenarios; REST conformance, fuzz and bench clean)\n' \
  "$passed" "$(( $(date +%s) - started ))" "$tests" "${interop:-0}" "${bwe:-0}"
printf 'tests: %s passed, 0 failed\n' "$(( tests + ${interop:-0} + ${bwe:-0} ))"
