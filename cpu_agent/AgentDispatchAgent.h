//===- cpu_agent/AgentDispatchAgent.h - Agent dispatch agents ---*- C++ -*-===//
//
// The agent of a CPU node that serves agent dispatch packets (HSA Runtime
// 2.8.2), beside the node's kernel agent (CpuAgent), as in ROCm's runtime:
// the kernel agent reports HSA_AGENT_FEATURE_KERNEL_DISPATCH alone, so
// programs that pick "the kernel agent" with feature ==
// HSA_AGENT_FEATURE_KERNEL_DISPATCH find it, and this agent reports
// HSA_AGENT_FEATURE_AGENT_DISPATCH alone. Its queues accept agent dispatch
// and barrier packets and are serviced by the node's packet processor, with
// the handlers installed through hsa_ext_openhsa_agent_dispatch_handler_set
// on this agent. It has no ISA: nothing is finalized or loaded for it.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_CPU_AGENT_AGENTDISPATCHAGENT_H
#define OPENHSA_CPU_AGENT_AGENTDISPATCHAGENT_H

#include "cpu_agent/CpuAgent.h"

namespace openhsa::cpu {

class AgentDispatchAgent final : public Agent {
public:
  /// Serves the node of Kernel, whose packet processor it shares; Kernel
  /// outlives every queue of this agent.
  AgentDispatchAgent(CpuAgent &Kernel, const Topology &Topo);

  hsa_status_t getInfo(uint32_t Attribute, void *Value) const override;
  hsa_device_type_t deviceType() const override { return HSA_DEVICE_TYPE_CPU; }
  uint32_t queueMinSize() const override { return Kernel.queueMinSize(); }
  uint32_t queueMaxSize() const override { return Kernel.queueMaxSize(); }
  uint32_t queueMaxCount() const override { return Kernel.queueMaxCount(); }
  hsa_status_t createQueue(const QueueRequest &Request, uint64_t Id,
                           Queue *&Result) override;
  void destroyQueue(Queue *Q, uint64_t CancelAtNs) override;

  AgentDispatchTable &agentDispatchTable() {
    return Kernel.agentDispatchTable();
  }

private:
  CpuAgent &Kernel;
  CpuAgent::QueueQuota Quota;
};

} // namespace openhsa::cpu

#endif
