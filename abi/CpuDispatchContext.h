//===- abi/CpuDispatchContext.h - What CPU work-group functions see -*- C++
//-*-===//
//
// The contract between the work-group functions the finalizer emits for the
// CPU agent (finalizer/CpuTarget.cpp) and the agent that calls them
// (cpu_agent/PacketProcessor.cpp): header-only, plain data.
//
// The agent passes every work-group function a CpuDispatchContext. Its
// first member is the public context of hsa_ext_openhsa.h, so a native
// kernel reads the same pointer as its own. What follows is the slice of
// the work-group to run: the work-items whose local ids lie in
// [SliceBegin, SliceEnd) in every dimension (an end past the group's
// current size means up to its end).
//
// Why slices: a dispatch of fewer work-groups than the agent has threads,
// or of few long ones, leaves threads idle while the last work-groups run
// (nbody's 32 work-groups of 256 work-items on 16 threads). A kernel whose
// work-items never need another work-item of their group - no barrier, no
// group memory, no cross-lane operation - may run its group in parts on
// different threads. The finalizer says which kernels read the slice
// (KernelSymbol::SliceStep, non-zero); the others run their whole group
// whatever it says. SliceBegin[0] and SliceEnd[0] are multiples of
// SliceStep (a power of two, at most WholeSliceEnd's alignment), so the
// parts keep the waves the whole group runs, and a group whose size is
// whole waves has no partial wave in any part (the work-group function
// relies on both).
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_ABI_CPUDISPATCHCONTEXT_H
#define OPENHSA_ABI_CPUDISPATCHCONTEXT_H

#include "hsa/hsa_ext_openhsa.h"

#include <cstddef>
#include <cstdint>

namespace openhsa::abi {

/// A slice end past any work-group, and a multiple of any SliceStep.
inline constexpr uint32_t WholeSliceEnd = 0xFFFFFF00u;

struct CpuDispatchContext {
  hsa_ext_openhsa_dispatch_context_t Public;
  uint32_t SliceBegin[3];
  uint32_t SliceEnd[3];
  /// Work-groups to run from the one the call names on along X (at least
  /// 1), row by row: each row of local ids (Y, Z) for every group of the
  /// run in turn. Read where KernelSymbol::GroupRuns is set: vectorized
  /// kernels whose work-items run straight through, without a loop or an
  /// atomic, so none can wait for another and any order serves. More than
  /// 1 only where every group of the run is whole along X (the function
  /// takes the first one's size for all) and the slice is whole. A
  /// stencil's groups of 16x16 then read its rows many groups at a time,
  /// as a row-major loop does, rather than 16 elements of each of 18 rows;
  /// a kernel that reads only absolute X ids runs the run's row as one row
  /// (finalizer/README.md).
  uint32_t RunGroups;

  /// The whole work-group, whatever its size, alone.
  void wholeGroup() {
    for (unsigned D = 0; D < 3; ++D) {
      SliceBegin[D] = 0;
      SliceEnd[D] = WholeSliceEnd;
    }
    RunGroups = 1;
  }
};

static_assert(offsetof(CpuDispatchContext, Public) == 0,
              "native kernels read the public context at the same address");

} // namespace openhsa::abi

#endif
