//===- tests/brig/fuzz_brig_reader.cpp - libFuzzer entry point ------------===//
//
// Part of openhsa. Feeds arbitrary bytes to the BRIG reader, validator and
// disassembler (BrigFuzzCheck.h). Built with -DOPENHSA_BUILD_FUZZERS=ON under
// clang; see FUZZING.md.
//
//===----------------------------------------------------------------------===//

#include "BrigFuzzCheck.h"

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  openhsa::brig::fuzz::BrigFuzzOutcome R =
      openhsa::brig::fuzz::checkBrigBytes(llvm::ArrayRef<uint8_t>(Data, Size));
  if (!R.Problem.empty()) {
    std::fprintf(stderr, "fuzz_brig_reader: %s\n", R.Problem.c_str());
    std::abort();
  }
  return 0;
}
