#!/usr/bin/env bash
# Installs what is missing, builds openhsa, describes the machine's agents
# and runs the mandelbrot example end to end on the CPU agent: HSAIL text ->
# openhsa-as -> hsa_ext_program_finalize -> executable -> AQL dispatch. It
# prints its times and writes build/examples/mandelbrot.png.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build --target openhsa-info mandelbrot
./build/tools/openhsa-info/openhsa-info
(cd build/examples && ./mandelbrot)
