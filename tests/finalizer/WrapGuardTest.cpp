//===- tests/finalizer/WrapGuardTest.cpp - Wrap checks as dispatch guards -===//
//
// finalizer/WrapGuard.h: the evaluation of guards over a dispatch (exact
// ranges, kernel arguments as signed or unsigned, what each operation
// requires, 128-bit overflow), their validation and serialization; and
// what the finalizer makes of kernels' indices with
// FinalizeRequest::GuardIndexWraps (WrapGuardBuilder.h): the checks it
// leaves out, and guards that hold exactly where no index wraps.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

#include "finalizer/CodeObject.h"
#include "finalizer/Finalizer.h"
#include "finalizer/WrapGuard.h"

#include <cstring>

namespace {

using openhsa::finalizer::CodeObject;
using openhsa::finalizer::DispatchGeometry;
using openhsa::finalizer::KernelSymbol;
using openhsa::finalizer::WrapGuard;
using Op = WrapGuard::Op;

/// A guard built node by node.
struct GuardMaker {
  WrapGuard G;
  uint32_t node(Op Kind, uint32_t A = 0, uint32_t B = 0, uint8_t Bits = 32,
                bool Signed = false, int64_t Value = 0, uint32_t C = 0) {
    WrapGuard::Node N;
    N.Kind = Kind;
    N.A = A;
    N.B = B;
    N.C = C;
    N.Bits = Bits;
    N.Signed = Signed;
    N.Value = Value;
    G.Nodes.push_back(N);
    return uint32_t(G.Nodes.size() - 1);
  }
  uint32_t constant(int64_t V) { return node(Op::Const, 0, 0, 0, false, V); }
  uint32_t fits(uint32_t A, unsigned Bits = 32, bool Signed = false) {
    return node(Op::Fits, A, 0, uint8_t(Bits), Signed);
  }
  /// workitemabsid along Dim, as the lowering computes it.
  uint32_t absoluteId(unsigned Dim) {
    return node(
        Op::Add,
        node(Op::Mul, node(Op::WorkGroupId, Dim), node(Op::WorkGroupSize, Dim)),
        node(Op::WorkItemId, Dim));
  }
};

DispatchGeometry geometry(uint32_t GridX, uint32_t GridY, uint32_t Wg,
                          const void *Kernarg = nullptr, size_t Bytes = 0) {
  DispatchGeometry D;
  D.Dims = GridY > 1 ? 2 : 1;
  D.Grid[0] = GridX;
  D.Grid[1] = GridY;
  D.Workgroup[0] = Wg;
  D.Workgroup[1] = GridY > 1 ? Wg : 1;
  D.Kernarg = Kernarg;
  D.KernargBytes = Bytes;
  return D;
}

/// y * width + x, width the 32-bit argument at byte 16: the median's index.
GuardMaker rowMajorIndex() {
  GuardMaker M;
  const uint32_t Width = M.node(Op::Kernarg, 16, 0, 32);
  M.fits(M.node(Op::Add, M.node(Op::Mul, M.absoluteId(1), Width),
                M.absoluteId(0)));
  return M;
}

TEST(WrapGuardTest, AnIndexFitsUpToTheGridsLastWorkItem) {
  GuardMaker M = rowMajorIndex();
  ASSERT_EQ(M.G.validate(), "");
  uint32_t Args[5] = {0, 0, 0, 0, 4096};
  EXPECT_TRUE(M.G.holds(geometry(4096, 4096, 16, Args, sizeof(Args))));
  // 65536 rows of 65536: the last index is 2^32 - 1 exactly.
  Args[4] = 65536;
  EXPECT_TRUE(M.G.holds(geometry(65536, 65536, 16, Args, sizeof(Args))));
  // A width one larger: the last rows' indices pass 2^32.
  Args[4] = 65537;
  EXPECT_FALSE(M.G.holds(geometry(65536, 65536, 16, Args, sizeof(Args))));
  // Partial groups count whole (ids up to the group's end): 65535 columns
  // in groups of 16 reach 65535 too.
  Args[4] = 65536;
  EXPECT_TRUE(M.G.holds(geometry(65535, 65536, 16, Args, sizeof(Args))));
}

TEST(WrapGuardTest, ArgumentsCountAsSignedOrAsUnsigned) {
  // x + offset, offset the 32-bit argument at byte 0.
  GuardMaker M;
  M.fits(M.node(Op::Add, M.absoluteId(0), M.node(Op::Kernarg, 0, 0, 32)));
  uint32_t Offset = 0xffffffc0u; // 2^32 - 64: as unsigned, x < 64 fits.
  EXPECT_TRUE(M.G.holds(geometry(64, 1, 32, &Offset, 4)));
  EXPECT_FALSE(M.G.holds(geometry(65, 1, 1, &Offset, 4)));
  // x - 1 where x >= 1: the argument -1 counts as signed.
  GuardMaker Minus;
  Minus.fits(Minus.node(
      Op::Add, Minus.node(Op::Add, Minus.absoluteId(0), Minus.constant(1)),
      Minus.node(Op::Kernarg, 0, 0, 32)));
  Offset = 0xffffffffu;
  EXPECT_TRUE(Minus.G.holds(geometry(1000, 1, 10, &Offset, 4)));
  // A signed requirement: x + 2^31 - 64 fits below 2^31 for 64 items only.
  GuardMaker Signed;
  Signed.fits(Signed.node(Op::Add, Signed.absoluteId(0),
                          Signed.node(Op::Kernarg, 0, 0, 32)),
              32, /*Signed=*/true);
  Offset = 0x7fffffc0u;
  EXPECT_TRUE(Signed.G.holds(geometry(64, 1, 64, &Offset, 4)));
  EXPECT_FALSE(Signed.G.holds(geometry(128, 1, 64, &Offset, 4)));
}

TEST(WrapGuardTest, ArgumentsPastTheSegmentFailTheGuard) {
  GuardMaker M;
  M.fits(M.node(Op::Kernarg, 8, 0, 64), 64);
  uint64_t Args[2] = {0, 5};
  EXPECT_TRUE(M.G.holds(geometry(1, 1, 1, Args, 16)));
  EXPECT_FALSE(M.G.holds(geometry(1, 1, 1, Args, 12)));
  EXPECT_FALSE(M.G.holds(geometry(1, 1, 1, nullptr, 0)));
}

TEST(WrapGuardTest, ExtensionsRequireTheirOperandsRange) {
  // zext of x - 1: negative for x = 0.
  GuardMaker M;
  M.fits(
      M.node(Op::ZExt, M.node(Op::Sub, M.absoluteId(0), M.constant(1)), 0, 32),
      64);
  EXPECT_FALSE(M.G.holds(geometry(16, 1, 16)));
  // sext of x - 1 is fine, as a signed 64-bit value.
  GuardMaker S;
  S.fits(
      S.node(Op::SExt, S.node(Op::Sub, S.absoluteId(0), S.constant(1)), 0, 32),
      64, /*Signed=*/true);
  EXPECT_TRUE(S.G.holds(geometry(16, 1, 16)));
}

TEST(WrapGuardTest, InductionsRangeOverTheirLoopsCount) {
  // row * n + k, k = 0, 16, ... over at most n / 16 back edges.
  GuardMaker M;
  const uint32_t N = M.node(Op::Kernarg, 0, 0, 32);
  const uint32_t Count = M.node(Op::UDiv, N, M.constant(16), 32);
  const uint32_t K =
      M.node(Op::Iterate, M.constant(0), M.constant(16), 0, false, 0, Count);
  M.fits(M.node(Op::Add, M.node(Op::Mul, M.absoluteId(0), N), K));
  uint32_t Arg = 1024;
  EXPECT_TRUE(M.G.holds(geometry(1024, 1, 64, &Arg, 4)));
  Arg = 65536; // 65535 * 65536 + 65536 = 2^32.
  EXPECT_FALSE(M.G.holds(geometry(65536, 1, 64, &Arg, 4)));
  EXPECT_FALSE(M.G.holds(geometry(65535, 1, 64, &Arg, 4))); // Up to 65535.
  EXPECT_TRUE(M.G.holds(geometry(65534, 1, 2, &Arg, 4)));
}

TEST(WrapGuardTest, ValuesPast128BitsFailTheGuard) {
  GuardMaker M;
  uint32_t Big = M.node(Op::Kernarg, 0, 0, 64);
  for (int I = 0; I < 3; ++I)
    Big = M.node(Op::Mul, Big, Big);
  M.node(Op::Fits, M.node(Op::Sub, Big, Big), 0, 64, true);
  uint64_t Arg = uint64_t(1) << 40;
  EXPECT_FALSE(M.G.holds(geometry(1, 1, 1, &Arg, 8)));
  Arg = 1;
  EXPECT_TRUE(M.G.holds(geometry(1, 1, 1, &Arg, 8)));
}

TEST(WrapGuardTest, OperationsOnRanges) {
  const DispatchGeometry Hundred = geometry(100, 1, 10); // x in [0, 99].
  {
    GuardMaker M; // -1 - ~x = x.
    uint32_t N = M.node(Op::Not, M.absoluteId(0));
    M.fits(M.node(Op::Sub, M.constant(-1), N), 8);
    EXPECT_TRUE(M.G.holds(Hundred));
  }
  {
    GuardMaker M; // x >> 2 <= 24; x & 7 <= 7; umax(x, 200) = 200.
    M.fits(M.node(Op::Sub, M.constant(24),
                  M.node(Op::LShr, M.absoluteId(0), 2, 32)),
           8);
    M.fits(M.node(Op::Sub, M.constant(7),
                  M.node(Op::Mask, M.absoluteId(0), 0, 32, false, 7)),
           8);
    const uint32_t Max = M.node(Op::UMax, M.absoluteId(0), M.constant(200), 32);
    M.fits(M.node(Op::Sub, Max, M.constant(200)), 8);
    M.fits(M.node(Op::Sub, M.constant(200), Max), 8);
    ASSERT_EQ(M.G.validate(), "");
    EXPECT_TRUE(M.G.holds(Hundred));
    // x >> 2 <= 23 does not hold.
    GuardMaker Less;
    Less.fits(Less.node(Op::Sub, Less.constant(23),
                        Less.node(Op::LShr, Less.absoluteId(0), 2, 32)),
              8);
    EXPECT_FALSE(Less.G.holds(Hundred));
  }
  {
    GuardMaker M; // A negative operand of an unsigned minimum fails.
    M.fits(M.node(Op::UMin, M.constant(-1), M.absoluteId(0), 32), 64);
    EXPECT_FALSE(M.G.holds(Hundred));
  }
  {
    GuardMaker M; // Division by a range that reaches zero fails.
    M.fits(M.node(Op::UDiv, M.constant(10), M.absoluteId(0), 32));
    EXPECT_FALSE(M.G.holds(Hundred));
  }
}

TEST(WrapGuardTest, MalformedGuardsAreRefused) {
  GuardMaker M;
  M.node(Op::Add, 0, 0); // Its operands are itself.
  EXPECT_NE(M.G.validate().find("before"), std::string::npos);
  GuardMaker D;
  D.node(Op::WorkItemId, 3);
  EXPECT_NE(D.G.validate().find("dimension"), std::string::npos);
  GuardMaker W;
  W.node(Op::Kernarg, 0, 0, 12);
  EXPECT_NE(W.G.validate().find("width"), std::string::npos);
  GuardMaker K;
  K.node(Op(200));
  EXPECT_NE(K.G.validate().find("unknown"), std::string::npos);
  GuardMaker Many;
  for (size_t I = 0; I <= WrapGuard::MaxNodes; ++I)
    Many.constant(1);
  EXPECT_NE(Many.G.validate(), "");
}

TEST(WrapGuardTest, AppendingKeepsEachGuardsOperands) {
  GuardMaker A = rowMajorIndex(), B;
  B.fits(B.node(Op::Add, B.absoluteId(0), B.constant(5)));
  WrapGuard Both = A.G;
  Both.append(B.G);
  ASSERT_EQ(Both.validate(), "");
  uint32_t Args[5] = {0, 0, 0, 0, 100};
  EXPECT_TRUE(Both.holds(geometry(100, 100, 10, Args, sizeof(Args))));
  // B's requirement alone fails: x + 5 past 2^32 - 1.
  Args[4] = 1;
  EXPECT_TRUE(A.G.holds(geometry(0xfffffffeu, 1, 2, Args, sizeof(Args))));
  EXPECT_FALSE(Both.holds(geometry(0xfffffffeu, 1, 2, Args, sizeof(Args))));
}

} // namespace

namespace {

/// Source finalized with FinalizeRequest::GuardIndexWraps or without.
llvm::Expected<CodeObject> finalizeProgram(const char *Source, bool Guard) {
  auto Brig = openhsa::brig::assembler::assembleHsail(Source);
  if (!Brig)
    return Brig.takeError();
  auto M = openhsa::brig::loadValidatedModule(*Brig, "test.brig");
  if (!M)
    return M.takeError();
  openhsa::finalizer::FinalizeRequest R;
  R.Modules.push_back(std::move(*M));
  R.GuardIndexWraps = Guard;
  return openhsa::finalizer::finalize(R);
}

/// Kernel &k's symbol, Source finalized as finalizeProgram does.
KernelSymbol finalizeGuarded(const char *Source, bool Guard = true) {
  auto CO = finalizeProgram(Source, Guard);
  EXPECT_TRUE(bool(CO)) << llvm::toString(CO.takeError());
  if (!CO)
    return {};
  for (const KernelSymbol &K : CO->Kernels)
    if (K.Name == "&k")
      return K;
  ADD_FAILURE() << "no &k";
  return {};
}

// out[y * width + x] = in[y * width + x] + 1 over a 2-D grid.
const char *RowMajor = R"(module &m:1:0:$full:$large:$default;
prog kernel &k(kernarg_u64 %in, kernarg_u64 %out, kernarg_u32 %width)
{
	workitemabsid_u32	$s0, 0;
	workitemabsid_u32	$s1, 1;
	ld_kernarg_align(4)_width(all)_u32	$s2, [%width];
	mad_u32	$s3, $s1, $s2, $s0;
	cvt_u64_u32	$d0, $s3;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%in];
	add_u64	$d1, $d1, $d0;
	ld_global_f32	$s4, [$d1];
	add_f32	$s4, $s4, 1.0f;
	ld_kernarg_align(8)_width(all)_u64	$d2, [%out];
	add_u64	$d2, $d2, $d0;
	st_global_f32	$s4, [$d2];
	ret;
};
)";

// Each work-item sums column x of an n x n matrix over every Step-th row:
// in[k * n + x], k = 0, Step, ... while k < n. With a step of 16, scalar
// evolution gives no count for the loop (k could wrap before it reaches
// n); the latch's comparison does (WrapGuardBuilder::latchBound).
std::string columnSums(unsigned Step) {
  return R"(module &m:1:0:$full:$large:$default;
prog kernel &k(kernarg_u64 %in, kernarg_u64 %out, kernarg_u32 %n)
{
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(4)_width(all)_u32	$s1, [%n];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%in];
	mov_b32	$s3, 0;
	mov_b32	$s4, 0;
@loop:
	mad_u32	$s5, $s3, $s1, $s0;
	cvt_u64_u32	$d0, $s5;
	shl_u64	$d0, $d0, 2;
	add_u64	$d0, $d1, $d0;
	ld_global_u32	$s6, [$d0];
	add_u32	$s4, $s4, $s6;
	add_u32	$s3, $s3, )" +
         std::to_string(Step) + R"(;
	cmp_lt_b1_u32	$c0, $s3, $s1;
	cbr_b1	$c0, @loop;
	cvt_u64_u32	$d2, $s0;
	shl_u64	$d2, $d2, 2;
	ld_kernarg_align(8)_width(all)_u64	$d3, [%out];
	add_u64	$d3, $d3, $d2;
	st_global_u32	$s4, [$d3];
	ret;
};
)";
}

// An offset read from global memory: no dispatch fixes it.
const char *OffsetFromMemory = R"(module &m:1:0:$full:$large:$default;
prog kernel &k(kernarg_u64 %data)
{
	ld_kernarg_align(8)_width(all)_u64	$d1, [%data];
	ld_global_u32	$s1, [$d1];
	workitemabsid_u32	$s0, 0;
	add_u32	$s2, $s0, $s1;
	cvt_u64_u32	$d0, $s2;
	shl_u64	$d0, $d0, 2;
	add_u64	$d0, $d1, $d0;
	ld_global_u32	$s3, [$d0];
	add_u32	$s3, $s3, 1;
	st_global_u32	$s3, [$d0];
	ret;
};
)";

TEST(WrapGuardTest, TheFinalizerGuardsARowMajorIndex) {
  KernelSymbol K = finalizeGuarded(RowMajor);
  if (K.VectorWidth == 1)
    GTEST_SKIP() << "scalar: " << K.ScalarReason;
  ASSERT_FALSE(K.Guard.empty());
  EXPECT_EQ(K.Guard.validate(), "");
  uint32_t Args[6] = {};
  Args[4] = 4096; // width, after two pointers.
  EXPECT_TRUE(K.Guard.holds(geometry(4094, 4094, 16, Args, sizeof(Args))));
  Args[4] = 1 << 20; // 4096 rows (groups of 16) of 2^20: just below 2^32.
  EXPECT_TRUE(K.Guard.holds(geometry(4094, 4094, 16, Args, sizeof(Args))));
  Args[4] = 1 << 21; // Past 2^32.
  EXPECT_FALSE(K.Guard.holds(geometry(4094, 4094, 16, Args, sizeof(Args))));
  EXPECT_TRUE(finalizeGuarded(RowMajor, /*Guard=*/false).Guard.empty());
}

TEST(WrapGuardTest, TheFinalizerGuardsAnInductionsIndex) {
  KernelSymbol K = finalizeGuarded(columnSums(1).c_str());
  if (K.VectorWidth == 1)
    GTEST_SKIP() << "scalar: " << K.ScalarReason;
  ASSERT_FALSE(K.Guard.empty());
  uint32_t Args[6] = {};
  Args[4] = 1024;
  EXPECT_TRUE(K.Guard.holds(geometry(1024, 1, 64, Args, sizeof(Args))));
  // 65536 columns of 65536: the last column's last index is 2^32 - 1.
  Args[4] = 65536;
  EXPECT_TRUE(K.Guard.holds(geometry(65536, 1, 64, Args, sizeof(Args))));
  Args[4] = 65537;
  EXPECT_FALSE(K.Guard.holds(geometry(65536, 1, 64, Args, sizeof(Args))));
}

TEST(WrapGuardTest, TheFinalizerGuardsAnInductionScalarEvolutionCannotCount) {
  KernelSymbol K = finalizeGuarded(columnSums(16).c_str());
  if (K.VectorWidth == 1)
    GTEST_SKIP() << "scalar: " << K.ScalarReason;
  ASSERT_FALSE(K.Guard.empty());
  uint32_t Args[6] = {};
  Args[4] = 1024; // Rows 0, 16, ..., 1008 of 1024 columns.
  EXPECT_TRUE(K.Guard.holds(geometry(1024, 1, 64, Args, sizeof(Args))));
  // n = 65536: k reaches 65520, the last index 65520 * 65536 + 65535,
  // below 2^32; n = 65537: k reaches 65536, and 65536 * 65537 is past it.
  Args[4] = 65536;
  EXPECT_TRUE(K.Guard.holds(geometry(65536, 1, 64, Args, sizeof(Args))));
  Args[4] = 65537;
  EXPECT_FALSE(K.Guard.holds(geometry(1000, 1, 8, Args, sizeof(Args))));
  // n + 15 past 2^32 - 1: k could wrap before it reaches n.
  Args[4] = 0xfffffff8u;
  EXPECT_FALSE(K.Guard.holds(geometry(1, 1, 1, Args, sizeof(Args))));
}

TEST(WrapGuardTest, AnIndexNoDispatchFixesKeepsItsCheck) {
  KernelSymbol K = finalizeGuarded(OffsetFromMemory);
  EXPECT_TRUE(K.Guard.empty());
}

TEST(WrapGuardTest, GuardsSurviveSerializationAndBadOnesAreRefused) {
  auto CO = finalizeProgram(RowMajor, /*Guard=*/true);
  ASSERT_TRUE(bool(CO)) << llvm::toString(CO.takeError());
  const KernelSymbol &K = CO->Kernels.at(0);
  if (K.VectorWidth == 1)
    GTEST_SKIP() << "scalar: " << K.ScalarReason;
  ASSERT_FALSE(K.Guard.empty());
  auto Back = CodeObject::deserialize(CO->serialize());
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->Kernels.at(0).Guard, K.Guard);
  // An operand after its node, in the bytes: node 2 (the Y id's group
  // times its size, nodes 0 and 1) made to read node 7.
  std::vector<uint8_t> Bytes = CO->serialize();
  const std::string From = "[11,32,false,0,1,0,0]";
  std::string Text(Bytes.begin(), Bytes.end());
  const size_t At = Text.find(From);
  ASSERT_NE(At, std::string::npos) << Text.substr(0, 2000);
  Bytes[At + std::strlen("[11,32,false,")] = '7';
  openhsa::finalizer::sealCodeObject(Bytes);
  auto Bad = CodeObject::deserialize(Bytes);
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(llvm::toString(Bad.takeError()).find("guard"), std::string::npos);
}

} // namespace
