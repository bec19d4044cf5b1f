//===- tests/executable/DispatchConstraintsTest.cpp - Control directives --===//
//
// PRM 13.4: a kernel finalized with requiredworkgroupsize, requireddim,
// requirenopartialworkgroups, maxflatworkgroupsize... runs only in
// dispatches that meet them; the CPU agent reports the others through the
// queue's callback (HSA_STATUS_ERROR_INVALID_PACKET_FORMAT) instead of
// running code compiled for another shape.
//
//===----------------------------------------------------------------------===//
#include "tests/executable/ExecTestSupport.h"

#include <atomic>
#include <cstring>
#include <unistd.h>

using namespace openhsa::test;

namespace {

const char *Constrained = R"(module &constrained:1:0:$full:$large:$default;
prog kernel &fixed(kernarg_u64 %out)
{
	requiredworkgroupsize 64, 1, 1;
	requireddim 1;
	requirenopartialworkgroups;
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s0, [$d1];
	ret;
};
)";

class DispatchConstraints : public ExecTest {
protected:
  static void onError(hsa_status_t Status, hsa_queue_t *, void *Data) {
    static_cast<std::atomic<int> *>(Data)->store(int(Status));
  }

  /// Dispatches &fixed with the given grid/work-group on a fresh queue;
  /// returns the status its callback saw (SUCCESS if none) and whether the
  /// completion signal reached 0.
  std::pair<hsa_status_t, bool> run(uint32_t Grid, uint16_t Wg,
                                    std::vector<uint32_t> &Out) {
    std::atomic<int> Seen{HSA_STATUS_SUCCESS};
    hsa_queue_t *Q = nullptr;
    EXPECT_EQ(hsa_queue_create(Cpu, 16, HSA_QUEUE_TYPE_SINGLE, onError, &Seen,
                               UINT32_MAX, UINT32_MAX, &Q),
              HSA_STATUS_SUCCESS);
    hsa_executable_symbol_t S{0};
    EXPECT_EQ(hsa_executable_get_symbol_by_name(Exec, "&fixed", &Cpu, &S),
              HSA_STATUS_SUCCESS);
    void *Args = nullptr;
    EXPECT_EQ(hsa_memory_allocate(Kernarg, 16, &Args), HSA_STATUS_SUCCESS);
    uint32_t *OutPtr = Out.data();
    std::memcpy(Args, &OutPtr, sizeof(OutPtr));
    hsa_signal_t Done;
    EXPECT_EQ(hsa_signal_create(1, 0, nullptr, &Done), HSA_STATUS_SUCCESS);
    auto *P = static_cast<hsa_kernel_dispatch_packet_t *>(Q->base_address);
    std::memset(reinterpret_cast<char *>(P) + 4, 0, sizeof(*P) - 4);
    P->workgroup_size_x = Wg;
    P->workgroup_size_y = P->workgroup_size_z = 1;
    P->grid_size_x = Grid;
    P->grid_size_y = P->grid_size_z = 1;
    P->kernel_object =
        symbolInfo<uint64_t>(S, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT);
    P->kernarg_address = Args;
    P->completion_signal = Done;
    hsa_queue_store_write_index_relaxed(Q, 1);
    __atomic_store_n(
        reinterpret_cast<uint32_t *>(P),
        uint32_t(HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
            (uint32_t(1u << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS) << 16),
        __ATOMIC_RELEASE);
    hsa_signal_store_screlease(Q->doorbell_signal, 0);
    // Either the kernel completes or the queue reports an error; poll both
    // (10 ms waits), at most 10 s for a broken runtime.
    uint64_t Frequency = 0;
    hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &Frequency);
    bool Completed = false;
    for (int I = 0; I < 1000 && !Completed && Seen.load() == HSA_STATUS_SUCCESS;
         ++I)
      Completed = hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                            Frequency / 100,
                                            HSA_WAIT_STATE_BLOCKED) == 0;
    hsa_signal_destroy(Done);
    hsa_memory_free(Args);
    hsa_queue_destroy(Q);
    return {hsa_status_t(Seen.load()), Completed};
  }

  void SetUp() override {
    ExecTest::SetUp();
    CO = finalizeText(Constrained);
    Exec = makeExecutable();
    ASSERT_EQ(hsa_executable_load_code_object(Exec, Cpu, CO, nullptr),
              HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_executable_freeze(Exec, nullptr), HSA_STATUS_SUCCESS);
  }
  void TearDown() override {
    hsa_executable_destroy(Exec);
    hsa_code_object_destroy(CO);
    ExecTest::TearDown();
  }

  hsa_code_object_t CO{0};
  hsa_executable_t Exec{0};
};

TEST_F(DispatchConstraints, MatchingDispatchRuns) {
  std::vector<uint32_t> Out(256, 0);
  auto [Status, Completed] = run(256, 64, Out);
  EXPECT_EQ(Status, HSA_STATUS_SUCCESS);
  EXPECT_TRUE(Completed);
  for (uint32_t I = 0; I < 256; ++I)
    EXPECT_EQ(Out[I], I);
}

TEST_F(DispatchConstraints, OtherWorkGroupSizeIsRefused) {
  std::vector<uint32_t> Out(256, 7);
  auto [Status, Completed] = run(256, 32, Out);
  EXPECT_EQ(Status, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
  EXPECT_FALSE(Completed);
  EXPECT_EQ(Out[0], 7u); // Nothing ran.
}

TEST_F(DispatchConstraints, PartialWorkGroupIsRefused) {
  std::vector<uint32_t> Out(256, 7);
  auto [Status, Completed] = run(200, 64, Out);
  EXPECT_EQ(Status, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
  EXPECT_FALSE(Completed);
}

} // namespace
