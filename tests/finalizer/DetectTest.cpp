//===- tests/finalizer/DetectTest.cpp - DETECT exception flags ------------===//
//
// PRM 11.2, 12.2, 12.3: with exceptions enabled for the DETECT policy, each
// floating-point instruction raises the IEEE 754-2008 flags its result
// calls for into the work-item's flags, read with getdetectexcept. The
// arithmetic is checked against the host FPU's own flags (<cfenv>, SSE) in
// every rounding mode, on special and random operands; conversions,
// comparisons, min/max and ftz against the PRM's rules.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <random>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

using namespace openhsa::test;

namespace {

constexpr uint32_t Invalid = 1, DivZero = 2, Overflow = 4, Underflow = 8,
                   Inexact = 16;

/// A kernel that clears the flags, runs Inst on the work-item's operands
/// ($s1, $s2, $s3 or $d1, $d2, $d3 from arrays a, b, c), and stores the
/// result register ($s4/$d4 or $c4 as u32) and the flags.
std::string detectKernel(const std::string &Inst, char Src, char Dst,
                         uint32_t Enabled = 31) {
  const unsigned Bytes = Src == 'd' ? 8 : 4;
  const std::string Shift = Bytes == 8 ? "3" : "2";
  std::string S = "module &m:1:0:$full:$large:$default;\n"
                  "kernel &k(kernarg_u64 %a, kernarg_u64 %b, kernarg_u64 %c, "
                  "kernarg_u64 %r, kernarg_u64 %f)\n{\n";
  if (Enabled)
    S += "\tenabledetectexceptions " + std::to_string(Enabled) + ";\n";
  S += "\tworkitemabsid_u32\t$s0, 0;\n"
       "\tcvt_u64_u32\t$d0, $s0;\n"
       "\tshl_u64\t$d9, $d0, " +
       Shift + ";\n";
  const char *Names[] = {"%a", "%b", "%c"};
  for (int J = 0; J < 3; ++J) {
    S += std::string("\tld_kernarg_align(8)_width(all)_u64\t$d8, [") +
         Names[J] + "];\n\tadd_u64\t$d8, $d8, $d9;\n";
    S += std::string("\tld_global_") + (Bytes == 8 ? "u64\t$d" : "u32\t$s") +
         std::to_string(J + 1) + ", [$d8];\n";
  }
  S += "\tcleardetectexcept_u32\t31;\n\t" + Inst + ";\n";
  S += "\tgetdetectexcept_u32\t$s5;\n";
  S += "\tld_kernarg_align(8)_width(all)_u64\t$d8, [%r];\n";
  if (Dst == 'c') {
    S += "\tcvt_u32_b1\t$s4, $c4;\n"
         "\tshl_u64\t$d7, $d0, 2;\n\tadd_u64\t$d8, $d8, $d7;\n"
         "\tst_global_u32\t$s4, [$d8];\n";
  } else {
    S += "\tshl_u64\t$d7, $d0, " + std::string(Dst == 'd' ? "3" : "2") +
         ";\n\tadd_u64\t$d8, $d8, $d7;\n";
    S += std::string("\tst_global_") + (Dst == 'd' ? "u64\t$d4" : "u32\t$s4") +
         ", [$d8];\n";
  }
  S += "\tld_kernarg_align(8)_width(all)_u64\t$d8, [%f];\n"
       "\tshl_u64\t$d7, $d0, 2;\n\tadd_u64\t$d8, $d8, $d7;\n"
       "\tst_global_u32\t$s5, [$d8];\n\tret;\n};\n";
  return S;
}

template <typename T> struct DetectRun {
  std::vector<T> Result;
  std::vector<uint32_t> Flags;
};

/// Finalizes Inst and runs it over the operand arrays.
template <typename T, typename R = T>
DetectRun<R> runDetect(const std::string &Inst, char Src, char Dst,
                       const std::vector<T> &A, const std::vector<T> &Bv,
                       const std::vector<T> &C, uint32_t Enabled = 31) {
  DetectRun<R> Out;
  auto P = finalizeText(detectKernel(Inst, Src, Dst, Enabled));
  EXPECT_TRUE(bool(P)) << Inst << ": " << llvm::toString(P.takeError());
  if (!P)
    return Out;
  Out.Result.assign(A.size(), R());
  Out.Flags.assign(A.size(), 0xdead);
  struct {
    const T *A, *B, *C;
    R *Res;
    uint32_t *F;
  } Args{A.data(), Bv.data(), C.data(), Out.Result.data(), Out.Flags.data()};
  // One work-item per group, so each is its own wavefront: the flags a
  // work-item reads are the wavefront's (PRM 11.2.3), here its own.
  Grid G;
  G.Size[0] = uint32_t(A.size());
  G.WorkGroup[0] = 1;
  runKernel(*P, "&k", G, &Args);
  return Out;
}

uint32_t hostFlags() {
  const int E = std::fetestexcept(FE_ALL_EXCEPT);
  return (E & FE_INVALID ? Invalid : 0) | (E & FE_DIVBYZERO ? DivZero : 0) |
         (E & FE_OVERFLOW ? Overflow : 0) | (E & FE_UNDERFLOW ? Underflow : 0) |
         (E & FE_INEXACT ? Inexact : 0);
}

template <typename T> std::vector<T> operands(unsigned Seed) {
  using L = std::numeric_limits<T>;
  T SNaN;
  if constexpr (sizeof(T) == 4) {
    uint32_t Bits = 0x7fa00000;
    std::memcpy(&SNaN, &Bits, 4);
  } else {
    uint64_t Bits = 0x7ff4000000000000ull;
    std::memcpy(&SNaN, &Bits, 8);
  }
  std::vector<T> V = {
      T(0),          T(-0.0),        T(1),           T(-1),
      L::infinity(), -L::infinity(), L::quiet_NaN(), SNaN,
      L::max(),      -L::max(),      L::min(),       L::denorm_min(),
      T(3),          T(0.1),         T(1e-30),       L::min() * T(0.75)};
  std::mt19937 Gen(Seed);
  std::uniform_real_distribution<double> Mant(1.0, 2.0);
  std::uniform_int_distribution<int> Exp(L::min_exponent - 5,
                                         L::max_exponent - 2);
  for (int I = 0; I < 48; ++I)
    V.push_back(T((Gen() & 1 ? -1 : 1) * std::ldexp(Mant(Gen), Exp(Gen))));
  return V;
}

bool sameValue(float X, float Y) {
  return (std::isnan(X) && std::isnan(Y)) ||
         std::memcmp(&X, &Y, sizeof(float)) == 0;
}
bool sameValue(double X, double Y) {
  return (std::isnan(X) && std::isnan(Y)) ||
         std::memcmp(&X, &Y, sizeof(double)) == 0;
}

struct RoundingCase {
  const char *Modifier; // HSAIL rounding modifier, "" for the default.
  int Host;             // <cfenv> rounding mode.
};
const RoundingCase Roundings[] = {{"", FE_TONEAREST},
                                  {"_zero", FE_TOWARDZERO},
                                  {"_up", FE_UPWARD},
                                  {"_down", FE_DOWNWARD}};

/// Runs Host on every operand triple in the host's current floating-point
/// environment and reports where Got's result or flags differ; returns how
/// many do.
template <typename T>
unsigned hostMismatches(const std::string &Inst, const DetectRun<T> &Got,
                        const std::vector<T> &A, const std::vector<T> &Bv,
                        const std::vector<T> &C, T (*Host)(T, T, T)) {
  unsigned Wrong = 0;
  for (size_t I = 0; I < A.size(); ++I) {
    std::feclearexcept(FE_ALL_EXCEPT);
    volatile T Want = Host(A[I], Bv[I], C[I]);
    const uint32_t WantFlags = hostFlags();
    if ((!sameValue(Got.Result[I], Want) || Got.Flags[I] != WantFlags) &&
        ++Wrong <= 5)
      ADD_FAILURE() << Inst << " of " << A[I] << ", " << Bv[I] << ", " << C[I]
                    << ": result " << Got.Result[I] << " flags 0x" << std::hex
                    << Got.Flags[I] << ", host " << Want << " flags 0x"
                    << WantFlags << std::dec;
  }
  return Wrong;
}

/// Binary and ternary arithmetic of type T against the host, every pair
/// (triple) of operands, every rounding mode.
template <typename T>
void checkArithmetic(const char *Type, char Reg, T (*Host)(T, T, T),
                     const char *Op, unsigned Arity) {
  std::vector<T> Ops = operands<T>(42);
  std::vector<T> A, Bv, C;
  std::mt19937 Gen(7);
  for (T X : Ops)
    for (T Y : Ops) {
      A.push_back(X);
      Bv.push_back(Y);
      C.push_back(Arity == 3 ? Ops[Gen() % Ops.size()] : T(0));
    }
  for (const RoundingCase &R : Roundings) {
    std::string Regs = std::string("$") + Reg + "4, $" + Reg + "1";
    if (Arity >= 2)
      Regs += std::string(", $") + Reg + "2";
    if (Arity == 3)
      Regs += std::string(", $") + Reg + "3";
    const std::string Inst =
        std::string(Op) + R.Modifier + "_" + Type + "\t" + Regs;
    DetectRun<T> Got = runDetect<T>(Inst, Reg, Reg, A, Bv, C);
    if (Got.Flags.empty())
      return;
    std::fesetround(R.Host);
    const unsigned Wrong = hostMismatches(Inst, Got, A, Bv, C, Host);
    std::fesetround(FE_TONEAREST);
    EXPECT_EQ(Wrong, 0u) << Inst << ": " << A.size() << " cases";
  }
}

template <typename T> T hostAdd(T X, T Y, T) {
  volatile T A = X, B = Y;
  return A + B;
}
template <typename T> T hostSub(T X, T Y, T) {
  volatile T A = X, B = Y;
  return A - B;
}
template <typename T> T hostMul(T X, T Y, T) {
  volatile T A = X, B = Y;
  return A * B;
}
template <typename T> T hostDiv(T X, T Y, T) {
  volatile T A = X, B = Y;
  return A / B;
}
template <typename T> T hostFma(T X, T Y, T Z) {
  volatile T A = X, B = Y, C = Z;
  return std::fma(T(A), T(B), T(C));
}
template <typename T> T hostSqrt(T X, T, T) {
  volatile T A = X;
  return std::sqrt(T(A));
}

TEST(DetectTest, F32ArithmeticMatchesTheHost) {
  checkArithmetic<float>("f32", 's', hostAdd<float>, "add", 2);
  checkArithmetic<float>("f32", 's', hostSub<float>, "sub", 2);
  checkArithmetic<float>("f32", 's', hostMul<float>, "mul", 2);
  checkArithmetic<float>("f32", 's', hostDiv<float>, "div", 2);
  checkArithmetic<float>("f32", 's', hostSqrt<float>, "sqrt", 1);
  checkArithmetic<float>("f32", 's', hostFma<float>, "fma", 3);
}

TEST(DetectTest, F64ArithmeticMatchesTheHost) {
  checkArithmetic<double>("f64", 'd', hostAdd<double>, "add", 2);
  checkArithmetic<double>("f64", 'd', hostSub<double>, "sub", 2);
  checkArithmetic<double>("f64", 'd', hostMul<double>, "mul", 2);
  checkArithmetic<double>("f64", 'd', hostDiv<double>, "div", 2);
  checkArithmetic<double>("f64", 'd', hostSqrt<double>, "sqrt", 1);
  checkArithmetic<double>("f64", 'd', hostFma<double>, "fma", 3);
}

// ftz: tiny results flush to zero raising underflow and inexact; subnormal
// operands count as zeros (x86's FTZ and DAZ give the same flags).
TEST(DetectTest, FlushToZeroMatchesTheHostWithFtzAndDaz) {
#if !defined(__x86_64__) && !defined(__i386__)
  GTEST_SKIP() << "the host reference needs x86's MXCSR FTZ and DAZ";
#else
  std::vector<float> Ops = operands<float>(5);
  std::vector<float> A, Bv, C;
  for (float X : Ops)
    for (float Y : Ops) {
      A.push_back(X);
      Bv.push_back(Y);
      C.push_back(0);
    }
  struct {
    const char *Op;
    float (*Host)(float, float, float);
  } Cases[] = {{"add", hostAdd<float>},
               {"mul", hostMul<float>},
               {"div", hostDiv<float>}};
  for (const auto &Case : Cases) {
    const std::string Inst = std::string(Case.Op) + "_ftz_f32\t$s4, $s1, $s2";
    DetectRun<float> Got = runDetect<float>(Inst, 's', 's', A, Bv, C);
    if (Got.Flags.empty())
      return;
    const unsigned Csr = _mm_getcsr();
    _mm_setcsr(Csr | 0x8040); // FTZ and DAZ.
    const unsigned Wrong = hostMismatches(Inst, Got, A, Bv, C, Case.Host);
    _mm_setcsr(Csr);
    EXPECT_EQ(Wrong, 0u) << Inst;
  }
#endif
}

TEST(DetectTest, ConversionsComparisonsAndMinMax) {
  const float Inf = std::numeric_limits<float>::infinity();
  const float QNaN = std::numeric_limits<float>::quiet_NaN();
  float SNaN;
  const uint32_t SBits = 0x7fa00000;
  std::memcpy(&SNaN, &SBits, 4);
  const std::vector<float> A = {1.5f, -2.0f, 3e9f, -3e9f,  Inf,
                                QNaN, SNaN,  0.0f, 1e-40f, 16777217.0f};
  const std::vector<float> Bv = {2.0f, -2.0f, 1.0f, QNaN, Inf,
                                 1.0f, 1.0f,  QNaN, 0.0f, 1.0f};
  const std::vector<float> Zero(A.size(), 0.0f);
  struct Case {
    const char *Inst;
    char Dst;
    std::vector<uint32_t> Want;
  };
  const Case Cases[] = {
      // Non-saturating: NaN, infinity or out of range is invalid; no
      // inexact. Saturating: only a signaling NaN. Signaling roundings:
      // inexact when not integral.
      {"cvt_zeroi_s32_f32\t$s4, $s1",
       's',
       {0, 0, Invalid, Invalid, Invalid, Invalid, Invalid, 0, 0, 0}},
      {"cvt_zeroi_sat_s32_f32\t$s4, $s1",
       's',
       {0, 0, 0, 0, 0, 0, Invalid, 0, 0, 0}},
      {"cvt_szeroi_s32_f32\t$s4, $s1",
       's',
       {Inexact, 0, Invalid, Invalid, Invalid, Invalid, Invalid, 0, Inexact,
        0}},
      {"cvt_neari_u32_f32\t$s4, $s1",
       's',
       {0, Invalid, 0, Invalid, Invalid, Invalid, Invalid, 0, 0, 0}},
      // Float to float: narrowing rounds (inexact, overflow, underflow);
      // widening is exact; a signaling NaN is invalid.
      {"cvt_f16_f32\t$s4, $s1",
       's',
       {0, 0, Overflow | Inexact, Overflow | Inexact, 0, 0, Invalid, 0,
        Underflow | Inexact, Overflow | Inexact}},
      {"cvt_f64_f32\t$d4, $s1", 'd', {0, 0, 0, 0, 0, 0, Invalid, 0, 0, 0}},
      // Integer to float: inexact when rounded.
      {"cvt_f32_s32\t$s4, $s3", 's', {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
      // Quiet comparisons: invalid on a signaling NaN only; signaling ones
      // on any NaN.
      {"cmp_lt_b1_f32\t$c4, $s1, $s2",
       'c',
       {0, 0, 0, 0, 0, 0, Invalid, 0, 0, 0}},
      {"cmp_slt_b1_f32\t$c4, $s1, $s2",
       'c',
       {0, 0, 0, Invalid, 0, Invalid, Invalid, Invalid, 0, 0}},
      {"max_f32\t$s4, $s1, $s2", 's', {0, 0, 0, 0, 0, 0, Invalid, 0, 0, 0}},
      // Bit operations never raise.
      {"neg_f32\t$s4, $s1", 's', {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
      {"ceil_f32\t$s4, $s1", 's', {0, 0, 0, 0, 0, 0, Invalid, 0, 0, 0}},
  };
  for (const Case &K : Cases) {
    std::vector<uint32_t> Flags;
    if (K.Dst == 'd')
      Flags = runDetect<float, double>(K.Inst, 's', 'd', A, Bv, Zero).Flags;
    else
      Flags = runDetect<float, uint32_t>(K.Inst, 's', K.Dst, A, Bv, Zero).Flags;
    EXPECT_EQ(Flags, K.Want) << K.Inst;
  }
  // Integer to float: 16777217 does not fit f32's 24 bits.
  const std::vector<int32_t> Ints = {1, 16777217, -16777219, 0};
  const std::vector<int32_t> IntZero(Ints.size(), 0);
  auto Flags = runDetect<int32_t, float>("cvt_f32_s32\t$s4, $s1", 's', 's',
                                         Ints, IntZero, IntZero)
                   .Flags;
  EXPECT_EQ(Flags, (std::vector<uint32_t>{0, Inexact, Inexact, 0}));
}

// Only the enabled exceptions are recorded; without enabledetectexceptions
// nothing is (and the fast paths run).
TEST(DetectTest, OnlyEnabledExceptionsAreRecorded) {
  const std::vector<float> A = {1.0f, 0.0f, 3.0f};
  const std::vector<float> Bv = {0.0f, 0.0f, 10.0f};
  const std::vector<float> Zero(A.size(), 0.0f);
  auto Two = runDetect<float>("div_f32\t$s4, $s1, $s2", 's', 's', A, Bv, Zero,
                              DivZero | Inexact);
  EXPECT_EQ(Two.Flags, (std::vector<uint32_t>{DivZero, 0, Inexact}));
  auto None =
      runDetect<float>("div_f32\t$s4, $s1, $s2", 's', 's', A, Bv, Zero, 0);
  EXPECT_EQ(None.Flags, (std::vector<uint32_t>{0, 0, 0}));
  EXPECT_EQ(None.Result[2], 0.3f);
}

// PRM 11.2.3: the DETECT flags are the wavefront's. Work-items that raise
// different exceptions in one wavefront all read the union of them; a
// partial wavefront only its own lanes'.
TEST(DetectTest, FlagsSummarizeTheWavefront) {
  auto P = finalizeText(R"(
module &m:1:0:$full:$large:$default;
kernel &k(kernarg_u64 %out)
{
	enabledetectexceptions 31;
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(8)_width(all)_u64	$d0, [%out];
	cleardetectexcept_u32	31;
	and_b32	$s1, $s0, 7;
	cvt_f32_u32	$s2, $s1;
	div_f32	$s3, 1.0f, $s2;
	getdetectexcept_u32	$s4;
	cvt_u64_u32	$d1, $s0;
	shl_u64	$d1, $d1, 2;
	add_u64	$d1, $d0, $d1;
	st_global_u32	$s4, [$d1];
	ret;
};
)");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const unsigned W = defaultWavefrontSize();
  // Work-item i divides 1 by i % 8: by zero for i % 8 == 0, inexactly for
  // 3, 5, 6 and 7. Groups of 20: partial wavefronts.
  const uint32_t N = 50, Group = 20;
  std::vector<uint32_t> Flags(N, 99);
  uint32_t *Ptr = Flags.data();
  Grid G;
  G.Size[0] = N;
  G.WorkGroup[0] = Group;
  runKernel(*P, "&k", G, &Ptr);
  auto Own = [](uint32_t I) -> uint32_t {
    const uint32_t D = I % 8;
    return D == 0 ? DivZero : (D == 3 || D >= 5) ? Inexact : 0;
  };
  for (uint32_t I = 0; I < N; ++I) {
    const uint32_t GroupStart = I / Group * Group;
    const uint32_t WaveStart = GroupStart + (I - GroupStart) / W * W;
    const uint32_t WaveEnd = std::min({WaveStart + W, GroupStart + Group, N});
    uint32_t Want = 0;
    for (uint32_t J = WaveStart; J < WaveEnd; ++J)
      Want |= Own(J);
    EXPECT_EQ(Flags[I], Want) << "work-item " << I << ", W " << W;
  }
}

} // namespace

namespace {

// A function's floating-point instructions raise into the flags of the
// work-item that calls it (the program detects what its kernels enable).
TEST(DetectTest, FunctionsRaiseIntoTheirCallersFlags) {
  auto P = finalizeText(R"(
module &m:1:0:$full:$large:$default;
function &divide(arg_f32 %r)(arg_f32 %x, arg_f32 %y)
{
	ld_arg_f32	$s0, [%x];
	ld_arg_f32	$s1, [%y];
	div_f32	$s2, $s0, $s1;
	st_arg_f32	$s2, [%r];
	ret;
};
kernel &k(kernarg_u64 %out)
{
	enabledetectexceptions 31;
	ld_kernarg_align(8)_width(all)_u64	$d0, [%out];
	workitemabsid_u32	$s0, 0;
	cvt_f32_u32	$s1, $s0;
	{
		arg_f32 %r;
		arg_f32 %x;
		arg_f32 %y;
		st_arg_f32	1.0f, [%x];
		st_arg_f32	$s1, [%y];
		call	&divide (%r) (%x, %y);
		ld_arg_f32	$s2, [%r];
	}
	getdetectexcept_u32	$s3;
	cvt_u64_u32	$d1, $s0;
	shl_u64	$d1, $d1, 2;
	add_u64	$d1, $d0, $d1;
	st_global_u32	$s3, [$d1];
	ret;
};
)");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  std::vector<uint32_t> Flags(4, 99);
  uint32_t *Ptr = Flags.data();
  Grid G;
  G.Size[0] = 4;
  G.WorkGroup[0] = 1; // Each work-item its own wavefront.
  RunOptions O;
  O.PoisonByte = 0xff;
  runKernelWith(*P, "&k", G, &Ptr, O);
  // 1/0 divides by zero; 1/1 and 1/2 are exact; 1/3 is inexact.
  EXPECT_EQ(Flags, (std::vector<uint32_t>{DivZero, 0, 0, Inexact}));
}

} // namespace
