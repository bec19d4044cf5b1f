//===- finalizer/SplitWideShuffles.h - Shuffles by register ---*- C++ -*-===//
//
// A group run in lockstep (LockstepGroups.h) is one vector as wide as the
// group: the scan's and the tree reduction's values are vectors of 256
// lanes, and what lanes exchange through group memory becomes shuffles of
// 256 lanes once ForwardVectorStores.h has forwarded it. LLVM's code
// generation combines such a shuffle before it splits it into registers,
// and one of its combines (a shuffle as a zero extension) asks for the
// known bits of each lane of the operand in turn, each answer walking the
// operand's whole mask: work that grows with the square of the lanes. The
// scan's 15 shuffles of 256 lanes took a quarter of its finalization (on
// the 2-core EPYC, 5 ms of 21).
//
// The pass, run last before code generation (after the optimizer, whose
// InstCombine would merge the parts again), writes each general shuffle
// wider than two registers as a shuffle per register of its result, of
// the register-wide parts of its operands it reads, then concatenates
// them. Parts are taken and joined with shuffles that code generation
// sees as subvector extracts and concatenations, which cost it nothing
// per lane; a register of the result that reads more than two parts is
// put together one part at a time. Splats, extracts and concatenations,
// which it handles without that cost, stay. The code is the same: code
// generation splits the shuffle at the same registers.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_SPLITWIDESHUFFLES_H
#define OPENHSA_FINALIZER_SPLITWIDESHUFFLES_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/PassManager.h"

namespace openhsa::finalizer {

/// One register of a shuffle's result: Lane is that register's slice of
/// the shuffle's mask (lanes of the operands, A's then B's, or poison),
/// Part(U) the register-wide part U of the operands (lanes U * L to
/// U * L + L - 1, L the lanes of PartTy). The part itself where the
/// register takes one whole; else a shuffle of the first two parts it
/// reads, and one more for each further part. SplitWideVectors.h shares it.
llvm::Value *shuffleRegister(llvm::IRBuilder<> &B, llvm::ArrayRef<int> Lane,
                             llvm::FixedVectorType *PartTy,
                             llvm::function_ref<llvm::Value *(unsigned)> Part,
                             const llvm::Twine &Name);

/// The width in bits of F's vector registers, by the target (0: none).
unsigned vectorRegisterBits(llvm::Function &F,
                            llvm::FunctionAnalysisManager &FAM);

/// Splits F's shuffles wider than two vector registers of RegisterBits
/// bits (see above); returns how many it split.
unsigned splitWideShuffles(llvm::Function &F, unsigned RegisterBits);

/// The pass, with the width of F's vector registers from the target.
struct SplitWideShufflesPass : llvm::PassInfoMixin<SplitWideShufflesPass> {
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &FAM);
};

} // namespace openhsa::finalizer

#endif
