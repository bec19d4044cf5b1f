//===- runtime/core/Queue.h - HSA user-mode queues --------------*- C++ -*-===//
//
// A Queue begins with the hsa_queue_t the application sees; the read and
// write indices follow on their own cache lines at fixed offsets
// (abi::QueueLayout) so kernels can operate on them too (PRM 11.3 queue
// instructions).
// The ring buffer of 64-byte AQL packets is owned by the queue.
//
// Who processes the packets is not the queue's business: an agent attaches
// a QueueProcessor (the CPU agent's packet processor, say); a soft queue
// has none and the application processes it.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_CORE_QUEUE_H
#define OPENHSA_RUNTIME_CORE_QUEUE_H

#include "hsa/hsa.h"
#include "runtime/core/Signal.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

namespace openhsa {

class Agent;
class Queue;

/// The agent-side consumer of a queue's packets.
class QueueProcessor {
public:
  virtual ~QueueProcessor();
  /// Stops processing Q; returns once no thread of the processor touches
  /// Q or its packets any more (in-flight work included). A processor that
  /// can cancel kernel code cancels what of Q's work still runs at
  /// CancelAtNs (monotonicNanoseconds; UINT64_MAX: never).
  virtual void detach(Queue &Q, uint64_t CancelAtNs) = 0;
};

using QueueErrorCallback = void (*)(hsa_status_t, hsa_queue_t *, void *);

class Queue {
public:
  static constexpr uint64_t LiveMagic = 0x4555455541534f48ULL; // "HOSAQUEUE"

  struct Config {
    const Agent *Owner = nullptr; // Null for soft queues.
    uint32_t Size = 0;            // Packets; a power of two.
    hsa_queue_type32_t Type = HSA_QUEUE_TYPE_MULTI;
    uint32_t Features = HSA_QUEUE_FEATURE_KERNEL_DISPATCH;
    QueueErrorCallback Callback = nullptr;
    void *CallbackData = nullptr;
    uint32_t PrivateSegmentSizeHint = UINT32_MAX;
    uint32_t GroupSegmentSizeHint = UINT32_MAX;
    /// Soft queues: the application's doorbell. Otherwise the queue makes
    /// its own.
    Signal *ExternalDoorbell = nullptr;
    /// Where the ring buffer lives: a callback allocating Size*64 bytes
    /// aligned to 64 (null: the process heap), and its matching free.
    void *(*AllocateRing)(size_t Bytes, void *Ctx) = nullptr;
    void (*FreeRing)(void *Ptr, size_t Bytes, void *Ctx) = nullptr;
    void *RingCtx = nullptr;
  };

  /// Null when the ring buffer cannot be allocated. An agent's queue
  /// (C.Owner set) and its ring come from the shared host arena while it
  /// has room, so that kernels on GPU agents can enqueue on it
  /// (runtime/core/SharedHostArena.h); a soft queue's ring is in the
  /// region the application named.
  static std::unique_ptr<Queue> create(const Config &C, uint64_t Id);
  ~Queue();
  Queue(const Queue &) = delete;
  Queue &operator=(const Queue &) = delete;

  static void *operator new(size_t Size, std::align_val_t Align,
                            const std::nothrow_t &) noexcept;
  static void operator delete(void *P, std::align_val_t Align) noexcept;
  static void operator delete(void *P, std::align_val_t Align,
                              const std::nothrow_t &) noexcept {
    operator delete(P, Align);
  }

  static Queue *fromHsa(const hsa_queue_t *Q) {
    return reinterpret_cast<Queue *>(const_cast<hsa_queue_t *>(Q));
  }
  hsa_queue_t *hsa() { return &Abi; }
  const Config &config() const { return Cfg; }
  bool isLive() const { return Magic == LiveMagic; }

  uint32_t size() const { return Abi.size; }
  uint32_t mask() const { return Abi.size - 1; }
  /// The packet slot of index I (any packet type; 64 bytes).
  void *slot(uint64_t I) const {
    return static_cast<char *>(Abi.base_address) + (I & mask()) * 64;
  }
  Signal &doorbell() const { return *Doorbell; }

  // Indices. The memory orders are the caller's (HSA API semantics).
  uint64_t loadRead(std::memory_order O) const { return ReadIndex.load(O); }
  uint64_t loadWrite(std::memory_order O) const { return WriteIndex.load(O); }
  void storeRead(uint64_t V, std::memory_order O) { ReadIndex.store(V, O); }
  void storeWrite(uint64_t V, std::memory_order O) { WriteIndex.store(V, O); }
  uint64_t addWrite(uint64_t V, std::memory_order O) {
    return WriteIndex.fetch_add(V, O);
  }
  uint64_t casWrite(uint64_t Expected, uint64_t Desired, std::memory_order O) {
    WriteIndex.compare_exchange_strong(Expected, Desired, O, failureOrder(O));
    return Expected;
  }

  /// Active until inactivated or an error is reported; then no further
  /// packets are processed.
  bool isActive() const { return Active.load(std::memory_order_acquire); }
  void inactivate() { Active.store(false, std::memory_order_release); }

  /// Reports an asynchronous error (once) through the queue's callback and
  /// inactivates the queue.
  void reportError(hsa_status_t Status);
  bool errorReported() const { return ErrorReported.load(); }

  void setProcessor(QueueProcessor *P) { Processor = P; }
  QueueProcessor *processor() const { return Processor; }

  static constexpr std::memory_order failureOrder(std::memory_order O) {
    return O == std::memory_order_acq_rel   ? std::memory_order_acquire
           : O == std::memory_order_release ? std::memory_order_relaxed
                                            : O;
  }

private:
  explicit Queue(const Config &C) : Cfg(C) {}

  hsa_queue_t Abi{}; // Must stay first: hsa_queue_t* is a Queue*.
  alignas(64) std::atomic<uint64_t> WriteIndex{0};
  alignas(64) std::atomic<uint64_t> ReadIndex{0};
  alignas(64) uint64_t Magic = LiveMagic;
  Config Cfg;
  std::unique_ptr<Signal> OwnDoorbell;
  Signal *Doorbell = nullptr;
  std::atomic<bool> Active{true};
  std::atomic<bool> ErrorReported{false};
  QueueProcessor *Processor = nullptr;

  friend struct QueueLayoutCheck; // Queue.cpp: the indices' ABI offsets.
};

} // namespace openhsa

#endif
