//===- tests/runtime/EnumArgTest.cpp - Out-of-range enum arguments --------===//
//
// A C program may pass any integer where the API takes an enum; the runtime
// refuses a value that is not one of the enum's (HSA Runtime 2.2.1: a
// precondition of an argument not met is HSA_STATUS_ERROR_INVALID_ARGUMENT).
// It must do so without loading the value as the C++ enum first: under
// -fsanitize=enum (the ASan+UBSan CI build) that load aborts, so these tests
// fail there unless every entry point reads enum arguments as integers
// (runtime/api/EnumArg.h). The calls are made from C (BadEnumCalls.c).
//
//===----------------------------------------------------------------------===//
#include "BadEnumCalls.h"
#include "TestUtil.h"

#include "hsa/hsa_ext_finalize.h"

#include <cstring>
#include <string>

using namespace openhsa::test;

namespace {

using EnumArg = RuntimeTest;

hsa_isa_t cpuIsa(hsa_agent_t Agent) {
  hsa_isa_t I{0};
  EXPECT_EQ(hsa_agent_get_info(Agent, HSA_AGENT_INFO_ISA, &I),
            HSA_STATUS_SUCCESS);
  return I;
}

TEST_F(EnumArg, ProfilesModelsAndModesOutsideTheirEnums) {
  const uint32_t Bad[] = {2, 9, 0x7fffffff, 0xffffffff};
  for (uint32_t V : Bad) {
    EXPECT_EQ(bad_executable_create(V, HSA_EXECUTABLE_STATE_UNFROZEN),
              HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << V;
    EXPECT_EQ(bad_executable_create(HSA_PROFILE_FULL, V),
              HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << V;
    EXPECT_EQ(
        bad_executable_create_alt(V, HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR),
        HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << V;
    EXPECT_EQ(bad_program_create(V, HSA_PROFILE_FULL,
                                 HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT),
              HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << V;
    EXPECT_EQ(bad_program_create(HSA_MACHINE_MODEL_LARGE, V,
                                 HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT),
              HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << V;
    EXPECT_EQ(bad_agent_get_exception_policies(Cpu, V),
              HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << V;
  }
  for (uint32_t V : {3u, 7u, 0x80000000u}) {
    EXPECT_EQ(bad_executable_create_alt(HSA_PROFILE_FULL, V),
              HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << V;
    EXPECT_EQ(bad_program_create(HSA_MACHINE_MODEL_LARGE, HSA_PROFILE_FULL, V),
              HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << V;
  }
  const hsa_isa_t Isa = cpuIsa(Cpu);
  EXPECT_EQ(bad_isa_get_round_method(Isa, 99, HSA_FLUSH_MODE_FTZ),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(bad_isa_get_round_method(Isa, HSA_FP_TYPE_32, 99),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  int Word = 0;
  EXPECT_EQ(bad_memory_assign_agent(&Word, Cpu, 99),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

// *_get_info: attributes that no enum (core or extension) names.
TEST_F(EnumArg, AttributesOutsideTheirEnums) {
  uint64_t Value[8] = {};
  for (uint32_t A : {99u, 0x1000u, 0xA0FFu, 0xffffffffu}) {
    EXPECT_EQ(bad_agent_get_info(Cpu, A, Value),
              HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << A;
    EXPECT_EQ(bad_system_get_info(A), HSA_STATUS_ERROR_INVALID_ARGUMENT) << A;
    EXPECT_EQ(bad_region_get_info(Regions.Fine, A),
              HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << A;
    EXPECT_EQ(bad_isa_get_info_alt(cpuIsa(Cpu), A),
              HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << A;
  }
  // An extension's attribute, outside hsa_agent_info_t's range, is read.
  EXPECT_EQ(
      bad_agent_get_info(Cpu, HSA_EXT_OPENHSA_AGENT_INFO_CACHELINE_SIZE, Value),
      HSA_STATUS_SUCCESS);
  EXPECT_GT(uint32_t(Value[0]), 0u);
}

// HSA Runtime 2.2.1: hsa_status_string knows the extensions' codes (outside
// hsa_status_t's range) and refuses unknown ones.
TEST_F(EnumArg, StatusStringsOutsideTheEnum) {
  const char *Text = nullptr;
  ASSERT_EQ(bad_status_string(HSA_EXT_STATUS_ERROR_FINALIZATION_FAILED, &Text),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(
      std::string(Text).rfind("HSA_EXT_STATUS_ERROR_FINALIZATION_FAILED", 0),
      0u);
  for (uint32_t S : {0x2fffu, 0x7fffffffu, 0xffffffffu})
    EXPECT_EQ(bad_status_string(S, &Text), HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << S;
}

// A wait with a condition outside hsa_signal_condition_t does not wait: it
// returns the signal's value; an unknown wait-state hint is only a hint.
TEST_F(EnumArg, SignalWaitsOutsideTheirEnums) {
  hsa_signal_t S = makeSignal(5);
  EXPECT_EQ(bad_signal_wait(S, 7, HSA_WAIT_STATE_BLOCKED), 5);
  EXPECT_EQ(bad_signal_wait(S, 0xffffffff, HSA_WAIT_STATE_ACTIVE), 5);
  EXPECT_EQ(bad_signal_wait(S, HSA_SIGNAL_CONDITION_EQ, 9), 5);
  EXPECT_EQ(hsa_signal_destroy(S), HSA_STATUS_SUCCESS);
}

} // namespace
