//===- gpu_backend/GpuSignals.h - Signals GPUs wait on -----*- C++ -*-===//
//
// GPU queues wait on dependency signals on the device (cuStreamWaitValue64)
// and decrement completion signals there (a one-thread kernel doing a
// system-scope atomic add), so the device must reach a signal's value word.
// Signals live in page-aligned slabs that are never freed
// (runtime/core/Signal.h). As GPU agents are made, the slabs there are and
// a block for the next 65,536 signals are pinned and mapped into every
// device (portable registration, at the host's address); a slab beyond it
// is mapped the first time a GPU queue meets one of its signals.
// The shared host arena, where queues and their rings live
// (runtime/core/SharedHostArena.h), is mapped the same way as agents are
// made. Registrations last until the last GPU agent goes.
//
// The device kernels are PTX text embedded here, JIT-compiled per agent:
//   openhsa_globaltimer(out)         writes the device's nanosecond timer
//                                    (GpuAgent::timestampOffset);
//   openhsa_signal_sub(value, unless)
//                                    atomically subtracts 1 (system scope),
//                                    unless `unless` points at a word that
//                                    is not 0 (a dispatch's debugtrap);
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

/// Maps the signal slabs there are, and a block of slabs for the signals to
/// come (Signal::reserveSlabArena), into every device: kernels' signal
/// instructions may name any of them. Called as agents are made, with A's
/// context current: registering host memory may wait for the device, so
/// it must not happen while a stream could wait on the host.
void mapSignalArena(const GpuAgent &A);

/// Maps the shared host arena (runtime/core/SharedHostArena.h), where
/// queues and their rings live, into every device, so that kernels' queue
/// instructions reach them. Called as mapSignalArena is.
void mapQueueArena(const GpuAgent &A);

/// Unregisters every mapped slab and the queue arena; called as the last
/// GPU agent goes.
void unmapSignals(const CudaDriver &D);

/// The device kernels of one agent's context.
struct DeviceKernels {
  CUmodule Module = nullptr;
  CUfunction SignalSub = nullptr;
  CUfunction BarrierOr = nullptr;
  CUfunction GlobalTimer = nullptr; // Writes %globaltimer to its argument.
};

/// Loads the kernels into A's context (current on the calling thread);
/// false, with the JIT log written to the debug log, on failure.
bool loadDeviceKernels(const GpuAgent &A, DeviceKernels &K);

} // namespace openhsa::gpu

#endif
