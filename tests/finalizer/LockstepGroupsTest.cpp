//===- tests/finalizer/LockstepGroupsTest.cpp - Groups as one vector ------===//
//
// A kernel with barriers whose control directives fix a small 1-D shape
// with whole groups runs each group as one vector of work-items in
// lockstep (finalizer/LockstepGroups.h): no regions, its barrier loops
// unrolled, the lanes it exchanges through group memory kept in registers
// (finalizer/ForwardVectorStores.h). These tests check that such kernels
// compute what the region-by-region code computes, that the finalizer
// chooses lockstep only where it pays, and that the group memory traffic
// of the tree reduction is gone.
//
//===----------------------------------------------------------------------===//
#include "IrText.h"
#include "KernelRunner.h"
#include "finalizer/Codegen.h"

#include "finalizer/CodeObject.h"
#include "finalizer/JitLoader.h"
#include "finalizer/LockstepGroups.h"
#include "finalizer/WorkItemVectorizer.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <numeric>
#include <sys/mman.h>
#include <utility>
#include <vector>

using namespace openhsa::test;
using openhsa::finalizer::ControlDirectives;

namespace {

constexpr const char *Lockstep = "the group in lockstep";

/// requiredworkgroupsize (X, Y, 1), and requirenopartialworkgroups if
/// Whole, as hsa_ext_program_finalize passes them.
ControlDirectives fixedShape(uint32_t X, bool Whole, uint32_t Y = 1) {
  ControlDirectives D;
  D.ControlDirectivesMask = uint64_t(1)
                            << 8; // BRIG_CONTROL_REQUIREDWORKGROUPSIZE
  D.RequiredWorkgroupSize[0] = X;
  D.RequiredWorkgroupSize[1] = Y;
  D.RequiredWorkgroupSize[2] = 1;
  if (Whole) // BRIG_CONTROL_REQUIRENOPARTIALWORKGROUPS
    D.ControlDirectivesMask |= uint64_t(1) << 9;
  return D;
}

/// The widest lockstep group for 32-bit data: 256 work-items
/// (LockstepLanesMax) at any vector width, 16 vectors with AVX-512 and 32
/// with AVX2 (finalizer.avx2.*, where this was 128 before), also the test
/// kernels' group arrays.
uint32_t widestGroup() { return openhsa::finalizer::LockstepLanesMax; }

/// The type of a lockstep group's vectors of Group floats as they reach
/// code generation, and how many of them each operation on such a vector
/// became: one register of the host's each where they span four or more
/// (finalizer/SplitWideVectors.h).
std::pair<std::string, uint32_t> groupFloats(uint32_t Group) {
  const uint32_t W = openhsa::finalizer::hostVectorWidth();
  if (W > 1 && Group % W == 0 && Group / W >= 4)
    return {"<" + std::to_string(W) + " x float>", Group / W};
  return {"<" + std::to_string(Group) + " x float>", 1};
}

/// Whether this run vectorizes (the scalar variant of every test sets
/// OPENHSA_VECTORIZE=0, which leaves every kernel to regions).
bool vectorizing() {
  const char *V = std::getenv("OPENHSA_VECTORIZE");
  return !runsOnGpu() && openhsa::finalizer::hostVectorWidth() > 1 &&
         !(V && std::string(V) == "0");
}

/// A row of one vector of the host's width (4 work-items where it has no
/// vectors): the X size of the 2-D groups the tests run in lockstep.
uint32_t vectorOrFour() {
  const uint32_t W = openhsa::finalizer::hostVectorWidth();
  return W > 1 ? W : 4;
}

/// A 2-D grid of Width x Height work-items in groups of X x Y.
Grid grid2D(uint32_t Width, uint32_t Height, uint32_t X, uint32_t Y) {
  Grid G;
  G.Dims = 2;
  G.Size[0] = Width;
  G.Size[1] = Height;
  G.WorkGroup[0] = X;
  G.WorkGroup[1] = Y;
  return G;
}

/// Where this run vectorizes and the group fits a lockstep group, checks
/// that Source finalized for fixed whole groups of X x Y runs them so.
void expectLockstep(const char *Source, uint32_t X, uint32_t Y = 1) {
  if (!vectorizing() || X * Y > widestGroup())
    return;
  const std::string Report =
      dumpFinalization(Source, 0, fixedShape(X, true, Y)).Report;
  EXPECT_NE(Report.find(Lockstep), std::string::npos) << Report;
}

std::vector<float> reductionInput(uint32_t N) {
  // Multiples of 1/4 below 4: every partial sum is exact in float.
  std::vector<float> In(N);
  for (uint32_t I = 0; I < N; ++I)
    In[I] = float((I * 7u) % 16u) * 0.25f;
  return In;
}

std::vector<float> groupSums(const std::vector<float> &In, uint32_t Group) {
  std::vector<float> Sums(In.size() / Group, 0.0f);
  for (size_t I = 0; I < In.size(); ++I)
    Sums[I / Group] += In[I];
  return Sums;
}

TEST(LockstepGroupsTest, TheTreeReductionSumsAsRegionByRegion) {
  const std::string Reduce = benchmarkKernel("reduction.hsail");
  ASSERT_FALSE(Reduce.empty());
  const unsigned W = openhsa::finalizer::hostVectorWidth();
  for (uint32_t Group : {2 * W, 4 * W, widestGroup()}) {
    std::vector<float> In = reductionInput(Group * 41);
    auto P = finalizeText(Reduce, 0, fixedShape(Group, true));
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    EXPECT_EQ(runReduction(*P, In, Group), groupSums(In, Group))
        << "groups of " << Group;
  }
}

TEST(LockstepGroupsTest, GroupsPastTheBoundCheckEveryWorkItem) {
  // The reduction's `id < n` holds for every work-item of the groups below
  // n, which run without its masks (GroupBoundsChecks.h); the group that n
  // falls in and the groups past it check each work-item. Bounds at a
  // group's start, inside it and past the grid, and 0.
  const std::string Reduce = benchmarkKernel("reduction.hsail");
  ASSERT_FALSE(Reduce.empty());
  const unsigned W = openhsa::finalizer::hostVectorWidth();
  for (uint32_t Group : {W, 4 * W, widestGroup()}) {
    auto P = finalizeText(Reduce, 0, fixedShape(Group, true));
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    std::vector<float> In = reductionInput(Group * 8);
    for (uint32_t Bound :
         {Group * 5 + Group / 2 + 3, Group * 3, 0u, Group * 8 - 1, ~0u}) {
      std::vector<float> Want(8, 0.0f);
      for (uint32_t I = 0; I < In.size() && I < Bound; ++I)
        Want[I / Group] += In[I];
      EXPECT_EQ(runReduction(*P, In, Group, Bound), Want)
          << "groups of " << Group << ", bound " << Bound;
    }
  }
}

// The reduction over a window of signed ids: work-item i adds in[i] where
// i + lo < n as signed 32-bit numbers. With lo negative the first groups'
// ids are negative, in bounds as signed numbers and out of bounds as
// unsigned ones: the check that picks the copy without masks compares in
// the comparison's own sign.
const char *SignedWindow = R"(
module &m:1:0:$full:$large:$default;
prog kernel &reduce(kernarg_u64 %in, kernarg_u64 %partial, kernarg_s32 %lo,
                    kernarg_s32 %n)
{
	group_f32 %scratch[256];
	workitemid_u32	$s0, 0;
	workitemabsid_u32	$s1, 0;
	ld_kernarg_s32	$s10, [%lo];
	add_u32	$s2, $s1, $s10;
	ld_kernarg_s32	$s4, [%n];
	mov_b32	$s3, 0F00000000;
	cmp_lt_b1_s32	$c0, $s2, $s4;
	cbr_b1	$c0, @load;
	br	@stash;
@load:
	cvt_u64_u32	$d0, $s1;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_u64	$d1, [%in];
	add_u64	$d1, $d1, $d0;
	ld_global_f32	$s3, [$d1];
@stash:
	shl_u32	$s6, $s0, 2;
	st_group_f32	$s3, [%scratch][$s6];
	barrier;
	workgroupsize_u32	$s5, 0;
	shr_u32	$s5, $s5, 1;
@step:
	cmp_eq_b1_u32	$c1, $s5, 0;
	cbr_b1	$c1, @write;
	cmp_ge_b1_u32	$c2, $s0, $s5;
	cbr_b1	$c2, @wait;
	add_u32	$s7, $s0, $s5;
	shl_u32	$s7, $s7, 2;
	ld_group_f32	$s8, [%scratch][$s6];
	ld_group_f32	$s9, [%scratch][$s7];
	add_f32	$s8, $s8, $s9;
	st_group_f32	$s8, [%scratch][$s6];
@wait:
	barrier;
	shr_u32	$s5, $s5, 1;
	br	@step;
@write:
	cmp_ne_b1_u32	$c3, $s0, 0;
	cbr_b1	$c3, @end;
	ld_group_f32	$s8, [%scratch];
	workgroupid_u32	$s11, 0;
	cvt_u64_u32	$d2, $s11;
	shl_u64	$d2, $d2, 2;
	ld_kernarg_u64	$d3, [%partial];
	add_u64	$d3, $d3, $d2;
	st_global_f32	$s8, [$d3];
@end:
	ret;
};
)";

TEST(LockstepGroupsTest, ASignedWindowChecksInItsSign) {
  const unsigned W = openhsa::finalizer::hostVectorWidth();
  for (uint32_t Group : {W, 4 * W, widestGroup()}) {
    auto P = finalizeText(SignedWindow, 0, fixedShape(Group, true));
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    std::vector<float> In = reductionInput(Group * 8);
    const int32_t G = int32_t(Group);
    for (auto [Lo, N] : {std::pair{-2 * G - 5, 3 * G}, std::pair{-5 * G, 0},
                         std::pair{0, 3 * G + 1}, std::pair{INT32_MIN, 7}}) {
      std::vector<float> Want(8, 0.0f), Got(8, -1.0f);
      for (uint32_t I = 0; I < In.size(); ++I)
        if (int32_t(I + uint32_t(Lo)) < N)
          Want[I / Group] += In[I];
      struct {
        float *In, *Partial;
        int32_t Lo, N;
      } Args{In.data(), Got.data(), Lo, N};
      Grid Shape;
      Shape.Size[0] = Group * 8;
      Shape.WorkGroup[0] = Group;
      runKernel(*P, "&reduce", Shape, &Args);
      EXPECT_EQ(Got, Want) << "groups of " << Group << ", lo " << Lo << ", n "
                           << N;
    }
  }
  if (!vectorizing())
    return;
  // The groups in the window load without masks, the others with them
  // (each load one per register).
  const uint32_t Group = widestGroup();
  const DumpedFinalization D =
      dumpFinalization(SignedWindow, 0, fixedShape(Group, true));
  const auto [Vector, Parts] = groupFloats(Group);
  EXPECT_EQ(occurrences(D.Ir, "call " + Vector + " @llvm.masked.load"), Parts)
      << D.Ir;
  EXPECT_EQ(occurrences(D.Ir, "load " + Vector + ", ptr"), Parts) << D.Ir;
}

TEST(LockstepGroupsTest, TheTreeReductionKeepsItsGroupMemoryInRegisters) {
  if (!vectorizing())
    GTEST_SKIP() << "lockstep groups are vectorized";
  const std::string Reduce = benchmarkKernel("reduction.hsail");
  ASSERT_FALSE(Reduce.empty());
  const uint32_t Group = widestGroup();
  const DumpedFinalization D =
      dumpFinalization(Reduce.c_str(), 0, fixedShape(Group, true));
  ASSERT_FALSE(D.Ir.empty());
  EXPECT_NE(D.Report.find(Lockstep), std::string::npos) << D.Report;
  EXPECT_NE(D.Report.find(std::to_string(Group) + " work-items at once"),
            std::string::npos)
      << D.Report;
  // No region state machine: the body is inlined once, and no register
  // file is left.
  EXPECT_EQ(D.Ir.find("resume"), std::string::npos) << D.Ir;
  // Of the group's loads, only the input's stays: the tree's eight steps
  // take their lanes from the stores before them. The input's load is
  // masked by the bounds check where the group runs past the bound, and
  // plain in the copy for the groups below it (GroupBoundsChecks.h); each
  // reaches code generation as a load per register.
  const auto [Vector, Parts] = groupFloats(Group);
  EXPECT_EQ(occurrences(D.Ir, "call " + Vector + " @llvm.masked.load"), Parts)
      << D.Ir;
  EXPECT_EQ(occurrences(D.Ir, "load " + Vector + ", ptr"), Parts) << D.Ir;
  EXPECT_EQ(occurrences(D.Ir, "<" + std::to_string(Group) + " x float>"),
            Parts > 1 ? 0u : occurrences(D.Ir, Vector))
      << D.Ir;
  // Nor are the tree's stores left: nothing reads them before the group
  // ends (finalizer/DeadGroupStores.h).
  EXPECT_EQ(occurrences(D.Ir, "store " + Vector), 0u) << D.Ir;
  EXPECT_EQ(occurrences(D.Ir, "call void @llvm.masked.store"), 0u) << D.Ir;
  // Its code generation keeps Loop Strength Reduction (Codegen.h).
  EXPECT_NE(D.Ir.find(std::string("\"") +
                      openhsa::finalizer::KeepsLoopStrengthReductionAttr +
                      "\""),
            std::string::npos)
      << D.Ir;
}

TEST(LockstepGroupsTest, CodeObjectsKeepWhatTheRuntimeNeeds) {
  if (!vectorizing())
    GTEST_SKIP() << "lockstep groups are vectorized";
  const std::string Reduce = benchmarkKernel("reduction.hsail");
  ASSERT_FALSE(Reduce.empty());
  const uint32_t Group = widestGroup();
  // Fixed: a lockstep group as wide as the group. Not fixed: a kernel the
  // runtime may finalize again for a dispatch's shape
  // (runtime/ShapeVariants.h). Both survive the code object's serialized
  // form, which the finalization cache keeps on disk.
  auto Fixed = finalizeText(Reduce, 0, fixedShape(Group, true));
  ASSERT_TRUE(bool(Fixed)) << llvm::toString(Fixed.takeError());
  auto Plain = finalizeText(Reduce);
  ASSERT_TRUE(bool(Plain)) << llvm::toString(Plain.takeError());
  for (const auto *Code : {&Fixed->Code, &Plain->Code}) {
    auto Back = openhsa::finalizer::CodeObject::deserialize(Code->serialize());
    ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
    ASSERT_EQ(Back->Kernels.size(), 1u);
    const auto &K = Code->Kernels[0], &KB = Back->Kernels[0];
    EXPECT_EQ(KB.VectorWidth, K.VectorWidth);
    EXPECT_EQ(KB.Lockstep, K.Lockstep);
    EXPECT_EQ(KB.ShapeVariants, K.ShapeVariants);
  }
  EXPECT_TRUE(Fixed->Code.Kernels[0].Lockstep);
  EXPECT_EQ(Fixed->Code.Kernels[0].VectorWidth, Group);
  EXPECT_FALSE(Fixed->Code.Kernels[0].ShapeVariants);
  EXPECT_FALSE(Plain->Code.Kernels[0].Lockstep);
  EXPECT_TRUE(Plain->Code.Kernels[0].ShapeVariants);
}

// Asked to, the finalizer leaves out the code of a kernel the runtime will
// finalize again for its dispatches' shapes; the symbol says so and keeps
// what building that code found, so the code finalized later matches it.
TEST(LockstepGroupsTest, ShapeVariantKernelsMayLeaveTheirCodeForLater) {
  if (!vectorizing())
    GTEST_SKIP() << "shape variants are vectorized";
  const std::string Reduce = benchmarkKernel("reduction.hsail");
  ASSERT_FALSE(Reduce.empty());
  auto Full = finalizeText(Reduce);
  ASSERT_TRUE(bool(Full)) << llvm::toString(Full.takeError());
  auto Deferred = finalizeText(Reduce, 0, {}, true);
  ASSERT_TRUE(bool(Deferred)) << llvm::toString(Deferred.takeError());
  const auto &K = Full->Code.Kernels[0], &KD = Deferred->Code.Kernels[0];
  EXPECT_FALSE(K.CodeDeferred);
  EXPECT_TRUE(KD.CodeDeferred);
  EXPECT_TRUE(KD.ShapeVariants);
  EXPECT_EQ(KD.EntrySymbol, K.EntrySymbol);
  EXPECT_EQ(KD.VectorWidth, K.VectorWidth);
  EXPECT_EQ(KD.SliceStep, K.SliceStep);
  EXPECT_EQ(KD.GroupRuns, K.GroupRuns);
  EXPECT_EQ(KD.GroupSegmentSize, K.GroupSegmentSize);
  EXPECT_EQ(KD.PrivateSegmentSize, K.PrivateSegmentSize);
  EXPECT_EQ(KD.KernargSegmentSize, K.KernargSegmentSize);
  // The object has no such function; the serialized form keeps the mark.
  auto Loaded = openhsa::finalizer::LoadedObject::load(Deferred->Code, {});
  ASSERT_TRUE(bool(Loaded)) << llvm::toString(Loaded.takeError());
  auto Entry = (*Loaded)->address(KD.EntrySymbol);
  EXPECT_FALSE(bool(Entry));
  llvm::consumeError(Entry.takeError());
  EXPECT_LT(Deferred->Code.Object.size(), Full->Code.Object.size());
  auto Back =
      openhsa::finalizer::CodeObject::deserialize(Deferred->Code.serialize());
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_TRUE(Back->Kernels[0].CodeDeferred);
  // A fixed shape: no variants, nothing deferred.
  auto Fixed = finalizeText(Reduce, 0, fixedShape(widestGroup(), true), true);
  ASSERT_TRUE(bool(Fixed)) << llvm::toString(Fixed.takeError());
  EXPECT_FALSE(Fixed->Code.Kernels[0].CodeDeferred);
}

// The tiled matrix product of the benchmarks (16x16 groups, two barriers
// per k-step in a loop whose trip count is the kernel argument n): a 2-D
// group in lockstep, each tile row a vector access, A's tile elements
// loaded once per row and B's rows once for all rows
// (finalizer/LockstepGroups.h).
TEST(LockstepGroupsTest, TwoDimensionalGroupsRunTheTiledProductInLockstep) {
  const std::string Tiled = benchmarkKernel("sgemm_tiled.hsail");
  ASSERT_FALSE(Tiled.empty());
  constexpr uint32_t N = 48; // Three k-steps.
  std::vector<float> A(N * N), B(N * N), C(N * N, -1.0f), Want(N * N, 0.0f);
  // Small integers: every sum is exact, in any order.
  for (uint32_t I = 0; I < N * N; ++I) {
    A[I] = float((I * 5u) % 7u);
    B[I] = float((I * 3u) % 5u);
  }
  for (uint32_t Row = 0; Row < N; ++Row)
    for (uint32_t Col = 0; Col < N; ++Col)
      for (uint32_t K = 0; K < N; ++K)
        Want[Row * N + Col] += A[Row * N + K] * B[K * N + Col];
  const DumpedFinalization D =
      dumpFinalization(Tiled.c_str(), 0, fixedShape(16, true, 16));
  auto P = finalizeText(Tiled, 0, fixedShape(16, true, 16));
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  struct {
    float *A, *B, *C;
    uint32_t N;
  } Args{A.data(), B.data(), C.data(), N};
  runKernel(*P, "&sgemm_tiled", grid2D(N, N, 16, 16), &Args);
  EXPECT_EQ(C, Want);
  // Rows of 16 are whole vectors, and 256 work-items at most 16 of them,
  // where vectors have 16 lanes.
  if (!vectorizing() || openhsa::finalizer::hostVectorWidth() != 16)
    return;
  EXPECT_NE(D.Report.find(Lockstep), std::string::npos) << D.Report;
  EXPECT_NE(D.Report.find("256 work-items at once"), std::string::npos)
      << D.Report;
  EXPECT_NE(D.Report.find("0 gathers or scatters"), std::string::npos)
      << D.Report;
  // The k-loop stays a loop (its trip count is n), with the accumulators
  // in registers across it: no region state machine. They reach code
  // generation as phis of a register each (SplitWideVectors.h), and no
  // value is as wide as the group (its tiles in memory are).
  EXPECT_EQ(D.Ir.find("resume"), std::string::npos) << D.Ir;
  EXPECT_GE(occurrences(D.Ir, "phi <16 x float>"), 16u) << D.Ir;
  EXPECT_EQ(occurrences(D.Ir, "phi <256 x float>"), 0u) << D.Ir;
  EXPECT_EQ(occurrences(D.Ir, "<256 x float>"),
            occurrences(D.Ir, "alloca <256 x float>"))
      << D.Ir;
}

// A 2-D group in lockstep, rows of X = the vector width, exchanging values
// through group memory: each work-item adds the value of the work-item
// mirrored across the group (a gather from group memory) and 1000 times
// the first value of its own row (one load per row), kept across a
// barrier in a private array indexed by its Y id, and 10^8 where its X id
// is below its Y id (lanes of a row diverge, differently in each row).
// Every work-item reads and writes its output once (a second run would
// add again).
const char *Mirror = R"(module &mirror_module:1:0:$full:$large:$default;
prog kernel &mirror(kernarg_u64 %in, kernarg_u64 %out)
{
	group_u32 %t[1024];
	private_u32 %p[4];
	workitemid_u32	$s0, 0;
	workitemid_u32	$s1, 1;
	workitemabsid_u32	$s2, 0;
	workitemabsid_u32	$s3, 1;
	workgroupsize_u32	$s4, 0;
	workgroupsize_u32	$s5, 1;
	gridsize_u32	$s6, 0;
	mad_u32	$s7, $s3, $s6, $s2;
	cvt_u64_u32	$d0, $s7;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_u64	$d1, [%in];
	add_u64	$d1, $d1, $d0;
	ld_global_u32	$s8, [$d1];
	mad_u32	$s9, $s1, $s4, $s0;
	shl_u32	$s9, $s9, 2;
	st_group_u32	$s8, [%t][$s9];
	barrier;
	sub_u32	$s10, $s5, 1;
	sub_u32	$s10, $s10, $s1;
	sub_u32	$s11, $s4, 1;
	sub_u32	$s11, $s11, $s0;
	mad_u32	$s10, $s10, $s4, $s11;
	shl_u32	$s10, $s10, 2;
	ld_group_u32	$s12, [%t][$s10];
	mul_u32	$s13, $s1, $s4;
	shl_u32	$s13, $s13, 2;
	ld_group_u32	$s14, [%t][$s13];
	mul_u32	$s14, $s14, 1000;
	add_u32	$s12, $s12, $s14;
	and_b32	$s16, $s1, 3;
	shl_u32	$s16, $s16, 2;
	st_private_u32	$s12, [%p][$s16];
	barrier;
	ld_private_u32	$s12, [%p][$s16];
	ld_kernarg_u64	$d2, [%out];
	add_u64	$d2, $d2, $d0;
	ld_global_u32	$s15, [$d2];
	add_u32	$s15, $s15, $s12;
	cmp_ge_b1_u32	$c0, $s0, $s1;
	cbr_b1	$c0, @store;
	add_u32	$s15, $s15, 100000000;
@store:
	st_global_u32	$s15, [$d2];
	ret;
};
)";

TEST(LockstepGroupsTest, TwoDimensionalGroupsExchangeThroughGroupMemory) {
  const uint32_t W = vectorOrFour();
  for (auto [X, Y] : {std::pair{W, 2u}, std::pair{W, 4u}, std::pair{W, 16u},
                      std::pair{2 * W, 2u}, std::pair{2 * W, 8u}}) {
    const uint32_t Width = 3 * X, Height = 2 * Y;
    std::vector<uint32_t> In(Width * Height), Out(Width * Height, 7);
    std::iota(In.begin(), In.end(), 1u);
    std::vector<uint32_t> Want(Out);
    for (uint32_t Row = 0; Row < Height; ++Row)
      for (uint32_t Col = 0; Col < Width; ++Col) {
        const uint32_t Row0 = Row / Y * Y, Col0 = Col / X * X;
        const uint32_t MRow = Row0 + Y - 1 - (Row - Row0);
        const uint32_t MCol = Col0 + X - 1 - (Col - Col0);
        Want[Row * Width + Col] += In[MRow * Width + MCol] +
                                   1000 * In[Row * Width + Col0] +
                                   (Col - Col0 < Row - Row0 ? 100000000u : 0u);
      }
    auto P = finalizeText(Mirror, 0, fixedShape(X, true, Y));
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    struct {
      uint32_t *In, *Out;
    } Args{In.data(), Out.data()};
    runKernel(*P, "&mirror", grid2D(Width, Height, X, Y), &Args);
    EXPECT_EQ(Out, Want) << "groups of " << X << "x" << Y;
    expectLockstep(Mirror, X, Y);
  }
}

// A 2-D group in lockstep with a bounds check on both ids and no loop:
// work-item (x, y) puts in[y][x] (0 past the bounds nx, ny) in group
// memory, and after a barrier writes what its row's mirrored work-item
// put. The check's mask differs from row to row: each row's load is
// masked with its own lanes. (GroupBoundsChecks.h takes one comparison,
// not this conjunction: no copy without the masks.)
const char *Clipped = R"(module &clip_module:1:0:$full:$large:$default;
prog kernel &clipped(kernarg_u64 %in, kernarg_u64 %out, kernarg_u32 %nx,
                     kernarg_u32 %ny)
{
	group_u32 %t[1024];
	workitemabsid_u32	$s0, 0;
	workitemabsid_u32	$s1, 1;
	gridsize_u32	$s4, 0;
	workitemid_u32	$s5, 0;
	workitemid_u32	$s6, 1;
	workgroupsize_u32	$s7, 0;
	mad_u32	$s8, $s6, $s7, $s5;
	shl_u32	$s8, $s8, 2;
	mad_u32	$s11, $s1, $s4, $s0;
	cvt_u64_u32	$d0, $s11;
	shl_u64	$d0, $d0, 2;
	mov_b32	$s9, 0;
	ld_kernarg_u32	$s2, [%nx];
	ld_kernarg_u32	$s3, [%ny];
	cmp_lt_b1_u32	$c0, $s0, $s2;
	cmp_lt_b1_u32	$c1, $s1, $s3;
	and_b1	$c2, $c0, $c1;
	cbr_b1	$c2, @load;
	br	@stash;
@load:
	ld_kernarg_u64	$d1, [%in];
	add_u64	$d1, $d1, $d0;
	ld_global_u32	$s9, [$d1];
@stash:
	st_group_u32	$s9, [%t][$s8];
	barrier;
	sub_u32	$s10, $s7, 1;
	sub_u32	$s10, $s10, $s5;
	mad_u32	$s10, $s6, $s7, $s10;
	shl_u32	$s10, $s10, 2;
	ld_group_u32	$s12, [%t][$s10];
	ld_kernarg_u64	$d2, [%out];
	add_u64	$d2, $d2, $d0;
	st_global_u32	$s12, [$d2];
	ret;
};
)";

TEST(LockstepGroupsTest, TwoDimensionalGroupsCheckBoundsOnBothIds) {
  const uint32_t X = vectorOrFour();
  constexpr uint32_t Y = 4;
  const uint32_t Width = 3 * X, Height = 3 * Y;
  std::vector<uint32_t> In(Width * Height);
  std::iota(In.begin(), In.end(), 1u);
  auto P = finalizeText(Clipped, 0, fixedShape(X, true, Y));
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  for (auto [Nx, Ny] :
       {std::pair{Width, Height}, std::pair{X + 3, 2 * Y + 1},
        std::pair{2 * X, Y}, std::pair{0u, Height}, std::pair{~0u, ~0u}}) {
    std::vector<uint32_t> Out(Width * Height, 7), Want(Width * Height);
    for (uint32_t Row = 0; Row < Height; ++Row)
      for (uint32_t Col = 0; Col < Width; ++Col) {
        const uint32_t From = Col / X * X + X - 1 - Col % X;
        Want[Row * Width + Col] =
            From < Nx && Row < Ny ? In[Row * Width + From] : 0;
      }
    struct {
      uint32_t *In, *Out;
      uint32_t Nx, Ny;
    } Args{In.data(), Out.data(), Nx, Ny};
    runKernel(*P, "&clipped", grid2D(Width, Height, X, Y), &Args);
    EXPECT_EQ(Out, Want) << "bounds " << Nx << " x " << Ny;
  }
  expectLockstep(Clipped, X, Y);
}

// A 1-D group in lockstep of three vectors (not a power of two): the
// work-group function calls the group's vector once, so every work-item
// runs once.
TEST(LockstepGroupsTest, GroupsOfThreeVectorsRunEachWorkItemOnce) {
  const uint32_t W = vectorOrFour();
  const uint32_t Group = 3 * W, Width = 5 * Group;
  std::vector<uint32_t> In(Width), Out(Width, 7);
  std::iota(In.begin(), In.end(), 1u);
  std::vector<uint32_t> Want(Out);
  for (uint32_t I = 0; I < Width; ++I) {
    const uint32_t G0 = I / Group * Group;
    Want[I] += In[G0 + Group - 1 - (I - G0)] + 1000 * In[G0];
  }
  auto P = finalizeText(Mirror, 0, fixedShape(Group, true));
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  struct {
    uint32_t *In, *Out;
  } Args{In.data(), Out.data()};
  Grid Shape;
  Shape.Size[0] = Width;
  Shape.WorkGroup[0] = Group;
  runKernel(*P, "&mirror", Shape, &Args);
  EXPECT_EQ(Out, Want);
  expectLockstep(Mirror, Group);
}

// A 2-D group in lockstep whose 32-bit element index wraps within a row:
// each work-item adds 1 to data[(row * width + col + off) mod 2^32], with
// off just below 2^32. Its rows' vector accesses would be wrong there; the
// run-time check sends the group to the lane-by-lane path, which keeps
// HSAIL's wrapped index. The data spans 16 GiB of address space, of which
// only the two ends are mapped.
const char *WrappedRows = R"(module &wrap_module:1:0:$full:$large:$default;
prog kernel &wrapped(kernarg_u64 %data, kernarg_u32 %off)
{
	group_u32 %t[1];
	workitemabsid_u32	$s0, 0;
	workitemabsid_u32	$s1, 1;
	gridsize_u32	$s2, 0;
	mad_u32	$s3, $s1, $s2, $s0;
	ld_kernarg_u32	$s4, [%off];
	add_u32	$s3, $s3, $s4;
	cvt_u64_u32	$d0, $s3;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_u64	$d1, [%data];
	add_u64	$d1, $d1, $d0;
	ld_global_u32	$s5, [$d1];
	barrier;
	add_u32	$s5, $s5, 1;
	st_global_u32	$s5, [$d1];
	ret;
};
)";

// WrappedRows at row y * y rather than y: an index not linear in the Y
// id, which keeps a wrap check per row and, where one fails, a loop over
// the lanes from each row's first index.
const std::string WrappedSquareRows = [] {
  std::string S = WrappedRows;
  S.insert(S.find("\tmad_u32"), "\tmul_u32\t$s1, $s1, $s1;\n");
  return S;
}();

/// Runs WrappedRows (or, if Square, WrappedSquareRows) on groups of a
/// vector's width by 4 rows, 2 x 2 groups, with its index offset by Off,
/// over data that spans 16 GiB of address space of which only both ends
/// are mapped (64 KiB each), and checks that each work-item added 1 where
/// HSAIL's wrapped index says.
void runWrappedRows(uint32_t Off, bool Square = false) {
  const char *Source = Square ? WrappedSquareRows.c_str() : WrappedRows;
  constexpr uint64_t Span = (uint64_t(1) << 34) + (uint64_t(1) << 16);
  void *Region = mmap(nullptr, Span, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (Region == MAP_FAILED)
    GTEST_SKIP() << "no 16 GiB of address space";
  auto *Data = static_cast<uint32_t *>(Region);
  constexpr uint64_t Window = 1u << 16; // Bytes mapped at each end.
  uint32_t *High = Data + ((uint64_t(1) << 32) - Window / 4);
  ASSERT_EQ(mprotect(Data, Window, PROT_READ | PROT_WRITE), 0);
  ASSERT_EQ(mprotect(High, Window, PROT_READ | PROT_WRITE), 0);
  const uint32_t X = vectorOrFour();
  const uint32_t Y = 4, Width = 2 * X, Height = 2 * Y;
  auto Index = [&](uint32_t Row, uint32_t Col) {
    const uint32_t R = Square ? Row * Row : Row;
    return uint32_t(R * Width + Col + Off); // Wraps as HSAIL's add_u32.
  };
  for (uint64_t I = 0; I < Window / 4; ++I) {
    Data[I] = uint32_t(I * 3);
    High[I] = uint32_t(I * 5 + 1);
  }
  auto At = [&](uint32_t I) -> uint32_t & {
    return I < Window / 4 ? Data[I]
                          : High[I - ((uint64_t(1) << 32) - Window / 4)];
  };
  std::vector<uint32_t> Want(Width * Height);
  for (uint32_t Row = 0; Row < Height; ++Row)
    for (uint32_t Col = 0; Col < Width; ++Col)
      Want[Row * Width + Col] = At(Index(Row, Col)) + 1;
  auto P = finalizeText(Source, 0, fixedShape(X, true, Y));
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  struct {
    uint32_t *Data;
    uint32_t Off;
  } Args{Data, Off};
  runKernel(*P, "&wrapped", grid2D(Width, Height, X, Y), &Args);
  for (uint32_t Row = 0; Row < Height; ++Row)
    for (uint32_t Col = 0; Col < Width; ++Col)
      EXPECT_EQ(At(Index(Row, Col)), Want[Row * Width + Col])
          << "row " << Row << ", column " << Col;
  if (vectorizing() && X * Y <= widestGroup()) {
    const std::string Report =
        dumpFinalization(Source, 0, fixedShape(X, true, Y)).Report;
    EXPECT_NE(Report.find(Lockstep), std::string::npos) << Report;
    EXPECT_NE(Report.find("(2 checked)"), std::string::npos) << Report;
  }
  munmap(Region, Span);
}

// Row 0 wraps after 3 lanes; so does every row past it by the width.
TEST(LockstepGroupsTest, RowsWhoseIndexWrapsRunLaneByLane) {
  runWrappedRows(0u - 3u);
}

TEST(LockstepGroupsTest, RowsNotLinearInTheYIdWrappingRunLaneByLane) {
  runWrappedRows(0u - 3u, /*Square=*/true);
}

// No row wraps within itself, but the index wraps from a group's first row
// to its second: each row's vector access would be right, but not rows
// addressed from the first row's index plus the row delta, which go on
// past 2^32 (into the unmapped 16 GiB). The group runs lane by lane.
TEST(LockstepGroupsTest, IndicesWrappingBetweenRowsKeepHsailsIndices) {
  const uint32_t X = vectorOrFour();
  runWrappedRows(0u - 2 * X); // Minus the width: rows 1 on are past 2^32.
}

// A group's rows checked as a whole, not row by row: with 16 rows, a
// wrap check per row and access was 16 chains of scalar arithmetic
// (a third of the tiled sgemm's finalization). The lane-by-lane path is a
// call of the finalizer's helper, not a loop per access.
TEST(LockstepGroupsTest, RowsLinearInTheYIdAreCheckedOnce) {
  if (!vectorizing())
    GTEST_SKIP() << "lockstep groups are vectorized";
  const uint32_t X = openhsa::finalizer::hostVectorWidth(), Y = 16;
  if (X * Y > widestGroup())
    GTEST_SKIP() << "16 rows of " << X << " lanes are too wide";
  const DumpedFinalization D =
      dumpFinalization(WrappedRows, 0, fixedShape(X, true, Y));
  EXPECT_NE(D.Report.find(Lockstep), std::string::npos) << D.Report;
  size_t Compares = 0, Calls = 0;
  for (size_t At = D.Lowered.find("icmp "); At != std::string::npos;
       At = D.Lowered.find("icmp ", At + 1))
    ++Compares;
  for (size_t At = D.Lowered.find("call void @__openhsa_lane_rows(");
       At != std::string::npos;
       At = D.Lowered.find("call void @__openhsa_lane_rows(", At + 1))
    ++Calls;
  EXPECT_LT(Compares, Y) << D.Lowered;
  EXPECT_EQ(Calls, 2u) << D.Lowered; // The load and the store.
}

// Rows whose index goes down as the Y id goes up (a negative row delta)
// and rows at Y id squared (no delta: not linear in the row), across a
// barrier: out[y * y * width + x] = 2 * in[(height - 1 - y) * width + x].
const char *FlippedRows = R"(module &flip_module:1:0:$full:$large:$default;
prog kernel &flipped(kernarg_u64 %in, kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	workitemabsid_u32	$s1, 1;
	gridsize_u32	$s2, 0;
	gridsize_u32	$s3, 1;
	sub_u32	$s4, $s3, 1;
	sub_u32	$s4, $s4, $s1;
	mad_u32	$s5, $s4, $s2, $s0;
	cvt_u64_u32	$d0, $s5;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_u64	$d1, [%in];
	add_u64	$d1, $d1, $d0;
	ld_global_u32	$s6, [$d1];
	barrier;
	add_u32	$s6, $s6, $s6;
	mul_u32	$s7, $s1, $s1;
	mad_u32	$s7, $s7, $s2, $s0;
	cvt_u64_u32	$d2, $s7;
	shl_u64	$d2, $d2, 2;
	ld_kernarg_u64	$d3, [%out];
	add_u64	$d3, $d3, $d2;
	st_global_u32	$s6, [$d3];
	ret;
};
)";

TEST(LockstepGroupsTest, RowsGoingDownOrNotLinearInTheYIdRunInVectors) {
  const uint32_t X = vectorOrFour();
  for (uint32_t Y : {2u, 4u, 8u}) {
    SCOPED_TRACE("rows " + std::to_string(Y));
    const uint32_t Width = 2 * X, Height = 2 * Y;
    std::vector<uint32_t> In(Width * Height), Out(Width * Height * Height);
    for (uint32_t I = 0; I < In.size(); ++I)
      In[I] = I * 7 + 1;
    std::vector<uint32_t> Want(Out.size());
    for (uint32_t Row = 0; Row < Height; ++Row)
      for (uint32_t Col = 0; Col < Width; ++Col)
        Want[Row * Row * Width + Col] =
            2 * In[(Height - 1 - Row) * Width + Col];
    auto P = finalizeText(FlippedRows, 0, fixedShape(X, true, Y));
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    struct {
      uint32_t *In, *Out;
    } Args{In.data(), Out.data()};
    runKernel(*P, "&flipped", grid2D(Width, Height, X, Y), &Args);
    EXPECT_EQ(Out, Want);
    if (vectorizing() && X * Y <= widestGroup()) {
      const std::string Report =
          dumpFinalization(FlippedRows, 0, fixedShape(X, true, Y)).Report;
      EXPECT_NE(Report.find(Lockstep), std::string::npos) << Report;
      EXPECT_NE(Report.find("2 consecutive (2 checked)"), std::string::npos)
          << Report;
    }
  }
}

// An index that is a phi: 0 on the first pass of a loop, y * n (n loaded
// in the loop, after the access) on the second. Whether it is linear in
// the row is asked of each incoming value where that value is available:
// asked at the access, the product's factor n did not dominate it: the
// vectorized body was invalid IR, and the kernel ran without its lockstep
// group. out[y * n + x] = in[x] + in[y * n + x].
const char *LoopIndex = R"(module &loop_module:1:0:$full:$large:$default;
prog kernel &loopindex(kernarg_u64 %in, kernarg_u64 %out, kernarg_u32 %n)
{
	workitemabsid_u32	$s0, 0;
	workitemabsid_u32	$s1, 1;
	ld_kernarg_u64	$d1, [%in];
	mov_b32	$s10, 0;
	mov_b32	$s8, 0;
	mov_b32	$s9, 0;
@loop:
	add_u32	$s3, $s10, $s0;
	cvt_u64_u32	$d0, $s3;
	shl_u64	$d0, $d0, 2;
	add_u64	$d2, $d1, $d0;
	ld_global_u32	$s5, [$d2];
	add_u32	$s8, $s8, $s5;
	ld_kernarg_u32	$s4, [%n];
	mul_u32	$s10, $s1, $s4;
	add_u32	$s9, $s9, 1;
	cmp_lt_b1_u32	$c0, $s9, 2;
	cbr_b1	$c0, @loop;
	barrier;
	ld_kernarg_u32	$s4, [%n];
	mad_u32	$s6, $s1, $s4, $s0;
	cvt_u64_u32	$d3, $s6;
	shl_u64	$d3, $d3, 2;
	ld_kernarg_u64	$d4, [%out];
	add_u64	$d4, $d4, $d3;
	st_global_u32	$s8, [$d4];
	ret;
};
)";

TEST(LockstepGroupsTest, IndexPhisSetInTheLoopFinalize) {
  const uint32_t X = vectorOrFour();
  const uint32_t Y = 4, Width = 2 * X, Height = 2 * Y;
  std::vector<uint32_t> In(Width * Height), Out(Width * Height, 0);
  for (uint32_t I = 0; I < In.size(); ++I)
    In[I] = I * 3 + 1;
  std::vector<uint32_t> Want(Out.size());
  for (uint32_t Row = 0; Row < Height; ++Row)
    for (uint32_t Col = 0; Col < Width; ++Col)
      Want[Row * Width + Col] = In[Col] + In[Row * Width + Col];
  auto P = finalizeText(LoopIndex, 0, fixedShape(X, true, Y));
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  struct {
    uint32_t *In, *Out;
    uint32_t N;
  } Args{In.data(), Out.data(), Width};
  runKernel(*P, "&loopindex", grid2D(Width, Height, X, Y), &Args);
  EXPECT_EQ(Out, Want);
  expectLockstep(LoopIndex, X, Y);
}

TEST(LockstepGroupsTest, OnlyFixedWholeGroupsOfWholeVectorRowsRunInLockstep) {
  if (!vectorizing())
    GTEST_SKIP() << "lockstep groups are vectorized";
  const std::string Reduce = benchmarkKernel("reduction.hsail");
  ASSERT_FALSE(Reduce.empty());
  const uint32_t Group = widestGroup();
  auto ReportFor = [&](const ControlDirectives &D) {
    return dumpFinalization(Reduce.c_str(), 0, D).Report;
  };
  EXPECT_EQ(ReportFor({}).find(Lockstep), std::string::npos);
  // Partial groups are possible.
  EXPECT_EQ(ReportFor(fixedShape(Group, false)).find(Lockstep),
            std::string::npos);
  // Two dimensions: rows of whole vectors run in lockstep, narrower rows
  // do not.
  EXPECT_NE(ReportFor(fixedShape(Group / 2, true, 2)).find(Lockstep),
            std::string::npos);
  const uint32_t W = openhsa::finalizer::hostVectorWidth();
  EXPECT_EQ(ReportFor(fixedShape(W / 2, true, 4)).find(Lockstep),
            std::string::npos);
  // Wider than the vector registers hold.
  EXPECT_EQ(ReportFor(fixedShape(2 * Group, true)).find(Lockstep),
            std::string::npos);
  // A width the caller fixes.
  EXPECT_EQ(dumpFinalization(Reduce.c_str(),
                             openhsa::finalizer::hostVectorWidth(),
                             fixedShape(Group, true))
                .Report.find(Lockstep),
            std::string::npos);
  // Turned off.
  ASSERT_EQ(setenv("OPENHSA_LOCKSTEP_GROUPS", "0", 1), 0);
  const std::string Off = ReportFor(fixedShape(Group, true));
  ASSERT_EQ(unsetenv("OPENHSA_LOCKSTEP_GROUPS"), 0);
  EXPECT_EQ(Off.find(Lockstep), std::string::npos) << Off;
  EXPECT_NE(ReportFor(fixedShape(Group, true)).find(Lockstep),
            std::string::npos);
}

// An inclusive scan (Hillis and Steele): per step, each work-item adds the
// value `offset` below it, read before a barrier and added after another;
// the offset doubles up to the group's size. Its exchanges go downwards,
// at offsets that are not multiples of the vector width.
const char *Scan = R"(module &scan_module:1:0:$full:$large:$default;
prog kernel &scan(kernarg_u64 %data)
{
	group_u32 %s[256];
	workitemid_u32	$s0, 0;
	workitemabsid_u32	$s1, 0;
	cvt_u64_u32	$d0, $s1;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%data];
	add_u64	$d1, $d1, $d0;
	ld_global_u32	$s2, [$d1];
	shl_u32	$s3, $s0, 2;
	st_group_u32	$s2, [%s][$s3];
	barrier;
	mov_b32	$s4, 1;
	workgroupsize_u32	$s5, 0;
@step:
	cmp_ge_b1_u32	$c0, $s4, $s5;
	cbr_b1	$c0, @done;
	mov_b32	$s6, 0;
	cmp_lt_b1_u32	$c1, $s0, $s4;
	cbr_b1	$c1, @read;
	sub_u32	$s7, $s0, $s4;
	shl_u32	$s7, $s7, 2;
	ld_group_u32	$s6, [%s][$s7];
@read:
	barrier;
	ld_group_u32	$s8, [%s][$s3];
	add_u32	$s8, $s8, $s6;
	st_group_u32	$s8, [%s][$s3];
	barrier;
	shl_u32	$s4, $s4, 1;
	br	@step;
@done:
	ld_group_u32	$s2, [%s][$s3];
	st_global_u32	$s2, [$d1];
	ret;
};
)";

void checkScan(const FinalizedProgram &P, uint32_t Group, uint32_t Groups) {
  std::vector<uint32_t> Data(size_t(Group) * Groups), Want(Data.size());
  for (size_t I = 0; I < Data.size(); ++I)
    Data[I] = uint32_t(I * 2654435761u >> 20);
  for (size_t I = 0; I < Data.size(); ++I)
    Want[I] = (I % Group ? Want[I - 1] : 0) + Data[I];
  uint32_t *Ptr = Data.data();
  Grid G;
  G.Size[0] = Group * Groups;
  G.WorkGroup[0] = Group;
  runKernel(P, "&scan", G, &Ptr);
  EXPECT_EQ(Data, Want) << "groups of " << Group;
}

TEST(LockstepGroupsTest, AScanWithTwoBarriersPerStep) {
  const unsigned W = openhsa::finalizer::hostVectorWidth();
  for (uint32_t Group : {W, 4 * W, widestGroup()}) {
    auto P = finalizeText(Scan, 0, fixedShape(Group, true));
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    checkScan(*P, Group, 9);
    if (vectorizing()) {
      const DumpedFinalization D =
          dumpFinalization(Scan, 0, fixedShape(Group, true));
      EXPECT_NE(D.Report.find(Lockstep), std::string::npos) << D.Report;
      // The reads `offset` below, gathers (lanes below it would wrap), take
      // their lanes from the stores before them.
      EXPECT_EQ(D.Ir.find("gather"), std::string::npos) << D.Ir;
    }
  }
  auto Generic = finalizeText(Scan);
  ASSERT_TRUE(bool(Generic)) << llvm::toString(Generic.takeError());
  checkScan(*Generic, 64, 9);
}

// A barrier loop whose trip count is a kernel argument: unrolled it cannot
// be, so the group runs region by region; and group atomics, a reversed
// exchange (each work-item reads the value of the one mirrored in the
// group) and a branch only some work-items take, around barriers.
const char *Rounds = R"(module &rounds_module:1:0:$full:$large:$default;
prog kernel &rounds(kernarg_u64 %data, kernarg_u32 %rounds)
{
	group_u32 %s[256];
	group_u32 %odd;
	workitemid_u32	$s0, 0;
	workitemabsid_u32	$s1, 0;
	workgroupsize_u32	$s9, 0;
	cvt_u64_u32	$d0, $s1;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%data];
	add_u64	$d1, $d1, $d0;
	ld_global_u32	$s2, [$d1];
	shl_u32	$s3, $s0, 2;
	sub_u32	$s4, $s9, 1;
	sub_u32	$s4, $s4, $s0;
	shl_u32	$s4, $s4, 2;
	ld_kernarg_align(4)_width(all)_u32	$s5, [%rounds];
	cmp_ne_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @zeroed;
	st_group_u32	0, [%odd];
@zeroed:
	barrier;
@round:
	cmp_eq_b1_u32	$c0, $s5, 0;
	cbr_b1	$c0, @done;
	st_group_u32	$s2, [%s][$s3];
	and_b32	$s6, $s2, 1;
	cmp_eq_b1_u32	$c1, $s6, 0;
	cbr_b1	$c1, @even;
	atomicnoret_add_group_rlx_wg_u32	[%odd], 1;
@even:
	barrier;
	ld_group_u32	$s7, [%s][$s4];
	add_u32	$s2, $s2, $s7;
	barrier;
	sub_u32	$s5, $s5, 1;
	br	@round;
@done:
	ld_group_u32	$s8, [%odd];
	add_u32	$s2, $s2, $s8;
	st_global_u32	$s2, [$d1];
	ret;
};
)";

void checkRounds(const FinalizedProgram &P, uint32_t Group, uint32_t Rounds,
                 bool CountsOdd = true) {
  constexpr uint32_t Groups = 5;
  std::vector<uint32_t> Data(size_t(Group) * Groups), Want(Data.size());
  for (size_t I = 0; I < Data.size(); ++I)
    Data[I] = uint32_t(I * 40503u % 1000u);
  for (uint32_t G = 0; G < Groups; ++G) {
    std::vector<uint32_t> V(Data.begin() + G * Group,
                            Data.begin() + (G + 1) * Group);
    uint32_t Odd = 0;
    for (uint32_t R = 0; R < Rounds; ++R) {
      std::vector<uint32_t> Next(Group);
      for (uint32_t L = 0; L < Group; ++L) {
        Odd += CountsOdd ? V[L] & 1 : 0;
        Next[L] = V[L] + V[Group - 1 - L];
      }
      V = Next;
    }
    for (uint32_t L = 0; L < Group; ++L)
      Want[G * Group + L] = V[L] + Odd;
  }
  struct {
    uint32_t *Data;
    uint32_t Rounds;
  } Args{Data.data(), Rounds};
  Grid G;
  G.Size[0] = Group * Groups;
  G.WorkGroup[0] = Group;
  runKernel(P, "&rounds", G, &Args);
  EXPECT_EQ(Data, Want) << "groups of " << Group << ", " << Rounds << " rounds";
}

TEST(LockstepGroupsTest, ABarrierLoopOfUnknownLengthRunsRegionByRegion) {
  const uint32_t Group = 4 * openhsa::finalizer::hostVectorWidth();
  auto P = finalizeText(Rounds, 0, fixedShape(Group, true));
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  for (uint32_t R : {0u, 1u, 3u})
    checkRounds(*P, Group, R);
  if (vectorizing()) {
    const DumpedFinalization D =
        dumpFinalization(Rounds, 0, fixedShape(Group, true));
    EXPECT_EQ(D.Report.find(Lockstep), std::string::npos) << D.Report;
    EXPECT_NE(D.Report.find("group shape fixed"), std::string::npos)
        << D.Report;
  }
  // In one program with the scan, which still runs in lockstep.
  const std::string ScanText = Scan;
  const std::string Both =
      std::string(Rounds) + ScanText.substr(ScanText.find("prog kernel"));
  auto P2 = finalizeText(Both, 0, fixedShape(Group, true));
  ASSERT_TRUE(bool(P2)) << llvm::toString(P2.takeError());
  checkRounds(*P2, Group, 3);
  checkScan(*P2, Group, 4);
  if (vectorizing()) {
    const std::string Report =
        dumpFinalization(Both.c_str(), 0, fixedShape(Group, true)).Report;
    const size_t Rounds = Report.find("&rounds:"), Scan = Report.find("&scan:");
    ASSERT_NE(Rounds, std::string::npos) << Report;
    ASSERT_NE(Scan, std::string::npos) << Report;
    const std::string RoundsLine =
        Report.substr(Rounds, Report.find('\n', Rounds) - Rounds);
    const std::string ScanLine =
        Report.substr(Scan, Report.find('\n', Scan) - Scan);
    EXPECT_EQ(RoundsLine.find(Lockstep), std::string::npos) << Report;
    EXPECT_NE(ScanLine.find(Lockstep), std::string::npos) << Report;
  }
}

TEST(LockstepGroupsTest, AMirroredExchangeInLockstepAndAtomicsByRegion) {
  // The same kernel with its rounds fixed: a constant trip count.
  std::string Fixed = Rounds;
  const std::string Load = "\tld_kernarg_align(4)_width(all)_u32\t$s5, "
                           "[%rounds];\n";
  const size_t At = Fixed.find(Load);
  ASSERT_NE(At, std::string::npos);
  Fixed.replace(At, Load.size(), "\tmov_b32\t$s5, 3;\n");
  // Without the group atomic: the group in lockstep.
  std::string NoAtomic = Fixed;
  const std::string Atomic = "\tatomicnoret_add_group_rlx_wg_u32\t[%odd], 1;\n";
  const size_t AtomicAt = NoAtomic.find(Atomic);
  ASSERT_NE(AtomicAt, std::string::npos);
  NoAtomic.erase(AtomicAt, Atomic.size());
  const unsigned W = openhsa::finalizer::hostVectorWidth();
  const uint32_t Group = 4 * W;
  for (bool WithAtomic : {false, true}) {
    const std::string &Text = WithAtomic ? Fixed : NoAtomic;
    auto P = finalizeText(Text, 0, fixedShape(Group, true));
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    checkRounds(*P, Group, 3, WithAtomic);
    if (vectorizing()) {
      const DumpedFinalization D =
          dumpFinalization(Text.c_str(), 0, fixedShape(Group, true));
      // An atomic runs lane by lane: in a lockstep group, once per
      // work-item of the group, so the group runs region by region.
      EXPECT_EQ(D.Report.find(Lockstep) == std::string::npos, WithAtomic)
          << D.Report;
    }
  }
  // In groups of one vector, lockstep copies nothing more than a wave.
  auto P = finalizeText(Fixed, 0, fixedShape(W, true));
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  checkRounds(*P, W, 3);
  if (vectorizing()) {
    EXPECT_NE(dumpFinalization(Fixed.c_str(), 0, fixedShape(W, true))
                  .Report.find(Lockstep),
              std::string::npos);
  }
}

// Nested barrier loops (2 x 3 iterations), a permutation through group
// memory (work-item l reads the value of (7 l + i) mod the group's size),
// a branch that half the work-items take, and a private array live across
// barriers.
const char *Mix = R"(module &mix_module:1:0:$full:$large:$default;
prog kernel &mix(kernarg_u64 %in, kernarg_u64 %out)
{
	group_u32 %s[256];
	private_u32 %priv[3];
	workitemid_u32	$s0, 0;
	workitemabsid_u32	$s1, 0;
	workgroupsize_u32	$s9, 0;
	cvt_u64_u32	$d0, $s1;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%in];
	add_u64	$d1, $d1, $d0;
	ld_global_u32	$s2, [$d1];
	shl_u32	$s3, $s0, 2;
	mov_b32	$s10, 0;
@outer:
	cmp_ge_b1_u32	$c0, $s10, 2;
	cbr_b1	$c0, @done;
	mov_b32	$s11, 0;
@inner:
	cmp_ge_b1_u32	$c1, $s11, 3;
	cbr_b1	$c1, @inner_done;
	st_group_u32	$s2, [%s][$s3];
	barrier;
	mul_u32	$s4, $s0, 7;
	add_u32	$s4, $s4, $s11;
	sub_u32	$s5, $s9, 1;
	and_b32	$s4, $s4, $s5;
	shl_u32	$s4, $s4, 2;
	ld_group_u32	$s6, [%s][$s4];
	and_b32	$s7, $s0, 1;
	cmp_eq_b1_u32	$c2, $s7, 0;
	cbr_b1	$c2, @even;
	add_u32	$s2, $s2, $s6;
	br	@joined;
@even:
	xor_b32	$s2, $s2, $s6;
@joined:
	shl_u32	$s8, $s11, 2;
	st_private_u32	$s2, [%priv][$s8];
	barrier;
	add_u32	$s11, $s11, 1;
	br	@inner;
@inner_done:
	ld_private_u32	$s12, [%priv];
	ld_private_u32	$s13, [%priv][8];
	add_u32	$s2, $s2, $s12;
	add_u32	$s2, $s2, $s13;
	add_u32	$s10, $s10, 1;
	br	@outer;
@done:
	ld_kernarg_align(8)_width(all)_u64	$d2, [%out];
	add_u64	$d2, $d2, $d0;
	st_global_u32	$s2, [$d2];
	ret;
};
)";

TEST(LockstepGroupsTest, NestedBarrierLoopsAPermutationAndPrivateArrays) {
  const unsigned W = openhsa::finalizer::hostVectorWidth();
  constexpr uint32_t Groups = 7;
  for (uint32_t Group : {W, 4 * W, widestGroup()}) {
    const uint32_t N = Group * Groups;
    std::vector<uint32_t> In(N), Out(N, 0), Want(N);
    for (uint32_t I = 0; I < N; ++I)
      In[I] = I * 2654435761u >> 7;
    for (uint32_t G = 0; G < Groups; ++G) {
      std::vector<uint32_t> V(In.begin() + G * Group,
                              In.begin() + (G + 1) * Group);
      std::vector<uint32_t> Priv(size_t(Group) * 3);
      for (int O = 0; O < 2; ++O) {
        for (uint32_t I = 0; I < 3; ++I) {
          const std::vector<uint32_t> S = V;
          for (uint32_t L = 0; L < Group; ++L) {
            const uint32_t X = S[(L * 7 + I) & (Group - 1)];
            V[L] = L & 1 ? V[L] + X : V[L] ^ X;
            Priv[L * 3 + I] = V[L];
          }
        }
        for (uint32_t L = 0; L < Group; ++L)
          V[L] += Priv[L * 3] + Priv[L * 3 + 2];
      }
      std::copy(V.begin(), V.end(), Want.begin() + G * Group);
    }
    auto P = finalizeText(Mix, 0, fixedShape(Group, true));
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    struct {
      const uint32_t *In;
      uint32_t *Out;
    } Args{In.data(), Out.data()};
    Grid G;
    G.Size[0] = N;
    G.WorkGroup[0] = Group;
    runKernel(*P, "&mix", G, &Args);
    EXPECT_EQ(Out, Want) << "groups of " << Group;
    if (vectorizing()) {
      const DumpedFinalization D =
          dumpFinalization(Mix, 0, fixedShape(Group, true));
      EXPECT_NE(D.Report.find(Lockstep), std::string::npos) << D.Report;
    }
  }
}

} // namespace
