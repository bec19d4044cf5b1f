//===- tests/finalizer/fuzz_finalizer.cpp - libFuzzer entry point ---------===//
//
// Part of openhsa. Feeds arbitrary HSAIL text to the assembler and validator;
// every module that validates is finalized for the host CPU and loaded
// (FinalizerFuzzCheck.h). HSAIL text rather than BRIG: text mutations keep
// producing modules that validate (fuzz_brig_reader's byte mutations of BRIG
// almost never do), and the assembler and validator are fuzzed on their own
// by fuzz_assembler and fuzz_brig_reader. Built with
// -DOPENHSA_BUILD_FUZZERS=ON under clang; see tests/brig/FUZZING.md.
//
//===----------------------------------------------------------------------===//

#include "FinalizerFuzzCheck.h"

#include "cpu_agent/KernelHelpers.h"

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // The runtime functions finalized code calls, as the CPU agent provides
  // them: without them every kernel that calls one would fail to load.
  openhsa::cpu::registerKernelHelpers();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  // Both work-item loop forms: vectorized at the host's width (even sizes)
  // and scalar (odd sizes).
  openhsa::finalizer::fuzz::FinalizerFuzzOutcome R =
      openhsa::finalizer::fuzz::checkFinalize(Text, Size % 2);
  if (!R.Problem.empty()) {
    std::fprintf(stderr, "fuzz_finalizer: %s\n", R.Problem.c_str());
    std::abort();
  }
  return R.Skipped ? -1 : 0; // -1: not added to the corpus.
}
