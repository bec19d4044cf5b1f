//===- tests/finalizer/GroupBoundsChecksTest.cpp - Checks the group passes ===//
//
// finalizer/GroupBoundsChecks.h on IR written for each rule: a work-group
// function without loops is versioned on a vector comparison of the lanes'
// ids (a sum of splats and constant vectors) with a splat of a bound; the
// copy the scalar check picks has the comparison's lanes all true. Loops,
// other functions, other comparisons are left alone.
//
//===----------------------------------------------------------------------===//
#include "finalizer/GroupBoundsChecks.h"

#include "IrText.h"
#include "finalizer/DeadGroupStores.h"

#include <gtest/gtest.h>

namespace {

using openhsa::test::occurrences;

/// Runs the pass on @f of the module Body declares (ATTRS stands for the
/// work-group function attribute); returns @f's text afterwards and sets
/// Versioned.
std::string afterPass(const std::string &Body, bool &Versioned) {
  const std::string Text =
      "declare <4 x float> @llvm.masked.load.v4f32.p0(ptr, i32, <4 x i1>, "
      "<4 x float>)\n" +
      openhsa::test::replaceAll(
          Body, "ATTRS",
          std::string("\"") + openhsa::finalizer::WorkGroupFunctionAttr + "\"");
  unsigned Changed = 0;
  std::string F = openhsa::test::afterRunOnF(
      Text,
      [](llvm::Function &F, llvm::AAResults &) {
        return unsigned(openhsa::finalizer::versionGroupBoundsCheck(F));
      },
      &Changed);
  Versioned = Changed;
  return F;
}

/// A lockstep group of 4 work-items: ids group * 4 + lane, a load masked
/// by `id < n` and a select of it. PRED and LANES vary by test.
std::string group(const std::string &Pred, const std::string &Ids) {
  return R"(
define <4 x float> @f(ptr %k, ptr %c, i32 %group, i32 %n, ptr %in) ATTRS {
entry:
  %first = shl i32 %group, 2
  %fi = insertelement <4 x i32> poison, i32 %first, i64 0
  %fs = shufflevector <4 x i32> %fi, <4 x i32> poison, <4 x i32> zeroinitializer
  %ids = )" +
         Ids + R"(
  %ni = insertelement <4 x i32> poison, i32 %n, i64 0
  %ns = shufflevector <4 x i32> %ni, <4 x i32> poison, <4 x i32> zeroinitializer
  %in.bounds = icmp )" +
         Pred + R"( <4 x i32> %ids, %ns
  %any = bitcast <4 x i1> %in.bounds to i4
  %none = icmp eq i4 %any, 0
  br i1 %none, label %skip, label %load
load:
  %v = call <4 x float> @llvm.masked.load.v4f32.p0(ptr %in, i32 4,
                                                   <4 x i1> %in.bounds,
                                                   <4 x float> poison)
  br label %skip
skip:
  %x = phi <4 x float> [ zeroinitializer, %entry ], [ %v, %load ]
  %r = select <4 x i1> %in.bounds, <4 x float> %x, <4 x float> zeroinitializer
  ret <4 x float> %r
}
)";
}

TEST(GroupBoundsChecksTest, TheGroupBelowTheBoundRunsWithoutTheMask) {
  for (const char *Pred : {"ult", "ule", "slt", "sle"}) {
    bool Versioned = false;
    const std::string F = afterPass(
        group(Pred, "or disjoint <4 x i32> %fs, <i32 0, i32 1, i32 2, i32 3>"),
        Versioned);
    EXPECT_TRUE(Versioned) << Pred;
    // The copy's test for any lane, masked load and select see a constant
    // all-true mask; the original keeps the comparison.
    EXPECT_EQ(occurrences(F, "<4 x i1> <i1 true, i1 true, i1 true, i1 true>"),
              3u)
        << F;
    EXPECT_EQ(occurrences(F, "icmp " + std::string(Pred) + " <4 x i32>"), 1u)
        << F;
    // The check: the largest lane's value (first + 3) against the bound, in
    // 64 bits, widened as the comparison's sign says.
    const bool Signed = Pred[0] == 's';
    EXPECT_NE(F.find(Signed ? "sext i32 %first to i64" : "zext i32 %first"),
              std::string::npos)
        << F;
    EXPECT_NE(F.find("add i64 %"), std::string::npos) << F;
    EXPECT_NE(F.find(", 3\n"), std::string::npos) << F;
    EXPECT_NE(F.find("br i1 %group.in.bounds"), std::string::npos) << F;
  }
  // The bound on the left: `n > ids`.
  bool Versioned = false;
  std::string Swapped =
      group("ult", "add <4 x i32> %fs, <i32 3, i32 2, i32 1, i32 0>");
  const size_t At = Swapped.find("icmp ult <4 x i32> %ids, %ns");
  ASSERT_NE(At, std::string::npos);
  Swapped.replace(At, 28, "icmp ugt <4 x i32> %ns, %ids");
  const std::string F = afterPass(Swapped, Versioned);
  EXPECT_TRUE(Versioned) << F;
}

TEST(GroupBoundsChecksTest, OtherFunctionsAndComparisonsAreLeftAlone) {
  const std::string Ids =
      "or disjoint <4 x i32> %fs, <i32 0, i32 1, i32 2, i32 3>";
  bool Versioned = true;
  // `id >= n`: the lanes the fast copy would assume fail, not a bounds
  // check that holds.
  afterPass(group("uge", Ids), Versioned);
  EXPECT_FALSE(Versioned);
  // Equality.
  afterPass(group("eq", Ids), Versioned);
  EXPECT_FALSE(Versioned);
  // Lanes that are not a sum of splats and constants.
  afterPass(group("ult", "mul <4 x i32> %fs, <i32 0, i32 1, i32 2, i32 3>"),
            Versioned);
  EXPECT_FALSE(Versioned);
  // Not a work-group function.
  std::string Plain = group("ult", Ids);
  Plain.replace(Plain.find("ATTRS"), 5, "");
  afterPass(Plain, Versioned);
  EXPECT_FALSE(Versioned);
  // A function with a loop: the copy would double it.
  std::string Loop = group("ult", Ids);
  const std::string Exit = "  br label %skip\nskip:";
  Loop.replace(Loop.find(Exit), Exit.size(),
               "  br i1 %none, label %load, label %skip\nskip:");
  afterPass(Loop, Versioned);
  EXPECT_FALSE(Versioned);
}

} // namespace
