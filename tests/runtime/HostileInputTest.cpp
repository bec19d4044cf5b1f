//===- tests/runtime/HostileInputTest.cpp - What a buggy program submits --===//
//
// HSA Runtime 2.6-2.9 against a program that gets things wrong: packet
// fields naming destroyed or never-created signals in every position of
// every packet type, reserved fields and reserved fence scopes, and handles
// of every kind that were destroyed, never created, left over from before
// hsa_shut_down, or live objects of another kind. Each gets an error (or,
// where the API has no status, no effect), never a crash or a hang. The
// cases DispatchTest, QueueTest, SignalTest, AgentTest, MemoryTest and
// tests/executable already cover one by one are not repeated here.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "hsa/hsa_ext_finalize.h"

#include <functional>
#include <string>

namespace openhsa::test {
namespace {

void emptyKernel(const void *, const hsa_ext_openhsa_dispatch_context_t *,
                 uint32_t, uint32_t, uint32_t) {}

struct HandlerCalls {
  std::atomic<int> Count{0};
  std::atomic<void *> ReturnAddress{nullptr};
};

hsa_status_t recordingHandler(uint16_t, const uint64_t *, void *Return,
                              void *Data) {
  auto *Calls = static_cast<HandlerCalls *>(Data);
  Calls->ReturnAddress.store(Return);
  Calls->Count.fetch_add(1);
  return HSA_STATUS_SUCCESS;
}

class Hostile : public RuntimeTest {
protected:
  /// Submits Packet to a fresh queue of Agent (the kernel agent by default)
  /// and waits for the error the queue reports; Expected, once.
  void expectError(const void *Packet, uint16_t Header, hsa_status_t Expected,
                   const std::string &What, hsa_agent_t Agent = {0}) {
    SCOPED_TRACE(What);
    ErrorLog &Log = errorLog();
    hsa_queue_t *Q = makeQueue(16, &Log, HSA_QUEUE_TYPE_MULTI, Agent);
    ASSERT_NE(Q, nullptr);
    submitPacket(Q, Packet, Header);
    ASSERT_EQ(waitUntil(Log.Raised, HSA_SIGNAL_CONDITION_GTE, 1), 1)
        << "no error reported";
    EXPECT_EQ(Log.LastStatus.load(), int(Expected))
        << "got 0x" << std::hex << Log.LastStatus.load();
    EXPECT_EQ(Log.Count.load(), 1);
    EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
  }

  /// Submits Packet to a fresh queue and waits for Completion to reach 0
  /// with no error reported.
  void expectCompletion(const void *Packet, uint16_t Header,
                        hsa_signal_t Completion, const std::string &What,
                        hsa_agent_t Agent = {0}) {
    SCOPED_TRACE(What);
    ErrorLog &Log = errorLog();
    hsa_queue_t *Q = makeQueue(16, &Log, HSA_QUEUE_TYPE_MULTI, Agent);
    ASSERT_NE(Q, nullptr);
    submitPacket(Q, Packet, Header);
    EXPECT_EQ(waitUntil(Completion, HSA_SIGNAL_CONDITION_EQ, 0), 0);
    EXPECT_EQ(Log.Count.load(), 0)
        << "error 0x" << std::hex << Log.LastStatus.load();
    EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
  }

  /// Signal handles that name no live signal: destroyed, inside a live
  /// signal, a queue's hsa_queue_t, a kernel object, a static buffer.
  std::vector<std::pair<std::string, hsa_signal_t>> deadSignals() {
    hsa_signal_t Destroyed = makeSignal(1);
    EXPECT_EQ(hsa_signal_destroy(Destroyed), HSA_STATUS_SUCCESS);
    Live = makeSignal(1);
    alignas(64) static char NotASignal[128] = {};
    return {{"destroyed", Destroyed},
            {"inside a live signal", hsa_signal_t{Live.handle + 8}},
            {"a queue", hsa_signal_t{reinterpret_cast<uintptr_t>(liveQueue())}},
            {"a kernel object", hsa_signal_t{makeKernel(emptyKernel)}},
            {"a static buffer",
             hsa_signal_t{reinterpret_cast<uintptr_t>(NotASignal)}}};
  }

  hsa_queue_t *liveQueue() {
    if (!Q0)
      Q0 = makeQueue(16);
    return Q0;
  }

  hsa_signal_t Live{0};
  hsa_queue_t *Q0 = nullptr;
};

hsa_agent_dispatch_packet_t agentPacket(uint16_t Type, void *Return,
                                        hsa_signal_t Completion) {
  hsa_agent_dispatch_packet_t P;
  std::memset(&P, 0, sizeof(P));
  P.type = Type;
  P.return_address = Return;
  P.completion_signal = Completion;
  return P;
}

// HSA Runtime 2.8.2: a completion signal of any packet type, and each of the
// five dependency signals of the barrier packets, that names no live signal
// is INVALID_SIGNAL; the packet is not processed.
TEST_F(Hostile, DeadSignalsInEveryPacketTypeAndPosition) {
  HandlerCalls Calls;
  ASSERT_EQ(Ext.hsa_ext_openhsa_agent_dispatch_handler_set(
                Host, 0x8200, recordingHandler, &Calls),
            HSA_STATUS_SUCCESS);
  const uint64_t K = makeKernel(emptyKernel);
  for (const auto &[Name, Dead] : deadSignals()) {
    auto D = singleItemPacket(K, nullptr, Dead);
    expectError(&D, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH),
                HSA_STATUS_ERROR_INVALID_SIGNAL, "kernel dispatch, " + Name);
    auto A = agentPacket(0x8200, nullptr, Dead);
    expectError(&A, packetHeader(HSA_PACKET_TYPE_AGENT_DISPATCH),
                HSA_STATUS_ERROR_INVALID_SIGNAL, "agent dispatch, " + Name,
                Host);
    for (auto Type :
         {HSA_PACKET_TYPE_BARRIER_AND, HSA_PACKET_TYPE_BARRIER_OR}) {
      const std::string Kind =
          Type == HSA_PACKET_TYPE_BARRIER_AND ? "barrier-AND" : "barrier-OR";
      auto B = barrierPacket({}, Dead);
      expectError(&B, packetHeader(Type), HSA_STATUS_ERROR_INVALID_SIGNAL,
                  Kind + " completion, " + Name);
      for (int Slot = 0; Slot < 5; ++Slot) {
        auto Dep = barrierPacket({}, hsa_signal_t{0});
        Dep.dep_signal[Slot] = Dead;
        expectError(&Dep, packetHeader(Type), HSA_STATUS_ERROR_INVALID_SIGNAL,
                    Kind + " dep_signal[" + std::to_string(Slot) + "], " +
                        Name);
      }
    }
  }
  EXPECT_EQ(Calls.Count.load(), 0) << "a handler ran for a refused packet";
}

// HSA Runtime 2.8.2: a kernel whose kernarg segment is not empty needs a
// kernarg address (the runtime does not follow a null one).
TEST_F(Hostile, NullKernargForAKernelWithArguments) {
  const uint64_t K = makeKernel(emptyKernel, 32);
  auto P = singleItemPacket(K, nullptr, hsa_signal_t{0});
  expectError(&P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH),
              HSA_STATUS_ERROR_INVALID_ARGUMENT, "null kernarg");
}

// HSA Runtime 2.8.1: reserved fields are the producer's to leave 0; a
// producer that writes garbage there gets the packet processed as if they
// were 0 (openhsa reads no reserved field). The reserved fence scope value
// (3) is taken as a system-scope fence, the strongest. The return address of
// an agent dispatch packet reaches its handler untouched, garbage or not.
TEST_F(Hostile, ReservedFieldsAndFenceScopesAreIgnored) {
  const uint64_t K = makeKernel(emptyKernel);
  const uint16_t ReservedScopes =
      uint16_t((3u << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
               (3u << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
  hsa_signal_t Done = makeSignal(1);
  auto D = singleItemPacket(K, nullptr, Done);
  D.reserved0 = 0xffff;
  D.reserved2 = ~0ull;
  D.setup |= 0xfffc; // Bits above the dimensions are reserved.
  expectCompletion(&D,
                   uint16_t(packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH) |
                            ReservedScopes | 0xe000), // Reserved header bits.
                   Done, "kernel dispatch");

  for (auto Type : {HSA_PACKET_TYPE_BARRIER_AND, HSA_PACKET_TYPE_BARRIER_OR}) {
    hsa_signal_store_relaxed(Done, 1);
    auto B = barrierPacket({}, Done);
    B.reserved0 = 0xffff;
    B.reserved1 = ~0u;
    B.reserved2 = ~0ull;
    expectCompletion(&B, uint16_t(packetHeader(Type) | ReservedScopes), Done,
                     "barrier " + std::to_string(Type));
  }

  HandlerCalls Calls;
  ASSERT_EQ(Ext.hsa_ext_openhsa_agent_dispatch_handler_set(
                Host, 0x8201, recordingHandler, &Calls),
            HSA_STATUS_SUCCESS);
  hsa_signal_store_relaxed(Done, 1);
  void *Garbage = reinterpret_cast<void *>(uintptr_t(0xdead0000beefull));
  auto A = agentPacket(0x8201, Garbage, Done);
  A.reserved0 = ~0u;
  A.reserved2 = ~0ull;
  expectCompletion(
      &A,
      uint16_t(packetHeader(HSA_PACKET_TYPE_AGENT_DISPATCH) | ReservedScopes),
      Done, "agent dispatch", Host);
  EXPECT_EQ(Calls.Count.load(), 1);
  EXPECT_EQ(Calls.ReturnAddress.load(), Garbage);
}

// HSA Runtime 2.6.1: the signal value operations have no status to return:
// on a destroyed signal (and on memory that is not a signal) they do
// nothing, loads return 0, and waits return at once instead of waiting for a
// value nobody can set any more. Reading a destroyed signal's memory must
// not be a use after free (the AddressSanitizer build checks that).
TEST_F(Hostile, ValueOperationsOnDestroyedSignalsDoNothing) {
  for (const auto &[Name, Dead] : deadSignals()) {
    if (Name == "a queue" || Name == "a kernel object")
      continue; // Live objects of other kinds: not written to, not read.
    SCOPED_TRACE(Name);
    EXPECT_EQ(hsa_signal_load_relaxed(Dead), 0);
    EXPECT_EQ(hsa_signal_load_scacquire(Dead), 0);
    hsa_signal_store_relaxed(Dead, 5);
    hsa_signal_store_screlease(Dead, 5);
    hsa_signal_silent_store_relaxed(Dead, 5);
    EXPECT_EQ(hsa_signal_exchange_scacq_screl(Dead, 7), 0);
    EXPECT_EQ(hsa_signal_cas_scacq_screl(Dead, 0, 9), 0);
    hsa_signal_add_scacq_screl(Dead, 1);
    hsa_signal_subtract_relaxed(Dead, 1);
    hsa_signal_and_screlease(Dead, 1);
    hsa_signal_or_scacquire(Dead, 1);
    hsa_signal_xor_relaxed(Dead, 1);
    const auto Start = std::chrono::steady_clock::now();
    EXPECT_EQ(hsa_signal_wait_scacquire(Dead, HSA_SIGNAL_CONDITION_EQ, 42,
                                        UINT64_MAX, HSA_WAIT_STATE_BLOCKED),
              0);
    EXPECT_LT(std::chrono::steady_clock::now() - Start, std::chrono::seconds(5))
        << "a wait on a dead signal waited";
    EXPECT_EQ(hsa_signal_load_relaxed(Dead), 0) << "a store took effect";
    EXPECT_EQ(hsa_signal_destroy(Dead), HSA_STATUS_ERROR_INVALID_SIGNAL);
  }
  // The live signal the handles pointed into is untouched.
  EXPECT_EQ(hsa_signal_load_relaxed(Live), 1);
}

// HSA Runtime 2.6.2, 2.8.1: signal groups and queues, destroyed or never
// created, and signal groups of dead signals.
TEST_F(Hostile, DeadSignalGroupsAndQueues) {
  hsa_signal_t S = makeSignal(0);
  hsa_signal_group_t G{0};
  ASSERT_EQ(hsa_signal_group_create(1, &S, 1, &Cpu, &G), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_signal_group_destroy(G), HSA_STATUS_SUCCESS);
  const hsa_signal_condition_t Eq = HSA_SIGNAL_CONDITION_EQ;
  const hsa_signal_value_t Zero = 0;
  hsa_signal_t Which{0};
  hsa_signal_value_t Value = 0;
  for (hsa_signal_group_t Bad :
       {G, hsa_signal_group_t{0x1234}, hsa_signal_group_t{S.handle}}) {
    EXPECT_EQ(hsa_signal_group_destroy(Bad),
              HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP);
    EXPECT_EQ(hsa_signal_group_wait_any_scacquire(
                  Bad, &Eq, &Zero, HSA_WAIT_STATE_BLOCKED, &Which, &Value),
              HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP);
    EXPECT_EQ(hsa_signal_group_wait_any_relaxed(
                  Bad, &Eq, &Zero, HSA_WAIT_STATE_ACTIVE, &Which, &Value),
              HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP);
  }
  for (const auto &[Name, Dead] : deadSignals()) {
    hsa_signal_group_t Untouched{0x5678};
    EXPECT_EQ(hsa_signal_group_create(1, &Dead, 1, &Cpu, &Untouched),
              HSA_STATUS_ERROR_INVALID_SIGNAL)
        << Name;
    EXPECT_EQ(Untouched.handle, 0x5678u) << Name;
    hsa_queue_t *Q = nullptr;
    EXPECT_EQ(hsa_soft_queue_create(Regions.Fine, 16, HSA_QUEUE_TYPE_MULTI,
                                    HSA_QUEUE_FEATURE_AGENT_DISPATCH, Dead, &Q),
              HSA_STATUS_ERROR_INVALID_SIGNAL)
        << Name;
  }
  // Queues: destroyed, a signal's address, a static buffer.
  hsa_queue_t *Gone = makeQueue(16);
  ASSERT_EQ(hsa_queue_destroy(Gone), HSA_STATUS_SUCCESS);
  alignas(64) static char NotAQueue[128] = {};
  for (hsa_queue_t *Bad : {Gone, reinterpret_cast<hsa_queue_t *>(S.handle),
                           reinterpret_cast<hsa_queue_t *>(NotAQueue)}) {
    EXPECT_EQ(hsa_queue_destroy(Bad), HSA_STATUS_ERROR_INVALID_QUEUE);
    EXPECT_EQ(hsa_queue_inactivate(Bad), HSA_STATUS_ERROR_INVALID_QUEUE);
  }
}

// HSA Runtime 2.3-2.9, 2.9 of the finalizer extension: a live object of one
// kind passed where another kind is expected is that kind's INVALID_*.
TEST_F(Hostile, LiveHandlesOfAnotherKind) {
  hsa_signal_t S = makeSignal(0);
  hsa_isa_t Isa{0};
  ASSERT_EQ(hsa_agent_get_info(Cpu, HSA_AGENT_INFO_ISA, &Isa),
            HSA_STATUS_SUCCESS);
  hsa_executable_t E{0};
  ASSERT_EQ(hsa_executable_create_alt(HSA_PROFILE_FULL,
                                      HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR,
                                      nullptr, &E),
            HSA_STATUS_SUCCESS);
  hsa_ext_program_t P{0};
  ASSERT_EQ(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, HSA_PROFILE_FULL,
                                   HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                   nullptr, &P),
            HSA_STATUS_SUCCESS);
  // Every live handle, as its bits.
  const std::vector<std::pair<std::string, uint64_t>> Others = {
      {"signal", S.handle},
      {"agent", Cpu.handle},
      {"region", Regions.Fine.handle},
      {"isa", Isa.handle},
      {"executable", E.handle},
      {"program", P.handle},
      {"queue", reinterpret_cast<uintptr_t>(liveQueue())}};
  char Info[256];
  for (const auto &[Name, H] : Others) {
    SCOPED_TRACE("a live " + Name);
    if (Name != "agent") {
      EXPECT_EQ(hsa_agent_get_info(hsa_agent_t{H}, HSA_AGENT_INFO_NAME, Info),
                HSA_STATUS_ERROR_INVALID_AGENT);
    }
    if (Name != "region") {
      EXPECT_EQ(
          hsa_region_get_info(hsa_region_t{H}, HSA_REGION_INFO_SEGMENT, Info),
          HSA_STATUS_ERROR_INVALID_REGION);
    }
    if (Name != "isa") {
      EXPECT_EQ(hsa_isa_get_info_alt(hsa_isa_t{H}, HSA_ISA_INFO_NAME, Info),
                HSA_STATUS_ERROR_INVALID_ISA);
    }
    EXPECT_EQ(hsa_cache_get_info(hsa_cache_t{H}, HSA_CACHE_INFO_SIZE, Info),
              HSA_STATUS_ERROR_INVALID_CACHE);
    EXPECT_EQ(hsa_wavefront_get_info(hsa_wavefront_t{H},
                                     HSA_WAVEFRONT_INFO_SIZE, Info),
              HSA_STATUS_ERROR_INVALID_WAVEFRONT);
    if (Name != "executable") {
      EXPECT_EQ(hsa_executable_get_info(hsa_executable_t{H},
                                        HSA_EXECUTABLE_INFO_STATE, Info),
                HSA_STATUS_ERROR_INVALID_EXECUTABLE);
    }
    EXPECT_EQ(hsa_executable_symbol_get_info(hsa_executable_symbol_t{H},
                                             HSA_EXECUTABLE_SYMBOL_INFO_TYPE,
                                             Info),
              HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL);
    if (Name != "program") {
      // An extension's status (0x2000 and up) is not a value of the C enum
      // hsa_status_t: compared as an integer (UBSan's enum check).
      EXPECT_EQ(int(hsa_ext_program_get_info(
                    hsa_ext_program_t{H}, HSA_EXT_PROGRAM_INFO_PROFILE, Info)),
                HSA_EXT_STATUS_ERROR_INVALID_PROGRAM);
    }
    EXPECT_EQ(hsa_code_object_reader_destroy(hsa_code_object_reader_t{H}),
              HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
    EXPECT_EQ(hsa_code_object_destroy(hsa_code_object_t{H}),
              HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
    if (Name != "signal") {
      EXPECT_EQ(hsa_signal_destroy(hsa_signal_t{H}),
                HSA_STATUS_ERROR_INVALID_SIGNAL);
    }
    EXPECT_EQ(hsa_signal_group_destroy(hsa_signal_group_t{H}),
              HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP);
    if (Name != "queue") {
      EXPECT_EQ(hsa_queue_destroy(reinterpret_cast<hsa_queue_t *>(H)),
                HSA_STATUS_ERROR_INVALID_QUEUE);
    }
  }
  // The objects survived being named wrongly.
  EXPECT_EQ(hsa_ext_program_destroy(P), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_signal_destroy(S), HSA_STATUS_SUCCESS);
}

// HSA Runtime 2.1: handles from before hsa_shut_down name nothing after the
// next hsa_init unless a new object of the same kind took the same address
// (then they name that object). Either way: a status, never a crash. Signal
// value operations on a signal of the old runtime do nothing.
TEST_F(Hostile, HandlesFromBeforeShutDown) {
  hsa_signal_t S = makeSignal(3);
  hsa_queue_t *Q = makeQueue(16);
  hsa_isa_t Isa{0};
  ASSERT_EQ(hsa_agent_get_info(Cpu, HSA_AGENT_INFO_ISA, &Isa),
            HSA_STATUS_SUCCESS);
  const hsa_agent_t OldCpu = Cpu;
  const hsa_region_t OldRegion = Regions.Fine;
  ASSERT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);

  auto StatusOrSuccess = [](hsa_status_t Got, hsa_status_t Invalid) {
    return Got == HSA_STATUS_SUCCESS || Got == Invalid;
  };
  char Info[256];
  EXPECT_TRUE(
      StatusOrSuccess(hsa_agent_get_info(OldCpu, HSA_AGENT_INFO_NAME, Info),
                      HSA_STATUS_ERROR_INVALID_AGENT));
  EXPECT_TRUE(StatusOrSuccess(
      hsa_region_get_info(OldRegion, HSA_REGION_INFO_SEGMENT, Info),
      HSA_STATUS_ERROR_INVALID_REGION));
  EXPECT_TRUE(
      StatusOrSuccess(hsa_isa_get_info_alt(Isa, HSA_ISA_INFO_NAME, Info),
                      HSA_STATUS_ERROR_INVALID_ISA));
  EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_ERROR_INVALID_QUEUE);
  EXPECT_EQ(hsa_signal_load_relaxed(S), 0);
  hsa_signal_store_relaxed(S, 1);
  EXPECT_EQ(hsa_signal_destroy(S), HSA_STATUS_ERROR_INVALID_SIGNAL);
}

} // namespace
} // namespace openhsa::test
