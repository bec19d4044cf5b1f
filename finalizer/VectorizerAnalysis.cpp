//===- finalizer/VectorizerAnalysis.cpp - What varies between lanes -------===//
#include "finalizer/VectorizerImpl.h"
#include "finalizer/WrapGuardBuilder.h"

#include "finalizer/Lowering.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/PatternMatch.h"

namespace openhsa::finalizer::vectorizer {

using llvm::PatternMatch::m_AllOnes;
using llvm::PatternMatch::match;

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

Error Vectorizer::checkInstructions() {
  for (Instruction &I : instructions(F)) {
    if (auto *A = dyn_cast<AllocaInst>(&I); A && !A->isStaticAlloca())
      return unsupported("a dynamically sized alloca");
    if (isa<InvokeInst>(I) || isa<CallBrInst>(I) || isa<IndirectBrInst>(I) ||
        isa<SwitchInst>(I) || isa<LandingPadInst>(I))
      return unsupported(Twine("unsupported instruction '") +
                         I.getOpcodeName() + "'");
    if (auto *CI = dyn_cast<CallInst>(&I)) {
      if (CI->isInlineAsm())
        return unsupported("inline assembly");
      // A call left after inlining runs lane by lane: not as a wavefront.
      if (Function *Callee = CI->getCalledFunction();
          Callee && !Callee->isDeclaration() && usesWavefronts(*Callee))
        return unsupported("a function using cross-lane operations or "
                           "wavebarrier that is not inlined (recursion, or "
                           "calls too deep or large)");
    }
  }
  return Error::success();
}

bool Vectorizer::computeVarying(Instruction &I) {
  auto AnyOperandVarying = [&] {
    for (Value *Op : I.operands())
      if (isVarying(Op))
        return true;
    return false;
  };
  if (auto *CI = dyn_cast<CallInst>(&I)) {
    Function *Callee = CI->getCalledFunction();
    if (isQuery(Callee, query::WorkItemId)) {
      auto *D = dyn_cast<ConstantInt>(CI->getArgOperand(1));
      return Layout == WaveLayout::Flat || !D || D->isZero() ||
             (inRows() && D->isOne());
    }
    if (isQuery(Callee, query::WaveLaneId) ||
        isQuery(Callee, query::WaveShuffle32) ||
        isQuery(Callee, query::WaveShuffle64))
      return true;
    if (isQuery(Callee, query::PrivateBase) ||
        isQuery(Callee, PrivateLaneMarker))
      return true;
    if (isQuery(Callee, LaneMarker))
      return VaryingSlots.count(
          unsigned(cast<ConstantInt>(CI->getArgOperand(0))->getZExtValue()));
    if (Callee && Callee->getName().starts_with("openhsa."))
      return false; // Every other query is the same for the whole group.
    if (Callee && Callee->isIntrinsic() && !hasEffects(*CI))
      return AnyOperandVarying();
    if (Callee && Callee->isIntrinsic() &&
        (Callee->getIntrinsicID() == Intrinsic::memcpy ||
         Callee->getIntrinsicID() == Intrinsic::memmove ||
         Callee->getIntrinsicID() == Intrinsic::memset))
      return AnyOperandVarying(); // Once for the wave if all lanes agree.
    if (Callee && !hasEffects(*CI))
      return AnyOperandVarying();
    return true; // Each lane calls.
  }
  if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I))
    return true;
  if (isa<AllocaInst>(I))
    return true; // Each lane has its own.
  if (auto *P = dyn_cast<PHINode>(&I))
    return AnyOperandVarying() || mergesLanes(*P);
  if (I.isTerminator())
    return false;
  return AnyOperandVarying();
}

bool Vectorizer::mergesLanes(const PHINode &P) const {
  return mergesLanes(P, [&](const Value *V) { return isVarying(V); });
}

bool branchesOn(const BasicBlock *BB, function_ref<bool(const Value *)> IsVar) {
  auto *Br = dyn_cast<BranchInst>(BB->getTerminator());
  return Br && Br->isConditional() && IsVar(Br->getCondition());
}

bool Vectorizer::mergesLanes(const PHINode &P,
                             function_ref<bool(const Value *)> IsVar) const {
  // A join of a varying branch merges different lanes' values, unless the
  // lanes that went round the region have none (a structurized branch's
  // flow: undefined there), and take the region's (VectorizerWiden.cpp,
  // widenPhi). So a loop's counter that every lane still in it steps alike
  // stays one scalar, though lanes leave at different iterations (the
  // mandelbrot's: its exit test was a vector compare a register).
  for (const BasicBlock *Pred : predecessors(P.getParent()))
    if (branchesOn(Pred, IsVar) && !isLatchBranch(Pred) &&
        !isa<UndefValue>(P.getIncomingValueForBlock(Pred)))
      if (auto *N = PDT.getNode(Pred);
          N && N->getIDom() && N->getIDom()->getBlock() == P.getParent())
        return true;
  // Lanes leave a loop whose exit varies at different iterations.
  for (const BasicBlock *Pred : P.blocks())
    for (const Loop *L = LI.getLoopFor(Pred); L && !L->contains(P.getParent());
         L = L->getParentLoop())
      if (BasicBlock *Latch = L->getLoopLatch();
          Latch && branchesOn(Latch, IsVar))
        return true;
  return false;
}

/// Whether V is P plus amounts the same in every lane (an induction step).
static bool stepsFrom(const Value *V, const PHINode *P,
                      function_ref<bool(const Value *)> IsVarying,
                      unsigned Depth = 0) {
  if (V == P)
    return true;
  if (Depth > 8)
    return false;
  if (auto *BO = dyn_cast<BinaryOperator>(V)) {
    if (BO->getOpcode() == Instruction::Add)
      return (!IsVarying(BO->getOperand(1)) &&
              stepsFrom(BO->getOperand(0), P, IsVarying, Depth + 1)) ||
             (!IsVarying(BO->getOperand(0)) &&
              stepsFrom(BO->getOperand(1), P, IsVarying, Depth + 1));
    if (BO->getOpcode() == Instruction::Sub)
      return !IsVarying(BO->getOperand(1)) &&
             stepsFrom(BO->getOperand(0), P, IsVarying, Depth + 1);
    return false;
  }
  if (auto *G = dyn_cast<GetElementPtrInst>(V))
    return all_of(G->indices(),
                  [&](const Value *Idx) { return !IsVarying(Idx); }) &&
           stepsFrom(G->getPointerOperand(), P, IsVarying, Depth + 1);
  return false;
}

bool Vectorizer::isDivergent(const BasicBlock *BB) const {
  auto *Br = dyn_cast<BranchInst>(BB->getTerminator());
  return Br && Br->isConditional() && isVarying(Br->getCondition());
}

bool Vectorizer::isLatchBranch(const BasicBlock *BB) const {
  const Loop *L = LI.getLoopFor(BB);
  auto *Br = dyn_cast<BranchInst>(BB->getTerminator());
  return L && Br && Br->isConditional() && L->getLoopLatch() == BB &&
         (Br->getSuccessor(0) == L->getHeader() ||
          Br->getSuccessor(1) == L->getHeader());
}

BasicBlock *Vectorizer::divergentJoin(const BasicBlock *BB) const {
  if (!isDivergent(BB) || isLatchBranch(BB))
    return nullptr;
  auto *N = PDT.getNode(BB);
  return N && N->getIDom() ? N->getIDom()->getBlock() : nullptr;
}

void Vectorizer::findVarying() {
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (BasicBlock *BB : RPO)
      for (Instruction &I : *BB)
        if (!Varying.count(&I) && computeVarying(I)) {
          Varying.insert(&I);
          Changed = true;
        }
  }
}

bool Vectorizer::isAbsoluteIdX(const Value *V) const {
  auto IsQueryX = [](const Value *Q, const char *Name) {
    auto *CI = dyn_cast<CallInst>(Q);
    auto *D = CI ? dyn_cast<ConstantInt>(CI->getArgOperand(1)) : nullptr;
    return D && D->isZero() && isQuery(CI->getCalledFunction(), Name);
  };
  auto *Sum = dyn_cast<BinaryOperator>(V);
  if (!Sum || Sum->getOpcode() != Instruction::Add ||
      !Sum->getType()->isIntegerTy(32))
    return false;
  for (unsigned K = 0; K < 2; ++K) {
    auto *Start = dyn_cast<BinaryOperator>(Sum->getOperand(1 - K));
    if (!IsQueryX(Sum->getOperand(K), query::WorkItemId) || !Start ||
        Start->getOpcode() != Instruction::Mul)
      continue;
    for (unsigned J = 0; J < 2; ++J) {
      if (!IsQueryX(Start->getOperand(J), query::WorkGroupId))
        continue;
      const Value *Size = Start->getOperand(1 - J);
      if (IsQueryX(Size, query::WorkGroupSize))
        return true;
      // A constant (a fixed shape's size, or the kernel's own): where it is
      // a multiple of the lanes of a row, which start at a multiple of
      // them, lane 0's id modulo 2^32 is too, and the row's lanes stop
      // short of the next multiple of 2^32 whatever the group's size.
      if (auto *C = dyn_cast<ConstantInt>(Size);
          C && C->getZExtValue() % RowWidth == 0)
        return true;
    }
  }
  return false;
}

std::optional<LaneStride> Vectorizer::strideOf(Value *V) {
  if (!isVarying(V))
    return LaneStride{};
  auto It = Strides.find(V);
  if (It != Strides.end())
    return It->second;
  Strides[V] = std::nullopt; // Cycles through phis have no stride.
  std::optional<LaneStride> R;
  auto *I = dyn_cast<Instruction>(V);
  auto Scaled = [](std::optional<LaneStride> S,
                   int64_t By) -> std::optional<LaneStride> {
    if (S)
      S->Step *= By;
    return S;
  };
  auto Both = [&](Value *A, Value *B,
                  int64_t SignB) -> std::optional<LaneStride> {
    auto SA = strideOf(A), SB = strideOf(B);
    if (!SA || !SB)
      return std::nullopt;
    SA->Step += SignB * SB->Step;
    SA->Checks.append(SB->Checks.begin(), SB->Checks.end());
    return SA;
  };
  auto Extended = [&](Value *Narrow, bool Signed) -> std::optional<LaneStride> {
    auto S = strideOf(Narrow);
    // A work-item's absolute X id is below the grid's size, at most
    // 2^32 - 1: the ids of a wave's (or a row's) work-items, consecutive
    // from lane 0's, never wrap, and lanes past the grid's end are off.
    if (S && S->Step && !(!Signed && isAbsoluteIdX(Narrow)))
      S->Checks.push_back({Narrow, S->Step, Signed});
    return S;
  };
  if (auto *A = dyn_cast<AllocaInst>(V)) {
    R = LaneStride{
        static_cast<int64_t>(
            DL.getTypeAllocSize(A->getAllocatedType()).getFixedValue() *
            cast<ConstantInt>(A->getArraySize())->getZExtValue()),
        {}};
  } else if (auto *CI = dyn_cast<CallInst>(V);
             CI && (isQuery(CI->getCalledFunction(), LaneMarker) ||
                    isQuery(CI->getCalledFunction(), PrivateLaneMarker))) {
    R = LaneStride{1, {}};
  } else if (auto *CI = dyn_cast<CallInst>(V)) {
    // Along a row, the X id steps by one and the Y id stays.
    if (Layout == WaveLayout::Rows &&
        isQuery(CI->getCalledFunction(), query::WorkItemId))
      if (auto *D = dyn_cast<ConstantInt>(CI->getArgOperand(1));
          D && (D->isZero() || (inRows() && D->isOne())))
        R = LaneStride{D->isZero() ? 1 : 0, {}};
  } else if (I && I->getOpcode() == Instruction::Add) {
    R = Both(I->getOperand(0), I->getOperand(1), 1);
  } else if (I && I->getOpcode() == Instruction::Sub) {
    R = Both(I->getOperand(0), I->getOperand(1), -1);
  } else if (I && I->getOpcode() == Instruction::Mul) {
    for (unsigned K = 0; K < 2 && !R; ++K) {
      Value *By = I->getOperand(1 - K);
      if (auto *C = dyn_cast<ConstantInt>(By);
          C && C->getBitWidth() <= 64 && !isVarying(C))
        R = Scaled(strideOf(I->getOperand(K)), C->getSExtValue());
      else if (!isVarying(By))
        // The same in every lane of a row (a row's index times a pitch):
        // so is the product.
        if (auto S = strideOf(I->getOperand(K)); S && S->Step == 0)
          R = S;
    }
    // Two factors each the same in every lane of a row (the Y id squared).
    if (!R)
      if (auto SA = strideOf(I->getOperand(0)), SB = strideOf(I->getOperand(1));
          SA && SB && SA->Step == 0 && SB->Step == 0) {
        SA->Checks.append(SB->Checks.begin(), SB->Checks.end());
        R = SA;
      }
  } else if (I && I->getOpcode() == Instruction::Xor &&
             (match(I->getOperand(1), m_AllOnes()) ||
              match(I->getOperand(0), m_AllOnes()))) {
    // ~v = -v - 1 (how (h - 1) - y comes out of the lowering's folds).
    R = Scaled(
        strideOf(I->getOperand(match(I->getOperand(1), m_AllOnes()) ? 0 : 1)),
        -1);
  } else if (I && I->getOpcode() == Instruction::Shl) {
    if (auto *C = dyn_cast<ConstantInt>(I->getOperand(1));
        C && C->getZExtValue() < 32)
      R = Scaled(strideOf(I->getOperand(0)), int64_t(1) << C->getZExtValue());
  } else if (I && isa<ZExtInst>(I)) {
    R = Extended(I->getOperand(0), false);
  } else if (I && isa<SExtInst>(I)) {
    R = Extended(I->getOperand(0), true);
  } else if (I && (isa<TruncInst>(I) || isa<IntToPtrInst>(I) ||
                   isa<PtrToIntInst>(I) || isa<BitCastInst>(I))) {
    // Lanes stay a step apart modulo the narrower width; an extension
    // after it checks for wrapping.
    if (isa<TruncInst>(I) ||
        DL.getTypeSizeInBits(I->getType()) ==
            DL.getTypeSizeInBits(I->getOperand(0)->getType()))
      R = strideOf(I->getOperand(0));
  } else if (auto *P = dyn_cast<PHINode>(V); P && !mergesLanes(*P)) {
    // Every lane comes the same way: lanes a step apart on each incoming
    // edge stay so, and a value that is the phi plus a uniform amount (an
    // induction) keeps the step; an undefined value keeps any. Wrap checks
    // would test values the phi's uses are not dominated by: none allowed.
    std::optional<LaneStride> Common;
    bool Known = true;
    for (Value *In : P->incoming_values()) {
      // Undefined on that edge (StructurizeCFG's flow phis): any stride.
      if (isa<UndefValue>(In) ||
          stepsFrom(In, P, [&](const Value *X) { return isVarying(X); }))
        continue;
      auto S = strideOf(In);
      if (!S || !S->Checks.empty() || (Common && Common->Step != S->Step)) {
        Known = false;
        break;
      }
      Common = S;
    }
    if (Known && Common)
      R = Common;
  } else if (auto *G = dyn_cast<GetElementPtrInst>(V)) {
    if (auto S = strideOf(G->getPointerOperand())) {
      LaneStride Sum = *S;
      bool Known = true;
      for (auto GTI = gep_type_begin(G), E = gep_type_end(G); GTI != E; ++GTI) {
        Value *Idx = GTI.getOperand();
        if (!isVarying(Idx))
          continue;
        auto SI = Idx->getType()->getScalarSizeInBits() < 64
                      ? Extended(Idx, true)
                      : strideOf(Idx);
        if (!SI || GTI.isStruct()) {
          Known = false;
          break;
        }
        Sum.Step +=
            SI->Step * static_cast<int64_t>(
                           GTI.getSequentialElementStride(DL).getFixedValue());
        Sum.Checks.append(SI->Checks.begin(), SI->Checks.end());
      }
      if (Known)
        R = Sum;
    }
  }
  Strides[V] = R;
  return R;
}

Value *Vectorizer::scalarAt(Value *V, unsigned Lane, IRBuilder<> &B) {
  if (!isVarying(V))
    return V;
  auto *I = cast<Instruction>(V);
  if (auto *CI = dyn_cast<CallInst>(I);
      CI && (isQuery(CI->getCalledFunction(), LaneMarker) ||
             isQuery(CI->getCalledFunction(), PrivateLaneMarker)))
    return B.getInt64(Lane);
  if (auto *CI = dyn_cast<CallInst>(I);
      CI && Layout == WaveLayout::Rows &&
      isQuery(CI->getCalledFunction(), query::WorkItemId))
    if (auto *D = dyn_cast<ConstantInt>(CI->getArgOperand(1));
        D && (D->isZero() || (inRows() && D->isOne()))) {
      const unsigned By = D->isZero() ? Lane % RowWidth : Lane / RowWidth;
      return By ? B.CreateAdd(CI, B.getInt32(By)) : CI;
    }
  if (auto *BO = dyn_cast<BinaryOperator>(I))
    return B.CreateBinOp(BO->getOpcode(), scalarAt(BO->getOperand(0), Lane, B),
                         scalarAt(BO->getOperand(1), Lane, B));
  if (auto *C = dyn_cast<CastInst>(I))
    return B.CreateCast(C->getOpcode(), scalarAt(C->getOperand(0), Lane, B),
                        C->getType());
  if (auto *G = dyn_cast<GetElementPtrInst>(I)) {
    SmallVector<Value *, 4> Idx;
    for (Value *X : G->indices())
      Idx.push_back(scalarAt(X, Lane, B));
    return B.CreateGEP(G->getSourceElementType(),
                       scalarAt(G->getPointerOperand(), Lane, B), Idx);
  }
  // In a 2-D group in lockstep, each row's first lane of an induction (the
  // tiled sgemm's offsets into its tiles, k by k): a scalar phi of its own,
  // not the lane of the vector one, which would keep a vector of offsets
  // per access live across the loop. Only where every lane runs the block
  // and comes the same way.
  if (auto *P = dyn_cast<PHINode>(I);
      P && inRows() && WholeWave.count(P->getParent()) && !mergesLanes(*P)) {
    auto [It, New] = ScalarPhis.try_emplace({P, Lane}, nullptr);
    if (!New)
      return It->second;
    auto *S = PHINode::Create(P->getType(), P->getNumIncomingValues(),
                              P->getName() + ".lane" + Twine(Lane),
                              P->getParent()->begin());
    It->second = S;
    for (unsigned K = 0; K < P->getNumIncomingValues(); ++K) {
      BasicBlock *From = P->getIncomingBlock(K);
      IRBuilder<> AtEnd(From->getTerminator());
      S->addIncoming(scalarAt(P->getIncomingValue(K), Lane, AtEnd), From);
    }
    return S;
  }
  return B.CreateExtractElement(vec(V), Lane);
}

Value *Vectorizer::noWrap(const LaneStride &S, unsigned Row, IRBuilder<> &B) {
  Value *All = nullptr;
  for (const WrapCheck &C : S.Checks) {
    auto *T = cast<IntegerType>(C.Narrow->getType());
    const unsigned Bits = T->getBitWidth();
    const APInt Span = APInt(128, uint64_t(RowWidth - 1)) *
                       APInt(128, uint64_t(C.Step < 0 ? -C.Step : C.Step));
    const APInt Max = C.Signed ? APInt::getSignedMaxValue(Bits).zext(128)
                               : APInt::getMaxValue(Bits).zext(128);
    if (Span.ugt(Max))
      return B.getFalse();
    Value *V0 = scalarAt(C.Narrow, Row * RowWidth, B);
    const APInt Room = Span.trunc(Bits);
    Value *Ok;
    if (C.Step > 0)
      Ok = C.Signed
               ? B.CreateICmpSLE(
                     V0, B.getInt(APInt::getSignedMaxValue(Bits) - Room))
               : B.CreateICmpULE(V0, B.getInt(APInt::getMaxValue(Bits) - Room));
    else
      Ok = C.Signed ? B.CreateICmpSGE(
                          V0, B.getInt(APInt::getSignedMinValue(Bits) + Room))
                    : B.CreateICmpUGE(V0, B.getInt(Room));
    All = All ? B.CreateAnd(All, Ok) : Ok;
  }
  return All;
}

Value *Vectorizer::rowDelta(Value *V, IRBuilder<> &B) {
  auto *T = dyn_cast<IntegerType>(V->getType());
  if (!T)
    return nullptr;
  if (!isVarying(V))
    return ConstantInt::get(T, 0);
  auto IsZero = [](Value *X) {
    auto *C = dyn_cast<Constant>(X);
    return C && C->isNullValue();
  };
  auto *I = dyn_cast<Instruction>(V);
  if (!I)
    return nullptr;
  if (auto *CI = dyn_cast<CallInst>(I)) {
    // As scalarAt has it: a row's lanes have its Y id, each row one more.
    if (Layout == WaveLayout::Rows && inRows() &&
        isQuery(CI->getCalledFunction(), query::WorkItemId))
      if (auto *D = dyn_cast<ConstantInt>(CI->getArgOperand(1));
          D && (D->isZero() || D->isOne()))
        return ConstantInt::get(T, D->isOne() ? 1 : 0);
    return nullptr;
  }
  if (auto *BO = dyn_cast<BinaryOperator>(I)) {
    Value *L = BO->getOperand(0), *R = BO->getOperand(1);
    Value *DL = rowDelta(L, B);
    Value *DR = DL ? rowDelta(R, B) : nullptr;
    if (!DR)
      return nullptr;
    if (IsZero(DL) && IsZero(DR)) // The same in every row's first lane.
      return DL;
    switch (BO->getOpcode()) {
    case Instruction::Add:
      return IsZero(DL) ? DR : IsZero(DR) ? DL : B.CreateAdd(DL, DR);
    case Instruction::Sub:
      return IsZero(DR) ? DL : B.CreateSub(DL, DR);
    case Instruction::Mul:
      // (v + d) * u = v * u + d * u for u the same in every lane.
      if (!isVarying(R))
        return B.CreateMul(DL, R);
      if (!isVarying(L))
        return B.CreateMul(DR, L);
      return nullptr;
    case Instruction::Shl:
      return isVarying(R) ? nullptr : B.CreateShl(DL, R);
    case Instruction::Xor: // ~v = -v - 1.
      if (match(R, m_AllOnes()))
        return B.CreateNeg(DL);
      if (match(L, m_AllOnes()))
        return B.CreateNeg(DR);
      return nullptr;
    default:
      return nullptr;
    }
  }
  if (auto *C = dyn_cast<CastInst>(I)) {
    Value *D = rowDelta(C->getOperand(0), B);
    if (!D)
      return nullptr;
    if (isa<TruncInst>(C)) // Linear modulo the narrower width too.
      return B.CreateTrunc(D, T);
    // An extension is linear only of a value the same in every row.
    return (isa<ZExtInst>(C) || isa<SExtInst>(C)) && IsZero(D)
               ? ConstantInt::get(T, 0)
               : nullptr;
  }
  // An induction whose every start is a constant delta away row to row
  // (the tiled sgemm's offsets into its tiles): that delta, as long as
  // each step adds the same amount in every lane.
  if (auto *P = dyn_cast<PHINode>(I); P && !mergesLanes(*P)) {
    if (!RowDeltaPhis.insert(P).second)
      return nullptr;
    Constant *Common = nullptr;
    bool Known = true;
    for (unsigned K = 0; K < P->getNumIncomingValues(); ++K) {
      Value *In = P->getIncomingValue(K);
      if (stepsFrom(In, P, [&](const Value *X) { return isVarying(X); }))
        continue;
      // Computed where the incoming value is available (what it leaves
      // there when not a constant is dead code).
      IRBuilder<> AtEnd(P->getIncomingBlock(K)->getTerminator());
      auto *D = dyn_cast_or_null<Constant>(rowDelta(In, AtEnd));
      if (!D || (Common && D != Common)) {
        Known = false;
        break;
      }
      Common = D;
    }
    RowDeltaPhis.erase(P);
    return Known ? Common : nullptr;
  }
  return nullptr;
}

Value *Vectorizer::noWrapInAllRows(const LaneStride &S, IRBuilder<> &B) {
  Value *All = nullptr;
  Type *I64 = B.getInt64Ty();
  for (const WrapCheck &C : S.Checks) {
    auto *T = cast<IntegerType>(C.Narrow->getType());
    const unsigned Bits = T->getBitWidth();
    if (Bits > 32)
      return nullptr;
    if (C.Step > (int64_t(1) << Bits) || C.Step < -(int64_t(1) << Bits))
      return B.getFalse(); // As noWrap: lanes past the type's range.
    Value *D = rowDelta(C.Narrow, B);
    if (!D)
      return nullptr;
    const int64_t Room =
        int64_t(RowWidth - 1) * (C.Step < 0 ? -C.Step : C.Step);
    // The check's bounds on the row's first lane, in 64 bits.
    const int64_t Min = C.Signed ? -(int64_t(1) << (Bits - 1)) : 0;
    const int64_t Max =
        C.Signed ? (int64_t(1) << (Bits - 1)) - 1 : (int64_t(1) << Bits) - 1;
    const int64_t Lo = C.Step > 0 ? Min : Min + Room;
    const int64_t Hi = C.Step > 0 ? Max - Room : Max;
    if (Lo > Hi)
      return B.getFalse();
    Value *V0 = scalarAt(C.Narrow, 0, B);
    V0 = C.Signed ? B.CreateSExt(V0, I64) : B.CreateZExt(V0, I64);
    // Row 0's value is within the type: only the bound Room narrows.
    Value *Ok = C.Step > 0 ? B.CreateICmpSLE(V0, B.getInt64(Hi))
                           : B.CreateICmpSGE(V0, B.getInt64(Lo));
    auto *DC = dyn_cast<Constant>(D);
    if (!DC || !DC->isNullValue()) {
      Value *Last = B.CreateAdd(
          V0, B.CreateMul(B.CreateSExt(D, I64), B.getInt64(rows() - 1)));
      Ok = B.CreateAnd(Ok, B.CreateAnd(B.CreateICmpSGE(Last, B.getInt64(Lo)),
                                       B.CreateICmpSLE(Last, B.getInt64(Hi))));
    }
    All = All ? B.CreateAnd(All, Ok) : Ok;
  }
  return All;
}

bool Vectorizer::inBoundsGroupAccess(const Value *Ptr,
                                     const BasicBlock *BB) const {
  auto *Base = dyn_cast<CallInst>(getUnderlyingObject(Ptr, 0));
  return Base && isQuery(Base->getCalledFunction(), query::GroupBase) &&
         LockstepGroup && WholeWave.count(BB);
}

void Vectorizer::findGuardedWraps() {
  if (!Guard)
    return;
  WrapGuardBuilder Builder(F, DT, LI, *Guard);
  for (BasicBlock *BB : RPO)
    for (Instruction &I : *BB) {
      Value *Ptr = getLoadStorePointerOperand(&I);
      if (!Ptr || !isVarying(Ptr))
        continue;
      auto S = strideOf(Ptr);
      if (!S)
        continue;
      for (const WrapCheck &C : S->Checks)
        if (auto [It, New] = GuardedWraps.try_emplace({C.Narrow, C.Signed});
            New)
          It->second = Builder.require(C.Narrow, C.Signed);
    }
}

bool Vectorizer::guarded(const LaneStride &S) const {
  return Guard && !S.Checks.empty() &&
         llvm::all_of(S.Checks, [&](const WrapCheck &C) {
           auto It = GuardedWraps.find({C.Narrow, C.Signed});
           return It != GuardedWraps.end() && It->second;
         });
}

Value *Vectorizer::consecutiveHolds(Value *Ptr, const LaneStride &S,
                                    Value *Mask, const BasicBlock *BB,
                                    IRBuilder<> &B, bool *Linear) {
  Value *Cond = checkedConsecutive(Ptr, S, Mask, BB, B, Linear);
  // What the check would compute is left to the dispatch's guard: no lane
  // wraps where the guard lets this code run (the comparisons made above
  // are dead code, which the optimizations remove).
  if (Cond && !isa<Constant>(Cond) && guarded(S)) {
    ++Stats.Guarded;
    return ConstantInt::getTrue(Ctx);
  }
  return Cond;
}

Value *Vectorizer::checkedConsecutive(Value *Ptr, const LaneStride &S,
                                      Value *Mask, const BasicBlock *BB,
                                      IRBuilder<> &B, bool *Linear) {
  // Lanes of a group segment access wrap only where lane 0's 32-bit offset
  // is within W * size of 2^32, far past the end of any group segment
  // (the CPU agent allows 64 KiB): with lane 0 on, a wrap means
  // an access out of bounds, which HSAIL leaves undefined. So the vector
  // access is right whenever lane 0 is on: in whole waves, whose mask is a
  // constant once the body is inlined, the check folds away. A lane 0 that
  // is off keeps the check (lanes past it may have wrapped into bounds).
  // The same holds row by row. A group in lockstep is whole (its body
  // runs with every lane on): in a block every lane runs, no check.
  auto *Base = dyn_cast<CallInst>(getUnderlyingObject(Ptr, 0));
  const bool Group =
      Base && isQuery(Base->getCalledFunction(), query::GroupBase);
  if (Linear)
    *Linear = false;
  if (inBoundsGroupAccess(Ptr, BB) && !S.Checks.empty()) {
    if (Linear)
      *Linear = true;
    return ConstantInt::getTrue(Ctx);
  }
  if (inRows() && !Group && !S.Checks.empty())
    if (Value *Cond = noWrapInAllRows(S, B)) {
      if (Linear)
        *Linear = true;
      return Cond;
    }
  Value *All = nullptr;
  for (unsigned Row = 0; Row < rows(); ++Row) {
    Value *Cond = noWrap(S, Row, B);
    if (!Cond)
      return nullptr; // No checks: none in any row.
    if (auto *C = dyn_cast<ConstantInt>(Cond); C && C->isZero())
      return Cond;
    if (Group && !isa<Constant>(Cond))
      Cond = B.CreateOr(Cond,
                        B.CreateExtractElement(Mask, uint64_t(Row * RowWidth)));
    All = All ? B.CreateAnd(All, Cond) : Cond;
  }
  return All;
}

/// The shapes StructurizeCFG leaves, which masking relies on: a varying
/// branch is either an if-then whose other successor is its join, or the
/// latch of a loop with one exit.
Error Vectorizer::checkShape() {
  for (BasicBlock *BB : RPO) {
    for (Instruction &I : *BB) {
      if (!isVarying(&I) || I.getType()->isVoidTy() ||
          isa<AtomicCmpXchgInst>(I))
        continue;
      Type *T = I.getType();
      if (!(T->isIntegerTy() && T->getIntegerBitWidth() <= 128) &&
          !T->isFloatingPointTy() && !T->isPointerTy())
        return unsupported("a value that varies between work-items has "
                           "type " +
                           [&] {
                             std::string S;
                             raw_string_ostream OS(S);
                             T->print(OS);
                             return S;
                           }());
    }
    Loop *L = LI.getLoopFor(BB);
    if (L && L->getHeader() == BB) {
      if (!L->getLoopLatch() || !L->getLoopPredecessor() || pred_size(BB) != 2)
        return unsupported("a loop without one latch and one entry");
      if (isDivergent(L->getLoopLatch())) {
        SmallVector<BasicBlock *, 2> Exiting;
        L->getExitingBlocks(Exiting);
        BasicBlock *Exit = L->getExitBlock();
        if (Exiting.size() != 1 || Exiting[0] != L->getLoopLatch() || !Exit ||
            !Exit->getSinglePredecessor())
          return unsupported("a loop whose exit varies between work-items "
                             "leaves it elsewhere than at its latch");
      }
    }
    if (!isDivergent(BB))
      continue;
    auto *Br = cast<BranchInst>(BB->getTerminator());
    if (isLatchBranch(BB))
      continue; // Checked with the loop.
    // Every other exiting branch of a loop must be uniform.
    if (L && L->isLoopExiting(BB))
      return unsupported("a loop exit that varies between work-items is not "
                         "at the loop's latch");
    auto *N = PDT.getNode(BB);
    BasicBlock *Join = N && N->getIDom() ? N->getIDom()->getBlock() : nullptr;
    BasicBlock *S0 = Br->getSuccessor(0), *S1 = Br->getSuccessor(1);
    BasicBlock *Region = S0 == Join ? S1 : S1 == Join ? S0 : nullptr;
    // The region may start with a loop: its other entries are back edges.
    auto EntersOnce = [&](BasicBlock *R) {
      for (BasicBlock *P : predecessors(R))
        if (P != BB && !DT.dominates(R, P))
          return false;
      return pred_size(R) == 1 ||
             (LI.getLoopFor(R) && LI.getLoopFor(R)->getHeader() == R &&
              LI.getLoopFor(R)->getLoopPredecessor() == BB);
    };
    if (!Join || !Region || Region == Join || pred_size(Join) != 2 ||
        !EntersOnce(Region))
      return unsupported("a branch that varies between work-items has no "
                         "structured join");
  }
  return Error::success();
}

DenseSet<const BasicBlock *> Vectorizer::wholeWaveBlocks() const {
  return wholeBlocks([&](const Value *V) { return isVarying(V); });
}

DenseSet<const BasicBlock *>
Vectorizer::wholeBlocks(function_ref<bool(const Value *)> IsVar) const {
  auto isDivergent = [&](const BasicBlock *BB) {
    return branchesOn(BB, IsVar);
  };
  auto divergentJoin = [&](const BasicBlock *BB) -> const BasicBlock * {
    if (!isDivergent(BB) || isLatchBranch(BB))
      return nullptr;
    auto *N = PDT.getNode(BB);
    return N && N->getIDom() ? N->getIDom()->getBlock() : nullptr;
  };
  DenseSet<const BasicBlock *> Whole;
  for (BasicBlock *BB : RPO) {
    bool W = false;
    Loop *L = LI.getLoopFor(BB);
    if (BB == &F.getEntryBlock()) {
      W = true;
    } else if (L && L->getHeader() == BB) {
      W = L->getLoopPredecessor() && Whole.count(L->getLoopPredecessor()) &&
          L->getLoopLatch() && !isDivergent(L->getLoopLatch());
    } else {
      bool Join = false;
      for (BasicBlock *P : predecessors(BB))
        if (divergentJoin(P) == BB) {
          Join = true;
          W = Whole.count(P);
        }
      if (!Join) {
        W = true;
        for (BasicBlock *P : predecessors(BB)) {
          if (!isDivergent(P))
            W &= Whole.count(P) != 0;
          else if (isLatchBranch(P) && !LI.getLoopFor(P)->contains(BB))
            W &= Whole.count(LI.getLoopFor(P)->getLoopPredecessor()) != 0;
          else
            W = false; // The region of a varying if.
        }
      }
    }
    if (W)
      Whole.insert(BB);
  }
  return Whole;
}

void Vectorizer::findVaryingSlots() {
  for (bool Changed = true; Changed;) {
    findVarying();
    WholeWave = wholeWaveBlocks();
    Changed = false;
    for (auto &[St, Slot] : RegisterStores)
      if (!VaryingSlots.count(Slot) && (isVarying(St->getValueOperand()) ||
                                        !WholeWave.count(St->getParent()))) {
        VaryingSlots.insert(Slot);
        Changed = true;
      }
  }
}

} // namespace openhsa::finalizer::vectorizer
