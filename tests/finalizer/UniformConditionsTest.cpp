//===- tests/finalizer/UniformConditionsTest.cpp - Unswitching -----------===//
//
// finalizer/UniformConditions.h on IR written for it: a loop's branch on a
// value that does not change in the loop is unswitched (a copy with it
// true behind a branch before the loop, the loop itself with it false);
// a branch on a value the loop changes, and the loop's exit test, are not.
// The pass's other rules are tested through kernels (VectorizeTest).
//
//===----------------------------------------------------------------------===//
#include "finalizer/UniformConditions.h"

#include "IrText.h"

#include <gtest/gtest.h>

namespace {

using openhsa::test::occurrences;

/// Runs the pass on @f of Text; returns @f's text afterwards.
std::string afterPass(const std::string &Text) {
  llvm::LLVMContext C;
  std::unique_ptr<llvm::Module> M = openhsa::test::parseIr(Text, C);
  if (!M)
    return "";
  openhsa::finalizer::StandaloneAnalyses Analyses;
  llvm::Function *F = M->getFunction("f");
  openhsa::finalizer::UniformConditionsPass().run(*F, Analyses.functions());
  return openhsa::test::verifiedText(*F);
}

/// A loop over i < n storing a[i] or 0 to out[i] by COND.
std::string loop(const std::string &Cond) {
  return R"(
define void @f(ptr %out, ptr %a, i32 %n, i1 %flag) {
entry:
  %any = icmp sgt i32 %n, 0
  br i1 %any, label %loop, label %exit
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %latch ]
  %odd = trunc i32 %i to i1
  %p = getelementptr inbounds float, ptr %out, i32 %i
  br i1 )" +
         Cond +
         R"(, label %copy, label %zero
copy:
  %q = getelementptr inbounds float, ptr %a, i32 %i
  %v = load float, ptr %q
  store float %v, ptr %p
  br label %latch
zero:
  store float 0.0, ptr %p
  br label %latch
latch:
  %next = add nuw nsw i32 %i, 1
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}
)";
}

TEST(UniformConditionsTest, InvariantBranchesInLoopsAreUnswitched) {
  const std::string F = afterPass(loop("%flag"));
  // One branch on the flag, before the loops (frozen: the loop might not
  // have reached it); the copy that runs where it holds, the loop where
  // not, each with its path alone.
  EXPECT_EQ(occurrences(F, "br i1 %flag"), 1u) << F;
  EXPECT_NE(F.find("br i1 %flag.fr, label %"), std::string::npos) << F;
  EXPECT_NE(F.find(".holds:"), std::string::npos) << F;
  EXPECT_EQ(occurrences(F, "load float"), 1u) << F;
  EXPECT_EQ(occurrences(F, "store float 0.000000e+00"), 1u) << F;
  EXPECT_EQ(occurrences(F, "store float %v"), 1u) << F;
}

TEST(UniformConditionsTest, BranchesOnWhatTheLoopChangesStay) {
  const std::string F = afterPass(loop("%odd"));
  EXPECT_EQ(F.find(".holds"), std::string::npos) << F;
  EXPECT_NE(F.find("br i1 %odd"), std::string::npos) << F;
}

} // namespace
