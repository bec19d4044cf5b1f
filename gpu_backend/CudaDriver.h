//===- gpu_backend/CudaDriver.h - The CUDA driver, loaded at run time -*- C++
//-*-===//
//
// GPU agents talk to NVIDIA's driver (libcuda.so.1) through the handful of
// driver API entry points declared here. The library is dlopen'ed on first
// use: openhsa has no build dependency on CUDA, and where no driver or no
// device is found there are simply no GPU agents. The types and values are
// those of the public driver API reference; only what we use is declared.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_GPU_BACKEND_CUDADRIVER_H
#define OPENHSA_GPU_BACKEND_CUDADRIVER_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace openhsa::gpu {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_NOT_READY = 600;
inline constexpr CUresult CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712;

/// CUdevice_attribute values we ask for.
enum DeviceAttribute : int {
  AttrMaxThreadsPerBlock = 1,
  AttrMaxBlockDimX = 2,
  AttrMaxBlockDimY = 3,
  AttrMaxBlockDimZ = 4,
  AttrMaxGridDimX = 5,
  AttrMaxGridDimY = 6,
  AttrMaxGridDimZ = 7,
  AttrMaxSharedMemoryPerBlock = 8,
  AttrWarpSize = 10,
  AttrClockRateKHz = 13,
  AttrMultiprocessorCount = 16,
  AttrCanMapHostMemory = 19,
  AttrPciBusId = 33,
  AttrPciDeviceId = 34,
  AttrL2CacheSize = 38,
  AttrMaxThreadsPerMultiprocessor = 39,
  AttrUnifiedAddressing = 41,
  AttrPciDomainId = 50,
  AttrComputeCapabilityMajor = 75,
  AttrComputeCapabilityMinor = 76,
  AttrPageableMemoryAccess = 88,
  AttrCanUseHostPointerForRegisteredMem = 91,
  AttrCanUseStreamMemOps = 92,
  AttrCanUse64BitStreamMemOps = 93,
  AttrMaxSharedMemoryPerBlockOptin = 97,
};

inline constexpr unsigned MemHostAllocPortable = 0x1;
inline constexpr unsigned MemHostAllocDeviceMap = 0x2;
inline constexpr unsigned MemHostRegisterPortable = 0x1;
inline constexpr unsigned MemHostRegisterDeviceMap = 0x2;
inline constexpr unsigned StreamNonBlocking = 0x1;
inline constexpr unsigned EventDisableTiming = 0x2;
inline constexpr int JitInfoLogBuffer = 3;
inline constexpr int JitInfoLogBufferSizeBytes = 4;
inline constexpr int JitErrorLogBuffer = 5;
inline constexpr int JitErrorLogBufferSizeBytes = 6;
inline constexpr int FuncAttributeMaxDynamicSharedSizeBytes = 8;
inline constexpr int LimitStackSize = 0; // CU_LIMIT_STACK_SIZE
/// CUstreamWaitValue_flags: wait until *addr == value.
inline constexpr unsigned StreamWaitValueEq = 0x1;

/// The entry points, resolved from libcuda.so.1.
struct CudaDriver {
  CUresult (*Init)(unsigned);
  CUresult (*DriverGetVersion)(int *);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DeviceGetName)(char *, int, CUdevice);
  CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*DeviceTotalMem)(size_t *, CUdevice);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*DevicePrimaryCtxRelease)(CUdevice);
  CUresult (*DevicePrimaryCtxReset)(CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*CtxSetLimit)(int, size_t);
  CUresult (*CtxGetLimit)(size_t *, int);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemHostAlloc)(void **, size_t, unsigned);
  CUresult (*MemFreeHost)(void *);
  CUresult (*MemHostRegister)(void *, size_t, unsigned);
  CUresult (*MemHostUnregister)(void *);
  CUresult (*Memcpy)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*ModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                               void **);
  CUresult (*ModuleUnload)(CUmodule);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*ModuleGetGlobal)(CUdeviceptr *, size_t *, CUmodule, const char *);
  CUresult (*FuncSetAttribute)(CUfunction, int, int);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **,
                           void **);
  CUresult (*StreamCreate)(CUstream *, unsigned);
  CUresult (*StreamDestroy)(CUstream);
  CUresult (*StreamSynchronize)(CUstream);
  CUresult (*EventCreate)(CUevent *, unsigned);
  CUresult (*EventDestroy)(CUevent);
  CUresult (*EventRecord)(CUevent, CUstream);
  CUresult (*EventQuery)(CUevent);
  CUresult (*EventSynchronize)(CUevent);
  CUresult (*GetErrorString)(CUresult, const char **);
  // Optional (null where the driver lacks them; GPU queues then resolve
  // barriers and completion signals on the host).
  CUresult (*StreamWaitValue64)(CUstream, CUdeviceptr, uint64_t, unsigned);
  CUresult (*LaunchHostFunc)(CUstream, void (*)(void *), void *);
  bool StreamMemOpsV2; // StreamWaitValue64 is cuStreamWaitValue64_v2.

  /// The driver with at least one device, initialized; null when there is
  /// none (no libcuda.so.1, cuInit fails, no device) or OPENHSA_GPU=0.
  static const CudaDriver *get();
  /// "CUDA_ERROR_...: text" for messages.
  std::string errorText(CUresult R) const;
};

} // namespace openhsa::gpu

#endif
