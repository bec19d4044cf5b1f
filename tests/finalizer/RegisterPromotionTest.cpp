//===- tests/finalizer/RegisterPromotionTest.cpp - Registers across barriers =//
//
// finalizer/PromoteRegisterFile.h: a resumable kernel keeps in its register
// file only what is live across a barrier, computes work-item ids and
// kernarg values again after a barrier rather than saving them, and so its
// vectorized body keeps the lanes' strides: the group and global accesses
// of the tiled sgemm and of the tree reduction (benchmarks/kernels) are
// vector accesses, not gathers and scatters. Results are checked in
// VectorizeTest (RegistersAcrossBarriersInEveryForm) and by the benchmarks.
//
//===----------------------------------------------------------------------===//
#include "brig/BrigModule.h"
#include "brig/Validator.h"
#include "brig/asm/Assembler.h"
#include "finalizer/CpuTarget.h"
#include "finalizer/Lowering.h"
#include "finalizer/PromoteRegisterFile.h"
#include "finalizer/WorkItemVectorizer.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

using namespace openhsa;

namespace {

/// A program lowered for the CPU, with the BRIG it points into.
struct Lowered {
  std::vector<uint8_t> Brig;
  llvm::LLVMContext Ctx;
  std::unique_ptr<llvm::Module> M;
  finalizer::LoweredProgram Program;
};

std::unique_ptr<Lowered> lower(const std::string &Src) {
  auto L = std::make_unique<Lowered>();
  auto Brig = brig::assembler::assembleHsail(Src);
  if (!Brig) {
    ADD_FAILURE() << llvm::toString(Brig.takeError());
    return nullptr;
  }
  L->Brig = std::move(*Brig);
  auto Mod = brig::loadValidatedModule(L->Brig, "test.brig");
  if (!Mod) {
    ADD_FAILURE() << llvm::toString(Mod.takeError());
    return nullptr;
  }
  std::vector<brig::BrigModule> Modules;
  Modules.push_back(std::move(*Mod));
  L->M = std::make_unique<llvm::Module>("test", L->Ctx);
  auto P = finalizer::lowerProgram(Modules, *L->M);
  if (!P) {
    ADD_FAILURE() << llvm::toString(P.takeError());
    return nullptr;
  }
  L->Program = std::move(*P);
  return L;
}

/// Whether P is an address in the register file (query::RegisterFile).
bool inRegisterFile(const llvm::Value *P) {
  P = P->stripInBoundsConstantOffsets();
  while (auto *G = llvm::dyn_cast<llvm::GetElementPtrInst>(P))
    P = G->getPointerOperand();
  auto *CI = llvm::dyn_cast<llvm::CallInst>(P);
  return CI && CI->getCalledFunction() &&
         CI->getCalledFunction()->getName() == finalizer::query::RegisterFile;
}

struct FileTraffic {
  unsigned Loads = 0, Stores = 0;
};

FileTraffic fileTraffic(const llvm::Function &F) {
  FileTraffic T;
  for (const llvm::BasicBlock &BB : F)
    for (const llvm::Instruction &I : BB) {
      if (auto *L = llvm::dyn_cast<llvm::LoadInst>(&I))
        T.Loads += inRegisterFile(L->getPointerOperand());
      if (auto *S = llvm::dyn_cast<llvm::StoreInst>(&I))
        T.Stores += inRegisterFile(S->getPointerOperand());
    }
  return T;
}

// Before the barrier: an id, a kernarg pointer and a constant (all computed
// again after it), a register overwritten after the barrier before any read
// (dead), and a loaded value read after it (the one register saved).
const char *Live = R"(
module &m:1:0:$full:$large:$default;
kernel &live(kernarg_u64 %out)
{
	group_u32 %g[64];
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(8)_width(all)_u64	$d0, [%out];
	mov_b32	$s1, 7;
	add_u32	$s2, $s0, $s1;
	cvt_u64_u32	$d1, $s0;
	shl_u64	$d1, $d1, 2;
	add_u64	$d1, $d0, $d1;
	ld_global_u32	$s3, [$d1];
	st_group_u32	$s2, [%g];
	barrier;
	mov_b32	$s2, 0;
	add_u32	$s3, $s3, $s1;
	add_u32	$s3, $s3, $s2;
	st_global_u32	$s3, [$d1];
	ret;
};
)";

TEST(RegisterPromotionTest, OnlyLiveRegistersCrossABarrier) {
  auto L = lower(Live);
  ASSERT_TRUE(L);
  finalizer::LoweredKernel &K = L->Program.Kernels.at(0);
  ASSERT_TRUE(K.UsesBarrier);
  const FileTraffic Before = fileTraffic(*K.Body);
  // As lowered, every register read and write touches the file.
  EXPECT_GT(Before.Stores, 5u);
  EXPECT_GT(Before.Loads, 5u);
  ASSERT_TRUE(finalizer::promoteRegisterFile(*K.Body));
  const FileTraffic After = fileTraffic(*K.Body);
  // $s3 alone: stored at the barrier, loaded where the next region starts.
  EXPECT_EQ(After.Stores, 1u);
  EXPECT_EQ(After.Loads, 1u);
}

// A register carried round a loop whose body has a barrier, unchanged
// (lid * 4), is computed again in each region; the loop counter and the
// sum it changes are saved.
const char *Carried = R"(
module &m:1:0:$full:$large:$default;
kernel &carried(kernarg_u64 %out, kernarg_u32 %n)
{
	group_u32 %g[256];
	workitemid_u32	$s0, 0;
	shl_u32	$s1, $s0, 2;
	ld_kernarg_align(4)_width(all)_u32	$s2, [%n];
	mov_b32	$s3, 0;
	mov_b32	$s4, 0;
@loop:
	st_group_u32	$s3, [%g][$s1];
	barrier;
	ld_group_u32	$s5, [%g][$s1];
	add_u32	$s4, $s4, $s5;
	barrier;
	add_u32	$s3, $s3, 1;
	cmp_lt_b1_u32	$c0, $s3, $s2;
	cbr_b1	$c0, @loop;
	ld_kernarg_align(8)_width(all)_u64	$d0, [%out];
	cvt_u64_u32	$d1, $s1;
	add_u64	$d0, $d0, $d1;
	st_global_u32	$s4, [$d0];
	ret;
};
)";

TEST(RegisterPromotionTest, UnchangedRegistersRoundALoopAreComputedAgain) {
  auto L = lower(Carried);
  ASSERT_TRUE(L);
  finalizer::LoweredKernel &K = L->Program.Kernels.at(0);
  ASSERT_TRUE(finalizer::promoteRegisterFile(*K.Body));
  const FileTraffic After = fileTraffic(*K.Body);
  // $s3 and $s4 at both barriers; $s0, $s1 and $s2 never.
  EXPECT_EQ(After.Stores, 4u);
  EXPECT_EQ(After.Loads, 4u);
}

std::string benchmarkKernel(const char *Name) {
  auto Buf = llvm::MemoryBuffer::getFile(
      std::string(OPENHSA_BENCH_KERNELS_DIR) + "/" + Name);
  if (!Buf) {
    ADD_FAILURE() << "cannot read " << Name;
    return "";
  }
  return (*Buf)->getBuffer().str();
}

/// Benchmark kernel Name lowered, vectorized 16 wide and given its
/// work-group function; null (and a failure) if any step fails.
std::unique_ptr<Lowered>
buildWorkGroupFunctions(const char *Name,
                        std::vector<finalizer::VectorizeStats> &Stats) {
  auto L = lower(benchmarkKernel(Name));
  if (!L)
    return nullptr;
  if (auto E = finalizer::buildCpuWorkGroupFunctions(*L->M, L->Program, 16, 1,
                                                     &Stats)) {
    ADD_FAILURE() << llvm::toString(std::move(E));
    return nullptr;
  }
  return L;
}

// The benchmark kernels with barriers in loops: every access to group and
// global memory is a vector access once vectorized (before, the offsets
// reloaded from the register file lost their stride: gathers and
// scatters).
TEST(RegisterPromotionTest, BarrierKernelsKeepTheirVectorAccesses) {
  for (const char *Name : {"sgemm_tiled.hsail", "reduction.hsail"}) {
    SCOPED_TRACE(Name);
    std::vector<finalizer::VectorizeStats> Stats;
    auto L = buildWorkGroupFunctions(Name, Stats);
    ASSERT_TRUE(L);
    ASSERT_EQ(L->Program.Kernels.at(0).Symbol.VectorWidth, 16u)
        << L->Program.Kernels[0].Symbol.ScalarReason;
    EXPECT_EQ(Stats.at(0).GatherScatter, 0u) << describe(Stats[0]);
    EXPECT_GE(Stats[0].Consecutive, 5u) << describe(Stats[0]);
  }
}

// The two benchmark kernels keep their uniform loop counters once per group
// (the reduction's stride, the tile's first k), and the reduction's ifs on
// `lx < stride` and `lx == 0` let the waves past the bound skip a region.
TEST(RegisterPromotionTest, BarrierKernelsShareRegistersAndSkipIdleWaves) {
  for (const char *Name : {"sgemm_tiled.hsail", "reduction.hsail"}) {
    SCOPED_TRACE(Name);
    std::vector<finalizer::VectorizeStats> Stats;
    auto L = buildWorkGroupFunctions(Name, Stats);
    ASSERT_TRUE(L);
    EXPECT_GE(Stats.at(0).GroupRegisters, 1u) << describe(Stats[0]);
    if (std::string(Name) == "reduction.hsail") {
      EXPECT_EQ(Stats[0].BoundedIfs, 2u) << describe(Stats[0]);
    }
  }
}

// After each region the work-group function passes on the registers the
// group shares register by register, as wide as the stores that wrote
// them: a copy of the whole file (one memcpy) read wider than those
// stores and waited for them to reach the cache (a quarter of the tree
// reduction's time, profiled).
TEST(RegisterPromotionTest, SharedRegistersPassOnAtTheirOwnWidth) {
  for (const char *Name : {"sgemm_tiled.hsail", "reduction.hsail"}) {
    SCOPED_TRACE(Name);
    std::vector<finalizer::VectorizeStats> Stats;
    auto L = buildWorkGroupFunctions(Name, Stats);
    ASSERT_TRUE(L);
    ASSERT_GE(Stats.at(0).GroupRegisters, 1u) << describe(Stats[0]);
    const std::string Kernel = L->Program.Kernels.at(0).Symbol.Name.substr(1);
    const llvm::Function *Wg = L->M->getFunction("openhsa.wg." + Kernel);
    ASSERT_TRUE(Wg);
    unsigned Copies = 0;
    for (const llvm::Instruction &I : llvm::instructions(*Wg)) {
      if (llvm::isa<llvm::MemTransferInst>(I))
        ADD_FAILURE() << "a memory copy in the work-group function";
      // The loop counter the group shares is a u32 register.
      if (auto *St = llvm::dyn_cast<llvm::StoreInst>(&I))
        if (auto *Ld = llvm::dyn_cast<llvm::LoadInst>(St->getValueOperand()))
          if (Ld->getType()->isIntegerTy(32))
            ++Copies;
    }
    EXPECT_GE(Copies, 1u);
  }
}

// A body that is not resumable (no barrier) has no register file to
// promote: it is left alone.
TEST(RegisterPromotionTest, BodiesWithoutBarriersAreLeftAlone) {
  auto L = lower(R"(
module &m:1:0:$full:$large:$default;
kernel &plain(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(8)_width(all)_u64	$d0, [%out];
	st_global_u32	$s0, [$d0];
	ret;
};
)");
  ASSERT_TRUE(L);
  EXPECT_FALSE(L->Program.Kernels.at(0).UsesBarrier);
  EXPECT_FALSE(finalizer::promoteRegisterFile(*L->Program.Kernels[0].Body));
}

} // namespace
