//===- tests/finalizer/CpuTargetTest.cpp - The CPU code is for
//-------------===//
//
// abi/CpuTarget.h: the CPU agent's code is for the host's CPU, or for the
// x86-64 CPU OPENHSA_CPU_TARGET names where the host has its every feature
// (tests/finalizer/CMakeLists.txt runs the finalizer's tests with
// x86-64-v3 and x86-64-v2 too, where the host can). The choice itself is
// tested on made-up hosts; how kernels follow it, on this process's.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

#include "abi/CpuTarget.h"
#include "abi/CpuWavefront.h"
#include "finalizer/Codegen.h"
#include "finalizer/Finalizer.h"

#include <cstdlib>
#include <string>
#include <vector>

using namespace openhsa::test;

namespace {

constexpr const char *X86Linux = "x86_64-unknown-linux-gnu";

/// A host with AVX-512 (every x86-64-v4 feature), less the features
/// Lacking.
llvm::StringMap<bool> avx512Host(std::vector<std::string> Lacking = {}) {
  llvm::StringMap<bool> F;
  for (const char *Name :
       {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl", "avx2",
        "avx",     "fma",      "bmi",      "bmi2",     "f16c",     "lzcnt",
        "movbe",   "xsave",    "popcnt",   "sse4.2",   "sse4.1",   "ssse3",
        "sse3",    "sse2",     "sse",      "cx16",     "cx8",      "crc32",
        "sahf",    "cmov",     "mmx",      "fxsr",     "x87",      "64bit"})
    F[Name] = true;
  F["amx-tile"] = false;
  for (const std::string &Name : Lacking)
    F[Name] = false;
  return F;
}

TEST(CpuTargetTest, WithoutASettingTheHostIsTheTarget) {
  const llvm::StringMap<bool> Host = avx512Host();
  const openhsa::abi::CpuTarget T =
      openhsa::abi::chooseCpuTarget("", X86Linux, "znver4", Host);
  EXPECT_EQ(T.Cpu, "znver4");
  EXPECT_TRUE(T.Problem.empty()) << T.Problem;
  EXPECT_TRUE(T.has("avx512f"));
  EXPECT_FALSE(T.has("amx-tile"));
  EXPECT_NE(T.featureString().find("-amx-tile"), std::string::npos);
}

// An x86-64 level brings its own features (and what they imply), and none
// of the host's beyond them.
TEST(CpuTargetTest, AnX86LevelHasItsFeaturesOnly) {
  const llvm::StringMap<bool> Host = avx512Host();
  const openhsa::abi::CpuTarget V3 =
      openhsa::abi::chooseCpuTarget("x86-64-v3", X86Linux, "znver4", Host);
  EXPECT_TRUE(V3.Problem.empty()) << V3.Problem;
  EXPECT_EQ(V3.Cpu, "x86-64-v3");
  for (const char *F : {"avx2", "avx", "fma", "f16c", "sse4.2"})
    EXPECT_TRUE(V3.has(F)) << F;
  EXPECT_FALSE(V3.has("avx512f"));
  const std::string S = V3.featureString();
  EXPECT_NE(S.find("+avx2"), std::string::npos) << S;
  EXPECT_EQ(S.find("avx512"), std::string::npos) << S;
  // Sorted, so that one target is one string (the finalization cache's
  // key has it).
  std::vector<std::string> Parts;
  for (size_t At = 0; At <= S.size();) {
    const size_t End = std::min(S.find(',', At), S.size());
    Parts.push_back(S.substr(At, End - At));
    At = End + 1;
  }
  EXPECT_TRUE(std::is_sorted(Parts.begin(), Parts.end())) << S;

  const openhsa::abi::CpuTarget V2 =
      openhsa::abi::chooseCpuTarget("x86-64-v2", X86Linux, "znver4", Host);
  EXPECT_TRUE(V2.Problem.empty()) << V2.Problem;
  EXPECT_TRUE(V2.has("sse4.2"));
  EXPECT_FALSE(V2.has("avx"));
  EXPECT_FALSE(V2.has("fma"));
}

// Code for a CPU with a feature the host lacks could stop at an illegal
// instruction: refused, saying which.
TEST(CpuTargetTest, ATargetBeyondTheHostIsRefused) {
  const llvm::StringMap<bool> Host = avx512Host({"avx2", "fma"});
  const openhsa::abi::CpuTarget T =
      openhsa::abi::chooseCpuTarget("x86-64-v3", X86Linux, "sandybridge", Host);
  EXPECT_NE(T.Problem.find("OPENHSA_CPU_TARGET=x86-64-v3"), std::string::npos)
      << T.Problem;
  EXPECT_NE(T.Problem.find("lacks avx2, fma"), std::string::npos) << T.Problem;
  // The agent keeps the host's ISA.
  EXPECT_EQ(T.Cpu, "sandybridge");
  EXPECT_TRUE(T.has("avx512f"));

  const openhsa::abi::CpuTarget Amx = openhsa::abi::chooseCpuTarget(
      "sapphirerapids", X86Linux, "znver4", avx512Host());
  EXPECT_NE(Amx.Problem.find("amx-tile"), std::string::npos) << Amx.Problem;
}

TEST(CpuTargetTest, NamesThatAreNoX8664CpuAreRefused) {
  const llvm::StringMap<bool> Host = avx512Host();
  for (const char *Name : {"not-a-cpu", "i686", "pentium4", "cortex-a72"}) {
    const openhsa::abi::CpuTarget T =
        openhsa::abi::chooseCpuTarget(Name, X86Linux, "znver4", Host);
    EXPECT_NE(T.Problem.find("not an x86-64 CPU"), std::string::npos)
        << Name << ": " << T.Problem;
    EXPECT_EQ(T.Cpu, "znver4");
  }
  const openhsa::abi::CpuTarget Arm = openhsa::abi::chooseCpuTarget(
      "x86-64-v3", "aarch64-unknown-linux-gnu", "neoverse-n1", {});
  EXPECT_NE(Arm.Problem.find("only x86-64 hosts"), std::string::npos)
      << Arm.Problem;
}

// A divergent branch, a gather from a table and masked stores past the
// bound: code that differs most between AVX-512, AVX2 and SSE.
const char *Lookup = R"(
module &m:1:0:$full:$large:$default;
kernel &lookup(kernarg_u64 %in, kernarg_u64 %table, kernarg_u64 %out,
               kernarg_u32 %n)
{
	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(4)_width(all)_u32	$s1, [%n];
	cmp_ge_b1_u32	$c0, $s0, $s1;
	cbr_b1	$c0, @done;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%in];
	add_u64	$d1, $d1, $d0;
	ld_global_u32	$s2, [$d1];
	and_b32	$s3, $s2, 1;
	cmp_eq_b1_u32	$c1, $s3, 0;
	cbr_b1	$c1, @even;
	and_b32	$s4, $s2, 63;
	cvt_u64_u32	$d2, $s4;
	shl_u64	$d2, $d2, 2;
	ld_kernarg_align(8)_width(all)_u64	$d3, [%table];
	add_u64	$d3, $d3, $d2;
	ld_global_u32	$s5, [$d3];
	mul_u32	$s5, $s5, 3;
	br	@store;
@even:
	shr_u32	$s5, $s2, 1;
@store:
	ld_kernarg_align(8)_width(all)_u64	$d4, [%out];
	add_u64	$d4, $d4, $d0;
	st_global_u32	$s5, [$d4];
@done:
	ret;
};
)";

// Kernels follow this process's target: its lanes are the wavefront, the
// ISA is named after it, the code uses no register the target lacks, and
// the results are right.
TEST(CpuTargetTest, KernelsFollowTheTarget) {
  if (runsOnGpu())
    GTEST_SKIP() << "the CPU agent's target";
  const openhsa::abi::CpuTarget &T = openhsa::abi::cpuTarget();
  if (!T.Problem.empty())
    GTEST_SKIP() << T.Problem << " (FinalizationSaysWhyTheTargetIsRefused)";
  if (const char *Asked = std::getenv("OPENHSA_CPU_TARGET"); Asked && *Asked) {
    EXPECT_EQ(T.Cpu, Asked);
  }
  EXPECT_EQ(
      openhsa::finalizer::hostIsaName(),
      "openhsa:" +
          llvm::Triple(llvm::sys::getProcessTriple()).getArchName().str() +
          ":" + T.Cpu);
  const unsigned Lanes = T.has("avx512f") ? 16 : T.has("avx") ? 8 : 4;
  if (!std::getenv("OPENHSA_VECTOR_WIDTH")) {
    EXPECT_EQ(openhsa::abi::cpuVectorWidth(), Lanes);
  }

  const std::string Asm = dumpedAssembly(Lookup);
  ASSERT_FALSE(Asm.empty());
  if (!T.has("avx512f")) {
    EXPECT_EQ(Asm.find("zmm"), std::string::npos) << "AVX-512 registers";
    EXPECT_EQ(Asm.find("%k1"), std::string::npos) << "AVX-512 masks";
  }
  if (!T.has("avx")) {
    EXPECT_EQ(Asm.find("ymm"), std::string::npos) << "AVX registers";
  }
  // With AVX2, the table's gather, in no loop, is gather instructions, not
  // a load and a branch a lane, whatever LLVM's tuning of the CPU says
  // (VectorizerWiden.cpp, maskedGather).
  if (T.has("avx2") && !T.has("avx512f")) {
    EXPECT_NE(Asm.find("vpgatherqd"), std::string::npos) << Asm;
  }

  auto Ps = bothWays(Lookup, "&lookup");
  ASSERT_EQ(Ps.size(), 2u);
  std::vector<uint32_t> Table(64);
  for (uint32_t I = 0; I < 64; ++I)
    Table[I] = I * I + 7;
  for (uint32_t Size : {1u, 7u, 100u, 1029u}) {
    std::vector<uint32_t> In(Size);
    for (uint32_t I = 0; I < Size; ++I)
      In[I] = I * 2654435761u;
    const uint32_t N = Size - Size / 5;
    for (const FinalizedProgram &P : Ps) {
      std::vector<uint32_t> Out(Size, 0xdeadbeef);
      struct {
        const uint32_t *In, *Table;
        uint32_t *Out;
        uint32_t N;
      } Args{In.data(), Table.data(), Out.data(), N};
      Grid G;
      G.Size[0] = Size;
      G.WorkGroup[0] = 64;
      runKernel(P, "&lookup", G, &Args);
      for (uint32_t I = 0; I < Size; ++I) {
        const uint32_t Want = I >= N      ? 0xdeadbeef
                              : In[I] & 1 ? Table[In[I] & 63] * 3
                                          : In[I] >> 1;
        ASSERT_EQ(Out[I], Want) << "item " << I << " of " << Size;
      }
    }
  }
}

// OPENHSA_CPU_TARGET naming what cannot be had fails every CPU
// finalization with the reason (CMakeLists.txt runs this test so).
TEST(CpuTargetTest, FinalizationSaysWhyTheTargetIsRefused) {
  const openhsa::abi::CpuTarget &T = openhsa::abi::cpuTarget();
  if (T.Problem.empty())
    GTEST_SKIP() << "OPENHSA_CPU_TARGET is unset or can be had";
  auto P = finalizeText(Lookup);
  ASSERT_FALSE(bool(P));
  EXPECT_EQ(llvm::toString(P.takeError()), T.Problem);
}

} // namespace
