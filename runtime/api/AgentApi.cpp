//===- runtime/api/AgentApi.cpp - Agents, caches, ISAs, wavefronts --------===//
#include "runtime/api/ApiCommon.h"
#include "runtime/api/EnumArg.h"
#include "runtime/api/ExtensionTables.h"

#include <cstring>

using namespace openhsa;

namespace {

/// The single wavefront kind of an ISA, one object per size: 1 to 64 lanes
/// on CPU ISAs (abi/CpuWavefront.h), 32 on GPU ISAs.
const Wavefront &wavefrontOf(const Isa &I) {
  static const Wavefront Sizes[] = {{1}, {2}, {4}, {8}, {16}, {32}, {64}};
  for (const Wavefront &W : Sizes)
    if (W.Size == I.WavefrontSize)
      return W;
  return Sizes[0];
}

bool validProfile(const hsa_profile_t &P) {
  return enumArg(P, {HSA_PROFILE_BASE, HSA_PROFILE_FULL}).has_value();
}

} // namespace

extern "C" {

hsa_status_t hsa_iterate_agents(hsa_status_t (*callback)(hsa_agent_t, void *),
                                void *data) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(callback, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  for (const auto &A : R->agents())
    if (hsa_status_t S = callback(A->handle(), data); S != HSA_STATUS_SUCCESS)
      return S;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute,
                                void *value) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Agent *A = R->agent(agent);
  OPENHSA_REQUIRE(A, HSA_STATUS_ERROR_INVALID_AGENT);
  OPENHSA_REQUIRE(value, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  return A->getInfo(enumBits(attribute), value);
}

hsa_status_t hsa_agent_get_exception_policies(hsa_agent_t agent,
                                              hsa_profile_t profile,
                                              uint16_t *mask) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Agent *A = R->agent(agent);
  OPENHSA_REQUIRE(A, HSA_STATUS_ERROR_INVALID_AGENT);
  OPENHSA_REQUIRE(mask && validProfile(profile),
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  *mask = A->defaultExceptionPolicy();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_agent_iterate_caches(hsa_agent_t agent,
                                      hsa_status_t (*callback)(hsa_cache_t,
                                                               void *),
                                      void *data) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Agent *A = R->agent(agent);
  OPENHSA_REQUIRE(A, HSA_STATUS_ERROR_INVALID_AGENT);
  OPENHSA_REQUIRE(callback, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  for (const auto &C : A->caches())
    if (hsa_status_t S = callback(C->handle(), data); S != HSA_STATUS_SUCCESS)
      return S;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_cache_get_info(hsa_cache_t cache, hsa_cache_info_t attribute,
                                void *value) {
  OPENHSA_REQUIRE_RUNTIME(R);
  const Cache *C = R->cache(cache);
  OPENHSA_REQUIRE(C, HSA_STATUS_ERROR_INVALID_CACHE);
  OPENHSA_REQUIRE(value, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  return C->getInfo(enumBits(attribute), value);
}

hsa_status_t hsa_agent_extension_supported(uint16_t extension,
                                           hsa_agent_t agent,
                                           uint16_t version_major,
                                           uint16_t version_minor,
                                           bool *result) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(R->agent(agent), HSA_STATUS_ERROR_INVALID_AGENT);
  OPENHSA_REQUIRE(result && extensionName(extension),
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  uint16_t Minor = 0;
  *result = extensionSupported(extension, version_major, &Minor) &&
            version_minor <= Minor;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_agent_major_extension_supported(uint16_t extension,
                                                 hsa_agent_t agent,
                                                 uint16_t version_major,
                                                 uint16_t *version_minor,
                                                 bool *result) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(R->agent(agent), HSA_STATUS_ERROR_INVALID_AGENT);
  OPENHSA_REQUIRE(result && version_minor && extensionName(extension),
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  *result = extensionSupported(extension, version_major, version_minor);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_agent_iterate_isas(hsa_agent_t agent,
                                    hsa_status_t (*callback)(hsa_isa_t, void *),
                                    void *data) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Agent *A = R->agent(agent);
  OPENHSA_REQUIRE(A, HSA_STATUS_ERROR_INVALID_AGENT);
  OPENHSA_REQUIRE(callback, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  for (const Isa *I : A->isas())
    if (hsa_status_t S = callback(I->handle(), data); S != HSA_STATUS_SUCCESS)
      return S;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_isa_from_name(const char *name, hsa_isa_t *isa) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(name && isa, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  for (const auto &A : R->agents())
    for (const Isa *I : A->isas())
      if (I->Name == name) {
        *isa = I->handle();
        return HSA_STATUS_SUCCESS;
      }
  return HSA_STATUS_ERROR_INVALID_ISA_NAME;
}

hsa_status_t hsa_isa_get_info(hsa_isa_t isa, hsa_isa_info_t attribute,
                              uint32_t index, void *value) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(R->isIsa(isa), HSA_STATUS_ERROR_INVALID_ISA);
  OPENHSA_REQUIRE(value, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  return Isa::fromHandle(isa)->getInfo(enumBits(attribute), index, value);
}

hsa_status_t hsa_isa_get_info_alt(hsa_isa_t isa, hsa_isa_info_t attribute,
                                  void *value) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(R->isIsa(isa), HSA_STATUS_ERROR_INVALID_ISA);
  OPENHSA_REQUIRE(value, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // The call-convention attributes need an index: only the 1.0 form has one.
  const uint32_t Attribute = enumBits(attribute);
  OPENHSA_REQUIRE(
      Attribute != HSA_ISA_INFO_CALL_CONVENTION_COUNT &&
          Attribute != HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE &&
          Attribute !=
              HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT,
      HSA_STATUS_ERROR_INVALID_ARGUMENT);
  return Isa::fromHandle(isa)->getInfo(Attribute, 0, value);
}

hsa_status_t hsa_isa_get_exception_policies(hsa_isa_t isa,
                                            hsa_profile_t profile,
                                            uint16_t *mask) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(R->isIsa(isa), HSA_STATUS_ERROR_INVALID_ISA);
  OPENHSA_REQUIRE(mask && validProfile(profile),
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  *mask = HSA_EXCEPTION_POLICY_DETECT;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_isa_get_round_method(hsa_isa_t isa, hsa_fp_type_t fp_type,
                                      hsa_flush_mode_t flush_mode,
                                      hsa_round_method_t *round_method) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(R->isIsa(isa), HSA_STATUS_ERROR_INVALID_ISA);
  OPENHSA_REQUIRE(round_method, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OPENHSA_REQUIRE(
      enumArg(fp_type, {HSA_FP_TYPE_16, HSA_FP_TYPE_32, HSA_FP_TYPE_64}),
      HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OPENHSA_REQUIRE(
      enumArg(flush_mode, {HSA_FLUSH_MODE_FTZ, HSA_FLUSH_MODE_NON_FTZ}),
      HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // Host floating point rounds each operation once (fused ops included).
  *round_method = HSA_ROUND_METHOD_SINGLE;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t
hsa_isa_iterate_wavefronts(hsa_isa_t isa,
                           hsa_status_t (*callback)(hsa_wavefront_t, void *),
                           void *data) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(R->isIsa(isa), HSA_STATUS_ERROR_INVALID_ISA);
  OPENHSA_REQUIRE(callback, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  return callback(wavefrontOf(*Isa::fromHandle(isa)).handle(), data);
}

hsa_status_t hsa_wavefront_get_info(hsa_wavefront_t wavefront,
                                    hsa_wavefront_info_t attribute,
                                    void *value) {
  OPENHSA_REQUIRE_RUNTIME(R);
  bool Known = false;
  for (const auto &A : R->agents())
    for (const Isa *I : A->isas())
      Known |= wavefrontOf(*I).handle().handle == wavefront.handle;
  OPENHSA_REQUIRE(Known, HSA_STATUS_ERROR_INVALID_WAVEFRONT);
  OPENHSA_REQUIRE(value, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OPENHSA_REQUIRE(enumBits(attribute) == HSA_WAVEFRONT_INFO_SIZE,
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  *static_cast<uint32_t *>(value) = Wavefront::fromHandle(wavefront)->Size;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_isa_compatible(hsa_isa_t code_object_isa, hsa_isa_t agent_isa,
                                bool *result) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(R->isIsa(code_object_isa) && R->isIsa(agent_isa),
                  HSA_STATUS_ERROR_INVALID_ISA);
  OPENHSA_REQUIRE(result, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  *result = Isa::fromHandle(code_object_isa)->Name ==
            Isa::fromHandle(agent_isa)->Name;
  return HSA_STATUS_SUCCESS;
}

} // extern "C"
