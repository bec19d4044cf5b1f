//===- tests/finalizer/DeadGroupStoresTest.cpp - Stores no one reads ------===//
//
// finalizer/DeadGroupStores.h on IR written for each rule: in a work-group
// function, plain and masked stores to the group and private segments that
// nothing reads before the function returns go; stores that a later
// instruction of their block, a later block, a loop's next trip or a call
// may read stay, as do stores to other memory and every store of a
// function that is not a work-group function.
//
//===----------------------------------------------------------------------===//
#include "finalizer/DeadGroupStores.h"

#include "IrText.h"
#include "finalizer/Codegen.h"
#include "hsa/hsa_ext_openhsa.h"

#include <cstddef>
#include <gtest/gtest.h>

namespace {

using openhsa::test::occurrences;

using Ctx = hsa_ext_openhsa_dispatch_context_t;

/// Runs the pass on @f of the module Body declares (after the common
/// declarations) and returns @f's text afterwards. In Body, GROUP and
/// PRIVATE stand for the context's offsets of group_base and private_base,
/// and ATTRS for the work-group function attribute.
std::string afterPass(std::string Body, unsigned *Count = nullptr) {
  using openhsa::test::replaceAll;
  Body = replaceAll(Body, "GROUP", std::to_string(offsetof(Ctx, group_base)));
  Body =
      replaceAll(Body, "PRIVATE", std::to_string(offsetof(Ctx, private_base)));
  Body = replaceAll(Body, "ATTRS",
                    std::string("\"") +
                        openhsa::finalizer::WorkGroupFunctionAttr + "\"");
  const std::string Text =
      "declare void @llvm.masked.store.v4f32.p0(<4 x float>, ptr, i32, "
      "<4 x i1>)\n"
      "declare void @llvm.prefetch.p0(ptr, i32, i32, i32)\n"
      "declare void @opaque(ptr)\n"
      "declare void @ENDS() memory(inaccessiblemem: readwrite) nounwind "
      "willreturn\n" +
      Body;
  return openhsa::test::afterRunOnF(
      replaceAll(Text, "ENDS", openhsa::finalizer::WorkItemsEndMarker),
      openhsa::finalizer::removeDeadGroupStores, Count);
}

TEST(DeadGroupStoresTest, StoresNothingReadsBeforeTheGroupEndsGo) {
  // A tree step's pattern: the group's values stored whole, then the sums
  // of the lower half masked; the sum leaves through global memory. A
  // prefetch after the stores reads nothing a program can see, nor does a
  // load of the context (invariant).
  unsigned Count = 0;
  const std::string F = afterPass(R"(
define void @f(ptr %k, ptr %c, <4 x float> %a, <4 x float> %b, ptr %out,
               float %s) ATTRS {
  %gp = getelementptr i8, ptr %c, i64 GROUP
  %g = load ptr, ptr %gp
  store <4 x float> %a, ptr %g
  %g16 = getelementptr i8, ptr %g, i64 16
  call void @llvm.masked.store.v4f32.p0(<4 x float> %b, ptr %g16, i32 4,
                                        <4 x i1> <i1 true, i1 true, i1 false, i1 false>)
  %pp = getelementptr i8, ptr %c, i64 PRIVATE
  %p = load ptr, ptr %pp, !invariant.load !0
  store float %s, ptr %p
  call void @llvm.prefetch.p0(ptr %out, i32 0, i32 3, i32 1)
  store float %s, ptr %out
  ret void
}
!0 = !{}
)",
                                  &Count);
  EXPECT_EQ(Count, 3u) << F;
  EXPECT_EQ(occurrences(F, "store <4 x float>"), 0u) << F;
  EXPECT_EQ(occurrences(F, "call void @llvm.masked.store"), 0u) << F;
  // Only the store to global memory is left.
  EXPECT_EQ(occurrences(F, "store float %s, ptr %out"), 1u) << F;
  EXPECT_EQ(occurrences(F, "store "), 1u) << F;
}

TEST(DeadGroupStoresTest, StoresThatMayBeReadStay) {
  // Read later in the block: the store of %a stays; the one of %b after
  // the load goes.
  unsigned Count = 0;
  std::string F = afterPass(R"(
define float @f(ptr %k, ptr %c, <4 x float> %a, <4 x float> %b) ATTRS {
  %gp = getelementptr i8, ptr %c, i64 GROUP
  %g = load ptr, ptr %gp
  store <4 x float> %a, ptr %g
  %g4 = getelementptr i8, ptr %g, i64 4
  %v = load float, ptr %g4
  store <4 x float> %b, ptr %g
  ret float %v
}
)",
                            &Count);
  EXPECT_EQ(Count, 1u) << F;
  EXPECT_EQ(occurrences(F, "store <4 x float> %a"), 1u) << F;
  EXPECT_EQ(occurrences(F, "store <4 x float> %b"), 0u) << F;

  // Read in a later block, or by a call that may read anything.
  for (const char *Reader :
       {"  %v = load float, ptr %g\n", "  call void @opaque(ptr %k)\n"}) {
    F = afterPass(std::string(R"(
define void @f(ptr %k, ptr %c, <4 x float> %a, i1 %x) ATTRS {
  %gp = getelementptr i8, ptr %c, i64 GROUP
  %g = load ptr, ptr %gp
  store <4 x float> %a, ptr %g
  br i1 %x, label %then, label %end
then:
)") + Reader + R"(  br label %end
end:
  ret void
}
)",
                  &Count);
    EXPECT_EQ(Count, 0u) << F;
    EXPECT_EQ(occurrences(F, "store <4 x float> %a"), 1u) << F;
  }

  // Read on the loop's next trip, before the store in the same block.
  F = afterPass(R"(
define void @f(ptr %k, ptr %c, <4 x float> %a, ptr %out) ATTRS {
entry:
  %gp = getelementptr i8, ptr %c, i64 GROUP
  %g = load ptr, ptr %gp
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %n, %loop ]
  %v = load <4 x float>, ptr %g
  store <4 x float> %v, ptr %out
  store <4 x float> %a, ptr %g
  %n = add i32 %i, 1
  %more = icmp ult i32 %n, 4
  br i1 %more, label %loop, label %end
end:
  ret void
}
)",
                &Count);
  EXPECT_EQ(Count, 0u) << F;
  EXPECT_EQ(occurrences(F, "store <4 x float> %a, ptr %g"), 1u) << F;
}

// A wave's interleaved private data have an alias scope of their own,
// which the kernel's other accesses are outside of (VectorizerWiden.cpp):
// the next wave's load of global memory, and the loop's loads of the
// dispatch context (memory of the function's own arguments), do not keep
// the stores. A gather that may read the private data, or a store of the
// segment outside the scope, does.
TEST(DeadGroupStoresTest, ScopedPrivateDataStayOnlyWhereLoadsMayReachThem) {
  auto Wave = [](const char *Reader, const char *OtherStore) {
    return std::string(R"(
declare <4 x float> @llvm.masked.gather.v4f32.v4p0(<4 x ptr>, i32, <4 x i1>,
                                                  <4 x float>)
define void @f(ptr %k, ptr %c, <4 x float> %a, <4 x ptr> %ptrs) ATTRS {
entry:
  %in = load ptr, ptr %k, !invariant.load !0
  %k8 = getelementptr i8, ptr %k, i64 8
  %out = load ptr, ptr %k8, !invariant.load !0
  %pp = getelementptr i8, ptr %c, i64 PRIVATE
  %p = load ptr, ptr %pp, !invariant.load !0
  br label %wave
wave:
  %i = phi i32 [ 0, %entry ], [ %n, %wave ]
  %bp = getelementptr i8, ptr %c, i64 104
  %bound = load i32, ptr %bp
)") + Reader +
           OtherStore + R"(
  store <4 x float> %a, ptr %p, !alias.scope !3, !noalias !4
  %n = add i32 %i, 1
  %more = icmp ult i32 %n, %bound
  br i1 %more, label %wave, label %end
end:
  ret void
}
!0 = !{}
!1 = distinct !{!1, !"openhsa.registers"}
!2 = distinct !{!2, !1, !"wave private data"}
!5 = distinct !{!5, !1, !"wave file"}
!3 = !{!2}
!4 = !{!5}
!6 = !{!5, !2}
)";
  };
  const char *GlobalLoad = "  %v = load <4 x float>, ptr %in, !noalias !6\n"
                           "  store <4 x float> %v, ptr %out, !noalias !6\n";
  unsigned Count = 0;
  std::string F = afterPass(Wave(GlobalLoad, ""), &Count);
  EXPECT_EQ(Count, 1u) << F;
  EXPECT_EQ(occurrences(F, "store <4 x float> %a"), 0u) << F;

  // A gather that may read the private data keeps the store.
  F = afterPass(Wave("  %v = call <4 x float> @llvm.masked.gather.v4f32.v4p0("
                     "<4 x ptr> %ptrs, i32 4, <4 x i1> <i1 true, i1 true, "
                     "i1 true, i1 true>, <4 x float> poison), !noalias !4\n"
                     "  store <4 x float> %v, ptr %out, !noalias !6\n",
                     ""),
                &Count);
  EXPECT_EQ(Count, 0u) << F;
  EXPECT_EQ(occurrences(F, "store <4 x float> %a"), 1u) << F;

  // So does a store of the segment outside the scope, which the global
  // load may read: neither store goes.
  F = afterPass(Wave(GlobalLoad, "  %p16 = getelementptr i8, ptr %p, i64 16\n"
                                 "  store <4 x float> %a, ptr %p16\n"),
                &Count);
  EXPECT_EQ(Count, 0u) << F;
  EXPECT_EQ(occurrences(F, "store <4 x float> %a"), 2u) << F;
}

TEST(DeadGroupStoresTest, OtherMemoryAndOtherFunctionsAreLeftAlone) {
  // A pointer loaded from another field of the context is not a segment;
  // nor is memory the kernel's arguments point to.
  unsigned Count = 0;
  std::string F = afterPass(R"(
define void @f(ptr %k, ptr %c, <4 x float> %a) ATTRS {
  %qp = getelementptr i8, ptr %c, i64 8
  %q = load ptr, ptr %qp
  store <4 x float> %a, ptr %q
  %o = load ptr, ptr %k
  store <4 x float> %a, ptr %o
  ret void
}
)",
                            &Count);
  EXPECT_EQ(Count, 0u) << F;
  EXPECT_EQ(occurrences(F, "store <4 x float>"), 2u) << F;

  // The same dead group store outside a work-group function: a function
  // that the work-group function calls may run in a loop of its own.
  F = afterPass(R"(
define void @f(ptr %k, ptr %c, <4 x float> %a) {
  %gp = getelementptr i8, ptr %c, i64 GROUP
  %g = load ptr, ptr %gp
  store <4 x float> %a, ptr %g
  ret void
}
)",
                &Count);
  EXPECT_EQ(Count, 0u) << F;
  EXPECT_EQ(occurrences(F, "store <4 x float>"), 1u) << F;
}

// Private data end with their work-items (WorkItemsEndMarker): a store in
// a wave loop that only the partial wave's code after the loop may read
// goes where each wave's body ends with the marker, and stays without it.
// A read before the marker keeps it; the group segment, which lives until
// the function returns, is not ended by the marker.
TEST(DeadGroupStoresTest, PrivateDataEndWithTheirWorkItems) {
  auto Row = [](const char *InWave) {
    return std::string(R"(
define void @f(ptr %k, ptr %c, <4 x float> %a, ptr %out) ATTRS {
entry:
  %pp = getelementptr i8, ptr %c, i64 SEGMENT
  %p = load ptr, ptr %pp, !invariant.load !0
  br label %wave
wave:
  %i = phi i32 [ 0, %entry ], [ %n, %wave ]
  %at = getelementptr <4 x float>, ptr %p, i32 %i
  store <4 x float> %a, ptr %at
)") + InWave +
           R"(
  %n = add i32 %i, 1
  %more = icmp ult i32 %n, 4
  br i1 %more, label %wave, label %partial
partial:
  %last = getelementptr <4 x float>, ptr %p, i32 4
  %v = load <4 x float>, ptr %last
  store <4 x float> %v, ptr %out
  call void @ENDS()
  ret void
}
!0 = !{}
)";
  };
  const auto WithSegment = [](std::string Text, const char *Segment) {
    return openhsa::test::replaceAll(Text, "SEGMENT", Segment);
  };
  unsigned Count = 0;
  std::string F =
      afterPass(WithSegment(Row("  call void @ENDS()"), "PRIVATE"), &Count);
  EXPECT_EQ(Count, 1u) << F;
  EXPECT_EQ(occurrences(F, "store <4 x float> %a"), 0u) << F;

  // Without the marker, the partial wave's load may read it.
  F = afterPass(WithSegment(Row(""), "PRIVATE"), &Count);
  EXPECT_EQ(Count, 0u) << F;
  EXPECT_EQ(occurrences(F, "store <4 x float> %a"), 1u) << F;

  // Read in the wave before it ends.
  F = afterPass(WithSegment(Row("  %w = load <4 x float>, ptr %at\n"
                                "  store <4 x float> %w, ptr %out\n"
                                "  call void @ENDS()"),
                            "PRIVATE"),
                &Count);
  EXPECT_EQ(Count, 0u) << F;
  EXPECT_EQ(occurrences(F, "store <4 x float> %a"), 1u) << F;

  // Group memory outlives the work-items.
  F = afterPass(WithSegment(Row("  call void @ENDS()"), "GROUP"), &Count);
  EXPECT_EQ(Count, 0u) << F;
  EXPECT_EQ(occurrences(F, "store <4 x float> %a"), 1u) << F;
}

} // namespace
