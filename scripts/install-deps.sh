#!/usr/bin/env bash
# Installs the Debian 12 packages gpuplan builds and tests with. Idempotent; needs root (or sudo).
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config python3
      nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libfmt-dev
      libgtest-dev libgmock-dev googletest libbenchmark-dev
      nodejs chromium  # nodejs (+ npm below): the report's charting library and browser tests; chromium: those tests
      clang libclang-rt-14-dev  # clang + its runtimes: the ASan/UBSan build and the libFuzzer harnesses (fuzz/)
      python3-dev pybind11-dev python3-pytest python3-pandas python3-matplotlib  # the Python module, its tests and examples
      python3-pip python3-setuptools python3-wheel python3-venv  # `pip install --no-build-isolation .` offline (docs/python.md)
      libcpp-httplib-dev)  # `gpuplan serve`: the local web app
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Debian's npm, unless a node that bundles its own npm (e.g. a nodesource build, which conflicts with it) is there.
command -v npm >/dev/null 2>&1 || missing+=(npm)
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
