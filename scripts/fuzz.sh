#!/usr/bin/env bash
# make fuzz: builds silentpush-fuzz with libFuzzer (coverage and AddressSanitizer) in
# .build-fuzz, then runs each target for FUZZ_SECONDS (default 60) on its corpus in
# Fuzz/corpus/TARGET. Inputs that crash are copied to Fuzz/regressions/TARGET, which
# `make test` replays (Tests/SilentPushReceiverTests/FuzzCorpusReplayTests.swift); new
# coverage stays in .build-fuzz/corpus (merge it into Fuzz/corpus with FUZZ_MERGE=1).
#   FUZZ_TARGETS="json request" FUZZ_SECONDS=600 make fuzz
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-json payload request providerToken config adminBody h2Session storedText channelRequest}
runtime=$("$swift" -print-target-info | sed -n 's/.*"runtimeResourcePath": "\(.*\)",*/\1/p' | head -1)
fuzzer=$(ls "$runtime"/../clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a 2>/dev/null | head -1)
[ -n "$fuzzer" ] || { echo "fuzz: libFuzzer (libclang_rt.fuzzer_no_main) not found beside the Swift toolchain" >&2; exit 2; }

"$swift" build --product silentpush-fuzz --scratch-path .build-fuzz \
  -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table \
  -Xswiftc -DFUZZING -Xlinker "$fuzzer" -Xlinker -lstdc++
binary=.build-fuzz/debug/silentpush-fuzz

failed=0
for target in $targets; do
  work=.build-fuzz/corpus/$target
  crashes=.build-fuzz/crashes/$target
  mkdir -p "$work" "$crashes" "Fuzz/regressions/$target"
  echo "fuzz: $target for ${seconds}s" >&2
  if ! SILENTPUSH_FUZZ_TARGET=$target ASAN_OPTIONS=detect_leaks=0 "$binary" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=16384 -print_final_stats=1 \
      -artifact_prefix="$crashes/" "$work" "Fuzz/corpus/$target" > ".build-fuzz/$target.log" 2>&1; then
    failed=1
    echo "fuzz: $target FAILED (.build-fuzz/$target.log):" >&2
    grep -E "ERROR|Fatal error|SUMMARY|Test unit written" ".build-fuzz/$target.log" | head -5 >&2 || true
    for crash in "$crashes"/*; do [ -f "$crash" ] && cp "$crash" "Fuzz/regressions/$target/"; done
  fi
  grep -E "stat::number_of_executed_units|cov: " ".build-fuzz/$target.log" | tail -2 >&2 || true
  if [ "${FUZZ_MERGE:-0}" = 1 ]; then
    SILENTPUSH_FUZZ_TARGET=$target ASAN_OPTIONS=detect_leaks=0 "$binary" -merge=1 "Fuzz/corpus/$target" "$work" > /dev/null 2>&1 || true
  fi
done
exit $failed
