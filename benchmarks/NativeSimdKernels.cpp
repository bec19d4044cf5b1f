//===- benchmarks/NativeSimdKernels.cpp - Hand-vectorized twins -----------===//
//
// 16 lanes of 32 bits per vector (one AVX-512 register; two AVX ones).
// GCC's vector extensions do the arithmetic, compares and selects; fma,
// sqrt, gather and any-lane use AVX-512 intrinsics where the target has
// them, AVX2 ones on two halves where it has AVX2 only (the twins of
// openhsa-bench-simd-avx2, compiled for x86-64-v3), and a per-lane loop
// otherwise. Compiled -O3 -march=native -ffp-contract=off: a fused
// multiply-add is written where the HSAIL kernel has mad_f32, and nowhere
// else.
//
//===----------------------------------------------------------------------===//
#include "NativeSimdKernels.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <type_traits>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

namespace openhsa::bench::simd {

namespace {

constexpr unsigned L = 16; // Lanes.
typedef float vf __attribute__((vector_size(64)));
typedef int32_t vi __attribute__((vector_size(64)));
typedef uint32_t vu __attribute__((vector_size(64)));

template <typename V, typename T> inline V load(const T *P) {
  V R;
  std::memcpy(&R, P, sizeof(V));
  return R;
}
template <typename V, typename T> inline void store(T *P, V X) {
  std::memcpy(P, &X, sizeof(V));
}
// A broadcast. Not vf{} + X: without -ffast-math that is a scalar add of
// +0 (which turns -0 into +0) before the broadcast, an extra instruction
// in every loop that splats a load.
inline vf splat(float X) {
  return vf{X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X};
}
inline vu splatU(uint32_t X) { return vu{} + X; }
inline vi iota() {
  return vi{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
}

#if !defined(__AVX512F__) && defined(__AVX2__)
// AVX2 (the twins for a target without AVX-512, openhsa-bench-simd-avx2):
// a vector of 16 lanes is two registers of 8.
struct Halves {
  __m256 Lo, Hi;
};
inline Halves halves(vf A) {
  Halves H;
  std::memcpy(&H, &A, sizeof(A));
  return H;
}
inline vf joined(__m256 Lo, __m256 Hi) {
  const Halves H{Lo, Hi};
  vf R;
  std::memcpy(&R, &H, sizeof(R));
  return R;
}
#endif

inline vf fma(vf A, vf B, vf C) {
#ifdef __AVX512F__
  return (vf)_mm512_fmadd_ps((__m512)A, (__m512)B, (__m512)C);
#elif defined(__AVX2__)
  const Halves X = halves(A), Y = halves(B), Z = halves(C);
  return joined(_mm256_fmadd_ps(X.Lo, Y.Lo, Z.Lo),
                _mm256_fmadd_ps(X.Hi, Y.Hi, Z.Hi));
#else
  vf R;
  for (unsigned I = 0; I < L; ++I)
    R[I] = __builtin_fmaf(A[I], B[I], C[I]);
  return R;
#endif
}

inline vf sqrt(vf A) {
#ifdef __AVX512F__
  return (vf)_mm512_sqrt_ps((__m512)A);
#elif defined(__AVX2__)
  const Halves X = halves(A);
  return joined(_mm256_sqrt_ps(X.Lo), _mm256_sqrt_ps(X.Hi));
#else
  vf R;
  for (unsigned I = 0; I < L; ++I)
    R[I] = __builtin_sqrtf(A[I]);
  return R;
#endif
}

/// Whether any lane of the mask (0 or -1 per lane) is set.
inline bool any(vi M) {
#ifdef __AVX512F__
  return _mm512_test_epi32_mask((__m512i)M, (__m512i)M) != 0;
#elif defined(__AVX2__)
  const Halves X = halves((vf)M);
  const __m256i Or =
      _mm256_or_si256(_mm256_castps_si256(X.Lo), _mm256_castps_si256(X.Hi));
  return !_mm256_testz_si256(Or, Or);
#else
  uint32_t Or = 0;
  for (unsigned I = 0; I < L; ++I)
    Or |= M[I];
  return Or != 0;
#endif
}

/// T[Idx[l]] per lane.
inline vu gather(const uint32_t *T, vu Idx) {
#ifdef __AVX512F__
  return (vu)_mm512_i32gather_epi32((__m512i)Idx, T, 4);
#elif defined(__AVX2__)
  const Halves X = halves((vf)Idx);
  const auto *Base = reinterpret_cast<const int *>(T);
  return (vu)joined(_mm256_castsi256_ps(_mm256_i32gather_epi32(
                        Base, _mm256_castps_si256(X.Lo), 4)),
                    _mm256_castsi256_ps(_mm256_i32gather_epi32(
                        Base, _mm256_castps_si256(X.Hi), 4)));
#else
  vu R;
  for (unsigned I = 0; I < L; ++I)
    R[I] = T[Idx[I]];
  return R;
#endif
}

/// Runs Body(I) for each vector index I in [0, N / 16) on all cores, then
/// Tail(I) for the elements past the last whole vector.
template <typename B, typename T>
void forVectors(uint32_t N, uint32_t Grain, B Body, T Tail) {
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, N / L, Grain),
                    [&](const tbb::blocked_range<uint32_t> &R) {
                      for (uint32_t V = R.begin(); V < R.end(); ++V)
                        Body(size_t(V) * L);
                    });
  for (uint32_t I = N / L * L; I < N; ++I)
    Tail(I);
}

} // namespace

void vectorAdd(const float *A, const float *B, float *C, uint32_t N) {
  forVectors(
      N, 1024,
      [=](size_t I) { store(C + I, load<vf>(A + I) + load<vf>(B + I)); },
      [=](uint32_t I) { C[I] = A[I] + B[I]; });
}

void saxpy(const float *X, const float *Y, float *Out, float Alpha,
           uint32_t N) {
  const vf VA = splat(Alpha);
  forVectors(
      N, 1024,
      [=](size_t I) {
        store(Out + I, fma(VA, load<vf>(X + I), load<vf>(Y + I)));
      },
      [=](uint32_t I) { Out[I] = __builtin_fmaf(Alpha, X[I], Y[I]); });
}

// The same-algorithm twins of sgemm_naive and sgemm_tiled: one task per
// 16x16 tile of C, as one work-group of the kernels; in a tile, the 16
// work-items of a row are the 16 lanes of one accumulator vector.

void sgemmNaive(const float *A, const float *B, float *C, uint32_t N) {
  const uint32_t Tiles = N / L;
  tbb::parallel_for(
      tbb::blocked_range<uint32_t>(0, Tiles * Tiles, 1),
      [=](const tbb::blocked_range<uint32_t> &R) {
        for (uint32_t T = R.begin(); T < R.end(); ++T) {
          const uint32_t Row0 = T / Tiles * L, Col = T % Tiles * L;
          for (uint32_t Row = Row0; Row < Row0 + L; ++Row) {
            const float *Ar = A + size_t(Row) * N;
            vf Acc{};
            for (uint32_t K = 0; K < N; ++K)
              Acc = fma(splat(Ar[K]), load<vf>(B + size_t(K) * N + Col), Acc);
            store(C + size_t(Row) * N + Col, Acc);
          }
        }
      });
}

namespace {

/// sgemm_tiled's algorithm; ThroughMemory: with a compiler barrier after
/// each k-step's copies, so that the compute reads them back from memory.
template <bool ThroughMemory>
void sgemmTiledWith(const float *A, const float *B, float *C, uint32_t N) {
  const uint32_t Tiles = N / L;
  tbb::parallel_for(
      tbb::blocked_range<uint32_t>(0, Tiles * Tiles, 1),
      [=](const tbb::blocked_range<uint32_t> &R) {
        for (uint32_t T = R.begin(); T < R.end(); ++T) {
          const uint32_t Row0 = T / Tiles * L, Col0 = T % Tiles * L;
          vf Acc[L] = {}; // Row r of the tile: lanes are its 16 columns.
          for (uint32_t K0 = 0; K0 < N; K0 += L) {
            // What the work-group's group memory holds for this k-step.
            alignas(64) float As[L * L], Bs[L * L];
            for (uint32_t Y = 0; Y < L; ++Y) {
              store(As + Y * L, load<vf>(A + size_t(Row0 + Y) * N + K0));
              store(Bs + Y * L, load<vf>(B + size_t(K0 + Y) * N + Col0));
            }
            if constexpr (ThroughMemory) // The kernel's barrier.
              asm volatile("" : : "r"(As), "r"(Bs) : "memory");
            for (uint32_t Y = 0; Y < L; ++Y)
              for (uint32_t K = 0; K < L; ++K)
                Acc[Y] =
                    fma(splat(As[Y * L + K]), load<vf>(Bs + K * L), Acc[Y]);
          }
          for (uint32_t Y = 0; Y < L; ++Y)
            store(C + size_t(Row0 + Y) * N + Col0, Acc[Y]);
        }
      });
}

} // namespace

void sgemmTiled(const float *A, const float *B, float *C, uint32_t N) {
  sgemmTiledWith<false>(A, B, C, N);
}

void sgemmTiledThroughMemory(const float *A, const float *B, float *C,
                             uint32_t N) {
  sgemmTiledWith<true>(A, B, C, N);
}

namespace {

constexpr uint32_t GemmRows = 4, GemmVecs = 4, GemmCols = GemmVecs * L;

/// C[I0 .. I0+4)[J0 .. J0+64) over k in [K0, K1): starts from zero when
/// K0 is 0, else from what C holds, so that k-blocks continue the sums in
/// ascending k.
inline void gemmMicro(const float *A, const float *B, float *C, uint32_t N,
                      uint32_t I0, uint32_t J0, uint32_t K0, uint32_t K1) {
  vf Acc[GemmRows][GemmVecs];
  for (uint32_t R = 0; R < GemmRows; ++R)
    for (uint32_t V = 0; V < GemmVecs; ++V)
      Acc[R][V] =
          K0 == 0 ? vf{} : load<vf>(C + size_t(I0 + R) * N + J0 + V * L);
  for (uint32_t K = K0; K < K1; ++K) {
    vf Bk[GemmVecs];
    for (uint32_t V = 0; V < GemmVecs; ++V)
      Bk[V] = load<vf>(B + size_t(K) * N + J0 + V * L);
    for (uint32_t R = 0; R < GemmRows; ++R) {
      const vf Ar = splat(A[size_t(I0 + R) * N + K]);
      for (uint32_t V = 0; V < GemmVecs; ++V)
        Acc[R][V] = fma(Ar, Bk[V], Acc[R][V]);
    }
  }
  for (uint32_t R = 0; R < GemmRows; ++R)
    for (uint32_t V = 0; V < GemmVecs; ++V)
      store(C + size_t(I0 + R) * N + J0 + V * L, Acc[R][V]);
}

} // namespace

void sgemmBlocked(const float *A, const float *B, float *C, uint32_t N) {
  // Tiles ordered column panel first, so that a thread's consecutive
  // tiles share the panel of B (N x 64 floats) in its cache.
  const uint32_t RowTiles = N / GemmRows, ColTiles = N / GemmCols;
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, RowTiles * ColTiles, 16),
                    [=](const tbb::blocked_range<uint32_t> &R) {
                      for (uint32_t T = R.begin(); T < R.end(); ++T)
                        gemmMicro(A, B, C, N, (T % RowTiles) * GemmRows,
                                  (T / RowTiles) * GemmCols, 0, N);
                    });
}

void sgemmBlockedK(const float *A, const float *B, float *C, uint32_t N) {
  constexpr uint32_t KBlock = 256, RowBlock = 64;
  const uint32_t RowBlocks = N / RowBlock, ColTiles = N / GemmCols;
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, RowBlocks * ColTiles, 1),
                    [=](const tbb::blocked_range<uint32_t> &R) {
                      for (uint32_t T = R.begin(); T < R.end(); ++T) {
                        const uint32_t I0 = (T % RowBlocks) * RowBlock,
                                       J0 = (T / RowBlocks) * GemmCols;
                        for (uint32_t K0 = 0; K0 < N; K0 += KBlock)
                          for (uint32_t I = I0; I < I0 + RowBlock;
                               I += GemmRows)
                            gemmMicro(A, B, C, N, I, J0, K0,
                                      K0 + KBlock < N ? K0 + KBlock : N);
                      }
                    });
}

void reduceTree(const float *In, uint32_t N, float *Partial) {
  constexpr uint32_t Group = 256, Vecs = Group / L;
  const uint32_t Groups = (N + Group - 1) / Group;
  tbb::parallel_for(
      tbb::blocked_range<uint32_t>(0, Groups, 64),
      [=](const tbb::blocked_range<uint32_t> &R) {
        for (uint32_t G = R.begin(); G < R.end(); ++G) {
          const size_t I0 = size_t(G) * Group;
          vf S[Vecs]; // The group's scratch: element i is S[i / 16][i % 16].
          if (I0 + Group <= N) {
            for (uint32_t V = 0; V < Vecs; ++V)
              S[V] = load<vf>(In + I0 + V * L);
          } else { // A last, partial group: zeros past N.
            for (uint32_t I = 0; I < Group; ++I)
              S[I / L][I % L] = I0 + I < N ? In[I0 + I] : 0.0f;
          }
          // Strides 128, 64, 32, 16: scratch[i] += scratch[i + stride] for
          // i < stride, a vector at a time.
          for (uint32_t Stride = Vecs / 2; Stride > 0; Stride /= 2)
            for (uint32_t V = 0; V < Stride; ++V)
              S[V] += S[V + Stride];
          // Strides 8, 4, 2, 1 within the last vector: lane i (i < stride)
          // adds lane i + stride, the same pairs as the kernel's tree.
          vf X = S[0];
          X += __builtin_shufflevector(X, X, 8, 9, 10, 11, 12, 13, 14, 15, 8, 9,
                                       10, 11, 12, 13, 14, 15);
          X += __builtin_shufflevector(X, X, 4, 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7,
                                       4, 5, 6, 7);
          X += __builtin_shufflevector(X, X, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3,
                                       2, 3, 2, 3);
          X += __builtin_shufflevector(X, X, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                       1, 1, 1, 1);
          Partial[G] = X[0];
        }
      });
}

void scanSteps(const uint32_t *In, uint32_t *Out, uint32_t N) {
  constexpr uint32_t Group = 256, Vecs = Group / L;
  const vu Zero = vu{};
  // Vector X's lanes moved up by D (1, 2, 4, 8) elements, the top D lanes
  // of the vector below (zeros below the group) shifted in: one valignd
  // with AVX-512 (GCC makes a two-source permute of the shuffle, with its
  // index vector in a register).
  auto Up = [](auto D, vu Below, vu X) {
#ifdef __AVX512F__
    return vu(_mm512_alignr_epi32(__m512i(X), __m512i(Below), 16 - D()));
#else
    if constexpr (D() == 1)
      return __builtin_shufflevector(Below, X, 15, 16, 17, 18, 19, 20, 21, 22,
                                     23, 24, 25, 26, 27, 28, 29, 30);
    else if constexpr (D() == 2)
      return __builtin_shufflevector(Below, X, 14, 15, 16, 17, 18, 19, 20, 21,
                                     22, 23, 24, 25, 26, 27, 28, 29);
    else if constexpr (D() == 4)
      return __builtin_shufflevector(Below, X, 12, 13, 14, 15, 16, 17, 18, 19,
                                     20, 21, 22, 23, 24, 25, 26, 27);
    else
      return __builtin_shufflevector(Below, X, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                     17, 18, 19, 20, 21, 22, 23);
#endif
  };
  // One step of offset D below 16: element i adds element i - D as it was
  // before the step, vectors from the top down so that each reads the one
  // below before that one changes (unrolled in full: the group's 16
  // vectors stay in registers).
  auto Step = [&](auto D, vu(&S)[Vecs]) {
#pragma GCC unroll 16
    for (uint32_t V = Vecs - 1; V > 0; --V)
      S[V] += Up(D, S[V - 1], S[V]);
    S[0] += Up(D, Zero, S[0]);
  };
  tbb::parallel_for(
      tbb::blocked_range<uint32_t>(0, N / Group, 64),
      [=](const tbb::blocked_range<uint32_t> &R) {
        for (uint32_t G = R.begin(); G < R.end(); ++G) {
          const size_t I0 = size_t(G) * Group;
          vu S[Vecs]; // The group's scratch: element i is S[i / 16][i % 16].
          // The group's loads all wait before its first step, and they are
          // issued top down: the groups a few ahead are prefetched (as the
          // agent does for the kernel, WorkItemVectorizer's
          // prefetchForLaterGroups), else 1.3-1.7 ms against 0.7 for the
          // kernel on the 2-core EPYC.
          for (uint32_t V = 0; V < Vecs; ++V)
            __builtin_prefetch(In + I0 + 4 * Group + V * L);
          for (uint32_t V = 0; V < Vecs; ++V)
            S[V] = load<vu>(In + I0 + V * L);
          Step(std::integral_constant<int, 1>{}, S);
          Step(std::integral_constant<int, 2>{}, S);
          Step(std::integral_constant<int, 4>{}, S);
          Step(std::integral_constant<int, 8>{}, S);
      // Offsets 16, 32, 64, 128: whole vectors.
#pragma GCC unroll 4
          for (uint32_t By = 1; By < Vecs; By *= 2)
#pragma GCC unroll 16
            for (uint32_t V = Vecs - 1; V >= By; --V)
              S[V] += S[V - By];
          for (uint32_t V = 0; V < Vecs; ++V)
            store(Out + I0 + V * L, S[V]);
        }
      });
}

void scanCarry(const uint32_t *In, uint32_t *Out, uint32_t N) {
  constexpr uint32_t Group = 256;
  const vu Zero = vu{};
  tbb::parallel_for(
      tbb::blocked_range<uint32_t>(0, N / Group, 64),
      [=](const tbb::blocked_range<uint32_t> &R) {
        for (uint32_t G = R.begin(); G < R.end(); ++G) {
          const size_t I0 = size_t(G) * Group;
          vu Carry = Zero; // The sum of the group's earlier vectors.
          for (uint32_t V = 0; V < Group / L; ++V)
            __builtin_prefetch(In + I0 + 4 * Group + V * L);
          for (uint32_t V = 0; V < Group / L; ++V) {
            vu X = load<vu>(In + I0 + V * L);
            // In-register prefix sums: lanes shifted up by 1, 2, 4, 8 with
            // zeros shifted in.
            X += __builtin_shufflevector(Zero, X, 0, 16, 17, 18, 19, 20, 21, 22,
                                         23, 24, 25, 26, 27, 28, 29, 30);
            X += __builtin_shufflevector(Zero, X, 0, 1, 16, 17, 18, 19, 20, 21,
                                         22, 23, 24, 25, 26, 27, 28, 29);
            X += __builtin_shufflevector(Zero, X, 0, 1, 2, 3, 16, 17, 18, 19,
                                         20, 21, 22, 23, 24, 25, 26, 27);
            X += __builtin_shufflevector(Zero, X, 0, 1, 2, 3, 4, 5, 6, 7, 16,
                                         17, 18, 19, 20, 21, 22, 23);
            X += Carry;
            store(Out + I0 + V * L, X);
            Carry = __builtin_shufflevector(X, X, 15, 15, 15, 15, 15, 15, 15,
                                            15, 15, 15, 15, 15, 15, 15, 15, 15);
          }
        }
      });
}

double reduceFlat(const float *In, uint32_t N) {
  constexpr uint32_t Acc = 4; // Independent accumulators, for the latency.
  const uint32_t Blocks = N / (Acc * L);
  double Sum = tbb::parallel_reduce(
      tbb::blocked_range<uint32_t>(0, Blocks, 1024), 0.0,
      [=](const tbb::blocked_range<uint32_t> &R, double Init) {
        vf S[Acc] = {};
        for (uint32_t B = R.begin(); B < R.end(); ++B)
          for (uint32_t A = 0; A < Acc; ++A)
            S[A] += load<vf>(In + (size_t(B) * Acc + A) * L);
        double D = Init;
        for (uint32_t A = 0; A < Acc; ++A)
          for (unsigned I = 0; I < L; ++I)
            D += S[A][I];
        return D;
      },
      [](double X, double Y) { return X + Y; });
  for (uint32_t I = Blocks * Acc * L; I < N; ++I)
    Sum += In[I];
  return Sum;
}

void mandelbrot(uint32_t *Out, uint32_t Width, uint32_t Height,
                uint32_t MaxIter, float X0, float Y0, float Step) {
  // Two registers of pixels at a time: an iteration is a chain of
  // dependent multiplies and adds, and two independent chains keep the FP
  // units busy while each waits on the other's latency. With AVX-512 that
  // is two vectors (one at a time ran 10.2-11.1 ms on the 2-core EPYC,
  // two 6.3); with AVX2 a vector is two registers already (one vector 7.7
  // ms, two 8.4). Lanes that escaped stop counting; the vectors stop when
  // none of their lanes is left.
  tbb::parallel_for(
      tbb::blocked_range<uint32_t>(0, Height, 4),
      [=](const tbb::blocked_range<uint32_t> &R) {
        const vf VStep = splat(Step), VX0 = splat(X0), Four = splat(4.0f);
#ifdef __AVX512F__
        constexpr unsigned Ways = 2;
#else
        constexpr unsigned Ways = 1;
#endif
        for (uint32_t Y = R.begin(); Y < R.end(); ++Y) {
          const vf Cy = splat(__builtin_fmaf(float(Y), Step, Y0));
          for (uint32_t X = 0; X < Width; X += Ways * L) {
            // A row's last vectors: the second way of a lone one idles.
            const unsigned Live = Width - X >= Ways * L ? Ways : 1;
            vf Cx[Ways], Zx[Ways] = {}, Zy[Ways] = {};
            vi Count[Ways] = {}, Active[Ways];
            for (unsigned V = 0; V < Ways; ++V) {
              Cx[V] =
                  fma(__builtin_convertvector(iota() + int32_t(X + V * L), vf),
                      VStep, VX0);
              Active[V] = V < Live ? ~vi{} : vi{};
            }
            for (uint32_t I = 0; I < MaxIter; ++I) {
              vf Zx2[Ways], Zy2[Ways];
              for (unsigned V = 0; V < Ways; ++V) {
                Zx2[V] = Zx[V] * Zx[V];
                Zy2[V] = Zy[V] * Zy[V];
                Active[V] &= ~(Zx2[V] + Zy2[V] > Four);
              }
              vi Any = Active[0];
              for (unsigned V = 1; V < Ways; ++V)
                Any |= Active[V];
              if (!any(Any))
                break;
              for (unsigned V = 0; V < Ways; ++V) {
                const vf T = Zx[V] * Zy[V];
                Zy[V] = Active[V] ? (T + T) + Cy : Zy[V];
                Zx[V] = Active[V] ? (Zx2[V] - Zy2[V]) + Cx[V] : Zx[V];
                Count[V] -= Active[V]; // -1 where active.
              }
            }
            for (unsigned V = 0; V < Live; ++V)
              store(Out + size_t(Y) * Width + X + V * L, Count[V]);
          }
        }
      });
}

void nbody(const float *Pos, const float *Vel, float *PosOut, float *VelOut,
           uint32_t N, float Dt, float Eps2) {
  tbb::parallel_for(
      tbb::blocked_range<uint32_t>(0, N / L, 1),
      [=](const tbb::blocked_range<uint32_t> &R) {
        const vf VEps2 = splat(Eps2), VDt = splat(Dt);
        for (uint32_t B = R.begin(); B < R.end(); ++B) {
          const size_t I0 = size_t(B) * L;
          vf Px, Py, Pz;
          for (unsigned I = 0; I < L; ++I) { // Structure of arrays.
            Px[I] = Pos[(I0 + I) * 4];
            Py[I] = Pos[(I0 + I) * 4 + 1];
            Pz[I] = Pos[(I0 + I) * 4 + 2];
          }
          vf Ax{}, Ay{}, Az{};
          for (uint32_t J = 0; J < N; ++J) {
            const float *Pj = Pos + size_t(J) * 4;
            const vf Dx = splat(Pj[0]) - Px, Dy = splat(Pj[1]) - Py,
                     Dz = splat(Pj[2]) - Pz;
            vf D2 = Dx * Dx;
            D2 = fma(Dy, Dy, D2);
            D2 = fma(Dz, Dz, D2);
            D2 = D2 + VEps2;
            const vf S = splat(Pj[3]) / (sqrt(D2) * D2);
            Ax = fma(Dx, S, Ax);
            Ay = fma(Dy, S, Ay);
            Az = fma(Dz, S, Az);
          }
          vf Vx, Vy, Vz;
          for (unsigned I = 0; I < L; ++I) {
            Vx[I] = Vel[(I0 + I) * 4];
            Vy[I] = Vel[(I0 + I) * 4 + 1];
            Vz[I] = Vel[(I0 + I) * 4 + 2];
          }
          Vx = fma(Ax, VDt, Vx);
          Vy = fma(Ay, VDt, Vy);
          Vz = fma(Az, VDt, Vz);
          Px = fma(Vx, VDt, Px);
          Py = fma(Vy, VDt, Py);
          Pz = fma(Vz, VDt, Pz);
          for (unsigned I = 0; I < L; ++I) {
            float *P = PosOut + (I0 + I) * 4, *V = VelOut + (I0 + I) * 4;
            P[0] = Px[I], P[1] = Py[I], P[2] = Pz[I],
            P[3] = Pos[(I0 + I) * 4 + 3];
            V[0] = Vx[I], V[1] = Vy[I], V[2] = Vz[I],
            V[3] = Vel[(I0 + I) * 4 + 3];
          }
        }
      });
}

void stencil(const float *In, float *Out, uint32_t Width, uint32_t Height) {
  tbb::parallel_for(
      tbb::blocked_range<uint32_t>(1, Height - 1, 8),
      [=](const tbb::blocked_range<uint32_t> &R) {
        const vf Eighth = splat(0.125f), Half = splat(0.5f);
        const ptrdiff_t P = Width; // Signed: C - P is the row above.
        for (uint32_t Y = R.begin(); Y < R.end(); ++Y) {
          const float *C = In + size_t(Y) * Width;
          float *O = Out + size_t(Y) * Width;
          uint32_t X = 1;
          for (; X + L <= Width - 1; X += L) {
            const vf S = ((load<vf>(C + X - 1) + load<vf>(C + X + 1)) +
                          load<vf>(C + X - P)) +
                         load<vf>(C + X + P);
            store(O + X, fma(load<vf>(C + X), Half, S * Eighth));
          }
          for (; X < Width - 1; ++X) { // The row's last partial vector.
            const float S = ((C[X - 1] + C[X + 1]) + C[X - P]) + C[X + P];
            O[X] = __builtin_fmaf(C[X], 0.5f, S * 0.125f);
          }
        }
      });
}

void median3x3(const float *In, float *Out, uint32_t Width, uint32_t Height) {
  // The nine values of 16 points in nine registers; each compare-exchange
  // of the kernel's passes a min and a max of two of them.
  auto Median = [](auto *P) {
    for (unsigned Pass = 0; Pass < 5; ++Pass)
      for (unsigned J = 0; J < 8 - Pass; ++J) {
        const auto A = P[J], B = P[J + 1];
        P[J] = B < A ? B : A;
        P[J + 1] = A < B ? B : A;
      }
    return P[4];
  };
  tbb::parallel_for(
      tbb::blocked_range<uint32_t>(1, Height - 1, 8),
      [=](const tbb::blocked_range<uint32_t> &R) {
        const ptrdiff_t Pitch = Width; // Signed: C - Pitch is the row above.
        for (uint32_t Y = R.begin(); Y < R.end(); ++Y) {
          const float *C = In + size_t(Y) * Width;
          float *O = Out + size_t(Y) * Width;
          uint32_t X = 1;
          for (; X + L <= Width - 1; X += L) {
            vf P[9];
            for (int Dy = -1, K = 0; Dy <= 1; ++Dy)
              for (int Dx = -1; Dx <= 1; ++Dx)
                P[K++] = load<vf>(C + Dy * Pitch + X + Dx);
            store(O + X, Median(P));
          }
          for (; X < Width - 1; ++X) { // The row's last partial vector.
            float P[9];
            for (int Dy = -1, K = 0; Dy <= 1; ++Dy)
              for (int Dx = -1; Dx <= 1; ++Dx)
                P[K++] = C[Dy * Pitch + X + Dx];
            O[X] = Median(P);
          }
        }
      });
}

void histogram(const uint32_t *In, uint32_t N, uint32_t *Bins) {
  // The kernel's atomicnoret_add_global_rlx_agent_u32: a relaxed atomic
  // add per element into the one histogram all threads share.
  std::memset(Bins, 0, 256 * sizeof(uint32_t));
  forVectors(
      N, 4096,
      [=](size_t I) {
        const vu Bin = load<vu>(In + I) & 255u;
        for (unsigned J = 0; J < L; ++J)
          std::atomic_ref<uint32_t>(Bins[Bin[J]])
              .fetch_add(1, std::memory_order_relaxed);
      },
      [=](uint32_t I) {
        std::atomic_ref<uint32_t>(Bins[In[I] & 255])
            .fetch_add(1, std::memory_order_relaxed);
      });
}

void histogramPrivate(const uint32_t *In, uint32_t N, uint32_t *Bins) {
  // Per-thread histograms (four interleaved copies, so that increments of
  // one bin by neighbouring lanes do not wait on each other), merged at
  // the end: no shared cache line is written while counting.
  using Local = std::array<uint32_t, 4 * 256>;
  tbb::enumerable_thread_specific<Local> Hist([] { return Local{}; });
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, N / L, 4096),
                    [&](const tbb::blocked_range<uint32_t> &R) {
                      Local &H = Hist.local();
                      for (uint32_t V = R.begin(); V < R.end(); ++V) {
                        const vu Bin = load<vu>(In + size_t(V) * L) & 255u;
                        for (unsigned I = 0; I < L; ++I)
                          ++H[(I & 3) * 256 + Bin[I]];
                      }
                    });
  std::memset(Bins, 0, 256 * sizeof(uint32_t));
  Hist.combine_each([&](const Local &H) {
    for (unsigned B = 0; B < 4 * 256; ++B)
      Bins[B & 255] += H[B];
  });
  for (uint32_t I = N / L * L; I < N; ++I)
    ++Bins[In[I] & 255];
}

void binarySearch(const uint32_t *Table, uint32_t TableN, const uint32_t *Keys,
                  uint32_t *Out, uint32_t N) {
  // Branchless lower bound: every lane takes the same log2(TableN) steps,
  // so the lanes never diverge; one gather per step. Four vectors of keys
  // go through the steps together, so that four independent gathers are
  // in flight while each waits on memory.
  constexpr unsigned Ways = 4;
  auto Search = [=](vu *Key) {
    vu Base[Ways] = {};
    for (uint32_t Len = TableN; Len > 1;) {
      const uint32_t Half = Len / 2;
      for (unsigned V = 0; V < Ways; ++V)
        Base[V] = gather(Table, Base[V] + (Half - 1)) < Key[V] ? Base[V] + Half
                                                               : Base[V];
      Len -= Half;
    }
    for (unsigned V = 0; V < Ways; ++V) // + 1 where less.
      Key[V] = Base[V] - (vu)(gather(Table, Base[V]) < Key[V]);
  };
  const uint32_t Blocks = N / (Ways * L);
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, Blocks, 64),
                    [=](const tbb::blocked_range<uint32_t> &R) {
                      for (uint32_t B = R.begin(); B < R.end(); ++B) {
                        const size_t I = size_t(B) * Ways * L;
                        vu K[Ways];
                        for (unsigned V = 0; V < Ways; ++V)
                          K[V] = load<vu>(Keys + I + V * L);
                        Search(K);
                        for (unsigned V = 0; V < Ways; ++V)
                          store(Out + I + V * L, K[V]);
                      }
                    });
  for (uint32_t I = Blocks * Ways * L; I < N; ++I) {
    vu K[Ways] = {splatU(Keys[I])};
    Search(K);
    Out[I] = K[0][0];
  }
}

namespace {

constexpr unsigned CeilingChains = 8;

/// Steps fused multiply-adds on each of 8 vectors; their sum.
float vectorChains(uint32_t Seed, uint32_t Steps) {
  const vf M = splat(0.9999f), B = splat(1e-4f);
  vf Acc[CeilingChains];
  for (unsigned K = 0; K < CeilingChains; ++K)
    Acc[K] = splat(float(Seed % 64 + K) * 1e-3f);
  for (uint32_t S = 0; S < Steps; ++S)
    for (unsigned K = 0; K < CeilingChains; ++K)
      Acc[K] = fma(Acc[K], M, B);
  float Sum = 0;
  for (unsigned K = 0; K < CeilingChains; ++K)
    for (unsigned I = 0; I < L; ++I)
      Sum += Acc[K][I];
  return Sum;
}

/// Steps multiply-adds (a linear congruential step) on each of 8 scalars.
float scalarChains(uint32_t Seed, uint32_t Steps) {
  uint64_t Acc[CeilingChains];
  for (unsigned K = 0; K < CeilingChains; ++K)
    Acc[K] = Seed + K;
  for (uint32_t S = 0; S < Steps; ++S)
    for (unsigned K = 0; K < CeilingChains; ++K) {
      Acc[K] = Acc[K] * 6364136223846793005ull + 1442695040888963407ull;
      // An empty asm that claims to change the value: otherwise the
      // compiler runs the 8 chains as one vector (vpmullq).
      asm("" : "+r"(Acc[K]));
    }
  uint64_t X = 0;
  for (unsigned K = 0; K < CeilingChains; ++K)
    X ^= Acc[K];
  return float(X >> 40);
}

} // namespace

void computeCeiling(float *Out, uint32_t Chunks, uint32_t Steps, bool Vector) {
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, Chunks, 1),
                    [=](const tbb::blocked_range<uint32_t> &R) {
                      for (uint32_t C = R.begin(); C < R.end(); ++C)
                        Out[C] = Vector ? vectorChains(C, Steps)
                                        : scalarChains(C, Steps);
                    });
}

} // namespace openhsa::bench::simd
