//===- finalizer/WorkItemVectorizer.cpp - W work-items at a time ----------===//
#include "finalizer/WorkItemVectorizer.h"

#include "abi/CpuWavefront.h"

#include "finalizer/Codegen.h"
#include "finalizer/Lowering.h"
#include "finalizer/RegisterFileAccesses.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Scalar/StructurizeCFG.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/FixIrreducible.h"
#include "llvm/Transforms/Utils/LCSSA.h"
#include "llvm/Transforms/Utils/LowerSwitch.h"
#include "llvm/Transforms/Utils/UnifyFunctionExitNodes.h"
#include "llvm/Transforms/Utils/UnifyLoopExits.h"

#include <array>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>

namespace openhsa::finalizer {

std::string describe(const VectorizeStats &S) {
  return std::to_string(S.Uniform) + " uniform, " +
         std::to_string(S.Consecutive) + " consecutive (" +
         std::to_string(S.Checked) + " checked), " +
         std::to_string(S.GatherScatter) + " gathers or scatters, " +
         std::to_string(S.LaneByLane) + " lane by lane; " +
         std::to_string(S.RegisterFile) + " register file accesses";
}

unsigned hostVectorWidth() { return abi::cpuVectorWidth(); }

unsigned kernelVectorWidth(const llvm::Function &S) {
  const unsigned Host = hostVectorWidth();
  unsigned F32 = 0, F64 = 0;
  for (const llvm::BasicBlock &BB : S)
    for (const llvm::Instruction &I : BB)
      if (llvm::isa<llvm::BinaryOperator>(I) || llvm::isa<llvm::CallInst>(I) ||
          llvm::isa<llvm::FCmpInst>(I))
        if (llvm::Type *T = I.getType()->getScalarType();
            T->isFloatingPointTy() || llvm::isa<llvm::FCmpInst>(I)) {
          llvm::Type *Op = I.getNumOperands() ? I.getOperand(0)->getType() : T;
          if (Op->isDoubleTy())
            ++F64;
          else if (Op->isFloatTy() || Op->isHalfTy())
            ++F32;
        }
  return F64 > F32 && Host > 2 ? Host / 2 : Host;
}

bool vectorizationEnabled() { return abi::cpuVectorization(); }

bool usesWavefronts(const llvm::Function &F) {
  llvm::SmallPtrSet<const llvm::Function *, 8> Seen;
  llvm::SmallVector<const llvm::Function *, 8> Work{&F};
  while (!Work.empty()) {
    const llvm::Function *G = Work.pop_back_val();
    if (!Seen.insert(G).second)
      continue;
    for (const llvm::Instruction &I : llvm::instructions(*G))
      if (auto *CI = llvm::dyn_cast<llvm::CallInst>(&I))
        if (const llvm::Function *Callee = CI->getCalledFunction()) {
          for (const char *Name :
               {query::WaveBallot, query::WaveLaneId, query::WaveShuffle32,
                query::WaveShuffle64, query::WaveBarrier})
            if (Callee->getName() == Name)
              return true;
          if (!Callee->isDeclaration())
            Work.push_back(Callee);
        }
  }
  return false;
}

namespace {

using namespace llvm;

Error unsupported(const Twine &Why) { return createStringError(Why); }

bool isQuery(const Function *Callee, const char *Name) {
  return Callee && Callee->getName() == Name;
}

/// `i64 (i32 slot)`: the lane's index in the wave, 0 to W-1, for the
/// address of register file slot `slot`; only in bodies being vectorized
/// (the register file's layout below). Where the slot turns out uniform it
/// is 0: the wave keeps one copy, in lane 0's place.
constexpr const char *LaneMarker = "openhsa.vectorizer.lane";

/// The stores to each register file slot (interleaveRegisterFile).
using SlotStores = std::vector<std::pair<StoreInst *, unsigned>>;

/// S cloned with the mask argument added.
Function *cloneWithMask(Function &S, unsigned W) {
  LLVMContext &C = S.getContext();
  FunctionType *FT = S.getFunctionType();
  SmallVector<Type *, 4> Params(FT->param_begin(), FT->param_end());
  Params.push_back(FixedVectorType::get(Type::getInt1Ty(C), W));
  Function *V =
      Function::Create(FunctionType::get(FT->getReturnType(), Params, false),
                       GlobalValue::InternalLinkage,
                       S.getName() + ".simd" + Twine(W), S.getParent());
  ValueToValueMapTy VMap;
  for (unsigned I = 0; I < S.arg_size(); ++I) {
    VMap[S.getArg(I)] = V->getArg(I);
    V->getArg(I)->setName(S.getArg(I)->getName());
  }
  V->getArg(S.arg_size())->setName("active");
  SmallVector<ReturnInst *, 4> Returns;
  CloneFunctionInto(V, &S, VMap, CloneFunctionChangeType::LocalChangesOnly,
                    Returns);
  return V;
}

/// Inlines the HSAIL functions F calls, a few levels deep (recursion stays
/// a call), so that their code is vectorized with the kernel's rather than
/// called lane by lane.
void inlineCalls(Function &F) {
  constexpr unsigned MaxRounds = 4, MaxInstructions = 20000;
  for (unsigned Round = 0; Round < MaxRounds; ++Round) {
    SmallVector<CallInst *, 8> Calls;
    for (Instruction &I : instructions(F))
      if (auto *CI = dyn_cast<CallInst>(&I))
        if (Function *Callee = CI->getCalledFunction();
            Callee && !Callee->isDeclaration() && Callee != &F &&
            !Callee->getName().starts_with("openhsa.") &&
            !Callee->hasFnAttribute(Attribute::NoInline))
          Calls.push_back(CI);
    if (Calls.empty())
      return;
    for (CallInst *CI : Calls) {
      if (F.getInstructionCount() > MaxInstructions)
        return;
      InlineFunctionInfo IFI;
      (void)InlineFunction(*CI, IFI);
    }
  }
}

/// Registers in SSA form, structured control flow, LCSSA (see the header).
void prepare(Function &F) {
  inlineCalls(F);
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PassBuilder PB;
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  FunctionPassManager FPM;
  FPM.addPass(SROAPass(SROAOptions::ModifyCFG));
  FPM.addPass(EarlyCSEPass());
  FPM.addPass(InstCombinePass());
  FPM.addPass(SimplifyCFGPass());
  FPM.addPass(LowerSwitchPass());
  FPM.addPass(UnifyFunctionExitNodesPass());
  FPM.addPass(FixIrreduciblePass());
  FPM.addPass(UnifyLoopExitsPass());
  FPM.addPass(StructurizeCFGPass());
  FPM.addPass(LCSSAPass());
  FPM.run(F, FAM);
}

/// An extension of a value whose lanes step by Step: the lanes stay
/// consecutive after it only if none wraps around in the narrower type,
/// which is tested at run time on lane 0's value.
struct WrapCheck {
  Value *Narrow;
  int64_t Step;
  bool Signed;
};

/// How a varying integer or pointer changes from lane to lane: lane L holds
/// lane 0's value + L * Step, provided the Checks hold.
struct LaneStride {
  int64_t Step = 0;
  SmallVector<WrapCheck, 1> Checks;
};

/// One per-lane copy of an instruction, to run only if its lane is active.
struct LaneOp {
  Instruction *Inst;
  Value *LaneActive;
};

/// A consecutive access whose lanes may have wrapped: run Fast if Cond
/// holds, else Slow (a gather or scatter).
struct CheckedAccess {
  Value *Cond;
  Instruction *Fast, *Slow;
};

/// A resumable kernel keeps registers across barriers in a register file
/// per work-item (query::RegisterFile). Vectorized, the file is the
/// wave's, lane by lane: the register at byte Slot of lane L is at
/// Slot * W + L * size from the wave's base (query::WaveRegisterFile), so
/// that saving and restoring registers are vector stores and loads. Every
/// use of the file must be a load or store of one type at a constant
/// offset; booleans are kept as bytes.
Error interleaveRegisterFile(Function &F, unsigned W, uint64_t WaveFileOffset,
                             SlotStores &Stores, Value *&WaveFile) {
  SmallVector<CallInst *, 2> Files;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I))
      if (isQuery(CI->getCalledFunction(), query::RegisterFile))
        Files.push_back(CI);
  if (Files.empty())
    return Error::success();
  const DataLayout &DL = F.getParent()->getDataLayout();
  std::vector<RegisterFileAccess> Accesses;
  for (CallInst *CI : Files)
    if (Error E = collectRegisterFileAccesses(CI, DL, Accesses))
      return unsupported(toString(std::move(E)));
  std::map<uint64_t, uint64_t> Slots; // Offset -> bytes.
  for (const RegisterFileAccess &A : Accesses) {
    if (DL.getTypeStoreSize(A.Ty) > 8)
      return unsupported("a register file used otherwise than by loads and "
                         "stores of scalars");
    // A register is read and written as integers or floats of its size.
    const uint64_t Bytes = std::max<uint64_t>(DL.getTypeStoreSize(A.Ty), 1);
    uint64_t &Slot = Slots[A.Offset];
    if (Slot && Slot != Bytes)
      return unsupported("a register file slot accessed with two sizes");
    Slot = Bytes;
  }
  // Slots must not overlap (they never do: one per register).
  uint64_t End = 0;
  for (auto &[Offset, Bytes] : Slots) {
    if (Offset < End)
      return unsupported("overlapping register file slots");
    End = Offset + Bytes;
  }
  Module &M = *F.getParent();
  LLVMContext &C = F.getContext();
  IRBuilder<> Entry(&*F.getEntryBlock().getFirstInsertionPt());
  Value *Wave = Entry.CreateCall(
      M.getOrInsertFunction(query::WaveRegisterFile, Entry.getPtrTy(),
                            Entry.getPtrTy(), Entry.getInt32Ty()),
      {F.getArg(1), Entry.getInt32(uint32_t(WaveFileOffset))},
      "wave.registers");
  WaveFile = Wave;
  FunctionCallee Lane = M.getOrInsertFunction(
      LaneMarker,
      FunctionType::get(Type::getInt64Ty(C), {Type::getInt32Ty(C)}, false));
  std::map<uint64_t, unsigned> SlotIds;
  for (auto &[Offset, Bytes] : Slots)
    SlotIds.emplace(Offset, unsigned(SlotIds.size()));
  for (const RegisterFileAccess &A : Accesses) {
    IRBuilder<> B(A.I);
    const uint64_t Size = std::max<uint64_t>(DL.getTypeStoreSize(A.Ty), 1);
    Type *Stored = B.getIntNTy(unsigned(Size * 8));
    const unsigned Slot = SlotIds[A.Offset];
    Value *Ptr = B.CreateGEP(
        B.getInt8Ty(), B.CreateConstGEP1_64(B.getInt8Ty(), Wave, A.Offset * W),
        B.CreateMul(B.CreateCall(Lane, {B.getInt32(Slot)}), B.getInt64(Size)));
    if (auto *L = dyn_cast<LoadInst>(A.I)) {
      Value *V = B.CreateAlignedLoad(Stored, Ptr, Align(Size));
      if (A.Ty->isIntegerTy(1))
        V = B.CreateTrunc(V, A.Ty);
      else if (Stored != A.Ty)
        V = B.CreateBitCast(V, A.Ty);
      L->replaceAllUsesWith(V);
    } else {
      auto *S = cast<StoreInst>(A.I);
      Value *V = S->getValueOperand();
      if (A.Ty->isIntegerTy(1))
        V = B.CreateZExt(V, Stored);
      else if (Stored != A.Ty)
        V = B.CreateBitCast(V, Stored);
      Stores.push_back({B.CreateAlignedStore(V, Ptr, Align(Size)), Slot});
    }
    A.I->eraseFromParent();
  }
  // The offsets' GEPs and the per-work-item file are unused now.
  eraseUnusedRegisterAddresses(F);
  for (CallInst *CI : Files) {
    if (!CI->use_empty())
      return unsupported("internal: the register file is still used");
    CI->eraseFromParent();
  }
  return Error::success();
}

class Vectorizer {
public:
  Vectorizer(Function &F, unsigned W, const WorkItemStateLayout &State,
             SlotStores RegisterStores, Value *WaveFile, WaveLayout Layout)
      : F(F), W(W), Layout(Layout), State(State),
        RegisterStores(std::move(RegisterStores)), WaveFile(WaveFile),
        Ctx(F.getContext()), DL(F.getParent()->getDataLayout()),
        Active(F.getArg(F.arg_size() - 1)), WorkItem(F.getArg(1)) {}
  Error run();
  const VectorizeStats &stats() const { return Stats; }

private:
  // Analysis.
  Error checkInstructions();
  void findVarying();
  bool computeVarying(Instruction &I);
  /// Blocks every lane that entered the body runs (no varying branch or
  /// loop exit decides whether they do).
  DenseSet<const BasicBlock *> wholeWaveBlocks() const;
  /// Register slots whose every store is of a uniform value in a block
  /// the whole wave runs stay uniform: one copy per wave.
  void findVaryingSlots();
  bool isVarying(const Value *V) const { return Varying.count(V); }
  bool isDivergent(const BasicBlock *BB) const;
  /// Whether P's lanes may come from different incoming edges (a divergent
  /// join, or the exit of a loop lanes leave at different iterations).
  bool mergesLanes(const PHINode &P) const;
  /// Whether BB ends in its loop's back edge (and the loop's exit).
  bool isLatchBranch(const BasicBlock *BB) const;
  /// The block a varying if-then at BB joins at; nullptr for latches and
  /// uniform branches.
  BasicBlock *divergentJoin(const BasicBlock *BB) const;
  std::optional<LaneStride> strideOf(Value *V);
  /// Lane Lane's value of V, computed with scalar instructions at B.
  Value *scalarAt(Value *V, unsigned Lane, IRBuilder<> &B);
  /// Whether S's wrap checks hold (nullptr: always; false: never).
  Value *noWrap(const LaneStride &S, IRBuilder<> &B);
  Error checkShape();

  // Masks.
  Value *maskOf(BasicBlock *BB); // A stand-in until buildMasks.
  Value *edgeMask(BasicBlock *P, BasicBlock *S);
  void buildMasks();
  void rewriteBranches();

  // Widening.
  Value *vec(Value *V);
  Value *splat(Value *V, IRBuilder<> &B);
  Error widen(Instruction &I);
  Error widenCall(CallInst &CI, IRBuilder<> &B);
  Error widenLoad(LoadInst &L, IRBuilder<> &B);
  Error widenStore(StoreInst &S, IRBuilder<> &B);
  Error widenPhi(PHINode &P, IRBuilder<> &B);
  Value *laneByLane(Instruction &I, IRBuilder<> &B,
                    SmallVectorImpl<Instruction *> *Copies = nullptr);
  Error widenCmpXchg(Instruction &I, IRBuilder<> &B);
  Value *laneWorkItem(IRBuilder<> &B, unsigned Lane);
  Value *laneIds();
  /// WaveLayout::Flat: the lanes' X, Y and Z ids, computed at the entry.
  std::array<Value *, 3> &flatIds();
  std::array<Value *, 3> FlatIds{};
  /// The cross-lane queries (query::Wave*) that stay uniform: ballots and
  /// wave barriers, once the masks they read exist.
  void lowerUniformWaveQueries();
  void guardLaneOps();
  Error finish();

  Function &F;
  unsigned W;
  WaveLayout Layout;
  WorkItemStateLayout State;
  SlotStores RegisterStores;
  Value *WaveFile; // The wave's register file, if any.
  DenseSet<unsigned> VaryingSlots;
  DenseSet<const BasicBlock *> WholeWave;
  /// Whether P points into the wave's register file, which nothing but
  /// the body's own register loads and stores reaches.
  bool isRegisterFile(const Value *P) const {
    return WaveFile && getUnderlyingObject(P) == WaveFile;
  }
  void scopeRegisterFile();
  LLVMContext &Ctx;
  const DataLayout &DL;
  Value *Active, *WorkItem;
  DominatorTree DT;
  PostDominatorTree PDT;
  LoopInfo LI;
  std::vector<BasicBlock *> RPO;

  DenseSet<const Value *> Varying;
  DenseSet<const Instruction *> KeepScalar; // Varying, but the scalar stays.
  DenseMap<Value *, std::optional<LaneStride>> Strides;
  DenseMap<Value *, Value *> Vec, Splats;
  DenseMap<BasicBlock *, Instruction *> StandInMasks;
  DenseMap<BasicBlock *, Value *> Masks;
  DenseMap<std::pair<BasicBlock *, BasicBlock *>, Value *> EdgeMasks;
  DenseMap<Loop *, Value *> LoopEntryMasks;
  std::vector<std::pair<PHINode *, PHINode *>> PendingPhis;
  std::vector<LaneOp> LaneOps;
  std::vector<CheckedAccess> CheckedAccesses;
  std::vector<Instruction *> Replaced;
  std::vector<Value *> LaneWorkItems;
  Value *LaneIdVector = nullptr;
  VectorizeStats Stats;
};

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

/// Whether a call has effects beyond its result, so that each lane must
/// make it.
bool hasEffects(const CallInst &CI) { return !CI.doesNotAccessMemory(); }

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
      return Layout == WaveLayout::Flat || !D || D->isZero();
    }
    if (isQuery(Callee, query::WaveLaneId) ||
        isQuery(Callee, query::WaveShuffle32) ||
        isQuery(Callee, query::WaveShuffle64))
      return true;
    if (isQuery(Callee, query::PrivateBase))
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
  // A join of a varying branch merges different lanes' values.
  for (const BasicBlock *Pred : predecessors(P.getParent()))
    if (divergentJoin(Pred) == P.getParent())
      return true;
  // Lanes leave a loop whose exit varies at different iterations.
  for (const BasicBlock *Pred : P.blocks())
    for (const Loop *L = LI.getLoopFor(Pred); L && !L->contains(P.getParent());
         L = L->getParentLoop())
      if (BasicBlock *Latch = L->getLoopLatch(); Latch && isDivergent(Latch))
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
    if (S && S->Step)
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
             CI && isQuery(CI->getCalledFunction(), LaneMarker)) {
    R = LaneStride{1, {}};
  } else if (auto *CI = dyn_cast<CallInst>(V)) {
    if (Layout == WaveLayout::Rows &&
        isQuery(CI->getCalledFunction(), query::WorkItemId))
      if (auto *D = dyn_cast<ConstantInt>(CI->getArgOperand(1));
          D && D->isZero())
        R = LaneStride{1, {}};
  } else if (I && I->getOpcode() == Instruction::Add) {
    R = Both(I->getOperand(0), I->getOperand(1), 1);
  } else if (I && I->getOpcode() == Instruction::Sub) {
    R = Both(I->getOperand(0), I->getOperand(1), -1);
  } else if (I && I->getOpcode() == Instruction::Mul) {
    for (unsigned K = 0; K < 2 && !R; ++K)
      if (auto *C = dyn_cast<ConstantInt>(I->getOperand(1 - K));
          C && C->getBitWidth() <= 64 && !isVarying(C))
        R = Scaled(strideOf(I->getOperand(K)), C->getSExtValue());
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
      CI && isQuery(CI->getCalledFunction(), LaneMarker))
    return B.getInt64(Lane);
  if (auto *CI = dyn_cast<CallInst>(I);
      CI && Layout == WaveLayout::Rows &&
      isQuery(CI->getCalledFunction(), query::WorkItemId))
    if (auto *D = dyn_cast<ConstantInt>(CI->getArgOperand(1)); D && D->isZero())
      return Lane ? B.CreateAdd(CI, B.getInt32(Lane)) : CI;
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
  return B.CreateExtractElement(vec(V), Lane);
}

Value *Vectorizer::noWrap(const LaneStride &S, IRBuilder<> &B) {
  Value *All = nullptr;
  for (const WrapCheck &C : S.Checks) {
    auto *T = cast<IntegerType>(C.Narrow->getType());
    const unsigned Bits = T->getBitWidth();
    const APInt Span = APInt(128, uint64_t(W - 1)) *
                       APInt(128, uint64_t(C.Step < 0 ? -C.Step : C.Step));
    const APInt Max = C.Signed ? APInt::getSignedMaxValue(Bits).zext(128)
                               : APInt::getMaxValue(Bits).zext(128);
    if (Span.ugt(Max))
      return B.getFalse();
    Value *V0 = scalarAt(C.Narrow, 0, B);
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
  Value *Cond = vec(Br->getCondition());
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

/// A varying if-then enters its region when any lane does; a loop whose
/// exit varies goes round while any lane stays in it.
void Vectorizer::rewriteBranches() {
  for (BasicBlock *BB : RPO) {
    if (!isDivergent(BB))
      continue;
    auto *Br = cast<BranchInst>(BB->getTerminator());
    BasicBlock *Taken, *Other;
    if (isLatchBranch(BB)) {
      Taken = LI.getLoopFor(BB)->getHeader();
      Other = Br->getSuccessor(0) == Taken ? Br->getSuccessor(1)
                                           : Br->getSuccessor(0);
    } else {
      Other = divergentJoin(BB);
      Taken = Br->getSuccessor(0) == Other ? Br->getSuccessor(1)
                                           : Br->getSuccessor(0);
    }
    IRBuilder<> B(Br);
    Value *Any = B.CreateOrReduce(edgeMask(BB, Taken));
    Br->setCondition(Any);
    if (Br->getSuccessor(0) != Taken)
      Br->swapSuccessors();
  }
}

//===----------------------------------------------------------------------===//
// Widening
//===----------------------------------------------------------------------===//

Type *vectorOf(Type *T, unsigned W) { return FixedVectorType::get(T, W); }

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
  Value *XPtr =
      B.CreateConstGEP1_64(B.getInt8Ty(), WorkItem, State.LocalXOffset);
  Value *X = B.CreateLoad(B.getInt32Ty(), XPtr);
  B.CreateStore(B.CreateAdd(X, B.getInt32(Lane)),
                B.CreateConstGEP1_64(B.getInt8Ty(), Copy, State.LocalXOffset));
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

void Vectorizer::lowerUniformWaveQueries() {
  for (Instruction &I : make_early_inc_range(instructions(F))) {
    auto *CI = dyn_cast<CallInst>(&I);
    if (!CI)
      continue;
    if (isQuery(CI->getCalledFunction(), query::WaveBarrier)) {
      // The lanes run in lockstep: every access before it is done for all
      // of them before any access after it.
      CI->eraseFromParent();
    } else if (isQuery(CI->getCalledFunction(), query::WaveBallot)) {
      // The lanes that reach this block and whose bit is set, lane L at
      // bit L.
      IRBuilder<> B(CI);
      Value *Bits =
          B.CreateAnd(vec(CI->getArgOperand(1)), maskOf(CI->getParent()));
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
    KeepScalar.insert(&CI);
    B.SetInsertPoint(*CI.getInsertionPointAfterDef());
    Value *X = B.CreateAdd(splat(&CI, B), laneIds(), "wi.x");
    auto *D = dyn_cast<ConstantInt>(CI.getArgOperand(1));
    if (!D)
      X = B.CreateSelect(B.CreateICmpEQ(CI.getArgOperand(1), B.getInt32(0)), X,
                         splat(&CI, B));
    Vec[&CI] = X;
    return Error::success();
  }
  if (isQuery(Callee, LaneMarker)) {
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

/// Whether lanes a stride S apart access consecutive elements of Ty (once
/// S's wrap checks hold).
static bool consecutive(std::optional<LaneStride> S, Type *Ty,
                        const DataLayout &DL) {
  if (!S || S->Step <= 0)
    return false;
  return DL.getTypeStoreSize(Ty) == DL.getTypeAllocSize(Ty) &&
         static_cast<uint64_t>(S->Step) == DL.getTypeStoreSize(Ty);
}

Error Vectorizer::widenLoad(LoadInst &L, IRBuilder<> &B) {
  if (!L.isSimple()) {
    ++Stats.LaneByLane;
    Vec[&L] = laneByLane(L, B);
    return Error::success();
  }
  Type *VT = vectorOf(L.getType(), W);
  Value *Mask = maskOf(L.getParent());
  Value *Ptrs = vec(L.getPointerOperand());
  auto S = strideOf(L.getPointerOperand());
  if (!consecutive(S, L.getType(), DL)) {
    ++Stats.GatherScatter;
    Vec[&L] = B.CreateMaskedGather(VT, Ptrs, L.getAlign(), Mask);
    return Error::success();
  }
  Value *First = scalarAt(L.getPointerOperand(), 0, B);
  if (isRegisterFile(L.getPointerOperand())) {
    // Every lane's slot exists: no mask needed.
    ++Stats.RegisterFile;
    Vec[&L] = B.CreateAlignedLoad(VT, First, L.getAlign());
    return Error::success();
  }
  Value *Cond = noWrap(*S, B);
  if (!Cond) {
    ++Stats.Consecutive;
    Vec[&L] = B.CreateMaskedLoad(VT, First, L.getAlign(), Mask);
    return Error::success();
  }
  if (auto *C = dyn_cast<ConstantInt>(Cond)) { // Known either way.
    ++(C->isOne() ? Stats.Consecutive : Stats.GatherScatter);
    Vec[&L] = C->isOne() ? B.CreateMaskedLoad(VT, First, L.getAlign(), Mask)
                         : B.CreateMaskedGather(VT, Ptrs, L.getAlign(), Mask);
    return Error::success();
  }
  ++Stats.Consecutive;
  ++Stats.Checked;
  auto *Fast =
      cast<Instruction>(B.CreateMaskedLoad(VT, First, L.getAlign(), Mask));
  auto *Slow =
      cast<Instruction>(B.CreateMaskedGather(VT, Ptrs, L.getAlign(), Mask));
  CheckedAccesses.push_back({Cond, Fast, Slow});
  Vec[&L] = Fast; // The merge replaces Fast's uses (guardLaneOps).
  return Error::success();
}

Error Vectorizer::widenStore(StoreInst &St, IRBuilder<> &B) {
  if (!St.isSimple()) {
    ++Stats.LaneByLane;
    laneByLane(St, B);
    return Error::success();
  }
  Value *Val = vec(St.getValueOperand());
  Value *Mask = maskOf(St.getParent());
  Value *Ptrs = vec(St.getPointerOperand());
  auto S = strideOf(St.getPointerOperand());
  // Scatters store in lane order, so the last active lane's value is the
  // one left where lanes share an address.
  if (!consecutive(S, St.getValueOperand()->getType(), DL)) {
    ++Stats.GatherScatter;
    B.CreateMaskedScatter(Val, Ptrs, St.getAlign(), Mask);
    return Error::success();
  }
  Value *First = scalarAt(St.getPointerOperand(), 0, B);
  if (isRegisterFile(St.getPointerOperand())) {
    ++Stats.RegisterFile;
    if (WholeWave.count(St.getParent()))
      // Lanes that are off have no work-item, or are past the row's end:
      // their slots are theirs alone and hold nothing live.
      B.CreateAlignedStore(Val, First, St.getAlign());
    else
      B.CreateMaskedStore(Val, First, St.getAlign(), Mask);
    return Error::success();
  }
  Value *Cond = noWrap(*S, B);
  if (!Cond) {
    ++Stats.Consecutive;
    B.CreateMaskedStore(Val, First, St.getAlign(), Mask);
    return Error::success();
  }
  if (auto *C = dyn_cast<ConstantInt>(Cond)) { // Known either way.
    ++(C->isOne() ? Stats.Consecutive : Stats.GatherScatter);
    if (C->isOne())
      B.CreateMaskedStore(Val, First, St.getAlign(), Mask);
    else
      B.CreateMaskedScatter(Val, Ptrs, St.getAlign(), Mask);
    return Error::success();
  }
  ++Stats.Consecutive;
  ++Stats.Checked;
  auto *Fast =
      cast<Instruction>(B.CreateMaskedStore(Val, First, St.getAlign(), Mask));
  auto *Slow =
      cast<Instruction>(B.CreateMaskedScatter(Val, Ptrs, St.getAlign(), Mask));
  CheckedAccesses.push_back({Cond, Fast, Slow});
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
    Value *Took = edgeMask(Pred, Region);
    IRBuilder<> AtJoin(&*BB->getFirstInsertionPt());
    Vec[&P] =
        AtJoin.CreateSelect(Took, VP, vec(P.getIncomingValueForBlock(Pred)));
    break;
  }
  return Error::success();
}

Error Vectorizer::widen(Instruction &I) {
  IRBuilder<> B(&I);
  Replaced.push_back(&I);
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
    SplitBlockAndInsertIfThenElse(A.Cond, A.Fast->getIterator(), &ThenT,
                                  &ElseT);
    A.Fast->moveBefore(ThenT);
    A.Slow->moveBefore(ElseT);
    if (!A.Fast->getType()->isVoidTy()) {
      BasicBlock *Tail = ThenT->getSuccessor(0);
      auto *Phi =
          PHINode::Create(A.Fast->getType(), 2, "access", Tail->begin());
      A.Fast->replaceAllUsesWith(Phi);
      Phi->addIncoming(A.Fast, A.Fast->getParent());
      Phi->addIncoming(A.Slow, A.Slow->getParent());
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

/// The register file is the body's alone: its loads and stores get an
/// alias scope every other memory access is outside of, so that LLVM keeps
/// registers in registers across loops that also access memory.
void Vectorizer::scopeRegisterFile() {
  if (!WaveFile)
    return;
  MDBuilder MDB(Ctx);
  MDNode *Domain = MDB.createAnonymousAliasScopeDomain("openhsa.registers");
  MDNode *Scope = MDB.createAnonymousAliasScope(Domain, "wave file");
  MDNode *List = MDNode::get(Ctx, {Scope});
  for (Instruction &I : instructions(F)) {
    if (!I.mayReadOrWriteMemory())
      continue;
    const Value *Ptr = getLoadStorePointerOperand(&I);
    if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
      if (II->getIntrinsicID() == Intrinsic::masked_load)
        Ptr = II->getArgOperand(0);
      else if (II->getIntrinsicID() == Intrinsic::masked_store)
        Ptr = II->getArgOperand(1);
    }
    I.setMetadata(Ptr && isRegisterFile(Ptr) ? LLVMContext::MD_alias_scope
                                             : LLVMContext::MD_noalias,
                  List);
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
  // Uniform register slots: lane 0's place.
  for (Instruction &I : make_early_inc_range(instructions(F)))
    if (auto *CI = dyn_cast<CallInst>(&I);
        CI && isQuery(CI->getCalledFunction(), LaneMarker)) {
      CI->replaceAllUsesWith(ConstantInt::get(CI->getType(), 0));
      CI->eraseFromParent();
    }
  guardLaneOps();
  scopeRegisterFile();
  return Error::success();
}

DenseSet<const BasicBlock *> Vectorizer::wholeWaveBlocks() const {
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

Error Vectorizer::run() {
  if (auto E = checkInstructions())
    return E;
  DT.recalculate(F);
  PDT.recalculate(F);
  LI.analyze(DT);
  ReversePostOrderTraversal<Function *> Order(&F);
  RPO.assign(Order.begin(), Order.end());
  if (RPO.size() != F.size())
    return unsupported("unreachable blocks");
  findVaryingSlots();
  if (auto E = checkShape())
    return E;
  for (BasicBlock *BB : RPO) {
    std::vector<Instruction *> Insts;
    for (Instruction &I : *BB)
      if (isVarying(&I))
        Insts.push_back(&I);
      else if (isa<LoadInst>(I) || isa<StoreInst>(I))
        ++(isRegisterFile(getLoadStorePointerOperand(&I)) ? Stats.RegisterFile
                                                          : Stats.Uniform);
    for (Instruction *I : Insts)
      if (auto E = widen(*I))
        return E;
  }
  lowerUniformWaveQueries();
  return finish();
}

} // namespace

llvm::Expected<llvm::Function *>
vectorizeWorkItemBody(llvm::Function &S, unsigned W,
                      const WorkItemStateLayout &State, VectorizeStats *Stats,
                      WaveLayout Layout) {
  llvm::Function *V = cloneWithMask(S, W);
  prepare(*V);
  SlotStores RegisterStores;
  llvm::Value *WaveFile = nullptr;
  if (llvm::Error E = interleaveRegisterFile(
          *V, W, State.WaveRegisterFileOffset, RegisterStores, WaveFile)) {
    V->eraseFromParent();
    return E;
  }
  Vectorizer Vz(*V, W, State, std::move(RegisterStores), WaveFile, Layout);
  if (llvm::Error E = Vz.run()) {
    V->eraseFromParent();
    return E;
  }
  if (Stats)
    *Stats = Vz.stats();
  std::string Broken;
  llvm::raw_string_ostream OS(Broken);
  if (llvm::verifyFunction(*V, &OS)) {
    V->eraseFromParent();
    return llvm::createStringError("internal: vectorized body is invalid: " +
                                   Broken);
  }
  return V;
}

} // namespace openhsa::finalizer
