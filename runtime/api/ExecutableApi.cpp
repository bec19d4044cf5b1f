//===- runtime/api/ExecutableApi.cpp - Executables and their symbols ------===//
//
// hsa_executable_*: create, load (1.0 code objects and 1.1 readers), define
// external variables, freeze, validate, and the symbol queries. The work is
// in runtime/Executable.h; here are the argument and handle checks.
//
//===----------------------------------------------------------------------===//
#include "runtime/api/ApiCommon.h"
#include "runtime/api/EnumArg.h"

#include "runtime/CodeObjectStore.h"
#include "runtime/Executable.h"

#include <string>

using namespace openhsa;

namespace {

/// Parses a reader's bytes into a code object.
hsa_status_t readCodeObject(const CodeObjectReader &Reader,
                            std::shared_ptr<const finalizer::CodeObject> &Out) {
  auto CO = finalizer::CodeObject::deserialize(Reader.bytes());
  if (!CO) {
    llvm::consumeError(CO.takeError());
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  }
  Out = std::make_shared<const finalizer::CodeObject>(std::move(*CO));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t defineVariable(hsa_executable_t executable,
                            const hsa_agent_t *agent,
                            hsa_variable_segment_t Segment,
                            const char *variable_name, void *address) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Executable *E = R->codeObjects().executable(executable);
  OPENHSA_REQUIRE(E, HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  const Agent *A = nullptr;
  if (agent) {
    A = R->agent(*agent);
    OPENHSA_REQUIRE(A, HSA_STATUS_ERROR_INVALID_AGENT);
  }
  OPENHSA_REQUIRE(variable_name, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  return E->defineVariable(A, Segment, variable_name, address);
}

using SymbolCallback = hsa_status_t (*)(hsa_executable_t,
                                        hsa_executable_symbol_t, void *);

} // namespace

extern "C" {

hsa_status_t hsa_executable_create(hsa_profile_t profile,
                                   hsa_executable_state_t executable_state,
                                   const char *options,
                                   hsa_executable_t *executable) {
  OPENHSA_REQUIRE_RUNTIME(R);
  auto Profile = enumArg(profile, {HSA_PROFILE_BASE, HSA_PROFILE_FULL});
  auto State = enumArg(executable_state, {HSA_EXECUTABLE_STATE_UNFROZEN,
                                          HSA_EXECUTABLE_STATE_FROZEN});
  OPENHSA_REQUIRE(Profile && State && executable,
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // The 1.0 form names no rounding mode: code objects bring theirs.
  Executable *E = R->codeObjects().Executables.add(std::make_unique<Executable>(
      R->codeObjects(), *Profile, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
      *State == HSA_EXECUTABLE_STATE_FROZEN));
  *executable = E->handle();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_create_alt(
    hsa_profile_t profile,
    hsa_default_float_rounding_mode_t default_float_rounding_mode,
    const char *options, hsa_executable_t *executable) {
  OPENHSA_REQUIRE_RUNTIME(R);
  auto Profile = enumArg(profile, {HSA_PROFILE_BASE, HSA_PROFILE_FULL});
  auto Rounding = enumArg(default_float_rounding_mode,
                          {HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO,
                           HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR});
  OPENHSA_REQUIRE(Profile && Rounding && executable,
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  Executable *E = R->codeObjects().Executables.add(std::make_unique<Executable>(
      R->codeObjects(), *Profile, *Rounding, false));
  *executable = E->handle();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_destroy(hsa_executable_t executable) {
  OPENHSA_REQUIRE_RUNTIME(R);
  std::unique_ptr<Executable> E = R->codeObjects().Executables.take(
      reinterpret_cast<const void *>(executable.handle));
  OPENHSA_REQUIRE(E, HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_load_code_object(hsa_executable_t executable,
                                             hsa_agent_t agent,
                                             hsa_code_object_t code_object,
                                             const char *options) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Executable *E = R->codeObjects().executable(executable);
  OPENHSA_REQUIRE(E, HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  const Agent *A = R->agent(agent);
  OPENHSA_REQUIRE(A, HSA_STATUS_ERROR_INVALID_AGENT);
  StoredCodeObject *CO = R->codeObjects().codeObject(code_object);
  OPENHSA_REQUIRE(CO, HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  return E->load(A, CO->Object, nullptr);
}

hsa_status_t hsa_executable_load_program_code_object(
    hsa_executable_t executable, hsa_code_object_reader_t code_object_reader,
    const char *options, hsa_loaded_code_object_t *loaded_code_object) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Executable *E = R->codeObjects().executable(executable);
  OPENHSA_REQUIRE(E, HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  OPENHSA_REQUIRE(!E->frozen(), HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  CodeObjectReader *Reader = R->codeObjects().reader(code_object_reader);
  OPENHSA_REQUIRE(Reader, HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
  std::shared_ptr<const finalizer::CodeObject> CO;
  if (hsa_status_t S = readCodeObject(*Reader, CO); S != HSA_STATUS_SUCCESS)
    return S;
  return E->load(nullptr, std::move(CO), loaded_code_object);
}

hsa_status_t hsa_executable_load_agent_code_object(
    hsa_executable_t executable, hsa_agent_t agent,
    hsa_code_object_reader_t code_object_reader, const char *options,
    hsa_loaded_code_object_t *loaded_code_object) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Executable *E = R->codeObjects().executable(executable);
  OPENHSA_REQUIRE(E, HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  OPENHSA_REQUIRE(!E->frozen(), HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
  const Agent *A = R->agent(agent);
  OPENHSA_REQUIRE(A, HSA_STATUS_ERROR_INVALID_AGENT);
  CodeObjectReader *Reader = R->codeObjects().reader(code_object_reader);
  OPENHSA_REQUIRE(Reader, HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
  std::shared_ptr<const finalizer::CodeObject> CO;
  if (hsa_status_t S = readCodeObject(*Reader, CO); S != HSA_STATUS_SUCCESS)
    return S;
  return E->load(A, std::move(CO), loaded_code_object);
}

hsa_status_t hsa_executable_freeze(hsa_executable_t executable,
                                   const char *options) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Executable *E = R->codeObjects().executable(executable);
  OPENHSA_REQUIRE(E, HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  return E->freeze();
}

hsa_status_t hsa_executable_get_info(hsa_executable_t executable,
                                     hsa_executable_info_t attribute,
                                     void *value) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Executable *E = R->codeObjects().executable(executable);
  OPENHSA_REQUIRE(E, HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  OPENHSA_REQUIRE(value, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  return E->getInfo(enumBits(attribute), value);
}

hsa_status_t hsa_executable_global_variable_define(hsa_executable_t executable,
                                                   const char *variable_name,
                                                   void *address) {
  return defineVariable(executable, nullptr, HSA_VARIABLE_SEGMENT_GLOBAL,
                        variable_name, address);
}

hsa_status_t hsa_executable_agent_global_variable_define(
    hsa_executable_t executable, hsa_agent_t agent, const char *variable_name,
    void *address) {
  return defineVariable(executable, &agent, HSA_VARIABLE_SEGMENT_GLOBAL,
                        variable_name, address);
}

hsa_status_t hsa_executable_readonly_variable_define(
    hsa_executable_t executable, hsa_agent_t agent, const char *variable_name,
    void *address) {
  return defineVariable(executable, &agent, HSA_VARIABLE_SEGMENT_READONLY,
                        variable_name, address);
}

hsa_status_t hsa_executable_validate(hsa_executable_t executable,
                                     uint32_t *result) {
  return hsa_executable_validate_alt(executable, nullptr, result);
}

hsa_status_t hsa_executable_validate_alt(hsa_executable_t executable,
                                         const char *options,
                                         uint32_t *result) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Executable *E = R->codeObjects().executable(executable);
  OPENHSA_REQUIRE(E, HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  OPENHSA_REQUIRE(result, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  *result = E->validate();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_get_symbol(hsa_executable_t executable,
                                       const char *module_name,
                                       const char *symbol_name,
                                       hsa_agent_t agent,
                                       int32_t call_convention,
                                       hsa_executable_symbol_t *symbol) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Executable *E = R->codeObjects().executable(executable);
  OPENHSA_REQUIRE(E, HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  OPENHSA_REQUIRE(symbol_name && symbol, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  std::string Key = symbol_name;
  if (module_name && *module_name)
    Key = std::string(module_name) + "::" + Key;
  // The agent is only compared with those of the symbols, never followed.
  const ExecutableSymbol *S = E->find(Key, Agent::fromHandle(agent));
  OPENHSA_REQUIRE(S, HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  *symbol = S->handle();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_get_symbol_by_name(
    hsa_executable_t executable, const char *symbol_name,
    const hsa_agent_t *agent, hsa_executable_symbol_t *symbol) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Executable *E = R->codeObjects().executable(executable);
  OPENHSA_REQUIRE(E, HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  OPENHSA_REQUIRE(symbol_name && symbol, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // Without an agent, only program-allocation variables are found.
  const ExecutableSymbol *S =
      E->find(symbol_name, agent ? Agent::fromHandle(*agent) : nullptr);
  OPENHSA_REQUIRE(S, HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  *symbol = S->handle();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t
hsa_executable_symbol_get_info(hsa_executable_symbol_t executable_symbol,
                               hsa_executable_symbol_info_t attribute,
                               void *value) {
  OPENHSA_REQUIRE_RUNTIME(R);
  const ExecutableSymbol *S =
      R->codeObjects().executableSymbol(executable_symbol);
  OPENHSA_REQUIRE(S, HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL);
  OPENHSA_REQUIRE(value, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  return S->getInfo(enumBits(attribute), value);
}

hsa_status_t hsa_executable_iterate_symbols(hsa_executable_t executable,
                                            SymbolCallback callback,
                                            void *data) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Executable *E = R->codeObjects().executable(executable);
  OPENHSA_REQUIRE(E, HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  OPENHSA_REQUIRE(callback, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // A snapshot, so the callback may query the executable.
  for (const ExecutableSymbol *S : E->symbols())
    if (hsa_status_t St = callback(executable, S->handle(), data);
        St != HSA_STATUS_SUCCESS)
      return St;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_iterate_agent_symbols(
    hsa_executable_t executable, hsa_agent_t agent,
    hsa_status_t (*callback)(hsa_executable_t exec, hsa_agent_t agent,
                             hsa_executable_symbol_t symbol, void *data),
    void *data) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Executable *E = R->codeObjects().executable(executable);
  OPENHSA_REQUIRE(E, HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  const Agent *A = R->agent(agent);
  OPENHSA_REQUIRE(A, HSA_STATUS_ERROR_INVALID_AGENT);
  OPENHSA_REQUIRE(callback, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // Kernels, indirect functions and agent-allocation variables of agent.
  for (const ExecutableSymbol *S : E->symbols())
    if (S->Owning == A)
      if (hsa_status_t St = callback(executable, agent, S->handle(), data);
          St != HSA_STATUS_SUCCESS)
        return St;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_iterate_program_symbols(hsa_executable_t executable,
                                                    SymbolCallback callback,
                                                    void *data) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Executable *E = R->codeObjects().executable(executable);
  OPENHSA_REQUIRE(E, HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  OPENHSA_REQUIRE(callback, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // Program-allocation variables.
  for (const ExecutableSymbol *S : E->symbols())
    if (!S->Owning)
      if (hsa_status_t St = callback(executable, S->handle(), data);
          St != HSA_STATUS_SUCCESS)
        return St;
  return HSA_STATUS_SUCCESS;
}

} // extern "C"
