/*===- tests/runtime/BadEnumCalls.h - C calls with bad enum values -*- C -*-===
 *
 * A C program may pass any int where the API takes an enum (C converts it
 * freely); the runtime must read such an argument as its integer and refuse
 * it, never load it as the C++ enum (runtime/api/EnumArg.h). These calls are
 * made from C (BadEnumCalls.c): from C++, converting the out-of-range value
 * and passing it would itself be undefined behaviour.
 *
 *===----------------------------------------------------------------------===*/
#ifndef OPENHSA_TESTS_RUNTIME_BADENUMCALLS_H
#define OPENHSA_TESTS_RUNTIME_BADENUMCALLS_H

#include "hsa/hsa.h"

#ifdef __cplusplus
extern "C" {
#endif

hsa_status_t bad_executable_create(uint32_t profile, uint32_t state);
hsa_status_t bad_executable_create_alt(uint32_t profile, uint32_t rounding);
hsa_status_t bad_program_create(uint32_t machine_model, uint32_t profile,
                                uint32_t rounding);
hsa_status_t bad_agent_get_info(hsa_agent_t agent, uint32_t attribute,
                                void *value);
hsa_status_t bad_agent_get_exception_policies(hsa_agent_t agent,
                                              uint32_t profile);
hsa_status_t bad_system_get_info(uint32_t attribute);
hsa_status_t bad_region_get_info(hsa_region_t region, uint32_t attribute);
hsa_status_t bad_isa_get_info_alt(hsa_isa_t isa, uint32_t attribute);
hsa_status_t bad_isa_get_round_method(hsa_isa_t isa, uint32_t fp_type,
                                      uint32_t flush_mode);
hsa_status_t bad_status_string(uint32_t status, const char **text);
hsa_status_t bad_memory_assign_agent(void *ptr, hsa_agent_t agent,
                                     uint32_t access);
hsa_signal_value_t bad_signal_wait(hsa_signal_t signal, uint32_t condition,
                                   uint32_t wait_state);

#ifdef __cplusplus
}
#endif

#endif
