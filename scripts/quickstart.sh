#!/usr/bin/env bash
# Installs what is missing, builds openhsa, describes the machine's agents
# and runs an example kernel end to end on the CPU agent.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build --target openhsa-info native_dispatch
./build/tools/openhsa-info/openhsa-info
./build/examples/native_dispatch
