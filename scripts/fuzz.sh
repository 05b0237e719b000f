#!/usr/bin/env bash
# Runs every libFuzzer harness (fuzz/fuzz_*.cc) for SECONDS each (default 60) on a seed corpus taken
# from ../shared/data and the repository's own data at run time. Usage:
#   scripts/fuzz.sh [SECONDS] [HARNESS...]        e.g. scripts/fuzz.sh 600 fuzz_hf_config
# With GPUPLAN_FUZZ_RUNS=N each harness runs N inputs instead (SECONDS is then ignored), e.g. the long run
# of issue 16: GPUPLAN_FUZZ_RUNS=1000000 scripts/fuzz.sh 0.
# Builds build-fuzz/ with clang (GPUPLAN_FUZZ=ON: ASan + UBSan + libFuzzer). Prints, per harness, the
# inputs run and whether it crashed; crash inputs are left in build-fuzz/findings/. Exit 1 on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
root=$(pwd)
shared=${GPUPLAN_SHARED_DATA:-$root/../shared/data}
build=${GPUPLAN_FUZZ_BUILD:-build-fuzz}
jobs=$(nproc 2>/dev/null || echo 2)

if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DGPUPLAN_FUZZ=ON -DGPUPLAN_BUILD_TESTS=OFF \
    -DGPUPLAN_BUILD_BENCH=OFF -DGPUPLAN_BUILD_PROBE=OFF >/dev/null
fi
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  for f in fuzz/fuzz_*.cc; do harnesses+=("$(basename "$f" .cc)"); done
fi
cmake --build "$build" -j "$jobs" --target "${harnesses[@]}"

# Seeds: the files each parser reads in real use.
seed() {  # seed HARNESS FILE...
  local dir="$build/corpus/$1"
  mkdir -p "$dir"
  shift
  for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/$(echo "$f" | tr '/' '_' | tail -c 120)"; done
  return 0
}
# Large files are cut to their first LINES lines: libFuzzer mutates small inputs far faster.
cut_seed() {  # cut_seed LINES HARNESS FILE...
  local lines=$1 dir="$build/corpus/$2"
  mkdir -p "$dir"
  shift 2
  for f in "$@"; do [ -f "$f" ] && head -"$lines" "$f" > "$dir/$(basename "$f")"; done
  return 0
}
cut_seed 12 fuzz_dataset_csv "$shared"/benchmarks/*.csv tests/cli/data/*.csv
seed fuzz_catalog_yaml data/catalog/*.yaml
seed fuzz_cost_yaml data/cost/*.yaml
seed fuzz_site_yaml examples/sites/*.yaml data/deploy/site.yaml
seed fuzz_failure_yaml data/deploy/failures.yaml
seed fuzz_cluster_yaml examples/clusters/*.yaml
seed fuzz_hf_config "$shared"/models/*.json
cut_seed 60 fuzz_trace_csv "$shared"/traces/*.csv
seed fuzz_nvidia_smi src/doctor/fixtures/*/*
mkdir -p "$build/corpus/fuzz_plan_and_names"
printf 'tp=4,pp=4,vp=5,cp=2' > "$build/corpus/fuzz_plan_and_names/plan"
printf 'Llama-3.1-405B (proxy 8 L)' > "$build/corpus/fuzz_plan_and_names/proxy"
printf 'Qwen3-32B-NVFP4' > "$build/corpus/fuzz_plan_and_names/suffix"

mkdir -p "$build/corpus/fuzz_server_request"
printf 'GET /api/v1/echo?model=llama3.1-70b&sweep&gpus=8&positional=a HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n' \
  > "$build/corpus/fuzz_server_request/get"
printf 'POST /api/v1/echo HTTP/1.1\r\nHost: localhost:8080\r\nOrigin: http://localhost:8080\r\nContent-Type: application/json\r\nContent-Length: 29\r\n\r\n{"model": "x", "gpus": [1,2]}' \
  > "$build/corpus/fuzz_server_request/post"
printf 'GET /report/train?x=%%ff HTTP/1.1\r\nHost: [::1]:8080\r\nSec-Fetch-Site: cross-site\r\n\r\nGET /%%c0 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n' \
  > "$build/corpus/fuzz_server_request/pipelined"
printf 'POST /api/v1/fail HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n0\r\n\r\n' \
  > "$build/corpus/fuzz_server_request/chunked"

mkdir -p "$build/findings"
status=0
for h in "${harnesses[@]}"; do
  dir="$build/corpus/$h"
  mkdir -p "$dir"
  log="$build/findings/$h.log"
  set +e
  if [ -n "${GPUPLAN_FUZZ_RUNS:-}" ]; then limit=(-runs="$GPUPLAN_FUZZ_RUNS"); else limit=(-max_total_time="$seconds"); fi
  "$build/fuzz/$h" "$dir" "${limit[@]}" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
    -artifact_prefix="$build/findings/$h-" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  set -e
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  if [ $rc -eq 0 ]; then
    echo "$h: $runs inputs, 0 crashes"
  else
    echo "$h: $runs inputs, FINDING (exit $rc): see $log and $build/findings/$h-*"
    grep -m3 -E 'ERROR|runtime error|SUMMARY' "$log" || true
    status=1
  fi
done
exit $status
