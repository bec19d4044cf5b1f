//===- tools/openhsa-run/AgentRun.cpp - One kernel on one agent -----------===//
#include "AgentRun.h"

#include "hsa/hsa_ext_finalize.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

namespace openhsa::run {
namespace {

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// "" when S is a success; else what failed and the runtime's explanation.
std::string failure(hsa_status_t S, const std::string &What) {
  if (S == HSA_STATUS_SUCCESS || S == HSA_STATUS_INFO_BREAK)
    return "";
  const char *Text = "unknown status";
  hsa_status_string(S, &Text);
  return What + ": " + Text;
}

template <typename T> T agentInfo(hsa_agent_t A, hsa_agent_info_t What) {
  T Value{};
  hsa_agent_get_info(A, What, &Value);
  return Value;
}

struct Listing {
  std::vector<KernelAgent> Agents;
  unsigned Next = 0;
};

hsa_status_t pickRegions(hsa_region_t R, void *Data) {
  auto &A = *static_cast<KernelAgent *>(Data);
  hsa_region_segment_t Segment;
  uint32_t Flags = 0;
  bool Allocates = false;
  hsa_region_get_info(R, HSA_REGION_INFO_SEGMENT, &Segment);
  hsa_region_get_info(R, HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED, &Allocates);
  if (Segment != HSA_REGION_SEGMENT_GLOBAL || !Allocates)
    return HSA_STATUS_SUCCESS;
  hsa_region_get_info(R, HSA_REGION_INFO_GLOBAL_FLAGS, &Flags);
  if ((Flags & HSA_REGION_GLOBAL_FLAG_KERNARG) && !A.Kernarg.handle)
    A.Kernarg = R;
  // Buffers in fine-grained memory: the host fills and reads it directly,
  // on a GPU agent too (pinned host memory mapped into the device).
  if ((Flags & HSA_REGION_GLOBAL_FLAG_FINE_GRAINED) &&
      !(Flags & HSA_REGION_GLOBAL_FLAG_KERNARG) && !A.Data.handle)
    A.Data = R;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t listAgent(hsa_agent_t Agent, void *Data) {
  auto &L = *static_cast<Listing *>(Data);
  const unsigned Number = L.Next++;
  const auto Features = agentInfo<uint32_t>(Agent, HSA_AGENT_INFO_FEATURE);
  if (!(Features & HSA_AGENT_FEATURE_KERNEL_DISPATCH))
    return HSA_STATUS_SUCCESS;
  KernelAgent A;
  A.Agent = Agent;
  A.Number = Number;
  char Name[64] = {};
  hsa_agent_get_info(Agent, HSA_AGENT_INFO_NAME, Name);
  A.Name = std::string(Name, strnlen(Name, sizeof(Name)));
  while (!A.Name.empty() && A.Name.back() == ' ')
    A.Name.pop_back();
  A.Type = agentInfo<hsa_device_type_t>(Agent, HSA_AGENT_INFO_DEVICE);
  const auto Isa = agentInfo<hsa_isa_t>(Agent, HSA_AGENT_INFO_ISA);
  uint32_t Length = 0;
  if (Isa.handle && hsa_isa_get_info_alt(Isa, HSA_ISA_INFO_NAME_LENGTH,
                                         &Length) == HSA_STATUS_SUCCESS) {
    std::string IsaName(Length, '\0');
    hsa_isa_get_info_alt(Isa, HSA_ISA_INFO_NAME, IsaName.data());
    A.Isa = IsaName.c_str();
    hsa_isa_get_info_alt(Isa, HSA_ISA_INFO_PROFILES, A.Profiles);
  } else {
    const auto P = agentInfo<hsa_profile_t>(Agent, HSA_AGENT_INFO_PROFILE);
    A.Profiles[HSA_PROFILE_BASE] = P == HSA_PROFILE_BASE;
    A.Profiles[HSA_PROFILE_FULL] = P == HSA_PROFILE_FULL;
  }
  hsa_agent_iterate_regions(Agent, pickRegions, &A);
  if (!A.Data.handle)
    A.Data = A.Kernarg;
  L.Agents.push_back(std::move(A));
  return HSA_STATUS_SUCCESS;
}

std::vector<uint8_t> readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    die("cannot read '" + Path + "'");
  return {std::istreambuf_iterator<char>(In), std::istreambuf_iterator<char>()};
}

/// What runOnAgent creates, released in reverse whatever way it returns.
struct Resources {
  hsa_ext_program_t Program{0};
  hsa_code_object_t Code{0};
  hsa_executable_t Exec{0};
  hsa_queue_t *Queue = nullptr;
  hsa_signal_t Done{0};
  void *Kernarg = nullptr;
  std::vector<void *> Buffers;
  ~Resources() {
    for (void *B : Buffers)
      hsa_memory_free(B);
    if (Kernarg)
      hsa_memory_free(Kernarg);
    if (Done.handle)
      hsa_signal_destroy(Done);
    if (Queue)
      hsa_queue_destroy(Queue);
    if (Exec.handle)
      hsa_executable_destroy(Exec);
    if (Code.handle)
      hsa_code_object_destroy(Code);
    if (Program.handle)
      hsa_ext_program_destroy(Program);
  }
};

/// The first error a queue reports: a faulting kernel leaves its
/// completion signal alone (the queue becomes inactive), so the wait below
/// looks here too.
std::atomic<hsa_status_t> QueueError{HSA_STATUS_SUCCESS};

void onQueueError(hsa_status_t S, hsa_queue_t *, void *) {
  hsa_status_t None = HSA_STATUS_SUCCESS;
  QueueError.compare_exchange_strong(None, S);
}

/// Lays the arguments out (buffers allocated in A.Data and filled);
/// returns "" or what failed.
std::string layOutArguments(const KernelAgent &A, const RunOptions &O,
                            Resources &R, std::vector<uint8_t> &Kernarg) {
  auto Place = [&](const void *Data, size_t Size) {
    size_t Off = (Kernarg.size() + Size - 1) / Size * Size;
    Kernarg.resize(Off + Size);
    std::memcpy(Kernarg.data() + Off, Data, Size);
  };
  for (const ArgSpec &S : O.Args) {
    if (S.Kind == "buf") {
      void *Buffer = nullptr;
      if (std::string E =
              failure(hsa_memory_allocate(A.Data, S.Bytes, &Buffer),
                      "buffer of " + std::to_string(S.Bytes) + " bytes");
          !E.empty())
        return E;
      R.Buffers.push_back(Buffer);
      auto *B = static_cast<uint8_t *>(Buffer);
      if (S.Fill == "iota32") {
        for (size_t I = 0; I + 4 <= S.Bytes; I += 4) {
          uint32_t V = uint32_t(I / 4);
          std::memcpy(B + I, &V, 4);
        }
      } else {
        std::memset(
            B,
            S.Fill.empty() ? 0 : int(std::strtoul(S.Fill.c_str(), nullptr, 0)),
            S.Bytes);
      }
      if (!S.File.empty()) {
        std::vector<uint8_t> Data = readFile(S.File);
        std::memcpy(B, Data.data(), std::min(Data.size(), S.Bytes));
      }
      uint64_t Address = reinterpret_cast<uintptr_t>(Buffer);
      Place(&Address, 8);
    } else if (S.Kind == "u32" || S.Kind == "s32") {
      uint32_t V = uint32_t(std::strtoll(S.Value.c_str(), nullptr, 0));
      Place(&V, 4);
    } else if (S.Kind == "u64" || S.Kind == "s64") {
      uint64_t V = S.Kind == "u64"
                       ? std::strtoull(S.Value.c_str(), nullptr, 0)
                       : uint64_t(std::strtoll(S.Value.c_str(), nullptr, 0));
      Place(&V, 8);
    } else if (S.Kind == "f32") {
      float V = std::strtof(S.Value.c_str(), nullptr);
      Place(&V, 4);
    } else {
      double V = std::strtod(S.Value.c_str(), nullptr);
      Place(&V, 8);
    }
  }
  return "";
}

} // namespace

const char *deviceTypeName(hsa_device_type_t T) {
  return T == HSA_DEVICE_TYPE_CPU   ? "CPU"
         : T == HSA_DEVICE_TYPE_GPU ? "GPU"
                                    : "DSP";
}

std::vector<KernelAgent> kernelAgents() {
  Listing L;
  hsa_iterate_agents(listAgent, &L);
  return L.Agents;
}

std::vector<KernelAgent> selectAgents(const std::vector<KernelAgent> &All,
                                      const std::string &Spec) {
  std::vector<KernelAgent> Chosen;
  for (const KernelAgent &A : All) {
    if (Spec == "all" || (Spec == "cpu" && A.Type == HSA_DEVICE_TYPE_CPU) ||
        (Spec == "gpu" && A.Type == HSA_DEVICE_TYPE_GPU) ||
        Spec == std::to_string(A.Number))
      Chosen.push_back(A);
    if (!Chosen.empty() && Spec != "all")
      break;
  }
  if (!Chosen.empty())
    return Chosen;
  std::string There;
  for (const KernelAgent &A : All)
    There += (There.empty() ? "" : ", ") + std::to_string(A.Number) + " (" +
             deviceTypeName(A.Type) + ", " + A.Name + ")";
  die("--agent " + Spec + ": no such kernel agent; the kernel agents are " +
      (There.empty() ? std::string("none") : There));
}

AgentRun runOnAgent(const KernelAgent &A, const std::vector<uint8_t> &Brig,
                    const RunOptions &O) {
  AgentRun Run;
  Resources R;
  auto Fail = [&](std::string Message) {
    Run.Error = std::move(Message);
    return Run;
  };
  if (!A.Kernarg.handle)
    return Fail("the agent has no kernarg region");

  const double T0 = now();
  // A module declares its profile (PRM 16.2), and a program takes modules
  // of its own: each profile the agent's ISA finalizes is tried in turn,
  // full first. (The status is kept as a number: the extension's codes are
  // not values of hsa_status_t's enumeration.)
  constexpr uint32_t Incompatible = HSA_EXT_STATUS_ERROR_INCOMPATIBLE_MODULE;
  uint32_t Added = Incompatible;
  hsa_profile_t Profile = HSA_PROFILE_FULL;
  for (hsa_profile_t P : {HSA_PROFILE_FULL, HSA_PROFILE_BASE}) {
    if (!A.Profiles[P] || Added != Incompatible)
      continue;
    if (R.Program.handle) {
      hsa_ext_program_destroy(R.Program);
      R.Program.handle = 0;
    }
    if (std::string E = failure(
            hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, P,
                                   HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                   nullptr, &R.Program),
            "hsa_ext_program_create");
        !E.empty())
      return Fail(E);
    Profile = P;
    Added = hsa_ext_program_add_module(
        R.Program,
        reinterpret_cast<hsa_ext_module_t>(const_cast<uint8_t *>(Brig.data())));
  }
  Run.Incompatible = Added == Incompatible;
  if (Run.Incompatible)
    return Fail(std::string("the module is not $large and of a profile this "
                            "agent's ISA takes (") +
                (A.Profiles[HSA_PROFILE_FULL] ? "$full" : "") +
                (A.Profiles[HSA_PROFILE_FULL] && A.Profiles[HSA_PROFILE_BASE]
                     ? " or "
                     : "") +
                (A.Profiles[HSA_PROFILE_BASE] ? "$base" : "") + ")");
  if (std::string E =
          failure(hsa_status_t(Added), "hsa_ext_program_add_module");
      !E.empty())
    return Fail(E);
  const auto Isa = agentInfo<hsa_isa_t>(A.Agent, HSA_AGENT_INFO_ISA);
  hsa_ext_control_directives_t Directives;
  std::memset(&Directives, 0, sizeof(Directives));
  if (O.FixedShape) {
    // Bits 1 << BrigControlDirective: the shape of the dispatches below.
    Directives.control_directives_mask =
        (uint64_t(1) << 6) | (uint64_t(1) << 7) | (uint64_t(1) << 8);
    Directives.required_dim = uint8_t(O.Dims);
    for (unsigned D = 0; D < 3; ++D)
      Directives.required_grid_size[D] = O.Grid[D];
    Directives.required_workgroup_size = {O.Group[0], O.Group[1], O.Group[2]};
  }
  if (std::string E = failure(
          hsa_ext_program_finalize(R.Program, Isa, 0, Directives, nullptr,
                                   HSA_CODE_OBJECT_TYPE_PROGRAM, &R.Code),
          "hsa_ext_program_finalize");
      !E.empty())
    return Fail(E);
  if (std::string E =
          failure(hsa_executable_create(Profile, HSA_EXECUTABLE_STATE_UNFROZEN,
                                        nullptr, &R.Exec),
                  "hsa_executable_create");
      !E.empty())
    return Fail(E);
  if (std::string E = failure(
          hsa_executable_load_code_object(R.Exec, A.Agent, R.Code, nullptr),
          "hsa_executable_load_code_object");
      !E.empty())
    return Fail(E);
  if (std::string E = failure(hsa_executable_freeze(R.Exec, nullptr),
                              "hsa_executable_freeze");
      !E.empty())
    return Fail(E);
  Run.FinalizeSeconds = now() - T0;

  hsa_executable_symbol_t Symbol;
  if (std::string E = failure(hsa_executable_get_symbol_by_name(
                                  R.Exec, O.Kernel.c_str(), &A.Agent, &Symbol),
                              "kernel '" + O.Kernel + "'");
      !E.empty())
    return Fail(E);
  uint64_t Object = 0;
  uint32_t KernargSize = 0, GroupSize = 0, PrivateSize = 0, KernargAlign = 16;
  hsa_executable_symbol_get_info(
      Symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &Object);
  hsa_executable_symbol_get_info(
      Symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
      &KernargSize);
  hsa_executable_symbol_get_info(
      Symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &GroupSize);
  hsa_executable_symbol_get_info(
      Symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
      &PrivateSize);
  hsa_executable_symbol_get_info(
      Symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT,
      &KernargAlign);

  std::vector<uint8_t> Kernarg;
  if (std::string E = layOutArguments(A, O, R, Kernarg); !E.empty())
    return Fail(E);
  // The segment's size may include padding up to its alignment.
  const size_t Padded =
      (Kernarg.size() + KernargAlign - 1) / KernargAlign * KernargAlign;
  if (Kernarg.size() > KernargSize || Padded < KernargSize)
    die("the arguments take " + std::to_string(Kernarg.size()) +
        " bytes of kernarg segment; kernel '" + O.Kernel + "' expects " +
        std::to_string(KernargSize));
  const size_t KernargBytes = std::max<size_t>(KernargSize, 16);
  if (std::string E = failure(
          hsa_memory_allocate(A.Kernarg, KernargBytes, &R.Kernarg), "kernarg");
      !E.empty())
    return Fail(E);
  std::memset(R.Kernarg, 0, KernargBytes);
  std::memcpy(R.Kernarg, Kernarg.data(), Kernarg.size());

  QueueError = HSA_STATUS_SUCCESS;
  if (std::string E = failure(
          hsa_queue_create(A.Agent, 64, HSA_QUEUE_TYPE_SINGLE, onQueueError,
                           nullptr, UINT32_MAX, UINT32_MAX, &R.Queue),
          "queue");
      !E.empty())
    return Fail(E);
  if (std::string E =
          failure(hsa_signal_create(1, 0, nullptr, &R.Done), "signal");
      !E.empty())
    return Fail(E);
  for (unsigned Rep = 0; Rep < O.Repeat; ++Rep) {
    hsa_signal_store_relaxed(R.Done, 1);
    const uint64_t Index = hsa_queue_add_write_index_relaxed(R.Queue, 1);
    auto *P =
        static_cast<hsa_kernel_dispatch_packet_t *>(R.Queue->base_address) +
        (Index & (R.Queue->size - 1));
    std::memset(reinterpret_cast<char *>(P) + 4, 0, sizeof(*P) - 4);
    P->workgroup_size_x = uint16_t(O.Group[0]);
    P->workgroup_size_y = uint16_t(O.Group[1]);
    P->workgroup_size_z = uint16_t(O.Group[2]);
    P->grid_size_x = O.Grid[0];
    P->grid_size_y = O.Grid[1];
    P->grid_size_z = O.Grid[2];
    P->kernel_object = Object;
    P->kernarg_address = R.Kernarg;
    P->group_segment_size = GroupSize + O.DynamicGroup;
    P->private_segment_size = PrivateSize;
    P->completion_signal = R.Done;
    const uint16_t Header =
        (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    const uint16_t Setup =
        uint16_t(O.Dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
    const double Start = now();
    __atomic_store_n(reinterpret_cast<uint32_t *>(P),
                     Header | (uint32_t(Setup) << 16), __ATOMIC_RELEASE);
    hsa_signal_store_screlease(R.Queue->doorbell_signal,
                               hsa_signal_value_t(Index));
    // Waits in slices of a timeout hint, so that an error the queue
    // reports instead of completing ends the wait.
    uint64_t Frequency = 0;
    hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &Frequency);
    while (hsa_signal_wait_scacquire(R.Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                     Frequency / 20,
                                     HSA_WAIT_STATE_BLOCKED) != 0) {
      if (hsa_status_t S = QueueError.load(); S != HSA_STATUS_SUCCESS)
        return Fail(failure(S, "dispatch " + std::to_string(Rep + 1)));
    }
    Run.DispatchSeconds.push_back(now() - Start);
  }
  for (size_t I = 0, B = 0; I < O.Args.size(); ++I)
    if (O.Args[I].Kind == "buf") {
      const auto *Bytes = static_cast<const uint8_t *>(R.Buffers[B++]);
      Run.Buffers.emplace_back(Bytes, Bytes + O.Args[I].Bytes);
    }
  return Run;
}

} // namespace openhsa::run
