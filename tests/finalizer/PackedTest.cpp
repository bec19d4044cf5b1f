//===- tests/finalizer/PackedTest.cpp - Packed data -----------------------===//
//
// PRM 4.14 and the packed forms of chapter 5: every uNxM/sNxM/fNxM shape
// with every packing control (pp, ps, sp, ss, p, s and the _sat forms),
// saturation, packed shifts, cmov, cmp, and the packed data instructions
// (shuffle, unpacklo/hi, pack, unpack). Integer elements are compared with
// host computations; floating-point elements with the host's hardware (f32,
// f64) or with the scalar instruction (f16, itself checked in FloatTest).
//
//===----------------------------------------------------------------------===//
#include "FloatReference.h"
#include "KernelRunner.h"

#include <array>
#include <functional>

using namespace openhsa::test;
using namespace openhsa::test::fp;

namespace {

using Reg = std::array<uint8_t, 16>; // A register's bytes, little endian.

struct Shape {
  const char *Name; // "u8x4"
  unsigned Bits, Count;
  char Kind; // 'u', 's', 'f'
  unsigned bytes() const { return Bits * Count / 8; }
  char reg() const { return bytes() == 4 ? 's' : bytes() == 8 ? 'd' : 'q'; }
};

const Shape IntShapes[] = {
    {"u8x4", 8, 4, 'u'},   {"s8x4", 8, 4, 's'},   {"u16x2", 16, 2, 'u'},
    {"s16x2", 16, 2, 's'}, {"u8x8", 8, 8, 'u'},   {"s8x8", 8, 8, 's'},
    {"u16x4", 16, 4, 'u'}, {"s16x4", 16, 4, 's'}, {"u32x2", 32, 2, 'u'},
    {"s32x2", 32, 2, 's'}, {"u8x16", 8, 16, 'u'}, {"s8x16", 8, 16, 's'},
    {"u16x8", 16, 8, 'u'}, {"s16x8", 16, 8, 's'}, {"u32x4", 32, 4, 'u'},
    {"s32x4", 32, 4, 's'}, {"u64x2", 64, 2, 'u'}, {"s64x2", 64, 2, 's'}};
const Shape FloatShapes[] = {{"f16x2", 16, 2, 'f'}, {"f16x4", 16, 4, 'f'},
                             {"f16x8", 16, 8, 'f'}, {"f32x2", 32, 2, 'f'},
                             {"f32x4", 32, 4, 'f'}, {"f64x2", 64, 2, 'f'}};

uint64_t mask(unsigned Bits) {
  return Bits == 64 ? ~0ull : (uint64_t(1) << Bits) - 1;
}
uint64_t get(const Reg &R, unsigned Bits, unsigned I) {
  uint64_t V = 0;
  std::memcpy(&V, R.data() + I * Bits / 8, Bits / 8);
  return V;
}
void set(Reg &R, unsigned Bits, unsigned I, uint64_t V) {
  std::memcpy(R.data() + I * Bits / 8, &V, Bits / 8);
}
int64_t signedOf(uint64_t V, unsigned Bits) {
  return Bits == 64 ? int64_t(V) : int64_t(V << (64 - Bits)) >> (64 - Bits);
}

/// R with the sign bit of each NaN element of float shape S cleared: the
/// PRM lets a NaN result's sign differ from its NaN input's (4.19.4, Full
/// profile: "bit-identical to one of the NaN inputs ... except that the
/// sign bits may differ"), and code paths do differ in it (LLVM's
/// vectorized work-item loops against their scalar remainders).
Reg nanSignsCleared(Reg R, const Shape &S) {
  const unsigned Exp = S.Bits == 16 ? 5 : S.Bits == 32 ? 8 : 11;
  const unsigned Man = S.Bits - 1 - Exp;
  const uint64_t ExpMask = ((uint64_t(1) << Exp) - 1) << Man;
  const uint64_t ManMask = (uint64_t(1) << Man) - 1;
  for (unsigned E = 0; E < S.Count; ++E) {
    const uint64_t V = get(R, S.Bits, E);
    if ((V & ExpMask) == ExpMask && (V & ManMask))
      set(R, S.Bits, E, V & ~(uint64_t(1) << (S.Bits - 1)));
  }
  return R;
}

std::string hexReg(const Reg &R, unsigned Bytes) {
  std::string S = "0x";
  char Buf[4];
  for (unsigned I = Bytes; I-- > 0;) {
    snprintf(Buf, sizeof(Buf), "%02x", R[I]);
    S += Buf;
  }
  return S;
}

/// Runs K with register-sized inputs (each In[i] holds N registers of
/// input i's class) and returns N output registers.
std::vector<Reg> runRegs(const ElementwiseKernel &K,
                         const std::vector<std::vector<Reg>> &In) {
  const size_t N = In.empty() ? 1 : In[0].size();
  std::vector<std::vector<uint8_t>> Raw;
  for (size_t I = 0; I < In.size(); ++I) {
    const unsigned B = elementwiseBytes(K.In[I]);
    Raw.emplace_back(N * B);
    for (size_t E = 0; E < N; ++E)
      std::memcpy(Raw.back().data() + E * B, In[I][E].data(), B);
  }
  auto P = finalizeText(elementwiseSource(K));
  if (!P) {
    ADD_FAILURE() << K.Body << ": " << llvm::toString(P.takeError());
    return {};
  }
  const unsigned OB = elementwiseBytes(K.Out);
  std::vector<uint8_t> Out(N * OB);
  struct {
    const void *In[4];
    void *Out;
  } Args{{nullptr, nullptr, nullptr, nullptr}, Out.data()};
  for (size_t I = 0; I < Raw.size(); ++I)
    Args.In[I] = Raw[I].data();
  Grid G;
  G.Size[0] = uint32_t(N);
  G.WorkGroup[0] = 64;
  runKernel(*P, "&elementwise", G, &Args);
  std::vector<Reg> R(N);
  for (size_t E = 0; E < N; ++E) {
    R[E].fill(0);
    std::memcpy(R[E].data(), Out.data() + E * OB, OB);
  }
  return R;
}

/// Registers of Shape S whose elements cycle through edge values.
std::vector<Reg> edgeRegs(const Shape &S, size_t N, uint64_t Seed) {
  std::vector<uint64_t> E = {0,
                             1,
                             2,
                             mask(S.Bits),
                             mask(S.Bits) - 1,
                             mask(S.Bits) >> 1,
                             (mask(S.Bits) >> 1) + 1,
                             (mask(S.Bits) >> 1) - 1,
                             3,
                             0x55,
                             0xaa};
  Rng R(Seed);
  std::vector<Reg> V(N);
  for (size_t I = 0; I < N; ++I) {
    V[I].fill(0);
    for (unsigned J = 0; J < S.Count; ++J) {
      uint64_t X = (R.next() & 3) ? E[R.next() % E.size()] : R.next();
      set(V[I], S.Bits, J, X & mask(S.Bits));
    }
  }
  return V;
}

enum class Control { PP, PS, SP, SS };
const char *controlName(Control C, bool Sat, bool Unary) {
  static const char *Names[] = {"pp", "ps", "sp", "ss"};
  static const char *Unaries[] = {"p", "p", "p", "s"};
  static std::string S;
  S = std::string(Unary ? Unaries[int(C)] : Names[int(C)]) +
      (Sat ? "_sat" : "");
  return S.c_str();
}

/// The reference of a whole packed instruction: Fn on the element pairs
/// the control selects; ss/s keep Old's other elements.
Reg applyControl(const Shape &S, Control C, const Reg &A, const Reg &B,
                 const Reg &Old,
                 const std::function<uint64_t(uint64_t, uint64_t)> &Fn) {
  Reg R = C == Control::SS ? Old : Reg{};
  const unsigned N = C == Control::SS ? 1 : S.Count;
  for (unsigned I = 0; I < N; ++I) {
    const uint64_t X = get(A, S.Bits, C == Control::SP ? 0 : I);
    const uint64_t Y = get(B, S.Bits, C == Control::PS ? 0 : I);
    set(R, S.Bits, I, Fn(X, Y) & mask(S.Bits));
  }
  return R;
}

uint64_t saturate(__int128 V, const Shape &S) {
  __int128 Lo, Hi;
  if (S.Kind == 's') {
    Lo = -((__int128)1 << (S.Bits - 1));
    Hi = ((__int128)1 << (S.Bits - 1)) - 1;
  } else {
    Lo = 0;
    Hi = ((__int128)1 << S.Bits) - 1;
  }
  return uint64_t(V < Lo ? Lo : V > Hi ? Hi : V);
}

__int128 wide(uint64_t V, const Shape &S) {
  return S.Kind == 's' ? (__int128)signedOf(V, S.Bits) : (__int128)V;
}

// PRM 5.2 packed, 4.14: add, sub, mul with every control and saturation;
// mulhi, min, max with every control; abs and neg (p, s) wrapping.
TEST(PackedTest, IntegerArithmeticEveryControl) {
  const size_t N = 200;
  for (const Shape &S : IntShapes) {
    std::vector<Reg> A = edgeRegs(S, N, 1), B = edgeRegs(S, N, 2),
                     Old = edgeRegs(S, N, 3);
    const char R = S.reg();
    struct Op {
      const char *Name;
      bool SatForms, Unary;
      std::function<__int128(__int128, __int128)> Fn;
    } Ops[] = {
        {"add", true, false, [](__int128 X, __int128 Y) { return X + Y; }},
        {"sub", true, false, [](__int128 X, __int128 Y) { return X - Y; }},
        {"mul", true, false, [](__int128 X, __int128 Y) { return X * Y; }},
        {"mulhi", false, false,
         [&](__int128 X, __int128 Y) { return (X * Y) >> S.Bits; }},
        {"min", false, false,
         [](__int128 X, __int128 Y) { return X < Y ? X : Y; }},
        {"max", false, false,
         [](__int128 X, __int128 Y) { return X > Y ? X : Y; }},
        {"abs", false, true,
         [](__int128 X, __int128) { return X < 0 ? -X : X; }},
        {"neg", false, true, [](__int128 X, __int128) { return -X; }},
    };
    // Every control on one shape of each element size and register size;
    // pp and pp_sat on the others.
    const std::string Name = S.Name;
    const bool EveryControl = Name == "u8x4" || Name == "s8x4" ||
                              Name == "s16x4" || Name == "u16x8" ||
                              Name == "s32x2" || Name == "u32x4" ||
                              Name == "u64x2" || Name == "s64x2";
    for (const Op &O : Ops) {
      if (O.Unary && S.Kind == 'u')
        continue; // abs and neg are signed only.
      for (Control C : {Control::PP, Control::PS, Control::SP, Control::SS})
        for (bool Sat : {false, true}) {
          if (!EveryControl && C != Control::PP)
            continue;
          if (Sat && !O.SatForms)
            continue;
          if (O.Unary && (C == Control::PS || C == Control::SP))
            continue;
          const std::string Inst = std::string(O.Name) + "_" +
                                   controlName(C, Sat, O.Unary) + "_" + S.Name;
          ElementwiseKernel K;
          K.In = std::string(3, R);
          K.Out = R;
          K.Body = std::string("\tmov_b") + std::to_string(S.bytes() * 8) +
                   " $" + R + "4, $" + R + "2;\n\t" + Inst + " $" + R + "4, $" +
                   R + "0" + (O.Unary ? "" : std::string(", $") + R + "1") +
                   ";";
          std::vector<Reg> Got = runRegs(K, {A, B, Old});
          ASSERT_EQ(Got.size(), N) << Inst;
          for (size_t I = 0; I < N; ++I) {
            const Reg Want = applyControl(
                S, C, A[I], B[I], Old[I], [&](uint64_t X, uint64_t Y) {
                  if (S.Kind == 'u' && S.Bits == 64 &&
                      std::string(O.Name).rfind("mul", 0) ==
                          0) { // In 128-bit unsigned.
                    const unsigned __int128 P = (unsigned __int128)X * Y;
                    if (O.Name[3] == 'h')
                      return uint64_t(P >> 64);
                    return Sat && (P >> 64) ? ~uint64_t(0) : uint64_t(P);
                  }
                  const __int128 V = O.Fn(wide(X, S), wide(Y, S));
                  return Sat ? saturate(V, S) : uint64_t(V);
                });
            ASSERT_EQ(hexReg(Got[I], S.bytes()), hexReg(Want, S.bytes()))
                << Inst << " " << hexReg(A[I], S.bytes()) << " "
                << hexReg(B[I], S.bytes());
          }
        }
    }
  }
}

/// The packed constant of Shape S holding R's elements: elements are
/// listed from the most significant (PRM 4.14.2), signed ones as signed
/// decimals.
std::string packedConstant(const Shape &S, const Reg &R) {
  std::string T = std::string(S.Name) + "(";
  for (unsigned I = S.Count; I-- > 0;) {
    const uint64_t V = get(R, S.Bits, I);
    T +=
        S.Kind == 's' ? std::to_string(signedOf(V, S.Bits)) : std::to_string(V);
    T += I ? ", " : ")";
  }
  return T;
}

/// A register of Shape S whose elements cycle through Values (masked to
/// the element width), starting at element First.
Reg cycleReg(const Shape &S, const std::vector<uint64_t> &Values,
             unsigned First) {
  Reg R{};
  for (unsigned I = 0; I < S.Count; ++I)
    set(R, S.Bits, I, Values[(First + I) % Values.size()] & mask(S.Bits));
  return R;
}

// PRM 4.14, 5.2: add, sub and mul on every packed integer type, with every
// control (pp, ps, sp, ss, the broadcast forms included), with and without
// _sat, and every operand form: both registers, either source a packed
// constant, or both. Edge values: MIN, MAX, -1, 0, 1 and their neighbours,
// in registers and in constants, against an exact (128-bit) reference.
// Issue 10 item 10 reported wrong _sat lanes for s32x2, s32x4 and s64x2 in
// the PRM conformance suite. Its reference (HSAILTestGenEmulator.cpp,
// op_add_sat/op_sub_sat/op_mul_sat) detects overflow after a signed
// overflow, undefined in C++: built with GCC -O2 it gives 0x80000000 for
// s32 0x7fffffff + 1. s8/s16 (promoted to int) and unsigned elements are
// immune, hence exactly those three types.
TEST(PackedTest, ArithmeticEveryOperandForm) {
  const size_t N = 48;
  struct Op {
    const char *Name;
    std::function<__int128(__int128, __int128)> Fn;
  } Ops[] = {
      {"add", [](__int128 X, __int128 Y) { return X + Y; }},
      {"sub", [](__int128 X, __int128 Y) { return X - Y; }},
      {"mul", [](__int128 X, __int128 Y) { return X * Y; }},
  };
  enum Form { RegReg, RegImm, ImmReg, ImmImm };
  for (const Shape &S : IntShapes) {
    const uint64_t Max = S.Kind == 's' ? mask(S.Bits) >> 1 : mask(S.Bits);
    const uint64_t Min = S.Kind == 's' ? (mask(S.Bits) >> 1) + 1 : 0;
    const std::vector<uint64_t> Edges = {
        Max, Min, ~0ull, 0, 1, Max - 1, Min + 1, 2, Max / 2 + 1, Min + 2, 3};
    std::vector<Reg> A = edgeRegs(S, N, 7), B = edgeRegs(S, N, 8),
                     Old = edgeRegs(S, N, 9);
    // Registers of edge values in every pairing: element I of A[J] and
    // B[J] walk Edges at different speeds.
    for (size_t J = 0; J < Edges.size() * 2 && J < N; ++J) {
      A[J] = cycleReg(S, Edges, unsigned(J));
      B[J] = cycleReg(S, Edges, unsigned(J * 3 + 1));
    }
    // Constants: edge values against themselves (MAX + MAX, MIN + MIN, ...)
    // and against their neighbours (MAX + 1, MIN + MAX - 1, ...); the
    // registers bring the other pairings.
    const std::pair<Reg, Reg> Imms[] = {
        {cycleReg(S, Edges, 0), cycleReg(S, Edges, 0)},
        {cycleReg(S, Edges, 0), cycleReg(S, Edges, 4)}};
    const char R = S.reg();
    const std::string Reg0 = std::string("$") + R + "0",
                      Reg1 = std::string("$") + R + "1";
    const std::string Mem = elementwiseMemoryType(R);
    const unsigned Bytes = S.bytes();
    for (const auto &[ImmA, ImmB] : Imms) {
      // One kernel per pair of constants: every op, control, _sat and
      // form, each result stored to its own slot of the work-item's row.
      struct Variant {
        const Op *O;
        Control C;
        bool Sat;
        Form F;
        std::string Inst;
      };
      std::vector<Variant> Vs;
      std::string Body;
      for (const Op &O : Ops)
        for (Control C : {Control::PP, Control::PS, Control::SP, Control::SS})
          for (bool Sat : {false, true})
            for (Form F : {RegReg, RegImm, ImmReg, ImmImm}) {
              const std::string Inst = std::string(O.Name) + "_" +
                                       controlName(C, Sat, false) + "_" +
                                       S.Name;
              const std::string X =
                  F == ImmReg || F == ImmImm ? packedConstant(S, ImmA) : Reg0;
              const std::string Y =
                  F == RegImm || F == ImmImm ? packedConstant(S, ImmB) : Reg1;
              const std::string Line = Inst + " $" + R + "4, " + X + ", " + Y;
              Body += "\tmov_b" + std::to_string(Bytes * 8) + " $" + R +
                      "4, $" + R + "2;\n\t" + Line + ";\n\tst_global_" + Mem +
                      " $" + R + "4, [$d11+" +
                      std::to_string(Vs.size() * Bytes) + "];\n";
              Vs.push_back({&O, C, Sat, F, Line});
            }
      std::string Src =
          "module &m:1:0:$full:$large:$default;\n"
          "kernel &forms(kernarg_u64 %a, kernarg_u64 %b, kernarg_u64 %old, "
          "kernarg_u64 %out)\n{\n"
          "\tworkitemabsid_u32 $s8, 0;\n\tcvt_u64_u32 $d8, $s8;\n";
      auto Load = [&](const char *Arg, const std::string &Dst) {
        Src += "\tmul_u64 $d9, $d8, " + std::to_string(Bytes) +
               ";\n\tld_kernarg_align(8)_width(all)_u64 $d10, [%" + Arg +
               "];\n\tadd_u64 $d10, $d10, $d9;\n\tld_global_" + Mem + " " +
               Dst + ", [$d10];\n";
      };
      Load("a", Reg0);
      Load("b", Reg1);
      Load("old", std::string("$") + R + "2");
      Src += "\tmul_u64 $d9, $d8, " + std::to_string(Bytes * Vs.size()) +
             ";\n\tld_kernarg_align(8)_width(all)_u64 $d11, [%out];\n"
             "\tadd_u64 $d11, $d11, $d9;\n" +
             Body + "\tret;\n};\n";
      auto P = finalizeText(Src);
      ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError()) << "\n" << Src;
      // Inputs are 16-byte Regs: repacked to the register size.
      std::vector<uint8_t> PA(N * Bytes), PB(N * Bytes), PO(N * Bytes);
      for (size_t I = 0; I < N; ++I) {
        std::memcpy(PA.data() + I * Bytes, A[I].data(), Bytes);
        std::memcpy(PB.data() + I * Bytes, B[I].data(), Bytes);
        std::memcpy(PO.data() + I * Bytes, Old[I].data(), Bytes);
      }
      std::vector<uint8_t> Out(N * Vs.size() * Bytes);
      struct {
        const void *A, *B, *Old;
        void *Out;
      } Args{PA.data(), PB.data(), PO.data(), Out.data()};
      Grid G;
      G.Size[0] = uint32_t(N);
      G.WorkGroup[0] = 16;
      runKernel(*P, "&forms", G, &Args);
      for (size_t I = 0; I < N; ++I)
        for (size_t V = 0; V < Vs.size(); ++V) {
          const Variant &Var = Vs[V];
          const Reg &X = Var.F == ImmReg || Var.F == ImmImm ? ImmA : A[I];
          const Reg &Y = Var.F == RegImm || Var.F == ImmImm ? ImmB : B[I];
          const Reg Want = applyControl(
              S, Var.C, X, Y, Old[I], [&](uint64_t XE, uint64_t YE) {
                if (S.Kind == 'u' && S.Bits == 64 && Var.O->Name[0] == 'm') {
                  const unsigned __int128 P = (unsigned __int128)XE * YE;
                  return Var.Sat && (P >> 64) ? ~uint64_t(0) : uint64_t(P);
                }
                const __int128 W = Var.O->Fn(wide(XE, S), wide(YE, S));
                return Var.Sat ? saturate(W, S) : uint64_t(W);
              });
          Reg Got{};
          std::memcpy(Got.data(), Out.data() + (I * Vs.size() + V) * Bytes,
                      Bytes);
          ASSERT_EQ(hexReg(Got, Bytes), hexReg(Want, Bytes))
              << Var.Inst << " with " << Reg0 << " = " << hexReg(A[I], Bytes)
              << ", " << Reg1 << " = " << hexReg(B[I], Bytes)
              << ", old = " << hexReg(Old[I], Bytes);
        }
    }
  }
}

// PRM 5.5.3: packed shifts by the low log2(element bits) bits of a u32.
TEST(PackedTest, Shifts) {
  for (const Shape &S : IntShapes) {
    const size_t N = 64;
    std::vector<Reg> A = edgeRegs(S, N, 4), Amount(N);
    for (size_t I = 0; I < N; ++I) {
      Amount[I].fill(0);
      set(Amount[I], 32, 0, I * 5 + (I & 1 ? 0x100 : 0));
    }
    const char R = S.reg();
    for (const char *Op : {"shl", "shr"}) {
      const std::string Inst = std::string(Op) + "_" + S.Name;
      ElementwiseKernel K;
      K.In = std::string{R, 's'};
      K.Out = R;
      K.Body = "\t" + Inst + " $" + R + "4, $" + R + "0, $s1;";
      std::vector<Reg> Got = runRegs(K, {A, Amount});
      ASSERT_EQ(Got.size(), N);
      for (size_t I = 0; I < N; ++I) {
        const unsigned Sh = get(Amount[I], 32, 0) & (S.Bits - 1);
        Reg Want{};
        for (unsigned E = 0; E < S.Count; ++E) {
          const uint64_t X = get(A[I], S.Bits, E);
          uint64_t V = Op[2] == 'l'    ? X << Sh
                       : S.Kind == 's' ? uint64_t(signedOf(X, S.Bits) >> Sh)
                                       : X >> Sh;
          set(Want, S.Bits, E, V & mask(S.Bits));
        }
        ASSERT_EQ(hexReg(Got[I], S.bytes()), hexReg(Want, S.bytes()))
            << Inst << " " << hexReg(A[I], S.bytes()) << " by "
            << get(Amount[I], 32, 0);
      }
    }
  }
}

// PRM 5.10: packed cmov selects per element on a nonzero src0 element;
// 5.18: packed cmp gives all ones or zeros per element.
TEST(PackedTest, CmovAndCompare) {
  for (const Shape &S : IntShapes) {
    const size_t N = 100;
    std::vector<Reg> M = edgeRegs(S, N, 5), A = edgeRegs(S, N, 6),
                     B = edgeRegs(S, N, 7);
    for (size_t I = 0; I < N; ++I)
      for (unsigned E = 0; E < S.Count; ++E)
        if ((I + E) % 3 == 0)
          set(M[I], S.Bits, E, 0);
    const char R = S.reg();
    {
      ElementwiseKernel K;
      K.In = std::string(3, R);
      K.Out = R;
      K.Body = std::string("\tcmov_") + S.Name + " $" + R + "4, $" + R +
               "0, $" + R + "1, $" + R + "2;";
      std::vector<Reg> Got = runRegs(K, {M, A, B});
      ASSERT_EQ(Got.size(), N);
      for (size_t I = 0; I < N; ++I) {
        Reg Want{};
        for (unsigned E = 0; E < S.Count; ++E)
          set(Want, S.Bits, E,
              get(M[I], S.Bits, E) ? get(A[I], S.Bits, E)
                                   : get(B[I], S.Bits, E));
        ASSERT_EQ(hexReg(Got[I], S.bytes()), hexReg(Want, S.bytes()))
            << "cmov_" << S.Name;
      }
    }
    for (const char *Op : {"eq", "ne", "lt", "le", "gt", "ge"}) {
      const std::string U = std::string("u") + std::to_string(S.Bits) + "x" +
                            std::to_string(S.Count);
      ElementwiseKernel K;
      K.In = std::string(2, R);
      K.Out = R;
      K.Body = std::string("\tcmp_") + Op + "_pp_" + U + "_" + S.Name + " $" +
               R + "4, $" + R + "0, $" + R + "1;";
      std::vector<Reg> Got = runRegs(K, {A, B});
      ASSERT_EQ(Got.size(), N);
      for (size_t I = 0; I < N; ++I) {
        Reg Want{};
        for (unsigned E = 0; E < S.Count; ++E) {
          const __int128 X = wide(get(A[I], S.Bits, E), S),
                         Y = wide(get(B[I], S.Bits, E), S);
          const std::string O = Op;
          const bool T = O == "eq"   ? X == Y
                         : O == "ne" ? X != Y
                         : O == "lt" ? X < Y
                         : O == "le" ? X <= Y
                         : O == "gt" ? X > Y
                                     : X >= Y;
          set(Want, S.Bits, E, T ? mask(S.Bits) : 0);
        }
        ASSERT_EQ(hexReg(Got[I], S.bytes()), hexReg(Want, S.bytes()))
            << K.Body << " " << hexReg(A[I], S.bytes()) << " "
            << hexReg(B[I], S.bytes());
      }
    }
  }
}

// PRM 5.9: shuffle (lower half of dest from src0, upper from src1, each
// chosen by the next log2(N) control bits), unpacklo/hi (interleaving),
// pack and unpack with dynamic indices.
TEST(PackedTest, DataMovement) {
  const Shape Shuffled[] = {{"u8x4", 8, 4, 'u'},   {"s8x8", 8, 8, 's'},
                            {"u16x2", 16, 2, 'u'}, {"f16x4", 16, 4, 'f'},
                            {"f32x2", 32, 2, 'f'}, {"u32x2", 32, 2, 'u'}};
  const size_t N = 40;
  for (const Shape &S : Shuffled) {
    std::vector<Reg> A = edgeRegs(S, N, 8), B = edgeRegs(S, N, 9);
    const char R = S.reg();
    const unsigned SelBits = S.Count == 2 ? 1 : S.Count == 4 ? 2 : 3;
    for (uint32_t Ctl : {0x0u, 0x1bu, 0x55u, 0x93u, 0x39u, 0xe4u, 0xfac688u,
                         0x2u, 0x1u, 0x3u}) {
      ElementwiseKernel K;
      K.In = std::string(2, R);
      K.Out = R;
      K.Body = std::string("\tshuffle_") + S.Name + " $" + R + "4, $" + R +
               "0, $" + R + "1, " + std::to_string(Ctl) + ";";
      std::vector<Reg> Got = runRegs(K, {A, B});
      ASSERT_EQ(Got.size(), N);
      for (size_t I = 0; I < N; ++I) {
        Reg Want{};
        for (unsigned E = 0; E < S.Count; ++E) {
          const unsigned Sel = (Ctl >> (E * SelBits)) & (S.Count - 1);
          set(Want, S.Bits, E, get(E < S.Count / 2 ? A[I] : B[I], S.Bits, Sel));
        }
        ASSERT_EQ(hexReg(Got[I], S.bytes()), hexReg(Want, S.bytes())) << K.Body;
      }
    }
    for (bool Hi : {false, true}) {
      ElementwiseKernel K;
      K.In = std::string(2, R);
      K.Out = R;
      K.Body = std::string("\tunpack") + (Hi ? "hi_" : "lo_") + S.Name + " $" +
               R + "4, $" + R + "0, $" + R + "1;";
      std::vector<Reg> Got = runRegs(K, {A, B});
      ASSERT_EQ(Got.size(), N);
      for (size_t I = 0; I < N; ++I) {
        Reg Want{};
        const unsigned First = Hi ? S.Count / 2 : 0;
        for (unsigned E = 0; E < S.Count / 2; ++E) {
          set(Want, S.Bits, 2 * E, get(A[I], S.Bits, First + E));
          set(Want, S.Bits, 2 * E + 1, get(B[I], S.Bits, First + E));
        }
        ASSERT_EQ(hexReg(Got[I], S.bytes()), hexReg(Want, S.bytes())) << K.Body;
      }
    }
  }
  // pack and unpack for every shape.
  std::vector<Shape> All(std::begin(IntShapes), std::end(IntShapes));
  All.insert(All.end(), std::begin(FloatShapes), std::end(FloatShapes));
  for (const Shape &S : All) {
    std::vector<Reg> A = edgeRegs(S, N, 10), X(N), Index(N);
    const bool Wide = S.Bits == 64;
    // The scalar side: u32/s32 for 8-, 16- and 32-bit integer elements,
    // u64/s64 for 64-bit ones, f16/f32/f64 for floats.
    const std::string ST = S.Kind == 'f'
                               ? "f" + std::to_string(S.Bits)
                               : std::string(1, S.Kind) + (Wide ? "64" : "32");
    const char XR = Wide ? 'd' : 's';
    Rng Rand(11);
    for (size_t I = 0; I < N; ++I) {
      X[I].fill(0);
      set(X[I], 64, 0, Rand.next());
      if (!Wide)
        set(X[I], 32, 1, 0);
      Index[I].fill(0);
      set(Index[I], 32, 0, uint32_t(I * 7 + (I & 1 ? 0x40 : 0)));
    }
    const char R = S.reg();
    {
      ElementwiseKernel K;
      K.In = std::string{R, XR, 's'};
      K.Out = R;
      K.Body = std::string("\tpack_") + S.Name + "_" + ST + " $" + R + "4, $" +
               R + "0, $" + XR + "1, $s2;";
      std::vector<Reg> Got = runRegs(K, {A, X, Index});
      ASSERT_EQ(Got.size(), N);
      for (size_t I = 0; I < N; ++I) {
        Reg Want = A[I];
        set(Want, S.Bits, get(Index[I], 32, 0) & (S.Count - 1),
            get(X[I], 64, 0) & mask(S.Bits));
        ASSERT_EQ(hexReg(Got[I], S.bytes()), hexReg(Want, S.bytes())) << K.Body;
      }
    }
    {
      ElementwiseKernel K;
      K.In = std::string{R, 's'};
      K.Out = XR;
      K.Body = std::string("\tunpack_") + ST + "_" + S.Name + " $" + XR +
               "4, $" + R + "0, $s1;";
      std::vector<Reg> Got = runRegs(K, {A, Index});
      ASSERT_EQ(Got.size(), N);
      for (size_t I = 0; I < N; ++I) {
        uint64_t E = get(A[I], S.Bits, get(Index[I], 32, 0) & (S.Count - 1));
        if (S.Kind == 's')
          E = uint64_t(signedOf(E, S.Bits));
        if (!Wide && S.Kind != 'f')
          E &= 0xffffffff;
        uint64_t G = get(Got[I], Wide ? 64 : 32, 0);
        if (S.Kind == 'f' && S.Bits == 16)
          G &= 0xffff; // The upper half of an f16 register is undefined.
        ASSERT_EQ(G, E) << K.Body << " index " << get(Index[I], 32, 0);
      }
    }
  }
}

/// Float element ops: the packed instruction's elements against the
/// scalar instruction or the host.
TEST(PackedTest, FloatEveryControl) {
  const size_t N = 150;
  for (const Shape &S : FloatShapes) {
    const Format F = S.Bits == 16 ? F16 : S.Bits == 32 ? F32 : F64;
    // Elements from the float edge values and random patterns.
    std::vector<uint64_t> Pool;
    if (S.Bits == 16)
      for (uint16_t X : edgeF16())
        Pool.push_back(X);
    else if (S.Bits == 32)
      for (uint32_t X : edgeF32())
        Pool.push_back(X);
    else
      Pool = edgeF64();
    Rng Rand(S.Count * 100 + S.Bits);
    for (uint64_t X : randomPatterns(F, Rand, 200))
      Pool.push_back(X);
    auto MakeRegs = [&](uint64_t Seed) {
      Rng G(Seed);
      std::vector<Reg> V(N);
      for (Reg &Rg : V) {
        Rg.fill(0);
        for (unsigned E = 0; E < S.Count; ++E)
          set(Rg, S.Bits, E, Pool[G.next() % Pool.size()]);
      }
      return V;
    };
    std::vector<Reg> A = MakeRegs(1), B = MakeRegs(2), Old = MakeRegs(3);
    const char R = S.reg();
    const char SR = S.Bits == 64 ? 'd' : 's';
    struct Op {
      const char *Name;
      bool Unary, Rounds, Ftz;
    } Ops[] = {{"add", false, true, true},        {"sub", false, true, true},
               {"mul", false, true, true},        {"div", false, true, true},
               {"min", false, false, true},       {"max", false, false, true},
               {"copysign", false, false, false}, {"sqrt", true, true, true},
               {"fract", true, true, true},       {"ceil", true, false, true},
               {"floor", true, false, true},      {"rint", true, false, true},
               {"trunc", true, false, true},      {"abs", true, false, false},
               {"neg", true, false, false}};
    // Every operation on the 2-element shapes; a few on the others (the
    // element routing does not depend on the operation).
    const bool AllOps = S.Count == 2;
    const Control Controls[] = {Control::PP, Control::PS, Control::SP,
                                Control::SS};
    for (const Op &O : Ops) {
      if (!AllOps && O.Name != std::string("add") &&
          O.Name != std::string("sqrt") && O.Name != std::string("max"))
        continue;
      std::vector<std::string> Variants;
      if (O.Rounds && AllOps)
        Variants = {"", "_ftz_up"};
      else if (O.Rounds)
        Variants = {"_ftz_up"};
      else
        Variants = {O.Ftz ? "_ftz" : ""};
      for (const std::string &Mods : Variants) {
        const bool Ftz = Mods.find("ftz") != std::string::npos;
        const bool Up = Mods.find("up") != std::string::npos;
        // The scalar instruction over the element pairs of every control.
        std::vector<Reg> SA, SB;
        for (Control C : Controls)
          for (size_t I = 0; I < N; ++I)
            for (unsigned E = 0; E < S.Count; ++E) {
              Reg X{}, Y{};
              set(X, S.Bits, 0, get(A[I], S.Bits, C == Control::SP ? 0 : E));
              set(Y, S.Bits, 0, get(B[I], S.Bits, C == Control::PS ? 0 : E));
              SA.push_back(X);
              SB.push_back(Y);
            }
        ElementwiseKernel SK;
        SK.In = std::string(2, SR);
        SK.Out = SR;
        SK.Body = "\t" + std::string(O.Name) + Mods + "_f" +
                  std::to_string(S.Bits) + " $" + SR + "4, $" + SR + "0" +
                  (O.Unary ? "" : std::string(", $") + SR + "1") + ";";
        std::vector<Reg> Scalar = runRegs(SK, {SA, SB});
        ASSERT_EQ(Scalar.size(), SA.size()) << SK.Body;
        // f32 elements: the host agrees with the scalar results.
        if (S.Bits == 32 &&
            (O.Name == std::string("add") || O.Name == std::string("div"))) {
          for (size_t J = 0; J < SA.size(); ++J) {
            const uint32_t X = uint32_t(get(SA[J], 32, 0)),
                           Y = uint32_t(get(SB[J], 32, 0));
            const uint32_t H = bitsOf(hostArith<float>(
                O.Name[0] == 'a' ? '+' : '/', Up ? Round::Up : Round::Near, Ftz,
                floatOf(X), floatOf(Y), 0.0f));
            if (!isNaN(F32, H)) {
              ASSERT_EQ(uint32_t(get(Scalar[J], 32, 0)), H) << SK.Body;
            }
          }
        }
        for (size_t CI = 0; CI < 4; ++CI) {
          const Control C = Controls[CI];
          if (O.Unary && (C == Control::PS || C == Control::SP))
            continue;
          const std::string Inst = std::string(O.Name) + Mods + "_" +
                                   controlName(C, false, O.Unary) + "_" +
                                   S.Name;
          ElementwiseKernel K;
          K.In = std::string(3, R);
          K.Out = R;
          K.Body = std::string("\tmov_b") + std::to_string(S.bytes() * 8) +
                   " $" + R + "4, $" + R + "2;\n\t" + Inst + " $" + R + "4, $" +
                   R + "0" + (O.Unary ? "" : std::string(", $") + R + "1") +
                   ";";
          std::vector<Reg> Got = runRegs(K, {A, B, Old});
          ASSERT_EQ(Got.size(), N) << Inst;
          for (size_t I = 0; I < N; ++I) {
            Reg Want = C == Control::SS ? Old[I] : Reg{};
            for (unsigned E = 0; E < (C == Control::SS ? 1 : S.Count); ++E)
              set(Want, S.Bits, E,
                  get(Scalar[(CI * N + I) * S.Count + E], S.Bits, 0) &
                      mask(S.Bits));
            ASSERT_EQ(hexReg(nanSignsCleared(Got[I], S), S.bytes()),
                      hexReg(nanSignsCleared(Want, S), S.bytes()))
                << Inst << " " << hexReg(A[I], S.bytes()) << " "
                << hexReg(B[I], S.bytes());
          }
        }
      }
    }
    // Packed float compare.
    for (const char *Op : {"lt", "equ", "sgeu", "num"}) {
      const std::string U = std::string("u") + std::to_string(S.Bits) + "x" +
                            std::to_string(S.Count);
      ElementwiseKernel K;
      K.In = std::string(2, R);
      K.Out = R;
      K.Body = std::string("\tcmp_") + Op + "_ftz_pp_" + U + "_" + S.Name +
               " $" + R + "4, $" + R + "0, $" + R + "1;";
      std::vector<Reg> Got = runRegs(K, {A, B});
      ASSERT_EQ(Got.size(), N);
      for (size_t I = 0; I < N; ++I) {
        Reg Want{};
        for (unsigned E = 0; E < S.Count; ++E) {
          uint64_t XB = get(A[I], S.Bits, E), YB = get(B[I], S.Bits, E);
          if (isSubnormal(F, XB))
            XB &= F.signBit();
          if (isSubnormal(F, YB))
            YB &= F.signBit();
          const double X = S.Bits == 16   ? f16ToDouble(uint16_t(XB))
                           : S.Bits == 32 ? double(floatOf(uint32_t(XB)))
                                          : doubleOf(XB);
          const double Y = S.Bits == 16   ? f16ToDouble(uint16_t(YB))
                           : S.Bits == 32 ? double(floatOf(uint32_t(YB)))
                                          : doubleOf(YB);
          const bool Un = std::isnan(X) || std::isnan(Y);
          const std::string O = Op;
          const bool T = O == "lt"     ? X < Y
                         : O == "equ"  ? (Un || X == Y)
                         : O == "sgeu" ? (Un || X >= Y)
                                       : !Un;
          set(Want, S.Bits, E, T ? mask(S.Bits) : 0);
        }
        ASSERT_EQ(hexReg(Got[I], S.bytes()), hexReg(Want, S.bytes())) << K.Body;
      }
    }
  }
}

// PRM 4.14: saturating controls are integer-only.
TEST(PackedTest, FloatSaturationIsRejected) {
  ElementwiseKernel K;
  K.In = "ss";
  K.Body = "\tadd_pp_sat_f16x2 $s4, $s0, $s1;";
  auto P = finalizeText(elementwiseSource(K));
  ASSERT_FALSE(bool(P));
  llvm::consumeError(P.takeError());
}

} // namespace
