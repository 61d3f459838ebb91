#!/usr/bin/env bash
# The main job: set up, build ptxvm, build a bundled CUDA program with
# `nvcc -cudart shared`, and run it unmodified under `ptxvm exec` on the SIMT
# emulator: its own output, then the checker summary. Then a misuse program
# (an out-of-bounds write) to show a diagnostic, and the PTX tools on a
# bundled kernel.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh ptxvm cudart
nvcc=/usr/local/cuda/bin/nvcc
flags=$(grep -v '^#' kernels/apps/nvcc.flags | tr '\n' ' ')
mkdir -p build/main
if [[ -x $nvcc ]]; then
  for app in warp_specialized misuse/oob_write; do
    # shellcheck disable=SC2086
    "$nvcc" $flags kernels/apps/$app.cu -o build/main/$(basename $app)
  done
  echo "== ptxvm exec --report build/main/report.json -- build/main/warp_specialized"
  echo "   (a CudaDMA-style producer/consumer pipeline over bar.arrive/bar.sync)"
  build/bin/ptxvm exec --report build/main/report.json -- build/main/warp_specialized
  python3 - build/main/report.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ti = sum(l.get("thread_instructions", 0) for l in r["launches"])
print(f"== checker summary: {len(r['launches'])} launches, {ti} thread-instructions, "
      f"{len(r['diagnostics'])} diagnostics")
for l in r["launches"]:
    print(f"   {l['kernel']}: grid {l['grid']} block {l['block']} {l['status']}")
PY
  echo "== ptxvm exec -- build/main/oob_write   (writes one element past a cudaMalloc allocation)"
  build/bin/ptxvm exec -- build/main/oob_write || true
else
  echo "nvcc not found at $nvcc: skipping the CUDA program"
fi
kernel=kernels/ptx/named_barriers.ptx
echo "== ptxvm verify $kernel && ptxvm stats $kernel"
build/bin/ptxvm verify "$kernel"
build/bin/ptxvm stats "$kernel"
