//===- gpu_backend/GpuQueue.cpp - AQL queues serviced onto a stream -------===//
#include "gpu_backend/GpuQueue.h"

#include "abi/GpuKernelAbi.h"
#include "cpu_agent/KernelDescriptor.h"
#include "gpu_backend/GpuAgent.h"
#include "gpu_backend/GpuCode.h"
#include "gpu_backend/GpuSignals.h"
#include "runtime/core/Clock.h"
#include "runtime/core/Log.h"
#include "runtime/core/Signal.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace openhsa::gpu {

namespace {
/// How long the thread polls for packets and completions before sleeping.
constexpr uint64_t IdleSpinNs = 50'000;
/// With work in flight, how long the thread polls its events before it
/// sleeps between checks. The driver's blocking sync, tried first, woke the
/// thread about 40 us after a kernel ended (kernels of 0.1-2 ms took up to
/// 1.5x their CUDA twins on the H100); a poll spinning this long and then
/// sleeping costs a long kernel at most 1/32 of its time, and no core.
constexpr uint64_t BusySpinNs = 2'000'000;
/// Sleeps between checks: 1/32 of the time waited so far, within bounds.
int64_t pollInterval(uint64_t WaitedNs) {
  return int64_t(std::clamp<uint64_t>(WaitedNs / 32, 50'000, 1'000'000));
}
/// While the oldest work in flight is a barrier on the device (which may
/// wait for ever, and wakes its waiters itself), the thread checks its
/// event this often.
constexpr int64_t BarrierPollNs = 1'000'000;
/// Which completion design GPU queues use unless OPENHSA_GPU_COMPLETION
/// says: the faster dispatch round trip on the H100 (benchmarks/README.md).
constexpr bool DefaultCompletionOnDevice = false;

bool envIs(const char *Name, const char *Value) {
  const char *V = std::getenv(Name);
  return V && std::strcmp(V, Value) == 0;
}

/// A host function on the stream after a barrier: wakes the threads
/// sleeping on its completion signal, which a device kernel just
/// decremented. Signal slots are never freed, so this is safe even if the
/// program has destroyed the signal meanwhile.
void wakeSignalWaiters(void *S) { static_cast<Signal *>(S)->wakeWaiters(); }

const char *where(bool OnDevice) { return OnDevice ? "device" : "host"; }

uint16_t loadHeader(const void *Slot) {
  return __atomic_load_n(static_cast<const uint16_t *>(Slot), __ATOMIC_ACQUIRE);
}
void storeHeader(void *Slot, uint16_t Header) {
  __atomic_store_n(static_cast<uint16_t *>(Slot), Header, __ATOMIC_RELEASE);
}
unsigned field(uint16_t Header, unsigned Bit, unsigned Width) {
  return (Header >> Bit) & ((1u << Width) - 1);
}
} // namespace

GpuQueueModes gpuQueueModes(const GpuAgent &A) {
  GpuQueueModes M;
  // Both need the signal kernels, and a host function to wake waiters.
  const bool Kernels = A.deviceKernels() && A.driver().LaunchHostFunc;
  M.DeviceBarriers = Kernels && A.info().StreamWaitValue64 &&
                     !envIs("OPENHSA_GPU_BARRIERS", "host");
  M.DeviceCompletion =
      Kernels &&
      (DefaultCompletionOnDevice ? !envIs("OPENHSA_GPU_COMPLETION", "host")
                                 : envIs("OPENHSA_GPU_COMPLETION", "device"));
  return M;
}

std::unique_ptr<GpuQueueService> GpuQueueService::start(const GpuAgent &A,
                                                        Queue &Q) {
  if (!A.makeCurrent())
    return nullptr;
  CUstream S = nullptr;
  if (A.driver().StreamCreate(&S, StreamNonBlocking) != CUDA_SUCCESS)
    return nullptr;
  void *C = nullptr;
  if (A.driver().MemHostAlloc(&C, sizeof(Control),
                              MemHostAllocPortable | MemHostAllocDeviceMap) !=
      CUDA_SUCCESS) {
    A.driver().StreamDestroy(S);
    return nullptr;
  }
  auto *Ctl = static_cast<Control *>(C);
  Ctl->Cancel = 0;
  Ctl->Never = 1;
  Ctl->Trapped = Ctl->TrapValue = 0;
  const GpuQueueModes M = gpuQueueModes(A);
  log::write(log::Level::Info,
             "GPU queue: barrier packets resolved on the %s, completion "
             "signals decremented on the %s",
             where(M.DeviceBarriers), where(M.DeviceCompletion));
  std::unique_ptr<GpuQueueService> Service(
      new GpuQueueService(A, Q, S, Ctl, M));
  Q.doorbell().addWatcher(&Service->Wake);
  Service->Thread = std::thread([P = Service.get()] { P->run(); });
  return Service;
}

GpuQueueService::~GpuQueueService() {
  if (Thread.joinable())
    detach(Q, UINT64_MAX);
}

void GpuQueueService::detach(Queue &, uint64_t) {
  if (!Thread.joinable())
    return;
  Stopping.store(true, std::memory_order_release);
  Wake.notify();
  Thread.join();
  Q.doorbell().removeWatcher(&Wake);
}

void GpuQueueService::unwatch() {
  for (const Signal *S : Watched)
    S->removeWatcher(&Wake);
  Watched.clear();
}

CUevent GpuQueueService::takeEvent() {
  if (!FreeEvents.empty()) {
    CUevent E = FreeEvents.back();
    FreeEvents.pop_back();
    return E;
  }
  CUevent E = nullptr;
  if (Agent.driver().EventCreate(&E, EventDisableTiming) != CUDA_SUCCESS)
    return nullptr;
  return E;
}

void GpuQueueService::complete(hsa_signal_t Completion, uint16_t Header) {
  if (field(Header, HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE,
            HSA_PACKET_HEADER_WIDTH_SCRELEASE_FENCE_SCOPE))
    std::atomic_thread_fence(std::memory_order_release);
  if (Completion.handle)
    Signal::fromHandle(Completion)->fetchSub(1);
}

void GpuQueueService::run() {
  Agent.makeCurrent();
  uint64_t IdleSince = 0;
  while (!Stopping.load(std::memory_order_acquire)) {
    const uint32_t Epoch = Wake.epoch();
    bool Progress = processPackets();
    Progress |= retire();
    if (Progress) {
      IdleSince = 0;
      continue;
    }
    const uint64_t Now = monotonicNanoseconds();
    if (IdleSince == 0)
      IdleSince = Now;
    const uint64_t Idle = Now - IdleSince;
    if (Idle < (Pending.empty() ? IdleSpinNs : BusySpinNs)) {
      for (int I = 0; I < 16; ++I)
        cpuRelax();
      continue;
    }
    if (!Pending.empty()) {
      // Long work: its events are checked now and then, asleep in between
      // (a doorbell store wakes the thread too). IdleSince stays, so no
      // new spin starts until something completes.
      Wake.sleep(Epoch, Pending.front().Barrier ? int64_t(BarrierPollNs)
                                                : pollInterval(Idle));
      continue;
    }
    // A GPU kernel's doorbell store (PRM 11.3) wakes nobody: while such
    // kernels may run, the thread re-checks the queue now and then.
    const int64_t Sleep = Signal::sleepBeforeRecheckNs(Idle);
    Wake.sleep(Epoch, Sleep);
    if (Sleep < 0)
      IdleSince = 0;
  }
  // Work still on the stream finishes before the queue goes away;
  // barrier-OR kernels give up at once. A barrier-AND whose dependencies
  // nobody will signal would hold the stream for ever: then the stream,
  // its events and the control words are left to the driver (the HSA
  // leaves packets in flight at hsa_queue_destroy undefined).
  __atomic_store_n(&Ctl->Cancel, 1, __ATOMIC_SEQ_CST);
  bool Abandoned = false;
  while (!Pending.empty()) {
    if (retire())
      continue;
    if (stuckOnHostSignal()) {
      log::write(log::Level::Info, "a GPU queue was destroyed while a "
                                   "barrier-AND waits for a signal");
      Abandoned = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  unwatch();
  if (Abandoned)
    return;
  for (CUevent E : FreeEvents)
    Agent.driver().EventDestroy(E);
  Agent.driver().StreamDestroy(Stream);
  Agent.driver().MemFreeHost(Ctl);
}

bool GpuQueueService::stuckOnHostSignal() const {
  for (const Signal *S : Pending.front().Waits)
    if (S && S->load(std::memory_order_acquire) != 0)
      return true;
  return false;
}

bool GpuQueueService::retire() {
  bool Progress = false;
  while (!Pending.empty()) {
    InFlight &F = Pending.front();
    CUresult R = Agent.driver().EventQuery(F.Done);
    if (R == CUDA_ERROR_NOT_READY)
      break;
    if (R != CUDA_SUCCESS) {
      // A fault on the device ends the queue, as on other GPU runtimes.
      log::write(log::Level::Error, "a kernel failed on the GPU: %s",
                 Agent.driver().errorText(R).c_str());
      Q.reportError(HSA_STATUS_ERROR_EXCEPTION);
    } else if (__atomic_load_n(&Ctl->Trapped, __ATOMIC_ACQUIRE)) {
      // debugtrap (PRM 12.5.1, as on the CPU agent): the queue reports the
      // exception and stops; the dispatch does not complete (with
      // completion on the device, the kernel after it saw the trap word).
      if (!Q.errorReported())
        log::write(log::Level::Error,
                   "a work-item executed debugtrap on the GPU (operand %llu)",
                   (unsigned long long)__atomic_load_n(&Ctl->TrapValue,
                                                       __ATOMIC_RELAXED));
      Q.reportError(HSA_STATUS_ERROR_EXCEPTION);
    } else if (F.DeviceSide) {
      F.DeviceSide->wakeWaiters();
    } else {
      complete(F.Completion, F.Header);
    }
    FreeEvents.push_back(F.Done);
    Pending.pop_front();
    Progress = true;
  }
  return Progress;
}

bool GpuQueueService::processPackets() {
  bool Progress = false;
  while (Q.isActive()) {
    const uint64_t Index = Q.loadRead(std::memory_order_relaxed);
    void *Slot = Q.slot(Index);
    const uint16_t Header = loadHeader(Slot);
    const unsigned Type =
        field(Header, HSA_PACKET_HEADER_TYPE, HSA_PACKET_HEADER_WIDTH_TYPE);
    if (Type == HSA_PACKET_TYPE_INVALID)
      break;
    Outcome O;
    switch (Type) {
    case HSA_PACKET_TYPE_KERNEL_DISPATCH:
      // Stream order runs it after every earlier dispatch: the barrier bit
      // needs nothing more.
      O = launch(Index, Slot);
      break;
    case HSA_PACKET_TYPE_BARRIER_AND:
    case HSA_PACKET_TYPE_BARRIER_OR:
      O = barrier(Slot, Type == HSA_PACKET_TYPE_BARRIER_AND);
      break;
    default: // Agent dispatch belongs to CPU agents; the rest is invalid.
      Q.reportError(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
      return true;
    }
    if (O == Outcome::Blocked)
      break;
    if (O == Outcome::Failed)
      return true;
    storeHeader(Slot,
                uint16_t(HSA_PACKET_TYPE_INVALID << HSA_PACKET_HEADER_TYPE));
    Q.storeRead(Index + 1, std::memory_order_release);
    Progress = true;
  }
  return Progress;
}

GpuQueueService::Outcome GpuQueueService::barrier(const void *Slot,
                                                  bool IsAnd) {
  hsa_barrier_and_packet_t P; // Same layout as barrier-OR.
  std::memcpy(&P, Slot, sizeof(P));
  for (hsa_signal_t Dep : P.dep_signal)
    if (Dep.handle && !liveSignals().contains(Signal::fromHandle(Dep))) {
      Q.reportError(HSA_STATUS_ERROR_INVALID_SIGNAL);
      return Outcome::Failed;
    }
  if (P.completion_signal.handle &&
      !liveSignals().contains(Signal::fromHandle(P.completion_signal))) {
    Q.reportError(HSA_STATUS_ERROR_INVALID_SIGNAL);
    return Outcome::Failed;
  }
  if (Modes.DeviceBarriers) {
    bool Mapped = !P.completion_signal.handle ||
                  mapSignal(Agent, Signal::fromHandle(P.completion_signal));
    for (hsa_signal_t Dep : P.dep_signal)
      Mapped =
          Mapped && (!Dep.handle || mapSignal(Agent, Signal::fromHandle(Dep)));
    if (Mapped)
      return deviceBarrier(P, IsAnd);
  }
  // On the host: earlier packets complete first where the barrier bit asks,
  // then the queue waits (asleep) for the dependencies.
  if (field(P.header, HSA_PACKET_HEADER_BARRIER,
            HSA_PACKET_HEADER_WIDTH_BARRIER) &&
      !Pending.empty())
    return Outcome::Blocked;
  bool Any = false, All = true, AnyDep = false;
  for (hsa_signal_t Dep : P.dep_signal) {
    if (!Dep.handle)
      continue;
    AnyDep = true;
    const bool Done =
        Signal::fromHandle(Dep)->load(std::memory_order_acquire) == 0;
    Any |= Done;
    All &= Done;
  }
  const bool Satisfied = IsAnd ? All : (Any || !AnyDep);
  if (!Satisfied) {
    if (Watched.empty())
      for (hsa_signal_t Dep : P.dep_signal)
        if (Dep.handle) {
          Signal::fromHandle(Dep)->addWatcher(&Wake);
          Watched.push_back(Signal::fromHandle(Dep));
        }
    return Outcome::Blocked;
  }
  unwatch();
  std::atomic_thread_fence(std::memory_order_acquire);
  complete(P.completion_signal, P.header);
  return Outcome::Consumed;
}

GpuQueueService::Outcome
GpuQueueService::deviceBarrier(const hsa_barrier_and_packet_t &P, bool IsAnd) {
  const CudaDriver &D = Agent.driver();
  std::array<const Signal *, 5> Deps{};
  unsigned N = 0;
  for (hsa_signal_t Dep : P.dep_signal)
    if (Dep.handle)
      Deps[N++] = Signal::fromHandle(Dep);
  // Stream order runs the barrier after every earlier packet: the barrier
  // bit needs nothing more.
  std::atomic_thread_fence(std::memory_order_acquire);
  if (IsAnd || N == 0) {
    // HSA barrier-AND: every dependency reaches 0 (a barrier-OR without
    // dependencies is satisfied at once).
    for (unsigned I = 0; I < N; ++I)
      if (CUresult R = D.StreamWaitValue64(
              Stream, CUdeviceptr(uintptr_t(Deps[I])), 0, StreamWaitValueEq);
          R != CUDA_SUCCESS) {
        log::write(log::Level::Error, "cannot wait on a signal on the GPU: %s",
                   D.errorText(R).c_str());
        Q.reportError(HSA_STATUS_ERROR_OUT_OF_RESOURCES);
        return Outcome::Failed;
      }
    return finishOnStream(P.completion_signal, P.header, Decrement::OnDevice,
                          true, IsAnd ? Deps : std::array<const Signal *, 5>{});
  }
  // Barrier-OR: a one-thread kernel polls the dependencies, then
  // decrements the completion signal.
  uint64_t Args[7];
  for (unsigned I = 0; I < 5; ++I)
    Args[I] =
        I < N ? uint64_t(uintptr_t(Deps[I])) : uint64_t(uintptr_t(&Ctl->Never));
  Args[5] = uint64_t(uintptr_t(&Ctl->Cancel));
  Args[6] = P.completion_signal.handle;
  void *Params[7];
  for (unsigned I = 0; I < 7; ++I)
    Params[I] = &Args[I];
  if (CUresult R = D.LaunchKernel(Agent.deviceKernels()->BarrierOr, 1, 1, 1, 1,
                                  1, 1, 0, Stream, Params, nullptr);
      R != CUDA_SUCCESS) {
    log::write(log::Level::Error, "cannot launch a barrier on the GPU: %s",
               D.errorText(R).c_str());
    Q.reportError(HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    return Outcome::Failed;
  }
  return finishOnStream(P.completion_signal, P.header,
                        Decrement::ByKernelBefore, true, {});
}

GpuQueueService::Outcome
GpuQueueService::finishOnStream(hsa_signal_t Completion, uint16_t Header,
                                Decrement How, bool Barrier,
                                const std::array<const Signal *, 5> &Waits) {
  const CudaDriver &D = Agent.driver();
  const Signal *S = Completion.handle && How != Decrement::OnHost
                        ? Signal::fromHandle(Completion)
                        : nullptr;
  if (S) {
    CUresult R = CUDA_SUCCESS;
    if (How == Decrement::OnDevice) {
      uint64_t Value = Completion.handle; // A signal's value is its 1st word.
      // A dispatch that executed debugtrap does not complete (retire).
      uint64_t Unless = Barrier ? 0 : uint64_t(uintptr_t(&Ctl->Trapped));
      void *Params[] = {&Value, &Unless};
      R = D.LaunchKernel(Agent.deviceKernels()->SignalSub, 1, 1, 1, 1, 1, 1, 0,
                         Stream, Params, nullptr);
    }
    // A dispatch's sleeping waiters are woken when its event completes:
    // a host function costs the stream tens of microseconds.
    if (R == CUDA_SUCCESS && Barrier)
      R = D.LaunchHostFunc(Stream, wakeSignalWaiters, const_cast<Signal *>(S));
    if (R != CUDA_SUCCESS) {
      log::write(log::Level::Error, "cannot signal completion on the GPU: %s",
                 D.errorText(R).c_str());
      Q.reportError(HSA_STATUS_ERROR_OUT_OF_RESOURCES);
      return Outcome::Failed;
    }
  }
  CUevent E = takeEvent();
  if (!E || D.EventRecord(E, Stream) != CUDA_SUCCESS) {
    Q.reportError(HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    return Outcome::Failed;
  }
  Pending.push_back(
      {E, S ? hsa_signal_t{0} : Completion, S, Header, Barrier, Waits});
  return Outcome::Consumed;
}

GpuQueueService::Outcome GpuQueueService::launch(uint64_t Index,
                                                 const void *Slot) {
  hsa_kernel_dispatch_packet_t P;
  std::memcpy(&P, Slot, sizeof(P));
  auto Fail = [&](hsa_status_t Status) {
    Q.reportError(Status);
    return Outcome::Failed;
  };
  const unsigned Dims =
      (P.setup >> HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS) &
      ((1u << HSA_KERNEL_DISPATCH_PACKET_SETUP_WIDTH_DIMENSIONS) - 1);
  if (Dims < 1 || Dims > 3)
    return Fail(HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  const uint32_t Grid[3] = {P.grid_size_x, P.grid_size_y, P.grid_size_z};
  const uint32_t Wg[3] = {P.workgroup_size_x, P.workgroup_size_y,
                          P.workgroup_size_z};
  bool Empty = false;
  for (unsigned D = 0; D < Dims; ++D)
    Empty |= Grid[D] == 0 || Wg[D] == 0;
  const Isa &I = Agent.isa();
  uint64_t WgItems = 1;
  for (unsigned D = 0; D < 3 && !Empty; ++D) {
    if (Grid[D] == 0 || Wg[D] == 0)
      return Fail(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
    if (D >= Dims && (Grid[D] != 1 || Wg[D] != 1))
      return Fail(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
    if (Wg[D] > I.WorkgroupMaxDim[D])
      return Fail(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
    // Blocks along Y and Z are limited by the device.
    const uint64_t Groups = (uint64_t(Grid[D]) + Wg[D] - 1) / Wg[D];
    if (Groups > Agent.info().MaxGridDim[D])
      return Fail(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
    WgItems *= Wg[D];
  }
  if (WgItems > I.WorkgroupMaxSize)
    return Fail(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
  if (!cpu::liveKernels().contains(
          reinterpret_cast<const void *>(uintptr_t(P.kernel_object))))
    return Fail(HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  const auto *K = cpu::KernelDescriptor::fromKernelObject(P.kernel_object);
  if (K->Owner != &Agent || !K->DeviceKernel)
    return Fail(HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  if (P.completion_signal.handle &&
      !liveSignals().contains(Signal::fromHandle(P.completion_signal)))
    return Fail(HSA_STATUS_ERROR_INVALID_SIGNAL);
  if (Empty) {
    std::atomic_thread_fence(std::memory_order_acquire);
    // In order with the launches before it.
    return finishOnStream(P.completion_signal, P.header,
                          completionDecrement(P.completion_signal), false, {});
  }
  if (K->KernargSegmentSize != 0 && !P.kernarg_address)
    return Fail(HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // Control directives the kernel was finalized with (PRM 13.4).
  if (K->HasConstraints) {
    if (!K->Constraints.admits(Dims, Grid, Wg))
      return Fail(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
    if (!K->Constraints.admitsGroupSegment(P.group_segment_size,
                                           K->GroupSegmentSize))
      return Fail(HSA_STATUS_ERROR_INVALID_ALLOCATION);
  }
  const uint64_t GroupBytes =
      std::max<uint64_t>(P.group_segment_size, K->GroupSegmentSize);
  if (GroupBytes > Agent.groupSegmentMax())
    return Fail(HSA_STATUS_ERROR_INVALID_ALLOCATION);

  std::atomic_thread_fence(std::memory_order_acquire);
  const auto *G = static_cast<const GpuKernel *>(K->DeviceKernel);
  GpuDispatchParams Params = {};
  for (unsigned D = 0; D < 3; ++D) {
    Params.GridSize[D] = Grid[D];
    Params.WorkgroupSize[D] = Wg[D];
  }
  Params.Dimensions = Dims;
  Params.PacketId = Index;
  Params.CompletionSignal = P.completion_signal.handle;
  Params.Queue = uint64_t(uintptr_t(Q.hsa()));
  Params.GroupSegmentSize = uint32_t(GroupBytes);
  Params.PrivateSegmentSize = K->PrivateSegmentSize;
  Params.TimestampOffset = Agent.timestampOffset();
  Params.TrapWords = uint64_t(uintptr_t(&Ctl->Trapped));
  // The driver copies the kernarg parameter's bytes at launch; a kernel
  // without arguments still has a 16-byte parameter.
  static const uint8_t NoArguments[16] = {};
  void *Kernarg = K->KernargSegmentSize ? P.kernarg_address
                                        : const_cast<uint8_t *>(NoArguments);
  // A kernel that guards the grid: one launch of whole blocks. Otherwise
  // full work-groups, then the partial ones at the end of each dimension:
  // each launch has blocks of one size, the current work-group size.
  for (unsigned Mask = 0; Mask < (G->GridGuard ? 1u : 8u); ++Mask) {
    uint32_t Blocks[3], Threads[3];
    bool Skip = false;
    for (unsigned D = 0; D < 3; ++D) {
      const uint32_t Full =
                         G->GridGuard
                             ? uint32_t((uint64_t(Grid[D]) + Wg[D] - 1) / Wg[D])
                             : Grid[D] / Wg[D],
                     Rest = G->GridGuard ? 0 : Grid[D] % Wg[D];
      const bool Partial = Mask & (1u << D);
      Blocks[D] = Partial ? 1 : Full;
      Threads[D] = Partial ? Rest : Wg[D];
      Params.GroupOffset[D] = Partial ? Full : 0;
      Skip |= Blocks[D] == 0 || Threads[D] == 0;
    }
    if (Skip)
      continue;
    void *Args[] = {Kernarg, &Params};
    if (CUresult R = Agent.driver().LaunchKernel(
            G->Function, Blocks[0], Blocks[1], Blocks[2], Threads[0],
            Threads[1], Threads[2], unsigned(GroupBytes), Stream, Args,
            nullptr);
        R != CUDA_SUCCESS) {
      log::write(log::Level::Error, "cannot launch a kernel on the GPU: %s",
                 Agent.driver().errorText(R).c_str());
      return Fail(HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    }
  }
  return finishOnStream(P.completion_signal, P.header,
                        completionDecrement(P.completion_signal), false, {});
}

GpuQueueService::Decrement
GpuQueueService::completionDecrement(hsa_signal_t Completion) const {
  return Modes.DeviceCompletion && Completion.handle &&
                 mapSignal(Agent, Signal::fromHandle(Completion))
             ? Decrement::OnDevice
             : Decrement::OnHost;
}

} // namespace openhsa::gpu
