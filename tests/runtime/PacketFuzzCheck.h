//===- tests/runtime/PacketFuzzCheck.h - Random AQL packets on a queue ----===//
//
// Part of openhsa. The path fuzz_packets drives and PacketFuzzTest replays on
// tests/runtime/fuzz_regressions/*: the input bytes become up to 16 AQL
// packets, every field of each taken from the input (header: type, barrier
// bit, fence scopes; setup dimensions, work-group and grid sizes, segment
// sizes, reserved fields, agent dispatch type and arguments), with the
// handle fields chosen from pools of real and bogus objects:
//   - kernel objects: native kernels that run (one with a kernarg segment,
//     one with group and private segments), a destroyed one, 0, a signal, a
//     random value;
//   - completion and dependency signals: live ones, destroyed ones, never
//     created ones (random, misaligned, the address of a non-signal);
//   - kernarg pointers: kernarg memory, null, garbage (the kernels here never
//     follow theirs: a kernel that faults is the fault containment's
//     business, not this harness's).
// They go to a fresh queue of the CPU kernel agent or of its agent dispatch
// agent (single or multi producer, a random size), published one by one or
// under one doorbell store. Then every dependency signal is set to 0.
//
// What must hold (HSA Runtime 2.8, 2.9):
//   - the queue drains to the first unpublished (INVALID) packet, or stops at
//     one packet with exactly one error through the queue's callback, with a
//     status the packet processor documents; never a hang (5 s);
//   - every packet before that point ran exactly once: its completion signal
//     was decremented exactly once, each work-group of a kernel ran once with
//     a context matching the packet, each agent dispatch handler call once;
//   - nothing after it ran or completed.
// Kernel grids are kept to 16 work-groups a dimension and private segments
// below 64 KiB per work-item (the harness shrinks larger ones), so that an
// input costs milliseconds.
//
// The runtime is brought up once (PacketFuzzer::setUp) and every signal and
// kernel of the pools is created then: none is created per input, so a
// destroyed handle can never be given to a new object and come back to life.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_TESTS_RUNTIME_PACKETFUZZCHECK_H
#define OPENHSA_TESTS_RUNTIME_PACKETFUZZCHECK_H

#include "hsa/hsa.h"
#include "hsa/hsa_ext_openhsa.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace openhsa::test::fuzz {

/// Reads the input front to back; zeros once it is used up.
class Bytes {
public:
  Bytes(const uint8_t *Data, size_t Size) : Data(Data), Size(Size) {}
  uint8_t u8() { return At < Size ? Data[At++] : 0; }
  template <typename T> T get() {
    T V{};
    uint8_t Raw[sizeof(T)] = {};
    for (uint8_t &B : Raw)
      B = u8();
    std::memcpy(&V, Raw, sizeof(T));
    return V;
  }
  bool empty() const { return At >= Size; }

private:
  const uint8_t *Data;
  size_t Size, At = 0;
};

/// Counters the kernels and handlers update; reset per input.
struct Effects {
  std::atomic<uint64_t> WorkGroups{0};
  std::atomic<uint64_t> HandlerCalls{0};
  std::atomic<uint64_t> BadContexts{0};
};
inline Effects TheEffects;

/// Runs once per work-group: counts it and checks what the packet processor
/// built. Touches the first and last byte of its group and private memory.
/// Never follows its kernarg pointer.
inline void countingKernel(const void *,
                           const hsa_ext_openhsa_dispatch_context_t *C,
                           uint32_t X, uint32_t Y, uint32_t Z) {
  TheEffects.WorkGroups.fetch_add(1, std::memory_order_relaxed);
  const uint32_t G[3] = {X, Y, Z};
  bool Bad = C->dimensions < 1 || C->dimensions > 3;
  uint64_t Items = 1;
  for (int D = 0; D < 3; ++D) {
    Bad |= G[D] >= C->grid_groups[D];
    Items *= C->workgroup_size[D];
  }
  if (C->group_segment_size) {
    auto *Group = static_cast<volatile uint8_t *>(C->group_base);
    if (!Group)
      Bad = true;
    else {
      Group[0] = 1;
      Group[C->group_segment_size - 1] = 1;
    }
  }
  if (C->private_segment_size) {
    auto *Private = static_cast<volatile uint8_t *>(C->private_base);
    if (!Private)
      Bad = true;
    else {
      Private[0] = 1;
      Private[Items * C->private_segment_size - 1] = 1;
    }
  }
  if (Bad)
    TheEffects.BadContexts.fetch_add(1, std::memory_order_relaxed);
}

inline hsa_status_t countingHandler(uint16_t, const uint64_t *, void *,
                                    void *) {
  TheEffects.HandlerCalls.fetch_add(1, std::memory_order_relaxed);
  return HSA_STATUS_SUCCESS;
}

inline hsa_status_t failingHandler(uint16_t, const uint64_t *, void *, void *) {
  TheEffects.HandlerCalls.fetch_add(1, std::memory_order_relaxed);
  return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
}

/// The agent dispatch types with a handler (others have none).
inline constexpr uint16_t CountingType = 0x8000, FailingType = 0x8001;
inline constexpr unsigned MaxPackets = 16;

class PacketFuzzer {
public:
  /// Brings the runtime up and creates the pools; an error message, or "".
  std::string setUp() {
    if (hsa_init() != HSA_STATUS_SUCCESS)
      return "hsa_init failed";
    Initialized = true;
    if (hsa_iterate_agents(findAgent<HSA_AGENT_FEATURE_KERNEL_DISPATCH>,
                           &Cpu) != HSA_STATUS_INFO_BREAK ||
        hsa_iterate_agents(findAgent<HSA_AGENT_FEATURE_AGENT_DISPATCH>,
                           &Host) != HSA_STATUS_INFO_BREAK)
      return "no CPU kernel agent or agent dispatch agent";
    if (hsa_agent_iterate_regions(Cpu, findKernarg, &Kernarg) !=
            HSA_STATUS_SUCCESS ||
        !Kernarg.handle)
      return "no kernarg region";
    if (hsa_system_get_major_extension_table(
            HSA_EXTENSION_OPENHSA, 1, sizeof(Ext), &Ext) != HSA_STATUS_SUCCESS)
      return "no openhsa extension";
    hsa_agent_get_info(Cpu, HSA_AGENT_INFO_QUEUE_MIN_SIZE, &QueueMin);
    if (hsa_memory_allocate(Kernarg, 256, &KernargMemory) != HSA_STATUS_SUCCESS)
      return "no kernarg memory";
    std::memset(KernargMemory, 0, 256);

    // Kernels: plain, with a kernarg segment, with group and private
    // segments; one destroyed.
    const hsa_ext_openhsa_native_kernel_t Kinds[] = {
        {countingKernel, nullptr, 0, 0, 0, 16},
        {countingKernel, nullptr, 0, 0, 48, 16},
        {countingKernel, nullptr, 1024, 256, 16, 16},
        {countingKernel, nullptr, 0, 0, 0, 16}};
    for (const auto &K : Kinds) {
      uint64_t Object = 0;
      if (Ext.hsa_ext_openhsa_native_kernel_create(Cpu, &K, &Object) !=
          HSA_STATUS_SUCCESS)
        return "native_kernel_create failed";
      Kernels.push_back(Object);
    }
    if (Ext.hsa_ext_openhsa_native_kernel_destroy(Kernels.back()) !=
        HSA_STATUS_SUCCESS)
      return "native_kernel_destroy failed";
    DestroyedKernel = Kernels.back();
    Kernels.pop_back();

    for (auto &S : Completions)
      if (hsa_signal_create(0, 0, nullptr, &S) != HSA_STATUS_SUCCESS)
        return "hsa_signal_create failed";
    for (auto &S : Dependencies)
      if (hsa_signal_create(0, 0, nullptr, &S) != HSA_STATUS_SUCCESS)
        return "hsa_signal_create failed";
    for (auto &S : Destroyed)
      if (hsa_signal_create(0, 0, nullptr, &S) != HSA_STATUS_SUCCESS ||
          hsa_signal_destroy(S) != HSA_STATUS_SUCCESS)
        return "hsa_signal_create/destroy failed";

    if (Ext.hsa_ext_openhsa_agent_dispatch_handler_set(
            Host, CountingType, countingHandler, nullptr) !=
            HSA_STATUS_SUCCESS ||
        Ext.hsa_ext_openhsa_agent_dispatch_handler_set(
            Host, FailingType, failingHandler, nullptr) != HSA_STATUS_SUCCESS)
      return "agent_dispatch_handler_set failed";
    return "";
  }

  void tearDown() {
    if (!Initialized)
      return;
    for (uint64_t K : Kernels)
      Ext.hsa_ext_openhsa_native_kernel_destroy(K);
    Kernels.clear();
    for (auto &S : Completions)
      if (S.handle)
        hsa_signal_destroy(S);
    for (auto &S : Dependencies)
      if (S.handle)
        hsa_signal_destroy(S);
    if (KernargMemory)
      hsa_memory_free(KernargMemory);
    hsa_shut_down();
    Initialized = false;
  }

  /// Runs one input; what went wrong (a finding), or "".
  std::string run(const uint8_t *Data, size_t Size);

  /// What the last input did, for tests that replay known inputs.
  struct Stats {
    unsigned Packets = 0, Consumed = 0;
    int Errors = 0, ErrorStatus = 0;
    uint64_t WorkGroups = 0, HandlerCalls = 0;
  } Last;

private:
  template <hsa_agent_feature_t Wanted>
  static hsa_status_t findAgent(hsa_agent_t Agent, void *Out) {
    hsa_device_type_t Type;
    uint32_t Feature = 0;
    hsa_agent_get_info(Agent, HSA_AGENT_INFO_DEVICE, &Type);
    hsa_agent_get_info(Agent, HSA_AGENT_INFO_FEATURE, &Feature);
    if (Type != HSA_DEVICE_TYPE_CPU || !(Feature & Wanted))
      return HSA_STATUS_SUCCESS;
    *static_cast<hsa_agent_t *>(Out) = Agent;
    return HSA_STATUS_INFO_BREAK;
  }

  static hsa_status_t findKernarg(hsa_region_t Region, void *Out) {
    uint32_t Flags = 0;
    hsa_region_segment_t Segment;
    hsa_region_get_info(Region, HSA_REGION_INFO_SEGMENT, &Segment);
    if (Segment != HSA_REGION_SEGMENT_GLOBAL)
      return HSA_STATUS_SUCCESS;
    hsa_region_get_info(Region, HSA_REGION_INFO_GLOBAL_FLAGS, &Flags);
    if (Flags & HSA_REGION_GLOBAL_FLAG_KERNARG)
      *static_cast<hsa_region_t *>(Out) = Region;
    return HSA_STATUS_SUCCESS;
  }

  struct ErrorLog {
    std::atomic<int> Count{0};
    std::atomic<int> Status{HSA_STATUS_SUCCESS};
  };
  static void onError(hsa_status_t Status, hsa_queue_t *, void *Data) {
    auto *Log = static_cast<ErrorLog *>(Data);
    Log->Status.store(Status);
    Log->Count.fetch_add(1);
  }

  /// A handle that names no live signal: destroyed, never created, or an
  /// object of another kind.
  hsa_signal_t deadSignal(Bytes &In) {
    switch (In.u8() % 6) {
    case 0:
    case 1:
      return Destroyed[In.u8() % Destroyed.size()];
    case 2:
      return hsa_signal_t{In.get<uint64_t>() | 1}; // Never a live signal.
    case 3:
      return hsa_signal_t{Completions[0].handle + 8}; // Inside a live one.
    case 4:
      return hsa_signal_t{reinterpret_cast<uint64_t>(KernargMemory)};
    default:
      return hsa_signal_t{uint64_t(DestroyedKernel)};
    }
  }

  bool Initialized = false;
  hsa_agent_t Cpu{0}, Host{0};
  hsa_region_t Kernarg{0};
  hsa_ext_openhsa_1_pfn_t Ext{};
  uint32_t QueueMin = 1;
  void *KernargMemory = nullptr;
  std::vector<uint64_t> Kernels; // Live native kernels.
  uint64_t DestroyedKernel = 0;
  std::array<hsa_signal_t, MaxPackets> Completions{};
  std::array<hsa_signal_t, 4> Dependencies{};
  std::array<hsa_signal_t, 4> Destroyed{};
};

/// What the harness expects of one packet once it is consumed.
struct Expected {
  int Completion = -1;     // Index into Completions, or -1.
  uint64_t WorkGroups = 0; // Of a kernel dispatch of a live kernel.
  bool HandlerCall = false;
};

inline std::string PacketFuzzer::run(const uint8_t *Data, size_t Size) {
  Bytes In(Data, Size);
  TheEffects.WorkGroups = 0;
  TheEffects.HandlerCalls = 0;
  TheEffects.BadContexts = 0;

  const uint8_t QueueByte = In.u8();
  const bool AgentDispatchQueue = QueueByte & 1;
  const hsa_queue_type32_t Type =
      QueueByte & 2 ? HSA_QUEUE_TYPE_MULTI : HSA_QUEUE_TYPE_SINGLE;
  const bool RingOnce = QueueByte & 4;
  uint32_t QueueSize =
      std::max<uint32_t>(QueueMin, 1u << ((QueueByte >> 3) % 5));
  const unsigned Count =
      std::min<unsigned>(1 + In.u8() % MaxPackets, QueueSize);

  ErrorLog Log;
  hsa_queue_t *Q = nullptr;
  if (hsa_queue_create(AgentDispatchQueue ? Host : Cpu, QueueSize, Type,
                       onError, &Log, UINT32_MAX, UINT32_MAX,
                       &Q) != HSA_STATUS_SUCCESS)
    return "hsa_queue_create failed";

  // Dependencies start at 0 or 1 and are all set to 0 once every packet is
  // in the queue.
  for (auto &S : Dependencies)
    hsa_signal_store_relaxed(S, In.u8() & 1);

  std::vector<Expected> Want(Count);
  std::vector<std::array<uint8_t, 64>> Packets(Count);
  // Completions[I] belongs to packet I only; it starts at 1 when packet I
  // names it, else at 0 (a later barrier may depend on it).
  unsigned Published = Count; // Packets before the first INVALID one.
  for (unsigned I = 0; I < Count; ++I) {
    auto &Raw = Packets[I];
    for (uint8_t &B : Raw)
      B = In.u8();
    const uint8_t Choice = In.u8(), Choice2 = In.u8();
    uint16_t Header;
    std::memcpy(&Header, Raw.data(), 2);
    // Choice: bits 0-1 the completion signal, 2-4 the kernel object, 5-6
    // and 7 the packet type: with bit 7 one of the four a CPU queue serves
    // (KERNEL_DISPATCH, BARRIER_AND, AGENT_DISPATCH, BARRIER_OR), else the
    // input's own 8-bit type (INVALID, VENDOR_SPECIFIC, reserved ones).
    unsigned PacketType = (Header >> HSA_PACKET_HEADER_TYPE) & 0xff;
    if (Choice & 0x80)
      PacketType = HSA_PACKET_TYPE_KERNEL_DISPATCH + ((Choice >> 5) & 3);
    Header = uint16_t((Header & ~0xffu) | PacketType);
    std::memcpy(Raw.data(), &Header, 2);
    if (PacketType == HSA_PACKET_TYPE_INVALID && Published == Count)
      Published = I;

    hsa_signal_t Completion{0};
    switch (Choice & 3) {
    case 0:
    case 1:
      Completion = Completions[I];
      Want[I].Completion = int(I);
      break;
    case 2:
      Completion = hsa_signal_t{0};
      break;
    default:
      Completion = deadSignal(In);
    }
    hsa_signal_store_relaxed(Completions[I], Want[I].Completion >= 0 ? 1 : 0);

    if (PacketType == HSA_PACKET_TYPE_KERNEL_DISPATCH) {
      hsa_kernel_dispatch_packet_t P;
      std::memcpy(&P, Raw.data(), 64);
      switch ((Choice >> 2) % 8) {
      case 0:
      case 1:
      case 2:
        P.kernel_object = Kernels[Choice2 % Kernels.size()];
        break;
      case 3:
        P.kernel_object = DestroyedKernel;
        break;
      case 4:
        P.kernel_object = 0;
        break;
      case 5:
        P.kernel_object = Completions[0].handle;
        break;
      case 6:
        P.kernel_object = reinterpret_cast<uint64_t>(KernargMemory);
        break;
      default:
        break; // The input's own value.
      }
      switch ((Choice2 >> 4) % 4) {
      case 0:
      case 1:
        P.kernarg_address = KernargMemory;
        break;
      case 2:
        P.kernarg_address = nullptr;
        break;
      default:
        break; // Garbage: the kernels never follow it.
      }
      // Small private segments (the harness's budget), small grids.
      if (P.private_segment_size <= (1u << 20))
        P.private_segment_size %= 65536;
      const unsigned Dims = P.setup & 3;
      uint32_t *GridSize[3] = {&P.grid_size_x, &P.grid_size_y, &P.grid_size_z};
      uint16_t *WgSize[3] = {&P.workgroup_size_x, &P.workgroup_size_y,
                             &P.workgroup_size_z};
      if (Choice2 & 8) // Mostly one-dimensional, like real dispatches.
        for (unsigned D = 1; D < 3; ++D)
          *GridSize[D] = *WgSize[D] = 1;
      // At most 16 work-groups a dimension.
      uint64_t Groups = 1;
      bool Empty = false;
      for (unsigned D = 0; D < 3; ++D) {
        const uint32_t W = *WgSize[D];
        if (D < Dims && (*GridSize[D] == 0 || W == 0))
          Empty = true;
        if (W && *GridSize[D] / W > 16)
          *GridSize[D] = *GridSize[D] % (16 * W) + 1;
        Groups *= W ? (uint64_t(*GridSize[D]) + W - 1) / W : 0;
      }
      const bool LiveKernel = std::find(Kernels.begin(), Kernels.end(),
                                        P.kernel_object) != Kernels.end();
      Want[I].WorkGroups = LiveKernel && !Empty ? Groups : 0;
      P.completion_signal = Completion;
      std::memcpy(Raw.data(), &P, 64);
    } else if (PacketType == HSA_PACKET_TYPE_AGENT_DISPATCH) {
      hsa_agent_dispatch_packet_t P;
      std::memcpy(&P, Raw.data(), 64);
      if (Choice2 % 4 == 0)
        P.type = CountingType;
      else if (Choice2 % 4 == 1)
        P.type = FailingType;
      Want[I].HandlerCall = P.type == CountingType || P.type == FailingType;
      P.completion_signal = Completion;
      std::memcpy(Raw.data(), &P, 64);
    } else if (PacketType == HSA_PACKET_TYPE_BARRIER_AND ||
               PacketType == HSA_PACKET_TYPE_BARRIER_OR) {
      hsa_barrier_and_packet_t P;
      std::memcpy(&P, Raw.data(), 64);
      for (unsigned D = 0; D < 5; ++D) {
        const uint8_t Pick = In.u8();
        switch (Pick % 8) {
        case 0:
        case 1:
          P.dep_signal[D] = hsa_signal_t{0};
          break;
        case 2:
        case 3:
          P.dep_signal[D] = Dependencies[Pick / 8 % Dependencies.size()];
          break;
        case 4: // An earlier packet's completion (0 if it names another).
          P.dep_signal[D] = I ? Completions[Pick / 8 % I] : hsa_signal_t{0};
          break;
        case 5:
          P.dep_signal[D] = deadSignal(In);
          break;
        default:
          break; // The input's own value.
        }
      }
      P.completion_signal = Completion;
      std::memcpy(Raw.data(), &P, 64);
    } else {
      std::memcpy(Raw.data() + 56, &Completion, 8); // Where barriers keep it.
    }
  }

  // Publish: body first, then the header with a release store (2.8.3).
  for (unsigned I = 0; I < Count; ++I) {
    const uint64_t Index = hsa_queue_add_write_index_scacq_screl(Q, 1);
    char *Slot =
        static_cast<char *>(Q->base_address) + (Index & (Q->size - 1)) * 64;
    std::memcpy(Slot + 4, Packets[I].data() + 4, 60);
    uint32_t Word;
    std::memcpy(&Word, Packets[I].data(), 4);
    std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t *>(Slot))
        .store(Word, std::memory_order_release);
    if (!RingOnce)
      hsa_signal_store_screlease(Q->doorbell_signal, hsa_signal_value_t(Index));
  }
  if (RingOnce)
    hsa_signal_store_screlease(Q->doorbell_signal,
                               hsa_signal_value_t(Count - 1));
  for (auto &S : Dependencies)
    hsa_signal_store_screlease(S, 0);

  // Drained (to the first unpublished packet) or stopped by an error.
  const auto Deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(5);
  uint64_t Read = 0;
  for (;;) {
    const bool Failed = Log.Count.load() != 0;
    // Read after the error is seen: the queue is inactive then and its
    // read index final (read before, it may miss the packets consumed
    // between the load and the error).
    Read = hsa_queue_load_read_index_scacquire(Q);
    if (Failed || Read >= Published)
      break;
    if (std::chrono::steady_clock::now() > Deadline) {
      hsa_queue_destroy(Q);
      return "hang: read index " + std::to_string(Read) + " of " +
             std::to_string(Published) + " published packets, no error";
    }
    std::this_thread::yield();
  }
  // Destroying the queue waits for the kernels it launched.
  if (hsa_queue_destroy(Q) != HSA_STATUS_SUCCESS)
    return "hsa_queue_destroy failed";
  Read = std::min<uint64_t>(Read, Count);

  std::string Problem;
  auto Fail = [&](const std::string &What) {
    if (Problem.empty())
      Problem = What;
  };
  const int Errors = Log.Count.load();
  if (Errors > 1)
    Fail(std::to_string(Errors) + " errors reported for one queue");
  if (Errors == 1) {
    switch (Log.Status.load()) {
    case HSA_STATUS_ERROR_INVALID_PACKET_FORMAT:
    case HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS:
    case HSA_STATUS_ERROR_INVALID_CODE_OBJECT:
    case HSA_STATUS_ERROR_INVALID_SIGNAL:
    case HSA_STATUS_ERROR_INVALID_ARGUMENT:
    case HSA_STATUS_ERROR_INVALID_ALLOCATION:
    case HSA_STATUS_ERROR_OUT_OF_RESOURCES:
      break;
    default:
      Fail("unexpected queue error status " +
           std::to_string(Log.Status.load()));
    }
    if (Read >= Published)
      Fail("error reported with nothing left to fail");
  }
  uint64_t WantGroups = 0, WantCalls = 0;
  for (unsigned I = 0; I < Count; ++I) {
    const bool Consumed = I < Read;
    if (Consumed) {
      WantGroups += Want[I].WorkGroups;
      WantCalls += Want[I].HandlerCall;
    }
    if (Want[I].Completion < 0)
      continue;
    const hsa_signal_value_t V = hsa_signal_load_scacquire(Completions[I]);
    if (V != (Consumed ? 0 : 1))
      Fail("packet " + std::to_string(I) +
           (Consumed ? " consumed" : " not consumed") +
           " left its completion signal at " + std::to_string(V));
  }
  // The packet that failed may have called its handler (a handler's error
  // fails the packet after the call).
  uint64_t Calls = TheEffects.HandlerCalls.load();
  if (Errors && Read < Count && Want[Read].HandlerCall &&
      Calls == WantCalls + 1)
    --Calls;
  Last = {Count,
          unsigned(Read),
          Errors,
          Log.Status.load(),
          TheEffects.WorkGroups.load(),
          Calls};
  if (TheEffects.WorkGroups.load() != WantGroups)
    Fail("work-groups run: " + std::to_string(TheEffects.WorkGroups.load()) +
         ", expected " + std::to_string(WantGroups));
  if (Calls != WantCalls)
    Fail("agent dispatch handler calls: " + std::to_string(Calls) +
         ", expected " + std::to_string(WantCalls));
  if (TheEffects.BadContexts.load())
    Fail(std::to_string(TheEffects.BadContexts.load()) +
         " work-groups saw a wrong dispatch context");
  return Problem;
}

} // namespace openhsa::test::fuzz

#endif
