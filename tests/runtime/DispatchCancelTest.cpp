//===- tests/runtime/DispatchCancelTest.cpp - Teardown cancels hung kernels
//===//
//
// A kernel that never finishes (a work-group spinning on a flag that only a
// later work-group or wavefront would set, as GPU code does) must not hang
// hsa_shut_down or hsa_queue_destroy: after a grace period
// (OPENHSA_TEARDOWN_GRACE_MS) the work-groups still running kernel code are
// cancelled, the queue's callback gets HSA_STATUS_ERROR_EXCEPTION, and the
// process goes on (README "Behaviour worth knowing", cpu_agent/
// KernelFaults.h). A kernel that finishes within the grace period is waited
// for, as before. Native kernels of the openhsa extension spin here; the
// finalized HSAIL case is tests/executable/SpinWaitTest.cpp.
//
// Each step that would hang without cancellation runs under a Watchdog,
// which ends the process with a message instead: a hung teardown cannot be
// failed and left behind.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "tests/support/ScopedEnv.h"

#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>

#include <pthread.h>
#include <unistd.h>

namespace openhsa::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

/// Ends the process (exit status 86, with a message) unless disarmed, by
/// destruction, within Limit.
class Watchdog {
public:
  Watchdog(std::string What, std::chrono::seconds Limit)
      : What(std::move(What)), Thread([this, Limit] {
          std::unique_lock<std::mutex> Lock(Mutex);
          if (!Disarmed.wait_for(Lock, Limit, [this] { return Done; })) {
            std::fprintf(stderr, "hung for %lld s: %s\n",
                         static_cast<long long>(Limit.count()),
                         this->What.c_str());
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
  std::string What;
  std::mutex Mutex;
  std::condition_variable Disarmed;
  bool Done = false;
  std::thread Thread;
};

/// What the kernels share with the test; host memory, which outlives the
/// runtime (shut down and started again within a test).
struct Shared {
  uint32_t Started = 0;  // Work-groups that began.
  uint32_t Release = 0;  // Set by the test: spinning work-groups go on.
  uint32_t Finished = 0; // Work-groups that ran to their end.
  hsa_signal_t Never{0}; // waitKernel waits for it to reach 0.
};

uint32_t load(const uint32_t &V) {
  return std::atomic_ref<uint32_t>(const_cast<uint32_t &>(V))
      .load(std::memory_order_acquire);
}
void bump(uint32_t &V) {
  std::atomic_ref<uint32_t>(V).fetch_add(1, std::memory_order_acq_rel);
}

/// Spins in its own code, no system call, until the test releases it: the
/// GPU-style wait for a flag that another work-group would set.
void spinKernel(const void *Kernarg, const hsa_ext_openhsa_dispatch_context_t *,
                uint32_t, uint32_t, uint32_t) {
  Shared &S = **static_cast<Shared *const *>(Kernarg);
  bump(S.Started);
  while (load(S.Release) == 0) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
  bump(S.Finished);
}

/// Takes a while (300 ms), well within the grace period the tests give.
void slowKernel(const void *Kernarg, const hsa_ext_openhsa_dispatch_context_t *,
                uint32_t, uint32_t, uint32_t) {
  Shared &S = **static_cast<Shared *const *>(Kernarg);
  bump(S.Started);
  std::this_thread::sleep_for(300ms);
  bump(S.Finished);
}

/// Blocks in the runtime, in hsa_signal_wait_scacquire, on a signal that
/// never reaches 0.
void waitKernel(const void *Kernarg, const hsa_ext_openhsa_dispatch_context_t *,
                uint32_t, uint32_t, uint32_t) {
  Shared &S = **static_cast<Shared *const *>(Kernarg);
  bump(S.Started);
  hsa_signal_wait_scacquire(S.Never, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
                            HSA_WAIT_STATE_BLOCKED);
  bump(S.Finished);
}

void countKernel(const void *Kernarg,
                 const hsa_ext_openhsa_dispatch_context_t *, uint32_t, uint32_t,
                 uint32_t) {
  Shared &S = **static_cast<Shared *const *>(Kernarg);
  bump(S.Finished);
}

/// The errors a queue's callback got.
struct Errors {
  std::atomic<int> Count{0};
  std::atomic<int> LastStatus{HSA_STATUS_SUCCESS};
  std::atomic<hsa_queue_t *> LastSource{nullptr};
};

void recordError(hsa_status_t Status, hsa_queue_t *Source, void *Data) {
  auto *E = static_cast<Errors *>(Data);
  E->LastStatus.store(Status);
  E->LastSource.store(Source);
  E->Count.fetch_add(1);
}

/// The grace period the tests run with, unless a test sets its own.
constexpr auto Grace = 300ms;
/// How long past its deadline a cancellation may take, at most: far more
/// than it takes (milliseconds), for loaded and sanitized CI machines.
constexpr auto CancelSlack = 10s;

class DispatchCancel : public RuntimeTest {
protected:
  void SetUp() override { startRuntime("300"); }
  void TearDown() override {
    RuntimeTest::TearDown();
    Env.reset();
  }

  /// hsa_init with the grace period GraceMs (nullptr: the default).
  void startRuntime(const char *GraceMs) {
    Env.reset();
    Env.emplace("OPENHSA_TEARDOWN_GRACE_MS", GraceMs);
    RuntimeTest::SetUp();
  }

  hsa_queue_t *queueWithLog(Errors &E) {
    hsa_queue_t *Q = nullptr;
    EXPECT_EQ(hsa_queue_create(Cpu, 16, HSA_QUEUE_TYPE_MULTI, recordError, &E,
                               UINT32_MAX, UINT32_MAX, &Q),
              HSA_STATUS_SUCCESS);
    return Q;
  }

  /// Dispatches Fn over Groups single-item work-groups with S as its
  /// argument and waits until one of them started.
  void launch(hsa_queue_t *Q, hsa_ext_openhsa_workgroup_fn_t Fn, Shared &S,
              uint32_t Groups, hsa_signal_t Done) {
    auto **Args = allocKernarg<Shared *>();
    *Args = &S;
    const uint64_t K = makeKernel(Fn, sizeof(Shared *));
    auto P = dispatchPacket(K, Args, 1, {Groups, 1, 1}, {1, 1, 1}, Done);
    submitPacket(Q, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
    const auto Deadline = Clock::now() + HangGuard;
    while (load(S.Started) == 0 && Clock::now() < Deadline)
      std::this_thread::sleep_for(1ms);
    ASSERT_GT(load(S.Started), 0u) << "the kernel never started";
  }

  /// countKernel over 64 work-groups on a fresh queue: the agent works.
  void expectKernelsRun() {
    Shared S;
    hsa_queue_t *Q = makeQueue(16);
    ASSERT_NE(Q, nullptr);
    hsa_signal_t Done = makeSignal(1);
    auto **Args = allocKernarg<Shared *>();
    *Args = &S;
    auto P = dispatchPacket(makeKernel(countKernel, sizeof(Shared *)), Args, 1,
                            {64, 1, 1}, {1, 1, 1}, Done);
    submitPacket(Q, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
    EXPECT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
    EXPECT_EQ(load(S.Finished), 64u);
    EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
  }

  /// Runs Teardown under a watchdog; returns how long it took.
  template <typename Fn>
  Clock::duration timed(const char *What, Fn &&Teardown) {
    Watchdog W(What, 120s);
    const auto Start = Clock::now();
    Teardown();
    return Clock::now() - Start;
  }

  std::optional<ScopedEnv> Env;
};

std::string ms(Clock::duration D) {
  return std::to_string(
             std::chrono::duration_cast<std::chrono::milliseconds>(D).count()) +
         " ms";
}

// hsa_shut_down with a work-group spinning forever: after the grace period
// the kernel code is cancelled, the callback reports it, and hsa_init works
// again. One work-group (run on the packet processor's thread) and many
// (every worker spins, the rest are never started).
TEST_F(DispatchCancel, ShutDownCancelsASpinningKernel) {
  for (uint32_t Groups : {1u, 64u}) {
    SCOPED_TRACE(std::to_string(Groups) + " work-groups");
    Errors E;
    Shared S;
    hsa_queue_t *Q = queueWithLog(E);
    ASSERT_NE(Q, nullptr);
    launch(Q, spinKernel, S, Groups, makeSignal(1));
    const auto Took = timed("hsa_shut_down of a spinning kernel", [&] {
      EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
    });
    Initialized = false;
    EXPECT_GE(Took, Grace) << "cancelled before the grace period ended";
    EXPECT_LT(Took, Grace + CancelSlack) << ms(Took);
    EXPECT_EQ(E.Count.load(), 1);
    EXPECT_EQ(E.LastStatus.load(), int(HSA_STATUS_ERROR_EXCEPTION));
    EXPECT_EQ(E.LastSource.load(), Q);
    EXPECT_EQ(load(S.Finished), 0u) << "a cancelled work-group went on";
    if (Groups > 1) {
      EXPECT_LT(load(S.Started), Groups) << "work-groups started after it";
    }

    startRuntime("300");
    ASSERT_FALSE(HasFatalFailure());
    expectKernelsRun();
  }
}

// hsa_queue_destroy of the queue whose kernel spins: the same, on the
// thread that destroys the queue, and the rest of the runtime carries on.
TEST_F(DispatchCancel, QueueDestroyCancelsASpinningKernel) {
  for (uint32_t Groups : {1u, 64u}) {
    SCOPED_TRACE(std::to_string(Groups) + " work-groups");
    Errors E;
    Shared S;
    hsa_queue_t *Q = queueWithLog(E);
    ASSERT_NE(Q, nullptr);
    hsa_signal_t Done = makeSignal(1);
    launch(Q, spinKernel, S, Groups, Done);
    const auto Took = timed("hsa_queue_destroy of a spinning kernel", [&] {
      EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
    });
    EXPECT_GE(Took, Grace) << "cancelled before the grace period ended";
    EXPECT_LT(Took, Grace + CancelSlack) << ms(Took);
    // Reported before hsa_queue_destroy returned.
    EXPECT_EQ(E.Count.load(), 1);
    EXPECT_EQ(E.LastStatus.load(), int(HSA_STATUS_ERROR_EXCEPTION));
    EXPECT_EQ(E.LastSource.load(), Q);
    EXPECT_EQ(hsa_signal_load_scacquire(Done), 1)
        << "a cancelled dispatch completed";
    EXPECT_EQ(load(S.Finished), 0u) << "a cancelled work-group went on";
    if (Groups > 1) {
      EXPECT_LT(load(S.Started), Groups) << "work-groups started after it";
    }
    expectKernelsRun();
  }
}

// A kernel that ends within the grace period is waited for, not cancelled:
// by hsa_queue_destroy, then by hsa_shut_down.
TEST_F(DispatchCancel, KernelFinishingWithinTheGracePeriodIsNotCancelled) {
  RuntimeTest::TearDown();
  Initialized = false;
  startRuntime("10000");
  for (uint32_t Groups : {1u, 8u}) {
    SCOPED_TRACE(std::to_string(Groups) + " work-groups");
    Errors E;
    Shared S;
    hsa_queue_t *Q = queueWithLog(E);
    ASSERT_NE(Q, nullptr);
    hsa_signal_t Done = makeSignal(1);
    launch(Q, slowKernel, S, Groups, Done);
    timed("hsa_queue_destroy of a slow kernel",
          [&] { EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS); });
    EXPECT_EQ(E.Count.load(), 0)
        << "status 0x" << std::hex << E.LastStatus.load();
    EXPECT_EQ(load(S.Finished), Groups);
    EXPECT_EQ(hsa_signal_load_scacquire(Done), 0);
  }
  Errors E;
  Shared S;
  hsa_queue_t *Q = queueWithLog(E);
  ASSERT_NE(Q, nullptr);
  launch(Q, slowKernel, S, 4, makeSignal(1));
  timed("hsa_shut_down of a slow kernel",
        [&] { EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS); });
  Initialized = false;
  EXPECT_EQ(E.Count.load(), 0);
  EXPECT_EQ(load(S.Finished), 4u);
}

// A native kernel blocked in hsa_signal_wait_* (runtime code that registers
// with the signal, so it is not interrupted there) is cancelled between the
// wait's slices.
TEST_F(DispatchCancel, KernelWaitingOnASignalIsCancelled) {
  Errors E;
  Shared S;
  S.Never = makeSignal(1);
  hsa_queue_t *Q = queueWithLog(E);
  ASSERT_NE(Q, nullptr);
  launch(Q, waitKernel, S, 1, makeSignal(1));
  const auto Took =
      timed("hsa_queue_destroy of a kernel in a signal wait",
            [&] { EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS); });
  EXPECT_GE(Took, Grace);
  EXPECT_LT(Took, Grace + CancelSlack) << ms(Took);
  EXPECT_EQ(E.Count.load(), 1);
  EXPECT_EQ(E.LastStatus.load(), int(HSA_STATUS_ERROR_EXCEPTION));
  EXPECT_EQ(load(S.Finished), 0u);
  // The wait left nothing registered with the signal: changing it and
  // destroying it are safe.
  hsa_signal_store_screlease(S.Never, 0);
  EXPECT_EQ(hsa_signal_destroy(S.Never), HSA_STATUS_SUCCESS);
  expectKernelsRun();
}

// Destroying an idle queue does not wait for another queue's kernel, even
// one that holds the packet processor's thread (a single work-group runs
// there): the grace period is long here, and the spinning kernel is
// released only after the destroy was given 5 s.
TEST_F(DispatchCancel, DestroyingAnotherQueueDoesNotWaitForASpinningKernel) {
  RuntimeTest::TearDown();
  Initialized = false;
  startRuntime("60000");
  Shared S;
  hsa_queue_t *Busy = makeQueue(16);
  hsa_queue_t *Idle = makeQueue(16);
  ASSERT_TRUE(Busy && Idle);
  hsa_signal_t Done = makeSignal(1);
  launch(Busy, spinKernel, S, 1, Done);
  std::atomic<bool> Destroyed{false};
  std::thread Destroyer([&] {
    EXPECT_EQ(hsa_queue_destroy(Idle), HSA_STATUS_SUCCESS);
    Destroyed.store(true);
  });
  const auto Deadline = Clock::now() + 5s;
  while (!Destroyed.load() && Clock::now() < Deadline)
    std::this_thread::sleep_for(1ms);
  EXPECT_TRUE(Destroyed.load())
      << "hsa_queue_destroy of an idle queue waited for another's kernel";
  std::atomic_ref<uint32_t>(S.Release).store(1, std::memory_order_release);
  Destroyer.join();
  EXPECT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(load(S.Finished), 1u);
}

// hsa_shut_down gives all queues one grace period together, not one each:
// three queues with spinning kernels take about one.
TEST_F(DispatchCancel, ShutDownGivesAllQueuesOneGracePeriod) {
  RuntimeTest::TearDown();
  Initialized = false;
  startRuntime("2000");
  Errors E[3];
  Shared S[3];
  for (int I = 0; I < 3; ++I) {
    hsa_queue_t *Q = queueWithLog(E[I]);
    ASSERT_NE(Q, nullptr);
    // Only the first is sure to start: the others may wait for threads
    // that the first one's work-groups hold.
    auto **Args = allocKernarg<Shared *>();
    *Args = &S[I];
    auto P = dispatchPacket(makeKernel(spinKernel, sizeof(Shared *)), Args, 1,
                            {8, 1, 1}, {1, 1, 1}, makeSignal(1));
    submitPacket(Q, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  }
  const auto Start = Clock::now();
  while (load(S[0].Started) == 0 && Clock::now() < Start + HangGuard)
    std::this_thread::sleep_for(1ms);
  const auto Took = timed("hsa_shut_down of three spinning queues", [&] {
    EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  });
  Initialized = false;
  EXPECT_GE(Took, 2000ms);
  // One grace period per queue would take 6 s.
  EXPECT_LT(Took, 5000ms) << ms(Took) << ": a grace period per queue?";
  for (int I = 0; I < 3; ++I) {
    EXPECT_EQ(load(S[I].Finished), 0u);
    // Every queue that had started work-groups reports; one whose dispatch
    // never launched (the processor thread was held) has nothing to say.
    if (load(S[I].Started) != 0) {
      EXPECT_EQ(E[I].LastStatus.load(), int(HSA_STATUS_ERROR_EXCEPTION));
    }
    EXPECT_LE(E[I].Count.load(), 1);
  }
}

//===-- The program's own SIGURG ------------------------------------------===//

std::atomic<int> ProgramSigurgs{0};
void countSigurg(int) { ProgramSigurgs.fetch_add(1); }

struct sigaction actionOf(int Sig) {
  struct sigaction A;
  sigaction(Sig, nullptr, &A);
  return A;
}

// The runtime's cancel signal is SIGURG (cpu_agent/KernelFaults.h). A
// SIGURG the program sends reaches the handler it installed before
// hsa_init; the runtime's requests do not; the last hsa_shut_down puts the
// program's handler back.
TEST(DispatchCancelChain, ProgramSigurgReachesItsHandler) {
  ScopedEnv Env("OPENHSA_TEARDOWN_GRACE_MS", "100");
  struct sigaction Mine, Before;
  std::memset(&Mine, 0, sizeof(Mine));
  Mine.sa_handler = countSigurg;
  sigemptyset(&Mine.sa_mask);
  sigaction(SIGURG, &Mine, &Before);
  ProgramSigurgs.store(0);

  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  EXPECT_NE(actionOf(SIGURG).sa_handler, countSigurg)
      << "the runtime installed no handler: not what is tested";
  pthread_kill(pthread_self(), SIGURG);
  EXPECT_EQ(ProgramSigurgs.load(), 1);

  // A cancellation: the runtime's requests are not the program's.
  hsa_agent_t Cpu{0};
  ASSERT_EQ(hsa_iterate_agents(findCpuAgent, &Cpu), HSA_STATUS_INFO_BREAK);
  hsa_ext_openhsa_1_pfn_t Ext{};
  ASSERT_EQ(hsa_system_get_major_extension_table(HSA_EXTENSION_OPENHSA, 1,
                                                 sizeof(Ext), &Ext),
            HSA_STATUS_SUCCESS);
  hsa_ext_openhsa_native_kernel_t Native = {spinKernel, nullptr,          0,
                                            0,          sizeof(Shared *), 16};
  uint64_t K = 0;
  ASSERT_EQ(Ext.hsa_ext_openhsa_native_kernel_create(Cpu, &Native, &K),
            HSA_STATUS_SUCCESS);
  Errors E;
  hsa_queue_t *Q = nullptr;
  ASSERT_EQ(hsa_queue_create(Cpu, 16, HSA_QUEUE_TYPE_MULTI, recordError, &E,
                             UINT32_MAX, UINT32_MAX, &Q),
            HSA_STATUS_SUCCESS);
  Shared S;
  Shared *Arg = &S; // Read before hsa_queue_destroy returns.
  auto P = dispatchPacket(K, &Arg, 1, {4, 1, 1}, {1, 1, 1}, hsa_signal_t{0});
  submitPacket(Q, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  while (load(S.Started) == 0)
    std::this_thread::sleep_for(1ms);
  {
    Watchdog W("hsa_queue_destroy of a spinning kernel", 120s);
    EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
  }
  EXPECT_EQ(E.Count.load(), 1);
  EXPECT_EQ(ProgramSigurgs.load(), 1) << "a cancel request reached the "
                                         "program's handler";
  ASSERT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  EXPECT_EQ(actionOf(SIGURG).sa_handler, countSigurg);
  sigaction(SIGURG, &Before, nullptr);
}

} // namespace
} // namespace openhsa::test
