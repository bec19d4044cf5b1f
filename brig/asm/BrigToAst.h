//===- brig/asm/BrigToAst.h - The assembler's AST of a BRIG module -*- C++ -*-//
//
// Part of openhsa. Rebuilds, from a BRIG module that brig/Validator.h
// accepted, the tree the parser builds from text (Ast.h), so that the rules
// of Semantics.h also judge BRIG that did not come from our assembler.
//
// BRIG has no source positions: the SourceLoc of every decoded entity is a
// handle (Line = index + 1 into Origins) to where it lies in the module, so
// that an AsmError raised on it can name its section and offset.
//
// What BRIG cannot say is recovered as the text would have said it: a
// rounding mode is "written" (Instruction::RoundWritten) when it is not the
// one the text form gives without a rounding modifier, and a variable's
// allocation is "specified" when it is not the one the text form gives
// without alloc().
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_BRIG_ASM_BRIGTOAST_H
#define OPENHSA_BRIG_ASM_BRIGTOAST_H

#include "brig/BrigModule.h"
#include "brig/asm/Ast.h"
#include "brig/asm/Semantics.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace openhsa::brig::assembler {

/// Where a decoded entity lies in the module (kept small: a module has one
/// per operand; describeOrigin spells it out when a rule is broken).
struct BrigOrigin {
  static constexpr int32_t NoOperand = -1;
  static constexpr int32_t Initializer = -2;
  uint32_t CodeOffset = 0;     ///< Its hsa_code entry (for an operand: the
                               ///< instruction or variable that uses it).
  uint32_t OperandOffset = 0;  ///< For an operand: its hsa_operand entry.
  int32_t Operand = NoOperand; ///< Operand index, or Initializer.
  int32_t Element = -1;        ///< Index in a list operand, or -1.
};

/// "instruction 'add'", "instruction 'add', operand 2 (hsa_operand+0x34)",
/// "variable '&x', initializer (hsa_operand+0x24)", "kernel '&k'",
/// "arg block"...
std::string describeOrigin(const BrigModule &M, const BrigOrigin &O);

/// A BRIG module as the assembler's AST.
struct BrigAst {
  /// Module-scope statements in hsa_code order (variables, fbarriers,
  /// executables with their arguments and code blocks, arg blocks nested);
  /// comments, loc, pragma and control directives are left out.
  Program P;
  /// Profile and machine model of the module directive; whether an
  /// extension "IMAGE" directive is present.
  ModuleTraits Traits;
  std::vector<BrigOrigin> Origins;

  /// The origin a SourceLoc of this tree stands for, or nullptr.
  const BrigOrigin *origin(SourceLoc L) const {
    return L.Line >= 1 && L.Line <= Origins.size() ? &Origins[L.Line - 1]
                                                   : nullptr;
  }
};

/// Decodes \p M, which brig::validateModule accepted. Entries are read
/// through BrigModule's checked accessors, so decoding itself never reads out
/// of bounds, whatever the module (an entry it cannot decode is an error).
llvm::Expected<BrigAst> brigToAst(const BrigModule &M);

} // namespace openhsa::brig::assembler

#endif // OPENHSA_BRIG_ASM_BRIGTOAST_H
