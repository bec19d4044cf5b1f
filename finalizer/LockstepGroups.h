//===- finalizer/LockstepGroups.h - Groups run as one vector ---*- C++ -*-===//
//
// A kernel with barriers normally runs region by region: every wave of the
// group runs to the next barrier, then every wave resumes after it, through
// a state machine whose registers live in memory between regions
// (CpuTarget.cpp). Where the kernel's control directives fix a small group
// shape with whole groups (FixedGroupShape.h), 1-D or 2-D with rows of
// whole vectors, the whole group can instead be one vector of work-items
// in lockstep, its rows one after the other: the work-item vectorizer
// runs at the group's width (an access consecutive along rows is one
// vector access per row), and a barrier needs no code at all, since
// every lane has finished each instruction before any lane starts the next
// (the PRM's barrier semantics, 6.2 and 9.1, are those of wavebarrier for
// a wavefront that is the group). The kernel is then an ordinary function:
// its barrier loops are loops, its registers SSA values, and with the
// shape's constants LLVM can unroll the loops and keep the values that
// lanes exchange through group memory in registers
// (ForwardVectorStores.h). A loop whose group memory accesses are at the
// same addresses in every iteration stays a loop (the tiled matrix
// product's k-steps): its exchanges are plain vector accesses.
//
// The HSAIL wavefront stays the agent's (WAVESIZE, the cross-lane
// operations): kernels that use the wavefront are not run this way.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_LOCKSTEPGROUPS_H
#define OPENHSA_FINALIZER_LOCKSTEPGROUPS_H

#include "finalizer/Lowering.h"

#include <string>

namespace openhsa::finalizer {

/// The most lanes of 32 bits a lockstep group spans, at any vector width:
/// 16 vectors of 16 floats on AVX-512, 32 of 8 with AVX2 (a kernel of
/// doubles, whose vectors have half as many lanes, half as many). It was
/// 16 vectors of the kernel's width, which left groups of 256 work-items
/// with AVX2 to run region by region: the tree reduction and the scan ran
/// 3.3x and 9.9x their AVX2 twins' times on the 2-core EPYC, and in
/// lockstep 0.75-0.8x and 1.4-1.8x (openhsa-bench-simd-avx2).
inline constexpr unsigned LockstepLanesMax = 256;
/// Loops with barriers that lockstep groups unroll: at most this many
/// iterations, and this many of the scalar body's instructions times the
/// vectors of the group once unrolled (the tree reduction: 8 iterations of
/// 15, 16 vectors, about 2000).
inline constexpr unsigned LockstepTripsMax = 32;
inline constexpr unsigned LockstepUnrolledMax = 16384;

/// Whether the runtime may finalize kernel K (lowered as usual) again for
/// the group shape of a dispatch (runtime/ShapeVariants.h): it waits at
/// barriers, not fbarriers, and the finalizer chooses the width. A fixed
/// shape makes it a lockstep group where the shape allows, and folds the
/// code for other shapes away elsewhere (FixedGroupShape.h).
bool shapeVariantCandidate(const LoweredKernel &K, unsigned Width);

/// The width at which kernel K (lowered as usual, its symbol's directives
/// applied) runs as a lockstep group (all of the group's work-items: X * Y
/// for a 2-D group, whose rows of X are whole vectors of the kernel's
/// width), or 0 where it runs region by region.
/// Width is the vector width the finalizer was asked for (0: its own
/// choice); lockstep groups only where it chooses.
unsigned lockstepGroupWidth(const LoweredKernel &K, unsigned Width);

/// Why running kernel K (lowered for lockstep groups, its symbol's
/// directives applied) as a lockstep group of Vectors vectors would gain
/// nothing, or an empty string. Each loop with group barriers (which the
/// vectorizer asks LLVM to unroll in full) must have a constant trip count
/// once the shape's queries are constants, and must stay small unrolled,
/// unless its group memory accesses are at the same addresses in every
/// iteration.
/// Where one does not, lanes would exchange values through group memory at
/// offsets that are not constants, each access a vector as wide as the
/// group with all its parts masked: five times slower than region by
/// region (the tree reduction on the 2-core EPYC). Asked of a cleaned-up
/// copy of the scalar body, whose loops scalar evolution can count.
std::string whyLockstepLoopsStay(const LoweredKernel &K, unsigned Vectors);

/// Whether the finalizer may run groups in lockstep: yes unless
/// OPENHSA_LOCKSTEP_GROUPS=0 (for comparisons and bisecting).
bool lockstepGroupsEnabled();

} // namespace openhsa::finalizer

#endif
