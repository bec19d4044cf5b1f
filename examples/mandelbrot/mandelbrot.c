/*
 * mandelbrot: finalizes mandelbrot.brig for a kernel agent (the CPU's by
 * default; the module is $base, so a base-profile GPU takes it too), computes
 * the set on a 2-D grid, checks the iteration counts against the same
 * computation on the host, and writes mandelbrot.png.
 *
 *   mandelbrot [--agent cpu|gpu|N] [BRIG] [WIDTH HEIGHT] [OUT.png]
 */
#include "hsa_example.h"
#include "png_write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MANDELBROT_BRIG
#define MANDELBROT_BRIG "mandelbrot.brig"
#endif

typedef struct {
  uint32_t *out;
  uint32_t width, height, max_iter;
  float x0, y0, step;
} args_t;

/* The kernel's loop in C, operation for operation, so counts must match
 * exactly. The kernel uses no mad, which an agent may fuse or not (PRM
 * 5.12), so that every agent draws the same picture. Its ftz flushes no
 * value this computation meets. */
static uint32_t host_iterations(const args_t *a, uint32_t x, uint32_t y) {
  float cx = (float)x * a->step + a->x0, cy = (float)y * a->step + a->y0;
  float zx = 0, zy = 0;
  uint32_t i = 0;
  while (i < a->max_iter) {
    float zx2 = zx * zx, zy2 = zy * zy;
    if (zx2 + zy2 > 4.0f)
      break;
    float t = zx * zy;
    zy = (t + t) + cy;
    zx = (zx2 - zy2) + cx;
    ++i;
  }
  return i;
}

int main(int argc, char **argv) {
  const char *agent = example_agent_option(&argc, argv);
  const char *brig = argc > 1 ? argv[1] : MANDELBROT_BRIG;
  uint32_t width = argc > 3 ? (uint32_t)atoi(argv[2]) : 1920;
  uint32_t height = argc > 3 ? (uint32_t)atoi(argv[3]) : 1080;
  const char *png = argc > 4 ? argv[4] : "mandelbrot.png";

  example_t ex;
  example_init(&ex, agent);
  double finalize = example_load(&ex, brig);
  example_kernel_t k = example_kernel(&ex, "&mandelbrot");

  uint32_t *out = example_alloc(&ex, (size_t)width * height * sizeof(uint32_t));
  args_t *args = example_kernarg(&ex, &k);
  args->out = out;
  args->width = width;
  args->height = height;
  args->max_iter = 256;
  args->step = 3.0f / (float)width;
  args->x0 = -2.2f;
  args->y0 = -args->step * (float)height / 2.0f;

  uint32_t grid[3] = {width, height, 1};
  uint16_t group[3] = {16, 16, 1};
  double run = example_dispatch(&ex, &k, args, 2, grid, group, 0);

  uint64_t mismatches = 0;
  uint8_t *rgb = malloc((size_t)width * height * 3);
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t x = 0; x < width; ++x) {
      uint32_t it = out[(size_t)y * width + x];
      mismatches += it != host_iterations(args, x, y);
      uint8_t *p = rgb + ((size_t)y * width + x) * 3;
      if (it >= args->max_iter) {
        p[0] = p[1] = p[2] = 0;
      } else {
        double t = (double)it / args->max_iter;
        p[0] = (uint8_t)(9 * (1 - t) * t * t * t * 255);
        p[1] = (uint8_t)(15 * (1 - t) * (1 - t) * t * t * 255);
        p[2] = (uint8_t)(8.5 * (1 - t) * (1 - t) * (1 - t) * t * 255);
      }
    }
  int png_rc = png_write_rgb(png, rgb, width, height);
  free(rgb);
  printf("mandelbrot: %ux%u on \"%s\": finalize %.1f ms, run %.2f ms, %s, "
         "%s %s\n",
         width, height, ex.agent_name, finalize * 1e3, run * 1e3,
         mismatches ? "WRONG" : "matches the host",
         png_rc ? "could not write" : "wrote", png);

  CHECK(hsa_memory_free(args));
  CHECK(hsa_memory_free(out));
  example_shutdown(&ex);
  return mismatches != 0 || png_rc != 0;
}
