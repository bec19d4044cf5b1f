//===- tests/runtime/QueueTest.cpp - User-mode queues ---------------------===//
//
// HSA Runtime 2.8.1 (queues): creation, the hsa_queue_t fields, the index
// functions, destruction and inactivation, and soft queues processed by
// the application itself.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <string>

namespace openhsa::test {
namespace {

using Queue = RuntimeTest;
using SoftQueue = RuntimeTest;
using namespace std::chrono_literals;

uint32_t agentU32(hsa_agent_t A, hsa_agent_info_t Attribute) {
  uint32_t V = 0;
  EXPECT_EQ(hsa_agent_get_info(A, Attribute, &V), HSA_STATUS_SUCCESS);
  return V;
}

// HSA Runtime 2.8.1: hsa_queue_create and the fields of the hsa_queue_t it
// returns.
TEST_F(Queue, CreateAndFields) {
  const uint32_t MinSize = agentU32(Cpu, HSA_AGENT_INFO_QUEUE_MIN_SIZE);
  const uint32_t MaxSize = agentU32(Cpu, HSA_AGENT_INFO_QUEUE_MAX_SIZE);
  std::set<uint64_t> Ids;
  std::vector<hsa_queue_t *> Queues;
  for (uint32_t Size : {MinSize, 64u, 1024u, MinSize * 2})
    for (hsa_queue_type32_t Type :
         {uint32_t(HSA_QUEUE_TYPE_MULTI), uint32_t(HSA_QUEUE_TYPE_SINGLE)}) {
      SCOPED_TRACE("size " + std::to_string(Size) + " type " +
                   std::to_string(Type));
      hsa_queue_t *Q = nullptr;
      ASSERT_EQ(hsa_queue_create(Cpu, Size, Type, nullptr, nullptr, UINT32_MAX,
                                 UINT32_MAX, &Q),
                HSA_STATUS_SUCCESS);
      ASSERT_NE(Q, nullptr);
      EXPECT_EQ(Q->type, Type);
      // The kernel agent's queues: kernel dispatch (and barrier) packets.
      EXPECT_EQ(Q->features, uint32_t(HSA_QUEUE_FEATURE_KERNEL_DISPATCH));
      ASSERT_NE(Q->base_address, nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(Q->base_address) % 64, 0u)
          << "the ring is aligned to the packet size";
      EXPECT_EQ(Q->size, Size);
      EXPECT_EQ(Q->reserved1, 0u);
      EXPECT_TRUE(Ids.insert(Q->id).second) << "queue ids are unique";
      // The doorbell is a live signal.
      EXPECT_NE(Q->doorbell_signal.handle, 0u);
      hsa_signal_store_relaxed(Q->doorbell_signal, 0);
      EXPECT_EQ(hsa_signal_load_relaxed(Q->doorbell_signal), 0);
      // Indices start at 0; every slot starts INVALID.
      EXPECT_EQ(hsa_queue_load_read_index_relaxed(Q), 0u);
      EXPECT_EQ(hsa_queue_load_write_index_relaxed(Q), 0u);
      for (uint32_t I = 0; I < Q->size; ++I) {
        const uint16_t Header =
            static_cast<const uint16_t *>(Q->base_address)[I * 32];
        ASSERT_EQ(Header & 0xff, HSA_PACKET_TYPE_INVALID) << "slot " << I;
      }
      Queues.push_back(Q);
    }
  // Hints for the segment sizes are only hints.
  hsa_queue_t *Q = nullptr;
  ASSERT_EQ(hsa_queue_create(Cpu, MaxSize, HSA_QUEUE_TYPE_MULTI, nullptr,
                             nullptr, 0, 0, &Q),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(Q->size, MaxSize);
  EXPECT_TRUE(Ids.insert(Q->id).second);
  Queues.push_back(Q);
  for (hsa_queue_t *X : Queues)
    EXPECT_EQ(hsa_queue_destroy(X), HSA_STATUS_SUCCESS);
}

// HSA Runtime 2.8.1: a size below HSA_AGENT_INFO_QUEUE_MIN_SIZE is valid;
// the queue gets the minimum size.
TEST_F(Queue, SizeBelowMinimumIsRoundedUp) {
  const uint32_t MinSize = agentU32(Cpu, HSA_AGENT_INFO_QUEUE_MIN_SIZE);
  for (uint32_t Size = 1; Size < MinSize; Size *= 2) {
    hsa_queue_t *Q = nullptr;
    ASSERT_EQ(hsa_queue_create(Cpu, Size, HSA_QUEUE_TYPE_MULTI, nullptr,
                               nullptr, UINT32_MAX, UINT32_MAX, &Q),
              HSA_STATUS_SUCCESS)
        << Size;
    EXPECT_EQ(Q->size, MinSize) << Size;
    EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
  }
}

// HSA Runtime 2.8.1: hsa_queue_create error paths.
TEST_F(Queue, CreateErrors) {
  const uint32_t MaxSize = agentU32(Cpu, HSA_AGENT_INFO_QUEUE_MAX_SIZE);
  hsa_queue_t *Q = reinterpret_cast<hsa_queue_t *>(0x1);
  auto Create = [&](hsa_agent_t A, uint32_t Size, hsa_queue_type32_t Type,
                    hsa_queue_t **Out) {
    return hsa_queue_create(A, Size, Type, nullptr, nullptr, UINT32_MAX,
                            UINT32_MAX, Out);
  };
  for (uint32_t Size : {0u, 3u, 48u, 100u, 1000u, MaxSize - 1, MaxSize + 1})
    EXPECT_EQ(Create(Cpu, Size, HSA_QUEUE_TYPE_MULTI, &Q),
              HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << "size " << Size;
  EXPECT_EQ(Create(Cpu, MaxSize * 2, HSA_QUEUE_TYPE_MULTI, &Q),
            HSA_STATUS_ERROR_INVALID_ARGUMENT)
      << "above the maximum";
  for (uint32_t Type : {3u, 7u, 0x100u})
    EXPECT_EQ(Create(Cpu, 64, Type, &Q), HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << "type " << Type;
  EXPECT_EQ(Create(Cpu, 64, HSA_QUEUE_TYPE_COOPERATIVE, &Q),
            HSA_STATUS_ERROR_INVALID_QUEUE_CREATION)
      << "the CPU agent cannot promise co-resident work-groups";
  EXPECT_EQ(Create(Cpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(Create(hsa_agent_t{0x1234}, 64, HSA_QUEUE_TYPE_MULTI, &Q),
            HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(Create(hsa_agent_t{0}, 64, HSA_QUEUE_TYPE_MULTI, &Q),
            HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(Q, reinterpret_cast<hsa_queue_t *>(0x1))
      << "a failed call wrote the queue";
}

// HSA Runtime 2.8.1: HSA_AGENT_INFO_QUEUES_MAX queues can be active at
// once; one more fails with OUT_OF_RESOURCES, and destroying one makes
// room again.
TEST_F(Queue, QueuesMax) {
  const uint32_t Max = agentU32(Cpu, HSA_AGENT_INFO_QUEUES_MAX);
  ASSERT_LE(Max, 4096u) << "too many to test";
  std::vector<hsa_queue_t *> Queues;
  for (uint32_t I = 0; I < Max; ++I) {
    hsa_queue_t *Q = nullptr;
    ASSERT_EQ(hsa_queue_create(Cpu, 16, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr,
                               UINT32_MAX, UINT32_MAX, &Q),
              HSA_STATUS_SUCCESS)
        << I;
    Queues.push_back(Q);
  }
  hsa_queue_t *Extra = nullptr;
  EXPECT_EQ(hsa_queue_create(Cpu, 16, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr,
                             UINT32_MAX, UINT32_MAX, &Extra),
            HSA_STATUS_ERROR_OUT_OF_RESOURCES);
  ASSERT_EQ(hsa_queue_destroy(Queues.back()), HSA_STATUS_SUCCESS);
  Queues.pop_back();
  ASSERT_EQ(hsa_queue_create(Cpu, 16, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr,
                             UINT32_MAX, UINT32_MAX, &Extra),
            HSA_STATUS_SUCCESS);
  Queues.push_back(Extra);
  for (hsa_queue_t *Q : Queues)
    EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
}

// HSA Runtime 2.8.1: creating HSA_AGENT_INFO_QUEUES_MAX queues of
// HSA_AGENT_INFO_QUEUE_MAX_SIZE (a conformance test does) is quick and
// commits at most an eighth of the machine's memory: every queue is either
// created or refused with OUT_OF_RESOURCES, after which none is created.
// With 256 rings of 64 MiB (16 GiB) the machine swapped for minutes.
TEST_F(Queue, MaxSizeQueuesUpToTheLimit) {
  const uint32_t Max = agentU32(Cpu, HSA_AGENT_INFO_QUEUES_MAX);
  const uint32_t MaxSize = agentU32(Cpu, HSA_AGENT_INFO_QUEUE_MAX_SIZE);
  const uint64_t Physical =
      uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
  const auto Start = std::chrono::steady_clock::now();
  std::vector<hsa_queue_t *> Queues;
  bool Refused = false;
  for (uint32_t I = 0; I < Max; ++I) {
    hsa_queue_t *Q = nullptr;
    const hsa_status_t S =
        hsa_queue_create(Cpu, MaxSize, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr,
                         UINT32_MAX, UINT32_MAX, &Q);
    if (S == HSA_STATUS_SUCCESS) {
      ASSERT_FALSE(Refused) << "queue " << I << " created after a refusal";
      ASSERT_EQ(Q->size, MaxSize);
      // The ring is usable: first and last slots INVALID.
      const auto *Headers = static_cast<const uint16_t *>(Q->base_address);
      EXPECT_EQ(Headers[0] & 0xff, HSA_PACKET_TYPE_INVALID);
      EXPECT_EQ(Headers[size_t(MaxSize - 1) * 32] & 0xff,
                HSA_PACKET_TYPE_INVALID);
      Queues.push_back(Q);
    } else {
      ASSERT_EQ(S, HSA_STATUS_ERROR_OUT_OF_RESOURCES) << "queue " << I;
      Refused = true;
    }
  }
  const auto Created = std::chrono::steady_clock::now();
  EXPECT_GT(Queues.size(), 0u);
  EXPECT_LE(uint64_t(Queues.size()) * MaxSize * 64, Physical / 8)
      << Queues.size() << " rings of " << MaxSize << " packets";
  for (hsa_queue_t *Q : Queues)
    EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
  // Generous: 1 GiB of rings is written in well under a second on the 2-core
  // development VM. Under TSan every store of it is instrumented: 19 s
  // alone, 26 s beside other tests; the plain build checks the speed.
  if (!ThreadSanitized) {
    EXPECT_LT(Created - Start, 20s);
    EXPECT_LT(std::chrono::steady_clock::now() - Created, 10s);
  }
  // Destroyed queues give their memory back to the budget.
  hsa_queue_t *Q = nullptr;
  ASSERT_EQ(hsa_queue_create(Cpu, MaxSize, HSA_QUEUE_TYPE_MULTI, nullptr,
                             nullptr, UINT32_MAX, UINT32_MAX, &Q),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
}

// HSA Runtime 2.8.1: a queue whose ring cannot be allocated fails with
// HSA_STATUS_ERROR_OUT_OF_RESOURCES (the process carries on). The address
// space is capped just above what the process uses, for the one call.
TEST_F(Queue, RingAllocationFailureIsOutOfResources) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator aborts under RLIMIT_AS";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "AddressSanitizer's allocator aborts under RLIMIT_AS";
#endif
#endif
  const uint32_t MaxSize = agentU32(Cpu, HSA_AGENT_INFO_QUEUE_MAX_SIZE);
  ASSERT_GE(uint64_t(MaxSize) * 64, uint64_t(4) << 20);
  uint64_t VmPages = 0;
  std::ifstream("/proc/self/statm") >> VmPages;
  ASSERT_GT(VmPages, 0u);
  rlimit Old{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &Old), 0);
  // Room for the small allocations of hsa_queue_create, not for the ring.
  rlimit Tight = Old;
  Tight.rlim_cur = VmPages * uint64_t(sysconf(_SC_PAGESIZE)) + (1u << 20);
  ASSERT_EQ(setrlimit(RLIMIT_AS, &Tight), 0);
  hsa_queue_t *Q = reinterpret_cast<hsa_queue_t *>(0x1);
  const hsa_status_t S =
      hsa_queue_create(Cpu, MaxSize, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr,
                       UINT32_MAX, UINT32_MAX, &Q);
  ASSERT_EQ(setrlimit(RLIMIT_AS, &Old), 0);
  EXPECT_EQ(S, HSA_STATUS_ERROR_OUT_OF_RESOURCES);
  EXPECT_EQ(Q, reinterpret_cast<hsa_queue_t *>(0x1));
  // Nothing leaked: the agent's full count of queues is still available.
  const uint32_t Max = agentU32(Cpu, HSA_AGENT_INFO_QUEUES_MAX);
  std::vector<hsa_queue_t *> Queues;
  for (uint32_t I = 0; I < Max; ++I) {
    hsa_queue_t *Small = nullptr;
    ASSERT_EQ(hsa_queue_create(Cpu, 16, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr,
                               UINT32_MAX, UINT32_MAX, &Small),
              HSA_STATUS_SUCCESS)
        << I;
    Queues.push_back(Small);
  }
  for (hsa_queue_t *X : Queues)
    EXPECT_EQ(hsa_queue_destroy(X), HSA_STATUS_SUCCESS);
}

using LoadIndex = uint64_t (*)(const hsa_queue_t *);
using StoreIndex = void (*)(const hsa_queue_t *, uint64_t);
using CasIndex = uint64_t (*)(const hsa_queue_t *, uint64_t, uint64_t);
using AddIndex = uint64_t (*)(const hsa_queue_t *, uint64_t);
template <typename Fn> struct Named {
  const char *Name;
  Fn F;
};
#define OPENHSA_NAMED(F)                                                       \
  { #F, F }

// Every variant, the deprecated 1.0 names (acquire, release, acq_rel)
// included.
const Named<LoadIndex> LoadRead[] = {
    OPENHSA_NAMED(hsa_queue_load_read_index_scacquire),
    OPENHSA_NAMED(hsa_queue_load_read_index_relaxed),
    OPENHSA_NAMED(hsa_queue_load_read_index_acquire)};
const Named<LoadIndex> LoadWrite[] = {
    OPENHSA_NAMED(hsa_queue_load_write_index_scacquire),
    OPENHSA_NAMED(hsa_queue_load_write_index_relaxed),
    OPENHSA_NAMED(hsa_queue_load_write_index_acquire)};
const Named<StoreIndex> StoreWrite[] = {
    OPENHSA_NAMED(hsa_queue_store_write_index_relaxed),
    OPENHSA_NAMED(hsa_queue_store_write_index_screlease),
    OPENHSA_NAMED(hsa_queue_store_write_index_release)};
const Named<StoreIndex> StoreRead[] = {
    OPENHSA_NAMED(hsa_queue_store_read_index_relaxed),
    OPENHSA_NAMED(hsa_queue_store_read_index_screlease),
    OPENHSA_NAMED(hsa_queue_store_read_index_release)};
const Named<CasIndex> CasWrite[] = {
    OPENHSA_NAMED(hsa_queue_cas_write_index_scacq_screl),
    OPENHSA_NAMED(hsa_queue_cas_write_index_acq_rel),
    OPENHSA_NAMED(hsa_queue_cas_write_index_scacquire),
    OPENHSA_NAMED(hsa_queue_cas_write_index_acquire),
    OPENHSA_NAMED(hsa_queue_cas_write_index_relaxed),
    OPENHSA_NAMED(hsa_queue_cas_write_index_screlease),
    OPENHSA_NAMED(hsa_queue_cas_write_index_release)};
const Named<AddIndex> AddWrite[] = {
    OPENHSA_NAMED(hsa_queue_add_write_index_scacq_screl),
    OPENHSA_NAMED(hsa_queue_add_write_index_acq_rel),
    OPENHSA_NAMED(hsa_queue_add_write_index_scacquire),
    OPENHSA_NAMED(hsa_queue_add_write_index_acquire),
    OPENHSA_NAMED(hsa_queue_add_write_index_relaxed),
    OPENHSA_NAMED(hsa_queue_add_write_index_screlease),
    OPENHSA_NAMED(hsa_queue_add_write_index_release)};

/// Exercises every index function on Q. The read index is only written when
/// WriteRead (a soft queue, where the application is the packet processor).
void exerciseIndices(hsa_queue_t *Q, bool WriteRead) {
  uint64_t Expected = hsa_queue_load_write_index_relaxed(Q);
  for (const auto &St : StoreWrite)
    for (const auto &Ld : LoadWrite) {
      Expected += 3;
      St.F(Q, Expected);
      EXPECT_EQ(Ld.F(Q), Expected) << St.Name << " then " << Ld.Name;
    }
  for (const auto &C : CasWrite) {
    EXPECT_EQ(C.F(Q, Expected, Expected + 5), Expected) << C.Name;
    EXPECT_EQ(hsa_queue_load_write_index_relaxed(Q), Expected + 5) << C.Name;
    Expected += 5;
    EXPECT_EQ(C.F(Q, Expected - 1, Expected + 100), Expected)
        << C.Name << " (mismatch)";
    EXPECT_EQ(hsa_queue_load_write_index_relaxed(Q), Expected)
        << C.Name << " (mismatch)";
  }
  for (const auto &A : AddWrite) {
    EXPECT_EQ(A.F(Q, 7), Expected) << A.Name;
    Expected += 7;
    EXPECT_EQ(hsa_queue_load_write_index_scacquire(Q), Expected) << A.Name;
  }
  if (!WriteRead)
    return;
  uint64_t Read = 0;
  for (const auto &St : StoreRead)
    for (const auto &Ld : LoadRead) {
      Read += 2;
      St.F(Q, Read);
      EXPECT_EQ(Ld.F(Q), Read) << St.Name << " then " << Ld.Name;
    }
}

// HSA Runtime 2.8.1: every index function on a kernel agent's queue (whose
// read index belongs to the packet processor: it stays 0 while the slots
// hold no packet).
TEST_F(Queue, IndexFunctions) {
  hsa_queue_t *Q = makeQueue(64);
  ASSERT_NE(Q, nullptr);
  for (const auto &Ld : LoadRead)
    EXPECT_EQ(Ld.F(Q), 0u) << Ld.Name;
  exerciseIndices(Q, false);
  for (const auto &Ld : LoadRead)
    EXPECT_EQ(Ld.F(Q), 0u) << Ld.Name;
  EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
}

// HSA Runtime 2.8.1: index functions from several threads at once: the
// add_write_index reservations never overlap.
TEST_F(Queue, ConcurrentReservationsAreDisjoint) {
  hsa_queue_t *Q = makeQueue(64);
  ASSERT_NE(Q, nullptr);
  constexpr int Threads = 4, PerThread = 10000;
  std::vector<std::vector<uint64_t>> Got(Threads);
  std::vector<std::thread> Workers;
  for (int T = 0; T < Threads; ++T)
    Workers.emplace_back([&, T] {
      for (int I = 0; I < PerThread; ++I)
        Got[T].push_back(hsa_queue_add_write_index_relaxed(Q, 1));
    });
  for (auto &W : Workers)
    W.join();
  std::set<uint64_t> All;
  for (const auto &V : Got)
    All.insert(V.begin(), V.end());
  EXPECT_EQ(All.size(), size_t(Threads * PerThread));
  EXPECT_EQ(*All.rbegin(), uint64_t(Threads * PerThread - 1));
  EXPECT_EQ(hsa_queue_load_write_index_scacquire(Q),
            uint64_t(Threads * PerThread));
  EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
}

// HSA Runtime 2.8.1: hsa_queue_destroy and hsa_queue_inactivate error
// paths.
TEST_F(Queue, DestroyAndInactivateErrors) {
  hsa_queue_t *Q = makeQueue(16);
  ASSERT_NE(Q, nullptr);
  EXPECT_EQ(hsa_queue_inactivate(Q), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_queue_inactivate(Q), HSA_STATUS_SUCCESS) << "twice is fine";
  EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_ERROR_INVALID_QUEUE);
  EXPECT_EQ(hsa_queue_inactivate(Q), HSA_STATUS_ERROR_INVALID_QUEUE);

  EXPECT_EQ(hsa_queue_destroy(nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_queue_inactivate(nullptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_queue_t NotAQueue{};
  EXPECT_EQ(hsa_queue_destroy(&NotAQueue), HSA_STATUS_ERROR_INVALID_QUEUE);
  EXPECT_EQ(hsa_queue_inactivate(&NotAQueue), HSA_STATUS_ERROR_INVALID_QUEUE);
}

// HSA Runtime 2.8.1: an inactivated queue processes no further packets.
TEST_F(Queue, InactiveQueueProcessesNothing) {
  hsa_queue_t *Q = makeQueue(16);
  ASSERT_NE(Q, nullptr);
  hsa_signal_t Done = makeSignal(1);
  ASSERT_EQ(hsa_queue_inactivate(Q), HSA_STATUS_SUCCESS);
  hsa_barrier_and_packet_t P = barrierPacket({}, Done);
  submitPacket(Q, &P, packetHeader(HSA_PACKET_TYPE_BARRIER_AND));
  EXPECT_EQ(hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                      ticks(50ms), HSA_WAIT_STATE_BLOCKED),
            1);
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(Q), 0u);
  EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
}

// HSA Runtime 2.8.1: hsa_soft_queue_create; the queue's fields are what the
// application asked for.
TEST_F(SoftQueue, CreateAndFields) {
  hsa_signal_t Doorbell = makeSignal(0);
  const uint32_t Features[] = {
      HSA_QUEUE_FEATURE_KERNEL_DISPATCH, HSA_QUEUE_FEATURE_AGENT_DISPATCH,
      HSA_QUEUE_FEATURE_KERNEL_DISPATCH | HSA_QUEUE_FEATURE_AGENT_DISPATCH};
  std::set<uint64_t> Ids;
  hsa_queue_t *Kernel = makeQueue(16);
  ASSERT_NE(Kernel, nullptr);
  Ids.insert(Kernel->id);
  for (hsa_region_t R : {Regions.Fine, Regions.Kernarg})
    for (uint32_t Size : {1u, 2u, 64u, 4096u})
      for (uint32_t Type : {0u, 1u, 2u})
        for (uint32_t F : Features) {
          hsa_queue_t *Q = nullptr;
          ASSERT_EQ(hsa_soft_queue_create(R, Size, Type, F, Doorbell, &Q),
                    HSA_STATUS_SUCCESS);
          EXPECT_EQ(Q->size, Size);
          EXPECT_EQ(Q->type, Type);
          EXPECT_EQ(Q->features, F);
          EXPECT_EQ(Q->doorbell_signal.handle, Doorbell.handle);
          EXPECT_EQ(reinterpret_cast<uintptr_t>(Q->base_address) % 64, 0u);
          EXPECT_TRUE(Ids.insert(Q->id).second);
          EXPECT_EQ(hsa_queue_load_read_index_relaxed(Q), 0u);
          EXPECT_EQ(hsa_queue_load_write_index_relaxed(Q), 0u);
          for (uint32_t I = 0; I < Size; ++I)
            ASSERT_EQ(static_cast<const uint16_t *>(Q->base_address)[I * 32] &
                          0xff,
                      HSA_PACKET_TYPE_INVALID);
          EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
        }
  // The doorbell belongs to the application: it survives the queue.
  hsa_signal_store_relaxed(Doorbell, 5);
  EXPECT_EQ(hsa_signal_load_relaxed(Doorbell), 5);
  EXPECT_EQ(hsa_queue_destroy(Kernel), HSA_STATUS_SUCCESS);
}

// HSA Runtime 2.8.1: hsa_soft_queue_create error paths.
TEST_F(SoftQueue, CreateErrors) {
  hsa_signal_t Doorbell = makeSignal(0);
  hsa_queue_t *Q = reinterpret_cast<hsa_queue_t *>(0x1);
  const uint32_t K = HSA_QUEUE_FEATURE_KERNEL_DISPATCH;
  for (uint32_t Size : {0u, 3u, 100u})
    EXPECT_EQ(hsa_soft_queue_create(Regions.Fine, Size, HSA_QUEUE_TYPE_MULTI, K,
                                    Doorbell, &Q),
              HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << Size;
  EXPECT_EQ(hsa_soft_queue_create(Regions.Fine, 16, 5, K, Doorbell, &Q),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_soft_queue_create(Regions.Fine, 16, HSA_QUEUE_TYPE_MULTI, K,
                                  hsa_signal_t{0}, &Q),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_soft_queue_create(Regions.Fine, 16, HSA_QUEUE_TYPE_MULTI, K,
                                  Doorbell, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  for (uint32_t F : {0u, 4u, 0x100u})
    EXPECT_EQ(hsa_soft_queue_create(Regions.Fine, 16, HSA_QUEUE_TYPE_MULTI, F,
                                    Doorbell, &Q),
              HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << "features " << F;
  EXPECT_EQ(hsa_soft_queue_create(hsa_region_t{0x1234}, 16,
                                  HSA_QUEUE_TYPE_MULTI, K, Doorbell, &Q),
            HSA_STATUS_ERROR_INVALID_REGION);
  EXPECT_EQ(hsa_soft_queue_create(Regions.Group, 16, HSA_QUEUE_TYPE_MULTI, K,
                                  Doorbell, &Q),
            HSA_STATUS_ERROR_INVALID_REGION)
      << "the group region cannot hold a ring buffer";
  EXPECT_EQ(hsa_soft_queue_create(Regions.Fine, 16, HSA_QUEUE_TYPE_MULTI, K,
                                  hsa_signal_t{0x1234}, &Q),
            HSA_STATUS_ERROR_INVALID_SIGNAL);
  EXPECT_EQ(Q, reinterpret_cast<hsa_queue_t *>(0x1));
}

// HSA Runtime 2.8.1: every index function on a soft queue, read index
// included (the application is the packet processor there).
TEST_F(SoftQueue, IndexFunctions) {
  hsa_signal_t Doorbell = makeSignal(0);
  hsa_queue_t *Q = nullptr;
  ASSERT_EQ(hsa_soft_queue_create(Regions.Fine, 32, HSA_QUEUE_TYPE_SINGLE,
                                  HSA_QUEUE_FEATURE_AGENT_DISPATCH, Doorbell,
                                  &Q),
            HSA_STATUS_SUCCESS);
  exerciseIndices(Q, true);
  EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
}

// HSA Runtime 2.8.1, 2.8.2: a soft queue processed by the application: a
// producer thread writes agent dispatch packets and rings the doorbell; a
// consumer thread (the "packet processor") sleeps on the doorbell, reads
// each packet, executes it, frees the slot and moves the read index on.
TEST_F(SoftQueue, ApplicationProcessesPackets) {
  hsa_signal_t Doorbell = makeSignal(-1);
  hsa_queue_t *Q = nullptr;
  ASSERT_EQ(hsa_soft_queue_create(Regions.Fine, 16, HSA_QUEUE_TYPE_MULTI,
                                  HSA_QUEUE_FEATURE_AGENT_DISPATCH, Doorbell,
                                  &Q),
            HSA_STATUS_SUCCESS);
  constexpr int Packets = 200; // Wraps the 16-slot ring many times.
  std::vector<uint64_t> Results(Packets, 0);
  hsa_signal_t Done = makeSignal(Packets);

  std::thread Consumer([&] {
    uint64_t Read = 0;
    while (Read < uint64_t(Packets)) {
      // Sleep until the doorbell shows a packet at or beyond Read.
      waitUntil(Doorbell, HSA_SIGNAL_CONDITION_GTE, hsa_signal_value_t(Read));
      char *Slot =
          static_cast<char *>(Q->base_address) + (Read & (Q->size - 1)) * 64;
      auto *Header = reinterpret_cast<uint16_t *>(Slot);
      const uint16_t H =
          std::atomic_ref<uint16_t>(*Header).load(std::memory_order_acquire);
      if ((H & 0xff) == HSA_PACKET_TYPE_INVALID) {
        std::this_thread::yield(); // Doorbell rung ahead of this slot.
        continue;
      }
      hsa_agent_dispatch_packet_t P;
      std::memcpy(&P, Slot, sizeof(P));
      EXPECT_EQ(H & 0xff, HSA_PACKET_TYPE_AGENT_DISPATCH);
      EXPECT_EQ(P.type, 0x8001);
      *static_cast<uint64_t *>(P.return_address) = P.arg[0] + P.arg[1];
      std::atomic_ref<uint16_t>(*Header).store(HSA_PACKET_TYPE_INVALID
                                                   << HSA_PACKET_HEADER_TYPE,
                                               std::memory_order_relaxed);
      hsa_queue_store_read_index_screlease(Q, ++Read);
      if (P.completion_signal.handle)
        hsa_signal_subtract_screlease(P.completion_signal, 1);
    }
  });

  for (int I = 0; I < Packets; ++I) {
    hsa_agent_dispatch_packet_t P;
    std::memset(&P, 0, sizeof(P));
    P.type = 0x8001;
    P.return_address = &Results[I];
    P.arg[0] = uint64_t(I);
    P.arg[1] = 1000;
    P.completion_signal = Done;
    const uint64_t Index =
        submitPacket(Q, &P, packetHeader(HSA_PACKET_TYPE_AGENT_DISPATCH));
    EXPECT_EQ(Index, uint64_t(I));
    EXPECT_EQ(hsa_signal_load_relaxed(Doorbell), hsa_signal_value_t(I))
        << "the doorbell holds the last index written";
  }
  EXPECT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  Consumer.join();
  for (int I = 0; I < Packets; ++I)
    EXPECT_EQ(Results[I], uint64_t(I) + 1000) << I;
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(Q), uint64_t(Packets));
  EXPECT_EQ(hsa_queue_load_write_index_scacquire(Q), uint64_t(Packets));
  EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
}

} // namespace
} // namespace openhsa::test
