//===- finalizer/LowerWorkItem.cpp - Dispatch packet and work-item queries
//---===//
#include "finalizer/KernelLowering.h"

namespace openhsa::finalizer::detail {

std::optional<llvm::Error>
KernelLowering::tryWorkItem(EntryRef<BrigInstBase> I) {
  switch (I->opcode) {
  case BRIG_OPCODE_WORKITEMID:
  case BRIG_OPCODE_WORKITEMABSID:
  case BRIG_OPCODE_WORKGROUPID:
  case BRIG_OPCODE_WORKGROUPSIZE:
  case BRIG_OPCODE_CURRENTWORKGROUPSIZE:
  case BRIG_OPCODE_GRIDSIZE:
  case BRIG_OPCODE_GRIDGROUPS:
  case BRIG_OPCODE_DIM:
  case BRIG_OPCODE_WORKITEMFLATID:
  case BRIG_OPCODE_CURRENTWORKITEMFLATID:
  case BRIG_OPCODE_WORKITEMFLATABSID:
  case BRIG_OPCODE_PACKETID:
  case BRIG_OPCODE_PACKETCOMPLETIONSIG:
  case BRIG_OPCODE_KERNARGBASEPTR:
  case BRIG_OPCODE_GROUPBASEPTR:
  case BRIG_OPCODE_NULLPTR:
  case BRIG_OPCODE_LANEID:
  case BRIG_OPCODE_WAVEID:
  case BRIG_OPCODE_MAXWAVEID:
    return lowerQuery(I);
  default:
    return std::nullopt;
  }
}

llvm::Error KernelLowering::lowerQuery(EntryRef<BrigInstBase> I) {
  auto *I32 = llvm::Type::getInt32Ty(Ctx);
  auto *I64 = llvm::Type::getInt64Ty(Ctx);
  const unsigned T = I->type;
  auto Dim = [&]() -> llvm::Expected<Value *> {
    return read(I, 1, BRIG_TYPE_U32);
  };
  auto PerDim = [&](const char *Name) -> llvm::Expected<Value *> {
    auto D = Dim();
    if (!D)
      return D.takeError();
    return callQuery(Name, I32, {*D});
  };
  auto Of = [&](const char *Name, unsigned D) {
    return callQuery(Name, I32, {llvm::ConstantInt::get(I32, D)});
  };
  Value *R = nullptr;
  switch (I->opcode) {
  case BRIG_OPCODE_WORKITEMID:
  case BRIG_OPCODE_WORKGROUPID:
  case BRIG_OPCODE_WORKGROUPSIZE:
  case BRIG_OPCODE_CURRENTWORKGROUPSIZE:
  case BRIG_OPCODE_GRIDSIZE:
  case BRIG_OPCODE_GRIDGROUPS: {
    const char *Name =
        I->opcode == BRIG_OPCODE_WORKITEMID      ? query::WorkItemId
        : I->opcode == BRIG_OPCODE_WORKGROUPID   ? query::WorkGroupId
        : I->opcode == BRIG_OPCODE_WORKGROUPSIZE ? query::WorkGroupSize
        : I->opcode == BRIG_OPCODE_CURRENTWORKGROUPSIZE
            ? query::CurrentWorkGroupSize
        : I->opcode == BRIG_OPCODE_GRIDSIZE ? query::GridSize
                                            : query::GridGroups;
    auto V = PerDim(Name);
    if (!V)
      return V.takeError();
    R = *V;
    break;
  }
  case BRIG_OPCODE_WORKITEMABSID: {
    auto D = Dim();
    if (!D)
      return D.takeError();
    // Absolute ids are 32-bit in HSAIL's u32 form; u64 widens first.
    llvm::Type *Ty = llvmType(T);
    Value *G = Builder.CreateZExt(callQuery(query::WorkGroupId, I32, {*D}), Ty);
    Value *S =
        Builder.CreateZExt(callQuery(query::WorkGroupSize, I32, {*D}), Ty);
    Value *L = Builder.CreateZExt(callQuery(query::WorkItemId, I32, {*D}), Ty);
    R = Builder.CreateAdd(Builder.CreateMul(G, S), L);
    break;
  }
  case BRIG_OPCODE_DIM:
    R = callQuery(query::Dim, I32);
    break;
  case BRIG_OPCODE_WORKITEMFLATID:
  case BRIG_OPCODE_CURRENTWORKITEMFLATID: {
    const char *SizeQ = I->opcode == BRIG_OPCODE_WORKITEMFLATID
                            ? query::WorkGroupSize
                            : query::CurrentWorkGroupSize;
    Value *X = Of(query::WorkItemId, 0), *Y = Of(query::WorkItemId, 1),
          *Z = Of(query::WorkItemId, 2);
    Value *SX = Of(SizeQ, 0), *SY = Of(SizeQ, 1);
    R = Builder.CreateAdd(
        X,
        Builder.CreateMul(SX, Builder.CreateAdd(Y, Builder.CreateMul(Z, SY))));
    break;
  }
  case BRIG_OPCODE_WORKITEMFLATABSID: {
    llvm::Type *Ty = llvmType(T);
    Value *Abs[3];
    for (unsigned D = 0; D < 3; ++D)
      Abs[D] = Builder.CreateAdd(
          Builder.CreateMul(
              Builder.CreateZExt(Of(query::WorkGroupId, D), Ty),
              Builder.CreateZExt(Of(query::WorkGroupSize, D), Ty)),
          Builder.CreateZExt(Of(query::WorkItemId, D), Ty));
    Value *GX = Builder.CreateZExt(Of(query::GridSize, 0), Ty);
    Value *GY = Builder.CreateZExt(Of(query::GridSize, 1), Ty);
    R = Builder.CreateAdd(
        Abs[0],
        Builder.CreateMul(
            GX, Builder.CreateAdd(Abs[1], Builder.CreateMul(Abs[2], GY))));
    break;
  }
  case BRIG_OPCODE_PACKETID:
    R = callQuery(query::PacketId, I64);
    break;
  case BRIG_OPCODE_PACKETCOMPLETIONSIG:
    R = callQuery(query::PacketCompletionSig, I64);
    break;
  case BRIG_OPCODE_KERNARGBASEPTR:
    R = Builder.CreatePtrToInt(Kernarg, I64);
    break;
  case BRIG_OPCODE_GROUPBASEPTR:
    // Group segment addresses start at 0.
    R = llvm::ConstantInt::get(I32, 0);
    break;
  case BRIG_OPCODE_NULLPTR: {
    auto Seg = B.code<BrigInstSeg>(I.Offset);
    const bool Relative = Seg && (Seg->segment == BRIG_SEGMENT_GROUP ||
                                  Seg->segment == BRIG_SEGMENT_PRIVATE ||
                                  Seg->segment == BRIG_SEGMENT_SPILL ||
                                  Seg->segment == BRIG_SEGMENT_KERNARG ||
                                  Seg->segment == BRIG_SEGMENT_ARG);
    // PRM 4.4.2: segment null is all ones only for group/private... it is
    // 0 for flat and global; segment addresses use 0 as well on this
    // target (their bases are never 0).
    (void)Relative;
    R = llvm::ConstantInt::get(llvmType(T), 0);
    break;
  }
  case BRIG_OPCODE_LANEID:
  case BRIG_OPCODE_WAVEID:
  case BRIG_OPCODE_MAXWAVEID:
    // One work-item per wavefront: lane 0; the wavefront id is the flat id.
    if (I->opcode == BRIG_OPCODE_LANEID)
      R = llvm::ConstantInt::get(I32, 0);
    else {
      Value *X = Of(query::WorkItemId, 0), *Y = Of(query::WorkItemId, 1),
            *Z = Of(query::WorkItemId, 2);
      Value *SX = Of(query::WorkGroupSize, 0),
            *SY = Of(query::WorkGroupSize, 1);
      Value *Flat = Builder.CreateAdd(
          X, Builder.CreateMul(SX,
                               Builder.CreateAdd(Y, Builder.CreateMul(Z, SY))));
      R = I->opcode == BRIG_OPCODE_WAVEID
              ? Flat
              : Builder.CreateSub(
                    Builder.CreateMul(
                        SX, Builder.CreateMul(SY, Of(query::WorkGroupSize, 2))),
                    llvm::ConstantInt::get(I32, 1));
    }
    break;
  default:
    return failInst(I, "not supported by this finalizer yet");
  }
  llvm::Type *Ty = llvmType(T);
  if (R->getType() != Ty)
    R = Builder.CreateZExtOrTrunc(R, Ty);
  return write(I, 0, R, T);
}

} // namespace openhsa::finalizer::detail
