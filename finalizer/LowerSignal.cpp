//===- finalizer/LowerSignal.cpp - signal, signalnoret --------------------===//
//
// PRM 6.8. A signal handle is the address of the runtime's signal object,
// whose 64-bit value lies at offset 0 (runtime/core/Signal.h). Reads are
// inline atomic loads of that value. Modifications must also wake whoever
// is blocked on the signal (host threads in hsa_signal_wait_*, packet
// processors watching a doorbell or a barrier's dependency), which only
// the runtime knows how to do: they are one call to its SignalModify
// helper, which performs the atomic read-modify-write (sequentially
// consistent, which satisfies every order) and the wake-up, just as the
// runtime's hsa_signal_* functions do. Waits first test the value inline;
// only a wait that is not already satisfied calls the runtime's SignalWait,
// which spins briefly, then blocks the work-item's thread until the value
// changes or the timeout passes.
//
// sig32 (small machine model) values are the low half of the runtime's
// 64-bit value; the runtime keeps them sign-extended.
//
//===----------------------------------------------------------------------===//
#include "finalizer/KernelLowering.h"
#include "finalizer/RuntimeHelpers.h"

#include "hsa/hsa.h"

namespace openhsa::finalizer::detail {

std::optional<llvm::Error> KernelLowering::trySignal(EntryRef<BrigInstBase> I) {
  const unsigned Op = I->opcode;
  if (Op != BRIG_OPCODE_SIGNAL && Op != BRIG_OPCODE_SIGNALNORET)
    return std::nullopt;
  auto S = B.code<BrigInstSignal>(I.Offset);
  if (!S)
    return failInst(I, "malformed signal instruction");
  const bool Returns = Op == BRIG_OPCODE_SIGNAL;
  const unsigned T = I->type;
  const unsigned Bits = typeBits(T);
  const unsigned SignalBits = S->signalType == BRIG_TYPE_SIG64   ? 64
                              : S->signalType == BRIG_TYPE_SIG32 ? 32
                                                                 : 0;
  if (!SignalBits)
    return failInst(I, "the signal type must be sig32 or sig64");
  if (isPacked(T) || isFloat(T) || Bits != SignalBits)
    return failInst(I, "type '" + llvm::Twine(typeName(T)) +
                           "' does not match the signal value of '" +
                           typeName(S->signalType) + "'");
  llvm::AtomicOrdering Order;
  switch (S->memoryOrder) {
  case BRIG_MEMORY_ORDER_RELAXED:
    Order = llvm::AtomicOrdering::Monotonic;
    break;
  case BRIG_MEMORY_ORDER_SC_ACQUIRE:
  case BRIG_MEMORY_ORDER_SC_RELEASE:
  case BRIG_MEMORY_ORDER_SC_ACQUIRE_RELEASE:
    Order = llvm::AtomicOrdering::SequentiallyConsistent;
    break;
  default:
    return failInst(I, "memory order '" +
                           llvm::Twine(memoryOrderName(S->memoryOrder)) +
                           "' is not valid for signals");
  }

  const unsigned SigOp = S->signalOperation;
  const bool IsWait =
      SigOp >= BRIG_ATOMIC_WAIT_EQ && SigOp <= BRIG_ATOMIC_WAITTIMEOUT_GTE;
  const bool HasTimeout = SigOp >= BRIG_ATOMIC_WAITTIMEOUT_EQ &&
                          SigOp <= BRIG_ATOMIC_WAITTIMEOUT_GTE;
  // Forms (PRM 6.8.1): ld, exch, cas and the waits return; st does not.
  if ((SigOp == BRIG_ATOMIC_ST && Returns) ||
      (!Returns && (SigOp == BRIG_ATOMIC_LD || SigOp == BRIG_ATOMIC_EXCH ||
                    SigOp == BRIG_ATOMIC_CAS || IsWait)))
    return failInst(I, "signal operation '" + llvm::Twine(atomicOpName(SigOp)) +
                           (Returns ? "' exists only as signalnoret"
                                    : "' has no signalnoret form"));

  auto *I32 = llvm::Type::getInt32Ty(Ctx);
  auto *I64 = llvm::Type::getInt64Ty(Ctx);
  auto *Ty = llvm::Type::getIntNTy(Ctx, Bits);
  const unsigned HandleIdx = Returns ? 1 : 0;
  const unsigned SrcIdx = HandleIdx + 1;
  auto Handle = read(I, HandleIdx, BRIG_TYPE_U64);
  if (!Handle)
    return Handle.takeError();
  Value *ValuePtr = Builder.CreateIntToPtr(*Handle, Builder.getPtrTy());
  auto Widen = [&](Value *V) {
    return Bits == 64 ? V : Builder.CreateSExt(V, I64);
  };
  auto Narrow = [&](Value *V) {
    return Bits == 64 ? V : Builder.CreateTrunc(V, Ty);
  };
  auto CallHelper = [&](const char *Name, llvm::Type *Ret,
                        llvm::ArrayRef<Value *> Args) {
    llvm::SmallVector<llvm::Type *, 5> Params;
    for (Value *A : Args)
      Params.push_back(A->getType());
    auto Callee = P.module().getOrInsertFunction(
        Name, llvm::FunctionType::get(Ret, Params, false));
    auto *Call = Builder.CreateCall(Callee, Args);
    Call->setDoesNotThrow();
    return Call;
  };
  // The value: at offset 0, the low half for sig32 (little-endian hosts).
  auto LoadValue = [&]() {
    auto *Load = Builder.CreateAlignedLoad(Ty, ValuePtr, llvm::Align(Bits / 8));
    Load->setAtomic(Order);
    return Load;
  };

  if (SigOp == BRIG_ATOMIC_LD)
    return write(I, 0, LoadValue(), T);

  if (IsWait) {
    auto Cmp = read(I, SrcIdx, T);
    if (!Cmp)
      return Cmp.takeError();
    Value *Timeout = llvm::ConstantInt::get(I64, UINT64_MAX);
    if (HasTimeout) {
      auto TO = read(I, SrcIdx + 1, BRIG_TYPE_U64);
      if (!TO)
        return TO.takeError();
      Timeout = *TO;
    }
    hsa_signal_condition_t Condition;
    llvm::CmpInst::Predicate Pred;
    switch (SigOp) {
    case BRIG_ATOMIC_WAIT_EQ:
    case BRIG_ATOMIC_WAITTIMEOUT_EQ:
      Condition = HSA_SIGNAL_CONDITION_EQ;
      Pred = llvm::CmpInst::ICMP_EQ;
      break;
    case BRIG_ATOMIC_WAIT_NE:
    case BRIG_ATOMIC_WAITTIMEOUT_NE:
      Condition = HSA_SIGNAL_CONDITION_NE;
      Pred = llvm::CmpInst::ICMP_NE;
      break;
    case BRIG_ATOMIC_WAIT_LT:
    case BRIG_ATOMIC_WAITTIMEOUT_LT:
      Condition = HSA_SIGNAL_CONDITION_LT;
      Pred = llvm::CmpInst::ICMP_SLT;
      break;
    default:
      Condition = HSA_SIGNAL_CONDITION_GTE;
      Pred = llvm::CmpInst::ICMP_SGE;
      break;
    }
    // Already satisfied: no call. Otherwise the runtime blocks.
    Value *Fast = LoadValue();
    auto *Block = llvm::BasicBlock::Create(Ctx, "signal.block", F);
    auto *Done = llvm::BasicBlock::Create(Ctx, "signal.done");
    llvm::BasicBlock *FastEnd = Builder.GetInsertBlock();
    Builder.CreateCondBr(Builder.CreateICmp(Pred, Fast, *Cmp), Done, Block);
    Builder.SetInsertPoint(Block);
    Value *Slow = Narrow(
        CallHelper(helper::SignalWait, I64,
                   {*Handle, llvm::ConstantInt::get(I32, Condition),
                    Widen(*Cmp), Timeout, llvm::ConstantInt::get(I32, Bits)}));
    llvm::BasicBlock *SlowEnd = Builder.GetInsertBlock();
    startBlock(Done);
    llvm::PHINode *Result = Builder.CreatePHI(Ty, 2);
    Result->addIncoming(Fast, FastEnd);
    Result->addIncoming(Slow, SlowEnd);
    return write(I, 0, Result, T);
  }

  SignalOp Modify;
  switch (SigOp) {
  case BRIG_ATOMIC_ST:
    Modify = SignalOp::Store;
    break;
  case BRIG_ATOMIC_EXCH:
    Modify = SignalOp::Exchange;
    break;
  case BRIG_ATOMIC_CAS:
    Modify = SignalOp::CompareExchange;
    break;
  case BRIG_ATOMIC_ADD:
    Modify = SignalOp::Add;
    break;
  case BRIG_ATOMIC_SUB:
    Modify = SignalOp::Sub;
    break;
  case BRIG_ATOMIC_AND:
    Modify = SignalOp::And;
    break;
  case BRIG_ATOMIC_OR:
    Modify = SignalOp::Or;
    break;
  case BRIG_ATOMIC_XOR:
    Modify = SignalOp::Xor;
    break;
  default:
    return failInst(I, "signal operation '" + llvm::Twine(atomicOpName(SigOp)) +
                           "' is not supported");
  }
  // cas: operand src0 is the value compared, src1 the value stored.
  Value *Operand = nullptr, *Compare = llvm::ConstantInt::get(I64, 0);
  if (Modify == SignalOp::CompareExchange) {
    auto C = read(I, SrcIdx, T);
    if (!C)
      return C.takeError();
    auto V = read(I, SrcIdx + 1, T);
    if (!V)
      return V.takeError();
    Compare = Widen(*C);
    Operand = Widen(*V);
  } else {
    auto V = read(I, SrcIdx, T);
    if (!V)
      return V.takeError();
    Operand = Widen(*V);
  }
  Value *Old =
      CallHelper(helper::SignalModify, I64,
                 {*Handle, llvm::ConstantInt::get(I32, uint32_t(Modify)),
                  Operand, Compare, llvm::ConstantInt::get(I32, Bits)});
  if (!Returns)
    return llvm::Error::success();
  return write(I, 0, Narrow(Old), T);
}

} // namespace openhsa::finalizer::detail
