//===- benchmarks/HsailHelpers.h - Finalize and dispatch HSAIL -*- C++ -*-===//
//
// What the HSAIL benchmarks share: HSAIL text assembled to BRIG, a kernel
// finalized and loaded on the CPU agent through the public HSA API, and an
// N-D dispatch that waits for completion.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_BENCHMARKS_HSAILHELPERS_H
#define OPENHSA_BENCHMARKS_HSAILHELPERS_H

#include "DispatchHelpers.h"

#include "brig/asm/Assembler.h"
#include "hsa/hsa_ext_finalize.h"
#include "tests/support/ScopedEnv.h" // Settings for one benchmark.

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace openhsa::bench {

/// Assembles the HSAIL text file at Path; aborts with the assembler's
/// message when it does not assemble.
inline std::vector<uint8_t> assembleFile(const std::string &Path) {
  std::ifstream In(Path);
  if (!In) {
    std::fprintf(stderr, "cannot read %s\n", Path.c_str());
    std::abort();
  }
  std::string Text{std::istreambuf_iterator<char>(In),
                   std::istreambuf_iterator<char>()};
  auto Brig = openhsa::brig::assembler::assembleHsail(Text);
  if (!Brig) {
    std::fprintf(stderr, "%s: %s\n", Path.c_str(),
                 llvm::toString(Brig.takeError()).c_str());
    std::abort();
  }
  return std::move(*Brig);
}

/// A finalized, loaded HSAIL kernel on the CPU agent: program create, add
/// module, finalize (with Directives), executable load and freeze.
/// Profile: the module's (the examples' kernels are $base,
/// benchmarks/kernels' $full).
struct HsailKernel {
  hsa_code_object_t Code{};
  hsa_executable_t Exec{};
  uint64_t Object = 0;

  HsailKernel(hsa_agent_t Agent, std::vector<uint8_t> &Brig, const char *Name,
              hsa_profile_t Profile = HSA_PROFILE_FULL,
              const hsa_ext_control_directives_t &Directives = {}) {
    hsa_ext_program_t Program;
    check(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, Profile,
                                 HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                 nullptr, &Program),
          "program");
    check(hsa_ext_program_add_module(
              Program, reinterpret_cast<hsa_ext_module_t>(Brig.data())),
          "add module");
    hsa_isa_t Isa;
    check(hsa_agent_get_info(Agent, HSA_AGENT_INFO_ISA, &Isa), "isa");
    check(hsa_ext_program_finalize(Program, Isa, 0, Directives, nullptr,
                                   HSA_CODE_OBJECT_TYPE_PROGRAM, &Code),
          "finalize");
    hsa_ext_program_destroy(Program);
    check(hsa_executable_create(Profile, HSA_EXECUTABLE_STATE_UNFROZEN, nullptr,
                                &Exec),
          "executable");
    check(hsa_executable_load_code_object(Exec, Agent, Code, nullptr), "load");
    check(hsa_executable_freeze(Exec, nullptr), "freeze");
    hsa_executable_symbol_t Sym;
    check(hsa_executable_get_symbol_by_name(Exec, Name, &Agent, &Sym),
          "symbol");
    check(hsa_executable_symbol_get_info(
              Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &Object),
          "kernel object");
  }
  HsailKernel(const HsailKernel &) = delete;
  HsailKernel &operator=(const HsailKernel &) = delete;
  ~HsailKernel() {
    hsa_executable_destroy(Exec);
    hsa_code_object_destroy(Code);
  }
};

/// Dispatches an N-D grid of Kernel on F's queue and waits.
inline void dispatchAndWait(DispatchFixture &F, uint64_t Kernel,
                            const void *Kernarg, uint32_t Dims,
                            const uint32_t Grid[3], const uint16_t Group[3]) {
  hsa_signal_t Done;
  check(hsa_signal_create(1, 0, nullptr, &Done), "signal");
  const uint64_t Index = hsa_queue_add_write_index_relaxed(F.Queue, 1);
  auto *P = static_cast<hsa_kernel_dispatch_packet_t *>(F.Queue->base_address) +
            (Index & (F.Queue->size - 1));
  std::memset(reinterpret_cast<char *>(P) + 4, 0, sizeof(*P) - 4);
  P->workgroup_size_x = Group[0];
  P->workgroup_size_y = Group[1];
  P->workgroup_size_z = Group[2];
  P->grid_size_x = Grid[0];
  P->grid_size_y = Grid[1];
  P->grid_size_z = Grid[2];
  P->kernel_object = Kernel;
  P->kernarg_address = const_cast<void *>(Kernarg);
  P->completion_signal = Done;
  const uint16_t Header =
      (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t *>(P))
      .store(Header |
                 (uint32_t(Dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS)
                  << 16),
             std::memory_order_release);
  hsa_signal_store_screlease(F.Queue->doorbell_signal,
                             hsa_signal_value_t(Index));
  while (hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
                                   HSA_WAIT_STATE_BLOCKED) != 0)
    ;
  hsa_signal_destroy(Done);
}

} // namespace openhsa::bench

#endif
