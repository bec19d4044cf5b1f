//===- finalizer/WorkItemVectorizer.cpp - W work-items at a time ----------===//
#include "finalizer/WorkItemVectorizer.h"

#include "finalizer/VectorizerImpl.h"

#include "abi/CpuWavefront.h"

#include "finalizer/Codegen.h"
#include "finalizer/Lowering.h"
#include "finalizer/PrivateInterleaving.h"
#include "finalizer/RegisterFileAccesses.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Scalar/StructurizeCFG.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/FixIrreducible.h"
#include "llvm/Transforms/Utils/LCSSA.h"
#include "llvm/Transforms/Utils/LowerSwitch.h"
#include "llvm/Transforms/Utils/UnifyFunctionExitNodes.h"
#include "llvm/Transforms/Utils/UnifyLoopExits.h"

#include <cassert>
#include <cstdlib>
#include <map>
#include <set>

namespace openhsa::finalizer {

std::string describe(const VectorizeStats &S) {
  return std::to_string(S.Uniform) + " uniform, " +
         std::to_string(S.Consecutive) + " consecutive (" +
         std::to_string(S.Checked) + " checked" +
         (S.Guarded ? ", " + std::to_string(S.Guarded) + " guarded at dispatch"
                    : std::string()) +
         "), " + std::to_string(S.GatherScatter) + " gathers or scatters, " +
         std::to_string(S.LaneByLane) + " lane by lane; " +
         std::to_string(S.RegisterFile) + " register file accesses" +
         (S.GroupRegisters || S.BoundedIfs
              ? "; " + std::to_string(S.GroupRegisters) +
                    " registers shared by the group, " +
                    std::to_string(S.BoundedIfs) + " ifs bounded by the X id"
              : std::string()) +
         (S.PrivateGranule ? "; private data interleaved by " +
                                 std::to_string(S.PrivateGranule) + " bytes"
          : !S.PrivateSideBySide.empty()
              ? "; private blocks side by side: " + S.PrivateSideBySide
              : std::string());
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

unsigned prefetchGroupsAhead() {
  const char *V = std::getenv("OPENHSA_PREFETCH_GROUPS");
  constexpr unsigned Default = 4;
  if (!V || !*V)
    return Default;
  char *End = nullptr;
  unsigned long N = std::strtoul(V, &End, 10);
  return *End || N > 16 ? Default : unsigned(N);
}

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
using namespace vectorizer;

/// The offsets of F's register file slots that a load may read after a
/// store of the same region (before the `ret` that ends it) wrote them. F
/// is a resumable body whose regions end in returns (as lowered, calls
/// inlined); after StructurizeCFG every region's code is one graph, so
/// this is read before. Where the file is used otherwise than by loads and
/// stores at constant offsets, every register counts as read after
/// written: false.
bool readAfterWritten(Function &F, std::set<uint64_t> &Offsets) {
  std::vector<RegisterFileAccess> Accesses;
  const DataLayout &DL = F.getParent()->getDataLayout();
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I);
        CI && isQuery(CI->getCalledFunction(), query::RegisterFile))
      if (Error E = collectRegisterFileAccesses(CI, DL, Accesses)) {
        consumeError(std::move(E));
        return false;
      }
  std::map<uint64_t, std::pair<std::vector<const Instruction *>,
                               DenseSet<const Instruction *>>>
      ByOffset; // Stores, loads.
  for (const RegisterFileAccess &A : Accesses)
    if (isa<StoreInst>(A.I))
      ByOffset[A.Offset].first.push_back(A.I);
    else
      ByOffset[A.Offset].second.insert(A.I);
  for (auto &[Offset, Sites] : ByOffset) {
    auto &[Stores, Loads] = Sites;
    if (Stores.empty() || Loads.empty())
      continue;
    DenseSet<const BasicBlock *> Seen;
    SmallVector<const BasicBlock *, 8> Work;
    bool Found = false;
    for (const Instruction *St : Stores) {
      for (auto It = std::next(St->getIterator()); It != St->getParent()->end();
           ++It)
        Found |= Loads.count(&*It) != 0;
      append_range(Work, successors(St->getParent()));
    }
    while (!Work.empty() && !Found) {
      const BasicBlock *BB = Work.pop_back_val();
      if (!Seen.insert(BB).second)
        continue;
      for (const Instruction &I : *BB)
        Found |= Loads.count(&I) != 0;
      append_range(Work, successors(BB));
    }
    if (Found)
      Offsets.insert(Offset);
  }
  return true;
}

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
/// Between runs between the two, on the registers in SSA form and the
/// control flow as lowered.
void prepare(Function &F, function_ref<void()> Between) {
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
  FunctionPassManager Simplify;
  Simplify.addPass(SROAPass(SROAOptions::ModifyCFG));
  Simplify.addPass(EarlyCSEPass());
  Simplify.addPass(InstCombinePass());
  Simplify.addPass(SimplifyCFGPass());
  Simplify.run(F, FAM);
  Between();
  FunctionPassManager Structure;
  Structure.addPass(LowerSwitchPass());
  Structure.addPass(UnifyFunctionExitNodesPass());
  Structure.addPass(FixIrreduciblePass());
  Structure.addPass(UnifyLoopExitsPass());
  Structure.addPass(StructurizeCFGPass());
  Structure.addPass(LCSSAPass());
  Structure.run(F, FAM);
}

/// A resumable kernel keeps registers across barriers in a register file
/// per work-item (query::RegisterFile). Vectorized, the file is the
/// wave's, lane by lane: the register at byte Slot of lane L is at
/// Slot * W + L * size from the wave's base (query::WaveRegisterFile), so
/// that saving and restoring registers are vector stores and loads. Every
/// use of the file must be a load or store of one type at a constant
/// offset; booleans are kept as bytes.
Error interleaveRegisterFile(Function &F, unsigned W,
                             const WorkItemStateLayout &State,
                             SlotStores &Stores, RegisterFileLayout &File) {
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
  auto FileQuery = [&](const char *Name, uint64_t Offset, const char *As) {
    return Entry.CreateCall(
        M.getOrInsertFunction(Name, Entry.getPtrTy(), Entry.getPtrTy(),
                              Entry.getInt32Ty()),
        {F.getArg(1), Entry.getInt32(uint32_t(Offset))}, As);
  };
  File.Wave = FileQuery(query::WaveRegisterFile, State.WaveRegisterFileOffset,
                        "wave.registers");
  File.Group = FileQuery(query::GroupRegisterFile,
                         State.GroupRegisterFileOffset, "group.registers");
  File.Bytes = End;
  FunctionCallee Lane = M.getOrInsertFunction(
      LaneMarker,
      FunctionType::get(Type::getInt64Ty(C), {Type::getInt32Ty(C)}, false));
  FunctionCallee Base = M.getOrInsertFunction(
      SlotBaseMarker,
      FunctionType::get(PointerType::get(C, 0),
                        {Type::getInt32Ty(C), Type::getInt1Ty(C)}, false));
  std::map<uint64_t, unsigned> SlotIds;
  for (auto &[Offset, Bytes] : Slots) {
    SlotIds.emplace(Offset, unsigned(SlotIds.size()));
    File.SlotOffsets.push_back(Offset);
    File.SlotBytes.push_back(unsigned(Bytes));
  }
  for (const RegisterFileAccess &A : Accesses) {
    IRBuilder<> B(A.I);
    const uint64_t Size = std::max<uint64_t>(DL.getTypeStoreSize(A.Ty), 1);
    Type *Stored = B.getIntNTy(unsigned(Size * 8));
    const unsigned Slot = SlotIds[A.Offset];
    Value *Ptr = B.CreateGEP(
        B.getInt8Ty(),
        B.CreateCall(Base, {B.getInt32(Slot), B.getInt1(isa<StoreInst>(A.I))}),
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

} // namespace

namespace vectorizer {

Error Vectorizer::run() {
  if (auto E = checkInstructions())
    return E;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I))
      LockstepGroup |= isQuery(CI->getCalledFunction(), query::Barrier);
  DT.recalculate(F);
  PDT.recalculate(F);
  LI.analyze(DT);
  ReversePostOrderTraversal<Function *> Order(&F);
  RPO.assign(Order.begin(), Order.end());
  if (RPO.size() != F.size())
    return unsupported("unreachable blocks");
  findVaryingSlots();
  findGroupSharedSlots();
  if (auto E = checkShape())
    return E;
  findRowSkips();
  Stats.GroupRegisters = GroupSharedSlots.size();
  Stats.BoundedIfs = RowSkips.size();
  findGuardedWraps();
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

} // namespace vectorizer

llvm::Expected<llvm::Function *>
vectorizeWorkItemBody(llvm::Function &S, unsigned W,
                      const WorkItemStateLayout &State, VectorizeStats *Stats,
                      WaveLayout Layout, unsigned RowWidth, WrapGuard *Guard) {
  if (RowWidth &&
      (Layout != WaveLayout::Rows || RowWidth > W || W % RowWidth != 0))
    return llvm::createStringError(
        "internal: rows of " + std::to_string(RowWidth) +
        " lanes in a vector of " + std::to_string(W));
  llvm::Function *V = cloneWithMask(S, W);
  markLoadsRepeatedAcrossBarriers(*V);
  RegisterFileLayout File;
  prepare(*V,
          [&] { File.Unknown = !readAfterWritten(*V, File.ReadAfterWritten); });
  SlotStores RegisterStores;
  if (llvm::Error E =
          interleaveRegisterFile(*V, W, State, RegisterStores, File)) {
    V->eraseFromParent();
    return E;
  }
  const PrivateInterleaving Private = interleavePrivateSegment(
      *V, W, State.PrivateSegmentSize, State.WavePrivateOffset);
  Vectorizer Vz(*V, W, State, std::move(RegisterStores), std::move(File),
                Layout, RowWidth ? RowWidth : W, Guard);
  if (llvm::Error E = Vz.run()) {
    V->eraseFromParent();
    return E;
  }
  if (Stats) {
    *Stats = Vz.stats();
    Stats->PrivateGranule = Private.Granule;
    Stats->PrivateAreaBytes = Private.AreaBytes;
    Stats->PrivateSideBySide = Private.SideBySideReason;
  }
  std::string Broken;
  llvm::raw_string_ostream OS(Broken);
  if (llvm::verifyFunction(*V, &OS)) {
    V->eraseFromParent();
    return llvm::createStringError("internal: vectorized body is invalid: " +
                                   Broken);
  }
  return V;
}

GroupRegisterSlots groupRegisterSlots(const llvm::Function &V) {
  using vectorizer::GroupRegistersAttr;
  GroupRegisterSlots R;
  if (!V.hasFnAttribute(GroupRegistersAttr))
    return R;
  // "distance;offset:size,offset:size" (VectorizerWiden.cpp), written by
  // the finalizer itself: a value it cannot read is a finalizer bug.
  auto [Distance, List] =
      V.getFnAttribute(GroupRegistersAttr).getValueAsString().split(';');
  [[maybe_unused]] bool Bad = Distance.getAsInteger(10, R.Distance);
  while (!List.empty()) {
    auto [Slot, Rest] = List.split(',');
    auto [Offset, Size] = Slot.split(':');
    uint64_t O = 0;
    unsigned S = 0;
    Bad |= Offset.getAsInteger(10, O) || Size.getAsInteger(10, S) || !S;
    R.Slots.emplace_back(O, S);
    List = Rest;
  }
  assert(!Bad && !R.Slots.empty() && "malformed openhsa-group-registers");
  return R;
}

} // namespace openhsa::finalizer
