//===- benchmarks/RuntimeBenchmarks.cpp - Signals and dispatch latency ----===//
//
// Targets (issue "Runtime foundation"): dispatch round trip median <= 2 us,
// back-to-back >= 500k dispatches/s, 4096 empty work-groups <= 100 us, an
// idle process with queues < 1% of a core. Run with
// --benchmark_repetitions=N and read the medians.
//
//===----------------------------------------------------------------------===//
#include "DispatchHelpers.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <sys/resource.h>
#include <thread>

using namespace openhsa::bench;

namespace {

struct Runtime {
  Runtime() { check(hsa_init(), "hsa_init"); }
  ~Runtime() { hsa_shut_down(); }
};

void BM_SignalLoad(benchmark::State &State) {
  Runtime R;
  hsa_signal_t S;
  check(hsa_signal_create(1, 0, nullptr, &S), "signal");
  for (auto _ : State)
    benchmark::DoNotOptimize(hsa_signal_load_scacquire(S));
  hsa_signal_destroy(S);
}
BENCHMARK(BM_SignalLoad);

void BM_SignalStore(benchmark::State &State) {
  Runtime R;
  hsa_signal_t S;
  check(hsa_signal_create(1, 0, nullptr, &S), "signal");
  hsa_signal_value_t V = 0;
  for (auto _ : State)
    hsa_signal_store_screlease(S, ++V);
  hsa_signal_destroy(S);
}
BENCHMARK(BM_SignalStore);

void BM_SignalSubtract(benchmark::State &State) {
  Runtime R;
  hsa_signal_t S;
  check(hsa_signal_create(1 << 30, 0, nullptr, &S), "signal");
  for (auto _ : State)
    hsa_signal_subtract_scacq_screl(S, 1);
  hsa_signal_destroy(S);
}
BENCHMARK(BM_SignalSubtract);

// A wait whose condition already holds: the cost of the check itself.
void BM_SignalWaitSatisfied(benchmark::State &State) {
  Runtime R;
  hsa_signal_t S;
  check(hsa_signal_create(0, 0, nullptr, &S), "signal");
  for (auto _ : State)
    benchmark::DoNotOptimize(hsa_signal_wait_scacquire(
        S, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_ACTIVE));
  hsa_signal_destroy(S);
}
BENCHMARK(BM_SignalWaitSatisfied);

// Ping-pong between two threads: one iteration is two signal hand-offs
// (store -> the other thread's wait returns). Arg: the wait state hint.
void BM_SignalPingPong(benchmark::State &State) {
  Runtime R;
  const auto Hint = hsa_wait_state_t(State.range(0));
  hsa_signal_t Ping, Pong;
  check(hsa_signal_create(0, 0, nullptr, &Ping), "signal");
  check(hsa_signal_create(0, 0, nullptr, &Pong), "signal");
  std::atomic<bool> Stop{false};
  std::thread Partner([&] {
    for (hsa_signal_value_t V = 1;; ++V) {
      while (hsa_signal_wait_scacquire(Ping, HSA_SIGNAL_CONDITION_GTE, V,
                                       UINT64_MAX, Hint) < V)
        ;
      if (Stop.load())
        break;
      hsa_signal_store_screlease(Pong, V);
    }
  });
  hsa_signal_value_t V = 0;
  for (auto _ : State) {
    hsa_signal_store_screlease(Ping, ++V);
    while (hsa_signal_wait_scacquire(Pong, HSA_SIGNAL_CONDITION_GTE, V,
                                     UINT64_MAX, Hint) < V)
      ;
  }
  Stop.store(true);
  hsa_signal_store_screlease(Ping, V + 1);
  Partner.join();
  hsa_signal_destroy(Ping);
  hsa_signal_destroy(Pong);
}
BENCHMARK(BM_SignalPingPong)
    ->Arg(HSA_WAIT_STATE_ACTIVE)
    ->Arg(HSA_WAIT_STATE_BLOCKED)
    ->UseRealTime();

// Packet written -> doorbell -> completion signal observed, one work-item.
void BM_DispatchRoundTrip(benchmark::State &State) {
  DispatchFixture F;
  hsa_signal_t Done;
  check(hsa_signal_create(1, 0, nullptr, &Done), "signal");
  for (auto _ : State) {
    hsa_signal_store_relaxed(Done, 1);
    F.dispatch(1, 1, Done);
    while (hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                     UINT64_MAX, HSA_WAIT_STATE_ACTIVE) != 0)
      ;
  }
  hsa_signal_destroy(Done);
}
BENCHMARK(BM_DispatchRoundTrip)->UseRealTime();

// Back-to-back dispatches on one queue: the producer keeps the queue full,
// one completion signal counts them all down.
void BM_DispatchThroughput(benchmark::State &State) {
  DispatchFixture F(4096);
  const int64_t Batch = 100000;
  hsa_signal_t Done;
  check(hsa_signal_create(Batch, 0, nullptr, &Done), "signal");
  for (auto _ : State) {
    hsa_signal_store_relaxed(Done, Batch);
    for (int64_t I = 0; I < Batch; ++I)
      F.dispatch(1, 1, Done);
    while (hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                     UINT64_MAX, HSA_WAIT_STATE_ACTIVE) != 0)
      ;
  }
  State.SetItemsProcessed(State.iterations() * Batch);
  hsa_signal_destroy(Done);
}
BENCHMARK(BM_DispatchThroughput)->UseRealTime()->Unit(benchmark::kMillisecond);

// Empty dispatches of N single-work-item work-groups, round trip; 16384:
// as many work-groups as the SIMD suite's scan dispatches.
void BM_DispatchWorkGroups(benchmark::State &State) {
  DispatchFixture F;
  const auto Groups = uint32_t(State.range(0));
  hsa_signal_t Done;
  check(hsa_signal_create(1, 0, nullptr, &Done), "signal");
  for (auto _ : State) {
    hsa_signal_store_relaxed(Done, 1);
    F.dispatch(Groups, 1, Done);
    while (hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                     UINT64_MAX, HSA_WAIT_STATE_ACTIVE) != 0)
      ;
  }
  hsa_signal_destroy(Done);
}
BENCHMARK(BM_DispatchWorkGroups)
    ->Arg(16)
    ->Arg(4096)
    ->Arg(16384)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// CPU time of the whole process while it idles with created queues (the
// packet processors must sleep). Reported as a counter, percent of a core.
void BM_IdleQueuesCpu(benchmark::State &State) {
  DispatchFixture F;
  hsa_queue_t *More[3];
  for (hsa_queue_t *&Q : More)
    check(hsa_queue_create(F.Agent, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr,
                           UINT32_MAX, UINT32_MAX, &Q),
          "queue");
  std::this_thread::sleep_for(std::chrono::milliseconds(100)); // Settle.
  double CpuPercent = 0;
  for (auto _ : State) {
    rusage Before, After;
    getrusage(RUSAGE_SELF, &Before);
    auto Start = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::seconds(2));
    double Wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
    getrusage(RUSAGE_SELF, &After);
    auto Sec = [](const timeval &T) { return T.tv_sec + T.tv_usec * 1e-6; };
    double Cpu = Sec(After.ru_utime) - Sec(Before.ru_utime) +
                 Sec(After.ru_stime) - Sec(Before.ru_stime);
    CpuPercent = 100.0 * Cpu / Wall;
  }
  State.counters["cpu_percent"] = CpuPercent;
  for (hsa_queue_t *Q : More)
    hsa_queue_destroy(Q);
}
BENCHMARK(BM_IdleQueuesCpu)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
