//===- runtime/api/FinalizerApi.cpp - HSAIL programs (hsa_ext_finalize.h) -===//
//
// hsa_ext_program_*: programs collect BRIG modules (runtime/Program.h);
// hsa_ext_program_finalize runs the CPU finalizer (finalizer/Finalizer.h)
// and registers the code object it produces.
//
//===----------------------------------------------------------------------===//
#include "runtime/api/ApiCommon.h"
#include "runtime/api/EnumArg.h"

#include "finalizer/Finalizer.h"
#include "finalizer/GpuTarget.h"
#include "hsa/hsa_ext_finalize.h"
#include "runtime/CodeObjectStore.h"
#include "runtime/Program.h"
#include "runtime/core/Log.h"

#include <cstring>

using namespace openhsa;

namespace {

/// Bits of control_directives_mask: 1 << BrigControlDirective, for
/// BRIG_CONTROL_ENABLEBREAKEXCEPTIONS (1) to
/// BRIG_CONTROL_REQUIRENOPARTIALWORKGROUPS (9).
constexpr uint64_t bit(unsigned Control) { return uint64_t(1) << Control; }
constexpr unsigned MaxDynamicGroupSize = 3, MaxFlatGridSize = 4,
                   MaxFlatWorkgroupSize = 5, RequiredDim = 6,
                   RequiredGridSize = 7, RequiredWorkgroupSize = 8;
constexpr uint64_t KnownControls = 0x3fe; // Bits 1..9.

/// Translates the application's control directives; false when the
/// structure itself is malformed (reserved fields set, unknown directives,
/// values no dispatch could satisfy).
bool translateDirectives(const hsa_ext_control_directives_t &In,
                         finalizer::ControlDirectives &Out) {
  if (In.control_directives_mask & ~KnownControls || In.reserved1 != 0)
    return false;
  for (uint8_t B : In.reserved2)
    if (B != 0)
      return false;
  const uint64_t Mask = In.control_directives_mask;
  Out.ControlDirectivesMask = Mask;
  Out.BreakExceptions = In.break_exceptions_mask;
  Out.DetectExceptions = In.detect_exceptions_mask;
  if (Mask & bit(MaxDynamicGroupSize))
    Out.MaxDynamicGroupSize = In.max_dynamic_group_size;
  if (Mask & bit(MaxFlatGridSize)) {
    if (In.max_flat_grid_size == 0)
      return false;
    Out.MaxFlatGridSize = In.max_flat_grid_size;
  }
  if (Mask & bit(MaxFlatWorkgroupSize)) {
    if (In.max_flat_workgroup_size == 0)
      return false;
    Out.MaxFlatWorkgroupSize = In.max_flat_workgroup_size;
  }
  if (Mask & bit(RequiredDim)) {
    if (In.required_dim < 1 || In.required_dim > 3)
      return false;
    Out.RequiredDim = In.required_dim;
  }
  if (Mask & bit(RequiredGridSize))
    for (int D = 0; D < 3; ++D) {
      // A grid dimension is a 32-bit value in a dispatch packet.
      if (In.required_grid_size[D] == 0 ||
          In.required_grid_size[D] > UINT32_MAX)
        return false;
      Out.RequiredGridSize[D] = uint32_t(In.required_grid_size[D]);
    }
  if (Mask & bit(RequiredWorkgroupSize)) {
    const uint32_t W[3] = {In.required_workgroup_size.x,
                           In.required_workgroup_size.y,
                           In.required_workgroup_size.z};
    for (int D = 0; D < 3; ++D) {
      if (W[D] == 0 || W[D] > UINT16_MAX)
        return false;
      Out.RequiredWorkgroupSize[D] = W[D];
    }
  }
  return true;
}

} // namespace

extern "C" {

hsa_status_t hsa_ext_program_create(
    hsa_machine_model_t machine_model, hsa_profile_t profile,
    hsa_default_float_rounding_mode_t default_float_rounding_mode,
    const char *options, hsa_ext_program_t *program) {
  OPENHSA_REQUIRE_RUNTIME(R);
  auto Model = enumArg(machine_model,
                       {HSA_MACHINE_MODEL_SMALL, HSA_MACHINE_MODEL_LARGE});
  auto Profile = enumArg(profile, {HSA_PROFILE_BASE, HSA_PROFILE_FULL});
  auto Rounding = enumArg(default_float_rounding_mode,
                          {HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                           HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO,
                           HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR});
  OPENHSA_REQUIRE(Model && Profile && Rounding && program,
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  Program *P = R->codeObjects().Programs.add(std::make_unique<Program>(
      *Model, *Profile, *Rounding, options ? options : ""));
  *program = P->handle();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_ext_program_destroy(hsa_ext_program_t program) {
  OPENHSA_REQUIRE_RUNTIME(R);
  std::unique_ptr<Program> P = R->codeObjects().Programs.take(
      reinterpret_cast<const void *>(program.handle));
  OPENHSA_REQUIRE(P, hsa_status_t(HSA_EXT_STATUS_ERROR_INVALID_PROGRAM));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_ext_program_add_module(hsa_ext_program_t program,
                                        hsa_ext_module_t module) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Program *P = R->codeObjects().program(program);
  OPENHSA_REQUIRE(P, hsa_status_t(HSA_EXT_STATUS_ERROR_INVALID_PROGRAM));
  return P->addModule(module);
}

hsa_status_t hsa_ext_program_iterate_modules(
    hsa_ext_program_t program,
    hsa_status_t (*callback)(hsa_ext_program_t program, hsa_ext_module_t module,
                             void *data),
    void *data) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Program *P = R->codeObjects().program(program);
  OPENHSA_REQUIRE(P, hsa_status_t(HSA_EXT_STATUS_ERROR_INVALID_PROGRAM));
  OPENHSA_REQUIRE(callback, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // A snapshot: the callback may add modules to the program.
  for (hsa_ext_module_t M : P->modules())
    if (hsa_status_t S = callback(program, M, data); S != HSA_STATUS_SUCCESS)
      return S;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_ext_program_get_info(hsa_ext_program_t program,
                                      hsa_ext_program_info_t attribute,
                                      void *value) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Program *P = R->codeObjects().program(program);
  OPENHSA_REQUIRE(P, hsa_status_t(HSA_EXT_STATUS_ERROR_INVALID_PROGRAM));
  OPENHSA_REQUIRE(value, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  return P->getInfo(enumBits(attribute), value);
}

hsa_status_t hsa_ext_program_finalize(
    hsa_ext_program_t program, hsa_isa_t isa, int32_t call_convention,
    hsa_ext_control_directives_t control_directives, const char *options,
    hsa_code_object_type_t code_object_type, hsa_code_object_t *code_object) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Program *P = R->codeObjects().program(program);
  OPENHSA_REQUIRE(P, hsa_status_t(HSA_EXT_STATUS_ERROR_INVALID_PROGRAM));
  OPENHSA_REQUIRE(R->isIsa(isa), HSA_STATUS_ERROR_INVALID_ISA);
  const Isa &Target = *Isa::fromHandle(isa);
  // The finalizer produces code for the host CPU and for GPU agents.
  OPENHSA_REQUIRE(Target.Name == finalizer::hostIsaName() ||
                      finalizer::gpuIsaVersion(Target.Name),
                  HSA_STATUS_ERROR_INVALID_ISA);
  uint32_t Conventions = 0;
  Target.getInfo(HSA_ISA_INFO_CALL_CONVENTION_COUNT, 0, &Conventions);
  OPENHSA_REQUIRE(
      code_object &&
          enumArg(code_object_type, {HSA_CODE_OBJECT_TYPE_PROGRAM}) &&
          call_convention >= HSA_EXT_FINALIZER_CALL_CONVENTION_AUTO &&
          (call_convention < 0 || uint32_t(call_convention) < Conventions),
      HSA_STATUS_ERROR_INVALID_ARGUMENT);
  finalizer::ControlDirectives Directives;
  OPENHSA_REQUIRE(translateDirectives(control_directives, Directives),
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);

  auto CO = P->finalize(Target.Name, Directives, options ? options : "");
  if (!CO) {
    // The message names the instruction and its BRIG offset.
    log::write(log::Level::Error, "finalization failed: %s",
               llvm::toString(CO.takeError()).c_str());
    return hsa_status_t(HSA_EXT_STATUS_ERROR_FINALIZATION_FAILED);
  }
  *code_object = R->codeObjects().addCodeObject(std::move(*CO))->handle();
  return HSA_STATUS_SUCCESS;
}

} // extern "C"
