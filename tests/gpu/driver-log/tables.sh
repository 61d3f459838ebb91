#!/usr/bin/env bash
# On a GPU machine with nvcc: which of the seven export tables NVIDIA's runtime (linked statically)
# needs, and whether it accepts copies of them (driver_log.c's DRIVER_LOG_HIDE / DRIVER_LOG_KEEP,
# trace.c's call tracing). Writes $OUT/tables/<variant>.{trace,out}; results/tables.txt and
# results/table-calls.txt were cut from them. Run from the repository root: OUT=<dir> tests/gpu/driver-log/tables.sh
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
out=${OUT:?set OUT}/tables
work=$(mktemp -d)
mkdir -p "$out" "$work/lib"
real=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 /{print $NF; exit}')
[[ -z $real ]] && for p in /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 /usr/local/nvidia/lib64/libcuda.so.1; do
  [[ -e $p ]] && real=$p && break
done
d=$repo/tests/gpu/driver-log
"$d/make-stubs.sh" >"$work/stubs.S" && "$d/make-stubs.sh" --trampolines >"$work/trampolines.S" &&
  gcc -shared -fPIC -O1 -o "$work/lib/libcuda.so.1" "$d/driver_log.c" "$d/trace.c" "$work/stubs.S" "$work/trampolines.S" -ldl -lpthread ||
  { echo "tables.sh: building the logger failed" >&2; exit 1; }
"$nvcc" -arch=sm_80 -std=c++17 -O2 "$d/probe.cu" -o "$work/probe" &&
  "$nvcc" -arch=sm_80 -std=c++17 -O2 "$repo/kernels/apps/vector_add.cu" -o "$work/vector_add" ||
  { echo "tables.sh: building the programs failed" >&2; exit 1; }
variant() { # name trace keep hide program
  local name=$1 trace=$2 keep=$3 hide=$4 program=$5
  (cd "$work" && DRIVER_LOG_REAL=$real DRIVER_LOG=$out/$name.trace DRIVER_LOG_TRACE=$trace DRIVER_LOG_KEEP=$keep \
    DRIVER_LOG_HIDE=$hide LD_LIBRARY_PATH=$work/lib timeout 60 "./$program" >"$out/$name.out" 2>&1
   echo "exit $?" >>"$out/$name.out")
  echo "$name: $(tail -2 "$out/$name.out" | tr '\n' ' ')"
}
tables=(f8cf 6bd5 a094 42d8 c693 263e d408)
all=$(IFS=,; echo "${tables[*]}")
variant passthrough 1 "$all" "" probe
for t in "${tables[@]}"; do
  variant "hide-$t" 0 "" "$t" vector_add
  variant "copy-$t" 1 "$(IFS=,; printf '%s' "${tables[*]/$t/}" | sed 's/,,/,/; s/^,//; s/,$//')" "" probe
done
variant copy-but-d408 1 d408 "" probe
rm -rf "$work"
echo "tables.sh: done"
