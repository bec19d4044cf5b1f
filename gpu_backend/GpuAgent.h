//===- gpu_backend/GpuAgent.h - A kernel agent per CUDA device --*- C++ -*-===//
//
// One HSA kernel agent per device the CUDA driver reports. Its regions are
// the device's memory (coarse grained), host memory mapped into the device
// (fine grained, also the kernarg region) and the group segment (shared
// memory); its ISA is "openhsa:nvptx:sm_XY", for which the finalizer emits
// PTX (finalizer/GpuTarget.h). Each queue has a service thread that turns
// AQL packets into launches on a CUDA stream (gpu_backend/GpuQueue.h).
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_GPU_BACKEND_GPUAGENT_H
#define OPENHSA_GPU_BACKEND_GPUAGENT_H

#include "gpu_backend/CudaDriver.h"
#include "gpu_backend/GpuSignals.h"
#include "runtime/core/Agent.h"
#include "runtime/core/Topology.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace openhsa::gpu {

/// What the driver says about a device.
struct DeviceInfo {
  std::string Name;
  unsigned SmVersion = 0; // 90 for compute capability 9.0.
  uint32_t MultiprocessorCount = 0;
  uint32_t MaxThreadsPerBlock = 0;
  uint32_t MaxBlockDim[3] = {0, 0, 0};
  uint32_t MaxGridDim[3] = {0, 0, 0}; // Blocks.
  uint32_t SharedMemoryPerBlockOptin = 0;
  uint32_t L2CacheBytes = 0;
  uint32_t ClockMHz = 0;
  uint64_t TotalMemory = 0;
  bool PageableMemoryAccess = false; // Kernels may touch any host memory.
  bool StreamWaitValue64 = false;    // cuStreamWaitValue64 works.
  std::string PciBusId;              // "dddd:bb:dd.0"
};

class GpuAgent final : public Agent {
public:
  /// One agent per device; none without a driver. Ordinals continue the
  /// CPU agents' for HSA_AGENT_INFO_NODE.
  static std::vector<std::unique_ptr<GpuAgent>> discover(const Topology &Topo,
                                                         unsigned FirstOrdinal);

  GpuAgent(const CudaDriver &Driver, CUdevice Device, CUcontext Context,
           DeviceInfo Info, const Topology &Topo, const CpuNodeInfo &Near,
           unsigned Ordinal);
  ~GpuAgent() override;

  hsa_status_t getInfo(uint32_t Attribute, void *Value) const override;
  hsa_device_type_t deviceType() const override { return HSA_DEVICE_TYPE_GPU; }
  uint32_t queueMinSize() const override { return 16; }
  uint32_t queueMaxSize() const override { return 1u << 17; }
  uint32_t queueMaxCount() const override { return 64; }
  hsa_status_t createQueue(const QueueRequest &Request, uint64_t Id,
                           Queue *&Result) override;
  void destroyQueue(Queue *Q, uint64_t CancelAtNs) override;

  const CudaDriver &driver() const { return Driver; }
  const DeviceInfo &info() const { return Info; }
  const Isa &isa() const { return *OwnIsa; }
  /// Makes the device's primary context current on the calling thread.
  bool makeCurrent() const;
  /// The dynamic shared memory a launch may use (the opt-in maximum).
  uint32_t groupSegmentMax() const { return Info.SharedMemoryPerBlockOptin; }
  /// The signal kernels (gpu_backend/GpuSignals.h), loaded on first use
  /// with the context current; null where they do not load.
  const DeviceKernels *deviceKernels() const;
  /// What to add to the device's %globaltimer in 400 MHz ticks to get the
  /// HSA system timestamp (the clock instruction: one view of time for
  /// every agent, PRM 11.4). Measured once, by launching a kernel that
  /// reads the timer between two host timestamps: within half the shortest
  /// of five round trips (a few microseconds). 0, with a message, where the
  /// kernel cannot run.
  int64_t timestampOffset() const;

private:
  const CudaDriver &Driver;
  CUdevice Device;
  CUcontext Context;
  DeviceInfo Info;
  const CpuNodeInfo &Near;
  unsigned Ordinal;
  unsigned NearOrdinal; // Near's index among the CPU nodes.
  std::unique_ptr<Isa> OwnIsa;
  std::atomic<uint32_t> QueueCount{0};
  mutable std::once_flag KernelsOnce;
  mutable DeviceKernels Kernels;
  mutable bool KernelsLoaded = false;
  mutable std::once_flag ClockOnce;
  mutable int64_t ClockOffset = 0;
};

/// Copies Size bytes between any two addresses the host or agent A can
/// reach (hsa_memory_copy, where a buffer is A's device memory); false when
/// the driver refuses.
bool copyMemory(const GpuAgent &A, void *Dst, const void *Src, size_t Size);

/// The CPU node nearest the PCI device BusId ("dddd:bb:dd.f"), from the
/// NUMA node or local CPUs Linux reports under SysfsRoot/bus/pci/devices;
/// the first node where it reports neither.
const CpuNodeInfo &nearestCpuNode(const Topology &Topo,
                                  const std::string &BusId,
                                  const std::string &SysfsRoot = "/sys");

/// hsa_memory_register for GPU agents: pins Size bytes at Ptr and maps
/// them into every device at the same address (portable registration).
enum class PinResult { Pinned, AlreadyPinned, Failed };
PinResult pinHostMemory(const GpuAgent &A, void *Ptr, size_t Size);
void unpinHostMemory(const GpuAgent &A, void *Ptr);

} // namespace openhsa::gpu

#endif
