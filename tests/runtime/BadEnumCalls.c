/*===- tests/runtime/BadEnumCalls.c - C calls with bad enum values --------===*/
#include "BadEnumCalls.h"

#include "hsa/hsa_ext_finalize.h"

#include <stddef.h>

hsa_status_t bad_executable_create(uint32_t profile, uint32_t state) {
  hsa_executable_t e;
  return hsa_executable_create((hsa_profile_t)profile,
                               (hsa_executable_state_t)state, NULL, &e);
}

hsa_status_t bad_executable_create_alt(uint32_t profile, uint32_t rounding) {
  hsa_executable_t e;
  return hsa_executable_create_alt((hsa_profile_t)profile,
                                   (hsa_default_float_rounding_mode_t)rounding,
                                   NULL, &e);
}

hsa_status_t bad_program_create(uint32_t machine_model, uint32_t profile,
                                uint32_t rounding) {
  hsa_ext_program_t p;
  return hsa_ext_program_create(
      (hsa_machine_model_t)machine_model, (hsa_profile_t)profile,
      (hsa_default_float_rounding_mode_t)rounding, NULL, &p);
}

hsa_status_t bad_agent_get_info(hsa_agent_t agent, uint32_t attribute,
                                void *value) {
  return hsa_agent_get_info(agent, (hsa_agent_info_t)attribute, value);
}

hsa_status_t bad_agent_get_exception_policies(hsa_agent_t agent,
                                              uint32_t profile) {
  uint16_t mask;
  return hsa_agent_get_exception_policies(agent, (hsa_profile_t)profile, &mask);
}

hsa_status_t bad_system_get_info(uint32_t attribute) {
  char value[64];
  return hsa_system_get_info((hsa_system_info_t)attribute, value);
}

hsa_status_t bad_region_get_info(hsa_region_t region, uint32_t attribute) {
  char value[64];
  return hsa_region_get_info(region, (hsa_region_info_t)attribute, value);
}

hsa_status_t bad_isa_get_info_alt(hsa_isa_t isa, uint32_t attribute) {
  char value[64];
  return hsa_isa_get_info_alt(isa, (hsa_isa_info_t)attribute, value);
}

hsa_status_t bad_isa_get_round_method(hsa_isa_t isa, uint32_t fp_type,
                                      uint32_t flush_mode) {
  hsa_round_method_t method;
  return hsa_isa_get_round_method(isa, (hsa_fp_type_t)fp_type,
                                  (hsa_flush_mode_t)flush_mode, &method);
}

hsa_status_t bad_status_string(uint32_t status, const char **text) {
  return hsa_status_string((hsa_status_t)status, text);
}

hsa_status_t bad_memory_assign_agent(void *ptr, hsa_agent_t agent,
                                     uint32_t access) {
  return hsa_memory_assign_agent(ptr, agent, (hsa_access_permission_t)access);
}

hsa_signal_value_t bad_signal_wait(hsa_signal_t signal, uint32_t condition,
                                   uint32_t wait_state) {
  return hsa_signal_wait_scacquire(signal, (hsa_signal_condition_t)condition, 0,
                                   1000, (hsa_wait_state_t)wait_state);
}
