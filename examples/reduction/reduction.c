/*
 * reduction: sums N floats with group memory and barriers (a tree per
 * work-group), then adds the per-group partial sums on the host. The
 * inputs are small integers, so every partial sum is exact and the result
 * is checked exactly.
 *
 *   reduction [--agent cpu|gpu|N] [BRIG] [N]
 */
#include "hsa_example.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef REDUCTION_BRIG
#define REDUCTION_BRIG "reduction.brig"
#endif

typedef struct {
  const float *in;
  float *partial;
  uint32_t n;
} args_t;

int main(int argc, char **argv) {
  const char *agent = example_agent_option(&argc, argv);
  const char *brig = argc > 1 ? argv[1] : REDUCTION_BRIG;
  uint32_t n = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : 4000037u;
  const uint32_t group_size = 256; /* A power of two, as the tree needs. */
  const uint32_t groups = (n + group_size - 1) / group_size;

  uint32_t grid[3] = {groups * group_size, 1, 1};
  uint16_t group[3] = {(uint16_t)group_size, 1, 1};

  example_t ex;
  example_init(&ex, agent);
  /* Every dispatch below is in groups of group_size and its grid a multiple
   * of it: telling the finalizer gets code for that shape alone. */
  double finalize = example_load_shaped(&ex, brig, group, 1);
  example_kernel_t k = example_kernel(&ex, "&reduce");

  float *in = example_alloc(&ex, (size_t)n * sizeof(float));
  float *partial = example_alloc(&ex, (size_t)groups * sizeof(float));
  uint64_t expected = 0;
  for (uint32_t i = 0; i < n; ++i) {
    in[i] = (float)(i % 16);
    expected += i % 16;
  }
  args_t *args = example_kernarg(&ex, &k);
  args->in = in;
  args->partial = partial;
  args->n = n;

  double run = example_dispatch(&ex, &k, args, 1, grid, group, 0);
  uint64_t sum = 0;
  for (uint32_t g = 0; g < groups; ++g)
    sum += (uint64_t)partial[g];
  printf("reduction: %u floats in %u groups on \"%s\": finalize %.1f ms, run "
         "%.3f ms, sum %llu, %s\n",
         n, groups, ex.agent_name, finalize * 1e3, run * 1e3,
         (unsigned long long)sum, sum == expected ? "correct" : "WRONG");

  CHECK(hsa_memory_free(args));
  CHECK(hsa_memory_free(in));
  CHECK(hsa_memory_free(partial));
  example_shutdown(&ex);
  return sum != expected;
}
