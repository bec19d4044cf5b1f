//===- tests/finalizer/SplitWideVectorsTest.cpp - Vectors by register ----===//
//
// finalizer/SplitWideVectors.h on IR written for it: values of vectors of
// four registers or more become register-wide parts, and so do the
// operations on them, loops, memory and shuffles included; what the pass
// does not know (a reduction) gets the value joined; the lanes are those of
// the original (straight-line functions of constants are folded lane by
// lane before and after). LockstepGroupsTest checks what lockstep groups
// compute and that their optimized IR is by register.
//
//===----------------------------------------------------------------------===//
#include "finalizer/SplitWideVectors.h"
#include "IrText.h"

#include "llvm/Analysis/ConstantFolding.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace {

using openhsa::test::occurrences;
using openhsa::test::parseIr;
using openhsa::test::verifiedText;

constexpr unsigned RegisterBits = 512; // AVX-512: 16 lanes of 32 bits.

/// The lane counts of F's vector-typed instructions other than shuffles
/// (which take parts apart and join them).
std::set<unsigned> vectorLanes(const llvm::Function &F) {
  std::set<unsigned> Lanes;
  for (const llvm::Instruction &I : llvm::instructions(F))
    if (auto *V = llvm::dyn_cast<llvm::FixedVectorType>(I.getType());
        V && !llvm::isa<llvm::ShuffleVectorInst>(I))
      Lanes.insert(V->getNumElements());
  return Lanes;
}

/// What @f returns for constant arguments, its instructions folded in
/// order (straight-line code of constants).
llvm::Constant *foldedWith(llvm::Function &F,
                           llvm::ArrayRef<llvm::Constant *> Args) {
  for (unsigned A = 0; A < Args.size(); ++A)
    F.getArg(A)->replaceAllUsesWith(Args[A]);
  const llvm::DataLayout &DL = F.getParent()->getDataLayout();
  for (llvm::Instruction &I :
       llvm::make_early_inc_range(llvm::instructions(F))) {
    if (auto *Ret = llvm::dyn_cast<llvm::ReturnInst>(&I))
      return llvm::dyn_cast<llvm::Constant>(Ret->getReturnValue());
    llvm::Constant *Folded = llvm::ConstantFoldInstruction(&I, DL);
    if (!Folded) {
      ADD_FAILURE() << "not folded: " << verifiedText(F);
      return nullptr;
    }
    I.replaceAllUsesWith(Folded);
    I.eraseFromParent();
  }
  return nullptr;
}

/// N distinct lanes from First (some negative), as floats or i32.
llvm::Constant *lanes(llvm::Type *T, unsigned N, int First) {
  std::vector<llvm::Constant *> L;
  for (unsigned I = 0; I < N; ++I) {
    const int V = (First + int(I) * 7) % 97 - 40;
    L.push_back(T->isFloatingPointTy() ? llvm::ConstantFP::get(T, double(V))
                                       : llvm::ConstantInt::get(T, V, true));
  }
  return llvm::ConstantVector::get(L);
}

// Arithmetic, comparisons and selects, casts, intrinsics, lane inserts and
// extracts and general shuffles (a shift across registers, the scan's),
// checked lane by lane against the original.
TEST(SplitWideVectorsTest, StraightLineCodeKeepsItsLanes) {
  const char *Text = R"(
define <64 x i32> @f(<64 x float> %a, <64 x float> %b, <64 x i32> %c) {
  %s = fadd <64 x float> %a, %b
  %m = call <64 x float> @llvm.fma.v64f32(<64 x float> %s, <64 x float> %b, <64 x float> %a)
  %n = fneg <64 x float> %m
  %lt = fcmp olt <64 x float> %n, %a
  %sel = select <64 x i1> %lt, <64 x float> %n, <64 x float> %b
  %i = fptosi <64 x float> %sel to <64 x i32>
  %sh = shufflevector <64 x i32> %i, <64 x i32> zeroinitializer, <64 x i32> <i32 64, i32 64, i32 64, i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31, i32 32, i32 33, i32 34, i32 35, i32 36, i32 37, i32 38, i32 39, i32 40, i32 41, i32 42, i32 43, i32 44, i32 45, i32 46, i32 47, i32 48, i32 49, i32 50, i32 51, i32 52, i32 53, i32 54, i32 55, i32 56, i32 57, i32 58, i32 59, i32 60>
  %add = add nsw <64 x i32> %sh, %c
  %max = call <64 x i32> @llvm.smax.v64i32(<64 x i32> %add, <64 x i32> %c)
  %abs = call <64 x i32> @llvm.abs.v64i32(<64 x i32> %max, i1 false)
  %e = extractelement <64 x i32> %abs, i32 37
  %ins = insertelement <64 x i32> %abs, i32 %e, i32 50
  %rev = shufflevector <64 x i32> %ins, <64 x i32> poison, <64 x i32> <i32 63, i32 62, i32 61, i32 60, i32 59, i32 58, i32 57, i32 56, i32 55, i32 54, i32 53, i32 52, i32 51, i32 50, i32 49, i32 48, i32 47, i32 46, i32 45, i32 44, i32 43, i32 42, i32 41, i32 40, i32 39, i32 38, i32 37, i32 36, i32 35, i32 34, i32 33, i32 32, i32 31, i32 30, i32 29, i32 28, i32 27, i32 26, i32 25, i32 24, i32 23, i32 22, i32 21, i32 20, i32 19, i32 18, i32 17, i32 16, i32 15, i32 14, i32 13, i32 12, i32 11, i32 10, i32 9, i32 8, i32 7, i32 6, i32 5, i32 4, i32 3, i32 2, i32 1, i32 0>
  ret <64 x i32> %rev
}
declare <64 x float> @llvm.fma.v64f32(<64 x float>, <64 x float>, <64 x float>)
declare <64 x i32> @llvm.smax.v64i32(<64 x i32>, <64 x i32>)
declare <64 x i32> @llvm.abs.v64i32(<64 x i32>, i1)
)";
  llvm::LLVMContext C;
  auto M = parseIr(Text, C);
  ASSERT_TRUE(M);
  llvm::Function *F = M->getFunction("f");
  llvm::ValueToValueMapTy Map;
  llvm::Function *Original = llvm::CloneFunction(F, Map);
  EXPECT_EQ(openhsa::finalizer::splitWideVectors(*F, RegisterBits), 13u);
  const std::string After = verifiedText(*F);
  // Each operation per register: only the joined result is wider.
  EXPECT_EQ(vectorLanes(*F), std::set<unsigned>{16}) << After;
  EXPECT_EQ(occurrences(After, "call <16 x float> @llvm.fma.v16f32"), 4u)
      << After;
  llvm::Type *Float = llvm::Type::getFloatTy(C),
             *I32 = llvm::Type::getInt32Ty(C);
  llvm::Constant *Args[] = {lanes(Float, 64, 3), lanes(Float, 64, 11),
                            lanes(I32, 64, 5)};
  llvm::Constant *Want = foldedWith(*Original, Args);
  llvm::Constant *Got = foldedWith(*F, Args);
  ASSERT_NE(Want, nullptr);
  ASSERT_NE(Got, nullptr);
  for (unsigned J = 0; J < 64; ++J)
    EXPECT_EQ(Got->getAggregateElement(J), Want->getAggregateElement(J))
        << "lane " << J;
}

// A loop's phi, plain and masked loads and stores, and trees of shuffles
// that join rows into the group's vector and take it apart: one phi,
// access and operation per register, the joins and extracts no code; a
// reduction, which the pass does not split, reads the value joined.
TEST(SplitWideVectorsTest, LoopsMemoryAndRowTreesGoByRegister) {
  const char *Text = R"(
define float @f(ptr %p, ptr %q, <64 x i1> %mask, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi <64 x float> [ zeroinitializer, %entry ], [ %sum, %loop ]
  %r0 = load <16 x float>, ptr %p, align 4
  %r1p = getelementptr inbounds i8, ptr %p, i64 256
  %r1 = load <16 x float>, ptr %r1p, align 4
  %j0 = shufflevector <16 x float> %r0, <16 x float> %r1, <32 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31>
  %j = shufflevector <32 x float> %j0, <32 x float> %j0, <64 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7, i32 8, i32 9, i32 10, i32 11, i32 12, i32 13, i32 14, i32 15, i32 16, i32 17, i32 18, i32 19, i32 20, i32 21, i32 22, i32 23, i32 24, i32 25, i32 26, i32 27, i32 28, i32 29, i32 30, i32 31, i32 32, i32 33, i32 34, i32 35, i32 36, i32 37, i32 38, i32 39, i32 40, i32 41, i32 42, i32 43, i32 44, i32 45, i32 46, i32 47, i32 48, i32 49, i32 50, i32 51, i32 52, i32 53, i32 54, i32 55, i32 56, i32 57, i32 58, i32 59, i32 60, i32 61, i32 62, i32 63>
  %w = load <64 x float>, ptr %q, align 64, !noalias !0
  %m = call <64 x float> @llvm.masked.load.v64f32.p0(ptr %q, i32 4, <64 x i1> %mask, <64 x float> %w)
  %prod = fmul <64 x float> %j, %m
  %sum = fadd <64 x float> %acc, %prod
  store <64 x float> %sum, ptr %q, align 64, !noalias !0
  call void @llvm.masked.store.v64f32.p0(<64 x float> %prod, ptr %p, i32 4, <64 x i1> %mask)
  %row = shufflevector <64 x float> %sum, <64 x float> poison, <16 x i32> <i32 32, i32 33, i32 34, i32 35, i32 36, i32 37, i32 38, i32 39, i32 40, i32 41, i32 42, i32 43, i32 44, i32 45, i32 46, i32 47>
  store <16 x float> %row, ptr %r1p, align 4
  %i.next = add i32 %i, 1
  %more = icmp ult i32 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  %total = call float @llvm.vector.reduce.fadd.v64f32(float 0.0, <64 x float> %sum)
  ret float %total
}
declare <64 x float> @llvm.masked.load.v64f32.p0(ptr, i32, <64 x i1>, <64 x float>)
declare void @llvm.masked.store.v64f32.p0(<64 x float>, ptr, i32, <64 x i1>)
declare float @llvm.vector.reduce.fadd.v64f32(float, <64 x float>)
!0 = !{!1}
!1 = distinct !{!1, !2}
!2 = distinct !{!2}
)";
  llvm::LLVMContext C;
  auto M = parseIr(Text, C);
  ASSERT_TRUE(M);
  llvm::Function *F = M->getFunction("f");
  EXPECT_GT(openhsa::finalizer::splitWideVectors(*F, RegisterBits), 0u);
  const std::string After = verifiedText(*F);
  EXPECT_EQ(vectorLanes(*F), std::set<unsigned>{16}) << After;
  EXPECT_EQ(occurrences(After, "phi <16 x float>"), 4u) << After;
  EXPECT_EQ(occurrences(After, "phi <64 x"), 0u) << After;
  // The loaded rows are the joined vector's first parts, twice over: no
  // shuffle of them is left.
  EXPECT_EQ(occurrences(After, "shufflevector <16 x float> %r0"), 0u) << After;
  // Parts of the plain load, the masked load and the store at their
  // offsets, the plain ones with their alias scopes.
  for (const char *Offset : {"i64 64", "i64 128", "i64 192"})
    EXPECT_EQ(
        occurrences(After, std::string("getelementptr inbounds i8, ptr %q, ") +
                               Offset),
        3u)
        << Offset << "\n"
        << After;
  EXPECT_EQ(occurrences(After, "load <16 x float>, ptr"), 2u + 4u) << After;
  EXPECT_EQ(occurrences(After, "align 64, !noalias !0"), 8u) << After;
  EXPECT_EQ(occurrences(After, "@llvm.masked.load.v16f32.p0"), 4u) << After;
  EXPECT_EQ(occurrences(After, "@llvm.masked.store.v16f32.p0"), 4u) << After;
  // The row stored is the sum's third part itself.
  EXPECT_NE(After.find("store <16 x float> %sum.part"), std::string::npos)
      << After;
  // The reduction reads the sum joined.
  EXPECT_NE(After.find("@llvm.vector.reduce.fadd.v64f32(float 0.000000e+00, "
                       "<64 x float> %"),
            std::string::npos)
      << After;
}

// Vectors of fewer than four registers, and masks' memory (bits), stay.
TEST(SplitWideVectorsTest, NarrowVectorsAndMaskMemoryStay) {
  const char *Text = R"(
define <32 x float> @f(<32 x float> %a, ptr %p, ptr %q) {
  %s = fadd <32 x float> %a, %a
  %m = load <64 x i1>, ptr %p
  store <64 x i1> %m, ptr %q
  ret <32 x float> %s
}
)";
  llvm::LLVMContext C;
  auto M = parseIr(Text, C);
  ASSERT_TRUE(M);
  EXPECT_EQ(
      openhsa::finalizer::splitWideVectors(*M->getFunction("f"), RegisterBits),
      0u);
}

} // namespace
