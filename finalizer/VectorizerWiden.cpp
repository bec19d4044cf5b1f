//===- finalizer/VectorizerWiden.cpp - Masks and vector code --------------===//
#include "finalizer/VectorizerImpl.h"

#include "finalizer/Codegen.h"
#include "finalizer/LaneRowsAccess.h"
#include "finalizer/Lowering.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

namespace openhsa::finalizer::vectorizer {

//===----------------------------------------------------------------------===//
// Masks
//===----------------------------------------------------------------------===//

Value *Vectorizer::maskOf(BasicBlock *BB) {
  if (Value *M = Masks.lookup(BB))
    return M;
  Instruction *&P = StandInMasks[BB];
  if (!P)
    P = new FreezeInst(PoisonValue::get(Active->getType()), "mask",
                       BB->getFirstInsertionPt());
  return P;
}

Value *Vectorizer::accessMask(BasicBlock *BB) {
  if (LockstepGroup && WholeWave.count(BB))
    return ConstantInt::getTrue(vectorOf(Type::getInt1Ty(Ctx), W));
  return maskOf(BB);
}

/// Cond's lanes for a mask, frozen: a lane that is off computes whatever
/// its inputs give, and a widened `add nsw` that overflows there is
/// poison, which an `and` with the lane's false bit keeps (a mask lane
/// that is poison lets a masked store write or not). The lanes that are on
/// are the scalar code's values, unchanged. Always frozen: what a lane
/// computes may still be a stand-in here (a loop's phis), and InstCombine
/// drops the freezes of what it proves cannot be poison.
Value *Vectorizer::laneCondition(IRBuilder<> &B, Value *Cond) {
  return B.CreateFreeze(vec(Cond), "lanes");
}

/// The lanes that go from P to S.
Value *Vectorizer::edgeMask(BasicBlock *P, BasicBlock *S) {
  if (!isDivergent(P))
    return maskOf(P);
  auto Key = std::make_pair(P, S);
  if (Value *M = EdgeMasks.lookup(Key))
    return M;
  auto *Br = cast<BranchInst>(P->getTerminator());
  Loop *L = LI.getLoopFor(P);
  if (isLatchBranch(P) && S != L->getHeader())
    return LoopEntryMasks.lookup(L); // All lanes that entered leave.
  if (divergentJoin(P) == S)
    return maskOf(P);
  IRBuilder<> B(Br);
  Value *Cond = laneCondition(B, Br->getCondition());
  if (Br->getSuccessor(0) != S)
    Cond = B.CreateNot(Cond);
  Value *M = B.CreateAnd(maskOf(P), Cond, "edge.mask");
  EdgeMasks[Key] = M;
  return M;
}

void Vectorizer::buildMasks() {
  std::vector<std::pair<PHINode *, Loop *>> Headers;
  for (BasicBlock *BB : RPO) {
    Value *M = nullptr;
    Loop *L = LI.getLoopFor(BB);
    if (BB == &F.getEntryBlock()) {
      M = Active;
    } else if (L && L->getHeader() == BB) {
      auto *Phi = PHINode::Create(Active->getType(), 2, "loop.mask",
                                  BB->getFirstNonPHIIt());
      Value *Entry = edgeMask(L->getLoopPredecessor(), BB);
      Phi->addIncoming(Entry, L->getLoopPredecessor());
      LoopEntryMasks[L] = Entry;
      Headers.push_back({Phi, L});
      M = Phi;
    } else {
      // The join of a varying branch runs under the branch's mask.
      for (BasicBlock *P : predecessors(BB))
        if (divergentJoin(P) == BB)
          M = Masks.lookup(P);
      if (!M) {
        if (BasicBlock *P = BB->getSinglePredecessor()) {
          M = edgeMask(P, BB);
        } else {
          auto *Phi = PHINode::Create(Active->getType(), pred_size(BB),
                                      "join.mask", BB->getFirstNonPHIIt());
          for (BasicBlock *P : predecessors(BB))
            Phi->addIncoming(edgeMask(P, BB), P);
          M = Phi;
        }
      }
    }
    Masks[BB] = M; // BB's stand-in is replaced below.
  }
  for (auto &[Phi, L] : Headers)
    Phi->addIncoming(edgeMask(L->getLoopLatch(), L->getHeader()),
                     L->getLoopLatch());
  for (auto &[BB, P] : StandInMasks) {
    P->replaceAllUsesWith(Masks[BB]);
    P->eraseFromParent();
  }
  StandInMasks.clear();
}

/// Whether the region of a varying if-then, the blocks from Then up to
/// Join, is short, loop-free code that may run with no lane on: every
/// instruction could run speculatively (no memory access, no call but of
/// speculatable intrinsics, no division that may trap), so it needs no
/// branch around it. The widened code blends its results by the lanes'
/// masks at Join as it does where some lanes skip the region.
bool Vectorizer::runsWithoutBranch(BasicBlock *Then, BasicBlock *Join) const {
  // Instructions of widened code the region may have (the scalar forms of
  // varying values do not count: they go once widening is done).
  constexpr unsigned MaxInstructions = 32;
  DenseSet<const Instruction *> Scalar(Replaced.begin(), Replaced.end());
  DenseSet<const BasicBlock *> Seen;
  SmallVector<BasicBlock *, 8> Work{Then};
  unsigned Count = 0;
  while (!Work.empty()) {
    BasicBlock *R = Work.pop_back_val();
    if (R == Join || !Seen.insert(R).second)
      continue;
    if (LI.isLoopHeader(R) || isa<ReturnInst>(R->getTerminator()))
      return false;
    for (const Instruction &I : *R) {
      if (I.isTerminator() || isa<PHINode>(I) || Scalar.count(&I))
        continue;
      if (!isSafeToSpeculativelyExecute(&I) || ++Count > MaxInstructions)
        return false;
    }
    append_range(Work, successors(R));
  }
  return true;
}

/// A varying if-then enters its region when any lane does, or always,
/// where the region is a few instructions with no effect (runsWithoutBranch:
/// the test and branch would cost as much, and without a mask crossing
/// blocks, code generation keeps the compares that make it in the
/// registers their blends read: mandelbrot's escape tests, where a mask
/// of 8 lanes without AVX-512 went through a 16-bit XMM form and back at
/// each block); a loop whose exit varies goes round while any lane stays
/// in it.
void Vectorizer::rewriteBranches() {
  for (BasicBlock *BB : RPO) {
    if (!isDivergent(BB))
      continue;
    auto *Br = cast<BranchInst>(BB->getTerminator());
    BasicBlock *Taken, *Other;
    bool Always = false;
    if (isLatchBranch(BB)) {
      Taken = LI.getLoopFor(BB)->getHeader();
      Other = Br->getSuccessor(0) == Taken ? Br->getSuccessor(1)
                                           : Br->getSuccessor(0);
    } else {
      Other = divergentJoin(BB);
      Taken = Br->getSuccessor(0) == Other ? Br->getSuccessor(1)
                                           : Br->getSuccessor(0);
      Always =
          none_of(MayDiffer,
                  [&](const MayDifferAt &D) { return D.At == BB; }) &&
          none_of(RowSkips, [&](const RowSkip &R) { return R.If == BB; }) &&
          runsWithoutBranch(Taken, Other);
    }
    IRBuilder<> B(Br);
    Value *Any = Always ? static_cast<Value *>(B.getTrue())
                        : B.CreateOrReduce(edgeMask(BB, Taken));
    Br->setCondition(Any);
    if (Br->getSuccessor(0) != Taken)
      Br->swapSuccessors();
  }
}

//===----------------------------------------------------------------------===//
// Widening
//===----------------------------------------------------------------------===//

Value *Vectorizer::splat(Value *V, IRBuilder<> &B) {
  if (auto *C = dyn_cast<Constant>(V))
    return ConstantVector::getSplat(ElementCount::getFixed(W), C);
  Value *&S = Splats[V];
  if (!S) {
    IRBuilder<> At(Ctx);
    if (auto *I = dyn_cast<Instruction>(V))
      At.SetInsertPoint(*I->getInsertionPointAfterDef());
    else
      At.SetInsertPoint(F.getEntryBlock().getFirstInsertionPt());
    S = At.CreateVectorSplat(W, V);
  }
  return S;
}

Value *Vectorizer::vec(Value *V) {
  if (isVarying(V)) {
    Value *R = Vec.lookup(V);
    assert(R && "varying value used before it was widened");
    return R;
  }
  IRBuilder<> B(Ctx);
  return splat(V, B);
}

/// <0, 1, ..., W-1>.
Value *Vectorizer::laneIds() {
  if (!LaneIdVector) {
    SmallVector<Constant *, 16> Ids;
    for (unsigned L = 0; L < W; ++L)
      Ids.push_back(ConstantInt::get(Type::getInt32Ty(Ctx), L));
    LaneIdVector = ConstantVector::get(Ids);
  }
  return LaneIdVector;
}

Value *Vectorizer::laneOffsets(unsigned D) {
  if (!inRows())
    return D == 0 ? laneIds()
                  : ConstantAggregateZero::get(laneIds()->getType());
  SmallVector<Constant *, 64> Ids;
  for (unsigned L = 0; L < W; ++L)
    Ids.push_back(ConstantInt::get(Type::getInt32Ty(Ctx),
                                   D == 0 ? L % RowWidth : L / RowWidth));
  return ConstantVector::get(Ids);
}

/// A copy of the work-item state whose local X id is lane Lane's.
Value *Vectorizer::laneWorkItem(IRBuilder<> &B, unsigned Lane) {
  if (LaneWorkItems.empty()) {
    IRBuilder<> E(&*F.getEntryBlock().getFirstInsertionPt());
    for (unsigned L = 0; L < W; ++L) {
      auto *Copy = E.CreateAlloca(ArrayType::get(E.getInt8Ty(), State.Size),
                                  nullptr, "wi.lane");
      Copy->setAlignment(Align(8));
      LaneWorkItems.push_back(Copy);
    }
  }
  Value *Copy = LaneWorkItems[Lane];
  B.CreateMemCpy(Copy, Align(8), WorkItem, Align(8), State.Size);
  if (Layout == WaveLayout::Flat) {
    std::array<Value *, 3> &Ids = flatIds();
    for (unsigned D = 0; D < 3; ++D)
      B.CreateStore(B.CreateExtractElement(Ids[D], Lane),
                    B.CreateConstGEP1_64(B.getInt8Ty(), Copy,
                                         State.LocalXOffset + 4 * D));
    return Copy;
  }
  for (unsigned D = 0; D < (inRows() ? 2 : 1); ++D) {
    const unsigned By = D == 0 ? Lane % RowWidth : Lane / RowWidth;
    Value *Ptr = B.CreateConstGEP1_64(B.getInt8Ty(), WorkItem,
                                      State.LocalXOffset + 4 * D);
    Value *Id = B.CreateLoad(B.getInt32Ty(), Ptr);
    B.CreateStore(
        B.CreateAdd(Id, B.getInt32(By)),
        B.CreateConstGEP1_64(B.getInt8Ty(), Copy, State.LocalXOffset + 4 * D));
  }
  return Copy;
}

std::array<Value *, 3> &Vectorizer::flatIds() {
  if (FlatIds[0])
    return FlatIds;
  // Lane 0's ids and the current group size give lane 0's current
  // flattened id; lane L's is L more.
  IRBuilder<> E(&*F.getEntryBlock().getFirstInsertionPt());
  Module &M = *F.getParent();
  auto Query = [&](const char *Name, unsigned D) {
    return E.CreateCall(M.getOrInsertFunction(Name, E.getInt32Ty(),
                                              E.getPtrTy(), E.getInt32Ty()),
                        {WorkItem, E.getInt32(D)});
  };
  Value *X0 = Query(query::WorkItemId, 0), *Y0 = Query(query::WorkItemId, 1),
        *Z0 = Query(query::WorkItemId, 2);
  Value *SX = Query(query::CurrentWorkGroupSize, 0),
        *SY = Query(query::CurrentWorkGroupSize, 1);
  Value *Flat0 =
      E.CreateAdd(X0, E.CreateMul(SX, E.CreateAdd(Y0, E.CreateMul(SY, Z0))));
  Value *Flat = E.CreateAdd(E.CreateVectorSplat(W, Flat0), laneIds(), "flat");
  Value *VX = E.CreateVectorSplat(W, SX), *VY = E.CreateVectorSplat(W, SY);
  Value *Row = E.CreateUDiv(Flat, VX);
  FlatIds = {E.CreateURem(Flat, VX, "wi.x"), E.CreateURem(Row, VY, "wi.y"),
             E.CreateUDiv(Row, VY, "wi.z")};
  return FlatIds;
}

/// Asks LLVM to unroll loop L fully where its trip count is a constant.
static void askFullUnroll(Loop &L) {
  BasicBlock *Latch = L.getLoopLatch();
  if (!Latch || Latch->getTerminator()->getMetadata(LLVMContext::MD_loop))
    return;
  LLVMContext &C = Latch->getContext();
  MDNode *Self = MDNode::getDistinct(C, {});
  MDNode *Full = MDNode::get(C, MDString::get(C, "llvm.loop.unroll.full"));
  MDNode *Id = MDNode::getDistinct(C, {Self, Full});
  Id->replaceOperandWith(0, Id);
  Latch->getTerminator()->setMetadata(LLVMContext::MD_loop, Id);
}

void Vectorizer::lowerUniformWaveQueries() {
  // Loops with group barriers (the group in lockstep, LockstepGroups.h):
  // a tree's halving loop, a scan's doubling loop. With the group's shape
  // constant their trip counts are constants too; unrolled, the offsets at
  // which lanes exchange values through group memory are constants, which
  // lets those values stay in registers (ForwardVectorStores.h). LLVM's
  // own cost model declines: it prices a group-wide vector operation as
  // the 16 it becomes.
  DominatorTree Dom(F);
  LoopInfo Loops(Dom);
  for (Instruction &I : make_early_inc_range(instructions(F))) {
    auto *CI = dyn_cast<CallInst>(&I);
    if (!CI)
      continue;
    if (isQuery(CI->getCalledFunction(), query::WaveBarrier) ||
        isQuery(CI->getCalledFunction(), query::Barrier)) {
      // The lanes run in lockstep: every access before it is done for all
      // of them before any access after it. A body with group barriers is
      // vectorized only as a whole group in lockstep (LockstepGroups.h).
      if (isQuery(CI->getCalledFunction(), query::Barrier))
        if (Loop *L = Loops.getLoopFor(CI->getParent()))
          askFullUnroll(*L);
      CI->eraseFromParent();
    } else if (isQuery(CI->getCalledFunction(), query::WaveBallot)) {
      // The lanes that reach this block and whose bit is set, lane L at
      // bit L.
      IRBuilder<> B(CI);
      Value *Bits = B.CreateAnd(laneCondition(B, CI->getArgOperand(1)),
                                maskOf(CI->getParent()));
      Value *Ballot = B.CreateZExt(B.CreateBitCast(Bits, B.getIntNTy(W)),
                                   CI->getType(), "ballot");
      CI->replaceAllUsesWith(Ballot);
      CI->eraseFromParent();
    }
  }
}

/// Runs I once per lane (the copies are guarded by their lane's bit later)
/// and returns the lanes' results as a vector (nullptr for void).
Value *Vectorizer::laneByLane(Instruction &I, IRBuilder<> &B,
                              SmallVectorImpl<Instruction *> *Copies) {
  ++Stats.LaneCopies;
  Value *Mask = maskOf(I.getParent());
  Value *Result = I.getType()->isVoidTy() || Copies
                      ? nullptr
                      : PoisonValue::get(vectorOf(I.getType(), W));
  for (unsigned L = 0; L < W; ++L) {
    Instruction *Copy = I.clone();
    for (Use &U : Copy->operands()) {
      if (isVarying(U.get()))
        U.set(B.CreateExtractElement(vec(U.get()), L));
      else if (U.get() == WorkItem && isa<CallInst>(I))
        U.set(laneWorkItem(B, L));
    }
    Value *Bit = B.CreateExtractElement(Mask, L);
    B.Insert(Copy);
    LaneOps.push_back({Copy, Bit});
    if (Copies)
      Copies->push_back(Copy);
    if (Result)
      Result = B.CreateInsertElement(Result, Copy, L);
  }
  return Result;
}

/// cmpxchg yields {value, success}: each lane's, through the extractvalues
/// that read them.
Error Vectorizer::widenCmpXchg(Instruction &I, IRBuilder<> &B) {
  SmallVector<Instruction *, 16> Copies;
  laneByLane(I, B, &Copies);
  for (User *U : I.users()) {
    auto *EV = dyn_cast<ExtractValueInst>(U);
    if (!EV || EV->getNumIndices() != 1)
      return unsupported("cmpxchg's result used whole");
    IRBuilder<> At(EV);
    Value *R = PoisonValue::get(vectorOf(EV->getType(), W));
    for (unsigned L = 0; L < W; ++L)
      R = At.CreateInsertElement(
          R, At.CreateExtractValue(Copies[L], EV->getIndices()), L);
    Vec[EV] = R;
    Replaced.push_back(EV);
  }
  return Error::success();
}

Error Vectorizer::widenCall(CallInst &CI, IRBuilder<> &B) {
  Function *Callee = CI.getCalledFunction();
  if (isQuery(Callee, query::WorkItemId) && Layout == WaveLayout::Flat) {
    std::array<Value *, 3> &Ids = flatIds();
    Value *D = CI.getArgOperand(1);
    if (auto *C = dyn_cast<ConstantInt>(D)) {
      Vec[&CI] = Ids[std::min<uint64_t>(C->getZExtValue(), 2)];
    } else {
      Value *Is1 = B.CreateICmpEQ(D, B.getInt32(1));
      Value *Is2 = B.CreateICmpEQ(D, B.getInt32(2));
      Vec[&CI] =
          B.CreateSelect(Is2, Ids[2], B.CreateSelect(Is1, Ids[1], Ids[0]));
    }
    return Error::success();
  }
  if (isQuery(Callee, query::WaveLaneId)) {
    Vec[&CI] = laneIds();
    return Error::success();
  }
  if (isQuery(Callee, query::WaveShuffle32) ||
      isQuery(Callee, query::WaveShuffle64)) {
    // Each lane reads the value of the lane it names (in 0..W-1, which
    // the lowering ensures); inactive lanes' values are read as they are.
    Value *Values = vec(CI.getArgOperand(1));
    Value *From = CI.getArgOperand(2);
    Value *R = PoisonValue::get(vectorOf(CI.getType(), W));
    for (unsigned L = 0; L < W; ++L) {
      Value *Lane =
          isVarying(From) ? B.CreateExtractElement(vec(From), L) : From;
      R = B.CreateInsertElement(R, B.CreateExtractElement(Values, Lane), L);
    }
    Vec[&CI] = R;
    return Error::success();
  }
  if (isQuery(Callee, query::WorkItemId)) {
    // Lane L is the work-item L further along X; other dimensions agree.
    // In a 2-D group in lockstep, L mod RowWidth further along X and
    // L / RowWidth further along Y.
    KeepScalar.insert(&CI);
    B.SetInsertPoint(*CI.getInsertionPointAfterDef());
    Value *X = B.CreateAdd(splat(&CI, B), laneOffsets(0), "wi.x");
    Value *Y = inRows() ? B.CreateAdd(splat(&CI, B), laneOffsets(1), "wi.y")
                        : splat(&CI, B);
    auto *D = dyn_cast<ConstantInt>(CI.getArgOperand(1));
    if (!D)
      X = B.CreateSelect(
          B.CreateICmpEQ(CI.getArgOperand(1), B.getInt32(0)), X,
          B.CreateSelect(B.CreateICmpEQ(CI.getArgOperand(1), B.getInt32(1)), Y,
                         splat(&CI, B)));
    else if (D->isOne())
      X = Y;
    else if (!D->isZero())
      X = splat(&CI, B);
    Vec[&CI] = X;
    return Error::success();
  }
  if (isQuery(Callee, LaneMarker) || isQuery(Callee, PrivateLaneMarker)) {
    Vec[&CI] = B.CreateZExt(laneIds(), vectorOf(B.getInt64Ty(), W));
    return Error::success();
  }
  if (isQuery(Callee, query::PrivateBase)) {
    // Private blocks follow each other in flat id order.
    KeepScalar.insert(&CI);
    B.SetInsertPoint(*CI.getInsertionPointAfterDef());
    Module &M = *F.getParent();
    FunctionCallee SizeQuery = M.getOrInsertFunction(
        query::PrivateSegmentSize, B.getInt32Ty(), B.getPtrTy());
    Value *Size =
        B.CreateZExt(B.CreateCall(SizeQuery, {WorkItem}), B.getInt64Ty());
    Value *Offsets =
        B.CreateMul(B.CreateZExt(laneIds(), vectorOf(B.getInt64Ty(), W)),
                    B.CreateVectorSplat(W, Size));
    Vec[&CI] = B.CreateGEP(B.getInt8Ty(), splat(&CI, B), Offsets, "private");
    return Error::success();
  }
  Intrinsic::ID ID =
      Callee ? Callee->getIntrinsicID() : Intrinsic::not_intrinsic;
  if (ID != Intrinsic::not_intrinsic && isTriviallyVectorizable(ID)) {
    SmallVector<Value *, 4> Args;
    SmallVector<Type *, 2> Tys;
    if (isVectorIntrinsicWithOverloadTypeAtArg(ID, -1))
      Tys.push_back(vectorOf(CI.getType(), W));
    for (unsigned A = 0; A < CI.arg_size(); ++A) {
      Value *Op = CI.getArgOperand(A);
      if (isVectorIntrinsicWithScalarOpAtArg(ID, A)) {
        if (isVarying(Op))
          return unsupported("a varying scalar operand of " +
                             Callee->getName());
        Args.push_back(Op);
      } else {
        Args.push_back(vec(Op));
      }
      if (isVectorIntrinsicWithOverloadTypeAtArg(ID, A))
        Tys.push_back(Args.back()->getType());
    }
    Function *VF = Intrinsic::getDeclaration(F.getParent(), ID, Tys);
    CallInst *R = B.CreateCall(VF, Args);
    R->copyFastMathFlags(&CI);
    Vec[&CI] = R;
    return Error::success();
  }
  if (Value *R = laneByLane(CI, B))
    Vec[&CI] = R;
  return Error::success();
}

void Vectorizer::prefetchForLaterGroups(LoadInst &L, Value *First,
                                        IRBuilder<> &B) {
  // A resumable body (a kernel with barriers) returns where it stopped; a
  // group in lockstep runs its barriers' regions one after the other too.
  const unsigned Ahead = prefetchGroupsAhead();
  if (!Ahead || (!F.getReturnType()->isIntegerTy() && !LockstepGroup) ||
      inRows())
    return;
  // The scalar body's address, as consecutiveHolds looks at it.
  const Value *Base = getUnderlyingObject(L.getPointerOperand(), 0);
  if (auto *CI = dyn_cast<CallInst>(Base))
    if (Function *Callee = CI->getCalledFunction())
      for (const char *Segment :
           {query::GroupBase, query::PrivateBase, query::RegisterFile,
            query::WaveRegisterFile, query::GroupRegisterFile})
        if (isQuery(Callee, Segment))
          return;
  if (isa<AllocaInst>(Base))
    return;
  // A load the group runs again and again, in a loop (through barriers or
  // not), reads the next group's lines once per iteration, all of them
  // long before that group runs: the tiled sgemm's tile loads prefetched
  // the next group's whole column of B (finalizer/README.md). Only loads
  // each work-item makes once per group (the reduction's input) are
  // prefetched.
  if (LI.getLoopFor(L.getParent()) || L.getMetadata(RepeatedLoad))
    return;
  // Lanes read consecutive elements along X: the same load of the group
  // Ahead further along X reads Ahead * (its size along X) elements on,
  // where the address follows the absolute X id (an input split among the
  // groups). Where it follows only the local id, the lines are those this
  // group reads, and the prefetches cost little.
  Module &M = *F.getParent();
  FunctionCallee GroupSize = M.getOrInsertFunction(
      query::WorkGroupSize,
      FunctionType::get(B.getInt32Ty(), {B.getPtrTy(), B.getInt32Ty()}, false));
  Value *SizeX = B.CreateZExt(
      B.CreateCall(GroupSize, {WorkItem, B.getInt32(0)}), B.getInt64Ty());
  const uint64_t Bytes = W * DL.getTypeStoreSize(L.getType());
  Value *Distance =
      B.CreateMul(SizeX, B.getInt64(Ahead * DL.getTypeStoreSize(L.getType())));
  Value *Ahead0 = B.CreateGEP(B.getInt8Ty(), First, Distance);
  // One prefetch per 64-byte line the wave reads (at most 16: a lockstep
  // group's 256 floats).
  for (uint64_t Line = 0; Line < std::min<uint64_t>(Bytes, 1024); Line += 64)
    B.CreateIntrinsic(Intrinsic::prefetch, {B.getPtrTy()},
                      {B.CreateConstGEP1_64(B.getInt8Ty(), Ahead0, Line),
                       B.getInt32(0), B.getInt32(3), B.getInt32(1)});
}

/// An address Base + zext(X) << Shift, X a varying 32-bit value and Base
/// uniform (HSAIL's `cvt_u64_u32; shl_u64; add_u64` indexing): Base moved
/// up by 2^31 << Shift, so that AVX-512's 32-bit indices, which it
/// sign-extends, reach every unsigned X once its sign bit is flipped.
struct Index32Address {
  Value *Base = nullptr; // Already moved up.
  Value *X = nullptr;
  unsigned Shift = 0;
};

std::optional<Index32Address> Vectorizer::index32Address(Value *P, Type *ElemTy,
                                                         IRBuilder<> &B,
                                                         bool ForGathers) {
  using namespace llvm::PatternMatch;
  if (ForGathers && (!(ElemTy->isFloatTy() || ElemTy->isIntegerTy(32)) ||
                     !hostHasFeature("avx512f")))
    return std::nullopt;
  // The address: inttoptr(Base + Offset), or a byte GEP of a uniform
  // pointer by Offset.
  Value *BaseInt = nullptr, *BasePtr = nullptr, *Offset = nullptr;
  if (auto *I2P = dyn_cast<IntToPtrInst>(P)) {
    Value *A, *C;
    if (!match(I2P->getOperand(0), m_Add(m_Value(A), m_Value(C))))
      return std::nullopt;
    if (isVarying(A))
      std::swap(A, C);
    if (isVarying(A) || !isVarying(C))
      return std::nullopt;
    BaseInt = A;
    Offset = C;
  } else if (auto *GEP = dyn_cast<GetElementPtrInst>(P)) {
    if (GEP->getNumIndices() != 1 ||
        !GEP->getSourceElementType()->isIntegerTy(8) ||
        isVarying(GEP->getPointerOperand()) ||
        !isVarying(GEP->idx_begin()->get()))
      return std::nullopt;
    BasePtr = GEP->getPointerOperand();
    Offset = GEP->idx_begin()->get();
  } else {
    return std::nullopt;
  }
  Value *X = nullptr;
  uint64_t Shift = 0;
  const APInt *K = nullptr;
  if (match(Offset, m_Shl(m_ZExt(m_Value(X)), m_APInt(K)))) {
    Shift = K->getZExtValue();
  } else if (!match(Offset, m_ZExt(m_Value(X)))) {
    return std::nullopt;
  }
  if (!X || !X->getType()->isIntegerTy(32) || !isVarying(X) || Shift > 3)
    return std::nullopt;
  Value *Base = BasePtr ? BasePtr : B.CreateIntToPtr(BaseInt, B.getPtrTy());
  if (ForGathers)
    Base = B.CreateGEP(B.getInt8Ty(), Base,
                       B.getInt64((uint64_t(1) << 31) << Shift));
  return Index32Address{Base, X, unsigned(Shift)};
}

/// A gather of 32-bit elements from Base + zext(X) * Scale
/// (index32Address), as AVX-512 gathers of 16 lanes with 32-bit indices:
/// the generic gather took 64-bit addresses, a vector of them per 8 lanes
/// and a gather instruction per 8 lanes (binary search: 8 gathers and the
/// 64-bit address arithmetic per iteration at 64 lanes, where a
/// hand-written search has 4). Null where that does not apply (other
/// hosts, element sizes, widths).
Value *Vectorizer::gatherBy32BitIndices(LoadInst &L, Type *VT, Value *Mask,
                                        IRBuilder<> &B) {
  Type *ElemTy = L.getType();
  if (W % 16 != 0)
    return nullptr;
  auto A = index32Address(L.getPointerOperand(), ElemTy, B);
  if (!A)
    return nullptr;
  Value *XV = vec(A->X);
  Value *Index = B.CreateXor(XV, ConstantInt::get(XV->getType(), 0x80000000u));
  Value *Result = PoisonValue::get(VT);
  for (unsigned First = 0; First < W; First += 16) {
    SmallVector<int, 16> Lanes;
    for (unsigned I = 0; I < 16; ++I)
      Lanes.push_back(int(First + I));
    Value *G = B.CreateIntrinsic(
        ElemTy->isFloatTy() ? Intrinsic::x86_avx512_mask_gather_dps_512
                            : Intrinsic::x86_avx512_mask_gather_dpi_512,
        {},
        {Constant::getNullValue(FixedVectorType::get(ElemTy, 16)), A->Base,
         W == 16 ? Index : B.CreateShuffleVector(Index, Lanes),
         W == 16 ? Mask : B.CreateShuffleVector(Mask, Lanes),
         B.getInt32(1u << A->Shift)});
    if (W == 16)
      return G;
    SmallVector<int, 64> Widen, Merge;
    for (unsigned I = 0; I < W; ++I)
      Widen.push_back(I < 16 ? int(I) : -1);
    for (unsigned I = 0; I < W; ++I)
      Merge.push_back(I >= First && I < First + 16 ? int(W + I - First)
                                                   : int(I));
    Result =
        B.CreateShuffleVector(Result, B.CreateShuffleVector(G, Widen), Merge);
  }
  return Result;
}

/// LLVM's masked gather, but on targets with AVX2 and without AVX-512,
/// where Cold (not in a loop of the body, or a path that runs rarely),
/// AVX2's gather instructions on the 64-bit addresses, four lanes each:
/// LLVM splits a masked gather into a load and a branch a lane where the
/// CPU's tuning says gathers are slow (x86-64-v3, haswell, znver2,
/// znver3), eight times the code to compile for code that runs once a
/// work-item or less (the nbody's per-lane float4 loads). Gathers in loops
/// stay LLVM's: the binary search's loop ran 20 % slower with gather
/// instructions on the Xeon, and 25-30 % on the EPYC.
Value *Vectorizer::maskedGather(Type *VT, Value *Ptrs, Align Alignment,
                                Value *Mask, IRBuilder<> &B, bool Cold) {
  auto *VecTy = cast<FixedVectorType>(VT);
  Type *Elem = VecTy->getElementType();
  const unsigned Bits = unsigned(Elem->getPrimitiveSizeInBits());
  const unsigned Lanes = VecTy->getNumElements();
  if (!Cold || LockstepGroup || hostHasFeature("avx512f") ||
      !hostHasFeature("avx2") || Lanes % 4 != 0 ||
      !(Elem->isFloatTy() || Elem->isDoubleTy() || Elem->isIntegerTy(32) ||
        Elem->isIntegerTy(64)))
    return B.CreateMaskedGather(VT, Ptrs, Alignment, Mask);
  const Intrinsic::ID Id =
      Elem->isFloatTy()       ? Intrinsic::x86_avx2_gather_q_ps_256
      : Elem->isDoubleTy()    ? Intrinsic::x86_avx2_gather_q_pd_256
      : Elem->isIntegerTy(32) ? Intrinsic::x86_avx2_gather_q_d_256
                              : Intrinsic::x86_avx2_gather_q_q_256;
  auto *PartTy = FixedVectorType::get(Elem, 4);
  // The mask's lanes as the elements' sign bits.
  auto *MaskIntTy = FixedVectorType::get(B.getIntNTy(Bits), 4);
  Value *Addresses =
      B.CreatePtrToInt(Ptrs, FixedVectorType::get(B.getInt64Ty(), Lanes));
  SmallVector<Value *, 16> Parts;
  for (unsigned First = 0; First < Lanes; First += 4) {
    const int Pick[4] = {int(First), int(First + 1), int(First + 2),
                         int(First + 3)};
    Value *On = B.CreateBitCast(
        B.CreateSExt(B.CreateShuffleVector(Mask, Pick), MaskIntTy), PartTy);
    Parts.push_back(B.CreateIntrinsic(
        Id, {},
        {Constant::getNullValue(PartTy), ConstantPointerNull::get(B.getPtrTy()),
         B.CreateShuffleVector(Addresses, Pick), On, B.getInt8(1)}));
  }
  return Parts.size() == 1 ? Parts[0] : concatenateVectors(B, Parts);
}

std::function<Value *(IRBuilder<> &)>
Vectorizer::laneLoopRows(Value *Ptr, Type *ElemTy, Value *Mask, Value *Val,
                         IRBuilder<> &B) {
  if (!inRows())
    return nullptr;
  auto A = index32Address(Ptr, ElemTy, B, /*ForGathers=*/false);
  // Within a row, X steps by a constant modulo 2^32, which is all the
  // indices need: lane L's is its row's first plus the steps.
  auto S = A ? strideOf(A->X) : std::nullopt;
  if (!S || !S->Checks.empty())
    return nullptr;
  Value *On = B.CreateZExt(Mask, vectorOf(B.getInt8Ty(), W));
  const int64_t Step = S->Step;
  const unsigned Shift = A->Shift, Rows = RowWidth;
  Value *Base = A->Base;
  // The lanes' values and bits in memory, for the lanes one at a time.
  auto ToMemory = [=, this](IRBuilder<> &At) {
    IRBuilder<> Entry(&*F.getEntryBlock().getFirstInsertionPt());
    AllocaInst *Lanes = Entry.CreateAlloca(vectorOf(ElemTy, W));
    AllocaInst *Bits = Entry.CreateAlloca(vectorOf(At.getInt8Ty(), W));
    At.CreateStore(On, Bits);
    if (Val)
      At.CreateStore(Val, Lanes);
    return std::make_pair(Lanes, Bits);
  };
  // Where X is linear in the row, row R's first index is row 0's plus R
  // times the delta (modulo 2^32): the lanes' accesses are a call of the
  // finalizer's helper (LaneRowsAccess.h), little code for a path that runs
  // only where an index wraps.
  if (Value *Delta = rowDelta(A->X, B)) {
    Value *First = scalarAt(A->X, 0, B);
    const uint64_t Size = DL.getTypeStoreSize(ElemTy).getFixedValue();
    return [=, this](IRBuilder<> &At) -> Value * {
      auto [Lanes, Bits] = ToMemory(At);
      Type *I32 = At.getInt32Ty(), *Ptr = At.getPtrTy();
      FunctionCallee Helper = F.getParent()->getOrInsertFunction(
          LaneRowsAccessSymbol,
          FunctionType::get(
              At.getVoidTy(),
              {Ptr, I32, I32, I32, I32, I32, I32, Ptr, Ptr, I32, I32}, false));
      if (auto *HelperFn = dyn_cast<Function>(Helper.getCallee())) {
        HelperFn->setDoesNotThrow();
        HelperFn->addFnAttr(Attribute::Cold);
      }
      At.CreateCall(Helper,
                    {Base, First, Delta, At.getInt32(uint32_t(Step)),
                     At.getInt32(Shift), At.getInt32(Rows), At.getInt32(W),
                     Bits, Lanes, At.getInt32(uint32_t(Size)),
                     At.getInt32(Val ? 1 : 0)});
      return Val ? nullptr : At.CreateLoad(vectorOf(ElemTy, W), Lanes);
    };
  }
  Value *Firsts = PoisonValue::get(vectorOf(B.getInt32Ty(), rows()));
  for (unsigned Row = 0; Row < rows(); ++Row)
    Firsts = B.CreateInsertElement(Firsts, scalarAt(A->X, Row * RowWidth, B),
                                   uint64_t(Row));
  return [=, this](IRBuilder<> &At) -> Value * {
    auto [Lanes, Bits] = ToMemory(At);
    Instruction *After = &*At.GetInsertPoint();
    auto [Body, I] =
        SplitBlockAndInsertSimpleForLoop(At.getInt32(W), &*At.GetInsertPoint());
    IRBuilder<> L(Body);
    Value *LaneOn = L.CreateICmpNE(
        L.CreateLoad(L.getInt8Ty(), L.CreateGEP(L.getInt8Ty(), Bits, I)),
        L.getInt8(0));
    Instruction *Then = SplitBlockAndInsertIfThen(LaneOn, Body, false);
    IRBuilder<> T(Then);
    Value *X = T.CreateAdd(
        T.CreateExtractElement(Firsts, T.CreateUDiv(I, T.getInt32(Rows))),
        T.CreateMul(T.CreateURem(I, T.getInt32(Rows)),
                    T.getInt32(uint32_t(Step))));
    Value *P = T.CreateGEP(
        T.getInt8Ty(), Base,
        T.CreateShl(T.CreateZExt(X, T.getInt64Ty()), uint64_t(Shift)));
    Value *Slot = T.CreateGEP(ElemTy, Lanes, I);
    if (Val)
      T.CreateStore(T.CreateLoad(ElemTy, Slot), P);
    else
      T.CreateStore(T.CreateLoad(ElemTy, P), Slot);
    if (Val)
      return nullptr;
    At.SetInsertPoint(After);
    return At.CreateLoad(vectorOf(ElemTy, W), Lanes);
  };
}

/// Whether lanes a stride S apart access consecutive elements of Ty (once
/// S's wrap checks hold).
static bool consecutive(std::optional<LaneStride> S, Type *Ty,
                        const DataLayout &DL) {
  if (!S || S->Step <= 0)
    return false;
  return DL.getTypeStoreSize(Ty) == DL.getTypeAllocSize(Ty) &&
         static_cast<uint64_t>(S->Step) == DL.getTypeStoreSize(Ty);
}

Value *Vectorizer::rowMask(Value *Mask, unsigned Row, IRBuilder<> &B) {
  if (!inRows())
    return Mask;
  SmallVector<int, 64> Lanes;
  for (unsigned L = 0; L < RowWidth; ++L)
    Lanes.push_back(int(Row * RowWidth + L));
  return B.CreateShuffleVector(Mask, Lanes);
}

/// Keeps the instructions B made since Before (in B's block) in Parts.
static void keepMade(IRBuilder<> &B, BasicBlock::iterator Before,
                     SmallVectorImpl<Instruction *> &Parts) {
  BasicBlock *BB = B.GetInsertBlock();
  auto It = Before == BB->end() ? BB->begin() : std::next(Before);
  for (; It != B.GetInsertPoint(); ++It)
    Parts.push_back(&*It);
}

SmallVector<Value *, 16> Vectorizer::rowAddresses(Value *Ptr, Type *ElemTy,
                                                  bool Linear, IRBuilder<> &B) {
  SmallVector<Value *, 16> Firsts;
  auto A = Linear ? index32Address(Ptr, ElemTy, B, /*ForGathers=*/false)
                  : std::nullopt;
  Value *Delta = A ? rowDelta(A->X, B) : nullptr;
  if (!Delta) {
    for (unsigned Row = 0; Row < rows(); ++Row)
      Firsts.push_back(scalarAt(Ptr, Row * RowWidth, B));
    return Firsts;
  }
  // Base + (zext(X0) + Row * sext(Delta)) << Shift: exact where the rows'
  // indices are (Linear), as each row's own zext(X) << Shift.
  Value *Step = B.CreateShl(B.CreateSExt(Delta, B.getInt64Ty()), A->Shift);
  Value *P = B.CreateGEP(
      B.getInt8Ty(), A->Base,
      B.CreateShl(B.CreateZExt(scalarAt(A->X, 0, B), B.getInt64Ty()),
                  A->Shift));
  for (unsigned Row = 0; Row < rows(); ++Row) {
    if (Row)
      P = B.CreateGEP(B.getInt8Ty(), P, Step);
    Firsts.push_back(P);
  }
  return Firsts;
}

Value *Vectorizer::loadRows(Type *VT, Value *Ptr, Align A, Value *Mask,
                            IRBuilder<> &B,
                            SmallVectorImpl<Instruction *> &Parts,
                            bool Linear) {
  Type *Elem = cast<VectorType>(VT)->getElementType();
  // A mask known all on (a lockstep group's whole blocks): plain accesses,
  // less for the optimizer to fold.
  auto Load = [&](Type *T, Value *P, Value *M) {
    auto *C = dyn_cast<Constant>(M);
    return C && C->isAllOnesValue()
               ? static_cast<Instruction *>(B.CreateAlignedLoad(T, P, A))
               : static_cast<Instruction *>(B.CreateMaskedLoad(T, P, A, M));
  };
  if (!inRows()) {
    Instruction *L = Load(VT, scalarAt(Ptr, 0, B), Mask);
    Parts.push_back(L);
    return L;
  }
  // The rows' addresses and masks come first: only the loads and their
  // concatenation are the access (a checked one runs them under its
  // condition).
  SmallVector<Value *, 16> Firsts = rowAddresses(Ptr, Elem, Linear, B);
  SmallVector<Value *, 16> Masks, Rows;
  for (unsigned Row = 0; Row < rows(); ++Row)
    Masks.push_back(rowMask(Mask, Row, B));
  BasicBlock::iterator Before =
      B.GetInsertPoint() == B.GetInsertBlock()->begin()
          ? B.GetInsertBlock()->end()
          : std::prev(B.GetInsertPoint());
  for (unsigned Row = 0; Row < rows(); ++Row)
    Rows.push_back(Load(vectorOf(Elem, RowWidth), Firsts[Row], Masks[Row]));
  Value *R = concatenateVectors(B, Rows);
  keepMade(B, Before, Parts);
  return R;
}

void Vectorizer::storeRows(Value *Val, Value *Ptr, Align A, Value *Mask,
                           IRBuilder<> &B,
                           SmallVectorImpl<Instruction *> &Parts, bool Linear) {
  auto Store = [&](Value *V, Value *P, Value *M) {
    auto *C = dyn_cast<Constant>(M);
    return C && C->isAllOnesValue()
               ? static_cast<Instruction *>(B.CreateAlignedStore(V, P, A))
               : static_cast<Instruction *>(B.CreateMaskedStore(V, P, A, M));
  };
  if (!inRows()) {
    Parts.push_back(Store(Val, scalarAt(Ptr, 0, B), Mask));
    return;
  }
  SmallVector<Value *, 16> Firsts = rowAddresses(
      Ptr, cast<VectorType>(Val->getType())->getElementType(), Linear, B);
  SmallVector<Value *, 16> Masks, Vals;
  for (unsigned Row = 0; Row < rows(); ++Row) {
    Masks.push_back(rowMask(Mask, Row, B));
    SmallVector<int, 64> Lanes;
    for (unsigned L = 0; L < RowWidth; ++L)
      Lanes.push_back(int(Row * RowWidth + L));
    Vals.push_back(B.CreateShuffleVector(Val, Lanes));
  }
  for (unsigned Row = 0; Row < rows(); ++Row)
    Parts.push_back(Store(Vals[Row], Firsts[Row], Masks[Row]));
}

Value *Vectorizer::loadRowSplats(LoadInst &L, Value *Mask, IRBuilder<> &B) {
  Type *One = vectorOf(L.getType(), 1);
  SmallVector<Value *, 16> Rows;
  auto *AllOn = dyn_cast<Constant>(Mask);
  SmallVector<Value *, 16> Firsts = rowAddresses(
      L.getPointerOperand(), L.getType(),
      inBoundsGroupAccess(L.getPointerOperand(), L.getParent()), B);
  for (unsigned Row = 0; Row < rows(); ++Row) {
    // Read only where a lane of the row is on, as the scalar body would.
    Value *P = Firsts[Row];
    Value *V;
    if (AllOn && AllOn->isAllOnesValue()) {
      V = B.CreateAlignedLoad(L.getType(), P, L.getAlign());
      V = B.CreateInsertElement(PoisonValue::get(One), V, uint64_t(0));
    } else {
      Value *Any = B.CreateOrReduce(rowMask(Mask, Row, B));
      V = B.CreateMaskedLoad(One, P, L.getAlign(), B.CreateVectorSplat(1, Any));
    }
    Rows.push_back(B.CreateShuffleVector(V, SmallVector<int, 64>(RowWidth, 0)));
  }
  return concatenateVectors(B, Rows);
}

Error Vectorizer::widenLoad(LoadInst &L, IRBuilder<> &B) {
  if (!L.isSimple()) {
    ++Stats.LaneByLane;
    Vec[&L] = laneByLane(L, B);
    return Error::success();
  }
  Type *VT = vectorOf(L.getType(), W);
  Value *Mask = accessMask(L.getParent());
  Value *Ptrs = vec(L.getPointerOperand());
  auto S = strideOf(L.getPointerOperand());
  if (inRows() && S && S->Step == 0 && S->Checks.empty()) {
    ++Stats.Uniform;
    Vec[&L] = loadRowSplats(L, Mask, B);
    return Error::success();
  }
  if (!consecutive(S, L.getType(), DL)) {
    ++Stats.GatherScatter;
    for (Loop *In = LI.getLoopFor(L.getParent()); In; In = In->getParentLoop())
      if (BasicBlock *Latch = In->getLoopLatch(); Latch && isDivergent(Latch)) {
        ++Stats.LoopGathers;
        break;
      }
    if (Value *G = gatherBy32BitIndices(L, VT, Mask, B))
      Vec[&L] = G;
    else
      Vec[&L] = maskedGather(VT, Ptrs, L.getAlign(), Mask, B,
                             !LI.getLoopFor(L.getParent()));
    return Error::success();
  }
  Value *Ptr = L.getPointerOperand();
  SmallVector<Instruction *, 1> Parts;
  if (isRegisterFile(Ptr)) {
    // Every lane's slot exists: no mask needed.
    ++Stats.RegisterFile;
    Vec[&L] = B.CreateAlignedLoad(VT, scalarAt(Ptr, 0, B), L.getAlign());
    return Error::success();
  }
  if (isPrivateArea(Ptr)) {
    // Every lane's copy is in the wave's area, lane by lane: no mask
    // needed, and a load that LLVM can forward stores to.
    ++Stats.Consecutive;
    Vec[&L] = B.CreateAlignedLoad(VT, scalarAt(Ptr, 0, B), L.getAlign());
    return Error::success();
  }
  if (!inRows())
    prefetchForLaterGroups(L, scalarAt(Ptr, 0, B), B);
  bool Linear = false;
  Value *Cond = consecutiveHolds(Ptr, *S, Mask, L.getParent(), B, &Linear);
  if (!Cond) {
    ++Stats.Consecutive;
    Vec[&L] = loadRows(VT, Ptr, L.getAlign(), Mask, B, Parts);
    return Error::success();
  }
  if (auto *C = dyn_cast<ConstantInt>(Cond)) { // Known either way.
    ++(C->isOne() ? Stats.Consecutive : Stats.GatherScatter);
    Vec[&L] = C->isOne()
                  ? loadRows(VT, Ptr, L.getAlign(), Mask, B, Parts, Linear)
                  : maskedGather(VT, Ptrs, L.getAlign(), Mask, B,
                                 !LI.getLoopFor(L.getParent()));
    return Error::success();
  }
  ++Stats.Consecutive;
  ++Stats.Checked;
  loadRows(VT, Ptr, L.getAlign(), Mask, B, Parts, Linear);
  // Where lanes wrapped, a gather: by 32-bit indices where that applies
  // (a 2-D group's vector of 64-bit addresses is most of its finalization).
  SmallVector<Instruction *, 1> SlowParts;
  BasicBlock::iterator Before = std::prev(B.GetInsertPoint());
  auto SlowLoop = laneLoopRows(Ptr, L.getType(), Mask, nullptr, B);
  if (!SlowLoop) // Where lanes wrapped: rare, wherever it is.
    maskedGather(VT, Ptrs, L.getAlign(), Mask, B, /*Cold=*/true);
  keepMade(B, Before, SlowParts);
  CheckedAccesses.push_back({Cond, Parts, SlowParts, SlowLoop});
  Vec[&L] = Parts.back(); // The merge replaces its uses (guardLaneOps).
  return Error::success();
}

Error Vectorizer::widenStore(StoreInst &St, IRBuilder<> &B) {
  if (!St.isSimple()) {
    ++Stats.LaneByLane;
    laneByLane(St, B);
    return Error::success();
  }
  Value *Val = vec(St.getValueOperand());
  Value *Mask = accessMask(St.getParent());
  Value *Ptrs = vec(St.getPointerOperand());
  auto S = strideOf(St.getPointerOperand());
  // Scatters store in lane order, so the last active lane's value is the
  // one left where lanes share an address.
  if (!consecutive(S, St.getValueOperand()->getType(), DL)) {
    ++Stats.GatherScatter;
    B.CreateMaskedScatter(Val, Ptrs, St.getAlign(), Mask);
    return Error::success();
  }
  Value *Ptr = St.getPointerOperand();
  SmallVector<Instruction *, 1> Parts;
  if (isRegisterFile(Ptr) || isPrivateArea(Ptr)) {
    ++(isRegisterFile(Ptr) ? Stats.RegisterFile : Stats.Consecutive);
    Value *First = scalarAt(Ptr, 0, B);
    if (WholeWave.count(St.getParent()))
      // Lanes that are off have no work-item, or are past the row's end:
      // their slots (their copies of the private data) are theirs alone
      // and hold nothing live.
      B.CreateAlignedStore(Val, First, St.getAlign());
    else
      B.CreateMaskedStore(Val, First, St.getAlign(), Mask);
    return Error::success();
  }
  bool Linear = false;
  Value *Cond = consecutiveHolds(Ptr, *S, Mask, St.getParent(), B, &Linear);
  if (!Cond) {
    ++Stats.Consecutive;
    storeRows(Val, Ptr, St.getAlign(), Mask, B, Parts);
    return Error::success();
  }
  if (auto *C = dyn_cast<ConstantInt>(Cond)) { // Known either way.
    ++(C->isOne() ? Stats.Consecutive : Stats.GatherScatter);
    if (C->isOne())
      storeRows(Val, Ptr, St.getAlign(), Mask, B, Parts, Linear);
    else
      B.CreateMaskedScatter(Val, Ptrs, St.getAlign(), Mask);
    return Error::success();
  }
  ++Stats.Consecutive;
  ++Stats.Checked;
  storeRows(Val, Ptr, St.getAlign(), Mask, B, Parts, Linear);
  SmallVector<Instruction *, 1> SlowParts;
  BasicBlock::iterator Before = std::prev(B.GetInsertPoint());
  auto SlowLoop =
      laneLoopRows(Ptr, St.getValueOperand()->getType(), Mask, Val, B);
  if (!SlowLoop)
    B.CreateMaskedScatter(Val, Ptrs, St.getAlign(), Mask);
  keepMade(B, Before, SlowParts);
  CheckedAccesses.push_back({Cond, Parts, SlowParts, SlowLoop});
  return Error::success();
}

Error Vectorizer::widenPhi(PHINode &P, IRBuilder<> &B) {
  BasicBlock *BB = P.getParent();
  // An exit of a loop whose exit varies: each lane's value from the
  // iteration it left in, kept in an accumulator across iterations.
  if (BasicBlock *Pred = BB->getSinglePredecessor()) {
    Loop *L = LI.getLoopFor(Pred);
    if (L && !L->contains(BB) && isLatchBranch(Pred) && isDivergent(Pred)) {
      BasicBlock *Header = L->getHeader();
      auto *Acc = PHINode::Create(vectorOf(P.getType(), W), 2, "lane.exit",
                                  Header->getFirstNonPHIIt());
      IRBuilder<> AtLatch(Pred->getTerminator());
      // Lanes leaving now: those at the latch that do not go round.
      Value *Staying = edgeMask(Pred, Header);
      Value *Now = AtLatch.CreateAnd(maskOf(Pred), AtLatch.CreateNot(Staying));
      Value *Next = AtLatch.CreateSelect(Now, vec(P.getIncomingValue(0)), Acc);
      Acc->addIncoming(PoisonValue::get(Acc->getType()),
                       L->getLoopPredecessor());
      Acc->addIncoming(Next, Pred);
      Vec[&P] = Next;
      return Error::success();
    }
  }
  auto *VP = PHINode::Create(vectorOf(P.getType(), W), P.getNumIncomingValues(),
                             P.getName(), BB->getFirstNonPHIIt());
  PendingPhis.push_back({&P, VP});
  Vec[&P] = VP;
  // The join of a varying branch: lanes that took the region have its
  // value, the others the branch block's.
  for (BasicBlock *Pred : predecessors(BB)) {
    if (divergentJoin(Pred) != BB)
      continue;
    auto *Br = cast<BranchInst>(Pred->getTerminator());
    BasicBlock *Region =
        Br->getSuccessor(0) == BB ? Br->getSuccessor(1) : Br->getSuccessor(0);
    // Lanes that went round a region whose value is undefined on their way
    // (a structurized branch's flow) may keep whatever the region computed:
    // no select. InstCombine would fold "select m, x, undef" only after
    // proving x no more poisonous than m, a walk of the block per select
    // that cost mandelbrot a tenth of its finalization.
    Value *FromPred = P.getIncomingValueForBlock(Pred);
    if (isa<UndefValue>(FromPred))
      break;
    Value *Took = edgeMask(Pred, Region);
    IRBuilder<> AtJoin(&*BB->getFirstInsertionPt());
    Vec[&P] = AtJoin.CreateSelect(Took, VP, vec(FromPred));
    break;
  }
  return Error::success();
}

Error Vectorizer::widen(Instruction &I) {
  IRBuilder<> B(&I);
  Replaced.push_back(&I);
  // Floating-point arithmetic in a loop: a chain of it from one iteration
  // to the next, most likely (an accumulator, an iterate). HSAIL's
  // registers are bits, so the loop's own phis need not be floats.
  if (LI.getLoopFor(I.getParent()) &&
      (isa<BinaryOperator>(I) || isa<IntrinsicInst>(I)) &&
      I.getType()->isFloatingPointTy())
    ++Stats.LoopChains;
  if (auto *P = dyn_cast<PHINode>(&I))
    return widenPhi(*P, B);
  if (auto *CI = dyn_cast<CallInst>(&I))
    return widenCall(*CI, B);
  if (auto *A = dyn_cast<AllocaInst>(&I)) {
    // The lanes' copies side by side: lane L's at L * size.
    auto St = strideOf(A);
    uint64_t Size = St && St->Step > 0 ? uint64_t(St->Step) : 1;
    auto *Lanes =
        B.CreateAlloca(ArrayType::get(B.getInt8Ty(), Size * W),
                       A->getAddressSpace(), nullptr, A->getName() + ".lanes");
    Lanes->setAlignment(A->getAlign());
    Value *Offsets = B.CreateMul(
        B.CreateZExt(laneIds(), vectorOf(B.getInt64Ty(), W)),
        ConstantVector::getSplat(ElementCount::getFixed(W), B.getInt64(Size)));
    Vec[&I] = B.CreateGEP(B.getInt8Ty(), Lanes, Offsets);
    return Error::success();
  }
  if (auto *L = dyn_cast<LoadInst>(&I))
    return widenLoad(*L, B);
  if (auto *S = dyn_cast<StoreInst>(&I))
    return widenStore(*S, B);
  if (isa<AtomicRMWInst>(I)) {
    Vec[&I] = laneByLane(I, B);
    return Error::success();
  }
  if (isa<AtomicCmpXchgInst>(I))
    return widenCmpXchg(I, B);
  if (auto *EV = dyn_cast<ExtractValueInst>(&I);
      EV && isa<AtomicCmpXchgInst>(EV->getAggregateOperand()))
    return Error::success(); // Widened with the cmpxchg.
  if (auto *BO = dyn_cast<BinaryOperator>(&I)) {
    Value *A = vec(BO->getOperand(0)), *C = vec(BO->getOperand(1));
    switch (BO->getOpcode()) {
    case Instruction::UDiv:
    case Instruction::SDiv:
    case Instruction::URem:
    case Instruction::SRem:
      // Lanes that are off must not trap (x86 divides lane by lane).
      C = B.CreateSelect(maskOf(I.getParent()), C,
                         ConstantInt::get(C->getType(), 1));
      break;
    default:
      break;
    }
    Value *R = B.CreateBinOp(BO->getOpcode(), A, C, BO->getName());
    if (auto *RI = dyn_cast<Instruction>(R))
      RI->copyIRFlags(BO);
    Vec[&I] = R;
    return Error::success();
  }
  if (auto *U = dyn_cast<UnaryOperator>(&I)) {
    Value *R = B.CreateUnOp(U->getOpcode(), vec(U->getOperand(0)));
    if (auto *RI = dyn_cast<Instruction>(R))
      RI->copyIRFlags(U);
    Vec[&I] = R;
    return Error::success();
  }
  if (auto *Cmp = dyn_cast<CmpInst>(&I)) {
    Value *R = B.CreateCmp(Cmp->getPredicate(), vec(Cmp->getOperand(0)),
                           vec(Cmp->getOperand(1)));
    if (auto *RI = dyn_cast<Instruction>(R))
      RI->copyIRFlags(Cmp);
    Vec[&I] = R;
    return Error::success();
  }
  if (auto *Cast = dyn_cast<CastInst>(&I)) {
    Vec[&I] = B.CreateCast(Cast->getOpcode(), vec(Cast->getOperand(0)),
                           vectorOf(Cast->getType(), W));
    return Error::success();
  }
  if (auto *Sel = dyn_cast<SelectInst>(&I)) {
    Value *Cond = Sel->getCondition();
    Cond = isVarying(Cond) ? vec(Cond) : Cond;
    Value *R = B.CreateSelect(Cond, vec(Sel->getTrueValue()),
                              vec(Sel->getFalseValue()));
    if (auto *RI = dyn_cast<Instruction>(R))
      RI->copyIRFlags(Sel);
    Vec[&I] = R;
    return Error::success();
  }
  if (auto *G = dyn_cast<GetElementPtrInst>(&I)) {
    Value *Base = G->getPointerOperand();
    Base = isVarying(Base) ? vec(Base) : Base;
    SmallVector<Value *, 4> Idx;
    for (Value *X : G->indices())
      Idx.push_back(isVarying(X) ? vec(X) : X);
    Value *R = B.CreateGEP(G->getSourceElementType(), Base, Idx, G->getName(),
                           G->isInBounds());
    if (!R->getType()->isVectorTy())
      R = B.CreateVectorSplat(W, R);
    Vec[&I] = R;
    return Error::success();
  }
  if (auto *Fr = dyn_cast<FreezeInst>(&I)) {
    Vec[&I] = B.CreateFreeze(vec(Fr->getOperand(0)));
    return Error::success();
  }
  return unsupported(Twine("no vector form for '") + I.getOpcodeName() + "'");
}

/// Puts each lane's copy of an instruction under its lane's bit, and each
/// checked access under its condition.
void Vectorizer::guardLaneOps() {
  for (const CheckedAccess &A : CheckedAccesses) {
    Instruction *ThenT = nullptr, *ElseT = nullptr;
    SplitBlockAndInsertIfThenElse(A.Cond, A.FastParts.front()->getIterator(),
                                  &ThenT, &ElseT);
    for (Instruction *Part : A.FastParts)
      Part->moveBefore(ThenT);
    for (Instruction *Part : A.SlowParts)
      Part->moveBefore(ElseT);
    Instruction *Fast = A.fast();
    Value *Slow = A.SlowParts.empty() ? nullptr : A.SlowParts.back();
    if (A.SlowLoop) {
      IRBuilder<> AtElse(ElseT);
      Slow = A.SlowLoop(AtElse);
    }
    if (!Fast->getType()->isVoidTy()) {
      BasicBlock *Tail = ThenT->getSuccessor(0);
      auto *Phi = PHINode::Create(Fast->getType(), 2, "access", Tail->begin());
      Fast->replaceAllUsesWith(Phi);
      Phi->addIncoming(Fast, Fast->getParent());
      Phi->addIncoming(Slow, ElseT->getParent());
    }
  }
  for (const LaneOp &Op : LaneOps) {
    Instruction *Then =
        SplitBlockAndInsertIfThen(Op.LaneActive, Op.Inst->getIterator(), false);
    BasicBlock *Head = Then->getParent()->getSinglePredecessor();
    Op.Inst->moveBefore(Then);
    if (!Op.Inst->getType()->isVoidTy() && !Op.Inst->use_empty()) {
      BasicBlock *Tail = Then->getSuccessor(0);
      auto *Phi = PHINode::Create(Op.Inst->getType(), 2, "lane", Tail->begin());
      Op.Inst->replaceAllUsesWith(Phi);
      Phi->addIncoming(Op.Inst, Op.Inst->getParent());
      Phi->addIncoming(PoisonValue::get(Op.Inst->getType()), Head);
    }
  }
}

/// The register files are the body's alone: their loads and stores get
/// alias scopes every other memory access is outside of, so that LLVM keeps
/// registers in registers across loops that also access memory. The wave's
/// file and the group's are disjoint too (scopes of their own): the group's
/// shared registers, which every wave reads, stay in registers across the
/// waves that store their own registers. So are the wave's interleaved
/// private data, which no address but the body's private ones reaches
/// (PrivateInterleaving.h): a private array stays in registers across the
/// kernel's other accesses.
void Vectorizer::scopeRegisterFile() {
  auto PointerOf = [](const Instruction &I) {
    const Value *Ptr = getLoadStorePointerOperand(&I);
    if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
      if (II->getIntrinsicID() == Intrinsic::masked_load)
        Ptr = II->getArgOperand(0);
      else if (II->getIntrinsicID() == Intrinsic::masked_store)
        Ptr = II->getArgOperand(1);
    }
    return Ptr;
  };
  // Where a gather's or scatter's addresses come from: the private data
  // (through GEPs, splats, selects and phis), other memory (their every
  // source something else), or either.
  enum class Source { Private, Other, Unknown };
  auto SourceOf = [&](const Value *Ptrs) {
    SmallPtrSet<const Value *, 16> Seen;
    SmallVector<const Value *, 16> Work{Ptrs};
    bool FromPrivate = false, FromOther = false;
    while (!Work.empty()) {
      const Value *V = Work.pop_back_val();
      if (!Seen.insert(V).second)
        continue;
      if (!V->getType()->isPtrOrPtrVectorTy()) {
        FromOther = true; // An integer made an address (inttoptr), a lane.
      } else if (isPrivateArea(V)) {
        FromPrivate = true;
      } else if (auto *G = dyn_cast<GetElementPtrInst>(V)) {
        Work.push_back(G->getPointerOperand());
      } else if (auto *S = dyn_cast<ShuffleVectorInst>(V)) {
        Work.append({S->getOperand(0), S->getOperand(1)});
      } else if (auto *IE = dyn_cast<InsertElementInst>(V)) {
        Work.append({IE->getOperand(0), IE->getOperand(1)});
      } else if (auto *Sel = dyn_cast<SelectInst>(V)) {
        Work.append({Sel->getTrueValue(), Sel->getFalseValue()});
      } else if (auto *Phi = dyn_cast<PHINode>(V)) {
        append_range(Work, Phi->incoming_values());
      } else if (isa<IntToPtrInst>(V) || isa<UndefValue>(V) ||
                 isa<ConstantPointerNull>(V) || isa<Argument>(V) ||
                 isa<LoadInst>(V)) {
        // Not the private data, whose address is the body's own and
        // never stored, nor made of an integer.
        FromOther = true;
      } else {
        return Source::Unknown;
      }
    }
    return FromPrivate && FromOther ? Source::Unknown
           : FromPrivate            ? Source::Private
                                    : Source::Other;
  };
  // The addresses of a gather or scatter: LLVM's (vectors of pointers),
  // or the base of AVX-512's by 32-bit indices (gatherBy32BitIndices).
  auto GatheredFrom = [](const Instruction &I) -> const Value * {
    if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
      switch (II->getIntrinsicID()) {
      case Intrinsic::masked_gather:
        return II->getArgOperand(0);
      case Intrinsic::masked_scatter:
        return II->getArgOperand(1);
      case Intrinsic::x86_avx512_mask_gather_dps_512:
      case Intrinsic::x86_avx512_mask_gather_dpi_512:
        return II->getArgOperand(1);
      default:
        break;
      }
    }
    return nullptr;
  };
  bool Private = false;
  for (Instruction &I : instructions(F))
    if (const Value *Ptr = PointerOf(I); Ptr && isPrivateArea(Ptr)) {
      Private = true;
      break;
    } else if (const Value *Ptrs = GatheredFrom(I);
               Ptrs && SourceOf(Ptrs) == Source::Private) {
      Private = true;
      break;
    }
  if (!File.Wave && !Private)
    return;
  MDBuilder MDB(Ctx);
  MDNode *Domain = MDB.createAnonymousAliasScopeDomain("openhsa.registers");
  MDNode *WaveScope = MDB.createAnonymousAliasScope(Domain, "wave file");
  MDNode *GroupScope = MDB.createAnonymousAliasScope(Domain, "group file");
  MDNode *PrivateScope =
      MDB.createAnonymousAliasScope(Domain, "wave private data");
  MDNode *Wave = MDNode::get(Ctx, {WaveScope});
  MDNode *Group = MDNode::get(Ctx, {GroupScope});
  MDNode *PrivateData = MDNode::get(Ctx, {PrivateScope});
  MDNode *Files = MDNode::get(Ctx, {WaveScope, GroupScope});
  MDNode *All = MDNode::get(Ctx, {WaveScope, GroupScope, PrivateScope});
  for (Instruction &I : instructions(F)) {
    if (!I.mayReadOrWriteMemory())
      continue;
    const Value *Ptr = PointerOf(I);
    if (Ptr && isPrivateArea(Ptr)) {
      I.setMetadata(LLVMContext::MD_alias_scope, PrivateData);
      I.setMetadata(LLVMContext::MD_noalias, Files);
      continue;
    }
    if (!Ptr) {
      // Gathers and scatters (the private data's too, at offsets that
      // vary), calls: outside the files, and outside the private data
      // where their addresses come from elsewhere.
      const Value *Ptrs = GatheredFrom(I);
      const Source From = Ptrs ? SourceOf(Ptrs) : Source::Unknown;
      if (From == Source::Private) {
        I.setMetadata(LLVMContext::MD_alias_scope, PrivateData);
        I.setMetadata(LLVMContext::MD_noalias, Files);
      } else {
        I.setMetadata(LLVMContext::MD_noalias,
                      From == Source::Other || !Private ? All : Files);
      }
      continue;
    }
    if (!isRegisterFile(Ptr)) {
      I.setMetadata(LLVMContext::MD_noalias, All);
      continue;
    }
    const bool InGroupFile = getUnderlyingObject(Ptr) == File.Group;
    I.setMetadata(LLVMContext::MD_alias_scope, InGroupFile ? Group : Wave);
    I.setMetadata(
        LLVMContext::MD_noalias,
        MDNode::get(Ctx, {InGroupFile ? WaveScope : GroupScope, PrivateScope}));
  }
}

Error Vectorizer::finish() {
  for (auto &[P, VP] : PendingPhis)
    for (unsigned K = 0; K < P->getNumIncomingValues(); ++K)
      VP->addIncoming(vec(P->getIncomingValue(K)), P->getIncomingBlock(K));
  buildMasks();
  rewriteBranches();
  // A resumable body returns where its work-items stopped: the same for
  // all but those that finished early (-1).
  for (BasicBlock *BB : RPO)
    if (auto *Ret = dyn_cast<ReturnInst>(BB->getTerminator());
        Ret && Ret->getReturnValue() && isVarying(Ret->getReturnValue())) {
      IRBuilder<> B(Ret);
      Value *V = vec(Ret->getReturnValue());
      Value *Finished = ConstantInt::getSigned(V->getType(), -1);
      Ret->setOperand(
          0, B.CreateIntrinsic(Intrinsic::vector_reduce_smax, {V->getType()},
                               {B.CreateSelect(Masks[BB], V, Finished)}));
    }
  emitRowSkips();
  // The scalar forms of varying values go; nothing else may use them.
  DenseSet<Instruction *> Dead;
  for (Instruction *I : Replaced)
    if (!KeepScalar.count(I))
      Dead.insert(I);
  for (Instruction *I : Dead)
    for (User *U : I->users())
      if (auto *UI = dyn_cast<Instruction>(U); !UI || !Dead.count(UI))
        return unsupported(Twine("internal: '") + I->getOpcodeName() +
                           "' left in use after widening");
  for (Instruction *I : Dead)
    I->dropAllReferences();
  for (Instruction *I : Dead)
    I->eraseFromParent();
  // Uniform register slots: lane 0's place; slots the group shares: the
  // group's copies (the one read, the one written).
  bool GroupFileUsed = false;
  for (Instruction &I : make_early_inc_range(instructions(F))) {
    auto *CI = dyn_cast<CallInst>(&I);
    if (!CI)
      continue;
    if (isQuery(CI->getCalledFunction(), LaneMarker)) {
      CI->replaceAllUsesWith(ConstantInt::get(CI->getType(), 0));
      CI->eraseFromParent();
    } else if (isQuery(CI->getCalledFunction(), SlotBaseMarker)) {
      const unsigned Slot = slotOf(*CI);
      const bool Store = cast<ConstantInt>(CI->getArgOperand(1))->isOne();
      IRBuilder<> B(CI);
      Value *Base;
      if (GroupSharedSlots.count(Slot)) {
        GroupFileUsed = true;
        Base = B.CreateConstGEP1_64(B.getInt8Ty(), File.Group,
                                    File.SlotOffsets[Slot] +
                                        (Store ? File.Bytes : 0));
      } else {
        Base = B.CreateConstGEP1_64(B.getInt8Ty(), File.Wave,
                                    File.SlotOffsets[Slot] * W);
      }
      CI->replaceAllUsesWith(Base);
      CI->eraseFromParent();
    }
  }
  if (File.Group && !GroupFileUsed) {
    cast<Instruction>(File.Group)->eraseFromParent();
    File.Group = nullptr;
  } else if (File.Group) {
    // Slot numbers follow the slots' offsets.
    SmallVector<unsigned, 8> Shared(GroupSharedSlots.begin(),
                                    GroupSharedSlots.end());
    llvm::sort(Shared);
    std::string Value = utostr(File.Bytes);
    char Separator = ';';
    for (unsigned Slot : Shared) {
      Value += Separator;
      Value +=
          utostr(File.SlotOffsets[Slot]) + ":" + utostr(File.SlotBytes[Slot]);
      Separator = ',';
    }
    F.addFnAttr(GroupRegistersAttr, Value);
  }
  guardLaneOps();
  scopeRegisterFile();
  return Error::success();
}

} // namespace openhsa::finalizer::vectorizer
