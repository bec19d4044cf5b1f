//===- finalizer/KernelLowering.h - Lowering internals ----------*- C++ -*-===//
//
// Private to finalizer/: the classes behind lowerProgram(), shared by the
// files that lower each instruction family (Lower*.cpp). A family adds a
// try* member below, its file, and one entry in lowerInstruction's list.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_KERNELLOWERING_H
#define OPENHSA_FINALIZER_KERNELLOWERING_H

#include "finalizer/Lowering.h"

#include "brig/BrigNames.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

#include <map>
#include <optional>

namespace openhsa::finalizer {
namespace detail {

using namespace brig;
using llvm::Value;

/// Where a variable lives once lowered.
struct VariableHome {
  uint8_t Segment = BRIG_SEGMENT_NONE;
  llvm::GlobalVariable *Global = nullptr; // Global and readonly segments.
  uint64_t Offset = 0; // Kernarg, group, private, spill, arg: segment offset.
};

inline unsigned typeBits(unsigned T) {
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
inline unsigned typeBytes(unsigned T) {
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

inline bool isFloat(unsigned T) {
  unsigned B = T & BRIG_TYPE_BASE_MASK;
  return !(T & BRIG_TYPE_PACK_MASK) &&
         (B == BRIG_TYPE_F16 || B == BRIG_TYPE_F32 || B == BRIG_TYPE_F64);
}
inline bool isSigned(unsigned T) {
  unsigned B = T & BRIG_TYPE_BASE_MASK;
  return B == BRIG_TYPE_S8 || B == BRIG_TYPE_S16 || B == BRIG_TYPE_S32 ||
         B == BRIG_TYPE_S64;
}
inline bool isPacked(unsigned T) { return (T & BRIG_TYPE_PACK_MASK) != 0; }

inline uint64_t alignmentBytes(unsigned A) {
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

  // Instruction families. Each try* returns std::nullopt for an opcode it
  // does not handle; lowerInstruction asks them in turn (Lowering.cpp).
  std::optional<llvm::Error> tryArithmetic(EntryRef<BrigInstBase> I);
  std::optional<llvm::Error> tryMemory(EntryRef<BrigInstBase> I);
  std::optional<llvm::Error> tryWorkItem(EntryRef<BrigInstBase> I);
  std::optional<llvm::Error> tryControl(EntryRef<BrigInstBase> I);

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

uint64_t variableBytes(const BrigDirectiveVariable &V);
uint64_t variableAlign(const BrigDirectiveVariable &V);
inline uint64_t alignTo(uint64_t V, uint64_t A) { return (V + A - 1) / A * A; }

} // namespace detail
} // namespace openhsa::finalizer

#endif
