//===- tests/finalizer/DirectivesTest.cpp - Directives and variables ------===//
//
// Control directives recorded into the kernel symbol (PRM 13.4), pragma,
// loc and comments ignored (13.2, 13.3), and module-scope and code-block
// variables of every type with their initializers (4.8, 4.10) placed where
// the kernel finds them.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

#include <cstring>

using namespace openhsa::test;
using openhsa::finalizer::CodeObject;
using openhsa::finalizer::ControlDirectives;

namespace {

const char *Directives = R"(
module &m:1:0:$full:$large:$default;
extension "IMAGE";

prog global_u32 &arr[4] = u32[](1, 2, 3, 4);
global_b8 &agg[16] = {f32(1.0f), u16(1), align(8), sig64(0)};
global_f16 &h = 1.5h;
global_u8x4 &pk = u8x4(1, 2, 3, 4);
global_sig64 &sig = sig64(0);
readonly_f64 &dd[] = f64[](1.0d, 2.0d);
prog readonly_s8 &neg[2] = s8[](-1, -128);
const global_u64 &big = 0x123456789abcdef0;
global_u16 &w[3];
global_roimg &img;
group_u32 &gv[2];
private_u32 &pv;

function &hints()()
{
	requirenopartialworkgroups;
	maxflatgridsize 4096;
	ret;
};

kernel &k(kernarg_u64 %out)
{
	enablebreakexceptions 0;
	enabledetectexceptions 3;
	enabledetectexceptions 16;
	maxdynamicgroupsize 256;
	maxflatgridsize 4096;
	maxflatworkgroupsize 64;
	requireddim 1;
	requiredgridsize 64, 1, 1;
	requiredworkgroupsize WAVESIZE, 1, 1;
	pragma "openhsa-test", 1;
	loc 12 3 "kernel.cl";
	// A comment.
	global_u32 %local_g = 77;
	ld_kernarg_u64	$d0, [%out];
	ld_global_u32	$s0, [&arr];
	st_global_u32	$s0, [$d0];
	ld_global_u32	$s0, [&arr][4];
	st_global_u32	$s0, [$d0+4];
	ld_global_u32	$s0, [&arr][8];
	st_global_u32	$s0, [$d0+8];
	ld_global_u32	$s0, [&arr][12];
	st_global_u32	$s0, [$d0+12];
	ld_global_u64	$d1, [&agg];
	st_global_u64	$d1, [$d0+16];
	ld_global_u64	$d1, [&agg][8];
	st_global_u64	$d1, [$d0+24];
	ld_global_u16	$s0, [&h];
	st_global_u16	$s0, [$d0+32];
	ld_global_u32	$s0, [&pk];
	st_global_u32	$s0, [$d0+36];
	ld_global_sig64	$d1, [&sig];
	st_global_u64	$d1, [$d0+40];
	ld_readonly_u64	$d1, [&dd];
	st_global_u64	$d1, [$d0+48];
	ld_readonly_u64	$d1, [&dd][8];
	st_global_u64	$d1, [$d0+56];
	ld_readonly_u16	$s0, [&neg];
	st_global_u16	$s0, [$d0+64];
	ld_global_u64	$d1, [&big];
	st_global_u64	$d1, [$d0+72];
	ld_global_u32	$s0, [%local_g];
	st_global_u32	$s0, [$d0+80];
	st_group_u32	5, [&gv][4];
	ld_group_u32	$s0, [&gv][4];
	st_global_u32	$s0, [$d0+84];
	st_private_u32	6, [&pv];
	ld_private_u32	$s0, [&pv];
	st_global_u32	$s0, [$d0+88];
	ld_global_roimg	$d1, [&img];
	st_global_u64	$d1, [$d0+96];
	ret;
};

kernel &k2()
{
	{
		call	&hints () ();
	}
	ret;
};
)";

struct alignas(8) Copied {
  uint32_t Arr[4];
  uint64_t Agg[2];
  uint16_t Half;
  uint16_t Pad0;
  uint32_t Packed;
  uint64_t Signal;
  double Readonly[2];
  int8_t Neg[2];
  uint8_t Pad1[6];
  uint64_t Big;
  uint32_t Local, Group, Private, Pad2;
  uint64_t Image;
};
static_assert(sizeof(Copied) == 104, "layout of the kernel's output");

// PRM 4.8, 4.10: arrays, aggregates with alignment requests, f16, packed,
// signal handles, readonly arrays sized by their initializer, const,
// negative bytes, an image handle without initializer, module-scope group
// and private variables, and a global variable defined in a kernel.
TEST(DirectivesTest, VariablesOfEveryTypeStartWithTheirInitializers) {
  auto P = finalizeText(Directives);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  Copied Out;
  std::memset(&Out, 0xab, sizeof(Out));
  Copied *Ptr = &Out;
  // The grid &k's directives require (the GPU agent's queue enforces
  // them); every work-item writes the same values.
  Grid G;
  G.Size[0] = 64;
  G.WorkGroup[0] = defaultWavefrontSize();
  runKernel(*P, "&k", G, &Ptr);
  for (uint32_t I = 0; I < 4; ++I)
    EXPECT_EQ(Out.Arr[I], I + 1);
  EXPECT_EQ(Out.Agg[0], 0x000000013f800000u); // f32 1.0, u16 1, align(8).
  EXPECT_EQ(Out.Agg[1], 0u);                  // sig64(0).
  EXPECT_EQ(Out.Half, 0x3e00u);               // 1.5h.
  EXPECT_EQ(Out.Packed, 0x01020304u);         // Most significant first.
  EXPECT_EQ(Out.Signal, 0u);
  EXPECT_EQ(Out.Readonly[0], 1.0);
  EXPECT_EQ(Out.Readonly[1], 2.0);
  EXPECT_EQ(Out.Neg[0], -1);
  EXPECT_EQ(Out.Neg[1], -128);
  EXPECT_EQ(Out.Big, 0x123456789abcdef0u);
  EXPECT_EQ(Out.Local, 77u);
  EXPECT_EQ(Out.Group, 5u);
  EXPECT_EQ(Out.Private, 6u);
  EXPECT_EQ(Out.Image, 0u);

  auto Var = [&](const std::string &Name) {
    for (const auto &V : P->Code.Variables)
      if (V.Name == Name)
        return &V;
    return static_cast<const openhsa::finalizer::VariableSymbol *>(nullptr);
  };
  ASSERT_NE(Var("&arr"), nullptr);
  EXPECT_TRUE(Var("&arr")->ProgramLinkage);
  // PTX names have no '.' or '&' (finalizer/GpuTarget.cpp ptxName).
  EXPECT_EQ(Var("&arr")->ObjectSymbol,
            runsOnGpu() ? "hsa_$_var_$__$_arr" : "hsa.var.&arr");
  EXPECT_EQ(Var("&dd")->Size, 16u);
  EXPECT_EQ(Var("&w")->Size, 6u);
  EXPECT_EQ(Var("&w")->Alignment, 2u);
  EXPECT_EQ(Var("&img")->Size, 8u);
  EXPECT_EQ(Var("&img")->Alignment, 8u);
  EXPECT_EQ(Var("&sig")->Size, 8u);
  EXPECT_TRUE(Var("&big")->Constant);
  const auto *K = P->kernel("&k");
  EXPECT_GE(K->GroupSegmentSize, 8u);
  EXPECT_GE(K->PrivateSegmentSize, 4u);
}

// PRM 13.4: the kernel's control directives, WAVESIZE operands among them,
// and those of the functions it calls, are recorded in its symbol; they
// survive the code object's serialization.
TEST(DirectivesTest, ControlDirectivesAreRecorded) {
  auto P = finalizeText(Directives);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  const auto *K = P->kernel("&k");
  ASSERT_NE(K, nullptr);
  EXPECT_EQ(K->EnabledDetectExceptions, 0x13u); // The union of 3 and 16.
  EXPECT_EQ(K->MaxDynamicGroupSize, 256u);
  EXPECT_EQ(K->MaxFlatGridSize, 4096u);
  EXPECT_EQ(K->MaxFlatWorkgroupSize, 64u);
  EXPECT_EQ(K->RequiredDim, 1u);
  EXPECT_EQ(K->RequiredGridSize[0], 64u);
  EXPECT_EQ(K->RequiredGridSize[1], 1u);
  EXPECT_EQ(K->RequiredGridSize[2], 1u);
  EXPECT_EQ(K->RequiredWorkgroupSize[0], defaultWavefrontSize()); // WAVESIZE.
  EXPECT_FALSE(K->RequireNoPartialWorkgroups);
  const auto *K2 = P->kernel("&k2");
  ASSERT_NE(K2, nullptr);
  EXPECT_TRUE(K2->RequireNoPartialWorkgroups); // From the called function.
  EXPECT_EQ(K2->MaxFlatGridSize, 4096u);

  auto Back = CodeObject::deserialize(P->Code.serialize());
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  for (const auto &BK : Back->Kernels) {
    const auto *Orig = P->kernel(BK.Name);
    ASSERT_NE(Orig, nullptr);
    EXPECT_EQ(BK.EnabledDetectExceptions, Orig->EnabledDetectExceptions);
    EXPECT_EQ(BK.RequireNoPartialWorkgroups, Orig->RequireNoPartialWorkgroups);
    EXPECT_EQ(BK.MaxFlatWorkgroupSize, Orig->MaxFlatWorkgroupSize);
  }
}

llvm::Expected<CodeObject> finalizeWith(const char *Source,
                                        const ControlDirectives &D) {
  auto Brig = openhsa::brig::assembler::assembleHsail(Source);
  if (!Brig)
    return Brig.takeError();
  auto M = openhsa::brig::loadValidatedModule(*Brig, "test.brig");
  if (!M)
    return M.takeError();
  openhsa::finalizer::FinalizeRequest R;
  R.Modules.push_back(std::move(*M));
  R.Directives = D;
  return openhsa::finalizer::finalize(R);
}

// PRM 13.4: directives given to the finalizer must agree with the kernel's;
// the maxima may only lower them.
TEST(DirectivesTest, FinalizerDirectivesMustAgreeWithTheKernels) {
  ControlDirectives D;
  D.MaxFlatWorkgroupSize = 32;
  D.DetectExceptions = 4;
  auto CO = finalizeWith(Directives, D);
  ASSERT_TRUE(bool(CO)) << llvm::toString(CO.takeError());
  for (const auto &K : CO->Kernels)
    if (K.Name == "&k") {
      EXPECT_EQ(K.MaxFlatWorkgroupSize, 32u);
      EXPECT_EQ(K.EnabledDetectExceptions, 0x17u);
    }
  D = ControlDirectives();
  D.MaxFlatWorkgroupSize = 128;
  CO = finalizeWith(Directives, D);
  ASSERT_FALSE(bool(CO));
  std::string E = llvm::toString(CO.takeError());
  EXPECT_NE(E.find("maxflatworkgroupsize"), std::string::npos) << E;
  D = ControlDirectives();
  D.RequiredDim = 2;
  CO = finalizeWith(Directives, D);
  ASSERT_FALSE(bool(CO));
  E = llvm::toString(CO.takeError());
  EXPECT_NE(E.find("requireddim"), std::string::npos) << E;
  D = ControlDirectives();
  D.BreakExceptions = 1;
  CO = finalizeWith(Directives, D);
  ASSERT_FALSE(bool(CO));
  E = llvm::toString(CO.takeError());
  EXPECT_NE(E.find("BREAK"), std::string::npos) << E;
}

std::string errorOf(const std::string &Source) {
  auto P = finalizeText(Source);
  if (P)
    return "";
  return llvm::toString(P.takeError());
}

// Refused with messages naming the directive or the variable.
TEST(DirectivesTest, UnsupportedOrConflictingFormsAreRefused) {
  const std::string Head = "module &m:1:0:$full:$large:$default;\n";
  std::string E = errorOf(Head + "kernel &k()\n{\n\tmaxflatgridsize 100;\n"
                                 "\tmaxflatgridsize 200;\n\tret;\n};\n");
  EXPECT_NE(E.find("'maxflatgridsize': conflicts"), std::string::npos) << E;
  E = errorOf(Head +
              "kernel &k()\n{\n\tenablebreakexceptions 1;\n\tret;\n};\n");
  EXPECT_NE(E.find("'enablebreakexceptions'"), std::string::npos) << E;
  EXPECT_NE(E.find("BREAK"), std::string::npos) << E;
  E = errorOf(Head + "indirect function &f()()\n{\n"
                     "\tenablebreakexceptions 2;\n\tret;\n};\n");
  EXPECT_NE(E.find("function '&f': control directive 'enablebreakexceptions'"),
            std::string::npos)
      << E;
  E = errorOf(R"(
module &m:1:0:$full:$large:$default;
extension "IMAGE";
alloc(agent) global_roimg &i2 = roimg(geometry = 2d, width = 4, height = 4, channel_type = unorm_int8, channel_order = rgba);
kernel &k()
{
	ret;
};
)");
  EXPECT_NE(E.find("initializer of '&i2'"), std::string::npos) << E;
  EXPECT_NE(E.find("image and sampler initializers are not supported"),
            std::string::npos)
      << E;
}

} // namespace
