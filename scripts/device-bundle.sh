#!/usr/bin/env bash
# Builds the binaries that run on the GPU machine (Ubuntu, no oneTBB/hwloc
# installed) and gathers them with the shared libraries they need into
# .carry/ (git-ignored), for the device tool's `carry`. There:
#   LD_LIBRARY_PATH=.carry/lib .carry/bin/<program>
#   OPENHSA_BENCH_KERNELS_DIR=.carry/kernels LD_LIBRARY_PATH=.carry/lib \
#     .carry/bin/openhsa-bench-simd
# With --xz first, the bundle is also packed into .carry-xz/bundle.tar.xz
# (carry .carry-xz; unpack it there with tar -xJf): the test binaries link
# LLVM statically, and with the library they pass carry's 64 MiB unpacked.
set -euo pipefail
cd "$(dirname "$0")/.."
xz=0
if [[ "${1:-}" == --xz ]]; then
  xz=1
  shift
fi
# The benchmarks' native twins: AVX-512 (x86-64-v4), which the GPU
# machine's Xeon has, rather than -march=native of this machine's EPYC.
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DOPENHSA_STATIC_LIBSTDCXX=ON -DOPENHSA_BENCH_NATIVE_ARCH=x86-64-v4 > /dev/null
programs=(openhsa-info native_dispatch openhsa-bench-runtime openhsa-bench-simd "$@")
targets=(hsa-runtime64 "${programs[@]}")
cmake --build build-device --target "${targets[@]}"
rm -rf .carry && mkdir -p .carry/bin .carry/lib
for t in "${programs[@]}"; do
  f=$(find build-device -type f -name "$t" -perm -u+x | head -n1)
  strip -o ".carry/bin/$t" "$f"
done
cp -r benchmarks/kernels .carry/kernels # openhsa-bench-simd's HSAIL
# The examples' BRIG, should they be among the programs (their first
# argument after --agent).
if compgen -G "build-device/examples/*.brig" >/dev/null; then
  mkdir -p .carry/examples && cp build-device/examples/*.brig .carry/examples/
fi
strip -o .carry/lib/libhsa-runtime64.so.1 build-device/runtime/libhsa-runtime64.so.1
for lib in libtbb.so.12 libtbbbind_2_5.so.3 libhwloc.so.15 libbenchmark.so.1debian; do
  cp -L "/usr/lib/x86_64-linux-gnu/$lib" .carry/lib/
done
du -sh .carry
if ((xz)); then
  rm -rf .carry-xz && mkdir -p .carry-xz
  tar -cf - .carry | xz -T0 -6 >.carry-xz/bundle.tar.xz
  du -sh .carry-xz
fi
