//===- finalizer/LowerFbarrier.cpp - Fbarriers and scheduled kernels ------===//
//
// Fbarriers (PRM 9.2). The CPU agent runs the work-items of a kernel that
// waits at fbarriers on one thread, one after the other (not vectorized, so
// such a kernel may not use cross-lane operations where wavefronts are
// wider than one work-item: CpuTarget.cpp refuses it): the conceptual
// fields of an fbarrier count work-items. An fbarrier is 16
// bytes of group segment memory (the PRM lets an implementation use group
// memory for them):
//   +0 member_count, +4 arrive_count, +8 generation
// (the generation counts how often the fbarrier was satisfied; a waiting
// work-item waits for it to change). Only one work-item runs at a time, so
// plain loads and stores update them atomically.
//
// initfbar, joinfbar, arrivefbar, leavefbar, releasefbar and ldf never
// wait and are lowered in place. waitfbar waits: when the work-item is not
// the last member to arrive, it stops - the kernel function returns - and
// resumes once the fbarrier's generation has moved on. Since work-items
// stop at different fbarriers, in different places, a kernel that can
// execute waitfbar is "scheduled": each work-item keeps its own resume point
// in its private segment (with its registers), and the work-group function
// (CpuTarget.cpp) calls every work-item, pass after pass, until all have
// finished:
//   i32 @k(ptr kernarg, ptr wi, i32 resume, ptr group)
// resume is 0 for the first call of a work-item, 1 for later ones; the
// result is 0 (finished now), 1 (stopped at a wait), 2 (still waiting: no
// progress) or 3 (had finished before). Barriers of such a kernel are
// waits on a group-wide counter `group` = {arrived, generation, items}.
// The last work-item to arrive at a barrier or fbarrier continues at once.
//
// This honours every fbarrier use the PRM defines, divergent ones included.
// What it cannot is what the PRM leaves undefined: a pass in which no
// work-item can proceed (say, a member that never arrives) means the
// work-group can never finish; the CPU target then ends it rather than
// hang. Waits inside indirect functions are refused (LowerCall.cpp).
//
// Where work-items run concurrently (targets with native barriers: the
// GPU, whose threads make progress independently of their warp's other
// threads), the same fields live in one 64-bit word that every operation
// updates with a compare-and-swap:
//   bits 0-19 member_count, 20-39 arrive_count, 40-63 generation
// The arrival that satisfies the fbarrier resets arrive_count and moves
// the generation on in the same update, so a waiter reads the generation
// it waits on in the update that records its arrival, and no later
// arrival can be counted in the phase before. waitfbar then spins until
// the generation moves on; a work-group fence on each side of the wait
// orders the group memory the fbarrier guards. A wait that can never be
// satisfied (undefined in the PRM) spins there until the dispatch is
// abandoned.
//
//===----------------------------------------------------------------------===//
#include "finalizer/AtomicUpdate.h"
#include "finalizer/KernelLowering.h"

namespace openhsa::finalizer::detail {

namespace {
// The fbarriers per work-group the CPU and GPU agents report
// (HSA_AGENT_INFO_FBARRIER_MAX_SIZE, cpu_agent/CpuAgent.h,
// gpu_backend/GpuAgent.cpp).
constexpr unsigned MaxFbarriers = 32;
// Byte offsets of the counters of an fbarrier and of the group state.
constexpr unsigned Members = 0, Arrived = 4, Generation = 8;
constexpr unsigned GroupArrived = 0, GroupGeneration = 4, GroupItems = 8;
enum Status { Finished = 0, Stopped = 1, StillWaiting = 2, WasFinished = 3 };
} // namespace

llvm::Error
ProgramLowering::declareModuleFbarrier(const BrigModule &B,
                                       EntryRef<BrigDirectiveFbarrier> D) {
  // Declarations and the definition share one home (collectDefinitions).
  const std::string Symbol =
      programSymbol("hsa.fbar.", moduleName(B), D->linkage, B.string(D->name));
  auto Known = VarHomes.find(Symbol);
  if (Known == VarHomes.end()) {
    VariableHome H;
    H.Segment = BRIG_SEGMENT_GROUP;
    H.Offset = alignTo(ProgramGroupSize, FbarrierAlign);
    ProgramGroupSize = H.Offset + FbarrierBytes;
    Known = VarHomes.emplace(Symbol, H).first;
  }
  ModuleVars[{&B, D.Offset}] = Known->second;
  return llvm::Error::success();
}

unsigned ProgramLowering::moduleFbarrierCount() const {
  unsigned N = 0;
  for (const auto &[Symbol, Home] : VarHomes)
    N += llvm::StringRef(Symbol).starts_with("hsa.fbar.");
  return N;
}

llvm::Error KernelLowering::checkFbarriers(const CallSummary &Calls) {
  // PRM 9.2.1: a kernel using more fbarriers than its agent supports is an
  // error. Counted: those of the kernel and of the functions it calls, and
  // every module-scope one of the program (each has its group memory).
  auto Count = [](const BrigModule &M, EntryRef<BrigDirectiveExecutable> X) {
    unsigned N = 0;
    for (uint32_t Off = X->firstCodeBlockEntry; Off < X->nextModuleEntry;) {
      EntryRef<BrigBase> E = M.code<BrigBase>(Off);
      if (!E)
        break;
      N += E.kind() == BRIG_KIND_DIRECTIVE_FBARRIER;
      Off += E.byteCount();
    }
    return N;
  };
  unsigned N = Count(B, K) + P.moduleFbarrierCount();
  for (const FunctionDef *D : Calls.Callees)
    N += Count(*D->B, D->X);
  if (N > MaxFbarriers)
    return fail(K.Offset, "uses " + llvm::Twine(N) +
                              " fbarriers; the agents support " +
                              llvm::Twine(MaxFbarriers) + " per work-group");
  return llvm::Error::success();
}

llvm::Error KernelLowering::declareFbarrier(EntryRef<BrigDirectiveFbarrier> D) {
  VariableHome H;
  H.Segment = BRIG_SEGMENT_GROUP;
  if (Kind == BodyKind::Kernel) {
    H.Offset = alignTo(GroupSize, FbarrierAlign);
    GroupSize = H.Offset + FbarrierBytes;
  } else if (const VariableHome *Shared = P.functionScopeHome(B, D.Offset)) {
    H = *Shared; // Every copy of the function shares it.
  } else {
    return fail(D.Offset, "fbarrier without a home");
  }
  Locals[D.Offset] = H;
  return llvm::Error::success();
}

llvm::Expected<Value *> KernelLowering::fbarrierOffset(EntryRef<BrigInstBase> I,
                                                       unsigned Index) {
  // An fbarrier's name, or a register holding what ldf gave (its group
  // segment address).
  if (auto Ref = B.operand<BrigOperandCodeRef>(operandOffset(I, Index))) {
    const VariableHome *H = nullptr;
    if (auto It = Locals.find(Ref->ref); It != Locals.end())
      H = &It->second;
    else
      H = P.moduleVariable(B, Ref->ref);
    if (!H || !B.code<BrigDirectiveFbarrier>(Ref->ref))
      return failInst(I,
                      "operand " + llvm::Twine(Index) + " names no fbarrier");
    return Builder.getInt32(uint32_t(H->Offset));
  }
  return read(I, Index, BRIG_TYPE_U32);
}

std::optional<llvm::Error>
KernelLowering::tryFbarrier(EntryRef<BrigInstBase> I) {
  if (P.nativeBarriers()) {
    switch (I->opcode) {
    case BRIG_OPCODE_WAITFBAR:
    case BRIG_OPCODE_INITFBAR:
    case BRIG_OPCODE_JOINFBAR:
    case BRIG_OPCODE_ARRIVEFBAR:
    case BRIG_OPCODE_LEAVEFBAR:
    case BRIG_OPCODE_RELEASEFBAR:
      return lowerNativeFbarrier(I);
    case BRIG_OPCODE_LDF:
      return lowerFbarrier(I); // An address, as on the CPU.
    default:
      return std::nullopt;
    }
  }
  switch (I->opcode) {
  case BRIG_OPCODE_BARRIER:
    if (!Scheduled)
      return std::nullopt; // Regions (LowerControl.cpp).
    return lowerScheduledWait(I);
  case BRIG_OPCODE_WAITFBAR:
    return lowerScheduledWait(I);
  case BRIG_OPCODE_INITFBAR:
  case BRIG_OPCODE_JOINFBAR:
  case BRIG_OPCODE_ARRIVEFBAR:
  case BRIG_OPCODE_LEAVEFBAR:
  case BRIG_OPCODE_RELEASEFBAR:
  case BRIG_OPCODE_LDF:
    return lowerFbarrier(I);
  default:
    return std::nullopt;
  }
}

llvm::Error KernelLowering::lowerFbarrier(EntryRef<BrigInstBase> I) {
  if (I->opcode == BRIG_OPCODE_LDF) {
    auto Off = fbarrierOffset(I, 1);
    if (!Off)
      return Off.takeError();
    return write(I, 0, *Off, BRIG_TYPE_U32);
  }
  auto Off = fbarrierOffset(I, 0);
  if (!Off)
    return Off.takeError();
  auto *I32 = Builder.getInt32Ty();
  Value *Base = Builder.CreateGEP(
      Builder.getInt8Ty(), callQuery(query::GroupBase, Builder.getPtrTy()),
      Builder.CreateZExt(*Off, Builder.getInt64Ty()));
  auto Field = [&](unsigned At) {
    return Builder.CreateConstGEP1_64(Builder.getInt8Ty(), Base, At);
  };
  // When arrive_count reaches member_count the fbarrier is satisfied: the
  // waiting work-items may proceed, arrive_count starts again at 0.
  auto SatisfyIf = [&](Value *Arrivals, Value *MemberCount) {
    Value *Done = Builder.CreateICmpUGE(Arrivals, MemberCount);
    Builder.CreateStore(
        Builder.CreateSelect(Done, Builder.getInt32(0), Arrivals),
        Field(Arrived));
    Value *Gen = Builder.CreateLoad(I32, Field(Generation));
    Builder.CreateStore(Builder.CreateAdd(Gen, Builder.CreateZExt(Done, I32)),
                        Field(Generation));
  };
  switch (I->opcode) {
  case BRIG_OPCODE_INITFBAR:
    Builder.CreateStore(Builder.getInt32(0), Field(Members));
    Builder.CreateStore(Builder.getInt32(0), Field(Arrived));
    break;
  case BRIG_OPCODE_RELEASEFBAR:
    break; // Nothing was allocated.
  case BRIG_OPCODE_JOINFBAR:
    Builder.CreateStore(
        Builder.CreateAdd(Builder.CreateLoad(I32, Field(Members)),
                          Builder.getInt32(1)),
        Field(Members));
    break;
  case BRIG_OPCODE_ARRIVEFBAR:
    SatisfyIf(Builder.CreateAdd(Builder.CreateLoad(I32, Field(Arrived)),
                                Builder.getInt32(1)),
              Builder.CreateLoad(I32, Field(Members)));
    break;
  case BRIG_OPCODE_LEAVEFBAR: {
    Value *Left = Builder.CreateSub(Builder.CreateLoad(I32, Field(Members)),
                                    Builder.getInt32(1));
    Builder.CreateStore(Left, Field(Members));
    SatisfyIf(Builder.CreateLoad(I32, Field(Arrived)), Left);
    break;
  }
  }
  return llvm::Error::success();
}

llvm::Error KernelLowering::lowerNativeFbarrier(EntryRef<BrigInstBase> I) {
  auto Off = fbarrierOffset(I, 0);
  if (!Off)
    return Off.takeError();
  auto *I64 = Builder.getInt64Ty();
  Value *Word = Builder.CreateGEP(
      Builder.getInt8Ty(), callQuery(query::GroupBase, Builder.getPtrTy()),
      Builder.CreateZExt(*Off, I64));
  const llvm::Align Align(8);
  const llvm::SyncScope::ID Group = Ctx.getOrInsertSyncScopeID("workgroup");
  constexpr uint64_t CountMask = (uint64_t(1) << 20) - 1;
  constexpr unsigned ArrivedShift = 20, GenerationShift = 40;
  using llvm::AtomicOrdering;
  switch (I->opcode) {
  case BRIG_OPCODE_INITFBAR: {
    auto *S = Builder.CreateAlignedStore(Builder.getInt64(0), Word, Align);
    S->setAtomic(AtomicOrdering::Monotonic, Group);
    return llvm::Error::success();
  }
  case BRIG_OPCODE_RELEASEFBAR:
    return llvm::Error::success(); // Nothing was allocated.
  case BRIG_OPCODE_JOINFBAR:
    Builder.CreateAtomicRMW(llvm::AtomicRMWInst::Add, Word, Builder.getInt64(1),
                            Align, AtomicOrdering::Monotonic, Group);
    return llvm::Error::success();
  default:
    break;
  }
  // arrivefbar, waitfbar (arrive, then wait) and leavefbar: one
  // compare-and-swap loop computes the next word from the last seen.
  const bool Leave = I->opcode == BRIG_OPCODE_LEAVEFBAR;
  const bool Wait = I->opcode == BRIG_OPCODE_WAITFBAR;
  if (!Leave) // What this work-item wrote before it arrives is released.
    Builder.CreateFence(AtomicOrdering::Release, Group);
  Value *Done = nullptr, *Generation = nullptr;
  emitAtomicUpdate(
      Builder, Word, I64, AtomicOrdering::Monotonic, Group, [&](Value *Seen) {
        Value *Members = Builder.CreateAnd(Seen, CountMask);
        Value *Arrived = Builder.CreateAnd(
            Builder.CreateLShr(Seen, ArrivedShift), CountMask);
        Generation = Builder.CreateLShr(Seen, GenerationShift);
        if (Leave)
          Members = Builder.CreateSub(Members, Builder.getInt64(1));
        else
          Arrived = Builder.CreateAdd(Arrived, Builder.getInt64(1));
        // Satisfied: every member arrived (as on the CPU, a leave that
        // leaves only arrived members satisfies the fbarrier too).
        Done = Builder.CreateICmpUGE(Arrived, Members);
        return Builder.CreateOr(
            Members, Builder.CreateSelect(
                         Done,
                         Builder.CreateShl(
                             Builder.CreateAdd(Generation, Builder.getInt64(1)),
                             GenerationShift),
                         Builder.CreateOr(
                             Builder.CreateShl(Arrived, ArrivedShift),
                             Builder.CreateShl(Generation, GenerationShift))));
      });
  if (!Wait)
    return llvm::Error::success();
  // Not the last to arrive: spin until the generation moves on.
  auto *Spin = llvm::BasicBlock::Create(Ctx, "fbar.spin", F);
  auto *Through = llvm::BasicBlock::Create(Ctx, "fbar.through", F);
  Builder.CreateCondBr(Done, Through, Spin);
  Builder.SetInsertPoint(Spin);
  auto *Now = Builder.CreateAlignedLoad(I64, Word, Align);
  Now->setAtomic(AtomicOrdering::Monotonic, Group);
  Builder.CreateCondBr(
      Builder.CreateICmpEQ(Builder.CreateLShr(Now, GenerationShift),
                           Generation),
      Spin, Through);
  Builder.SetInsertPoint(Through);
  // What the other members wrote before they arrived is visible now.
  Builder.CreateFence(AtomicOrdering::Acquire, Group);
  return llvm::Error::success();
}

void KernelLowering::setupScheduled() {
  SchedState = F->getArg(3);
  SchedState->setName("group");
  ResumeSlot = stateSlot(32);
  SavedGenSlot = stateSlot(32);
  SavedFbarrierSlot = stateSlot(32);
  // ret (and the end of the kernel) finishes the work-item for good.
  ExitBlock = llvm::BasicBlock::Create(Ctx, "exit", F);
  llvm::IRBuilder<> EB(ExitBlock);
  EB.CreateStore(EB.getInt32(-1), ResumeSlot.Ptr);
  EB.CreateRet(EB.getInt32(Finished));
}

void KernelLowering::finishScheduled(llvm::BasicBlock *Entry,
                                     llvm::BasicBlock *Body) {
  auto *Dispatch = llvm::BasicBlock::Create(Ctx, "dispatch", F);
  auto *Done = llvm::BasicBlock::Create(Ctx, "finished", F);
  llvm::IRBuilder<>(Done).CreateRet(Builder.getInt32(WasFinished));
  llvm::IRBuilder<> DB(Dispatch);
  auto *Switch = DB.CreateSwitch(DB.CreateLoad(ResumeSlot.Ty, ResumeSlot.Ptr),
                                 Done, Resumes.size());
  for (unsigned J = 0; J < Resumes.size(); ++J)
    Switch->addCase(DB.getInt32(J + 1), Resumes[J]);
  AllocaBuilder.CreateCondBr(
      AllocaBuilder.CreateICmpEQ(F->getArg(2), AllocaBuilder.getInt32(0)), Body,
      Dispatch);
}

llvm::Error KernelLowering::lowerScheduledWait(EntryRef<BrigInstBase> I) {
  if (!Scheduled)
    return failInst(I, "waits outside a kernel that can resume its "
                       "work-items");
  auto *I32 = Builder.getInt32Ty();
  auto *I8 = Builder.getInt8Ty();
  const bool IsBarrier = I->opcode == BRIG_OPCODE_BARRIER;
  // The counters: the fbarrier's, or the group's for a barrier (all the
  // work-items of the group are its members).
  Value *FbOff = nullptr;
  auto Counters = [&](Value *Off) -> Value * {
    if (IsBarrier)
      return SchedState;
    return Builder.CreateGEP(I8,
                             callQuery(query::GroupBase, Builder.getPtrTy()),
                             Builder.CreateZExt(Off, Builder.getInt64Ty()));
  };
  if (!IsBarrier) {
    auto Off = fbarrierOffset(I, 0);
    if (!Off)
      return Off.takeError();
    FbOff = *Off;
  }
  const unsigned ArrivedAt = IsBarrier ? GroupArrived : Arrived;
  const unsigned GenAt = IsBarrier ? GroupGeneration : Generation;
  const unsigned CountAt = IsBarrier ? GroupItems : Members;
  Value *Base = Counters(FbOff);
  auto At = [&](Value *Ptr, unsigned Off) {
    return Builder.CreateConstGEP1_64(I8, Ptr, Off);
  };
  Value *Arrivals = Builder.CreateAdd(
      Builder.CreateLoad(I32, At(Base, ArrivedAt)), Builder.getInt32(1));
  Value *Done = Builder.CreateICmpUGE(
      Arrivals, Builder.CreateLoad(I32, At(Base, CountAt)));
  Value *Gen = Builder.CreateLoad(I32, At(Base, GenAt));
  Builder.CreateStore(Builder.CreateSelect(Done, Builder.getInt32(0), Arrivals),
                      At(Base, ArrivedAt));
  Builder.CreateStore(Builder.CreateAdd(Gen, Builder.CreateZExt(Done, I32)),
                      At(Base, GenAt));
  auto *Stop = llvm::BasicBlock::Create(Ctx, "wait", F);
  auto *Check = llvm::BasicBlock::Create(Ctx, "waiting", F);
  auto *Blocked = llvm::BasicBlock::Create(Ctx, "blocked", F);
  auto *Continue = llvm::BasicBlock::Create(Ctx, "resume");
  Builder.CreateCondBr(Done, Continue, Stop);

  // Not the last: remember what to wait for and stop.
  Resumes.push_back(Check);
  Builder.SetInsertPoint(Stop);
  Builder.CreateStore(Gen, SavedGenSlot.Ptr);
  Builder.CreateStore(FbOff ? FbOff : Builder.getInt32(0),
                      SavedFbarrierSlot.Ptr);
  Builder.CreateStore(Builder.getInt32(Resumes.size()), ResumeSlot.Ptr);
  Builder.CreateRet(Builder.getInt32(Stopped));

  // Resumed: go on once the generation moved on.
  Builder.SetInsertPoint(Check);
  Value *Now = Builder.CreateLoad(
      I32, At(Counters(Builder.CreateLoad(I32, SavedFbarrierSlot.Ptr)), GenAt));
  Builder.CreateCondBr(
      Builder.CreateICmpEQ(Now, Builder.CreateLoad(I32, SavedGenSlot.Ptr)),
      Blocked, Continue);
  Builder.SetInsertPoint(Blocked);
  Builder.CreateRet(Builder.getInt32(StillWaiting));
  startBlock(Continue);
  return llvm::Error::success();
}

} // namespace openhsa::finalizer::detail
