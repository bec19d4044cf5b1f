//===- tests/executable/SpinWaitTest.cpp - GPU-style spin-waits, cancelled ===//
//
// The PRM conformance suite's memfence cases, in small: every work-item but
// the last spins on an atomic flag that the last one sets after its store.
// On a GPU the work-items run together; the CPU agent runs a work-group's
// wavefronts one after another, so the first one spins forever and the
// last never runs (README "Behaviour worth knowing": not supported). What
// must hold is that such a dispatch cannot hang teardown: hsa_queue_destroy
// cancels it after the grace period (OPENHSA_TEARDOWN_GRACE_MS), the queue
// reports HSA_STATUS_ERROR_EXCEPTION, and kernels run on as before. The
// same for a kernel blocked in signal_wait (a runtime helper, which now
// waits in slices: waits that are not cancelled keep their meaning).
// Vectorized and scalar. The native-kernel cases are tests/runtime/
// DispatchCancelTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "tests/executable/ExecTestSupport.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

using namespace openhsa::test;

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

/// &spin_on_last(flag, started, out): every work-item of the grid but the
/// last counts itself in started, spins (acquire) until flag != 0 and
/// writes out[id] = 1; the last writes out[id] = 1, then flag = 1
/// (release). &wait_signal(signal, started, out): counts itself, waits for
/// the signal to reach 0, writes out[id] = 1.
const char *const SpinHsail = R"(
prog kernel &spin_on_last(kernarg_u64 %flag, kernarg_u64 %started, kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	gridsize_u32	$s1, 0;
	ld_kernarg_align(8)_width(all)_u64	$d0, [%flag];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%started];
	ld_kernarg_align(8)_width(all)_u64	$d2, [%out];
	cvt_u64_u32	$d3, $s0;
	shl_u64	$d3, $d3, 2;
	add_u64	$d2, $d2, $d3;
	sub_u32	$s1, $s1, 1;
	cmp_eq_b1_u32	$c0, $s0, $s1;
	cbr_b1	$c0, @last;
	atomicnoret_add_global_rlx_agent_u32	[$d1], 1;
@spin:
	atomic_ld_global_scacq_agent_b32	$s2, [$d0];
	cmp_eq_b1_u32	$c1, $s2, 0;
	cbr_b1	$c1, @spin;
	st_global_u32	1, [$d2];
	ret;
@last:
	st_global_u32	1, [$d2];
	atomicnoret_st_global_screl_agent_b32	[$d0], 1;
	ret;
};

prog kernel &wait_signal(kernarg_u64 %signal, kernarg_u64 %started, kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(8)_width(all)_u64	$d0, [%signal];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%started];
	ld_kernarg_align(8)_width(all)_u64	$d2, [%out];
	cvt_u64_u32	$d3, $s0;
	shl_u64	$d3, $d3, 2;
	add_u64	$d2, $d2, $d3;
	atomicnoret_add_global_rlx_agent_u32	[$d1], 1;
	signal_wait_eq_scacq_s64_sig64	$d5, $d0, 0;
	st_global_u32	1, [$d2];
	ret;
};

prog kernel &timed_waits(kernarg_u64 %signal, kernarg_u64 %started, kernarg_u64 %out, kernarg_u64 %ticks)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%signal];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%started];
	ld_kernarg_align(8)_width(all)_u64	$d2, [%out];
	ld_kernarg_align(8)_width(all)_u64	$d4, [%ticks];
	atomicnoret_st_global_screl_agent_b32	[$d1], 1;
	signal_waittimeout_eq_rlx_s64_sig64	$d3, $d0, 1, $d4;
	st_global_u64	$d3, [$d2];
	signal_wait_gte_scacq_s64_sig64	$d3, $d0, 10;
	st_global_u64	$d3, [$d2+8];
	ret;
};
)";

/// Ends the process, with a message, unless destroyed within Limit: a hung
/// teardown cannot be failed and left behind.
class Watchdog {
public:
  Watchdog(const char *What, std::chrono::seconds Limit)
      : Thread([this, What, Limit] {
          std::unique_lock<std::mutex> Lock(Mutex);
          if (!Disarmed.wait_for(Lock, Limit, [this] { return Done; })) {
            std::fprintf(stderr, "hung: %s\n", What);
            std::fflush(stderr);
            std::_Exit(86);
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      Done = true;
    }
    Disarmed.notify_all();
    Thread.join();
  }

private:
  std::mutex Mutex;
  std::condition_variable Disarmed;
  bool Done = false;
  std::thread Thread;
};

constexpr auto Grace = 300ms;

class SpinWait : public ExecTest {
protected:
  void SetUp() override {
    Env = std::make_unique<ScopedEnv>("OPENHSA_TEARDOWN_GRACE_MS", "300");
    ExecTest::SetUp();
  }
  void TearDown() override {
    for (hsa_executable_t E : Executables)
      EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
    for (hsa_code_object_t CO : CodeObjects)
      EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
    ExecTest::TearDown();
    Env.reset();
  }

  static void onError(hsa_status_t Status, hsa_queue_t *, void *Data) {
    auto *Self = static_cast<SpinWait *>(Data);
    Self->Status.store(Status);
    Self->Errors.fetch_add(1);
  }

  hsa_executable_symbol_t kernel(bool Vectorize, const char *Name) {
    ScopedEnv Scalar("OPENHSA_VECTORIZE", Vectorize ? nullptr : "0");
    hsa_code_object_t CO = finalizeText(moduleHeader("spin") + SpinHsail);
    hsa_executable_t E = makeExecutable();
    EXPECT_EQ(hsa_executable_load_code_object(E, Cpu, CO, nullptr),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_executable_freeze(E, nullptr), HSA_STATUS_SUCCESS);
    CodeObjects.push_back(CO);
    Executables.push_back(E);
    hsa_executable_symbol_t K{0};
    EXPECT_EQ(hsa_executable_get_symbol_by_name(E, Name, &Cpu, &K),
              HSA_STATUS_SUCCESS);
    return K;
  }

  /// Dispatches K over one work-group of Items with arguments {First,
  /// &Started, Out} to a fresh queue, waits until it started, destroys the
  /// queue and checks that the dispatch was cancelled after the grace
  /// period: reported once, not completed, no work-item past its wait.
  void expectCancelled(hsa_executable_symbol_t K, void *First, uint16_t Items) {
    hsa_queue_t *Q = nullptr;
    ASSERT_EQ(hsa_queue_create(Cpu, 16, HSA_QUEUE_TYPE_SINGLE, onError, this,
                               UINT32_MAX, UINT32_MAX, &Q),
              HSA_STATUS_SUCCESS);
    Errors.store(0);
    uint32_t Started = 0;
    std::vector<uint32_t> Out(Items, 0);
    void *Args = nullptr;
    ASSERT_EQ(hsa_memory_allocate(Kernarg, 24, &Args), HSA_STATUS_SUCCESS);
    static_cast<void **>(Args)[0] = First;
    static_cast<void **>(Args)[1] = &Started;
    static_cast<void **>(Args)[2] = Out.data();
    hsa_signal_t Done{0};
    ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &Done), HSA_STATUS_SUCCESS);

    hsa_kernel_dispatch_packet_t P;
    std::memset(&P, 0, sizeof(P));
    P.setup = uint16_t(1u << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
    P.workgroup_size_x = Items;
    P.workgroup_size_y = P.workgroup_size_z = 1;
    P.grid_size_x = Items;
    P.grid_size_y = P.grid_size_z = 1;
    P.kernel_object =
        symbolInfo<uint64_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT);
    P.private_segment_size = symbolInfo<uint32_t>(
        K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE);
    P.kernarg_address = Args;
    P.completion_signal = Done;
    const uint64_t Index = hsa_queue_add_write_index_scacq_screl(Q, 1);
    auto *Slot =
        static_cast<hsa_kernel_dispatch_packet_t *>(Q->base_address) + Index;
    std::memcpy(reinterpret_cast<char *>(Slot) + 4,
                reinterpret_cast<const char *>(&P) + 4, sizeof(P) - 4);
    const uint16_t Header = uint16_t(
        (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
    std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t *>(Slot))
        .store(Header | (uint32_t(P.setup) << 16), std::memory_order_release);
    hsa_signal_store_screlease(Q->doorbell_signal, hsa_signal_value_t(Index));

    std::atomic_ref<uint32_t> StartedRef(Started);
    const auto Deadline = Clock::now() + 60s;
    while (StartedRef.load() == 0 && Clock::now() < Deadline)
      std::this_thread::sleep_for(1ms);
    ASSERT_GT(StartedRef.load(), 0u) << "the kernel never started";

    Clock::duration Took;
    {
      Watchdog W("hsa_queue_destroy of a kernel that waits forever", 120s);
      const auto Start = Clock::now();
      EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
      Took = Clock::now() - Start;
    }
    EXPECT_GE(Took, Grace);
    EXPECT_LT(Took, Grace + 10s);
    EXPECT_EQ(Errors.load(), 1);
    EXPECT_EQ(Status.load(), HSA_STATUS_ERROR_EXCEPTION);
    EXPECT_EQ(hsa_signal_load_scacquire(Done), 1)
        << "a cancelled dispatch completed";
    for (uint16_t I = 0; I + 1 < Items; ++I)
      ASSERT_EQ(Out[I], 0u) << "work-item " << I << " got past its wait";
    EXPECT_EQ(hsa_signal_destroy(Done), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_memory_free(Args), HSA_STATUS_SUCCESS);
  }

  std::unique_ptr<ScopedEnv> Env;
  std::vector<hsa_executable_t> Executables;
  std::vector<hsa_code_object_t> CodeObjects;
  std::atomic<int> Errors{0};
  std::atomic<hsa_status_t> Status{HSA_STATUS_SUCCESS};
};

// Earlier wavefronts of a work-group wait for the last one: cancelled at
// hsa_queue_destroy. With the flag already set, the same kernel runs to its
// end on another queue afterwards.
TEST_F(SpinWait, WaitForALaterWavefrontIsCancelled) {
  for (bool Vectorize : {true, false}) {
    SCOPED_TRACE(Vectorize ? "vectorized" : "scalar");
    hsa_executable_symbol_t K = kernel(Vectorize, "&spin_on_last");
    uint32_t Flag = 0;
    expectCancelled(K, &Flag, 64);
    EXPECT_EQ(std::atomic_ref<uint32_t>(Flag).load(), 0u)
        << "the last work-item ran";

    Flag = 1;
    uint32_t Started = 0;
    std::vector<uint32_t> Out(64, 0);
    void *Args[3] = {&Flag, &Started, Out.data()};
    ASSERT_TRUE(dispatch(K, Args, sizeof(Args), 64, 64));
    for (uint32_t V : Out)
      EXPECT_EQ(V, 1u);
  }
}

// A kernel blocked in signal_wait on a signal that never gets there (the
// runtime's helper waits disarmed, in slices): cancelled too.
TEST_F(SpinWait, SignalWaitIsCancelled) {
  for (bool Vectorize : {true, false}) {
    SCOPED_TRACE(Vectorize ? "vectorized" : "scalar");
    hsa_executable_symbol_t K = kernel(Vectorize, "&wait_signal");
    hsa_signal_t Never{0};
    ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &Never), HSA_STATUS_SUCCESS);
    expectCancelled(K, reinterpret_cast<void *>(Never.handle), 4);
    // Nothing of the wait is left registered with the signal.
    hsa_signal_store_screlease(Never, 0);
    EXPECT_EQ(hsa_signal_destroy(Never), HSA_STATUS_SUCCESS);
  }
}

// The same waits, not cancelled, keep their meaning although kernel code
// now waits in 50 ms slices: a waittimeout of 120 ms returns the current
// value once it expires, and a wait that the host satisfies after a second
// returns the value the host stored.
TEST_F(SpinWait, SignalWaitsInSlicesKeepTheirMeaning) {
  for (bool Vectorize : {true, false}) {
    SCOPED_TRACE(Vectorize ? "vectorized" : "scalar");
    hsa_executable_symbol_t K = kernel(Vectorize, "&timed_waits");
    hsa_signal_t Sig{0};
    ASSERT_EQ(hsa_signal_create(5, 0, nullptr, &Sig), HSA_STATUS_SUCCESS);
    uint64_t Frequency = 0;
    ASSERT_EQ(
        hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &Frequency),
        HSA_STATUS_SUCCESS);
    uint32_t Started = 0;
    int64_t Out[2] = {0, 0};
    struct {
      uint64_t Sig;
      uint32_t *Started;
      int64_t *Out;
      uint64_t Ticks;
    } Args{Sig.handle, &Started, Out, Frequency * 120 / 1000};
    std::thread Host([&] {
      std::atomic_ref<uint32_t> StartedRef(Started);
      const auto Deadline = Clock::now() + 60s;
      while (StartedRef.load() == 0 && Clock::now() < Deadline)
        std::this_thread::sleep_for(1ms);
      std::this_thread::sleep_for(1s);
      hsa_signal_store_screlease(Sig, 10);
    });
    const auto Start = Clock::now();
    EXPECT_TRUE(dispatch(K, &Args, sizeof(Args), 1, 1));
    const auto Took = Clock::now() - Start;
    Host.join();
    EXPECT_EQ(Out[0], 5) << "the waittimeout did not return the value it saw";
    EXPECT_EQ(Out[1], 10) << "the wait did not return the host's value";
    EXPECT_GE(Took, 1s);
    EXPECT_EQ(hsa_signal_destroy(Sig), HSA_STATUS_SUCCESS);
  }
}

} // namespace
