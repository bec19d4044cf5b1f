/* Initializes the installed runtime, counts its agents, shuts down. */
#include <hsa/hsa.h>
#include <stdio.h>

static hsa_status_t count(hsa_agent_t agent, void *data) {
  (void)agent;
  ++*(unsigned *)data;
  return HSA_STATUS_SUCCESS;
}

int main(void) {
  unsigned agents = 0;
  if (hsa_init() != HSA_STATUS_SUCCESS)
    return 1;
  if (hsa_iterate_agents(count, &agents) != HSA_STATUS_SUCCESS || agents == 0)
    return 2;
  /* Only openhsa knows its vendor extension: proves which library ran. */
  const char *name = NULL;
  if (hsa_extension_get_name(0x300, &name) != HSA_STATUS_SUCCESS)
    return 4;
  printf("consumer: %u agent(s), %s\n", agents, name);
  return hsa_shut_down() == HSA_STATUS_SUCCESS ? 0 : 3;
}
