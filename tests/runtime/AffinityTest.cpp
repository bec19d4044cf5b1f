//===- tests/runtime/AffinityTest.cpp - A process on fewer CPUs -----------===//
//
// A process whose CPU affinity mask holds fewer processing units than the
// machine (taskset -c 0, a cpuset) must run kernels and shut down at normal
// speed, and the CPU agent reports the cores it can use
// (HSA_EXT_OPENHSA_AGENT_INFO_COMPUTE_UNIT_COUNT) and runs one worker per
// allowed unit (max_compute_unit_id).
//
// Runtime.OneProcessingUnit* run this binary again with AffinityChild.* and
// a few dispatch tests, restricted to one processing unit (the first, then
// the last of this process's mask), and fail when the child does not end in
// time. Once, the child hung in hsa_shut_down: oneTBB's blocking finalize
// never returned where the mask held one unit and the runtime had raised
// oneTBB's worker limit to the machine's size.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include <csignal>
#include <cstdlib>
#include <sched.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace openhsa::test {
namespace {

using namespace std::chrono_literals;

constexpr const char *ChildVariable = "OPENHSA_TEST_AFFINITY_CHILD";

std::vector<int> allowedCpus() {
  cpu_set_t Set;
  CPU_ZERO(&Set);
  std::vector<int> Cpus;
  if (sched_getaffinity(0, sizeof(Set), &Set) == 0)
    for (int C = 0; C < CPU_SETSIZE; ++C)
      if (CPU_ISSET(C, &Set))
        Cpus.push_back(C);
  return Cpus;
}

/// Runs this binary with --gtest_filter=Filter on CPU Cpu alone. Returns its
/// exit status, or -1 where it was still running after Limit (then killed).
int runOnOneCpu(int Cpu, const std::string &Filter,
                std::chrono::seconds Limit) {
  // Everything the child needs is built before fork: after it, only
  // async-signal-safe calls.
  std::string FilterArg = "--gtest_filter=" + Filter;
  std::string Marker = std::string(ChildVariable) + "=1";
  char Self[] = "/proc/self/exe";
  char *Argv[] = {Self, FilterArg.data(), nullptr};
  std::vector<char *> Envp;
  for (char **E = environ; *E; ++E)
    Envp.push_back(*E);
  Envp.push_back(Marker.data());
  Envp.push_back(nullptr);
  cpu_set_t Set;
  CPU_ZERO(&Set);
  CPU_SET(Cpu, &Set);

  const pid_t Pid = fork();
  if (Pid == 0) {
    if (sched_setaffinity(0, sizeof(Set), &Set) != 0)
      _exit(125);
    execve(Self, Argv, Envp.data());
    _exit(126);
  }
  if (Pid < 0)
    return -2;
  const auto Deadline = std::chrono::steady_clock::now() + Limit;
  int Status = 0;
  for (;;) {
    const pid_t Done = waitpid(Pid, &Status, WNOHANG);
    if (Done == Pid)
      return WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status);
    if (std::chrono::steady_clock::now() > Deadline) {
      kill(Pid, SIGKILL);
      waitpid(Pid, &Status, 0);
      return -1;
    }
    std::this_thread::sleep_for(10ms);
  }
}

/// What the child runs: dispatches of many work-groups on every queue kind
/// of path (inline and on the workers), shut-down included.
constexpr const char *ChildTests =
    "AffinityChild.*:DispatchGrid.*:DispatchSegments.*:DispatchOrdering."
    "BarrierAnd";
/// Far above what the child needs (well under a second here).
constexpr std::chrono::seconds ChildLimit{90};

TEST(Runtime, OneProcessingUnitFirst) {
  if (std::getenv(ChildVariable))
    GTEST_SKIP() << "in the child already";
  const std::vector<int> Cpus = allowedCpus();
  ASSERT_FALSE(Cpus.empty());
  EXPECT_EQ(runOnOneCpu(Cpus.front(), ChildTests, ChildLimit), 0)
      << "on CPU " << Cpus.front() << " alone (-1: still running after "
      << ChildLimit.count() << " s)";
}

// Any single unit, not only CPU 0 (where a mask and the topology could
// agree by chance).
TEST(Runtime, OneProcessingUnitLast) {
  if (std::getenv(ChildVariable))
    GTEST_SKIP() << "in the child already";
  const std::vector<int> Cpus = allowedCpus();
  ASSERT_FALSE(Cpus.empty());
  if (Cpus.size() < 2)
    GTEST_SKIP() << "this process may use one CPU only";
  EXPECT_EQ(runOnOneCpu(Cpus.back(), ChildTests, ChildLimit), 0)
      << "on CPU " << Cpus.back() << " alone (-1: still running after "
      << ChildLimit.count() << " s)";
}

//===-- In the child, on one processing unit ------------------------------===//

using AffinityChild = RuntimeTest;

struct SlotArgs {
  uint32_t *Runs;    // Per work-group.
  uint32_t *MaxCuId; // max_compute_unit_id seen.
  uint32_t *BadCuId; // compute_unit_id above it.
};

void slotKernel(const void *Kernarg,
                const hsa_ext_openhsa_dispatch_context_t *C, uint32_t Gx,
                uint32_t, uint32_t) {
  const auto *A = static_cast<const SlotArgs *>(Kernarg);
  std::atomic_ref<uint32_t>(A->Runs[Gx]).fetch_add(1);
  std::atomic_ref<uint32_t>(*A->MaxCuId).store(C->max_compute_unit_id);
  if (C->compute_unit_id > C->max_compute_unit_id)
    std::atomic_ref<uint32_t>(*A->BadCuId).fetch_add(1);
}

// One allowed unit: one compute unit reported, one worker (slot 0) plus the
// packet processor's slot (1), and every work-group runs once.
TEST_F(AffinityChild, OneWorkerForOneUnit) {
  if (!std::getenv(ChildVariable))
    GTEST_SKIP() << "runs restricted to one CPU, from Runtime.OneProcessing*";
  uint32_t Units = 0;
  ASSERT_EQ(hsa_agent_get_info(
                Cpu,
                hsa_agent_info_t(HSA_EXT_OPENHSA_AGENT_INFO_COMPUTE_UNIT_COUNT),
                &Units),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(Units, 1u);

  constexpr uint32_t Groups = 4096;
  std::vector<uint32_t> Runs(Groups, 0);
  uint32_t MaxCuId = UINT32_MAX, BadCuId = 0;
  auto *Args = allocKernarg<SlotArgs>();
  *Args = {Runs.data(), &MaxCuId, &BadCuId};
  const uint64_t Kernel = makeKernel(slotKernel, sizeof(SlotArgs));
  hsa_queue_t *Q = makeQueue();
  hsa_signal_t Done = makeSignal(1);
  // Twice: the first dispatch of a kernel goes to the worker, a later small
  // one may run on the packet processor thread.
  for (int Round = 0; Round < 2; ++Round) {
    hsa_signal_store_relaxed(Done, 1);
    auto P = dispatchPacket(Kernel, Args, 1, {Groups, 1, 1}, {1, 1, 1}, Done);
    submitPacket(Q, &P, packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH));
    ASSERT_EQ(waitUntil(Done, HSA_SIGNAL_CONDITION_EQ, 0), 0);
  }
  for (uint32_t G = 0; G < Groups; ++G)
    ASSERT_EQ(Runs[G], 2u) << "work-group " << G;
  EXPECT_EQ(MaxCuId, 1u);
  EXPECT_EQ(BadCuId, 0u);
  hsa_signal_destroy(Done);
  hsa_queue_destroy(Q);
  Ext.hsa_ext_openhsa_native_kernel_destroy(Kernel);
  hsa_memory_free(Args);
}

} // namespace
} // namespace openhsa::test
