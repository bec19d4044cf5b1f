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

#include "abi/GpuKernelAbi.h"
#include "finalizer/Lowering.h"

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace openhsa::finalizer {

inline constexpr const char *NvptxTriple = "nvptx64-nvidia-cuda";
// The wavefront size and ISA names the agents report too.
using gpu::gpuIsaName;
using gpu::gpuIsaVersion;
using gpu::GpuWavefrontSize;

/// Defines the queries in M and adds a PTX entry per kernel, naming it in
/// Kernel.Symbol.EntrySymbol. Fails, naming the kernel and what it uses,
/// for what GPU agents cannot run yet.
llvm::Error buildGpuKernels(llvm::Module &M, LoweredProgram &Program);

/// Optimizes M for sm_<SmVersion> and emits PTX text.
llvm::Expected<std::string> compileToPtx(llvm::Module &M, unsigned SmVersion);

} // namespace openhsa::finalizer

#endif
