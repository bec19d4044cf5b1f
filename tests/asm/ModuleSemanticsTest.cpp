//===- tests/asm/ModuleSemanticsTest.cpp - Semantic rules on BRIG ---------===//
//
// brig/asm/ModuleSemantics.h runs the assembler's semantic rules
// (Semantics.h) on BRIG:
//
//  * the BRIG of every other HSAIL text of the tree (tests/brig/corpus,
//    examples/; tests/asm/corpus is AsmCorpusTest.cpp's), ours and
//    HSAILasm's, passes;
//  * every tests/asm/negative case that still assembles with the rules off
//    gives BRIG that brig/Validator.h or the checker rejects, naming the
//    hsa_code entry; the checker with the message the text gets. The cases
//    that do not assemble without the rules, or whose BRIG the validator
//    already rejects, are listed below with the reason;
//  * diagnostics name the entry and the operand; what BRIG cannot say
//    (whether a rounding or an allocation was written) is read as the text
//    would have written it; BRIG-only rules (immediate types) hold.
//
//===----------------------------------------------------------------------===//

#include "AsmTestSupport.h"

#include "brig/Validator.h"
#include "brig/asm/Assembler.h"
#include "brig/asm/ModuleSemantics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <iostream>
#include <map>

using namespace openhsa;
using namespace openhsa::asmtest;
using openhsa::brig::BrigModule;

namespace {

//===----------------------------------------------------------------------===//
// Valid text gives BRIG that passes
//===----------------------------------------------------------------------===//

/// The HSAIL files of the tree besides tests/asm/corpus, as paths.
std::vector<std::string> otherHsailFiles() {
  std::vector<std::string> Out;
  for (const std::string &S : listHsailFiles(OPENHSA_BRIG_TEXT_CORPUS_DIR))
    Out.push_back(std::string(OPENHSA_BRIG_TEXT_CORPUS_DIR) + "/" + S +
                  ".hsail");
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(OPENHSA_EXAMPLES_DIR, EC), End;
       It != End && !EC; It.increment(EC))
    for (const std::string &S : listHsailFiles(It->path()))
      Out.push_back(It->path() + "/" + S + ".hsail");
  std::sort(Out.begin(), Out.end());
  return Out;
}

class ValidTextBrig : public ::testing::TestWithParam<std::string> {};

TEST_P(ValidTextBrig, PassesTheSemanticRules) {
  const std::string Path = GetParam();
  std::optional<std::string> Text = readFile(Path);
  ASSERT_TRUE(Text) << "cannot read " << Path;
  auto Ours = brig::assembler::assembleHsail(*Text);
  if (!Ours)
    FAIL() << brig::assembler::renderError(Ours.takeError(), Path, *Text);
  auto M = brig::assembler::loadCheckedModule(*Ours, "ours.brig");
  EXPECT_TRUE(bool(M)) << llvm::toString(M.takeError());

  if (oraclePath().empty())
    GTEST_SKIP() << "HSAILasm not installed; its BRIG is not checked";
  OracleResult Ref =
      runOracle(Path, "semantics_" + llvm::sys::path::stem(Path).str());
  ASSERT_EQ(Ref.ExitCode, 0) << Ref.Log;
  auto R = brig::assembler::loadCheckedModule(Ref.Brig, "hsailasm.brig");
  EXPECT_TRUE(bool(R)) << llvm::toString(R.takeError());
}

INSTANTIATE_TEST_SUITE_P(Tree, ValidTextBrig,
                         ::testing::ValuesIn(otherHsailFiles()),
                         [](const ::testing::TestParamInfo<std::string> &I) {
                           llvm::StringRef P(I.param);
                           bool Brig =
                               P.starts_with(OPENHSA_BRIG_TEXT_CORPUS_DIR);
                           return testNameFor(
                               (Brig ? "brig_corpus_" : "example_") +
                               llvm::sys::path::stem(P).str());
                         });

//===----------------------------------------------------------------------===//
// Negative cases
//===----------------------------------------------------------------------===//

// The cases the assembler rejects even with the semantic rules off: their
// rule belongs to the lexer, the grammar, the parser's own checks or the
// emitter's name binding, so no BRIG comes out of them. Where BRIG can break
// the same rule, the reason says what catches it there.
const std::map<std::string, std::string> RejectedWithoutTheRules = {
    {"bad_float_width", "immediate conversion (parser); in BRIG the "
                        "immediate-type rule of Semantics.cpp"},
    {"bad_profile", "grammar; in BRIG the validator checks the profile"},
    {"bad_width", "mnemonic syntax; in BRIG the validator checks the width "
                  "encoding"},
    {"comment_at_end_of_file", "lexer"},
    {"control_after_instruction",
     "parser: control directives come first in a code block; not ported "
     "(the checker skips control directives)"},
    {"control_missing_operands",
     "parser: operand count of a control directive; not ported"},
    {"duplicate_label", "emitter: label names (BRIG refers to labels by "
                        "offset)"},
    {"duplicate_module", "parser; in BRIG the validator allows one module "
                         "directive"},
    {"extension_after_declaration",
     "parser: extension placement; not ported (the checker looks for "
     "extension \"IMAGE\" anywhere in the module)"},
    {"flat_segment_spelled", "mnemonic syntax"},
    {"label_outside_code", "emitter; in BRIG the validator rejects labels "
                           "outside code blocks"},
    {"lone_carriage_return", "lexer"},
    {"missing_semicolon", "grammar"},
    {"missing_type", "mnemonic syntax"},
    {"module_name_is_kernel_name", "emitter: name binding"},
    {"redefinition_global", "emitter: name binding"},
    {"redefinition_kind", "emitter: name binding"},
    {"redefinition_local", "emitter: name binding"},
    {"too_many_vector_elements", "grammar; in BRIG the validator allows 2 "
                                 "to 4 vector elements"},
    {"typed_constant_mismatch", "typed constant conversion (parser); in BRIG "
                                "the immediate-type rule of Semantics.cpp"},
    {"undefined_label", "emitter: name binding; in BRIG the validator checks "
                        "every reference"},
    {"undefined_symbol", "emitter: name binding; in BRIG the validator "
                         "checks every reference"},
    {"unknown_instruction", "mnemonic syntax; in BRIG the validator rejects "
                            "unknown opcodes"},
    {"unsupported_version", "parser; in BRIG the validator checks the HSAIL "
                            "version"},
    {"unterminated_comment", "lexer"},
    {"unterminated_string", "lexer"},
};

// The cases whose BRIG brig/Validator.h rejects before the checker runs: the
// coarse opcode table (brig/InstTable.h) already has their rule.
const std::map<std::string, std::string> RejectedByTheValidator = {
    {"extra_operand", "operand count of mov"},
    {"immediate_destination", "operand kind of mov's destination"},
    {"scall_without_type", "type class of scall"},
};

/// "MESSAGE" of the first line "// expect: LINE:COL: MESSAGE".
std::string expectedMessage(llvm::StringRef Text) {
  llvm::StringRef First = Text.split('\n').first;
  if (!First.consume_front("// expect: "))
    return "";
  return First.split(':').second.split(':').second.trim().str();
}

TEST(NegativeBrig, EveryCaseThatAssemblesWithoutTheRulesIsRejected) {
  const std::vector<std::string> Stems =
      listHsailFiles(OPENHSA_ASM_NEGATIVE_DIR);
  ASSERT_FALSE(Stems.empty());
  for (const auto *List : {&RejectedWithoutTheRules, &RejectedByTheValidator})
    for (const auto &[Stem, Reason] : *List)
      EXPECT_TRUE(std::count(Stems.begin(), Stems.end(), Stem))
          << Stem << " is listed but is not a negative case";

  brig::assembler::AssembleOptions NoRules;
  NoRules.CheckSemantics = false;
  unsigned ByChecker = 0, ByValidator = 0, Excluded = 0;
  for (const std::string &Stem : Stems) {
    SCOPED_TRACE(Stem);
    const std::string Path =
        std::string(OPENHSA_ASM_NEGATIVE_DIR) + "/" + Stem + ".hsail";
    std::optional<std::string> Text = readFile(Path);
    ASSERT_TRUE(Text) << "cannot read " << Path;
    const std::string Expected = expectedMessage(*Text);
    ASSERT_FALSE(Expected.empty()) << Path << " has no '// expect:' line";

    auto Brig = brig::assembler::assembleHsail(*Text, NoRules);
    bool Listed = RejectedWithoutTheRules.count(Stem);
    if (!Brig) {
      std::string Diag =
          brig::assembler::renderError(Brig.takeError(), Path, *Text);
      EXPECT_TRUE(Listed) << "rejected without the semantic rules but not "
                             "listed in RejectedWithoutTheRules:\n"
                          << Diag;
      ++Excluded;
      continue;
    }
    EXPECT_FALSE(Listed) << "listed in RejectedWithoutTheRules ("
                         << RejectedWithoutTheRules.at(Stem)
                         << ") but assembles without the rules";

    const std::string Name = Stem + ".brig";
    const std::string Where = Name + ": hsa_code+0x";
    auto M = brig::loadValidatedModule(*Brig, Name);
    if (!M) {
      std::string Msg = llvm::toString(M.takeError());
      EXPECT_TRUE(llvm::StringRef(Msg).starts_with(Where)) << Msg;
      EXPECT_TRUE(RejectedByTheValidator.count(Stem))
          << "the validator rejects it (not listed): " << Msg;
      ++ByValidator;
      continue;
    }
    EXPECT_FALSE(RejectedByTheValidator.count(Stem))
        << "listed in RejectedByTheValidator but the validator accepts it";
    llvm::Error E = brig::assembler::checkModuleSemantics(*M);
    if (!E) {
      ADD_FAILURE() << "BRIG breaking '" << Expected << "' passes";
      continue;
    }
    std::string Msg = llvm::toString(std::move(E));
    EXPECT_TRUE(llvm::StringRef(Msg).starts_with(Where)) << Msg;
    // The same rule, in the same words, as the text gets.
    EXPECT_TRUE(llvm::StringRef(Msg).ends_with(": " + Expected))
        << Msg << "\nexpected the text's message: " << Expected;
    ++ByChecker;
  }
  std::cout << "[ negative ] " << Stems.size() << " cases: " << ByChecker
            << " rejected by checkModuleSemantics, " << ByValidator
            << " by brig/Validator.h first, " << Excluded
            << " excluded (no BRIG without the rules)\n";
  EXPECT_EQ(ByValidator, RejectedByTheValidator.size());
  EXPECT_EQ(Excluded, RejectedWithoutTheRules.size());
  EXPECT_EQ(ByChecker + ByValidator + Excluded, Stems.size());
}

//===----------------------------------------------------------------------===//
// Diagnostics and what BRIG cannot say
//===----------------------------------------------------------------------===//

const char *const Full = "module &m:1:0:$full:$large:$default;\n";
const char *const Base = "module &m:1:0:$base:$large:$default;\n";

std::string kernel(const char *Header, const std::string &Body) {
  return std::string(Header) + "kernel &k()\n{\n" + Body + "\tret;\n};\n";
}

std::vector<uint8_t> assemble(const std::string &Text, bool Rules = true) {
  brig::assembler::AssembleOptions O;
  O.CheckSemantics = Rules;
  auto B = brig::assembler::assembleHsail(Text, O);
  if (!B) {
    ADD_FAILURE() << brig::assembler::renderError(B.takeError(), "t.hsail",
                                                  Text);
    return {};
  }
  return *B;
}

/// "" when \p Brig passes validation and the rules, else the diagnostic.
std::string verdict(const std::vector<uint8_t> &Brig) {
  auto M = brig::assembler::loadCheckedModule(Brig, "m.brig");
  return M ? "" : llvm::toString(M.takeError());
}

/// hsa_code offset of the first instruction with opcode \p Opcode (0 when
/// there is none).
uint32_t findInst(const std::vector<uint8_t> &Brig, unsigned Opcode) {
  auto M = BrigModule::create(Brig, "m.brig");
  if (!M) {
    llvm::consumeError(M.takeError());
    return 0;
  }
  for (brig::EntryRef<> E : M->codeEntries())
    if (auto I = M->code<brig::BrigInstBase>(E.Offset))
      if (I->opcode == Opcode)
        return E.Offset;
  return 0;
}

/// hsa_operand offset of operand \p Idx of the instruction at \p InstOff.
uint32_t operandOf(const std::vector<uint8_t> &Brig, uint32_t InstOff,
                   unsigned Idx) {
  auto M = BrigModule::create(Brig, "m.brig");
  if (!M) {
    llvm::consumeError(M.takeError());
    return 0;
  }
  return M->offsetList(M->code<brig::BrigInstBase>(InstOff)->operands)[Idx];
}

/// Overwrites the byte at \p Field of the entry at \p Off of section
/// \p Section.
void patch(std::vector<uint8_t> &Brig, unsigned Section, uint32_t Off,
           size_t Field, uint8_t Value) {
  auto M = BrigModule::create(Brig, "m.brig");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  size_t At = M->section(Section).ModuleOffset + Off + Field;
  ASSERT_LT(At, Brig.size());
  Brig[At] = Value;
}

std::string hex(uint64_t V) { return llvm::utohexstr(V, /*LowerCase=*/true); }

TEST(BrigSemantics, DiagnosticNamesTheInstruction) {
  std::vector<uint8_t> B =
      assemble(kernel(Full, "\tadd_ftz_u32 $s1, $s2, $s3;\n"), false);
  uint32_t Add = findInst(B, brig::BRIG_OPCODE_ADD);
  ASSERT_NE(Add, 0u);
  EXPECT_EQ(verdict(B), "m.brig: hsa_code+0x" + hex(Add) +
                            ": instruction 'add': add does not support ftz "
                            "with type u32");
}

TEST(BrigSemantics, DiagnosticNamesTheOperand) {
  std::vector<uint8_t> B =
      assemble(kernel(Full, "\tadd_u32 $s1, $s2, $d3;\n"), false);
  uint32_t Add = findInst(B, brig::BRIG_OPCODE_ADD);
  ASSERT_NE(Add, 0u);
  EXPECT_EQ(verdict(B), "m.brig: hsa_code+0x" + hex(Add) +
                            ": instruction 'add', operand 2 (hsa_operand+0x" +
                            hex(operandOf(B, Add, 2)) +
                            "): operand 2 size does not match its type u32: "
                            "expected a $s register");
}

// Semantics.cpp judges the roundings the text writes. BRIG always holds one:
// the one the text gives without a modifier counts as unwritten (and is
// always allowed), any other as written.
TEST(BrigSemantics, RoundingIsJudgedAsTheTextWouldWriteIt) {
  // Writing the default rounding gives the same BRIG as writing none.
  std::vector<uint8_t> Written =
      assemble(kernel(Base, "\tcvt_ftz_zeroi_s32_f32 $s1, $s2;\n"));
  EXPECT_EQ(Written, assemble(kernel(Base, "\tcvt_ftz_s32_f32 $s1, $s2;\n")));
  EXPECT_EQ(verdict(Written), "");

  const size_t ModRound = offsetof(brig::BrigInstMod, round);
  std::vector<uint8_t> Add =
      assemble(kernel(Base, "\tadd_ftz_f32 $s1, $s2, $s3;\n"));
  uint32_t AddOff = findInst(Add, brig::BRIG_OPCODE_ADD);
  ASSERT_NE(AddOff, 0u);
  EXPECT_EQ(verdict(Add), "");
  patch(Add, brig::BRIG_SECTION_INDEX_CODE, AddOff, ModRound,
        brig::BRIG_ROUND_FLOAT_NEAR_EVEN);
  EXPECT_TRUE(
      llvm::StringRef(verdict(Add))
          .ends_with(
              ": instruction 'add': add takes no rounding modifier in the base "
              "profile"))
      << verdict(Add);

  // In the full profile, near is add_ftz_near_f32; none is not a float
  // rounding at all.
  std::vector<uint8_t> Near =
      assemble(kernel(Full, "\tadd_ftz_f32 $s1, $s2, $s3;\n"));
  uint32_t NearOff = findInst(Near, brig::BRIG_OPCODE_ADD);
  std::vector<uint8_t> None = Near;
  patch(Near, brig::BRIG_SECTION_INDEX_CODE, NearOff, ModRound,
        brig::BRIG_ROUND_FLOAT_NEAR_EVEN);
  EXPECT_EQ(Near,
            assemble(kernel(Full, "\tadd_ftz_near_f32 $s1, $s2, $s3;\n")));
  EXPECT_EQ(verdict(Near), "");
  patch(None, brig::BRIG_SECTION_INDEX_CODE, NearOff, ModRound,
        brig::BRIG_ROUND_NONE);
  EXPECT_TRUE(
      llvm::StringRef(verdict(None))
          .ends_with(
              "add with type f32 does not support this rounding modifier"))
      << verdict(None);

  // A widening cvt takes no rounding.
  std::vector<uint8_t> Cvt =
      assemble(kernel(Full, "\tcvt_f64_f32 $d1, $s2;\n"));
  uint32_t CvtOff = findInst(Cvt, brig::BRIG_OPCODE_CVT);
  ASSERT_NE(CvtOff, 0u);
  EXPECT_EQ(verdict(Cvt), "");
  patch(Cvt, brig::BRIG_SECTION_INDEX_CODE, CvtOff,
        offsetof(brig::BrigInstCvt, round), brig::BRIG_ROUND_FLOAT_NEAR_EVEN);
  EXPECT_TRUE(
      llvm::StringRef(verdict(Cvt))
          .ends_with("invalid rounding modifier for cvt from f32 to f64"))
      << verdict(Cvt);
}

// A variable's allocation counts as specified (alloc(agent)) when it is not
// the one the text gives without alloc().
TEST(BrigSemantics, AllocationIsJudgedAsTheTextWouldWriteIt) {
  std::vector<uint8_t> B =
      assemble(std::string(Full) + "group_u32 &g;\nalloc(agent) global_u32 "
                                   "&a;\nglobal_u32 &p;\n");
  EXPECT_EQ(verdict(B), "");
  auto M = BrigModule::create(B, "m.brig");
  ASSERT_TRUE(bool(M));
  uint32_t Group = 0;
  for (brig::EntryRef<> E : M->codeEntries())
    if (auto V = M->code<brig::BrigDirectiveVariable>(E.Offset))
      if (M->string(V->name) == "&g")
        Group = E.Offset;
  ASSERT_NE(Group, 0u);
  patch(B, brig::BRIG_SECTION_INDEX_CODE, Group,
        offsetof(brig::BrigDirectiveVariable, allocation),
        brig::BRIG_ALLOCATION_AGENT);
  EXPECT_EQ(verdict(B), "m.brig: hsa_code+0x" + hex(Group) +
                            ": variable '&g': allocation cannot be specified "
                            "for group segment variables");
}

// Text converts an immediate to its operand's type; BRIG states the type,
// which must be that one.
TEST(BrigSemantics, ImmediateHasItsOperandsType) {
  std::vector<uint8_t> B = assemble(kernel(Full, "\tadd_u32 $s1, $s2, 5;\n"));
  uint32_t Add = findInst(B, brig::BRIG_OPCODE_ADD);
  ASSERT_NE(Add, 0u);
  EXPECT_EQ(verdict(B), "");
  uint32_t Imm = operandOf(B, Add, 2);
  patch(B, brig::BRIG_SECTION_INDEX_OPERAND, Imm,
        offsetof(brig::BrigOperandConstantBytes, type), brig::BRIG_TYPE_S32);
  EXPECT_EQ(verdict(B), "m.brig: hsa_code+0x" + hex(Add) +
                            ": instruction 'add', operand 2 (hsa_operand+0x" +
                            hex(Imm) +
                            "): operand 2 is a s32 constant where its type is "
                            "u32");
}

} // namespace
