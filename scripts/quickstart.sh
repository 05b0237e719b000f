#!/usr/bin/env bash
# The README's first command: install, build, then run the main job on the built-in catalog.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
g=./build/gpuplan
echo "== Llama 3 70B serving, bf16, 8K context: memory per GPU =="
$g memory --model llama3-70b --system hgx-h200 --inference --precision bf16 --context 8192
$g memory --model llama3-70b --system gb300-nvl72 --inference --precision bf16 --context 8192
echo "== Llama 3.1 70B training, FP8, 8K sequences, 64 GPUs: one step =="
$g train --model llama3.1-70b --system hgx-h200 --gpus 64 --global-batch 128 --seq 8192 --precision fp8 --plan tp=4,pp=4,vp=5,cp=2
$g train --model llama3.1-70b --system gb300-nvl72 --gpus 64 --global-batch 128 --seq 8192 --precision fp8 --plan tp=2,pp=4,vp=5,cp=2
