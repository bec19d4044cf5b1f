//===- tests/finalizer/SplitWideShufflesTest.cpp - Wide shuffles ---------===//
//
// finalizer/SplitWideShuffles.h on shuffles built for it: what a general
// shuffle wider than two registers becomes is made only of register-wide
// shuffles, subvector extracts and concatenations, and computes the same
// lanes (the operands are then replaced by constants and the function
// folded, lane by lane, against LLVM's folding of the original); splats,
// concatenations and shuffles of two registers or fewer stay.
//
//===----------------------------------------------------------------------===//
#include "finalizer/SplitWideShuffles.h"

#include "llvm/Analysis/ConstantFolding.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace {

constexpr unsigned RegisterBits = 512; // AVX-512: 16 lanes of 32 bits.

/// A module with `@f(<N x T> %a, <N x T> %b)` returning
/// shufflevector %a, %b, Mask.
struct ShuffleFunction {
  llvm::LLVMContext C;
  std::unique_ptr<llvm::Module> M;
  llvm::Function *F = nullptr;

  ShuffleFunction(llvm::Type *(*Element)(llvm::LLVMContext &), unsigned N,
                  const std::vector<int> &Mask) {
    M = std::make_unique<llvm::Module>("m", C);
    auto *VecTy = llvm::FixedVectorType::get(Element(C), N);
    auto *RetTy = llvm::FixedVectorType::get(Element(C), Mask.size());
    F = llvm::Function::Create(
        llvm::FunctionType::get(RetTy, {VecTy, VecTy}, false),
        llvm::GlobalValue::ExternalLinkage, "f", *M);
    llvm::IRBuilder<> B(llvm::BasicBlock::Create(C, "entry", F));
    B.CreateRet(B.Insert(
        new llvm::ShuffleVectorInst(F->getArg(0), F->getArg(1), Mask), "s"));
  }

  std::string text() const {
    std::string S;
    llvm::raw_string_ostream OS(S);
    EXPECT_FALSE(llvm::verifyFunction(*F, &OS)) << OS.str();
    F->print(OS);
    return S;
  }

  /// What @f returns for constant operands, its instructions folded in
  /// order (each one's operands are constants by then).
  llvm::Constant *foldedWith(llvm::Constant *A, llvm::Constant *Bv) {
    F->getArg(0)->replaceAllUsesWith(A);
    F->getArg(1)->replaceAllUsesWith(Bv);
    const llvm::DataLayout &DL = M->getDataLayout();
    for (llvm::Instruction &I :
         llvm::make_early_inc_range(llvm::instructions(*F))) {
      if (auto *Ret = llvm::dyn_cast<llvm::ReturnInst>(&I))
        return llvm::dyn_cast<llvm::Constant>(Ret->getReturnValue());
      llvm::Constant *Folded = llvm::ConstantFoldInstruction(&I, DL);
      if (!Folded)
        return nullptr;
      I.replaceAllUsesWith(Folded);
      I.eraseFromParent();
    }
    return nullptr;
  }
};

llvm::Type *i32(llvm::LLVMContext &C) { return llvm::Type::getInt32Ty(C); }
llvm::Type *f32(llvm::LLVMContext &C) { return llvm::Type::getFloatTy(C); }
llvm::Type *i8(llvm::LLVMContext &C) { return llvm::Type::getInt8Ty(C); }

/// N distinct lanes from First, as T.
llvm::Constant *lanes(llvm::Type *T, unsigned N, unsigned First) {
  std::vector<llvm::Constant *> L;
  for (unsigned I = 0; I < N; ++I)
    L.push_back(T->isFloatingPointTy()
                    ? llvm::ConstantFP::get(T, double(First + I))
                    : llvm::ConstantInt::get(T, (First + I) % 251));
  return llvm::ConstantVector::get(L);
}

std::string text(const llvm::Instruction &I) {
  std::string T;
  llvm::raw_string_ostream OS(T);
  I.print(OS);
  return T;
}

/// Whether every shuffle left in F reads and writes at most Lanes lanes,
/// or is a subvector extract or a concatenation.
void expectRegisterWide(const ShuffleFunction &S, unsigned Lanes) {
  for (const llvm::Instruction &I : llvm::instructions(*S.F))
    if (const auto *Sh = llvm::dyn_cast<llvm::ShuffleVectorInst>(&I)) {
      const unsigned In =
          llvm::cast<llvm::FixedVectorType>(Sh->getOperand(0)->getType())
              ->getNumElements();
      const unsigned Out = Sh->getShuffleMask().size();
      int Index = 0;
      // A concatenation (isConcat() says no where a half is poison).
      bool Concat = Out == 2 * In;
      for (unsigned J = 0; Concat && J < Out; ++J)
        Concat = Sh->getMaskValue(J) == int(J);
      EXPECT_TRUE((In <= Lanes && Out <= Lanes) || Concat ||
                  (Out == Lanes && Sh->isExtractSubvectorMask(Index)))
          << text(*Sh);
    }
}

/// Splits @f's shuffle and checks its form and its lanes against LLVM's
/// folding of the original, for operands of distinct lanes.
void expectSplitSame(llvm::Type *(*Element)(llvm::LLVMContext &), unsigned N,
                     const std::vector<int> &Mask, unsigned Lanes) {
  ShuffleFunction Split(Element, N, Mask);
  EXPECT_EQ(openhsa::finalizer::splitWideShuffles(*Split.F, RegisterBits), 1u)
      << Split.text();
  expectRegisterWide(Split, Lanes);
  llvm::Type *T = Element(Split.C);
  llvm::Constant *A = lanes(T, N, 1), *B = lanes(T, N, 1 + N);
  llvm::Constant *Expected =
      llvm::ConstantFoldShuffleVectorInstruction(A, B, Mask);
  llvm::Constant *Got = Split.foldedWith(A, B);
  ASSERT_NE(Got, nullptr);
  // Lane by lane (constants are unique); where the mask has no lane
  // (poison, -1) the result is poison, which LLVM's folding of a constant
  // shuffle still writes as undef.
  for (unsigned J = 0; J < Mask.size(); ++J) {
    llvm::Constant *Lane = Got->getAggregateElement(J);
    if (Mask[J] == llvm::PoisonMaskElem)
      EXPECT_TRUE(llvm::isa<llvm::UndefValue>(Lane)) << "lane " << J;
    else
      EXPECT_EQ(Lane, Expected->getAggregateElement(J)) << "lane " << J;
  }
}

/// The scan's exchange: lanes below Shift get zero (the second operand),
/// the others the lane Shift below them.
std::vector<int> shiftMask(unsigned N, unsigned Shift) {
  std::vector<int> Mask(N);
  for (unsigned J = 0; J < N; ++J)
    Mask[J] = J < Shift ? int(N + J) : int(J - Shift);
  return Mask;
}

TEST(SplitWideShufflesTest, ShiftsAcrossRegistersKeepTheirLanes) {
  for (unsigned Shift : {1u, 4u, 16u, 17u, 128u})
    expectSplitSame(i32, 256, shiftMask(256, Shift), 16);
}

TEST(SplitWideShufflesTest, FloatAndByteVectorsSplitAtTheirRegisterWidth) {
  expectSplitSame(f32, 256, shiftMask(256, 3), 16);
  expectSplitSame(i8, 256, shiftMask(256, 70), 64);
}

TEST(SplitWideShufflesTest, RegistersReadingManyPartsOrPoisonKeepTheirLanes) {
  std::vector<int> Reverse(256), Scattered(256), Sparse(256);
  uint32_t Seed = 12345;
  for (unsigned J = 0; J < 256; ++J) {
    Reverse[J] = int(255 - J);
    Scattered[J] = int(J * 37 % 512); // Each register reads many parts.
    Seed = Seed * 1103515245u + 12345u;
    Sparse[J] = J % 7 == 3 ? llvm::PoisonMaskElem : int((Seed >> 8) % 512);
  }
  expectSplitSame(i32, 256, Reverse, 16);
  expectSplitSame(i32, 256, Scattered, 16);
  expectSplitSame(i32, 256, Sparse, 16);
  // A register of the result that is all poison.
  std::vector<int> HalfPoison = shiftMask(256, 5);
  for (unsigned J = 32; J < 48; ++J)
    HalfPoison[J] = llvm::PoisonMaskElem;
  expectSplitSame(i32, 256, HalfPoison, 16);
}

TEST(SplitWideShufflesTest, NarrowerAndWiderResultsKeepTheirLanes) {
  std::vector<int> Narrow(64), Wide(256);
  for (unsigned J = 0; J < 64; ++J)
    Narrow[J] = int((J * 5 + 3) % 512);
  for (unsigned J = 0; J < 256; ++J)
    Wide[J] = int((J * 3) % 128);
  expectSplitSame(i32, 256, Narrow, 16); // 256 lanes in, 64 out.
  expectSplitSame(i32, 64, Wide, 16);    // 64 in, 256 out.
}

TEST(SplitWideShufflesTest, SplatsConcatenationsAndNarrowShufflesStay) {
  std::vector<int> Splat(256, 7), Concat(512), Narrow = shiftMask(32, 3);
  for (unsigned J = 0; J < 512; ++J)
    Concat[J] = int(J);
  for (const auto &[N, Mask] :
       std::vector<std::pair<unsigned, std::vector<int>>>{
           {256, Splat}, {256, Concat}, {32, Narrow}}) {
    ShuffleFunction S(i32, N, Mask);
    EXPECT_EQ(openhsa::finalizer::splitWideShuffles(*S.F, RegisterBits), 0u)
        << S.text();
  }
}

} // namespace
