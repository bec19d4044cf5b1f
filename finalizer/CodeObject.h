//===- finalizer/CodeObject.h - What finalization produces ------*- C++ -*-===//
//
// A finalized program for one ISA: a real relocatable object produced by
// LLVM (ELF, host code) plus the metadata the runtime needs to load it and
// answer symbol queries. It serializes to bytes (hsa_code_object_serialize)
// and back, so code finalized in one process loads in another.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_CODEOBJECT_H
#define OPENHSA_FINALIZER_CODEOBJECT_H

#include "finalizer/WrapGuard.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace openhsa::finalizer {

/// A kernel of the code object.
struct KernelSymbol {
  std::string Name;       // HSAIL name, e.g. "&vector_add".
  std::string ModuleName; // HSAIL module name, e.g. "&vadd".
  bool ProgramLinkage = true;
  std::string EntrySymbol; // Object symbol of the work-group function.
  uint32_t KernargSegmentSize = 0;
  uint32_t KernargSegmentAlignment = 16;
  uint32_t GroupSegmentSize = 0;   // Static group memory per work-group.
  uint32_t PrivateSegmentSize = 0; // Per work-item (private + spill + arg).
  bool DynamicCallStack = false;
  // Control directives that constrain dispatches (0: unconstrained).
  uint32_t RequiredGridSize[3] = {0, 0, 0};
  uint32_t RequiredWorkgroupSize[3] = {0, 0, 0};
  uint8_t RequiredDim = 0;
  uint64_t MaxFlatGridSize = 0;
  uint32_t MaxFlatWorkgroupSize = 0;
  uint32_t MaxDynamicGroupSize = 0;
  uint16_t EnabledDetectExceptions = 0; // enabledetectexceptions bits.
  bool RequireNoPartialWorkgroups = false;
  /// Work-items the work-group function runs at once in SIMD lanes (1: one
  /// at a time, the scalar work-item loops), and why a kernel was not
  /// vectorized (finalizer/WorkItemVectorizer.h).
  uint32_t VectorWidth = 1;
  std::string ScalarReason;
  /// Non-zero: the work-group function runs the slice of its group the
  /// agent asks for (abi/CpuDispatchContext.h), whose X range starts at a
  /// multiple of SliceStep. Zero: it runs the whole group.
  uint32_t SliceStep = 0;
  /// The work-group function runs the run of groups along X the agent asks
  /// for, row by row (abi/CpuDispatchContext.h): a kernel whose
  /// work-items run straight through, without a loop or an atomic.
  bool GroupRuns = false;
  /// GPU kernels without work-group barriers check the grid themselves: a
  /// dispatch is one launch whose threads past the grid return at once
  /// (abi/GpuKernelAbi.h). Others get a launch per work-group size.
  bool GpuGridGuard = false;
  /// Each work-group runs as one vector of work-items in lockstep
  /// (finalizer/LockstepGroups.h); VectorWidth is the group's size.
  bool Lockstep = false;
  /// The kernel has barriers and no fixed group shape: the runtime may
  /// finalize it again for the shape of a dispatch, as a lockstep group or
  /// with the code for other shapes folded away (runtime/ShapeVariants.h).
  bool ShapeVariants = false;
  /// The object has no code for this kernel (EntrySymbol names the
  /// function a finalization of Source without deferral defines):
  /// FinalizeRequest::DeferShapeVariantCode.
  bool CodeDeferred = false;
  /// The code runs only dispatches whose work-group and grid sizes along X
  /// are multiples of VectorWidth (every row whole waves): the code for a
  /// partial wave was left out, FinalizeRequest::DeferPartialWaveCode.
  bool WholeWaveRows = false;
  /// Where not empty, the code is right only for dispatches where this
  /// holds: it leaves out wrap checks (FinalizeRequest::GuardIndexWraps).
  WrapGuard Guard;
};

struct FinalizeSource; // finalizer/Finalizer.h

/// A variable of the code object (global, readonly segments).
struct VariableSymbol {
  std::string Name; // HSAIL name, e.g. "&table".
  std::string ModuleName;
  bool ProgramLinkage = true;
  /// Object symbol holding the variable's address when the object defines
  /// it; empty for declarations the executable must define
  /// (hsa_executable_global_variable_define and friends).
  std::string ObjectSymbol;
  uint8_t Segment = 0; // BrigSegment: BRIG_SEGMENT_GLOBAL or READONLY.
  bool AgentAllocation = false;
  bool Constant = false;
  bool Definition = true;
  uint64_t Size = 0;
  uint32_t Alignment = 1;
};

/// An indirect function of the code object (PRM 10.8): once loaded, the
/// address of ObjectSymbol is its code handle, which icall calls (for a
/// GPU ISA, ObjectSymbol is a variable holding the device function's
/// address: finalizer/GpuTarget.cpp).
struct IndirectFunctionSymbol {
  std::string Name; // HSAIL name, e.g. "&virtual_area".
  std::string ModuleName;
  bool ProgramLinkage = true;
  std::string ObjectSymbol;
};

struct CodeObject {
  std::string IsaName;
  uint8_t MachineModel = 1;         // hsa_machine_model_t
  uint8_t Profile = 1;              // hsa_profile_t
  uint8_t DefaultFloatRounding = 2; // hsa_default_float_rounding_mode_t
  std::vector<KernelSymbol> Kernels;
  std::vector<VariableSymbol> Variables;
  std::vector<IndirectFunctionSymbol> IndirectFunctions;
  /// CPU ISAs: an ELF relocatable object. GPU ISAs (gpuIsaName,
  /// finalizer/GpuTarget.h): PTX text.
  std::vector<uint8_t> Object;
  /// CPU ISAs: further relocatable objects, loaded beside Object into one
  /// symbol space: a program's kernels compiled in parallel, one object
  /// each (finalizer/ParallelKernels.h). Usually empty.
  std::vector<std::vector<uint8_t>> MoreObjects;
  /// What it was finalized from, in memory only (never serialized): the
  /// runtime finalizes kernels again from it for the shapes of their
  /// dispatches (runtime/ShapeVariants.h). Null where unknown.
  std::shared_ptr<const FinalizeSource> Source;

  /// The bytes of Object and MoreObjects.
  size_t codeBytes() const {
    size_t N = Object.size();
    for (const std::vector<uint8_t> &O : MoreObjects)
      N += O.size();
    return N;
  }

  /// Code for a GPU agent ("openhsa:nvptx:..."), not for the host.
  bool isGpu() const { return IsaName.rfind("openhsa:nvptx:", 0) == 0; }

  /// The serialized form: metadata and object under a content hash.
  std::vector<uint8_t> serialize() const;
  /// Refuses, with a message naming the problem, bytes that are not a
  /// serialized code object of this version, whose hash does not match, or
  /// whose object fails checkRelocatableObject (finalizer/ObjectCheck.h).
  static llvm::Expected<CodeObject> deserialize(llvm::ArrayRef<uint8_t> Bytes);
};

/// Recomputes the content hash of serialized code object bytes after they
/// were edited (tests craft objects this way; deserialize must still
/// refuse what is wrong inside).
void sealCodeObject(llvm::MutableArrayRef<uint8_t> Bytes);

} // namespace openhsa::finalizer

#endif
