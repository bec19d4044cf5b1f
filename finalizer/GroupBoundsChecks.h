//===- finalizer/GroupBoundsChecks.h - Checks the group passes --*- C++ -*-===//
//
// A group in lockstep (LockstepGroups.h) is one straight-line function of
// vectors as wide as the group. Its bounds check, `if (id < n)`, is a
// comparison of every work-item's id with the bound: on AVX-512, 16
// compares of 16 lanes, their masks joined and kept in mask registers (or
// spilled) for every masked load and select that follows. The tree
// reduction spent as many instructions on that as on its sums. Yet the
// check holds for every work-item of all but the last groups of a grid.
//
// UniformConditions.h versions the loops over waves for such checks; a
// lockstep group has no loop. This pass versions the function instead: in
// a work-group function without loops, for a vector comparison `ids < n`
// (or <=, signed or unsigned) whose left side is a sum of uniform scalars
// and constant vectors (the lanes' ids) and whose right side is a splat of
// a scalar, the function's rest runs in two copies below the comparison. A
// check on scalars picks the copy: in 64 bits, the largest lane's value is
// below the bound, and no lane's value wrapped its width. The copy it
// picks has every lane of the comparison true, so its masked loads become
// loads and its selects go; the original runs otherwise.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_GROUPBOUNDSCHECKS_H
#define OPENHSA_FINALIZER_GROUPBOUNDSCHECKS_H

#include "llvm/IR/PassManager.h"

namespace openhsa::finalizer {

/// Versions F (a work-group function without loops) on its first vector
/// bounds check; returns whether it did.
bool versionGroupBoundsCheck(llvm::Function &F);

struct GroupBoundsChecksPass : llvm::PassInfoMixin<GroupBoundsChecksPass> {
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &FAM);
};

} // namespace openhsa::finalizer

#endif
