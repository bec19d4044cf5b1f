//===- finalizer/FloatEmitter.cpp - Exact floating-point IR ---------------===//
//
// How results are rounded exactly without changing the host's rounding
// mode: an operation first yields an approximation X in f64 together with
// the sign of its error (the "sticky" direction, -1/0/+1 relative to X's
// magnitude), where X is either exact, or the f64 round-to-nearest-even of
// the exact result. f16 and f32 operations get them in f64 directly (their
// products are exact there, sums, quotients, square roots and fused sums
// get their error from TwoSum or an fma residual); f64 operations work on
// operands scaled into [1, 2) so that no error term underflows. roundPack()
// then rounds significand, exponent and sticky direction to the
// destination format in integer arithmetic: subnormals, overflow by mode,
// and flushing of results that are tiny after rounding.
//
//===----------------------------------------------------------------------===//
#include "finalizer/FloatEmitter.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

#include <cmath>

namespace openhsa::finalizer::detail {

using llvm::Value;

struct FloatEmitter::Format {
  unsigned Bits, Mant, ExpBits;
  int Bias;
  int emin() const { return 1 - Bias; }
  int emax() const { return Bias; }
  int precision() const { return int(Mant) + 1; }
  uint64_t infBits() const { return ((uint64_t(1) << ExpBits) - 1) << Mant; }
  uint64_t signBit() const { return uint64_t(1) << (Bits - 1); }
  uint64_t quietBit() const { return uint64_t(1) << (Mant - 1); }
};

/// A double taken apart: magnitude Sig * 2^(Exp - 63).
struct FloatEmitter::Unpacked {
  Value *Neg;  // i1
  Value *Sig;  // i64 with its leading one at bit 63; 0 for zero
  Value *Exp;  // i32: the exponent of the leading one
  Value *Frac; // i64: the raw fraction field
  Value *IsZero, *IsInf, *IsNaN;
};

FloatEmitter::Format FloatEmitter::formatOf(llvm::Type *T) {
  if (T->isHalfTy())
    return {16, 10, 5, 15};
  if (T->isFloatTy())
    return {32, 23, 8, 127};
  return {64, 52, 11, 1023};
}

Value *FloatEmitter::bits(Value *X) {
  return B.CreateBitCast(X,
                         B.getIntNTy(X->getType()->getPrimitiveSizeInBits()));
}

Value *FloatEmitter::fromBits(Value *I, llvm::Type *T) {
  return B.CreateBitCast(I, T);
}

Value *FloatEmitter::signBit(Value *X) {
  Value *I = bits(X);
  return B.CreateICmpSLT(I, llvm::ConstantInt::get(I->getType(), 0));
}

Value *FloatEmitter::sign(Value *X) {
  Value *Zero = llvm::ConstantFP::get(X->getType(), 0.0);
  return B.CreateSelect(
      B.CreateFCmpOGT(X, Zero), i32(1),
      B.CreateSelect(B.CreateFCmpOLT(X, Zero), i32(-1), i32(0)));
}

Value *FloatEmitter::relative(Value *Dir, Value *Neg) {
  return B.CreateSelect(Neg, B.CreateNeg(Dir), Dir);
}

std::pair<Value *, Value *> FloatEmitter::twoSum(Value *X, Value *Y) {
  // Knuth's TwoSum: S + E == X + Y exactly (no fast-math flags, so LLVM
  // keeps the sequence as written).
  Value *S = B.CreateFAdd(X, Y);
  Value *Yv = B.CreateFSub(S, X);
  Value *Xv = B.CreateFSub(S, Yv);
  Value *E = B.CreateFAdd(B.CreateFSub(X, Xv), B.CreateFSub(Y, Yv));
  return {S, E};
}

Value *FloatEmitter::fmaIntrinsic(Value *X, Value *Y, Value *Z) {
  return B.CreateIntrinsic(llvm::Intrinsic::fma, {X->getType()}, {X, Y, Z});
}

Value *FloatEmitter::quiet(Value *X) {
  Format F = formatOf(X->getType());
  Value *I = bits(X);
  Value *Q = B.CreateOr(I, llvm::ConstantInt::get(I->getType(), F.quietBit()));
  return B.CreateSelect(isNaN(X), fromBits(Q, X->getType()), X);
}

Value *FloatEmitter::flush(Value *X) {
  Format F = formatOf(X->getType());
  Value *I = bits(X);
  llvm::Type *IT = I->getType();
  Value *Abs = B.CreateAnd(I, llvm::ConstantInt::get(IT, ~F.signBit()));
  // Subnormal: 0 < Abs < 2^Mant, i.e. Abs - 1 < 2^Mant - 1 unsigned.
  Value *Sub =
      B.CreateICmpULT(B.CreateSub(Abs, llvm::ConstantInt::get(IT, 1)),
                      llvm::ConstantInt::get(IT, (uint64_t(1) << F.Mant) - 1));
  Value *Zero = B.CreateAnd(I, llvm::ConstantInt::get(IT, F.signBit()));
  return B.CreateSelect(Sub, fromBits(Zero, X->getType()), X);
}

/// Whether the f32 and f64 add, sub, mul, div, fma and sqrt instructions of
/// Triple return a NaN source, quieted, when a source is NaN, as the full
/// profile requires (PRM 4.19.4): x86 SSE/AVX return the first NaN source
/// quieted, AArch64 too with FPCR.DN clear (as Linux runs user code), and
/// invalid operations of non-NaN sources give a quiet NaN. GPU targets such
/// as NVPTX return a canonical NaN and keep the explicit selects.
static bool propagatesNaNSources(const llvm::Triple &Triple) {
  return Triple.isX86() || Triple.isAArch64();
}

FloatEmitter::FloatEmitter(llvm::IRBuilder<> &B) : B(B) {
  if (const llvm::BasicBlock *BB = B.GetInsertBlock())
    if (const llvm::Module *M = BB->getModule()) {
      HardwarePropagatesNaN =
          propagatesNaNSources(llvm::Triple(M->getTargetTriple())) ||
          M->getModuleFlag(AnyQuietNaNFlag);
      NativeFtz32 = M->getModuleFlag(NativeFtz32Flag) != nullptr;
    }
}

Value *FloatEmitter::propagateNaNOf(Value *R, llvm::ArrayRef<Value *> Srcs,
                                    bool Native) {
  // A literal source stays explicit: LLVM folds x * 1.0, x - 0.0 and the
  // like to x, which would return a signaling NaN x unquieted.
  if (Native && HardwarePropagatesNaN && llvm::none_of(Srcs, [](Value *V) {
        return llvm::isa<llvm::Constant>(V);
      }))
    return R;
  return propagateNaN(R, Srcs);
}

Value *FloatEmitter::propagateNaN(Value *R, llvm::ArrayRef<Value *> Srcs) {
  // PRM 4.19.4: a NaN source gives that NaN, quieted; the first one wins.
  for (size_t I = Srcs.size(); I-- > 0;)
    R = B.CreateSelect(isNaN(Srcs[I]), quiet(Srcs[I]), R);
  return R;
}

bool FloatEmitter::fast(llvm::Type *T, FloatMode M, bool Fused) const {
  // The host's own f32 and f64 arithmetic is IEEE round to nearest even
  // with gradual underflow. LLVM computes f16 operations in f32 and rounds
  // each result to f16, which for +, -, *, / and sqrt is the correctly
  // rounded f16 result (24 >= 2 * 11 + 2: double rounding is innocuous);
  // not for a fused multiply-add.
  // With DETECT every operation takes the exact path, which knows the
  // exceptions it raises.
  return !Detect && !(T->isHalfTy() && Fused) &&
         M.Round == FloatRound::NearEven && !M.Ftz;
}

/// f32 rounded to nearest even with ftz, the base profile's arithmetic:
/// the host's operation (or its f64 form) rounds, and the exact result's
/// relation to the smallest normal decides tininess.
bool FloatEmitter::nearFtz32(llvm::Type *T, FloatMode M) const {
  return !Detect && T->isFloatTy() && M.Round == FloatRound::NearEven && M.Ftz;
}

void FloatEmitter::raise(Value *Cond, uint32_t Bit) {
  if (Detect)
    raiseBits(B.CreateSelect(Cond, i32(int32_t(Bit)), i32(0)));
}

void FloatEmitter::raiseBits(Value *Bits) {
  if (Detect)
    Raised = Raised ? B.CreateOr(Raised, Bits) : Bits;
}

Value *FloatEmitter::takeRaised() {
  Value *R = Raised ? Raised : i32(0);
  Raised = nullptr;
  return R;
}

Value *FloatEmitter::isSignaling(Value *X) {
  Format F = formatOf(X->getType());
  Value *QuietBit = B.CreateAnd(
      bits(X), llvm::ConstantInt::get(B.getIntNTy(F.Bits), F.quietBit()));
  return B.CreateAnd(isNaN(X), B.CreateIsNull(QuietBit));
}

void FloatEmitter::raiseInvalid(Value *R, llvm::ArrayRef<Value *> Srcs) {
  if (!Detect)
    return;
  Value *AnyNaN = B.getFalse(), *AnySignaling = B.getFalse();
  for (Value *S : Srcs) {
    AnyNaN = B.CreateOr(AnyNaN, isNaN(S));
    AnySignaling = B.CreateOr(AnySignaling, isSignaling(S));
  }
  raise(B.CreateOr(AnySignaling, B.CreateAnd(isNaN(R), B.CreateNot(AnyNaN))),
        InvalidOperation);
}

/// Below this magnitude an f32 result rounded to nearest even with an
/// unbounded exponent is below the smallest normal: 2^-126 (1 - 2^-25).
static constexpr double TinyF32Near = 0x1p-126 - 0x1p-151;

Value *FloatEmitter::flushTiny(Value *R, Value *Tiny) {
  llvm::Type *T = R->getType();
  return B.CreateSelect(Tiny, copySign(llvm::ConstantFP::get(T, 0.0), R), R);
}

Value *FloatEmitter::tinyNear32(Value *D) {
  return B.CreateFCmpOLT(B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, D),
                         llvm::ConstantFP::get(B.getDoubleTy(), TinyF32Near));
}

FloatEmitter::Unpacked FloatEmitter::unpack(Value *D) {
  Unpacked U;
  Value *I = bits(D);
  U.Neg = B.CreateICmpSLT(I, i64(0));
  Value *Abs = B.CreateAnd(I, i64(~(uint64_t(1) << 63)));
  Value *E = B.CreateAnd(B.CreateLShr(I, 52), i64(0x7ff));
  U.Frac = B.CreateAnd(I, i64((uint64_t(1) << 52) - 1));
  Value *IsSub = B.CreateICmpEQ(E, i64(0));
  Value *LZ = B.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, U.Frac,
                                      B.getFalse()); // 64 for zero
  Value *SubSig = B.CreateShl(
      U.Frac, B.CreateSelect(B.CreateICmpUGT(LZ, i64(63)), i64(0), LZ));
  Value *NormSig = B.CreateShl(B.CreateOr(U.Frac, i64(uint64_t(1) << 52)), 11);
  U.Sig = B.CreateSelect(IsSub, SubSig, NormSig);
  Value *SubExp = B.CreateSub(i64(uint64_t(-1011)), LZ);
  Value *NormExp = B.CreateSub(E, i64(1023));
  U.Exp = B.CreateTrunc(B.CreateSelect(IsSub, SubExp, NormExp), B.getInt32Ty());
  const uint64_t Inf = uint64_t(0x7ff) << 52;
  U.IsZero = B.CreateICmpEQ(Abs, i64(0));
  U.IsInf = B.CreateICmpEQ(Abs, i64(Inf));
  U.IsNaN = B.CreateICmpUGT(Abs, i64(Inf));
  return U;
}

Value *FloatEmitter::mantissa(const Unpacked &U) {
  // The significand as a double in [1, 2).
  Value *Frac =
      B.CreateAnd(B.CreateLShr(U.Sig, 11), i64((uint64_t(1) << 52) - 1));
  return fromBits(B.CreateOr(Frac, i64(uint64_t(1023) << 52)), B.getDoubleTy());
}

Value *FloatEmitter::roundPack(const Format &F, FloatMode M, Value *Neg,
                               Value *Sig, Value *Exp, Value *Sticky) {
  // The exact magnitude is Sig * 2^(Exp - 63) plus less than one unit of
  // Sig's last nonzero bit, in direction Sticky. Rounding drops the low
  // Drop bits of Sig; the result is built as an integer bit pattern, which
  // is monotonic in the magnitude, so incrementing it carries across
  // binades, from subnormals to normals, and from the largest finite
  // value to infinity.
  llvm::Type *I64 = B.getInt64Ty();
  const int P = F.precision();
  Value *StickyPos = B.CreateICmpSGT(Sticky, i32(0));
  Value *StickyNeg = B.CreateICmpSLT(Sticky, i32(0));
  Value *StickyZero = B.CreateICmpEQ(Sticky, i32(0));
  // Directed modes: does this sign round away from zero?
  Value *AwayFromZero = B.getFalse();
  if (M.Round == FloatRound::Up)
    AwayFromZero = B.CreateNot(Neg);
  else if (M.Round == FloatRound::Down)
    AwayFromZero = Neg;
  // The change to the kept significand: -1, 0 or +1.
  auto Increment = [&](Value *Kept, Value *Rem, Value *Half,
                       Value *HalfValid) -> Value * {
    if (M.Round == FloatRound::NearEven) {
      Value *AtHalf = B.CreateICmpEQ(Rem, Half);
      Value *Above = B.CreateOr(B.CreateICmpUGT(Rem, Half),
                                B.CreateAnd(AtHalf, StickyPos));
      Value *Tie = B.CreateAnd(AtHalf, StickyZero);
      Value *Odd = B.CreateTrunc(Kept, B.getInt1Ty());
      return B.CreateZExt(
          B.CreateAnd(HalfValid, B.CreateOr(Above, B.CreateAnd(Tie, Odd))),
          I64);
    }
    Value *RemZero = B.CreateICmpEQ(Rem, i64(0));
    Value *Greater = B.CreateOr(B.CreateNot(RemZero), StickyPos);
    Value *Less = B.CreateAnd(RemZero, StickyNeg);
    return B.CreateSelect(AwayFromZero, B.CreateZExt(Greater, I64),
                          B.CreateSExt(Less, I64));
  };

  // Bits to drop: 64 - P, more below the normal range.
  Value *Extra = B.CreateSelect(B.CreateICmpSLT(Exp, i32(F.emin())),
                                B.CreateSub(i32(F.emin()), Exp), i32(0));
  Value *Drop = B.CreateAdd(Extra, i32(64 - P));
  Value *All = B.CreateICmpSGE(Drop, i32(64));
  Value *Sh = B.CreateZExt(B.CreateSelect(All, i32(63), Drop), I64);
  Value *Kept = B.CreateSelect(All, i64(0), B.CreateLShr(Sig, Sh));
  Value *Mask = B.CreateSelect(All, i64(~uint64_t(0)),
                               B.CreateSub(B.CreateShl(i64(1), Sh), i64(1)));
  Value *Rem = B.CreateAnd(Sig, Mask);
  Value *HalfValid = B.CreateICmpSLE(Drop, i32(64));
  Value *HalfSh =
      B.CreateZExt(B.CreateSelect(B.CreateICmpSGT(Drop, i32(64)), i32(63),
                                  B.CreateSub(Drop, i32(1))),
                   I64);
  Value *Half = B.CreateShl(i64(1), HalfSh);
  Value *Inc = Increment(Kept, Rem, Half, HalfValid);

  // Biased exponent field of the kept significand's leading one (0 for
  // subnormals, whose Kept has no leading one), clamped past the largest
  // finite exponent so overflow lands at or beyond the infinity pattern.
  Value *Ec =
      B.CreateSelect(B.CreateICmpSLT(Exp, i32(F.emin())), i32(F.emin()), Exp);
  Ec = B.CreateSelect(B.CreateICmpSGT(Ec, i32(F.emax() + 1)), i32(F.emax() + 1),
                      Ec);
  Value *Base = B.CreateAdd(
      B.CreateShl(B.CreateZExt(B.CreateAdd(Ec, i32(F.Bias - 1)), I64), F.Mant),
      Kept);
  Value *Pat = B.CreateAdd(Base, Inc);
  Value *Rounded = Pat; // Before overflow is clamped.
  Value *Inf = i64(F.infBits());
  Value *Max = i64(F.infBits() - 1);
  Value *OverPat = M.Round == FloatRound::NearEven ? Inf
                   : M.Round == FloatRound::Zero
                       ? Max
                       : B.CreateSelect(AwayFromZero, Inf, Max);
  Pat = B.CreateSelect(B.CreateICmpUGE(Pat, Inf), OverPat, Pat);

  Value *Tiny = nullptr;
  if (M.Ftz || Detect) {
    // Tiny after rounding: rounded to P bits with an unbounded exponent,
    // the magnitude is below the smallest normal.
    Value *KeptU = B.CreateLShr(Sig, 64 - P);
    Value *RemU = B.CreateAnd(Sig, i64((uint64_t(1) << (64 - P)) - 1));
    Value *HalfU = i64(uint64_t(1) << (63 - P));
    Value *RoundedU =
        B.CreateAdd(KeptU, Increment(KeptU, RemU, HalfU, B.getTrue()));
    // Below 2^emin: an exponent under emin - 1, or emin - 1 without a
    // carry into emin, or emin with a borrow out of it (exact magnitude
    // just below a power of two that its f64 approximation rounded up to).
    Tiny = B.CreateOr(
        B.CreateOr(
            B.CreateICmpSLT(Exp, i32(F.emin() - 1)),
            B.CreateAnd(B.CreateICmpEQ(Exp, i32(F.emin() - 1)),
                        B.CreateICmpULT(RoundedU, i64(uint64_t(1) << P)))),
        B.CreateAnd(B.CreateICmpEQ(Exp, i32(F.emin())),
                    B.CreateICmpULT(RoundedU, i64(uint64_t(1) << (P - 1)))));
    if (M.Ftz)
      Pat = B.CreateSelect(Tiny, i64(0), Pat);
  }
  if (Detect) {
    // PRM 12.2: inexact when bits were dropped (or the result overflowed
    // or, with ftz, was flushed, as x86 reports); overflow when rounding
    // passed the largest finite value; underflow when the result is tiny
    // and either flushed or inexact.
    Value *NonZero = B.CreateICmpNE(Sig, i64(0));
    Value *Dropped =
        B.CreateOr(B.CreateICmpNE(Rem, i64(0)), B.CreateNot(StickyZero));
    Value *Over = B.CreateICmpUGE(Rounded, Inf);
    Value *Under = M.Ftz ? Tiny : B.CreateAnd(Tiny, Dropped);
    Value *Inexact =
        B.CreateOr(B.CreateOr(Dropped, Over), M.Ftz ? Tiny : B.getFalse());
    auto Bit = [&](Value *C, uint32_t V) {
      return B.CreateSelect(B.CreateAnd(NonZero, C), i32(int32_t(V)), i32(0));
    };
    RoundRaised = B.CreateOr(
        B.CreateOr(Bit(Inexact, FloatEmitter::Inexact), Bit(Over, Overflow)),
        Bit(Under, Underflow));
  }
  Pat = B.CreateSelect(B.CreateICmpEQ(Sig, i64(0)), i64(0), Pat);
  Pat = B.CreateOr(Pat, B.CreateSelect(Neg, i64(F.signBit()), i64(0)));
  return B.CreateTrunc(Pat, B.getIntNTy(F.Bits));
}

Value *FloatEmitter::narrow(Value *D, Value *Sticky, llvm::Type *To,
                            FloatMode M) {
  Format F = formatOf(To);
  llvm::Type *IT = B.getIntNTy(F.Bits);
  Unpacked U = unpack(D);
  Value *Pat = roundPack(F, M, U.Neg, U.Sig, U.Exp, Sticky);
  Value *SignPat =
      B.CreateSelect(U.Neg, llvm::ConstantInt::get(IT, F.signBit()),
                     llvm::ConstantInt::get(IT, 0));
  // NaNs keep the payload's top bits (so a NaN converted to a smaller type
  // and back is the same NaN) and become quiet.
  Value *Payload = B.CreateTrunc(B.CreateLShr(U.Frac, 52 - F.Mant), IT);
  Value *NaNPat = B.CreateOr(
      SignPat, B.CreateOr(Payload, llvm::ConstantInt::get(
                                       IT, F.infBits() | F.quietBit())));
  Value *InfPat = B.CreateOr(SignPat, llvm::ConstantInt::get(IT, F.infBits()));
  Pat = B.CreateSelect(U.IsNaN, NaNPat, B.CreateSelect(U.IsInf, InfPat, Pat));
  if (Detect)
    raiseBits(
        B.CreateSelect(B.CreateOr(U.IsNaN, U.IsInf), i32(0), RoundRaised));
  return fromBits(Pat, To);
}

Value *FloatEmitter::finish64(Value *Neg, Value *Sig, Value *Exp, Value *Sticky,
                              Value *Special, Value *SpecialValue,
                              FloatMode M) {
  Value *Pat = roundPack(formatOf(B.getDoubleTy()), M, Neg, Sig, Exp, Sticky);
  if (Detect)
    raiseBits(B.CreateSelect(Special, i32(0), RoundRaised));
  return B.CreateSelect(Special, SpecialValue, fromBits(Pat, B.getDoubleTy()));
}

Value *FloatEmitter::zeroSum(Value *X, Value *Y, Value *S, FloatMode M) {
  // An exact zero sum is +0 unless both addends are -0; rounding down it is
  // -0 unless both are +0 (IEEE 754-2008 6.3). S has the former.
  if (M.Round != FloatRound::Down)
    return S;
  llvm::Type *T = S->getType();
  Value *Z = B.CreateSelect(B.CreateOr(signBit(X), signBit(Y)),
                            llvm::ConstantFP::get(T, -0.0),
                            llvm::ConstantFP::get(T, 0.0));
  return B.CreateSelect(B.CreateFCmpOEQ(S, llvm::ConstantFP::get(T, 0.0)), Z,
                        S);
}

//===----------------------------------------------------------------------===//
// f64 operations in other modes: scaled exact error terms.
//===----------------------------------------------------------------------===//

Value *FloatEmitter::add64(Value *X, Value *Y, FloatMode M) {
  auto [S, E] = twoSum(X, Y);
  llvm::Type *D = B.getDoubleTy();
  Value *Inf = llvm::ConstantFP::getInfinity(D);
  auto Finite = [&](Value *V) {
    return B.CreateFCmpOLT(B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, V),
                           Inf);
  };
  Unpacked U = unpack(S);
  // Finite operands whose sum rounds to infinity: the exact sum is at least
  // the largest finite value plus half an ulp, so both operands are far
  // from the subnormals and halving them is exact: their halves' sum,
  // twice, is the sum with its error (which decides overflow in the
  // directed modes, and the DETECT flags).
  Value *Over = B.CreateAnd(U.IsInf, B.CreateAnd(Finite(X), Finite(Y)));
  llvm::Constant *Half = llvm::ConstantFP::get(D, 0.5);
  auto [S2, E2] = twoSum(B.CreateFMul(X, Half), B.CreateFMul(Y, Half));
  Unpacked U2 = unpack(S2);
  Value *Sig = B.CreateSelect(Over, U2.Sig, U.Sig);
  Value *Exp = B.CreateSelect(Over, B.CreateAdd(U2.Exp, i32(1)), U.Exp);
  Value *Sticky = B.CreateSelect(Over, relative(sign(E2), U2.Neg),
                                 relative(sign(E), U.Neg));
  Value *Special = B.CreateOr(
      B.CreateOr(U.IsNaN, B.CreateAnd(U.IsInf, B.CreateNot(Over))), U.IsZero);
  return finish64(U.Neg, Sig, Exp, Sticky, Special, zeroSum(X, Y, S, M), M);
}

Value *FloatEmitter::mul64(Value *X, Value *Y, FloatMode M) {
  Unpacked Ux = unpack(X), Uy = unpack(Y);
  Value *Special =
      B.CreateOr(B.CreateOr(Ux.IsZero, B.CreateOr(Ux.IsInf, Ux.IsNaN)),
                 B.CreateOr(Uy.IsZero, B.CreateOr(Uy.IsInf, Uy.IsNaN)));
  Value *Mx = mantissa(Ux), *My = mantissa(Uy);
  Value *P = B.CreateFMul(Mx, My);
  Value *E = fmaIntrinsic(Mx, My, B.CreateFNeg(P));
  Unpacked Up = unpack(P);
  Value *Exp = B.CreateAdd(Up.Exp, B.CreateAdd(Ux.Exp, Uy.Exp));
  return finish64(B.CreateXor(Ux.Neg, Uy.Neg), Up.Sig, Exp, sign(E), Special,
                  B.CreateFMul(X, Y), M);
}

Value *FloatEmitter::div64(Value *X, Value *Y, FloatMode M) {
  Unpacked Ux = unpack(X), Uy = unpack(Y);
  Value *Special =
      B.CreateOr(B.CreateOr(Ux.IsZero, B.CreateOr(Ux.IsInf, Ux.IsNaN)),
                 B.CreateOr(Uy.IsZero, B.CreateOr(Uy.IsInf, Uy.IsNaN)));
  Value *Mx = mantissa(Ux), *My = mantissa(Uy);
  Value *Q = B.CreateFDiv(Mx, My);
  Value *R = fmaIntrinsic(B.CreateFNeg(Q), My, Mx); // Exact.
  Unpacked Uq = unpack(Q);
  Value *Exp = B.CreateAdd(Uq.Exp, B.CreateSub(Ux.Exp, Uy.Exp));
  return finish64(B.CreateXor(Ux.Neg, Uy.Neg), Uq.Sig, Exp, sign(R), Special,
                  B.CreateFDiv(X, Y), M);
}

Value *FloatEmitter::sqrt64(Value *X, FloatMode M) {
  Unpacked Ux = unpack(X);
  Value *Special =
      B.CreateOr(B.CreateOr(Ux.IsZero, Ux.Neg), B.CreateOr(Ux.IsInf, Ux.IsNaN));
  // An even exponent: sqrt(m * 2^2k) = sqrt(m) * 2^k with m in [1, 4).
  Value *Odd = B.CreateTrunc(Ux.Exp, B.getInt1Ty());
  Value *Mx = mantissa(Ux);
  Value *M2 = B.CreateSelect(
      Odd, B.CreateFMul(Mx, llvm::ConstantFP::get(B.getDoubleTy(), 2.0)), Mx);
  Value *E2 = B.CreateSub(Ux.Exp, B.CreateZExt(Odd, B.getInt32Ty()));
  Value *S = B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, M2);
  Value *R = fmaIntrinsic(B.CreateFNeg(S), S, M2); // Exact.
  Unpacked Us = unpack(S);
  Value *Exp = B.CreateAdd(Us.Exp, B.CreateAShr(E2, 1));
  return finish64(B.getFalse(), Us.Sig, Exp, sign(R), Special,
                  B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, X), M);
}

Value *FloatEmitter::fma64(Value *X, Value *Y, Value *Z, FloatMode M) {
  llvm::Type *D = B.getDoubleTy();
  Unpacked Ux = unpack(X), Uy = unpack(Y), Uz = unpack(Z);
  // Zero, infinite or NaN factors, or an infinite or NaN addend: the
  // result is exact (or NaN), as the host computes it.
  Value *Special = B.CreateOr(
      B.CreateOr(B.CreateOr(Ux.IsZero, B.CreateOr(Ux.IsInf, Ux.IsNaN)),
                 B.CreateOr(Uy.IsZero, B.CreateOr(Uy.IsInf, Uy.IsNaN))),
      B.CreateOr(Uz.IsInf, Uz.IsNaN));
  Value *ProdNeg = B.CreateXor(Ux.Neg, Uy.Neg);
  Value *SpecialValue = fmaIntrinsic(X, Y, Z);
  if (M.Round == FloatRound::Down) {
    Value *Zero = B.CreateSelect(B.CreateOr(ProdNeg, Uz.Neg),
                                 llvm::ConstantFP::get(D, -0.0),
                                 llvm::ConstantFP::get(D, 0.0));
    SpecialValue = B.CreateSelect(
        B.CreateFCmpOEQ(SpecialValue, llvm::ConstantFP::get(D, 0.0)), Zero,
        SpecialValue);
  }

  // Scaled: X*Y + Z = (Mx*My + Zs) * 2^K with Mx, My in [1, 2).
  Value *Mx = mantissa(Ux), *My = mantissa(Uy);
  Value *K = B.CreateAdd(Ux.Exp, Uy.Exp);
  Value *Dz = B.CreateSub(Uz.Exp, K);
  // The addend far above the product: Z with the product's sign as sticky.
  Value *ZAbove =
      B.CreateAnd(B.CreateNot(Uz.IsZero), B.CreateICmpSGT(Dz, i32(65)));
  // The addend far below the product's last bit: any value of its sign
  // that is below 2^-104 rounds alike; a zero addend stays zero.
  Value *ZBelow = B.CreateOr(Uz.IsZero, B.CreateICmpSLT(Dz, i32(-105)));
  Value *Dc =
      B.CreateSelect(ZBelow, i32(-120), B.CreateSelect(ZAbove, i32(0), Dz));
  Value *ZsFrac = B.CreateSelect(
      ZBelow, i64(0),
      B.CreateAnd(B.CreateLShr(Uz.Sig, 11), i64((uint64_t(1) << 52) - 1)));
  Value *ZsBits =
      B.CreateOr(B.CreateOr(B.CreateShl(B.CreateZExt(B.CreateAdd(Dc, i32(1023)),
                                                     B.getInt64Ty()),
                                        52),
                            ZsFrac),
                 B.CreateSelect(Uz.Neg, i64(uint64_t(1) << 63), i64(0)));
  Value *Zs = B.CreateSelect(Uz.IsZero, llvm::ConstantFP::get(D, 0.0),
                             fromBits(ZsBits, D));
  Value *Mxs = B.CreateSelect(ProdNeg, B.CreateFNeg(Mx), Mx);
  Value *R1 = fmaIntrinsic(Mxs, My, Zs);
  // The sign of Mxs*My + Zs - R1: the expansion U1 + U2 + Zs - R1 grown
  // with TwoSums (nonoverlapping, so its largest nonzero part has the sign
  // of the whole).
  Value *U1 = B.CreateFMul(Mxs, My);
  Value *U2 = fmaIntrinsic(Mxs, My, B.CreateFNeg(U1));
  auto [S1, E1] = twoSum(U1, B.CreateFNeg(R1));
  auto [Q1, H1] = twoSum(U2, E1);
  auto [Q2, H2] = twoSum(Q1, S1);
  auto [Q3, G1] = twoSum(Zs, H1);
  auto [Q4, G2] = twoSum(Q3, H2);
  auto [Q5, G3] = twoSum(Q4, Q2);
  Value *Dir = sign(G1);
  for (Value *Part : {G2, G3, Q5}) {
    Value *S = sign(Part);
    Dir = B.CreateSelect(B.CreateICmpNE(S, i32(0)), S, Dir);
  }
  Unpacked Ur = unpack(R1);
  Value *Neg = B.CreateSelect(ZAbove, Uz.Neg, Ur.Neg);
  Value *Sig = B.CreateSelect(ZAbove, Uz.Sig, Ur.Sig);
  Value *Exp = B.CreateSelect(ZAbove, Uz.Exp, B.CreateAdd(Ur.Exp, K));
  Value *Sticky = B.CreateSelect(
      ZAbove, B.CreateSelect(B.CreateXor(ProdNeg, Uz.Neg), i32(-1), i32(1)),
      relative(Dir, Ur.Neg));
  // An exact zero from cancellation is +0, or -0 rounding down.
  Value *Cancel = B.CreateAnd(B.CreateNot(ZAbove), Ur.IsZero);
  SpecialValue = B.CreateSelect(
      Special, SpecialValue,
      llvm::ConstantFP::get(D, M.Round == FloatRound::Down ? -0.0 : 0.0));
  return finish64(Neg, Sig, Exp, Sticky, B.CreateOr(Special, Cancel),
                  SpecialValue, M);
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

Value *FloatEmitter::add(Value *X, Value *Y, FloatMode M) {
  llvm::Type *T = X->getType();
  if (NativeFtz32 && nearFtz32(T, M)) // The target's .ftz instruction.
    return propagateNaNOf(B.CreateFAdd(X, Y), {X, Y}, true);
  if (M.Ftz) {
    X = flush(X);
    Y = flush(Y);
  }
  Value *R;
  if (fast(T, M)) {
    R = B.CreateFAdd(X, Y);
  } else if (nearFtz32(T, M)) {
    // A sum that is tiny is exact, so tiny exactly when subnormal.
    R = flush(B.CreateFAdd(X, Y));
  } else if (T->isDoubleTy()) {
    R = add64(X, Y, M);
  } else {
    // f16 and f32: TwoSum in f64 (exact, no overflow possible).
    Value *X64 = B.CreateFPExt(X, B.getDoubleTy());
    Value *Y64 = B.CreateFPExt(Y, B.getDoubleTy());
    auto [S, E] = twoSum(X64, Y64);
    S = zeroSum(X64, Y64, S, M);
    R = narrow(S, relative(sign(E), signBit(S)), T, M);
  }
  raiseInvalid(R, {X, Y});
  return propagateNaNOf(R, {X, Y}, fast(T, M) && !T->isHalfTy());
}

Value *FloatEmitter::sub(Value *X, Value *Y, FloatMode M) {
  return add(X, neg(Y), M);
}

Value *FloatEmitter::mul(Value *X, Value *Y, FloatMode M) {
  llvm::Type *T = X->getType();
  if (NativeFtz32 && nearFtz32(T, M)) // The target's .ftz instruction.
    return propagateNaNOf(B.CreateFMul(X, Y), {X, Y}, true);
  if (M.Ftz) {
    X = flush(X);
    Y = flush(Y);
  }
  Value *R;
  if (fast(T, M)) {
    R = B.CreateFMul(X, Y);
  } else if (nearFtz32(T, M)) {
    // The product is exact in f64.
    Value *P = B.CreateFMul(B.CreateFPExt(X, B.getDoubleTy()),
                            B.CreateFPExt(Y, B.getDoubleTy()));
    R = flushTiny(B.CreateFPTrunc(P, T), tinyNear32(P));
  } else if (T->isDoubleTy()) {
    R = mul64(X, Y, M);
  } else { // Exact in f64.
    R = narrow(B.CreateFMul(B.CreateFPExt(X, B.getDoubleTy()),
                            B.CreateFPExt(Y, B.getDoubleTy())),
               i32(0), T, M);
  }
  raiseInvalid(R, {X, Y});
  return propagateNaNOf(R, {X, Y}, fast(T, M) && !T->isHalfTy());
}

Value *FloatEmitter::div(Value *X, Value *Y, FloatMode M) {
  llvm::Type *T = X->getType();
  if (NativeFtz32 && nearFtz32(T, M)) // The target's .ftz instruction.
    return propagateNaNOf(B.CreateFDiv(X, Y), {X, Y}, true);
  if (M.Ftz) {
    X = flush(X);
    Y = flush(Y);
  }
  Value *R;
  if (fast(T, M)) {
    R = B.CreateFDiv(X, Y);
  } else if (nearFtz32(T, M)) {
    // The f64 quotient rounds to f32 as the exact one does (53 >= 2*24+2),
    // and is below the tininess bound exactly when the exact one is (a
    // quotient of f32 values within 2^-53 of the bound is the bound).
    Value *Q = B.CreateFDiv(B.CreateFPExt(X, B.getDoubleTy()),
                            B.CreateFPExt(Y, B.getDoubleTy()));
    R = flushTiny(B.CreateFPTrunc(Q, T), tinyNear32(Q));
  } else if (T->isDoubleTy()) {
    R = div64(X, Y, M);
  } else {
    Value *X64 = B.CreateFPExt(X, B.getDoubleTy());
    Value *Y64 = B.CreateFPExt(Y, B.getDoubleTy());
    Value *Q = B.CreateFDiv(X64, Y64);
    // X - Q*Y is exact; the quotient's error has its sign times Y's.
    Value *Rem = fmaIntrinsic(B.CreateFNeg(Q), Y64, X64);
    Value *Dir = relative(sign(Rem), signBit(Y64));
    R = narrow(Q, relative(Dir, signBit(Q)), T, M);
  }
  raiseInvalid(R, {X, Y});
  if (Detect) {
    // A finite non-zero value divided by zero (PRM 12.2).
    llvm::Constant *Zero = llvm::ConstantFP::get(T, 0.0);
    Value *FiniteX =
        B.CreateFCmpOLT(B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, X),
                        llvm::ConstantFP::getInfinity(T));
    raise(B.CreateAnd(B.CreateFCmpOEQ(Y, Zero),
                      B.CreateAnd(FiniteX, B.CreateFCmpONE(X, Zero))),
          DivideByZero);
  }
  return propagateNaNOf(R, {X, Y}, fast(T, M) && !T->isHalfTy());
}

Value *FloatEmitter::fma(Value *X, Value *Y, Value *Z, FloatMode M) {
  llvm::Type *T = X->getType();
  if (NativeFtz32 && nearFtz32(T, M)) // The target's fma.rn.ftz.
    return propagateNaNOf(fmaIntrinsic(X, Y, Z), {X, Y, Z}, true);
  if (M.Ftz) {
    X = flush(X);
    Y = flush(Y);
    Z = flush(Z);
  }
  Value *R;
  if (fast(T, M, /*Fused=*/true)) {
    R = fmaIntrinsic(X, Y, Z);
  } else if (nearFtz32(T, M)) {
    // The host's fma rounds; the exact sum (TwoSum of the exact f64
    // product and the addend) decides tininess.
    Value *P = B.CreateFMul(B.CreateFPExt(X, B.getDoubleTy()),
                            B.CreateFPExt(Y, B.getDoubleTy()));
    auto [S, E] = twoSum(P, B.CreateFPExt(Z, B.getDoubleTy()));
    Value *AtBound =
        B.CreateFCmpOEQ(B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, S),
                        llvm::ConstantFP::get(B.getDoubleTy(), TinyF32Near));
    Value *Below = B.CreateICmpSLT(relative(sign(E), signBit(S)), i32(0));
    R = flushTiny(fmaIntrinsic(X, Y, Z),
                  B.CreateOr(tinyNear32(S), B.CreateAnd(AtBound, Below)));
  } else if (T->isDoubleTy()) {
    R = fma64(X, Y, Z, M);
  } else {
    // The product is exact in f64; the sum's error comes from TwoSum.
    Value *P = B.CreateFMul(B.CreateFPExt(X, B.getDoubleTy()),
                            B.CreateFPExt(Y, B.getDoubleTy()));
    Value *Z64 = B.CreateFPExt(Z, B.getDoubleTy());
    auto [S, E] = twoSum(P, Z64);
    S = zeroSum(P, Z64, S, M);
    R = narrow(S, relative(sign(E), signBit(S)), T, M);
  }
  raiseInvalid(R, {X, Y, Z});
  return propagateNaNOf(R, {X, Y, Z},
                        fast(T, M, /*Fused=*/true) && !T->isHalfTy());
}

Value *FloatEmitter::sqrt(Value *X, FloatMode M) {
  llvm::Type *T = X->getType();
  if (M.Ftz)
    X = flush(X);
  Value *R;
  if (fast(T, M) || nearFtz32(T, M)) {
    // Square roots of normal (or flushed) values are never tiny.
    R = B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, X);
  } else if (T->isDoubleTy()) {
    R = sqrt64(X, M);
  } else {
    Value *X64 = B.CreateFPExt(X, B.getDoubleTy());
    Value *S = B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, X64);
    Value *Rem = fmaIntrinsic(B.CreateFNeg(S), S, X64); // Exact.
    R = narrow(S, sign(Rem), T, M);
  }
  raiseInvalid(R, {X});
  return propagateNaNOf(R, {X}, fast(T, M) && !T->isHalfTy());
}

Value *FloatEmitter::fract(Value *X, FloatMode M) {
  // PRM 5.11.1: min(round(x - floor(x)), largest value below 1.0), with
  // zeros kept and infinities giving zeros of their sign.
  llvm::Type *T = X->getType();
  if (M.Ftz)
    X = flush(X);
  Value *Floor = B.CreateUnaryIntrinsic(llvm::Intrinsic::floor, X);
  // Only a signaling NaN raises an exception here: the subtraction's own
  // (inf - inf, a rounded fraction) are not fract's.
  Value *Before = Raised;
  Value *D = sub(X, Floor, M);
  Raised = Before;
  raise(isSignaling(X), InvalidOperation);
  Format F = formatOf(T);
  Value *Below1 =
      fromBits(llvm::ConstantInt::get(B.getIntNTy(F.Bits),
                                      (uint64_t(F.Bias - 1) << F.Mant) |
                                          ((uint64_t(1) << F.Mant) - 1)),
               T);
  D = B.CreateSelect(B.CreateFCmpOGT(D, Below1), Below1, D);
  Value *Zero = llvm::ConstantFP::get(T, 0.0);
  Value *IsInf =
      B.CreateFCmpOEQ(B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, X),
                      llvm::ConstantFP::getInfinity(T));
  D = B.CreateSelect(IsInf, copySign(Zero, X), D);
  D = B.CreateSelect(B.CreateFCmpOEQ(X, Zero), X, D);
  return propagateNaN(D, {X});
}

Value *FloatEmitter::integral(llvm::Intrinsic::ID Id, Value *X, bool Ftz) {
  if (Ftz)
    X = flush(X);
  raise(isSignaling(X), InvalidOperation);
  return propagateNaN(B.CreateUnaryIntrinsic(Id, X), {X});
}

Value *FloatEmitter::minMax(Value *X, Value *Y, bool Max, bool Ftz) {
  if (Ftz) {
    X = flush(X);
    Y = flush(Y);
  }
  llvm::Type *T = X->getType();
  // Equal values: the same bits, or zeros, where OR picks -0 and AND +0.
  Value *Eq = B.CreateFCmpOEQ(X, Y);
  Value *EqValue = fromBits(
      Max ? B.CreateAnd(bits(X), bits(Y)) : B.CreateOr(bits(X), bits(Y)), T);
  Value *Pick = Max ? B.CreateFCmpOGT(X, Y) : B.CreateFCmpOLT(X, Y);
  Value *R = B.CreateSelect(Pick, X, B.CreateSelect(Eq, EqValue, Y));
  // One quiet NaN: the other operand. A signaling NaN: a quiet NaN.
  R = B.CreateSelect(isNaN(X), Y, B.CreateSelect(isNaN(Y), X, R));
  Format F = formatOf(T);
  auto Signaling = [&](Value *V) {
    Value *Quiet = B.CreateICmpNE(
        B.CreateAnd(bits(V),
                    llvm::ConstantInt::get(B.getIntNTy(F.Bits), F.quietBit())),
        llvm::ConstantInt::get(B.getIntNTy(F.Bits), 0));
    return B.CreateAnd(isNaN(V), B.CreateNot(Quiet));
  };
  R = B.CreateSelect(Signaling(Y), quiet(Y), R);
  R = B.CreateSelect(Signaling(X), quiet(X), R);
  raise(B.CreateOr(Signaling(X), Signaling(Y)), InvalidOperation);
  return quiet(R);
}

//===----------------------------------------------------------------------===//
// Bit operations
//===----------------------------------------------------------------------===//

Value *FloatEmitter::abs(Value *X) {
  Format F = formatOf(X->getType());
  Value *I = bits(X);
  return fromBits(
      B.CreateAnd(I, llvm::ConstantInt::get(I->getType(), ~F.signBit())),
      X->getType());
}

Value *FloatEmitter::neg(Value *X) {
  Format F = formatOf(X->getType());
  Value *I = bits(X);
  return fromBits(
      B.CreateXor(I, llvm::ConstantInt::get(I->getType(), F.signBit())),
      X->getType());
}

Value *FloatEmitter::copySign(Value *X, Value *Y) {
  Format F = formatOf(X->getType());
  Value *IX = bits(X), *IY = bits(Y);
  llvm::Type *IT = IX->getType();
  return fromBits(
      B.CreateOr(B.CreateAnd(IX, llvm::ConstantInt::get(IT, ~F.signBit())),
                 B.CreateAnd(IY, llvm::ConstantInt::get(IT, F.signBit()))),
      X->getType());
}

Value *FloatEmitter::classify(Value *X, Value *Cond) {
  // PRM Table 5-18.
  Format F = formatOf(X->getType());
  Value *I = bits(X);
  llvm::Type *IT = I->getType();
  auto C = [&](uint64_t V) { return llvm::ConstantInt::get(IT, V); };
  Value *Neg = B.CreateICmpSLT(I, C(0));
  Value *Abs = B.CreateAnd(I, C(~F.signBit() & ((F.signBit() << 1) - 1)));
  Value *IsNaN = B.CreateICmpUGT(Abs, C(F.infBits()));
  Value *Quiet = B.CreateICmpNE(B.CreateAnd(I, C(F.quietBit())), C(0));
  Value *IsInf = B.CreateICmpEQ(Abs, C(F.infBits()));
  Value *IsZero = B.CreateICmpEQ(Abs, C(0));
  Value *IsSub = B.CreateICmpULT(Abs, C(uint64_t(1) << F.Mant));
  auto Pick = [&](Value *Cond, uint32_t NegBit, uint32_t PosBit, Value *Else) {
    return B.CreateSelect(Cond, B.CreateSelect(Neg, i32(NegBit), i32(PosBit)),
                          Else);
  };
  Value *Class = i32(0);
  Class = Pick(B.getTrue(), 0x008, 0x100, Class); // Normal.
  Class = Pick(IsSub, 0x010, 0x080, Class);
  Class = Pick(IsZero, 0x020, 0x040, Class);
  Class = Pick(IsInf, 0x004, 0x200, Class);
  Class = B.CreateSelect(IsNaN, B.CreateSelect(Quiet, i32(2), i32(1)), Class);
  return B.CreateICmpNE(B.CreateAnd(Class, Cond), i32(0));
}

//===----------------------------------------------------------------------===//
// Native operations
//===----------------------------------------------------------------------===//

/// Horner evaluation of sum Coeffs[i] * X^i.
static Value *hornerPoly(llvm::IRBuilder<> &B, Value *X,
                         llvm::ArrayRef<double> Coeffs) {
  llvm::Type *T = X->getType();
  Value *Acc = llvm::ConstantFP::get(T, Coeffs.back());
  for (size_t I = Coeffs.size() - 1; I-- > 0;)
    Acc =
        B.CreateFAdd(B.CreateFMul(Acc, X), llvm::ConstantFP::get(T, Coeffs[I]));
  return Acc;
}

Value *FloatEmitter::nativeExp2(Value *X) {
  llvm::Type *T = X->getType(), *D = B.getDoubleTy();
  Value *X64 = T->isDoubleTy() ? X : B.CreateFPExt(X, D);
  // 2^x = 2^n * 2^f, n = rint(x), |f| <= 1/2; 2^f = e^(f ln 2) by its series.
  Value *Lo = llvm::ConstantFP::get(D, -1100.0);
  Value *Hi = llvm::ConstantFP::get(D, 1100.0);
  Value *Xc = B.CreateSelect(B.CreateFCmpOLT(X64, Lo), Lo,
                             B.CreateSelect(B.CreateFCmpOGT(X64, Hi), Hi, X64));
  Value *N = B.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, Xc);
  Value *Frac = B.CreateFSub(Xc, N);
  double Coeffs[14];
  double Term = 1.0;
  for (int K = 0; K < 14; ++K) {
    Coeffs[K] = Term;
    Term *= 0.6931471805599453094 / double(K + 1);
  }
  Value *P = hornerPoly(B, Frac, Coeffs);
  Value *Ni =
      B.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {B.getInt32Ty(), D}, {N});
  Value *N1 = B.CreateAShr(Ni, 1);
  Value *N2 = B.CreateSub(Ni, N1);
  auto Pow2 = [&](Value *E) {
    return fromBits(
        B.CreateShl(B.CreateZExt(B.CreateAdd(E, i32(1023)), B.getInt64Ty()),
                    52),
        D);
  };
  Value *R = B.CreateFMul(B.CreateFMul(P, Pow2(N1)), Pow2(N2));
  if (!T->isDoubleTy())
    R = B.CreateFPTrunc(R, T);
  return propagateNaN(R, {X});
}

Value *FloatEmitter::nativeLog2(Value *X) {
  llvm::Type *T = X->getType(), *D = B.getDoubleTy();
  Value *X64 = T->isDoubleTy() ? X : B.CreateFPExt(X, D);
  // x = m * 2^e, m in [sqrt(1/2), sqrt(2)); log2 m = 2 atanh(s) / ln 2,
  // s = (m - 1) / (m + 1), |s| < 0.172.
  Unpacked U = unpack(X64);
  Value *M = mantissa(U);
  Value *Big = B.CreateFCmpOGT(M, llvm::ConstantFP::get(D, 1.4142135623730951));
  M = B.CreateSelect(Big, B.CreateFMul(M, llvm::ConstantFP::get(D, 0.5)), M);
  Value *E = B.CreateAdd(U.Exp, B.CreateZExt(Big, B.getInt32Ty()));
  Value *One = llvm::ConstantFP::get(D, 1.0);
  Value *S = B.CreateFDiv(B.CreateFSub(M, One), B.CreateFAdd(M, One));
  double Coeffs[11];
  for (int K = 0; K < 11; ++K)
    Coeffs[K] = 1.0 / double(2 * K + 1);
  Value *Series = hornerPoly(B, B.CreateFMul(S, S), Coeffs);
  Value *L = B.CreateFMul(B.CreateFMul(S, Series),
                          llvm::ConstantFP::get(D, 2.8853900817779268147));
  Value *R = B.CreateFAdd(B.CreateSIToFP(E, D), L);
  Value *Zero = llvm::ConstantFP::get(D, 0.0);
  R = B.CreateSelect(B.CreateFCmpOEQ(X64, llvm::ConstantFP::getInfinity(D)),
                     X64, R);
  R = B.CreateSelect(B.CreateFCmpOLT(X64, Zero), llvm::ConstantFP::getNaN(D),
                     R);
  R = B.CreateSelect(B.CreateFCmpOEQ(X64, Zero),
                     llvm::ConstantFP::getInfinity(D, true), R);
  if (!T->isDoubleTy())
    R = B.CreateFPTrunc(R, T);
  return propagateNaN(R, {X});
}

namespace {
// Taylor coefficients of sin(r)/r and cos(r) in r^2, |r| <= pi/4.
constexpr double SinCoeffs[] = {1.0,
                                -1.0 / 6,
                                1.0 / 120,
                                -1.0 / 5040,
                                1.0 / 362880,
                                -1.0 / 39916800,
                                1.0 / 6227020800,
                                -1.0 / 1307674368000,
                                1.0 / 355687428096000};
constexpr double CosCoeffs[] = {1.0,
                                -1.0 / 2,
                                1.0 / 24,
                                -1.0 / 720,
                                1.0 / 40320,
                                -1.0 / 3628800,
                                1.0 / 479001600,
                                -1.0 / 87178291200,
                                1.0 / 20922789888000};
} // namespace

/// sin (Cos false) or cos of X: reduced by multiples of pi/2 (Cody-Waite,
/// three parts), then the series of the quadrant.
static Value *sinCos(llvm::IRBuilder<> &B, Value *X64, bool Cos) {
  llvm::Type *D = B.getDoubleTy();
  auto C = [&](double V) { return llvm::ConstantFP::get(D, V); };
  auto Fma = [&](Value *A, Value *Bv, Value *Cv) {
    return B.CreateIntrinsic(llvm::Intrinsic::fma, {D}, {A, Bv, Cv});
  };
  Value *K = B.CreateUnaryIntrinsic(
      llvm::Intrinsic::roundeven, B.CreateFMul(X64, C(0.63661977236758134308)));
  Value *NegK = B.CreateFNeg(K);
  Value *R = Fma(NegK, C(1.5707963267948966), X64);
  R = Fma(NegK, C(6.123233995736766e-17), R);
  R = Fma(NegK, C(-1.4973849048591698e-33), R);
  Value *R2 = B.CreateFMul(R, R);
  Value *SinR = B.CreateFMul(R, hornerPoly(B, R2, SinCoeffs));
  Value *CosR = hornerPoly(B, R2, CosCoeffs);
  Value *Q = B.CreateAnd(
      B.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {B.getInt64Ty(), D}, {K}),
      B.getInt64(3));
  if (Cos)
    Q = B.CreateAnd(B.CreateAdd(Q, B.getInt64(1)), B.getInt64(3));
  // sin(r + q pi/2) for q = 0..3: sin r, cos r, -sin r, -cos r.
  Value *Odd = B.CreateTrunc(Q, B.getInt1Ty());
  Value *Flip = B.CreateICmpUGE(Q, B.getInt64(2));
  Value *V = B.CreateSelect(Odd, CosR, SinR);
  return B.CreateSelect(Flip, B.CreateFNeg(V), V);
}

Value *FloatEmitter::nativeSin(Value *X) {
  llvm::Type *T = X->getType();
  Value *X64 = T->isDoubleTy() ? X : B.CreateFPExt(X, B.getDoubleTy());
  Value *R = sinCos(B, X64, false);
  if (!T->isDoubleTy())
    R = B.CreateFPTrunc(R, T);
  return propagateNaN(R, {X});
}

Value *FloatEmitter::nativeCos(Value *X) {
  llvm::Type *T = X->getType();
  Value *X64 = T->isDoubleTy() ? X : B.CreateFPExt(X, B.getDoubleTy());
  Value *R = sinCos(B, X64, true);
  if (!T->isDoubleTy())
    R = B.CreateFPTrunc(R, T);
  return propagateNaN(R, {X});
}

//===----------------------------------------------------------------------===//
// Compare and convert
//===----------------------------------------------------------------------===//

Value *FloatEmitter::compare(llvm::CmpInst::Predicate Pred, Value *X, Value *Y,
                             bool Ftz, bool Signaling) {
  // A target that flushes natively compares the flushed values itself
  // (setp.ftz); the result is only a bit, so nothing unflushed escapes.
  const bool Native = NativeFtz32 && !Detect && X->getType()->isFloatTy();
  if (Ftz && !Native) {
    X = flush(X);
    Y = flush(Y);
  }
  raise(Signaling ? B.CreateFCmpUNO(X, Y)
                  : B.CreateOr(isSignaling(X), isSignaling(Y)),
        InvalidOperation);
  return B.CreateFCmp(Pred, X, Y);
}

/// The quiet NaN that converting NaN X to To gives, made from bits: the
/// sign, and the payload's leading bits (shifted down when narrowing, up
/// when widening), so a NaN narrowed and widened again comes back as it was
/// (PRM 4.19.4), as x86 and AArch64 conversions do.
Value *FloatEmitter::convertNaN(Value *X, llvm::Type *To) {
  Format F = formatOf(X->getType()), T = formatOf(To);
  llvm::Type *I64 = B.getInt64Ty();
  Value *I = B.CreateZExt(bits(X), I64);
  Value *Payload = B.CreateAnd(I, i64((uint64_t(1) << F.Mant) - 1));
  Payload = T.Mant >= F.Mant ? B.CreateShl(Payload, i64(T.Mant - F.Mant))
                             : B.CreateLShr(Payload, i64(F.Mant - T.Mant));
  Value *Sign =
      B.CreateSelect(B.CreateICmpNE(B.CreateAnd(I, i64(F.signBit())), i64(0)),
                     i64(T.signBit()), i64(0));
  Value *R =
      B.CreateOr(B.CreateOr(Sign, Payload), i64(T.infBits() | T.quietBit()));
  return fromBits(B.CreateTrunc(R, B.getIntNTy(T.Bits)), To);
}

Value *FloatEmitter::convert(Value *X, llvm::Type *To, FloatMode M) {
  if (M.Ftz)
    X = flush(X);
  raise(isSignaling(X), InvalidOperation);
  // Targets whose conversions return a canonical NaN (NVPTX) keep the
  // payload explicitly.
  if (!HardwarePropagatesNaN) {
    Value *R = convertValue(X, To, M);
    return B.CreateSelect(isNaN(X), convertNaN(X, To), R);
  }
  return convertValue(X, To, M);
}

Value *FloatEmitter::convertValue(Value *X, llvm::Type *To, FloatMode M) {
  llvm::Type *From = X->getType();
  if (To->getPrimitiveSizeInBits() > From->getPrimitiveSizeInBits())
    return quiet(B.CreateFPExt(X, To)); // Exact.
  // f64 to f32 and f32 to f16 are single host instructions (f64 to f16
  // would be a libcall).
  if (fast(To, M) && (From->isDoubleTy() || From->isFloatTy()) &&
      !(From->isDoubleTy() && To->isHalfTy()))
    return quiet(B.CreateFPTrunc(X, To));
  Value *X64 = From->isDoubleTy() ? X : B.CreateFPExt(X, B.getDoubleTy());
  return narrow(X64, i32(0), To, M);
}

Value *FloatEmitter::fromInt(Value *X, bool Signed, llvm::Type *To,
                             FloatRound R) {
  if (R == FloatRound::NearEven && !To->isHalfTy() && !Detect)
    return Signed ? B.CreateSIToFP(X, To) : B.CreateUIToFP(X, To);
  llvm::Type *I64 = B.getInt64Ty();
  Value *X64 =
      Signed ? B.CreateSExtOrTrunc(X, I64) : B.CreateZExtOrTrunc(X, I64);
  Value *Neg = Signed ? B.CreateICmpSLT(X64, i64(0)) : B.getFalse();
  Value *Mag = B.CreateSelect(Neg, B.CreateNeg(X64), X64);
  Value *LZ = B.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, Mag, B.getFalse());
  Value *Sig = B.CreateShl(
      Mag, B.CreateSelect(B.CreateICmpUGT(LZ, i64(63)), i64(0), LZ));
  Value *Exp = B.CreateTrunc(B.CreateSub(i64(63), LZ), B.getInt32Ty());
  FloatMode M;
  M.Round = R;
  Value *Pat = roundPack(formatOf(To), M, Neg, Sig, Exp, i32(0));
  if (Detect)
    raiseBits(RoundRaised);
  return fromBits(Pat, To);
}

Value *FloatEmitter::toInt(Value *X, llvm::IntegerType *To, bool Signed,
                           llvm::Intrinsic::ID Id, bool Ftz, bool Saturating,
                           bool SignalingInexact) {
  if (Ftz)
    X = flush(X);
  raise(isSignaling(X), InvalidOperation);
  if (X->getType()->isHalfTy())
    X = B.CreateFPExt(X, B.getFloatTy()); // Exact.
  Value *R = B.CreateUnaryIntrinsic(Id, X);
  if (Detect && !Saturating) {
    // NaN, infinite or out of range once rounded (PRM 12.2); the bounds
    // are powers of two, exact in every format.
    const unsigned W = To->getBitWidth();
    llvm::Type *T = X->getType();
    double Lo = Signed ? -std::ldexp(1.0, int(W) - 1) : 0.0;
    double Hi = std::ldexp(1.0, Signed ? int(W) - 1 : int(W));
    Value *InRange =
        B.CreateAnd(B.CreateFCmpOGE(R, llvm::ConstantFP::get(T, Lo)),
                    B.CreateFCmpOLT(R, llvm::ConstantFP::get(T, Hi)));
    raise(B.CreateNot(InRange), InvalidOperation);
  }
  if (SignalingInexact) // Not integral (ordered: NaNs have raised invalid).
    raise(B.CreateFCmpONE(R, X), Inexact);
  return B.CreateIntrinsic(Signed ? llvm::Intrinsic::fptosi_sat
                                  : llvm::Intrinsic::fptoui_sat,
                           {To, X->getType()}, {R});
}

} // namespace openhsa::finalizer::detail
