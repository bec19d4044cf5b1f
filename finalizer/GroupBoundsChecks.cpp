//===- finalizer/GroupBoundsChecks.cpp - Checks the group passes ----------===//
#include "finalizer/GroupBoundsChecks.h"

#include "finalizer/DeadGroupStores.h"
#include "finalizer/LaneSums.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <optional>

using namespace llvm;

namespace openhsa::finalizer {

namespace {

/// Functions larger than this are not copied: the copy costs compile time.
constexpr unsigned MaxInstructions = 4000;

/// A comparison of lanes that are a LaneSum with Bound.
struct BoundsCheck {
  ICmpInst *Cmp = nullptr;
  CmpInst::Predicate Pred; // The lanes on the left.
  LaneSum Sum;
  Value *Bound = nullptr;
};

/// Cmp as a bounds check that holds where the lanes are below the bound.
std::optional<BoundsCheck> boundsCheck(ICmpInst *Cmp) {
  auto *Ty = dyn_cast<FixedVectorType>(Cmp->getOperand(0)->getType());
  if (!Ty || Cmp->isEquality() || !Ty->getElementType()->isIntegerTy() ||
      Ty->getElementType()->getIntegerBitWidth() > 32)
    return std::nullopt;
  for (unsigned Side = 0; Side < 2; ++Side) {
    BoundsCheck C;
    C.Cmp = Cmp;
    C.Pred = Side == 0 ? Cmp->getPredicate() : Cmp->getSwappedPredicate();
    if (!ICmpInst::isLT(C.Pred) && !ICmpInst::isLE(C.Pred))
      continue;
    C.Bound = getSplatValue(Cmp->getOperand(1 - Side));
    if (!C.Bound ||
        !C.Sum.add(Cmp->getOperand(Side), ICmpInst::isSigned(C.Pred),
                   [](Value *V) { return getSplatValue(V); }) ||
        C.Sum.Scalars.empty())
      continue;
    if (C.Sum.Lanes.empty())
      C.Sum.Lanes.assign(Ty->getNumElements(), 0);
    return C;
  }
  return std::nullopt;
}

/// The check, in B, that every lane of C holds: in 64 bits, the lanes'
/// values stay within their width (no lane wrapped) and the largest is
/// below (or at) the bound.
Value *allLanesHold(IRBuilder<> &B, const BoundsCheck &C) {
  const bool Signed = ICmpInst::isSigned(C.Pred);
  const unsigned Bits = C.Bound->getType()->getIntegerBitWidth();
  Type *I64 = B.getInt64Ty();
  auto Widen = [&](Value *V) {
    return Signed ? B.CreateSExt(V, I64) : B.CreateZExt(V, I64);
  };
  Value *Total = B.getInt64(0);
  for (Value *X : C.Sum.Scalars)
    Total = B.CreateAdd(Total, Widen(X));
  const int64_t LaneMin = *llvm::min_element(C.Sum.Lanes);
  const int64_t LaneMax = *llvm::max_element(C.Sum.Lanes);
  Value *Min = B.CreateAdd(Total, B.getInt64(LaneMin));
  Value *Max = B.CreateAdd(Total, B.getInt64(LaneMax));
  const int64_t Lowest = Signed ? -(int64_t(1) << (Bits - 1)) : 0;
  const int64_t Highest =
      Signed ? (int64_t(1) << (Bits - 1)) - 1 : (int64_t(1) << Bits) - 1;
  Value *NoWrap = B.CreateAnd(B.CreateICmpSGE(Min, B.getInt64(Lowest)),
                              B.CreateICmpSLE(Max, B.getInt64(Highest)));
  Value *Bound = Widen(C.Bound);
  Value *Below = ICmpInst::isLT(C.Pred) ? B.CreateICmpSLT(Max, Bound)
                                        : B.CreateICmpSLE(Max, Bound);
  return B.CreateAnd(NoWrap, Below, "group.in.bounds");
}

/// Whether F's control flow has a cycle: a depth-first search from the
/// entry meets a block that is on its stack.
bool hasLoop(Function &F) {
  SmallPtrSet<BasicBlock *, 32> Done, OnStack;
  SmallVector<std::pair<BasicBlock *, succ_iterator>, 32> Stack;
  BasicBlock *Entry = &F.getEntryBlock();
  Stack.push_back({Entry, succ_begin(Entry)});
  OnStack.insert(Entry);
  while (!Stack.empty()) {
    auto &[BB, It] = Stack.back();
    if (It == succ_end(BB)) {
      OnStack.erase(BB);
      Done.insert(BB);
      Stack.pop_back();
      continue;
    }
    BasicBlock *S = *It++;
    if (OnStack.contains(S))
      return true;
    if (!Done.contains(S)) {
      OnStack.insert(S);
      Stack.push_back({S, succ_begin(S)});
    }
  }
  return false;
}

} // namespace

bool versionGroupBoundsCheck(Function &F) {
  if (!F.hasFnAttribute(WorkGroupFunctionAttr) || F.isDeclaration() ||
      F.getInstructionCount() > MaxInstructions || hasLoop(F))
    return false;
  std::optional<BoundsCheck> Check;
  for (BasicBlock &BB : F) {
    for (Instruction &I : BB)
      if (auto *Cmp = dyn_cast<ICmpInst>(&I))
        if ((Check = boundsCheck(Cmp)))
          break;
    if (Check)
      break;
  }
  if (!Check)
    return false;

  // The comparison's block and every block it reaches (the function's
  // rest: it has no loop) are copied from the comparison on. Every way into
  // them must pass through the comparison's block, or the copy's phis would
  // miss the edges from outside.
  BasicBlock *Head = Check->Cmp->getParent();
  SetVector<BasicBlock *> Rest;
  Rest.insert(Head);
  for (size_t I = 0; I < Rest.size(); ++I)
    for (BasicBlock *S : successors(Rest[I]))
      Rest.insert(S);
  for (BasicBlock *BB : Rest)
    if (BB != Head && any_of(predecessors(BB),
                             [&](BasicBlock *P) { return !Rest.contains(P); }))
      return false;
  // Head keeps what comes before the comparison.
  BasicBlock *Tail = SplitBlock(Head, Check->Cmp);
  Rest.remove(Head);
  Rest.insert(Tail);

  ValueToValueMapTy VMap;
  SmallVector<BasicBlock *, 16> Copies;
  for (BasicBlock *BB : Rest) {
    BasicBlock *Copy = CloneBasicBlock(BB, VMap, ".inbounds", &F);
    VMap[BB] = Copy;
    Copies.push_back(Copy);
  }
  remapInstructionsInBlocks(Copies, VMap);
  auto *CmpCopy = cast<Instruction>(VMap[Check->Cmp]);
  CmpCopy->replaceAllUsesWith(ConstantInt::getTrue(CmpCopy->getType()));
  CmpCopy->eraseFromParent();

  Head->getTerminator()->eraseFromParent();
  IRBuilder<> B(Head);
  B.CreateCondBr(allLanesHold(B, *Check), cast<BasicBlock>(VMap[Tail]), Tail);
  return true;
}

PreservedAnalyses GroupBoundsChecksPass::run(Function &F,
                                             FunctionAnalysisManager &) {
  if (!versionGroupBoundsCheck(F))
    return PreservedAnalyses::all();
  return PreservedAnalyses::none();
}

} // namespace openhsa::finalizer
