//===- tools/openhsa-run/AgentRun.h - One kernel on one agent ---*- C++ -*-===//
//
// The kernel agents of the system, the ones --agent names, and one run of
// the kernel on one of them through the standard HSA API: finalize for the
// agent's ISA, load, lay the arguments out in the kernarg segment (each at
// its natural alignment, PRM 4.21), dispatch --repeat times.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_TOOLS_RUN_AGENTRUN_H
#define OPENHSA_TOOLS_RUN_AGENTRUN_H

#include "RunOptions.h"

#include "hsa/hsa.h"

#include <cstdint>
#include <string>
#include <vector>

namespace openhsa::run {

struct KernelAgent {
  hsa_agent_t Agent{0};
  unsigned Number = 0; // As openhsa-info numbers the agents.
  std::string Name, Isa;
  hsa_device_type_t Type = HSA_DEVICE_TYPE_CPU;
  /// The profiles its ISA finalizes, indexed by hsa_profile_t (the CPU
  /// agent's ISA takes both, a base-profile GPU's base only).
  bool Profiles[2] = {false, true};
  hsa_region_t Kernarg{0}; // The kernarg segment.
  hsa_region_t Data{0};    // Buffers: global memory the host writes.
};

/// CPU, GPU or DSP.
const char *deviceTypeName(hsa_device_type_t T);

/// Every agent that takes kernel dispatches, in the runtime's order.
std::vector<KernelAgent> kernelAgents();

/// The agents Spec (cpu, gpu, all or a number) names; dies, saying what
/// there is, when there is none.
std::vector<KernelAgent> selectAgents(const std::vector<KernelAgent> &All,
                                      const std::string &Spec);

struct AgentRun {
  /// Why the kernel did not run (empty when it did): the agent refused the
  /// module or the finalization, or the dispatch failed.
  std::string Error;
  /// The error is that the module's profile or machine model is none the
  /// agent's ISA takes: --agent all skips such an agent rather than failing.
  bool Incompatible = false;
  double FinalizeSeconds = 0;
  std::vector<double> DispatchSeconds;
  /// Each buffer argument's bytes after the last dispatch, in order.
  std::vector<std::vector<uint8_t>> Buffers;
};

/// Runs the kernel of O on A: buffers filled as the specs say, O.Repeat
/// dispatches. Everything it created is released before it returns.
AgentRun runOnAgent(const KernelAgent &A, const std::vector<uint8_t> &Brig,
                    const RunOptions &O);

} // namespace openhsa::run

#endif
