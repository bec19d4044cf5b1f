#!/bin/bash
# Runs every test of the gtest binary $1 in its own process (on the GPU
# machine: a GPU fault ends the process's use of the device, so one faulting
# test must not take the others with it). Used for the finalizer tests on a
# GPU agent: OPENHSA_TEST_AGENT=gpu scripts/run-each-test.sh openhsa_finalizer_all.
# Prints PASS/FAIL/SKIP/CRASH per test and the first lines of each failure.
bin=$1; shift
suite=""
$bin --gtest_list_tests "$@" | while IFS= read -r line; do
  if [[ "$line" != " "* ]]; then suite="${line%% *}"; continue; fi
  t="${line#  }"; t="${t%% *}"
  name="$suite$t"
  out=$(timeout 60 $bin --gtest_filter="$name" 2>&1); rc=$?
  if [ $rc -eq 0 ] && echo "$out" | grep -q "\[  PASSED  \] 1 test"; then echo "PASS $name";
  elif echo "$out" | grep -q "\[  SKIPPED \]"; then echo "SKIP $name";
  elif [ $rc -ge 124 ]; then echo "CRASH($rc) $name"; echo "$out" | grep -E "ERROR|error|Failure" | head -3 | sed 's/^/    /';
  else echo "FAIL $name"; echo "$out" | grep -E -A4 "Failure|openhsa:" | head -8 | sed 's/^/    /'; fi
done
