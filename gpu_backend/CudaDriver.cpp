//===- gpu_backend/CudaDriver.cpp - The CUDA driver, loaded at run time ---===//
#include "gpu_backend/CudaDriver.h"

#include "runtime/core/Log.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

namespace openhsa::gpu {

namespace {
/// Resolves the first of Names the library exports (versioned entry points
/// first: cuMemAlloc_v2 is the 64-bit cuMemAlloc).
template <typename Fn>
bool resolve(void *Library, Fn &Out,
             std::initializer_list<const char *> Names) {
  for (const char *Name : Names)
    if (void *Sym = dlsym(Library, Name)) {
      Out = reinterpret_cast<Fn>(Sym);
      return true;
    }
  log::write(log::Level::Info, "libcuda.so.1 lacks %s", *Names.begin());
  return false;
}

const CudaDriver *load() {
  const char *Env = std::getenv("OPENHSA_GPU");
  if (Env && std::strcmp(Env, "0") == 0)
    return nullptr;
  // Never unloaded: the driver keeps threads of its own.
  void *L = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!L) {
    log::write(log::Level::Info, "no GPU agents: %s", dlerror());
    return nullptr;
  }
  static CudaDriver D;
  bool Ok =
      resolve(L, D.Init, {"cuInit"}) &&
      resolve(L, D.DriverGetVersion, {"cuDriverGetVersion"}) &&
      resolve(L, D.DeviceGetCount, {"cuDeviceGetCount"}) &&
      resolve(L, D.DeviceGet, {"cuDeviceGet"}) &&
      resolve(L, D.DeviceGetName, {"cuDeviceGetName"}) &&
      resolve(L, D.DeviceGetAttribute, {"cuDeviceGetAttribute"}) &&
      resolve(L, D.DeviceTotalMem, {"cuDeviceTotalMem_v2"}) &&
      resolve(L, D.DevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"}) &&
      resolve(L, D.DevicePrimaryCtxRelease,
              {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}) &&
      resolve(L, D.DevicePrimaryCtxReset,
              {"cuDevicePrimaryCtxReset_v2", "cuDevicePrimaryCtxReset"}) &&
      resolve(L, D.CtxSetCurrent, {"cuCtxSetCurrent"}) &&
      resolve(L, D.MemAlloc, {"cuMemAlloc_v2"}) &&
      resolve(L, D.MemFree, {"cuMemFree_v2"}) &&
      resolve(L, D.MemHostAlloc, {"cuMemHostAlloc"}) &&
      resolve(L, D.MemFreeHost, {"cuMemFreeHost"}) &&
      resolve(L, D.MemHostRegister, {"cuMemHostRegister_v2"}) &&
      resolve(L, D.MemHostUnregister, {"cuMemHostUnregister"}) &&
      resolve(L, D.Memcpy, {"cuMemcpy"}) &&
      resolve(L, D.ModuleLoadDataEx, {"cuModuleLoadDataEx"}) &&
      resolve(L, D.ModuleUnload, {"cuModuleUnload"}) &&
      resolve(L, D.ModuleGetFunction, {"cuModuleGetFunction"}) &&
      resolve(L, D.ModuleGetGlobal, {"cuModuleGetGlobal_v2"}) &&
      resolve(L, D.FuncSetAttribute, {"cuFuncSetAttribute"}) &&
      resolve(L, D.CtxSetLimit, {"cuCtxSetLimit"}) &&
      resolve(L, D.CtxGetLimit, {"cuCtxGetLimit"}) &&
      resolve(L, D.LaunchKernel, {"cuLaunchKernel"}) &&
      resolve(L, D.StreamCreate, {"cuStreamCreate"}) &&
      resolve(L, D.StreamDestroy, {"cuStreamDestroy_v2"}) &&
      resolve(L, D.StreamSynchronize, {"cuStreamSynchronize"}) &&
      resolve(L, D.EventCreate, {"cuEventCreate"}) &&
      resolve(L, D.EventDestroy, {"cuEventDestroy_v2"}) &&
      resolve(L, D.EventRecord, {"cuEventRecord"}) &&
      resolve(L, D.EventQuery, {"cuEventQuery"}) &&
      resolve(L, D.EventSynchronize, {"cuEventSynchronize"}) &&
      resolve(L, D.GetErrorString, {"cuGetErrorString"});
  if (!Ok)
    return nullptr;
  // Stream memory operations: the _v2 entry points (CUDA 11.7 and later,
  // always enabled) before the first ones (which a driver may refuse).
  D.StreamWaitValue64 = nullptr;
  D.LaunchHostFunc = nullptr;
  D.StreamMemOpsV2 = false;
  for (const char *Name : {"cuStreamWaitValue64_v2", "cuStreamWaitValue64"})
    if (void *Sym = dlsym(L, Name)) {
      D.StreamWaitValue64 =
          reinterpret_cast<decltype(D.StreamWaitValue64)>(Sym);
      D.StreamMemOpsV2 = std::strcmp(Name, "cuStreamWaitValue64_v2") == 0;
      break;
    }
  if (void *Sym = dlsym(L, "cuLaunchHostFunc"))
    D.LaunchHostFunc = reinterpret_cast<decltype(D.LaunchHostFunc)>(Sym);
  if (CUresult R = D.Init(0); R != CUDA_SUCCESS) {
    log::write(log::Level::Info, "no GPU agents: cuInit: %s",
               D.errorText(R).c_str());
    return nullptr;
  }
  int Count = 0;
  if (D.DeviceGetCount(&Count) != CUDA_SUCCESS || Count == 0) {
    log::write(log::Level::Info, "no GPU agents: the driver sees no device");
    return nullptr;
  }
  return &D;
}
} // namespace

const CudaDriver *CudaDriver::get() {
  static const CudaDriver *Driver = load();
  return Driver;
}

std::string CudaDriver::errorText(CUresult R) const {
  const char *Text = nullptr;
  if (GetErrorString && GetErrorString(R, &Text) == CUDA_SUCCESS && Text)
    return "CUDA error " + std::to_string(R) + ": " + Text;
  return "CUDA error " + std::to_string(R);
}

} // namespace openhsa::gpu
