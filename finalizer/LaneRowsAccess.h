//===- finalizer/LaneRowsAccess.h - Slow path of 2-D lockstep accesses ---===//
//
// A 2-D group in lockstep accesses memory one vector per row where each
// row's 32-bit indices do not wrap around (VectorizerWiden.cpp). Where one
// might, the access runs lane by lane: finalized code calls this helper,
// which the JIT loader binds in every code object. Code that runs only
// where a row's index wraps (buffers past 16 GiB indexed from their end)
// need not be fast; emitted as a loop of its own for each access, it was a
// third of the tiled sgemm's finalization.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_LANEROWSACCESS_H
#define OPENHSA_FINALIZER_LANEROWSACCESS_H

#include <cstdint>

namespace openhsa::finalizer {

/// The helper's symbol in finalized code.
inline constexpr const char *LaneRowsAccessSymbol = "__openhsa_lane_rows";

} // namespace openhsa::finalizer

extern "C" {
/// For each lane L < Lanes whose byte On[L] is not zero, in lane order: its
/// row R = L / RowWidth and column C = L % RowWidth give its 32-bit index
/// X = First + R * RowDelta + C * Step (modulo 2^32), and its element of
/// Size bytes at Base + (zext(X) << Shift) is stored from (Store) or
/// loaded into Values + L * Size.
void __openhsa_lane_rows(char *Base, uint32_t First, uint32_t RowDelta,
                         uint32_t Step, uint32_t Shift, uint32_t RowWidth,
                         uint32_t Lanes, const uint8_t *On, char *Values,
                         uint32_t Size, uint32_t Store);
}

#endif
