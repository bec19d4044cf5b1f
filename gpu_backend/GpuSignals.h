//===- gpu_backend/GpuSignals.h - Signals GPUs wait on -----*- C++ -*-===//
//
// GPU queues wait on dependency signals on the device (cuStreamWaitValue64)
// and decrement completion signals there (a one-thread kernel doing a
// system-scope atomic add), so the device must reach a signal's value word.
// Signals live in page-aligned slabs that are never freed
// (runtime/core/Signal.h); the first time a GPU queue meets a signal, its
// slab is pinned and mapped into every device (portable registration, at
// the host's address). Registrations last until the last GPU agent goes.
//
// The device kernels are PTX text embedded here, JIT-compiled per agent:
//   openhsa_signal_sub(value)        atomically subtracts 1 (system scope);
//   openhsa_barrier_or(d0..d4, cancel, completion)
//                                    polls until one dependency is 0 (then
//                                    decrements the completion signal) or
//                                    until *cancel is set (queue destroyed).
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_GPU_BACKEND_GPUSIGNALS_H
#define OPENHSA_GPU_BACKEND_GPUSIGNALS_H

#include "gpu_backend/CudaDriver.h"

namespace openhsa {
class Signal;
}

namespace openhsa::gpu {

class GpuAgent;

/// Makes S's value reachable by every device at its host address; false
/// when the driver refuses (the caller then works on the host).
bool mapSignal(const GpuAgent &A, const Signal *S);

/// Unregisters every mapped slab; called as the last GPU agent goes.
void unmapSignals(const CudaDriver &D);

/// The device kernels of one agent's context.
struct DeviceKernels {
  CUmodule Module = nullptr;
  CUfunction SignalSub = nullptr;
  CUfunction BarrierOr = nullptr;
};

/// Loads the kernels into A's context (current on the calling thread);
/// false, with the JIT log written to the debug log, on failure.
bool loadDeviceKernels(const GpuAgent &A, DeviceKernels &K);

} // namespace openhsa::gpu

#endif
