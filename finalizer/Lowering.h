//===- finalizer/Lowering.h - BRIG to target-neutral LLVM IR ----*- C++ -*-===//
//
// Translates the kernels of BRIG modules into LLVM IR in scalar SPMD form:
// one function per kernel, `void @<kernel>(ptr kernarg, ptr wi)`, run once
// per work-item. HSAIL registers become allocas (promoted by mem2reg);
// work-item and dispatch queries are calls to `openhsa.*` functions taking
// the work-item pointer, which a target defines (finalizer/CpuTarget.h), so
// nothing here is CPU-specific.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_LOWERING_H
#define OPENHSA_FINALIZER_LOWERING_H

#include "brig/BrigModule.h"
#include "finalizer/CodeObject.h"

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace openhsa::finalizer {

/// A kernel as lowered: its SPMD function and what dispatching it needs.
struct LoweredKernel {
  KernelSymbol Symbol; // EntrySymbol left empty; the target names it.
  llvm::Function *Body = nullptr;
  /// Where the kernel is, for a target's diagnostics (brig::makeBrigError).
  std::string Module;
  uint32_t Offset = 0;
  bool UsesBarrier = false;
  /// Lowered for lockstep groups (LoweringOptions::LockstepKernels): Body
  /// is not resumable; its barriers are calls to query::Barrier.
  bool Lockstep = false;
  /// A resumable kernel's barriers: Body resumes after barrier k (1 to
  /// Barriers) when its resume argument is k, and at its start with 0.
  unsigned Barriers = 0;
  /// Bytes of registers a resumable kernel keeps across barriers, at the
  /// RegisterFile query's address.
  uint64_t RegisterFileSize = 0;
  /// Work-items wait at different points (waitfbar): Body is
  /// `i32 (ptr kernarg, ptr wi, i32 resume, ptr group state)`, each work-item
  /// resumes where it stopped (finalizer/LowerFbarrier.cpp).
  bool Scheduled = false;
};

struct LoweredProgram {
  std::vector<LoweredKernel> Kernels;
  std::vector<VariableSymbol> Variables;
  std::vector<IndirectFunctionSymbol> IndirectFunctions;
};

/// The queries a target defines; each takes the work-item pointer.
namespace query {
inline constexpr const char *WorkItemId =
    "openhsa.workitemid"; // (wi, dim) -> i32
inline constexpr const char *WorkGroupId =
    "openhsa.workgroupid"; // (wi, dim) -> i32
inline constexpr const char *WorkGroupSize =
    "openhsa.workgroupsize"; // (wi, dim) -> i32
inline constexpr const char *CurrentWorkGroupSize =
    "openhsa.currentworkgroupsize";                         // (wi, dim) -> i32
inline constexpr const char *GridSize = "openhsa.gridsize"; // (wi, dim) -> i32
inline constexpr const char *GridGroups =
    "openhsa.gridgroups";                                   // (wi, dim) -> i32
inline constexpr const char *Dim = "openhsa.dim";           // (wi) -> i32
inline constexpr const char *PacketId = "openhsa.packetid"; // (wi) -> i64
inline constexpr const char *PacketCompletionSig =
    "openhsa.packetcompletionsig";                                // (wi) -> i64
inline constexpr const char *GroupBase = "openhsa.groupbase";     // (wi) -> ptr
inline constexpr const char *PrivateBase = "openhsa.privatebase"; // (wi) -> ptr
// The registers of a resumable kernel's work-item (those that live across
// its barriers), given their offset in its private block; a target may
// keep them elsewhere (finalizer/WorkItemVectorizer.h).
inline constexpr const char *RegisterFile =
    "openhsa.registerfile"; // (wi, i32 offset) -> ptr
// The register file of the wave of work-items a vectorized resumable body
// runs, at the offset given in its first work-item's private block
// (finalizer/WorkItemVectorizer.h).
inline constexpr const char *WaveRegisterFile =
    "openhsa.waveregisterfile"; // (wi, i32 offset) -> ptr
// The register slots a vectorized resumable body's waves share (registers
// that hold the same value in every work-item of the group), at the offset
// given in the private block of the group's first work-item.
inline constexpr const char *GroupRegisterFile =
    "openhsa.groupregisterfile"; // (wi, i32 offset) -> ptr
// Sizes of the group segment and of a work-item's private block, the
// dispatch's queue, the worker running the group and the highest worker
// number (LowerSystem.cpp).
inline constexpr const char *GroupSegmentSize =
    "openhsa.groupsegmentsize"; // (wi) -> i32
inline constexpr const char *PrivateSegmentSize =
    "openhsa.privatesegmentsize";                            // (wi) -> i32
inline constexpr const char *Queue = "openhsa.queue";        // (wi) -> ptr
inline constexpr const char *ComputeUnitId = "openhsa.cuid"; // (wi) -> i32
// Without LoweringOptions::HostRuntimeHelpers: the HSA system timestamp
// (clock), from the target.
inline constexpr const char *Clock = "openhsa.clock"; // (wi) -> i64
// Without LoweringOptions::HostRuntimeHelpers: debugtrap's report, (wi,
// i32 hsa_status_t, i64 operand); the work-item then halts as elsewhere.
inline constexpr const char *Trap = "openhsa.trap";
inline constexpr const char *MaxComputeUnitId =
    "openhsa.maxcuid"; // (wi) -> i32
// With LoweringOptions::NativeBarriers (and in LockstepKernels): the
// work-group barrier and the wavefront barrier (convergent).
inline constexpr const char *Barrier = "openhsa.barrier";         // (wi)
inline constexpr const char *WaveBarrier = "openhsa.wavebarrier"; // (wi)
// With LoweringOptions::WavefrontSize > 1 (PRM 9.4): the active lanes of
// the caller's wavefront whose i1 is true, one bit per lane; the caller's
// lane; the value of a 32- or 64-bit integer in another lane (convergent).
inline constexpr const char *WaveBallot =
    "openhsa.wave.ballot"; // (wi, i1) -> i64
inline constexpr const char *WaveLaneId = "openhsa.wave.laneid"; // (wi) -> i32
inline constexpr const char *WaveShuffle32 =
    "openhsa.wave.shuffle.i32"; // (wi, i32 value, i32 lane) -> i32
inline constexpr const char *WaveShuffle64 =
    "openhsa.wave.shuffle.i64"; // (wi, i64 value, i32 lane) -> i64
} // namespace query

/// How a target wants the kernels lowered.
struct LoweringOptions {
  /// The exceptions the finalizer's caller enables for the DETECT policy
  /// (PRM 12.3), besides the kernels' enabledetectexceptions directives.
  uint32_t DetectExceptions = 0;
  /// The program's rounding mode is ZERO, which modules declaring $default
  /// follow.
  bool DefaultRoundsToZero = false;
  /// Barriers stay calls to query::Barrier, for targets whose work-items
  /// run concurrently (the GPU), instead of ending the regions of a
  /// resumable body (the CPU). Fbarriers are then atomics on group memory
  /// and their waits spin (LowerFbarrier.cpp).
  bool NativeBarriers = false;
  /// The target's wavefront size: WAVESIZE operands, and the cross-lane
  /// operations. Above 1 they call the query::Wave* functions.
  unsigned WavefrontSize = 1;
  /// Kernels reach the host runtime's helpers (abi/RuntimeHelpers.h) for
  /// clock, queue and debugtrap instructions. Without them (GPU agents)
  /// clock and debugtrap call query::Clock and query::Trap, and the queue
  /// instructions are refused where they are. (Signal instructions call their
  /// helpers on every target: a GPU target defines them itself.)
  bool HostRuntimeHelpers = true;
  /// Atomics and memfences carry HSAIL's memory scope as an LLVM sync
  /// scope: "workgroup" for wavefront and work-group, "agent", and the
  /// default (system) for system. For targets whose memory is not one
  /// coherent domain (the GPU: only system-scope atomics are atomic with
  /// the host's). Otherwise every scope is performed as system scope
  /// (x86 would drop a fence of a narrower scope).
  bool ScopedAtomics = false;
  /// Kernels (by name, with the '&') whose work-groups the target runs as
  /// one vector of work-items in lockstep (the CPU's lockstep groups,
  /// finalizer/LockstepGroups.h): their barriers stay calls to
  /// query::Barrier, which lanes in lockstep meet by construction, instead
  /// of ending regions. Only kernels that wait on no fbarrier.
  std::vector<std::string> LockstepKernels;
};

/// Lowers every kernel defined in Modules into M (see LoweringOptions).
llvm::Expected<LoweredProgram>
lowerProgram(const std::vector<brig::BrigModule> &Modules, llvm::Module &M,
             const LoweringOptions &Options);

/// Lowers every kernel defined in Modules into M. DetectExceptions are
/// the exceptions the finalizer's caller enables for the DETECT policy
/// (PRM 12.3), besides the kernels' enabledetectexceptions directives.
/// DefaultRoundsToZero: the program's rounding mode is ZERO, which modules
/// declaring $default follow.
llvm::Expected<LoweredProgram>
lowerProgram(const std::vector<brig::BrigModule> &Modules, llvm::Module &M,
             uint32_t DetectExceptions = 0, bool DefaultRoundsToZero = false);

} // namespace openhsa::finalizer

#endif
