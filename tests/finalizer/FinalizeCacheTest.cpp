//===- tests/finalizer/FinalizeCacheTest.cpp - Code objects kept ----------===//
//
// finalizer/FinalizeCache.h: a second finalization of the same request is
// served from the process, or from disk in a later process; whatever
// changes the code changes the key; a damaged file is finalized again and
// replaced; failures are not kept; the directory stays under its limit;
// the cache can be turned off. Each test has a cache directory of its own.
//
//===----------------------------------------------------------------------===//
#include "KernelRunner.h"

#include "finalizer/FinalizeCache.h"
#include "tests/support/ScopedEnv.h"

#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <list>
#include <optional>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace openhsa;
using namespace openhsa::test;

namespace {

const char *Doubler = R"(
module &m:1:0:$full:$large:$default;
kernel &twice(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d1, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d2, [%out];
	add_u64	$d2, $d2, $d1;
	add_u32	$s1, $s0, $s0;
	st_global_u32	$s1, [$d2];
	ret;
};
)";

// A kernel that calls a function no module defines: refused.
const char *Unresolved = R"(
module &m:1:0:$full:$large:$default;
decl prog function &missing()();
kernel &calls()
{
	{
		call	&missing () ();
	}
	ret;
};
)";

class FinalizeCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    char Template[] = "/tmp/openhsa-cache-test-XXXXXX";
    ASSERT_NE(mkdtemp(Template), nullptr);
    Dir = Template;
    Env.emplace_back("OPENHSA_CACHE_DIR", Dir.c_str());
    Env.emplace_back("OPENHSA_FINALIZER_CACHE", nullptr);
    Env.emplace_back("OPENHSA_CACHE_MAX_MB", nullptr);
    Env.emplace_back("OPENHSA_PROMOTE_REGISTERS", nullptr);
    Env.emplace_back("OPENHSA_PREFETCH_GROUPS", nullptr);
    Env.emplace_back("OPENHSA_DUMP_IR", nullptr);
    finalizer::clearFinalizeMemoryCache();
  }
  void TearDown() override {
    for (const std::string &F : files())
      unlink((Dir + "/" + F).c_str());
    rmdir(Dir.c_str());
    Env.clear();
    finalizer::clearFinalizeMemoryCache();
  }

  /// The request of Source's one module (its bytes kept in Brigs).
  finalizer::FinalizeRequest request(const char *Source,
                                     unsigned VectorWidth = 0) {
    auto Brig = brig::assembler::assembleHsail(Source);
    EXPECT_TRUE(bool(Brig)) << llvm::toString(Brig.takeError());
    Brigs.push_back(std::make_unique<std::vector<uint8_t>>(std::move(*Brig)));
    auto M = brig::loadValidatedModule(*Brigs.back(), "cache.brig");
    EXPECT_TRUE(bool(M)) << llvm::toString(M.takeError());
    finalizer::FinalizeRequest R;
    R.Modules.push_back(std::move(*M));
    R.VectorWidth = VectorWidth;
    return R;
  }

  /// The cache files in the test's directory (no temporary ones left).
  std::vector<std::string> files() const {
    std::vector<std::string> Names;
    if (DIR *D = opendir(Dir.c_str())) {
      while (const dirent *E = readdir(D))
        if (E->d_name[0] != '.')
          Names.push_back(E->d_name);
      closedir(D);
    }
    return Names;
  }

  /// Loads CO and checks that &twice computes what it should.
  static void expectRuns(finalizer::CodeObject CO) {
    FinalizedProgram P;
    P.Code = std::move(CO);
    auto L = finalizer::LoadedObject::load(P.Code, {});
    ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
    P.Loaded = std::move(*L);
    std::vector<uint32_t> Out(100, ~0u);
    uint32_t *OutPtr = Out.data();
    Grid G;
    G.Size[0] = 100;
    G.WorkGroup[0] = 32;
    runKernel(P, "&twice", G, &OutPtr);
    for (uint32_t I = 0; I < 100; ++I)
      ASSERT_EQ(Out[I], 2 * I) << I;
  }

  std::string Dir;
  std::list<ScopedEnv> Env;
  std::vector<std::unique_ptr<std::vector<uint8_t>>> Brigs;
};

finalizer::FinalizeCacheStats stats() {
  return finalizer::finalizeCacheStats();
}

TEST_F(FinalizeCacheTest, ASecondFinalizationIsServedFromTheProcess) {
  const finalizer::FinalizeRequest R = request(Doubler);
  const auto Before = stats();
  auto First = finalizer::finalizeCached(R);
  ASSERT_TRUE(bool(First)) << llvm::toString(First.takeError());
  auto Second = finalizer::finalizeCached(R);
  ASSERT_TRUE(bool(Second)) << llvm::toString(Second.takeError());
  const auto After = stats();
  EXPECT_EQ(After.Misses - Before.Misses, 1u);
  EXPECT_EQ(After.MemoryHits - Before.MemoryHits, 1u);
  EXPECT_EQ(Second->Object, First->Object);
  ASSERT_EQ(Second->Kernels.size(), 1u);
  EXPECT_EQ(Second->Kernels[0].Name, "&twice");
  expectRuns(std::move(*Second));
}

TEST_F(FinalizeCacheTest, ALaterProcessFindsItOnDisk) {
  const finalizer::FinalizeRequest R = request(Doubler);
  auto First = finalizer::finalizeCached(R);
  ASSERT_TRUE(bool(First)) << llvm::toString(First.takeError());
  EXPECT_EQ(files().size(), 1u);
  finalizer::clearFinalizeMemoryCache(); // As a new process starts.
  const auto Before = stats();
  auto Again = finalizer::finalizeCached(R);
  ASSERT_TRUE(bool(Again)) << llvm::toString(Again.takeError());
  const auto After = stats();
  EXPECT_EQ(After.DiskHits - Before.DiskHits, 1u);
  EXPECT_EQ(After.Misses - Before.Misses, 0u);
  EXPECT_EQ(Again->Object, First->Object);
  expectRuns(std::move(*Again));
}

TEST_F(FinalizeCacheTest, WhatChangesTheCodeChangesTheKey) {
  const auto Before = stats();
  ASSERT_TRUE(bool(finalizer::finalizeCached(request(Doubler))));
  // Another width, another module, another setting that changes code.
  ASSERT_TRUE(bool(finalizer::finalizeCached(request(Doubler, 1))));
  std::string Other = Doubler;
  Other.replace(Other.find("add_u32"), 7, "mul_u32");
  ASSERT_TRUE(bool(finalizer::finalizeCached(request(Other.c_str()))));
  {
    ScopedEnv Off("OPENHSA_PROMOTE_REGISTERS", "0");
    ASSERT_TRUE(bool(finalizer::finalizeCached(request(Doubler))));
  }
  {
    ScopedEnv Off("OPENHSA_PREFETCH_GROUPS", "0");
    ASSERT_TRUE(bool(finalizer::finalizeCached(request(Doubler))));
  }
  const auto After = stats();
  EXPECT_EQ(After.Misses - Before.Misses, 5u);
  EXPECT_EQ(After.MemoryHits - Before.MemoryHits, 0u);
  EXPECT_EQ(files().size(), 5u);
  // The same module again, assembled anew: the same key.
  ASSERT_TRUE(bool(finalizer::finalizeCached(request(Doubler))));
  EXPECT_EQ(stats().MemoryHits - Before.MemoryHits, 1u);
}

TEST_F(FinalizeCacheTest, ADamagedFileIsFinalizedAgainAndReplaced) {
  const finalizer::FinalizeRequest R = request(Doubler);
  ASSERT_TRUE(bool(finalizer::finalizeCached(R)));
  ASSERT_EQ(files().size(), 1u);
  const std::string Path = Dir + "/" + files()[0];
  struct stat St {};
  ASSERT_EQ(stat(Path.c_str(), &St), 0);
  // Cut in half, as a crash mid-write without the rename would leave it.
  ASSERT_EQ(truncate(Path.c_str(), St.st_size / 2), 0);
  finalizer::clearFinalizeMemoryCache();
  auto Before = stats();
  auto Again = finalizer::finalizeCached(R);
  ASSERT_TRUE(bool(Again)) << llvm::toString(Again.takeError());
  auto After = stats();
  EXPECT_EQ(After.Rejected - Before.Rejected, 1u);
  EXPECT_EQ(After.Misses - Before.Misses, 1u);
  expectRuns(std::move(*Again));
  // A byte changed in place: the content hash refuses it.
  {
    std::fstream F(Path, std::ios::in | std::ios::out | std::ios::binary);
    F.seekp(St.st_size - 16);
    F.put('\x5a');
  }
  finalizer::clearFinalizeMemoryCache();
  Before = stats();
  ASSERT_TRUE(bool(finalizer::finalizeCached(R)));
  After = stats();
  EXPECT_EQ(After.Rejected - Before.Rejected, 1u);
  // Replaced: the next process reads it.
  finalizer::clearFinalizeMemoryCache();
  Before = stats();
  auto Read = finalizer::finalizeCached(R);
  ASSERT_TRUE(bool(Read)) << llvm::toString(Read.takeError());
  EXPECT_EQ(stats().DiskHits - Before.DiskHits, 1u);
  expectRuns(std::move(*Read));
}

TEST_F(FinalizeCacheTest, FailuresAreNotKept) {
  const finalizer::FinalizeRequest R = request(Unresolved);
  const auto Before = stats();
  for (int I = 0; I < 2; ++I) {
    auto CO = finalizer::finalizeCached(R);
    ASSERT_FALSE(bool(CO));
    EXPECT_NE(llvm::toString(CO.takeError()).find("missing"),
              std::string::npos);
  }
  const auto After = stats();
  EXPECT_EQ(After.Misses - Before.Misses, 2u);
  EXPECT_EQ(After.MemoryHits - Before.MemoryHits, 0u);
  EXPECT_TRUE(files().empty());
}

TEST_F(FinalizeCacheTest, TheDirectoryKeepsTheMostRecentlyUsedUnderItsLimit) {
  ASSERT_TRUE(bool(finalizer::finalizeCached(request(Doubler))));
  ASSERT_EQ(files().size(), 1u);
  const std::string Oldest = files()[0];
  struct stat St {};
  ASSERT_EQ(stat((Dir + "/" + Oldest).c_str(), &St), 0);
  // Room for one and a half files of this size.
  const std::string Limit =
      std::to_string(double(St.st_size) * 1.5 / double(1 << 20));
  ScopedEnv Max("OPENHSA_CACHE_MAX_MB", Limit.c_str());
  const auto Before = stats();
  ASSERT_TRUE(bool(finalizer::finalizeCached(request(Doubler, 1))));
  EXPECT_EQ(stats().Evicted - Before.Evicted, 1u);
  const std::vector<std::string> Left = files();
  ASSERT_EQ(Left.size(), 1u);
  EXPECT_NE(Left[0], Oldest) << "the newest file was removed";
}

// A writer killed between its write and its rename leaves a temporary
// file: the next store removes it once it is older than any writer takes,
// and leaves a recent one (a writer still at work) alone.
TEST_F(FinalizeCacheTest, AbandonedTemporaryFilesAreRemoved) {
  const std::string Old = Dir + "/0123.ohsaco.tmp.1.0";
  const std::string Recent = Dir + "/4567.ohsaco.tmp.2.0";
  for (const std::string &F : {Old, Recent})
    std::ofstream(F) << "half a code object";
  const struct timespec Times[2] = {{time(nullptr) - 3600, 0},
                                    {time(nullptr) - 3600, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, Old.c_str(), Times, 0), 0);
  ASSERT_TRUE(bool(finalizer::finalizeCached(request(Doubler))));
  struct stat St {};
  EXPECT_NE(stat(Old.c_str(), &St), 0) << "the abandoned file is still there";
  EXPECT_EQ(stat(Recent.c_str(), &St), 0);
}

TEST_F(FinalizeCacheTest, OffOrDumpingFinalizesEveryTime) {
  const finalizer::FinalizeRequest R = request(Doubler);
  {
    ScopedEnv Off("OPENHSA_FINALIZER_CACHE", "0");
    const auto Before = stats();
    ASSERT_TRUE(bool(finalizer::finalizeCached(R)));
    ASSERT_TRUE(bool(finalizer::finalizeCached(R)));
    EXPECT_EQ(stats().Bypassed - Before.Bypassed, 2u);
    EXPECT_TRUE(files().empty());
  }
  {
    ScopedEnv Memory("OPENHSA_FINALIZER_CACHE", "memory");
    const auto Before = stats();
    ASSERT_TRUE(bool(finalizer::finalizeCached(R)));
    ASSERT_TRUE(bool(finalizer::finalizeCached(R)));
    EXPECT_EQ(stats().MemoryHits - Before.MemoryHits, 1u);
    EXPECT_TRUE(files().empty()) << "memory alone wrote a file";
  }
  {
    ScopedEnv Dump("OPENHSA_DUMP_IR", Dir.c_str());
    const auto Before = stats();
    ASSERT_TRUE(bool(finalizer::finalizeCached(R)));
    EXPECT_EQ(stats().Bypassed - Before.Bypassed, 1u);
    EXPECT_EQ(stats().MemoryHits - Before.MemoryHits, 0u);
    for (const std::string &F : files())
      unlink((Dir + "/" + F).c_str()); // The dumps.
  }
}

// Threads finalizing the same program at once, one of them emptying the
// in-process level meanwhile (so others read the file as it is written):
// every result is the same code object, no file read back is torn, and no
// temporary file is left. Run under TSan too (scripts/test.sh).
TEST_F(FinalizeCacheTest, ConcurrentFinalizationsAgree) {
  const finalizer::FinalizeRequest R = request(Doubler);
  auto Reference = finalizer::finalize(R);
  ASSERT_TRUE(bool(Reference)) << llvm::toString(Reference.takeError());
  const auto Before = stats();
  constexpr unsigned Threads = 4, Rounds = 3;
  std::vector<std::vector<uint8_t>> Objects(Threads * Rounds);
  std::vector<std::string> Errors(Threads * Rounds);
  std::vector<std::thread> Pool;
  for (unsigned T = 0; T < Threads; ++T)
    Pool.emplace_back([&, T] {
      for (unsigned I = 0; I < Rounds; ++I) {
        if (T == 0)
          finalizer::clearFinalizeMemoryCache();
        auto CO = finalizer::finalizeCached(R);
        if (CO)
          Objects[T * Rounds + I] = CO->Object;
        else
          Errors[T * Rounds + I] = llvm::toString(CO.takeError());
      }
    });
  for (std::thread &T : Pool)
    T.join();
  for (unsigned I = 0; I < Threads * Rounds; ++I) {
    EXPECT_EQ(Errors[I], "");
    EXPECT_EQ(Objects[I], Reference->Object) << I;
  }
  const auto After = stats();
  EXPECT_EQ(After.Rejected - Before.Rejected, 0u);
  EXPECT_EQ((After.MemoryHits - Before.MemoryHits) +
                (After.DiskHits - Before.DiskHits) +
                (After.Misses - Before.Misses),
            uint64_t(Threads * Rounds));
  const std::vector<std::string> Left = files();
  ASSERT_EQ(Left.size(), 1u);
  EXPECT_EQ(Left[0].find(".tmp"), std::string::npos);
}

} // namespace
