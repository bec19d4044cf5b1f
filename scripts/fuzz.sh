#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-19, ASan+UBSan) and runs one of them.
#
#   bash scripts/fuzz.sh reader    [SECONDS]   # fuzz_brig_reader (BRIG bytes)
#   bash scripts/fuzz.sh assembler [SECONDS]   # fuzz_assembler (HSAIL text)
#
# SECONDS defaults to 600. Environment: FUZZ_BUILD (build tree, default
# /tmp/openhsa-fuzzbuild), FUZZ_WORK (corpora and crash artifacts, default
# /tmp/openhsa-fuzz), FUZZ_BUILD_JOBS (ninja -j, default 1). Needs clang-19
# and libclang-rt-19-dev (not needed by the normal build). Seeds: the .hsail
# files of tests/asm/corpus, tests/brig/corpus, tests/asm/negative and
# tests/asm/regressions, and the BRIG HSAILasm makes of the corpora (the
# generated gen_* files in pieces of 20 statements) plus tests/brig/regressions.
# See tests/brig/FUZZING.md.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: fuzz.sh reader|assembler [SECONDS]}
seconds=${2:-600}
build=${FUZZ_BUILD:-/tmp/openhsa-fuzzbuild}
work=${FUZZ_WORK:-/tmp/openhsa-fuzz}
case $target in
reader) exe=$build/tests/brig/fuzz_brig_reader ;;
assembler) exe=$build/tests/asm/fuzz_assembler ;;
*) echo "unknown target '$target' (reader or assembler)" >&2; exit 2 ;;
esac

if [[ ! -f $build/build.ninja ]]; then
  CC=clang-19 CXX=clang++-19 cmake -S . -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPENHSA_BUILD_FUZZERS=ON \
    -DOPENHSA_BUILD_BENCHMARKS=OFF
fi
ninja -C "$build" -j"${FUZZ_BUILD_JOBS:-1}" fuzz_brig_reader fuzz_assembler

seeds=$work/seeds-$target
rm -rf "$seeds"
mkdir -p "$seeds" "$work/corpus-$target" "$work/artifacts-$target"
for dir in tests/asm/corpus tests/brig/corpus tests/asm/negative \
  tests/asm/regressions tests/brig/regressions; do
  [[ -d $dir ]] || continue
  tag=${dir//\//_}
  for f in "$dir"/*; do
    [[ -f $f && $f != */README.md ]] || continue
    name=$(basename "$f")
    if [[ $target == assembler ]]; then
      [[ $dir == tests/brig/regressions ]] || cp "$f" "$seeds/${tag}_$name"
    elif [[ $dir == tests/brig/regressions ]]; then
      cp "$f" "$seeds/${tag}_$name"
    elif [[ $dir == */corpus && $name == gen_* ]] && command -v HSAILasm >/dev/null; then
      # The generated files are large; their BRIG is seeded as small
      # modules of 20 statements each, which the fuzzer mutates faster.
      awk -v out="$seeds/${tag}_${name%.hsail}" '
        /^module / { mod = $0; next }
        /^extension / { ext = $0; next }
        /^kernel / { kernel = 1; next }
        /^[{]$/ || /^};$/ || /^\tret;$/ || /^\/\// || /^$/ { next }
        { body[n++] = $0 }
        END {
          for (i = 0; i < n; i += 20) {
            f = out "_" i ".hsail"
            print mod > f; print ext > f
            if (kernel) { print "kernel &k()" > f; print "{" > f }
            for (j = i; j < i + 20 && j < n; ++j) print body[j] > f
            if (kernel) { print "\tret;" > f; print "};" > f }
            close(f)
          }
        }' "$f"
      for c in "$seeds/${tag}_${name%.hsail}"_*.hsail; do
        HSAILasm "$c" -o "${c%.hsail}.brig" >/dev/null 2>&1 || true
        rm -f "$c"
      done
    elif [[ $dir == */corpus ]] && command -v HSAILasm >/dev/null; then
      flags=()
      [[ $name == comments* ]] && flags=(-enable-comments)
      HSAILasm "${flags[@]}" "$f" -o "$seeds/${tag}_${name%.hsail}.brig" \
        >/dev/null 2>&1 || true
    fi
  done
done

# Undefined behaviour aborts (-fno-sanitize-recover); hangs over 10 s and
# leaks are findings too.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Reader inputs are kept small (the seeds are at most a few KB) so that the
# fuzzer spends its time on many modules rather than on a few large ones.
maxlen=()
[[ $target == reader ]] && maxlen=(-max_len=8192)
exec "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  "${maxlen[@]}" \
  -print_final_stats=1 -artifact_prefix="$work/artifacts-$target/" \
  "$work/corpus-$target" "$seeds"
