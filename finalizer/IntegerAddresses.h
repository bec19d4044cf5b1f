//===- finalizer/IntegerAddresses.h - Integer addresses as GEPs -*- C++ -*-===//
//
// HSAIL computes global and flat addresses in 64-bit registers, so the
// lowered IR reaches memory through `inttoptr (add base, offset)`. LLVM's
// scalar evolution cannot see through inttoptr, and without it the loop
// vectorizer cannot tell that work-item i touches element i ("cannot
// identify array bounds"). This pass rewrites such an address as
// `getelementptr i8, (inttoptr base), offset` when exactly one term of the
// sum looks like a pointer (a loaded, passed or phi'd 64-bit value) and the
// others are index arithmetic. A GEP without inbounds wraps as the integer
// sum does, so the address is unchanged; alias analysis sees the same
// unknown object as before.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_INTEGERADDRESSES_H
#define OPENHSA_FINALIZER_INTEGERADDRESSES_H

#include "llvm/IR/PassManager.h"

namespace openhsa::finalizer {

/// Rewrites F's integer addresses; returns whether it changed anything.
bool rewriteIntegerAddresses(llvm::Function &F);

struct IntegerAddressesPass : llvm::PassInfoMixin<IntegerAddressesPass> {
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &);
};

} // namespace openhsa::finalizer

#endif
