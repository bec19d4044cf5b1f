//===- finalizer/LaneSums.cpp - A vector's lanes as a sum -----------------===//
#include "finalizer/LaneSums.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"

namespace openhsa::finalizer {

bool LaneSum::add(llvm::Value *V, bool Signed,
                  llvm::function_ref<llvm::Value *(llvm::Value *)> ScalarOf,
                  unsigned Depth) {
  if (Depth > 4)
    return false;
  if (auto *C = llvm::dyn_cast<llvm::ConstantDataVector>(V)) {
    if (!C->getElementType()->isIntegerTy() ||
        C->getElementType()->getIntegerBitWidth() > 32)
      return false;
    if (Lanes.empty())
      Lanes.assign(C->getNumElements(), 0);
    for (unsigned I = 0; I < C->getNumElements(); ++I) {
      const llvm::APInt X = C->getElementAsAPInt(I);
      Lanes[I] += Signed ? X.getSExtValue() : int64_t(X.getZExtValue());
    }
    return true;
  }
  if (llvm::isa<llvm::ConstantAggregateZero>(V))
    return true;
  if (llvm::Value *X = ScalarOf(V)) {
    Scalars.push_back(X);
    return true;
  }
  auto *Op = llvm::dyn_cast<llvm::BinaryOperator>(V);
  if (!Op || !(Op->getOpcode() == llvm::Instruction::Add ||
               (Op->getOpcode() == llvm::Instruction::Or &&
                llvm::cast<llvm::PossiblyDisjointInst>(Op)->isDisjoint())))
    return false;
  return add(Op->getOperand(0), Signed, ScalarOf, Depth + 1) &&
         add(Op->getOperand(1), Signed, ScalarOf, Depth + 1);
}

} // namespace openhsa::finalizer
