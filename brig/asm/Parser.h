//===- brig/asm/Parser.h - HSAIL text to Program ----------------*- C++ -*-===//
//
// Part of openhsa. A recursive-descent parser for the HSAIL text grammar of
// PRM 1.0 chapter 19. It decodes mnemonics, modifiers and immediate values
// into their BRIG encodings and leaves names unresolved (the emitter binds
// them). The first syntax error stops parsing and is returned as an AsmError.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_BRIG_ASM_PARSER_H
#define OPENHSA_BRIG_ASM_PARSER_H

#include "brig/asm/Ast.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace openhsa::brig::assembler {

/// Parses a complete HSAIL source text. With \p CheckSemantics false the
/// rules of Semantics.h are skipped (the grammar and the parser's own layout
/// rules still apply): tests use it to build BRIG that breaks them.
llvm::Expected<Program> parseHsail(llvm::StringRef Source,
                                   bool CheckSemantics = true);

} // namespace openhsa::brig::assembler

#endif // OPENHSA_BRIG_ASM_PARSER_H
