//===- finalizer/CpuTarget.h - Work-group functions for the CPU agent -*- C++
//-*-===//
//
// Turns lowered kernels into the work-group functions the CPU agent calls
// (hsa_ext_openhsa_workgroup_fn_t): loops over the work-items of a group
// around the kernel body, and defines the work-item queries from the
// dispatch context (hsa_ext_openhsa_dispatch_context_t). Kernels with
// barriers run region by region: every work-item up to the barrier, then
// every work-item on to the next.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_CPUTARGET_H
#define OPENHSA_FINALIZER_CPUTARGET_H

#include "finalizer/Lowering.h"
#include "finalizer/WorkItemVectorizer.h"

#include "llvm/IR/Module.h"

namespace openhsa::finalizer {

/// Defines the queries in M and adds a work-group function per kernel,
/// naming it in Kernel.Symbol.EntrySymbol. With VectorWidth > 1, kernels
/// run that many work-items at once where the work-item vectorizer can
/// (finalizer/WorkItemVectorizer.h); the others, and all with 1, one at a
/// time. VectorWidth 0: each kernel's width (kernelVectorWidth). Kernels
/// that use cross-lane operations or wavebarrier run in wavefronts of
/// WavefrontSize work-items (the width the program was lowered for, PRM
/// 2.6), vectorized at that width; one that cannot be is an error. Stats,
/// if given, receives per kernel what the vectorizer made of its memory
/// accesses (all zero for kernels left scalar). Kernels lowered for
/// lockstep groups (LoweredKernel::Lockstep) are vectorized at their
/// group's width where that pays (LockstepGroups.h); the names of those
/// for which it would not are added to LockstepRefused, and the error says
/// why: the caller then lowers the program again without them. Code
/// says what else to leave out of the code.
struct WorkGroupCodeOptions {
  /// Vectorized kernels without barriers get code for rows of whole waves
  /// only (FinalizeRequest::DeferPartialWaveCode).
  bool DeferPartialWaves = false;
  /// Wrap checks that a guard evaluated at dispatch can take over are left
  /// out; the guard is the kernel's KernelSymbol::Guard
  /// (FinalizeRequest::GuardIndexWraps).
  bool GuardIndexWraps = false;
};
llvm::Error
buildCpuWorkGroupFunctions(llvm::Module &M, LoweredProgram &Program,
                           unsigned VectorWidth, unsigned WavefrontSize,
                           std::vector<VectorizeStats> *Stats = nullptr,
                           std::vector<std::string> *LockstepRefused = nullptr,
                           WorkGroupCodeOptions Code = {});

} // namespace openhsa::finalizer

#endif
