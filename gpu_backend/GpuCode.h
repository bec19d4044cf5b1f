//===- gpu_backend/GpuCode.h - Code objects loaded on a GPU -----*- C++ -*-===//
//
// Loading a GPU code object hands its PTX to the driver, which compiles it
// for the device (cuModuleLoadDataEx); each kernel's entry becomes a
// GpuKernel that kernel descriptors point to.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_GPU_BACKEND_GPUCODE_H
#define OPENHSA_GPU_BACKEND_GPUCODE_H

#include "gpu_backend/CudaDriver.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <string>

namespace openhsa::gpu {

class GpuAgent;

/// What a dispatch of one kernel needs.
struct GpuKernel {
  CUfunction Function = nullptr;
  uint32_t KernargParamBytes = 16; // abi/GpuKernelAbi.h
  /// One launch per dispatch; the kernel returns past the grid's end.
  bool GridGuard = false;
};

class GpuModule {
public:
  /// Compiles Ptx (a GPU code object's object: PTX text) for A's device.
  /// The driver's log is in the error.
  static llvm::Expected<std::unique_ptr<GpuModule>> load(const GpuAgent &A,
                                                         llvm::StringRef Ptx);
  ~GpuModule();

  /// The kernel whose entry is EntrySymbol, owned by the module. A kernel
  /// that calls functions keeps its frame, the private segment included,
  /// on the device's call stack: StackBytes is what each thread's stack
  /// needs then (0: the driver's default will do), and the context's
  /// stack limit grows to it.
  llvm::Expected<const GpuKernel *>
  kernel(const std::string &EntrySymbol, bool GridGuard, size_t StackBytes = 0);
  /// The device address of a variable the module defines.
  llvm::Expected<void *> variable(const std::string &ObjectSymbol);
  /// The code handle of an indirect function: the device function address
  /// the variable ObjectSymbol holds (finalizer/GpuTarget.cpp).
  llvm::Expected<void *> indirectFunction(const std::string &ObjectSymbol);

private:
  GpuModule(const GpuAgent &A, CUmodule M) : Agent(A), Module(M) {}
  const GpuAgent &Agent;
  CUmodule Module;
  std::map<std::string, std::unique_ptr<GpuKernel>> Kernels;
};

} // namespace openhsa::gpu

#endif
