#!/usr/bin/env bash
# Runs every program that prepare.sh put into gpu-apps/ on this machine's GPU, each under a
# watchdog, and records what happened into $OUT/apps/<name>.txt (misuse programs into
# $OUT/apps/misuse/<name>.txt), plus $OUT/apps/ENVIRONMENT and $OUT/apps/SUMMARY. The format is
# described in tests/gpu/apps/README.md; expect.py gpu-results checks the files.
# Needs no CUDA toolkit: the programs load gpu-apps/libcudart.so.13 and the driver's libcuda.
# Run from the repository root:
#   OUT=<dir> tests/gpu/apps/run.sh          (or: tests/gpu/apps/run.sh <dir>)
# Environment: APPS_DIR (default gpu-apps), APP_TIMEOUT (seconds per program, default 20).
# Exit status: 0 when a GPU was found and every program was run, 1 without a GPU, 2 on usage errors.
set -uo pipefail

out_root=${1:-${OUT:-}}
if [[ -z $out_root ]]; then
  echo "usage: OUT=<dir> $0   (or $0 <dir>)" >&2
  exit 2
fi
apps_dir=${APPS_DIR:-gpu-apps}
timeout_s=${APP_TIMEOUT:-20}
if [[ ! -d $apps_dir ]]; then
  echo "run.sh: no $apps_dir/ here: run tests/gpu/apps/prepare.sh first, then run this from the repository root" >&2
  exit 2
fi
apps_abs=$(cd "$apps_dir" && pwd)
out=$out_root/apps
mkdir -p "$out/misuse"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# ---- the machine ----------------------------------------------------------------------------
gpu=none compute_capability=none driver=none cuda_driver=none
if command -v nvidia-smi >/dev/null 2>&1 &&
  query=$(nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>&1 | head -1) &&
  [[ $query == *,* ]]; then
  IFS=, read -r gpu compute_capability driver <<<"$query"
  gpu=$(echo "$gpu" | xargs) compute_capability=$(echo "$compute_capability" | xargs) driver=$(echo "$driver" | xargs)
  cuda_driver=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -1)
  cuda_driver=${cuda_driver:-unknown}
else
  echo "run.sh: no GPU found: ${query:-nvidia-smi is not installed}" >&2
fi
{
  echo "gpu $gpu"
  echo "compute_capability $compute_capability"
  echo "driver $driver"
  echo "cuda_driver $cuda_driver"
  echo "timeout_seconds $timeout_s"
  echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host $(uname -srm)"
  [[ -f $apps_dir/MANIFEST ]] && sed -n 's/^\(nvcc\|flags\) /built_\1 /p' "$apps_dir/MANIFEST"
} >"$out/ENVIRONMENT"

# ---- the programs ---------------------------------------------------------------------------
programs=()
for path in "$apps_dir"/* "$apps_dir"/misuse/*; do
  [[ -f $path && -x $path && $path != *libcudart* ]] && programs+=("${path#"$apps_dir"/}")
done
echo "run.sh: ${#programs[@]} programs, GPU: $gpu (driver $driver, CUDA $cuda_driver), watchdog ${timeout_s} s"

printf '# %-34s %-12s %s\n' program outcome seconds >"$out/SUMMARY"
for name in "${programs[@]}"; do
  start_ns=$(date +%s%N)
  LD_LIBRARY_PATH="$apps_abs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    timeout -k 5 "$timeout_s" "$apps_abs/$name" </dev/null >"$scratch/stdout" 2>"$scratch/stderr"
  status=$?
  elapsed_ms=$((($(date +%s%N) - start_ns) / 1000000))
  seconds=$(printf '%d.%02d' $((elapsed_ms / 1000)) $((elapsed_ms % 1000 / 10)))
  # timeout exits 124 after SIGTERM, 137 when it had to SIGKILL the program.
  if [[ $status == 124 ]] || { [[ $status == 137 ]] && ((elapsed_ms >= timeout_s * 1000)); }; then
    outcome=hang
  elif ((status > 128)); then
    outcome="signal $((status - 128))"
  else
    outcome="exit $status"
  fi
  {
    echo "# ptxvm gpu apps result v1 (tests/gpu/apps/README.md)"
    echo "program $name"
    echo "gpu $gpu"
    echo "compute_capability $compute_capability"
    echo "driver $driver"
    echo "cuda_driver $cuda_driver"
    echo "timeout_seconds $timeout_s"
    echo "outcome $outcome"
    echo "seconds $seconds"
    sed 's/^/stdout /' "$scratch/stdout"
    sed 's/^/stderr /' "$scratch/stderr"
    echo "end"
  } >"$out/$name.txt"
  printf '  %-34s %-12s %s\n' "$name" "$outcome" "$seconds" | tee -a "$out/SUMMARY"
done

if [[ $gpu == none ]]; then
  echo "run.sh: recorded into $out, but there is no GPU here: these are not GPU results" >&2
  exit 1
fi
echo "run.sh: recorded into $out"
exit 0
