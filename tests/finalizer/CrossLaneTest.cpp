//===- tests/finalizer/CrossLaneTest.cpp - Cross-lane instructions -------===//
//
// PRM 9.4 at the wavefront size the kernel was finalized for: on the CPU
// agent, the lanes of its SIMD registers (abi/CpuWavefront.h: 16 with
// AVX-512; 1 with OPENHSA_VECTORIZE=0), on a GPU agent 32. Wavefronts are
// W consecutive work-items in current flattened id order (PRM 2.6), so in
// groups whose rows are not a multiple of W long they cross rows; partial
// groups make partial wavefronts. Each result is checked against a model
// of the wavefront computed here.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

#include <algorithm>
#include <cstring>
#include <string>

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

/// The wavefront size Source was finalized for.
unsigned wavefrontSize(const FinalizedProgram &P, const std::string &Kernel) {
  if (runsOnGpu())
    return 32;
  const auto *K = P.kernel(Kernel);
  return K ? K->VectorWidth : 0;
}

/// Where work-item I of a 1-D grid of groups of Group sits: the first
/// absolute id of its wavefront, its lane, and the lanes the wavefront has.
struct LaneOf {
  uint32_t First, Lane, Lanes;
};
LaneOf laneOf(uint32_t I, uint32_t N, uint32_t Group, uint32_t W) {
  const uint32_t GroupStart = I / Group * Group;
  const uint32_t InGroup = I - GroupStart;
  const uint32_t WaveStart = InGroup / W * W;
  const uint32_t GroupSize = std::min(Group, N - GroupStart);
  return {GroupStart + WaveStart, InGroup - WaveStart,
          std::min(W, GroupSize - WaveStart)};
}

// activelanecount, activelaneid, activelanemask and activelanepermute
// (b1, b32, b64, b128; register and immediate operands; width modifiers),
// odd work-items' conditions set; groups smaller than a wavefront, and
// larger with a partial last wavefront.
TEST(CrossLaneTest, EveryFormAtTheWavefrontSize) {
  auto P = finalizeText(CrossLane);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const unsigned W = wavefrontSize(*P, "&k");
  ASSERT_GE(W, 1u);
  const uint8_t Q1[16] = {0x10, 0x0f, 0x0e, 0x0d, 0x0c, 0x0b, 0x0a, 0x09,
                          0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};
  for (uint32_t Group : {4u, 24u, 40u}) {
    const uint32_t N = 2 * Group + 3;
    std::vector<LaneResults> Out(N);
    std::memset(Out.data(), 0xab, Out.size() * sizeof(LaneResults));
    LaneResults *Ptr = Out.data();
    Grid G;
    G.Size[0] = N;
    G.WorkGroup[0] = Group;
    runKernel(*P, "&k", G, &Ptr);
    for (uint32_t I = 0; I < N; ++I) {
      SCOPED_TRACE("work-item " + std::to_string(I) + ", group " +
                   std::to_string(Group) + ", W " + std::to_string(W));
      const LaneResults &R = Out[I];
      const LaneOf L = laneOf(I, N, Group, W);
      const bool Odd = I & 1;
      uint64_t OddLanes = 0;
      for (uint32_t K = 0; K < L.Lanes; ++K)
        OddLanes |= uint64_t((L.First + K) & 1) << K;
      const uint64_t AllLanes =
          L.Lanes == 64 ? ~uint64_t(0) : (uint64_t(1) << L.Lanes) - 1;
      EXPECT_EQ(R.Count[0], uint32_t(__builtin_popcountll(OddLanes)));
      EXPECT_EQ(R.Count[1], L.Lanes);
      EXPECT_EQ(R.Count[2], 0u);
      EXPECT_EQ(R.LaneId[0], L.Lane); // Every lane below is active.
      EXPECT_EQ(R.LaneId[1], L.Lane);
      EXPECT_EQ(R.Mask[0], OddLanes);
      EXPECT_EQ(R.Mask[1], 0u); // Lanes past WAVESIZE read as 0.
      EXPECT_EQ(R.Mask[2], 0u);
      EXPECT_EQ(R.Mask[3], 0u);
      EXPECT_EQ(R.MaskOfOne, AllLanes);
      // From lane (own id % W): its value if active, else the identity.
      const uint32_t From = I % W;
      const bool FromActive = From < L.Lanes;
      EXPECT_EQ(R.Permute32[0], Odd          ? 5u
                                : FromActive ? L.First + From + 1000
                                             : 5u);
      const uint32_t From7 = 7 % W;
      EXPECT_EQ(R.Permute32[1],
                From7 < L.Lanes ? L.First + From7 + 1000 : I + 1000);
      EXPECT_EQ(R.Permute64[0], uint64_t(L.First) << 33);
      EXPECT_EQ(R.Permute64[1], 12345u);
      EXPECT_EQ(R.PermuteB1, Odd ? uint32_t(L.First & 1) : 0u);
      for (unsigned B = 0; B < 16; ++B)
        EXPECT_EQ(R.Permute128[B], Odd || !FromActive ? 0 : Q1[B])
            << "byte " << B;
    }
  }
}

// Wavefronts are consecutive in current flattened id order (PRM 2.6): in
// 2-D groups whose rows are not a multiple of W long they cross rows, and
// a divergent branch leaves only some lanes active. Each work-item writes
// its lane among the active ones, the active lanes' count, lane 0's flat
// id (the identity where lane 0 is inactive) and the mask of the active
// lanes whose flat id is odd (inactive lanes' bits clear, PRM 9.4.3); a
// wavebarrier ends it.
TEST(CrossLaneTest, WavefrontsFollowFlattenedIdsAcrossRows) {
  const char *Src = R"(
module &m:1:0:$full:$large:$default;
kernel &flat(kernarg_u64 %out)
{
	currentworkitemflatid_u32	$s0;
	workitemflatabsid_u32	$s1;
	ld_kernarg_align(8)_width(all)_u64	$d0, [%out];
	cvt_u64_u32	$d1, $s1;
	shl_u64	$d1, $d1, 5;
	add_u64	$d0, $d0, $d1;
	mov_b32	$s2, 0xffffffff;
	mov_b32	$s3, 0xffffffff;
	mov_b32	$s4, 0xffffffff;
	mov_b64	$d2, 0x7777;
	mov_b64	$d3, 0x7777;
	rem_u32	$s5, $s0, 3;
	cmp_eq_b1_u32	$c0, $s5, 1;
	cbr_b1	$c0, @skip;
	activelaneid_u32	$s2;
	activelanecount_u32_b1	$s3, 1;
	activelanepermute_b32	$s4, $s0, 0, 0xeeeeeeee, 0;
	and_b32	$s6, $s0, 1;
	cmp_ne_b1_u32	$c1, $s6, 0;
	activelanemask_v4_b64_b1	($d2, $d4, $d5, $d6), $c1;
	or_b64	$d3, $d4, $d5;
	or_b64	$d3, $d3, $d6;
@skip:
	st_global_u32	$s2, [$d0];
	st_global_u32	$s3, [$d0+4];
	st_global_u32	$s4, [$d0+8];
	st_global_u32	$s0, [$d0+12];
	st_global_u64	$d2, [$d0+16];
	st_global_u64	$d3, [$d0+24];
	wavebarrier;
	ret;
};
)";
  // Also as a resumable kernel: a barrier before the cross-lane
  // operations, so that flat waves run region by region.
  std::string WithBarrier(Src);
  const std::string Before = "\tmov_b32\t$s2, 0xffffffff;";
  WithBarrier.insert(WithBarrier.find(Before), "\tbarrier;\n");
  for (const std::string &Source : {std::string(Src), WithBarrier}) {
    SCOPED_TRACE(Source == Src ? "no barrier" : "with a barrier");
    auto P = finalizeText(Source);
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    const unsigned W = wavefrontSize(*P, "&flat");
    ASSERT_GE(W, 1u);
    struct Item {
      uint32_t LaneId, Count, FromLane0, Flat;
      uint64_t OddMask, HighMask;
    };
    // Groups of 5x3 and 7x2x2 (rows cross waves), and 16x2 (whole rows);
    // grids with partial groups at the far edges.
    struct Shape {
      uint32_t Dims, Size[3], Group[3];
    };
    for (const Shape &S :
         {Shape{2, {12, 7, 1}, {5, 3, 1}}, Shape{3, {9, 4, 3}, {7, 2, 2}},
          Shape{2, {32, 3, 1}, {16, 2, 1}}}) {
      const uint32_t N = S.Size[0] * S.Size[1] * S.Size[2];
      std::vector<Item> Out(N, Item{7, 7, 7, 7, 7, 7});
      Item *Ptr = Out.data();
      Grid G;
      G.Dims = S.Dims;
      for (unsigned D = 0; D < 3; ++D) {
        G.Size[D] = S.Size[D];
        G.WorkGroup[D] = S.Group[D];
      }
      runKernel(*P, "&flat", G, &Ptr);
      // The model: per group, its work-items in current flattened order,
      // cut into wavefronts of W.
      for (uint32_t GZ = 0; GZ < S.Size[2]; GZ += S.Group[2])
        for (uint32_t GY = 0; GY < S.Size[1]; GY += S.Group[1])
          for (uint32_t GX = 0; GX < S.Size[0]; GX += S.Group[0]) {
            const uint32_t CX = std::min(S.Group[0], S.Size[0] - GX),
                           CY = std::min(S.Group[1], S.Size[1] - GY),
                           CZ = std::min(S.Group[2], S.Size[2] - GZ);
            std::vector<uint32_t> Abs; // By current flattened id.
            for (uint32_t Z = 0; Z < CZ; ++Z)
              for (uint32_t Y = 0; Y < CY; ++Y)
                for (uint32_t X = 0; X < CX; ++X)
                  Abs.push_back((GX + X) +
                                S.Size[0] * ((GY + Y) + S.Size[1] * (GZ + Z)));
            for (uint32_t F = 0; F < Abs.size(); ++F) {
              SCOPED_TRACE("flat id " + std::to_string(F) + ", W " +
                           std::to_string(W) + ", group " +
                           std::to_string(S.Group[0]) + "x" +
                           std::to_string(S.Group[1]));
              const Item &R = Out[Abs[F]];
              const uint32_t WaveStart = F / W * W;
              const uint32_t WaveEnd =
                  std::min<uint32_t>(WaveStart + W, uint32_t(Abs.size()));
              if (F % 3 == 1) {
                EXPECT_EQ(R.LaneId, 0xffffffffu);
                EXPECT_EQ(R.OddMask, 0x7777u);
                continue;
              }
              uint32_t Below = 0, Count = 0;
              uint64_t OddMask = 0;
              for (uint32_t K = WaveStart; K < WaveEnd; ++K)
                if (K % 3 != 1) {
                  Below += K < F;
                  ++Count;
                  OddMask |= uint64_t(K & 1) << (K - WaveStart);
                }
              EXPECT_EQ(R.Flat, F);
              EXPECT_EQ(R.LaneId, Below);
              EXPECT_EQ(R.Count, Count);
              EXPECT_EQ(R.FromLane0,
                        WaveStart % 3 != 1 ? WaveStart : 0xeeeeeeeeu);
              EXPECT_EQ(R.OddMask, OddMask);
              EXPECT_EQ(R.HighMask, 0u); // Lanes past 64: none.
            }
          }
    }
  }
}

// A kernel whose work-items cannot run as a vectorized wavefront (here:
// they wait at an fbarrier, and are scheduled one by one) cannot use
// cross-lane operations where wavefronts are wider than a work-item: the
// finalizer says so and where.
TEST(CrossLaneTest, KernelsThatCannotRunAsWavefrontsAreRefused) {
  if (runsOnGpu() || defaultWavefrontSize() == 1)
    GTEST_SKIP() << "wavefronts of one work-item are always possible";
  auto P = finalizeText(R"(
module &m:1:0:$full:$large:$default;
kernel &k(kernarg_u64 %out)
{
	fbarrier	%fb;
	initfbar	%fb;
	joinfbar	%fb;
	waitfbar	%fb;
	activelanecount_u32_b1	$s0, 1;
	ld_kernarg_align(8)_width(all)_u64	$d0, [%out];
	st_global_u32	$s0, [$d0];
	leavefbar	%fb;
	releasefbar	%fb;
	ret;
};
)");
  ASSERT_FALSE(bool(P));
  const std::string Message = llvm::toString(P.takeError());
  EXPECT_NE(Message.find("+0x"), std::string::npos) << Message;
  EXPECT_NE(
      Message.find("wavefronts of " + std::to_string(defaultWavefrontSize())),
      std::string::npos)
      << Message;
  EXPECT_NE(Message.find("fbarriers"), std::string::npos) << Message;
}

} // namespace
