//===- tests/finalizer/PrivateInterleavingTest.cpp - Private data by lane -===//
//
// A vectorized wave keeps its lanes' private data interleaved, lane by lane
// (finalizer/PrivateInterleaving.h), where every private access allows it;
// elsewhere the blocks stay side by side. Both ways, and scalar, every
// kernel gives the same results; the finalizer's report says which layout
// a kernel got.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

#include "finalizer/DeadGroupStores.h"
#include "finalizer/PrivateInterleaving.h"
#include "finalizer/WorkItemVectorizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

using namespace openhsa::test;

namespace {

/// The finalizer's report on Source at the host's width; empty where the
/// report is not the CPU vectorizer's (a GPU, OPENHSA_VECTORIZE=0).
std::string report(const char *Source) {
  if (runsOnGpu() || !openhsa::finalizer::vectorizationEnabled())
    return "";
  return dumpFinalization(Source, openhsa::finalizer::hostVectorWidth()).Report;
}

bool interleavedBy(const std::string &Report, unsigned Bytes) {
  return Report.find("private data interleaved by " + std::to_string(Bytes) +
                     " bytes") != std::string::npos;
}

bool sideBySide(const std::string &Report, const std::string &Why) {
  return Report.find("private blocks side by side: " + Why) !=
         std::string::npos;
}

struct Out {
  uint32_t *Data;
};

/// Runs Kernel of every program in Ps over grids of each size in Sizes and
/// groups of each size in Groups, and checks element X of its output
/// against Expected(X, grid size, group size).
template <typename ExpectedFn>
void runEverywhere(const std::vector<FinalizedProgram> &Ps,
                   const std::string &Kernel,
                   std::initializer_list<uint32_t> Sizes,
                   std::initializer_list<uint32_t> Groups,
                   ExpectedFn Expected) {
  ASSERT_EQ(Ps.size(), 2u);
  for (uint32_t Size : Sizes)
    for (uint32_t Group : Groups)
      for (size_t Way = 0; Way < Ps.size(); ++Way) {
        std::vector<uint32_t> Data(Size + 1, 0xdeadbeef);
        Out Args{Data.data()};
        Grid G;
        G.Size[0] = Size;
        G.WorkGroup[0] = Group;
        runKernel(Ps[Way], Kernel, G, &Args);
        for (uint32_t X = 0; X < Size; ++X)
          ASSERT_EQ(Data[X], Expected(X, Size, Group))
              << "x " << X << " of " << Size << ", groups of " << Group
              << (Way ? ", scalar" : ", vectorized");
        ASSERT_EQ(Data[Size], 0xdeadbeefu) << "past the grid";
      }
}

// A private array filled and read at a loop counter's index, the same in
// every lane: with the wave's data interleaved, each access is one vector
// load or store, not a gather or scatter.
const char *UniformIndices = R"(
module &m:1:0:$full:$large:$default;
kernel &uniform(kernarg_u64 %out)
{
	private_u32 %a[8];
	workitemabsid_u32	$s0, 0;
	mov_b32	$s1, 0;
@fill:
	mul_u32	$s2, $s1, 3;
	add_u32	$s2, $s2, $s0;
	shl_u32	$s3, $s1, 2;
	st_private_u32	$s2, [%a][$s3];
	add_u32	$s1, $s1, 1;
	cmp_lt_b1_u32	$c0, $s1, 8;
	cbr_b1	$c0, @fill;
	mov_b32	$s1, 0;
	mov_b32	$s4, 0;
@sum:
	shl_u32	$s3, $s1, 2;
	ld_private_u32	$s5, [%a][$s3];
	mul_u32	$s5, $s5, $s1;
	add_u32	$s4, $s4, $s5;
	add_u32	$s1, $s1, 1;
	cmp_lt_b1_u32	$c0, $s1, 8;
	cbr_b1	$c0, @sum;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s4, [$d1];
	ret;
};
)";

uint32_t uniformExpected(uint32_t X) {
  uint32_t Sum = 0;
  for (uint32_t I = 0; I < 8; ++I)
    Sum += (3 * I + X) * I;
  return Sum;
}

TEST(PrivateInterleavingTest, UniformIndicesBecomeVectorAccesses) {
  const std::string R = report(UniformIndices);
  if (!R.empty()) {
    EXPECT_TRUE(interleavedBy(R, 4)) << R;
    EXPECT_NE(R.find(" 0 gathers or scatters"), std::string::npos) << R;
  }
  runEverywhere(
      bothWays(UniformIndices, "&uniform"), "&uniform", {1, 13, 45, 100},
      {1, 7, 16, 20, 64},
      [](uint32_t X, uint32_t, uint32_t) { return uniformExpected(X); });
}

// A private array filled from a table at indices that vary (gathers of
// global memory) and summed at indices the wave shares.
const char *GatheredIntoPrivate = R"(
module &m:1:0:$full:$large:$default;
kernel &gathered(kernarg_u64 %out, kernarg_u64 %table)
{
	private_u32 %a[4];
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(8)_width(all)_u64	$d2, [%table];
	mov_b32	$s1, 0;
@fill:
	mad_u32	$s2, $s0, 7, $s1;
	and_b32	$s2, $s2, 255;
	cvt_u64_u32	$d3, $s2;
	shl_u64	$d3, $d3, 2;
	add_u64	$d3, $d2, $d3;
	ld_global_u32	$s2, [$d3];
	shl_u32	$s3, $s1, 2;
	st_private_u32	$s2, [%a][$s3];
	add_u32	$s1, $s1, 1;
	cmp_lt_b1_u32	$c0, $s1, 4;
	cbr_b1	$c0, @fill;
	ld_private_u32	$s4, [%a];
	ld_private_u32	$s5, [%a][12];
	sub_u32	$s4, $s5, $s4;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s4, [$d1];
	ret;
};
)";

// The interleaved array has an alias scope of its own, outside of which
// the kernel's other accesses are, the table's gathers included (their
// addresses come from elsewhere): LLVM keeps the array in registers and
// no store to it is left, in any copy of the wave's code, whether whole
// groups of 64 leave no partial wave or the finalization has the code of
// one. (That code reads its own wave's array, which alias analysis cannot
// tell from the others': the whole waves' stores went only once each
// wave's work-items were known to end with it, DeadGroupStores.h.) The
// results are right both ways.
TEST(PrivateInterleavingTest, ArraysKeptInRegistersLeaveNoStores) {
  std::vector<uint32_t> Table(256);
  for (uint32_t I = 0; I < 256; ++I)
    Table[I] = I * I;
  auto Ps = bothWays(GatheredIntoPrivate, "&gathered");
  ASSERT_EQ(Ps.size(), 2u);
  for (const auto &P : Ps) {
    const uint32_t N = 45;
    std::vector<uint32_t> Data(N, 0);
    struct {
      uint32_t *Out;
      const uint32_t *Table;
    } Args{Data.data(), Table.data()};
    Grid G;
    G.Size[0] = N;
    G.WorkGroup[0] = 16;
    runKernel(P, "&gathered", G, &Args);
    for (uint32_t X = 0; X < N; ++X)
      ASSERT_EQ(Data[X], Table[(7 * X + 3) & 255] - Table[(7 * X) & 255])
          << "x " << X;
  }
  if (runsOnGpu() || !openhsa::finalizer::vectorizationEnabled())
    return;
  openhsa::finalizer::ControlDirectives Whole64;
  Whole64.ControlDirectivesMask =
      uint64_t(1) << 8 | // BRIG_CONTROL_REQUIREDWORKGROUPSIZE
      uint64_t(1) << 9;  // BRIG_CONTROL_REQUIRENOPARTIALWORKGROUPS
  Whole64.RequiredWorkgroupSize[0] = 64;
  Whole64.RequiredWorkgroupSize[1] = Whole64.RequiredWorkgroupSize[2] = 1;
  for (const auto &Directives :
       {Whole64, openhsa::finalizer::ControlDirectives{}}) {
    const std::string Ir =
        dumpFinalization(GatheredIntoPrivate,
                         openhsa::finalizer::hostVectorWidth(), Directives)
            .Ir;
    ASSERT_FALSE(Ir.empty());
    size_t Gathers = 0, PrivateStores = 0;
    llvm::SmallVector<llvm::StringRef, 0> Lines;
    llvm::StringRef(Ir).split(Lines, '\n');
    for (llvm::StringRef Line : Lines) {
      if (Line.contains("declare "))
        continue;
      Gathers += Line.contains("gather");
      const bool Store = Line.contains("store ") ||
                         Line.contains("masked.store") ||
                         Line.contains("masked.scatter");
      PrivateStores += Store && Line.contains("!alias.scope");
    }
    EXPECT_GT(Gathers, 0u) << Ir;
    EXPECT_EQ(PrivateStores, 0u) << Ir;
    // The markers (DeadGroupStores.h) are gone before code generation.
    EXPECT_EQ(Ir.find(openhsa::finalizer::WorkItemsEndMarker),
              std::string::npos)
        << Ir;
  }
}

// The private segment grows by the wave's area (W times the scalar
// body's private data), in the block of every work-item.
TEST(PrivateInterleavingTest, PrivateSegmentHoldsTheWavesArea) {
  if (runsOnGpu())
    GTEST_SKIP() << "the CPU's private blocks";
  auto Ps = bothWays(UniformIndices, "&uniform");
  ASSERT_EQ(Ps.size(), 2u);
  const auto *Vector = Ps[0].kernel("&uniform");
  const auto *Scalar = Ps[1].kernel("&uniform");
  ASSERT_TRUE(Vector && Scalar);
  EXPECT_EQ(Scalar->PrivateSegmentSize, 32u);
  if (Vector->VectorWidth > 1) {
    EXPECT_GE(Vector->PrivateSegmentSize,
              Scalar->PrivateSegmentSize * (Vector->VectorWidth + 1));
  }
}

// Each lane reads its own array at its own index (a gather within the
// wave's area) after writing it at shared ones.
const char *VaryingIndices = R"(
module &m:1:0:$full:$large:$default;
kernel &varying(kernarg_u64 %out)
{
	private_u32 %a[8];
	workitemabsid_u32	$s0, 0;
	mov_b32	$s1, 0;
@fill:
	add_u32	$s2, $s0, $s1;
	shl_u32	$s3, $s1, 2;
	st_private_u32	$s2, [%a][$s3];
	add_u32	$s1, $s1, 1;
	cmp_lt_b1_u32	$c0, $s1, 8;
	cbr_b1	$c0, @fill;
	and_b32	$s4, $s0, 7;
	shl_u32	$s4, $s4, 2;
	st_private_u32	$s0, [%a][$s4];
	rem_u32	$s6, $s0, 3;
	shl_u32	$s6, $s6, 2;
	ld_private_u32	$s5, [%a][$s6];
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s5, [$d1];
	ret;
};
)";

TEST(PrivateInterleavingTest, VaryingIndicesReachTheLanesOwnData) {
  const std::string R = report(VaryingIndices);
  if (!R.empty()) {
    EXPECT_TRUE(interleavedBy(R, 4)) << R;
  }
  runEverywhere(bothWays(VaryingIndices, "&varying"), "&varying",
                {1, 13, 45, 100}, {1, 7, 16, 64},
                [](uint32_t X, uint32_t, uint32_t) {
                  const uint32_t Read = X % 3, Written = X & 7;
                  return Read == Written ? X : X + Read;
                });
}

// Words of 8, 4 and 1 bytes: the granule is the largest, smaller accesses
// keep to their part of it; a word read as its bytes gives each lane its
// own.
const char *MixedSizes = R"(
module &m:1:0:$full:$large:$default;
kernel &mixed(kernarg_u64 %out)
{
	private_u64 %d[2];
	private_u32 %w[3];
	private_u8 %b[5];
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d2, $s0;
	shl_u64	$d3, $d2, 32;
	or_b64	$d3, $d3, $d2;
	st_private_u64	$d3, [%d];
	add_u64	$d3, $d3, 1;
	st_private_u64	$d3, [%d][8];
	mul_u32	$s1, $s0, 16843009;
	st_private_u32	$s1, [%w][4];
	st_private_u32	$s0, [%w];
	st_private_u32	$s0, [%w][8];
	add_u32	$s2, $s0, 1;
	st_private_u8	$s2, [%b][3];
	ld_private_u8	$s3, [%w][5];
	ld_private_u8	$s4, [%b][3];
	ld_private_u32	$s5, [%d][12];
	ld_private_u64	$d4, [%d][8];
	cvt_u32_u64	$s6, $d4;
	add_u32	$s7, $s3, $s4;
	add_u32	$s7, $s7, $s5;
	add_u32	$s7, $s7, $s6;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s7, [$d1];
	ret;
};
)";

TEST(PrivateInterleavingTest, MixedSizesShareTheLargestGranule) {
  const std::string R = report(MixedSizes);
  if (!R.empty()) {
    EXPECT_TRUE(interleavedBy(R, 8)) << R;
  }
  runEverywhere(bothWays(MixedSizes, "&mixed"), "&mixed", {1, 13, 45, 100},
                {1, 16, 64}, [](uint32_t X, uint32_t, uint32_t) {
                  const uint32_t Byte = X & 0xff, Plus = (X + 1) & 0xff;
                  return Byte + Plus + X + (X + 1);
                });
}

// A private address made flat (stof) reaches the block where the scalar
// layout has it: no interleaving.
const char *FlatPrivate = R"(
module &m:1:0:$full:$large:$default;
kernel &flat(kernarg_u64 %out)
{
	private_u32 %a[4];
	workitemabsid_u32	$s0, 0;
	st_private_u32	$s0, [%a][4];
	lda_private_u32	$s1, [%a];
	stof_private_u64_u32	$d2, $s1;
	ld_u32	$s2, [$d2+4];
	add_u32	$s2, $s2, 5;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s2, [$d1];
	ret;
};
)";

TEST(PrivateInterleavingTest, FlatPrivateAddressesKeepBlocksSideBySide) {
  const std::string R = report(FlatPrivate);
  if (!R.empty()) {
    EXPECT_TRUE(sideBySide(R, "a private address is used by")) << R;
  }
  runEverywhere(bothWays(FlatPrivate, "&flat"), "&flat", {1, 45}, {1, 16},
                [](uint32_t X, uint32_t, uint32_t) { return X + 5; });
}

// A word at an offset from a kernel argument may straddle two granules:
// the blocks stay side by side.
const char *UnknownAlignment = R"(
module &m:1:0:$full:$large:$default;
kernel &unaligned(kernarg_u64 %out, kernarg_u32 %at)
{
	private_u8 %a[16];
	workitemabsid_u32	$s0, 0;
	ld_kernarg_u32	$s1, [%at];
	st_private_u32	$s0, [%a][$s1];
	ld_private_u8	$s2, [%a][$s1];
	add_u32	$s3, $s1, 1;
	ld_private_u8	$s4, [%a][$s3];
	shl_u32	$s4, $s4, 8;
	or_b32	$s2, $s2, $s4;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s2, [$d1];
	ret;
};
)";

TEST(PrivateInterleavingTest, OffsetsOfUnknownAlignmentKeepBlocksSideBySide) {
  const std::string R = report(UnknownAlignment);
  if (!R.empty()) {
    EXPECT_TRUE(sideBySide(R, "a private access of 4 bytes is not known to "
                              "be aligned"))
        << R;
  }
  auto Ps = bothWays(UnknownAlignment, "&unaligned");
  ASSERT_EQ(Ps.size(), 2u);
  for (uint32_t At : {0u, 3u, 7u})
    for (const auto &P : Ps) {
      const uint32_t N = 45;
      std::vector<uint32_t> Data(N, 0);
      struct {
        uint32_t *Out;
        uint32_t At;
      } Args{Data.data(), At};
      Grid G;
      G.Size[0] = N;
      G.WorkGroup[0] = 16;
      runKernel(P, "&unaligned", G, &Args);
      for (uint32_t X = 0; X < N; ++X)
        ASSERT_EQ(Data[X], X & 0xffff) << "x " << X << " at " << At;
    }
}

// Too large for each work-item's block to hold a wave's copy.
const char *LargeArray = R"(
module &m:1:0:$full:$large:$default;
kernel &large(kernarg_u64 %out)
{
	private_u32 %a[4096];
	workitemabsid_u32	$s0, 0;
	and_b32	$s1, $s0, 4095;
	shl_u32	$s1, $s1, 2;
	st_private_u32	$s0, [%a][$s1];
	ld_private_u32	$s2, [%a][$s1];
	add_u32	$s2, $s2, 1;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s2, [$d1];
	ret;
};
)";

TEST(PrivateInterleavingTest, LargePrivateDataKeepBlocksSideBySide) {
  const std::string R = report(LargeArray);
  if (!R.empty()) {
    EXPECT_TRUE(sideBySide(R, "the wave's private data")) << R;
  }
  runEverywhere(bothWays(LargeArray, "&large"), "&large", {45}, {16},
                [](uint32_t X, uint32_t, uint32_t) { return X + 1; });
}

// A recursive function the vectorizer leaves a call, given the address
// of its caller's private array, writes through it: the blocks stay side
// by side, where the callee looks for them.
const char *RecursiveCallee = R"(
module &m:1:0:$full:$large:$default;
function &fill()(arg_u32 %at, arg_u32 %n, arg_u32 %v)
{
	ld_arg_u32	$s0, [%at];
	ld_arg_u32	$s1, [%n];
	ld_arg_u32	$s2, [%v];
	cmp_eq_b1_u32	$c0, $s1, 0;
	cbr_b1	$c0, @done;
	st_private_u32	$s2, [$s0];
	add_u32	$s0, $s0, 4;
	sub_u32	$s1, $s1, 1;
	add_u32	$s2, $s2, 1;
	{
		arg_u32 %a;
		arg_u32 %b;
		arg_u32 %c;
		st_arg_u32	$s0, [%a];
		st_arg_u32	$s1, [%b];
		st_arg_u32	$s2, [%c];
		call	&fill () (%a, %b, %c);
	}
@done:
	ret;
};

kernel &recursive(kernarg_u64 %out)
{
	private_u32 %a[4];
	workitemabsid_u32	$s0, 0;
	lda_private_u32	$s1, [%a];
	{
		arg_u32 %a0;
		arg_u32 %b0;
		arg_u32 %c0;
		st_arg_u32	$s1, [%a0];
		st_arg_u32	4, [%b0];
		st_arg_u32	$s0, [%c0];
		call	&fill () (%a0, %b0, %c0);
	}
	ld_private_u32	$s2, [%a][12];
	ld_private_u32	$s3, [%a];
	add_u32	$s2, $s2, $s3;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s2, [$d1];
	ret;
};
)";

TEST(PrivateInterleavingTest, CallsLeftInTheBodyKeepBlocksSideBySide) {
  const std::string R = report(RecursiveCallee);
  if (!R.empty()) {
    EXPECT_TRUE(sideBySide(R, "it calls a function it does not inline")) << R;
  }
  runEverywhere(bothWays(RecursiveCallee, "&recursive"), "&recursive", {1, 45},
                {1, 16},
                [](uint32_t X, uint32_t, uint32_t) { return 2 * X + 3; });
}

// A private array kept across barriers in a loop, its index the loop's
// counter, while the group exchanges values through group memory.
const char *AcrossBarriers = R"(
module &m:1:0:$full:$large:$default;
kernel &barriers(kernarg_u64 %out)
{
	group_u32 %g[256];
	private_u32 %a[4];
	workitemabsid_u32	$s0, 0;
	workitemid_u32	$s1, 0;
	currentworkgroupsize_u32	$s2, 0;
	shl_u32	$s3, $s1, 2;
	mov_b32	$s4, 0;
@round:
	add_u32	$s5, $s0, $s4;
	st_group_u32	$s5, [%g][$s3];
	barrier;
	add_u32	$s6, $s1, 1;
	rem_u32	$s6, $s6, $s2;
	shl_u32	$s6, $s6, 2;
	ld_group_u32	$s7, [%g][$s6];
	shl_u32	$s8, $s4, 2;
	st_private_u32	$s7, [%a][$s8];
	barrier;
	add_u32	$s4, $s4, 1;
	cmp_lt_b1_u32	$c0, $s4, 4;
	cbr_b1	$c0, @round;
	ld_private_u32	$s9, [%a];
	ld_private_u32	$s10, [%a][12];
	sub_u32	$s9, $s10, $s9;
	ld_private_u32	$s10, [%a][4];
	add_u32	$s9, $s9, $s10;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s9, [$d1];
	ret;
};
)";

TEST(PrivateInterleavingTest, BarriersInLoopsKeepTheWavesPrivateData) {
  const std::string R = report(AcrossBarriers);
  if (!R.empty()) {
    EXPECT_TRUE(interleavedBy(R, 4)) << R;
  }
  // Round r, work-item x reads n + r, where n is the next work-item of its
  // group (wrapping): a[r] = n + r, so a[3] - a[0] + a[1] = n + 4.
  runEverywhere(bothWays(AcrossBarriers, "&barriers"), "&barriers",
                {1, 45, 100}, {1, 7, 16, 20, 64},
                [](uint32_t X, uint32_t Size, uint32_t Group) {
                  const uint32_t First = X / Group * Group;
                  const uint32_t InGroup = std::min(Group, Size - First);
                  return First + (X - First + 1) % InGroup + 4;
                });
}

} // namespace
