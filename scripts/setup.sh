#!/usr/bin/env bash
# Installs everything ptxvm needs to build and test on Debian 12 (bookworm).
# Idempotent: packages already present are skipped. Runs as root or through sudo.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git python3
  clang clang-format libclang-rt-14-dev
  antlr4 libantlr4-runtime-dev uuid-dev
  llvm-19-dev llvm-19-tools clang-19
  libzstd-dev liblz4-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  libboost1.81-dev libboost-json1.81-dev libcli11-dev libfmt-dev
  dpkg-dev man-db graphviz
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi

if [[ -x /usr/local/cuda/bin/nvcc ]]; then
  echo "setup: nvcc found at /usr/local/cuda/bin"
else
  echo "setup: nvcc not found; CUDA corpus and ptxas tests will be skipped"
fi
