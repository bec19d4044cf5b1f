//===- tests/brig/BrigFormatTest.cpp - Enumerations and name tables -------===//
//
// Part of openhsa. Struct layouts are pinned by static_asserts in
// brig/BrigFormat.h; these tests cover the type encoding helpers, the HSAIL
// spellings and the opcode table.
//
//===----------------------------------------------------------------------===//

#include "brig/BrigFormat.h"
#include "brig/BrigNames.h"
#include "brig/InstTable.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace openhsa::brig;

TEST(BrigFormatTest, TypeEncoding) {
  EXPECT_EQ(brigTypeBase(BRIG_TYPE_U16X8), unsigned(BRIG_TYPE_U16));
  EXPECT_EQ(brigTypePack(BRIG_TYPE_U16X8), unsigned(BRIG_TYPE_PACK_128));
  EXPECT_TRUE(brigTypeIsArray(BRIG_TYPE_F32X2_ARRAY));
  EXPECT_EQ(brigTypeArrayElement(BRIG_TYPE_F32X2_ARRAY),
            unsigned(BRIG_TYPE_F32X2));
  EXPECT_FALSE(brigTypeIsPacked(BRIG_TYPE_B128));
  EXPECT_EQ(typeBits(BRIG_TYPE_F16X4), 64u);
  EXPECT_EQ(typeBits(BRIG_TYPE_B1), 1u);
  EXPECT_EQ(naturalAlignment(BRIG_TYPE_U32), unsigned(BRIG_ALIGNMENT_4));
  EXPECT_EQ(naturalAlignment(BRIG_TYPE_B128), unsigned(BRIG_ALIGNMENT_16));
  EXPECT_EQ(alignBytes(BRIG_ALIGNMENT_256), 256u);
}

TEST(BrigFormatTest, KindRanges) {
  EXPECT_TRUE(brigKindIsDirective(BRIG_KIND_DIRECTIVE_VARIABLE));
  EXPECT_FALSE(brigKindIsDirective(BRIG_KIND_DIRECTIVE_END));
  EXPECT_TRUE(brigKindIsInst(BRIG_KIND_INST_SOURCE_TYPE));
  EXPECT_TRUE(brigKindIsOperand(BRIG_KIND_OPERAND_WAVESIZE));
  EXPECT_EQ(BRIG_KIND_OPERAND_WAVESIZE, 0x300c);
  EXPECT_EQ(BRIG_OPCODE_GROUPBASEPTR, 130);
  EXPECT_EQ(std::memcmp(BrigMagic, "HSA BRIG", 8), 0);
}

TEST(BrigFormatTest, Names) {
  EXPECT_STREQ(opcodeName(BRIG_OPCODE_ACTIVELANEPERMUTE), "activelanepermute");
  EXPECT_STREQ(opcodeName(BRIG_OPCODE_WAVEID), "waveid");
  EXPECT_EQ(opcodeName(BRIG_OPCODE_STANDARD_END), nullptr);
  EXPECT_STREQ(typeName(BRIG_TYPE_S8X16), "s8x16");
  EXPECT_STREQ(typeName(BRIG_TYPE_NONE), "");
  EXPECT_EQ(typeName(unsigned(BRIG_TYPE_U64) | BRIG_TYPE_PACK_32), nullptr);
  EXPECT_EQ(typeName(unsigned(BRIG_TYPE_SIG64) | BRIG_TYPE_PACK_64), nullptr);
  EXPECT_EQ(typeName(BRIG_TYPE_U32_ARRAY), nullptr);
  EXPECT_STREQ(roundName(BRIG_ROUND_INTEGER_SIGNALING_ZERO_SAT), "szeroi_sat");
  EXPECT_STREQ(packName(BRIG_PACK_PSAT), "p_sat");
  EXPECT_STREQ(atomicOpName(BRIG_ATOMIC_WAITTIMEOUT_GTE), "waittimeout_gte");
  EXPECT_STREQ(compareName(BRIG_COMPARE_SGTU), "sgtu");
  EXPECT_STREQ(widthName(BRIG_WIDTH_2147483648), "width(2147483648)");
  EXPECT_STREQ(widthName(BRIG_WIDTH_ALL), "width(all)");
  EXPECT_STREQ(segmentName(BRIG_SEGMENT_FLAT), "");
  EXPECT_STREQ(kindName(BRIG_KIND_INST_QUERY_SAMPLER),
               "BRIG_KIND_INST_QUERY_SAMPLER");
  EXPECT_STREQ(channelOrderName(BRIG_CHANNEL_ORDER_DEPTH_STENCIL),
               "depth_stencil");
  EXPECT_STREQ(channelTypeName(BRIG_CHANNEL_TYPE_FLOAT), "float");
}

TEST(BrigFormatTest, OpcodeTableCoversEveryOpcode) {
  for (unsigned Op = 0; Op < BRIG_OPCODE_STANDARD_END; ++Op) {
    const InstInfo *I = instInfo(Op);
    ASSERT_NE(I, nullptr) << Op;
    EXPECT_NE(I->Formats, 0u) << opcodeName(Op);
    for (unsigned K = 0; K < 5; ++K)
      EXPECT_EQ(I->Operands[K] == OperandRule::None, K >= I->NumOperands)
          << opcodeName(Op) << " slot " << K;
  }
  EXPECT_EQ(instInfo(BRIG_OPCODE_STANDARD_END), nullptr);
  EXPECT_EQ(expectedOperandCount(BRIG_OPCODE_ATOMIC, BRIG_ATOMIC_LD), 2u);
  EXPECT_EQ(expectedOperandCount(BRIG_OPCODE_ATOMIC, BRIG_ATOMIC_CAS), 4u);
  EXPECT_EQ(
      expectedOperandCount(BRIG_OPCODE_SIGNAL, BRIG_ATOMIC_WAITTIMEOUT_LT), 4u);
  EXPECT_EQ(expectedOperandCount(BRIG_OPCODE_ADD, 0), 3u);
  EXPECT_EQ(defaultRounding(BRIG_OPCODE_CVT, BRIG_TYPE_S32, BRIG_TYPE_F32),
            unsigned(BRIG_ROUND_INTEGER_ZERO));
}
