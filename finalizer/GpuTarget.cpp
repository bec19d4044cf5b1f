//===- finalizer/GpuTarget.cpp - Kernels for NVIDIA GPU agents
//-------------===//
#include "finalizer/GpuTarget.h"
#include "abi/GpuKernelAbi.h"
#include "finalizer/AtomicUpdate.h"
#include "finalizer/Codegen.h"
#include "finalizer/FloatEmitter.h"
#include "finalizer/RuntimeHelpers.h"
#include "hsa/hsa.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <mutex>

extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTarget();
extern "C" void LLVMInitializeNVPTXTargetMC();
extern "C" void LLVMInitializeNVPTXAsmPrinter();

namespace openhsa::finalizer {

namespace {
/// The newest compute capability LLVM 19's NVPTX back end knows; PTX for it
/// runs on newer devices (the driver compiles it for them).
constexpr unsigned NewestKnownSm = 90;
constexpr const char *GroupSegmentName = "__openhsa_group_segment";

// The work-item state of the entry for the body: { ptr params, ptr private
// block }. Inlined queries read it; SROA turns it into SSA values.
llvm::StructType *workItemType(llvm::LLVMContext &C) {
  auto *Ptr = llvm::PointerType::get(C, 0);
  return llvm::StructType::get(C, {Ptr, Ptr});
}

template <typename FillFn>
void defineQuery(llvm::Module &M, const char *Name, FillFn Fill) {
  llvm::Function *F = M.getFunction(Name);
  if (!F || !F->isDeclaration())
    return;
  F->setLinkage(llvm::GlobalValue::InternalLinkage);
  F->addFnAttr(llvm::Attribute::AlwaysInline);
  F->setDoesNotThrow();
  llvm::IRBuilder<> B(llvm::BasicBlock::Create(M.getContext(), "entry", F));
  llvm::Value *R = Fill(B, F);
  if (R)
    B.CreateRet(R);
  else
    B.CreateRetVoid();
}

llvm::Value *sreg(llvm::IRBuilder<> &B, llvm::Intrinsic::ID X,
                  llvm::Intrinsic::ID Y, llvm::Intrinsic::ID Z,
                  llvm::Value *Dim) {
  llvm::Value *VX = B.CreateIntrinsic(X, {}, {});
  llvm::Value *VY = B.CreateIntrinsic(Y, {}, {});
  llvm::Value *VZ = B.CreateIntrinsic(Z, {}, {});
  return B.CreateSelect(
      B.CreateICmpEQ(Dim, B.getInt32(1)), VY,
      B.CreateSelect(B.CreateICmpEQ(Dim, B.getInt32(2)), VZ, VX));
}

/// A field of the dispatch parameters; Dim indexes a [3 x i32] field.
llvm::Value *param(llvm::IRBuilder<> &B, llvm::Value *Wi, unsigned Offset,
                   llvm::Type *Ty, llvm::Value *Dim = nullptr) {
  llvm::Value *Params = B.CreateLoad(
      B.getPtrTy(), B.CreateStructGEP(workItemType(B.getContext()), Wi, 0));
  llvm::Value *P = B.CreateConstGEP1_32(B.getInt8Ty(), Params, Offset);
  if (Dim)
    P = B.CreateGEP(B.getInt32Ty(), P,
                    B.CreateSelect(B.CreateICmpULT(Dim, B.getInt32(3)), Dim,
                                   B.getInt32(0)));
  llvm::LoadInst *L = B.CreateLoad(Ty, P);
  L->setMetadata(llvm::LLVMContext::MD_invariant_load,
                 llvm::MDNode::get(B.getContext(), {}));
  return L;
}

void defineQueries(llvm::Module &M) {
  namespace I = llvm::Intrinsic;
  using B_ = llvm::IRBuilder<>;
  using F_ = llvm::Function;
  defineQuery(M, query::WorkItemId, [](B_ &B, F_ *F) {
    return sreg(B, I::nvvm_read_ptx_sreg_tid_x, I::nvvm_read_ptx_sreg_tid_y,
                I::nvvm_read_ptx_sreg_tid_z, F->getArg(1));
  });
  defineQuery(M, query::CurrentWorkGroupSize, [](B_ &B, F_ *F) {
    // min(work-group size, grid size - group id * work-group size): the
    // launch's blocks may be whole ones past the grid's end.
    llvm::Value *Wg = param(B, F->getArg(0), gpu::params::WorkgroupSize,
                            B.getInt32Ty(), F->getArg(1));
    llvm::Value *Grid = param(B, F->getArg(0), gpu::params::GridSize,
                              B.getInt32Ty(), F->getArg(1));
    llvm::Value *Group = B.CreateAdd(
        sreg(B, I::nvvm_read_ptx_sreg_ctaid_x, I::nvvm_read_ptx_sreg_ctaid_y,
             I::nvvm_read_ptx_sreg_ctaid_z, F->getArg(1)),
        param(B, F->getArg(0), gpu::params::GroupOffset, B.getInt32Ty(),
              F->getArg(1)));
    llvm::Value *Left = B.CreateSub(Grid, B.CreateMul(Group, Wg));
    return B.CreateSelect(B.CreateICmpULT(Left, Wg), Left, Wg);
  });
  defineQuery(M, query::WorkGroupId, [](B_ &B, F_ *F) {
    return B.CreateAdd(sreg(B, I::nvvm_read_ptx_sreg_ctaid_x,
                            I::nvvm_read_ptx_sreg_ctaid_y,
                            I::nvvm_read_ptx_sreg_ctaid_z, F->getArg(1)),
                       param(B, F->getArg(0), gpu::params::GroupOffset,
                             B.getInt32Ty(), F->getArg(1)));
  });
  defineQuery(M, query::WorkGroupSize, [](B_ &B, F_ *F) {
    return param(B, F->getArg(0), gpu::params::WorkgroupSize, B.getInt32Ty(),
                 F->getArg(1));
  });
  defineQuery(M, query::GridSize, [](B_ &B, F_ *F) {
    return param(B, F->getArg(0), gpu::params::GridSize, B.getInt32Ty(),
                 F->getArg(1));
  });
  defineQuery(M, query::GridGroups, [](B_ &B, F_ *F) {
    llvm::Value *G = param(B, F->getArg(0), gpu::params::GridSize,
                           B.getInt32Ty(), F->getArg(1));
    llvm::Value *W = param(B, F->getArg(0), gpu::params::WorkgroupSize,
                           B.getInt32Ty(), F->getArg(1));
    // ceil(G / W) without overflow.
    return B.CreateAdd(
        B.CreateUDiv(G, W),
        B.CreateZExt(B.CreateICmpNE(B.CreateURem(G, W), B.getInt32(0)),
                     B.getInt32Ty()));
  });
  defineQuery(M, query::Dim, [](B_ &B, F_ *F) {
    return param(B, F->getArg(0), gpu::params::Dimensions, B.getInt32Ty());
  });
  defineQuery(M, query::PacketId, [](B_ &B, F_ *F) {
    return param(B, F->getArg(0), gpu::params::PacketId, B.getInt64Ty());
  });
  defineQuery(M, query::PacketCompletionSig, [](B_ &B, F_ *F) {
    return param(B, F->getArg(0), gpu::params::CompletionSignal,
                 B.getInt64Ty());
  });
  defineQuery(M, query::Queue, [](B_ &B, F_ *F) {
    return B.CreateIntToPtr(
        param(B, F->getArg(0), gpu::params::Queue, B.getInt64Ty()),
        B.getPtrTy());
  });
  defineQuery(M, query::GroupSegmentSize, [](B_ &B, F_ *F) {
    return param(B, F->getArg(0), gpu::params::GroupSegmentSize,
                 B.getInt32Ty());
  });
  defineQuery(M, query::PrivateSegmentSize, [](B_ &B, F_ *F) {
    return param(B, F->getArg(0), gpu::params::PrivateSegmentSize,
                 B.getInt32Ty());
  });
  defineQuery(M, query::ComputeUnitId, [](B_ &B, F_ *) {
    return B.CreateIntrinsic(I::nvvm_read_ptx_sreg_smid, {}, {});
  });
  defineQuery(M, query::MaxComputeUnitId, [](B_ &B, F_ *) {
    return B.CreateSub(B.CreateIntrinsic(I::nvvm_read_ptx_sreg_nsmid, {}, {}),
                       B.getInt32(1));
  });
  defineQuery(M, query::GroupBase, [&M](B_ &B, F_ *) -> llvm::Value * {
    // The dynamic shared memory of the launch, as a generic address.
    auto *Ty = llvm::ArrayType::get(B.getInt8Ty(), 0);
    auto *GV = M.getNamedGlobal(GroupSegmentName);
    if (!GV) {
      GV = new llvm::GlobalVariable(
          M, Ty, false, llvm::GlobalValue::ExternalLinkage, nullptr,
          GroupSegmentName, nullptr, llvm::GlobalValue::NotThreadLocal, 3);
      GV->setAlignment(llvm::Align(16));
    }
    return B.CreateAddrSpaceCast(GV, B.getPtrTy());
  });
  defineQuery(M, query::PrivateBase, [](B_ &B, F_ *F) {
    return B.CreateLoad(
        B.getPtrTy(),
        B.CreateStructGEP(workItemType(B.getContext()), F->getArg(0), 1));
  });
  defineQuery(M, query::Barrier, [](B_ &B, F_ *) -> llvm::Value * {
    B.CreateIntrinsic(I::nvvm_barrier0, {}, {});
    return nullptr;
  });
  defineQuery(M, query::WaveBarrier, [](B_ &B, F_ *) -> llvm::Value * {
    // The lanes of the wavefront that exist (past the grid's end a lane
    // may have returned).
    B.CreateIntrinsic(I::nvvm_bar_warp_sync, {},
                      {B.CreateIntrinsic(I::nvvm_activemask, {}, {})});
    return nullptr;
  });
  defineQuery(M, query::WaveLaneId, [](B_ &B, F_ *) {
    return B.CreateIntrinsic(I::nvvm_read_ptx_sreg_laneid, {}, {});
  });
  defineQuery(M, query::WaveBallot, [](B_ &B, F_ *F) {
    llvm::Value *Active = B.CreateIntrinsic(I::nvvm_activemask, {}, {});
    return B.CreateZExt(
        B.CreateIntrinsic(I::nvvm_vote_ballot_sync, {}, {Active, F->getArg(1)}),
        B.getInt64Ty());
  });
  auto Shuffle32 = [](B_ &B, llvm::Value *V, llvm::Value *Lane) {
    llvm::Value *Active = B.CreateIntrinsic(I::nvvm_activemask, {}, {});
    return B.CreateIntrinsic(I::nvvm_shfl_sync_idx_i32, {},
                             {Active, V, Lane, B.getInt32(31)});
  };
  defineQuery(M, query::WaveShuffle32, [&](B_ &B, F_ *F) {
    return Shuffle32(B, F->getArg(1), F->getArg(2));
  });
  defineQuery(M, query::WaveShuffle64, [&](B_ &B, F_ *F) {
    llvm::Value *V = F->getArg(1);
    llvm::Value *Lo =
        Shuffle32(B, B.CreateTrunc(V, B.getInt32Ty()), F->getArg(2));
    llvm::Value *Hi = Shuffle32(
        B, B.CreateTrunc(B.CreateLShr(V, 32), B.getInt32Ty()), F->getArg(2));
    return B.CreateOr(B.CreateZExt(Lo, B.getInt64Ty()),
                      B.CreateShl(B.CreateZExt(Hi, B.getInt64Ty()), 32));
  });
  defineQuery(M, query::Clock, [](B_ &B, F_ *F) {
    // %globaltimer counts nanoseconds; the timestamp is 2 ticks per 5 ns,
    // from an origin the agent measured against the host's.
    llvm::Value *Ns =
        B.CreateIntrinsic(I::nvvm_read_ptx_sreg_globaltimer, {}, {});
    llvm::Value *Ticks =
        B.CreateAdd(B.CreateMul(B.CreateUDiv(Ns, B.getInt64(5)), B.getInt64(2)),
                    B.CreateUDiv(B.CreateMul(B.CreateURem(Ns, B.getInt64(5)),
                                             B.getInt64(2)),
                                 B.getInt64(5)));
    return B.CreateAdd(
        Ticks,
        param(B, F->getArg(0), gpu::params::TimestampOffset, B.getInt64Ty()));
  });
  defineQuery(M, query::Trap, [](B_ &B, F_ *F) -> llvm::Value * {
    // The operand, then the flag the queue checks as the dispatch ends
    // (system scope: the host reads them).
    llvm::Value *Words = B.CreateIntToPtr(
        param(B, F->getArg(0), gpu::params::TrapWords, B.getInt64Ty()),
        B.getPtrTy());
    auto *Value = B.CreateAlignedStore(
        F->getArg(2), B.CreateConstGEP1_32(B.getInt64Ty(), Words, 1),
        llvm::Align(8));
    Value->setVolatile(true);
    B.CreateIntrinsic(I::nvvm_membar_sys, {}, {});
    auto *Flag = B.CreateAlignedStore(B.getInt64(1), Words, llvm::Align(8));
    Flag->setVolatile(true);
    B.CreateIntrinsic(I::nvvm_membar_sys, {}, {});
    return nullptr;
  });
  for (const char *Name :
       {query::Barrier, query::WaveBarrier, query::WaveBallot,
        query::WaveShuffle32, query::WaveShuffle64})
    if (llvm::Function *F = M.getFunction(Name))
      F->addFnAttr(llvm::Attribute::Convergent);
}

/// The signal helpers (abi/RuntimeHelpers.h) on the device. A handle is
/// the address of the signal, whose 64-bit value comes first; its slab is
/// mapped into the device at the host's address (gpu_backend/GpuSignals.h).
/// Updates are system-scope atomics (sequentially consistent: membar.sys
/// around them, legalizeAtomics). A host thread blocked on the signal
/// cannot be woken from the device: host waits re-check on their own while
/// GPU code that modifies signals is loaded (runtime/core/Signal.cpp).
void defineSignalHelpers(llvm::Module &M) {
  llvm::LLVMContext &C = M.getContext();
  auto *I64 = llvm::Type::getInt64Ty(C);
  auto *I32 = llvm::Type::getInt32Ty(C);
  auto Define = [&](const char *Name) -> llvm::Function * {
    llvm::Function *F = M.getFunction(Name);
    if (!F || !F->isDeclaration())
      return nullptr;
    F->setLinkage(llvm::GlobalValue::InternalLinkage);
    F->setDoesNotThrow();
    return F;
  };
  // int64_t (signal, op, operand, compare, bits) -> old value.
  if (llvm::Function *F = Define(helper::SignalModify)) {
    llvm::IRBuilder<> B(llvm::BasicBlock::Create(C, "entry", F));
    llvm::Value *Ptr = B.CreateIntToPtr(F->getArg(0), B.getPtrTy());
    llvm::Value *Op = F->getArg(1);
    llvm::Value *Is32 = B.CreateICmpEQ(F->getArg(4), B.getInt32(32));
    // sig32: the low 32 bits, kept sign-extended.
    auto Fit = [&](llvm::IRBuilder<> &IB, llvm::Value *V) {
      return IB.CreateSelect(Is32, IB.CreateSExt(IB.CreateTrunc(V, I32), I64),
                             V);
    };
    llvm::Value *Operand = Fit(B, F->getArg(2));
    llvm::Value *Compare = Fit(B, F->getArg(3));
    auto Is = [&](abi::SignalOp O) {
      return B.CreateICmpEQ(Op, B.getInt32(uint32_t(O)));
    };
    llvm::Value *Old = nullptr;
    emitAtomicUpdate(
        B, Ptr, I64, llvm::AtomicOrdering::SequentiallyConsistent,
        llvm::SyncScope::System, [&](llvm::Value *Seen) {
          Old = Fit(B, Seen);
          llvm::Value *New = Operand; // Store and exchange.
          New = B.CreateSelect(
              Is(abi::SignalOp::CompareExchange),
              B.CreateSelect(B.CreateICmpEQ(Old, Compare), Operand, Old), New);
          New = B.CreateSelect(Is(abi::SignalOp::Add),
                               B.CreateAdd(Old, Operand), New);
          New = B.CreateSelect(Is(abi::SignalOp::Sub),
                               B.CreateSub(Old, Operand), New);
          New = B.CreateSelect(Is(abi::SignalOp::And),
                               B.CreateAnd(Old, Operand), New);
          New = B.CreateSelect(Is(abi::SignalOp::Or), B.CreateOr(Old, Operand),
                               New);
          New = B.CreateSelect(Is(abi::SignalOp::Xor),
                               B.CreateXor(Old, Operand), New);
          return Fit(B, New);
        });
    B.CreateRet(Old);
  }
  // int64_t (signal, condition, compare, timeout ticks, bits) -> last value.
  if (llvm::Function *F = Define(helper::SignalWait)) {
    namespace I = llvm::Intrinsic;
    llvm::IRBuilder<> B(llvm::BasicBlock::Create(C, "entry", F));
    llvm::Value *Ptr = B.CreateIntToPtr(F->getArg(0), B.getPtrTy());
    llvm::Value *Cond = F->getArg(1);
    llvm::Value *Is32 = B.CreateICmpEQ(F->getArg(4), B.getInt32(32));
    auto Fit = [&](llvm::Value *V) {
      return B.CreateSelect(Is32, B.CreateSExt(B.CreateTrunc(V, I32), I64), V);
    };
    llvm::Value *Compare = Fit(F->getArg(2));
    // The timeout counts 400 MHz ticks: 5 ns per 2 ticks.
    llvm::Value *Timeout = F->getArg(3);
    llvm::Value *Start =
        B.CreateIntrinsic(I::nvvm_read_ptx_sreg_globaltimer, {}, {});
    auto *Entry = B.GetInsertBlock();
    auto *Loop = llvm::BasicBlock::Create(C, "poll", F);
    auto *Sleep = llvm::BasicBlock::Create(C, "sleep", F);
    auto *Done = llvm::BasicBlock::Create(C, "done", F);
    B.CreateBr(Loop);
    B.SetInsertPoint(Loop);
    llvm::PHINode *Pause = B.CreatePHI(I32, 2);
    Pause->addIncoming(B.getInt32(32), Entry);
    auto *Load = B.CreateAlignedLoad(I64, Ptr, llvm::Align(8));
    Load->setAtomic(llvm::AtomicOrdering::Acquire);
    llvm::Value *V = Fit(Load);
    // hsa_signal_condition_t: EQ, NE, LT, GTE.
    llvm::Value *Holds = B.CreateSelect(
        B.CreateICmpEQ(Cond, B.getInt32(HSA_SIGNAL_CONDITION_EQ)),
        B.CreateICmpEQ(V, Compare),
        B.CreateSelect(
            B.CreateICmpEQ(Cond, B.getInt32(HSA_SIGNAL_CONDITION_NE)),
            B.CreateICmpNE(V, Compare),
            B.CreateSelect(
                B.CreateICmpEQ(Cond, B.getInt32(HSA_SIGNAL_CONDITION_LT)),
                B.CreateICmpSLT(V, Compare), B.CreateICmpSGE(V, Compare))));
    llvm::Value *Now =
        B.CreateIntrinsic(I::nvvm_read_ptx_sreg_globaltimer, {}, {});
    llvm::Value *ElapsedTicks = B.CreateUDiv(
        B.CreateMul(B.CreateSub(Now, Start), B.getInt64(2)), B.getInt64(5));
    llvm::Value *Expired =
        B.CreateAnd(B.CreateICmpNE(Timeout, B.getInt64(UINT64_MAX)),
                    B.CreateICmpUGE(ElapsedTicks, Timeout));
    B.CreateCondBr(B.CreateOr(Holds, Expired), Done, Sleep);
    B.SetInsertPoint(Sleep);
    // Back off up to 4 us between polls of host memory across the bus.
    B.CreateIntrinsic(I::nvvm_nanosleep, {}, {Pause});
    Pause->addIncoming(B.CreateSelect(B.CreateICmpULT(Pause, B.getInt32(4096)),
                                      B.CreateShl(Pause, 1), Pause),
                       Sleep);
    B.CreateBr(Loop);
    B.SetInsertPoint(Done);
    B.CreateRet(V);
  }
}

/// PTX names: letters, digits, '_' and '$' (LLVM would rename others).
std::string ptxName(llvm::StringRef Name) {
  std::string Out;
  for (char C : Name)
    Out +=
        (llvm::isAlnum(C) || C == '_' || C == '$') ? std::string(1, C) : "_$_";
  return Out;
}
} // namespace

/// HSAIL allows memory accesses at any address (PRM 6.1.2); NVIDIA GPUs
/// fault on misaligned ones, and an access LLVM must assume unaligned
/// becomes byte loads. GPU agents take accesses as naturally aligned: a
/// misaligned one faults on the device and the queue reports
/// HSA_STATUS_ERROR_EXCEPTION, never a silent wrong result.
static void assumeNaturalAlignment(llvm::Module &M) {
  const llvm::DataLayout &DL = M.getDataLayout();
  auto Natural = [&](llvm::Type *Ty) {
    uint64_t Bytes = DL.getTypeStoreSize(Ty);
    return llvm::isPowerOf2_64(Bytes) && Bytes <= 16 ? llvm::Align(Bytes)
                                                     : llvm::Align(1);
  };
  for (llvm::Function &F : M)
    for (llvm::Instruction &I : llvm::instructions(F)) {
      if (auto *L = llvm::dyn_cast<llvm::LoadInst>(&I))
        L->setAlignment(std::max(L->getAlign(), Natural(L->getType())));
      else if (auto *S = llvm::dyn_cast<llvm::StoreInst>(&I))
        S->setAlignment(
            std::max(S->getAlign(), Natural(S->getValueOperand()->getType())));
    }
}

/// Whether From calls Target, itself or through the functions it calls.
static bool reaches(llvm::Function *From, llvm::Function *Target) {
  if (!Target)
    return false;
  llvm::SmallPtrSet<llvm::Function *, 16> Seen;
  llvm::SmallVector<llvm::Function *, 16> Work{From};
  while (!Work.empty()) {
    llvm::Function *F = Work.pop_back_val();
    if (!Seen.insert(F).second)
      continue;
    for (llvm::Instruction &I : llvm::instructions(*F))
      if (auto *Call = llvm::dyn_cast<llvm::CallBase>(&I)) {
        llvm::Function *Callee = Call->getCalledFunction();
        if (!Callee) // An indirect call may reach anything.
          return true;
        if (Callee == Target)
          return true;
        if (!Callee->isDeclaration())
          Work.push_back(Callee);
      }
  }
  return false;
}

/// Read-modify-writes of system scope that PTX has no single system-scope
/// instruction for (max, min, wrapping increment and decrement) become
/// compare-and-swap loops, whose compare-and-swap legalizeAtomics then
/// performs at system scope.
static void expandSystemMinMax(llvm::Module &M) {
  llvm::SmallVector<llvm::AtomicRMWInst *, 4> Work;
  for (llvm::Function &F : M)
    for (llvm::Instruction &I : llvm::instructions(F))
      if (auto *R = llvm::dyn_cast<llvm::AtomicRMWInst>(&I);
          R && R->getSyncScopeID() == llvm::SyncScope::System)
        switch (R->getOperation()) {
        case llvm::AtomicRMWInst::Max:
        case llvm::AtomicRMWInst::Min:
        case llvm::AtomicRMWInst::UMax:
        case llvm::AtomicRMWInst::UMin:
        case llvm::AtomicRMWInst::UIncWrap:
        case llvm::AtomicRMWInst::UDecWrap:
          Work.push_back(R);
          break;
        default:
          break;
        }
  for (llvm::AtomicRMWInst *R : Work) {
    llvm::BasicBlock *Block = R->getParent();
    llvm::BasicBlock *Tail = Block->splitBasicBlock(R, "atomic.after");
    Block->getTerminator()->eraseFromParent();
    llvm::IRBuilder<> B(Block);
    llvm::Value *V = R->getValOperand();
    llvm::Value *Old = emitAtomicUpdate(
        B, R->getPointerOperand(), R->getType(), R->getOrdering(),
        llvm::SyncScope::System, [&](llvm::Value *Seen) -> llvm::Value * {
          switch (R->getOperation()) {
          case llvm::AtomicRMWInst::Max:
            return B.CreateSelect(B.CreateICmpSGT(Seen, V), Seen, V);
          case llvm::AtomicRMWInst::Min:
            return B.CreateSelect(B.CreateICmpSLT(Seen, V), Seen, V);
          case llvm::AtomicRMWInst::UMax:
            return B.CreateSelect(B.CreateICmpUGT(Seen, V), Seen, V);
          case llvm::AtomicRMWInst::UMin:
            return B.CreateSelect(B.CreateICmpULT(Seen, V), Seen, V);
          case llvm::AtomicRMWInst::UIncWrap: // old >= v ? 0 : old + 1
            return B.CreateSelect(
                B.CreateICmpUGE(Seen, V),
                llvm::ConstantInt::get(Seen->getType(), 0),
                B.CreateAdd(
                    Seen, B.getIntN(Seen->getType()->getIntegerBitWidth(), 1)));
          default: // UDecWrap: (old == 0 || old > v) ? v : old - 1
            return B.CreateSelect(
                B.CreateOr(B.CreateICmpEQ(Seen, llvm::ConstantInt::get(
                                                    Seen->getType(), 0)),
                           B.CreateICmpUGT(Seen, V)),
                V,
                B.CreateSub(Seen, llvm::ConstantInt::get(Seen->getType(), 1)));
          }
        });
    B.CreateBr(Tail);
    R->replaceAllUsesWith(Old);
    R->eraseFromParent();
  }
}

/// A system-scope read-modify-write or compare-and-swap as PTX's .sys
/// instruction (LLVM 19 selects every atomicrmw and cmpxchg at the
/// default, GPU scope, which is not atomic with the host's atomics on
/// mapped host memory). Returns the instruction that replaced I, or null
/// where I stays (not a read-modify-write PTX has at system scope).
static llvm::Instruction *systemScopeAtomic(llvm::Instruction *I) {
  namespace ID = llvm::Intrinsic;
  llvm::IRBuilder<> B(I);
  if (auto *X = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(I)) {
    llvm::Type *Ty = X->getCompareOperand()->getType();
    llvm::Value *Old = B.CreateIntrinsic(
        ID::nvvm_atomic_cas_gen_i_sys, {Ty, X->getPointerOperand()->getType()},
        {X->getPointerOperand(), X->getCompareOperand(),
         X->getNewValOperand()});
    llvm::Value *Pair =
        B.CreateInsertValue(llvm::PoisonValue::get(X->getType()), Old, 0);
    Pair = B.CreateInsertValue(Pair,
                               B.CreateICmpEQ(Old, X->getCompareOperand()), 1);
    X->replaceAllUsesWith(Pair);
    X->eraseFromParent();
    return llvm::cast<llvm::Instruction>(Old);
  }
  auto *R = llvm::dyn_cast<llvm::AtomicRMWInst>(I);
  if (!R)
    return nullptr;
  llvm::Value *V = R->getValOperand();
  ID::ID Op;
  switch (R->getOperation()) {
  case llvm::AtomicRMWInst::Add:
    Op = ID::nvvm_atomic_add_gen_i_sys;
    break;
  case llvm::AtomicRMWInst::Sub:
    Op = ID::nvvm_atomic_add_gen_i_sys;
    V = B.CreateNeg(V);
    break;
  case llvm::AtomicRMWInst::Xchg:
    Op = ID::nvvm_atomic_exch_gen_i_sys;
    break;
  case llvm::AtomicRMWInst::And:
    Op = ID::nvvm_atomic_and_gen_i_sys;
    break;
  case llvm::AtomicRMWInst::Or:
    Op = ID::nvvm_atomic_or_gen_i_sys;
    break;
  case llvm::AtomicRMWInst::Xor:
    Op = ID::nvvm_atomic_xor_gen_i_sys;
    break;
  default:
    return nullptr;
  }
  if (!V->getType()->isIntegerTy())
    return nullptr;
  llvm::Value *Old =
      B.CreateIntrinsic(Op, {V->getType(), R->getPointerOperand()->getType()},
                        {R->getPointerOperand(), V});
  R->replaceAllUsesWith(Old);
  R->eraseFromParent();
  return llvm::cast<llvm::Instruction>(Old);
}

/// LLVM 19's NVPTX back end selects atomics only as relaxed: fences and
/// acquire or release loads and stores do not select at all (LLVM aborts),
/// and read-modify-writes lose their order. Each becomes its relaxed form
/// between memory barriers of its scope: a barrier before the access for
/// release, after it for acquire. Scopes (LoweringOptions::ScopedAtomics):
/// work-group and wavefront get membar.cta, agent membar.gl and system
/// membar.sys, whose read-modify-writes also become PTX's .sys atomics
/// (systemScopeAtomic).
static void legalizeAtomics(llvm::Module &M) {
  expandSystemMinMax(M);
  llvm::SmallVector<llvm::Instruction *, 16> Work;
  for (llvm::Function &F : M)
    for (llvm::Instruction &I : llvm::instructions(F))
      if (I.isAtomic())
        Work.push_back(&I);
  if (Work.empty())
    return;
  const llvm::SyncScope::ID Group =
      M.getContext().getOrInsertSyncScopeID("workgroup");
  const llvm::SyncScope::ID Agent =
      M.getContext().getOrInsertSyncScopeID("agent");
  llvm::Function *MembarSys =
      llvm::Intrinsic::getDeclaration(&M, llvm::Intrinsic::nvvm_membar_sys);
  llvm::Function *MembarGl =
      llvm::Intrinsic::getDeclaration(&M, llvm::Intrinsic::nvvm_membar_gl);
  llvm::Function *MembarCta =
      llvm::Intrinsic::getDeclaration(&M, llvm::Intrinsic::nvvm_membar_cta);
  llvm::Function *Membar = MembarSys;
  auto Before = [&](llvm::Instruction *I) {
    llvm::CallInst::Create(Membar, {}, "", I->getIterator());
  };
  auto After = [&](llvm::Instruction *I) {
    llvm::CallInst::Create(Membar, {}, "", std::next(I->getIterator()));
  };
  using llvm::AtomicOrdering;
  auto Releases = [](AtomicOrdering O) {
    return O == AtomicOrdering::Release ||
           O == AtomicOrdering::AcquireRelease ||
           O == AtomicOrdering::SequentiallyConsistent;
  };
  auto Acquires = [](AtomicOrdering O) {
    return O == AtomicOrdering::Acquire ||
           O == AtomicOrdering::AcquireRelease ||
           O == AtomicOrdering::SequentiallyConsistent;
  };
  for (llvm::Instruction *I : Work) {
    const llvm::SyncScope::ID Scope = *llvm::getAtomicSyncScopeID(I);
    Membar = Scope == Group ? MembarCta : Scope == Agent ? MembarGl : MembarSys;
    if (auto *F = llvm::dyn_cast<llvm::FenceInst>(I)) {
      Before(F);
      F->eraseFromParent();
      continue;
    }
    AtomicOrdering O = AtomicOrdering::Monotonic;
    if (auto *L = llvm::dyn_cast<llvm::LoadInst>(I)) {
      O = L->getOrdering();
      L->setOrdering(AtomicOrdering::Monotonic);
      L->setSyncScopeID(llvm::SyncScope::System);
    } else if (auto *S = llvm::dyn_cast<llvm::StoreInst>(I)) {
      O = S->getOrdering();
      S->setOrdering(AtomicOrdering::Monotonic);
      S->setSyncScopeID(llvm::SyncScope::System);
    } else if (auto *R = llvm::dyn_cast<llvm::AtomicRMWInst>(I)) {
      O = R->getOrdering();
      R->setOrdering(AtomicOrdering::Monotonic);
      R->setSyncScopeID(llvm::SyncScope::System);
    } else if (auto *X = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(I)) {
      O = X->getSuccessOrdering();
      X->setSuccessOrdering(AtomicOrdering::Monotonic);
      X->setFailureOrdering(AtomicOrdering::Monotonic);
      X->setSyncScopeID(llvm::SyncScope::System);
    } else {
      continue;
    }
    if (Scope == llvm::SyncScope::System)
      if (llvm::Instruction *Sys = systemScopeAtomic(I))
        I = Sys;
    if (Releases(O))
      Before(I);
    if (Acquires(O))
      After(I);
  }
}

llvm::Error buildGpuKernels(llvm::Module &M, LoweredProgram &Program) {
  llvm::LLVMContext &C = M.getContext();
  assumeNaturalAlignment(M);
  defineSignalHelpers(M);
  legalizeAtomics(M);
  defineQueries(M);
  auto *WiTy = workItemType(C);
  auto *Ptr = llvm::PointerType::get(C, 0);
  llvm::NamedMDNode *Annotations =
      M.getOrInsertNamedMetadata("nvvm.annotations");
  unsigned Index = 0;
  for (LoweredKernel &K : Program.Kernels) {
    llvm::Function *Body = K.Body;
    Body->addFnAttr(llvm::Attribute::AlwaysInline);
    const std::string Name = gpu::EntryPrefix + std::to_string(Index++);
    auto *Entry = llvm::Function::Create(
        llvm::FunctionType::get(llvm::Type::getVoidTy(C), {Ptr, Ptr}, false),
        llvm::GlobalValue::ExternalLinkage, Name, M);
    const uint32_t KernargBytes =
        gpu::kernargParamBytes(K.Symbol.KernargSegmentSize);
    Entry->addParamAttr(0, llvm::Attribute::getWithByValType(
                               C, llvm::ArrayType::get(llvm::Type::getInt8Ty(C),
                                                       KernargBytes)));
    Entry->addParamAttr(0,
                        llvm::Attribute::getWithAlignment(C, llvm::Align(16)));
    Entry->addParamAttr(
        1, llvm::Attribute::getWithByValType(
               C, llvm::ArrayType::get(llvm::Type::getInt8Ty(C),
                                       sizeof(gpu::GpuDispatchParams))));
    Entry->addParamAttr(1,
                        llvm::Attribute::getWithAlignment(C, llvm::Align(8)));
    Entry->addParamAttr(0, llvm::Attribute::NoAlias);
    Entry->addParamAttr(1, llvm::Attribute::NoAlias);
    llvm::IRBuilder<> B(llvm::BasicBlock::Create(C, "entry", Entry));
    llvm::Value *Private = llvm::ConstantPointerNull::get(Ptr);
    if (K.Symbol.PrivateSegmentSize) {
      auto *A = B.CreateAlloca(B.getInt8Ty(),
                               B.getInt32(K.Symbol.PrivateSegmentSize));
      A->setAlignment(llvm::Align(16));
      Private = A;
    }
    llvm::Value *Wi = B.CreateAlloca(WiTy); // Allocas stay in the entry.
    K.Symbol.GpuGridGuard = !reaches(Body, M.getFunction(query::Barrier));
    if (K.Symbol.GpuGridGuard) {
      // Threads of whole blocks past the grid's end return at once.
      llvm::Value *Params = Entry->getArg(1);
      llvm::Value *Outside = B.getFalse();
      for (unsigned D = 0; D < 3; ++D) {
        auto Field = [&](unsigned Offset) {
          return B.CreateLoad(
              B.getInt32Ty(),
              B.CreateConstGEP1_32(B.getInt8Ty(), Params, Offset + 4 * D));
        };
        const llvm::Intrinsic::ID Tid[] = {
            llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x,
            llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y,
            llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z};
        const llvm::Intrinsic::ID Ctaid[] = {
            llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
            llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
            llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z};
        llvm::Value *Group = B.CreateAdd(B.CreateIntrinsic(Ctaid[D], {}, {}),
                                         Field(gpu::params::GroupOffset));
        // In 64 bits: group * size + id may pass 2^32 in the last block.
        llvm::Value *Abs = B.CreateAdd(
            B.CreateMul(B.CreateZExt(Group, B.getInt64Ty()),
                        B.CreateZExt(Field(gpu::params::WorkgroupSize),
                                     B.getInt64Ty())),
            B.CreateZExt(B.CreateIntrinsic(Tid[D], {}, {}), B.getInt64Ty()));
        Outside = B.CreateOr(
            Outside,
            B.CreateICmpUGE(Abs, B.CreateZExt(Field(gpu::params::GridSize),
                                              B.getInt64Ty())));
      }
      auto *Run = llvm::BasicBlock::Create(C, "inside", Entry);
      auto *Leave = llvm::BasicBlock::Create(C, "outside", Entry);
      B.CreateCondBr(Outside, Leave, Run);
      llvm::IRBuilder<>(Leave).CreateRetVoid();
      B.SetInsertPoint(Run);
    }
    B.CreateStore(Entry->getArg(1), B.CreateStructGEP(WiTy, Wi, 0));
    B.CreateStore(Private, B.CreateStructGEP(WiTy, Wi, 1));
    B.CreateCall(Body, {Entry->getArg(0), Wi});
    B.CreateRetVoid();
    Annotations->addOperand(llvm::MDNode::get(
        C, {llvm::ValueAsMetadata::get(Entry), llvm::MDString::get(C, "kernel"),
            llvm::ConstantAsMetadata::get(B.getInt32(1))}));
    K.Symbol.EntrySymbol = Name;
    K.Symbol.VectorWidth = 1; // Lanes are threads; nothing to vectorize.
  }
  // Native ftz (the base profile, see FloatEmitter): NVPTX emits the .ftz
  // forms of f32 instructions for functions that flush.
  if (M.getModuleFlag(detail::FloatEmitter::NativeFtz32Flag))
    for (llvm::Function &F : M)
      if (!F.isDeclaration())
        F.addFnAttr("denormal-fp-math-f32", "preserve-sign,preserve-sign");
  // Indirect functions (PRM 10.8): the host cannot take a device
  // function's address, so each gets a global the PTX initializes with it;
  // the loader reads the handle from there (GpuModule::indirectFunction),
  // and icall calls through it.
  for (IndirectFunctionSymbol &S : Program.IndirectFunctions) {
    llvm::Function *Fn = M.getFunction(S.ObjectSymbol);
    if (!Fn)
      return llvm::createStringError("internal error: no function for "
                                     "indirect function '" +
                                     S.Name + "'");
    auto *Handle = new llvm::GlobalVariable(
        M, Fn->getType(), true, llvm::GlobalValue::ExternalLinkage, Fn,
        ptxName(S.ObjectSymbol) + "_handle", nullptr,
        llvm::GlobalValue::NotThreadLocal, 1);
    Handle->setAlignment(llvm::Align(8));
    S.ObjectSymbol = Handle->getName().str();
  }
  // Variables keep PTX-valid names the loader can look up. A variable's
  // declarations and its definition share one global: each of their
  // symbols gets its new name.
  llvm::StringMap<std::string> Renamed;
  for (VariableSymbol &V : Program.Variables) {
    if (V.ObjectSymbol.empty())
      continue;
    if (auto It = Renamed.find(V.ObjectSymbol); It != Renamed.end()) {
      V.ObjectSymbol = It->second;
    } else if (llvm::GlobalValue *G = M.getNamedValue(V.ObjectSymbol)) {
      G->setName(ptxName(V.ObjectSymbol));
      Renamed[V.ObjectSymbol] = G->getName().str();
      V.ObjectSymbol = G->getName().str();
    }
  }
  // PTX names are letters, digits, '_' and '$': LLVM aborts on others
  // ('&' of HSAIL names, say). Every definition gets such a name; the
  // entries and variables are named so already.
  for (llvm::GlobalValue &G : M.global_values()) {
    if (G.isDeclaration())
      continue;
    const std::string Valid = ptxName(G.getName());
    if (Valid != G.getName())
      G.setName(Valid);
  }
  // Every symbol left undefined would fail in the driver's link.
  for (llvm::GlobalValue &G : M.global_values()) {
    if (!G.isDeclaration() || G.use_empty() || G.getName() == GroupSegmentName)
      continue;
    if (auto *F = llvm::dyn_cast<llvm::Function>(&G); F && F->isIntrinsic())
      continue;
    if (G.getName().starts_with("openhsa."))
      return llvm::createStringError(
          "internal error: the GPU target does not define '" +
          G.getName().str() + "'");
    return llvm::createStringError(
        "the program references '" + G.getName().str() +
        "', which no module defines: GPU agents need every variable defined "
        "by the program");
  }
  return llvm::Error::success();
}

/// LLVM 19's NVPTX back end miscompiles two things the lowering emits
/// (both found by the packed-data tests on an H100; the CPU's back end gets
/// them right):
///  - i128 shifts by a variable amount ($q registers: pack, unpack and
///    shifts of 128-bit packed data) lose the upper half;
///  - signed saturating subtraction (llvm.ssub.sat) does not saturate
///    0 - MIN (it is computed as 0 + -MIN, and -MIN wraps).
/// After the optimization pipeline (which would fold the expansions back),
/// each becomes operations on 64-bit halves and plain arithmetic with an
/// explicit overflow test.
static void expandForNvptx(llvm::Module &M) {
  llvm::SmallVector<llvm::Instruction *, 16> Work;
  for (llvm::Function &F : M)
    for (llvm::Instruction &I : llvm::instructions(F)) {
      if (auto *Sh = llvm::dyn_cast<llvm::BinaryOperator>(&I);
          Sh && Sh->isShift() && Sh->getType()->isIntegerTy(128) &&
          !llvm::isa<llvm::Constant>(Sh->getOperand(1)))
        Work.push_back(&I);
      else if (auto *II = llvm::dyn_cast<llvm::IntrinsicInst>(&I);
               II && (II->getIntrinsicID() == llvm::Intrinsic::ssub_sat ||
                      II->getIntrinsicID() == llvm::Intrinsic::sadd_sat))
        Work.push_back(&I);
    }
  for (llvm::Instruction *I : Work) {
    llvm::IRBuilder<> B(I);
    llvm::Value *R = nullptr;
    if (auto *II = llvm::dyn_cast<llvm::IntrinsicInst>(I)) {
      // a - b wraps exactly when a and b differ in sign and the result's
      // sign is not a's: ((a ^ b) & (a ^ r)) < 0; a + b when a and b agree
      // in sign and the result's is not a's: (~(a ^ b) & (a ^ r)) < 0. A
      // wrapped result saturates at the bound on a's side.
      llvm::Value *A = II->getArgOperand(0), *Bv = II->getArgOperand(1);
      const bool Sub = II->getIntrinsicID() == llvm::Intrinsic::ssub_sat;
      llvm::Value *Raw = Sub ? B.CreateSub(A, Bv) : B.CreateAdd(A, Bv);
      llvm::Value *Signs = B.CreateXor(A, Bv);
      if (!Sub)
        Signs = B.CreateNot(Signs);
      llvm::Value *Zero = llvm::Constant::getNullValue(A->getType());
      llvm::Value *Wraps =
          B.CreateICmpSLT(B.CreateAnd(Signs, B.CreateXor(A, Raw)), Zero);
      const unsigned Bits = A->getType()->getScalarSizeInBits();
      llvm::Value *Min = llvm::ConstantInt::get(
          A->getType(), llvm::APInt::getSignedMinValue(Bits));
      llvm::Value *Max = llvm::ConstantInt::get(
          A->getType(), llvm::APInt::getSignedMaxValue(Bits));
      llvm::Value *Bound = B.CreateSelect(B.CreateICmpSLT(A, Zero), Min, Max);
      R = B.CreateSelect(Wraps, Bound, Raw);
    } else {
      // Halves: amounts are below 128 (larger ones are poison in IR).
      auto *Op = llvm::cast<llvm::BinaryOperator>(I);
      auto *I64 = B.getInt64Ty();
      auto *Pair = llvm::FixedVectorType::get(I64, 2);
      llvm::Value *X = B.CreateBitCast(Op->getOperand(0), Pair);
      llvm::Value *Lo = B.CreateExtractElement(X, uint64_t(0));
      llvm::Value *Hi = B.CreateExtractElement(X, uint64_t(1));
      llvm::Value *N = B.CreateTrunc(Op->getOperand(1), I64);
      llvm::Value *S = B.CreateAnd(N, 63);
      llvm::Value *Big = B.CreateICmpUGE(N, B.getInt64(64));
      llvm::Value *Back = B.CreateSub(B.getInt64(63), S); // 63 - s
      llvm::Value *NewLo, *NewHi;
      if (Op->getOpcode() == llvm::Instruction::Shl) {
        // The bits of lo that move into hi: lo >> (64 - s), 0 for s = 0.
        llvm::Value *Carry = B.CreateLShr(B.CreateLShr(Lo, 1), Back);
        llvm::Value *LoS = B.CreateShl(Lo, S);
        NewLo = B.CreateSelect(Big, B.getInt64(0), LoS);
        NewHi = B.CreateSelect(Big, LoS, B.CreateOr(B.CreateShl(Hi, S), Carry));
      } else {
        const bool Arith = Op->getOpcode() == llvm::Instruction::AShr;
        llvm::Value *Carry = B.CreateShl(B.CreateShl(Hi, 1), Back);
        llvm::Value *HiS = Arith ? B.CreateAShr(Hi, S) : B.CreateLShr(Hi, S);
        NewLo =
            B.CreateSelect(Big, HiS, B.CreateOr(B.CreateLShr(Lo, S), Carry));
        NewHi = B.CreateSelect(
            Big, Arith ? B.CreateAShr(Hi, 63) : B.getInt64(0), HiS);
      }
      llvm::Value *V = llvm::PoisonValue::get(Pair);
      V = B.CreateInsertElement(V, NewLo, uint64_t(0));
      V = B.CreateInsertElement(V, NewHi, uint64_t(1));
      R = B.CreateBitCast(V, I->getType());
    }
    I->replaceAllUsesWith(R);
    I->eraseFromParent();
  }
}

llvm::Expected<std::string> compileToPtx(llvm::Module &M, unsigned SmVersion) {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  std::string Error;
  const llvm::Target *T =
      llvm::TargetRegistry::lookupTarget(NvptxTriple, Error);
  if (!T)
    return llvm::createStringError("no LLVM NVPTX target: " + Error);
  const std::string Cpu =
      "sm_" + std::to_string(std::min(SmVersion, NewestKnownSm));
  llvm::TargetOptions Options;
  std::unique_ptr<llvm::TargetMachine> TM(
      T->createTargetMachine(NvptxTriple, Cpu, "", Options, std::nullopt,
                             std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  M.setTargetTriple(NvptxTriple);
  M.setDataLayout(TM->createDataLayout());
  if (llvm::verifyModule(M, &llvm::errs()))
    return llvm::createStringError(
        "internal error: the lowered IR of module '" + M.getName().str() +
        "' is invalid");
  dumpModule(M, "gpu.lowered.ll");
  {
    llvm::LoopAnalysisManager LAM;
    llvm::FunctionAnalysisManager FAM;
    llvm::CGSCCAnalysisManager CGAM;
    llvm::ModuleAnalysisManager MAM;
    llvm::PassBuilder PB(TM.get()); // Adds NVPTX's own passes.
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
    llvm::ModulePassManager MPM =
        PB.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    MPM.run(M, MAM);
  }
  expandForNvptx(M);
  dumpModule(M, "gpu.ll");
  llvm::SmallVector<char, 0> Buffer;
  llvm::raw_svector_ostream OS(Buffer);
  llvm::legacy::PassManager PM;
  if (TM->addPassesToEmitFile(PM, OS, nullptr,
                              llvm::CodeGenFileType::AssemblyFile))
    return llvm::createStringError("LLVM cannot emit PTX for " + Cpu);
  PM.run(M);
  std::string Ptx(Buffer.begin(), Buffer.end());
  dump("OPENHSA_DUMP_ASM", M, "ptx", Ptx);
  return Ptx;
}

} // namespace openhsa::finalizer
