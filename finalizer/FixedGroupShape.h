//===- finalizer/FixedGroupShape.h - Group shapes directives fix -*- C++
//-*-===//
//
// A kernel finalized with the control directive requiredworkgroupsize (its
// own, or one given to hsa_ext_program_finalize; PRM 13.4) only ever runs
// in work-groups of that shape: the CPU agent refuses other dispatches
// (cpu_agent/KernelDescriptor.h DispatchConstraints). With
// requirenopartialworkgroups, or a required grid size that the group size
// divides, no group at the grid's edge is partial either. The work-group
// function then takes the shape as constants: the loops over the group's
// waves have constant bounds, and the code for shapes that cannot occur
// (partial waves where the rows are whole, groups narrower than a wave,
// rows that are not whole waves, partial groups) folds away before the
// optimization pipeline spends time on it.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_FIXEDGROUPSHAPE_H
#define OPENHSA_FINALIZER_FIXEDGROUPSHAPE_H

#include "finalizer/CodeObject.h"

#include <cstdint>
#include <string>

namespace llvm {
class Function;
} // namespace llvm

namespace openhsa::finalizer {

struct FixedGroupShape {
  /// The group size along X, Y, Z; all 0 where no directive fixes it.
  uint32_t Size[3] = {0, 0, 0};
  /// Along which dimensions every group is whole (its current size is
  /// Size): no dispatch has a partial group there.
  bool Whole[3] = {false, false, false};
  /// The grid size along X, Y, Z where a directive fixes it, else 0.
  uint32_t Grid[3] = {0, 0, 0};

  bool fixed() const { return Size[0] != 0; }
  bool wholeGroups() const { return Whole[0] && Whole[1] && Whole[2]; }
  /// For the finalizer's report: "256x1x1, whole groups".
  std::string describe() const;
};

/// The shape that Symbol's control directives (those of the kernel and
/// those given to the finalizer, merged) fix.
FixedGroupShape fixedGroupShape(const KernelSymbol &Symbol);

/// Replaces F's queries of the work-group size (workgroupsize, and
/// currentworkgroupsize along dimensions where groups are whole) and, where
/// fixed, of the grid size (gridsize) with Shape's constants. F must be a
/// function only the kernel of Shape runs (its body or a copy of it): a
/// function that other kernels call too may run in other shapes.
void foldFixedGroupQueries(llvm::Function &F, const FixedGroupShape &Shape);

} // namespace openhsa::finalizer

#endif
