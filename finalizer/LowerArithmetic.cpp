//===- finalizer/LowerArithmetic.cpp - Arithmetic, compare, convert
//---------===//
#include "finalizer/KernelLowering.h"

namespace openhsa::finalizer::detail {

std::optional<llvm::Error>
KernelLowering::tryArithmetic(EntryRef<BrigInstBase> I) {
  switch (I->opcode) {
  case BRIG_OPCODE_NOP:
    return llvm::Error::success();
  case BRIG_OPCODE_ADD:
  case BRIG_OPCODE_SUB:
  case BRIG_OPCODE_MUL:
  case BRIG_OPCODE_DIV:
  case BRIG_OPCODE_REM:
  case BRIG_OPCODE_MIN:
  case BRIG_OPCODE_MAX:
  case BRIG_OPCODE_NEG:
  case BRIG_OPCODE_ABS:
  case BRIG_OPCODE_AND:
  case BRIG_OPCODE_OR:
  case BRIG_OPCODE_XOR:
  case BRIG_OPCODE_NOT:
  case BRIG_OPCODE_SHL:
  case BRIG_OPCODE_SHR:
  case BRIG_OPCODE_MOV:
  case BRIG_OPCODE_MAD:
  case BRIG_OPCODE_FMA:
  case BRIG_OPCODE_SQRT:
  case BRIG_OPCODE_CEIL:
  case BRIG_OPCODE_FLOOR:
  case BRIG_OPCODE_RINT:
  case BRIG_OPCODE_TRUNC:
  case BRIG_OPCODE_COPYSIGN:
  case BRIG_OPCODE_MULHI:
  case BRIG_OPCODE_CMOV:
  case BRIG_OPCODE_POPCOUNT:
    return lowerArithmetic(I);
  case BRIG_OPCODE_CMP:
    return lowerCompare(I);
  case BRIG_OPCODE_CVT:
    return lowerConvert(I);
  default:
    return std::nullopt;
  }
}

llvm::Error KernelLowering::lowerArithmetic(EntryRef<BrigInstBase> I) {
  const unsigned T = I->type;
  const unsigned Op = I->opcode;
  if (isPacked(T))
    return failInst(I, "packed types are not supported yet");
  if (I.kind() == BRIG_KIND_INST_MOD) {
    auto Mod = B.code<BrigInstMod>(I.Offset);
    if (Mod->round != BRIG_ROUND_NONE &&
        Mod->round != BRIG_ROUND_FLOAT_DEFAULT &&
        Mod->round != BRIG_ROUND_FLOAT_NEAR_EVEN)
      return failInst(I, "rounding mode '" +
                             llvm::Twine(roundName(Mod->round)) +
                             "' is not supported yet");
    if (Mod->modifier & BRIG_ALU_FTZ)
      return failInst(I, "ftz is not supported yet");
  }
  const bool F = isFloat(T);
  const bool S = isSigned(T);
  auto Src = [&](unsigned Index, unsigned Ty) { return read(I, Index, Ty); };
  Value *R = nullptr;

  switch (Op) {
  case BRIG_OPCODE_MOV: {
    auto A = Src(1, T);
    if (!A)
      return A.takeError();
    R = *A;
    break;
  }
  case BRIG_OPCODE_NEG:
  case BRIG_OPCODE_ABS:
  case BRIG_OPCODE_NOT:
  case BRIG_OPCODE_SQRT:
  case BRIG_OPCODE_CEIL:
  case BRIG_OPCODE_FLOOR:
  case BRIG_OPCODE_RINT:
  case BRIG_OPCODE_TRUNC:
  case BRIG_OPCODE_POPCOUNT: {
    const unsigned SrcT = Op == BRIG_OPCODE_POPCOUNT
                              ? B.code<BrigInstSourceType>(I.Offset)->sourceType
                              : T;
    auto A = Src(1, SrcT);
    if (!A)
      return A.takeError();
    llvm::Type *Ty = (*A)->getType();
    switch (Op) {
    case BRIG_OPCODE_NEG:
      R = F ? Builder.CreateFNeg(*A) : Builder.CreateNeg(*A);
      break;
    case BRIG_OPCODE_ABS:
      R = F ? Builder.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, *A)
            : Builder.CreateBinaryIntrinsic(llvm::Intrinsic::abs, *A,
                                            Builder.getFalse());
      break;
    case BRIG_OPCODE_NOT:
      R = Builder.CreateNot(*A);
      break;
    case BRIG_OPCODE_SQRT:
      R = Builder.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, *A);
      break;
    case BRIG_OPCODE_CEIL:
      R = Builder.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, *A);
      break;
    case BRIG_OPCODE_FLOOR:
      R = Builder.CreateUnaryIntrinsic(llvm::Intrinsic::floor, *A);
      break;
    case BRIG_OPCODE_RINT:
      R = Builder.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, *A);
      break;
    case BRIG_OPCODE_TRUNC:
      R = Builder.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, *A);
      break;
    case BRIG_OPCODE_POPCOUNT:
      R = Builder.CreateZExtOrTrunc(
          Builder.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, *A),
          llvmType(T));
      break;
    }
    (void)Ty;
    break;
  }
  case BRIG_OPCODE_MAD:
  case BRIG_OPCODE_FMA:
  case BRIG_OPCODE_CMOV: {
    const bool Cmov = Op == BRIG_OPCODE_CMOV;
    auto A = Src(1, Cmov ? unsigned(BRIG_TYPE_B1) : T);
    auto Bv = Src(2, T);
    auto C = Src(3, T);
    if (!A)
      return A.takeError();
    if (!Bv)
      return Bv.takeError();
    if (!C)
      return C.takeError();
    if (Cmov)
      R = Builder.CreateSelect(*A, *Bv, *C);
    else if (F)
      // mad on floats may fuse or not; fma must fuse. Both fuse here.
      R = Builder.CreateIntrinsic(llvm::Intrinsic::fma, {(*A)->getType()},
                                  {*A, *Bv, *C});
    else
      R = Builder.CreateAdd(Builder.CreateMul(*A, *Bv), *C);
    break;
  }
  default: {
    // Binary operations. Shift amounts are u32 whatever the data type.
    const bool Shift = Op == BRIG_OPCODE_SHL || Op == BRIG_OPCODE_SHR;
    auto A = Src(1, T);
    auto Bv = Src(2, Shift ? unsigned(BRIG_TYPE_U32) : T);
    if (!A)
      return A.takeError();
    if (!Bv)
      return Bv.takeError();
    Value *X = *A, *Y = *Bv;
    llvm::Type *Ty = X->getType();
    switch (Op) {
    case BRIG_OPCODE_ADD:
      R = F ? Builder.CreateFAdd(X, Y) : Builder.CreateAdd(X, Y);
      break;
    case BRIG_OPCODE_SUB:
      R = F ? Builder.CreateFSub(X, Y) : Builder.CreateSub(X, Y);
      break;
    case BRIG_OPCODE_MUL:
      R = F ? Builder.CreateFMul(X, Y) : Builder.CreateMul(X, Y);
      break;
    case BRIG_OPCODE_MULHI: {
      unsigned W = Ty->getIntegerBitWidth();
      auto *Wide = llvm::Type::getIntNTy(Ctx, 2 * W);
      Value *P = Builder.CreateMul(
          S ? Builder.CreateSExt(X, Wide) : Builder.CreateZExt(X, Wide),
          S ? Builder.CreateSExt(Y, Wide) : Builder.CreateZExt(Y, Wide));
      R = Builder.CreateTrunc(Builder.CreateLShr(P, W), Ty);
      break;
    }
    case BRIG_OPCODE_DIV:
    case BRIG_OPCODE_REM: {
      if (F) {
        R = Op == BRIG_OPCODE_DIV ? Builder.CreateFDiv(X, Y)
                                  : Builder.CreateFRem(X, Y);
        break;
      }
      // HSAIL leaves x/0 (and signed MIN/-1) undefined; the host traps on
      // them. Substitute a divisor of 1 so the kernel cannot crash.
      Value *Zero = llvm::ConstantInt::get(Ty, 0);
      Value *Bad = Builder.CreateICmpEQ(Y, Zero);
      if (S) {
        Value *Min = llvm::ConstantInt::get(
            Ty, llvm::APInt::getSignedMinValue(Ty->getIntegerBitWidth()));
        Bad = Builder.CreateOr(
            Bad,
            Builder.CreateAnd(Builder.CreateICmpEQ(X, Min),
                              Builder.CreateICmpEQ(
                                  Y, llvm::ConstantInt::getAllOnesValue(Ty))));
      }
      Value *SafeY =
          Builder.CreateSelect(Bad, llvm::ConstantInt::get(Ty, 1), Y);
      if (Op == BRIG_OPCODE_DIV)
        R = S ? Builder.CreateSDiv(X, SafeY) : Builder.CreateUDiv(X, SafeY);
      else
        R = S ? Builder.CreateSRem(X, SafeY) : Builder.CreateURem(X, SafeY);
      break;
    }
    case BRIG_OPCODE_MIN:
    case BRIG_OPCODE_MAX: {
      const bool Max = Op == BRIG_OPCODE_MAX;
      llvm::Intrinsic::ID Id =
          F   ? (Max ? llvm::Intrinsic::maxnum : llvm::Intrinsic::minnum)
          : S ? (Max ? llvm::Intrinsic::smax : llvm::Intrinsic::smin)
              : (Max ? llvm::Intrinsic::umax : llvm::Intrinsic::umin);
      R = Builder.CreateBinaryIntrinsic(Id, X, Y);
      break;
    }
    case BRIG_OPCODE_COPYSIGN:
      R = Builder.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, X, Y);
      break;
    case BRIG_OPCODE_AND:
      R = Builder.CreateAnd(X, Y);
      break;
    case BRIG_OPCODE_OR:
      R = Builder.CreateOr(X, Y);
      break;
    case BRIG_OPCODE_XOR:
      R = Builder.CreateXor(X, Y);
      break;
    case BRIG_OPCODE_SHL:
    case BRIG_OPCODE_SHR: {
      // Only the low log2(bits) bits of the amount count (PRM 5.8).
      unsigned W = Ty->getIntegerBitWidth();
      Value *Amount = Builder.CreateZExtOrTrunc(
          Builder.CreateAnd(Y, llvm::ConstantInt::get(Y->getType(), W - 1)),
          Ty);
      R = Op == BRIG_OPCODE_SHL ? Builder.CreateShl(X, Amount)
          : S                   ? Builder.CreateAShr(X, Amount)
                                : Builder.CreateLShr(X, Amount);
      break;
    }
    default:
      return failInst(I, "not supported by this finalizer yet");
    }
  }
  }
  return write(I, 0, R, T);
}

llvm::Error KernelLowering::lowerCompare(EntryRef<BrigInstBase> I) {
  auto C = B.code<BrigInstCmp>(I.Offset);
  if (!C)
    return failInst(I, "malformed compare");
  const unsigned SrcT = C->sourceType;
  if (isPacked(SrcT) || isPacked(I->type))
    return failInst(I, "packed compares are not supported yet");
  if (C->modifier & BRIG_ALU_FTZ)
    return failInst(I, "ftz is not supported yet");
  auto A = read(I, 1, SrcT);
  auto Bv = read(I, 2, SrcT);
  if (!A)
    return A.takeError();
  if (!Bv)
    return Bv.takeError();
  Value *Cond = nullptr;
  if (isFloat(SrcT)) {
    using P = llvm::CmpInst::Predicate;
    P Pred;
    switch (C->compare) {
    case BRIG_COMPARE_EQ:
    case BRIG_COMPARE_SEQ:
      Pred = P::FCMP_OEQ;
      break;
    case BRIG_COMPARE_NE:
    case BRIG_COMPARE_SNE:
      Pred = P::FCMP_ONE;
      break;
    case BRIG_COMPARE_LT:
    case BRIG_COMPARE_SLT:
      Pred = P::FCMP_OLT;
      break;
    case BRIG_COMPARE_LE:
    case BRIG_COMPARE_SLE:
      Pred = P::FCMP_OLE;
      break;
    case BRIG_COMPARE_GT:
    case BRIG_COMPARE_SGT:
      Pred = P::FCMP_OGT;
      break;
    case BRIG_COMPARE_GE:
    case BRIG_COMPARE_SGE:
      Pred = P::FCMP_OGE;
      break;
    case BRIG_COMPARE_EQU:
    case BRIG_COMPARE_SEQU:
      Pred = P::FCMP_UEQ;
      break;
    case BRIG_COMPARE_NEU:
    case BRIG_COMPARE_SNEU:
      Pred = P::FCMP_UNE;
      break;
    case BRIG_COMPARE_LTU:
    case BRIG_COMPARE_SLTU:
      Pred = P::FCMP_ULT;
      break;
    case BRIG_COMPARE_LEU:
    case BRIG_COMPARE_SLEU:
      Pred = P::FCMP_ULE;
      break;
    case BRIG_COMPARE_GTU:
    case BRIG_COMPARE_SGTU:
      Pred = P::FCMP_UGT;
      break;
    case BRIG_COMPARE_GEU:
    case BRIG_COMPARE_SGEU:
      Pred = P::FCMP_UGE;
      break;
    case BRIG_COMPARE_NUM:
    case BRIG_COMPARE_SNUM:
      Pred = P::FCMP_ORD;
      break;
    case BRIG_COMPARE_NAN:
    case BRIG_COMPARE_SNAN:
      Pred = P::FCMP_UNO;
      break;
    default:
      return failInst(I, "unknown comparison");
    }
    Cond = Builder.CreateFCmp(Pred, *A, *Bv);
  } else {
    const bool S = isSigned(SrcT);
    using P = llvm::CmpInst::Predicate;
    P Pred;
    switch (C->compare) {
    case BRIG_COMPARE_EQ:
      Pred = P::ICMP_EQ;
      break;
    case BRIG_COMPARE_NE:
      Pred = P::ICMP_NE;
      break;
    case BRIG_COMPARE_LT:
      Pred = S ? P::ICMP_SLT : P::ICMP_ULT;
      break;
    case BRIG_COMPARE_LE:
      Pred = S ? P::ICMP_SLE : P::ICMP_ULE;
      break;
    case BRIG_COMPARE_GT:
      Pred = S ? P::ICMP_SGT : P::ICMP_UGT;
      break;
    case BRIG_COMPARE_GE:
      Pred = S ? P::ICMP_SGE : P::ICMP_UGE;
      break;
    default:
      return failInst(I, "comparison not valid for integers");
    }
    Cond = Builder.CreateICmp(Pred, *A, *Bv);
  }
  // The destination gets 1/0 (b1), all ones/zero (integers) or 1.0/0.0.
  const unsigned DT = I->type;
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
  if (isPacked(DT) || isPacked(ST))
    return failInst(I, "packed conversions are not supported yet");
  if (C->modifier & BRIG_ALU_FTZ)
    return failInst(I, "ftz is not supported yet");
  auto A = read(I, 1, ST);
  if (!A)
    return A.takeError();
  Value *X = *A;
  llvm::Type *DTy = llvmType(DT);
  const bool DB1 = (DT & BRIG_TYPE_BASE_MASK) == BRIG_TYPE_B1;
  Value *R = nullptr;
  const unsigned Round = C->round;
  auto RoundFloat = [&](Value *V) -> llvm::Expected<Value *> {
    switch (Round) {
    case BRIG_ROUND_NONE:
    case BRIG_ROUND_INTEGER_ZERO:
    case BRIG_ROUND_INTEGER_ZERO_SAT:
      return Builder.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, V);
    case BRIG_ROUND_INTEGER_NEAR_EVEN:
    case BRIG_ROUND_INTEGER_NEAR_EVEN_SAT:
      return Builder.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, V);
    case BRIG_ROUND_INTEGER_PLUS_INFINITY:
    case BRIG_ROUND_INTEGER_PLUS_INFINITY_SAT:
      return Builder.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, V);
    case BRIG_ROUND_INTEGER_MINUS_INFINITY:
    case BRIG_ROUND_INTEGER_MINUS_INFINITY_SAT:
      return Builder.CreateUnaryIntrinsic(llvm::Intrinsic::floor, V);
    default:
      return failInst(I, "rounding mode '" + llvm::Twine(roundName(Round)) +
                             "' is not supported yet");
    }
  };
  if (DB1) {
    R = isFloat(ST)
            ? Builder.CreateFCmpUNE(X, llvm::ConstantFP::get(X->getType(), 0.0))
            : Builder.CreateICmpNE(X, llvm::ConstantInt::get(X->getType(), 0));
  } else if (isFloat(ST) && isFloat(DT)) {
    if (Round != BRIG_ROUND_NONE && Round != BRIG_ROUND_FLOAT_DEFAULT &&
        Round != BRIG_ROUND_FLOAT_NEAR_EVEN) {
      if (typeBits(DT) < typeBits(ST))
        return failInst(I, "rounding mode '" + llvm::Twine(roundName(Round)) +
                               "' is not supported yet");
      // Integer rounding of a float to a float of the same or larger size.
      auto V = RoundFloat(X);
      if (!V)
        return V.takeError();
      X = *V;
    }
    R = Builder.CreateFPCast(X, DTy);
  } else if (isFloat(ST)) {
    // Float to integer: round as asked, then convert saturating (NaN -> 0).
    // The saturating form also gives the non-saturating one a defined
    // result where HSAIL leaves it undefined.
    auto V = RoundFloat(X);
    if (!V)
      return V.takeError();
    R = Builder.CreateIntrinsic(isSigned(DT) ? llvm::Intrinsic::fptosi_sat
                                             : llvm::Intrinsic::fptoui_sat,
                                {DTy, X->getType()}, {*V});
  } else if (isFloat(DT)) {
    if (Round != BRIG_ROUND_NONE && Round != BRIG_ROUND_FLOAT_DEFAULT &&
        Round != BRIG_ROUND_FLOAT_NEAR_EVEN)
      return failInst(I, "rounding mode '" + llvm::Twine(roundName(Round)) +
                             "' is not supported yet");
    R = isSigned(ST) ? Builder.CreateSIToFP(X, DTy)
                     : Builder.CreateUIToFP(X, DTy);
  } else {
    // Integer to integer: truncate, or extend by the source's signedness.
    R = isSigned(ST) ? Builder.CreateSExtOrTrunc(X, DTy)
                     : Builder.CreateZExtOrTrunc(X, DTy);
    if ((ST & BRIG_TYPE_BASE_MASK) == BRIG_TYPE_B1)
      R = Builder.CreateZExtOrTrunc(X, DTy);
  }
  return write(I, 0, R, DT);
}

} // namespace openhsa::finalizer::detail
