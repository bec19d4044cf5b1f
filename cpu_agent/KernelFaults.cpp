//===- cpu_agent/KernelFaults.cpp - Faults of kernel code -----------------===//
#include "cpu_agent/KernelFaults.h"

#include <atomic>
#include <csetjmp>
#include <csignal>
#include <cstring>

#include <pthread.h>
#include <ucontext.h>

namespace openhsa::cpu {

namespace {

struct RecoveryPoint {
  sigjmp_buf Env;
  volatile sig_atomic_t Signal = 0;
};

/// The armed recovery point of this thread, or null. initial-exec: the
/// handler reads it on any thread, and that must not allocate the thread's
/// TLS block lazily (which a dynamically loaded library's general-dynamic
/// TLS may do, and which is not async-signal-safe).
__attribute__((tls_model("initial-exec"))) thread_local RecoveryPoint *Armed =
    nullptr;

constexpr int FaultSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};

/// The actions ours replaced, by signal number; written before ours is
/// installed, read by the handler.
struct sigaction Previous[NSIG];
bool Installed = false;

void onFault(int Sig, siginfo_t *Info, void *Context);

bool isOurs(const struct sigaction &A) {
  return (A.sa_flags & SA_SIGINFO) && A.sa_sigaction == &onFault;
}

/// Hands a fault that is not a kernel's to what was installed before us.
void chain(int Sig, siginfo_t *Info, void *Context) {
  const struct sigaction &Old = Previous[Sig];
  if (Old.sa_flags & SA_SIGINFO) {
    if (Old.sa_sigaction) {
      Old.sa_sigaction(Sig, Info, Context);
      return;
    }
  } else if (Old.sa_handler != SIG_DFL && Old.sa_handler != SIG_IGN) {
    Old.sa_handler(Sig);
    return;
  }
  // The default action (an ignored fault gets it too: the kernel forces it
  // on a synchronous fault anyway). A fault raised by an instruction comes
  // back when the handler returns and now ends the process with its usual
  // report; one sent by kill is sent again.
  struct sigaction Default;
  std::memset(&Default, 0, sizeof(Default));
  Default.sa_handler = SIG_DFL;
  sigemptyset(&Default.sa_mask);
  sigaction(Sig, &Default, nullptr);
  if (Info->si_code <= 0)
    raise(Sig);
}

void onFault(int Sig, siginfo_t *Info, void *Context) {
  RecoveryPoint *R = Armed;
  // si_code > 0: raised by the kernel for an instruction of this thread,
  // not sent by kill, raise or sigqueue.
  if (R && Info && Info->si_code > 0) {
    Armed = nullptr;
    R->Signal = Sig;
    // The jump leaves the handler without sigreturn: restore the signal
    // mask of the faulting code, which the kernel saved in the context
    // (Sig itself is blocked while the handler runs). sigsetjmp saved no
    // mask: saving it would cost a system call per call into kernel code.
    pthread_sigmask(SIG_SETMASK,
                    &static_cast<ucontext_t *>(Context)->uc_sigmask, nullptr);
    siglongjmp(R->Env, 1);
  }
  chain(Sig, Info, Context);
}

} // namespace

void installFaultHandler() {
  if (Installed)
    return;
  struct sigaction Ours;
  std::memset(&Ours, 0, sizeof(Ours));
  Ours.sa_sigaction = &onFault;
  // SA_ONSTACK: where a thread has an alternate signal stack (ASan gives
  // its threads one) a fault on an exhausted stack still gets a handler.
  Ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&Ours.sa_mask);
  for (int Sig : FaultSignals) {
    struct sigaction Old;
    sigaction(Sig, nullptr, &Old);
    if (isOurs(Old))
      continue; // Never chain to ourselves.
    Previous[Sig] = Old;
    sigaction(Sig, &Ours, nullptr);
  }
  Installed = true;
}

void removeFaultHandler() {
  if (!Installed)
    return;
  for (int Sig : FaultSignals) {
    struct sigaction Current;
    sigaction(Sig, nullptr, &Current);
    if (isOurs(Current))
      sigaction(Sig, &Previous[Sig], nullptr);
  }
  Installed = false;
}

int runKernelCode(void (*Fn)(void *), void *Data) {
  RecoveryPoint Point;
  RecoveryPoint *const Outer = Armed;
  if (sigsetjmp(Point.Env, 0) != 0) {
    Armed = Outer;
    return Point.Signal;
  }
  Armed = &Point;
  // The handler reads Armed on this thread: the compiler must not sink the
  // store past the call or hoist the reset above it.
  std::atomic_signal_fence(std::memory_order_seq_cst);
  Fn(Data);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  Armed = Outer;
  return 0;
}

NotKernelCode::NotKernelCode() : Saved(Armed) {
  Armed = nullptr;
  std::atomic_signal_fence(std::memory_order_seq_cst);
}

NotKernelCode::~NotKernelCode() {
  std::atomic_signal_fence(std::memory_order_seq_cst);
  Armed = static_cast<RecoveryPoint *>(Saved);
}

} // namespace openhsa::cpu
