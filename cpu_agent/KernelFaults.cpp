//===- cpu_agent/KernelFaults.cpp - Faults of kernel code -----------------===//
#include "cpu_agent/KernelFaults.h"

#include <cerrno>
#include <csetjmp>
#include <cstring>

#include <ucontext.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace openhsa::cpu {

namespace {

struct RecoveryPoint {
  sigjmp_buf Env;
  volatile sig_atomic_t Signal = 0;
  /// Set when the kernel code this point guards is being cancelled; null
  /// where it cannot be.
  const std::atomic<bool> *Cancel = nullptr;
};

/// The armed recovery point of this thread, or null. initial-exec: the
/// handler reads it on any thread, and that must not allocate the thread's
/// TLS block lazily (which a dynamically loaded library's general-dynamic
/// TLS may do, and which is not async-signal-safe).
__attribute__((tls_model("initial-exec"))) thread_local RecoveryPoint *Armed =
    nullptr;

constexpr int FaultSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};

/// The value a cancel request carries (sigqueue's si_value): its address
/// is the runtime's alone.
const char CancelTag = 0;

/// The actions ours replaced, by signal number; written before ours is
/// installed, read by the handler.
struct sigaction Previous[NSIG];
bool Installed = false;

void onFault(int Sig, siginfo_t *Info, void *Context);
void onCancel(int Sig, siginfo_t *Info, void *Context);

bool isOurs(const struct sigaction &A) {
  return (A.sa_flags & SA_SIGINFO) &&
         (A.sa_sigaction == &onFault || A.sa_sigaction == &onCancel);
}

/// Hands a signal that is not a kernel's to what was installed before us.
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
  // CancelSignal's default action is to ignore it, and so is SIG_IGN's.
  if (Sig == CancelSignal)
    return;
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

/// Leaves the handler for R's recovery point, runKernelCode returning
/// Result.
[[noreturn]] void jumpBack(RecoveryPoint *R, int Result, void *Context) {
  Armed = nullptr;
  R->Signal = Result;
  // The jump leaves the handler without sigreturn: restore the signal mask
  // of the interrupted code, which the kernel saved in the context (the
  // signal itself is blocked while the handler runs). sigsetjmp saved no
  // mask: saving it would cost a system call per call into kernel code.
  pthread_sigmask(SIG_SETMASK, &static_cast<ucontext_t *>(Context)->uc_sigmask,
                  nullptr);
  siglongjmp(R->Env, 1);
}

void onFault(int Sig, siginfo_t *Info, void *Context) {
  RecoveryPoint *R = Armed;
  // si_code > 0: raised by the kernel for an instruction of this thread,
  // not sent by kill, raise or sigqueue.
  if (R && Info && Info->si_code > 0)
    jumpBack(R, Sig, Context);
  chain(Sig, Info, Context);
}

bool isCancelRequest(const siginfo_t *Info) {
  return Info && Info->si_code == SI_QUEUE &&
         Info->si_value.sival_ptr == &CancelTag && Info->si_pid == getpid();
}

void onCancel(int Sig, siginfo_t *Info, void *Context) {
  const int SavedErrno = errno;
  if (isCancelRequest(Info)) {
    RecoveryPoint *R = Armed;
    if (R && R->Cancel && R->Cancel->load(std::memory_order_relaxed))
      jumpBack(R, KernelCancelled, Context);
    // Not in kernel code being cancelled (any more, or not yet: disarmed
    // in a helper, between chunks): the canceller asks again.
  } else {
    chain(Sig, Info, Context);
  }
  errno = SavedErrno;
}

void install(int Sig, const struct sigaction &Ours) {
  struct sigaction Old;
  sigaction(Sig, nullptr, &Old);
  if (isOurs(Old))
    return; // Never chain to ourselves.
  Previous[Sig] = Old;
  sigaction(Sig, &Ours, nullptr);
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
  // A cancel request must not jump out of the fault handler before that
  // jumps itself (it would leave the fault signal blocked).
  sigemptyset(&Ours.sa_mask);
  sigaddset(&Ours.sa_mask, CancelSignal);
  for (int Sig : FaultSignals)
    install(Sig, Ours);
  // SA_RESTART: a request that lands in a system call of a helper (not
  // kernel code) must not make the call fail.
  struct sigaction Cancel;
  std::memset(&Cancel, 0, sizeof(Cancel));
  Cancel.sa_sigaction = &onCancel;
  Cancel.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&Cancel.sa_mask);
  install(CancelSignal, Cancel);
  Installed = true;
}

void removeFaultHandler() {
  if (!Installed)
    return;
  auto Restore = [](int Sig) {
    struct sigaction Current;
    sigaction(Sig, nullptr, &Current);
    if (isOurs(Current))
      sigaction(Sig, &Previous[Sig], nullptr);
  };
  for (int Sig : FaultSignals)
    Restore(Sig);
  Restore(CancelSignal);
  Installed = false;
}

void acceptKernelCancellation() {
  sigset_t Set;
  sigemptyset(&Set);
  sigaddset(&Set, CancelSignal);
  pthread_sigmask(SIG_UNBLOCK, &Set, nullptr);
}

int runKernelCode(void (*Fn)(void *), void *Data,
                  const std::atomic<bool> *Cancel) {
  RecoveryPoint Point;
  Point.Cancel = Cancel;
  RecoveryPoint *const Outer = Armed;
#if defined(__x86_64__)
  // The caller's floating-point mode, put back after a fault or a
  // cancellation: the jump out of the handler keeps the handler's fresh
  // state (Linux starts it with the default MXCSR), not the caller's, and
  // base-profile kernel code runs with FTZ and DAZ set
  // (finalizer/Finalizer.cpp).
  const unsigned Mxcsr = _mm_getcsr();
#endif
  if (sigsetjmp(Point.Env, 0) != 0) {
    Armed = Outer;
#if defined(__x86_64__)
    _mm_setcsr(Mxcsr);
#endif
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

bool interruptKernelCode(pthread_t Thread) {
  union sigval Value;
  Value.sival_ptr = const_cast<char *>(&CancelTag);
  return pthread_sigqueue(Thread, CancelSignal, Value) == 0;
}

NotKernelCode::NotKernelCode() : Saved(Armed) {
  Armed = nullptr;
  std::atomic_signal_fence(std::memory_order_seq_cst);
}

NotKernelCode::~NotKernelCode() {
  std::atomic_signal_fence(std::memory_order_seq_cst);
  Armed = static_cast<RecoveryPoint *>(Saved);
}

bool NotKernelCode::cancelRequested() const {
  const auto *R = static_cast<const RecoveryPoint *>(Saved);
  return R && R->Cancel && R->Cancel->load(std::memory_order_relaxed);
}

bool runsKernelCode() { return Armed != nullptr; }

void cancellationPoint() {
  RecoveryPoint *R = Armed;
  if (!R || !R->Cancel || !R->Cancel->load(std::memory_order_relaxed))
    return;
  Armed = nullptr;
  R->Signal = KernelCancelled;
  siglongjmp(R->Env, 1);
}

} // namespace openhsa::cpu
