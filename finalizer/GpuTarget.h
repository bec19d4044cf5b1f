//===- finalizer/GpuTarget.h - Kernels for NVIDIA GPU agents ----*- C++ -*-===//
//
// The GPU half of the finalizer: lowered kernels (barriers as calls, wave
// of 32 lanes) become PTX entries (abi/GpuKernelAbi.h) whose work-item
// queries read NVVM special registers and the dispatch parameters; LLVM's
// NVPTX back end emits PTX, which the agent's driver compiles at load.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_GPUTARGET_H
#define OPENHSA_FINALIZER_GPUTARGET_H

#include "finalizer/Lowering.h"

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace openhsa::finalizer {

inline constexpr const char *NvptxTriple = "nvptx64-nvidia-cuda";
/// Lanes of a wavefront of the GPU agent (a warp).
inline constexpr unsigned GpuWavefrontSize = 32;

/// "openhsa:nvptx:sm_90" for compute capability 9.0 (SmVersion 90).
std::string gpuIsaName(unsigned SmVersion);
/// The compute capability an ISA name of gpuIsaName's form names.
std::optional<unsigned> gpuIsaVersion(llvm::StringRef IsaName);

/// Defines the queries in M and adds a PTX entry per kernel, naming it in
/// Kernel.Symbol.EntrySymbol. Fails, naming the kernel and what it uses,
/// for what GPU agents cannot run yet.
llvm::Error buildGpuKernels(llvm::Module &M, LoweredProgram &Program);

/// Optimizes M for sm_<SmVersion> and emits PTX text.
llvm::Expected<std::string> compileToPtx(llvm::Module &M, unsigned SmVersion);

} // namespace openhsa::finalizer

#endif
