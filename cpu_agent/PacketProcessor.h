//===- cpu_agent/PacketProcessor.h - AQL packet processing on the CPU -*- C++
//-*-===//
//
// One thread per CPU node services all queues of the node's kernel agent
// and of its agent dispatch agent (HSA System Architecture 2.8, AQL); a
// queue takes the dispatch packets of its features and barriers. For each
// queue it launches packets in order,
// honouring the barrier bit (wait for earlier packets to complete) and
// barrier-AND/OR dependencies; a launched packet's slot goes back to
// INVALID and the read index moves on at once, so producers can reuse it
// while the kernel still runs: before any work-group runs, so before the
// packet's completion signal can change (a one work-item dispatch the
// processor thread ran itself used to complete first).
//
// Kernel dispatches run on the agent's WorkGroupPool, asynchronously, so
// the thread goes on with other queues. A dispatch whose work-groups cost
// little in all the last time its kernel ran (a single work-group the
// first time) runs on the processor thread itself: waking the workers
// would cost more than running it. A larger one goes to the workers, and
// the processor thread helps for a while before it goes back to its
// queues. Work-groups are claimed in flattened-ID order whoever runs them.
//
// With nothing to do the thread spins briefly (not where the process has
// one processing unit), then sleeps on a WakeWord that doorbell stores,
// completions and dependency signals notify.
//
// Detaching a queue (hsa_queue_destroy, hsa_shut_down) waits for the
// dispatches launched from it until a deadline; those still running then
// are cancelled (cancel(): KernelFaults.h), so that a kernel that never
// finishes cannot hang teardown.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_CPU_AGENT_PACKETPROCESSOR_H
#define OPENHSA_CPU_AGENT_PACKETPROCESSOR_H

#include "cpu_agent/WorkGroupPool.h"
#include "cpu_agent/WorkGroupScratch.h"
#include "runtime/core/AgentDispatchTable.h"
#include "runtime/core/Queue.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <pthread.h>

namespace openhsa {
class Agent;

namespace cpu {
struct KernelDescriptor;

/// Limits the processor enforces on kernel dispatch packets.
struct DispatchLimits {
  uint32_t WorkgroupMaxSize;
  uint16_t WorkgroupMaxDim;
  uint32_t GroupSegmentMax;
  uint32_t PrivateSegmentMax; // Per work-item.
};

class PacketProcessor final : public QueueProcessor {
public:
  /// Starts Workers worker threads (each calling BindWorker first) and the
  /// processor thread.
  PacketProcessor(const Agent &Owner, unsigned Workers,
                  std::function<void()> BindWorker,
                  const DispatchLimits &Limits,
                  const AgentDispatchTable &AgentDispatch);
  ~PacketProcessor() override;

  void attach(Queue &Q);
  /// Waits for Q's dispatches until CancelAtNs (monotonicNanoseconds), then
  /// cancels those still running: they end with HSA_STATUS_ERROR_EXCEPTION
  /// through Q's callback, on this thread.
  void detach(Queue &Q, uint64_t CancelAtNs) override;

private:
  struct QueueState : std::enable_shared_from_this<QueueState> {
    Queue *Q;
    /// Packets launched and not yet complete.
    std::atomic<uint32_t> InFlight{0};
    /// An error a worker found (a kernel fault) for the processor thread to
    /// report: the queue's callback may destroy the queue, which waits for
    /// InFlight and so cannot run inside a launched dispatch. After detach
    /// took the queue away, detach reports it.
    std::atomic<int> PendingError{HSA_STATUS_SUCCESS};
    /// Set when detach gave up waiting: the dispatches of the queue are
    /// being cancelled (their work-groups skipped, the kernel code running
    /// interrupted).
    std::atomic<bool> Cancelled{false};
    /// Dependency signals of a blocked barrier packet that the processor's
    /// WakeWord watches (processor thread only).
    std::vector<const Signal *> Watched;
  };
  /// Released: done with the packet, whose slot the handler handed back
  /// (releaseSlot) before the packet's completion could be signalled.
  enum class Outcome { Released, Blocked, Failed };
  struct DispatchJob;
  /// A thread that runs work-groups (a worker, or this processor's thread
  /// at InlineSlot) and the queue whose kernel code it runs now, if any:
  /// whom cancel() interrupts.
  struct alignas(64) Runner {
    std::atomic<const QueueState *> Running{nullptr};
    pthread_t Thread{};
  };

  void run();
  void refreshQueues();
  bool processQueue(QueueState &S);
  Outcome launchDispatch(QueueState &S, uint64_t Index, const void *Slot);
  Outcome processBarrier(QueueState &S, uint64_t Index, const void *Slot,
                         bool IsAnd);
  Outcome processAgentDispatch(QueueState &S, uint64_t Index, const void *Slot);
  /// Hands packet Index's slot back to the producers (its header invalid,
  /// the read index past it). Once a packet's completion is signalled,
  /// the read index has passed it: a program that waits for a packet and
  /// then reads the read index sees it consumed.
  void releaseSlot(QueueState &S, uint64_t Index);
  void unwatch(QueueState &S);
  /// Cancels what runs of S's dispatches (detach, past its deadline):
  /// their unclaimed work-groups are retired unrun and the threads in their
  /// kernel code interrupted. Asynchronous; detach calls it again until
  /// S's dispatches have retired.
  void cancel(QueueState &S, uint64_t WaitedNs, bool First);
  /// Whether this thread no longer looks at Gone's queue: it acknowledged
  /// generation Target, or it runs kernel code of another queue (and
  /// rereads the queue list before it looks at another queue).
  bool releasedQueue(const QueueState &Gone, uint64_t Target);
  /// Runs work-groups [Begin, End) of Job on worker slot Slot (or this
  /// thread's); false when one of them faulted or was cancelled: the queue
  /// is inactive, and the dispatch does not complete (finishDispatch leaves
  /// HSA_STATUS_ERROR_EXCEPTION to report).
  bool runWorkGroups(DispatchJob &Job, uint64_t Begin, uint64_t End,
                     unsigned Slot);
  /// Every work-group of Job has run: completes the packet (on the thread
  /// that ran the last one).
  void finishDispatch(DispatchJob &Job);
  void complete(hsa_signal_t Completion, uint16_t Header);

  const Agent &Owner;
  const DispatchLimits Limits;
  const AgentDispatchTable &AgentDispatch;
  WorkGroupScratch Scratch; // Worker slots, then one for this thread.
  const unsigned InlineSlot;
  const bool InlineSmallDispatches;
  const bool SliceFewGroups; // OPENHSA_CPU_SLICES (GroupSlices.h).
  const uint32_t RunItems;   // OPENHSA_CPU_RUN_ITEMS.
  const uint64_t MinChunkNs; // OPENHSA_CPU_MIN_CHUNK_US, in ns.

  /// The processor thread sleeps on it; detach waits on it too (completions
  /// and the acknowledgement of a new queue list notify it).
  WakeWord Wake;
  std::mutex Mutex; // Guards Queues, Retired, Generation writes.
  std::vector<std::shared_ptr<QueueState>> Queues;
  std::atomic<uint64_t> Generation{0};
  uint64_t SeenGeneration = 0; // Written under Mutex by the thread.
  std::atomic<bool> Stopping{false};

  // Processor thread only.
  std::vector<std::shared_ptr<QueueState>> Active;
  /// The queue whose dispatch the processor thread runs work-groups of now,
  /// else null (written by the processor thread).
  std::atomic<const QueueState *> InlineKernelOf{nullptr};
  /// Worker slots, then InlineSlot.
  std::unique_ptr<Runner[]> Runners;

  std::thread Thread;
  /// Last: its workers, which run jobs referring to the members above, are
  /// joined before those go.
  WorkGroupPool Pool;
};

} // namespace cpu
} // namespace openhsa

#endif
