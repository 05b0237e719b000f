#!/usr/bin/env bash
# Installs the Debian 12 packages gpuplan builds and tests with. Idempotent; needs root (or sudo).
# Usage: scripts/install-deps.sh [PROFILE...]   (no profile: all of them)
#   build     the gpuplan binary (scripts/quickstart.sh)
#   test      build + everything `scripts/test.sh` runs: GoogleTest, the Python module and its tests,
#             Chromium for the browser tests
#   sanitize  clang and its runtimes: the ASan/UBSan build and the libFuzzer harnesses (scripts/sanitize.sh, fuzz.sh)
#   bench     Google Benchmark (bench/, GPUPLAN_BUILD_BENCH=ON)
set -euo pipefail
profiles=("$@")
((${#profiles[@]})) || profiles=(build test sanitize bench)
pkgs=()
for profile in "${profiles[@]}"; do
  case "$profile" in
    build)
      pkgs+=(build-essential cmake ninja-build pkg-config
             nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libfmt-dev
             libcpp-httplib-dev  # `gpuplan serve`: the local web app
             nodejs)             # (+ npm below): the report's charting library, `npm ci` at build time
      ;;
    test)
      pkgs+=(libgtest-dev libgmock-dev googletest
             chromium  # the report's and the web app's browser tests
             python3 python3-dev pybind11-dev python3-pytest python3-pandas python3-matplotlib  # the Python module, its tests and examples
             python3-pip python3-setuptools python3-wheel python3-venv)  # `pip install --no-build-isolation .` offline (docs/python.md)
      ;;
    sanitize) pkgs+=(clang libclang-rt-14-dev) ;;
    bench) pkgs+=(libbenchmark-dev) ;;
    *) echo "install-deps.sh: unknown profile '$profile' (build, test, sanitize, bench)" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Debian's npm, unless a node that bundles its own npm (e.g. a nodesource build, which conflicts with it) is there.
[[ " ${profiles[*]} " == *" build "* ]] && ! command -v npm >/dev/null 2>&1 && missing+=(npm)
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
