//===- brig/Validator.h - BRIG module validation ----------------*- C++ -*-===//
//
// Part of openhsa. Checks a BRIG module against PRM chapter 18: the container
// (header, section index, sections, entry sizes, kinds, offsets, lists,
// strings) and the HSAIL-level rules the finalizer relies on (instructions
// against the opcode table in brig/InstTable.h, kernels and functions, arg
// blocks, labels, symbol references). The assembler's finer per-opcode rules
// (types, modifiers, operands...) are checked on a validated module by
// brig/asm/ModuleSemantics.h.
//
// The validator never reads outside the module and every loop it runs is
// bounded by the module's size, whatever the bytes. Diagnostics look like
//   module.brig: hsa_code+0x1a4: instruction 'add' needs 3 operands (found 2)
//
//===----------------------------------------------------------------------===//

#ifndef OPENHSA_BRIG_VALIDATOR_H
#define OPENHSA_BRIG_VALIDATOR_H

#include "brig/BrigModule.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace openhsa::brig {

/// Validates an already wrapped module; returns the first problem found.
llvm::Error validateModule(const BrigModule &M);

/// Wraps \p Bytes (see BrigModule::create) and validates the result.
llvm::Expected<BrigModule> loadValidatedModule(llvm::ArrayRef<uint8_t> Bytes,
                                               llvm::StringRef Name = "module");

} // namespace openhsa::brig

#endif // OPENHSA_BRIG_VALIDATOR_H
