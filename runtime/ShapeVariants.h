//===- runtime/ShapeVariants.h - Kernels finalized for a shape --*- C++ -*-===//
//
// A kernel with barriers runs fastest in a group shape fixed at
// finalization: as lockstep groups (finalizer/LockstepGroups.h) where the
// shape is 1-D and at most 16 vectors wide, and elsewhere with the code
// for other shapes folded away (finalizer/FixedGroupShape.h). Most programs
// fix none. For such a kernel (the finalizer marks it,
// KernelSymbol::ShapeVariants) the executable keeps what it was finalized
// from, and the first dispatch of each shape of whole groups finalizes it
// again with that shape as control directives, through the finalization
// cache: later dispatches of the shape run that variant. The first
// dispatch of a shape waits for that finalization (tens of milliseconds,
// once per shape and machine: the cache keeps it on disk).
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_SHAPEVARIANTS_H
#define OPENHSA_RUNTIME_SHAPEVARIANTS_H

#include "cpu_agent/KernelDescriptor.h"
#include "finalizer/Finalizer.h"
#include "finalizer/JitLoader.h"

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace openhsa {

class ShapeVariants final : public cpu::ShapeVariantSource {
public:
  /// Variants of kernel Name of Source's program; Original is the kernel
  /// as finalized there, whose kernarg layout the variants share.
  ShapeVariants(std::shared_ptr<const finalizer::FinalizeSource> Source,
                std::string Name, const cpu::KernelDescriptor &Original);
  ~ShapeVariants() override;

  const cpu::KernelDescriptor *variantFor(unsigned Dims,
                                          const uint32_t (&Grid)[3],
                                          const uint32_t (&Wg)[3]) override;

  /// Whether a dispatch of this geometry may have a variant: whole groups
  /// (a partial group at the grid's edge would need the generic code).
  static bool suitable(const uint32_t (&Grid)[3], const uint32_t (&Wg)[3]);

private:
  using Shape = std::array<uint32_t, 3>;
  struct Variant {
    std::unique_ptr<finalizer::LoadedObject> Code;
    std::unique_ptr<cpu::KernelDescriptor> Kernel; // Null: none.
  };
  Variant finalizeFor(const Shape &S) const;

  const std::shared_ptr<const finalizer::FinalizeSource> Source;
  const std::string Name;
  const cpu::KernelDescriptor &Original;
  std::mutex Mutex;
  std::map<Shape, Variant> ByShape; // Each group shape tried.
};

} // namespace openhsa

#endif
