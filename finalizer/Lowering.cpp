//===- finalizer/Lowering.cpp - BRIG to target-neutral LLVM IR ------------===//
//
// Lowering walks each kernel's code block once. Labels start basic blocks;
// every instruction is translated on its own from its operands, with the
// HSAIL semantics spelled out in IR (no opaque helper calls), so LLVM can
// optimize across instructions. What is not translated yet fails with the
// instruction's name and BRIG offset.
//
//===----------------------------------------------------------------------===//
#include "finalizer/Lowering.h"

#include "brig/BrigNames.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

#include <map>

namespace openhsa::finalizer {

using namespace brig;
using llvm::Value;

namespace {

/// Where a variable lives once lowered.
struct VariableHome {
  uint8_t Segment = BRIG_SEGMENT_NONE;
  llvm::GlobalVariable *Global = nullptr; // Global and readonly segments.
  uint64_t Offset = 0; // Kernarg, group, private, spill, arg: segment offset.
};

unsigned typeBits(unsigned T) {
  switch (T & BRIG_TYPE_BASE_MASK) {
  case BRIG_TYPE_B1:
    return 1;
  case BRIG_TYPE_U8:
  case BRIG_TYPE_S8:
  case BRIG_TYPE_B8:
    return (T & BRIG_TYPE_PACK_MASK) ? 0 : 8;
  case BRIG_TYPE_U16:
  case BRIG_TYPE_S16:
  case BRIG_TYPE_B16:
  case BRIG_TYPE_F16:
    return (T & BRIG_TYPE_PACK_MASK) ? 0 : 16;
  case BRIG_TYPE_U32:
  case BRIG_TYPE_S32:
  case BRIG_TYPE_B32:
  case BRIG_TYPE_F32:
  case BRIG_TYPE_SIG32:
    return (T & BRIG_TYPE_PACK_MASK) ? 0 : 32;
  case BRIG_TYPE_U64:
  case BRIG_TYPE_S64:
  case BRIG_TYPE_B64:
  case BRIG_TYPE_F64:
  case BRIG_TYPE_SIG64:
    return (T & BRIG_TYPE_PACK_MASK) ? 0 : 64;
  case BRIG_TYPE_B128:
    return 128;
  }
  return 0;
}

/// Size in bytes of a value of type T, packed types included.
unsigned typeBytes(unsigned T) {
  switch (T & BRIG_TYPE_PACK_MASK) {
  case BRIG_TYPE_PACK_32:
    return 4;
  case BRIG_TYPE_PACK_64:
    return 8;
  case BRIG_TYPE_PACK_128:
    return 16;
  }
  unsigned Bits = typeBits(T);
  return Bits == 1 ? 1 : Bits / 8;
}

bool isFloat(unsigned T) {
  unsigned B = T & BRIG_TYPE_BASE_MASK;
  return !(T & BRIG_TYPE_PACK_MASK) &&
         (B == BRIG_TYPE_F16 || B == BRIG_TYPE_F32 || B == BRIG_TYPE_F64);
}
bool isSigned(unsigned T) {
  unsigned B = T & BRIG_TYPE_BASE_MASK;
  return B == BRIG_TYPE_S8 || B == BRIG_TYPE_S16 || B == BRIG_TYPE_S32 ||
         B == BRIG_TYPE_S64;
}
bool isPacked(unsigned T) { return (T & BRIG_TYPE_PACK_MASK) != 0; }

uint64_t alignmentBytes(unsigned A) {
  return A == 0 ? 1 : uint64_t(1) << (A - 1);
}

class ProgramLowering;

/// Lowers one kernel's code block.
class KernelLowering {
public:
  KernelLowering(ProgramLowering &P, const BrigModule &B,
                 EntryRef<BrigDirectiveExecutable> K);
  llvm::Expected<LoweredKernel> run();

private:
  llvm::Error fail(uint32_t Offset, const llvm::Twine &Why) const;
  llvm::Error failInst(EntryRef<BrigInstBase> I, const llvm::Twine &Why) const;

  llvm::Error declareVariable(EntryRef<BrigDirectiveVariable> V);
  llvm::Error lowerInstruction(EntryRef<BrigInstBase> I);
  llvm::Error lowerArithmetic(EntryRef<BrigInstBase> I);
  llvm::Error lowerCompare(EntryRef<BrigInstBase> I);
  llvm::Error lowerConvert(EntryRef<BrigInstBase> I);
  llvm::Error lowerMemory(EntryRef<BrigInstBase> I);
  llvm::Error lowerQuery(EntryRef<BrigInstBase> I);
  llvm::Error lowerBranch(EntryRef<BrigInstBase> I);

  // Operands.
  uint32_t operandOffset(EntryRef<BrigInstBase> I, unsigned Index) const;
  llvm::Type *llvmType(unsigned BrigType) const;
  /// A register's storage: an alloca, or (in kernels with barriers) a slot
  /// of the work-item's register file in its private segment.
  struct RegisterSlot {
    Value *Ptr = nullptr;
    llvm::IntegerType *Ty = nullptr;
  };
  RegisterSlot registerSlot(const BrigOperandRegister &R);
  llvm::Expected<Value *> read(EntryRef<BrigInstBase> I, unsigned Index,
                               unsigned BrigType);
  llvm::Error write(EntryRef<BrigInstBase> I, unsigned Index, Value *V,
                    unsigned BrigType);
  llvm::Expected<Value *> address(EntryRef<BrigInstBase> I, unsigned Index,
                                  unsigned Segment);
  llvm::Expected<llvm::BasicBlock *> labelTarget(EntryRef<BrigInstBase> I,
                                                 unsigned Index);
  Value *callQuery(const char *Name, llvm::Type *Ret,
                   llvm::ArrayRef<Value *> Extra = {});
  void startBlock(llvm::BasicBlock *BB);
  void emitReturn() {
    if (SplitAtBarriers)
      Builder.CreateRet(Builder.getInt32(-1));
    else
      Builder.CreateRetVoid();
  }

  ProgramLowering &P;
  const BrigModule &B;
  EntryRef<BrigDirectiveExecutable> K;
  llvm::LLVMContext &Ctx;
  llvm::IRBuilder<> Builder;
  llvm::IRBuilder<> AllocaBuilder;
  llvm::Function *F = nullptr;
  Value *Kernarg = nullptr;
  Value *WorkItem = nullptr;
  std::map<std::pair<unsigned, unsigned>, RegisterSlot> Registers;
  // Kernels with barriers run as resumable regions (see run()).
  bool SplitAtBarriers = false;
  Value *RegisterFile = nullptr;
  uint64_t RegisterFileOffset = 0, RegisterFileSize = 0;
  llvm::SmallVector<llvm::BasicBlock *, 4> Resumes;
  std::map<uint32_t, VariableHome> Locals; // Kernel-scope variables.
  std::map<uint32_t, llvm::BasicBlock *> Labels;
  LoweredKernel Result;
  uint64_t KernargSize = 0;
  uint32_t KernargAlign = 16;
  uint64_t GroupSize = 0;
  uint64_t PrivateSize = 0;
};

class ProgramLowering {
public:
  ProgramLowering(const std::vector<BrigModule> &Modules, llvm::Module &M)
      : Modules(Modules), M(M) {}
  llvm::Expected<LoweredProgram> run();

  llvm::Module &module() { return M; }
  /// The home of a module-scope variable of module B.
  const VariableHome *moduleVariable(const BrigModule &B, uint32_t Off) const {
    auto It = ModuleVars.find({&B, Off});
    return It == ModuleVars.end() ? nullptr : &It->second;
  }
  uint64_t moduleGroupSize(const BrigModule &B) const {
    auto It = ModuleGroupSizes.find(&B);
    return It == ModuleGroupSizes.end() ? 0 : It->second;
  }
  uint64_t modulePrivateSize(const BrigModule &B) const {
    auto It = ModulePrivateSizes.find(&B);
    return It == ModulePrivateSizes.end() ? 0 : It->second;
  }

private:
  llvm::Error declareModuleVariable(const BrigModule &B,
                                    EntryRef<BrigDirectiveVariable> V,
                                    llvm::StringRef ModuleName);

  const std::vector<BrigModule> &Modules;
  llvm::Module &M;
  std::map<std::pair<const BrigModule *, uint32_t>, VariableHome> ModuleVars;
  std::map<const BrigModule *, uint64_t> ModuleGroupSizes;
  std::map<const BrigModule *, uint64_t> ModulePrivateSizes;
  LoweredProgram Result;
};

//===----------------------------------------------------------------------===//
// Variables
//===----------------------------------------------------------------------===//

uint64_t variableBytes(const BrigDirectiveVariable &V) {
  uint64_t Elem = typeBytes(V.type & ~BRIG_TYPE_ARRAY);
  uint64_t Dim = (V.type & BRIG_TYPE_ARRAY) ? V.dim.value() : 1;
  return Elem * Dim;
}

uint64_t variableAlign(const BrigDirectiveVariable &V) {
  uint64_t Natural = typeBytes(V.type & ~BRIG_TYPE_ARRAY);
  return std::max<uint64_t>(alignmentBytes(V.align), Natural ? Natural : 1);
}

uint64_t alignTo(uint64_t V, uint64_t A) { return (V + A - 1) / A * A; }

/// The initializer bytes of a variable, or empty.
std::string initializerBytes(const BrigModule &B,
                             const BrigDirectiveVariable &V) {
  if (!V.init)
    return {};
  if (auto C = B.operand<BrigOperandConstantBytes>(V.init))
    return B.string(C->bytes).str();
  return {};
}

llvm::Error
ProgramLowering::declareModuleVariable(const BrigModule &B,
                                       EntryRef<BrigDirectiveVariable> V,
                                       llvm::StringRef ModuleName) {
  VariableHome Home;
  Home.Segment = V->segment;
  const uint64_t Bytes = variableBytes(*V);
  const uint64_t Align = variableAlign(*V);
  llvm::StringRef Name = B.string(V->name);
  switch (V->segment) {
  case BRIG_SEGMENT_GLOBAL:
  case BRIG_SEGMENT_READONLY: {
    const bool Definition = V->modifier & BRIG_VARIABLE_DEFINITION;
    auto *Ty =
        llvm::ArrayType::get(llvm::Type::getInt8Ty(M.getContext()), Bytes);
    std::string Symbol = "hsa.var." + ModuleName.str() + "." + Name.str();
    llvm::Constant *Init = nullptr;
    if (Definition) {
      std::string Data = initializerBytes(B, *V);
      Data.resize(Bytes, '\0');
      Init = llvm::ConstantDataArray::getRaw(
          Data, Bytes, llvm::Type::getInt8Ty(M.getContext()));
    }
    auto *GV = new llvm::GlobalVariable(
        M, Ty, (V->modifier & BRIG_VARIABLE_CONST) != 0,
        llvm::GlobalValue::ExternalLinkage, Init, Symbol);
    GV->setAlignment(llvm::Align(Align));
    Home.Global = GV;
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
  case BRIG_SEGMENT_GROUP: {
    uint64_t &Size = ModuleGroupSizes[&B];
    Home.Offset = alignTo(Size, Align);
    Size = Home.Offset + Bytes;
    break;
  }
  case BRIG_SEGMENT_PRIVATE: {
    uint64_t &Size = ModulePrivateSizes[&B];
    Home.Offset = alignTo(Size, Align);
    Size = Home.Offset + Bytes;
    break;
  }
  default:
    return makeBrigError(B.name(), "hsa_code", V.Offset,
                         "module-scope variable in segment '" +
                             llvm::Twine(segmentName(V->segment)) +
                             "' is not supported");
  }
  ModuleVars[{&B, V.Offset}] = Home;
  return llvm::Error::success();
}

llvm::Expected<LoweredProgram> ProgramLowering::run() {
  for (const BrigModule &B : Modules) {
    llvm::StringRef ModuleName;
    if (auto MD = B.moduleDirective())
      ModuleName = B.string(MD->name);
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
      } else if (E.kind() == BRIG_KIND_DIRECTIVE_KERNEL ||
                 E.kind() == BRIG_KIND_DIRECTIVE_FUNCTION ||
                 E.kind() == BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION ||
                 E.kind() == BRIG_KIND_DIRECTIVE_SIGNATURE) {
        auto X = B.code<BrigDirectiveExecutable>(Off);
        if (X->nextModuleEntry > Off)
          Next = X->nextModuleEntry;
      }
      if (Next <= Off)
        return makeBrigError(B.name(), "hsa_code", Off, "malformed entry");
      Off = Next;
    }
  }
  for (const BrigModule &B : Modules) {
    llvm::StringRef ModuleName;
    if (auto MD = B.moduleDirective())
      ModuleName = B.string(MD->name);
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
        } else if (Defined && E.kind() != BRIG_KIND_DIRECTIVE_SIGNATURE) {
          return makeBrigError(B.name(), "hsa_code", Off,
                               "function '" + B.string(X->name) +
                                   "': functions and calls are not supported "
                                   "by this finalizer yet");
        }
      }
      Off = Next;
    }
  }
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
                       "kernel '" + B.string(K->name) + "': " + Why);
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
    Home.Offset = alignTo(GroupSize, Align);
    GroupSize = Home.Offset + Bytes;
    break;
  case BRIG_SEGMENT_PRIVATE:
  case BRIG_SEGMENT_SPILL:
    Home.Offset = alignTo(PrivateSize, Align);
    PrivateSize = Home.Offset + Bytes;
    if (V->init)
      return fail(V.Offset, "initialized private variables are not supported "
                            "yet");
    break;
  default:
    return fail(V.Offset, "variables in segment '" +
                              llvm::Twine(segmentName(V->segment)) +
                              "' inside a kernel are not supported yet");
  }
  Locals[V.Offset] = Home;
  return llvm::Error::success();
}

llvm::Expected<LoweredKernel> KernelLowering::run() {
  llvm::StringRef Name = B.string(K->name);
  const uint32_t Begin = K->firstCodeBlockEntry, End = K->nextModuleEntry;

  // A kernel with barriers becomes a resumable function,
  //   i32 @k(ptr kernarg, ptr wi, i32 resume)
  // that runs one work-item from the point `resume` (0: the start) to its
  // next barrier and returns that barrier's number (-1: the end). Lowering
  // keeps no value in SSA form across an instruction, so registers - kept
  // in the work-item's private segment - are all the state there is. The
  // CPU target runs every work-item of a group region by region.
  for (uint32_t Off = Begin; Off < End;) {
    EntryRef<BrigBase> E = B.code<BrigBase>(Off);
    if (!E)
      return fail(Off, "malformed code entry");
    if (brigKindIsInst(E.kind()) &&
        B.code<BrigInstBase>(Off)->opcode == BRIG_OPCODE_BARRIER)
      SplitAtBarriers = true;
    Off += E.byteCount();
  }
  Result.UsesBarrier = SplitAtBarriers;

  auto *PtrTy = llvm::PointerType::get(Ctx, 0);
  auto *I32 = llvm::Type::getInt32Ty(Ctx);
  auto *FnTy = SplitAtBarriers
                   ? llvm::FunctionType::get(I32, {PtrTy, PtrTy, I32}, false)
                   : llvm::FunctionType::get(llvm::Type::getVoidTy(Ctx),
                                             {PtrTy, PtrTy}, false);
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

  // Pass 1: blocks for labels, homes for kernel-scope variables.
  for (uint32_t Off = Begin; Off < End;) {
    EntryRef<BrigBase> E = B.code<BrigBase>(Off);
    if (!E)
      return fail(Off, "malformed code entry");
    if (E.kind() == BRIG_KIND_DIRECTIVE_LABEL)
      Labels[Off] = llvm::BasicBlock::Create(
          Ctx, B.string(B.code<BrigDirectiveLabel>(Off)->name).drop_front());
    else if (E.kind() == BRIG_KIND_DIRECTIVE_VARIABLE)
      if (auto Err = declareVariable(B.code<BrigDirectiveVariable>(Off)))
        return Err;
    Off += E.byteCount();
  }

  if (SplitAtBarriers) {
    // The register file follows the private variables.
    RegisterFileOffset = alignTo(PrivateSize, 16);
    llvm::Value *Args[] = {WorkItem};
    RegisterFile = AllocaBuilder.CreateCall(
        P.module().getOrInsertFunction(
            query::PrivateBase, llvm::FunctionType::get(PtrTy, {PtrTy}, false)),
        Args);
  }

  // Pass 2: instructions.
  Body->insertInto(F);
  Builder.SetInsertPoint(Body);
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
    } else if (E.kind() == BRIG_KIND_DIRECTIVE_ARG_BLOCK_START) {
      return fail(Off, "calls (arg blocks) are not supported by this "
                       "finalizer yet");
    } else if (E.kind() == BRIG_KIND_DIRECTIVE_FBARRIER) {
      return fail(Off, "fbarriers are not supported by this finalizer yet");
    }
    // Other directives (loc, pragma, comment, control, variables) carry no
    // code of their own.
    Off += E.byteCount();
  }
  if (!Builder.GetInsertBlock()->getTerminator())
    emitReturn();
  // The entry block holds the register slots; it then enters the body, or
  // in a resumable kernel the region the caller asks for.
  AllocaBuilder.SetInsertPoint(Entry);
  if (SplitAtBarriers) {
    auto *Switch =
        AllocaBuilder.CreateSwitch(F->getArg(2), Body, Resumes.size());
    for (unsigned J = 0; J < Resumes.size(); ++J)
      Switch->addCase(AllocaBuilder.getInt32(J + 1), Resumes[J]);
    PrivateSize = RegisterFileOffset + RegisterFileSize;
  } else {
    AllocaBuilder.CreateBr(Body);
  }

  Result.Body = F;
  Result.Symbol.Name = Name.str();
  Result.Symbol.ProgramLinkage = K->linkage == BRIG_LINKAGE_PROGRAM;
  Result.Symbol.KernargSegmentSize = uint32_t(KernargSize);
  Result.Symbol.KernargSegmentAlignment = KernargAlign;
  Result.Symbol.GroupSegmentSize = uint32_t(GroupSize);
  Result.Symbol.PrivateSegmentSize = uint32_t(PrivateSize);
  return std::move(Result);
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
      Slot.Ptr = AllocaBuilder.CreateConstGEP1_64(
          AllocaBuilder.getInt8Ty(), RegisterFile, RegisterFileOffset + Off);
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
  const uint32_t Off = operandOffset(I, Index);
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
    return llvm::ConstantInt::get(Ty, 1); // The CPU agent's wavefront size.
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
      Segment == BRIG_SEGMENT_SPILL || Segment == BRIG_SEGMENT_KERNARG ||
      Segment == BRIG_SEGMENT_ARG;

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
    } else {
      Offset =
          Builder.CreateAdd(Offset, llvm::ConstantInt::get(I64, Home->Offset));
    }
  }
  if (!Base) {
    switch (Segment) {
    case BRIG_SEGMENT_KERNARG:
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
  switch (I->opcode) {
  case BRIG_OPCODE_NOP:
    return llvm::Error::success();
  case BRIG_OPCODE_ADD:
  case BRIG_OPCODE_SUB:
  case BRIG_OPCODE_MUL:
  case BRIG_OPCODE_DIV:
  case BRIG_OPCODE_REM:
  case BRIG_OPCODE_MIN:
  case BRIG_OPCODE_MAX:
  case BRIG_OPCODE_NEG:
  case BRIG_OPCODE_ABS:
  case BRIG_OPCODE_AND:
  case BRIG_OPCODE_OR:
  case BRIG_OPCODE_XOR:
  case BRIG_OPCODE_NOT:
  case BRIG_OPCODE_SHL:
  case BRIG_OPCODE_SHR:
  case BRIG_OPCODE_MOV:
  case BRIG_OPCODE_MAD:
  case BRIG_OPCODE_FMA:
  case BRIG_OPCODE_SQRT:
  case BRIG_OPCODE_CEIL:
  case BRIG_OPCODE_FLOOR:
  case BRIG_OPCODE_RINT:
  case BRIG_OPCODE_TRUNC:
  case BRIG_OPCODE_COPYSIGN:
  case BRIG_OPCODE_MULHI:
  case BRIG_OPCODE_CMOV:
  case BRIG_OPCODE_POPCOUNT:
    return lowerArithmetic(I);
  case BRIG_OPCODE_CMP:
    return lowerCompare(I);
  case BRIG_OPCODE_CVT:
    return lowerConvert(I);
  case BRIG_OPCODE_LD:
  case BRIG_OPCODE_ST:
  case BRIG_OPCODE_LDA:
    return lowerMemory(I);
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
  case BRIG_OPCODE_BR:
  case BRIG_OPCODE_CBR:
  case BRIG_OPCODE_RET:
    return lowerBranch(I);
  case BRIG_OPCODE_BARRIER:
  case BRIG_OPCODE_WAVEBARRIER:
    if (I->opcode == BRIG_OPCODE_WAVEBARRIER)
      return llvm::Error::success(); // Wavefronts of one work-item.
    {
      // End this region; the next starts after the barrier (see run()).
      auto *Resume = llvm::BasicBlock::Create(Ctx, "barrier");
      Resumes.push_back(Resume);
      Builder.CreateRet(Builder.getInt32(Resumes.size()));
      startBlock(Resume);
    }
    return llvm::Error::success();
  default:
    return failInst(I, "not supported by this finalizer yet");
  }
}

llvm::Error KernelLowering::lowerArithmetic(EntryRef<BrigInstBase> I) {
  const unsigned T = I->type;
  const unsigned Op = I->opcode;
  if (isPacked(T))
    return failInst(I, "packed types are not supported yet");
  if (I.kind() == BRIG_KIND_INST_MOD) {
    auto Mod = B.code<BrigInstMod>(I.Offset);
    if (Mod->round != BRIG_ROUND_NONE &&
        Mod->round != BRIG_ROUND_FLOAT_DEFAULT &&
        Mod->round != BRIG_ROUND_FLOAT_NEAR_EVEN)
      return failInst(I, "rounding mode '" +
                             llvm::Twine(roundName(Mod->round)) +
                             "' is not supported yet");
    if (Mod->modifier & BRIG_ALU_FTZ)
      return failInst(I, "ftz is not supported yet");
  }
  const bool F = isFloat(T);
  const bool S = isSigned(T);
  auto Src = [&](unsigned Index, unsigned Ty) { return read(I, Index, Ty); };
  Value *R = nullptr;

  switch (Op) {
  case BRIG_OPCODE_MOV: {
    auto A = Src(1, T);
    if (!A)
      return A.takeError();
    R = *A;
    break;
  }
  case BRIG_OPCODE_NEG:
  case BRIG_OPCODE_ABS:
  case BRIG_OPCODE_NOT:
  case BRIG_OPCODE_SQRT:
  case BRIG_OPCODE_CEIL:
  case BRIG_OPCODE_FLOOR:
  case BRIG_OPCODE_RINT:
  case BRIG_OPCODE_TRUNC:
  case BRIG_OPCODE_POPCOUNT: {
    const unsigned SrcT = Op == BRIG_OPCODE_POPCOUNT
                              ? B.code<BrigInstSourceType>(I.Offset)->sourceType
                              : T;
    auto A = Src(1, SrcT);
    if (!A)
      return A.takeError();
    llvm::Type *Ty = (*A)->getType();
    switch (Op) {
    case BRIG_OPCODE_NEG:
      R = F ? Builder.CreateFNeg(*A) : Builder.CreateNeg(*A);
      break;
    case BRIG_OPCODE_ABS:
      R = F ? Builder.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, *A)
            : Builder.CreateBinaryIntrinsic(llvm::Intrinsic::abs, *A,
                                            Builder.getFalse());
      break;
    case BRIG_OPCODE_NOT:
      R = Builder.CreateNot(*A);
      break;
    case BRIG_OPCODE_SQRT:
      R = Builder.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, *A);
      break;
    case BRIG_OPCODE_CEIL:
      R = Builder.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, *A);
      break;
    case BRIG_OPCODE_FLOOR:
      R = Builder.CreateUnaryIntrinsic(llvm::Intrinsic::floor, *A);
      break;
    case BRIG_OPCODE_RINT:
      R = Builder.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, *A);
      break;
    case BRIG_OPCODE_TRUNC:
      R = Builder.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, *A);
      break;
    case BRIG_OPCODE_POPCOUNT:
      R = Builder.CreateZExtOrTrunc(
          Builder.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, *A),
          llvmType(T));
      break;
    }
    (void)Ty;
    break;
  }
  case BRIG_OPCODE_MAD:
  case BRIG_OPCODE_FMA:
  case BRIG_OPCODE_CMOV: {
    const bool Cmov = Op == BRIG_OPCODE_CMOV;
    auto A = Src(1, Cmov ? unsigned(BRIG_TYPE_B1) : T);
    auto Bv = Src(2, T);
    auto C = Src(3, T);
    if (!A)
      return A.takeError();
    if (!Bv)
      return Bv.takeError();
    if (!C)
      return C.takeError();
    if (Cmov)
      R = Builder.CreateSelect(*A, *Bv, *C);
    else if (F)
      // mad on floats may fuse or not; fma must fuse. Both fuse here.
      R = Builder.CreateIntrinsic(llvm::Intrinsic::fma, {(*A)->getType()},
                                  {*A, *Bv, *C});
    else
      R = Builder.CreateAdd(Builder.CreateMul(*A, *Bv), *C);
    break;
  }
  default: {
    // Binary operations. Shift amounts are u32 whatever the data type.
    const bool Shift = Op == BRIG_OPCODE_SHL || Op == BRIG_OPCODE_SHR;
    auto A = Src(1, T);
    auto Bv = Src(2, Shift ? unsigned(BRIG_TYPE_U32) : T);
    if (!A)
      return A.takeError();
    if (!Bv)
      return Bv.takeError();
    Value *X = *A, *Y = *Bv;
    llvm::Type *Ty = X->getType();
    switch (Op) {
    case BRIG_OPCODE_ADD:
      R = F ? Builder.CreateFAdd(X, Y) : Builder.CreateAdd(X, Y);
      break;
    case BRIG_OPCODE_SUB:
      R = F ? Builder.CreateFSub(X, Y) : Builder.CreateSub(X, Y);
      break;
    case BRIG_OPCODE_MUL:
      R = F ? Builder.CreateFMul(X, Y) : Builder.CreateMul(X, Y);
      break;
    case BRIG_OPCODE_MULHI: {
      unsigned W = Ty->getIntegerBitWidth();
      auto *Wide = llvm::Type::getIntNTy(Ctx, 2 * W);
      Value *P = Builder.CreateMul(
          S ? Builder.CreateSExt(X, Wide) : Builder.CreateZExt(X, Wide),
          S ? Builder.CreateSExt(Y, Wide) : Builder.CreateZExt(Y, Wide));
      R = Builder.CreateTrunc(Builder.CreateLShr(P, W), Ty);
      break;
    }
    case BRIG_OPCODE_DIV:
    case BRIG_OPCODE_REM: {
      if (F) {
        R = Op == BRIG_OPCODE_DIV ? Builder.CreateFDiv(X, Y)
                                  : Builder.CreateFRem(X, Y);
        break;
      }
      // HSAIL leaves x/0 (and signed MIN/-1) undefined; the host traps on
      // them. Substitute a divisor of 1 so the kernel cannot crash.
      Value *Zero = llvm::ConstantInt::get(Ty, 0);
      Value *Bad = Builder.CreateICmpEQ(Y, Zero);
      if (S) {
        Value *Min = llvm::ConstantInt::get(
            Ty, llvm::APInt::getSignedMinValue(Ty->getIntegerBitWidth()));
        Bad = Builder.CreateOr(
            Bad,
            Builder.CreateAnd(Builder.CreateICmpEQ(X, Min),
                              Builder.CreateICmpEQ(
                                  Y, llvm::ConstantInt::getAllOnesValue(Ty))));
      }
      Value *SafeY =
          Builder.CreateSelect(Bad, llvm::ConstantInt::get(Ty, 1), Y);
      if (Op == BRIG_OPCODE_DIV)
        R = S ? Builder.CreateSDiv(X, SafeY) : Builder.CreateUDiv(X, SafeY);
      else
        R = S ? Builder.CreateSRem(X, SafeY) : Builder.CreateURem(X, SafeY);
      break;
    }
    case BRIG_OPCODE_MIN:
    case BRIG_OPCODE_MAX: {
      const bool Max = Op == BRIG_OPCODE_MAX;
      llvm::Intrinsic::ID Id =
          F   ? (Max ? llvm::Intrinsic::maxnum : llvm::Intrinsic::minnum)
          : S ? (Max ? llvm::Intrinsic::smax : llvm::Intrinsic::smin)
              : (Max ? llvm::Intrinsic::umax : llvm::Intrinsic::umin);
      R = Builder.CreateBinaryIntrinsic(Id, X, Y);
      break;
    }
    case BRIG_OPCODE_COPYSIGN:
      R = Builder.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, X, Y);
      break;
    case BRIG_OPCODE_AND:
      R = Builder.CreateAnd(X, Y);
      break;
    case BRIG_OPCODE_OR:
      R = Builder.CreateOr(X, Y);
      break;
    case BRIG_OPCODE_XOR:
      R = Builder.CreateXor(X, Y);
      break;
    case BRIG_OPCODE_SHL:
    case BRIG_OPCODE_SHR: {
      // Only the low log2(bits) bits of the amount count (PRM 5.8).
      unsigned W = Ty->getIntegerBitWidth();
      Value *Amount = Builder.CreateZExtOrTrunc(
          Builder.CreateAnd(Y, llvm::ConstantInt::get(Y->getType(), W - 1)),
          Ty);
      R = Op == BRIG_OPCODE_SHL ? Builder.CreateShl(X, Amount)
          : S                   ? Builder.CreateAShr(X, Amount)
                                : Builder.CreateLShr(X, Amount);
      break;
    }
    default:
      return failInst(I, "not supported by this finalizer yet");
    }
  }
  }
  return write(I, 0, R, T);
}

llvm::Error KernelLowering::lowerCompare(EntryRef<BrigInstBase> I) {
  auto C = B.code<BrigInstCmp>(I.Offset);
  if (!C)
    return failInst(I, "malformed compare");
  const unsigned SrcT = C->sourceType;
  if (isPacked(SrcT) || isPacked(I->type))
    return failInst(I, "packed compares are not supported yet");
  if (C->modifier & BRIG_ALU_FTZ)
    return failInst(I, "ftz is not supported yet");
  auto A = read(I, 1, SrcT);
  auto Bv = read(I, 2, SrcT);
  if (!A)
    return A.takeError();
  if (!Bv)
    return Bv.takeError();
  Value *Cond = nullptr;
  if (isFloat(SrcT)) {
    using P = llvm::CmpInst::Predicate;
    P Pred;
    switch (C->compare) {
    case BRIG_COMPARE_EQ:
    case BRIG_COMPARE_SEQ:
      Pred = P::FCMP_OEQ;
      break;
    case BRIG_COMPARE_NE:
    case BRIG_COMPARE_SNE:
      Pred = P::FCMP_ONE;
      break;
    case BRIG_COMPARE_LT:
    case BRIG_COMPARE_SLT:
      Pred = P::FCMP_OLT;
      break;
    case BRIG_COMPARE_LE:
    case BRIG_COMPARE_SLE:
      Pred = P::FCMP_OLE;
      break;
    case BRIG_COMPARE_GT:
    case BRIG_COMPARE_SGT:
      Pred = P::FCMP_OGT;
      break;
    case BRIG_COMPARE_GE:
    case BRIG_COMPARE_SGE:
      Pred = P::FCMP_OGE;
      break;
    case BRIG_COMPARE_EQU:
    case BRIG_COMPARE_SEQU:
      Pred = P::FCMP_UEQ;
      break;
    case BRIG_COMPARE_NEU:
    case BRIG_COMPARE_SNEU:
      Pred = P::FCMP_UNE;
      break;
    case BRIG_COMPARE_LTU:
    case BRIG_COMPARE_SLTU:
      Pred = P::FCMP_ULT;
      break;
    case BRIG_COMPARE_LEU:
    case BRIG_COMPARE_SLEU:
      Pred = P::FCMP_ULE;
      break;
    case BRIG_COMPARE_GTU:
    case BRIG_COMPARE_SGTU:
      Pred = P::FCMP_UGT;
      break;
    case BRIG_COMPARE_GEU:
    case BRIG_COMPARE_SGEU:
      Pred = P::FCMP_UGE;
      break;
    case BRIG_COMPARE_NUM:
    case BRIG_COMPARE_SNUM:
      Pred = P::FCMP_ORD;
      break;
    case BRIG_COMPARE_NAN:
    case BRIG_COMPARE_SNAN:
      Pred = P::FCMP_UNO;
      break;
    default:
      return failInst(I, "unknown comparison");
    }
    Cond = Builder.CreateFCmp(Pred, *A, *Bv);
  } else {
    const bool S = isSigned(SrcT);
    using P = llvm::CmpInst::Predicate;
    P Pred;
    switch (C->compare) {
    case BRIG_COMPARE_EQ:
      Pred = P::ICMP_EQ;
      break;
    case BRIG_COMPARE_NE:
      Pred = P::ICMP_NE;
      break;
    case BRIG_COMPARE_LT:
      Pred = S ? P::ICMP_SLT : P::ICMP_ULT;
      break;
    case BRIG_COMPARE_LE:
      Pred = S ? P::ICMP_SLE : P::ICMP_ULE;
      break;
    case BRIG_COMPARE_GT:
      Pred = S ? P::ICMP_SGT : P::ICMP_UGT;
      break;
    case BRIG_COMPARE_GE:
      Pred = S ? P::ICMP_SGE : P::ICMP_UGE;
      break;
    default:
      return failInst(I, "comparison not valid for integers");
    }
    Cond = Builder.CreateICmp(Pred, *A, *Bv);
  }
  // The destination gets 1/0 (b1), all ones/zero (integers) or 1.0/0.0.
  const unsigned DT = I->type;
  llvm::Type *DTy = llvmType(DT);
  Value *R;
  if ((DT & BRIG_TYPE_BASE_MASK) == BRIG_TYPE_B1)
    R = Cond;
  else if (isFloat(DT))
    R = Builder.CreateSelect(Cond, llvm::ConstantFP::get(DTy, 1.0),
                             llvm::ConstantFP::get(DTy, 0.0));
  else
    R = Builder.CreateSExt(Cond, DTy);
  return write(I, 0, R, DT);
}

llvm::Error KernelLowering::lowerConvert(EntryRef<BrigInstBase> I) {
  auto C = B.code<BrigInstCvt>(I.Offset);
  if (!C)
    return failInst(I, "malformed conversion");
  const unsigned DT = I->type, ST = C->sourceType;
  if (isPacked(DT) || isPacked(ST))
    return failInst(I, "packed conversions are not supported yet");
  if (C->modifier & BRIG_ALU_FTZ)
    return failInst(I, "ftz is not supported yet");
  auto A = read(I, 1, ST);
  if (!A)
    return A.takeError();
  Value *X = *A;
  llvm::Type *DTy = llvmType(DT);
  const bool DB1 = (DT & BRIG_TYPE_BASE_MASK) == BRIG_TYPE_B1;
  Value *R = nullptr;
  const unsigned Round = C->round;
  auto RoundFloat = [&](Value *V) -> llvm::Expected<Value *> {
    switch (Round) {
    case BRIG_ROUND_NONE:
    case BRIG_ROUND_INTEGER_ZERO:
    case BRIG_ROUND_INTEGER_ZERO_SAT:
      return Builder.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, V);
    case BRIG_ROUND_INTEGER_NEAR_EVEN:
    case BRIG_ROUND_INTEGER_NEAR_EVEN_SAT:
      return Builder.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, V);
    case BRIG_ROUND_INTEGER_PLUS_INFINITY:
    case BRIG_ROUND_INTEGER_PLUS_INFINITY_SAT:
      return Builder.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, V);
    case BRIG_ROUND_INTEGER_MINUS_INFINITY:
    case BRIG_ROUND_INTEGER_MINUS_INFINITY_SAT:
      return Builder.CreateUnaryIntrinsic(llvm::Intrinsic::floor, V);
    default:
      return failInst(I, "rounding mode '" + llvm::Twine(roundName(Round)) +
                             "' is not supported yet");
    }
  };
  if (DB1) {
    R = isFloat(ST)
            ? Builder.CreateFCmpUNE(X, llvm::ConstantFP::get(X->getType(), 0.0))
            : Builder.CreateICmpNE(X, llvm::ConstantInt::get(X->getType(), 0));
  } else if (isFloat(ST) && isFloat(DT)) {
    if (Round != BRIG_ROUND_NONE && Round != BRIG_ROUND_FLOAT_DEFAULT &&
        Round != BRIG_ROUND_FLOAT_NEAR_EVEN) {
      if (typeBits(DT) < typeBits(ST))
        return failInst(I, "rounding mode '" + llvm::Twine(roundName(Round)) +
                               "' is not supported yet");
      // Integer rounding of a float to a float of the same or larger size.
      auto V = RoundFloat(X);
      if (!V)
        return V.takeError();
      X = *V;
    }
    R = Builder.CreateFPCast(X, DTy);
  } else if (isFloat(ST)) {
    // Float to integer: round as asked, then convert saturating (NaN -> 0).
    // The saturating form also gives the non-saturating one a defined
    // result where HSAIL leaves it undefined.
    auto V = RoundFloat(X);
    if (!V)
      return V.takeError();
    R = Builder.CreateIntrinsic(isSigned(DT) ? llvm::Intrinsic::fptosi_sat
                                             : llvm::Intrinsic::fptoui_sat,
                                {DTy, X->getType()}, {*V});
  } else if (isFloat(DT)) {
    if (Round != BRIG_ROUND_NONE && Round != BRIG_ROUND_FLOAT_DEFAULT &&
        Round != BRIG_ROUND_FLOAT_NEAR_EVEN)
      return failInst(I, "rounding mode '" + llvm::Twine(roundName(Round)) +
                             "' is not supported yet");
    R = isSigned(ST) ? Builder.CreateSIToFP(X, DTy)
                     : Builder.CreateUIToFP(X, DTy);
  } else {
    // Integer to integer: truncate, or extend by the source's signedness.
    R = isSigned(ST) ? Builder.CreateSExtOrTrunc(X, DTy)
                     : Builder.CreateZExtOrTrunc(X, DTy);
    if ((ST & BRIG_TYPE_BASE_MASK) == BRIG_TYPE_B1)
      R = Builder.CreateZExtOrTrunc(X, DTy);
  }
  return write(I, 0, R, DT);
}

llvm::Error KernelLowering::lowerMemory(EntryRef<BrigInstBase> I) {
  if (I->opcode == BRIG_OPCODE_LDA) {
    auto Addr = B.code<BrigInstAddr>(I.Offset);
    if (!Addr)
      return failInst(I, "malformed lda");
    auto A = address(I, 1, Addr->segment);
    if (!A)
      return A.takeError();
    // lda yields a segment address: for segments with a base, the offset.
    Value *V = Builder.CreatePtrToInt(*A, llvm::Type::getInt64Ty(Ctx));
    if (Addr->segment == BRIG_SEGMENT_GROUP ||
        Addr->segment == BRIG_SEGMENT_PRIVATE ||
        Addr->segment == BRIG_SEGMENT_SPILL ||
        Addr->segment == BRIG_SEGMENT_KERNARG ||
        Addr->segment == BRIG_SEGMENT_ARG)
      return failInst(I, "lda of segment '" +
                             llvm::Twine(segmentName(Addr->segment)) +
                             "' is not supported yet");
    return write(I, 0, Builder.CreateZExtOrTrunc(V, llvmType(I->type)),
                 I->type);
  }
  auto Mem = B.code<BrigInstMem>(I.Offset);
  if (!Mem)
    return failInst(I, "malformed memory instruction");
  const unsigned T = I->type;
  if (isPacked(T) && typeBytes(T) > 8)
    return failInst(I,
                    "128-bit packed memory operations are not supported yet");
  auto A = address(I, 1, Mem->segment);
  if (!A)
    return A.takeError();
  llvm::Type *Ty = llvmType(T);
  if ((T & BRIG_TYPE_BASE_MASK) == BRIG_TYPE_B128 && !isPacked(T))
    Ty = llvm::Type::getInt128Ty(Ctx);
  const llvm::Align Align(alignmentBytes(Mem->align));
  const uint32_t DataOff = operandOffset(I, 0);
  // Vector forms: an operand list of registers at consecutive addresses.
  llvm::SmallVector<uint32_t, 4> Regs;
  if (auto List = B.operand<BrigOperandOperandList>(DataOff)) {
    OffsetList Elems = B.offsetList(List->elements);
    for (unsigned J = 0; J < Elems.size(); ++J)
      Regs.push_back(Elems[J]);
  }
  const unsigned Bytes = typeBytes(T);
  if (I->opcode == BRIG_OPCODE_LD) {
    if (Regs.empty()) {
      Value *V = Builder.CreateAlignedLoad(Ty, *A, Align);
      return write(I, 0, V, T);
    }
    for (unsigned J = 0; J < Regs.size(); ++J) {
      Value *P = Builder.CreateConstGEP1_64(Builder.getInt8Ty(), *A, J * Bytes);
      Value *V = Builder.CreateAlignedLoad(
          Ty, P, llvm::commonAlignment(Align, J * Bytes));
      auto R = B.operand<BrigOperandRegister>(Regs[J]);
      if (!R)
        return failInst(I, "vector element is not a register");
      RegisterSlot Slot = registerSlot(*R);
      if (!V->getType()->isIntegerTy())
        V = Builder.CreateBitCast(V, Builder.getIntNTy(Bytes * 8));
      V = isSigned(T) ? Builder.CreateSExtOrTrunc(V, Slot.Ty)
                      : Builder.CreateZExtOrTrunc(V, Slot.Ty);
      Builder.CreateStore(V, Slot.Ptr);
    }
    return llvm::Error::success();
  }
  // st: the value is operand 0 (register, immediate or vector).
  if (Regs.empty()) {
    auto V = read(I, 0, T);
    if (!V)
      return V.takeError();
    Builder.CreateAlignedStore(*V, *A, Align);
    return llvm::Error::success();
  }
  for (unsigned J = 0; J < Regs.size(); ++J) {
    Value *V;
    if (auto R = B.operand<BrigOperandRegister>(Regs[J])) {
      RegisterSlot Slot = registerSlot(*R);
      V = Builder.CreateLoad(Slot.Ty, Slot.Ptr);
      V = Builder.CreateTrunc(V, Builder.getIntNTy(Bytes * 8));
      if (!Ty->isIntegerTy())
        V = Builder.CreateBitCast(V, Ty);
    } else {
      return failInst(I, "immediate vector elements are not supported yet");
    }
    Value *P = Builder.CreateConstGEP1_64(Builder.getInt8Ty(), *A, J * Bytes);
    Builder.CreateAlignedStore(V, P, llvm::commonAlignment(Align, J * Bytes));
  }
  return llvm::Error::success();
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
  }
  return failInst(I, "not supported by this finalizer yet");
}

} // namespace

llvm::Expected<LoweredProgram>
lowerProgram(const std::vector<BrigModule> &Modules, llvm::Module &M) {
  ProgramLowering P(Modules, M);
  return P.run();
}

} // namespace openhsa::finalizer
