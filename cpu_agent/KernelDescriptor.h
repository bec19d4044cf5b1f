//===- cpu_agent/KernelDescriptor.h - What a CPU kernel object is -*- C++
//-*-===//
//
// A kernel dispatch packet's kernel_object, for the CPU agent, is the
// address of a KernelDescriptor: the work-group function and the segment
// sizes it needs. The finalizer emits them for HSAIL kernels; native
// kernels (hsa_ext_openhsa.h) get one from the runtime. Descriptors are
// registered while live, so a dispatch naming anything else is rejected
// before it is followed.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_CPU_AGENT_KERNELDESCRIPTOR_H
#define OPENHSA_CPU_AGENT_KERNELDESCRIPTOR_H

#include "hsa/hsa_ext_openhsa.h"
#include "runtime/core/Registry.h"

#include <atomic>
#include <cstdint>

namespace openhsa {
class Agent;

namespace cpu {

/// Limits a kernel's control directives (PRM 13.4) put on its dispatches;
/// zero means unconstrained.
struct DispatchConstraints {
  uint32_t RequiredGridSize[3] = {0, 0, 0};
  uint32_t RequiredWorkgroupSize[3] = {0, 0, 0};
  uint8_t RequiredDim = 0;
  bool RequireNoPartialWorkgroups = false;
  uint64_t MaxFlatGridSize = 0;
  uint32_t MaxFlatWorkgroupSize = 0;
  uint32_t MaxDynamicGroupSize = 0;

  /// Whether a dispatch of this geometry keeps the constraints.
  bool admits(unsigned Dims, const uint32_t (&Grid)[3],
              const uint32_t (&Wg)[3]) const {
    const uint64_t GridItems = uint64_t(Grid[0]) * Grid[1] * Grid[2];
    const uint64_t WgItems = uint64_t(Wg[0]) * Wg[1] * Wg[2];
    bool Ok = (!RequiredDim || RequiredDim == Dims) &&
              (!MaxFlatGridSize || GridItems <= MaxFlatGridSize) &&
              (!MaxFlatWorkgroupSize || WgItems <= MaxFlatWorkgroupSize);
    for (unsigned D = 0; D < 3; ++D) {
      Ok &= !RequiredGridSize[D] || RequiredGridSize[D] == Grid[D];
      Ok &= !RequiredWorkgroupSize[D] || RequiredWorkgroupSize[D] == Wg[D];
      Ok &= !RequireNoPartialWorkgroups || Grid[D] % Wg[D] == 0;
    }
    return Ok;
  }
  /// Whether a packet's group segment size stays within the kernel's static
  /// group memory plus the dynamic maximum.
  bool admitsGroupSegment(uint64_t PacketBytes, uint32_t StaticBytes) const {
    return !MaxDynamicGroupSize ||
           PacketBytes <= uint64_t(StaticBytes) + MaxDynamicGroupSize;
  }

  bool any() const {
    return RequiredGridSize[0] || RequiredGridSize[1] || RequiredGridSize[2] ||
           RequiredWorkgroupSize[0] || RequiredWorkgroupSize[1] ||
           RequiredWorkgroupSize[2] || RequiredDim ||
           RequireNoPartialWorkgroups || MaxFlatGridSize ||
           MaxFlatWorkgroupSize || MaxDynamicGroupSize;
  }
};

struct KernelDescriptor;

/// Where a kernel can be compiled again for the shape of one dispatch
/// (runtime/ShapeVariants.h): the packet processor asks for the variant of
/// each dispatch's shape and runs it instead where there is one.
class ShapeVariantSource {
public:
  virtual ~ShapeVariantSource() = default;
  /// The kernel compiled for dispatches of this geometry and these kernel
  /// arguments (the packet's kernarg segment), or null to run the kernel
  /// itself. May compile, once per shape (thread-safe).
  virtual const KernelDescriptor *variantFor(unsigned Dims,
                                             const uint32_t (&Grid)[3],
                                             const uint32_t (&Wg)[3],
                                             const void *Kernarg) = 0;
};

struct KernelDescriptor {
  hsa_ext_openhsa_workgroup_fn_t Entry = nullptr;
  void *UserData = nullptr;
  /// Kernels of GPU agents: the gpu::GpuKernel to launch (Entry is null).
  const void *DeviceKernel = nullptr;
  /// The agent the kernel was built for; dispatches elsewhere are refused.
  const Agent *Owner = nullptr;
  uint32_t GroupSegmentSize = 0;   // Static group memory per work-group.
  uint32_t PrivateSegmentSize = 0; // Per work-item.
  uint32_t KernargSegmentSize = 0;
  uint32_t KernargSegmentAlignment = 16;
  /// Non-zero where Entry runs the slice of its group the context names
  /// (abi/CpuDispatchContext.h): the X ranges of slices start at multiples
  /// of it. Native kernels: zero, whole groups.
  uint32_t SliceStep = 0;
  /// Entry runs runs of groups along X row by row where the context asks
  /// (abi/CpuDispatchContext.h RunGroups). Native kernels: false.
  bool GroupRuns = false;
  /// Null, or where variants of this kernel for one dispatch shape come
  /// from (owned by the kernel's executable).
  ShapeVariantSource *Variants = nullptr;
  /// Checked at dispatch when HasConstraints is set.
  DispatchConstraints Constraints;
  bool HasConstraints = false;
  /// What one work-group costs, by the dispatches so far (ns; 0: not
  /// dispatched yet): the packet processor runs dispatches that were small
  /// last time on its own thread (PacketProcessor.cpp finishDispatch).
  mutable std::atomic<uint64_t> NanosPerGroup{0};

  uint64_t kernelObject() const {
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(this));
  }
  static const KernelDescriptor *fromKernelObject(uint64_t Object) {
    return reinterpret_cast<const KernelDescriptor *>(
        static_cast<uintptr_t>(Object));
  }
};

/// Every kernel object a dispatch may name.
Registry<KernelDescriptor> &liveKernels();

} // namespace cpu
} // namespace openhsa

#endif
