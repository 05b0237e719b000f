#!/usr/bin/env bash
# The README's first command: install what the binary needs, build only the binary, then run the main job
# on the built-in catalog: is GB300 NVL72 really 7x H200, and for what? (`gpuplan compare` with its
# defaults), then the vendors' claims replayed under their stated conditions.
# The tests, the Python module and the CUDA probe (`gpuplan probe`) are left to scripts/test.sh (same build
# folder: what is built here is not built again); the benchmarks to GPUPLAN_BUILD_BENCH=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build
scripts/build.sh -DGPUPLAN_BUILD_TESTS=OFF -DGPUPLAN_BUILD_BENCH=OFF -DGPUPLAN_BUILD_PYTHON=OFF -DGPUPLAN_BUILD_PROBE=OFF gpuplan
g=./build/gpuplan
echo "== gpuplan compare: GB300 NVL72 against HGX H200, each yardstick =="
$g compare
echo
echo "== gpuplan compare --claim builtin: vendors' claims under their stated conditions =="
$g compare --claim builtin
