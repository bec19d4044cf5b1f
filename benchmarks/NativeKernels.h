//===- benchmarks/NativeKernels.h - The same work in native C++ -*- C++ -*-===//
//
// References for the finalizer benchmarks: the computations of the HSAIL
// examples written in C++, compiled -O3 -march=native, run with oneTBB on
// all cores (NativeKernels.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_BENCHMARKS_NATIVEKERNELS_H
#define OPENHSA_BENCHMARKS_NATIVEKERNELS_H

#include <cstdint>

namespace openhsa::bench {

void nativeVectorAdd(const float *A, const float *B, float *C, uint32_t N);

} // namespace openhsa::bench

#endif
