//===- finalizer/LowerFloat.cpp - Floating-point instructions -------------===//
//
// PRM 5.11-5.14 for f16, f32, f64 and their packed forms: arithmetic with
// every rounding mode and ftz, minNum/maxNum, fract, the integral
// roundings, the bit instructions (abs, neg, copysign, class) and the
// native approximations. The operations themselves are FloatEmitter's
// (FloatEmitter.h); this file reads operands and modifiers and applies the
// profile's rules (16.2.1: ftz always, default rounding only, no f64).
//
//===----------------------------------------------------------------------===//
#include "finalizer/LowerArithmetic.h"

namespace openhsa::finalizer::detail {

std::optional<llvm::Error> KernelLowering::tryFloat(EntryRef<BrigInstBase> I) {
  const unsigned Op = I->opcode, T = I->type;
  switch (Op) {
  case BRIG_OPCODE_ADD:
  case BRIG_OPCODE_SUB:
  case BRIG_OPCODE_MUL:
  case BRIG_OPCODE_DIV:
  case BRIG_OPCODE_FMA:
  case BRIG_OPCODE_MAD:
  case BRIG_OPCODE_SQRT:
  case BRIG_OPCODE_FRACT:
  case BRIG_OPCODE_CEIL:
  case BRIG_OPCODE_FLOOR:
  case BRIG_OPCODE_RINT:
  case BRIG_OPCODE_TRUNC:
  case BRIG_OPCODE_MIN:
  case BRIG_OPCODE_MAX:
  case BRIG_OPCODE_ABS:
  case BRIG_OPCODE_NEG:
  case BRIG_OPCODE_COPYSIGN:
    if (!isFloatElement(T))
      return std::nullopt; // Integer forms: tryArithmetic.
    break;
  case BRIG_OPCODE_CLASS:
  case BRIG_OPCODE_NCOS:
  case BRIG_OPCODE_NEXP2:
  case BRIG_OPCODE_NFMA:
  case BRIG_OPCODE_NLOG2:
  case BRIG_OPCODE_NRCP:
  case BRIG_OPCODE_NRSQRT:
  case BRIG_OPCODE_NSIN:
  case BRIG_OPCODE_NSQRT:
    break;
  default:
    return std::nullopt;
  }

  const AluModifiers Mods = aluModifiers(B, I);
  const bool Base = baseProfile(B);
  const unsigned SrcT =
      Op == BRIG_OPCODE_CLASS
          ? unsigned(B.code<BrigInstSourceType>(I.Offset)->sourceType)
          : T;
  if (Base && elementType(SrcT) == BRIG_TYPE_F64)
    return failInst(I, "f64 is not supported by the base profile");

  // Rounding: the instruction's, else the module's default (PRM 4.19.2);
  // the base profile allows only the default (16.2.1).
  if (Base && explicitFloatRounding(Mods.Round))
    return failInst(I, "rounding modifier '" +
                           llvm::Twine(roundName(Mods.Round)) +
                           "' is not allowed by the base profile");
  std::optional<FloatRound> Round =
      floatRounding(B, Mods.Round, P.defaultRoundsToZero());
  if (!Round)
    return failInst(I, "rounding mode '" + llvm::Twine(roundName(Mods.Round)) +
                           "' is not a floating-point rounding");
  FloatMode M;
  M.Round = *Round;
  M.Ftz = Mods.Ftz || Base; // The base profile always flushes.

  FloatEmitter FE = floatEmitter();
  if (Op == BRIG_OPCODE_CLASS) {
    auto X = read(I, 1, SrcT);
    auto Cond = read(I, 2, BRIG_TYPE_U32);
    if (!X)
      return X.takeError();
    if (!Cond)
      return Cond.takeError();
    return write(I, 0, FE.classify(*X, *Cond), BRIG_TYPE_B1);
  }

  unsigned N = 1;
  switch (Op) {
  case BRIG_OPCODE_ADD:
  case BRIG_OPCODE_SUB:
  case BRIG_OPCODE_MUL:
  case BRIG_OPCODE_DIV:
  case BRIG_OPCODE_MIN:
  case BRIG_OPCODE_MAX:
  case BRIG_OPCODE_COPYSIGN:
    N = 2;
    break;
  case BRIG_OPCODE_FMA:
  case BRIG_OPCODE_MAD:
  case BRIG_OPCODE_NFMA:
    N = 3;
    break;
  }
  llvm::SmallVector<Value *, 3> S;
  for (unsigned J = 1; J <= N; ++J) {
    auto V = read(I, J, T);
    if (!V)
      return V.takeError();
    S.push_back(*V);
  }
  auto Fn = [&](llvm::ArrayRef<Value *> A) -> Value * {
    llvm::Type *Ty = A[0]->getType();
    switch (Op) {
    case BRIG_OPCODE_ADD:
      return FE.add(A[0], A[1], M);
    case BRIG_OPCODE_SUB:
      return FE.sub(A[0], A[1], M);
    case BRIG_OPCODE_MUL:
      return FE.mul(A[0], A[1], M);
    case BRIG_OPCODE_DIV:
      return FE.div(A[0], A[1], M);
    case BRIG_OPCODE_FMA:
    case BRIG_OPCODE_MAD: // This agent's mad is the single-round method.
      return FE.fma(A[0], A[1], A[2], M);
    case BRIG_OPCODE_SQRT:
      return FE.sqrt(A[0], M);
    case BRIG_OPCODE_FRACT:
      return FE.fract(A[0], M);
    case BRIG_OPCODE_CEIL:
      return FE.integral(llvm::Intrinsic::ceil, A[0], M.Ftz);
    case BRIG_OPCODE_FLOOR:
      return FE.integral(llvm::Intrinsic::floor, A[0], M.Ftz);
    case BRIG_OPCODE_RINT:
      return FE.integral(llvm::Intrinsic::roundeven, A[0], M.Ftz);
    case BRIG_OPCODE_TRUNC:
      return FE.integral(llvm::Intrinsic::trunc, A[0], M.Ftz);
    case BRIG_OPCODE_MIN:
    case BRIG_OPCODE_MAX:
      return FE.minMax(A[0], A[1], Op == BRIG_OPCODE_MAX, M.Ftz);
    case BRIG_OPCODE_ABS:
      return FE.abs(A[0]);
    case BRIG_OPCODE_NEG:
      return FE.neg(A[0]);
    case BRIG_OPCODE_COPYSIGN:
      return FE.copySign(A[0], A[1]);
    // Native operations (PRM 5.14): any accuracy; the host's own where it
    // has one, series in f64 otherwise.
    case BRIG_OPCODE_NCOS:
      return FE.nativeCos(A[0]);
    case BRIG_OPCODE_NSIN:
      return FE.nativeSin(A[0]);
    case BRIG_OPCODE_NEXP2:
      return FE.nativeExp2(A[0]);
    case BRIG_OPCODE_NLOG2:
      return FE.nativeLog2(A[0]);
    case BRIG_OPCODE_NFMA:
      return Builder.CreateIntrinsic(llvm::Intrinsic::fma, {Ty},
                                     {A[0], A[1], A[2]});
    case BRIG_OPCODE_NRCP:
      return Builder.CreateFDiv(llvm::ConstantFP::get(Ty, 1.0), A[0]);
    case BRIG_OPCODE_NSQRT:
      return Builder.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, A[0]);
    case BRIG_OPCODE_NRSQRT:
      return Builder.CreateFDiv(
          llvm::ConstantFP::get(Ty, 1.0),
          Builder.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, A[0]));
    }
    return nullptr;
  };
  if (!isPacked(T)) {
    Value *R = Fn(S);
    raiseDetected(FE);
    return write(I, 0, R, T);
  }
  if (packSaturates(Mods.Pack))
    return failInst(I, "saturating packing controls are not valid for "
                       "floating-point types");
  Value *Old = nullptr;
  if (packScalarOnly(Mods.Pack)) {
    auto O = read(I, 0, T);
    if (!O)
      return O.takeError();
    Old = *O;
  }
  Value *R = mapPacked(Builder, T, Mods.Pack, S, Old, Fn);
  raiseDetected(FE); // The union of the elements' exceptions.
  return write(I, 0, R, T);
}

} // namespace openhsa::finalizer::detail
