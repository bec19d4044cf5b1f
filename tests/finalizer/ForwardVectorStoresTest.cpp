//===- tests/finalizer/ForwardVectorStoresTest.cpp - Lanes to loads -------===//
//
// finalizer/ForwardVectorStores.h on IR written for each rule: a load takes
// its lanes from the newest store that wrote each of them whole, through
// masked stores' off lanes to older stores, and stays a load where a lane
// was not stored, where something in between may have written it, or where
// a newer store wrote part of it.
//
//===----------------------------------------------------------------------===//
#include "finalizer/ForwardVectorStores.h"

#include "IrText.h"
#include "finalizer/Codegen.h"

#include <gtest/gtest.h>

namespace {

/// Runs the pass on @f of the module Body declares (after the common
/// declarations) and returns @f's text afterwards.
std::string forwarded(const std::string &Body, unsigned *Count = nullptr) {
  const std::string Text =
      "declare <4 x float> @llvm.masked.load.v4f32.p0(ptr, i32, <4 x i1>, "
      "<4 x float>)\n"
      "declare void @llvm.masked.store.v4f32.p0(<4 x float>, ptr, i32, "
      "<4 x i1>)\n"
      "declare void @opaque(ptr)\n" +
      Body;
  return openhsa::test::afterRunOnF(
      Text, openhsa::finalizer::forwardVectorStores, Count);
}

TEST(ForwardVectorStoresTest, LanesComeFromTheNewestStoreThatWroteThem) {
  // The load reads elements 1 to 4 of %p: element 1 as the masked store
  // of %b wrote it, 2 and 3 as %a's store did (the masked store left them
  // alone), 4 as %c's, stored 16 bytes on.
  unsigned Count = 0;
  const std::string F = forwarded(R"(
define <4 x float> @f(ptr noalias %p, <4 x float> %a, <4 x float> %b,
                      <4 x float> %c) {
  store <4 x float> %a, ptr %p
  call void @llvm.masked.store.v4f32.p0(<4 x float> %b, ptr %p, i32 4,
                                        <4 x i1> <i1 true, i1 true, i1 false, i1 false>)
  %q = getelementptr i8, ptr %p, i64 16
  store <4 x float> %c, ptr %q
  %r = getelementptr i8, ptr %p, i64 4
  %v = load <4 x float>, ptr %r
  ret <4 x float> %v
}
)",
                                  &Count);
  EXPECT_EQ(Count, 1u) << F;
  EXPECT_EQ(F.find("= load"), std::string::npos) << F;
  EXPECT_NE(F.find("shufflevector <4 x float> %b"), std::string::npos) << F;
  EXPECT_NE(F.find("shufflevector <4 x float> %a"), std::string::npos) << F;
  EXPECT_NE(F.find("shufflevector <4 x float> %c"), std::string::npos) << F;
}

TEST(ForwardVectorStoresTest, AMaskedLoadKeepsItsPassthruLanes) {
  unsigned Count = 0;
  const std::string F = forwarded(R"(
define <4 x float> @f(ptr noalias %p, <4 x float> %a, <4 x float> %old) {
  store <4 x float> %a, ptr %p
  %r = getelementptr i8, ptr %p, i64 8
  %v = call <4 x float> @llvm.masked.load.v4f32.p0(ptr %r, i32 4,
          <4 x i1> <i1 true, i1 true, i1 false, i1 false>, <4 x float> %old)
  ret <4 x float> %v
}
)",
                                  &Count);
  EXPECT_EQ(Count, 1u) << F;
  EXPECT_EQ(F.find("masked.load"), std::string::npos) << F;
  EXPECT_NE(F.find("<4 x float> %old"), std::string::npos) << F;
}

TEST(ForwardVectorStoresTest, ScalarLoadsTakeOneLane) {
  unsigned Count = 0;
  const std::string F = forwarded(R"(
define float @f(ptr noalias %p, <4 x float> %a) {
  store <4 x float> %a, ptr %p
  %r = getelementptr i8, ptr %p, i64 12
  %v = load float, ptr %r
  ret float %v
}
)",
                                  &Count);
  EXPECT_EQ(Count, 1u) << F;
  EXPECT_NE(F.find("extractelement <4 x float> %a, i64 3"), std::string::npos)
      << F;
}

TEST(ForwardVectorStoresTest, GathersAtConstantOffsetsTakeStoredLanes) {
  // Lanes 1-3 read elements 0, 2 and 1 of %a (lane 0 is off: its offset
  // is poison); a gather by 32-bit indices, lanes 0 and 1 from %a's 3 and
  // 0 (scale 4), the rest off.
  unsigned Count = 0;
  const std::string F = forwarded(R"(
declare <4 x float> @llvm.masked.gather.v4f32.v4p0(<4 x ptr>, i32, <4 x i1>,
                                                    <4 x float>)
declare <16 x i32> @llvm.x86.avx512.mask.gather.dpi.512(<16 x i32>, ptr,
                                                        <16 x i32>, <16 x i1>,
                                                        i32)
define <4 x float> @f(ptr noalias %p, <4 x float> %a, <16 x i32> %b,
                      <16 x i32> %old, ptr %out) {
  store <4 x float> %a, ptr %p
  %ptrs = getelementptr i8, ptr %p, <4 x i64> <i64 poison, i64 0, i64 8, i64 4>
  %v = call <4 x float> @llvm.masked.gather.v4f32.v4p0(<4 x ptr> %ptrs, i32 4,
          <4 x i1> <i1 false, i1 true, i1 true, i1 true>, <4 x float> zeroinitializer)
  %q = getelementptr i8, ptr %p, i64 64
  store <16 x i32> %b, ptr %q
  %w = call <16 x i32> @llvm.x86.avx512.mask.gather.dpi.512(<16 x i32> %old,
          ptr %q, <16 x i32> <i32 3, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0,
          i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>,
          <16 x i1> <i1 true, i1 true, i1 false, i1 false, i1 false, i1 false,
          i1 false, i1 false, i1 false, i1 false, i1 false, i1 false,
          i1 false, i1 false, i1 false, i1 false>, i32 4)
  store <16 x i32> %w, ptr %out
  ret <4 x float> %v
}
)",
                                  &Count);
  EXPECT_EQ(Count, 2u) << F;
  EXPECT_EQ(F.find("gather"), std::string::npos) << F;
}

TEST(ForwardVectorStoresTest, LoadsStayWhereALaneIsUnknown) {
  const char *Cases[] = {
      // A lane nothing stored.
      R"(
define <4 x float> @f(ptr noalias %p, <4 x float> %a) {
  store <4 x float> %a, ptr %p
  %r = getelementptr i8, ptr %p, i64 4
  %v = load <4 x float>, ptr %r
  ret <4 x float> %v
}
)",
      // A lane the masked store skipped, and nothing older.
      R"(
define <4 x float> @f(ptr noalias %p, <4 x float> %a) {
  call void @llvm.masked.store.v4f32.p0(<4 x float> %a, ptr %p, i32 4,
                                        <4 x i1> <i1 true, i1 false, i1 true, i1 true>)
  %v = load <4 x float>, ptr %p
  ret <4 x float> %v
}
)",
      // A call that may write the memory in between.
      R"(
define <4 x float> @f(ptr noalias %p, <4 x float> %a) {
  store <4 x float> %a, ptr %p
  call void @opaque(ptr %p)
  %v = load <4 x float>, ptr %p
  ret <4 x float> %v
}
)",
      // A store through a pointer that may point there.
      R"(
define <4 x float> @f(ptr %p, ptr %q, <4 x float> %a, float %x) {
  store <4 x float> %a, ptr %p
  store float %x, ptr %q
  %v = load <4 x float>, ptr %p
  ret <4 x float> %v
}
)",
      // A newer store of another type over part of a lane.
      R"(
define <4 x float> @f(ptr noalias %p, <4 x float> %a, i16 %h) {
  store <4 x float> %a, ptr %p
  %r = getelementptr i8, ptr %p, i64 6
  store i16 %h, ptr %r
  %v = load <4 x float>, ptr %p
  ret <4 x float> %v
}
)",
      // A store in another block: only stores of the same block count.
      R"(
define <4 x float> @f(ptr noalias %p, <4 x float> %a) {
  store <4 x float> %a, ptr %p
  br label %next
next:
  %v = load <4 x float>, ptr %p
  ret <4 x float> %v
}
)",
      // A gather whose active lane's offset is not a constant.
      R"(
declare <4 x float> @llvm.masked.gather.v4f32.v4p0(<4 x ptr>, i32, <4 x i1>,
                                                    <4 x float>)
define <4 x float> @f(ptr noalias %p, <4 x float> %a, <4 x i64> %o) {
  store <4 x float> %a, ptr %p
  %ptrs = getelementptr i8, ptr %p, <4 x i64> %o
  %v = call <4 x float> @llvm.masked.gather.v4f32.v4p0(<4 x ptr> %ptrs, i32 4,
          <4 x i1> <i1 true, i1 true, i1 true, i1 true>, <4 x float> poison)
  ret <4 x float> %v
}
)",
      // Volatile.
      R"(
define <4 x float> @f(ptr noalias %p, <4 x float> %a) {
  store <4 x float> %a, ptr %p
  %v = load volatile <4 x float>, ptr %p
  ret <4 x float> %v
}
)",
  };
  for (const char *Case : Cases) {
    unsigned Count = 1;
    const std::string F = forwarded(Case, &Count);
    EXPECT_EQ(Count, 0u) << F;
    EXPECT_NE(F.find("%v = "), std::string::npos) << F;
  }
}

TEST(ForwardVectorStoresTest, StoresElsewhereDoNotStopIt) {
  // A store through another pointer that cannot point there (an alloca),
  // and an unmasked store of the same type a lane later, which the load
  // reads three lanes of.
  unsigned Count = 0;
  const std::string F = forwarded(R"(
define <4 x float> @f(ptr noalias %p, <4 x float> %a, <4 x float> %b,
                      float %x) {
  %local = alloca float
  store <4 x float> %a, ptr %p
  %r = getelementptr i8, ptr %p, i64 4
  store <4 x float> %b, ptr %r
  store float %x, ptr %local
  %v = load <4 x float>, ptr %p
  ret <4 x float> %v
}
)",
                                  &Count);
  EXPECT_EQ(Count, 1u) << F;
  EXPECT_EQ(F.find("%v = load"), std::string::npos) << F;
}

} // namespace
