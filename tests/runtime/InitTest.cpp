//===- tests/runtime/InitTest.cpp - hsa_init, hsa_shut_down, status strings
//===//
//
// HSA Runtime 2.1 (initialization and shut down) and 2.2 (runtime
// notifications: hsa_status_string).
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "hsa/hsa_ext_finalize.h"
#include "hsa/hsa_ext_image.h"

#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>

namespace openhsa::test {
namespace {

hsa_status_t countAgents(hsa_agent_t, void *Data) {
  ++*static_cast<int *>(Data);
  return HSA_STATUS_SUCCESS;
}

// HSA Runtime 2.1: hsa_init counts references; every hsa_shut_down drops
// one; a shut down with none left reports NOT_INITIALIZED.
TEST(Init, ReferenceCounting) {
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  int Agents = 0;
  EXPECT_EQ(hsa_iterate_agents(countAgents, &Agents), HSA_STATUS_SUCCESS);
  EXPECT_GE(Agents, 1);

  // One reference is left: the runtime stays up.
  EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  uint16_t Major = 0;
  EXPECT_EQ(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &Major),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(Major, 1);

  EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &Major),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_shut_down(), HSA_STATUS_ERROR_NOT_INITIALIZED);
}

// HSA Runtime 2.1: the runtime can be brought up again after the last shut
// down, with fresh agents, queues and signals that work.
TEST(Init, ReinitializeAfterShutDown) {
  for (int Round = 0; Round < 3; ++Round) {
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS) << "round " << Round;
    hsa_agent_t Cpu{0};
    ASSERT_EQ(hsa_iterate_agents(findCpuAgent, &Cpu), HSA_STATUS_INFO_BREAK);
    hsa_signal_t S;
    ASSERT_EQ(hsa_signal_create(3, 0, nullptr, &S), HSA_STATUS_SUCCESS);
    hsa_signal_subtract_relaxed(S, 1);
    EXPECT_EQ(hsa_signal_load_relaxed(S), 2);
    hsa_queue_t *Q = nullptr;
    ASSERT_EQ(hsa_queue_create(Cpu, 16, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr,
                               UINT32_MAX, UINT32_MAX, &Q),
              HSA_STATUS_SUCCESS);

    // A barrier packet with a completion signal proves the packet
    // processor of the new runtime runs.
    hsa_barrier_and_packet_t P = barrierPacket({}, S);
    submitPacket(Q, &P, packetHeader(HSA_PACKET_TYPE_BARRIER_AND));
    EXPECT_EQ(waitUntil(S, HSA_SIGNAL_CONDITION_EQ, 1), 1);

    // Objects left alive are released by the last shut down.
    ASSERT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_signal_destroy(S), HSA_STATUS_ERROR_NOT_INITIALIZED);
  }
}

// HSA Runtime 2.1: hsa_init and hsa_shut_down are thread-safe; a thread's
// calls between its own hsa_init and hsa_shut_down always find the runtime
// up, whatever the other threads do.
TEST(Init, ConcurrentInitAndShutDown) {
  constexpr int Threads = 4, Rounds = 25;
  std::atomic<int> Failures{0};
  std::vector<std::thread> Workers;
  for (int T = 0; T < Threads; ++T)
    Workers.emplace_back([&] {
      for (int R = 0; R < Rounds; ++R) {
        if (hsa_init() != HSA_STATUS_SUCCESS) {
          ++Failures;
          continue;
        }
        hsa_agent_t Cpu{0};
        hsa_signal_t S{0};
        if (hsa_iterate_agents(findCpuAgent, &Cpu) != HSA_STATUS_INFO_BREAK ||
            hsa_signal_create(1, 1, &Cpu, &S) != HSA_STATUS_SUCCESS ||
            hsa_signal_destroy(S) != HSA_STATUS_SUCCESS)
          ++Failures;
        if (hsa_shut_down() != HSA_STATUS_SUCCESS)
          ++Failures;
      }
    });
  for (auto &W : Workers)
    W.join();
  EXPECT_EQ(Failures.load(), 0);
  EXPECT_EQ(hsa_shut_down(), HSA_STATUS_ERROR_NOT_INITIALIZED)
      << "references left behind";
}

/// Handles and pointers plausible enough that NOT_INITIALIZED is the only
/// reason for a call to fail.
struct Args {
  hsa_agent_t Agent{0x1000};
  hsa_region_t Region{0x2000};
  hsa_isa_t Isa{0x3000};
  hsa_cache_t Cache{0x4000};
  hsa_wavefront_t Wavefront{0x5000};
  hsa_signal_t Signal{0x6000};
  hsa_signal_group_t Group{0x7000};
  hsa_queue_t *Queue = reinterpret_cast<hsa_queue_t *>(0x8000);
  alignas(64) char Buffer[256] = {};
  alignas(64) char Other[256] = {};
  void *Ptr = Buffer;
  bool Flag = false;
  uint16_t U16 = 0;
  uint32_t U32 = 0;
  size_t Size = 0;
  const char *Text = nullptr;
  hsa_isa_t IsaOut{0};
  hsa_signal_t SignalOut{0};
  hsa_signal_group_t GroupOut{0};
  hsa_queue_t *QueueOut = nullptr;
  hsa_signal_value_t Value = 0;
  hsa_round_method_t Round{};
  hsa_code_object_t CodeObject{0x9000};
  hsa_code_symbol_t CodeSymbol{0x9100};
  hsa_code_object_reader_t Reader{0x9200};
  hsa_executable_t Executable{0x9300};
  hsa_executable_symbol_t ExecSymbol{0x9400};
  hsa_loaded_code_object_t Loaded{0};
  hsa_ext_program_t Program{0x9500};
  hsa_ext_image_t Image{0x9600};
  hsa_ext_sampler_t Sampler{0x9700};
  hsa_ext_image_descriptor_t ImageDesc{};
  hsa_ext_image_format_t ImageFormat{};
  hsa_ext_image_data_info_t ImageInfo{};
  hsa_ext_image_region_t ImageRegion{};
  hsa_ext_sampler_descriptor_t SamplerDesc{};
  hsa_dim3_t Dim{1, 1, 1};
  hsa_ext_control_directives_t Directives{};
};

hsa_status_t agentCb(hsa_agent_t, void *) { return HSA_STATUS_SUCCESS; }
hsa_status_t cacheCb(hsa_cache_t, void *) { return HSA_STATUS_SUCCESS; }
hsa_status_t isaCb(hsa_isa_t, void *) { return HSA_STATUS_SUCCESS; }
hsa_status_t regionCb(hsa_region_t, void *) { return HSA_STATUS_SUCCESS; }
hsa_status_t wavefrontCb(hsa_wavefront_t, void *) { return HSA_STATUS_SUCCESS; }
hsa_status_t codeSymbolCb(hsa_code_object_t, hsa_code_symbol_t, void *) {
  return HSA_STATUS_SUCCESS;
}
hsa_status_t execSymbolCb(hsa_executable_t, hsa_executable_symbol_t, void *) {
  return HSA_STATUS_SUCCESS;
}
hsa_status_t agentSymbolCb(hsa_executable_t, hsa_agent_t,
                           hsa_executable_symbol_t, void *) {
  return HSA_STATUS_SUCCESS;
}
hsa_status_t moduleCb(hsa_ext_program_t, hsa_ext_module_t, void *) {
  return HSA_STATUS_SUCCESS;
}
hsa_status_t allocCb(size_t, hsa_callback_data_t, void **) {
  return HSA_STATUS_SUCCESS;
}

using Call = std::function<hsa_status_t(Args &)>;

/// One call per API function that returns hsa_status_t (every one but
/// hsa_init), keyed by its name.
std::map<std::string, Call> statusFunctions() {
  const hsa_signal_condition_t Conditions[2] = {HSA_SIGNAL_CONDITION_EQ,
                                                HSA_SIGNAL_CONDITION_EQ};
  const hsa_signal_value_t Compare[2] = {0, 0};
  std::map<std::string, Call> F;
#define OPENHSA_CALL(Name, ...)                                                \
  F[#Name] = [=](Args &A) -> hsa_status_t {                                    \
    (void)A;                                                                   \
    return Name(__VA_ARGS__);                                                  \
  }
  // HSA Runtime 2.1, 2.2, 2.3: system, agents, caches, extensions.
  OPENHSA_CALL(hsa_shut_down);
  OPENHSA_CALL(hsa_status_string, HSA_STATUS_ERROR, &A.Text);
  OPENHSA_CALL(hsa_system_get_info, HSA_SYSTEM_INFO_VERSION_MAJOR, &A.U16);
  OPENHSA_CALL(hsa_extension_get_name, HSA_EXTENSION_FINALIZER, &A.Text);
  OPENHSA_CALL(hsa_system_extension_supported, HSA_EXTENSION_OPENHSA, 1, 0,
               &A.Flag);
  OPENHSA_CALL(hsa_system_major_extension_supported, HSA_EXTENSION_OPENHSA, 1,
               &A.U16, &A.Flag);
  OPENHSA_CALL(hsa_system_get_extension_table, HSA_EXTENSION_OPENHSA, 1, 0,
               A.Buffer);
  OPENHSA_CALL(hsa_system_get_major_extension_table, HSA_EXTENSION_OPENHSA, 1,
               sizeof(A.Buffer), A.Buffer);
  OPENHSA_CALL(hsa_iterate_agents, agentCb, nullptr);
  OPENHSA_CALL(hsa_agent_get_info, A.Agent, HSA_AGENT_INFO_NAME, A.Buffer);
  OPENHSA_CALL(hsa_agent_get_exception_policies, A.Agent, HSA_PROFILE_FULL,
               &A.U16);
  OPENHSA_CALL(hsa_agent_iterate_caches, A.Agent, cacheCb, nullptr);
  OPENHSA_CALL(hsa_cache_get_info, A.Cache, HSA_CACHE_INFO_LEVEL, A.Buffer);
  OPENHSA_CALL(hsa_agent_extension_supported, HSA_EXTENSION_OPENHSA, A.Agent, 1,
               0, &A.Flag);
  OPENHSA_CALL(hsa_agent_major_extension_supported, HSA_EXTENSION_OPENHSA,
               A.Agent, 1, &A.U16, &A.Flag);
  // HSA Runtime 2.6: signals.
  OPENHSA_CALL(hsa_signal_create, 0, 0, nullptr, &A.SignalOut);
  OPENHSA_CALL(hsa_signal_destroy, A.Signal);
  OPENHSA_CALL(hsa_signal_group_create, 1, &A.Signal, 1, &A.Agent, &A.GroupOut);
  OPENHSA_CALL(hsa_signal_group_destroy, A.Group);
  OPENHSA_CALL(hsa_signal_group_wait_any_scacquire, A.Group, Conditions,
               Compare, HSA_WAIT_STATE_BLOCKED, &A.SignalOut, &A.Value);
  OPENHSA_CALL(hsa_signal_group_wait_any_relaxed, A.Group, Conditions, Compare,
               HSA_WAIT_STATE_BLOCKED, &A.SignalOut, &A.Value);
  // HSA Runtime 2.7: memory.
  OPENHSA_CALL(hsa_region_get_info, A.Region, HSA_REGION_INFO_SIZE, A.Buffer);
  OPENHSA_CALL(hsa_agent_iterate_regions, A.Agent, regionCb, nullptr);
  OPENHSA_CALL(hsa_memory_allocate, A.Region, 64, &A.Ptr);
  OPENHSA_CALL(hsa_memory_free, A.Ptr);
  OPENHSA_CALL(hsa_memory_copy, A.Other, A.Buffer, 16);
  OPENHSA_CALL(hsa_memory_assign_agent, A.Ptr, A.Agent,
               HSA_ACCESS_PERMISSION_RW);
  OPENHSA_CALL(hsa_memory_register, A.Other, sizeof(A.Other));
  OPENHSA_CALL(hsa_memory_deregister, A.Other, sizeof(A.Other));
  // HSA Runtime 2.8: queues.
  OPENHSA_CALL(hsa_queue_create, A.Agent, 64, HSA_QUEUE_TYPE_MULTI, nullptr,
               nullptr, UINT32_MAX, UINT32_MAX, &A.QueueOut);
  OPENHSA_CALL(hsa_soft_queue_create, A.Region, 64, HSA_QUEUE_TYPE_MULTI,
               HSA_QUEUE_FEATURE_AGENT_DISPATCH, A.Signal, &A.QueueOut);
  OPENHSA_CALL(hsa_queue_destroy, A.Queue);
  OPENHSA_CALL(hsa_queue_inactivate, A.Queue);
  // HSA Runtime 2.9: ISAs, wavefronts, code objects, executables.
  OPENHSA_CALL(hsa_isa_from_name, "openhsa:x86_64:generic", &A.IsaOut);
  OPENHSA_CALL(hsa_agent_iterate_isas, A.Agent, isaCb, nullptr);
  OPENHSA_CALL(hsa_isa_get_info, A.Isa, HSA_ISA_INFO_NAME_LENGTH, 0, &A.U32);
  OPENHSA_CALL(hsa_isa_get_info_alt, A.Isa, HSA_ISA_INFO_NAME_LENGTH, &A.U32);
  OPENHSA_CALL(hsa_isa_get_exception_policies, A.Isa, HSA_PROFILE_FULL, &A.U16);
  OPENHSA_CALL(hsa_isa_get_round_method, A.Isa, HSA_FP_TYPE_32,
               HSA_FLUSH_MODE_NON_FTZ, &A.Round);
  OPENHSA_CALL(hsa_isa_iterate_wavefronts, A.Isa, wavefrontCb, nullptr);
  OPENHSA_CALL(hsa_wavefront_get_info, A.Wavefront, HSA_WAVEFRONT_INFO_SIZE,
               &A.U32);
  OPENHSA_CALL(hsa_isa_compatible, A.Isa, A.Isa, &A.Flag);
  OPENHSA_CALL(hsa_code_object_reader_create_from_file, 0, &A.Reader);
  OPENHSA_CALL(hsa_code_object_reader_create_from_memory, A.Buffer,
               sizeof(A.Buffer), &A.Reader);
  OPENHSA_CALL(hsa_code_object_reader_destroy, A.Reader);
  OPENHSA_CALL(hsa_executable_create, HSA_PROFILE_FULL,
               HSA_EXECUTABLE_STATE_UNFROZEN, "", &A.Executable);
  OPENHSA_CALL(hsa_executable_create_alt, HSA_PROFILE_FULL,
               HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, "", &A.Executable);
  OPENHSA_CALL(hsa_executable_destroy, A.Executable);
  OPENHSA_CALL(hsa_executable_load_program_code_object, A.Executable, A.Reader,
               "", &A.Loaded);
  OPENHSA_CALL(hsa_executable_load_agent_code_object, A.Executable, A.Agent,
               A.Reader, "", &A.Loaded);
  OPENHSA_CALL(hsa_executable_freeze, A.Executable, "");
  OPENHSA_CALL(hsa_executable_get_info, A.Executable, HSA_EXECUTABLE_INFO_STATE,
               A.Buffer);
  OPENHSA_CALL(hsa_executable_global_variable_define, A.Executable, "&g",
               A.Ptr);
  OPENHSA_CALL(hsa_executable_agent_global_variable_define, A.Executable,
               A.Agent, "&g", A.Ptr);
  OPENHSA_CALL(hsa_executable_readonly_variable_define, A.Executable, A.Agent,
               "&g", A.Ptr);
  OPENHSA_CALL(hsa_executable_validate, A.Executable, &A.U32);
  OPENHSA_CALL(hsa_executable_validate_alt, A.Executable, "", &A.U32);
  OPENHSA_CALL(hsa_executable_get_symbol, A.Executable, "", "&k", A.Agent, 0,
               &A.ExecSymbol);
  OPENHSA_CALL(hsa_executable_get_symbol_by_name, A.Executable, "&k", &A.Agent,
               &A.ExecSymbol);
  OPENHSA_CALL(hsa_executable_symbol_get_info, A.ExecSymbol,
               HSA_EXECUTABLE_SYMBOL_INFO_TYPE, A.Buffer);
  OPENHSA_CALL(hsa_executable_iterate_symbols, A.Executable, execSymbolCb,
               nullptr);
  OPENHSA_CALL(hsa_executable_iterate_agent_symbols, A.Executable, A.Agent,
               agentSymbolCb, nullptr);
  OPENHSA_CALL(hsa_executable_iterate_program_symbols, A.Executable,
               execSymbolCb, nullptr);
  OPENHSA_CALL(hsa_code_object_serialize, A.CodeObject, allocCb,
               hsa_callback_data_t{0}, "", &A.Ptr, &A.Size);
  OPENHSA_CALL(hsa_code_object_deserialize, A.Buffer, sizeof(A.Buffer), "",
               &A.CodeObject);
  OPENHSA_CALL(hsa_code_object_destroy, A.CodeObject);
  OPENHSA_CALL(hsa_code_object_get_info, A.CodeObject,
               HSA_CODE_OBJECT_INFO_TYPE, A.Buffer);
  OPENHSA_CALL(hsa_executable_load_code_object, A.Executable, A.Agent,
               A.CodeObject, "");
  OPENHSA_CALL(hsa_code_object_get_symbol, A.CodeObject, "&k", &A.CodeSymbol);
  OPENHSA_CALL(hsa_code_object_get_symbol_from_name, A.CodeObject, "", "&k",
               &A.CodeSymbol);
  OPENHSA_CALL(hsa_code_symbol_get_info, A.CodeSymbol,
               HSA_CODE_SYMBOL_INFO_TYPE, A.Buffer);
  OPENHSA_CALL(hsa_code_object_iterate_symbols, A.CodeObject, codeSymbolCb,
               nullptr);
  // Finalizer extension (hsa_ext_finalize.h).
  OPENHSA_CALL(hsa_ext_program_create, HSA_MACHINE_MODEL_LARGE,
               HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, "",
               &A.Program);
  OPENHSA_CALL(hsa_ext_program_destroy, A.Program);
  OPENHSA_CALL(hsa_ext_program_add_module, A.Program,
               reinterpret_cast<hsa_ext_module_t>(A.Buffer));
  OPENHSA_CALL(hsa_ext_program_iterate_modules, A.Program, moduleCb, nullptr);
  OPENHSA_CALL(hsa_ext_program_get_info, A.Program,
               HSA_EXT_PROGRAM_INFO_PROFILE, A.Buffer);
  OPENHSA_CALL(hsa_ext_program_finalize, A.Program, A.Isa, 0, A.Directives, "",
               HSA_CODE_OBJECT_TYPE_PROGRAM, &A.CodeObject);
  // Images extension (hsa_ext_image.h).
  OPENHSA_CALL(hsa_ext_image_get_capability, A.Agent, HSA_EXT_IMAGE_GEOMETRY_2D,
               &A.ImageFormat, &A.U32);
  OPENHSA_CALL(hsa_ext_image_get_capability_with_layout, A.Agent,
               HSA_EXT_IMAGE_GEOMETRY_2D, &A.ImageFormat,
               HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR, &A.U32);
  OPENHSA_CALL(hsa_ext_image_data_get_info, A.Agent, &A.ImageDesc,
               HSA_ACCESS_PERMISSION_RW, &A.ImageInfo);
  OPENHSA_CALL(hsa_ext_image_data_get_info_with_layout, A.Agent, &A.ImageDesc,
               HSA_ACCESS_PERMISSION_RW, HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR, 0, 0,
               &A.ImageInfo);
  OPENHSA_CALL(hsa_ext_image_create, A.Agent, &A.ImageDesc, A.Buffer,
               HSA_ACCESS_PERMISSION_RW, &A.Image);
  OPENHSA_CALL(hsa_ext_image_create_with_layout, A.Agent, &A.ImageDesc,
               A.Buffer, HSA_ACCESS_PERMISSION_RW,
               HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR, 0, 0, &A.Image);
  OPENHSA_CALL(hsa_ext_image_destroy, A.Agent, A.Image);
  OPENHSA_CALL(hsa_ext_image_copy, A.Agent, A.Image, &A.Dim, A.Image, &A.Dim,
               &A.Dim);
  OPENHSA_CALL(hsa_ext_image_import, A.Agent, A.Buffer, 0, 0, A.Image,
               &A.ImageRegion);
  OPENHSA_CALL(hsa_ext_image_export, A.Agent, A.Image, A.Buffer, 0, 0,
               &A.ImageRegion);
  OPENHSA_CALL(hsa_ext_image_clear, A.Agent, A.Image, A.Buffer, &A.ImageRegion);
  OPENHSA_CALL(hsa_ext_sampler_create, A.Agent, &A.SamplerDesc, &A.Sampler);
  OPENHSA_CALL(hsa_ext_sampler_destroy, A.Agent, A.Sampler);
#undef OPENHSA_CALL
  return F;
}

/// API functions that return something other than hsa_status_t: the
/// signal value operations and the queue index operations (HSA Runtime
/// 2.6.1, 2.8.1), which report nothing and are on the fast path.
bool returnsNoStatus(const std::string &Name) {
  static const std::regex Pattern(
      "hsa_signal_(load|store|silent_store|exchange|cas|add|subtract|and|or|"
      "xor|wait)_[a-z_]+|hsa_queue_(load|store|cas|add)_(read|write)_index_"
      "[a-z_]+");
  return std::regex_match(Name, Pattern);
}

std::vector<std::string> apiFunctions() {
  std::ifstream In(OPENHSA_TEST_API_FUNCTIONS);
  std::vector<std::string> Names;
  for (std::string Line; std::getline(In, Line);)
    if (!Line.empty() && Line[0] != '#')
      Names.push_back(Line);
  return Names;
}

// The table above covers every function of the API that returns a status:
// checked against tests/abi/hsa_api_functions.txt so that a function added
// to the headers cannot slip past the NOT_INITIALIZED tests.
TEST(Init, StatusTableCoversEveryApiFunction) {
  const auto Table = statusFunctions();
  const auto Names = apiFunctions();
  ASSERT_GT(Names.size(), 100u) << "cannot read " OPENHSA_TEST_API_FUNCTIONS;
  std::set<std::string> Listed(Names.begin(), Names.end());
  for (const std::string &Name : Names) {
    if (Name == "hsa_init" || returnsNoStatus(Name))
      continue;
    EXPECT_TRUE(Table.count(Name)) << Name << " is missing from the table";
  }
  for (const auto &[Name, Fn] : Table)
    EXPECT_TRUE(Listed.count(Name)) << Name << " is not an API function";
}

// HSA Runtime 2.1: every API other than hsa_init returns NOT_INITIALIZED
// while the reference count is 0 - here before any hsa_init of the test.
TEST(Init, EveryFunctionNotInitializedBeforeInit) {
  Args A;
  for (const auto &[Name, Fn] : statusFunctions())
    EXPECT_EQ(Fn(A), HSA_STATUS_ERROR_NOT_INITIALIZED) << Name;
  // Nothing was written through the output arguments.
  EXPECT_EQ(A.SignalOut.handle, 0u);
  EXPECT_EQ(A.QueueOut, nullptr);
  EXPECT_EQ(A.Other[0], 0);
}

hsa_status_t firstCache(hsa_cache_t C, void *Data) {
  *static_cast<hsa_cache_t *>(Data) = C;
  return HSA_STATUS_INFO_BREAK;
}
hsa_status_t firstIsa(hsa_isa_t I, void *Data) {
  *static_cast<hsa_isa_t *>(Data) = I;
  return HSA_STATUS_INFO_BREAK;
}
hsa_status_t firstWavefront(hsa_wavefront_t W, void *Data) {
  *static_cast<hsa_wavefront_t *>(Data) = W;
  return HSA_STATUS_INFO_BREAK;
}

// HSA Runtime 2.1: after the last hsa_shut_down every API returns
// NOT_INITIALIZED again, even given handles that were valid before - and
// so do the openhsa extension's functions.
TEST(Init, EveryFunctionNotInitializedAfterLastShutDown) {
  Args A;
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_iterate_agents(findCpuAgent, &A.Agent), HSA_STATUS_INFO_BREAK);
  AgentRegions R;
  ASSERT_EQ(hsa_agent_iterate_regions(A.Agent, classifyRegion, &R),
            HSA_STATUS_SUCCESS);
  A.Region = R.Fine;
  hsa_agent_iterate_caches(A.Agent, firstCache, &A.Cache);
  ASSERT_EQ(hsa_agent_iterate_isas(A.Agent, firstIsa, &A.Isa),
            HSA_STATUS_INFO_BREAK);
  ASSERT_EQ(hsa_isa_iterate_wavefronts(A.Isa, firstWavefront, &A.Wavefront),
            HSA_STATUS_INFO_BREAK);
  ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &A.Signal), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_signal_group_create(1, &A.Signal, 1, &A.Agent, &A.Group),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_queue_create(A.Agent, 64, HSA_QUEUE_TYPE_MULTI, nullptr,
                             nullptr, UINT32_MAX, UINT32_MAX, &A.Queue),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_memory_allocate(R.Fine, 64, &A.Ptr), HSA_STATUS_SUCCESS);
  hsa_ext_openhsa_1_pfn_t Ext;
  ASSERT_EQ(hsa_system_get_major_extension_table(HSA_EXTENSION_OPENHSA, 1,
                                                 sizeof(Ext), &Ext),
            HSA_STATUS_SUCCESS);

  // The first shut down leaves the runtime up.
  ASSERT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  const char *Text = nullptr;
  EXPECT_EQ(hsa_status_string(HSA_STATUS_ERROR, &Text), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);

  for (const auto &[Name, Fn] : statusFunctions())
    EXPECT_EQ(Fn(A), HSA_STATUS_ERROR_NOT_INITIALIZED) << Name;

  hsa_ext_openhsa_native_kernel_t K = {
      [](const void *, const hsa_ext_openhsa_dispatch_context_t *, uint32_t,
         uint32_t, uint32_t) {},
      nullptr,
      0,
      0,
      0,
      16};
  uint64_t Object = 0;
  EXPECT_EQ(Ext.hsa_ext_openhsa_native_kernel_create(A.Agent, &K, &Object),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(Ext.hsa_ext_openhsa_native_kernel_destroy(0x1234),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(Ext.hsa_ext_openhsa_agent_dispatch_handler_set(A.Agent, 1, nullptr,
                                                           nullptr),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
}

// HSA Runtime 2.2.1: every status code of the core API and of the
// finalizer and images extensions has a string; the string starts with the
// code's name.
TEST(StatusString, EveryStatusCode) {
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  const std::pair<int, const char *> Codes[] = {
#define OPENHSA_CODE(C) {C, #C}
      OPENHSA_CODE(HSA_STATUS_SUCCESS),
      OPENHSA_CODE(HSA_STATUS_INFO_BREAK),
      OPENHSA_CODE(HSA_STATUS_ERROR),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_ARGUMENT),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_QUEUE_CREATION),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_ALLOCATION),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_AGENT),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_REGION),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_SIGNAL),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_QUEUE),
      OPENHSA_CODE(HSA_STATUS_ERROR_OUT_OF_RESOURCES),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT),
      OPENHSA_CODE(HSA_STATUS_ERROR_RESOURCE_FREE),
      OPENHSA_CODE(HSA_STATUS_ERROR_NOT_INITIALIZED),
      OPENHSA_CODE(HSA_STATUS_ERROR_REFCOUNT_OVERFLOW),
      OPENHSA_CODE(HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_INDEX),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_ISA),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_ISA_NAME),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_CODE_OBJECT),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_EXECUTABLE),
      OPENHSA_CODE(HSA_STATUS_ERROR_FROZEN_EXECUTABLE),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_SYMBOL_NAME),
      OPENHSA_CODE(HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED),
      OPENHSA_CODE(HSA_STATUS_ERROR_VARIABLE_UNDEFINED),
      OPENHSA_CODE(HSA_STATUS_ERROR_EXCEPTION),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_CODE_SYMBOL),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_FILE),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_CACHE),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_WAVEFRONT),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP),
      OPENHSA_CODE(HSA_STATUS_ERROR_INVALID_RUNTIME_STATE),
      OPENHSA_CODE(HSA_STATUS_ERROR_FATAL),
      OPENHSA_CODE(HSA_EXT_STATUS_ERROR_INVALID_PROGRAM),
      OPENHSA_CODE(HSA_EXT_STATUS_ERROR_INVALID_MODULE),
      OPENHSA_CODE(HSA_EXT_STATUS_ERROR_INCOMPATIBLE_MODULE),
      OPENHSA_CODE(HSA_EXT_STATUS_ERROR_MODULE_ALREADY_INCLUDED),
      OPENHSA_CODE(HSA_EXT_STATUS_ERROR_SYMBOL_MISMATCH),
      OPENHSA_CODE(HSA_EXT_STATUS_ERROR_FINALIZATION_FAILED),
      OPENHSA_CODE(HSA_EXT_STATUS_ERROR_DIRECTIVE_MISMATCH),
      OPENHSA_CODE(HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED),
      OPENHSA_CODE(HSA_EXT_STATUS_ERROR_IMAGE_SIZE_UNSUPPORTED),
      OPENHSA_CODE(HSA_EXT_STATUS_ERROR_IMAGE_PITCH_UNSUPPORTED),
      OPENHSA_CODE(HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED),
#undef OPENHSA_CODE
  };
  std::set<std::string> Seen;
  for (const auto &[Code, Name] : Codes) {
    const char *Text = nullptr;
    ASSERT_EQ(hsa_status_string(hsa_status_t(Code), &Text), HSA_STATUS_SUCCESS)
        << Name;
    ASSERT_NE(Text, nullptr) << Name;
    EXPECT_EQ(std::string(Text).rfind(Name, 0), 0u)
        << Name << " gives \"" << Text << "\"";
    EXPECT_GT(std::strlen(Text), std::strlen(Name)) << Name;
    EXPECT_TRUE(Seen.insert(Text).second) << Name << " shares its string";
  }
  EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
}

// HSA Runtime 2.2.1: unknown codes and a null output are INVALID_ARGUMENT,
// and nothing is written for them.
TEST(StatusString, InvalidArguments) {
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  for (int Code : {0x2, 0xfff, 0x1027, 0x1fff, 0x2007, 0x3004, 0x4000, -1}) {
    const char *Text = "untouched";
    EXPECT_EQ(hsa_status_string(hsa_status_t(Code), &Text),
              HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << std::hex << Code;
    EXPECT_STREQ(Text, "untouched");
  }
  EXPECT_EQ(hsa_status_string(HSA_STATUS_SUCCESS, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
}

} // namespace
} // namespace openhsa::test
