//===- runtime/Runtime.h - The runtime instance behind the C API -*- C++
//-*-===//
//
// hsa_init creates the Runtime on the first call and counts the others;
// hsa_shut_down destroys it on the last. It owns the topology, the agents
// and the registries that turn handles from the application into objects:
// every C entry point checks a handle against them before following it.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_RUNTIME_H
#define OPENHSA_RUNTIME_RUNTIME_H

#include "hsa/hsa.h"
#include "runtime/core/Agent.h"
#include "runtime/core/Queue.h"
#include "runtime/core/Registry.h"
#include "runtime/core/Signal.h"
#include "runtime/core/Topology.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <vector>

namespace openhsa {

class CodeObjectStore;

/// A set of signals waited on together (hsa_signal_group_t).
struct SignalGroup {
  std::vector<const Signal *> Signals;
  hsa_signal_group_t handle() const {
    return {static_cast<uint64_t>(reinterpret_cast<uintptr_t>(this))};
  }
  static SignalGroup *fromHandle(hsa_signal_group_t H) {
    return reinterpret_cast<SignalGroup *>(static_cast<uintptr_t>(H.handle));
  }
};

class Runtime {
public:
  /// hsa_init: creates or references the runtime.
  static hsa_status_t acquire();
  /// hsa_shut_down: drops a reference; the last one tears down.
  static hsa_status_t release();
  /// The live runtime, or null before hsa_init / after the last shut down.
  static Runtime *current() { return Current.load(std::memory_order_acquire); }

  const std::vector<std::unique_ptr<Agent>> &agents() const { return Agents; }
  const Topology &topology() const { return *Topo; }

  // Handle checks.
  Agent *agent(hsa_agent_t H) const;
  Region *region(hsa_region_t H) const;
  bool isIsa(hsa_isa_t H) const;
  const Cache *cache(hsa_cache_t H) const;
  Queue *queue(const hsa_queue_t *Q) const;
  Signal *signal(hsa_signal_t H) const {
    return liveSignals().contains(Signal::fromHandle(H)) ? Signal::fromHandle(H)
                                                         : nullptr;
  }

  // Signals.
  Signal *createSignal(int64_t InitialValue,
                       std::vector<const Agent *> Consumers);
  bool destroySignal(hsa_signal_t H);
  SignalGroup *createSignalGroup(std::vector<const Signal *> Signals);
  bool destroySignalGroup(hsa_signal_group_t H);
  SignalGroup *signalGroup(hsa_signal_group_t H) const;

  // Queues.
  hsa_status_t createQueue(Agent &A, const QueueRequest &Request,
                           hsa_queue_t **Result);
  hsa_status_t createSoftQueue(Region &R, uint32_t Size,
                               hsa_queue_type32_t Type, uint32_t Features,
                               Signal &Doorbell, hsa_queue_t **Result);
  hsa_status_t destroyQueue(const hsa_queue_t *Q);

  // Memory.
  hsa_status_t allocate(Region &R, size_t Size, void **Ptr);
  hsa_status_t free(void *Ptr);
  /// Registered (hsa_memory_register) ranges; size 0 ranges are allowed.
  hsa_status_t registerMemory(void *Ptr, size_t Size);
  hsa_status_t deregisterMemory(void *Ptr, size_t Size);
  /// Whether Ptr lies in an hsa_memory_allocate buffer; its owning agent.
  bool ownedBuffer(const void *Ptr, const Agent **Owner) const;
  hsa_status_t assignAgent(void *Ptr, Agent &A);
  /// The region of the hsa_memory_allocate buffer holding Ptr when the host
  /// cannot access it (a GPU's device memory); null otherwise.
  const Region *deviceRegionOf(const void *Ptr) const;

  /// Programs, code objects, readers and executables (CodeObjectStore.h).
  CodeObjectStore &codeObjects() const { return *CodeObjects; }

  ~Runtime();

  /// When a queue destroyed now cancels the kernel code of its dispatches
  /// that still runs (monotonicNanoseconds): after the grace period,
  /// OPENHSA_TEARDOWN_GRACE_MS.
  uint64_t cancelDeadline() const;

private:
  Runtime() = default;
  hsa_status_t initialize();

  static std::mutex LifetimeMutex;
  static uint32_t RefCount;
  static std::atomic<Runtime *> Current;

  std::unique_ptr<Topology> Topo;
  std::vector<std::unique_ptr<Agent>> Agents;
  uint64_t TeardownGraceNs = 0; // Read at hsa_init.
  std::unique_ptr<CodeObjectStore> CodeObjects;

  mutable std::mutex QueuesMutex;
  std::map<const hsa_queue_t *, std::unique_ptr<Queue>> SoftQueues;
  std::map<const hsa_queue_t *, Agent *> KernelQueues;
  std::atomic<uint64_t> NextQueueId{0};

  mutable std::mutex SignalsMutex;
  std::map<const Signal *, std::unique_ptr<Signal>> Signals;
  std::map<const SignalGroup *, std::unique_ptr<SignalGroup>> Groups;

  struct Allocation {
    size_t Size;
    const Region *Home;
    const Agent *Owner; // For coarse-grained buffers (assign_agent).
  };
  mutable std::shared_mutex MemoryMutex;
  std::map<const char *, Allocation> Allocations; // By start address.
  struct Registration {
    size_t Size = 0;
    uint32_t Count = 0;
    /// Pinned and mapped for GPU agents by this registration (and to be
    /// unpinned with it); false where an overlapping one did it already.
    bool Pinned = false;
  };
  std::map<const char *, Registration> Registered;
};

/// Says why an entry point cannot do its job yet (a warning, once per
/// function: runtime/core/Log.h) and returns the status it should return.
hsa_status_t notImplemented(const char *Function, hsa_status_t Status,
                            const char *Why);

} // namespace openhsa

#endif
