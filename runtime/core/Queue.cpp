//===- runtime/core/Queue.cpp - HSA user-mode queues ----------------------===//
#include "runtime/core/Queue.h"

#include "abi/RuntimeHelpers.h"
#include "runtime/core/SharedHostArena.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace openhsa {

QueueProcessor::~QueueProcessor() = default;

// Finalized code addresses the indices at these offsets (Queue is not
// standard layout, so offsetof is conditionally supported: GCC and Clang
// compute it).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
struct QueueLayoutCheck {
  static_assert(offsetof(Queue, WriteIndex) ==
                abi::QueueLayout::WriteIndexOffset);
  static_assert(offsetof(Queue, ReadIndex) ==
                abi::QueueLayout::ReadIndexOffset);
};
#pragma GCC diagnostic pop

void *Queue::operator new(size_t Size, std::align_val_t Align,
                          const std::nothrow_t &) noexcept {
  static_assert(alignof(Queue) <= SharedHostArena::Alignment);
  if (void *P = SharedHostArena::allocate(Size))
    return P;
  return ::operator new(Size, Align, std::nothrow);
}

void Queue::operator delete(void *P, std::align_val_t Align) noexcept {
  if (P && !SharedHostArena::free(P))
    ::operator delete(P, Align);
}

std::unique_ptr<Queue> Queue::create(const Config &C, uint64_t Id) {
  // Out of memory is an answer here (OUT_OF_RESOURCES), not an exception.
  std::unique_ptr<Queue> Q(new (std::nothrow) Queue(C));
  if (!Q)
    return nullptr;
  const size_t Bytes = size_t(C.Size) * 64;
  void *Ring = C.Owner ? SharedHostArena::allocate(Bytes) : nullptr;
  if (!Ring)
    Ring = C.AllocateRing ? C.AllocateRing(Bytes, C.RingCtx)
                          : std::aligned_alloc(64, Bytes);
  if (!Ring)
    return nullptr;
  // Every slot starts INVALID, so the processor waits for the producer.
  for (uint32_t I = 0; I < C.Size; ++I) {
    auto *Header = static_cast<uint16_t *>(
        static_cast<void *>(static_cast<char *>(Ring) + size_t(I) * 64));
    std::memset(Header, 0, 64);
    *Header = HSA_PACKET_TYPE_INVALID << HSA_PACKET_HEADER_TYPE;
  }
  Q->Abi.base_address = Ring; // Freed with the queue from here on.
  Q->Abi.type = C.Type;
  Q->Abi.features = C.Features;
  Q->Abi.size = C.Size;
  Q->Abi.id = Id;
  if (C.ExternalDoorbell) {
    Q->Doorbell = C.ExternalDoorbell;
  } else {
    Q->OwnDoorbell.reset(new (std::nothrow) Signal(0));
    if (!Q->OwnDoorbell)
      return nullptr;
    Q->Doorbell = Q->OwnDoorbell.get();
  }
  Q->Abi.doorbell_signal = Q->Doorbell->handle();
  return Q;
}

Queue::~Queue() {
  Magic = 0;
  const size_t Bytes = size_t(Cfg.Size) * 64;
  if (SharedHostArena::free(Abi.base_address))
    return;
  if (Cfg.FreeRing)
    Cfg.FreeRing(Abi.base_address, Bytes, Cfg.RingCtx);
  else
    std::free(Abi.base_address);
}

void Queue::reportError(hsa_status_t Status) {
  inactivate();
  if (ErrorReported.exchange(true))
    return;
  if (Cfg.Callback)
    Cfg.Callback(Status, &Abi, Cfg.CallbackData);
}

} // namespace openhsa
