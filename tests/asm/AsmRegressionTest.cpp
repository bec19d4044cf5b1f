//===- tests/asm/AsmRegressionTest.cpp - Inputs the assembler fuzzer found
//-===//
//
// Every file in tests/asm/regressions/ once made fuzz_assembler report a
// finding (a crash, undefined behaviour, a hang or a round-trip mismatch).
// Each goes through the fuzzer's own path (AsmFuzzCheck.h) and must end
// cleanly: rejected with a positioned "file:LINE:COL: error:" diagnostic, or
// assembled into BRIG that disassembles and reassembles byte for byte.
//
//===----------------------------------------------------------------------===//

#include "AsmFuzzCheck.h"
#include "AsmTestSupport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace openhsa;

namespace {

std::vector<std::string> regressionFiles() {
  std::vector<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(OPENHSA_ASM_REGRESSIONS_DIR, EC),
       End;
       It != End && !EC; It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (Name != "README.md")
      Out.push_back(Name.str());
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

class AsmRegression : public ::testing::TestWithParam<std::string> {};

TEST_P(AsmRegression, EndsCleanly) {
  std::string Path =
      std::string(OPENHSA_ASM_REGRESSIONS_DIR) + "/" + GetParam();
  std::optional<std::string> Text = asmtest::readFile(Path);
  ASSERT_TRUE(Text) << "cannot read " << Path;
  brig::fuzz::AsmFuzzOutcome R = brig::fuzz::checkHsailText(*Text, GetParam());
  EXPECT_EQ(R.Problem, "");
  if (!R.Assembled) {
    EXPECT_NE(R.Error.find(GetParam() + ":"), std::string::npos) << R.Error;
  }
}

INSTANTIATE_TEST_SUITE_P(Fuzz, AsmRegression,
                         ::testing::ValuesIn(regressionFiles()),
                         [](const ::testing::TestParamInfo<std::string> &I) {
                           return asmtest::testNameFor(I.param);
                         });

// gtest fails an instantiation with no parameters unless told otherwise.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(AsmRegression);

} // namespace
