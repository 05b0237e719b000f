#!/usr/bin/env bash
# The prepared check on a machine with an H200: builds gpuplan with the CUDA probe for sm_90a,
# records the raw tool outputs (a captured doctor fixture), runs `gpuplan doctor` and `gpuplan probe
# --quick`, and writes everything under $OUT (default ./h200-check-out). Needs the CUDA toolkit (nvcc,
# cuBLASLt) and the Debian packages of scripts/install-deps.sh (tests and benchmarks are not built).
# Expected on an H200: BF16 GEMM near 790 TFLOP/s at 8192^3, copy near 4.3 TB/s (read+write).
#   bash scripts/h200-check.sh            # about 2-4 min: configure + build ~1-3 min, probe ~30 s
#   GPUPLAN_PREBUILT=DIR bash scripts/h200-check.sh   # use DIR/gpuplan + DIR/libgpuplan_probe.so (+ DIR/lib/)
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-$PWD/h200-check-out}"
mkdir -p "$out/recorded"
build="${BUILD_DIR:-build-h200}"
export PATH="$PATH:/usr/local/cuda/bin"
step() { echo "== $*" | tee -a "$out/summary.txt"; }

step "environment $(date -u +%FT%TZ) $(hostname)"
{ nvidia-smi; nvcc --version; } >"$out/env.txt" 2>&1

# Raw outputs in the layout `gpuplan doctor --replay DIR` reads (src/doctor/recorded.h).
fields="index,name,uuid,pci.bus_id,driver_version,memory.total,compute_cap,power.limit"
nvidia-smi --query-gpu="$fields" --format=csv >"$out/recorded/nvidia-smi-query.txt" 2>&1 ||
  echo $? >"$out/recorded/nvidia-smi-query.exit"
nvidia-smi topo -m >"$out/recorded/nvidia-smi-topo.txt" 2>&1 || echo $? >"$out/recorded/nvidia-smi-topo.exit"
nvcc --version >"$out/recorded/nvcc-version.txt" 2>&1 || rm -f "$out/recorded/nvcc-version.txt"
python3 -c "import json, torch; print(json.dumps({'version': torch.__version__, 'cuda': torch.version.cuda, \
'arch_list': torch.cuda.get_arch_list() if torch.version.cuda else [], \
'cuda_available': torch.cuda.is_available()}))" >"$out/recorded/torch.txt" 2>&1 || rm -f "$out/recorded/torch.txt"

if [ -n "${GPUPLAN_PREBUILT:-}" ]; then
  # A gpuplan built elsewhere for this check (scripts/h200/prepare.sh: same -gencode, with the shared
  # libraries it needs beside it), for machines without the Debian build dependencies.
  step "prebuilt gpuplan from $GPUPLAN_PREBUILT"
  build="$GPUPLAN_PREBUILT"
  export LD_LIBRARY_PATH="$GPUPLAN_PREBUILT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  ldd "$build/gpuplan" "$build/libgpuplan_probe.so" >"$out/ldd.txt" 2>&1
else
  step "configure (-gencode=arch=compute_90a,code=sm_90a)"
  gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
  if ! cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DGPUPLAN_BUILD_TESTS=OFF \
      -DGPUPLAN_BUILD_BENCH=OFF -DGPUPLAN_BUILD_PROBE=ON \
      -DGPUPLAN_PROBE_GENCODE="-gencode=arch=compute_90a,code=sm_90a" >"$out/configure.log" 2>&1; then
    step "configure FAILED (see configure.log)"; tail -20 "$out/configure.log"; exit 1
  fi
  step "build"
  if ! cmake --build "$build" --target gpuplan --parallel "$(nproc)" >"$out/build.log" 2>&1; then
    step "build FAILED (see build.log)"; tail -30 "$out/build.log"; exit 1
  fi
fi

step "gpuplan doctor"
"$build/gpuplan" doctor | tee "$out/doctor.txt"
echo "exit ${PIPESTATUS[0]}" >>"$out/summary.txt"
"$build/gpuplan" doctor --json >"$out/doctor.json"

step "gpuplan probe --quick"
"$build/gpuplan" probe --quick --out "$out/calibration.yaml" 2>"$out/probe.log" | tee "$out/probe.txt"
echo "exit ${PIPESTATUS[0]}" >>"$out/summary.txt"
cat "$out/probe.log"

# The calibration is a catalog overlay: this shows the GPU's efficiencies read back through --catalog.
if [ -s "$out/calibration.yaml" ]; then
  mkdir -p "$out/catalog" && cp "$out/calibration.yaml" "$out/catalog/"
  step "calibration loads as a catalog overlay"
  "$build/gpuplan" catalog list --catalog "$out/catalog" >"$out/catalog-check.txt" 2>&1
  echo "exit $?" >>"$out/summary.txt"
fi
step "done: outputs in $out"
