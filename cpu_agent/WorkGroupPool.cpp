//===- cpu_agent/WorkGroupPool.cpp - Threads that run work-groups ---------===//
#include "cpu_agent/WorkGroupPool.h"

#include "runtime/core/Clock.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace openhsa::cpu {

namespace {
/// How long an idle worker polls for the next job (yielding its CPU
/// between polls) before it sleeps, OPENHSA_CPU_WORKER_SPIN_US: long enough
/// to catch the next dispatch of a program that dispatches back to back.
/// On the GPU machine's 16-core Xeon (a VM) a dispatch of few long
/// work-groups ran slower the sooner the workers slept: nbody's 32
/// work-groups of about 1 ms on 16 workers took 4.5-5.0 ms with 50 us,
/// 3.3-4.4 ms with 1 ms and 2.7 ms with 20 ms (its twin 2.4-3.0 ms;
/// benchmarks/README.md). 1 ms is the compromise with the CPU a program
/// burns between sparse dispatches; an idle process is not affected
/// (workers sleep once the spin has passed).
const uint64_t WorkerSpinNs = [] {
  const char *E = std::getenv("OPENHSA_CPU_WORKER_SPIN_US");
  return E && *E ? std::strtoull(E, nullptr, 10) * 1000 : 1'000'000;
}();
/// Shared chunks are a share of what is left: 1 / (ChunkShare x runners).
/// Larger chunks (2) made the tiled matrix product's 4096 work-groups of
/// about 20 us end unevenly on the 16-core Xeon (5.9-6.2 ms against
/// 4.8-5.4); its chunks' claims are few either way.
constexpr uint64_t ChunkShare = 4;
} // namespace

bool GroupJob::runChunk(unsigned Slot, unsigned Runners, uint64_t MaxChunk,
                        Ran &Mine) {
  uint64_t Begin = Next.load(std::memory_order_relaxed), Count;
  do {
    if (Begin >= Total)
      return false;
    // Shared, guided: large chunks while much is left, then MinChunk, so
    // that the threads finish together with few claims. Alone: MaxChunk.
    const uint64_t Share = Runners > 1 ? ChunkShare * uint64_t(Runners) : 1;
    const uint64_t Most = std::max<uint64_t>(MaxChunk, 1);
    Count = std::clamp<uint64_t>((Total - Begin) / Share,
                                 std::min(MinChunk, Most), Most);
    Count = std::min(Count, Total - Begin);
  } while (!Next.compare_exchange_weak(Begin, Begin + Count,
                                       std::memory_order_relaxed));
  const uint64_t Start = monotonicNanoseconds();
  run(Begin, Begin + Count, Slot);
  Mine.BusyNs += monotonicNanoseconds() - Start;
  Mine.Groups += Count;
  return true;
}

uint64_t GroupJob::claimRest() {
  // Next never passes Total, and runChunk claims with a compare-exchange:
  // what it claimed before stays its own.
  const uint64_t Begin = Next.exchange(Total, std::memory_order_relaxed);
  return Begin < Total ? Total - Begin : 0;
}

void GroupJob::retire(Ran &Mine) {
  const uint64_t Count = std::exchange(Mine.Groups, 0);
  BusyNs.fetch_add(std::exchange(Mine.BusyNs, 0), std::memory_order_relaxed);
  // acq_rel: the thread that retires the last work-groups sees what every
  // other runner wrote (its work-groups, its busy time) before it
  // completes the dispatch.
  if (Count &&
      Retired.fetch_add(Count, std::memory_order_acq_rel) + Count == Total)
    finished();
}

WorkGroupPool::WorkGroupPool(unsigned Workers, std::function<void()> Start)
    : OnStart(std::move(Start)) {
  Threads.reserve(Workers);
  for (unsigned Slot = 0; Slot < Workers; ++Slot)
    Threads.emplace_back([this, Slot, Workers] { work(Slot, Workers + 1); });
}

WorkGroupPool::~WorkGroupPool() {
  Stopping.store(true, std::memory_order_seq_cst);
  Wake.notify();
  for (std::thread &T : Threads)
    T.join();
}

void WorkGroupPool::submit(std::shared_ptr<GroupJob> J) {
  {
    std::lock_guard<SpinLock> Guard(Lock);
    Jobs.push_back(std::move(J));
    Queued.store(uint32_t(Jobs.size()), std::memory_order_release);
  }
  Wake.notify(); // A futex call only where a worker sleeps.
}

std::vector<std::shared_ptr<GroupJob>> WorkGroupPool::queued() {
  std::lock_guard<SpinLock> Guard(Lock);
  return {Jobs.begin(), Jobs.end()};
}

std::shared_ptr<GroupJob> WorkGroupPool::take() {
  if (Queued.load(std::memory_order_acquire) == 0)
    return nullptr;
  std::lock_guard<SpinLock> Guard(Lock);
  while (!Jobs.empty() && Jobs.front()->exhausted())
    Jobs.pop_front();
  Queued.store(uint32_t(Jobs.size()), std::memory_order_release);
  return Jobs.empty() ? nullptr : Jobs.front();
}

void WorkGroupPool::work(unsigned Slot, unsigned Runners) {
  if (OnStart)
    OnStart();
  uint64_t IdleSince = 0;
  for (;;) {
    const uint32_t Epoch = Wake.epoch();
    if (std::shared_ptr<GroupJob> J = take()) {
      GroupJob::Ran Mine;
      while (J->runChunk(Slot, Runners, UINT64_MAX, Mine))
        ;
      J->retire(Mine);
      IdleSince = 0;
      continue;
    }
    if (Stopping.load(std::memory_order_acquire))
      return; // Nothing queued is left.
    if (spinningHelps()) {
      const uint64_t Now = monotonicNanoseconds();
      if (IdleSince == 0)
        IdleSince = Now;
      if (Now - IdleSince < WorkerSpinNs) {
        for (int I = 0; I < 64 && !Queued.load(std::memory_order_relaxed); ++I)
          cpuRelax();
        yieldCpu(); // To a thread with work, where CPUs are short.
        continue;
      }
    }
    Wake.sleep(Epoch, -1);
    IdleSince = 0;
  }
}

} // namespace openhsa::cpu
