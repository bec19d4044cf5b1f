// Compiled as C++11 with -pedantic-errors -Werror: the public headers must
// stay usable from pre-C++20 code.
#include <hsa/hsa.h>
#include <hsa/hsa_ext_finalize.h>
#include <hsa/hsa_ext_image.h>

#include <cstddef>

static_assert(__cplusplus >= 201103L && __cplusplus < 201402L,
              "this file checks C++11 specifically");
static_assert(sizeof(hsa_kernel_dispatch_packet_t) == 64, "packet size");
static_assert(offsetof(hsa_queue_t, doorbell_signal) == 16, "doorbell");

extern "C" hsa_status_t openhsa_cxx11_check_use(hsa_agent_t agent) {
  hsa_ext_images_1_00_pfn_t images{};
  images.hsa_ext_sampler_destroy = &hsa_ext_sampler_destroy;
  (void)images;
  (void)agent;
  return HSA_STATUS_SUCCESS;
}
