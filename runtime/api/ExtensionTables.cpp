//===- runtime/api/ExtensionTables.cpp - Which extensions, their tables ---===//
//
// The finalizer extension (version 1.00, FinalizerApi.cpp) and the openhsa
// vendor extension are implemented. The images extension is not yet (it
// comes with its own issue), so it is reported unsupported and its table is
// refused; its entry points exist and return errors (NotAvailableApi.cpp).
//
//===----------------------------------------------------------------------===//
#include "runtime/api/ExtensionTables.h"

#include "cpu_agent/AgentDispatchAgent.h"
#include "cpu_agent/CpuAgent.h"
#include "cpu_agent/KernelDescriptor.h"
#include "hsa/hsa_ext_finalize.h"
#include "hsa/hsa_ext_openhsa.h"
#include "runtime/api/ApiCommon.h"

#include <algorithm>
#include <cstring>

using namespace openhsa;

namespace {

hsa_status_t nativeKernelCreate(hsa_agent_t agent,
                                const hsa_ext_openhsa_native_kernel_t *kernel,
                                uint64_t *kernel_object) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Agent *A = R->agent(agent);
  OPENHSA_REQUIRE(A, HSA_STATUS_ERROR_INVALID_AGENT);
  // Only the CPU kernel agents run kernels.
  OPENHSA_REQUIRE(dynamic_cast<cpu::CpuAgent *>(A),
                  HSA_STATUS_ERROR_INVALID_AGENT);
  OPENHSA_REQUIRE(kernel && kernel_object && kernel->workgroup_function,
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  const uint32_t Align = kernel->kernarg_segment_alignment;
  OPENHSA_REQUIRE(Align >= 16 && (Align & (Align - 1)) == 0,
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  auto *K = new cpu::KernelDescriptor();
  K->Entry = kernel->workgroup_function;
  K->UserData = kernel->user_data;
  K->Owner = A;
  K->GroupSegmentSize = kernel->group_segment_size;
  K->PrivateSegmentSize = kernel->private_segment_size;
  K->KernargSegmentSize = kernel->kernarg_segment_size;
  K->KernargSegmentAlignment = Align;
  cpu::liveKernels().add(K);
  *kernel_object = K->kernelObject();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t nativeKernelDestroy(uint64_t kernel_object) {
  OPENHSA_REQUIRE_RUNTIME(R);
  const auto *K = cpu::KernelDescriptor::fromKernelObject(kernel_object);
  OPENHSA_REQUIRE(cpu::liveKernels().remove(K),
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  delete K;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t
agentDispatchHandlerSet(hsa_agent_t agent, uint16_t type,
                        hsa_ext_openhsa_agent_dispatch_fn_t handler,
                        void *data) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Agent *A = R->agent(agent);
  OPENHSA_REQUIRE(A, HSA_STATUS_ERROR_INVALID_AGENT);
  // Agent dispatch packets are served by the agent dispatch agents.
  auto *Host = dynamic_cast<cpu::AgentDispatchAgent *>(A);
  OPENHSA_REQUIRE(Host, HSA_STATUS_ERROR_INVALID_AGENT);
  Host->agentDispatchTable().set(type, handler, data);
  return HSA_STATUS_SUCCESS;
}

const hsa_ext_openhsa_1_pfn_t OpenhsaTable = {
    nativeKernelCreate, nativeKernelDestroy, agentDispatchHandlerSet};

const hsa_ext_finalizer_1_00_pfn_t FinalizerTable = {
    hsa_ext_program_create,          hsa_ext_program_destroy,
    hsa_ext_program_add_module,      hsa_ext_program_iterate_modules,
    hsa_ext_program_get_info,        hsa_ext_program_finalize};

} // namespace

namespace openhsa {

const char *extensionName(uint16_t Extension) {
  switch (Extension) {
  case HSA_EXTENSION_FINALIZER:
    return "HSA_EXTENSION_FINALIZER";
  case HSA_EXTENSION_IMAGES:
    return "HSA_EXTENSION_IMAGES";
  case HSA_EXTENSION_PERFORMANCE_COUNTERS:
    return "HSA_EXTENSION_PERFORMANCE_COUNTERS";
  case HSA_EXTENSION_PROFILING_EVENTS:
    return "HSA_EXTENSION_PROFILING_EVENTS";
  case HSA_EXTENSION_OPENHSA:
    return "HSA_EXTENSION_OPENHSA";
  default:
    return nullptr;
  }
}

const std::vector<uint16_t> &supportedExtensions() {
  static const std::vector<uint16_t> Supported = {HSA_EXTENSION_FINALIZER,
                                                  HSA_EXTENSION_OPENHSA};
  return Supported;
}

bool extensionSupported(uint16_t Extension, uint16_t Major, uint16_t *Minor) {
  if ((Extension == HSA_EXTENSION_FINALIZER ||
       Extension == HSA_EXTENSION_OPENHSA) &&
      Major == 1) {
    *Minor = 0;
    return true;
  }
  return false;
}

hsa_status_t copyExtensionTable(uint16_t Extension, uint16_t Major,
                                size_t Length, void *Table) {
  if (Extension == HSA_EXTENSION_OPENHSA && Major == 1) {
    std::memcpy(Table, &OpenhsaTable, std::min(Length, sizeof(OpenhsaTable)));
    return HSA_STATUS_SUCCESS;
  }
  if (Extension == HSA_EXTENSION_FINALIZER && Major == 1) {
    std::memcpy(Table, &FinalizerTable,
                std::min(Length, sizeof(FinalizerTable)));
    return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

} // namespace openhsa
