//===- tests/executable/ExecutableTest.cpp - Executables and symbols ------===//
//
// hsa_executable_* (HSA Runtime 2.9.4, 2.9.5): creation, loading, variable
// definition, freezing, validation, symbol lookup and every symbol
// attribute, with their error paths.
//
//===----------------------------------------------------------------------===//
#include "tests/executable/ExecTestSupport.h"

#include <algorithm>
#include <map>
#include <set>

using namespace openhsa::test;

namespace {

class Executable : public ExecTest {};

const std::string ExternalModule = R"(module &extmod:1:0:$full:$large:$default;

decl prog global_u32 &ext_value;
decl prog readonly_u32 &ext_table[2];

prog kernel &read_ext(kernarg_u64 %out)
{
    ld_kernarg_u64 $d0, [%out];
    ld_global_u32 $s0, [&ext_value];
    st_global_u32 $s0, [$d0];
    ld_readonly_u32 $s0, [&ext_table];
    st_global_u32 $s0, [$d0+4];
    ld_readonly_u32 $s0, [&ext_table][4];
    st_global_u32 $s0, [$d0+8];
    ret;
};
)";

const std::string ModuleKernel = R"(module &mk:1:0:$full:$large:$default;

kernel &hidden(kernarg_u64 %out)
{
    ld_kernarg_u64 $d0, [%out];
    st_global_u32 42, [$d0];
    ret;
};
)";

TEST_F(Executable, CreateAndInfo) {
  hsa_executable_t E{0};
  EXPECT_EQ(hsa_executable_create(hsa_profile_t(9),
                                  HSA_EXECUTABLE_STATE_UNFROZEN, nullptr, &E),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_executable_create(HSA_PROFILE_FULL, hsa_executable_state_t(2),
                                  nullptr, &E),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_executable_create(HSA_PROFILE_FULL,
                                  HSA_EXECUTABLE_STATE_UNFROZEN, nullptr,
                                  nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_executable_create_alt(hsa_profile_t(9),
                                      HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR,
                                      nullptr, &E),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // The default rounding mode is not one an executable may use.
  EXPECT_EQ(hsa_executable_create_alt(HSA_PROFILE_FULL,
                                      HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                      nullptr, &E),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_executable_create_alt(HSA_PROFILE_FULL,
                                      HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR,
                                      nullptr, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);

  ASSERT_EQ(hsa_executable_create_alt(HSA_PROFILE_BASE,
                                      HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO,
                                      "-hsa_whatever", &E),
            HSA_STATUS_SUCCESS);
  hsa_profile_t Profile;
  hsa_executable_state_t State;
  hsa_default_float_rounding_mode_t Rounding;
  EXPECT_EQ(hsa_executable_get_info(E, HSA_EXECUTABLE_INFO_PROFILE, &Profile),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(Profile, HSA_PROFILE_BASE);
  EXPECT_EQ(hsa_executable_get_info(E, HSA_EXECUTABLE_INFO_STATE, &State),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(State, HSA_EXECUTABLE_STATE_UNFROZEN);
  EXPECT_EQ(hsa_executable_get_info(
                E, HSA_EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE, &Rounding),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(Rounding, HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO);
  EXPECT_EQ(hsa_executable_get_info(E, hsa_executable_info_t(0), &State),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_executable_get_info(E, HSA_EXECUTABLE_INFO_STATE, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_executable_freeze(E, nullptr), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_get_info(E, HSA_EXECUTABLE_INFO_STATE, &State),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(State, HSA_EXECUTABLE_STATE_FROZEN);
  EXPECT_EQ(hsa_executable_freeze(E, nullptr),
            HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);

  // Destroyed, or never created: refused everywhere.
  for (hsa_executable_t Bad : {E, hsa_executable_t{0x777000}}) {
    EXPECT_EQ(hsa_executable_destroy(Bad), HSA_STATUS_ERROR_INVALID_EXECUTABLE);
    EXPECT_EQ(hsa_executable_get_info(Bad, HSA_EXECUTABLE_INFO_STATE, &State),
              HSA_STATUS_ERROR_INVALID_EXECUTABLE);
    EXPECT_EQ(hsa_executable_freeze(Bad, nullptr),
              HSA_STATUS_ERROR_INVALID_EXECUTABLE);
    uint32_t Result;
    EXPECT_EQ(hsa_executable_validate(Bad, &Result),
              HSA_STATUS_ERROR_INVALID_EXECUTABLE);
    EXPECT_EQ(hsa_executable_global_variable_define(Bad, "&x", &Result),
              HSA_STATUS_ERROR_INVALID_EXECUTABLE);
    hsa_executable_symbol_t S;
    EXPECT_EQ(hsa_executable_get_symbol_by_name(Bad, "&x", nullptr, &S),
              HSA_STATUS_ERROR_INVALID_EXECUTABLE);
    EXPECT_EQ(hsa_executable_get_symbol(Bad, nullptr, "&x", Cpu, 0, &S),
              HSA_STATUS_ERROR_INVALID_EXECUTABLE);
    EXPECT_EQ(hsa_executable_iterate_symbols(
                  Bad,
                  [](hsa_executable_t, hsa_executable_symbol_t, void *) {
                    return HSA_STATUS_SUCCESS;
                  },
                  nullptr),
              HSA_STATUS_ERROR_INVALID_EXECUTABLE);
    EXPECT_EQ(hsa_executable_load_code_object(Bad, Cpu, {0}, nullptr),
              HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  }
}

TEST_F(Executable, FrozenAtCreationRefusesEverything) {
  hsa_code_object_t CO = finalizeText(VectorAddHsail);
  ASSERT_NE(CO.handle, 0u);
  hsa_executable_t E{0};
  ASSERT_EQ(hsa_executable_create(HSA_PROFILE_FULL, HSA_EXECUTABLE_STATE_FROZEN,
                                  nullptr, &E),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_load_code_object(E, Cpu, CO, nullptr),
            HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  std::vector<uint8_t> Bytes = serialize(CO);
  hsa_code_object_reader_t Reader{0};
  ASSERT_EQ(hsa_code_object_reader_create_from_memory(Bytes.data(),
                                                      Bytes.size(), &Reader),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(
      hsa_executable_load_agent_code_object(E, Cpu, Reader, nullptr, nullptr),
      HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  EXPECT_EQ(
      hsa_executable_load_program_code_object(E, Reader, nullptr, nullptr),
      HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  uint32_t Value = 0;
  EXPECT_EQ(hsa_executable_global_variable_define(E, "&ext_value", &Value),
            HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  EXPECT_EQ(
      hsa_executable_agent_global_variable_define(E, Cpu, "&ext_value", &Value),
      HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  EXPECT_EQ(
      hsa_executable_readonly_variable_define(E, Cpu, "&ext_table", &Value),
      HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  EXPECT_EQ(hsa_executable_freeze(E, nullptr),
            HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_reader_destroy(Reader), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
}

// A library writes nothing to the program's stderr unless asked: a refused
// code object says why only with OPENHSA_DEBUG set (README).
TEST_F(Executable, RefusedCodeObjectIsQuietUnlessAsked) {
  hsa_code_object_t Real = finalizeText(VectorAddHsail);
  ASSERT_NE(Real.handle, 0u);
  // Renaming a kernel's entry symbol in the metadata keeps the code object
  // well-formed; loading it fails, as the symbol is not in the object.
  std::vector<uint8_t> Bytes = serialize(Real);
  const std::string Key = "\"entry\":\"";
  auto At = std::search(Bytes.begin(), Bytes.end(), Key.begin(), Key.end());
  ASSERT_NE(At, Bytes.end());
  uint8_t &First = At[Key.size()];
  First = First == 'Z' ? 'Y' : 'Z';
  sealCodeObjectBytes(Bytes); // A well-formed code object, hash included.
  hsa_code_object_t Bad{0};
  ASSERT_EQ(
      hsa_code_object_deserialize(Bytes.data(), Bytes.size(), nullptr, &Bad),
      HSA_STATUS_SUCCESS);
  auto Load = [&](const char *Debug) {
    ScopedEnv Env("OPENHSA_DEBUG", Debug);
    hsa_executable_t E = makeExecutable();
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(hsa_executable_load_code_object(E, Cpu, Bad, nullptr),
              HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
    std::string Err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
    return Err;
  };
  EXPECT_EQ(Load(nullptr), "");
  EXPECT_EQ(Load("0"), "");
  for (const char *Level : {"error", "1", "warning", "info"})
    EXPECT_EQ(Load(Level).rfind("openhsa: cannot load code object: ", 0), 0u)
        << Level;
  EXPECT_EQ(hsa_code_object_destroy(Bad), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(Real), HSA_STATUS_SUCCESS);
}

TEST_F(Executable, LoadChecksItsArguments) {
  hsa_code_object_t CO = finalizeText(VectorAddHsail);
  ASSERT_NE(CO.handle, 0u);
  hsa_executable_t E = makeExecutable();
  EXPECT_EQ(hsa_executable_load_code_object(E, {0}, CO, nullptr),
            HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_executable_load_code_object(E, Cpu, {CO.handle + 8}, nullptr),
            HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  hsa_loaded_code_object_t Loaded{0};
  EXPECT_EQ(
      hsa_executable_load_agent_code_object(E, Cpu, {0x4242}, nullptr, &Loaded),
      HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
  EXPECT_EQ(
      hsa_executable_load_program_code_object(E, {0x4242}, nullptr, &Loaded),
      HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
  std::vector<uint8_t> Bytes = serialize(CO);
  hsa_code_object_reader_t Reader{0};
  ASSERT_EQ(hsa_code_object_reader_create_from_memory(Bytes.data(),
                                                      Bytes.size(), &Reader),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(
      hsa_executable_load_agent_code_object(E, {0}, Reader, nullptr, &Loaded),
      HSA_STATUS_ERROR_INVALID_AGENT);

  // Garbage behind a reader.
  std::vector<uint8_t> Garbage(Bytes.size(), 0x5a);
  hsa_code_object_reader_t Bad{0};
  ASSERT_EQ(hsa_code_object_reader_create_from_memory(Garbage.data(),
                                                      Garbage.size(), &Bad),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(
      hsa_executable_load_agent_code_object(E, Cpu, Bad, nullptr, &Loaded),
      HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  EXPECT_EQ(hsa_executable_load_program_code_object(E, Bad, nullptr, &Loaded),
            HSA_STATUS_ERROR_INVALID_CODE_OBJECT);

  // A profile the executable was not created for.
  hsa_executable_t Base{0};
  ASSERT_EQ(hsa_executable_create_alt(HSA_PROFILE_BASE,
                                      HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR,
                                      nullptr, &Base),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_load_code_object(Base, Cpu, CO, nullptr),
            HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  // A rounding mode the executable was not created for.
  hsa_executable_t Zero{0};
  ASSERT_EQ(hsa_executable_create_alt(HSA_PROFILE_FULL,
                                      HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO,
                                      nullptr, &Zero),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_load_agent_code_object(Zero, Cpu, Reader, nullptr,
                                                  &Loaded),
            HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);

  // Loads once per agent; the program code object loads once.
  Loaded.handle = 0;
  EXPECT_EQ(
      hsa_executable_load_agent_code_object(E, Cpu, Reader, nullptr, &Loaded),
      HSA_STATUS_SUCCESS);
  EXPECT_NE(Loaded.handle, 0u);
  EXPECT_EQ(
      hsa_executable_load_agent_code_object(E, Cpu, Reader, nullptr, nullptr),
      HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  EXPECT_EQ(hsa_executable_load_code_object(E, Cpu, CO, nullptr),
            HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  EXPECT_EQ(
      hsa_executable_load_program_code_object(E, Reader, nullptr, nullptr),
      HSA_STATUS_SUCCESS);
  EXPECT_EQ(
      hsa_executable_load_program_code_object(E, Reader, nullptr, nullptr),
      HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);

  for (hsa_executable_t X : {E, Base, Zero})
    EXPECT_EQ(hsa_executable_destroy(X), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_reader_destroy(Reader), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_reader_destroy(Bad), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
}

TEST_F(Executable, DefineVariableChecksItsArguments) {
  hsa_executable_t E = makeExecutable();
  uint32_t Value = 0;
  EXPECT_EQ(hsa_executable_global_variable_define(E, nullptr, &Value),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_executable_global_variable_define(E, "", &Value),
            HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  EXPECT_EQ(hsa_executable_global_variable_define(E, "no_ampersand", &Value),
            HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  EXPECT_EQ(hsa_executable_agent_global_variable_define(E, {0}, "&x", &Value),
            HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_executable_readonly_variable_define(E, {0}, "&x", &Value),
            HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(
      hsa_executable_agent_global_variable_define(E, Cpu, nullptr, &Value),
      HSA_STATUS_ERROR_INVALID_ARGUMENT);

  EXPECT_EQ(hsa_executable_global_variable_define(E, "&x", &Value),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_global_variable_define(E, "&x", &Value),
            HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED);
  EXPECT_EQ(hsa_executable_agent_global_variable_define(E, Cpu, "&x", &Value),
            HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED);
  EXPECT_EQ(hsa_executable_readonly_variable_define(E, Cpu, "&r", &Value),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_readonly_variable_define(E, Cpu, "&r", &Value),
            HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED);
  EXPECT_EQ(
      hsa_executable_agent_global_variable_define(E, Cpu, "&m::&y", &Value),
      HSA_STATUS_SUCCESS);

  // Defined variables are symbols: program ones without an agent.
  hsa_executable_symbol_t S{0};
  ASSERT_EQ(hsa_executable_get_symbol_by_name(E, "&x", nullptr, &S),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(symbolInfo<hsa_variable_allocation_t>(
                S, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALLOCATION),
            HSA_VARIABLE_ALLOCATION_PROGRAM);
  // Unfrozen: no address yet.
  EXPECT_EQ(
      symbolInfo<uint64_t>(S, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS), 0u);
  EXPECT_EQ(hsa_executable_get_symbol_by_name(E, "&r", nullptr, &S),
            HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  ASSERT_EQ(hsa_executable_get_symbol_by_name(E, "&r", &Cpu, &S),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(symbolInfo<hsa_variable_segment_t>(
                S, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SEGMENT),
            HSA_VARIABLE_SEGMENT_READONLY);
  EXPECT_EQ(symbolInfo<hsa_agent_t>(S, HSA_EXECUTABLE_SYMBOL_INFO_AGENT).handle,
            Cpu.handle);
  ASSERT_EQ(hsa_executable_get_symbol(E, "&m", "&y", Cpu, 0, &S),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(
      symbolInfo<hsa_symbol_linkage_t>(S, HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE),
      HSA_SYMBOL_LINKAGE_MODULE);
  EXPECT_EQ(hsa_executable_freeze(E, nullptr), HSA_STATUS_SUCCESS);
  EXPECT_EQ(
      symbolInfo<uint64_t>(S, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS),
      uint64_t(reinterpret_cast<uintptr_t>(&Value)));
  EXPECT_EQ(hsa_executable_global_variable_define(E, "&z", &Value),
            HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  // Symbols die with their executable.
  uint32_t Kind;
  EXPECT_EQ(
      hsa_executable_symbol_get_info(S, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &Kind),
      HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL);
}

TEST_F(Executable, UndefinedExternalVariable) {
  hsa_code_object_t CO = finalizeText(ExternalModule);
  ASSERT_NE(CO.handle, 0u);
  hsa_executable_t E = makeExecutable();
  // Neither variable defined.
  EXPECT_EQ(hsa_executable_load_code_object(E, Cpu, CO, nullptr),
            HSA_STATUS_ERROR_VARIABLE_UNDEFINED);
  uint32_t Value = 1;
  ASSERT_EQ(hsa_executable_global_variable_define(E, "&ext_value", &Value),
            HSA_STATUS_SUCCESS);
  // The readonly one is still missing (and is per agent).
  EXPECT_EQ(hsa_executable_load_code_object(E, Cpu, CO, nullptr),
            HSA_STATUS_ERROR_VARIABLE_UNDEFINED);
  uint32_t Table[2] = {3, 4};
  // A program variable of that name would clash with the agent's one.
  hsa_executable_t Other = makeExecutable();
  ASSERT_EQ(hsa_executable_global_variable_define(Other, "&ext_table", Table),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(
      hsa_executable_readonly_variable_define(Other, Cpu, "&ext_table", Table),
      HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED);
  EXPECT_EQ(hsa_executable_destroy(Other), HSA_STATUS_SUCCESS);
  // A definition in the global segment does not define a readonly variable.
  Other = makeExecutable();
  ASSERT_EQ(hsa_executable_global_variable_define(Other, "&ext_value", &Value),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_executable_agent_global_variable_define(Other, Cpu,
                                                        "&ext_table", Table),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_load_code_object(Other, Cpu, CO, nullptr),
            HSA_STATUS_ERROR_VARIABLE_UNDEFINED);
  EXPECT_EQ(hsa_executable_destroy(Other), HSA_STATUS_SUCCESS);

  ASSERT_EQ(
      hsa_executable_readonly_variable_define(E, Cpu, "&ext_table", Table),
      HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_load_code_object(E, Cpu, CO, nullptr),
            HSA_STATUS_SUCCESS);
  uint32_t Result = 0;
  EXPECT_EQ(hsa_executable_validate(E, &Result), HSA_STATUS_SUCCESS);
  EXPECT_NE(Result, 0u); // Not frozen yet.
  EXPECT_EQ(hsa_executable_freeze(E, nullptr), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_validate(E, &Result), HSA_STATUS_SUCCESS);
  EXPECT_EQ(Result, 0u);
  EXPECT_EQ(hsa_executable_validate_alt(E, "-opt", &Result),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(Result, 0u);
  EXPECT_EQ(hsa_executable_validate(E, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_executable_validate_alt(E, nullptr, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);

  // The external definition learnt the declared size.
  hsa_executable_symbol_t S{0};
  ASSERT_EQ(hsa_executable_get_symbol_by_name(E, "&ext_table", &Cpu, &S),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(symbolInfo<uint32_t>(S, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE),
            8u);
  EXPECT_TRUE(
      symbolInfo<bool>(S, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST));
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
}

TEST_F(Executable, CodeMustNotRedefineExternalVariables) {
  hsa_code_object_t CO = finalizeText(VectorAddHsail);
  ASSERT_NE(CO.handle, 0u);
  hsa_executable_t E = makeExecutable();
  uint32_t Bias = 0;
  ASSERT_EQ(hsa_executable_global_variable_define(E, "&bias", &Bias),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_load_code_object(E, Cpu, CO, nullptr),
            HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED);
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
}

TEST_F(Executable, SymbolsAndEveryAttribute) {
  hsa_code_object_t CO = finalizeText(VectorAddHsail);
  hsa_code_object_t Hidden = finalizeText(ModuleKernel);
  ASSERT_NE(CO.handle, 0u);
  ASSERT_NE(Hidden.handle, 0u);
  hsa_executable_t E{0};
  ASSERT_EQ(hsa_executable_create(HSA_PROFILE_FULL,
                                  HSA_EXECUTABLE_STATE_UNFROZEN, nullptr, &E),
            HSA_STATUS_SUCCESS);
  hsa_default_float_rounding_mode_t Rounding;
  EXPECT_EQ(hsa_executable_get_info(
                E, HSA_EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE, &Rounding),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(Rounding, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT);
  ASSERT_EQ(hsa_executable_load_code_object(E, Cpu, CO, nullptr),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_executable_load_code_object(E, Cpu, Hidden, "-opt"),
            HSA_STATUS_SUCCESS);

  std::map<std::string, hsa_executable_symbol_t> All;
  struct Ctx {
    Executable *T;
    std::map<std::string, hsa_executable_symbol_t> *Out;
  } C{this, &All};
  ASSERT_EQ(hsa_executable_iterate_symbols(
                E,
                [](hsa_executable_t, hsa_executable_symbol_t S, void *Data) {
                  auto *C = static_cast<Ctx *>(Data);
                  (*C->Out)[C->T->symbolName(S)] = S;
                  return HSA_STATUS_SUCCESS;
                },
                &C),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(All.size(), 7u);
  for (const char *N : {"&bias", "&table", "&vector_add", "&use_vars", "&ids",
                        "&arith", "&hidden"})
    EXPECT_TRUE(All.count(N)) << N;

  std::set<std::string> AgentSymbols, ProgramSymbols;
  struct AgentCtx {
    Executable *T;
    std::set<std::string> *Out;
    hsa_agent_t Agent;
  } AC{this, &AgentSymbols, Cpu};
  EXPECT_EQ(hsa_executable_iterate_agent_symbols(
                E, Cpu,
                [](hsa_executable_t, hsa_agent_t A, hsa_executable_symbol_t S,
                   void *Data) {
                  auto *C = static_cast<AgentCtx *>(Data);
                  EXPECT_EQ(A.handle, C->Agent.handle);
                  C->Out->insert(C->T->symbolName(S));
                  return HSA_STATUS_SUCCESS;
                },
                &AC),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(AgentSymbols,
            (std::set<std::string>{"&table", "&vector_add", "&use_vars", "&ids",
                                   "&arith", "&hidden"}));
  AC.Out = &ProgramSymbols;
  EXPECT_EQ(hsa_executable_iterate_program_symbols(
                E,
                [](hsa_executable_t, hsa_executable_symbol_t S, void *Data) {
                  auto *C = static_cast<AgentCtx *>(Data);
                  C->Out->insert(C->T->symbolName(S));
                  return HSA_STATUS_SUCCESS;
                },
                &AC),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(ProgramSymbols, (std::set<std::string>{"&bias"}));
  EXPECT_EQ(hsa_executable_iterate_agent_symbols(
                E, {0},
                [](hsa_executable_t, hsa_agent_t, hsa_executable_symbol_t,
                   void *) { return HSA_STATUS_SUCCESS; },
                nullptr),
            HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(hsa_executable_iterate_agent_symbols(E, Cpu, nullptr, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_executable_iterate_program_symbols(E, nullptr, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_executable_iterate_symbols(E, nullptr, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  int Calls = 0;
  EXPECT_EQ(hsa_executable_iterate_symbols(
                E,
                [](hsa_executable_t, hsa_executable_symbol_t, void *Data) {
                  ++*static_cast<int *>(Data);
                  return HSA_STATUS_INFO_BREAK;
                },
                &Calls),
            HSA_STATUS_INFO_BREAK);
  EXPECT_EQ(Calls, 1);

  // Lookups.
  hsa_executable_symbol_t K{0};
  EXPECT_EQ(hsa_executable_get_symbol_by_name(E, "&vector_add", nullptr, &K),
            HSA_STATUS_ERROR_INVALID_SYMBOL_NAME); // Kernels have an agent.
  ASSERT_EQ(hsa_executable_get_symbol_by_name(E, "&vector_add", &Cpu, &K),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(K.handle, All["&vector_add"].handle);
  hsa_executable_symbol_t Same{0};
  ASSERT_EQ(hsa_executable_get_symbol(E, nullptr, "&vector_add", Cpu, 0, &Same),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(Same.handle, K.handle);
  ASSERT_EQ(hsa_executable_get_symbol(E, "", "&vector_add", Cpu, -1, &Same),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(Same.handle, K.handle);
  EXPECT_EQ(hsa_executable_get_symbol(E, nullptr, "&hidden", Cpu, 0, &Same),
            HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  ASSERT_EQ(hsa_executable_get_symbol(E, "&mk", "&hidden", Cpu, 0, &Same),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(Same.handle, All["&hidden"].handle);
  ASSERT_EQ(hsa_executable_get_symbol_by_name(E, "&mk::&hidden", &Cpu, &Same),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(Same.handle, All["&hidden"].handle);
  hsa_executable_symbol_t Bias{0};
  ASSERT_EQ(hsa_executable_get_symbol_by_name(E, "&bias", nullptr, &Bias),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_get_symbol_by_name(E, "&nothing", &Cpu, &Same),
            HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  EXPECT_EQ(hsa_executable_get_symbol_by_name(E, nullptr, &Cpu, &Same),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_executable_get_symbol_by_name(E, "&bias", nullptr, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_executable_get_symbol(E, nullptr, nullptr, Cpu, 0, &Same),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_executable_get_symbol(E, nullptr, "&bias", Cpu, 0, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);

  // Unfrozen: no kernel object, no variable address.
  EXPECT_EQ(symbolInfo<uint64_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT),
            0u);
  EXPECT_EQ(
      symbolInfo<uint64_t>(Bias, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS),
      0u);
  ASSERT_EQ(hsa_executable_freeze(E, nullptr), HSA_STATUS_SUCCESS);

  // Every attribute of a kernel.
  EXPECT_EQ(symbolInfo<hsa_symbol_kind_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_TYPE),
            HSA_SYMBOL_KIND_KERNEL);
  EXPECT_EQ(symbolInfo<uint32_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH),
            11u);
  EXPECT_EQ(symbolName(K), "&vector_add");
  EXPECT_EQ(
      symbolInfo<uint32_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME_LENGTH),
      0u);
  char Module[8] = "xxxxxxx";
  EXPECT_EQ(hsa_executable_symbol_get_info(
                K, HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME, Module),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(symbolInfo<hsa_agent_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_AGENT).handle,
            Cpu.handle);
  EXPECT_EQ(
      symbolInfo<hsa_symbol_linkage_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE),
      HSA_SYMBOL_LINKAGE_PROGRAM);
  EXPECT_TRUE(symbolInfo<bool>(K, HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION));
  EXPECT_NE(symbolInfo<uint64_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT),
            0u);
  const uint32_t KernargSize = symbolInfo<uint32_t>(
      K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE);
  EXPECT_GE(KernargSize, 24u);
  EXPECT_EQ(KernargSize % 16, 0u);
  EXPECT_EQ(symbolInfo<uint32_t>(
                K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT),
            16u);
  EXPECT_EQ(symbolInfo<uint32_t>(
                K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE),
            0u);
  symbolInfo<uint32_t>(K,
                       HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE);
  EXPECT_FALSE(
      symbolInfo<bool>(K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK));
  EXPECT_EQ(symbolInfo<uint32_t>(
                K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_CALL_CONVENTION),
            0u);
  uint64_t Ignored;
  // Integers, converted at the call: an hsa_executable_symbol_info_t object
  // holding 99 would be outside the enum's range (undefined behaviour).
  for (int A : std::initializer_list<int>{
           HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS,
           HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALLOCATION,
           HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SEGMENT,
           HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALIGNMENT,
           HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE,
           HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST,
           HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_OBJECT,
           HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_CALL_CONVENTION, 99})
    EXPECT_EQ(hsa_executable_symbol_get_info(K, hsa_executable_symbol_info_t(A),
                                             &Ignored),
              HSA_STATUS_ERROR_INVALID_ARGUMENT)
        << A;
  EXPECT_EQ(hsa_executable_symbol_get_info(K, HSA_EXECUTABLE_SYMBOL_INFO_TYPE,
                                           nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_executable_symbol_get_info(
                {K.handle + 4}, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &Ignored),
            HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL);

  // A group-memory kernel reports its static group segment.
  EXPECT_GE(
      symbolInfo<uint32_t>(
          All["&arith"], HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE),
      256u);
  EXPECT_GE(symbolInfo<uint32_t>(
                All["&arith"],
                HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE),
            4u);

  // The module-linkage kernel.
  hsa_executable_symbol_t H = All["&hidden"];
  EXPECT_EQ(
      symbolInfo<hsa_symbol_linkage_t>(H, HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE),
      HSA_SYMBOL_LINKAGE_MODULE);
  EXPECT_EQ(
      symbolInfo<uint32_t>(H, HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME_LENGTH),
      3u);
  char ModuleName[3];
  EXPECT_EQ(hsa_executable_symbol_get_info(
                H, HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME, ModuleName),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(std::string(ModuleName, 3), "&mk");

  // Every attribute of a program variable.
  EXPECT_EQ(
      symbolInfo<hsa_symbol_kind_t>(Bias, HSA_EXECUTABLE_SYMBOL_INFO_TYPE),
      HSA_SYMBOL_KIND_VARIABLE);
  EXPECT_EQ(symbolName(Bias), "&bias");
  EXPECT_EQ(symbolInfo<hsa_symbol_linkage_t>(
                Bias, HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE),
            HSA_SYMBOL_LINKAGE_PROGRAM);
  EXPECT_TRUE(symbolInfo<bool>(Bias, HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION));
  EXPECT_EQ(symbolInfo<hsa_variable_allocation_t>(
                Bias, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALLOCATION),
            HSA_VARIABLE_ALLOCATION_PROGRAM);
  EXPECT_EQ(symbolInfo<hsa_variable_segment_t>(
                Bias, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SEGMENT),
            HSA_VARIABLE_SEGMENT_GLOBAL);
  EXPECT_GE(
      symbolInfo<uint32_t>(Bias, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALIGNMENT),
      4u);
  EXPECT_EQ(
      symbolInfo<uint32_t>(Bias, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE), 4u);
  EXPECT_FALSE(
      symbolInfo<bool>(Bias, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST));
  const uint64_t BiasAddress =
      symbolInfo<uint64_t>(Bias, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS);
  ASSERT_NE(BiasAddress, 0u);
  EXPECT_EQ(*reinterpret_cast<const uint32_t *>(BiasAddress), 5u);
  EXPECT_EQ(hsa_executable_symbol_get_info(
                Bias, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &Ignored),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);

  // The readonly table: agent allocation, initialized.
  hsa_executable_symbol_t Table = All["&table"];
  EXPECT_EQ(symbolInfo<hsa_variable_segment_t>(
                Table, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SEGMENT),
            HSA_VARIABLE_SEGMENT_READONLY);
  EXPECT_EQ(symbolInfo<hsa_variable_allocation_t>(
                Table, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALLOCATION),
            HSA_VARIABLE_ALLOCATION_AGENT);
  EXPECT_EQ(
      symbolInfo<hsa_agent_t>(Table, HSA_EXECUTABLE_SYMBOL_INFO_AGENT).handle,
      Cpu.handle);
  EXPECT_EQ(
      symbolInfo<uint32_t>(Table, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE),
      16u);
  const auto *TableData = reinterpret_cast<const uint32_t *>(
      symbolInfo<uint64_t>(Table, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS));
  ASSERT_NE(TableData, nullptr);
  EXPECT_EQ(TableData[0], 10u);
  EXPECT_EQ(TableData[3], 40u);

  // Frozen: nothing more loads.
  EXPECT_EQ(hsa_executable_load_code_object(E, Cpu, CO, nullptr),
            HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_symbol_get_info(K, HSA_EXECUTABLE_SYMBOL_INFO_TYPE,
                                           &Ignored),
            HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(Hidden), HSA_STATUS_SUCCESS);
}

TEST_F(Executable, ShutDownFreesWhatIsLeft) {
  // Programs, code objects, readers and executables left behind are freed
  // by the last hsa_shut_down; a new runtime starts empty.
  hsa_code_object_t CO = finalizeText(VectorAddHsail);
  ASSERT_NE(CO.handle, 0u);
  hsa_executable_t E = makeExecutable();
  ASSERT_EQ(hsa_executable_load_code_object(E, Cpu, CO, nullptr),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_executable_freeze(E, nullptr), HSA_STATUS_SUCCESS);
  hsa_ext_program_t P = makeProgram({});
  std::vector<uint8_t> Bytes = serialize(CO);
  hsa_code_object_reader_t Reader{0};
  ASSERT_EQ(hsa_code_object_reader_create_from_memory(Bytes.data(),
                                                      Bytes.size(), &Reader),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  EXPECT_EQ(int(hsa_ext_program_destroy(P)),
            HSA_EXT_STATUS_ERROR_INVALID_PROGRAM);
  EXPECT_EQ(hsa_code_object_reader_destroy(Reader),
            HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
  // The fixture's agent handle belongs to the old runtime.
  hsa_agent_t Agent{0};
  ASSERT_EQ(hsa_iterate_agents(
                [](hsa_agent_t A, void *Data) {
                  *static_cast<hsa_agent_t *>(Data) = A;
                  return HSA_STATUS_INFO_BREAK;
                },
                &Agent),
            HSA_STATUS_INFO_BREAK);
  Cpu = Agent;
  ASSERT_EQ(hsa_agent_get_info(Cpu, HSA_AGENT_INFO_ISA, &Isa),
            HSA_STATUS_SUCCESS);
}

} // namespace
