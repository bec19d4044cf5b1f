//===- finalizer/AtomicUpdate.h - Compare-and-swap update loops -*- C++ -*-===//
//
// An atomic read-modify-write that no single LLVM instruction performs
// (the fbarrier word of LowerFbarrier.cpp, the GPU's signal helpers in
// GpuTarget.cpp): a compare-and-swap loop from the value last seen.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_ATOMICUPDATE_H
#define OPENHSA_FINALIZER_ATOMICUPDATE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/IRBuilder.h"

namespace openhsa::finalizer {

/// Emits, at B's insertion point, a loop that replaces the Ty at Ptr with
/// Next(old value) atomically (Order, Scope) and leaves B after it.
/// Returns the value replaced; what Next computed from it is usable after
/// the loop too (the loop's block dominates what follows).
inline llvm::Value *
emitAtomicUpdate(llvm::IRBuilder<> &B, llvm::Value *Ptr, llvm::Type *Ty,
                 llvm::AtomicOrdering Order, llvm::SyncScope::ID Scope,
                 llvm::function_ref<llvm::Value *(llvm::Value *Old)> Next) {
  const llvm::Align Align(Ty->getPrimitiveSizeInBits() / 8);
  llvm::Function *F = B.GetInsertBlock()->getParent();
  llvm::LLVMContext &C = B.getContext();
  auto *Initial = B.CreateAlignedLoad(Ty, Ptr, Align);
  Initial->setAtomic(llvm::AtomicOrdering::Monotonic, Scope);
  llvm::BasicBlock *Before = B.GetInsertBlock();
  auto *Loop = llvm::BasicBlock::Create(C, "atomic.update", F);
  auto *Done = llvm::BasicBlock::Create(C, "atomic.updated", F);
  B.CreateBr(Loop);
  B.SetInsertPoint(Loop);
  llvm::PHINode *Seen = B.CreatePHI(Ty, 2);
  Seen->addIncoming(Initial, Before);
  auto *Swap = B.CreateAtomicCmpXchg(
      Ptr, Seen, Next(Seen), Align, Order,
      llvm::AtomicCmpXchgInst::getStrongestFailureOrdering(Order), Scope);
  Seen->addIncoming(B.CreateExtractValue(Swap, 0), Loop);
  B.CreateCondBr(B.CreateExtractValue(Swap, 1), Done, Loop);
  B.SetInsertPoint(Done);
  return Seen;
}

} // namespace openhsa::finalizer

#endif
