//===- tests/finalizer/SystemTest.cpp - Queues, clock, exceptions ---------===//
//
// PRM 11.2-11.4, 5.16, 5.17: user mode queue instructions on the runtime's
// own queues (runtime/core/Queue.h), a kernel enqueueing a packet and
// ringing the doorbell, clock, cuid/maxcuid, debugtrap, the DETECT
// exception flags, segment conversions, segment null pointers and segment
// addresses of variables.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

#include "cpu_agent/KernelHelpers.h"
#include "runtime/core/Clock.h"
#include "runtime/core/Queue.h"

using namespace openhsa::test;
using openhsa::Queue;
using openhsa::Signal;
using openhsa::WakeWord;

namespace {

class SystemTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { openhsa::cpu::registerKernelHelpers(); }
};

/// Errors a queue reported through its callback.
struct ErrorLog {
  std::vector<hsa_status_t> Statuses;
  static void callback(hsa_status_t S, hsa_queue_t *, void *Data) {
    static_cast<ErrorLog *>(Data)->Statuses.push_back(S);
  }
};

std::unique_ptr<Queue> makeQueue(ErrorLog *Log = nullptr) {
  Queue::Config C;
  C.Size = 16;
  if (Log) {
    C.Callback = &ErrorLog::callback;
    C.CallbackData = Log;
  }
  return Queue::create(C, 1);
}

const char *Indices = R"(
module &m:1:0:$full:$large:$default;
kernel &indices(kernarg_u64 %q, kernarg_u64 %out)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%q];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	ldqueuewriteindex_global_rlx_u64	$d2, [$d0];
	st_global_u64	$d2, [$d1];
	ldqueuereadindex_global_scacq_u64	$d3, [$d0];
	st_global_u64	$d3, [$d1+8];
	addqueuewriteindex_global_scar_u64	$d4, [$d0], 3;
	st_global_u64	$d4, [$d1+16];
	casqueuewriteindex_global_scar_u64	$d5, [$d0], $d4, 100;
	st_global_u64	$d5, [$d1+24];
	add_u64	$d6, $d4, 3;
	casqueuewriteindex_scacq_u64	$d7, [$d0], $d6, 10;
	st_global_u64	$d7, [$d1+32];
	stqueuereadindex_global_screl_u64	[$d0], 7;
	stqueuewriteindex_rlx_u64	[$d0], 12;
	ldqueuewriteindex_scacq_u64	$d8, [$d0];
	st_global_u64	$d8, [$d1+40];
	ldqueuereadindex_rlx_u64	$d9, [$d0];
	st_global_u64	$d9, [$d1+48];
	addqueuewriteindex_screl_u64	$d10, [$d0], 0;
	st_global_u64	$d10, [$d1+56];
	ret;
};
)";

// PRM 11.3: each queue instruction on a runtime queue's indices.
TEST_F(SystemTest, QueueIndexInstructions) {
  auto P = finalizeText(Indices);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  auto Q = makeQueue();
  ASSERT_NE(Q, nullptr);
  Q->storeWrite(5, std::memory_order_relaxed);
  Q->storeRead(2, std::memory_order_relaxed);
  uint64_t Out[8] = {};
  struct {
    hsa_queue_t *Q;
    uint64_t *Out;
  } K{Q->hsa(), Out};
  runKernel(*P, "&indices", Grid{}, &K);
  EXPECT_EQ(Out[0], 5u);  // ldqueuewriteindex
  EXPECT_EQ(Out[1], 2u);  // ldqueuereadindex
  EXPECT_EQ(Out[2], 5u);  // addqueuewriteindex returns the old index: 5 -> 8
  EXPECT_EQ(Out[3], 8u);  // cas fails (5 != 8), returns 8
  EXPECT_EQ(Out[4], 8u);  // cas succeeds: 8 -> 10
  EXPECT_EQ(Out[5], 12u); // after stqueuewriteindex
  EXPECT_EQ(Out[6], 7u);  // after stqueuereadindex
  EXPECT_EQ(Out[7], 12u);
  EXPECT_EQ(Q->loadWrite(std::memory_order_relaxed), 12u);
  EXPECT_EQ(Q->loadRead(std::memory_order_relaxed), 7u);
}

const char *Reserve = R"(
module &m:1:0:$full:$large:$default;
kernel &reserve(kernarg_u64 %q, kernarg_u64 %ids)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%q];
	addqueuewriteindex_global_rlx_u64	$d1, [$d0], 1;
	workitemflatabsid_u32	$s0;
	shl_u64	$d2, $d1, 2;
	ld_kernarg_align(8)_width(all)_u64	$d3, [%ids];
	add_u64	$d3, $d3, $d2;
	st_global_u32	$s0, [$d3];
	ret;
};
)";

// Many producers reserving slots at once (PRM 11.3 addqueuewriteindex):
// every work-item gets its own packet id.
TEST_F(SystemTest, ConcurrentSlotReservationsAreUnique) {
  auto P = finalizeText(Reserve);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  auto Q = makeQueue();
  ASSERT_NE(Q, nullptr);
  const uint32_t N = 100000;
  std::vector<uint32_t> Ids(N, UINT32_MAX);
  struct {
    hsa_queue_t *Q;
    uint32_t *Ids;
  } K{Q->hsa(), Ids.data()};
  Grid G;
  G.Size[0] = N;
  G.WorkGroup[0] = 250;
  RunOptions O;
  O.Threads = 8;
  runKernelWith(*P, "&reserve", G, &K, O);
  EXPECT_EQ(Q->loadWrite(std::memory_order_relaxed), N);
  std::vector<bool> Seen(N, false);
  for (uint32_t Id : Ids) {
    ASSERT_LT(Id, N);
    ASSERT_FALSE(Seen[Id]);
    Seen[Id] = true;
  }
}

const char *Enqueue = R"(
module &m:1:0:$full:$large:$default;
kernel &enqueue(kernarg_u64 %q, kernarg_u64 %marker, kernarg_u32 %header)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%q];
	addqueuewriteindex_global_scar_u64	$d1, [$d0], 1;
	ld_global_u64	$d2, [$d0+8];
	ld_global_u32	$s0, [$d0+24];
	sub_u32	$s0, $s0, 1;
	cvt_u64_u32	$d3, $s0;
	and_b64	$d4, $d1, $d3;
	shl_u64	$d4, $d4, 6;
	add_u64	$d2, $d2, $d4;
	ld_kernarg_align(8)_width(all)_u64	$d5, [%marker];
	st_global_u64	$d5, [$d2+16];
	st_global_u64	$d1, [$d2+24];
	ld_kernarg_align(4)_width(all)_u32	$s1, [%header];
	atomicnoret_st_global_screl_system_b32	[$d2], $s1;
	ld_global_u64	$d6, [$d0+16];
	signalnoret_st_screl_b64_sig64	$d6, $d1;
	ret;
};
)";

// A kernel enqueues an agent dispatch packet on a queue and rings its
// doorbell (PRM 11.3, 6.8): the packet is in its slot, published by its
// header, and whoever watches the doorbell is woken.
TEST_F(SystemTest, KernelEnqueuesAPacketAndRingsTheDoorbell) {
  auto P = finalizeText(Enqueue);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  auto Q = makeQueue();
  ASSERT_NE(Q, nullptr);
  Q->storeWrite(21, std::memory_order_relaxed); // Slot 21 & 15 = 5.
  Q->doorbell().store(-1);
  WakeWord Word;
  Q->doorbell().addWatcher(&Word);
  const uint32_t Epoch = Word.epoch();
  const uint16_t Header =
      (HSA_PACKET_TYPE_AGENT_DISPATCH << HSA_PACKET_HEADER_TYPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  const uint16_t Type = 0x8001;
  struct {
    hsa_queue_t *Q;
    uint64_t Marker;
    uint32_t Header;
  } K{Q->hsa(), 0xc0ffee, uint32_t(Header) | uint32_t(Type) << 16};
  runKernel(*P, "&enqueue", Grid{}, &K);
  EXPECT_EQ(Q->loadWrite(std::memory_order_relaxed), 22u);
  EXPECT_EQ(Q->doorbell().load(std::memory_order_acquire), 21);
  // A GPU kernel's store cannot wake a host thread: the runtime's packet
  // processors re-check their doorbells instead (tests/gpu
  // KernelsEnqueueAgentDispatchesOnTheHost).
  if (!runsOnGpu()) {
    EXPECT_NE(Word.epoch(), Epoch) << "ringing the doorbell woke nobody";
  }
  Q->doorbell().removeWatcher(&Word);
  hsa_agent_dispatch_packet_t Packet;
  std::memcpy(&Packet, Q->slot(21), sizeof(Packet));
  EXPECT_EQ(Packet.header, Header);
  EXPECT_EQ(Packet.type, Type);
  EXPECT_EQ(Packet.arg[0], 0xc0ffeeu);
  EXPECT_EQ(Packet.arg[1], 21u);
}

const char *Misc = R"(
module &m:1:0:$full:$large:$default;
kernel &misc(kernarg_u64 %out)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%out];
	workgroupid_u32	$s0, 0;
	cvt_u64_u32	$d1, $s0;
	shl_u64	$d1, $d1, 5;
	add_u64	$d0, $d0, $d1;
	clock_u64	$d2;
	clock_u64	$d3;
	st_global_u64	$d2, [$d0];
	st_global_u64	$d3, [$d0+8];
	cuid_u32	$s1;
	maxcuid_u32	$s2;
	st_global_u32	$s1, [$d0+16];
	st_global_u32	$s2, [$d0+20];
	ret;
};
)";

// PRM 11.4: clock reads the system timestamp (the host's, in order with
// host reads around the dispatch); cuid is between 0 and maxcuid, the
// worker threads of the dispatch.
TEST_F(SystemTest, ClockAndComputeUnitIds) {
  auto P = finalizeText(Misc);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  struct Record {
    uint64_t T0, T1;
    uint32_t Cuid, MaxCuid;
    uint64_t Pad;
  };
  for (unsigned Threads : {1u, 4u}) {
    std::vector<Record> Out(64);
    Record *Ptr = Out.data();
    Grid G;
    G.Size[0] = 64;
    RunOptions O;
    O.Threads = Threads;
    const uint64_t Before = openhsa::systemTimestamp();
    runKernelWith(*P, "&misc", G, &Ptr, O);
    const uint64_t After = openhsa::systemTimestamp();
    for (const Record &R : Out) {
      EXPECT_LE(Before, R.T0);
      EXPECT_LE(R.T0, R.T1);
      EXPECT_LE(R.T1, After);
      // The CPU agent's compute units are its workers; a GPU agent's its
      // multiprocessors, whatever the test's thread count.
      EXPECT_EQ(R.MaxCuid, runsOnGpu() ? Out[0].MaxCuid : Threads - 1);
      EXPECT_LE(R.Cuid, R.MaxCuid);
    }
  }
}

const char *Trap = R"(
module &m:1:0:$full:$large:$default;
kernel &trap(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	1, [$d1];
	cmp_ne_b1_u32	$c0, $s0, 3;
	cbr_b1	$c0, @go;
	debugtrap_u32	$s0;
@go:
	st_global_u32	2, [$d1];
	ret;
};
)";

// PRM 11.4 debugtrap, 12.5.1: the trapping work-item halts and the queue
// reports HSA_STATUS_ERROR_EXCEPTION and stops; the others run on.
TEST_F(SystemTest, DebugTrapHaltsTheWorkItemAndStopsTheQueue) {
  if (runsOnGpu()) // These run the kernel without failing the test's queue.
    GTEST_SKIP() << "a GPU agent's debugtrap ends the dispatch on its own "
                    "queue: gpu.GpuAgentTest.DebugTrapHaltsTheWorkItemAndStops"
                    "TheQueue";
  auto P = finalizeText(Trap);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  // Only the trapping lane halts: the others of its wave go on.
  expectVectorized(*P, "&trap");
  ErrorLog Log;
  auto Q = makeQueue(&Log);
  ASSERT_NE(Q, nullptr);
  std::vector<uint32_t> Out(8, 0);
  uint32_t *Ptr = Out.data();
  Grid G;
  G.Size[0] = 8;
  G.WorkGroup[0] = 4;
  RunOptions O;
  O.Queue = Q->hsa();
  runKernelWith(*P, "&trap", G, &Ptr, O);
  EXPECT_EQ(Out, (std::vector<uint32_t>{2, 2, 2, 1, 2, 2, 2, 2}));
  EXPECT_EQ(Log.Statuses,
            std::vector<hsa_status_t>{HSA_STATUS_ERROR_EXCEPTION});
  EXPECT_FALSE(Q->isActive());
  // Without a queue (a native context), the work-item still halts.
  std::fill(Out.begin(), Out.end(), 0);
  runKernel(*P, "&trap", G, &Ptr);
  EXPECT_EQ(Out[3], 1u);
}

/// Whether the wavefront of work-item I (1-D grid of N, groups of Group)
/// has an odd work-item.
bool waveHasOdd(uint32_t I, uint32_t N, uint32_t Group) {
  const unsigned W = defaultWavefrontSize();
  const uint32_t GroupStart = I / Group * Group;
  const uint32_t WaveStart = GroupStart + (I - GroupStart) / W * W;
  const uint32_t WaveEnd = std::min({WaveStart + W, GroupStart + Group, N});
  for (uint32_t J = WaveStart; J < WaveEnd; ++J)
    if (J % 2)
      return true;
  return false;
}

const char *Exceptions = R"(
module &m:1:0:$full:$large:$default;
kernel &except(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	mul_u64	$d0, $d0, 20;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	getdetectexcept_u32	$s1;
	st_global_u32	$s1, [$d1];
	setdetectexcept_u32	0x13;
	getdetectexcept_u32	$s1;
	st_global_u32	$s1, [$d1+4];
	cleardetectexcept_u32	3;
	getdetectexcept_u32	$s1;
	st_global_u32	$s1, [$d1+8];
	setdetectexcept_u32	0xffffffe0;
	getdetectexcept_u32	$s1;
	st_global_u32	$s1, [$d1+12];
	and_b32	$s2, $s0, 1;
	cmp_eq_b1_u32	$c0, $s2, 0;
	cbr_b1	$c0, @even;
	setdetectexcept_u32	4;
@even:
	barrier;
	getdetectexcept_u32	$s1;
	st_global_u32	$s1, [$d1+16];
	ret;
};
kernel &plain(kernarg_u64 %out)
{
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	getdetectexcept_u32	$s1;
	st_global_u32	$s1, [$d1];
	setdetectexcept_u32	8;
	getdetectexcept_u32	$s1;
	st_global_u32	$s1, [$d1+4];
	ret;
};
)";

// PRM 11.2: the DETECT flags start at 0 for every wavefront, whatever
// memory held before; set and clear touch only the five flags; the flags
// survive a barrier. Odd work-items set one more flag in a divergent
// branch: their wavefront reads it (the wavefront's flags summarize its
// work-items', WaveHasOdd).
TEST_F(SystemTest, DetectExceptionFlagsPerWorkItem) {
  auto P = finalizeText(Exceptions);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const uint32_t N = 40;
  for (int Poison : {-1, 0xff}) {
    std::vector<uint32_t> Out(N * 5, 0xdead);
    uint32_t *Ptr = Out.data();
    Grid G;
    G.Size[0] = N;
    G.WorkGroup[0] = 16;
    RunOptions O;
    O.PoisonByte = Poison;
    runKernelWith(*P, "&except", G, &Ptr, O);
    for (uint32_t I = 0; I < N; ++I) {
      EXPECT_EQ(Out[I * 5 + 0], 0u) << I;
      EXPECT_EQ(Out[I * 5 + 1], 0x13u) << I;
      EXPECT_EQ(Out[I * 5 + 2], 0x10u) << I;
      EXPECT_EQ(Out[I * 5 + 3], 0x10u) << I;
      EXPECT_EQ(Out[I * 5 + 4], waveHasOdd(I, N, 16) ? 0x14u : 0x10u) << I;
    }
    uint32_t Plain[2] = {9, 9};
    uint32_t *PlainPtr = Plain;
    runKernelWith(*P, "&plain", Grid{}, &PlainPtr, O);
    EXPECT_EQ(Plain[0], 0u);
    EXPECT_EQ(Plain[1], 8u);
  }
}

// Exceptions enabled for DETECT are detected: the kernel reads what its
// floating-point instructions raised (tests/finalizer/DetectTest.cpp checks
// every instruction).
TEST_F(SystemTest, GetDetectExceptReportsEnabledExceptions) {
  auto P = finalizeText(R"(
module &m:1:0:$full:$large:$default;
kernel &k(kernarg_u64 %out)
{
	enabledetectexceptions 2;
	ld_kernarg_align(8)_width(all)_u64	$d0, [%out];
	div_f32	$s1, 1.0f, 0.0f;
	getdetectexcept_u32	$s0;
	st_global_u32	$s0, [$d0];
	ret;
};
)");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  uint32_t Flags = 9;
  uint32_t *Ptr = &Flags;
  runKernel(*P, "&k", Grid{}, &Ptr);
  EXPECT_EQ(Flags, 2u); // DIVIDE_BY_ZERO
}

const char *TrapInFunctions = R"(
module &m:1:0:$full:$large:$default;
function &inner(arg_u32 %r)(arg_u32 %id)
{
	ld_arg_u32	$s0, [%id];
	cmp_ne_b1_u32	$c0, $s0, 3;
	cbr_b1	$c0, @go;
	debugtrap_u32	$s0;
@go:
	st_arg_u32	$s0, [%r];
	ret;
};
function &outer(arg_u32 %r)(arg_u32 %id)
{
	ld_arg_u32	$s0, [%id];
	{
		arg_u32 %r2;
		arg_u32 %id2;
		st_arg_u32	$s0, [%id2];
		call	&inner (%r2) (%id2);
		ld_arg_u32	$s1, [%r2];
	}
	// Not reached by the work-item that trapped.
	add_u32	$s1, $s1, 100;
	st_arg_u32	$s1, [%r];
	ret;
};
function &waits()(arg_u32 %id)
{
	barrier;
	ld_arg_u32	$s0, [%id];
	cmp_ne_b1_u32	$c0, $s0, 5;
	cbr_b1	$c0, @go;
	debugtrap_u32	$s0;
@go:
	ret;
};
kernel &trap(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	1, [$d1];
	{
		arg_u32 %r;
		arg_u32 %id;
		st_arg_u32	$s0, [%id];
		call	&outer (%r) (%id);
		ld_arg_u32	$s1, [%r];
	}
	st_global_u32	$s1, [$d1];
	{
		arg_u32 %id;
		st_arg_u32	$s0, [%id];
		call	&waits () (%id);
	}
	st_global_u32	2, [$d1];
	ret;
};
)";

// PRM 11.4 debugtrap in functions: the work-item halts there, whether the
// function is called (two levels deep) or inlined because it waits at a
// barrier; the queue reports HSA_STATUS_ERROR_EXCEPTION; the others run on.
TEST_F(SystemTest, DebugTrapInFunctionsHaltsTheWorkItem) {
  if (runsOnGpu()) // These run the kernel without failing the test's queue.
    GTEST_SKIP() << "a GPU agent's debugtrap ends the dispatch on its own "
                    "queue: gpu.GpuAgentTest.DebugTrapHaltsTheWorkItemAndStops"
                    "TheQueue";
  auto P = finalizeText(TrapInFunctions);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  // Only the trapping lane halts: the others of its wave go on.
  expectVectorized(*P, "&trap");
  ErrorLog Log;
  auto Q = makeQueue(&Log);
  ASSERT_NE(Q, nullptr);
  for (int Poison : {-1, 0xff}) {
    std::vector<uint32_t> Out(8, 0);
    uint32_t *Ptr = Out.data();
    Grid G;
    G.Size[0] = 8;
    G.WorkGroup[0] = 4;
    RunOptions O;
    O.PoisonByte = Poison;
    runKernelWith(*P, "&trap", G, &Ptr, O);
    // Work-item 3 stops in &inner, before the first store of $s1; 5 stops
    // in &waits (after its barrier), after it. The others of their groups
    // go on past the barrier.
    EXPECT_EQ(Out, (std::vector<uint32_t>{2, 2, 2, 1, 2, 105, 2, 2}));
  }
  std::vector<uint32_t> Out(8, 0);
  uint32_t *Ptr = Out.data();
  Grid G;
  G.Size[0] = 8;
  G.WorkGroup[0] = 4;
  RunOptions O;
  O.Queue = Q->hsa();
  runKernelWith(*P, "&trap", G, &Ptr, O);
  EXPECT_EQ(Out[3], 1u);
  EXPECT_EQ(Out[5], 105u);
  EXPECT_FALSE(Log.Statuses.empty());
  for (hsa_status_t S : Log.Statuses)
    EXPECT_EQ(S, HSA_STATUS_ERROR_EXCEPTION);
  EXPECT_FALSE(Q->isActive());
}

const char *ExceptionsInFunctions = R"(
module &m:1:0:$full:$large:$default;
function &getf(arg_u32 %r)()
{
	getdetectexcept_u32	$s0;
	st_arg_u32	$s0, [%r];
	ret;
};
function &setodd()()
{
	setdetectexcept_u32	4;
	ret;
};
function &clearwait()()
{
	cleardetectexcept_u32	3;
	barrier;
	ret;
};
kernel &except(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	mul_u64	$d0, $d0, 16;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	{
		arg_u32 %r;
		call	&getf (%r) ();
		ld_arg_u32	$s1, [%r];
	}
	st_global_u32	$s1, [$d1];
	setdetectexcept_u32	0x13;
	{
		arg_u32 %r;
		call	&getf (%r) ();
		ld_arg_u32	$s1, [%r];
	}
	st_global_u32	$s1, [$d1+4];
	{
		call	&clearwait () ();
	}
	getdetectexcept_u32	$s1;
	st_global_u32	$s1, [$d1+8];
	and_b32	$s2, $s0, 1;
	cmp_eq_b1_u32	$c0, $s2, 0;
	cbr_b1	$c0, @even;
	{
		call	&setodd () ();
	}
@even:
	barrier;
	{
		arg_u32 %r;
		call	&getf (%r) ();
		ld_arg_u32	$s1, [%r];
	}
	st_global_u32	$s1, [$d1+12];
	ret;
};
kernel &plain(kernarg_u64 %out)
{
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	{
		call	&setodd () ();
	}
	getdetectexcept_u32	$s1;
	st_global_u32	$s1, [$d1];
	ret;
};
)";

// PRM 11.2: a work-item's DETECT flags are the same in its kernel and in
// the functions it calls (called, or inlined because they wait at a
// barrier), start at 0 whatever private memory held, and survive
// barriers.
TEST_F(SystemTest, DetectExceptionFlagsSharedWithFunctions) {
  auto P = finalizeText(ExceptionsInFunctions);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const uint32_t N = 40;
  for (int Poison : {-1, 0xff}) {
    std::vector<uint32_t> Out(N * 4, 0xdead);
    uint32_t *Ptr = Out.data();
    Grid G;
    G.Size[0] = N;
    G.WorkGroup[0] = 16;
    RunOptions O;
    O.PoisonByte = Poison;
    runKernelWith(*P, "&except", G, &Ptr, O);
    for (uint32_t I = 0; I < N; ++I) {
      EXPECT_EQ(Out[I * 4 + 0], 0u) << I;
      EXPECT_EQ(Out[I * 4 + 1], 0x13u) << I;
      EXPECT_EQ(Out[I * 4 + 2], 0x10u) << I;
      EXPECT_EQ(Out[I * 4 + 3], waveHasOdd(I, N, 16) ? 0x14u : 0x10u) << I;
    }
    uint32_t Plain = 9;
    uint32_t *PlainPtr = &Plain;
    runKernelWith(*P, "&plain", G, &PlainPtr, O);
    EXPECT_EQ(Plain, 4u);
  }
}

const char *Segments = R"(
module &m:1:0:$full:$large:$default;
kernel &segments(kernarg_u64 %out, kernarg_u64 %global)
{
	group_u32 %g[4];
	private_u32 %p[4];
	ld_kernarg_align(8)_width(all)_u64	$d0, [%out];
	ld_kernarg_align(8)_width(all)_u64	$d9, [%global];
	nullptr_u64	$d1;
	st_global_u64	$d1, [$d0];
	nullptr_group_u32	$s1;
	st_global_u32	$s1, [$d0+8];
	nullptr_private_u32	$s2;
	st_global_u32	$s2, [$d0+12];
	nullptr_kernarg_u64	$d2;
	st_global_u64	$d2, [$d0+16];
	lda_group_u32	$s3, [%g][4];
	st_global_u32	$s3, [$d0+24];
	stof_group_u64_u32	$d3, $s3;
	st_u32	77, [$d3];
	ld_group_u32	$s4, [%g][4];
	st_global_u32	$s4, [$d0+28];
	ftos_group_u32_u64	$s5, $d3;
	st_global_u32	$s5, [$d0+32];
	segmentp_group_b1_u64	$c0, $d3;
	cmov_b32	$s6, $c0, 1, 0;
	st_global_u32	$s6, [$d0+36];
	segmentp_global_b1_u64	$c0, $d3;
	cmov_b32	$s6, $c0, 1, 0;
	st_global_u32	$s6, [$d0+40];
	segmentp_private_b1_u64	$c0, $d3;
	cmov_b32	$s6, $c0, 1, 0;
	st_global_u32	$s6, [$d0+44];
	segmentp_global_b1_u64	$c0, $d9;
	cmov_b32	$s6, $c0, 1, 0;
	st_global_u32	$s6, [$d0+48];
	segmentp_group_nonull_b1_u64	$c0, $d9;
	cmov_b32	$s6, $c0, 1, 0;
	st_global_u32	$s6, [$d0+52];
	lda_private_u32	$s7, [%p][8];
	st_global_u32	$s7, [$d0+56];
	stof_private_nonull_u64_u32	$d4, $s7;
	st_u32	55, [$d4];
	ld_private_u32	$s8, [%p][8];
	st_global_u32	$s8, [$d0+60];
	segmentp_private_nonull_b1_u64	$c0, $d4;
	cmov_b32	$s6, $c0, 1, 0;
	st_global_u32	$s6, [$d0+64];
	ftos_private_nonull_u32_u64	$s9, $d4;
	st_global_u32	$s9, [$d0+68];
	stof_group_u64_u32	$d5, $s1;
	st_global_u64	$d5, [$d0+72];
	ftos_group_u32_u64	$s10, $d1;
	st_global_u32	$s10, [$d0+80];
	segmentp_group_b1_u64	$c0, $d1;
	cmov_b32	$s6, $c0, 1, 0;
	st_global_u32	$s6, [$d0+84];
	segmentp_private_b1_u64	$c0, $d1;
	cmov_b32	$s6, $c0, 1, 0;
	st_global_u32	$s6, [$d0+88];
	segmentp_global_b1_u64	$c0, $d1;
	cmov_b32	$s6, $c0, 1, 0;
	st_global_u32	$s6, [$d0+92];
	lda_kernarg_u64	$d6, [%global];
	ld_kernarg_u64	$d7, [$d6];
	st_global_u64	$d7, [$d0+96];
	kernargbaseptr_u64	$d8;
	sub_u64	$d8, $d6, $d8;
	st_global_u64	$d8, [$d0+104];
	stof_private_u64_u32	$d10, $s2;
	st_global_u64	$d10, [$d0+112];
	ftos_private_u32_u64	$s11, $d1;
	st_global_u32	$s11, [$d0+120];
	ret;
};
)";

// PRM 5.16, 5.17, 11.4 nullptr, 6.3 lda: segment addresses, their flat
// equivalents and null values, and kernarg addresses usable by ld_kernarg.
TEST_F(SystemTest, SegmentConversionsAndNullPointers) {
  auto P = finalizeText(Segments);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  uint8_t Out[128];
  std::memset(Out, 0xee, sizeof(Out));
  uint64_t GlobalWord = 0;
  struct {
    uint8_t *Out;
    uint64_t *Global;
  } K{Out, &GlobalWord};
  runKernel(*P, "&segments", Grid{}, &K);
  auto U32 = [&](size_t Off) { return loadAt<uint32_t>(Out, Off); };
  auto U64 = [&](size_t Off) { return loadAt<uint64_t>(Out, Off); };
  EXPECT_EQ(U64(0), 0u);           // nullptr (flat)
  EXPECT_EQ(U32(8), 0xffffffffu);  // nullptr_group
  EXPECT_EQ(U32(12), 0xffffffffu); // nullptr_private
  EXPECT_EQ(U64(16), 0u);          // nullptr_kernarg
  EXPECT_EQ(U32(24), 4u);          // lda_group of %g[1]
  EXPECT_EQ(U32(28), 77u);         // a flat store seen by ld_group
  EXPECT_EQ(U32(32), 4u);          // ftos_group(stof_group(x)) == x
  EXPECT_EQ(U32(36), 1u);          // segmentp_group(group address)
  EXPECT_EQ(U32(40), 0u);          // segmentp_global(group address)
  EXPECT_EQ(U32(44), 0u);          // segmentp_private(group address)
  EXPECT_EQ(U32(48), 1u);          // segmentp_global(global address)
  EXPECT_EQ(U32(52), 0u);          // segmentp_group(global address)
  EXPECT_EQ(U32(56), 8u);          // lda_private of %p[2]
  EXPECT_EQ(U32(60), 55u);         // a flat store seen by ld_private
  EXPECT_EQ(U32(64), 1u);          // segmentp_private(private address)
  EXPECT_EQ(U32(68), 8u);          // ftos_private(stof_private(x)) == x
  EXPECT_EQ(U64(72), 0u);          // stof_group(group null) is flat null
  EXPECT_EQ(U32(80), 0xffffffffu); // ftos_group(flat null) is group null
  EXPECT_EQ(U32(84), 1u);          // the flat null is in every segment
  EXPECT_EQ(U32(88), 1u);
  EXPECT_EQ(U32(92), 1u);
  EXPECT_EQ(U64(96), uint64_t(uintptr_t(&GlobalWord))); // ld_kernarg [lda]
  EXPECT_EQ(U64(104), 8u); // lda_kernarg - kernargbaseptr: %global's offset
  EXPECT_EQ(U64(112), 0u); // stof_private(private null)
  EXPECT_EQ(U32(120), 0xffffffffu); // ftos_private(flat null)
}

} // namespace
