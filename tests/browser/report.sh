#!/usr/bin/env bash
# ctest browser.report_html: writes the HTML report of the deadlocking CudaDMA-style pipeline
# under `ptxvm run` (tests/lit/run/trace.ptx) and, when the CUDA test programs are built, under
# `ptxvm exec` (tests/runtime/programs/pipeline.cu, -lineinfo), checks both timelines against the
# trace-event format, then opens the pages in headless Chromium (check_report.mjs). Screenshots
# and the reports stay in BUILD/test-artifacts/browser/. Exit 77 (skipped) without a browser.
#
#   report.sh BUILD SOURCE [PROGRAMS_DIR]
set -euo pipefail
build=$1 src=$2 programs=${3:-}
out=$build/test-artifacts/browser
rm -rf "$out"
mkdir -p "$out"
if [[ ! -f $src/tests/browser/node_modules/playwright-core/package.json ]]; then
  echo "SKIP: playwright-core is not installed in tests/browser (bash scripts/setup.sh --tests installs it)"
  exit 77
fi
ptxvm=$build/bin/ptxvm

status=0
"$ptxvm" run "$src/tests/lit/run/trace.ptx" --kernel pipeline --grid 2 --block 96 --arg buf:4 \
  --report-html "$out/run" >"$out/run.log" 2>&1 || status=$?
if [[ $status -ne 1 ]]; then
  echo "FAIL: ptxvm run exited with $status, not 1 (the launch deadlocks)"
  cat "$out/run.log"
  exit 1
fi
python3 "$src/tests/lit/Inputs/trace_check.py" "$out/run/trace.json"
reports=("run=$out/run")
if [[ -n $programs && -x $programs/pipeline ]]; then
  "$ptxvm" exec --report-html "$out/exec" -- "$programs/pipeline" >"$out/exec.log" 2>&1
  grep -q "pipeline_wrong_order: cudaErrorLaunchTimeout" "$out/exec.log"
  python3 "$src/tests/lit/Inputs/trace_check.py" "$out/exec/trace.json"
  reports+=("exec=$out/exec:cuda")
else
  echo "note: the CUDA test programs are not built (no nvcc): only the ptxvm run report is checked"
fi
node "$src/tests/browser/check_report.mjs" "$out" "${reports[@]}"
echo "screenshots: $out/*.png"
