//===- finalizer/SplitWideVectors.h - Vectors by register -----*- C++ -*-===//
//
// A group run in lockstep (LockstepGroups.h) is one vector as wide as the
// group: the tiled sgemm's accumulators, its tiles and the scan's sums are
// vectors of 256 lanes, sixteen registers each, and what lanes exchange
// becomes trees of shuffles that put rows together and take them apart.
// LLVM's code generation combines each such operation before it splits it
// into registers, and its combines ask for the known bits and undefined
// lanes of operands lane by lane: a quarter of the tiled sgemm's and the
// scan's finalization went to the DAG combiner on vectors it then cut
// into registers anyway.
//
// The pass, run on such functions last before code generation, does that
// cut itself, in the IR: each value of a vector type of whole registers
// (several of them) becomes one value per register ("parts"), and each
// operation on it one operation per part: arithmetic, comparisons, selects,
// casts that keep the lanes, phis, plain and masked loads and stores,
// gathers and scatters, intrinsics that apply lane by lane, and constant
// lane inserts and extracts. A shuffle becomes, per register of its
// result, the one part it takes whole, or a shuffle of the two parts it
// reads, or of more one at a time: the trees that joined rows into the
// group's vector and took them apart again are then no code at all. What
// else reads such a value gets it joined from its parts (a concatenation,
// which costs code generation nothing per lane). The code is the same
// operations on the same registers that code generation would have made.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_SPLITWIDEVECTORS_H
#define OPENHSA_FINALIZER_SPLITWIDEVECTORS_H

#include "llvm/IR/PassManager.h"

namespace openhsa::finalizer {

/// Splits F's vectors of at least four registers of RegisterBits bits (see
/// above) into registers; returns how many instructions it replaced.
unsigned splitWideVectors(llvm::Function &F, unsigned RegisterBits);

/// The pass, on lockstep groups' work-group functions (those that keep
/// Loop Strength Reduction, Codegen.h), with the width of their vector
/// registers from the target.
struct SplitWideVectorsPass : llvm::PassInfoMixin<SplitWideVectorsPass> {
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &FAM);
};

} // namespace openhsa::finalizer

#endif
