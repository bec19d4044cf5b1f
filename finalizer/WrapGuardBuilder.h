//===- finalizer/WrapGuardBuilder.h - Index ranges as a guard ---*- C++ -*-===//
//
// Builds a WrapGuard (WrapGuard.h) from a kernel body's IR: the requirement
// that a 32-bit (or narrower) index, computed exactly from what a dispatch
// fixes, stays within its type over every work-item of the grid.
//
// Each IR value becomes a node whose value is an integer congruent to the
// value's bits modulo 2^width: work-item and group ids, sizes and kernel
// arguments are leaves with the dispatch's ranges; constants are signed;
// add, sub, mul, shl by a constant and not are exact in the integers, so
// they keep the congruence; truncations keep it too; an extension keeps it
// only where its operand lies in the range it extends from, which the node
// requires. Loop inductions (a phi LLVM's scalar evolution sees as an
// affine recurrence) range from their start over the loop's maximum
// backedge-taken count times their step, which covers every iteration of
// every work-item, and of any lane the vectorized loop carries past its own
// exit. Anything else (a load from memory other than the kernarg segment, a
// call, a phi that is no induction) is not a dispatch's to fix: no guard.
//
// Where the index itself then lies within its type, its bits are that exact
// integer in every work-item. The vectorizer's stride (lane L's index is
// lane 0's plus L steps, modulo 2^width) follows the same operations, which
// in the integers are exact: lane L's index is lane 0's plus L steps with
// no wrap, and the lanes' accesses are consecutive.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_WRAPGUARDBUILDER_H
#define OPENHSA_FINALIZER_WRAPGUARDBUILDER_H

#include "finalizer/WrapGuard.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"

#include <memory>
#include <optional>

namespace llvm {
class AssumptionCache;
class SCEV;
class ScalarEvolution;
class TargetLibraryInfo;
class TargetLibraryInfoImpl;
} // namespace llvm

namespace openhsa::finalizer {

class WrapGuardBuilder {
public:
  /// F is a kernel body whose first argument is the kernarg segment; DT
  /// and LI are its analyses. Neither may change while the builder lives.
  WrapGuardBuilder(llvm::Function &F, llvm::DominatorTree &DT,
                   llvm::LoopInfo &LI, WrapGuard &Guard);
  ~WrapGuardBuilder();

  /// Adds to the guard that Narrow fits its type (Signed: as a signed
  /// value) in every work-item of a dispatch; false, with the guard
  /// unchanged, where Narrow is not computed from what a dispatch fixes.
  bool require(llvm::Value *Narrow, bool Signed);

private:
  std::optional<uint32_t> node(llvm::Value *V, unsigned Depth);
  std::optional<uint32_t> node(const llvm::SCEV *S, unsigned Depth);
  std::optional<uint32_t> induction(llvm::PHINode &P, unsigned Depth);
  /// The loop's maximum backedge-taken count, required to fit its type.
  std::optional<uint32_t> maxBackedges(const llvm::Loop &L, unsigned Depth);
  /// A bound on the loop's backedge-taken count from its latch's
  /// comparison, where scalar evolution has none.
  std::optional<uint32_t> latchBound(const llvm::Loop &L, unsigned Depth);
  uint32_t add(WrapGuard::Node N);

  llvm::Function &F;
  llvm::LoopInfo &LI;
  WrapGuard &Guard;
  std::unique_ptr<llvm::TargetLibraryInfoImpl> TLII;
  std::unique_ptr<llvm::TargetLibraryInfo> TLI;
  std::unique_ptr<llvm::AssumptionCache> AC;
  std::unique_ptr<llvm::ScalarEvolution> SE;
  llvm::DenseMap<const llvm::Value *, uint32_t> Nodes;
  llvm::DenseMap<const llvm::SCEV *, uint32_t> ScevNodes;
  llvm::SmallPtrSet<const llvm::PHINode *, 8> InProgress;
};

} // namespace openhsa::finalizer

#endif
