//===- cpu_agent/CpuAgent.cpp - A CPU package or NUMA node as a kernel agent
//===//
#include "cpu_agent/CpuAgent.h"

#include "abi/CpuTarget.h"
#include "abi/CpuWavefront.h"

#include "cpu_agent/KernelDescriptor.h"
#include "runtime/core/Queue.h"

#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <cstring>
#include <unistd.h>

namespace openhsa::cpu {

// The group region reports this alignment (HSA_REGION_INFO_RUNTIME_ALLOC_
// ALIGNMENT); the work-group scratch must keep it.
static_assert(WorkGroupScratch::Alignment % Region::GroupSegmentAlignment == 0);

namespace {
uint64_t ringBudget(const CpuNodeInfo &Node) {
  uint64_t Memory = Node.LocalMemoryBytes;
  if (Memory == 0) // Unknown to hwloc: the machine's.
    Memory =
        uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
  return Memory / CpuAgentLimits::RingMemoryShare;
}
} // namespace

Registry<KernelDescriptor> &liveKernels() {
  static Registry<KernelDescriptor> Kernels;
  return Kernels;
}

const Isa &hostIsa() {
  static const Isa Host = [] {
    Isa I;
    llvm::Triple T(llvm::sys::getProcessTriple());
    I.Name = "openhsa:" + T.getArchName().str() + ":" + abi::cpuTarget().Cpu;
    I.MachineModel = HSA_MACHINE_MODEL_LARGE;
    I.Profile = HSA_PROFILE_FULL;
    I.AlsoBase = true;
    I.DefaultRounding = HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR;
    // The lanes the finalizer runs a wavefront in (abi/CpuWavefront.h).
    I.WavefrontSize = abi::cpuWavefrontSize();
    for (uint16_t &D : I.WorkgroupMaxDim)
      D = CpuAgentLimits::WorkgroupMaxDim;
    I.WorkgroupMaxSize = CpuAgentLimits::WorkgroupMaxSize;
    I.GridMaxDim = {CpuAgentLimits::GridMaxDim, CpuAgentLimits::GridMaxDim,
                    CpuAgentLimits::GridMaxDim};
    I.GridMaxSize = CpuAgentLimits::GridMaxSize;
    I.FbarrierMaxSize = CpuAgentLimits::FbarrierMaxSize;
    return I;
  }();
  return Host;
}

CpuAgent::CpuAgent(const Topology &Topo, const CpuNodeInfo &Node,
                   unsigned Ordinal)
    : Topo(Topo), Node(Node), Ordinal(Ordinal),
      // One worker per processing unit the process may run on: more would
      // only take turns on them.
      Concurrency(std::max<unsigned>(1, unsigned(Node.AllowedUnits.size()))),
      RingBudget(ringBudget(Node)) {
  const uint64_t Memory = Node.LocalMemoryBytes;
  Regions.push_back(std::make_unique<Region>(
      *this, Region::Kind::GlobalFineGrained, Memory, Topo, Node));
  Regions.push_back(std::make_unique<Region>(
      *this, Region::Kind::GlobalCoarseGrained, Memory, Topo, Node));
  Regions.push_back(std::make_unique<Region>(*this, Region::Kind::Kernarg,
                                             Memory, Topo, Node));
  Regions.push_back(std::make_unique<Region>(
      *this, Region::Kind::Group, CpuAgentLimits::GroupSegmentMax, Topo, Node));

  for (const CacheLevelInfo &C : Node.Caches) {
    auto Entry = std::make_unique<Cache>();
    Entry->Level = uint8_t(C.Level);
    Entry->SizeBytes = uint32_t(std::min<uint64_t>(C.SizeBytes, UINT32_MAX));
    Entry->Name = "L" + std::to_string(C.Level) +
                  (C.Kind == "data"          ? "d"
                   : C.Kind == "instruction" ? "i"
                                             : "");
    Caches.push_back(std::move(Entry));
  }
  Isas.push_back(&hostIsa());

  DispatchLimits Limits{
      CpuAgentLimits::WorkgroupMaxSize, CpuAgentLimits::WorkgroupMaxDim,
      CpuAgentLimits::GroupSegmentMax, CpuAgentLimits::PrivateSegmentMax};
  // Where agents partition the machine, each agent's workers stay on its
  // node's processing units (and memory).
  std::function<void()> Bind;
  if (Topo.isPartitioned())
    Bind = [this] { this->Topo.bindThisThread(this->Node); };
  Processor = std::make_unique<PacketProcessor>(
      *this, Concurrency, std::move(Bind), Limits, AgentDispatch);
}

CpuAgent::~CpuAgent() { Processor.reset(); }

hsa_status_t CpuAgent::createQueue(const QueueRequest &Request, uint64_t Id,
                                   Queue *&Result) {
  // Kernel dispatch and barrier packets; agent dispatch packets go to the
  // node's agent dispatch agent.
  return createNodeQueue(*this, Request, Id, HSA_QUEUE_FEATURE_KERNEL_DISPATCH,
                         Quota, Result);
}

void CpuAgent::destroyQueue(Queue *Q, uint64_t CancelAtNs) {
  destroyNodeQueue(Q, Quota, CancelAtNs);
}

hsa_status_t CpuAgent::createNodeQueue(const Agent &Owner,
                                       const QueueRequest &Request, uint64_t Id,
                                       uint32_t Features, QueueQuota &Quota,
                                       Queue *&Result) {
  if (Quota.Count.fetch_add(1) >= CpuAgentLimits::QueuesMax) {
    Quota.Count.fetch_sub(1);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  const uint64_t Bytes = uint64_t(Request.Size) * 64;
  if (RingBytes.fetch_add(Bytes) + Bytes > RingBudget) {
    RingBytes.fetch_sub(Bytes);
    Quota.Count.fetch_sub(1);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  Queue::Config C;
  C.Owner = &Owner;
  C.Size = Request.Size;
  C.Type = Request.Type;
  C.Features = Features;
  C.Callback = Request.Callback;
  C.CallbackData = Request.CallbackData;
  C.PrivateSegmentSizeHint = Request.PrivateSegmentSize;
  C.GroupSegmentSizeHint = Request.GroupSegmentSize;
  // The ring lives on the agent's node: the processor reads every packet.
  C.AllocateRing = [](size_t Bytes, void *Ctx) {
    auto *Self = static_cast<CpuAgent *>(Ctx);
    return Self->Topo.allocateOnNode(Self->Node, Bytes);
  };
  C.FreeRing = [](void *P, size_t Bytes, void *Ctx) {
    auto *Self = static_cast<CpuAgent *>(Ctx);
    Self->Topo.freeOnNode(P, Bytes);
  };
  C.RingCtx = this;
  std::unique_ptr<Queue> Q = Queue::create(C, Id);
  if (!Q) {
    RingBytes.fetch_sub(Bytes);
    Quota.Count.fetch_sub(1);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  Processor->attach(*Q);
  Result = Q.release();
  return HSA_STATUS_SUCCESS;
}

void CpuAgent::destroyNodeQueue(Queue *Q, QueueQuota &Quota,
                                uint64_t CancelAtNs) {
  Processor->detach(*Q, CancelAtNs);
  const uint64_t Bytes = uint64_t(Q->size()) * 64;
  delete Q;
  RingBytes.fetch_sub(Bytes);
  Quota.Count.fetch_sub(1);
}

hsa_status_t CpuAgent::getInfo(uint32_t Attribute, void *Value) const {
  const Isa &I = hostIsa();
  switch (Attribute) {
  case HSA_AGENT_INFO_NAME:
    copyName64(Node.Model, Value);
    break;
  case HSA_AGENT_INFO_VENDOR_NAME:
    copyName64(Node.Vendor.empty() ? std::string("CPU") : Node.Vendor, Value);
    break;
  case HSA_AGENT_INFO_FEATURE:
    // Kernel dispatch alone, so that programs selecting the kernel agent
    // with feature == HSA_AGENT_FEATURE_KERNEL_DISPATCH find it; agent
    // dispatch is the node's AgentDispatchAgent's.
    *static_cast<hsa_agent_feature_t *>(Value) =
        HSA_AGENT_FEATURE_KERNEL_DISPATCH;
    break;
  case HSA_AGENT_INFO_MACHINE_MODEL:
    *static_cast<hsa_machine_model_t *>(Value) = I.MachineModel;
    break;
  case HSA_AGENT_INFO_PROFILE:
    *static_cast<hsa_profile_t *>(Value) = I.Profile;
    break;
  case HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
    *static_cast<hsa_default_float_rounding_mode_t *>(Value) =
        I.DefaultRounding;
    break;
  case HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES:
    // Its ISA also takes base-profile programs, rounding them as it rounds
    // full-profile ones.
    *static_cast<uint32_t *>(Value) =
        I.AlsoBase ? uint32_t(I.DefaultRounding) : 0;
    break;
  case HSA_AGENT_INFO_FAST_F16_OPERATION:
    *static_cast<bool *>(Value) = false;
    break;
  case HSA_AGENT_INFO_WAVEFRONT_SIZE:
    *static_cast<uint32_t *>(Value) = I.WavefrontSize;
    break;
  case HSA_AGENT_INFO_WORKGROUP_MAX_DIM:
    std::memcpy(Value, I.WorkgroupMaxDim, sizeof(I.WorkgroupMaxDim));
    break;
  case HSA_AGENT_INFO_WORKGROUP_MAX_SIZE:
    *static_cast<uint32_t *>(Value) = I.WorkgroupMaxSize;
    break;
  case HSA_AGENT_INFO_GRID_MAX_DIM:
    *static_cast<hsa_dim3_t *>(Value) = I.GridMaxDim;
    break;
  case HSA_AGENT_INFO_GRID_MAX_SIZE:
    *static_cast<uint32_t *>(Value) = uint32_t(I.GridMaxSize);
    break;
  case HSA_AGENT_INFO_FBARRIER_MAX_SIZE:
    *static_cast<uint32_t *>(Value) = I.FbarrierMaxSize;
    break;
  case HSA_AGENT_INFO_QUEUES_MAX:
    *static_cast<uint32_t *>(Value) = CpuAgentLimits::QueuesMax;
    break;
  case HSA_AGENT_INFO_QUEUE_MIN_SIZE:
    *static_cast<uint32_t *>(Value) = CpuAgentLimits::QueueMinSize;
    break;
  case HSA_AGENT_INFO_QUEUE_MAX_SIZE:
    *static_cast<uint32_t *>(Value) = CpuAgentLimits::QueueMaxSize;
    break;
  case HSA_AGENT_INFO_QUEUE_TYPE:
    *static_cast<hsa_queue_type32_t *>(Value) = HSA_QUEUE_TYPE_MULTI;
    break;
  case HSA_AGENT_INFO_NODE:
    *static_cast<uint32_t *>(Value) =
        Node.NumaNodeOsIndex >= 0 ? uint32_t(Node.NumaNodeOsIndex) : Ordinal;
    break;
  case HSA_AGENT_INFO_DEVICE:
    *static_cast<hsa_device_type_t *>(Value) = HSA_DEVICE_TYPE_CPU;
    break;
  case HSA_AGENT_INFO_CACHE_SIZE: {
    uint32_t Sizes[4] = {0, 0, 0, 0};
    for (const CacheLevelInfo &C : Node.Caches)
      if (C.Level >= 1 && C.Level <= 4 && C.Kind != "instruction")
        Sizes[C.Level - 1] =
            uint32_t(std::min<uint64_t>(C.SizeBytes, UINT32_MAX));
    std::memcpy(Value, Sizes, sizeof(Sizes));
    break;
  }
  case HSA_AGENT_INFO_ISA:
    *static_cast<hsa_isa_t *>(Value) = I.handle();
    break;
  case HSA_AGENT_INFO_EXTENSIONS:
    // The finalizer and openhsa (native kernels, agent dispatch handlers)
    // extensions; the images extension arrives with its issue.
    std::memset(Value, 0, 128);
    static_cast<uint8_t *>(Value)[HSA_EXTENSION_FINALIZER / 8] |=
        uint8_t(1u << (HSA_EXTENSION_FINALIZER % 8));
    static_cast<uint8_t *>(Value)[HSA_EXTENSION_OPENHSA / 8] |=
        uint8_t(1u << (HSA_EXTENSION_OPENHSA % 8));
    break;
  case HSA_AGENT_INFO_VERSION_MAJOR:
    *static_cast<uint16_t *>(Value) = 1;
    break;
  case HSA_AGENT_INFO_VERSION_MINOR:
    *static_cast<uint16_t *>(Value) = 2;
    break;
  case HSA_EXT_OPENHSA_AGENT_INFO_CACHELINE_SIZE:
    *static_cast<uint32_t *>(Value) = 64;
    break;
  case HSA_EXT_OPENHSA_AGENT_INFO_COMPUTE_UNIT_COUNT:
    // The cores the process may use (its affinity mask), not the node's.
    *static_cast<uint32_t *>(Value) = Node.AllowedCores;
    break;
  case HSA_EXT_OPENHSA_AGENT_INFO_MAX_CLOCK_FREQUENCY:
    *static_cast<uint32_t *>(Value) = Node.MaxClockMHz;
    break;
  case HSA_EXT_OPENHSA_AGENT_INFO_PRODUCT_NAME:
    copyName64(Node.Model, Value);
    break;
  default:
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

} // namespace openhsa::cpu
