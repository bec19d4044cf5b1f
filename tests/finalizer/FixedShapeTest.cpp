//===- tests/finalizer/FixedShapeTest.cpp - Shapes directives fix ---------===//
//
// A kernel finalized with requiredworkgroupsize (the kernel's own control
// directive or one given to the finalizer) is compiled for that group
// shape alone (finalizer/FixedGroupShape.h): its shape queries are
// constants, and with requirenopartialworkgroups its work-group function
// has no code for partial groups or partial waves. These tests check that
// such kernels compute what the generic code computes, in whole and in
// partial groups, and that the code for shapes that cannot occur is gone.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

#include "finalizer/WorkItemVectorizer.h"

#include <algorithm>
#include <vector>

using namespace openhsa::test;
using openhsa::finalizer::ControlDirectives;

namespace {

/// Directives as hsa_ext_program_finalize passes them: requiredworkgroupsize
/// (X, 1, 1), and requirenopartialworkgroups if Whole.
ControlDirectives fixedShape(uint32_t X, bool Whole) {
  ControlDirectives D;
  D.ControlDirectivesMask = uint64_t(1)
                            << 8; // BRIG_CONTROL_REQUIREDWORKGROUPSIZE
  D.RequiredWorkgroupSize[0] = X;
  D.RequiredWorkgroupSize[1] = D.RequiredWorkgroupSize[2] = 1;
  if (Whole) // BRIG_CONTROL_REQUIRENOPARTIALWORKGROUPS
    D.ControlDirectivesMask |= uint64_t(1) << 9;
  return D;
}

/// Source with Directives inserted at the start of its kernel's body.
std::string withKernelDirectives(const std::string &Source,
                                 const char *Directives) {
  std::string S = Source;
  const size_t Body = S.find("{\n");
  S.insert(Body + 2, Directives);
  return S;
}

// The benchmarks' tree reduction (benchmarks/kernels/reduction.hsail): a
// barrier in a halving loop whose stride starts at workgroupsize / 2.
std::string reduceSource() { return benchmarkKernel("reduction.hsail"); }

TEST(FixedShapeTest, ReductionInAFixedShapeSumsAsTheGenericCode) {
  constexpr uint32_t Group = 64, Groups = 37, N = Group * Groups;
  // Multiples of 1/4 below 4: every partial sum is exact in float.
  std::vector<float> In(N);
  for (uint32_t I = 0; I < N; ++I)
    In[I] = float((I * 7u) % 16u) * 0.25f;
  std::vector<float> Want(Groups, 0.0f);
  for (uint32_t I = 0; I < N; ++I)
    Want[I / Group] += In[I];

  const std::string Reduce = reduceSource();
  ASSERT_FALSE(Reduce.empty());
  auto Generic = finalizeText(Reduce);
  ASSERT_TRUE(bool(Generic)) << llvm::toString(Generic.takeError());
  EXPECT_EQ(runReduction(*Generic, In, Group), Want);
  // The shape given to the finalizer, and the kernel's own directives.
  auto Given = finalizeText(Reduce, 0, fixedShape(Group, true));
  ASSERT_TRUE(bool(Given)) << llvm::toString(Given.takeError());
  EXPECT_EQ(runReduction(*Given, In, Group), Want);
  auto Own = finalizeText(withKernelDirectives(
      Reduce,
      "\trequiredworkgroupsize 64, 1, 1;\n\trequirenopartialworkgroups;\n"));
  ASSERT_TRUE(bool(Own)) << llvm::toString(Own.takeError());
  EXPECT_EQ(runReduction(*Own, In, Group), Want);
}

TEST(FixedShapeTest, AWholeFixedShapeLeavesNoCodeForPartialWaves) {
  if (runsOnGpu())
    GTEST_SKIP() << "the CPU's work-group functions";
  const unsigned W = openhsa::finalizer::hostVectorWidth();
  if (W == 1 || 64 % W != 0)
    GTEST_SKIP() << "groups of 64 are not whole waves of " << W;
  // Generic code runs groups whose rows are not whole waves (narrower
  // than the shape at the grid's edge, or a shape that is not whole waves)
  // through the masked body, out of line.
  const std::string MaskedCall = ".simd" + std::to_string(W) + "(";
  const std::string Reduce = reduceSource();
  ASSERT_FALSE(Reduce.empty());
  const DumpedFinalization Generic = dumpFinalization(Reduce.c_str(), W);
  ASSERT_FALSE(Generic.Ir.empty());
  EXPECT_NE(Generic.Ir.find(MaskedCall), std::string::npos)
      << "the generic code has no masked body:\n"
      << Generic.Ir;
  EXPECT_EQ(Generic.Report.find("group shape fixed"), std::string::npos)
      << Generic.Report;
  // Fixed at 64x1x1 with whole groups: every row is whole waves.
  const DumpedFinalization Fixed =
      dumpFinalization(Reduce.c_str(), W, fixedShape(64, true));
  ASSERT_FALSE(Fixed.Ir.empty());
  EXPECT_EQ(Fixed.Ir.find(MaskedCall), std::string::npos)
      << "the masked body is still called:\n"
      << Fixed.Ir;
  EXPECT_EQ(Fixed.Ir.find("wave.mask"), std::string::npos)
      << "a masked wave is left:\n"
      << Fixed.Ir;
  EXPECT_NE(Fixed.Report.find("group shape fixed: 64x1x1, whole groups"),
            std::string::npos)
      << Fixed.Report;
}

// A kernel without barriers runs its rows in waves: whole ones, then the
// partial one at the row's end, each a copy of the body. A shape fixed at
// whole waves has no partial wave, also in the slices of a group the agent
// runs apart (their ends are whole waves, abi/CpuDispatchContext.h): the
// work-group function is built without that copy, which LLVM would
// otherwise optimize before finding it dead.
TEST(FixedShapeTest, WholeWavesOfAFixedShapeHaveNoPartialWaveCopy) {
  if (runsOnGpu())
    GTEST_SKIP() << "the CPU's work-group functions";
  const unsigned W = openhsa::finalizer::hostVectorWidth();
  if (W == 1 || 64 % W != 0)
    GTEST_SKIP() << "groups of 64 are not whole waves of " << W;
  const char *Scale = R"(module &scaling:1:0:$full:$large:$default;
prog kernel &scale(kernarg_u64 %data)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%data];
	add_u64	$d1, $d1, $d0;
	ld_global_f32	$s1, [$d1];
	mul_f32	$s1, $s1, 3.0f;
	st_global_f32	$s1, [$d1];
	ret;
};
)";
  const DumpedFinalization Generic = dumpFinalization(Scale, W);
  EXPECT_NE(Generic.Lowered.find("wave.tail"), std::string::npos)
      << Generic.Lowered;
  const DumpedFinalization Fixed =
      dumpFinalization(Scale, W, fixedShape(64, true));
  ASSERT_FALSE(Fixed.Lowered.empty());
  EXPECT_EQ(Fixed.Lowered.find("wave.tail"), std::string::npos)
      << Fixed.Lowered;
  // Partial groups: their rows may end in a partial wave.
  const DumpedFinalization Partial =
      dumpFinalization(Scale, W, fixedShape(64, false));
  EXPECT_NE(Partial.Lowered.find("wave.tail"), std::string::npos)
      << Partial.Lowered;
}

// Shape queries and a barrier in every work-item: out[4 * id] is
// workgroupsize, currentworkgroupsize, gridsize and the absolute id of the
// next work-item of the group (through group memory, past a barrier).
const char *Shape = R"(module &fixed_shape:1:0:$full:$large:$default;
prog kernel &shape(kernarg_u64 %out)
{
	group_u32 %ids[256];
	workitemabsid_u32	$s0, 0;
	workitemid_u32	$s1, 0;
	currentworkgroupsize_u32	$s2, 0;
	shl_u32	$s3, $s1, 2;
	st_group_u32	$s0, [%ids][$s3];
	barrier;
	add_u32	$s3, $s1, 1;
	rem_u32	$s3, $s3, $s2;
	shl_u32	$s3, $s3, 2;
	ld_group_u32	$s4, [%ids][$s3];
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 4;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	workgroupsize_u32	$s5, 0;
	st_global_u32	$s5, [$d1];
	st_global_u32	$s2, [$d1+4];
	gridsize_u32	$s6, 0;
	st_global_u32	$s6, [$d1+8];
	st_global_u32	$s4, [$d1+12];
	ret;
};
)";

/// Runs &shape over a grid of N in groups of Group and checks each
/// work-item's four values.
void checkShape(const FinalizedProgram &P, uint32_t N, uint32_t Group) {
  std::vector<uint32_t> Out(size_t(N) * 4, ~0u);
  uint32_t *OutPtr = Out.data();
  Grid G;
  G.Size[0] = N;
  G.WorkGroup[0] = Group;
  runKernel(P, "&shape", G, &OutPtr);
  for (uint32_t I = 0; I < N; ++I) {
    const uint32_t First = I / Group * Group;
    const uint32_t Current = std::min(Group, N - First);
    const uint32_t Next = First + (I - First + 1) % Current;
    ASSERT_EQ(Out[4 * I], Group) << "work-item " << I;
    ASSERT_EQ(Out[4 * I + 1], Current) << "work-item " << I;
    ASSERT_EQ(Out[4 * I + 2], N) << "work-item " << I;
    ASSERT_EQ(Out[4 * I + 3], Next) << "work-item " << I;
  }
}

TEST(FixedShapeTest, PartialGroupsOfAFixedShapeRun) {
  // Groups of 64 with a partial one of 19 at the grid's end: the shape is
  // fixed, the last group's current size is not.
  constexpr uint32_t Group = 64, N = Group * 3 + 19;
  auto Generic = finalizeText(Shape);
  ASSERT_TRUE(bool(Generic)) << llvm::toString(Generic.takeError());
  checkShape(*Generic, N, Group);
  auto Given = finalizeText(Shape, 0, fixedShape(Group, false));
  ASSERT_TRUE(bool(Given)) << llvm::toString(Given.takeError());
  checkShape(*Given, N, Group);
  // The grid fixed too: gridsize is a constant as well.
  ControlDirectives D = fixedShape(Group, false);
  D.ControlDirectivesMask |= uint64_t(1) << 7; // BRIG_CONTROL_REQUIREDGRIDSIZE
  D.RequiredGridSize[0] = N;
  D.RequiredGridSize[1] = D.RequiredGridSize[2] = 1;
  auto GridToo = finalizeText(Shape, 0, D);
  ASSERT_TRUE(bool(GridToo)) << llvm::toString(GridToo.takeError());
  checkShape(*GridToo, N, Group);
}

TEST(FixedShapeTest, WholeGroupsOfAFixedShapeRun) {
  constexpr uint32_t Group = 64, N = Group * 5;
  auto Given = finalizeText(Shape, 0, fixedShape(Group, true));
  ASSERT_TRUE(bool(Given)) << llvm::toString(Given.takeError());
  checkShape(*Given, N, Group);
  // A required grid that the group divides: whole groups without
  // requirenopartialworkgroups.
  auto Own = finalizeText(withKernelDirectives(
      Shape,
      "\trequiredworkgroupsize 64, 1, 1;\n\trequiredgridsize 320, 1, 1;\n"));
  ASSERT_TRUE(bool(Own)) << llvm::toString(Own.takeError());
  checkShape(*Own, N, Group);
}

} // namespace
