//===- cpu_agent/KernelHelpers.h - Functions kernels call -------*- C++ -*-===//
//
// The definitions behind abi/RuntimeHelpers.h: signal operations
// that wake host waiters, blocking signal waits, the system clock, error
// reports; and the queue index offsets (Queue::WriteIndexOffset and
// ReadIndexOffset). registerKernelHelpers() hands their addresses to the JIT
// loader; the CPU agent calls it before any code can
// be loaded (each PacketProcessor's constructor), tests call it themselves.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_CPU_AGENT_KERNELHELPERS_H
#define OPENHSA_CPU_AGENT_KERNELHELPERS_H

#include "hsa/hsa.h"

#include <cstdint>

extern "C" {
int64_t __openhsa_signal_modify(uint64_t Signal, uint32_t Op, int64_t Operand,
                                int64_t Compare, uint32_t Bits);
int64_t __openhsa_signal_wait(uint64_t Signal, uint32_t Condition,
                              int64_t Compare, uint64_t TimeoutTicks,
                              uint32_t Bits);
uint64_t __openhsa_clock(void);
void __openhsa_trap(hsa_queue_t *Queue, uint32_t Status, uint64_t Value);
}

namespace openhsa::cpu {

/// Registers the helpers with the finalizer's JIT loader (idempotent,
/// thread-safe).
void registerKernelHelpers();

} // namespace openhsa::cpu

#endif
