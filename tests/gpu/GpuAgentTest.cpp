//===- tests/gpu/GpuAgentTest.cpp - GPU agents through the C API ----------===//
//
// GPU agents (gpu_backend/) as an HSA program sees them: agent and region
// queries, memory copies, HSAIL finalized for the GPU's ISA and dispatched
// through AQL queues, barrier packets, errors. Without a CUDA driver or
// device there is no GPU agent and every test reports itself skipped.
//
//===----------------------------------------------------------------------===//
#include "../executable/ExecTestSupport.h"

#include "hsa/hsa.h"
#include "hsa/hsa_ext_finalize.h"
#include "hsa/hsa_ext_openhsa.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

using namespace openhsa::test;

namespace {

struct Found {
  hsa_agent_t Gpu{0}, Cpu{0}, Host{0}; // Host: agent dispatch.
  hsa_region_t Device{0}, Fine{0}, Kernarg{0}, Group{0};
};

hsa_status_t findAgents(hsa_agent_t A, void *Data) {
  auto *F = static_cast<Found *>(Data);
  hsa_device_type_t T;
  hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &T);
  uint32_t Features = 0;
  hsa_agent_get_info(A, HSA_AGENT_INFO_FEATURE, &Features);
  if (T == HSA_DEVICE_TYPE_GPU && !F->Gpu.handle)
    F->Gpu = A;
  if (T == HSA_DEVICE_TYPE_CPU && !F->Cpu.handle &&
      (Features & HSA_AGENT_FEATURE_KERNEL_DISPATCH))
    F->Cpu = A;
  if (T == HSA_DEVICE_TYPE_CPU && !F->Host.handle &&
      (Features & HSA_AGENT_FEATURE_AGENT_DISPATCH))
    F->Host = A;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t findRegions(hsa_region_t R, void *Data) {
  auto *F = static_cast<Found *>(Data);
  hsa_region_segment_t Segment;
  hsa_region_get_info(R, HSA_REGION_INFO_SEGMENT, &Segment);
  if (Segment == HSA_REGION_SEGMENT_GROUP) {
    F->Group = R;
    return HSA_STATUS_SUCCESS;
  }
  uint32_t Flags = 0;
  hsa_region_get_info(R, HSA_REGION_INFO_GLOBAL_FLAGS, &Flags);
  if (Flags & HSA_REGION_GLOBAL_FLAG_KERNARG)
    F->Kernarg = R;
  else if (Flags & HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED)
    F->Device = R;
  else if (Flags & HSA_REGION_GLOBAL_FLAG_FINE_GRAINED)
    F->Fine = R;
  return HSA_STATUS_SUCCESS;
}

std::atomic<hsa_status_t> LastQueueError{HSA_STATUS_SUCCESS};
void onQueueError(hsa_status_t S, hsa_queue_t *, void *) { LastQueueError = S; }

class GpuAgentTest;
void expectDebugTrapHalts(GpuAgentTest &T, uint64_t K, hsa_queue_t *Q,
                          void *Out);

class GpuAgentTest : public ::testing::Test {
  friend void expectDebugTrapHalts(GpuAgentTest &, uint64_t, hsa_queue_t *,
                                   void *);

protected:
  void SetUp() override {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    Initialized = true;
    hsa_iterate_agents(findAgents, &F);
    if (!F.Gpu.handle)
      GTEST_SKIP() << "no GPU agent (no CUDA driver or no device)";
    hsa_agent_iterate_regions(F.Gpu, findRegions, &F);
    hsa_agent_get_info(F.Gpu, HSA_AGENT_INFO_ISA, &Isa);
    hsa_agent_get_info(F.Gpu, HSA_AGENT_INFO_PROFILE, &Profile);
    LastQueueError = HSA_STATUS_SUCCESS;
    ASSERT_EQ(hsa_queue_create(F.Gpu, 1024, HSA_QUEUE_TYPE_MULTI, onQueueError,
                               nullptr, UINT32_MAX, UINT32_MAX, &Queue),
              HSA_STATUS_SUCCESS);
  }
  void TearDown() override {
    for (hsa_executable_t E : Executables)
      hsa_executable_destroy(E);
    if (Queue)
      hsa_queue_destroy(Queue);
    if (Initialized)
      hsa_shut_down();
  }

  std::string header() const {
    return moduleHeader("m", Profile == HSA_PROFILE_FULL ? "$full" : "$base");
  }

  /// Finalizes Text (after the module header) for Agent and returns the
  /// kernel object of &Kernel, with its kernarg size.
  uint64_t load(const std::string &Text, const char *Kernel,
                hsa_agent_t Agent = {0}) {
    if (!Agent.handle)
      Agent = F.Gpu;
    hsa_isa_t AgentIsa;
    hsa_agent_get_info(Agent, HSA_AGENT_INFO_ISA, &AgentIsa);
    BrigBlob Blob = assemble(header() + Text);
    if (Blob.empty())
      return 0;
    hsa_ext_program_t P;
    EXPECT_EQ(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, Profile,
                                     HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                     nullptr, &P),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_ext_program_add_module(P, Blob.module()), HSA_STATUS_SUCCESS);
    hsa_code_object_t CO{0};
    hsa_status_t S = hsa_ext_program_finalize(
        P, AgentIsa, 0, noDirectives(), "", HSA_CODE_OBJECT_TYPE_PROGRAM, &CO);
    hsa_ext_program_destroy(P);
    EXPECT_EQ(S, HSA_STATUS_SUCCESS) << "finalization failed";
    if (S != HSA_STATUS_SUCCESS)
      return 0;
    hsa_executable_t E;
    EXPECT_EQ(
        hsa_executable_create(Profile, HSA_EXECUTABLE_STATE_UNFROZEN, "", &E),
        HSA_STATUS_SUCCESS);
    Executables.push_back(E);
    EXPECT_EQ(hsa_executable_load_code_object(E, Agent, CO, ""),
              HSA_STATUS_SUCCESS);
    hsa_code_object_destroy(CO);
    EXPECT_EQ(hsa_executable_freeze(E, ""), HSA_STATUS_SUCCESS);
    hsa_executable_symbol_t Sym;
    EXPECT_EQ(hsa_executable_get_symbol(E, nullptr, Kernel, Agent, 0, &Sym),
              HSA_STATUS_SUCCESS);
    uint64_t Object = 0;
    hsa_executable_symbol_get_info(
        Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &Object);
    return Object;
  }

  void *allocate(hsa_region_t R, size_t Bytes) {
    void *P = nullptr;
    EXPECT_EQ(hsa_memory_allocate(R, Bytes, &P), HSA_STATUS_SUCCESS);
    return P;
  }

  /// Writes a dispatch packet (without publishing it) and returns its slot.
  hsa_kernel_dispatch_packet_t *
  writeDispatch(hsa_queue_t *Q, uint64_t Object, const void *Args,
                size_t ArgBytes, unsigned Dims, const uint32_t (&Grid)[3],
                const uint16_t (&Wg)[3], hsa_signal_t Done, uint32_t GroupBytes,
                uint64_t &Index) {
    void *Kernarg = nullptr;
    if (ArgBytes) {
      Kernarg = allocate(F.Kernarg, ArgBytes);
      std::memcpy(Kernarg, Args, ArgBytes);
    }
    Index = hsa_queue_add_write_index_relaxed(Q, 1);
    auto *P = static_cast<hsa_kernel_dispatch_packet_t *>(Q->base_address) +
              (Index & (Q->size - 1));
    std::memset(reinterpret_cast<uint8_t *>(P) + 4, 0, sizeof(*P) - 4);
    P->setup = uint16_t(Dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
    P->workgroup_size_x = Wg[0];
    P->workgroup_size_y = Wg[1];
    P->workgroup_size_z = Wg[2];
    P->grid_size_x = Grid[0];
    P->grid_size_y = Grid[1];
    P->grid_size_z = Grid[2];
    P->group_segment_size = GroupBytes;
    P->kernel_object = Object;
    P->kernarg_address = Kernarg;
    P->completion_signal = Done;
    return P;
  }
  static void publish(hsa_queue_t *Q, void *Packet, uint16_t Type,
                      uint64_t Index, bool Barrier = false) {
    uint16_t Header = uint16_t(Type << HSA_PACKET_HEADER_TYPE) |
                      uint16_t(Barrier << HSA_PACKET_HEADER_BARRIER) |
                      uint16_t(HSA_FENCE_SCOPE_SYSTEM
                               << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                      uint16_t(HSA_FENCE_SCOPE_SYSTEM
                               << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    __atomic_store_n(static_cast<uint16_t *>(Packet), Header, __ATOMIC_RELEASE);
    hsa_signal_store_screlease(Q->doorbell_signal, int64_t(Index));
  }

  /// Dispatches and waits up to 20 s; false on timeout.
  bool run(uint64_t Object, const void *Args, size_t ArgBytes, unsigned Dims,
           const uint32_t (&Grid)[3], const uint16_t (&Wg)[3],
           uint32_t GroupBytes = 0, hsa_queue_t *Q = nullptr) {
    if (!Q)
      Q = Queue;
    hsa_signal_t Done;
    hsa_signal_create(1, 0, nullptr, &Done);
    uint64_t Index;
    auto *P = writeDispatch(Q, Object, Args, ArgBytes, Dims, Grid, Wg, Done,
                            GroupBytes, Index);
    publish(Q, P, HSA_PACKET_TYPE_KERNEL_DISPATCH, Index);
    const int64_t V =
        hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                  20ull * 400'000'000, HSA_WAIT_STATE_BLOCKED);
    hsa_signal_destroy(Done);
    return V == 0;
  }

  /// Writes a barrier-AND or -OR packet (the same layout) on Q without
  /// publishing it.
  hsa_barrier_and_packet_t *
  writeBarrier(hsa_queue_t *Q, std::initializer_list<hsa_signal_t> Deps,
               hsa_signal_t Done, uint64_t &Index) {
    Index = hsa_queue_add_write_index_relaxed(Q, 1);
    auto *B = static_cast<hsa_barrier_and_packet_t *>(Q->base_address) +
              (Index & (Q->size - 1));
    std::memset(reinterpret_cast<uint8_t *>(B) + 4, 0, sizeof(*B) - 4);
    unsigned I = 0;
    for (hsa_signal_t D : Deps)
      B->dep_signal[I++] = D;
    B->completion_signal = Done;
    return B;
  }

  bool Initialized = false;
  Found F;
  hsa_isa_t Isa{0};
  hsa_profile_t Profile = HSA_PROFILE_BASE;
  hsa_queue_t *Queue = nullptr;
  std::vector<hsa_executable_t> Executables;
};

TEST_F(GpuAgentTest, AgentAnswersItsAttributes) {
  char Vendor[64], Name[64];
  ASSERT_EQ(hsa_agent_get_info(F.Gpu, HSA_AGENT_INFO_VENDOR_NAME, Vendor),
            HSA_STATUS_SUCCESS);
  EXPECT_STREQ(Vendor, "NVIDIA");
  ASSERT_EQ(hsa_agent_get_info(F.Gpu, HSA_AGENT_INFO_NAME, Name),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(std::string(Name).rfind("sm_", 0), 0u) << Name;
  uint32_t Wave = 0, Features = 0, WgMax = 0;
  hsa_agent_get_info(F.Gpu, HSA_AGENT_INFO_WAVEFRONT_SIZE, &Wave);
  hsa_agent_get_info(F.Gpu, HSA_AGENT_INFO_FEATURE, &Features);
  hsa_agent_get_info(F.Gpu, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE, &WgMax);
  EXPECT_EQ(Wave, 32u);
  EXPECT_EQ(Features, uint32_t(HSA_AGENT_FEATURE_KERNEL_DISPATCH));
  EXPECT_GE(WgMax, 256u);
  uint32_t Length = 0;
  hsa_isa_get_info_alt(Isa, HSA_ISA_INFO_NAME_LENGTH, &Length);
  std::string IsaName(Length, '\0');
  hsa_isa_get_info_alt(Isa, HSA_ISA_INFO_NAME, IsaName.data());
  EXPECT_EQ(IsaName.rfind("openhsa:nvptx:sm_", 0), 0u) << IsaName;
  uint32_t IsaWave = 0;
  ASSERT_EQ(hsa_isa_iterate_wavefronts(
                Isa,
                [](hsa_wavefront_t W, void *D) {
                  return hsa_wavefront_get_info(W, HSA_WAVEFRONT_INFO_SIZE, D);
                },
                &IsaWave),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(IsaWave, 32u);
  EXPECT_NE(F.Device.handle, 0u);
  EXPECT_NE(F.Fine.handle, 0u);
  EXPECT_NE(F.Kernarg.handle, 0u);
  EXPECT_NE(F.Group.handle, 0u);
  size_t GroupSize = 0;
  hsa_region_get_info(F.Group, HSA_REGION_INFO_SIZE, &GroupSize);
  EXPECT_GE(GroupSize, 48u * 1024);
}

TEST_F(GpuAgentTest, DeviceMemoryRoundTripsThroughMemoryCopy) {
  constexpr size_t N = 1 << 20;
  std::vector<uint32_t> In(N), Out(N, 0);
  std::iota(In.begin(), In.end(), 7u);
  void *Device = allocate(F.Device, N * 4);
  ASSERT_NE(Device, nullptr);
  ASSERT_EQ(hsa_memory_copy(Device, In.data(), N * 4), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_memory_copy(Out.data(), Device, N * 4), HSA_STATUS_SUCCESS);
  EXPECT_EQ(In, Out);
  EXPECT_EQ(hsa_memory_free(Device), HSA_STATUS_SUCCESS);
}

const char *VectorAdd = R"(
prog kernel &vadd(kernarg_u64 %a, kernarg_u64 %b, kernarg_u64 %c, kernarg_u32 %n)
{
	workitemabsid_u32 $s0, 0;
	ld_kernarg_u32 $s9, [%n];
	cmp_ge_b1_u32 $c0, $s0, $s9;
	cbr_b1 $c0, @done;
	cvt_u64_u32 $d0, $s0;
	shl_u64 $d0, $d0, 2;
	ld_kernarg_u64 $d1, [%a];
	ld_kernarg_u64 $d2, [%b];
	ld_kernarg_u64 $d3, [%c];
	add_u64 $d1, $d1, $d0;
	add_u64 $d2, $d2, $d0;
	add_u64 $d3, $d3, $d0;
	ld_global_f32 $s1, [$d1];
	ld_global_f32 $s2, [$d2];
	add_ftz_f32 $s3, $s1, $s2;
	st_global_f32 $s3, [$d3];
@done:
	ret;
};
)";

struct VaddArgs {
  void *A, *B, *C;
  uint32_t N;
};

TEST_F(GpuAgentTest, VectorAddRunsWithAPartialWorkGroup) {
  const uint64_t K = load(VectorAdd, "&vadd");
  ASSERT_NE(K, 0u);
  constexpr uint32_t N = 100'003;
  auto *A = static_cast<float *>(allocate(F.Fine, N * 4));
  auto *B = static_cast<float *>(allocate(F.Fine, N * 4));
  auto *C = static_cast<float *>(allocate(F.Fine, N * 4));
  for (uint32_t I = 0; I < N; ++I) {
    A[I] = float(I);
    B[I] = float(2 * I) + 0.5f;
    C[I] = -1;
  }
  VaddArgs Args{A, B, C, N};
  ASSERT_TRUE(run(K, &Args, sizeof(Args), 1, {N, 1, 1}, {256, 1, 1}));
  EXPECT_EQ(LastQueueError.load(), HSA_STATUS_SUCCESS);
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(C[I], A[I] + B[I]) << "at " << I;
}

// The base profile's contract (Runtime 2.7.4): memory the program did not
// get from the runtime reaches a kernel once registered.
TEST_F(GpuAgentTest, RegisteredHostMemoryReachesKernels) {
  const uint64_t K = load(VectorAdd, "&vadd");
  ASSERT_NE(K, 0u);
  constexpr uint32_t N = 5000;
  std::vector<float> A(N), C(N, 0.0f);
  for (uint32_t I = 0; I < N; ++I)
    A[I] = float(I) + 0.5f;
  ASSERT_EQ(hsa_memory_register(A.data(), N * 4), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_memory_register(C.data(), N * 4), HSA_STATUS_SUCCESS);
  // Registering again (counted) and a range inside a registered one work.
  EXPECT_EQ(hsa_memory_register(A.data(), N * 4), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_memory_register(A.data() + 16, 64), HSA_STATUS_SUCCESS);
  VaddArgs Args{A.data(), A.data(), C.data(), N};
  ASSERT_TRUE(run(K, &Args, sizeof(Args), 1, {N, 1, 1}, {128, 1, 1}));
  EXPECT_EQ(LastQueueError.load(), HSA_STATUS_SUCCESS);
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(C[I], 2 * A[I]) << I;
  EXPECT_EQ(hsa_memory_deregister(A.data() + 16, 64), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_memory_deregister(A.data(), N * 4), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_memory_deregister(A.data(), N * 4), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_memory_deregister(C.data(), N * 4), HSA_STATUS_SUCCESS);
}

TEST_F(GpuAgentTest, DeviceMemoryBuffersAndCopiesAroundADispatch) {
  const uint64_t K = load(VectorAdd, "&vadd");
  ASSERT_NE(K, 0u);
  constexpr uint32_t N = 4096;
  std::vector<float> A(N), B(N), C(N);
  for (uint32_t I = 0; I < N; ++I) {
    A[I] = float(I) * 0.25f;
    B[I] = 1.0f;
  }
  void *DA = allocate(F.Device, N * 4), *DB = allocate(F.Device, N * 4),
       *DC = allocate(F.Device, N * 4);
  ASSERT_EQ(hsa_memory_copy(DA, A.data(), N * 4), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_memory_copy(DB, B.data(), N * 4), HSA_STATUS_SUCCESS);
  VaddArgs Args{DA, DB, DC, N};
  ASSERT_TRUE(run(K, &Args, sizeof(Args), 1, {N, 1, 1}, {128, 1, 1}));
  ASSERT_EQ(hsa_memory_copy(C.data(), DC, N * 4), HSA_STATUS_SUCCESS);
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(C[I], A[I] + 1.0f) << "at " << I;
}

TEST_F(GpuAgentTest, GroupMemoryAndBarriersInALoopReduce) {
  const uint64_t K = load(R"(
prog kernel &reduce(kernarg_u64 %in, kernarg_u64 %out)
{
	group_u32 %tile[256];
	workitemid_u32 $s0, 0;
	workitemabsid_u32 $s1, 0;
	ld_kernarg_u64 $d0, [%in];
	cvt_u64_u32 $d1, $s1;
	shl_u64 $d1, $d1, 2;
	add_u64 $d1, $d0, $d1;
	ld_global_u32 $s2, [$d1];
	shl_u32 $s3, $s0, 2;
	st_group_u32 $s2, [%tile][$s3];
	barrier;
	mov_b32 $s4, 128;
@loop:
	cmp_lt_b1_u32 $c0, $s0, $s4;
	cbr_b1 $c0, @add;
	br @next;
@add:
	add_u32 $s5, $s0, $s4;
	shl_u32 $s5, $s5, 2;
	ld_group_u32 $s6, [%tile][$s5];
	ld_group_u32 $s7, [%tile][$s3];
	add_u32 $s7, $s7, $s6;
	st_group_u32 $s7, [%tile][$s3];
@next:
	barrier;
	shr_u32 $s4, $s4, 1;
	cmp_ne_b1_u32 $c1, $s4, 0;
	cbr_b1 $c1, @loop;
	cmp_eq_b1_u32 $c2, $s0, 0;
	cbr_b1 $c2, @store;
	ret;
@store:
	ld_group_u32 $s8, [%tile];
	workgroupid_u32 $s9, 0;
	cvt_u64_u32 $d2, $s9;
	shl_u64 $d2, $d2, 2;
	ld_kernarg_u64 $d3, [%out];
	add_u64 $d3, $d3, $d2;
	st_global_u32 $s8, [$d3];
	ret;
};
)",
                          "&reduce");
  ASSERT_NE(K, 0u);
  constexpr uint32_t Groups = 512, N = Groups * 256;
  auto *In = static_cast<uint32_t *>(allocate(F.Fine, N * 4));
  auto *Out = static_cast<uint32_t *>(allocate(F.Fine, Groups * 4));
  for (uint32_t I = 0; I < N; ++I)
    In[I] = I % 1000;
  struct {
    void *In, *Out;
  } Args{In, Out};
  ASSERT_TRUE(run(K, &Args, sizeof(Args), 1, {N, 1, 1}, {256, 1, 1}));
  for (uint32_t G = 0; G < Groups; ++G) {
    uint32_t Sum = 0;
    for (uint32_t I = 0; I < 256; ++I)
      Sum += In[G * 256 + I];
    ASSERT_EQ(Out[G], Sum) << "group " << G;
  }
}

/// Each work-item records its absolute id, group id and the size of its
/// (possibly partial) work-group (PRM 11.1). With a barrier, partial groups
/// are launches of their own; without, one launch guards the grid's end.
std::string idsKernel(bool WithBarrier) {
  return std::string(R"(
prog kernel &ids(kernarg_u64 %out)
{
)") + (WithBarrier ? "\tbarrier;\n" : "") +
         R"(
	workitemabsid_u32 $s0, 0;
	workitemabsid_u32 $s1, 1;
	gridsize_u32 $s2, 0;
	mad_u32 $s3, $s1, $s2, $s0;
	cvt_u64_u32 $d0, $s3;
	shl_u64 $d0, $d0, 4;
	ld_kernarg_u64 $d1, [%out];
	add_u64 $d1, $d1, $d0;
	workgroupid_u32 $s4, 0;
	workgroupid_u32 $s5, 1;
	shl_u32 $s5, $s5, 16;
	or_b32 $s4, $s4, $s5;
	currentworkgroupsize_u32 $s6, 0;
	currentworkgroupsize_u32 $s7, 1;
	shl_u32 $s7, $s7, 16;
	or_b32 $s6, $s6, $s7;
	workitemflatabsid_u32 $s8;
	st_global_u32 $s3, [$d1];
	st_global_u32 $s4, [$d1+4];
	st_global_u32 $s6, [$d1+8];
	st_global_u32 $s8, [$d1+12];
};
)";
}

class GpuGridTest : public GpuAgentTest,
                    public ::testing::WithParamInterface<bool> {};

TEST_P(GpuGridTest, TwoDimensionalGridWithPartialGroupsSeesExactIds) {
  const uint64_t K = load(idsKernel(GetParam()), "&ids");
  ASSERT_NE(K, 0u);
  constexpr uint32_t W = 37, H = 19;
  auto *Out = static_cast<uint32_t *>(allocate(F.Fine, W * H * 16));
  std::memset(Out, 0xff, W * H * 16);
  void *Args = Out;
  ASSERT_TRUE(run(K, &Args, sizeof(Args), 2, {W, H, 1}, {8, 4, 1}));
  for (uint32_t Y = 0; Y < H; ++Y)
    for (uint32_t X = 0; X < W; ++X) {
      const uint32_t *R = Out + (Y * W + X) * 4;
      const uint32_t Cw = (X / 8 == W / 8) ? W % 8 : 8;
      const uint32_t Ch = (Y / 4 == H / 4) ? H % 4 : 4;
      ASSERT_EQ(R[0], Y * W + X);
      ASSERT_EQ(R[1], (X / 8) | ((Y / 4) << 16)) << X << "," << Y;
      ASSERT_EQ(R[2], Cw | (Ch << 16)) << X << "," << Y;
      ASSERT_EQ(R[3], Y * W + X);
    }
}

INSTANTIATE_TEST_SUITE_P(BarrierOrNot, GpuGridTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool> &I) {
                           return I.param ? std::string("WithBarrier")
                                          : std::string("GridGuard");
                         });

TEST_F(GpuAgentTest, CrossLaneOperationsSpanTheWarp) {
  // Odd work-items are active in the branch; each records activelanecount,
  // activelaneid, the permute from lane 3 and WAVESIZE (PRM 9.4).
  const uint64_t K = load(R"(
prog kernel &lanes(kernarg_u64 %out)
{
	workitemabsid_u32 $s0, 0;
	cvt_u64_u32 $d0, $s0;
	shl_u64 $d0, $d0, 4;
	ld_kernarg_u64 $d1, [%out];
	add_u64 $d1, $d1, $d0;
	and_b32 $s1, $s0, 1;
	cmp_eq_b1_u32 $c0, $s1, 0;
	cbr_b1 $c0, @skip;
	and_b32 $s2, $s0, 2;
	cmp_ne_b1_u32 $c1, $s2, 0;
	activelanecount_u32_b1 $s3, $c1;
	activelaneid_u32 $s4;
	activelanepermute_b32 $s5, $s0, 3, 9999, 0;
	mov_b32 $s6, WAVESIZE;
	st_global_u32 $s3, [$d1];
	st_global_u32 $s4, [$d1+4];
	st_global_u32 $s5, [$d1+8];
	st_global_u32 $s6, [$d1+12];
@skip:
	ret;
};
)",
                          "&lanes");
  ASSERT_NE(K, 0u);
  constexpr uint32_t N = 128;
  auto *Out = static_cast<uint32_t *>(allocate(F.Fine, N * 16));
  std::memset(Out, 0, N * 16);
  void *Args = Out;
  ASSERT_TRUE(run(K, &Args, sizeof(Args), 1, {N, 1, 1}, {64, 1, 1}));
  for (uint32_t I = 1; I < N; I += 2) {
    const uint32_t *R = Out + I * 4;
    // 16 odd lanes per warp; those with bit 1 set: 8.
    EXPECT_EQ(R[0], 8u) << I;
    EXPECT_EQ(R[1], (I % 32) / 2) << I;
    EXPECT_EQ(R[2], I / 32 * 32 + 3) << I; // Lane 3 is odd: active.
    EXPECT_EQ(R[3], 32u) << I;
  }
}

TEST_F(GpuAgentTest, BarrierAndWaitsForASignalTheHostSetsLater) {
  const uint64_t K = load(VectorAdd, "&vadd");
  ASSERT_NE(K, 0u);
  constexpr uint32_t N = 64;
  auto *A = static_cast<float *>(allocate(F.Fine, N * 4));
  auto *C = static_cast<float *>(allocate(F.Fine, N * 4));
  for (uint32_t I = 0; I < N; ++I) {
    A[I] = 1;
    C[I] = 0;
  }
  hsa_signal_t Dep, BarrierDone, Done;
  hsa_signal_create(1, 0, nullptr, &Dep);
  hsa_signal_create(1, 0, nullptr, &BarrierDone);
  hsa_signal_create(1, 0, nullptr, &Done);
  uint64_t Index = hsa_queue_add_write_index_relaxed(Queue, 1);
  auto *B = static_cast<hsa_barrier_and_packet_t *>(Queue->base_address) +
            (Index & (Queue->size - 1));
  std::memset(reinterpret_cast<uint8_t *>(B) + 4, 0, sizeof(*B) - 4);
  B->dep_signal[2] = Dep;
  B->completion_signal = BarrierDone;
  publish(Queue, B, HSA_PACKET_TYPE_BARRIER_AND, Index);
  VaddArgs Args{A, A, C, N};
  uint64_t KIndex;
  auto *P = writeDispatch(Queue, K, &Args, sizeof(Args), 1, {N, 1, 1},
                          {64, 1, 1}, Done, 0, KIndex);
  publish(Queue, P, HSA_PACKET_TYPE_KERNEL_DISPATCH, KIndex);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(hsa_signal_load_scacquire(BarrierDone), 1);
  EXPECT_EQ(hsa_signal_load_scacquire(Done), 1);
  EXPECT_EQ(C[0], 0.0f) << "the kernel ran before its barrier was satisfied";
  hsa_signal_store_screlease(Dep, 0);
  EXPECT_EQ(hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                      20ull * 400'000'000,
                                      HSA_WAIT_STATE_BLOCKED),
            0);
  EXPECT_EQ(hsa_signal_load_scacquire(BarrierDone), 0);
  EXPECT_EQ(C[N - 1], 2.0f);
  hsa_signal_destroy(Dep);
  hsa_signal_destroy(BarrierDone);
  hsa_signal_destroy(Done);
}

/// One work-item runs %n steps of a linear congruential generator (a
/// dependent chain the compiler cannot shorten) and stores the low 16 bits
/// of the result as a float: a kernel that keeps the GPU busy for a while.
const char *const SpinKernel = R"(
prog kernel &spin(kernarg_u64 %out, kernarg_u32 %n)
{
	ld_kernarg_u64 $d0, [%out];
	ld_kernarg_u32 $s1, [%n];
	mov_b32 $s0, 1;
	mov_b32 $s2, 0;
@loop:
	mad_u32 $s0, $s0, 1664525, 1013904223;
	add_u32 $s2, $s2, 1;
	cmp_lt_b1_u32 $c0, $s2, $s1;
	cbr_b1 $c0, @loop;
	and_b32 $s0, $s0, 65535;
	cvt_f32_u32 $s3, $s0;
	st_global_f32 $s3, [$d0];
	ret;
};
)";
struct SpinArgs {
  float *Out;
  uint32_t N;
};
float spinResult(uint32_t N) {
  uint32_t X = 1;
  for (uint32_t I = 0; I < N; ++I)
    X = X * 1664525u + 1013904223u;
  return float(X & 65535u);
}
constexpr uint32_t SpinSteps = 20'000'000;

// HSA runtime 2.9.1: a barrier-AND's dependency may be another queue's
// completion signal; the dispatch behind the barrier sees what the first
// queue's kernel wrote (on the device: a stream wait on the signal).
TEST_F(GpuAgentTest, BarrierAndWaitsForAnotherGpuQueuesCompletion) {
  const uint64_t Spin = load(SpinKernel, "&spin");
  const uint64_t Vadd = load(VectorAdd, "&vadd");
  ASSERT_NE(Spin, 0u);
  ASSERT_NE(Vadd, 0u);
  hsa_queue_t *Other = nullptr;
  ASSERT_EQ(hsa_queue_create(F.Gpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr,
                             UINT32_MAX, UINT32_MAX, &Other),
            HSA_STATUS_SUCCESS);
  auto *X = static_cast<float *>(allocate(F.Fine, 64 * 4));
  auto *C = static_cast<float *>(allocate(F.Fine, 64 * 4));
  X[0] = -1;
  C[0] = 0;
  hsa_signal_t SpinDone, BarrierDone, Done;
  hsa_signal_create(1, 0, nullptr, &SpinDone);
  hsa_signal_create(1, 0, nullptr, &BarrierDone);
  hsa_signal_create(1, 0, nullptr, &Done);
  // The barrier and the dispatch behind it go first, on this queue.
  uint64_t BIndex, KIndex, SIndex;
  auto *B = writeBarrier(Queue, {SpinDone}, BarrierDone, BIndex);
  publish(Queue, B, HSA_PACKET_TYPE_BARRIER_AND, BIndex);
  VaddArgs Args{X, X, C, 1};
  auto *P = writeDispatch(Queue, Vadd, &Args, sizeof(Args), 1, {64, 1, 1},
                          {64, 1, 1}, Done, 0, KIndex);
  publish(Queue, P, HSA_PACKET_TYPE_KERNEL_DISPATCH, KIndex);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(hsa_signal_load_scacquire(BarrierDone), 1);
  EXPECT_EQ(C[0], 0.0f) << "the dispatch ran before its barrier held";
  SpinArgs Spun{X, SpinSteps};
  auto *S = writeDispatch(Other, Spin, &Spun, sizeof(Spun), 1, {1, 1, 1},
                          {1, 1, 1}, SpinDone, 0, SIndex);
  publish(Other, S, HSA_PACKET_TYPE_KERNEL_DISPATCH, SIndex);
  ASSERT_EQ(hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                      20ull * 400'000'000,
                                      HSA_WAIT_STATE_BLOCKED),
            0);
  EXPECT_EQ(hsa_signal_load_scacquire(SpinDone), 0);
  EXPECT_EQ(hsa_signal_load_scacquire(BarrierDone), 0);
  const float Expected = spinResult(SpinSteps);
  EXPECT_EQ(X[0], Expected);
  EXPECT_EQ(C[0], 2 * Expected) << "the dispatch read the value before the "
                                   "other queue's kernel wrote it";
  hsa_signal_destroy(SpinDone);
  hsa_signal_destroy(BarrierDone);
  hsa_signal_destroy(Done);
  hsa_queue_destroy(Other);
}

// HSA runtime 2.9.2 (barrier-OR): the packet completes once any dependency
// is 0; one that never is does not hold it. A barrier-OR with a dependency
// already 0 completes at once.
TEST_F(GpuAgentTest, BarrierOrWaitsForAnyDependency) {
  const uint64_t K = load(VectorAdd, "&vadd");
  ASSERT_NE(K, 0u);
  constexpr uint32_t N = 64;
  auto *A = static_cast<float *>(allocate(F.Fine, N * 4));
  auto *C = static_cast<float *>(allocate(F.Fine, N * 4));
  for (uint32_t I = 0; I < N; ++I) {
    A[I] = 1;
    C[I] = 0;
  }
  hsa_signal_t Never, Later, BarrierDone, Done;
  hsa_signal_create(1, 0, nullptr, &Never);
  hsa_signal_create(1, 0, nullptr, &Later);
  hsa_signal_create(1, 0, nullptr, &BarrierDone);
  hsa_signal_create(1, 0, nullptr, &Done);
  uint64_t BIndex, KIndex;
  auto *B = writeBarrier(Queue, {Never, Later}, BarrierDone, BIndex);
  publish(Queue, B, HSA_PACKET_TYPE_BARRIER_OR, BIndex);
  VaddArgs Args{A, A, C, N};
  auto *P = writeDispatch(Queue, K, &Args, sizeof(Args), 1, {N, 1, 1},
                          {64, 1, 1}, Done, 0, KIndex);
  publish(Queue, P, HSA_PACKET_TYPE_KERNEL_DISPATCH, KIndex);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(hsa_signal_load_scacquire(BarrierDone), 1);
  EXPECT_EQ(hsa_signal_load_scacquire(Done), 1);
  EXPECT_EQ(C[0], 0.0f) << "the kernel ran before its barrier was satisfied";
  hsa_signal_store_screlease(Later, 0);
  EXPECT_EQ(hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                      20ull * 400'000'000,
                                      HSA_WAIT_STATE_BLOCKED),
            0);
  EXPECT_EQ(hsa_signal_load_scacquire(BarrierDone), 0);
  EXPECT_EQ(hsa_signal_load_scacquire(Never), 1);
  EXPECT_EQ(C[N - 1], 2.0f);

  hsa_signal_t Again;
  hsa_signal_create(1, 0, nullptr, &Again);
  B = writeBarrier(Queue, {Never, Later}, Again, BIndex);
  publish(Queue, B, HSA_PACKET_TYPE_BARRIER_OR, BIndex);
  EXPECT_EQ(hsa_signal_wait_scacquire(Again, HSA_SIGNAL_CONDITION_EQ, 0,
                                      20ull * 400'000'000,
                                      HSA_WAIT_STATE_BLOCKED),
            0);
  for (hsa_signal_t S : {Never, Later, BarrierDone, Done, Again})
    hsa_signal_destroy(S);
}

// HSA runtime 2.6 / 2.9: each packet decrements its completion signal by
// exactly one when it completes; with many packets in flight on two queues
// sharing one signal, and each with a signal of its own, every value ends
// exact.
TEST_F(GpuAgentTest, CompletionSignalsStayExactWithManyDispatchesInFlight) {
  const uint64_t K = load(VectorAdd, "&vadd");
  ASSERT_NE(K, 0u);
  hsa_queue_t *Other = nullptr;
  ASSERT_EQ(hsa_queue_create(F.Gpu, 1024, HSA_QUEUE_TYPE_MULTI, nullptr,
                             nullptr, UINT32_MAX, UINT32_MAX, &Other),
            HSA_STATUS_SUCCESS);
  constexpr uint32_t N = 256, PerQueue = 400, Own = 200;
  auto *A = static_cast<float *>(allocate(F.Fine, N * 4));
  auto *C = static_cast<float *>(allocate(F.Fine, N * 4));
  for (uint32_t I = 0; I < N; ++I)
    A[I] = float(I);
  VaddArgs Args{A, A, C, N};
  hsa_signal_t Shared;
  hsa_signal_create(2 * PerQueue, 0, nullptr, &Shared);
  std::vector<hsa_signal_t> Mine(Own);
  for (hsa_signal_t &S : Mine)
    hsa_signal_create(1, 0, nullptr, &S);
  auto Enqueue = [&](hsa_queue_t *Q, hsa_signal_t S) {
    uint64_t Index;
    auto *P = writeDispatch(Q, K, &Args, sizeof(Args), 1, {N, 1, 1}, {64, 1, 1},
                            S, 0, Index);
    publish(Q, P, HSA_PACKET_TYPE_KERNEL_DISPATCH, Index);
  };
  for (uint32_t I = 0; I < PerQueue; ++I) {
    Enqueue(Queue, Shared);
    Enqueue(Other, Shared);
    if (I < Own)
      Enqueue(I % 2 ? Queue : Other, Mine[I]);
  }
  ASSERT_EQ(hsa_signal_wait_scacquire(Shared, HSA_SIGNAL_CONDITION_EQ, 0,
                                      60ull * 400'000'000,
                                      HSA_WAIT_STATE_BLOCKED),
            0);
  for (uint32_t I = 0; I < Own; ++I)
    EXPECT_EQ(hsa_signal_wait_scacquire(Mine[I], HSA_SIGNAL_CONDITION_LT, 1,
                                        20ull * 400'000'000,
                                        HSA_WAIT_STATE_BLOCKED),
              0)
        << I;
  // Nothing decrements twice: the values stay at 0 once all is done.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(hsa_signal_load_scacquire(Shared), 0);
  for (uint32_t I = 0; I < Own; ++I)
    EXPECT_EQ(hsa_signal_load_scacquire(Mine[I]), 0) << I;
  EXPECT_EQ(C[N - 1], 2.0f * float(N - 1));
  hsa_signal_destroy(Shared);
  for (hsa_signal_t S : Mine)
    hsa_signal_destroy(S);
  hsa_queue_destroy(Other);
}

double threadCpuSeconds() {
  timespec T;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &T);
  return double(T.tv_sec) + double(T.tv_nsec) * 1e-9;
}
double processCpuSeconds() {
  rusage U;
  getrusage(RUSAGE_SELF, &U);
  return double(U.ru_utime.tv_sec + U.ru_stime.tv_sec) +
         double(U.ru_utime.tv_usec + U.ru_stime.tv_usec) * 1e-6;
}

// HSA runtime 2.5.1 (hsa_signal_wait_*, HSA_WAIT_STATE_BLOCKED): a host
// thread waiting on a GPU kernel's completion signal sleeps rather than
// spinning, and wakes when the kernel ends; nor does the queue's service
// thread spin while the kernel runs (beyond its first 2 ms).
TEST_F(GpuAgentTest, AWaiterSleepsUntilTheGpuCompletes) {
  const uint64_t Spin = load(SpinKernel, "&spin");
  ASSERT_NE(Spin, 0u);
  auto *X = static_cast<float *>(allocate(F.Fine, 4));
  X[0] = -1;
  hsa_signal_t Done;
  hsa_signal_create(1, 0, nullptr, &Done);
  SpinArgs Args{X, 4 * SpinSteps};
  uint64_t Index;
  auto *P = writeDispatch(Queue, Spin, &Args, sizeof(Args), 1, {1, 1, 1},
                          {1, 1, 1}, Done, 0, Index);
  const auto Start = std::chrono::steady_clock::now();
  const double Cpu0 = threadCpuSeconds(), Process0 = processCpuSeconds();
  publish(Queue, P, HSA_PACKET_TYPE_KERNEL_DISPATCH, Index);
  ASSERT_EQ(hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                      60ull * 400'000'000,
                                      HSA_WAIT_STATE_BLOCKED),
            0);
  const double Wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  const double Cpu = threadCpuSeconds() - Cpu0,
               Process = processCpuSeconds() - Process0;
  EXPECT_EQ(X[0], spinResult(4 * SpinSteps)) << "woken before the kernel ended";
  std::printf("kernel wait: %.1f ms wall, waiter %.2f ms CPU, process %.1f ms "
              "CPU\n",
              Wall * 1e3, Cpu * 1e3, Process * 1e3);
  ASSERT_GT(Wall, 0.005) << "the kernel is too short to tell";
  EXPECT_LT(Cpu, 0.2 * Wall) << "the waiting thread spun";
  EXPECT_LT(Process, 0.5 * Wall) << "a thread of the process spun";
  hsa_signal_destroy(Done);
}

TEST_F(GpuAgentTest, ACpuKernelObjectOnAGpuQueueIsRefused) {
  ASSERT_NE(F.Cpu.handle, 0u);
  const uint64_t K = load(VectorAdd, "&vadd", F.Cpu);
  ASSERT_NE(K, 0u);
  VaddArgs Args{nullptr, nullptr, nullptr, 0};
  hsa_signal_t Done;
  hsa_signal_create(1, 0, nullptr, &Done);
  uint64_t Index;
  auto *P = writeDispatch(Queue, K, &Args, sizeof(Args), 1, {64, 1, 1},
                          {64, 1, 1}, Done, 0, Index);
  publish(Queue, P, HSA_PACKET_TYPE_KERNEL_DISPATCH, Index);
  for (int I = 0; I < 2000 && LastQueueError == HSA_STATUS_SUCCESS; ++I)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(LastQueueError.load(), HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  hsa_signal_destroy(Done);
}

// A fault on the device poisons the CUDA context of every queue of the
// agent (CUDA's errors are sticky; after an illegal address the process
// cannot use the device again): the queue reports it, the process lives,
// hsa_shut_down and hsa_init work. The fault happens in a child process
// running this test with OPENHSA_GPU_FAULT_CHILD set.
TEST_F(GpuAgentTest, AFaultingKernelIsReportedAndTheProcessLives) {
  if (!std::getenv("OPENHSA_GPU_FAULT_CHILD")) {
    EXPECT_EQ(runChild({"--gtest_filter=GpuAgentTest."
                        "AFaultingKernelIsReportedAndTheProcessLives"},
                       "OPENHSA_GPU_FAULT_CHILD", "1"),
              0);
    return;
  }
  const uint64_t K = load(R"(
prog kernel &bad(kernarg_u64 %p)
{
	ld_kernarg_u64 $d0, [%p];
	ld_global_u32 $s0, [$d0];
	st_global_u32 $s0, [$d0+4];
};
)",
                          "&bad");
  ASSERT_NE(K, 0u);
  void *Args = reinterpret_cast<void *>(uintptr_t(0x10));
  hsa_signal_t Done;
  hsa_signal_create(1, 0, nullptr, &Done);
  uint64_t Index;
  auto *P = writeDispatch(Queue, K, &Args, sizeof(Args), 1, {32, 1, 1},
                          {32, 1, 1}, Done, 0, Index);
  publish(Queue, P, HSA_PACKET_TYPE_KERNEL_DISPATCH, Index);
  for (int I = 0; I < 10000 && LastQueueError == HSA_STATUS_SUCCESS; ++I)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(LastQueueError.load(), HSA_STATUS_ERROR_EXCEPTION);
  hsa_signal_destroy(Done);
  // hsa_shut_down and a new hsa_init still work. (CUDA keeps the process
  // from the device after an illegal address, so the new runtime may have
  // no GPU agent; its CPU agents work.)
  TearDown();
  Executables.clear();
  Queue = nullptr;
  Initialized = false;
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  Found Again;
  hsa_iterate_agents(findAgents, &Again);
  EXPECT_NE(Again.Cpu.handle, 0u);
  EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
}

TEST_F(GpuAgentTest, CpuThenGpuOnTheSameBuffers) {
  ASSERT_NE(F.Cpu.handle, 0u);
  const uint64_t OnCpu = load(VectorAdd, "&vadd", F.Cpu);
  const uint64_t OnGpu = load(VectorAdd, "&vadd");
  ASSERT_NE(OnCpu, 0u);
  ASSERT_NE(OnGpu, 0u);
  hsa_queue_t *CpuQueue = nullptr;
  ASSERT_EQ(hsa_queue_create(F.Cpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr,
                             UINT32_MAX, UINT32_MAX, &CpuQueue),
            HSA_STATUS_SUCCESS);
  constexpr uint32_t N = 10'000;
  auto *A = static_cast<float *>(allocate(F.Fine, N * 4));
  auto *B = static_cast<float *>(allocate(F.Fine, N * 4));
  for (uint32_t I = 0; I < N; ++I)
    A[I] = float(I);
  VaddArgs First{A, A, B, N}; // B = 2A on the CPU
  ASSERT_TRUE(
      run(OnCpu, &First, sizeof(First), 1, {N, 1, 1}, {64, 1, 1}, 0, CpuQueue));
  VaddArgs Second{B, A, B, N}; // B = 3A on the GPU
  ASSERT_TRUE(run(OnGpu, &Second, sizeof(Second), 1, {N, 1, 1}, {64, 1, 1}));
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(B[I], 3.0f * float(I)) << I;
  hsa_queue_destroy(CpuQueue);
}

// A barrier-AND on a GPU queue whose dependency is the completion signal
// of a dispatch on the CPU agent's queue, published after the barrier: the
// GPU's dispatch behind the barrier reads what the CPU kernel wrote.
TEST_F(GpuAgentTest, BarrierAndWaitsForACpuAgentsDispatch) {
  ASSERT_NE(F.Cpu.handle, 0u);
  const uint64_t OnCpu = load(VectorAdd, "&vadd", F.Cpu);
  const uint64_t OnGpu = load(VectorAdd, "&vadd");
  ASSERT_NE(OnCpu, 0u);
  ASSERT_NE(OnGpu, 0u);
  hsa_queue_t *CpuQueue = nullptr;
  ASSERT_EQ(hsa_queue_create(F.Cpu, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr,
                             UINT32_MAX, UINT32_MAX, &CpuQueue),
            HSA_STATUS_SUCCESS);
  constexpr uint32_t N = 4096;
  auto *A = static_cast<float *>(allocate(F.Fine, N * 4));
  auto *B = static_cast<float *>(allocate(F.Fine, N * 4));
  for (uint32_t I = 0; I < N; ++I) {
    A[I] = float(I);
    B[I] = -1;
  }
  hsa_signal_t CpuDone, BarrierDone, Done;
  hsa_signal_create(1, 0, nullptr, &CpuDone);
  hsa_signal_create(1, 0, nullptr, &BarrierDone);
  hsa_signal_create(1, 0, nullptr, &Done);
  uint64_t BIndex, GIndex, CIndex;
  auto *Barrier = writeBarrier(Queue, {CpuDone}, BarrierDone, BIndex);
  publish(Queue, Barrier, HSA_PACKET_TYPE_BARRIER_AND, BIndex);
  VaddArgs OnGpuArgs{B, A, B, N}; // B = 3A once the CPU wrote 2A.
  auto *G = writeDispatch(Queue, OnGpu, &OnGpuArgs, sizeof(OnGpuArgs), 1,
                          {N, 1, 1}, {64, 1, 1}, Done, 0, GIndex);
  publish(Queue, G, HSA_PACKET_TYPE_KERNEL_DISPATCH, GIndex);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(hsa_signal_load_scacquire(Done), 1)
      << "the GPU's dispatch ran before its barrier held";
  VaddArgs OnCpuArgs{A, A, B, N}; // B = 2A
  auto *C = writeDispatch(CpuQueue, OnCpu, &OnCpuArgs, sizeof(OnCpuArgs), 1,
                          {N, 1, 1}, {64, 1, 1}, CpuDone, 0, CIndex);
  publish(CpuQueue, C, HSA_PACKET_TYPE_KERNEL_DISPATCH, CIndex);
  ASSERT_EQ(hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                      20ull * 400'000'000,
                                      HSA_WAIT_STATE_BLOCKED),
            0);
  EXPECT_EQ(hsa_signal_load_scacquire(BarrierDone), 0);
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(B[I], 3.0f * float(I)) << I;
  for (hsa_signal_t S : {CpuDone, BarrierDone, Done})
    hsa_signal_destroy(S);
  hsa_queue_destroy(CpuQueue);
}

// PRM 12.5.1 on a GPU agent (as on the CPU agent): the work-item that
// executes debugtrap halts, the others run on, and the queue reports
// HSA_STATUS_ERROR_EXCEPTION and stops; the dispatch does not complete.
// Completion is the queue's: CompletionOnDevice makes a queue whose
// completion signals a kernel decrements (OPENHSA_GPU_COMPLETION=device).
void expectDebugTrapHalts(GpuAgentTest &T, uint64_t K, hsa_queue_t *Q,
                          void *Out) {
  std::memset(Out, 0, 64 * 4);
  hsa_signal_t Done;
  ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &Done), HSA_STATUS_SUCCESS);
  uint64_t Index;
  void *Args = Out;
  auto *P = T.writeDispatch(Q, K, &Args, sizeof(Args), 1, {64, 1, 1},
                            {32, 1, 1}, Done, 0, Index);
  GpuAgentTest::publish(Q, P, HSA_PACKET_TYPE_KERNEL_DISPATCH, Index);
  for (int I = 0; I < 10000 && LastQueueError == HSA_STATUS_SUCCESS; ++I)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(LastQueueError.load(), HSA_STATUS_ERROR_EXCEPTION);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(hsa_signal_load_scacquire(Done), 1) << "the dispatch completed";
  auto *Words = static_cast<uint32_t *>(Out);
  for (uint32_t I = 0; I < 64; ++I)
    EXPECT_EQ(Words[I], I == 3 ? 1u : 2u) << "work-item " << I;
  hsa_signal_destroy(Done);
}

const char *Trap = R"(
prog kernel &trap(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	1, [$d1];
	cmp_ne_b1_u32	$c0, $s0, 3;
	cbr_b1	$c0, @on;
	debugtrap_u32	77;
@on:
	st_global_u32	2, [$d1];
};
)";

TEST_F(GpuAgentTest, DebugTrapHaltsTheWorkItemAndStopsTheQueue) {
  const uint64_t K = load(Trap, "&trap");
  ASSERT_NE(K, 0u);
  expectDebugTrapHalts(*this, K, Queue, allocate(F.Fine, 64 * 4));
}

TEST_F(GpuAgentTest, DebugTrapStopsTheDispatchWithCompletionOnTheDevice) {
  const uint64_t K = load(Trap, "&trap");
  ASSERT_NE(K, 0u);
  setenv("OPENHSA_GPU_COMPLETION", "device", 1);
  hsa_queue_t *OnDevice = nullptr;
  const hsa_status_t S =
      hsa_queue_create(F.Gpu, 64, HSA_QUEUE_TYPE_MULTI, onQueueError, nullptr,
                       UINT32_MAX, UINT32_MAX, &OnDevice);
  unsetenv("OPENHSA_GPU_COMPLETION");
  ASSERT_EQ(S, HSA_STATUS_SUCCESS);
  expectDebugTrapHalts(*this, K, OnDevice, allocate(F.Fine, 64 * 4));
  hsa_queue_destroy(OnDevice);
}

// Signal instructions in a GPU kernel (PRM 6.8) are system-scope atomics on
// the runtime's signals: a kernel waits for a value the host stores, then
// adds to another signal that a host thread waits on, blocked.
TEST_F(GpuAgentTest, KernelsSignalTheHostAndWaitForIt) {
  const uint64_t K = load(R"(
prog kernel &handshake(kernarg_sig64 %go, kernarg_sig64 %count, kernarg_u64 %out)
{
	ld_kernarg_sig64	$d0, [%go];
	ld_kernarg_sig64	$d1, [%count];
	ld_kernarg_u64	$d2, [%out];
	signal_wait_eq_scacq_s64_sig64	$d3, $d0, 7;
	signalnoret_add_screl_s64_sig64	$d1, 1;
	clock_u64	$d4;
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d5, $s0;
	shl_u64	$d5, $d5, 3;
	add_u64	$d2, $d2, $d5;
	st_global_u64	$d4, [$d2];
};
)",
                          "&handshake");
  ASSERT_NE(K, 0u);
  constexpr uint32_t N = 256;
  hsa_signal_t Go, Count;
  ASSERT_EQ(hsa_signal_create(0, 0, nullptr, &Go), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_signal_create(0, 0, nullptr, &Count), HSA_STATUS_SUCCESS);
  auto *Out = static_cast<uint64_t *>(allocate(F.Fine, N * 8));
  struct {
    uint64_t Go, Count;
    void *Out;
  } Args{Go.handle, Count.handle, Out};
  int64_t Seen = -1;
  std::thread Waiter([&] {
    Seen =
        hsa_signal_wait_scacquire(Count, HSA_SIGNAL_CONDITION_EQ, N,
                                  20ull * 400'000'000, HSA_WAIT_STATE_BLOCKED);
  });
  hsa_signal_t Done;
  ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &Done), HSA_STATUS_SUCCESS);
  uint64_t Index;
  auto *P = writeDispatch(Queue, K, &Args, sizeof(Args), 1, {N, 1, 1},
                          {64, 1, 1}, Done, 0, Index);
  publish(Queue, P, HSA_PACKET_TYPE_KERNEL_DISPATCH, Index);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(hsa_signal_load_scacquire(Count), 0) << "waits did not wait";
  uint64_t Before = 0;
  hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &Before);
  hsa_signal_store_screlease(Go, 7);
  Waiter.join();
  EXPECT_EQ(Seen, int64_t(N));
  EXPECT_EQ(hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                      20ull * 400'000'000,
                                      HSA_WAIT_STATE_BLOCKED),
            0);
  EXPECT_EQ(LastQueueError.load(), HSA_STATUS_SUCCESS);
  // clock: the host's timestamp, read on the device after the store.
  uint64_t Now = 0;
  hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &Now);
  for (uint32_t I = 0; I < N; ++I) {
    EXPECT_GE(Out[I] + 4000, Before) << I; // The origin is within ~10 us.
    EXPECT_LE(Out[I], Now + 4000) << I;
  }
  for (hsa_signal_t S : {Go, Count, Done})
    hsa_signal_destroy(S);
}

// PRM 11.3 queue instructions in a GPU kernel: each work-item reserves a
// slot on a CPU agent dispatch queue, writes an agent dispatch packet
// there, publishes it and rings the doorbell, then waits for the host's
// handler to answer (the HSA way for a kernel to ask its host for a
// service). The GPU's store to the doorbell wakes nobody: the CPU's packet
// processor re-checks its queues while GPU code may run.
struct Answers {
  std::atomic<int> Calls{0};
};
hsa_status_t answer(uint16_t, const uint64_t Args[4], void *Return,
                    void *Data) {
  static_cast<Answers *>(Data)->Calls.fetch_add(1);
  *static_cast<uint64_t *>(Return) = Args[0] * 10 + 1;
  return HSA_STATUS_SUCCESS;
}

TEST_F(GpuAgentTest, KernelsEnqueueAgentDispatchesOnTheHost) {
  ASSERT_NE(F.Host.handle, 0u);
  hsa_ext_openhsa_1_pfn_t Ext;
  ASSERT_EQ(hsa_system_get_major_extension_table(HSA_EXTENSION_OPENHSA, 1,
                                                 sizeof(Ext), &Ext),
            HSA_STATUS_SUCCESS);
  Answers Log;
  ASSERT_EQ(Ext.hsa_ext_openhsa_agent_dispatch_handler_set(F.Host, 0x8000,
                                                           answer, &Log),
            HSA_STATUS_SUCCESS);
  hsa_queue_t *HostQueue = nullptr;
  ASSERT_EQ(hsa_queue_create(F.Host, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr,
                             UINT32_MAX, UINT32_MAX, &HostQueue),
            HSA_STATUS_SUCCESS);
  const uint64_t K = load(R"(
prog kernel &ask(kernarg_u64 %q, kernarg_sig64 %done, kernarg_u64 %results,
	kernarg_u64 %out, kernarg_u32 %header)
{
	ld_kernarg_u64	$d0, [%q];
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d9, $s0;
	addqueuewriteindex_global_scar_u64	$d1, [$d0], 1;
	ld_global_u64	$d2, [$d0+8];
	ld_global_u32	$s1, [$d0+24];
	sub_u32	$s1, $s1, 1;
	cvt_u64_u32	$d3, $s1;
	and_b64	$d4, $d1, $d3;
	shl_u64	$d4, $d4, 6;
	add_u64	$d2, $d2, $d4;
	ld_kernarg_u64	$d5, [%results];
	shl_u64	$d6, $d9, 3;
	add_u64	$d5, $d5, $d6;
	st_global_u64	$d5, [$d2+8];
	st_global_u64	$d9, [$d2+16];
	ld_kernarg_sig64	$d7, [%done];
	st_global_u64	$d7, [$d2+56];
	ld_kernarg_u32	$s2, [%header];
	atomicnoret_st_global_screl_system_b32	[$d2], $s2;
	ld_global_u64	$d8, [$d0+16];
	signalnoret_st_screl_b64_sig64	$d8, $d1;
	signal_wait_eq_scacq_s64_sig64	$d10, $d7, 0;
	ld_global_u64	$d11, [$d5];
	ld_kernarg_u64	$d12, [%out];
	add_u64	$d12, $d12, $d6;
	st_global_u64	$d11, [$d12];
};
)",
                          "&ask");
  ASSERT_NE(K, 0u);
  constexpr uint32_t N = 8;
  auto *Results = static_cast<uint64_t *>(allocate(F.Fine, N * 8));
  auto *Out = static_cast<uint64_t *>(allocate(F.Fine, N * 8));
  std::memset(Results, 0, N * 8);
  std::memset(Out, 0, N * 8);
  hsa_signal_t Answered;
  ASSERT_EQ(hsa_signal_create(N, 0, nullptr, &Answered), HSA_STATUS_SUCCESS);
  const uint16_t Header =
      (HSA_PACKET_TYPE_AGENT_DISPATCH << HSA_PACKET_HEADER_TYPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  struct {
    hsa_queue_t *Q;
    uint64_t Done;
    uint64_t *Results, *Out;
    uint32_t Header;
  } Args{HostQueue, Answered.handle, Results, Out,
         uint32_t(Header) | uint32_t(0x8000) << 16};
  ASSERT_TRUE(run(K, &Args, sizeof(Args), 1, {N, 1, 1}, {N, 1, 1}));
  EXPECT_EQ(LastQueueError.load(), HSA_STATUS_SUCCESS);
  EXPECT_EQ(Log.Calls.load(), int(N));
  EXPECT_EQ(hsa_queue_load_write_index_relaxed(HostQueue), N);
  for (uint32_t I = 0; I < N; ++I) {
    EXPECT_EQ(Results[I], I * 10 + 1) << I;
    EXPECT_EQ(Out[I], I * 10 + 1) << "work-item " << I << " read before the "
                                  << "handler answered";
  }
  hsa_signal_destroy(Answered);
  hsa_queue_destroy(HostQueue);
}

// A GPU kernel enqueues a kernel dispatch on its own queue (device-side
// enqueue, PRM 11.3): it reserves a slot, copies a dispatch packet the
// host prepared into it, publishes the header and rings the doorbell; the
// queue runs the child after the parent.
TEST_F(GpuAgentTest, KernelsEnqueueKernelDispatchesOnTheirQueue) {
  const uint64_t Child = load(VectorAdd, "&vadd");
  const uint64_t Parent = load(R"(
prog kernel &spawn(kernarg_u64 %q, kernarg_u64 %packet)
{
	ld_kernarg_u64	$d0, [%q];
	addqueuewriteindex_global_scar_u64	$d1, [$d0], 1;
	ld_global_u64	$d2, [$d0+8];
	ld_global_u32	$s1, [$d0+24];
	sub_u32	$s1, $s1, 1;
	cvt_u64_u32	$d3, $s1;
	and_b64	$d4, $d1, $d3;
	shl_u64	$d4, $d4, 6;
	add_u64	$d2, $d2, $d4;
	ld_kernarg_u64	$d5, [%packet];
	ld_global_u32	$s2, [$d5+4];
	st_global_u32	$s2, [$d2+4];
	ld_global_u64	$d6, [$d5+8];
	st_global_u64	$d6, [$d2+8];
	ld_global_u64	$d6, [$d5+16];
	st_global_u64	$d6, [$d2+16];
	ld_global_u64	$d6, [$d5+24];
	st_global_u64	$d6, [$d2+24];
	ld_global_u64	$d6, [$d5+32];
	st_global_u64	$d6, [$d2+32];
	ld_global_u64	$d6, [$d5+40];
	st_global_u64	$d6, [$d2+40];
	ld_global_u64	$d6, [$d5+48];
	st_global_u64	$d6, [$d2+48];
	ld_global_u64	$d6, [$d5+56];
	st_global_u64	$d6, [$d2+56];
	ld_global_u32	$s3, [$d5];
	atomicnoret_st_global_screl_system_b32	[$d2], $s3;
	ld_global_u64	$d8, [$d0+16];
	signalnoret_st_screl_b64_sig64	$d8, $d1;
};
)",
                               "&spawn");
  ASSERT_NE(Child, 0u);
  ASSERT_NE(Parent, 0u);
  constexpr uint32_t N = 1000;
  auto *A = static_cast<float *>(allocate(F.Fine, N * 4));
  auto *B = static_cast<float *>(allocate(F.Fine, N * 4));
  for (uint32_t I = 0; I < N; ++I) {
    A[I] = float(I);
    B[I] = 1;
  }
  // The child's packet, header and setup in its first word.
  auto *Packet = static_cast<hsa_kernel_dispatch_packet_t *>(
      allocate(F.Fine, sizeof(hsa_kernel_dispatch_packet_t)));
  std::memset(Packet, 0, sizeof(*Packet));
  Packet->header =
      (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  Packet->setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
  Packet->workgroup_size_x = 64;
  Packet->workgroup_size_y = Packet->workgroup_size_z = 1;
  Packet->grid_size_x = N;
  Packet->grid_size_y = Packet->grid_size_z = 1;
  Packet->kernel_object = Child;
  VaddArgs ChildArgs{A, A, B, N}; // B = 2A
  void *ChildKernarg = allocate(F.Kernarg, sizeof(ChildArgs));
  std::memcpy(ChildKernarg, &ChildArgs, sizeof(ChildArgs));
  Packet->kernarg_address = ChildKernarg;
  hsa_signal_t ChildDone;
  ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &ChildDone), HSA_STATUS_SUCCESS);
  Packet->completion_signal = ChildDone;
  struct {
    hsa_queue_t *Q;
    void *Packet;
  } Args{Queue, Packet};
  ASSERT_TRUE(run(Parent, &Args, sizeof(Args), 1, {1, 1, 1}, {1, 1, 1}));
  ASSERT_EQ(hsa_signal_wait_scacquire(ChildDone, HSA_SIGNAL_CONDITION_EQ, 0,
                                      20ull * 400'000'000,
                                      HSA_WAIT_STATE_BLOCKED),
            0)
      << "the child the kernel enqueued did not run";
  EXPECT_EQ(hsa_queue_load_write_index_relaxed(Queue),
            hsa_queue_load_read_index_relaxed(Queue));
  EXPECT_EQ(LastQueueError.load(), HSA_STATUS_SUCCESS);
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(B[I], 2.0f * float(I)) << I;
  hsa_signal_destroy(ChildDone);
}

} // namespace
