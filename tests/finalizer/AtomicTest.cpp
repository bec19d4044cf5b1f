//===- tests/finalizer/AtomicTest.cpp - atomic, atomicnoret, memfence -----===//
//
// PRM 6.6, 6.7, 6.9: every atomic operation on 32- and 64-bit values of
// each type, in every memory order, on global, flat and group addresses,
// checked against host computations on edge values; global atomics from
// several threads running work-groups at once; message passing through
// fences between a kernel and a host thread.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

#include <limits>
#include <random>
#include <sstream>

using namespace openhsa::test;

namespace {

/// What the kernels of one generated module compute.
enum class Op {
  Add,
  Sub,
  And,
  Or,
  Xor,
  Exch,
  Min,
  Max,
  WrapInc,
  WrapDec,
  Cas,
  Ld,
  St
};

const char *opName(Op O) {
  switch (O) {
  case Op::Add:
    return "add";
  case Op::Sub:
    return "sub";
  case Op::And:
    return "and";
  case Op::Or:
    return "or";
  case Op::Xor:
    return "xor";
  case Op::Exch:
    return "exch";
  case Op::Min:
    return "min";
  case Op::Max:
    return "max";
  case Op::WrapInc:
    return "wrapinc";
  case Op::WrapDec:
    return "wrapdec";
  case Op::Cas:
    return "cas";
  case Op::Ld:
    return "ld";
  case Op::St:
    return "st";
  }
  return "";
}

/// Host semantics (PRM 6.6.2) on Bits-bit values held in uint64_t.
uint64_t apply(Op O, bool Signed, unsigned Bits, uint64_t Old, uint64_t A,
               uint64_t B) {
  const uint64_t Mask = Bits == 64 ? ~0ull : (1ull << Bits) - 1;
  auto S = [&](uint64_t V) {
    return Bits == 64 ? int64_t(V) : int64_t(int32_t(uint32_t(V)));
  };
  Old &= Mask;
  A &= Mask;
  B &= Mask;
  uint64_t R = Old;
  switch (O) {
  case Op::Add:
    R = Old + A;
    break;
  case Op::Sub:
    R = Old - A;
    break;
  case Op::And:
    R = Old & A;
    break;
  case Op::Or:
    R = Old | A;
    break;
  case Op::Xor:
    R = Old ^ A;
    break;
  case Op::Exch:
  case Op::St:
    R = A;
    break;
  case Op::Min:
    R = Signed ? (S(A) < S(Old) ? A : Old) : std::min(Old, A);
    break;
  case Op::Max:
    R = Signed ? (S(A) > S(Old) ? A : Old) : std::max(Old, A);
    break;
  case Op::WrapInc:
    R = Old >= A ? 0 : Old + 1;
    break;
  case Op::WrapDec:
    R = (Old == 0 || Old > A) ? A : Old - 1;
    break;
  case Op::Cas:
    R = Old == A ? B : Old;
    break;
  case Op::Ld:
    break;
  }
  return R & Mask;
}

struct Variant {
  Op O;
  const char *Type; // "b32", "s64", ...
  bool Returns;
  const char *Order;
  const char *Segment; // "global_" or "" (flat).
  const char *Scope;
  std::string name() const {
    return std::string("&") + (Returns ? "r_" : "n_") + opName(O) + "_" + Type +
           "_" + Order + (*Segment ? "_g" : "_f");
  }
  unsigned bits() const { return Type[1] == '6' ? 64 : 32; }
  bool isSigned() const { return Type[0] == 's'; }
};

/// Every valid combination of operation, type, form and order, on global
/// and flat addresses, with the scopes spread over the variants.
std::vector<Variant> allVariants() {
  std::vector<Variant> V;
  const char *Scopes[] = {"wave", "wg", "agent", "system"};
  unsigned ScopeIndex = 0;
  auto Add = [&](Op O, const char *T, bool Ret, const char *Order) {
    for (const char *Seg : {"global_", ""}) {
      V.push_back({O, T, Ret, Order, Seg, Scopes[ScopeIndex % 4]});
      ++ScopeIndex;
    }
  };
  const char *AllOrders[] = {"rlx", "scacq", "screl", "scar"};
  for (const char *Order : AllOrders) {
    for (Op O : {Op::And, Op::Or, Op::Xor})
      for (const char *T : {"b32", "b64"}) {
        Add(O, T, true, Order);
        Add(O, T, false, Order);
      }
    for (const char *T : {"b32", "b64"}) {
      Add(Op::Exch, T, true, Order);
      Add(Op::Cas, T, true, Order);
    }
    for (Op O : {Op::Add, Op::Sub, Op::Min, Op::Max})
      for (const char *T : {"u32", "s32", "u64", "s64"}) {
        Add(O, T, true, Order);
        Add(O, T, false, Order);
      }
    for (Op O : {Op::WrapInc, Op::WrapDec})
      for (const char *T : {"u32", "u64"}) {
        Add(O, T, true, Order);
        Add(O, T, false, Order);
      }
  }
  for (const char *T : {"b32", "b64"}) {
    for (const char *Order : {"rlx", "scacq"})
      Add(Op::Ld, T, true, Order);
    for (const char *Order : {"rlx", "screl"})
      Add(Op::St, T, false, Order);
  }
  return V;
}

/// A kernel applying the variant's atomic to element i of mem, with
/// operands a[i], b[i], storing what it returns (if anything) to old[i].
std::string kernelText(const Variant &V) {
  const bool Wide = V.bits() == 64;
  const char *R = Wide ? "$d" : "$s";
  const unsigned Shift = Wide ? 3 : 2;
  std::ostringstream S;
  S << "kernel " << V.name()
    << "(kernarg_u64 %mem, kernarg_u64 %a, kernarg_u64 %b, kernarg_u64 "
       "%old)\n{\n"
    << "\tworkitemabsid_u32\t$s0, 0;\n"
    << "\tcvt_u64_u32\t$d0, $s0;\n"
    << "\tshl_u64\t$d0, $d0, " << Shift << ";\n";
  for (const char *Arg : {"mem", "a", "b", "old"}) {
    const unsigned Reg = Arg[0] == 'm'   ? 1
                         : Arg[0] == 'a' ? 2
                         : Arg[0] == 'b' ? 3
                                         : 4;
    S << "\tld_kernarg_align(8)_width(all)_u64\t$d" << Reg << ", [%" << Arg
      << "];\n"
      << "\tadd_u64\t$d" << Reg << ", $d" << Reg << ", $d0;\n";
  }
  const char *T = V.Type;
  const char *Raw = Wide ? "u64" : "u32";
  S << "\tld_global_" << Raw << "\t" << R << "5, [$d2];\n"
    << "\tld_global_" << Raw << "\t" << R << "6, [$d3];\n";
  const std::string Mods =
      std::string(V.Segment) + V.Order + "_" + V.Scope + "_" + T;
  if (V.Returns) {
    S << "\tatomic_" << opName(V.O) << "_" << Mods << "\t" << R << "7, [$d1]";
    if (V.O != Op::Ld)
      S << ", " << R << "5";
    if (V.O == Op::Cas)
      S << ", " << R << "6";
    S << ";\n\tst_global_" << Raw << "\t" << R << "7, [$d4];\n";
  } else {
    S << "\tatomicnoret_" << opName(V.O) << "_" << Mods << "\t[$d1], " << R
      << "5;\n";
  }
  S << "\tret;\n};\n";
  return S.str();
}

std::string moduleText(const std::vector<Variant> &Vs) {
  std::string Text = "module &m:1:0:$full:$large:$default;\n";
  for (const Variant &V : Vs)
    Text += kernelText(V);
  return Text;
}

/// Edge values of each width, and every pair of them.
std::vector<uint64_t> edgeValues(unsigned Bits) {
  if (Bits == 32)
    return {0,          1,          2,          0x7fffffff, 0x80000000,
            0xffffffff, 0xfffffffe, 0x12345678, 23,         0x80000001};
  return {0,
          1,
          2,
          0x7fffffffffffffffull,
          0x8000000000000000ull,
          0xffffffffffffffffull,
          0xfffffffffffffffeull,
          0x123456789abcdef0ull,
          0xffffffffull,
          0x100000000ull};
}

struct Args {
  void *Mem, *A, *B, *Old;
};

class AtomicTest : public ::testing::Test {
public:
  static void SetUpTestSuite() {
    auto P = finalizeText(moduleText(allVariants()));
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    Program = new FinalizedProgram(std::move(*P));
  }
  static void TearDownTestSuite() {
    delete Program;
    Program = nullptr;
  }
  static FinalizedProgram *Program;
};
FinalizedProgram *AtomicTest::Program = nullptr;

template <typename T> void runVariant(const Variant &V) {
  const unsigned Bits = V.bits();
  const std::vector<uint64_t> Edges = edgeValues(Bits);
  // Element i: (old, a) from every pair of edge values; b also varies.
  std::vector<T> Mem, A, B;
  for (uint64_t X : Edges)
    for (uint64_t Y : Edges) {
      Mem.push_back(T(X));
      A.push_back(T(Y));
      B.push_back(T(~X ^ Y));
    }
  const size_t N = Mem.size();
  const std::vector<T> Initial = Mem;
  std::vector<T> Old(N, T(0x5a5a5a5a5a5a5a5aull));
  Args K{Mem.data(), A.data(), B.data(), Old.data()};
  Grid G;
  G.Size[0] = uint32_t(N);
  G.WorkGroup[0] = 16;
  runKernel(*AtomicTest::Program, V.name(), G, &K);
  for (size_t I = 0; I < N; ++I) {
    const uint64_t Want =
        apply(V.O, V.isSigned(), Bits, Initial[I], A[I], B[I]);
    ASSERT_EQ(uint64_t(Mem[I]), Want)
        << V.name() << " element " << I << ": old " << uint64_t(Initial[I])
        << " src0 " << uint64_t(A[I]) << " src1 " << uint64_t(B[I]);
    if (V.Returns)
      ASSERT_EQ(Old[I], Initial[I]) << V.name() << " element " << I;
    else
      ASSERT_EQ(Old[I], T(0x5a5a5a5a5a5a5a5aull)) << V.name();
  }
}

// PRM 6.6.2, 6.7: each operation's result and returned value, every type,
// form and order, global and flat addresses, on edge values.
TEST_F(AtomicTest, EveryOperationMatchesTheHostOnEdgeValues) {
  const std::vector<Variant> Vs = allVariants();
  EXPECT_GT(Vs.size(), 300u);
  for (const Variant &V : Vs) {
    if (V.bits() == 64)
      runVariant<uint64_t>(V);
    else
      runVariant<uint32_t>(V);
    if (HasFatalFailure())
      return;
  }
}

// The wrapping forms at and around their bounds (PRM 6.6.2): the value
// stays within [0, src0].
TEST_F(AtomicTest, WrapIncAndWrapDecCycleWithinTheirBound) {
  for (const char *Order : {"rlx", "scar"}) {
    std::vector<uint32_t> Mem{0}, A{4}, B{0}, Old{0};
    Args K{Mem.data(), A.data(), B.data(), Old.data()};
    const Variant Inc{Op::WrapInc, "u32", true, Order, "global_", "wg"};
    const Variant Dec{Op::WrapDec, "u32", true, Order, "global_", "wg"};
    std::vector<uint32_t> Seen;
    for (int I = 0; I < 7; ++I) {
      runKernel(*Program, Inc.name(), Grid{}, &K);
      Seen.push_back(Old[0]);
    }
    EXPECT_EQ(Seen, (std::vector<uint32_t>{0, 1, 2, 3, 4, 0, 1}));
    EXPECT_EQ(Mem[0], 2u);
    Seen.clear();
    for (int I = 0; I < 7; ++I) {
      runKernel(*Program, Dec.name(), Grid{}, &K);
      Seen.push_back(Old[0]);
    }
    EXPECT_EQ(Seen, (std::vector<uint32_t>{2, 1, 0, 4, 3, 2, 1}));
    // Above the bound, wrapdec restarts at the bound; wrapinc at 0.
    Mem[0] = 100;
    runKernel(*Program, Dec.name(), Grid{}, &K);
    EXPECT_EQ(Mem[0], 4u);
    Mem[0] = 100;
    runKernel(*Program, Inc.name(), Grid{}, &K);
    EXPECT_EQ(Mem[0], 0u);
  }
}

const char *Contended = R"(
module &m:1:0:$full:$large:$default;
kernel &count(kernarg_u64 %counter, kernarg_u64 %tickets, kernarg_u64 %wide)
{
	workitemflatabsid_u32	$s0;
	ld_kernarg_align(8)_width(all)_u64	$d0, [%counter];
	atomicnoret_add_global_rlx_system_u32	[$d0], 1;
	atomic_add_global_scar_agent_u32	$s1, [$d0+4], 1;
	cvt_u64_u32	$d1, $s1;
	shl_u64	$d1, $d1, 2;
	ld_kernarg_align(8)_width(all)_u64	$d2, [%tickets];
	add_u64	$d2, $d2, $d1;
	st_global_u32	$s0, [$d2];
	atomicnoret_max_rlx_system_u32	[$d0+8], $s0;
	atomicnoret_min_global_rlx_system_s32	[$d0+12], $s0;
	atomicnoret_wrapinc_global_rlx_system_u32	[$d0+16], 9;
	atomicnoret_sub_global_rlx_system_s32	[$d0+20], 1;
	atomicnoret_xor_global_rlx_system_b32	[$d0+24], $s0;
	ld_kernarg_align(8)_width(all)_u64	$d3, [%wide];
	atomicnoret_add_global_rlx_system_u64	[$d3], 0x100000001;
@retry:
	atomic_ld_global_rlx_system_b64	$d4, [$d3+8];
	add_u64	$d5, $d4, 3;
	atomic_cas_global_scar_system_b64	$d6, [$d3+8], $d4, $d5;
	cmp_ne_b1_u64	$c0, $d6, $d4;
	cbr_b1	$c0, @retry;
	ret;
};
)";

// Global atomics are atomic across threads: 100000 work-items from 8
// threads calling the work-group function at once leave exact results, and
// the tickets atomic_add hands out are a permutation.
TEST_F(AtomicTest, GlobalAtomicsAreExactUnderConcurrency) {
  auto P = finalizeText(Contended);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  // On a GPU agent the test's memory is host memory: each system-scope
  // atomic crosses PCIe, and the compare-and-swap loop's retries grow with
  // the square of the contending work-items (100000 took minutes).
  const uint32_t N = runsOnGpu() ? 4096 : 100000;
  uint32_t Counter[7] = {0, 0, 0, 0x7fffffff, 0, 0, 0};
  std::vector<uint32_t> Tickets(N, UINT32_MAX);
  uint64_t Wide[2] = {0, 0};
  struct {
    uint32_t *Counter, *Tickets;
    uint64_t *Wide;
  } K{Counter, Tickets.data(), Wide};
  Grid G;
  G.Size[0] = N;
  G.WorkGroup[0] = 64;
  RunOptions O;
  O.Threads = 8;
  runKernelWith(*P, "&count", G, &K, O);
  EXPECT_EQ(Counter[0], N);
  EXPECT_EQ(Counter[1], N);
  EXPECT_EQ(Counter[2], N - 1);
  EXPECT_EQ(Counter[3], 0u);
  EXPECT_EQ(Counter[4], N % 10);
  EXPECT_EQ(int32_t(Counter[5]), -int32_t(N));
  uint32_t Xor = 0;
  for (uint32_t I = 0; I < N; ++I)
    Xor ^= I;
  EXPECT_EQ(Counter[6], Xor);
  EXPECT_EQ(Wide[0], uint64_t(N) * 0x100000001ull);
  EXPECT_EQ(Wide[1], uint64_t(N) * 3);
  std::vector<bool> Seen(N, false);
  for (uint32_t T : Tickets) {
    ASSERT_LT(T, N);
    ASSERT_FALSE(Seen[T]) << "work-item " << T << " got two tickets";
    Seen[T] = true;
  }
}

const char *GroupAtomics = R"(
module &m:1:0:$full:$large:$default;
kernel &group(kernarg_u64 %out)
{
	group_u32 %sum;
	group_u64 %bits;
	workitemid_u32	$s0, 0;
	cmp_eq_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @init;
	br	@wait;
@init:
	atomicnoret_st_group_rlx_wg_b32	[%sum], 0;
	st_group_u64	0, [%bits];
@wait:
	barrier;
	atomicnoret_add_group_rlx_wg_u32	[%sum], $s0;
	shl_u64	$d0, 1, $s0;
	atomic_or_group_scar_wg_b64	$d1, [%bits], $d0;
	lda_group_u32	$s1, [%sum];
	stof_group_u64_u32	$d2, $s1;
	atomicnoret_add_rlx_wg_u32	[$d2+0], 1000;
	barrier;
	cmp_eq_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @write;
	ret;
@write:
	workgroupid_u32	$s2, 0;
	cvt_u64_u32	$d3, $s2;
	shl_u64	$d3, $d3, 4;
	ld_kernarg_align(8)_width(all)_u64	$d4, [%out];
	add_u64	$d4, $d4, $d3;
	atomic_ld_group_scacq_wg_b32	$s3, [%sum];
	st_global_u32	$s3, [$d4];
	atomic_ld_group_rlx_wg_b64	$d5, [%bits];
	st_global_u64	$d5, [$d4+8];
	ret;
};
)";

// Group segment atomics, by segment and by flat address (PRM 6.6.1), in a
// kernel with barriers; the last group is partial.
TEST_F(AtomicTest, GroupSegmentAtomicsPerWorkGroup) {
  auto P = finalizeText(GroupAtomics);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const uint32_t Size = 64 * 3 + 20;
  struct Out {
    uint32_t Sum, Pad;
    uint64_t Bits;
  };
  std::vector<Out> Result(4, Out{0, 0, 0});
  Out *Ptr = Result.data();
  Grid G;
  G.Size[0] = Size;
  G.WorkGroup[0] = 64;
  RunOptions O;
  O.Threads = 2;
  O.PoisonByte = 0xa5;
  runKernelWith(*P, "&group", G, &Ptr, O);
  for (uint32_t W = 0; W < 4; ++W) {
    const uint32_t Items = W < 3 ? 64 : 20;
    EXPECT_EQ(Result[W].Sum, Items * (Items - 1) / 2 + 1000 * Items) << W;
    EXPECT_EQ(Result[W].Bits, Items == 64 ? ~0ull : (1ull << Items) - 1) << W;
  }
}

const char *Fences = R"(
module &m:1:0:$full:$large:$default;
kernel &consume(kernarg_u64 %flag, kernarg_u64 %data, kernarg_u64 %out)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%flag];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%data];
	ld_kernarg_align(8)_width(all)_u64	$d2, [%out];
@spin:
	atomic_ld_global_rlx_system_b32	$s0, [$d0];
	cmp_eq_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @spin;
	memfence_scacq_system;
	ld_global_u64	$d3, [$d1];
	st_global_u64	$d3, [$d2];
	memfence_scar_agent;
	memfence_scacq_wg;
	memfence_scar_wave;
	ret;
};
kernel &produce(kernarg_u64 %flag, kernarg_u64 %data, kernarg_u64 %out)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%flag];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%data];
	st_global_u64	0x1122334455667788, [$d1];
	memfence_screl_system;
	atomicnoret_st_global_rlx_system_b32	[$d0], 1;
	ret;
};
)";

// PRM 6.9: message passing through release and acquire fences between a
// kernel and a host thread, both ways. (The checks hold whatever the
// threads' timing; without the fences a weakly ordered host could fail.)
TEST_F(AtomicTest, FencesPassMessagesBetweenKernelAndHost) {
  auto P = finalizeText(Fences);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  for (int Round = 0; Round < 20; ++Round) {
    std::atomic<uint32_t> Flag{0};
    uint64_t Data = 0, Out = 0;
    struct {
      void *Flag;
      uint64_t *Data, *Out;
    } K{&Flag, &Data, &Out};
    std::thread Host([&] {
      Data = 0xfeedface00000000ull + uint64_t(Round);
      Flag.store(1, std::memory_order_release);
    });
    runKernel(*P, "&consume", Grid{}, &K);
    Host.join();
    EXPECT_EQ(Out, 0xfeedface00000000ull + uint64_t(Round));

    Flag.store(0);
    Data = 0;
    uint64_t Seen = 0;
    std::thread Reader([&] {
      while (Flag.load(std::memory_order_acquire) == 0)
        std::this_thread::yield();
      Seen = Data;
    });
    runKernel(*P, "&produce", Grid{}, &K);
    Reader.join();
    EXPECT_EQ(Seen, 0x1122334455667788ull);
  }
}

} // namespace
