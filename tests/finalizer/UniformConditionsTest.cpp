//===- tests/finalizer/UniformConditionsTest.cpp - Unswitching -----------===//
//
// finalizer/UniformConditions.h on IR written for it: a loop's branch on a
// value that does not change in the loop is unswitched (a copy with it
// true behind a branch before the loop, the loop itself with it false);
// a branch on a value the loop changes, and the loop's exit test, are not;
// a function's copies stop at the pass's budget.
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

/// Loops one after the other, each of Adds additions and a branch on
/// %flag, which does not change in any of them.
std::string manyLoops(unsigned Loops, unsigned Adds) {
  std::string T = "define void @f(ptr %out, i32 %n, i1 %flag) {\n"
                  "entry:\n"
                  "  %any = icmp sgt i32 %n, 0\n"
                  "  br i1 %any, label %loop0, label %exit\n";
  for (unsigned K = 0; K < Loops; ++K) {
    const std::string S = std::to_string(K);
    const std::string Pre = K ? "latch" + std::to_string(K - 1) : "entry";
    const std::string Next =
        K + 1 < Loops ? "loop" + std::to_string(K + 1) : "exit";
    T += "loop" + S + ":\n  %i" + S + " = phi i32 [ 0, %" + Pre +
         " ], [ %next" + S + ", %latch" + S + " ]\n  %p" + S +
         " = getelementptr inbounds i32, ptr %out, i32 %i" + S + "\n";
    std::string Last = "%i" + S;
    for (unsigned A = 0; A < Adds; ++A) {
      const std::string V = "%v" + S + "_" + std::to_string(A);
      T +=
          "  " + V + " = add i32 " + Last + ", " + std::to_string(A + 1) + "\n";
      Last = V;
    }
    T += "  br i1 %flag, label %a" + S + ", label %b" + S + "\na" + S +
         ":\n  store i32 " + Last + ", ptr %p" + S + "\n  br label %latch" + S +
         "\nb" + S + ":\n  store i32 0, ptr %p" + S + "\n  br label %latch" +
         S + "\nlatch" + S + ":\n  %next" + S + " = add nuw nsw i32 %i" + S +
         ", 1\n  %more" + S + " = icmp slt i32 %next" + S +
         ", %n\n  br i1 %more" + S + ", label %loop" + S + ", label %" + Next +
         "\n";
  }
  return T + "exit:\n  ret void\n}\n";
}

TEST(UniformConditionsTest, CopiesStopAtTheFunctionsBudget) {
  // 16 loops of about 310 instructions: all of them copied would add about
  // 5000 instructions; the pass copies at most 4000 a function.
  constexpr unsigned Loops = 16, LoopSize = 310;
  const std::string F = afterPass(manyLoops(Loops, 300));
  size_t Copies = 0;
  for (unsigned K = 0; K < Loops; ++K)
    Copies +=
        F.find("\nlatch" + std::to_string(K) + ".holds:") != std::string::npos;
  EXPECT_GE(Copies, 10u) << F.substr(0, 2000);
  EXPECT_LT(Copies, size_t(Loops));
  EXPECT_LE(Copies * LoopSize, 4000u);
  // A loop left whole still branches on the flag in every iteration.
  EXPECT_NE(F.find("br i1 %flag, label %a" + std::to_string(Loops - 1) +
                   ", label %b"),
            std::string::npos);
}

} // namespace
