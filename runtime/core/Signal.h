//===- runtime/core/Signal.h - HSA signals ----------------------*- C++ -*-===//
//
// An hsa_signal_t handle is the address of a Signal. Its first field is the
// 64-bit value, so code JIT-compiled for a kernel can operate on a signal
// with plain atomics given only the handle (PRM 6.8 signal instructions).
//
// Every modification is followed by a check of the watcher count; only when
// someone is blocked on the signal does the modifier take the slow path that
// wakes them. Waiters spin briefly, then register a WakeWord and block on
// its futex, so a waiting thread uses no CPU. The same watcher mechanism
// lets one thread sleep on several signals at once (wait_any, barrier
// packets, an agent's doorbells).
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_CORE_SIGNAL_H
#define OPENHSA_RUNTIME_CORE_SIGNAL_H

#include "hsa/hsa.h"
#include "runtime/core/Futex.h"
#include "runtime/core/SpinLock.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>
#include <vector>

namespace openhsa {

class Agent;

/// How a waiter compares a signal's value (HSA hsa_signal_condition_t).
bool signalConditionHolds(hsa_signal_condition_t Condition, int64_t Value,
                          int64_t CompareValue);

class Signal {
public:
  static constexpr uint64_t LiveMagic = 0x4c4e4753'4153484fULL; // "OHSASGNL"

  explicit Signal(int64_t InitialValue,
                  std::vector<const Agent *> Consumers = {});
  ~Signal();
  Signal(const Signal &) = delete;
  Signal &operator=(const Signal &) = delete;

  static Signal *fromHandle(hsa_signal_t Handle) {
    return reinterpret_cast<Signal *>(static_cast<uintptr_t>(Handle.handle));
  }
  hsa_signal_t handle() const {
    return {static_cast<uint64_t>(reinterpret_cast<uintptr_t>(this))};
  }
  /// Cheap plausibility check of a handle (non-null, aligned, live magic).
  /// The runtime's registry is the authority for destroy.
  static bool looksValid(hsa_signal_t Handle);

  /// Signals live in memory that is never given back to the heap: a
  /// destroyed signal's slot keeps its cleared magic until a new signal
  /// takes it (after 256 later destroys, Signal.cpp), so the value
  /// operations (which have no status to return and check only looksValid)
  /// on a destroyed signal read that magic and do nothing, instead of
  /// reading freed memory.
  static void *operator new(size_t Size);
  static void *operator new(size_t Size, const std::nothrow_t &) noexcept;
  static void operator delete(void *P) noexcept;

  /// Signals are carved from page-aligned slabs of SlabBytes that are never
  /// freed, so that GPU agents can pin and map a slab once and then wait on
  /// and modify the values of its signals on the device (gpu_backend/
  /// GpuSignals.h). False when P is in no slab; else the slab holding it.
  static constexpr size_t SlabBytes = 256 * 1024;
  static bool slabOf(const void *P, void *&Base);
  /// Every slab so far, oldest first (slabs are only ever added).
  static std::vector<void *> slabs();
  /// Reserves Slabs slabs in one block, from which the next slabs come,
  /// and returns it (the block reserved before, if any): GPU agents map it
  /// into their devices once, before any stream could wait, so that
  /// kernels' signal instructions reach those signals. {nullptr, 0} when
  /// there is no memory.
  static std::pair<void *, size_t> reserveSlabArena(size_t Slabs);

  /// From now on signals may be modified by code that cannot notify their
  /// waiters (GPU kernels' signal instructions): blocked host waits then
  /// re-check their condition at least every millisecond (sooner early in
  /// a wait) instead of every MaxSleepNs (Signal.cpp).
  static void expectSilentModifications();
  /// How long a thread that waits for signal modifications by other means
  /// than Signal::wait (a packet processor asleep on its doorbells and
  /// barrier dependencies) may sleep after waiting WaitedNs: -1 (until
  /// woken) unless silent modifications are expected; then as Signal::wait
  /// re-checks. A GPU kernel's doorbell store (PRM 11.3 queue instructions)
  /// is then seen within about 6 % of the idle time, at most 1 ms.
  static int64_t sleepBeforeRecheckNs(uint64_t WaitedNs);

  /// Wakes the threads waiting on this signal after its value was modified
  /// where no notification can be sent from (by a GPU kernel).
  void wakeWaiters() const { notifyIfWatched(); }

  int64_t load(std::memory_order Order) const { return Value.load(Order); }

  // Modifications. They are performed sequentially consistent (on x86 the
  // same instructions as the weaker orders for RMWs), which makes the
  // watcher-count check after them race-free.
  void store(int64_t NewValue) {
    Value.store(NewValue, std::memory_order_seq_cst);
    notifyIfWatched();
  }
  /// Stores without waking waiters (hsa_signal_silent_store_*).
  void silentStore(int64_t NewValue, std::memory_order Order) {
    Value.store(NewValue, Order);
  }
  int64_t exchange(int64_t NewValue) {
    return modified(Value.exchange(NewValue));
  }
  int64_t compareExchange(int64_t Expected, int64_t NewValue) {
    Value.compare_exchange_strong(Expected, NewValue);
    notifyIfWatched();
    return Expected;
  }
  int64_t fetchAdd(int64_t V) { return modified(Value.fetch_add(V)); }
  int64_t fetchSub(int64_t V) { return modified(Value.fetch_sub(V)); }
  int64_t fetchAnd(int64_t V) { return modified(Value.fetch_and(V)); }
  int64_t fetchOr(int64_t V) { return modified(Value.fetch_or(V)); }
  int64_t fetchXor(int64_t V) { return modified(Value.fetch_xor(V)); }

  /// Waits until the condition holds or TimeoutTicks (system timestamp
  /// ticks; UINT64_MAX: no limit) elapse. Returns the last value observed.
  int64_t wait(hsa_signal_condition_t Condition, int64_t CompareValue,
               uint64_t TimeoutTicks, hsa_wait_state_t Hint,
               std::memory_order Order) const;

  /// Registers W to be notified on every modification until removed. A
  /// WakeWord may be added several times; each add needs one remove.
  void addWatcher(WakeWord *W) const;
  void removeWatcher(WakeWord *W) const;

  const std::vector<const Agent *> &consumers() const { return Consumers; }

private:
  int64_t modified(int64_t Old) {
    notifyIfWatched();
    return Old;
  }
  void notifyIfWatched() const {
    if (WatcherCount.load(std::memory_order_seq_cst) != 0)
      notifyWatchers();
  }
  void notifyWatchers() const;

  std::atomic<int64_t> Value; // Must stay first: see the file comment.
  std::atomic<uint64_t> Magic{LiveMagic};
  mutable std::atomic<uint32_t> WatcherCount{0};
  mutable SpinLock WatchersLock;
  mutable std::vector<WakeWord *> Watchers;
  std::vector<const Agent *> Consumers;
};

/// Waits until any of Signals satisfies its condition; returns its index,
/// or Signals.size() on timeout. Value, if non-null, gets that signal's
/// value.
size_t waitAny(const Signal *const *Signals,
               const hsa_signal_condition_t *Conditions,
               const int64_t *CompareValues, size_t Count,
               uint64_t TimeoutTicks, hsa_wait_state_t Hint,
               std::memory_order Order, int64_t *Value);

} // namespace openhsa

#endif
