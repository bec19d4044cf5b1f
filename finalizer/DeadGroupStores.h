//===- finalizer/DeadGroupStores.h - Stores no one reads again --*- C++ -*-===//
//
// A work-group function (CpuTarget.cpp, "openhsa.wg.<kernel>") runs a
// work-group, or a run or a slice of them whose work-items share no group
// memory (abi/CpuDispatchContext.h): every work-item it starts ends before
// it returns. Its group segment and its work-items' private segments live
// no longer than that call (PRM 2.8.1: group memory is uninitialized when
// the work-group starts execution; private memory belongs to one
// work-item). A store to them that nothing reads before the function
// returns is dead.
//
// Such stores are left behind where a group runs in lockstep
// (LockstepGroups.h): once ForwardVectorStores.h has given the loads their
// lanes in registers, the tree reduction still stored each step's sums, 27
// vector stores a group of 256 that nothing read, about as many
// instructions as the rest of the group (one core of the EPYC: the scan
// 6.0 ms with its stores, 4.2 without). LLVM's DSE
// does not see that the segments end at the return (they are memory the
// runtime passes in, not allocas), and does not remove masked stores.
//
// The pass removes plain and masked stores (llvm.masked.store) whose
// address is based on the dispatch context's group_base or private_base,
// where no instruction after them in their block may read the bytes they
// wrote (alias analysis), and no block reachable from theirs may read the
// segment at all. Calls that may read memory count as reads.
//
// Private memory ends sooner: with the work-items that own it. Where the
// work-group function has run a wave's (or a work-item's) body to its end,
// it marks that with a call of WorkItemsEndMarker; no path of a private
// store goes on past such a call. Without it, the code of a row's partial
// wave, which reads its own wave's private array, kept every whole wave's
// stores of its array (nine vector stores a wave in the median filter,
// whose array LLVM holds in registers: a fifth of its time on one core of
// the EPYC). The markers touch no memory a program can see; Codegen.cpp
// erases them once the optimization pipeline has run
// (eraseWorkItemsEndMarkers).
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_DEADGROUPSTORES_H
#define OPENHSA_FINALIZER_DEADGROUPSTORES_H

#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/IR/PassManager.h"

namespace openhsa::finalizer {

/// The string attribute that marks a work-group function, whose segments
/// end when it returns.
inline constexpr const char *WorkGroupFunctionAttr = "openhsa-work-group";

/// The function whose calls say that the work-items the work-group
/// function ran last have ended: their private data are dead.
inline constexpr const char *WorkItemsEndMarker = "openhsa.work.items.end";

/// Declares WorkItemsEndMarker in M: `void ()`, touching only memory that
/// no program can access (so LLVM moves no access across it for its sake
/// and removes no call of it).
llvm::FunctionCallee workItemsEndMarker(llvm::Module &M);

/// Erases M's calls of WorkItemsEndMarker and its declaration.
void eraseWorkItemsEndMarkers(llvm::Module &M);

/// Removes the dead segment stores of F (a no-op unless F carries
/// WorkGroupFunctionAttr); returns how many it removed.
unsigned removeDeadGroupStores(llvm::Function &F, llvm::AAResults &AA);

struct DeadGroupStoresPass : llvm::PassInfoMixin<DeadGroupStoresPass> {
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &FAM);
};

} // namespace openhsa::finalizer

#endif
