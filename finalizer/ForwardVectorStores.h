//===- finalizer/ForwardVectorStores.h - Stored lanes to loads --*- C++ -*-===//
//
// A group in lockstep (LockstepGroups.h) exchanges values between its
// work-items through group memory: a tree reduction stores the group's
// values, then each step loads them back shifted by the stride and stores
// the sums. Once its loop is unrolled, every such access is a vector load or
// store, often masked, at a constant offset from the group's base with a
// constant mask. LLVM's own passes do not look inside masked loads and
// stores (GVN, SROA), so each step waited for the last one's stores to
// reach the cache: a chain through memory, and masked or misaligned loads
// that the core cannot take from its store buffer (three times slower than
// the same tree in registers, on the 2-core EPYC).
//
// This pass gives each such load, where it can, the lanes the stores before
// it in the same block wrote: a shuffle of the stored vectors instead of the
// load. A lane is forwarded only from the newest store that wrote its
// bytes, with the same element type, with nothing in between that may write
// there; a load any of whose lanes cannot be forwarded stays as it is. The
// stores stay too (others may read the memory).
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_FORWARDVECTORSTORES_H
#define OPENHSA_FINALIZER_FORWARDVECTORSTORES_H

#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/IR/PassManager.h"

namespace openhsa::finalizer {

/// Forwards stored lanes to loads in F; returns how many loads it replaced.
unsigned forwardVectorStores(llvm::Function &F, llvm::AAResults &AA);

struct ForwardVectorStoresPass : llvm::PassInfoMixin<ForwardVectorStoresPass> {
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &FAM);
};

} // namespace openhsa::finalizer

#endif
