//===- finalizer/UniformConditions.cpp - Version loops on uniform branches ===//
#include "finalizer/UniformConditions.h"

#include "finalizer/LaneSums.h"

#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#include <optional>
#include <utility>

namespace openhsa::finalizer {
namespace {

/// Loops larger than this are not copied: the copy costs compile time.
constexpr unsigned MaxLoopInstructions = 400;

/// The most instructions of a function's loops the pass copies (unswitched
/// and versioned loops together). Each copy is worth it, but a kernel of
/// many such loops would otherwise double in size, and its finalization
/// time with it; the loops past the budget run their general form. The
/// benchmark kernels copy at most a few hundred.
constexpr unsigned MaxCopiedInstructions = 4000;

/// What is left of a function's MaxCopiedInstructions.
class CopyBudget {
public:
  bool fits(unsigned Instructions) const { return Instructions <= Left; }
  void spend(unsigned Instructions) { Left -= Instructions; }

private:
  unsigned Left = MaxCopiedInstructions;
};

/// A branch of the loop on `icmp pred Rec, Bound` (or the operands
/// swapped), where Rec steps by +-1 each iteration and Bound is invariant.
struct UniformBranch {
  llvm::BranchInst *Branch = nullptr;
  llvm::ICmpInst *Cmp = nullptr;
  const llvm::SCEVAddRecExpr *Rec = nullptr;
  const llvm::SCEV *Bound = nullptr;
  bool RecIsLHS = true;
  bool Increasing = true;
  /// The condition the fast copy assumes: the one that leads into the
  /// body rather than straight to the latch.
  bool Assumed = true;
  /// A vectorized wave's condition (Branch null): Cmp compares, lane by
  /// lane, splat(Rec) + <lane constants> with a splat of Bound; the fast
  /// copy assumes every lane's comparison is Assumed. Rec may step by any
  /// constant; the lanes add LaneMin to LaneMax to it.
  bool Vector = false;
  /// A scalar comparison whose Rec steps by a constant other than +-1 (a
  /// wave's lane 0 value, stepping by W: the vectorizer's check that no
  /// lane of a consecutive access wrapped). Checked as the vector form is,
  /// in 64 bits; the copy folds every use of the comparison.
  bool Strided = false;
  int64_t LaneMin = 0, LaneMax = 0;
  llvm::Value *Lane0 = nullptr; // The splat's scalar (Rec's value).
};

unsigned instructionCount(const llvm::Loop &L) {
  unsigned N = 0;
  for (const llvm::BasicBlock *BB : L.blocks())
    N += BB->size();
  return N;
}

/// The branches on a comparison of a recurrence of L with an invariant:
/// one that steps by +-1, or with Strided, by another constant (or a
/// run-time step), each comparison once.
llvm::SmallVector<UniformBranch, 4>
findBranches(llvm::Loop &L, llvm::ScalarEvolution &SE, bool Strided) {
  llvm::SmallVector<UniformBranch, 4> Found;
  llvm::SmallPtrSet<const llvm::ICmpInst *, 4> Seen;
  const llvm::BasicBlock *Latch = L.getLoopLatch();
  for (llvm::BasicBlock *BB : L.blocks()) {
    auto *Br = llvm::dyn_cast<llvm::BranchInst>(BB->getTerminator());
    if (!Br || !Br->isConditional() || L.isLoopExiting(BB))
      continue;
    auto *Cmp = llvm::dyn_cast<llvm::ICmpInst>(Br->getCondition());
    if (!Cmp || Cmp->isEquality() || !L.contains(Cmp) ||
        !Cmp->getOperand(0)->getType()->isIntegerTy() || Seen.contains(Cmp))
      continue;
    UniformBranch U;
    U.Branch = Br;
    U.Cmp = Cmp;
    const llvm::SCEV *A = SE.getSCEV(Cmp->getOperand(0));
    const llvm::SCEV *B = SE.getSCEV(Cmp->getOperand(1));
    auto *RecA = llvm::dyn_cast<llvm::SCEVAddRecExpr>(A);
    auto *RecB = llvm::dyn_cast<llvm::SCEVAddRecExpr>(B);
    if (RecA && RecA->getLoop() == &L && SE.isLoopInvariant(B, &L)) {
      U.Rec = RecA;
      U.Bound = B;
    } else if (RecB && RecB->getLoop() == &L && SE.isLoopInvariant(A, &L)) {
      U.Rec = RecB;
      U.Bound = A;
      U.RecIsLHS = false;
    } else {
      continue;
    }
    if (!U.Rec->isAffine())
      continue;
    const llvm::SCEV *StepS = U.Rec->getStepRecurrence(SE);
    auto *Step = llvm::dyn_cast<llvm::SCEVConstant>(StepS);
    if (!Step) {
      // A step known only at run time, the same on every iteration (a row
      // of a matrix further each k: the kernarg n): the strided form only,
      // for an unsigned comparison (the wrap checks), where the step
      // counts as unsigned and the value only grows until it wraps.
      if (!Strided || !SE.isLoopInvariant(StepS, &L) || Cmp->isSigned())
        continue;
      U.Strided = true;
      U.Increasing = true;
      const llvm::CmpInst::Predicate P =
          U.RecIsLHS ? Cmp->getPredicate() : Cmp->getSwappedPredicate();
      U.Assumed = llvm::ICmpInst::isLT(P) || llvm::ICmpInst::isLE(P);
      Seen.insert(Cmp);
      Found.push_back(U);
      continue;
    }
    if (Step->getAPInt().isZero() ||
        Strided == (Step->getAPInt().isOne() || Step->getAPInt().isAllOnes()))
      continue;
    U.Strided = Strided;
    U.Increasing = Step->getAPInt().isStrictlyPositive();
    if (Strided) {
      // Neither way skips the body: the in-range outcome (the wrap check's
      // "lane 0 at most 2^32 - W"), as for the vector form.
      const llvm::CmpInst::Predicate P =
          U.RecIsLHS ? Cmp->getPredicate() : Cmp->getSwappedPredicate();
      U.Assumed = llvm::ICmpInst::isLT(P) || llvm::ICmpInst::isLE(P);
    } else {
      U.Assumed = Br->getSuccessor(0) != Latch;
    }
    Seen.insert(Cmp);
    Found.push_back(U);
  }
  return Found;
}

/// The first branch that findBranches finds, if any.
std::optional<UniformBranch>
findBranch(llvm::Loop &L, llvm::ScalarEvolution &SE, bool Strided) {
  llvm::SmallVector<UniformBranch, 4> Found = findBranches(L, SE, Strided);
  if (Found.empty())
    return std::nullopt;
  return Found.front();
}

/// The scalars of a vectorized wave's lane values: the vectorizer's ids
/// and what was added to them are sums (adds, or `or disjoint` for lane
/// ids) of splats, values alike in every lane, and constant vectors, which
/// differ by lane. Splats of another vector's element (a kernarg block
/// loaded as a vector, a vector sum of splats) get that element as a
/// scalar (elementOf), erased unless the loop is versioned.
class LaneValues {
public:
  LaneValues(llvm::Loop &L, bool Signed) : L(L), Signed(Signed) {}
  ~LaneValues() {
    // Latest first: an unused one may be what used an earlier one.
    for (llvm::Instruction *I : llvm::reverse(Created))
      if (I->use_empty())
        I->eraseFromParent();
  }

  /// Adds V's terms; false if V is not such a sum.
  bool add(llvm::Value *V) {
    return Sum.add(V, Signed,
                   [this](llvm::Value *X) { return scalarOfSplat(X); });
  }

  /// A scalar equal to every lane of V, or null.
  llvm::Value *scalarOfSplat(llvm::Value *V) {
    if (llvm::Value *X = llvm::getSplatValue(V))
      return X;
    auto *Shuffle = llvm::dyn_cast<llvm::ShuffleVectorInst>(V);
    if (!Shuffle || llvm::getSplatIndex(Shuffle->getShuffleMask()) < 0)
      return nullptr;
    return elementOf(Shuffle, 0);
  }

  llvm::Loop &L;
  const bool Signed;
  LaneSum Sum;
  llvm::SmallVector<llvm::Instruction *, 4> Created;

private:
  /// Element Index of vector V as a scalar, or null: an extractelement in
  /// the preheader where V is invariant; in the loop, the inserted scalar,
  /// the shuffled element, or the operation on the operands' elements
  /// (InstCombine turns splat(a) + splat(b) into a splat of a vector sum
  /// whose lane 0 holds a + b).
  llvm::Value *elementOf(llvm::Value *V, unsigned Index, unsigned Depth = 0) {
    if (Depth > 6)
      return nullptr;
    if (auto *C = llvm::dyn_cast<llvm::Constant>(V))
      return C->getAggregateElement(Index);
    auto *I = llvm::dyn_cast<llvm::Instruction>(V);
    if (!I || !L.contains(I)) {
      llvm::BasicBlock *Pre = L.getLoopPreheader();
      if (!Pre)
        return nullptr;
      auto *X = llvm::ExtractElementInst::Create(
          V,
          llvm::ConstantInt::get(llvm::Type::getInt64Ty(V->getContext()),
                                 Index),
          "uniform.lane", Pre->getTerminator()->getIterator());
      Created.push_back(X);
      return X;
    }
    if (auto *Insert = llvm::dyn_cast<llvm::InsertElementInst>(I)) {
      auto *At = llvm::dyn_cast<llvm::ConstantInt>(Insert->getOperand(2));
      if (!At)
        return nullptr;
      return At->getZExtValue() == Index
                 ? Insert->getOperand(1)
                 : elementOf(Insert->getOperand(0), Index, Depth + 1);
    }
    if (auto *Shuffle = llvm::dyn_cast<llvm::ShuffleVectorInst>(I)) {
      const int From = Shuffle->getMaskValue(Index);
      auto *Src = llvm::dyn_cast<llvm::FixedVectorType>(
          Shuffle->getOperand(0)->getType());
      if (From < 0 || !Src)
        return nullptr;
      const unsigned N = Src->getNumElements();
      return unsigned(From) < N
                 ? elementOf(Shuffle->getOperand(0), unsigned(From), Depth + 1)
                 : elementOf(Shuffle->getOperand(1), unsigned(From) - N,
                             Depth + 1);
    }
    auto *Op = llvm::dyn_cast<llvm::BinaryOperator>(I);
    if (!Op)
      return nullptr;
    llvm::Value *A = elementOf(Op->getOperand(0), Index, Depth + 1);
    llvm::Value *B =
        A ? elementOf(Op->getOperand(1), Index, Depth + 1) : nullptr;
    if (!B)
      return nullptr;
    auto *X = llvm::BinaryOperator::Create(
        Op->getOpcode(), A, B, "uniform.lane", std::next(Op->getIterator()));
    X->copyIRFlags(Op); // Flags hold lane by lane.
    Created.push_back(X);
    return X;
  }
};

/// The vectorized form of a bounds check: in a loop over waves, a vector
/// comparison of the lanes' ids (plus what the kernel added to them) with a
/// splat of an invariant bound, whose every lane the fast copy assumes
/// holds (`id < n` and the like) or fails (`id >= n`: the skip branch).
/// Values is where the found comparison's scalars were made.
std::optional<UniformBranch>
findVectorCondition(llvm::Loop &L, llvm::ScalarEvolution &SE,
                    std::unique_ptr<LaneValues> &Values) {
  for (llvm::BasicBlock *BB : L.blocks())
    for (llvm::Instruction &I : *BB) {
      auto *Cmp = llvm::dyn_cast<llvm::ICmpInst>(&I);
      if (!Cmp || Cmp->isEquality() || !Cmp->getType()->isVectorTy())
        continue;
      for (unsigned Side = 0; Side < 2; ++Side) {
        Values = std::make_unique<LaneValues>(L, Cmp->isSigned());
        llvm::Value *Bound = Values->scalarOfSplat(Cmp->getOperand(1 - Side));
        if (!Bound || !SE.isSCEVable(Bound->getType()) ||
            !Values->add(Cmp->getOperand(Side)) || Values->Sum.Scalars.empty())
          continue;
        UniformBranch U;
        U.Cmp = Cmp;
        U.Vector = true;
        U.RecIsLHS = Side == 0;
        U.Bound = SE.getSCEV(Bound);
        const llvm::SCEV *Sum = SE.getZero(Bound->getType());
        for (llvm::Value *X : Values->Sum.Scalars)
          Sum = SE.getAddExpr(Sum, SE.getSCEV(X));
        auto *Rec = llvm::dyn_cast<llvm::SCEVAddRecExpr>(Sum);
        if (!Rec || Rec->getLoop() != &L || !Rec->isAffine() ||
            !SE.isLoopInvariant(U.Bound, &L))
          continue;
        auto *Step =
            llvm::dyn_cast<llvm::SCEVConstant>(Rec->getStepRecurrence(SE));
        if (!Step || Step->getAPInt().isZero())
          continue;
        U.Rec = Rec;
        U.Increasing = Step->getAPInt().isStrictlyPositive();
        if (!Values->Sum.Lanes.empty()) {
          U.LaneMin = *llvm::min_element(Values->Sum.Lanes);
          U.LaneMax = *llvm::max_element(Values->Sum.Lanes);
        }
        if (Values->Sum.Scalars.size() == 1)
          U.Lane0 = Values->Sum.Scalars[0];
        // The in-bounds outcome: "id below the bound" holds, "id at or
        // above it" fails, for most work-groups.
        const llvm::CmpInst::Predicate P =
            U.RecIsLHS ? Cmp->getPredicate() : Cmp->getSwappedPredicate();
        U.Assumed = llvm::ICmpInst::isLT(P) || llvm::ICmpInst::isLE(P);
        return U;
      }
    }
  Values.reset();
  return std::nullopt;
}

/// Whether U's condition can be checked before L: its values' ends, bound
/// and step expand in the preheader, and its width and step keep the
/// check's arithmetic from wrapping.
bool checkable(const UniformBranch &U, const llvm::SCEV *Btc,
               llvm::ScalarEvolution &SE, llvm::SCEVExpander &Expander,
               llvm::Instruction *At) {
  llvm::Type *Ty = U.Rec->getType();
  const unsigned Width = SE.getTypeSizeInBits(Ty);
  // The compared value on the last iteration: Start + BTC * Step, with the
  // trip count in the value's width (it steps by one, so it cannot take
  // more than 2^W distinct values without wrapping, which the check
  // catches). The vectorized form checks its trip count at run time: SCEV
  // rarely bounds a wave loop's, whose entry check it does not see.
  const bool Wide = U.Vector || U.Strided;
  if (!Wide && SE.getUnsignedRangeMax(Btc).getActiveBits() > Width)
    return false;
  // A wave's value is checked in 64 bits, where Start + BTC * Step cannot
  // wrap: lanes of at most 32 bits, steps below 2^16. A step known only at
  // run time is checked there: at most 2^31.
  const llvm::SCEV *StepS = U.Rec->getStepRecurrence(SE);
  auto *ConstStep = llvm::dyn_cast<llvm::SCEVConstant>(StepS);
  if (Wide && (Width > 32 ||
               (ConstStep && ConstStep->getAPInt().abs().getActiveBits() > 16)))
    return false;
  const llvm::SCEV *End =
      U.Rec->evaluateAtIteration(SE.getTruncateOrZeroExtend(Btc, Ty), SE);
  for (const llvm::SCEV *S : {U.Rec->getStart(), End, U.Bound, Btc, StepS})
    if (!Expander.isSafeToExpandAt(S, At))
      return false;
  return true;
}

/// The run-time check, before the loop, that U's comparison takes its assumed
/// outcome on every iteration (and every lane).
llvm::Value *emitCheck(const UniformBranch &U, const llvm::SCEV *Btc,
                       llvm::ScalarEvolution &SE, llvm::SCEVExpander &Expander,
                       llvm::IRBuilder<> &B) {
  llvm::Instruction *At = &*B.GetInsertPoint();
  llvm::Type *Ty = U.Rec->getType();
  const unsigned Width = SE.getTypeSizeInBits(Ty);
  const llvm::SCEV *StepS = U.Rec->getStepRecurrence(SE);
  auto *ConstStep = llvm::dyn_cast<llvm::SCEVConstant>(StepS);
  llvm::Value *StartV = Expander.expandCodeFor(U.Rec->getStart(), Ty, At);
  llvm::Value *BoundV = Expander.expandCodeFor(U.Bound, Ty, At);
  const llvm::CmpInst::Predicate Pred = U.Cmp->getPredicate();
  const bool Signed = llvm::ICmpInst::isSigned(Pred);
  if (!U.Vector && !U.Strided) {
    const llvm::SCEV *End =
        U.Rec->evaluateAtIteration(SE.getTruncateOrZeroExtend(Btc, Ty), SE);
    llvm::Value *EndV = Expander.expandCodeFor(End, Ty, At);
    // No wrap from the first to the last value, in the comparison's
    // signedness: then the comparison is monotone over the iterations.
    llvm::Value *Ordered = U.Increasing
                               ? B.CreateICmp(Signed ? llvm::CmpInst::ICMP_SLE
                                                     : llvm::CmpInst::ICMP_ULE,
                                              StartV, EndV)
                               : B.CreateICmp(Signed ? llvm::CmpInst::ICMP_SGE
                                                     : llvm::CmpInst::ICMP_UGE,
                                              StartV, EndV);
    auto Condition = [&](llvm::Value *X) {
      llvm::Value *C = U.RecIsLHS ? B.CreateICmp(Pred, X, BoundV)
                                  : B.CreateICmp(Pred, BoundV, X);
      return U.Assumed ? C : B.CreateNot(C);
    };
    return B.CreateAnd(Ordered,
                       B.CreateAnd(Condition(StartV), Condition(EndV)));
  }
  // The lanes' values lie in [Lo + LaneMin, Hi + LaneMax], Lo and Hi the
  // smallest and largest value of the wave's Rec, computed in 64 bits
  // (Start + BTC * Step), where nothing wraps, and required to fit the
  // compared width: then neither Rec nor a lane wrapped in it. The
  // comparison with one bound holds (or fails) on an interval of values:
  // at both ends, it does on every lane of every wave.
  llvm::Type *Wide = B.getInt64Ty();
  auto Extend = [&](llvm::Value *V) {
    return Signed ? B.CreateSExt(V, Wide) : B.CreateZExt(V, Wide);
  };
  llvm::Value *Step =
      ConstStep ? static_cast<llvm::Value *>(
                      B.getInt64(ConstStep->getAPInt().getSExtValue()))
                : B.CreateZExt(Expander.expandCodeFor(StepS, Ty, At), Wide);
  llvm::Value *First = Extend(StartV);
  llvm::Value *Trips =
      Expander.expandCodeFor(SE.getTruncateOrZeroExtend(Btc, Wide), Wide, At);
  llvm::Value *Last = B.CreateAdd(First, B.CreateMul(Trips, Step));
  llvm::Value *Lo =
      B.CreateAdd(U.Increasing ? First : Last, B.getInt64(U.LaneMin));
  llvm::Value *Hi =
      B.CreateAdd(U.Increasing ? Last : First, B.getInt64(U.LaneMax));
  const llvm::APInt TyMin = Signed ? llvm::APInt::getSignedMinValue(Width)
                                   : llvm::APInt::getMinValue(Width);
  const llvm::APInt TyMax = Signed ? llvm::APInt::getSignedMaxValue(Width)
                                   : llvm::APInt::getMaxValue(Width);
  llvm::Value *Fits = B.CreateAnd(
      B.CreateICmpSGE(Lo, B.getInt64(Signed ? TyMin.getSExtValue()
                                            : int64_t(TyMin.getZExtValue()))),
      B.CreateICmpSLE(Hi, B.getInt64(Signed ? TyMax.getSExtValue()
                                            : int64_t(TyMax.getZExtValue()))));
  const llvm::CmpInst::Predicate SignedPred =
      llvm::ICmpInst::getSignedPredicate(Pred);
  llvm::Value *Bound64 = Extend(BoundV);
  auto Condition = [&](llvm::Value *X) {
    llvm::Value *C = U.RecIsLHS ? B.CreateICmp(SignedPred, X, Bound64)
                                : B.CreateICmp(SignedPred, Bound64, X);
    return U.Assumed ? C : B.CreateNot(C);
  };
  // At most 2^32 - 1 trips, steps below 2^16 (or, known at run time, at
  // most 2^31): Last did not wrap.
  Fits = B.CreateAnd(Fits, B.CreateICmpULE(Trips, B.getInt64(UINT32_MAX)));
  if (!ConstStep)
    Fits =
        B.CreateAnd(Fits, B.CreateICmpULE(Step, B.getInt64(uint64_t(1) << 31)));
  return B.CreateAnd(Fits, B.CreateAnd(Condition(Lo), Condition(Hi)));
}

/// In the copy of L (VMap), U's comparison goes the assumed way on every
/// iteration and lane.
void fold(const llvm::Loop &L, const UniformBranch &U,
          llvm::ValueToValueMapTy &VMap) {
  if (U.Vector) {
    // With unsigned lanes, no lane's value wrapped: the copy's checks that
    // lane 0's index plus the lanes did not wrap (a vector access rather
    // than a gather) fold too.
    auto *S = llvm::dyn_cast_or_null<llvm::Instruction>(U.Lane0);
    if (S && L.contains(S) &&
        !llvm::ICmpInst::isSigned(U.Cmp->getPredicate())) {
      auto *SCopy = llvm::cast<llvm::Instruction>(VMap[S]);
      // After the phis, where S is one of them.
      llvm::IRBuilder<> AfterS(llvm::isa<llvm::PHINode>(SCopy)
                                   ? &*SCopy->getParent()->getFirstInsertionPt()
                                   : SCopy->getNextNode());
      const unsigned Bits = SCopy->getType()->getIntegerBitWidth();
      AfterS.CreateAssumption(AfterS.CreateICmpULE(
          SCopy,
          AfterS.getInt(llvm::APInt::getMaxValue(Bits) - uint64_t(U.LaneMax))));
    }
  }
  if (U.Vector || U.Strided) {
    // Every use of the comparison (the lanes' masks; the branches of every
    // access of a wave that share one wrap check).
    auto *Copy = llvm::cast<llvm::Instruction>(VMap[U.Cmp]);
    Copy->replaceAllUsesWith(
        llvm::ConstantInt::getBool(Copy->getType(), U.Assumed));
    Copy->eraseFromParent();
  } else {
    llvm::cast<llvm::BranchInst>(VMap[U.Branch])
        ->setCondition(
            llvm::ConstantInt::getBool(U.Cmp->getContext(), U.Assumed));
  }
}

/// Copies L (with Suffix on its blocks' names) behind a branch on
/// Condition at the end of L's preheader: the copy runs where it holds,
/// L where not; both leave to L's exit, whose phis take the copy's values.
/// VMap maps L's values to the copy's. L needs a preheader, one exiting
/// block and one exit (LCSSA).
void copyBehind(llvm::Loop &L, llvm::Value *Condition, llvm::StringRef Suffix,
                llvm::ValueToValueMapTy &VMap, llvm::LoopInfo &LI,
                llvm::DominatorTree &DT) {
  llvm::BasicBlock *Exit = L.getExitBlock();
  llvm::BasicBlock *Exiting = L.getExitingBlock();
  llvm::BasicBlock *CheckBB = L.getLoopPreheader();
  llvm::BasicBlock *Preheader =
      llvm::SplitBlock(CheckBB, CheckBB->getTerminator(), &DT, &LI, nullptr,
                       CheckBB->getName() + ".general");
  llvm::SmallVector<llvm::BasicBlock *, 8> Blocks;
  llvm::Loop *Copy = llvm::cloneLoopWithPreheader(Preheader, CheckBB, &L, VMap,
                                                  Suffix, &LI, &DT, Blocks);
  llvm::remapInstructionsInBlocks(Blocks, VMap);
  llvm::Instruction *OldTerm = CheckBB->getTerminator();
  llvm::BranchInst::Create(Copy->getLoopPreheader(), Preheader, Condition,
                           OldTerm);
  OldTerm->eraseFromParent();
  DT.changeImmediateDominator(Exit, CheckBB);
  auto *CopyExiting = llvm::cast<llvm::BasicBlock>(VMap[Exiting]);
  for (llvm::PHINode &Phi : Exit->phis()) {
    llvm::Value *In = Phi.getIncomingValueForBlock(Exiting);
    auto It = VMap.find(In);
    Phi.addIncoming(It != VMap.end() ? static_cast<llvm::Value *>(It->second)
                                     : In,
                    CopyExiting);
  }
}

/// A conditional branch of L, not its exit test, on a value that does not
/// change in L (a barrier region's loop over waves tests whether the
/// k-loop goes on, in every wave: the tiled matrix product's copy of the
/// next tiles or its store of C): null if none.
llvm::BranchInst *findInvariantBranch(llvm::Loop &L) {
  for (llvm::BasicBlock *BB : L.blocks()) {
    auto *Br = llvm::dyn_cast<llvm::BranchInst>(BB->getTerminator());
    if (!Br || !Br->isConditional() || L.isLoopExiting(BB) ||
        Br->getSuccessor(0) == Br->getSuccessor(1))
      continue;
    llvm::Value *C = Br->getCondition();
    if (!llvm::isa<llvm::Constant>(C) && L.isLoopInvariant(C))
      return Br;
  }
  return nullptr;
}

/// Unswitches L on Br: a copy of L, with Br's condition true, runs where it
/// holds, and L, with it false, where not. Returns the copy, or null where
/// L is not in the form for it. (LLVM's own unswitching leaves loops of
/// more than about 50 instructions; this one, of those UniformConditions
/// takes, keeps the register pressure of both paths out of each copy: the
/// tiled matrix product's tile copies then kept their group base in a
/// register instead of loading it from the dispatch context per wave.)
llvm::Loop *unswitch(llvm::Loop &L, llvm::BranchInst *Br, llvm::LoopInfo &LI,
                     llvm::DominatorTree &DT) {
  llvm::BasicBlock *Pre = L.getLoopPreheader();
  if (!L.getExitBlock() || !L.getExitingBlock() || !Pre)
    return nullptr;
  llvm::Value *C = Br->getCondition();
  if (auto *I = llvm::dyn_cast<llvm::Instruction>(C);
      I && !DT.dominates(I, Pre->getTerminator()))
    return nullptr;
  // The preheader branches on C where the loop might not have (an
  // iteration that does not reach Br, or none): never on poison.
  if (!llvm::isGuaranteedNotToBeUndefOrPoison(C))
    C = new llvm::FreezeInst(C, C->getName() + ".fr",
                             Pre->getTerminator()->getIterator());
  llvm::ValueToValueMapTy VMap;
  copyBehind(L, C, ".holds", VMap, LI, DT);
  llvm::LLVMContext &Ctx = Br->getContext();
  llvm::cast<llvm::BranchInst>(VMap[Br])->setCondition(
      llvm::ConstantInt::getTrue(Ctx));
  Br->setCondition(llvm::ConstantInt::getFalse(Ctx));
  return LI.getLoopFor(llvm::cast<llvm::BasicBlock>(VMap[L.getHeader()]));
}

/// Versions L on the conditions Us, all of them in one check before the
/// loop and one copy (a loop with several wrap checks, one per
/// consecutive access: the tiled matrix product's tile copies); returns
/// whether it did. Conditions that cannot be checked are left to the copy.
bool version(llvm::Loop &L, llvm::ArrayRef<UniformBranch> Us,
             llvm::ScalarEvolution &SE, llvm::LoopInfo &LI,
             llvm::DominatorTree &DT, CopyBudget &Budget) {
  llvm::BasicBlock *Exit = L.getExitBlock();
  llvm::BasicBlock *Exiting = L.getExitingBlock();
  llvm::BasicBlock *CheckBB = L.getLoopPreheader();
  if (!Exit || !Exiting || !CheckBB)
    return false;
  const llvm::SCEV *Btc = SE.getBackedgeTakenCount(&L);
  if (llvm::isa<llvm::SCEVCouldNotCompute>(Btc))
    return false;
  llvm::Instruction *At = CheckBB->getTerminator();
  llvm::SCEVExpander Expander(SE, CheckBB->getDataLayout(), "uniform");
  llvm::SmallVector<const UniformBranch *, 4> Checked;
  for (const UniformBranch &U : Us)
    if (checkable(U, Btc, SE, Expander, At))
      Checked.push_back(&U);
  const unsigned Size = instructionCount(L);
  if (Checked.empty() || !Budget.fits(Size))
    return false;
  Budget.spend(Size);

  // Everything is known to be possible: change the IR from here on.
  llvm::IRBuilder<> B(At);
  llvm::Value *Uniform = nullptr;
  for (const UniformBranch *U : Checked) {
    llvm::Value *Holds = emitCheck(*U, Btc, SE, Expander, B);
    Uniform = Uniform ? B.CreateAnd(Uniform, Holds) : Holds;
  }
  Uniform->setName("uniform");

  llvm::ValueToValueMapTy VMap;
  copyBehind(L, Uniform, ".uniform", VMap, LI, DT);
  // In the copy each branch always goes one way (every lane alike);
  // SimplifyCFG and InstCombine fold it (the masks it made).
  for (const UniformBranch *U : Checked)
    fold(L, *U, VMap);
  // The general copy runs for the edge groups only: scalar code there
  // saves the finalizer a masked vector loop.
  llvm::addStringMetadataToLoop(&L, "llvm.loop.vectorize.enable", 0);
  SE.forgetLoop(&L);
  return true;
}

/// Loops of at most MaxLoopInstructions without loops inside.
llvm::SmallVector<llvm::Loop *, 8> innermostLoops(llvm::LoopInfo &LI) {
  llvm::SmallVector<llvm::Loop *, 8> Found;
  for (llvm::Loop *L : LI.getLoopsInPreorder())
    if (L->isInnermost() && instructionCount(*L) <= MaxLoopInstructions)
      Found.push_back(L);
  return Found;
}

/// Unswitches each such loop's branch that goes the same way on every
/// iteration, if any; then the copies' folded branches and the dead paths
/// go. Returns whether F changed: its analyses are stale then.
bool unswitchInvariantBranches(llvm::Function &F,
                               llvm::FunctionAnalysisManager &FAM,
                               CopyBudget &Budget) {
  auto &LI = FAM.getResult<llvm::LoopAnalysis>(F);
  auto &DT = FAM.getResult<llvm::DominatorTreeAnalysis>(F);
  auto &SE = FAM.getResult<llvm::ScalarEvolutionAnalysis>(F);
  auto &AC = FAM.getResult<llvm::AssumptionAnalysis>(F);
  bool Changed = false, Unswitched = false;
  for (llvm::Loop *L : innermostLoops(LI)) {
    llvm::BranchInst *Br = findInvariantBranch(*L);
    if (!Br)
      continue;
    Changed |= llvm::simplifyLoop(L, &DT, &LI, &SE, &AC, nullptr, false);
    Changed |= llvm::formLCSSA(*L, DT, &LI, &SE);
    const unsigned Size = instructionCount(*L);
    if (Budget.fits(Size) && unswitch(*L, Br, LI, DT)) {
      Budget.spend(Size);
      Unswitched = true;
    }
  }
  if (Unswitched) {
    for (llvm::BasicBlock &BB : F)
      llvm::ConstantFoldTerminator(&BB, /*DeleteDeadConditions=*/true);
    llvm::removeUnreachableBlocks(F);
  }
  return Changed || Unswitched;
}

} // namespace

llvm::PreservedAnalyses
UniformConditionsPass::run(llvm::Function &F,
                           llvm::FunctionAnalysisManager &FAM) {
  // First the invariant branches: the loops, and what the analyses know
  // of them, are new for what follows.
  CopyBudget Budget;
  bool Changed = unswitchInvariantBranches(F, FAM, Budget);
  if (Changed)
    FAM.invalidate(F, llvm::PreservedAnalyses::none());
  auto &LI = FAM.getResult<llvm::LoopAnalysis>(F);
  auto &DT = FAM.getResult<llvm::DominatorTreeAnalysis>(F);
  auto &SE = FAM.getResult<llvm::ScalarEvolutionAnalysis>(F);
  auto &AC = FAM.getResult<llvm::AssumptionAnalysis>(F);
  llvm::SmallVector<llvm::Loop *, 8> Innermost = innermostLoops(LI);
  llvm::SmallPtrSet<llvm::Loop *, 8> Outers;
  for (llvm::Loop *L : Innermost) {
    // Dedicated exits and LCSSA: every value leaving the loop goes through
    // a phi of the exit block, which then merges the two copies.
    Changed |= llvm::simplifyLoop(L, &DT, &LI, &SE, &AC, nullptr, false);
    Changed |= llvm::formLCSSA(*L, DT, &LI, &SE);
    std::unique_ptr<LaneValues> Values;
    std::optional<UniformBranch> U = findBranch(*L, SE, /*Strided=*/false);
    if (!U)
      U = findVectorCondition(*L, SE, Values);
    // The wrap checks, one per consecutive access: all of them go into one
    // version, with the bounds check if there is one. (That check's
    // assumption folds the wrap checks of accesses at the lanes' ids; not
    // those of others, the tiled matrix product's rows of A and B.)
    llvm::SmallVector<UniformBranch, 4> WrapChecks =
        findBranches(*L, SE, /*Strided=*/true);
    if (U) {
      WrapChecks.insert(WrapChecks.begin(), *U);
      Changed |= version(*L, WrapChecks, SE, LI, DT, Budget);
      Values.reset(); // Erases the scalars the check did not use.
      continue;
    }
    // Wrap checks whose steps are all known only at run time come last:
    // the bounds check of an outer loop (below) saves more.
    const bool RunTimeSteps =
        llvm::none_of(WrapChecks, [&](const UniformBranch &W) {
          return llvm::isa<llvm::SCEVConstant>(W.Rec->getStepRecurrence(SE));
        });
    if (!WrapChecks.empty() && !RunTimeSteps) {
      Changed |= version(*L, WrapChecks, SE, LI, DT, Budget);
      continue;
    }
    Values.reset();
    // Waves that run column by column (CpuTarget.cpp) loop over a column's
    // rows inside the loop over the X ids: a check of the X ids is
    // invariant in the inner loop, and the outer one is versioned on it.
    // (LLVM's unswitching may have split the inner loop by then.)
    bool OuterVersioned = false;
    llvm::Loop *Outer = L->getParentLoop();
    if (Outer && Outers.insert(Outer).second &&
        instructionCount(*Outer) <= MaxLoopInstructions) {
      Changed |= llvm::simplifyLoop(Outer, &DT, &LI, &SE, &AC, nullptr, false);
      Changed |= llvm::formLCSSARecursively(*Outer, DT, &LI, &SE);
      U = findVectorCondition(*Outer, SE, Values);
      if (U)
        OuterVersioned = version(*Outer, *U, SE, LI, DT, Budget);
      Changed |= OuterVersioned;
      Values.reset();
    }
    if (!WrapChecks.empty() && !OuterVersioned)
      Changed |= version(*L, WrapChecks, SE, LI, DT, Budget);
  }
  return Changed ? llvm::PreservedAnalyses::none()
                 : llvm::PreservedAnalyses::all();
}

} // namespace openhsa::finalizer
