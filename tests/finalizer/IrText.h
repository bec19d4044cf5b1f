//===- tests/finalizer/IrText.h - Passes run on IR written as text -*- C++
//-*-===//
//
// For the tests that run one finalizer pass on hand-written IR
// (ForwardVectorStoresTest, DeadGroupStoresTest, GroupBoundsChecksTest) and
// look at the text it leaves.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_TESTS_FINALIZER_IRTEXT_H
#define OPENHSA_TESTS_FINALIZER_IRTEXT_H

#include "finalizer/Codegen.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace openhsa::test {

/// Text parsed into a module of C; null, and the test failed with the
/// parser's message, where it is not valid IR.
inline std::unique_ptr<llvm::Module> parseIr(const std::string &Text,
                                             llvm::LLVMContext &C) {
  llvm::SMDiagnostic Err;
  std::unique_ptr<llvm::Module> M = llvm::parseAssemblyString(Text, Err, C);
  if (!M) {
    std::string S;
    llvm::raw_string_ostream OS(S);
    Err.print("test", OS);
    ADD_FAILURE() << S;
  }
  return M;
}

/// F's text; the test fails where F does not verify.
inline std::string verifiedText(const llvm::Function &F) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  EXPECT_FALSE(llvm::verifyFunction(F, &OS)) << OS.str();
  F.print(OS);
  return S;
}

/// Parses Text, runs Run on its function @f with @f's alias analysis and
/// returns @f's text afterwards ("" where Text does not parse); what Run
/// returns (what it changed) goes to *Result.
inline std::string afterRunOnF(
    const std::string &Text,
    llvm::function_ref<unsigned(llvm::Function &, llvm::AAResults &)> Run,
    unsigned *Result = nullptr) {
  llvm::LLVMContext C;
  std::unique_ptr<llvm::Module> M = parseIr(Text, C);
  if (!M)
    return "";
  openhsa::finalizer::StandaloneAnalyses Analyses;
  llvm::Function *F = M->getFunction("f");
  const unsigned N =
      Run(*F, Analyses.functions().getResult<llvm::AAManager>(*F));
  if (Result)
    *Result = N;
  return verifiedText(*F);
}

/// Text with every From replaced by To (placeholders in IR written for a
/// test).
inline std::string replaceAll(std::string Text, const std::string &From,
                              const std::string &To) {
  for (size_t At = Text.find(From); At != std::string::npos;
       At = Text.find(From, At + To.size()))
    Text.replace(At, From.size(), To);
  return Text;
}

/// How many times What occurs in Text.
inline size_t occurrences(const std::string &Text, const std::string &What) {
  size_t N = 0;
  for (size_t At = Text.find(What); At != std::string::npos;
       At = Text.find(What, At + 1))
    ++N;
  return N;
}

} // namespace openhsa::test

#endif
