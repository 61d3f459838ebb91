#!/usr/bin/env bash
# Configures and builds ptxvm in build/ (Ninja, RelWithDebInfo).
# Extra arguments are passed to ninja (e.g. a target name).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
if [[ ! -f build/build.ninja ]]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
ninja -C build -j"$jobs" "$@"
