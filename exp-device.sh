#!/bin/bash
set -u
mkdir -p /tmp/b && tar -C /tmp/b -xJf .carry-xz/bundle.tar.xz
B=/tmp/b/.carry
export LD_LIBRARY_PATH=$B/lib OPENHSA_BENCH_KERNELS_DIR=$B/kernels
$B/bin/openhsa-bench-simd --benchmark_filter='^BM_[A-Za-z]*(Hsail|HsailFixed|Native)/' --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true 2>&1 | grep median | sed 's/real_time_median//' | sort | awk '{printf "%s %s %s\n", $1, $2, $3}'
