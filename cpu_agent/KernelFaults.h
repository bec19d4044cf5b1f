//===- cpu_agent/KernelFaults.h - Faults of kernel code ---------*- C++ -*-===//
//
// A kernel that loads from a bad address, divides by zero or runs an
// illegal instruction raises SIGSEGV, SIGBUS, SIGFPE or SIGILL on the thread
// that runs it. On a GPU such a fault ends the queue, not the process; the
// CPU agent does the same (README "Behaviour worth knowing"):
//
//  - The runtime installs one handler for these four signals at the first
//    hsa_init and puts back the ones it replaced at the last hsa_shut_down
//    (the library may be unloaded after it).
//  - Work-group code runs through runKernelCode, which arms a recovery
//    point of its thread (sigsetjmp) for exactly that call. A fault the
//    kernel raised (si_code > 0) on an armed thread jumps back there; the
//    call returns the signal number and the caller ends the dispatch.
//    The jump never leaves the call: the frames above it are intact.
//  - Any other fault (a thread not running kernel code, or a signal sent by
//    kill) goes to the handler installed before ours, or to the default
//    action (the process dies as it would have without the runtime).
//    Under ASan, whose handler is installed at start-up, that is ASan's:
//    faults outside kernel code are still ASan reports (the asan tree runs
//    the fault tests too).
//
// The same recovery point ends kernel code that never finishes (a
// work-group spinning on a flag nobody will set) when hsa_shut_down or
// hsa_queue_destroy gives up waiting for it: the runtime sets the dispatch's
// cancel flag, then sends CancelSignal to the threads running its code
// (interruptKernelCode). The handler jumps only where the thread's armed
// recovery point carries a cancel flag that is set, so a request that
// arrives after the thread went on to other work, or while it runs a
// runtime helper that disarmed (NotKernelCode: it may hold a lock), does
// nothing; the canceller sends it again until the dispatch has retired.
// Its handler is installed and removed with the fault handler, and chains
// the same way: a CancelSignal that is not the runtime's request (sent by
// the program, or by the kernel for out-of-band socket data) goes to the
// handler installed before.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_CPU_AGENT_KERNELFAULTS_H
#define OPENHSA_CPU_AGENT_KERNELFAULTS_H

#include "runtime/core/Clock.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdint>

#include <pthread.h>

namespace openhsa::cpu {

/// The signal that interrupts kernel code being cancelled. SIGURG, as Go's
/// preemption uses: its default action is to ignore it (a stray one harms
/// nothing), programs rarely handle it, and debuggers pass it on silently.
/// The runtime's requests carry a tag (sigqueue's value), so that another
/// SIGURG is never taken for one.
inline constexpr int CancelSignal = SIGURG;

/// What runKernelCode returns when the kernel code was cancelled.
inline constexpr int KernelCancelled = -1;

/// Installs the fault handler and the cancel handler; idempotent until
/// removeFaultHandler. The caller serializes the two (the runtime's
/// lifetime lock).
void installFaultHandler();

/// Puts back the handlers installed before ours, where ours is still the
/// one installed (a handler installed after ours keeps its place).
void removeFaultHandler();

/// Unblocks CancelSignal on the calling thread: threads that run kernel
/// code call it first, since they inherit the signal mask of whoever
/// started them (a program may block every signal in its threads).
void acceptKernelCancellation();

/// Calls Fn(Data) with this thread's recovery point armed. Returns 0 when
/// Fn returned, the signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL) of a fault in
/// it, or KernelCancelled when Cancel (if given) was set and the thread was
/// interrupted: the rest of Fn is skipped, nothing of Fn's frames is
/// unwound.
int runKernelCode(void (*Fn)(void *), void *Data,
                  const std::atomic<bool> *Cancel = nullptr);

/// Asks Thread to leave the kernel code it runs, if that code's cancel flag
/// is set (see above). Asynchronous: the caller checks later whether the
/// work ended, and asks again if not. False when the signal could not be
/// sent.
bool interruptKernelCode(pthread_t Thread);

/// Disarms the thread's recovery point for a scope: runtime code that a
/// kernel calls and that runs what is not kernel code (a queue's error
/// callback) or holds locks. A fault there is not the kernel's, and a
/// cancel request waits until the scope ends.
class NotKernelCode {
public:
  NotKernelCode();
  ~NotKernelCode();
  NotKernelCode(const NotKernelCode &) = delete;
  NotKernelCode &operator=(const NotKernelCode &) = delete;

  /// Whether the kernel code this scope interrupts is being cancelled: a
  /// helper that may wait long (a signal wait) stops waiting, ends the
  /// scope and calls cancellationPoint.
  bool cancelRequested() const;

private:
  void *Saved;
};

/// Jumps to the recovery point where the kernel code this thread runs is
/// being cancelled; returns otherwise. For runtime helpers, armed (outside
/// NotKernelCode), where no frame between here and the kernel's caller has
/// a destructor left to run.
void cancellationPoint();

/// Whether this thread runs kernel code (its recovery point is armed).
bool runsKernelCode();

/// How long a wait reached from kernel code sleeps before it looks whether
/// the kernel is being cancelled: 50 ms, far below the grace period that
/// teardown gives kernels, and rare enough to cost nothing.
inline constexpr uint64_t CancelCheckTicks = nanosecondsToTicks(50'000'000);

/// A signal wait that kernel code may reach (the runtime's signal-wait
/// helper, the HSA API called from a native kernel). It registers itself
/// with the signals it waits on, so a cancel must not jump out of it: it
/// runs disarmed, in slices of CancelCheckTicks, and a cancelled kernel
/// leaves between slices. Wait(SliceTicks) waits at most that long and
/// returns whether the wait is over; TimeoutTicks bounds the whole. On a
/// thread not running kernel code, Wait(TimeoutTicks) runs once.
template <typename WaitFn>
void waitFromKernelCode(uint64_t TimeoutTicks, WaitFn &&Wait) {
  if (!runsKernelCode()) {
    Wait(TimeoutTicks);
    return;
  }
  const uint64_t Start = systemTimestamp();
  for (;;) {
    {
      NotKernelCode Disarmed;
      const uint64_t Elapsed = systemTimestamp() - Start;
      const uint64_t Left = Elapsed < TimeoutTicks ? TimeoutTicks - Elapsed : 0;
      if (Wait(std::min(Left, CancelCheckTicks)) || Left <= CancelCheckTicks)
        return;
      if (!Disarmed.cancelRequested())
        continue;
    }
    cancellationPoint();
  }
}

} // namespace openhsa::cpu

#endif
