//===- finalizer/LowerCrossLane.cpp - Cross-lane instructions -------------===//
//
// PRM 9.4. Wavefronts wider than a work-item (the CPU's SIMD lanes,
// abi/CpuWavefront.h; the GPU's 32) get the operations from the target's
// ballot, lane id and shuffle queries (lowerWideCrossLane). With wavefronts
// of one work-item (OPENHSA_VECTORIZE=0 on the CPU) the executing
// work-item is the only active lane of its wavefront, lane 0. Width modifiers
// only state uniformity and change nothing here.
//
//===----------------------------------------------------------------------===//
#include "finalizer/KernelLowering.h"

namespace openhsa::finalizer::detail {

std::optional<llvm::Error>
KernelLowering::tryCrossLane(EntryRef<BrigInstBase> I) {
  switch (I->opcode) {
  case BRIG_OPCODE_ACTIVELANECOUNT:
  case BRIG_OPCODE_ACTIVELANEID:
  case BRIG_OPCODE_ACTIVELANEMASK:
  case BRIG_OPCODE_ACTIVELANEPERMUTE:
    return lowerCrossLane(I);
  default:
    return std::nullopt;
  }
}

llvm::Error KernelLowering::writeLaneMask(EntryRef<BrigInstBase> I,
                                          Value *Mask) {
  // Lanes 0-63 in the first of four b64 registers; the others hold lanes
  // past any wavefront we have, so 0.
  auto List = B.operand<BrigOperandOperandList>(operandOffset(I, 0));
  OffsetList Dests = List ? B.offsetList(List->elements) : OffsetList();
  if (Dests.size() != 4)
    return failInst(I, "destination is not a vector of four registers");
  for (unsigned J = 0; J < 4; ++J) {
    auto R = B.operand<BrigOperandRegister>(Dests[J]);
    if (!R)
      return failInst(I,
                      "destination " + llvm::Twine(J) + " is not a register");
    RegisterSlot Slot = registerSlot(*R);
    Value *Bits = J == 0 ? Builder.CreateZExtOrTrunc(Mask, Slot.Ty)
                         : llvm::ConstantInt::get(Slot.Ty, 0);
    Builder.CreateStore(Bits, Slot.Ptr);
  }
  return llvm::Error::success();
}

Value *KernelLowering::waveBallot(Value *Bit) {
  llvm::FunctionCallee Fn = P.module().getOrInsertFunction(
      query::WaveBallot,
      llvm::FunctionType::get(Builder.getInt64Ty(),
                              {WorkItem->getType(), Builder.getInt1Ty()},
                              false));
  llvm::cast<llvm::Function>(Fn.getCallee())
      ->addFnAttr(llvm::Attribute::Convergent);
  llvm::CallInst *C = Builder.CreateCall(Fn, {WorkItem, Bit});
  C->addFnAttr(llvm::Attribute::Convergent);
  return C;
}

llvm::Error KernelLowering::lowerWideCrossLane(EntryRef<BrigInstBase> I) {
  // The target's queries (query::Wave*) give the ballot of the active lanes,
  // the caller's lane and other lanes' values; the rest is arithmetic here.
  auto *I1 = Builder.getInt1Ty();
  auto *I32 = Builder.getInt32Ty();
  auto *I64 = Builder.getInt64Ty();
  llvm::Module &M = P.module();
  auto Convergent = [&](llvm::FunctionCallee Fn,
                        llvm::ArrayRef<Value *> Args) -> Value * {
    llvm::cast<llvm::Function>(Fn.getCallee())
        ->addFnAttr(llvm::Attribute::Convergent);
    llvm::CallInst *C = Builder.CreateCall(Fn, Args);
    C->addFnAttr(llvm::Attribute::Convergent);
    return C;
  };
  auto Ballot = [&](Value *Bit) { return waveBallot(Bit); };
  auto LaneId = [&]() {
    return Convergent(
        M.getOrInsertFunction(
            query::WaveLaneId,
            llvm::FunctionType::get(I32, {WorkItem->getType()}, false)),
        {WorkItem});
  };
  auto Popcount = [&](Value *V) {
    return Builder.CreateTrunc(
        Builder.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, V), I32);
  };
  switch (I->opcode) {
  case BRIG_OPCODE_ACTIVELANECOUNT: {
    auto Src = read(I, 1, BRIG_TYPE_B1);
    if (!Src)
      return Src.takeError();
    return write(I, 0, Popcount(Ballot(*Src)), BRIG_TYPE_U32);
  }
  case BRIG_OPCODE_ACTIVELANEID: {
    // The active lanes below this one.
    Value *Below =
        Builder.CreateSub(Builder.CreateShl(Builder.getInt64(1),
                                            Builder.CreateZExt(LaneId(), I64)),
                          Builder.getInt64(1));
    return write(I, 0,
                 Popcount(Builder.CreateAnd(Ballot(Builder.getTrue()), Below)),
                 BRIG_TYPE_U32);
  }
  case BRIG_OPCODE_ACTIVELANEMASK: {
    auto Src = read(I, 1, BRIG_TYPE_B1);
    if (!Src)
      return Src.takeError();
    return writeLaneMask(I, Ballot(*Src));
  }
  case BRIG_OPCODE_ACTIVELANEPERMUTE: {
    const unsigned T = I->type;
    auto Src = read(I, 1, T);
    if (!Src)
      return Src.takeError();
    auto Lane = read(I, 2, BRIG_TYPE_U32);
    if (!Lane)
      return Lane.takeError();
    auto Identity = read(I, 3, T);
    if (!Identity)
      return Identity.takeError();
    auto UseIdentity = read(I, 4, BRIG_TYPE_B1);
    if (!UseIdentity)
      return UseIdentity.takeError();
    const unsigned W = P.wavefrontSize();
    Value *From = Builder.CreateURem(*Lane, Builder.getInt32(W));
    Value *Active = Ballot(Builder.getTrue());
    Value *FromActive = Builder.CreateTrunc(
        Builder.CreateLShr(Active, Builder.CreateZExt(From, I64)), I1);
    // Every lane takes part in the shuffles, whatever it receives.
    Value *V = *Src;
    const unsigned Bits = V->getType()->getPrimitiveSizeInBits();
    auto Shuffle = [&](Value *Part) -> Value * {
      const bool Wide = Part->getType()->getIntegerBitWidth() == 64;
      return Convergent(
          M.getOrInsertFunction(
              Wide ? query::WaveShuffle64 : query::WaveShuffle32,
              llvm::FunctionType::get(
                  Part->getType(), {WorkItem->getType(), Part->getType(), I32},
                  false)),
          {WorkItem, Part, From});
    };
    llvm::Type *Ty = V->getType();
    Value *AsInt = Builder.CreateBitCast(V, Builder.getIntNTy(Bits));
    Value *Moved;
    if (Bits <= 32) {
      Moved = Builder.CreateTrunc(Shuffle(Builder.CreateZExt(AsInt, I32)),
                                  AsInt->getType());
    } else if (Bits == 64) {
      Moved = Shuffle(AsInt);
    } else if (Bits == 128) {
      Value *Lo = Shuffle(Builder.CreateTrunc(AsInt, I64));
      Value *Hi =
          Shuffle(Builder.CreateTrunc(Builder.CreateLShr(AsInt, 64), I64));
      auto *I128 = Builder.getIntNTy(128);
      Moved =
          Builder.CreateOr(Builder.CreateZExt(Lo, I128),
                           Builder.CreateShl(Builder.CreateZExt(Hi, I128), 64));
    } else {
      return failInst(I, "operands of " + llvm::Twine(Bits) +
                             " bits are not supported");
    }
    Moved = Builder.CreateBitCast(Moved, Ty);
    Value *TakeIdentity =
        Builder.CreateOr(*UseIdentity, Builder.CreateNot(FromActive));
    return write(I, 0, Builder.CreateSelect(TakeIdentity, *Identity, Moved), T);
  }
  }
  return failInst(I, "not supported by this finalizer yet");
}

llvm::Error KernelLowering::lowerCrossLane(EntryRef<BrigInstBase> I) {
  if (P.wavefrontSize() > 1)
    return lowerWideCrossLane(I);
  auto *I32 = Builder.getInt32Ty();
  switch (I->opcode) {
  case BRIG_OPCODE_ACTIVELANECOUNT: {
    // The active lanes whose b1 source is 1: this one, or none.
    auto Src = read(I, 1, BRIG_TYPE_B1);
    if (!Src)
      return Src.takeError();
    return write(I, 0, Builder.CreateZExt(*Src, I32), BRIG_TYPE_U32);
  }
  case BRIG_OPCODE_ACTIVELANEID:
    // Active work-items before this one in its wavefront: none.
    return write(I, 0, Builder.getInt32(0), BRIG_TYPE_U32);
  case BRIG_OPCODE_ACTIVELANEMASK: {
    // Bit l of the 256-bit mask (four b64 registers) for each active lane
    // l with a non-zero source; lanes past WAVESIZE read as 0.
    auto Src = read(I, 1, BRIG_TYPE_B1);
    if (!Src)
      return Src.takeError();
    return writeLaneMask(I, *Src);
  }
  case BRIG_OPCODE_ACTIVELANEPERMUTE: {
    // The sending lane is laneId modulo WAVESIZE = lane 0, this active
    // lane itself: its src, or identity when useIdentity is 1.
    const unsigned T = I->type;
    auto Src = read(I, 1, T);
    if (!Src)
      return Src.takeError();
    auto LaneId = read(I, 2, BRIG_TYPE_U32);
    if (!LaneId)
      return LaneId.takeError();
    auto Identity = read(I, 3, T);
    if (!Identity)
      return Identity.takeError();
    auto UseIdentity = read(I, 4, BRIG_TYPE_B1);
    if (!UseIdentity)
      return UseIdentity.takeError();
    return write(I, 0, Builder.CreateSelect(*UseIdentity, *Identity, *Src), T);
  }
  }
  return failInst(I, "not supported by this finalizer yet");
}

} // namespace openhsa::finalizer::detail
