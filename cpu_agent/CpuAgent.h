//===- cpu_agent/CpuAgent.h - A CPU package or NUMA node agent -*- C++ -*-===//
//
// One CpuAgent per CPU package, or per NUMA node where a package has
// several (runtime/core/Topology.h): the node's kernel agent. It owns the
// packet processor that services its queues and those of the node's agent
// dispatch agent (AgentDispatchAgent.h), with one worker thread per
// processing unit of the node that the process may run on (bound to the
// node where agents partition the machine), and its memory regions.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_CPU_AGENT_CPUAGENT_H
#define OPENHSA_CPU_AGENT_CPUAGENT_H

#include "cpu_agent/PacketProcessor.h"
#include "runtime/core/Agent.h"
#include "runtime/core/AgentDispatchTable.h"
#include "runtime/core/Topology.h"

#include <atomic>
#include <memory>

namespace openhsa::cpu {

/// The properties every CPU agent shares.
struct CpuAgentLimits {
  static constexpr uint16_t WorkgroupMaxDim = 1024;
  static constexpr uint32_t WorkgroupMaxSize = 1024;
  static constexpr uint32_t GridMaxDim = UINT32_MAX;
  static constexpr uint32_t GridMaxSize = UINT32_MAX;
  static constexpr uint32_t FbarrierMaxSize = 32;
  static constexpr uint32_t QueueMinSize = 16;
  // Every slot of a ring is written at creation (its header INVALID), so
  // each queue commits its whole ring: 128 rings of 8 MiB at most, 1 GiB,
  // the limits ROCm's GPU agents report. RingMemoryShare caps all rings of
  // a node's agents together at that share of its memory: beyond it
  // hsa_queue_create fails with OUT_OF_RESOURCES instead of swapping.
  static constexpr uint32_t QueueMaxSize = 1u << 17;
  static constexpr uint32_t QueuesMax = 128;
  static constexpr uint64_t RingMemoryShare = 8; // 1/8 of node memory.
  static constexpr uint32_t GroupSegmentMax = 64 * 1024;
  static constexpr uint32_t PrivateSegmentMax = 1u << 20; // Per work-item.
};

/// The host's instruction set as an HSA ISA: "openhsa:<arch>:<cpu>".
const Isa &hostIsa();

class CpuAgent final : public Agent {
public:
  CpuAgent(const Topology &Topo, const CpuNodeInfo &Node, unsigned Ordinal);
  ~CpuAgent() override;

  hsa_status_t getInfo(uint32_t Attribute, void *Value) const override;
  hsa_device_type_t deviceType() const override { return HSA_DEVICE_TYPE_CPU; }
  uint32_t queueMinSize() const override {
    return CpuAgentLimits::QueueMinSize;
  }
  uint32_t queueMaxSize() const override {
    return CpuAgentLimits::QueueMaxSize;
  }
  uint32_t queueMaxCount() const override { return CpuAgentLimits::QueuesMax; }
  hsa_status_t createQueue(const QueueRequest &Request, uint64_t Id,
                           Queue *&Result) override;
  void destroyQueue(Queue *Q, uint64_t CancelAtNs) override;

  /// Queues an agent of this node may have at once (QueuesMax).
  struct QueueQuota {
    std::atomic<uint32_t> Count{0};
  };
  /// Creates a queue of Owner (this agent or the node's agent dispatch
  /// agent) serviced by this node's packet processor, accepting the packets
  /// of Features (HSA_QUEUE_FEATURE_*) and barriers, counted against Quota
  /// and against the node's ring memory budget.
  hsa_status_t createNodeQueue(const Agent &Owner, const QueueRequest &Request,
                               uint64_t Id, uint32_t Features,
                               QueueQuota &Quota, Queue *&Result);
  void destroyNodeQueue(Queue *Q, QueueQuota &Quota, uint64_t CancelAtNs);

  const CpuNodeInfo &node() const { return Node; }
  /// The handlers of the node's agent dispatch agent.
  AgentDispatchTable &agentDispatchTable() { return AgentDispatch; }
  /// Worker threads the agent runs work-groups on (besides the packet
  /// processor's).
  unsigned concurrency() const { return Concurrency; }

private:
  const Topology &Topo;
  const CpuNodeInfo &Node;
  const unsigned Ordinal;
  const unsigned Concurrency;
  AgentDispatchTable AgentDispatch;
  std::unique_ptr<PacketProcessor> Processor;
  QueueQuota Quota;
  const uint64_t RingBudget; // Bytes all rings of the node may commit.
  std::atomic<uint64_t> RingBytes{0};
};

} // namespace openhsa::cpu

#endif
