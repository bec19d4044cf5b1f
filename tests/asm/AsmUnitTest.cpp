//===- tests/asm/AsmUnitTest.cpp - Unit tests of the HSAIL assembler ------===//

#include "brig/BrigFormat.h"
#include "brig/asm/Assembler.h"
#include "brig/asm/Lexer.h"
#include "brig/asm/Literals.h"
#include "brig/asm/Mnemonics.h"
#include "brig/asm/Parser.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace openhsa::brig;
using namespace openhsa::brig::assembler;

namespace {

std::vector<Token> lexAll(llvm::StringRef S) {
  Lexer L(S);
  std::vector<Token> Out;
  while (true) {
    Token T = L.next();
    Out.push_back(T);
    if (T.Kind == Tok::Eof || T.Kind == Tok::Error)
      break;
  }
  return Out;
}

TEST(AsmLexer, MnemonicWithParenthesisedModifiersIsOneWord) {
  auto T = lexAll("ld_global_align(8)_width(all)_u32 $s1, [$d0+4];");
  ASSERT_GE(T.size(), 2u);
  EXPECT_EQ(T[0].Kind, Tok::Word);
  EXPECT_EQ(T[0].Text, "ld_global_align(8)_width(all)_u32");
  EXPECT_EQ(T[1].Kind, Tok::Register);
  EXPECT_EQ(T[1].Text, "$s1");
}

TEST(AsmLexer, FloatForms) {
  auto T = lexAll("1.5f 0F3f800000 0x1.8p1 0H3c00 2.0 -1.5h 1e3");
  ASSERT_EQ(T.size(), 8u);
  EXPECT_EQ(T[0].FKind, FloatKind::F32);
  EXPECT_EQ(T[0].FForm, FloatForm::DecimalSuffix);
  EXPECT_EQ(T[1].FForm, FloatForm::RawBits);
  EXPECT_EQ(T[1].FKind, FloatKind::F32);
  EXPECT_EQ(T[2].FForm, FloatForm::C99Hex);
  EXPECT_EQ(T[2].FKind, FloatKind::F64);
  EXPECT_EQ(T[3].FKind, FloatKind::F16);
  EXPECT_EQ(T[4].FForm, FloatForm::Decimal);
  EXPECT_EQ(T[5].Text, "-1.5h"); // a sign touching a float is part of it
  EXPECT_EQ(T[6].Kind, Tok::Float);
}

TEST(AsmLexer, IntegerForms) {
  auto T = lexAll("0 017 0x1F 42");
  ASSERT_EQ(T.size(), 5u);
  EXPECT_EQ(*integerValue(T[0]), 0u);
  EXPECT_EQ(*integerValue(T[1]), 15u);
  EXPECT_EQ(*integerValue(T[2]), 31u);
  EXPECT_EQ(*integerValue(T[3]), 42u);
}

TEST(AsmLexer, IntegerOverflowIsRejected) {
  auto T = lexAll("18446744073709551616");
  EXPECT_FALSE(integerValue(T[0]).has_value());
}

TEST(AsmLexer, MissingWhiteSpace) {
  auto T = lexAll("add_u32 $s1,$s2,5a");
  EXPECT_EQ(T.back().Kind, Tok::Error);
  EXPECT_EQ(T.back().StrValue, "missing white space");
}

TEST(AsmLexer, StringEscapes) {
  auto T = lexAll("\"a\\tb\\x41\\101\\\"\"");
  ASSERT_EQ(T[0].Kind, Tok::String);
  EXPECT_EQ(T[0].StrValue, "a\tbAA\"");
}

TEST(AsmLiterals, HalfConversionMatchesReferenceAssembler) {
  float F = 0.1f;
  uint32_t B;
  std::memcpy(&B, &F, 4);
  EXPECT_EQ(floatToHalfBits(B), 0x2e66);
  F = 65520.0f; // rounds up to infinity
  std::memcpy(&B, &F, 4);
  EXPECT_EQ(floatToHalfBits(B), 0x7c00);
  F = 1e-7f; // subnormal half
  std::memcpy(&B, &F, 4);
  EXPECT_EQ(floatToHalfBits(B), 0x0002);
  F = 1.00048828125f; // exactly half way: rounds away from zero
  std::memcpy(&B, &F, 4);
  EXPECT_EQ(floatToHalfBits(B), 0x3c01);
}

TEST(AsmLiterals, HexFloatsTruncate) {
  auto T = lexAll("0x1.fffffffp0f 0x1p-149f 0x1.8p1");
  EXPECT_EQ(*floatBits(T[0]), 0x3fffffffu);
  EXPECT_EQ(*floatBits(T[1]), 0x2u); // as the reference assembler reads it
  EXPECT_EQ(*floatBits(T[2]), 0x4008000000000000ull);
}

TEST(AsmMnemonics, LongestModifierMatch) {
  unsigned V = 0;
  EXPECT_EQ(matchModifier(ModCat::Packing, "pp_sat_u8x4", V), 6u);
  EXPECT_EQ(V, unsigned(BRIG_PACK_PPSAT));
  EXPECT_EQ(matchModifier(ModCat::Rounding, "upi_sat_u8_f32", V), 7u);
  EXPECT_EQ(V, unsigned(BRIG_ROUND_INTEGER_PLUS_INFINITY_SAT));
  EXPECT_EQ(matchModifier(ModCat::Packing, "s32", V), 0u);
}

TEST(AsmParser, DecodesInstructionProperties) {
  auto P = parseHsail("module &m:1:0:$full:$large:$default;\n"
                      "kernel &k() {\n"
                      "  atomic_add_global_scar_wg_u32 $s1, [$d0], 1;\n"
                      "};\n");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const auto &K = std::get<Executable>(P->Stmts[1].V);
  const auto &I = std::get<Instruction>(K.Body[0].V);
  EXPECT_EQ(I.Kind, BRIG_KIND_INST_ATOMIC);
  EXPECT_EQ(I.Opcode, BRIG_OPCODE_ATOMIC);
  EXPECT_EQ(I.AtomicOp, BRIG_ATOMIC_ADD);
  EXPECT_EQ(I.Segment, BRIG_SEGMENT_GLOBAL);
  EXPECT_EQ(I.MemoryOrder, BRIG_MEMORY_ORDER_SC_ACQUIRE_RELEASE);
  EXPECT_EQ(I.MemoryScope, BRIG_MEMORY_SCOPE_WORKGROUP);
  EXPECT_EQ(I.Type, BRIG_TYPE_U32);
  ASSERT_EQ(I.Operands.size(), 3u);
  EXPECT_EQ(I.Operands[2].K, Operand::Kind::Constant);
  EXPECT_EQ(I.Operands[2].Type, BRIG_TYPE_U32);
}

TEST(AsmDiagnostics, ClangStyleOutput) {
  std::string Src = "module &m:1:0:$full:$large:$default;\n"
                    "kernel &k() {\n"
                    "\tfoo_u32 $s1;\n"
                    "};\n";
  auto B = assembleHsail(Src);
  ASSERT_FALSE(bool(B));
  std::string D = renderError(B.takeError(), "x.hsail", Src);
  EXPECT_EQ(D, "x.hsail:3:2: error: unknown instruction 'foo_u32'\n"
               "\tfoo_u32 $s1;\n"
               "\t^\n");
}

TEST(AsmEmitter, ModuleLayout) {
  auto B = assembleHsail("module &m:1:0:$base:$small:$near;\n");
  ASSERT_TRUE(bool(B));
  const std::vector<uint8_t> &V = *B;
  ASSERT_GE(V.size(), sizeof(BrigModuleHeader));
  BrigModuleHeader H;
  std::memcpy(&H, V.data(), sizeof H);
  EXPECT_EQ(std::memcmp(H.identification, BrigMagic, 8), 0);
  EXPECT_EQ(H.byteCount, V.size());
  EXPECT_EQ(H.sectionCount, 3u);
  EXPECT_EQ(V.size() % 16, 0u);
  uint64_t Idx[3];
  std::memcpy(Idx, V.data() + H.sectionIndex, sizeof Idx);
  BrigSectionHeader S;
  std::memcpy(&S, V.data() + Idx[BRIG_SECTION_INDEX_CODE], 16);
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(V.data()) +
                            Idx[BRIG_SECTION_INDEX_CODE] + 16,
                        S.nameLength),
            "hsa_code");
  BrigDirectiveModule M;
  std::memcpy(&M, V.data() + Idx[BRIG_SECTION_INDEX_CODE] + S.headerByteCount,
              sizeof M);
  EXPECT_EQ(M.base.kind, BRIG_KIND_DIRECTIVE_MODULE);
  EXPECT_EQ(M.profile, BRIG_PROFILE_BASE);
  EXPECT_EQ(M.machineModel, BRIG_MACHINE_SMALL);
  EXPECT_EQ(M.defaultFloatRound, BRIG_ROUND_FLOAT_NEAR_EVEN);
}

} // namespace

namespace {

// Legitimate difference from HSAILasm: a comment inside a statement is a
// syntax error there; openhsa-as skips it (it is not stored in BRIG, since
// BRIG comments are statements). The result equals the comment-free text.
TEST(AsmParser, CommentInsideStatementIsSkipped) {
  auto A = assembleHsail("module &m:1:0:$full:$large:$default;\n"
                         "kernel &k() {\n"
                         "  add_u32 $s1, /* lhs */ $s2, $s3;\n"
                         "};\n");
  auto B = assembleHsail("module &m:1:0:$full:$large:$default;\n"
                         "kernel &k() {\n"
                         "  add_u32 $s1, $s2, $s3;\n"
                         "};\n");
  ASSERT_TRUE(bool(A)) << llvm::toString(A.takeError());
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  EXPECT_EQ(*A, *B);
}

TEST(AsmLexer, NulEndsTheSource) {
  std::string Src = "module &m:1:0:$full:$large:$default;\n";
  Src.push_back('\0');
  Src += "garbage that is never read";
  auto B = assembleHsail(Src);
  EXPECT_TRUE(bool(B)) << llvm::toString(B.takeError());
}

} // namespace
