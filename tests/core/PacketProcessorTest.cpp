//===- tests/core/PacketProcessorTest.cpp - Doorbells nobody rings --------===//
//
// A GPU kernel that enqueues on a CPU agent's queue (PRM 11.3) stores the
// doorbell with a device atomic, which wakes no host thread. Once code
// that can do so is loaded (Signal::expectSilentModifications), the CPU
// packet processor asleep on its doorbells re-checks its queues on its own.
//
//===----------------------------------------------------------------------===//
#include "cpu_agent/PacketProcessor.h"
#include "runtime/core/Agent.h"
#include "runtime/core/Clock.h"
#include "runtime/core/Signal.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace {

using namespace openhsa;

/// The packet processor's owner; no queue is created through it.
class NoAgent final : public Agent {
public:
  hsa_status_t getInfo(uint32_t, void *) const override {
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  hsa_device_type_t deviceType() const override { return HSA_DEVICE_TYPE_CPU; }
  uint32_t queueMinSize() const override { return 16; }
  uint32_t queueMaxSize() const override { return 16; }
  uint32_t queueMaxCount() const override { return 1; }
  hsa_status_t createQueue(const QueueRequest &, uint64_t, Queue *&) override {
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  void destroyQueue(Queue *, uint64_t) override {}
};

TEST(PacketProcessor, SeesADoorbellStoredWithoutNotification) {
  Signal::expectSilentModifications();
  NoAgent Owner;
  AgentDispatchTable Handlers;
  cpu::PacketProcessor Processor(
      Owner, 1, [] {}, {256, 256, 65536, 65536}, Handlers);
  Queue::Config C;
  C.Owner = &Owner;
  C.Size = 16;
  auto Q = Queue::create(C, 1);
  ASSERT_NE(Q, nullptr);
  Processor.attach(*Q);
  // Long enough for the processor to stop spinning and fall asleep.
  std::this_thread::sleep_for(std::chrono::milliseconds(30));

  // A barrier-AND without dependencies or completion signal (a completion
  // signal would have to be one the runtime made): its consumption, the
  // read index moving on, is what the test sees. A new queue's slots are
  // zero past their INVALID headers, which is such a packet's body.
  const uint16_t Header =
      (HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  __atomic_store_n(static_cast<uint16_t *>(Q->slot(0)), Header,
                   __ATOMIC_RELEASE);
  Q->storeWrite(1, std::memory_order_release);
  // As a GPU kernel's store: the value changes, nobody is told.
  Q->doorbell().silentStore(0, std::memory_order_release);

  const uint64_t Start = monotonicNanoseconds();
  while (Q->loadRead(std::memory_order_acquire) == 0 &&
         monotonicNanoseconds() - Start < 2'000'000'000)
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  EXPECT_EQ(Q->loadRead(std::memory_order_acquire), 1u)
      << "the processor never looked at the queue again";
  EXPECT_TRUE(Q->isActive());
  Processor.detach(*Q, UINT64_MAX);
}

} // namespace
