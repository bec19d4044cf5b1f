//===- tests/finalizer/CrossLaneTest.cpp - Cross-lane instructions
//---------===//
//
// PRM 9.4 on the CPU agent, whose wavefronts are one work-item wide
// (WAVESIZE 1): every work-item is the only active lane of its wavefront.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

#include <cstring>

using namespace openhsa::test;

namespace {

const char *CrossLane = R"(
module &m:1:0:$full:$large:$default;

kernel &k(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	and_b32	$s1, $s0, 1;
	cmp_ne_b1_u32	$c1, $s1, 0;
	cvt_u64_u32	$d9, $s0;
	mul_u64	$d9, $d9, 128;
	ld_kernarg_u64	$d8, [%out];
	add_u64	$d8, $d8, $d9;

	activelanecount_u32_b1	$s2, $c1;
	st_global_u32	$s2, [$d8];
	activelanecount_width(WAVESIZE)_u32_b1	$s2, 1;
	st_global_u32	$s2, [$d8+4];
	activelanecount_width(all)_u32_b1	$s2, 0;
	st_global_u32	$s2, [$d8+8];
	activelaneid_u32	$s2;
	st_global_u32	$s2, [$d8+12];
	activelaneid_width(64)_u32	$s2;
	st_global_u32	$s2, [$d8+16];

	mov_b64	$d0, 77;
	mov_b64	$d1, 77;
	mov_b64	$d2, 77;
	mov_b64	$d3, 77;
	activelanemask_v4_b64_b1	($d0, $d1, $d2, $d3), $c1;
	st_global_u64	$d0, [$d8+24];
	st_global_u64	$d1, [$d8+32];
	st_global_u64	$d2, [$d8+40];
	st_global_u64	$d3, [$d8+48];
	activelanemask_v4_width(all)_b64_b1	($d4, $d5, $d6, $d7), 1;
	or_b64	$d4, $d4, $d5;
	or_b64	$d4, $d4, $d6;
	or_b64	$d4, $d4, $d7;
	st_global_u64	$d4, [$d8+56];

	add_u32	$s3, $s0, 1000;
	activelanepermute_b32	$s4, $s3, $s0, 5, $c1;
	st_global_u32	$s4, [$d8+64];
	activelanepermute_width(all)_b32	$s3, $s3, 7, $s3, 0;
	st_global_u32	$s3, [$d8+68];
	cvt_u64_u32	$d10, $s0;
	shl_u64	$d10, $d10, 33;
	activelanepermute_b64	$d11, $d10, 0, 0, 0;
	st_global_u64	$d11, [$d8+72];
	activelanepermute_width(WAVESIZE)_b64	$d11, $d10, 3, 12345, 1;
	st_global_u64	$d11, [$d8+80];
	mov_b128	$q1, u64x2(0x0102030405060708, 0x090a0b0c0d0e0f10);
	mov_b128	$q2, u64x2(0, 0);
	activelanepermute_b128	$q3, $q1, $s0, $q2, $c1;
	st_global_b128	$q3, [$d8+96];
	cmp_eq_b1_u32	$c2, $s1, 0;
	activelanepermute_b1	$c3, $c1, 0, 0, $c2;
	cvt_u32_b1	$s5, $c3;
	st_global_u32	$s5, [$d8+88];
	ret;
};
)";

struct alignas(16) LaneResults {
  uint32_t Count[3];
  uint32_t LaneId[2];
  uint32_t Pad0;
  uint64_t Mask[4];
  uint64_t MaskOfOne;
  uint32_t Permute32[2];
  uint64_t Permute64[2];
  uint32_t PermuteB1;
  uint32_t Pad1;
  uint8_t Permute128[16];
  uint8_t Pad2[16];
};
static_assert(sizeof(LaneResults) == 128, "layout of the kernel's output");

// activelanecount, activelaneid, activelanemask and activelanepermute
// (b1, b32, b64, b128; register and immediate operands; width modifiers):
// the lane itself is the only active lane.
TEST(CrossLaneTest, EveryFormForWavefrontsOfOne) {
  if (runsOnGpu())
    GTEST_SKIP() << "wavefronts of one work-item are the CPU's; "
                    "tests/gpu checks 32-lane ones";
  auto P = finalizeText(CrossLane);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const uint32_t N = 16;
  std::vector<LaneResults> Out(N);
  std::memset(Out.data(), 0xab, Out.size() * sizeof(LaneResults));
  LaneResults *Ptr = Out.data();
  Grid G;
  G.Size[0] = N;
  G.WorkGroup[0] = 4;
  runKernel(*P, "&k", G, &Ptr);
  const uint8_t Q1[16] = {0x10, 0x0f, 0x0e, 0x0d, 0x0c, 0x0b, 0x0a, 0x09,
                          0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};
  for (uint32_t I = 0; I < N; ++I) {
    const LaneResults &R = Out[I];
    const uint32_t Odd = I & 1;
    EXPECT_EQ(R.Count[0], Odd) << I;
    EXPECT_EQ(R.Count[1], 1u) << I;
    EXPECT_EQ(R.Count[2], 0u) << I;
    EXPECT_EQ(R.LaneId[0], 0u) << I;
    EXPECT_EQ(R.LaneId[1], 0u) << I;
    EXPECT_EQ(R.Mask[0], uint64_t(Odd)) << I;
    EXPECT_EQ(R.Mask[1], 0u) << I; // Lanes past WAVESIZE read as 0.
    EXPECT_EQ(R.Mask[2], 0u) << I;
    EXPECT_EQ(R.Mask[3], 0u) << I;
    EXPECT_EQ(R.MaskOfOne, 1u) << I;
    EXPECT_EQ(R.Permute32[0], Odd ? 5u : I + 1000) << I;
    EXPECT_EQ(R.Permute32[1], I + 1000) << I;
    EXPECT_EQ(R.Permute64[0], uint64_t(I) << 33) << I;
    EXPECT_EQ(R.Permute64[1], 12345u) << I;
    EXPECT_EQ(R.PermuteB1, Odd) << I;
    for (unsigned B = 0; B < 16; ++B)
      EXPECT_EQ(R.Permute128[B], Odd ? 0 : Q1[B]) << I << " byte " << B;
  }
}

} // namespace
