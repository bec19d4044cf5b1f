//===- finalizer/VectorizerGroup.cpp - What a group's waves share ---------===//
#include "finalizer/VectorizerImpl.h"

#include "finalizer/Lowering.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

namespace openhsa::finalizer::vectorizer {

//===----------------------------------------------------------------------===//
// What the waves of a group share
//===----------------------------------------------------------------------===//

void markLoadsRepeatedAcrossBarriers(Function &F) {
  // The entry dispatches on the resume argument to each region: the body
  // (its default) and the code after each barrier; a barrier returns the
  // region to resume at.
  auto *Dispatch = dyn_cast<SwitchInst>(F.getEntryBlock().getTerminator());
  if (!F.getReturnType()->isIntegerTy() || F.arg_size() < 3 || !Dispatch ||
      Dispatch->getCondition() != F.getArg(2))
    return;
  SmallVector<BasicBlock *, 16> Entries{Dispatch->getDefaultDest()};
  for (auto Case : Dispatch->cases())
    Entries.push_back(Case.getCaseSuccessor());
  const size_t N = Entries.size();
  // The blocks each region may run (a region ends at the returns).
  std::vector<SmallPtrSet<BasicBlock *, 32>> Runs(N);
  for (size_t R = 0; R < N; ++R) {
    SmallVector<BasicBlock *, 32> Work{Entries[R]};
    while (!Work.empty()) {
      BasicBlock *BB = Work.pop_back_val();
      if (Runs[R].insert(BB).second)
        append_range(Work, successors(BB));
    }
  }
  // Next[R][S]: region R may stop at a barrier that resumes region S.
  std::vector<std::vector<bool>> Next(N, std::vector<bool>(N, false));
  for (BasicBlock &BB : F) {
    auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator());
    auto *Resume =
        Ret ? dyn_cast_or_null<ConstantInt>(Ret->getReturnValue()) : nullptr;
    if (!Resume)
      continue;
    auto Case = Dispatch->findCaseValue(Resume);
    if (Case == Dispatch->case_default())
      continue; // The end (-1), or no region.
    for (size_t R = 0; R < N; ++R)
      if (Runs[R].contains(&BB))
        Next[R][Case->getCaseIndex() + 1] = true;
  }
  // The regions a group may run again: those on a cycle of Next.
  for (size_t K = 0; K < N; ++K)
    for (size_t R = 0; R < N; ++R)
      if (Next[R][K])
        for (size_t S = 0; S < N; ++S)
          if (Next[K][S])
            Next[R][S] = true;
  MDNode *Mark = MDNode::get(F.getContext(), {});
  for (size_t R = 0; R < N; ++R)
    if (Next[R][R])
      for (BasicBlock *BB : Runs[R])
        for (Instruction &I : *BB)
          if (isa<LoadInst>(I))
            I.setMetadata(RepeatedLoad, Mark);
}

bool Vectorizer::computeGroupVarying(Instruction &I) {
  if (isVarying(&I))
    return true;
  auto AnyOperandVarying = [&] {
    for (Value *Op : I.operands())
      if (isGroupVarying(Op))
        return true;
    return false;
  };
  if (auto *CI = dyn_cast<CallInst>(&I)) {
    Function *Callee = CI->getCalledFunction();
    // Ids in any dimension, and what a wave computes across its own lanes.
    if (isQuery(Callee, query::WorkItemId) ||
        isQuery(Callee, query::WaveBallot) ||
        isQuery(Callee, query::WaveLaneId) ||
        isQuery(Callee, query::WaveShuffle32) ||
        isQuery(Callee, query::WaveShuffle64) ||
        isQuery(Callee, query::PrivateBase) ||
        isQuery(Callee, query::WaveRegisterFile))
      return true;
    // A wave's own copy of a register differs from another wave's.
    if (isQuery(Callee, LaneMarker) || isQuery(Callee, SlotBaseMarker))
      return !GroupSharedSlots.count(slotOf(*CI));
    if (Callee && Callee->getName().starts_with("openhsa."))
      return false; // The same for the whole group.
    if (!hasEffects(*CI))
      return AnyOperandVarying();
    return true;
  }
  if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I) || isa<AllocaInst>(I))
    return true;
  // Every wave reads the same location alike (a location that a wave wrote
  // since the last barrier and another reads is a data race).
  if (auto *L = dyn_cast<LoadInst>(&I); L && !L->isSimple())
    return true;
  if (auto *P = dyn_cast<PHINode>(&I))
    return AnyOperandVarying() ||
           mergesLanes(*P, [&](const Value *V) { return isGroupVarying(V); });
  if (I.isTerminator())
    return false;
  return AnyOperandVarying();
}

void Vectorizer::findGroupSharedSlots() {
  GroupSharedSlots.clear();
  if (Layout != WaveLayout::Rows || !File.Wave)
    return;
  // Candidates: the slots each wave keeps one copy of.
  for (unsigned Slot = 0; Slot < File.SlotOffsets.size(); ++Slot)
    if (!VaryingSlots.count(Slot))
      GroupSharedSlots.insert(Slot);
  // A load that may follow a store of its slot before the region ends
  // would read the group's copy as the region started, not the value
  // stored: such slots stay the wave's (see readAfterWritten).
  for (unsigned Slot = 0; Slot < File.SlotOffsets.size(); ++Slot)
    if (File.Unknown || File.ReadAfterWritten.count(File.SlotOffsets[Slot]))
      GroupSharedSlots.erase(Slot);
  for (bool Changed = true; Changed;) {
    GroupVarying.clear();
    for (bool Grew = true; Grew;) {
      Grew = false;
      for (BasicBlock *BB : RPO)
        for (Instruction &I : *BB)
          if (!GroupVarying.count(&I) && computeGroupVarying(I)) {
            GroupVarying.insert(&I);
            Grew = true;
          }
    }
    DenseSet<const BasicBlock *> WholeGroup =
        wholeBlocks([&](const Value *V) { return isGroupVarying(V); });
    Changed = false;
    for (auto &[St, Slot] : RegisterStores)
      if (GroupSharedSlots.count(Slot) &&
          (isGroupVarying(St->getValueOperand()) ||
           !WholeGroup.count(St->getParent()))) {
        GroupSharedSlots.erase(Slot);
        Changed = true;
      }
  }
}

bool Vectorizer::hasVisibleEffect(const Instruction &I) const {
  if (auto *St = dyn_cast<StoreInst>(&I))
    if (auto *Base =
            dyn_cast<CallInst>(getUnderlyingObject(St->getPointerOperand()));
        Base && isQuery(Base->getCalledFunction(), SlotBaseMarker) &&
        GroupSharedSlots.count(slotOf(*Base)))
      return !St->isSimple();
  if (auto *CI = dyn_cast<CallInst>(&I)) {
    Function *Callee = CI->getCalledFunction();
    // The queries read the dispatch's state; the markers are addresses.
    if (Callee && Callee->getName().starts_with("openhsa.") &&
        !isQuery(Callee, query::Barrier) &&
        !isQuery(Callee, query::WaveBarrier))
      return false;
  }
  return I.mayHaveSideEffects();
}

/// Whether V is the work-item's X id (through phis of it; StructurizeCFG's
/// flow phis are undefined on edges where the value is not used).
static bool isXId(const Value *V, SmallPtrSetImpl<const Value *> &Seen) {
  if (!Seen.insert(V).second || isa<UndefValue>(V))
    return true;
  if (auto *CI = dyn_cast<CallInst>(V))
    if (isQuery(CI->getCalledFunction(), query::WorkItemId))
      if (auto *D = dyn_cast<ConstantInt>(CI->getArgOperand(1)))
        return D->isZero();
  if (auto *P = dyn_cast<PHINode>(V))
    return all_of(P->incoming_values(),
                  [&](const Value *In) { return isXId(In, Seen); });
  return false;
}

void Vectorizer::findRowSkips() {
  if (Layout != WaveLayout::Rows || !F.getReturnType()->isIntegerTy(32))
    return;
  for (BasicBlock *BB : RPO) {
    BasicBlock *Join = divergentJoin(BB);
    if (!Join || !WholeWave.count(BB))
      continue;
    auto *Br = cast<BranchInst>(BB->getTerminator());
    auto *Cmp = dyn_cast<ICmpInst>(Br->getCondition());
    if (!Cmp)
      continue;
    // The predicate under which a lane enters the if, as `X Pred Bound`.
    CmpInst::Predicate Pred = Cmp->getPredicate();
    if (Br->getSuccessor(0) == Join)
      Pred = CmpInst::getInversePredicate(Pred);
    Value *X = Cmp->getOperand(0), *Bound = Cmp->getOperand(1);
    SmallPtrSet<const Value *, 4> Seen;
    if (!isXId(X, Seen)) {
      std::swap(X, Bound);
      Pred = CmpInst::getSwappedPredicate(Pred);
      Seen.clear();
      if (!isXId(X, Seen))
        continue;
    }
    if (isVarying(Bound) || isGroupVarying(Bound))
      continue;
    // The lanes entering are those whose X id is below a bound (or equal
    // to it): none of a later wave enters once lane 0's X id is past it.
    CmpInst::Predicate Done;
    switch (Pred) {
    case CmpInst::ICMP_ULT:
      Done = CmpInst::ICMP_UGE;
      break;
    case CmpInst::ICMP_SLT:
      Done = CmpInst::ICMP_SGE;
      break;
    case CmpInst::ICMP_ULE:
    case CmpInst::ICMP_EQ:
      Done = CmpInst::ICMP_UGT;
      break;
    case CmpInst::ICMP_SLE:
      Done = CmpInst::ICMP_SGT;
      break;
    default:
      continue;
    }
    RowSkips.push_back({BB, Join, X, Done, Bound});
  }
  // What a later wave of the row might do that this one did not see: the
  // effects of the blocks it runs, a varying if with effects that it
  // skipped (a later wave's lanes may enter, unless the if is one of the
  // above and this wave is past its bound), a branch whose condition may
  // differ between waves. StructurizeCFG routes every region's code
  // through one graph, so this is tracked as the wave runs, not read off
  // the graph.
  auto Effectful = [&](const BasicBlock *BB) {
    return any_of(*BB,
                  [&](const Instruction &I) { return hasVisibleEffect(I); });
  };
  for (BasicBlock *BB : RPO) {
    if (Effectful(BB))
      MayDiffer.push_back({BB, nullptr, nullptr});
    if (isDivergent(BB)) {
      BasicBlock *Join = divergentJoin(BB);
      if (!Join)
        continue; // Latches: the body runs under the loop's entry mask.
      auto *Br = cast<BranchInst>(BB->getTerminator());
      BasicBlock *Then = Br->getSuccessor(0) == Join ? Br->getSuccessor(1)
                                                     : Br->getSuccessor(0);
      DenseSet<const BasicBlock *> Seen;
      SmallVector<const BasicBlock *, 8> Work{Then};
      bool Effects = false;
      while (!Work.empty() && !Effects) {
        const BasicBlock *R = Work.pop_back_val();
        if (R == Join || !Seen.insert(R).second)
          continue;
        Effects = Effectful(R);
        append_range(Work, successors(R));
      }
      if (!Effects)
        continue;
      const RowSkip *Bounded = nullptr;
      for (const RowSkip &R : RowSkips)
        if (R.If == BB)
          Bounded = &R;
      MayDiffer.push_back({BB, Join, Bounded});
    } else if (branchesOn(BB,
                          [&](const Value *V) { return isGroupVarying(V); })) {
      MayDiffer.push_back({BB, nullptr, nullptr});
    }
  }
}

void Vectorizer::emitRowSkips() {
  if (Layout != WaveLayout::Rows || !F.getReturnType()->isIntegerTy(32))
    return;
  IRBuilder<> Entry(&*F.getEntryBlock().getFirstInsertionPt());
  Value *Differs =
      Entry.CreateAlloca(Entry.getInt1Ty(), nullptr, "row.differs");
  // A partial wave is the row's last (and its lanes past the end have no
  // work-item): only a wave whose lanes are all on speaks for later ones.
  Entry.CreateStore(Entry.CreateNot(Entry.CreateAndReduce(Active)), Differs);
  for (const MayDifferAt &D : MayDiffer) {
    if (!D.Join) {
      new StoreInst(ConstantInt::getTrue(Ctx), Differs,
                    D.At->getTerminator()->getIterator());
      continue;
    }
    // The edge by which the wave skips the if (rewriteBranches: taken when
    // no lane enters).
    BasicBlock *Edge = SplitEdge(D.At, D.Join);
    IRBuilder<> B(Edge->getTerminator());
    Value *Later = B.getTrue();
    if (D.Bounded)
      Later = B.CreateNot(B.CreateICmp(
          D.Bounded->Done, scalarAt(D.Bounded->X, 0, B), D.Bounded->Bound));
    B.CreateStore(B.CreateOr(B.CreateLoad(B.getInt1Ty(), Differs), Later),
                  Differs);
  }
  for (BasicBlock &BB : F)
    if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator())) {
      IRBuilder<> B(Ret);
      Value *V = Ret->getReturnValue();
      Ret->setOperand(0,
                      B.CreateSelect(B.CreateLoad(B.getInt1Ty(), Differs), V,
                                     B.CreateAdd(V, B.getInt32(RowDoneBias))));
    }
}

} // namespace openhsa::finalizer::vectorizer
