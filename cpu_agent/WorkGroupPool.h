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

#include <algorithm>
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
///
/// Every thread that claims a chunk writes the one claim counter, so on
/// many cores the claims themselves cost: each moves that cache line
/// between cores, one core at a time. So chunks are never smaller than
/// MinChunk work-groups (about a few microseconds of work by the kernel's
/// last dispatch) where that many are left, the counter has a cache line
/// of its own, and a runner adds what it ran to the job's totals once,
/// when it leaves the job, not once per chunk. On the GPU machine's
/// 16-core Xeon, in one run: a tree reduction of 65536 work-groups of
/// about 65 ns 0.326-0.349 ms with single work-groups at the end and 0.314
/// with chunks of at least 8 us (0.37-0.40 before, when each chunk also
/// added to two totals beside the counter; its native twin 0.27-0.30), the
/// scan of 16384 groups 0.206-0.216 and 0.181 (0.25; twin 0.16-0.18).
/// Chunks a quarter of the size (more claims) took the reduction to
/// 0.65-0.67 ms.
class GroupJob {
public:
  /// MinChunk: the fewest work-groups a shared chunk has where that many
  /// are left (the pool hands out fewer only where a caller's MaxChunk
  /// asks).
  explicit GroupJob(uint64_t Total, uint64_t MinChunk = 1)
      : Total(Total), MinChunk(std::max<uint64_t>(MinChunk, 1)) {}
  virtual ~GroupJob() = default;

  const uint64_t Total;
  const uint64_t MinChunk;

  /// What one runner ran of the job and has not retired yet.
  struct Ran {
    uint64_t Groups = 0;
    uint64_t BusyNs = 0;
  };

  /// Claims the next chunk of at most MaxChunk work-groups (where Runners
  /// threads share the job, guided: a share of what is left, at least
  /// MinChunk), runs it on Slot and adds it to Mine, which the runner
  /// retires when it leaves the job (retire(Mine)). False when every
  /// work-group was already claimed.
  bool runChunk(unsigned Slot, unsigned Runners, uint64_t MaxChunk, Ran &Mine);
  bool exhausted() const {
    return Next.load(std::memory_order_relaxed) >= Total;
  }
  /// Nanoseconds the threads spent in the work-groups they retired.
  uint64_t busyNanoseconds() const {
    return BusyNs.load(std::memory_order_relaxed);
  }
  /// Claims every work-group not claimed yet, without running it (a
  /// cancelled dispatch); returns how many. The caller retires them.
  uint64_t claimRest();
  /// Retires what a runner ran (and clears Mine), or Count claimed
  /// work-groups; the call that retires the last work-group calls
  /// finished().
  void retire(Ran &Mine);
  void retire(uint64_t Count) {
    Ran Claimed{Count, 0};
    retire(Claimed);
  }

protected:
  /// Runs work-groups [Begin, End) on the thread of Slot.
  virtual void run(uint64_t Begin, uint64_t End, unsigned Slot) = 0;
  /// Every work-group has run (or was skipped after a fault).
  virtual void finished() = 0;

private:
  // The claim counter on a line of its own (two lines: Intel's spatial
  // prefetcher pairs them): what the runners read of the job, here and in
  // derived classes, stays in their caches while they claim.
  alignas(128) std::atomic<uint64_t> Next{0};
  alignas(128) std::atomic<uint64_t> Retired{0};
  std::atomic<uint64_t> BusyNs{0};
  [[maybe_unused]] char PadAfter[128 - 2 * sizeof(std::atomic<uint64_t>)];
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
