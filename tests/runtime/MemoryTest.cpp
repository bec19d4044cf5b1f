//===- tests/runtime/MemoryTest.cpp - Regions and hsa_memory_* ------------===//
//
// HSA Runtime 2.7 (memory): 2.7.1 region information, 2.7.2 allocation,
// copy, ownership of coarse-grained buffers, registration.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include <vector>

namespace openhsa::test {
namespace {

using Memory = RuntimeTest;

constexpr unsigned char Pattern = 0xA5;

template <typename T>
T regionInfo(hsa_region_t R, hsa_region_info_t Attribute,
             size_t Bytes = sizeof(T)) {
  unsigned char Buffer[sizeof(T) + 16];
  std::memset(Buffer, Pattern, sizeof(Buffer));
  EXPECT_EQ(hsa_region_get_info(R, Attribute, Buffer), HSA_STATUS_SUCCESS)
      << Attribute;
  for (size_t I = Bytes; I < sizeof(Buffer); ++I)
    EXPECT_EQ(Buffer[I], Pattern)
        << "attribute " << Attribute << " wrote byte " << I;
  T Value;
  std::memcpy(&Value, Buffer, sizeof(T));
  return Value;
}

bool isPowerOfTwo(uint64_t V) { return V && !(V & (V - 1)); }

hsa_status_t collectRegion(hsa_region_t R, void *Data) {
  static_cast<std::vector<hsa_region_t> *>(Data)->push_back(R);
  return HSA_STATUS_SUCCESS;
}

// HSA Runtime 2.7.1: the CPU agent has a region of each kind: global
// fine-grained, global coarse-grained, kernarg and group.
TEST_F(Memory, RegionsOfEachKind) {
  EXPECT_NE(Regions.Fine.handle, 0u) << "no global fine-grained region";
  EXPECT_NE(Regions.Coarse.handle, 0u) << "no global coarse-grained region";
  EXPECT_NE(Regions.Kernarg.handle, 0u) << "no kernarg region";
  EXPECT_NE(Regions.Group.handle, 0u) << "no group region";

  std::vector<hsa_region_t> All;
  ASSERT_EQ(hsa_agent_iterate_regions(Cpu, collectRegion, &All),
            HSA_STATUS_SUCCESS);
  EXPECT_GE(All.size(), 4u);
  int Calls = 0;
  EXPECT_EQ(hsa_agent_iterate_regions(
                Cpu,
                [](hsa_region_t, void *Data) {
                  ++*static_cast<int *>(Data);
                  return HSA_STATUS_INFO_BREAK;
                },
                &Calls),
            HSA_STATUS_INFO_BREAK);
  EXPECT_EQ(Calls, 1);
  EXPECT_EQ(hsa_agent_iterate_regions(Cpu, nullptr, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_agent_iterate_regions(hsa_agent_t{0x1234}, collectRegion, &All),
            HSA_STATUS_ERROR_INVALID_AGENT);
}

// HSA Runtime 2.7.1: every hsa_region_info_t attribute of every region,
// with its type.
TEST_F(Memory, EveryRegionAttribute) {
  std::vector<hsa_region_t> All;
  ASSERT_EQ(hsa_agent_iterate_regions(Cpu, collectRegion, &All),
            HSA_STATUS_SUCCESS);
  for (hsa_region_t R : All) {
    SCOPED_TRACE(R.handle);
    const auto Segment =
        regionInfo<hsa_region_segment_t>(R, HSA_REGION_INFO_SEGMENT);
    const bool Global = Segment == HSA_REGION_SEGMENT_GLOBAL;
    const uint32_t Flags =
        regionInfo<uint32_t>(R, HSA_REGION_INFO_GLOBAL_FLAGS);
    const size_t Size = regionInfo<size_t>(R, HSA_REGION_INFO_SIZE);
    const size_t AllocMax =
        regionInfo<size_t>(R, HSA_REGION_INFO_ALLOC_MAX_SIZE);
    regionInfo<uint32_t>(R, HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE);
    const bool Allowed =
        regionInfo<bool>(R, HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED);
    const size_t Granule =
        regionInfo<size_t>(R, HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE);
    const size_t Alignment =
        regionInfo<size_t>(R, HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT);

    EXPECT_GT(Size, 0u);
    EXPECT_GT(AllocMax, 0u);
    EXPECT_LE(AllocMax, Size);
    if (Global) {
      EXPECT_TRUE(Allowed);
      EXPECT_GT(Granule, 0u);
      EXPECT_TRUE(isPowerOfTwo(Alignment)) << Alignment;
      // Fine and coarse grained exclude each other.
      EXPECT_NE(Flags & (HSA_REGION_GLOBAL_FLAG_FINE_GRAINED |
                         HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED),
                uint32_t(HSA_REGION_GLOBAL_FLAG_FINE_GRAINED |
                         HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED));
      EXPECT_EQ(Flags & ~uint32_t(7), 0u);
    } else {
      EXPECT_FALSE(Allowed) << "group and private regions are never "
                               "allocatable";
    }
  }
  // The kernarg region is fine-grained (kernel arguments are written by the
  // host and read by the agent without ownership transfer).
  EXPECT_TRUE(
      regionInfo<uint32_t>(Regions.Kernarg, HSA_REGION_INFO_GLOBAL_FLAGS) &
      HSA_REGION_GLOBAL_FLAG_FINE_GRAINED);
  EXPECT_EQ(
      regionInfo<hsa_region_segment_t>(Regions.Group, HSA_REGION_INFO_SEGMENT),
      HSA_REGION_SEGMENT_GROUP);
}

hsa_status_t collectAgent(hsa_agent_t A, void *Data) {
  static_cast<std::vector<hsa_agent_t> *>(Data)->push_back(A);
  return HSA_STATUS_SUCCESS;
}

// HSA Runtime 2.7.1 (HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT): "must be a
// power of 2". Only defined where runtime allocation is allowed, but
// programs (the HSA Foundation conformance suite) check every region of
// every agent, so the group region answers one too.
TEST_F(Memory, EveryRegionAlignmentIsPowerOfTwo) {
  std::vector<hsa_agent_t> Agents;
  ASSERT_EQ(hsa_iterate_agents(collectAgent, &Agents), HSA_STATUS_SUCCESS);
  size_t Checked = 0, NotAllocatable = 0;
  for (hsa_agent_t A : Agents) {
    std::vector<hsa_region_t> All;
    ASSERT_EQ(hsa_agent_iterate_regions(A, collectRegion, &All),
              HSA_STATUS_SUCCESS);
    for (hsa_region_t R : All) {
      SCOPED_TRACE(R.handle);
      const size_t Alignment =
          regionInfo<size_t>(R, HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT);
      EXPECT_TRUE(isPowerOfTwo(Alignment)) << Alignment;
      NotAllocatable +=
          !regionInfo<bool>(R, HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED);
      ++Checked;
    }
  }
  EXPECT_GT(Checked, 0u);
  EXPECT_GT(NotAllocatable, 0u) << "the group region was not checked";
}

// HSA Runtime 2.7.1: error paths of hsa_region_get_info.
TEST_F(Memory, RegionInfoErrors) {
  size_t Value = 0;
  for (int Attribute : {3, 9, 0x100, 0xA000})
    EXPECT_EQ(
        hsa_region_get_info(Regions.Fine, hsa_region_info_t(Attribute), &Value),
        HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << Attribute;
  EXPECT_EQ(hsa_region_get_info(Regions.Fine, HSA_REGION_INFO_SIZE, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  for (hsa_region_t Bad : {hsa_region_t{0}, hsa_region_t{0x1234},
                           hsa_region_t{Regions.Fine.handle + 8}})
    EXPECT_EQ(hsa_region_get_info(Bad, HSA_REGION_INFO_SIZE, &Value),
              HSA_STATUS_ERROR_INVALID_REGION);
}

// HSA Runtime 2.7.2: allocations in every allocatable region are aligned
// and usable over their whole size, small and large (node-mapped) alike.
TEST_F(Memory, AllocateAndFree) {
  for (hsa_region_t R : {Regions.Fine, Regions.Coarse, Regions.Kernarg}) {
    const size_t Alignment =
        regionInfo<size_t>(R, HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT);
    for (size_t Size : {size_t(1), size_t(100), size_t(4096), size_t(5000),
                        size_t(3) << 20}) {
      void *P = nullptr;
      ASSERT_EQ(hsa_memory_allocate(R, Size, &P), HSA_STATUS_SUCCESS) << Size;
      ASSERT_NE(P, nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(P) % Alignment, 0u);
      std::memset(P, 0x5A, Size);
      EXPECT_EQ(static_cast<unsigned char *>(P)[Size - 1], 0x5A);
      EXPECT_EQ(hsa_memory_free(P), HSA_STATUS_SUCCESS);
    }
  }
}

// HSA Runtime 2.1, 2.7.2: buffers the application never freed are released
// by the last hsa_shut_down (in TearDown here), small and node-mapped large
// ones alike, without touching anything already torn down (an
// AddressSanitizer build of the runtime checks the latter), and a new
// runtime starts clean afterwards.
TEST_F(Memory, UnfreedBuffersAtShutDown) {
  for (int Round = 0; Round < 2; ++Round) {
    for (hsa_region_t R : {Regions.Fine, Regions.Coarse, Regions.Kernarg})
      for (size_t Size : {size_t(64), size_t(2) << 20}) {
        void *P = nullptr;
        ASSERT_EQ(hsa_memory_allocate(R, Size, &P), HSA_STATUS_SUCCESS);
        std::memset(P, 1, Size);
      }
    if (Round == 0) {
      ASSERT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
      ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
      Regions = AgentRegions();
      ASSERT_EQ(hsa_iterate_agents(findCpuAgent, &Cpu), HSA_STATUS_INFO_BREAK);
      ASSERT_EQ(hsa_agent_iterate_regions(Cpu, classifyRegion, &Regions),
                HSA_STATUS_SUCCESS);
    }
  }
}

// HSA Runtime 2.7.2: hsa_memory_allocate error paths.
TEST_F(Memory, AllocateErrors) {
  void *P = reinterpret_cast<void *>(0x1);
  EXPECT_EQ(hsa_memory_allocate(Regions.Fine, 0, &P),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_memory_allocate(Regions.Fine, 64, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_memory_allocate(Regions.Group, 64, &P),
            HSA_STATUS_ERROR_INVALID_ALLOCATION);
  for (hsa_region_t R : {Regions.Fine, Regions.Coarse, Regions.Kernarg}) {
    const size_t Max = regionInfo<size_t>(R, HSA_REGION_INFO_ALLOC_MAX_SIZE);
    EXPECT_EQ(hsa_memory_allocate(R, Max + 1, &P),
              HSA_STATUS_ERROR_INVALID_ALLOCATION);
    EXPECT_EQ(hsa_memory_allocate(R, SIZE_MAX, &P),
              HSA_STATUS_ERROR_INVALID_ALLOCATION);
  }
  EXPECT_EQ(hsa_memory_allocate(hsa_region_t{0x1234}, 64, &P),
            HSA_STATUS_ERROR_INVALID_REGION);
  EXPECT_EQ(hsa_memory_allocate(hsa_region_t{0}, 64, &P),
            HSA_STATUS_ERROR_INVALID_REGION);
  EXPECT_EQ(P, reinterpret_cast<void *>(0x1)) << "a failed call wrote ptr";
}

// HSA Runtime 2.7.2: hsa_memory_free of NULL does nothing; a pointer that
// hsa_memory_allocate did not return is refused without harm.
TEST_F(Memory, FreeErrors) {
  EXPECT_EQ(hsa_memory_free(nullptr), HSA_STATUS_SUCCESS);

  int OnStack = 0;
  EXPECT_NE(hsa_memory_free(&OnStack), HSA_STATUS_SUCCESS);
  std::vector<char> OnHeap(64);
  EXPECT_NE(hsa_memory_free(OnHeap.data()), HSA_STATUS_SUCCESS);

  void *P = nullptr;
  ASSERT_EQ(hsa_memory_allocate(Regions.Fine, 256, &P), HSA_STATUS_SUCCESS);
  EXPECT_NE(hsa_memory_free(static_cast<char *>(P) + 16), HSA_STATUS_SUCCESS)
      << "interior pointer";
  ASSERT_EQ(hsa_memory_free(P), HSA_STATUS_SUCCESS);
  EXPECT_NE(hsa_memory_free(P), HSA_STATUS_SUCCESS) << "double free";
}

// HSA Runtime 2.7.2: hsa_memory_copy between regions; size 0 is a no-op;
// null pointers are INVALID_ARGUMENT.
TEST_F(Memory, Copy) {
  constexpr size_t Size = 10000;
  void *Src = nullptr, *Dst = nullptr;
  ASSERT_EQ(hsa_memory_allocate(Regions.Fine, Size, &Src), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_memory_allocate(Regions.Coarse, Size, &Dst),
            HSA_STATUS_SUCCESS);
  auto *S = static_cast<unsigned char *>(Src);
  auto *D = static_cast<unsigned char *>(Dst);
  for (size_t I = 0; I < Size; ++I) {
    S[I] = static_cast<unsigned char>(I * 7 + 3);
    D[I] = 0;
  }
  ASSERT_EQ(hsa_memory_copy(Dst, Src, Size), HSA_STATUS_SUCCESS);
  EXPECT_EQ(std::memcmp(Dst, Src, Size), 0);

  // Plain host memory too (full profile: all of it is global memory).
  std::vector<unsigned char> Host(Size, 0);
  ASSERT_EQ(hsa_memory_copy(Host.data(), Src, Size), HSA_STATUS_SUCCESS);
  EXPECT_EQ(std::memcmp(Host.data(), Src, Size), 0);

  D[0] = 0xEE;
  EXPECT_EQ(hsa_memory_copy(Dst, Src, 0), HSA_STATUS_SUCCESS);
  EXPECT_EQ(D[0], 0xEE);

  EXPECT_EQ(hsa_memory_copy(nullptr, Src, 16),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_memory_copy(Dst, nullptr, 16),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(D[1], S[1]);
  EXPECT_EQ(hsa_memory_free(Src), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_memory_free(Dst), HSA_STATUS_SUCCESS);
}

// HSA Runtime 2.7.2: hsa_memory_assign_agent. Coarse-grained buffers change
// owner; fine-grained ones succeed as a no-op; agent and arguments are
// checked.
TEST_F(Memory, AssignAgent) {
  void *Coarse = nullptr, *Fine = nullptr;
  ASSERT_EQ(hsa_memory_allocate(Regions.Coarse, 4096, &Coarse),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_memory_allocate(Regions.Fine, 4096, &Fine), HSA_STATUS_SUCCESS);
  for (hsa_access_permission_t Access :
       {HSA_ACCESS_PERMISSION_RO, HSA_ACCESS_PERMISSION_WO,
        HSA_ACCESS_PERMISSION_RW}) {
    EXPECT_EQ(hsa_memory_assign_agent(Coarse, Cpu, Access), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_memory_assign_agent(Fine, Cpu, Access), HSA_STATUS_SUCCESS);
  }
  // Ownership moved; the data stays where it was.
  static_cast<char *>(Coarse)[0] = 42;
  EXPECT_EQ(hsa_memory_assign_agent(Coarse, Cpu, HSA_ACCESS_PERMISSION_RW),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(static_cast<char *>(Coarse)[0], 42);

  EXPECT_EQ(hsa_memory_assign_agent(nullptr, Cpu, HSA_ACCESS_PERMISSION_RW),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  for (int Bad : {0, 4, 7})
    EXPECT_EQ(
        hsa_memory_assign_agent(Coarse, Cpu, hsa_access_permission_t(Bad)),
        HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << Bad;
  EXPECT_EQ(hsa_memory_assign_agent(Coarse, hsa_agent_t{0x1234},
                                    HSA_ACCESS_PERMISSION_RW),
            HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_memory_free(Coarse), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_memory_free(Fine), HSA_STATUS_SUCCESS);
}

// HSA Runtime 2.7.2: hsa_memory_register / hsa_memory_deregister.
TEST_F(Memory, RegisterDeregister) {
  std::vector<char> Buffer(8192);
  EXPECT_EQ(hsa_memory_register(Buffer.data(), Buffer.size()),
            HSA_STATUS_SUCCESS);
  // Registered memory is usable, e.g. as a copy target.
  char Source[16] = "registered";
  EXPECT_EQ(hsa_memory_copy(Buffer.data(), Source, sizeof(Source)),
            HSA_STATUS_SUCCESS);
  EXPECT_STREQ(Buffer.data(), "registered");
  EXPECT_EQ(hsa_memory_deregister(Buffer.data(), Buffer.size()),
            HSA_STATUS_SUCCESS);

  // Size 0 is only allowed with a NULL pointer; NULL does nothing.
  EXPECT_EQ(hsa_memory_register(Buffer.data(), 0),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_memory_register(nullptr, 0), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_memory_register(nullptr, 64), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_memory_deregister(nullptr, 64), HSA_STATUS_SUCCESS);

  // Memory from hsa_memory_allocate: registration is a no-op.
  void *P = nullptr;
  ASSERT_EQ(hsa_memory_allocate(Regions.Fine, 4096, &P), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_memory_register(P, 4096), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_memory_deregister(P, 4096), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_memory_free(P), HSA_STATUS_SUCCESS);

  // Deregistering what was never registered is undefined by the
  // specification; this runtime refuses it rather than corrupting state.
  std::vector<char> Never(64);
  EXPECT_EQ(hsa_memory_deregister(Never.data(), Never.size()),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

} // namespace
} // namespace openhsa::test
