#!/usr/bin/env bash
# Record expected outputs and hang/complete outcomes on a real NVIDIA GPU (tests/gpu/README.md).
#
#   scripts/record-gpu.sh [--out DIR] [--timeout SEC] [--missing] [--passes LIST] [CASE...]
#
# Runs gpu_record (a target of the ptxvm build: $GPU_RECORD, else build/bin/gpu_record, else
# gpu-apps/bin/gpu_record as carried to a GPU machine) on every tests/gpu/cases/*.case and
# tests/gpu/barrier-table/*.case (or the CASE files given) on GPU 0, writing
# DIR/<case>.out, DIR/ENVIRONMENT and DIR/SUMMARY (DIR defaults to tests/gpu/results).
# --missing runs only the cases that have no DIR/<case>.out yet (new cases), leaving the
# recorded ones as they are. SUMMARY always lists every case recorded in DIR.
# --passes LIST records through ptxvm's passes (the driver gets the PTX ptxvm writes).
# Each case runs in its own process; one still running after --timeout seconds (default 5)
# is killed and recorded as "hang".
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

OUT_DIR="tests/gpu/results"
TIMEOUT=5
MISSING=0
PASSES=()
CASES=()
while [[ $# -gt 0 ]]; do
    case "$1" in
    --out) OUT_DIR="$2"; shift 2 ;;
    --timeout) TIMEOUT="$2"; shift 2 ;;
    --missing) MISSING=1; shift ;;
    --passes) PASSES=(--passes "$2"); shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "record-gpu.sh: unknown option $1" >&2; exit 1 ;;
    *) CASES+=("$1"); shift ;;
    esac
done
ALL_CASES=(tests/gpu/cases/*.case tests/gpu/barrier-table/*.case)
if [[ ${#CASES[@]} -eq 0 ]]; then
    CASES=("${ALL_CASES[@]}")
fi
if [[ $MISSING -eq 1 ]]; then
    TODO=()
    for c in "${CASES[@]}"; do
        [[ -f "$OUT_DIR/$(basename "$c" .case).out" ]] || TODO+=("$c")
    done
    CASES=("${TODO[@]+"${TODO[@]}"}")
    echo "record-gpu.sh: ${#CASES[@]} case(s) without a result in $OUT_DIR" >&2
    if [[ ${#CASES[@]} -eq 0 ]]; then exit 0; fi
fi

BIN="${GPU_RECORD:-}"
for candidate in "$ROOT/build/bin/gpu_record" "$ROOT/gpu-apps/bin/gpu_record"; do
    if [[ -z "$BIN" && -x "$candidate" ]]; then BIN="$candidate"; fi
done
if [[ -z "$BIN" ]]; then
    echo "record-gpu.sh: no gpu_record: build ptxvm (cmake --build build --target gpu_record) or set GPU_RECORD" >&2
    exit 1
fi

mkdir -p "$OUT_DIR"
"$BIN" "${PASSES[@]+"${PASSES[@]}"}" --root "$ROOT" --out-dir "$OUT_DIR" --timeout "$TIMEOUT" --env "$OUT_DIR/ENVIRONMENT" "${CASES[@]}"
echo "recorded_utc $(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$OUT_DIR/ENVIRONMENT"
if command -v nvidia-smi >/dev/null 2>&1; then
    echo "nvidia_smi $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)" \
        >>"$OUT_DIR/ENVIRONMENT"
fi

# SUMMARY: case, expected outcome (from the .case), recorded outcome, for every recorded case.
{
    printf '%-36s %-38s %s\n' "# case" "expect" "outcome"
    for c in "${ALL_CASES[@]}"; do
        name="$(basename "$c" .case)"
        f="$OUT_DIR/$name.out"
        [[ -f "$f" ]] || continue
        exp="$(awk '$1=="expect"{print $2}' "$f")"
        out="$(awk '$1=="outcome"{print $2}' "$f")"
        mark=""
        if [[ -n "$exp" && "$exp" != "$out" ]]; then mark="  <-- differs"; fi
        printf '%-36s %-38s %s%s\n' "$name" "${exp:--}" "$out" "$mark"
    done
} >"$OUT_DIR/SUMMARY"
cat "$OUT_DIR/ENVIRONMENT"
cat "$OUT_DIR/SUMMARY"
