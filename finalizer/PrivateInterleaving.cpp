//===- finalizer/PrivateInterleaving.cpp - A wave's private data by lane --===//
#include "finalizer/PrivateInterleaving.h"

#include "finalizer/Lowering.h"
#include "finalizer/VectorizerImpl.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/Utils/Local.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/KnownBits.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace openhsa::finalizer {

namespace {

using namespace llvm;

/// A load or store of the private segment and the GEPs from the segment's
/// base to its address, outermost (the base's user) first.
struct PrivateAccess {
  Instruction *I;
  SmallVector<GetElementPtrInst *, 4> Path;
  unsigned Bytes;
};

/// The least number of trailing zero bits of the byte offset GEP adds.
unsigned offsetTrailingZeros(GetElementPtrInst &GEP, const DataLayout &DL) {
  unsigned Zeros = 64;
  for (auto GTI = gep_type_begin(GEP), E = gep_type_end(GEP); GTI != E; ++GTI) {
    Value *Idx = GTI.getOperand();
    if (StructType *STy = GTI.getStructTypeOrNull()) {
      const uint64_t Field = DL.getStructLayout(STy)->getElementOffset(
          unsigned(cast<ConstantInt>(Idx)->getZExtValue()));
      if (Field)
        Zeros = std::min(Zeros, unsigned(llvm::countr_zero(Field)));
      continue;
    }
    const uint64_t Stride = GTI.getSequentialElementStride(DL).getFixedValue();
    if (!Stride)
      continue;
    const unsigned StrideZeros = unsigned(llvm::countr_zero(Stride));
    if (auto *C = dyn_cast<ConstantInt>(Idx)) {
      if (!C->isZero())
        Zeros = std::min(Zeros,
                         StrideZeros + unsigned(C->getValue().countr_zero()));
      continue;
    }
    const KnownBits Known = computeKnownBits(Idx, DL);
    Zeros = std::min(Zeros, StrideZeros + Known.countMinTrailingZeros());
  }
  return Zeros;
}

/// Every access to the private segment in F, or why some use of the
/// segment's base is not one.
Expected<std::vector<PrivateAccess>>
collectPrivateAccesses(Function &F, SmallVectorImpl<CallInst *> &Bases) {
  const DataLayout &DL = F.getParent()->getDataLayout();
  std::vector<PrivateAccess> Accesses;
  bool CallsFunctions = false;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I)) {
      Function *Callee = CI->getCalledFunction();
      if (vectorizer::isQuery(Callee, query::PrivateBase))
        Bases.push_back(CI);
      else if (!Callee || (!Callee->isDeclaration() &&
                           !Callee->getName().starts_with("openhsa.")))
        CallsFunctions = true;
    }
  if (Bases.empty())
    return Accesses;
  if (CallsFunctions)
    return createStringError("it calls a function it does not inline, "
                             "which would look for its caller's private "
                             "data where the blocks lie side by side");
  struct Pending {
    Value *Ptr;
    SmallVector<GetElementPtrInst *, 4> Path;
  };
  SmallVector<Pending, 16> Work;
  for (CallInst *Base : Bases)
    Work.push_back({Base, {}});
  while (!Work.empty()) {
    Pending P = Work.pop_back_val();
    for (User *U : P.Ptr->users()) {
      Type *Accessed = nullptr;
      if (auto *GEP = dyn_cast<GetElementPtrInst>(U);
          GEP && GEP->getPointerOperand() == P.Ptr) {
        Pending Next{GEP, P.Path};
        Next.Path.push_back(GEP);
        Work.push_back(std::move(Next));
        continue;
      }
      if (auto *L = dyn_cast<LoadInst>(U); L && !L->isAtomic())
        Accessed = L->getType();
      else if (auto *S = dyn_cast<StoreInst>(U);
               S && !S->isAtomic() && S->getPointerOperand() == P.Ptr &&
               S->getValueOperand() != P.Ptr)
        Accessed = S->getValueOperand()->getType();
      if (!Accessed)
        return createStringError(Twine("a private address is used by '") +
                                 cast<Instruction>(U)->getOpcodeName() +
                                 "', not only loaded from or stored to");
      const uint64_t Bytes = DL.getTypeStoreSize(Accessed);
      if (Bytes != 1 && Bytes != 2 && Bytes != 4 && Bytes != 8)
        return createStringError("it accesses " + Twine(Bytes) +
                                 " private bytes at once");
      unsigned Zeros = 64;
      for (GetElementPtrInst *GEP : P.Path)
        Zeros = std::min(Zeros, offsetTrailingZeros(*GEP, DL));
      if (Zeros < unsigned(Log2_64(Bytes)))
        return createStringError("a private access of " + Twine(Bytes) +
                                 " bytes is not known to be aligned to them");
      Accesses.push_back({cast<Instruction>(U), P.Path, unsigned(Bytes)});
    }
  }
  return Accesses;
}

} // namespace

bool privateInterleavingEnabled() {
  const char *Setting = std::getenv("OPENHSA_INTERLEAVE_PRIVATE");
  return !Setting || std::strcmp(Setting, "0") != 0;
}

PrivateInterleaving interleavePrivateSegment(Function &F, unsigned W,
                                             uint64_t PrivateBytes,
                                             uint64_t AreaOffset) {
  PrivateInterleaving R;
  SmallVector<CallInst *, 8> Bases;
  auto Accesses = collectPrivateAccesses(F, Bases);
  if (!Accesses) {
    R.SideBySideReason = toString(Accesses.takeError());
    return R;
  }
  if (Accesses->empty())
    return R; // Nothing to interleave (or nothing in private memory).
  if (!privateInterleavingEnabled()) {
    R.SideBySideReason = "OPENHSA_INTERLEAVE_PRIVATE=0";
    return R;
  }
  unsigned G = 1;
  for (const PrivateAccess &A : *Accesses)
    G = std::max(G, A.Bytes);
  const uint64_t Area = alignTo(PrivateBytes, G) * W;
  if (Area > MaxInterleavedPrivateBytes || AreaOffset + Area > UINT32_MAX) {
    R.SideBySideReason = "the wave's private data (" + std::to_string(Area) +
                         " bytes) would grow every work-item's block by more "
                         "than " +
                         std::to_string(MaxInterleavedPrivateBytes);
    return R;
  }
  Module &M = *F.getParent();
  const DataLayout &DL = M.getDataLayout();
  IRBuilder<> Entry(&*F.getEntryBlock().getFirstInsertionPt());
  Value *AreaBase = Entry.CreateCall(
      M.getOrInsertFunction(query::WaveRegisterFile, Entry.getPtrTy(),
                            Entry.getPtrTy(), Entry.getInt32Ty()),
      {F.getArg(1), Entry.getInt32(uint32_t(AreaOffset))}, "wave.private");
  Value *Lane = Entry.CreateCall(
      M.getOrInsertFunction(PrivateLaneMarker, Entry.getInt64Ty()), {},
      "private.lane");
  Value *LaneOffset = Entry.CreateMul(Lane, Entry.getInt64(G));
  for (const PrivateAccess &A : *Accesses) {
    IRBuilder<> B(A.I);
    Value *Offset = B.getInt64(0);
    for (GetElementPtrInst *GEP : A.Path)
      Offset = B.CreateAdd(Offset, emitGEPOffset(&B, DL, GEP));
    // Offsets are multiples of the access's size, which divides G: an
    // access stays within its granule.
    Value *Mapped;
    if (A.Bytes == G) {
      Mapped = B.CreateAdd(B.CreateMul(Offset, B.getInt64(W)), LaneOffset);
    } else {
      Value *Granule = B.CreateAnd(Offset, B.getInt64(~uint64_t(G - 1)));
      Value *Within = B.CreateAnd(Offset, B.getInt64(G - 1));
      Mapped = B.CreateAdd(
          B.CreateAdd(B.CreateMul(Granule, B.getInt64(W)), LaneOffset), Within);
    }
    Value *Ptr = B.CreateGEP(B.getInt8Ty(), AreaBase, Mapped, "private.lane");
    const Align Alignment(A.Bytes);
    if (auto *L = dyn_cast<LoadInst>(A.I)) {
      L->setOperand(L->getPointerOperandIndex(), Ptr);
      L->setAlignment(std::min(L->getAlign(), Alignment));
    } else {
      auto *S = cast<StoreInst>(A.I);
      S->setOperand(S->getPointerOperandIndex(), Ptr);
      S->setAlignment(std::min(S->getAlign(), Alignment));
    }
  }
  // The old addresses: GEPs, users first, then the bases.
  SmallSetVector<Instruction *, 32> Dead;
  for (const PrivateAccess &A : *Accesses)
    for (GetElementPtrInst *GEP : llvm::reverse(A.Path))
      Dead.insert(GEP);
  for (bool Erased = true; Erased;) {
    Erased = false;
    for (Instruction *I : Dead.takeVector())
      if (I->use_empty()) {
        I->eraseFromParent();
        Erased = true;
      } else {
        Dead.insert(I);
      }
  }
  for (CallInst *Base : Bases)
    if (Base->use_empty())
      Base->eraseFromParent();
  R.Granule = G;
  R.AreaBytes = Area;
  return R;
}

} // namespace openhsa::finalizer
