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
// while the kernel still runs.
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
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_CPU_AGENT_PACKETPROCESSOR_H
#define OPENHSA_CPU_AGENT_PACKETPROCESSOR_H

#include "cpu_agent/WorkGroupPool.h"
#include "cpu_agent/WorkGroupScratch.h"
#include "runtime/core/AgentDispatchTable.h"
#include "runtime/core/Queue.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

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
  void detach(Queue &Q) override;

private:
  struct QueueState : std::enable_shared_from_this<QueueState> {
    Queue *Q;
    /// Packets launched and not yet complete.
    std::atomic<uint32_t> InFlight{0};
    /// An error a worker found (a kernel fault) for the processor thread to
    /// report: the queue's callback may destroy the queue, which waits for
    /// InFlight and so cannot run inside a launched dispatch.
    std::atomic<int> PendingError{HSA_STATUS_SUCCESS};
    /// Dependency signals of a blocked barrier packet that the processor's
    /// WakeWord watches (processor thread only).
    std::vector<const Signal *> Watched;
  };
  enum class Outcome { Consumed, Blocked, Failed };
  struct DispatchJob;

  void run();
  void refreshQueues();
  bool processQueue(QueueState &S);
  Outcome launchDispatch(QueueState &S, uint64_t Index, const void *Slot);
  Outcome processBarrier(QueueState &S, const void *Slot, bool IsAnd);
  Outcome processAgentDispatch(QueueState &S, const void *Slot);
  void unwatch(QueueState &S);
  /// Runs work-groups [Begin, End) of Job on worker slot Slot (or this
  /// thread's); false when one of them faulted: the queue is inactive, and
  /// the dispatch does not complete (finishDispatch leaves the processor
  /// thread HSA_STATUS_ERROR_EXCEPTION to report).
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

  WakeWord Wake;
  std::mutex Mutex; // Guards Queues, Retired, Generation writes.
  std::condition_variable Acknowledged;
  std::vector<std::shared_ptr<QueueState>> Queues;
  std::atomic<uint64_t> Generation{0};
  uint64_t SeenGeneration = 0; // Written under Mutex by the thread.
  std::atomic<bool> Stopping{false};

  // Processor thread only.
  std::vector<std::shared_ptr<QueueState>> Active;

  std::thread Thread;
  /// Last: its workers, which run jobs referring to the members above, are
  /// joined before those go.
  WorkGroupPool Pool;
};

} // namespace cpu
} // namespace openhsa

#endif
