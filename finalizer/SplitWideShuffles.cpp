//===- finalizer/SplitWideShuffles.cpp - Shuffles by register -------------===//

#include "finalizer/SplitWideShuffles.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/MathExtras.h"

#include <vector>

namespace openhsa::finalizer {

namespace {

using llvm::ArrayRef;
using llvm::SmallVector;

/// The lanes of one register of S's element type, where S is a general
/// shuffle wider than two registers whose operands and result are whole
/// registers (a power of two of them for the result, which is joined in
/// halves); 0 where S stays.
unsigned lanesPerRegister(const llvm::ShuffleVectorInst &S,
                          unsigned RegisterBits) {
  auto *From =
      llvm::dyn_cast<llvm::FixedVectorType>(S.getOperand(0)->getType());
  auto *To = llvm::dyn_cast<llvm::FixedVectorType>(S.getType());
  if (!From || !To)
    return 0;
  llvm::Type *Element = From->getElementType();
  // Integers of whole bytes and floating point; pointers and masks (i1)
  // are left to code generation.
  if (!(Element->isIntegerTy() && Element->getIntegerBitWidth() % 8 == 0) &&
      !Element->isFloatingPointTy())
    return 0;
  const unsigned Bits = Element->getPrimitiveSizeInBits().getFixedValue();
  if (Bits == 0 || RegisterBits < 2 * Bits)
    return 0;
  const unsigned Lanes = RegisterBits / Bits;
  const unsigned N = From->getNumElements(), M = To->getNumElements();
  if (std::max(N, M) <= 2 * Lanes || N % Lanes || M % Lanes ||
      !llvm::isPowerOf2_32(M / Lanes))
    return 0;
  int Index = 0;
  ArrayRef<int> Mask = S.getShuffleMask();
  const int *First = llvm::find_if(
      Mask, [](int Lane) { return Lane != llvm::PoisonMaskElem; });
  const bool Splat = First == Mask.end() || llvm::all_of(Mask, [&](int Lane) {
                       return Lane == llvm::PoisonMaskElem || Lane == *First;
                     });
  if (Splat || S.isIdentity() || S.isConcat() ||
      S.isExtractSubvectorMask(Index))
    return 0;
  return Lanes;
}

/// S written as a shuffle per register of its result (Lanes lanes each),
/// joined.
llvm::Value *split(llvm::ShuffleVectorInst &S, unsigned Lanes) {
  llvm::IRBuilder<> B(&S);
  const unsigned N =
      llvm::cast<llvm::FixedVectorType>(S.getOperand(0)->getType())
          ->getNumElements();
  const unsigned PartsPerOperand = N / Lanes;
  // Register-wide parts of the operands (A's then B's), taken as needed.
  SmallVector<llvm::Value *, 64> Parts(2 * PartsPerOperand, nullptr);
  auto Part = [&](unsigned P) {
    if (!Parts[P]) {
      llvm::Value *From = S.getOperand(P < PartsPerOperand ? 0 : 1);
      SmallVector<int, 64> Take(Lanes);
      for (unsigned J = 0; J < Lanes; ++J)
        Take[J] = int((P % PartsPerOperand) * Lanes + J);
      Parts[P] = B.CreateShuffleVector(From, Take, S.getName() + ".part");
    }
    return Parts[P];
  };
  ArrayRef<int> Mask = S.getShuffleMask();
  auto *PieceTy =
      llvm::FixedVectorType::get(S.getType()->getElementType(), Lanes);
  std::vector<llvm::Value *> Pieces;
  for (unsigned R = 0; R < Mask.size() / Lanes; ++R)
    Pieces.push_back(shuffleRegister(B, Mask.slice(R * Lanes, Lanes), PieceTy,
                                     Part, S.getName() + ".piece"));
  // Joined in halves: each join a concatenation of two equal vectors.
  return Pieces.size() == 1 ? Pieces[0] : llvm::concatenateVectors(B, Pieces);
}

} // namespace

llvm::Value *shuffleRegister(llvm::IRBuilder<> &B, ArrayRef<int> Lane,
                             llvm::FixedVectorType *PartTy,
                             llvm::function_ref<llvm::Value *(unsigned)> Part,
                             const llvm::Twine &Name) {
  const unsigned Lanes = PartTy->getNumElements();
  // The parts this register reads, in order of first use.
  SmallVector<unsigned, 4> Used;
  for (int L : Lane)
    if (L != llvm::PoisonMaskElem && !llvm::is_contained(Used, L / Lanes))
      Used.push_back(unsigned(L) / Lanes);
  if (Used.empty())
    return llvm::PoisonValue::get(PartTy);
  // The first two parts in one shuffle, each later one into it.
  SmallVector<int, 64> Local(Lanes, llvm::PoisonMaskElem);
  for (unsigned J = 0; J < Lanes; ++J)
    if (Lane[J] != llvm::PoisonMaskElem) {
      const unsigned P = unsigned(Lane[J]) / Lanes;
      if (P == Used[0])
        Local[J] = Lane[J] % int(Lanes);
      else if (Used.size() > 1 && P == Used[1])
        Local[J] = int(Lanes) + Lane[J] % int(Lanes);
    }
  llvm::Value *Piece =
      Used.size() == 1 &&
              llvm::ShuffleVectorInst::isIdentityMask(Local, int(Lanes))
          ? Part(Used[0])
          : B.CreateShuffleVector(Part(Used[0]),
                                  Used.size() > 1
                                      ? Part(Used[1])
                                      : llvm::PoisonValue::get(PartTy),
                                  Local, Name);
  for (unsigned U = 2; U < Used.size(); ++U) {
    for (unsigned J = 0; J < Lanes; ++J)
      Local[J] = Lane[J] != llvm::PoisonMaskElem &&
                         unsigned(Lane[J]) / Lanes == Used[U]
                     ? int(Lanes) + Lane[J] % int(Lanes)
                     : int(J);
    Piece = B.CreateShuffleVector(Piece, Part(Used[U]), Local, Name);
  }
  return Piece;
}

unsigned splitWideShuffles(llvm::Function &F, unsigned RegisterBits) {
  SmallVector<std::pair<llvm::ShuffleVectorInst *, unsigned>, 16> Wide;
  for (llvm::Instruction &I : llvm::instructions(F))
    if (auto *S = llvm::dyn_cast<llvm::ShuffleVectorInst>(&I))
      if (const unsigned Lanes = lanesPerRegister(*S, RegisterBits))
        Wide.push_back({S, Lanes});
  for (auto [S, Lanes] : Wide) {
    llvm::Value *Split = split(*S, Lanes);
    S->replaceAllUsesWith(Split);
    if (llvm::isa<llvm::Instruction>(Split))
      Split->takeName(S);
    S->eraseFromParent();
  }
  return unsigned(Wide.size());
}

unsigned vectorRegisterBits(llvm::Function &F,
                            llvm::FunctionAnalysisManager &FAM) {
  return unsigned(
      FAM.getResult<llvm::TargetIRAnalysis>(F)
          .getRegisterBitWidth(llvm::TargetTransformInfo::RGK_FixedWidthVector)
          .getFixedValue());
}

llvm::PreservedAnalyses
SplitWideShufflesPass::run(llvm::Function &F,
                           llvm::FunctionAnalysisManager &FAM) {
  const unsigned RegisterBits = vectorRegisterBits(F, FAM);
  if (RegisterBits == 0 || !splitWideShuffles(F, RegisterBits))
    return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses PA;
  PA.preserveSet<llvm::CFGAnalyses>();
  return PA;
}

} // namespace openhsa::finalizer
