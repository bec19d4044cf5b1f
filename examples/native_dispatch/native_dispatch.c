/*
 * native_dispatch: the HSA dispatch path end to end without the finalizer.
 *
 * Finds the CPU agent, registers a native work-group function through the
 * openhsa vendor extension, writes a kernel dispatch packet into a queue,
 * rings the doorbell and waits on the completion signal - the same steps
 * an HSA program takes with a finalized HSAIL kernel. The kernel adds two
 * vectors; the host checks every element.
 */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_openhsa.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    hsa_status_t status_ = (call);                                             \
    if (status_ != HSA_STATUS_SUCCESS) {                                       \
      const char *text_ = "unknown";                                           \
      hsa_status_string(status_, &text_);                                      \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,     \
              text_);                                                          \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

typedef struct {
  const float *a;
  const float *b;
  float *c;
  uint32_t n;
} vector_add_args_t;

/* One work-group: its work-items are a loop over the x dimension. */
static void vector_add(const void *kernarg,
                       const hsa_ext_openhsa_dispatch_context_t *ctx,
                       uint32_t group_x, uint32_t group_y, uint32_t group_z) {
  const vector_add_args_t *args = (const vector_add_args_t *)kernarg;
  (void)group_y;
  (void)group_z;
  uint64_t first = (uint64_t)group_x * ctx->workgroup_size[0];
  uint64_t end = first + ctx->workgroup_size[0];
  if (end > ctx->grid_size[0])
    end = ctx->grid_size[0]; /* Partial work-group at the grid's edge. */
  for (uint64_t i = first; i < end; ++i)
    args->c[i] = args->a[i] + args->b[i];
}

static hsa_status_t find_cpu(hsa_agent_t agent, void *data) {
  hsa_device_type_t type;
  CHECK(hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type));
  if (type == HSA_DEVICE_TYPE_CPU) {
    *(hsa_agent_t *)data = agent;
    return HSA_STATUS_INFO_BREAK;
  }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_kernarg_region(hsa_region_t region, void *data) {
  uint32_t flags;
  CHECK(hsa_region_get_info(region, HSA_REGION_INFO_GLOBAL_FLAGS, &flags));
  hsa_region_segment_t segment;
  CHECK(hsa_region_get_info(region, HSA_REGION_INFO_SEGMENT, &segment));
  if (segment == HSA_REGION_SEGMENT_GLOBAL &&
      (flags & HSA_REGION_GLOBAL_FLAG_KERNARG)) {
    *(hsa_region_t *)data = region;
    return HSA_STATUS_INFO_BREAK;
  }
  return HSA_STATUS_SUCCESS;
}

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 1u << 24;
  CHECK(hsa_init());

  hsa_agent_t agent = {0};
  if (hsa_iterate_agents(find_cpu, &agent) != HSA_STATUS_INFO_BREAK) {
    fprintf(stderr, "no CPU agent\n");
    return 1;
  }
  char name[64];
  CHECK(hsa_agent_get_info(agent, HSA_AGENT_INFO_NAME, name));
  hsa_region_t kernarg_region = {0};
  hsa_agent_iterate_regions(agent, find_kernarg_region, &kernarg_region);

  hsa_ext_openhsa_1_pfn_t ext;
  CHECK(hsa_system_get_major_extension_table(HSA_EXTENSION_OPENHSA, 1,
                                             sizeof(ext), &ext));
  hsa_ext_openhsa_native_kernel_t desc = {
      vector_add, NULL, 0, 0, sizeof(vector_add_args_t), 16};
  uint64_t kernel_object;
  CHECK(ext.hsa_ext_openhsa_native_kernel_create(agent, &desc, &kernel_object));

  float *a, *b, *c;
  CHECK(hsa_memory_allocate(kernarg_region, n * sizeof(float), (void **)&a));
  CHECK(hsa_memory_allocate(kernarg_region, n * sizeof(float), (void **)&b));
  CHECK(hsa_memory_allocate(kernarg_region, n * sizeof(float), (void **)&c));
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = (float)i;
    b[i] = 2.0f * (float)i;
    c[i] = -1.0f;
  }
  vector_add_args_t *args;
  CHECK(hsa_memory_allocate(kernarg_region, sizeof(*args), (void **)&args));
  args->a = a;
  args->b = b;
  args->c = c;
  args->n = n;

  hsa_queue_t *queue;
  CHECK(hsa_queue_create(agent, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL,
                         UINT32_MAX, UINT32_MAX, &queue));
  hsa_signal_t done;
  CHECK(hsa_signal_create(1, 0, NULL, &done));

  double start = seconds();
  uint64_t index = hsa_queue_add_write_index_relaxed(queue, 1);
  hsa_kernel_dispatch_packet_t *packet =
      (hsa_kernel_dispatch_packet_t *)queue->base_address +
      (index & (queue->size - 1));
  memset((char *)packet + 4, 0, sizeof(*packet) - 4);
  packet->workgroup_size_x = 256;
  packet->workgroup_size_y = 1;
  packet->workgroup_size_z = 1;
  packet->grid_size_x = n;
  packet->grid_size_y = 1;
  packet->grid_size_z = 1;
  packet->kernel_object = kernel_object;
  packet->kernarg_address = args;
  packet->completion_signal = done;
  uint16_t header =
      (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  uint16_t setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
  __atomic_store_n((uint32_t *)packet, header | ((uint32_t)setup << 16),
                   __ATOMIC_RELEASE);
  hsa_signal_store_screlease(queue->doorbell_signal, (hsa_signal_value_t)index);
  while (hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
                                   HSA_WAIT_STATE_BLOCKED) != 0)
    ;
  double elapsed = seconds() - start;

  uint32_t errors = 0;
  for (uint32_t i = 0; i < n; ++i)
    if (c[i] != 3.0f * (float)i)
      ++errors;
  printf("native_dispatch: vector_add of %u floats on \"%s\": %.3f ms, %s\n", n,
         name, elapsed * 1e3, errors ? "FAILED" : "correct");

  CHECK(hsa_signal_destroy(done));
  CHECK(hsa_queue_destroy(queue));
  CHECK(hsa_memory_free(args));
  CHECK(hsa_memory_free(a));
  CHECK(hsa_memory_free(b));
  CHECK(hsa_memory_free(c));
  CHECK(ext.hsa_ext_openhsa_native_kernel_destroy(kernel_object));
  CHECK(hsa_shut_down());
  return errors ? 1 : 0;
}
