/*
 * native_dispatch: the HSA dispatch path end to end without the finalizer.
 *
 * Finds the kernel agent (feature == HSA_AGENT_FEATURE_KERNEL_DISPATCH, as
 * programs written for ROCm do), registers a native work-group function
 * through the openhsa vendor extension, writes a kernel dispatch packet
 * into a queue, rings the doorbell and waits on the completion signal - the
 * same steps an HSA program takes with a finalized HSAIL kernel. The kernel
 * adds two vectors. The check runs as an agent dispatch packet on the
 * node's agent dispatch agent (feature HSA_AGENT_FEATURE_AGENT_DISPATCH),
 * whose handler counts the wrong elements.
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

/* The first agent whose feature is exactly *(feature *)data. */
typedef struct {
  hsa_agent_feature_t feature;
  hsa_agent_t agent;
} find_agent_t;

static hsa_status_t find_agent(hsa_agent_t agent, void *data) {
  find_agent_t *f = (find_agent_t *)data;
  hsa_agent_feature_t feature;
  CHECK(hsa_agent_get_info(agent, HSA_AGENT_INFO_FEATURE, &feature));
  if (feature == f->feature) {
    f->agent = agent;
    return HSA_STATUS_INFO_BREAK;
  }
  return HSA_STATUS_SUCCESS;
}

/* Agent dispatch handler: counts the elements of c that are not a + b
 * (arg[0] is the args block) into *return_address. */
enum { CHECK_VECTOR_ADD = 0x8000 };
static hsa_status_t check_vector_add(uint16_t type, const uint64_t args[4],
                                     void *return_address, void *data) {
  (void)type;
  (void)data;
  const vector_add_args_t *v = (const vector_add_args_t *)(uintptr_t)args[0];
  uint32_t errors = 0;
  for (uint32_t i = 0; i < v->n; ++i)
    if (v->c[i] != v->a[i] + v->b[i])
      ++errors;
  *(uint32_t *)return_address = errors;
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

  find_agent_t kernel_agent = {HSA_AGENT_FEATURE_KERNEL_DISPATCH, {0}};
  find_agent_t host_agent = {HSA_AGENT_FEATURE_AGENT_DISPATCH, {0}};
  if (hsa_iterate_agents(find_agent, &kernel_agent) != HSA_STATUS_INFO_BREAK ||
      hsa_iterate_agents(find_agent, &host_agent) != HSA_STATUS_INFO_BREAK) {
    fprintf(stderr, "no kernel agent or no agent dispatch agent\n");
    return 1;
  }
  hsa_agent_t agent = kernel_agent.agent;
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

  /* The check, as an agent dispatch packet. */
  CHECK(ext.hsa_ext_openhsa_agent_dispatch_handler_set(
      host_agent.agent, CHECK_VECTOR_ADD, check_vector_add, NULL));
  hsa_queue_t *host_queue;
  CHECK(hsa_queue_create(host_agent.agent, 16, HSA_QUEUE_TYPE_SINGLE, NULL,
                         NULL, UINT32_MAX, UINT32_MAX, &host_queue));
  uint32_t errors = UINT32_MAX;
  hsa_signal_store_relaxed(done, 1);
  index = hsa_queue_add_write_index_relaxed(host_queue, 1);
  hsa_agent_dispatch_packet_t *check =
      (hsa_agent_dispatch_packet_t *)host_queue->base_address +
      (index & (host_queue->size - 1));
  memset((char *)check + 4, 0, sizeof(*check) - 4);
  check->type = CHECK_VECTOR_ADD;
  check->return_address = &errors;
  check->arg[0] = (uint64_t)(uintptr_t)args;
  check->completion_signal = done;
  header = (HSA_PACKET_TYPE_AGENT_DISPATCH << HSA_PACKET_HEADER_TYPE) |
           (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
           (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  __atomic_store_n((uint32_t *)check,
                   header | ((uint32_t)CHECK_VECTOR_ADD << 16),
                   __ATOMIC_RELEASE);
  hsa_signal_store_screlease(host_queue->doorbell_signal,
                             (hsa_signal_value_t)index);
  while (hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
                                   HSA_WAIT_STATE_BLOCKED) != 0)
    ;
  CHECK(hsa_queue_destroy(host_queue));
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
