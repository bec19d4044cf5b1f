//===- finalizer/FixedGroupShape.cpp - Group shapes directives fix --------===//
#include "finalizer/FixedGroupShape.h"

#include "finalizer/Lowering.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

namespace openhsa::finalizer {

std::string FixedGroupShape::describe() const {
  if (!fixed())
    return "not fixed";
  std::string S = std::to_string(Size[0]) + "x" + std::to_string(Size[1]) +
                  "x" + std::to_string(Size[2]);
  if (wholeGroups())
    return S + ", whole groups";
  std::string Partial;
  for (unsigned D = 0; D < 3; ++D)
    if (!Whole[D])
      Partial += "XYZ"[D];
  return S + ", groups partial along " + Partial;
}

FixedGroupShape fixedGroupShape(const KernelSymbol &Symbol) {
  FixedGroupShape Shape;
  // The directive gives all three dimensions or none (both the HSAIL
  // directive and hsa_ext_control_directives_t refuse a zero).
  if (!Symbol.RequiredWorkgroupSize[0] || !Symbol.RequiredWorkgroupSize[1] ||
      !Symbol.RequiredWorkgroupSize[2])
    return Shape;
  for (unsigned D = 0; D < 3; ++D) {
    const uint32_t Size = Symbol.RequiredWorkgroupSize[D];
    const uint32_t Grid = Symbol.RequiredGridSize[D];
    Shape.Size[D] = Size;
    Shape.Grid[D] = Grid;
    // A size of 1 has no partial group; a dispatch must keep the others
    // (DispatchConstraints::admits checks the grid against each).
    Shape.Whole[D] = Size == 1 || Symbol.RequireNoPartialWorkgroups ||
                     (Grid != 0 && Grid % Size == 0);
  }
  return Shape;
}

void foldFixedGroupQueries(llvm::Function &F, const FixedGroupShape &Shape) {
  if (!Shape.fixed())
    return;
  const bool GridFixed = Shape.Grid[0] && Shape.Grid[1] && Shape.Grid[2];
  llvm::SmallVector<std::pair<llvm::CallInst *, uint32_t>, 8> Folds;
  for (llvm::Instruction &I : llvm::instructions(F)) {
    auto *CI = llvm::dyn_cast<llvm::CallInst>(&I);
    const llvm::Function *Callee = CI ? CI->getCalledFunction() : nullptr;
    if (!Callee || CI->arg_size() != 2)
      continue;
    auto *Dim = llvm::dyn_cast<llvm::ConstantInt>(CI->getArgOperand(1));
    if (!Dim)
      continue;
    // As the queries' own definitions: a dimension past 2 reads 0's.
    const unsigned D = Dim->getZExtValue() < 3 ? Dim->getZExtValue() : 0;
    const llvm::StringRef Name = Callee->getName();
    if (Name == query::WorkGroupSize ||
        (Name == query::CurrentWorkGroupSize && Shape.Whole[D]))
      Folds.push_back({CI, Shape.Size[D]});
    else if (GridFixed && Name == query::GridSize)
      Folds.push_back({CI, Shape.Grid[D]});
    else if (GridFixed && Name == query::GridGroups)
      Folds.push_back(
          {CI, uint32_t((uint64_t(Shape.Grid[D]) + Shape.Size[D] - 1) /
                        Shape.Size[D])});
  }
  for (auto [CI, Value] : Folds) {
    CI->replaceAllUsesWith(llvm::ConstantInt::get(CI->getType(), Value));
    CI->eraseFromParent();
  }
}

} // namespace openhsa::finalizer
