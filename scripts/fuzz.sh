#!/usr/bin/env bash
# Builds every libFuzzer target in Fuzz/ with -sanitize=fuzzer,address (in its
# own scratch folder, .build-fuzz/) and runs each for a while. A crash, an
# out-of-bounds read or a leak fails the script.
#
#   scripts/fuzz.sh                   every target, 30 s each
#   scripts/fuzz.sh --seconds 300 RTPPacketFuzz
#
# A target is Fuzz/<Name>.swift with a first line "// fuzz-module: <Module>";
# it is compiled together with Sources/<Module>/*.swift into one module, so
# the harness reaches internal API too. Seeds: Fuzz/Corpus/<Name>/.
# Regressions: every file in Fuzz/Regressions/<Name>/ is replayed first; keep
# each crashing input found later there (the script prints how).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=30
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if [ ${#targets[@]} -eq 0 ]; then
  for f in Fuzz/*.swift; do targets+=("$(basename "$f" .swift)"); done
fi

out=.build-fuzz
mkdir -p "$out/bin" "$out/corpus" fuzz-artifacts
failed=()
for name in "${targets[@]}"; do
  src="Fuzz/$name.swift"
  [ -f "$src" ] || { echo "fuzz: no target $src" >&2; exit 2; }
  module=$(sed -n '1s#^// fuzz-module: *\([A-Za-z]*\).*#\1#p' "$src")
  [ -n "$module" ] || { echo "fuzz: $src must start with '// fuzz-module: <Module>'" >&2; exit 2; }
  extra=()
  [ "$module" = "Packets" ] && extra=(-I Sources/COpenSSL -lssl -lcrypto)
  echo "fuzz: building $name ($module)"
  swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name "${name}Module" \
    -use-ld=lld "${extra[@]}" "Sources/$module"/*.swift "$src" -o "$out/bin/$name"

  if [ -d "Fuzz/Regressions/$name" ] && [ -n "$(ls -A "Fuzz/Regressions/$name")" ]; then
    echo "fuzz: replaying $(ls "Fuzz/Regressions/$name" | wc -l) regression input(s) for $name"
    if ! "$out/bin/$name" "Fuzz/Regressions/$name"/* >"$out/$name.regressions.log" 2>&1; then
      tail -n 40 "$out/$name.regressions.log"
      failed+=("$name (regression)")
      continue
    fi
  fi

  corpus="$out/corpus/$name"
  mkdir -p "$corpus"
  seeds=()
  [ -d "Fuzz/Corpus/$name" ] && seeds=("Fuzz/Corpus/$name")
  echo "fuzz: running $name for ${seconds}s"
  if "$out/bin/$name" -max_total_time="$seconds" -max_len=8192 -timeout=10 -print_final_stats=1 \
       -artifact_prefix="fuzz-artifacts/$name-" "$corpus" "${seeds[@]}" >"$out/$name.log" 2>&1; then
    grep -E "^(stat::number_of_executed_units|Done)" "$out/$name.log" | tr '\n' ' '; echo
  else
    tail -n 60 "$out/$name.log"
    echo "fuzz: $name FAILED. Keep the input as a regression fixture:"
    echo "      mkdir -p Fuzz/Regressions/$name && cp fuzz-artifacts/$name-* Fuzz/Regressions/$name/"
    failed+=("$name")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} of ${#targets[@]} target(s) failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: ${#targets[@]} target(s) ran clean"
