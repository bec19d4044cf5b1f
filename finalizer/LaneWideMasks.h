//===- finalizer/LaneWideMasks.h - Masks across blocks in lanes -*- C++ -*-===//
//
// A wave's masks are vectors of i1 (WorkItemVectorizer.h): which lanes are
// active, which ones a loop still runs. Where the target has mask
// registers (AVX-512) they live in those. Without them (AVX2, SSE) code
// generation keeps a compare's result that a blend reads at once as a
// vector of all-ones or zero lanes as wide as the compared ones, but any
// other mask (one that logic combines, one a phi carries, one tested for
// any lane) as a vector of the narrowest lanes that hold it: the 16 lanes
// of a wave of two AVX2 registers as 16 bytes. Each iteration of
// mandelbrot's escape loop packed its masks into bytes (vpackssdw,
// vpacksswb, vpermq), tested them (vpmovmskb) and widened them again for
// each blend (vpmovzxbd, vpslld, vpunpckhbw, vpmovzxwd): 17 of the loop's
// 57 instructions with AVX2, against none in a hand-written loop.
//
// The pass, last before code generation on targets without mask registers,
// redoes the masks' logic (and, or, xor, selects, shuffles, lane inserts,
// phis) on vectors of i32 lanes, all ones or zero, which a compare's result
// already is (a sign extension where a mask is made) and a blend takes as
// it is (its sign bits: a compare with zero where a mask is read); an
// any-lane or every-lane test becomes a reduction of those lanes (vptest).
// Masks of 64-bit lanes are carried in 32 bits too (a conversion where
// they are made and read, as before in 16).
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_LANEWIDEMASKS_H
#define OPENHSA_FINALIZER_LANEWIDEMASKS_H

#include "llvm/IR/PassManager.h"

namespace openhsa::finalizer {

/// Redoes F's logic on masks (vectors of i1, from four lanes to as many as
/// two vector registers of RegisterBits bits hold in i32 lanes) on vectors
/// of i32 (see above); returns how many instructions it redid.
unsigned widenMasks(llvm::Function &F, unsigned RegisterBits);

/// The pass, where the CPU target has no mask registers (no AVX-512).
struct LaneWideMasksPass : llvm::PassInfoMixin<LaneWideMasksPass> {
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &FAM);
};

} // namespace openhsa::finalizer

#endif
