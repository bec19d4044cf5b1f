//===- tests/finalizer/FbarrierTest.cpp - Fine-grain barriers -------------===//
//
// PRM 9.2-9.3 on the CPU agent: the PRM's three fbarrier examples (divergent
// members through leavefbar, a subset through joinfbar, producer and
// consumers with arrivefbar), fbarriers named and in registers (ldf), waits
// in called functions, and what the finalizer refuses. The examples' memory
// fences are left out: the work-items of a group run on one thread, and
// these tests do not depend on how memfence is lowered.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

using namespace openhsa::test;

namespace {

const char *LeaveDivergent = R"(
module &m:1:0:$full:$large:$default;

// PRM 9.2.5 example 1: leavefbar leaves an fbarrier with only the
// work-items of a divergent path (odd ones), which exchange values.
kernel &k(kernarg_u64 %out)
{
	fbarrier %fb;
	group_u32 %vals[64];
	workitemflatid_u32	$s0;
	workitemabsid_u32	$s9, 0;
	cvt_u64_u32	$d0, $s9;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	cmp_ne_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @joined;
	initfbar	%fb;
@joined:
	barrier;
	joinfbar	%fb;
	barrier;
	and_b32	$s1, $s0, 1;
	cmp_eq_b1_u32	$c1, $s1, 0;
	cbr_b1	$c1, @leave;
	mul_u32	$s2, $s9, 10;
	shl_u32	$s3, $s0, 2;
	st_group_u32	$s2, [%vals][$s3];
	waitfbar	%fb;
	xor_b32	$s4, $s0, 2;
	shl_u32	$s4, $s4, 2;
	ld_group_u32	$s5, [%vals][$s4];
	st_global_u32	$s5, [$d1];
	leavefbar	%fb;
	br	@end;
@leave:
	leavefbar	%fb;
	st_global_u32	4294967295, [$d1];
@end:
	barrier;
	cmp_ne_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @done;
	releasefbar	%fb;
@done:
	ret;
};
)";

TEST(FbarrierTest, LeavefbarKeepsTheWorkItemsOfADivergentPath) {
  auto P = finalizeText(LeaveDivergent);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  for (uint32_t WG : {1u, 4u, 12u, 64u}) {
    const uint32_t N = WG * 2;
    std::vector<uint32_t> Out(N, 0);
    uint32_t *Ptr = Out.data();
    Grid G;
    G.Size[0] = N;
    G.WorkGroup[0] = WG;
    runKernel(*P, "&k", G, &Ptr);
    for (uint32_t I = 0; I < N; ++I) {
      const uint32_t L = I % WG;
      if (L % 2 == 0) {
        EXPECT_EQ(Out[I], 0xffffffffu) << WG << " " << I;
        continue;
      }
      const uint32_t Partner = (I - L) + (L ^ 2);
      EXPECT_EQ(Out[I], Partner * 10) << WG << " " << I;
    }
  }
}

const char *JoinSubset = R"(
module &m:1:0:$full:$large:$default;

prog fbarrier &all_fb;
group_u32 &shared[64];

// Waits on the fbarrier it is given by reference (an ldf value).
function &meet()(arg_u32 %fb)
{
	ld_arg_u32	$s0, [%fb];
	waitfbar	$s0;
	ret;
};

// Publishes v, waits with the other members of fb, returns the value of
// the member 3 work-items on (or of work-item 0).
function &exchange(arg_u32 %r)(arg_u32 %fb, arg_u32 %v)
{
	workitemflatid_u32	$s0;
	ld_arg_u32	$s1, [%v];
	shl_u32	$s2, $s0, 2;
	st_group_u32	$s1, [&shared][$s2];
	{
		arg_u32 %f;
		ld_arg_u32	$s3, [%fb];
		st_arg_u32	$s3, [%f];
		call	&meet () (%f);
	}
	add_u32	$s4, $s0, 3;
	workgroupsize_u32	$s5, 0;
	cmp_lt_b1_u32	$c0, $s4, $s5;
	cmov_b32	$s4, $c0, $s4, 0;
	shl_u32	$s4, $s4, 2;
	ld_group_u32	$s6, [&shared][$s4];
	st_arg_u32	$s6, [%r];
	ret;
};

// PRM 9.2.5 example 2: an fbarrier with every work-item guards the joins
// of a second one that only some join.
kernel &k(kernarg_u64 %out, kernarg_u64 %ids)
{
	fbarrier %fb1;
	workitemflatid_u32	$s0;
	workitemabsid_u32	$s9, 0;
	ldf_u32	$s8, &all_fb;
	ldf_u32	$s7, %fb1;
	cmp_ne_b1_u32	$c0, $s9, 0;
	cbr_b1	$c0, @noids;
	ld_kernarg_u64	$d2, [%ids];
	st_global_u32	$s8, [$d2];
	st_global_u32	$s7, [$d2+4];
@noids:
	cmp_ne_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @inited;
	initfbar	$s8;
	initfbar	%fb1;
@inited:
	barrier;
	joinfbar	&all_fb;
	barrier;
	cvt_u64_u32	$d0, $s9;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	rem_u32	$s1, $s0, 3;
	cmp_ne_b1_u32	$c1, $s1, 0;
	cbr_b1	$c1, @other;
	joinfbar_width(WAVESIZE)	$s7;
	{
		arg_u32 %f;
		st_arg_u32	$s8, [%f];
		call	&meet () (%f);
	}
	{
		arg_u32 %r;
		arg_u32 %f;
		arg_u32 %v;
		st_arg_u32	$s7, [%f];
		add_u32	$s2, $s9, 100;
		st_arg_u32	$s2, [%v];
		call	&exchange (%r) (%f, %v);
		ld_arg_u32	$s3, [%r];
	}
	st_global_u32	$s3, [$d1];
	leavefbar	%fb1;
	br	@both;
@other:
	waitfbar	&all_fb;
	st_global_u32	4294967295, [$d1];
@both:
	leavefbar	&all_fb;
	barrier;
	cmp_ne_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @done;
	releasefbar	&all_fb;
	releasefbar	$s7;
@done:
	ret;
};
)";

TEST(FbarrierTest, JoinfbarMakesASubsetAndFunctionsWaitByReference) {
  auto P = finalizeText(JoinSubset);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const auto *K = P->kernel("&k");
  for (uint32_t WG : {1u, 3u, 10u, 64u}) {
    const uint32_t N = WG * 3;
    std::vector<uint32_t> Out(N, 0), Ids(2, 0xdeadbeef);
    struct {
      uint32_t *Out;
      uint32_t *Ids;
    } Args{Out.data(), Ids.data()};
    Grid G;
    G.Size[0] = N;
    G.WorkGroup[0] = WG;
    runKernel(*P, "&k", G, &Args);
    for (uint32_t I = 0; I < N; ++I) {
      const uint32_t L = I % WG;
      if (L % 3 != 0) {
        EXPECT_EQ(Out[I], 0xffffffffu) << WG << " " << I;
        continue;
      }
      const uint32_t Partner = (I - L) + (L + 3 < WG ? L + 3 : 0);
      EXPECT_EQ(Out[I], Partner + 100) << WG << " " << I;
    }
    // ldf: distinct group segment addresses inside the group segment.
    EXPECT_NE(Ids[0], Ids[1]);
    EXPECT_LE(Ids[0] + 16, K->GroupSegmentSize);
    EXPECT_LE(Ids[1] + 16, K->GroupSegmentSize);
  }
}

const char *ProducerConsumer = R"(
module &m:1:0:$full:$large:$default;

// PRM 9.2.5 example 3: a producer (work-item 0) and consumers (the
// others) hand items over a group buffer with two fbarriers; arrivefbar
// lets each side run on without waiting for the other.
kernel &k(kernarg_u64 %out, kernarg_u32 %count)
{
	fbarrier %produced_fb;
	fbarrier %consumed_fb;
	group_u32 %buf;
	workitemflatid_u32	$s0;
	ld_kernarg_u32	$s1, [%count];
	cmp_ne_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @init_done;
	initfbar	%produced_fb;
	initfbar	%consumed_fb;
@init_done:
	barrier;
	joinfbar	%produced_fb;
	joinfbar	%consumed_fb;
	barrier;
	mov_b32	$s2, 1;
	mov_b32	$s3, 0;
	cmp_ne_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @consumer;
@produce:
	cmp_gt_b1_u32	$c1, $s2, $s1;
	cbr_b1	$c1, @finish;
	waitfbar	%consumed_fb;
	mul_u32	$s4, $s2, $s2;
	st_group_u32	$s4, [%buf];
	arrivefbar	%produced_fb;
	add_u32	$s2, $s2, 1;
	br	@produce;
@consumer:
	arrivefbar	%consumed_fb;
@consume:
	cmp_gt_b1_u32	$c1, $s2, $s1;
	cbr_b1	$c1, @finish;
	waitfbar	%produced_fb;
	ld_group_u32	$s4, [%buf];
	add_u32	$s3, $s3, $s4;
	cmp_eq_b1_u32	$c2, $s2, $s1;
	cbr_b1	$c2, @last;
	arrivefbar	%consumed_fb;
@last:
	add_u32	$s2, $s2, 1;
	br	@consume;
@finish:
	leavefbar	%produced_fb;
	leavefbar	%consumed_fb;
	workitemabsid_u32	$s9, 0;
	cvt_u64_u32	$d0, $s9;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s3, [$d1];
	barrier;
	cmp_ne_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @done;
	releasefbar	%produced_fb;
	releasefbar	%consumed_fb;
@done:
	ret;
};
)";

TEST(FbarrierTest, ProducerAndConsumersOverlapWithArrivefbar) {
  auto P = finalizeText(ProducerConsumer);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  for (uint32_t WG : {1u, 2u, 9u, 32u}) {
    for (uint32_t Count : {0u, 1u, 5u}) {
      const uint32_t N = WG * 2;
      std::vector<uint32_t> Out(N, 0xdeadbeef);
      struct {
        uint32_t *Out;
        uint32_t Count;
      } Args{Out.data(), Count};
      Grid G;
      G.Size[0] = N;
      G.WorkGroup[0] = WG;
      runKernel(*P, "&k", G, &Args);
      uint32_t Sum = 0;
      for (uint32_t J = 1; J <= Count; ++J)
        Sum += J * J;
      for (uint32_t I = 0; I < N; ++I)
        EXPECT_EQ(Out[I], I % WG == 0 ? 0u : Sum)
            << WG << " " << Count << " " << I;
    }
  }
}

const char *MemberNeverArrives = R"(
module &m:1:0:$full:$large:$default;

// Undefined behaviour (PRM 9.2.4): work-item 1 is a member that never
// arrives. The group cannot finish; the CPU target ends it.
kernel &k(kernarg_u64 %out)
{
	fbarrier %fb;
	workitemflatid_u32	$s0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	cmp_ne_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @j;
	initfbar	%fb;
@j:
	barrier;
	joinfbar	%fb;
	barrier;
	st_global_u32	1, [$d1];
	cbr_b1	$c0, @end;
	waitfbar	%fb;
	st_global_u32	2, [$d1];
@end:
	ret;
};
)";

// Undefined behaviour (a member never arrives): the work-group ends rather
// than hang; what ran before the wait is done.
TEST(FbarrierTest, AWaitThatCanNeverBeSatisfiedEndsTheGroup) {
  if (runsOnGpu()) // Undefined in the PRM; GPU threads spin at such a wait.
    GTEST_SKIP() << "the CPU agent ends such a group; a GPU agent's work-items "
                    "spin there until the dispatch is abandoned";
  auto P = finalizeText(MemberNeverArrives);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  std::vector<uint32_t> Out(2, 0);
  uint32_t *Ptr = Out.data();
  Grid G;
  G.Size[0] = 2;
  G.WorkGroup[0] = 2;
  runKernel(*P, "&k", G, &Ptr);
  EXPECT_EQ(Out[0], 1u);
  EXPECT_EQ(Out[1], 1u);
}

const char *WaitInIndirectFunction = R"(
module &m:1:0:$full:$large:$default;

indirect function &sync()(arg_u32 %fb)
{
	ld_arg_u32	$s0, [%fb];
	waitfbar	$s0;
	ret;
};

kernel &k()
{
	ret;
};
)";

// icall cannot resume a work-item inside its callee: waits in indirect
// functions are refused with a message naming the function.
TEST(FbarrierTest, WaitInAnIndirectFunctionIsRefused) {
  auto P = finalizeText(WaitInIndirectFunction);
  ASSERT_FALSE(bool(P));
  std::string E = llvm::toString(P.takeError());
  EXPECT_NE(E.find("function '&sync'"), std::string::npos) << E;
  EXPECT_NE(E.find("an indirect function cannot wait"), std::string::npos) << E;
}

// PRM 9.2.1: a kernel using more fbarriers than the agent supports (32)
// is an error of the finalizer.
TEST(FbarrierTest, MoreFbarriersThanTheAgentSupportsIsAnError) {
  auto Kernel = [](unsigned N) {
    std::string S = "module &m:1:0:$full:$large:$default;\n"
                    "prog fbarrier &shared;\n"
                    "kernel &k()\n{\n";
    for (unsigned I = 1; I < N; ++I)
      S += "\tfbarrier %fb" + std::to_string(I) + ";\n";
    return S + "\tret;\n};\n";
  };
  auto P = finalizeText(Kernel(32));
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  P = finalizeText(Kernel(33));
  ASSERT_FALSE(bool(P));
  std::string E = llvm::toString(P.takeError());
  EXPECT_NE(E.find("kernel '&k': uses 33 fbarriers"), std::string::npos) << E;
}

} // namespace
