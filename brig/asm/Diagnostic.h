//===- brig/asm/Diagnostic.h - Source locations and assembler errors ------===//
//
// Part of openhsa. The HSAIL text assembler reports the first error it finds
// as a value: an AsmError carrying the source position and the message. The
// front end renders it clang-style:
//
//   file.hsail:LINE:COL: error: message
//   <offending line>
//   <caret under COL>
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_BRIG_ASM_DIAGNOSTIC_H
#define OPENHSA_BRIG_ASM_DIAGNOSTIC_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace openhsa::brig::assembler {

/// A position in the source text. Line and column are 1-based; a zero line
/// means "no position known".
struct SourceLoc {
  uint32_t Line = 0;
  uint32_t Col = 0;
};

/// The error value produced by the lexer, parser and BRIG emitter.
class AsmError : public llvm::ErrorInfo<AsmError> {
public:
  static char ID;

  AsmError(SourceLoc Loc, std::string Message)
      : Loc(Loc), Message(std::move(Message)) {}

  SourceLoc loc() const { return Loc; }
  const std::string &text() const { return Message; }

  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;

private:
  SourceLoc Loc;
  std::string Message;
};

/// Render \p Loc / \p Message against \p Source the way clang does:
/// "file:line:col: error: message", the source line, and a caret line.
std::string formatDiagnostic(llvm::StringRef FileName, llvm::StringRef Source,
                             SourceLoc Loc, llvm::StringRef Message);

/// Convert any error produced by the assembler into a rendered diagnostic.
/// Non-AsmError errors are rendered without position.
std::string renderError(llvm::Error Err, llvm::StringRef FileName,
                        llvm::StringRef Source);

} // namespace openhsa::brig::assembler

#endif // OPENHSA_BRIG_ASM_DIAGNOSTIC_H
