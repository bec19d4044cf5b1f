//===- finalizer/WorkItemVectorizer.h - W work-items at a time --*- C++ -*-===//
//
// Whole-function vectorization of a kernel's work-item body, in the
// SPMD-on-SIMD tradition (ISPC, the oneAPI Construction Kit's vecz): the
// scalar body, which runs one work-item, becomes a body that runs W
// consecutive work-items along X in the lanes of SIMD registers.
//
//  1. Preparation: SROA, cleanups, then LLVM's StructurizeCFG (after
//     LowerSwitch, FixIrreducible, UnifyLoopExits) so that every branch is
//     an if-then with a flow block or a loop's single latch, and LCSSA.
//  2. Varying values (WorkItemVarying.h): which values differ between the
//     lanes; uniform ones stay scalar.
//  3. Masks: each block runs under the mask of the lanes that reach it. A
//     varying branch no longer chooses between its successors: it enters
//     the if-region when any lane wants to, and phis at the join select per
//     lane; a loop whose exit varies runs while any lane is in it, and the
//     values lanes leave with are kept per lane.
//  4. Widening: varying values become <W x T>; loads and stores become
//     vector loads and stores where lanes access consecutive addresses,
//     gathers and scatters otherwise, all masked; atomics, calls and
//     anything without a vector form run lane by lane, in lane order, for
//     the active lanes only.
//
// A body it cannot vectorize is left alone and the reason is returned; the
// caller then runs the scalar work-item loops.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_WORKITEMVECTORIZER_H
#define OPENHSA_FINALIZER_WORKITEMVECTORIZER_H

#include "finalizer/WrapGuard.h"

#include "llvm/IR/Function.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace openhsa::finalizer {

/// Where a target keeps the work-item's local X id in the work-item state
/// the body's second argument points to: lanes that must call a function
/// lane by lane get a copy of the state with their own X id.
struct WorkItemStateLayout {
  uint64_t Size = 0;
  /// The X id; Y and Z follow as 32-bit words.
  uint64_t LocalXOffset = 0;
  /// Where, in the private block of a wave's first work-item, the wave's
  /// register file starts (a resumable body's registers, W times over).
  uint64_t WaveRegisterFileOffset = 0;
  /// Where, in the private block of the group's first work-item, the
  /// registers the group's waves share are: two copies of the scalar
  /// register file, the one read (as the region started) and the one
  /// written (for the next region), which the work-group function copies
  /// over the first after each region (groupRegisterBytes).
  uint64_t GroupRegisterFileOffset = 0;
  /// The scalar body's private segment size, and where, in the private
  /// block of a wave's first work-item, the wave's private data start when
  /// they are interleaved lane by lane (finalizer/PrivateInterleaving.h).
  uint64_t PrivateSegmentSize = 0;
  uint64_t WavePrivateOffset = 0;
};

/// How the lanes of a wave map to work-items.
enum class WaveLayout {
  /// Lane L is the work-item L further along X in lane 0's row: waves
  /// never cross a row, and the X id steps by one from lane to lane.
  Rows,
  /// Lane L is the work-item whose current flattened id (PRM 2.6) is L
  /// above lane 0's: HSAIL's wavefronts where rows are not a multiple of W
  /// long. Every id is computed lane by lane.
  Flat,
};

/// What the vectorizer made of a body's memory accesses, for the
/// OPENHSA_DUMP_IR report and for tests.
struct VectorizeStats {
  unsigned Uniform = 0;     // One scalar access for the whole wave.
  unsigned Consecutive = 0; // Vector accesses, masked where lanes are off;
  unsigned Checked = 0;     // of them, behind a run-time check that the
                            // lanes' offsets do not wrap (else a gather);
  unsigned Guarded = 0;     // of them, without it: the dispatch's guard
                            // checks it (WrapGuard.h).
  unsigned GatherScatter = 0;
  unsigned LaneByLane = 0; // Atomic or volatile: each active lane in turn.
  /// Loads and stores of registers kept across barriers (the wave's
  /// register file).
  unsigned RegisterFile = 0;
  /// Registers kept across barriers whose value is the same in every
  /// work-item of the group: one copy for the group, not one per wave.
  unsigned GroupRegisters = 0;
  /// Varying ifs entered only by work-items whose X id is below a bound the
  /// group shares (`if (lx < s)`): once a whole wave is past the bound, the
  /// later waves of its row skip the region if they have nothing else to
  /// do (RowDoneBias).
  unsigned BoundedIfs = 0;
  /// Gathers in loops that lanes leave at different iterations.
  unsigned LoopGathers = 0;
  /// Varying floating-point arithmetic in loops (an accumulator,
  /// mandelbrot's z): chains of dependent operations from one iteration to
  /// the next, whose latency a wave of one register waits on.
  unsigned LoopChains = 0;
  /// Instructions copied once per lane (atomics, volatile accesses, calls
  /// without a vector form): code that grows with the width.
  unsigned LaneCopies = 0;
  /// The granule of the wave's interleaved private data (0: the lanes'
  /// blocks lie side by side, for PrivateSideBySide's reason if the body
  /// has private accesses) and the bytes its area adds to the first
  /// work-item's private block (finalizer/PrivateInterleaving.h).
  unsigned PrivateGranule = 0;
  uint64_t PrivateAreaBytes = 0;
  std::string PrivateSideBySide;
};

/// "N uniform, N consecutive (N checked), N gathers or scatters, N lane by
/// lane; N register file accesses" (and, where there are any, "N registers
/// shared by the group, N ifs bounded by the X id", and how the wave's
/// private data lie: "private data interleaved by G bytes" or "private
/// blocks side by side: why").
std::string describe(const VectorizeStats &S);

/// Lanes per vector on this host for 32-bit elements: 16 with AVX-512, 8
/// with AVX, 4 otherwise (SSE, NEON). OPENHSA_VECTOR_WIDTH overrides it
/// (a power of two from 2 to 64), for tests and comparisons.
unsigned hostVectorWidth();

/// The width for kernel body S on this host: hostVectorWidth(), halved
/// (at least 2) when most of S's floating-point arithmetic is on 64-bit
/// values, so that a wave of f64 lanes fills one vector register.
unsigned kernelVectorWidth(const llvm::Function &S);

/// Whether the finalizer vectorizes work-items: yes unless
/// OPENHSA_VECTORIZE=0 (for comparisons and bisecting).
bool vectorizationEnabled();

/// How many work-groups ahead a vectorized kernel with barriers prefetches
/// its consecutive loads from memory outside the group and private
/// segments: 4, or OPENHSA_PREFETCH_GROUPS (0 to 16; 0 turns prefetching
/// off, for comparisons). Such a kernel runs a long stretch of code per
/// work-group (every region, its wave loops, the register file), so the
/// core's out-of-order window never reaches the next group's loads, as it
/// does in a hand-written loop: each group waited for its input from
/// memory (over half the tree reduction's time on the GPU machine's Xeon,
/// one core: 14.1 -> 9.8 ms). One group ahead (a kilobyte of the
/// reduction's input) was too close on the AMD development VM, slower
/// than none: the reduction on one core 4.40-4.72 ms at 1, 3.55-4.24 at
/// 0, 3.01-3.57 at 4 (twin 2.71-3.27); on two 2.38-2.46 at 1, 1.84-2.10 at
/// 4 (scan 0.60-0.66 and 0.52-0.60). On the Xeon's 16 cores 4 was as fast
/// as 1 (reduction 0.260-0.276 and 0.275-0.300 ms, scan alike).
unsigned prefetchGroupsAhead();

/// Adds to S's module a function `void (ptr kernarg, ptr wi, <W x i1>
/// active)` that runs, for each lane L set in active, the work-item whose
/// local id is (x + L, y, z), where (x, y, z) is the local id the
/// WorkItemId query returns for wi (WaveLayout::Rows; with Flat, the
/// work-item L further in current flattened id order). S is `void (ptr
/// kernarg, ptr wi)` and is not changed. The active mask must have at least
/// one lane set. The lanes are an HSAIL wavefront: the query::Wave*
/// functions (cross-lane operations, wavebarrier) work across them.
///
/// RowWidth (Rows only; 0: W) below W makes the lanes W / RowWidth rows of
/// a 2-D group in lockstep (LockstepGroups.h): lane L is the work-item
/// (x + L mod RowWidth, y + L / RowWidth, z). Accesses whose lanes are
/// consecutive within each row become one vector access per row.
///
/// With Guard, consecutive accesses whose lanes' 32-bit indices must not
/// wrap have no check in the code where the guard can check them at
/// dispatch instead: their requirements are added to it (WrapGuard.h), and
/// the body is right only for dispatches where the guard holds.
llvm::Expected<llvm::Function *> vectorizeWorkItemBody(
    llvm::Function &S, unsigned W, const WorkItemStateLayout &State,
    VectorizeStats *Stats = nullptr, WaveLayout Layout = WaveLayout::Rows,
    unsigned RowWidth = 0, WrapGuard *Guard = nullptr);

/// The registers vectorized body V keeps once for its group
/// (WaveLayout::Rows): the work-group function copies each, after every
/// region, from GroupRegisterFileOffset + Distance + Offset (the copy the
/// region's waves wrote) to GroupRegisterFileOffset + Offset (the one the
/// next region reads). Empty where V shares no register across its waves.
struct GroupRegisterSlots {
  uint64_t Distance = 0;
  /// Offset and size in bytes of each shared register, by offset.
  std::vector<std::pair<uint64_t, unsigned>> Slots;
  bool empty() const { return Slots.empty(); }
};
GroupRegisterSlots groupRegisterSlots(const llvm::Function &V);

/// The results of a vectorized resumable body (WaveLayout::Rows) at or
/// above this value say that the waves after it in its row have nothing to
/// do up to the next barrier (they would only skip the code guarded by a
/// condition like `X id < n`, which no later lane meets): the result is
/// then this much above the barrier's (or -1's).
constexpr int32_t RowDoneBias = 0x40000000;

/// Whether F, or a function it calls, uses the query::Wave* functions:
/// its wavefronts must run in lockstep.
bool usesWavefronts(const llvm::Function &F);

} // namespace openhsa::finalizer

#endif
