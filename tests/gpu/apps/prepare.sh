#!/usr/bin/env bash
# Builds every program of kernels/apps (apps/*.cu, apps/misuse/*.cu) with nvcc and the flags in
# kernels/apps/nvcc.flags (and a program's own "// nvcc-flags: ..." line) into gpu-apps/ at the repository root, and copies CUDA's
# libcudart.so.13 next to them, so that a GPU machine without a CUDA toolkit can run them with
# tests/gpu/apps/run.sh. Run on a machine with nvcc:
#   tests/gpu/apps/prepare.sh [OUTDIR]        (default OUTDIR: <repo>/gpu-apps)
# Environment: NVCC (default /usr/local/cuda/bin/nvcc), CUDA_LIB (default: nvcc's ../lib64),
# JOBS (parallel nvcc runs, default 2), NVCC_EXTRA (more flags, e.g. for a sanitizer build:
# "-Xcompiler -fsanitize=address,-fsanitize=undefined,-static-libasan,-static-libubsan").
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
cuda_lib=${CUDA_LIB:-$(dirname "$(dirname "$nvcc")")/lib64}
out=${1:-$repo/gpu-apps}
jobs=${JOBS:-2}

if [[ ! -x $nvcc ]]; then
  echo "prepare.sh: nvcc not found at $nvcc (set NVCC)" >&2
  exit 2
fi
if ! compgen -G "$cuda_lib/libcudart.so.13*" >/dev/null; then
  echo "prepare.sh: no libcudart.so.13 in $cuda_lib (set CUDA_LIB)" >&2
  exit 2
fi

flags=$(<"$repo/kernels/apps/nvcc.flags")
[[ -n ${NVCC_EXTRA:-} ]] && flags+=" $NVCC_EXTRA"
mkdir -p "$out/misuse"
rm -f "$out"/libcudart.so.13*

cd "$repo/kernels/apps"
sources=(*.cu misuse/*.cu)
echo "prepare.sh: building ${#sources[@]} programs into $out ($nvcc $flags)"
read -ra flag_list <<<"$flags"
# One nvcc per program, $jobs at a time; any failure fails the whole preparation.
# shellcheck disable=SC2016 # the inner script expands its own arguments
printf '%s\n' "${sources[@]}" |
  xargs -P "$jobs" -I{} sh -c 'src="$1"; shift; out="$1"; shift;
                              own=$(sed -n "s|^// nvcc-flags: ||p" "$src" | head -1);
                              "$@" "$src" $own -o "$out/${src%.cu}" ||
                              { echo "prepare.sh: nvcc failed on $src" >&2; exit 255; }' \
    sh {} "$out" "$nvcc" "${flag_list[@]}"

cp -P "$cuda_lib"/libcudart.so.13* "$out/"

{
  echo "# gpu-apps: built by tests/gpu/apps/prepare.sh"
  echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "nvcc $("$nvcc" --version | tail -1)"
  echo "flags $flags"
  for lib in "$out"/libcudart.so.13*; do
    echo "library $(basename "$lib") $(sha256sum "$lib" | cut -d' ' -f1)"
  done
  for src in "${sources[@]}"; do
    name=${src%.cu}
    echo "program $name $(sha256sum "$out/$name" | cut -d' ' -f1)"
  done
} >"$out/MANIFEST"

echo "prepare.sh: done: ${#sources[@]} programs and libcudart.so.13 in $out"
echo "On the GPU machine, from the repository root: OUT=<dir> tests/gpu/apps/run.sh"
