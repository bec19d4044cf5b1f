//===- tests/runtime/AgentTest.cpp - Agents, caches, ISAs, wavefronts -----===//
//
// HSA Runtime 2.3.2 (agent information, caches), 2.3.3 (agent extension
// queries) and 2.9.1-2.9.2 (instruction set architectures, wavefronts).
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include <cstdlib>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace openhsa::test {
namespace {

using Agent = RuntimeTest;
using Cache = RuntimeTest;
using Isa = RuntimeTest;

constexpr unsigned char Pattern = 0xA5;

/// Queries an agent attribute into a buffer pre-filled with a pattern and
/// checks that no byte past the attribute's type was written.
template <typename T>
T agentInfo(hsa_agent_t Agent, int Attribute, size_t Bytes = sizeof(T)) {
  unsigned char Buffer[sizeof(T) + 16];
  std::memset(Buffer, Pattern, sizeof(Buffer));
  EXPECT_EQ(hsa_agent_get_info(Agent, hsa_agent_info_t(Attribute), Buffer),
            HSA_STATUS_SUCCESS)
      << "attribute " << Attribute;
  for (size_t I = Bytes; I < sizeof(Buffer); ++I)
    EXPECT_EQ(Buffer[I], Pattern)
        << "attribute " << Attribute << " wrote byte " << I;
  T Value;
  std::memcpy(&Value, Buffer, sizeof(T));
  return Value;
}

bool isPowerOfTwo(uint64_t V) { return V && !(V & (V - 1)); }

/// A char[64] name: NUL-terminated, at most 63 characters, NUL padded.
void expectName64(const std::array<char, 64> &Name, const char *What) {
  const size_t Length = strnlen(Name.data(), 64);
  EXPECT_LT(Length, 64u) << What << " is not NUL-terminated";
  EXPECT_GT(Length, 0u) << What << " is empty";
  for (size_t I = Length; I < 64; ++I)
    EXPECT_EQ(Name[I], '\0') << What << " is not NUL padded at " << I;
}

struct AgentList {
  std::vector<hsa_agent_t> Agents;
  int Calls = 0;
  hsa_status_t Answer = HSA_STATUS_SUCCESS;
};

hsa_status_t collectAgent(hsa_agent_t A, void *Data) {
  auto *L = static_cast<AgentList *>(Data);
  L->Agents.push_back(A);
  ++L->Calls;
  return L->Answer;
}

// HSA Runtime 2.3.2: hsa_iterate_agents visits each agent once; a callback
// status other than SUCCESS stops the traversal and is returned.
TEST_F(Agent, Iterate) {
  AgentList All;
  ASSERT_EQ(hsa_iterate_agents(collectAgent, &All), HSA_STATUS_SUCCESS);
  ASSERT_GE(All.Agents.size(), 1u);
  std::set<uint64_t> Unique;
  for (hsa_agent_t A : All.Agents)
    Unique.insert(A.handle);
  EXPECT_EQ(Unique.size(), All.Agents.size());
  EXPECT_TRUE(Unique.count(Cpu.handle));

  for (hsa_status_t Stop : {HSA_STATUS_INFO_BREAK, HSA_STATUS_ERROR,
                            HSA_STATUS_ERROR_INVALID_AGENT}) {
    AgentList First;
    First.Answer = Stop;
    EXPECT_EQ(hsa_iterate_agents(collectAgent, &First), Stop);
    EXPECT_EQ(First.Calls, 1);
  }
  EXPECT_EQ(hsa_iterate_agents(nullptr, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

/// The first agent whose feature is exactly Data's, ROCm programs' way of
/// picking "the kernel agent".
struct ByFeature {
  uint32_t Feature;
  hsa_agent_t Found{0};
};
hsa_status_t findByFeatureEquality(hsa_agent_t A, void *Data) {
  auto *F = static_cast<ByFeature *>(Data);
  uint32_t Feature = 0;
  if (hsa_agent_get_info(A, HSA_AGENT_INFO_FEATURE, &Feature) !=
      HSA_STATUS_SUCCESS)
    return HSA_STATUS_ERROR;
  if (Feature != F->Feature)
    return HSA_STATUS_SUCCESS;
  F->Found = A;
  return HSA_STATUS_INFO_BREAK;
}

void countWorkGroup(const void *Kernarg,
                    const hsa_ext_openhsa_dispatch_context_t *, uint32_t,
                    uint32_t, uint32_t) {
  std::atomic_ref<uint32_t>(**static_cast<uint32_t *const *>(Kernarg))
      .fetch_add(1);
}

// HSA Runtime 2.3.2 (hsa_agent_feature_t): programs written against ROCm
// GPU agents select the kernel agent with feature ==
// HSA_AGENT_FEATURE_KERNEL_DISPATCH. They find the CPU kernel agent (the
// first agent), which has an ISA and runs kernels from its queues.
TEST_F(Agent, SelectingTheKernelAgentByEquality) {
  ByFeature Kernel{HSA_AGENT_FEATURE_KERNEL_DISPATCH};
  ASSERT_EQ(hsa_iterate_agents(findByFeatureEquality, &Kernel),
            HSA_STATUS_INFO_BREAK)
      << "no agent reports exactly HSA_AGENT_FEATURE_KERNEL_DISPATCH";
  EXPECT_EQ(Kernel.Found.handle, Cpu.handle);
  EXPECT_EQ(agentInfo<hsa_device_type_t>(Kernel.Found, HSA_AGENT_INFO_DEVICE),
            HSA_DEVICE_TYPE_CPU);
  EXPECT_NE(agentInfo<hsa_isa_t>(Kernel.Found, HSA_AGENT_INFO_ISA).handle, 0u);

  uint32_t Groups = 0;
  auto *Args = allocKernarg<uint32_t *>();
  *Args = &Groups;
  hsa_ext_openhsa_native_kernel_t Native = {countWorkGroup,     nullptr, 0, 0,
                                            sizeof(uint32_t *), 16};
  uint64_t K = 0;
  ASSERT_EQ(Ext.hsa_ext_openhsa_native_kernel_create(Kernel.Found, &Native, &K),
            HSA_STATUS_SUCCESS);
  hsa_queue_t *Q = makeQueue(16, nullptr, HSA_QUEUE_TYPE_MULTI, Kernel.Found);
  ASSERT_NE(Q, nullptr);
  hsa_signal_t Done = makeSignal(1);
  auto P = dispatchPacket(K, Args, 1, {64, 1, 1}, {8, 1, 1}, Done);
  submitPacket(Q, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
  EXPECT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  EXPECT_EQ(Groups, 8u);
  EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
}

// HSA Runtime 2.3.2: each CPU node has a kernel agent (feature
// KERNEL_DISPATCH alone) and an agent dispatch agent (AGENT_DISPATCH alone)
// on the same node; the latter is a CPU agent with global memory, caches
// and queues of agent dispatch packets, no ISA and no group memory.
TEST_F(Agent, EachNodeHasAKernelAgentAndAnAgentDispatchAgent) {
  AgentList All;
  ASSERT_EQ(hsa_iterate_agents(collectAgent, &All), HSA_STATUS_SUCCESS);
  std::map<uint32_t, std::pair<int, int>> PerNode; // Kernel, agent dispatch.
  for (hsa_agent_t A : All.Agents) {
    if (agentInfo<hsa_device_type_t>(A, HSA_AGENT_INFO_DEVICE) !=
        HSA_DEVICE_TYPE_CPU)
      continue;
    const uint32_t Feature = agentInfo<uint32_t>(A, HSA_AGENT_INFO_FEATURE);
    const uint32_t Node = agentInfo<uint32_t>(A, HSA_AGENT_INFO_NODE);
    if (Feature == HSA_AGENT_FEATURE_KERNEL_DISPATCH) {
      ++PerNode[Node].first;
      continue;
    }
    ASSERT_EQ(Feature, uint32_t(HSA_AGENT_FEATURE_AGENT_DISPATCH));
    ++PerNode[Node].second;
    EXPECT_EQ(agentInfo<hsa_isa_t>(A, HSA_AGENT_INFO_ISA).handle, 0u);
    int Isas = 0;
    EXPECT_EQ(hsa_agent_iterate_isas(
                  A,
                  [](hsa_isa_t, void *N) {
                    ++*static_cast<int *>(N);
                    return HSA_STATUS_SUCCESS;
                  },
                  &Isas),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(Isas, 0);
    AgentRegions Mine;
    EXPECT_EQ(hsa_agent_iterate_regions(A, classifyRegion, &Mine),
              HSA_STATUS_SUCCESS);
    EXPECT_NE(Mine.Fine.handle, 0u);
    EXPECT_NE(Mine.Coarse.handle, 0u);
    EXPECT_EQ(Mine.Group.handle, 0u);
    void *P = nullptr;
    EXPECT_EQ(hsa_memory_allocate(Mine.Fine, 100, &P), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_memory_free(P), HSA_STATUS_SUCCESS);
    hsa_queue_t *Q = nullptr;
    ASSERT_EQ(hsa_queue_create(A, 16, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr,
                               UINT32_MAX, UINT32_MAX, &Q),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(Q->features, uint32_t(HSA_QUEUE_FEATURE_AGENT_DISPATCH));
    EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
  }
  ASSERT_FALSE(PerNode.empty());
  for (const auto &[Node, Count] : PerNode) {
    EXPECT_EQ(Count.first, 1) << "kernel agents of node " << Node;
    EXPECT_EQ(Count.second, 1) << "agent dispatch agents of node " << Node;
  }
  EXPECT_EQ(agentInfo<uint32_t>(Host, HSA_AGENT_INFO_NODE),
            agentInfo<uint32_t>(Cpu, HSA_AGENT_INFO_NODE));
}

// HSA Runtime 2.3.2: every hsa_agent_info_t attribute of the CPU agent,
// with its type and values consistent with one another.
TEST_F(Agent, EveryAttributeOfTheCpuAgent) {
  using Name = std::array<char, 64>;
  expectName64(agentInfo<Name>(Cpu, HSA_AGENT_INFO_NAME), "NAME");
  expectName64(agentInfo<Name>(Cpu, HSA_AGENT_INFO_VENDOR_NAME), "VENDOR_NAME");

  const uint32_t Feature = agentInfo<uint32_t>(Cpu, HSA_AGENT_INFO_FEATURE);
  // Kernel dispatch only: agent dispatch is the agent dispatch agent's.
  EXPECT_EQ(Feature, uint32_t(HSA_AGENT_FEATURE_KERNEL_DISPATCH));
  EXPECT_EQ(agentInfo<hsa_machine_model_t>(Cpu, HSA_AGENT_INFO_MACHINE_MODEL),
            HSA_MACHINE_MODEL_LARGE);
  EXPECT_EQ(agentInfo<hsa_profile_t>(Cpu, HSA_AGENT_INFO_PROFILE),
            HSA_PROFILE_FULL);
  const auto Rounding = agentInfo<hsa_default_float_rounding_mode_t>(
      Cpu, HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE);
  EXPECT_TRUE(Rounding == HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO ||
              Rounding == HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR)
      << "DEFAULT is not allowed here, got " << Rounding;
  const uint32_t BaseModes = agentInfo<uint32_t>(
      Cpu, HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES);
  EXPECT_EQ(BaseModes & (1u << HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT), 0u);
  agentInfo<bool>(Cpu, HSA_AGENT_INFO_FAST_F16_OPERATION);

  // The lanes the finalizer runs a wavefront in (PRM 2.6): 16 with
  // AVX-512, 8 with AVX, 4 otherwise; 1 with OPENHSA_VECTORIZE=0. Those of
  // the x86-64 level OPENHSA_CPU_TARGET names, where it names one
  // (abi/CpuTarget.h; CMakeLists.txt runs these tests so).
  const uint32_t Wavefront =
      agentInfo<uint32_t>(Cpu, HSA_AGENT_INFO_WAVEFRONT_SIZE);
  uint32_t Lanes = 4;
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f"))
    Lanes = 16;
  else if (__builtin_cpu_supports("avx"))
    Lanes = 8;
#endif
  if (const char *T = std::getenv("OPENHSA_CPU_TARGET"); T && *T) {
    const std::string Target = T;
    Lanes = Target == "x86-64-v4" ? 16 : Target == "x86-64-v3" ? 8 : 4;
    ASSERT_TRUE(Target == "x86-64-v2" || Lanes > 4)
        << "this test knows the lanes of x86-64-v2, -v3 and -v4 only";
    // The agent's ISA is the target's.
    const hsa_isa_t Isa = agentInfo<hsa_isa_t>(Cpu, HSA_AGENT_INFO_ISA);
    uint32_t Length = 0;
    ASSERT_EQ(hsa_isa_get_info_alt(Isa, HSA_ISA_INFO_NAME_LENGTH, &Length),
              HSA_STATUS_SUCCESS);
    std::vector<char> Name(Length + 1, '\0');
    ASSERT_EQ(hsa_isa_get_info_alt(Isa, HSA_ISA_INFO_NAME, Name.data()),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(std::string(Name.data(), Length), "openhsa:x86_64:" + Target);
  }
  if (const char *W = std::getenv("OPENHSA_VECTOR_WIDTH"))
    Lanes = uint32_t(std::strtoul(W, nullptr, 10));
  if (const char *V = std::getenv("OPENHSA_VECTORIZE"); V && V[0] == '0')
    Lanes = 1;
  EXPECT_EQ(Wavefront, Lanes);

  using Dims16 = std::array<uint16_t, 3>;
  const Dims16 WgDim = agentInfo<Dims16>(Cpu, HSA_AGENT_INFO_WORKGROUP_MAX_DIM);
  const uint32_t WgMax =
      agentInfo<uint32_t>(Cpu, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE);
  const hsa_dim3_t GridDim =
      agentInfo<hsa_dim3_t>(Cpu, HSA_AGENT_INFO_GRID_MAX_DIM);
  const uint32_t GridMax =
      agentInfo<uint32_t>(Cpu, HSA_AGENT_INFO_GRID_MAX_SIZE);
  const uint32_t GridDims[3] = {GridDim.x, GridDim.y, GridDim.z};
  uint64_t WgProduct = 1;
  for (int D = 0; D < 3; ++D) {
    EXPECT_GT(WgDim[D], 0u) << D;
    EXPECT_LE(WgDim[D], WgMax) << D;
    EXPECT_GE(GridDims[D], WgDim[D]) << D;
    EXPECT_LE(GridDims[D], GridMax) << D;
    WgProduct *= WgDim[D];
  }
  EXPECT_GE(WgProduct, WgMax);
  EXPECT_GE(GridMax, WgMax);
  EXPECT_GE(agentInfo<uint32_t>(Cpu, HSA_AGENT_INFO_FBARRIER_MAX_SIZE), 32u);

  EXPECT_GE(agentInfo<uint32_t>(Cpu, HSA_AGENT_INFO_QUEUES_MAX), 1u);
  const uint32_t QMin = agentInfo<uint32_t>(Cpu, HSA_AGENT_INFO_QUEUE_MIN_SIZE);
  const uint32_t QMax = agentInfo<uint32_t>(Cpu, HSA_AGENT_INFO_QUEUE_MAX_SIZE);
  EXPECT_TRUE(isPowerOfTwo(QMin)) << QMin;
  EXPECT_TRUE(isPowerOfTwo(QMax)) << QMax;
  EXPECT_LE(QMin, QMax);
  EXPECT_EQ(agentInfo<hsa_queue_type32_t>(Cpu, HSA_AGENT_INFO_QUEUE_TYPE),
            uint32_t(HSA_QUEUE_TYPE_MULTI));
  agentInfo<uint32_t>(Cpu, HSA_AGENT_INFO_NODE);
  EXPECT_EQ(agentInfo<hsa_device_type_t>(Cpu, HSA_AGENT_INFO_DEVICE),
            HSA_DEVICE_TYPE_CPU);
  agentInfo<std::array<uint32_t, 4>>(Cpu, HSA_AGENT_INFO_CACHE_SIZE);

  // The ISA is valid and the first one hsa_agent_iterate_isas reports.
  const hsa_isa_t AgentIsa = agentInfo<hsa_isa_t>(Cpu, HSA_AGENT_INFO_ISA);
  uint32_t NameLength = 0;
  EXPECT_EQ(
      hsa_isa_get_info_alt(AgentIsa, HSA_ISA_INFO_NAME_LENGTH, &NameLength),
      HSA_STATUS_SUCCESS);
  hsa_isa_t FirstIsa{0};
  EXPECT_EQ(hsa_agent_iterate_isas(
                Cpu,
                [](hsa_isa_t I, void *Data) {
                  *static_cast<hsa_isa_t *>(Data) = I;
                  return HSA_STATUS_INFO_BREAK;
                },
                &FirstIsa),
            HSA_STATUS_INFO_BREAK);
  EXPECT_EQ(AgentIsa.handle, FirstIsa.handle);

  // The agent's extension mask agrees with the per-agent queries.
  using Mask = std::array<uint8_t, 128>;
  const Mask Extensions = agentInfo<Mask>(Cpu, HSA_AGENT_INFO_EXTENSIONS);
  for (uint16_t Id : std::initializer_list<uint16_t>{
           HSA_EXTENSION_FINALIZER, HSA_EXTENSION_IMAGES,
           HSA_EXTENSION_PERFORMANCE_COUNTERS, HSA_EXTENSION_PROFILING_EVENTS,
           uint16_t(HSA_EXTENSION_OPENHSA)}) {
    uint16_t Minor = 0;
    bool Supported = false;
    ASSERT_EQ(
        hsa_agent_major_extension_supported(Id, Cpu, 1, &Minor, &Supported),
        HSA_STATUS_SUCCESS);
    EXPECT_EQ(bool((Extensions[Id / 8] >> (Id % 8)) & 1), Supported)
        << "extension " << Id;
  }

  EXPECT_EQ(agentInfo<uint16_t>(Cpu, HSA_AGENT_INFO_VERSION_MAJOR), 1);
  EXPECT_EQ(agentInfo<uint16_t>(Cpu, HSA_AGENT_INFO_VERSION_MINOR), 2);

  // The openhsa attributes (hsa_ext_openhsa.h).
  EXPECT_EQ(agentInfo<uint32_t>(Cpu, HSA_EXT_OPENHSA_AGENT_INFO_CACHELINE_SIZE),
            64u);
  EXPECT_GE(
      agentInfo<uint32_t>(Cpu, HSA_EXT_OPENHSA_AGENT_INFO_COMPUTE_UNIT_COUNT),
      1u);
  agentInfo<uint32_t>(Cpu, HSA_EXT_OPENHSA_AGENT_INFO_MAX_CLOCK_FREQUENCY);
  expectName64(agentInfo<Name>(Cpu, HSA_EXT_OPENHSA_AGENT_INFO_PRODUCT_NAME),
               "PRODUCT_NAME");
}

// HSA Runtime 2.3.2: the error paths of hsa_agent_get_info.
TEST_F(Agent, InfoErrors) {
  uint64_t Value = 0;
  for (int Attribute : {25, 0x100, 0x7777, 0xA000, 0xA00A})
    EXPECT_EQ(hsa_agent_get_info(Cpu, hsa_agent_info_t(Attribute), &Value),
              HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << Attribute;
  EXPECT_EQ(hsa_agent_get_info(hsa_agent_t{0}, HSA_AGENT_INFO_DEVICE, &Value),
            HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_agent_get_info(hsa_agent_t{Cpu.handle + 8},
                               HSA_AGENT_INFO_DEVICE, &Value),
            HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_agent_get_info(Cpu, HSA_AGENT_INFO_DEVICE, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

// HSA Runtime 2.3.2: hsa_agent_get_exception_policies (1.0).
TEST_F(Agent, ExceptionPolicies) {
  for (hsa_profile_t Profile : {HSA_PROFILE_BASE, HSA_PROFILE_FULL}) {
    uint16_t Mask = 0xffff;
    ASSERT_EQ(hsa_agent_get_exception_policies(Cpu, Profile, &Mask),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(Mask & ~uint16_t(HSA_EXCEPTION_POLICY_BREAK |
                               HSA_EXCEPTION_POLICY_DETECT),
              0);
  }
  uint16_t Mask = 0;
  EXPECT_EQ(hsa_agent_get_exception_policies(Cpu, hsa_profile_t(2), &Mask),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_agent_get_exception_policies(Cpu, HSA_PROFILE_FULL, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_agent_get_exception_policies(hsa_agent_t{0x1234},
                                             HSA_PROFILE_FULL, &Mask),
            HSA_STATUS_ERROR_INVALID_AGENT);
}

// HSA Runtime 2.3.3: per-agent extension queries and their errors.
TEST_F(Agent, ExtensionSupport) {
  bool Result = false;
  EXPECT_EQ(
      hsa_agent_extension_supported(HSA_EXTENSION_OPENHSA, Cpu, 1, 0, &Result),
      HSA_STATUS_SUCCESS);
  EXPECT_TRUE(Result);
  EXPECT_EQ(hsa_agent_extension_supported(HSA_EXTENSION_FINALIZER, Cpu, 1, 0,
                                          &Result),
            HSA_STATUS_SUCCESS);
  EXPECT_TRUE(Result);
  EXPECT_EQ(
      hsa_agent_extension_supported(HSA_EXTENSION_IMAGES, Cpu, 1, 0, &Result),
      HSA_STATUS_SUCCESS);
  EXPECT_FALSE(Result) << "the images extension is not implemented yet";
  uint16_t Minor = 7;
  EXPECT_EQ(hsa_agent_major_extension_supported(HSA_EXTENSION_OPENHSA, Cpu, 1,
                                                &Minor, &Result),
            HSA_STATUS_SUCCESS);
  EXPECT_TRUE(Result);
  EXPECT_EQ(Minor, 0);

  EXPECT_EQ(hsa_agent_extension_supported(HSA_EXTENSION_OPENHSA,
                                          hsa_agent_t{0x1234}, 1, 0, &Result),
            HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_agent_extension_supported(0x250, Cpu, 1, 0, &Result),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(
      hsa_agent_extension_supported(HSA_EXTENSION_OPENHSA, Cpu, 1, 0, nullptr),
      HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_agent_major_extension_supported(
                HSA_EXTENSION_OPENHSA, hsa_agent_t{0x1234}, 1, &Minor, &Result),
            HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_agent_major_extension_supported(0x250, Cpu, 1, &Minor, &Result),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_agent_major_extension_supported(HSA_EXTENSION_OPENHSA, Cpu, 1,
                                                nullptr, &Result),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_agent_major_extension_supported(HSA_EXTENSION_OPENHSA, Cpu, 1,
                                                &Minor, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

hsa_status_t collectCache(hsa_cache_t C, void *Data) {
  static_cast<std::vector<hsa_cache_t> *>(Data)->push_back(C);
  return HSA_STATUS_SUCCESS;
}

// HSA Runtime 2.3.2: caches of the CPU agent and every hsa_cache_info_t
// attribute.
TEST_F(Cache, IterateAndInfo) {
  std::vector<hsa_cache_t> Caches;
  ASSERT_EQ(hsa_agent_iterate_caches(Cpu, collectCache, &Caches),
            HSA_STATUS_SUCCESS);
  if (Caches.empty())
    GTEST_SKIP() << "the host reports no caches";
  const auto CacheSizes =
      agentInfo<std::array<uint32_t, 4>>(Cpu, HSA_AGENT_INFO_CACHE_SIZE);
  std::map<uint8_t, std::set<uint32_t>> SizesByLevel;
  for (hsa_cache_t C : Caches) {
    uint32_t Length = 0;
    ASSERT_EQ(hsa_cache_get_info(C, HSA_CACHE_INFO_NAME_LENGTH, &Length),
              HSA_STATUS_SUCCESS);
    EXPECT_GT(Length, 0u);
    // The name is NUL-terminated; its length does not count the NUL.
    std::vector<char> Name(Length + 16, 'X');
    ASSERT_EQ(hsa_cache_get_info(C, HSA_CACHE_INFO_NAME, Name.data()),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(strnlen(Name.data(), Name.size()), Length);
    for (size_t I = Length + 1; I < Name.size(); ++I)
      EXPECT_EQ(Name[I], 'X') << "wrote past the name's NUL";

    uint8_t Level[4] = {0, Pattern, Pattern, Pattern};
    ASSERT_EQ(hsa_cache_get_info(C, HSA_CACHE_INFO_LEVEL, Level),
              HSA_STATUS_SUCCESS);
    EXPECT_GE(Level[0], 1);
    EXPECT_LE(Level[0], 4);
    EXPECT_EQ(Level[1], Pattern) << "LEVEL is a uint8_t";
    uint32_t Size = 0;
    ASSERT_EQ(hsa_cache_get_info(C, HSA_CACHE_INFO_SIZE, &Size),
              HSA_STATUS_SUCCESS);
    EXPECT_GT(Size, 0u);
    SizesByLevel[Level[0]].insert(Size);
  }
  // HSA_AGENT_INFO_CACHE_SIZE (1.0) gives, per level, the size of one of
  // that level's caches.
  for (const auto &[Level, Sizes] : SizesByLevel)
    EXPECT_TRUE(Sizes.count(CacheSizes[Level - 1]))
        << "L" << int(Level) << " size " << CacheSizes[Level - 1];

  uint32_t Value = 0;
  EXPECT_EQ(hsa_cache_get_info(Caches[0], hsa_cache_info_t(4), &Value),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_cache_get_info(Caches[0], HSA_CACHE_INFO_SIZE, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(
      hsa_cache_get_info(hsa_cache_t{0x1234}, HSA_CACHE_INFO_SIZE, &Value),
      HSA_STATUS_ERROR_INVALID_CACHE);
  EXPECT_EQ(hsa_cache_get_info(hsa_cache_t{0}, HSA_CACHE_INFO_SIZE, &Value),
            HSA_STATUS_ERROR_INVALID_CACHE);
}

// HSA Runtime 2.3.2: hsa_agent_iterate_caches error paths and early stop.
TEST_F(Cache, IterateErrors) {
  EXPECT_EQ(hsa_agent_iterate_caches(Cpu, nullptr, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(
      hsa_agent_iterate_caches(hsa_agent_t{0x1234}, collectCache, nullptr),
      HSA_STATUS_ERROR_INVALID_AGENT);
  int Calls = 0;
  hsa_status_t S = hsa_agent_iterate_caches(
      Cpu,
      [](hsa_cache_t, void *Data) {
        ++*static_cast<int *>(Data);
        return HSA_STATUS_INFO_BREAK;
      },
      &Calls);
  EXPECT_EQ(Calls <= 1, true);
  EXPECT_EQ(S, Calls ? HSA_STATUS_INFO_BREAK : HSA_STATUS_SUCCESS);
}

hsa_status_t collectIsa(hsa_isa_t I, void *Data) {
  static_cast<std::vector<hsa_isa_t> *>(Data)->push_back(I);
  return HSA_STATUS_SUCCESS;
}

hsa_isa_t cpuIsa(hsa_agent_t Cpu) {
  std::vector<hsa_isa_t> Isas;
  EXPECT_EQ(hsa_agent_iterate_isas(Cpu, collectIsa, &Isas), HSA_STATUS_SUCCESS);
  return Isas.empty() ? hsa_isa_t{0} : Isas[0];
}

std::string isaName(hsa_isa_t I) {
  uint32_t Length = 0;
  EXPECT_EQ(hsa_isa_get_info_alt(I, HSA_ISA_INFO_NAME_LENGTH, &Length),
            HSA_STATUS_SUCCESS);
  std::string Name(Length, '\0');
  EXPECT_EQ(hsa_isa_get_info_alt(I, HSA_ISA_INFO_NAME, Name.data()),
            HSA_STATUS_SUCCESS);
  return Name;
}

/// Queries an ISA attribute with both forms (1.0 with index 0, and _alt)
/// into patterned buffers; both must agree and write only Bytes bytes.
template <typename T>
T isaInfo(hsa_isa_t I, hsa_isa_info_t Attribute, size_t Bytes = sizeof(T)) {
  unsigned char A[sizeof(T) + 16], B[sizeof(T) + 16];
  std::memset(A, Pattern, sizeof(A));
  std::memset(B, Pattern, sizeof(B));
  EXPECT_EQ(hsa_isa_get_info(I, Attribute, 0, A), HSA_STATUS_SUCCESS)
      << Attribute;
  EXPECT_EQ(hsa_isa_get_info_alt(I, Attribute, B), HSA_STATUS_SUCCESS)
      << Attribute;
  EXPECT_EQ(std::memcmp(A, B, sizeof(A)), 0) << Attribute;
  for (size_t K = Bytes; K < sizeof(A); ++K)
    EXPECT_EQ(A[K], Pattern)
        << "attribute " << Attribute << " wrote byte " << K;
  T Value;
  std::memcpy(&Value, A, sizeof(T));
  return Value;
}

// HSA Runtime 2.9.1: ISAs of the CPU agent, every hsa_isa_info_t attribute
// through hsa_isa_get_info and hsa_isa_get_info_alt, consistent with the
// agent's own attributes.
TEST_F(Isa, EveryAttribute) {
  std::vector<hsa_isa_t> Isas;
  ASSERT_EQ(hsa_agent_iterate_isas(Cpu, collectIsa, &Isas), HSA_STATUS_SUCCESS);
  ASSERT_GE(Isas.size(), 1u);
  const hsa_isa_t I = Isas[0];

  const uint32_t Length = isaInfo<uint32_t>(I, HSA_ISA_INFO_NAME_LENGTH);
  ASSERT_GT(Length, 0u);
  std::vector<char> Name(Length + 8, 'X');
  ASSERT_EQ(hsa_isa_get_info_alt(I, HSA_ISA_INFO_NAME, Name.data()),
            HSA_STATUS_SUCCESS);
  for (size_t K = 0; K < Length; ++K)
    EXPECT_NE(Name[K], '\0') << "NAME_LENGTH counts no NUL";
  EXPECT_EQ(std::string(Name.data(), Length).rfind("openhsa:", 0), 0u);
  for (size_t K = Length + 1; K < Name.size(); ++K)
    EXPECT_EQ(Name[K], 'X');

  const auto Models =
      isaInfo<std::array<bool, 2>>(I, HSA_ISA_INFO_MACHINE_MODELS);
  EXPECT_TRUE(Models[HSA_MACHINE_MODEL_LARGE]);
  const auto Profiles = isaInfo<std::array<bool, 2>>(I, HSA_ISA_INFO_PROFILES);
  EXPECT_TRUE(Profiles[HSA_PROFILE_FULL]);
  // It also finalizes base-profile programs, so that one $base module runs
  // on the CPU and on a base-profile GPU agent (issue 11).
  EXPECT_TRUE(Profiles[HSA_PROFILE_BASE]);
  const auto Modes = isaInfo<std::array<bool, 3>>(
      I, HSA_ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES);
  EXPECT_TRUE(Modes[0] || Modes[1] || Modes[2]);
  const auto BaseModes = isaInfo<std::array<bool, 3>>(
      I, HSA_ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES);
  EXPECT_FALSE(BaseModes[HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT]);
  // An ISA that takes the base profile rounds it by default one way at
  // least (HSA Runtime 2.9.1).
  EXPECT_TRUE(BaseModes[HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO] ||
              BaseModes[HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR]);
  isaInfo<bool>(I, HSA_ISA_INFO_FAST_F16_OPERATION);

  const auto WgDim =
      isaInfo<std::array<uint16_t, 3>>(I, HSA_ISA_INFO_WORKGROUP_MAX_DIM);
  const uint32_t WgMax = isaInfo<uint32_t>(I, HSA_ISA_INFO_WORKGROUP_MAX_SIZE);
  const hsa_dim3_t GridDim = isaInfo<hsa_dim3_t>(I, HSA_ISA_INFO_GRID_MAX_DIM);
  const uint64_t GridMax = isaInfo<uint64_t>(I, HSA_ISA_INFO_GRID_MAX_SIZE);
  const uint32_t GridDims[3] = {GridDim.x, GridDim.y, GridDim.z};
  for (int D = 0; D < 3; ++D) {
    EXPECT_GT(WgDim[D], 0);
    EXPECT_LE(WgDim[D], WgMax);
    EXPECT_GE(GridDims[D], WgDim[D]);
    EXPECT_LE(GridDims[D], GridMax);
  }
  EXPECT_GE(isaInfo<uint32_t>(I, HSA_ISA_INFO_FBARRIER_MAX_SIZE), 32u);

  // The same limits as the agent's (1.0) attributes.
  EXPECT_EQ(WgDim, (agentInfo<std::array<uint16_t, 3>>(
                       Cpu, HSA_AGENT_INFO_WORKGROUP_MAX_DIM)));
  EXPECT_EQ(WgMax, agentInfo<uint32_t>(Cpu, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE));
  EXPECT_EQ(GridMax, agentInfo<uint32_t>(Cpu, HSA_AGENT_INFO_GRID_MAX_SIZE));

  // The 1.0 call-convention attributes: index 0 only, not through _alt.
  uint32_t Value = 0;
  ASSERT_EQ(hsa_isa_get_info(I, HSA_ISA_INFO_CALL_CONVENTION_COUNT, 0, &Value),
            HSA_STATUS_SUCCESS);
  EXPECT_GE(Value, 1u);
  ASSERT_EQ(hsa_isa_get_info(
                I, HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE, 0, &Value),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(Value, agentInfo<uint32_t>(Cpu, HSA_AGENT_INFO_WAVEFRONT_SIZE));
  ASSERT_EQ(hsa_isa_get_info(
                I,
                HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT,
                0, &Value),
            HSA_STATUS_SUCCESS);
  EXPECT_GE(Value, 1u);
  for (hsa_isa_info_t A :
       {HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE,
        HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT}) {
    EXPECT_EQ(hsa_isa_get_info(I, A, 1, &Value), HSA_STATUS_ERROR_INVALID_INDEX)
        << A;
    EXPECT_EQ(hsa_isa_get_info_alt(I, A, &Value),
              HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << A;
  }
}

// HSA Runtime 2.9.1: error paths of the ISA queries.
TEST_F(Isa, InfoErrors) {
  const hsa_isa_t I = cpuIsa(Cpu);
  uint64_t Value = 0;
  for (int Attribute : {10, 11, 15, 18, 0x100}) {
    EXPECT_EQ(hsa_isa_get_info_alt(I, hsa_isa_info_t(Attribute), &Value),
              HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << Attribute;
    EXPECT_EQ(hsa_isa_get_info(I, hsa_isa_info_t(Attribute), 0, &Value),
              HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << Attribute;
  }
  EXPECT_EQ(hsa_isa_get_info_alt(I, HSA_ISA_INFO_NAME_LENGTH, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_isa_get_info(I, HSA_ISA_INFO_NAME_LENGTH, 0, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  for (hsa_isa_t Bad :
       {hsa_isa_t{0}, hsa_isa_t{0x1234}, hsa_isa_t{I.handle + 8}}) {
    EXPECT_EQ(hsa_isa_get_info_alt(Bad, HSA_ISA_INFO_NAME_LENGTH, &Value),
              HSA_STATUS_ERROR_INVALID_ISA);
    EXPECT_EQ(hsa_isa_get_info(Bad, HSA_ISA_INFO_NAME_LENGTH, 0, &Value),
              HSA_STATUS_ERROR_INVALID_ISA);
  }
  EXPECT_EQ(hsa_agent_iterate_isas(Cpu, nullptr, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_agent_iterate_isas(hsa_agent_t{0x1234}, collectIsa, nullptr),
            HSA_STATUS_ERROR_INVALID_AGENT);
}

// HSA Runtime 2.9.1: hsa_isa_from_name finds an ISA by its name.
TEST_F(Isa, FromName) {
  const hsa_isa_t I = cpuIsa(Cpu);
  const std::string Name = isaName(I);
  hsa_isa_t Found{0};
  ASSERT_EQ(hsa_isa_from_name(Name.c_str(), &Found), HSA_STATUS_SUCCESS);
  EXPECT_EQ(Found.handle, I.handle);

  for (const std::string &Unknown :
       {std::string("openhsa:nonexistent:cpu"), std::string(""), Name + "x",
        Name.substr(0, Name.size() - 1)})
    EXPECT_EQ(hsa_isa_from_name(Unknown.c_str(), &Found),
              HSA_STATUS_ERROR_INVALID_ISA_NAME)
        << Unknown;
  EXPECT_EQ(hsa_isa_from_name(nullptr, &Found),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_isa_from_name(Name.c_str(), nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

// HSA Runtime 2.9.1: hsa_isa_compatible (1.0).
TEST_F(Isa, Compatible) {
  const hsa_isa_t I = cpuIsa(Cpu);
  bool Result = false;
  ASSERT_EQ(hsa_isa_compatible(I, I, &Result), HSA_STATUS_SUCCESS);
  EXPECT_TRUE(Result);
  EXPECT_EQ(hsa_isa_compatible(hsa_isa_t{0x1234}, I, &Result),
            HSA_STATUS_ERROR_INVALID_ISA);
  EXPECT_EQ(hsa_isa_compatible(I, hsa_isa_t{0x1234}, &Result),
            HSA_STATUS_ERROR_INVALID_ISA);
  EXPECT_EQ(hsa_isa_compatible(I, I, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

// HSA Runtime 2.9.1: hsa_isa_get_round_method for every floating-point
// type and flush mode.
TEST_F(Isa, RoundMethod) {
  const hsa_isa_t I = cpuIsa(Cpu);
  for (hsa_fp_type_t Type : {HSA_FP_TYPE_16, HSA_FP_TYPE_32, HSA_FP_TYPE_64})
    for (hsa_flush_mode_t Flush :
         {HSA_FLUSH_MODE_FTZ, HSA_FLUSH_MODE_NON_FTZ}) {
      hsa_round_method_t Method = hsa_round_method_t(0);
      ASSERT_EQ(hsa_isa_get_round_method(I, Type, Flush, &Method),
                HSA_STATUS_SUCCESS);
      EXPECT_TRUE(Method == HSA_ROUND_METHOD_SINGLE ||
                  Method == HSA_ROUND_METHOD_DOUBLE);
    }
  hsa_round_method_t Method;
  EXPECT_EQ(hsa_isa_get_round_method(I, hsa_fp_type_t(3), HSA_FLUSH_MODE_FTZ,
                                     &Method),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(
      hsa_isa_get_round_method(I, HSA_FP_TYPE_32, hsa_flush_mode_t(0), &Method),
      HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(
      hsa_isa_get_round_method(I, HSA_FP_TYPE_32, HSA_FLUSH_MODE_FTZ, nullptr),
      HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_isa_get_round_method(hsa_isa_t{0x1234}, HSA_FP_TYPE_32,
                                     HSA_FLUSH_MODE_FTZ, &Method),
            HSA_STATUS_ERROR_INVALID_ISA);
}

// HSA Runtime 2.9.1: hsa_isa_get_exception_policies.
TEST_F(Isa, ExceptionPolicies) {
  const hsa_isa_t I = cpuIsa(Cpu);
  for (hsa_profile_t Profile : {HSA_PROFILE_BASE, HSA_PROFILE_FULL}) {
    uint16_t Mask = 0xffff;
    ASSERT_EQ(hsa_isa_get_exception_policies(I, Profile, &Mask),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(Mask & ~uint16_t(HSA_EXCEPTION_POLICY_BREAK |
                               HSA_EXCEPTION_POLICY_DETECT),
              0);
  }
  uint16_t Mask;
  EXPECT_EQ(hsa_isa_get_exception_policies(I, hsa_profile_t(5), &Mask),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_isa_get_exception_policies(I, HSA_PROFILE_FULL, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_isa_get_exception_policies(hsa_isa_t{0x1234}, HSA_PROFILE_FULL,
                                           &Mask),
            HSA_STATUS_ERROR_INVALID_ISA);
}

hsa_status_t collectWavefront(hsa_wavefront_t W, void *Data) {
  static_cast<std::vector<hsa_wavefront_t> *>(Data)->push_back(W);
  return HSA_STATUS_SUCCESS;
}

// HSA Runtime 2.9.2: wavefronts of the CPU ISA and their size.
TEST_F(Isa, Wavefronts) {
  const hsa_isa_t I = cpuIsa(Cpu);
  std::vector<hsa_wavefront_t> Wavefronts;
  ASSERT_EQ(hsa_isa_iterate_wavefronts(I, collectWavefront, &Wavefronts),
            HSA_STATUS_SUCCESS);
  ASSERT_GE(Wavefronts.size(), 1u);
  unsigned char Buffer[8];
  std::memset(Buffer, Pattern, sizeof(Buffer));
  ASSERT_EQ(
      hsa_wavefront_get_info(Wavefronts[0], HSA_WAVEFRONT_INFO_SIZE, Buffer),
      HSA_STATUS_SUCCESS);
  uint32_t Size;
  std::memcpy(&Size, Buffer, 4);
  EXPECT_EQ(Buffer[4], Pattern) << "SIZE is a uint32_t";
  EXPECT_TRUE(isPowerOfTwo(Size));
  EXPECT_LE(Size, 256u);
  // The first wavefront of the first ISA is the agent's wavefront size.
  EXPECT_EQ(Size, agentInfo<uint32_t>(Cpu, HSA_AGENT_INFO_WAVEFRONT_SIZE));

  int Calls = 0;
  EXPECT_EQ(hsa_isa_iterate_wavefronts(
                I,
                [](hsa_wavefront_t, void *Data) {
                  ++*static_cast<int *>(Data);
                  return HSA_STATUS_INFO_BREAK;
                },
                &Calls),
            HSA_STATUS_INFO_BREAK);
  EXPECT_EQ(Calls, 1);

  EXPECT_EQ(hsa_isa_iterate_wavefronts(I, nullptr, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_isa_iterate_wavefronts(hsa_isa_t{0x1234}, collectWavefront,
                                       &Wavefronts),
            HSA_STATUS_ERROR_INVALID_ISA);
  EXPECT_EQ(
      hsa_wavefront_get_info(Wavefronts[0], hsa_wavefront_info_t(1), &Size),
      HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(
      hsa_wavefront_get_info(Wavefronts[0], HSA_WAVEFRONT_INFO_SIZE, nullptr),
      HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_wavefront_get_info(hsa_wavefront_t{0x1234},
                                   HSA_WAVEFRONT_INFO_SIZE, &Size),
            HSA_STATUS_ERROR_INVALID_WAVEFRONT);
  EXPECT_EQ(hsa_wavefront_get_info(hsa_wavefront_t{0}, HSA_WAVEFRONT_INFO_SIZE,
                                   &Size),
            HSA_STATUS_ERROR_INVALID_WAVEFRONT);
}

} // namespace
} // namespace openhsa::test
