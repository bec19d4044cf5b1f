/*
 * vector_add: the canonical HSA sample. Finalizes vector_add.brig for the
 * CPU agent, dispatches one work-item per element and checks the result.
 *
 *   vector_add [--agent cpu|gpu|N] [BRIG] [N]
 */
#include "hsa_example.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef VECTOR_ADD_BRIG
#define VECTOR_ADD_BRIG "vector_add.brig"
#endif

typedef struct {
  const float *a;
  const float *b;
  float *c;
  uint32_t n;
} args_t;

int main(int argc, char **argv) {
  const char *agent = example_agent_option(&argc, argv);
  const char *brig = argc > 1 ? argv[1] : VECTOR_ADD_BRIG;
  uint32_t n = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : 10000019u;

  example_t ex;
  example_init(&ex, agent);
  double finalize = example_load(&ex, brig);
  example_kernel_t k = example_kernel(&ex, "&vector_add");

  float *a = example_alloc(&ex, n * sizeof(float));
  float *b = example_alloc(&ex, n * sizeof(float));
  float *c = example_alloc(&ex, n * sizeof(float));
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = (float)i;
    b[i] = 0.25f * (float)i;
    c[i] = -1.0f;
  }
  args_t *args = example_kernarg(&ex, &k);
  args->a = a;
  args->b = b;
  args->c = c;
  args->n = n;

  /* n is not a multiple of the work-group size: the last group is partial. */
  uint32_t grid[3] = {n, 1, 1};
  uint16_t group[3] = {256, 1, 1};
  double run = example_dispatch(&ex, &k, args, 1, grid, group, 0);

  uint32_t errors = 0;
  for (uint32_t i = 0; i < n; ++i)
    errors += c[i] != a[i] + b[i];
  printf("vector_add: %u elements on \"%s\": finalize %.1f ms, run %.3f ms "
         "(%.1f GB/s), %s\n",
         n, ex.agent_name, finalize * 1e3, run * 1e3,
         3.0 * n * sizeof(float) / run * 1e-9, errors ? "WRONG" : "correct");

  CHECK(hsa_memory_free(args));
  CHECK(hsa_memory_free(a));
  CHECK(hsa_memory_free(b));
  CHECK(hsa_memory_free(c));
  example_shutdown(&ex);
  return errors != 0;
}
