/* Compiled as ISO C99 with -pedantic-errors -Werror: the public headers
   must be valid C for C applications and for C-only runtimes. */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_finalize.h>
#include <hsa/hsa_ext_image.h>

#include <stddef.h>

/* C99 has no _Static_assert: a negative array size fails the build. */
#define C99_CHECK(name, cond) typedef char c99_check_##name[(cond) ? 1 : -1]

C99_CHECK(queue, sizeof(hsa_queue_t) == 40);
C99_CHECK(kernel_dispatch, sizeof(hsa_kernel_dispatch_packet_t) == 64);
C99_CHECK(agent_dispatch, sizeof(hsa_agent_dispatch_packet_t) == 64);
C99_CHECK(barrier_and, sizeof(hsa_barrier_and_packet_t) == 64);
C99_CHECK(barrier_or, sizeof(hsa_barrier_or_packet_t) == 64);
C99_CHECK(completion,
          offsetof(hsa_kernel_dispatch_packet_t, completion_signal) == 56);
C99_CHECK(doorbell, offsetof(hsa_queue_t, doorbell_signal) == 16);
C99_CHECK(directives, sizeof(hsa_ext_control_directives_t) == 144);
C99_CHECK(sampler, sizeof(hsa_ext_sampler_descriptor_t) == 12);
C99_CHECK(region, sizeof(hsa_ext_image_region_t) == 24);
C99_CHECK(enum_size, sizeof(hsa_status_t) == 4);

/* Uses a few declarations the way a C application would. */
hsa_status_t openhsa_c99_check_use(hsa_agent_t agent);
hsa_status_t openhsa_c99_check_use(hsa_agent_t agent) {
  hsa_ext_finalizer_1_00_pfn_t finalizer;
  hsa_ext_images_1_pfn_t images;
  bool supported = false;
  uint16_t minor = 0;
  finalizer.hsa_ext_program_destroy = hsa_ext_program_destroy;
  images.hsa_ext_image_create_with_layout = hsa_ext_image_create_with_layout;
  (void)finalizer;
  (void)images;
  (void)agent;
  (void)supported;
  (void)minor;
  return HSA_STATUS_SUCCESS;
}
