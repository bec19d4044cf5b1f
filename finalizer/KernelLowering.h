//===- finalizer/KernelLowering.h - Lowering internals ----------*- C++ -*-===//
//
// Private to finalizer/: the classes behind lowerProgram(), shared by the
// files that lower each instruction family (Lower*.cpp). A family adds a
// try* member below, its file, and one entry in lowerInstruction's list.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_KERNELLOWERING_H
#define OPENHSA_FINALIZER_KERNELLOWERING_H

#include "finalizer/FloatEmitter.h"
#include "finalizer/Lowering.h"

#include "brig/BrigNames.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

#include <map>
#include <memory>
#include <optional>

namespace openhsa::finalizer {
namespace detail {

using namespace brig;
using llvm::Value;

/// An fbarrier's group segment memory (LowerFbarrier.cpp): 16 bytes,
/// 8-aligned for the 64-bit atomics of targets with native barriers.
inline constexpr uint64_t FbarrierBytes = 16;
inline constexpr uint64_t FbarrierAlign = 8;

/// Where a variable lives once lowered.
struct VariableHome {
  uint8_t Segment = BRIG_SEGMENT_NONE;
  llvm::GlobalVariable *Global = nullptr; // Global and readonly segments.
  uint64_t Offset = 0; // Kernarg, group, private, spill, arg: segment offset.
  // Arg variables (LowerCall.cpp): their memory, once materialized.
  llvm::Value *Pointer = nullptr;
  // Function-scope private and spill variables: Offset is from the frame.
  bool FrameRelative = false;
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
    return (T & BRIG_TYPE_PACK_MASK) ? 0 : 32;
  case BRIG_TYPE_U64:
  case BRIG_TYPE_S64:
  case BRIG_TYPE_B64:
  case BRIG_TYPE_F64:
    return (T & BRIG_TYPE_PACK_MASK) ? 0 : 64;
  case BRIG_TYPE_ROIMG: // Opaque handles are 64 bits (PRM 4.13.3).
  case BRIG_TYPE_WOIMG:
  case BRIG_TYPE_RWIMG:
  case BRIG_TYPE_SAMP:
  case BRIG_TYPE_SIG32:
  case BRIG_TYPE_SIG64:
    return 64;
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

/// A function definition of the program (LowerCall.cpp).
struct FunctionDef {
  const BrigModule *B = nullptr;
  EntryRef<BrigDirectiveExecutable> X;
  llvm::Function *Fn = nullptr; // Its own LLVM function, once one is needed.
};

/// What a code block does through the calls it makes (LowerCall.cpp).
struct CallSummary {
  bool Waits = false;           // barrier or waitfbar, itself or in a callee.
  bool WaitsOnFbarrier = false; // waitfbar, itself or in a callee.
  bool DynamicStack = false;    // alloca, icall or recursion.
  uint64_t StackBytes = 0;      // Private stack its frames need at most.
  std::vector<FunctionDef *> Callees; // Every function it reaches.
};

/// Lowers one kernel's code block.
class KernelLowering {
public:
  KernelLowering(ProgramLowering &P, const BrigModule &B,
                 EntryRef<BrigDirectiveExecutable> K);
  llvm::Expected<LoweredKernel> run();
  /// Lowers a function definition into Fn (LowerCall.cpp).
  llvm::Error runFunction(llvm::Function *Fn);

private:
  llvm::Error fail(uint32_t Offset, const llvm::Twine &Why) const;
  llvm::Error failInst(EntryRef<BrigInstBase> I, const llvm::Twine &Why) const;

  llvm::Error declareVariable(EntryRef<BrigDirectiveVariable> V);
  llvm::Error lowerInstruction(EntryRef<BrigInstBase> I);
  // The code block: pass 1 declares labels, variables, fbarriers and
  // control directives; pass 2 lowers the instructions.
  llvm::Error declareCodeBlock();
  llvm::Error lowerCodeBlock();

  // Instruction families. Each try* returns std::nullopt for an opcode it
  // does not handle; lowerInstruction asks them in turn (Lowering.cpp).
  std::optional<llvm::Error> tryFloat(EntryRef<BrigInstBase> I);
  std::optional<llvm::Error> tryArithmetic(EntryRef<BrigInstBase> I);
  std::optional<llvm::Error> tryMemory(EntryRef<BrigInstBase> I);
  std::optional<llvm::Error> tryWorkItem(EntryRef<BrigInstBase> I);
  std::optional<llvm::Error> tryControl(EntryRef<BrigInstBase> I);
  std::optional<llvm::Error> tryCall(EntryRef<BrigInstBase> I);
  std::optional<llvm::Error> tryFbarrier(EntryRef<BrigInstBase> I);
  std::optional<llvm::Error> tryCrossLane(EntryRef<BrigInstBase> I);
  std::optional<llvm::Error> tryAtomic(EntryRef<BrigInstBase> I);
  std::optional<llvm::Error> trySignal(EntryRef<BrigInstBase> I);
  std::optional<llvm::Error> trySystem(EntryRef<BrigInstBase> I);

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
  /// read() of the operand at \p Off (an element of an operand list);
  /// \p Index only names it in errors.
  llvm::Expected<Value *> readOperand(EntryRef<BrigInstBase> I, uint32_t Off,
                                      unsigned Index, unsigned BrigType);
  llvm::Error write(EntryRef<BrigInstBase> I, unsigned Index, Value *V,
                    unsigned BrigType);
  llvm::Expected<Value *> address(EntryRef<BrigInstBase> I, unsigned Index,
                                  unsigned Segment);
  llvm::Expected<llvm::BasicBlock *> labelTarget(EntryRef<BrigInstBase> I,
                                                 unsigned Index);
  Value *callQuery(const char *Name, llvm::Type *Ret,
                   llvm::ArrayRef<Value *> Extra = {});
  void startBlock(llvm::BasicBlock *BB);
  /// A pointer \p Offset bytes into this work-item's private block (the
  /// register file of a resumable kernel, a hidden word).
  Value *privateWord(llvm::IRBuilder<> &IB, uint64_t Offset);
  /// The exceptions this body detects (PRM 12.3): a kernel's own, with the
  /// finalizer's; for functions, the program's.
  uint32_t detectMask() const;
  /// Where the work-item's DETECT flags live (LowerSystem.cpp).
  RegisterSlot detectFlags();
  /// A FloatEmitter that detects exceptions where this body does.
  FloatEmitter floatEmitter();
  /// ORs the exceptions FE raised, of those detected, into the flags.
  void raiseDetected(FloatEmitter &FE);
  void emitReturn() {
    if (ExitBlock)
      Builder.CreateBr(ExitBlock);
    else if (SplitAtBarriers)
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
  // Or their groups run in lockstep: barriers are query::Barrier calls.
  bool Lockstep = false;
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

  // Functions and calls (LowerCall.cpp), fbarriers and scheduled kernels
  // (LowerFbarrier.cpp), control directives (LowerDirectives.cpp).
  enum class BodyKind { Kernel, Function, Inlined };
  BodyKind Kind = BodyKind::Kernel;
  llvm::BasicBlock *ExitBlock = nullptr;  // Where ret goes, when set.
  uint64_t FrameSize = 0, FrameAlign = 1; // Function-scope private frame.
  RegisterSlot FrameBaseSlot, TopSlot;    // i32 private segment offsets.
  llvm::SmallVector<const FunctionDef *, 4> InlineStack;
  bool Scheduled = false; // Resumable per work-item (waitfbar); see there.
  Value *SchedState = nullptr;
  RegisterSlot ResumeSlot, SavedGenSlot, SavedFbarrierSlot;
  RegisterSlot stateSlot(unsigned Bits);
  RegisterSlot topSlot();
  void setupFrame(Value *StackPointer);
  void finishStack(llvm::BasicBlock *Body);
  Value *argVariable(uint32_t Off);
  Value *frameBase();
  llvm::Error lowerCall(EntryRef<BrigInstBase> I);
  llvm::Error emitCall(EntryRef<BrigInstBase> I, FunctionDef &D,
                       llvm::ArrayRef<Value *> Out, llvm::ArrayRef<Value *> In);
  llvm::Error runInlined(Value *StackPointer);
  void adoptDetachedBlocks(llvm::BasicBlock *Body);
  llvm::Error lowerAlloca(EntryRef<BrigInstBase> I);
  llvm::Error declareFbarrier(EntryRef<BrigDirectiveFbarrier> D);
  llvm::Error checkFbarriers(const CallSummary &Calls);
  llvm::Expected<Value *> fbarrierOffset(EntryRef<BrigInstBase> I,
                                         unsigned Index);
  llvm::Error lowerFbarrier(EntryRef<BrigInstBase> I);
  /// Fbarriers where work-items run concurrently (native barriers).
  llvm::Error lowerNativeFbarrier(EntryRef<BrigInstBase> I);
  /// A call of the target's barrier query (LoweringOptions::NativeBarriers).
  llvm::Error nativeBarrier(const char *Query);
  /// PRM 9.4 across a wavefront of more than one lane (LowerCrossLane.cpp).
  llvm::Error lowerWideCrossLane(EntryRef<BrigInstBase> I);
  /// The target's ballot (query::WaveBallot): the active lanes of the
  /// wavefront whose Bit is set, lane L at bit L. Wavefronts above 1 only.
  Value *waveBallot(Value *Bit);
  /// activelanemask's destination: Mask (one bit per lane) in the first of
  /// its four registers, 0 in the others.
  llvm::Error writeLaneMask(EntryRef<BrigInstBase> I, Value *Mask);
  llvm::Error lowerScheduledWait(EntryRef<BrigInstBase> I);
  void setupScheduled();
  void finishScheduled(llvm::BasicBlock *Entry, llvm::BasicBlock *Body);
  llvm::Error lowerCrossLane(EntryRef<BrigInstBase> I);
  llvm::Error recordControl(const BrigModule &M,
                            EntryRef<BrigDirectiveControl> C);
  llvm::Error recordControls(const BrigModule &M,
                             EntryRef<BrigDirectiveExecutable> X);
};

class ProgramLowering {
public:
  ProgramLowering(const std::vector<BrigModule> &Modules, llvm::Module &M,
                  const LoweringOptions &Options)
      : Modules(Modules), M(M), FinalizeDetect(Options.DetectExceptions),
        ProgramDetect(Options.DetectExceptions),
        DefaultRoundsToZero(Options.DefaultRoundsToZero), Options(Options) {}
  /// Barriers are calls to query::Barrier (LoweringOptions).
  bool nativeBarriers() const { return Options.NativeBarriers; }
  /// Kernel Name's groups run in lockstep (LoweringOptions::LockstepKernels).
  bool lockstepKernel(llvm::StringRef Name) const {
    return llvm::is_contained(Options.LockstepKernels, Name);
  }
  bool hostRuntimeHelpers() const { return Options.HostRuntimeHelpers; }
  /// The sync scope of an HSAIL memory scope (LoweringOptions::
  /// ScopedAtomics).
  llvm::SyncScope::ID syncScope(unsigned BrigMemoryScope) {
    if (!Options.ScopedAtomics || BrigMemoryScope == BRIG_MEMORY_SCOPE_SYSTEM ||
        BrigMemoryScope == BRIG_MEMORY_SCOPE_NONE)
      return llvm::SyncScope::System;
    return M.getContext().getOrInsertSyncScopeID(
        BrigMemoryScope == BRIG_MEMORY_SCOPE_AGENT ? "agent" : "workgroup");
  }
  unsigned wavefrontSize() const { return Options.WavefrontSize; }
  /// The program's rounding is ZERO: $default modules round toward zero.
  bool defaultRoundsToZero() const { return DefaultRoundsToZero; }
  llvm::Expected<LoweredProgram> run();

  llvm::Module &module() { return M; }
  /// The home of a module-scope variable of module B.
  const VariableHome *moduleVariable(const BrigModule &B, uint32_t Off) const {
    auto It = ModuleVars.find({&B, Off});
    return It == ModuleVars.end() ? nullptr : &It->second;
  }
  /// Module-scope group and private variables, and the group variables
  /// and fbarriers of functions, of the whole program: they come first in
  /// every kernel's segments, as a function may reach another module's.
  uint64_t moduleGroupSize(const BrigModule &) const {
    return ProgramGroupSize;
  }
  uint64_t modulePrivateSize(const BrigModule &) const {
    return ProgramPrivateSize;
  }

  // Functions (LowerCall.cpp).
  /// The definition the function directive at Off of B names, wherever
  /// in the program it is; nullptr when none.
  FunctionDef *resolveFunction(const BrigModule &B, uint32_t Off);
  /// D's own LLVM function; its body is lowered once the kernels are.
  llvm::Function *standaloneFunction(FunctionDef &D);
  CallSummary summarize(const BrigModule &B,
                        EntryRef<BrigDirectiveExecutable> X);
  CallSummary summarize(FunctionDef &D);
  /// Program-wide homes of function-scope group variables and fbarriers.
  const VariableHome *functionScopeHome(const BrigModule &B,
                                        uint32_t Off) const {
    auto It = FunctionScopeHomes.find({&B, Off});
    return It == FunctionScopeHomes.end() ? nullptr : &It->second;
  }
  /// The storage of a global or readonly variable defined in a code block.
  llvm::Expected<llvm::GlobalVariable *>
  codeBlockGlobal(const BrigModule &B, EntryRef<BrigDirectiveVariable> V);
  static llvm::StringRef moduleName(const BrigModule &B);
  unsigned moduleFbarrierCount() const; // LowerFbarrier.cpp
  /// Where the DETECT exception flags (PRM 11.2) live in every work-item's
  /// private segment when a function of the program reads or writes them:
  /// a kernel and the functions it calls must share one word. Without
  /// such a function, kernels keep the flags in a register.
  std::optional<uint64_t> detectFlagsOffset() const {
    return DetectFlagsOffset;
  }
  /// Where a work-item records that it executed debugtrap (PRM 11.4),
  /// when the program has one: a caller of a function that trapped
  /// returns too, up to the kernel, and a resumable kernel does not resume
  /// a halted work-item after a barrier.
  std::optional<uint64_t> haltFlagOffset() const { return HaltFlagOffset; }
  /// Exceptions the finalizer's caller enables for DETECT.
  uint32_t finalizeDetect() const { return FinalizeDetect; }
  /// Exceptions enabled for DETECT anywhere in the program: functions,
  /// lowered once for every kernel, detect these.
  uint32_t programDetect() const { return ProgramDetect; }

private:
  llvm::Error declareModuleVariable(const BrigModule &B,
                                    EntryRef<BrigDirectiveVariable> V,
                                    llvm::StringRef ModuleName);
  llvm::Error declareModuleFbarrier(const BrigModule &B,
                                    EntryRef<BrigDirectiveFbarrier> D);
  llvm::Error collectDefinitions();
  llvm::Error layoutFunctionScope();
  llvm::Error lowerFunctions();
  struct BlockScan {
    bool Waits = false, WaitsOnFbarrier = false, DynamicStack = false;
    uint64_t FrameBytes = 0; // Private frame with its alignment slack.
    std::vector<FunctionDef *> Callees;
  };
  const BlockScan &scan(const BrigModule &B,
                        EntryRef<BrigDirectiveExecutable> X);

  const std::vector<BrigModule> &Modules;
  llvm::Module &M;
  std::map<std::pair<const BrigModule *, uint32_t>, VariableHome> ModuleVars;
  LoweredProgram Result;
  // Program-wide symbols: definitions by object symbol name, so that
  // declarations in any module resolve to them (LowerCall.cpp).
  std::map<std::string, std::pair<const BrigModule *, uint32_t>> VarDefs;
  std::map<std::string, VariableHome> VarHomes;
  std::vector<std::unique_ptr<FunctionDef>> Functions;
  std::map<std::string, FunctionDef *> FunctionsBySymbol;
  std::map<std::pair<const BrigModule *, uint32_t>, FunctionDef *>
      FunctionsByDirective;
  std::vector<FunctionDef *> FunctionWorklist;
  std::map<std::pair<const BrigModule *, uint32_t>, VariableHome>
      FunctionScopeHomes;
  std::map<std::pair<const BrigModule *, uint32_t>, llvm::GlobalVariable *>
      CodeBlockGlobals;
  std::map<std::pair<const BrigModule *, uint32_t>, BlockScan> Scans;
  std::map<const FunctionDef *, CallSummary> Summaries;
  uint64_t ProgramGroupSize = 0, ProgramPrivateSize = 0;
  std::optional<uint64_t> DetectFlagsOffset, HaltFlagOffset;
  bool KernelTraps = false; // A kernel's own code has debugtrap.
  uint32_t FinalizeDetect = 0, ProgramDetect = 0;
  bool DefaultRoundsToZero = false;
  LoweringOptions Options;
};

/// The exceptions X's enabledetectexceptions directives enable.
uint32_t enabledDetectExceptions(const BrigModule &B,
                                 EntryRef<BrigDirectiveExecutable> X);

/// Whether the code block of X has an instruction with \p Opcode.
bool codeBlockUses(const BrigModule &B, EntryRef<BrigDirectiveExecutable> X,
                   unsigned Opcode);

//===----------------------------------------------------------------------===//
// Variables
//===----------------------------------------------------------------------===//

uint64_t variableBytes(const BrigDirectiveVariable &V);
uint64_t variableAlign(const BrigDirectiveVariable &V);
/// The bytes of a global or readonly variable's initializer (PRM 4.8,
/// 4.10; LowerDirectives.cpp).
llvm::Expected<std::string> initializerBytes(const BrigModule &B,
                                             EntryRef<BrigDirectiveVariable> V);
/// The object symbol of a module-scope entity: with program linkage one of
/// the whole program, with module linkage one of its module (LowerCall.cpp).
std::string programSymbol(llvm::StringRef Prefix, llvm::StringRef ModuleName,
                          unsigned Linkage, llvm::StringRef Name);
inline uint64_t alignTo(uint64_t V, uint64_t A) { return (V + A - 1) / A * A; }

} // namespace detail
} // namespace openhsa::finalizer

#endif
