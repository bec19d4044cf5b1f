//===- tests/runtime/TestUtil.h - Shared helpers of the runtime tests -----===//
//
// Everything here goes through the public C API only: the fixture brings the
// runtime up and down, finds the CPU agent, its regions and the openhsa
// extension table; the packet helpers follow the AQL producer protocol of
// HSA Runtime 2.8 (reserve with add_write_index, wait for a free slot, write
// the body, publish the header with a release store, ring the doorbell).
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_TESTS_RUNTIME_TESTUTIL_H
#define OPENHSA_TESTS_RUNTIME_TESTUTIL_H

#include "hsa/hsa.h"
#include "hsa/hsa_ext_openhsa.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace openhsa::test {

/// Whether this build runs under AddressSanitizer or ThreadSanitizer, and
/// under ThreadSanitizer: what a test measures about speed holds in the
/// plain build only (TSan slows atomics and stores 5-20 times).
#if defined(__SANITIZE_THREAD__)
constexpr bool ThreadSanitized = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool ThreadSanitized = true;
#else
constexpr bool ThreadSanitized = false;
#endif
#else
constexpr bool ThreadSanitized = false;
#endif
#if defined(__SANITIZE_ADDRESS__)
constexpr bool Sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool Sanitized = true;
#else
constexpr bool Sanitized = ThreadSanitized;
#endif
#else
constexpr bool Sanitized = ThreadSanitized;
#endif

/// Hang guard for waits that must finish: far above anything a working
/// runtime needs, so that a lost wake-up fails the test instead of hanging
/// it. Not a performance bound.
inline constexpr std::chrono::seconds HangGuard{60};

/// The first CPU agent whose feature includes Wanted.
template <hsa_agent_feature_t Wanted>
hsa_status_t findCpuAgentWith(hsa_agent_t Agent, void *Data) {
  hsa_device_type_t Type;
  uint32_t Feature = 0;
  if (hsa_agent_get_info(Agent, HSA_AGENT_INFO_DEVICE, &Type) !=
          HSA_STATUS_SUCCESS ||
      hsa_agent_get_info(Agent, HSA_AGENT_INFO_FEATURE, &Feature) !=
          HSA_STATUS_SUCCESS)
    return HSA_STATUS_ERROR;
  if (Type != HSA_DEVICE_TYPE_CPU || !(Feature & Wanted))
    return HSA_STATUS_SUCCESS;
  *static_cast<hsa_agent_t *>(Data) = Agent;
  return HSA_STATUS_INFO_BREAK;
}

/// The CPU kernel agent.
inline hsa_status_t findCpuAgent(hsa_agent_t Agent, void *Data) {
  return findCpuAgentWith<HSA_AGENT_FEATURE_KERNEL_DISPATCH>(Agent, Data);
}

/// The CPU agent serving agent dispatch packets (one per node, beside the
/// kernel agent).
inline hsa_status_t findAgentDispatchAgent(hsa_agent_t Agent, void *Data) {
  return findCpuAgentWith<HSA_AGENT_FEATURE_AGENT_DISPATCH>(Agent, Data);
}

/// The regions of a CPU agent, one of each kind (HSA Runtime 2.7.2).
struct AgentRegions {
  hsa_region_t Fine{0};    // Global, fine-grained, not kernarg.
  hsa_region_t Coarse{0};  // Global, coarse-grained.
  hsa_region_t Kernarg{0}; // Global, kernarg.
  hsa_region_t Group{0};   // Group segment.
};

inline hsa_status_t classifyRegion(hsa_region_t Region, void *Data) {
  auto &R = *static_cast<AgentRegions *>(Data);
  hsa_region_segment_t Segment;
  uint32_t Flags = 0;
  if (hsa_region_get_info(Region, HSA_REGION_INFO_SEGMENT, &Segment) !=
      HSA_STATUS_SUCCESS)
    return HSA_STATUS_ERROR;
  if (Segment == HSA_REGION_SEGMENT_GROUP) {
    R.Group = Region;
    return HSA_STATUS_SUCCESS;
  }
  if (Segment != HSA_REGION_SEGMENT_GLOBAL ||
      hsa_region_get_info(Region, HSA_REGION_INFO_GLOBAL_FLAGS, &Flags) !=
          HSA_STATUS_SUCCESS)
    return HSA_STATUS_SUCCESS;
  if (Flags & HSA_REGION_GLOBAL_FLAG_KERNARG)
    R.Kernarg = Region;
  else if (Flags & HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED)
    R.Coarse = Region;
  else if (Flags & HSA_REGION_GLOBAL_FLAG_FINE_GRAINED)
    R.Fine = Region;
  return HSA_STATUS_SUCCESS;
}

/// Records the asynchronous errors a queue reports (hsa_queue_create's
/// callback) and raises a signal on each, so a test can wait for one.
struct ErrorLog {
  std::atomic<int> Count{0};
  std::atomic<int> LastStatus{HSA_STATUS_SUCCESS};
  std::atomic<hsa_queue_t *> LastSource{nullptr};
  hsa_signal_t Raised{0}; // Incremented per error when set.
};

inline void recordQueueError(hsa_status_t Status, hsa_queue_t *Source,
                             void *Data) {
  auto *Log = static_cast<ErrorLog *>(Data);
  Log->LastStatus.store(Status);
  Log->LastSource.store(Source);
  Log->Count.fetch_add(1);
  if (Log->Raised.handle)
    hsa_signal_add_screlease(Log->Raised, 1);
}

/// Packet header word (HSA Runtime 2.8.1).
inline uint16_t
packetHeader(hsa_packet_type_t Type, bool Barrier = false,
             hsa_fence_scope_t Acquire = HSA_FENCE_SCOPE_SYSTEM,
             hsa_fence_scope_t Release = HSA_FENCE_SCOPE_SYSTEM) {
  return uint16_t((Type << HSA_PACKET_HEADER_TYPE) |
                  ((Barrier ? 1 : 0) << HSA_PACKET_HEADER_BARRIER) |
                  (Acquire << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                  (Release << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
}

/// Writes a 64-byte packet into the (reserved, free) slot Index of Queue:
/// the body first, then the header - Packet's first 16 bits replaced by
/// Header - together with the next 16 bits in one release store.
inline void writePacket(hsa_queue_t *Queue, uint64_t Index, const void *Packet,
                        uint16_t Header) {
  char *Slot = static_cast<char *>(Queue->base_address) +
               (Index & (Queue->size - 1)) * 64;
  std::memcpy(Slot + 4, static_cast<const char *>(Packet) + 4, 60);
  uint32_t Word;
  std::memcpy(&Word, Packet, 4);
  Word = (Word & 0xffff0000u) | Header;
  std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t *>(Slot))
      .store(Word, std::memory_order_release);
}

/// Submits one packet following the AQL protocol: reserves a slot with
/// add_write_index, waits while it is still in use (write - read >= size),
/// writes the packet (writePacket) and rings the doorbell. Returns the
/// packet's index.
inline uint64_t submitPacket(hsa_queue_t *Queue, const void *Packet,
                             uint16_t Header, bool Ring = true) {
  const uint64_t Index = hsa_queue_add_write_index_scacq_screl(Queue, 1);
  while (Index - hsa_queue_load_read_index_scacquire(Queue) >= Queue->size)
    std::this_thread::yield();
  // Read before the packet is published: from then on the packet processor
  // may run it, and a callback may destroy the queue
  // (DispatchFault.CallbackMayDestroyTheQueue; the doorbell, a signal, may
  // still be stored to: destroyed signals' memory is never given back).
  const hsa_signal_t Doorbell = Queue->doorbell_signal;
  writePacket(Queue, Index, Packet, Header);
  if (Ring)
    hsa_signal_store_screlease(Doorbell, hsa_signal_value_t(Index));
  return Index;
}

/// A kernel dispatch packet (header left 0; submitPacket sets it).
inline hsa_kernel_dispatch_packet_t
dispatchPacket(uint64_t KernelObject, const void *Kernarg, unsigned Dims,
               std::array<uint32_t, 3> Grid, std::array<uint16_t, 3> Wg,
               hsa_signal_t Completion, uint32_t GroupBytes = 0,
               uint32_t PrivateBytes = 0) {
  hsa_kernel_dispatch_packet_t P;
  std::memset(&P, 0, sizeof(P));
  P.setup = uint16_t(Dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
  P.workgroup_size_x = Wg[0];
  P.workgroup_size_y = Wg[1];
  P.workgroup_size_z = Wg[2];
  P.grid_size_x = Grid[0];
  P.grid_size_y = Grid[1];
  P.grid_size_z = Grid[2];
  P.group_segment_size = GroupBytes;
  P.private_segment_size = PrivateBytes;
  P.kernel_object = KernelObject;
  P.kernarg_address = const_cast<void *>(Kernarg);
  P.completion_signal = Completion;
  return P;
}

/// One work-item dispatch of a kernel.
inline hsa_kernel_dispatch_packet_t singleItemPacket(uint64_t KernelObject,
                                                     const void *Kernarg,
                                                     hsa_signal_t Completion) {
  return dispatchPacket(KernelObject, Kernarg, 1, {1, 1, 1}, {1, 1, 1},
                        Completion);
}

inline hsa_barrier_and_packet_t
barrierPacket(std::initializer_list<hsa_signal_t> Deps,
              hsa_signal_t Completion) {
  hsa_barrier_and_packet_t P;
  std::memset(&P, 0, sizeof(P));
  size_t I = 0;
  for (hsa_signal_t D : Deps)
    P.dep_signal[I++] = D;
  P.completion_signal = Completion;
  return P;
}

/// The work-items of one work-group: first absolute id and extent per
/// dimension (partial at the grid's far edges).
struct GroupExtent {
  uint32_t Base[3];
  uint32_t Size[3];
  uint32_t items() const { return Size[0] * Size[1] * Size[2]; }
};

inline GroupExtent groupExtent(const hsa_ext_openhsa_dispatch_context_t *C,
                               uint32_t Gx, uint32_t Gy, uint32_t Gz) {
  const uint32_t G[3] = {Gx, Gy, Gz};
  GroupExtent E;
  for (int D = 0; D < 3; ++D) {
    E.Base[D] = G[D] * C->workgroup_size[D];
    E.Size[D] =
        std::min<uint32_t>(C->workgroup_size[D], C->grid_size[D] - E.Base[D]);
  }
  return E;
}

/// Waits until Signal satisfies the condition; gives up after HangGuard.
/// Returns the last value observed.
inline hsa_signal_value_t
waitUntil(hsa_signal_t Signal, hsa_signal_condition_t Condition,
          hsa_signal_value_t Compare,
          hsa_wait_state_t Hint = HSA_WAIT_STATE_BLOCKED) {
  const auto Deadline = std::chrono::steady_clock::now() + HangGuard;
  uint64_t Frequency = 0;
  hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &Frequency);
  for (;;) {
    hsa_signal_value_t V = hsa_signal_wait_scacquire(
        Signal, Condition, Compare, Frequency /* one second */, Hint);
    bool Holds = false;
    switch (Condition) {
    case HSA_SIGNAL_CONDITION_EQ:
      Holds = V == Compare;
      break;
    case HSA_SIGNAL_CONDITION_NE:
      Holds = V != Compare;
      break;
    case HSA_SIGNAL_CONDITION_LT:
      Holds = V < Compare;
      break;
    case HSA_SIGNAL_CONDITION_GTE:
      Holds = V >= Compare;
      break;
    }
    if (Holds || std::chrono::steady_clock::now() > Deadline)
      return V;
  }
}

/// Timestamp ticks for a duration (HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY).
inline uint64_t ticks(std::chrono::nanoseconds D) {
  uint64_t Frequency = 0;
  hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &Frequency);
  return uint64_t(double(D.count()) * double(Frequency) / 1e9);
}

/// Initializes the runtime per test and finds what most tests need.
class RuntimeTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    Initialized = true;
    ASSERT_EQ(hsa_iterate_agents(findCpuAgent, &Cpu), HSA_STATUS_INFO_BREAK)
        << "no CPU agent";
    ASSERT_EQ(hsa_iterate_agents(findAgentDispatchAgent, &Host),
              HSA_STATUS_INFO_BREAK)
        << "no agent dispatch agent";
    ASSERT_EQ(hsa_agent_iterate_regions(Cpu, classifyRegion, &Regions),
              HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_system_get_major_extension_table(HSA_EXTENSION_OPENHSA, 1,
                                                   sizeof(Ext), &Ext),
              HSA_STATUS_SUCCESS);
  }

  void TearDown() override {
    if (Initialized) {
      EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
    }
  }

  hsa_signal_t makeSignal(hsa_signal_value_t Initial) {
    hsa_signal_t S{0};
    EXPECT_EQ(hsa_signal_create(Initial, 0, nullptr, &S), HSA_STATUS_SUCCESS);
    return S;
  }

  uint64_t makeKernel(hsa_ext_openhsa_workgroup_fn_t Fn,
                      uint32_t KernargBytes = 0, void *UserData = nullptr,
                      uint32_t GroupBytes = 0, uint32_t PrivateBytes = 0) {
    hsa_ext_openhsa_native_kernel_t K = {Fn,           UserData,     GroupBytes,
                                         PrivateBytes, KernargBytes, 16};
    uint64_t Object = 0;
    EXPECT_EQ(Ext.hsa_ext_openhsa_native_kernel_create(Cpu, &K, &Object),
              HSA_STATUS_SUCCESS);
    return Object;
  }

  /// A queue of the kernel agent (or of Agent).
  hsa_queue_t *makeQueue(uint32_t Size = 64, ErrorLog *Log = nullptr,
                         hsa_queue_type32_t Type = HSA_QUEUE_TYPE_MULTI,
                         hsa_agent_t Agent = {0}) {
    hsa_queue_t *Q = nullptr;
    EXPECT_EQ(hsa_queue_create(Agent.handle ? Agent : Cpu, Size, Type,
                               Log ? recordQueueError : nullptr, Log,
                               UINT32_MAX, UINT32_MAX, &Q),
              HSA_STATUS_SUCCESS);
    return Q;
  }

  /// Kernel argument memory (the kernarg region), zeroed.
  template <typename T> T *allocKernarg(size_t Count = 1) {
    void *P = nullptr;
    EXPECT_EQ(hsa_memory_allocate(Regions.Kernarg, sizeof(T) * Count, &P),
              HSA_STATUS_SUCCESS);
    if (P)
      std::memset(P, 0, sizeof(T) * Count);
    return static_cast<T *>(P);
  }

  /// A log for a queue's error callback, alive until the fixture goes away
  /// (after TearDown's hsa_shut_down destroyed any queue left), with a
  /// signal it raises on each error.
  ErrorLog &errorLog() {
    Logs.push_back(std::make_unique<ErrorLog>());
    Logs.back()->Raised = makeSignal(0);
    return *Logs.back();
  }

  bool Initialized = false;
  std::vector<std::unique_ptr<ErrorLog>> Logs;
  hsa_agent_t Cpu{0};  // The CPU kernel agent.
  hsa_agent_t Host{0}; // The agent dispatch agent of the same node.
  AgentRegions Regions;
  hsa_ext_openhsa_1_pfn_t Ext{};
};

} // namespace openhsa::test

#endif
