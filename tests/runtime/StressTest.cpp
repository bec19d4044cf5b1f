//===- tests/runtime/StressTest.cpp - Many producers, chained queues ------===//
//
// HSA Runtime 2.8 (queues, AQL) under load: eight producer threads share one
// multi-producer queue while a ninth chains that queue to a second one with
// barrier-AND packets. Every packet must complete exactly once, nothing may
// be lost and nothing may hang.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include <cstdio>
#include <string>

namespace openhsa::test {
namespace {

using Stress = RuntimeTest;

struct alignas(16) CountArgs {
  uint32_t *Counter;
};

/// Increments the counter of its dispatch.
void countKernel(const void *Kernarg,
                 const hsa_ext_openhsa_dispatch_context_t *, uint32_t, uint32_t,
                 uint32_t) {
  std::atomic_ref<uint32_t>(*static_cast<const CountArgs *>(Kernarg)->Counter)
      .fetch_add(1, std::memory_order_relaxed);
}

struct alignas(16) ChainArgs {
  uint64_t *Value;
  uint64_t Expected;
  uint32_t *Mismatches;
};

/// Runs on the first queue: publishes the link's value.
void markKernel(const void *Kernarg, const hsa_ext_openhsa_dispatch_context_t *,
                uint32_t, uint32_t, uint32_t) {
  const auto *A = static_cast<const ChainArgs *>(Kernarg);
  *A->Value = A->Expected;
}

/// Runs on the second queue behind a barrier-AND on the first queue's
/// packet: must see its value.
void checkKernel(const void *Kernarg,
                 const hsa_ext_openhsa_dispatch_context_t *, uint32_t, uint32_t,
                 uint32_t) {
  const auto *A = static_cast<const ChainArgs *>(Kernarg);
  if (*A->Value != A->Expected)
    ++*A->Mismatches;
}

// HSA Runtime 2.8.1-2.8.3: 8 producers x 100,000 single-work-item dispatches
// on one multi-producer queue of 1024 slots, each decrementing one shared
// completion signal and incrementing its own counter; meanwhile 2,000
// dispatch/barrier-AND/dispatch links chain that queue to a second one.
// Producers follow the AQL protocol (submitPacket): reserve with
// add_write_index, wait while write - read >= size, write the body, publish
// the header with a release store, ring the doorbell.
TEST_F(Stress, EightProducersOneQueueWithChainedBarriers) {
  constexpr uint32_t Producers = 8, PerProducer = 100'000;
  constexpr uint64_t Total = uint64_t(Producers) * PerProducer;
  constexpr uint32_t Links = 2'000;

  ErrorLog &Log = errorLog();
  hsa_queue_t *Shared = makeQueue(1024, &Log, HSA_QUEUE_TYPE_MULTI);
  hsa_queue_t *Second = makeQueue(64, &Log, HSA_QUEUE_TYPE_SINGLE);
  ASSERT_NE(Shared, nullptr);
  ASSERT_NE(Second, nullptr);

  std::vector<uint32_t> Counters(Total, 0);
  CountArgs *Args = allocKernarg<CountArgs>(Total);
  ASSERT_NE(Args, nullptr);
  for (uint64_t I = 0; I < Total; ++I)
    Args[I].Counter = &Counters[I];
  const uint64_t Count = makeKernel(countKernel, sizeof(CountArgs));
  hsa_signal_t Done = makeSignal(hsa_signal_value_t(Total));

  uint64_t Value = 0;
  uint32_t Mismatches = 0;
  ChainArgs *Chain = allocKernarg<ChainArgs>(Links);
  ASSERT_NE(Chain, nullptr);
  for (uint32_t L = 0; L < Links; ++L)
    Chain[L] = {&Value, L + 1, &Mismatches};
  const uint64_t Mark = makeKernel(markKernel, sizeof(ChainArgs));
  const uint64_t Check = makeKernel(checkKernel, sizeof(ChainArgs));
  hsa_signal_t LinkA = makeSignal(0), LinkB = makeSignal(0);
  std::atomic<uint32_t> LinksDone{0};

  const auto Start = std::chrono::steady_clock::now();
  std::vector<std::thread> Threads;
  for (uint32_t T = 0; T < Producers; ++T)
    Threads.emplace_back([&, T] {
      for (uint32_t I = 0; I < PerProducer; ++I) {
        const uint64_t Id = uint64_t(T) * PerProducer + I;
        auto P = singleItemPacket(Count, &Args[Id], Done);
        submitPacket(Shared, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
      }
    });
  Threads.emplace_back([&] {
    for (uint32_t L = 0; L < Links; ++L) {
      hsa_signal_store_relaxed(LinkA, 1);
      hsa_signal_store_relaxed(LinkB, 1);
      auto M = singleItemPacket(Mark, &Chain[L], LinkA);
      submitPacket(Shared, &M, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
      auto B = barrierPacket({LinkA}, hsa_signal_t{0});
      submitPacket(Second, &B, packetHeader(HSA_PACKET_TYPE_BARRIER_AND));
      auto C = singleItemPacket(Check, &Chain[L], LinkB);
      submitPacket(Second, &C, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
      if (waitUntil(LinkB, HSA_SIGNAL_CONDITION_EQ, 0) != 0)
        return; // Lost: reported below.
      LinksDone.fetch_add(1);
    }
  });
  for (auto &T : Threads)
    T.join();
  // Everything is submitted; now every dispatch must complete.
  hsa_signal_value_t Left = waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0);
  const double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  RecordProperty("seconds", std::to_string(Seconds));
  std::printf("[ stress   ] %llu dispatches + %u chained links in %.2f s\n",
              static_cast<unsigned long long>(Total), Links, Seconds);

  EXPECT_EQ(Left, 0) << "dispatches never completed";
  EXPECT_EQ(Log.Count.load(), 0)
      << "queue error 0x" << std::hex << Log.LastStatus.load();
  uint64_t Wrong = 0;
  for (uint64_t I = 0; I < Total; ++I)
    if (Counters[I] != 1 && Wrong++ < 5)
      ADD_FAILURE() << "dispatch " << I << " ran " << Counters[I] << " times";
  EXPECT_EQ(Wrong, 0u);
  EXPECT_EQ(LinksDone.load(), Links);
  EXPECT_EQ(Mismatches, 0u) << "a barrier-AND let a packet run too early";
  EXPECT_EQ(hsa_queue_load_write_index_relaxed(Shared), Total + Links);
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(Shared), Total + Links);
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(Second), 2u * Links);
  // Nothing completes twice: the shared signal stays at 0.
  EXPECT_EQ(hsa_signal_load_scacquire(Done), 0);
}

// Once a packet's completion is signalled, the read index has passed it:
// the packet processor hands the slot back before a dispatch can complete
// (it ran one work-item dispatches itself, then moved the read index, so
// a waiter spinning on the signal could see the index one behind).
// Kernel dispatches of one work-item and of none, and barrier packets, each
// waited for by spinning and checked at once, many times.
TEST_F(Stress, ReadIndexPassesAPacketOnceItsCompletionIsSignalled) {
  ErrorLog &Log = errorLog();
  hsa_queue_t *Q = makeQueue(64, &Log, HSA_QUEUE_TYPE_SINGLE);
  ASSERT_NE(Q, nullptr);
  uint32_t Counter = 0;
  CountArgs *Args = allocKernarg<CountArgs>(1);
  ASSERT_NE(Args, nullptr);
  Args->Counter = &Counter;
  const uint64_t Count = makeKernel(countKernel, sizeof(CountArgs));
  hsa_signal_t Done = makeSignal(1);
  constexpr uint32_t Rounds = 3000;
  uint32_t Behind[3] = {0, 0, 0};
  for (uint32_t R = 0; R < Rounds; ++R)
    for (unsigned Kind = 0; Kind < 3; ++Kind) {
      hsa_signal_store_relaxed(Done, 1);
      uint64_t Id;
      if (Kind == 2) {
        auto P = barrierPacket({}, Done);
        Id = submitPacket(Q, &P, packetHeader(HSA_PACKET_TYPE_BARRIER_AND));
      } else {
        auto P = singleItemPacket(Count, Args, Done);
        if (Kind == 1)
          P.grid_size_x = 0; // No work-item: completes at once.
        Id = submitPacket(Q, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
      }
      ASSERT_EQ(
          waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0, HSA_WAIT_STATE_ACTIVE),
          0);
      if (hsa_queue_load_read_index_scacquire(Q) <= Id)
        ++Behind[Kind];
    }
  EXPECT_EQ(Behind[0], 0u) << "one work-item dispatches";
  EXPECT_EQ(Behind[1], 0u) << "empty dispatches";
  EXPECT_EQ(Behind[2], 0u) << "barrier packets";
  EXPECT_EQ(Counter, Rounds);
  EXPECT_EQ(Log.Count.load(), 0u);
}

} // namespace
} // namespace openhsa::test
