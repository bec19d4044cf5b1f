//===- gpu_backend/GpuSignals.cpp - Signals GPUs wait on and modify -------===//
#include "gpu_backend/GpuSignals.h"

#include "gpu_backend/GpuAgent.h"
#include "runtime/core/Log.h"
#include "runtime/core/SharedHostArena.h"
#include "runtime/core/Signal.h"

#include <atomic>
#include <mutex>
#include <set>
#include <vector>

namespace openhsa::gpu {

namespace {
struct MappedSlabs {
  std::mutex Mutex;
  std::set<void *> Slabs; // Registered one by one.
  void *Arena = nullptr;  // Registered as a whole (mapSignalArena).
  size_t ArenaBytes = 0;
  void *Queues = nullptr; // The shared host arena (mapQueueArena).
};

/// Slabs of signals kernels can reach from the start: 8 MiB, 65,536
/// signals (the first ones a process creates). Signals beyond are mapped
/// one slab at a time when a queue first waits on them or decrements them.
constexpr size_t ArenaSlabs = 32;

/// Queues and rings kernels can enqueue on: 16 MiB, 64 queues of 4,096
/// packets, say (SharedHostArena.h).
constexpr size_t QueueArenaBytes = size_t(16) << 20;

bool registerHostMemory(const GpuAgent &A, void *P, size_t Size,
                        const char *Consequence) {
  CUresult R = A.driver().MemHostRegister(
      P, Size, MemHostRegisterPortable | MemHostRegisterDeviceMap);
  if (R == CUDA_SUCCESS || R == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
    return true;
  log::write(log::Level::Error, "cannot map %s into the GPU: %s", Consequence,
             A.driver().errorText(R).c_str());
  return false;
}

bool inArena(const MappedSlabs &M, const void *P) {
  return M.Arena && P >= M.Arena &&
         static_cast<const char *>(P) <
             static_cast<const char *>(M.Arena) + M.ArenaBytes;
}
MappedSlabs &mappedSlabs() {
  static MappedSlabs *M = new MappedSlabs; // Outlives other statics.
  return *M;
}

// PTX ISA 7.0 for sm_70: the driver JIT-compiles it for any newer device.
// Atomics and polls use system scope: the words live in host memory and
// are shared with host threads and other devices. Unused dependencies of
// a barrier-OR point at a word that is never 0.
constexpr const char *KernelsPtx = R"(
.version 7.0
.target sm_70
.address_size 64

.visible .entry openhsa_globaltimer(.param .u64 out)
{
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [out];
	mov.u64 %rd2, %globaltimer;
	st.volatile.u64 [%rd1], %rd2;
	ret;
}

.visible .entry openhsa_signal_sub(.param .u64 value, .param .u64 unless)
{
	.reg .pred %p<2>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [value];
	ld.param.u64 %rd3, [unless];
	setp.eq.u64 %p1, %rd3, 0;
	@%p1 bra $Lsub;
	ld.volatile.u64 %rd4, [%rd3];
	setp.ne.u64 %p1, %rd4, 0;
	@%p1 bra $Ldone;
$Lsub:
	fence.sc.sys;
	atom.sys.add.u64 %rd2, [%rd1], -1;
$Ldone:
	ret;
}

.visible .entry openhsa_barrier_or(.param .u64 d0, .param .u64 d1,
	.param .u64 d2, .param .u64 d3, .param .u64 d4, .param .u64 cancel,
	.param .u64 completion)
{
	.reg .pred %p<2>;
	.reg .b64 %rd<16>;
	ld.param.u64 %rd1, [d0];
	ld.param.u64 %rd2, [d1];
	ld.param.u64 %rd3, [d2];
	ld.param.u64 %rd4, [d3];
	ld.param.u64 %rd5, [d4];
	ld.param.u64 %rd6, [cancel];
	ld.param.u64 %rd7, [completion];
$Lpoll:
	ld.volatile.u64 %rd8, [%rd1];
	setp.eq.s64 %p1, %rd8, 0;
	@%p1 bra $Lsatisfied;
	ld.volatile.u64 %rd8, [%rd2];
	setp.eq.s64 %p1, %rd8, 0;
	@%p1 bra $Lsatisfied;
	ld.volatile.u64 %rd8, [%rd3];
	setp.eq.s64 %p1, %rd8, 0;
	@%p1 bra $Lsatisfied;
	ld.volatile.u64 %rd8, [%rd4];
	setp.eq.s64 %p1, %rd8, 0;
	@%p1 bra $Lsatisfied;
	ld.volatile.u64 %rd8, [%rd5];
	setp.eq.s64 %p1, %rd8, 0;
	@%p1 bra $Lsatisfied;
	ld.volatile.u64 %rd8, [%rd6];
	setp.ne.s64 %p1, %rd8, 0;
	@%p1 bra $Ldone;
	nanosleep.u32 1000;
	bra.uni $Lpoll;
$Lsatisfied:
	fence.sc.sys;
	setp.eq.s64 %p1, %rd7, 0;
	@%p1 bra $Ldone;
	atom.sys.add.u64 %rd9, [%rd7], -1;
$Ldone:
	ret;
}
)";
} // namespace

bool mapSignal(const GpuAgent &A, const Signal *S) {
  void *Slab = nullptr;
  if (!Signal::slabOf(S, Slab))
    return false;
  MappedSlabs &M = mappedSlabs();
  std::lock_guard<std::mutex> Lock(M.Mutex);
  if (M.Slabs.count(Slab) || inArena(M, Slab))
    return true;
  if (!A.makeCurrent() ||
      !registerHostMemory(A, Slab, Signal::SlabBytes,
                          "signals (barriers and completion signals are "
                          "handled on the host)"))
    return false;
  M.Slabs.insert(Slab);
  return true;
}

void mapSignalArena(const GpuAgent &A) {
  auto [Base, Bytes] = Signal::reserveSlabArena(ArenaSlabs);
  MappedSlabs &M = mappedSlabs();
  std::lock_guard<std::mutex> Lock(M.Mutex);
  if (!Base || M.Arena == Base)
    return;
  const char *Consequence =
      "signals (kernels' signal instructions fault on them)";
  if (!registerHostMemory(A, Base, Bytes, Consequence))
    return;
  M.Arena = Base;
  M.ArenaBytes = Bytes;
  // Slabs made before the arena (signals created before hsa_init found the
  // GPU, or beyond an earlier arena's end).
  for (void *Slab : Signal::slabs())
    if (!inArena(M, Slab) && !M.Slabs.count(Slab) &&
        registerHostMemory(A, Slab, Signal::SlabBytes, Consequence))
      M.Slabs.insert(Slab);
}

void mapQueueArena(const GpuAgent &A) {
  auto [Base, Bytes] = SharedHostArena::reserve(QueueArenaBytes);
  MappedSlabs &M = mappedSlabs();
  std::lock_guard<std::mutex> Lock(M.Mutex);
  if (!Base || M.Queues == Base)
    return;
  if (registerHostMemory(A, Base, Bytes,
                         "queues (kernels' queue instructions fault on them)"))
    M.Queues = Base;
}

void unmapSignals(const CudaDriver &D) {
  MappedSlabs &M = mappedSlabs();
  std::lock_guard<std::mutex> Lock(M.Mutex);
  for (void *Slab : M.Slabs)
    D.MemHostUnregister(Slab);
  M.Slabs.clear();
  if (M.Arena)
    D.MemHostUnregister(M.Arena);
  M.Arena = nullptr;
  if (M.Queues)
    D.MemHostUnregister(M.Queues);
  M.Queues = nullptr;
}

bool loadDeviceKernels(const GpuAgent &A, DeviceKernels &K) {
  const CudaDriver &D = A.driver();
  char Log[4096] = {};
  int Options[] = {JitErrorLogBuffer, JitErrorLogBufferSizeBytes};
  void *Values[] = {Log, reinterpret_cast<void *>(uintptr_t(sizeof(Log)))};
  CUresult R = D.ModuleLoadDataEx(&K.Module, KernelsPtx, 2, Options, Values);
  if (R == CUDA_SUCCESS &&
      (R = D.ModuleGetFunction(&K.SignalSub, K.Module, "openhsa_signal_sub")) ==
          CUDA_SUCCESS)
    R = D.ModuleGetFunction(&K.BarrierOr, K.Module, "openhsa_barrier_or");
  if (R == CUDA_SUCCESS)
    R = D.ModuleGetFunction(&K.GlobalTimer, K.Module, "openhsa_globaltimer");
  if (R == CUDA_SUCCESS)
    return true;
  log::write(log::Level::Error,
             "GPU signal kernels do not load (barriers and completion "
             "signals are handled on the host): %s %s",
             D.errorText(R).c_str(), Log);
  if (K.Module)
    D.ModuleUnload(K.Module);
  K = {};
  return false;
}

} // namespace openhsa::gpu
