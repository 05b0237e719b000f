#!/usr/bin/env bash
# The README's second command: install, build, and run every test with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build --output-on-failure --parallel "$jobs"
