#!/usr/bin/env bash
# package.sh BUILD: builds the Debian package of BUILD with CPack, checks its name and its
# dependencies on the Debian libraries ptxvm links, unpacks it into a scratch root (dpkg -x)
# and runs `ptxvm --version` and the bundled CUDA program from there.
set -uo pipefail
build=$(cd "$1" && pwd)
source "$(dirname "$0")/checks.sh"

if ! cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/package" >"$work/cpack.log" 2>&1; then
  cat "$work/cpack.log"
  echo "FAIL: cpack -G DEB"
  exit 1
fi
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
arch=$(dpkg --print-architecture)
deb=$work/package/ptxvm_${version}_${arch}.deb
check "the package is named ptxvm_${version}_${arch}.deb" test -f "$deb"
[[ -f $deb ]] || exit 1

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for library in libc6 libstdc++6 libzstd1 liblz4-1; do
  check "depends on $library" grep -qE "(^|, )${library//+/\\+}( |,|$)" <<<"$depends"
done
if grep -q '^PTXVM_ANTLR:BOOL=ON' "$build/CMakeCache.txt"; then
  check "depends on the ANTLR 4.9 runtime" grep -qE "(^|, )libantlr4-runtime4\.9( |,|$)" <<<"$depends"
fi
if grep -q '^PTXVM_CPU_DEVICE:BOOL=ON' "$build/CMakeCache.txt"; then
  check "depends on LLVM 19" grep -qE "(^|, )libllvm19( |,|$)" <<<"$depends"
fi
contents=$(dpkg-deb -c "$deb")
for file in ./usr/bin/ptxvm ./usr/lib/ptxvm/libcudart.so.13 ./usr/lib/cmake/ptxvm/ptxvmConfig.cmake \
  ./usr/include/ptxvm/ptx/IR.h ./usr/share/man/man1/ptxvm.1 ./usr/share/bash-completion/completions/ptxvm; do
  check "packages $file" grep -qF " $file" <<<"$contents"
done

dpkg -x "$deb" "$work/root"
unset PTXVM_CUDART_DIR PTXVM_SHIM_DIR LD_LIBRARY_PATH
cd "$work"
check "ptxvm --version from the package" bash -c "'$work/root/usr/bin/ptxvm' --version | grep -qx 'ptxvm $version'"
app=$work/root/usr/share/ptxvm/examples/vector_add
if [[ -x $app ]]; then
  LD_DEBUG=libs "$work/root/usr/bin/ptxvm" exec -- "$app" >"$work/app.out" 2>"$work/app.err"
  check "the bundled app passes from the package" grep -q PASSED "$work/app.out"
  check "with the package's libcudart.so.13" grep -qF "calling init: $work/root/usr/lib/ptxvm/libcudart.so.13" "$work/app.err"
else
  echo "note: no bundled app (built without nvcc)"
fi

finish package
