#!/usr/bin/env bash
# install.sh BUILD SOURCE: `cmake --install BUILD` into a scratch prefix, then the prefix is
# moved (an install must not depend on where it was made) and used with nothing of the build
# tree in reach: no RUNPATH into it, no PTXVM_* or LD_LIBRARY_PATH pointing there. Checks
# --version, the bundled CUDA program through the installed `ptxvm exec` (and that it loads the
# installed libcudart.so.13), the man page, the bash completion, and the embedding example
# built against the installed CMake package.
set -uo pipefail
build=$(cd "$1" && pwd) source=$(cd "$2" && pwd)
source "$(dirname "$0")/checks.sh"

if ! cmake --install "$build" --prefix "$work/staging" --strip >"$work/install.log" 2>&1; then
  cat "$work/install.log"
  echo "FAIL: cmake --install"
  exit 1
fi
mv "$work/staging" "$work/prefix"
prefix=$work/prefix
cd "$work" # any directory but the build's
# Nothing points back at the build tree.
unset PTXVM_CUDART_DIR PTXVM_SHIM_DIR LD_LIBRARY_PATH
for elf in "$prefix"/bin/ptxvm "$prefix"/lib/ptxvm/libcudart.so.13 "$prefix"/lib/ptxvm/cuda-shim/libcuda.so.1; do
  [[ -e $elf ]] || { fail "missing $elf"; continue; }
  check "no RUNPATH of $(basename "$elf") into the build tree" \
    bash -c "! readelf -d '$elf' | grep -E 'R(UN)?PATH' | grep -qF '$build'"
done
for file in include/ptxvm/ptx/IR.h include/ptxvm/analysis/Divergence.h include/ptxvm/emulator/Kernel.h \
  include/ptxvm/ptx/table/All.def lib/cmake/ptxvm/ptxvmConfig.cmake lib/cmake/ptxvm/ptxvmConfigVersion.cmake \
  share/man/man1/ptxvm.1 share/bash-completion/completions/ptxvm share/doc/ptxvm/README.md \
  share/doc/ptxvm/examples/divergent-branches/main.cpp; do
  check "installed $file" test -f "$prefix/$file"
done

version=$("$prefix/bin/ptxvm" --version)
check "--version" grep -qE '^ptxvm [0-9]+\.[0-9]+\.[0-9]+$' <<<"$version"
check "--version names the commit" grep -qE '^commit: ([0-9a-f]{12}(-dirty)?|unknown)$' <<<"$version"

app=$prefix/share/ptxvm/examples/vector_add
if [[ -x $app ]]; then
  LD_DEBUG=libs "$prefix/bin/ptxvm" exec --report "$work/report.json" -- "$app" >"$work/app.out" 2>"$work/app.err"
  status=$?
  check "the bundled app passes under the installed ptxvm exec (status $status)" grep -q PASSED "$work/app.out"
  check "it loads the installed libcudart.so.13" grep -qF "calling init: $prefix/lib/ptxvm/libcudart.so.13" "$work/app.err"
  check "its report names the build" python3 -c "
import json, sys
r = json.load(open('$work/report.json'))
sys.exit(0 if r['ptxvm']['version'] and r['launches'] else 1)"
else
  echo "note: no bundled app (built without nvcc): ptxvm exec not checked"
fi

# The man page renders (man-db, else groff), and names every command.
if command -v man >/dev/null; then
  MANWIDTH=100 man -l "$prefix/share/man/man1/ptxvm.1" >"$work/man.txt" 2>"$work/man.err"
elif command -v groff >/dev/null; then
  groff -man -Tutf8 "$prefix/share/man/man1/ptxvm.1" >"$work/man.txt" 2>"$work/man.err"
else
  cp "$prefix/share/man/man1/ptxvm.1" "$work/man.txt"
fi
for command in fmt verify stats dump analyze opt run exec completion; do
  check "man page: $command" grep -qE "^ +$command\$|^\.SS $command\$" "$work/man.txt"
done
check "man page: no roff warnings" test ! -s "$work/man.err"

completion=$(bash -c 'source "$1"; COMP_WORDS=(ptxvm run --device ""); COMP_CWORD=3; _ptxvm; echo "${COMPREPLY[*]}"' \
  _ "$prefix/share/bash-completion/completions/ptxvm")
check "bash completion of run --device" test "$completion" = "emulator cpu gpu"

# find_package(ptxvm) from the installed prefix: the example, built and run.
if cmake -S "$prefix/share/doc/ptxvm/examples/divergent-branches" -B "$work/example" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >"$work/example.log" 2>&1 &&
  cmake --build "$work/example" >>"$work/example.log" 2>&1; then
  "$work/example/divergent-branches" "$source/tests/install/branches.ptx" >"$work/example.out" 2>&1
  check "the example finds the divergent branch" diff -u - "$work/example.out" <<'OUT'
branches: branches line 21: divergent branch
branches: 1 of 2 branches divergent
OUT
else
  tail -n 30 "$work/example.log"
  fail "building the example against the installed package"
fi

finish install
