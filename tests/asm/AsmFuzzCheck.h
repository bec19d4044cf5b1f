//===- tests/asm/AsmFuzzCheck.h - One fuzz input through the assembler
//-----===//
//
// Part of openhsa. The path fuzz_assembler drives and AsmRegressionTest
// replays on tests/asm/regressions/*: HSAIL text -> assembler. When the text
// assembles, the BRIG must be a well-formed container; it is validated (a
// rejection is fine: the assembler leaves HSAILasm's semantic checks to the
// validator) and, when valid, must pass the semantic rules the text passed
// (brig/asm/ModuleSemantics.h), disassembled, and the text reassembled: the two
// BRIG images must be byte-identical (comments holding tabs or non-ASCII bytes,
// which the printer shows as '.' like HSAILasm does, only need the second round
// trip to be exact). When the text does not assemble, the error must be an
// AsmError with a position, rendered "file:LINE:COL: error: message".
//
//===----------------------------------------------------------------------===//

#ifndef OPENHSA_TESTS_ASM_ASMFUZZCHECK_H
#define OPENHSA_TESTS_ASM_ASMFUZZCHECK_H

#include "brig/Disassembler.h"
#include "brig/Validator.h"
#include "brig/asm/Assembler.h"
#include "brig/asm/ModuleSemantics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace openhsa::brig::fuzz {

/// What happened to one input.
struct AsmFuzzOutcome {
  bool Assembled = false; ///< The assembler accepted the text.
  bool Valid = false;     ///< brig/Validator accepted its BRIG.
  std::string Error;      ///< The rendered diagnostic, when rejected.
  std::string Problem;    ///< Non-empty when a stage misbehaved (a finding).
};

/// Whether a comment directive holds a byte the disassembler prints as '.'.
inline bool hasLossyComment(const BrigModule &M) {
  for (EntryRef<BrigBase> E : M.codeEntries()) {
    if (E.kind() != BRIG_KIND_DIRECTIVE_COMMENT)
      continue;
    auto C = M.code<BrigDirectiveComment>(E.Offset);
    for (char Ch : M.string(C->name))
      if (uint8_t(Ch) < 32 || uint8_t(Ch) >= 127)
        return true;
  }
  return false;
}

inline AsmFuzzOutcome checkHsailText(llvm::StringRef Text,
                                     llvm::StringRef Name = "fuzz.hsail") {
  AsmFuzzOutcome R;
  llvm::Expected<std::vector<uint8_t>> Brig = assembler::assembleHsail(Text);
  if (!Brig) {
    bool Positioned = false;
    llvm::Error E = llvm::handleErrors(
        Brig.takeError(), [&](std::unique_ptr<assembler::AsmError> A) {
          Positioned = A->loc().Line != 0 && A->loc().Col != 0;
          return llvm::Error(std::move(A));
        });
    R.Error = assembler::renderError(std::move(E), Name, Text);
    if (!Positioned)
      R.Problem = "rejected without a source position: " + R.Error;
    else if (!llvm::StringRef(R.Error).starts_with((Name + ":").str()) ||
             !llvm::StringRef(R.Error).contains(": error: "))
      R.Problem = "badly formed diagnostic: " + R.Error;
    return R;
  }
  R.Assembled = true;

  llvm::Expected<BrigModule> M =
      BrigModule::create(*Brig, "fuzz.brig"); // vector storage: 16-aligned
  if (!M) {
    R.Problem = "assembler output is not a BRIG container: " +
                llvm::toString(M.takeError());
    return R;
  }
  if (llvm::Error E = validateModule(*M))
    llvm::consumeError(std::move(E));
  else
    R.Valid = true;
  // The text passed the semantic rules, so its BRIG must pass them too.
  if (R.Valid)
    if (llvm::Error E = assembler::checkModuleSemantics(*M)) {
      R.Problem = "the BRIG of accepted text breaks a semantic rule: " +
                  llvm::toString(std::move(E));
      return R;
    }

  std::string Dis = disassembleToString(*M);
  llvm::Expected<std::vector<uint8_t>> Again = assembler::assembleHsail(Dis);
  if (!Again) {
    R.Problem = "the disassembly does not reassemble:\n" +
                assembler::renderError(Again.takeError(), "disassembly", Dis) +
                "--- disassembly ---\n" + Dis;
    return R;
  }
  auto Differ = [&](const std::vector<uint8_t> &A,
                    const std::vector<uint8_t> &B, const char *What) {
    if (A == B)
      return false;
    size_t At = 0;
    while (At < A.size() && At < B.size() && A[At] == B[At])
      ++At;
    R.Problem = std::string(What) + " differs at byte " + std::to_string(At) +
                " (" + std::to_string(A.size()) + " vs " +
                std::to_string(B.size()) + " bytes)\n--- disassembly ---\n" +
                Dis;
    return true;
  };
  if (!hasLossyComment(*M)) {
    Differ(*Brig, *Again, "assemble -> disassemble -> assemble");
    return R;
  }
  // Like HSAILasm, the printer shows a comment's tabs and non-ASCII bytes as
  // '.', so such a module comes back with those comments changed: the text
  // must be a fixed point and the second round trip exact.
  llvm::Expected<BrigModule> M2 = BrigModule::create(*Again, "again.brig");
  if (!M2) {
    R.Problem = "reassembled output is not a BRIG container: " +
                llvm::toString(M2.takeError());
    return R;
  }
  std::string Dis2 = disassembleToString(*M2);
  if (Dis2 != Dis) {
    R.Problem = "disassembly is not a fixed point:\n--- first ---\n" + Dis +
                "--- second ---\n" + Dis2;
    return R;
  }
  llvm::Expected<std::vector<uint8_t>> Third = assembler::assembleHsail(Dis2);
  if (!Third) {
    R.Problem = "the second disassembly does not reassemble: " +
                llvm::toString(Third.takeError());
    return R;
  }
  Differ(*Again, *Third, "second round trip");
  return R;
}

} // namespace openhsa::brig::fuzz

#endif // OPENHSA_TESTS_ASM_ASMFUZZCHECK_H
