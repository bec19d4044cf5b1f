//===- finalizer/Finalizer.h - BRIG modules to a code object ----*- C++ -*-===//
//
// The CPU pipeline: validated BRIG modules -> target-neutral LLVM IR (one
// function per kernel in scalar SPMD form) -> a work-group function per
// kernel (work-item loops) -> LLVM O3 for the host CPU -> relocatable
// object. Anything it cannot translate exactly fails with a message naming
// the instruction and its BRIG offset, never a wrong result.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_FINALIZER_H
#define OPENHSA_FINALIZER_FINALIZER_H

#include "brig/BrigModule.h"
#include "finalizer/CodeObject.h"

#include <memory>
#include <string>
#include <vector>

namespace openhsa::finalizer {

/// hsa_ext_control_directives_t in our own terms (0: absent).
struct ControlDirectives {
  uint64_t ControlDirectivesMask = 0;
  uint16_t BreakExceptions = 0;
  uint16_t DetectExceptions = 0;
  uint32_t MaxDynamicGroupSize = 0;
  uint64_t MaxFlatGridSize = 0;
  uint32_t MaxFlatWorkgroupSize = 0;
  uint8_t RequiredDim = 0;
  uint32_t RequiredGridSize[3] = {0, 0, 0};
  uint32_t RequiredWorkgroupSize[3] = {0, 0, 0};
};

struct FinalizeRequest {
  /// Modules of one program, validated, kept alive by the caller.
  std::vector<brig::BrigModule> Modules;
  std::string IsaName;              // Recorded in the code object.
  uint8_t MachineModel = 1;         // hsa_machine_model_t
  uint8_t Profile = 1;              // hsa_profile_t
  uint8_t DefaultFloatRounding = 2; // Recorded in the code object.
  /// The program's hsa_default_float_rounding_mode_t: the rounding of
  /// modules that declare $default (ZERO: toward zero; DEFAULT or NEAR: to
  /// nearest even). Modules that declare $zero or $near round their own way.
  uint8_t ProgramFloatRounding = 0;
  ControlDirectives Directives;
  std::string Options; // Finalizer options string (unused yet).
  /// Work-items per SIMD wave: 0 for each kernel's width on this host
  /// (kernelVectorWidth, finalizer/WorkItemVectorizer.h), unless
  /// OPENHSA_VECTORIZE=0; 1 for scalar work-item loops.
  unsigned VectorWidth = 0;
  /// Leave out the code of kernels the runtime finalizes again for the
  /// shapes of their dispatches (KernelSymbol::ShapeVariants): their
  /// symbols are CodeDeferred. Only for a caller that keeps the request
  /// (CodeObject::Source) to finalize them again, without this, when a
  /// dispatch or a serialization needs that code (runtime/ShapeVariants.h).
  bool DeferShapeVariantCode = false;
  /// Give vectorized kernels without barriers code for rows of whole waves
  /// only: no copy of the body for a partial wave at a row's end, which
  /// only dispatches whose group or grid X is not a multiple of the vector
  /// width run (KernelSymbol::WholeWaveRows). Only for a caller that keeps
  /// the request to finalize such a dispatch's code without this
  /// (runtime/ShapeVariants.h).
  bool DeferPartialWaveCode = false;
  /// Leave out of vectorized kernels the checks that no lane's 32-bit index
  /// wrapped where a guard on the dispatch can make sure of it instead
  /// (KernelSymbol::Guard, finalizer/WrapGuard.h). Only for a caller that
  /// evaluates each such kernel's guard at dispatch and, where it fails,
  /// runs the kernel finalized without this (runtime/ShapeVariants.h).
  bool GuardIndexWraps = false;
};

/// A request together with its modules' bytes, which it views: what a code
/// object was finalized from, kept for finalizing its kernels again
/// (CodeObject::Source).
struct FinalizeSource {
  std::vector<std::vector<uint8_t>> Bytes;
  FinalizeRequest Request;
  /// A copy of R that owns its modules' bytes.
  static std::shared_ptr<const FinalizeSource> copy(const FinalizeRequest &R);
};

/// Finalizes every kernel of the program for the host CPU.
llvm::Expected<CodeObject> finalize(const FinalizeRequest &Request);

/// The ISA name of code finalize() produces on this host; agents report the
/// same name (cpu_agent/CpuAgent.h hostIsa()).
std::string hostIsaName();

} // namespace openhsa::finalizer

#endif
