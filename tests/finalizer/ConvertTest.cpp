//===- tests/finalizer/ConvertTest.cpp - cvt and cmp ----------------------===//
//
// PRM 5.19 (cvt: every legal pair of types, every integer rounding with and
// without saturation, every floating-point rounding, ftz, b1) and 5.18
// (cmp: every comparison for every source type and destination type).
//
//===----------------------------------------------------------------------===//
#include "FloatReference.h"
#include "KernelRunner.h"

#include <limits>

using namespace openhsa::test;
using namespace openhsa::test::fp;

namespace {

std::string hex(uint64_t V) {
  char Buf[32];
  snprintf(Buf, sizeof(Buf), "0x%llx", (unsigned long long)V);
  return Buf;
}

struct TypeInfo {
  const char *Name;
  unsigned Bits;
  bool Float, Signed;
};
const TypeInfo Ints[] = {{"u8", 8, false, false},   {"s8", 8, false, true},
                         {"u16", 16, false, false}, {"s16", 16, false, true},
                         {"u32", 32, false, false}, {"s32", 32, false, true},
                         {"u64", 64, false, false}, {"s64", 64, false, true}};
const TypeInfo Floats[] = {{"f16", 16, true, false},
                           {"f32", 32, true, false},
                           {"f64", 64, true, false}};

Format formatOf(const TypeInfo &T) {
  return T.Bits == 16 ? F16 : T.Bits == 32 ? F32 : F64;
}
char regOf(const TypeInfo &T) { return T.Bits == 64 ? 'd' : 's'; }

/// Runs "cvt<mods>_<dst>_<src> dest, src" over In (register-sized bit
/// patterns of the source), returning the destination registers' bits.
llvm::Expected<std::vector<uint64_t>> runCvt(const std::string &Mods,
                                             const TypeInfo &D,
                                             const TypeInfo &S,
                                             const std::vector<uint64_t> &In) {
  ElementwiseKernel K;
  const char SR = regOf(S), DR = regOf(D);
  K.In = std::string(1, SR);
  K.Out = DR;
  K.Body = "\tcvt" + Mods + "_" + D.Name + "_" + S.Name + " $" + DR + "4, $" +
           SR + "0;";
  std::vector<uint64_t> Out;
  if (SR == 'd') {
    if (DR == 'd')
      return runElementwise<uint64_t>(K, In);
    auto R = runElementwise<uint32_t>(K, In);
    if (!R)
      return R.takeError();
    return std::vector<uint64_t>(R->begin(), R->end());
  }
  std::vector<uint32_t> In32(In.begin(), In.end());
  if (DR == 'd')
    return runElementwise<uint64_t>(K, In32);
  auto R = runElementwise<uint32_t>(K, In32);
  if (!R)
    return R.takeError();
  return std::vector<uint64_t>(R->begin(), R->end());
}

std::vector<uint64_t> floatInputs(const TypeInfo &T) {
  std::vector<uint64_t> V;
  Rng R(T.Bits);
  if (T.Bits == 16)
    for (uint16_t X : edgeF16())
      V.push_back(X);
  else if (T.Bits == 32)
    for (uint32_t X : edgeF32())
      V.push_back(X);
  else
    V = edgeF64();
  for (uint64_t X : randomPatterns(formatOf(T), R, 2000))
    V.push_back(X);
  // Values around the integer ranges and halves.
  for (double D : {0.5,
                   1.5,
                   2.5,
                   -0.5,
                   -1.5,
                   -2.5,
                   127.5,
                   128.0,
                   -128.5,
                   -129.0,
                   255.5,
                   256.0,
                   32767.5,
                   32768.0,
                   -32768.5,
                   65535.5,
                   65536.0,
                   2147483647.0,
                   2147483648.0,
                   -2147483648.0,
                   -2147483649.0,
                   4294967295.0,
                   4294967296.0,
                   9223372036854775807.0,
                   -9223372036854775808.0,
                   18446744073709551616.0,
                   1e30,
                   -1e30,
                   0.49999999999999994,
                   -0.9999999,
                   3.999999}) {
    const Format F = formatOf(T);
    if (F.Bits == 64)
      V.push_back(bitsOf(D));
    else if (F.Bits == 32)
      V.push_back(bitsOf(float(D)));
    else
      V.push_back(roundTo(F16, Quad(D), Round::Near, false));
  }
  return V;
}

double valueOf(Format F, uint64_t B) {
  return F.Bits == 16   ? f16ToDouble(uint16_t(B))
         : F.Bits == 32 ? double(floatOf(uint32_t(B)))
                        : doubleOf(B);
}

/// The register bits of an integer result of D's type.
uint64_t extendResult(const TypeInfo &D, uint64_t V) {
  if (D.Bits == 64)
    return V;
  const uint64_t Mask = (uint64_t(1) << D.Bits) - 1;
  V &= Mask;
  if (D.Signed && (V >> (D.Bits - 1)) & 1)
    V |= ~Mask;
  return V & 0xffffffffull; // An s register.
}

// PRM 5.19.5: float to smaller float in every rounding mode, with and
// without ftz (tiny results flushed after rounding); NaNs stay NaN, quiet,
// and come back unchanged when widened again.
TEST(ConvertTest, FloatNarrowing) {
  for (auto [D, S] :
       {std::pair{Floats[1], Floats[2]}, std::pair{Floats[0], Floats[2]},
        std::pair{Floats[0], Floats[1]}}) {
    const Format FD = formatOf(D), FS = formatOf(S);
    std::vector<uint64_t> In = floatInputs(S);
    for (Round R : AllRounds)
      for (bool Ftz : {false, true}) {
        const std::string Mods =
            std::string(Ftz ? "_ftz_" : "_") + roundName(R);
        auto Got = runCvt(Mods, D, S, In);
        ASSERT_TRUE(bool(Got)) << llvm::toString(Got.takeError());
        for (size_t I = 0; I < In.size(); ++I) {
          uint64_t X = In[I];
          if (Ftz && isSubnormal(FS, X))
            X &= FS.signBit();
          const uint64_t G = (*Got)[I] & ((FD.signBit() << 1) - 1);
          const std::string What = "cvt" + Mods + "_" + D.Name + "_" + S.Name +
                                   " " + hex(In[I]) + " got " + hex(G);
          if (isNaN(FS, X)) {
            // A quiet NaN with the payload's top bits (as the host's own
            // conversions), so smaller -> larger -> smaller is the
            // identity (see NaNRoundTrip).
            const uint64_t Payload =
                (X & ((uint64_t(1) << FS.Mant) - 1)) >> (FS.Mant - FD.Mant);
            EXPECT_EQ(G & ~FD.signBit(), FD.infBits() | FD.quietBit() | Payload)
                << What;
            continue;
          }
          const double V = valueOf(FS, X);
          uint64_t Want;
          if (std::isinf(V))
            Want = (V < 0 ? FD.signBit() : 0) | FD.infBits();
          else
            Want = roundTo(FD, Quad(V), R, Ftz, std::signbit(V));
          ASSERT_EQ(G, Want) << What;
          // f64 to f32: the host's conversion agrees.
          if (FD.Bits == 32 && FS.Bits == 64) {
            float H;
            {
              HostMode M(R, Ftz);
              H = opaque(float(opaque(doubleOf(X))));
            }
            ASSERT_EQ(G, bitsOf(H)) << What;
          }
        }
      }
  }
}

// PRM 5.19: float to larger float is exact (no rounding allowed); ftz
// flushes subnormal sources.
TEST(ConvertTest, FloatWidening) {
  for (auto [D, S] :
       {std::pair{Floats[1], Floats[0]}, std::pair{Floats[2], Floats[0]},
        std::pair{Floats[2], Floats[1]}}) {
    const Format FD = formatOf(D), FS = formatOf(S);
    std::vector<uint64_t> In = floatInputs(S);
    for (bool Ftz : {false, true}) {
      auto Got = runCvt(Ftz ? "_ftz" : "", D, S, In);
      ASSERT_TRUE(bool(Got)) << llvm::toString(Got.takeError());
      for (size_t I = 0; I < In.size(); ++I) {
        uint64_t X = In[I];
        if (Ftz && isSubnormal(FS, X))
          X &= FS.signBit();
        uint64_t Want;
        if (isNaN(FS, X))
          Want = ((X & FS.signBit()) ? FD.signBit() : 0) | FD.infBits() |
                 ((X | FS.quietBit()) & ((uint64_t(1) << FS.Mant) - 1))
                     << (FD.Mant - FS.Mant);
        else
          Want = roundTo(FD, Quad(valueOf(FS, X)), Round::Near, false,
                         X & FS.signBit());
        if (std::isinf(valueOf(FS, X)))
          Want = ((X & FS.signBit()) ? FD.signBit() : 0) | FD.infBits();
        const uint64_t G = (*Got)[I] & ((FD.signBit() << 1) - 1);
        ASSERT_EQ(G, Want) << "cvt_" << D.Name << "_" << S.Name << " "
                           << hex(In[I]);
      }
    }
  }
}

// PRM 4.19.4: a NaN converted to a larger type and back is the same NaN
// (quieted).
TEST(ConvertTest, NaNRoundTrip) {
  ElementwiseKernel K;
  K.In = "s";
  K.Body = "\tcvt_f64_f32 $d1, $s0;\n\tcvt_zero_f32_f64 $s4, $d1;";
  std::vector<uint32_t> In = {0x7fc00001, 0x7f800123, 0xffbfffff, 0x7fffffff};
  auto R = runElementwise<uint32_t>(K, In);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  for (size_t I = 0; I < In.size(); ++I)
    EXPECT_EQ((*R)[I], In[I] | 0x400000) << hex(In[I]);
  for (const char *Body :
       {"\tcvt_f32_f16 $s1, $s0;\n\tcvt_up_f16_f32 $s4, $s1;",
        "\tcvt_f64_f16 $d1, $s0;\n\tcvt_down_f16_f64 $s4, $d1;"}) {
    K.Body = Body;
    std::vector<uint32_t> H = {0x7e01, 0x7c23, 0xfdff, 0x7fff};
    auto RH = runElementwise<uint32_t>(K, H);
    ASSERT_TRUE(bool(RH)) << llvm::toString(RH.takeError());
    for (size_t I = 0; I < H.size(); ++I)
      EXPECT_EQ((*RH)[I] & 0xffff, H[I] | 0x200) << Body << " " << hex(H[I]);
  }
}

// PRM 5.19.5: integer to float in every rounding mode.
TEST(ConvertTest, IntegerToFloat) {
  Rng Rand(7);
  for (const TypeInfo &S : Ints) {
    std::vector<uint64_t> In = {0,
                                1,
                                2,
                                3,
                                0x7f,
                                0x80,
                                0xff,
                                0x7fff,
                                0x8000,
                                0xffff,
                                0x7ffffff,
                                0x1000001,
                                0x1000003,
                                0x7fffffff,
                                0x80000000,
                                0xffffffff,
                                0x20000000000001ull,
                                0x20000000000003ull,
                                0x7fffffffffffffffull,
                                0x8000000000000000ull,
                                ~0ull,
                                0xfff0,
                                65504,
                                65519,
                                65520,
                                2049,
                                2051};
    for (int I = 0; I < 500; ++I)
      In.push_back(Rand.next() >> (Rand.next() % 64));
    for (uint64_t &X : In) // The register's view of the source.
      X = S.Bits == 64 ? X : X & 0xffffffffull;
    for (const TypeInfo &D : Floats) {
      const Format FD = formatOf(D);
      for (Round R : AllRounds) {
        auto Got = runCvt(std::string("_") + roundName(R), D, S, In);
        ASSERT_TRUE(bool(Got)) << llvm::toString(Got.takeError());
        for (size_t I = 0; I < In.size(); ++I) {
          const uint64_t Mask =
              S.Bits == 64 ? ~0ull : (uint64_t(1) << S.Bits) - 1;
          uint64_t X = In[I] & Mask;
          Quad V;
          if (S.Signed && (X >> (S.Bits - 1)) & 1)
            V = -Quad((~X & Mask) + 1);
          else
            V = Quad(X);
          const uint64_t Want = roundTo(FD, V, R, false);
          const uint64_t G = (*Got)[I] & ((FD.signBit() << 1) - 1);
          ASSERT_EQ(G, Want) << "cvt_" << roundName(R) << "_" << D.Name << "_"
                             << S.Name << " " << hex(In[I]);
        }
      }
      // Without a modifier: the module's default (near).
      auto Got = runCvt("", D, S, In);
      ASSERT_TRUE(bool(Got)) << llvm::toString(Got.takeError());
    }
  }
}

// PRM 5.19.4: float to integer with every integer rounding, saturating or
// not (the non-saturating forms are only checked in range), signaling
// forms alike, ftz.
TEST(ConvertTest, FloatToInteger) {
  struct IntRound {
    const char *Name;
    double (*Fn)(double);
  } Roundings[] = {{"neari", std::nearbyint},
                   {"zeroi", std::trunc},
                   {"upi", std::ceil},
                   {"downi", std::floor}};
  for (const TypeInfo &S : Floats) {
    const Format FS = formatOf(S);
    std::vector<uint64_t> In = floatInputs(S);
    for (const TypeInfo &D : Ints)
      for (const IntRound &IR : Roundings)
        for (int Variant = 0; Variant < 4; ++Variant) {
          const bool Sat = Variant & 1, Signaling = Variant & 2;
          const bool Ftz = Variant == 3;
          const std::string Mods = std::string(Ftz ? "_ftz_" : "_") +
                                   (Signaling ? "s" : "") + IR.Name +
                                   (Sat ? "_sat" : "");
          auto Got = runCvt(Mods, D, S, In);
          ASSERT_TRUE(bool(Got)) << llvm::toString(Got.takeError());
          const double Lo = D.Signed ? -std::ldexp(1.0, D.Bits - 1) : 0.0;
          const double Hi = D.Signed ? std::ldexp(1.0, D.Bits - 1)
                                     : std::ldexp(1.0, D.Bits); // Exclusive.
          for (size_t I = 0; I < In.size(); ++I) {
            uint64_t X = In[I];
            if (Ftz && isSubnormal(FS, X))
              X &= FS.signBit();
            const double V = IR.Fn(valueOf(FS, X));
            const bool InRange = !std::isnan(V) && V >= Lo && V < Hi;
            if (!Sat && !InRange)
              continue; // Undefined.
            uint64_t Want;
            if (std::isnan(V))
              Want = 0;
            else if (V < Lo)
              Want = uint64_t(int64_t(Lo));
            else if (V >= Hi)
              Want = D.Signed       ? (uint64_t(1) << (D.Bits - 1)) - 1
                     : D.Bits == 64 ? ~0ull
                                    : (uint64_t(1) << D.Bits) - 1;
            else
              Want = D.Signed ? uint64_t(int64_t(V)) : uint64_t(V);
            Want = extendResult(D, Want);
            ASSERT_EQ((*Got)[I], Want)
                << "cvt" << Mods << "_" << D.Name << "_" << S.Name << " "
                << hex(In[I]) << " (" << valueOf(FS, In[I]) << ")";
          }
        }
  }
  // The PRM's examples.
  std::vector<uint64_t> In = {bitsOf(1.6f), bitsOf(-1.6f)};
  const int32_t Want[4][2] = {{2, -1}, {1, -2}, {1, -1}, {2, -2}};
  const char *Names[] = {"upi", "downi", "zeroi", "neari"};
  for (int J = 0; J < 4; ++J) {
    auto Got = runCvt(std::string("_") + Names[J], Ints[5], Floats[1], In);
    ASSERT_TRUE(bool(Got)) << llvm::toString(Got.takeError());
    EXPECT_EQ(int32_t((*Got)[0]), Want[J][0]) << Names[J];
    EXPECT_EQ(int32_t((*Got)[1]), Want[J][1]) << Names[J];
  }
}

// PRM Table 5-27: integer to integer (chop, zero or sign extension) and
// the b1 conversions (ztest, b2s, zext, 0.0/1.0).
TEST(ConvertTest, IntegerAndB1) {
  std::vector<uint64_t> In = {0,
                              1,
                              0x7f,
                              0x80,
                              0xff,
                              0x100,
                              0x7fff,
                              0x8000,
                              0xffff,
                              0x12345678,
                              0x80000000,
                              0xffffffff,
                              0x123456789abcdef0ull,
                              0x8000000000000000ull,
                              ~0ull};
  for (const TypeInfo &S : Ints)
    for (const TypeInfo &D : Ints) {
      if (S.Bits == D.Bits)
        continue; // A mov, not a cvt.
      std::vector<uint64_t> Src = In;
      for (uint64_t &X : Src)
        X = S.Bits == 64 ? X : X & 0xffffffffull;
      auto Got = runCvt("", D, S, Src);
      ASSERT_TRUE(bool(Got)) << llvm::toString(Got.takeError());
      for (size_t I = 0; I < Src.size(); ++I) {
        const uint64_t SMask =
            S.Bits == 64 ? ~0ull : (uint64_t(1) << S.Bits) - 1;
        uint64_t V = Src[I] & SMask;
        if (S.Signed && (V >> (S.Bits - 1)) & 1)
          V |= ~SMask; // Sign-extend the source.
        ASSERT_EQ((*Got)[I], extendResult(D, V))
            << "cvt_" << D.Name << "_" << S.Name << " " << hex(Src[I]);
      }
    }
  // b1 sources.
  const std::pair<const char *, std::pair<uint64_t, uint64_t>> FromB1[] = {
      {"u32", {0, 1}},      {"s32", {0, 0xffffffff}},
      {"u8", {0, 1}},       {"s8", {0, 1}},
      {"s16", {0, 1}},      {"u64", {0, 1}},
      {"s64", {0, ~0ull}},  {"f32", {0, 0x3f800000}},
      {"f16", {0, 0x3c00}}, {"f64", {0, 0x3ff0000000000000ull}}};
  for (auto [Name, Want] : FromB1) {
    const bool D64 = std::string(Name).find("64") != std::string::npos;
    ElementwiseKernel K;
    K.In = "c";
    K.Out = D64 ? 'd' : 's';
    K.Body = std::string("\tcvt_") + Name + "_b1 $" + K.Out + "4, $c0;";
    std::vector<uint32_t> B = {0, 1};
    std::vector<uint64_t> G;
    if (D64) {
      auto R = runElementwise<uint64_t>(K, B);
      ASSERT_TRUE(bool(R)) << Name << ": " << llvm::toString(R.takeError());
      G = *R;
    } else {
      auto R = runElementwise<uint32_t>(K, B);
      ASSERT_TRUE(bool(R)) << Name << ": " << llvm::toString(R.takeError());
      G.assign(R->begin(), R->end());
    }
    if (std::string(Name) == "f16")
      for (uint64_t &X : G)
        X &= 0xffff;
    EXPECT_EQ(G[0], Want.first) << Name;
    EXPECT_EQ(G[1], Want.second) << Name;
  }
  // To b1: ztest; for floats NaN and infinities are 1, zeros 0, and ftz
  // makes subnormals 0.
  for (const TypeInfo &S : Floats)
    for (bool Ftz : {false, true}) {
      const Format FS = formatOf(S);
      std::vector<uint64_t> Src = floatInputs(S);
      ElementwiseKernel K;
      K.In = std::string(1, regOf(S));
      K.Out = 'c';
      K.Body = std::string("\tcvt") + (Ftz ? "_ftz" : "") + "_b1_" + S.Name +
               " $c4, $" + regOf(S) + "0;";
      llvm::Expected<std::vector<uint32_t>> R =
          S.Bits == 64 ? runElementwise<uint32_t>(K, Src)
                       : runElementwise<uint32_t>(
                             K, std::vector<uint32_t>(Src.begin(), Src.end()));
      ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
      for (size_t I = 0; I < Src.size(); ++I) {
        uint64_t X = Src[I];
        if (Ftz && isSubnormal(FS, X))
          X &= FS.signBit();
        EXPECT_EQ((*R)[I], (X & ~FS.signBit()) ? 1u : 0u)
            << S.Name << " " << hex(Src[I]);
      }
    }
  for (const TypeInfo &S : Ints) {
    ElementwiseKernel K;
    K.In = std::string(1, regOf(S));
    K.Out = 'c';
    K.Body = std::string("\tcvt_b1_") + S.Name + " $c4, $" + regOf(S) + "0;";
    std::vector<uint64_t> Src = {0, 1, 0x100, 0x10000, 0x100000000ull, ~0ull};
    llvm::Expected<std::vector<uint32_t>> R =
        S.Bits == 64 ? runElementwise<uint32_t>(K, Src)
                     : runElementwise<uint32_t>(
                           K, std::vector<uint32_t>(Src.begin(), Src.end()));
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    for (size_t I = 0; I < Src.size(); ++I) {
      const uint64_t Mask = S.Bits == 64 ? ~0ull : (uint64_t(1) << S.Bits) - 1;
      EXPECT_EQ((*R)[I], (Src[I] & Mask) ? 1u : 0u)
          << S.Name << " " << hex(Src[I]);
    }
  }
}

// PRM 5.19.5, chapter 14: conversions without a rounding modifier round
// in the module's default mode ($zero here).
TEST(ConvertTest, ModuleDefaultRounding) {
  std::vector<uint64_t> In = floatInputs(Floats[1]);
  std::vector<uint64_t> Ints64 = {0x7fffffffffffffffull, 0x1000001, 3,
                                  0xfffffffffffff001ull};
  for (bool Wide : {false, true}) {
    ElementwiseKernel K;
    K.Header = "module &m:1:0:$full:$large:$zero;";
    K.In = Wide ? "d" : "s";
    K.Body = Wide ? "\tcvt_f32_s64 $s4, $d0;" : "\tcvt_f16_f32 $s4, $s0;";
    llvm::Expected<std::vector<uint32_t>> R =
        Wide ? runElementwise<uint32_t>(K, Ints64)
             : runElementwise<uint32_t>(
                   K, std::vector<uint32_t>(In.begin(), In.end()));
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    const std::vector<uint64_t> &Src = Wide ? Ints64 : In;
    for (size_t I = 0; I < Src.size(); ++I) {
      if (Wide) {
        EXPECT_EQ((*R)[I],
                  roundTo(F32, Quad(int64_t(Src[I])), Round::Zero, false))
            << hex(Src[I]);
        continue;
      }
      const double V = valueOf(F32, Src[I]);
      if (std::isnan(V) || std::isinf(V))
        continue;
      EXPECT_EQ((*R)[I] & 0xffff,
                roundTo(F16, Quad(V), Round::Zero, false, std::signbit(V)))
          << hex(Src[I]);
    }
  }
}

// Conversions the PRM does not allow fail naming cvt.
TEST(ConvertTest, InvalidRoundingsFail) {
  for (const char *Bad :
       {"cvt_up_f64_f32 $d4, $s0;", "cvt_upi_f32_s32 $s4, $s0;",
        "cvt_near_s32_f32 $s4, $s0;"}) {
    ElementwiseKernel K;
    K.In = "s";
    K.Out = Bad[8] == 'f' && Bad[9] == '6' ? 'd' : 's';
    K.Body = std::string("\t") + Bad;
    auto P = finalizeText(elementwiseSource(K));
    if (P) {
      ADD_FAILURE() << Bad << " was accepted";
      continue;
    }
    std::string Message = llvm::toString(P.takeError());
    EXPECT_NE(Message.find("cvt"), std::string::npos) << Message;
  }
}

//===----------------------------------------------------------------------===//
// cmp
//===----------------------------------------------------------------------===//

const char *FloatCompares[] = {
    "eq",   "ne",   "lt",   "le",   "gt",   "ge",   "equ",  "neu", "ltu", "leu",
    "gtu",  "geu",  "num",  "nan",  "seq",  "sne",  "slt",  "sle", "sgt", "sge",
    "sequ", "sneu", "sltu", "sleu", "sgtu", "sgeu", "snum", "snan"};

bool floatRelation(const std::string &Op, double X, double Y) {
  // The signaling forms (s...) compare as their quiet forms.
  const std::string O = Op[0] == 's' ? Op.substr(1) : Op;
  const bool Un = std::isnan(X) || std::isnan(Y);
  if (O == "num")
    return !Un;
  if (O == "nan")
    return Un;
  const bool Unordered = O.size() == 3 && O[2] == 'u';
  if (Un)
    return Unordered;
  const std::string B = Unordered ? O.substr(0, 2) : O;
  if (B == "eq")
    return X == Y;
  if (B == "ne")
    return X != Y;
  if (B == "lt")
    return X < Y;
  if (B == "le")
    return X <= Y;
  if (B == "gt")
    return X > Y;
  return X >= Y;
}

// PRM 5.18, Table 5-26: every floating-point comparison (signaling forms
// compare alike), ftz, and the destination types.
TEST(CompareTest, FloatComparisons) {
  for (const TypeInfo &S : Floats) {
    const Format FS = formatOf(S);
    std::vector<uint64_t> E = floatInputs(S);
    E.resize(std::min<size_t>(E.size(), 90));
    std::vector<uint64_t> A, B;
    for (uint64_t X : E)
      for (uint64_t Y : E) {
        A.push_back(X);
        B.push_back(Y);
      }
    for (const char *Op : FloatCompares)
      for (bool Ftz : {false, true}) {
        const char R = regOf(S);
        ElementwiseKernel K;
        K.In = {R, R};
        K.Out = 'c';
        K.Body = std::string("\tcmp_") + Op + (Ftz ? "_ftz" : "") + "_b1_" +
                 S.Name + " $c4, $" + R + "0, $" + R + "1;";
        llvm::Expected<std::vector<uint32_t>> Got =
            S.Bits == 64 ? runElementwise<uint32_t>(K, A, B)
                         : runElementwise<uint32_t>(
                               K, std::vector<uint32_t>(A.begin(), A.end()),
                               std::vector<uint32_t>(B.begin(), B.end()));
        ASSERT_TRUE(bool(Got))
            << K.Body << ": " << llvm::toString(Got.takeError());
        for (size_t I = 0; I < A.size(); ++I) {
          uint64_t X = A[I], Y = B[I];
          if (Ftz) {
            if (isSubnormal(FS, X))
              X &= FS.signBit();
            if (isSubnormal(FS, Y))
              Y &= FS.signBit();
          }
          const bool Want = floatRelation(Op, valueOf(FS, X), valueOf(FS, Y));
          ASSERT_EQ((*Got)[I], Want ? 1u : 0u)
              << K.Body << " " << hex(A[I]) << " " << hex(B[I]);
        }
      }
  }
  // Destination types: 1.0/0.0 for floats, all ones for integers.
  const std::pair<const char *, std::pair<uint64_t, uint64_t>> Dests[] = {
      {"u32", {0, 0xffffffff}},
      {"s32", {0, 0xffffffff}},
      {"u64", {0, ~0ull}},
      {"s64", {0, ~0ull}},
      {"f32", {0, 0x3f800000}},
      {"f16", {0, 0x3c00}},
      {"f64", {0, 0x3ff0000000000000ull}}};
  for (auto [Name, Want] : Dests) {
    const bool D64 = std::string(Name).find("64") != std::string::npos;
    ElementwiseKernel K;
    K.In = "ss";
    K.Out = D64 ? 'd' : 's';
    K.Body =
        std::string("\tcmp_lt_") + Name + "_f32 $" + K.Out + "4, $s0, $s1;";
    std::vector<uint32_t> X = {bitsOf(2.0f), bitsOf(1.0f)},
                          Y = {bitsOf(1.0f), bitsOf(2.0f)};
    std::vector<uint64_t> G;
    if (D64) {
      auto R = runElementwise<uint64_t>(K, X, Y);
      ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
      G = *R;
    } else {
      auto R = runElementwise<uint32_t>(K, X, Y);
      ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
      G.assign(R->begin(), R->end());
    }
    if (std::string(Name) == "f16")
      for (uint64_t &V : G)
        V &= 0xffff;
    EXPECT_EQ(G[0], Want.first) << Name;
    EXPECT_EQ(G[1], Want.second) << Name;
  }
}

// PRM 5.18: integer comparisons, signed and unsigned, 32 and 64 bits, and
// b1 eq/ne.
TEST(CompareTest, IntegerComparisons) {
  std::vector<uint64_t> E = {0,
                             1,
                             2,
                             0x7fffffff,
                             0x80000000,
                             0xffffffff,
                             0x7fffffffffffffffull,
                             0x8000000000000000ull,
                             ~0ull,
                             0x100000000ull};
  for (const TypeInfo &S : {Ints[4], Ints[5], Ints[6], Ints[7]}) {
    std::vector<uint64_t> A, B;
    for (uint64_t X : E)
      for (uint64_t Y : E) {
        A.push_back(S.Bits == 64 ? X : X & 0xffffffff);
        B.push_back(S.Bits == 64 ? Y : Y & 0xffffffff);
      }
    for (const char *Op : {"eq", "ne", "lt", "le", "gt", "ge"}) {
      const char R = regOf(S);
      ElementwiseKernel K;
      K.In = {R, R};
      K.Body = std::string("\tcmp_") + Op + "_u32_" + S.Name + " $s4, $" + R +
               "0, $" + R + "1;";
      llvm::Expected<std::vector<uint32_t>> Got =
          S.Bits == 64 ? runElementwise<uint32_t>(K, A, B)
                       : runElementwise<uint32_t>(
                             K, std::vector<uint32_t>(A.begin(), A.end()),
                             std::vector<uint32_t>(B.begin(), B.end()));
      ASSERT_TRUE(bool(Got)) << llvm::toString(Got.takeError());
      for (size_t I = 0; I < A.size(); ++I) {
        const int Shift = 64 - int(S.Bits);
        const int64_t SX = int64_t(A[I] << Shift) >> Shift,
                      SY = int64_t(B[I] << Shift) >> Shift;
        const uint64_t UX = A[I], UY = B[I];
        const std::string O = Op;
        const int C =
            S.Signed ? (SX < SY ? -1 : SX > SY) : (UX < UY ? -1 : UX > UY);
        const bool Want = O == "eq"   ? C == 0
                          : O == "ne" ? C != 0
                          : O == "lt" ? C < 0
                          : O == "le" ? C <= 0
                          : O == "gt" ? C > 0
                                      : C >= 0;
        ASSERT_EQ((*Got)[I], Want ? 0xffffffffu : 0u)
            << K.Body << " " << hex(A[I]) << " " << hex(B[I]);
      }
    }
  }
  for (const char *Op : {"eq", "ne"}) {
    ElementwiseKernel K;
    K.In = "cc";
    K.Out = 'c';
    K.Body = std::string("\tcmp_") + Op + "_b1_b1 $c4, $c0, $c1;";
    std::vector<uint32_t> X = {0, 0, 1, 1}, Y = {0, 1, 0, 1};
    auto Got = runElementwise<uint32_t>(K, X, Y);
    ASSERT_TRUE(bool(Got)) << llvm::toString(Got.takeError());
    for (size_t I = 0; I < X.size(); ++I)
      EXPECT_EQ((*Got)[I], (X[I] == Y[I]) == (Op[0] == 'e') ? 1u : 0u);
  }
}

} // namespace
