//===- tests/finalizer/ParallelKernelsTest.cpp - Kernels on threads -------===//
//
// A program's kernels compile on threads, each into an object of its own
// (finalizer/ParallelKernels.h), and run as they do from one object; a
// program whose kernels share state compiles into one object; code objects
// of several objects serialize and read back, and damaged ones are
// refused. Run under TSan too (scripts/test.sh).
//
//===----------------------------------------------------------------------===//
#include "finalizer/ParallelKernels.h"
#include "KernelRunner.h"
#include "tests/support/ScopedEnv.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace openhsa::test;

namespace {

// Three kernels, two of which call the same function (each kernel's
// object gets a copy of it).
const char *ThreeKernels = R"(
module &three:1:0:$full:$large:$default;

function &twice(arg_u32 %r)(arg_u32 %x)
{
	ld_arg_u32	$s0, [%x];
	add_u32	$s0, $s0, $s0;
	st_arg_u32	$s0, [%r];
	ret;
};

kernel &k_twice(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	{
		arg_u32 %r;
		arg_u32 %x;
		st_arg_u32	$s0, [%x];
		call	&twice (%r) (%x);
		ld_arg_u32	$s1, [%r];
	}
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s1, [$d1];
	ret;
};

kernel &k_twice_plus(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	{
		arg_u32 %r;
		arg_u32 %x;
		st_arg_u32	$s0, [%x];
		call	&twice (%r) (%x);
		ld_arg_u32	$s1, [%r];
	}
	add_u32	$s1, $s1, 7;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s1, [$d1];
	ret;
};

kernel &k_square(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	mul_u32	$s1, $s0, $s0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	st_global_u32	$s1, [$d1];
	ret;
};
)";

// The same kernels' results, whichever way they were compiled.
void expectThreeKernelsRun(const FinalizedProgram &P) {
  constexpr uint32_t N = 100;
  struct Case {
    const char *Name;
    uint32_t (*Expected)(uint32_t);
  };
  const Case Cases[] = {
      {"&k_twice", [](uint32_t X) { return 2 * X; }},
      {"&k_twice_plus", [](uint32_t X) { return 2 * X + 7; }},
      {"&k_square", [](uint32_t X) { return X * X; }},
  };
  for (const Case &C : Cases) {
    std::vector<uint32_t> Out(N, 0xdeadbeef);
    uint32_t *Ptr = Out.data();
    Grid G;
    G.Size[0] = N;
    G.WorkGroup[0] = 32;
    runKernel(P, C.Name, G, &Ptr);
    for (uint32_t X = 0; X < N; ++X)
      ASSERT_EQ(Out[X], C.Expected(X)) << C.Name << " at " << X;
  }
}

TEST(ParallelKernelsTest, KernelsCompileIntoObjectsOfTheirOwnAndRun) {
  if (runsOnGpu())
    GTEST_SKIP() << "GPU code objects are one PTX module";
  ScopedEnv Threads("OPENHSA_FINALIZE_THREADS", "4");
  auto P = finalizeText(ThreeKernels);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  // One object per kernel, each defining only its own entry.
  EXPECT_EQ(P->Code.MoreObjects.size(), 2u);
  expectThreeKernelsRun(*P);
}

// OPENHSA_DUMP_IR writes each module's IR under its own name (they were
// all named after the bitcode buffer, and overwrote each other).
TEST(ParallelKernelsTest, EachModulesIrIsDumpedUnderItsOwnName) {
  if (runsOnGpu())
    GTEST_SKIP() << "GPU code objects are one PTX module";
  llvm::SmallString<64> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("openhsa-ir", Dir));
  {
    ScopedEnv Threads("OPENHSA_FINALIZE_THREADS", "4");
    ScopedEnv Dump("OPENHSA_DUMP_IR", Dir.c_str());
    auto P = finalizeText(ThreeKernels);
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  }
  std::vector<std::string> Optimized;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    const std::string Path = It->path();
    if (llvm::StringRef(Path).ends_with(".ll") &&
        !llvm::StringRef(Path).ends_with(".lowered.ll"))
      Optimized.push_back(llvm::sys::path::filename(Path).str());
    llvm::sys::fs::remove(Path);
  }
  llvm::sys::fs::remove(Dir);
  for (const char *Kernel : {"k_twice", "k_twice_plus", "k_square"})
    EXPECT_TRUE(llvm::is_contained(
        Optimized, std::string("hsail-program.openhsa.wg.") + Kernel + ".ll"))
        << Kernel;
}

TEST(ParallelKernelsTest, OneThreadCompilesOneObject) {
  if (runsOnGpu())
    GTEST_SKIP() << "GPU code objects are one PTX module";
  ScopedEnv Threads("OPENHSA_FINALIZE_THREADS", "1");
  auto P = finalizeText(ThreeKernels);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_TRUE(P->Code.MoreObjects.empty());
  expectThreeKernelsRun(*P);
}

// Kernels that share a program variable must see one copy of it: one
// module, one object.
TEST(ParallelKernelsTest, KernelsSharingAVariableStayInOneObject) {
  if (runsOnGpu())
    GTEST_SKIP() << "GPU code objects are one PTX module";
  const char *Shared = R"(
module &shared:1:0:$full:$large:$default;
prog global_u32 &counter = 0;

kernel &bump(kernarg_u64 %out)
{
	atomicnoret_add_global_rlx_system_u32	[&counter], 1;
	ret;
};

kernel &read(kernarg_u64 %out)
{
	ld_global_u32	$s0, [&counter];
	ld_kernarg_u64	$d1, [%out];
	st_global_u32	$s0, [$d1];
	ret;
};
)";
  ScopedEnv Threads("OPENHSA_FINALIZE_THREADS", "4");
  auto P = finalizeText(Shared);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_TRUE(P->Code.MoreObjects.empty());
  uint32_t Count = 0;
  uint32_t *Ptr = &Count;
  Grid G;
  G.Size[0] = 64;
  G.WorkGroup[0] = 64;
  runKernel(*P, "&bump", G, &Ptr);
  Grid One;
  runKernel(*P, "&read", One, &Ptr);
  EXPECT_EQ(Count, 64u);
}

TEST(ParallelKernelsTest, CodeObjectsOfSeveralObjectsSerializeAndLoad) {
  if (runsOnGpu())
    GTEST_SKIP() << "GPU code objects are one PTX module";
  ScopedEnv Threads("OPENHSA_FINALIZE_THREADS", "4");
  auto P = finalizeText(ThreeKernels);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  ASSERT_EQ(P->Code.MoreObjects.size(), 2u);
  const std::vector<uint8_t> Bytes = P->Code.serialize();
  auto Back = openhsa::finalizer::CodeObject::deserialize(Bytes);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->Object, P->Code.Object);
  EXPECT_EQ(Back->MoreObjects, P->Code.MoreObjects);
  FinalizedProgram Again;
  Again.Code = std::move(*Back);
  auto L = openhsa::finalizer::LoadedObject::load(Again.Code, {});
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  Again.Loaded = std::move(*L);
  expectThreeKernelsRun(Again);
}

// The serialized form with a byte of a further object changed (and the
// hash sealed again, as a crafted file would be): the object check
// refuses it. With a further object's listed size wrong: a size error.
TEST(ParallelKernelsTest, DamagedFurtherObjectsAreRefused) {
  if (runsOnGpu())
    GTEST_SKIP() << "GPU code objects are one PTX module";
  ScopedEnv Threads("OPENHSA_FINALIZE_THREADS", "4");
  auto P = finalizeText(ThreeKernels);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  ASSERT_EQ(P->Code.MoreObjects.size(), 2u);

  openhsa::finalizer::CodeObject Damaged = P->Code;
  // The ELF header's e_shoff: section headers far past the object's end.
  std::vector<uint8_t> &Last = Damaged.MoreObjects.back();
  ASSERT_GT(Last.size(), 0x28u + 8);
  const uint64_t Far = uint64_t(1) << 40;
  std::memcpy(Last.data() + 0x28, &Far, 8);
  auto Refused =
      openhsa::finalizer::CodeObject::deserialize(Damaged.serialize());
  ASSERT_FALSE(bool(Refused));
  llvm::consumeError(Refused.takeError());
  auto NotLoaded = openhsa::finalizer::LoadedObject::load(Damaged, {});
  ASSERT_FALSE(bool(NotLoaded));
  llvm::consumeError(NotLoaded.takeError());

  // A listed size one byte short: the bytes no longer add up.
  std::vector<uint8_t> Bytes = P->Code.serialize();
  const std::string Size = std::to_string(P->Code.MoreObjects.back().size());
  const std::string Text(Bytes.begin(), Bytes.end());
  const size_t At = Text.find("\"more_objects\"");
  ASSERT_NE(At, std::string::npos);
  const size_t SizeAt = Text.find(Size, At);
  ASSERT_NE(SizeAt, std::string::npos);
  // Same length: the last digit changed.
  Bytes[SizeAt + Size.size() - 1] =
      Bytes[SizeAt + Size.size() - 1] == '0' ? '1' : '0';
  openhsa::finalizer::sealCodeObject(Bytes);
  auto Short = openhsa::finalizer::CodeObject::deserialize(Bytes);
  ASSERT_FALSE(bool(Short));
  EXPECT_NE(llvm::toString(Short.takeError()).find("size"), std::string::npos);
}

} // namespace
