#!/usr/bin/env bash
# Times the register allocator's output on a GPU (issue 13, item 6). For each kernel of
# kernels/register_pressure.cu and each budget K, the kernel runs under `ptxvm run --device gpu`
# (the driver JIT-compiles the PTX ptxvm writes) in these variants:
#   d      the original PTX, no register limit
#   a      the original PTX with .maxnreg K            (= ptxas -maxrregcount=K)
#   b      regalloc --spill=local, .maxnreg K          (every spill in local memory)
#   c      regalloc --spill=divergence, .maxnreg K     (spills placed by the lattice)
#   b-ns   b with --split=no                           (spill everywhere: no live-range splitting)
#   c-ns   c with --split=no
#   c-gc   c with --allocator=graph-coloring          (Chaitin-Briggs instead of linear scan)
#   c-rl   c with --reload=yes                         (read-only values loaded again where read)
#   c-r8   c allocated into K-8, .maxnreg K            (8 registers left to ptxas)
#   auto   regalloc --spill=auto, .maxnreg K           (the cost model may leave the kernel as it is)
# Last, bench/ptx/uniform_store.ptx: a warp-uniform spill stored by every lane or by lane 0.
# Each line: kernel, K, variant, min and median kernel time over REPEAT launches (events), and
# the registers and local memory per thread the driver compiled it to.
# VARIANTS="a c auto" picks variants (d always runs).
# Run from the repository root with PTXVM=path/to/ptxvm (default gpu-apps/bin/ptxvm); writes
# $OUT/regalloc/TABLE and the logs next to it.
set -uo pipefail
ptxvm=${PTXVM:-gpu-apps/bin/ptxvm}
out=${OUT:?set OUT}/regalloc
repeat=${REPEAT:-10}
ptx=tests/gpu/ptx/register_pressure.sm_80.ptx
mkdir -p "$out/logs"

# kernel | budgets | launch and arguments (large enough to fill the GPU)
declare -A shape budgets
shape[rp_chemistry]="--grid 1024 --block 128 --arg buf:384:fill.f32=1.0 --arg buf:4194304:fill.f32=1000 \
  --arg buf:67108864:fill.f32=0.5 --arg buf:67108864 --arg s32:1048576"
budgets[rp_chemistry]="48 64 80"
shape[rp_stencil]="--grid 32,64 --block 128 --arg buf:67304016:fill.f32=1.0 --arg buf:196:fill.f32=0.5 \
  --arg buf:67108864 --arg s32:4102 --arg s32:4102 --arg s32:64"
budgets[rp_stencil]="40 56 64"
shape[rp_sgemm]="--grid 16,16 --block 16,16 --arg buf:16777216:fill.f32=1.0 --arg buf:16777216:fill.f32=0.5 \
  --arg buf:16777216 --arg s32:2048 --arg s32:2048 --arg s32:2048"
budgets[rp_sgemm]="48 64 80"
shape[rp_nbody]="--grid 128 --block 128 --arg buf:2097152:fill.f32=1.0 --arg buf:2097152 --arg s32:131072"
budgets[rp_nbody]="32 40 48"

variant_flags() { # variant K
  case $1 in
  d) echo "" ;;
  a) echo "--passes=maxnreg --max-registers=$2" ;;
  b) echo "--passes=regalloc,verify --max-registers=$2 --spill=local --maxnreg=yes" ;;
  c) echo "--passes=regalloc,verify --max-registers=$2 --spill=divergence --maxnreg=yes" ;;
  b-ns) echo "--passes=regalloc,verify --max-registers=$2 --spill=local --split=no --maxnreg=yes" ;;
  c-ns) echo "--passes=regalloc,verify --max-registers=$2 --spill=divergence --split=no --maxnreg=yes" ;;
  c-gc) echo "--passes=regalloc,verify --max-registers=$2 --spill=divergence --allocator=graph-coloring --maxnreg=yes" ;;
  c-rl) echo "--passes=regalloc,verify --max-registers=$2 --spill=divergence --reload=yes --maxnreg=yes" ;;
  c-r8) echo "--passes=regalloc,verify --max-registers=$2 --reserve=8 --spill=divergence --maxnreg=yes" ;;
  auto) echo "--passes=regalloc,verify --max-registers=$2 --spill=auto --maxnreg=yes" ;;
  esac
}

{
  echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)," \
    "CUDA $(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p'), $(date -u +%Y-%m-%d)," \
    "$repeat launches each"
  printf '%-14s %4s %-6s %10s %10s %5s %7s\n' kernel K variant min_ms median_ms regs local_B
  for kernel in rp_chemistry rp_stencil rp_sgemm rp_nbody; do
    for k in - ${budgets[$kernel]}; do
      if [[ $k == - ]]; then variants=(d); else read -r -a variants <<<"${VARIANTS:-a b c c-rl c-r8 auto}"; fi
      for v in "${variants[@]}"; do
        log="$out/logs/$kernel.$k.$v.log"
        # shellcheck disable=SC2086
        timeout 120 "$ptxvm" run "$ptx" --device gpu --kernel "$kernel" ${shape[$kernel]} \
          $(variant_flags "$v" "$k") --repeat "$repeat" --stats >"$log" 2>&1
        status=$?
        min=$(sed -n 's/.*launches: min \([0-9.]*\) ms, median \([0-9.]*\) ms.*/\1/p' "$log")
        med=$(sed -n 's/.*launches: min \([0-9.]*\) ms, median \([0-9.]*\) ms.*/\2/p' "$log")
        regs=$(sed -n 's/.*registers per thread: \([0-9]*\), local memory per thread: \([0-9]*\) bytes.*/\1/p' "$log")
        local=$(sed -n 's/.*registers per thread: \([0-9]*\), local memory per thread: \([0-9]*\) bytes.*/\2/p' "$log")
        [[ $status -eq 0 ]] || min="exit$status"
        printf '%-14s %4s %-6s %10s %10s %5s %7s\n' "$kernel" "$k" "$v" "${min:--}" "${med:--}" "${regs:--}" "${local:--}"
      done
    done
  done
  # Which lanes store a warp-uniform spill (bench/ptx/uniform_store.ptx): all, or lane 0 with
  # bar.warp.sync around the reload. 132 SMs x 4 CTAs of 1024 threads, 20000 spills each.
  for kernel in store_all store_lane0; do
    log="$out/logs/uniform_store.$kernel.log"
    timeout 120 "$ptxvm" run bench/ptx/uniform_store.ptx --device gpu --kernel "$kernel" --grid 528 --block 1024 \
      --arg buf:2162688 --arg u32:20000 --repeat "$repeat" --stats >"$log" 2>&1
    min=$(sed -n 's/.*launches: min \([0-9.]*\) ms, median \([0-9.]*\) ms.*/\1/p' "$log")
    med=$(sed -n 's/.*launches: min \([0-9.]*\) ms, median \([0-9.]*\) ms.*/\2/p' "$log")
    printf '%-14s %4s %-6s %10s %10s\n' uniform_store - "${kernel#store_}" "${min:--}" "${med:--}"
  done
} | tee "$out/TABLE"
