//===- finalizer/LowerSystem.cpp - Queues, clock, exceptions, segments ----===//
//
// The special instructions of PRM chapter 11 and the segment instructions
// of 5.16, 5.17 and 11.4:
//
//  - User mode queue instructions (11.3) are atomics on a queue's read and
//    write indices. A queue is the runtime's (runtime/core/Queue.h), whose
//    indices lie at fixed offsets (abi::QueueLayout). On a GPU they are
//    system-scope atomics on host memory mapped into the device.
//  - clock reads the HSA system timestamp through the runtime (a call, so
//    it is neither merged nor moved across memory operations; a GPU target
//    answers query::Clock from the device's timer instead); cuid and
//    maxcuid are the worker running the work-group and the highest worker
//    number, from the dispatch context.
//  - debugtrap reports HSA_STATUS_ERROR_EXCEPTION on the queue, which stops
//    it, and ends the work-item (PRM 12.5.1: no debugger interface); in a
//    function, a halt word tells the callers to return too.
//  - The DETECT exception flags (11.2) are per wavefront: each work-item
//    keeps what it raised like a register (or in a private word when
//    functions use them), and getdetectexcept ORs the active lanes' flags
//    with ballots. Floating-point
//    instructions OR what they raise into them where DETECT is enabled
//    (FloatEmitter::detect()).
//  - Segment addresses: group and private addresses are 32-bit offsets from
//    the work-group's group base and the work-item's private base, whose
//    null is 0xffffffff (offset 0 is a variable's address); kernarg
//    addresses are the arguments' addresses (kernargbaseptr, lda_kernarg),
//    whose null is 0, like flat and global. stof/ftos convert by adding or
//    subtracting the base; segmentp tests the group segment's and the
//    work-item's private block's bounds.
//
//===----------------------------------------------------------------------===//
#include "finalizer/KernelLowering.h"
#include "finalizer/RuntimeHelpers.h"

#include "hsa/hsa.h"

namespace openhsa::finalizer::detail {

namespace {

/// The null segment address of group, private (and spill) segments.
constexpr uint32_t NullSegmentAddress = 0xffffffffu;

/// The exception flags' pseudo-register: no HSAIL register has this number.
constexpr uint16_t ExceptionFlagsRegister = 0xffff;
/// The five DETECT flags (PRM 11.2.1).
constexpr uint32_t ExceptionMask = 0x1f;

} // namespace

uint32_t enabledDetectExceptions(const BrigModule &B,
                                 EntryRef<BrigDirectiveExecutable> K) {
  uint32_t Mask = 0;
  for (EntryRef<BrigBase> E :
       B.codeRange(K->firstCodeBlockEntry, K->nextModuleEntry)) {
    if (E.kind() != BRIG_KIND_DIRECTIVE_CONTROL)
      continue;
    auto C = B.code<BrigDirectiveControl>(E.Offset);
    if (!C || C->control != BRIG_CONTROL_ENABLEDETECTEXCEPTIONS)
      continue;
    OffsetList Ops = B.offsetList(C->operands);
    if (Ops.empty())
      continue;
    if (auto V = B.operand<BrigOperandConstantBytes>(Ops[0])) {
      llvm::StringRef Bytes = B.string(V->bytes);
      for (unsigned J = 0; J < std::min<size_t>(4, Bytes.size()); ++J)
        Mask |= uint32_t(uint8_t(Bytes[J])) << (8 * J);
    }
  }
  return Mask & ExceptionMask;
}

uint32_t KernelLowering::detectMask() const {
  if (Kind != BodyKind::Kernel)
    return P.programDetect();
  return (Result.Symbol.EnabledDetectExceptions | P.finalizeDetect()) &
         ExceptionMask;
}

KernelLowering::RegisterSlot KernelLowering::detectFlags() {
  if (std::optional<uint64_t> Offset = P.detectFlagsOffset()) {
    // Functions of the program use the flags: they are a word of the
    // work-item's private segment, which its kernel clears on entry
    // (KernelLowering::run).
    return {privateWord(Builder, *Offset), Builder.getInt32Ty()};
  }
  // A kernel's own: a pseudo-register.
  BrigOperandRegister Pseudo{};
  Pseudo.regKind = BRIG_REGISTER_KIND_SINGLE;
  Pseudo.regNum = ExceptionFlagsRegister;
  const bool Fresh =
      !Registers.count({Pseudo.regKind, unsigned(Pseudo.regNum)});
  RegisterSlot Flags = registerSlot(Pseudo);
  if (Fresh && (SplitAtBarriers || Scheduled)) {
    // The flags start at 0 with the work-item (PRM 11.2.3). Registers of
    // a resumable kernel live in private memory, which nobody clears: the
    // entry block, run for every region, clears them in the first.
    Value *Start =
        AllocaBuilder.CreateICmpEQ(F->getArg(2), AllocaBuilder.getInt32(0));
    Value *Old = AllocaBuilder.CreateLoad(Flags.Ty, Flags.Ptr);
    AllocaBuilder.CreateStore(
        AllocaBuilder.CreateSelect(Start, AllocaBuilder.getInt32(0), Old),
        Flags.Ptr);
  } // Otherwise registerSlot cleared the slot on entry.
  return Flags;
}

FloatEmitter KernelLowering::floatEmitter() {
  FloatEmitter FE(Builder);
  if (detectMask())
    FE.detect();
  return FE;
}

void KernelLowering::raiseDetected(FloatEmitter &FE) {
  Value *Bits = FE.takeRaised();
  const uint32_t Mask = detectMask();
  if (!Mask)
    return;
  if (auto *C = llvm::dyn_cast<llvm::ConstantInt>(Bits); C && C->isZero())
    return;
  RegisterSlot Flags = detectFlags();
  Builder.CreateStore(
      Builder.CreateOr(Builder.CreateLoad(Flags.Ty, Flags.Ptr),
                       Builder.CreateAnd(Bits, Builder.getInt32(Mask))),
      Flags.Ptr);
}

std::optional<llvm::Error> KernelLowering::trySystem(EntryRef<BrigInstBase> I) {
  const unsigned Op = I->opcode;
  auto *I32 = llvm::Type::getInt32Ty(Ctx);
  auto *I64 = llvm::Type::getInt64Ty(Ctx);
  auto *PtrTy = llvm::PointerType::get(Ctx, 0);
  auto CallHelper = [&](const char *Name, llvm::Type *Ret,
                        llvm::ArrayRef<Value *> Args) {
    llvm::SmallVector<llvm::Type *, 4> Params;
    for (Value *A : Args)
      Params.push_back(A->getType());
    auto Callee = P.module().getOrInsertFunction(
        Name, llvm::FunctionType::get(Ret, Params, false));
    auto *Call = Builder.CreateCall(Callee, Args);
    Call->setDoesNotThrow();
    return Call;
  };
  auto Order = [](unsigned O) {
    return O == BRIG_MEMORY_ORDER_RELAXED
               ? llvm::AtomicOrdering::Monotonic
               : llvm::AtomicOrdering::SequentiallyConsistent;
  };
  // Fits V to the destination's type and writes it.
  auto WriteDest = [&](Value *V) {
    llvm::Type *Ty = llvmType(I->type);
    if (V->getType() != Ty)
      V = Builder.CreateZExtOrTrunc(V, Ty);
    return write(I, 0, V, I->type);
  };
  auto SegmentBase = [&](unsigned Segment) {
    return callQuery(Segment == BRIG_SEGMENT_GROUP ? query::GroupBase
                                                   : query::PrivateBase,
                     PtrTy);
  };
  switch (Op) {
  //===--- User mode queues (PRM 11.3) ----------------------------------===//
  case BRIG_OPCODE_LDQUEUEREADINDEX:
  case BRIG_OPCODE_LDQUEUEWRITEINDEX:
  case BRIG_OPCODE_ADDQUEUEWRITEINDEX:
  case BRIG_OPCODE_CASQUEUEWRITEINDEX:
  case BRIG_OPCODE_STQUEUEREADINDEX:
  case BRIG_OPCODE_STQUEUEWRITEINDEX: {
    auto Q = B.code<BrigInstQueue>(I.Offset);
    if (!Q)
      return failInst(I, "malformed queue instruction");
    if (Q->segment != BRIG_SEGMENT_GLOBAL && Q->segment != BRIG_SEGMENT_FLAT)
      return failInst(I, "queue addresses in segment '" +
                             llvm::Twine(segmentName(Q->segment)) +
                             "' are not supported (global and flat only)");
    if (typeBits(I->type) != 64 || isPacked(I->type))
      return failInst(I, "queue indices are u64");
    const bool Store = Op == BRIG_OPCODE_STQUEUEREADINDEX ||
                       Op == BRIG_OPCODE_STQUEUEWRITEINDEX;
    const bool ReadIndex = Op == BRIG_OPCODE_LDQUEUEREADINDEX ||
                           Op == BRIG_OPCODE_STQUEUEREADINDEX;
    auto Queue = address(I, Store ? 0 : 1, Q->segment);
    if (!Queue)
      return Queue.takeError();
    Value *Index = Builder.CreateConstGEP1_64(
        Builder.getInt8Ty(), *Queue,
        ReadIndex ? abi::QueueLayout::ReadIndexOffset
                  : abi::QueueLayout::WriteIndexOffset);
    const llvm::Align Align(8);
    const llvm::AtomicOrdering O = Order(Q->memoryOrder);
    if (Store) {
      auto V = read(I, 1, BRIG_TYPE_U64);
      if (!V)
        return V.takeError();
      Builder.CreateAlignedStore(*V, Index, Align)->setAtomic(O);
      return llvm::Error::success();
    }
    Value *R;
    if (Op == BRIG_OPCODE_ADDQUEUEWRITEINDEX) {
      auto V = read(I, 2, BRIG_TYPE_U64);
      if (!V)
        return V.takeError();
      R = Builder.CreateAtomicRMW(llvm::AtomicRMWInst::Add, Index, *V, Align,
                                  O);
    } else if (Op == BRIG_OPCODE_CASQUEUEWRITEINDEX) {
      auto Cmp = read(I, 2, BRIG_TYPE_U64);
      if (!Cmp)
        return Cmp.takeError();
      auto New = read(I, 3, BRIG_TYPE_U64);
      if (!New)
        return New.takeError();
      R = Builder.CreateExtractValue(
          Builder.CreateAtomicCmpXchg(
              Index, *Cmp, *New, Align, O,
              llvm::AtomicCmpXchgInst::getStrongestFailureOrdering(O)),
          0);
    } else {
      auto *Load = Builder.CreateAlignedLoad(I64, Index, Align);
      Load->setAtomic(O);
      R = Load;
    }
    return WriteDest(R);
  }

  //===--- Miscellaneous (PRM 11.4) -------------------------------------===//
  case BRIG_OPCODE_CLOCK:
    if (!P.hostRuntimeHelpers())
      return WriteDest(callQuery(query::Clock, I64));
    return WriteDest(CallHelper(helper::Clock, I64, {}));
  case BRIG_OPCODE_CUID:
    return WriteDest(callQuery(query::ComputeUnitId, I32));
  case BRIG_OPCODE_MAXCUID:
    return WriteDest(callQuery(query::MaxComputeUnitId, I32));
  case BRIG_OPCODE_DEBUGTRAP: {
    auto V = read(I, 0, BRIG_TYPE_U32);
    if (!V)
      return V.takeError();
    if (P.hostRuntimeHelpers())
      CallHelper(helper::Trap, Builder.getVoidTy(),
                 {callQuery(query::Queue, PtrTy),
                  llvm::ConstantInt::get(I32, HSA_STATUS_ERROR_EXCEPTION),
                  Builder.CreateZExt(*V, I64)});
    else
      callQuery(query::Trap, Builder.getVoidTy(),
                {llvm::ConstantInt::get(I32, HSA_STATUS_ERROR_EXCEPTION),
                 Builder.CreateZExt(*V, I64)});
    // The work-item halts. It says so in its halt word: the callers of a
    // function return in turn (KernelLowering::tryCall), and a resumable
    // kernel does not resume it after the next barrier.
    std::optional<uint64_t> Off = P.haltFlagOffset();
    if (!Off)
      return failInst(I, "internal error: debugtrap the program scan did "
                         "not see");
    Builder.CreateStore(Builder.getInt32(1), privateWord(Builder, *Off));
    emitReturn();
    return llvm::Error::success();
  }

  //===--- DETECT exception flags (PRM 11.2) ----------------------------===//
  case BRIG_OPCODE_CLEARDETECTEXCEPT:
  case BRIG_OPCODE_SETDETECTEXCEPT:
  case BRIG_OPCODE_GETDETECTEXCEPT: {
    RegisterSlot Flags = detectFlags();
    Value *Current = Builder.CreateLoad(Flags.Ty, Flags.Ptr);
    if (Op == BRIG_OPCODE_GETDETECTEXCEPT) {
      Value *Mine = Builder.CreateAnd(Current, ExceptionMask);
      if (P.wavefrontSize() == 1)
        return WriteDest(Mine);
      // The flags are the wavefront's (PRM 11.2.3): each work-item records
      // what it raised, and the read summarizes the active lanes.
      Value *Wave = Builder.getInt32(0);
      for (unsigned Bit = 0; Bit < 5; ++Bit) {
        Value *Set = Builder.CreateICmpNE(
            Builder.CreateAnd(Mine, Builder.getInt32(1u << Bit)),
            Builder.getInt32(0));
        Value *Any = Builder.CreateICmpNE(waveBallot(Set), Builder.getInt64(0));
        Wave = Builder.CreateOr(
            Wave, Builder.CreateSelect(Any, Builder.getInt32(1u << Bit),
                                       Builder.getInt32(0)));
      }
      return WriteDest(Wave);
    }
    auto V = read(I, 0, BRIG_TYPE_U32);
    if (!V)
      return V.takeError();
    Value *Bits = Builder.CreateAnd(*V, ExceptionMask);
    Builder.CreateStore(
        Op == BRIG_OPCODE_SETDETECTEXCEPT
            ? Builder.CreateOr(Current, Bits)
            : Builder.CreateAnd(Current, Builder.CreateNot(Bits)),
        Flags.Ptr);
    return llvm::Error::success();
  }

  //===--- Segments (PRM 5.16, 5.17, 11.4) ------------------------------===//
  case BRIG_OPCODE_NULLPTR: {
    auto Seg = B.code<BrigInstSeg>(I.Offset);
    if (!Seg)
      return failInst(I, "malformed nullptr");
    switch (Seg->segment) {
    case BRIG_SEGMENT_FLAT:
    case BRIG_SEGMENT_GLOBAL:
    case BRIG_SEGMENT_READONLY:
    case BRIG_SEGMENT_KERNARG:
      return WriteDest(llvm::ConstantInt::get(I64, 0));
    case BRIG_SEGMENT_GROUP:
    case BRIG_SEGMENT_PRIVATE:
      return WriteDest(llvm::ConstantInt::get(I32, NullSegmentAddress));
    default:
      return failInst(I, "segment '" + llvm::Twine(segmentName(Seg->segment)) +
                             "' has no null pointer value");
    }
  }
  case BRIG_OPCODE_LDA: {
    auto Addr = B.code<BrigInstAddr>(I.Offset);
    if (!Addr)
      return failInst(I, "malformed lda");
    const unsigned Segment = Addr->segment;
    if (Segment == BRIG_SEGMENT_SPILL || Segment == BRIG_SEGMENT_ARG)
      return failInst(I, "the address of a variable in segment '" +
                             llvm::Twine(segmentName(Segment)) +
                             "' cannot be taken (PRM 2.8)");
    if (Segment != BRIG_SEGMENT_GROUP && Segment != BRIG_SEGMENT_PRIVATE &&
        Segment != BRIG_SEGMENT_KERNARG)
      return std::nullopt; // Flat addresses: lda in LowerMemory.cpp.
    auto A = address(I, 1, Segment);
    if (!A)
      return A.takeError();
    Value *V = Builder.CreatePtrToInt(*A, I64);
    if (Segment != BRIG_SEGMENT_KERNARG)
      V = Builder.CreateTrunc(
          Builder.CreateSub(V,
                            Builder.CreatePtrToInt(SegmentBase(Segment), I64)),
          I32);
    return WriteDest(V);
  }
  case BRIG_OPCODE_STOF:
  case BRIG_OPCODE_FTOS:
  case BRIG_OPCODE_SEGMENTP: {
    auto Cvt = B.code<BrigInstSegCvt>(I.Offset);
    if (!Cvt)
      return failInst(I, "malformed segment conversion");
    const unsigned Segment = Cvt->segment;
    const bool NoNull = Cvt->modifier & BRIG_SEG_CVT_NONULL;
    const bool Allowed =
        Segment == BRIG_SEGMENT_GROUP || Segment == BRIG_SEGMENT_PRIVATE ||
        (Op == BRIG_OPCODE_SEGMENTP && Segment == BRIG_SEGMENT_GLOBAL);
    if (!Allowed)
      return failInst(I, "segment '" + llvm::Twine(segmentName(Segment)) +
                             "' is not valid here (PRM 5.16, 5.17)");
    auto Src = read(I, 1, Cvt->sourceType);
    if (!Src)
      return Src.takeError();
    Value *S = *Src;
    if (Op == BRIG_OPCODE_STOF) {
      Value *Seg32 = Builder.CreateZExtOrTrunc(S, I32);
      Value *Flat = Builder.CreatePtrToInt(
          Builder.CreateGEP(Builder.getInt8Ty(), SegmentBase(Segment),
                            Builder.CreateZExt(Seg32, I64)),
          I64);
      if (!NoNull)
        Flat = Builder.CreateSelect(
            Builder.CreateICmpEQ(Seg32, Builder.getInt32(NullSegmentAddress)),
            Builder.getInt64(0), Flat);
      return WriteDest(Flat);
    }
    Value *Flat = Builder.CreateZExtOrTrunc(S, I64);
    // Within [base, base + size) of the work-group's group segment or the
    // work-item's private block.
    auto Within = [&](unsigned Seg) {
      Value *Off = Builder.CreateSub(
          Flat, Builder.CreatePtrToInt(SegmentBase(Seg), I64));
      Value *Size =
          callQuery(Seg == BRIG_SEGMENT_GROUP ? query::GroupSegmentSize
                                              : query::PrivateSegmentSize,
                    I32);
      return Builder.CreateICmpULT(Off, Builder.CreateZExt(Size, I64));
    };
    Value *IsNull = Builder.CreateICmpEQ(Flat, Builder.getInt64(0));
    if (Op == BRIG_OPCODE_FTOS) {
      Value *Seg32 = Builder.CreateTrunc(
          Builder.CreateSub(Flat,
                            Builder.CreatePtrToInt(SegmentBase(Segment), I64)),
          I32);
      if (!NoNull)
        Seg32 = Builder.CreateSelect(
            IsNull, Builder.getInt32(NullSegmentAddress), Seg32);
      return WriteDest(Seg32);
    }
    // segmentp: the flat null is in every segment (PRM 5.16).
    Value *In;
    if (Segment == BRIG_SEGMENT_GLOBAL)
      In = Builder.CreateNot(Builder.CreateOr(Within(BRIG_SEGMENT_GROUP),
                                              Within(BRIG_SEGMENT_PRIVATE)));
    else
      In = Within(Segment);
    if (!NoNull)
      In = Builder.CreateOr(In, IsNull);
    return write(I, 0, In, BRIG_TYPE_B1);
  }
  default:
    return std::nullopt;
  }
}

} // namespace openhsa::finalizer::detail
