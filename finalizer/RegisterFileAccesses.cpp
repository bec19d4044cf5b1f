//===- finalizer/RegisterFileAccesses.cpp - A resumable body's registers --===//
#include "finalizer/RegisterFileAccesses.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

namespace openhsa::finalizer {

namespace {

llvm::Error collectAt(llvm::Value *P, uint64_t Offset,
                      const llvm::DataLayout &DL,
                      std::vector<RegisterFileAccess> &Accesses) {
  for (llvm::User *U : P->users()) {
    if (auto *G = llvm::dyn_cast<llvm::GetElementPtrInst>(U)) {
      llvm::APInt Off(64, 0);
      if (!G->accumulateConstantOffset(DL, Off) || Off.isNegative())
        return llvm::createStringError(
            "a register file address that is not constant");
      if (llvm::Error E =
              collectAt(G, Offset + Off.getZExtValue(), DL, Accesses))
        return E;
      continue;
    }
    llvm::Type *Ty = nullptr;
    if (auto *L = llvm::dyn_cast<llvm::LoadInst>(U); L && L->isSimple())
      Ty = L->getType();
    else if (auto *S = llvm::dyn_cast<llvm::StoreInst>(U);
             S && S->isSimple() && S->getPointerOperand() == P)
      Ty = S->getValueOperand()->getType();
    if (!Ty || !(Ty->isIntegerTy() || Ty->isFloatingPointTy()))
      return llvm::createStringError(
          "a register file used otherwise than by loads and stores of "
          "scalars");
    Accesses.push_back({llvm::cast<llvm::Instruction>(U), Offset, Ty});
  }
  return llvm::Error::success();
}

} // namespace

llvm::Error
collectRegisterFileAccesses(llvm::Value *File, const llvm::DataLayout &DL,
                            std::vector<RegisterFileAccess> &Accesses) {
  return collectAt(File, 0, DL, Accesses);
}

void eraseUnusedRegisterAddresses(llvm::Function &F) {
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (llvm::Instruction &I :
         llvm::make_early_inc_range(llvm::instructions(F)))
      if (llvm::isa<llvm::GetElementPtrInst>(I) && I.use_empty()) {
        I.eraseFromParent();
        Changed = true;
      }
  }
}

} // namespace openhsa::finalizer
