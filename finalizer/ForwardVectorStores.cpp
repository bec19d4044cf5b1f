//===- finalizer/ForwardVectorStores.cpp - Stored lanes to loads ----------===//

#include "finalizer/ForwardVectorStores.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Analysis/MemoryLocation.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsX86.h"

#include <optional>

namespace openhsa::finalizer {

using namespace llvm;

namespace {

/// A load or store whose lanes are known: at a constant offset from Base,
/// Lanes elements of type Elt (one for a scalar), Active the lanes it
/// reads or writes (its mask, a constant).
struct Access {
  Value *Base = nullptr;
  int64_t Offset = 0;
  Type *Elt = nullptr;
  uint64_t EltBytes = 0;
  unsigned Lanes = 0;
  SmallBitVector Active;
  Value *Stored = nullptr;   // A store's value.
  Value *Passthru = nullptr; // A masked load's inactive lanes.
  /// A gather's lanes, each this far from Offset (else side by side).
  SmallVector<int64_t, 16> LaneOffsets;

  int64_t laneStart(unsigned L) const {
    return Offset + (LaneOffsets.empty() ? int64_t(L) * int64_t(EltBytes)
                                         : LaneOffsets[L]);
  }
  int64_t end() const { return laneStart(Lanes); }
};

/// The lanes a constant mask sets; none where it is not a constant of
/// ones and zeros.
std::optional<SmallBitVector> constantMask(Value *Mask, unsigned Lanes) {
  auto *C = dyn_cast<Constant>(Mask);
  if (!C)
    return std::nullopt;
  SmallBitVector Bits(Lanes);
  for (unsigned L = 0; L < Lanes; ++L) {
    Constant *E = C->getAggregateElement(L);
    if (!E || isa<UndefValue>(E))
      return std::nullopt;
    if (E->isOneValue())
      Bits.set(L);
    else if (!E->isNullValue())
      return std::nullopt;
  }
  return Bits;
}

std::optional<Access> accessOf(Instruction &I, const DataLayout &DL) {
  Value *Ptr = nullptr, *Mask = nullptr;
  Type *Ty = nullptr;
  Access A;
  if (auto *L = dyn_cast<LoadInst>(&I)) {
    if (!L->isSimple())
      return std::nullopt;
    Ptr = L->getPointerOperand();
    Ty = L->getType();
  } else if (auto *S = dyn_cast<StoreInst>(&I)) {
    if (!S->isSimple())
      return std::nullopt;
    Ptr = S->getPointerOperand();
    A.Stored = S->getValueOperand();
    Ty = A.Stored->getType();
  } else if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
    if (II->getIntrinsicID() == Intrinsic::masked_load) {
      Ptr = II->getArgOperand(0);
      Mask = II->getArgOperand(2);
      A.Passthru = II->getArgOperand(3);
      Ty = II->getType();
    } else if (II->getIntrinsicID() == Intrinsic::masked_store) {
      A.Stored = II->getArgOperand(0);
      Ptr = II->getArgOperand(1);
      Mask = II->getArgOperand(3);
      Ty = A.Stored->getType();
    } else if (II->getIntrinsicID() == Intrinsic::masked_gather) {
      // A gather whose lanes are constant offsets from one pointer (a
      // lockstep group's, unrolled): getelementptr T, ptr P, <constants>.
      auto *GEP = dyn_cast<GetElementPtrInst>(II->getArgOperand(0));
      Mask = II->getArgOperand(2);
      A.Passthru = II->getArgOperand(3);
      Ty = II->getType();
      if (!GEP || GEP->getNumIndices() != 1 ||
          GEP->getPointerOperandType()->isVectorTy())
        return std::nullopt;
      auto *Index = dyn_cast<Constant>(GEP->getOperand(1));
      if (!Index)
        return std::nullopt;
      const int64_t Size = int64_t(
          DL.getTypeAllocSize(GEP->getSourceElementType()).getFixedValue());
      for (unsigned L = 0; L < cast<FixedVectorType>(Ty)->getNumElements();
           ++L) {
        Constant *E = Index->getAggregateElement(L);
        auto *CI = dyn_cast_or_null<ConstantInt>(E);
        if (!CI && !isa_and_nonnull<PoisonValue>(E))
          return std::nullopt;
        // A poison offset is an inactive lane's (checked below).
        A.LaneOffsets.push_back(CI ? CI->getSExtValue() * Size : INT64_MIN);
      }
      Ptr = GEP->getPointerOperand();
    } else if (II->getIntrinsicID() ==
                   Intrinsic::x86_avx512_mask_gather_dpi_512 ||
               II->getIntrinsicID() ==
                   Intrinsic::x86_avx512_mask_gather_dps_512) {
      // AVX-512 gathers by 32-bit indices (the vectorizer's
      // gatherBy32BitIndices): lane L at Ptr + sext(index L) * scale, where
      // the indices are constants (a lockstep group's, unrolled).
      A.Passthru = II->getArgOperand(0);
      Ptr = II->getArgOperand(1);
      Mask = II->getArgOperand(3);
      Ty = II->getType();
      auto *Index = dyn_cast<Constant>(II->getArgOperand(2));
      auto *Scale = dyn_cast<ConstantInt>(II->getArgOperand(4));
      auto *VT = cast<FixedVectorType>(Ty);
      if (!Index || !Scale)
        return std::nullopt;
      for (unsigned L = 0; L < VT->getNumElements(); ++L) {
        auto *E = dyn_cast_or_null<ConstantInt>(Index->getAggregateElement(L));
        if (!E)
          return std::nullopt;
        A.LaneOffsets.push_back(E->getSExtValue() * Scale->getSExtValue());
      }
    } else {
      return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  auto *VT = dyn_cast<FixedVectorType>(Ty);
  A.Elt = VT ? VT->getElementType() : Ty;
  // Elements whose lanes sit side by side in memory, a whole number of
  // bytes each (not i1, not x86_fp80).
  if (!A.Elt->isIntegerTy() && !A.Elt->isFloatingPointTy() &&
      !A.Elt->isPointerTy())
    return std::nullopt;
  const uint64_t Bits = DL.getTypeSizeInBits(A.Elt).getFixedValue();
  A.EltBytes = DL.getTypeAllocSize(A.Elt).getFixedValue();
  if (Bits % 8 != 0 || Bits / 8 != A.EltBytes)
    return std::nullopt;
  A.Lanes = VT ? VT->getNumElements() : 1;
  if (Mask) {
    std::optional<SmallBitVector> Bits = constantMask(Mask, A.Lanes);
    if (!Bits)
      return std::nullopt;
    A.Active = std::move(*Bits);
  } else {
    A.Active = SmallBitVector(A.Lanes, true);
  }
  for (unsigned L = 0; L < A.LaneOffsets.size(); ++L)
    if (A.LaneOffsets[L] == INT64_MIN) {
      if (A.Active.test(L))
        return std::nullopt;
      A.LaneOffsets[L] = 0;
    }
  APInt Offset(DL.getIndexTypeSizeInBits(Ptr->getType()), 0);
  A.Base = Ptr->stripAndAccumulateConstantOffsets(DL, Offset,
                                                  /*AllowNonInbounds=*/true);
  if (Offset.getSignificantBits() > 48) // Far enough from overflow below.
    return std::nullopt;
  A.Offset = Offset.getSExtValue();
  return A;
}

/// Where a loaded lane comes from: the store and its lane.
struct LaneSource {
  const Access *Store = nullptr;
  unsigned Lane = 0;
};

/// The newest store of Stores (oldest first) that wrote lane L of Load,
/// with L's exact bytes and type; none where no store wrote it whole (then
/// memory holds it) or a newer store wrote part of it.
std::optional<LaneSource> sourceOf(const Access &Load, unsigned L,
                                   ArrayRef<Access> Stores) {
  const int64_t Lo = Load.laneStart(L), Hi = Lo + int64_t(Load.EltBytes);
  for (const Access &S : llvm::reverse(Stores)) {
    if (S.Base != Load.Base || Hi <= S.Offset || S.end() <= Lo)
      continue;
    const int64_t Into = Lo - S.Offset, Size = int64_t(S.EltBytes);
    if (S.Elt == Load.Elt && Into >= 0 && Into % Size == 0) {
      if (S.Active.test(unsigned(Into / Size)))
        return LaneSource{&S, unsigned(Into / Size)};
      continue; // A lane this store left alone: an older one may have it.
    }
    // Other lanes' bytes: forwarding is off if S wrote any of L's.
    const int64_t First = std::max<int64_t>(0, Into / Size);
    const int64_t Last =
        std::min<int64_t>(int64_t(S.Lanes) - 1, (Hi - 1 - S.Offset) / Size);
    for (int64_t J = First; J <= Last; ++J)
      if (S.Active.test(unsigned(J)))
        return std::nullopt;
  }
  return std::nullopt;
}

/// The value Load reads, built from the stored values: a shuffle per store
/// it reads from, blended lane by lane.
Value *forwardedValue(Instruction &I, const Access &Load,
                      ArrayRef<LaneSource> From) {
  IRBuilder<> B(&I);
  if (!I.getType()->isVectorTy()) {
    const LaneSource &S = From[0];
    Value *V = S.Store->Stored;
    return V->getType()->isVectorTy() ? B.CreateExtractElement(V, S.Lane) : V;
  }
  const unsigned N = Load.Lanes;
  Value *Result = Load.Passthru ? Load.Passthru : PoisonValue::get(I.getType());
  SmallVector<const Access *, 8> Stores;
  for (unsigned L = 0; L < N; ++L)
    if (Load.Active.test(L) && !llvm::is_contained(Stores, From[L].Store))
      Stores.push_back(From[L].Store);
  for (const Access *S : Stores) {
    Value *Lanes = nullptr;
    bool Everything = true; // S gives every lane the load has.
    if (!S->Stored->getType()->isVectorTy()) {
      Lanes = B.CreateVectorSplat(N, S->Stored);
      for (unsigned L = 0; L < N; ++L)
        Everything &= Load.Active.test(L) && From[L].Store == S;
    } else {
      SmallVector<int, 64> Pick(N, PoisonMaskElem);
      for (unsigned L = 0; L < N; ++L) {
        if (Load.Active.test(L) && From[L].Store == S)
          Pick[L] = int(From[L].Lane);
        else
          Everything = false;
      }
      Lanes = B.CreateShuffleVector(S->Stored, Pick);
    }
    if (Everything) {
      Result = Lanes;
      continue;
    }
    SmallVector<int, 64> Blend(N);
    for (unsigned L = 0; L < N; ++L)
      Blend[L] =
          Load.Active.test(L) && From[L].Store == S ? int(N + L) : int(L);
    Result = B.CreateShuffleVector(Result, Lanes, Blend);
  }
  return Result;
}

unsigned forwardInBlock(BasicBlock &BB, AAResults &AA, const DataLayout &DL) {
  unsigned Forwarded = 0;
  SmallVector<Access, 16> Stores; // Oldest first.
  // Drops the stores that I may have overwritten since.
  auto Clobber = [&](Instruction &I) {
    llvm::erase_if(Stores, [&](const Access &S) {
      return isModSet(
          AA.getModRefInfo(&I, MemoryLocation::getBeforeOrAfter(S.Base)));
    });
  };
  for (Instruction &I : llvm::make_early_inc_range(BB)) {
    std::optional<Access> A = accessOf(I, DL);
    if (!A) {
      if (I.mayWriteToMemory())
        Clobber(I);
      continue;
    }
    if (A->Stored) {
      // Stores through other pointers to the same memory are forgotten.
      llvm::erase_if(Stores, [&](const Access &S) {
        return S.Base != A->Base &&
               !AA.isNoAlias(MemoryLocation::getBeforeOrAfter(S.Base),
                             MemoryLocation::getBeforeOrAfter(A->Base));
      });
      Stores.push_back(std::move(*A));
      continue;
    }
    SmallVector<LaneSource, 64> From(A->Lanes);
    bool All = A->Active.any();
    for (unsigned L = 0; All && L < A->Lanes; ++L) {
      if (!A->Active.test(L))
        continue;
      std::optional<LaneSource> S = sourceOf(*A, L, Stores);
      if (S)
        From[L] = *S;
      else
        All = false;
    }
    if (!All)
      continue;
    I.replaceAllUsesWith(forwardedValue(I, *A, From));
    I.eraseFromParent();
    ++Forwarded;
  }
  return Forwarded;
}

} // namespace

unsigned forwardVectorStores(Function &F, AAResults &AA) {
  unsigned Forwarded = 0;
  for (BasicBlock &BB : F)
    Forwarded += forwardInBlock(BB, AA, F.getDataLayout());
  return Forwarded;
}

PreservedAnalyses ForwardVectorStoresPass::run(Function &F,
                                               FunctionAnalysisManager &FAM) {
  if (!forwardVectorStores(F, FAM.getResult<AAManager>(F)))
    return PreservedAnalyses::all();
  PreservedAnalyses PA;
  PA.preserveSet<CFGAnalyses>();
  return PA;
}

} // namespace openhsa::finalizer
