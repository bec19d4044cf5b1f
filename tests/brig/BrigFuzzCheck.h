//===- tests/brig/BrigFuzzCheck.h - One fuzz input through the reader
//------===//
//
// Part of openhsa. The path fuzz_brig_reader drives and RegressionTest replays
// on tests/brig/regressions/*: arbitrary bytes -> BrigModule::create ->
// disassembler (on the unvalidated module) -> validator -> disassembler again
// when the module is valid. Every stage must end in a value (a module, text,
// or an error in the "<module>: <where>+0x<off>: <message>" form); sanitizers
// catch out-of-bounds reads and undefined behaviour on the way.
//
//===----------------------------------------------------------------------===//

#ifndef OPENHSA_TESTS_BRIG_BRIGFUZZCHECK_H
#define OPENHSA_TESTS_BRIG_BRIGFUZZCHECK_H

#include "brig/Disassembler.h"
#include "brig/Validator.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>

namespace openhsa::brig::fuzz {

/// What happened to one input.
struct BrigFuzzOutcome {
  bool Created = false; ///< BrigModule::create accepted the container.
  bool Valid = false;   ///< validateModule accepted the module.
  std::string Error;    ///< The first diagnostic, when not valid.
  std::string Problem;  ///< Non-empty when a stage misbehaved (a finding).
};

inline BrigFuzzOutcome checkBrigBytes(llvm::ArrayRef<uint8_t> Input,
                                      llvm::StringRef Name = "fuzz.brig") {
  BrigFuzzOutcome R;
  // Modules are 16-byte aligned in memory; the input buffer need not be.
  struct AlignedDelete {
    void operator()(uint8_t *P) const {
      ::operator delete[](P, std::align_val_t(16));
    }
  };
  std::unique_ptr<uint8_t[], AlignedDelete> Copy(new (std::align_val_t(16))
                                                     uint8_t[Input.size() + 1]);
  if (!Input.empty())
    std::memcpy(Copy.get(), Input.data(), Input.size());
  llvm::ArrayRef<uint8_t> Bytes(Copy.get(), Input.size());

  // A diagnostic must name the module first.
  auto CheckDiag = [&](llvm::StringRef Stage, const std::string &Msg) {
    if (!llvm::StringRef(Msg).starts_with((Name + ": ").str()))
      R.Problem =
          (Stage + " diagnostic does not name the module: " + Msg).str();
  };

  llvm::Expected<BrigModule> M = BrigModule::create(Bytes, Name);
  if (!M) {
    R.Error = llvm::toString(M.takeError());
    CheckDiag("BrigModule::create", R.Error);
    return R;
  }
  R.Created = true;
  // The printer must stay in bounds on modules that have not been validated.
  std::string Unvalidated = disassembleToString(*M);
  if (llvm::Error E = validateModule(*M)) {
    R.Error = llvm::toString(std::move(E));
    CheckDiag("validateModule", R.Error);
    return R;
  }
  R.Valid = true;
  // A valid module prints the same whether or not it was validated first, and
  // without anything the printer could not make sense of.
  std::string Validated = disassembleToString(*M);
  if (Validated != Unvalidated)
    R.Problem = "disassembly is not deterministic";
  else if (llvm::StringRef(Validated).contains("/*INVALID*/"))
    R.Problem = "a valid module disassembles with /*INVALID*/:\n" + Validated;
  return R;
}

} // namespace openhsa::brig::fuzz

#endif // OPENHSA_TESTS_BRIG_BRIGFUZZCHECK_H
