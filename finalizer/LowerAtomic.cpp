//===- finalizer/LowerAtomic.cpp - atomic, atomicnoret, memfence ----------===//
//
// HSAIL atomics become LLVM atomics (PRM 6.6, 6.7, 6.9), on global, group
// and flat addresses alike: the host has one coherent memory, so the group
// segment's atomics need no other treatment, and every scope (wave, wg,
// agent, system) is performed as system scope, which is always allowed.
// A GPU target gets the scopes (LoweringOptions::ScopedAtomics): only its
// system-scope atomics are atomic with the host's.
//
// Memory orders: rlx is monotonic. The synchronizing orders scacq, screl
// and scar are sequentially consistent in HSA - all synchronizing
// instructions form one total order (PRM 6.2.1) - so they are seq_cst,
// which on x86-64 costs nothing over acquire/release except for stores
// (xchg). memfence: scacq is an acquire fence, screl a release fence, scar
// a seq_cst fence.
//
//===----------------------------------------------------------------------===//
#include "finalizer/KernelLowering.h"

namespace openhsa::finalizer::detail {

std::optional<llvm::Error> KernelLowering::tryAtomic(EntryRef<BrigInstBase> I) {
  const unsigned Op = I->opcode;
  if (Op == BRIG_OPCODE_MEMFENCE) {
    auto Fence = B.code<BrigInstMemFence>(I.Offset);
    if (!Fence)
      return failInst(I, "malformed memfence");
    llvm::AtomicOrdering Order;
    switch (Fence->memoryOrder) {
    case BRIG_MEMORY_ORDER_SC_ACQUIRE:
      Order = llvm::AtomicOrdering::Acquire;
      break;
    case BRIG_MEMORY_ORDER_SC_RELEASE:
      Order = llvm::AtomicOrdering::Release;
      break;
    case BRIG_MEMORY_ORDER_SC_ACQUIRE_RELEASE:
      Order = llvm::AtomicOrdering::SequentiallyConsistent;
      break;
    default:
      return failInst(I, "memory order '" +
                             llvm::Twine(memoryOrderName(Fence->memoryOrder)) +
                             "' is not valid for memfence");
    }
    Builder.CreateFence(Order, P.syncScope(Fence->globalSegmentMemoryScope));
    return llvm::Error::success();
  }
  if (Op != BRIG_OPCODE_ATOMIC && Op != BRIG_OPCODE_ATOMICNORET)
    return std::nullopt;

  auto A = B.code<BrigInstAtomic>(I.Offset);
  if (!A)
    return failInst(I, "malformed atomic instruction");
  const bool Returns = Op == BRIG_OPCODE_ATOMIC;
  const unsigned T = I->type;
  const unsigned Bits = typeBits(T);
  if (isPacked(T) || isFloat(T) || (Bits != 32 && Bits != 64))
    return failInst(I, "atomics on type '" + llvm::Twine(typeName(T)) +
                           "' are not supported (32- and 64-bit integers "
                           "only)");
  switch (A->segment) {
  case BRIG_SEGMENT_GLOBAL:
  case BRIG_SEGMENT_GROUP:
  case BRIG_SEGMENT_FLAT:
    break;
  default:
    return failInst(I, "atomics in segment '" +
                           llvm::Twine(segmentName(A->segment)) +
                           "' are not supported (global, group and flat "
                           "only)");
  }
  llvm::AtomicOrdering Order;
  switch (A->memoryOrder) {
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
                           llvm::Twine(memoryOrderName(A->memoryOrder)) +
                           "' is not valid for atomics");
  }
  const unsigned AtomicOp = A->atomicOperation;
  // Operand positions: atomic has dest first.
  const unsigned AddrIdx = Returns ? 1 : 0;
  const unsigned SrcIdx = AddrIdx + 1;
  const llvm::Align Align(Bits / 8);
  auto *Ty = llvm::Type::getIntNTy(Ctx, Bits);

  // Which forms exist (PRM 6.6.1, 6.7.1): ld only returns, st never does,
  // exch and cas only return.
  if ((AtomicOp == BRIG_ATOMIC_ST && Returns) ||
      (!Returns &&
       (AtomicOp == BRIG_ATOMIC_LD || AtomicOp == BRIG_ATOMIC_EXCH ||
        AtomicOp == BRIG_ATOMIC_CAS)))
    return failInst(I, "atomic operation '" +
                           llvm::Twine(atomicOpName(AtomicOp)) +
                           (Returns ? "' exists only as atomicnoret"
                                    : "' has no atomicnoret form"));

  auto Addr = address(I, AddrIdx, A->segment);
  if (!Addr)
    return Addr.takeError();
  auto Src = [&](unsigned Index) { return read(I, Index, T); };
  const llvm::SyncScope::ID Scope = P.syncScope(A->memoryScope);

  Value *Result = nullptr;
  switch (AtomicOp) {
  case BRIG_ATOMIC_LD: {
    auto *Load = Builder.CreateAlignedLoad(Ty, *Addr, Align);
    Load->setAtomic(Order, Scope);
    Result = Load;
    break;
  }
  case BRIG_ATOMIC_ST: {
    auto V = Src(SrcIdx);
    if (!V)
      return V.takeError();
    auto *Store = Builder.CreateAlignedStore(*V, *Addr, Align);
    Store->setAtomic(Order, Scope);
    return llvm::Error::success();
  }
  case BRIG_ATOMIC_CAS: {
    auto Cmp = Src(SrcIdx);
    if (!Cmp)
      return Cmp.takeError();
    auto New = Src(SrcIdx + 1);
    if (!New)
      return New.takeError();
    auto *Pair = Builder.CreateAtomicCmpXchg(
        *Addr, *Cmp, *New, Align, Order,
        llvm::AtomicCmpXchgInst::getStrongestFailureOrdering(Order), Scope);
    Result = Builder.CreateExtractValue(Pair, 0);
    break;
  }
  default: {
    llvm::AtomicRMWInst::BinOp RMW;
    const bool Signed = isSigned(T);
    switch (AtomicOp) {
    case BRIG_ATOMIC_ADD:
      RMW = llvm::AtomicRMWInst::Add;
      break;
    case BRIG_ATOMIC_SUB:
      RMW = llvm::AtomicRMWInst::Sub;
      break;
    case BRIG_ATOMIC_AND:
      RMW = llvm::AtomicRMWInst::And;
      break;
    case BRIG_ATOMIC_OR:
      RMW = llvm::AtomicRMWInst::Or;
      break;
    case BRIG_ATOMIC_XOR:
      RMW = llvm::AtomicRMWInst::Xor;
      break;
    case BRIG_ATOMIC_EXCH:
      RMW = llvm::AtomicRMWInst::Xchg;
      break;
    case BRIG_ATOMIC_MAX:
      RMW = Signed ? llvm::AtomicRMWInst::Max : llvm::AtomicRMWInst::UMax;
      break;
    case BRIG_ATOMIC_MIN:
      RMW = Signed ? llvm::AtomicRMWInst::Min : llvm::AtomicRMWInst::UMin;
      break;
    // LLVM's wrapping forms are exactly HSAIL's (PRM 6.6.2):
    //   uinc_wrap: old >= v ? 0 : old + 1
    //   udec_wrap: (old == 0 || old > v) ? v : old - 1
    case BRIG_ATOMIC_WRAPINC:
      RMW = llvm::AtomicRMWInst::UIncWrap;
      break;
    case BRIG_ATOMIC_WRAPDEC:
      RMW = llvm::AtomicRMWInst::UDecWrap;
      break;
    default:
      return failInst(I, "atomic operation '" +
                             llvm::Twine(atomicOpName(AtomicOp)) +
                             "' is not supported");
    }
    auto V = Src(SrcIdx);
    if (!V)
      return V.takeError();
    Result = Builder.CreateAtomicRMW(RMW, *Addr, *V, Align, Order, Scope);
    break;
  }
  }
  if (!Returns)
    return llvm::Error::success();
  return write(I, 0, Result, T);
}

} // namespace openhsa::finalizer::detail
