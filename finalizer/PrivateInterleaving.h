//===- finalizer/PrivateInterleaving.h - A wave's private data by lane -*- C++
//-*-===//
//
// Work-items' private blocks lie one after the other (query::PrivateBase),
// so the same private variable of a wave's lanes is a private segment size
// apart: every access to it, even at an offset the whole wave shares (a
// loop counter's index into a private array), is a gather or a scatter.
// Interleaved, lane by lane in granules of G bytes, the wave's private data
// lie where consecutive lanes' copies of a word are G bytes apart, so that
// such an access is one vector load or store:
//
//   byte o of lane L  ->  area + (o / G) * G * W + L * G + o % G
//
// The area is the wave's, in the private block of its first work-item
// (query::WaveRegisterFile at the offset the caller reserves), like the
// register file of a resumable body.
//
// The mapping is exact for any offset, wherever it came from (lda, a
// frame, arithmetic), as long as every access to the private segment goes
// through it and none straddles a granule. So a body is interleaved only
// where:
//   - every use of the private segment's base is an address of a plain or
//     volatile load or store (through GEPs): no flat address made from it
//     (stof), no atomic, no memory intrinsic;
//   - no call to an HSAIL function is left (recursion, a body too large to
//     inline): the callee would find its caller's data in the old place;
//   - every access is of 1, 2, 4 or 8 bytes, at an offset known to be a
//     multiple of its size; G is the largest size.
// Elsewhere the blocks stay side by side and the reason is returned.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_PRIVATEINTERLEAVING_H
#define OPENHSA_FINALIZER_PRIVATEINTERLEAVING_H

#include "llvm/IR/Function.h"

#include <cstdint>
#include <string>

namespace openhsa::finalizer {

/// `i64 ()`: the lane's index in the wave, 0 to W-1, in an interleaved
/// private address; only in bodies being vectorized, which widen it to the
/// lanes' ids.
inline constexpr const char *PrivateLaneMarker =
    "openhsa.vectorizer.privatelane";

/// What interleavePrivateSegment made of a body's private segment.
struct PrivateInterleaving {
  /// The granule G in bytes; 0 where the blocks stay side by side (or the
  /// body does not use private memory).
  unsigned Granule = 0;
  /// The wave's area: W times the private segment size rounded up to G.
  uint64_t AreaBytes = 0;
  /// Why the blocks stay side by side, where the body has private
  /// accesses and Granule is 0.
  std::string SideBySideReason;
};

/// Whether vectorized bodies may interleave their private data: yes unless
/// OPENHSA_INTERLEAVE_PRIVATE=0 (for comparisons and bisecting).
bool privateInterleavingEnabled();

/// Most bytes a work-item's private block may grow by for the wave's area
/// (each work-item's block grows, though only a wave's first uses it):
/// beyond it the blocks stay side by side.
inline constexpr uint64_t MaxInterleavedPrivateBytes = 16 * 1024;

/// Rewrites F's private accesses (F as the vectorizer prepared it: calls
/// inlined, control flow structured; its second argument the work-item
/// state) to the interleaved layout of a wave of W lanes, whose area
/// starts AreaOffset bytes into the private block of the wave's first
/// work-item. PrivateBytes is the scalar body's private segment size: no
/// access in bounds reaches past it. The lane index is the vectorizer's
/// PrivateLaneMarker, which it widens to the lanes' ids.
PrivateInterleaving interleavePrivateSegment(llvm::Function &F, unsigned W,
                                             uint64_t PrivateBytes,
                                             uint64_t AreaOffset);

} // namespace openhsa::finalizer

#endif
