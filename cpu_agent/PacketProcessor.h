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
// Kernel dispatches of several work-groups run as a tbb::parallel_for over
// work-groups inside the agent's arena, asynchronously, so the thread goes
// on with other queues. A dispatch of a single work-group runs on the
// processor thread itself: handing it to a worker would cost more than
// running it.
//
// With nothing to do the thread spins briefly, then sleeps on a WakeWord
// that doorbell stores, completions and dependency signals notify.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_CPU_AGENT_PACKETPROCESSOR_H
#define OPENHSA_CPU_AGENT_PACKETPROCESSOR_H

#include "cpu_agent/WorkGroupScratch.h"
#include "runtime/core/AgentDispatchTable.h"
#include "runtime/core/Queue.h"

#include <oneapi/tbb/task_arena.h>

#include <atomic>
#include <condition_variable>
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
  PacketProcessor(const Agent &Owner, tbb::task_arena &Arena,
                  unsigned ArenaSlots, const DispatchLimits &Limits,
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
  /// Runs work-groups [Begin, End) of Job on arena slot Slot (or this
  /// thread's); false when one of them faulted: the queue is inactive, the
  /// dispatch does not complete, and the caller reports
  /// HSA_STATUS_ERROR_EXCEPTION.
  bool runWorkGroups(DispatchJob &Job, uint64_t Begin, uint64_t End,
                     unsigned Slot);
  void complete(hsa_signal_t Completion, uint16_t Header);

  const Agent &Owner;
  tbb::task_arena &Arena;
  const DispatchLimits Limits;
  const AgentDispatchTable &AgentDispatch;
  WorkGroupScratch Scratch; // Arena slots, then one for this thread.
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
};

} // namespace cpu
} // namespace openhsa

#endif
