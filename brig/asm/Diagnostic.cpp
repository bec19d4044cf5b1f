//===- brig/asm/Diagnostic.cpp - Source locations and assembler errors ----===//

#include "brig/asm/Diagnostic.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace openhsa::brig::assembler {

char AsmError::ID = 0;

void AsmError::log(llvm::raw_ostream &OS) const {
  if (Loc.Line != 0)
    OS << Loc.Line << ':' << Loc.Col << ": ";
  OS << Message;
}

std::error_code AsmError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

static llvm::StringRef lineOf(llvm::StringRef Source, uint32_t Line) {
  uint32_t Cur = 1;
  size_t Pos = 0;
  while (Cur < Line) {
    size_t NL = Source.find('\n', Pos);
    if (NL == llvm::StringRef::npos)
      return {};
    Pos = NL + 1;
    ++Cur;
  }
  llvm::StringRef Rest = Source.substr(Pos);
  llvm::StringRef Text = Rest.take_until([](char C) { return C == '\n'; });
  if (Text.ends_with("\r"))
    Text = Text.drop_back();
  return Text;
}

std::string formatDiagnostic(llvm::StringRef FileName, llvm::StringRef Source,
                             SourceLoc Loc, llvm::StringRef Message) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << FileName << ':';
  if (Loc.Line != 0)
    OS << Loc.Line << ':' << Loc.Col << ':';
  OS << " error: " << Message << '\n';
  if (Loc.Line != 0) {
    llvm::StringRef Text = lineOf(Source, Loc.Line);
    OS << Text << '\n';
    // Keep tabs so the caret lines up with the echoed source line.
    uint32_t Col = std::min<uint32_t>(Loc.Col, uint32_t(Text.size()) + 1);
    for (uint32_t I = 1; I < Col; ++I)
      OS << (I - 1 < Text.size() && Text[I - 1] == '\t' ? '\t' : ' ');
    OS << "^\n";
  }
  return Out;
}

std::string renderError(llvm::Error Err, llvm::StringRef FileName,
                        llvm::StringRef Source) {
  std::string Out;
  llvm::handleAllErrors(
      std::move(Err),
      [&](const AsmError &E) {
        Out += formatDiagnostic(FileName, Source, E.loc(), E.text());
      },
      [&](const llvm::ErrorInfoBase &E) {
        Out += formatDiagnostic(FileName, Source, SourceLoc{}, E.message());
      });
  return Out;
}

} // namespace openhsa::brig::assembler
