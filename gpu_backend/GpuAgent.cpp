//===- gpu_backend/GpuAgent.cpp - A kernel agent per CUDA device ----------===//
#include "gpu_backend/GpuAgent.h"

#include "abi/GpuKernelAbi.h"
#include "gpu_backend/GpuQueue.h"
#include "hsa/hsa_ext_openhsa.h"
#include "runtime/core/Clock.h"
#include "runtime/core/Log.h"
#include "runtime/core/Queue.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace openhsa::gpu {

namespace {
/// A region of a GPU agent: device memory (coarse grained, not host
/// accessible), or host memory pinned and mapped into the device (fine
/// grained; the kernarg region too), or the group segment.
class GpuRegion final : public Region {
public:
  GpuRegion(const GpuAgent &Owner, Kind K, uint64_t Size, const Topology &Topo,
            const CpuNodeInfo &Node)
      : Region(Owner, K, Size, Topo, Node), Gpu(Owner) {}

  void *allocate(size_t Bytes) const override {
    if (!Gpu.makeCurrent())
      return nullptr;
    const CudaDriver &D = Gpu.driver();
    if (kind() == Kind::GlobalCoarseGrained) {
      CUdeviceptr P = 0;
      if (D.MemAlloc(&P, std::max<size_t>(Bytes, 1)) != CUDA_SUCCESS)
        return nullptr;
      return reinterpret_cast<void *>(uintptr_t(P));
    }
    // With unified addressing the device sees mapped host memory at the
    // host's address.
    void *P = nullptr;
    if (D.MemHostAlloc(&P, std::max<size_t>(Bytes, 1),
                       MemHostAllocPortable | MemHostAllocDeviceMap) !=
        CUDA_SUCCESS)
      return nullptr;
    return P;
  }
  void free(void *Ptr, size_t) const override {
    if (!Gpu.makeCurrent())
      return;
    if (kind() == Kind::GlobalCoarseGrained)
      Gpu.driver().MemFree(CUdeviceptr(uintptr_t(Ptr)));
    else
      Gpu.driver().MemFreeHost(Ptr);
  }
  bool hostAccessible() const override {
    return kind() != Kind::GlobalCoarseGrained;
  }

private:
  const GpuAgent &Gpu;
};

/// GPU agents alive: signal slabs are unmapped as the last one goes.
std::atomic<unsigned> LiveGpuAgents{0};

int attribute(const CudaDriver &D, CUdevice Dev, DeviceAttribute A) {
  int V = 0;
  if (D.DeviceGetAttribute(&V, A, Dev) != CUDA_SUCCESS)
    return 0;
  return V;
}
} // namespace

std::vector<std::unique_ptr<GpuAgent>>
GpuAgent::discover(const Topology &Topo, unsigned FirstOrdinal) {
  std::vector<std::unique_ptr<GpuAgent>> Agents;
  const CudaDriver *D = CudaDriver::get();
  if (!D || Topo.nodes().empty())
    return Agents;
  int Count = 0;
  D->DeviceGetCount(&Count);
  for (int I = 0; I < Count; ++I) {
    CUdevice Dev = 0;
    if (D->DeviceGet(&Dev, I) != CUDA_SUCCESS)
      continue;
    DeviceInfo Info;
    char Name[256] = {};
    D->DeviceGetName(Name, sizeof(Name) - 1, Dev);
    Info.Name = Name;
    Info.SmVersion =
        unsigned(attribute(*D, Dev, AttrComputeCapabilityMajor) * 10 +
                 attribute(*D, Dev, AttrComputeCapabilityMinor));
    Info.MultiprocessorCount =
        uint32_t(attribute(*D, Dev, AttrMultiprocessorCount));
    Info.MaxThreadsPerBlock =
        uint32_t(attribute(*D, Dev, AttrMaxThreadsPerBlock));
    Info.MaxBlockDim[0] = uint32_t(attribute(*D, Dev, AttrMaxBlockDimX));
    Info.MaxBlockDim[1] = uint32_t(attribute(*D, Dev, AttrMaxBlockDimY));
    Info.MaxBlockDim[2] = uint32_t(attribute(*D, Dev, AttrMaxBlockDimZ));
    Info.MaxGridDim[0] = uint32_t(attribute(*D, Dev, AttrMaxGridDimX));
    Info.MaxGridDim[1] = uint32_t(attribute(*D, Dev, AttrMaxGridDimY));
    Info.MaxGridDim[2] = uint32_t(attribute(*D, Dev, AttrMaxGridDimZ));
    Info.SharedMemoryPerBlockOptin =
        uint32_t(std::max(attribute(*D, Dev, AttrMaxSharedMemoryPerBlockOptin),
                          attribute(*D, Dev, AttrMaxSharedMemoryPerBlock)));
    Info.L2CacheBytes = uint32_t(attribute(*D, Dev, AttrL2CacheSize));
    Info.ClockMHz = uint32_t(attribute(*D, Dev, AttrClockRateKHz) / 1000);
    Info.PageableMemoryAccess =
        attribute(*D, Dev, AttrPageableMemoryAccess) != 0;
    // The _v2 stream memory operations are always enabled; the first ones
    // only where the device says so. Waits on registered host memory at its
    // host address also need that address to be valid on the device.
    Info.StreamWaitValue64 =
        D->StreamWaitValue64 &&
        attribute(*D, Dev, AttrCanUseHostPointerForRegisteredMem) != 0 &&
        (D->StreamMemOpsV2 ||
         attribute(*D, Dev, AttrCanUse64BitStreamMemOps) != 0);
    size_t Total = 0;
    D->DeviceTotalMem(&Total, Dev);
    Info.TotalMemory = Total;
    char Bus[32];
    std::snprintf(Bus, sizeof(Bus), "%04x:%02x:%02x.0",
                  attribute(*D, Dev, AttrPciDomainId),
                  attribute(*D, Dev, AttrPciBusId),
                  attribute(*D, Dev, AttrPciDeviceId));
    Info.PciBusId = Bus;
    // Kernels address mapped host memory at host addresses, and every
    // launch needs the warp of 32 lanes the finalizer assumes.
    if (!attribute(*D, Dev, AttrUnifiedAddressing) ||
        !attribute(*D, Dev, AttrCanMapHostMemory) ||
        attribute(*D, Dev, AttrWarpSize) != int(GpuWavefrontSize) ||
        Info.SmVersion < 70) {
      log::write(log::Level::Info,
                 "GPU %d (%s) is not used: it needs unified addressing, "
                 "mapped host memory and compute capability 7.0 or newer",
                 I, Name);
      continue;
    }
    CUcontext Ctx = nullptr;
    CUresult R = D->DevicePrimaryCtxRetain(&Ctx, Dev);
    if (R != CUDA_SUCCESS) {
      // A kernel that faulted leaves the context in an error state until
      // it is reset (CUDA's errors are sticky): a new hsa_init starts over.
      D->DevicePrimaryCtxReset(Dev);
      R = D->DevicePrimaryCtxRetain(&Ctx, Dev);
    }
    if (R != CUDA_SUCCESS) {
      log::write(log::Level::Info, "GPU %d (%s) is not used: %s", I, Name,
                 D->errorText(R).c_str());
      continue;
    }
    const CpuNodeInfo &Near = nearestCpuNode(Topo, Info.PciBusId);
    Agents.push_back(
        std::make_unique<GpuAgent>(*D, Dev, Ctx, std::move(Info), Topo, Near,
                                   FirstOrdinal + unsigned(Agents.size())));
  }
  return Agents;
}

GpuAgent::GpuAgent(const CudaDriver &Driver, CUdevice Device, CUcontext Context,
                   DeviceInfo DI, const Topology &Topo, const CpuNodeInfo &Near,
                   unsigned Ordinal)
    : Driver(Driver), Device(Device), Context(Context), Info(std::move(DI)),
      Near(Near), Ordinal(Ordinal),
      NearOrdinal(unsigned(&Near - Topo.nodes().data())) {
  Regions.push_back(std::make_unique<GpuRegion>(
      *this, Region::Kind::GlobalCoarseGrained, Info.TotalMemory, Topo, Near));
  const uint64_t Host =
      Near.LocalMemoryBytes ? Near.LocalMemoryBytes : Info.TotalMemory;
  Regions.push_back(std::make_unique<GpuRegion>(
      *this, Region::Kind::GlobalFineGrained, Host, Topo, Near));
  Regions.push_back(std::make_unique<GpuRegion>(*this, Region::Kind::Kernarg,
                                                Host, Topo, Near));
  Regions.push_back(std::make_unique<GpuRegion>(
      *this, Region::Kind::Group, Info.SharedMemoryPerBlockOptin, Topo, Near));
  auto L2 = std::make_unique<Cache>();
  L2->Name = "L2";
  L2->Level = 2;
  L2->SizeBytes = Info.L2CacheBytes;
  Caches.push_back(std::move(L2));

  OwnIsa = std::make_unique<Isa>();
  Isa &I = *OwnIsa;
  I.Name = gpuIsaName(Info.SmVersion);
  I.MachineModel = HSA_MACHINE_MODEL_LARGE;
  I.Profile = Info.PageableMemoryAccess ? HSA_PROFILE_FULL : HSA_PROFILE_BASE;
  I.DefaultRounding = HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR;
  I.WavefrontSize = GpuWavefrontSize;
  for (unsigned D = 0; D < 3; ++D)
    I.WorkgroupMaxDim[D] = uint16_t(
        std::min<uint32_t>(Info.MaxBlockDim[D], Info.MaxThreadsPerBlock));
  I.WorkgroupMaxSize = Info.MaxThreadsPerBlock;
  // Work-items: the launch's blocks times a work-group of one work-item at
  // least, within HSAIL's 32-bit grid sizes.
  I.GridMaxDim = {UINT32_MAX,
                  std::min<uint32_t>(Info.MaxGridDim[1], UINT32_MAX),
                  std::min<uint32_t>(Info.MaxGridDim[2], UINT32_MAX)};
  I.GridMaxSize = UINT32_MAX;
  I.FbarrierMaxSize = 32; // In group memory (finalizer/LowerFbarrier.cpp).
  Isas.push_back(OwnIsa.get());
  LiveGpuAgents.fetch_add(1);
  // These may wait for the device, which no stream can block yet: signals
  // and queues kernels may modify, and the clock's origin.
  if (makeCurrent()) {
    mapSignalArena(*this);
    mapQueueArena(*this);
  }
  timestampOffset();
}

GpuAgent::~GpuAgent() {
  Regions.clear();
  if (makeCurrent()) {
    if (KernelsLoaded)
      Driver.ModuleUnload(Kernels.Module);
    // Mapped signal slabs are registered for every device: they go with
    // the last agent.
    if (LiveGpuAgents.fetch_sub(1) == 1)
      unmapSignals(Driver);
  } else {
    LiveGpuAgents.fetch_sub(1);
  }
  Driver.DevicePrimaryCtxRelease(Device);
}

const DeviceKernels *GpuAgent::deviceKernels() const {
  std::call_once(KernelsOnce, [this] {
    KernelsLoaded = makeCurrent() && loadDeviceKernels(*this, Kernels);
  });
  return KernelsLoaded ? &Kernels : nullptr;
}

int64_t GpuAgent::timestampOffset() const {
  std::call_once(ClockOnce, [this] {
    const DeviceKernels *K = deviceKernels();
    void *Out = nullptr;
    CUstream Stream = nullptr;
    auto Fail = [&](const char *What, CUresult R) {
      log::write(log::Level::Error,
                 "the GPU's clock cannot be measured against the host's "
                 "(clock instructions on it are off by an unknown amount): "
                 "%s: %s",
                 What, Driver.errorText(R).c_str());
    };
    if (!K || !makeCurrent())
      return Fail("no device kernels", CUDA_SUCCESS);
    if (CUresult R =
            Driver.MemHostAlloc(&Out, sizeof(uint64_t), MemHostAllocDeviceMap);
        R != CUDA_SUCCESS)
      return Fail("cuMemHostAlloc", R);
    if (CUresult R = Driver.StreamCreate(&Stream, StreamNonBlocking);
        R != CUDA_SUCCESS) {
      Driver.MemFreeHost(Out);
      return Fail("cuStreamCreate", R);
    }
    uint64_t Best = UINT64_MAX;
    for (int Round = 0; Round < 5; ++Round) {
      void *Params[] = {&Out};
      const uint64_t Before = systemTimestamp();
      CUresult R = Driver.LaunchKernel(K->GlobalTimer, 1, 1, 1, 1, 1, 1, 0,
                                       Stream, Params, nullptr);
      if (R == CUDA_SUCCESS)
        R = Driver.StreamSynchronize(Stream);
      const uint64_t After = systemTimestamp();
      if (R != CUDA_SUCCESS) {
        Fail("the timer kernel", R);
        break;
      }
      const uint64_t DeviceNs = *static_cast<volatile uint64_t *>(Out);
      if (After - Before < Best) {
        Best = After - Before;
        ClockOffset = int64_t(Before + (After - Before) / 2) -
                      int64_t(nanosecondsToTicks(DeviceNs));
      }
    }
    Driver.StreamDestroy(Stream);
    Driver.MemFreeHost(Out);
    log::write(log::Level::Info,
               "GPU clock: %%globaltimer + %lld ticks, measured within %llu "
               "ticks",
               (long long)ClockOffset, (unsigned long long)(Best / 2));
  });
  return ClockOffset;
}

bool GpuAgent::makeCurrent() const {
  return Driver.CtxSetCurrent(Context) == CUDA_SUCCESS;
}

hsa_status_t GpuAgent::createQueue(const QueueRequest &Request, uint64_t Id,
                                   Queue *&Result) {
  if (QueueCount.fetch_add(1) >= queueMaxCount()) {
    QueueCount.fetch_sub(1);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  Queue::Config C;
  C.Owner = this;
  C.Size = Request.Size;
  C.Type = Request.Type;
  C.Features = HSA_QUEUE_FEATURE_KERNEL_DISPATCH;
  C.Callback = Request.Callback;
  C.CallbackData = Request.CallbackData;
  C.PrivateSegmentSizeHint = Request.PrivateSegmentSize;
  C.GroupSegmentSizeHint = Request.GroupSegmentSize;
  std::unique_ptr<Queue> Q = Queue::create(C, Id);
  if (!Q) {
    QueueCount.fetch_sub(1);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  auto Service = GpuQueueService::start(*this, *Q);
  if (!Service) {
    QueueCount.fetch_sub(1);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  Q->setProcessor(Service.release());
  Result = Q.release();
  return HSA_STATUS_SUCCESS;
}

void GpuAgent::destroyQueue(Queue *Q, uint64_t CancelAtNs) {
  QueueProcessor *Service = Q->processor();
  Service->detach(*Q, CancelAtNs);
  delete Service;
  delete Q;
  QueueCount.fetch_sub(1);
}

hsa_status_t GpuAgent::getInfo(uint32_t Attribute, void *Value) const {
  const Isa &I = *OwnIsa;
  switch (Attribute) {
  case HSA_AGENT_INFO_NAME:
    copyName64(I.Name.substr(I.Name.rfind(':') + 1), Value);
    break;
  case HSA_AGENT_INFO_VENDOR_NAME:
    copyName64("NVIDIA", Value);
    break;
  case HSA_AGENT_INFO_FEATURE:
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
    *static_cast<uint32_t *>(Value) = I.Profile == HSA_PROFILE_BASE
                                          ? HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR
                                          : 0;
    break;
  case HSA_AGENT_INFO_FAST_F16_OPERATION:
    *static_cast<bool *>(Value) = false; // f16 is lowered through f32.
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
    *static_cast<uint32_t *>(Value) = queueMaxCount();
    break;
  case HSA_AGENT_INFO_QUEUE_MIN_SIZE:
    *static_cast<uint32_t *>(Value) = queueMinSize();
    break;
  case HSA_AGENT_INFO_QUEUE_MAX_SIZE:
    *static_cast<uint32_t *>(Value) = queueMaxSize();
    break;
  case HSA_AGENT_INFO_QUEUE_TYPE:
    *static_cast<hsa_queue_type32_t *>(Value) = HSA_QUEUE_TYPE_MULTI;
    break;
  case HSA_AGENT_INFO_NODE:
    // The NUMA node of the nearest CPU agent, numbered as CPU agents
    // number theirs: a program finds the CPU agent next to the GPU.
    *static_cast<uint32_t *>(Value) = Near.NumaNodeOsIndex >= 0
                                          ? uint32_t(Near.NumaNodeOsIndex)
                                          : NearOrdinal;
    break;
  case HSA_AGENT_INFO_DEVICE:
    *static_cast<hsa_device_type_t *>(Value) = HSA_DEVICE_TYPE_GPU;
    break;
  case HSA_AGENT_INFO_CACHE_SIZE: {
    uint32_t Sizes[4] = {0, Info.L2CacheBytes, 0, 0};
    std::memcpy(Value, Sizes, sizeof(Sizes));
    break;
  }
  case HSA_AGENT_INFO_ISA:
    *static_cast<hsa_isa_t *>(Value) = I.handle();
    break;
  case HSA_AGENT_INFO_EXTENSIONS:
    std::memset(Value, 0, 128);
    static_cast<uint8_t *>(Value)[HSA_EXTENSION_FINALIZER / 8] |=
        uint8_t(1u << (HSA_EXTENSION_FINALIZER % 8));
    break;
  case HSA_AGENT_INFO_VERSION_MAJOR:
    *static_cast<uint16_t *>(Value) = 1;
    break;
  case HSA_AGENT_INFO_VERSION_MINOR:
    *static_cast<uint16_t *>(Value) = 2;
    break;
  case HSA_EXT_OPENHSA_AGENT_INFO_CACHELINE_SIZE:
    *static_cast<uint32_t *>(Value) = 128;
    break;
  case HSA_EXT_OPENHSA_AGENT_INFO_COMPUTE_UNIT_COUNT:
    *static_cast<uint32_t *>(Value) = Info.MultiprocessorCount;
    break;
  case HSA_EXT_OPENHSA_AGENT_INFO_MAX_CLOCK_FREQUENCY:
    *static_cast<uint32_t *>(Value) = Info.ClockMHz;
    break;
  case HSA_EXT_OPENHSA_AGENT_INFO_PRODUCT_NAME:
    copyName64(Info.Name, Value);
    break;
  default:
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

bool copyMemory(const GpuAgent &A, void *Dst, const void *Src, size_t Size) {
  if (!A.makeCurrent())
    return false;
  // With unified addressing the driver tells the kinds of memory apart.
  return A.driver().Memcpy(CUdeviceptr(uintptr_t(Dst)),
                           CUdeviceptr(uintptr_t(Src)), Size) == CUDA_SUCCESS;
}

const CpuNodeInfo &nearestCpuNode(const Topology &Topo,
                                  const std::string &BusId,
                                  const std::string &SysfsRoot) {
  const std::string Dir = SysfsRoot + "/bus/pci/devices/" + BusId + "/";
  auto ReadLine = [](const std::string &Path) {
    std::ifstream In(Path);
    std::string Line;
    std::getline(In, Line);
    return Line;
  };
  // The device's NUMA node, where the machine has several.
  const std::string Numa = ReadLine(Dir + "numa_node");
  if (!Numa.empty() && Numa[0] != '-') {
    const int Node = std::atoi(Numa.c_str());
    for (const CpuNodeInfo &N : Topo.nodes())
      if (N.NumaNodeOsIndex == Node)
        return N;
  }
  // Else the node holding the first of its local CPUs ("0-15,32-47").
  const std::string Cpus = ReadLine(Dir + "local_cpulist");
  if (!Cpus.empty() && std::isdigit(static_cast<unsigned char>(Cpus[0]))) {
    const unsigned First = unsigned(std::atoi(Cpus.c_str()));
    for (const CpuNodeInfo &N : Topo.nodes())
      if (std::find(N.ProcessingUnits.begin(), N.ProcessingUnits.end(),
                    First) != N.ProcessingUnits.end())
        return N;
  }
  return Topo.nodes().front();
}

PinResult pinHostMemory(const GpuAgent &A, void *Ptr, size_t Size) {
  if (!A.makeCurrent())
    return PinResult::Failed;
  CUresult R = A.driver().MemHostRegister(
      Ptr, Size, MemHostRegisterPortable | MemHostRegisterDeviceMap);
  if (R == CUDA_SUCCESS)
    return PinResult::Pinned;
  // Inside a range registered before: already reachable.
  if (R == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
    return PinResult::AlreadyPinned;
  log::write(log::Level::Error, "cannot register %zu bytes for GPU agents: %s",
             Size, A.driver().errorText(R).c_str());
  return PinResult::Failed;
}

void unpinHostMemory(const GpuAgent &A, void *Ptr) {
  if (A.makeCurrent())
    A.driver().MemHostUnregister(Ptr);
}

} // namespace openhsa::gpu
