/*
 * hsa_example.h - the steps every HSAIL example takes, with the standard
 * HSA API only: find a kernel agent, read a BRIG file, finalize it into an
 * executable, get a kernel object, dispatch it and wait.
 */
#ifndef OPENHSA_EXAMPLES_HSA_EXAMPLE_H
#define OPENHSA_EXAMPLES_HSA_EXAMPLE_H

#include <hsa/hsa.h>
#include <hsa/hsa_ext_finalize.h>

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Prints the failing call with the runtime's explanation and exits. */
void example_check(hsa_status_t status, const char *what, const char *file,
                   int line);
#define CHECK(call) example_check((call), #call, __FILE__, __LINE__)

typedef struct {
  hsa_agent_t agent;
  char agent_name[64];
  hsa_region_t kernarg_region; /* Kernel arguments. */
  hsa_region_t data_region;    /* Buffers (global, fine-grained). */
  hsa_queue_t *queue;
  hsa_executable_t executable;
  hsa_code_object_t code_object;
} example_t;

/* Takes "--agent cpu|gpu|N" out of argv (N: the agent's number, as
 * openhsa-info prints it) and returns its value; "cpu" without one. */
const char *example_agent_option(int *argc, char **argv);

/* hsa_init, the kernel agent `agent` names (cpu: the first CPU kernel
 * agent, gpu: the first GPU, or a number), its regions and a queue. */
void example_init(example_t *ex, const char *agent);

/* Reads brig_path, finalizes it for the agent and loads it. Returns the
 * finalization time in seconds. */
double example_load(example_t *ex, const char *brig_path);

/* As example_load, telling the finalizer the only work-group shape the
 * program dispatches with (the control directive requiredworkgroupsize)
 * and, if whole_groups, that every grid is a multiple of it
 * (requirenopartialworkgroups): code for that shape alone, which
 * finalizes faster, and dispatches of other shapes are refused. */
double example_load_shaped(example_t *ex, const char *brig_path,
                           const uint16_t group[3], int whole_groups);

typedef struct {
  uint64_t object;
  uint32_t kernarg_size;
  uint32_t group_size;
  uint32_t private_size;
} example_kernel_t;

example_kernel_t example_kernel(example_t *ex, const char *name);

void *example_alloc(example_t *ex, size_t size);
void *example_kernarg(example_t *ex, const example_kernel_t *k);

/* Dispatches and waits; returns the seconds between doorbell and
 * completion. */
double example_dispatch(example_t *ex, const example_kernel_t *k,
                        const void *kernarg, uint32_t dims,
                        const uint32_t grid[3], const uint16_t group[3],
                        uint32_t dynamic_group_bytes);

void example_shutdown(example_t *ex);

double example_seconds(void);

#ifdef __cplusplus
}
#endif

#endif
