//===- brig/asm/ModuleSemantics.h - Semantic rules on BRIG -----*- C++ -*-===//
//
// Part of openhsa. brig/Validator.h checks that a BRIG module is well formed
// (container, entries, references, the coarse opcode table of
// brig/InstTable.h); the rules beyond that, which the assembler enforces on
// text (Semantics.h: types, packing, rounding and ftz per opcode, cvt and
// cmp type pairs, segments, memory orders and scopes, register sizes,
// address sizes, base profile, signal types per machine model, images,
// variables, arg blocks, register limits, declarations and definitions),
// are checked here on BRIG, by decoding it into the assembler's AST
// (BrigToAst.h) and running the same code. A broken rule is reported where
// it lies, as brig/Validator.h reports its own:
//
//   m.brig: hsa_code+0x40: instruction 'add': add does not support ftz with
//   type u32
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_BRIG_ASM_MODULESEMANTICS_H
#define OPENHSA_BRIG_ASM_MODULESEMANTICS_H

#include "brig/BrigModule.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace openhsa::brig::assembler {

/// Checks \p M against the semantic rules of Semantics.h; returns the first
/// one it breaks. \p M must have passed brig::validateModule: the rules
/// assume valid encodings (types, alignments, operand kinds).
llvm::Error checkModuleSemantics(const BrigModule &M);

/// brig::loadValidatedModule, then checkModuleSemantics: what every BRIG
/// module must pass before anything else uses it.
llvm::Expected<BrigModule> loadCheckedModule(llvm::ArrayRef<uint8_t> Bytes,
                                             llvm::StringRef Name = "module");

} // namespace openhsa::brig::assembler

#endif // OPENHSA_BRIG_ASM_MODULESEMANTICS_H
