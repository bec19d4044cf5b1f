//===- tests/asm/AsmCorpusTest.cpp - Differential test against HSAILasm ---===//
//
// Every tests/asm/corpus/*.hsail is assembled by openhsa's assembler and by
// HSAILasm (the HSA Foundation assembler, the oracle). The two BRIG images
// must be byte-identical. Files listed in KnownDifferences are allowed to
// differ, each with the reason recorded here.
//
//===----------------------------------------------------------------------===//

#include "AsmFuzzCheck.h"
#include "AsmTestSupport.h"

#include "brig/asm/Assembler.h"

#if __has_include("brig/Validator.h")
#include "brig/Validator.h"
#include "brig/asm/ModuleSemantics.h"
#define OPENHSA_ASM_TEST_HAVE_VALIDATOR 1
#endif

#include <gtest/gtest.h>

#include <map>

using namespace openhsa;
using namespace openhsa::asmtest;

namespace {

// Corpus files whose BRIG legitimately differs from HSAILasm's output.
// (Empty: every corpus file currently matches byte for byte.)
const std::map<std::string, std::string> KnownDifferences = {};

class AsmCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(AsmCorpus, MatchesOracle) {
  const std::string Stem = GetParam();
  const std::string Path =
      std::string(OPENHSA_ASM_CORPUS_DIR) + "/" + Stem + ".hsail";
  std::optional<std::string> Text = readFile(Path);
  ASSERT_TRUE(Text) << "cannot read " << Path;

  llvm::Expected<std::vector<uint8_t>> Ours =
      brig::assembler::assembleHsail(*Text);
  if (!Ours)
    FAIL() << brig::assembler::renderError(Ours.takeError(), Path, *Text);

  // Assembling is deterministic.
  llvm::Expected<std::vector<uint8_t>> Again =
      brig::assembler::assembleHsail(*Text);
  ASSERT_TRUE(bool(Again));
  EXPECT_EQ(*Ours, *Again);

  if (oraclePath().empty())
    GTEST_SKIP() << "HSAILasm not installed; differential check skipped";

  OracleResult Ref = runOracle(Path, Stem);
  ASSERT_EQ(Ref.ExitCode, 0)
      << "HSAILasm rejected corpus file " << Path << ":\n"
      << Ref.Log;

  std::optional<size_t> Diff = firstDifference(Ref.Brig, *Ours);
  auto Known = KnownDifferences.find(Stem);
  if (Diff && Known != KnownDifferences.end()) {
    RecordProperty("known_difference", Known->second);
    SUCCEED() << "known difference: " << Known->second;
    return;
  }
  EXPECT_FALSE(Diff.has_value())
      << "BRIG differs from HSAILasm at byte " << *Diff << " (ours "
      << Ours->size() << " bytes, HSAILasm " << Ref.Brig.size() << " bytes)";
}

// assemble -> disassemble -> assemble is byte-identical (the path the
// assembler fuzzer checks, AsmFuzzCheck.h).
TEST_P(AsmCorpus, RoundTrips) {
  const std::string Stem = GetParam();
  const std::string Path =
      std::string(OPENHSA_ASM_CORPUS_DIR) + "/" + Stem + ".hsail";
  std::optional<std::string> Text = readFile(Path);
  ASSERT_TRUE(Text) << "cannot read " << Path;
  brig::fuzz::AsmFuzzOutcome R = brig::fuzz::checkHsailText(*Text, Path);
  EXPECT_TRUE(R.Assembled) << R.Error;
  EXPECT_EQ(R.Problem, "");
}

#ifdef OPENHSA_ASM_TEST_HAVE_VALIDATOR
// Corpus files that HSAILasm accepts but brig/Validator.h rejects, with the
// reason. These document differences between the two validators, not
// assembler bugs.
// (None today: the validator takes every pragma operand of PRM 13.3,
// registers and WAVESIZE included.)
const std::map<std::string, std::string> ValidatorExceptions = {};

// Our output also passes openhsa's own BRIG validator (brig/Validator.h).
TEST_P(AsmCorpus, PassesOpenhsaValidator) {
  const std::string Stem = GetParam();
  auto Exception = ValidatorExceptions.find(Stem);
  if (Exception != ValidatorExceptions.end())
    GTEST_SKIP() << Exception->second;
  const std::string Path =
      std::string(OPENHSA_ASM_CORPUS_DIR) + "/" + Stem + ".hsail";
  std::optional<std::string> Text = readFile(Path);
  ASSERT_TRUE(Text) << "cannot read " << Path;
  llvm::Expected<std::vector<uint8_t>> Ours =
      brig::assembler::assembleHsail(*Text);
  if (!Ours)
    FAIL() << brig::assembler::renderError(Ours.takeError(), Path, *Text);
  auto M = brig::loadValidatedModule(*Ours, Stem + ".brig");
  EXPECT_TRUE(bool(M)) << llvm::toString(M.takeError());
}

/// Checks \p Brig against the semantic rules (brig/asm/ModuleSemantics.h).
/// A file of ValidatorExceptions is checked unvalidated: the validator's
/// only objection is to a pragma, which the rules do not look at.
void expectPassesSemantics(const std::vector<uint8_t> &Brig,
                           const std::string &Stem, const std::string &Name) {
  if (ValidatorExceptions.count(Stem)) {
    auto M = brig::BrigModule::create(Brig, Name);
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    llvm::Error E = brig::assembler::checkModuleSemantics(*M);
    EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
    return;
  }
  auto M = brig::assembler::loadCheckedModule(Brig, Name);
  EXPECT_TRUE(bool(M)) << llvm::toString(M.takeError());
}

// The text passed the assembler's semantic rules, so its BRIG, ours and
// HSAILasm's, passes them too when they run on BRIG.
TEST_P(AsmCorpus, PassesSemanticRulesOnBrig) {
  const std::string Stem = GetParam();
  const std::string Path =
      std::string(OPENHSA_ASM_CORPUS_DIR) + "/" + Stem + ".hsail";
  std::optional<std::string> Text = readFile(Path);
  ASSERT_TRUE(Text) << "cannot read " << Path;
  llvm::Expected<std::vector<uint8_t>> Ours =
      brig::assembler::assembleHsail(*Text);
  if (!Ours)
    FAIL() << brig::assembler::renderError(Ours.takeError(), Path, *Text);
  expectPassesSemantics(*Ours, Stem, Stem + ".brig");

  if (oraclePath().empty())
    GTEST_SKIP() << "HSAILasm not installed; its BRIG is not checked";
  OracleResult Ref = runOracle(Path, "semantics_" + Stem);
  ASSERT_EQ(Ref.ExitCode, 0) << Ref.Log;
  expectPassesSemantics(Ref.Brig, Stem, Stem + ".hsailasm.brig");
}
#endif

std::vector<std::string> corpus() {
  return listHsailFiles(OPENHSA_ASM_CORPUS_DIR);
}

INSTANTIATE_TEST_SUITE_P(Corpus, AsmCorpus, ::testing::ValuesIn(corpus()),
                         [](const ::testing::TestParamInfo<std::string> &I) {
                           return testNameFor(I.param);
                         });

} // namespace
