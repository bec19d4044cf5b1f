//===- benchmarks/FinalizerBenchmarks.cpp - Finalize and run HSAIL --------===//
//
// Targets (issue "CPU finalizer"): finalizing a small kernel <= 20 ms;
// vector add at >= 80% of a native oneTBB loop's bandwidth; mandelbrot
// within 1.5x of native C++ (-O3 -march=native, oneTBB); all on all cores,
// in the same run. Kernels are the examples' HSAIL (examples/).
//
//===----------------------------------------------------------------------===//
#include "HsailHelpers.h"
#include "NativeKernels.h"
#include "NativeSimdKernels.h"

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

using namespace openhsa::bench;

namespace {

/// Where the examples' HSAIL is: $OPENHSA_EXAMPLES_DIR (for copies of the
/// binary run elsewhere), else the source tree it was built from.
const std::string ExamplesDir = [] {
  const char *Env = std::getenv("OPENHSA_EXAMPLES_DIR");
  return std::string(Env && *Env ? Env : OPENHSA_SOURCE_EXAMPLES_DIR);
}();

// Program create + add module + finalize + executable load + freeze,
// compiled each time (the finalization cache off).
void BM_FinalizeVectorAdd(benchmark::State &State) {
  openhsa::test::ScopedEnv Compile("OPENHSA_FINALIZER_CACHE", "0");
  DispatchFixture F;
  std::vector<uint8_t> Brig =
      assembleFile(ExamplesDir + "/vector_add/vector_add.hsail");
  for (auto _ : State) {
    HsailKernel K(F.Agent, Brig, "&vector_add", HSA_PROFILE_BASE);
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
  HsailKernel K(F.Agent, Brig, "&vector_add", HSA_PROFILE_BASE);
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
  HsailKernel K(F.Agent, Brig, "&mandelbrot", HSA_PROFILE_BASE);
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
    simd::mandelbrot(Out.data(), MandelW, MandelH, MandelIter, -2.2f,
                     -(3.0f / MandelW) * MandelH / 2, 3.0f / MandelW);
}
BENCHMARK(BM_MandelbrotNativeTbb)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
