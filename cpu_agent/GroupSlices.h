//===- cpu_agent/GroupSlices.h - Work-groups cut for idle threads -*- C++
//-*-===//
//
// A dispatch of few work-groups leaves threads idle: nbody's 32 work-groups
// of 256 work-items on 16 threads run in two rounds at best, and in three
// where one thread starts late. A kernel that may run its work-groups in
// slices (KernelDescriptor::SliceStep, abi/CpuDispatchContext.h) gets its
// groups cut along one dimension instead, and the threads claim the slices
// as they claim work-groups: in flattened order, slice after slice of each
// group.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_CPU_AGENT_GROUPSLICES_H
#define OPENHSA_CPU_AGENT_GROUPSLICES_H

#include "abi/CpuDispatchContext.h"

#include <cstdint>

namespace openhsa::cpu {

/// How a dispatch's work-groups are cut: each into Parts slices along
/// dimension Dim, whose Pieces pieces of Step work-items (whole waves along
/// X) the slices share evenly.
struct GroupSlices {
  uint32_t Parts = 1; // 1: whole work-groups.
  uint8_t Dim = 0;
  uint32_t Pieces = 1;
  uint32_t Step = 1;

  /// Sets C's slice to part Part (< Parts) of a work-group.
  void select(uint32_t Part, abi::CpuDispatchContext &C) const {
    C.wholeGroup();
    if (Parts == 1)
      return;
    C.SliceBegin[Dim] = uint32_t(uint64_t(Part) * Pieces / Parts * Step);
    C.SliceEnd[Dim] = uint32_t(uint64_t(Part + 1) * Pieces / Parts * Step);
  }
};

/// The finest cut of work-groups of size Wg (SliceStep > 0): one slice per
/// piece along the dimension with the most pieces (waves along X, rows
/// along Y and Z).
GroupSlices finestSlices(uint32_t SliceStep, const uint32_t (&Wg)[3]);

/// The cut for Groups work-groups of size Wg shared by Runners threads, of
/// a kernel whose slices' X ranges start at multiples of SliceStep (0: it
/// runs whole groups only). Whole work-groups where there are enough to go
/// round (8 a thread); else about 16 slices a thread, as few as that takes
/// and a divisor of the pieces, so that the slices are alike.
GroupSlices chooseSlices(uint32_t SliceStep, const uint32_t (&Wg)[3],
                         uint64_t Groups, unsigned Runners);

} // namespace openhsa::cpu

#endif
