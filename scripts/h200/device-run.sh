#!/usr/bin/env bash
# The one command of the H200 check, run on the device machine from the repository root:
#   1. scripts/h200-check.sh with the prebuilt gpuplan (doctor, probe --quick, calibration read back);
#   2. scripts/h200/measure.py: PyTorch's rates, one training step of a Llama-style 1B model at the largest
#      micro-batch that fits, one decode step of the Llama 3.1 8B layer stack;
# the check's folder as one archive $OUT/check.tar.gz (few files travel back), measure.py's documents
# in $OUT/measured/, each written as soon as it is done (a run cut short still returns what it finished).
# Predictions are made afterwards anywhere with scripts/h200/predict.sh (gpuplan needs no GPU to predict).
set -uo pipefail
cd "$(dirname "$0")/../.."
res="${OUT:-$PWD/h200-out}"
work=/tmp/h200-check-out; rm -rf "$work"; mkdir -p "$work" "$res"
t0=$(date +%s)
# CUDA libraries for the probe module: the toolkit's, else the pip wheels' (cuBLAS ships with PyTorch).
for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib \
         $(python3 -c "import nvidia, os; p=list(nvidia.__path__)[0]; print(' '.join(os.path.join(p,x,'lib') for x in os.listdir(p)))" 2>/dev/null); do
  [ -d "$d" ] && LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$d"
done
export LD_LIBRARY_PATH
prebuilt="${GPUPLAN_PREBUILT:-$PWD/.devcarry/prebuilt}"
chmod +x "$prebuilt/gpuplan" 2>/dev/null
echo "== h200-check.sh (prebuilt: $prebuilt)"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >"$work/ld-path.txt"
OUT="$work" GPUPLAN_PREBUILT="$prebuilt" timeout 200 bash scripts/h200-check.sh 2>&1 | tee "$work/h200-check.log"
cp "$work/summary.txt" "$res/summary.txt" 2>/dev/null
tar -C /tmp -czf "$res/check.tar.gz" h200-check-out
echo "== measure.py after $(( $(date +%s) - t0 )) s"
PYTHONUNBUFFERED=1 timeout 270 python3 scripts/h200/measure.py --out "$res/measured" 2>&1 | tee "$res/measure.log"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv >>"$res/measure.log" 2>&1
echo "== done after $(( $(date +%s) - t0 )) s"
ls -la "$res" "$res/measured"
