#!/usr/bin/env bash
# Checks `ptxvm exec --device gpu` (the CUDA shim, issue 11) on a machine with an NVIDIA GPU:
# every program of kernels/apps (apps and misuse) runs without ptxvm, under the shim with no
# passes, with --passes=uniform-branches, with --passes=verify,strip-debug,uniform-branches and
# with --passes=regalloc,verify --max-registers=24 (MODES="plain ra" picks some);
# exit status and output must agree with the run without ptxvm. Then every GPU-truth case
# (tests/gpu/cases) is recorded again by gpu_record, under the shim with the passes and with
# gpu_record's own --passes (ptxvm's GPU device), and its results are compared with
# tests/gpu/results. Writes $OUT/interpose/{TABLE,cases.diff,...}.
# SKIP_APPS=1 checks only the GPU-truth cases, SKIP_CASES=1 only the programs.
#
# Layout (run from the repository root): gpu-apps/ as tests/gpu/apps/prepare.sh makes it (the
# programs and NVIDIA's libcudart.so.13), gpu-apps/bin/ptxvm and gpu-apps/lib/cuda-shim/
# libcuda.so.1 from a ptxvm build, gpu-apps/libantlr4-runtime.so.4.9, and
# gpu-apps/bin/gpu_record from the same build.
set -uo pipefail
out=${OUT:?set OUT}/interpose
mkdir -p "$out/runs"
apps=$(cd gpu-apps && pwd)
ptxvm=$apps/bin/ptxvm
export LD_LIBRARY_PATH=$apps${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
timeout_s=${APP_TIMEOUT:-30}

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/ENVIRONMENT" 2>&1
echo "cuda $(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')" >>"$out/ENVIRONMENT"

read -r -a modes <<<"${MODES:-plain shim uni all ra}"
run_mode() { # run_mode MODE PROGRAM NAME: status, seconds, stdout hash
  local mode=$1 prog=$2 name=$3 start end status
  local log=$out/runs/$name.$mode
  start=$(date +%s%N)
  case $mode in
  plain) timeout "$timeout_s" "$prog" >"$log.out" 2>"$log.err" ;;
  shim) timeout "$timeout_s" "$ptxvm" exec --device gpu -- "$prog" >"$log.out" 2>"$log.err" ;;
  uni) timeout "$timeout_s" "$ptxvm" exec --device gpu --passes=uniform-branches --report "$log.json" -- "$prog" \
    >"$log.out" 2>"$log.err" ;;
  ra) timeout "$timeout_s" "$ptxvm" exec --device gpu --passes=regalloc,verify --max-registers=24 \
    --spill=divergence --report "$log.json" -- "$prog" >"$log.out" 2>"$log.err" ;;
  all) timeout "$timeout_s" "$ptxvm" exec --device gpu --passes=verify,strip-debug,uniform-branches \
    --report "$log.json" -- "$prog" >"$log.out" 2>"$log.err" ;;
  esac
  status=$?
  end=$(date +%s%N)
  printf '%s %s %s' "$status" "$(((end - start) / 1000000))ms" "$(md5sum <"$log.out" | cut -c1-8)"
}

[[ -n ${SKIP_APPS:-} ]] || {
  printf '%-34s' program
  for m in "${modes[@]}"; do printf ' %-24s' "$m(status,ms,stdout)"; done
  printf ' %-8s %s\n' agree "modules(uni)"
  for prog in "$apps"/* "$apps"/misuse/*; do
    [[ -f $prog && -x $prog && $prog != *.so* ]] || continue
    name=$(basename "$prog")
    [[ $prog == */misuse/* ]] && name=misuse.$name
    printf '%-34s' "$name"
    first="" agree=yes
    for m in "${modes[@]}"; do
      r=$(run_mode "$m" "$prog" "$name")
      printf ' %-24s' "$r"
      key="${r%% *} ${r##* }" # status and stdout hash
      [[ -z $first ]] && first=$key
      [[ $key != "$first" ]] && agree=NO
    done
    # The driver's load (JIT) seconds of each module, and how many the passes rewrote.
    json="$out/runs/$name.uni.json"
    [[ -f $json ]] || json="$out/runs/$name.ra.json"
    load=$(grep -o '"load_seconds":[0-9.eE+-]*' "$json" 2>/dev/null | cut -d: -f2 | tr '\n' ' ')
    rewritten=$(grep -o '"outcome":"rewritten"' "$json" 2>/dev/null | wc -l)
    load="$rewritten rewritten, load ${load:--}"
    printf ' %-8s %s\n' "$agree" "$load"
  done
} >"$out/TABLE"
cat "$out/TABLE"

# GPU-truth cases, recorded again under the shim with the passes and by gpu_record's own passes.
compare_cases() { # compare_cases DIR LABEL: each .out against tests/gpu/results
  local dir=$1 label=$2 differ=0 same=0 name rewritten
  for f in "$dir"/*.out; do
    name=$(basename "$f")
    if diff -q <(grep -v '^watchdog\|^passes' "tests/gpu/results/$name") <(grep -v '^watchdog\|^passes' "$f") \
      >/dev/null; then
      same=$((same + 1))
    else
      differ=$((differ + 1))
      echo "== $label $name" >>"$out/cases.diff"
      diff "tests/gpu/results/$name" "$f" | head -20 >>"$out/cases.diff"
    fi
  done
  rewritten=$(cat "$dir"/report.*.json 2>/dev/null | grep -o '"outcome":"rewritten"' | wc -l)
  echo "GPU-truth cases $label: $same identical to tests/gpu/results, $differ differ; $rewritten modules" \
    "rewritten by the shim" | tee -a "$out/TABLE"
}
record=$apps/bin/gpu_record
cases=(tests/gpu/cases/*.case tests/gpu/barrier-table/*.case)
if [[ -x $record && -z ${SKIP_CASES:-} ]]; then
  mkdir -p "$out/cases" "$out/cases-device"
  timeout 500 "$ptxvm" exec --device gpu --passes=verify,uniform-branches --report "$out/cases/report.%p.json" -- \
    "$record" --root . --out-dir "$out/cases" --timeout 5 "${cases[@]}" >"$out/cases.log" 2>&1
  compare_cases "$out/cases" "under the shim with verify,uniform-branches"
  timeout 500 "$record" --passes verify,uniform-branches --root . --out-dir "$out/cases-device" --timeout 5 \
    "${cases[@]}" >"$out/cases-device.log" 2>&1
  compare_cases "$out/cases-device" "by gpu_record --passes verify,uniform-branches (the GPU device)"
fi
