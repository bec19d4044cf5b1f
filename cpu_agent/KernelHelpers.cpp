//===- cpu_agent/KernelHelpers.cpp - Functions kernels call ---------------===//
#include "cpu_agent/KernelHelpers.h"

#include "abi/RuntimeHelpers.h"
#include "cpu_agent/KernelFaults.h"
#include "runtime/core/Clock.h"
#include "runtime/core/Queue.h"
#include "runtime/core/Signal.h"

#include <mutex>

using openhsa::Queue;
using openhsa::Signal;
using openhsa::abi::SignalOp;

namespace {

// Kernel code calls these helpers with its recovery point armed
// (KernelFaults.h). A helper touches what the kernel handed it (a signal
// handle) while still armed, so that a wild handle faults as the kernel's
// fault, before any lock is taken; then it disarms (NotKernelCode) for the
// rest, which may take a signal's watcher lock or run a queue's error
// callback: a fault there is the runtime's or the program's, not one to
// jump out of with a lock held. Disarmed, a helper is not interrupted by a
// cancel request either (KernelFaults.h); the signal wait, which may last
// forever, waits in slices and leaves between them when cancelled.

const Signal *signalOf(uint64_t Handle) {
  const Signal *S = Signal::fromHandle(hsa_signal_t{Handle});
  (void)S->load(std::memory_order_relaxed); // Faults here if it is wild.
  return S;
}
Signal *mutableSignalOf(uint64_t Handle) {
  Signal *S = Signal::fromHandle(hsa_signal_t{Handle});
  (void)S->load(std::memory_order_relaxed); // Faults here if it is wild.
  return S;
}

/// The 32-bit result of Op on the low halves, sign-extended (sig32).
int64_t apply32(SignalOp Op, int64_t Old, int64_t Operand) {
  const uint32_t A = uint32_t(Old), B = uint32_t(Operand);
  uint32_t R = A;
  switch (Op) {
  case SignalOp::Store:
  case SignalOp::Exchange:
    R = B;
    break;
  case SignalOp::Add:
    R = A + B;
    break;
  case SignalOp::Sub:
    R = A - B;
    break;
  case SignalOp::And:
    R = A & B;
    break;
  case SignalOp::Or:
    R = A | B;
    break;
  case SignalOp::Xor:
    R = A ^ B;
    break;
  case SignalOp::CompareExchange:
    break; // Handled by the caller.
  }
  return int64_t(int32_t(R));
}

bool holds32(uint32_t Condition, int64_t Value, int64_t Compare) {
  return openhsa::signalConditionHolds(hsa_signal_condition_t(Condition),
                                       int32_t(Value), int32_t(Compare));
}

} // namespace

extern "C" {

int64_t __openhsa_signal_modify(uint64_t Handle, uint32_t Op, int64_t Operand,
                                int64_t Compare, uint32_t Bits) {
  Signal *S = mutableSignalOf(Handle);
  openhsa::cpu::NotKernelCode Disarmed;
  const SignalOp O = SignalOp(Op);
  if (Bits == 64) {
    // Signal's own modifications: sequentially consistent, then a wake-up
    // of whoever watches the signal (host waiters, packet processors).
    switch (O) {
    case SignalOp::Store:
      S->store(Operand);
      return 0; // Only signalnoret has st: nobody reads the result.
    case SignalOp::Exchange:
      return S->exchange(Operand);
    case SignalOp::CompareExchange:
      return S->compareExchange(Compare, Operand);
    case SignalOp::Add:
      return S->fetchAdd(Operand);
    case SignalOp::Sub:
      return S->fetchSub(Operand);
    case SignalOp::And:
      return S->fetchAnd(Operand);
    case SignalOp::Or:
      return S->fetchOr(Operand);
    case SignalOp::Xor:
      return S->fetchXor(Operand);
    }
    return S->load(std::memory_order_seq_cst);
  }
  // sig32: the operation on the low 32 bits, the value kept sign-extended
  // so the host's 64-bit view reads the same number. A compare-exchange
  // loop does both in one atomic step.
  int64_t Old = S->load(std::memory_order_relaxed);
  for (;;) {
    int64_t New;
    if (O == SignalOp::CompareExchange)
      New = int32_t(Old) == int32_t(Compare) ? int64_t(int32_t(Operand)) : Old;
    else
      New = apply32(O, Old, Operand);
    const int64_t Seen = S->compareExchange(Old, New);
    if (Seen == Old)
      return Old;
    Old = Seen;
  }
}

int64_t __openhsa_signal_wait(uint64_t Handle, uint32_t Condition,
                              int64_t Compare, uint64_t TimeoutTicks,
                              uint32_t Bits) {
  const Signal *S = signalOf(Handle);
  const auto C = hsa_signal_condition_t(Condition);
  int64_t V = 0;
  // Disarmed and in slices, so that a kernel waiting forever can still be
  // cancelled (KernelFaults.h).
  if (Bits == 64) {
    openhsa::cpu::waitFromKernelCode(TimeoutTicks, [&](uint64_t Slice) {
      V = S->wait(C, Compare, Slice, HSA_WAIT_STATE_BLOCKED,
                  std::memory_order_acquire);
      return openhsa::signalConditionHolds(C, V, Compare);
    });
    return V;
  }
  // sig32 compares the low halves: sleep until the value changes, then
  // check the 32-bit condition again.
  openhsa::cpu::waitFromKernelCode(TimeoutTicks, [&](uint64_t Slice) {
    const uint64_t Start = openhsa::systemTimestamp();
    for (;;) {
      V = S->load(std::memory_order_acquire);
      if (holds32(Condition, V, Compare))
        return true;
      const uint64_t Elapsed = openhsa::systemTimestamp() - Start;
      if (Elapsed >= Slice)
        return false;
      S->wait(HSA_SIGNAL_CONDITION_NE, V,
              Slice == UINT64_MAX ? UINT64_MAX : Slice - Elapsed,
              HSA_WAIT_STATE_BLOCKED, std::memory_order_acquire);
    }
  });
  return V;
}

uint64_t __openhsa_clock(void) { return openhsa::systemTimestamp(); }

void __openhsa_trap(hsa_queue_t *HsaQueue, uint32_t Status, uint64_t Value) {
  // Without a debugger interface the trap's value has no reader; the queue
  // goes into its error state (PRM 12.5.1).
  (void)Value;
  if (!HsaQueue)
    return;
  Queue *Q = Queue::fromHsa(HsaQueue);
  if (!Q->isLive()) // Faults here if the queue pointer is wild.
    return;
  openhsa::cpu::NotKernelCode Disarmed; // The callback is the program's.
  Q->reportError(hsa_status_t(Status));
}

} // extern "C"

namespace openhsa::cpu {

void registerKernelHelpers() {
  namespace helper = abi::helper;
  static const abi::RuntimeHelper Helpers[] = {
      {helper::SignalModify,
       reinterpret_cast<const void *>(&__openhsa_signal_modify)},
      {helper::SignalWait,
       reinterpret_cast<const void *>(&__openhsa_signal_wait)},
      {helper::Clock, reinterpret_cast<const void *>(&__openhsa_clock)},
      {helper::Trap, reinterpret_cast<const void *>(&__openhsa_trap)},
  };
  static std::once_flag Once;
  std::call_once(Once, [] { abi::registerRuntimeHelpers(Helpers); });
}

} // namespace openhsa::cpu
