#!/usr/bin/env bash
# Installs everything ptxvm needs to build and test on Debian 12 (bookworm).
# Idempotent: packages already present are skipped. Runs as root or through sudo.
# --tests (what scripts/test.sh passes) adds what only the tests need: Debian's chromium and
# node, and playwright-core from npm in tests/browser/ (the browser test of the HTML report).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tests=false
[[ ${1:-} == --tests ]] && tests=true

packages=(
  build-essential cmake ninja-build pkg-config git python3
  clang-format
  antlr4 libantlr4-runtime-dev uuid-dev
  llvm-19-dev llvm-19-tools clang-19 libclang-rt-19-dev
  libzstd-dev liblz4-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  libboost1.81-dev libboost-json1.81-dev libcli11-dev libfmt-dev
  dpkg-dev man-db graphviz
)

if $tests; then
  packages+=(chromium)
  command -v node >/dev/null || packages+=(nodejs)
  command -v npm >/dev/null || packages+=(npm)
fi

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

if $tests; then
  # The version tests/browser/package-lock.json pins; a registry that cannot be reached leaves
  # the browser test skipped (ctest says so), not the whole run failed.
  pinned=$(grep -o '"playwright-core": "[^"]*"' "$root/tests/browser/package.json" | cut -d'"' -f4)
  installed=$(grep -o '"version": "[^"]*"' "$root/tests/browser/node_modules/playwright-core/package.json" 2>/dev/null |
    cut -d'"' -f4 || true)
  if [[ -n $pinned && $installed == "$pinned" ]]; then
    echo "setup: playwright-core $pinned present"
  elif (cd "$root/tests/browser" && npm ci --no-audit --no-fund --loglevel=error); then
    echo "setup: playwright-core installed in tests/browser"
  else
    echo "setup: npm could not install playwright-core: the browser test will be skipped"
  fi
fi

if [[ -x /usr/local/cuda/bin/nvcc ]]; then
  echo "setup: nvcc found at /usr/local/cuda/bin"
else
  echo "setup: nvcc not found; CUDA corpus and ptxas tests will be skipped"
fi
