//===- tests/finalizer/FinalizerFuzzCheck.h - One fuzz input, finalized ---===//
//
// Part of openhsa. The path fuzz_finalizer drives and CorpusFinalizeTest
// replays on tests/finalizer/fuzz_regressions/*: HSAIL text -> assembler ->
// validator -> (when valid) finalizer for the host CPU -> JIT loader -> the
// address of every kernel. Text the assembler or the validator refuses is
// not the finalizer's business. A validated module must then either finalize
// and load, every kernel's entry resolving, or be refused with a message
// that names the place (the "+0x" of a BRIG offset) and is not an internal
// error: the LLVM verifier's verdict on the lowered IR (finalizer/Codegen.cpp)
// and on vectorized bodies (finalizer/WorkItemVectorizer.cpp) are internal
// errors, so invalid IR is a finding even where LLVM has no assertions.
// Crashes, aborts and hangs are findings of the fuzzer itself.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_TESTS_FINALIZER_FINALIZERFUZZCHECK_H
#define OPENHSA_TESTS_FINALIZER_FINALIZERFUZZCHECK_H

#include "brig/Validator.h"
#include "brig/asm/Assembler.h"
#include "finalizer/Finalizer.h"
#include "finalizer/JitLoader.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace openhsa::finalizer::fuzz {

/// Inputs beyond these are skipped: the fuzzer should spend its time on many
/// small modules (finalizing one kernel takes milliseconds), not on a few
/// large ones.
inline constexpr size_t MaxTextBytes = 8192;
inline constexpr unsigned MaxCodeBlocks = 8; // kernels and functions

struct FinalizerFuzzOutcome {
  bool Skipped = false;   ///< Too large, or not a valid module.
  bool Finalized = false; ///< Finalized and loaded.
  std::string Refusal;    ///< The finalizer's or the loader's message.
  std::string Problem;    ///< Non-empty when a stage misbehaved (a finding).
};

/// Whether a refusal is one a program may get: not an internal error, and
/// saying where (finalizer errors name the BRIG offset, "+0x..."; the loader
/// names the code object's symbol).
inline std::string badRefusal(llvm::StringRef Message, bool FromLoader) {
  if (Message.contains("internal"))
    return "internal error: " + Message.str();
  if (!FromLoader && !Message.contains("+0x"))
    return "refused without saying where: " + Message.str();
  return "";
}

inline unsigned countCodeBlocks(llvm::StringRef Text) {
  unsigned N = 0;
  for (llvm::StringRef Word : {"kernel", "function"})
    for (size_t At = Text.find(Word); At != llvm::StringRef::npos;
         At = Text.find(Word, At + 1))
      ++N;
  return N;
}

/// VectorWidth as finalizer::FinalizeRequest: 0 for the host's SIMD width,
/// 1 for scalar work-item loops (the fuzzer alternates between the two).
inline FinalizerFuzzOutcome checkFinalize(llvm::StringRef Text,
                                          unsigned VectorWidth) {
  FinalizerFuzzOutcome R;
  if (Text.size() > MaxTextBytes || countCodeBlocks(Text) > MaxCodeBlocks) {
    R.Skipped = true;
    return R;
  }
  llvm::Expected<std::vector<uint8_t>> Brig =
      brig::assembler::assembleHsail(Text);
  if (!Brig) {
    llvm::consumeError(Brig.takeError());
    R.Skipped = true;
    return R;
  }
  llvm::Expected<brig::BrigModule> M =
      brig::loadValidatedModule(*Brig, "fuzz.brig");
  if (!M) {
    llvm::consumeError(M.takeError());
    R.Skipped = true;
    return R;
  }
  FinalizeRequest Request;
  Request.Modules.push_back(std::move(*M));
  Request.VectorWidth = VectorWidth;
  llvm::Expected<CodeObject> CO = finalize(Request);
  if (!CO) {
    R.Refusal = llvm::toString(CO.takeError());
    R.Problem = badRefusal(R.Refusal, false);
    return R;
  }
  for (const KernelSymbol &K : CO->Kernels)
    if (llvm::StringRef(K.ScalarReason).contains("is invalid")) {
      R.Problem = "kernel " + K.Name + ": " + K.ScalarReason;
      return R;
    }
  llvm::Expected<std::unique_ptr<LoadedObject>> L = LoadedObject::load(*CO, {});
  if (!L) {
    R.Refusal = llvm::toString(L.takeError());
    R.Problem = badRefusal(R.Refusal, true);
    return R;
  }
  for (const KernelSymbol &K : CO->Kernels) {
    llvm::Expected<void *> Entry = (*L)->address(K.EntrySymbol);
    if (!Entry) {
      R.Problem = "kernel " + K.Name + " loaded without its entry " +
                  K.EntrySymbol + ": " + llvm::toString(Entry.takeError());
      return R;
    }
    if (!*Entry) {
      R.Problem = "kernel " + K.Name + " has a null entry";
      return R;
    }
  }
  R.Finalized = true;
  return R;
}

} // namespace openhsa::finalizer::fuzz

#endif
