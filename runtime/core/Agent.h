//===- runtime/core/Agent.h - HSA agents, regions, ISAs, caches -*- C++ -*-===//
//
// The objects behind hsa_agent_t, hsa_region_t, hsa_isa_t and hsa_cache_t
// handles: each handle is the object's address. Handles coming from the
// application are checked against the runtime's registry before use
// (runtime/Runtime.h), never trusted.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_CORE_AGENT_H
#define OPENHSA_RUNTIME_CORE_AGENT_H

#include "hsa/hsa.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace openhsa {

class Agent;
class Queue;
struct CpuNodeInfo;
class Topology;

/// A memory region (HSA Runtime 2.7.2).
class Region {
public:
  enum class Kind {
    GlobalFineGrained,   // Host memory every agent sees coherently.
    GlobalCoarseGrained, // Owned by one agent at a time.
    Kernarg,             // Fine-grained, for kernel argument blocks.
    Group,               // Per work-group scratch; not allocatable.
  };

  Region(const Agent &Owner, Kind K, uint64_t Size, const Topology &Topo,
         const CpuNodeInfo &Node)
      : Owner(Owner), K(K), Size(Size), Topo(Topo), Node(Node) {}
  virtual ~Region();

  hsa_region_t handle() const {
    return {static_cast<uint64_t>(reinterpret_cast<uintptr_t>(this))};
  }
  static Region *fromHandle(hsa_region_t H) {
    return reinterpret_cast<Region *>(static_cast<uintptr_t>(H.handle));
  }

  const Agent &owner() const { return Owner; }
  Kind kind() const { return K; }
  bool isAllocatable() const { return K != Kind::Group; }
  hsa_status_t getInfo(uint32_t Attribute, void *Value) const;

  /// Allocation granule and alignment of hsa_memory_allocate.
  static constexpr size_t Granule = 4096;
  /// Alignment of a dispatch's group segment base, which agents guarantee
  /// (the CPU agent's work-group scratch is cache-line aligned). Reported as
  /// the group region's HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT.
  static constexpr size_t GroupSegmentAlignment = 64;
  /// Largest single allocation.
  uint64_t maxAllocation() const { return Size; }

  /// Host memory on the node by default; a GPU agent's regions allocate
  /// through its driver (gpu_backend/GpuAgent.h).
  virtual void *allocate(size_t Bytes) const;
  virtual void free(void *Ptr, size_t Bytes) const;
  /// Whether the host can read and write this region's memory directly
  /// (false for memory of a GPU, which hsa_memory_copy reaches).
  virtual bool hostAccessible() const { return true; }

private:
  const Agent &Owner;
  Kind K;
  uint64_t Size;
  const Topology &Topo;
  const CpuNodeInfo &Node;
};

/// An instruction set architecture (HSA Runtime 2.9.1).
struct Isa {
  std::string Name; // "openhsa:<arch>:<cpu>", vendor first.
  hsa_machine_model_t MachineModel;
  hsa_profile_t Profile; // The agent's (HSA_AGENT_INFO_PROFILE).
  /// A full-profile ISA that also finalizes base-profile programs (the CPU
  /// agent's: base is a subset of full, PRM 16), so that one $base module
  /// runs on the CPU and on a base-profile GPU agent.
  bool AlsoBase = false;
  hsa_default_float_rounding_mode_t DefaultRounding;
  uint32_t WavefrontSize;
  uint16_t WorkgroupMaxDim[3];
  uint32_t WorkgroupMaxSize;
  hsa_dim3_t GridMaxDim;
  uint64_t GridMaxSize;
  uint32_t FbarrierMaxSize;

  hsa_isa_t handle() const {
    return {static_cast<uint64_t>(reinterpret_cast<uintptr_t>(this))};
  }
  static const Isa *fromHandle(hsa_isa_t H) {
    return reinterpret_cast<const Isa *>(static_cast<uintptr_t>(H.handle));
  }
  bool supports(hsa_profile_t P) const {
    return P == Profile || (P == HSA_PROFILE_BASE && AlsoBase);
  }
  hsa_status_t getInfo(uint32_t Attribute, uint32_t Index, void *Value) const;
};

/// A wavefront of an ISA (HSA Runtime 2.9.2).
struct Wavefront {
  uint32_t Size;
  hsa_wavefront_t handle() const {
    return {static_cast<uint64_t>(reinterpret_cast<uintptr_t>(this))};
  }
  static const Wavefront *fromHandle(hsa_wavefront_t H) {
    return reinterpret_cast<const Wavefront *>(
        static_cast<uintptr_t>(H.handle));
  }
};

/// A cache of an agent (HSA Runtime 2.3.2).
struct Cache {
  std::string Name;
  uint8_t Level;
  uint32_t SizeBytes;
  hsa_cache_t handle() const {
    return {static_cast<uint64_t>(reinterpret_cast<uintptr_t>(this))};
  }
  static const Cache *fromHandle(hsa_cache_t H) {
    return reinterpret_cast<const Cache *>(static_cast<uintptr_t>(H.handle));
  }
  hsa_status_t getInfo(uint32_t Attribute, void *Value) const;
};

/// Parameters of hsa_queue_create, checked by the caller.
struct QueueRequest {
  uint32_t Size;
  hsa_queue_type32_t Type;
  void (*Callback)(hsa_status_t, hsa_queue_t *, void *);
  void *CallbackData;
  uint32_t PrivateSegmentSize;
  uint32_t GroupSegmentSize;
};

/// An HSA agent. Kernel agents (the CPU agent, GPU agents) implement it.
class Agent {
public:
  virtual ~Agent();

  hsa_agent_t handle() const {
    return {static_cast<uint64_t>(reinterpret_cast<uintptr_t>(this))};
  }
  static Agent *fromHandle(hsa_agent_t H) {
    return reinterpret_cast<Agent *>(static_cast<uintptr_t>(H.handle));
  }

  /// Attributes are the caller's integers (hsa_agent_info_t or an
  /// extension's): never loaded as the C++ enum (runtime/api/EnumArg.h).
  virtual hsa_status_t getInfo(uint32_t Attribute, void *Value) const = 0;
  virtual hsa_device_type_t deviceType() const = 0;
  virtual uint32_t queueMinSize() const = 0;
  virtual uint32_t queueMaxSize() const = 0;
  virtual uint32_t queueMaxCount() const = 0;
  /// Creates a queue this agent processes. Arguments are already checked
  /// against the agent's limits.
  virtual hsa_status_t createQueue(const QueueRequest &Request, uint64_t Id,
                                   Queue *&Result) = 0;
  /// Detaches Q from this agent's processor and frees it. Work of Q still
  /// running at CancelAtNs (monotonicNanoseconds) is cancelled where the
  /// agent can (CPU agents: QueueProcessor::detach).
  virtual void destroyQueue(Queue *Q, uint64_t CancelAtNs) = 0;

  const std::vector<std::unique_ptr<Region>> &regions() const {
    return Regions;
  }
  const std::vector<std::unique_ptr<Cache>> &caches() const { return Caches; }
  const std::vector<const Isa *> &isas() const { return Isas; }
  hsa_exception_policy_t defaultExceptionPolicy() const {
    return HSA_EXCEPTION_POLICY_DETECT;
  }

protected:
  std::vector<std::unique_ptr<Region>> Regions;
  std::vector<std::unique_ptr<Cache>> Caches;
  std::vector<const Isa *> Isas;
};

/// Copies a string attribute into the fixed 64-byte field the API defines
/// for names (NUL padded, truncated to 63 characters).
void copyName64(const std::string &Source, void *Destination);

} // namespace openhsa

#endif
