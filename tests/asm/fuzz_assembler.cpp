//===- tests/asm/fuzz_assembler.cpp - libFuzzer entry point ---------------===//
//
// Part of openhsa. Feeds arbitrary text to the HSAIL assembler and checks
// that what it accepts round-trips through the disassembler byte for byte
// (AsmFuzzCheck.h). Built with -DOPENHSA_BUILD_FUZZERS=ON under clang; see
// tests/brig/FUZZING.md.
//
//===----------------------------------------------------------------------===//

#include "AsmFuzzCheck.h"

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  openhsa::brig::fuzz::AsmFuzzOutcome R =
      openhsa::brig::fuzz::checkHsailText(Text);
  if (!R.Problem.empty()) {
    std::fprintf(stderr, "fuzz_assembler: %s\n", R.Problem.c_str());
    std::abort();
  }
  return 0;
}
