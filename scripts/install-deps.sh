#!/usr/bin/env bash
# Installs the Debian packages openhsa needs (only those missing).
# Build: cmake, ninja, g++, LLVM 19 (linked statically), oneTBB, hwloc;
# clang-19 and its sanitizer runtimes for the sanitized test builds.
# Tests: GoogleTest, Google Benchmark, and the test oracles HSAILasm
# (hsail-tools) and Debian's ROCR headers (libhsa-runtime-dev, for the ABI
# comparison); neither oracle is a build dependency of the library.
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config llvm-19-dev libtbb-dev libtbbbind-2-5
          libhwloc-dev libgtest-dev libbenchmark-dev libzstd-dev zlib1g-dev hsail-tools
          libhsa-runtime-dev clang-19 libclang-rt-19-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
