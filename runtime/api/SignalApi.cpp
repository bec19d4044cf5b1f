//===- runtime/api/SignalApi.cpp - hsa_signal_* (HSA Runtime 2.6) ---------===//
//
// The value operations are on the fast path and return no status: they
// check a handle only for plausibility (non-null, aligned, live magic) and
// do nothing (loads return 0) for one that fails.
//
//===----------------------------------------------------------------------===//
#include "cpu_agent/KernelFaults.h"
#include "runtime/api/ApiCommon.h"
#include "runtime/api/EnumArg.h"

#include <algorithm>

using namespace openhsa;

namespace {

Signal *plausible(hsa_signal_t H) {
  return Signal::looksValid(H) ? Signal::fromHandle(H) : nullptr;
}

template <typename T> bool hasDuplicates(const T *Items, size_t Count) {
  std::vector<uint64_t> Handles;
  for (size_t I = 0; I < Count; ++I)
    Handles.push_back(Items[I].handle);
  std::sort(Handles.begin(), Handles.end());
  return std::adjacent_find(Handles.begin(), Handles.end()) != Handles.end();
}

hsa_status_t consumerList(Runtime &R, uint32_t Count, const hsa_agent_t *List,
                          std::vector<const Agent *> &Out) {
  if (Count > 0 && !List)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (hasDuplicates(List, Count))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (uint32_t I = 0; I < Count; ++I) {
    Agent *A = R.agent(List[I]);
    if (!A)
      return HSA_STATUS_ERROR_INVALID_AGENT;
    Out.push_back(A);
  }
  return HSA_STATUS_SUCCESS;
}

/// The caller's wait-state hint; an unknown one is taken as BLOCKED (a hint
/// changes no result).
hsa_wait_state_t waitHint(const hsa_wait_state_t &Hint) {
  return enumArg(Hint, {HSA_WAIT_STATE_BLOCKED, HSA_WAIT_STATE_ACTIVE})
      .value_or(HSA_WAIT_STATE_BLOCKED);
}

/// Condition and Hint are the entry point's own parameters, read as
/// integers before they are used (EnumArg.h).
hsa_signal_value_t waitOn(hsa_signal_t H,
                          const hsa_signal_condition_t &Condition,
                          hsa_signal_value_t Compare, uint64_t Timeout,
                          const hsa_wait_state_t &Hint,
                          std::memory_order Order) {
  Signal *S = plausible(H);
  auto C =
      enumArg(Condition, {HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_NE,
                          HSA_SIGNAL_CONDITION_LT, HSA_SIGNAL_CONDITION_GTE});
  if (!S || !C)
    return S ? S->load(Order) : 0;
  // A native kernel may wait too: then the wait can be cancelled
  // (cpu_agent/KernelFaults.h); elsewhere this is one S->wait.
  hsa_signal_value_t Observed = 0;
  cpu::waitFromKernelCode(Timeout, [&](uint64_t Slice) {
    Observed = S->wait(*C, Compare, Slice, waitHint(Hint), Order);
    return signalConditionHolds(*C, Observed, Compare);
  });
  return Observed;
}

hsa_status_t groupWait(hsa_signal_group_t Group,
                       const hsa_signal_condition_t *Conditions,
                       const hsa_signal_value_t *CompareValues,
                       const hsa_wait_state_t &Hint, hsa_signal_t *Which,
                       hsa_signal_value_t *Value, std::memory_order Order) {
  OPENHSA_REQUIRE_RUNTIME(R);
  SignalGroup *G = R->signalGroup(Group);
  OPENHSA_REQUIRE(G, HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP);
  OPENHSA_REQUIRE(Conditions && CompareValues && Which && Value,
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  const size_t N = G->Signals.size();
  for (size_t I = 0; I < N; ++I)
    OPENHSA_REQUIRE(enumBits(Conditions[I]) <= HSA_SIGNAL_CONDITION_GTE,
                    HSA_STATUS_ERROR_INVALID_ARGUMENT);
  int64_t Observed = 0;
  size_t Index = N;
  cpu::waitFromKernelCode(UINT64_MAX, [&](uint64_t Slice) {
    Index = waitAny(G->Signals.data(), Conditions, CompareValues, N, Slice,
                    waitHint(Hint), Order, &Observed);
    return Index != N;
  });
  *Which = G->Signals[Index]->handle();
  *Value = Observed;
  return HSA_STATUS_SUCCESS;
}

} // namespace

extern "C" {

hsa_status_t hsa_signal_create(hsa_signal_value_t initial_value,
                               uint32_t num_consumers,
                               const hsa_agent_t *consumers,
                               hsa_signal_t *signal) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(signal, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  std::vector<const Agent *> Consumers;
  if (hsa_status_t S = consumerList(*R, num_consumers, consumers, Consumers))
    return S;
  *signal = R->createSignal(initial_value, std::move(Consumers))->handle();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_signal_destroy(hsa_signal_t signal) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(signal.handle, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OPENHSA_REQUIRE(R->destroySignal(signal), HSA_STATUS_ERROR_INVALID_SIGNAL);
  return HSA_STATUS_SUCCESS;
}

#define OPENHSA_SIGNAL_LOAD(Name, Order)                                       \
  hsa_signal_value_t Name(hsa_signal_t signal) {                               \
    Signal *S = plausible(signal);                                             \
    return S ? S->load(Order) : 0;                                             \
  }
OPENHSA_SIGNAL_LOAD(hsa_signal_load_scacquire, std::memory_order_acquire)
OPENHSA_SIGNAL_LOAD(hsa_signal_load_acquire, std::memory_order_acquire)
OPENHSA_SIGNAL_LOAD(hsa_signal_load_relaxed, std::memory_order_relaxed)

// Stores and read-modify-writes are performed sequentially consistent,
// which is at least as strong as every order the API names (Signal.h).
#define OPENHSA_SIGNAL_STORE(Name)                                             \
  void Name(hsa_signal_t signal, hsa_signal_value_t value) {                   \
    if (Signal *S = plausible(signal))                                         \
      S->store(value);                                                         \
  }
OPENHSA_SIGNAL_STORE(hsa_signal_store_relaxed)
OPENHSA_SIGNAL_STORE(hsa_signal_store_screlease)
OPENHSA_SIGNAL_STORE(hsa_signal_store_release)

void hsa_signal_silent_store_relaxed(hsa_signal_t signal,
                                     hsa_signal_value_t value) {
  if (Signal *S = plausible(signal))
    S->silentStore(value, std::memory_order_relaxed);
}
void hsa_signal_silent_store_screlease(hsa_signal_t signal,
                                       hsa_signal_value_t value) {
  if (Signal *S = plausible(signal))
    S->silentStore(value, std::memory_order_release);
}

#define OPENHSA_FOR_EACH_RMW_ORDER(X, Op)                                      \
  X(Op, scacq_screl)                                                           \
  X(Op, acq_rel) X(Op, scacquire) X(Op, acquire) X(Op, relaxed)                \
      X(Op, screlease) X(Op, release)

#define OPENHSA_SIGNAL_EXCHANGE(Op, Suffix)                                    \
  hsa_signal_value_t hsa_signal_exchange_##Suffix(hsa_signal_t signal,         \
                                                  hsa_signal_value_t value) {  \
    Signal *S = plausible(signal);                                             \
    return S ? S->exchange(value) : 0;                                         \
  }
OPENHSA_FOR_EACH_RMW_ORDER(OPENHSA_SIGNAL_EXCHANGE, exchange)

#define OPENHSA_SIGNAL_CAS(Op, Suffix)                                         \
  hsa_signal_value_t hsa_signal_cas_##Suffix(hsa_signal_t signal,              \
                                             hsa_signal_value_t expected,      \
                                             hsa_signal_value_t value) {       \
    Signal *S = plausible(signal);                                             \
    return S ? S->compareExchange(expected, value) : 0;                        \
  }
OPENHSA_FOR_EACH_RMW_ORDER(OPENHSA_SIGNAL_CAS, cas)

#define OPENHSA_SIGNAL_RMW(Op, Suffix)                                         \
  void hsa_signal_##Op##_##Suffix(hsa_signal_t signal,                         \
                                  hsa_signal_value_t value) {                  \
    if (Signal *S = plausible(signal))                                         \
      OPENHSA_SIGNAL_APPLY_##Op(S, value);                                     \
  }
#define OPENHSA_SIGNAL_APPLY_add(S, V) S->fetchAdd(V)
#define OPENHSA_SIGNAL_APPLY_subtract(S, V) S->fetchSub(V)
#define OPENHSA_SIGNAL_APPLY_and(S, V) S->fetchAnd(V)
#define OPENHSA_SIGNAL_APPLY_or(S, V) S->fetchOr(V)
#define OPENHSA_SIGNAL_APPLY_xor(S, V) S->fetchXor(V)
OPENHSA_FOR_EACH_RMW_ORDER(OPENHSA_SIGNAL_RMW, add)
OPENHSA_FOR_EACH_RMW_ORDER(OPENHSA_SIGNAL_RMW, subtract)
OPENHSA_FOR_EACH_RMW_ORDER(OPENHSA_SIGNAL_RMW, and)
OPENHSA_FOR_EACH_RMW_ORDER(OPENHSA_SIGNAL_RMW, or)
OPENHSA_FOR_EACH_RMW_ORDER(OPENHSA_SIGNAL_RMW, xor)

hsa_signal_value_t hsa_signal_wait_scacquire(hsa_signal_t signal,
                                             hsa_signal_condition_t condition,
                                             hsa_signal_value_t compare_value,
                                             uint64_t timeout_hint,
                                             hsa_wait_state_t wait_state_hint) {
  return waitOn(signal, condition, compare_value, timeout_hint, wait_state_hint,
                std::memory_order_acquire);
}
hsa_signal_value_t hsa_signal_wait_acquire(hsa_signal_t signal,
                                           hsa_signal_condition_t condition,
                                           hsa_signal_value_t compare_value,
                                           uint64_t timeout_hint,
                                           hsa_wait_state_t wait_state_hint) {
  return waitOn(signal, condition, compare_value, timeout_hint, wait_state_hint,
                std::memory_order_acquire);
}
hsa_signal_value_t hsa_signal_wait_relaxed(hsa_signal_t signal,
                                           hsa_signal_condition_t condition,
                                           hsa_signal_value_t compare_value,
                                           uint64_t timeout_hint,
                                           hsa_wait_state_t wait_state_hint) {
  return waitOn(signal, condition, compare_value, timeout_hint, wait_state_hint,
                std::memory_order_relaxed);
}

hsa_status_t hsa_signal_group_create(uint32_t num_signals,
                                     const hsa_signal_t *signals,
                                     uint32_t num_consumers,
                                     const hsa_agent_t *consumers,
                                     hsa_signal_group_t *signal_group) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(num_signals > 0 && signals && signal_group,
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OPENHSA_REQUIRE(num_consumers > 0 && consumers,
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OPENHSA_REQUIRE(!hasDuplicates(signals, num_signals),
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  std::vector<const Agent *> Consumers;
  if (hsa_status_t S = consumerList(*R, num_consumers, consumers, Consumers))
    return S;
  std::vector<const Signal *> Members;
  for (uint32_t I = 0; I < num_signals; ++I) {
    Signal *S = R->signal(signals[I]);
    OPENHSA_REQUIRE(S, HSA_STATUS_ERROR_INVALID_SIGNAL);
    Members.push_back(S);
  }
  *signal_group = R->createSignalGroup(std::move(Members))->handle();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_signal_group_destroy(hsa_signal_group_t signal_group) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(R->destroySignalGroup(signal_group),
                  HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_signal_group_wait_any_scacquire(
    hsa_signal_group_t signal_group, const hsa_signal_condition_t *conditions,
    const hsa_signal_value_t *compare_values, hsa_wait_state_t wait_state_hint,
    hsa_signal_t *signal, hsa_signal_value_t *value) {
  return groupWait(signal_group, conditions, compare_values, wait_state_hint,
                   signal, value, std::memory_order_acquire);
}

hsa_status_t hsa_signal_group_wait_any_relaxed(
    hsa_signal_group_t signal_group, const hsa_signal_condition_t *conditions,
    const hsa_signal_value_t *compare_values, hsa_wait_state_t wait_state_hint,
    hsa_signal_t *signal, hsa_signal_value_t *value) {
  return groupWait(signal_group, conditions, compare_values, wait_state_hint,
                   signal, value, std::memory_order_relaxed);
}

} // extern "C"
