//===- runtime/core/Signal.cpp - HSA signals ------------------------------===//
#include "runtime/core/Signal.h"

#include "runtime/core/Clock.h"
#include "runtime/core/Registry.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>

namespace openhsa {

bool signalConditionHolds(hsa_signal_condition_t Condition, int64_t Value,
                          int64_t CompareValue) {
  switch (Condition) {
  case HSA_SIGNAL_CONDITION_EQ:
    return Value == CompareValue;
  case HSA_SIGNAL_CONDITION_NE:
    return Value != CompareValue;
  case HSA_SIGNAL_CONDITION_LT:
    return Value < CompareValue;
  case HSA_SIGNAL_CONDITION_GTE:
    return Value >= CompareValue;
  }
  return false;
}

Signal::Signal(int64_t InitialValue, std::vector<const Agent *> Consumers)
    : Value(InitialValue), Consumers(std::move(Consumers)) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
  static_assert(offsetof(Signal, Value) == 0,
                "JIT-compiled kernels address a signal's value at offset 0");
#pragma GCC diagnostic pop
}

Signal::~Signal() { Magic.store(0, std::memory_order_relaxed); }

namespace {

/// Slots of destroyed signals. A slot is reused only once Quarantine later
/// signals were destroyed, oldest first: a handle a program keeps after
/// destroying its signal stays dead (its magic 0) for as long as that, rather
/// than naming the very next signal created. New slots come from slabs of
/// Signal::SlabBytes, page aligned, never freed (see Signal::slabOf).
struct SignalSlots {
  static constexpr size_t Quarantine = 256;
  static constexpr size_t SlotBytes = 128;
  std::mutex Mutex;
  std::deque<void *> Free;
  std::vector<char *> Slabs;
  char *Next = nullptr, *End = nullptr;
  // Signal::reserveSlabArena: slabs still to come from the arena.
  char *Arena = nullptr, *ArenaNext = nullptr, *ArenaEnd = nullptr;
};
SignalSlots &signalSlots() {
  static SignalSlots *Slots = new SignalSlots; // Never destroyed: signals
  return *Slots; // may be freed by other statics' destructors at exit.
}

} // namespace

void *Signal::operator new(size_t Size, const std::nothrow_t &) noexcept {
  static_assert(sizeof(Signal) <= SignalSlots::SlotBytes &&
                Signal::SlabBytes % SignalSlots::SlotBytes == 0);
  if (Size > SignalSlots::SlotBytes)
    return nullptr;
  SignalSlots &S = signalSlots();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  if (S.Free.size() > SignalSlots::Quarantine) {
    void *P = S.Free.front();
    S.Free.pop_front();
    return P;
  }
  if (S.Next == S.End) {
    const bool FromArena = S.ArenaNext != S.ArenaEnd;
    auto *Slab = FromArena
                     ? S.ArenaNext
                     : static_cast<char *>(std::aligned_alloc(4096, SlabBytes));
    if (!Slab)
      return nullptr;
    try {
      S.Slabs.push_back(Slab);
    } catch (...) {
      if (!FromArena)
        std::free(Slab);
      return nullptr;
    }
    if (FromArena)
      S.ArenaNext += SlabBytes;
    S.Next = Slab;
    S.End = Slab + SlabBytes;
  }
  void *P = S.Next;
  S.Next += SignalSlots::SlotBytes;
  return P;
}

void *Signal::operator new(size_t Size) {
  if (void *P = operator new(Size, std::nothrow))
    return P;
  throw std::bad_alloc();
}

void Signal::operator delete(void *P) noexcept {
  if (!P)
    return;
  // Cleared here, not only by the destructor: stores to an object whose
  // lifetime ends may be optimized away (GCC's -flifetime-dse). Only the
  // value and the magic, with atomic stores: the agent thread whose
  // decrement released the waiter that destroys the signal may still be
  // reading the watcher count (0 by now) right after that decrement.
  auto *Dead = static_cast<Signal *>(P);
  Dead->Value.store(0, std::memory_order_relaxed);
  Dead->Magic.store(0, std::memory_order_relaxed);
  SignalSlots &S = signalSlots();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  S.Free.push_back(P); // deque::push_back may throw: only when out of memory.
}

std::vector<void *> Signal::slabs() {
  SignalSlots &S = signalSlots();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  return {S.Slabs.begin(), S.Slabs.end()};
}

std::pair<void *, size_t> Signal::reserveSlabArena(size_t Slabs) {
  SignalSlots &S = signalSlots();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  if (!S.Arena) {
    S.Arena = static_cast<char *>(std::aligned_alloc(4096, Slabs * SlabBytes));
    if (!S.Arena)
      return {nullptr, 0};
    S.ArenaNext = S.Arena;
    S.ArenaEnd = S.Arena + Slabs * SlabBytes;
  }
  return {S.Arena, size_t(S.ArenaEnd - S.Arena)};
}

bool Signal::slabOf(const void *P, void *&Base) {
  SignalSlots &S = signalSlots();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  for (char *Slab : S.Slabs)
    if (static_cast<const char *>(P) >= Slab &&
        static_cast<const char *>(P) < Slab + SlabBytes) {
      Base = Slab;
      return true;
    }
  return false;
}

bool Signal::looksValid(hsa_signal_t Handle) {
  if (Handle.handle == 0 || Handle.handle % alignof(Signal) != 0)
    return false;
  return fromHandle(Handle)->Magic.load(std::memory_order_relaxed) == LiveMagic;
}

void Signal::addWatcher(WakeWord *W) const {
  std::lock_guard<SpinLock> Guard(WatchersLock);
  Watchers.push_back(W);
  WatcherCount.fetch_add(1, std::memory_order_seq_cst);
}

void Signal::removeWatcher(WakeWord *W) const {
  std::lock_guard<SpinLock> Guard(WatchersLock);
  auto It = std::find(Watchers.begin(), Watchers.end(), W);
  if (It == Watchers.end())
    return;
  Watchers.erase(It);
  WatcherCount.fetch_sub(1, std::memory_order_seq_cst);
}

void Signal::notifyWatchers() const {
  std::lock_guard<SpinLock> Guard(WatchersLock);
  for (WakeWord *W : Watchers)
    W->notify();
}

namespace {

/// How long a waiter spins before it blocks. ACTIVE asks the thread to stay
/// on its core, so it spins longer; a BLOCKED waiter gives the core up soon.
uint64_t spinBudgetNs(hsa_wait_state_t Hint) {
  if (!spinningHelps())
    return 0;
  return Hint == HSA_WAIT_STATE_ACTIVE ? 200'000 : 10'000;
}

/// After this long a spinning waiter yields its CPU between polls.
constexpr uint64_t YieldAfterNs = 2'000;

/// Longest single futex sleep. Waits re-check their condition at least this
/// often, which bounds the damage of a missed notification (e.g. a signal
/// modified by a kernel through a path that cannot notify) to this latency.
constexpr int64_t MaxSleepNs = 20'000'000;

/// Set once code that modifies signals without notifying (GPU kernels) may
/// run: sleeps are then a sixteenth of the time waited so far, between
/// SilentMinSleepNs and SilentMaxSleepNs, so such a modification is seen
/// within about 6 % of the wait or a millisecond.
std::atomic<bool> SilentModifications{false};
constexpr uint64_t SilentMinSleepNs = 20'000, SilentMaxSleepNs = 1'000'000;

/// Shared wait loop: Poll() returns true once the wait is over.
template <typename PollFn>
bool spinThenBlock(PollFn Poll, const Signal *const *Signals, size_t Count,
                   uint64_t TimeoutTicks, hsa_wait_state_t Hint) {
  // Most waits on the fast paths are already satisfied: poll before anything
  // else, the clock included.
  if (Poll())
    return true;
  const uint64_t Start = monotonicNanoseconds();
  const uint64_t TimeoutNs = ticksToNanoseconds(TimeoutTicks);
  const uint64_t SpinNs = std::min(spinBudgetNs(Hint), TimeoutNs);
  for (unsigned Iter = 1;; ++Iter) {
    if (Poll())
      return true;
    cpuRelax();
    if (Iter % 64 == 0) {
      const uint64_t Spun = monotonicNanoseconds() - Start;
      if (Spun >= SpinNs)
        break;
      if (Spun >= YieldAfterNs)
        yieldCpu(); // The thread that will satisfy the wait may need it.
    }
  }

  WakeWord Word;
  for (size_t I = 0; I < Count; ++I)
    Signals[I]->addWatcher(&Word);
  bool Done = false;
  for (;;) {
    uint32_t Seen = Word.epoch();
    if (Poll()) {
      Done = true;
      break;
    }
    uint64_t Elapsed = monotonicNanoseconds() - Start;
    if (Elapsed >= TimeoutNs)
      break;
    uint64_t Left = TimeoutNs - Elapsed;
    uint64_t Sleep = MaxSleepNs;
    if (SilentModifications.load(std::memory_order_relaxed))
      Sleep = std::clamp(Elapsed / 16, SilentMinSleepNs, SilentMaxSleepNs);
    Word.sleep(Seen, int64_t(std::min<uint64_t>(Left, Sleep)));
  }
  for (size_t I = 0; I < Count; ++I)
    Signals[I]->removeWatcher(&Word);
  return Done;
}

} // namespace

void Signal::expectSilentModifications() {
  SilentModifications.store(true, std::memory_order_relaxed);
}

int64_t Signal::sleepBeforeRecheckNs(uint64_t WaitedNs) {
  if (!SilentModifications.load(std::memory_order_relaxed))
    return -1;
  return int64_t(std::clamp(WaitedNs / 16, SilentMinSleepNs, SilentMaxSleepNs));
}

int64_t Signal::wait(hsa_signal_condition_t Condition, int64_t CompareValue,
                     uint64_t TimeoutTicks, hsa_wait_state_t Hint,
                     std::memory_order Order) const {
  int64_t Observed = 0;
  const Signal *Self = this;
  spinThenBlock(
      [&] {
        Observed = Value.load(Order);
        return signalConditionHolds(Condition, Observed, CompareValue);
      },
      &Self, 1, TimeoutTicks, Hint);
  return Observed;
}

size_t waitAny(const Signal *const *Signals,
               const hsa_signal_condition_t *Conditions,
               const int64_t *CompareValues, size_t Count,
               uint64_t TimeoutTicks, hsa_wait_state_t Hint,
               std::memory_order Order, int64_t *Value) {
  size_t Which = Count;
  int64_t Observed = 0;
  spinThenBlock(
      [&] {
        for (size_t I = 0; I < Count; ++I) {
          int64_t V = Signals[I]->load(Order);
          if (signalConditionHolds(Conditions[I], V, CompareValues[I])) {
            Which = I;
            Observed = V;
            return true;
          }
        }
        return false;
      },
      Signals, Count, TimeoutTicks, Hint);
  if (Value && Which != Count)
    *Value = Observed;
  return Which;
}

} // namespace openhsa

namespace openhsa {
Registry<Signal> &liveSignals() {
  static Registry<Signal> Signals;
  return Signals;
}
} // namespace openhsa
