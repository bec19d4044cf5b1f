//===- benchmarks/NativeSimdKernels.h - Hand-vectorized twins -*- C++ -*-===//
//
// The native twins of benchmarks/kernels/*.hsail, written the way a
// performance engineer writes them: oneTBB over all cores and the inner
// work explicitly 16 lanes at a time (GCC vector extensions, with masks
// where lanes diverge), -O3 -march=native (NativeSimdKernels.cpp). Each
// twin runs its HSAIL kernel's algorithm and computes what it computes,
// in the same floating-point operation order (mad_f32 as a fused
// multiply-add), so that the results can be compared at benchmark setup
// and the time ratio measures the code generated, not the algorithm.
// Where a better algorithm is well known (register-blocked sgemm, a flat
// reduction, private histograms), it is here too, as a reference.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_BENCHMARKS_NATIVESIMDKERNELS_H
#define OPENHSA_BENCHMARKS_NATIVESIMDKERNELS_H

#include <cstdint>

namespace openhsa::bench::simd {

/// C[i] = A[i] + B[i].
void vectorAdd(const float *A, const float *B, float *C, uint32_t N);
/// Out[i] = fma(Alpha, X[i], Y[i]).
void saxpy(const float *X, const float *Y, float *Out, float Alpha, uint32_t N);
/// C = A * B, N x N row-major, N a multiple of 16; sgemm_naive's
/// algorithm: per 16x16 tile of C (a work-group), per row and 16 columns
/// one accumulator vector, over k A[row][k] broadcast times the 16
/// contiguous B[k][col..col+15], fused; sums in ascending k.
void sgemmNaive(const float *A, const float *B, float *C, uint32_t N);
/// The same product with sgemm_tiled's algorithm: per 16x16 tile of C,
/// per k-step of 16 the 16x16 tiles of A and B copied into local arrays
/// (group memory), then per tile row an accumulator vector += As[row][k]
/// broadcast times the Bs[k] vector for k in 0..15. Same sums, same order.
void sgemmTiled(const float *A, const float *B, float *C, uint32_t N);
/// sgemmTiled with the tiles' copies kept in memory, as the kernel's group
/// memory is (a compiler barrier after each copy): the compiler may not
/// load B's rows straight into registers. A probe of where the kernel's
/// time goes (BM_SgemmTiledNativeThroughMemory), not a twin.
void sgemmTiledThroughMemory(const float *A, const float *B, float *C,
                             uint32_t N);
/// Best known algorithm (reference): register-blocked, 4 rows x 64 columns
/// of C in 16 registers, N a multiple of 64; same sums, same order.
void sgemmBlocked(const float *A, const float *B, float *C, uint32_t N);
/// The same, also blocked in k (256) so that a 256 x 64 panel of B stays
/// in cache while 64 rows of C use it; same sums, same order.
void sgemmBlockedK(const float *A, const float *B, float *C, uint32_t N);
/// The reduction kernel's algorithm: per group of 256 elements, a tree of
/// halving strides (128 down to 1, the same float adds in the same pairs
/// as the kernel's); Partial[group] = the group's sum. Partial holds
/// (N + 255) / 256 floats (a last, partial group is summed with zeros
/// past N).
void reduceTree(const float *In, uint32_t N, float *Partial);
/// Best known algorithm (reference): the sum of In[0..N) by
/// parallel_reduce, in float per lane and double across lanes and threads.
double reduceFlat(const float *In, uint32_t N);
/// The scan kernel's algorithm (Hillis and Steele): each group of 256's
/// inclusive prefix sums (N a multiple of 256) in steps of offsets 1, 2,
/// 4, ..., 128, each element adding the one offset below it: 8 adds an
/// element.
void scanSteps(const uint32_t *In, uint32_t *Out, uint32_t N);
/// Best known algorithm (reference): the same sums, each vector's prefix
/// sums in registers (offsets 1 to 8 within it) plus a running sum of the
/// vectors before it: 5 adds an element.
void scanCarry(const uint32_t *In, uint32_t *Out, uint32_t N);
/// Iteration counts of the Mandelbrot set (examples/mandelbrot's kernel),
/// Width a multiple of 16.
void mandelbrot(uint32_t *Out, uint32_t Width, uint32_t Height,
                uint32_t MaxIter, float X0, float Y0, float Step);
/// One n-body step; Pos is (x, y, z, mass) per body, Vel (x, y, z, 0); N a
/// multiple of 16.
void nbody(const float *Pos, const float *Vel, float *PosOut, float *VelOut,
           uint32_t N, float Dt, float Eps2);
/// The 5-point stencil of the interior of a Width x Height grid; Out's
/// border is not written.
void stencil(const float *In, float *Out, uint32_t Width, uint32_t Height);
/// The median of each interior point's 3x3 neighbourhood of a Width x
/// Height grid, by the kernel's five bubble-sort passes of min/max
/// compare-exchanges, in registers; Out's border is not written.
void median3x3(const float *In, float *Out, uint32_t Width, uint32_t Height);
/// Bins[In[i] & 255] += 1, Bins zeroed first; the histogram kernel's
/// algorithm: bins computed 16 at a time, then one relaxed atomic add per
/// element into the one shared histogram.
void histogram(const uint32_t *In, uint32_t N, uint32_t *Bins);
/// Best known algorithm (reference): the same counts from per-thread
/// histograms merged at the end.
void histogramPrivate(const uint32_t *In, uint32_t N, uint32_t *Bins);
/// Out[i] = lower bound of Keys[i] in the sorted Table (a branchless
/// search, 16 keys at a time with gathers).
void binarySearch(const uint32_t *Table, uint32_t TableN, const uint32_t *Keys,
                  uint32_t *Out, uint32_t N);

/// Not a twin: what more cores give code that needs nothing but its own
/// core (no memory traffic, no shared data), the ceiling of any kernel's
/// scaling on this machine. Chunks independent tasks across oneTBB's
/// threads, each Steps rounds of a fused multiply-add on 8 vectors held in
/// registers (Vector; 8 chains keep both FP pipes busy) or of an integer
/// multiply and add on 8 64-bit scalars (!Vector: no vector unit, so no
/// AVX frequency licence). Out[c] is task c's result, so that nothing is
/// optimized away.
void computeCeiling(float *Out, uint32_t Chunks, uint32_t Steps, bool Vector);

} // namespace openhsa::bench::simd

#endif
