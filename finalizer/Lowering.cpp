//===- finalizer/Lowering.cpp - BRIG to target-neutral LLVM IR ------------===//
//
// Lowering walks each kernel's code block once. Labels start basic blocks;
// every instruction is translated on its own from its operands, with the
// HSAIL semantics spelled out in IR (no opaque helper calls), so LLVM can
// optimize across instructions. What is not translated yet fails with the
// instruction's name and BRIG offset. The instruction families live in
// Lower*.cpp.
//
//===----------------------------------------------------------------------===//
#include "finalizer/KernelLowering.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/CFG.h"

namespace openhsa::finalizer {
namespace detail {

uint64_t variableBytes(const BrigDirectiveVariable &V) {
  uint64_t Elem = typeBytes(V.type & ~BRIG_TYPE_ARRAY);
  uint64_t Dim = (V.type & BRIG_TYPE_ARRAY) ? V.dim.value() : 1;
  return Elem * Dim;
}

uint64_t variableAlign(const BrigDirectiveVariable &V) {
  uint64_t Natural = typeBytes(V.type & ~BRIG_TYPE_ARRAY);
  return std::max<uint64_t>(alignmentBytes(V.align), Natural ? Natural : 1);
}

llvm::Error
ProgramLowering::declareModuleVariable(const BrigModule &B,
                                       EntryRef<BrigDirectiveVariable> V,
                                       llvm::StringRef ModuleName) {
  llvm::StringRef Name = B.string(V->name);
  const std::string Symbol =
      programSymbol("hsa.var.", ModuleName, V->linkage, Name);
  // Declarations share the home of the definition, wherever in the program
  // it is (LowerCall.cpp collectDefinitions).
  const BrigModule *DefB = &B;
  EntryRef<BrigDirectiveVariable> Def = V;
  if (auto It = VarDefs.find(Symbol); It != VarDefs.end()) {
    DefB = It->second.first;
    Def = DefB->code<BrigDirectiveVariable>(It->second.second);
  }
  if (Def->segment != V->segment)
    return makeBrigError(B.name(), "hsa_code", V.Offset,
                         "variable '" + Name +
                             "' is declared in another segment than the one "
                             "it is defined in");
  const uint64_t Bytes = variableBytes(*Def);
  const uint64_t Align = variableAlign(*Def);
  const auto Known = VarHomes.find(Symbol);
  VariableHome Home;
  if (Known != VarHomes.end())
    Home = Known->second;
  Home.Segment = V->segment;
  switch (V->segment) {
  case BRIG_SEGMENT_GLOBAL:
  case BRIG_SEGMENT_READONLY: {
    const bool Definition = V->modifier & BRIG_VARIABLE_DEFINITION;
    if (!Home.Global) {
      auto *Ty =
          llvm::ArrayType::get(llvm::Type::getInt8Ty(M.getContext()), Bytes);
      llvm::Constant *Init = nullptr;
      if (Def->modifier & BRIG_VARIABLE_DEFINITION) {
        auto Data = initializerBytes(*DefB, Def);
        if (!Data)
          return Data.takeError();
        Data->resize(Bytes, '\0');
        Init = llvm::ConstantDataArray::getRaw(
            *Data, Bytes, llvm::Type::getInt8Ty(M.getContext()));
      }
      // A program-allocation definition is weak: where code of the program
      // is already loaded for another agent, the loader binds this code to
      // that variable and the definition here is discarded (one variable
      // per program, PRM 2.8.1).
      const bool Shared = Init && V->segment == BRIG_SEGMENT_GLOBAL &&
                          Def->allocation != BRIG_ALLOCATION_AGENT;
      auto *GV = new llvm::GlobalVariable(
          M, Ty, (Def->modifier & BRIG_VARIABLE_CONST) != 0,
          Shared ? llvm::GlobalValue::WeakAnyLinkage
                 : llvm::GlobalValue::ExternalLinkage,
          Init, Symbol);
      GV->setAlignment(llvm::Align(Align));
      Home.Global = GV;
    }
    VariableSymbol S;
    S.Name = Name.str();
    S.ModuleName = ModuleName.str();
    S.ProgramLinkage = V->linkage == BRIG_LINKAGE_PROGRAM;
    S.ObjectSymbol = Symbol;
    S.Segment = V->segment;
    S.AgentAllocation = V->allocation == BRIG_ALLOCATION_AGENT;
    S.Constant = V->modifier & BRIG_VARIABLE_CONST;
    S.Definition = Definition;
    S.Size = Bytes;
    S.Alignment = uint32_t(Align);
    Result.Variables.push_back(S);
    break;
  }
  case BRIG_SEGMENT_GROUP:
    if (Known == VarHomes.end()) {
      Home.Offset = alignTo(ProgramGroupSize, Align);
      ProgramGroupSize = Home.Offset + Bytes;
    }
    break;
  case BRIG_SEGMENT_PRIVATE:
    if (Known == VarHomes.end()) {
      Home.Offset = alignTo(ProgramPrivateSize, Align);
      ProgramPrivateSize = Home.Offset + Bytes;
    }
    break;
  default:
    return makeBrigError(B.name(), "hsa_code", V.Offset,
                         "module-scope variable in segment '" +
                             llvm::Twine(segmentName(V->segment)) +
                             "' is not supported");
  }
  ModuleVars[{&B, V.Offset}] = Home;
  VarHomes[Symbol] = Home;
  return llvm::Error::success();
}

llvm::Expected<LoweredProgram> ProgramLowering::run() {
  // Definitions first, so that declarations in any module of the program
  // resolve to them (LowerCall.cpp).
  if (auto Err = collectDefinitions())
    return Err;
  for (const BrigModule &B : Modules) {
    llvm::StringRef ModuleName = moduleName(B);
    // Top-level entries: walk from one module entry to the next.
    uint32_t Off = B.code().HeaderByteCount;
    while (Off < B.code().ByteCount) {
      EntryRef<BrigBase> E = B.code<BrigBase>(Off);
      if (!E)
        return makeBrigError(B.name(), "hsa_code", Off, "malformed entry");
      uint32_t Next = Off + E.byteCount();
      if (E.kind() == BRIG_KIND_DIRECTIVE_VARIABLE) {
        if (auto Err = declareModuleVariable(
                B, B.code<BrigDirectiveVariable>(Off), ModuleName))
          return Err;
      } else if (E.kind() == BRIG_KIND_DIRECTIVE_FBARRIER) {
        if (auto Err =
                declareModuleFbarrier(B, B.code<BrigDirectiveFbarrier>(Off)))
          return Err;
      } else if (E.kind() == BRIG_KIND_DIRECTIVE_KERNEL ||
                 E.kind() == BRIG_KIND_DIRECTIVE_FUNCTION ||
                 E.kind() == BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION ||
                 E.kind() == BRIG_KIND_DIRECTIVE_SIGNATURE) {
        auto X = B.code<BrigDirectiveExecutable>(Off);
        if (X->nextModuleEntry > Off)
          Next = X->nextModuleEntry;
        if (E.kind() == BRIG_KIND_DIRECTIVE_KERNEL)
          KernelTraps |= codeBlockUses(B, X, BRIG_OPCODE_DEBUGTRAP);
        if (X->modifier & BRIG_EXECUTABLE_DEFINITION)
          ProgramDetect |= enabledDetectExceptions(B, X);
      }
      if (Next <= Off)
        return makeBrigError(B.name(), "hsa_code", Off, "malformed entry");
      Off = Next;
    }
  }
  if (auto Err = layoutFunctionScope())
    return Err;
  for (const BrigModule &B : Modules) {
    llvm::StringRef ModuleName = moduleName(B);
    uint32_t Off = B.code().HeaderByteCount;
    while (Off < B.code().ByteCount) {
      EntryRef<BrigBase> E = B.code<BrigBase>(Off);
      uint32_t Next = Off + E.byteCount();
      if (E.kind() == BRIG_KIND_DIRECTIVE_FUNCTION ||
          E.kind() == BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION ||
          E.kind() == BRIG_KIND_DIRECTIVE_KERNEL ||
          E.kind() == BRIG_KIND_DIRECTIVE_SIGNATURE) {
        auto X = B.code<BrigDirectiveExecutable>(Off);
        Next = std::max(Next, X->nextModuleEntry);
        const bool Defined = X->modifier & BRIG_EXECUTABLE_DEFINITION;
        if (E.kind() == BRIG_KIND_DIRECTIVE_KERNEL && Defined) {
          KernelLowering KL(*this, B, X);
          auto K = KL.run();
          if (!K)
            return K.takeError();
          K->Symbol.ModuleName = ModuleName.str();
          Result.Kernels.push_back(std::move(*K));
        }
      }
      Off = Next;
    }
  }
  // Functions: indirect ones are entry points of their own; the others are
  // lowered as calls need them.
  if (auto Err = lowerFunctions())
    return Err;
  return std::move(Result);
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

KernelLowering::KernelLowering(ProgramLowering &P, const BrigModule &B,
                               EntryRef<BrigDirectiveExecutable> K)
    : P(P), B(B), K(K), Ctx(P.module().getContext()), Builder(Ctx),
      AllocaBuilder(Ctx) {}

llvm::Error KernelLowering::fail(uint32_t Offset,
                                 const llvm::Twine &Why) const {
  return makeBrigError(B.name(), "hsa_code", Offset,
                       (Kind == BodyKind::Kernel ? "kernel '" : "function '") +
                           B.string(K->name) + "': " + Why);
}

llvm::Error KernelLowering::failInst(EntryRef<BrigInstBase> I,
                                     const llvm::Twine &Why) const {
  return fail(I.Offset, "instruction '" + llvm::Twine(opcodeName(I->opcode)) +
                            "': " + Why);
}

void KernelLowering::startBlock(llvm::BasicBlock *BB) {
  llvm::BasicBlock *Cur = Builder.GetInsertBlock();
  if (Cur && !Cur->getTerminator())
    Builder.CreateBr(BB);
  BB->insertInto(F);
  Builder.SetInsertPoint(BB);
}

llvm::Error KernelLowering::declareVariable(EntryRef<BrigDirectiveVariable> V) {
  VariableHome Home;
  Home.Segment = V->segment;
  const uint64_t Bytes = variableBytes(*V);
  const uint64_t Align = variableAlign(*V);
  switch (V->segment) {
  case BRIG_SEGMENT_GROUP:
    if (Kind != BodyKind::Kernel) {
      // Program-wide, so that every copy of the function shares it.
      const VariableHome *H = P.functionScopeHome(B, V.Offset);
      if (!H)
        return fail(V.Offset, "function-scope group variable without a home");
      Home = *H;
      break;
    }
    Home.Offset = alignTo(GroupSize, Align);
    GroupSize = Home.Offset + Bytes;
    break;
  case BRIG_SEGMENT_PRIVATE:
  case BRIG_SEGMENT_SPILL:
    if (V->init)
      return fail(V.Offset, "private and spill variables cannot have an "
                            "initializer (PRM 4.10)");
    if (Kind != BodyKind::Kernel) {
      // One per activation: in the function's frame on the private stack.
      Home.FrameRelative = true;
      Home.Offset = alignTo(FrameSize, Align);
      FrameSize = Home.Offset + Bytes;
      FrameAlign = std::max(FrameAlign, Align);
      break;
    }
    Home.Offset = alignTo(PrivateSize, Align);
    PrivateSize = Home.Offset + Bytes;
    break;
  case BRIG_SEGMENT_ARG:
    // Actual arguments of an arg block: memory of their own, made at their
    // first use (LowerCall.cpp argVariable).
    break;
  case BRIG_SEGMENT_GLOBAL:
  case BRIG_SEGMENT_READONLY: {
    auto GV = P.codeBlockGlobal(B, V);
    if (!GV)
      return GV.takeError();
    Home.Global = *GV;
    break;
  }
  default:
    return fail(V.Offset, "variables in segment '" +
                              llvm::Twine(segmentName(V->segment)) +
                              "' inside a code block are not supported");
  }
  Locals[V.Offset] = Home;
  return llvm::Error::success();
}

llvm::Expected<LoweredKernel> KernelLowering::run() {
  llvm::StringRef Name = B.string(K->name);

  // A kernel with barriers becomes a resumable function,
  //   i32 @k(ptr kernarg, ptr wi, i32 resume)
  // that runs one work-item from the point `resume` (0: the start) to its
  // next barrier and returns that barrier's number (-1: the end). Lowering
  // keeps no value in SSA form across an instruction, so registers - kept
  // in the work-item's private segment - are all the state there is. The
  // CPU target runs every work-item of a group region by region. Barriers
  // of the functions it calls count: those are inlined (LowerCall.cpp). A
  // kernel whose work-items wait on fbarriers resumes each work-item where
  // it stopped instead (LowerFbarrier.cpp).
  CallSummary Calls = P.summarize(B, K);
  Lockstep = Calls.Waits && !Calls.WaitsOnFbarrier && !P.nativeBarriers() &&
             P.lockstepKernel(Name);
  SplitAtBarriers = Calls.Waits && !P.nativeBarriers() && !Lockstep;
  // Where work-items run concurrently (native barriers), a wait at an
  // fbarrier spins in place instead (LowerFbarrier.cpp).
  Scheduled = Calls.WaitsOnFbarrier && !P.nativeBarriers();
  Result.UsesBarrier = SplitAtBarriers;
  Result.Scheduled = Scheduled;
  Result.Lockstep = Lockstep;

  auto *PtrTy = llvm::PointerType::get(Ctx, 0);
  auto *I32 = llvm::Type::getInt32Ty(Ctx);
  auto *FnTy =
      Scheduled
          ? llvm::FunctionType::get(I32, {PtrTy, PtrTy, I32, PtrTy}, false)
      : SplitAtBarriers
          ? llvm::FunctionType::get(I32, {PtrTy, PtrTy, I32}, false)
          : llvm::FunctionType::get(llvm::Type::getVoidTy(Ctx), {PtrTy, PtrTy},
                                    false);
  F = llvm::Function::Create(FnTy, llvm::GlobalValue::InternalLinkage,
                             "hsail.kernel." + Name.drop_front(), P.module());
  Kernarg = F->getArg(0);
  Kernarg->setName("kernarg");
  WorkItem = F->getArg(1);
  WorkItem->setName("wi");
  F->addParamAttr(0, llvm::Attribute::NoAlias);
  F->addParamAttr(1, llvm::Attribute::NoAlias);

  auto *Entry = llvm::BasicBlock::Create(Ctx, "entry", F);
  AllocaBuilder.SetInsertPoint(Entry);
  auto *Body = llvm::BasicBlock::Create(Ctx, "body");
  bool Lowered = false;
  auto Adopt = llvm::make_scope_exit([&] {
    if (!Lowered)
      adoptDetachedBlocks(Body);
  });

  // Kernel arguments: laid out in order, each at its natural alignment
  // (PRM 4.21), at the start of the kernarg segment.
  uint32_t ArgOff = K->firstInArg;
  for (unsigned I = 0; I < K->inArgCount; ++I) {
    auto V = B.code<BrigDirectiveVariable>(ArgOff);
    if (!V)
      return fail(ArgOff, "malformed kernel argument");
    const uint64_t Align = variableAlign(*V);
    VariableHome Home;
    Home.Segment = BRIG_SEGMENT_KERNARG;
    Home.Offset = alignTo(KernargSize, Align);
    KernargSize = Home.Offset + variableBytes(*V);
    KernargAlign = std::max<uint32_t>(KernargAlign, uint32_t(Align));
    Locals[V.Offset] = Home;
    ArgOff += V.byteCount();
  }

  // Module-scope group and private variables come first in every kernel's
  // segments; the kernel's own follow.
  GroupSize = P.moduleGroupSize(B);
  PrivateSize = P.modulePrivateSize(B);

  // Pass 1: blocks for labels, homes for kernel-scope variables; control
  // directives of the kernel and of the functions it calls (PRM 13.4).
  if (auto Err = declareCodeBlock())
    return Err;
  if (auto Err = checkFbarriers(Calls))
    return Err;
  if (auto Err = recordControls(B, K))
    return Err;
  for (FunctionDef *D : Calls.Callees)
    if (auto Err = recordControls(*D->B, D->X))
      return Err;

  if (SplitAtBarriers) {
    // The register file follows the private variables.
    RegisterFileOffset = alignTo(PrivateSize, 16);
    auto *PtrTy = llvm::PointerType::get(Ctx, 0);
    RegisterFile = AllocaBuilder.CreateCall(
        P.module().getOrInsertFunction(
            query::RegisterFile,
            llvm::FunctionType::get(PtrTy, {PtrTy, I32}, false)),
        {WorkItem, AllocaBuilder.getInt32(uint32_t(RegisterFileOffset))});
  }
  if (Scheduled)
    setupScheduled();
  // The hidden words shared with called functions (the DETECT flags, the
  // halt flag) start at 0 with each work-item (PRM 11.2.3): a resumable
  // kernel clears them in its first region only.
  if (Kind == BodyKind::Kernel)
    for (std::optional<uint64_t> Off :
         {P.detectFlagsOffset(), P.haltFlagOffset()}) {
      if (!Off)
        continue;
      Value *Ptr = privateWord(AllocaBuilder, *Off);
      Value *Zero = AllocaBuilder.getInt32(0);
      if (SplitAtBarriers || Scheduled)
        Zero = AllocaBuilder.CreateSelect(
            AllocaBuilder.CreateICmpEQ(F->getArg(2), Zero), Zero,
            AllocaBuilder.CreateLoad(AllocaBuilder.getInt32Ty(), Ptr));
      AllocaBuilder.CreateStore(Zero, Ptr);
    }

  // Pass 2: instructions.
  Body->insertInto(F);
  Builder.SetInsertPoint(Body);
  if (auto Err = lowerCodeBlock())
    return Err;
  if (!Builder.GetInsertBlock()->getTerminator())
    emitReturn();
  // The entry block holds the register slots; it then enters the body, or
  // in a resumable kernel the region the caller asks for.
  AllocaBuilder.SetInsertPoint(Entry);
  if (Scheduled) {
    finishScheduled(Entry, Body);
    PrivateSize = RegisterFileOffset + RegisterFileSize;
  } else if (SplitAtBarriers) {
    if (std::optional<uint64_t> Off = P.haltFlagOffset()) {
      // A work-item that halted (debugtrap) in an earlier region stays
      // halted: it returns at once, as finished.
      Value *Halted = AllocaBuilder.CreateICmpNE(
          AllocaBuilder.CreateLoad(AllocaBuilder.getInt32Ty(),
                                   privateWord(AllocaBuilder, *Off)),
          AllocaBuilder.getInt32(0));
      auto *Stay = llvm::BasicBlock::Create(Ctx, "halted", F);
      llvm::IRBuilder<>(Stay).CreateRet(AllocaBuilder.getInt32(-1));
      auto *Dispatch = llvm::BasicBlock::Create(Ctx, "dispatch", F);
      AllocaBuilder.CreateCondBr(Halted, Stay, Dispatch);
      AllocaBuilder.SetInsertPoint(Dispatch);
    }
    auto *Switch =
        AllocaBuilder.CreateSwitch(F->getArg(2), Body, Resumes.size());
    for (unsigned J = 0; J < Resumes.size(); ++J)
      Switch->addCase(AllocaBuilder.getInt32(J + 1), Resumes[J]);
    PrivateSize = RegisterFileOffset + RegisterFileSize;
  } else {
    AllocaBuilder.CreateBr(Body);
  }
  // The private stack of calls and alloca follows.
  finishStack(Body);

  Result.Body = F;
  Result.RegisterFileSize = RegisterFileSize;
  Result.Barriers = unsigned(Resumes.size());
  Result.Symbol.Name = Name.str();
  Result.Module = B.name().str();
  Result.Offset = K.Offset;
  Result.Symbol.ProgramLinkage = K->linkage == BRIG_LINKAGE_PROGRAM;
  Result.Symbol.KernargSegmentSize = uint32_t(KernargSize);
  Result.Symbol.KernargSegmentAlignment = KernargAlign;
  Result.Symbol.GroupSegmentSize = uint32_t(GroupSize);
  Result.Symbol.PrivateSegmentSize = uint32_t(PrivateSize);
  Lowered = true;
  return std::move(Result);
}

void KernelLowering::adoptDetachedBlocks(llvm::BasicBlock *Body) {
  // A refused lowering leaves blocks created but never inserted: labels past
  // the refused instruction, the body, blocks that emitted branches go to.
  // A detached block belongs to nothing and would leak: F adopts each, and
  // is freed with the module the failed finalization discards.
  llvm::SmallVector<llvm::BasicBlock *, 32> Work{Body, ExitBlock};
  for (const auto &[Off, BB] : Labels)
    Work.push_back(BB);
  Work.append(Resumes.begin(), Resumes.end());
  auto AddSuccessors = [&](llvm::BasicBlock &BB) {
    if (llvm::Instruction *T = BB.getTerminator())
      for (llvm::BasicBlock *S : llvm::successors(T))
        Work.push_back(S);
  };
  for (llvm::BasicBlock &BB : *F)
    AddSuccessors(BB);
  while (!Work.empty()) {
    llvm::BasicBlock *BB = Work.pop_back_val();
    if (!BB || BB->getParent())
      continue;
    BB->insertInto(F);
    AddSuccessors(*BB);
  }
}

llvm::Error KernelLowering::declareCodeBlock() {
  const uint32_t Begin = K->firstCodeBlockEntry, End = K->nextModuleEntry;
  for (uint32_t Off = Begin; Off < End;) {
    EntryRef<BrigBase> E = B.code<BrigBase>(Off);
    if (!E)
      return fail(Off, "malformed code entry");
    if (E.kind() == BRIG_KIND_DIRECTIVE_LABEL)
      Labels[Off] = llvm::BasicBlock::Create(
          Ctx, B.string(B.code<BrigDirectiveLabel>(Off)->name).drop_front());
    else if (E.kind() == BRIG_KIND_DIRECTIVE_VARIABLE) {
      if (auto Err = declareVariable(B.code<BrigDirectiveVariable>(Off)))
        return Err;
    } else if (E.kind() == BRIG_KIND_DIRECTIVE_FBARRIER) {
      if (auto Err = declareFbarrier(B.code<BrigDirectiveFbarrier>(Off)))
        return Err;
    }
    Off += E.byteCount();
  }
  return llvm::Error::success();
}

llvm::Error KernelLowering::lowerCodeBlock() {
  const uint32_t Begin = K->firstCodeBlockEntry, End = K->nextModuleEntry;
  for (uint32_t Off = Begin; Off < End;) {
    EntryRef<BrigBase> E = B.code<BrigBase>(Off);
    if (E.kind() == BRIG_KIND_DIRECTIVE_LABEL) {
      startBlock(Labels[Off]);
    } else if (brigKindIsInst(E.kind())) {
      if (!Builder.GetInsertBlock() ||
          Builder.GetInsertBlock()->getTerminator())
        startBlock(llvm::BasicBlock::Create(Ctx, "after"));
      if (auto Err = lowerInstruction(B.code<BrigInstBase>(Off)))
        return Err;
    }
    // Directives (arg block bounds, variables, fbarriers, control, loc,
    // pragma, comment) carry no code of their own.
    Off += E.byteCount();
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

uint32_t KernelLowering::operandOffset(EntryRef<BrigInstBase> I,
                                       unsigned Index) const {
  return B.offsetList(I->operands)[Index];
}

llvm::Type *KernelLowering::llvmType(unsigned T) const {
  if (isPacked(T))
    return llvm::Type::getIntNTy(Ctx, typeBytes(T) * 8);
  switch (T & BRIG_TYPE_BASE_MASK) {
  case BRIG_TYPE_F16:
    return llvm::Type::getHalfTy(Ctx);
  case BRIG_TYPE_F32:
    return llvm::Type::getFloatTy(Ctx);
  case BRIG_TYPE_F64:
    return llvm::Type::getDoubleTy(Ctx);
  }
  unsigned Bits = typeBits(T);
  return llvm::Type::getIntNTy(Ctx, Bits ? Bits : 32);
}

KernelLowering::RegisterSlot
KernelLowering::registerSlot(const BrigOperandRegister &R) {
  RegisterSlot &Slot = Registers[{R.regKind, R.regNum}];
  if (!Slot.Ptr) {
    unsigned Bits = R.regKind == BRIG_REGISTER_KIND_CONTROL  ? 1
                    : R.regKind == BRIG_REGISTER_KIND_SINGLE ? 32
                    : R.regKind == BRIG_REGISTER_KIND_DOUBLE ? 64
                                                             : 128;
    Slot.Ty = llvm::Type::getIntNTy(Ctx, Bits);
    if (SplitAtBarriers) {
      // Registers must survive a barrier, where the work-item's region
      // returns: they live in its private segment.
      const uint64_t Bytes = Bits == 1 ? 1 : Bits / 8;
      const uint64_t Off = alignTo(RegisterFileSize, Bytes);
      RegisterFileSize = Off + Bytes;
      Slot.Ptr = AllocaBuilder.CreateConstGEP1_64(AllocaBuilder.getInt8Ty(),
                                                  RegisterFile, Off);
    } else {
      Slot.Ptr = AllocaBuilder.CreateAlloca(Slot.Ty);
      // Registers are undefined until written; zero keeps reads of unwritten
      // registers deterministic.
      AllocaBuilder.CreateStore(llvm::ConstantInt::get(Slot.Ty, 0), Slot.Ptr);
    }
  }
  return Slot;
}

llvm::Expected<Value *> KernelLowering::read(EntryRef<BrigInstBase> I,
                                             unsigned Index, unsigned T) {
  return readOperand(I, operandOffset(I, Index), Index, T);
}

llvm::Expected<Value *> KernelLowering::readOperand(EntryRef<BrigInstBase> I,
                                                    uint32_t Off,
                                                    unsigned Index,
                                                    unsigned T) {
  llvm::Type *Ty = llvmType(T);
  const unsigned Bits = Ty->getPrimitiveSizeInBits();
  if (auto R = B.operand<BrigOperandRegister>(Off)) {
    RegisterSlot Slot = registerSlot(*R);
    Value *Raw = Builder.CreateLoad(Slot.Ty, Slot.Ptr);
    const unsigned RegBits = Slot.Ty->getBitWidth();
    if (Bits < RegBits)
      Raw = Builder.CreateTrunc(Raw, llvm::Type::getIntNTy(Ctx, Bits));
    else if (Bits > RegBits)
      return failInst(I, "operand " + llvm::Twine(Index) +
                             " is a register narrower than its type");
    return Ty->isIntegerTy() ? Raw : Builder.CreateBitCast(Raw, Ty);
  }
  if (auto C = B.operand<BrigOperandConstantBytes>(Off)) {
    llvm::StringRef Bytes = B.string(C->bytes);
    llvm::APInt Value(std::max(Bits, 1u), 0);
    const unsigned N = std::min<unsigned>(Bytes.size(), (Bits + 7) / 8);
    for (unsigned J = 0; J < N; ++J)
      Value.insertBits(uint64_t(uint8_t(Bytes[J])), J * 8,
                       std::min(8u, Bits - J * 8));
    llvm::Constant *IntC = llvm::ConstantInt::get(Ctx, Value);
    return Ty->isIntegerTy() ? IntC : llvm::ConstantExpr::getBitCast(IntC, Ty);
  }
  if (B.operand<BrigOperandWavesize>(Off)) {
    if (!Ty->isIntegerTy())
      return failInst(I, "wavesize used as a floating-point operand");
    return llvm::ConstantInt::get(Ty, P.wavefrontSize());
  }
  return failInst(I, "operand " + llvm::Twine(Index) +
                         " is not a register or an immediate");
}

llvm::Error KernelLowering::write(EntryRef<BrigInstBase> I, unsigned Index,
                                  Value *V, unsigned T) {
  const uint32_t Off = operandOffset(I, Index);
  auto R = B.operand<BrigOperandRegister>(Off);
  if (!R)
    return failInst(I, "destination is not a register");
  RegisterSlot Slot = registerSlot(*R);
  llvm::IntegerType *RegTy = Slot.Ty;
  if (!V->getType()->isIntegerTy())
    V = Builder.CreateBitCast(
        V, llvm::Type::getIntNTy(Ctx, V->getType()->getPrimitiveSizeInBits()));
  const unsigned Bits = V->getType()->getIntegerBitWidth();
  if (Bits < RegTy->getBitWidth())
    V = isSigned(T) ? Builder.CreateSExt(V, RegTy)
                    : Builder.CreateZExt(V, RegTy);
  else if (Bits > RegTy->getBitWidth())
    return failInst(I, "destination register is narrower than the result");
  Builder.CreateStore(V, Slot.Ptr);
  return llvm::Error::success();
}

Value *KernelLowering::privateWord(llvm::IRBuilder<> &IB, uint64_t Offset) {
  auto *PtrTy = llvm::PointerType::get(Ctx, 0);
  llvm::Value *Args[] = {WorkItem};
  return IB.CreateConstGEP1_64(
      IB.getInt8Ty(),
      IB.CreateCall(P.module().getOrInsertFunction(
                        query::PrivateBase,
                        llvm::FunctionType::get(PtrTy, {PtrTy}, false)),
                    Args),
      Offset);
}

Value *KernelLowering::callQuery(const char *Name, llvm::Type *Ret,
                                 llvm::ArrayRef<Value *> Extra) {
  llvm::SmallVector<llvm::Type *, 3> Params{WorkItem->getType()};
  llvm::SmallVector<Value *, 3> Args{WorkItem};
  for (Value *E : Extra) {
    Params.push_back(E->getType());
    Args.push_back(E);
  }
  auto Callee = P.module().getOrInsertFunction(
      Name, llvm::FunctionType::get(Ret, Params, false));
  return Builder.CreateCall(Callee, Args);
}

llvm::Expected<Value *> KernelLowering::address(EntryRef<BrigInstBase> I,
                                                unsigned Index,
                                                unsigned Segment) {
  auto A = B.operand<BrigOperandAddress>(operandOffset(I, Index));
  if (!A)
    return failInst(I, "operand " + llvm::Twine(Index) + " is not an address");
  auto *I64 = llvm::Type::getInt64Ty(Ctx);
  auto *I8 = llvm::Type::getInt8Ty(Ctx);
  Value *Offset = llvm::ConstantInt::get(I64, A->offset.value());
  if (A->reg) {
    auto R = B.operand<BrigOperandRegister>(A->reg);
    if (!R)
      return failInst(I, "address register is malformed");
    RegisterSlot Slot = registerSlot(*R);
    Value *RV = Builder.CreateLoad(Slot.Ty, Slot.Ptr);
    Offset = Builder.CreateAdd(Offset, Builder.CreateZExtOrTrunc(RV, I64));
  }
  // Segment-relative addresses (32-bit offsets) wrap within 32 bits.
  const bool SegmentRelative =
      Segment == BRIG_SEGMENT_GROUP || Segment == BRIG_SEGMENT_PRIVATE ||
      Segment == BRIG_SEGMENT_SPILL || Segment == BRIG_SEGMENT_ARG;

  Value *Base = nullptr;
  if (A->symbol) {
    const VariableHome *Home = nullptr;
    if (auto It = Locals.find(A->symbol); It != Locals.end())
      Home = &It->second;
    else
      Home = P.moduleVariable(B, A->symbol);
    if (!Home)
      return failInst(I, "address names an unknown variable");
    if (Home->Global) {
      Base = Home->Global;
    } else if (Home->Segment == BRIG_SEGMENT_ARG) {
      // Arg variables are memory of their own (LowerCall.cpp).
      Base = argVariable(A->symbol);
      if (!Base)
        return failInst(I, "address names an unknown arg variable");
    } else {
      Offset =
          Builder.CreateAdd(Offset, llvm::ConstantInt::get(I64, Home->Offset));
      if (Home->FrameRelative) // Function-scope private: in the frame.
        Offset =
            Builder.CreateAdd(Offset, Builder.CreateZExt(frameBase(), I64));
    }
  }
  if (!Base) {
    switch (Segment) {
    case BRIG_SEGMENT_KERNARG:
      // Kernarg addresses are the arguments' own (kernargbaseptr, lda).
      if (!A->symbol)
        return Builder.CreateIntToPtr(Offset, llvm::PointerType::get(Ctx, 0));
      Base = Kernarg;
      break;
    case BRIG_SEGMENT_GROUP:
      Base = callQuery(query::GroupBase, llvm::PointerType::get(Ctx, 0));
      break;
    case BRIG_SEGMENT_PRIVATE:
    case BRIG_SEGMENT_SPILL:
      Base = callQuery(query::PrivateBase, llvm::PointerType::get(Ctx, 0));
      break;
    case BRIG_SEGMENT_GLOBAL:
    case BRIG_SEGMENT_READONLY:
    case BRIG_SEGMENT_FLAT:
      return Builder.CreateIntToPtr(Offset, llvm::PointerType::get(Ctx, 0));
    default:
      return failInst(I, "addresses in segment '" +
                             llvm::Twine(segmentName(Segment)) +
                             "' are not supported yet");
    }
  }
  if (SegmentRelative)
    Offset = Builder.CreateZExt(
        Builder.CreateTrunc(Offset, llvm::Type::getInt32Ty(Ctx)), I64);
  return Builder.CreateGEP(I8, Base, Offset);
}

llvm::Expected<llvm::BasicBlock *>
KernelLowering::labelTarget(EntryRef<BrigInstBase> I, unsigned Index) {
  auto Ref = B.operand<BrigOperandCodeRef>(operandOffset(I, Index));
  if (!Ref)
    return failInst(I, "branch target is not a label");
  auto It = Labels.find(Ref->ref);
  if (It == Labels.end())
    return failInst(I, "branch target is not a label of this kernel");
  return It->second;
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

llvm::Error KernelLowering::lowerInstruction(EntryRef<BrigInstBase> I) {
  using Family =
      std::optional<llvm::Error> (KernelLowering::*)(EntryRef<BrigInstBase>);
  static constexpr Family Families[] = {
      // First: lda and nullptr of segments are trySystem's.
      &KernelLowering::trySystem,
      &KernelLowering::tryFloat, // Before tryArithmetic: float types.
      &KernelLowering::tryArithmetic, &KernelLowering::tryMemory,
      &KernelLowering::tryWorkItem,
      &KernelLowering::tryFbarrier, // Before tryControl: scheduled barriers.
      &KernelLowering::tryControl,    &KernelLowering::tryCall,
      &KernelLowering::tryCrossLane,  &KernelLowering::tryAtomic,
      &KernelLowering::trySignal,
  };
  for (Family Try : Families)
    if (std::optional<llvm::Error> Done = (this->*Try)(I))
      return std::move(*Done);
  return failInst(I, "not supported by this finalizer yet");
}

} // namespace detail

llvm::Expected<LoweredProgram>
lowerProgram(const std::vector<brig::BrigModule> &Modules, llvm::Module &M,
             const LoweringOptions &Options) {
  LoweringOptions O = Options;
  O.DetectExceptions &= 0x1f;
  detail::ProgramLowering P(Modules, M, O);
  return P.run();
}

llvm::Expected<LoweredProgram>
lowerProgram(const std::vector<brig::BrigModule> &Modules, llvm::Module &M,
             uint32_t DetectExceptions, bool DefaultRoundsToZero) {
  LoweringOptions O;
  O.DetectExceptions = DetectExceptions;
  O.DefaultRoundsToZero = DefaultRoundsToZero;
  return lowerProgram(Modules, M, O);
}

} // namespace openhsa::finalizer
