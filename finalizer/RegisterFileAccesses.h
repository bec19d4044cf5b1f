//===- finalizer/RegisterFileAccesses.h - Registers of a body -*- C++ -*-===//
//
// A resumable body keeps its registers in a register file
// (query::RegisterFile): every use of the file's address is, through
// constant getelementptrs, a simple load or store of an integer or float
// at a constant byte offset. The register promotion and the vectorizer's
// interleaving of the file both rely on that form and read it here.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_REGISTERFILEACCESSES_H
#define OPENHSA_FINALIZER_REGISTERFILEACCESSES_H

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instruction.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace openhsa::finalizer {

/// A load or store of a register at byte Offset of the file, as type Ty.
struct RegisterFileAccess {
  llvm::Instruction *I;
  uint64_t Offset;
  llvm::Type *Ty;
};

/// Appends every access of the register file whose address is File to
/// Accesses; an error names the first use of another kind (the file's
/// address escapes, an offset that is not constant, a value that is not an
/// integer or a float).
llvm::Error
collectRegisterFileAccesses(llvm::Value *File, const llvm::DataLayout &DL,
                            std::vector<RegisterFileAccess> &Accesses);

/// Erases F's getelementptrs that nothing uses (left by rewriting the
/// accesses), including chains of them.
void eraseUnusedRegisterAddresses(llvm::Function &F);

} // namespace openhsa::finalizer

#endif
