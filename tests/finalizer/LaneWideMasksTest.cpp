//===- tests/finalizer/LaneWideMasksTest.cpp - Masks in 32-bit lanes ------===//
//
// finalizer/LaneWideMasks.h: on targets without mask registers, a wave's
// masks are combined, carried through phis and tested in lanes of 32 bits.
// On IR written for it: what the pass leaves has no logic on vectors of i1
// and tests any lane by a reduction of i32 lanes. On a kernel with a
// divergent escape loop: where the CPU target has AVX and no AVX-512
// (finalizer.avx2.*), the code packs no masks into bytes; everywhere, the
// results are a scalar loop's.
//
//===----------------------------------------------------------------------===//
#include "IrText.h"
#include "KernelRunner.h"

#include "abi/CpuTarget.h"
#include "finalizer/LaneWideMasks.h"

#include "llvm/IR/Function.h"

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace openhsa::test;

namespace {

// A wave's escape loop as the vectorizer leaves it: the active lanes a
// phi, less those that escaped; a blend of the iterate; the any-lane test
// in InstCombine's form (the mask's bits as an integer, compared with 0).
const char *EscapeLoop = R"(
define void @f(ptr %out, <16 x float> %c) {
entry:
  br label %loop
loop:
  %z = phi <16 x float> [ zeroinitializer, %entry ], [ %z.next, %loop ]
  %active = phi <16 x i1> [ <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>, %entry ], [ %still, %loop ]
  %zz = fmul <16 x float> %z, %z
  %out.of.range = fcmp ogt <16 x float> %zz, <float 4.0, float 4.0, float 4.0, float 4.0, float 4.0, float 4.0, float 4.0, float 4.0, float 4.0, float 4.0, float 4.0, float 4.0, float 4.0, float 4.0, float 4.0, float 4.0>
  %in.range = xor <16 x i1> %out.of.range, <i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true, i1 true>
  %still = and <16 x i1> %active, %in.range
  %next = fadd <16 x float> %zz, %c
  %z.next = select <16 x i1> %still, <16 x float> %next, <16 x float> %z
  %bits = bitcast <16 x i1> %still to i16
  %any = icmp ne i16 %bits, 0
  br i1 %any, label %loop, label %exit
exit:
  store <16 x float> %z.next, ptr %out
  ret void
}
)";

/// @f of Text after widenMasks with registers of RegisterBits bits
/// (*Redone: what it returned).
std::string widened(const std::string &Text, unsigned RegisterBits,
                    unsigned *Redone = nullptr) {
  return afterRunOnF(
      Text,
      [RegisterBits](llvm::Function &F, llvm::AAResults &) {
        return openhsa::finalizer::widenMasks(F, RegisterBits);
      },
      Redone);
}

TEST(LaneWideMasksTest, MasksAreCombinedAndTestedInLanesOf32Bits) {
  unsigned Redone = 0;
  const std::string Text = widened(EscapeLoop, 256, &Redone); // AVX2
  ASSERT_FALSE(Text.empty());
  EXPECT_EQ(Redone, 3u) << Text; // The phi, the xor and the and.
  EXPECT_EQ(occurrences(Text, "phi <16 x i1>"), 0u) << Text;
  EXPECT_EQ(occurrences(Text, "phi <16 x i32>"), 1u) << Text;
  EXPECT_EQ(occurrences(Text, "and <16 x i1>"), 0u) << Text;
  EXPECT_EQ(occurrences(Text, "xor <16 x i1>"), 0u) << Text;
  EXPECT_EQ(occurrences(Text, "and <16 x i32>"), 1u) << Text;
  // The compare's result is extended where it is made; the blend reads
  // the sign bits; the test is an or of the lanes.
  EXPECT_EQ(occurrences(Text, "sext <16 x i1> %out.of.range to <16 x i32>"), 1u)
      << Text;
  EXPECT_EQ(occurrences(Text, "icmp slt <16 x i32>"), 1u) << Text;
  EXPECT_EQ(occurrences(Text, "call i32 @llvm.vector.reduce.or.v16i32"), 1u)
      << Text;
  EXPECT_EQ(occurrences(Text, "bitcast <16 x i1>"), 0u) << Text;
}

// Masks wider than two registers of i32 lanes stay: with SSE's 128-bit
// registers the loop's 16 lanes would take four registers a mask.
TEST(LaneWideMasksTest, MasksOfMoreThanTwoRegistersStay) {
  unsigned Redone = 1;
  const std::string Text = widened(EscapeLoop, 128, &Redone); // SSE
  ASSERT_FALSE(Text.empty());
  EXPECT_EQ(Redone, 0u) << Text;
  EXPECT_EQ(occurrences(Text, "phi <16 x i1>"), 1u) << Text;
}

// A mask a call makes, and one read other than by a blend, stay masks
// where they are made and read.
TEST(LaneWideMasksTest, OtherMasksAreExtendedWhereMadeAndComparedWhereRead) {
  const std::string Text = widened(
      R"(
declare <8 x i1> @lanes()
define i8 @f(<8 x i1> %given) {
entry:
  %made = call <8 x i1> @lanes()
  br label %next
next:
  %both = and <8 x i1> %made, %given
  %bits = bitcast <8 x i1> %both to i8
  ret i8 %bits
}
)",
      256);
  ASSERT_FALSE(Text.empty());
  EXPECT_EQ(occurrences(Text, "sext <8 x i1> %made to <8 x i32>"), 1u) << Text;
  EXPECT_EQ(occurrences(Text, "sext <8 x i1> %given to <8 x i32>"), 1u) << Text;
  EXPECT_EQ(occurrences(Text, "and <8 x i32>"), 1u) << Text;
  // The ballot reads the lanes' sign bits as a mask again.
  EXPECT_EQ(occurrences(Text, "icmp slt <8 x i32>"), 1u) << Text;
  EXPECT_EQ(occurrences(Text, "bitcast <8 x i1>"), 1u) << Text;
}

// Each work-item counts the iterations of z <- z^2 + c until |z|^2 > 4,
// at most %max: lanes leave the loop at different iterations.
const char *Escape = R"(
module &m:1:0:$full:$large:$default;
kernel &escape(kernarg_u64 %out, kernarg_u32 %n, kernarg_u32 %max)
{
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(4)_width(all)_u32	$s1, [%n];
	cmp_ge_b1_u32	$c0, $s0, $s1;
	cbr_b1	$c0, @done;
	ld_kernarg_align(4)_width(all)_u32	$s2, [%max];
	cvt_f32_u32	$s3, $s0;
	mul_f32	$s3, $s3, 0F3c000000;		// cx = x / 128
	sub_f32	$s3, $s3, 0F40000000;		// - 2
	mov_b32	$s4, 0F3e800000;		// cy = 0.25
	mov_b32	$s5, 0F00000000;		// zx
	mov_b32	$s6, 0F00000000;		// zy
	mov_b32	$s7, 0;				// i
@loop:
	cmp_ge_b1_u32	$c1, $s7, $s2;
	cbr_b1	$c1, @store;
	mul_f32	$s8, $s5, $s5;
	mul_f32	$s9, $s6, $s6;
	add_f32	$s10, $s8, $s9;
	cmp_gt_b1_f32	$c1, $s10, 0F40800000;
	cbr_b1	$c1, @store;
	mul_f32	$s11, $s5, $s6;
	add_f32	$s11, $s11, $s11;
	add_f32	$s6, $s11, $s4;
	sub_f32	$s5, $s8, $s9;
	add_f32	$s5, $s5, $s3;
	add_u32	$s7, $s7, 1;
	br	@loop;
@store:
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s7, [$d1];
@done:
	ret;
};
)";

uint32_t escapeAt(uint32_t X, uint32_t Max) {
  const float Cx = float(X) * (1.0f / 128) - 2.0f, Cy = 0.25f;
  float Zx = 0, Zy = 0;
  uint32_t I = 0;
  for (; I < Max; ++I) {
    const float Zx2 = Zx * Zx, Zy2 = Zy * Zy;
    if (Zx2 + Zy2 > 4.0f)
      break;
    const float T = Zx * Zy;
    Zy = (T + T) + Cy;
    Zx = (Zx2 - Zy2) + Cx;
  }
  return I;
}

TEST(LaneWideMasksTest, DivergentLoopsPackNoMasksIntoBytes) {
  auto Ps = bothWays(Escape, "&escape");
  ASSERT_EQ(Ps.size(), 2u);
  for (uint32_t N : {1u, 13u, 512u, 1000u}) {
    for (const FinalizedProgram &P : Ps) {
      std::vector<uint32_t> Out(N + 16, 0xdeadbeef);
      struct {
        uint32_t *Out;
        uint32_t N, Max;
      } Args{Out.data(), N, 200};
      Grid G;
      G.Size[0] = N + 16;
      G.WorkGroup[0] = 64;
      runKernel(P, "&escape", G, &Args);
      for (uint32_t X = 0; X < N + 16; ++X)
        ASSERT_EQ(Out[X], X < N ? escapeAt(X, 200) : 0xdeadbeef)
            << "x " << X << " of " << N;
    }
  }
  const openhsa::abi::CpuTarget &T = openhsa::abi::cpuTarget();
  if (runsOnGpu() || !T.Problem.empty() || !T.has("avx2") || T.has("avx512f"))
    GTEST_SKIP() << "masks in bytes: a target with AVX2 and without AVX-512 "
                    "(finalizer.avx2.*)";
  const std::string Asm = dumpedAssembly(Escape);
  ASSERT_FALSE(Asm.empty());
  EXPECT_EQ(occurrences(Asm, "vpacksswb"), 0u);
  EXPECT_EQ(occurrences(Asm, "vpmovmskb"), 0u);
  EXPECT_NE(occurrences(Asm, "vptest"), 0u);
}

// The code is the same from one finalization to the next: the pass makes
// its instructions in the order of the masks, not of their addresses
// (register allocation followed that order, and the tree reduction's AVX2
// code as a lockstep group of 256 differed from run to run).
TEST(LaneWideMasksTest, TheCodeIsTheSameEachTime) {
  const openhsa::abi::CpuTarget &T = openhsa::abi::cpuTarget();
  if (runsOnGpu() || !T.Problem.empty() || !T.has("avx2") || T.has("avx512f"))
    GTEST_SKIP() << "masks in 32-bit lanes: a target with AVX2 and without "
                    "AVX-512 (finalizer.avx2.*)";
  std::ifstream In(std::string(OPENHSA_BENCH_KERNELS_DIR) + "/reduction.hsail");
  ASSERT_TRUE(In.good());
  const std::string Source((std::istreambuf_iterator<char>(In)),
                           std::istreambuf_iterator<char>());
  openhsa::finalizer::ControlDirectives Fixed;
  // requiredworkgroupsize 256 and requirenopartialworkgroups.
  Fixed.ControlDirectivesMask = (uint64_t(1) << 8) | (uint64_t(1) << 9);
  Fixed.RequiredWorkgroupSize[0] = 256;
  Fixed.RequiredWorkgroupSize[1] = Fixed.RequiredWorkgroupSize[2] = 1;
  auto Assembly = [&] { return dumpedAssembly(Source.c_str(), 0, Fixed); };
  const std::string First = Assembly();
  ASSERT_FALSE(First.empty());
  for (int Again = 0; Again < 4; ++Again)
    ASSERT_EQ(Assembly(), First) << "finalization " << Again + 2;
}

} // namespace
