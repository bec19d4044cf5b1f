//===- runtime/api/NotAvailableApi.cpp - Entry points not implemented yet
//--===//
//
// Every function of hsa.h, hsa_ext_finalize.h and hsa_ext_image.h is
// exported from the start, so programs that resolve the whole API at load
// time load. These are the ones whose issues have not landed: each checks
// that the runtime is initialized, then returns HSA_STATUS_ERROR and says
// why on stderr (once per function). None pretends to succeed, and the
// finalizer and images extensions are reported unsupported
// (ExtensionTables.cpp).
//
// Written from the declarations by a one-off script; edit by hand as
// functions move to their real implementations.
//
//===----------------------------------------------------------------------===//
#include "runtime/api/ApiCommon.h"

#include "hsa/hsa_ext_finalize.h"
#include "hsa/hsa_ext_image.h"

using namespace openhsa;

namespace {
const char *const FinalizerIssue =
    "the HSAIL finalizer, code objects and executables arrive with the CPU "
    "finalizer";
const char *const ImagesIssue = "the images extension is not implemented yet";
} // namespace

extern "C" {

hsa_status_t hsa_code_object_deserialize(void *serialized_code_object,
                                         size_t serialized_code_object_size,
                                         const char *options,
                                         hsa_code_object_t *code_object) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_code_object_deserialize", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_code_object_destroy(hsa_code_object_t code_object) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_code_object_destroy", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_code_object_get_info(hsa_code_object_t code_object,
                                      hsa_code_object_info_t attribute,
                                      void *value) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_code_object_get_info", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_code_object_get_symbol(hsa_code_object_t code_object,
                                        const char *symbol_name,
                                        hsa_code_symbol_t *symbol) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_code_object_get_symbol", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_code_object_get_symbol_from_name(hsa_code_object_t code_object,
                                                  const char *module_name,
                                                  const char *symbol_name,
                                                  hsa_code_symbol_t *symbol) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_code_object_get_symbol_from_name",
                        HSA_STATUS_ERROR, FinalizerIssue);
}

hsa_status_t hsa_code_object_iterate_symbols(
    hsa_code_object_t code_object,
    hsa_status_t (*callback)(hsa_code_object_t code_object,
                             hsa_code_symbol_t symbol, void *data),
    void *data) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_code_object_iterate_symbols", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_code_object_reader_create_from_file(
    hsa_file_t file, hsa_code_object_reader_t *code_object_reader) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_code_object_reader_create_from_file",
                        HSA_STATUS_ERROR, FinalizerIssue);
}

hsa_status_t hsa_code_object_reader_create_from_memory(
    const void *code_object, size_t size,
    hsa_code_object_reader_t *code_object_reader) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_code_object_reader_create_from_memory",
                        HSA_STATUS_ERROR, FinalizerIssue);
}

hsa_status_t
hsa_code_object_reader_destroy(hsa_code_object_reader_t code_object_reader) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_code_object_reader_destroy", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_code_object_serialize(
    hsa_code_object_t code_object,
    hsa_status_t (*alloc_callback)(size_t size, hsa_callback_data_t data,
                                   void **address),
    hsa_callback_data_t callback_data, const char *options,
    void **serialized_code_object, size_t *serialized_code_object_size) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_code_object_serialize", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_code_symbol_get_info(hsa_code_symbol_t code_symbol,
                                      hsa_code_symbol_info_t attribute,
                                      void *value) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_code_symbol_get_info", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_executable_agent_global_variable_define(
    hsa_executable_t executable, hsa_agent_t agent, const char *variable_name,
    void *address) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_executable_agent_global_variable_define",
                        HSA_STATUS_ERROR, FinalizerIssue);
}

hsa_status_t hsa_executable_create(hsa_profile_t profile,
                                   hsa_executable_state_t executable_state,
                                   const char *options,
                                   hsa_executable_t *executable) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_executable_create", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_executable_create_alt(
    hsa_profile_t profile,
    hsa_default_float_rounding_mode_t default_float_rounding_mode,
    const char *options, hsa_executable_t *executable) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_executable_create_alt", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_executable_destroy(hsa_executable_t executable) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_executable_destroy", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_executable_freeze(hsa_executable_t executable,
                                   const char *options) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_executable_freeze", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_executable_get_info(hsa_executable_t executable,
                                     hsa_executable_info_t attribute,
                                     void *value) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_executable_get_info", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_executable_get_symbol(hsa_executable_t executable,
                                       const char *module_name,
                                       const char *symbol_name,
                                       hsa_agent_t agent,
                                       int32_t call_convention,
                                       hsa_executable_symbol_t *symbol) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_executable_get_symbol", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_executable_get_symbol_by_name(
    hsa_executable_t executable, const char *symbol_name,
    const hsa_agent_t *agent, hsa_executable_symbol_t *symbol) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_executable_get_symbol_by_name", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_executable_global_variable_define(hsa_executable_t executable,
                                                   const char *variable_name,
                                                   void *address) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_executable_global_variable_define",
                        HSA_STATUS_ERROR, FinalizerIssue);
}

hsa_status_t hsa_executable_iterate_agent_symbols(
    hsa_executable_t executable, hsa_agent_t agent,
    hsa_status_t (*callback)(hsa_executable_t exec, hsa_agent_t agent,
                             hsa_executable_symbol_t symbol, void *data),
    void *data) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_executable_iterate_agent_symbols",
                        HSA_STATUS_ERROR, FinalizerIssue);
}

hsa_status_t hsa_executable_iterate_program_symbols(
    hsa_executable_t executable,
    hsa_status_t (*callback)(hsa_executable_t exec,
                             hsa_executable_symbol_t symbol, void *data),
    void *data) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_executable_iterate_program_symbols",
                        HSA_STATUS_ERROR, FinalizerIssue);
}

hsa_status_t hsa_executable_iterate_symbols(
    hsa_executable_t executable,
    hsa_status_t (*callback)(hsa_executable_t exec,
                             hsa_executable_symbol_t symbol, void *data),
    void *data) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_executable_iterate_symbols", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_executable_load_agent_code_object(
    hsa_executable_t executable, hsa_agent_t agent,
    hsa_code_object_reader_t code_object_reader, const char *options,
    hsa_loaded_code_object_t *loaded_code_object) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_executable_load_agent_code_object",
                        HSA_STATUS_ERROR, FinalizerIssue);
}

hsa_status_t hsa_executable_load_code_object(hsa_executable_t executable,
                                             hsa_agent_t agent,
                                             hsa_code_object_t code_object,
                                             const char *options) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_executable_load_code_object", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_executable_load_program_code_object(
    hsa_executable_t executable, hsa_code_object_reader_t code_object_reader,
    const char *options, hsa_loaded_code_object_t *loaded_code_object) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_executable_load_program_code_object",
                        HSA_STATUS_ERROR, FinalizerIssue);
}

hsa_status_t hsa_executable_readonly_variable_define(
    hsa_executable_t executable, hsa_agent_t agent, const char *variable_name,
    void *address) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_executable_readonly_variable_define",
                        HSA_STATUS_ERROR, FinalizerIssue);
}

hsa_status_t
hsa_executable_symbol_get_info(hsa_executable_symbol_t executable_symbol,
                               hsa_executable_symbol_info_t attribute,
                               void *value) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_executable_symbol_get_info", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_executable_validate(hsa_executable_t executable,
                                     uint32_t *result) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_executable_validate", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_executable_validate_alt(hsa_executable_t executable,
                                         const char *options,
                                         uint32_t *result) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_executable_validate_alt", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_ext_image_clear(hsa_agent_t agent, hsa_ext_image_t image,
                                 const void *data,
                                 const hsa_ext_image_region_t *image_region) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_ext_image_clear", HSA_STATUS_ERROR, ImagesIssue);
}

hsa_status_t hsa_ext_image_copy(hsa_agent_t agent, hsa_ext_image_t src_image,
                                const hsa_dim3_t *src_offset,
                                hsa_ext_image_t dst_image,
                                const hsa_dim3_t *dst_offset,
                                const hsa_dim3_t *range) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_ext_image_copy", HSA_STATUS_ERROR, ImagesIssue);
}

hsa_status_t hsa_ext_image_create(
    hsa_agent_t agent, const hsa_ext_image_descriptor_t *image_descriptor,
    const void *image_data, hsa_access_permission_t access_permission,
    hsa_ext_image_t *image) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_ext_image_create", HSA_STATUS_ERROR, ImagesIssue);
}

hsa_status_t hsa_ext_image_create_with_layout(
    hsa_agent_t agent, const hsa_ext_image_descriptor_t *image_descriptor,
    const void *image_data, hsa_access_permission_t access_permission,
    hsa_ext_image_data_layout_t image_data_layout, size_t image_data_row_pitch,
    size_t image_data_slice_pitch, hsa_ext_image_t *image) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_ext_image_create_with_layout", HSA_STATUS_ERROR,
                        ImagesIssue);
}

hsa_status_t
hsa_ext_image_data_get_info(hsa_agent_t agent,
                            const hsa_ext_image_descriptor_t *image_descriptor,
                            hsa_access_permission_t access_permission,
                            hsa_ext_image_data_info_t *image_data_info) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_ext_image_data_get_info", HSA_STATUS_ERROR,
                        ImagesIssue);
}

hsa_status_t hsa_ext_image_data_get_info_with_layout(
    hsa_agent_t agent, const hsa_ext_image_descriptor_t *image_descriptor,
    hsa_access_permission_t access_permission,
    hsa_ext_image_data_layout_t image_data_layout, size_t image_data_row_pitch,
    size_t image_data_slice_pitch, hsa_ext_image_data_info_t *image_data_info) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_ext_image_data_get_info_with_layout",
                        HSA_STATUS_ERROR, ImagesIssue);
}

hsa_status_t hsa_ext_image_destroy(hsa_agent_t agent, hsa_ext_image_t image) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_ext_image_destroy", HSA_STATUS_ERROR, ImagesIssue);
}

hsa_status_t hsa_ext_image_export(hsa_agent_t agent, hsa_ext_image_t src_image,
                                  void *dst_memory, size_t dst_row_pitch,
                                  size_t dst_slice_pitch,
                                  const hsa_ext_image_region_t *image_region) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_ext_image_export", HSA_STATUS_ERROR, ImagesIssue);
}

hsa_status_t hsa_ext_image_get_capability(
    hsa_agent_t agent, hsa_ext_image_geometry_t geometry,
    const hsa_ext_image_format_t *image_format, uint32_t *capability_mask) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_ext_image_get_capability", HSA_STATUS_ERROR,
                        ImagesIssue);
}

hsa_status_t hsa_ext_image_get_capability_with_layout(
    hsa_agent_t agent, hsa_ext_image_geometry_t geometry,
    const hsa_ext_image_format_t *image_format,
    hsa_ext_image_data_layout_t image_data_layout, uint32_t *capability_mask) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_ext_image_get_capability_with_layout",
                        HSA_STATUS_ERROR, ImagesIssue);
}

hsa_status_t hsa_ext_image_import(hsa_agent_t agent, const void *src_memory,
                                  size_t src_row_pitch, size_t src_slice_pitch,
                                  hsa_ext_image_t dst_image,
                                  const hsa_ext_image_region_t *image_region) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_ext_image_import", HSA_STATUS_ERROR, ImagesIssue);
}

hsa_status_t hsa_ext_program_add_module(hsa_ext_program_t program,
                                        hsa_ext_module_t module) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_ext_program_add_module", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_ext_program_create(
    hsa_machine_model_t machine_model, hsa_profile_t profile,
    hsa_default_float_rounding_mode_t default_float_rounding_mode,
    const char *options, hsa_ext_program_t *program) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_ext_program_create", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_ext_program_destroy(hsa_ext_program_t program) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_ext_program_destroy", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_ext_program_finalize(
    hsa_ext_program_t program, hsa_isa_t isa, int32_t call_convention,
    hsa_ext_control_directives_t control_directives, const char *options,
    hsa_code_object_type_t code_object_type, hsa_code_object_t *code_object) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_ext_program_finalize", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_ext_program_get_info(hsa_ext_program_t program,
                                      hsa_ext_program_info_t attribute,
                                      void *value) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_ext_program_get_info", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t hsa_ext_program_iterate_modules(
    hsa_ext_program_t program,
    hsa_status_t (*callback)(hsa_ext_program_t program, hsa_ext_module_t module,
                             void *data),
    void *data) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_ext_program_iterate_modules", HSA_STATUS_ERROR,
                        FinalizerIssue);
}

hsa_status_t
hsa_ext_sampler_create(hsa_agent_t agent,
                       const hsa_ext_sampler_descriptor_t *sampler_descriptor,
                       hsa_ext_sampler_t *sampler) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_ext_sampler_create", HSA_STATUS_ERROR,
                        ImagesIssue);
}

hsa_status_t hsa_ext_sampler_destroy(hsa_agent_t agent,
                                     hsa_ext_sampler_t sampler) {
  OPENHSA_REQUIRE_RUNTIME(R);
  return notImplemented("hsa_ext_sampler_destroy", HSA_STATUS_ERROR,
                        ImagesIssue);
}

} // extern "C"
