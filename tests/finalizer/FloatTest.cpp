//===- tests/finalizer/FloatTest.cpp - Floating-point instructions --------===//
//
// PRM 4.19 and 5.11-5.14 through the finalizer: every arithmetic
// instruction in every rounding mode, with and without ftz, for f16, f32
// and f64, over edge values (signed zeros, subnormals, the normal range's
// edges, ties, overflow, infinities, quiet and signaling NaNs) and random
// values. f32/f64 references are the host's hardware with MXCSR set to the
// mode (and FTZ/DAZ); f16 references round exact values (FloatReference.h).
//
//===----------------------------------------------------------------------===//
#include "FloatReference.h"
#include "KernelRunner.h"

#include <functional>
#include <tuple>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

using namespace openhsa::test;
using namespace openhsa::test::fp;

namespace {

std::string hex(uint64_t V) {
  char Buf[32];
  snprintf(Buf, sizeof(Buf), "0x%llx", (unsigned long long)V);
  return Buf;
}

/// "_ftz_up" and the like; near is written out unless Implicit.
std::string mods(Round R, bool Ftz, bool Implicit = false) {
  std::string S = Ftz ? "_ftz" : "";
  if (!(Implicit && R == Round::Near))
    S += std::string("_") + roundName(R);
  return S;
}

/// PRM 4.19.4: with NaN sources the result is one of them made quiet (the
/// sign may differ; which one, where several are NaN, is the
/// implementation's: x86's AVX forms return the first, its SSE forms
/// whichever operand register allocation put first); a NaN produced
/// otherwise must be quiet.
::testing::AssertionResult sameFloat(Format F, uint64_t Got, uint64_t Want,
                                     std::initializer_list<uint64_t> Srcs) {
  std::string NaNs;
  for (uint64_t S : Srcs)
    if (isNaN(F, S)) {
      const uint64_t Q = (S | F.quietBit()) & ~F.signBit();
      if ((Got & ~F.signBit()) == Q)
        return ::testing::AssertionSuccess();
      NaNs += (NaNs.empty() ? "" : " or ") + hex(Q);
    }
  if (!NaNs.empty())
    return ::testing::AssertionFailure()
           << "got " << hex(Got) << ", want NaN " << NaNs;
  if (isNaN(F, Want)) {
    if (isNaN(F, Got) && !isSignaling(F, Got))
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << "got " << hex(Got) << ", want a quiet NaN";
  }
  if (Got == Want)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "got " << hex(Got) << ", want " << hex(Want);
}

const char *typeName(Format F) {
  return F.Bits == 16 ? "f16" : F.Bits == 32 ? "f32" : "f64";
}

/// Operand tuples for an operation with N sources: all pairs of edge
/// values (triples: against a few addends) and random tuples.
std::vector<std::vector<uint64_t>> operandsFor(Format F, unsigned N) {
  std::vector<uint64_t> E;
  if (F.Bits == 16)
    for (uint16_t X : edgeF16())
      E.push_back(X);
  else if (F.Bits == 32)
    for (uint32_t X : edgeF32())
      E.push_back(X);
  else
    E = edgeF64();
  Rng R(F.Bits * 131 + N);
  std::vector<std::vector<uint64_t>> Cols(N);
  auto Add = [&](uint64_t A, uint64_t B, uint64_t C) {
    Cols[0].push_back(A);
    if (N > 1)
      Cols[1].push_back(B);
    if (N > 2)
      Cols[2].push_back(C);
  };
  if (N == 1) {
    for (uint64_t X : E)
      Add(X, 0, 0);
  } else {
    for (uint64_t X : E)
      for (uint64_t Y : E)
        if (N == 2)
          Add(X, Y, 0);
        else
          for (size_t K = 0; K < E.size(); K += 7)
            Add(X, Y, E[K]);
  }
  std::vector<uint64_t> Rand = randomPatterns(F, R, 3000 * N);
  for (size_t I = 0; I + N <= Rand.size(); I += N)
    Add(Rand[I], N > 1 ? Rand[I + 1] : 0, N > 2 ? Rand[I + 2] : 0);
  // Near-cancelling sums and products into the subnormal range.
  for (int I = 0; I < 1500; ++I) {
    uint64_t X = randomPatterns(F, R, 1)[0];
    uint64_t Y = X ^ F.signBit() ^ (R.next() & 0xff);
    Add(X, Y, randomPatterns(F, R, 1)[0] ^ (R.next() & 1 ? F.signBit() : 0));
  }
  return Cols;
}

template <typename T> std::vector<T> narrowTo(const std::vector<uint64_t> &V) {
  return std::vector<T>(V.begin(), V.end());
}

/// Runs "<op><mods>_<type> dest, srcs" over Cols and returns the results'
/// bits.
std::vector<uint64_t> runFloat(const std::string &Header, Format F,
                               const std::string &Inst,
                               const std::vector<std::vector<uint64_t>> &Cols) {
  const char C = F.Bits == 64 ? 'd' : 's';
  ElementwiseKernel K;
  K.Header = Header;
  K.Out = C;
  K.In = std::string(Cols.size(), C);
  K.Body = "\t" + Inst + " $" + C + "4";
  for (size_t I = 0; I < Cols.size(); ++I)
    K.Body += ", $" + std::string(1, C) + std::to_string(I);
  K.Body += ";";
  std::vector<uint64_t> Out;
  if (F.Bits == 64) {
    llvm::Expected<std::vector<uint64_t>> R =
        Cols.size() == 1 ? runElementwise<uint64_t>(K, Cols[0])
        : Cols.size() == 2
            ? runElementwise<uint64_t>(K, Cols[0], Cols[1])
            : runElementwise<uint64_t>(K, Cols[0], Cols[1], Cols[2]);
    if (!R) {
      ADD_FAILURE() << Inst << ": " << llvm::toString(R.takeError());
      return {};
    }
    Out = *R;
  } else {
    std::vector<std::vector<uint32_t>> C32;
    for (const auto &Col : Cols)
      C32.push_back(narrowTo<uint32_t>(Col));
    llvm::Expected<std::vector<uint32_t>> R =
        C32.size() == 1   ? runElementwise<uint32_t>(K, C32[0])
        : C32.size() == 2 ? runElementwise<uint32_t>(K, C32[0], C32[1])
                          : runElementwise<uint32_t>(K, C32[0], C32[1], C32[2]);
    if (!R) {
      ADD_FAILURE() << Inst << ": " << llvm::toString(R.takeError());
      return {};
    }
    for (uint32_t X : *R)
      Out.push_back(F.Bits == 16 ? X & 0xffff : X);
  }
  return Out;
}

const char *FullHeader = "module &m:1:0:$full:$large:$default;";

/// The exact (or correctly rounded, where that is as good: see below)
/// f16 result of Op as a double or quad.
uint64_t refF16(char Op, Round R, bool Ftz, uint64_t XB, uint64_t YB,
                uint64_t ZB) {
  auto In = [&](uint64_t B) {
    return Ftz && isSubnormal(F16, B) ? B & F16.signBit() : B;
  };
  XB = In(XB);
  YB = In(YB);
  ZB = In(ZB);
  const double X = f16ToDouble(uint16_t(XB)), Y = f16ToDouble(uint16_t(YB)),
               Z = f16ToDouble(uint16_t(ZB));
  const bool SX = XB & 0x8000, SY = YB & 0x8000, SZ = ZB & 0x8000;
  double V; // Exact in f64 for +, -, *; for / and sqrt, rounding it again
            // to f16 is exact too (a quotient or root of f16 values is
            // never that close to an f16 boundary without being on it).
  bool NegZero = false;
  Quad Q = 0;
  bool UseQuad = false;
  switch (Op) {
  case '+':
  case '-': {
    const bool SY2 = Op == '-' ? !SY : SY;
    V = Op == '+' ? X + Y : X - Y;
    NegZero = R == Round::Down ? (SX || SY2) : (SX && SY2);
    break;
  }
  case '*':
    V = X * Y;
    NegZero = SX != SY;
    break;
  case '/':
    V = X / Y;
    NegZero = SX != SY;
    break;
  case 's':
    V = std::sqrt(X);
    NegZero = SX;
    break;
  default: { // fma: exact in quad.
    Q = Quad(X) * Quad(Y) + Quad(Z);
    UseQuad = true;
    const bool SP = SX != SY;
    NegZero = R == Round::Down ? (SP || SZ) : (SP && SZ);
    V = double(Q);
    break;
  }
  }
  if (std::isnan(V))
    return 0x7e00;
  if (std::isinf(V))
    return V < 0 ? 0xfc00 : 0x7c00;
  return roundTo(F16, UseQuad ? Q : Quad(V), R, Ftz, NegZero);
}

struct ArithCase {
  const char *Name;
  char Op;
  unsigned Sources;
};
const ArithCase ArithCases[] = {{"add", '+', 2}, {"sub", '-', 2},
                                {"mul", '*', 2}, {"div", '/', 2},
                                {"fma", 'f', 3}, {"sqrt", 's', 1}};

void checkArithmetic(Format F) {
  for (const ArithCase &A : ArithCases) {
    auto Cols = operandsFor(F, A.Sources);
    for (Round R : AllRounds)
      for (bool Ftz : {false, true}) {
        const std::string Inst =
            std::string(A.Name) + mods(R, Ftz) + "_" + typeName(F);
        std::vector<uint64_t> Got = runFloat(FullHeader, F, Inst, Cols);
        ASSERT_EQ(Got.size(), Cols[0].size()) << Inst;
        unsigned Failures = 0;
        for (size_t I = 0; I < Got.size() && Failures < 20; ++I) {
          const uint64_t X = Cols[0][I], Y = A.Sources > 1 ? Cols[1][I] : 0,
                         Z = A.Sources > 2 ? Cols[2][I] : 0;
          uint64_t Want;
          if (F.Bits == 16)
            Want = refF16(A.Op, R, Ftz, X, Y, Z);
          else if (F.Bits == 32)
            Want = bitsOf(hostArith<float>(A.Op, R, Ftz, floatOf(uint32_t(X)),
                                           floatOf(uint32_t(Y)),
                                           floatOf(uint32_t(Z))));
          else
            Want = bitsOf(hostArith<double>(A.Op, R, Ftz, doubleOf(X),
                                            doubleOf(Y), doubleOf(Z)));
          ::testing::AssertionResult Same =
              A.Sources == 1   ? sameFloat(F, Got[I], Want, {X})
              : A.Sources == 2 ? sameFloat(F, Got[I], Want, {X, Y})
                               : sameFloat(F, Got[I], Want, {X, Y, Z});
          if (!Same) {
            ++Failures;
            ADD_FAILURE() << Inst << " " << hex(X) << " " << hex(Y) << " "
                          << hex(Z) << ": " << Same.message();
          }
        }
      }
  }
}

// PRM 4.19.2-4.19.4, 5.11: add, sub, mul, div, fma, sqrt correctly rounded
// in the four modes, with and without ftz, NaNs propagated and quieted.
TEST(FloatTest, F32ArithmeticAllModes) { checkArithmetic(F32); }
TEST(FloatTest, F64ArithmeticAllModes) { checkArithmetic(F64); }
TEST(FloatTest, F16ArithmeticAllModes) { checkArithmetic(F16); }

/// An f64 with a random 53-bit significand, sign S and exponent E (biased,
/// 1..2046), or a subnormal for E == 0.
uint64_t makeF64(Rng &R, bool S, int E) {
  return (S ? F64.signBit() : 0) | uint64_t(E) << 52 |
         (R.next() & ((uint64_t(1) << 52) - 1));
}

// f64 results whose exponents are at the edges of what the exact sequences
// handle: products and quotients into and below the subnormal range and
// near overflow, fused sums with the addend from far above to far below
// the product (around the 2^65 and 2^-105 relative bounds), cancelling
// sums, in every mode, with and without ftz.
TEST(FloatTest, F64ExponentEdges) {
  Rng R(2024);
  std::vector<std::vector<uint64_t>> Mul(2), Fma(3);
  for (int I = 0; I < 4000; ++I) {
    const bool S1 = R.next() & 1, S2 = R.next() & 1;
    // Exponent sums from -1200 to +1100 around the limits.
    const int E1 = 1 + int(R.next() % 2046);
    const int Target =
        (R.next() & 1) ? -1022 - int(R.next() % 80) : 1023 - int(R.next() % 6);
    int E2 = Target - (E1 - 1023) + 1023 + int(R.next() % 5) - 2;
    E2 = std::max(0, std::min(2046, E2));
    Mul[0].push_back(makeF64(R, S1, E1));
    Mul[1].push_back(makeF64(R, S2, E2));
  }
  for (int I = 0; I < 6000; ++I) {
    const bool S1 = R.next() & 1, S2 = R.next() & 1, S3 = R.next() & 1;
    const int E1 = 400 + int(R.next() % 1200);
    const int E2 = 1 + int(R.next() % 1000);
    const int Prod = E1 + E2 - 1023; // Biased exponent of the product.
    // The addend from 120 above to 130 below the product.
    int E3 = Prod + 120 - int(R.next() % 251);
    if (I % 5 == 0)
      E3 = Prod; // Cancellation candidates.
    E3 = std::max(0, std::min(2046, E3));
    uint64_t Z = makeF64(R, S3, E3);
    uint64_t X = makeF64(R, S1, E1), Y = makeF64(R, S2, E2);
    if (I % 5 == 0) { // z close to -x*y.
      const double P = doubleOf(X) * doubleOf(Y);
      Z = bitsOf(-P) ^ (R.next() & 3);
    }
    if (I % 7 == 0) // Results in the subnormal range.
      X = makeF64(R, S1, std::max(1, 1023 - 1022 - (E2 - 1023) - 2));
    Fma[0].push_back(X);
    Fma[1].push_back(Y);
    Fma[2].push_back(Z);
  }
  for (Round Rd : AllRounds)
    for (bool Ftz : {false, true}) {
      for (char Op : {'*', '/', 'f'}) {
        const std::string Name = Op == '*' ? "mul" : Op == '/' ? "div" : "fma";
        const auto &Cols = Op == 'f' ? Fma : Mul;
        const std::string Inst = Name + mods(Rd, Ftz) + "_f64";
        std::vector<uint64_t> Got = runFloat(FullHeader, F64, Inst, Cols);
        ASSERT_EQ(Got.size(), Cols[0].size()) << Inst;
        for (size_t I = 0; I < Got.size(); ++I) {
          const uint64_t X = Cols[0][I], Y = Cols[1][I],
                         Z = Op == 'f' ? Cols[2][I] : 0;
          const uint64_t Want = bitsOf(hostArith<double>(
              Op, Rd, Ftz, doubleOf(X), doubleOf(Y), doubleOf(Z)));
          ASSERT_TRUE(sameFloat(F64, Got[I], Want, {X, Y, Z}))
              << Inst << " " << hex(X) << " " << hex(Y) << " " << hex(Z);
        }
      }
    }
}

// PRM 5.12: mad is fused here (the single-round method), in every mode.
TEST(FloatTest, MadIsSingleRounding) {
  auto Cols = operandsFor(F32, 3);
  for (Round R : AllRounds) {
    std::vector<uint64_t> Got =
        runFloat(FullHeader, F32, "mad" + mods(R, false) + "_f32", Cols);
    ASSERT_EQ(Got.size(), Cols[0].size());
    for (size_t I = 0; I < Got.size(); ++I) {
      uint64_t Want = bitsOf(hostArith<float>(
          'f', R, false, floatOf(uint32_t(Cols[0][I])),
          floatOf(uint32_t(Cols[1][I])), floatOf(uint32_t(Cols[2][I]))));
      ASSERT_TRUE(
          sameFloat(F32, Got[I], Want, {Cols[0][I], Cols[1][I], Cols[2][I]}))
          << "mad " << roundName(R) << " " << I;
    }
  }
}

// PRM 4.19.2, chapter 14: without a rounding modifier the module's default
// applies ($zero here); an explicit one overrides it.
TEST(FloatTest, ModuleDefaultRounding) {
  auto Cols = operandsFor(F32, 2);
  const char *ZeroHeader = "module &m:1:0:$full:$large:$zero;";
  for (auto [Inst, R] : {std::pair{"add_f32", Round::Zero},
                         std::pair{"add_near_f32", Round::Near},
                         std::pair{"add_up_f32", Round::Up}}) {
    std::vector<uint64_t> Got = runFloat(ZeroHeader, F32, Inst, Cols);
    ASSERT_EQ(Got.size(), Cols[0].size());
    for (size_t I = 0; I < Got.size(); ++I) {
      uint64_t Want =
          bitsOf(hostArith<float>('+', R, false, floatOf(uint32_t(Cols[0][I])),
                                  floatOf(uint32_t(Cols[1][I])), 0.0f));
      ASSERT_TRUE(sameFloat(F32, Got[I], Want, {Cols[0][I], Cols[1][I]}))
          << Inst << " " << hex(Cols[0][I]) << " " << hex(Cols[1][I]);
    }
  }
  // f16 follows the same default.
  auto H = operandsFor(F16, 2);
  std::vector<uint64_t> Got = runFloat(ZeroHeader, F16, "mul_f16", H);
  ASSERT_EQ(Got.size(), H[0].size());
  for (size_t I = 0; I < Got.size(); ++I)
    ASSERT_TRUE(sameFloat(F16, Got[I],
                          refF16('*', Round::Zero, false, H[0][I], H[1][I], 0),
                          {H[0][I], H[1][I]}))
        << hex(H[0][I]) << " " << hex(H[1][I]);
}

// PRM 16.2.1: the base profile flushes subnormals (ftz is required) and
// allows only the default rounding and no f64.
// On x86-64 a base-profile program's f32 arithmetic runs under the MXCSR's
// FTZ and DAZ (finalizer/Finalizer.cpp), which its work-group function sets
// and puts back: every operation that then uses the host's instruction
// flushes as ftz does, and the caller's MXCSR is as it was.
TEST(FloatTest, BaseProfile) {
  const char *BaseHeader = "module &m:1:0:$base:$large:$default;";
  for (auto [Name, Op, Arity] : {std::tuple{"mul_ftz_f32", '*', 2},
                                 {"add_ftz_f32", '+', 2},
                                 {"sub_ftz_f32", '-', 2},
                                 {"fma_ftz_f32", 'f', 3},
                                 {"div_ftz_f32", '/', 2},
                                 {"sqrt_ftz_f32", 's', 1}}) {
    auto Cols = operandsFor(F32, Arity);
#if defined(__x86_64__)
    const unsigned Before = _mm_getcsr();
#endif
    std::vector<uint64_t> Got = runFloat(BaseHeader, F32, Name, Cols);
#if defined(__x86_64__)
    EXPECT_EQ(_mm_getcsr(), Before) << Name << " left the MXCSR changed";
#endif
    ASSERT_EQ(Got.size(), Cols[0].size());
    for (size_t I = 0; I < Got.size(); ++I) {
      const float X = floatOf(uint32_t(Cols[0][I]));
      const float Y = Arity > 1 ? floatOf(uint32_t(Cols[1][I])) : 0.0f;
      const float Z = Arity > 2 ? floatOf(uint32_t(Cols[2][I])) : 0.0f;
      const uint64_t Want =
          bitsOf(hostArith<float>(Op, Round::Near, true, X, Y, Z));
      ASSERT_TRUE(Arity == 1 ? sameFloat(F32, Got[I], Want, {Cols[0][I]})
                  : Arity == 2
                      ? sameFloat(F32, Got[I], Want, {Cols[0][I], Cols[1][I]})
                      : sameFloat(F32, Got[I], Want,
                                  {Cols[0][I], Cols[1][I], Cols[2][I]}))
          << Name << " " << hex(Cols[0][I]) << " "
          << (Arity > 1 ? hex(Cols[1][I]) : "");
    }
  }
  for (const char *Bad :
       {"add_ftz_up_f32 $s4, $s0, $s1;", "div_ftz_near_f32 $s4, $s0, $s1;",
        "cvt_ftz_upi_s32_f32 $s4, $s0;"}) {
    ElementwiseKernel K;
    K.Header = BaseHeader;
    K.In = "ss";
    K.Body = std::string("\t") + Bad;
    auto P = finalizeText(elementwiseSource(K));
    ASSERT_FALSE(bool(P)) << Bad;
    std::string Message = llvm::toString(P.takeError());
    EXPECT_NE(Message.find(std::string(Bad).substr(0, 3)), std::string::npos)
        << Message;
  }
}

/// The reference of an operation on one f16/f32/f64 value pair computed
/// through double (exact for the operations below).
double valueOf(Format F, uint64_t B) {
  return F.Bits == 16   ? f16ToDouble(uint16_t(B))
         : F.Bits == 32 ? double(floatOf(uint32_t(B)))
                        : doubleOf(B);
}
uint64_t flushBits(Format F, uint64_t B, bool Ftz) {
  return Ftz && isSubnormal(F, B) ? B & F.signBit() : B;
}

// PRM 5.11: minNum/maxNum: a quiet NaN gives the other operand, a
// signaling NaN a quiet NaN; -0 < +0 here; ftz flushes the operands.
TEST(FloatTest, MinMax) {
  for (Format F : {F16, F32, F64})
    for (bool Max : {false, true})
      for (bool Ftz : {false, true}) {
        auto Cols = operandsFor(F, 2);
        const std::string Inst = std::string(Max ? "max" : "min") +
                                 (Ftz ? "_ftz_" : "_") + typeName(F);
        std::vector<uint64_t> Got = runFloat(FullHeader, F, Inst, Cols);
        ASSERT_EQ(Got.size(), Cols[0].size()) << Inst;
        for (size_t I = 0; I < Got.size(); ++I) {
          const uint64_t X = flushBits(F, Cols[0][I], Ftz),
                         Y = flushBits(F, Cols[1][I], Ftz);
          uint64_t Want;
          if (isSignaling(F, X))
            Want = X | F.quietBit();
          else if (isSignaling(F, Y))
            Want = Y | F.quietBit();
          else if (isNaN(F, X))
            Want = Y;
          else if (isNaN(F, Y))
            Want = X;
          else {
            const double VX = valueOf(F, X), VY = valueOf(F, Y);
            if (VX == VY) // Equal values, or zeros: -0 is the smaller.
              Want = Max ? (X & Y) : (X | Y);
            else
              Want = (VX < VY) != Max ? X : Y;
          }
          if (isNaN(F, Want))
            Want |= F.quietBit();
          ASSERT_EQ(Got[I], Want)
              << Inst << " " << hex(Cols[0][I]) << " " << hex(Cols[1][I]);
        }
      }
}

// PRM 5.11: ceil, floor, rint (ties to even), trunc; infinities and zeros
// kept, NaNs quieted, ftz flushing the source.
TEST(FloatTest, IntegralRoundings) {
  struct Case {
    const char *Name;
    double (*Fn)(double);
  } Cases[] = {{"ceil", std::ceil},
               {"floor", std::floor},
               {"rint", std::nearbyint},
               {"trunc", std::trunc}};
  for (Format F : {F16, F32, F64})
    for (const Case &C : Cases)
      for (bool Ftz : {false, true}) {
        auto Cols = operandsFor(F, 1);
        const std::string Inst =
            std::string(C.Name) + (Ftz ? "_ftz_" : "_") + typeName(F);
        std::vector<uint64_t> Got = runFloat(FullHeader, F, Inst, Cols);
        ASSERT_EQ(Got.size(), Cols[0].size()) << Inst;
        for (size_t I = 0; I < Got.size(); ++I) {
          const uint64_t X = flushBits(F, Cols[0][I], Ftz);
          uint64_t Want;
          if (isNaN(F, X)) {
            Want = X | F.quietBit();
          } else {
            const double V = C.Fn(valueOf(F, X)); // Exact, sign kept.
            Want = roundTo(F, Quad(V), Round::Near, false, std::signbit(V));
            if (std::isinf(V))
              Want = (V < 0 ? F.signBit() : 0) | F.infBits();
          }
          ASSERT_EQ(Got[I], Want) << Inst << " " << hex(Cols[0][I]);
        }
      }
}

// PRM 5.11 fract: min(round(x - floor(x)), largest value below 1) in each
// mode; zeros kept, infinities give zeros of their sign.
TEST(FloatTest, Fract) {
  for (Format F : {F16, F32, F64})
    for (Round R : AllRounds)
      for (bool Ftz : {false, true}) {
        auto Cols = operandsFor(F, 1);
        const std::string Inst =
            std::string("fract") + mods(R, Ftz) + "_" + typeName(F);
        std::vector<uint64_t> Got = runFloat(FullHeader, F, Inst, Cols);
        ASSERT_EQ(Got.size(), Cols[0].size()) << Inst;
        const uint64_t Below1 =
            (uint64_t(F.bias() - 1) << F.Mant) | ((uint64_t(1) << F.Mant) - 1);
        for (size_t I = 0; I < Got.size(); ++I) {
          const uint64_t X = flushBits(F, Cols[0][I], Ftz);
          const double V = valueOf(F, X);
          uint64_t Want;
          if (isNaN(F, X))
            Want = X | F.quietBit();
          else if (V == 0)
            Want = X;
          else if (std::isinf(V))
            Want = X & F.signBit();
          else {
            // x - floor(x) is exact in quad except for negative x of
            // magnitude below 2^-60 (f64), where it is 1 - |x|: any value
            // that close below 1 rounds alike.
            const Quad D = V < 0 && V > -std::ldexp(1.0, -60)
                               ? 1 - Quad(std::ldexp(1.0, -100))
                               : Quad(V) - Quad(std::floor(V));
            Want = roundTo(F, D, R, Ftz, R == Round::Down);
            if (Want == Below1 + 1) // 1.0
              Want = Below1;
          }
          ASSERT_EQ(Got[I], Want)
              << Inst << " " << hex(Cols[0][I]) << " got " << hex(Got[I]);
        }
      }
}

// PRM 5.13: abs, neg, copysign are bit operations (signaling NaNs stay
// signaling, subnormals are not flushed); class tests each class bit.
TEST(FloatTest, BitOperationsAndClass) {
  for (Format F : {F16, F32, F64}) {
    auto Cols = operandsFor(F, 2);
    for (const char *Name : {"abs", "neg", "copysign"}) {
      const bool Two = Name[0] == 'c';
      std::vector<std::vector<uint64_t>> In = {Cols[0]};
      if (Two)
        In.push_back(Cols[1]);
      const std::string Inst = std::string(Name) + "_" + typeName(F);
      std::vector<uint64_t> Got = runFloat(FullHeader, F, Inst, In);
      ASSERT_EQ(Got.size(), Cols[0].size()) << Inst;
      for (size_t I = 0; I < Got.size(); ++I) {
        const uint64_t X = Cols[0][I], S = F.signBit();
        const uint64_t Want = Name[0] == 'a'   ? X & ~S
                              : Name[0] == 'n' ? X ^ S
                                               : (X & ~S) | (Cols[1][I] & S);
        ASSERT_EQ(Got[I], Want) << Inst << " " << hex(X);
      }
    }
    // class: each condition bit alone, and combinations.
    std::vector<uint64_t> X = Cols[0];
    std::vector<uint32_t> Cond;
    for (size_t I = 0; I < X.size(); ++I)
      Cond.push_back(I < 1024 ? 1u << (I % 10) : uint32_t(I * 2654435761u));
    const char C = F.Bits == 64 ? 'd' : 's';
    ElementwiseKernel K;
    K.In = std::string{C, 's'};
    K.Out = 'c';
    K.Body =
        std::string("\tclass_b1_") + typeName(F) + " $c4, $" + C + "0, $s1;";
    llvm::Expected<std::vector<uint32_t>> R =
        F.Bits == 64 ? runElementwise<uint32_t>(K, X, Cond)
                     : runElementwise<uint32_t>(K, narrowTo<uint32_t>(X), Cond);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    for (size_t I = 0; I < X.size(); ++I) {
      const uint64_t B = X[I];
      const bool Neg = B & F.signBit();
      const uint64_t A = B & ~F.signBit();
      uint32_t Class;
      if (isSignaling(F, B))
        Class = 0x001;
      else if (isNaN(F, B))
        Class = 0x002;
      else if (A == F.infBits())
        Class = Neg ? 0x004 : 0x200;
      else if (A == 0)
        Class = Neg ? 0x020 : 0x040;
      else if (isSubnormal(F, B))
        Class = Neg ? 0x010 : 0x080;
      else
        Class = Neg ? 0x008 : 0x100;
      ASSERT_EQ((*R)[I], (Class & Cond[I]) ? 1u : 0u)
          << typeName(F) << " " << hex(B) << " cond " << hex(Cond[I]);
    }
  }
}

// PRM 5.14: native operations; any accuracy is allowed, these are checked
// to be close to the true functions on ordinary arguments.
TEST(FloatTest, NativeOperations) {
  std::vector<float> X;
  for (int I = -2000; I <= 2000; ++I)
    X.push_back(float(I) * 0.01f + 0.003f);
  struct Case {
    const char *Inst;
    std::function<double(double)> Ref;
    double Tolerance; // Relative, or absolute for sin/cos.
    bool Positive;
  } Cases[] = {
      {"nsin_f32", [](double V) { return std::sin(V); }, 1e-6, false},
      {"ncos_f32", [](double V) { return std::cos(V); }, 1e-6, false},
      {"nexp2_f32", [](double V) { return std::exp2(V); }, 1e-6, false},
      {"nlog2_f32", [](double V) { return std::log2(V); }, 1e-6, true},
      {"nrcp_f32", [](double V) { return 1 / V; }, 1e-6, false},
      {"nsqrt_f32", [](double V) { return std::sqrt(V); }, 1e-6, true},
      {"nrsqrt_f32", [](double V) { return 1 / std::sqrt(V); }, 1e-6, true},
  };
  for (const Case &C : Cases) {
    std::vector<float> In;
    for (float V : X)
      In.push_back(C.Positive ? std::fabs(V) + 1e-3f : V);
    ElementwiseKernel K;
    K.In = "s";
    K.Body = std::string("\t") + C.Inst + " $s4, $s0;";
    auto R = runElementwise<float>(K, In);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    for (size_t I = 0; I < In.size(); ++I) {
      const double Want = C.Ref(In[I]);
      const double Err = std::fabs((*R)[I] - Want);
      const bool Abs = C.Inst[1] == 's' || C.Inst[1] == 'c';
      ASSERT_LE(Err, C.Tolerance * (Abs ? 1.0 : std::fabs(Want)) + 1e-30)
          << C.Inst << "(" << In[I] << ") = " << (*R)[I] << ", want " << Want;
    }
  }
  // Special values.
  const float Inf = INFINITY;
  std::vector<float> S = {0.0f, -0.0f, Inf, -Inf, NAN, -1.0f, 128.5f, -150.0f};
  struct Special {
    const char *Inst;
    std::vector<float> Want; // NaN: any NaN.
  } Specials[] = {
      {"nexp2_f32", {1, 1, Inf, 0, NAN, 0.5f, Inf, std::ldexp(1.0f, -150)}},
      {"nlog2_f32", {-Inf, -Inf, Inf, NAN, NAN, NAN, std::log2(128.5f), NAN}},
      {"nsin_f32",
       {0, -0.0f, NAN, NAN, NAN, std::sin(-1.0f), std::sin(128.5f),
        std::sin(-150.0f)}},
  };
  for (const Special &Sp : Specials) {
    ElementwiseKernel K;
    K.In = "s";
    K.Body = std::string("\t") + Sp.Inst + " $s4, $s0;";
    auto R = runElementwise<float>(K, S);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    for (size_t I = 0; I < S.size(); ++I) {
      if (std::isnan(Sp.Want[I]))
        EXPECT_TRUE(std::isnan((*R)[I])) << Sp.Inst << "(" << S[I] << ")";
      else if (std::isinf(Sp.Want[I]))
        EXPECT_EQ((*R)[I], Sp.Want[I]) << Sp.Inst << "(" << S[I] << ")";
      else
        EXPECT_NEAR((*R)[I], Sp.Want[I], 1e-6 * std::fabs(Sp.Want[I]) + 1e-45)
            << Sp.Inst << "(" << S[I] << ")";
    }
  }
  // nfma and the f16/f64 forms compile and compute.
  for (const char *Inst : {"nfma_f32 $s4, $s0, $s0, $s0;", "nrcp_f16 $s4, $s0;",
                           "nsqrt_f64 $d4, $d0;", "nrsqrt_f16 $s4, $s0;",
                           "nfma_f64 $d4, $d0, $d0, $d0;"}) {
    ElementwiseKernel K;
    const bool D = std::string(Inst).find("f64") != std::string::npos;
    K.In = D ? "d" : "s";
    K.Out = D ? 'd' : 's';
    K.Body = std::string("\t") + Inst;
    auto P = finalizeText(elementwiseSource(K));
    ASSERT_TRUE(bool(P)) << Inst << ": " << llvm::toString(P.takeError());
  }
  ElementwiseKernel K;
  K.In = "s";
  K.Body = "\tnfma_f32 $s4, $s0, $s0, $s0;";
  auto R = runElementwise<float>(K, std::vector<float>{3.0f, -2.0f});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ((*R)[0], 12.0f);
  EXPECT_EQ((*R)[1], 2.0f);
}

} // namespace
