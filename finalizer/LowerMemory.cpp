//===- finalizer/LowerMemory.cpp - ld, st, lda
//------------------------------===//
#include "finalizer/KernelLowering.h"

namespace openhsa::finalizer::detail {

std::optional<llvm::Error> KernelLowering::tryMemory(EntryRef<BrigInstBase> I) {
  switch (I->opcode) {
  case BRIG_OPCODE_LD:
  case BRIG_OPCODE_ST:
  case BRIG_OPCODE_LDA:
    return lowerMemory(I);
  default:
    return std::nullopt;
  }
}

llvm::Error KernelLowering::lowerMemory(EntryRef<BrigInstBase> I) {
  if (I->opcode == BRIG_OPCODE_LDA) {
    auto Addr = B.code<BrigInstAddr>(I.Offset);
    if (!Addr)
      return failInst(I, "malformed lda");
    auto A = address(I, 1, Addr->segment);
    if (!A)
      return A.takeError();
    // lda yields a segment address: for segments with a base, the offset.
    Value *V = Builder.CreatePtrToInt(*A, llvm::Type::getInt64Ty(Ctx));
    if (Addr->segment == BRIG_SEGMENT_GROUP ||
        Addr->segment == BRIG_SEGMENT_PRIVATE ||
        Addr->segment == BRIG_SEGMENT_SPILL ||
        Addr->segment == BRIG_SEGMENT_KERNARG ||
        Addr->segment == BRIG_SEGMENT_ARG)
      return failInst(I, "lda of segment '" +
                             llvm::Twine(segmentName(Addr->segment)) +
                             "' is not supported yet");
    return write(I, 0, Builder.CreateZExtOrTrunc(V, llvmType(I->type)),
                 I->type);
  }
  auto Mem = B.code<BrigInstMem>(I.Offset);
  if (!Mem)
    return failInst(I, "malformed memory instruction");
  const unsigned T = I->type;
  if (isPacked(T) && typeBytes(T) > 8)
    return failInst(I,
                    "128-bit packed memory operations are not supported yet");
  auto A = address(I, 1, Mem->segment);
  if (!A)
    return A.takeError();
  llvm::Type *Ty = llvmType(T);
  if ((T & BRIG_TYPE_BASE_MASK) == BRIG_TYPE_B128 && !isPacked(T))
    Ty = llvm::Type::getInt128Ty(Ctx);
  const llvm::Align Align(alignmentBytes(Mem->align));
  const uint32_t DataOff = operandOffset(I, 0);
  // Vector forms: an operand list of registers at consecutive addresses.
  llvm::SmallVector<uint32_t, 4> Regs;
  if (auto List = B.operand<BrigOperandOperandList>(DataOff)) {
    OffsetList Elems = B.offsetList(List->elements);
    for (unsigned J = 0; J < Elems.size(); ++J)
      Regs.push_back(Elems[J]);
  }
  const unsigned Bytes = typeBytes(T);
  if (I->opcode == BRIG_OPCODE_LD) {
    if (Regs.empty()) {
      llvm::LoadInst *V = Builder.CreateAlignedLoad(Ty, *A, Align);
      // Kernarg and readonly memory do not change while a kernel runs.
      if (Mem->segment == BRIG_SEGMENT_KERNARG ||
          Mem->segment == BRIG_SEGMENT_READONLY)
        V->setMetadata(llvm::LLVMContext::MD_invariant_load,
                       llvm::MDNode::get(Ctx, {}));
      return write(I, 0, V, T);
    }
    for (unsigned J = 0; J < Regs.size(); ++J) {
      Value *P = Builder.CreateConstGEP1_64(Builder.getInt8Ty(), *A, J * Bytes);
      Value *V = Builder.CreateAlignedLoad(
          Ty, P, llvm::commonAlignment(Align, J * Bytes));
      auto R = B.operand<BrigOperandRegister>(Regs[J]);
      if (!R)
        return failInst(I, "vector element is not a register");
      RegisterSlot Slot = registerSlot(*R);
      if (!V->getType()->isIntegerTy())
        V = Builder.CreateBitCast(V, Builder.getIntNTy(Bytes * 8));
      V = isSigned(T) ? Builder.CreateSExtOrTrunc(V, Slot.Ty)
                      : Builder.CreateZExtOrTrunc(V, Slot.Ty);
      Builder.CreateStore(V, Slot.Ptr);
    }
    return llvm::Error::success();
  }
  // st: the value is operand 0 (register, immediate or vector).
  if (Regs.empty()) {
    auto V = read(I, 0, T);
    if (!V)
      return V.takeError();
    Builder.CreateAlignedStore(*V, *A, Align);
    return llvm::Error::success();
  }
  for (unsigned J = 0; J < Regs.size(); ++J) {
    Value *V;
    if (auto R = B.operand<BrigOperandRegister>(Regs[J])) {
      RegisterSlot Slot = registerSlot(*R);
      V = Builder.CreateLoad(Slot.Ty, Slot.Ptr);
      V = Builder.CreateTrunc(V, Builder.getIntNTy(Bytes * 8));
      if (!Ty->isIntegerTy())
        V = Builder.CreateBitCast(V, Ty);
    } else {
      return failInst(I, "immediate vector elements are not supported yet");
    }
    Value *P = Builder.CreateConstGEP1_64(Builder.getInt8Ty(), *A, J * Bytes);
    Builder.CreateAlignedStore(V, P, llvm::commonAlignment(Align, J * Bytes));
  }
  return llvm::Error::success();
}

} // namespace openhsa::finalizer::detail
