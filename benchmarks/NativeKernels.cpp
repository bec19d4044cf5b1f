//===- benchmarks/NativeKernels.cpp - The same work in native C++ ---------===//
#include "NativeKernels.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/blocked_range2d.h>
#include <oneapi/tbb/parallel_for.h>

#include <cmath>

namespace openhsa::bench {

void nativeVectorAdd(const float *A, const float *B, float *C, uint32_t N) {
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, N),
                    [=](const tbb::blocked_range<uint32_t> &R) {
                      for (uint32_t I = R.begin(); I < R.end(); ++I)
                        C[I] = A[I] + B[I];
                    });
}

void nativeMandelbrot(uint32_t *Out, uint32_t Width, uint32_t Height,
                      uint32_t MaxIter, float X0, float Y0, float Step) {
  tbb::parallel_for(
      tbb::blocked_range2d<uint32_t>(0, Height, 16, 0, Width, 16),
      [=](const tbb::blocked_range2d<uint32_t> &R) {
        for (uint32_t Y = R.rows().begin(); Y < R.rows().end(); ++Y)
          for (uint32_t X = R.cols().begin(); X < R.cols().end(); ++X) {
            // The HSAIL kernel's operations, mad as fma.
            float Cx = std::fma(float(X), Step, X0);
            float Cy = std::fma(float(Y), Step, Y0);
            float Zx = 0, Zy = 0;
            uint32_t I = 0;
            while (I < MaxIter) {
              float Zx2 = Zx * Zx, Zy2 = Zy * Zy;
              if (Zx2 + Zy2 > 4.0f)
                break;
              float T = Zx * Zy;
              Zy = (T + T) + Cy;
              Zx = (Zx2 - Zy2) + Cx;
              ++I;
            }
            Out[size_t(Y) * Width + X] = I;
          }
      });
}

} // namespace openhsa::bench
