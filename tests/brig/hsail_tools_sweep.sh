#!/bin/bash
# Sweep over HSAIL-Tools' tests (github.com/HSAFoundation/HSAIL-Tools,
# tests/1.0; not vendored here): for every .hsail file HSAILasm assembles,
# openhsa's validator and semantic rules (openhsa-as --validate, what
# hsa_ext_program_add_module runs) must accept the BRIG, openhsa-dis must
# print it, and HSAILasm must reassemble that text to the same bytes.
#
#   tests/brig/hsail_tools_sweep.sh HSAIL_TOOLS/tests/1.0 BUILD_DIR [WORK_DIR]
#
# Prints one line per failing file and a summary; exits 1 if any failed.
set -u
Tests=$1 Build=$2 Work=${3:-$(mktemp -d)}
As=$Build/tools/openhsa-as/openhsa-as Dis=$Build/tools/openhsa-dis/openhsa-dis
mkdir -p "$Work"
Files=0 Rejected=0 Ok=0 Failed=0
while read -r F; do
  Files=$((Files + 1))
  Id=$(echo "${F#"$Tests"/}" | tr / _)
  A=$Work/$Id.brig D=$Work/$Id.dis.hsail B=$Work/$Id.re.brig
  if ! HSAILasm "$F" -o "$A" >/dev/null 2>&1; then
    Rejected=$((Rejected + 1)) # a negative test: nothing to check
    continue
  fi
  if ! Msg=$("$As" --validate "$A" 2>&1); then
    echo "validate: $F: $Msg"
  elif ! Msg=$("$Dis" "$A" -o "$D" 2>&1); then
    echo "disassemble: $F: $Msg"
  elif ! Msg=$(HSAILasm "$D" -o "$B" 2>&1); then
    echo "reassemble: $F: $(echo "$Msg" | head -3 | tr '\n' ' ')"
  elif ! cmp -s "$A" "$B"; then
    echo "bytes differ: $F"
  else
    Ok=$((Ok + 1))
    rm -f "$A" "$D" "$B"
    continue
  fi
  Failed=$((Failed + 1))
done < <(find "$Tests" -name '*.hsail' | sort)
echo "files $Files, HSAILasm rejects $Rejected, pass $Ok, fail $Failed"
[ "$Failed" -eq 0 ]
