//===- tests/executable/GroupSlicesTest.cpp - Few work-groups, many threads
//===//
//
// A dispatch of few work-groups of a kernel whose work-items need no other
// work-item of their group runs its groups in slices on several threads
// (cpu_agent/GroupSlices.h, abi/CpuDispatchContext.h). Checked with one
// work-group whose first work-item waits for its last: run whole on one
// thread, the first wave would wait for a wave that runs after it. A wait
// gives up after a bound and says so rather than hang the test.
//
//===----------------------------------------------------------------------===//
#include "tests/executable/ExecTestSupport.h"

using namespace openhsa::test;

namespace {

const char *WaitForLast = R"(
prog kernel &wait_for_last(kernarg_u64 %flag, kernarg_u64 %gaveup)
{
	workitemid_u32	$s0, 0;
	currentworkgroupsize_u32	$s1, 0;
	sub_u32	$s1, $s1, 1;
	ld_kernarg_align(8)_width(all)_u64	$d0, [%flag];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%gaveup];
	cmp_eq_b1_u32	$c0, $s0, $s1;
	cbr_b1	$c0, @publish;
	cmp_ne_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @end;
	mov_b32	$s2, 0;
@spin:
	atomic_ld_global_scacq_system_b32	$s3, [$d0];
	cmp_ne_b1_u32	$c1, $s3, 0;
	cbr_b1	$c1, @end;
	add_u32	$s2, $s2, 1;
	cmp_lt_b1_u32	$c2, $s2, 2000000000;
	cbr_b1	$c2, @spin;
	atomicnoret_st_global_rlx_system_b32	[$d1], 1;
	br	@end;
@publish:
	atomicnoret_st_global_screl_system_b32	[$d0], 1;
@end:
	ret;
};
)";

class GroupSlices : public ExecTest {
protected:
  void TearDown() override {
    if (E.handle)
      hsa_executable_destroy(E);
    if (CO.handle)
      hsa_code_object_destroy(CO);
    ExecTest::TearDown();
  }
  hsa_executable_t E{0};
  hsa_code_object_t CO{0};
};

// The first dispatch of a kernel (its cost not known yet, so not one the
// packet processor runs alone): the work-group's slices run on different
// threads, and the first work-item sees the last one's flag.
TEST_F(GroupSlices, AWorkGroupOfFewRunsOnSeveralThreads) {
  CO = finalizeText(moduleHeader("slices") + WaitForLast);
  E = makeExecutable();
  ASSERT_EQ(hsa_executable_load_code_object(E, Cpu, CO, nullptr),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_executable_freeze(E, nullptr), HSA_STATUS_SUCCESS);
  hsa_executable_symbol_t K{0};
  ASSERT_EQ(hsa_executable_get_symbol_by_name(E, "&wait_for_last", &Cpu, &K),
            HSA_STATUS_SUCCESS);
  uint32_t Flag = 0, GaveUp = 0;
  void *Args[2] = {&Flag, &GaveUp};
  ASSERT_TRUE(dispatch(K, Args, sizeof(Args), 256, 256));
  EXPECT_EQ(Flag, 1u);
  EXPECT_EQ(GaveUp, 0u) << "the first work-item waited in vain for the last "
                           "one: the group ran whole, on one thread";
}

} // namespace
