//===- tests/finalizer/GpuCodegenTest.cpp - PTX for GPU agents ------------===//
//
// Finalization for a GPU ISA ("openhsa:nvptx:sm_XY", finalizer/GpuTarget.h)
// on any machine: the PTX's shape, and the clear errors for what GPU agents
// do not run yet. Running the code needs a GPU (tests/gpu/).
//
//===----------------------------------------------------------------------===//
#include "brig/BrigModule.h"
#include "brig/Validator.h"
#include "brig/asm/Assembler.h"
#include "finalizer/Finalizer.h"
#include "finalizer/GpuTarget.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <string>

using namespace openhsa;

namespace {

llvm::Expected<finalizer::CodeObject>
finalizeForGpu(const std::string &Src, uint8_t Profile = 1 /* FULL */,
               const finalizer::ControlDirectives &Directives = {}) {
  auto Brig = brig::assembler::assembleHsail(Src);
  if (!Brig)
    return Brig.takeError();
  static std::vector<std::vector<uint8_t>> Keep; // Modules point into it.
  Keep.push_back(std::move(*Brig));
  auto M = brig::loadValidatedModule(Keep.back(), "gpu.brig");
  if (!M)
    return M.takeError();
  finalizer::FinalizeRequest R;
  R.Modules.push_back(std::move(*M));
  R.IsaName = finalizer::gpuIsaName(90);
  R.Profile = Profile;
  R.Directives = Directives;
  return finalizer::finalize(R);
}

std::string ptxOf(const finalizer::CodeObject &CO) {
  return std::string(CO.Object.begin(), CO.Object.end());
}

const char *Reduce = R"(
module &m:1:0:$full:$large:$default;
kernel &reduce(kernarg_u64 %in, kernarg_u64 %out)
{
	group_u32 %tile[256];
	workitemid_u32 $s0, 0;
	workitemabsid_u32 $s1, 0;
	ld_kernarg_u64 $d0, [%in];
	cvt_u64_u32 $d1, $s1;
	shl_u64 $d1, $d1, 2;
	add_u64 $d1, $d0, $d1;
	ld_global_u32 $s2, [$d1];
	shl_u32 $s3, $s0, 2;
	st_group_u32 $s2, [%tile][$s3];
	barrier;
	mov_b32 $s4, 128;
@loop:
	cmp_lt_b1_u32 $c0, $s0, $s4;
	cbr_b1 $c0, @add;
	br @next;
@add:
	add_u32 $s5, $s0, $s4;
	shl_u32 $s5, $s5, 2;
	ld_group_u32 $s6, [%tile][$s5];
	ld_group_u32 $s7, [%tile][$s3];
	add_u32 $s7, $s7, $s6;
	st_group_u32 $s7, [%tile][$s3];
@next:
	barrier;
	shr_u32 $s4, $s4, 1;
	cmp_ne_b1_u32 $c1, $s4, 0;
	cbr_b1 $c1, @loop;
	cmp_eq_b1_u32 $c2, $s0, 0;
	cbr_b1 $c2, @store;
	ret;
@store:
	ld_group_u32 $s8, [%tile];
	workgroupid_u32 $s9, 0;
	cvt_u64_u32 $d2, $s9;
	shl_u64 $d2, $d2, 2;
	ld_kernarg_u64 $d3, [%out];
	add_u64 $d3, $d3, $d2;
	st_global_u32 $s8, [$d3];
	ret;
};
)";

TEST(GpuCodegenTest, KernelBecomesAPtxEntryWithBarriersAndSharedMemory) {
  auto CO = finalizeForGpu(Reduce);
  ASSERT_TRUE(bool(CO)) << llvm::toString(CO.takeError());
  EXPECT_TRUE(CO->isGpu());
  ASSERT_EQ(CO->Kernels.size(), 1u);
  EXPECT_EQ(CO->Kernels[0].EntrySymbol, "__openhsa_gpu_0");
  EXPECT_EQ(CO->Kernels[0].GroupSegmentSize, 1024u);
  // Barriers: partial work-groups need launches of their own.
  EXPECT_FALSE(CO->Kernels[0].GpuGridGuard);
  const std::string Ptx = ptxOf(*CO);
  EXPECT_NE(Ptx.find(".target sm_90"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find(".entry __openhsa_gpu_0"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("bar.sync"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find(".shared"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("%tid.x"), std::string::npos) << Ptx;
  // The code object serializes and comes back as PTX.
  auto Back = finalizer::CodeObject::deserialize(CO->serialize());
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(ptxOf(*Back), Ptx);
}

// The directives given to the finalizer constrain GPU kernels' dispatches
// as the CPU's (PRM 13.4), and must agree with the kernel's own.
TEST(GpuCodegenTest, FinalizerDirectivesAreRecordedAndChecked) {
  finalizer::ControlDirectives D;
  D.ControlDirectivesMask = (uint64_t(1) << 8) | (uint64_t(1) << 9);
  D.RequiredWorkgroupSize[0] = 64;
  D.RequiredWorkgroupSize[1] = D.RequiredWorkgroupSize[2] = 1;
  auto CO = finalizeForGpu(Reduce, 1, D);
  ASSERT_TRUE(bool(CO)) << llvm::toString(CO.takeError());
  ASSERT_EQ(CO->Kernels.size(), 1u);
  EXPECT_EQ(CO->Kernels[0].RequiredWorkgroupSize[0], 64u);
  EXPECT_EQ(CO->Kernels[0].RequiredWorkgroupSize[1], 1u);
  EXPECT_TRUE(CO->Kernels[0].RequireNoPartialWorkgroups);
  // A kernel that requires another shape.
  std::string Other = Reduce;
  Other.insert(Other.find("{\n") + 2, "\trequiredworkgroupsize 128, 1, 1;\n");
  auto Conflict = finalizeForGpu(Other, 1, D);
  ASSERT_FALSE(bool(Conflict));
  EXPECT_NE(llvm::toString(Conflict.takeError()).find("requiredworkgroupsize"),
            std::string::npos);
}

TEST(GpuCodegenTest, CrossLaneOperationsUseWarpVotesAndShuffles) {
  auto CO = finalizeForGpu(R"(
module &m:1:0:$full:$large:$default;
kernel &k(kernarg_u64 %out)
{
	workitemabsid_u32 $s0, 0;
	and_b32 $s1, $s0, 1;
	cmp_ne_b1_u32 $c1, $s1, 0;
	activelanecount_u32_b1 $s2, $c1;
	activelaneid_u32 $s3;
	activelanepermute_b32 $s4, $s0, 3, 7, 0;
	mov_b32 $s5, WAVESIZE;
	add_u32 $s2, $s2, $s3;
	add_u32 $s2, $s2, $s4;
	add_u32 $s2, $s2, $s5;
	cvt_u64_u32 $d0, $s0;
	shl_u64 $d0, $d0, 2;
	ld_kernarg_u64 $d1, [%out];
	add_u64 $d1, $d1, $d0;
	st_global_u32 $s2, [$d1];
};
)");
  ASSERT_TRUE(bool(CO)) << llvm::toString(CO.takeError());
  // No barrier: one launch, the kernel checks the grid's end itself.
  EXPECT_TRUE(CO->Kernels[0].GpuGridGuard);
  const std::string Ptx = ptxOf(*CO);
  EXPECT_NE(Ptx.find("vote.sync.ballot"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("shfl.sync.idx"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("popc"), std::string::npos) << Ptx;
}

// Every benchmark kernel (benchmarks/kernels/, issue 9's shapes) finalizes
// for the GPU: loops, divergence, barriers, group memory, atomics, f32 math.
TEST(GpuCodegenTest, EveryBenchmarkKernelFinalizes) {
  unsigned Count = 0;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(OPENHSA_BENCH_KERNELS_DIR, EC), End;
       It != End && !EC; It.increment(EC)) {
    if (!llvm::StringRef(It->path()).ends_with(".hsail"))
      continue;
    auto Text = llvm::MemoryBuffer::getFile(It->path());
    ASSERT_TRUE(bool(Text)) << It->path();
    auto CO = finalizeForGpu((*Text)->getBuffer().str());
    EXPECT_TRUE(bool(CO)) << It->path() << ": "
                          << (CO ? "" : llvm::toString(CO.takeError()));
    ++Count;
  }
  EXPECT_GE(Count, 10u);
}

// The base profile's f32 arithmetic (ftz everywhere, any quiet NaN: PRM
// 16.2.1, 4.19.4) is PTX's own .ftz instructions, not the exact software
// paths the full profile needs (which compute in f64).
TEST(GpuCodegenTest, BaseProfileArithmeticIsNativeFtz) {
  auto CO = finalizeForGpu(R"(
module &m:1:0:$base:$large:$default;
prog kernel &k(kernarg_u64 %p)
{
	ld_kernarg_u64 $d0, [%p];
	ld_global_f32 $s0, [$d0];
	ld_global_f32 $s1, [$d0+4];
	ld_global_f32 $s2, [$d0+8];
	mad_ftz_f32 $s3, $s0, $s1, $s2;
	mul_ftz_f32 $s3, $s3, $s1;
	add_ftz_f32 $s3, $s3, $s0;
	div_ftz_f32 $s3, $s3, $s2;
	cmp_gt_ftz_b1_f32 $c0, $s3, $s0;
	cmov_b32 $s3, $c0, $s3, $s1;
	st_global_f32 $s3, [$d0+12];
};
)",
                           0 /* BASE */);
  ASSERT_TRUE(bool(CO)) << llvm::toString(CO.takeError());
  const std::string Ptx = ptxOf(*CO);
  EXPECT_NE(Ptx.find("fma.rn.ftz.f32"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("mul.rn.ftz.f32"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("div.rn.ftz.f32"), std::string::npos) << Ptx;
  EXPECT_EQ(Ptx.find(".f64"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("setp.gt.ftz.f32"), std::string::npos) << Ptx;
  EXPECT_EQ(Ptx.find("setp.nan"), std::string::npos) << Ptx;
  // No software flushing: the sign-bit masks of flush() are absent.
  EXPECT_EQ(Ptx.find("2147483647"), std::string::npos) << Ptx;
}

// Ordered atomics and fences (PRM 6.2, 6.9): LLVM 19's NVPTX back end
// would abort on an acquire load, a release store or a fence, and would
// drop the order of a read-modify-write; they become relaxed accesses
// between memory barriers of their scope. System-scope read-modify-writes
// are PTX's .sys atomics (the host's atomics on mapped memory are in that
// scope only); agent scope stays the default GPU scope.
TEST(GpuCodegenTest, OrderedAtomicsAndFencesBecomeBarriers) {
  auto CO = finalizeForGpu(R"(
module &m:1:0:$full:$large:$default;
prog kernel &k(kernarg_u64 %p)
{
	ld_kernarg_u64 $d0, [%p];
	atomic_ld_global_scacq_system_b32 $s0, [$d0];
	atomicnoret_st_global_screl_system_b32 [$d0+4], $s0;
	atomic_add_global_scar_system_u32 $s1, [$d0+8], 1;
	atomic_cas_global_scar_system_b32 $s2, [$d0+12], 1, 2;
	memfence_scar_system;
	atomic_ld_global_rlx_system_b32 $s3, [$d0+16];
	add_u32 $s0, $s0, $s1;
	add_u32 $s0, $s0, $s2;
	add_u32 $s0, $s0, $s3;
	st_global_u32 $s0, [$d0+20];
	atomicnoret_max_global_scar_system_s32 [$d0+24], $s0;
	atomicnoret_add_global_screl_agent_u32 [$d0+28], $s0;
};
)");
  ASSERT_TRUE(bool(CO)) << llvm::toString(CO.takeError());
  const std::string Ptx = ptxOf(*CO);
  EXPECT_NE(Ptx.find("membar.sys"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("atom.sys.add"), std::string::npos) << Ptx;
  // The cas, and the system-scope max as a compare-and-swap loop.
  EXPECT_NE(Ptx.find("atom.sys.cas.b32"), std::string::npos) << Ptx;
  EXPECT_EQ(Ptx.find("atom.sys.max"), std::string::npos) << Ptx;
  EXPECT_EQ(Ptx.find("atom.global.max"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("ld.volatile"), std::string::npos) << Ptx;
  // The agent-scope add: GPU scope, after a membar.gl.
  EXPECT_NE(Ptx.find("membar.gl"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("\tatom.add.u32"), std::string::npos) << Ptx;
}

// PRM 11.3 queue instructions: atomics on the queue's index words, at
// their ABI offsets from the hsa_queue_t pointer (abi::QueueLayout), in
// host memory the device shares with the host's producers.
TEST(GpuCodegenTest, QueueInstructionsAreAtomicsOnTheIndexWords) {
  auto CO = finalizeForGpu(R"(
module &m:1:0:$full:$large:$default;
kernel &k(kernarg_u64 %q, kernarg_u64 %out)
{
	ld_kernarg_u64 $d0, [%q];
	ld_kernarg_u64 $d1, [%out];
	addqueuewriteindex_global_scar_u64 $d2, [$d0], 1;
	casqueuewriteindex_global_scar_u64 $d3, [$d0], $d2, 7;
	ldqueuereadindex_global_scacq_u64 $d4, [$d0];
	stqueuereadindex_global_screl_u64 [$d0], $d4;
	st_global_u64 $d2, [$d1];
	st_global_u64 $d3, [$d1+8];
};
)");
  ASSERT_TRUE(bool(CO)) << llvm::toString(CO.takeError());
  const std::string Ptx = ptxOf(*CO);
  EXPECT_NE(Ptx.find("atom.sys.add.u64"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("atom.sys.cas.b64"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find(", 64;"), std::string::npos) << Ptx; // Write index.
  EXPECT_NE(Ptx.find("+128]"), std::string::npos) << Ptx; // Read index.
  EXPECT_NE(Ptx.find("membar.sys"), std::string::npos) << Ptx;
}

// clock reads the device's nanosecond timer, in the host's ticks; signal
// instructions are system-scope atomics on the signal's value and waits
// poll it (finalizer/GpuTarget.cpp).
TEST(GpuCodegenTest, ClockAndSignalsRunOnTheDevice) {
  auto CO = finalizeForGpu(R"(
module &m:1:0:$full:$large:$default;
kernel &k(kernarg_u64 %out, kernarg_sig64 %s)
{
	clock_u64 $d0;
	ld_kernarg_u64 $d1, [%out];
	st_global_u64 $d0, [$d1];
	ld_kernarg_sig64 $d2, [%s];
	signal_add_screl_s64_sig64 $d3, $d2, 1;
	signal_wait_eq_scacq_s64_sig64 $d5, $d2, 5;
	signal_waittimeout_lt_rlx_s64_sig64 $d4, $d2, 0, 1000;
	st_global_u64 $d4, [$d1+8];
};
)");
  ASSERT_TRUE(bool(CO)) << llvm::toString(CO.takeError());
  const std::string Ptx = ptxOf(*CO);
  EXPECT_NE(Ptx.find("%globaltimer"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("cas.b64"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("nanosleep"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("membar.sys"), std::string::npos) << Ptx;
}

// A variable's declaration and definition (PRM 4.3) share one PTX name:
// the loader finds it under either symbol.
TEST(GpuCodegenTest, DeclarationAndDefinitionShareTheirPtxName) {
  auto CO = finalizeForGpu(R"(
module &m:1:0:$full:$large:$default;
decl prog global_u32 &imported;
prog kernel &k(kernarg_u64 %out)
{
	ld_global_u32 $s0, [&imported];
	ld_kernarg_u64 $d0, [%out];
	st_global_u32 $s0, [$d0];
};
prog global_u32 &imported = 42;
)");
  ASSERT_TRUE(bool(CO)) << llvm::toString(CO.takeError());
  unsigned Seen = 0;
  for (const auto &V : CO->Variables)
    if (V.Name == "&imported") {
      ++Seen;
      EXPECT_EQ(V.ObjectSymbol, "hsa_$_var_$__$_imported");
    }
  EXPECT_GE(Seen, 1u);
  EXPECT_NE(ptxOf(*CO).find("hsa_$_var_$__$_imported"), std::string::npos);
}

// Indirect functions (PRM 10.8): each gets a variable the PTX initializes
// with the device function's address, which the loader reads as the code
// handle; icall calls through a prototype.
TEST(GpuCodegenTest, IndirectFunctionsGetDeviceHandles) {
  auto CO = finalizeForGpu(R"(
module &m:1:0:$full:$large:$default;
signature &unary(arg_u32 %r)(arg_u32 %x);
indirect function &negate(arg_u32 %r)(arg_u32 %x)
{
	ld_arg_u32 $s0, [%x];
	neg_s32 $s0, $s0;
	st_arg_u32 $s0, [%r];
	ret;
};
prog kernel &k(kernarg_u64 %out, kernarg_u64 %f)
{
	ld_kernarg_u64 $d0, [%out];
	ld_kernarg_u64 $d1, [%f];
	{
		arg_u32 %r;
		arg_u32 %x;
		st_arg_u32 5, [%x];
		icall_u64 $d1 (%r) (%x) &unary;
		ld_arg_u32 $s1, [%r];
	}
	st_global_u32 $s1, [$d0];
};
)");
  ASSERT_TRUE(bool(CO)) << llvm::toString(CO.takeError());
  ASSERT_EQ(CO->IndirectFunctions.size(), 1u);
  const std::string &Handle = CO->IndirectFunctions[0].ObjectSymbol;
  const std::string Ptx = ptxOf(*CO);
  EXPECT_NE(Ptx.find(".global .align 8 .u64 " + Handle), std::string::npos)
      << Handle << "\n"
      << Ptx;
  EXPECT_NE(Ptx.find("prototype"), std::string::npos) << Ptx;
}

// Fbarriers are a 64-bit word of group memory updated with
// compare-and-swap; waits spin on it between work-group fences
// (finalizer/LowerFbarrier.cpp).
TEST(GpuCodegenTest, FbarriersBecomeGroupMemoryAtomics) {
  auto CO = finalizeForGpu(R"(
module &m:1:0:$full:$large:$default;
kernel &k()
{
	fbarrier %fb;
	initfbar %fb;
	joinfbar %fb;
	waitfbar %fb;
	arrivefbar %fb;
	leavefbar %fb;
	releasefbar %fb;
};
)");
  ASSERT_TRUE(bool(CO)) << llvm::toString(CO.takeError());
  const std::string Ptx = ptxOf(*CO);
  EXPECT_NE(Ptx.find("cas.b64"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("membar.cta"), std::string::npos) << Ptx;
  EXPECT_EQ(Ptx.find("membar.sys"), std::string::npos) << Ptx;
}

// Recursion and alloca use the private segment as a stack, as on the CPU:
// PTX local memory.
TEST(GpuCodegenTest, RecursionAndAllocaFinalize) {
  auto CO = finalizeForGpu(R"(
module &m:1:0:$full:$large:$default;
function &fact(arg_u64 %r)(arg_u32 %n)
{
	private_u32 %keep;
	ld_arg_u32	$s0, [%n];
	st_private_u32	$s0, [%keep];
	cmp_le_b1_u32	$c0, $s0, 1;
	cbr_b1	$c0, @base;
	{
		arg_u64 %sub;
		arg_u32 %m;
		sub_u32	$s1, $s0, 1;
		st_arg_u32	$s1, [%m];
		call	&fact (%sub) (%m);
		ld_arg_u64	$d0, [%sub];
	}
	ld_private_u32	$s2, [%keep];
	cvt_u64_u32	$d1, $s2;
	mul_u64	$d0, $d0, $d1;
	st_arg_u64	$d0, [%r];
	ret;
@base:
	st_arg_u64	1, [%r];
	ret;
};
kernel &k(kernarg_u64 %out)
{
	alloca_align(4)_u32 $s3, 64;
	st_private_u32 5, [$s3];
	workitemabsid_u32	$s0, 0;
	{
		arg_u64 %r;
		arg_u32 %n;
		st_arg_u32	$s0, [%n];
		call	&fact (%r) (%n);
		ld_arg_u64	$d1, [%r];
	}
	ld_kernarg_u64	$d3, [%out];
	st_global_u64	$d1, [$d3];
	ret;
};
)");
  ASSERT_TRUE(bool(CO)) << llvm::toString(CO.takeError());
  EXPECT_NE(ptxOf(*CO).find(".entry"), std::string::npos);
}

// DETECT exceptions are computed by the finalizer's own float code and
// kept per work-item, as on the CPU; getdetectexcept's wavefront OR is a
// warp ballot.
TEST(GpuCodegenTest, DetectExceptionsFinalize) {
  auto CO = finalizeForGpu(R"(
module &m:1:0:$full:$large:$default;
kernel &k(kernarg_u64 %out)
{
	enabledetectexceptions 0x1f;
	ld_kernarg_u64 $d0, [%out];
	ld_global_f32 $s0, [$d0];
	div_f32 $s1, $s0, 0F00000000;
	st_global_f32 $s1, [$d0+4];
	getdetectexcept_u32 $s2;
	st_global_u32 $s2, [$d0+8];
};
)");
  ASSERT_TRUE(bool(CO)) << llvm::toString(CO.takeError());
  EXPECT_NE(ptxOf(*CO).find("vote"), std::string::npos);
}

} // namespace
