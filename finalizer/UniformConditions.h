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
// The vectorized form is versioned the same way: a loop over waves whose
// bounds check is a vector comparison of the lanes' ids, splat(x) plus
// lane constants (and whatever uniform value the kernel added), with a
// splat of the bound. The run-time check computes the lanes' smallest and
// largest values over the loop in 64 bits and requires them to fit the
// compared width (no lane wraps) and the comparison to hold (or fail) at
// both; the copy then has the comparison's every lane constant, so its
// masked loads and stores become plain vector ones. Without it every wave
// ran masked: on the AMD development VM a vector add took twice its
// native twin's time (1.1x with it).
//
// Last, a loop over waves with no bounds check is versioned on the
// vectorizer's check that no lane of a consecutive access wrapped its
// 32-bit index (lane 0's value at most 2^32 - W, stepping by W): checked
// the same way in 64 bits for the whole row, the copy has none of the
// per-wave checks, nor the gathers' addresses computed beside them. The
// 5-point stencil's wave went from 35 instructions to 20 (one core of the
// AMD VM: 1.17x its twin -> 1.00x). The same holds for a loop whose index
// steps by a value known only at run time, the same every iteration (the
// naive matrix product's B column, k * n + col): the check computes the
// last value with that step (at most 2^31, checked too), and the copy's
// loop over k lost its check and the branch around the gather (12
// instructions an iteration -> 8; no change measurable on the GPU
// machine's Xeon, where that loop waits on its loads). All of a loop's wrap
// checks (one per consecutive access), with its bounds check if any, go
// into one check and one copy.
//
// Before all that, a loop's branch on a value the loop does not change is
// unswitched where LLVM's own unswitching left the loop for its size: a
// barrier region's loop over waves tests in every wave whether the
// kernel's loop goes on (the tiled matrix product: copy the next tiles, or
// store C), and with both paths live in one loop the copy reloaded its
// group base from the dispatch context for every wave. Once per loop; the
// copies then get the checks above.
//
// Every copy costs finalization time, so a function gets at most 4000
// instructions of copied loops, unswitched and versioned together (the
// benchmark kernels copy at most 221); loops past that run their general
// form.
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
