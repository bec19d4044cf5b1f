//===- abi/RuntimeHelpers.h - Runtime calls of finalized code ---*- C++ -*-===//
//
// The seam between code a finalizer emits and the agent that runs it; both
// sides include this header and nothing of each other (like the dispatch
// context and work-group function of include/hsa/hsa_ext_openhsa.h).
//
// A few HSAIL instructions need the runtime the kernel runs in: signal
// modifications must wake host threads blocked on the signal, signal waits
// block, clock reads the system timestamp, debugtrap reports an error on the
// queue. Finalized code reaches these through the symbols named here. The
// queue instructions need only where a queue keeps its indices: constants
// of this header (QueueLayout), so code for any agent can use them.
//
// An agent defines them (the CPU agent: cpu_agent/KernelHelpers.h) and
// registers their addresses here before it loads code; the JIT loader binds
// the code's references to whatever is registered (finalizer/JitLoader.cpp).
// So the finalizer never links against the runtime, and since the registry
// is header-only, registering needs no finalizer library either. Loading
// code that references a helper nobody registered fails with the symbol's
// name.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_ABI_RUNTIMEHELPERS_H
#define OPENHSA_ABI_RUNTIMEHELPERS_H

#include <cstdint>
#include <cstring>
#include <mutex>
#include <span>
#include <vector>

namespace openhsa::abi {

/// The helpers' symbols and C signatures. Handles are hsa_signal_t values,
/// queues hsa_queue_t pointers, times system timestamp ticks.
namespace helper {
/// int64_t (uint64_t signal, uint32_t SignalOp, int64_t operand,
///          int64_t compare, uint32_t bits): performs the operation
/// (sequentially consistent), wakes the signal's waiters, returns the old
/// value. bits is 32 (sig32: the operation applies to the low 32 bits, the
/// value stays sign-extended) or 64.
inline constexpr const char *SignalModify = "__openhsa_signal_modify";
/// int64_t (uint64_t signal, uint32_t condition, int64_t compare,
///          uint64_t timeout, uint32_t bits): blocks until the signal's value
/// satisfies hsa_signal_condition_t `condition` against compare (signed,
/// on `bits` bits) or timeout ticks passed (UINT64_MAX: no limit); returns
/// the last value read.
inline constexpr const char *SignalWait = "__openhsa_signal_wait";
/// uint64_t (void): the HSA system timestamp (runtime/core/Clock.h).
inline constexpr const char *Clock = "__openhsa_clock";
/// void (hsa_queue_t *queue, uint32_t status, uint64_t value): a work-item
/// stopped with hsa_status_t status (debugtrap: HSA_STATUS_ERROR_EXCEPTION
/// and its operand). Reports the error on the queue, which stops it; a
/// null queue is ignored.
inline constexpr const char *Trap = "__openhsa_trap";
} // namespace helper

/// Where the runtime's queues (runtime/core/Queue.h) keep their indices:
/// atomic uint64_t words at these byte offsets from the hsa_queue_t
/// pointer (PRM 11.3 queue instructions).
namespace QueueLayout {
inline constexpr uint64_t WriteIndexOffset = 64;
inline constexpr uint64_t ReadIndexOffset = 128;
} // namespace QueueLayout

/// The operations of helper::SignalModify.
enum class SignalOp : uint32_t {
  Store = 0,
  Exchange = 1,
  CompareExchange = 2,
  Add = 3,
  Sub = 4,
  And = 5,
  Or = 6,
  Xor = 7,
};

/// A function or constant of the runtime. Name must outlive the process
/// (a string literal).
struct RuntimeHelper {
  const char *Name;
  const void *Address;
};

namespace detail {
struct RuntimeHelperRegistry {
  std::mutex Mutex;
  std::vector<RuntimeHelper> Helpers;
};
inline RuntimeHelperRegistry &runtimeHelperRegistry() {
  static RuntimeHelperRegistry Registry;
  return Registry;
}
} // namespace detail

/// Registers helpers by name; registering a name again replaces its address.
inline void registerRuntimeHelpers(std::span<const RuntimeHelper> Helpers) {
  auto &R = detail::runtimeHelperRegistry();
  std::lock_guard<std::mutex> Lock(R.Mutex);
  for (const RuntimeHelper &H : Helpers) {
    bool Replaced = false;
    for (RuntimeHelper &Old : R.Helpers)
      if (std::strcmp(Old.Name, H.Name) == 0) {
        Old.Address = H.Address;
        Replaced = true;
      }
    if (!Replaced)
      R.Helpers.push_back(H);
  }
}

/// The helpers registered so far.
inline std::vector<RuntimeHelper> registeredRuntimeHelpers() {
  auto &R = detail::runtimeHelperRegistry();
  std::lock_guard<std::mutex> Lock(R.Mutex);
  return R.Helpers;
}

} // namespace openhsa::abi

#endif
