#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-19, ASan+UBSan) and runs one of them.
#
#   bash scripts/fuzz.sh TARGET [SECONDS [LIBFUZZER FLAGS...]]
#   bash scripts/fuzz.sh run TARGET SECONDS [LIBFUZZER FLAGS...]   # the same
#   bash scripts/fuzz.sh build                                    # build only
#   bash scripts/fuzz.sh bundle [TARGET]   # build, gather into .carry/fuzz
#
# TARGET: reader (fuzz_brig_reader, BRIG bytes), assembler (fuzz_assembler,
# HSAIL text), finalizer (fuzz_finalizer, HSAIL text finalized and loaded),
# packets (fuzz_packets, AQL packets); the executables' names work too.
# SECONDS defaults to 600. Extra flags go to libFuzzer, e.g. -jobs=16
# -workers=16 for 16 processes (each runs SECONDS; they share the corpus
# folder; their logs are fuzz-N.log in FUZZ_WORK).
#
# Environment: FUZZ_BUILD (build tree, default /tmp/openhsa-fuzzbuild),
# FUZZ_WORK (corpora, crash artifacts and logs, default /tmp/openhsa-fuzz),
# FUZZ_BUILD_JOBS (ninja -j, default 1), FUZZ_PREBUILT
# (a folder made by `bundle`: run its bin/fuzz_* with its lib/ instead of
# building). Needs clang-19 and
# libclang-rt-19-dev (not needed by the normal build). Seeds: the .hsail
# files of tests/asm/corpus, tests/brig/corpus, tests/asm/negative and
# tests/asm/regressions, and the BRIG HSAILasm makes of the corpora (the
# generated gen_* files in pieces of 20 statements) plus tests/brig/regressions;
# for the finalizer the corpora's HSAIL (gen_* in pieces of 20 statements),
# the HSAIL of tests/finalizer/*Test.cpp and tests/finalizer/fuzz_regressions;
# for the packets tests/runtime/fuzz_seeds and tests/runtime/fuzz_regressions.
# See tests/brig/FUZZING.md.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: fuzz.sh [run] reader|assembler|finalizer|packets [SECONDS [FLAGS...]]"
[[ ${1:-} == run ]] && shift
target=${1:?$usage}
shift
seconds=${1:-600}
[[ $# -gt 0 ]] && shift
build=$(realpath -m "${FUZZ_BUILD:-/tmp/openhsa-fuzzbuild}")
work=$(realpath -m "${FUZZ_WORK:-/tmp/openhsa-fuzz}")
all=(fuzz_brig_reader fuzz_assembler fuzz_finalizer fuzz_packets)
case $target in
reader | fuzz_brig_reader) target=reader exe=$build/tests/brig/fuzz_brig_reader ;;
assembler | fuzz_assembler) target=assembler exe=$build/tests/asm/fuzz_assembler ;;
finalizer | fuzz_finalizer)
  target=finalizer exe=$build/tests/finalizer/fuzz_finalizer ;;
packets | fuzz_packets) target=packets exe=$build/tests/runtime/fuzz_packets ;;
build | bundle) exe= ;;
*) echo "unknown target '$target'; $usage" >&2; exit 2 ;;
esac

if [[ -n ${FUZZ_PREBUILT:-} ]]; then
  prebuilt=$(realpath "$FUZZ_PREBUILT")
  exe=$prebuilt/bin/$(basename "$exe")
  export LD_LIBRARY_PATH=$prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
else
  # Two fuzz.sh started at once (the reader and the assembler, say) share
  # the build tree, and two ninjas in one tree break each other's
  # outputs: one configures and builds while the other waits.
  mkdir -p "$build"
  exec 9>"$build/.fuzz-build.lock"
  flock 9
  if [[ ! -f $build/build.ninja ]]; then
    CC=clang-19 CXX=clang++-19 cmake -S . -B "$build" -G Ninja \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPENHSA_BUILD_FUZZERS=ON \
      -DOPENHSA_BUILD_BENCHMARKS=OFF
  fi
  ninja -C "$build" -j"${FUZZ_BUILD_JOBS:-1}" "${all[@]}"
  exec 9>&-
fi
if [[ $target == bundle ]]; then
  # For a machine without oneTBB and hwloc (the GPU machine): the fuzzers
  # (sanitizer runtimes and LLVM linked in), the library and its shared
  # dependencies; there: FUZZ_PREBUILT=.carry/fuzz bash scripts/fuzz.sh ...
  # One fuzzer (TARGET) keeps the folder under the device tool's 64 MiB.
  which=("${all[@]}")
  case $seconds in
  reader | assembler | finalizer | packets) which=("fuzz_${seconds/reader/brig_reader}") ;;
  esac
  rm -rf .carry/fuzz && mkdir -p .carry/fuzz/bin .carry/fuzz/lib
  for t in "${which[@]}"; do
    strip -o ".carry/fuzz/bin/$t" "$(find "$build/tests" -type f -name "$t" | head -n1)"
  done
  if [[ " ${which[*]} " == *" fuzz_packets "* ]]; then
    strip -o .carry/fuzz/lib/libhsa-runtime64.so.1 "$build/runtime/libhsa-runtime64.so.1"
  fi
  # The tree is built for no particular CPU (no -march): only these and
  # libstdc++ (the other machine's may be older) tie it to this one.
  for lib in libtbb.so.12 libhwloc.so.15 libstdc++.so.6 libgcc_s.so.1; do
    cp -L "/usr/lib/x86_64-linux-gnu/$lib" .carry/fuzz/lib/
  done
  du -sh .carry/fuzz
  exit 0
fi
[[ -n $exe ]] || exit 0

seeds=$work/seeds-$target
rm -rf "$seeds"
mkdir -p "$seeds" "$work/corpus-$target" "$work/artifacts-$target"
# Modules of at most 20 statements of a generated corpus file (HSAIL text).
split_hsail() { # FILE OUTPREFIX
  awk -v out="$2" '
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
    }' "$1"
}

if [[ $target == packets ]]; then
  cp tests/runtime/fuzz_seeds/*.bin "$seeds/"
  for f in tests/runtime/fuzz_regressions/*.bin; do
    [[ -f $f ]] && cp "$f" "$seeds/regression_$(basename "$f")"
  done
elif [[ $target == finalizer ]]; then
  for dir in tests/asm/corpus tests/brig/corpus tests/finalizer/fuzz_regressions; do
    tag=${dir//\//_}
    for f in "$dir"/*.hsail; do
      [[ -f $f ]] || continue
      name=$(basename "$f")
      if [[ $name == gen_* ]]; then
        split_hsail "$f" "$seeds/${tag}_${name%.hsail}"
      else
        cp "$f" "$seeds/${tag}_$name"
      fi
    done
  done
  # The kernels of the finalizer's tests (raw strings holding a module).
  python3 - "$seeds" <<'PY'
import glob, re, sys
n = 0
for f in sorted(glob.glob("tests/finalizer/*Test.cpp")):
    for m in re.finditer(r'R"(\w*)\((.*?)\)\1"', open(f).read(), re.S):
        if "module" in m.group(2):
            open(f"{sys.argv[1]}/test_{n}.hsail", "w").write(m.group(2))
            n += 1
PY
fi

for dir in tests/asm/corpus tests/brig/corpus tests/asm/negative \
  tests/asm/regressions tests/brig/regressions; do
  [[ $target == reader || $target == assembler ]] || break
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
# Reader and finalizer inputs are kept small (the seeds are at most a few KB)
# so that the fuzzer spends its time on many modules rather than on a few
# large ones (fuzz_finalizer skips text over 8 KB anyway).
maxlen=()
[[ $target == reader || $target == finalizer ]] && maxlen=(-max_len=8192)
[[ $target == packets ]] && maxlen=(-max_len=2048)
cd "$work" # -jobs writes its fuzz-N.log files here.
exec "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  "${maxlen[@]}" \
  -print_final_stats=1 -artifact_prefix="$work/artifacts-$target/" \
  "$@" "$work/corpus-$target" "$seeds"
