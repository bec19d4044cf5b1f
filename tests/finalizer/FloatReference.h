//===- tests/finalizer/FloatReference.h - Host floating-point references -*-
// C++ -*-===//
//
// References for the floating-point tests (FloatTest, ConvertTest,
// PackedTest), independent of how the finalizer computes:
//  - f32 and f64 arithmetic on the host's own hardware with MXCSR set to
//    the rounding mode and, for ftz, to FTZ and DAZ (x86 detects tininess
//    after rounding, as HSAIL's ftz here does);
//  - roundTo(): an exact value (__float128) rounded to f16, f32 or f64 by
//    searching the format's ordered bit patterns for its neighbours and
//    choosing by the IEEE rules; ftz from the same rounding with the
//    exponent unbounded.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_TESTS_FINALIZER_FLOATREFERENCE_H
#define OPENHSA_TESTS_FINALIZER_FLOATREFERENCE_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>
#include <xmmintrin.h>

namespace openhsa::test::fp {

enum class Round { Near, Zero, Up, Down };
inline constexpr Round AllRounds[] = {Round::Near, Round::Zero, Round::Up,
                                      Round::Down};
inline const char *roundName(Round R) {
  switch (R) {
  case Round::Near:
    return "near";
  case Round::Zero:
    return "zero";
  case Round::Up:
    return "up";
  case Round::Down:
    return "down";
  }
  return "?";
}

using Quad = __float128;

struct Format {
  unsigned Bits, Mant, Exp;
  int bias() const { return (1 << (Exp - 1)) - 1; }
  int emin() const { return 1 - bias(); }
  int emax() const { return bias(); }
  uint64_t signBit() const { return uint64_t(1) << (Bits - 1); }
  uint64_t infBits() const { return ((uint64_t(1) << Exp) - 1) << Mant; }
  uint64_t quietBit() const { return uint64_t(1) << (Mant - 1); }
  uint64_t maxBits() const { return infBits() - 1; }
};
inline constexpr Format F16{16, 10, 5}, F32{32, 23, 8}, F64{64, 52, 11};

inline bool isNaN(Format F, uint64_t B) {
  return (B & ~F.signBit()) > F.infBits();
}
inline bool isSignaling(Format F, uint64_t B) {
  return isNaN(F, B) && !(B & F.quietBit());
}
inline bool isSubnormal(Format F, uint64_t B) {
  uint64_t A = B & ~F.signBit();
  return A != 0 && A < (uint64_t(1) << F.Mant);
}

inline double f16ToDouble(uint16_t H) {
  const int E = (H >> 10) & 31, M = H & 1023;
  double V = E == 0    ? std::ldexp(double(M), -24)
             : E == 31 ? (M ? NAN : INFINITY)
                       : std::ldexp(double(M | 1024), E - 25);
  return (H & 0x8000) ? -V : V;
}

inline uint32_t bitsOf(float X) {
  uint32_t B;
  std::memcpy(&B, &X, 4);
  return B;
}
inline uint64_t bitsOf(double X) {
  uint64_t B;
  std::memcpy(&B, &X, 8);
  return B;
}
inline float floatOf(uint32_t B) {
  float X;
  std::memcpy(&X, &B, 4);
  return X;
}
inline double doubleOf(uint64_t B) {
  double X;
  std::memcpy(&X, &B, 8);
  return X;
}

/// The exact value of a finite (or infinite) pattern of F.
inline Quad decode(Format F, uint64_t B) {
  if (F.Bits == 16)
    return Quad(f16ToDouble(uint16_t(B)));
  if (F.Bits == 32)
    return Quad(floatOf(uint32_t(B)));
  return Quad(doubleOf(B));
}

inline Quad pow2(int E) {
  Quad V = 1;
  for (; E > 0; --E)
    V *= 2;
  for (; E < 0; ++E)
    V /= 2;
  return V;
}

/// The magnitude pattern of positive A rounded to F (exponent bounded).
inline uint64_t roundMagnitude(Format F, Quad A, Round R, bool Neg) {
  const bool Away = (R == Round::Up && !Neg) || (R == Round::Down && Neg);
  const bool Toward = !Away && R != Round::Near;
  const Quad Top = pow2(F.emax() + 1); // The next value after the largest.
  if (A >= Top)
    return Toward ? F.maxBits() : F.infBits();
  // The largest pattern P whose value is <= A.
  uint64_t Lo = 0, Hi = F.infBits(); // value(Hi) taken as Top > A.
  while (Hi - Lo > 1) {
    uint64_t Mid = Lo + (Hi - Lo) / 2;
    if (decode(F, Mid) <= A)
      Lo = Mid;
    else
      Hi = Mid;
  }
  const Quad VLo = decode(F, Lo);
  if (VLo == A)
    return Lo;
  const Quad VHi = Lo + 1 == F.infBits() ? Top : decode(F, Lo + 1);
  if (Away)
    return Lo + 1;
  if (Toward)
    return Lo;
  const Quad DLo = A - VLo, DHi = VHi - A;
  if (DLo < DHi)
    return Lo;
  if (DHi < DLo)
    return Lo + 1;
  return (Lo & 1) ? Lo + 1 : Lo;
}

/// Exact V rounded to F in mode R; with Ftz, results tiny after rounding
/// (exponent unbounded) become zero of their sign. NegZero: the sign of an
/// exact zero.
inline uint64_t roundTo(Format F, Quad V, Round R, bool Ftz,
                        bool NegZero = false) {
  const bool Neg = V < 0 || (V == 0 && NegZero);
  const Quad A = Neg ? -V : V;
  const uint64_t Sign = Neg ? F.signBit() : 0;
  if (A == 0)
    return Sign;
  uint64_t P = roundMagnitude(F, A, R, Neg);
  if (Ftz) {
    const Quad MinNormal = pow2(F.emin());
    if (A < MinNormal) {
      Quad Scaled = A;
      int K = 0;
      while (Scaled < MinNormal) {
        Scaled *= 2;
        ++K;
      }
      const uint64_t PU = roundMagnitude(F, Scaled, R, Neg);
      if (K >= 2 || decode(F, PU) < pow2(F.emin() + 1))
        P = 0;
    }
  }
  return P | Sign;
}

/// MXCSR for rounding R, with FTZ and DAZ for Ftz.
inline unsigned mxcsrFor(Round R, bool Ftz) {
  unsigned C = _mm_getcsr() & ~(0x6000u | 0x8040u);
  const unsigned RC = R == Round::Near   ? 0
                      : R == Round::Down ? 1
                      : R == Round::Up   ? 2
                                         : 3;
  return C | RC << 13 | (Ftz ? 0x8040u : 0u);
}

/// Sets MXCSR for its lifetime.
struct HostMode {
  unsigned Saved;
  HostMode(Round R, bool Ftz) : Saved(_mm_getcsr()) {
    _mm_setcsr(mxcsrFor(R, Ftz));
  }
  ~HostMode() { _mm_setcsr(Saved); }
};

/// Keeps the compiler from moving or folding X across the MXCSR changes.
template <typename T> T opaque(T X) {
  asm volatile("" : "+x"(X));
  return X;
}

/// The host's Op ('+', '-', '*', '/', 'f' fma, 's' sqrt) in mode R.
template <typename T> T hostArith(char Op, Round R, bool Ftz, T X, T Y, T Z) {
  T Res;
  {
    HostMode M(R, Ftz);
    X = opaque(X);
    Y = opaque(Y);
    Z = opaque(Z);
    switch (Op) {
    case '+':
      Res = X + Y;
      break;
    case '-':
      Res = X - Y;
      break;
    case '*':
      Res = X * Y;
      break;
    case '/':
      Res = X / Y;
      break;
    case 'f':
      Res = std::fma(X, Y, Z);
      break;
    default:
      Res = std::sqrt(X);
      break;
    }
    Res = opaque(Res);
  }
  return Res;
}

/// Interesting f32 bit patterns: zeros, subnormals, the normal range's
/// edges, values whose sums and products tie, the largest values,
/// infinities and NaNs with payloads, with both signs.
inline std::vector<uint32_t> edgeF32() {
  std::vector<uint32_t> V = {
      0x00000000, 0x00000001, 0x00000002, 0x007fffff, 0x00400000, 0x00800000,
      0x00800001, 0x00ffffff, 0x01000000, 0x3f800000, 0x3f800001, 0x3fc00000,
      0x40000000, 0x40400000, 0x3dcccccd, 0x3eaaaaab, 0x4b000000, 0x4b000001,
      0x33800000, 0x34000000, 0x5f800000, 0x1f800000, 0x7f7fffff, 0x7f7ffffe,
      0x7f000000, 0x7f800000, 0x7fc00001, 0x7f800123, 0x3f7fffff, 0x26800000,
      // Products just above (1 - 2^-24) * 2^-126: normal after rounding to
      // the subnormal grid, tiny after rounding with unbounded exponent.
      0x3f31f7bb, 0x00b81f90, 0x3fb4fd92, 0x005a862a,
      // A product in (1 - 2^-25, 1) * 2^-126: not tiny rounding to nearest.
      0x3f350f52, 0x00b4fa95};
  const size_t N = V.size();
  for (size_t I = 0; I < N; ++I)
    V.push_back(V[I] | 0x80000000);
  return V;
}

inline std::vector<uint64_t> edgeF64() {
  std::vector<uint64_t> V = {
      0x0000000000000000, 0x0000000000000001, 0x0000000000000002,
      0x000fffffffffffff, 0x0008000000000000, 0x0010000000000000,
      0x0010000000000001, 0x001fffffffffffff, 0x3ff0000000000000,
      0x3ff0000000000001, 0x3ff8000000000000, 0x4000000000000000,
      0x4008000000000000, 0x3fb999999999999a, 0x3fd5555555555555,
      0x4330000000000000, 0x4330000000000001, 0x3ca0000000000000,
      0x3cb0000000000000, 0x5ff0000000000000, 0x1ff0000000000000,
      0x7fefffffffffffff, 0x7feffffffffffffe, 0x7fe0000000000000,
      0x7ff0000000000000, 0x7ff8000000000001, 0x7ff0000000000123,
      0x3fefffffffffffff, 0x2000000000000000, 0x0340000000000000,
      // A product just above (1 - 2^-53) * 2^-1022 (as in edgeF32).
      0x3feffffffbfffffe, 0x0010000002000001,
      // A product in (1 - 2^-54, 1) * 2^-1022.
      0x3feffffffe000000, 0x0010000001000000};
  const size_t N = V.size();
  for (size_t I = 0; I < N; ++I)
    V.push_back(V[I] | 0x8000000000000000ull);
  return V;
}

inline std::vector<uint16_t> edgeF16() {
  std::vector<uint16_t> V = {0x0000, 0x0001, 0x0002, 0x03ff, 0x0200, 0x0400,
                             0x0401, 0x07ff, 0x3c00, 0x3c01, 0x3e00, 0x4000,
                             0x4200, 0x2e66, 0x3555, 0x6400, 0x6401, 0x1400,
                             0x1800, 0x7bff, 0x7bfe, 0x7800, 0x7c00, 0x7e01,
                             0x7c23, 0x3bff, 0x0800, 0x5bff,
                             // A product just above (1 - 2^-11) * 2^-14.
                             0x3811, 0x07de,
                             // A product in (1 - 2^-12, 1) * 2^-14.
                             0x39a8, 0x05a8};
  const size_t N = V.size();
  for (size_t I = 0; I < N; ++I)
    V.push_back(V[I] | 0x8000);
  return V;
}

/// A deterministic pseudo-random generator (splitmix64).
struct Rng {
  uint64_t S;
  explicit Rng(uint64_t Seed) : S(Seed) {}
  uint64_t next() {
    uint64_t Z = (S += 0x9e3779b97f4a7c15ull);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ull;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebull;
    return Z ^ (Z >> 31);
  }
};

/// Random patterns of F: half uniform over all patterns, half with
/// exponents near the subnormal range or near 1, where rounding and
/// flushing are most interesting.
inline std::vector<uint64_t> randomPatterns(Format F, Rng &R, size_t N) {
  std::vector<uint64_t> V;
  const uint64_t MantMask = (uint64_t(1) << F.Mant) - 1;
  for (size_t I = 0; I < N; ++I) {
    uint64_t X = R.next();
    if (I % 2 == 0) {
      V.push_back(X & ((F.signBit() << 1) - 1));
      continue;
    }
    uint64_t E = (X >> 40) % 6; // 0..5: subnormal to small normals.
    if (I % 4 == 3)
      E = uint64_t(F.bias() - 3) + (X >> 40) % 6; // Around 1.
    V.push_back(((X >> 63) ? F.signBit() : 0) | E << F.Mant | (X & MantMask));
  }
  return V;
}

} // namespace openhsa::test::fp

#endif
