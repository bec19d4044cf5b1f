//===- gpu_backend/GpuQueue.h - AQL queues serviced onto a stream -*- C++
//-*-===//
//
// Each queue of a GPU agent has a service thread and a CUDA stream. The
// thread takes packets in order: a kernel dispatch becomes launches on the
// stream (packets run in stream order, which also honours the barrier bit)
// and an event recorded after them; when the event completes, the thread
// decrements the completion signal, which wakes host waiters. Barrier-AND
// and barrier-OR packets are resolved on the host: the queue waits (asleep,
// woken by the dependency signals) until they hold. With nothing to do the
// thread spins briefly, then sleeps until a doorbell store.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_GPU_BACKEND_GPUQUEUE_H
#define OPENHSA_GPU_BACKEND_GPUQUEUE_H

#include "gpu_backend/CudaDriver.h"
#include "runtime/core/Futex.h"
#include "runtime/core/Queue.h"

#include <atomic>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

namespace openhsa::gpu {

class GpuAgent;

class GpuQueueService final : public QueueProcessor {
public:
  /// Null when the stream cannot be created.
  static std::unique_ptr<GpuQueueService> start(const GpuAgent &A, Queue &Q);
  ~GpuQueueService() override;
  void detach(Queue &Q) override;

private:
  GpuQueueService(const GpuAgent &A, Queue &Q, CUstream S)
      : Agent(A), Q(Q), Stream(S) {}
  enum class Outcome { Consumed, Blocked, Failed };
  struct InFlight {
    CUevent Done;
    hsa_signal_t Completion;
    uint16_t Header;
  };

  void run();
  bool processPackets();
  bool retire(bool Wait);
  Outcome launch(uint64_t Index, const void *Slot);
  Outcome barrier(const void *Slot, bool IsAnd);
  void complete(hsa_signal_t Completion, uint16_t Header);
  void unwatch();
  CUevent takeEvent();

  const GpuAgent &Agent;
  Queue &Q;
  CUstream Stream;
  WakeWord Wake;
  std::atomic<bool> Stopping{false};
  std::thread Thread;
  // Service thread only.
  std::deque<InFlight> Pending;
  std::vector<CUevent> FreeEvents;
  std::vector<const Signal *> Watched;
};

} // namespace openhsa::gpu

#endif
