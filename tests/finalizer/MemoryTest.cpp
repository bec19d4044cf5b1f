//===- tests/finalizer/MemoryTest.cpp - ld and st -------------------------===//
//---------------------------===//
//
// PRM 6.3-6.4: ld and st of every width, sign and zero extension into
// registers, the vector forms (v2, v3, v4) with registers, immediates and
// WAVESIZE as st sources, b128, const, equivalence classes, alignment, and
// the group, private, spill, readonly and kernarg segments.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

#include <cstring>

using namespace openhsa::test;

namespace {

const char *Widths = R"(
module &m:1:0:$full:$large:$default;
kernel &widths(kernarg_u64 %in, kernarg_u64 %out)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%in];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	// Loads of 8 and 16 bits extend by the type's sign into 32 bits.
	ld_global_s8	$s0, [$d0];
	st_global_u32	$s0, [$d1];
	ld_global_u8	$s0, [$d0];
	st_global_u32	$s0, [$d1+4];
	ld_global_s16	$s0, [$d0];
	st_global_u32	$s0, [$d1+8];
	ld_global_u16	$s0, [$d0];
	st_global_u32	$s0, [$d1+12];
	ld_global_s32	$s2, [$d0];
	st_global_u32	$s2, [$d1+16];
	ld_global_u64	$d2, [$d0];
	st_global_u64	$d2, [$d1+24];
	// Stores of 8 and 16 bits take the low bits of a 32-bit register.
	mov_b32	$s1, 0x12345678;
	st_global_u8	$s1, [$d1+32];
	st_global_s16	$s1, [$d1+34];
	// Unaligned, const and equivalence-class forms.
	ld_global_align(1)_u32	$s2, [$d0+1];
	st_global_align(1)_u32	$s2, [$d1+37];
	ld_global_const_equiv(3)_u64	$d3, [$d0];
	st_global_equiv(3)_u64	$d3, [$d1+48];
	ld_global_f64	$d4, [$d0+8];
	st_global_f64	$d4, [$d1+56];
	ld_global_f16	$s3, [$d0+16];
	st_global_f16	$s3, [$d1+64];
	ret;
};
)";

TEST(MemoryTest, WidthsExtensionAndForms) {
  if (runsOnGpu()) // README: GPU agents take accesses as naturally aligned.
    GTEST_SKIP() << "accesses below their natural alignment, which fault on "
                    "a GPU agent";
  auto P = finalizeText(Widths);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  alignas(16) uint8_t In[32] = {0xf0, 0x81, 0x92, 0xa3, 0x34, 0x45, 0x56, 0x67};
  const double D = -3.25;
  std::memcpy(In + 8, &D, 8);
  const uint16_t Half = 0x3c00; // 1.0
  std::memcpy(In + 16, &Half, 2);
  alignas(16) uint8_t Out[80];
  std::memset(Out, 0xee, sizeof(Out));
  struct {
    const uint8_t *In;
    uint8_t *Out;
  } K{In, Out};
  runKernel(*P, "&widths", Grid{}, &K);
  auto U32 = [&](size_t Off) { return loadAt<uint32_t>(Out, Off); };
  auto U64 = [&](size_t Off) { return loadAt<uint64_t>(Out, Off); };
  EXPECT_EQ(U32(0), 0xfffffff0u);            // s8 0xf0
  EXPECT_EQ(U32(4), 0xf0u);                  // u8
  EXPECT_EQ(U32(8), 0xffff81f0u);            // s16 0x81f0
  EXPECT_EQ(U32(12), 0x81f0u);               // u16
  EXPECT_EQ(U32(16), 0xa39281f0u);           // s32
  EXPECT_EQ(U32(20), 0xeeeeeeeeu);           // untouched
  EXPECT_EQ(U64(24), 0x67564534a39281f0ull); // u64
  EXPECT_EQ(Out[32], 0x78);                  // st_u8
  EXPECT_EQ(Out[33], 0xee);                  // untouched
  EXPECT_EQ(Out[34] | Out[35] << 8, 0x5678); // st_s16
  EXPECT_EQ(Out[36], 0xee);                  // untouched
  uint32_t Unaligned;
  std::memcpy(&Unaligned, Out + 37, 4);
  EXPECT_EQ(Unaligned, 0x34a39281u);         // bytes 1..4 of In
  EXPECT_EQ(U64(48), 0x67564534a39281f0ull); // const, equiv
  double DOut;
  std::memcpy(&DOut, Out + 56, 8);
  EXPECT_EQ(DOut, D);
  EXPECT_EQ(Out[64] | Out[65] << 8, Half);
}

const char *Vectors = R"(
module &m:1:0:$full:$large:$default;
kernel &vectors(kernarg_u64 %in, kernarg_u64 %out)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%in];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	ld_v4_global_u32	($s0, $s1, $s2, $s3), [$d0];
	// Reversed, through registers.
	st_v4_global_u32	($s3, $s2, $s1, $s0), [$d1];
	// Registers, immediates and WAVESIZE mixed (PRM 4.16).
	st_v4_global_u32	(7, $s1, 0x12345678, WAVESIZE), [$d1+16];
	st_v3_global_u16	(0xffff, $s0, 3), [$d1+32];
	st_v2_global_f32	(0F3fc00000, $s2), [$d1+40];
	st_v2_global_f64	(0DC000000000000000, 0D4000000000000000), [$d1+48];
	// Sign extension of each element.
	ld_v2_global_s8	($s4, $s5), [$d0+4];
	st_v2_global_u32	($s4, $s5), [$d1+64];
	ld_v2_global_u64	($d2, $d3), [$d0];
	st_v2_global_u64	($d3, $d2), [$d1+72];
	ret;
};
)";

TEST(MemoryTest, VectorFormsWithRegistersAndImmediates) {
  auto P = finalizeText(Vectors);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  alignas(16) uint32_t In[4] = {0x11111111, 0x2222ff7f, 0x3f800000, 0x44444444};
  alignas(16) uint8_t Out[96];
  std::memset(Out, 0xee, sizeof(Out));
  struct {
    const uint32_t *In;
    uint8_t *Out;
  } K{In, Out};
  runKernel(*P, "&vectors", Grid{}, &K);
  uint32_t W[4];
  std::memcpy(W, Out, 16);
  EXPECT_EQ(W[0], In[3]);
  EXPECT_EQ(W[1], In[2]);
  EXPECT_EQ(W[2], In[1]);
  EXPECT_EQ(W[3], In[0]);
  std::memcpy(W, Out + 16, 16);
  EXPECT_EQ(W[0], 7u);
  EXPECT_EQ(W[1], In[1]);
  EXPECT_EQ(W[2], 0x12345678u);
  EXPECT_EQ(W[3], defaultWavefrontSize()); // WAVESIZE
  uint16_t H[4];
  std::memcpy(H, Out + 32, 8);
  EXPECT_EQ(H[0], 0xffff);
  EXPECT_EQ(H[1], 0x1111);
  EXPECT_EQ(H[2], 3);
  EXPECT_EQ(H[3], 0xeeee); // v3 writes three elements only
  float F[2];
  std::memcpy(F, Out + 40, 8);
  EXPECT_EQ(F[0], 1.5f);
  EXPECT_EQ(F[1], 1.0f);
  double D[2];
  std::memcpy(D, Out + 48, 16);
  EXPECT_EQ(D[0], -2.0);
  EXPECT_EQ(D[1], 2.0);
  std::memcpy(W, Out + 64, 8);
  EXPECT_EQ(W[0], 0x7fu);       // s8 0x7f
  EXPECT_EQ(W[1], 0xffffffffu); // s8 0xff
  uint64_t Q[2];
  std::memcpy(Q, Out + 72, 16);
  EXPECT_EQ(Q[0], uint64_t(In[3]) << 32 | In[2]);
  EXPECT_EQ(Q[1], uint64_t(In[1]) << 32 | In[0]);
}

const char *Wide = R"(
module &m:1:0:$full:$large:$default;
kernel &wide(kernarg_u64 %in, kernarg_u64 %out)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%in];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	ld_global_b128	$q0, [$d0];
	st_global_b128	$q0, [$d1];
	ld_global_align(16)_b128	$q1, [$d0];
	st_global_align(16)_b128	$q1, [$d1+16];
	// Packed arithmetic on a loaded $q register.
	add_pp_f32x4	$q2, $q1, $q1;
	st_global_b128	$q2, [$d1+32];
	ld_global_align(4)_b128	$q3, [$d0+16];
	st_global_align(4)_b128	$q3, [$d1+52];
	combine_v4_b128_b32	$q4, (1, 2, 3, 4);
	st_global_b128	$q4, [$d1+68];
	ret;
};
)";

TEST(MemoryTest, OneHundredTwentyEightBitValues) {
  if (runsOnGpu()) // README: GPU agents take accesses as naturally aligned.
    GTEST_SKIP() << "accesses below their natural alignment, which fault on "
                    "a GPU agent";
  auto P = finalizeText(Wide);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  alignas(16) float In[8] = {1.0f, -2.0f, 0.5f, 8.0f, 0, 0, 0, 0};
  const uint16_t Shorts[8] = {1, 2, 3, 0x8000, 5, 6, 7, 0xffff};
  std::memcpy(In + 4, Shorts, 16);
  alignas(16) uint8_t Out[96];
  std::memset(Out, 0xee, sizeof(Out));
  struct {
    const float *In;
    uint8_t *Out;
  } K{In, Out};
  runKernel(*P, "&wide", Grid{}, &K);
  EXPECT_EQ(std::memcmp(Out, In, 16), 0);
  EXPECT_EQ(std::memcmp(Out + 16, In, 16), 0);
  float F[4];
  std::memcpy(F, Out + 32, 16);
  for (int I = 0; I < 4; ++I)
    EXPECT_EQ(F[I], 2 * In[I]) << I;
  EXPECT_EQ(std::memcmp(Out + 52, Shorts, 16), 0);
  uint32_t U[4];
  std::memcpy(U, Out + 68, 16);
  for (uint32_t I = 0; I < 4; ++I)
    EXPECT_EQ(U[I], I + 1);
  EXPECT_EQ(Out[84], 0xee);
}

const char *Segments = R"(
module &m:1:0:$full:$large:$default;
readonly_u32 &table[4] = u32[](10, 20, 30, 40);
kernel &segments(kernarg_u64 %out, kernarg_u32 %index, kernarg_u16 %small)
{
	group_u32 %g[8];
	private_u64 %p[2];
	spill_u32 %s;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	ld_kernarg_width(all)_u32	$s0, [%index];
	ld_kernarg_width(all)_u16	$s9, [%small];
	st_global_u32	$s9, [$d1+40];
	shl_u32	$s1, $s0, 2;
	cvt_u64_u32	$d2, $s1;
	ld_readonly_u32	$s2, [&table][$d2];
	st_global_u32	$s2, [$d1];
	// Group: by symbol, by symbol plus register, by lda'd address.
	st_group_u32	$s2, [%g][$s1];
	ld_group_u32	$s3, [%g][$s1];
	st_global_u32	$s3, [$d1+4];
	lda_group_u32	$s4, [%g];
	add_u32	$s8, $s4, $s1;
	ld_group_u32	$s3, [$s8];
	st_global_u32	$s3, [$d1+8];
	// Vector forms in group memory.
	st_v2_group_u32	(5, 6), [%g][16];
	ld_v2_group_u32	($s5, $s6), [%g][16];
	st_v2_global_u32	($s5, $s6), [$d1+12];
	// Private and spill.
	st_private_u64	$d2, [%p][8];
	ld_private_u64	$d3, [%p][8];
	st_global_u64	$d3, [$d1+24];
	st_spill_u32	$s2, [%s];
	ld_spill_u32	$s7, [%s];
	st_global_u32	$s7, [$d1+32];
	ret;
};
)";

TEST(MemoryTest, Segments) {
  auto P = finalizeText(Segments);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  alignas(16) uint8_t Out[48];
  std::memset(Out, 0xee, sizeof(Out));
  struct {
    uint8_t *Out;
    uint32_t Index;
    uint16_t Small;
  } K{Out, 2, 0xbeef};
  runKernel(*P, "&segments", Grid{}, &K);
  auto U32 = [&](size_t Off) { return loadAt<uint32_t>(Out, Off); };
  EXPECT_EQ(U32(0), 30u);
  EXPECT_EQ(U32(4), 30u);
  EXPECT_EQ(U32(8), 30u);
  EXPECT_EQ(U32(12), 5u);
  EXPECT_EQ(U32(16), 6u);
  uint64_t D;
  std::memcpy(&D, Out + 24, 8);
  EXPECT_EQ(D, 8u);
  EXPECT_EQ(U32(32), 30u);
  EXPECT_EQ(U32(40), 0xbeefu);
}

} // namespace
