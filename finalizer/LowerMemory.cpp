//===- finalizer/LowerMemory.cpp - ld, st, lda ----------------------------===//
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
    // Flat, global and readonly addresses; the segments whose addresses
    // are offsets (group, private) and kernarg are trySystem's, which runs
    // first (LowerSystem.cpp).
    auto Addr = B.code<BrigInstAddr>(I.Offset);
    if (!Addr)
      return failInst(I, "malformed lda");
    auto A = address(I, 1, Addr->segment);
    if (!A)
      return A.takeError();
    Value *V = Builder.CreatePtrToInt(*A, llvm::Type::getInt64Ty(Ctx));
    return write(I, 0, Builder.CreateZExtOrTrunc(V, llvmType(I->type)),
                 I->type);
  }
  auto Mem = B.code<BrigInstMem>(I.Offset);
  if (!Mem)
    return failInst(I, "malformed memory instruction");
  const unsigned T = I->type;
  auto A = address(I, 1, Mem->segment);
  if (!A)
    return A.takeError();
  llvm::Type *Ty = llvmType(T);
  // 128-bit values (b128 and the 128-bit packed types) move as one i128,
  // the width of a $q register.
  if (typeBytes(T) == 16)
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
    // A register, an immediate or WAVESIZE (PRM 4.17: st's source vector).
    auto E = readOperand(I, Regs[J], 0, T);
    if (!E)
      return E.takeError();
    Value *V = *E;
    if (V->getType() != Ty)
      V = Builder.CreateBitCast(V, Ty);
    Value *P = Builder.CreateConstGEP1_64(Builder.getInt8Ty(), *A, J * Bytes);
    Builder.CreateAlignedStore(V, P, llvm::commonAlignment(Align, J * Bytes));
  }
  return llvm::Error::success();
}

} // namespace openhsa::finalizer::detail
