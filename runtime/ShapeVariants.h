//===- runtime/ShapeVariants.h - Kernels finalized for a shape --*- C++ -*-===//
//
// A kernel with barriers runs fastest as lockstep groups
// (finalizer/LockstepGroups.h), which needs a group shape fixed at
// finalization; most programs give none. For such a kernel (the finalizer
// marks it, KernelSymbol::ShapeVariants) the executable keeps what it was
// finalized from, and the first dispatch of each suitable shape (1-D, whole
// groups, at most 16 vectors wide) finalizes it again with that shape as
// control directives, through the finalization cache: later dispatches of
// the shape run that variant where it became a lockstep group, and the
// kernel as finalized otherwise. The first dispatch of a shape waits for
// that finalization (tens of milliseconds, once per shape and machine: the
// cache keeps it on disk).
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_SHAPEVARIANTS_H
#define OPENHSA_RUNTIME_SHAPEVARIANTS_H

#include "cpu_agent/KernelDescriptor.h"
#include "finalizer/Finalizer.h"
#include "finalizer/JitLoader.h"

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

  /// Whether a dispatch of this geometry may have a variant: 1-D, whole
  /// groups of a multiple of the host's vector width, at most 16 vectors.
  static bool suitable(unsigned Dims, const uint32_t (&Grid)[3],
                       const uint32_t (&Wg)[3]);

private:
  struct Variant {
    std::unique_ptr<finalizer::LoadedObject> Code;
    std::unique_ptr<cpu::KernelDescriptor> Kernel; // Null: none.
  };
  Variant finalizeFor(uint32_t Width) const;

  const std::shared_ptr<const finalizer::FinalizeSource> Source;
  const std::string Name;
  const cpu::KernelDescriptor &Original;
  std::mutex Mutex;
  std::map<uint32_t, Variant> ByWidth; // Each shape tried, by group width.
};

} // namespace openhsa

#endif
