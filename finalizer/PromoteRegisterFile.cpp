//===- finalizer/PromoteRegisterFile.cpp - Registers in SSA per region ----===//
#include "finalizer/PromoteRegisterFile.h"

#include "finalizer/Lowering.h"
#include "finalizer/RegisterFileAccesses.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

#include <cstdlib>
#include <functional>
#include <map>
#include <string_view>

using namespace llvm;

namespace openhsa::finalizer {
namespace {

/// Queries whose answer is the same every time a work-item asks, in every
/// region: a register computed from them may be computed again.
bool isStableQuery(const Function *Callee) {
  if (!Callee)
    return false;
  static const char *const Stable[] = {query::WorkItemId,
                                       query::WorkGroupId,
                                       query::WorkGroupSize,
                                       query::CurrentWorkGroupSize,
                                       query::GridSize,
                                       query::GridGroups,
                                       query::Dim,
                                       query::PacketId,
                                       query::PacketCompletionSig,
                                       query::GroupBase,
                                       query::PrivateBase};
  for (const char *Name : Stable)
    if (Callee->getName() == Name)
      return true;
  return false;
}

/// Instructions a rematerialized register may be made of, at most.
constexpr unsigned MaxRematerialized = 16;

struct Slot {
  uint64_t Offset = 0;
  uint64_t Bytes = 0;
  Type *Ty = nullptr; // What its promoted value is.
  /// Accessed before the resume switch, or as i1 and as a byte: stays in
  /// memory.
  bool Excluded = false;
  unsigned Index = 0; // Among the promoted slots.
  AllocaInst *Home = nullptr;
};

struct Access {
  Instruction *I; // A load or a store.
  unsigned Slot;
};

class Promoter {
public:
  explicit Promoter(Function &F)
      : F(F), DL(F.getParent()->getDataLayout()), Ctx(F.getContext()) {}
  bool run();

private:
  bool findStructure();
  bool collectAccesses();
  void computeLiveness();
  void rewrite();
  void rematerialize();
  bool canRematerialize(Value *V, SmallPtrSetImpl<Value *> &Seen);
  Value *cloneAt(Value *V, Instruction *Before,
                 DenseMap<Value *, Value *> &Map);
  Value *fileAddress(IRBuilder<> &B, const Slot &S);

  Function &F;
  const DataLayout &DL;
  LLVMContext &Ctx;
  CallInst *File = nullptr;
  SwitchInst *Resume = nullptr;
  std::map<int64_t, BasicBlock *> Regions; // Resume value -> its first block.
  std::vector<std::pair<ReturnInst *, int64_t>> Leaves; // Barrier returns.
  DenseSet<const BasicBlock *> BeforeSwitch;
  std::vector<Slot> Slots;
  std::vector<unsigned> Promoted; // Indices into Slots.
  std::vector<Access> Accesses;
  DenseMap<const BasicBlock *, BitVector> LiveIn;
  /// Per region, the file loads at its start, by promoted slot.
  std::map<int64_t, DenseMap<unsigned, LoadInst *>> RegionLoads;
  /// Per region, the file stores of the barriers that lead there.
  std::map<int64_t, std::vector<std::pair<unsigned, StoreInst *>>> LeaveStores;
};

bool Promoter::findStructure() {
  if (F.arg_size() < 3 || !F.getArg(2)->getType()->isIntegerTy(32))
    return false;
  for (Instruction &I : instructions(F)) {
    if (auto *CI = dyn_cast<CallInst>(&I)) {
      const Function *Callee = CI->getCalledFunction();
      if (Callee && Callee->getName() == query::RegisterFile) {
        if (File || CI->getParent() != &F.getEntryBlock())
          return false; // One file, reachable from everywhere.
        File = CI;
      }
    } else if (auto *SI = dyn_cast<SwitchInst>(&I)) {
      if (SI->getCondition() == F.getArg(2)) {
        if (Resume)
          return false;
        Resume = SI;
      }
    }
  }
  if (!File || !Resume)
    return false;
  for (auto &Case : Resume->cases()) {
    const int64_t K = Case.getCaseValue()->getSExtValue();
    BasicBlock *Target = Case.getCaseSuccessor();
    if (K < 1 || !Regions.emplace(K, Target).second ||
        isa<PHINode>(Target->front()))
      return false;
  }
  for (BasicBlock &BB : F)
    if (auto *R = dyn_cast_or_null<ReturnInst>(BB.getTerminator())) {
      auto *K = dyn_cast_or_null<ConstantInt>(R->getReturnValue());
      if (!K)
        return false;
      const int64_t Next = K->getSExtValue();
      if (Next >= 1) {
        if (!Regions.count(Next))
          return false;
        Leaves.push_back({R, Next});
      } else if (Next == 0) {
        return false; // Not a form the lowering makes.
      }
    }
  // The blocks the resume switch's successors never reach run before it.
  SmallVector<BasicBlock *, 16> Work(successors(Resume->getParent()));
  DenseSet<const BasicBlock *> After;
  while (!Work.empty()) {
    BasicBlock *BB = Work.pop_back_val();
    if (After.insert(BB).second)
      append_range(Work, successors(BB));
  }
  for (BasicBlock &BB : F)
    if (!After.count(&BB))
      BeforeSwitch.insert(&BB);
  return !BeforeSwitch.empty();
}

bool Promoter::collectAccesses() {
  std::vector<RegisterFileAccess> Found;
  if (llvm::Error E = collectRegisterFileAccesses(File, DL, Found)) {
    consumeError(std::move(E)); // Left as it is; the vectorizer says why.
    return false;
  }
  std::map<uint64_t, unsigned> ByOffset;
  for (const RegisterFileAccess &A : Found) {
    const uint64_t Bytes = std::max<uint64_t>(DL.getTypeStoreSize(A.Ty), 1);
    auto [It, New] = ByOffset.emplace(A.Offset, unsigned(Slots.size()));
    if (New) {
      Slot S;
      S.Offset = A.Offset;
      S.Bytes = Bytes;
      S.Ty = A.Ty;
      Slots.push_back(S);
    }
    Slot &S = Slots[It->second];
    if (S.Bytes != Bytes)
      return false;
    if (S.Ty != A.Ty) {
      // A register read as an integer and as a float of its size.
      if (S.Ty->isIntegerTy(1) || A.Ty->isIntegerTy(1))
        S.Excluded = true;
      else
        S.Ty = Type::getIntNTy(Ctx, unsigned(Bytes * 8));
    }
    if (BeforeSwitch.count(A.I->getParent()))
      S.Excluded = true;
    Accesses.push_back({A.I, It->second});
  }
  uint64_t End = 0;
  for (auto &[Offset, Index] : ByOffset) {
    if (Offset < End)
      return false; // Overlapping registers: not a form the lowering makes.
    End = Offset + Slots[Index].Bytes;
  }
  for (unsigned I = 0; I < Slots.size(); ++I)
    if (!Slots[I].Excluded) {
      Slots[I].Index = unsigned(Promoted.size());
      Promoted.push_back(I);
    }
  return !Promoted.empty();
}

/// Liveness of the promoted registers over the body's blocks, a barrier's
/// return continuing at the region it names.
void Promoter::computeLiveness() {
  const unsigned N = unsigned(Promoted.size());
  DenseMap<const BasicBlock *, BitVector> Gen, Kill;
  for (BasicBlock &BB : F) {
    Gen[&BB] = BitVector(N);
    Kill[&BB] = BitVector(N);
    LiveIn[&BB] = BitVector(N);
  }
  DenseMap<const Instruction *, unsigned> SlotOf;
  for (const Access &A : Accesses)
    if (!Slots[A.Slot].Excluded)
      SlotOf[A.I] = Slots[A.Slot].Index;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      auto It = SlotOf.find(&I);
      if (It == SlotOf.end())
        continue;
      if (isa<LoadInst>(I)) {
        if (!Kill[&BB][It->second])
          Gen[&BB].set(It->second);
      } else {
        Kill[&BB].set(It->second);
      }
    }
  DenseMap<const BasicBlock *, int64_t> LeavesFor;
  for (auto &[R, Next] : Leaves)
    LeavesFor[R->getParent()] = Next;
  std::vector<BasicBlock *> Order(po_begin(&F.getEntryBlock()),
                                  po_end(&F.getEntryBlock()));
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (BasicBlock *BB : Order) {
      BitVector Out(N);
      for (BasicBlock *S : successors(BB))
        Out |= LiveIn[S];
      if (auto It = LeavesFor.find(BB); It != LeavesFor.end())
        Out |= LiveIn[Regions[It->second]];
      Out.reset(Kill[BB]);
      Out |= Gen[BB];
      if (Out != LiveIn[BB]) {
        LiveIn[BB] = std::move(Out);
        Changed = true;
      }
    }
  }
}

Value *Promoter::fileAddress(IRBuilder<> &B, const Slot &S) {
  return B.CreateConstGEP1_64(B.getInt8Ty(), File, S.Offset);
}

void Promoter::rewrite() {
  IRBuilder<> Entry(&F.getEntryBlock(), F.getEntryBlock().begin());
  std::vector<AllocaInst *> Homes;
  for (unsigned I : Promoted) {
    Slots[I].Home = Entry.CreateAlloca(Slots[I].Ty, nullptr, "register");
    Homes.push_back(Slots[I].Home);
  }
  // Region starts load what is live there (from a block of their own on
  // the switch's edge); barriers store what their region reads.
  std::map<int64_t, BitVector> LiveAt;
  for (auto &[K, Target] : Regions)
    LiveAt[K] = LiveIn[Target];
  for (auto &Case : Resume->cases()) {
    const int64_t K = Case.getCaseValue()->getSExtValue();
    BasicBlock *Target = Case.getCaseSuccessor();
    auto *Start = BasicBlock::Create(Ctx, "resume." + Twine(K), &F, Target);
    IRBuilder<> B(Start);
    for (unsigned Index : LiveAt[K].set_bits()) {
      const Slot &S = Slots[Promoted[Index]];
      LoadInst *L = B.CreateAlignedLoad(S.Ty, fileAddress(B, S), Align(S.Bytes),
                                        "resumed");
      B.CreateStore(L, S.Home);
      RegionLoads[K][Index] = L;
    }
    B.CreateBr(Target);
    Case.setSuccessor(Start);
  }
  for (auto &[R, Next] : Leaves) {
    IRBuilder<> B(R);
    for (unsigned Index : LiveAt[Next].set_bits()) {
      const Slot &S = Slots[Promoted[Index]];
      Value *V = B.CreateLoad(S.Ty, S.Home);
      LeaveStores[Next].push_back(
          {Index, B.CreateAlignedStore(V, fileAddress(B, S), Align(S.Bytes))});
    }
  }
  for (const Access &A : Accesses) {
    const Slot &S = Slots[A.Slot];
    if (S.Excluded)
      continue;
    IRBuilder<> B(A.I);
    if (auto *L = dyn_cast<LoadInst>(A.I)) {
      Value *V = B.CreateLoad(S.Ty, S.Home);
      if (V->getType() != L->getType())
        V = B.CreateBitCast(V, L->getType());
      L->replaceAllUsesWith(V);
    } else {
      Value *V = cast<StoreInst>(A.I)->getValueOperand();
      if (V->getType() != S.Ty)
        V = B.CreateBitCast(V, S.Ty);
      B.CreateStore(V, S.Home);
    }
    A.I->eraseFromParent();
  }
  eraseUnusedRegisterAddresses(F); // The old accesses' address arithmetic.
  DominatorTree DT(F);
  PromoteMemToReg(Homes, DT);
}

bool Promoter::canRematerialize(Value *V, SmallPtrSetImpl<Value *> &Seen) {
  if (isa<Constant>(V))
    return true;
  if (auto *A = dyn_cast<Argument>(V))
    return A->getArgNo() < 2; // The kernarg segment and the work-item.
  auto *I = dyn_cast<Instruction>(V);
  if (!I || isa<PHINode>(I))
    return false;
  if (!Seen.insert(I).second)
    return true;
  if (Seen.size() > MaxRematerialized)
    return false;
  if (auto *L = dyn_cast<LoadInst>(I)) {
    // The kernarg segment does not change while the kernel runs.
    if (!L->isSimple() || !L->hasMetadata(LLVMContext::MD_invariant_load))
      return false;
  } else if (auto *CI = dyn_cast<CallInst>(I)) {
    if (!isStableQuery(CI->getCalledFunction()))
      return false;
  } else if (I->mayReadOrWriteMemory() || I->mayHaveSideEffects() ||
             !(isa<BinaryOperator>(I) || isa<CastInst>(I) ||
               isa<GetElementPtrInst>(I) || isa<CmpInst>(I) ||
               isa<SelectInst>(I))) {
    return false;
  }
  for (Value *Op : I->operands())
    if (!isa<BasicBlock>(Op) && !isa<Function>(Op) &&
        !canRematerialize(Op, Seen))
      return false;
  return true;
}

Value *Promoter::cloneAt(Value *V, Instruction *Before,
                         DenseMap<Value *, Value *> &Map) {
  auto *I = dyn_cast<Instruction>(V);
  if (!I)
    return V;
  if (Value *Done = Map.lookup(I))
    return Done;
  Instruction *C = I->clone();
  for (Use &Op : C->operands())
    if (!isa<Function>(Op.get()))
      Op.set(cloneAt(Op.get(), Before, Map));
  C->insertBefore(Before);
  C->setName(I->getName() + ".again");
  Map[I] = C;
  return C;
}

/// A register that holds the same pure function of the work-item in every
/// region (set once, `workitemid * 4`, a kernarg pointer; carried around
/// loops unchanged) is computed again at each region's start instead of
/// stored and loaded. The check is optimistic: assume every region's load
/// of the register yields the value V; the assumption holds if every
/// barrier stores V, one of those loads, or a phi of such values.
void Promoter::rematerialize() {
  for (unsigned Index = 0; Index < Promoted.size(); ++Index) {
    SmallPtrSet<Value *, 8> Loaded;
    for (auto &[K, Loads] : RegionLoads)
      if (LoadInst *L = Loads.lookup(Index))
        Loaded.insert(L);
    if (Loaded.empty())
      continue;
    std::vector<StoreInst *> Stores;
    for (auto &[K, Leaving] : LeaveStores)
      for (auto &[I, S] : Leaving)
        if (I == Index)
          Stores.push_back(S);
    Value *Source = nullptr;
    bool Single = true;
    SmallPtrSet<Value *, 16> Visited;
    SmallVector<Value *, 16> Work;
    for (StoreInst *S : Stores)
      Work.push_back(S->getValueOperand());
    while (!Work.empty() && Single) {
      Value *V = Work.pop_back_val();
      if (Loaded.count(V) || !Visited.insert(V).second)
        continue;
      if (auto *P = dyn_cast<PHINode>(V)) {
        append_range(Work, P->incoming_values());
        continue;
      }
      Single = !Source || Source == V;
      Source = V;
    }
    SmallPtrSet<Value *, 16> Seen;
    if (!Source || !Single || !canRematerialize(Source, Seen))
      continue;
    for (auto &[K, Loads] : RegionLoads)
      if (LoadInst *L = Loads.lookup(Index)) {
        DenseMap<Value *, Value *> Clones;
        L->replaceAllUsesWith(cloneAt(Source, L, Clones));
        L->eraseFromParent();
        Loads.erase(Index);
      }
    for (StoreInst *S : Stores)
      S->eraseFromParent();
  }
}

bool Promoter::run() {
  if (!findStructure() || !collectAccesses())
    return false;
  computeLiveness();
  rewrite();
  rematerialize();
  return true;
}

} // namespace

bool promoteRegisterFile(Function &F) { return Promoter(F).run(); }

bool registerPromotionEnabled() {
  const char *V = std::getenv("OPENHSA_PROMOTE_REGISTERS");
  return !V || std::string_view(V) != "0";
}

} // namespace openhsa::finalizer
