//===- runtime/api/NotAvailableApi.cpp - Entry points not implemented yet
//--===//
//
// Every function of hsa.h, hsa_ext_finalize.h and hsa_ext_image.h is
// exported from the start, so programs that resolve the whole API at load
// time load. These are the ones whose issues have not landed (the images
// extension): each checks that the runtime is initialized, then returns
// HSA_STATUS_ERROR and says why (a warning, once per function, shown with
// OPENHSA_DEBUG=warning). None
// pretends to succeed, and the images extension is reported unsupported
// (ExtensionTables.cpp).
//
// Written from the declarations by a one-off script; edit by hand as
// functions move to their real implementations.
//
//===----------------------------------------------------------------------===//
#include "runtime/api/ApiCommon.h"

#include "hsa/hsa_ext_image.h"

using namespace openhsa;

namespace {
const char *const ImagesIssue = "the images extension is not implemented yet";
} // namespace

extern "C" {

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
