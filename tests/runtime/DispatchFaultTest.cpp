//===- tests/runtime/DispatchFaultTest.cpp - Faults of kernel code --------===//
//
// HSA Runtime 2.8 (asynchronous errors of a queue: HSA_STATUS_ERROR_EXCEPTION
// through the queue's callback, the queue inactive afterwards) for kernels
// that fault: on a GPU a bad access ends the queue, not the process, and the
// CPU agent does the same (cpu_agent/KernelFaults.h). Native kernels of the
// openhsa extension fault on purpose; the HSAIL ones are in
// tests/executable/EndToEndTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include <csignal>
#include <sys/mman.h>
#include <unistd.h>

namespace openhsa::test {
namespace {

using namespace std::chrono_literals;

/// A page nothing may touch: loads and stores fault with SIGSEGV.
class Inaccessible {
public:
  Inaccessible() {
    Page = mmap(nullptr, Size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(Page, MAP_FAILED);
  }
  ~Inaccessible() { munmap(Page, Size); }
  uint32_t *word() const { return static_cast<uint32_t *>(Page); }

private:
  static constexpr size_t Size = 4096;
  void *Page;
};

struct FaultArgs {
  uint32_t *Bad;     // Inaccessible.
  uint32_t *Ran;     // Work-groups that got past the faulting one's check.
  uint32_t Faulting; // The flat id of the work-group that faults.
  uint32_t Divisor;  // 0, for divideKernel.
};

uint32_t flatGroup(const hsa_ext_openhsa_dispatch_context_t *C, uint32_t Gx,
                   uint32_t Gy, uint32_t Gz) {
  return Gx + C->grid_groups[0] * (Gy + C->grid_groups[1] * Gz);
}

void loadKernel(const void *Kernarg,
                const hsa_ext_openhsa_dispatch_context_t *C, uint32_t Gx,
                uint32_t Gy, uint32_t Gz) {
  const auto *A = static_cast<const FaultArgs *>(Kernarg);
  if (flatGroup(C, Gx, Gy, Gz) == A->Faulting) {
    const uint32_t V = *static_cast<volatile uint32_t *>(A->Bad);
    std::atomic_ref<uint32_t>(*A->Ran).fetch_add(V + 1000000);
    return;
  }
  std::atomic_ref<uint32_t>(*A->Ran).fetch_add(1);
}

void storeKernel(const void *Kernarg,
                 const hsa_ext_openhsa_dispatch_context_t *, uint32_t, uint32_t,
                 uint32_t) {
  const auto *A = static_cast<const FaultArgs *>(Kernarg);
  *static_cast<volatile uint32_t *>(A->Bad) = 1;
  std::atomic_ref<uint32_t>(*A->Ran).fetch_add(1);
}

// Integer division by zero traps on x86 (SIGFPE). UBSan (the asan tree)
// would stop the test first; here the trap is the point.
#if defined(__clang__) || defined(__GNUC__)
__attribute__((no_sanitize("undefined")))
#endif
void divideKernel(const void *Kernarg,
                  const hsa_ext_openhsa_dispatch_context_t *, uint32_t,
                  uint32_t, uint32_t) {
  const auto *A = static_cast<const FaultArgs *>(Kernarg);
  volatile uint32_t Divisor = A->Divisor;
  const uint32_t Q = 1000u / Divisor;
  std::atomic_ref<uint32_t>(*A->Ran).fetch_add(Q);
}

void countKernel(const void *Kernarg,
                 const hsa_ext_openhsa_dispatch_context_t *, uint32_t, uint32_t,
                 uint32_t) {
  const auto *A = static_cast<const FaultArgs *>(Kernarg);
  std::atomic_ref<uint32_t>(*A->Ran).fetch_add(1);
}

bool staysAt(hsa_signal_t Signal, hsa_signal_value_t Value,
             std::chrono::milliseconds For = 50ms) {
  return hsa_signal_wait_scacquire(Signal, HSA_SIGNAL_CONDITION_NE, Value,
                                   ticks(For), HSA_WAIT_STATE_BLOCKED) == Value;
}

class DispatchFault : public RuntimeTest {
protected:
  /// Dispatches Fn over Groups work-groups of one work-item to a fresh
  /// queue and checks what a fault must do: HSA_STATUS_ERROR_EXCEPTION
  /// once through the queue's callback, the dispatch's completion signal
  /// left alone (README), a later packet of the queue not processed, and
  /// the process and another queue carrying on.
  void expectFaultEndsQueue(hsa_ext_openhsa_workgroup_fn_t Fn,
                            uint32_t Groups = 1, uint32_t Faulting = 0) {
    ErrorLog &Log = errorLog();
    hsa_queue_t *Q = makeQueue(16, &Log);
    ASSERT_NE(Q, nullptr);
    Inaccessible Page;
    uint32_t Ran = 0;
    auto *Args = allocKernarg<FaultArgs>();
    *Args = {Page.word(), &Ran, Faulting, 0};
    const uint64_t K = makeKernel(Fn, sizeof(FaultArgs));
    hsa_signal_t Done = makeSignal(1);
    auto P = dispatchPacket(K, Args, 1, {Groups, 1, 1}, {1, 1, 1}, Done);
    submitPacket(Q, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
    ASSERT_EQ(waitUntil(Log.Raised, HSA_SIGNAL_CONDITION_GTE, 1), 1)
        << "no error reported";
    EXPECT_EQ(Log.LastStatus.load(), int(HSA_STATUS_ERROR_EXCEPTION))
        << "got 0x" << std::hex << Log.LastStatus.load();
    EXPECT_EQ(Log.LastSource.load(), Q);
    EXPECT_TRUE(staysAt(Done, 1)) << "a faulted dispatch completed";
    EXPECT_LT(std::atomic_ref<uint32_t>(Ran).load(), Groups)
        << "every work-group ran to its end";

    // Inactive: the next packet does not run.
    uint32_t Later = 0;
    auto *LaterArgs = allocKernarg<FaultArgs>();
    *LaterArgs = {nullptr, &Later, UINT32_MAX, 1};
    const uint64_t Count = makeKernel(countKernel, sizeof(FaultArgs));
    hsa_signal_t LaterDone = makeSignal(1);
    auto L = singleItemPacket(Count, LaterArgs, LaterDone);
    submitPacket(Q, &L, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
    EXPECT_TRUE(staysAt(LaterDone, 1)) << "the queue is still active";
    EXPECT_EQ(std::atomic_ref<uint32_t>(Later).load(), 0u);
    EXPECT_EQ(Log.Count.load(), 1);

    // Another queue runs kernels as before.
    expectQueueWorks(Count);

    EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
    for (hsa_signal_t S : {Done, LaterDone})
      EXPECT_EQ(hsa_signal_destroy(S), HSA_STATUS_SUCCESS);
    for (uint64_t Kernel : {K, Count})
      EXPECT_EQ(Ext.hsa_ext_openhsa_native_kernel_destroy(Kernel),
                HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_memory_free(Args), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_memory_free(LaterArgs), HSA_STATUS_SUCCESS);
  }

  /// Runs countKernel over 64 single-item work-groups, ten times, on a
  /// fresh queue.
  void expectQueueWorks(uint64_t Count) {
    hsa_queue_t *Q = makeQueue(16);
    ASSERT_NE(Q, nullptr);
    uint32_t Ran = 0;
    auto *Args = allocKernarg<FaultArgs>();
    *Args = {nullptr, &Ran, UINT32_MAX, 1};
    hsa_signal_t Done = makeSignal(10);
    for (int I = 0; I < 10; ++I) {
      auto P = dispatchPacket(Count, Args, 1, {64, 1, 1}, {1, 1, 1}, Done);
      submitPacket(Q, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
    }
    EXPECT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
    EXPECT_EQ(std::atomic_ref<uint32_t>(Ran).load(), 640u);
    EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_signal_destroy(Done), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_memory_free(Args), HSA_STATUS_SUCCESS);
  }
};

// A load through a kernarg pointer to an inaccessible page (SIGSEGV).
TEST_F(DispatchFault, BadLoadEndsTheQueue) { expectFaultEndsQueue(loadKernel); }

// A store to an inaccessible page (SIGSEGV).
TEST_F(DispatchFault, BadStoreEndsTheQueue) {
  expectFaultEndsQueue(storeKernel);
}

// Integer division by zero (SIGFPE on x86). HSAIL's div by zero is
// undefined and the finalizer's lowering never traps on it; a native
// kernel (or anything the finalized code calls) still can.
TEST_F(DispatchFault, DivisionByZeroEndsTheQueue) {
  expectFaultEndsQueue(divideKernel);
}

// One faulting work-group among many, on oneTBB's workers: the fault is
// reported once and the dispatch does not complete, wherever the faulting
// work-group falls.
TEST_F(DispatchFault, OneWorkGroupOfManyFaults) {
  expectFaultEndsQueue(loadKernel, 4096, 0);
  expectFaultEndsQueue(loadKernel, 4096, 4095);
  expectFaultEndsQueue(loadKernel, 300, 150);
}

// Queues are independent: one faulting queue does not stop another that is
// busy at the same time.
TEST_F(DispatchFault, OtherQueuesKeepWorking) {
  const uint64_t Count = makeKernel(countKernel, sizeof(FaultArgs));
  std::thread Busy([&] {
    for (int I = 0; I < 20; ++I)
      expectQueueWorks(Count);
  });
  for (int I = 0; I < 5; ++I)
    expectFaultEndsQueue(loadKernel, I % 2 ? 64 : 1);
  Busy.join();
  EXPECT_EQ(Ext.hsa_ext_openhsa_native_kernel_destroy(Count),
            HSA_STATUS_SUCCESS);
}

// HSA Runtime 2.1: hsa_shut_down after a fault (the faulted queue is still
// there) releases everything; the runtime then starts again and runs
// kernels, faulting ones included.
TEST_F(DispatchFault, ShutDownAfterAFault) {
  ErrorLog &Log = errorLog();
  hsa_queue_t *Q = makeQueue(16, &Log);
  ASSERT_NE(Q, nullptr);
  Inaccessible Page;
  uint32_t Ran = 0;
  auto *Args = allocKernarg<FaultArgs>();
  *Args = {Page.word(), &Ran, 0, 0};
  auto P = dispatchPacket(makeKernel(loadKernel, sizeof(FaultArgs)), Args, 1,
                          {1, 1, 1}, {1, 1, 1}, makeSignal(1));
  submitPacket(Q, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  ASSERT_EQ(waitUntil(Log.Raised, HSA_SIGNAL_CONDITION_GTE, 1), 1);
  ASSERT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  Initialized = false;

  RuntimeTest::SetUp();
  ASSERT_FALSE(HasFatalFailure());
  expectFaultEndsQueue(loadKernel);
}

/// A queue callback that destroys the queue it reports on (allowed: the
/// queue is no longer used by the program), then raises its signal.
void destroyOnError(hsa_status_t Status, hsa_queue_t *Source, void *Data) {
  auto *Log = static_cast<ErrorLog *>(Data);
  Log->LastStatus.store(Status);
  Log->LastSource.store(Source);
  EXPECT_EQ(hsa_queue_destroy(Source), HSA_STATUS_SUCCESS);
  Log->Count.fetch_add(1);
  hsa_signal_add_screlease(Log->Raised, 1);
}

// The callback of a faulted queue may destroy that queue, whether the
// faulting work-group ran on the packet processor's thread (one
// work-group) or on oneTBB's workers (many).
TEST_F(DispatchFault, CallbackMayDestroyTheQueue) {
  Inaccessible Page;
  uint32_t Ran = 0;
  auto *Args = allocKernarg<FaultArgs>();
  *Args = {Page.word(), &Ran, 0, 0};
  const uint64_t K = makeKernel(loadKernel, sizeof(FaultArgs));
  for (uint32_t Groups : {1u, 64u}) {
    ErrorLog &Log = errorLog();
    hsa_queue_t *Q = nullptr;
    ASSERT_EQ(hsa_queue_create(Cpu, 16, HSA_QUEUE_TYPE_MULTI, destroyOnError,
                               &Log, UINT32_MAX, UINT32_MAX, &Q),
              HSA_STATUS_SUCCESS);
    auto P =
        dispatchPacket(K, Args, 1, {Groups, 1, 1}, {1, 1, 1}, hsa_signal_t{0});
    submitPacket(Q, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
    ASSERT_EQ(waitUntil(Log.Raised, HSA_SIGNAL_CONDITION_GTE, 1), 1)
        << "no error reported for " << Groups << " work-groups";
    EXPECT_EQ(Log.LastStatus.load(), int(HSA_STATUS_ERROR_EXCEPTION));
  }
  expectQueueWorks(makeKernel(countKernel, sizeof(FaultArgs)));
}

//===-- The handler installed before the runtime's
//--------------------------===//

struct sigaction currentAction(int Sig) {
  struct sigaction A;
  sigaction(Sig, nullptr, &A);
  return A;
}

void exitWith42(int) { _exit(42); }

// A fault outside kernel code is not the runtime's: it reaches the handler
// the program installed before hsa_init. Run in a child process (a death
// test): the fault is real.
TEST(DispatchFaultChain, NonKernelFaultReachesEarlierHandler) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        struct sigaction Mine;
        std::memset(&Mine, 0, sizeof(Mine));
        Mine.sa_handler = exitWith42;
        sigemptyset(&Mine.sa_mask);
        sigaction(SIGSEGV, &Mine, nullptr);
        if (hsa_init() != HSA_STATUS_SUCCESS)
          _exit(1);
        if (currentAction(SIGSEGV).sa_handler == exitWith42)
          _exit(2); // The runtime installed nothing: not what is tested.
        Inaccessible Page;
        (void)*static_cast<volatile uint32_t *>(Page.word());
        _exit(3);
      },
      ::testing::ExitedWithCode(42), "");
}

// The last hsa_shut_down puts back the handlers the runtime replaced (the
// library may be unloaded next); hsa_init installs its own again.
TEST(DispatchFaultChain, ShutDownRestoresEarlierHandlers) {
  const int Signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
  struct sigaction Before[4], Mine;
  std::memset(&Mine, 0, sizeof(Mine));
  Mine.sa_handler = exitWith42;
  sigemptyset(&Mine.sa_mask);
  for (int I = 0; I < 4; ++I)
    sigaction(Signals[I], &Mine, &Before[I]);
  for (int Round = 0; Round < 2; ++Round) {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    for (int Sig : Signals)
      EXPECT_NE(currentAction(Sig).sa_handler, exitWith42) << "signal " << Sig;
    ASSERT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
    for (int Sig : Signals) // One reference is left.
      EXPECT_NE(currentAction(Sig).sa_handler, exitWith42) << "signal " << Sig;
    ASSERT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
    for (int Sig : Signals)
      EXPECT_EQ(currentAction(Sig).sa_handler, exitWith42) << "signal " << Sig;
  }
  for (int I = 0; I < 4; ++I)
    sigaction(Signals[I], &Before[I], nullptr);
}

} // namespace
} // namespace openhsa::test
