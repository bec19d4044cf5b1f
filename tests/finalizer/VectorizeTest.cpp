//===- tests/finalizer/VectorizeTest.cpp - W work-items at a time ---------===//
//
// The work-item vectorizer (finalizer/WorkItemVectorizer.h): kernels with
// divergent loops and branches, partial waves, gathers, scatters, uniform
// loads, calls and atomics in divergent code run W work-items at once and
// give what the scalar work-item loops give, which these tests check
// against host computations. Each kernel is finalized both ways in the same
// process; the vectorized one must really be vectorized.
//
//===----------------------------------------------------------------------===//
#include "IrText.h"
#include "KernelRunner.h"

#include "finalizer/Codegen.h"
#include "finalizer/WorkItemVectorizer.h"
#include "tests/support/ScopedEnv.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <sstream>
#include <sys/mman.h>
#include <tuple>
#include <unistd.h>

using namespace openhsa::test;

namespace {

// A divergent loop: each work-item runs the Collatz sequence of its id,
// so lanes leave the loop at different iterations (PRM 8.1 br, cbr).
const char *Collatz = R"(
module &m:1:0:$full:$large:$default;
kernel &collatz(kernarg_u64 %out, kernarg_u32 %n)
{
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(4)_width(all)_u32	$s1, [%n];
	cmp_ge_b1_u32	$c0, $s0, $s1;
	cbr_b1	$c0, @done;
	add_u32	$s2, $s0, 1;
	mov_b32	$s3, 0;
@loop:
	cmp_eq_b1_u32	$c1, $s2, 1;
	cbr_b1	$c1, @store;
	and_b32	$s4, $s2, 1;
	cmp_eq_b1_u32	$c2, $s4, 0;
	cbr_b1	$c2, @even;
	mad_u32	$s2, $s2, 3, 1;
	br	@next;
@even:
	shr_u32	$s2, $s2, 1;
@next:
	add_u32	$s3, $s3, 1;
	br	@loop;
@store:
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s3, [$d1];
@done:
	ret;
};
)";

uint32_t collatzSteps(uint32_t V) {
  uint32_t Steps = 0;
  while (V != 1) {
    V = (V & 1) ? 3 * V + 1 : V / 2;
    ++Steps;
  }
  return Steps;
}

struct OutN {
  void *Out;
  uint32_t N;
};

// Grids that are not a multiple of the wave or the group size; the
// kernel's bounds check also ends lanes early.
TEST(VectorizeTest, DivergentLoopWithPartialWavesAndGroups) {
  auto Ps = bothWays(Collatz, "&collatz");
  ASSERT_EQ(Ps.size(), 2u);
  for (uint32_t Size : {1u, 5u, 37u, 1000u, 1031u})
    for (uint32_t Group : {1u, 3u, 16u, 64u, 100u}) {
      const uint32_t N = Size - Size / 7; // Some work-items past n.
      for (const auto &P : Ps) {
        std::vector<uint32_t> Out(Size + 1, 0xdeadbeef);
        OutN Args{Out.data(), N};
        Grid G;
        G.Size[0] = Size;
        G.WorkGroup[0] = Group;
        runKernel(P, "&collatz", G, &Args);
        for (uint32_t I = 0; I < Size + 1; ++I)
          ASSERT_EQ(Out[I], I < N ? collatzSteps(I + 1) : 0xdeadbeef)
              << "item " << I << " grid " << Size << " group " << Group;
      }
    }
}

// A lane that is off computes whatever its inputs give: a widened `add
// nsw` that overflows there is poison, and `and` keeps poison where the
// mask's bit is false, which lets a masked store write that lane or not.
// Every edge mask the vectorizer builds takes a condition that cannot be
// poison (frozen where LLVM cannot prove it), in the divergent loops and
// branches of mandelbrot and the binary search.
TEST(VectorizeTest, EdgeMasksTakeConditionsThatCannotBePoison) {
  if (runsOnGpu() || openhsa::finalizer::hostVectorWidth() < 2)
    GTEST_SKIP() << "the CPU's work-item vectorizer";
  for (const char *Kernel : {"mandelbrot.hsail", "binary_search.hsail"}) {
    SCOPED_TRACE(Kernel);
    const std::string Source = benchmarkKernel(Kernel);
    const DumpedFinalization D =
        dumpFinalization(Source.c_str(), openhsa::finalizer::hostVectorWidth());
    ASSERT_FALSE(D.Lowered.empty());
    llvm::LLVMContext C;
    std::unique_ptr<llvm::Module> M = openhsa::test::parseIr(D.Lowered, C);
    ASSERT_TRUE(M);
    unsigned Masks = 0;
    for (const llvm::Function &F : *M)
      for (const llvm::Instruction &I : llvm::instructions(F))
        if (I.getName().starts_with("edge.mask")) {
          ++Masks;
          EXPECT_TRUE(llvm::isGuaranteedNotToBePoison(I.getOperand(1)))
              << openhsa::test::verifiedText(F);
        }
    EXPECT_GT(Masks, 0u);
  }
}

// Mandelbrot's escape loop leaves by two ways (the iteration limit and the
// escape test) to one store; its values are undefined along the flow the
// structurizer adds. Lanes that went around a region keep what the region
// computed: the vectorizer writes no "select mask, x, undef", whose fold
// cost InstCombine a tenth of the kernel's finalization (a walk of the
// block per select). Same results as the scalar loops, with partial waves
// and work-groups in both dimensions.
TEST(VectorizeTest, ValuesUndefinedOnOneWayNeedNoSelect) {
  const std::string Source = benchmarkKernel("mandelbrot.hsail");
  const DumpedFinalization D =
      dumpFinalization(Source.c_str(), openhsa::finalizer::hostVectorWidth());
  ASSERT_FALSE(D.Lowered.empty());
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  llvm::StringRef(D.Lowered).split(Lines, '\n');
  for (llvm::StringRef Line : Lines)
    EXPECT_FALSE(Line.contains(" select ") && Line.contains("undef"))
        << Line.str();

  struct {
    void *Out;
    uint32_t Width, Height, MaxIter;
    float X0, Y0, Step;
  } Args;
  const uint32_t Width = 37, Height = 23;
  auto Ps = bothWays(Source, "&mandelbrot");
  ASSERT_EQ(Ps.size(), 2u);
  std::vector<std::vector<uint32_t>> Outs;
  for (const auto &P : Ps) {
    std::vector<uint32_t> Out(Width * Height, 0xdeadbeef);
    Args = {Out.data(), Width, Height, 64, -2.0f, -1.2f, 0.07f};
    Grid G;
    G.Dims = 2;
    G.Size[0] = Width;
    G.Size[1] = Height;
    G.WorkGroup[0] = 16;
    G.WorkGroup[1] = 4;
    runKernel(P, "&mandelbrot", G, &Args);
    Outs.push_back(std::move(Out));
  }
  EXPECT_EQ(Outs[0], Outs[1]);
  // Both ways out of the loop are taken.
  EXPECT_EQ(std::count(Outs[1].begin(), Outs[1].end(), 0xdeadbeef), 0);
  EXPECT_GT(std::count(Outs[1].begin(), Outs[1].end(), 64u), 10);
  EXPECT_GT(std::count_if(Outs[1].begin(), Outs[1].end(),
                          [](uint32_t N) { return N < 64; }),
            100);
}

// A bounds check, `if (id < n)`, holds for every lane of every wave of
// all work-groups but the last: there the waves run a copy without the
// masks (finalizer/UniformConditions.h, the vectorized form), plain vector
// loads and stores; the work-groups the check cuts, and ids that wrap, run
// the masked waves. Before, every wave ran masked (on the AMD development
// VM the vector add took twice its twin's time).
const char *BoundedAdd = R"(
module &m:1:0:$full:$large:$default;
kernel &bounded_add(kernarg_u64 %out, kernarg_u32 %n, kernarg_u32 %k)
{
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(4)_width(all)_u32	$s1, [%n];
	ld_kernarg_align(4)_width(all)_u32	$s2, [%k];
	add_u32	$s3, $s0, $s2;
	cmp_ge_b1_u32	$c0, $s3, $s1;
	cbr_b1	$c0, @done;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	ld_global_u32	$s4, [$d1];
	add_u32	$s4, $s4, $s3;
	st_global_u32	$s4, [$d1];
@done:
	ret;
};
)";

TEST(VectorizeTest, BoundsCheckedWavesRunUnmaskedInWholeGroups) {
  if (runsOnGpu())
    GTEST_SKIP() << "the CPU's work-group functions";
  const unsigned W = openhsa::finalizer::hostVectorWidth();
  const std::string Optimized = optimizedIr(BoundedAdd, W);
  ASSERT_FALSE(Optimized.empty());
  const std::string Vector = "<" + std::to_string(W) + " x i32>";
  EXPECT_NE(Optimized.find("= load " + Vector + ", ptr"), std::string::npos)
      << "no unmasked vector load:\n"
      << Optimized;
  EXPECT_NE(Optimized.find("store " + Vector + " "), std::string::npos)
      << "no unmasked vector store";
  EXPECT_NE(Optimized.find("@llvm.masked.load"), std::string::npos)
      << "the masked waves are gone";
  auto Ps = bothWays(BoundedAdd, "&bounded_add");
  ASSERT_EQ(Ps.size(), 2u);
  // Both copies give the host's results: n inside, at the edge of and
  // past work-groups, and offsets whose ids wrap within a group.
  for (uint32_t N : {0u, 100u, 128u, 999u, 1000u, 5000u})
    for (uint32_t K : {0u, 0xffffffffu - 300u, 7u})
      for (const auto &P : Ps) {
        std::vector<uint32_t> Out(1000);
        std::iota(Out.begin(), Out.end(), 1u);
        struct {
          uint32_t *Out;
          uint32_t N, K;
        } Args{Out.data(), N, K};
        Grid G;
        G.Size[0] = 1000;
        G.WorkGroup[0] = 64;
        runKernel(P, "&bounded_add", G, &Args);
        for (uint32_t I = 0; I < 1000; ++I) {
          const uint32_t Id = I + K;
          ASSERT_EQ(Out[I], Id < N ? I + 1 + Id : I + 1)
              << "item " << I << " n " << N << " k " << K;
        }
      }
}

// The same bounds check in a kernel with a barrier, whose regions run their
// waves column by column (a loop over a column's rows inside the loop over
// X positions, CpuTarget.cpp): the check of the X ids holds for the whole
// nest, which gets the unmasked copy (before, only innermost loops were
// versioned, and the rows' loop is innermost: every wave ran masked).
// Results in groups of one row and of several, partial ones included.
const char *BoundedAddBarrier = R"(
module &m:1:0:$full:$large:$default;
kernel &bounded_barrier(kernarg_u64 %out, kernarg_u32 %n, kernarg_u32 %k)
{
	workitemabsid_u32	$s0, 0;
	workitemflatabsid_u32	$s5;
	ld_kernarg_align(4)_width(all)_u32	$s1, [%n];
	ld_kernarg_align(4)_width(all)_u32	$s2, [%k];
	add_u32	$s3, $s0, $s2;
	cmp_ge_b1_u32	$c0, $s3, $s1;
	cbr_b1	$c0, @done;
	cvt_u64_u32	$d0, $s5;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	ld_global_u32	$s4, [$d1];
	add_u32	$s4, $s4, $s3;
	st_global_u32	$s4, [$d1];
@done:
	barrier;
	ret;
};
)";

TEST(VectorizeTest, BoundsCheckedWavesRunUnmaskedAcrossBarriers) {
  if (runsOnGpu())
    GTEST_SKIP() << "the CPU's work-group functions";
  const unsigned W = openhsa::finalizer::hostVectorWidth();
  const std::string Optimized = optimizedIr(BoundedAddBarrier, W);
  ASSERT_FALSE(Optimized.empty());
  const std::string Vector = "<" + std::to_string(W) + " x i32>";
  EXPECT_NE(Optimized.find("= load " + Vector + ", ptr"), std::string::npos)
      << "no unmasked vector load:\n"
      << Optimized;
  EXPECT_NE(Optimized.find("store " + Vector + " "), std::string::npos)
      << "no unmasked vector store";
  auto Ps = bothWays(BoundedAddBarrier, "&bounded_barrier");
  ASSERT_EQ(Ps.size(), 2u);
  struct Shape {
    uint32_t SizeX, SizeY, GroupX, GroupY;
  };
  for (Shape S :
       {Shape{1000, 1, 64, 1}, Shape{200, 6, 64, 4}, Shape{70, 5, 32, 2}})
    for (uint32_t N : {0u, 50u, 64u, 150u, 5000u})
      for (uint32_t K : {0u, 0xffffffffu - 100u})
        for (const auto &P : Ps) {
          const uint32_t Items = S.SizeX * S.SizeY;
          std::vector<uint32_t> Out(Items);
          std::iota(Out.begin(), Out.end(), 1u);
          struct {
            uint32_t *Out;
            uint32_t N, K;
          } Args{Out.data(), N, K};
          Grid G;
          G.Dims = S.SizeY > 1 ? 2 : 1;
          G.Size[0] = S.SizeX;
          G.Size[1] = S.SizeY;
          G.WorkGroup[0] = S.GroupX;
          G.WorkGroup[1] = S.GroupY;
          runKernel(P, "&bounded_barrier", G, &Args);
          for (uint32_t I = 0; I < Items; ++I) {
            const uint32_t Id = I % S.SizeX + K;
            ASSERT_EQ(Out[I], Id < N ? I + 1 + Id : I + 1)
                << "item " << I << " n " << N << " k " << K << ", grid "
                << S.SizeX << "x" << S.SizeY;
          }
        }
}

// Nested divergence: an if/else inside a divergent loop, an if inside the
// else, a loop with a uniform trip count inside a divergent if, and a
// value carried out of the loop.
const char *Nested = R"(
module &m:1:0:$full:$large:$default;
kernel &nested(kernarg_u64 %out, kernarg_u32 %k)
{
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(4)_width(all)_u32	$s9, [%k];
	mov_b32	$s1, 0;		// i
	mov_b32	$s2, 0;		// acc
	and_b32	$s3, $s0, 7;	// trip count varies: 0..7
@loop:
	cmp_ge_b1_u32	$c0, $s1, $s3;
	cbr_b1	$c0, @after;
	and_b32	$s4, $s1, 1;
	cmp_eq_b1_u32	$c1, $s4, 0;
	cbr_b1	$c1, @evenit;
	add_u32	$s2, $s2, $s0;
	and_b32	$s5, $s0, 2;
	cmp_ne_b1_u32	$c2, $s5, 0;
	cbr_b1	$c2, @skip;
	mul_u32	$s2, $s2, 3;
@skip:
	br	@next;
@evenit:
	sub_u32	$s2, $s2, $s1;
@next:
	add_u32	$s1, $s1, 1;
	br	@loop;
@after:
	and_b32	$s6, $s0, 4;
	cmp_eq_b1_u32	$c3, $s6, 0;
	cbr_b1	$c3, @store;
	mov_b32	$s7, 0;
@uniform:
	add_u32	$s2, $s2, $s7;
	add_u32	$s7, $s7, 1;
	cmp_lt_b1_u32	$c4, $s7, $s9;
	cbr_b1	$c4, @uniform;
@store:
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 3;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s2, [$d1];
	st_global_u32	$s1, [$d1+4];
	ret;
};
)";

TEST(VectorizeTest, NestedDivergence) {
  auto Ps = bothWays(Nested, "&nested");
  ASSERT_EQ(Ps.size(), 2u);
  const uint32_t N = 203, K = 5;
  for (const auto &P : Ps) {
    std::vector<uint32_t> Out(2 * N, 0);
    OutN Args{Out.data(), K};
    Grid G;
    G.Size[0] = N;
    G.WorkGroup[0] = 50;
    runKernel(P, "&nested", G, &Args);
    for (uint32_t X = 0; X < N; ++X) {
      uint32_t I = 0, Acc = 0;
      for (; I < (X & 7); ++I) {
        if (I & 1) {
          Acc += X;
          if (!(X & 2))
            Acc *= 3;
        } else {
          Acc -= I;
        }
      }
      if (X & 4)
        for (uint32_t J = 0; J < K; ++J)
          Acc += J;
      ASSERT_EQ(Out[2 * X], Acc) << X;
      ASSERT_EQ(Out[2 * X + 1], I) << X;
    }
  }
}

// A loop that carries a floating-point value (an accumulator) waits on its
// arithmetic's latency a register at a time: where registers are narrower
// than AVX-512's (finalizer.avx2.*, finalizer.sse4.*), such a kernel runs
// two registers of work-items at once, two independent chains; a loop
// carrying integers only keeps one register.
const char *FloatAccumulator = R"(
module &m:1:0:$full:$large:$default;
kernel &acc(kernarg_u64 %out, kernarg_u32 %n)
{
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(4)_width(all)_u32	$s1, [%n];
	mov_b32	$s2, 0F00000000;
	mov_b32	$s3, 0;
@loop:
	cmp_ge_b1_u32	$c0, $s3, $s1;
	cbr_b1	$c0, @done;
	add_u32	$s4, $s0, $s3;
	cvt_f32_u32	$s5, $s4;
	mad_f32	$s2, $s5, 0F3f000000, $s2;
	add_u32	$s3, $s3, 1;
	br	@loop;
@done:
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_f32	$s2, [$d1];
	ret;
};
)";

TEST(VectorizeTest, LoopsCarryingFloatsRunTwoRegistersWideBelowAvx512) {
  const unsigned Host = openhsa::finalizer::hostVectorWidth();
  if (runsOnGpu() || Host < 2 || defaultWavefrontSize() < 2 ||
      std::getenv("OPENHSA_VECTOR_WIDTH"))
    GTEST_SKIP() << "the CPU's work-item vectorizer at the target's width";
  auto P = finalizeText(FloatAccumulator);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const auto *K = P->kernel("&acc");
  ASSERT_NE(K, nullptr);
  EXPECT_EQ(K->VectorWidth, Host < 16 ? 2 * Host : Host) << K->ScalarReason;
  auto Integers = finalizeText(Collatz);
  ASSERT_TRUE(bool(Integers)) << llvm::toString(Integers.takeError());
  EXPECT_EQ(Integers->kernel("&collatz")->VectorWidth, Host);
  for (uint32_t Size : {1u, 29u, 300u}) {
    const uint32_t N = 37;
    std::vector<float> Out(Size, -1.0f);
    struct {
      float *Out;
      uint32_t N;
    } Args{Out.data(), N};
    Grid G;
    G.Size[0] = Size;
    G.WorkGroup[0] = 64;
    runKernel(*P, "&acc", G, &Args);
    for (uint32_t I = 0; I < Size; ++I) {
      float Want = 0.0f;
      for (uint32_t J = 0; J < N; ++J)
        Want = std::fma(float(I + J), 0.5f, Want);
      ASSERT_EQ(Out[I], Want) << "item " << I << " of " << Size;
    }
  }
}

// A varying if whose region is a few instructions with no effect (more than
// LLVM speculates before the vectorizer sees it) runs with no branch around
// it: its lanes' results are blended at the join anyway,
// and the test of whether any lane enters costs as much (mandelbrot's
// escape loop: 8.9 -> 6.2 ms on the 2-core EPYC with AVX-512, 13.1 -> 10.8
// with AVX2, whose masks crossed blocks in a 16-bit form). An if whose
// region stores keeps its branch.
const char *PureAndStoringIfs = R"(
module &m:1:0:$full:$large:$default;
kernel &ifs(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	mov_b32	$s1, $s0;
	and_b32	$s2, $s0, 1;
	cmp_eq_b1_u32	$c0, $s2, 0;
	cbr_b1	$c0, @even;
	mad_u32	$s1, $s0, 3, 1;
	shr_u32	$s4, $s0, 3;
	xor_b32	$s1, $s1, $s4;
	mul_u32	$s1, $s1, 7;
	shl_u32	$s4, $s0, 2;
	add_u32	$s1, $s1, $s4;
	sub_u32	$s1, $s1, 5;
	xor_b32	$s1, $s1, 85;
	mad_u32	$s1, $s1, 3, 11;
@even:
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	and_b32	$s3, $s0, 2;
	cmp_eq_b1_u32	$c1, $s3, 0;
	cbr_b1	$c1, @skip;
	st_global_u32	$s1, [$d1];
@skip:
	ret;
};
)";

TEST(VectorizeTest, IfsWithoutEffectsRunWithoutABranch) {
  if (runsOnGpu() || openhsa::finalizer::hostVectorWidth() < 2)
    GTEST_SKIP() << "the CPU's work-item vectorizer";
  const DumpedFinalization D = dumpFinalization(
      PureAndStoringIfs, openhsa::finalizer::hostVectorWidth());
  ASSERT_FALSE(D.Lowered.empty());
  // One test of whether any lane enters: the storing if's.
  EXPECT_EQ(occurrences(D.Lowered, "call i1 @llvm.vector.reduce.or"), 1u)
      << D.Lowered;
  auto Ps = bothWays(PureAndStoringIfs, "&ifs");
  ASSERT_EQ(Ps.size(), 2u);
  for (uint32_t Size : {1u, 13u, 100u}) {
    for (const auto &P : Ps) {
      std::vector<uint32_t> Out(Size, 0xdeadbeef);
      void *Args = Out.data();
      Grid G;
      G.Size[0] = Size;
      G.WorkGroup[0] = 64;
      runKernel(P, "&ifs", G, &Args);
      for (uint32_t I = 0; I < Size; ++I) {
        uint32_t Odd = ((((3 * I + 1) ^ (I >> 3)) * 7 + (I << 2)) - 5) ^ 85;
        Odd = Odd * 3 + 11;
        ASSERT_EQ(Out[I], !(I & 2)  ? 0xdeadbeef
                          : (I & 1) ? Odd
                                    : I)
            << "item " << I << " of " << Size;
      }
    }
  }
}

// A loop whose lanes leave at different iterations (a divergent exit) but
// whose counter every lane still in it steps alike: the counter, and its
// test against the bound, stay scalar; each lane stores the count it left
// with. The only integer compare of the kernel's own is the counter's
// (no bounds check).
const char *CountedEscape = R"(
module &m:1:0:$full:$large:$default;
kernel &counted(kernarg_u64 %out, kernarg_u32 %max)
{
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(4)_width(all)_u32	$s1, [%max];
	mov_b32	$s2, 0;				// i
	mov_b32	$s3, 1;				// v
@loop:
	cmp_ge_b1_u32	$c0, $s2, $s1;
	cbr_b1	$c0, @store;
	mad_u32	$s3, $s3, 5, $s0;
	and_b32	$s4, $s3, 63;
	cmp_eq_b1_u32	$c0, $s4, 7;		// lane-dependent exit
	cbr_b1	$c0, @store;
	add_u32	$s2, $s2, 1;
	br	@loop;
@store:
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s2, [$d1];
	ret;
};
)";

TEST(VectorizeTest, ACounterLanesStepAlikeStaysScalarInADivergentLoop) {
  auto Ps = bothWays(CountedEscape, "&counted");
  ASSERT_EQ(Ps.size(), 2u);
  for (uint32_t Size : {1u, 13u, 100u, 1000u}) {
    for (const auto &P : Ps) {
      std::vector<uint32_t> Out(Size, 0xdeadbeef);
      struct {
        uint32_t *Out;
        uint32_t Max;
      } Args{Out.data(), 100};
      Grid G;
      G.Size[0] = Size;
      G.WorkGroup[0] = 64;
      runKernel(P, "&counted", G, &Args);
      for (uint32_t X = 0; X < Size; ++X) {
        uint32_t I = 0;
        for (uint32_t V = 1; I < 100; ++I) {
          V = V * 5 + X;
          if ((V & 63) == 7)
            break;
        }
        ASSERT_EQ(Out[X], I) << "item " << X << " of " << Size;
      }
    }
  }
  if (runsOnGpu() || openhsa::finalizer::hostVectorWidth() < 2)
    GTEST_SKIP() << "the CPU's work-item vectorizer";
  const DumpedFinalization D =
      dumpFinalization(CountedEscape, openhsa::finalizer::hostVectorWidth());
  const size_t Body = D.Lowered.find("@hsail.kernel.counted.simd");
  ASSERT_NE(Body, std::string::npos) << D.Lowered;
  const std::string Simd =
      D.Lowered.substr(Body, D.Lowered.find("\n}\n", Body) - Body);
  EXPECT_EQ(
      occurrences(Simd, "icmp uge i32") + occurrences(Simd, "icmp ult i32"), 1u)
      << Simd;
}

// Gathers (stride 3), scatters (a permutation), a uniform load, and
// consecutive accesses at an index that wraps in 32 bits for the lanes
// the branch turns off (x - 1 at x = 0).
const char *Memory = R"(
module &m:1:0:$full:$large:$default;
kernel &memory(kernarg_u64 %in, kernarg_u64 %perm, kernarg_u64 %out, kernarg_u64 %prev)
{
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%in];
	ld_kernarg_align(8)_width(all)_u64	$d2, [%perm];
	ld_kernarg_align(8)_width(all)_u64	$d3, [%out];
	ld_kernarg_align(8)_width(all)_u64	$d4, [%prev];
	ld_global_u32	$s9, [$d1];			// uniform: in[0]
	mul_u32	$s1, $s0, 3;
	cvt_u64_u32	$d5, $s1;
	shl_u64	$d5, $d5, 2;
	add_u64	$d5, $d5, $d1;
	ld_global_u32	$s2, [$d5];			// gather: in[3x]
	add_u32	$s2, $s2, $s9;
	cvt_u64_u32	$d6, $s0;
	shl_u64	$d6, $d6, 2;
	add_u64	$d7, $d6, $d2;
	ld_global_u32	$s3, [$d7];			// perm[x]
	cvt_u64_u32	$d8, $s3;
	shl_u64	$d8, $d8, 2;
	add_u64	$d8, $d8, $d3;
	st_global_u32	$s2, [$d8];			// scatter: out[perm[x]]
	cmp_eq_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @done;
	sub_u32	$s4, $s0, 1;
	cvt_u64_u32	$d9, $s4;
	shl_u64	$d9, $d9, 2;
	add_u64	$d9, $d9, $d1;
	ld_global_u32	$s5, [$d9];			// in[x - 1]
	add_u64	$d10, $d6, $d4;
	st_global_u32	$s5, [$d10];			// prev[x]
@done:
	ret;
};
)";

TEST(VectorizeTest, GathersScattersAndUniformLoads) {
  auto Ps = bothWays(Memory, "&memory");
  ASSERT_EQ(Ps.size(), 2u);
  // Classified as the comments in the kernel say: in[0] and the four
  // kernel arguments uniform; perm[x], in[x - 1] and prev[x] consecutive;
  // in[3x] and out[perm[x]] gathered and scattered.
  if (!runsOnGpu()) {
    const std::string Report =
        dumpFinalization(Memory, openhsa::finalizer::hostVectorWidth()).Report;
    EXPECT_NE(Report.find("5 uniform, 3 consecutive"), std::string::npos)
        << Report;
    EXPECT_NE(Report.find("2 gathers or scatters, 0 lane by lane"),
              std::string::npos)
        << Report;
  }
  const uint32_t N = 300;
  std::vector<uint32_t> In(3 * N), Perm(N);
  for (uint32_t I = 0; I < 3 * N; ++I)
    In[I] = I * 7 + 11;
  std::iota(Perm.begin(), Perm.end(), 0u);
  for (uint32_t I = 0; I < N; ++I)
    std::swap(Perm[I], Perm[(I * 131 + 17) % N]);
  for (const auto &P : Ps) {
    std::vector<uint32_t> Out(N, 0), Prev(N, 0xdeadbeef);
    struct {
      uint32_t *In, *Perm, *Out, *Prev;
    } Args{In.data(), Perm.data(), Out.data(), Prev.data()};
    Grid G;
    G.Size[0] = N;
    G.WorkGroup[0] = 30;
    runKernel(P, "&memory", G, &Args);
    for (uint32_t X = 0; X < N; ++X) {
      ASSERT_EQ(Out[Perm[X]], In[3 * X] + In[0]) << X;
      ASSERT_EQ(Prev[X], X ? In[X - 1] : 0xdeadbeef) << X;
    }
  }
}

/// A table in[] of 32-bit elements indexed by any u32, of which only
/// in[0, Low) and in[2^32 - Low, 2^32) are mapped (a page each, 16 GiB
/// apart), the rest faulting: for accesses whose 32-bit index wraps.
/// in[i] is 1000 + i in the low page, 0x80000000 + (i - (2^32 - Low)) in
/// the high one (at()).
class WrappingTable {
public:
  WrappingTable() {
    Base = mmap(nullptr, Span, PROT_NONE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (Base == MAP_FAILED)
      return;
    char *High = static_cast<char *>(Base) + (size_t(4) << 30) * 4 - Page;
    if (mprotect(Base, Page, PROT_READ | PROT_WRITE) ||
        mprotect(High, Page, PROT_READ | PROT_WRITE))
      return;
    auto *Top = reinterpret_cast<uint32_t *>(High);
    for (uint32_t J = 0; J < Low; ++J) {
      in()[J] = 1000 + J;
      Top[J] = 0x80000000u + J;
    }
    Ready = true;
  }
  ~WrappingTable() {
    if (Base != MAP_FAILED)
      munmap(Base, Span);
  }
  bool ready() const { return Ready; }
  uint32_t *in() const { return static_cast<uint32_t *>(Base); }
  uint32_t at(uint32_t Index) const {
    return Index < Low ? 1000 + Index : 0x80000000u + (Index - (0u - Low));
  }

private:
  const size_t Page = size_t(sysconf(_SC_PAGESIZE));
  const size_t Span = (size_t(4) << 30) * 4 + 2 * Page;
  const uint32_t Low = uint32_t(Page / 4);
  void *Base = MAP_FAILED;
  bool Ready = false;
};

// A consecutive load with no bounds check before it, whose 32-bit index
// x + k wraps for the first work-items of one row: that row must gather
// (each lane at its own zero-extended index, 16 GiB apart across the
// wrap), the others run a copy of the wave loop with the check that no
// lane wrapped folded (finalizer/UniformConditions.h, the strided form).
const char *Wrapping = R"(
module &m:1:0:$full:$large:$default;
kernel &wrapping(kernarg_u64 %in, kernarg_u64 %out, kernarg_u32 %k)
{
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(4)_width(all)_u32	$s1, [%k];
	add_u32	$s2, $s0, $s1;
	cvt_u64_u32	$d0, $s2;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%in];
	add_u64	$d1, $d1, $d0;
	ld_global_u32	$s3, [$d1];
	cvt_u64_u32	$d2, $s0;
	shl_u64	$d2, $d2, 2;
	ld_kernarg_align(8)_width(all)_u64	$d3, [%out];
	add_u64	$d3, $d3, $d2;
	st_global_u32	$s3, [$d3];
	ret;
};
)";

TEST(VectorizeTest, RowsWhoseIndicesWrapGatherAndTheOthersDoNot) {
  auto Ps = bothWays(Wrapping, "&wrapping");
  ASSERT_EQ(Ps.size(), 2u);
  WrappingTable Table;
  ASSERT_TRUE(Table.ready());
  constexpr uint32_t N = 600; // Rows of 256: two whole, one partial.
  // Wrap in the first row (mid-wave: 40 is two and a half waves of 16),
  // in the second row, and not at all.
  for (uint32_t Before : {40u, 300u, 0u})
    for (const auto &P : Ps) {
      const uint32_t K = Before ? uint32_t(0) - Before : 0u;
      std::vector<uint32_t> Out(N, 0);
      struct {
        uint32_t *In, *Out;
        uint32_t K;
      } Args{Table.in(), Out.data(), K};
      Grid G;
      G.Size[0] = N;
      G.WorkGroup[0] = 256;
      runKernel(P, "&wrapping", G, &Args);
      for (uint32_t X = 0; X < N; ++X)
        ASSERT_EQ(Out[X], Table.at(X + K)) << "x " << X << ", k " << K;
    }
}

// Accesses at the absolute X id need no check that a lane wrapped its
// 32-bit index: every work-item's id is below the grid's size, so a
// wave's ids, consecutive from lane 0's, never wrap where the lanes are
// work-items. The access at x + k still does. The group's id times a
// constant plus the work-item's id (the kernel's own arithmetic, not the
// absolute id) never wraps within a wave either where the constant is a
// multiple of the wave's lanes: here 2^32 - 48, so that group g reads
// from 48 g below 2^32, through the top of the wrapping table. Where it
// is not (2^32 - 47; 2^32 - 48 at waves of 32 or more), the check stays.
const char *AbsoluteIds = R"(
module &m:1:0:$full:$large:$default;
kernel &absolute(kernarg_u64 %in, kernarg_u64 %out, kernarg_u32 %k)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%in];
	add_u64	$d2, $d1, $d0;
	ld_global_u32	$s1, [$d2];
	ld_kernarg_align(4)_width(all)_u32	$s2, [%k];
	add_u32	$s3, $s0, $s2;
	cvt_u64_u32	$d3, $s3;
	shl_u64	$d3, $d3, 2;
	add_u64	$d3, $d1, $d3;
	ld_global_u32	$s4, [$d3];
	add_u32	$s1, $s1, $s4;
	workgroupid_u32	$s5, 0;
	mul_u32	$s5, $s5, 4294967248;
	workitemid_u32	$s6, 0;
	add_u32	$s5, $s5, $s6;
	cvt_u64_u32	$d4, $s5;
	shl_u64	$d4, $d4, 2;
	add_u64	$d4, $d1, $d4;
	ld_global_u32	$s7, [$d4];
	add_u32	$s1, $s1, $s7;
	ld_kernarg_align(8)_width(all)_u64	$d5, [%out];
	add_u64	$d5, $d5, $d0;
	st_global_u32	$s1, [$d5];
	ret;
};
)";

TEST(VectorizeTest, AccessesAtTheAbsoluteIdNeedNoWrapCheck) {
  auto Ps = bothWays(AbsoluteIds, "&absolute");
  ASSERT_EQ(Ps.size(), 2u);
  WrappingTable Table;
  ASSERT_TRUE(Table.ready());
  constexpr uint32_t Groups = 4, Group = 48, N = Groups * Group;
  const uint32_t K = 5;
  for (const auto &P : Ps) {
    std::vector<uint32_t> Out(N, 0);
    struct {
      uint32_t *In, *Out;
      uint32_t K;
    } Args{Table.in(), Out.data(), K};
    Grid G;
    G.Size[0] = N;
    G.WorkGroup[0] = Group;
    runKernel(P, "&absolute", G, &Args);
    for (uint32_t X = 0; X < N; ++X) {
      const uint32_t Own = (X / Group) * (0u - 48u) + X % Group;
      ASSERT_EQ(Out[X], Table.at(X) + Table.at(X + K) + Table.at(Own))
          << "x " << X;
    }
  }
  if (runsOnGpu())
    return;
  const unsigned W = openhsa::finalizer::hostVectorWidth();
  auto Report = [&](const std::string &Source) {
    return dumpFinalization(Source.c_str(), W).Report;
  };
  const std::string Multiple = AbsoluteIds;
  const bool Divides = (0u - 48u) % W == 0;
  EXPECT_NE(Report(Multiple).find(Divides ? "4 consecutive (1 checked)"
                                          : "4 consecutive (2 checked)"),
            std::string::npos)
      << Report(Multiple);
  std::string Odd = AbsoluteIds;
  Odd.replace(Odd.find("4294967248"), 10, "4294967249");
  EXPECT_NE(Report(Odd).find("4 consecutive (2 checked)"), std::string::npos)
      << Report(Odd);
}

// A loop whose consecutive load steps by a row pitch known only at run
// time (the naive matrix product's B column: k * n + col): the wave loop's
// copy without the per-iteration check that no lane wrapped its 32-bit
// index runs where a check before the loop shows no iteration wraps
// (finalizer/UniformConditions.h, the strided form with a run-time step);
// rows where some iteration's index wraps take the checked loop and gather
// there, each lane at its own zero-extended index.
const char *PitchedColumn = R"(
module &m:1:0:$full:$large:$default;
kernel &column(kernarg_u64 %in, kernarg_u64 %out, kernarg_u32 %pitch,
               kernarg_u32 %rows, kernarg_u32 %k)
{
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(4)_width(all)_u32	$s1, [%pitch];
	ld_kernarg_align(4)_width(all)_u32	$s2, [%rows];
	ld_kernarg_align(4)_width(all)_u32	$s3, [%k];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%in];
	add_u32	$s4, $s0, $s3;			// x + k
	mov_b32	$s5, 0;				// sum
	mov_b32	$s6, 0;				// r
@loop:
	mad_u32	$s7, $s6, $s1, $s4;		// r * pitch + x + k
	cvt_u64_u32	$d0, $s7;
	shl_u64	$d0, $d0, 2;
	add_u64	$d0, $d1, $d0;
	ld_global_u32	$s8, [$d0];
	add_u32	$s5, $s5, $s8;
	add_u32	$s6, $s6, 1;
	cmp_lt_b1_u32	$c0, $s6, $s2;
	cbr_b1	$c0, @loop;
	cvt_u64_u32	$d2, $s0;
	shl_u64	$d2, $d2, 2;
	ld_kernarg_align(8)_width(all)_u64	$d3, [%out];
	add_u64	$d3, $d3, $d2;
	st_global_u32	$s5, [$d3];
	ret;
};
)";

TEST(VectorizeTest, LoopsSteppingByARunTimePitchRunWithoutWrapChecks) {
  if (!runsOnGpu()) {
    const std::string Ir =
        optimizedIr(PitchedColumn, openhsa::finalizer::hostVectorWidth());
    EXPECT_NE(Ir.find(".uniform"), std::string::npos)
        << "the loop stepping by the pitch was not versioned on its wrap check";
  }
  auto Ps = bothWays(PitchedColumn, "&column");
  ASSERT_EQ(Ps.size(), 2u);
  WrappingTable Table;
  ASSERT_TRUE(Table.ready());
  constexpr uint32_t N = 200, Rows = 4, Pitch = 64; // Rows of groups of 64.
  // Indices wrap in the first rows' first iterations, in none.
  for (uint32_t Before : {100u, 0u})
    for (const auto &P : Ps) {
      const uint32_t K = Before ? uint32_t(0) - Before : 0u;
      std::vector<uint32_t> Out(N, 0);
      struct {
        uint32_t *In, *Out;
        uint32_t Pitch, Rows, K;
      } Args{Table.in(), Out.data(), Pitch, Rows, K};
      Grid G;
      G.Size[0] = N;
      G.WorkGroup[0] = 64;
      runKernel(P, "&column", G, &Args);
      for (uint32_t X = 0; X < N; ++X) {
        uint32_t Want = 0;
        for (uint32_t R = 0; R < Rows; ++R)
          Want += Table.at(R * Pitch + X + K);
        ASSERT_EQ(Out[X], Want) << "x " << X << ", k " << K;
      }
    }
}

// Two consecutive loads in one loop, each stepping by the run-time pitch
// from its own offset (the tiled matrix product's rows of A and B): the
// wave loop's copy has neither load's wrap check where a check before the
// loop shows no iteration of either wraps (finalizer/UniformConditions.h:
// every wrap check of a loop in one version). Rows where either index
// wraps take the checked loop, and gather there.
const char *TwoPitchedColumns = R"(
module &m:1:0:$full:$large:$default;
kernel &columns(kernarg_u64 %in, kernarg_u64 %out, kernarg_u32 %pitch,
                kernarg_u32 %rows, kernarg_u32 %k, kernarg_u32 %j)
{
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(4)_width(all)_u32	$s1, [%pitch];
	ld_kernarg_align(4)_width(all)_u32	$s2, [%rows];
	ld_kernarg_align(4)_width(all)_u32	$s3, [%k];
	ld_kernarg_align(4)_width(all)_u32	$s9, [%j];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%in];
	add_u32	$s4, $s0, $s3;			// x + k
	add_u32	$s10, $s0, $s9;			// x + j
	mov_b32	$s5, 0;				// sum
	mov_b32	$s6, 0;				// r
@loop:
	mad_u32	$s7, $s6, $s1, $s4;		// r * pitch + x + k
	cvt_u64_u32	$d0, $s7;
	shl_u64	$d0, $d0, 2;
	add_u64	$d0, $d1, $d0;
	ld_global_u32	$s8, [$d0];
	add_u32	$s5, $s5, $s8;
	mad_u32	$s7, $s6, $s1, $s10;		// r * pitch + x + j
	cvt_u64_u32	$d0, $s7;
	shl_u64	$d0, $d0, 2;
	add_u64	$d0, $d1, $d0;
	ld_global_u32	$s8, [$d0];
	mul_u32	$s8, $s8, 3;
	add_u32	$s5, $s5, $s8;
	add_u32	$s6, $s6, 1;
	cmp_lt_b1_u32	$c0, $s6, $s2;
	cbr_b1	$c0, @loop;
	cvt_u64_u32	$d2, $s0;
	shl_u64	$d2, $d2, 2;
	ld_kernarg_align(8)_width(all)_u64	$d3, [%out];
	add_u64	$d3, $d3, $d2;
	st_global_u32	$s5, [$d3];
	ret;
};
)";

TEST(VectorizeTest, LoopsWithTwoPitchedAccessesRunWithoutEitherWrapCheck) {
  if (!runsOnGpu()) {
    const std::string Ir =
        optimizedIr(TwoPitchedColumns, openhsa::finalizer::hostVectorWidth());
    EXPECT_NE(Ir.find(".uniform"), std::string::npos)
        << "the loop was not versioned on its wrap checks";
    // Gathers in the checked loops only, none in a copy: from a copy's
    // label to the next named one (the copy's own blocks are numbered).
    // With the copy versioned on one check, the other access's gather
    // stayed in it.
    std::istringstream Lines(Ir);
    bool InCopy = false;
    for (std::string Line; std::getline(Lines, Line);) {
      const bool Label = !Line.empty() && Line[0] != ' ' &&
                         Line.find(':') != std::string::npos &&
                         Line.find(':') < Line.find(' ');
      if (Label && !std::isdigit(static_cast<unsigned char>(Line[0])))
        InCopy = Line.substr(0, Line.find(':')).ends_with(".uniform");
      EXPECT_FALSE(InCopy && Line.find("gather") != std::string::npos)
          << "a wrap check is left in a versioned loop: " << Line;
    }
  }
  auto Ps = bothWays(TwoPitchedColumns, "&columns");
  ASSERT_EQ(Ps.size(), 2u);
  WrappingTable Table;
  ASSERT_TRUE(Table.ready());
  constexpr uint32_t N = 200, Rows = 4, Pitch = 64; // Rows of groups of 64.
  // The first access's indices wrap, the second's, neither's.
  for (auto [BeforeK, BeforeJ] :
       {std::pair{100u, 0u}, std::pair{0u, 100u}, std::pair{0u, 0u}})
    for (const auto &P : Ps) {
      const uint32_t K = uint32_t(0) - BeforeK, J = uint32_t(0) - BeforeJ + 7;
      std::vector<uint32_t> Out(N, 0);
      struct {
        uint32_t *In, *Out;
        uint32_t Pitch, Rows, K, J;
      } Args{Table.in(), Out.data(), Pitch, Rows, K, J};
      Grid G;
      G.Size[0] = N;
      G.WorkGroup[0] = 64;
      runKernel(P, "&columns", G, &Args);
      for (uint32_t X = 0; X < N; ++X) {
        uint32_t Want = 0;
        for (uint32_t R = 0; R < Rows; ++R)
          Want += Table.at(R * Pitch + X + K) + 3 * Table.at(R * Pitch + X + J);
        ASSERT_EQ(Out[X], Want) << "x " << X << ", k " << K << ", j " << J;
      }
    }
}

// A call in a divergent branch runs for the lanes that take it only, and
// division in lanes a branch turned off does not trap.
// A gather at a zero-extended 32-bit index (HSAIL's cvt_u64_u32, shl,
// add) runs as AVX-512 gathers with 32-bit indices, which the hardware
// sign-extends: indices of 2^31 and above must still reach table +
// 4 * index, 8 to 16 GiB on (the table is a reservation of which only the
// pages read are mapped).
const char *Lookup = R"(
module &m:1:0:$full:$large:$default;
kernel &lookup(kernarg_u64 %table, kernarg_u64 %idx, kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%idx];
	add_u64	$d1, $d1, $d0;
	ld_global_u32	$s1, [$d1];			// j = idx[x]
	cvt_u64_u32	$d2, $s1;
	shl_u64	$d2, $d2, 2;
	ld_kernarg_align(8)_width(all)_u64	$d3, [%table];
	add_u64	$d3, $d3, $d2;
	ld_global_u32	$s2, [$d3];			// gather: table[j]
	ld_kernarg_align(8)_width(all)_u64	$d4, [%out];
	add_u64	$d4, $d4, $d0;
	st_global_u32	$s2, [$d4];
	ret;
};
)";

TEST(VectorizeTest, GathersReachEveryUnsigned32BitIndex) {
  auto Ps = bothWays(Lookup, "&lookup");
  ASSERT_EQ(Ps.size(), 2u);
  const size_t Page = size_t(sysconf(_SC_PAGESIZE));
  const size_t Span = (size_t(4) << 30) * 4; // 2^32 elements of 4 bytes.
  char *Base = static_cast<char *>(
      mmap(nullptr, Span, PROT_NONE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
  ASSERT_NE(Base, MAP_FAILED);
  auto *Table = reinterpret_cast<uint32_t *>(Base);
  const uint32_t PerPage = uint32_t(Page / 4);
  // Pages at index 0, 2^31 - PerPage (below the sign bit), 2^31 (at it)
  // and 2^32 - PerPage (the top).
  const uint32_t Starts[] = {0u, 0x80000000u - PerPage, 0x80000000u,
                             uint32_t(0) - PerPage};
  for (uint32_t S : Starts) {
    ASSERT_EQ(mprotect(Table + S, Page, PROT_READ | PROT_WRITE), 0);
    for (uint32_t J = 0; J < PerPage; ++J)
      Table[S + J] = (S + J) * 2654435761u;
  }
  constexpr uint32_t N = 200;
  std::vector<uint32_t> Idx(N);
  for (uint32_t X = 0; X < N; ++X)
    Idx[X] = Starts[(X * 7) % 4] + (X * 13) % PerPage;
  for (const auto &P : Ps) {
    std::vector<uint32_t> Out(N, 0);
    struct {
      uint32_t *Table, *Idx, *Out;
    } Args{Table, Idx.data(), Out.data()};
    Grid G;
    G.Size[0] = N;
    G.WorkGroup[0] = 64;
    runKernel(P, "&lookup", G, &Args);
    for (uint32_t X = 0; X < N; ++X)
      ASSERT_EQ(Out[X], Idx[X] * 2654435761u) << X << ": index " << Idx[X];
  }
  munmap(Base, Span);
  // On AVX-512, at widths of whole 16-lane registers, those gathers take
  // 32-bit indices (narrower waves, OPENHSA_VECTOR_WIDTH=4 or 8, keep
  // LLVM's generic gather).
  const unsigned Width = openhsa::finalizer::hostVectorWidth();
  if (runsOnGpu() || !openhsa::finalizer::hostHasFeature("avx512f") ||
      Width % 16 != 0)
    return;
  const std::string Optimized = optimizedIr(Lookup, Width);
  EXPECT_NE(Optimized.find("@llvm.x86.avx512.mask.gather.dpi.512"),
            std::string::npos);
}

const char *Calls = R"(
module &m:1:0:$full:$large:$default;
function &scale(arg_u32 %r)(arg_u32 %x, arg_u32 %d)
{
	ld_arg_u32	$s0, [%x];
	ld_arg_u32	$s1, [%d];
	div_u32	$s0, $s0, $s1;
	add_u32	$s0, $s0, 1000;
	st_arg_u32	$s0, [%r];
	ret;
};

kernel &calls(kernarg_u64 %div, kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%div];
	add_u64	$d1, $d1, $d0;
	ld_global_u32	$s1, [$d1];
	mov_b32	$s2, 7;
	cmp_eq_b1_u32	$c0, $s1, 0;
	cbr_b1	$c0, @store;
	div_u32	$s3, $s0, $s1;
	and_b32	$s4, $s0, 1;
	cmp_eq_b1_u32	$c1, $s4, 0;
	cbr_b1	$c1, @even;
	{
		arg_u32 %r;
		arg_u32 %x;
		arg_u32 %d;
		st_arg_u32	$s0, [%x];
		st_arg_u32	$s1, [%d];
		call	&scale (%r) (%x, %d);
		ld_arg_u32	$s2, [%r];
	}
	br	@store;
@even:
	mov_b32	$s2, $s3;
@store:
	ld_kernarg_align(8)_width(all)_u64	$d2, [%out];
	add_u64	$d2, $d2, $d0;
	st_global_u32	$s2, [$d2];
	ret;
};
)";

TEST(VectorizeTest, CallInDivergentBranchAndMaskedDivision) {
  auto Ps = bothWays(Calls, "&calls");
  ASSERT_EQ(Ps.size(), 2u);
  const uint32_t N = 77;
  std::vector<uint32_t> Div(N);
  for (uint32_t I = 0; I < N; ++I)
    Div[I] = I % 5; // Every fifth divisor is 0.
  for (const auto &P : Ps) {
    std::vector<uint32_t> Out(N, 0);
    struct {
      uint32_t *Div, *Out;
    } Args{Div.data(), Out.data()};
    Grid G;
    G.Size[0] = N;
    G.WorkGroup[0] = 32;
    runKernel(P, "&calls", G, &Args);
    for (uint32_t X = 0; X < N; ++X) {
      uint32_t D = Div[X];
      uint32_t Want = D == 0 ? 7 : (X & 1) ? X / D + 1000 : X / D;
      ASSERT_EQ(Out[X], Want) << X;
    }
  }
}

// Atomics run once per active lane: a histogram, tickets handed out only
// to odd work-items (a permutation of 0..n/2), and compare-and-swap.
const char *Atomics = R"(
module &m:1:0:$full:$large:$default;
kernel &atomics(kernarg_u64 %in, kernarg_u64 %hist, kernarg_u64 %tickets, kernarg_u64 %counter)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%in];
	add_u64	$d1, $d1, $d0;
	ld_global_u32	$s1, [$d1];
	and_b32	$s1, $s1, 15;
	cvt_u64_u32	$d2, $s1;
	shl_u64	$d2, $d2, 2;
	ld_kernarg_align(8)_width(all)_u64	$d3, [%hist];
	add_u64	$d3, $d3, $d2;
	atomicnoret_add_global_scar_agent_u32	[$d3], 1;
	ld_kernarg_align(8)_width(all)_u64	$d4, [%counter];
	ld_kernarg_align(8)_width(all)_u64	$d5, [%tickets];
	add_u64	$d5, $d5, $d0;
	mov_b32	$s3, 0xffffffff;
	and_b32	$s2, $s0, 1;
	cmp_eq_b1_u32	$c0, $s2, 0;
	cbr_b1	$c0, @cas;
	atomic_add_global_scar_agent_u32	$s3, [$d4], 1;
@cas:
	st_global_u32	$s3, [$d5];
	add_u32	$s5, $s0, 1;
	atomic_cas_global_scar_agent_b32	$s4, [$d4+4], $s0, $s5;
	ret;
};
)";

TEST(VectorizeTest, AtomicsRunOncePerActiveLane) {
  auto Ps = bothWays(Atomics, "&atomics");
  ASSERT_EQ(Ps.size(), 2u);
  const uint32_t N = 1000;
  std::vector<uint32_t> In(N);
  for (uint32_t I = 0; I < N; ++I)
    In[I] = I * 2654435761u >> 7;
  std::vector<uint32_t> WantHist(16, 0);
  for (uint32_t V : In)
    ++WantHist[V & 15];
  for (const auto &P : Ps) {
    std::vector<uint32_t> Hist(16, 0), Tickets(N, 0), Counter(2, 0);
    struct {
      uint32_t *In, *Hist, *Tickets, *Counter;
    } Args{In.data(), Hist.data(), Tickets.data(), Counter.data()};
    Grid G;
    G.Size[0] = N;
    G.WorkGroup[0] = 40;
    runKernel(P, "&atomics", G, &Args);
    EXPECT_EQ(Hist, WantHist);
    EXPECT_EQ(Counter[0], N / 2);
    std::vector<uint32_t> Odd;
    for (uint32_t X = 0; X < N; ++X)
      if (X & 1)
        Odd.push_back(Tickets[X]);
      else
        ASSERT_EQ(Tickets[X], 0xffffffffu) << X;
    std::sort(Odd.begin(), Odd.end());
    for (uint32_t I = 0; I < Odd.size(); ++I)
      ASSERT_EQ(Odd[I], I);
    // Work-item x swaps x for x + 1: the word reaches n only if every
    // compare-and-swap ran, in work-item order (lane order in a wave). The
    // CPU agent runs a wave's lanes in order and its waves one after the
    // other; HSAIL orders no work-items, and a GPU's run at once (its
    // lanes' swaps from the same value: one wins).
    if (!runsOnGpu()) {
      EXPECT_EQ(Counter[1], N);
    }
  }
}

// Private memory: each work-item's own array, indexed by a varying value.
const char *Private = R"(
module &m:1:0:$full:$large:$default;
kernel &privates(kernarg_u64 %out)
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
	ld_private_u32	$s5, [%a][$s4];
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s5, [$d1];
	ret;
};
)";

TEST(VectorizeTest, PrivateArraysPerWorkItem) {
  auto Ps = bothWays(Private, "&privates");
  ASSERT_EQ(Ps.size(), 2u);
  const uint32_t N = 45;
  for (const auto &P : Ps) {
    std::vector<uint32_t> Out(N, 0);
    struct {
      uint32_t *Out;
    } Args{Out.data()};
    Grid G;
    G.Size[0] = N;
    G.WorkGroup[0] = 20;
    runKernel(P, "&privates", G, &Args);
    for (uint32_t X = 0; X < N; ++X)
      ASSERT_EQ(Out[X], X + (X & 7)) << X;
  }
}

// 2-D and 3-D grids: waves run along X; Y and Z stay uniform in a wave.
TEST(VectorizeTest, TwoAndThreeDimensionalGrids) {
  const char *Ids = R"(
module &m:1:0:$full:$large:$default;
kernel &ids(kernarg_u64 %out)
{
	workitemflatabsid_u32	$s0;
	workitemabsid_u32	$s1, 0;
	workitemabsid_u32	$s2, 1;
	workitemabsid_u32	$s3, 2;
	shl_u32	$s2, $s2, 10;
	shl_u32	$s3, $s3, 20;
	or_b32	$s1, $s1, $s2;
	or_b32	$s1, $s1, $s3;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s1, [$d1];
	ret;
};
)";
  auto Ps = bothWays(Ids, "&ids");
  ASSERT_EQ(Ps.size(), 2u);
  for (const auto &P : Ps) {
    Grid G;
    G.Dims = 3;
    G.Size[0] = 23;
    G.Size[1] = 5;
    G.Size[2] = 3;
    G.WorkGroup[0] = 8;
    G.WorkGroup[1] = 3;
    G.WorkGroup[2] = 2;
    std::vector<uint32_t> Out(23 * 5 * 3, 0);
    struct {
      uint32_t *Out;
    } Args{Out.data()};
    runKernel(P, "&ids", G, &Args);
    for (uint32_t Z = 0; Z < 3; ++Z)
      for (uint32_t Y = 0; Y < 5; ++Y)
        for (uint32_t X = 0; X < 23; ++X)
          ASSERT_EQ(Out[X + 23 * (Y + 5 * Z)], X | Y << 10 | Z << 20)
              << X << "," << Y << "," << Z;
  }
}

// Barriers: each region runs wave by wave, registers kept across the
// barriers in a register file per wave, lane by lane. A tree reduction with
// a barrier inside its halving loop, groups whose width is not a multiple of
// W, and groups too narrow for waves (which run the scalar regions).
const char *Reduce = R"(
module &m:1:0:$full:$large:$default;
kernel &reduce(kernarg_u64 %in, kernarg_u64 %partial)
{
	group_u32 %scratch[256];
	workitemid_u32	$s0, 0;
	workitemabsid_u32	$s1, 0;
	cvt_u64_u32	$d0, $s1;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%in];
	add_u64	$d1, $d1, $d0;
	ld_global_u32	$s3, [$d1];
	shl_u32	$s6, $s0, 2;
	st_group_u32	$s3, [%scratch][$s6];
	currentworkgroupsize_u32	$s5, 0;
@step:
	barrier;
	cmp_le_b1_u32	$c1, $s5, 1;
	cbr_b1	$c1, @write;
	add_u32	$s7, $s5, 1;
	shr_u32	$s7, $s7, 1;			// half, rounded up
	add_u32	$s8, $s0, $s7;
	cmp_ge_b1_u32	$c2, $s8, $s5;
	cmp_ge_b1_u32	$c3, $s0, $s7;
	or_b1	$c2, $c2, $c3;
	cbr_b1	$c2, @next;
	shl_u32	$s8, $s8, 2;
	ld_group_u32	$s9, [%scratch][$s6];
	ld_group_u32	$s10, [%scratch][$s8];
	add_u32	$s9, $s9, $s10;
	st_group_u32	$s9, [%scratch][$s6];
@next:
	mov_b32	$s5, $s7;
	br	@step;
@write:
	cmp_ne_b1_u32	$c3, $s0, 0;
	cbr_b1	$c3, @end;
	ld_group_u32	$s9, [%scratch];
	workgroupid_u32	$s2, 0;
	cvt_u64_u32	$d2, $s2;
	shl_u64	$d2, $d2, 2;
	ld_kernarg_align(8)_width(all)_u64	$d3, [%partial];
	add_u64	$d3, $d3, $d2;
	st_global_u32	$s9, [$d3];
@end:
	ret;
};
)";

TEST(VectorizeTest, BarrierInALoop) {
  auto Ps = bothWays(Reduce, "&reduce");
  ASSERT_EQ(Ps.size(), 2u);
  for (uint32_t Group : {256u, 100u, 37u, 16u, 5u, 1u})
    for (uint32_t N : {Group * 3, Group * 4 + Group / 2 + 1}) {
      std::vector<uint32_t> In(N);
      for (uint32_t I = 0; I < N; ++I)
        In[I] = I * 7 + 3;
      const uint32_t Groups = (N + Group - 1) / Group;
      for (const auto &P : Ps) {
        std::vector<uint32_t> Partial(Groups, 0);
        struct {
          uint32_t *In, *Partial;
        } Args{In.data(), Partial.data()};
        Grid G;
        G.Size[0] = N;
        G.WorkGroup[0] = Group;
        runKernel(P, "&reduce", G, &Args);
        for (uint32_t Gr = 0; Gr < Groups; ++Gr) {
          uint32_t Want = 0;
          for (uint32_t I = Gr * Group; I < std::min(N, (Gr + 1) * Group); ++I)
            Want += In[I];
          ASSERT_EQ(Partial[Gr], Want)
              << "group " << Gr << " of size " << Group << ", n " << N;
        }
      }
    }
}

// A kernel with barriers runs so much code per work-group that the core
// never reaches the next group's loads early: its consecutive loads from
// global memory prefetch what the groups OPENHSA_PREFETCH_GROUPS (default
// 1) further along X will read. Not its group memory, nor kernels without
// barriers, nor with the setting 0.
const char *GroupOnly = R"(
module &m:1:0:$full:$large:$default;
kernel &grouponly(kernarg_u64 %out)
{
	group_u32 %scratch[256];
	workitemid_u32	$s0, 0;
	workitemabsid_u32	$s1, 0;
	shl_u32	$s2, $s0, 2;
	st_group_u32	$s1, [%scratch][$s2];
	barrier;
	ld_group_u32	$s3, [%scratch][$s2];
	cvt_u64_u32	$d0, $s1;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s3, [$d1];
	ret;
};
)";

TEST(VectorizeTest, BarrierKernelsPrefetchTheNextGroupsInput) {
  if (runsOnGpu())
    GTEST_SKIP() << "the CPU's work-group functions";
  const unsigned W = openhsa::finalizer::hostVectorWidth();
  const std::string Prefetch = "@llvm.prefetch";
  {
    ScopedEnv Default("OPENHSA_PREFETCH_GROUPS", nullptr);
    EXPECT_NE(optimizedIr(Reduce, W).find(Prefetch), std::string::npos)
        << "the reduction's input is not prefetched";
    EXPECT_EQ(optimizedIr(GroupOnly, W).find(Prefetch), std::string::npos)
        << "group memory is prefetched";
    EXPECT_EQ(optimizedIr(BoundedAdd, W).find(Prefetch), std::string::npos)
        << "a kernel without barriers prefetches";
    // Loads the group makes again and again (the tile loads, in a loop
    // whose back-edge goes through the second barrier) would prefetch the
    // next group's whole column of B, long before it runs.
    const std::string Tiled = benchmarkKernel("sgemm_tiled.hsail");
    ASSERT_FALSE(Tiled.empty());
    EXPECT_EQ(optimizedIr(Tiled.c_str(), W).find(Prefetch), std::string::npos)
        << "loads in a loop through barriers are prefetched";
    // Four groups ahead unless the environment says otherwise
    // (prefetchGroupsAhead): one was too close.
    const std::string DefaultIr = optimizedIr(Reduce, W);
    {
      ScopedEnv Four("OPENHSA_PREFETCH_GROUPS", "4");
      EXPECT_EQ(optimizedIr(Reduce, W), DefaultIr);
    }
    ScopedEnv One("OPENHSA_PREFETCH_GROUPS", "1");
    EXPECT_NE(optimizedIr(Reduce, W), DefaultIr);
  }
  ScopedEnv Off("OPENHSA_PREFETCH_GROUPS", "0");
  EXPECT_EQ(optimizedIr(Reduce, W).find(Prefetch), std::string::npos)
      << "OPENHSA_PREFETCH_GROUPS=0 still prefetches";
}

// The last groups' prefetches point past the input, here into pages that
// fault when read: a prefetch never faults, and the results are right at
// every distance.
TEST(VectorizeTest, PrefetchesPastTheEndOfMemoryDoNotFault) {
  const size_t Page = size_t(sysconf(_SC_PAGESIZE));
  constexpr uint32_t Group = 256, N = Group * 8;
  const size_t Bytes = (N * 4 + Page - 1) / Page * Page;
  // The input fills the pages just below 64 inaccessible ones.
  char *Base = static_cast<char *>(mmap(nullptr, Bytes + 64 * Page, PROT_NONE,
                                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(Base, MAP_FAILED);
  ASSERT_EQ(mprotect(Base, Bytes, PROT_READ | PROT_WRITE), 0);
  auto *In = reinterpret_cast<uint32_t *>(Base + Bytes - N * 4);
  for (uint32_t I = 0; I < N; ++I)
    In[I] = I * 3 + 1;
  for (const char *Ahead : {"1", "4", "16"}) {
    ScopedEnv Distance("OPENHSA_PREFETCH_GROUPS", Ahead);
    auto Ps = bothWays(Reduce, "&reduce");
    ASSERT_EQ(Ps.size(), 2u);
    for (const auto &P : Ps) {
      std::vector<uint32_t> Partial(N / Group, 0);
      struct {
        uint32_t *In, *Partial;
      } Args{In, Partial.data()};
      Grid G;
      G.Size[0] = N;
      G.WorkGroup[0] = Group;
      runKernel(P, "&reduce", G, &Args);
      for (uint32_t Gr = 0; Gr < N / Group; ++Gr) {
        uint32_t Want = 0;
        for (uint32_t I = Gr * Group; I < (Gr + 1) * Group; ++I)
          Want += In[I];
        ASSERT_EQ(Partial[Gr], Want) << "group " << Gr << ", " << Ahead;
      }
    }
  }
  munmap(Base, Bytes + 64 * Page);
}

// Registers written under divergence before a barrier keep each lane's
// value across it, booleans included; a 2-D group whose rows are not a
// multiple of W.
TEST(VectorizeTest, DivergentRegistersSurviveBarriers) {
  const char *Src = R"(
module &m:1:0:$full:$large:$default;
kernel &keep(kernarg_u64 %out)
{
	workitemflatabsid_u32	$s0;
	workitemid_u32	$s1, 0;
	and_b32	$s2, $s1, 3;
	cmp_eq_b1_u32	$c0, $s2, 1;
	mov_b32	$s3, 11;
	cbr_b1	$c0, @odd;
	mul_u32	$s3, $s0, 3;
	cvt_f64_u32	$d4, $s0;
@odd:
	barrier;
	cmp_gt_b1_u32	$c1, $s1, 4;
	barrier;
	cvt_u32_b1	$s4, $c1;
	add_u32	$s3, $s3, $s4;
	cvt_u32_b1	$s5, $c0;
	shl_u32	$s5, $s5, 8;
	add_u32	$s3, $s3, $s5;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s3, [$d1];
	ret;
};
)";
  auto Ps = bothWays(Src, "&keep");
  ASSERT_EQ(Ps.size(), 2u);
  for (const auto &P : Ps) {
    Grid G;
    G.Dims = 2;
    G.Size[0] = 40;
    G.Size[1] = 6;
    G.WorkGroup[0] = 20;
    G.WorkGroup[1] = 3;
    std::vector<uint32_t> Out(40 * 6, 0);
    struct {
      uint32_t *Out;
    } Args{Out.data()};
    runKernel(P, "&keep", G, &Args);
    for (uint32_t Y = 0; Y < 6; ++Y)
      for (uint32_t X = 0; X < 40; ++X) {
        const uint32_t Flat = X + 40 * Y, Lx = X % 20;
        const bool Odd = (Lx & 3) == 1;
        const uint32_t Want =
            (Odd ? 11 : Flat * 3) + (Lx > 4 ? 1 : 0) + (Odd ? 256 : 0);
        ASSERT_EQ(Out[Flat], Want) << X << "," << Y;
      }
  }
}

// Registers live across barriers in every form the register promotion
// (finalizer/PromoteRegisterFile.h) treats differently: ids and kernarg
// values computed again after each barrier, a float loop-carried across
// two barriers per round (read as bits at the end), a uniform loop counter,
// a boolean, and a register written by some lanes only, read after the
// loop by those lanes only. Partial groups: the neighbour is taken modulo
// the current group size.
TEST(VectorizeTest, RegistersAcrossBarriersInEveryForm) {
  const char *Src = R"(
module &m:1:0:$full:$large:$default;
kernel &forms(kernarg_u64 %out, kernarg_u64 %in, kernarg_u32 %rounds)
{
	group_f32 %tile[256];
	workitemid_u32	$s0, 0;
	workitemabsid_u32	$s1, 0;
	ld_kernarg_align(8)_width(all)_u64	$d0, [%out];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%in];
	ld_kernarg_align(4)_width(all)_u32	$s2, [%rounds];
	shl_u32	$s3, $s0, 2;
	cvt_u64_u32	$d2, $s1;
	shl_u64	$d2, $d2, 2;
	add_u64	$d3, $d1, $d2;
	ld_global_f32	$s4, [$d3];
	mov_b32	$s5, 0;
	and_b32	$s7, $s0, 1;
	cmp_eq_b1_u32	$c0, $s7, 1;
	cbr_b1	$c0, @round;
	mov_b32	$s8, 100;
@round:
	st_group_f32	$s4, [%tile][$s3];
	barrier;
	add_u32	$s9, $s0, 1;
	currentworkgroupsize_u32	$s10, 0;
	rem_u32	$s9, $s9, $s10;
	shl_u32	$s9, $s9, 2;
	ld_group_f32	$s11, [%tile][$s9];
	add_f32	$s4, $s4, $s11;
	barrier;
	add_u32	$s5, $s5, 1;
	cmp_lt_b1_u32	$c1, $s5, $s2;
	cbr_b1	$c1, @round;
	cbr_b1	$c0, @store;
	add_u32	$s4, $s4, $s8;
@store:
	add_u64	$d4, $d0, $d2;
	st_global_u32	$s4, [$d4];
	ret;
};
)";
  auto Ps = bothWays(Src, "&forms");
  ASSERT_EQ(Ps.size(), 2u);
  for (uint32_t Group : {64u, 37u, 16u})
    for (uint32_t N : {Group * 2, Group * 3 + 5}) {
      std::vector<float> In(N);
      for (uint32_t I = 0; I < N; ++I)
        In[I] = float(I % 13);
      // Each round adds the neighbour's value of the round before.
      const uint32_t Rounds = 3;
      std::vector<float> Want(In);
      for (uint32_t Start = 0; Start < N; Start += Group) {
        const uint32_t Size = std::min(Group, N - Start);
        for (uint32_t R = 0; R < Rounds; ++R) {
          std::vector<float> Old(Want.begin() + Start,
                                 Want.begin() + Start + Size);
          for (uint32_t L = 0; L < Size; ++L)
            Want[Start + L] = Old[L] + Old[(L + 1) % Size];
        }
      }
      for (const auto &P : Ps) {
        std::vector<uint32_t> Out(N, 0);
        struct {
          uint32_t *Out;
          const float *In;
          uint32_t Rounds;
        } Args{Out.data(), In.data(), Rounds};
        Grid G;
        G.Size[0] = N;
        G.WorkGroup[0] = Group;
        runKernel(P, "&forms", G, &Args);
        for (uint32_t I = 0; I < N; ++I) {
          uint32_t Bits;
          std::memcpy(&Bits, &Want[I], 4);
          const bool Even = ((I % Group) & 1) == 0;
          ASSERT_EQ(Out[I], Bits + (Even ? 100 : 0))
              << "item " << I << ", group size " << Group << ", n " << N;
        }
      }
    }
}

// What the vectorizer does not take runs the scalar work-item loops, and
// the code object says why.
TEST(VectorizeTest, FbarrierKernelsFallBackWithAReason) {
  if (runsOnGpu())
    GTEST_SKIP() << "widths of the CPU's work-item vectorizer";
  const char *Fbarrier = R"(
module &m:1:0:$full:$large:$default;
kernel &withfbarrier(kernarg_u64 %out)
{
	fbarrier %fb;
	workitemflatid_u32	$s0;
	cmp_ne_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @joined;
	initfbar	%fb;
@joined:
	barrier;
	joinfbar	%fb;
	waitfbar	%fb;
	leavefbar	%fb;
	barrier;
	cmp_ne_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @done;
	releasefbar	%fb;
@done:
	ret;
};
)";
  auto P = finalizeText(Fbarrier, 16);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const auto *K = P->kernel("&withfbarrier");
  ASSERT_NE(K, nullptr);
  EXPECT_EQ(K->VectorWidth, 1u);
  EXPECT_NE(K->ScalarReason.find("fbarrier"), std::string::npos)
      << K->ScalarReason;
  // The width and the reason survive serialization.
  auto Back = openhsa::finalizer::CodeObject::deserialize(P->Code.serialize());
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->Kernels[0].VectorWidth, 1u);
  EXPECT_EQ(Back->Kernels[0].ScalarReason, K->ScalarReason);
}

// The finalizer's report (OPENHSA_DUMP_IR's <module>.vectorize.txt) says
// which kernels fell back to scalar work-item loops and why; with
// OPENHSA_VECTORIZE=0 every kernel does, at the default width, and runs.
TEST(VectorizeTest, TheReportSaysWhichKernelsFellBackAndWhy) {
  if (runsOnGpu())
    GTEST_SKIP() << "the CPU's work-item vectorizer";
  const std::string Scalar = dumpFinalization(Collatz, 1).Report;
  EXPECT_NE(Scalar.find("&collatz: scalar work-item loops: vectorization is "
                        "off"),
            std::string::npos)
      << Scalar;
  const std::string Vector =
      dumpFinalization(Collatz, openhsa::finalizer::hostVectorWidth()).Report;
  EXPECT_NE(Vector.find("&collatz: vectorized, " +
                        std::to_string(openhsa::finalizer::hostVectorWidth()) +
                        " work-items at once"),
            std::string::npos)
      << Vector;
  const char *Fbarrier = R"(
module &m:1:0:$full:$large:$default;
kernel &waits(kernarg_u64 %out)
{
	fbarrier %fb;
	initfbar	%fb;
	joinfbar	%fb;
	waitfbar	%fb;
	leavefbar	%fb;
	releasefbar	%fb;
	ret;
};
)";
  const std::string Waits =
      dumpFinalization(Fbarrier, openhsa::finalizer::hostVectorWidth()).Report;
  EXPECT_NE(Waits.find(
                "&waits: scalar work-item loops: work-items wait at fbarriers"),
            std::string::npos)
      << Waits;

  ScopedEnv Off("OPENHSA_VECTORIZE", "0");
  auto P = finalizeText(Collatz);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const auto *K = P->kernel("&collatz");
  ASSERT_NE(K, nullptr);
  EXPECT_EQ(K->VectorWidth, 1u);
  EXPECT_EQ(K->ScalarReason, "vectorization is off");
  const uint32_t N = 50;
  std::vector<uint32_t> Out(N, 0);
  OutN Args{Out.data(), N};
  Grid G;
  G.Size[0] = N;
  G.WorkGroup[0] = 16;
  runKernel(*P, "&collatz", G, &Args);
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(Out[I], collatzSteps(I + 1)) << I;
}

// Every width the vectorizer may pick (4 on SSE/NEON, 8 on AVX2, 16 on
// AVX-512) gives the same results on this host.
TEST(VectorizeTest, EveryWidthGivesTheSameResults) {
  if (runsOnGpu())
    GTEST_SKIP() << "widths of the CPU's work-item vectorizer";
  for (unsigned Width : {2u, 4u, 8u, 16u, 32u}) {
    auto P = finalizeText(Collatz, Width);
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    EXPECT_EQ(P->kernel("&collatz")->VectorWidth, Width);
    const uint32_t N = 333;
    std::vector<uint32_t> Out(N, 0);
    OutN Args{Out.data(), N};
    Grid G;
    G.Size[0] = N;
    G.WorkGroup[0] = 45;
    runKernel(*P, "&collatz", G, &Args);
    for (uint32_t I = 0; I < N; ++I)
      ASSERT_EQ(Out[I], collatzSteps(I + 1)) << "width " << Width << " " << I;
  }
}

// W is chosen per kernel: halved where most floating-point arithmetic is
// on f64, so that a wave of doubles fills one vector register.
TEST(VectorizeTest, WidthHalvesForDoubleKernels) {
  if (runsOnGpu())
    GTEST_SKIP() << "widths of the CPU's work-item vectorizer";
  if (!openhsa::finalizer::vectorizationEnabled())
    GTEST_SKIP() << "OPENHSA_VECTORIZE=0";
  const char *Poly = R"(
module &m:1:0:$full:$large:$default;
kernel &poly(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	cvt_f64_u32	$d0, $s0;
	mul_f64	$d1, $d0, $d0;
	mad_f64	$d1, $d1, 0D3fe0000000000000, $d0;
	add_f64	$d1, $d1, 0D3ff0000000000000;
	cvt_u64_u32	$d2, $s0;
	shl_u64	$d2, $d2, 3;
	ld_kernarg_align(8)_width(all)_u64	$d3, [%out];
	add_u64	$d3, $d3, $d2;
	st_global_f64	$d1, [$d3];
	ret;
};
)";
  auto P = finalizeText(Poly);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const unsigned Host = openhsa::finalizer::hostVectorWidth();
  EXPECT_EQ(P->kernel("&poly")->VectorWidth, Host > 2 ? Host / 2 : Host);
  const uint32_t N = 50;
  std::vector<double> Out(N, 0);
  struct {
    double *Out;
  } Args{Out.data()};
  Grid G;
  G.Size[0] = N;
  G.WorkGroup[0] = 25;
  runKernel(*P, "&poly", G, &Args);
  for (uint32_t X = 0; X < N; ++X)
    ASSERT_EQ(Out[X], std::fma(double(X) * X, 0.5, double(X)) + 1.0) << X;
  // A float kernel keeps the host's width.
  auto Q = finalizeText(Collatz);
  ASSERT_TRUE(bool(Q)) << llvm::toString(Q.takeError());
  EXPECT_EQ(Q->kernel("&collatz")->VectorWidth, Host);
}

// A loop that lanes leave at different iterations and that gathers (a
// lower-bound search in a sorted table) waits on memory: the finalizer's
// own choice of width is twice the host's, for twice the gathers in flight.
TEST(VectorizeTest, WidthQuadruplesForGathersInDivergentLoops) {
  if (runsOnGpu())
    GTEST_SKIP() << "widths of the CPU's work-item vectorizer";
  if (!openhsa::finalizer::vectorizationEnabled())
    GTEST_SKIP() << "OPENHSA_VECTORIZE=0";
  const char *Search = R"(
module &m:1:0:$full:$large:$default;
kernel &search(kernarg_u64 %table, kernarg_u64 %out, kernarg_u32 %size)
{
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(8)_width(all)_u64	$d2, [%table];
	mul_u32	$s2, $s0, 7;
	mov_b32	$s3, 0;
	ld_kernarg_align(4)_width(all)_u32	$s4, [%size];
@loop:
	cmp_ge_b1_u32	$c1, $s3, $s4;
	cbr_b1	$c1, @found;
	add_u32	$s5, $s3, $s4;
	shr_u32	$s5, $s5, 1;
	cvt_u64_u32	$d3, $s5;
	shl_u64	$d3, $d3, 2;
	add_u64	$d3, $d2, $d3;
	ld_global_u32	$s6, [$d3];
	cmp_lt_b1_u32	$c2, $s6, $s2;
	cbr_b1	$c2, @right;
	mov_b32	$s4, $s5;
	br	@loop;
@right:
	add_u32	$s3, $s5, 1;
	br	@loop;
@found:
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d4, [%out];
	add_u64	$d4, $d4, $d0;
	st_global_u32	$s3, [$d4];
	ret;
};
)";
  auto P = finalizeText(Search);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const unsigned Host = openhsa::finalizer::hostVectorWidth();
  EXPECT_EQ(P->kernel("&search")->VectorWidth, std::min(64u, Host * 4));
  std::vector<uint32_t> Table(1000);
  for (uint32_t I = 0; I < Table.size(); ++I)
    Table[I] = I * 5 + (I % 3);
  const uint32_t N = 300;
  std::vector<uint32_t> Out(N, ~0u);
  struct {
    const uint32_t *Table;
    uint32_t *Out;
    uint32_t Size;
  } Args{Table.data(), Out.data(), uint32_t(Table.size())};
  Grid G;
  G.Size[0] = N;
  G.WorkGroup[0] = 100;
  runKernel(*P, "&search", G, &Args);
  for (uint32_t X = 0; X < N; ++X)
    ASSERT_EQ(Out[X],
              uint32_t(std::lower_bound(Table.begin(), Table.end(), X * 7) -
                       Table.begin()))
        << X;
}

// Kernels whose work-items need no other work-item of their group may run
// a group in slices on different threads (abi/CpuDispatchContext.h):
// SliceStep is their width. Not kernels with a barrier, with group memory
// (work-items may share it without one, through atomics), or with
// cross-lane operations (HSAIL's wavefronts span the group's waves in
// flat order where rows are not whole waves).
TEST(VectorizeTest, OnlyKernelsOfIndependentWorkItemsRunInSlices) {
  if (runsOnGpu())
    GTEST_SKIP() << "slices of the CPU agent's work-groups";
  const char *Source = R"(
module &m:1:0:$full:$large:$default;
kernel &apart(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s0, [$d1];
	ret;
};
kernel &barriers(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	barrier;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	st_global_u32	$s0, [$d1];
	ret;
};
kernel &shares(kernarg_u64 %out)
{
	group_u32	%count;
	atomicnoret_add_group_rlx_wg_u32	[%count], 1;
	ret;
};
kernel &lanes(kernarg_u64 %out)
{
	activelanecount_u32_b1	$s0, 1;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	st_global_u32	$s0, [$d1];
	ret;
};
kernel &loops(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
@again:
	st_global_u32	$s0, [$d1];
	shr_u32	$s0, $s0, 1;
	cmp_ne_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @again;
	ret;
};
kernel &atomics(kernarg_u64 %out)
{
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	atomicnoret_add_global_rlx_system_u32	[$d1], 1;
	ret;
};
)";
  auto P = finalizeText(Source);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const auto *Apart = P->kernel("&apart");
  ASSERT_NE(Apart, nullptr);
  EXPECT_EQ(Apart->SliceStep, Apart->VectorWidth);
  EXPECT_NE(Apart->SliceStep, 0u);
  EXPECT_EQ(P->kernel("&barriers")->SliceStep, 0u);
  EXPECT_EQ(P->kernel("&shares")->SliceStep, 0u);
  // Runs of groups, row by row, where no work-item may wait for another
  // (an atomic) or loops over global memory (a loop's store).
  EXPECT_EQ(Apart->GroupRuns, Apart->VectorWidth > 1); // Whole waves.
  EXPECT_NE(P->kernel("&loops")->SliceStep, 0u);
  EXPECT_FALSE(P->kernel("&loops")->GroupRuns);
  EXPECT_NE(P->kernel("&atomics")->SliceStep, 0u);
  EXPECT_FALSE(P->kernel("&atomics")->GroupRuns);
  EXPECT_FALSE(P->kernel("&barriers")->GroupRuns);
  // Wavefronts of one work-item (OPENHSA_VECTORIZE=0) have no other lane.
  EXPECT_EQ(P->kernel("&lanes")->SliceStep,
            defaultWavefrontSize() > 1 ? 0u : 1u);
  // The step survives serialization.
  auto Back = openhsa::finalizer::CodeObject::deserialize(P->Code.serialize());
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->Kernels[0].SliceStep, Apart->SliceStep);
  EXPECT_EQ(Back->Kernels[0].GroupRuns, Apart->GroupRuns);
}

// A group run in slices, one wave (or work-item) at a time along each
// dimension in turn, or in a run of groups along X, runs each of its
// work-items once, with its ids: partial groups, rows that are not whole
// waves, 1-3 dimensions (KernelRunner runs groups all three ways).
TEST(VectorizeTest, SlicesAndRunsRunEveryWorkItemOnce) {
  const char *Source = R"(
module &m:1:0:$full:$large:$default;
kernel &ids(kernarg_u64 %count, kernarg_u64 %local, kernarg_u64 %group)
{
	workitemflatabsid_u32	$s0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%count];
	add_u64	$d1, $d1, $d0;
	ld_global_u32	$s5, [$d1];
	add_u32	$s5, $s5, 1;
	st_global_u32	$s5, [$d1];
	workitemid_u32	$s1, 0;
	workitemid_u32	$s2, 1;
	workitemid_u32	$s3, 2;
	shl_u32	$s2, $s2, 8;
	shl_u32	$s3, $s3, 16;
	or_b32	$s1, $s1, $s2;
	or_b32	$s1, $s1, $s3;
	ld_kernarg_align(8)_width(all)_u64	$d2, [%local];
	add_u64	$d2, $d2, $d0;
	st_global_u32	$s1, [$d2];
	workgroupid_u32	$s1, 0;
	workgroupid_u32	$s2, 1;
	workgroupid_u32	$s3, 2;
	shl_u32	$s2, $s2, 8;
	shl_u32	$s3, $s3, 16;
	or_b32	$s1, $s1, $s2;
	or_b32	$s1, $s1, $s3;
	ld_kernarg_align(8)_width(all)_u64	$d3, [%group];
	add_u64	$d3, $d3, $d0;
	st_global_u32	$s1, [$d3];
	ret;
};
)";
  auto P = finalizeText(Source);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  if (!runsOnGpu()) {
    ASSERT_NE(P->kernel("&ids")->SliceStep, 0u);
    ASSERT_EQ(P->kernel("&ids")->GroupRuns, P->kernel("&ids")->VectorWidth > 1);
  }
  struct Shape {
    uint32_t Dims, Size[3], WorkGroup[3];
  };
  for (const Shape &S :
       {Shape{1, {1000, 1, 1}, {256, 1, 1}}, Shape{1, {37, 1, 1}, {40, 1, 1}},
        Shape{2, {37, 9, 1}, {20, 4, 1}}, Shape{3, {37, 5, 3}, {16, 4, 2}},
        Shape{3, {5, 3, 50}, {3, 2, 7}}, Shape{2, {100, 7, 1}, {8, 3, 1}},
        Shape{2, {100, 5, 1}, {16, 2, 1}}}) {
    SCOPED_TRACE(std::to_string(S.Size[0]) + "x" + std::to_string(S.Size[1]) +
                 "x" + std::to_string(S.Size[2]));
    Grid G;
    G.Dims = S.Dims;
    for (unsigned D = 0; D < 3; ++D) {
      G.Size[D] = S.Size[D];
      G.WorkGroup[D] = S.WorkGroup[D];
    }
    const size_t N = size_t(S.Size[0]) * S.Size[1] * S.Size[2];
    std::vector<uint32_t> Count(N, 0), Local(N, ~0u), Group(N, ~0u);
    void *Args[3] = {Count.data(), Local.data(), Group.data()};
    runKernel(*P, "&ids", G, Args);
    for (uint32_t Z = 0; Z < S.Size[2]; ++Z)
      for (uint32_t Y = 0; Y < S.Size[1]; ++Y)
        for (uint32_t X = 0; X < S.Size[0]; ++X) {
          const size_t I = X + S.Size[0] * (Y + size_t(S.Size[1]) * Z);
          const uint32_t Id[3] = {X, Y, Z};
          uint32_t WantLocal = 0, WantGroup = 0;
          for (unsigned D = 0; D < 3; ++D) {
            WantLocal |= Id[D] % S.WorkGroup[D] << (8 * D);
            WantGroup |= Id[D] / S.WorkGroup[D] << (8 * D);
          }
          ASSERT_EQ(Count[I], 1u) << X << "," << Y << "," << Z;
          ASSERT_EQ(Local[I], WantLocal) << X << "," << Y << "," << Z;
          ASSERT_EQ(Group[I], WantGroup) << X << "," << Y << "," << Z;
        }
  }
}

// A kernel that reads its X ids only as absolute ids (a 5-point
// stencil's) runs a run of groups as one row, one loop over its waves (no
// loop over the run's groups left in its work-group function); one that
// reads a local X id keeps a loop per group. Both give every work-item its
// ids, in whole and partial groups, in runs and alone (runKernel).
TEST(VectorizeTest, RunsOfGroupsOfAbsoluteIdsRunAsOneRow) {
  const char *Absolute = R"(
module &m:1:0:$full:$large:$default;
kernel &absolute(kernarg_u64 %out, kernarg_u32 %width)
{
	workitemabsid_u32	$s0, 0;
	workitemabsid_u64	$d5, 1;
	cvt_u32_u64	$s1, $d5;
	ld_kernarg_align(4)_width(all)_u32	$s2, [%width];
	mad_u32	$s3, $s1, $s2, $s0;
	cvt_u64_u32	$d0, $s3;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	mad_u32	$s4, $s1, 1000, $s0;
	st_global_u32	$s4, [$d1];
	ret;
};
)";
  const char *Local = R"(
module &m:1:0:$full:$large:$default;
kernel &local(kernarg_u64 %out, kernarg_u32 %width)
{
	workitemabsid_u32	$s0, 0;
	workitemabsid_u32	$s1, 1;
	ld_kernarg_align(4)_width(all)_u32	$s2, [%width];
	mad_u32	$s3, $s1, $s2, $s0;
	cvt_u64_u32	$d0, $s3;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	workitemid_u32	$s5, 0;
	mad_u32	$s4, $s1, 1000, $s5;
	st_global_u32	$s4, [$d1];
	ret;
};
)";
  if (!runsOnGpu()) {
    const unsigned W = openhsa::finalizer::hostVectorWidth();
    EXPECT_EQ(optimizedIr(Absolute, W).find("run.body"), std::string::npos)
        << "a kernel of absolute ids loops over the groups of a run";
    EXPECT_NE(optimizedIr(Local, W).find("run.body"), std::string::npos)
        << "a kernel that reads local ids runs a run as one row";
  }
  struct Shape {
    uint32_t Size[2], WorkGroup[2];
  };
  for (auto [Source, Name, Absolutes] :
       {std::tuple{Absolute, "&absolute", true},
        std::tuple{Local, "&local", false}}) {
    auto Ps = bothWays(Source, Name);
    ASSERT_EQ(Ps.size(), 2u);
    for (const Shape &S : {Shape{{256, 3}, {16, 2}}, Shape{{100, 5}, {16, 4}},
                           Shape{{70, 2}, {24, 1}}, Shape{{37, 3}, {5, 2}}})
      for (const auto &P : Ps) {
        SCOPED_TRACE(std::string(Name) + " " + std::to_string(S.Size[0]) + "x" +
                     std::to_string(S.Size[1]));
        Grid G;
        G.Dims = 2;
        for (unsigned D = 0; D < 2; ++D) {
          G.Size[D] = S.Size[D];
          G.WorkGroup[D] = S.WorkGroup[D];
        }
        std::vector<uint32_t> Out(S.Size[0] * S.Size[1], ~0u);
        struct {
          uint32_t *Out;
          uint32_t Width;
        } Args{Out.data(), S.Size[0]};
        runKernel(P, Name, G, &Args);
        for (uint32_t Y = 0; Y < S.Size[1]; ++Y)
          for (uint32_t X = 0; X < S.Size[0]; ++X)
            ASSERT_EQ(Out[Y * S.Size[0] + X],
                      Y * 1000 + (Absolutes ? X : X % S.WorkGroup[0]))
                << X << "," << Y;
      }
  }
}

// Work-items whose loops stay in their own memory (registers, private
// segment, kernargs) run runs of groups, row by row, as straight-line ones
// do: the median filter's sort of its private array in 16x16 groups read
// 18 rows of 16 elements a group, which no prefetcher follows (EPYC: 16.7
// against 12.0 ms in runs). Not work-items whose loops reach global
// memory, themselves or in what they call: a naive sgemm's work-item walks
// a column of B that its group's rows share. Nor work-items with loops
// that read no global memory at all (mandelbrot's): nothing to stream,
// and a run's long wave loop is a second copy to compile (UniformConditions
// versions it). Kernels in runs give every
// work-item its result, in whole and partial groups (runKernel runs some
// groups in runs, some alone).
TEST(VectorizeTest, LoopsInWorkItemMemoryRunRowsAcrossGroups) {
  const char *Sort = R"(
module &m:1:0:$full:$large:$default;
kernel &sort(kernarg_u64 %in, kernarg_u64 %out, kernarg_u32 %width)
{
	private_u32 %p[4];
	workitemabsid_u32	$s0, 0;
	workitemabsid_u32	$s1, 1;
	ld_kernarg_align(4)_width(all)_u32	$s2, [%width];
	mad_u32	$s3, $s1, $s2, $s0;
	cvt_u64_u32	$d0, $s3;
	shl_u64	$d1, $d0, 4;
	ld_kernarg_align(8)_width(all)_u64	$d2, [%in];
	add_u64	$d2, $d2, $d1;
	ld_global_u32	$s4, [$d2];
	st_private_u32	$s4, [%p];
	ld_global_u32	$s4, [$d2+4];
	st_private_u32	$s4, [%p][4];
	ld_global_u32	$s4, [$d2+8];
	st_private_u32	$s4, [%p][8];
	ld_global_u32	$s4, [$d2+12];
	st_private_u32	$s4, [%p][12];
	mov_b32	$s5, 0;
@pass:
	mov_b32	$s6, 0;
@exchange:
	shl_u32	$s8, $s6, 2;
	ld_private_u32	$s9, [%p][$s8];
	ld_private_u32	$s10, [%p][$s8+4];
	min_u32	$s11, $s9, $s10;
	max_u32	$s12, $s9, $s10;
	st_private_u32	$s11, [%p][$s8];
	st_private_u32	$s12, [%p][$s8+4];
	add_u32	$s6, $s6, 1;
	cmp_lt_b1_u32	$c0, $s6, 3;
	cbr_b1	$c0, @exchange;
	add_u32	$s5, $s5, 1;
	cmp_lt_b1_u32	$c0, $s5, 3;
	cbr_b1	$c0, @pass;
	ld_private_u32	$s4, [%p][4];
	shl_u64	$d3, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d4, [%out];
	add_u64	$d4, $d4, $d3;
	st_global_u32	$s4, [$d4];
	ret;
};
)";
  const char *Sweeps = R"(
module &m:1:0:$full:$large:$default;
function &get(arg_u32 %r)(arg_u64 %a)
{
	ld_arg_u64	$d0, [%a];
	ld_global_u32	$s0, [$d0];
	st_arg_u32	$s0, [%r];
	ret;
};
kernel &sweep(kernarg_u64 %in, kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d1, $d0, 4;
	ld_kernarg_align(8)_width(all)_u64	$d2, [%in];
	add_u64	$d2, $d2, $d1;
	mov_b32	$s1, 0;
	mov_b32	$s2, 0;
@next:
	ld_global_u32	$s3, [$d2];
	add_u32	$s2, $s2, $s3;
	add_u64	$d2, $d2, 4;
	add_u32	$s1, $s1, 1;
	cmp_lt_b1_u32	$c0, $s1, 4;
	cbr_b1	$c0, @next;
	shl_u64	$d3, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d4, [%out];
	add_u64	$d4, $d4, $d3;
	st_global_u32	$s2, [$d4];
	ret;
};
kernel &compute(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	mov_b32	$s2, 0;
@next:
	add_u32	$s2, $s2, $s0;
	shr_u32	$s0, $s0, 1;
	cmp_ne_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @next;
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d3, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d4, [%out];
	add_u64	$d4, $d4, $d3;
	st_global_u32	$s2, [$d4];
	ret;
};
kernel &calls(kernarg_u64 %in, kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d1, $d0, 4;
	ld_kernarg_align(8)_width(all)_u64	$d2, [%in];
	add_u64	$d2, $d2, $d1;
	mov_b32	$s1, 0;
	mov_b32	$s2, 0;
@next:
	{
		arg_u32 %r;
		arg_u64 %a;
		st_arg_u64	$d2, [%a];
		call	&get (%r) (%a);
		ld_arg_u32	$s3, [%r];
	}
	add_u32	$s2, $s2, $s3;
	add_u64	$d2, $d2, 4;
	add_u32	$s1, $s1, 1;
	cmp_lt_b1_u32	$c0, $s1, 4;
	cbr_b1	$c0, @next;
	shl_u64	$d3, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d4, [%out];
	add_u64	$d4, $d4, $d3;
	st_global_u32	$s2, [$d4];
	ret;
};
)";
  auto Ps = bothWays(Sort, "&sort");
  ASSERT_EQ(Ps.size(), 2u);
  if (!runsOnGpu()) {
    const auto *K = Ps[0].kernel("&sort");
    EXPECT_EQ(K->GroupRuns, K->VectorWidth > 1);
    auto P = finalizeText(Sweeps);
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    for (const char *Name : {"&sweep", "&calls", "&compute"}) {
      SCOPED_TRACE(Name);
      ASSERT_NE(P->kernel(Name), nullptr);
      EXPECT_NE(P->kernel(Name)->SliceStep, 0u);
      EXPECT_FALSE(P->kernel(Name)->GroupRuns);
    }
  }
  struct Shape {
    uint32_t Size[2], WorkGroup[2];
  };
  for (const Shape &S : {Shape{{256, 3}, {16, 2}}, Shape{{100, 5}, {16, 4}},
                         Shape{{70, 2}, {24, 1}}, Shape{{37, 3}, {5, 2}}})
    for (const auto &P : Ps) {
      SCOPED_TRACE(std::to_string(S.Size[0]) + "x" + std::to_string(S.Size[1]));
      Grid G;
      G.Dims = 2;
      for (unsigned D = 0; D < 2; ++D) {
        G.Size[D] = S.Size[D];
        G.WorkGroup[D] = S.WorkGroup[D];
      }
      const size_t N = size_t(S.Size[0]) * S.Size[1];
      std::vector<uint32_t> In(4 * N), Out(N, ~0u);
      for (size_t I = 0; I < In.size(); ++I)
        In[I] = uint32_t((I * 2654435761u) >> 7) % 1000;
      struct {
        const uint32_t *In;
        uint32_t *Out;
        uint32_t Width;
      } Args{In.data(), Out.data(), S.Size[0]};
      runKernel(P, "&sort", G, &Args);
      for (size_t I = 0; I < N; ++I) {
        std::array<uint32_t, 4> V{In[4 * I], In[4 * I + 1], In[4 * I + 2],
                                  In[4 * I + 3]};
        std::sort(V.begin(), V.end());
        ASSERT_EQ(Out[I], V[1]) << I;
      }
    }
}

// A run of groups along X runs row by row: row 0 of every group of the
// run, then row 1 (abi/CpuDispatchContext.h RunGroups).
TEST(VectorizeTest, RunsOfGroupsGoRowByRow) {
  if (runsOnGpu())
    GTEST_SKIP() << "runs of the CPU agent's work-groups";
  const char *Source = R"(
module &m:1:0:$full:$large:$default;
kernel &order(kernarg_u64 %counter, kernarg_u64 %out)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%counter];
	ld_global_u32	$s1, [$d0];
	add_u32	$s2, $s1, 1;
	st_global_u32	$s2, [$d0];
	workitemflatabsid_u32	$s3;
	cvt_u64_u32	$d2, $s3;
	shl_u64	$d2, $d2, 2;
	ld_kernarg_align(8)_width(all)_u64	$d3, [%out];
	add_u64	$d3, $d3, $d2;
	st_global_u32	$s1, [$d3];
	ret;
};
)";
  const unsigned W = openhsa::finalizer::hostVectorWidth();
  auto P = finalizeText(Source, W);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const auto *K = P->kernel("&order");
  ASSERT_NE(K, nullptr);
  ASSERT_TRUE(K->GroupRuns);
  auto Entry = P->Loaded->address(K->EntrySymbol);
  ASSERT_TRUE(bool(Entry)) << llvm::toString(Entry.takeError());
  auto Fn = reinterpret_cast<hsa_ext_openhsa_workgroup_fn_t>(*Entry);
  // Three groups of a wave by 2 rows along X.
  const uint32_t Width = 3 * W, Height = 2;
  openhsa::abi::CpuDispatchContext C{};
  hsa_kernel_dispatch_packet_t Packet{};
  C.Public.packet = &Packet;
  C.Public.dimensions = 2;
  const uint32_t Grid[3] = {Width, Height, 1}, Wg[3] = {W, 2, 1};
  for (unsigned D = 0; D < 3; ++D) {
    C.Public.grid_size[D] = Grid[D];
    C.Public.workgroup_size[D] = Wg[D];
    C.Public.grid_groups[D] = (Grid[D] + Wg[D] - 1) / Wg[D];
  }
  C.Public.private_segment_size = K->PrivateSegmentSize;
  std::vector<uint8_t> Private(size_t(K->PrivateSegmentSize) * 2 * W + 64);
  C.Public.private_base = Private.data();
  uint32_t Counter = 0;
  std::vector<uint32_t> Out(Width * Height, ~0u);
  void *Args[2] = {&Counter, Out.data()};
  runWorkGroupRun(Fn, Args, C, 0, 0, 0, 3);
  // A group's row is a wave: one number each, row 0 of the three groups
  // first.
  for (uint32_t Y = 0; Y < Height; ++Y)
    for (uint32_t X = 0; X < Width; ++X)
      EXPECT_EQ(Out[Y * Width + X], Y * 3 + X / W) << X << "," << Y;
}

} // namespace
