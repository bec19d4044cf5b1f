//===- tests/runtime/DispatchTest.cpp - AQL packets on the CPU agent ------===//
//
// HSA Runtime 2.8.2-2.8.3 (AQL packets: kernel dispatch, agent dispatch,
// barrier-AND/OR; the barrier bit; completion signals; asynchronous error
// reporting through the queue callback) and the packet processor of the CPU
// agent, driven by native kernels of the openhsa extension.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include <sys/resource.h>

#include <string>

namespace openhsa::test {
namespace {

using Dispatch = RuntimeTest;
using namespace std::chrono_literals;

template <typename T> std::atomic_ref<T> atomic(T &V) {
  return std::atomic_ref<T>(V);
}

//===-- Kernels -----------------------------------------------------------===//

struct VisitArgs {
  uint32_t *Visits;     // One counter per work-item of the grid.
  uint32_t *OutOfRange; // Work-items outside the grid.
  uint32_t *BadGroups;  // Work-groups with ids outside grid_groups.
};

/// Counts every work-item it runs, by absolute id.
void visitKernel(const void *Kernarg,
                 const hsa_ext_openhsa_dispatch_context_t *C, uint32_t Gx,
                 uint32_t Gy, uint32_t Gz) {
  const auto *A = static_cast<const VisitArgs *>(Kernarg);
  if (Gx >= C->grid_groups[0] || Gy >= C->grid_groups[1] ||
      Gz >= C->grid_groups[2]) {
    atomic(*A->BadGroups).fetch_add(1);
    return;
  }
  const GroupExtent E = groupExtent(C, Gx, Gy, Gz);
  for (uint32_t Z = 0; Z < E.Size[2]; ++Z)
    for (uint32_t Y = 0; Y < E.Size[1]; ++Y)
      for (uint32_t X = 0; X < E.Size[0]; ++X) {
        const uint64_t Ax = E.Base[0] + X, Ay = E.Base[1] + Y,
                       Az = E.Base[2] + Z;
        if (Ax >= C->grid_size[0] || Ay >= C->grid_size[1] ||
            Az >= C->grid_size[2]) {
          atomic(*A->OutOfRange).fetch_add(1);
          continue;
        }
        const uint64_t Flat =
            Ax + C->grid_size[0] * (Ay + uint64_t(C->grid_size[1]) * Az);
        atomic(A->Visits[Flat]).fetch_add(1);
      }
}

struct GroupArgs {
  uint32_t *Errors;
  uint32_t *Sums;        // Per work-group: sum of its work-items' writes.
  uint32_t *SegmentSize; // context->group_segment_size seen.
  uint32_t *Concurrent;  // Most work-groups seen running at once.
  uint32_t *Running;
};

/// Uses group memory: each work-item writes its flat id into its word; the
/// work-group sums them (shared within the group), then fills the whole
/// segment with its own id and checks, after letting other work-groups run,
/// that nobody else wrote into it (isolated between groups).
void groupKernel(const void *Kernarg,
                 const hsa_ext_openhsa_dispatch_context_t *C, uint32_t Gx,
                 uint32_t Gy, uint32_t Gz) {
  const auto *A = static_cast<const GroupArgs *>(Kernarg);
  const uint32_t Now = atomic(*A->Running).fetch_add(1) + 1;
  uint32_t Seen = atomic(*A->Concurrent).load();
  while (Now > Seen && !atomic(*A->Concurrent).compare_exchange_weak(Seen, Now))
    ;
  atomic(*A->SegmentSize).store(C->group_segment_size);
  auto *Words = static_cast<uint32_t *>(C->group_base);
  const uint32_t WordCount = C->group_segment_size / 4;
  const uint32_t Group = Gx + C->grid_groups[0] * (Gy + C->grid_groups[1] * Gz);
  const GroupExtent E = groupExtent(C, Gx, Gy, Gz);
  if (!Words || reinterpret_cast<uintptr_t>(Words) % 16 ||
      WordCount < E.items()) {
    atomic(*A->Errors).fetch_add(1);
    atomic(*A->Running).fetch_sub(1);
    return;
  }
  for (uint32_t I = 0; I < E.items(); ++I) // Work-item I writes its word.
    Words[I] = I + 1;
  uint32_t Sum = 0;
  for (uint32_t I = 0; I < E.items(); ++I) // Every work-item sees them all.
    Sum += Words[I];
  A->Sums[Group] = Sum;
  for (uint32_t I = 0; I < WordCount; ++I)
    Words[I] = Group;
  for (int Round = 0; Round < 20; ++Round) {
    std::this_thread::yield();
    for (uint32_t I = 0; I < WordCount; ++I)
      if (Words[I] != Group) {
        atomic(*A->Errors).fetch_add(1);
        Words[I] = Group;
      }
  }
  atomic(*A->Running).fetch_sub(1);
}

struct PrivateArgs {
  uint32_t *Errors;
  uint32_t *SegmentSize; // context->private_segment_size seen.
  uint32_t *Items;
};

/// Uses private memory: every work-item fills its own private bytes with a
/// pattern of its id; after all of them ran, each one's bytes are intact.
void privateKernel(const void *Kernarg,
                   const hsa_ext_openhsa_dispatch_context_t *C, uint32_t Gx,
                   uint32_t Gy, uint32_t Gz) {
  const auto *A = static_cast<const PrivateArgs *>(Kernarg);
  const uint32_t Bytes = C->private_segment_size;
  atomic(*A->SegmentSize).store(Bytes);
  const GroupExtent E = groupExtent(C, Gx, Gy, Gz);
  auto *Base = static_cast<unsigned char *>(C->private_base);
  if (!Base || Bytes == 0) {
    atomic(*A->Errors).fetch_add(1);
    return;
  }
  const uint32_t Seed = (Gx * 131 + Gy * 17 + Gz) * 7;
  for (uint32_t I = 0; I < E.items(); ++I)
    for (uint32_t B = 0; B < Bytes; ++B)
      Base[I * Bytes + B] = static_cast<unsigned char>(Seed + I * 3 + B);
  for (uint32_t I = 0; I < E.items(); ++I)
    for (uint32_t B = 0; B < Bytes; ++B)
      if (Base[I * Bytes + B] != static_cast<unsigned char>(Seed + I * 3 + B)) {
        atomic(*A->Errors).fetch_add(1);
        return;
      }
  atomic(*A->Items).fetch_add(E.items());
}

struct EchoArgs {
  uint64_t A;
  double B;
  int32_t C[4];
  void *Out; // An EchoRecord.
};

struct EchoRecord {
  EchoArgs Args;
  const void *Kernarg;
  const void *PacketKernarg;
  hsa_queue_t *Queue;
  uint64_t PacketId;
  void *UserData;
  uint32_t Dimensions;
  uint32_t Calls;
};

/// Copies its arguments and what it sees of the dispatch into Out.
void echoKernel(const void *Kernarg,
                const hsa_ext_openhsa_dispatch_context_t *C, uint32_t, uint32_t,
                uint32_t) {
  const auto *A = static_cast<const EchoArgs *>(Kernarg);
  auto *R = static_cast<EchoRecord *>(A->Out);
  R->Args = *A;
  R->Kernarg = Kernarg;
  R->PacketKernarg = C->packet->kernarg_address;
  R->Queue = C->queue;
  R->PacketId = C->packet_id;
  R->UserData = C->user_data;
  R->Dimensions = C->dimensions;
  atomic(R->Calls).fetch_add(1);
}

struct GateArgs {
  std::atomic<int> *Gate; // Work-groups wait until it is non-zero.
  std::atomic<int> *Done; // Work-groups that finished.
  std::atomic<int> *Observed;
};

void gateKernel(const void *Kernarg, const hsa_ext_openhsa_dispatch_context_t *,
                uint32_t, uint32_t, uint32_t) {
  const auto *A = static_cast<const GateArgs *>(Kernarg);
  const auto Deadline = std::chrono::steady_clock::now() + HangGuard;
  while (A->Gate->load() == 0 && std::chrono::steady_clock::now() < Deadline)
    std::this_thread::sleep_for(100us);
  A->Done->fetch_add(1);
}

/// Records how many gate work-groups had finished when it ran.
void observeKernel(const void *Kernarg,
                   const hsa_ext_openhsa_dispatch_context_t *, uint32_t,
                   uint32_t, uint32_t) {
  const auto *A = static_cast<const GateArgs *>(Kernarg);
  A->Observed->store(A->Done->load());
}

void emptyKernel(const void *, const hsa_ext_openhsa_dispatch_context_t *,
                 uint32_t, uint32_t, uint32_t) {}

//===-- Helpers -----------------------------------------------------------===//

/// Whether Signal keeps its value for a while (the packet it completes has
/// not run). Only ever used where the packet must NOT run: a wrong result
/// shows as a failure, a slow machine cannot cause one.
bool staysAt(hsa_signal_t Signal, hsa_signal_value_t Value,
             std::chrono::milliseconds For = 30ms) {
  return hsa_signal_wait_scacquire(Signal, HSA_SIGNAL_CONDITION_NE, Value,
                                   ticks(For), HSA_WAIT_STATE_BLOCKED) == Value;
}

class DispatchFixture : public RuntimeTest {
protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    if (HasFatalFailure())
      return;
    Queue = makeQueue(256);
    ASSERT_NE(Queue, nullptr);
  }

  /// Runs a grid through visitKernel and checks that every work-item ran
  /// exactly once.
  void expectEveryWorkItemOnce(unsigned Dims, std::array<uint32_t, 3> Grid,
                               std::array<uint16_t, 3> Wg) {
    SCOPED_TRACE("grid " + std::to_string(Grid[0]) + "x" +
                 std::to_string(Grid[1]) + "x" + std::to_string(Grid[2]) +
                 " work-group " + std::to_string(Wg[0]) + "x" +
                 std::to_string(Wg[1]) + "x" + std::to_string(Wg[2]));
    const uint64_t Items = uint64_t(Grid[0]) * Grid[1] * Grid[2];
    std::vector<uint32_t> Visits(Items, 0);
    uint32_t OutOfRange = 0, BadGroups = 0;
    auto *Args = allocKernarg<VisitArgs>();
    *Args = {Visits.data(), &OutOfRange, &BadGroups};
    const uint64_t K = makeKernel(visitKernel, sizeof(VisitArgs));
    hsa_signal_t Done = makeSignal(1);
    auto P = dispatchPacket(K, Args, Dims, Grid, Wg, Done);
    submitPacket(Queue, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
    ASSERT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
    EXPECT_EQ(OutOfRange, 0u);
    EXPECT_EQ(BadGroups, 0u);
    uint64_t Wrong = 0;
    for (uint64_t I = 0; I < Items; ++I)
      if (Visits[I] != 1 && Wrong++ < 5)
        ADD_FAILURE() << "work-item " << I << " ran " << Visits[I] << " times";
    EXPECT_EQ(Wrong, 0u);
    EXPECT_EQ(hsa_signal_destroy(Done), HSA_STATUS_SUCCESS);
    EXPECT_EQ(Ext.hsa_ext_openhsa_native_kernel_destroy(K), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_memory_free(Args), HSA_STATUS_SUCCESS);
  }

  /// Submits Packet (with Header) to a fresh queue (of the kernel agent, or
  /// of Agent) whose callback records errors, and checks that the queue
  /// reports Expected and is inactive afterwards.
  void expectQueueError(const void *Packet, uint16_t Header,
                        hsa_status_t Expected, hsa_agent_t Agent = {0}) {
    ErrorLog &Log = errorLog();
    hsa_queue_t *Bad = makeQueue(16, &Log, HSA_QUEUE_TYPE_MULTI, Agent);
    ASSERT_NE(Bad, nullptr);
    submitPacket(Bad, Packet, Header);
    ASSERT_EQ(waitUntil(Log.Raised, HSA_SIGNAL_CONDITION_GTE, 1), 1)
        << "no error reported";
    EXPECT_EQ(Log.LastStatus.load(), int(Expected))
        << "got 0x" << std::hex << Log.LastStatus.load();
    EXPECT_EQ(Log.LastSource.load(), Bad);

    // Inactive: a valid packet after the bad one is not processed, and the
    // error is reported once.
    hsa_signal_t After = makeSignal(1);
    hsa_barrier_and_packet_t B = barrierPacket({}, After);
    submitPacket(Bad, &B, packetHeader(HSA_PACKET_TYPE_BARRIER_AND));
    EXPECT_TRUE(staysAt(After, 1)) << "the queue is still active";
    EXPECT_EQ(Log.Count.load(), 1);

    // The process and the other queues carry on.
    hsa_signal_t Good = makeSignal(1);
    hsa_barrier_and_packet_t G = barrierPacket({}, Good);
    submitPacket(Queue, &G, packetHeader(HSA_PACKET_TYPE_BARRIER_AND));
    EXPECT_EQ(waitUntil(Good, HSA_SIGNAL_CONDITION_EQ, 0), 0);

    EXPECT_EQ(hsa_queue_destroy(Bad), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_signal_destroy(After), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_signal_destroy(Good), HSA_STATUS_SUCCESS);
  }

  hsa_queue_t *Queue = nullptr;
};

using DispatchGrid = DispatchFixture;
using DispatchSegments = DispatchFixture;
using DispatchOrdering = DispatchFixture;
using DispatchErrors = DispatchFixture;

//===-- Grids -------------------------------------------------------------===//

// HSA Runtime 2.8.2 (kernel dispatch packet), PRM 2.2: a 1-dimensional grid,
// partial work-groups at the edge, single- and multi-group dispatches.
TEST_F(DispatchGrid, OneDimension) {
  expectEveryWorkItemOnce(1, {1, 1, 1}, {1, 1, 1});
  expectEveryWorkItemOnce(1, {5, 1, 1}, {64, 1, 1});
  expectEveryWorkItemOnce(1, {1000, 1, 1}, {64, 1, 1});
  expectEveryWorkItemOnce(1, {1024, 1, 1}, {1024, 1, 1});
  expectEveryWorkItemOnce(1, {1 << 20, 1, 1}, {256, 1, 1});
  expectEveryWorkItemOnce(1, {100003, 1, 1}, {1, 1, 1});
}

// HSA Runtime 2.8.2: 2-dimensional grids with partial work-groups in x, y
// and both.
TEST_F(DispatchGrid, TwoDimensions) {
  expectEveryWorkItemOnce(2, {37, 23, 1}, {8, 5, 1});
  expectEveryWorkItemOnce(2, {64, 64, 1}, {16, 16, 1});
  expectEveryWorkItemOnce(2, {3, 1000, 1}, {4, 7, 1});
  expectEveryWorkItemOnce(2, {513, 2, 1}, {32, 32, 1});
}

// HSA Runtime 2.8.2: 3-dimensional grids with partial work-groups.
TEST_F(DispatchGrid, ThreeDimensions) {
  expectEveryWorkItemOnce(3, {9, 10, 11}, {4, 3, 2});
  expectEveryWorkItemOnce(3, {16, 16, 16}, {4, 4, 4});
  expectEveryWorkItemOnce(3, {1, 1, 77}, {1, 1, 8});
  expectEveryWorkItemOnce(3, {33, 17, 5}, {8, 8, 8});
}

// HSA Runtime 2.8.2: a grid or work-group size of 0 in a used dimension is
// an empty grid. The packet completes (its completion signal is
// decremented, the queue stays active) and no work-item runs: what the HSA
// Foundation conformance suite's aql_zero_wg_size expects. Its packets also
// leave the unused dimensions at 256, which an empty grid ignores.
TEST_F(DispatchGrid, ZeroSizedGridRunsNoWorkItem) {
  ErrorLog &Log = errorLog();
  hsa_queue_t *Q = makeQueue(64, &Log);
  ASSERT_NE(Q, nullptr);
  uint32_t Visits[8] = {}, OutOfRange = 0, BadGroups = 0;
  auto *Args = allocKernarg<VisitArgs>();
  *Args = {Visits, &OutOfRange, &BadGroups};
  const uint64_t K = makeKernel(visitKernel, sizeof(VisitArgs));
  const uint16_t H = packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH);
  struct Case {
    unsigned Dims;
    std::array<uint32_t, 3> Grid;
    std::array<uint16_t, 3> Wg;
  };
  const Case Cases[] = {
      {1, {0, 1, 1}, {1, 1, 1}},     {1, {8, 1, 1}, {0, 1, 1}},
      {1, {0, 1, 1}, {0, 1, 1}},     {2, {8, 0, 1}, {2, 2, 1}},
      {2, {8, 8, 1}, {2, 0, 1}},     {3, {2, 2, 0}, {1, 1, 1}},
      {3, {2, 2, 2}, {1, 1, 0}},     {3, {0, 2, 2}, {1, 1, 1}},
      {1, {0, 256, 256}, {0, 1, 1}}, {2, {256, 0, 256}, {1, 0, 1}},
      {3, {256, 256, 0}, {1, 1, 0}}, {2, {4, 4, 1}, {4, 0, 0}},
  };
  hsa_signal_t Done = makeSignal(std::size(Cases));
  for (const Case &C : Cases) {
    auto P = dispatchPacket(K, Args, C.Dims, C.Grid, C.Wg, Done);
    submitPacket(Q, &P, H);
  }
  EXPECT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(Log.Count.load(), 0)
      << "status 0x" << std::hex << Log.LastStatus.load();
  for (uint32_t V : Visits)
    EXPECT_EQ(V, 0u);
  EXPECT_EQ(OutOfRange, 0u);
  EXPECT_EQ(BadGroups, 0u);
  // The queue goes on with ordinary packets after the empty ones.
  auto One = dispatchPacket(K, Args, 1, {8, 1, 1}, {4, 1, 1}, Done);
  hsa_signal_store_relaxed(Done, 1);
  submitPacket(Q, &One, H);
  EXPECT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  for (uint32_t V : Visits)
    EXPECT_EQ(V, 1u);
  EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
}

//===-- Segments and arguments --------------------------------------------===//

// HSA Runtime 2.8.2 (group_segment_size) and PRM 4.3 (group segment): group
// memory is shared by a work-group's work-items and private to the
// work-group; the packet's size covers the kernel's static group memory and
// the dynamic part.
TEST_F(DispatchSegments, GroupMemory) {
  constexpr uint32_t Static = 64, Dynamic = 4096;
  constexpr uint32_t Groups = 64, WgSize = 100;
  std::vector<uint32_t> Sums(Groups, 0);
  uint32_t Errors = 0, SegmentSize = 0, Concurrent = 0, Running = 0;
  auto *Args = allocKernarg<GroupArgs>();
  *Args = {&Errors, Sums.data(), &SegmentSize, &Concurrent, &Running};
  const uint64_t K =
      makeKernel(groupKernel, sizeof(GroupArgs), nullptr, Static);
  hsa_signal_t Done = makeSignal(1);
  auto P = dispatchPacket(K, Args, 1, {Groups * WgSize - 10, 1, 1},
                          {WgSize, 1, 1}, Done, Static + Dynamic);
  submitPacket(Queue, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  ASSERT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(Errors, 0u);
  EXPECT_EQ(SegmentSize, Static + Dynamic);
  for (uint32_t G = 0; G < Groups; ++G) {
    const uint32_t N = G + 1 < Groups ? WgSize : WgSize - 10;
    EXPECT_EQ(Sums[G], N * (N + 1) / 2) << "work-group " << G;
  }
  RecordProperty("max_concurrent_groups", std::to_string(Concurrent));

  // A packet asking for less than the kernel's static need gets that need.
  SegmentSize = 0;
  hsa_signal_store_relaxed(Done, 1);
  P = dispatchPacket(K, Args, 1, {Static / 4, 1, 1}, {Static / 4, 1, 1}, Done,
                     0);
  submitPacket(Queue, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  ASSERT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(Errors, 0u);
  EXPECT_EQ(SegmentSize, Static);
}

// PRM 4.4 (private segment): each work-item has its own private memory of
// the dispatch's private_segment_size, the larger of the kernel's and the
// packet's.
TEST_F(DispatchSegments, PrivateMemory) {
  uint32_t Errors = 0, SegmentSize = 0, Items = 0;
  auto *Args = allocKernarg<PrivateArgs>();
  *Args = {&Errors, &SegmentSize, &Items};
  const uint64_t K =
      makeKernel(privateKernel, sizeof(PrivateArgs), nullptr, 0, 24);
  hsa_signal_t Done = makeSignal(1);
  // The kernel's 24 bytes.
  auto P = dispatchPacket(K, Args, 2, {50, 30, 1}, {16, 8, 1}, Done);
  submitPacket(Queue, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  ASSERT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(Errors, 0u);
  EXPECT_EQ(SegmentSize, 24u);
  EXPECT_EQ(Items, 50u * 30u);
  // The packet's 100 bytes.
  Items = 0;
  hsa_signal_store_relaxed(Done, 1);
  P = dispatchPacket(K, Args, 3, {10, 10, 10}, {4, 4, 4}, Done, 0, 100);
  submitPacket(Queue, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  ASSERT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(Errors, 0u);
  EXPECT_EQ(SegmentSize, 100u);
  EXPECT_EQ(Items, 1000u);
}

// HSA Runtime 2.8.2 (kernarg_address), hsa_ext_openhsa.h (dispatch context):
// the kernel gets the packet's kernarg block and sees its dispatch.
TEST_F(DispatchSegments, KernargAndContext) {
  EchoRecord Record{};
  auto *Args = allocKernarg<EchoArgs>();
  *Args = {0x0123456789abcdefULL, -2.5, {1, -2, 3, -4}, &Record};
  int UserData = 0;
  const uint64_t K = makeKernel(echoKernel, sizeof(EchoArgs), &UserData);
  hsa_signal_t Done = makeSignal(1);
  // Two packets, so the second has a non-zero packet id. The second sets the
  // barrier bit: without it the first may still be running (and writing the
  // record) when the second completes.
  auto P = singleItemPacket(K, Args, hsa_signal_t{0});
  submitPacket(Queue, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  P = dispatchPacket(K, Args, 2, {1, 1, 1}, {1, 1, 1}, Done);
  const uint64_t Index = submitPacket(
      Queue, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH, true));
  ASSERT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(Record.Calls, 2u);
  EXPECT_EQ(Record.Args.A, 0x0123456789abcdefULL);
  EXPECT_EQ(Record.Args.B, -2.5);
  EXPECT_EQ(Record.Args.C[1], -2);
  EXPECT_EQ(Record.Args.C[3], -4);
  EXPECT_EQ(Record.Kernarg, Args);
  EXPECT_EQ(Record.PacketKernarg, Args);
  EXPECT_EQ(Record.Queue, Queue);
  EXPECT_EQ(Record.PacketId, Index);
  EXPECT_EQ(Record.UserData, &UserData);
  EXPECT_EQ(Record.Dimensions, 2u);
}

// HSA Runtime 2.8.2 (completion_signal): decremented by one when the packet
// completes, whatever its value.
TEST_F(DispatchSegments, CompletionSignalIsDecremented) {
  const uint64_t K = makeKernel(emptyKernel);
  hsa_signal_t Done = makeSignal(3);
  auto P = singleItemPacket(K, nullptr, Done);
  submitPacket(Queue, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  EXPECT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_LT, 3), 2);
  EXPECT_TRUE(staysAt(Done, 2)) << "decremented more than once";
  // A multi-group dispatch: decremented once, not once per work-group.
  auto Many = dispatchPacket(K, nullptr, 1, {4096, 1, 1}, {16, 1, 1}, Done);
  submitPacket(Queue, &Many, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  EXPECT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 1), 1);
  EXPECT_TRUE(staysAt(Done, 1)) << "decremented more than once per packet";
  // And the ring slots went back to INVALID as the read index passed them.
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(Queue), 2u);
  for (uint32_t I = 0; I < 2; ++I)
    EXPECT_EQ(static_cast<const uint16_t *>(Queue->base_address)[I * 32] & 0xff,
              HSA_PACKET_TYPE_INVALID);
}

// HSA Runtime 2.8.3: packets run whatever their fence scopes, NONE
// included (the completion signal is still decremented).
TEST_F(DispatchSegments, FenceScopes) {
  const uint64_t K = makeKernel(emptyKernel);
  const hsa_fence_scope_t Scopes[] = {
      HSA_FENCE_SCOPE_NONE, HSA_FENCE_SCOPE_AGENT, HSA_FENCE_SCOPE_SYSTEM};
  hsa_signal_t Done = makeSignal(9 * 2);
  for (hsa_fence_scope_t Acquire : Scopes)
    for (hsa_fence_scope_t Release : Scopes) {
      auto P = singleItemPacket(K, nullptr, Done);
      submitPacket(Queue, &P,
                   packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH, false, Acquire,
                                Release));
      auto B = barrierPacket({}, Done);
      submitPacket(
          Queue, &B,
          packetHeader(HSA_PACKET_TYPE_BARRIER_AND, false, Acquire, Release));
    }
  EXPECT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
}

//===-- Doorbell and publication order ------------------------------------===//

// HSA Runtime 2.8.1 (doorbell_signal): one doorbell store may announce
// several packets; the processor handles every packet up to the index
// written.
TEST_F(DispatchOrdering, OneDoorbellForManyPackets) {
  const uint64_t K = makeKernel(emptyKernel);
  hsa_signal_t Done = makeSignal(20);
  uint64_t Last = 0;
  for (int I = 0; I < 20; ++I) {
    auto P = I % 3
                 ? singleItemPacket(K, nullptr, Done)
                 : dispatchPacket(K, nullptr, 1, {100, 1, 1}, {10, 1, 1}, Done);
    Last =
        submitPacket(Queue, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH),
                     /*Ring=*/false);
  }
  hsa_signal_store_screlease(Queue->doorbell_signal, hsa_signal_value_t(Last));
  EXPECT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(Queue), 20u);
}

// HSA Runtime 2.8.3 (packet processing is in order): a packet published
// before the one in the slot ahead of it waits for that one; the processor
// never skips a slot whose header is still INVALID.
TEST_F(DispatchOrdering, PublicationOutOfOrder) {
  hsa_signal_t First = makeSignal(1), Second = makeSignal(1);
  const uint64_t Index = hsa_queue_add_write_index_scacq_screl(Queue, 2);
  auto P2 = barrierPacket({}, Second);
  writePacket(Queue, Index + 1, &P2, packetHeader(HSA_PACKET_TYPE_BARRIER_AND));
  hsa_signal_store_screlease(Queue->doorbell_signal,
                             hsa_signal_value_t(Index + 1));
  EXPECT_TRUE(staysAt(Second, 1)) << "a packet ran before an earlier slot";
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(Queue), Index);
  auto P1 = barrierPacket({}, First);
  writePacket(Queue, Index, &P1, packetHeader(HSA_PACKET_TYPE_BARRIER_AND));
  hsa_signal_store_screlease(Queue->doorbell_signal,
                             hsa_signal_value_t(Index + 1));
  EXPECT_EQ(waitUntil(Second, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(hsa_signal_load_scacquire(First), 0);
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(Queue), Index + 2);
}

//===-- Ordering: barrier bit and barrier packets
//--------------------------===//

// HSA Runtime 2.8.3 (barrier bit): a packet with the barrier bit set is not
// launched before every earlier packet of its queue completed.
TEST_F(DispatchOrdering, BarrierBit) {
  std::atomic<int> Gate{0}, Done{0}, Observed{-1};
  auto *Args = allocKernarg<GateArgs>();
  *Args = {&Gate, &Done, &Observed};
  const uint64_t GateK = makeKernel(gateKernel, sizeof(GateArgs));
  const uint64_t ObserveK = makeKernel(observeKernel, sizeof(GateArgs));
  hsa_signal_t First = makeSignal(1), Second = makeSignal(1);
  // Two work-groups: launched asynchronously on the agent's workers.
  auto P1 = dispatchPacket(GateK, Args, 1, {2, 1, 1}, {1, 1, 1}, First);
  submitPacket(Queue, &P1, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  auto P2 = singleItemPacket(ObserveK, Args, Second);
  submitPacket(Queue, &P2,
               packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH, /*Barrier=*/true));

  EXPECT_TRUE(staysAt(Second, 1)) << "the barrier packet did not wait";
  EXPECT_EQ(Observed.load(), -1);
  Gate = 1;
  ASSERT_EQ(waitUntil(Second, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(hsa_signal_load_scacquire(First), 0);
  EXPECT_EQ(Observed.load(), 2) << "it ran before both work-groups finished";
}

// HSA Runtime 2.8.2 (barrier-AND packet): completes once every dependency
// signal is 0; later packets wait for it. Null dependencies are ignored.
TEST_F(DispatchOrdering, BarrierAnd) {
  hsa_signal_t D1 = makeSignal(1), D2 = makeSignal(2);
  hsa_signal_t Barrier = makeSignal(1), After = makeSignal(1);
  auto B = barrierPacket({D1, hsa_signal_t{0}, D2}, Barrier);
  submitPacket(Queue, &B, packetHeader(HSA_PACKET_TYPE_BARRIER_AND));
  const uint64_t K = makeKernel(emptyKernel);
  auto P = singleItemPacket(K, nullptr, After);
  submitPacket(Queue, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));

  EXPECT_TRUE(staysAt(Barrier, 1));
  hsa_signal_store_screlease(D1, 0);
  EXPECT_TRUE(staysAt(Barrier, 1)) << "AND completed with D2 still 2";
  hsa_signal_subtract_screlease(D2, 1);
  EXPECT_TRUE(staysAt(Barrier, 1)) << "AND completed with D2 still 1";
  EXPECT_EQ(hsa_signal_load_relaxed(After), 1) << "ran past the barrier";
  hsa_signal_subtract_screlease(D2, 1);
  EXPECT_EQ(waitUntil(Barrier, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(waitUntil(After, HSA_SIGNAL_CONDITION_EQ, 0), 0);

  // No dependency at all: completes at once; so does one already at 0 in
  // the last slot.
  hsa_signal_t Empty = makeSignal(1);
  auto NoDeps = barrierPacket({}, Empty);
  submitPacket(Queue, &NoDeps, packetHeader(HSA_PACKET_TYPE_BARRIER_AND));
  EXPECT_EQ(waitUntil(Empty, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  hsa_signal_t Zero = makeSignal(0), Last = makeSignal(1);
  auto LastSlot = barrierPacket({hsa_signal_t{0}, hsa_signal_t{0},
                                 hsa_signal_t{0}, hsa_signal_t{0}, Zero},
                                Last);
  submitPacket(Queue, &LastSlot, packetHeader(HSA_PACKET_TYPE_BARRIER_AND));
  EXPECT_EQ(waitUntil(Last, HSA_SIGNAL_CONDITION_EQ, 0), 0);
}

// HSA Runtime 2.8.2 (barrier-OR packet): completes once any dependency
// signal is 0.
TEST_F(DispatchOrdering, BarrierOr) {
  // One dependency already satisfied.
  hsa_signal_t D1 = makeSignal(1), D2 = makeSignal(0);
  hsa_signal_t Now = makeSignal(1);
  auto B = barrierPacket({D1, D2}, Now);
  submitPacket(Queue, &B, packetHeader(HSA_PACKET_TYPE_BARRIER_OR));
  EXPECT_EQ(waitUntil(Now, HSA_SIGNAL_CONDITION_EQ, 0), 0);

  // None satisfied yet: satisfied later from the host.
  hsa_signal_t D3 = makeSignal(1), D4 = makeSignal(1), D5 = makeSignal(5);
  hsa_signal_t Later = makeSignal(1), After = makeSignal(1);
  auto B2 = barrierPacket({D3, hsa_signal_t{0}, D4, D5}, Later);
  submitPacket(Queue, &B2, packetHeader(HSA_PACKET_TYPE_BARRIER_OR));
  const uint64_t K = makeKernel(emptyKernel);
  auto P = singleItemPacket(K, nullptr, After);
  submitPacket(Queue, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  EXPECT_TRUE(staysAt(Later, 1));
  hsa_signal_subtract_screlease(D5, 1);
  EXPECT_TRUE(staysAt(Later, 1)) << "OR completed with every dependency > 0";
  hsa_signal_store_screlease(D4, 0);
  EXPECT_EQ(waitUntil(Later, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(waitUntil(After, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(hsa_signal_load_relaxed(D3), 1);
}

// HSA Runtime 2.8.2: a barrier packet waiting on a queue must not hold up
// the other queues of the agent.
TEST_F(DispatchOrdering, BlockedQueueDoesNotStopOthers) {
  hsa_queue_t *Other = makeQueue(64);
  ASSERT_NE(Other, nullptr);
  hsa_signal_t Dep = makeSignal(1), Blocked = makeSignal(1);
  auto B = barrierPacket({Dep}, hsa_signal_t{0});
  submitPacket(Queue, &B, packetHeader(HSA_PACKET_TYPE_BARRIER_AND));
  const uint64_t K = makeKernel(emptyKernel);
  auto P = singleItemPacket(K, nullptr, Blocked);
  submitPacket(Queue, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));

  constexpr int Count = 500; // More than the ring holds.
  hsa_signal_t Progress = makeSignal(Count);
  for (int I = 0; I < Count; ++I) {
    auto Q =
        I % 2 ? singleItemPacket(K, nullptr, Progress)
              : dispatchPacket(K, nullptr, 1, {64, 1, 1}, {8, 1, 1}, Progress);
    submitPacket(Other, &Q, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  }
  EXPECT_EQ(waitUntil(Progress, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(hsa_signal_load_relaxed(Blocked), 1);
  hsa_signal_store_screlease(Dep, 0);
  EXPECT_EQ(waitUntil(Blocked, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(hsa_queue_destroy(Other), HSA_STATUS_SUCCESS);
}

double processCpuSeconds() {
  rusage U;
  getrusage(RUSAGE_SELF, &U);
  return double(U.ru_utime.tv_sec + U.ru_stime.tv_sec) +
         double(U.ru_utime.tv_usec + U.ru_stime.tv_usec) * 1e-6;
}

// HSA Runtime 2.8.2 (barrier-AND), 2.6.1 (HSA_WAIT_STATE_BLOCKED): a barrier
// packet blocked on a dependency costs no CPU - the packet processor sleeps
// until the dependency changes - and neither does the host thread waiting
// for it. A resource check: the process must use well under the 300 ms of
// wall time.
TEST_F(DispatchOrdering, BlockedBarrierUsesNoCpu) {
  hsa_signal_t Dep = makeSignal(1), Barrier = makeSignal(1);
  auto B = barrierPacket({Dep}, Barrier);
  submitPacket(Queue, &B, packetHeader(HSA_PACKET_TYPE_BARRIER_AND));
  std::thread Waiter([&] { waitUntil(Barrier, HSA_SIGNAL_CONDITION_EQ, 0); });
  std::this_thread::sleep_for(20ms); // Let both settle into their sleep.
  const double Cpu0 = processCpuSeconds();
  const auto Wall0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(300ms);
  const double Cpu = processCpuSeconds() - Cpu0;
  const double Wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Wall0)
          .count();
  hsa_signal_store_screlease(Dep, 0);
  Waiter.join();
  EXPECT_EQ(hsa_signal_load_scacquire(Barrier), 0);
  RecordProperty("process_cpu_ms", std::to_string(Cpu * 1e3));
  EXPECT_LT(Cpu, 0.3 * Wall) << "the process used " << Cpu * 1e3
                             << " ms of CPU in " << Wall * 1e3 << " ms";
}

// HSA Runtime 2.8.1 (hsa_queue_inactivate): an inactivated queue abandons a
// barrier packet it was waiting on; satisfying it later runs nothing.
TEST_F(DispatchOrdering, InactivateAbandonsBlockedBarrier) {
  hsa_signal_t Dep = makeSignal(1), Barrier = makeSignal(1);
  auto B = barrierPacket({Dep}, Barrier);
  submitPacket(Queue, &B, packetHeader(HSA_PACKET_TYPE_BARRIER_AND));
  EXPECT_TRUE(staysAt(Barrier, 1));
  ASSERT_EQ(hsa_queue_inactivate(Queue), HSA_STATUS_SUCCESS);
  hsa_signal_store_screlease(Dep, 0);
  EXPECT_TRUE(staysAt(Barrier, 1)) << "an inactive queue completed a packet";
}

// HSA Runtime 2.8.1 (hsa_queue_destroy): a queue can be destroyed while a
// barrier packet in it waits on a signal; the signal stays usable and its
// later changes reach no destroyed queue.
TEST_F(DispatchOrdering, DestroyQueueWithBlockedBarrier) {
  hsa_signal_t Dep = makeSignal(1), Barrier = makeSignal(1);
  for (hsa_packet_type_t Type :
       {HSA_PACKET_TYPE_BARRIER_AND, HSA_PACKET_TYPE_BARRIER_OR}) {
    hsa_queue_t *Q = makeQueue(16);
    ASSERT_NE(Q, nullptr);
    auto B = barrierPacket({Dep}, Barrier);
    submitPacket(Q, &B, packetHeader(Type));
    EXPECT_TRUE(staysAt(Barrier, 1));
    ASSERT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
    for (int I = 0; I < 100; ++I)
      hsa_signal_store_screlease(Dep, I % 2);
    hsa_signal_store_screlease(Dep, 1);
  }
  EXPECT_EQ(hsa_signal_load_relaxed(Barrier), 1);
  // The agent's other queues still work, and the signal can still gate one.
  auto B = barrierPacket({Dep}, Barrier);
  submitPacket(Queue, &B, packetHeader(HSA_PACKET_TYPE_BARRIER_AND));
  hsa_signal_store_screlease(Dep, 0);
  EXPECT_EQ(waitUntil(Barrier, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(hsa_signal_destroy(Dep), HSA_STATUS_SUCCESS);
}

//===-- Agent dispatch ----------------------------------------------------===//

struct HandlerLog {
  std::atomic<int> Calls{0};
  std::atomic<int> LastType{-1};
  std::atomic<void *> LastData{nullptr};
};

hsa_status_t sumHandler(uint16_t Type, const uint64_t Args[4],
                        void *ReturnAddress, void *Data) {
  auto *Log = static_cast<HandlerLog *>(Data);
  Log->LastType = Type;
  Log->LastData = Data;
  *static_cast<uint64_t *>(ReturnAddress) =
      Args[0] + Args[1] + Args[2] + Args[3];
  Log->Calls.fetch_add(1);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t failingHandler(uint16_t, const uint64_t *, void *, void *) {
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_agent_dispatch_packet_t agentPacket(uint16_t Type, void *Return,
                                        hsa_signal_t Completion) {
  hsa_agent_dispatch_packet_t P;
  std::memset(&P, 0, sizeof(P));
  P.type = Type;
  P.return_address = Return;
  P.arg[0] = 1;
  P.arg[1] = 20;
  P.arg[2] = 300;
  P.arg[3] = 4000;
  P.completion_signal = Completion;
  return P;
}

// HSA Runtime 2.8.2 (agent dispatch packet): the handler installed for the
// packet's type runs with its arguments, writes the return address, and
// the completion signal is decremented. Agent dispatch packets go to the
// node's agent dispatch agent (feature HSA_AGENT_FEATURE_AGENT_DISPATCH),
// whose queues take barrier packets too.
TEST_F(Dispatch, AgentDispatchPackets) {
  hsa_queue_t *Q = makeQueue(16, nullptr, HSA_QUEUE_TYPE_MULTI, Host);
  ASSERT_NE(Q, nullptr);
  EXPECT_EQ(Q->features, uint32_t(HSA_QUEUE_FEATURE_AGENT_DISPATCH));
  HandlerLog Log;
  ASSERT_EQ(Ext.hsa_ext_openhsa_agent_dispatch_handler_set(Host, 0x8000,
                                                           sumHandler, &Log),
            HSA_STATUS_SUCCESS);
  constexpr int Count = 40;
  std::vector<uint64_t> Results(Count, 0);
  hsa_signal_t Done = makeSignal(Count + 1);
  for (int I = 0; I < Count; ++I) {
    auto P = agentPacket(0x8000, &Results[I], Done);
    P.arg[0] = uint64_t(I);
    submitPacket(Q, &P, packetHeader(HSA_PACKET_TYPE_AGENT_DISPATCH));
    if (I == Count / 2) { // A barrier among them.
      auto B = barrierPacket({}, Done);
      submitPacket(Q, &B, packetHeader(HSA_PACKET_TYPE_BARRIER_AND, true));
    }
  }
  ASSERT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(Log.Calls.load(), Count);
  EXPECT_EQ(Log.LastType.load(), 0x8000);
  EXPECT_EQ(Log.LastData.load(), &Log);
  for (int I = 0; I < Count; ++I)
    EXPECT_EQ(Results[I], uint64_t(I) + 4320) << I;
  EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
}

// HSA Runtime 2.8.2, hsa_queue_feature_t: a queue takes the dispatch
// packets of its agent's feature. The kernel agent's queues report an
// agent dispatch packet, the agent dispatch agent's a kernel dispatch
// packet, as INVALID_PACKET_FORMAT.
TEST_F(DispatchErrors, PacketsOfTheOtherAgent) {
  HandlerLog Log;
  ASSERT_EQ(Ext.hsa_ext_openhsa_agent_dispatch_handler_set(Host, 0x8001,
                                                           sumHandler, &Log),
            HSA_STATUS_SUCCESS);
  uint64_t Result = 0;
  auto A = agentPacket(0x8001, &Result, hsa_signal_t{0});
  expectQueueError(&A, packetHeader(HSA_PACKET_TYPE_AGENT_DISPATCH),
                   HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, Cpu);
  EXPECT_EQ(Log.Calls.load(), 0);
  const uint64_t K = makeKernel(emptyKernel);
  auto P = singleItemPacket(K, nullptr, hsa_signal_t{0});
  expectQueueError(&P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH),
                   HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, Host);
}

//===-- Errors reported through the queue callback ------------------------===//

// HSA Runtime 2.8.1 (queue callback), 2.8.2: packets of a type the agent does
// not know are INVALID_PACKET_FORMAT: a vendor-specific packet of another
// vendor, a reserved type value.
TEST_F(DispatchErrors, InvalidPacketType) {
  hsa_barrier_and_packet_t P = barrierPacket({}, hsa_signal_t{0});
  expectQueueError(&P, HSA_PACKET_TYPE_VENDOR_SPECIFIC,
                   HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
  expectQueueError(&P, 7, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
  expectQueueError(&P, 0xff, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
}

// HSA Runtime 2.8.2: an agent dispatch packet whose type has no handler
// (or whose handler fails) is reported.
TEST_F(DispatchErrors, AgentDispatchWithoutHandler) {
  uint64_t Result = 0;
  auto P = agentPacket(0x8123, &Result, hsa_signal_t{0});
  expectQueueError(&P, packetHeader(HSA_PACKET_TYPE_AGENT_DISPATCH),
                   HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, Host);
  ASSERT_EQ(Ext.hsa_ext_openhsa_agent_dispatch_handler_set(
                Host, 0x8124, failingHandler, nullptr),
            HSA_STATUS_SUCCESS);
  P.type = 0x8124;
  expectQueueError(&P, packetHeader(HSA_PACKET_TYPE_AGENT_DISPATCH),
                   HSA_STATUS_ERROR_INVALID_ARGUMENT, Host);
  // A handler removed again is unknown again.
  HandlerLog Log;
  ASSERT_EQ(Ext.hsa_ext_openhsa_agent_dispatch_handler_set(Host, 0x8125,
                                                           sumHandler, &Log),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(Ext.hsa_ext_openhsa_agent_dispatch_handler_set(Host, 0x8125,
                                                           nullptr, nullptr),
            HSA_STATUS_SUCCESS);
  P.type = 0x8125;
  expectQueueError(&P, packetHeader(HSA_PACKET_TYPE_AGENT_DISPATCH),
                   HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, Host);
  EXPECT_EQ(Log.Calls.load(), 0);
}

// HSA Runtime 2.8.2: dimensions must be 1 to 3 (the setup field is two bits:
// 4 reads as 0). 0 is reported as INCOMPATIBLE_ARGUMENTS, as the HSA
// Foundation conformance suite (async_invalid_dimensions, setup 4) expects;
// the 1.2 text names no status for it. Unused dimensions of a non-empty
// grid must be 1 (0 there is no empty grid: the dimension is not used).
TEST_F(DispatchErrors, BadDimensions) {
  const uint64_t K = makeKernel(emptyKernel);
  const uint16_t H = packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH);
  auto P = singleItemPacket(K, nullptr, hsa_signal_t{0});
  P.setup = 0;
  expectQueueError(&P, H, HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  P.setup = 4;
  expectQueueError(&P, H, HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  // The conformance suite's packet: barrier bit, no kernarg, no signal.
  P.kernarg_address = nullptr;
  P.completion_signal = hsa_signal_t{0};
  expectQueueError(&P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH, true),
                   HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  auto Unused =
      dispatchPacket(K, nullptr, 1, {8, 2, 1}, {8, 1, 1}, hsa_signal_t{0});
  expectQueueError(&Unused, H, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
  auto UnusedZero =
      dispatchPacket(K, nullptr, 2, {8, 8, 0}, {8, 1, 1}, hsa_signal_t{0});
  expectQueueError(&UnusedZero, H, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
}

// HSA Runtime 2.8.2: work-group sizes above the agent's limits (per
// dimension, HSA_AGENT_INFO_WORKGROUP_MAX_DIM, or in total,
// HSA_AGENT_INFO_WORKGROUP_MAX_SIZE). A size of 0 in an unused dimension is
// an error; in a used one it makes an empty grid (ZeroSizedGridRunsNoWorkItem).
TEST_F(DispatchErrors, BadWorkGroupSize) {
  std::array<uint16_t, 3> MaxDim{};
  uint32_t MaxSize = 0;
  ASSERT_EQ(
      hsa_agent_get_info(Cpu, HSA_AGENT_INFO_WORKGROUP_MAX_DIM, MaxDim.data()),
      HSA_STATUS_SUCCESS);
  ASSERT_EQ(
      hsa_agent_get_info(Cpu, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE, &MaxSize),
      HSA_STATUS_SUCCESS);
  const uint64_t K = makeKernel(emptyKernel);
  const uint16_t H = packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH);
  const hsa_signal_t None{0};
  auto ZeroZ = dispatchPacket(K, nullptr, 2, {64, 4, 1}, {4, 4, 0}, None);
  expectQueueError(&ZeroZ, H, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
  if (MaxDim[0] < UINT16_MAX) {
    auto TooWide = dispatchPacket(K, nullptr, 1, {1u << 20, 1, 1},
                                  {uint16_t(MaxDim[0] + 1), 1, 1}, None);
    expectQueueError(&TooWide, H, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
  }
  // Each dimension within its limit, the product above the total limit.
  uint16_t Side = 1;
  while (uint64_t(Side) * Side <= MaxSize && Side < MaxDim[1])
    Side *= 2;
  if (uint64_t(Side) * Side > MaxSize && Side <= MaxDim[0] &&
      Side <= MaxDim[1]) {
    auto TooMany =
        dispatchPacket(K, nullptr, 2, {Side, Side, 1}, {Side, Side, 1}, None);
    expectQueueError(&TooMany, H, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
  }
  // The limits themselves are fine.
  hsa_signal_t Done = makeSignal(1);
  auto Largest = dispatchPacket(
      K, nullptr, 1, {MaxSize * 2, 1, 1},
      {uint16_t(std::min<uint32_t>(MaxSize, MaxDim[0])), 1, 1}, Done);
  submitPacket(Queue, &Largest, H);
  EXPECT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
}

// HSA Runtime 2.8.2 (kernel_object): a kernel object that names no kernel -
// an arbitrary address, 0, a destroyed kernel - is reported, not followed.
TEST_F(DispatchErrors, UnknownKernelObject) {
  const uint16_t H = packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH);
  auto P = singleItemPacket(0x1234, nullptr, hsa_signal_t{0});
  expectQueueError(&P, H, HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  P.kernel_object = 0;
  expectQueueError(&P, H, HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  alignas(64) static char NotAKernel[256] = {};
  P.kernel_object = reinterpret_cast<uintptr_t>(NotAKernel);
  expectQueueError(&P, H, HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  const uint64_t K = makeKernel(emptyKernel);
  ASSERT_EQ(Ext.hsa_ext_openhsa_native_kernel_destroy(K), HSA_STATUS_SUCCESS);
  P.kernel_object = K;
  expectQueueError(&P, H, HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
}

// HSA Runtime 2.8.2 (group_segment_size, private_segment_size): a dispatch
// asking for more group memory than the group region's
// HSA_REGION_INFO_ALLOC_MAX_SIZE, or for too much private memory, cannot be
// allocated.
TEST_F(DispatchErrors, SegmentsTooLarge) {
  size_t GroupMax = 0;
  ASSERT_EQ(hsa_region_get_info(Regions.Group, HSA_REGION_INFO_ALLOC_MAX_SIZE,
                                &GroupMax),
            HSA_STATUS_SUCCESS);
  const uint64_t K = makeKernel(emptyKernel);
  const uint16_t H = packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH);
  auto P = dispatchPacket(K, nullptr, 1, {64, 1, 1}, {64, 1, 1},
                          hsa_signal_t{0}, uint32_t(GroupMax + 1));
  expectQueueError(&P, H, HSA_STATUS_ERROR_INVALID_ALLOCATION);
  P = dispatchPacket(K, nullptr, 1, {64, 1, 1}, {64, 1, 1}, hsa_signal_t{0}, 0,
                     UINT32_MAX - 1);
  expectQueueError(&P, H, HSA_STATUS_ERROR_INVALID_ALLOCATION);
  // A kernel whose own static need is too large.
  const uint64_t Big =
      makeKernel(emptyKernel, 0, nullptr, uint32_t(GroupMax + 64));
  P = dispatchPacket(Big, nullptr, 1, {64, 1, 1}, {64, 1, 1}, hsa_signal_t{0});
  expectQueueError(&P, H, HSA_STATUS_ERROR_INVALID_ALLOCATION);
  // Exactly the maximum works.
  hsa_signal_t Done = makeSignal(1);
  P = dispatchPacket(K, nullptr, 1, {64, 1, 1}, {64, 1, 1}, Done,
                     uint32_t(GroupMax));
  submitPacket(Queue, &P, H);
  EXPECT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
}

// HSA Runtime 2.8.2: completion and dependency signals must be signals.
TEST_F(DispatchErrors, InvalidSignals) {
  const uint64_t K = makeKernel(emptyKernel);
  alignas(64) static char NotASignal[64] = {};
  const hsa_signal_t Bogus{reinterpret_cast<uintptr_t>(NotASignal)};
  auto P = singleItemPacket(K, nullptr, Bogus);
  expectQueueError(&P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH),
                   HSA_STATUS_ERROR_INVALID_SIGNAL);
  auto B = barrierPacket({Bogus}, hsa_signal_t{0});
  expectQueueError(&B, packetHeader(HSA_PACKET_TYPE_BARRIER_AND),
                   HSA_STATUS_ERROR_INVALID_SIGNAL);
  auto C = barrierPacket({}, Bogus);
  expectQueueError(&C, packetHeader(HSA_PACKET_TYPE_BARRIER_OR),
                   HSA_STATUS_ERROR_INVALID_SIGNAL);
}

struct DestroyingLog {
  std::atomic<int> Calls{0};
  std::atomic<int> DestroyStatus{-1};
  hsa_signal_t Raised{0};
};

/// A queue callback that destroys the queue it reports on.
void destroyOnError(hsa_status_t, hsa_queue_t *Source, void *Data) {
  auto *Log = static_cast<DestroyingLog *>(Data);
  Log->Calls.fetch_add(1);
  Log->DestroyStatus = hsa_queue_destroy(Source);
  hsa_signal_store_screlease(Log->Raised, 1);
}

// HSA Runtime 2.8.1: the queue callback may destroy the queue that reported
// the error (the runtime calls it from its packet processor).
TEST_F(DispatchErrors, CallbackMayDestroyItsQueue) {
  static DestroyingLog Log; // Outlives the runtime's use of it.
  Log.Calls = 0;
  Log.DestroyStatus = -1;
  Log.Raised = makeSignal(0);
  hsa_queue_t *Q = nullptr;
  ASSERT_EQ(hsa_queue_create(Cpu, 16, HSA_QUEUE_TYPE_MULTI, destroyOnError,
                             &Log, UINT32_MAX, UINT32_MAX, &Q),
            HSA_STATUS_SUCCESS);
  auto P = singleItemPacket(0x1234, nullptr, hsa_signal_t{0});
  submitPacket(Q, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  ASSERT_EQ(waitUntil(Log.Raised, HSA_SIGNAL_CONDITION_EQ, 1), 1);
  EXPECT_EQ(Log.Calls.load(), 1);
  EXPECT_EQ(Log.DestroyStatus.load(), int(HSA_STATUS_SUCCESS));
  EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_ERROR_INVALID_QUEUE);
  // The processor carries on with the other queues.
  hsa_signal_t Done = makeSignal(1);
  const uint64_t K = makeKernel(emptyKernel);
  auto Good = singleItemPacket(K, nullptr, Done);
  submitPacket(Queue, &Good, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  EXPECT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
}

// HSA Runtime 2.8.1: a queue created without a callback still stops at an
// invalid packet (nobody is told), and the process carries on.
TEST_F(DispatchErrors, ErrorWithoutCallback) {
  hsa_queue_t *Q = makeQueue(16);
  ASSERT_NE(Q, nullptr);
  auto Bad = singleItemPacket(0x1234, nullptr, hsa_signal_t{0});
  submitPacket(Q, &Bad, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  hsa_signal_t After = makeSignal(1);
  auto B = barrierPacket({}, After);
  submitPacket(Q, &B, packetHeader(HSA_PACKET_TYPE_BARRIER_AND));
  EXPECT_TRUE(staysAt(After, 1)) << "packets after the invalid one ran";
  EXPECT_EQ(hsa_queue_load_read_index_scacquire(Q), 0u);
  hsa_signal_t Good = makeSignal(1);
  auto G = barrierPacket({}, Good);
  submitPacket(Queue, &G, packetHeader(HSA_PACKET_TYPE_BARRIER_AND));
  EXPECT_EQ(waitUntil(Good, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
}

// HSA Runtime 2.8.2 (kernarg_address): a kernel that takes arguments
// cannot run without a kernarg block.
TEST_F(DispatchErrors, MissingKernarg) {
  const uint64_t K = makeKernel(emptyKernel, 16);
  auto P = singleItemPacket(K, nullptr, hsa_signal_t{0});
  expectQueueError(&P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH),
                   HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

// An error on one queue leaves work already running elsewhere and later
// work on other queues unaffected.
TEST_F(DispatchErrors, OtherQueuesKeepWorking) {
  ErrorLog &Log = errorLog();
  hsa_queue_t *Bad = makeQueue(16, &Log);
  ASSERT_NE(Bad, nullptr);
  const uint64_t K = makeKernel(emptyKernel);
  hsa_signal_t Done = makeSignal(200);
  for (int I = 0; I < 100; ++I) {
    auto P = dispatchPacket(K, nullptr, 1, {256, 1, 1}, {16, 1, 1}, Done);
    submitPacket(Queue, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  }
  auto Broken = singleItemPacket(0x1234, nullptr, hsa_signal_t{0});
  submitPacket(Bad, &Broken, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  for (int I = 0; I < 100; ++I) {
    auto P = singleItemPacket(K, nullptr, Done);
    submitPacket(Queue, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  }
  EXPECT_EQ(waitUntil(Log.Raised, HSA_SIGNAL_CONDITION_EQ, 1), 1);
  EXPECT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(Log.LastStatus.load(), int(HSA_STATUS_ERROR_INVALID_CODE_OBJECT));
  // A new queue works too.
  hsa_queue_t *Fresh = makeQueue(16);
  hsa_signal_t FreshDone = makeSignal(1);
  auto P = singleItemPacket(K, nullptr, FreshDone);
  submitPacket(Fresh, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  EXPECT_EQ(waitUntil(FreshDone, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(hsa_queue_destroy(Bad), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_queue_destroy(Fresh), HSA_STATUS_SUCCESS);
}

} // namespace
} // namespace openhsa::test
