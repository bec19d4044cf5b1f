//===- tests/finalizer/FinalizerTest.cpp - The CPU finalizer, end to end --===//
//
// HSAIL text through the assembler, finalizer and JIT loader, run directly
// (no runtime), results compared with host computations.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

#include <cmath>
#include <limits>

using namespace openhsa::test;

namespace {

template <typename T> struct Args3 {
  T *A;
  T *B;
  T *C;
  uint32_t N;
};

const char *VectorAdd = R"(
module &m:1:0:$full:$large:$default;
kernel &vector_add(kernarg_u64 %a, kernarg_u64 %b, kernarg_u64 %c, kernarg_u32 %n)
{
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(4)_width(all)_u32	$s1, [%n];
	cmp_ge_b1_u32	$c0, $s0, $s1;
	cbr_b1	$c0, @done;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%a];
	ld_kernarg_align(8)_width(all)_u64	$d2, [%b];
	ld_kernarg_align(8)_width(all)_u64	$d3, [%c];
	add_u64	$d1, $d1, $d0;
	add_u64	$d2, $d2, $d0;
	add_u64	$d3, $d3, $d0;
	ld_global_f32	$s2, [$d1];
	ld_global_f32	$s3, [$d2];
	add_f32	$s2, $s2, $s3;
	st_global_f32	$s2, [$d3];
@done:
	ret;
};
)";

// PRM 4.21 (kernarg layout), 5.2 (add), 6.3 (ld/st), 11.1 (workitemabsid).
TEST(FinalizerTest, VectorAddWithPartialLastGroup) {
  auto P = finalizeText(VectorAdd);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const auto *K = P->kernel("&vector_add");
  ASSERT_NE(K, nullptr);
  EXPECT_EQ(K->KernargSegmentSize, 28u);
  const uint32_t N = 1000;
  std::vector<float> A(N), B(N), C(N + 8, -1.0f);
  for (uint32_t I = 0; I < N; ++I) {
    A[I] = float(I);
    B[I] = 0.5f * float(I);
  }
  Args3<float> Args{A.data(), B.data(), C.data(), N};
  Grid G;
  G.Size[0] = 1003; // Three work-items beyond n: the kernel's guard skips them.
  G.WorkGroup[0] = 64;
  runKernel(*P, "&vector_add", G, &Args);
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(C[I], A[I] + B[I]) << I;
  EXPECT_EQ(C[N], -1.0f);
}

const char *IdsKernel = R"(
module &m:1:0:$full:$large:$default;
kernel &ids(kernarg_u64 %out)
{
	workitemflatabsid_u32	$s0;
	workitemabsid_u32	$s1, 0;
	workitemabsid_u32	$s2, 1;
	workitemabsid_u32	$s3, 2;
	currentworkgroupsize_u32	$s4, 0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 4;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s1, [$d1];
	st_global_u32	$s2, [$d1+4];
	st_global_u32	$s3, [$d1+8];
	st_global_u32	$s4, [$d1+12];
	ret;
};
)";

// PRM 11.1: every work-item of a 3-D grid with partial groups runs once.
TEST(FinalizerTest, ThreeDimensionalGridVisitsEveryWorkItemOnce) {
  auto P = finalizeText(IdsKernel);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  Grid G;
  G.Dims = 3;
  G.Size[0] = 10;
  G.Size[1] = 7;
  G.Size[2] = 3;
  G.WorkGroup[0] = 4;
  G.WorkGroup[1] = 3;
  G.WorkGroup[2] = 2;
  const size_t Items = 10 * 7 * 3;
  std::vector<uint32_t> Out(Items * 4, 0xdeadbeef);
  uint32_t *OutPtr = Out.data();
  runKernel(*P, "&ids", G, &OutPtr);
  for (uint32_t Z = 0; Z < 3; ++Z)
    for (uint32_t Y = 0; Y < 7; ++Y)
      for (uint32_t X = 0; X < 10; ++X) {
        size_t Flat = X + 10 * (Y + 7 * Z);
        EXPECT_EQ(Out[Flat * 4 + 0], X);
        EXPECT_EQ(Out[Flat * 4 + 1], Y);
        EXPECT_EQ(Out[Flat * 4 + 2], Z);
        EXPECT_EQ(Out[Flat * 4 + 3], X >= 8 ? 2u : 4u); // Partial in x.
      }
}

const char *ReverseInGroup = R"(
module &m:1:0:$full:$large:$default;
kernel &reverse(kernarg_u64 %data)
{
	group_u32 %tile[64];
	workitemid_u32	$s0, 0;
	workitemabsid_u32	$s1, 0;
	ld_kernarg_align(8)_width(all)_u64	$d0, [%data];
	cvt_u64_u32	$d1, $s1;
	shl_u64	$d1, $d1, 2;
	add_u64	$d0, $d0, $d1;
	ld_global_u32	$s2, [$d0];
	shl_u32	$s3, $s0, 2;
	st_group_u32	$s2, [%tile][$s3];
	barrier;
	mov_b32	$s4, 63;
	sub_u32	$s4, $s4, $s0;
	shl_u32	$s4, $s4, 2;
	ld_group_u32	$s5, [%tile][$s4];
	st_global_u32	$s5, [$d0];
	ret;
};
)";

// PRM 9.1 (barrier), 4.5 (group segment): values cross a barrier through
// group memory and registers survive it.
TEST(FinalizerTest, BarrierReversesEachGroupThroughGroupMemory) {
  auto P = finalizeText(ReverseInGroup);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(P->kernel("&reverse")->GroupSegmentSize, 256u);
  std::vector<uint32_t> Data(256);
  for (uint32_t I = 0; I < 256; ++I)
    Data[I] = I;
  uint32_t *Ptr = Data.data();
  Grid G;
  G.Size[0] = 256;
  G.WorkGroup[0] = 64;
  runKernel(*P, "&reverse", G, &Ptr);
  for (uint32_t I = 0; I < 256; ++I)
    EXPECT_EQ(Data[I], (I / 64) * 64 + 63 - I % 64) << I;
}

const char *LoopSum = R"(
module &m:1:0:$full:$large:$default;
kernel &loop_sum(kernarg_u64 %out, kernarg_u32 %n)
{
	ld_kernarg_align(4)_width(all)_u32	$s0, [%n];
	mov_b32	$s1, 0;
	mov_b32	$s2, 0;
@loop:
	cmp_ge_b1_u32	$c0, $s2, $s0;
	cbr_b1	$c0, @end;
	add_u32	$s1, $s1, $s2;
	add_u32	$s2, $s2, 1;
	br	@loop;
@end:
	ld_kernarg_align(8)_width(all)_u64	$d0, [%out];
	st_global_u32	$s1, [$d0];
	ret;
};
)";

// PRM 8.1 (br/cbr): a loop.
TEST(FinalizerTest, LoopWithBranches) {
  auto P = finalizeText(LoopSum);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  struct {
    uint32_t *Out;
    uint32_t N;
  } Args;
  uint32_t Result = 0;
  Args.Out = &Result;
  Args.N = 100;
  runKernel(*P, "&loop_sum", Grid{}, &Args);
  EXPECT_EQ(Result, 4950u);
}

const char *IntegerEdges = R"(
module &m:1:0:$full:$large:$default;
kernel &edges(kernarg_u64 %out, kernarg_s32 %a, kernarg_s32 %b)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%out];
	ld_kernarg_align(4)_width(all)_s32	$s0, [%a];
	ld_kernarg_align(4)_width(all)_s32	$s1, [%b];
	div_s32	$s2, $s0, $s1;
	st_global_s32	$s2, [$d0];
	rem_s32	$s2, $s0, $s1;
	st_global_s32	$s2, [$d0+4];
	shr_s32	$s2, $s0, 33;
	st_global_s32	$s2, [$d0+8];
	mulhi_s32	$s2, $s0, $s1;
	st_global_s32	$s2, [$d0+12];
	cmp_lt_s32_s32	$s2, $s0, $s1;
	st_global_s32	$s2, [$d0+16];
	ret;
};
)";

// PRM 5.2/5.8/5.18: division by zero and INT_MIN/-1 must not trap the
// host; shift amounts use their low bits; integer compare results are all
// ones.
TEST(FinalizerTest, IntegerEdgeCasesDoNotTrap) {
  auto P = finalizeText(IntegerEdges);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  struct {
    int32_t *Out;
    int32_t A, B;
  } Args;
  int32_t Out[5];
  Args.Out = Out;
  Args.A = std::numeric_limits<int32_t>::min();
  Args.B = -1;
  runKernel(*P, "&edges", Grid{}, &Args);
  EXPECT_EQ(Out[2], Args.A >> 1);
  EXPECT_EQ(Out[3], int32_t((int64_t(Args.A) * -1) >> 32));
  EXPECT_EQ(Out[4], -1);
  Args.B = 0;
  runKernel(*P, "&edges", Grid{}, &Args); // Must not raise SIGFPE.
}

// PRM 18 / finalizer errors: unsupported instructions fail with their name
// and BRIG offset instead of producing wrong code.
TEST(FinalizerTest, UnsupportedInstructionNamesItself) {
  const char *Src = R"(
module &m:1:0:$full:$large:$default;
extension "IMAGE";
kernel &k(kernarg_u64 %out)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%out];
	imagefence;
	ret;
};
)";
  auto P = finalizeText(Src);
  ASSERT_FALSE(bool(P));
  std::string Message = llvm::toString(P.takeError());
  EXPECT_NE(Message.find("imagefence"), std::string::npos) << Message;
  EXPECT_NE(Message.find("hsa_code+0x"), std::string::npos) << Message;
}

// A code object survives serialization, and garbage is refused cleanly.
TEST(FinalizerTest, CodeObjectRoundTripAndGarbage) {
  auto P = finalizeText(VectorAdd);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  std::vector<uint8_t> Bytes = P->Code.serialize();
  auto Back = openhsa::finalizer::CodeObject::deserialize(Bytes);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->IsaName, P->Code.IsaName);
  ASSERT_EQ(Back->Kernels.size(), 1u);
  EXPECT_EQ(Back->Kernels[0].EntrySymbol, P->Code.Kernels[0].EntrySymbol);
  EXPECT_EQ(Back->Object, P->Code.Object);
  for (size_t Cut : {size_t(0), size_t(7), size_t(20), Bytes.size() - 1}) {
    std::vector<uint8_t> Short(Bytes.begin(), Bytes.begin() + Cut);
    auto Bad = openhsa::finalizer::CodeObject::deserialize(Short);
    EXPECT_FALSE(bool(Bad));
    llvm::consumeError(Bad.takeError());
  }
}

// Finalizations share the host's target machines (a pool in
// finalizer/Codegen.cpp; a machine serves one compilation at a time) and
// its data layout: several at once, each twice, make the object one
// finalization alone makes, and each loads.
TEST(FinalizerTest, ConcurrentFinalizationsMakeTheSameObject) {
  if (runsOnGpu())
    GTEST_SKIP() << "host objects";
  auto Alone = finalizeText(VectorAdd);
  ASSERT_TRUE(bool(Alone)) << llvm::toString(Alone.takeError());
  constexpr size_t Threads = 4, Rounds = 2;
  std::vector<std::vector<uint8_t>> Objects(Threads * Rounds);
  std::vector<std::string> Errors(Threads);
  std::vector<std::thread> Running;
  for (size_t T = 0; T < Threads; ++T)
    Running.emplace_back([&, T] {
      for (size_t R = 0; R < Rounds; ++R) {
        auto P = finalizeText(VectorAdd);
        if (!P) {
          Errors[T] = llvm::toString(P.takeError());
          return;
        }
        Objects[T * Rounds + R] = P->Code.Object;
      }
    });
  for (std::thread &T : Running)
    T.join();
  for (size_t T = 0; T < Threads; ++T)
    EXPECT_EQ(Errors[T], "") << "thread " << T;
  for (size_t I = 0; I < Objects.size(); ++I)
    EXPECT_EQ(Objects[I], Alone->Code.Object) << "finalization " << I;
}

} // namespace

namespace {

// The bounds checks that UniformConditions (finalizer/UniformConditions.h)
// versions work-item loops on: each ordered comparison, signed and
// unsigned, with the work-item's value on either side, against bounds
// before, inside, at the edge of and after work-groups, and on values that
// wrap inside a work-group (id + K), where the versioned copy must not run.
struct BoundsCheck {
  const char *Op;
  const char *Type;
  bool Swapped;
};

const BoundsCheck BoundsChecks[] = {
    {"lt", "u32", false}, {"le", "u32", false}, {"gt", "u32", false},
    {"ge", "u32", false}, {"lt", "s32", false}, {"le", "s32", false},
    {"gt", "s32", false}, {"ge", "s32", false}, {"lt", "u32", true},
    {"ge", "u32", true},  {"lt", "s32", true},  {"ge", "s32", true},
};

std::string boundsCheckKernels() {
  std::string S = "module &m:1:0:$full:$large:$default;\n";
  for (unsigned K = 0; K < std::size(BoundsChecks); ++K) {
    const BoundsCheck &C = BoundsChecks[K];
    S += "kernel &check" + std::to_string(K) +
         "(kernarg_u64 %out, kernarg_u32 %n, kernarg_u32 %k)\n{\n"
         "\tld_kernarg_align(8)_width(all)_u64\t$d0, [%out];\n"
         "\tld_kernarg_width(all)_u32\t$s1, [%n];\n"
         "\tld_kernarg_width(all)_u32\t$s2, [%k];\n"
         "\tworkitemabsid_u32\t$s0, 0;\n"
         "\tadd_u32\t$s3, $s0, $s2;\n";
    S += std::string("\tcmp_") + C.Op + "_b1_" + C.Type + "\t$c0, " +
         (C.Swapped ? "$s1, $s3" : "$s3, $s1") + ";\n";
    S += "\tcbr_b1\t$c0, @skip;\n"
         "\tcvt_u64_u32\t$d1, $s0;\n"
         "\tshl_u64\t$d1, $d1, 2;\n"
         "\tadd_u64\t$d1, $d0, $d1;\n"
         "\tst_global_u32\t$s0, [$d1];\n"
         "@skip:\n"
         "\tret;\n};\n";
  }
  return S;
}

bool hostCondition(const BoundsCheck &C, uint32_t A, uint32_t B) {
  if (C.Swapped)
    std::swap(A, B);
  const bool Signed = C.Type[0] == 's';
  const int64_t X = Signed ? int64_t(int32_t(A)) : int64_t(A);
  const int64_t Y = Signed ? int64_t(int32_t(B)) : int64_t(B);
  const std::string Op = C.Op;
  return Op == "lt" ? X < Y : Op == "le" ? X <= Y : Op == "gt" ? X > Y : X >= Y;
}

TEST(FinalizerTest, BoundsChecksHoldOrFailForWholeGroupsAndWrap) {
  auto P = finalizeText(boundsCheckKernels());
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  constexpr uint32_t Items = 1000;
  const uint32_t Bounds[] = {0,    1,           63,          64,
                             65,   500,         999,         1000,
                             5000, 0xffffffffu, 0x80000000u, 0x7fffffffu};
  const uint32_t Offsets[] = {0, 0xffffffffu - 100, 0x7fffffffu - 200, 50};
  std::vector<uint32_t> Out(Items);
  for (unsigned K = 0; K < std::size(BoundsChecks); ++K)
    for (uint32_t N : Bounds)
      for (uint32_t Off : Offsets) {
        std::fill(Out.begin(), Out.end(), 0xdeadbeefu);
        struct {
          uint32_t *Out;
          uint32_t N, K;
        } Args{Out.data(), N, Off};
        Grid G;
        G.Size[0] = Items;
        G.WorkGroup[0] = 64;
        runKernel(*P, "&check" + std::to_string(K), G, &Args);
        unsigned Wrong = 0;
        for (uint32_t I = 0; I < Items; ++I) {
          const uint32_t Want =
              hostCondition(BoundsChecks[K], I + Off, N) ? 0xdeadbeefu : I;
          Wrong += Out[I] != Want;
        }
        EXPECT_EQ(Wrong, 0u)
            << "cmp_" << BoundsChecks[K].Op << "_" << BoundsChecks[K].Type
            << (BoundsChecks[K].Swapped ? " swapped" : "") << " n=" << N
            << " k=" << Off;
      }
}

} // namespace

namespace {

const char *SwitchBranch = R"(
module &m:1:0:$full:$large:$default;
kernel &switch(kernarg_u64 %out)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%out];
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d1, $s0;
	shl_u64	$d2, $d1, 2;
	add_u64	$d2, $d0, $d2;
	rem_u32	$s1, $s0, 5;
	mov_b32	$s2, 100;
	sbr_u32	$s1 [@zero, @one, @two, @zero];
	// Indices 4 and up are past the list: they fall through here.
	mov_b32	$s2, 99;
	br	@done;
@zero:
	mov_b32	$s2, 10;
	br	@done;
@one:
	mov_b32	$s2, 11;
	br	@done;
@two:
	// A 64-bit index, uniform across the group.
	workgroupid_u32	$s3, 0;
	cvt_u64_u32	$d3, $s3;
	and_b64	$d3, $d3, 1;
	mov_b32	$s2, 20;
	sbr_width(all)_u64	$d3 [@done, @twenty_one];
@twenty_one:
	mov_b32	$s2, 21;
@done:
	st_global_u32	$s2, [$d2];
	ret;
};
)";

// PRM 8.2: sbr with 32- and 64-bit indices and width modifiers.
TEST(FinalizerTest, SwitchBranch) {
  auto P = finalizeText(SwitchBranch);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  constexpr uint32_t Items = 100, WgSize = 8;
  std::vector<uint32_t> Out(Items, 0);
  struct {
    uint32_t *Out;
  } Args{Out.data()};
  Grid G;
  G.Size[0] = Items;
  G.WorkGroup[0] = WgSize;
  runKernel(*P, "&switch", G, &Args);
  for (uint32_t I = 0; I < Items; ++I) {
    const uint32_t Want[] = {10, 11, (I / WgSize) % 2 ? 21u : 20u, 10, 99};
    EXPECT_EQ(Out[I], Want[I % 5]) << "work-item " << I;
  }
}

} // namespace

#include "IrText.h"
#include "finalizer/Codegen.h"
#include "tests/support/ScopedEnv.h"

#include "llvm/IR/IRBuilder.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace {

// Invalid IR from the lowering is an internal error: the verifier's report
// is the llvm::Error's message and nothing is printed to the program's
// stderr (fuzz_finalizer reports such an error as a finding).
TEST(FinalizerTest, InvalidLoweredIrIsAnErrorWithTheVerifierReport) {
  llvm::LLVMContext Ctx;
  llvm::Module M("broken", Ctx);
  auto *Fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(Ctx), false),
      llvm::Function::ExternalLinkage, "no_terminator", M);
  llvm::BasicBlock *BB = llvm::BasicBlock::Create(Ctx, "entry", Fn);
  llvm::IRBuilder<> B(BB);
  B.CreateAlloca(B.getInt32Ty()); // A block without a terminator.
  testing::internal::CaptureStderr();
  auto Object = openhsa::finalizer::compileToObject(M);
  const std::string Printed = testing::internal::GetCapturedStderr();
  ASSERT_FALSE(bool(Object));
  const std::string Message = llvm::toString(Object.takeError());
  EXPECT_NE(Message.find("internal error"), std::string::npos) << Message;
  EXPECT_NE(Message.find("no_terminator"), std::string::npos) << Message;
  EXPECT_NE(Message.find("terminator"), std::string::npos) << Message;
  EXPECT_EQ(Printed, "");
}

/// A module of one function: F(x) = x * C + 1.25 (constants from the
/// constant pool) and a call to memset (a relocation), named Name.
std::unique_ptr<llvm::Module> constantsModule(llvm::LLVMContext &Ctx,
                                              llvm::StringRef Name, float C) {
  auto M = std::make_unique<llvm::Module>(Name, Ctx);
  auto *F32 = llvm::Type::getFloatTy(Ctx);
  auto *Ptr = llvm::PointerType::get(Ctx, 0);
  auto *Fn =
      llvm::Function::Create(llvm::FunctionType::get(F32, {F32, Ptr}, false),
                             llvm::Function::ExternalLinkage, Name, *M);
  llvm::IRBuilder<> B(llvm::BasicBlock::Create(Ctx, "entry", Fn));
  B.CreateMemSet(Fn->getArg(1), B.getInt8(0), B.getInt64(4096),
                 llvm::MaybeAlign(16));
  B.CreateRet(
      B.CreateFAdd(B.CreateFMul(Fn->getArg(0), llvm::ConstantFP::get(F32, C)),
                   llvm::ConstantFP::get(F32, 1.25)));
  return M;
}

// Code generation's pipeline is built once per pooled target machine and
// run for module after module: nothing of one module may reach the next.
// The same module compiled before and after others (in between, one with
// other symbols and constants, and one the verifier refuses) gives the
// same bytes.
TEST(FinalizerTest, ObjectsDoNotDependOnWhatWasCompiledBefore) {
  llvm::LLVMContext Ctx;
  auto First =
      openhsa::finalizer::compileToObject(*constantsModule(Ctx, "first", 3.5f));
  ASSERT_TRUE(bool(First)) << llvm::toString(First.takeError());
  for (int I = 0; I < 3; ++I) {
    auto Other = openhsa::finalizer::compileToObject(
        *constantsModule(Ctx, "other" + std::to_string(I), 7.0f + I));
    ASSERT_TRUE(bool(Other)) << llvm::toString(Other.takeError());
    EXPECT_NE(*Other, *First);
  }
  llvm::Module Broken("broken", Ctx);
  llvm::BasicBlock::Create(
      Ctx, "entry",
      llvm::Function::Create(
          llvm::FunctionType::get(llvm::Type::getVoidTy(Ctx), false),
          llvm::Function::ExternalLinkage, "no_terminator", Broken));
  auto Refused = openhsa::finalizer::compileToObject(Broken);
  ASSERT_FALSE(bool(Refused));
  llvm::consumeError(Refused.takeError());
  auto Again =
      openhsa::finalizer::compileToObject(*constantsModule(Ctx, "first", 3.5f));
  ASSERT_TRUE(bool(Again)) << llvm::toString(Again.takeError());
  EXPECT_EQ(*Again, *First);
}

// Code generation for the host skips Loop Strength Reduction (its costliest
// pass in kernels with loops; Codegen.h): a loop over a[i * k] keeps its
// multiply where LSR would have made it a pointer increment, and LLVM's
// own gate still decides for the other passes.
TEST(FinalizerTest, HostCodeGenerationLeavesLoopsToTheirMultiplies) {
  const char *Strided = R"(
define void @strided(ptr %a, ptr %out, i64 %n, i64 %k) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %sum = phi float [ 0.0, %entry ], [ %s, %loop ]
  %idx = mul i64 %i, %k
  %p = getelementptr float, ptr %a, i64 %idx
  %v = load float, ptr %p
  %s = fadd float %sum, %v
  %i.next = add i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  store float %s, ptr %out
  ret void
}
)";
  // The loop's assembly, from its header's label (the function's only
  // block label) to the branch back to it, and whether the context had our
  // gate; KeepLsr marks the function as a lockstep group's is.
  auto CompiledLoop = [&](bool KeepLsr, bool &Gated) -> std::string {
    char Dir[] = "/tmp/openhsa-codegen-XXXXXX";
    if (!mkdtemp(Dir))
      return "no directory";
    llvm::LLVMContext Ctx;
    std::unique_ptr<llvm::Module> M = openhsa::test::parseIr(Strided, Ctx);
    if (!M)
      return "no module";
    if (KeepLsr)
      M->getFunction("strided")->addFnAttr(
          openhsa::finalizer::KeepsLoopStrengthReductionAttr);
    {
      openhsa::test::ScopedEnv Asm("OPENHSA_DUMP_ASM", Dir);
      auto Object = openhsa::finalizer::compileToObject(*M);
      if (!Object)
        return llvm::toString(Object.takeError());
    }
    Gated = &Ctx.getOptPassGate() == &openhsa::finalizer::hostCodegenPassGate();
    const std::string Path = std::string(Dir) + "/" + M->getName().str() + ".s";
    std::stringstream Text;
    Text << std::ifstream(Path).rdbuf();
    std::remove(Path.c_str());
    std::remove((std::string(Dir) + "/" + M->getName().str() + ".o").c_str());
    rmdir(Dir);
    const std::string Asm = Text.str();
    const size_t Label = Asm.find(".LBB0_");
    const size_t Colon = Asm.find(':', Label);
    if (Label == std::string::npos || Colon == std::string::npos)
      return "no loop in " + Asm;
    const std::string Header = Asm.substr(Label, Colon - Label);
    const size_t BackEdge = Asm.find("\t" + Header + "\n", Colon);
    if (BackEdge == std::string::npos)
      return "no back edge in " + Asm;
    return Asm.substr(Colon, BackEdge - Colon);
  };
  bool Gated = false;
  const std::string Plain = CompiledLoop(false, Gated);
  EXPECT_TRUE(Gated);
  EXPECT_NE(Plain.find("imul"), std::string::npos) << Plain;
  // A lockstep group's code keeps LSR: the multiply becomes an increment.
  const std::string Kept = CompiledLoop(true, Gated);
  EXPECT_FALSE(Gated);
  EXPECT_EQ(Kept.find("imul"), std::string::npos) << Kept;
  EXPECT_NE(Kept.find("add"), std::string::npos) << Kept;

  llvm::OptPassGate &Gate = openhsa::finalizer::hostCodegenPassGate();
  EXPECT_TRUE(Gate.isEnabled());
  EXPECT_FALSE(Gate.shouldRunPass("Loop Strength Reduction", "loop"));
  EXPECT_TRUE(Gate.shouldRunPass("X86 DAG->DAG Instruction Selection", "f"));
}

} // namespace

namespace {

// Found by fuzz_finalizer (tests/finalizer/fuzz_regressions/
// empty_body_after_undefined_store.hsail): a body that is undefined behaviour
// on every path (PRM 5.3: a register read before any write has no defined
// value; a store through it has no defined address) optimized to nothing,
// so the kernel's entry had no code: address 0 when alone, the next
// kernel's entry otherwise. Every kernel must have code of its own.
TEST(FinalizerTest, KernelOptimizedToNothingStillHasItsOwnEntry) {
  if (runsOnGpu())
    GTEST_SKIP() << "entries of host code";
  for (unsigned Width : {0u, 1u}) {
    auto P = finalizeText(R"(
module &m:1:0:$full:$large:$default;
kernel &ub()
{
	st_global_u8 -1, [$d1];
	ret;
};
kernel &ok()
{
	ret;
};
)",
                          Width);
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    void *Entries[2] = {};
    const char *Names[2] = {"&ub", "&ok"};
    for (int I = 0; I < 2; ++I) {
      const openhsa::finalizer::KernelSymbol *K = P->kernel(Names[I]);
      ASSERT_NE(K, nullptr) << Names[I];
      auto Entry = P->Loaded->address(K->EntrySymbol);
      ASSERT_TRUE(bool(Entry)) << llvm::toString(Entry.takeError());
      Entries[I] = *Entry;
      EXPECT_NE(Entries[I], nullptr) << Names[I] << ", width " << Width;
    }
    EXPECT_NE(Entries[0], Entries[1]) << "width " << Width;
  }
}

} // namespace
