//===- finalizer/IntegerAddresses.cpp - Integer addresses as GEPs ---------===//
#include "finalizer/IntegerAddresses.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/PatternMatch.h"

namespace openhsa::finalizer {
namespace {

using namespace llvm::PatternMatch;

/// A term that may carry a pointer: memory, an argument, a merge of values
/// or a call's result. Shifts, products, extensions and constants are
/// index arithmetic.
bool looksLikePointer(llvm::Value *V) {
  return llvm::isa<llvm::LoadInst, llvm::Argument, llvm::PtrToIntInst,
                   llvm::PHINode, llvm::SelectInst, llvm::CallInst>(V);
}

/// Splits V into the terms of its (wrapping) sum.
void collectTerms(llvm::Value *V, llvm::SmallVectorImpl<llvm::Value *> &Terms,
                  unsigned Depth = 0) {
  llvm::Value *L, *R;
  if (Depth < 8 && (match(V, m_Add(m_Value(L), m_Value(R))) ||
                    match(V, m_DisjointOr(m_Value(L), m_Value(R))))) {
    collectTerms(L, Terms, Depth + 1);
    collectTerms(R, Terms, Depth + 1);
    return;
  }
  Terms.push_back(V);
}

bool rewrite(llvm::IntToPtrInst &Cast) {
  llvm::Value *Int = Cast.getOperand(0);
  if (!Int->getType()->isIntegerTy(64))
    return false;
  llvm::SmallVector<llvm::Value *, 4> Terms;
  collectTerms(Int, Terms);
  if (Terms.size() < 2)
    return false;
  auto Base = Terms.end();
  for (auto It = Terms.begin(); It != Terms.end(); ++It) {
    if (!looksLikePointer(*It))
      continue;
    if (Base != Terms.end())
      return false; // Two candidates: which one is the object is unknown.
    Base = It;
  }
  if (Base == Terms.end())
    return false;

  llvm::IRBuilder<> B(&Cast);
  llvm::Value *BasePtr;
  if (auto *P2I = llvm::dyn_cast<llvm::PtrToIntInst>(*Base);
      P2I && P2I->getPointerOperand()->getType() == Cast.getType())
    BasePtr = P2I->getPointerOperand();
  else
    BasePtr = B.CreateIntToPtr(*Base, Cast.getType());
  llvm::Value *Offset = nullptr;
  for (auto It = Terms.begin(); It != Terms.end(); ++It)
    if (It != Base)
      Offset = Offset ? B.CreateAdd(Offset, *It) : *It;
  llvm::Value *Address = B.CreateGEP(B.getInt8Ty(), BasePtr, Offset);
  Cast.replaceAllUsesWith(Address);
  return true;
}

} // namespace

bool rewriteIntegerAddresses(llvm::Function &F) {
  llvm::SmallVector<llvm::IntToPtrInst *, 16> Casts;
  for (llvm::BasicBlock &BB : F)
    for (llvm::Instruction &I : BB)
      if (auto *Cast = llvm::dyn_cast<llvm::IntToPtrInst>(&I))
        Casts.push_back(Cast);
  bool Changed = false;
  for (llvm::IntToPtrInst *Cast : Casts)
    if (rewrite(*Cast)) {
      Cast->eraseFromParent();
      Changed = true;
    }
  return Changed;
}

llvm::PreservedAnalyses
IntegerAddressesPass::run(llvm::Function &F, llvm::FunctionAnalysisManager &) {
  if (!rewriteIntegerAddresses(F))
    return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses PA;
  PA.preserveSet<llvm::CFGAnalyses>();
  return PA;
}

} // namespace openhsa::finalizer
