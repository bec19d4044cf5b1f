//===- finalizer/LaneSums.h - A vector's lanes as a sum ---------*- C++ -*-===//
//
// The vectorizer's lane ids are a splat of the first id plus a constant
// vector (`or disjoint splat(first), <0, 1, ...>`), and what a kernel adds
// to them is usually uniform: a bounds check compares such a sum with a
// splat of its bound. UniformConditions.h and GroupBoundsChecks.h both
// decompose the compared vector this way, to check the comparison on
// scalars: the lanes' smallest and largest values.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_LANESUMS_H
#define OPENHSA_FINALIZER_LANESUMS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Value.h"

#include <cstdint>

namespace openhsa::finalizer {

/// A vector's lanes as Scalars' sum (values alike in every lane) plus
/// Lanes[i] (constants, lane by lane), built by adds and disjoint ors.
struct LaneSum {
  llvm::SmallVector<llvm::Value *, 4> Scalars;
  /// The constants' sum, lane by lane, widened signed or not (empty: none).
  llvm::SmallVector<int64_t, 64> Lanes;

  /// Adds V's terms; ScalarOf gives the scalar of a splat (null where V is
  /// not one). False where V is not such a sum, or has constants wider
  /// than 32 bits.
  bool add(llvm::Value *V, bool Signed,
           llvm::function_ref<llvm::Value *(llvm::Value *)> ScalarOf,
           unsigned Depth = 0);
};

} // namespace openhsa::finalizer

#endif
