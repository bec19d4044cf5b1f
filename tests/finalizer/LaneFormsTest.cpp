//===- tests/finalizer/LaneFormsTest.cpp - More forms at W lanes ----------===//
//
// Forms of HSAIL the work-item vectorizer must run W work-items at once
// that VectorizeTest does not reach: a switch branch (sbr) whose index
// varies across lanes inside a divergent loop, a recursive function left a
// call in a divergent branch (run lane by lane), and spill segment arrays
// of every lane. Each kernel is finalized both ways (bothWays: vectorized
// at the host's width, and scalar) and checked against the host.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

#include <vector>

using namespace openhsa::test;

namespace {

// PRM 8.2 sbr with an index that differs from lane to lane, in a loop
// that lanes leave at different iterations; index 4 is past the list and
// falls through.
const char *Switches = R"(
module &m:1:0:$full:$large:$default;
kernel &switches(kernarg_u64 %out, kernarg_u32 %n)
{
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(4)_width(all)_u32	$s1, [%n];
	cmp_ge_b1_u32	$c0, $s0, $s1;
	cbr_b1	$c0, @end;
	mov_b32	$s2, 0;
	mov_b32	$s3, 0;
	rem_u32	$s4, $s0, 7;
@loop:
	cmp_ge_b1_u32	$c1, $s3, $s4;
	cbr_b1	$c1, @store;
	add_u32	$s5, $s0, $s3;
	rem_u32	$s5, $s5, 5;
	sbr_u32	$s5 [@one, @triple, @flip, @one];
	add_u32	$s2, $s2, 1000;
	br	@next;
@one:
	add_u32	$s2, $s2, 1;
	br	@next;
@triple:
	mul_u32	$s2, $s2, 3;
	br	@next;
@flip:
	xor_b32	$s2, $s2, 0x55;
@next:
	add_u32	$s3, $s3, 1;
	br	@loop;
@store:
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s2, [$d1];
@end:
	ret;
};
)";

uint32_t switches(uint32_t X) {
  uint32_t Acc = 0;
  for (uint32_t I = 0; I < X % 7; ++I)
    switch ((X + I) % 5) {
    case 0:
    case 3:
      Acc += 1;
      break;
    case 1:
      Acc *= 3;
      break;
    case 2:
      Acc ^= 0x55;
      break;
    default:
      Acc += 1000;
    }
  return Acc;
}

struct OutN {
  uint32_t *Out;
  uint32_t N;
};

TEST(LaneFormsTest, SwitchBranchesDivergeInALoop) {
  auto Ps = bothWays(Switches, "&switches");
  ASSERT_EQ(Ps.size(), 2u);
  for (const auto &P : Ps)
    for (uint32_t Group : {1u, 13u, 64u}) {
      const uint32_t N = 301;
      std::vector<uint32_t> Out(N + 3, 0xdeadbeef);
      OutN Args{Out.data(), N};
      Grid G;
      G.Size[0] = N + 3; // Past n: the bounds check ends those lanes.
      G.WorkGroup[0] = Group;
      runKernel(P, "&switches", G, &Args);
      for (uint32_t X = 0; X < N; ++X)
        ASSERT_EQ(Out[X], switches(X))
            << "work-item " << X << ", group " << Group;
      for (uint32_t X = N; X < N + 3; ++X)
        ASSERT_EQ(Out[X], 0xdeadbeefu) << "work-item " << X;
    }
}

// A recursive function cannot be inlined: the vectorizer leaves it a call,
// run once for each active lane with that lane's arguments (lanes whose
// id is a multiple of 3 skip it).
const char *RecursiveInBranch = R"(
module &m:1:0:$full:$large:$default;
function &sumto(arg_u32 %r)(arg_u32 %k)
{
	ld_arg_u32	$s0, [%k];
	mov_b32	$s1, 0;
	cmp_eq_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @done;
	sub_u32	$s2, $s0, 1;
	{
		arg_u32 %rr;
		arg_u32 %kk;
		st_arg_u32	$s2, [%kk];
		call	&sumto (%rr) (%kk);
		ld_arg_u32	$s1, [%rr];
	}
	add_u32	$s1, $s1, $s0;
@done:
	st_arg_u32	$s1, [%r];
	ret;
};

kernel &lanecalls(kernarg_u64 %out, kernarg_u32 %n)
{
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(4)_width(all)_u32	$s1, [%n];
	cmp_ge_b1_u32	$c0, $s0, $s1;
	cbr_b1	$c0, @end;
	mov_b32	$s2, 0xffffffff;
	rem_u32	$s3, $s0, 3;
	cmp_eq_b1_u32	$c1, $s3, 0;
	cbr_b1	$c1, @store;
	rem_u32	$s4, $s0, 11;
	{
		arg_u32 %r;
		arg_u32 %k;
		st_arg_u32	$s4, [%k];
		call	&sumto (%r) (%k);
		ld_arg_u32	$s2, [%r];
	}
@store:
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s2, [$d1];
@end:
	ret;
};
)";

TEST(LaneFormsTest, RecursiveCallsInADivergentBranchRunPerActiveLane) {
  auto Ps = bothWays(RecursiveInBranch, "&lanecalls");
  ASSERT_EQ(Ps.size(), 2u);
  for (const auto &P : Ps) {
    const uint32_t N = 100;
    std::vector<uint32_t> Out(N, 0);
    OutN Args{Out.data(), N};
    Grid G;
    G.Size[0] = N;
    G.WorkGroup[0] = 24;
    runKernel(P, "&lanecalls", G, &Args);
    for (uint32_t X = 0; X < N; ++X) {
      const uint32_t K = X % 11;
      ASSERT_EQ(Out[X], X % 3 == 0 ? 0xffffffffu : K * (K + 1) / 2)
          << "work-item " << X;
    }
  }
}

// PRM 4.3 spill segment: an array of each work-item's own, written in a
// loop and read at an index that varies across lanes.
const char *Spills = R"(
module &m:1:0:$full:$large:$default;
kernel &spills(kernarg_u64 %out)
{
	spill_u32 %sp[4];
	workitemabsid_u32	$s0, 0;
	mov_b32	$s1, 0;
@fill:
	mad_u32	$s2, $s0, 10, $s1;
	shl_u32	$s3, $s1, 2;
	st_spill_u32	$s2, [%sp][$s3];
	add_u32	$s1, $s1, 1;
	cmp_lt_b1_u32	$c0, $s1, 4;
	cbr_b1	$c0, @fill;
	and_b32	$s4, $s0, 3;
	shl_u32	$s4, $s4, 2;
	ld_spill_u32	$s5, [%sp][$s4];
	ld_spill_u32	$s6, [%sp][12];
	add_u32	$s5, $s5, $s6;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s5, [$d1];
	ret;
};
)";

TEST(LaneFormsTest, SpillArraysPerLane) {
  auto Ps = bothWays(Spills, "&spills");
  ASSERT_EQ(Ps.size(), 2u);
  for (const auto &P : Ps) {
    const uint32_t N = 75;
    std::vector<uint32_t> Out(N, 0);
    uint32_t *Ptr = Out.data();
    Grid G;
    G.Size[0] = N;
    G.WorkGroup[0] = 20;
    runKernel(P, "&spills", G, &Ptr);
    for (uint32_t X = 0; X < N; ++X)
      ASSERT_EQ(Out[X], 20 * X + (X & 3) + 3) << "work-item " << X;
  }
}

} // namespace
