//===- cpu_agent/AgentDispatchAgent.cpp - Agent dispatch on the host ------===//
#include "cpu_agent/AgentDispatchAgent.h"

#include <cstring>

namespace openhsa::cpu {

AgentDispatchAgent::AgentDispatchAgent(CpuAgent &Kernel, const Topology &Topo)
    : Kernel(Kernel) {
  // The node's memory, as the kernel agent sees it; no group segment (no
  // work-groups run here) and no kernarg region (no kernels).
  const CpuNodeInfo &Node = Kernel.node();
  for (Region::Kind K :
       {Region::Kind::GlobalFineGrained, Region::Kind::GlobalCoarseGrained})
    Regions.push_back(
        std::make_unique<Region>(*this, K, Node.LocalMemoryBytes, Topo, Node));
  for (const auto &C : Kernel.caches())
    Caches.push_back(std::make_unique<Cache>(*C));
}

hsa_status_t AgentDispatchAgent::createQueue(const QueueRequest &Request,
                                             uint64_t Id, Queue *&Result) {
  return Kernel.createNodeQueue(
      *this, Request, Id, HSA_QUEUE_FEATURE_AGENT_DISPATCH, Quota, Result);
}

void AgentDispatchAgent::destroyQueue(Queue *Q, uint64_t CancelAtNs) {
  // Agent dispatch handlers are the program's host code, never cancelled;
  // the deadline matters to kernel dispatches alone, which these queues
  // do not take.
  Kernel.destroyNodeQueue(Q, Quota, CancelAtNs);
}

hsa_status_t AgentDispatchAgent::getInfo(uint32_t Attribute,
                                         void *Value) const {
  switch (Attribute) {
  case HSA_AGENT_INFO_FEATURE:
    *static_cast<hsa_agent_feature_t *>(Value) =
        HSA_AGENT_FEATURE_AGENT_DISPATCH;
    return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_ISA:
    // No instruction set: nothing runs here but the installed handlers.
    *static_cast<hsa_isa_t *>(Value) = hsa_isa_t{0};
    return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_EXTENSIONS:
    // Only the openhsa extension (its agent dispatch handlers) applies.
    std::memset(Value, 0, 128);
    static_cast<uint8_t *>(Value)[HSA_EXTENSION_OPENHSA / 8] |=
        uint8_t(1u << (HSA_EXTENSION_OPENHSA % 8));
    return HSA_STATUS_SUCCESS;
  default:
    // Name, vendor, node, queue limits, caches: the node's, as the kernel
    // agent reports them. The kernel-agent-only attributes (work-group and
    // grid limits, wavefront size...) are undefined for this agent; it
    // answers the node's values rather than fail a program that asks.
    return Kernel.getInfo(Attribute, Value);
  }
}

} // namespace openhsa::cpu
