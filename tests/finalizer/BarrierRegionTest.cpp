//===- tests/finalizer/BarrierRegionTest.cpp - Regions between barriers ---===//
//
// How the CPU target runs the regions of a kernel with barriers, vectorized
// (finalizer/CpuTarget.cpp, finalizer/WorkItemVectorizer.h): a copy of the
// body per region, registers the group's waves share kept once for the
// group, and the later waves of a row left out of a region where they would
// do nothing (`if (lx < s)` after a wave past s). Each kernel is checked
// against a host computation, vectorized and scalar, over group shapes and
// bounds where a wrong skip or a wrongly shared register would show.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

#include "finalizer/WorkItemVectorizer.h"

#include <cstdlib>
#include <string>

using namespace openhsa::test;

namespace {

// Between barriers, ifs of every kind a wave may skip: entered below a
// bound (later waves skip too), at one X id (later waves skip once past
// it, earlier ones may not: the id may lie in a later wave), at or above a
// bound (later waves enter), below a bound that differs between rows, and
// an if with nothing inside followed by a store every wave makes. Each
// region computes its element's address again, so that no register but
// the bound lives across a barrier: nothing else keeps a wave busy.
std::string guardsKernel() {
  const std::string Address = R"(
	workitemid_u32	$s0, 0;
	workitemid_u32	$s1, 1;
	workitemabsid_u32	$s2, 0;
	workitemabsid_u32	$s7, 1;
	gridsize_u32	$s8, 0;
	mad_u32	$s2, $s7, $s8, $s2;
	cvt_u64_u32	$d0, $s2;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;)";
  auto Add = [](int N) {
    return R"(
	ld_global_u32	$s4, [$d1];
	add_u32	$s4, $s4, )" +
           std::to_string(N) + R"(;
	st_global_u32	$s4, [$d1];)";
  };
  return R"(
module &m:1:0:$full:$large:$default;
kernel &guards(kernarg_u64 %out, kernarg_u32 %k)
{
	ld_kernarg_align(4)_width(all)_u32	$s3, [%k];
	barrier;)" +
         Address + R"(
	cmp_ge_b1_u32	$c0, $s0, $s3;
	cbr_b1	$c0, @below;)" +
         Add(1) + R"(
@below:
	barrier;)" +
         Address + R"(
	cmp_ne_b1_u32	$c0, $s0, $s3;
	cbr_b1	$c0, @equal;)" +
         Add(2) + R"(
@equal:
	barrier;)" +
         Address + R"(
	cmp_lt_b1_u32	$c0, $s0, $s3;
	cbr_b1	$c0, @above;)" +
         Add(4) + R"(
@above:
	barrier;)" +
         Address + R"(
	mul_u32	$s5, $s1, 8;
	cmp_ge_b1_u32	$c0, $s0, $s5;
	cbr_b1	$c0, @rows;)" +
         Add(8) + R"(
@rows:
	barrier;)" +
         Address + R"(
	cmp_ge_b1_u32	$c0, $s0, $s3;
	cbr_b1	$c0, @after;
	add_u32	$s6, $s0, 3;
@after:)" +
         Add(16) + R"(
	ret;
};
)";
}

TEST(BarrierRegionTest, WavesSkipOnlyWhatNoLaterWaveWouldDo) {
  auto Ps = bothWays(guardsKernel(), "&guards");
  ASSERT_EQ(Ps.size(), 2u);
  struct Shape {
    uint32_t GroupX, GroupY, SizeX, SizeY;
  };
  for (Shape S : {Shape{64, 2, 128, 4}, Shape{48, 3, 100, 5},
                  Shape{16, 4, 40, 8}, Shape{7, 2, 20, 3}})
    for (uint32_t K : {0u, 5u, 16u, 20u, 40u, 47u, 63u, 64u, 1000u}) {
      for (const auto &P : Ps) {
        std::vector<uint32_t> Out(S.SizeX * S.SizeY, 0);
        struct {
          uint32_t *Out;
          uint32_t K;
        } Args{Out.data(), K};
        Grid G;
        G.Dims = 2;
        G.Size[0] = S.SizeX;
        G.Size[1] = S.SizeY;
        G.WorkGroup[0] = S.GroupX;
        G.WorkGroup[1] = S.GroupY;
        runKernel(P, "&guards", G, &Args);
        for (uint32_t Y = 0; Y < S.SizeY; ++Y)
          for (uint32_t X = 0; X < S.SizeX; ++X) {
            const uint32_t Lx = X % S.GroupX, Ly = Y % S.GroupY;
            const uint32_t Want = (Lx < K ? 1 : 0) + (Lx == K ? 2 : 0) +
                                  (Lx >= K ? 4 : 0) + (Lx < Ly * 8 ? 8 : 0) +
                                  16;
            ASSERT_EQ(Out[X + S.SizeX * Y], Want)
                << "(" << X << "," << Y << ") k " << K << ", groups "
                << S.GroupX << "x" << S.GroupY;
          }
      }
    }
}

// Registers across barriers that the group's waves may share and that they
// may not: a value of the kernarg changed in each region (each region must
// read the value of the region before, not one a wave before it in the
// same region wrote), one of the row's Y id (the same within a wave, not
// within the group), and a bound for an if that the group shares.
const char *Shared = R"(
module &m:1:0:$full:$large:$default;
kernel &shared(kernarg_u64 %out, kernarg_u32 %c, kernarg_u32 %rounds)
{
	workitemid_u32	$s0, 0;
	workitemid_u32	$s1, 1;
	workitemflatabsid_u32	$s2;
	ld_kernarg_align(4)_width(all)_u32	$s6, [%c];
	ld_kernarg_align(4)_width(all)_u32	$s7, [%rounds];
	mul_u32	$s5, $s1, 3;
	add_u32	$s5, $s5, 1;
	mov_b32	$s8, 0;
	mov_b32	$s9, 0;
@round:
	barrier;
	mad_u32	$s6, $s6, 2, 1;
	add_u32	$s5, $s5, $s6;
	cmp_ge_b1_u32	$c0, $s0, $s6;
	cbr_b1	$c0, @next;
	add_u32	$s9, $s9, 1;
@next:
	barrier;
	add_u32	$s8, $s8, 1;
	cmp_lt_b1_u32	$c1, $s8, $s7;
	cbr_b1	$c1, @round;
	cvt_u64_u32	$d0, $s2;
	shl_u64	$d0, $d0, 3;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s5, [$d1];
	st_global_u32	$s9, [$d1+4];
	ret;
};
)";

void checkShared(const std::vector<FinalizedProgram> &Ps) {
  for (uint32_t C : {0u, 3u, 10u})
    for (uint32_t Rounds : {1u, 4u}) {
      for (const auto &P : Ps) {
        const uint32_t SizeX = 70, SizeY = 6;
        std::vector<uint32_t> Out(2 * SizeX * SizeY, 0);
        struct {
          uint32_t *Out;
          uint32_t C, Rounds;
        } Args{Out.data(), C, Rounds};
        Grid G;
        G.Dims = 2;
        G.Size[0] = SizeX;
        G.Size[1] = SizeY;
        G.WorkGroup[0] = 35;
        G.WorkGroup[1] = 3;
        runKernel(P, "&shared", G, &Args);
        for (uint32_t Y = 0; Y < SizeY; ++Y)
          for (uint32_t X = 0; X < SizeX; ++X) {
            const uint32_t Lx = X % 35, Ly = Y % 3;
            uint32_t V = C, Sum = Ly * 3 + 1, Below = 0;
            for (uint32_t R = 0; R < Rounds; ++R) {
              V = V * 2 + 1;
              Sum += V;
              Below += Lx < V;
            }
            const uint32_t At = 2 * (X + SizeX * Y);
            ASSERT_EQ(Out[At], Sum) << "(" << X << "," << Y << ") c " << C;
            ASSERT_EQ(Out[At + 1], Below)
                << "(" << X << "," << Y << ") c " << C;
          }
      }
    }
}

TEST(BarrierRegionTest, RegistersTheGroupSharesAndThoseItDoesNot) {
  auto Ps = bothWays(Shared, "&shared");
  ASSERT_EQ(Ps.size(), 2u);
  checkShared(Ps);
}

// Without the register promotion every register is loaded and stored at
// each use, so a region may read a register after writing it: such a
// register is not the group's, and the results are the same.
TEST(BarrierRegionTest, RegistersReadAfterWrittenInARegionStayTheWaves) {
  setenv("OPENHSA_PROMOTE_REGISTERS", "0", 1);
  auto Ps = bothWays(Shared, "&shared");
  unsetenv("OPENHSA_PROMOTE_REGISTERS");
  ASSERT_EQ(Ps.size(), 2u);
  checkShared(Ps);
}

// Past 15 barriers one copy of the body serves every region, dispatching
// on the region at each wave; results are the same.
TEST(BarrierRegionTest, ManyBarriersShareOneCopyOfTheBody) {
  std::string Src = R"(
module &m:1:0:$full:$large:$default;
kernel &many(kernarg_u64 %out)
{
	group_u32 %g[64];
	workitemid_u32	$s0, 0;
	workitemabsid_u32	$s1, 0;
	shl_u32	$s2, $s0, 2;
	st_group_u32	$s0, [%g][$s2];
)";
  // Each step adds the neighbour's value, between barriers.
  for (int Step = 0; Step < 20; ++Step)
    Src += R"(
	barrier;
	add_u32	$s3, $s0, 1;
	currentworkgroupsize_u32	$s4, 0;
	rem_u32	$s3, $s3, $s4;
	shl_u32	$s3, $s3, 2;
	ld_group_u32	$s5, [%g][$s3];
	ld_group_u32	$s6, [%g][$s2];
	barrier;
	add_u32	$s6, $s6, $s5;
	st_group_u32	$s6, [%g][$s2];)";
  Src += R"(
	barrier;
	ld_group_u32	$s6, [%g][$s2];
	cvt_u64_u32	$d0, $s1;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s6, [$d1];
	ret;
};
)";
  auto Ps = bothWays(Src, "&many");
  ASSERT_EQ(Ps.size(), 2u);
  for (uint32_t Group : {64u, 40u, 9u}) {
    const uint32_t N = Group * 3 - 2;
    std::vector<uint32_t> Want(N);
    for (uint32_t Start = 0; Start < N; Start += Group) {
      const uint32_t Size = std::min(Group, N - Start);
      std::vector<uint32_t> V(Size);
      for (uint32_t L = 0; L < Size; ++L)
        V[L] = L;
      for (int Step = 0; Step < 20; ++Step) {
        std::vector<uint32_t> Old = V;
        for (uint32_t L = 0; L < Size; ++L)
          V[L] = Old[L] + Old[(L + 1) % Size];
      }
      for (uint32_t L = 0; L < Size; ++L)
        Want[Start + L] = V[L];
    }
    for (const auto &P : Ps) {
      std::vector<uint32_t> Out(N, 0);
      struct {
        uint32_t *Out;
      } Args{Out.data()};
      Grid G;
      G.Size[0] = N;
      G.WorkGroup[0] = Group;
      runKernel(P, "&many", G, &Args);
      for (uint32_t I = 0; I < N; ++I)
        ASSERT_EQ(Out[I], Want[I]) << "item " << I << ", group " << Group;
    }
  }
}

} // namespace
