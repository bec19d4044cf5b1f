#!/usr/bin/env bash
# Installs what is missing, then builds and tests in three build trees (CI
# runs all three through .ci/run; README "Tests" gives their times):
#   normal  build/       GCC, -Werror, the whole suite
#   asan    build-asan/  clang-19, ASan+UBSan (-fno-sanitize-recover, leaks
#                        detected), -Werror, the whole suite
#   tsan    build-tsan/  clang-19, TSan, the runtime tests (see tsan())
# Parts to run: the arguments (default: normal asan tsan).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

parts=("$@")
((${#parts[@]})) || parts=(normal asan tsan)
common=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPENHSA_WERROR=ON)
if command -v ccache >/dev/null; then
  common+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
jobs=$(nproc)

# Runs a step and says how long it took.
timed() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  echo "== $name: $((SECONDS - start)) s"
}

normal() {
  cmake -S . -B build "${common[@]}"
  timed "normal build" cmake --build build
  timed "normal ctest" ctest --test-dir build --output-on-failure --timeout 600 \
    -j "$jobs"
}

# Sanitized trees use clang-19: its runtimes work with Debian's
# uninstrumented LLVM (and libtbb, which the benchmarks use), and the asan
# tree (benchmarks included) checks clang's warnings on every source.
sanitized() {
  local dir=$1 kind=$2
  CC=clang-19 CXX=clang++-19 cmake -S . -B "$dir" "${common[@]}" \
    -DOPENHSA_SANITIZE="$kind"
}

asan() {
  sanitized build-asan address
  timed "asan build" cmake --build build-asan
  # A report fails its test: UBSan aborts, ASan/LSan exit non-zero. The
  # finalizer's kernel tests run vectorized only (finalizer.scalar.*, the
  # same tests with OPENHSA_VECTORIZE=0, and finalizer.avx2.* and
  # finalizer.sse4.*, the same for lesser x86-64 levels, run in the normal
  # tree).
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    timed "asan ctest" ctest --test-dir build-asan --output-on-failure \
      --timeout 1200 -j "$jobs" -E '^(finalizer\.(scalar|avx2|sse4)|runtime\.(avx2|sse4))\.'
}

# TSan runs the runtime tests, dispatches on the agents' worker threads
# included (cpu_agent/WorkGroupPool: plain threads and atomics TSan sees),
# the core units (the packet processor's re-checks, the shared arena) and
# the finalization cache's tests (threads finalizing one program at once)
# and the kernels' shape variants and wrap guards (queues finalizing one
# kernel at once).
# runtime.unload_after_shut_down is not built in this tree.
tsan() {
  sanitized build-tsan thread
  timed "tsan build" cmake --build build-tsan --target openhsa_runtime_test \
    openhsa_core_test openhsa_finalizer_FinalizeCacheTest \
    openhsa_finalizer_ParallelKernelsTest openhsa_finalizer_JitLoaderTest \
    openhsa_executable_test
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    timed "tsan ctest" ctest --test-dir build-tsan --output-on-failure \
      --timeout 1200 \
      -R '^(runtime|core|finalizer\.(FinalizeCacheTest|ParallelKernelsTest|JitLoaderTest)|executable\.(ShapeVariants|WrapGuards))\.' \
      -E '^runtime\.(unload|avx2\.|sse4\.)' \
      -j "$jobs"
}

for part in "${parts[@]}"; do
  case $part in
  normal | asan | tsan) timed "$part (all of it)" "$part" ;;
  *) echo "unknown part '$part' (normal, asan, tsan)" >&2; exit 2 ;;
  esac
done
