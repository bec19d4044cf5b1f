//===- finalizer/ParallelKernels.h - Kernels on threads ---------*- C++ -*-===//
//
// Optimization and code generation take a kernel's whole finalization but
// a millisecond or two, and LLVM runs them on one thread per module. A
// program of several kernels therefore compiles each kernel's work-group
// function, and what it calls, as a module of its own, each on a thread and
// in an LLVMContext of its own (contexts are not thread-safe), into an
// object of its own: a code object then holds several objects
// (CodeObject::MoreObjects), which the JIT loader links into one symbol
// space. The kernels share nothing: a function two of them call is copied
// into both, with internal linkage.
//
// Not for programs whose kernels share state: variables (the program's,
// or a function's own that is not constant) and indirect functions stay
// in one module, compiled as before.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_PARALLELKERNELS_H
#define OPENHSA_FINALIZER_PARALLELKERNELS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace openhsa::finalizer {

/// Threads a finalization may compile its kernels on:
/// OPENHSA_FINALIZE_THREADS where set (1: one module, as before), else the
/// host's hardware threads, at most 16.
unsigned finalizeThreads();

/// Whether kernels of M may share state, which copies in other modules or
/// code objects would split: a variable that is not constant (a program's,
/// or one declared inside a kernel or function), one M only declares (the
/// executable defines it), an alias or an ifunc.
bool mayShareState(const llvm::Module &M);

/// Compiles M (compileToObject) into objects: one per work-group function
/// named in Entries, with what it calls, on up to Threads threads, where
/// M's kernels share no state and there are at least two; else M as one
/// object. Each thread's context reports LLVM's diagnostics to Diagnostics.
/// M is left as it was.
llvm::Expected<std::vector<std::vector<uint8_t>>>
compileKernels(llvm::Module &M, llvm::ArrayRef<std::string> Entries,
               unsigned Threads,
               llvm::DiagnosticHandler::DiagnosticHandlerTy Diagnostics);

} // namespace openhsa::finalizer

#endif
