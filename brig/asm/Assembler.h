//===- brig/asm/Assembler.h - HSAIL text assembler entry point --*- C++ -*-===//
//
// Part of openhsa. Assembles HSAIL text (PRM 1.0) into a BRIG module image.
//
//   llvm::Expected<std::vector<uint8_t>> Brig = assembleHsail(Text);
//   if (!Brig)
//     errs() << renderError(Brig.takeError(), "file.hsail", Text);
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_BRIG_ASM_ASSEMBLER_H
#define OPENHSA_BRIG_ASM_ASSEMBLER_H

#include "brig/asm/Diagnostic.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace openhsa::brig::assembler {

struct AssembleOptions {
  /// Enforce the semantic rules of Semantics.h (the default). Off, the
  /// assembler emits BRIG that breaks them, which only tests of the
  /// BRIG-level checker (ModuleSemantics.h) want.
  bool CheckSemantics = true;
};

/// Parses \p Source and returns the BRIG bytes, or the first error as an
/// AsmError (see renderError in Diagnostic.h for clang-style output).
llvm::Expected<std::vector<uint8_t>>
assembleHsail(llvm::StringRef Source, const AssembleOptions &Options = {});

} // namespace openhsa::brig::assembler

#endif // OPENHSA_BRIG_ASM_ASSEMBLER_H
