#!/usr/bin/env bash
# The README's first command: install, build, then run the main job on the built-in catalog: is GB300
# NVL72 really 7x H200, and for what? (`gpuplan compare` with its defaults), then the vendors' claims
# replayed under their stated conditions.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
g=./build/gpuplan
echo "== gpuplan compare: GB300 NVL72 against HGX H200, each yardstick =="
$g compare
echo
echo "== gpuplan compare --claim builtin: vendors' claims under their stated conditions =="
$g compare --claim builtin
