//===- finalizer/LowerControl.cpp - Branches and barriers -----------------===//
#include "finalizer/KernelLowering.h"

namespace openhsa::finalizer::detail {

std::optional<llvm::Error>
KernelLowering::tryControl(EntryRef<BrigInstBase> I) {
  switch (I->opcode) {
  case BRIG_OPCODE_BR:
  case BRIG_OPCODE_CBR:
  case BRIG_OPCODE_SBR:
  case BRIG_OPCODE_RET:
    return lowerBranch(I);
  case BRIG_OPCODE_WAVEBARRIER:
    // Also on the CPU with wavefronts wider than a work-item: the call marks
    // a kernel that needs its wavefronts in lockstep (CpuTarget.cpp), and
    // the work-item vectorizer, whose lanes are in lockstep, drops it.
    if (P.nativeBarriers() || P.wavefrontSize() > 1)
      return nativeBarrier(query::WaveBarrier);
    return llvm::Error::success(); // Wavefronts of one work-item.
  case BRIG_OPCODE_BARRIER: {
    if (P.nativeBarriers() || Lockstep)
      return nativeBarrier(query::Barrier);
    // End this region; the next starts after the barrier (see run()).
    auto *Resume = llvm::BasicBlock::Create(Ctx, "barrier");
    Resumes.push_back(Resume);
    Builder.CreateRet(Builder.getInt32(Resumes.size()));
    startBlock(Resume);
    return llvm::Error::success();
  }
  default:
    return std::nullopt;
  }
}

llvm::Error KernelLowering::nativeBarrier(const char *Query) {
  // The target's barrier: convergent, so LLVM neither duplicates it into
  // divergent paths nor moves it across control flow.
  llvm::FunctionCallee Fn = P.module().getOrInsertFunction(
      Query, llvm::FunctionType::get(Builder.getVoidTy(), {WorkItem->getType()},
                                     false));
  llvm::cast<llvm::Function>(Fn.getCallee())
      ->addFnAttr(llvm::Attribute::Convergent);
  Builder.CreateCall(Fn, {WorkItem})->addFnAttr(llvm::Attribute::Convergent);
  return llvm::Error::success();
}

llvm::Error KernelLowering::lowerBranch(EntryRef<BrigInstBase> I) {
  switch (I->opcode) {
  case BRIG_OPCODE_RET:
    emitReturn();
    return llvm::Error::success();
  case BRIG_OPCODE_BR: {
    auto T = labelTarget(I, 0);
    if (!T)
      return T.takeError();
    Builder.CreateBr(*T);
    return llvm::Error::success();
  }
  case BRIG_OPCODE_CBR: {
    auto C = read(I, 0, BRIG_TYPE_B1);
    if (!C)
      return C.takeError();
    auto T = labelTarget(I, 1);
    if (!T)
      return T.takeError();
    auto *Fall = llvm::BasicBlock::Create(Ctx, "fall");
    Builder.CreateCondBr(*C, *T, Fall);
    startBlock(Fall);
    return llvm::Error::success();
  }
  case BRIG_OPCODE_SBR: {
    // PRM 8.2: to the label at the index in the list. An index past the
    // list is undefined in HSAIL; here it falls through to the next
    // instruction, which keeps the work-item's behaviour deterministic.
    auto Index = read(I, 0, I->type);
    if (!Index)
      return Index.takeError();
    auto List = B.operand<BrigOperandCodeList>(operandOffset(I, 1));
    if (!List)
      return failInst(I, "the switch targets are not a label list");
    OffsetList Refs = B.offsetList(List->elements);
    llvm::SmallVector<llvm::BasicBlock *, 8> Targets;
    for (unsigned J = 0; J < Refs.size(); ++J) {
      auto It = Labels.find(Refs[J]);
      if (It == Labels.end())
        return failInst(I, "switch target " + llvm::Twine(J) +
                               " is not a label of this code block");
      Targets.push_back(It->second);
    }
    auto *Fall = llvm::BasicBlock::Create(Ctx, "sbr.past");
    auto *IndexTy = llvm::cast<llvm::IntegerType>((*Index)->getType());
    llvm::SwitchInst *Switch =
        Builder.CreateSwitch(*Index, Fall, Targets.size());
    for (unsigned J = 0; J < Targets.size(); ++J)
      Switch->addCase(llvm::ConstantInt::get(IndexTy, J), Targets[J]);
    startBlock(Fall);
    return llvm::Error::success();
  }
  }
  return failInst(I, "not supported by this finalizer yet");
}

} // namespace openhsa::finalizer::detail
