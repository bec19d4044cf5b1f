//===- brig/Disassembler.h - BRIG to HSAIL text -----------------*- C++ -*-===//
//
// Part of openhsa. Prints a BRIG module as HSAIL text laid out the way the
// HSA Foundation's HSAILasm -disassemble prints it (tabs after mnemonics,
// one tab of indentation per code-block / arg-block level, a blank line
// before kernels, functions and labels, floats as raw IEEE bits such as
// 0F3f800000), so that text assembled by HSAILasm and printed by either tool
// reads the same.
//
// The module should have passed brig/Validator.h; on an unvalidated module the
// printer still stays in bounds and marks what it cannot print with
// "/*INVALID*/".
//
//===----------------------------------------------------------------------===//

#ifndef OPENHSA_BRIG_DISASSEMBLER_H
#define OPENHSA_BRIG_DISASSEMBLER_H

#include "brig/BrigModule.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace openhsa::brig {

/// Prints the whole module to \p OS.
void disassemble(const BrigModule &M, llvm::raw_ostream &OS);

/// Returns the whole module as text.
std::string disassembleToString(const BrigModule &M);

/// Prints one instruction (without indentation or newline), e.g.
/// "add_u32\t$s1, $s2, 3;". Empty if \p CodeOffset is not an instruction.
std::string disassembleInst(const BrigModule &M, uint32_t CodeOffset);

} // namespace openhsa::brig

#endif // OPENHSA_BRIG_DISASSEMBLER_H
