//===- tests/finalizer/CorpusFinalizeTest.cpp - Finalize the asm corpus ---===//
//
// Every file of the assembler's corpus (tests/asm/corpus: every opcode,
// directive, operand kind and modifier family) goes through the finalizer.
// Each either finalizes and loads, or is refused with an error naming the
// instruction or directive and its BRIG offset: never a crash, never
// invalid IR, never an error without a place.
//
//===----------------------------------------------------------------------===//
#include "FinalizerFuzzCheck.h"
#include "KernelRunner.h"

#include "cpu_agent/KernelHelpers.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstdlib>

using namespace openhsa::test;

namespace {

/// The corpus of the source tree, or $OPENHSA_ASM_CORPUS_DIR where the
/// binary runs elsewhere.
std::vector<std::string> filesIn(const std::string &Dir,
                                 llvm::StringRef Extension) {
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    if (llvm::sys::path::extension(It->path()) == Extension)
      Files.push_back(It->path());
  std::sort(Files.begin(), Files.end());
  return Files;
}

std::vector<std::string> corpusFiles() {
  const char *Env = std::getenv("OPENHSA_ASM_CORPUS_DIR");
  return filesIn(Env && *Env ? Env : OPENHSA_ASM_CORPUS_DIR, ".hsail");
}

/// Inputs fuzz_finalizer found a bug with (tests/finalizer/fuzz_regressions).
std::vector<std::string> fuzzRegressionFiles() {
  const char *Env = std::getenv("OPENHSA_FINALIZER_FUZZ_REGRESSIONS_DIR");
  return filesIn(Env && *Env ? Env : OPENHSA_FINALIZER_FUZZ_REGRESSIONS_DIR,
                 ".hsail");
}

std::string testName(const ::testing::TestParamInfo<std::string> &I) {
  std::string Stem = llvm::sys::path::stem(I.param).str();
  std::replace_if(
      Stem.begin(), Stem.end(), [](char C) { return !std::isalnum(C); }, '_');
  return Stem;
}

class CorpusFinalize : public ::testing::TestWithParam<std::string> {
protected:
  // The runtime functions kernels call (signals, clock, traps...), as the
  // CPU agent provides them.
  static void SetUpTestSuite() { openhsa::cpu::registerKernelHelpers(); }
};

TEST_P(CorpusFinalize, FinalizesOrNamesWhatItRefuses) {
  auto Text = llvm::MemoryBuffer::getFile(GetParam());
  ASSERT_TRUE(bool(Text)) << GetParam();
  auto P = finalizeText(std::string((*Text)->getBuffer()));
  if (P) {
    RecordProperty("result", "finalized");
    EXPECT_FALSE(P->Code.Object.empty());
    return;
  }
  const std::string Message = llvm::toString(P.takeError());
  RecordProperty("result", Message);
  std::cout << "refused: " << Message << "\n";
  EXPECT_EQ(Message.find("internal error"), std::string::npos) << Message;
  EXPECT_NE(Message.find("+0x"), std::string::npos)
      << "the error does not say where: " << Message;
}

INSTANTIATE_TEST_SUITE_P(AsmCorpus, CorpusFinalize,
                         ::testing::ValuesIn(corpusFiles()), testName);

// Each input fuzz_finalizer found a bug with, through the fuzzer's own path
// (FinalizerFuzzCheck.h), with vectorized and with scalar work-item loops.
using FuzzRegression = CorpusFinalize;

TEST_P(FuzzRegression, FinalizesOrIsRefusedWithAPlace) {
  auto Text = llvm::MemoryBuffer::getFile(GetParam());
  ASSERT_TRUE(bool(Text)) << GetParam();
  for (unsigned Width : {0u, 1u}) {
    auto R =
        openhsa::finalizer::fuzz::checkFinalize((*Text)->getBuffer(), Width);
    EXPECT_EQ(R.Problem, "") << "vector width " << Width;
    EXPECT_FALSE(R.Skipped) << "the input no longer reaches the finalizer";
  }
}

INSTANTIATE_TEST_SUITE_P(Fuzz, FuzzRegression,
                         ::testing::ValuesIn(fuzzRegressionFiles()), testName);

} // namespace
