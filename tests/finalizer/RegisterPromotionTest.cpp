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
#include "KernelRunner.h"

#include "brig/BrigModule.h"
#include "brig/Validator.h"
#include "brig/asm/Assembler.h"
#include "finalizer/Codegen.h"
#include "finalizer/CpuTarget.h"
#include "finalizer/Lowering.h"
#include "finalizer/PromoteRegisterFile.h"
#include "finalizer/WorkItemVectorizer.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
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
  L->M->setTargetTriple(finalizer::hostTarget().Triple); // As finalize().
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

/// Benchmark kernel Name lowered, vectorized 16 wide and given its
/// work-group function; null (and a failure) if any step fails.
std::unique_ptr<Lowered>
buildWorkGroupFunctions(const char *Name,
                        std::vector<finalizer::VectorizeStats> &Stats) {
  auto L = lower(test::benchmarkKernel(Name));
  if (!L)
    return nullptr;
  if (auto E = finalizer::buildCpuWorkGroupFunctions(*L->M, L->Program, 16, 1,
                                                     &Stats)) {
    ADD_FAILURE() << llvm::toString(std::move(E));
    return nullptr;
  }
  return L;
}

/// The work-group function of L's first kernel (CpuTarget.cpp), or null.
llvm::Function *workGroupFunction(const Lowered &L) {
  return L.M->getFunction("openhsa.wg." +
                          L.Program.Kernels.at(0).Symbol.Name.substr(1));
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
    const llvm::Function *Wg = workGroupFunction(*L);
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

/// V as LLVM prints it.
std::string text(const llvm::Value &V) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  V.print(OS);
  return S;
}

/// Which register file P points into: the group's shared registers
/// (query::GroupRegisterFile), a wave's (query::WaveRegisterFile), or
/// neither (empty).
llvm::StringRef registerFileOf(const llvm::Value *P) {
  auto *CI = llvm::dyn_cast<llvm::CallInst>(llvm::getUnderlyingObject(P));
  if (!CI || !CI->getCalledFunction())
    return "";
  llvm::StringRef Name = CI->getCalledFunction()->getName();
  return Name == finalizer::query::GroupRegisterFile ||
                 Name == finalizer::query::WaveRegisterFile
             ? Name
             : "";
}

// The group's shared registers and each wave's registers are different
// memory, and alias scopes of their own say so: the tile's first k, which
// every wave reads from the group's copy, stays in a register across the
// waves that store their own registers (before, one scope for both: the
// tiled sgemm loaded and stored it again for every wave).
TEST(RegisterPromotionTest, GroupAndWaveRegisterFilesAreKnownApart) {
  std::vector<finalizer::VectorizeStats> Stats;
  auto L = buildWorkGroupFunctions("sgemm_tiled.hsail", Stats);
  ASSERT_TRUE(L);
  ASSERT_GE(Stats.at(0).GroupRegisters, 1u) << describe(Stats[0]);
  std::map<std::string, std::set<const llvm::MDNode *>> Scopes;
  std::vector<const llvm::Instruction *> Accesses;
  for (llvm::Function &F : *L->M)
    for (llvm::Instruction &I : llvm::instructions(F)) {
      const llvm::Value *P = llvm::getLoadStorePointerOperand(&I);
      if (!P || registerFileOf(P).empty())
        continue;
      const llvm::MDNode *Scope =
          I.getMetadata(llvm::LLVMContext::MD_alias_scope);
      ASSERT_TRUE(Scope) << "a register access without its scope";
      Scopes[registerFileOf(P).str()].insert(Scope);
      Accesses.push_back(&I);
    }
  const auto &Group = Scopes[finalizer::query::GroupRegisterFile];
  const auto &Wave = Scopes[finalizer::query::WaveRegisterFile];
  ASSERT_FALSE(Group.empty());
  ASSERT_FALSE(Wave.empty());
  for (const llvm::MDNode *G : Group)
    EXPECT_EQ(Wave.count(G), 0u) << "a scope for both files";
  // Each access is outside the other file's scope.
  for (const llvm::Instruction *I : Accesses) {
    const bool InGroup = registerFileOf(llvm::getLoadStorePointerOperand(I)) ==
                         finalizer::query::GroupRegisterFile;
    const llvm::MDNode *NoAlias = I->getMetadata(llvm::LLVMContext::MD_noalias);
    ASSERT_TRUE(NoAlias);
    const llvm::MDNode *Other = *(InGroup ? Wave : Group).begin();
    bool Found = false;
    for (const llvm::MDOperand &Op : Other->operands())
      for (const llvm::MDOperand &N : NoAlias->operands())
        Found |= Op.get() == N.get();
    EXPECT_TRUE(Found) << "an access not known apart from the other file";
  }
}

// The waves of a region run column by column: for each wave position along
// X, every row's wave (CpuTarget.cpp, emitColumnWaveLoops). In the tiled
// sgemm's multiply, the row of B's tile that a wave reads depends on its X
// ids alone: loaded once a column, it stays in registers while the rows'
// fmas run, and the loop around them loads no vector but the accumulators
// from the wave's register file (row by row, it loaded the 16 rows of the
// tile again for each wave).
TEST(RegisterPromotionTest, RowsOfAColumnShareWhatTheirXIdsLoad) {
  // Without FMA (OPENHSA_CPU_TARGET=x86-64-v2) a vector fma is a libcall a
  // lane, too dear for LLVM to unroll the k-step loop in full, and the
  // tile's own loads stay in the loop this test reads.
  if (!finalizer::hostHasFeature("fma"))
    GTEST_SKIP() << "the target has no FMA";
  std::vector<finalizer::VectorizeStats> Stats;
  auto L = buildWorkGroupFunctions("sgemm_tiled.hsail", Stats);
  ASSERT_TRUE(L);
  auto Object = finalizer::compileToObject(*L->M);
  ASSERT_TRUE(bool(Object)) << llvm::toString(Object.takeError());
  llvm::Function *Wg = workGroupFunction(*L);
  ASSERT_TRUE(Wg);
  llvm::DominatorTree DT(*Wg);
  llvm::LoopInfo LI(DT);
  std::set<const llvm::Loop *> FmaLoops;
  for (llvm::Instruction &I : llvm::instructions(*Wg))
    if (auto *II = llvm::dyn_cast<llvm::IntrinsicInst>(&I);
        II && II->getIntrinsicID() == llvm::Intrinsic::fma &&
        II->getType()->isVectorTy())
      if (const llvm::Loop *Loop = LI.getLoopFor(I.getParent()))
        FmaLoops.insert(Loop);
  ASSERT_FALSE(FmaLoops.empty()) << "no vector fma in a loop";
  for (const llvm::Loop *Loop : FmaLoops)
    for (const llvm::BasicBlock *BB : Loop->blocks())
      for (const llvm::Instruction &I : *BB) {
        auto *Ld = llvm::dyn_cast<llvm::LoadInst>(&I);
        if (Ld && Ld->getType()->isVectorTy()) {
          EXPECT_TRUE(Ld->getMetadata(llvm::LLVMContext::MD_alias_scope))
              << "a vector load of group memory in the rows' loop: "
              << text(*Ld);
        }
      }
}

// Column by column only where the body asks for a Y or Z id: a 1-D body
// computes alike in every row, and its regions keep the loop over a row's
// waves (the tree reduction took 5.8 against 4.9 ms on one core with a
// loop over each column's one row).
TEST(RegisterPromotionTest, OnlyBodiesWithRowIdsRunColumnByColumn) {
  for (const char *Name : {"sgemm_tiled.hsail", "reduction.hsail"}) {
    SCOPED_TRACE(Name);
    std::vector<finalizer::VectorizeStats> Stats;
    auto L = buildWorkGroupFunctions(Name, Stats);
    ASSERT_TRUE(L);
    const llvm::Function *Wg = workGroupFunction(*L);
    ASSERT_TRUE(Wg);
    unsigned Columns = 0;
    for (const llvm::BasicBlock &BB : *Wg)
      Columns += BB.getName().starts_with("column");
    if (std::string(Name) == "sgemm_tiled.hsail") {
      EXPECT_GT(Columns, 0u) << "the 2-D kernel runs row by row";
    } else {
      EXPECT_EQ(Columns, 0u) << "the 1-D kernel runs column by column";
    }
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
