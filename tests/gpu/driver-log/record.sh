#!/usr/bin/env bash
# On a GPU machine with nvcc: what NVIDIA's runtime asks of the driver, and the driver API test
# programs run natively. Writes into $OUT/driver-log/:
#   <program>.log        driver_log.c's log (cuGetProcAddress calls, export tables, direct calls)
#   <program>.out        stdout and stderr of the program
#   native-driver.out    tests/runtime/programs/driver.cu against the real driver
#   native-driver_mixed.out
# Run from the repository root: OUT=<dir> tests/gpu/driver-log/record.sh
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
out=${OUT:?set OUT}/driver-log
work=$(mktemp -d)
mkdir -p "$out"
real=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 /{print $NF; exit}')
[[ -z $real ]] && for p in /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1; do [[ -e $p ]] && real=$p && break; done
echo "real driver: $real" | tee "$out/ENVIRONMENT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >>"$out/ENVIRONMENT" 2>&1
"$nvcc" --version | tail -1 >>"$out/ENVIRONMENT"

"$repo/tests/gpu/driver-log/make-stubs.sh" >"$work/stubs.S"
"$repo/tests/gpu/driver-log/make-stubs.sh" --trampolines >"$work/trampolines.S"
mkdir -p "$work/lib"
gcc -shared -fPIC -O1 -o "$work/lib/libcuda.so.1" "$repo/tests/gpu/driver-log/driver_log.c" \
  "$repo/tests/gpu/driver-log/trace.c" "$work/stubs.S" "$work/trampolines.S" -ldl -lpthread ||
  { echo "record.sh: building the logger failed" >&2; exit 1; }

programs=$repo/tests/runtime/programs
apps=$repo/kernels/apps
build() { # name source flags...
  local name=$1 src=$2
  shift 2
  "$nvcc" -arch=sm_80 -std=c++17 -O2 "$@" "$src" -o "$work/$name" 2>"$out/$name.build" || echo "build failed: $name" >>"$out/$name.build"
}
build vector_add_static "$apps/vector_add.cu" -cudart static
build vector_add_shared "$apps/vector_add.cu" -cudart shared
build streams_static "$apps/streams_events.cu" -cudart static
build graphs_static "$apps/graphs.cu" -cudart static
build driver_api_static "$apps/driver_api.cu" -cudart static
build driver "$programs/driver.cu" -cudart shared -lcuda
build driver_mixed "$programs/driver_mixed.cu" -cudart shared -lcuda
"$nvcc" -fatbin -arch=sm_80 "$programs/Inputs/driver_kernels.cu" -o "$work/driver_kernels.fatbin"
"$nvcc" -cubin -arch=sm_80 "$programs/Inputs/driver_kernels.cu" -o "$work/driver_kernels.cubin"

cudart_dir=$(dirname "$(dirname "$nvcc")")/lib64
for name in vector_add_static vector_add_shared streams_static graphs_static driver_api_static; do
  rm -f "$out/$name.log"
  DRIVER_LOG_REAL=$real DRIVER_LOG=$out/$name.log LD_LIBRARY_PATH=$work/lib:$cudart_dir \
    timeout 60 "$work/$name" >"$out/$name.out" 2>&1
  echo "exit $?" >>"$out/$name.out"
done
(cd "$work" && LD_LIBRARY_PATH=$cudart_dir timeout 60 ./driver driver_kernels.fatbin driver_kernels.cubin >"$out/native-driver.out" 2>&1;
 echo "exit $?" >>"$out/native-driver.out")
(cd "$work" && LD_LIBRARY_PATH=$cudart_dir timeout 60 ./driver_mixed >"$out/native-driver_mixed.out" 2>&1;
 echo "exit $?" >>"$out/native-driver_mixed.out")
rm -rf "$work"
echo "record.sh: done"
