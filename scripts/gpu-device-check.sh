#!/usr/bin/env bash
# Runs corpus kernels with `ptxvm run` on the real GPU (--device gpu) and on
# the emulator, and compares their output buffers byte for byte. For the
# machine with the GPU: PTXVM names the ptxvm binary, CORPUS the folder of
# PTX files (kernels/*.cu compiled for sm_80). Prints one line per case and
# exits 1 when a case disagrees.
set -uo pipefail
ptxvm=${PTXVM:?ptxvm binary} corpus=${CORPUS:?corpus folder}
out=$(mktemp -d)
status=0
# name | file | kernel | grid | block | arguments (buffers named >OUT are compared)
cases=(
  "vec_add|algorithms.sm_80.ptx|vec_add|8|128|buf:4K:iota.f32 buf:4K:iota.f32 buf:4K>OUT u32:1000"
  "saxpy|algorithms.sm_80.ptx|saxpy|4|256|u32:1024 f32:2.5 buf:4K:iota.f32 buf:4K:fill.f32=1>OUT"
  "sgemm_tiled|algorithms.sm_80.ptx|sgemm_tiled|4,4|16,16|buf:16K:iota.f32 buf:16K:fill.f32=0.5 buf:16K>OUT u32:64 u32:64 u32:64"
  "mandelbrot|algorithms.sm_80.ptx|mandelbrot|16,16|16,16|buf:64K>OUT u32:256 u32:256 u32:64"
  "histogram_256|algorithms.sm_80.ptx|histogram_256|8|256|buf:64K:random=3 buf:1K>OUT u32:65536"
  "fault-bad-pointer|algorithms.sm_80.ptx|vec_add|1|32|buf:128 buf:128 u64:16 u32:32"
)
printf '%-20s %-12s %-12s %-8s %s\n' case emulator gpu outputs "gpu details"
for c in "${cases[@]}"; do
  IFS='|' read -r name file kernel grid block args <<<"$c"
  for dev in emulator gpu; do
    argv=()
    for a in $args; do argv+=(--arg "${a//OUT/$out/$name.$dev.bin}"); done
    "$ptxvm" run "$corpus/$file" --kernel "$kernel" --grid "$grid" --block "$block" "${argv[@]}" \
      --device "$dev" --stats >"$out/$name.$dev.log" 2>&1
    echo $? >"$out/$name.$dev.rc"
  done
  e=$(grep -m1 -E "^$kernel: " "$out/$name.emulator.log" | sed -E 's/^[^:]*: ([a-z]+)( with ([A-Za-z]+))?.*/\1 \3/')
  g=$(grep -m1 -E "^$kernel: " "$out/$name.gpu.log" | sed -E 's/^[^:]*: ([a-z]+)( with ([A-Za-z]+))?.*/\1 \3/')
  same=n/a
  if [[ -f $out/$name.emulator.bin || -f $out/$name.gpu.bin ]]; then
    if cmp -s "$out/$name.emulator.bin" "$out/$name.gpu.bin"; then same=equal; else same=DIFFER; status=1; fi
  fi
  [[ "$e" == "$g" ]] || status=1
  details=$(grep -E "registers per thread" "$out/$name.gpu.log" | sed 's/^ *//')
  printf '%-20s %-12s %-12s %-8s %s\n' "$name" "${e:-?}" "${g:-?}" "$same" "$details"
  [[ "$e" == "$g" && "$same" != DIFFER ]] || { echo "--- emulator:"; cat "$out/$name.emulator.log"; echo "--- gpu:"; cat "$out/$name.gpu.log"; }
done
exit $status
