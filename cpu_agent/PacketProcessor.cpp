//===- cpu_agent/PacketProcessor.cpp - AQL packet processing on the CPU ---===//
#include "cpu_agent/PacketProcessor.h"

#include "cpu_agent/CallsJitCode.h"
#include "cpu_agent/GroupSlices.h"
#include "cpu_agent/KernelDescriptor.h"
#include "cpu_agent/KernelFaults.h"
#include "cpu_agent/KernelHelpers.h"
#include "runtime/core/Clock.h"
#include "runtime/core/Log.h"
#include "runtime/core/Registry.h"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>

namespace openhsa::cpu {

namespace {

/// How long the processor thread keeps polling after its last packet before
/// it sleeps. Long enough to catch the next packet of a host thread that
/// submits back to back; short enough that an idle process costs nothing.
constexpr uint64_t IdleSpinNs = 50'000;

/// A dispatch whose work-groups took less than this, all told, the last
/// time its kernel ran, runs on the processor thread alone: waking the
/// workers would cost more (tens of microseconds on a small virtual
/// machine). Where it turns out slower this time, the workers are woken
/// once this much has passed.
constexpr uint64_t InlineBudgetNs = 30'000;
/// Work-items along X that a run of work-groups of a kernel that allows
/// them covers (abi/CpuDispatchContext.h RunGroups), where the groups are
/// narrower: 256 groups of 16, rows of 16 KiB of floats. The 5-point
/// stencil of 4096^2 floats in 16x16 groups on the 2-core development VM,
/// ms, twin 3.6-4.2: one group at a time 7.8-7.9, runs of 1024 work-items
/// 6.1-6.6, of 4096 4.5-5.1, of 16384 4.7-5.4.
/// OPENHSA_CPU_RUN_ITEMS overrides it (0: one group at a time).
constexpr uint32_t DefaultRunItems = 4096;
/// How long the processor thread runs work-groups of a dispatch that the
/// workers share, before it goes back to its queues.
constexpr uint64_t HelpBudgetNs = 50'000;
/// The processor thread claims chunks of about this much work, so that it
/// looks at the clock often enough to keep the two budgets.
constexpr uint64_t ProcessorChunkNs = 5'000;
/// The least work, in microseconds by the kernel's last dispatch, in a
/// chunk of work-groups that the threads share (OPENHSA_CPU_MIN_CHUNK_US
/// overrides it): a claim moves the claim counter's cache line
/// (WorkGroupPool.h), and sixteen threads claiming chunks of a microsecond
/// each spend most of it waiting for that line.
constexpr uint32_t DefaultMinChunkUs = 8;

/// How long detach polls (yielding) before it sleeps between checks, and
/// the longest of those sleeps: completions and acknowledgements wake it
/// sooner, but whether the processor thread went into another queue's
/// kernel code is not notified.
constexpr uint64_t DetachSpinNs = 50'000;
constexpr int64_t DetachSleepNs = 1'000'000;
/// How often detach asks again the threads that still run kernel code of a
/// cancelled dispatch (a request finds a thread in a runtime helper that
/// disarmed, or its work-group not yet started, and does nothing).
constexpr uint64_t CancelRetryNs = 10'000'000;

uint16_t loadHeader(const void *Slot, std::memory_order Order) {
  return std::atomic_ref<uint16_t>(
             *static_cast<uint16_t *>(const_cast<void *>(Slot)))
      .load(Order);
}

void storeHeader(void *Slot, uint16_t Header) {
  std::atomic_ref<uint16_t>(*static_cast<uint16_t *>(Slot))
      .store(Header, std::memory_order_release);
}

unsigned packetType(uint16_t Header) {
  return (Header >> HSA_PACKET_HEADER_TYPE) &
         ((1u << HSA_PACKET_HEADER_WIDTH_TYPE) - 1);
}

bool fieldSet(uint16_t Header, unsigned Bit, unsigned Width) {
  return ((Header >> Bit) & ((1u << Width) - 1)) != 0;
}

/// Applies the acquire fence a packet asks for before it launches.
void acquireFence(uint16_t Header) {
  if (fieldSet(Header, HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE,
               HSA_PACKET_HEADER_WIDTH_SCACQUIRE_FENCE_SCOPE))
    std::atomic_thread_fence(std::memory_order_acquire);
}

/// A count from the environment (Default where unset or not a number).
uint32_t envCount(const char *Name, uint32_t Default) {
  const char *V = std::getenv(Name);
  if (!V || !*V)
    return Default;
  char *End = nullptr;
  const unsigned long N = std::strtoul(V, &End, 10);
  return *End || N > UINT32_MAX ? Default : uint32_t(N);
}

bool envFlag(const char *Name, bool Default) {
  const char *V = std::getenv(Name);
  if (!V || !*V)
    return Default;
  return !(V[0] == '0' || V[0] == 'n' || V[0] == 'N' || V[0] == 'f' ||
           V[0] == 'F');
}

} // namespace

/// Everything a launched dispatch needs after its packet slot is reused.
struct PacketProcessor::DispatchJob final : GroupJob {
  DispatchJob(PacketProcessor &Processor, uint64_t TotalGroups,
              uint64_t MinChunk)
      : GroupJob(TotalGroups, MinChunk), Processor(Processor) {}

  PacketProcessor &Processor;
  hsa_kernel_dispatch_packet_t Packet;
  const KernelDescriptor *Kernel;
  Queue *Q;
  std::shared_ptr<QueueState> State;
  hsa_ext_openhsa_dispatch_context_t Context;
  uint64_t GroupsX, GroupsXY;
  /// The job's units are Slices.Parts slices of each work-group.
  GroupSlices Slices;
  /// Or whole work-groups, run up to this many at a time along X, row by
  /// row (abi/CpuDispatchContext.h), where they are whole along X (below
  /// WholeGroupsX).
  uint32_t RunGroups = 1;
  uint64_t WholeGroupsX = 0;
  size_t GroupBytes;   // Static + dynamic group segment.
  size_t PrivateBytes; // For a whole work-group.
  /// A work-group faulted, or the dispatch was cancelled and some of its
  /// work-groups did not run to their end (KernelFaults.h): the others are
  /// skipped and the dispatch never completes.
  std::atomic<bool> Stopped{false};

  void run(uint64_t Begin, uint64_t End, unsigned Slot) override {
    Processor.runWorkGroups(*this, Begin, End, Slot);
  }
  void finished() override { Processor.finishDispatch(*this); }
};

PacketProcessor::PacketProcessor(const Agent &Owner, unsigned Workers,
                                 std::function<void()> BindWorker,
                                 const DispatchLimits &Limits,
                                 const AgentDispatchTable &AgentDispatch)
    : Owner(Owner), Limits(Limits), AgentDispatch(AgentDispatch),
      Scratch(Workers + 1), InlineSlot(Workers),
      InlineSmallDispatches(envFlag("OPENHSA_CPU_INLINE_DISPATCH", true)),
      SliceFewGroups(envFlag("OPENHSA_CPU_SLICES", true)),
      RunItems(envCount("OPENHSA_CPU_RUN_ITEMS", DefaultRunItems)),
      MinChunkNs(
          uint64_t(envCount("OPENHSA_CPU_MIN_CHUNK_US", DefaultMinChunkUs)) *
          1000),
      Runners(std::make_unique<Runner[]>(Workers + 1)),
      Pool(Workers, [Bind = std::move(BindWorker)] {
        acceptKernelCancellation();
        if (Bind)
          Bind();
      }) {
  registerKernelHelpers(); // Before any finalized code can be loaded.
  for (unsigned Slot = 0; Slot < Workers; ++Slot)
    Runners[Slot].Thread = Pool.nativeHandle(Slot);
  Thread = std::thread([this] {
    acceptKernelCancellation();
    run();
  });
  // Read by detach only, after attach published a queue under Mutex.
  Runners[InlineSlot].Thread = Thread.native_handle();
}

PacketProcessor::~PacketProcessor() {
  Stopping.store(true, std::memory_order_seq_cst);
  Wake.notify();
  Thread.join();
  // Every queue is detached, so no dispatch is in flight; the pool joins
  // its workers when it goes (the last member).
}

void PacketProcessor::attach(Queue &Q) {
  auto S = std::make_shared<QueueState>();
  S->Q = &Q;
  std::lock_guard<std::mutex> Lock(Mutex);
  Queues.push_back(std::move(S));
  Generation.fetch_add(1, std::memory_order_release);
  Q.setProcessor(this);
  // Doorbell stores wake this thread for as long as the queue is attached.
  Q.doorbell().addWatcher(&Wake);
  Wake.notify();
}

void PacketProcessor::detach(Queue &Q, uint64_t CancelAtNs) {
  std::shared_ptr<QueueState> Gone;
  uint64_t Target;
  {
    std::unique_lock<std::mutex> Lock(Mutex);
    for (auto It = Queues.begin(); It != Queues.end(); ++It) {
      if ((*It)->Q == &Q) {
        Gone = *It;
        Queues.erase(It);
        break;
      }
    }
    if (!Gone)
      return;
    // seq_cst: releasedQueue's reading of InlineKernelOf must come after it
    // in the single total order (see run()).
    Target = Generation.fetch_add(1, std::memory_order_seq_cst) + 1;
    Q.doorbell().removeWatcher(&Wake);
  }
  Wake.notify();
  // Wait until the processor thread no longer looks at Q and the kernels
  // already launched from Q have retired. From the processor thread itself
  // (a queue callback destroying a queue) the first holds already: the
  // thread rereads its queue list before it looks at another packet.
  // Past CancelAtNs, what still runs of Q's dispatches is cancelled.
  const bool OnProcessorThread = std::this_thread::get_id() == Thread.get_id();
  bool Released = OnProcessorThread;
  const uint64_t Start = monotonicNanoseconds();
  uint64_t LastCancel = 0;
  for (;;) {
    const uint32_t Epoch = Wake.epoch();
    Released = Released || releasedQueue(*Gone, Target);
    if (Released && Gone->InFlight.load(std::memory_order_acquire) == 0)
      break;
    const uint64_t Now = monotonicNanoseconds();
    if (Now >= CancelAtNs &&
        (LastCancel == 0 || Now - LastCancel >= CancelRetryNs)) {
      cancel(*Gone, Now - Start, LastCancel == 0);
      LastCancel = Now;
      continue;
    }
    if (Now - Start < DetachSpinNs && spinningHelps()) {
      yieldCpu();
      continue;
    }
    int64_t Sleep = DetachSleepNs;
    if (Now < CancelAtNs)
      Sleep = int64_t(std::min<uint64_t>(uint64_t(Sleep), CancelAtNs - Now));
    Wake.sleep(Epoch, Sleep);
  }
  // A fault or a cancellation that the processor thread did not get to
  // report (it no longer looks at Q): the callback runs here.
  if (const int Error = Gone->PendingError.exchange(HSA_STATUS_SUCCESS,
                                                    std::memory_order_acquire);
      Error != HSA_STATUS_SUCCESS)
    Q.reportError(hsa_status_t(Error));
}

bool PacketProcessor::releasedQueue(const QueueState &Gone, uint64_t Target) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (SeenGeneration >= Target)
      return true;
  }
  // In kernel code of another queue, the processor thread comes back to
  // that queue's packets, then to run(), which rereads the queue list
  // before it looks at another queue. (In Gone's kernel code it comes
  // back to Gone's packets.)
  const QueueState *InKernel = InlineKernelOf.load(std::memory_order_seq_cst);
  return InKernel && InKernel != &Gone;
}

void PacketProcessor::cancel(QueueState &S, uint64_t WaitedNs, bool First) {
  if (First)
    log::write(log::Level::Error,
               "queue %llu still ran kernel code %llu ms after it was "
               "destroyed (hsa_queue_destroy or hsa_shut_down): its "
               "dispatches are cancelled and the queue is inactive",
               static_cast<unsigned long long>(S.Q->hsa()->id),
               static_cast<unsigned long long>(WaitedNs / 1'000'000));
  // Before anything else: every work-group that starts from now on is
  // skipped, and the handler jumps out of every one running.
  S.Cancelled.store(true, std::memory_order_seq_cst);
  S.Q->inactivate(); // No later packet of S starts.
  // Work-groups nobody claimed yet (the workers may all be busy with other
  // queues' kernels) are retired unrun, so S's dispatches end.
  for (const std::shared_ptr<GroupJob> &J : Pool.queued()) {
    auto &D = static_cast<DispatchJob &>(*J);
    if (D.State.get() != &S)
      continue;
    if (const uint64_t Skipped = D.claimRest()) {
      D.Stopped.store(true, std::memory_order_relaxed);
      D.retire(Skipped);
    }
  }
  // The threads in S's kernel code. A thread that went on to other work
  // meanwhile ignores the request (its kernel's cancel flag is not set).
  for (unsigned Slot = 0; Slot <= InlineSlot; ++Slot)
    if (Runners[Slot].Running.load(std::memory_order_acquire) == &S)
      interruptKernelCode(Runners[Slot].Thread);
}

void PacketProcessor::refreshQueues() {
  uint64_t G = Generation.load(std::memory_order_acquire);
  if (G == SeenGeneration)
    return;
  std::lock_guard<std::mutex> Lock(Mutex);
  for (auto &S : Active) {
    bool StillAttached = false;
    for (auto &Q : Queues)
      StillAttached |= Q == S;
    if (!StillAttached)
      unwatch(*S);
  }
  Active = Queues;
  SeenGeneration = Generation.load(std::memory_order_acquire);
  Wake.notify(); // For detach, which waits on it.
}

void PacketProcessor::run() {
  uint64_t IdleSince = 0;
  for (;;) {
    const uint32_t Epoch = Wake.epoch();
    refreshQueues();
    if (Stopping.load(std::memory_order_acquire))
      break;
    bool Progress = false;
    for (auto &S : Active) {
      Progress |= processQueue(*S);
      // seq_cst: detach may have stopped waiting for this thread because
      // it ran another queue's kernel code (releasedQueue); then this load
      // sees detach's new generation, and the queue it took away is not
      // looked at again.
      if (Generation.load(std::memory_order_seq_cst) != SeenGeneration)
        break; // A queue went away meanwhile; reread the list first.
    }
    if (Progress) {
      IdleSince = 0;
      continue;
    }
    const uint64_t Now = monotonicNanoseconds();
    if (IdleSince == 0)
      IdleSince = Now;
    if (spinningHelps() && Now - IdleSince < IdleSpinNs) {
      for (int I = 0; I < 16; ++I)
        cpuRelax();
      yieldCpu(); // To a thread with work, where CPUs are short.
      continue;
    }
    // A GPU kernel's doorbell store wakes nobody: while such kernels may
    // run, the thread re-checks its queues now and then.
    const int64_t Sleep = Signal::sleepBeforeRecheckNs(Now - IdleSince);
    Wake.sleep(Epoch, Sleep);
    if (Sleep < 0)
      IdleSince = 0;
  }
  std::lock_guard<std::mutex> Lock(Mutex);
  for (auto &S : Active)
    unwatch(*S);
}

void PacketProcessor::unwatch(QueueState &S) {
  for (const Signal *Dep : S.Watched)
    Dep->removeWatcher(&Wake);
  S.Watched.clear();
}

bool PacketProcessor::processQueue(QueueState &S) {
  Queue &Q = *S.Q;
  if (const int Error = S.PendingError.exchange(HSA_STATUS_SUCCESS,
                                                std::memory_order_acquire);
      Error != HSA_STATUS_SUCCESS) {
    Q.reportError(hsa_status_t(Error));
    return true; // The queue is inactive now, maybe destroyed.
  }
  bool Progress = false;
  while (Q.isActive()) {
    const uint64_t Index = Q.loadRead(std::memory_order_relaxed);
    void *Slot = Q.slot(Index);
    const uint16_t Header = loadHeader(Slot, std::memory_order_acquire);
    const unsigned Type = packetType(Header);
    if (Type == HSA_PACKET_TYPE_INVALID)
      break; // The producer has not published this packet yet.
    if (fieldSet(Header, HSA_PACKET_HEADER_BARRIER,
                 HSA_PACKET_HEADER_WIDTH_BARRIER) &&
        S.InFlight.load(std::memory_order_acquire) != 0)
      break; // Earlier packets must complete first.

    // A queue takes the dispatch packets of its features (those of its
    // agent: kernel dispatch on a kernel agent, agent dispatch on an agent
    // dispatch agent) and barriers.
    const uint32_t Features = Q.config().Features;
    if ((Type == HSA_PACKET_TYPE_KERNEL_DISPATCH &&
         !(Features & HSA_QUEUE_FEATURE_KERNEL_DISPATCH)) ||
        (Type == HSA_PACKET_TYPE_AGENT_DISPATCH &&
         !(Features & HSA_QUEUE_FEATURE_AGENT_DISPATCH))) {
      Q.reportError(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
      return true;
    }

    Outcome O;
    switch (Type) {
    case HSA_PACKET_TYPE_KERNEL_DISPATCH:
      O = launchDispatch(S, Index, Slot);
      break;
    case HSA_PACKET_TYPE_BARRIER_AND:
    case HSA_PACKET_TYPE_BARRIER_OR:
      O = processBarrier(S, Index, Slot, Type == HSA_PACKET_TYPE_BARRIER_AND);
      break;
    case HSA_PACKET_TYPE_AGENT_DISPATCH:
      O = processAgentDispatch(S, Index, Slot);
      break;
    default: // Vendor-specific packets of other vendors, or garbage.
      Q.reportError(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
      return true;
    }
    if (O == Outcome::Blocked)
      break;
    if (O == Outcome::Failed)
      return true;   // The queue is inactive now, maybe destroyed.
    Progress = true; // The handler released the packet's slot.
  }
  return Progress;
}

void PacketProcessor::releaseSlot(QueueState &S, uint64_t Index) {
  storeHeader(S.Q->slot(Index),
              uint16_t(HSA_PACKET_TYPE_INVALID << HSA_PACKET_HEADER_TYPE));
  S.Q->storeRead(Index + 1, std::memory_order_release);
}

void PacketProcessor::complete(hsa_signal_t Completion, uint16_t Header) {
  if (fieldSet(Header, HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE,
               HSA_PACKET_HEADER_WIDTH_SCRELEASE_FENCE_SCOPE))
    std::atomic_thread_fence(std::memory_order_release);
  if (Completion.handle)
    Signal::fromHandle(Completion)->fetchSub(1);
}

PacketProcessor::Outcome PacketProcessor::launchDispatch(QueueState &S,
                                                         uint64_t Index,
                                                         const void *Slot) {
  Queue &Q = *S.Q;
  hsa_kernel_dispatch_packet_t P;
  std::memcpy(&P, Slot, sizeof(P));
  auto Fail = [&](hsa_status_t Status) {
    Q.reportError(Status);
    return Outcome::Failed;
  };

  // Geometry (HSA Runtime 2.8.2: unused dimensions must be 1).
  const unsigned Dims =
      (P.setup >> HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS) &
      ((1u << HSA_KERNEL_DISPATCH_PACKET_SETUP_WIDTH_DIMENSIONS) - 1);
  // 0 dimensions (or 4 and more, whose bits read as 0 in the two-bit field)
  // are INCOMPATIBLE_ARGUMENTS: the 1.2 text only says "valid values are 1,
  // 2, or 3" and names no status, and the HSA Foundation conformance suite
  // (async_invalid_dimensions) expects this one.
  if (Dims < 1 || Dims > 3)
    return Fail(HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  const uint32_t Grid[3] = {P.grid_size_x, P.grid_size_y, P.grid_size_z};
  const uint32_t Wg[3] = {P.workgroup_size_x, P.workgroup_size_y,
                          P.workgroup_size_z};
  // A grid or work-group size of 0 in a used dimension makes an empty grid:
  // the packet completes without running a work-item (what the HSA
  // Foundation's conformance suite, aql_zero_wg_size, expects). Nothing of
  // the geometry matters then, the unused dimensions included.
  bool Empty = false;
  for (unsigned D = 0; D < Dims; ++D)
    Empty |= Grid[D] == 0 || Wg[D] == 0;
  uint64_t WgItems = 1;
  for (unsigned D = 0; D < 3 && !Empty; ++D) {
    if (Grid[D] == 0 || Wg[D] == 0)
      return Fail(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
    if (D >= Dims && (Grid[D] != 1 || Wg[D] != 1))
      return Fail(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
    if (Wg[D] > Limits.WorkgroupMaxDim)
      return Fail(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
    WgItems *= Wg[D];
  }
  if (WgItems > Limits.WorkgroupMaxSize)
    return Fail(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);

  // The kernel object and completion signal must name live objects.
  if (!liveKernels().contains(
          reinterpret_cast<const void *>(uintptr_t(P.kernel_object))))
    return Fail(HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  const KernelDescriptor *K =
      KernelDescriptor::fromKernelObject(P.kernel_object);
  if (K->Owner != &Owner)
    return Fail(HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  if (P.completion_signal.handle &&
      !liveSignals().contains(Signal::fromHandle(P.completion_signal)))
    return Fail(HSA_STATUS_ERROR_INVALID_SIGNAL);
  if (Empty) {
    acquireFence(P.header);
    releaseSlot(S, Index);
    complete(P.completion_signal, P.header);
    return Outcome::Released;
  }
  if (K->KernargSegmentSize != 0 && !P.kernarg_address)
    return Fail(HSA_STATUS_ERROR_INVALID_ARGUMENT);

  // Control directives the kernel was finalized with (PRM 13.4): a dispatch
  // that breaks them would run the kernel outside what it was compiled for.
  if (K->HasConstraints) {
    if (!K->Constraints.admits(Dims, Grid, Wg))
      return Fail(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
    if (!K->Constraints.admitsGroupSegment(P.group_segment_size,
                                           K->GroupSegmentSize))
      return Fail(HSA_STATUS_ERROR_INVALID_ALLOCATION);
  }

  // The kernel compiled for this dispatch's shape, or with wrap checks
  // where its guard fails, where it has such variants
  // (runtime/ShapeVariants.h).
  if (K->Variants)
    if (const KernelDescriptor *V =
            K->Variants->variantFor(Dims, Grid, Wg, P.kernarg_address))
      K = V;
  // A kernel whose code was deferred, and failed to finalize now (the log
  // says why).
  if (!K->Entry)
    return Fail(HSA_STATUS_ERROR_INVALID_CODE_OBJECT);

  // Segments: the packet's sizes cover static and dynamic group memory; a
  // packet that asks for less than the kernel's static need gets that need.
  const uint64_t GroupBytes =
      std::max<uint64_t>(P.group_segment_size, K->GroupSegmentSize);
  const uint64_t PrivatePerItem =
      std::max<uint64_t>(P.private_segment_size, K->PrivateSegmentSize);
  if (GroupBytes > Limits.GroupSegmentMax ||
      PrivatePerItem > Limits.PrivateSegmentMax)
    return Fail(HSA_STATUS_ERROR_INVALID_ALLOCATION);

  acquireFence(P.header);

  const uint64_t Gx = (uint64_t(Grid[0]) + Wg[0] - 1) / Wg[0];
  const uint64_t Gy = (uint64_t(Grid[1]) + Wg[1] - 1) / Wg[1];
  const uint64_t Gz = (uint64_t(Grid[2]) + Wg[2] - 1) / Wg[2];
  // Few work-groups that run long (or not run yet) are cut into slices
  // where the kernel allows: the threads share them more evenly.
  const uint64_t Groups = Gx * Gy * Gz;
  const uint64_t PerGroupNs = K->NanosPerGroup.load(std::memory_order_relaxed);
  const bool Small = PerGroupNs != 0 && Groups <= InlineBudgetNs / PerGroupNs;
  const GroupSlices Slices =
      Small || !SliceFewGroups
          ? GroupSlices{}
          : chooseSlices(K->SliceStep, Wg, Groups, Pool.workers() + 1);
  // Shared chunks of at least about MinChunkNs of work by the last
  // dispatch's measure (WorkGroupPool.h), but no more than half a fair
  // share of the runners, so that each gets some.
  const uint64_t Units = Groups * Slices.Parts;
  const uint64_t PerUnitNs = PerGroupNs / Slices.Parts;
  const uint64_t MinChunk =
      PerUnitNs == 0
          ? 1
          : std::max<uint64_t>(
                1, std::min<uint64_t>(MinChunkNs / PerUnitNs,
                                      Units / (2 * (Pool.workers() + 1))));
  auto Job = std::make_shared<DispatchJob>(*this, Units, MinChunk);
  Job->Slices = Slices;
  if (K->GroupRuns && Slices.Parts == 1 && RunItems) {
    Job->RunGroups = std::max<uint32_t>(1, RunItems / Wg[0]);
    Job->WholeGroupsX = Grid[0] / Wg[0];
  }
  Job->Packet = P;
  Job->Kernel = K;
  Job->Q = &Q;
  Job->State = S.shared_from_this();
  Job->GroupsX = Gx;
  Job->GroupsXY = Gx * Gy;
  Job->GroupBytes = size_t(GroupBytes);
  Job->PrivateBytes = size_t(PrivatePerItem * WgItems);
  hsa_ext_openhsa_dispatch_context_t &C = Job->Context;
  C.packet = &Job->Packet;
  C.queue = Q.hsa();
  C.packet_id = Index;
  C.group_base = nullptr;
  C.private_base = nullptr;
  C.group_segment_size = uint32_t(GroupBytes);
  C.private_segment_size = uint32_t(PrivatePerItem);
  C.dimensions = Dims;
  for (unsigned D = 0; D < 3; ++D) {
    C.grid_size[D] = Grid[D];
    C.workgroup_size[D] = Wg[D];
  }
  C.grid_groups[0] = uint32_t(Gx);
  C.grid_groups[1] = uint32_t(Gy);
  C.grid_groups[2] = uint32_t(Gz);
  C.user_data = K->UserData;
  C.max_compute_unit_id = InlineSlot; // The workers' slots, then this thread.

  S.InFlight.fetch_add(1, std::memory_order_acq_rel);
  // The packet is copied (Job->Packet): its slot goes back before any
  // work-group runs, and so before the dispatch can complete.
  releaseSlot(S, Index);
  if (!InlineSmallDispatches) {
    Pool.submit(std::move(Job));
    return Outcome::Released;
  }
  // Small dispatches (by what the kernel's work-groups cost last time) run
  // here alone; others go to the workers at once, and this thread helps
  // for a while. Either way the work-groups are claimed in order, so a
  // dispatch moved to the workers half way keeps that order.
  const uint64_t Total = Job->Total;
  bool Shared = Total > 1 && !Small;
  if (Shared)
    Pool.submit(Job);
  // A single work-group longer than the help budget would overrun it, and
  // would run beside the pool's workers, one per core, on a core that one
  // of them has: nbody's 32 work-groups of 1.1 ms on 16 cores took four
  // rounds instead of two. The workers take them all.
  if (Shared && PerUnitNs > HelpBudgetNs)
    return Outcome::Released;
  // Chunks start at one work-group and double up to about ProcessorChunkNs
  // of work by the estimate: a kernel much slower than last time overruns
  // the budget by about as much as it had run when it was caught. Of a
  // kernel whose groups run in runs, chunks start at about RunItems
  // work-items: a run needs a chunk of several groups (one at a time, a
  // first dispatch that this thread ran alone had none). Its work-items
  // run straight through or loop only in their own memory (the median's
  // sort of nine values), microseconds for that many; once the dispatch
  // has an estimate, MaxChunk bounds the chunks of a slower kernel.
  const uint64_t FirstChunk =
      Job->RunGroups > 1 ? std::max<uint64_t>(1, RunItems / WgItems) : 1;
  const uint64_t MaxChunk =
      PerUnitNs == 0 ? FirstChunk
                     : std::max<uint64_t>(1, ProcessorChunkNs / PerUnitNs);
  uint64_t Chunk = FirstChunk;
  const uint64_t Start = monotonicNanoseconds();
  // For detach (releasedQueue): until this is reset, this thread looks at
  // no queue but S.
  InlineKernelOf.store(&S, std::memory_order_seq_cst);
  GroupJob::Ran Mine;
  while (Job->runChunk(InlineSlot, Shared ? Pool.workers() + 1 : 1,
                       std::min(Chunk, MaxChunk), Mine)) {
    Chunk *= 2;
    const uint64_t Elapsed = monotonicNanoseconds() - Start;
    if (!Shared && Elapsed > InlineBudgetNs && !Job->exhausted()) {
      Pool.submit(Job); // Slower than it was: the workers take over.
      Shared = true;
    } else if (Shared && Elapsed > HelpBudgetNs) {
      break;
    }
  }
  InlineKernelOf.store(nullptr, std::memory_order_seq_cst);
  Job->retire(Mine); // Last: it may complete the dispatch.
  return Outcome::Released;
}

void PacketProcessor::finishDispatch(DispatchJob &Job) {
  // What the work-groups cost, for the next dispatch of the kernel; before
  // the completion, after which the program may destroy the kernel. The
  // estimate falls at once and rises at most twofold a dispatch: one
  // measurement that a preemption or a page fault inflated must not send
  // every later small dispatch to the workers, and a kernel that really got
  // slower costs an inline dispatch at most its budget before the workers
  // take over (launchDispatch).
  const uint64_t Groups = Job.Total / Job.Slices.Parts;
  const uint64_t Measured = std::max<uint64_t>(
      1, Job.busyNanoseconds() / std::max<uint64_t>(Groups, 1));
  const uint64_t Before =
      Job.Kernel->NanosPerGroup.load(std::memory_order_relaxed);
  Job.Kernel->NanosPerGroup.store(Before == 0 ? Measured
                                              : std::min(Measured, 2 * Before),
                                  std::memory_order_relaxed);
  // A faulted or cancelled dispatch leaves its completion signal alone,
  // like every later packet of the now inactive queue (README); the
  // processor thread (or detach) reports the error.
  if (!Job.Stopped.load(std::memory_order_relaxed))
    complete(Job.Packet.completion_signal, Job.Packet.header);
  else
    Job.State->PendingError.store(HSA_STATUS_ERROR_EXCEPTION,
                                  std::memory_order_release);
  Job.State->InFlight.fetch_sub(1, std::memory_order_acq_rel);
  Wake.notify();
}

namespace {

/// What runGroups needs, through runKernelCode's one pointer.
struct GroupRun {
  abi::CpuDispatchContext *Context;
  hsa_ext_openhsa_workgroup_fn_t Entry;
  const void *Kernarg;
  uint64_t Begin, End, GroupsX, GroupsXY; // Begin, End: units.
  const GroupSlices *Slices;
  uint32_t RunGroups;
  uint64_t WholeGroupsX;
  const std::atomic<bool> *Stopped;   // The dispatch's.
  const std::atomic<bool> *Cancelled; // The queue's.
  bool SkippedCancelled = false;      // Out: work-groups left unrun.
};

/// Runs units [Begin, End) of a dispatch (its work-groups, or their
/// slices: unit U is slice U % Parts of work-group U / Parts), unless one
/// of its work-groups faulted meanwhile (in another chunk) or the dispatch
/// is being cancelled.
OPENHSA_CALLS_JIT_CODE
void runGroups(void *Data) {
  GroupRun &R = *static_cast<GroupRun *>(Data);
  const uint32_t Parts = R.Slices->Parts;
  // Flattened ID G = X + Y * GroupsX + Z * GroupsXY, in increasing order.
  const uint64_t First = R.Begin / Parts;
  uint32_t Part = uint32_t(R.Begin % Parts);
  uint64_t Z = First / R.GroupsXY;
  const uint64_t Rem = First - Z * R.GroupsXY;
  uint64_t Y = Rem / R.GroupsX;
  uint64_t X = Rem - Y * R.GroupsX;
  const uint64_t GroupsY = R.GroupsXY / R.GroupsX;
  for (uint64_t U = R.Begin; U < R.End;) {
    if (R.Stopped->load(std::memory_order_relaxed))
      return;
    if (R.Cancelled->load(std::memory_order_relaxed)) {
      R.SkippedCancelled = true;
      return;
    }
    uint64_t Run = 1; // Work-groups this call runs.
    if (Parts > 1) {
      R.Slices->select(Part, *R.Context);
    } else if (R.RunGroups > 1) {
      Run =
          X + 1 < R.WholeGroupsX
              ? std::min<uint64_t>({R.RunGroups, R.End - U, R.WholeGroupsX - X})
              : 1;
      R.Context->RunGroups = uint32_t(Run);
    }
    R.Entry(R.Kernarg, &R.Context->Public, uint32_t(X), uint32_t(Y),
            uint32_t(Z));
    U += Run;
    if (++Part < Parts)
      continue;
    Part = 0;
    X += Run;
    if (X == R.GroupsX) {
      X = 0;
      if (++Y == GroupsY) {
        Y = 0;
        ++Z;
      }
    }
  }
}

const char *signalName(int Sig) {
  switch (Sig) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  }
  return "a signal";
}

} // namespace

bool PacketProcessor::runWorkGroups(DispatchJob &Job, uint64_t Begin,
                                    uint64_t End, unsigned Slot) {
  abi::CpuDispatchContext Whole;
  Whole.Public = Job.Context;
  Whole.wholeGroup();
  hsa_ext_openhsa_dispatch_context_t &C = Whole.Public;
  C.compute_unit_id = Slot;
  const size_t PrivateOffset = (Job.GroupBytes + 63) & ~size_t(63);
  const size_t Bytes = PrivateOffset + Job.PrivateBytes;
  if (Bytes) {
    char *Base = static_cast<char *>(Scratch.get(Slot, Bytes));
    if (!Base) {
      // Out of memory for segments: nothing sensible can run. The kernel's
      // work-groups are skipped and the queue reports the error.
      Job.Q->reportError(HSA_STATUS_ERROR_OUT_OF_RESOURCES);
      return true;
    }
    C.group_base = Job.GroupBytes ? Base : nullptr;
    C.private_base = Job.PrivateBytes ? Base + PrivateOffset : nullptr;
  }
  GroupRun Run{&Whole,
               Job.Kernel->Entry,
               Job.Packet.kernarg_address,
               Begin,
               End,
               Job.GroupsX,
               Job.GroupsXY,
               &Job.Slices,
               Job.RunGroups,
               Job.WholeGroupsX,
               &Job.Stopped,
               &Job.State->Cancelled};
  // The recovery point is armed around this chunk of work-groups only, in
  // this thread: a fault, or a cancel request while the queue's Cancelled
  // is set, skips the rest of the chunk, never a frame of the pool's or
  // the packet processor's. Kernel code holds no lock of ours where it can
  // be interrupted (KernelHelpers.cpp), so nothing stays locked. Running
  // tells cancel() whom to interrupt: a plain store, since cancel() asks
  // again until the dispatch has retired, a request that raced with it
  // comes again.
  Runner &Self = Runners[Slot];
  Self.Running.store(Job.State.get(), std::memory_order_release);
  const int Sig = runKernelCode(&runGroups, &Run, &Job.State->Cancelled);
  Self.Running.store(nullptr, std::memory_order_release);
  if (Sig == 0 && !Run.SkippedCancelled)
    return true;
  Job.Stopped.store(true, std::memory_order_relaxed);
  if (Sig == KernelCancelled || Sig == 0)
    return false; // cancel() made the queue inactive and logged why.
  log::write(log::Level::Error,
             "a kernel faulted (%s) in dispatch %llu of queue %llu; the queue "
             "is inactive now",
             signalName(Sig),
             static_cast<unsigned long long>(Job.Context.packet_id),
             static_cast<unsigned long long>(Job.Q->hsa()->id));
  Job.Q->inactivate(); // No later packet starts meanwhile.
  return false;
}

PacketProcessor::Outcome PacketProcessor::processBarrier(QueueState &S,
                                                         uint64_t Index,
                                                         const void *Slot,
                                                         bool IsAnd) {
  hsa_barrier_and_packet_t P; // Same layout as the OR packet.
  static_assert(sizeof(hsa_barrier_and_packet_t) ==
                sizeof(hsa_barrier_or_packet_t));
  std::memcpy(&P, Slot, sizeof(P));

  bool AnyDep = false, AnyZero = false, AllZero = true;
  for (const hsa_signal_t &Dep : P.dep_signal) {
    if (!Dep.handle)
      continue;
    if (!liveSignals().contains(Signal::fromHandle(Dep))) {
      unwatch(S);
      S.Q->reportError(HSA_STATUS_ERROR_INVALID_SIGNAL);
      return Outcome::Failed;
    }
    AnyDep = true;
    bool Zero = Signal::fromHandle(Dep)->load(std::memory_order_acquire) == 0;
    AnyZero |= Zero;
    AllZero &= Zero;
  }
  // AND: every dependency is 0. OR: any is 0; with no dependency at all
  // an OR packet is satisfied at once, like an AND packet.
  const bool Satisfied = IsAnd ? AllZero : (AnyZero || !AnyDep);
  if (!Satisfied) {
    if (!S.Watched.empty())
      return Outcome::Blocked; // Any change of a dependency notifies Wake.
    // Watch the dependencies, then look again: a change that landed before
    // the watchers did would otherwise go unnoticed.
    for (const hsa_signal_t &Dep : P.dep_signal)
      if (Dep.handle) {
        const Signal *Sig = Signal::fromHandle(Dep);
        Sig->addWatcher(&Wake);
        S.Watched.push_back(Sig);
      }
    return processBarrier(S, Index, Slot, IsAnd);
  }
  unwatch(S);
  if (P.completion_signal.handle &&
      !liveSignals().contains(Signal::fromHandle(P.completion_signal))) {
    S.Q->reportError(HSA_STATUS_ERROR_INVALID_SIGNAL);
    return Outcome::Failed;
  }
  acquireFence(P.header);
  releaseSlot(S, Index);
  complete(P.completion_signal, P.header);
  return Outcome::Released;
}

PacketProcessor::Outcome
PacketProcessor::processAgentDispatch(QueueState &S, uint64_t Index,
                                      const void *Slot) {
  hsa_agent_dispatch_packet_t P;
  std::memcpy(&P, Slot, sizeof(P));
  auto Handler = AgentDispatch.find(P.type);
  if (!Handler) {
    S.Q->reportError(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
    return Outcome::Failed;
  }
  if (P.completion_signal.handle &&
      !liveSignals().contains(Signal::fromHandle(P.completion_signal))) {
    S.Q->reportError(HSA_STATUS_ERROR_INVALID_SIGNAL);
    return Outcome::Failed;
  }
  acquireFence(P.header);
  hsa_status_t Status =
      Handler->Function(P.type, P.arg, P.return_address, Handler->Data);
  if (Status != HSA_STATUS_SUCCESS) {
    S.Q->reportError(Status);
    return Outcome::Failed;
  }
  releaseSlot(S, Index);
  complete(P.completion_signal, P.header);
  return Outcome::Released;
}

} // namespace openhsa::cpu
