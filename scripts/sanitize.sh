#!/usr/bin/env bash
# The unit tests of every folder under AddressSanitizer + UndefinedBehaviorSanitizer (clang, build-san/,
# any report fails the run). The CLI tests run the same library code through the binary and would only
# repeat them, slower. -O1 keeps the build and the run short; build-san/ also holds the libFuzzer
# harnesses (GPUPLAN_FUZZ=ON), so `GPUPLAN_FUZZ_BUILD=build-san scripts/fuzz.sh` reuses its libraries.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build test sanitize
jobs=$(nproc 2>/dev/null || echo 2)
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
