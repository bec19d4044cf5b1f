//===- benchmarks/BrigBenchmarks.cpp - Assembler and validator speed ------===//
//
// Issue "BRIG and HSAIL text" targets: assembling a 1 MB HSAIL file and
// validating a 1 MB BRIG module. The input is generated: kernels and
// functions that together use every instruction format the finalizer
// meets most (arithmetic, float with rounding, compare, convert, memory in
// several segments, atomics, branches, lda, calls), each kernel a little
// different so no string is shared too often.
//
//===----------------------------------------------------------------------===//
#include "brig/Disassembler.h"
#include "brig/Validator.h"
#include "brig/asm/Assembler.h"
#include "brig/asm/ModuleSemantics.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

namespace {

std::string kernelText(unsigned K) {
  char Buf[4096];
  std::snprintf(Buf, sizeof(Buf), R"(
function &f%u(arg_u32 %%r)(arg_u32 %%a)
{
	ld_arg_u32	$s0, [%%a];
	mad_u32	$s1, $s0, %u, 17;
	st_arg_u32	$s1, [%%r];
	ret;
};

kernel &k%u(kernarg_u64 %%out, kernarg_u32 %%n)
{
	private_u32 %%p[4];
	group_f32 %%g[64];
	ld_kernarg_align(8)_width(all)_u64	$d0, [%%out];
	ld_kernarg_width(all)_u32	$s1, [%%n];
	workitemabsid_u32	$s0, 0;
	cmp_ge_b1_u32	$c0, $s0, $s1;
	cbr_b1	$c0, @done;
	cvt_u64_u32	$d1, $s0;
	shl_u64	$d1, $d1, 2;
	add_u64	$d2, $d0, $d1;
	ld_global_f32	$s2, [$d2];
	mul_f32	$s3, $s2, 0F3fc00000;
	add_up_f32	$s3, $s3, 0F%08x;
	add_u32	$s5, $s0, %u;
	mulhi_u32	$s6, $s5, $s1;
	and_b32	$s7, $s6, 255;
	popcount_u32_b32	$s8, $s7;
	cvt_f32_u32	$s9, $s8;
	div_f32	$s9, $s9, $s3;
	sqrt_f32	$s9, $s9;
	max_f32	$s9, $s9, 0F00000000;
	workitemid_u32	$s10, 0;
	st_group_f32	$s9, [%%g][$s10];
	barrier;
	ld_group_f32	$s9, [%%g][0];
	st_global_f32	$s9, [$d2];
	atomicnoret_add_global_rlx_system_u32	[$d0], 1;
	lda_private_u32	$s11, [%%p];
	st_private_u32	$s8, [%%p][4];
	ld_private_u32	$s12, [$s11+4];
	{
		arg_u32 %%r;
		arg_u32 %%a;
		st_arg_u32	$s12, [%%a];
		call	&f%u (%%r) (%%a);
		ld_arg_u32	$s13, [%%r];
	}
	cmp_lt_b1_s32	$c1, $s13, %d;
	cmov_b32	$s14, $c1, $s13, $s12;
	st_global_u32	$s14, [$d2+4];
@done:
	ret;
};
)",
                K, K % 97 + 1, K, 0x3f000000u + K, K * 3, K, -int(K));
  return Buf;
}

/// HSAIL text of at least Bytes bytes.
const std::string &hsailOfSize(size_t Bytes) {
  static std::string Text = [Bytes] {
    std::string S = "module &bench:1:0:$full:$large:$default;\n";
    for (unsigned K = 0; S.size() < Bytes; ++K)
      S += kernelText(K);
    return S;
  }();
  return Text;
}

constexpr size_t OneMegabyte = 1 << 20;

void BM_AssembleHsail1MB(benchmark::State &State) {
  const std::string &Text = hsailOfSize(OneMegabyte);
  size_t BrigBytes = 0;
  for (auto _ : State) {
    auto Brig = openhsa::brig::assembler::assembleHsail(Text);
    if (!Brig) {
      State.SkipWithError(llvm::toString(Brig.takeError()).c_str());
      return;
    }
    BrigBytes = Brig->size();
    benchmark::DoNotOptimize(Brig->data());
  }
  State.SetBytesProcessed(int64_t(State.iterations()) * Text.size());
  State.counters["hsail_bytes"] = double(Text.size());
  State.counters["brig_bytes"] = double(BrigBytes);
}
BENCHMARK(BM_AssembleHsail1MB)->Unit(benchmark::kMillisecond);

/// BRIG of at least 1 MB: the generated text, made long enough that its
/// BRIG reaches the size.
const std::vector<uint8_t> &brigOfSize(size_t Bytes) {
  static std::vector<uint8_t> Brig = [Bytes] {
    for (size_t Text = Bytes / 2;; Text += Bytes / 4) {
      std::string S = "module &bench:1:0:$full:$large:$default;\n";
      for (unsigned K = 0; S.size() < Text; ++K)
        S += kernelText(K);
      auto B = openhsa::brig::assembler::assembleHsail(S);
      if (!B) {
        std::fprintf(stderr, "%s\n", llvm::toString(B.takeError()).c_str());
        std::abort();
      }
      if (B->size() >= Bytes)
        return std::move(*B);
    }
  }();
  return Brig;
}

void BM_ValidateBrig1MB(benchmark::State &State) {
  const std::vector<uint8_t> &Brig = brigOfSize(OneMegabyte);
  for (auto _ : State) {
    auto M = openhsa::brig::loadValidatedModule(Brig, "bench.brig");
    if (!M) {
      State.SkipWithError(llvm::toString(M.takeError()).c_str());
      return;
    }
    benchmark::DoNotOptimize(&*M);
  }
  State.SetBytesProcessed(int64_t(State.iterations()) * Brig.size());
  State.counters["brig_bytes"] = double(Brig.size());
}
BENCHMARK(BM_ValidateBrig1MB)->Unit(benchmark::kMillisecond);

/// What a module passes before the runtime uses it: the validator, then
/// the semantic rules on BRIG (brig/asm/ModuleSemantics.h).
void BM_ValidateAndCheckBrig1MB(benchmark::State &State) {
  const std::vector<uint8_t> &Brig = brigOfSize(OneMegabyte);
  for (auto _ : State) {
    auto M = openhsa::brig::assembler::loadCheckedModule(Brig, "bench.brig");
    if (!M) {
      State.SkipWithError(llvm::toString(M.takeError()).c_str());
      return;
    }
    benchmark::DoNotOptimize(&*M);
  }
  State.SetBytesProcessed(int64_t(State.iterations()) * Brig.size());
}
BENCHMARK(BM_ValidateAndCheckBrig1MB)->Unit(benchmark::kMillisecond);

void BM_DisassembleBrig1MB(benchmark::State &State) {
  const std::vector<uint8_t> &Brig = brigOfSize(OneMegabyte);
  auto M = openhsa::brig::loadValidatedModule(Brig, "bench.brig");
  if (!M) {
    State.SkipWithError(llvm::toString(M.takeError()).c_str());
    return;
  }
  for (auto _ : State) {
    std::string Text = openhsa::brig::disassembleToString(*M);
    benchmark::DoNotOptimize(Text.data());
  }
  State.SetBytesProcessed(int64_t(State.iterations()) * Brig.size());
}
BENCHMARK(BM_DisassembleBrig1MB)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
