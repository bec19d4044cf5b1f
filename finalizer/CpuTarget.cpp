//===- finalizer/CpuTarget.cpp - Work-group functions for the CPU agent ---===//
#include "finalizer/CpuTarget.h"

#include "abi/CpuDispatchContext.h"
#include "brig/BrigModule.h"
#include "finalizer/Codegen.h"
#include "finalizer/DeadGroupStores.h"
#include "finalizer/FixedGroupShape.h"
#include "finalizer/LockstepGroups.h"
#include "finalizer/PromoteRegisterFile.h"
#include "finalizer/WorkItemVectorizer.h"

#include "hsa/hsa_ext_openhsa.h"

#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CycleInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/Scalar/SCCP.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <cstddef>

namespace openhsa::finalizer {

namespace {

// The work-item state the work-group function keeps for the body:
//   { ptr ctx, [3 x i32] local id, [3 x i32] group id, [3 x i32] current
//     work-group size }
enum WorkItemField {
  WiContext = 0,
  WiLocal = 1,
  WiGroup = 2,
  WiCurrentSize = 3
};

llvm::StructType *workItemType(llvm::LLVMContext &C) {
  auto *I32x3 = llvm::ArrayType::get(llvm::Type::getInt32Ty(C), 3);
  return llvm::StructType::get(
      C, {llvm::PointerType::get(C, 0), I32x3, I32x3, I32x3});
}

using Ctx = hsa_ext_openhsa_dispatch_context_t;

/// Defines query Name (if the module declares it) with body Fill.
template <typename FillFn>
void defineQuery(llvm::Module &M, const char *Name, FillFn Fill) {
  llvm::Function *F = M.getFunction(Name);
  if (!F || !F->isDeclaration())
    return;
  F->setLinkage(llvm::GlobalValue::InternalLinkage);
  F->addFnAttr(llvm::Attribute::AlwaysInline);
  F->setDoesNotThrow();
  F->addFnAttr(llvm::Attribute::WillReturn);
  llvm::IRBuilder<> B(llvm::BasicBlock::Create(M.getContext(), "entry", F));
  B.CreateRet(Fill(B, F));
}

/// Loads a field of the dispatch context at Offset (+ 4 * Index).
llvm::Value *contextField(llvm::IRBuilder<> &B, llvm::Value *Wi, size_t Offset,
                          llvm::Type *Ty, llvm::Value *Index = nullptr) {
  auto *WiTy = workItemType(B.getContext());
  llvm::Value *Context =
      B.CreateLoad(B.getPtrTy(), B.CreateStructGEP(WiTy, Wi, WiContext));
  llvm::Value *P = B.CreateConstGEP1_64(B.getInt8Ty(), Context, Offset);
  if (Index)
    P = B.CreateGEP(B.getInt32Ty(), P, Index);
  // The context does not change during a dispatch: telling LLVM lets it
  // hoist these loads out of the work-item loops (and vectorize them).
  llvm::LoadInst *L = B.CreateLoad(Ty, P);
  L->setMetadata(llvm::LLVMContext::MD_invariant_load,
                 llvm::MDNode::get(B.getContext(), {}));
  return L;
}

/// A dimension argument clamped to 0..2 (HSAIL requires an immediate in
/// range; this keeps a bad one from reading past the arrays).
llvm::Value *clampDim(llvm::IRBuilder<> &B, llvm::Value *D) {
  return B.CreateSelect(B.CreateICmpULT(D, B.getInt32(3)), D, B.getInt32(0));
}

void defineQueries(llvm::Module &M) {
  llvm::LLVMContext &C = M.getContext();
  auto *WiTy = workItemType(C);
  auto *PtrTy = llvm::PointerType::get(C, 0);
  // Register files are in the private block: a work-item's at the offset
  // given; a wave's at the end of its first work-item's block, where the
  // vectorized kernel's private segment has room for it.
  llvm::FunctionCallee PrivateBaseFn;
  if (M.getFunction(query::RegisterFile) ||
      M.getFunction(query::WaveRegisterFile))
    PrivateBaseFn = M.getOrInsertFunction(
        query::PrivateBase, llvm::FunctionType::get(PtrTy, {PtrTy}, false));
  auto AtOffset = [&](llvm::IRBuilder<> &B,
                      llvm::Function *F) -> llvm::Value * {
    return B.CreateGEP(B.getInt8Ty(),
                       B.CreateCall(PrivateBaseFn, {F->getArg(0)}),
                       B.CreateZExt(F->getArg(1), B.getInt64Ty()));
  };
  defineQuery(M, query::RegisterFile, AtOffset);
  defineQuery(M, query::WaveRegisterFile, AtOffset);
  // The group's shared registers: in the block of its first work-item,
  // whatever work-item asks.
  defineQuery(M, query::GroupRegisterFile,
              [&](llvm::IRBuilder<> &B, llvm::Function *F) -> llvm::Value * {
                return B.CreateGEP(B.getInt8Ty(),
                                   contextField(B, F->getArg(0),
                                                offsetof(Ctx, private_base),
                                                B.getPtrTy()),
                                   B.CreateZExt(F->getArg(1), B.getInt64Ty()));
              });
  auto WiArray = [&](unsigned Field) {
    return [=](llvm::IRBuilder<> &B, llvm::Function *F) -> llvm::Value * {
      llvm::Value *D = clampDim(B, F->getArg(1));
      return B.CreateLoad(B.getInt32Ty(),
                          B.CreateGEP(WiTy, F->getArg(0),
                                      {B.getInt32(0), B.getInt32(Field), D}));
    };
  };
  auto CtxArray = [&](size_t Offset) {
    return [=](llvm::IRBuilder<> &B, llvm::Function *F) -> llvm::Value * {
      return contextField(B, F->getArg(0), Offset, B.getInt32Ty(),
                          clampDim(B, F->getArg(1)));
    };
  };
  defineQuery(M, query::WorkItemId, WiArray(WiLocal));
  defineQuery(M, query::WorkGroupId, WiArray(WiGroup));
  defineQuery(M, query::CurrentWorkGroupSize, WiArray(WiCurrentSize));
  defineQuery(M, query::WorkGroupSize, CtxArray(offsetof(Ctx, workgroup_size)));
  defineQuery(M, query::GridSize, CtxArray(offsetof(Ctx, grid_size)));
  defineQuery(M, query::GridGroups, CtxArray(offsetof(Ctx, grid_groups)));
  defineQuery(M, query::Dim, [](llvm::IRBuilder<> &B, llvm::Function *F) {
    return contextField(B, F->getArg(0), offsetof(Ctx, dimensions),
                        B.getInt32Ty());
  });
  defineQuery(M, query::PacketId, [](llvm::IRBuilder<> &B, llvm::Function *F) {
    return contextField(B, F->getArg(0), offsetof(Ctx, packet_id),
                        B.getInt64Ty());
  });
  defineQuery(M, query::PacketCompletionSig,
              [](llvm::IRBuilder<> &B, llvm::Function *F) -> llvm::Value * {
                llvm::Value *Packet = contextField(
                    B, F->getArg(0), offsetof(Ctx, packet), B.getPtrTy());
                return B.CreateLoad(
                    B.getInt64Ty(),
                    B.CreateConstGEP1_64(B.getInt8Ty(), Packet,
                                         offsetof(hsa_kernel_dispatch_packet_t,
                                                  completion_signal)));
              });
  defineQuery(M, query::GroupBase, [](llvm::IRBuilder<> &B, llvm::Function *F) {
    return contextField(B, F->getArg(0), offsetof(Ctx, group_base),
                        B.getPtrTy());
  });
  auto Field = [](size_t Offset, bool Pointer) {
    return [=](llvm::IRBuilder<> &B, llvm::Function *F) {
      return contextField(B, F->getArg(0), Offset,
                          Pointer ? static_cast<llvm::Type *>(B.getPtrTy())
                                  : B.getInt32Ty());
    };
  };
  defineQuery(M, query::GroupSegmentSize,
              Field(offsetof(Ctx, group_segment_size), false));
  defineQuery(M, query::PrivateSegmentSize,
              Field(offsetof(Ctx, private_segment_size), false));
  defineQuery(M, query::Queue, Field(offsetof(Ctx, queue), true));
  defineQuery(M, query::ComputeUnitId,
              Field(offsetof(Ctx, compute_unit_id), false));
  defineQuery(M, query::MaxComputeUnitId,
              Field(offsetof(Ctx, max_compute_unit_id), false));
  // Each work-item's private block: private_segment_size bytes at its
  // current flattened id within the group (hsa_ext_openhsa.h), so that the
  // work-items of a wavefront (PRM 2.6) have consecutive blocks whatever
  // the group's shape.
  defineQuery(
      M, query::PrivateBase,
      [&](llvm::IRBuilder<> &B, llvm::Function *F) -> llvm::Value * {
        llvm::Value *Wi = F->getArg(0);
        auto Local = [&](unsigned D) {
          return B.CreateLoad(
              B.getInt32Ty(),
              B.CreateGEP(WiTy, Wi,
                          {B.getInt32(0), B.getInt32(WiLocal), B.getInt32(D)}));
        };
        auto Size = [&](unsigned D) {
          return B.CreateLoad(
              B.getInt32Ty(),
              B.CreateGEP(
                  WiTy, Wi,
                  {B.getInt32(0), B.getInt32(WiCurrentSize), B.getInt32(D)}));
        };
        llvm::Value *Flat = B.CreateAdd(
            Local(0),
            B.CreateMul(Size(0),
                        B.CreateAdd(Local(1), B.CreateMul(Local(2), Size(1)))));
        llvm::Value *Stride = contextField(
            B, Wi, offsetof(Ctx, private_segment_size), B.getInt32Ty());
        llvm::Value *Base =
            contextField(B, Wi, offsetof(Ctx, private_base), B.getPtrTy());
        return B.CreateGEP(B.getInt8Ty(), Base,
                           B.CreateMul(B.CreateZExt(Flat, B.getInt64Ty()),
                                       B.CreateZExt(Stride, B.getInt64Ty())));
      });
}

/// Emits `for (I = Begin; I < N; ++I) Body(I)` at B's insertion point and
/// leaves B after the loop. Begin < N: the loop runs at least once.
template <typename BodyFn>
void emitLoop(llvm::IRBuilder<> &B, llvm::Value *Begin, llvm::Value *N,
              const char *Name, BodyFn Body) {
  llvm::LLVMContext &C = B.getContext();
  llvm::Function *F = B.GetInsertBlock()->getParent();
  llvm::BasicBlock *Pre = B.GetInsertBlock();
  auto *Head = llvm::BasicBlock::Create(C, std::string(Name) + ".body", F);
  auto *Exit = llvm::BasicBlock::Create(C, std::string(Name) + ".exit", F);
  B.CreateBr(Head);
  B.SetInsertPoint(Head);
  llvm::PHINode *I = B.CreatePHI(B.getInt32Ty(), 2, Name);
  I->addIncoming(Begin, Pre);
  Body(I);
  llvm::Value *Next = B.CreateAdd(I, B.getInt32(1), "", true, true);
  I->addIncoming(Next, B.GetInsertBlock());
  B.CreateCondBr(B.CreateICmpULT(Next, N), Head, Exit);
  B.SetInsertPoint(Exit);
}

/// Emits `for (I = 0; I < N; ++I) Body(I)`: work-groups are never empty,
/// so the loops over their ids run at least once.
template <typename BodyFn>
void emitLoop(llvm::IRBuilder<> &B, llvm::Value *N, const char *Name,
              BodyFn Body) {
  emitLoop(B, B.getInt32(0), N, Name, Body);
}

/// Emits `for (X = Begin; X < N; X += Step) Body(X)` (possibly no
/// iteration) at B's insertion point and leaves B after the loop.
template <typename BodyFn>
void emitSteppedLoop(llvm::IRBuilder<> &B, llvm::Value *Begin, llvm::Value *N,
                     unsigned Step, const char *Name, BodyFn Body) {
  llvm::LLVMContext &C = B.getContext();
  llvm::Function *F = B.GetInsertBlock()->getParent();
  llvm::BasicBlock *Pre = B.GetInsertBlock();
  auto *Head = llvm::BasicBlock::Create(C, std::string(Name) + ".body", F);
  auto *Exit = llvm::BasicBlock::Create(C, std::string(Name) + ".exit", F);
  B.CreateCondBr(B.CreateICmpULT(Begin, N), Head, Exit);
  B.SetInsertPoint(Head);
  llvm::PHINode *I = B.CreatePHI(B.getInt32Ty(), 2, Name);
  I->addIncoming(Begin, Pre);
  Body(I);
  llvm::Value *Next = B.CreateAdd(I, B.getInt32(Step), "", true, true);
  I->addIncoming(Next, B.GetInsertBlock());
  B.CreateCondBr(B.CreateICmpULT(Next, N), Head, Exit);
  B.SetInsertPoint(Exit);
}

/// The lanes of a W-wide wave whose index is below Left: those that have a
/// work-item where Left are left.
llvm::Value *lanesBelow(llvm::IRBuilder<> &B, unsigned W, llvm::Value *Left,
                        const llvm::Twine &Name = "") {
  llvm::SmallVector<llvm::Constant *, 64> Lanes;
  for (unsigned L = 0; L < W; ++L)
    Lanes.push_back(B.getInt32(L));
  return B.CreateICmpULT(llvm::ConstantVector::get(Lanes),
                         B.CreateVectorSplat(W, Left), Name);
}

/// The mask of the partial wave at a row's end, Rest lanes on. Rest is at
/// least 1: lane 0 is on, and saying so as a constant lets the body's
/// checks that only lane 0 needs fold away.
llvm::Value *tailMask(llvm::IRBuilder<> &B, unsigned W, llvm::Value *Rest) {
  return B.CreateInsertElement(lanesBelow(B, W, Rest), B.getTrue(), uint64_t(0),
                               "tail.mask");
}

/// The X loop of a vectorized kernel, from Begin (a multiple of W) to
/// Count: whole waves of W work-items with every lane on, then the partial
/// wave at the end of the row with the lanes past it off. Call(X, Mask)
/// calls the body for the wave at X; the body is inlined at both calls,
/// and with its mask a constant the first copy has no masked memory access
/// left. Where Count is known to be a multiple of W (a group shape fixed
/// at whole waves), there is no partial wave and no second copy: LLVM
/// would find that copy dead only after optimizing it, a third of a loop
/// kernel's finalization (mandelbrot fixed 21 -> 12.7 ms on the 2-core
/// EPYC). With AssumeWholeWaves the caller promises the same (the kernel
/// runs only dispatches whose rows are whole waves,
/// KernelSymbol::WholeWaveRows); returns whether the promise left out a
/// partial wave's code.
template <typename CallFn>
bool emitWaveLoop(llvm::IRBuilder<> &B, llvm::Value *LocalX, llvm::Value *Begin,
                  llvm::Value *Count, unsigned W, bool AssumeWholeWaves,
                  CallFn Call) {
  llvm::LLVMContext &C = B.getContext();
  llvm::Function *F = B.GetInsertBlock()->getParent();
  auto AllOn = [&] {
    return llvm::ConstantInt::getTrue(
        llvm::FixedVectorType::get(B.getInt1Ty(), W));
  };
  const bool KnownWhole =
      llvm::isPowerOf2_32(W) &&
      llvm::computeKnownBits(Count, F->getParent()->getDataLayout())
              .countMinTrailingZeros() >= llvm::Log2_32(W);
  if (KnownWhole || AssumeWholeWaves) {
    emitSteppedLoop(B, Begin, Count, W, "wave", [&](llvm::Value *X) {
      B.CreateStore(X, LocalX);
      Call(X, AllOn());
    });
    return !KnownWhole;
  }
  auto *Zero = llvm::dyn_cast<llvm::ConstantInt>(Begin);
  llvm::Value *Whole =
      Zero && Zero->isZero()
          ? B.CreateAnd(Count, B.getInt32(~(W - 1)))
          : B.CreateAdd(Begin, B.CreateAnd(B.CreateSub(Count, Begin),
                                           B.getInt32(~(W - 1))));
  emitSteppedLoop(B, Begin, Whole, W, "wave", [&](llvm::Value *X) {
    B.CreateStore(X, LocalX);
    Call(X, AllOn());
  });
  llvm::Value *Rest = B.CreateSub(Count, Whole);
  auto *Tail = llvm::BasicBlock::Create(C, "wave.tail", F);
  auto *Done = llvm::BasicBlock::Create(C, "wave.done", F);
  B.CreateCondBr(B.CreateICmpNE(Rest, B.getInt32(0)), Tail, Done);
  B.SetInsertPoint(Tail);
  B.CreateStore(Whole, LocalX);
  Call(Whole, tailMask(B, W, Rest));
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
  return false;
}

/// The X loop of a vectorized resumable kernel with a copy of its body per
/// region: as emitWaveLoop, but CallWhole(Mask) calls the body for the
/// whole wave whose X id it stored (Mask all on) and returns whether the
/// row's later waves have nothing to do up to the next barrier, which ends
/// the row there; CallPartial(Mask) calls it for the partial wave at the
/// row's end. With WholeWaves, Count is known to be a non-zero multiple of
/// W: no partial wave, and no code for one.
template <typename WholeFn, typename PartialFn>
void emitRowWaveLoop(llvm::IRBuilder<> &B, llvm::Value *LocalX,
                     llvm::Value *Count, unsigned W, bool WholeWaves,
                     WholeFn CallWhole, PartialFn CallPartial) {
  llvm::LLVMContext &C = B.getContext();
  llvm::Function *F = B.GetInsertBlock()->getParent();
  llvm::Value *Whole =
      WholeWaves ? Count : B.CreateAnd(Count, B.getInt32(~(W - 1)));
  llvm::BasicBlock *Pre = B.GetInsertBlock();
  auto *Head = llvm::BasicBlock::Create(C, "wave.body", F);
  auto *Full = llvm::BasicBlock::Create(C, "wave.exit", F);
  auto *Done = llvm::BasicBlock::Create(C, "wave.done", F);
  if (WholeWaves)
    B.CreateBr(Head);
  else
    B.CreateCondBr(B.CreateICmpULT(B.getInt32(0), Whole), Head, Full);
  B.SetInsertPoint(Head);
  llvm::PHINode *X = B.CreatePHI(B.getInt32Ty(), 2, "wave");
  X->addIncoming(B.getInt32(0), Pre);
  B.CreateStore(X, LocalX);
  llvm::Value *RowDone = CallWhole(
      llvm::ConstantInt::getTrue(llvm::FixedVectorType::get(B.getInt1Ty(), W)));
  llvm::Value *Next = B.CreateAdd(X, B.getInt32(W), "", true, true);
  llvm::BasicBlock *Latch = B.GetInsertBlock();
  X->addIncoming(Next, Latch);
  B.CreateCondBr(
      B.CreateAnd(B.CreateNot(RowDone), B.CreateICmpULT(Next, Whole)), Head,
      Full);
  B.SetInsertPoint(Full);
  if (WholeWaves) {
    B.CreateBr(Done);
    B.SetInsertPoint(Done);
    return;
  }
  llvm::PHINode *Stop = B.CreatePHI(B.getInt1Ty(), 2, "row.done");
  Stop->addIncoming(B.getFalse(), Pre);
  Stop->addIncoming(RowDone, Latch);
  auto *Tail = llvm::BasicBlock::Create(C, "wave.tail", F, Done);
  B.CreateCondBr(B.CreateAnd(B.CreateNot(Stop), B.CreateICmpNE(Count, Whole)),
                 Tail, Done);
  B.SetInsertPoint(Tail);
  B.CreateStore(Whole, LocalX);
  CallPartial(tailMask(B, W, B.CreateSub(Count, Whole)));
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
}

/// The waves of one plane (a Z id) of a group, for a region of a vectorized
/// resumable kernel with a copy of its body per region: column by column,
/// each wave position along X for every row in turn. Within a column the X
/// ids stay the same, so what a region reads at addresses that depend on
/// them alone (the row of a tile in group memory that every row of the
/// group multiplies, in a tiled matrix product) is loaded once for all its
/// rows and stays in registers; row by row it was loaded again for each.
/// Any order of the waves is one HSAIL allows: nothing orders work-items
/// between barriers. CallWhole(Mask) calls the body for the whole wave whose
/// ids it stored (Mask all on) and returns whether the waves after it in its
/// row have nothing to do up to the next barrier; once that holds for every
/// row of a column, the later columns are skipped. CallPartial(Mask) calls
/// it for the partial wave at the rows' end. WholeWaves: as for
/// emitRowWaveLoop.
template <typename WholeFn, typename PartialFn>
void emitColumnWaveLoops(llvm::IRBuilder<> &B, llvm::Value *LocalX,
                         llvm::Value *LocalY, llvm::Value *Count,
                         llvm::Value *Rows, unsigned W, bool WholeWaves,
                         WholeFn CallWhole, PartialFn CallPartial) {
  llvm::LLVMContext &C = B.getContext();
  llvm::Function *F = B.GetInsertBlock()->getParent();
  llvm::Value *Whole =
      WholeWaves ? Count : B.CreateAnd(Count, B.getInt32(~(W - 1)));
  llvm::BasicBlock *Pre = B.GetInsertBlock();
  auto *Column = llvm::BasicBlock::Create(C, "column", F);
  auto *Head = llvm::BasicBlock::Create(C, "wave.body", F);
  auto *Full = llvm::BasicBlock::Create(C, "wave.exit", F);
  auto *Done = llvm::BasicBlock::Create(C, "wave.done", F);
  if (WholeWaves)
    B.CreateBr(Column);
  else
    B.CreateCondBr(B.CreateICmpULT(B.getInt32(0), Whole), Column, Full);
  B.SetInsertPoint(Column);
  llvm::PHINode *X = B.CreatePHI(B.getInt32Ty(), 2, "wave");
  X->addIncoming(B.getInt32(0), Pre);
  B.CreateStore(X, LocalX);
  B.CreateBr(Head);
  B.SetInsertPoint(Head);
  llvm::PHINode *Y = B.CreatePHI(B.getInt32Ty(), 2, "y");
  Y->addIncoming(B.getInt32(0), Column);
  llvm::PHINode *AllDone = B.CreatePHI(B.getInt1Ty(), 2, "rows.done");
  AllDone->addIncoming(B.getTrue(), Column);
  B.CreateStore(Y, LocalY);
  llvm::Value *ColumnDone =
      B.CreateAnd(AllDone, CallWhole(llvm::ConstantInt::getTrue(
                               llvm::FixedVectorType::get(B.getInt1Ty(), W))));
  llvm::Value *NextY = B.CreateAdd(Y, B.getInt32(1), "", true, true);
  Y->addIncoming(NextY, B.GetInsertBlock());
  AllDone->addIncoming(ColumnDone, B.GetInsertBlock());
  auto *ColumnEnd = llvm::BasicBlock::Create(C, "column.end", F);
  B.CreateCondBr(B.CreateICmpULT(NextY, Rows), Head, ColumnEnd);
  B.SetInsertPoint(ColumnEnd);
  llvm::Value *Next = B.CreateAdd(X, B.getInt32(W), "", true, true);
  X->addIncoming(Next, ColumnEnd);
  B.CreateCondBr(
      B.CreateAnd(B.CreateNot(ColumnDone), B.CreateICmpULT(Next, Whole)),
      Column, Full);
  B.SetInsertPoint(Full);
  if (WholeWaves) {
    B.CreateBr(Done);
    B.SetInsertPoint(Done);
    return;
  }
  llvm::PHINode *Stop = B.CreatePHI(B.getInt1Ty(), 2, "rows.stop");
  Stop->addIncoming(B.getFalse(), Pre);
  Stop->addIncoming(ColumnDone, ColumnEnd);
  auto *Tail = llvm::BasicBlock::Create(C, "wave.tail", F, Done);
  B.CreateCondBr(B.CreateAnd(B.CreateNot(Stop), B.CreateICmpNE(Count, Whole)),
                 Tail, Done);
  B.SetInsertPoint(Tail);
  B.CreateStore(Whole, LocalX);
  llvm::Value *Mask = tailMask(B, W, B.CreateSub(Count, Whole));
  emitLoop(B, Rows, "y", [&](llvm::Value *TailY) {
    B.CreateStore(TailY, LocalY);
    CallPartial(Mask);
  });
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
}

/// The X loop of a vectorized resumable kernel: one call of the body per
/// wave, with the lanes past the row's end off (one copy of the body).
template <typename CallFn>
void emitMaskedWaveLoop(llvm::IRBuilder<> &B, llvm::Value *LocalX,
                        llvm::Value *Count, unsigned W, CallFn Call) {
  emitSteppedLoop(B, B.getInt32(0), Count, W, "wave", [&](llvm::Value *X) {
    B.CreateStore(X, LocalX);
    Call(lanesBelow(B, W, B.CreateSub(Count, X), "wave.mask"));
  });
}

/// The waves of HSAIL's wavefronts (PRM 2.6) in a group whose rows are not
/// a multiple of W long: W work-items at a time in current flattened id
/// order, crossing rows, the last wave's lanes past the group off.
/// Call(Mask) calls the body (WaveLayout::Flat) for the wave whose first
/// work-item's ids it stored.
template <typename CallFn>
void emitFlatWaveLoop(llvm::IRBuilder<> &B, llvm::Value *const Local[3],
                      llvm::Value *const Current[3], unsigned W, CallFn Call) {
  llvm::Value *Items =
      B.CreateMul(Current[0], B.CreateMul(Current[1], Current[2]));
  emitSteppedLoop(B, B.getInt32(0), Items, W, "flat", [&](llvm::Value *Flat) {
    llvm::Value *Row = B.CreateUDiv(Flat, Current[0]);
    B.CreateStore(B.CreateURem(Flat, Current[0]), Local[0]);
    B.CreateStore(B.CreateURem(Row, Current[1]), Local[1]);
    B.CreateStore(B.CreateUDiv(Row, Current[1]), Local[2]);
    Call(lanesBelow(B, W, B.CreateSub(Items, Flat), "flat.mask"));
  });
}

/// Whether the group's rows are whole waves (or it has one row): then the
/// waves along rows are HSAIL's wavefronts, and WaveLayout::Rows serves.
llvm::Value *rowsAreWavefronts(llvm::IRBuilder<> &B,
                               llvm::Value *const Current[3], unsigned W) {
  return B.CreateOr(
      B.CreateICmpEQ(B.CreateAnd(Current[0], B.getInt32(W - 1)), B.getInt32(0)),
      B.CreateICmpEQ(B.CreateMul(Current[1], Current[2]), B.getInt32(1)));
}

/// Whether Asks(Call, Callee) holds for a call in F or in a function it
/// calls, directly or not (Callee is null for an indirect call).
template <typename AskFn> bool anyCallIn(const llvm::Function &F, AskFn Asks) {
  llvm::SmallPtrSet<const llvm::Function *, 8> Seen{&F};
  llvm::SmallVector<const llvm::Function *, 8> Work{&F};
  while (!Work.empty()) {
    const llvm::Function *G = Work.pop_back_val();
    for (const llvm::BasicBlock &BB : *G)
      for (const llvm::Instruction &I : BB) {
        auto *CI = llvm::dyn_cast<llvm::CallBase>(&I);
        if (!CI)
          continue;
        const llvm::Function *Callee = CI->getCalledFunction();
        if (Asks(*CI, Callee))
          return true;
        if (Callee && !Callee->isDeclaration() && Seen.insert(Callee).second)
          Work.push_back(Callee);
      }
  }
  return false;
}

/// Whether F, or a function it calls, asks for a work-item's Y or Z id (or
/// a flattened one, which needs them): then its rows may differ, and what
/// they compute from the X ids alone they share.
bool usesRowIds(const llvm::Function &F) {
  return anyCallIn(
      F, [](const llvm::CallBase &CI, const llvm::Function *Callee) {
        if (!Callee || Callee->getName() != query::WorkItemId)
          return false;
        auto *D = llvm::dyn_cast<llvm::ConstantInt>(CI.getArgOperand(1));
        return !D || !D->isZero();
      });
}

/// Whether V is Q's call for dimension 0 (X), or its zero extension (the
/// u64 forms of the id instructions).
bool isXQuery(const llvm::Value *V, const char *Q) {
  if (auto *Z = llvm::dyn_cast<llvm::ZExtInst>(V))
    V = Z->getOperand(0);
  auto *CI = llvm::dyn_cast<llvm::CallInst>(V);
  if (!CI || !CI->getCalledFunction() ||
      CI->getCalledFunction()->getName() != Q || CI->arg_size() < 2)
    return false;
  auto *D = llvm::dyn_cast<llvm::ConstantInt>(CI->getArgOperand(1));
  return D && D->isZero();
}

/// The users of query call CI, looking through one zero extension.
llvm::SmallVector<const llvm::User *, 4> usersOf(const llvm::CallBase &CI) {
  llvm::SmallVector<const llvm::User *, 4> Users;
  for (const llvm::User *U : CI.users()) {
    if (llvm::isa<llvm::ZExtInst>(U))
      Users.append(U->user_begin(), U->user_end());
    else
      Users.push_back(U);
  }
  return Users;
}

/// Whether U is `group id * group size + local id` along X (HSAIL's
/// absolute id, as LowerWorkItem.cpp builds it).
bool isAbsoluteX(const llvm::User *U) {
  auto *Add = llvm::dyn_cast<llvm::BinaryOperator>(U);
  if (!Add || Add->getOpcode() != llvm::Instruction::Add)
    return false;
  for (unsigned Side = 0; Side < 2; ++Side) {
    auto *Mul = llvm::dyn_cast<llvm::BinaryOperator>(Add->getOperand(Side));
    if (!Mul || Mul->getOpcode() != llvm::Instruction::Mul ||
        !isXQuery(Add->getOperand(1 - Side), query::WorkItemId))
      continue;
    for (unsigned M = 0; M < 2; ++M)
      if (isXQuery(Mul->getOperand(M), query::WorkGroupId) &&
          isXQuery(Mul->getOperand(1 - M), query::WorkGroupSize))
        return true;
  }
  return false;
}

/// Whether F, and what it calls, read their work-items' X ids only as
/// absolute ids (workitemabsid, workitemflatabsid), and neither the current
/// group size along X nor private memory (whose blocks follow the local
/// ids). Then a run of whole groups along X (abi/CpuDispatchContext.h
/// RunGroups) is, for F, one row of work-items as long as the run: the
/// first group's id with local X ids past its size gives every absolute id.
bool readsOnlyAbsoluteX(const llvm::Function &F) {
  return !anyCallIn(
      F, [](const llvm::CallBase &CI, const llvm::Function *Callee) {
        if (!Callee)
          return true;
        const llvm::StringRef Name = Callee->getName();
        if (Name == query::PrivateBase)
          return true;
        const bool Local = Name == query::WorkItemId,
                   Group = Name == query::WorkGroupId,
                   Current = Name == query::CurrentWorkGroupSize;
        if (!Local && !Group && !Current)
          return false;
        auto *D = llvm::dyn_cast<llvm::ConstantInt>(CI.getArgOperand(1));
        if (!D)
          return true;
        if (!D->isZero())
          return false;
        if (Current)
          return true;
        for (const llvm::User *U : usersOf(CI)) {
          if (Local && !isAbsoluteX(U))
            return true;
          if (Group) { // The multiply, whose every use is an absolute id.
            if (!llvm::isa<llvm::BinaryOperator>(U) ||
                llvm::cast<llvm::BinaryOperator>(U)->getOpcode() !=
                    llvm::Instruction::Mul)
              return true;
            for (const llvm::User *V : U->users())
              if (!isAbsoluteX(V))
                return true;
          }
        }
        return false;
      });
}

/// Whether F, or a function it calls, may reach the group segment (every
/// group address starts from its base; an indirect call may do anything).
bool mayUseGroupMemory(const llvm::Function &F) {
  return anyCallIn(F, [](const llvm::CallBase &CI,
                         const llvm::Function *Callee) {
    return Callee ? Callee->getName() == query::GroupBase : !CI.isInlineAsm();
  });
}

/// Whether a loop of F (or of what it calls) reading or writing at Ptr
/// stays in the work-item's own memory: its registers and spills (allocas),
/// its private segment, or the kernarg segment, which no kernel writes.
bool isWorkItemMemory(const llvm::Value *Ptr, const llvm::Function &Kernel) {
  const llvm::Value *Base = llvm::getUnderlyingObject(Ptr, /*MaxLookup=*/0);
  if (llvm::isa<llvm::AllocaInst>(Base))
    return true;
  if (auto *A = llvm::dyn_cast<llvm::Argument>(Base))
    return A->getParent() == &Kernel && A->getArgNo() == 0; // %kernarg
  if (auto *CI = llvm::dyn_cast<llvm::CallInst>(Base))
    if (const llvm::Function *Callee = CI->getCalledFunction())
      return Callee->getName() == query::PrivateBase;
  return false;
}

/// Whether F, and what it calls, may run rows across groups: none of its
/// work-items can wait for another (no atomic, fence or runtime call
/// (signals); a loop reading plain memory that another work-item writes
/// would be a data race, which the memory model leaves undefined), so any
/// order of them is as good as the work-group order; and no loop of it
/// reaches memory beyond the work-item's own (isWorkItemMemory). Rows
/// across groups are what streaming kernels need (the stencil's and the
/// median's groups of 16x16 read 18 rows of 16 elements each, which no
/// prefetcher follows); a work-item that loops over global memory (the
/// naive sgemm's column of B, 64 KiB) keeps its group's rows together,
/// which share what it reads. A kernel with loops that reads no global
/// memory at all (mandelbrot's escape loop, then a store) has no stream
/// to gain, and the loop over a run's waves, as long as a row of it, is
/// versioned on its bounds (UniformConditions): a second copy of the
/// loop to compile (mandelbrot's fixed shape: 11.5-12.0 -> 15-17.5 ms on
/// the 2-core EPYC). It keeps one group at a time.
bool runsRowsAcrossGroups(const llvm::Function &F) {
  // Each function with whether all of it runs in a loop of its caller;
  // a function may be called both ways.
  llvm::SmallPtrSet<const llvm::Function *, 8> Seen[2];
  Seen[false].insert(&F);
  llvm::SmallVector<std::pair<const llvm::Function *, bool>, 8> Work{
      {&F, false}};
  bool Loops = false, ReadsGlobal = false;
  while (!Work.empty()) {
    auto [G, CalledInLoop] = Work.pop_back_val();
    llvm::CycleInfo Cycles;
    Cycles.compute(const_cast<llvm::Function &>(*G));
    for (const llvm::BasicBlock &BB : *G) {
      const bool InLoop = CalledInLoop || Cycles.getCycle(&BB);
      Loops |= InLoop;
      for (const llvm::Instruction &I : BB) {
        if (I.isAtomic())
          return false;
        if (auto *L = llvm::dyn_cast<llvm::LoadInst>(&I)) {
          const bool Own = isWorkItemMemory(L->getPointerOperand(), F);
          if (InLoop && !Own)
            return false;
          ReadsGlobal |= !Own;
        }
        if (auto *S = llvm::dyn_cast<llvm::StoreInst>(&I);
            S && InLoop && !isWorkItemMemory(S->getPointerOperand(), F))
          return false;
        auto *CI = llvm::dyn_cast<llvm::CallBase>(&I);
        if (!CI)
          continue;
        const llvm::Function *Callee = CI->getCalledFunction();
        if (!Callee)
          return false;
        if (Callee->isIntrinsic()) {
          if (InLoop && CI->mayReadOrWriteMemory())
            for (const llvm::Use &U : CI->args())
              if (U->getType()->isPointerTy() && !isWorkItemMemory(U, F))
                return false;
          continue;
        }
        if (Callee->isDeclaration()) {
          // Queries of the work-item's state (Lowering.h) only.
          if (!Callee->getName().starts_with("openhsa."))
            return false;
        } else if (Seen[InLoop].insert(Callee).second) {
          Work.push_back({Callee, InLoop});
        }
      }
    }
  }
  return !Loops || ReadsGlobal;
}

/// Explicit vectors of 512 bits in F use the zmm registers even where LLVM
/// would otherwise prefer 256-bit vectors on this CPU.
void preferWideVectors(llvm::Function *F) {
  if (hostHasFeature("avx512f")) {
    F->addFnAttr("prefer-vector-width", "512");
    F->addFnAttr("min-legal-vector-width", "512");
  }
}

/// The vectorized body is inlined into work-group function F.
void inlineVectorBody(llvm::Function *F, llvm::Function *VecBody) {
  VecBody->addFnAttr(llvm::Attribute::AlwaysInline);
  preferWideVectors(F);
}

/// Marks F, a resumable vectorized body for the partial waves at the end of
/// rows, as such: called out of line (once a row) and optimized for size,
/// as the exception it is (whole waves run copies inlined per region).
void makeCold(llvm::Function &F) {
  F.addFnAttr(llvm::Attribute::NoInline);
  F.addFnAttr(llvm::Attribute::OptimizeForSize);
  F.addFnAttr(llvm::Attribute::Cold);
  preferWideVectors(&F);
}

/// A copy of the vectorized resumable body V (`i32 (kernarg, wi, resume,
/// mask)`) for the region after barrier At (0: the kernel's start), as
/// `i32 (kernarg, wi, mask)`: the resume point a constant, and the code of
/// the other regions gone before the optimization pipeline sees it (it
/// would otherwise work through a whole body per region).
llvm::Function *regionCopy(llvm::Function &V, unsigned At) {
  llvm::ValueToValueMapTy VMap;
  VMap[V.getArg(2)] =
      llvm::ConstantInt::get(V.getArg(2)->getType(), uint64_t(At));
  llvm::Function *R = llvm::CloneFunction(&V, VMap);
  R->setName(V.getName() + ".region" + llvm::Twine(At));
  StandaloneAnalyses Analyses;
  llvm::FunctionAnalysisManager &FAM = Analyses.functions();
  llvm::FunctionPassManager FPM;
  FPM.addPass(llvm::SCCPPass());
  FPM.addPass(llvm::SimplifyCFGPass());
  FPM.run(*R, FAM);
  return R;
}

/// FlatBody, for kernels whose wavefronts must be HSAIL's (cross-lane
/// operations, wavebarrier), runs groups whose rows are not whole waves.
llvm::Function *buildWorkGroupFunction(llvm::Module &M, LoweredKernel &K,
                                       llvm::Function *VecBody,
                                       llvm::Function *FlatBody, unsigned W,
                                       uint64_t GroupFileOffset,
                                       bool DeferPartialWaves) {
  llvm::LLVMContext &C = M.getContext();
  auto *PtrTy = llvm::PointerType::get(C, 0);
  auto *I32 = llvm::Type::getInt32Ty(C);
  auto *FnTy = llvm::FunctionType::get(llvm::Type::getVoidTy(C),
                                       {PtrTy, PtrTy, I32, I32, I32}, false);
  const std::string Name = "openhsa.wg." + K.Symbol.Name.substr(1);
  llvm::Function *F =
      llvm::Function::Create(FnTy, llvm::GlobalValue::ExternalLinkage, Name, M);
  // Every work-item a call starts ends in it: its group and private
  // segments end when it returns (DeadGroupStores.h).
  F->addFnAttr(WorkGroupFunctionAttr);
  // The packet's kernarg block holds all the kernel's arguments (PRM 4.21),
  // each at its natural alignment: loads of arguments may move out of
  // work-item loops and branches. 8, not the segment's 16: callers often
  // pass an 8-aligned struct, and this must not license 16-byte aligned
  // vector loads of it.
  if (K.Symbol.KernargSegmentSize)
    for (llvm::Function *G : {F, K.Body}) {
      G->addParamAttr(0, llvm::Attribute::getWithDereferenceableBytes(
                             C, K.Symbol.KernargSegmentSize));
      G->addParamAttr(
          0,
          llvm::Attribute::getWithAlignment(
              C, llvm::Align(std::min(8u, K.Symbol.KernargSegmentAlignment))));
    }
  llvm::Value *Kernarg = F->getArg(0), *Context = F->getArg(1);
  llvm::Value *Group[3] = {F->getArg(2), F->getArg(3), F->getArg(4)};

  llvm::IRBuilder<> B(llvm::BasicBlock::Create(C, "entry", F));
  auto *WiTy = workItemType(C);
  llvm::Value *Wi = B.CreateAlloca(WiTy);
  B.CreateStore(Context, B.CreateStructGEP(WiTy, Wi, WiContext));
  auto GroupIdPtr = [&](unsigned D) {
    return B.CreateGEP(WiTy, Wi,
                       {B.getInt32(0), B.getInt32(WiGroup), B.getInt32(D)});
  };
  // A shape the kernel's control directives fix is a constant
  // (FixedGroupShape.h).
  const FixedGroupShape Shape = fixedGroupShape(K.Symbol);
  // A group or grid X size fixed at other than whole waves: every dispatch
  // would need the partial waves' code that the runtime finalizes later
  // (the packet processor runs whole-wave code only where both are whole).
  if (W > 1 && ((Shape.Size[0] && Shape.Size[0] % W) ||
                (Shape.Grid[0] && Shape.Grid[0] % W)))
    DeferPartialWaves = false;
  // The vectorized body's copies for each region (barrier kernels).
  llvm::SmallVector<llvm::Function *, 16> RegionBodies;
  llvm::Value *Current[3];
  for (unsigned D = 0; D < 3; ++D) {
    B.CreateStore(Group[D], GroupIdPtr(D));
    llvm::Value *Size = Shape.fixed()
                            ? B.getInt32(Shape.Size[D])
                            : contextField(B, Wi, offsetof(Ctx, workgroup_size),
                                           I32, B.getInt32(D));
    if (Shape.Whole[D]) {
      Current[D] = Size;
    } else {
      // A partial group at the grid's far edge: min(size, grid - first).
      llvm::Value *Grid =
          contextField(B, Wi, offsetof(Ctx, grid_size), I32, B.getInt32(D));
      llvm::Value *First = B.CreateMul(Group[D], Size);
      Current[D] = B.CreateBinaryIntrinsic(llvm::Intrinsic::umin, Size,
                                           B.CreateSub(Grid, First));
    }
    B.CreateStore(
        Current[D],
        B.CreateGEP(WiTy, Wi,
                    {B.getInt32(0), B.getInt32(WiCurrentSize), B.getInt32(D)}));
  }
  auto LocalPtr = [&](unsigned D) {
    return B.CreateGEP(WiTy, Wi,
                       {B.getInt32(0), B.getInt32(WiLocal), B.getInt32(D)});
  };
  llvm::Value *Local[3] = {LocalPtr(0), LocalPtr(1), LocalPtr(2)};

  // The part of the group to run: a slice the agent chose
  // (abi/CpuDispatchContext.h) where the work-items run apart from each
  // other, else all of it.
  llvm::Value *Begin[3] = {B.getInt32(0), B.getInt32(0), B.getInt32(0)};
  llvm::Value *End[3] = {Current[0], Current[1], Current[2]};
  if (K.Symbol.SliceStep) {
    using Cdc = abi::CpuDispatchContext;
    llvm::Value *Empty = B.getFalse();
    for (unsigned D = 0; D < 3; ++D) {
      auto Field = [&](size_t Offset, const char *Name) {
        return B.CreateLoad(
            I32, B.CreateConstGEP1_64(B.getInt8Ty(), Context, Offset + 4 * D),
            Name);
      };
      Begin[D] = Field(offsetof(Cdc, SliceBegin), "slice.begin");
      llvm::Value *SliceEnd = Field(offsetof(Cdc, SliceEnd), "");
      // A multiple of the step along X (abi/CpuDispatchContext.h): said so,
      // a group of whole waves has whole waves in each slice (emitWaveLoop).
      if (D == 0 && llvm::isPowerOf2_32(K.Symbol.SliceStep))
        SliceEnd = B.CreateAnd(SliceEnd, B.getInt32(~(K.Symbol.SliceStep - 1)));
      End[D] = B.CreateBinaryIntrinsic(llvm::Intrinsic::umin, Current[D],
                                       SliceEnd, nullptr, "slice.end");
      Empty = B.CreateOr(Empty, B.CreateICmpUGE(Begin[D], End[D]));
    }
    auto *Run = llvm::BasicBlock::Create(C, "slice", F);
    auto *None = llvm::BasicBlock::Create(C, "slice.empty", F);
    B.CreateCondBr(Empty, None, Run);
    B.SetInsertPoint(None);
    B.CreateRetVoid();
    B.SetInsertPoint(Run);
  }
  // A run of groups along X (abi/CpuDispatchContext.h): each row of local
  // ids of every group of the run in turn. The groups are whole along X,
  // so their rows are alike but for the group id. RowsOfRun(Row) emits
  // Row(), the X loop of a row of the group whose id is stored, for each.
  llvm::Value *RunGroups = nullptr;
  if (K.Symbol.GroupRuns)
    RunGroups = B.CreateLoad(
        I32,
        B.CreateConstGEP1_64(B.getInt8Ty(), Context,
                             offsetof(abi::CpuDispatchContext, RunGroups)),
        "run.groups");
  const bool RunsAsOneRow = RunGroups && readsOnlyAbsoluteX(*K.Body);
  auto RowsOfRun = [&](auto Row) {
    if (!RunGroups)
      return Row();
    emitLoop(B, RunGroups, "run", [&](llvm::Value *G) {
      B.CreateStore(B.CreateAdd(Group[0], G), GroupIdPtr(0));
      Row();
    });
  };

  if (K.Lockstep && VecBody) {
    // A group in lockstep is one vector of all its work-items
    // (LockstepGroups.h), whole and of the fixed shape: one call, at its
    // first work-item. Its code keeps Loop Strength Reduction (Codegen.h).
    F->addFnAttr(KeepsLoopStrengthReductionAttr);
    for (llvm::Value *Id : Local)
      B.CreateStore(B.getInt32(0), Id);
    B.CreateCall(VecBody, {Kernarg, Wi,
                           llvm::ConstantInt::getTrue(
                               llvm::FixedVectorType::get(B.getInt1Ty(), W))});
    B.CreateRetVoid();
    inlineVectorBody(F, VecBody);
  } else if (!K.UsesBarrier && VecBody) {
    // Each call runs its work-items to their end: their private data die
    // there (DeadGroupStores.h).
    llvm::FunctionCallee WorkItemsEnd = workItemsEndMarker(M);
    if (FlatBody) {
      auto *Rows = llvm::BasicBlock::Create(C, "rows", F);
      auto *Flat = llvm::BasicBlock::Create(C, "flat", F);
      B.CreateCondBr(rowsAreWavefronts(B, Current, W), Rows, Flat);
      B.SetInsertPoint(Flat);
      emitFlatWaveLoop(B, Local, Current, W, [&](llvm::Value *Mask) {
        B.CreateCall(FlatBody, {Kernarg, Wi, Mask});
        B.CreateCall(WorkItemsEnd);
      });
      B.CreateRetVoid();
      inlineVectorBody(F, FlatBody);
      B.SetInsertPoint(Rows);
    }
    emitLoop(B, Begin[2], End[2], "z", [&](llvm::Value *Z) {
      B.CreateStore(Z, LocalPtr(2));
      emitLoop(B, Begin[1], End[1], "y", [&](llvm::Value *Y) {
        B.CreateStore(Y, LocalPtr(1));
        // Kernels whose wavefronts are HSAIL's keep their partial waves:
        // rows that are not whole waves run FlatBody only where a row is
        // not a wavefront, not where it ends in a partial one.
        auto Waves = [&](llvm::Value *To) {
          K.Symbol.WholeWaveRows |= emitWaveLoop(
              B, LocalPtr(0), Begin[0], To, W, DeferPartialWaves && !FlatBody,
              [&](llvm::Value *, llvm::Value *Mask) {
                B.CreateCall(VecBody, {Kernarg, Wi, Mask});
                B.CreateCall(WorkItemsEnd);
              });
        };
        // A kernel that reads its X ids only as absolute ids runs the
        // run's row as one row: one loop over its waves, whose checks
        // UniformConditions makes once per row, rather than a loop for
        // each group (the stencil's groups of 16x16: a wave each).
        if (RunsAsOneRow)
          Waves(B.CreateMul(End[0], RunGroups, "run.end"));
        else
          RowsOfRun([&] { Waves(End[0]); });
      });
    });
    B.CreateRetVoid();
    inlineVectorBody(F, VecBody);
  } else if (!K.UsesBarrier) {
    emitLoop(B, Begin[2], End[2], "z", [&](llvm::Value *Z) {
      B.CreateStore(Z, LocalPtr(2));
      emitLoop(B, Begin[1], End[1], "y", [&](llvm::Value *Y) {
        B.CreateStore(Y, LocalPtr(1));
        emitLoop(B, Begin[0], End[0], "x", [&](llvm::Value *X) {
          B.CreateStore(X, LocalPtr(0));
          B.CreateCall(K.Body, {Kernarg, Wi});
          B.CreateCall(workItemsEndMarker(M));
        });
      });
    });
    B.CreateRetVoid();
  } else if (K.Scheduled) {
    // Work-items wait at different points (waitfbar): each resumes where
    // it stopped, pass after pass, until all have finished
    // (LowerFbarrier.cpp). A pass where none can proceed cannot end (the
    // PRM leaves it undefined): the group ends there instead of hanging.
    auto *GroupTy = llvm::ArrayType::get(I32, 3);
    llvm::Value *Group = B.CreateAlloca(GroupTy); // arrived, generation, items
    B.CreateStore(B.getInt32(0), B.CreateConstGEP2_32(GroupTy, Group, 0, 0));
    B.CreateStore(B.getInt32(0), B.CreateConstGEP2_32(GroupTy, Group, 0, 1));
    B.CreateStore(B.CreateMul(Current[0], B.CreateMul(Current[1], Current[2])),
                  B.CreateConstGEP2_32(GroupTy, Group, 0, 2));
    llvm::Value *Progress = B.CreateAlloca(B.getInt1Ty());
    llvm::Value *Live = B.CreateAlloca(B.getInt1Ty());
    llvm::BasicBlock *Pre = B.GetInsertBlock();
    auto *Pass = llvm::BasicBlock::Create(C, "pass", F);
    auto *Done = llvm::BasicBlock::Create(C, "done", F);
    B.CreateBr(Pass);
    B.SetInsertPoint(Pass);
    llvm::PHINode *Resume = B.CreatePHI(I32, 2, "resume");
    Resume->addIncoming(B.getInt32(0), Pre);
    B.CreateStore(B.getFalse(), Progress);
    B.CreateStore(B.getFalse(), Live);
    emitLoop(B, Current[2], "z", [&](llvm::Value *Z) {
      B.CreateStore(Z, LocalPtr(2));
      emitLoop(B, Current[1], "y", [&](llvm::Value *Y) {
        B.CreateStore(Y, LocalPtr(1));
        emitLoop(B, Current[0], "x", [&](llvm::Value *X) {
          B.CreateStore(X, LocalPtr(0));
          // 0: finished, 1: stopped, 2: still waiting, 3: had finished.
          llvm::Value *R = B.CreateCall(K.Body, {Kernarg, Wi, Resume, Group});
          B.CreateStore(B.CreateOr(B.CreateLoad(B.getInt1Ty(), Progress),
                                   B.CreateICmpULT(R, B.getInt32(2))),
                        Progress);
          B.CreateStore(
              B.CreateOr(B.CreateLoad(B.getInt1Ty(), Live),
                         B.CreateICmpULT(B.CreateSub(R, B.getInt32(1)),
                                         B.getInt32(2))),
              Live);
        });
      });
    });
    Resume->addIncoming(B.getInt32(1), B.GetInsertBlock());
    B.CreateCondBr(B.CreateAnd(B.CreateLoad(B.getInt1Ty(), Progress),
                               B.CreateLoad(B.getInt1Ty(), Live)),
                   Pass, Done);
    B.SetInsertPoint(Done);
    B.CreateRetVoid();
  } else {
    // Region by region: every work-item runs to the next barrier; the
    // region they stopped at is where all resume. Work-items that
    // finished early (only a debugtrap can make them, barriers being
    // uniform) do not end the group for the others.
    llvm::IRBuilder<> AtEntry(&F->getEntryBlock(), F->getEntryBlock().begin());
    // Each region gets work-item loops of its own, around a copy of the
    // body whose resume point is a constant: once inlined, a copy keeps
    // only its region's code, with no dispatch on the resume point per wave
    // or work-item, and what the region computes alike for every wave is
    // hoisted out of its loops. Past RegionCopiesMax barriers one copy
    // serves all, resuming where its argument says (finalization time).
    constexpr unsigned RegionCopiesMax = 16;
    const bool CopyPerRegion = K.Barriers < RegionCopiesMax;
    // After every wave ran a region, the group's shared registers as its
    // waves wrote them are those the next region reads (SlotBaseMarker in
    // WorkItemVectorizer.cpp).
    // Register by register, each as wide as the stores that wrote it, so
    // that the loads take the stores' values from the store buffer (one
    // memcpy of the whole file stalled on the narrower stores before it:
    // a quarter of the tree reduction's time).
    auto PassGroupRegisters = [&](const GroupRegisterSlots &Shared) {
      if (Shared.empty())
        return;
      llvm::Value *File = B.CreateConstGEP1_64(
          B.getInt8Ty(),
          contextField(B, Wi, offsetof(Ctx, private_base), B.getPtrTy()),
          GroupFileOffset);
      for (auto [Offset, Bytes] : Shared.Slots) {
        llvm::Type *Ty = B.getIntNTy(Bytes * 8);
        B.CreateStore(
            B.CreateLoad(Ty, B.CreateConstGEP1_64(B.getInt8Ty(), File,
                                                  Shared.Distance + Offset)),
            B.CreateConstGEP1_64(B.getInt8Ty(), File, Offset));
      }
    };
    auto EmitRegions = [&](llvm::Value *const Loops[3],
                           const GroupRegisterSlots &GroupShared,
                           bool PerRegion, auto Plane) {
      llvm::Value *NextSlot = AtEntry.CreateAlloca(I32); // mem2reg'd.
      llvm::BasicBlock *Pre = B.GetInsertBlock();
      auto *Region = llvm::BasicBlock::Create(C, "region", F);
      auto *Latch = llvm::BasicBlock::Create(C, "region.latch", F);
      auto *Done = llvm::BasicBlock::Create(C, "done", F);
      B.CreateBr(Region);
      B.SetInsertPoint(Region);
      llvm::PHINode *Resume = B.CreatePHI(I32, 2, "resume");
      Resume->addIncoming(B.getInt32(0), Pre);
      // A wave stopped at barrier R (-1: finished). Vectorized rows' bodies
      // also say whether the row's later waves have nothing to do
      // (RowDoneBias): the result.
      auto Stopped = [&](llvm::Value *R) -> llvm::Value * {
        llvm::Value *RowDone = B.CreateICmpSGE(R, B.getInt32(RowDoneBias - 1));
        R = B.CreateSelect(RowDone, B.CreateSub(R, B.getInt32(RowDoneBias)), R);
        B.CreateStore(B.CreateSelect(B.CreateICmpEQ(R, B.getInt32(-1)),
                                     B.CreateLoad(I32, NextSlot), R),
                      NextSlot);
        return RowDone;
      };
      auto RunRegion = [&](llvm::Value *At) {
        B.CreateStore(B.getInt32(-1), NextSlot);
        emitLoop(B, Loops[2], "z", [&](llvm::Value *Z) {
          B.CreateStore(Z, LocalPtr(2));
          Plane(Loops[1], At, Stopped);
        });
        PassGroupRegisters(GroupShared);
        B.CreateBr(Latch);
      };
      if (PerRegion) {
        // The resume points are 0 to Barriers; any other value is the end
        // (there is none).
        llvm::SwitchInst *Dispatch =
            B.CreateSwitch(Resume, Done, K.Barriers + 1);
        for (unsigned At = 0; At <= K.Barriers; ++At) {
          auto *Run = llvm::BasicBlock::Create(C, "region." + llvm::Twine(At),
                                               F, Latch);
          Dispatch->addCase(B.getInt32(At), Run);
          B.SetInsertPoint(Run);
          RunRegion(B.getInt32(At));
        }
      } else {
        RunRegion(Resume);
      }
      B.SetInsertPoint(Latch);
      llvm::Value *Next = B.CreateLoad(I32, NextSlot);
      Resume->addIncoming(Next, Latch);
      B.CreateCondBr(B.CreateICmpEQ(Next, B.getInt32(-1)), Done, Region);
      B.SetInsertPoint(Done);
      B.CreateRetVoid();
    };
    // Plane(Rows, Resume, Stopped) runs the region's work-items of one Z id.
    auto ScalarPlane = [&](llvm::Value *Rows, llvm::Value *Resume,
                           auto Stopped) {
      emitLoop(B, Rows, "y", [&](llvm::Value *Y) {
        B.CreateStore(Y, LocalPtr(1));
        emitLoop(B, Current[0], "x", [&](llvm::Value *X) {
          B.CreateStore(X, LocalPtr(0));
          Stopped(B.CreateCall(K.Body, {Kernarg, Wi, Resume}));
        });
      });
    };
    // Waves of W work-items, each keeping its registers in a register file
    // of its own, lane by lane (WorkItemVectorizer.h). With a copy per
    // region, groups of whole waves (RowsRegions) run the region's copy
    // inlined, whose mask is a constant as in kernels without barriers,
    // column by column (emitColumnWaveLoops) where the body asks for a Y or
    // Z id; other groups call the whole masked body (one copy for all
    // regions, out of line) for each wave. Without copies per region one
    // masked copy, inlined, serves every wave, row by row. A body that never
    // asks for a Y or Z id computes alike in every row, and a loop over a
    // column's rows would only cost (the tree reduction on one core, 2-core
    // VM: 5.8 against 4.9 ms).
    const bool ByColumns = VecBody && usesRowIds(*K.Body);
    // Every wave through the masked body, one call per wave.
    auto MaskedPlane = [&](llvm::Value *Rows, llvm::Value *Resume,
                           auto Stopped) {
      emitLoop(B, Rows, "y", [&](llvm::Value *Y) {
        B.CreateStore(Y, LocalPtr(1));
        emitMaskedWaveLoop(
            B, LocalPtr(0), Current[0], W, [&](llvm::Value *Mask) {
              Stopped(B.CreateCall(VecBody, {Kernarg, Wi, Resume, Mask}));
            });
      });
    };
    // Whether the rows of the group being emitted are known to be whole
    // waves (RowsRegions).
    bool WholeWaves = false;
    auto WavePlane = [&](llvm::Value *Rows, llvm::Value *Resume, auto Stopped) {
      if (CopyPerRegion) {
        const unsigned At =
            unsigned(llvm::cast<llvm::ConstantInt>(Resume)->getZExtValue());
        if (RegionBodies.size() <= At)
          RegionBodies.resize(At + 1);
        if (!RegionBodies[At])
          RegionBodies[At] = regionCopy(*VecBody, At);
        llvm::Function *Copy = RegionBodies[At];
        auto Whole = [&](llvm::Value *AllOn) {
          return Stopped(B.CreateCall(Copy, {Kernarg, Wi, AllOn}));
        };
        auto Partial = [&](llvm::Value *Mask) {
          Stopped(B.CreateCall(VecBody, {Kernarg, Wi, Resume, Mask}));
        };
        if (ByColumns) {
          emitColumnWaveLoops(B, LocalPtr(0), LocalPtr(1), Current[0], Rows, W,
                              WholeWaves, Whole, Partial);
        } else {
          emitLoop(B, Rows, "y", [&](llvm::Value *Y) {
            B.CreateStore(Y, LocalPtr(1));
            emitRowWaveLoop(B, LocalPtr(0), Current[0], W, WholeWaves, Whole,
                            Partial);
          });
        }
      } else {
        MaskedPlane(Rows, Resume, Stopped);
      }
    };
    auto RowsRegions = [&] {
      const GroupRegisterSlots Shared = groupRegisterSlots(*VecBody);
      if (!CopyPerRegion) {
        EmitRegions(Current, Shared, false, WavePlane);
      } else {
        // Groups whose rows are not whole waves (narrower than a wave, or
        // not a multiple of one: a partial group at the grid's edge, an odd
        // shape) run every wave through the masked body, out of line, one
        // copy for all regions; only groups of whole waves get the copies
        // per region. Partial waves in those copies' loops, and the copies
        // LLVM unswitched for groups without a whole wave, took about 40 %
        // of a barrier kernel's finalization (the tree reduction 53 -> 34
        // ms on the 2-core development VM), for the exception; groups of
        // such widths run slower (finalizer/README.md).
        llvm::Value *RowsWhole = B.CreateAnd(
            B.CreateICmpEQ(B.CreateAnd(Current[0], B.getInt32(W - 1)),
                           B.getInt32(0)),
            B.CreateICmpUGE(Current[0], B.getInt32(W)));
        auto *Known = llvm::dyn_cast<llvm::ConstantInt>(RowsWhole);
        if (!Known || Known->isZero()) {
          auto *Whole = llvm::BasicBlock::Create(C, "rows.whole", F);
          auto *Masked = llvm::BasicBlock::Create(C, "rows.masked", F);
          B.CreateCondBr(RowsWhole, Whole, Masked);
          B.SetInsertPoint(Masked);
          EmitRegions(Current, Shared, false, MaskedPlane);
          B.SetInsertPoint(Whole);
        }
        if (!Known || Known->isOne()) {
          WholeWaves = true;
          EmitRegions(Current, Shared, true, WavePlane);
          WholeWaves = false;
        } else {
          B.CreateUnreachable(); // The shape has no whole rows of waves.
        }
        for (llvm::Function *Copy : RegionBodies)
          if (Copy)
            inlineVectorBody(F, Copy);
        makeCold(*VecBody);
      }
      if (!CopyPerRegion)
        inlineVectorBody(F, VecBody);
    };
    if (!VecBody) {
      EmitRegions(Current, GroupRegisterSlots{}, false, ScalarPlane);
    } else if (!FlatBody) {
      RowsRegions();
    } else {
      auto *Rows = llvm::BasicBlock::Create(C, "rows", F);
      auto *Flat = llvm::BasicBlock::Create(C, "flat", F);
      B.CreateCondBr(rowsAreWavefronts(B, Current, W), Rows, Flat);
      B.SetInsertPoint(Flat);
      // One sweep of flat waves per region: the Z and Y loops run once.
      llvm::Value *One[3] = {B.getInt32(1), B.getInt32(1), B.getInt32(1)};
      EmitRegions(
          One, groupRegisterSlots(*FlatBody), false,
          [&](llvm::Value *, llvm::Value *Resume, auto Stopped) {
            emitFlatWaveLoop(B, Local, Current, W, [&](llvm::Value *Mask) {
              Stopped(B.CreateCall(FlatBody, {Kernarg, Wi, Resume, Mask}));
            });
          });
      B.SetInsertPoint(Rows);
      RowsRegions();
      inlineVectorBody(F, FlatBody);
    }
  }
  // Last: the work-group function's choices above read the queries as
  // calls (readsOnlyAbsoluteX).
  for (llvm::Function *Own : {K.Body, VecBody, FlatBody})
    if (Own)
      foldFixedGroupQueries(*Own, Shape);
  for (llvm::Function *Copy : RegionBodies)
    if (Copy)
      foldFixedGroupQueries(*Copy, Shape);
  K.Body->addFnAttr(llvm::Attribute::AlwaysInline);
  return F;
}

} // namespace

namespace {

/// HSAIL gives a load or store at address 0 no meaning LLVM may exploit (a
/// flat or global null is just an address, PRM 6.3): without this LLVM
/// deletes such accesses as undefined and the kernel "succeeds". Kept, they
/// fault and the queue reports it (cpu_agent/KernelFaults.h). The inliner
/// gives the attribute to callers and the vectorizer's clones copy it.
void keepNullAccesses(llvm::Module &M) {
  for (llvm::Function &F : M)
    if (!F.isDeclaration())
      F.addFnAttr(llvm::Attribute::NullPointerIsValid);
}

} // namespace

llvm::Error buildCpuWorkGroupFunctions(
    llvm::Module &M, LoweredProgram &Program, unsigned VectorWidth,
    unsigned WavefrontSize, std::vector<VectorizeStats> *Stats,
    std::vector<std::string> *LockstepRefused, WorkGroupCodeOptions Code) {
  if (Stats)
    Stats->assign(Program.Kernels.size(), VectorizeStats{});
  keepNullAccesses(M); // Before the vectorizer simplifies the bodies.
  // Registers in SSA values within each region, in the file only where
  // live across a barrier (for the scalar and the vectorized bodies).
  for (LoweredKernel &K : Program.Kernels)
    if (K.UsesBarrier && !K.Scheduled && registerPromotionEnabled())
      promoteRegisterFile(*K.Body);
  // Vectorize while the queries are still calls the vectorizer recognizes.
  std::vector<llvm::Function *> VecBodies, FlatBodies;
  std::vector<uint64_t> GroupFileOffsets;
  llvm::Error Refusal = llvm::Error::success(); // Lockstep groups refused.
  const llvm::DataLayout &DL = M.getDataLayout();
  const llvm::StructLayout *SL =
      DL.getStructLayout(workItemType(M.getContext()));
  WorkItemStateLayout State{SL->getSizeInBytes(), SL->getElementOffset(WiLocal),
                            0};
  for (size_t Index = 0; Index < Program.Kernels.size(); ++Index) {
    LoweredKernel &K = Program.Kernels[Index];
    llvm::Function *V = nullptr, *Flat = nullptr;
    uint64_t GroupFileOffset = 0;
    // A kernel that uses cross-lane operations or wavebarrier runs in
    // HSAIL's wavefronts, whose width the lowering used: vectorized, or not
    // at all (work-items run one at a time are no wavefront).
    const bool Waves = WavefrontSize > 1 && usesWavefronts(*K.Body);
    // A lockstep group is one vector (LockstepGroups.h): the shape is fixed.
    // A 2-D group's lanes are its rows one after the other.
    const FixedGroupShape LockstepShape = fixedGroupShape(K.Symbol);
    const unsigned Lockstep =
        K.Lockstep ? LockstepShape.Size[0] * LockstepShape.Size[1] : 0;
    const unsigned RowWidth = K.Lockstep ? LockstepShape.Size[0] : 0;
    unsigned W = Lockstep      ? Lockstep
                 : Waves       ? WavefrontSize
                 : VectorWidth ? VectorWidth
                               : kernelVectorWidth(*K.Body);
    VectorizeStats KStats;
    const uint32_t LoweredPrivate = K.Symbol.PrivateSegmentSize;
    // Vectorizes at width W; V null and the reason in ScalarReason if not.
    auto Vectorize = [&] {
      // A wave's register file follows its first work-item's private
      // data: each work-item's block grows by W register files, and by two
      // more where the group shares registers (the group's copies, in its
      // first work-item's block). The wave's interleaved private data, if
      // any, come last (finalizer/PrivateInterleaving.h).
      State.WaveRegisterFileOffset = (uint64_t(LoweredPrivate) + 63) / 64 * 64;
      State.GroupRegisterFileOffset =
          State.WaveRegisterFileOffset + uint64_t(W) * K.RegisterFileSize;
      const uint64_t Grown =
          State.GroupRegisterFileOffset + 2 * K.RegisterFileSize;
      State.PrivateSegmentSize = LoweredPrivate;
      State.WavePrivateOffset = (Grown + 63) / 64 * 64;
      if (K.UsesBarrier && Grown > UINT32_MAX) {
        K.Symbol.ScalarReason = "its waves' register files are too large";
        return;
      }
      KStats = VectorizeStats{};
      WrapGuard Guard;
      auto R = vectorizeWorkItemBody(*K.Body, W, State, &KStats,
                                     WaveLayout::Rows, RowWidth,
                                     Code.GuardIndexWraps ? &Guard : nullptr);
      if (!R) {
        K.Symbol.ScalarReason = llvm::toString(R.takeError());
        return;
      }
      V = *R;
      K.Symbol.Guard = std::move(Guard);
      K.Symbol.ScalarReason.clear();
      K.Symbol.PrivateSegmentSize = LoweredPrivate;
      if (K.UsesBarrier && K.RegisterFileSize)
        K.Symbol.PrivateSegmentSize = uint32_t(
            !groupRegisterSlots(*V).empty() ? Grown
                                            : State.GroupRegisterFileOffset);
      if (KStats.PrivateAreaBytes) // Below 2^32 (interleavePrivateSegment).
        K.Symbol.PrivateSegmentSize =
            uint32_t(State.WavePrivateOffset + KStats.PrivateAreaBytes);
      GroupFileOffset = State.GroupRegisterFileOffset;
    };
    // Where lockstep groups would not pay, the caller lowers again.
    const std::string LockstepLoss =
        Lockstep
            ? whyLockstepLoopsStay(K, Lockstep / kernelVectorWidth(*K.Body))
            : "";
    if (W <= 1)
      K.Symbol.ScalarReason = "vectorization is off";
    else if (K.Scheduled)
      K.Symbol.ScalarReason = "work-items wait at fbarriers";
    else if (!LockstepLoss.empty())
      K.Symbol.ScalarReason = LockstepLoss;
    else
      Vectorize();
    // Gathers in a loop that lanes leave at different iterations (a
    // search, a walk through a table) wait on memory one wave at a time:
    // a wave four registers wide keeps four times as many in flight (as a
    // hand-written search keeps four key vectors; binary search on the
    // 16-core Xeon: 13.4 ms at 32 lanes, 10.1-11.5 at 64, the twin 8.8).
    // Only where the width is the finalizer's choice.
    // Code run lane by lane is copied for each of a lockstep group's
    // work-items, not a wave's: wider than a wave, not worth it.
    if (Lockstep && V && KStats.LaneCopies &&
        Lockstep > kernelVectorWidth(*K.Body)) {
      K.Symbol.ScalarReason =
          "it runs operations lane by lane (atomics, calls), which a "
          "lockstep group would copy for each of its work-items";
      V->eraseFromParent();
      V = nullptr;
    }
    if (Lockstep && !V) {
      if (LockstepRefused)
        LockstepRefused->push_back(K.Symbol.Name);
      Refusal = llvm::joinErrors(
          std::move(Refusal),
          brig::makeBrigError(K.Module, "hsa_code", K.Offset,
                              "kernel '" + K.Symbol.Name +
                                  "' cannot run as a lockstep group: " +
                                  K.Symbol.ScalarReason));
      VecBodies.push_back(nullptr);
      FlatBodies.push_back(nullptr);
      GroupFileOffsets.push_back(0);
      continue;
    }
    // Vectorizes again Wider wide, or, should that fail, as before.
    auto Widen = [&](unsigned Wider) {
      V->eraseFromParent();
      V = nullptr;
      const unsigned Was = W;
      W = Wider;
      Vectorize();
      if (!V) {
        W = Was;
        Vectorize();
      }
    };
    if (V && !Waves && !Lockstep && !VectorWidth && KStats.LoopGathers &&
        W < 64)
      Widen(std::min(64u, W * 4));
    // Floating-point arithmetic in loops (an accumulator, an iterate:
    // VectorizeStats::LoopChains) waits on its latency one register at a
    // time: where registers are narrower than AVX-512's, a wave of two
    // keeps two independent chains going, as a hand-written loop over 16
    // lanes with AVX2 does (x86-64-v3 on the 2-core EPYC: the naive sgemm
    // 217 -> 111-164 ms, twin 111-173; mandelbrot 11.0 -> 9.9, twin 7.8).
    // Not for loops with gathers (four registers above), barriers or code
    // run lane by lane; only where the width is the finalizer's choice.
    if (V && !Waves && !Lockstep && !VectorWidth && !K.UsesBarrier &&
        KStats.LoopChains && !KStats.LoopGathers && !KStats.LaneCopies &&
        hostVectorWidth() < 16 && W == kernelVectorWidth(*K.Body))
      Widen(W * 2);
    if (V && Waves) {
      WrapGuard Guard;
      if (auto RF = vectorizeWorkItemBody(
              *K.Body, W, State, nullptr, WaveLayout::Flat, 0,
              Code.GuardIndexWraps ? &Guard : nullptr)) {
        Flat = *RF;
        K.Symbol.Guard.append(Guard);
      } else
        K.Symbol.ScalarReason = llvm::toString(RF.takeError());
    }
    if (Stats)
      (*Stats)[Index] = V ? KStats : VectorizeStats{};
    if (Waves && (!V || !Flat))
      return brig::makeBrigError(
          K.Module, "hsa_code", K.Offset,
          "kernel '" + K.Symbol.Name +
              "' uses cross-lane operations or wavebarrier (PRM 9), which "
              "the CPU agent runs only in vectorized wavefronts of " +
              std::to_string(WavefrontSize) +
              " work-items, and cannot be vectorized: " +
              K.Symbol.ScalarReason);
    K.Symbol.VectorWidth = V ? W : 1;
    if (!V) // Scalar code has no wrap checks to leave out.
      K.Symbol.Guard = {};
    // Work-items that need no other work-item of their group (no barrier,
    // no group memory, no wavefront of HSAIL's) may run in slices of their
    // group on different threads (abi/CpuDispatchContext.h), whole waves
    // each.
    K.Symbol.SliceStep =
        !K.UsesBarrier && !K.Lockstep && !Waves && !mayUseGroupMemory(*K.Body)
            ? K.Symbol.VectorWidth
            : 0;
    K.Symbol.GroupRuns =
        K.Symbol.SliceStep > 1 && runsRowsAcrossGroups(*K.Body);
    VecBodies.push_back(V);
    FlatBodies.push_back(Flat);
    GroupFileOffsets.push_back(GroupFileOffset);
  }
  if (Refusal)
    return Refusal;
  defineQueries(M);
  for (size_t I = 0; I < Program.Kernels.size(); ++I)
    Program.Kernels[I].Symbol.EntrySymbol =
        buildWorkGroupFunction(M, Program.Kernels[I], VecBodies[I],
                               FlatBodies[I],
                               Program.Kernels[I].Symbol.VectorWidth,
                               GroupFileOffsets[I], Code.DeferPartialWaves)
            ->getName()
            .str();
  keepNullAccesses(M); // The work-group functions and queries defined here.
  return llvm::Error::success();
}

} // namespace openhsa::finalizer
