//===- tests/finalizer/SignalTest.cpp - signal, signalnoret ---------------===//
//
// PRM 6.8 on the runtime's own signals (runtime/core/Signal.h): every
// operation against host computations on edge values, every modification
// waking the signal's watchers, waits satisfied at once, by host threads
// and by other work-groups, wait timeouts, and contended updates.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

#include "cpu_agent/KernelHelpers.h"
#include "runtime/core/Signal.h"

#include <deque>
#include <sstream>

using namespace openhsa::test;
using openhsa::Signal;
using openhsa::WakeWord;

namespace {

class SignalTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { openhsa::cpu::registerKernelHelpers(); }
};

struct OpCase {
  const char *Op;
  bool Returns;
  const char *Type;
  const char *Order;
};

std::string kernelName(const OpCase &C) {
  return std::string("&") + (C.Returns ? "r_" : "n_") + C.Op + "_" + C.Type +
         "_" + C.Order;
}

/// Element i: signal handles[i], operands a[i] and b[i], result to old[i].
std::string kernelText(const OpCase &C) {
  std::ostringstream S;
  S << "kernel " << kernelName(C)
    << "(kernarg_u64 %handles, kernarg_u64 %a, kernarg_u64 %b, kernarg_u64 "
       "%old)\n{\n"
       "\tworkitemabsid_u32\t$s0, 0;\n"
       "\tcvt_u64_u32\t$d0, $s0;\n"
       "\tshl_u64\t$d0, $d0, 3;\n";
  const char *Args[] = {"handles", "a", "b", "old"};
  for (unsigned R = 1; R <= 4; ++R)
    S << "\tld_kernarg_align(8)_width(all)_u64\t$d" << R << ", [%"
      << Args[R - 1] << "];\n\tadd_u64\t$d" << R << ", $d" << R << ", $d0;\n";
  S << "\tld_global_u64\t$d5, [$d1];\n"
       "\tld_global_u64\t$d6, [$d2];\n"
       "\tld_global_u64\t$d7, [$d3];\n";
  const std::string Mods = std::string(C.Order) + "_" + C.Type + "_sig64";
  if (!C.Returns) {
    S << "\tsignalnoret_" << C.Op << "_" << Mods << "\t$d5, $d6;\n";
  } else {
    S << "\tsignal_" << C.Op << "_" << Mods << "\t$d8, $d5";
    if (std::string(C.Op) != "ld")
      S << ", $d6";
    if (std::string(C.Op) == "cas")
      S << ", $d7";
    S << ";\n\tst_global_u64\t$d8, [$d4];\n";
  }
  S << "\tret;\n};\n";
  return S.str();
}

std::vector<OpCase> allCases() {
  std::vector<OpCase> Cases;
  for (const char *Order : {"rlx", "scacq", "screl", "scar"}) {
    for (const char *Op : {"and", "or", "xor", "exch", "cas"})
      Cases.push_back({Op, true, "b64", Order});
    for (const char *Op : {"add", "sub"})
      for (const char *T : {"u64", "s64"})
        Cases.push_back({Op, true, T, Order});
    for (const char *Op : {"and", "or", "xor"})
      Cases.push_back({Op, false, "b64", Order});
    for (const char *Op : {"add", "sub"})
      for (const char *T : {"u64", "s64"})
        Cases.push_back({Op, false, T, Order});
  }
  for (const char *Order : {"rlx", "scacq"})
    Cases.push_back({"ld", true, "b64", Order});
  for (const char *Order : {"rlx", "screl"})
    Cases.push_back({"st", false, "b64", Order});
  return Cases;
}

uint64_t expected(const std::string &Op, uint64_t Old, uint64_t A, uint64_t B) {
  if (Op == "add")
    return Old + A;
  if (Op == "sub")
    return Old - A;
  if (Op == "and")
    return Old & A;
  if (Op == "or")
    return Old | A;
  if (Op == "xor")
    return Old ^ A;
  if (Op == "exch" || Op == "st")
    return A;
  if (Op == "cas")
    return Old == A ? B : Old;
  return Old; // ld
}

// PRM 6.8.2: each operation as the corresponding atomic on the signal's
// value, every type, form and order, on edge values; every modification
// notifies the signal's watchers (host waiters would wake).
TEST_F(SignalTest, EveryOperationMatchesTheHostAndWakesWatchers) {
  const std::vector<OpCase> Cases = allCases();
  std::string Text = "module &m:1:0:$full:$large:$default;\n";
  for (const OpCase &C : Cases)
    Text += kernelText(C);
  auto P = finalizeText(Text);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());

  const uint64_t Edges[] = {0,
                            1,
                            0x7fffffffffffffffull,
                            0x8000000000000000ull,
                            0xffffffffffffffffull,
                            0x00000000ffffffffull,
                            0x123456789abcdef0ull,
                            42};
  for (const OpCase &C : Cases) {
    std::deque<Signal> Signals;
    std::deque<WakeWord> Words;
    std::vector<uint64_t> Handles, A, B, Initial, Epochs;
    for (uint64_t X : Edges)
      for (uint64_t Y : Edges) {
        Signal &S = Signals.emplace_back(int64_t(X));
        WakeWord &W = Words.emplace_back();
        S.addWatcher(&W);
        Epochs.push_back(W.epoch());
        Handles.push_back(S.handle().handle);
        Initial.push_back(X);
        A.push_back(Y);
        B.push_back(~Y + X);
      }
    const size_t N = Handles.size();
    std::vector<uint64_t> Old(N, 0x5a5a5a5a5a5a5a5aull);
    struct {
      uint64_t *Handles, *A, *B, *Old;
    } K{Handles.data(), A.data(), B.data(), Old.data()};
    Grid G;
    G.Size[0] = uint32_t(N);
    G.WorkGroup[0] = 8;
    runKernel(*P, kernelName(C), G, &K);
    for (size_t I = 0; I < N; ++I) {
      const uint64_t Value =
          uint64_t(Signals[I].load(std::memory_order_relaxed));
      ASSERT_EQ(Value, expected(C.Op, Initial[I], A[I], B[I]))
          << kernelName(C) << " element " << I;
      if (C.Returns) {
        ASSERT_EQ(Old[I], Initial[I]) << kernelName(C) << " element " << I;
      }
      // A GPU kernel cannot notify host watchers: host waits re-check the
      // value on their own there (Signal::expectSilentModifications).
      if (std::string(C.Op) != "ld" && !runsOnGpu()) {
        ASSERT_NE(Words[I].epoch(), Epochs[I])
            << kernelName(C) << " did not notify the signal's watchers";
      }
      Signals[I].removeWatcher(&Words[I]);
    }
  }
}

const char *Waits = R"(
module &m:1:0:$full:$large:$default;
kernel &wait(kernarg_u64 %sig, kernarg_u64 %started, kernarg_u64 %data, kernarg_u64 %out, kernarg_u64 %cond)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%sig];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%started];
	ld_kernarg_align(8)_width(all)_u64	$d2, [%data];
	ld_kernarg_align(8)_width(all)_u64	$d3, [%out];
	ld_kernarg_align(8)_width(all)_u64	$d4, [%cond];
	signalnoret_st_screl_b64_sig64	$d1, 1;
	cmp_eq_b1_u64	$c0, $d4, 0;
	cbr_b1	$c0, @eq;
	cmp_eq_b1_u64	$c0, $d4, 1;
	cbr_b1	$c0, @ne;
	cmp_eq_b1_u64	$c0, $d4, 2;
	cbr_b1	$c0, @lt;
	signal_wait_gte_scacq_s64_sig64	$d5, $d0, 100;
	br	@done;
@eq:
	signal_wait_eq_scacq_s64_sig64	$d5, $d0, 42;
	br	@done;
@ne:
	signal_wait_ne_scacq_s64_sig64	$d5, $d0, 0;
	br	@done;
@lt:
	signal_wait_lt_scacq_s64_sig64	$d5, $d0, -5;
@done:
	st_global_u64	$d5, [$d3];
	ld_global_u64	$d6, [$d2];
	st_global_u64	$d6, [$d3+8];
	ret;
};
)";

// PRM 6.8.2 wait: each condition, satisfied at once and satisfied later by
// a host thread while the work-item blocks; what the host wrote before its
// signal store is visible after the (acquire) wait returns.
TEST_F(SignalTest, WaitsReturnOnceTheHostSatisfiesTheirCondition) {
  auto P = finalizeText(Waits);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  struct CaseT {
    uint64_t Cond;
    int64_t Unsatisfied, Satisfying;
  };
  const CaseT Cases[] = {{0, 41, 42},
                         {1, 0, -1},
                         {2, -5, INT64_MIN},
                         {3, 99, 100},
                         {3, INT64_MIN, INT64_MAX}};
  for (const CaseT &C : Cases) {
    for (bool AlreadySatisfied : {true, false}) {
      Signal Sig(AlreadySatisfied ? C.Satisfying : C.Unsatisfied);
      Signal Started(0);
      uint64_t Data = AlreadySatisfied ? 7 : 0, Out[2] = {0, 0};
      struct {
        uint64_t Sig, Started;
        uint64_t *Data, *Out;
        uint64_t Cond;
      } K{Sig.handle().handle, Started.handle().handle, &Data, Out, C.Cond};
      std::thread Host([&] {
        if (AlreadySatisfied)
          return;
        // Once the kernel runs, give it a moment to block, then satisfy it.
        Started.wait(HSA_SIGNAL_CONDITION_EQ, 1, UINT64_MAX,
                     HSA_WAIT_STATE_BLOCKED, std::memory_order_acquire);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        Data = 7;
        Sig.store(C.Satisfying);
      });
      runKernel(*P, "&wait", Grid{}, &K);
      Host.join();
      EXPECT_EQ(int64_t(Out[0]), C.Satisfying) << "condition " << C.Cond;
      EXPECT_EQ(Out[1], 7u) << "condition " << C.Cond;
    }
  }
}

const char *Timeouts = R"(
module &m:1:0:$full:$large:$default;
kernel &timeout(kernarg_u64 %sig, kernarg_u64 %out, kernarg_u64 %ticks)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%sig];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	ld_kernarg_align(8)_width(all)_u64	$d2, [%ticks];
	signal_waittimeout_eq_rlx_s64_sig64	$d3, $d0, 1, $d2;
	st_global_u64	$d3, [$d1];
	signal_waittimeout_ne_scacq_s64_sig64	$d3, $d0, 5, 1000;
	st_global_u64	$d3, [$d1+8];
	signal_waittimeout_lt_rlx_s64_sig64	$d3, $d0, 5, $d2;
	st_global_u64	$d3, [$d1+16];
	signal_waittimeout_gte_scacq_s64_sig64	$d3, $d0, 6, $d2;
	st_global_u64	$d3, [$d1+24];
	ret;
};
)";

// PRM 6.8.2 waittimeout: a wait whose condition never holds returns the
// signal's value once its timeout passes (10 us here); one that holds
// returns at once.
TEST_F(SignalTest, WaitTimeoutsReturnTheCurrentValue) {
  auto P = finalizeText(Timeouts);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  for (int64_t Value : {5, 0}) {
    Signal Sig(Value);
    uint64_t Out[4] = {9, 9, 9, 9};
    struct {
      uint64_t Sig;
      uint64_t *Out;
      uint64_t Ticks;
    } K{Sig.handle().handle, Out, 1000};
    runKernel(*P, "&timeout", Grid{}, &K);
    for (uint64_t O : Out)
      EXPECT_EQ(int64_t(O), Value);
  }
}

const char *Handshake = R"(
module &m:1:0:$full:$large:$default;
kernel &handshake(kernarg_u64 %sig, kernarg_u64 %out)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%sig];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	workgroupid_u32	$s0, 0;
	cmp_eq_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @waiter;
	st_global_u64	0xabcdef, [$d1+8];
	signalnoret_add_screl_u64_sig64	$d0, 1;
	ret;
@waiter:
	signal_wait_gte_scacq_s64_sig64	$d2, $d0, 1;
	st_global_u64	$d2, [$d1];
	ld_global_u64	$d3, [$d1+8];
	st_global_u64	$d3, [$d1+16];
	ret;
};
)";

// A work-group blocked in a wait resumes when another work-group, running
// on another thread, signals it (PRM 6.8.2; the CPU agent runs work-groups
// on several threads).
TEST_F(SignalTest, WorkGroupsSignalEachOtherAcrossThreads) {
  auto P = finalizeText(Handshake);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  for (int Round = 0; Round < 10; ++Round) {
    Signal Sig(0);
    uint64_t Out[3] = {0, 0, 0};
    struct {
      uint64_t Sig;
      uint64_t *Out;
    } K{Sig.handle().handle, Out};
    Grid G;
    G.Size[0] = 2;
    G.WorkGroup[0] = 1;
    RunOptions O;
    O.Threads = 2;
    runKernelWith(*P, "&handshake", G, &K, O);
    EXPECT_EQ(Out[0], 1u);
    EXPECT_EQ(Out[2], 0xabcdefu);
  }
}

// Signal operations in a divergent branch run once per active lane, in
// lane order: odd work-items take tickets from one signal, every
// work-item passes a compare-and-swap chain along another (x -> x + 1),
// which reaches n only if every lane's ran, in work-item order.
const char *Divergent = R"(
module &m:1:0:$full:$large:$default;
kernel &tickets(kernarg_u64 %tickets, kernarg_u64 %count, kernarg_u64 %chain)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d1, $d0, 3;
	ld_kernarg_align(8)_width(all)_u64	$d2, [%tickets];
	add_u64	$d2, $d2, $d1;
	ld_kernarg_align(8)_width(all)_u64	$d3, [%count];
	ld_kernarg_align(8)_width(all)_u64	$d4, [%chain];
	mov_b64	$d5, -1;
	and_b32	$s1, $s0, 1;
	cmp_eq_b1_u32	$c0, $s1, 0;
	cbr_b1	$c0, @even;
	signal_add_rlx_u64_sig64	$d5, $d3, 1;
@even:
	st_global_u64	$d5, [$d2];
	add_u64	$d6, $d0, 1;
	signal_cas_scar_b64_sig64	$d7, $d4, $d0, $d6;
	ret;
};
)";

TEST_F(SignalTest, OperationsInADivergentBranchRunPerActiveLaneInOrder) {
  auto Ps = bothWays(Divergent, "&tickets");
  ASSERT_EQ(Ps.size(), 2u);
  for (const auto &P : Ps) {
    const uint32_t N = 203;
    Signal Count(0), Chain(0);
    std::vector<int64_t> Tickets(N, 0);
    struct {
      int64_t *Tickets;
      uint64_t Count, Chain;
    } K{Tickets.data(), Count.handle().handle, Chain.handle().handle};
    Grid G;
    G.Size[0] = N;
    G.WorkGroup[0] = 40;
    runKernel(P, "&tickets", G, &K);
    EXPECT_EQ(Count.load(std::memory_order_relaxed), int64_t(N / 2));
    // One thread runs the groups in order, a wave's lanes in order (on a
    // GPU agent lanes run at once: one swap of each value wins).
    if (!runsOnGpu()) {
      EXPECT_EQ(Chain.load(std::memory_order_relaxed), int64_t(N));
      for (uint32_t X = 0; X < N; ++X)
        ASSERT_EQ(Tickets[X], X & 1 ? int64_t(X / 2) : -1) << X;
    }
  }
}

const char *Contended = R"(
module &m:1:0:$full:$large:$default;
kernel &contend(kernarg_u64 %up, kernarg_u64 %down, kernarg_u64 %mixed)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%up];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%down];
	ld_kernarg_align(8)_width(all)_u64	$d2, [%mixed];
	signalnoret_add_rlx_u64_sig64	$d0, 1;
	signal_add_scar_s64_sig64	$d3, $d2, 2;
	signal_sub_scar_s64_sig64	$d3, $d2, 1;
	signalnoret_sub_screl_s64_sig64	$d1, 1;
	ret;
};
)";

// 100000 work-items on 8 threads update signals at once while host threads
// wait for the final values (as hsa_signal_wait_* would).
TEST_F(SignalTest, ContendedUpdatesAreExactAndWakeHostWaiters) {
  auto P = finalizeText(Contended);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  // On a GPU agent every update is a compare-and-swap loop on host memory
  // across PCIe, whose retries grow with the square of the contenders.
  const uint32_t N = runsOnGpu() ? 4000 : 100000;
  Signal Up(0), Down(N), Mixed(-int64_t(N));
  int64_t SeenUp = -1, SeenDown = -1;
  std::thread WaitUp([&] {
    SeenUp = Up.wait(HSA_SIGNAL_CONDITION_GTE, N, UINT64_MAX,
                     HSA_WAIT_STATE_BLOCKED, std::memory_order_acquire);
  });
  std::thread WaitDown([&] {
    SeenDown = Down.wait(HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX,
                         HSA_WAIT_STATE_BLOCKED, std::memory_order_acquire);
  });
  struct {
    uint64_t Up, Down, Mixed;
  } K{Up.handle().handle, Down.handle().handle, Mixed.handle().handle};
  Grid G;
  G.Size[0] = N;
  G.WorkGroup[0] = 100;
  RunOptions O;
  O.Threads = 8;
  runKernelWith(*P, "&contend", G, &K, O);
  WaitUp.join();
  WaitDown.join();
  EXPECT_EQ(SeenUp, int64_t(N));
  EXPECT_EQ(SeenDown, 0);
  EXPECT_EQ(Up.load(std::memory_order_relaxed), int64_t(N));
  EXPECT_EQ(Down.load(std::memory_order_relaxed), 0);
  EXPECT_EQ(Mixed.load(std::memory_order_relaxed), 0);
}

} // namespace
