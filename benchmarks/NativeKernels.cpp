//===- benchmarks/NativeKernels.cpp - The same work in native C++ ---------===//
#include "NativeKernels.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

namespace openhsa::bench {

void nativeVectorAdd(const float *A, const float *B, float *C, uint32_t N) {
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, N),
                    [=](const tbb::blocked_range<uint32_t> &R) {
                      for (uint32_t I = R.begin(); I < R.end(); ++I)
                        C[I] = A[I] + B[I];
                    });
}

} // namespace openhsa::bench
