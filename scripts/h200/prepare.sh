#!/usr/bin/env bash
# Prepares the H200 check on a machine with the Debian build dependencies and nvcc: builds gpuplan
# with the CUDA probe for sm_90a (as scripts/h200-check.sh would) and gathers it, the probe module and the
# shared libraries the device image may lack (yaml-cpp, fmt) into DIR (default .devcarry/prebuilt), which
# scripts/h200/device-run.sh hands to h200-check.sh as GPUPLAN_PREBUILT.
set -euo pipefail
cd "$(dirname "$0")/../.."
dest="${1:-.devcarry/prebuilt}"
build="${BUILD_DIR:-build-h200}"
export PATH="$PATH:/usr/local/cuda/bin"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUPLAN_BUILD_TESTS=OFF -DGPUPLAN_BUILD_BENCH=OFF \
  -DGPUPLAN_BUILD_PROBE=ON -DGPUPLAN_PROBE_GENCODE="-gencode=arch=compute_90a,code=sm_90a" >/dev/null
cmake --build "$build" --target gpuplan --parallel "$(nproc)"
rm -rf "$dest"; mkdir -p "$dest/lib"
cp "$build/gpuplan" "$build/libgpuplan_probe.so" "$dest/"
strip "$dest/gpuplan"
# Libraries outside glibc/libstdc++ and CUDA (which the device image has) travel with it.
for so in $(ldd "$build/gpuplan" "$build/libgpuplan_probe.so" | awk '/=> \//{print $3}' | sort -u); do
  case "$(basename "$so")" in
    libc.so*|libm.so*|libstdc++*|libgcc_s*|libdl*|libpthread*|librt*|ld-linux*|libcuda*|libcublas*|libcudart*) ;;
    *) cp -L "$so" "$dest/lib/" ;;
  esac
done
ls -la "$dest" "$dest/lib"
