#!/usr/bin/env bash
# Regenerates the committed fatbin fixtures of this directory from saxpy.cu and rdc_*.cu with
# nvcc (13.0 made the committed ones). Each fixture is what nvcc embeds in a program:
#   *.fatbin           one container, as `nvcc -fatbin` writes it (the `.nv_fatbin` payload of
#                      one translation unit)
#   exe_nv_fatbin.bin  the whole `.nv_fatbin` section of an executable (device-link container
#                      and the translation unit's container, back to back)
#   rdc_relfatbin.bin  the `__nv_relfatbin` section of an -rdc=true executable (one container
#                      per translation unit)
set -euo pipefail
cd "$(dirname "$0")"
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

three_targets=(-gencode arch=compute_75,code=[sm_75,compute_75] -gencode arch=compute_90,code=compute_90)
"$nvcc" -fatbin "${three_targets[@]}" saxpy.cu -o zstd.fatbin
"$nvcc" -fatbin "${three_targets[@]}" -compress-mode=speed saxpy.cu -o lz4.fatbin
"$nvcc" -fatbin "${three_targets[@]}" -compress-mode=size saxpy.cu -o size.fatbin
"$nvcc" -fatbin "${three_targets[@]}" --no-compress saxpy.cu -o none.fatbin
"$nvcc" -fatbin -gencode arch=compute_80,code=compute_80 -G saxpy.cu -o debug.fatbin
"$nvcc" -fatbin -gencode arch=compute_100,code=compute_100 -gencode arch=compute_120,code=compute_120 \
  saxpy.cu -o newer.fatbin
"$nvcc" -fatbin -gencode arch=compute_90a,code=compute_90a -gencode arch=compute_90,code=compute_90 \
  -gencode arch=compute_80,code=compute_80 saxpy.cu -o archspecific.fatbin

"$nvcc" -cudart shared -arch=sm_80 saxpy.cu -o "$work/saxpy"
objcopy -O binary --only-section=.nv_fatbin "$work/saxpy" exe_nv_fatbin.bin

"$nvcc" -cudart shared -rdc=true -arch=sm_80 rdc_scale.cu rdc_main.cu -o "$work/rdc"
objcopy -O binary --only-section=__nv_relfatbin "$work/rdc" rdc_relfatbin.bin
ls -l ./*.fatbin ./*.bin
