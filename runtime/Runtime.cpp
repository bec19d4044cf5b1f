//===- runtime/Runtime.cpp - The runtime instance behind the C API --------===//
#include "runtime/Runtime.h"

#include "cpu_agent/AgentDispatchAgent.h"
#include "cpu_agent/CpuAgent.h"
#include "cpu_agent/KernelDescriptor.h"
#include "cpu_agent/KernelFaults.h"
#include "gpu_backend/GpuAgent.h"
#include "runtime/CodeObjectStore.h"
#include "runtime/core/Clock.h"
#include "runtime/core/Futex.h"
#include "runtime/core/Log.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

namespace openhsa {

/// The first GPU agent, whose driver pins registered memory for every GPU
/// agent (portable registrations); null without GPU agents.
static const gpu::GpuAgent *
firstGpuAgent(const std::vector<std::unique_ptr<Agent>> &Agents) {
  for (const auto &A : Agents)
    if (A->deviceType() == HSA_DEVICE_TYPE_GPU)
      return static_cast<const gpu::GpuAgent *>(A.get());
  return nullptr;
}


/// How long hsa_shut_down and hsa_queue_destroy wait for work-groups still
/// running kernel code before they cancel them (README "Behaviour worth
/// knowing"): far longer than a kernel that is merely slow takes at
/// teardown, far shorter than a harness waits before it gives up and kills
/// the process. OPENHSA_TEARDOWN_GRACE_MS changes it.
constexpr uint64_t DefaultTeardownGraceMs = 2'000;

static uint64_t teardownGraceNs() {
  const char *V = std::getenv("OPENHSA_TEARDOWN_GRACE_MS");
  if (!V || !*V)
    return DefaultTeardownGraceMs * 1'000'000;
  char *End = nullptr;
  errno = 0;
  const unsigned long long Ms = std::strtoull(V, &End, 10);
  // At most a day: beyond it a harness has long given up, and the sum with
  // the clock stays far from overflowing.
  if (*End || errno || V[0] == '-' || Ms > 86'400'000ull) {
    log::write(log::Level::Warning,
               "OPENHSA_TEARDOWN_GRACE_MS=%s is not a number of milliseconds "
               "up to 86400000; using %llu",
               V, static_cast<unsigned long long>(DefaultTeardownGraceMs));
    return DefaultTeardownGraceMs * 1'000'000;
  }
  return uint64_t(Ms) * 1'000'000;
}

std::mutex Runtime::LifetimeMutex;
uint32_t Runtime::RefCount = 0;
std::atomic<Runtime *> Runtime::Current{nullptr};

hsa_status_t notImplemented(const char *Function, hsa_status_t Status,
                            const char *Why) {
  static std::mutex Mutex;
  static std::set<std::string> Reported;
  std::lock_guard<std::mutex> Lock(Mutex);
  if (log::threshold() >= log::Level::Warning &&
      Reported.insert(Function).second)
    log::write(log::Level::Warning, "%s is not available yet: %s", Function,
               Why);
  return Status;
}

hsa_status_t Runtime::acquire() {
  std::lock_guard<std::mutex> Lock(LifetimeMutex);
  if (RefCount == UINT32_MAX)
    return HSA_STATUS_ERROR_REFCOUNT_OVERFLOW;
  if (RefCount == 0) {
    std::unique_ptr<Runtime> R(new Runtime());
    if (hsa_status_t S = R->initialize(); S != HSA_STATUS_SUCCESS)
      return S;
    Current.store(R.release(), std::memory_order_release);
    // Faults of kernel code end their queue, not the process.
    cpu::installFaultHandler();
  }
  ++RefCount;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t Runtime::release() {
  std::lock_guard<std::mutex> Lock(LifetimeMutex);
  if (RefCount == 0)
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (--RefCount == 0) {
    Runtime *R = Current.exchange(nullptr, std::memory_order_acq_rel);
    delete R;
    // No kernel code runs any more, and the library may be unloaded next:
    // the handlers we replaced take over again.
    cpu::removeFaultHandler();
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t Runtime::initialize() {
  auto T = Topology::discover();
  if (!T) {
    log::write(log::Level::Error, "%s", llvm::toString(T.takeError()).c_str());
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  Topo = std::move(*T);
  TeardownGraceNs = teardownGraceNs();
  // Threads that wait spin first only where another processing unit can
  // run what they wait for.
  size_t Allowed = 0;
  for (const CpuNodeInfo &Node : Topo->nodes())
    Allowed = std::max(Allowed, Node.AllowedUnits.size());
  setSpinningHelps(Allowed > 1);
  // Kernel agents first (programs often take the first CPU agent to run
  // kernels), then each node's agent dispatch agent (README: Agents).
  unsigned Ordinal = 0;
  std::vector<cpu::CpuAgent *> KernelAgents;
  for (const CpuNodeInfo &Node : Topo->nodes()) {
    auto A = std::make_unique<cpu::CpuAgent>(*Topo, Node, Ordinal++);
    KernelAgents.push_back(A.get());
    Agents.push_back(std::move(A));
  }
  for (cpu::CpuAgent *Kernel : KernelAgents)
    Agents.push_back(std::make_unique<cpu::AgentDispatchAgent>(*Kernel, *Topo));
  // GPU agents last, one per CUDA device; none without a driver.
  for (auto &G : gpu::GpuAgent::discover(*Topo, Ordinal))
    Agents.push_back(std::move(G));
  CodeObjects = std::make_unique<CodeObjectStore>();
  return HSA_STATUS_SUCCESS;
}

uint64_t Runtime::cancelDeadline() const {
  return monotonicNanoseconds() + TeardownGraceNs;
}

Runtime::~Runtime() {
  // Queues first: their processors may still reference signals. One grace
  // period for all of them: work-groups still running kernel code after it
  // are cancelled, so that a kernel that never finishes cannot hang the
  // shut-down.
  const uint64_t CancelAtNs = cancelDeadline();
  for (auto &[Hsa, Owner] : KernelQueues)
    Owner->destroyQueue(Queue::fromHsa(Hsa), CancelAtNs);
  KernelQueues.clear();
  SoftQueues.clear();
  // Executables next (no dispatch can be in flight now): their kernels
  // leave cpu::liveKernels() and their code is unmapped.
  CodeObjects.reset();
  // Buffers the application did not free go back to their regions while
  // the agents owning those regions still exist.
  for (auto &[Ptr, A] : Allocations)
    A.Home->free(const_cast<char *>(Ptr), A.Size);
  Allocations.clear();
  // Registrations the application left: unpinned while the driver's
  // context is still held.
  if (const gpu::GpuAgent *G = firstGpuAgent(Agents))
    for (auto &[Ptr, Reg] : Registered)
      if (Reg.Pinned)
        gpu::unpinHostMemory(*G, const_cast<char *>(Ptr));
  Registered.clear();
  // Agent dispatch agents before the kernel agents whose processors they
  // share.
  while (!Agents.empty())
    Agents.pop_back();
  for (auto &[Ptr, S] : Signals)
    liveSignals().remove(Ptr);
  Signals.clear();
  Groups.clear();
  // Native kernels registered through the openhsa extension die with the
  // agents they were made for.
  for (const cpu::KernelDescriptor *K : cpu::liveKernels().snapshot()) {
    cpu::liveKernels().remove(K);
    delete K;
  }
  // Every thread the runtime started (packet processors, their workers)
  // has been joined with its agent: the library may be unloaded now.
}

Agent *Runtime::agent(hsa_agent_t H) const {
  for (const auto &A : Agents)
    if (A.get() == Agent::fromHandle(H))
      return A.get();
  return nullptr;
}

Region *Runtime::region(hsa_region_t H) const {
  for (const auto &A : Agents)
    for (const auto &R : A->regions())
      if (R.get() == Region::fromHandle(H))
        return R.get();
  return nullptr;
}

bool Runtime::isIsa(hsa_isa_t H) const {
  for (const auto &A : Agents)
    for (const Isa *I : A->isas())
      if (I == Isa::fromHandle(H))
        return true;
  return false;
}

const Cache *Runtime::cache(hsa_cache_t H) const {
  for (const auto &A : Agents)
    for (const auto &C : A->caches())
      if (C.get() == Cache::fromHandle(H))
        return C.get();
  return nullptr;
}

Queue *Runtime::queue(const hsa_queue_t *Q) const {
  std::lock_guard<std::mutex> Lock(QueuesMutex);
  if (KernelQueues.count(Q) || SoftQueues.count(Q))
    return Queue::fromHsa(Q);
  return nullptr;
}

Signal *Runtime::createSignal(int64_t InitialValue,
                              std::vector<const Agent *> Consumers) {
  auto S = std::make_unique<Signal>(InitialValue, std::move(Consumers));
  Signal *Raw = S.get();
  std::lock_guard<std::mutex> Lock(SignalsMutex);
  Signals.emplace(Raw, std::move(S));
  liveSignals().add(Raw);
  return Raw;
}

bool Runtime::destroySignal(hsa_signal_t H) {
  std::unique_ptr<Signal> Gone;
  {
    std::lock_guard<std::mutex> Lock(SignalsMutex);
    auto It = Signals.find(Signal::fromHandle(H));
    if (It == Signals.end())
      return false;
    liveSignals().remove(It->first);
    Gone = std::move(It->second);
    Signals.erase(It);
  }
  return true;
}

SignalGroup *Runtime::createSignalGroup(std::vector<const Signal *> Members) {
  auto G = std::make_unique<SignalGroup>();
  G->Signals = std::move(Members);
  SignalGroup *Raw = G.get();
  std::lock_guard<std::mutex> Lock(SignalsMutex);
  Groups.emplace(Raw, std::move(G));
  return Raw;
}

bool Runtime::destroySignalGroup(hsa_signal_group_t H) {
  std::lock_guard<std::mutex> Lock(SignalsMutex);
  return Groups.erase(SignalGroup::fromHandle(H)) != 0;
}

SignalGroup *Runtime::signalGroup(hsa_signal_group_t H) const {
  std::lock_guard<std::mutex> Lock(SignalsMutex);
  auto It = Groups.find(SignalGroup::fromHandle(H));
  return It == Groups.end() ? nullptr : It->second.get();
}

hsa_status_t Runtime::createQueue(Agent &A, const QueueRequest &Request,
                                  hsa_queue_t **Result) {
  Queue *Q = nullptr;
  hsa_status_t S = A.createQueue(Request, NextQueueId.fetch_add(1), Q);
  if (S != HSA_STATUS_SUCCESS)
    return S;
  std::lock_guard<std::mutex> Lock(QueuesMutex);
  KernelQueues.emplace(Q->hsa(), &A);
  *Result = Q->hsa();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t Runtime::createSoftQueue(Region &R, uint32_t Size,
                                      hsa_queue_type32_t Type,
                                      uint32_t Features, Signal &Doorbell,
                                      hsa_queue_t **Result) {
  Queue::Config C;
  C.Size = Size;
  C.Type = Type;
  C.Features = Features;
  C.ExternalDoorbell = &Doorbell;
  C.AllocateRing = [](size_t Bytes, void *Ctx) {
    return static_cast<Region *>(Ctx)->allocate(Bytes);
  };
  C.FreeRing = [](void *P, size_t Bytes, void *Ctx) {
    static_cast<Region *>(Ctx)->free(P, Bytes);
  };
  C.RingCtx = &R;
  std::unique_ptr<Queue> Q = Queue::create(C, NextQueueId.fetch_add(1));
  if (!Q)
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  std::lock_guard<std::mutex> Lock(QueuesMutex);
  *Result = Q->hsa();
  SoftQueues.emplace(Q->hsa(), std::move(Q));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t Runtime::destroyQueue(const hsa_queue_t *Hsa) {
  Agent *Owner = nullptr;
  std::unique_ptr<Queue> Soft;
  {
    std::lock_guard<std::mutex> Lock(QueuesMutex);
    if (auto It = KernelQueues.find(Hsa); It != KernelQueues.end()) {
      Owner = It->second;
      KernelQueues.erase(It);
    } else if (auto It = SoftQueues.find(Hsa); It != SoftQueues.end()) {
      Soft = std::move(It->second);
      SoftQueues.erase(It);
    } else {
      return HSA_STATUS_ERROR_INVALID_QUEUE;
    }
  }
  if (Owner)
    Owner->destroyQueue(Queue::fromHsa(Hsa), cancelDeadline());
  return HSA_STATUS_SUCCESS;
}

hsa_status_t Runtime::allocate(Region &R, size_t Size, void **Ptr) {
  if (!R.isAllocatable() || Size > R.maxAllocation())
    return HSA_STATUS_ERROR_INVALID_ALLOCATION;
  void *P = R.allocate(Size);
  if (!P)
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  std::unique_lock Lock(MemoryMutex);
  Allocations.emplace(static_cast<const char *>(P),
                      Allocation{Size, &R, &R.owner()});
  *Ptr = P;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t Runtime::free(void *Ptr) {
  Allocation A;
  {
    std::unique_lock Lock(MemoryMutex);
    auto It = Allocations.find(static_cast<const char *>(Ptr));
    if (It == Allocations.end())
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    A = It->second;
    Allocations.erase(It);
  }
  A.Home->free(Ptr, A.Size);
  return HSA_STATUS_SUCCESS;
}

const Region *Runtime::deviceRegionOf(const void *Ptr) const {
  const char *P = static_cast<const char *>(Ptr);
  std::shared_lock Lock(MemoryMutex);
  auto It = Allocations.upper_bound(P);
  if (It == Allocations.begin())
    return nullptr;
  --It;
  if (P >= It->first + std::max<size_t>(It->second.Size, 1) ||
      It->second.Home->hostAccessible())
    return nullptr;
  return It->second.Home;
}

bool Runtime::ownedBuffer(const void *Ptr, const Agent **Owner) const {
  const char *P = static_cast<const char *>(Ptr);
  std::shared_lock Lock(MemoryMutex);
  auto It = Allocations.upper_bound(P);
  if (It == Allocations.begin())
    return false;
  --It;
  if (P >= It->first + It->second.Size)
    return false;
  if (Owner)
    *Owner = It->second.Owner;
  return true;
}

hsa_status_t Runtime::assignAgent(void *Ptr, Agent &A) {
  const char *P = static_cast<const char *>(Ptr);
  std::unique_lock Lock(MemoryMutex);
  auto It = Allocations.upper_bound(P);
  if (It == Allocations.begin())
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  --It;
  if (P >= It->first + It->second.Size)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  It->second.Owner = &A;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t Runtime::registerMemory(void *Ptr, size_t Size) {
  std::unique_lock Lock(MemoryMutex);
  auto &Entry = Registered[static_cast<const char *>(Ptr)];
  // Host memory is the CPU agents' already; GPU agents reach it once it is
  // pinned and mapped (the base profile's contract, Runtime 2.7.4).
  if (Entry.Count == 0 && Size)
    if (const gpu::GpuAgent *G = firstGpuAgent(Agents)) {
      gpu::PinResult R = gpu::pinHostMemory(*G, Ptr, Size);
      if (R == gpu::PinResult::Failed) {
        Registered.erase(static_cast<const char *>(Ptr));
        return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
      }
      Entry.Pinned = R == gpu::PinResult::Pinned;
    }
  Entry.Size = std::max(Entry.Size, Size);
  ++Entry.Count;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t Runtime::deregisterMemory(void *Ptr, size_t Size) {
  std::unique_lock Lock(MemoryMutex);
  auto It = Registered.find(static_cast<const char *>(Ptr));
  if (It == Registered.end() || It->second.Size < Size)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (--It->second.Count == 0) {
    if (It->second.Pinned)
      if (const gpu::GpuAgent *G = firstGpuAgent(Agents))
        gpu::unpinHostMemory(*G, Ptr);
    Registered.erase(It);
  }
  return HSA_STATUS_SUCCESS;
}

} // namespace openhsa
