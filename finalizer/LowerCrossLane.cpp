//===- finalizer/LowerCrossLane.cpp - Cross-lane instructions -------------===//
//
// PRM 9.4 for the CPU agent, whose wavefronts are one work-item wide
// (WAVESIZE 1): the executing work-item is the only active lane of its
// wavefront, lane 0. Width modifiers only state uniformity and change
// nothing here.
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

llvm::Error KernelLowering::lowerCrossLane(EntryRef<BrigInstBase> I) {
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
      Value *Bits = J == 0 ? Builder.CreateZExt(*Src, Slot.Ty)
                           : llvm::ConstantInt::get(Slot.Ty, 0);
      Builder.CreateStore(Bits, Slot.Ptr);
    }
    return llvm::Error::success();
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
