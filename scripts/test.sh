#!/usr/bin/env bash
# The README's test command: install, build the tests (reusing what scripts/quickstart.sh built), and run
# every test with ctest: unit tests per module, end-to-end CLI tests, the Python module's tests and the
# browser tests of the report and the web app. The sanitizer and fuzz stages are scripts/sanitize.sh and
# scripts/fuzz.sh (.ci/run runs all three).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build test
scripts/build.sh -DGPUPLAN_BUILD_TESTS=ON -DGPUPLAN_BUILD_PYTHON=ON -DGPUPLAN_BUILD_BENCH=OFF -DGPUPLAN_BUILD_PROBE=AUTO
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build --output-on-failure --parallel "$jobs"
