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

const char *SwitchCalls = R"(
module &m:1:0:$full:$large:$default;

function &twice(arg_u32 %r)(arg_u32 %x)
{
	ld_arg_u32	$s0, [%x];
	add_u32	$s0, $s0, $s0;
	st_arg_u32	$s0, [%r];
};

function &square(arg_u32 %r)(arg_u32 %x)
{
	ld_arg_u32	$s0, [%x];
	mul_u32	$s0, $s0, $s0;
	st_arg_u32	$s0, [%r];
	ret;
};

indirect function &negate(arg_u32 %r)(arg_u32 %x)
{
	ld_arg_u32	$s0, [%x];
	neg_s32	$s0, $s0;
	st_arg_u32	$s0, [%r];
	ret;
};

kernel &k(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	rem_u32	$s1, $s0, 3;
	{
		arg_u32 %r;
		arg_u32 %x;
		st_arg_u32	$s0, [%x];
		scall_u32	$s1 (%r) (%x) [&twice, &square, &negate];
		ld_arg_u32	$s2, [%r];
	}
	cvt_u64_u32	$d0, $s1;
	{
		arg_u32 %r;
		arg_u32 %x;
		st_arg_u32	$s2, [%x];
		scall_width(all)_u64	$d0 (%r) (%x) [&square, &square, &twice];
		ld_arg_u32	$s3, [%r];
	}
	cvt_u64_u32	$d1, $s0;
	shl_u64	$d1, $d1, 2;
	ld_kernarg_u64	$d2, [%out];
	add_u64	$d2, $d2, $d1;
	st_global_u32	$s3, [$d2];
	ret;
};
)";

// PRM 10.7: scall selects among functions (indirect ones too) by a u32 or
// u64 index; different work-items take different targets.
TEST(CallTest, SwitchCallOverSeveralTargets) {
  auto P = finalizeText(SwitchCalls);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const uint32_t N = 60;
  std::vector<uint32_t> Out(N, 0);
  uint32_t *Ptr = Out.data();
  Grid G;
  G.Size[0] = N;
  G.WorkGroup[0] = 20;
  runKernel(*P, "&k", G, &Ptr);
  for (uint32_t I = 0; I < N; ++I) {
    uint32_t First = I % 3 == 0 ? 2 * I : I % 3 == 1 ? I * I : 0u - I;
    uint32_t Second = I % 3 == 2 ? 2 * First : First * First;
    EXPECT_EQ(Out[I], Second) << I;
  }
}

const char *IndirectCalls = R"(
module &m:1:0:$full:$large:$default;

signature &unary_t(arg_f32 %r)(arg_f32 %x, arg_u32 %k);

indirect function &scale(arg_f32 %r)(arg_f32 %x, arg_u32 %k)
{
	ld_arg_f32	$s0, [%x];
	ld_arg_u32	$s1, [%k];
	cvt_f32_u32	$s1, $s1;
	mul_f32	$s0, $s0, $s1;
	st_arg_f32	$s0, [%r];
	ret;
};

function &helper(arg_f32 %r)(arg_f32 %x)
{
	ld_arg_f32	$s0, [%x];
	add_f32	$s0, $s0, 1.0f;
	st_arg_f32	$s0, [%r];
	ret;
};

prog indirect function &offset(arg_f32 %r)(arg_f32 %x, arg_u32 %k)
{
	private_f32 %tmp;
	ld_arg_f32	$s0, [%x];
	{
		arg_f32 %hr;
		arg_f32 %hx;
		st_arg_f32	$s0, [%hx];
		call	&helper (%hr) (%hx);
		ld_arg_f32	$s0, [%hr];
	}
	st_private_f32	$s0, [%tmp];
	ld_arg_u32	$s1, [%k];
	cvt_f32_u32	$s1, $s1;
	ld_private_f32	$s2, [%tmp];
	add_f32	$s0, $s2, $s1;
	st_arg_f32	$s0, [%r];
	ret;
};

kernel &k(kernarg_u64 %table, kernarg_u64 %data)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	and_b64	$d1, $d0, 1;
	shl_u64	$d1, $d1, 3;
	ld_kernarg_u64	$d2, [%table];
	add_u64	$d2, $d2, $d1;
	ld_global_u64	$d3, [$d2];
	shl_u64	$d4, $d0, 2;
	ld_kernarg_u64	$d5, [%data];
	add_u64	$d5, $d5, $d4;
	ld_global_f32	$s1, [$d5];
	{
		arg_f32 %r;
		arg_f32 %x;
		arg_u32 %k;
		st_arg_f32	$s1, [%x];
		st_arg_u32	$s0, [%k];
		icall_u64	$d3 (%r) (%x, %k) &unary_t;
		ld_arg_f32	$s2, [%r];
	}
	st_global_f32	$s2, [$d5];
	ret;
};
)";

// PRM 10.8: icall through a table of indirect function code handles (the
// addresses the code object lists for its indirect functions); one of them
// calls a non-indirect function and uses a function-scope private variable.
TEST(CallTest, IndirectCallsThroughAFunctionTable) {
  auto P = finalizeText(IndirectCalls);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  ASSERT_EQ(P->Code.IndirectFunctions.size(), 2u);
  uint64_t Table[2] = {0, 0};
  for (const auto &F : P->Code.IndirectFunctions) {
    auto Handle = indirectHandle(*P, F);
    ASSERT_TRUE(bool(Handle)) << llvm::toString(Handle.takeError());
    Table[F.Name == "&scale" ? 0 : 1] = *Handle;
    EXPECT_EQ(F.ProgramLinkage, F.Name == "&offset") << F.Name;
  }
  ASSERT_NE(Table[0], 0u);
  ASSERT_NE(Table[1], 0u);
  const uint32_t N = 32;
  std::vector<float> Data(N);
  for (uint32_t I = 0; I < N; ++I)
    Data[I] = 0.5f * float(I);
  struct {
    uint64_t *Table;
    float *Data;
  } Args{Table, Data.data()};
  Grid G;
  G.Size[0] = N;
  G.WorkGroup[0] = 8;
  runKernel(*P, "&k", G, &Args);
  for (uint32_t I = 0; I < N; ++I) {
    float X = 0.5f * float(I);
    float Expected = I % 2 == 0 ? X * float(I) : (X + 1.0f) + float(I);
    EXPECT_EQ(Data[I], Expected) << I;
  }
}

const char *WaitingFunctions = R"(
module &m:1:0:$full:$large:$default;

function &plus(arg_u32 %r)(arg_u32 %a, arg_u32 %b)
{
	ld_arg_u32	$s0, [%a];
	ld_arg_u32	$s1, [%b];
	add_u32	$s0, $s0, $s1;
	st_arg_u32	$s0, [%r];
	ret;
};

// Reverses values across the work-group through a function-scope group
// array; the work-item id crosses the barrier in a register, the value in
// a function-scope private variable; then a call of a function that does
// not wait.
function &reverse(arg_u32 %r)(arg_u32 %v)
{
	group_u32 %tile[64];
	private_u32 %saved;
	ld_arg_u32	$s0, [%v];
	st_private_u32	$s0, [%saved];
	workitemid_u32	$s1, 0;
	shl_u32	$s2, $s1, 2;
	st_group_u32	$s0, [%tile][$s2];
	barrier;
	workgroupsize_u32	$s3, 0;
	sub_u32	$s3, $s3, 1;
	sub_u32	$s3, $s3, $s1;
	shl_u32	$s3, $s3, 2;
	ld_group_u32	$s4, [%tile][$s3];
	ld_private_u32	$s0, [%saved];
	{
		arg_u32 %pr;
		arg_u32 %pa;
		arg_u32 %pb;
		st_arg_u32	$s4, [%pa];
		st_arg_u32	$s0, [%pb];
		call	&plus (%pr) (%pa, %pb);
		ld_arg_u32	$s4, [%pr];
	}
	barrier;
	st_arg_u32	$s4, [%r];
	ret;
};

// Inclusive prefix sum over the work-group: barriers in a loop.
function &scan(arg_u32 %r)(arg_u32 %v)
{
	group_u32 %buf[64];
	ld_arg_u32	$s0, [%v];
	workitemid_u32	$s1, 0;
	shl_u32	$s2, $s1, 2;
	st_group_u32	$s0, [%buf][$s2];
	workgroupsize_u32	$s5, 0;
	mov_b32	$s3, 1;
@loop:
	cmp_ge_b1_u32	$c0, $s3, $s5;
	cbr_b1	$c0, @done;
	barrier;
	mov_b32	$s6, 0;
	cmp_lt_b1_u32	$c1, $s1, $s3;
	cbr_b1	$c1, @skip;
	sub_u32	$s7, $s1, $s3;
	shl_u32	$s7, $s7, 2;
	ld_group_u32	$s6, [%buf][$s7];
@skip:
	barrier;
	ld_group_u32	$s8, [%buf][$s2];
	add_u32	$s8, $s8, $s6;
	st_group_u32	$s8, [%buf][$s2];
	shl_u32	$s3, $s3, 1;
	br	@loop;
@done:
	barrier;
	ld_group_u32	$s0, [%buf][$s2];
	st_arg_u32	$s0, [%r];
	ret;
};

// Calls a waiting function in a uniform branch, and twice in a loop.
function &both(arg_u32 %r)(arg_u32 %v, arg_u32 %mode)
{
	ld_arg_u32	$s0, [%v];
	ld_arg_u32	$s1, [%mode];
	cmp_eq_b1_u32	$c0, $s1, 0;
	cbr_b1	$c0, @rev;
	{
		arg_u32 %sr;
		arg_u32 %sv;
		st_arg_u32	$s0, [%sv];
		call	&scan (%sr) (%sv);
		ld_arg_u32	$s0, [%sr];
	}
	br	@out;
@rev:
	mov_b32	$s2, 0;
@again:
	{
		arg_u32 %rr;
		arg_u32 %rv;
		st_arg_u32	$s0, [%rv];
		call	&reverse (%rr) (%rv);
		ld_arg_u32	$s0, [%rr];
	}
	add_u32	$s2, $s2, 1;
	cmp_lt_b1_u32	$c1, $s2, 2;
	cbr_b1	$c1, @again;
@out:
	st_arg_u32	$s0, [%r];
	ret;
};

kernel &k(kernarg_u64 %data, kernarg_u32 %mode)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_u64	$d1, [%data];
	add_u64	$d1, $d1, $d0;
	ld_global_u32	$s1, [$d1];
	ld_kernarg_u32	$s2, [%mode];
	{
		arg_u32 %r;
		arg_u32 %v;
		arg_u32 %m;
		st_arg_u32	$s1, [%v];
		st_arg_u32	$s2, [%m];
		call	&both (%r) (%v, %m);
		ld_arg_u32	$s3, [%r];
	}
	{
		arg_u32 %r2;
		arg_u32 %v2;
		st_arg_u32	$s3, [%v2];
		call	&reverse (%r2) (%v2);
		ld_arg_u32	$s4, [%r2];
	}
	st_global_u32	$s4, [$d1];
	ret;
};
)";

// Host model of the kernel above for one work-group of values V.
std::vector<uint32_t> modelWaitingFunctions(std::vector<uint32_t> V,
                                            uint32_t Mode) {
  const size_t W = V.size();
  auto Reverse = [&](const std::vector<uint32_t> &X) {
    std::vector<uint32_t> R(W);
    for (size_t L = 0; L < W; ++L)
      R[L] = X[W - 1 - L] + X[L];
    return R;
  };
  if (Mode == 0) {
    V = Reverse(Reverse(V));
  } else {
    for (size_t L = 1; L < W; ++L)
      V[L] += V[L - 1];
  }
  return Reverse(V);
}

// PRM 9.1, 10.6: functions that wait at barriers, called from a kernel:
// barriers inside the function, in a loop, and in a function called in a
// uniform branch and in a loop; registers of the kernel and of every
// function, and arguments, cross the barriers.
TEST(CallTest, FunctionsWithBarriersCalledFromAKernel) {
  auto P = finalizeText(WaitingFunctions);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  for (uint32_t Mode : {0u, 1u}) {
    for (uint32_t WG : {1u, 7u, 64u}) {
      const uint32_t Groups = 3, N = WG * Groups;
      std::vector<uint32_t> Data(N);
      for (uint32_t I = 0; I < N; ++I)
        Data[I] = I * 7 + 3;
      struct {
        uint32_t *Data;
        uint32_t Mode;
      } Args{Data.data(), Mode};
      Grid G;
      G.Size[0] = N;
      G.WorkGroup[0] = WG;
      runKernel(*P, "&k", G, &Args);
      for (uint32_t Gr = 0; Gr < Groups; ++Gr) {
        std::vector<uint32_t> V(WG);
        for (uint32_t L = 0; L < WG; ++L)
          V[L] = (Gr * WG + L) * 7 + 3;
        std::vector<uint32_t> Expected = modelWaitingFunctions(V, Mode);
        for (uint32_t L = 0; L < WG; ++L)
          ASSERT_EQ(Data[Gr * WG + L], Expected[L])
              << "mode " << Mode << " group size " << WG << " item "
              << Gr * WG + L;
      }
    }
  }
}

const char *Alloca = R"(
module &m:1:0:$full:$large:$default;

// Stores i*i at p[i] for i < n (p: a private segment address) and returns
// their sum.
function &fill(arg_u32 %r)(arg_u32 %p, arg_u32 %n)
{
	ld_arg_u32	$s0, [%p];
	ld_arg_u32	$s1, [%n];
	mov_b32	$s2, 0;
	mov_b32	$s3, 0;
@loop:
	cmp_ge_b1_u32	$c0, $s2, $s1;
	cbr_b1	$c0, @done;
	mul_u32	$s4, $s2, $s2;
	shl_u32	$s5, $s2, 2;
	add_u32	$s5, $s5, $s0;
	st_private_u32	$s4, [$s5];
	add_u32	$s3, $s3, $s4;
	add_u32	$s2, $s2, 1;
	br	@loop;
@done:
	st_arg_u32	$s3, [%r];
	ret;
};

// Each activation allocates its own private memory: sum of 2k, k <= n.
function &sumrec(arg_u32 %r)(arg_u32 %n)
{
	ld_arg_u32	$s0, [%n];
	alloca_align(8)_u32	$s1, 8;
	st_private_u32	$s0, [$s1];
	st_private_u32	$s0, [$s1+4];
	cmp_eq_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @base;
	{
		arg_u32 %sub;
		arg_u32 %m;
		sub_u32	$s2, $s0, 1;
		st_arg_u32	$s2, [%m];
		call	&sumrec (%sub) (%m);
		ld_arg_u32	$s2, [%sub];
	}
	ld_private_u32	$s3, [$s1];
	ld_private_u32	$s4, [$s1+4];
	add_u32	$s2, $s2, $s3;
	add_u32	$s2, $s2, $s4;
	st_arg_u32	$s2, [%r];
	ret;
@base:
	st_arg_u32	0, [%r];
	ret;
};

kernel &k(kernarg_u64 %out)
{
	private_u32 %kv;
	alloca_align(16)_u32	$s0, 64;
	workitemabsid_u32	$s9, 0;
	st_private_u32	$s9, [%kv];
	{
		arg_u32 %r;
		arg_u32 %p;
		arg_u32 %n;
		st_arg_u32	$s0, [%p];
		st_arg_u32	16, [%n];
		call	&fill (%r) (%p, %n);
		ld_arg_u32	$s1, [%r];
	}
	barrier;
	mov_b32	$s2, 0;
	mov_b32	$s5, 0;
@sum:
	shl_u32	$s6, $s5, 2;
	add_u32	$s6, $s6, $s0;
	ld_private_u32	$s7, [$s6];
	add_u32	$s2, $s2, $s7;
	add_u32	$s5, $s5, 1;
	cmp_lt_b1_u32	$c0, $s5, 16;
	cbr_b1	$c0, @sum;
	rem_u32	$s8, $s9, 10;
	{
		arg_u32 %r;
		arg_u32 %n;
		st_arg_u32	$s8, [%n];
		call	&sumrec (%r) (%n);
		ld_arg_u32	$s3, [%r];
	}
	and_b32	$s10, $s0, 15;
	ld_private_u32	$s4, [%kv];
	cvt_u64_u32	$d0, $s9;
	shl_u64	$d0, $d0, 4;
	ld_kernarg_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s1, [$d1];
	st_global_u32	$s2, [$d1+4];
	st_global_u32	$s3, [$d1+8];
	add_u32	$s4, $s4, $s10;
	st_global_u32	$s4, [$d1+12];
	ret;
};
)";

// PRM 10.10: alloca in a kernel (its memory and address surviving a
// barrier, passed to a function that writes it) and in a recursive
// function (one allocation per activation); aligned addresses.
TEST(CallTest, AllocaInKernelsAndRecursiveFunctions) {
  auto P = finalizeText(Alloca);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const auto *K = P->kernel("&k");
  EXPECT_TRUE(K->DynamicCallStack);
  const uint32_t N = 24;
  std::vector<uint32_t> Out(N * 4, 0xdeadbeef);
  uint32_t *Ptr = Out.data();
  Grid G;
  G.Size[0] = N;
  G.WorkGroup[0] = 8;
  runKernel(*P, "&k", G, &Ptr);
  for (uint32_t I = 0; I < N; ++I) {
    EXPECT_EQ(Out[I * 4 + 0], 1240u) << I; // Sum of squares below 16.
    EXPECT_EQ(Out[I * 4 + 1], 1240u) << I;
    const uint32_t M = I % 10;
    EXPECT_EQ(Out[I * 4 + 2], M * (M + 1)) << I;
    EXPECT_EQ(Out[I * 4 + 3], I) << I; // Aligned: the low bits were 0.
  }
}

const char *ModuleA = R"(
module &a:1:0:$full:$large:$default;

prog global_u32 &counter[4] = u32[](10, 20, 30, 40);
decl prog function &bump(arg_u32 %r)(arg_u32 %i);

prog function &twice_of(arg_u32 %r)(arg_u32 %x)
{
	ld_arg_u32	$s0, [%x];
	{
		arg_u32 %br;
		arg_u32 %bi;
		st_arg_u32	$s0, [%bi];
		call	&bump (%br) (%bi);
		ld_arg_u32	$s1, [%br];
	}
	add_u32	$s1, $s1, $s1;
	st_arg_u32	$s1, [%r];
	ret;
};
)";
const char *ModuleB = R"(
module &b:1:0:$full:$large:$default;

decl prog global_u32 &counter[4];
decl prog function &twice_of(arg_u32 %r)(arg_u32 %x);

prog function &bump(arg_u32 %r)(arg_u32 %i)
{
	ld_arg_u32	$s0, [%i];
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_global_u32	$s1, [&counter][$d0];
	add_u32	$s1, $s1, 1;
	st_arg_u32	$s1, [%r];
	ret;
};

kernel &k(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	{
		arg_u32 %r;
		arg_u32 %x;
		st_arg_u32	$s0, [%x];
		call	&twice_of (%r) (%x);
		ld_arg_u32	$s1, [%r];
	}
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s1, [$d1];
	ret;
};
)";

// PRM 4.12, 10.3: declarations with program linkage resolve to the
// definitions in the other module of the program: a function calling back
// into the first module, and an initialized global array.
TEST(CallTest, ProgramLinkageAcrossModules) {
  auto P = finalizeTexts({ModuleA, ModuleB});
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  std::vector<uint32_t> Out(4, 0);
  uint32_t *Ptr = Out.data();
  Grid G;
  G.Size[0] = 4;
  G.WorkGroup[0] = 4;
  runKernel(*P, "&k", G, &Ptr);
  for (uint32_t I = 0; I < 4; ++I)
    EXPECT_EQ(Out[I], 2 * ((I + 1) * 10 + 1)) << I;
  unsigned Definitions = 0;
  for (const auto &V : P->Code.Variables)
    if (V.Name == "&counter") {
      // The host object's symbol; PTX names have no '.' or '&'
      // (finalizer/GpuTarget.cpp ptxName).
      EXPECT_EQ(V.ObjectSymbol,
                runsOnGpu() ? "hsa_$_var_$__$_counter" : "hsa.var.&counter");
      Definitions += V.Definition;
    }
  EXPECT_EQ(Definitions, 1u);
}

const char *Variadic = R"(
module &m:1:0:$full:$large:$default;

function &sumofN(arg_f32 %r)(arg_u32 %n, align(8) arg_u8 %last[])
{
	ld_arg_u32	$s0, [%n];
	mov_b32	$s1, 0;
	mov_b32	$s3, 0;
@loop:
	cmp_eq_b1_u32	$c1, $s0, 0;
	cbr_b1	$c1, @done;
	ld_arg_f32	$s4, [%last][$s3];
	add_f32	$s1, $s1, $s4;
	add_u32	$s3, $s3, 4;
	sub_u32	$s0, $s0, 1;
	br	@loop;
@done:
	st_arg_f32	$s1, [%r];
	ret;
};

kernel &k(kernarg_u64 %out)
{
	{
		align(8) arg_u8 %n[16];
		arg_u32 %count;
		arg_f32 %sum;
		st_arg_f32	1.25f, [%n][0];
		st_arg_f32	2.5f, [%n][4];
		st_arg_f32	3.75f, [%n][8];
		st_arg_f32	6.0f, [%n][12];
		st_arg_u32	4, [%count];
		call	&sumofN (%sum) (%count, %n);
		ld_arg_f32	$s0, [%sum];
	}
	ld_kernarg_u64	$d0, [%out];
	st_global_f32	$s0, [$d0];
	ret;
};
)";

// PRM 10.4: a variadic function reads an array argument of unspecified
// size through a register offset.
TEST(CallTest, VariadicArrayArgument) {
  auto P = finalizeText(Variadic);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  float Out = 0;
  float *Ptr = &Out;
  runKernel(*P, "&k", Grid{}, &Ptr);
  EXPECT_EQ(Out, 1.25f + 2.5f + 3.75f + 6.0f);
}

const char *RecursionWithBarrier = R"(
module &m:1:0:$full:$large:$default;

function &rb(arg_u32 %r)(arg_u32 %n)
{
	ld_arg_u32	$s0, [%n];
	barrier;
	cmp_eq_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @base;
	{
		arg_u32 %sr;
		arg_u32 %sn;
		sub_u32	$s1, $s0, 1;
		st_arg_u32	$s1, [%sn];
		call	&rb (%sr) (%sn);
	}
@base:
	st_arg_u32	$s0, [%r];
	ret;
};

kernel &k()
{
	{
		arg_u32 %r;
		arg_u32 %n;
		st_arg_u32	3, [%n];
		call	&rb (%r) (%n);
	}
	ret;
};
)";
const char *SmallModelIcall = R"(
module &m:1:0:$full:$small:$default;

signature &s_t()(arg_u32 %x);

kernel &k(kernarg_u32 %fn)
{
	ld_kernarg_u32	$s0, [%fn];
	{
		arg_u32 %x;
		st_arg_u32	1, [%x];
		icall_u32	$s0 () (%x) &s_t;
	}
	ret;
};
)";
const char *WaitingIndirectFunction = R"(
module &m:1:0:$full:$large:$default;

indirect function &waits()()
{
	barrier;
	ret;
};

kernel &k()
{
	ret;
};
)";
const char *UndefinedFunction = R"(
module &m:1:0:$full:$large:$default;

decl prog function &missing()();

kernel &k()
{
	{
		call	&missing () ();
	}
	ret;
};
)";

// What the finalizer refuses, each with a message naming the reason.
TEST(CallTest, UnsupportedFormsFailWithNamedMessages) {
  std::string E = errorOf(finalizeText(RecursionWithBarrier));
  EXPECT_NE(E.find("recursive call of '&rb'"), std::string::npos) << E;
  E = errorOf(finalizeText(SmallModelIcall));
  EXPECT_NE(E.find("32-bit indirect function code handles"), std::string::npos)
      << E;
  E = errorOf(finalizeText(WaitingIndirectFunction));
  EXPECT_NE(E.find("function '&waits'"), std::string::npos) << E;
  EXPECT_NE(E.find("an indirect function cannot wait"), std::string::npos) << E;
  E = errorOf(finalizeText(UndefinedFunction));
  EXPECT_NE(E.find("no module of the program defines '&missing'"),
            std::string::npos)
      << E;
}

} // namespace
