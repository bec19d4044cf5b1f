//===- finalizer/UniformConditions.h - Uniform-branch loops -----*- C++ -*-===//
//
// Nearly every kernel starts with a bounds check, `if (id < n)`, which holds
// for every work-item of all but the last work-group. In the work-item loop
// that check is a branch on `icmp (x + first), n`; the loop vectorizer keeps
// it as a mask and emits masked loads and stores (slow on AVX2-only CPUs,
// never free). This pass versions such a loop: where a runtime check in
// the preheader shows the condition takes the same value on the first and
// the last iteration, and the compared value steps by one without wrapping
// (so the ordered comparison is monotone and the same on every iteration),
// a copy of the loop runs with the branch folded; the original loop runs
// otherwise.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_UNIFORMCONDITIONS_H
#define OPENHSA_FINALIZER_UNIFORMCONDITIONS_H

#include "llvm/IR/PassManager.h"

namespace openhsa::finalizer {

struct UniformConditionsPass : llvm::PassInfoMixin<UniformConditionsPass> {
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &FAM);
};

} // namespace openhsa::finalizer

#endif
