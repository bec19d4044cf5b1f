//===- brig/asm/BrigEmitter.h - Program to BRIG bytes -----------*- C++ -*-===//
//
// Part of openhsa. Lowers a parsed HSAIL Program to a BRIG module image
// (PRM 1.0 chapter 18): binds names to directives, resolves labels, and lays
// out the hsa_data, hsa_code and hsa_operand sections.
//
// The layout follows the conventions of the HSA Foundation assembler so that
// output can be compared byte for byte: entries are appended in source
// order; strings and constant bytes in hsa_data are shared when equal, while
// every list (operand lists, code lists) gets its own entry; references to a
// declaration are redirected to the definition of the same symbol when the
// module contains one.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_BRIG_ASM_BRIGEMITTER_H
#define OPENHSA_BRIG_ASM_BRIGEMITTER_H

#include "brig/asm/Ast.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace openhsa::brig::assembler {

/// Produces the complete BRIG module (header, section index, sections).
llvm::Expected<std::vector<uint8_t>> emitBrig(const Program &P);

} // namespace openhsa::brig::assembler

#endif // OPENHSA_BRIG_ASM_BRIGEMITTER_H
