/* Unloading the library after hsa_shut_down (HSA Runtime 2.1: the last
 * hsa_shut_down releases the runtime's resources). A program that dlopens
 * libhsa-runtime64.so.1, dispatches kernels, shuts down and dlcloses it
 * (the PRM conformance harness does) must keep running: the last
 * hsa_shut_down leaves no thread of ours or of oneTBB behind, so no thread
 * can run code that dlclose unmapped. Two rounds, so that the runtime also
 * starts again after such a shut down.
 *
 *   unload_after_shut_down LIBRARY
 */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_openhsa.h>

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GROUPS 4096u
#define GROUP_SIZE 64u

static void *Library;

static void *symbol(const char *Name) {
  void *S = dlsym(Library, Name);
  if (!S) {
    fprintf(stderr, "FAIL: %s not found: %s\n", Name, dlerror());
    exit(1);
  }
  return S;
}
#define API(name) ((__typeof__(&name))symbol(#name))

static void check(hsa_status_t Status, const char *What) {
  if (Status != HSA_STATUS_SUCCESS && Status != HSA_STATUS_INFO_BREAK) {
    fprintf(stderr, "FAIL: %s: status 0x%x\n", What, (unsigned)Status);
    exit(1);
  }
}

/* Whether a mapping of the process names \p Path (the library). */
static int mapped(const char *Path) {
  FILE *Maps = fopen("/proc/self/maps", "r");
  char Line[4096];
  int Found = 0;
  const char *Base = strrchr(Path, '/');
  Base = Base ? Base + 1 : Path;
  if (!Maps)
    return 0;
  while (!Found && fgets(Line, sizeof(Line), Maps))
    Found = strstr(Line, Base) != NULL;
  fclose(Maps);
  return Found;
}

static unsigned threadCount(void) {
  DIR *D = opendir("/proc/self/task");
  unsigned N = 0;
  if (!D)
    return 0;
  for (struct dirent *E; (E = readdir(D));)
    if (E->d_name[0] != '.')
      ++N;
  closedir(D);
  return N;
}

/* One work-group: every work-item writes its flat id + 1. */
static void fill(const void *Kernarg,
                 const hsa_ext_openhsa_dispatch_context_t *Ctx, uint32_t X,
                 uint32_t Y, uint32_t Z) {
  uint32_t *Out = *(uint32_t *const *)Kernarg;
  (void)Y;
  (void)Z;
  for (uint32_t I = 0; I < Ctx->workgroup_size[0]; ++I) {
    uint32_t Id = X * Ctx->workgroup_size[0] + I;
    Out[Id] = Id + 1;
  }
}

static hsa_status_t findCpu(hsa_agent_t Agent, void *Data) {
  hsa_device_type_t Type;
  check(API(hsa_agent_get_info)(Agent, HSA_AGENT_INFO_DEVICE, &Type),
        "agent info");
  if (Type != HSA_DEVICE_TYPE_CPU)
    return HSA_STATUS_SUCCESS;
  *(hsa_agent_t *)Data = Agent;
  return HSA_STATUS_INFO_BREAK;
}

static hsa_status_t findKernarg(hsa_region_t Region, void *Data) {
  uint32_t Flags = 0;
  hsa_region_segment_t Segment;
  check(API(hsa_region_get_info)(Region, HSA_REGION_INFO_SEGMENT, &Segment),
        "region info");
  check(API(hsa_region_get_info)(Region, HSA_REGION_INFO_GLOBAL_FLAGS, &Flags),
        "region info");
  if (Segment != HSA_REGION_SEGMENT_GLOBAL ||
      !(Flags & HSA_REGION_GLOBAL_FLAG_KERNARG))
    return HSA_STATUS_SUCCESS;
  *(hsa_region_t *)Data = Region;
  return HSA_STATUS_INFO_BREAK;
}

/* Dispatches GROUPS work-groups of the native kernel, several times, and
 * checks the result. */
static void dispatchKernels(void) {
  hsa_agent_t Agent = {0};
  check(API(hsa_iterate_agents)(findCpu, &Agent), "hsa_iterate_agents");
  hsa_region_t Kernarg = {0};
  check(API(hsa_agent_iterate_regions)(Agent, findKernarg, &Kernarg),
        "regions");
  hsa_ext_openhsa_1_pfn_t Ext;
  check(API(hsa_system_get_major_extension_table)(HSA_EXTENSION_OPENHSA, 1,
                                                  sizeof(Ext), &Ext),
        "openhsa extension");
  hsa_ext_openhsa_native_kernel_t Desc = {fill, NULL, 0, 0, 16, 16};
  uint64_t Kernel;
  check(Ext.hsa_ext_openhsa_native_kernel_create(Agent, &Desc, &Kernel),
        "native kernel");
  uint32_t *Out;
  uint32_t **Args;
  check(
      API(hsa_memory_allocate)(Kernarg, GROUPS * GROUP_SIZE * 4, (void **)&Out),
      "buffer");
  check(API(hsa_memory_allocate)(Kernarg, 16, (void **)&Args), "kernarg");
  *Args = Out;
  hsa_queue_t *Queue;
  check(API(hsa_queue_create)(Agent, 16, HSA_QUEUE_TYPE_SINGLE, NULL, NULL,
                              UINT32_MAX, UINT32_MAX, &Queue),
        "queue");
  hsa_signal_t Done;
  check(API(hsa_signal_create)(1, 0, NULL, &Done), "signal");
  for (int Round = 0; Round < 4; ++Round) {
    memset(Out, 0, GROUPS * GROUP_SIZE * 4);
    API(hsa_signal_store_relaxed)(Done, 1);
    uint64_t Index = API(hsa_queue_add_write_index_relaxed)(Queue, 1);
    hsa_kernel_dispatch_packet_t *P =
        (hsa_kernel_dispatch_packet_t *)Queue->base_address +
        (Index & (Queue->size - 1));
    memset((char *)P + 4, 0, sizeof(*P) - 4);
    P->workgroup_size_x = GROUP_SIZE;
    P->workgroup_size_y = P->workgroup_size_z = 1;
    P->grid_size_x = GROUPS * GROUP_SIZE;
    P->grid_size_y = P->grid_size_z = 1;
    P->kernel_object = Kernel;
    P->kernarg_address = Args;
    P->completion_signal = Done;
    uint16_t Header =
        (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    __atomic_store_n(
        (uint32_t *)P,
        Header | (1u << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS << 16),
        __ATOMIC_RELEASE);
    API(hsa_signal_store_screlease)
    (Queue->doorbell_signal, (hsa_signal_value_t)Index);
    while (API(hsa_signal_wait_scacquire)(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                          UINT64_MAX,
                                          HSA_WAIT_STATE_BLOCKED) != 0)
      ;
    for (uint32_t I = 0; I < GROUPS * GROUP_SIZE; ++I)
      if (Out[I] != I + 1) {
        fprintf(stderr, "FAIL: element %u is %u\n", I, Out[I]);
        exit(1);
      }
  }
  check(API(hsa_signal_destroy)(Done), "signal destroy");
  check(API(hsa_queue_destroy)(Queue), "queue destroy");
  check(API(hsa_memory_free)(Args), "free");
  check(API(hsa_memory_free)(Out), "free");
  check(Ext.hsa_ext_openhsa_native_kernel_destroy(Kernel), "kernel destroy");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: unload_after_shut_down LIBRARY\n");
    return 2;
  }
  for (int Round = 0; Round < 2; ++Round) {
    Library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!Library) {
      fprintf(stderr, "FAIL: dlopen: %s\n", dlerror());
      return 1;
    }
    check(API(hsa_init)(), "hsa_init");
    dispatchKernels();
    check(API(hsa_shut_down)(), "hsa_shut_down");
    unsigned Threads = threadCount();
    if (Threads != 1) {
      fprintf(stderr, "FAIL: round %d: %u threads after hsa_shut_down\n", Round,
              Threads);
      return 1;
    }
    if (dlclose(Library)) {
      fprintf(stderr, "FAIL: dlclose: %s\n", dlerror());
      return 1;
    }
    /* The library is really gone (nothing keeps it loaded), so a thread
     * left in its code would fault. */
    if (mapped(argv[1])) {
      fprintf(stderr, "FAIL: %s is still mapped after dlclose\n", argv[1]);
      return 1;
    }
  }
  /* Keep running for a second: a thread left behind would now fault in
   * unmapped code. */
  struct timespec Second = {1, 0};
  nanosleep(&Second, NULL);
  printf("threads after dlclose: %u\n", threadCount());
  return threadCount() == 1 ? 0 : 1;
}
