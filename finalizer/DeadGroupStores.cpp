//===- finalizer/DeadGroupStores.cpp - Stores no one reads again ----------===//
#include "finalizer/DeadGroupStores.h"

#include "hsa/hsa_ext_openhsa.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/MemoryLocation.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

#include <cstddef>
#include <optional>

using namespace llvm;

namespace openhsa::finalizer {

namespace {

using Ctx = hsa_ext_openhsa_dispatch_context_t;

/// The dispatch context's field that V loads, where V loads one of its
/// segment bases: the group segment, or the private segment of the group's
/// work-items. The work-group function's second argument is the context.
std::optional<size_t> segmentBaseField(const Value *V, const Function &F) {
  const auto *L = dyn_cast<LoadInst>(V);
  if (!L || F.arg_size() < 2)
    return std::nullopt;
  int64_t Offset = 0;
  const Value *Base = GetPointerBaseWithConstantOffset(
      L->getPointerOperand(), Offset, F.getDataLayout());
  if (Base != F.getArg(1) || (Offset != offsetof(Ctx, group_base) &&
                              Offset != offsetof(Ctx, private_base)))
    return std::nullopt;
  return size_t(Offset);
}

/// The segment base that Ptr is based on, or null.
const Value *segmentOf(const Value *Ptr, const Function &F) {
  const Value *Object = getUnderlyingObject(Ptr);
  return segmentBaseField(Object, F) ? Object : nullptr;
}

bool isPrivateBase(const Value *Segment, const Function &F) {
  return segmentBaseField(Segment, F) == offsetof(Ctx, private_base);
}

/// Whether I marks the end of the work-items that ran last.
bool endsWorkItems(const Instruction &I) {
  const auto *Call = dyn_cast<CallInst>(&I);
  const Function *Callee = Call ? Call->getCalledFunction() : nullptr;
  return Callee && Callee->getName() == WorkItemsEndMarker;
}

/// A store the pass may remove: a plain store or a masked store into a
/// segment, with where it writes.
struct SegmentStore {
  Instruction *Store;
  const Value *Segment;
  MemoryLocation Where;
};

std::optional<SegmentStore> segmentStore(Instruction &I, const Function &F) {
  if (auto *S = dyn_cast<StoreInst>(&I)) {
    if (S->isVolatile() || S->isAtomic())
      return std::nullopt;
    if (const Value *Seg = segmentOf(S->getPointerOperand(), F))
      return SegmentStore{S, Seg, MemoryLocation::get(S)};
    return std::nullopt;
  }
  if (auto *II = dyn_cast<IntrinsicInst>(&I);
      II && II->getIntrinsicID() == Intrinsic::masked_store)
    if (const Value *Seg = segmentOf(II->getArgOperand(1), F))
      return SegmentStore{II, Seg,
                          MemoryLocation::getForArgument(II, 1, nullptr)};
  return std::nullopt;
}

/// Instructions that touch no memory a program can see, whatever their
/// memory effects say: hints and markers.
bool isHint(const Instruction &I) {
  const auto *II = dyn_cast<IntrinsicInst>(&I);
  if (!II)
    return false;
  switch (II->getIntrinsicID()) {
  case Intrinsic::prefetch:
  case Intrinsic::assume:
  case Intrinsic::lifetime_start:
  case Intrinsic::lifetime_end:
  case Intrinsic::experimental_noalias_scope_decl:
  case Intrinsic::sideeffect:
  case Intrinsic::pseudoprobe:
    return true;
  default:
    return isa<DbgInfoIntrinsic>(II);
  }
}

/// Whether I may read any byte of Where.
bool mayRead(const Instruction &I, const MemoryLocation &Where, AAResults &AA) {
  if (!I.mayReadFromMemory() || isHint(I))
    return false;
  // Memory that no store may change (the dispatch context's fields, the
  // kernel's arguments) cannot show what a store wrote.
  if (I.hasMetadata(LLVMContext::MD_invariant_load))
    return false;
  // Nor can the function's arguments, the kernel's arguments and the
  // dispatch context (a row's bounds, the slice's): memory of their own,
  // not the runtime's segments.
  if (const auto *L = dyn_cast<LoadInst>(&I);
      L && isa<Argument>(getUnderlyingObject(L->getPointerOperand())))
    return false;
  return isRefSet(AA.getModRefInfo(&I, Where));
}

} // namespace

unsigned removeDeadGroupStores(Function &F, AAResults &AA) {
  if (!F.hasFnAttribute(WorkGroupFunctionAttr) || F.isDeclaration())
    return 0;

  // The segments the function stores to, and what alias metadata says of
  // all of a segment's stores at once (AAMDNodes::merge: the union of
  // their scopes, where every one has a scope): a wave's interleaved
  // private data are stored in a scope of their own, which the kernel's
  // other accesses are outside of (VectorizerWiden.cpp,
  // scopeRegisterFile), so that a load of global memory in a later wave
  // does not keep them.
  SmallVector<const Value *, 2> Segments;
  DenseMap<const Value *, AAMDNodes> Scopes;
  for (Instruction &I : instructions(F))
    if (auto S = segmentStore(I, F)) {
      if (!is_contained(Segments, S->Segment)) {
        Segments.push_back(S->Segment);
        Scopes[S->Segment] = S->Where.AATags;
      } else {
        Scopes[S->Segment] = Scopes[S->Segment].merge(S->Where.AATags);
      }
    }
  if (Segments.empty())
    return 0;

  // Per segment, the instructions of each block that may read some of it
  // (found once: a lockstep group's body is one long block), whether a
  // block reads it before any end of work-items (for the private segment;
  // the group segment ends only with the function), then the blocks from
  // whose end such a read may be reached (a backward fixed point).
  using Readers = DenseMap<const BasicBlock *, SmallVector<Instruction *, 4>>;
  DenseMap<const Value *, Readers> ReadersOf;
  DenseMap<const Value *, DenseMap<const BasicBlock *, bool>> LiveOut;
  DenseMap<const BasicBlock *, Instruction *> FirstEnd;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (endsWorkItems(I)) {
        FirstEnd[&BB] = &I;
        break;
      }
  for (const Value *Seg : Segments) {
    const bool Private = isPrivateBase(Seg, F);
    const MemoryLocation Whole =
        MemoryLocation::getBeforeOrAfter(Seg, Scopes[Seg]);
    Readers &In = ReadersOf[Seg];
    DenseMap<const BasicBlock *, bool> ReadsOnEntry, Ends;
    for (BasicBlock &BB : F) {
      Instruction *End = Private ? FirstEnd.lookup(&BB) : nullptr;
      Ends[&BB] = End != nullptr;
      for (Instruction &I : BB)
        if (mayRead(I, Whole, AA)) {
          In[&BB].push_back(&I);
          ReadsOnEntry[&BB] |= !End || I.comesBefore(End);
        }
    }
    auto &Live = LiveOut[Seg];
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (BasicBlock &BB : F) {
        if (Live[&BB])
          continue;
        if (any_of(successors(&BB), [&](const BasicBlock *S) {
              return ReadsOnEntry.lookup(S) || (!Ends.lookup(S) && Live[S]);
            })) {
          Live[&BB] = true;
          Changed = true;
        }
      }
    }
  }

  // A store is dead where none of its segment's readers after it in its
  // block reads its bytes (before the work-items end, for a private one),
  // and no later block reads its segment (the work-items' end in its block
  // ends its private data there).
  SmallVector<Instruction *, 32> Dead;
  for (BasicBlock &BB : F) {
    Instruction *NextEnd = nullptr;
    for (Instruction &I : reverse(BB)) {
      if (endsWorkItems(I)) {
        NextEnd = &I;
        continue;
      }
      std::optional<SegmentStore> S = segmentStore(I, F);
      if (!S)
        continue;
      Instruction *End = isPrivateBase(S->Segment, F) ? NextEnd : nullptr;
      if (!End && LiveOut[S->Segment][&BB])
        continue;
      const Readers &In = ReadersOf[S->Segment];
      const auto Found = In.find(&BB);
      if (Found == In.end() || none_of(Found->second, [&](Instruction *R) {
            return I.comesBefore(R) && (!End || R->comesBefore(End)) &&
                   mayRead(*R, S->Where, AA);
          }))
        Dead.push_back(&I);
    }
  }
  for (Instruction *I : Dead)
    I->eraseFromParent();
  return unsigned(Dead.size());
}

FunctionCallee workItemsEndMarker(Module &M) {
  LLVMContext &C = M.getContext();
  FunctionCallee Marker = M.getOrInsertFunction(
      WorkItemsEndMarker, FunctionType::get(Type::getVoidTy(C), false));
  if (auto *Fn = dyn_cast<Function>(Marker.getCallee())) {
    Fn->setMemoryEffects(MemoryEffects::inaccessibleMemOnly());
    Fn->setDoesNotThrow();
    Fn->addFnAttr(Attribute::WillReturn);
    Fn->addFnAttr(Attribute::NoSync);
  }
  return Marker;
}

void eraseWorkItemsEndMarkers(Module &M) {
  Function *Marker = M.getFunction(WorkItemsEndMarker);
  if (!Marker)
    return;
  for (User *U : make_early_inc_range(Marker->users()))
    cast<Instruction>(U)->eraseFromParent();
  Marker->eraseFromParent();
}

PreservedAnalyses DeadGroupStoresPass::run(Function &F,
                                           FunctionAnalysisManager &FAM) {
  if (!removeDeadGroupStores(F, FAM.getResult<AAManager>(F)))
    return PreservedAnalyses::all();
  PreservedAnalyses PA;
  PA.preserveSet<CFGAnalyses>();
  return PA;
}

} // namespace openhsa::finalizer
