//===- finalizer/LowerCall.cpp - Functions, calls and alloca --------------===//
//
// Functions (PRM 10) are lowered like kernels, each into an LLVM function
//   void @f(ptr kernarg, ptr wi, i32 sp, ptr out..., ptr in...)
// Arguments are passed by reference to the caller's arg block variables:
// those are memory of their own (PRM 10.2: arguments are pass-by-value
// arg segment variables; the callee reads its input formals and writes its
// output formal, which are the caller's actual argument variables). sp is
// the private segment address where the callee's frame may start.
//
// Private stack: function-scope private and spill variables, and alloca,
// must have private segment addresses (ld_private, lda, alloca results),
// one per activation (recursion). Each frame lives in the work-item's
// private segment above the kernel's own private data; a function bumps its
// frame from sp, allocas bump its top, and callees start at that top, so a
// return frees everything the callee allocated.
//
// Functions that wait (barrier or waitfbar, themselves or in a function
// they call) cannot run as calls: a work-item stops at a barrier by
// returning from the kernel's region (Lowering.cpp). Direct and switch
// calls of such functions are inlined, HSAIL block by HSAIL block, into the
// kernel before its regions are formed: the callee gets its own registers,
// labels and variables, its ret branches back to the call site. Recursion
// through such functions, and waits in indirect functions (icall cannot be
// inlined), are refused.
//
//===----------------------------------------------------------------------===//
#include "finalizer/KernelLowering.h"

#include "llvm/ADT/ScopeExit.h"

#include <functional>

namespace openhsa::finalizer::detail {

namespace {

/// Private memory a kernel with a dynamically sized call stack (alloca,
/// icall, recursion) reserves per work-item for it beyond what is
/// statically known (PRM 4.2: a dispatch may add more).
constexpr uint64_t DynamicCallStackReserve = 8192;

/// Offsets of the formal arguments of X: output first, then input.
llvm::SmallVector<uint32_t, 8>
formalArguments(const BrigModule &B, EntryRef<BrigDirectiveExecutable> X) {
  llvm::SmallVector<uint32_t, 8> Offsets;
  uint32_t Off = X.Offset + X.byteCount();
  for (unsigned J = 0; J < unsigned(X->outArgCount + X->inArgCount); ++J) {
    if (J == X->outArgCount)
      Off = X->firstInArg;
    auto V = B.code<BrigDirectiveVariable>(Off);
    if (!V)
      return {};
    Offsets.push_back(Off);
    Off += V.byteCount();
  }
  return Offsets;
}

/// Calls Fn for every top-level entry of B (code blocks skipped); stops at
/// the first error.
llvm::Error
forEachModuleEntry(const BrigModule &B,
                   llvm::function_ref<llvm::Error(EntryRef<BrigBase>)> Fn) {
  uint32_t Off = B.code().HeaderByteCount;
  while (Off < B.code().ByteCount) {
    EntryRef<BrigBase> E = B.code<BrigBase>(Off);
    if (!E)
      return makeBrigError(B.name(), "hsa_code", Off, "malformed entry");
    uint32_t Next = Off + E.byteCount();
    if (auto X = B.code<BrigDirectiveExecutable>(Off))
      Next = std::max(Next, X->nextModuleEntry);
    if (auto Err = Fn(E))
      return Err;
    Off = Next;
  }
  return llvm::Error::success();
}

bool isFunction(unsigned Kind) {
  return Kind == BRIG_KIND_DIRECTIVE_FUNCTION ||
         Kind == BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION;
}

} // namespace

std::string programSymbol(llvm::StringRef Prefix, llvm::StringRef ModuleName,
                          unsigned Linkage, llvm::StringRef Name) {
  if (Linkage == BRIG_LINKAGE_PROGRAM)
    return (Prefix + Name).str();
  return (Prefix + ModuleName + "." + Name).str();
}

//===----------------------------------------------------------------------===//
// The program's functions
//===----------------------------------------------------------------------===//

llvm::StringRef ProgramLowering::moduleName(const BrigModule &B) {
  if (auto MD = B.moduleDirective())
    return B.string(MD->name);
  return {};
}

llvm::Error ProgramLowering::collectDefinitions() {
  for (const BrigModule &B : Modules) {
    const llvm::StringRef ModuleName = moduleName(B);
    auto Twice = [&](uint32_t Off, llvm::StringRef Name) {
      return makeBrigError(B.name(), "hsa_code", Off,
                           "'" + Name +
                               "' is defined more than once in the program");
    };
    auto Err = forEachModuleEntry(B, [&](EntryRef<BrigBase> E) -> llvm::Error {
      if (auto V = B.code<BrigDirectiveVariable>(E.Offset)) {
        if (!(V->modifier & BRIG_VARIABLE_DEFINITION))
          return llvm::Error::success();
        llvm::StringRef Name = B.string(V->name);
        auto [It, New] = VarDefs.try_emplace(
            programSymbol("hsa.var.", ModuleName, V->linkage, Name), &B,
            E.Offset);
        return New ? llvm::Error::success() : Twice(E.Offset, Name);
      }
      if (auto Fb = B.code<BrigDirectiveFbarrier>(E.Offset)) {
        if (!(Fb->modifier & BRIG_VARIABLE_DEFINITION))
          return llvm::Error::success();
        llvm::StringRef Name = B.string(Fb->name);
        auto [It, New] = VarDefs.try_emplace(
            programSymbol("hsa.fbar.", ModuleName, Fb->linkage, Name), &B,
            E.Offset);
        return New ? llvm::Error::success() : Twice(E.Offset, Name);
      }
      auto X = B.code<BrigDirectiveExecutable>(E.Offset);
      if (!X || !isFunction(X.kind()) ||
          !(X->modifier & BRIG_EXECUTABLE_DEFINITION))
        return llvm::Error::success();
      llvm::StringRef Name = B.string(X->name);
      auto D = std::make_unique<FunctionDef>();
      D->B = &B;
      D->X = X;
      auto [It, New] = FunctionsBySymbol.try_emplace(
          programSymbol("hsail.function.", ModuleName, X->linkage, Name),
          D.get());
      if (!New)
        return Twice(E.Offset, Name);
      FunctionsByDirective[{&B, E.Offset}] = D.get();
      Functions.push_back(std::move(D));
      return llvm::Error::success();
    });
    if (Err)
      return Err;
  }
  return llvm::Error::success();
}

llvm::Error ProgramLowering::layoutFunctionScope() {
  // Group variables and fbarriers of functions have work-group persistence
  // (PRM 4.11): one allocation per work-group, whatever calls them, so they
  // get program-wide group segment homes.
  bool UsesDetect = false, UsesTrap = false;
  for (const auto &D : Functions) {
    const BrigModule &B = *D->B;
    for (uint32_t Off = D->X->firstCodeBlockEntry;
         Off < D->X->nextModuleEntry;) {
      EntryRef<BrigBase> E = B.code<BrigBase>(Off);
      if (!E)
        return makeBrigError(B.name(), "hsa_code", Off, "malformed entry");
      uint64_t Bytes = 0, Align = 1;
      if (brigKindIsInst(E.kind())) {
        if (auto I = B.code<BrigInstBase>(Off)) {
          const unsigned Op = I->opcode;
          UsesDetect |= Op == BRIG_OPCODE_CLEARDETECTEXCEPT ||
                        Op == BRIG_OPCODE_SETDETECTEXCEPT ||
                        Op == BRIG_OPCODE_GETDETECTEXCEPT;
          UsesTrap |= Op == BRIG_OPCODE_DEBUGTRAP;
        }
      } else if (auto V = B.code<BrigDirectiveVariable>(Off)) {
        if (V->segment == BRIG_SEGMENT_GROUP) {
          Bytes = variableBytes(*V);
          Align = variableAlign(*V);
        }
      } else if (E.kind() == BRIG_KIND_DIRECTIVE_FBARRIER) {
        Bytes = FbarrierBytes;
        Align = FbarrierAlign;
      }
      if (Bytes) {
        VariableHome H;
        H.Segment = BRIG_SEGMENT_GROUP;
        H.Offset = alignTo(ProgramGroupSize, Align);
        ProgramGroupSize = H.Offset + Bytes;
        FunctionScopeHomes[{&B, Off}] = H;
      }
      Off += E.byteCount();
    }
  }
  // The DETECT flags of a work-item, shared by its kernel and the
  // functions it calls: a hidden program-scope private word.
  // Functions raise the exceptions the program detects (their floating-
  // point operations) into the same word.
  if (UsesDetect || (ProgramDetect && !Functions.empty())) {
    DetectFlagsOffset = alignTo(ProgramPrivateSize, 4);
    ProgramPrivateSize = *DetectFlagsOffset + 4;
  }
  // Likewise the word that says the work-item halted.
  if (UsesTrap || KernelTraps) {
    HaltFlagOffset = alignTo(ProgramPrivateSize, 4);
    ProgramPrivateSize = *HaltFlagOffset + 4;
  }
  return llvm::Error::success();
}

bool codeBlockUses(const BrigModule &B, EntryRef<BrigDirectiveExecutable> X,
                   unsigned Opcode) {
  for (uint32_t Off = X->firstCodeBlockEntry; Off < X->nextModuleEntry;) {
    EntryRef<BrigBase> E = B.code<BrigBase>(Off);
    if (!E || E.byteCount() == 0)
      return false;
    if (brigKindIsInst(E.kind()))
      if (auto I = B.code<BrigInstBase>(Off); I && I->opcode == Opcode)
        return true;
    Off += E.byteCount();
  }
  return false;
}

FunctionDef *ProgramLowering::resolveFunction(const BrigModule &B,
                                              uint32_t Off) {
  if (auto It = FunctionsByDirective.find({&B, Off});
      It != FunctionsByDirective.end())
    return It->second;
  auto X = B.code<BrigDirectiveExecutable>(Off);
  if (!X || !isFunction(X.kind()))
    return nullptr;
  auto It = FunctionsBySymbol.find(programSymbol(
      "hsail.function.", moduleName(B), X->linkage, B.string(X->name)));
  return It == FunctionsBySymbol.end() ? nullptr : It->second;
}

const ProgramLowering::BlockScan &
ProgramLowering::scan(const BrigModule &B,
                      EntryRef<BrigDirectiveExecutable> X) {
  auto Found = Scans.find({&B, X.Offset});
  if (Found != Scans.end())
    return Found->second;
  BlockScan S;
  const bool IsKernel = X.kind() == BRIG_KIND_DIRECTIVE_KERNEL;
  uint64_t Frame = 0, Align = 1;
  for (uint32_t Off = X->firstCodeBlockEntry; Off < X->nextModuleEntry;) {
    EntryRef<BrigBase> E = B.code<BrigBase>(Off);
    if (!E)
      break; // Reported when the block is lowered.
    if (auto V = B.code<BrigDirectiveVariable>(Off)) {
      if (!IsKernel && (V->segment == BRIG_SEGMENT_PRIVATE ||
                        V->segment == BRIG_SEGMENT_SPILL)) {
        Frame = alignTo(Frame, variableAlign(*V)) + variableBytes(*V);
        Align = std::max(Align, variableAlign(*V));
      }
    } else if (auto I = B.code<BrigInstBase>(Off)) {
      OffsetList Ops = B.offsetList(I->operands);
      switch (I->opcode) {
      case BRIG_OPCODE_BARRIER:
        S.Waits = true;
        break;
      case BRIG_OPCODE_WAITFBAR:
        S.Waits = S.WaitsOnFbarrier = true;
        break;
      case BRIG_OPCODE_ALLOCA:
      case BRIG_OPCODE_ICALL:
        S.DynamicStack = true;
        break;
      case BRIG_OPCODE_CALL:
        if (auto Ref = B.operand<BrigOperandCodeRef>(Ops[1]))
          if (FunctionDef *D = resolveFunction(B, Ref->ref))
            S.Callees.push_back(D);
        break;
      case BRIG_OPCODE_SCALL:
        if (auto List = B.operand<BrigOperandCodeList>(Ops[3])) {
          OffsetList Fns = B.offsetList(List->elements);
          for (unsigned J = 0; J < Fns.size(); ++J)
            if (FunctionDef *D = resolveFunction(B, Fns[J]))
              S.Callees.push_back(D);
        }
        break;
      }
    }
    Off += E.byteCount();
  }
  S.FrameBytes = Frame ? Frame + Align - 1 : 0;
  return Scans[{&B, X.Offset}] = std::move(S);
}

CallSummary ProgramLowering::summarize(const BrigModule &B,
                                       EntryRef<BrigDirectiveExecutable> X) {
  CallSummary R;
  std::map<const FunctionDef *, int> Color; // 1: on the path, 2: done.
  std::map<const FunctionDef *, uint64_t> Bytes;
  auto Merge = [&](const BlockScan &S) {
    R.Waits |= S.Waits;
    R.WaitsOnFbarrier |= S.WaitsOnFbarrier;
    R.DynamicStack |= S.DynamicStack;
  };
  // The deepest private stack below each function; recursion makes it
  // dynamic.
  std::function<uint64_t(FunctionDef *)> Visit =
      [&](FunctionDef *D) -> uint64_t {
    int &C = Color[D];
    if (C == 1) {
      R.DynamicStack = true;
      return 0;
    }
    if (C == 2)
      return Bytes[D];
    C = 1;
    R.Callees.push_back(D);
    const BlockScan &S = scan(*D->B, D->X);
    Merge(S);
    uint64_t Deepest = 0;
    for (FunctionDef *Callee : S.Callees)
      Deepest = std::max(Deepest, Visit(Callee));
    Color[D] = 2;
    return Bytes[D] = S.FrameBytes + Deepest;
  };
  if (FunctionDef *Self = FunctionsByDirective.count({&B, X.Offset})
                              ? FunctionsByDirective[{&B, X.Offset}]
                              : nullptr) {
    R.StackBytes = Visit(Self);
    return R;
  }
  const BlockScan &S = scan(B, X);
  Merge(S);
  for (FunctionDef *Callee : S.Callees)
    R.StackBytes = std::max(R.StackBytes, Visit(Callee));
  return R;
}

CallSummary ProgramLowering::summarize(FunctionDef &D) {
  auto It = Summaries.find(&D);
  if (It == Summaries.end())
    It = Summaries.emplace(&D, summarize(*D.B, D.X)).first;
  return It->second;
}

llvm::Function *ProgramLowering::standaloneFunction(FunctionDef &D) {
  if (D.Fn)
    return D.Fn;
  llvm::LLVMContext &C = M.getContext();
  auto *PtrTy = llvm::PointerType::get(C, 0);
  llvm::SmallVector<llvm::Type *, 8> Params{PtrTy, PtrTy,
                                            llvm::Type::getInt32Ty(C)};
  Params.append(D.X->outArgCount + D.X->inArgCount, PtrTy);
  // Indirect functions are entry points: their code handle is the address
  // of this symbol (CodeObject.h IndirectFunctionSymbol).
  const bool Indirect = D.X.kind() == BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION;
  D.Fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(C), Params, false),
      Indirect ? llvm::GlobalValue::ExternalLinkage
               : llvm::GlobalValue::InternalLinkage,
      programSymbol(Indirect ? "openhsa.indirect." : "hsail.function.",
                    moduleName(*D.B), D.X->linkage, D.B->string(D.X->name)),
      M);
  FunctionWorklist.push_back(&D);
  return D.Fn;
}

llvm::Error ProgramLowering::lowerFunctions() {
  for (const auto &D : Functions) {
    if (D->X.kind() != BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION)
      continue;
    IndirectFunctionSymbol S;
    S.Name = D->B->string(D->X->name).str();
    S.ModuleName = moduleName(*D->B).str();
    S.ProgramLinkage = D->X->linkage == BRIG_LINKAGE_PROGRAM;
    S.ObjectSymbol = standaloneFunction(*D)->getName().str();
    Result.IndirectFunctions.push_back(std::move(S));
  }
  while (!FunctionWorklist.empty()) {
    FunctionDef *D = FunctionWorklist.back();
    FunctionWorklist.pop_back();
    KernelLowering KL(*this, *D->B, D->X);
    if (auto Err = KL.runFunction(D->Fn))
      return Err;
  }
  return llvm::Error::success();
}

llvm::Expected<llvm::GlobalVariable *>
ProgramLowering::codeBlockGlobal(const BrigModule &B,
                                 EntryRef<BrigDirectiveVariable> V) {
  llvm::GlobalVariable *&GV = CodeBlockGlobals[{&B, V.Offset}];
  if (GV)
    return GV;
  // Global and readonly variables of a code block have the program's
  // lifetime (PRM 4.11): storage of the code object, like module-scope
  // ones, but with no symbol the runtime could name.
  if (!(V->modifier & BRIG_VARIABLE_DEFINITION))
    return makeBrigError(B.name(), "hsa_code", V.Offset,
                         "declarations of global or readonly variables "
                         "inside a code block are not supported");
  const uint64_t Bytes = variableBytes(*V);
  auto Data = initializerBytes(B, V);
  if (!Data)
    return Data.takeError();
  Data->resize(Bytes, '\0');
  auto *I8 = llvm::Type::getInt8Ty(M.getContext());
  GV = new llvm::GlobalVariable(
      M, llvm::ArrayType::get(I8, Bytes),
      (V->modifier & BRIG_VARIABLE_CONST) != 0,
      llvm::GlobalValue::InternalLinkage,
      llvm::ConstantDataArray::getRaw(*Data, Bytes, I8),
      "hsa.local." + B.string(V->name).drop_front());
  GV->setAlignment(llvm::Align(variableAlign(*V)));
  return GV;
}

//===----------------------------------------------------------------------===//
// Function bodies
//===----------------------------------------------------------------------===//

KernelLowering::RegisterSlot KernelLowering::stateSlot(unsigned Bits) {
  RegisterSlot S;
  S.Ty = llvm::Type::getIntNTy(Ctx, Bits);
  if (SplitAtBarriers) {
    // State that must survive a barrier lives with the registers.
    const uint64_t Bytes = Bits / 8;
    const uint64_t Off = alignTo(RegisterFileSize, Bytes);
    RegisterFileSize = Off + Bytes;
    S.Ptr = AllocaBuilder.CreateConstGEP1_64(AllocaBuilder.getInt8Ty(),
                                             RegisterFile, Off);
  } else {
    S.Ptr = AllocaBuilder.CreateAlloca(S.Ty);
  }
  return S;
}

KernelLowering::RegisterSlot KernelLowering::topSlot() {
  // A kernel's top starts above its private data (finishStack); a
  // function's above its frame (setupFrame).
  if (!TopSlot.Ptr)
    TopSlot = stateSlot(32);
  return TopSlot;
}

Value *KernelLowering::frameBase() {
  if (!FrameBaseSlot.Ptr)
    return Builder.getInt32(0);
  return Builder.CreateLoad(FrameBaseSlot.Ty, FrameBaseSlot.Ptr);
}

void KernelLowering::setupFrame(Value *StackPointer) {
  Value *Base = StackPointer;
  if (FrameSize && FrameAlign > 1)
    Base = Builder.CreateAnd(
        Builder.CreateAdd(Base, Builder.getInt32(uint32_t(FrameAlign - 1))),
        Builder.getInt32(~uint32_t(FrameAlign - 1)));
  FrameBaseSlot = stateSlot(32);
  Builder.CreateStore(Base, FrameBaseSlot.Ptr);
  TopSlot = stateSlot(32);
  Builder.CreateStore(
      Builder.CreateAdd(Base, Builder.getInt32(uint32_t(FrameSize))),
      TopSlot.Ptr);
}

void KernelLowering::finishStack(llvm::BasicBlock *Body) {
  if (Kind != BodyKind::Kernel)
    return;
  const CallSummary S = P.summarize(B, K);
  const uint64_t Start = alignTo(PrivateSize, 16);
  if (TopSlot.Ptr) {
    llvm::IRBuilder<> IB(Body, Body->getFirstInsertionPt());
    IB.CreateStore(IB.getInt32(uint32_t(Start)), TopSlot.Ptr);
  }
  if (TopSlot.Ptr || S.StackBytes || S.DynamicStack)
    PrivateSize =
        Start + S.StackBytes + (S.DynamicStack ? DynamicCallStackReserve : 0);
  Result.Symbol.DynamicCallStack = S.DynamicStack;
}

Value *KernelLowering::argVariable(uint32_t Off) {
  auto It = Locals.find(Off);
  if (It == Locals.end() || It->second.Segment != BRIG_SEGMENT_ARG)
    return nullptr;
  VariableHome &H = It->second;
  if (!H.Pointer) {
    auto V = B.code<BrigDirectiveVariable>(Off);
    if (!V)
      return nullptr;
    const uint64_t Bytes = std::max<uint64_t>(variableBytes(*V), 1);
    const uint64_t Align = variableAlign(*V);
    if (SplitAtBarriers) {
      // Arguments may cross a barrier of an inlined callee.
      const uint64_t At = alignTo(RegisterFileSize, Align);
      RegisterFileSize = At + Bytes;
      H.Pointer = AllocaBuilder.CreateConstGEP1_64(AllocaBuilder.getInt8Ty(),
                                                   RegisterFile, At);
    } else {
      auto *A = AllocaBuilder.CreateAlloca(
          llvm::ArrayType::get(AllocaBuilder.getInt8Ty(), Bytes));
      A->setAlignment(llvm::Align(Align));
      H.Pointer = A;
    }
  }
  return H.Pointer;
}

llvm::Error KernelLowering::runFunction(llvm::Function *Fn) {
  Kind = BodyKind::Function;
  if (P.summarize(B, K).Waits)
    return fail(K.Offset,
                "waits at a barrier or fbarrier (itself or in a function it "
                "calls), which this finalizer supports only in functions "
                "called directly from kernels (it inlines them); an indirect "
                "function cannot wait");
  // An indirect function is finalized on its own: its control directives
  // are checked here (PRM 13.4), those of other functions with the kernels
  // that call them.
  if (K.kind() == BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION)
    if (auto Err = recordControls(B, K))
      return Err;
  F = Fn;
  Kernarg = F->getArg(0);
  Kernarg->setName("kernarg");
  WorkItem = F->getArg(1);
  WorkItem->setName("wi");
  F->getArg(2)->setName("sp");
  auto *Entry = llvm::BasicBlock::Create(Ctx, "entry", F);
  AllocaBuilder.SetInsertPoint(Entry);
  auto *Body = llvm::BasicBlock::Create(Ctx, "body");
  bool Lowered = false;
  auto Adopt = llvm::make_scope_exit([&] {
    if (!Lowered)
      adoptDetachedBlocks(Body); // Lowering.cpp
  });

  // Formal arguments are the caller's actual argument variables.
  llvm::SmallVector<uint32_t, 8> Formals = formalArguments(B, K);
  if (Formals.size() != F->arg_size() - 3)
    return fail(K.Offset, "malformed formal arguments");
  for (unsigned J = 0; J < Formals.size(); ++J) {
    VariableHome H;
    H.Segment = BRIG_SEGMENT_ARG;
    H.Pointer = F->getArg(3 + J);
    Locals[Formals[J]] = H;
  }
  if (auto Err = declareCodeBlock())
    return Err;
  Body->insertInto(F);
  Builder.SetInsertPoint(Body);
  setupFrame(F->getArg(2));
  if (auto Err = lowerCodeBlock())
    return Err;
  if (!Builder.GetInsertBlock()->getTerminator())
    emitReturn();
  AllocaBuilder.CreateBr(Body);
  Lowered = true;
  return llvm::Error::success();
}

llvm::Error KernelLowering::runInlined(Value *StackPointer) {
  if (auto Err = declareCodeBlock()) {
    adoptDetachedBlocks(nullptr);
    return Err;
  }
  setupFrame(StackPointer);
  if (auto Err = lowerCodeBlock()) {
    adoptDetachedBlocks(nullptr);
    return Err;
  }
  if (!Builder.GetInsertBlock()->getTerminator())
    emitReturn();
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// call, scall, icall, alloca
//===----------------------------------------------------------------------===//

std::optional<llvm::Error> KernelLowering::tryCall(EntryRef<BrigInstBase> I) {
  switch (I->opcode) {
  case BRIG_OPCODE_CALL:
  case BRIG_OPCODE_SCALL:
  case BRIG_OPCODE_ICALL: {
    if (llvm::Error Err = lowerCall(I))
      return Err;
    // A callee that executed debugtrap halted the work-item: so does the
    // caller, up to the kernel (PRM 11.4).
    if (std::optional<uint64_t> Off = P.haltFlagOffset()) {
      Value *Halted = Builder.CreateICmpNE(
          Builder.CreateLoad(Builder.getInt32Ty(), privateWord(Builder, *Off)),
          Builder.getInt32(0));
      auto *Stop = llvm::BasicBlock::Create(Ctx, "halted", F);
      auto *Go = llvm::BasicBlock::Create(Ctx, "running");
      Builder.CreateCondBr(Halted, Stop, Go);
      Builder.SetInsertPoint(Stop);
      emitReturn();
      startBlock(Go);
    }
    return llvm::Error::success();
  }
  case BRIG_OPCODE_ALLOCA:
    return lowerAlloca(I);
  default:
    return std::nullopt;
  }
}

llvm::Error KernelLowering::emitCall(EntryRef<BrigInstBase> I, FunctionDef &D,
                                     llvm::ArrayRef<Value *> Out,
                                     llvm::ArrayRef<Value *> In) {
  const llvm::StringRef Name = D.B->string(D.X->name);
  if (D.X->outArgCount != Out.size() || D.X->inArgCount != In.size())
    return failInst(I, "passes " + llvm::Twine(Out.size()) + " output and " +
                           llvm::Twine(In.size()) + " input arguments to '" +
                           Name + "', which has " +
                           llvm::Twine(D.X->outArgCount) + " and " +
                           llvm::Twine(D.X->inArgCount));
  auto *I32 = llvm::Type::getInt32Ty(Ctx);
  Value *StackPointer = Builder.CreateLoad(I32, topSlot().Ptr);
  if (!P.summarize(D).Waits) {
    llvm::SmallVector<Value *, 8> Args{Kernarg, WorkItem, StackPointer};
    Args.append(Out.begin(), Out.end());
    Args.append(In.begin(), In.end());
    Builder.CreateCall(P.standaloneFunction(D), Args);
    return llvm::Error::success();
  }

  // The callee waits: inline it here, before regions are formed.
  if (Kind == BodyKind::Function)
    return failInst(I, "calls '" + Name +
                           "', which waits at a barrier or fbarrier: only "
                           "kernels (where it is inlined) may call it");
  for (const FunctionDef *S : InlineStack)
    if (S == &D)
      return failInst(I, "recursive call of '" + Name +
                             "', which waits at a barrier or fbarrier (itself "
                             "or in a function it calls): recursion with "
                             "barriers is not supported");
  llvm::SmallVector<uint32_t, 8> Formals = formalArguments(*D.B, D.X);
  if (Formals.size() != Out.size() + In.size())
    return failInst(I, "'" + Name + "' has malformed formal arguments");
  auto *Continue = llvm::BasicBlock::Create(Ctx, "ret." + Name.drop_front());
  KernelLowering Sub(P, *D.B, D.X);
  Sub.Kind = BodyKind::Inlined;
  Sub.F = F;
  Sub.Kernarg = Kernarg;
  Sub.WorkItem = WorkItem;
  Sub.SplitAtBarriers = SplitAtBarriers;
  Sub.Lockstep = Lockstep;
  Sub.RegisterFile = RegisterFile;
  Sub.RegisterFileOffset = RegisterFileOffset;
  Sub.RegisterFileSize = RegisterFileSize;
  Sub.Resumes = std::move(Resumes);
  Sub.Scheduled = Scheduled;
  Sub.SchedState = SchedState;
  Sub.ResumeSlot = ResumeSlot;
  Sub.SavedGenSlot = SavedGenSlot;
  Sub.SavedFbarrierSlot = SavedFbarrierSlot;
  Sub.InlineStack = InlineStack;
  Sub.InlineStack.push_back(&D);
  Sub.ExitBlock = Continue;
  Sub.AllocaBuilder.SetInsertPoint(&F->getEntryBlock());
  Sub.Builder.SetInsertPoint(Builder.GetInsertBlock());
  for (unsigned J = 0; J < Formals.size(); ++J) {
    VariableHome H;
    H.Segment = BRIG_SEGMENT_ARG;
    H.Pointer = J < Out.size() ? Out[J] : In[J - Out.size()];
    Sub.Locals[Formals[J]] = H;
  }
  llvm::Error Err = Sub.runInlined(StackPointer);
  RegisterFileSize = Sub.RegisterFileSize;
  Resumes = std::move(Sub.Resumes);
  if (Err)
    return Err;
  Builder.SetInsertPoint(Sub.Builder.GetInsertBlock());
  startBlock(Continue);
  return llvm::Error::success();
}

llvm::Error KernelLowering::lowerCall(EntryRef<BrigInstBase> I) {
  auto OutList = B.operand<BrigOperandCodeList>(operandOffset(I, 0));
  auto InList = B.operand<BrigOperandCodeList>(operandOffset(I, 2));
  if (!OutList || !InList)
    return failInst(I, "malformed argument lists");
  // Actual arguments: arg variables of this arg block (PRM 10.2).
  llvm::SmallVector<Value *, 4> Out, In;
  for (auto [List, Ptrs] : {std::pair{OutList, &Out}, std::pair{InList, &In}}) {
    OffsetList Elems = B.offsetList(List->elements);
    for (unsigned J = 0; J < Elems.size(); ++J) {
      Value *Ptr = argVariable(Elems[J]);
      if (!Ptr)
        return failInst(I, "argument " + llvm::Twine(J) +
                               " is not an arg variable of this code block");
      Ptrs->push_back(Ptr);
    }
  }

  switch (I->opcode) {
  case BRIG_OPCODE_CALL: {
    auto Ref = B.operand<BrigOperandCodeRef>(operandOffset(I, 1));
    if (!Ref)
      return failInst(I, "malformed function operand");
    FunctionDef *D = P.resolveFunction(B, Ref->ref);
    if (!D)
      return failInst(
          I, "no module of the program defines '" +
                 B.string(B.code<BrigDirectiveExecutable>(Ref->ref)->name) +
                 "'");
    return emitCall(I, *D, Out, In);
  }
  case BRIG_OPCODE_SCALL: {
    // A switch over direct calls (PRM 10.7); an index past the list is
    // undefined behaviour: no call.
    auto List = B.operand<BrigOperandCodeList>(operandOffset(I, 3));
    if (!List)
      return failInst(I, "malformed function list");
    OffsetList Fns = B.offsetList(List->elements);
    llvm::SmallVector<FunctionDef *, 8> Defs;
    for (unsigned J = 0; J < Fns.size(); ++J) {
      FunctionDef *D = P.resolveFunction(B, Fns[J]);
      if (!D)
        return failInst(I, "no module of the program defines function " +
                               llvm::Twine(J) + " of the list");
      Defs.push_back(D);
    }
    auto Index = read(I, 1, I->type);
    if (!Index)
      return Index.takeError();
    auto *Join = llvm::BasicBlock::Create(Ctx, "scall.join");
    auto *Switch = Builder.CreateSwitch(*Index, Join, Defs.size());
    for (unsigned J = 0; J < Defs.size(); ++J) {
      auto *Case = llvm::BasicBlock::Create(Ctx, "scall.case");
      Switch->addCase(
          llvm::ConstantInt::get(
              llvm::cast<llvm::IntegerType>((*Index)->getType()), J),
          Case);
      startBlock(Case);
      if (auto Err = emitCall(I, *Defs[J], Out, In))
        return Err;
      Builder.CreateBr(Join);
    }
    startBlock(Join);
    return llvm::Error::success();
  }
  case BRIG_OPCODE_ICALL: {
    // The code handle is the host address of the indirect function
    // (IndirectFunctionSymbol), with this calling convention (PRM 10.8).
    if (I->type != BRIG_TYPE_U64)
      return failInst(I, "32-bit indirect function code handles (small "
                         "machine model) are not supported: code handles "
                         "are 64-bit host addresses");
    auto Ref = B.operand<BrigOperandCodeRef>(operandOffset(I, 3));
    auto Sig = Ref ? B.code<BrigDirectiveExecutable>(Ref->ref)
                   : EntryRef<BrigDirectiveExecutable>();
    if (!Sig)
      return failInst(I, "malformed signature operand");
    if (Sig->outArgCount != Out.size() || Sig->inArgCount != In.size())
      return failInst(I, "arguments do not match signature '" +
                             B.string(Sig->name) + "'");
    auto Handle = read(I, 1, BRIG_TYPE_U64);
    if (!Handle)
      return Handle.takeError();
    auto *PtrTy = llvm::PointerType::get(Ctx, 0);
    auto *I32 = llvm::Type::getInt32Ty(Ctx);
    llvm::SmallVector<Value *, 8> Args{Kernarg, WorkItem,
                                       Builder.CreateLoad(I32, topSlot().Ptr)};
    Args.append(Out.begin(), Out.end());
    Args.append(In.begin(), In.end());
    llvm::SmallVector<llvm::Type *, 8> Params(Args.size(), PtrTy);
    Params[2] = I32;
    Builder.CreateCall(
        llvm::FunctionType::get(llvm::Type::getVoidTy(Ctx), Params, false),
        Builder.CreateIntToPtr(*Handle, PtrTy), Args);
    return llvm::Error::success();
  }
  }
  return failInst(I, "not supported by this finalizer yet");
}

llvm::Error KernelLowering::lowerAlloca(EntryRef<BrigInstBase> I) {
  // PRM 10.10: per work-item private memory, freed when the kernel or
  // function returns; the address is a multiple of align(n).
  auto Mem = B.code<BrigInstMem>(I.Offset);
  if (!Mem)
    return failInst(I, "malformed alloca");
  auto Size = read(I, 1, BRIG_TYPE_U32);
  if (!Size)
    return Size.takeError();
  const uint32_t Align = uint32_t(alignmentBytes(Mem->align));
  RegisterSlot Top = topSlot();
  Value *At = Builder.CreateLoad(Top.Ty, Top.Ptr);
  if (Align > 1)
    At = Builder.CreateAnd(Builder.CreateAdd(At, Builder.getInt32(Align - 1)),
                           Builder.getInt32(~(Align - 1)));
  Builder.CreateStore(Builder.CreateAdd(At, *Size), Top.Ptr);
  return write(I, 0, At, BRIG_TYPE_U32);
}

} // namespace openhsa::finalizer::detail
