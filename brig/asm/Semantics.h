//===- brig/asm/Semantics.h - HSAIL instruction rules -----------*- C++ -*-===//
//
// Part of openhsa. The rules of PRM chapters 5-11 that HSAILasm enforces on
// a parsed instruction beyond its grammar: the types, packing controls,
// rounding modes, ftz, segments, memory orders and scopes each opcode allows,
// the size of each register operand, address sizes, dimension numbers,
// image geometries and coordinates. A broken rule is reported at the
// mnemonic, or at the operand it concerns, as an AsmError. The parser runs
// them on text; ModuleSemantics.h runs them on BRIG decoded into the same
// tree (BrigToAst.h).
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_BRIG_ASM_SEMANTICS_H
#define OPENHSA_BRIG_ASM_SEMANTICS_H

#include "brig/asm/Ast.h"
#include "brig/asm/Mnemonics.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

namespace openhsa::brig::assembler {

/// What an instruction's rules depend on besides the instruction.
struct ModuleTraits {
  uint8_t Profile = BRIG_PROFILE_FULL;
  uint8_t Model = BRIG_MACHINE_LARGE;
  bool ImageExtension = false; ///< extension "IMAGE" precedes
};

/// The type the operand at \p Idx of a generic-syntax instruction takes
/// (immediates are converted to it; registers must have its size);
/// BRIG_TYPE_NONE when the position has no fixed type.
unsigned operandType(const OpcodeInfo &Info, const Instruction &I, unsigned Idx,
                     const ModuleTraits &M);

/// Size in bits of the addresses of \p Segment in machine model \p Model.
unsigned addressBits(unsigned Segment, unsigned Model);

/// Checks \p I (fully parsed, operands included) against the rules of its
/// opcode; returns the first rule it breaks as an AsmError.
llvm::Error checkInstruction(const OpcodeInfo &Info, const Instruction &I,
                             const ModuleTraits &M);

/// Where a variable is defined or declared.
enum class VarScope : uint8_t {
  Module,      ///< module scope
  KernelArg,   ///< a kernel's formal argument
  FunctionArg, ///< a function's or signature's formal argument
  Local,       ///< a kernel's or function's code block
  ArgBlock,    ///< an arg block inside a code block
};

/// Bytes an aggregate initializer ({...}) occupies: its constants, 8 per
/// image or sampler, and the padding of its align() elements.
uint64_t aggregateBytes(const Operand &List);

/// Elements of type \p ElementType that the initializer \p Init gives (what
/// Variable::InitElements holds).
uint64_t initializerElements(const Operand &Init, unsigned ElementType);

/// Checks a variable against PRM 4.20-4.21 (segments per scope, const,
/// allocation, alignment, initializers, declarations) as HSAILasm does.
llvm::Error checkVariable(const Variable &V, VarScope Scope,
                          const ModuleTraits &M);

/// Checks that a kernel or function uses at most 128 c registers and at most
/// 2048 32-bit register slots ($s, $d counting 2, $q counting 4; PRM 4.7),
/// counting up to the highest register number of each kind it names.
llvm::Error checkRegisterLimits(const Executable &E);

/// Checks an arg block (PRM 10.2): it holds exactly one call, each variable
/// it defines is an argument of its call, and the call's arguments match the
/// formal arguments of the function (or signature) it calls, found among
/// \p Module (the module-scope statements parsed so far) or, for a call to
/// itself, \p Enclosing (the function whose body holds the block, which is
/// not among them yet).
llvm::Error checkArgBlock(const ArgBlock &A, const std::vector<Stmt> &Module,
                          const Executable *Enclosing = nullptr);

/// Finds the callee named \p Name (the last kernel, function or signature
/// of that name), or returns nullptr.
using CalleeLookup =
    llvm::function_ref<const Executable *(const std::string &Name)>;

/// checkArgBlock with the callees found by \p FindCallee (an index, for
/// modules too large to search once per arg block).
llvm::Error checkArgBlock(const ArgBlock &A, CalleeLookup FindCallee);

/// Checks that every module-scope declaration with module linkage in
/// \p Stmts has a definition, and that every declaration and definition of
/// one name agree (PRM 4.12).
llvm::Error checkModuleLinkageDefinitions(const std::vector<Stmt> &Stmts);

} // namespace openhsa::brig::assembler

#endif // OPENHSA_BRIG_ASM_SEMANTICS_H
