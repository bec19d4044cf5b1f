//===- benchmarks/GpuBenchmarks.cpp - HSAIL on GPU agents vs CUDA twins ---===//
//
// Issue 11: the benchmark kernels (kernels/*.hsail) finalized for the GPU
// agent and dispatched through AQL, against CUDA C++ twins (cuda/twins.cu)
// that nvcc compiled to PTX on the GPU machine, launched with the driver
// API in the same process: each iteration is one dispatch (packet ->
// completion signal) or one cuLaunchKernel + cuStreamSynchronize.
// Buffers live in device memory. OPENHSA_BENCH_CUDA_TWINS names the twins'
// PTX; without it (or without a GPU agent) the benchmarks are skipped.
// BM_*Persistent time the prototype of a persistent GPU-side packet
// processor (PersistentProcessor below) on the same machine.
//
//===----------------------------------------------------------------------===//
#include "brig/asm/Assembler.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_finalize.h"

#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <regex>
#include <string>
#include <vector>

namespace {

void check(hsa_status_t S, const char *What) {
  if (S != HSA_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s failed: 0x%x\n", What, unsigned(S));
    std::abort();
  }
}

std::string readFile(const std::string &Path) {
  std::ifstream In(Path);
  return {std::istreambuf_iterator<char>(In), std::istreambuf_iterator<char>()};
}

/// The few driver entry points the twins need (same types as
/// gpu_backend/CudaDriver.h).
struct Cuda {
  using CUfunction = void *;
  int (*DeviceGet)(int *, int);
  int (*PrimaryCtxRetain)(void **, int);
  int (*CtxSetCurrent)(void *);
  int (*ModuleLoadData)(void **, const void *);
  int (*ModuleGetFunction)(CUfunction *, void *, const char *);
  int (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                      unsigned, unsigned, unsigned, void *, void **, void **);
  int (*StreamCreate)(void **, unsigned);
  int (*StreamSynchronize)(void *);
  void *Module = nullptr, *Stream = nullptr, *Persistent = nullptr;

  bool load(const std::string &Ptx) {
    void *L = dlopen("libcuda.so.1", RTLD_NOW);
    if (!L)
      return false;
    auto Get = [&](auto &Fn, const char *Name) {
      Fn = reinterpret_cast<std::remove_reference_t<decltype(Fn)>>(
          dlsym(L, Name));
      return Fn != nullptr;
    };
    if (!Get(DeviceGet, "cuDeviceGet") ||
        !Get(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain") ||
        !Get(CtxSetCurrent, "cuCtxSetCurrent") ||
        !Get(ModuleLoadData, "cuModuleLoadData") ||
        !Get(ModuleGetFunction, "cuModuleGetFunction") ||
        !Get(LaunchKernel, "cuLaunchKernel") ||
        !Get(StreamCreate, "cuStreamCreate") ||
        !Get(StreamSynchronize, "cuStreamSynchronize"))
      return false;
    int Dev = 0;
    void *Ctx = nullptr;
    return DeviceGet(&Dev, 0) == 0 && PrimaryCtxRetain(&Ctx, Dev) == 0 &&
           CtxSetCurrent(Ctx) == 0 &&
           ModuleLoadData(&Module, Ptx.c_str()) == 0 &&
           StreamCreate(&Stream, 1) == 0 && StreamCreate(&Persistent, 1) == 0;
  }
  CUfunction function(const char *Name) {
    CUfunction F = nullptr;
    if (ModuleGetFunction(&F, Module, Name) != 0) {
      std::fprintf(stderr, "no %s in the twins' PTX\n", Name);
      std::abort();
    }
    return F;
  }
  void run(CUfunction F, const unsigned (&Blocks)[3],
           const unsigned (&Threads)[3], void **Args) {
    if (LaunchKernel(F, Blocks[0], Blocks[1], Blocks[2], Threads[0], Threads[1],
                     Threads[2], 0, Stream, Args, nullptr) != 0 ||
        StreamSynchronize(Stream) != 0) {
      std::fprintf(stderr, "a CUDA twin failed\n");
      std::abort();
    }
  }
};

/// The GPU agent, its queue and regions, and the twins; null when absent.
struct Gpu {
  hsa_agent_t Agent{0};
  hsa_region_t Device{0}, Fine{0};
  hsa_profile_t Profile = HSA_PROFILE_BASE;
  hsa_queue_t *Queue = nullptr, *Other = nullptr;
  Cuda Twins;

  static Gpu *get() {
    static Gpu *G = []() -> Gpu * {
      const char *Ptx = std::getenv("OPENHSA_BENCH_CUDA_TWINS");
      if (!Ptx)
        return nullptr;
      check(hsa_init(), "hsa_init");
      auto *G = new Gpu;
      hsa_iterate_agents(
          [](hsa_agent_t A, void *D) {
            hsa_device_type_t T;
            hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &T);
            if (T == HSA_DEVICE_TYPE_GPU)
              static_cast<Gpu *>(D)->Agent = A;
            return HSA_STATUS_SUCCESS;
          },
          G);
      if (!G->Agent.handle)
        return nullptr;
      hsa_agent_get_info(G->Agent, HSA_AGENT_INFO_PROFILE, &G->Profile);
      hsa_agent_iterate_regions(
          G->Agent,
          [](hsa_region_t R, void *D) {
            uint32_t Flags = 0;
            hsa_region_get_info(R, HSA_REGION_INFO_GLOBAL_FLAGS, &Flags);
            if (Flags & HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED)
              static_cast<Gpu *>(D)->Device = R;
            else if ((Flags & HSA_REGION_GLOBAL_FLAG_FINE_GRAINED) &&
                     !(Flags & HSA_REGION_GLOBAL_FLAG_KERNARG))
              static_cast<Gpu *>(D)->Fine = R;
            return HSA_STATUS_SUCCESS;
          },
          G);
      check(hsa_queue_create(G->Agent, 1024, HSA_QUEUE_TYPE_MULTI, nullptr,
                             nullptr, UINT32_MAX, UINT32_MAX, &G->Queue),
            "queue");
      check(hsa_queue_create(G->Agent, 64, HSA_QUEUE_TYPE_MULTI, nullptr,
                             nullptr, UINT32_MAX, UINT32_MAX, &G->Other),
            "queue");
      if (!G->Twins.load(readFile(Ptx)))
        return nullptr;
      return G;
    }();
    return G;
  }

  void *allocate(size_t Bytes) {
    void *P = nullptr;
    check(hsa_memory_allocate(Device, Bytes, &P), "allocate");
    return P;
  }

  /// Finalizes kernels/<File> for the GPU agent and loads it; the
  /// executable and code object stay alive (the benchmarks use them).
  uint64_t kernel(const char *File, const char *Name) {
    hsa_executable_t E;
    hsa_code_object_t CO;
    return finalizeAndLoad(File, Name, E, CO);
  }

  uint64_t finalizeAndLoad(const char *File, const char *Name,
                           hsa_executable_t &E, hsa_code_object_t &CO) {
    std::string Text =
        readFile(std::string(OPENHSA_SOURCE_BENCH_KERNELS_DIR) + "/" + File);
    if (const char *Dir = std::getenv("OPENHSA_BENCH_KERNELS_DIR"))
      Text = readFile(std::string(Dir) + "/" + File);
    if (Profile == HSA_PROFILE_BASE) {
      // The base profile (a GPU without access to pageable host memory)
      // requires ftz on f32 arithmetic; the inputs have no subnormals, so
      // results are the same.
      if (size_t At = Text.find(":$full:"); At != std::string::npos)
        Text.replace(At, 7, ":$base:");
      Text = std::regex_replace(
          Text, std::regex(R"(\b(add|sub|mul|div|mad|fma|min|max|sqrt)_f32)"),
          "$1_ftz_f32");
      Text = std::regex_replace(Text, std::regex(R"(\bcmp_([a-z]+)_b1_f32)"),
                                "cmp_$1_ftz_b1_f32");
    }
    auto Brig = openhsa::brig::assembler::assembleHsail(Text);
    if (!Brig) {
      std::fprintf(stderr, "%s: %s\n", File,
                   llvm::toString(Brig.takeError()).c_str());
      std::abort();
    }
    // The module lives as long as the program that holds it.
    auto Keep = std::make_unique<std::vector<uint8_t>>(std::move(*Brig));
    hsa_ext_program_t P;
    check(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, Profile,
                                 HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                 nullptr, &P),
          "program");
    check(hsa_ext_program_add_module(
              P, reinterpret_cast<hsa_ext_module_t>(Keep->data())),
          "add module");
    hsa_isa_t Isa;
    hsa_agent_get_info(Agent, HSA_AGENT_INFO_ISA, &Isa);
    check(hsa_ext_program_finalize(P, Isa, 0, {}, nullptr,
                                   HSA_CODE_OBJECT_TYPE_PROGRAM, &CO),
          "finalize");
    hsa_ext_program_destroy(P);
    check(hsa_executable_create(Profile, HSA_EXECUTABLE_STATE_UNFROZEN, nullptr,
                                &E),
          "executable");
    check(hsa_executable_load_code_object(E, Agent, CO, nullptr), "load");
    check(hsa_executable_freeze(E, nullptr), "freeze");
    hsa_executable_symbol_t S;
    check(hsa_executable_get_symbol_by_name(E, Name, &Agent, &S), "symbol");
    uint64_t Object = 0;
    hsa_executable_symbol_get_info(S, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT,
                                   &Object);
    return Object;
  }

  static hsa_signal_t signal() {
    hsa_signal_t S;
    check(hsa_signal_create(1, 0, nullptr, &S), "signal");
    return S;
  }
  static uint16_t header(hsa_packet_type_t Type) {
    return uint16_t(
        (Type << HSA_PACKET_HEADER_TYPE) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
  }

  /// Writes and publishes one dispatch on Q.
  static void publish(hsa_queue_t *Q, uint64_t Kernel, const void *Args,
                      unsigned Dims, const uint32_t (&Grid)[3],
                      const uint16_t (&Wg)[3], hsa_signal_t Done) {
    const uint64_t Index = hsa_queue_add_write_index_relaxed(Q, 1);
    auto *P = static_cast<hsa_kernel_dispatch_packet_t *>(Q->base_address) +
              (Index & (Q->size - 1));
    std::memset(reinterpret_cast<char *>(P) + 4, 0, sizeof(*P) - 4);
    P->workgroup_size_x = Wg[0];
    P->workgroup_size_y = Wg[1];
    P->workgroup_size_z = Wg[2];
    P->grid_size_x = Grid[0];
    P->grid_size_y = Grid[1];
    P->grid_size_z = Grid[2];
    P->kernel_object = Kernel;
    P->kernarg_address = const_cast<void *>(Args);
    P->completion_signal = Done;
    std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t *>(P))
        .store(
            header(HSA_PACKET_TYPE_KERNEL_DISPATCH) |
                (uint32_t(Dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS)
                 << 16),
            std::memory_order_release);
    hsa_signal_store_screlease(Q->doorbell_signal, int64_t(Index));
  }

  /// Writes and publishes a barrier-AND on Q waiting for Dep.
  static void publishBarrierAnd(hsa_queue_t *Q, hsa_signal_t Dep,
                                hsa_signal_t Done) {
    const uint64_t Index = hsa_queue_add_write_index_relaxed(Q, 1);
    auto *B = static_cast<hsa_barrier_and_packet_t *>(Q->base_address) +
              (Index & (Q->size - 1));
    std::memset(reinterpret_cast<char *>(B) + 4, 0, sizeof(*B) - 4);
    B->dep_signal[0] = Dep;
    B->completion_signal = Done;
    std::atomic_ref<uint16_t>(B->header).store(
        header(HSA_PACKET_TYPE_BARRIER_AND), std::memory_order_release);
    hsa_signal_store_screlease(Q->doorbell_signal, int64_t(Index));
  }

  static void wait(hsa_signal_t S) {
    while (hsa_signal_wait_scacquire(S, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
                                     HSA_WAIT_STATE_ACTIVE) != 0)
      ;
  }

  /// Count dispatches in flight at once, all decrementing one completion
  /// signal, waited for together (Count = 1: one round trip).
  void dispatch(uint64_t Kernel, const void *Args, unsigned Dims,
                const uint32_t (&Grid)[3], const uint16_t (&Wg)[3],
                unsigned Count = 1) {
    static hsa_signal_t Done = signal();
    hsa_signal_store_relaxed(Done, Count);
    for (unsigned I = 0; I < Count; ++I)
      publish(Queue, Kernel, Args, Dims, Grid, Wg, Done);
    wait(Done);
  }
};

#define GPU_OR_SKIP(G)                                                         \
  Gpu *G = Gpu::get();                                                         \
  if (!G) {                                                                    \
    State.SkipWithError("no GPU agent, or OPENHSA_BENCH_CUDA_TWINS unset");    \
    return;                                                                    \
  }

void BM_GpuEmptyDispatchHsail(benchmark::State &State) {
  GPU_OR_SKIP(G);
  static const uint64_t K = G->kernel("empty.hsail", "&empty");
  for (auto _ : State)
    G->dispatch(K, nullptr, 1, {1, 1, 1}, {1, 1, 1});
}

// 64 empty dispatches in flight on one queue, one completion signal: the
// cost per dispatch when the service thread keeps the stream fed.
void BM_GpuEmptyDispatchBatchHsail(benchmark::State &State) {
  GPU_OR_SKIP(G);
  static const uint64_t K = G->kernel("empty.hsail", "&empty");
  for (auto _ : State)
    G->dispatch(K, nullptr, 1, {1, 1, 1}, {1, 1, 1}, 64);
  State.SetItemsProcessed(State.iterations() * 64);
}

// A barrier-AND on one queue waiting for an empty dispatch on another, then
// an empty dispatch behind it: the dependency resolved on the device
// (stream wait) or on the host (OPENHSA_GPU_BARRIERS=host).
void BM_GpuCrossQueueBarrierHsail(benchmark::State &State) {
  GPU_OR_SKIP(G);
  static const uint64_t K = G->kernel("empty.hsail", "&empty");
  static hsa_signal_t First = Gpu::signal(), Done = Gpu::signal();
  for (auto _ : State) {
    hsa_signal_store_relaxed(First, 1);
    hsa_signal_store_relaxed(Done, 1);
    Gpu::publishBarrierAnd(G->Queue, First, {0});
    Gpu::publish(G->Queue, K, nullptr, 1, {1, 1, 1}, {1, 1, 1}, Done);
    Gpu::publish(G->Other, K, nullptr, 1, {1, 1, 1}, {1, 1, 1}, First);
    Gpu::wait(Done);
  }
}

void BM_GpuEmptyDispatchCuda(benchmark::State &State) {
  GPU_OR_SKIP(G);
  static void *F = G->Twins.function("empty_kernel");
  for (auto _ : State)
    G->Twins.run(F, {1, 1, 1}, {1, 1, 1}, nullptr);
}

/// The prototype of a persistent GPU-side packet processor
/// (persistent_processor in cuda/twins.cu): a ring in mapped host memory
/// that the grid polls, started for one benchmark and stopped after it.
/// Kernel objects are the grid's own: 0 empty, 1 vector add.
class PersistentProcessor {
public:
  using Packet = hsa_kernel_dispatch_packet_t;
  static constexpr uint32_t Slots = 64;

  PersistentProcessor(Gpu *G, unsigned Blocks) : G(G) {
    check(hsa_memory_allocate(G->Fine, sizeof(Packet) * Slots + 64,
                              reinterpret_cast<void **>(&Ring)),
          "ring");
    for (uint32_t I = 0; I < Slots; ++I)
      Ring[I].header = HSA_PACKET_TYPE_INVALID;
    Words = reinterpret_cast<uint64_t *>(Ring + Slots); // read index, stop
    Words[0] = Words[1] = 0;
    State = G->allocate(256);
    std::vector<uint8_t> Zeros(256, 0);
    hsa_memory_copy(State, Zeros.data(), Zeros.size());
    Done = Gpu::signal();
    uint32_t Mask = Slots - 1;
    void *ReadIndex = &Words[0], *Stop = &Words[1];
    void *Args[] = {&Ring, &Mask, &ReadIndex, &Stop, &State};
    if (G->Twins.LaunchKernel(G->Twins.function("persistent_processor"), Blocks,
                              1, 1, 256, 1, 1, 0, G->Twins.Persistent, Args,
                              nullptr) != 0) {
      std::fprintf(stderr, "the persistent processor does not launch\n");
      std::abort();
    }
  }
  ~PersistentProcessor() {
    __atomic_store_n(&Words[1], 1, __ATOMIC_SEQ_CST);
    G->Twins.StreamSynchronize(G->Twins.Persistent);
    hsa_signal_destroy(Done);
    hsa_memory_free(Ring);
    hsa_memory_free(State);
  }

  /// One 1-D dispatch, packet written to completion signal observed.
  void dispatch(uint64_t Kernel, void *Kernarg, uint32_t Grid, uint16_t Wg) {
    Packet &P = Ring[Next++ % Slots];
    std::memset(reinterpret_cast<char *>(&P) + 4, 0, sizeof(P) - 4);
    P.workgroup_size_x = Wg;
    P.workgroup_size_y = P.workgroup_size_z = 1;
    P.grid_size_x = Grid;
    P.grid_size_y = P.grid_size_z = 1;
    P.kernel_object = Kernel;
    P.kernarg_address = Kernarg;
    // The grid decrements the signal's value, its first word.
    P.completion_signal = Done;
    hsa_signal_store_relaxed(Done, 1);
    std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t *>(&P))
        .store(Gpu::header(HSA_PACKET_TYPE_KERNEL_DISPATCH) | (1u << 16),
               std::memory_order_release);
    Gpu::wait(Done);
  }

private:
  Gpu *G;
  Packet *Ring = nullptr;
  uint64_t *Words = nullptr;
  void *State = nullptr;
  hsa_signal_t Done{0};
  uint64_t Next = 0;
};

// The prototype's round trip of an empty dispatch: one block (a grid that
// fits one SM) and one block per SM of the H100/H200 (132).
void BM_GpuEmptyDispatchPersistent(benchmark::State &State) {
  GPU_OR_SKIP(G);
  PersistentProcessor P(G, unsigned(State.range(0)));
  for (auto _ : State)
    P.dispatch(0, nullptr, 1, 1);
}

constexpr uint32_t VectorN = 1u << 24, GemmN = 1024;

/// Four device buffers of VectorN floats; A and B hold inputs.
struct Buffers {
  float *A, *B, *C, *D;
};
Buffers &buffers(Gpu *G) {
  static Buffers B = [&] {
    Buffers X;
    const size_t Bytes = size_t(VectorN) * 4;
    X.A = static_cast<float *>(G->allocate(Bytes));
    X.B = static_cast<float *>(G->allocate(Bytes));
    X.C = static_cast<float *>(G->allocate(Bytes));
    X.D = static_cast<float *>(G->allocate(Bytes));
    std::vector<float> Host(VectorN);
    for (uint32_t I = 0; I < VectorN; ++I)
      Host[I] = float(I % 1024) * 0.25f - 64.0f;
    hsa_memory_copy(X.A, Host.data(), Bytes);
    for (uint32_t I = 0; I < VectorN; ++I)
      Host[I] = float(I % 77) * 0.01f + 0.5f; // Positive: masses too.
    hsa_memory_copy(X.B, Host.data(), Bytes);
    return X;
  }();
  return B;
}

/// One benchmark shape: the HSAIL kernel and its twin, their arguments
/// (the same bytes: HSAIL kernarg layout = the twin's parameters), the
/// geometry, and how much of C to compare (exactly for integers).
struct Shape {
  const char *File, *Hsail, *Twin;
  std::vector<uint8_t> Kernarg; // The HSAIL kernarg segment.
  std::vector<void *> CudaArgs; // Pointers into Kernarg, per parameter.
  unsigned Dims;
  uint32_t Grid[3];
  uint16_t Wg[3];
  size_t OutN;
  bool Integer = false;
};

/// Builds the kernarg bytes and CUDA parameter pointers from values laid
/// out at their natural alignment (the HSAIL and CUDA rules agree here).
template <typename... T> void pack(Shape &S, T... Values) {
  size_t Size = 0;
  std::vector<size_t> Offsets;
  auto Place = [&](auto V) {
    Size = (Size + sizeof(V) - 1) / sizeof(V) * sizeof(V);
    Offsets.push_back(Size);
    Size += sizeof(V);
  };
  (Place(Values), ...);
  S.Kernarg.assign((Size + 15) / 16 * 16, 0);
  size_t I = 0;
  auto Store = [&](auto V) {
    std::memcpy(&S.Kernarg[Offsets[I++]], &V, sizeof(V));
  };
  (Store(Values), ...);
  for (size_t Off : Offsets)
    S.CudaArgs.push_back(&S.Kernarg[Off]);
}

template <bool Cuda> void runShape(benchmark::State &State, Gpu *G, Shape &S) {
  void *F = G->Twins.function(S.Twin);
  const uint64_t K = G->kernel(S.File, S.Hsail);
  unsigned Blocks[3], Threads[3];
  for (unsigned D = 0; D < 3; ++D) {
    Threads[D] = S.Wg[D];
    Blocks[D] = (S.Grid[D] + S.Wg[D] - 1) / S.Wg[D];
  }
  const uint32_t(&Grid)[3] = S.Grid;
  const uint16_t(&Wg)[3] = S.Wg;
  Buffers &B = buffers(G);
  // Same results first: the HSAIL kernel's C against the twin's.
  G->dispatch(K, S.Kernarg.data(), S.Dims, Grid, Wg);
  std::vector<float> H(S.OutN), T(S.OutN);
  hsa_memory_copy(H.data(), B.C, S.OutN * 4);
  G->Twins.run(F, Blocks, Threads, S.CudaArgs.data());
  hsa_memory_copy(T.data(), B.C, S.OutN * 4);
  for (size_t I = 0; I < S.OutN; ++I) {
    const bool Same =
        S.Integer ? std::memcmp(&H[I], &T[I], 4) == 0
                  : std::fabs(H[I] - T[I]) <= 1e-3f * (1 + std::fabs(T[I]));
    if (!Same) {
      std::fprintf(stderr, "%s: HSAIL %g, CUDA twin %g at %zu\n", S.Hsail,
                   double(H[I]), double(T[I]), I);
      std::abort();
    }
  }
  for (auto _ : State) {
    if (Cuda)
      G->Twins.run(F, Blocks, Threads, S.CudaArgs.data());
    else
      G->dispatch(K, S.Kernarg.data(), S.Dims, Grid, Wg);
  }
}

template <bool Cuda> void BM_GpuVectorAdd(benchmark::State &State) {
  GPU_OR_SKIP(G);
  Buffers &B = buffers(G);
  static Shape S{"vector_add.hsail", "&vector_add", "vector_add", {}, {}, 1,
                 {VectorN, 1, 1},    {256, 1, 1},   VectorN};
  if (S.Kernarg.empty())
    pack(S, B.A, B.B, B.C, VectorN);
  runShape<Cuda>(State, G, S);
}
// Vector add of VectorN floats (work-groups of 256) run by the prototype's
// 132 blocks, each taking work-groups in turn, against the same through
// the runtime's queue (BM_GpuVectorAddHsail) and the twin.
void BM_GpuVectorAddPersistent(benchmark::State &State) {
  GPU_OR_SKIP(G);
  Buffers &B = buffers(G);
  struct {
    const float *A, *B;
    float *C;
    uint32_t N;
  } Args{B.A, B.B, B.D, VectorN};
  void *Kernarg = nullptr;
  check(hsa_memory_allocate(G->Fine, sizeof(Args), &Kernarg), "kernarg");
  std::memcpy(Kernarg, &Args, sizeof(Args));
  {
    PersistentProcessor P(G, 132);
    P.dispatch(1, Kernarg, VectorN, 256);
    // Same result as the twin's (B.C after the other vector add runs).
    std::vector<float> Sum(VectorN), A(VectorN), Bv(VectorN);
    hsa_memory_copy(Sum.data(), B.D, VectorN * 4);
    hsa_memory_copy(A.data(), B.A, VectorN * 4);
    hsa_memory_copy(Bv.data(), B.B, VectorN * 4);
    for (uint32_t I = 0; I < VectorN; ++I)
      if (Sum[I] != A[I] + Bv[I]) {
        std::fprintf(stderr, "persistent vector add: %g at %u\n",
                     double(Sum[I]), I);
        std::abort();
      }
    for (auto _ : State)
      P.dispatch(1, Kernarg, VectorN, 256);
  }
  hsa_memory_free(Kernarg);
}

template <bool Cuda> void BM_GpuSgemmNaive(benchmark::State &State) {
  GPU_OR_SKIP(G);
  Buffers &B = buffers(G);
  static Shape S{
      "sgemm_naive.hsail", "&sgemm_naive", "sgemm_naive",        {}, {}, 2,
      {GemmN, GemmN, 1},   {16, 16, 1},    size_t(GemmN) * GemmN};
  if (S.Kernarg.empty())
    pack(S, B.A, B.B, B.C, GemmN);
  runShape<Cuda>(State, G, S);
}
template <bool Cuda> void BM_GpuSgemmTiled(benchmark::State &State) {
  GPU_OR_SKIP(G);
  Buffers &B = buffers(G);
  static Shape S{
      "sgemm_tiled.hsail", "&sgemm_tiled", "sgemm_tiled",        {}, {}, 2,
      {GemmN, GemmN, 1},   {16, 16, 1},    size_t(GemmN) * GemmN};
  if (S.Kernarg.empty())
    pack(S, B.A, B.B, B.C, GemmN);
  runShape<Cuda>(State, G, S);
}
template <bool Cuda> void BM_GpuReduction(benchmark::State &State) {
  GPU_OR_SKIP(G);
  Buffers &B = buffers(G);
  static Shape S{"reduction.hsail", "&reduce",   "reduce",     {}, {}, 1,
                 {VectorN, 1, 1},   {256, 1, 1}, VectorN / 256};
  if (S.Kernarg.empty())
    pack(S, B.A, B.C, VectorN);
  runShape<Cuda>(State, G, S);
}
template <bool Cuda> void BM_GpuMandelbrot(benchmark::State &State) {
  GPU_OR_SKIP(G);
  Buffers &B = buffers(G);
  constexpr uint32_t W = 1024;
  static Shape S{
      "mandelbrot.hsail", "&mandelbrot", "mandelbrot",    {}, {}, 2, {W, W, 1},
      {16, 16, 1},        size_t(W) * W, /*Integer=*/true};
  if (S.Kernarg.empty())
    pack(S, B.C, W, W, 256u, -2.0f, -1.5f, 3.0f / W);
  runShape<Cuda>(State, G, S);
}
template <bool Cuda> void BM_GpuNbody(benchmark::State &State) {
  GPU_OR_SKIP(G);
  Buffers &B = buffers(G);
  constexpr uint32_t N = 8192;
  static Shape S{"nbody.hsail", "&nbody",    "nbody",      {}, {}, 1,
                 {N, 1, 1},     {256, 1, 1}, size_t(N) * 4};
  if (S.Kernarg.empty())
    pack(S, B.B, B.A, B.C, B.D, N, 0.01f, 0.01f);
  runShape<Cuda>(State, G, S);
}
template <bool Cuda> void BM_GpuStencil(benchmark::State &State) {
  GPU_OR_SKIP(G);
  Buffers &B = buffers(G);
  constexpr uint32_t W = 4096; // 16M points: the buffers' size.
  static Shape S{"stencil.hsail",   "&stencil",  "stencil",    {}, {}, 2,
                 {W - 2, W - 2, 1}, {16, 16, 1}, size_t(W) * W};
  if (S.Kernarg.empty())
    pack(S, B.A, B.C, W);
  runShape<Cuda>(State, G, S);
}

/// Finalization for the GPU warm (the process has finalized before):
/// HSAIL already assembled to BRIG -> PTX -> the driver's JIT at load.
/// Assembling the text is included; it takes well under a millisecond.
void BM_GpuFinalize(benchmark::State &State, const char *File,
                    const char *Name) {
  GPU_OR_SKIP(G);
  for (auto _ : State) {
    hsa_executable_t E;
    hsa_code_object_t CO;
    G->finalizeAndLoad(File, Name, E, CO);
    hsa_executable_destroy(E);
    hsa_code_object_destroy(CO);
  }
}

} // namespace

BENCHMARK_CAPTURE(BM_GpuFinalize, SgemmTiled, "sgemm_tiled.hsail",
                  "&sgemm_tiled")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GpuFinalize, Mandelbrot, "mandelbrot.hsail", "&mandelbrot")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GpuFinalize, Nbody, "nbody.hsail", "&nbody")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GpuFinalize, Reduction, "reduction.hsail", "&reduce")
    ->Unit(benchmark::kMillisecond);

#define GPU_PAIR(Kernel)                                                       \
  BENCHMARK(BM_Gpu##Kernel<false>)                                             \
      ->Name("BM_Gpu" #Kernel "Hsail")                                         \
      ->UseRealTime()                                                          \
      ->Unit(benchmark::kMicrosecond);                                         \
  BENCHMARK(BM_Gpu##Kernel<true>)                                              \
      ->Name("BM_Gpu" #Kernel "Cuda")                                          \
      ->UseRealTime()                                                          \
      ->Unit(benchmark::kMicrosecond)

BENCHMARK(BM_GpuEmptyDispatchHsail)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GpuEmptyDispatchBatchHsail)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GpuCrossQueueBarrierHsail)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GpuEmptyDispatchCuda)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GpuEmptyDispatchPersistent)
    ->Arg(1)
    ->Arg(132)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GpuVectorAddPersistent)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
GPU_PAIR(VectorAdd);
GPU_PAIR(SgemmNaive);
GPU_PAIR(SgemmTiled);
GPU_PAIR(Reduction);
GPU_PAIR(Mandelbrot);
GPU_PAIR(Nbody);
GPU_PAIR(Stencil);

BENCHMARK_MAIN();
