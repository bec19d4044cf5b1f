/* hsa_example.c - see hsa_example.h. */
#include "hsa_example.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void example_check(hsa_status_t status, const char *what, const char *file,
                   int line) {
  if (status == HSA_STATUS_SUCCESS || status == HSA_STATUS_INFO_BREAK)
    return;
  const char *text = "unknown status";
  hsa_status_string(status, &text);
  fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, what, text);
  exit(1);
}

double example_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
  const char *want; /* cpu, gpu or an agent's number */
  unsigned next;    /* the number of the agent seen next */
  hsa_agent_t *out;
} find_agent_t;

static hsa_status_t find_agent(hsa_agent_t agent, void *data) {
  find_agent_t *f = (find_agent_t *)data;
  unsigned number = f->next++;
  hsa_device_type_t type;
  CHECK(hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type));
  uint32_t features = 0;
  CHECK(hsa_agent_get_info(agent, HSA_AGENT_INFO_FEATURE, &features));
  if (!(features & HSA_AGENT_FEATURE_KERNEL_DISPATCH))
    return HSA_STATUS_SUCCESS;
  char *end = NULL;
  unsigned long wanted = strtoul(f->want, &end, 10);
  int match = strcmp(f->want, "cpu") == 0   ? type == HSA_DEVICE_TYPE_CPU
              : strcmp(f->want, "gpu") == 0 ? type == HSA_DEVICE_TYPE_GPU
                                            : *end == '\0' && wanted == number;
  if (match) {
    *f->out = agent;
    return HSA_STATUS_INFO_BREAK;
  }
  return HSA_STATUS_SUCCESS;
}

const char *example_agent_option(int *argc, char **argv) {
  const char *agent = "cpu";
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    if (strcmp(argv[i], "--agent") == 0 && i + 1 < *argc)
      agent = argv[++i];
    else
      argv[kept++] = argv[i];
  }
  *argc = kept;
  argv[kept] = NULL;
  return agent;
}

static hsa_status_t find_regions(hsa_region_t region, void *data) {
  example_t *ex = (example_t *)data;
  hsa_region_segment_t segment;
  CHECK(hsa_region_get_info(region, HSA_REGION_INFO_SEGMENT, &segment));
  if (segment != HSA_REGION_SEGMENT_GLOBAL)
    return HSA_STATUS_SUCCESS;
  uint32_t flags;
  CHECK(hsa_region_get_info(region, HSA_REGION_INFO_GLOBAL_FLAGS, &flags));
  if ((flags & HSA_REGION_GLOBAL_FLAG_KERNARG) && !ex->kernarg_region.handle)
    ex->kernarg_region = region;
  if ((flags & HSA_REGION_GLOBAL_FLAG_FINE_GRAINED) && !ex->data_region.handle)
    ex->data_region = region;
  return HSA_STATUS_SUCCESS;
}

void example_init(example_t *ex, const char *agent) {
  memset(ex, 0, sizeof(*ex));
  CHECK(hsa_init());
  find_agent_t f = {agent, 0, &ex->agent};
  if (hsa_iterate_agents(find_agent, &f) != HSA_STATUS_INFO_BREAK) {
    fprintf(stderr,
            "--agent %s: no such kernel agent (cpu, gpu, or a kernel "
            "agent's number as openhsa-info prints it)\n",
            agent);
    exit(1);
  }
  CHECK(hsa_agent_get_info(ex->agent, HSA_AGENT_INFO_NAME, ex->agent_name));
  ex->agent_name[sizeof(ex->agent_name) - 1] = '\0';
  for (size_t n = strlen(ex->agent_name); n > 0 && ex->agent_name[n - 1] == ' ';
       --n)
    ex->agent_name[n - 1] = '\0'; /* CPU brand strings are padded. */
  CHECK(hsa_agent_iterate_regions(ex->agent, find_regions, ex));
  if (!ex->kernarg_region.handle || !ex->data_region.handle) {
    fprintf(stderr, "the agent lacks a kernarg or fine-grained region\n");
    exit(1);
  }
  CHECK(hsa_queue_create(ex->agent, 256, HSA_QUEUE_TYPE_SINGLE, NULL, NULL,
                         UINT32_MAX, UINT32_MAX, &ex->queue));
}

double example_load(example_t *ex, const char *brig_path) {
  return example_load_shaped(ex, brig_path, NULL, 0);
}

double example_load_shaped(example_t *ex, const char *brig_path,
                           const uint16_t group[3], int whole_groups) {
  FILE *file = fopen(brig_path, "rb");
  if (!file) {
    perror(brig_path);
    exit(1);
  }
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  void *brig = malloc((size_t)size);
  if (fread(brig, 1, (size_t)size, file) != (size_t)size) {
    fprintf(stderr, "%s: short read\n", brig_path);
    exit(1);
  }
  fclose(file);

  double start = example_seconds();
  hsa_ext_program_t program;
  /* The examples' kernels are $base: every agent's ISA takes that profile
   * (the CPU agent's takes both), so one module runs on the CPU and on a
   * GPU that cannot reach pageable host memory. Their buffers come from
   * the agent's fine-grained region, as the base profile asks. */
  CHECK(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, HSA_PROFILE_BASE,
                               HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL,
                               &program));
  hsa_status_t added =
      hsa_ext_program_add_module(program, (hsa_ext_module_t)brig);
  if (added == (hsa_status_t)HSA_EXT_STATUS_ERROR_INCOMPATIBLE_MODULE) {
    fprintf(stderr,
            "%s: the module is not $base $large, which the examples' "
            "programs are\n",
            brig_path);
    exit(1);
  }
  CHECK(added);
  hsa_isa_t isa;
  CHECK(hsa_agent_get_info(ex->agent, HSA_AGENT_INFO_ISA, &isa));
  hsa_ext_control_directives_t directives;
  memset(&directives, 0, sizeof(directives));
  if (group) {
    /* Bit 1 << d of the mask says directive d (BrigControlDirective) is
     * given: 8 requiredworkgroupsize, 9 requirenopartialworkgroups. */
    directives.control_directives_mask = (uint64_t)1 << 8;
    if (whole_groups)
      directives.control_directives_mask |= (uint64_t)1 << 9;
    directives.required_workgroup_size.x = group[0];
    directives.required_workgroup_size.y = group[1];
    directives.required_workgroup_size.z = group[2];
  }
  CHECK(hsa_ext_program_finalize(program, isa, 0, directives, NULL,
                                 HSA_CODE_OBJECT_TYPE_PROGRAM,
                                 &ex->code_object));
  CHECK(hsa_ext_program_destroy(program));
  CHECK(hsa_executable_create(HSA_PROFILE_BASE, HSA_EXECUTABLE_STATE_UNFROZEN,
                              NULL, &ex->executable));
  CHECK(hsa_executable_load_code_object(ex->executable, ex->agent,
                                        ex->code_object, NULL));
  CHECK(hsa_executable_freeze(ex->executable, NULL));
  double elapsed = example_seconds() - start;
  free(brig);
  return elapsed;
}

example_kernel_t example_kernel(example_t *ex, const char *name) {
  hsa_executable_symbol_t symbol;
  CHECK(hsa_executable_get_symbol_by_name(ex->executable, name, &ex->agent,
                                          &symbol));
  example_kernel_t k;
  CHECK(hsa_executable_symbol_get_info(
      symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &k.object));
  CHECK(hsa_executable_symbol_get_info(
      symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
      &k.kernarg_size));
  CHECK(hsa_executable_symbol_get_info(
      symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
      &k.group_size));
  CHECK(hsa_executable_symbol_get_info(
      symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
      &k.private_size));
  return k;
}

void *example_alloc(example_t *ex, size_t size) {
  void *p = NULL;
  CHECK(hsa_memory_allocate(ex->data_region, size, &p));
  return p;
}

void *example_kernarg(example_t *ex, const example_kernel_t *k) {
  void *p = NULL;
  CHECK(hsa_memory_allocate(ex->kernarg_region,
                            k->kernarg_size ? k->kernarg_size : 16, &p));
  memset(p, 0, k->kernarg_size);
  return p;
}

double example_dispatch(example_t *ex, const example_kernel_t *k,
                        const void *kernarg, uint32_t dims,
                        const uint32_t grid[3], const uint16_t group[3],
                        uint32_t dynamic_group_bytes) {
  hsa_signal_t done;
  CHECK(hsa_signal_create(1, 0, NULL, &done));
  hsa_queue_t *q = ex->queue;
  uint64_t index = hsa_queue_add_write_index_relaxed(q, 1);
  while (index - hsa_queue_load_read_index_scacquire(q) >= q->size)
    ; /* Full: wait for the packet processor. */
  hsa_kernel_dispatch_packet_t *packet =
      (hsa_kernel_dispatch_packet_t *)q->base_address + (index & (q->size - 1));
  memset((char *)packet + 4, 0, sizeof(*packet) - 4);
  packet->workgroup_size_x = group[0];
  packet->workgroup_size_y = group[1];
  packet->workgroup_size_z = group[2];
  packet->grid_size_x = grid[0];
  packet->grid_size_y = grid[1];
  packet->grid_size_z = grid[2];
  packet->kernel_object = k->object;
  packet->kernarg_address = (void *)kernarg;
  packet->group_segment_size = k->group_size + dynamic_group_bytes;
  packet->private_segment_size = k->private_size;
  packet->completion_signal = done;
  uint16_t header =
      (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  uint16_t setup =
      (uint16_t)(dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
  double start = example_seconds();
  __atomic_store_n((uint32_t *)packet, header | ((uint32_t)setup << 16),
                   __ATOMIC_RELEASE);
  hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)index);
  while (hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
                                   HSA_WAIT_STATE_BLOCKED) != 0)
    ;
  double elapsed = example_seconds() - start;
  CHECK(hsa_signal_destroy(done));
  return elapsed;
}

void example_shutdown(example_t *ex) {
  CHECK(hsa_executable_destroy(ex->executable));
  CHECK(hsa_code_object_destroy(ex->code_object));
  CHECK(hsa_queue_destroy(ex->queue));
  CHECK(hsa_shut_down());
}
