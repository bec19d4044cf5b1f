//===- finalizer/LaneWideMasks.cpp - Masks in lanes of 32 bits ------------===//

#include "finalizer/LaneWideMasks.h"

#include "finalizer/Codegen.h"
#include "finalizer/SplitWideShuffles.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/ConstantFold.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/TargetParser/Triple.h"

namespace openhsa::finalizer {

using namespace llvm;

namespace {

/// The least lanes of a mask the pass takes: a mask of two lanes is one of
/// 64-bit lanes, which code generation keeps in their width.
constexpr unsigned MinLanes = 4;

/// A mask the pass takes, of at most MaxLanes lanes (those of two vector
/// registers of i32: a wave of four, WorkItemVectorizer's for gathers in
/// divergent loops, would keep each mask in four registers where code
/// generation's bytes take one, and the binary search's loop with AVX2
/// spilled twice as much: 64 -> 74-76 ms on the 2-core EPYC).
FixedVectorType *maskType(Type *T, unsigned MaxLanes) {
  auto *VT = dyn_cast<FixedVectorType>(T);
  return VT && VT->getElementType()->isIntegerTy(1) &&
                 VT->getNumElements() >= MinLanes &&
                 VT->getNumElements() <= MaxLanes
             ? VT
             : nullptr;
}

/// Whether I combines masks into a mask, which the pass redoes on the
/// masks' lanes: logic, phis, selects, shuffles, lane inserts, freezes.
bool combinesMasks(const Instruction &I, unsigned MaxLanes) {
  if (!maskType(I.getType(), MaxLanes))
    return false;
  if (isa<PHINode>(I) || isa<FreezeInst>(I) || isa<InsertElementInst>(I))
    return true;
  if (const auto *S = dyn_cast<SelectInst>(&I))
    return S->getCondition()->getType()->isIntegerTy(1) ||
           maskType(S->getCondition()->getType(), MaxLanes);
  if (const auto *S = dyn_cast<ShuffleVectorInst>(&I))
    return maskType(S->getOperand(0)->getType(), MaxLanes) != nullptr;
  switch (I.getOpcode()) {
  case Instruction::And:
  case Instruction::Or:
  case Instruction::Xor:
    return true;
  default:
    return false;
  }
}

class MaskWidener {
public:
  MaskWidener(Function &F, unsigned MaxLanes) : F(F), MaxLanes(MaxLanes) {}
  unsigned run();

private:
  Type *wideType(Type *Mask) const {
    return FixedVectorType::get(Type::getInt32Ty(F.getContext()),
                                cast<FixedVectorType>(Mask)->getNumElements());
  }
  /// V's lanes as i32, all ones or zero.
  Value *wide(Value *V);
  /// Replaces what reads a mask's bits as an integer compared with none or
  /// all of them (InstCombine's form of an any- or all-lanes reduction) by
  /// the reduction of its wide lanes; whether it did.
  bool rewriteLaneTest(BitCastInst &Bits, Value *Wide);

  bool combines(const Instruction &I) const {
    return combinesMasks(I, MaxLanes);
  }

  /// Records V's wide form W.
  void setWide(Value *V, Value *W) {
    Wide[V] = W;
    Order.push_back(V);
  }

  Function &F;
  const unsigned MaxLanes;
  DenseMap<Value *, Value *> Wide;
  /// Wide's keys in the order they came, for a deterministic order of the
  /// instructions made for their readers (the map's order is the
  /// pointers': the code, and so register allocation, varied from run to
  /// run).
  SmallVector<Value *, 32> Order;
};

Value *MaskWidener::wide(Value *V) {
  if (auto It = Wide.find(V); It != Wide.end())
    return It->second;
  Value *W;
  auto *C = dyn_cast<Constant>(V);
  if (Constant *Folded = C ? ConstantFoldCastInstruction(Instruction::SExt, C,
                                                         wideType(V->getType()))
                           : nullptr) {
    W = Folded;
  } else if (auto *I = dyn_cast<Instruction>(V)) {
    // A mask made otherwise (a compare, a call): extended where it is made.
    IRBuilder<> B(I->getParent(), std::next(I->getIterator()));
    if (isa<PHINode>(I))
      B.SetInsertPoint(I->getParent(), I->getParent()->getFirstInsertionPt());
    W = B.CreateSExt(V, wideType(V->getType()), V->getName() + ".lanes");
  } else {
    IRBuilder<> B(&*F.getEntryBlock().getFirstInsertionPt());
    W = B.CreateSExt(V, wideType(V->getType()), V->getName() + ".lanes");
  }
  setWide(V, W);
  return W;
}

bool MaskWidener::rewriteLaneTest(BitCastInst &Bits, Value *W) {
  using namespace PatternMatch;
  for (User *U : Bits.users()) {
    auto *Cmp = dyn_cast<ICmpInst>(U);
    if (!Cmp || !Cmp->isEquality() || Cmp->getOperand(0) != &Bits ||
        !match(Cmp->getOperand(1), m_CombineOr(m_Zero(), m_AllOnes())))
      return false;
  }
  for (User *U : make_early_inc_range(Bits.users())) {
    auto *Cmp = cast<ICmpInst>(U);
    IRBuilder<> B(Cmp);
    // None of the lanes: their or is zero; all of them: their and is all
    // ones.
    const bool None = match(Cmp->getOperand(1), m_Zero());
    Value *R = None ? B.CreateOrReduce(W) : B.CreateAndReduce(W);
    Value *Test =
        B.CreateICmp(Cmp->getPredicate(), R,
                     None ? ConstantInt::get(R->getType(), 0)
                          : ConstantInt::getAllOnesValue(R->getType()));
    Test->takeName(Cmp);
    Cmp->replaceAllUsesWith(Test);
    Cmp->eraseFromParent();
  }
  return true;
}

unsigned MaskWidener::run() {
  // Masks' combinations, defined before they are used but through phis.
  SmallVector<Instruction *, 32> Combined;
  ReversePostOrderTraversal<Function *> RPO(&F);
  for (BasicBlock *BB : RPO)
    for (Instruction &I : *BB)
      if (combines(I))
        Combined.push_back(&I);
  if (Combined.empty())
    return 0;
  for (Instruction *I : Combined)
    if (auto *P = dyn_cast<PHINode>(I)) {
      IRBuilder<> B(P);
      setWide(P, B.CreatePHI(wideType(P->getType()), P->getNumIncomingValues(),
                             P->getName() + ".lanes"));
    }
  for (Instruction *I : Combined) {
    if (isa<PHINode>(I))
      continue;
    IRBuilder<> B(I);
    Value *W;
    if (auto *S = dyn_cast<SelectInst>(I)) {
      Value *Cond = S->getCondition();
      if (maskType(Cond->getType(), MaxLanes))
        Cond = B.CreateICmpSLT(wide(Cond),
                               Constant::getNullValue(wide(Cond)->getType()));
      W = B.CreateSelect(Cond, wide(S->getTrueValue()),
                         wide(S->getFalseValue()));
    } else if (auto *S = dyn_cast<ShuffleVectorInst>(I)) {
      W = B.CreateShuffleVector(wide(S->getOperand(0)), wide(S->getOperand(1)),
                                S->getShuffleMask());
    } else if (auto *Insert = dyn_cast<InsertElementInst>(I)) {
      W = B.CreateInsertElement(
          wide(Insert->getOperand(0)),
          B.CreateSExt(Insert->getOperand(1), B.getInt32Ty()),
          Insert->getOperand(2));
    } else if (isa<FreezeInst>(I)) {
      W = B.CreateFreeze(wide(I->getOperand(0)));
    } else {
      W = B.CreateBinOp(cast<BinaryOperator>(I)->getOpcode(),
                        wide(I->getOperand(0)), wide(I->getOperand(1)));
    }
    W->takeName(I);
    setWide(I, W);
  }
  for (Instruction *I : Combined)
    if (auto *P = dyn_cast<PHINode>(I)) {
      auto *WP = cast<PHINode>(Wide[P]);
      for (unsigned K = 0; K < P->getNumIncomingValues(); ++K)
        WP->addIncoming(wide(P->getIncomingValue(K)), P->getIncomingBlock(K));
      WP->takeName(P);
    }
  // What else reads a mask takes its wide lanes' sign bits, or, an any- or
  // all-lanes test, their reduction.
  for (Value *V : SmallVector<Value *, 32>(Order)) {
    Value *W = Wide[V];
    if (isa<Constant>(V))
      continue;
    for (Use &U : make_early_inc_range(V->uses())) {
      auto *User = cast<Instruction>(U.getUser());
      if (User == W || combines(*User))
        continue;
      if (auto *Bits = dyn_cast<BitCastInst>(User);
          Bits && Bits->getType()->isIntegerTy() && rewriteLaneTest(*Bits, W)) {
        Bits->eraseFromParent();
        continue;
      }
      IRBuilder<> B(User);
      U.set(B.CreateICmpSLT(W, Constant::getNullValue(W->getType()),
                            V->getName() + ".on"));
    }
  }
  for (Instruction *I : Combined)
    I->replaceAllUsesWith(PoisonValue::get(I->getType()));
  for (Instruction *I : Combined)
    I->eraseFromParent();
  return unsigned(Combined.size());
}

} // namespace

unsigned widenMasks(Function &F, unsigned RegisterBits) {
  return MaskWidener(F, 2 * RegisterBits / 32).run();
}

PreservedAnalyses LaneWideMasksPass::run(Function &F,
                                         FunctionAnalysisManager &FAM) {
  if (Triple(F.getParent()->getTargetTriple()).getArch() != Triple::x86_64 ||
      hostHasFeature("avx512f") || !widenMasks(F, vectorRegisterBits(F, FAM)))
    return PreservedAnalyses::all();
  PreservedAnalyses PA;
  PA.preserveSet<CFGAnalyses>();
  return PA;
}

} // namespace openhsa::finalizer
