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
