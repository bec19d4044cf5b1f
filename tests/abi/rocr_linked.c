/* A program linked against ROCm's libhsa-runtime64.so.1 (Debian's ROCR), as
 * existing HSA binaries are, run with openhsa's library first in
 * LD_LIBRARY_PATH. It references hsa_*@ROCR_1; ours must define that
 * version node so that the loader binds it silently (no "no version
 * information available"), and the program must work: hsa_init, the
 * agents, hsa_shut_down.
 *
 *   rocr_linked EXPECTED_LIBRARY   (the library hsa_init must come from)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <hsa/hsa.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hsa_status_t countAgent(hsa_agent_t Agent, void *Data) {
  char Name[64];
  if (hsa_agent_get_info(Agent, HSA_AGENT_INFO_NAME, Name) !=
      HSA_STATUS_SUCCESS)
    return HSA_STATUS_ERROR;
  ++*(unsigned *)Data;
  return HSA_STATUS_SUCCESS;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: rocr_linked EXPECTED_LIBRARY\n");
    return 2;
  }
  /* Which library serves hsa_init@ROCR_1. */
  void *Init = dlvsym(RTLD_DEFAULT, "hsa_init", "ROCR_1");
  Dl_info Info;
  char Loaded[PATH_MAX], Expected[PATH_MAX];
  if (!Init || !dladdr(Init, &Info) || !realpath(Info.dli_fname, Loaded) ||
      !realpath(argv[1], Expected)) {
    fprintf(stderr, "FAIL: cannot locate hsa_init@ROCR_1\n");
    return 1;
  }
  if (strcmp(Loaded, Expected) != 0) {
    fprintf(stderr, "FAIL: hsa_init comes from %s, not %s\n", Loaded, Expected);
    return 1;
  }
  hsa_status_t Status = hsa_init();
  if (Status != HSA_STATUS_SUCCESS) {
    fprintf(stderr, "FAIL: hsa_init: %d\n", (int)Status);
    return 1;
  }
  unsigned Agents = 0;
  Status = hsa_iterate_agents(countAgent, &Agents);
  if (Status != HSA_STATUS_SUCCESS || Agents == 0) {
    fprintf(stderr, "FAIL: hsa_iterate_agents: %d, %u agents\n", (int)Status,
            Agents);
    return 1;
  }
  Status = hsa_shut_down();
  if (Status != HSA_STATUS_SUCCESS) {
    fprintf(stderr, "FAIL: hsa_shut_down: %d\n", (int)Status);
    return 1;
  }
  printf("hsa_init@ROCR_1 from %s; %u agents\n", Loaded, Agents);
  return 0;
}
