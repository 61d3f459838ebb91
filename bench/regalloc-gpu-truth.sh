#!/usr/bin/env bash
# Records the GPU-truth set (tests/gpu/cases, tests/gpu/barrier-table) on a GPU with every
# module allocated by `regalloc` (issue 13, item 4), in the configurations CONFIGS names
# (default below: K=24 by the lattice, K=16 all local, K=16 graph colouring by the lattice,
# K=24 without live-range splitting), and compares each case's results with
# tests/gpu/results (lines `watchdog` and `passes` apart). Writes $OUT/ra-truth/<config>/ and
# $OUT/ra-truth/TABLE (identical / differing per configuration, and the diffs).
# Run from the repository root; GPU_RECORD defaults to gpu-apps/bin/gpu_record.
set -uo pipefail
record=${GPU_RECORD:-gpu-apps/bin/gpu_record}
out=${OUT:?set OUT}/ra-truth
mkdir -p "$out"
read -r -a configs <<<"${CONFIGS:-max-registers=24,spill=divergence max-registers=16,spill=local \
max-registers=16,spill=divergence,allocator=graph-coloring max-registers=24,spill=divergence,split=no}"
cases=(tests/gpu/cases/*.case tests/gpu/barrier-table/*.case)
{
  echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)," \
    "CUDA $(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p'), $(date -u +%Y-%m-%d)"
  for config in "${configs[@]}"; do
    dir=$out/${config//[=,]/_}
    mkdir -p "$dir"
    timeout 280 "$record" --passes regalloc,verify --pass-options "$config" --root . --out-dir "$dir" --timeout 5 \
      "${cases[@]}" >"$dir/log" 2>&1
    same=0 differ=0
    for f in "$dir"/*.out; do
      name=$(basename "$f")
      if diff -q <(grep -v '^watchdog\|^passes' "tests/gpu/results/$name") \
        <(grep -v '^watchdog\|^passes' "$f") >/dev/null 2>&1; then
        same=$((same + 1))
      else
        differ=$((differ + 1))
        echo "== $config $name" >>"$out/diffs"
        diff "tests/gpu/results/$name" "$f" 2>&1 | head -12 >>"$out/diffs"
      fi
    done
    echo "$config: $same identical to tests/gpu/results, $differ differ"
  done
} >"$out/TABLE"
cat "$out/TABLE"
