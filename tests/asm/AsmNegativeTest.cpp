//===- tests/asm/AsmNegativeTest.cpp - Malformed input diagnostics --------===//
//
// Every tests/asm/negative/*.hsail starts with a line
//
//   // expect: LINE:COL: message text
//
// The assembler must reject the file with exactly
// "FILE:LINE:COL: error: message text" followed by the offending source line
// and a caret under COL, and HSAILasm must reject the same input.
//
//===----------------------------------------------------------------------===//

#include "AsmTestSupport.h"

#include "brig/asm/Assembler.h"

#include "llvm/ADT/StringRef.h"

#include <gtest/gtest.h>

using namespace openhsa;
using namespace openhsa::asmtest;

namespace {

class AsmNegative : public ::testing::TestWithParam<std::string> {};

TEST_P(AsmNegative, RejectedWithDiagnostic) {
  const std::string Stem = GetParam();
  const std::string Path =
      std::string(OPENHSA_ASM_NEGATIVE_DIR) + "/" + Stem + ".hsail";
  std::optional<std::string> Text = readFile(Path);
  ASSERT_TRUE(Text) << "cannot read " << Path;

  llvm::StringRef First = llvm::StringRef(*Text).split('\n').first;
  ASSERT_TRUE(First.consume_front("// expect: "))
      << Path << " must start with '// expect: LINE:COL: message'";
  auto [LineStr, Rest1] = First.split(':');
  auto [ColStr, Message] = Rest1.split(':');
  unsigned Line = 0, Col = 0;
  ASSERT_FALSE(LineStr.getAsInteger(10, Line));
  ASSERT_FALSE(ColStr.getAsInteger(10, Col));
  Message = Message.trim();

  llvm::Expected<std::vector<uint8_t>> Ours =
      brig::assembler::assembleHsail(*Text);
  ASSERT_FALSE(bool(Ours)) << "assembler accepted malformed input " << Path;
  std::string Diag =
      brig::assembler::renderError(Ours.takeError(), Path, *Text);

  std::string Expected = Path + ":" + std::to_string(Line) + ":" +
                         std::to_string(Col) + ": error: " + Message.str() +
                         "\n";
  llvm::StringRef D(Diag);
  EXPECT_TRUE(D.starts_with(Expected)) << "got:\n"
                                       << Diag << "expected:\n"
                                       << Expected;

  // The offending line is echoed, then a caret under the column.
  llvm::SmallVector<llvm::StringRef, 4> Lines;
  D.split(Lines, '\n');
  ASSERT_GE(Lines.size(), 3u) << Diag;
  llvm::SmallVector<llvm::StringRef, 64> SrcLines;
  llvm::StringRef(*Text).split(SrcLines, '\n');
  ASSERT_LE(Line, SrcLines.size());
  EXPECT_EQ(Lines[1], SrcLines[Line - 1].rtrim("\r"));
  EXPECT_EQ(Lines[2].size(), Col) << Diag;
  EXPECT_TRUE(Lines[2].ends_with("^")) << Diag;

  if (oraclePath().empty())
    GTEST_SKIP() << "HSAILasm not installed; oracle check skipped";
  OracleResult Ref = runOracle(Path, "neg_" + Stem);
  EXPECT_NE(Ref.ExitCode, 0) << "HSAILasm accepted " << Path;
}

INSTANTIATE_TEST_SUITE_P(
    Negative, AsmNegative,
    ::testing::ValuesIn(listHsailFiles(OPENHSA_ASM_NEGATIVE_DIR)),
    [](const ::testing::TestParamInfo<std::string> &I) {
      return testNameFor(I.param);
    });

} // namespace
