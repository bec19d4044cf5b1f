//===- benchmarks/SimdBenchmarks.cpp - HSAIL against hand-vectorized C++ --===//
//
// Issue 9: each kernel of benchmarks/kernels/ finalized and dispatched on
// the CPU agent through the public HSA API, vectorized (BM_<K>Hsail) and
// with the vectorizer off (BM_<K>HsailScalar: OPENHSA_VECTORIZE=0 while it
// is finalized), beside its hand-vectorized oneTBB twin
// (BM_<K>Native, NativeSimdKernels.cpp: the kernel's algorithm) and the
// kernel's warm finalization time, compiled (BM_Finalize<K>) and served by
// the finalization cache (BM_FinalizeCached<K>), and the time to its
// first result (BM_FirstRun<K>: finalize and the first dispatch, which
// finalizes what the kernel's shape variants defer), all in one run. Where
// a better algorithm is well known, its twin runs too, as a reference
// (BM_SgemmNaiveNativeBlocked, BM_SgemmTiledNativeBlocked,
// BM_ReductionNativeFlat, BM_HistogramNativePrivate). Every HSAIL benchmark
// first checks its output against the native twin's, and every reference
// its own against the twin's, and aborts on a mismatch.
//
//===----------------------------------------------------------------------===//
#include "HsailHelpers.h"
#include "NativeSimdKernels.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace openhsa::bench;

namespace {

/// Where the kernels' HSAIL is: $OPENHSA_BENCH_KERNELS_DIR (for copies of
/// the binary run elsewhere), else the source tree it was built from.
const std::string KernelsDir = [] {
  const char *Env = std::getenv("OPENHSA_BENCH_KERNELS_DIR");
  return std::string(Env && *Env ? Env : OPENHSA_SOURCE_BENCH_KERNELS_DIR);
}();

/// How a benchmark finalizes its kernel: as is; with OPENHSA_VECTORIZE=0
/// in the environment for the finalization only (the finalizer reads it
/// then); or told the group shape the case dispatches with
/// (requiredworkgroupsize, and requirenopartialworkgroups where its grid
/// is a multiple of it), as a program that knows it can say.
enum class Finalize { Plain, Scalar, FixedShape, SideBySide };

constexpr uint64_t controlBit(unsigned BrigControl) {
  return uint64_t(1) << BrigControl;
}

template <typename Case> hsa_ext_control_directives_t fixedShape() {
  hsa_ext_control_directives_t D{};
  D.control_directives_mask = controlBit(8); // requiredworkgroupsize
  if (Case::WholeGroups)
    D.control_directives_mask |= controlBit(9); // requirenopartialworkgroups
  D.required_workgroup_size = {Case::Shape[0], Case::Shape[1], Case::Shape[2]};
  return D;
}

template <typename Case>
std::unique_ptr<HsailKernel>
finalizeKernel(hsa_agent_t Agent, std::vector<uint8_t> &Brig, Finalize How) {
  if (How == Finalize::FixedShape)
    return std::make_unique<HsailKernel>(Agent, Brig, Case::Symbol,
                                         HSA_PROFILE_FULL, fixedShape<Case>());
  std::optional<openhsa::test::ScopedEnv> Off;
  if (How == Finalize::Scalar)
    Off.emplace("OPENHSA_VECTORIZE", "0");
  return std::make_unique<HsailKernel>(Agent, Brig, Case::Symbol);
}

/// Aborts unless Got (HSAIL) and Want (native) agree: exactly for
/// integers, within Tol relative to max(|want|, 1) for floats.
template <typename T>
void compare(const char *Kernel, const char *How, const T *Got, const T *Want,
             size_t N, double Tol = 0) {
  for (size_t I = 0; I < N; ++I) {
    const double G = double(Got[I]), W = double(Want[I]);
    const bool Ok = Tol == 0
                        ? Got[I] == Want[I]
                        : std::fabs(G - W) <= Tol * std::max(std::fabs(W), 1.0);
    if (!Ok) {
      std::fprintf(stderr,
                   "%s (%s): HSAIL output [%zu] = %.9g, native %.9g: the "
                   "results differ\n",
                   Kernel, How, I, G, W);
      std::abort();
    }
  }
}

std::vector<float> randomFloats(size_t N, float Lo, float Hi, unsigned Seed) {
  std::mt19937 R(Seed);
  std::uniform_real_distribution<float> D(Lo, Hi);
  std::vector<float> V(N);
  for (float &X : V)
    X = D(R);
  return V;
}

std::vector<uint32_t> randomU32(size_t N, uint32_t Hi, unsigned Seed) {
  std::mt19937 R(Seed);
  std::uniform_int_distribution<uint32_t> D(0, Hi);
  std::vector<uint32_t> V(N);
  for (uint32_t &X : V)
    X = D(R);
  return V;
}

// Each case holds one kernel's data: hsail() dispatches the finalized
// kernel in groups of Shape (WholeGroups: its grid is a multiple of it;
// Finalize::FixedShape tells the finalizer both), native() runs the twin,
// check() compares their outputs.

constexpr uint32_t VectorN = 1u << 24;

struct VectorAddCase {
  static constexpr uint16_t Shape[3] = {256, 1, 1};
  static constexpr bool WholeGroups = true;
  static constexpr const char *File = "vector_add.hsail",
                              *Symbol = "&vector_add";
  std::vector<float> A = randomFloats(VectorN, -1, 1, 1),
                     B = randomFloats(VectorN, -1, 1, 2),
                     CH = std::vector<float>(VectorN),
                     CN = std::vector<float>(VectorN);
  void hsail(DispatchFixture &F, uint64_t K) {
    struct {
      const float *A, *B;
      float *C;
      uint32_t N;
    } Args{A.data(), B.data(), CH.data(), VectorN};
    const uint32_t Grid[3] = {VectorN, 1, 1};
    dispatchAndWait(F, K, &Args, 1, Grid, Shape);
  }
  void native() { simd::vectorAdd(A.data(), B.data(), CN.data(), VectorN); }
  void check(const char *How) {
    compare("vector_add", How, CH.data(), CN.data(), VectorN);
  }
};

struct SaxpyCase {
  static constexpr uint16_t Shape[3] = {256, 1, 1};
  static constexpr bool WholeGroups = true;
  static constexpr const char *File = "saxpy.hsail", *Symbol = "&saxpy";
  static constexpr float Alpha = 2.5f;
  std::vector<float> X = randomFloats(VectorN, -1, 1, 3),
                     Y = randomFloats(VectorN, -1, 1, 4),
                     OH = std::vector<float>(VectorN),
                     ON = std::vector<float>(VectorN);
  void hsail(DispatchFixture &F, uint64_t K) {
    struct {
      const float *X, *Y;
      float *Out;
      float A;
      uint32_t N;
    } Args{X.data(), Y.data(), OH.data(), Alpha, VectorN};
    const uint32_t Grid[3] = {VectorN, 1, 1};
    dispatchAndWait(F, K, &Args, 1, Grid, Shape);
  }
  void native() { simd::saxpy(X.data(), Y.data(), ON.data(), Alpha, VectorN); }
  void check(const char *How) {
    compare("saxpy", How, OH.data(), ON.data(), VectorN);
  }
};

constexpr uint32_t GemmN = 1024;

template <bool Tiled> struct SgemmCase {
  static constexpr uint16_t Shape[3] = {16, 16, 1};
  static constexpr bool WholeGroups = true;
  static constexpr const char *File =
      Tiled ? "sgemm_tiled.hsail" : "sgemm_naive.hsail";
  static constexpr const char *Symbol = Tiled ? "&sgemm_tiled" : "&sgemm_naive";
  std::vector<float> A = randomFloats(size_t(GemmN) * GemmN, -1, 1, 5),
                     B = randomFloats(size_t(GemmN) * GemmN, -1, 1, 6),
                     CH = std::vector<float>(size_t(GemmN) * GemmN),
                     CN = std::vector<float>(size_t(GemmN) * GemmN),
                     CR = std::vector<float>(size_t(GemmN) * GemmN);
  void hsail(DispatchFixture &F, uint64_t K) {
    struct {
      const float *A, *B;
      float *C;
      uint32_t N;
    } Args{A.data(), B.data(), CH.data(), GemmN};
    const uint32_t Grid[3] = {GemmN, GemmN, 1};
    dispatchAndWait(F, K, &Args, 2, Grid, Shape);
  }
  void native() {
    (Tiled ? simd::sgemmTiled : simd::sgemmNaive)(A.data(), B.data(), CN.data(),
                                                  GemmN);
  }
  // The register-blocked reference (BM_<K>NativeBlocked).
  void reference() {
    (Tiled ? simd::sgemmBlockedK : simd::sgemmBlocked)(A.data(), B.data(),
                                                       CR.data(), GemmN);
  }
  // Same sums in the same order (ascending k, fused): equal but for
  // what the tolerance allows.
  void check(const char *How) {
    compare(Symbol + 1, How, CH.data(), CN.data(), CH.size(), 1e-5);
  }
  void checkReference() {
    compare(Symbol + 1, "blocked reference against the twin", CR.data(),
            CN.data(), CR.size(), 1e-5);
  }
};
using SgemmNaiveCase = SgemmCase<false>;
using SgemmTiledCase = SgemmCase<true>;

struct ScanCase {
  static constexpr uint16_t Shape[3] = {256, 1, 1};
  static constexpr bool WholeGroups = true;
  static constexpr const char *File = "scan.hsail", *Symbol = "&scan";
  static constexpr uint32_t N = VectorN / 4;
  std::vector<uint32_t> In = [] {
    std::vector<uint32_t> V(N);
    for (uint32_t I = 0; I < N; ++I)
      V[I] = I * 2654435761u >> 20;
    return V;
  }();
  std::vector<uint32_t> OH = std::vector<uint32_t>(N),
                        ON = std::vector<uint32_t>(N),
                        OR = std::vector<uint32_t>(N);
  void hsail(DispatchFixture &F, uint64_t K) {
    struct {
      const uint32_t *In;
      uint32_t *Out;
    } Args{In.data(), OH.data()};
    const uint32_t Grid[3] = {N, 1, 1};
    dispatchAndWait(F, K, &Args, 1, Grid, Shape);
  }
  void native() { simd::scanSteps(In.data(), ON.data(), N); }
  // The running carry's reference (BM_ScanNativeCarry).
  void reference() { simd::scanCarry(In.data(), OR.data(), N); }
  void check(const char *How) { compare("scan", How, OH.data(), ON.data(), N); }
  void checkReference() {
    compare("scan", "carry reference against the twin", OR.data(), ON.data(),
            N);
  }
};

struct ReductionCase {
  static constexpr uint16_t Shape[3] = {256, 1, 1};
  static constexpr bool WholeGroups = true;
  static constexpr const char *File = "reduction.hsail", *Symbol = "&reduce";
  static constexpr uint32_t Group = Shape[0], Groups = VectorN / Group;
  // Multiples of 1/4 below 4: every partial sum of either version is
  // exact in float, so the totals agree whatever the summation order.
  std::vector<float> In = [] {
    std::vector<float> V(VectorN);
    for (uint32_t I = 0; I < VectorN; ++I)
      V[I] = float((I * 7u) % 16u) * 0.25f;
    return V;
  }();
  std::vector<float> Partial = std::vector<float>(Groups),
                     PartialN = std::vector<float>(Groups);
  double SumH = 0, SumN = 0, SumR = 0;
  void hsail(DispatchFixture &F, uint64_t K) {
    struct {
      const float *In;
      float *Partial;
      uint32_t N;
    } Args{In.data(), Partial.data(), VectorN};
    const uint32_t Grid[3] = {VectorN, 1, 1};
    dispatchAndWait(F, K, &Args, 1, Grid, Shape);
    double S = 0; // The second pass: the host sums the partial sums.
    for (float P : Partial)
      S += P;
    SumH = S;
  }
  void native() {
    simd::reduceTree(In.data(), VectorN, PartialN.data());
    double S = 0; // The host's second pass, as in hsail().
    for (float P : PartialN)
      S += P;
    SumN = S;
  }
  // The flat parallel_reduce reference (BM_ReductionNativeFlat).
  void reference() { SumR = simd::reduceFlat(In.data(), VectorN); }
  void check(const char *How) {
    // The twin adds the same pairs as the kernel's tree: equal partials.
    compare("reduction partial sums", How, Partial.data(), PartialN.data(),
            Groups);
    compare("reduction", How, &SumH, &SumN, 1, 1e-6);
  }
  void checkReference() {
    compare("reduction", "flat reference against the twin", &SumR, &SumN, 1,
            1e-6);
  }
};

struct MandelbrotCase {
  static constexpr uint16_t Shape[3] = {16, 16, 1};
  static constexpr bool WholeGroups = true;
  static constexpr const char *File = "mandelbrot.hsail",
                              *Symbol = "&mandelbrot";
  static constexpr uint32_t W = 1024, H = 1024, Iter = 256;
  static constexpr float X0 = -2.0f, Y0 = -1.5f, Step = 3.0f / W;
  std::vector<uint32_t> OH = std::vector<uint32_t>(size_t(W) * H),
                        ON = std::vector<uint32_t>(size_t(W) * H);
  void hsail(DispatchFixture &F, uint64_t K) {
    struct {
      uint32_t *Out;
      uint32_t W, H, Iter;
      float X0, Y0, Step;
    } Args{OH.data(), W, H, Iter, X0, Y0, Step};
    const uint32_t Grid[3] = {W, H, 1};
    dispatchAndWait(F, K, &Args, 2, Grid, Shape);
  }
  void native() { simd::mandelbrot(ON.data(), W, H, Iter, X0, Y0, Step); }
  void check(const char *How) {
    compare("mandelbrot", How, OH.data(), ON.data(), OH.size());
  }
};

struct NbodyCase {
  static constexpr uint16_t Shape[3] = {256, 1, 1};
  static constexpr bool WholeGroups = true;
  static constexpr const char *File = "nbody.hsail", *Symbol = "&nbody";
  static constexpr uint32_t N = 8192;
  static constexpr float Dt = 0.01f, Eps2 = 0.01f; // Softening 0.1 squared.
  std::vector<float> Pos = [] {
    std::vector<float> P = randomFloats(size_t(N) * 4, -1, 1, 7);
    for (uint32_t I = 0; I < N; ++I)
      P[I * 4 + 3] = 0.5f + 0.25f * (P[I * 4 + 3] + 1); // Mass in [0.5, 1].
    return P;
  }();
  std::vector<float> Vel = randomFloats(size_t(N) * 4, -0.1f, 0.1f, 8),
                     PH = std::vector<float>(size_t(N) * 4),
                     VH = std::vector<float>(size_t(N) * 4),
                     PN = std::vector<float>(size_t(N) * 4),
                     VN = std::vector<float>(size_t(N) * 4);
  uint16_t Group[3] = {Shape[0], Shape[1], Shape[2]}; // Others: below.
  void hsail(DispatchFixture &F, uint64_t K) {
    struct {
      const float *Pos, *Vel;
      float *PosOut, *VelOut;
      uint32_t N;
      float Dt, Eps2;
    } Args{Pos.data(), Vel.data(), PH.data(), VH.data(), N, Dt, Eps2};
    const uint32_t Grid[3] = {N, 1, 1};
    dispatchAndWait(F, K, &Args, 1, Grid, Group);
  }
  void native() {
    simd::nbody(Pos.data(), Vel.data(), PN.data(), VN.data(), N, Dt, Eps2);
  }
  void check(const char *How) {
    compare("nbody positions", How, PH.data(), PN.data(), PH.size(), 1e-5);
    compare("nbody velocities", How, VH.data(), VN.data(), VH.size(), 1e-5);
  }
};

struct StencilCase {
  static constexpr uint16_t Shape[3] = {16, 16, 1};
  static constexpr bool WholeGroups = false;
  static constexpr const char *File = "stencil.hsail", *Symbol = "&stencil";
  static constexpr uint32_t W = 4096, H = 4096;
  std::vector<float> In = randomFloats(size_t(W) * H, 0, 1, 9),
                     OH = std::vector<float>(size_t(W) * H),
                     ON = std::vector<float>(size_t(W) * H);
  uint16_t Group[3] = {Shape[0], Shape[1], Shape[2]}; // Others: below.
  void hsail(DispatchFixture &F, uint64_t K) {
    struct {
      const float *In;
      float *Out;
      uint32_t W;
    } Args{In.data(), OH.data(), W};
    const uint32_t Grid[3] = {W - 2, H - 2, 1};
    dispatchAndWait(F, K, &Args, 2, Grid, Group);
  }
  void native() { simd::stencil(In.data(), ON.data(), W, H); }
  void check(const char *How) {
    compare("stencil", How, OH.data(), ON.data(), OH.size(), 1e-6);
  }
};

// The same kernels with other work-group shapes (the application's
// choice): stencil's groups as rows of 256 work-items, nbody's as 64
// work-items (128 groups instead of 32, for 16 workers).
// The tiled product's twin with its tile copies kept in memory
// (NativeSimdKernels.h), as its reference.
struct SgemmTiledThroughMemoryCase : SgemmTiledCase {
  void reference() {
    simd::sgemmTiledThroughMemory(A.data(), B.data(), CR.data(), GemmN);
  }
  void checkReference() {
    compare("sgemm_tiled", "twin through memory against the twin", CR.data(),
            CN.data(), CR.size(), 1e-5);
  }
};

// The stencil's grid, each point's median of nine in a private array.
struct Median3x3Case {
  static constexpr uint16_t Shape[3] = {16, 16, 1};
  static constexpr bool WholeGroups = false;
  static constexpr const char *File = "median3x3.hsail", *Symbol = "&median3x3";
  static constexpr uint32_t W = 4096, H = 4096;
  std::vector<float> In = randomFloats(size_t(W) * H, 0, 1, 10),
                     OH = std::vector<float>(size_t(W) * H),
                     ON = std::vector<float>(size_t(W) * H);
  uint16_t Group[3] = {Shape[0], Shape[1], Shape[2]};
  void hsail(DispatchFixture &F, uint64_t K) {
    struct {
      const float *In;
      float *Out;
      uint32_t W;
    } Args{In.data(), OH.data(), W};
    const uint32_t Grid[3] = {W - 2, H - 2, 1};
    dispatchAndWait(F, K, &Args, 2, Grid, Group);
  }
  void native() { simd::median3x3(In.data(), ON.data(), W, H); }
  void check(const char *How) {
    compare("median3x3", How, OH.data(), ON.data(), OH.size());
  }
};

struct StencilRowsCase : StencilCase {
  StencilRowsCase() { Group[0] = 256, Group[1] = 1; }
};
struct Median3x3RowsCase : Median3x3Case {
  Median3x3RowsCase() { Group[0] = 256, Group[1] = 1; }
};
struct NbodyGroups64Case : NbodyCase {
  NbodyGroups64Case() { Group[0] = 64; }
};

struct HistogramCase {
  static constexpr uint16_t Shape[3] = {256, 1, 1};
  static constexpr bool WholeGroups = true;
  static constexpr const char *File = "histogram.hsail", *Symbol = "&histogram";
  std::vector<uint32_t> In = randomU32(VectorN, UINT32_MAX, 10),
                        BH = std::vector<uint32_t>(256),
                        BN = std::vector<uint32_t>(256),
                        BR = std::vector<uint32_t>(256);
  void hsail(DispatchFixture &F, uint64_t K) {
    std::fill(BH.begin(), BH.end(), 0);
    struct {
      const uint32_t *In;
      uint32_t *Bins;
      uint32_t N;
    } Args{In.data(), BH.data(), VectorN};
    const uint32_t Grid[3] = {VectorN, 1, 1};
    dispatchAndWait(F, K, &Args, 1, Grid, Shape);
  }
  void native() { simd::histogram(In.data(), VectorN, BN.data()); }
  // The per-thread histograms reference (BM_HistogramNativePrivate).
  void reference() { simd::histogramPrivate(In.data(), VectorN, BR.data()); }
  void check(const char *How) {
    compare("histogram", How, BH.data(), BN.data(), 256);
  }
  void checkReference() {
    compare("histogram", "private reference against the twin", BR.data(),
            BN.data(), 256);
  }
};

struct BinarySearchCase {
  static constexpr uint16_t Shape[3] = {256, 1, 1};
  static constexpr bool WholeGroups = true;
  static constexpr const char *File = "binary_search.hsail",
                              *Symbol = "&binary_search";
  static constexpr uint32_t TableN = 1u << 20, N = 1u << 22;
  // Strictly increasing: entry i is in [4i, 4i + 3].
  std::vector<uint32_t> Table = [] {
    std::vector<uint32_t> T = randomU32(TableN, 3, 11);
    for (uint32_t I = 0; I < TableN; ++I)
      T[I] += 4 * I;
    return T;
  }();
  std::vector<uint32_t> Keys = randomU32(N, 4 * TableN + 8, 12),
                        OH = std::vector<uint32_t>(N),
                        ON = std::vector<uint32_t>(N);
  void hsail(DispatchFixture &F, uint64_t K) {
    struct {
      const uint32_t *Table, *Keys;
      uint32_t *Out;
      uint32_t TableN, N;
    } Args{Table.data(), Keys.data(), OH.data(), TableN, N};
    const uint32_t Grid[3] = {N, 1, 1};
    dispatchAndWait(F, K, &Args, 1, Grid, Shape);
  }
  void native() {
    simd::binarySearch(Table.data(), TableN, Keys.data(), ON.data(), N);
  }
  void check(const char *How) {
    // The native search is branchless; check it against the library's.
    for (uint32_t I = 0; I < N; I += 997) {
      const uint32_t Want =
          uint32_t(std::lower_bound(Table.begin(), Table.end(), Keys[I]) -
                   Table.begin());
      compare("binary_search (native against std::lower_bound)", How, &ON[I],
              &Want, 1);
    }
    compare("binary_search", How, OH.data(), ON.data(), N);
  }
};

template <typename Case>
void hsailBench(benchmark::State &State, Finalize How = Finalize::Plain) {
  DispatchFixture F;
  std::vector<uint8_t> Brig = assembleFile(KernelsDir + "/" + Case::File);
  auto K = finalizeKernel<Case>(F.Agent, Brig, How);
  auto C = std::make_unique<Case>();
  C->native();
  C->hsail(F, K->Object);
  C->check(How == Finalize::Scalar       ? "scalar"
           : How == Finalize::FixedShape ? "vectorized, fixed group shape"
           : How == Finalize::SideBySide ? "vectorized, private side by side"
                                         : "vectorized");
  for (auto _ : State)
    C->hsail(F, K->Object);
}

template <typename Case> void nativeBench(benchmark::State &State) {
  auto C = std::make_unique<Case>();
  for (auto _ : State)
    C->native();
}

// The best-known-algorithm reference of a case, checked against its twin.
template <typename Case> void referenceBench(benchmark::State &State) {
  auto C = std::make_unique<Case>();
  C->native();
  C->reference();
  C->checkReference();
  for (auto _ : State)
    C->reference();
}

// Warm: program create + add module + finalize + executable load +
// freeze, repeated in one process. Compiled each time (the finalization
// cache off: BM_Finalize<K>; told the case's group shape:
// BM_FinalizeFixed<K>), or, after the first, served from the cache
// (finalizer/FinalizeCache.h, its in-process level: BM_FinalizeCached<K>).
template <typename Case>
void finalizeBench(benchmark::State &State, bool Cached,
                   Finalize How = Finalize::Plain) {
  openhsa::test::ScopedEnv Cache("OPENHSA_FINALIZER_CACHE",
                                 Cached ? "memory" : "0");
  DispatchFixture F;
  std::vector<uint8_t> Brig = assembleFile(KernelsDir + "/" + Case::File);
  for (auto _ : State) {
    auto K = finalizeKernel<Case>(F.Agent, Brig, How);
    benchmark::DoNotOptimize(K->Object);
  }
}

// A program of every kernel above (each file a module), finalized at once
// (the cache off): its kernels compiled one after the other (Arg 1: one
// finalization thread) or each on a thread of its own (Arg 0: the host's
// threads; finalizer/ParallelKernels.h).
void BM_FinalizeAllKernels(benchmark::State &State) {
  openhsa::test::ScopedEnv Cache("OPENHSA_FINALIZER_CACHE", "0");
  std::optional<openhsa::test::ScopedEnv> Threads;
  if (State.range(0))
    Threads.emplace("OPENHSA_FINALIZE_THREADS",
                    std::to_string(State.range(0)).c_str());
  DispatchFixture F;
  std::vector<std::vector<uint8_t>> Brigs;
  for (const char *File :
       {"vector_add.hsail", "saxpy.hsail", "sgemm_naive.hsail",
        "sgemm_tiled.hsail", "reduction.hsail", "scan.hsail",
        "mandelbrot.hsail", "nbody.hsail", "stencil.hsail", "histogram.hsail",
        "binary_search.hsail"})
    Brigs.push_back(assembleFile(KernelsDir + "/" + File));
  hsa_isa_t Isa;
  check(hsa_agent_get_info(F.Agent, HSA_AGENT_INFO_ISA, &Isa), "isa");
  for (auto _ : State) {
    hsa_ext_program_t Program;
    check(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, HSA_PROFILE_FULL,
                                 HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                 nullptr, &Program),
          "program");
    for (std::vector<uint8_t> &Brig : Brigs)
      check(hsa_ext_program_add_module(
                Program, reinterpret_cast<hsa_ext_module_t>(Brig.data())),
            "add module");
    hsa_code_object_t Code;
    check(hsa_ext_program_finalize(Program, Isa, 0, {}, nullptr,
                                   HSA_CODE_OBJECT_TYPE_PROGRAM, &Code),
          "finalize");
    hsa_ext_program_destroy(Program);
    hsa_code_object_destroy(Code);
  }
}
BENCHMARK(BM_FinalizeAllKernels)
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The time to a first result: finalize, load, and the first dispatch, which
// finalizes the variant for its shape where the kernel has them, and the
// kernel's deferred code where that dispatch needs it
// (runtime/ShapeVariants.h); the finalization cache off. The dispatch's own
// time is BM_<K>Hsail's.
template <typename Case> void firstRunBench(benchmark::State &State) {
  openhsa::test::ScopedEnv Cache("OPENHSA_FINALIZER_CACHE", "0");
  DispatchFixture F;
  std::vector<uint8_t> Brig = assembleFile(KernelsDir + "/" + Case::File);
  auto C = std::make_unique<Case>();
  for (auto _ : State) {
    auto K = finalizeKernel<Case>(F.Agent, Brig, Finalize::Plain);
    C->hsail(F, K->Object);
  }
}

#define SIMD_BENCHMARKS(Name)                                                  \
  void BM_##Name##Hsail(benchmark::State &S) { hsailBench<Name##Case>(S); }    \
  void BM_##Name##HsailScalar(benchmark::State &S) {                           \
    hsailBench<Name##Case>(S, Finalize::Scalar);                               \
  }                                                                            \
  void BM_##Name##HsailFixed(benchmark::State &S) {                            \
    hsailBench<Name##Case>(S, Finalize::FixedShape);                           \
  }                                                                            \
  void BM_##Name##Native(benchmark::State &S) { nativeBench<Name##Case>(S); }  \
  void BM_Finalize##Name(benchmark::State &S) {                                \
    finalizeBench<Name##Case>(S, false);                                       \
  }                                                                            \
  void BM_FinalizeCached##Name(benchmark::State &S) {                          \
    finalizeBench<Name##Case>(S, true);                                        \
  }                                                                            \
  void BM_FinalizeFixed##Name(benchmark::State &S) {                           \
    finalizeBench<Name##Case>(S, false, Finalize::FixedShape);                 \
  }                                                                            \
  void BM_FirstRun##Name(benchmark::State &S) {                                \
    firstRunBench<Name##Case>(S);                                              \
  }                                                                            \
  BENCHMARK(BM_##Name##Hsail)->Unit(benchmark::kMillisecond)->UseRealTime();   \
  BENCHMARK(BM_##Name##HsailScalar)                                            \
      ->Unit(benchmark::kMillisecond)                                          \
      ->UseRealTime();                                                         \
  BENCHMARK(BM_##Name##HsailFixed)                                             \
      ->Unit(benchmark::kMillisecond)                                          \
      ->UseRealTime();                                                         \
  BENCHMARK(BM_##Name##Native)->Unit(benchmark::kMillisecond)->UseRealTime();  \
  BENCHMARK(BM_Finalize##Name)->Unit(benchmark::kMillisecond)->UseRealTime();  \
  BENCHMARK(BM_FinalizeCached##Name)                                           \
      ->Unit(benchmark::kMillisecond)                                          \
      ->UseRealTime();                                                         \
  BENCHMARK(BM_FinalizeFixed##Name)                                            \
      ->Unit(benchmark::kMillisecond)                                          \
      ->UseRealTime();                                                         \
  BENCHMARK(BM_FirstRun##Name)->Unit(benchmark::kMillisecond)->UseRealTime()

#define SIMD_REFERENCE(Name, Suffix)                                           \
  void BM_##Name##Native##Suffix(benchmark::State &S) {                        \
    referenceBench<Name##Case>(S);                                             \
  }                                                                            \
  BENCHMARK(BM_##Name##Native##Suffix)                                         \
      ->Unit(benchmark::kMillisecond)                                          \
      ->UseRealTime()

SIMD_BENCHMARKS(VectorAdd);
SIMD_BENCHMARKS(Saxpy);
SIMD_BENCHMARKS(SgemmNaive);
SIMD_REFERENCE(SgemmNaive, Blocked);
SIMD_BENCHMARKS(SgemmTiled);
SIMD_REFERENCE(SgemmTiled, Blocked);
SIMD_BENCHMARKS(Reduction);
SIMD_REFERENCE(Reduction, Flat);
SIMD_BENCHMARKS(Scan);
SIMD_REFERENCE(Scan, Carry);
SIMD_BENCHMARKS(Mandelbrot);
SIMD_BENCHMARKS(Nbody);
SIMD_BENCHMARKS(Stencil);
SIMD_BENCHMARKS(Histogram);
SIMD_REFERENCE(Histogram, Private);
SIMD_BENCHMARKS(BinarySearch);
SIMD_BENCHMARKS(Median3x3);
// The median's private array with the lanes' blocks side by side, as
// before interleaving (finalizer/PrivateInterleaving.h): gathers and
// scatters. Set for the whole run: the first dispatch finalizes the
// kernel's partial-wave code, and with it the kernel, again.
void BM_Median3x3SideBySideHsail(benchmark::State &S) {
  openhsa::test::ScopedEnv Off("OPENHSA_INTERLEAVE_PRIVATE", "0");
  hsailBench<Median3x3Case>(S, Finalize::SideBySide);
}
void BM_Median3x3RowsSideBySideHsail(benchmark::State &S) {
  openhsa::test::ScopedEnv Off("OPENHSA_INTERLEAVE_PRIVATE", "0");
  hsailBench<Median3x3RowsCase>(S, Finalize::SideBySide);
}
BENCHMARK(BM_Median3x3SideBySideHsail)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Median3x3RowsSideBySideHsail)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_StencilRowsHsail(benchmark::State &S) {
  hsailBench<StencilRowsCase>(S);
}
void BM_Median3x3RowsHsail(benchmark::State &S) {
  hsailBench<Median3x3RowsCase>(S);
}
void BM_NbodyGroups64Hsail(benchmark::State &S) {
  hsailBench<NbodyGroups64Case>(S);
}
BENCHMARK(BM_StencilRowsHsail)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Median3x3RowsHsail)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_NbodyGroups64Hsail)->Unit(benchmark::kMillisecond)->UseRealTime();
void BM_SgemmTiledNativeThroughMemory(benchmark::State &S) {
  referenceBench<SgemmTiledThroughMemoryCase>(S);
}
BENCHMARK(BM_SgemmTiledNativeThroughMemory)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The machine's ceiling for scaling (simd::computeCeiling): run it on one
// core (taskset -c 0) and on all to see what all cores give code that
// shares nothing; no kernel's scaling can beat it. Argument: 1 the vector
// chains (at the vector unit's frequency under load), 0 the scalar ones.
// 4096 tasks of about 3-6 us on one core: the twins' grain.
void BM_ComputeCeiling(benchmark::State &S) {
  const bool Vector = S.range(0) != 0;
  std::vector<float> Out(4096);
  for (auto _ : S)
    simd::computeCeiling(Out.data(), uint32_t(Out.size()), Vector ? 2048 : 1024,
                         Vector);
  benchmark::DoNotOptimize(Out.data());
}
BENCHMARK(BM_ComputeCeiling)
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

} // namespace

int main(int argc, char **argv) {
#ifdef OPENHSA_BENCH_CPU_TARGET
  // openhsa-bench-simd-avx2: the twins are compiled for this x86-64 level,
  // and the finalizer compiles the kernels for it too (abi/CpuTarget.h),
  // unless the environment names another target.
  setenv("OPENHSA_CPU_TARGET", OPENHSA_BENCH_CPU_TARGET, /*overwrite=*/0);
#endif
  if (const char *Target = std::getenv("OPENHSA_CPU_TARGET"))
    benchmark::AddCustomContext("openhsa_cpu_target", Target);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
