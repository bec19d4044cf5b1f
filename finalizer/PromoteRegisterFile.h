//===- finalizer/PromoteRegisterFile.h - Registers per region --*- C++ -*-===//
//
// A resumable body (Lowering.cpp: `i32 (ptr kernarg, ptr wi, i32 resume)`,
// entered at a switch on `resume`, leaving at each barrier with
// `ret i32 k` to be called again at region k) keeps every HSAIL register
// in its work-item's register file (query::RegisterFile): each read is a
// load and each write a store. Until now the file stayed that way through
// vectorization, so the vectorizer saw loads where the register's value
// was plain arithmetic of the work-item id, lost the lanes' stride, and
// turned consecutive accesses into gathers and scatters; every region also
// saved every register it wrote, live or not.
//
// This pass keeps registers in SSA values inside each region and touches
// the file only at region boundaries, and only for what is live:
//  - a register is loaded at the start of region k only if some path from
//    there reads it before writing it (liveness over the regions' control
//    flow, `ret i32 k` continuing at region k);
//  - a barrier leaving for region k stores only the registers live at k;
//  - a register whose value at every barrier leaving for region k is the
//    same pure function of the work-item's ids, the dispatch and the
//    kernarg segment (`workitemid * 4`, a kernarg pointer...) is computed
//    again at region k rather than stored and loaded: it keeps its stride
//    across the lanes, and costs no memory.
// Registers read or written before the resume switch (the DETECT flags'
// reset) stay in memory. A body whose file escapes (an address passed to a
// call, an access at a variable offset) is left unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_PROMOTEREGISTERFILE_H
#define OPENHSA_FINALIZER_PROMOTEREGISTERFILE_H

#include "llvm/IR/Function.h"

namespace openhsa::finalizer {

/// Promotes the register file of resumable body F (see above); returns
/// whether F changed. F keeps its signature and its regions.
bool promoteRegisterFile(llvm::Function &F);

/// Whether the finalizer promotes register files: yes unless
/// OPENHSA_PROMOTE_REGISTERS=0 (for comparisons and bisecting).
bool registerPromotionEnabled();

} // namespace openhsa::finalizer

#endif
