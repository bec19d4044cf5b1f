#!/usr/bin/env bash
# Runs the SIMD benchmarks on the GPU machine's CPU from the bundle that
# scripts/device-bundle.sh --xz packs (carry .carry-xz): every kernel on
# all cores (HSAIL, its twin, scalar, other shapes, finalization), the
# compute-bound ones on 1 and 4 cores, and the runtime's knobs that the
# figures in benchmarks/README.md compare (runs of groups, slices,
# prefetching, the least chunk of work-groups), each in the same start of
# the machine. Medians of 3, the cases of each call in random order
# (Google Benchmark's interleaving): this VM drifts by 10-20 % within a
# run, and a kernel run long after its twin compared with another state.
set -euo pipefail
mkdir -p /tmp/b && rm -rf /tmp/b/*
tar -C /tmp/b -xJf .carry-xz/bundle.tar.xz
B=/tmp/b/.carry
export LD_LIBRARY_PATH=$B/lib OPENHSA_BENCH_KERNELS_DIR=$B/kernels
bench() {
  "$B/bin/openhsa-bench-simd" --benchmark_filter="$1" \
    --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true 2>&1 |
    grep median | awk '{print $1, $2, $3}'
}
lscpu | grep -E "Model name|^CPU\(s\)"
echo "== all cores"
bench '(Hsail|Native|Rows|Groups64|HsailScalar|HsailFixed)/|Finalize'
echo "== stencil, runs of groups (OPENHSA_CPU_RUN_ITEMS)"
for r in 0 1024 16384; do
  echo "-- $r"
  OPENHSA_CPU_RUN_ITEMS=$r bench 'Stencil(Hsail|Native)/'
done
echo "== nbody, no slices (OPENHSA_CPU_SLICES=0)"
OPENHSA_CPU_SLICES=0 bench 'Nbody(Hsail|Native|Groups64Hsail)/'
echo "== dispatch-bound kernels, chunks down to single work-groups (OPENHSA_CPU_MIN_CHUNK_US=0; default 8)"
OPENHSA_CPU_MIN_CHUNK_US=0 bench '(Reduction|Scan|VectorAdd)(HsailFixed|Native)/'
echo "== barrier kernels, no prefetch (OPENHSA_PREFETCH_GROUPS=0; default 1)"
OPENHSA_PREFETCH_GROUPS=0 bench '(SgemmTiled|Reduction)Hsail/'
echo "-- 1 core: default, then no prefetch"
taskset -c 0 bash -c "$(declare -f bench); B=$B; bench '(SgemmTiled|Reduction)Hsail/'"
OPENHSA_PREFETCH_GROUPS=0 taskset -c 0 bash -c "$(declare -f bench); B=$B; bench '(SgemmTiled|Reduction)Hsail/'"
C='(SgemmNaive|SgemmTiled|Reduction|Mandelbrot|Nbody|BinarySearch)(Hsail|Native)/'
for c in 1 4; do
  echo "== $c cores"
  taskset -c 0-$((c - 1)) "$B/bin/openhsa-bench-simd" --benchmark_filter="$C" \
    --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true 2>&1 |
    grep median | awk '{print $1, $2, $3}'
done
