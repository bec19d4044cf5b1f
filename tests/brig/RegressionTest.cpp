//===- tests/brig/RegressionTest.cpp - Inputs the reader fuzzer found -----===//
//
// Part of openhsa. Every file in tests/brig/regressions/ once made
// fuzz_brig_reader report a finding (a crash, an out-of-bounds read,
// undefined behaviour or a hang). Each goes through the fuzzer's own path
// (BrigFuzzCheck.h) and must end cleanly: an error naming the module, or a
// valid module that disassembles.
//
//===----------------------------------------------------------------------===//

#include "BrigFuzzCheck.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace openhsa::brig;

namespace {

std::vector<std::string> regressionFiles() {
  std::vector<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(OPENHSA_BRIG_REGRESSIONS_DIR, EC),
       End;
       It != End && !EC; It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (Name != "README.md")
      Out.push_back(Name.str());
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::string testName(const std::string &File) {
  std::string S;
  for (char C : File)
    S.push_back(std::isalnum(static_cast<unsigned char>(C)) ? C : '_');
  return S;
}

class BrigRegression : public ::testing::TestWithParam<std::string> {};

TEST_P(BrigRegression, EndsCleanly) {
  std::string Path =
      std::string(OPENHSA_BRIG_REGRESSIONS_DIR) + "/" + GetParam();
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false);
  ASSERT_TRUE(bool(Buf)) << "cannot read " << Path;
  llvm::ArrayRef<uint8_t> Bytes(
      reinterpret_cast<const uint8_t *>((*Buf)->getBufferStart()),
      (*Buf)->getBufferSize());
  fuzz::BrigFuzzOutcome R = fuzz::checkBrigBytes(Bytes, GetParam());
  EXPECT_EQ(R.Problem, "");
  if (!R.Valid) {
    EXPECT_FALSE(R.Error.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Fuzz, BrigRegression,
                         ::testing::ValuesIn(regressionFiles()),
                         [](const ::testing::TestParamInfo<std::string> &I) {
                           return testName(I.param);
                         });

// gtest fails an instantiation with no parameters unless told otherwise.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BrigRegression);

} // namespace
