//===- runtime/core/Agent.cpp - HSA agents, regions, ISAs, caches ---------===//
#include "runtime/core/Agent.h"

#include "runtime/core/Topology.h"

#include <cstdlib>
#include <cstring>

namespace openhsa {

Agent::~Agent() = default;
Region::~Region() = default;

void copyName64(const std::string &Source, void *Destination) {
  char *Out = static_cast<char *>(Destination);
  std::memset(Out, 0, 64);
  std::memcpy(Out, Source.data(), std::min<size_t>(Source.size(), 63));
}

namespace {
/// Buffers at least this large are mapped on the agent's NUMA node; smaller
/// ones come from the heap, whose pages the first writer places.
constexpr size_t NodeMappedThreshold = size_t(1) << 20;

size_t roundToGranule(size_t Bytes) {
  return (Bytes + Region::Granule - 1) & ~(Region::Granule - 1);
}
} // namespace

void *Region::allocate(size_t Bytes) const {
  const size_t Rounded = roundToGranule(Bytes);
  if (Rounded < Bytes) // Overflow.
    return nullptr;
  if (Rounded >= NodeMappedThreshold)
    return Topo.allocateOnNode(Node, Rounded);
  return std::aligned_alloc(Granule, Rounded);
}

void Region::free(void *Ptr, size_t Bytes) const {
  const size_t Rounded = roundToGranule(Bytes);
  if (Rounded >= NodeMappedThreshold)
    Topo.freeOnNode(Ptr, Rounded);
  else
    std::free(Ptr);
}

hsa_status_t Region::getInfo(uint32_t Attribute, void *Value) const {
  const bool Global = K != Kind::Group;
  switch (Attribute) {
  case HSA_REGION_INFO_SEGMENT:
    *static_cast<hsa_region_segment_t *>(Value) =
        Global ? HSA_REGION_SEGMENT_GLOBAL : HSA_REGION_SEGMENT_GROUP;
    break;
  case HSA_REGION_INFO_GLOBAL_FLAGS: {
    uint32_t Flags = 0;
    switch (K) {
    case Kind::GlobalFineGrained:
      Flags = HSA_REGION_GLOBAL_FLAG_FINE_GRAINED;
      break;
    case Kind::GlobalCoarseGrained:
      Flags = HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED;
      break;
    case Kind::Kernarg:
      Flags =
          HSA_REGION_GLOBAL_FLAG_KERNARG | HSA_REGION_GLOBAL_FLAG_FINE_GRAINED;
      break;
    case Kind::Group:
      Flags = 0; // Undefined for non-global regions; answer no flags.
      break;
    }
    *static_cast<uint32_t *>(Value) = Flags;
    break;
  }
  case HSA_REGION_INFO_SIZE:
    *static_cast<size_t *>(Value) = size_t(Size);
    break;
  case HSA_REGION_INFO_ALLOC_MAX_SIZE:
    *static_cast<size_t *>(Value) = size_t(maxAllocation());
    break;
  case HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE:
    // Only meaningful for private-segment regions, which CPU agents do not
    // expose; the private memory a work-group may use is still bounded.
    *static_cast<uint32_t *>(Value) = 1u << 24;
    break;
  case HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED:
    *static_cast<bool *>(Value) = isAllocatable();
    break;
  case HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE:
    *static_cast<size_t *>(Value) = isAllocatable() ? Granule : 0;
    break;
  case HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT:
    // Only defined for allocatable regions, but "must be a power of 2"
    // (HSA Runtime 2.7.1), and programs check it on every region: the group
    // region answers the alignment its segment base really has.
    *static_cast<size_t *>(Value) =
        isAllocatable() ? Granule : GroupSegmentAlignment;
    break;
  default:
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t Isa::getInfo(uint32_t Attribute, uint32_t Index,
                          void *Value) const {
  switch (Attribute) {
  case HSA_ISA_INFO_NAME_LENGTH:
    *static_cast<uint32_t *>(Value) = uint32_t(Name.size());
    break;
  case HSA_ISA_INFO_NAME:
    std::memcpy(Value, Name.data(), Name.size());
    break;
  case HSA_ISA_INFO_CALL_CONVENTION_COUNT:
    *static_cast<uint32_t *>(Value) = 1;
    break;
  case HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE:
    if (Index != 0)
      return HSA_STATUS_ERROR_INVALID_INDEX;
    *static_cast<uint32_t *>(Value) = WavefrontSize;
    break;
  case HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT:
    if (Index != 0)
      return HSA_STATUS_ERROR_INVALID_INDEX;
    *static_cast<uint32_t *>(Value) = 1;
    break;
  case HSA_ISA_INFO_MACHINE_MODELS: {
    bool *Models = static_cast<bool *>(Value);
    Models[HSA_MACHINE_MODEL_SMALL] = MachineModel == HSA_MACHINE_MODEL_SMALL;
    Models[HSA_MACHINE_MODEL_LARGE] = MachineModel == HSA_MACHINE_MODEL_LARGE;
    break;
  }
  case HSA_ISA_INFO_PROFILES: {
    bool *Profiles = static_cast<bool *>(Value);
    Profiles[HSA_PROFILE_BASE] = supports(HSA_PROFILE_BASE);
    Profiles[HSA_PROFILE_FULL] = supports(HSA_PROFILE_FULL);
    break;
  }
  case HSA_ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES: {
    bool *Modes = static_cast<bool *>(Value);
    Modes[HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT] = true;
    Modes[HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO] =
        DefaultRounding == HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO;
    Modes[HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR] =
        DefaultRounding == HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR;
    break;
  }
  case HSA_ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES: {
    // The base profile has no DEFAULT mode (HSA Runtime 2.9.1); the modes
    // are those of the full profile otherwise.
    bool *Modes = static_cast<bool *>(Value);
    const bool Base = supports(HSA_PROFILE_BASE);
    Modes[HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT] = false;
    Modes[HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO] =
        Base && DefaultRounding == HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO;
    Modes[HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR] =
        Base && DefaultRounding == HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR;
    break;
  }
  case HSA_ISA_INFO_FAST_F16_OPERATION:
    *static_cast<bool *>(Value) = false;
    break;
  case HSA_ISA_INFO_WORKGROUP_MAX_DIM:
    std::memcpy(Value, WorkgroupMaxDim, sizeof(WorkgroupMaxDim));
    break;
  case HSA_ISA_INFO_WORKGROUP_MAX_SIZE:
    *static_cast<uint32_t *>(Value) = WorkgroupMaxSize;
    break;
  case HSA_ISA_INFO_GRID_MAX_DIM:
    *static_cast<hsa_dim3_t *>(Value) = GridMaxDim;
    break;
  case HSA_ISA_INFO_GRID_MAX_SIZE:
    *static_cast<uint64_t *>(Value) = GridMaxSize;
    break;
  case HSA_ISA_INFO_FBARRIER_MAX_SIZE:
    *static_cast<uint32_t *>(Value) = FbarrierMaxSize;
    break;
  default:
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t Cache::getInfo(uint32_t Attribute, void *Value) const {
  switch (Attribute) {
  // The cache name is NUL-terminated; its length does not count the NUL.
  case HSA_CACHE_INFO_NAME_LENGTH:
    *static_cast<uint32_t *>(Value) = uint32_t(Name.size());
    break;
  case HSA_CACHE_INFO_NAME:
    std::memcpy(Value, Name.c_str(), Name.size() + 1);
    break;
  case HSA_CACHE_INFO_LEVEL:
    *static_cast<uint8_t *>(Value) = Level;
    break;
  case HSA_CACHE_INFO_SIZE:
    *static_cast<uint32_t *>(Value) = SizeBytes;
    break;
  default:
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

} // namespace openhsa
