#!/usr/bin/env bash
# The four fuzzers at once on the 16-core GPU machine (tests/brig/FUZZING.md).
#
#   bash scripts/fuzz-device.sh pack                 # here: .carry-fuzz/
#   bash scripts/fuzz-device.sh run SECONDS OUT [reader=N assembler=N finalizer=N packets=N]
#                                                     # there, in the tree
#
# pack builds the fuzzers (scripts/fuzz.sh bundle), packs them into one xz
# archive (107 MB as they are, over the device tool's 64 MiB for `carry`;
# about 30 MB packed) and adds the reader's seeds that need HSAILasm, which
# the GPU machine lacks (HSAILasm's BRIG of the test corpora). run unpacks
# it, runs each fuzzer with N processes (4 each by default) sharing a
# corpus for SECONDS, and writes into OUT a summary (executions, coverage,
# findings per process) and the findings' inputs (artifacts.tar.gz).
set -euo pipefail
cd "$(dirname "$0")/.."
carry=.carry-fuzz
case ${1:-} in
pack)
  bash scripts/fuzz.sh bundle
  mkdir -p "$carry"
  tar -C .carry -cf - fuzz | xz -T0 -6 >"$carry/fuzz.tar.xz"
  rm -rf .carry/fuzz "$carry/reader-seeds" /tmp/openhsa-fuzz-pack
  # Only for its seeds: the reader runs for a second here.
  FUZZ_WORK=/tmp/openhsa-fuzz-pack bash scripts/fuzz.sh run reader 1 \
    >/dev/null 2>&1 || true
  cp -r /tmp/openhsa-fuzz-pack/seeds-reader "$carry/reader-seeds"
  du -sh "$carry"
  ;;
run)
  secs=${2:?seconds} out=$(realpath "${3:?output folder}")
  shift 3
  declare -A procs=([reader]=4 [assembler]=4 [finalizer]=4 [packets]=4)
  for kv in "$@"; do procs[${kv%%=*}]=${kv#*=}; done
  root=$(pwd)
  mkdir -p /tmp/fz
  [[ -d /tmp/fz/fuzz ]] || tar -C /tmp/fz -xJf "$carry/fuzz.tar.xz"
  for t in reader assembler finalizer packets; do
    n=${procs[$t]}
    ((n > 0)) || continue
    extra=()
    [[ $t == reader ]] && extra=("$root/$carry/reader-seeds")
    FUZZ_PREBUILT=/tmp/fz/fuzz FUZZ_WORK=/tmp/fw-$t \
      bash scripts/fuzz.sh run $t "$secs" -jobs="$n" -workers="$n" \
      "${extra[@]}" >"$out/launch-$t.log" 2>&1 &
  done
  wait || true
  for t in reader assembler finalizer packets; do
    ((${procs[$t]} > 0)) || continue
    echo "== $t (${procs[$t]} processes)"
    for f in /tmp/fw-$t/fuzz-*.log; do
      echo "-- $(basename "$f"): $(grep -E '^#[0-9]+' "$f" | tail -1)"
      grep -E '^stat::(number_of_executed_units|average_exec_per_sec)|^Done' "$f" || true
      grep -E 'ERROR|SUMMARY|Timeout|leak' "$f" | head -5 || true
    done
    echo "findings: $(ls /tmp/fw-$t/artifacts-$t/ 2>/dev/null | wc -l)"
  done >"$out/summary.txt"
  tar -czf "$out/artifacts.tar.gz" -C /tmp $(cd /tmp && ls -d fw-*/artifacts-* 2>/dev/null) \
    2>/dev/null || true
  cat "$out/summary.txt"
  ;;
*)
  echo "usage: fuzz-device.sh pack | run SECONDS OUT [target=N ...]" >&2
  exit 2
  ;;
esac
