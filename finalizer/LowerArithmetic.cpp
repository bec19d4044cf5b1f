//===- finalizer/LowerArithmetic.cpp - Integer, bit, copy, packed ---------===//
//
// PRM chapter 5 for everything that is not floating-point arithmetic
// (LowerFloat.cpp), compare or conversion (LowerConvert.cpp), lda
// (LowerMemory.cpp) or segment checking and conversion: integer (5.2-5.5),
// bit (5.6), bit string (5.7), copy (5.8), packed data (5.9), cmov (5.10)
// and multimedia (5.15) instructions. Packed operands are taken apart into
// elements and each element is computed as the scalar instruction would.
//
//===----------------------------------------------------------------------===//
#include "finalizer/LowerArithmetic.h"

namespace openhsa::finalizer::detail {

//===----------------------------------------------------------------------===//
// Shared helpers (LowerArithmetic.h)
//===----------------------------------------------------------------------===//

AluModifiers aluModifiers(const BrigModule &B, EntryRef<BrigInstBase> I) {
  AluModifiers M;
  switch (I.kind()) {
  case BRIG_KIND_INST_MOD: {
    auto X = B.code<BrigInstMod>(I.Offset);
    M.Ftz = X->modifier & BRIG_ALU_FTZ;
    M.Round = X->round;
    M.Pack = X->pack;
    break;
  }
  case BRIG_KIND_INST_CMP: {
    auto X = B.code<BrigInstCmp>(I.Offset);
    M.Ftz = X->modifier & BRIG_ALU_FTZ;
    M.Pack = X->pack;
    break;
  }
  case BRIG_KIND_INST_CVT: {
    auto X = B.code<BrigInstCvt>(I.Offset);
    M.Ftz = X->modifier & BRIG_ALU_FTZ;
    M.Round = X->round;
    break;
  }
  default:
    break;
  }
  return M;
}

bool baseProfile(const BrigModule &B) {
  auto MD = B.moduleDirective();
  return MD && MD->profile == BRIG_PROFILE_BASE;
}

std::optional<FloatRound> floatRounding(const BrigModule &B, unsigned Round,
                                        bool ProgramZero) {
  switch (Round) {
  case BRIG_ROUND_NONE:
  case BRIG_ROUND_FLOAT_DEFAULT: {
    auto MD = B.moduleDirective();
    const unsigned Module =
        MD ? unsigned(MD->defaultFloatRound) : unsigned(BRIG_ROUND_NONE);
    if (Module == BRIG_ROUND_FLOAT_ZERO)
      return FloatRound::Zero;
    if (Module == BRIG_ROUND_FLOAT_NEAR_EVEN)
      return FloatRound::NearEven;
    return ProgramZero ? FloatRound::Zero : FloatRound::NearEven;
  }
  case BRIG_ROUND_FLOAT_NEAR_EVEN:
    return FloatRound::NearEven;
  case BRIG_ROUND_FLOAT_ZERO:
    return FloatRound::Zero;
  case BRIG_ROUND_FLOAT_PLUS_INFINITY:
    return FloatRound::Up;
  case BRIG_ROUND_FLOAT_MINUS_INFINITY:
    return FloatRound::Down;
  default:
    return std::nullopt;
  }
}

llvm::Type *elementLlvmType(llvm::LLVMContext &C, unsigned T) {
  switch (elementType(T)) {
  case BRIG_TYPE_F16:
    return llvm::Type::getHalfTy(C);
  case BRIG_TYPE_F32:
    return llvm::Type::getFloatTy(C);
  case BRIG_TYPE_F64:
    return llvm::Type::getDoubleTy(C);
  }
  return llvm::Type::getIntNTy(C, typeBits(elementType(T)));
}

llvm::SmallVector<llvm::Value *, 16> splitPacked(llvm::IRBuilder<> &B,
                                                 llvm::Value *V, unsigned T) {
  const unsigned Bits = typeBits(elementType(T));
  llvm::Type *ET = elementLlvmType(B.getContext(), T);
  llvm::SmallVector<llvm::Value *, 16> Elements;
  for (unsigned E = 0, N = elementCount(T); E < N; ++E) {
    llvm::Value *X =
        B.CreateTrunc(B.CreateLShr(V, E * Bits), B.getIntNTy(Bits));
    Elements.push_back(ET->isIntegerTy() ? X : B.CreateBitCast(X, ET));
  }
  return Elements;
}

llvm::Value *joinPacked(llvm::IRBuilder<> &B,
                        llvm::ArrayRef<llvm::Value *> Elements, unsigned T) {
  const unsigned Bits = typeBits(elementType(T));
  llvm::Type *IT = B.getIntNTy(typeBytes(T) * 8);
  llvm::Value *R = llvm::ConstantInt::get(IT, 0);
  for (unsigned E = 0; E < Elements.size(); ++E) {
    llvm::Value *X = Elements[E];
    if (!X->getType()->isIntegerTy())
      X = B.CreateBitCast(X, B.getIntNTy(Bits));
    R = B.CreateOr(R, B.CreateShl(B.CreateZExt(X, IT), E * Bits));
  }
  return R;
}

bool packSaturates(unsigned Pack) {
  return Pack == BRIG_PACK_PPSAT || Pack == BRIG_PACK_PSSAT ||
         Pack == BRIG_PACK_SPSAT || Pack == BRIG_PACK_SSSAT ||
         Pack == BRIG_PACK_SSAT || Pack == BRIG_PACK_PSAT;
}

llvm::Value *
mapPacked(llvm::IRBuilder<> &B, unsigned T, unsigned Pack,
          llvm::ArrayRef<llvm::Value *> Srcs, llvm::Value *OldDest,
          llvm::function_ref<llvm::Value *(llvm::ArrayRef<llvm::Value *>)> Fn) {
  llvm::SmallVector<llvm::SmallVector<llvm::Value *, 16>, 3> Split;
  for (llvm::Value *S : Srcs)
    Split.push_back(splitPacked(B, S, T));
  const bool BroadcastFirst = Pack == BRIG_PACK_SP || Pack == BRIG_PACK_SPSAT;
  const bool BroadcastSecond = Pack == BRIG_PACK_PS || Pack == BRIG_PACK_PSSAT;
  const unsigned N = packScalarOnly(Pack) ? 1 : elementCount(T);
  llvm::SmallVector<llvm::Value *, 16> Result =
      OldDest && packScalarOnly(Pack)
          ? splitPacked(B, OldDest, T)
          : llvm::SmallVector<llvm::Value *, 16>(elementCount(T), nullptr);
  for (unsigned E = 0; E < N; ++E) {
    llvm::SmallVector<llvm::Value *, 3> Args;
    for (unsigned S = 0; S < Split.size(); ++S) {
      const bool Broadcast =
          (S == 0 && BroadcastFirst) || (S == 1 && BroadcastSecond);
      Args.push_back(Split[S][Broadcast ? 0 : E]);
    }
    Result[E] = Fn(Args);
  }
  for (llvm::Value *&E : Result)
    if (!E) // s/ss without an old destination value: zero.
      E = llvm::Constant::getNullValue(elementLlvmType(B.getContext(), T));
  return joinPacked(B, Result, T);
}

//===----------------------------------------------------------------------===//
// Integer element operations
//===----------------------------------------------------------------------===//

namespace {

using llvm::Value;

/// Integer operation Op on elements (or scalars) of one width.
Value *integerOp(llvm::IRBuilder<> &B, unsigned Op, bool Signed, bool Sat,
                 llvm::ArrayRef<Value *> A, Value *Amount) {
  llvm::Type *Ty = A[0]->getType();
  const unsigned W = Ty->getIntegerBitWidth();
  auto C = [&](const llvm::APInt &V) { return llvm::ConstantInt::get(Ty, V); };
  switch (Op) {
  case BRIG_OPCODE_ADD:
    if (Sat)
      return B.CreateBinaryIntrinsic(Signed ? llvm::Intrinsic::sadd_sat
                                            : llvm::Intrinsic::uadd_sat,
                                     A[0], A[1]);
    return B.CreateAdd(A[0], A[1]);
  case BRIG_OPCODE_SUB:
    if (Sat)
      return B.CreateBinaryIntrinsic(Signed ? llvm::Intrinsic::ssub_sat
                                            : llvm::Intrinsic::usub_sat,
                                     A[0], A[1]);
    return B.CreateSub(A[0], A[1]);
  case BRIG_OPCODE_MUL: {
    if (!Sat)
      return B.CreateMul(A[0], A[1]);
    Value *WithOv =
        B.CreateBinaryIntrinsic(Signed ? llvm::Intrinsic::smul_with_overflow
                                       : llvm::Intrinsic::umul_with_overflow,
                                A[0], A[1]);
    Value *Product = B.CreateExtractValue(WithOv, 0);
    Value *Over = B.CreateExtractValue(WithOv, 1);
    Value *Limit = Signed
                       ? B.CreateSelect(B.CreateICmpSLT(B.CreateXor(A[0], A[1]),
                                                        C({W, 0})),
                                        C(llvm::APInt::getSignedMinValue(W)),
                                        C(llvm::APInt::getSignedMaxValue(W)))
                       : C(llvm::APInt::getMaxValue(W));
    return B.CreateSelect(Over, Limit, Product);
  }
  case BRIG_OPCODE_MULHI: {
    auto *Wide = B.getIntNTy(2 * W);
    Value *P = B.CreateMul(
        Signed ? B.CreateSExt(A[0], Wide) : B.CreateZExt(A[0], Wide),
        Signed ? B.CreateSExt(A[1], Wide) : B.CreateZExt(A[1], Wide));
    return B.CreateTrunc(B.CreateLShr(P, W), Ty);
  }
  case BRIG_OPCODE_DIV:
  case BRIG_OPCODE_REM: {
    // x/0 and signed MIN/-1 are undefined in HSAIL and trap on the host:
    // a divisor of 1 keeps the kernel alive (and makes rem(MIN, -1) the 0
    // the PRM asks for).
    Value *Bad = B.CreateICmpEQ(A[1], C({W, 0}));
    if (Signed)
      Bad = B.CreateOr(
          Bad, B.CreateAnd(
                   B.CreateICmpEQ(A[0], C(llvm::APInt::getSignedMinValue(W))),
                   B.CreateICmpEQ(A[1], C(llvm::APInt::getAllOnes(W)))));
    Value *Divisor = B.CreateSelect(Bad, C({W, 1}), A[1]);
    if (Op == BRIG_OPCODE_DIV)
      return Signed ? B.CreateSDiv(A[0], Divisor) : B.CreateUDiv(A[0], Divisor);
    return Signed ? B.CreateSRem(A[0], Divisor) : B.CreateURem(A[0], Divisor);
  }
  case BRIG_OPCODE_MIN:
    return B.CreateBinaryIntrinsic(
        Signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, A[0], A[1]);
  case BRIG_OPCODE_MAX:
    return B.CreateBinaryIntrinsic(
        Signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, A[0], A[1]);
  case BRIG_OPCODE_NEG:
    if (Sat) // Only the packed forms may saturate: -MIN is MAX.
      return B.CreateBinaryIntrinsic(llvm::Intrinsic::ssub_sat, C({W, 0}),
                                     A[0]);
    return B.CreateSub(C({W, 0}), A[0]);
  case BRIG_OPCODE_ABS: {
    Value *R = B.CreateBinaryIntrinsic(llvm::Intrinsic::abs, A[0],
                                       B.getFalse()); // abs(MIN) is MIN.
    if (Sat)
      R = B.CreateSelect(B.CreateICmpSLT(R, C({W, 0})),
                         C(llvm::APInt::getSignedMaxValue(W)), R);
    return R;
  }
  case BRIG_OPCODE_AND:
    return B.CreateAnd(A[0], A[1]);
  case BRIG_OPCODE_OR:
    return B.CreateOr(A[0], A[1]);
  case BRIG_OPCODE_XOR:
    return B.CreateXor(A[0], A[1]);
  case BRIG_OPCODE_NOT:
    return B.CreateNot(A[0]);
  case BRIG_OPCODE_MAD:
    return B.CreateAdd(B.CreateMul(A[0], A[1]), A[2]);
  case BRIG_OPCODE_CARRY:
    return B.CreateZExt(B.CreateICmpULT(B.CreateAdd(A[0], A[1]), A[0]), Ty);
  case BRIG_OPCODE_BORROW:
    return B.CreateZExt(B.CreateICmpULT(A[0], A[1]), Ty);
  case BRIG_OPCODE_MUL24:
  case BRIG_OPCODE_MUL24HI:
  case BRIG_OPCODE_MAD24:
  case BRIG_OPCODE_MAD24HI: {
    // PRM 5.4: the 24 low bits of each source as a signed or unsigned
    // value, a 48-bit product.
    auto *I64 = B.getInt64Ty();
    auto Low24 = [&](Value *V) {
      return Signed ? B.CreateSExt(B.CreateAShr(B.CreateShl(V, 8), 8), I64)
                    : B.CreateZExt(B.CreateAnd(V, C({W, 0xffffff})), I64);
    };
    Value *P = B.CreateMul(Low24(A[0]), Low24(A[1]));
    const bool Hi = Op == BRIG_OPCODE_MUL24HI || Op == BRIG_OPCODE_MAD24HI;
    Value *R = B.CreateTrunc(
        Hi ? (Signed ? B.CreateAShr(P, 32) : B.CreateLShr(P, 32)) : P, Ty);
    if (Op == BRIG_OPCODE_MAD24 || Op == BRIG_OPCODE_MAD24HI)
      R = B.CreateAdd(R, A[2]);
    return R;
  }
  case BRIG_OPCODE_SHL:
  case BRIG_OPCODE_SHR: {
    // Only the low log2(width) bits of the amount count (PRM 5.5).
    Value *N = B.CreateZExtOrTrunc(
        B.CreateAnd(Amount, llvm::ConstantInt::get(Amount->getType(), W - 1)),
        Ty);
    return Op == BRIG_OPCODE_SHL ? B.CreateShl(A[0], N)
           : Signed              ? B.CreateAShr(A[0], N)
                                 : B.CreateLShr(A[0], N);
  }
  }
  return nullptr;
}

unsigned sourceCount(unsigned Op) {
  switch (Op) {
  case BRIG_OPCODE_NEG:
  case BRIG_OPCODE_ABS:
  case BRIG_OPCODE_NOT:
  case BRIG_OPCODE_MOV:
    return 1;
  case BRIG_OPCODE_MAD:
  case BRIG_OPCODE_MAD24:
  case BRIG_OPCODE_MAD24HI:
    return 3;
  default:
    return 2;
  }
}

/// |A - B| of unsigned values.
Value *absDiff(llvm::IRBuilder<> &B, Value *X, Value *Y) {
  return B.CreateSelect(B.CreateICmpULT(X, Y), B.CreateSub(Y, X),
                        B.CreateSub(X, Y));
}

bool isOpaque(unsigned T) {
  switch (T) {
  case BRIG_TYPE_ROIMG:
  case BRIG_TYPE_WOIMG:
  case BRIG_TYPE_RWIMG:
  case BRIG_TYPE_SAMP:
  case BRIG_TYPE_SIG32:
  case BRIG_TYPE_SIG64:
    return true;
  }
  return false;
}

} // namespace

//===----------------------------------------------------------------------===//
// The family
//===----------------------------------------------------------------------===//

std::optional<llvm::Error>
KernelLowering::tryArithmetic(EntryRef<BrigInstBase> I) {
  switch (I->opcode) {
  case BRIG_OPCODE_NOP:
    return llvm::Error::success();
  case BRIG_OPCODE_ABS:
  case BRIG_OPCODE_ADD:
  case BRIG_OPCODE_BORROW:
  case BRIG_OPCODE_CARRY:
  case BRIG_OPCODE_DIV:
  case BRIG_OPCODE_MAX:
  case BRIG_OPCODE_MIN:
  case BRIG_OPCODE_MUL:
  case BRIG_OPCODE_MULHI:
  case BRIG_OPCODE_NEG:
  case BRIG_OPCODE_REM:
  case BRIG_OPCODE_SUB:
  case BRIG_OPCODE_MAD:
  case BRIG_OPCODE_MAD24:
  case BRIG_OPCODE_MAD24HI:
  case BRIG_OPCODE_MUL24:
  case BRIG_OPCODE_MUL24HI:
  case BRIG_OPCODE_SHL:
  case BRIG_OPCODE_SHR:
  case BRIG_OPCODE_AND:
  case BRIG_OPCODE_OR:
  case BRIG_OPCODE_XOR:
  case BRIG_OPCODE_NOT:
  case BRIG_OPCODE_POPCOUNT:
  case BRIG_OPCODE_BITEXTRACT:
  case BRIG_OPCODE_BITINSERT:
  case BRIG_OPCODE_BITMASK:
  case BRIG_OPCODE_BITREV:
  case BRIG_OPCODE_BITSELECT:
  case BRIG_OPCODE_FIRSTBIT:
  case BRIG_OPCODE_LASTBIT:
  case BRIG_OPCODE_COMBINE:
  case BRIG_OPCODE_EXPAND:
  case BRIG_OPCODE_MOV:
  case BRIG_OPCODE_SHUFFLE:
  case BRIG_OPCODE_UNPACKHI:
  case BRIG_OPCODE_UNPACKLO:
  case BRIG_OPCODE_PACK:
  case BRIG_OPCODE_UNPACK:
  case BRIG_OPCODE_CMOV:
  case BRIG_OPCODE_BITALIGN:
  case BRIG_OPCODE_BYTEALIGN:
  case BRIG_OPCODE_LERP:
  case BRIG_OPCODE_PACKCVT:
  case BRIG_OPCODE_UNPACKCVT:
  case BRIG_OPCODE_SAD:
  case BRIG_OPCODE_SADHI:
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
  const unsigned Op = I->opcode;
  const unsigned T = I->type;
  const AluModifiers Mods = aluModifiers(B, I);
  const unsigned SrcT =
      I.kind() == BRIG_KIND_INST_SOURCE_TYPE
          ? unsigned(B.code<BrigInstSourceType>(I.Offset)->sourceType)
          : T;
  if (baseProfile(B) &&
      (elementType(T) == BRIG_TYPE_F64 || elementType(SrcT) == BRIG_TYPE_F64))
    return failInst(I, "f64 is not supported by the base profile");
  auto *I32 = Builder.getInt32Ty();
  auto Src = [&](unsigned Index, unsigned Ty) { return read(I, Index, Ty); };
  // Reads the operands (index, type) into Out.
  auto ReadAll = [&](llvm::ArrayRef<std::pair<unsigned, unsigned>> Operands,
                     llvm::SmallVectorImpl<Value *> &Out) -> llvm::Error {
    for (auto [Index, Ty] : Operands) {
      auto V = Src(Index, Ty);
      if (!V)
        return V.takeError();
      Out.push_back(*V);
    }
    return llvm::Error::success();
  };
  llvm::SmallVector<Value *, 5> S;

  switch (Op) {
  //===--- Copy (5.8) and cmov (5.10) -------------------------------------===//
  case BRIG_OPCODE_MOV: {
    // Opaque handles are 64-bit values.
    const unsigned MT = isOpaque(T) ? unsigned(BRIG_TYPE_B64) : T;
    if (auto Err = ReadAll({{1, MT}}, S))
      return Err;
    return write(I, 0, S[0], MT);
  }
  case BRIG_OPCODE_CMOV: {
    if (!isPacked(T)) {
      if (auto Err = ReadAll({{1, BRIG_TYPE_B1}, {2, T}, {3, T}}, S))
        return Err;
      return write(I, 0, Builder.CreateSelect(S[0], S[1], S[2]), T);
    }
    // Packed: per element, a nonzero element of src0 selects src1's.
    if (auto Err = ReadAll({{1, T}, {2, T}, {3, T}}, S))
      return Err;
    const unsigned Bits = typeBits(elementType(T));
    llvm::SmallVector<Value *, 16> Mask = splitPacked(Builder, S[0], T);
    llvm::SmallVector<Value *, 16> X = splitPacked(Builder, S[1], T);
    llvm::SmallVector<Value *, 16> Y = splitPacked(Builder, S[2], T);
    for (unsigned E = 0; E < X.size(); ++E) {
      Value *M = Mask[E];
      if (!M->getType()->isIntegerTy())
        M = Builder.CreateBitCast(M, Builder.getIntNTy(Bits));
      X[E] = Builder.CreateSelect(Builder.CreateIsNotNull(M), X[E], Y[E]);
    }
    return write(I, 0, joinPacked(Builder, X, T), T);
  }
  case BRIG_OPCODE_COMBINE:
  case BRIG_OPCODE_EXPAND: {
    // combine: dest, (src0, ...); expand: (dest0, ...), src0. The list's
    // first element holds the least significant bits.
    const bool Combine = Op == BRIG_OPCODE_COMBINE;
    const unsigned WideT = Combine ? T : SrcT;
    const unsigned PartT = Combine ? SrcT : T;
    const unsigned PartBits = typeBits(PartT), WideBits = typeBits(WideT);
    auto List =
        B.operand<BrigOperandOperandList>(operandOffset(I, Combine ? 1 : 0));
    if (!List)
      return failInst(I, "expected a vector operand");
    auto Offsets = B.offsetList(List->elements);
    if (Offsets.size() * PartBits != WideBits)
      return failInst(I, "vector operand does not match the types' sizes");
    auto *WideTy = Builder.getIntNTy(WideBits);
    auto *PartTy = Builder.getIntNTy(PartBits);
    if (Combine) {
      Value *R = llvm::ConstantInt::get(WideTy, 0);
      for (unsigned J = 0; J < Offsets.size(); ++J) {
        Value *Part = nullptr;
        if (auto Reg = B.operand<BrigOperandRegister>(Offsets[J])) {
          RegisterSlot Slot = registerSlot(*Reg);
          Part = Builder.CreateZExtOrTrunc(
              Builder.CreateLoad(Slot.Ty, Slot.Ptr), PartTy);
        } else if (auto C = B.operand<BrigOperandConstantBytes>(Offsets[J])) {
          llvm::StringRef Bytes = B.string(C->bytes);
          llvm::APInt V(PartBits, 0);
          for (unsigned K = 0; K < std::min<size_t>(Bytes.size(), PartBits / 8);
               ++K)
            V.insertBits(uint64_t(uint8_t(Bytes[K])), K * 8, 8);
          Part = llvm::ConstantInt::get(PartTy, V);
        } else {
          return failInst(I, "vector element is not a register or immediate");
        }
        R = Builder.CreateOr(
            R,
            Builder.CreateShl(Builder.CreateZExt(Part, WideTy), J * PartBits));
      }
      return write(I, 0, R, WideT);
    }
    if (auto Err = ReadAll({{1, WideT}}, S))
      return Err;
    for (unsigned J = 0; J < Offsets.size(); ++J) {
      auto Reg = B.operand<BrigOperandRegister>(Offsets[J]);
      if (!Reg)
        return failInst(I, "vector destination element is not a register");
      RegisterSlot Slot = registerSlot(*Reg);
      if (Slot.Ty->getBitWidth() < PartBits)
        return failInst(I, "destination register is narrower than the "
                           "result");
      Value *Part =
          Builder.CreateTrunc(Builder.CreateLShr(S[0], J * PartBits), PartTy);
      Builder.CreateStore(Builder.CreateZExt(Part, Slot.Ty), Slot.Ptr);
    }
    return llvm::Error::success();
  }

  //===--- Packed data (5.9) ----------------------------------------------===//
  case BRIG_OPCODE_SHUFFLE: {
    if (auto Err = ReadAll({{1, T}, {2, T}, {3, BRIG_TYPE_B32}}, S))
      return Err;
    // Lower half of dest from src0, upper half from src1, each element
    // chosen by the next log2(N) bits of src2.
    const unsigned N = elementCount(T), Bits = typeBits(elementType(T));
    const unsigned SelBits = llvm::Log2_32(N);
    auto *Ty = S[0]->getType();
    llvm::SmallVector<Value *, 16> Out;
    for (unsigned E = 0; E < N; ++E) {
      Value *Sel = Builder.CreateAnd(Builder.CreateLShr(S[2], E * SelBits),
                                     Builder.getInt32(N - 1));
      Value *Shift = Builder.CreateZExtOrTrunc(
          Builder.CreateMul(Sel, Builder.getInt32(Bits)), Ty);
      Out.push_back(Builder.CreateTrunc(
          Builder.CreateLShr(E < N / 2 ? S[0] : S[1], Shift),
          Builder.getIntNTy(Bits)));
    }
    return write(I, 0, joinPacked(Builder, Out, T), T);
  }
  case BRIG_OPCODE_UNPACKLO:
  case BRIG_OPCODE_UNPACKHI: {
    if (auto Err = ReadAll({{1, T}, {2, T}}, S))
      return Err;
    // Interleaves the lower (upper) halves: src0[k], src1[k], ...
    llvm::SmallVector<Value *, 16> X = splitPacked(Builder, S[0], T);
    llvm::SmallVector<Value *, 16> Y = splitPacked(Builder, S[1], T);
    const unsigned N = X.size(), First = Op == BRIG_OPCODE_UNPACKLO ? 0 : N / 2;
    llvm::SmallVector<Value *, 16> Out;
    for (unsigned K = 0; K < N / 2; ++K) {
      Out.push_back(X[First + K]);
      Out.push_back(Y[First + K]);
    }
    return write(I, 0, joinPacked(Builder, Out, T), T);
  }
  case BRIG_OPCODE_PACK: {
    // dest = src0 with element src2 replaced by src1 (its low bits).
    if (auto Err = ReadAll({{1, T}, {2, SrcT}, {3, BRIG_TYPE_U32}}, S))
      return Err;
    const unsigned N = elementCount(T), Bits = typeBits(elementType(T));
    auto *Ty = S[0]->getType();
    Value *Elem = S[1];
    if (!Elem->getType()->isIntegerTy())
      Elem = Builder.CreateBitCast(
          Elem, Builder.getIntNTy(Elem->getType()->getPrimitiveSizeInBits()));
    Elem = Builder.CreateZExt(
        Builder.CreateTrunc(Elem, Builder.getIntNTy(Bits)), Ty);
    Value *Shift = Builder.CreateZExtOrTrunc(
        Builder.CreateMul(Builder.CreateAnd(S[2], Builder.getInt32(N - 1)),
                          Builder.getInt32(Bits)),
        Ty);
    Value *Mask = Builder.CreateShl(
        llvm::ConstantInt::get(
            Ty, llvm::APInt::getLowBitsSet(Ty->getIntegerBitWidth(), Bits)),
        Shift);
    Value *R =
        Builder.CreateOr(Builder.CreateAnd(S[0], Builder.CreateNot(Mask)),
                         Builder.CreateShl(Elem, Shift));
    return write(I, 0, R, T);
  }
  case BRIG_OPCODE_UNPACK: {
    // dest = element src1 of src0, sign- or zero-extended as dest's type.
    if (auto Err = ReadAll({{1, SrcT}, {2, BRIG_TYPE_U32}}, S))
      return Err;
    const unsigned N = elementCount(SrcT), Bits = typeBits(elementType(SrcT));
    auto *Ty = S[0]->getType();
    Value *Shift = Builder.CreateZExtOrTrunc(
        Builder.CreateMul(Builder.CreateAnd(S[1], Builder.getInt32(N - 1)),
                          Builder.getInt32(Bits)),
        Ty);
    Value *Elem = Builder.CreateTrunc(Builder.CreateLShr(S[0], Shift),
                                      Builder.getIntNTy(Bits));
    return write(I, 0, Elem, T);
  }

  //===--- Bit string (5.7) and popcount (5.6) ----------------------------===//
  case BRIG_OPCODE_POPCOUNT:
  case BRIG_OPCODE_FIRSTBIT:
  case BRIG_OPCODE_LASTBIT: {
    if (auto Err = ReadAll({{1, SrcT}}, S))
      return Err;
    Value *X = S[0];
    auto *Ty = X->getType();
    Value *R;
    if (Op == BRIG_OPCODE_POPCOUNT) {
      R = Builder.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, X);
    } else {
      // The position of the first one from the top (firstbit: of the
      // complement for negative signed values) or from the bottom; -1 if
      // there is none.
      if (Op == BRIG_OPCODE_FIRSTBIT && isSigned(SrcT))
        X = Builder.CreateSelect(
            Builder.CreateICmpSLT(X, llvm::ConstantInt::get(Ty, 0)),
            Builder.CreateNot(X), X);
      R = Builder.CreateBinaryIntrinsic(Op == BRIG_OPCODE_FIRSTBIT
                                            ? llvm::Intrinsic::ctlz
                                            : llvm::Intrinsic::cttz,
                                        X, Builder.getFalse());
      R = Builder.CreateSelect(Builder.CreateIsNull(X),
                               llvm::ConstantInt::getAllOnesValue(Ty), R);
    }
    return write(I, 0, Builder.CreateTrunc(R, I32), BRIG_TYPE_U32);
  }
  case BRIG_OPCODE_BITEXTRACT:
  case BRIG_OPCODE_BITINSERT:
  case BRIG_OPCODE_BITMASK: {
    const unsigned W = typeBits(T);
    auto *Ty = Builder.getIntNTy(W);
    const unsigned First = Op == BRIG_OPCODE_BITEXTRACT  ? 2
                           : Op == BRIG_OPCODE_BITINSERT ? 3
                                                         : 1;
    for (unsigned J = 1; J < First; ++J)
      if (auto Err = ReadAll({{J, T}}, S))
        return Err;
    llvm::SmallVector<Value *, 2> Fields;
    if (auto Err = ReadAll({{First, BRIG_TYPE_U32}, {First + 1, BRIG_TYPE_U32}},
                           Fields))
      return Err;
    auto Field = [&](Value *V) {
      return Builder.CreateZExt(Builder.CreateAnd(V, Builder.getInt32(W - 1)),
                                Ty);
    };
    Value *Offset = Field(Fields[0]), *Width = Field(Fields[1]);
    auto C = [&](uint64_t V) { return llvm::ConstantInt::get(Ty, V); };
    Value *Mask = Builder.CreateSub(Builder.CreateShl(C(1), Width), C(1));
    Value *R;
    if (Op == BRIG_OPCODE_BITEXTRACT) {
      // (src0 << (W - width - offset)) >> (W - width); 0 for width 0. An
      // offset plus width beyond W is undefined: the shift wraps.
      Value *Left = Builder.CreateAnd(
          Builder.CreateSub(Builder.CreateSub(C(W), Width), Offset), C(W - 1));
      Value *Right =
          Builder.CreateAnd(Builder.CreateSub(C(W), Width), C(W - 1));
      Value *Up = Builder.CreateShl(S[0], Left);
      R = isSigned(T) ? Builder.CreateAShr(Up, Right)
                      : Builder.CreateLShr(Up, Right);
      R = Builder.CreateSelect(Builder.CreateIsNull(Width), C(0), R);
    } else if (Op == BRIG_OPCODE_BITINSERT) {
      Value *Clear = Builder.CreateAnd(
          S[0], Builder.CreateNot(Builder.CreateShl(Mask, Offset)));
      R = Builder.CreateOr(
          Clear, Builder.CreateShl(Builder.CreateAnd(S[1], Mask), Offset));
    } else {
      R = Builder.CreateShl(Mask, Offset);
    }
    return write(I, 0, R, T);
  }
  case BRIG_OPCODE_BITREV:
    if (auto Err = ReadAll({{1, T}}, S))
      return Err;
    return write(
        I, 0, Builder.CreateUnaryIntrinsic(llvm::Intrinsic::bitreverse, S[0]),
        T);
  case BRIG_OPCODE_BITSELECT:
    if (auto Err = ReadAll({{1, T}, {2, T}, {3, T}}, S))
      return Err;
    return write(
        I, 0,
        Builder.CreateOr(Builder.CreateAnd(S[1], S[0]),
                         Builder.CreateAnd(S[2], Builder.CreateNot(S[0]))),
        T);

  //===--- Multimedia (5.15) ----------------------------------------------===//
  case BRIG_OPCODE_BITALIGN:
  case BRIG_OPCODE_BYTEALIGN: {
    if (auto Err = ReadAll(
            {{1, BRIG_TYPE_B32}, {2, BRIG_TYPE_B32}, {3, BRIG_TYPE_U32}}, S))
      return Err;
    auto *I64 = Builder.getInt64Ty();
    Value *Wide =
        Builder.CreateOr(Builder.CreateShl(Builder.CreateZExt(S[1], I64), 32),
                         Builder.CreateZExt(S[0], I64));
    Value *Shift =
        Op == BRIG_OPCODE_BITALIGN
            ? Builder.CreateAnd(S[2], Builder.getInt32(31))
            : Builder.CreateMul(Builder.CreateAnd(S[2], Builder.getInt32(3)),
                                Builder.getInt32(8));
    return write(
        I, 0,
        Builder.CreateTrunc(
            Builder.CreateLShr(Wide, Builder.CreateZExt(Shift, I64)), I32),
        BRIG_TYPE_B32);
  }
  case BRIG_OPCODE_LERP: {
    if (auto Err = ReadAll(
            {{1, BRIG_TYPE_U8X4}, {2, BRIG_TYPE_U8X4}, {3, BRIG_TYPE_U8X4}}, S))
      return Err;
    llvm::SmallVector<Value *, 4> Out;
    for (unsigned E = 0; E < 4; ++E) {
      auto Byte = [&](Value *V) {
        return Builder.CreateAnd(Builder.CreateLShr(V, 8 * E),
                                 Builder.getInt32(0xff));
      };
      Value *Sum =
          Builder.CreateAdd(Builder.CreateAdd(Byte(S[0]), Byte(S[1])),
                            Builder.CreateAnd(Builder.CreateLShr(S[2], 8 * E),
                                              Builder.getInt32(1)));
      Out.push_back(
          Builder.CreateTrunc(Builder.CreateLShr(Sum, 1), Builder.getInt8Ty()));
    }
    return write(I, 0, joinPacked(Builder, Out, BRIG_TYPE_U8X4),
                 BRIG_TYPE_U8X4);
  }
  case BRIG_OPCODE_PACKCVT: {
    if (auto Err = ReadAll({{1, BRIG_TYPE_F32},
                            {2, BRIG_TYPE_F32},
                            {3, BRIG_TYPE_F32},
                            {4, BRIG_TYPE_F32}},
                           S))
      return Err;
    // cvt_neari_sat_u8_f32 of each (NaN gives 0).
    FloatEmitter FE(Builder);
    llvm::SmallVector<Value *, 4> Out;
    for (Value *X : S)
      Out.push_back(FE.toInt(X, Builder.getInt8Ty(), false,
                             llvm::Intrinsic::roundeven, false));
    return write(I, 0, joinPacked(Builder, Out, BRIG_TYPE_U8X4),
                 BRIG_TYPE_U8X4);
  }
  case BRIG_OPCODE_UNPACKCVT: {
    if (auto Err = ReadAll({{1, BRIG_TYPE_U8X4}, {2, BRIG_TYPE_U32}}, S))
      return Err;
    Value *Shift = Builder.CreateMul(
        Builder.CreateAnd(S[1], Builder.getInt32(3)), Builder.getInt32(8));
    Value *Byte = Builder.CreateAnd(Builder.CreateLShr(S[0], Shift),
                                    Builder.getInt32(0xff));
    return write(I, 0, Builder.CreateUIToFP(Byte, Builder.getFloatTy()),
                 BRIG_TYPE_F32);
  }
  case BRIG_OPCODE_SAD:
  case BRIG_OPCODE_SADHI: {
    // sad: the sum of the absolute differences plus src2 (mod 2^32); sadhi
    // adds the sum to the upper 16 bits of src2.
    if (auto Err = ReadAll({{1, SrcT}, {2, SrcT}, {3, BRIG_TYPE_U32}}, S))
      return Err;
    Value *Sum = Builder.getInt32(0);
    if (!isPacked(SrcT)) {
      Sum = absDiff(Builder, S[0], S[1]);
    } else {
      llvm::SmallVector<Value *, 16> X = splitPacked(Builder, S[0], SrcT);
      llvm::SmallVector<Value *, 16> Y = splitPacked(Builder, S[1], SrcT);
      for (unsigned E = 0; E < X.size(); ++E)
        Sum = Builder.CreateAdd(
            Sum, Builder.CreateZExt(absDiff(Builder, X[E], Y[E]), I32));
    }
    if (Op == BRIG_OPCODE_SADHI)
      Sum = Builder.CreateShl(Sum, 16);
    return write(I, 0, Builder.CreateAdd(Sum, S[2]), BRIG_TYPE_U32);
  }

  default:
    break;
  }

  //===--- Integer arithmetic, shifts, bits (5.2-5.6), packed too ---------===//
  if (isFloatElement(T))
    return failInst(I, "floating-point form not handled");
  const bool Shift = Op == BRIG_OPCODE_SHL || Op == BRIG_OPCODE_SHR;
  const unsigned N = sourceCount(Op);
  for (unsigned J = 1; J <= N; ++J)
    if (auto Err =
            ReadAll({{J, Shift && J == 2 ? unsigned(BRIG_TYPE_U32) : T}}, S))
      return Err;
  const bool Signed = isSigned(T);
  const bool Sat = packSaturates(Mods.Pack);
  Value *Amount = Shift ? S[1] : nullptr;
  auto Fn = [&](llvm::ArrayRef<Value *> A) {
    return integerOp(Builder, Op, Signed, Sat, A, Amount);
  };
  if (!isPacked(T))
    return write(I, 0, Fn(S), T);
  Value *Old = nullptr;
  if (packScalarOnly(Mods.Pack)) {
    auto O = Src(0, T);
    if (!O)
      return O.takeError();
    Old = *O;
  }
  llvm::ArrayRef<Value *> Packed(S.data(), Shift ? 1 : N);
  return write(I, 0, mapPacked(Builder, T, Mods.Pack, Packed, Old, Fn), T);
}

} // namespace openhsa::finalizer::detail
