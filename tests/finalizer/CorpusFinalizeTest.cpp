//===- tests/finalizer/CorpusFinalizeTest.cpp - Finalize the asm corpus ---===//
//
// Every file of the assembler's corpus (tests/asm/corpus: every opcode,
// directive, operand kind and modifier family) goes through the finalizer.
// Each either finalizes and loads, or is refused with an error naming the
// instruction or directive and its BRIG offset: never a crash, never
// invalid IR, never an error without a place.
//
//===----------------------------------------------------------------------===//
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
std::vector<std::string> corpusFiles() {
  const char *Env = std::getenv("OPENHSA_ASM_CORPUS_DIR");
  const std::string Dir = Env && *Env ? Env : OPENHSA_ASM_CORPUS_DIR;
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    if (llvm::sys::path::extension(It->path()) == ".hsail")
      Files.push_back(It->path());
  std::sort(Files.begin(), Files.end());
  return Files;
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
                         ::testing::ValuesIn(corpusFiles()),
                         [](const ::testing::TestParamInfo<std::string> &I) {
                           std::string Stem =
                               llvm::sys::path::stem(I.param).str();
                           std::replace_if(
                               Stem.begin(), Stem.end(),
                               [](char C) { return !std::isalnum(C); }, '_');
                           return Stem;
                         });

} // namespace
