//===- runtime/core/Futex.cpp - Blocking waits on 32-bit words ------------===//
#include "runtime/core/Futex.h"

#include <climits>
#include <sched.h>
#include <ctime>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace openhsa {

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t),
              "futex words must be plain 32-bit integers");

void futexWait(std::atomic<uint32_t> &Word, uint32_t Expected,
               int64_t TimeoutNs) {
  timespec Ts;
  timespec *TsPtr = nullptr;
  if (TimeoutNs >= 0) {
    Ts.tv_sec = TimeoutNs / 1000000000;
    Ts.tv_nsec = TimeoutNs % 1000000000;
    TsPtr = &Ts;
  }
  // Private futex: the words never live in memory shared across processes.
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&Word), FUTEX_WAIT_PRIVATE,
          Expected, TsPtr, nullptr, 0);
}

namespace {
std::atomic<bool> SpinningHelps{true};
} // namespace

bool spinningHelps() { return SpinningHelps.load(std::memory_order_relaxed); }
void setSpinningHelps(bool Helps) {
  SpinningHelps.store(Helps, std::memory_order_relaxed);
}

void yieldCpu() { sched_yield(); }

void futexWake(std::atomic<uint32_t> &Word, int Count) {
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&Word), FUTEX_WAKE_PRIVATE,
          Count, nullptr, nullptr, 0);
}

} // namespace openhsa
