/*
 * hsa_ext_openhsa.h - openhsa's vendor extension.
 *
 * Reached the standard way, through hsa_system_get_major_extension_table(
 * HSA_EXTENSION_OPENHSA, 1, sizeof(hsa_ext_openhsa_1_pfn_t), &table), so
 * the library still exports only hsa_* symbols.
 *
 *  - Native kernels: a C/C++ work-group function registered with a CPU
 *    agent yields a kernel object usable in kernel dispatch packets, which
 *    lets programs (and tests) use the CPU agent without the finalizer.
 *  - Agent dispatch handlers: the functions that service
 *    HSA_PACKET_TYPE_AGENT_DISPATCH packets of a given type on an agent.
 *
 * The dispatch context below is also the ABI between the CPU agent and the
 * work-group functions the finalizer emits.
 */
#ifndef OPENHSA_INCLUDE_HSA_HSA_EXT_OPENHSA_H
#define OPENHSA_INCLUDE_HSA_HSA_EXT_OPENHSA_H

#include "hsa.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Extension identifier: above the ranges the standard and AMD use. */
#define HSA_EXTENSION_OPENHSA 0x300

/* Agent attributes beyond the standard's, numbered as ROCm numbers them so
 * programs written for ROCm find them (hsa_agent_get_info). */
#define HSA_EXT_OPENHSA_AGENT_INFO_CACHELINE_SIZE 0xA001     /* uint32_t */
#define HSA_EXT_OPENHSA_AGENT_INFO_COMPUTE_UNIT_COUNT 0xA002 /* uint32_t */
#define HSA_EXT_OPENHSA_AGENT_INFO_MAX_CLOCK_FREQUENCY                         \
  0xA003                                               /* uint32_t, MHz */
#define HSA_EXT_OPENHSA_AGENT_INFO_PRODUCT_NAME 0xA009 /* char[64] */

/* What a work-group function sees of its dispatch. One context serves a
 * run of work-groups on one worker thread; the work-group's own ids are
 * the function's arguments. */
typedef struct hsa_ext_openhsa_dispatch_context_s {
  /* A copy of the dispatch packet, taken when the packet was launched. */
  const hsa_kernel_dispatch_packet_t *packet;
  /* The queue the packet came from and its index there (PRM packetid). */
  hsa_queue_t *queue;
  uint64_t packet_id;
  /* Group segment of the running work-group: static then dynamic part. */
  void *group_base;
  /* Private segment of the running work-group: private_segment_size bytes
   * for each of its work-items, work-item after work-item (flat id). */
  void *private_base;
  uint32_t group_segment_size;
  uint32_t private_segment_size;
  /* Grid geometry; unused dimensions are 1. */
  uint32_t dimensions;
  uint32_t grid_size[3];
  uint32_t workgroup_size[3];
  uint32_t grid_groups[3];
  /* The user data given when a native kernel was registered. */
  void *user_data;
  /* The worker thread running these work-groups (HSAIL cuid), from 0 to
   * max_compute_unit_id (maxcuid). */
  uint32_t compute_unit_id;
  uint32_t max_compute_unit_id;
} hsa_ext_openhsa_dispatch_context_t;

/* A work-group function: runs every work-item of work-group
 * (group_x, group_y, group_z). Work-groups at the grid's far edges may be
 * partial; the function derives their size from the context. */
typedef void (*hsa_ext_openhsa_workgroup_fn_t)(
    const void *kernarg, const hsa_ext_openhsa_dispatch_context_t *context,
    uint32_t group_x, uint32_t group_y, uint32_t group_z);

/* Parameters of a native kernel. */
typedef struct hsa_ext_openhsa_native_kernel_s {
  hsa_ext_openhsa_workgroup_fn_t workgroup_function;
  void *user_data;
  uint32_t group_segment_size;   /* Static group memory per work-group. */
  uint32_t private_segment_size; /* Private memory per work-item. */
  uint32_t kernarg_segment_size;
  uint32_t kernarg_segment_alignment; /* A power of two, at least 16. */
} hsa_ext_openhsa_native_kernel_t;

/* Services an agent dispatch packet: args are the packet's arg[] and
 * return_address its return_address. The packet completes when it returns.
 * A status other than HSA_STATUS_SUCCESS is reported through the queue's
 * error callback. */
typedef hsa_status_t (*hsa_ext_openhsa_agent_dispatch_fn_t)(
    uint16_t type, const uint64_t args[4], void *return_address, void *data);

typedef struct hsa_ext_openhsa_1_pfn_s {
  /* Registers a native kernel with a CPU kernel agent. Errors:
   * HSA_STATUS_ERROR_NOT_INITIALIZED, HSA_STATUS_ERROR_INVALID_AGENT,
   * HSA_STATUS_ERROR_INVALID_ARGUMENT (null pointers, bad alignment),
   * HSA_STATUS_ERROR_OUT_OF_RESOURCES. */
  hsa_status_t (*hsa_ext_openhsa_native_kernel_create)(
      hsa_agent_t agent, const hsa_ext_openhsa_native_kernel_t *kernel,
      uint64_t *kernel_object);
  /* Forgets a native kernel. HSA_STATUS_ERROR_INVALID_ARGUMENT for an
   * unknown kernel object. */
  hsa_status_t (*hsa_ext_openhsa_native_kernel_destroy)(uint64_t kernel_object);
  /* Installs (or with a null handler, removes) the handler of agent
   * dispatch packets of the given type on an agent whose feature is
   * HSA_AGENT_FEATURE_AGENT_DISPATCH (each CPU node has one beside its
   * kernel agent); HSA_STATUS_ERROR_INVALID_AGENT for any other agent. */
  hsa_status_t (*hsa_ext_openhsa_agent_dispatch_handler_set)(
      hsa_agent_t agent, uint16_t type,
      hsa_ext_openhsa_agent_dispatch_fn_t handler, void *data);
} hsa_ext_openhsa_1_pfn_t;

#ifdef __cplusplus
}
#endif

#endif
