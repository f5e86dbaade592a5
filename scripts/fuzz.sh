#!/usr/bin/env bash
# Builds every libFuzzer target in Fuzz/ with -sanitize=fuzzer,address (in its
# own scratch folder, .build-fuzz/) and runs each for a while. A crash, an
# out-of-bounds read or a leak fails the script.
#
#   scripts/fuzz.sh                   every target, 30 s each
#   scripts/fuzz.sh --seconds 300 RTPPacketFuzz
#   scripts/fuzz.sh --jobs 2          two targets at a time (each fuzzer is
#                                     one thread; each still runs its 30 s)
#
# A target is Fuzz/<Name>.swift with a first line "// fuzz-module: <Module>";
# it is compiled together with Sources/<Module>/*.swift into one module, so
# the harness reaches internal API too (no `import <Module>`). Test helpers a
# harness shares with the test suites live in Sources/VroomTesting/; each file
# there whose first line is exactly "// fuzz-shared: <Module>" is compiled in
# as well (it imports <Module> only `#if canImport(<Module>)`).
# Seeds: Fuzz/Corpus/<Name>/. Regressions: every file in
# Fuzz/Regressions/<Name>/ is replayed first; keep each crashing input found
# later there (the script prints how).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=30
jobs=1
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if [ ${#targets[@]} -eq 0 ]; then
  for f in Fuzz/*.swift; do targets+=("$(basename "$f" .swift)"); done
fi

out=.build-fuzz
mkdir -p "$out/bin" "$out/corpus" fuzz-artifacts

module_of() { sed -n '1s#^// fuzz-module: *\([A-Za-z]*\).*#\1#p' "Fuzz/$1.swift"; }

# One binary per module holds every harness of that module, so the module's
# sources are compiled (with ASan and coverage) once, not once per target.
# Each harness's LLVMFuzzerTestOneInput is renamed vroom_fuzz_<Name>; a
# generated entry point calls the one named by $VROOM_FUZZ_TARGET.
modules=()
for name in "${targets[@]}"; do
  [ -f "Fuzz/$name.swift" ] || { echo "fuzz: no target Fuzz/$name.swift" >&2; exit 2; }
  module=$(module_of "$name")
  [ -n "$module" ] || { echo "fuzz: Fuzz/$name.swift must start with '// fuzz-module: <Module>'" >&2; exit 2; }
  [[ " ${modules[*]} " == *" $module "* ]] || modules+=("$module")
done
for module in "${modules[@]}"; do
  gen="$out/src/$module"
  rm -rf "$gen" && mkdir -p "$gen"
  for f in Fuzz/*.swift; do
    name=$(basename "$f" .swift)
    [ "$(module_of "$name")" = "$module" ] || continue
    sed "s/@_cdecl(\"LLVMFuzzerTestOneInput\")/@_cdecl(\"vroom_fuzz_$name\")/" "$f" >"$gen/$name.swift"
  done
  cat >"$gen/FuzzEntryPoint.swift" <<'SWIFT'
import Glibc

typealias FuzzTarget = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

/// The harness named by VROOM_FUZZ_TARGET, found among this binary's exported symbols.
nonisolated(unsafe) let selectedFuzzTarget: FuzzTarget = {
    guard let name = getenv("VROOM_FUZZ_TARGET"), let symbol = dlsym(nil, "vroom_fuzz_" + String(cString: name)) else {
        fatalError("set VROOM_FUZZ_TARGET to a harness of this binary")
    }
    return unsafeBitCast(symbol, to: FuzzTarget.self)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEntryPoint(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    selectedFuzzTarget(data, size)
}
SWIFT
  shared=()
  for f in Sources/VroomTesting/*.swift; do
    if [ "$(head -n 1 "$f")" = "// fuzz-shared: $module" ]; then shared+=("$f"); fi
  done
  extra=()
  [ "$module" = "Packets" ] && extra=(-I Sources/COpenSSL -lssl -lcrypto)
  echo "fuzz: building the $module harnesses"
  swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name "${module}Fuzz" \
    -use-ld=lld -Xlinker --export-dynamic "${extra[@]}" "Sources/$module"/*.swift "${shared[@]}" "$gen"/*.swift \
    -o "$out/bin/$module"
done

# Runs one target (its regressions first); prints its report, writes what
# failed, if anything, to $out/<Name>.failed, and $out/<Name>.done at the
# end (a run that stopped before it counts as failed).
run_target() {
  local name="$1"
  local binary="$out/bin/$(module_of "$name")"
  export VROOM_FUZZ_TARGET="$name"
  if [ -d "Fuzz/Regressions/$name" ] && [ -n "$(ls -A "Fuzz/Regressions/$name")" ]; then
    echo "fuzz: replaying $(ls "Fuzz/Regressions/$name" | wc -l) regression input(s) for $name"
    if ! "$binary" "Fuzz/Regressions/$name"/* >"$out/$name.regressions.log" 2>&1; then
      tail -n 40 "$out/$name.regressions.log"
      echo "$name (regression)" >"$out/$name.failed"
      touch "$out/$name.done"
      return
    fi
  fi

  local corpus="$out/corpus/$name"
  mkdir -p "$corpus"
  local seeds=()
  [ -d "Fuzz/Corpus/$name" ] && seeds=("Fuzz/Corpus/$name")
  echo "fuzz: running $name for ${seconds}s"
  if "$binary" -max_total_time="$seconds" -max_len=8192 -timeout=10 -print_final_stats=1 \
       -artifact_prefix="fuzz-artifacts/$name-" "$corpus" "${seeds[@]}" >"$out/$name.log" 2>&1; then
    grep -E "^(stat::number_of_executed_units|Done)" "$out/$name.log" | tr '\n' ' '; echo
  else
    tail -n 60 "$out/$name.log"
    echo "fuzz: $name FAILED. Keep the input as a regression fixture:"
    echo "      mkdir -p Fuzz/Regressions/$name && cp fuzz-artifacts/$name-* Fuzz/Regressions/$name/"
    echo "$name" >"$out/$name.failed"
  fi
  touch "$out/$name.done"
}

# At most $jobs targets at a time; each one's report is printed whole, in
# the targets' order.
running=0
for name in "${targets[@]}"; do
  rm -f "$out/$name.failed" "$out/$name.done"
  run_target "$name" >"$out/$name.report" 2>&1 &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait
failed=()
for name in "${targets[@]}"; do
  cat "$out/$name.report"
  if [ -f "$out/$name.failed" ]; then
    failed+=("$(cat "$out/$name.failed")")
  elif [ ! -f "$out/$name.done" ]; then
    failed+=("$name (stopped before its end)")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} of ${#targets[@]} target(s) failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: ${#targets[@]} target(s) ran clean"
