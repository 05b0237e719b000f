#!/usr/bin/env bash
# The README's first command: install, build, then run the main job on the built-in catalog.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
./build/gpuplan memory --model llama3-70b --system hgx-h200 --inference --precision bf16 --context 8192
./build/gpuplan memory --model llama3-70b --system gb300-nvl72 --inference --precision bf16 --context 8192
