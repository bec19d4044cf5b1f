//===- finalizer/UniformConditions.cpp - Version loops on uniform branches ===//
#include "finalizer/UniformConditions.h"

#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

namespace openhsa::finalizer {
namespace {

/// Loops larger than this are not copied: the copy costs compile time.
constexpr unsigned MaxLoopInstructions = 400;

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
};

unsigned instructionCount(const llvm::Loop &L) {
  unsigned N = 0;
  for (const llvm::BasicBlock *BB : L.blocks())
    N += BB->size();
  return N;
}

std::optional<UniformBranch> findBranch(llvm::Loop &L,
                                        llvm::ScalarEvolution &SE) {
  const llvm::BasicBlock *Latch = L.getLoopLatch();
  for (llvm::BasicBlock *BB : L.blocks()) {
    auto *Br = llvm::dyn_cast<llvm::BranchInst>(BB->getTerminator());
    if (!Br || !Br->isConditional() || L.isLoopExiting(BB))
      continue;
    auto *Cmp = llvm::dyn_cast<llvm::ICmpInst>(Br->getCondition());
    if (!Cmp || Cmp->isEquality() || !L.contains(Cmp) ||
        !Cmp->getOperand(0)->getType()->isIntegerTy())
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
    auto *Step =
        llvm::dyn_cast<llvm::SCEVConstant>(U.Rec->getStepRecurrence(SE));
    if (!Step || !(Step->getAPInt().isOne() || Step->getAPInt().isAllOnes()))
      continue;
    U.Increasing = Step->getAPInt().isOne();
    U.Assumed = Br->getSuccessor(0) != Latch;
    return U;
  }
  return std::nullopt;
}

/// Versions L on U; returns whether it did.
bool version(llvm::Loop &L, const UniformBranch &U, llvm::ScalarEvolution &SE,
             llvm::LoopInfo &LI, llvm::DominatorTree &DT) {
  llvm::BasicBlock *Exit = L.getExitBlock();
  llvm::BasicBlock *Exiting = L.getExitingBlock();
  llvm::BasicBlock *CheckBB = L.getLoopPreheader();
  if (!Exit || !Exiting || !CheckBB)
    return false;

  // The compared value on the last iteration: Start + BTC * Step, with the
  // trip count in the value's width (it steps by one, so it cannot take
  // more than 2^W distinct values without wrapping, which the check
  // below catches).
  const llvm::SCEV *Btc = SE.getBackedgeTakenCount(&L);
  if (llvm::isa<llvm::SCEVCouldNotCompute>(Btc))
    return false;
  llvm::Type *Ty = U.Rec->getType();
  const unsigned Width = SE.getTypeSizeInBits(Ty);
  if (SE.getUnsignedRangeMax(Btc).getActiveBits() > Width)
    return false;
  const llvm::SCEV *End =
      U.Rec->evaluateAtIteration(SE.getTruncateOrZeroExtend(Btc, Ty), SE);

  llvm::Instruction *At = CheckBB->getTerminator();
  llvm::SCEVExpander Expander(SE, CheckBB->getDataLayout(), "uniform");
  for (const llvm::SCEV *S : {U.Rec->getStart(), End, U.Bound})
    if (!Expander.isSafeToExpandAt(S, At))
      return false;

  // Everything is known to be possible: change the IR from here on.
  llvm::Value *StartV = Expander.expandCodeFor(U.Rec->getStart(), Ty, At);
  llvm::Value *EndV = Expander.expandCodeFor(End, Ty, At);
  llvm::Value *BoundV = Expander.expandCodeFor(U.Bound, Ty, At);
  llvm::IRBuilder<> B(At);
  const llvm::CmpInst::Predicate Pred = U.Cmp->getPredicate();
  auto Condition = [&](llvm::Value *X) {
    llvm::Value *C = U.RecIsLHS ? B.CreateICmp(Pred, X, BoundV)
                                : B.CreateICmp(Pred, BoundV, X);
    return U.Assumed ? C : B.CreateNot(C);
  };
  // No wrap from the first to the last value, in the comparison's
  // signedness: then the comparison is monotone over the iterations.
  const bool Signed = llvm::ICmpInst::isSigned(Pred);
  llvm::Value *Ordered = U.Increasing
                             ? B.CreateICmp(Signed ? llvm::CmpInst::ICMP_SLE
                                                   : llvm::CmpInst::ICMP_ULE,
                                            StartV, EndV)
                             : B.CreateICmp(Signed ? llvm::CmpInst::ICMP_SGE
                                                   : llvm::CmpInst::ICMP_UGE,
                                            StartV, EndV);
  llvm::Value *Uniform = B.CreateAnd(
      Ordered, B.CreateAnd(Condition(StartV), Condition(EndV)), "uniform");

  llvm::BasicBlock *Preheader = llvm::SplitBlock(
      CheckBB, At, &DT, &LI, nullptr, CheckBB->getName() + ".general");
  llvm::ValueToValueMapTy VMap;
  llvm::SmallVector<llvm::BasicBlock *, 8> Blocks;
  llvm::Loop *Fast = llvm::cloneLoopWithPreheader(Preheader, CheckBB, &L, VMap,
                                                  ".uniform", &LI, &DT, Blocks);
  llvm::remapInstructionsInBlocks(Blocks, VMap);
  llvm::Instruction *OldTerm = CheckBB->getTerminator();
  llvm::BranchInst::Create(Fast->getLoopPreheader(), Preheader, Uniform,
                           OldTerm);
  OldTerm->eraseFromParent();
  DT.changeImmediateDominator(Exit, CheckBB);
  auto *FastExiting = llvm::cast<llvm::BasicBlock>(VMap[Exiting]);
  for (llvm::PHINode &Phi : Exit->phis()) {
    llvm::Value *In = Phi.getIncomingValueForBlock(Exiting);
    auto It = VMap.find(In);
    Phi.addIncoming(It != VMap.end() ? static_cast<llvm::Value *>(It->second)
                                     : In,
                    FastExiting);
  }
  // In the copy the branch always goes one way; SimplifyCFG folds it.
  llvm::cast<llvm::BranchInst>(VMap[U.Branch])
      ->setCondition(B.getInt1(U.Assumed));
  // The general copy runs for the edge groups only: scalar code there
  // saves the finalizer a masked vector loop.
  llvm::addStringMetadataToLoop(&L, "llvm.loop.vectorize.enable", 0);
  SE.forgetLoop(&L);
  return true;
}

} // namespace

llvm::PreservedAnalyses
UniformConditionsPass::run(llvm::Function &F,
                           llvm::FunctionAnalysisManager &FAM) {
  auto &LI = FAM.getResult<llvm::LoopAnalysis>(F);
  auto &DT = FAM.getResult<llvm::DominatorTreeAnalysis>(F);
  auto &SE = FAM.getResult<llvm::ScalarEvolutionAnalysis>(F);
  auto &AC = FAM.getResult<llvm::AssumptionAnalysis>(F);

  llvm::SmallVector<llvm::Loop *, 8> Innermost;
  for (llvm::Loop *L : LI.getLoopsInPreorder())
    if (L->isInnermost() && instructionCount(*L) <= MaxLoopInstructions)
      Innermost.push_back(L);
  bool Changed = false;
  for (llvm::Loop *L : Innermost) {
    // Dedicated exits and LCSSA: every value leaving the loop goes through
    // a phi of the exit block, which then merges the two copies.
    Changed |= llvm::simplifyLoop(L, &DT, &LI, &SE, &AC, nullptr, false);
    Changed |= llvm::formLCSSA(*L, DT, &LI, &SE);
    std::optional<UniformBranch> U = findBranch(*L, SE);
    if (U)
      Changed |= version(*L, *U, SE, LI, DT);
  }
  return Changed ? llvm::PreservedAnalyses::none()
                 : llvm::PreservedAnalyses::all();
}

} // namespace openhsa::finalizer
