//===- tests/finalizer/CallTest.cpp - Functions and calls -----------------===//
//
// PRM chapter 10 end to end: functions with arguments of mixed types,
// recursion, switch and indirect calls, functions that wait at barriers
// (inlined into kernels), alloca, function-scope variables, programs of
// several modules, and the forms the finalizer refuses.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

using namespace openhsa::test;

namespace {

std::string errorOf(llvm::Expected<FinalizedProgram> P) {
  if (P)
    return "";
  return llvm::toString(P.takeError());
}

const char *MixedArgs = R"(
module &m:1:0:$full:$large:$default;

function &mix(arg_f64 %r)(arg_u8 %a, arg_s16 %b, arg_u32 %c, arg_u64 %d, arg_f32 %e, arg_f64 %f, align(8) arg_u8 %arr[16])
{
	ld_arg_u8	$s0, [%a];
	ld_arg_s16	$s1, [%b];
	add_u32	$s0, $s0, $s1;
	ld_arg_u32	$s2, [%c];
	mul_u32	$s0, $s0, $s2;
	cvt_s64_s32	$d0, $s0;
	ld_arg_u64	$d1, [%d];
	add_u64	$d0, $d0, $d1;
	cvt_f64_s64	$d0, $d0;
	ld_arg_f32	$s3, [%e];
	cvt_f64_f32	$d2, $s3;
	add_f64	$d0, $d0, $d2;
	ld_arg_f64	$d3, [%f];
	mul_f64	$d0, $d0, $d3;
	ld_arg_u32	$s4, [%arr][4];
	cvt_f64_u32	$d5, $s4;
	add_f64	$d0, $d0, $d5;
	ld_arg_u64	$d4, [%arr][8];
	cvt_f64_u64	$d5, $d4;
	add_f64	$d0, $d0, $d5;
	st_arg_f64	$d0, [%r];
	ret;
};

kernel &k(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d9, $s0;
	{
		arg_f64 %r;
		arg_u8 %a;
		arg_s16 %b;
		arg_u32 %c;
		arg_u64 %d;
		arg_f32 %e;
		arg_f64 %f;
		align(8) arg_u8 %arr[16];
		add_u32	$s1, $s0, 200;
		st_arg_u8	$s1, [%a];
		neg_s32	$s2, $s0;
		st_arg_s16	$s2, [%b];
		st_arg_u32	3, [%c];
		st_arg_u64	$d9, [%d];
		st_arg_f32	0.5f, [%e];
		st_arg_f64	2.0d, [%f];
		st_arg_u32	$s0, [%arr][4];
		shl_u64	$d8, $d9, 40;
		st_arg_u64	$d8, [%arr][8];
		call	&mix (%r) (%a, %b, %c, %d, %e, %f, %arr);
		ld_arg_f64	$d1, [%r];
	}
	ld_kernarg_u64	$d2, [%out];
	shl_u64	$d3, $d9, 3;
	add_u64	$d2, $d2, $d3;
	st_global_f64	$d1, [$d2];
	ret;
};
)";

// PRM 10.2, 10.5, 10.6: seven input arguments of mixed types and sizes
// (an aligned byte array among them) and an f64 output argument.
TEST(CallTest, ManyArgumentsOfMixedTypes) {
  auto P = finalizeText(MixedArgs);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const uint32_t N = 100;
  std::vector<double> Out(N, -1.0);
  double *Ptr = Out.data();
  Grid G;
  G.Size[0] = N;
  G.WorkGroup[0] = 16;
  runKernel(*P, "&k", G, &Ptr);
  for (uint32_t I = 0; I < N; ++I) {
    int32_t Sum =
        int32_t((((I + 200) & 255) + uint32_t(int32_t(int16_t(-I)))) * 3);
    double R = (double(int64_t(Sum) + int64_t(I)) + 0.5) * 2.0;
    R += double(I);
    R += double(uint64_t(I) << 40);
    EXPECT_EQ(Out[I], R) << I;
  }
}

const char *Factorial = R"(
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
	workitemabsid_u32	$s0, 0;
	{
		arg_u64 %r;
		arg_u32 %n;
		st_arg_u32	$s0, [%n];
		call	&fact (%r) (%n);
		ld_arg_u64	$d1, [%r];
	}
	cvt_u64_u32	$d2, $s0;
	shl_u64	$d2, $d2, 3;
	ld_kernarg_u64	$d3, [%out];
	add_u64	$d3, $d3, $d2;
	st_global_u64	$d1, [$d3];
	ret;
};
)";

// PRM 10.1, 10.9: recursion without barriers; each activation has its own
// registers and function-scope private variable.
TEST(CallTest, RecursiveFactorial) {
  auto P = finalizeText(Factorial);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_TRUE(P->kernel("&k")->DynamicCallStack);
  const uint32_t N = 21;
  std::vector<uint64_t> Out(N, 0);
  uint64_t *Ptr = Out.data();
  Grid G;
  G.Size[0] = N;
  G.WorkGroup[0] = 8;
  runKernel(*P, "&k", G, &Ptr);
  uint64_t F = 1;
  for (uint32_t I = 0; I < N; ++I) {
    if (I > 1)
      F *= I;
    EXPECT_EQ(Out[I], F) << I;
  }
}

} // namespace
