//===- tests/executable/GroupSlicesTest.cpp - Few work-groups, many threads
//===//
//
// A dispatch of few work-groups of a kernel whose work-items need no other
// work-item of their group runs its groups in slices on several threads
// (cpu_agent/GroupSlices.h, abi/CpuDispatchContext.h). Checked with one
// work-group whose first work-item waits for its last: run whole on one
// thread, the first wave would wait for a wave that runs after it. A wait
// gives up after a bound and says so rather than hang the test. And a
// kernel that runs straight through runs its groups in runs along X, row
// by row.
//
//===----------------------------------------------------------------------===//
#include "tests/executable/ExecTestSupport.h"

#include <sched.h>

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
  /// Finalizes, loads and freezes the kernels of Text (module Name); the
  /// symbol of kernel Kernel.
  hsa_executable_symbol_t load(const char *Name, const char *Text,
                               const char *Kernel) {
    CO = finalizeText(moduleHeader(Name) + Text);
    E = makeExecutable();
    EXPECT_EQ(hsa_executable_load_code_object(E, Cpu, CO, nullptr),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_executable_freeze(E, nullptr), HSA_STATUS_SUCCESS);
    hsa_executable_symbol_t K{0};
    EXPECT_EQ(hsa_executable_get_symbol_by_name(E, Kernel, &Cpu, &K),
              HSA_STATUS_SUCCESS);
    return K;
  }

  void TearDown() override {
    if (E.handle)
      hsa_executable_destroy(E);
    if (CO.handle)
      hsa_code_object_destroy(CO);
    ExecTest::TearDown();
  }
  /// Runs &order in 16x16 groups and checks that some thread ran a row of
  /// a group's neighbour along X before the group's next row.
  void expectRunsAlongX();

  hsa_executable_t E{0};
  hsa_code_object_t CO{0};
};

// The first dispatch of a kernel (its cost not known yet, so not one the
// packet processor runs alone): the work-group's slices run on different
// threads, and the first work-item sees the last one's flag.
TEST_F(GroupSlices, AWorkGroupOfFewRunsOnSeveralThreads) {
  hsa_executable_symbol_t K = load("slices", WaitForLast, "&wait_for_last");
  ASSERT_NE(K.handle, 0u);
  uint32_t Flag = 0, GaveUp = 0;
  void *Args[2] = {&Flag, &GaveUp};
  ASSERT_TRUE(dispatch(K, Args, sizeof(Args), 256, 256));
  EXPECT_EQ(Flag, 1u);
  EXPECT_EQ(GaveUp, 0u) << "the first work-item waited in vain for the last "
                           "one: the group ran whole, on one thread";
}

// &order(counters, out): each wave takes the next number of its thread's
// counter (plain loads and stores: only that thread touches it) and every
// work-item stores it with the thread's id, seq << 8 | cuid. A kernel
// without a loop or an atomic, so its groups run in runs along X.
const char *Order = R"(
prog kernel &order(kernarg_u64 %counters, kernarg_u64 %out)
{
	cuid_u32	$s0;
	ld_kernarg_align(8)_width(all)_u64	$d0, [%counters];
	cvt_u64_u32	$d1, $s0;
	shl_u64	$d1, $d1, 2;
	add_u64	$d0, $d0, $d1;
	ld_global_u32	$s1, [$d0];
	add_u32	$s2, $s1, 1;
	st_global_u32	$s2, [$d0];
	shl_u32	$s1, $s1, 8;
	or_b32	$s1, $s1, $s0;
	workitemflatabsid_u32	$s3;
	cvt_u64_u32	$d2, $s3;
	shl_u64	$d2, $d2, 2;
	ld_kernarg_align(8)_width(all)_u64	$d3, [%out];
	add_u64	$d3, $d3, $d2;
	st_global_u32	$s1, [$d3];
	ret;
};
)";

// Work-groups of 16x16 of a kernel that runs straight through: a thread
// runs a row of each of several groups before the next row of the first
// (abi/CpuDispatchContext.h RunGroups), where one group at a time it would
// finish a group before it starts the next.
void GroupSlices::expectRunsAlongX() {
  hsa_executable_symbol_t K = load("runs", Order, "&order");
  ASSERT_NE(K.handle, 0u);
  constexpr uint32_t Width = 1024, Height = 32;
  std::vector<uint32_t> Counters(256, 0), Out(Width * Height, ~0u);
  void *Args[2] = {Counters.data(), Out.data()};
  ASSERT_TRUE(
      dispatch(K, Args, sizeof(Args), 2, {Width, Height, 1}, {16, 16, 1}));
  // Work-item (X, Y)'s number and thread.
  auto At = [&](uint32_t X, uint32_t Y) { return Out[Y * Width + X]; };
  unsigned Interleaved = 0, SameThread = 0;
  for (uint32_t Gy = 0; Gy < Height / 16; ++Gy)
    for (uint32_t Gx = 0; Gx + 1 < Width / 16; ++Gx) {
      const uint32_t Second = At(Gx * 16, Gy * 16 + 1);     // Row 1 of Gx.
      const uint32_t NextFirst = At(Gx * 16 + 16, Gy * 16); // Row 0 of Gx+1.
      ASSERT_NE(Second, ~0u);
      if ((Second & 0xff) != (NextFirst & 0xff))
        continue; // Other threads: no order.
      ++SameThread;
      Interleaved += (NextFirst >> 8) < (Second >> 8);
    }
  ASSERT_GT(SameThread, 0u);
  EXPECT_GT(Interleaved, 0u)
      << "every thread ran its work-groups one after the other";
}

TEST_F(GroupSlices, StraightLineGroupsRunRowByRowAcrossGroups) {
  expectRunsAlongX();
}

/// The runtime started in a process allowed one processing unit (the
/// first of its mask): no worker threads, the packet processor's thread
/// runs every work-group.
class GroupSlicesOnOneUnit : public GroupSlices {
protected:
  void SetUp() override {
    ASSERT_EQ(sched_getaffinity(0, sizeof(Before), &Before), 0);
    cpu_set_t One;
    CPU_ZERO(&One);
    for (int C = 0; C < CPU_SETSIZE; ++C)
      if (CPU_ISSET(C, &Before)) {
        CPU_SET(C, &One);
        break;
      }
    ASSERT_EQ(sched_setaffinity(0, sizeof(One), &One), 0);
    GroupSlices::SetUp();
  }
  void TearDown() override {
    GroupSlices::TearDown();
    sched_setaffinity(0, sizeof(Before), &Before);
  }
  cpu_set_t Before;
};

// The first dispatch of a kernel, its cost not known yet, run by the
// packet processor's thread alone: it once claimed one group at a time
// until it knew the cost, so no run ever formed (and CI, whose workers woke
// late, saw that too).
TEST_F(GroupSlicesOnOneUnit, StraightLineGroupsRunRowByRowAcrossGroups) {
  expectRunsAlongX();
}

} // namespace
