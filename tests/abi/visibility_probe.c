/* Built as a loadable module with -fvisibility=hidden. API functions defined
   here must still be exported because their declarations carry HSA_API in
   its exporting form; other functions must stay hidden. Built twice: with
   OPENHSA_BUILDING_RUNTIME, and with ROCR's HSA_EXPORT* macros. */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_finalize.h>
#include <hsa/hsa_ext_image.h>

hsa_status_t hsa_init(void) { return HSA_STATUS_SUCCESS; }

hsa_status_t hsa_ext_program_destroy(hsa_ext_program_t program) {
  (void)program;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_ext_sampler_destroy(hsa_agent_t agent,
                                     hsa_ext_sampler_t sampler) {
  (void)agent;
  (void)sampler;
  return HSA_STATUS_SUCCESS;
}

/* Not part of the API: must not be visible. */
int openhsa_visibility_probe_hidden(void);
int openhsa_visibility_probe_hidden(void) { return 1; }
