//===- runtime/core/Futex.h - Blocking waits on 32-bit words ----*- C++ -*-===//
//
// Thin wrappers over Linux futexes and the WakeWord built on them. A WakeWord
// is what a sleeping thread (a host thread in hsa_signal_wait_*, an agent's
// packet processor) blocks on; anything that may satisfy its condition bumps
// the word's epoch. Waiting threads use no CPU.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_CORE_FUTEX_H
#define OPENHSA_RUNTIME_CORE_FUTEX_H

#include <atomic>
#include <cstdint>

namespace openhsa {

/// Blocks while *Word == Expected, for at most TimeoutNs nanoseconds
/// (negative: no limit). Returns early on a wake-up or a spurious wake.
void futexWait(std::atomic<uint32_t> &Word, uint32_t Expected,
               int64_t TimeoutNs);

/// Wakes up to Count threads blocked on Word.
void futexWake(std::atomic<uint32_t> &Word, int Count);

/// A word that sleepers block on and notifiers bump.
///
/// Protocol, for a sleeper: E = epoch(); check the condition; if not met,
/// sleep(E, ...). A notifier that changes the condition and then calls
/// notify() is guaranteed to either be seen by the check or to change the
/// epoch before the sleeper blocks, so no wake-up is lost.
class WakeWord {
public:
  uint32_t epoch() const { return Epoch.load(std::memory_order_seq_cst); }

  /// Sleeps unless the epoch moved past Seen, for at most TimeoutNs
  /// (negative: no limit).
  void sleep(uint32_t Seen, int64_t TimeoutNs) {
    Sleepers.fetch_add(1, std::memory_order_seq_cst);
    if (Epoch.load(std::memory_order_seq_cst) == Seen)
      futexWait(Epoch, Seen, TimeoutNs);
    Sleepers.fetch_sub(1, std::memory_order_relaxed);
  }

  /// Moves the epoch and wakes every sleeper.
  void notify() {
    Epoch.fetch_add(1, std::memory_order_seq_cst);
    if (Sleepers.load(std::memory_order_seq_cst) != 0)
      futexWake(Epoch, INT32_MAX);
  }

private:
  std::atomic<uint32_t> Epoch{0};
  std::atomic<uint32_t> Sleepers{0};
};

/// Whether waiting threads should spin before they sleep. Not where the
/// process may run on a single processing unit (taskset -c N, a one-CPU
/// cpuset): there a spinning thread holds the very CPU that the thread it
/// waits for needs. Set at hsa_init from the process's affinity mask.
bool spinningHelps();
void setSpinningHelps(bool Helps);

/// Gives the CPU to another runnable thread, if any (sched_yield). Spin
/// loops call it between bursts of cpuRelax: where the machine has more
/// runnable threads than CPUs (other processes, or the runtime's own
/// threads on few CPUs), the thread being waited for then runs instead of
/// waiting for the spinner's time slice to end. Cheap where a CPU is idle.
void yieldCpu();

/// Spins with a CPU pause hint.
inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

} // namespace openhsa

#endif
