//===- gpu_backend/GpuCode.cpp - Code objects loaded on a GPU -------------===//
#include "gpu_backend/GpuCode.h"

#include "abi/GpuKernelAbi.h"
#include "gpu_backend/GpuAgent.h"
#include "runtime/core/Signal.h"

#include <string>

namespace openhsa::gpu {

llvm::Expected<std::unique_ptr<GpuModule>>
GpuModule::load(const GpuAgent &A, llvm::StringRef Text) {
  if (!A.makeCurrent())
    return llvm::createStringError("cannot make the GPU's context current");
  // The driver wants NUL-terminated PTX.
  std::string Ptx = Text.str();
  char ErrorLog[4096] = {};
  int Options[] = {JitErrorLogBuffer, JitErrorLogBufferSizeBytes};
  void *Values[] = {ErrorLog,
                    reinterpret_cast<void *>(uintptr_t(sizeof(ErrorLog) - 1))};
  CUmodule M = nullptr;
  CUresult R = A.driver().ModuleLoadDataEx(&M, Ptx.c_str(), 2, Options, Values);
  if (R != CUDA_SUCCESS)
    return llvm::createStringError("the driver cannot load the PTX: " +
                                   A.driver().errorText(R) + ": " + ErrorLog);
  // Its signal instructions, if any, modify signals without waking their
  // host waiters (finalizer/GpuTarget.cpp defineSignalHelpers).
  Signal::expectSilentModifications();
  return std::unique_ptr<GpuModule>(new GpuModule(A, M));
}

llvm::Expected<void *>
GpuModule::indirectFunction(const std::string &ObjectSymbol) {
  auto Where = variable(ObjectSymbol);
  if (!Where)
    return Where.takeError();
  uint64_t Handle = 0;
  // Unified addressing: the driver copies to a host address as to the
  // device's.
  if (CUresult R =
          Agent.driver().Memcpy(CUdeviceptr(uintptr_t(&Handle)),
                                CUdeviceptr(uintptr_t(*Where)), sizeof(Handle));
      R != CUDA_SUCCESS)
    return llvm::createStringError("cannot read the handle of '" +
                                   ObjectSymbol +
                                   "': " + Agent.driver().errorText(R));
  return reinterpret_cast<void *>(uintptr_t(Handle));
}

GpuModule::~GpuModule() {
  if (Agent.makeCurrent())
    Agent.driver().ModuleUnload(Module);
}

llvm::Expected<const GpuKernel *>
GpuModule::kernel(const std::string &EntrySymbol, bool GridGuard,
                  size_t StackBytes) {
  auto &Slot = Kernels[EntrySymbol];
  if (Slot)
    return Slot.get();
  const CudaDriver &D = Agent.driver();
  auto K = std::make_unique<GpuKernel>();
  K->GridGuard = GridGuard;
  if (CUresult R =
          D.ModuleGetFunction(&K->Function, Module, EntrySymbol.c_str());
      R != CUDA_SUCCESS) {
    Kernels.erase(EntrySymbol);
    return llvm::createStringError("no kernel '" + EntrySymbol +
                                   "' in the PTX: " + D.errorText(R));
  }
  if (StackBytes) {
    // The limit is the context's, for every kernel: it only grows.
    size_t Now = 0;
    if (D.CtxGetLimit(&Now, LimitStackSize) == CUDA_SUCCESS &&
        Now < StackBytes) {
      if (CUresult R = D.CtxSetLimit(LimitStackSize, StackBytes);
          R != CUDA_SUCCESS) {
        Kernels.erase(EntrySymbol);
        return llvm::createStringError(
            "the device cannot give each thread a call stack of " +
            std::to_string(StackBytes) + " bytes: " + D.errorText(R));
      }
    }
  }
  // Launches may use all the shared memory the device allows with opt-in.
  D.FuncSetAttribute(K->Function, FuncAttributeMaxDynamicSharedSizeBytes,
                     int(Agent.groupSegmentMax()));
  Slot = std::move(K);
  return Slot.get();
}

llvm::Expected<void *> GpuModule::variable(const std::string &ObjectSymbol) {
  CUdeviceptr P = 0;
  size_t Bytes = 0;
  if (!Agent.makeCurrent())
    return llvm::createStringError("cannot make the GPU's context current");
  if (CUresult R = Agent.driver().ModuleGetGlobal(&P, &Bytes, Module,
                                                  ObjectSymbol.c_str());
      R != CUDA_SUCCESS)
    return llvm::createStringError(
        "no variable '" + ObjectSymbol +
        "' in the PTX: " + Agent.driver().errorText(R));
  return reinterpret_cast<void *>(uintptr_t(P));
}

} // namespace openhsa::gpu
