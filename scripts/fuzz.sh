#!/usr/bin/env bash
# Long fuzzing runs (hours) of each libFuzzer target, for a machine left to it; CI runs the same
# targets for seconds (scripts/test.sh).
#
#   bash scripts/fuzz.sh [--hours H] [--jobs N] [TARGET...]
#
# Builds build-fuzz/ (clang, libFuzzer, ASan+UBSan) and runs each TARGET (all of them by
# default) for H hours (default 1), one after another, with N fuzzing processes each (default:
# half the cores). A target's corpus persists in fuzz-corpus/TARGET/ (git-ignored), so a run
# continues from where the last one stopped; the seeds and regression inputs scripts/test.sh
# uses are read along with it. Crashes, hangs, leaks and out-of-memory inputs do not stop a run:
# each is left in build-fuzz/findings-TARGET/ and counted in the summary at the end. Add the
# ones worth keeping to the target's regression folder (below) once their bug is fixed.
set -uo pipefail
cd "$(dirname "$0")/.."

hours=1
jobs=$(($(nproc 2>/dev/null || echo 2) / 2))
((jobs > 0)) || jobs=1
targets=()
while (($#)); do
  case $1 in
  --hours) hours=$2; shift 2 ;;
  --jobs) jobs=$2; shift 2 ;;
  -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) echo "fuzz.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  *) targets+=("$1"); shift ;;
  esac
done
if ! [[ $hours =~ ^[0-9]+([.][0-9]+)?$ && $jobs =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: --hours takes a number, --jobs a positive count" >&2
  exit 2
fi
seconds=$(awk -v h="$hours" 'BEGIN { s = int(h * 3600); print (s < 1 ? 1 : s) }')

# target: max input length, seconds per input before it counts as a hang, regression folder,
# then its seeds (globs; ones that match nothing are skipped). Same as scripts/test.sh's.
declare -A max_len=([fuzz_front_end]=65536 [fuzz_fatbin]=16384 [fuzz_emulator]=16384
  [fuzz_emulator_edges]=16384 [fuzz_run_args]=4096 [fuzz_cudart]=4096)
declare -A hang=([fuzz_front_end]=10 [fuzz_fatbin]=10 [fuzz_emulator]=20 [fuzz_emulator_edges]=20
  [fuzz_run_args]=10 [fuzz_cudart]=10)
declare -A regressions=([fuzz_front_end]=tests/fuzz/regressions [fuzz_fatbin]=tests/fuzz/fatbin
  [fuzz_emulator]=tests/fuzz/regressions [fuzz_emulator_edges]=tests/fuzz/regressions
  [fuzz_run_args]=tests/fuzz/run_args [fuzz_cudart]=tests/fuzz/cudart)
emulator_seeds="kernels/ptx/*.ptx tests/gpu/barrier-table/*.ptx"
declare -A seeds=([fuzz_front_end]="kernels/ptx/*.ptx build/corpus/*.sm_80.ptx"
  [fuzz_fatbin]="tests/runtime/fatbin/*.fatbin tests/runtime/fatbin/*.bin"
  [fuzz_emulator]=$emulator_seeds [fuzz_emulator_edges]=$emulator_seeds
  [fuzz_run_args]="" [fuzz_cudart]="")
all=(fuzz_front_end fuzz_fatbin fuzz_emulator fuzz_emulator_edges fuzz_run_args fuzz_cudart)
((${#targets[@]})) || targets=("${all[@]}")
for t in "${targets[@]}"; do
  [[ -v "max_len[$t]" ]] || { echo "fuzz.sh: unknown target '$t' (targets: ${all[*]})" >&2; exit 2; }
done

if [[ ! -f build-fuzz/build.ninja ]]; then
  CC=clang-19 CXX=clang++-19 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTXVM_FUZZ=ON \
    -DPTXVM_ANTLR=OFF -DPTXVM_CORPUS=OFF -DPTXVM_CPU_DEVICE=OFF >/dev/null || exit 1
fi
ninja -C build-fuzz -j"$(nproc 2>/dev/null || echo 2)" "${targets[@]}" || exit 1

summary=()
for t in "${targets[@]}"; do
  corpus=fuzz-corpus/$t findings=build-fuzz/findings-$t log=build-fuzz/$t.long.log
  mkdir -p "$corpus" "$findings"
  seed_dir=$(mktemp -d)
  for s in ${seeds[$t]}; do [[ -f $s ]] && cp "$s" "$seed_dir"/; done
  find "${regressions[$t]}" -type f ! -name '*.py' -exec cp {} "$seed_dir"/ \; 2>/dev/null
  before=$(find "$findings" -type f | wc -l)
  echo "== $t: ${hours} h, $jobs jobs, corpus $corpus/ ($(find "$corpus" -type f | wc -l) inputs), log $log"
  # -fork runs the jobs as child processes and goes on past a crash, hang or leak (each input
  # is kept in $findings/); new inputs that add coverage go to the first folder, $corpus.
  # clang links libFuzzer's C++ runtime ahead of the shared sanitizer runtime: preloaded, it comes first.
  LD_PRELOAD=$(clang++-19 -print-file-name=libclang_rt.asan-x86_64.so) \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 build-fuzz/bin/"$t" -fork="$jobs" \
    -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$seconds" \
    -timeout="${hang[$t]}" -rss_limit_mb=4096 -max_len="${max_len[$t]}" -print_final_stats=1 \
    -artifact_prefix="$findings"/ "$corpus" "$seed_dir" >"$log" 2>&1
  rc=$?
  rm -rf "$seed_dir"
  found=$(($(find "$findings" -type f | wc -l) - before))
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | awk '{ s += $2 } END { print s + 0 }')
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
  [[ -z $execs || $execs == 0 ]] && execs=$(sed -nE 's/^#([0-9]+).*/\1/p' <<<"$last")
  # The average over the run (fork mode's lines give the last few seconds' rate only).
  took=$(sed -nE 's/.* time: ([0-9]+)s.*/\1/p' <<<"$last")
  speed=$([[ -n $execs && -n $took && $took -gt 0 ]] && echo $((execs / took)))
  cov=$(sed -nE 's/.*cov: ([0-9]+).*/\1/p' <<<"$last")
  line="$t: ${execs:-?} inputs run, ${speed:-?} exec/s, coverage ${cov:-?}, corpus $(find "$corpus" -type f | wc -l), $found new finding(s)"
  ((found > 0)) && line+=" in $findings/ (fix, then add to ${regressions[$t]}/)"
  ((rc != 0 && found == 0)) && line+=" (fuzzer exited with status $rc: see $log)"
  summary+=("$line")
  echo "$line"
done

echo "== summary"
printf '%s\n' "${summary[@]}"
