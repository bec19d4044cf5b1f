//===- tests/brig/CorpusTest.cpp - Round trips through HSAILasm -----------===//
//
// Part of openhsa. For every tests/brig/corpus/*.hsail: HSAILasm assembles it,
// our validator must accept the BRIG, and our disassembly must equal
// HSAILasm's own (-disassemble). Skipped when HSAILasm is not installed.
//
//===----------------------------------------------------------------------===//

#include "BrigTestBuilder.h"

#include "brig/Disassembler.h"
#include "brig/Validator.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <gtest/gtest.h>

using namespace openhsa::brig;
using namespace openhsa::brig::test;

namespace {

std::vector<std::string> corpusNames() {
  std::vector<std::string> Names;
  llvm::SmallVector<llvm::StringRef, 16> Parts;
  llvm::StringRef(OPENHSA_BRIG_CORPUS_FILES).split(Parts, ';', -1, false);
  for (llvm::StringRef P : Parts)
    Names.push_back(llvm::sys::path::stem(P).str());
  return Names;
}

/// Runs HSAILasm with \p Args; returns an error message or "".
std::string runHsailAsm(llvm::ArrayRef<llvm::StringRef> Args) {
  std::vector<llvm::StringRef> Argv = {OPENHSA_HSAILASM_PATH};
  Argv.insert(Argv.end(), Args.begin(), Args.end());
  std::string Err;
  int RC = llvm::sys::ExecuteAndWait(OPENHSA_HSAILASM_PATH, Argv, std::nullopt,
                                     {}, /*SecondsToWait=*/60, 0, &Err);
  if (RC != 0)
    return "HSAILasm failed (" + std::to_string(RC) + "): " + Err;
  return "";
}

class CorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusTest, MatchesHsailAsm) {
  if (llvm::StringRef(OPENHSA_HSAILASM_PATH).empty())
    GTEST_SKIP() << "HSAILasm not found at configure time";
  std::string Src =
      std::string(OPENHSA_BRIG_CORPUS_DIR) + "/" + GetParam() + ".hsail";
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("openhsa-brig", Dir));
  std::string Brig = (Dir + "/" + GetParam() + ".brig").str();
  std::string Ref = (Dir + "/" + GetParam() + ".ref.hsail").str();
  // Files named comments*.hsail keep their comments in the BRIG.
  bool Comments = llvm::StringRef(GetParam()).starts_with("comments");
  if (Comments)
    ASSERT_EQ(runHsailAsm({"-enable-comments", Src, "-o", Brig}), "");
  else
    ASSERT_EQ(runHsailAsm({Src, "-o", Brig}), "");
  ASSERT_EQ(runHsailAsm({"-disassemble", Brig, "-o", Ref}), "");

  auto BrigBuf =
      llvm::MemoryBuffer::getFile(Brig, false, false, false, llvm::Align(16));
  auto RefBuf = llvm::MemoryBuffer::getFile(Ref);
  ASSERT_TRUE(bool(BrigBuf) && bool(RefBuf));
  llvm::ArrayRef<uint8_t> Bytes(
      reinterpret_cast<const uint8_t *>((*BrigBuf)->getBufferStart()),
      (*BrigBuf)->getBufferSize());
  auto M = loadValidatedModule(Bytes, GetParam() + ".brig");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  std::string Ours = disassembleToString(*M);
  EXPECT_EQ(Ours, (*RefBuf)->getBuffer().str());

  // Our text must itself assemble back to a module we print identically.
  std::string Again = (Dir + "/" + GetParam() + ".again.hsail").str();
  std::string Brig2 = (Dir + "/" + GetParam() + ".again.brig").str();
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Again, EC);
    ASSERT_FALSE(EC);
    OS << Ours;
  }
  if (Comments)
    ASSERT_EQ(runHsailAsm({"-enable-comments", Again, "-o", Brig2}), "");
  else
    ASSERT_EQ(runHsailAsm({Again, "-o", Brig2}), "");
  auto Buf2 =
      llvm::MemoryBuffer::getFile(Brig2, false, false, false, llvm::Align(16));
  ASSERT_TRUE(bool(Buf2));
  auto M2 = loadValidatedModule(
      llvm::ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t *>((*Buf2)->getBufferStart()),
          (*Buf2)->getBufferSize()),
      "again.brig");
  ASSERT_TRUE(bool(M2)) << llvm::toString(M2.takeError());
  EXPECT_EQ(disassembleToString(*M2), Ours);
  llvm::sys::fs::remove_directories(Dir);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusTest, ::testing::ValuesIn(corpusNames()),
                         [](const auto &Info) { return Info.param; });

} // namespace
