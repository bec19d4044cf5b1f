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
// Such a kernel's own code, for any shape, is the costliest part of its
// finalization, and only dispatches with partial groups (or whose variant
// was refused) run it. The runtime asks the finalizer to leave it out
// (FinalizeRequest::DeferShapeVariantCode): such dispatches finalize it
// here, once, and hsa_code_object_serialize writes the code object
// finalized again with all its code (withAllCode).
//
// Kernels without barriers get the same treatment for the code of a
// partial wave at a row's end (FinalizeRequest::DeferPartialWaveCode,
// KernelSymbol::WholeWaveRows): their code runs dispatches whose group and
// grid sizes along X are multiples of the vector width, and the first
// other dispatch finalizes the kernel's code with that copy (a masked copy
// of the vectorized body: 2.5-6 ms of a 13-27 ms finalization on the
// 2-core EPYC).
//
// And code that leaves its wrap checks to a guard (FinalizeRequest::
// GuardIndexWraps, KernelSymbol::Guard, finalizer/WrapGuard.h) runs only
// dispatches whose guard holds: for the others, the first one finalizes
// that code again with its checks, and they run that.
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
#include <optional>
#include <string>

namespace openhsa {

class ShapeVariants final : public cpu::ShapeVariantSource {
public:
  /// Variants of kernel Symbol of Source's program; Original is the kernel
  /// as finalized there, whose kernarg layout the variants share:
  /// variants for the shapes of dispatches (KernelSymbol::ShapeVariants);
  /// the kernel's code for partial waves, where a dispatch has them
  /// (KernelSymbol::WholeWaveRows); and code with wrap checks, for
  /// dispatches where a guard fails (KernelSymbol::Guard).
  ShapeVariants(std::shared_ptr<const finalizer::FinalizeSource> Source,
                const finalizer::KernelSymbol &Symbol,
                const cpu::KernelDescriptor &Original);
  ~ShapeVariants() override;

  /// The variant for this shape, or the kernel's deferred code where it
  /// has none; null to run the kernel itself (or where the deferred code
  /// failed to finalize: the kernel has no code to run then). For a kernel
  /// whose code runs whole-wave rows only, its code with partial waves
  /// where the dispatch has them, or a descriptor without code where that
  /// failed to finalize. Where the code chosen so has a guard that fails
  /// for the dispatch, that code finalized with its wrap checks.
  const cpu::KernelDescriptor *variantFor(unsigned Dims,
                                          const uint32_t (&Grid)[3],
                                          const uint32_t (&Wg)[3],
                                          const void *Kernarg) override;

  /// Whether a dispatch of this geometry may have a variant: whole groups
  /// (a partial group at the grid's edge would need the generic code).
  static bool suitable(const uint32_t (&Grid)[3], const uint32_t (&Wg)[3]);

private:
  using Shape = std::array<uint32_t, 3>;
  struct Variant {
    std::unique_ptr<finalizer::LoadedObject> Code;
    std::unique_ptr<cpu::KernelDescriptor> Kernel; // Null: none.
    /// What it was finalized from, and the guard its code runs under.
    finalizer::FinalizeRequest Request;
    finalizer::WrapGuard Guard;
    /// Its code with wrap checks, once a dispatch needed it.
    std::unique_ptr<Variant> Checked;
  };
  /// The choice by shape alone; Slot receives the variant chosen (for
  /// null, the Original's).
  const cpu::KernelDescriptor *byShape(const uint32_t (&Grid)[3],
                                       const uint32_t (&Wg)[3], Variant *&Slot);
  /// D (V's code), or, where V's guard fails for the dispatch, V's code
  /// with its wrap checks (finalized by the first dispatch that needs it).
  const cpu::KernelDescriptor *guarded(Variant &V,
                                       const cpu::KernelDescriptor *D,
                                       const finalizer::DispatchGeometry &G);
  Variant finalizeFor(const Shape &S) const;
  /// The kernel's code for any shape (with partial waves), finalized
  /// without deferral.
  Variant finalizeGeneric() const;
  /// Finalizes R and loads the kernel's code from it; What and Runs say
  /// what for, in the log.
  Variant load(const finalizer::FinalizeRequest &R, const std::string &What,
               const char *Runs, bool Needed) const;

  const std::shared_ptr<const finalizer::FinalizeSource> Source;
  const std::string Name;
  const cpu::KernelDescriptor &Original;
  const bool ForShapes; // KernelSymbol::ShapeVariants.
  /// KernelSymbol::WholeWaveRows: the kernel's vector width; else 0.
  const unsigned WholeWaveWidth;
  /// The Original's request and guard (its code is not this object's).
  Variant OriginalCode;
  /// What a dispatch with partial waves gets where their code failed to
  /// finalize: no code (the packet processor fails the dispatch).
  const cpu::KernelDescriptor NoCode;
  std::mutex Mutex;
  std::map<Shape, Variant> ByShape; // Each group shape tried.
  std::optional<Variant> Generic;   // Once tried, for a deferred kernel.
};

/// CO itself where every kernel has code for every dispatch; otherwise CO
/// finalized again from its source without deferral and with every wrap
/// check in its code (through the finalization cache).
llvm::Expected<std::shared_ptr<const finalizer::CodeObject>>
withAllCode(std::shared_ptr<const finalizer::CodeObject> CO);

} // namespace openhsa

#endif
