#!/usr/bin/env bash
# Sets everything up and runs every test: the main build and its test suite
# (unit tests, corpus round trips, ptxas acceptance, front-end agreement,
# lit/FileCheck), an AddressSanitizer+UBSan build of the tests, and a bounded
# libFuzzer runs of the front end (PTXVM_FUZZ_SECONDS), of the fatbin reader
# (PTXVM_FATBIN_FUZZ_SECONDS, 30 s) and of the analyses and emulator
# (PTXVM_EMU_FUZZ_SECONDS, 45 s). Ends with ctest's summary line.
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
fuzz_seconds=${PTXVM_FUZZ_SECONDS:-60}
status=0
log=$(mktemp)

bash scripts/setup.sh || exit 1

echo "== build (build/)"
bash scripts/build.sh || exit 1

echo "== tests (build/)"
(cd build && ctest --output-on-failure -j"$jobs" --timeout 600) 2>&1 | tee "$log"
main_status=${PIPESTATUS[0]}
[[ $main_status -eq 0 ]] || status=1

echo "== AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/)"
if [[ ! -f build-asan/build.ninja ]]; then
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DPTXVM_SANITIZE=ON \
    -DPTXVM_CORPUS=OFF -DPTXVM_EXTERNAL_CORPUS_DIR="$PWD/build/corpus" >/dev/null || status=1
fi
if ninja -C build-asan -j"$jobs"; then
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --output-on-failure -j"$jobs" -E 'Ptxas' --timeout 900) || status=1
else
  status=1
fi

echo "== fuzzing the front end for ${fuzz_seconds}s (build-fuzz/)"
if [[ ! -f build-fuzz/build.ninja ]]; then
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTXVM_FUZZ=ON \
    -DPTXVM_ANTLR=OFF -DPTXVM_CORPUS=OFF >/dev/null || status=1
fi
if ninja -C build-fuzz -j"$jobs" fuzz_front_end; then
  seeds=$(mktemp -d)
  cp kernels/ptx/*.ptx "$seeds"/ 2>/dev/null
  cp build/corpus/*.sm_80.ptx "$seeds"/ 2>/dev/null
  cp tests/fuzz/regressions/* "$seeds"/ 2>/dev/null
  mkdir -p build-fuzz/findings
  if build-fuzz/bin/fuzz_front_end -max_total_time="$fuzz_seconds" -timeout=10 -rss_limit_mb=4096 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix=build-fuzz/findings/ "$seeds" 2>build-fuzz/fuzz.log; then
    grep -E "stat::number_of_executed_units|Done" build-fuzz/fuzz.log | tail -n 2
    echo "fuzzing: no crash, hang or leak"
  else
    tail -n 40 build-fuzz/fuzz.log
    echo "fuzzing FAILED: inputs in build-fuzz/findings/ (add them to tests/fuzz/regressions/)"
    status=1
  fi
  rm -rf "$seeds"
else
  status=1
fi

fatbin_fuzz_seconds=${PTXVM_FATBIN_FUZZ_SECONDS:-30}
echo "== fuzzing the fatbin reader for ${fatbin_fuzz_seconds}s (build-fuzz/)"
if ninja -C build-fuzz -j"$jobs" fuzz_fatbin; then
  seeds=$(mktemp -d)
  cp tests/runtime/fatbin/*.fatbin tests/runtime/fatbin/*.bin "$seeds"/ 2>/dev/null
  find tests/fuzz/fatbin -type f ! -name '*.py' -exec cp {} "$seeds"/ \;
  mkdir -p build-fuzz/findings-fatbin
  if build-fuzz/bin/fuzz_fatbin -max_total_time="$fatbin_fuzz_seconds" -timeout=10 -rss_limit_mb=4096 \
      -max_len=16384 -print_final_stats=1 -artifact_prefix=build-fuzz/findings-fatbin/ "$seeds" \
      2>build-fuzz/fuzz-fatbin.log; then
    grep -E "stat::number_of_executed_units|Done" build-fuzz/fuzz-fatbin.log | tail -n 2
    echo "fuzzing the fatbin reader: no crash, hang or leak"
  else
    tail -n 40 build-fuzz/fuzz-fatbin.log
    echo "fuzzing FAILED: inputs in build-fuzz/findings-fatbin/ (add them to tests/fuzz/fatbin/)"
    status=1
  fi
  rm -rf "$seeds"
else
  status=1
fi

emu_fuzz_seconds=${PTXVM_EMU_FUZZ_SECONDS:-45}
echo "== fuzzing the analyses and the emulator for ${emu_fuzz_seconds}s (build-fuzz/)"
if ninja -C build-fuzz -j"$jobs" fuzz_emulator; then
  seeds=$(mktemp -d)
  cp kernels/ptx/*.ptx tests/gpu/barrier-table/*.ptx "$seeds"/ 2>/dev/null
  find build/corpus -name '*.sm_80.ptx' -size -16k -exec cp {} "$seeds"/ \; 2>/dev/null
  cp tests/fuzz/emulator/* "$seeds"/ 2>/dev/null
  mkdir -p build-fuzz/findings-emulator
  if UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 build-fuzz/bin/fuzz_emulator -max_total_time="$emu_fuzz_seconds" -timeout=20 -rss_limit_mb=4096 \
      -max_len=16384 -print_final_stats=1 -artifact_prefix=build-fuzz/findings-emulator/ "$seeds" \
      2>build-fuzz/fuzz-emulator.log; then
    grep -E "stat::number_of_executed_units|Done" build-fuzz/fuzz-emulator.log | tail -n 2
    echo "fuzzing the analyses and the emulator: no crash, hang or leak"
  else
    tail -n 40 build-fuzz/fuzz-emulator.log
    echo "fuzzing FAILED: inputs in build-fuzz/findings-emulator/ (add them to tests/fuzz/emulator/)"
    status=1
  fi
  rm -rf "$seeds"
else
  status=1
fi

echo "== summary"
[[ $status -eq 0 ]] && echo "sanitizer build and fuzzing: ok" || echo "sanitizer build or fuzzing: FAILED (see above)"
# ctest's closing line for the main suite, last, for CI.
grep -E "tests passed|tests failed" "$log" | tail -n 1
rm -f "$log"
exit $status
