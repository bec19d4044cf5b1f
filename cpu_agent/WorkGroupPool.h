//===- cpu_agent/WorkGroupPool.h - Threads that run work-groups -*- C++ -*-===//
//
// The CPU agent's worker threads, one per processing unit the process may
// run on (Topology.h AllowedUnits), and the jobs they run: a dispatch's
// work-groups.
//
// Work-groups are handed out in flattened-ID order, in chunks of
// consecutive IDs claimed from one counter, and every thread runs the
// chunk it claimed to its end. So a started work-group runs to completion,
// and every work-group below the lowest unfinished one has finished: a
// work-group may wait (spin) for values that earlier work-groups write
// without deadlock, with any number of work-groups per thread (PRM 2.2).
//
// A thread with nothing to do spins briefly (not where the process has one
// processing unit), then sleeps on a WakeWord until a job is submitted.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_CPU_AGENT_WORKGROUPPOOL_H
#define OPENHSA_CPU_AGENT_WORKGROUPPOOL_H

#include "runtime/core/Futex.h"
#include "runtime/core/SpinLock.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace openhsa::cpu {

/// A dispatch's work-groups [0, Total) as the pool hands them out.
class GroupJob {
public:
  explicit GroupJob(uint64_t Total) : Total(Total) {}
  virtual ~GroupJob() = default;

  const uint64_t Total;

  /// Claims the next chunk of at most MaxChunk work-groups (where Runners
  /// threads share the job, guided: a share of what is left), runs it on
  /// Slot and retires it;
  /// the thread that retires the last work-group calls finished(). False
  /// when every work-group was already claimed.
  bool runChunk(unsigned Slot, unsigned Runners, uint64_t MaxChunk);
  bool exhausted() const {
    return Next.load(std::memory_order_relaxed) >= Total;
  }
  /// Nanoseconds the threads spent in work-groups so far.
  uint64_t busyNanoseconds() const {
    return BusyNs.load(std::memory_order_relaxed);
  }
  /// Claims every work-group not claimed yet, without running it (a
  /// cancelled dispatch); returns how many. The caller retires them.
  uint64_t claimRest();
  /// Retires Count claimed work-groups; the call that retires the last
  /// work-group calls finished().
  void retire(uint64_t Count);

protected:
  /// Runs work-groups [Begin, End) on the thread of Slot.
  virtual void run(uint64_t Begin, uint64_t End, unsigned Slot) = 0;
  /// Every work-group has run (or was skipped after a fault).
  virtual void finished() = 0;

private:
  std::atomic<uint64_t> Next{0};
  std::atomic<uint64_t> Retired{0};
  std::atomic<uint64_t> BusyNs{0};
};

class WorkGroupPool {
public:
  /// Starts Workers threads, each calling OnStart first (to bind itself).
  WorkGroupPool(unsigned Workers, std::function<void()> OnStart);
  /// Runs every job submitted, then joins the threads.
  ~WorkGroupPool();

  unsigned workers() const { return unsigned(Threads.size()); }
  /// The thread of worker slot Slot (to interrupt the kernel code it runs).
  std::thread::native_handle_type nativeHandle(unsigned Slot) {
    return Threads[Slot].native_handle();
  }

  /// Hands J's unclaimed work-groups to the workers (slots 0 to workers()-1)
  /// and wakes them. Jobs are served in submission order.
  void submit(std::shared_ptr<GroupJob> J);
  /// The jobs submitted that may still have unclaimed work-groups.
  std::vector<std::shared_ptr<GroupJob>> queued();

private:
  /// A worker's loop; Runners counts the threads that may share a job (the
  /// workers and the packet processor).
  void work(unsigned Slot, unsigned Runners);
  std::shared_ptr<GroupJob> take();

  // Guards Jobs. A spin lock: at a job's start every idle worker takes it
  // at once, and a contended std::mutex put them to sleep in turn.
  SpinLock Lock;
  std::deque<std::shared_ptr<GroupJob>> Jobs;
  std::atomic<uint32_t> Queued{0}; // Jobs.size(), for polling without Lock.
  WakeWord Wake;
  std::atomic<bool> Stopping{false};
  std::function<void()> OnStart;
  std::vector<std::thread> Threads;
};

} // namespace openhsa::cpu

#endif
