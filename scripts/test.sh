#!/usr/bin/env bash
# The README's second command: install, build, and run every test with ctest; then the unit tests again
# under AddressSanitizer + UndefinedBehaviorSanitizer (clang, build-san/, any report fails the run) and
# each libFuzzer harness for a short bounded time (scripts/fuzz.sh, same build).
# GPUPLAN_SKIP_SANITIZERS=1 runs the plain suite only; GPUPLAN_FUZZ_SECONDS sets the fuzz time per harness (default 8 s: a smoke run on every
# submission; the long runs of 1M inputs per harness are scripts/fuzz.sh with GPUPLAN_FUZZ_RUNS=1000000).
set -euo pipefail
cd "$(dirname "$0")/.."
# A one-shot build: unity batches (CMAKE_UNITY_BUILD) parse the heavy headers (nlohmann, fmt, CLI11, gtest)
# once per batch instead of once per file, about half the compile time of each build below.
scripts/build.sh -DCMAKE_UNITY_BUILD=ON
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build --output-on-failure --parallel "$jobs"
[ "${GPUPLAN_SKIP_SANITIZERS:-0}" = 1 ] && exit 0

# Sanitizers: the unit tests of every folder (the CLI tests run the same library code through the
# binary and would only repeat them, slower). -O1 keeps the build and the run short.
if [ ! -f build-san/build.ninja ]; then
  CC=clang CXX=clang++ cmake -S . -B build-san -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DGPUPLAN_FUZZ=ON -DGPUPLAN_BUILD_BENCH=OFF \
    -DGPUPLAN_BUILD_PROBE=OFF -DCMAKE_UNITY_BUILD=ON >/dev/null
fi
unit_tests=()
for d in src/*/; do
  name=$(basename "$d")
  ls "$d"*_test.cc >/dev/null 2>&1 && unit_tests+=("${name}_test")
done
cmake --build build-san --parallel "$jobs" --target "${unit_tests[@]}"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for t in "${unit_tests[@]}"; do
  echo "== $t (ASan + UBSan)"
  build-san/"$t" --gtest_brief=1
done

# Fuzzing: every harness for a short bounded time on the seed corpus.
GPUPLAN_FUZZ_BUILD=build-san scripts/fuzz.sh "${GPUPLAN_FUZZ_SECONDS:-8}"
