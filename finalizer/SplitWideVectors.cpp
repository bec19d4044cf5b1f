//===- finalizer/SplitWideVectors.cpp - Vectors by register ---------------===//

#include "finalizer/SplitWideVectors.h"

#include "finalizer/Codegen.h"
#include "finalizer/SplitWideShuffles.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

namespace openhsa::finalizer {

namespace {

using llvm::SmallVector;
using Parts = SmallVector<llvm::Value *, 16>;

/// The lanes of a part: one register of the widest element (of 8 bits or
/// more, not a pointer) of F's vectors of at least four registers; 0 where
/// F has none.
unsigned lanesPerPart(const llvm::Function &F, unsigned RegisterBits) {
  unsigned Widest = 0;
  for (const llvm::Instruction &I : llvm::instructions(F)) {
    auto Consider = [&](llvm::Type *T) {
      auto *V = llvm::dyn_cast<llvm::FixedVectorType>(T);
      if (!V || V->getElementType()->isPointerTy())
        return;
      const unsigned Bits =
          unsigned(V->getElementType()->getPrimitiveSizeInBits());
      if (Bits >= 8 &&
          uint64_t(Bits) * V->getNumElements() >= 4 * uint64_t(RegisterBits))
        Widest = std::max(Widest, Bits);
    };
    Consider(I.getType());
    for (const llvm::Value *Op : I.operands())
      Consider(Op->getType());
  }
  return Widest && RegisterBits >= 2 * Widest ? RegisterBits / Widest : 0;
}

class Splitter {
public:
  Splitter(llvm::Function &F, unsigned Lanes)
      : F(F), Lanes(Lanes), DL(F.getParent()->getDataLayout()) {}

  unsigned run() {
    llvm::ReversePostOrderTraversal<llvm::Function *> Order(&F);
    // Phis first: values may reach them around a loop before they are
    // split.
    SmallVector<llvm::PHINode *, 16> Phis;
    for (llvm::BasicBlock *BB : Order)
      for (llvm::PHINode &P : BB->phis())
        if (unsigned N = partCount(P.getType()); N > 1) {
          Parts &To = Split[&P];
          for (unsigned K = 0; K < N; ++K)
            To.push_back(llvm::PHINode::Create(
                partType(P.getType()), P.getNumIncomingValues(),
                P.getName() + ".part", P.getIterator()));
          Phis.push_back(&P);
          replaced(P);
        }
    // The function's instructions as they are now: not the parts of values
    // that a split takes where those are defined.
    SmallVector<llvm::Instruction *, 256> Originals;
    for (llvm::BasicBlock *BB : Order)
      for (llvm::Instruction &I : *BB)
        if (!llvm::isa<llvm::PHINode>(I))
          Originals.push_back(&I);
    for (llvm::Instruction *I : Originals)
      if (split(*I))
        replaced(*I);
    for (llvm::PHINode *P : Phis)
      for (unsigned J = 0; J < P->getNumIncomingValues(); ++J) {
        const Parts From = partsOf(P->getIncomingValue(J));
        for (unsigned K = 0; K < From.size(); ++K)
          llvm::cast<llvm::PHINode>(Split[P][K])
              ->addIncoming(From[K], P->getIncomingBlock(J));
      }
    // What else reads a split value gets it joined.
    for (llvm::Instruction *I : Replaced) {
      auto It = Split.find(I);
      if (It == Split.end())
        continue;
      llvm::Value *Whole = nullptr;
      for (llvm::Use &U : llvm::make_early_inc_range(I->uses())) {
        if (Handled.count(llvm::cast<llvm::Instruction>(U.getUser())))
          continue;
        if (!Whole) {
          llvm::IRBuilder<> B(llvm::isa<llvm::PHINode>(I)
                                  ? &*I->getParent()->getFirstInsertionPt()
                                  : I);
          Whole = llvm::concatenateVectors(B, It->second);
        }
        U.set(Whole);
      }
    }
    for (llvm::Instruction *I : Replaced)
      I->dropAllReferences();
    for (llvm::Instruction *I : Replaced) {
      I->replaceAllUsesWith(llvm::PoisonValue::get(I->getType()));
      I->eraseFromParent();
    }
    return unsigned(Replaced.size());
  }

private:
  llvm::Function &F;
  const unsigned Lanes;
  const llvm::DataLayout &DL;
  llvm::DenseMap<llvm::Value *, Parts> Split;
  SmallVector<llvm::Instruction *, 64> Replaced;
  llvm::SmallPtrSet<llvm::Instruction *, 32> Handled;

  void replaced(llvm::Instruction &I) {
    Replaced.push_back(&I);
    Handled.insert(&I);
  }

  /// How many parts values of type T have: 0 where T is not a vector of
  /// whole parts, 1 where it is one part.
  unsigned partCount(llvm::Type *T) const {
    auto *V = llvm::dyn_cast<llvm::FixedVectorType>(T);
    if (!V)
      return 0;
    llvm::Type *E = V->getElementType();
    if (!E->isIntegerTy() && !E->isFloatingPointTy() && !E->isPointerTy())
      return 0;
    return V->getNumElements() % Lanes ? 0 : V->getNumElements() / Lanes;
  }

  llvm::FixedVectorType *partType(llvm::Type *T) const {
    return llvm::FixedVectorType::get(
        llvm::cast<llvm::FixedVectorType>(T)->getElementType(), Lanes);
  }

  /// Whether values of T sit in memory part after part, each a whole
  /// number of bytes (not so for masks, whose lanes are bits).
  bool partsInMemory(llvm::Type *T) const {
    llvm::Type *E = llvm::cast<llvm::FixedVectorType>(T)->getElementType();
    return DL.getTypeSizeInBits(E) % 8 == 0 &&
           DL.getTypeStoreSize(E) == DL.getTypeAllocSize(E);
  }

  uint64_t partBytes(llvm::Type *T) const {
    return DL.getTypeStoreSize(partType(T)).getFixedValue();
  }

  /// V (a vector of whole parts) as its parts: split already, one part,
  /// constant, or taken from it where it is defined. A copy: taking parts
  /// may add to the map.
  Parts partsOf(llvm::Value *V) {
    auto It = Split.find(V);
    if (It != Split.end())
      return It->second;
    const unsigned N = partCount(V->getType());
    if (N == 1)
      return Parts{V};
    Parts P;
    if (auto *C = llvm::dyn_cast<llvm::Constant>(V)) {
      for (unsigned K = 0; K < N; ++K) {
        SmallVector<llvm::Constant *, 16> Elements;
        for (unsigned J = 0; J < Lanes; ++J)
          Elements.push_back(C->getAggregateElement(K * Lanes + J));
        P.push_back(llvm::ConstantVector::get(Elements));
      }
    } else {
      llvm::BasicBlock::iterator At;
      if (auto *I = llvm::dyn_cast<llvm::Instruction>(V))
        At = llvm::isa<llvm::PHINode>(I) ? I->getParent()->getFirstInsertionPt()
                                         : std::next(I->getIterator());
      else
        At = F.getEntryBlock().getFirstInsertionPt();
      llvm::IRBuilder<> B(At->getParent(), At);
      for (unsigned K = 0; K < N; ++K) {
        SmallVector<int, 16> Take(Lanes);
        for (unsigned J = 0; J < Lanes; ++J)
          Take[J] = int(K * Lanes + J);
        P.push_back(B.CreateShuffleVector(V, Take, V->getName() + ".part"));
      }
    }
    Split[V] = P;
    return P;
  }

  /// The pointer to part K of a vector of type T at Ptr, and its alignment.
  std::pair<llvm::Value *, llvm::Align>
  partAddress(llvm::IRBuilder<> &B, llvm::Value *Ptr, llvm::Align A,
              llvm::Type *T, unsigned K) const {
    const uint64_t Offset = K * partBytes(T);
    if (Offset == 0)
      return {Ptr, A};
    return {B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Ptr, Offset),
            llvm::commonAlignment(A, Offset)};
  }

  static void keepMetadata(llvm::Instruction *To, const llvm::Instruction &I) {
    To->copyMetadata(
        I, {llvm::LLVMContext::MD_alias_scope, llvm::LLVMContext::MD_noalias,
            llvm::LLVMContext::MD_tbaa, llvm::LLVMContext::MD_invariant_load,
            llvm::LLVMContext::MD_nontemporal});
  }

  void define(llvm::Instruction &I, Parts P) { Split[&I] = std::move(P); }

  /// I replaced by a single value (a scalar, or a vector of one part).
  static bool replaceWith(llvm::Instruction &I, llvm::Value *V) {
    I.replaceAllUsesWith(V);
    return true;
  }

  /// Writes I as operations on parts where it is one the pass knows.
  bool split(llvm::Instruction &I) {
    llvm::IRBuilder<> B(&I);
    const unsigned N = partCount(I.getType());
    const std::string Name = (I.getName() + ".part").str();
    Parts P;
    if (auto *BO = llvm::dyn_cast<llvm::BinaryOperator>(&I); BO && N > 1) {
      const Parts L = partsOf(BO->getOperand(0)),
                  R = partsOf(BO->getOperand(1));
      for (unsigned K = 0; K < N; ++K) {
        P.push_back(B.CreateBinOp(BO->getOpcode(), L[K], R[K], Name));
        if (auto *New = llvm::dyn_cast<llvm::Instruction>(P.back()))
          New->copyIRFlags(BO);
      }
    } else if (auto *UO = llvm::dyn_cast<llvm::UnaryOperator>(&I);
               UO && N > 1) {
      const Parts L = partsOf(UO->getOperand(0));
      for (unsigned K = 0; K < N; ++K) {
        P.push_back(B.CreateUnOp(UO->getOpcode(), L[K], Name));
        if (auto *New = llvm::dyn_cast<llvm::Instruction>(P.back()))
          New->copyIRFlags(UO);
      }
    } else if (auto *Cmp = llvm::dyn_cast<llvm::CmpInst>(&I);
               Cmp && N > 1 && partCount(Cmp->getOperand(0)->getType()) == N) {
      const Parts L = partsOf(Cmp->getOperand(0)),
                  R = partsOf(Cmp->getOperand(1));
      for (unsigned K = 0; K < N; ++K) {
        P.push_back(B.CreateCmp(Cmp->getPredicate(), L[K], R[K], Name));
        if (auto *New = llvm::dyn_cast<llvm::Instruction>(P.back()))
          New->copyIRFlags(Cmp);
      }
    } else if (auto *Sel = llvm::dyn_cast<llvm::SelectInst>(&I); Sel && N > 1) {
      llvm::Value *Cond = Sel->getCondition();
      const bool Lanewise = Cond->getType()->isVectorTy();
      if (Lanewise && partCount(Cond->getType()) != N)
        return false;
      const Parts C = Lanewise ? partsOf(Cond) : Parts(N, Cond);
      const Parts T = partsOf(Sel->getTrueValue()),
                  E = partsOf(Sel->getFalseValue());
      for (unsigned K = 0; K < N; ++K) {
        P.push_back(B.CreateSelect(C[K], T[K], E[K], Name));
        if (auto *New = llvm::dyn_cast<llvm::Instruction>(P.back()))
          New->copyIRFlags(Sel);
      }
    } else if (auto *Cast = llvm::dyn_cast<llvm::CastInst>(&I);
               Cast && N > 1 && partCount(Cast->getSrcTy()) == N) {
      const Parts L = partsOf(Cast->getOperand(0));
      for (unsigned K = 0; K < N; ++K) {
        P.push_back(
            B.CreateCast(Cast->getOpcode(), L[K], partType(I.getType()), Name));
        if (auto *New = llvm::dyn_cast<llvm::Instruction>(P.back()))
          New->copyIRFlags(Cast);
      }
    } else if (auto *Fr = llvm::dyn_cast<llvm::FreezeInst>(&I); Fr && N > 1) {
      const Parts L = partsOf(Fr->getOperand(0));
      for (unsigned K = 0; K < N; ++K)
        P.push_back(B.CreateFreeze(L[K], Name));
    } else if (auto *S = llvm::dyn_cast<llvm::ShuffleVectorInst>(&I)) {
      const unsigned From = partCount(S->getOperand(0)->getType());
      if (N == 0 || From == 0 || (N == 1 && From == 1))
        return false;
      for (unsigned K = 0; K < N; ++K)
        P.push_back(shufflePart(B, *S, K, From));
      if (N == 1)
        return replaceWith(I, P[0]);
    } else if (auto *E = llvm::dyn_cast<llvm::ExtractElementInst>(&I)) {
      auto *Index = llvm::dyn_cast<llvm::ConstantInt>(E->getIndexOperand());
      if (!Index || partCount(E->getVectorOperandType()) < 2)
        return false;
      const uint64_t J = Index->getZExtValue();
      if (J >= uint64_t(Lanes) * partCount(E->getVectorOperandType()))
        return false;
      return replaceWith(
          I, B.CreateExtractElement(partsOf(E->getVectorOperand())[J / Lanes],
                                    uint64_t(J % Lanes)));
    } else if (auto *Ins = llvm::dyn_cast<llvm::InsertElementInst>(&I);
               Ins && N > 1) {
      auto *Index = llvm::dyn_cast<llvm::ConstantInt>(Ins->getOperand(2));
      if (!Index || Index->getZExtValue() >= uint64_t(N) * Lanes)
        return false;
      const uint64_t J = Index->getZExtValue();
      P = partsOf(Ins->getOperand(0));
      P[J / Lanes] = B.CreateInsertElement(P[J / Lanes], Ins->getOperand(1),
                                           uint64_t(J % Lanes), Name);
    } else if (auto *L = llvm::dyn_cast<llvm::LoadInst>(&I);
               L && N > 1 && L->isSimple() && partsInMemory(I.getType())) {
      for (unsigned K = 0; K < N; ++K) {
        auto [Ptr, A] = partAddress(B, L->getPointerOperand(), L->getAlign(),
                                    I.getType(), K);
        llvm::LoadInst *Part =
            B.CreateAlignedLoad(partType(I.getType()), Ptr, A, Name);
        keepMetadata(Part, I);
        P.push_back(Part);
      }
    } else if (auto *St = llvm::dyn_cast<llvm::StoreInst>(&I)) {
      llvm::Type *T = St->getValueOperand()->getType();
      if (partCount(T) < 2 || !St->isSimple() || !partsInMemory(T))
        return false;
      const Parts V = partsOf(St->getValueOperand());
      for (unsigned K = 0; K < V.size(); ++K) {
        auto [Ptr, A] =
            partAddress(B, St->getPointerOperand(), St->getAlign(), T, K);
        keepMetadata(B.CreateAlignedStore(V[K], Ptr, A), I);
      }
      return true;
    } else if (auto *Call = llvm::dyn_cast<llvm::IntrinsicInst>(&I)) {
      return splitIntrinsic(*Call, B);
    } else {
      return false;
    }
    if (P.empty())
      return false;
    define(I, std::move(P));
    return true;
  }

  /// Part K of shuffle S's result, from the parts of its operands (From
  /// each): the part it takes whole, or shuffles of the parts it reads.
  llvm::Value *shufflePart(llvm::IRBuilder<> &B, llvm::ShuffleVectorInst &S,
                           unsigned K, unsigned From) {
    return shuffleRegister(
        B, S.getShuffleMask().slice(K * Lanes, Lanes), partType(S.getType()),
        [&](unsigned U) {
          return partsOf(S.getOperand(U < From ? 0 : 1))[U % From];
        },
        S.getName() + ".part");
  }

  bool splitIntrinsic(llvm::IntrinsicInst &Call, llvm::IRBuilder<> &B) {
    const llvm::Intrinsic::ID ID = Call.getIntrinsicID();
    const unsigned N = partCount(Call.getType());
    const std::string Name = (Call.getName() + ".part").str();
    auto Alignment = [&](unsigned Arg) {
      return llvm::cast<llvm::ConstantInt>(Call.getArgOperand(Arg))
          ->getAlignValue();
    };
    Parts P;
    switch (ID) {
    case llvm::Intrinsic::masked_load: {
      if (N < 2 || !partsInMemory(Call.getType()))
        return false;
      const Parts Mask = partsOf(Call.getArgOperand(2)),
                  Pass = partsOf(Call.getArgOperand(3));
      for (unsigned K = 0; K < N; ++K) {
        auto [Ptr, A] = partAddress(B, Call.getArgOperand(0), Alignment(1),
                                    Call.getType(), K);
        auto *Part = B.CreateMaskedLoad(partType(Call.getType()), Ptr, A,
                                        Mask[K], Pass[K], Name);
        keepMetadata(Part, Call);
        P.push_back(Part);
      }
      break;
    }
    case llvm::Intrinsic::masked_store: {
      llvm::Type *T = Call.getArgOperand(0)->getType();
      if (partCount(T) < 2 || !partsInMemory(T))
        return false;
      const Parts V = partsOf(Call.getArgOperand(0)),
                  Mask = partsOf(Call.getArgOperand(3));
      for (unsigned K = 0; K < V.size(); ++K) {
        auto [Ptr, A] =
            partAddress(B, Call.getArgOperand(1), Alignment(2), T, K);
        keepMetadata(B.CreateMaskedStore(V[K], Ptr, A, Mask[K]), Call);
      }
      return true;
    }
    case llvm::Intrinsic::masked_gather: {
      if (N < 2)
        return false;
      const Parts Ptrs = partsOf(Call.getArgOperand(0)),
                  Mask = partsOf(Call.getArgOperand(2)),
                  Pass = partsOf(Call.getArgOperand(3));
      for (unsigned K = 0; K < N; ++K)
        P.push_back(B.CreateMaskedGather(partType(Call.getType()), Ptrs[K],
                                         Alignment(1), Mask[K], Pass[K], Name));
      break;
    }
    case llvm::Intrinsic::masked_scatter: {
      const unsigned M = partCount(Call.getArgOperand(0)->getType());
      if (M < 2)
        return false;
      const Parts V = partsOf(Call.getArgOperand(0)),
                  Ptrs = partsOf(Call.getArgOperand(1)),
                  Mask = partsOf(Call.getArgOperand(3));
      for (unsigned K = 0; K < M; ++K)
        B.CreateMaskedScatter(V[K], Ptrs[K], Alignment(2), Mask[K]);
      return true;
    }
    default: {
      // Lane by lane: each vector operand of the result's lanes, the
      // others (an abs's poison flag, a powi's exponent) as they are.
      if (N < 2 || !llvm::isTriviallyVectorizable(ID))
        return false;
      SmallVector<llvm::Type *, 2> Types;
      if (llvm::isVectorIntrinsicWithOverloadTypeAtArg(ID, -1))
        Types.push_back(partType(Call.getType()));
      for (unsigned A = 0; A < Call.arg_size(); ++A) {
        llvm::Type *T = Call.getArgOperand(A)->getType();
        const bool Scalar = llvm::isVectorIntrinsicWithScalarOpAtArg(ID, A);
        if (!Scalar && partCount(T) != N)
          return false;
        if (llvm::isVectorIntrinsicWithOverloadTypeAtArg(ID, int(A)))
          Types.push_back(Scalar ? T : partType(T));
      }
      llvm::Function *Decl =
          llvm::Intrinsic::getDeclaration(F.getParent(), ID, Types);
      for (unsigned K = 0; K < N; ++K) {
        SmallVector<llvm::Value *, 4> Args;
        for (unsigned A = 0; A < Call.arg_size(); ++A)
          Args.push_back(llvm::isVectorIntrinsicWithScalarOpAtArg(ID, A)
                             ? Call.getArgOperand(A)
                             : partsOf(Call.getArgOperand(A))[K]);
        llvm::CallInst *Part = B.CreateCall(Decl, Args, Name);
        if (llvm::isa<llvm::FPMathOperator>(Part))
          Part->copyFastMathFlags(&Call);
        P.push_back(Part);
      }
      break;
    }
    }
    define(Call, std::move(P));
    return true;
  }
};

} // namespace

unsigned splitWideVectors(llvm::Function &F, unsigned RegisterBits) {
  const unsigned Lanes = lanesPerPart(F, RegisterBits);
  if (!Lanes)
    return 0;
  return Splitter(F, Lanes).run();
}

llvm::PreservedAnalyses
SplitWideVectorsPass::run(llvm::Function &F,
                          llvm::FunctionAnalysisManager &FAM) {
  // Other kernels' vectors are at most four registers (a wave of four
  // vectors where gathers wait in divergent loops, WorkItemVectorizer.h):
  // splitting them gained nothing (the binary search).
  if (!F.hasFnAttribute(KeepsLoopStrengthReductionAttr))
    return llvm::PreservedAnalyses::all();
  const unsigned RegisterBits = vectorRegisterBits(F, FAM);
  if (RegisterBits == 0 || !splitWideVectors(F, RegisterBits))
    return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses PA;
  PA.preserveSet<llvm::CFGAnalyses>();
  return PA;
}

} // namespace openhsa::finalizer
