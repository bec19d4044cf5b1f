//===- runtime/core/SharedHostArena.h - Memory devices share ----*- C++ -*-===//
//
// One block of host memory for the runtime's objects that kernels on other
// devices operate on besides the host: queues (their indices, PRM 11.3)
// and their rings of AQL packets. A GPU agent reserves it and maps it into
// its device once, as the agent is made: registering host memory later
// can wait for the device, which must not happen while a stream may wait
// for the host (gpu_backend/GpuSignals.h). Queues then take their memory
// from it while it has room (Queue.cpp); without a reservation, or once it
// is full, they use ordinary memory, which a GPU kernel reaches only once
// the application registers it.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_CORE_SHAREDHOSTARENA_H
#define OPENHSA_RUNTIME_CORE_SHAREDHOSTARENA_H

#include <cstddef>
#include <utility>

namespace openhsa::SharedHostArena {

/// Allocations are aligned to this (an AQL packet, a cache line).
inline constexpr size_t Alignment = 64;

/// Reserves Bytes (a multiple of the page size) on the first call and
/// returns the block; later calls return the same block. {nullptr, 0}
/// when there is no memory.
std::pair<void *, size_t> reserve(size_t Bytes);

/// Bytes from the block, Alignment-aligned; null when nothing is reserved
/// or no free range is large enough.
void *allocate(size_t Bytes);

/// Gives P (from allocate) back; false, doing nothing, when P is not in
/// the block.
bool free(void *P);

/// P lies in the block.
bool contains(const void *P);

} // namespace openhsa::SharedHostArena

#endif
