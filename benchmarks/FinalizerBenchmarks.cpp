//===- benchmarks/FinalizerBenchmarks.cpp - Finalize and run HSAIL --------===//
//
// Targets (issue "CPU finalizer"): finalizing a small kernel <= 20 ms;
// vector add at >= 80% of a native oneTBB loop's bandwidth; mandelbrot
// within 1.5x of native C++ (-O3 -march=native, oneTBB); all on all cores,
// in the same run. Kernels are the examples' HSAIL (examples/).
//
//===----------------------------------------------------------------------===//
#include "DispatchHelpers.h"
#include "NativeKernels.h"

#include "brig/asm/Assembler.h"
#include "hsa/hsa_ext_finalize.h"

#include <benchmark/benchmark.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace openhsa::bench;

namespace {

std::vector<uint8_t> assembleFile(const std::string &Path) {
  std::ifstream In(Path);
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

/// A finalized, loaded HSAIL kernel on the CPU agent.
struct HsailKernel {
  hsa_code_object_t Code{};
  hsa_executable_t Exec{};
  uint64_t Object = 0;

  HsailKernel(hsa_agent_t Agent, std::vector<uint8_t> &Brig, const char *Name) {
    hsa_ext_program_t Program;
    check(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, HSA_PROFILE_FULL,
                                 HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                 nullptr, &Program),
          "program");
    check(hsa_ext_program_add_module(
              Program, reinterpret_cast<hsa_ext_module_t>(Brig.data())),
          "add module");
    hsa_isa_t Isa;
    check(hsa_agent_get_info(Agent, HSA_AGENT_INFO_ISA, &Isa), "isa");
    hsa_ext_control_directives_t D{};
    check(hsa_ext_program_finalize(Program, Isa, 0, D, nullptr,
                                   HSA_CODE_OBJECT_TYPE_PROGRAM, &Code),
          "finalize");
    hsa_ext_program_destroy(Program);
    check(hsa_executable_create(HSA_PROFILE_FULL, HSA_EXECUTABLE_STATE_UNFROZEN,
                                nullptr, &Exec),
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
  ~HsailKernel() {
    hsa_executable_destroy(Exec);
    hsa_code_object_destroy(Code);
  }
};

/// Dispatches an N-D grid of Kernel on F's queue and waits.
void dispatchAndWait(DispatchFixture &F, uint64_t Kernel, const void *Kernarg,
                     uint32_t Dims, const uint32_t Grid[3],
                     const uint16_t Group[3]) {
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
                                   HSA_WAIT_STATE_ACTIVE) != 0)
    ;
  hsa_signal_destroy(Done);
}

/// Where the examples' HSAIL is: $OPENHSA_EXAMPLES_DIR (for copies of the
/// binary run elsewhere), else the source tree it was built from.
const std::string ExamplesDir = [] {
  const char *Env = std::getenv("OPENHSA_EXAMPLES_DIR");
  return std::string(Env && *Env ? Env : OPENHSA_SOURCE_EXAMPLES_DIR);
}();

// Program create + add module + finalize + executable load + freeze.
void BM_FinalizeVectorAdd(benchmark::State &State) {
  DispatchFixture F;
  std::vector<uint8_t> Brig =
      assembleFile(ExamplesDir + "/vector_add/vector_add.hsail");
  for (auto _ : State) {
    HsailKernel K(F.Agent, Brig, "&vector_add");
    benchmark::DoNotOptimize(K.Object);
  }
}
BENCHMARK(BM_FinalizeVectorAdd)->Unit(benchmark::kMillisecond)->UseRealTime();

constexpr uint32_t VectorN = 1u << 24;

struct VectorData {
  std::vector<float> A, B, C;
  VectorData() : A(VectorN, 1.0f), B(VectorN, 2.0f), C(VectorN, 0.0f) {}
};

void BM_VectorAddHsail(benchmark::State &State) {
  DispatchFixture F;
  std::vector<uint8_t> Brig =
      assembleFile(ExamplesDir + "/vector_add/vector_add.hsail");
  HsailKernel K(F.Agent, Brig, "&vector_add");
  VectorData D;
  struct {
    const float *A, *B;
    float *C;
    uint32_t N;
  } Args{D.A.data(), D.B.data(), D.C.data(), VectorN};
  const uint32_t Grid[3] = {VectorN, 1, 1};
  const uint16_t Group[3] = {256, 1, 1};
  for (auto _ : State)
    dispatchAndWait(F, K.Object, &Args, 1, Grid, Group);
  State.SetBytesProcessed(State.iterations() * int64_t(VectorN) * 12);
}
BENCHMARK(BM_VectorAddHsail)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_VectorAddNativeTbb(benchmark::State &State) {
  VectorData D;
  for (auto _ : State)
    nativeVectorAdd(D.A.data(), D.B.data(), D.C.data(), VectorN);
  State.SetBytesProcessed(State.iterations() * int64_t(VectorN) * 12);
}
BENCHMARK(BM_VectorAddNativeTbb)->Unit(benchmark::kMillisecond)->UseRealTime();

constexpr uint32_t MandelW = 1920, MandelH = 1080, MandelIter = 256;

void BM_MandelbrotHsail(benchmark::State &State) {
  DispatchFixture F;
  std::vector<uint8_t> Brig =
      assembleFile(ExamplesDir + "/mandelbrot/mandelbrot.hsail");
  HsailKernel K(F.Agent, Brig, "&mandelbrot");
  std::vector<uint32_t> Out(size_t(MandelW) * MandelH);
  struct {
    uint32_t *Out;
    uint32_t W, H, Iter;
    float X0, Y0, Step;
  } Args{Out.data(),    MandelW, MandelH,
         MandelIter,    -2.2f,   -(3.0f / MandelW) * MandelH / 2,
         3.0f / MandelW};
  const uint32_t Grid[3] = {MandelW, MandelH, 1};
  const uint16_t Group[3] = {16, 16, 1};
  for (auto _ : State)
    dispatchAndWait(F, K.Object, &Args, 2, Grid, Group);
}
BENCHMARK(BM_MandelbrotHsail)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MandelbrotNativeTbb(benchmark::State &State) {
  std::vector<uint32_t> Out(size_t(MandelW) * MandelH);
  for (auto _ : State)
    nativeMandelbrot(Out.data(), MandelW, MandelH, MandelIter, -2.2f,
                     -(3.0f / MandelW) * MandelH / 2, 3.0f / MandelW);
}
BENCHMARK(BM_MandelbrotNativeTbb)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
