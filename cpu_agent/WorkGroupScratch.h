//===- cpu_agent/WorkGroupScratch.h - Group/private memory per slot -*- C++
//-*-===//
//
// A work-group runs start to finish on one thread (its work-items are loops
// inside the work-group function), so group and private memory are needed
// per worker slot, not per work-group: each slot of the agent's arena (plus
// one for the packet processor thread, which runs tiny dispatches itself)
// owns a grow-only buffer that only the thread in that slot touches.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_CPU_AGENT_WORKGROUPSCRATCH_H
#define OPENHSA_CPU_AGENT_WORKGROUPSCRATCH_H

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <vector>

namespace openhsa::cpu {

class WorkGroupScratch {
public:
  explicit WorkGroupScratch(unsigned Slots) : Buffers(Slots) {}

  unsigned slots() const { return unsigned(Buffers.size()); }

  /// Alignment of every buffer (the group segment base of a dispatch).
  static constexpr size_t Alignment = 64;

  /// At least Bytes of Alignment-aligned memory for Slot; null when out of
  /// memory. Valid until the next call for the same slot.
  void *get(unsigned Slot, size_t Bytes) {
    Buffer &B = Buffers[Slot];
    if (B.Capacity < Bytes) {
      size_t NewCapacity = (Bytes + 4095) & ~size_t(4095);
      void *P = std::aligned_alloc(Alignment, NewCapacity);
      if (!P)
        return nullptr;
      B.Memory.reset(P);
      B.Capacity = NewCapacity;
    }
    return B.Memory.get();
  }

private:
  struct FreeDeleter {
    void operator()(void *P) const { std::free(P); }
  };
  struct alignas(64) Buffer {
    std::unique_ptr<void, FreeDeleter> Memory;
    size_t Capacity = 0;
  };
  std::vector<Buffer> Buffers;
};

} // namespace openhsa::cpu

#endif
