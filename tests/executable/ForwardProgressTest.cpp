//===- tests/executable/ForwardProgressTest.cpp - Work-groups wait on earlier
//===//
//
// PRM 2.2 (Forward progress): "later work-groups (in work-group flattened
// ID order) can wait for values written by earlier work-groups without
// deadlock". The CPU agent hands work-groups out in flattened-ID order and
// runs each started one to completion (cpu_agent/WorkGroupPool.h), so a
// chain where work-group g spins until work-group g-1 has published its
// flag finishes with any number of work-groups per thread. Checked with
// many more work-groups than threads, at agent and at system scope (the
// scopes that reach across work-groups), one and many work-items per
// work-group. A spin gives up after a bound and says so (GaveUp) rather
// than hang the test.
//
//===----------------------------------------------------------------------===//
#include "tests/executable/ExecTestSupport.h"

#include <atomic>
#include <thread>

using namespace openhsa::test;

namespace {

/// &chain_<scope>(flags, gaveup): every work-item of work-group g > 0 waits
/// (acquire) until flags[g-1] != 0, then stores (release) flags[g] = 1.
std::string chainKernel(const std::string &Scope) {
  return R"(
prog kernel &chain_)" +
         Scope + R"((kernarg_u64 %flags, kernarg_u64 %gaveup)
{
	workgroupid_u32	$s0, 0;
	ld_kernarg_align(8)_width(all)_u64	$d0, [%flags];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%gaveup];
	cvt_u64_u32	$d2, $s0;
	shl_u64	$d2, $d2, 2;
	add_u64	$d2, $d0, $d2;
	sub_u64	$d3, $d2, 4;
	cmp_eq_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @publish;
	mov_b32	$s2, 0;
@spin:
	atomic_ld_global_scacq_)" +
         Scope + R"(_b32	$s1, [$d3];
	cmp_ne_b1_u32	$c1, $s1, 0;
	cbr_b1	$c1, @publish;
	atomic_ld_global_rlx_)" +
         Scope + R"(_b32	$s3, [$d1];
	cmp_ne_b1_u32	$c2, $s3, 0;
	cbr_b1	$c2, @publish;
	add_u32	$s2, $s2, 1;
	cmp_lt_b1_u32	$c3, $s2, 1000000000;
	cbr_b1	$c3, @spin;
	atomicnoret_st_global_rlx_)" +
         Scope + R"(_b32	[$d1], 1;
@publish:
	atomicnoret_st_global_screl_)" +
         Scope + R"(_b32	[$d2], 1;
	ret;
};
)";
}

class ForwardProgress : public ExecTest,
                        public ::testing::WithParamInterface<const char *> {
protected:
  hsa_executable_symbol_t load(const std::string &Scope) {
    hsa_code_object_t CO =
        finalizeText(moduleHeader("chain") + chainKernel(Scope));
    hsa_executable_t E = makeExecutable();
    EXPECT_EQ(hsa_executable_load_code_object(E, Cpu, CO, nullptr),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_executable_freeze(E, nullptr), HSA_STATUS_SUCCESS);
    Executables.push_back(E);
    CodeObjects.push_back(CO);
    hsa_executable_symbol_t K{0};
    const std::string Name = "&chain_" + Scope;
    EXPECT_EQ(hsa_executable_get_symbol_by_name(E, Name.c_str(), &Cpu, &K),
              HSA_STATUS_SUCCESS);
    return K;
  }

  /// Runs the chain over Groups work-groups of WorkGroup work-items, twice
  /// (the second dispatch of a kernel may run on the packet processor's
  /// thread alone), and checks every flag is set and no spin gave up.
  void runChain(const std::string &Scope, uint32_t Groups, uint16_t WorkGroup) {
    hsa_executable_symbol_t K = load(Scope);
    for (int Round = 0; Round < 2; ++Round) {
      SCOPED_TRACE("round " + std::to_string(Round));
      std::vector<uint32_t> Flags(Groups, 0);
      uint32_t GaveUp = 0;
      void *Args[2] = {Flags.data(), &GaveUp};
      ASSERT_TRUE(
          dispatch(K, Args, sizeof(Args), Groups * WorkGroup, WorkGroup));
      EXPECT_EQ(GaveUp, 0u) << "a work-group waited in vain for the one "
                               "before it";
      uint32_t Unset = 0;
      for (uint32_t F : Flags)
        Unset += F != 1;
      EXPECT_EQ(Unset, 0u);
    }
  }

  void TearDown() override {
    for (hsa_executable_t E : Executables)
      hsa_executable_destroy(E);
    for (hsa_code_object_t CO : CodeObjects)
      hsa_code_object_destroy(CO);
    ExecTest::TearDown();
  }

  std::vector<hsa_executable_t> Executables;
  std::vector<hsa_code_object_t> CodeObjects;
};

// 4096 work-groups of one work-item: hundreds per thread.
TEST_P(ForwardProgress, LaterWorkGroupsWaitForEarlierOnes) {
  runChain(GetParam(), 4096, 1);
}

// Whole work-groups wait: every work-item of work-group g spins.
TEST_P(ForwardProgress, EveryWorkItemWaits) { runChain(GetParam(), 512, 64); }

INSTANTIATE_TEST_SUITE_P(Scopes, ForwardProgress,
                         ::testing::Values("agent", "system"),
                         [](const auto &Info) {
                           return std::string(Info.param);
                         });

} // namespace
