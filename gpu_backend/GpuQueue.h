//===- gpu_backend/GpuQueue.h - AQL queues serviced onto a stream -*- C++
//-*-===//
//
// Each queue of a GPU agent has a service thread and a CUDA stream. The
// thread takes packets in order: a kernel dispatch becomes launches on the
// stream (packets run in stream order, which also honours the barrier bit)
// and an event recorded after them.
//
// Barrier packets, where the driver has stream memory operations
// (OPENHSA_GPU_BARRIERS=host forces the host path):
//   - barrier-AND: one cuStreamWaitValue64 (== 0) per dependency on the
//     signal's value word, mapped into the device: no host round trip;
//     then a one-thread kernel decrements the completion signal;
//   - barrier-OR: a one-thread kernel polls the dependencies (with
//     nanosleep) and decrements the completion signal itself;
//   - then a host function (cuLaunchHostFunc) wakes the threads sleeping
//     on the completion signal.
// Otherwise, or where a signal cannot be mapped, they are resolved on the
// host: the queue sleeps, woken by the dependency signals.
//
// Completion signals (OPENHSA_GPU_COMPLETION):
//   - host (default): when the event completes, the service thread
//     decrements the signal, which wakes host waiters;
//   - device: a one-thread kernel after the launches decrements it (a
//     system-scope atomic on the mapped value): spinning waiters see it at
//     once; the service thread wakes sleeping ones when the event
//     completes. (A host function per dispatch, tried first, made the
//     round trip 57 us instead of 11 us on the H100.)
// benchmarks/README.md has the round trips of both.
//
// With work in flight the thread polls the events for up to 2 ms, then
// sleeps between checks, so a long kernel does not hold a core.
//
// With nothing to do it spins briefly, then sleeps until a doorbell store.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_GPU_BACKEND_GPUQUEUE_H
#define OPENHSA_GPU_BACKEND_GPUQUEUE_H

#include "gpu_backend/CudaDriver.h"
#include "gpu_backend/GpuSignals.h"
#include "runtime/core/Futex.h"
#include "runtime/core/Queue.h"

#include <array>
#include <atomic>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

namespace openhsa::gpu {

class GpuAgent;

/// How a GPU queue resolves barriers and completion signals.
struct GpuQueueModes {
  bool DeviceBarriers = false;
  bool DeviceCompletion = false;
};
/// The modes agent A's queues use: where the driver and device can, as
/// OPENHSA_GPU_BARRIERS and OPENHSA_GPU_COMPLETION ask.
GpuQueueModes gpuQueueModes(const GpuAgent &A);

class GpuQueueService final : public QueueProcessor {
public:
  /// Null when the stream cannot be created.
  static std::unique_ptr<GpuQueueService> start(const GpuAgent &A, Queue &Q);
  ~GpuQueueService() override;
  /// Kernels already on the device are not cancelled: CancelAtNs is
  /// ignored.
  void detach(Queue &Q, uint64_t CancelAtNs) override;

private:
  /// Words the device kernels read, in mapped host memory.
  struct Control {
    uint64_t Cancel; // Set when the queue goes: barrier-OR kernels return.
    uint64_t Never;  // Never 0: a barrier-OR's unused dependency.
    /// GpuDispatchParams::TrapWords: set by a kernel's debugtrap (with its
    /// operand), checked as each dispatch ends.
    uint64_t Trapped, TrapValue;
  };
  GpuQueueService(const GpuAgent &A, Queue &Q, CUstream S, Control *C,
                  GpuQueueModes M)
      : Agent(A), Q(Q), Stream(S), Ctl(C), Modes(M) {}
  enum class Outcome { Consumed, Blocked, Failed };
  struct InFlight {
    CUevent Done;
    hsa_signal_t Completion;  // Decremented here when Done completes.
    const Signal *DeviceSide; // Decremented on the device: only woken.
    uint16_t Header;
    bool Barrier; // A barrier on the device: may wait for ever.
    /// A barrier-AND waiting on the stream for these (for detach).
    std::array<const Signal *, 5> Waits;
  };

  void run();
  bool processPackets();
  bool retire();
  Outcome launch(uint64_t Index, const void *Slot);
  Outcome barrier(const void *Slot, bool IsAnd);
  Outcome deviceBarrier(const hsa_barrier_and_packet_t &P, bool IsAnd);
  /// Who decrements a completion signal: the service thread when the
  /// event completes; a kernel launched here; the kernel just launched.
  enum class Decrement { OnHost, OnDevice, ByKernelBefore };
  Decrement completionDecrement(hsa_signal_t Completion) const;
  /// Ends a packet on the stream: its completion signal, then an event.
  Outcome finishOnStream(hsa_signal_t Completion, uint16_t Header,
                         Decrement How, bool Barrier,
                         const std::array<const Signal *, 5> &Waits);
  void complete(hsa_signal_t Completion, uint16_t Header);
  bool stuckOnHostSignal() const;
  void unwatch();
  CUevent takeEvent();

  const GpuAgent &Agent;
  Queue &Q;
  CUstream Stream;
  Control *Ctl;
  const GpuQueueModes Modes;
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
