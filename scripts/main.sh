#!/usr/bin/env bash
# The main job: set up, build, and run ptxvm on a bundled kernel (parse,
# verify, print its summary, re-emit it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh ptxvm
kernel=kernels/ptx/named_barriers.ptx
echo "== ptxvm verify $kernel"
build/bin/ptxvm verify "$kernel"
echo "== ptxvm stats $kernel"
build/bin/ptxvm stats "$kernel"
echo "== ptxvm fmt $kernel (re-emitted PTX)"
build/bin/ptxvm fmt "$kernel" -o build/named_barriers.fmt.ptx
head -n 40 build/named_barriers.fmt.ptx
echo "... (whole file: build/named_barriers.fmt.ptx)"
echo "== ptxvm run: an indirect-branch kernel on the SIMT emulator"
build/bin/ptxvm run kernels/ptx/brx_idx.ptx --kernel jt_dispatch --grid 2 --block 128 \
  --arg buf:1024:random=1 --arg buf:1024:iota.u32 --arg buf:1024 --arg s32:256 --stats
if [[ -x /usr/local/cuda/bin/ptxas ]]; then
  arch=$(sed -n 's/.*ptxas-arch: *\(sm_[0-9a-z]*\).*/\1/p' "$kernel" | head -n1)
  /usr/local/cuda/bin/ptxas -arch="${arch:-sm_80}" build/named_barriers.fmt.ptx -o /dev/null
  echo "== ptxas accepts the re-emitted PTX (${arch:-sm_80})"
fi
