//===- tests/finalizer/GpuRunner.h - The finalizer tests on a GPU agent -*- C++
//-*-===//
//
// With OPENHSA_TEST_AGENT=gpu the kernel tests of this folder run on the
// first GPU agent instead of the host (issue 11: every kernel test that
// runs on the CPU also runs on the GPU). KernelRunner.h finalizes for the
// GPU's ISA and dispatches through the public C API; this file holds the
// session (runtime, agent, queue) and the dispatch.
//
// The tests pass pointers to host memory (std::vector) in their kernel
// arguments. A GPU agent of the base profile reaches host memory only once
// registered (hsa_memory_register), so around each dispatch every mapping
// of the process that an 8-byte argument points into is registered. The
// tests' HSAIL declares the full profile; it is finalized as written and
// run with that registered memory.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_TESTS_FINALIZER_GPURUNNER_H
#define OPENHSA_TESTS_FINALIZER_GPURUNNER_H

#include "finalizer/CodeObject.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_finalize.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace openhsa::test::gpu {

/// Kernel tests run on the GPU agent (OPENHSA_TEST_AGENT=gpu).
inline bool enabled() {
  const char *A = std::getenv("OPENHSA_TEST_AGENT");
  return A && std::strcmp(A, "gpu") == 0;
}

struct Session {
  hsa_agent_t Agent{0};
  std::string IsaName;
  hsa_queue_t *Queue = nullptr;
  std::atomic<hsa_status_t> QueueError{HSA_STATUS_SUCCESS};

  static void onError(hsa_status_t S, hsa_queue_t *, void *Data) {
    static_cast<Session *>(Data)->QueueError = S;
  }
  /// A queue that works: a new one after an error ended the last.
  hsa_queue_t *queue() {
    if (Queue && QueueError == HSA_STATUS_SUCCESS)
      return Queue;
    if (Queue)
      hsa_queue_destroy(Queue);
    QueueError = HSA_STATUS_SUCCESS;
    if (hsa_queue_create(Agent, 256, HSA_QUEUE_TYPE_MULTI, onError, this,
                         UINT32_MAX, UINT32_MAX, &Queue) != HSA_STATUS_SUCCESS)
      Queue = nullptr;
    return Queue;
  }
};

/// The runtime and its first GPU agent, for the whole test program; null
/// where there is none.
inline Session *session() {
  static Session *S = []() -> Session * {
    if (hsa_init() != HSA_STATUS_SUCCESS)
      return nullptr;
    auto *S = new Session;
    hsa_iterate_agents(
        [](hsa_agent_t A, void *D) {
          hsa_device_type_t T;
          hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &T);
          auto *S = static_cast<Session *>(D);
          if (T == HSA_DEVICE_TYPE_GPU && !S->Agent.handle)
            S->Agent = A;
          return HSA_STATUS_SUCCESS;
        },
        S);
    if (!S->Agent.handle)
      return nullptr;
    hsa_isa_t Isa;
    hsa_agent_get_info(S->Agent, HSA_AGENT_INFO_ISA, &Isa);
    uint32_t Length = 0;
    hsa_isa_get_info_alt(Isa, HSA_ISA_INFO_NAME_LENGTH, &Length);
    S->IsaName.resize(Length);
    hsa_isa_get_info_alt(Isa, HSA_ISA_INFO_NAME, S->IsaName.data());
    return S;
  }();
  return S;
}

/// A code object loaded on the GPU agent; the executable goes with it.
struct Loaded {
  hsa_executable_t Exec{0};
  ~Loaded() {
    if (Exec.handle)
      hsa_executable_destroy(Exec);
  }
};

inline llvm::Expected<std::shared_ptr<Loaded>>
load(const finalizer::CodeObject &CO) {
  Session *S = session();
  if (!S)
    return llvm::createStringError("no GPU agent");
  std::vector<uint8_t> Bytes = CO.serialize();
  hsa_code_object_t Code;
  if (hsa_code_object_deserialize(Bytes.data(), Bytes.size(), nullptr, &Code) !=
      HSA_STATUS_SUCCESS)
    return llvm::createStringError("the code object does not deserialize");
  auto L = std::make_shared<Loaded>();
  hsa_status_t St =
      hsa_executable_create(hsa_profile_t(CO.Profile),
                            HSA_EXECUTABLE_STATE_UNFROZEN, nullptr, &L->Exec);
  if (St == HSA_STATUS_SUCCESS)
    St = hsa_executable_load_code_object(L->Exec, S->Agent, Code, nullptr);
  if (St == HSA_STATUS_SUCCESS)
    St = hsa_executable_freeze(L->Exec, nullptr);
  hsa_code_object_destroy(Code);
  if (St != HSA_STATUS_SUCCESS)
    return llvm::createStringError("loading on the GPU agent failed: 0x" +
                                   llvm::utohexstr(unsigned(St)));
  return L;
}

/// The code handle of L's indirect function Name (HSAIL name), from its
/// executable symbol; 0 when there is none.
inline uint64_t indirectHandle(const Loaded &L, const std::string &Name) {
  struct Search {
    const std::string &Name;
    uint64_t Handle = 0;
  } Q{Name};
  hsa_executable_iterate_symbols(
      L.Exec,
      [](hsa_executable_t, hsa_executable_symbol_t Sym, void *Data) {
        auto &Q = *static_cast<Search *>(Data);
        hsa_symbol_kind_t Kind;
        hsa_executable_symbol_get_info(Sym, HSA_EXECUTABLE_SYMBOL_INFO_TYPE,
                                       &Kind);
        if (Kind != HSA_SYMBOL_KIND_INDIRECT_FUNCTION)
          return HSA_STATUS_SUCCESS;
        uint32_t Length = 0;
        hsa_executable_symbol_get_info(
            Sym, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, &Length);
        std::string SymName(Length, '\0');
        hsa_executable_symbol_get_info(Sym, HSA_EXECUTABLE_SYMBOL_INFO_NAME,
                                       SymName.data());
        if (SymName != Q.Name)
          return HSA_STATUS_SUCCESS;
        hsa_executable_symbol_get_info(
            Sym, HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_OBJECT,
            &Q.Handle);
        return HSA_STATUS_INFO_BREAK;
      },
      &Q);
  return Q.Handle;
}

/// The writable mapping of this process that holds Address ([start, end));
/// {0, 0} when there is none.
inline std::pair<uintptr_t, uintptr_t> mappingOf(uintptr_t Address) {
  std::pair<uintptr_t, uintptr_t> Found{0, 0};
  FILE *Maps = std::fopen("/proc/self/maps", "r");
  if (!Maps)
    return Found;
  char Line[512];
  while (std::fgets(Line, sizeof(Line), Maps)) {
    unsigned long Start = 0, End = 0;
    char Perms[8] = {};
    if (std::sscanf(Line, "%lx-%lx %7s", &Start, &End, Perms) != 3)
      continue;
    if (Address >= Start && Address < End) {
      if (Perms[0] == 'r' && Perms[1] == 'w')
        Found = {Start, End};
      break;
    }
  }
  std::fclose(Maps);
  return Found;
}

/// Dispatches kernel Name of L over the grid and waits; failures are the
/// test's.
inline void dispatch(const Loaded &L, const finalizer::KernelSymbol &K,
                     const uint32_t (&Size)[3], const uint32_t (&WorkGroup)[3],
                     uint32_t Dims, uint32_t GroupBytes, const void *Kernarg,
                     uint32_t KernargBytes) {
  Session *S = session();
  ASSERT_NE(S, nullptr);
  // A kernel of module linkage is found as "&module::&name".
  const std::string Key =
      K.ProgramLinkage ? K.Name : K.ModuleName + "::" + K.Name;
  hsa_executable_symbol_t Sym;
  ASSERT_EQ(
      hsa_executable_get_symbol_by_name(L.Exec, Key.c_str(), &S->Agent, &Sym),
      HSA_STATUS_SUCCESS)
      << Key;
  uint64_t Object = 0;
  hsa_executable_symbol_get_info(Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT,
                                 &Object);
  // The argument block, padded as the kernel's parameter is; and every
  // mapping an argument points into reachable from the GPU.
  std::vector<uint8_t> Args((KernargBytes + 15) / 16 * 16 + 16, 0);
  if (KernargBytes)
    std::memcpy(Args.data(), Kernarg, KernargBytes);
  // Registered for this dispatch only: memory the test frees and maps
  // again afterwards must not stay pinned to the pages it had.
  std::vector<std::pair<uintptr_t, uintptr_t>> Mappings;
  for (uint32_t Off = 0; Off + 8 <= KernargBytes; Off += 8) {
    uint64_t V;
    std::memcpy(&V, Args.data() + Off, 8);
    if (V < 4096)
      continue;
    auto M = mappingOf(uintptr_t(V));
    if (M.first &&
        std::find(Mappings.begin(), Mappings.end(), M) == Mappings.end())
      Mappings.push_back(M);
  }
  for (auto &[Start, End] : Mappings)
    hsa_memory_register(reinterpret_cast<void *>(Start), End - Start);
  struct Unregister {
    std::vector<std::pair<uintptr_t, uintptr_t>> &M;
    ~Unregister() {
      for (auto &[Start, End] : M)
        hsa_memory_deregister(reinterpret_cast<void *>(Start), End - Start);
    }
  } Unpin{Mappings};
  hsa_queue_t *Q = S->queue();
  ASSERT_NE(Q, nullptr);
  hsa_signal_t Done;
  ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &Done), HSA_STATUS_SUCCESS);
  const uint64_t Index = hsa_queue_add_write_index_relaxed(Q, 1);
  auto *P = static_cast<hsa_kernel_dispatch_packet_t *>(Q->base_address) +
            (Index & (Q->size - 1));
  std::memset(reinterpret_cast<uint8_t *>(P) + 4, 0, sizeof(*P) - 4);
  P->workgroup_size_x = uint16_t(WorkGroup[0]);
  P->workgroup_size_y = uint16_t(WorkGroup[1]);
  P->workgroup_size_z = uint16_t(WorkGroup[2]);
  P->grid_size_x = Size[0];
  P->grid_size_y = Size[1];
  P->grid_size_z = Size[2];
  P->group_segment_size = GroupBytes;
  P->kernel_object = Object;
  P->kernarg_address = Args.data();
  P->completion_signal = Done;
  const uint32_t Header =
      (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  __atomic_store_n(
      reinterpret_cast<uint32_t *>(P),
      Header | (Dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS) << 16,
      __ATOMIC_RELEASE);
  hsa_signal_store_screlease(Q->doorbell_signal, int64_t(Index));
  // Until completion or a queue error.
  int64_t V = 1;
  for (int I = 0; I < 6000 && V != 0 && S->QueueError == HSA_STATUS_SUCCESS;
       ++I)
    V = hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0, 4'000'000,
                                  HSA_WAIT_STATE_BLOCKED);
  hsa_signal_destroy(Done);
  ASSERT_EQ(S->QueueError.load(), HSA_STATUS_SUCCESS)
      << "the GPU queue reported an error";
  ASSERT_EQ(V, 0) << "the GPU dispatch did not complete in 60 s";
}

} // namespace openhsa::test::gpu

#endif
