//===- runtime/core/SpinLock.h - A tiny test-and-test-and-set lock -*- C++
//-*-===//
//
// For very short critical sections off the fast paths (watcher lists of a
// signal). Satisfies BasicLockable, so std::lock_guard works.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_CORE_SPINLOCK_H
#define OPENHSA_RUNTIME_CORE_SPINLOCK_H

#include "runtime/core/Futex.h"

#include <atomic>
#include <thread>

namespace openhsa {

class SpinLock {
public:
  void lock() {
    for (unsigned Spins = 0;; ++Spins) {
      if (!Locked.exchange(true, std::memory_order_acquire))
        return;
      while (Locked.load(std::memory_order_relaxed)) {
        if (++Spins > 1024)
          std::this_thread::yield();
        else
          cpuRelax();
      }
    }
  }
  void unlock() { Locked.store(false, std::memory_order_release); }

private:
  std::atomic<bool> Locked{false};
};

} // namespace openhsa

#endif
