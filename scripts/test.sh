#!/usr/bin/env bash
# Sets everything up and runs every test: the main build and its test suite
# (unit tests, corpus round trips, ptxas acceptance, front-end agreement,
# lit/FileCheck, the emulator suites again on compiled code: label cpu), an
# AddressSanitizer+UBSan build of the tests (without the per-instruction
# differential tests on compiled code, whose time is LLVM's), and a bounded
# libFuzzer runs of the front end (PTXVM_FUZZ_SECONDS), of the fatbin reader
# (PTXVM_FATBIN_FUZZ_SECONDS, 30 s) and of the analyses and emulator
# (PTXVM_EMU_FUZZ_SECONDS, 45 s), of the emulator at state-space edges
# (PTXVM_EDGE_FUZZ_SECONDS, 30 s), of `ptxvm run` argument specs and of CUDA
# runtime call sequences (PTXVM_API_FUZZ_SECONDS, 20 s each), in two lanes side
# by side; scripts/fuzz.sh runs the same targets for hours. Ends with ctest's summary line.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
jobs=$(nproc 2>/dev/null || echo 2)
fuzz_seconds=${PTXVM_FUZZ_SECONDS:-60}
status=0
# Each phase's wall time, for the summary (where CI's minutes go).
timings=""
phase_start=$SECONDS
phase_done() {
  timings+="  $1: $((SECONDS - phase_start)) s"$'\n'
  phase_start=$SECONDS
}
log=$(mktemp)

bash scripts/setup.sh --tests || exit 1
phase_done "set-up"

echo "== build (build/)"
bash scripts/build.sh || exit 1

phase_done "main build"
echo "== tests (build/)"
(cd build && ctest --output-on-failure -j"$jobs" --timeout 600) 2>&1 | tee "$log"
main_status=${PIPESTATUS[0]}

phase_done "main suite"
echo "== AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/)"
# One clang build serves the sanitizer suite and the fuzzers (PTXVM_FUZZ adds
# libFuzzer's coverage instrumentation and the fuzz targets): CI compiles the
# instrumented code once.
if [[ ! -f build-asan/build.ninja ]]; then
  CC=clang-19 CXX=clang++-19 cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DPTXVM_SANITIZE=ON \
    -DPTXVM_FUZZ=ON -DPTXVM_BENCH=OFF -DPTXVM_CORPUS=OFF -DPTXVM_EXTERNAL_CORPUS_DIR="$PWD/build/corpus" \
    >/dev/null || status=1
fi
# Left out under the sanitizers (they run in the main suite): ptxas checks,
# the emulator suites repeated on compiled code (cpu:*, 44% of the sanitizer
# suite's test time) and the translator's differential tests repeated with
# registers in the frame and unchecked (100 s): JIT code is not
# instrumented, and the translator's own suites, its lit tests and
# EngineFuzz still run its host code under the sanitizers.
if ninja -C build-asan -j"$jobs"; then
  phase_done "sanitizer build"
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --output-on-failure -j"$jobs" -E 'Ptxas|^cpu:|^translator[.](registers_in_file|unchecked)$' \
      --timeout 900) || status=1
  phase_done "sanitizer suite"
else
  status=1
fi

# fuzz TARGET WHAT SECONDS MAX_LEN TIMEOUT REGRESSIONS_DIR SEED_FILES...: runs build-asan/bin/TARGET
# from the seeds (and the regression inputs) for SECONDS; a crash, hang, leak or undefined
# behaviour fails it (nonzero status) and leaves its input in build-asan/findings-TARGET/.
asan_runtime=$(clang++-19 -print-file-name=libclang_rt.asan-x86_64.so)
fuzz() {
  local target=$1 what=$2 seconds=$3 max_len=$4 timeout=$5 regressions=$6
  shift 6
  echo "== fuzzing $what for ${seconds}s (build-asan/)"
  local seeds findings=build-asan/findings-$target log=build-asan/$target.log failed=0
  seeds=$(mktemp -d)
  cp "$@" "$seeds"/ 2>/dev/null
  find "$regressions" -type f ! -name '*.py' -exec cp {} "$seeds"/ \; 2>/dev/null
  mkdir -p "$findings"
  # clang links libFuzzer's C++ runtime ahead of the shared sanitizer runtime: preloaded, it comes first.
  if LD_PRELOAD="$asan_runtime" UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      build-asan/bin/"$target" -max_total_time="$seconds" \
      -timeout="$timeout" -rss_limit_mb=4096 -max_len="$max_len" -print_final_stats=1 \
      -artifact_prefix="$findings"/ "$seeds" 2>"$log"; then
    grep -E "stat::number_of_executed_units|Done" "$log" | tail -n 2
    echo "fuzzing $what: no crash, hang or leak"
  else
    tail -n 40 "$log"
    echo "fuzzing FAILED: inputs in $findings/ (add them to $regressions/)"
    failed=1
  fi
  rm -rf "$seeds"
  return $failed
}

# Each fuzzer runs on one core: two lanes of about equal length run side by
# side (their reports printed in order afterwards), so the fuzzing costs half
# its total time on CI's two cores.
fuzz_targets=(fuzz_front_end fuzz_fatbin fuzz_emulator fuzz_emulator_edges fuzz_run_args fuzz_cudart)
if ninja -C build-asan -j"$jobs" "${fuzz_targets[@]}"; then
  lane_a() {
    local failed=0
    fuzz fuzz_front_end "the front end" "$fuzz_seconds" 65536 10 tests/fuzz/regressions \
      kernels/ptx/*.ptx build/corpus/*.sm_80.ptx || failed=1
    # shellcheck disable=SC2046
    fuzz fuzz_emulator "the analyses and the emulator" "${PTXVM_EMU_FUZZ_SECONDS:-45}" 16384 20 tests/fuzz/regressions \
      kernels/ptx/*.ptx tests/gpu/barrier-table/*.ptx $(find build/corpus -name '*.sm_80.ptx' -size -16k 2>/dev/null) ||
      failed=1
    return $failed
  }
  lane_b() {
    local failed=0
    fuzz fuzz_fatbin "the fatbin reader" "${PTXVM_FATBIN_FUZZ_SECONDS:-30}" 16384 10 tests/fuzz/fatbin \
      tests/runtime/fatbin/*.fatbin tests/runtime/fatbin/*.bin || failed=1
    fuzz fuzz_emulator_edges "the emulator at state-space edges" "${PTXVM_EDGE_FUZZ_SECONDS:-30}" 16384 20 \
      tests/fuzz/regressions kernels/ptx/*.ptx tests/gpu/barrier-table/*.ptx || failed=1
    fuzz fuzz_run_args "ptxvm run's argument specs" "${PTXVM_API_FUZZ_SECONDS:-20}" 4096 10 tests/fuzz/run_args ||
      failed=1
    fuzz fuzz_cudart "CUDA runtime call sequences" "${PTXVM_API_FUZZ_SECONDS:-20}" 4096 10 tests/fuzz/cudart || failed=1
    return $failed
  }
  lane_a_log=$(mktemp) lane_b_log=$(mktemp)
  lane_a > "$lane_a_log" 2>&1 &
  lane_a_pid=$!
  lane_b > "$lane_b_log" 2>&1 &
  lane_b_pid=$!
  wait "$lane_a_pid" || status=1
  wait "$lane_b_pid" || status=1
  cat "$lane_a_log" "$lane_b_log"
  rm -f "$lane_a_log" "$lane_b_log"
else
  echo "fuzzing FAILED: the fuzz targets do not build"
  status=1
fi

phase_done "fuzzing"
echo "== summary"
printf "wall time by phase:\n%s  total: %d s\n" "$timings" "$SECONDS"
[[ $main_status -eq 0 ]] && echo "main suite (build/): ok" || echo "main suite (build/): FAILED (see above)"
[[ $status -eq 0 ]] && echo "sanitizer build and fuzzing: ok" || echo "sanitizer build or fuzzing: FAILED (see above)"
[[ $main_status -eq 0 ]] || status=1
# ctest's closing line for the main suite, last, for CI.
grep -E "tests passed|tests failed" "$log" | tail -n 1
rm -f "$log"
exit $status
