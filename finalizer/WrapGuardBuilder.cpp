//===- finalizer/WrapGuardBuilder.cpp - Index ranges as a guard -----------===//

#include "finalizer/WrapGuardBuilder.h"

#include "finalizer/Lowering.h"

#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/TargetParser/Triple.h"

namespace openhsa::finalizer {

using namespace llvm;
using Op = WrapGuard::Op;

namespace {
/// Deeper expressions than this are not an index's (and would recurse
/// through phis without end).
constexpr unsigned MaxDepth = 48;

bool guardWidth(unsigned Bits) {
  return Bits == 8 || Bits == 16 || Bits == 32 || Bits == 64;
}

/// The dispatch query V calls with a constant dimension, if any.
std::optional<WrapGuard::Node> queryNode(const CallInst &CI) {
  const Function *Callee = CI.getCalledFunction();
  if (!Callee)
    return std::nullopt;
  const StringRef Name = Callee->getName();
  if (Name == query::Dim)
    return WrapGuard::Node{Op::Dim};
  static const std::pair<const char *, Op> Queries[] = {
      {query::WorkItemId, Op::WorkItemId},
      {query::WorkGroupId, Op::WorkGroupId},
      {query::WorkGroupSize, Op::WorkGroupSize},
      {query::CurrentWorkGroupSize, Op::CurrentWorkGroupSize},
      {query::GridSize, Op::GridSize},
      {query::GridGroups, Op::GridGroups}};
  for (auto [QueryName, Kind] : Queries)
    if (Name == QueryName && CI.arg_size() == 2)
      if (auto *D = dyn_cast<ConstantInt>(CI.getArgOperand(1));
          D && D->getZExtValue() <= 2) {
        WrapGuard::Node N{Kind};
        N.A = uint32_t(D->getZExtValue());
        return N;
      }
  return std::nullopt;
}
} // namespace

WrapGuardBuilder::WrapGuardBuilder(Function &F, DominatorTree &DT, LoopInfo &LI,
                                   WrapGuard &Guard)
    : F(F), LI(LI), Guard(Guard),
      TLII(std::make_unique<TargetLibraryInfoImpl>(
          Triple(F.getParent()->getTargetTriple()))),
      TLI(std::make_unique<TargetLibraryInfo>(*TLII)),
      AC(std::make_unique<AssumptionCache>(F)),
      SE(std::make_unique<ScalarEvolution>(F, *TLI, *AC, DT, LI)) {}

WrapGuardBuilder::~WrapGuardBuilder() = default;

uint32_t WrapGuardBuilder::add(WrapGuard::Node N) {
  Guard.Nodes.push_back(N);
  return uint32_t(Guard.Nodes.size() - 1);
}

bool WrapGuardBuilder::require(Value *Narrow, bool Signed) {
  auto *T = dyn_cast<IntegerType>(Narrow->getType());
  if (!T || !guardWidth(T->getBitWidth()))
    return false;
  const size_t Start = Guard.Nodes.size();
  std::optional<uint32_t> N = node(Narrow, 0);
  if (N && Guard.Nodes.size() < WrapGuard::MaxNodes) {
    WrapGuard::Node Fits{Op::Fits, uint8_t(T->getBitWidth()), Signed, *N};
    add(Fits);
    return true;
  }
  // Forget what this attempt added.
  Guard.Nodes.resize(Start);
  auto Forget = [&](auto &Map) {
    for (auto It = Map.begin(); It != Map.end();) {
      auto Next = std::next(It);
      if (It->second >= Start)
        Map.erase(It);
      It = Next;
    }
  };
  Forget(Nodes);
  Forget(ScevNodes);
  return false;
}

std::optional<uint32_t> WrapGuardBuilder::node(Value *V, unsigned Depth) {
  if (auto It = Nodes.find(V); It != Nodes.end())
    return It->second;
  if (Depth > MaxDepth || Guard.Nodes.size() >= WrapGuard::MaxNodes)
    return std::nullopt;
  auto *T = dyn_cast<IntegerType>(V->getType());
  if (!T || T->getBitWidth() > 64)
    return std::nullopt;
  const unsigned Bits = T->getBitWidth();
  auto Binary = [&](Op Kind, Value *A, Value *B) -> std::optional<uint32_t> {
    auto NA = node(A, Depth + 1);
    auto NB = NA ? node(B, Depth + 1) : std::nullopt;
    if (!NB)
      return std::nullopt;
    WrapGuard::Node N{Kind, uint8_t(Bits), false, *NA, *NB};
    return add(N);
  };
  std::optional<uint32_t> R;
  using namespace PatternMatch;
  if (auto *C = dyn_cast<ConstantInt>(V)) {
    WrapGuard::Node N{Op::Const};
    N.Value = C->getSExtValue();
    R = add(N);
  } else if (auto *CI = dyn_cast<CallInst>(V)) {
    if (auto N = queryNode(*CI))
      R = add(*N);
  } else if (auto *L = dyn_cast<LoadInst>(V)) {
    // The kernarg segment, which no kernel writes (PRM 4.3.1).
    APInt Offset(64, 0);
    const Value *Base =
        L->getPointerOperand()->stripAndAccumulateConstantOffsets(
            F.getParent()->getDataLayout(), Offset, /*AllowNonInbounds=*/true);
    if (!L->isVolatile() && guardWidth(Bits) && Base == F.getArg(0) &&
        Offset.isNonNegative() && Offset.ult(UINT32_MAX)) {
      WrapGuard::Node N{Op::Kernarg, uint8_t(Bits)};
      N.A = uint32_t(Offset.getZExtValue());
      R = add(N);
    }
  } else if (auto *BO = dyn_cast<BinaryOperator>(V)) {
    Value *A = BO->getOperand(0), *B = BO->getOperand(1);
    const APInt *C = nullptr;
    switch (BO->getOpcode()) {
    case Instruction::Add:
      R = Binary(Op::Add, A, B);
      break;
    case Instruction::Sub:
      R = Binary(Op::Sub, A, B);
      break;
    case Instruction::Mul:
      R = Binary(Op::Mul, A, B);
      break;
    case Instruction::Shl:
      // x << c is x * 2^c modulo 2^width.
      if (match(B, m_APInt(C)) && C->ult(std::min(Bits, 63u))) {
        if (auto NA = node(A, Depth + 1)) {
          WrapGuard::Node Pow{Op::Const};
          Pow.Value = int64_t(1) << C->getZExtValue();
          WrapGuard::Node N{Op::Mul, uint8_t(Bits), false, *NA, add(Pow)};
          R = add(N);
        }
      }
      break;
    case Instruction::Xor:
      if (match(B, m_AllOnes()) || match(A, m_AllOnes()))
        if (auto NA = node(match(B, m_AllOnes()) ? A : B, Depth + 1)) {
          WrapGuard::Node N{Op::Not, uint8_t(Bits), false, *NA};
          R = add(N);
        }
      break;
    case Instruction::LShr:
      if (guardWidth(Bits) && match(B, m_APInt(C)) && C->ult(Bits))
        if (auto NA = node(A, Depth + 1)) {
          WrapGuard::Node N{Op::LShr, uint8_t(Bits), false, *NA,
                            uint32_t(C->getZExtValue())};
          R = add(N);
        }
      break;
    case Instruction::UDiv:
      if (guardWidth(Bits))
        R = Binary(Op::UDiv, A, B);
      break;
    case Instruction::And:
      // Whatever the other operand, the result's bits lie in [0, mask].
      if (match(B, m_APInt(C)) && C->isNonNegative() && Bits <= 64)
        if (auto NA = node(A, Depth + 1)) {
          WrapGuard::Node N{Op::Mask, uint8_t(Bits), false, *NA};
          N.Value = C->getSExtValue();
          R = add(N);
        }
      break;
    default:
      break;
    }
  } else if (auto *Cast = dyn_cast<CastInst>(V)) {
    Value *A = Cast->getOperand(0);
    auto *From = dyn_cast<IntegerType>(A->getType());
    if (From && isa<TruncInst>(Cast)) {
      R = node(A, Depth + 1); // Congruent modulo the narrower width.
    } else if (From && (isa<ZExtInst>(Cast) || isa<SExtInst>(Cast)) &&
               guardWidth(From->getBitWidth())) {
      if (auto NA = node(A, Depth + 1)) {
        WrapGuard::Node N{isa<ZExtInst>(Cast) ? Op::ZExt : Op::SExt,
                          uint8_t(From->getBitWidth()), false, *NA};
        R = add(N);
      }
    }
  } else if (auto *S = dyn_cast<SelectInst>(V)) {
    R = Binary(Op::Hull, S->getTrueValue(), S->getFalseValue());
  } else if (auto *Fr = dyn_cast<FreezeInst>(V)) {
    R = node(Fr->getOperand(0), Depth + 1);
  } else if (auto *P = dyn_cast<PHINode>(V)) {
    if (P->getNumIncomingValues() == 1)
      R = node(P->getIncomingValue(0), Depth + 1);
    else
      R = induction(*P, Depth);
  }
  if (R)
    Nodes[V] = *R;
  return R;
}

std::optional<uint32_t> WrapGuardBuilder::induction(PHINode &P,
                                                    unsigned Depth) {
  Loop *L = LI.getLoopFor(P.getParent());
  if (!L || L->getHeader() != P.getParent() || !L->getLoopPreheader() ||
      !InProgress.insert(&P).second)
    return std::nullopt;
  std::optional<uint32_t> R;
  auto *AR = dyn_cast<SCEVAddRecExpr>(SE->getSCEV(&P));
  if (AR && AR->isAffine() && AR->getLoop() == L) {
    // Its start as the IR computes it (the congruences hold by the same
    // operations as the vectorizer's strides), its step and the loop's
    // count as scalar evolution has them.
    auto Start =
        node(P.getIncomingValueForBlock(L->getLoopPreheader()), Depth + 1);
    auto Step =
        Start ? node(AR->getStepRecurrence(*SE), Depth + 1) : std::nullopt;
    auto Count = Step ? maxBackedges(*L, Depth + 1) : std::nullopt;
    if (Count) {
      WrapGuard::Node N{Op::Iterate, 0, false, *Start, *Step, *Count};
      R = add(N);
    }
  }
  InProgress.erase(&P);
  return R;
}

std::optional<uint32_t> WrapGuardBuilder::maxBackedges(const Loop &L,
                                                       unsigned Depth) {
  const SCEV *Count = SE->getSymbolicMaxBackedgeTakenCount(&L);
  if (isa<SCEVCouldNotCompute>(Count))
    return latchBound(L, Depth);
  auto *T = dyn_cast<IntegerType>(Count->getType());
  auto N =
      T && guardWidth(T->getBitWidth()) ? node(Count, Depth) : std::nullopt;
  if (!N)
    return std::nullopt;
  // A count, in the loop's unsigned arithmetic.
  return add(WrapGuard::Node{Op::Fits, uint8_t(T->getBitWidth()), false, *N});
}

std::optional<uint32_t> WrapGuardBuilder::node(const SCEV *S, unsigned Depth) {
  if (auto It = ScevNodes.find(S); It != ScevNodes.end())
    return It->second;
  if (Depth > MaxDepth || Guard.Nodes.size() >= WrapGuard::MaxNodes)
    return std::nullopt;
  auto *T = dyn_cast<IntegerType>(S->getType());
  if (!T || T->getBitWidth() > 64)
    return std::nullopt;
  const unsigned Bits = T->getBitWidth();
  // Operands folded left to right with Kind.
  auto Fold = [&](Op Kind,
                  ArrayRef<const SCEV *> Operands) -> std::optional<uint32_t> {
    std::optional<uint32_t> Acc;
    for (const SCEV *O : Operands) {
      auto N = node(O, Depth + 1);
      if (!N)
        return std::nullopt;
      Acc =
          Acc ? add(WrapGuard::Node{Kind, uint8_t(Bits), false, *Acc, *N}) : *N;
    }
    return Acc;
  };
  std::optional<uint32_t> R;
  if (auto *C = dyn_cast<SCEVConstant>(S)) {
    WrapGuard::Node N{Op::Const};
    N.Value = C->getAPInt().getSExtValue();
    R = add(N);
  } else if (auto *U = dyn_cast<SCEVUnknown>(S)) {
    R = node(U->getValue(), Depth + 1);
  } else if (auto *A = dyn_cast<SCEVAddExpr>(S)) {
    R = Fold(Op::Add, A->operands());
  } else if (auto *M = dyn_cast<SCEVMulExpr>(S)) {
    R = Fold(Op::Mul, M->operands());
  } else if (auto *D = dyn_cast<SCEVUDivExpr>(S)) {
    if (guardWidth(Bits))
      R = Fold(Op::UDiv, {D->getLHS(), D->getRHS()});
  } else if (auto *Cast = dyn_cast<SCEVCastExpr>(S)) {
    const SCEV *A = Cast->getOperand(0);
    const unsigned From = A->getType()->getScalarSizeInBits();
    if (isa<SCEVTruncateExpr>(Cast)) {
      R = node(A, Depth + 1);
    } else if ((isa<SCEVZeroExtendExpr>(Cast) ||
                isa<SCEVSignExtendExpr>(Cast)) &&
               A->getType()->isIntegerTy() && guardWidth(From)) {
      if (auto NA = node(A, Depth + 1))
        R = add(
            WrapGuard::Node{isa<SCEVZeroExtendExpr>(Cast) ? Op::ZExt : Op::SExt,
                            uint8_t(From), false, *NA});
    }
  } else if (auto *MM = dyn_cast<SCEVMinMaxExpr>(S); MM && guardWidth(Bits)) {
    const Op Kind = isa<SCEVUMaxExpr>(MM)   ? Op::UMax
                    : isa<SCEVSMaxExpr>(MM) ? Op::SMax
                    : isa<SCEVUMinExpr>(MM) ? Op::UMin
                                            : Op::SMin;
    R = Fold(Kind, MM->operands());
  } else if (auto *SM = dyn_cast<SCEVSequentialUMinExpr>(S);
             SM && guardWidth(Bits)) {
    R = Fold(Op::UMin, SM->operands());
  } else if (auto *AR = dyn_cast<SCEVAddRecExpr>(S); AR && AR->isAffine()) {
    auto Start = node(AR->getStart(), Depth + 1);
    auto Step =
        Start ? node(AR->getStepRecurrence(*SE), Depth + 1) : std::nullopt;
    auto Count = Step ? maxBackedges(*AR->getLoop(), Depth + 1) : std::nullopt;
    if (Count)
      R = add(WrapGuard::Node{Op::Iterate, 0, false, *Start, *Step, *Count});
  }
  if (R)
    ScevNodes[S] = *R;
  return R;
}

std::optional<uint32_t> WrapGuardBuilder::latchBound(const Loop &L,
                                                     unsigned Depth) {
  // A latch that goes on while an induction stepping up by a constant T is
  // below (or at most) a bound N the loop does not change: `i += 16; if (i
  // <u n) repeat`, where scalar evolution cannot tell that i does not wrap.
  // It does not before it passes N, where N + T - 1 (N + T) fits the type:
  // the guard requires that. From its first value S, it then passes N
  // after ceil((N - S) / T) back edges (floor((N - S) / T) + 1), or none.
  BasicBlock *Latch = L.getLoopLatch();
  auto *Br = Latch ? dyn_cast<BranchInst>(Latch->getTerminator()) : nullptr;
  auto *Cmp = Br && Br->isConditional() ? dyn_cast<ICmpInst>(Br->getCondition())
                                        : nullptr;
  if (!Cmp)
    return std::nullopt;
  CmpInst::Predicate GoesOn = Br->getSuccessor(0) == L.getHeader()
                                  ? Cmp->getPredicate()
                                  : Cmp->getInversePredicate();
  const SCEV *Iv = SE->getSCEV(Cmp->getOperand(0));
  const SCEV *Bound = SE->getSCEV(Cmp->getOperand(1));
  if (!isa<SCEVAddRecExpr>(Iv)) {
    std::swap(Iv, Bound);
    GoesOn = CmpInst::getSwappedPredicate(GoesOn);
  }
  auto *AR = dyn_cast<SCEVAddRecExpr>(Iv);
  auto *Step =
      AR ? dyn_cast<SCEVConstant>(AR->getStepRecurrence(*SE)) : nullptr;
  auto *T = dyn_cast<IntegerType>(Iv->getType());
  if (!AR || AR->getLoop() != &L || !AR->isAffine() || !Step ||
      !Step->getAPInt().isStrictlyPositive() ||
      Step->getAPInt().getActiveBits() > 32 || !T ||
      !guardWidth(T->getBitWidth()) || !SE->isLoopInvariant(Bound, &L) ||
      (GoesOn != CmpInst::ICMP_ULT && GoesOn != CmpInst::ICMP_ULE))
    return std::nullopt;
  auto N = node(Bound, Depth + 1);
  auto S = N ? node(AR->getStart(), Depth + 1) : std::nullopt;
  if (!S)
    return std::nullopt;
  const uint8_t Bits = uint8_t(T->getBitWidth());
  const int64_t TV = int64_t(Step->getAPInt().getZExtValue());
  auto Const = [&](int64_t V) {
    WrapGuard::Node C{Op::Const};
    C.Value = V;
    return add(C);
  };
  auto Unsigned = [&](uint32_t X) {
    return add(WrapGuard::Node{Op::Fits, Bits, false, X});
  };
  // N + T - 1 (N + T), which must fit, less S (both as unsigned values),
  // at least 0, divided by T.
  const uint32_t Past = Unsigned(
      add(WrapGuard::Node{Op::Add, Bits, false, Unsigned(*N),
                          Const(GoesOn == CmpInst::ICMP_ULT ? TV - 1 : TV)}));
  const uint32_t Ahead = add(WrapGuard::Node{
      Op::SMax, 64, false,
      add(WrapGuard::Node{Op::Sub, 64, false, Past, Unsigned(*S)}), Const(0)});
  return add(WrapGuard::Node{Op::UDiv, 64, false, Ahead, Const(TV)});
}

} // namespace openhsa::finalizer
