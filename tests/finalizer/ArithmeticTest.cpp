//===- tests/finalizer/ArithmeticTest.cpp - Integer, bit, copy, multimedia ===//
//
// PRM 5.2-5.8, 5.10 and 5.15 through the finalizer: each instruction runs
// over a table of edge values (0, 1, -1, MIN, MAX, carries, ...) and is
// compared with a host computation of the PRM's definition.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

#include <bit>
#include <cmath>
#include <functional>
#include <limits>

using namespace openhsa::test;

namespace {

std::string hex(uint64_t V) {
  char Buf[32];
  snprintf(Buf, sizeof(Buf), "0x%llx", (unsigned long long)V);
  return Buf;
}

char classOf(size_t Bytes) { return Bytes == 8 ? 'd' : 's'; }

template <typename T> std::vector<T> edges() {
  using S = std::make_signed_t<T>;
  const T Min = T(std::numeric_limits<S>::min());
  const T Max = T(std::numeric_limits<S>::max());
  return {T(0),
          T(1),
          T(2),
          T(-1),
          T(-2),
          Min,
          Max,
          T(Min + 1),
          T(Max - 1),
          T(7),
          T(-7),
          T(0x5555555555555555ull),
          T(0xaaaaaaaaaaaaaaaaull),
          T(0x12345678abcdef01ull),
          T(0xffff0000ffff0000ull),
          T(1ull << (sizeof(T) * 4))};
}

/// Runs "Inst $x4, $x0, $x1" over every pair of edge values of T and
/// compares with Ref; Skip leaves out pairs the PRM leaves undefined.
template <typename T>
void checkBinary(const std::string &Inst, std::function<T(T, T)> Ref,
                 std::function<bool(T, T)> Skip = nullptr) {
  std::vector<T> A, B;
  for (T X : edges<T>())
    for (T Y : edges<T>())
      if (!Skip || !Skip(X, Y)) {
        A.push_back(X);
        B.push_back(Y);
      }
  const char C = classOf(sizeof(T));
  ElementwiseKernel K;
  K.In = {C, C};
  K.Out = C;
  K.Body = "\t" + Inst + " $" + C + "4, $" + C + "0, $" + C + "1;";
  auto R = runElementwise<T>(K, A, B);
  ASSERT_TRUE(bool(R)) << Inst << ": " << llvm::toString(R.takeError());
  for (size_t I = 0; I < A.size(); ++I)
    EXPECT_EQ((*R)[I], Ref(A[I], B[I]))
        << Inst << " " << hex(A[I]) << ", " << hex(B[I]);
}

template <typename T>
void checkUnary(const std::string &Inst, std::function<T(T)> Ref) {
  std::vector<T> A = edges<T>();
  const char C = classOf(sizeof(T));
  ElementwiseKernel K;
  K.In = {C};
  K.Out = C;
  K.Body = "\t" + Inst + " $" + C + "4, $" + C + "0;";
  auto R = runElementwise<T>(K, A);
  ASSERT_TRUE(bool(R)) << Inst << ": " << llvm::toString(R.takeError());
  for (size_t I = 0; I < A.size(); ++I)
    EXPECT_EQ((*R)[I], Ref(A[I])) << Inst << " " << hex(A[I]);
}

template <typename T> using S = std::make_signed_t<T>;

template <typename T> T mulhiU(T X, T Y) {
  if constexpr (sizeof(T) == 4)
    return T((uint64_t(X) * Y) >> 32);
  else
    return T((unsigned __int128)X * Y >> 64);
}
template <typename T> T mulhiS(T X, T Y) {
  if constexpr (sizeof(T) == 4)
    return T(uint64_t(int64_t(int32_t(X)) * int32_t(Y)) >> 32);
  else
    return T((unsigned __int128)((__int128)int64_t(X) * int64_t(Y)) >> 64);
}

template <typename T>
void checkIntegerOps(const std::string &Sfx, bool Signed) {
  const std::string Ty = (Signed ? "_s" : "_u") + Sfx;
  checkBinary<T>("add" + Ty, [](T X, T Y) { return T(X + Y); });
  checkBinary<T>("sub" + Ty, [](T X, T Y) { return T(X - Y); });
  checkBinary<T>("mul" + Ty, [](T X, T Y) { return T(X * Y); });
  checkBinary<T>("mulhi" + Ty, Signed ? mulhiS<T> : mulhiU<T>);
  checkBinary<T>("carry" + Ty,
                 [](T X, T Y) { return T(T(X + Y) < X ? 1 : 0); });
  checkBinary<T>("borrow" + Ty, [](T X, T Y) { return T(X < Y ? 1 : 0); });
  const T Min = T(std::numeric_limits<S<T>>::min());
  if (Signed) {
    checkBinary<T>(
        "div" + Ty, [](T X, T Y) { return T(S<T>(X) / S<T>(Y)); },
        [&](T X, T Y) { return Y == 0 || (X == Min && Y == T(-1)); });
    // rem(MIN, -1) is 0 (PRM 5.2.2); only a zero divisor is undefined.
    checkBinary<T>(
        "rem" + Ty,
        [&](T X, T Y) { return Y == T(-1) ? T(0) : T(S<T>(X) % S<T>(Y)); },
        [](T, T Y) { return Y == 0; });
    checkBinary<T>("min" + Ty,
                   [](T X, T Y) { return S<T>(X) < S<T>(Y) ? X : Y; });
    checkBinary<T>("max" + Ty,
                   [](T X, T Y) { return S<T>(X) > S<T>(Y) ? X : Y; });
    // abs and neg wrap: abs(MIN) and neg(MIN) are MIN.
    checkUnary<T>("abs" + Ty,
                  [](T X) { return S<T>(X) < 0 ? T(T(0) - X) : X; });
    checkUnary<T>("neg" + Ty, [](T X) { return T(T(0) - X); });
  } else {
    checkBinary<T>(
        "div" + Ty, [](T X, T Y) { return T(X / Y); },
        [](T, T Y) { return Y == 0; });
    checkBinary<T>(
        "rem" + Ty, [](T X, T Y) { return T(X % Y); },
        [](T, T Y) { return Y == 0; });
    checkBinary<T>("min" + Ty, [](T X, T Y) { return X < Y ? X : Y; });
    checkBinary<T>("max" + Ty, [](T X, T Y) { return X > Y ? X : Y; });
  }
}

// PRM 5.2: integer arithmetic, wraparound, carry/borrow, mulhi, c99
// division and remainder.
TEST(ArithmeticTest, IntegerArithmetic32) {
  checkIntegerOps<uint32_t>("32", true);
  checkIntegerOps<uint32_t>("32", false);
}
TEST(ArithmeticTest, IntegerArithmetic64) {
  checkIntegerOps<uint64_t>("64", true);
  checkIntegerOps<uint64_t>("64", false);
}

// PRM 5.2.2: division by zero and MIN/-1 are undefined but must not trap.
TEST(ArithmeticTest, DivisionByZeroDoesNotTrap) {
  for (const char *Ty : {"s32", "u32"}) {
    ElementwiseKernel K;
    K.In = "ss";
    K.Body = std::string("\tdiv_") + Ty + " $s4, $s0, $s1;\n\trem_" + Ty +
             " $s5, $s0, $s1;\n\tadd_u32 $s4, $s4, $s5;";
    std::vector<uint32_t> A = {5, 0x80000000u, 7}, B = {0, 0xffffffffu, 0};
    auto R = runElementwise<uint32_t>(K, A, B);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  }
}

// PRM 5.3, 5.4: mad; 24-bit multiplies on the low 24 bits of the sources.
TEST(ArithmeticTest, MadAnd24Bit) {
  std::vector<uint32_t> A, B, C;
  const uint32_t V[] = {0,        1,          0x7fffff,   0x800000, 0xffffff,
                        0x123456, 0xfedcba98, 0xffffffff, 12345,    0x80000000};
  for (uint32_t X : V)
    for (uint32_t Y : V) {
      A.push_back(X);
      B.push_back(Y);
      C.push_back(X ^ (Y << 3) ^ 0x5a5a5a5a);
    }
  auto Low24S = [](uint32_t X) { return int64_t(int32_t(X << 8) >> 8); };
  auto Low24U = [](uint32_t X) { return int64_t(X & 0xffffff); };
  struct Case {
    const char *Inst;
    bool Three;
    std::function<uint32_t(uint32_t, uint32_t, uint32_t)> Ref;
  } Cases[] = {
      {"mad_u32", true,
       [](uint32_t X, uint32_t Y, uint32_t Z) { return X * Y + Z; }},
      {"mul24_s32", false,
       [&](uint32_t X, uint32_t Y, uint32_t) {
         return uint32_t(Low24S(X) * Low24S(Y));
       }},
      {"mul24_u32", false,
       [&](uint32_t X, uint32_t Y, uint32_t) {
         return uint32_t(Low24U(X) * Low24U(Y));
       }},
      {"mul24hi_s32", false,
       [&](uint32_t X, uint32_t Y, uint32_t) {
         return uint32_t((Low24S(X) * Low24S(Y)) >> 32);
       }},
      {"mul24hi_u32", false,
       [&](uint32_t X, uint32_t Y, uint32_t) {
         return uint32_t(uint64_t(Low24U(X) * Low24U(Y)) >> 32);
       }},
      {"mad24_s32", true,
       [&](uint32_t X, uint32_t Y, uint32_t Z) {
         return uint32_t(Low24S(X) * Low24S(Y)) + Z;
       }},
      {"mad24hi_u32", true,
       [&](uint32_t X, uint32_t Y, uint32_t Z) {
         return uint32_t(uint64_t(Low24U(X) * Low24U(Y)) >> 32) + Z;
       }},
      {"mad24hi_s32", true,
       [&](uint32_t X, uint32_t Y, uint32_t Z) {
         return uint32_t((Low24S(X) * Low24S(Y)) >> 32) + Z;
       }},
  };
  for (const Case &Cs : Cases) {
    ElementwiseKernel K;
    K.In = "sss";
    K.Body = std::string("\t") + Cs.Inst + " $s4, $s0, $s1" +
             (Cs.Three ? ", $s2;" : ";");
    auto R = runElementwise<uint32_t>(K, A, B, C);
    ASSERT_TRUE(bool(R)) << Cs.Inst << ": " << llvm::toString(R.takeError());
    for (size_t I = 0; I < A.size(); ++I)
      EXPECT_EQ((*R)[I], Cs.Ref(A[I], B[I], C[I]))
          << Cs.Inst << " " << hex(A[I]) << " " << hex(B[I]) << " "
          << hex(C[I]);
  }
  // mad_s64 wraps.
  std::vector<uint64_t> X = {~0ull, 1ull << 63, 3}, Y = {~0ull, 2, 5},
                        Z = {5, 1, ~0ull};
  ElementwiseKernel K;
  K.In = "ddd";
  K.Out = 'd';
  K.Body = "\tmad_s64 $d4, $d0, $d1, $d2;";
  auto R = runElementwise<uint64_t>(K, X, Y, Z);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  for (size_t I = 0; I < X.size(); ++I)
    EXPECT_EQ((*R)[I], X[I] * Y[I] + Z[I]);
}

// PRM 5.5: only the low 5 (6) bits of the u32 amount count.
TEST(ArithmeticTest, Shifts) {
  std::vector<uint32_t> Amounts = {0, 1, 5, 31, 32, 33, 63, 64, 65, 0xffffffff};
  for (bool Wide : {false, true}) {
    std::vector<uint64_t> V = edges<uint64_t>();
    std::vector<uint64_t> A64;
    std::vector<uint32_t> A32, N;
    for (uint64_t X : V)
      for (uint32_t Amt : Amounts) {
        A64.push_back(X);
        A32.push_back(uint32_t(X));
        N.push_back(Amt);
      }
    for (const char *Op : {"shl_u", "shl_s", "shr_u", "shr_s"}) {
      ElementwiseKernel K;
      const std::string Ty = std::string(Op) + (Wide ? "64" : "32");
      K.In = Wide ? "ds" : "ss";
      K.Out = Wide ? 'd' : 's';
      K.Body = "\t" + Ty + (Wide ? " $d4, $d0, $s1;" : " $s4, $s0, $s1;");
      const bool Left = Op[2] == 'l', Sgn = Op[4] == 's';
      if (Wide) {
        auto R = runElementwise<uint64_t>(K, A64, N);
        ASSERT_TRUE(bool(R)) << Ty << ": " << llvm::toString(R.takeError());
        for (size_t I = 0; I < N.size(); ++I) {
          unsigned Sh = N[I] & 63;
          uint64_t E = Left  ? A64[I] << Sh
                       : Sgn ? uint64_t(int64_t(A64[I]) >> Sh)
                             : A64[I] >> Sh;
          EXPECT_EQ((*R)[I], E) << Ty << " " << hex(A64[I]) << " " << N[I];
        }
      } else {
        auto R = runElementwise<uint32_t>(K, A32, N);
        ASSERT_TRUE(bool(R)) << Ty << ": " << llvm::toString(R.takeError());
        for (size_t I = 0; I < N.size(); ++I) {
          unsigned Sh = N[I] & 31;
          uint32_t E = Left  ? A32[I] << Sh
                       : Sgn ? uint32_t(int32_t(A32[I]) >> Sh)
                             : A32[I] >> Sh;
          EXPECT_EQ((*R)[I], E) << Ty << " " << hex(A32[I]) << " " << N[I];
        }
      }
    }
  }
}

// PRM 5.6: and, or, xor, not on b32, b64 and b1; popcount.
TEST(ArithmeticTest, IndividualBits) {
  checkBinary<uint32_t>("and_b32",
                        [](uint32_t X, uint32_t Y) { return X & Y; });
  checkBinary<uint64_t>("or_b64", [](uint64_t X, uint64_t Y) { return X | Y; });
  checkBinary<uint64_t>("xor_b64",
                        [](uint64_t X, uint64_t Y) { return X ^ Y; });
  checkUnary<uint32_t>("not_b32", [](uint32_t X) { return ~X; });
  checkUnary<uint64_t>("not_b64", [](uint64_t X) { return ~X; });
  // b1 on control registers.
  std::vector<uint32_t> A = {0, 0, 1, 1}, B = {0, 1, 0, 1};
  for (auto [Inst, Ref] : std::initializer_list<
           std::pair<const char *, uint32_t (*)(uint32_t, uint32_t)>>{
           {"and_b1 $c4, $c0, $c1;",
            [](uint32_t X, uint32_t Y) { return X & Y; }},
           {"or_b1 $c4, $c0, $c1;",
            [](uint32_t X, uint32_t Y) { return X | Y; }},
           {"xor_b1 $c4, $c0, $c1;",
            [](uint32_t X, uint32_t Y) { return X ^ Y; }},
           {"not_b1 $c4, $c0;", [](uint32_t X, uint32_t) { return X ^ 1; }},
           {"mov_b1 $c4, $c1;", [](uint32_t, uint32_t Y) { return Y; }}}) {
    ElementwiseKernel K;
    K.In = "cc";
    K.Out = 'c';
    K.Body = std::string("\t") + Inst;
    auto R = runElementwise<uint32_t>(K, A, B);
    ASSERT_TRUE(bool(R)) << Inst << ": " << llvm::toString(R.takeError());
    for (size_t I = 0; I < A.size(); ++I)
      EXPECT_EQ((*R)[I], Ref(A[I], B[I])) << Inst << " " << A[I] << B[I];
  }
  // popcount: PRM Table 5-7 and 64-bit sources.
  std::vector<uint64_t> V = edges<uint64_t>();
  for (bool Wide : {false, true}) {
    ElementwiseKernel K;
    K.In = Wide ? "d" : "s";
    K.Body =
        Wide ? "\tpopcount_u32_b64 $s4, $d0;" : "\tpopcount_u32_b32 $s4, $s0;";
    std::vector<uint64_t> In64 = V;
    std::vector<uint32_t> In32 = {0x00000000, 0x00ffffff, 0x7fffffff,
                                  0x01ffffff, 0xffffffff, 0xffff0f00};
    auto R = Wide ? runElementwise<uint32_t>(K, In64)
                  : runElementwise<uint32_t>(K, In32);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    for (size_t I = 0; I < R->size(); ++I)
      EXPECT_EQ((*R)[I], uint32_t(Wide ? std::popcount(In64[I])
                                       : std::popcount(In32[I])));
  }
}

int firstbitU(uint64_t X, int Bits) {
  if (X == 0)
    return -1;
  return std::countl_zero(X) - (64 - Bits);
}

// PRM 5.7: bit string instructions with their zero, negative and
// out-of-range rules (Table 5-9).
TEST(ArithmeticTest, BitStrings) {
  // firstbit / lastbit / bitrev over 32 and 64 bits.
  std::vector<uint32_t> T32 = {0x00000000, 0x00ffffff, 0x7fffffff, 0x01ffffff,
                               0xffffffff, 0xffff0f00, 0x80000000, 0xfffffffe,
                               1,          0x12345678};
  struct Case {
    const char *Inst;
    std::function<uint32_t(uint32_t)> Ref;
  } Cases32[] = {
      {"firstbit_u32_u32",
       [](uint32_t X) { return uint32_t(firstbitU(X, 32)); }},
      {"firstbit_u32_s32",
       [](uint32_t X) {
         return uint32_t(firstbitU(int32_t(X) < 0 ? ~X : X, 32));
       }},
      {"lastbit_u32_u32",
       [](uint32_t X) { return X ? uint32_t(std::countr_zero(X)) : ~0u; }},
      {"lastbit_u32_s32",
       [](uint32_t X) { return X ? uint32_t(std::countr_zero(X)) : ~0u; }},
      {"bitrev_b32",
       [](uint32_t X) {
         uint32_t R = 0;
         for (int I = 0; I < 32; ++I)
           R |= ((X >> I) & 1) << (31 - I);
         return R;
       }},
  };
  for (const Case &C : Cases32) {
    ElementwiseKernel K;
    K.In = "s";
    K.Body = std::string("\t") + C.Inst + " $s4, $s0;";
    auto R = runElementwise<uint32_t>(K, T32);
    ASSERT_TRUE(bool(R)) << C.Inst << ": " << llvm::toString(R.takeError());
    for (size_t I = 0; I < T32.size(); ++I)
      EXPECT_EQ((*R)[I], C.Ref(T32[I])) << C.Inst << " " << hex(T32[I]);
  }
  // Table 5-9 literally.
  const int32_t First[] = {-1, 8, 1, 7, 0, 0}, Last[] = {-1, 0, 0, 0, 0, 8};
  for (int I = 0; I < 6; ++I) {
    EXPECT_EQ(firstbitU(T32[I], 32), First[I]);
    EXPECT_EQ(T32[I] ? std::countr_zero(T32[I]) : -1, Last[I]);
  }
  std::vector<uint64_t> T64 = edges<uint64_t>();
  for (const char *Inst :
       {"firstbit_u32_u64", "firstbit_u32_s64", "lastbit_u32_s64"}) {
    ElementwiseKernel K;
    K.In = "d";
    K.Body = std::string("\t") + Inst + " $s4, $d0;";
    auto R = runElementwise<uint32_t>(K, T64);
    ASSERT_TRUE(bool(R)) << Inst << ": " << llvm::toString(R.takeError());
    for (size_t I = 0; I < T64.size(); ++I) {
      uint64_t X = T64[I];
      int E = Inst[0] == 'l'    ? (X ? std::countr_zero(X) : -1)
              : Inst[13] == 's' ? firstbitU(int64_t(X) < 0 ? ~X : X, 64)
                                : firstbitU(X, 64);
      EXPECT_EQ((*R)[I], uint32_t(E)) << Inst << " " << hex(X);
    }
  }
  {
    ElementwiseKernel K;
    K.In = "d";
    K.Out = 'd';
    K.Body = "\tbitrev_b64 $d4, $d0;";
    auto R = runElementwise<uint64_t>(K, T64);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    for (size_t I = 0; I < T64.size(); ++I) {
      uint64_t E = 0;
      for (int J = 0; J < 64; ++J)
        E |= ((T64[I] >> J) & 1) << (63 - J);
      EXPECT_EQ((*R)[I], E);
    }
  }

  // bitextract / bitinsert / bitmask: every offset and width, 32 and 64
  // bits, including offset + width beyond the length (undefined: only
  // checked not to crash) and width 0.
  for (int W : {32, 64}) {
    std::vector<uint64_t> Src, Ins;
    std::vector<uint32_t> Off, Wid;
    for (uint32_t O = 0; O < 70; O += 3)
      for (uint32_t Wd = 0; Wd < 70; Wd += 5) {
        Src.push_back(0xf0e1d2c3b4a59687ull);
        Ins.push_back(0x0123456789abcdefull ^ (O * 77 + Wd));
        Off.push_back(O);
        Wid.push_back(Wd);
      }
    const uint64_t LenMask = W == 32 ? 0xffffffffull : ~0ull;
    for (const char *Op :
         {"bitextract_u", "bitextract_s", "bitinsert_u", "bitmask_b"}) {
      const std::string Inst = Op + std::to_string(W);
      const bool Insert = Op[3] == 'i', Mask = Op[3] == 'm';
      const char C = W == 32 ? 's' : 'd';
      ElementwiseKernel K;
      K.Out = C;
      std::vector<uint64_t> R64;
      std::vector<uint32_t> R32;
      if (Mask) {
        K.In = "ss";
        K.Body = "\t" + Inst + " $" + C + "4, $s0, $s1;";
      } else if (Insert) {
        K.In = std::string{C, C, 's', 's'};
        K.Body =
            "\t" + Inst + " $" + C + "4, $" + C + "0, $" + C + "1, $s2, $s3;";
      } else {
        K.In = std::string{C, 's', 's'};
        K.Body = "\t" + Inst + " $" + C + "4, $" + C + "0, $s1, $s2;";
      }
      std::vector<uint32_t> Src32(Src.begin(), Src.end()),
          Ins32(Ins.begin(), Ins.end());
      llvm::Expected<std::vector<uint64_t>> Out64 = std::vector<uint64_t>();
      llvm::Expected<std::vector<uint32_t>> Out32 = std::vector<uint32_t>();
      if (W == 64)
        Out64 = Mask     ? runElementwise<uint64_t>(K, Off, Wid)
                : Insert ? runElementwise<uint64_t>(K, Src, Ins, Off, Wid)
                         : runElementwise<uint64_t>(K, Src, Off, Wid);
      else
        Out32 = Mask     ? runElementwise<uint32_t>(K, Off, Wid)
                : Insert ? runElementwise<uint32_t>(K, Src32, Ins32, Off, Wid)
                         : runElementwise<uint32_t>(K, Src32, Off, Wid);
      ASSERT_TRUE(bool(Out64)) << llvm::toString(Out64.takeError());
      ASSERT_TRUE(bool(Out32)) << llvm::toString(Out32.takeError());
      for (size_t I = 0; I < Off.size(); ++I) {
        const uint32_t O = Off[I] & (W - 1), Wd = Wid[I] & (W - 1);
        if (O + Wd > uint32_t(W))
          continue; // Undefined.
        const uint64_t S = Src[I] & LenMask;
        const uint64_t M = Wd == 64 ? ~0ull : (1ull << Wd) - 1;
        uint64_t E;
        if (Mask) {
          E = (M << O) & LenMask;
        } else if (Insert) {
          E = ((S & ~(M << O)) | ((Ins[I] & M) << O)) & LenMask;
        } else if (Wd == 0) {
          E = 0;
        } else {
          E = (S >> O) & M;
          if (Op[11] == 's' && ((E >> (Wd - 1)) & 1))
            E |= ~M;
          E &= LenMask;
        }
        uint64_t Got = W == 64 ? (*Out64)[I] : (*Out32)[I];
        EXPECT_EQ(Got, E) << Inst << " offset " << Off[I] << " width "
                          << Wid[I];
      }
    }
  }
  // PRM examples.
  {
    ElementwiseKernel K;
    K.In = "s";
    K.Body = "\tbitrev_b32 $s4, $s0;";
    auto R = runElementwise<uint32_t>(K, std::vector<uint32_t>{0x12345678});
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    EXPECT_EQ((*R)[0], 0x1e6a2c48u);
  }
  {
    ElementwiseKernel K;
    K.In = "sss";
    K.Body = "\tbitselect_b32 $s4, $s0, $s1, $s2;";
    std::vector<uint32_t> M = {0, ~0u, 0xff00ff00, 0x12345678},
                          X = {0xaaaaaaaa, 0xaaaaaaaa, 0xdeadbeef, ~0u},
                          Y = {0x55555555, 0x55555555, 0x01234567, 0};
    auto R = runElementwise<uint32_t>(K, M, X, Y);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    for (size_t I = 0; I < M.size(); ++I)
      EXPECT_EQ((*R)[I], (X[I] & M[I]) | (Y[I] & ~M[I]));
    K.In = "ddd";
    K.Out = 'd';
    K.Body = "\tbitselect_b64 $d4, $d0, $d1, $d2;";
    std::vector<uint64_t> M64 = {0xffffffff00000000ull, 0x0f0f0f0f0f0f0f0full},
                          X64 = {0x123456789abcdef0ull, ~0ull},
                          Y64 = {0xfedcba9876543210ull, 0};
    auto R64 = runElementwise<uint64_t>(K, M64, X64, Y64);
    ASSERT_TRUE(bool(R64)) << llvm::toString(R64.takeError());
    for (size_t I = 0; I < M64.size(); ++I)
      EXPECT_EQ((*R64)[I], (X64[I] & M64[I]) | (Y64[I] & ~M64[I]));
  }
}

struct U128 {
  uint64_t Lo, Hi;
  bool operator==(const U128 &) const = default;
};

// PRM 5.8: mov of every size including b128 (registers and immediates),
// combine and expand; 5.10: cmov.
TEST(ArithmeticTest, CopyCombineExpandCmov) {
  std::vector<U128> Q = {{0x0123456789abcdefull, 0xfedcba9876543210ull},
                         {~0ull, 0}};
  {
    ElementwiseKernel K;
    K.In = "q";
    K.Out = 'q';
    K.Body = "\tmov_b128 $q5, $q0;\n\tmov_b128 $q4, $q5;";
    auto R = runElementwise<U128>(K, Q);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    EXPECT_EQ((*R)[0], Q[0]);
    EXPECT_EQ((*R)[1], Q[1]);
  }
  {
    ElementwiseKernel K;
    K.In = "s";
    K.Out = 'q';
    K.Body = "\tmov_b128 $q4, u32x4(1, 2, 3, 4);";
    auto R = runElementwise<U128>(K, std::vector<uint32_t>{0});
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    // Packed constants list the most significant element first.
    EXPECT_EQ((*R)[0], (U128{0x0000000300000004ull, 0x0000000100000002ull}));
  }
  {
    // expand a q into four s, combine them back in another order, and
    // into d halves.
    ElementwiseKernel K;
    K.In = "q";
    K.Out = 'q';
    K.Body = "\texpand_v4_b32_b128 ($s0, $s1, $s2, $s3), $q0;\n"
             "\tcombine_v2_b64_b32 $d0, ($s1, $s0);\n"
             "\tcombine_v2_b64_b32 $d1, ($s3, $s2);\n"
             "\tcombine_v2_b128_b64 $q4, ($d1, $d0);\n";
    auto R = runElementwise<U128>(K, Q);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    auto Swap = [](uint64_t X) { return (X << 32) | (X >> 32); };
    for (size_t I = 0; I < Q.size(); ++I)
      EXPECT_EQ((*R)[I], (U128{Swap(Q[I].Hi), Swap(Q[I].Lo)}));
  }
  {
    ElementwiseKernel K;
    K.In = "q";
    K.Out = 'q';
    K.Body = "\texpand_v2_b64_b128 ($d1, $d2), $q0;\n"
             "\tcombine_v4_b128_b32 $q4, (7, $s0, 0x12345678, $s0);\n"
             "\texpand_v2_b32_b64 ($s0, $s1), $d2;\n"
             "\tcombine_v4_b128_b32 $q4, (7, $s1, 0x12345678, $s0);\n";
    auto R = runElementwise<U128>(K, Q);
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    for (size_t I = 0; I < Q.size(); ++I)
      EXPECT_EQ((*R)[I], (U128{(Q[I].Hi & 0xffffffff00000000ull) | 7,
                               (Q[I].Hi << 32) | 0x12345678}));
  }
  {
    ElementwiseKernel K;
    K.In = "css";
    K.Body = "\tcmov_b32 $s4, $c0, $s1, $s2;";
    auto R = runElementwise<uint32_t>(K, std::vector<uint32_t>{0, 1},
                                      std::vector<uint32_t>{11, 11},
                                      std::vector<uint32_t>{22, 22});
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    EXPECT_EQ((*R)[0], 22u);
    EXPECT_EQ((*R)[1], 11u);
  }
  {
    ElementwiseKernel K;
    K.In = "cdd";
    K.Out = 'd';
    K.Body = "\tcmov_b64 $d4, $c0, $d1, $d2;";
    auto R = runElementwise<uint64_t>(K, std::vector<uint32_t>{1, 0},
                                      std::vector<uint64_t>{~0ull, 1},
                                      std::vector<uint64_t>{2, 1ull << 40});
    ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
    EXPECT_EQ((*R)[0], ~0ull);
    EXPECT_EQ((*R)[1], 1ull << 40);
  }
}

// PRM 5.15: multimedia instructions, with the PRM's examples.
TEST(ArithmeticTest, Multimedia) {
  std::vector<uint32_t> A, B, C;
  const uint32_t V[] = {0xA3A2A1A0, 0xB3B2B1B0, 0,          0xffffffff,
                        0x01ff7f80, 0x80808080, 0x12345678, 0xfedcba98};
  for (uint32_t X : V)
    for (uint32_t Y : V)
      for (uint32_t Z : {0u, 1u, 8u, 16u, 24u, 31u, 33u, 0x01010101u}) {
        A.push_back(X);
        B.push_back(Y);
        C.push_back(Z);
      }
  auto AbsDiff = [](uint32_t X, uint32_t Y) { return X < Y ? Y - X : X - Y; };
  struct Case {
    const char *Inst;
    std::function<uint32_t(uint32_t, uint32_t, uint32_t)> Ref;
  } Cases[] = {
      {"bitalign_b32",
       [](uint32_t X, uint32_t Y, uint32_t Z) {
         return uint32_t(((uint64_t(Y) << 32) | X) >> (Z & 31));
       }},
      {"bytealign_b32",
       [](uint32_t X, uint32_t Y, uint32_t Z) {
         return uint32_t(((uint64_t(Y) << 32) | X) >> ((Z & 3) * 8));
       }},
      {"lerp_u8x4",
       [](uint32_t X, uint32_t Y, uint32_t Z) {
         uint32_t R = 0;
         for (int I = 0; I < 32; I += 8)
           R |= ((((X >> I) & 0xff) + ((Y >> I) & 0xff) + ((Z >> I) & 1)) >> 1)
                << I;
         return R;
       }},
      {"sad_u32_u32",
       [&](uint32_t X, uint32_t Y, uint32_t Z) { return AbsDiff(X, Y) + Z; }},
      {"sad_u32_u16x2",
       [&](uint32_t X, uint32_t Y, uint32_t Z) {
         return AbsDiff(X >> 16, Y >> 16) + AbsDiff(X & 0xffff, Y & 0xffff) + Z;
       }},
      {"sad_u32_u8x4",
       [&](uint32_t X, uint32_t Y, uint32_t Z) {
         uint32_t R = Z;
         for (int I = 0; I < 32; I += 8)
           R += AbsDiff((X >> I) & 0xff, (Y >> I) & 0xff);
         return R;
       }},
      {"sadhi_u16x2_u8x4",
       [&](uint32_t X, uint32_t Y, uint32_t Z) {
         uint32_t R = Z;
         for (int I = 0; I < 32; I += 8)
           R += AbsDiff((X >> I) & 0xff, (Y >> I) & 0xff) << 16;
         return R;
       }},
  };
  for (const Case &Cs : Cases) {
    ElementwiseKernel K;
    K.In = "sss";
    K.Body = std::string("\t") + Cs.Inst + " $s4, $s0, $s1, $s2;";
    auto R = runElementwise<uint32_t>(K, A, B, C);
    ASSERT_TRUE(bool(R)) << Cs.Inst << ": " << llvm::toString(R.takeError());
    for (size_t I = 0; I < A.size(); ++I)
      EXPECT_EQ((*R)[I], Cs.Ref(A[I], B[I], C[I]))
          << Cs.Inst << " " << hex(A[I]) << " " << hex(B[I]) << " "
          << hex(C[I]);
  }
  // The PRM's bitalign/bytealign examples.
  EXPECT_EQ(Cases[0].Ref(0xA3A2A1A0, 0xB3B2B1B0, 8), 0xB0A3A2A1u);
  EXPECT_EQ(Cases[1].Ref(0xA3A2A1A0, 0xB3B2B1B0, 3), 0xB2B1B0A3u);

  // packcvt: round to nearest even, saturate to 0..255, NaN to 0.
  const float Nan = std::numeric_limits<float>::quiet_NaN();
  const float Inf = std::numeric_limits<float>::infinity();
  std::vector<float> F0 = {0.5f, 1.5f, 2.5f, -1.0f, 254.5f, 255.49f, Nan},
                     F1 = {300.0f, -0.0f, Inf, -Inf, 3.7f, 127.5f, 0.49999997f},
                     F2 = {1e10f, 0.0f, 1.0f, 2.0f, 128.5f, 0.75f, 255.5f},
                     F3 = {-1e-30f, 7.0f, 8.5f, 9.5f, 10.5f, 11.5f, 12.5f};
  ElementwiseKernel K;
  K.In = "ssss";
  K.Body = "\tpackcvt_u8x4_f32 $s4, $s0, $s1, $s2, $s3;";
  auto R = runElementwise<uint32_t>(K, F0, F1, F2, F3);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  auto Cvt = [](float X) -> uint32_t {
    if (X != X || X <= 0)
      return 0;
    if (X >= 255)
      return 255;
    return uint32_t(std::nearbyint(X));
  };
  for (size_t I = 0; I < F0.size(); ++I)
    EXPECT_EQ((*R)[I], Cvt(F0[I]) | Cvt(F1[I]) << 8 | Cvt(F2[I]) << 16 |
                           Cvt(F3[I]) << 24)
        << I;
  // unpackcvt: every byte position.
  for (uint32_t Pos = 0; Pos < 4; ++Pos) {
    ElementwiseKernel U;
    U.In = "s";
    U.Body = "\tunpackcvt_f32_u8x4 $s4, $s0, " + std::to_string(Pos) + ";";
    std::vector<uint32_t> In = {0x01ff7f80, 0xdeadbeef};
    auto Out = runElementwise<float>(U, In);
    ASSERT_TRUE(bool(Out)) << llvm::toString(Out.takeError());
    for (size_t I = 0; I < In.size(); ++I)
      EXPECT_EQ((*Out)[I], float((In[I] >> (8 * Pos)) & 0xff));
  }
}

// Every instruction example of PRM chapter 5 (except lda, segmentp, ftos
// and stof, which other families lower; and the few examples HSAILasm
// itself rejects) finalizes.
TEST(ArithmeticTest, PrmChapter5ExamplesFinalize) {
  const char *Src = R"(
module &m:1:0:$full:$large:$default;
kernel &examples()
{
	abs_f32 $s1,$s2;
	abs_f64 $d1,$d2;
	abs_p_f16x2 $s1, $s2;
	abs_p_f32x2 $d1, $d1;
	abs_p_s32x2 $d1, $d1;
	abs_p_s8x4 $s1, $s2;
	abs_s32 $s1, $s2;
	abs_s64 $d1, $d2;
	add_f32 $s3,$s2,$s1;
	add_f64 $d3,$d2,$d1;
	add_pp_f16x2 $s1, $s0, $s3;
	add_pp_sat_u16x2 $s1, $s0, $s3;
	add_pp_sat_u16x4 $d1, $d0, $d3;
	add_s32 $s1, 42, $s2;
	add_s64 $d1, $d2, 23;
	add_u32 $s1, $s2, 0x23;
	add_u64 $d1, 61, 0x233412349456;
	and_b1 $c0, $c2, $c3;
	and_b32 $s0, $s2, $s3;
	and_b64 $d0, $d1, $d2;
	bitalign_b32 $s5, $s0, $s1, $s2;
	bitextract_s32 $s1, $s1, 2, 3;
	bitextract_u64 $d1, $d1, $s1, $s2;
	bitinsert_s32 $s1, $s1, $s2, 2, 3;
	bitinsert_u64 $d1, $d2, $d3, $s1, $s2;
	bitmask_b32 $s0, $s1, $s2;
	bitrev_b32 $s1, $s2;
	bitrev_b64 $d1, 0x234;
	bitselect_b32 $s3, $s0, $s3, $s4;
	borrow_s64 $d1, $d2, 23;
	bytealign_b32 $s5, $s0, $s1, $s2;
	carry_s64 $d1, $d2, 23;
	class_b1_f32 $c1, $s1, $s2;
	class_b1_f32 $c1, $s1, 3;
	class_b1_f64 $c1, $d1, $s2;
	class_b1_f64 $c1, $d1, 3;
	cmov_b32 $s1, $c0, $s1, $s2;
	cmov_b32 $s1, $c3, $s1, $s2;
	cmov_b64 $d1, $c3, $d1, $d2;
	cmov_s8x4 $s1, $s0, $s1, $s2;
	cmov_s8x8 $d1, $d0, $d1, $d2;
	cmov_u8x4 $s1, $s0, $s1, $s2;
	cmp_eq_b1_b1 $c1, $c2, 0;
	cmp_eq_f32_b1 $s1, $c2, 1;
	cmp_eq_s32_b1 $s1, $c2, 1;
	cmp_eq_u32_b1 $s1, $c2, 0;
	cmp_equ_b1_f32 $c1, $s2, 0.0f;
	cmp_equ_b1_f64 $c1, $d1, $d2;
	cmp_gt_b1_u32 $c1, $s2, 0;
	cmp_gt_f32_f32 $s1, $s2, 0.0f;
	cmp_gt_s32_s32 $s1, $s2, 0;
	cmp_gt_u32_s32 $s1, $s2, 0;
	cmp_lt_b1_u32 $c1, $s2, 0;
	cmp_lt_f32_f32 $s1, $s2, 0.0f;
	cmp_lt_pp_u16x2_f16x2 $s1, $s2, $s3;
	cmp_lt_pp_u32x2_f32x2 $d1, $d2, $d3;
	cmp_lt_pp_u8x4_u8x4 $s1, $s2, $s3;
	cmp_lt_s32_s32 $s1, $s2, 0;
	cmp_lt_u32_s32 $s1, $s2, 0;
	cmp_ne_b1_b1 $c1, $c2, 0;
	cmp_ne_f32_b1 $s1, $c2, 1;
	cmp_ne_s32_b1 $s1, $c2, 0;
	cmp_ne_u32_b1 $s1, $c2, 0;
	cmp_sltu_b1_f32 $c1, $s2, 0.0f;
	cmp_sltu_b1_f64 $c1, $d1, $d2;
	combine_v2_b128_b64 $q0, ($d0, $d1);
	combine_v2_b64_b32 $d0, ($s0, $s1);
	combine_v4_b128_b32 $q0, ($s0, $s1, $s2, $s3);
	copysign_f32 $s3,$s2,$s1;
	copysign_f64 $d3,$d2,$d1;
	cvt_downi_s32_f32 $s2, $s1; // sets $s2 = -2
	cvt_downi_s32_f32 $s2, $s1; // sets $s2 = 1
	cvt_neari_s32_f32 $s2, $s1; // sets $s2 = 2
	cvt_upi_s32_f32 $s2, $s1;   // sets $s2 = -1
	cvt_upi_s32_f32 $s2, $s1;   // sets $s2 = 2
	cvt_zeroi_s32_f32 $s2, $s1; // sets $s2 = 1
	div_f32 $s3,1.0f,$s1;
	div_f64 $d3,1.0,$d0;
	div_s32 $s1, 100, 10;
	div_s64 $d1, $d2, 23;
	div_u32 $s1, $s2, 0x23;
	div_u64 $d1, $d3, 0x233412349456;
	expand_v2_b32_b64 ($s0, $s1), $d0;
	expand_v2_b64_b128 ($d0, $d1), $q0;
	expand_v4_b32_b128 ($s0, $s1, $s2, $s3), $q0;
	firstbit_u32_s32 $s0, $s0;
	firstbit_u32_u64 $s0, $d6;
	fma_f32 $s3,1.0f,$s1,23.0f;
	fma_f64 $d3,1.0,$d0, $d3;
	fract_f32 $s0, 3.2f;
	lastbit_u32_s64 $s0, $d6;
	lastbit_u32_u32 $s0, $s0;
	lerp_u8x4 $s5, $s0, $s1, $s2;
	mad24_s32 $s1, $s2, -12, 23;
	mad24_u32 $s1, $s2, 12, 2;
	mad24hi_s32 $s1, $s2, -12, 23;
	mad24hi_u32 $s1, $s2, 12, 2;
	mad_f16 $s1, $s2, $s3, $s5;
	mad_f32 $s1, $s2, $s3, $s5;
	mad_f64 $d1, $d2, $d3, $d2;
	mad_s32 $s1, $s2, $s3, $s5;
	mad_s64 $d1, $d2, $d3, $d2;
	mad_u32 $s1, $s2, $s3, $s3;
	mad_u64 $d1, $d2, $d3, $d1;
	max_f32 $s3,1.0f,$s1;
	max_f64 $d3,1.0,$d0;
	max_pp_u8x4 $s1, $s0, $s3;
	max_s32 $s1, $s2, $s3;
	max_s32 $s1, 100, 10;
	max_s64 $d1, $d2, 23;
	max_u32 $s1, $s2, 0x23;
	max_u64 $d1, $d3, 0x233412349456;
	min_f32 $s3,1.0f,$s1;
	min_f64 $d3,1.0,$d0;
	min_pp_u8x4 $s1, $s0, $s3;
	min_s32 $s1, 100, 10;
	min_s64 $d1, $d2, 23;
	min_u32 $s1, $s2, 0x23;
	min_u64 $d1, $d3, 0x233412349456;
	mov_b1 $c1, 0;
	mov_b32 $s1, 0.0f;
	mov_b32 $s1, 0;
	mov_b64 $d1, $d0;                     // sets $d1 to the flat address x + 10
	mov_b64 $d1, 0;
	mul24_s32 $s1, $s2, -12;
	mul24_u32 $s1, $s2, 12;
	mul24hi_s32 $s1, $s2, -12;
	mul24hi_u32 $s1, $s2, 12;
	mul_f32 $s3,1.0f,$s1;
	mul_f64 $d3,1.0,$d0;
	mul_pp_u16x4 $d1, $d0, $d3;
	mul_s32 $s1, 100, 10;
	mul_s64 $d1, $d2, 23;
	mul_u32 $s1, $s2, 0x23;
	mul_u64 $d1, $d3, 0x233412349456;
	mulhi_pp_u8x8 $d1, $d3, $d4;
	mulhi_s32 $s1, $s3, $s3;
	mulhi_u32 $s1, $s2, $s9;
	ncos_f32 $s1, $s0;
	neg_f32 $s3,1.0f;
	neg_f64 $d3,1.0;
	neg_p_f16x2 $s1, $s2;
	neg_s32 $s1, 100;
	neg_s64 $d1, $d2;
	neg_s_s8x4 $s1, $s2;
	nexp2_f32 $s1, $s0;
	nfma_f32 $s3, 1.0f, $s1, 23.0f;
	nfma_f64 $d3, 1.0D, $d0, $d3;
	nlog2_f32 $s1, $s0;
	not_b1 $c1, $c2;
	not_b32 $s0, $s2;
	not_b64 $d0, $d1;
	nrcp_f32 $s1, $s0;
	nrsqrt_f32 $s1, $s0;
	nsin_f32 $s1, $s0;
	or_b1 $c0, $c2, $c3;
	or_b32 $s0, $s2, $s3;
	or_b64 $d0, $d1, $d2;
	pack_f16x2_f16 $s1, $s2, $s3, 1;
	pack_f16x4_f16 $d1, $d2, $s3, 3;
	pack_f32x2_f32 $d1, $d1, $s2, 1;
	pack_f32x4_f32 $q1, $q2, $s2, 3;
	pack_s64x2_s64 $q1, $q1, $d1, $s1;
	pack_u32x2_u32 $d1, $d2, $s1, 2;
	pack_u32x2_u32 $d1, $d2, $s3, 0;
	pack_u8x4_u32 $s1, $s2, $s3, 2;
	packcvt_u8x4_f32 $s1, $s2, $s3, $s9, $s3;
	popcount_u32_b32 $s1, $s2;
	popcount_u32_b64 $s1, $d2;
	rem_s32 $s1, 100, 10;
	rem_s64 $d1, $d2, 23;
	rem_u32 $s1, $s2, 0x23;
	rem_u64 $d1, $d3, 0x233412349456;
	sad_u32_u16x2 $s5, $s0, $s1, $s6;
	sad_u32_u32 $s5, $s0, $s1, $s6;
	sad_u32_u8x4 $s5, $s0, $s1, $s6;
	sadhi_u16x2_u8x4 $s5, $s0, $s1, $s6;
	shl_s32 $s1, $s2, 2;
	shl_s64 $d1, $d2, 2;
	shl_u32 $s1, $s2, 2;
	shl_u64 $d1, $d2, 2;
	shl_u8x4 $s1, $s2, 2;
	shl_u8x8 $d0, $d1, 2;
	shl_u8x8 $d1, $d2, 1;
	shr_s32 $s1, $s2, 2;
	shr_s64 $d1, $d2, 2;
	shr_u32 $s1, $s2, 2;
	shr_u64 $d1, $d2, 2;
	shr_u8x4 $s1, $s2, 1;
	shr_u8x8 $d1, $d2, 2;
	shuffle_u8x4 $s10, $s12, $s12, 0x55;
	sub_f32 $s3,1.0f,$s1;
	sub_f64 $d3,1.0,$d0;
	sub_pp_f16x2 $s1, $s0, $s3;
	sub_s32 $s1, 100, 10;
	sub_s64 $d1, $d2, 23;
	sub_sp_u8x8      $d1, $d0, $d3;
	sub_u32 $s1, $s2, 0x23;
	sub_u64 $d1, $d3, 0x233412349456;
	unpack_f16_f16x2 $s1, $s2, 1;
	unpack_f16_f16x4 $s1, $d2, 3;
	unpack_f32_f32x2 $s1, $d2, 1;
	unpack_f32_f32x4 $s1, $q2, 3;
	unpack_s32_s16x4 $s1, $d1, 0;
	unpack_s32_s32x2 $s1, $d2, 0;
	unpack_s64_s64x2 $d1, $q1, 0;
	unpack_u32_u32x4 $s1, $q1, 2;
	unpack_u32_u8x4 $s1, $s2, 2;
	unpackcvt_f32_u8x4 $s5, $s0, 0;
	unpackcvt_f32_u8x4 $s5, $s0, 1;
	unpackcvt_f32_u8x4 $s5, $s0, 2;
	unpackcvt_f32_u8x4 $s5, $s0, 3;
	unpackhi_f16x2 $s3, $s3,$s4;
	xor_b1 $c0, $c2, $c3;
	xor_b32 $s0, $s2, $s3;
	xor_b64 $d0, $d1, $d2;
	ret;
	ret;
};
)";
  auto P = finalizeText(Src);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
}

// Unsupported or invalid forms fail naming the instruction.
TEST(ArithmeticTest, InvalidFormsFailNamingTheInstruction) {
  ElementwiseKernel K;
  K.Header = "module &m:1:0:$base:$large:$default;";
  K.In = "dd";
  K.Out = 'd';
  K.Body = "\tadd_ftz_f64 $d4, $d0, $d1;";
  auto P = finalizeText(elementwiseSource(K));
  if (P) {
    ADD_FAILURE() << "f64 accepted in the base profile";
  } else {
    std::string Message = llvm::toString(P.takeError());
    EXPECT_NE(Message.find("f64"), std::string::npos) << Message;
  }
}

} // namespace
