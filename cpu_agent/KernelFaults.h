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
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_CPU_AGENT_KERNELFAULTS_H
#define OPENHSA_CPU_AGENT_KERNELFAULTS_H

namespace openhsa::cpu {

/// Installs the fault handler; idempotent until removeFaultHandler. The
/// caller serializes the two (the runtime's lifetime lock).
void installFaultHandler();

/// Puts back the handlers installed before ours, where ours is still the
/// one installed (a handler installed after ours keeps its place).
void removeFaultHandler();

/// Calls Fn(Data) with this thread's recovery point armed. Returns 0 when
/// Fn returned, or the signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL) of a fault
/// in it: the rest of Fn is skipped, nothing of Fn's frames is unwound.
int runKernelCode(void (*Fn)(void *), void *Data);

/// Disarms the thread's recovery point for a scope: runtime code that a
/// kernel calls and that runs what is not kernel code (a queue's error
/// callback) or holds locks. A fault there is not the kernel's.
class NotKernelCode {
public:
  NotKernelCode();
  ~NotKernelCode();
  NotKernelCode(const NotKernelCode &) = delete;
  NotKernelCode &operator=(const NotKernelCode &) = delete;

private:
  void *Saved;
};

} // namespace openhsa::cpu

#endif
