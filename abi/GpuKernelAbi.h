//===- abi/GpuKernelAbi.h - How GPU agents launch kernels -*- C++ -*-===//
//
// The contract between code the finalizer emits for GPU agents (PTX,
// finalizer/GpuTarget.h) and the agent that launches it
// (gpu_backend/): header-only, plain data, so neither side links the
// other.
//
// Each HSAIL kernel becomes one PTX entry with two parameters:
//   1. the kernarg segment, by value: KernargSegmentSize bytes rounded up to
//      16 (at least 16), copied from the packet's kernarg_address into the
//      launch's parameter buffer;
//   2. a GpuDispatchParams, by value.
// The block is the work-group (x, y, z). A kernel without work-group
// barriers (KernelSymbol::GpuGridGuard) is one launch of whole blocks
// whose threads past the grid return at once. A kernel with barriers must
// not lose threads of a block before a barrier, so a grid whose size is
// not a multiple of the work-group size is launched as up to 8 launches
// (the full groups, then the partial ones along each dimension), each with
// the id of its first work-group in GroupOffset. The dynamic shared memory of a
// launch is the dispatch's whole group segment; the private segment is
// per-thread local memory the kernel declares itself.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_ABI_GPUKERNELABI_H
#define OPENHSA_ABI_GPUKERNELABI_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace openhsa::gpu {

struct GpuDispatchParams {
  uint32_t GridSize[3];      // Work-items, as in the packet.
  uint32_t WorkgroupSize[3]; // As in the packet (not the partial size).
  uint32_t GroupOffset[3];   // Work-group id of the launch's first block.
  uint32_t Dimensions;
  uint64_t PacketId;         // The packet's index in its queue.
  uint64_t CompletionSignal; // hsa_signal_t handle.
  uint64_t Queue;            // hsa_queue_t * (a host address).
  uint32_t GroupSegmentSize; // Bytes of group memory of the dispatch.
  uint32_t PrivateSegmentSize;
  /// The HSA system timestamp (400 MHz ticks) is the device's %globaltimer
  /// in ticks plus this (measured by the agent: GpuAgent::timestampOffset).
  int64_t TimestampOffset;
  /// Host memory the device reaches: {trapped, value}. debugtrap stores
  /// its operand, then 1 (the queue then reports the dispatch's failure).
  uint64_t TrapWords;
};
static_assert(sizeof(GpuDispatchParams) == 88);

/// Field offsets for the finalizer's IR.
namespace params {
inline constexpr unsigned GridSize = offsetof(GpuDispatchParams, GridSize);
inline constexpr unsigned WorkgroupSize =
    offsetof(GpuDispatchParams, WorkgroupSize);
inline constexpr unsigned GroupOffset =
    offsetof(GpuDispatchParams, GroupOffset);
inline constexpr unsigned Dimensions = offsetof(GpuDispatchParams, Dimensions);
inline constexpr unsigned PacketId = offsetof(GpuDispatchParams, PacketId);
inline constexpr unsigned CompletionSignal =
    offsetof(GpuDispatchParams, CompletionSignal);
inline constexpr unsigned Queue = offsetof(GpuDispatchParams, Queue);
inline constexpr unsigned GroupSegmentSize =
    offsetof(GpuDispatchParams, GroupSegmentSize);
inline constexpr unsigned PrivateSegmentSize =
    offsetof(GpuDispatchParams, PrivateSegmentSize);
inline constexpr unsigned TimestampOffset =
    offsetof(GpuDispatchParams, TimestampOffset);
inline constexpr unsigned TrapWords = offsetof(GpuDispatchParams, TrapWords);
} // namespace params

/// Bytes of the kernarg parameter of a kernel whose segment has Size bytes.
inline constexpr uint32_t kernargParamBytes(uint32_t Size) {
  return Size == 0 ? 16 : (Size + 15) / 16 * 16;
}

/// The PTX entry of HSAIL kernel "&name".
inline constexpr const char *EntryPrefix = "__openhsa_gpu_";

/// Lanes of a GPU agent's wavefront (a warp): WAVESIZE in its kernels.
inline constexpr unsigned GpuWavefrontSize = 32;

/// The ISA of GPU agents of compute capability SmVersion / 10:
/// "openhsa:nvptx:sm_90" for 90. Agents report it; the finalizer compiles
/// for the version it names.
inline std::string gpuIsaName(unsigned SmVersion) {
  return "openhsa:nvptx:sm_" + std::to_string(SmVersion);
}

/// The compute capability an ISA name of gpuIsaName's form names.
inline std::optional<unsigned> gpuIsaVersion(std::string_view IsaName) {
  constexpr std::string_view Prefix = "openhsa:nvptx:sm_";
  if (IsaName.substr(0, Prefix.size()) != Prefix ||
      IsaName.size() == Prefix.size() || IsaName.size() > Prefix.size() + 4)
    return std::nullopt;
  unsigned V = 0;
  for (char C : IsaName.substr(Prefix.size())) {
    if (C < '0' || C > '9')
      return std::nullopt;
    V = V * 10 + unsigned(C - '0');
  }
  if (V < 30)
    return std::nullopt;
  return V;
}

} // namespace openhsa::gpu

#endif
