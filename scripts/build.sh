#!/usr/bin/env bash
# Configures and builds gpuplan (Release, unity batches) in ./build. Installs nothing: the callers
# (quickstart.sh, test.sh) run scripts/install-deps.sh with the profile they need.
# Usage: scripts/build.sh [-DVAR=VALUE...] [TARGET...]   (no target: everything configured)
# Unity batches (CMAKE_UNITY_BUILD) parse the heavy headers (nlohmann, fmt, yaml-cpp, gtest) once per batch
# instead of once per file: about half the compile time.
set -euo pipefail
cd "$(dirname "$0")/.."
defs=() targets=()
for a in "$@"; do
  case "$a" in
    -D*) defs+=("$a") ;;
    *) targets+=(--target "$a") ;;
  esac
done
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON "${defs[@]}" >/dev/null
cmake --build build --parallel "$jobs" "${targets[@]}"
