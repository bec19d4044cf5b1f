//===- finalizer/LowerConvert.cpp - Compare and conversion ----------------===//
//
// PRM 5.18 (cmp, packed forms included) and 5.19 (cvt: every legal pair of
// types, integer rounding with and without saturation, floating-point
// rounding, ftz, b1).
//
//===----------------------------------------------------------------------===//
#include "finalizer/LowerArithmetic.h"

namespace openhsa::finalizer::detail {

namespace {

/// The LLVM predicate of a floating-point comparison (PRM Table 5-26); the
/// signaling forms compare alike.
std::optional<llvm::CmpInst::Predicate> floatPredicate(unsigned Compare) {
  using P = llvm::CmpInst::Predicate;
  switch (Compare) {
  case BRIG_COMPARE_EQ:
  case BRIG_COMPARE_SEQ:
    return P::FCMP_OEQ;
  case BRIG_COMPARE_NE:
  case BRIG_COMPARE_SNE:
    return P::FCMP_ONE;
  case BRIG_COMPARE_LT:
  case BRIG_COMPARE_SLT:
    return P::FCMP_OLT;
  case BRIG_COMPARE_LE:
  case BRIG_COMPARE_SLE:
    return P::FCMP_OLE;
  case BRIG_COMPARE_GT:
  case BRIG_COMPARE_SGT:
    return P::FCMP_OGT;
  case BRIG_COMPARE_GE:
  case BRIG_COMPARE_SGE:
    return P::FCMP_OGE;
  case BRIG_COMPARE_EQU:
  case BRIG_COMPARE_SEQU:
    return P::FCMP_UEQ;
  case BRIG_COMPARE_NEU:
  case BRIG_COMPARE_SNEU:
    return P::FCMP_UNE;
  case BRIG_COMPARE_LTU:
  case BRIG_COMPARE_SLTU:
    return P::FCMP_ULT;
  case BRIG_COMPARE_LEU:
  case BRIG_COMPARE_SLEU:
    return P::FCMP_ULE;
  case BRIG_COMPARE_GTU:
  case BRIG_COMPARE_SGTU:
    return P::FCMP_UGT;
  case BRIG_COMPARE_GEU:
  case BRIG_COMPARE_SGEU:
    return P::FCMP_UGE;
  case BRIG_COMPARE_NUM:
  case BRIG_COMPARE_SNUM:
    return P::FCMP_ORD;
  case BRIG_COMPARE_NAN:
  case BRIG_COMPARE_SNAN:
    return P::FCMP_UNO;
  }
  return std::nullopt;
}

std::optional<llvm::CmpInst::Predicate> intPredicate(unsigned Compare,
                                                     bool Signed) {
  using P = llvm::CmpInst::Predicate;
  switch (Compare) {
  case BRIG_COMPARE_EQ:
    return P::ICMP_EQ;
  case BRIG_COMPARE_NE:
    return P::ICMP_NE;
  case BRIG_COMPARE_LT:
    return Signed ? P::ICMP_SLT : P::ICMP_ULT;
  case BRIG_COMPARE_LE:
    return Signed ? P::ICMP_SLE : P::ICMP_ULE;
  case BRIG_COMPARE_GT:
    return Signed ? P::ICMP_SGT : P::ICMP_UGT;
  case BRIG_COMPARE_GE:
    return Signed ? P::ICMP_SGE : P::ICMP_UGE;
  }
  return std::nullopt;
}

/// How cvt rounds a float to an integral value, for integer roundings.
std::optional<llvm::Intrinsic::ID> integerRounding(unsigned Round) {
  switch (Round) {
  case BRIG_ROUND_NONE:
  case BRIG_ROUND_INTEGER_ZERO:
  case BRIG_ROUND_INTEGER_ZERO_SAT:
  case BRIG_ROUND_INTEGER_SIGNALING_ZERO:
  case BRIG_ROUND_INTEGER_SIGNALING_ZERO_SAT:
    return llvm::Intrinsic::trunc;
  case BRIG_ROUND_INTEGER_NEAR_EVEN:
  case BRIG_ROUND_INTEGER_NEAR_EVEN_SAT:
  case BRIG_ROUND_INTEGER_SIGNALING_NEAR_EVEN:
  case BRIG_ROUND_INTEGER_SIGNALING_NEAR_EVEN_SAT:
    return llvm::Intrinsic::roundeven;
  case BRIG_ROUND_INTEGER_PLUS_INFINITY:
  case BRIG_ROUND_INTEGER_PLUS_INFINITY_SAT:
  case BRIG_ROUND_INTEGER_SIGNALING_PLUS_INFINITY:
  case BRIG_ROUND_INTEGER_SIGNALING_PLUS_INFINITY_SAT:
    return llvm::Intrinsic::ceil;
  case BRIG_ROUND_INTEGER_MINUS_INFINITY:
  case BRIG_ROUND_INTEGER_MINUS_INFINITY_SAT:
  case BRIG_ROUND_INTEGER_SIGNALING_MINUS_INFINITY:
  case BRIG_ROUND_INTEGER_SIGNALING_MINUS_INFINITY_SAT:
    return llvm::Intrinsic::floor;
  }
  return std::nullopt;
}

} // namespace

llvm::Error KernelLowering::lowerCompare(EntryRef<BrigInstBase> I) {
  auto C = B.code<BrigInstCmp>(I.Offset);
  if (!C)
    return failInst(I, "malformed compare");
  const unsigned SrcT = C->sourceType, DT = I->type;
  const bool Base = baseProfile(B);
  if (Base &&
      (elementType(SrcT) == BRIG_TYPE_F64 || elementType(DT) == BRIG_TYPE_F64))
    return failInst(I, "f64 is not supported by the base profile");
  const bool FloatSrc = isFloatElement(SrcT);
  const bool Ftz = FloatSrc && ((C->modifier & BRIG_ALU_FTZ) || Base);
  std::optional<llvm::CmpInst::Predicate> Pred =
      FloatSrc ? floatPredicate(C->compare)
               : intPredicate(C->compare, isSigned(SrcT));
  if (!Pred)
    return failInst(I, "comparison '" + llvm::Twine(compareName(C->compare)) +
                           "' is not valid for the source type");
  auto A = read(I, 1, SrcT);
  auto Bv = read(I, 2, SrcT);
  if (!A)
    return A.takeError();
  if (!Bv)
    return Bv.takeError();
  FloatEmitter FE = floatEmitter();
  // seq ... sgtu: signaling comparisons (PRM 5.18), invalid on any NaN.
  const bool Signaling = C->compare >= BRIG_COMPARE_SEQ;
  auto Compare = [&](Value *X, Value *Y) -> Value * {
    return FloatSrc ? FE.compare(*Pred, X, Y, Ftz, Signaling)
                    : Builder.CreateICmp(*Pred, X, Y);
  };

  if (isPacked(SrcT)) {
    // One all-ones or all-zeros element per element pair (PRM Table 5-25).
    if (!isPacked(DT) || elementCount(DT) != elementCount(SrcT))
      return failInst(I, "packed compare needs a packed destination of the "
                         "same shape");
    llvm::SmallVector<Value *, 16> X = splitPacked(Builder, *A, SrcT);
    llvm::SmallVector<Value *, 16> Y = splitPacked(Builder, *Bv, SrcT);
    llvm::SmallVector<Value *, 16> Out;
    auto *ETy = Builder.getIntNTy(typeBits(elementType(DT)));
    for (unsigned E = 0; E < X.size(); ++E)
      Out.push_back(Builder.CreateSExt(Compare(X[E], Y[E]), ETy));
    raiseDetected(FE);
    return write(I, 0, joinPacked(Builder, Out, DT), DT);
  }

  // The destination gets 1/0 (b1), all ones/zero (integers) or 1.0/0.0.
  Value *Cond = Compare(*A, *Bv);
  raiseDetected(FE);
  llvm::Type *DTy = llvmType(DT);
  Value *R;
  if ((DT & BRIG_TYPE_BASE_MASK) == BRIG_TYPE_B1)
    R = Cond;
  else if (isFloat(DT))
    R = Builder.CreateSelect(Cond, llvm::ConstantFP::get(DTy, 1.0),
                             llvm::ConstantFP::get(DTy, 0.0));
  else
    R = Builder.CreateSExt(Cond, DTy);
  return write(I, 0, R, DT);
}

llvm::Error KernelLowering::lowerConvert(EntryRef<BrigInstBase> I) {
  auto C = B.code<BrigInstCvt>(I.Offset);
  if (!C)
    return failInst(I, "malformed conversion");
  const unsigned DT = I->type, ST = C->sourceType;
  const unsigned Round = C->round;
  if (isPacked(DT) || isPacked(ST))
    return failInst(I, "cvt has no packed forms");
  const bool Base = baseProfile(B);
  if (Base && (DT == BRIG_TYPE_F64 || ST == BRIG_TYPE_F64))
    return failInst(I, "f64 is not supported by the base profile");
  const bool FloatS = isFloat(ST), FloatD = isFloat(DT);
  const bool B1S = ST == BRIG_TYPE_B1, B1D = DT == BRIG_TYPE_B1;
  // ftz applies to floating-point sources (PRM 5.19.2); the base profile
  // always flushes.
  const bool Ftz = FloatS && ((C->modifier & BRIG_ALU_FTZ) || Base);
  auto BadRounding = [&]() {
    return failInst(I, "rounding mode '" + llvm::Twine(roundName(Round)) +
                           "' is not valid for this conversion");
  };
  auto X = read(I, 1, ST);
  if (!X)
    return X.takeError();
  llvm::Type *DTy = llvmType(DT);
  FloatEmitter FE = floatEmitter();
  Value *R = nullptr;

  if (B1D) {
    // ztest: nonzero (for floats: nonzero, NaN or infinite) is 1.
    if (Round != BRIG_ROUND_NONE)
      return BadRounding();
    Value *V = *X;
    if (FloatS) {
      if (Ftz)
        V = FE.flush(V);
      R = Builder.CreateFCmpUNE(V, llvm::ConstantFP::get(V->getType(), 0.0));
    } else {
      R = Builder.CreateIsNotNull(V);
    }
  } else if (B1S) {
    // b1 to float: 0.0 or 1.0; to s32/s64: all ones (b2s); to others
    // (u*, s8, s16): zero-extended (PRM Table 5-27).
    if (Round != BRIG_ROUND_NONE)
      return BadRounding();
    if (FloatD)
      R = Builder.CreateSelect(*X, llvm::ConstantFP::get(DTy, 1.0),
                               llvm::ConstantFP::get(DTy, 0.0));
    else if (DT == BRIG_TYPE_S32 || DT == BRIG_TYPE_S64)
      R = Builder.CreateSExt(*X, DTy);
    else
      R = Builder.CreateZExt(*X, DTy);
  } else if (FloatS && FloatD) {
    const bool Narrowing = typeBits(DT) < typeBits(ST);
    if (!Narrowing && Round != BRIG_ROUND_NONE)
      return BadRounding();
    if (Base && explicitFloatRounding(Round))
      return failInst(I, "rounding modifier '" + llvm::Twine(roundName(Round)) +
                             "' is not allowed by the base profile");
    std::optional<FloatRound> FR =
        floatRounding(B, Round, P.defaultRoundsToZero());
    if (!FR)
      return BadRounding();
    FloatMode M;
    M.Round = *FR;
    M.Ftz = Ftz;
    R = FE.convert(*X, DTy, M);
  } else if (FloatS) {
    // Float to integer: an integral value in the rounding mode, then
    // saturated to the destination (NaN gives 0). The non-saturating forms
    // are undefined out of range; they get the same defined result.
    std::optional<llvm::Intrinsic::ID> Id = integerRounding(Round);
    if (!Id)
      return BadRounding();
    if (Base && *Id != llvm::Intrinsic::trunc)
      return failInst(I, "rounding mode '" + llvm::Twine(roundName(Round)) +
                             "' is not allowed by the base profile");
    const bool Saturating = (Round >= BRIG_ROUND_INTEGER_NEAR_EVEN_SAT &&
                             Round <= BRIG_ROUND_INTEGER_MINUS_INFINITY_SAT) ||
                            Round >= BRIG_ROUND_INTEGER_SIGNALING_NEAR_EVEN_SAT;
    const bool SignalingInexact =
        Round >= BRIG_ROUND_INTEGER_SIGNALING_NEAR_EVEN;
    R = FE.toInt(*X, llvm::cast<llvm::IntegerType>(DTy), isSigned(DT), *Id, Ftz,
                 Saturating, SignalingInexact);
  } else if (FloatD) {
    if (Base && explicitFloatRounding(Round))
      return failInst(I, "rounding modifier '" + llvm::Twine(roundName(Round)) +
                             "' is not allowed by the base profile");
    std::optional<FloatRound> FR =
        floatRounding(B, Round, P.defaultRoundsToZero());
    if (!FR)
      return BadRounding();
    R = FE.fromInt(*X, isSigned(ST), DTy, *FR);
  } else {
    // Integer to integer: chop, or extend by the source's signedness.
    if (Round != BRIG_ROUND_NONE)
      return BadRounding();
    R = isSigned(ST) ? Builder.CreateSExtOrTrunc(*X, DTy)
                     : Builder.CreateZExtOrTrunc(*X, DTy);
  }
  raiseDetected(FE);
  return write(I, 0, R, DT);
}

} // namespace openhsa::finalizer::detail
