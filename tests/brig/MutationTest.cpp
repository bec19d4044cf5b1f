//===- tests/brig/MutationTest.cpp - No crash on mutated modules ----------===//
//
// Part of openhsa. Deterministically mutates valid modules many times (byte
// flips, interesting 16/32-bit values written over fields, truncation) and
// checks that reading, validating and disassembling never crash or hang:
// every mutant is either valid or rejected with a clean diagnostic. The
// disassembler also runs on mutants that pass BrigModule::create but fail
// validation, to check that it stays in bounds on its own.
//
//===----------------------------------------------------------------------===//

#include "BrigTestBuilder.h"

#include "brig/Disassembler.h"
#include "brig/Validator.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <gtest/gtest.h>

using namespace openhsa::brig;
using namespace openhsa::brig::test;

namespace {

struct Rng {
  uint64_t S;
  uint64_t next() {
    S ^= S << 13;
    S ^= S >> 7;
    S ^= S << 17;
    return S;
  }
  uint64_t below(uint64_t N) { return N ? next() % N : 0; }
};

/// Mutates \p Seed \p Rounds times; returns how many mutants stayed valid.
unsigned mutateMany(const AlignedBytes &Seed, unsigned Rounds, uint64_t Key) {
  static const uint32_t Interesting[] = {
      0,      1,      2,      3,       4,          8,          0x7f,
      0x80,   0xff,   0x100,  0x1000,  0x3000,     0x300a,     0x7fff,
      0x8000, 0xfffc, 0xffff, 0x10000, 0x7fffffff, 0xfffffffc, 0xffffffff};
  Rng R{Key * 0x9e3779b97f4a7c15ull + 1};
  unsigned Valid = 0;
  for (unsigned I = 0; I < Rounds; ++I) {
    AlignedBytes B = Seed;
    unsigned Edits = 1 + unsigned(R.below(4));
    for (unsigned E = 0; E < Edits; ++E) {
      size_t Off = size_t(R.below(B.size()));
      switch (R.below(5)) {
      case 0:
        B.data()[Off] ^= uint8_t(1u << R.below(8));
        break;
      case 1:
        B.data()[Off] = uint8_t(R.next());
        break;
      case 2:
        if (Off + 2 <= B.size())
          B.put<uint16_t>(
              Off & ~size_t(1),
              uint16_t(Interesting[R.below(std::size(Interesting))]));
        break;
      case 3:
        if ((Off & ~size_t(3)) + 4 <= B.size())
          B.put<uint32_t>(Off & ~size_t(3),
                          Interesting[R.below(std::size(Interesting))]);
        break;
      default:
        if (R.below(8) == 0)
          B.resize(Off);
        break;
      }
    }
    auto M = BrigModule::create(B.bytes(), "mutant.brig");
    if (!M) {
      EXPECT_FALSE(llvm::toString(M.takeError()).empty());
      continue;
    }
    // The disassembler must stay in bounds even on unvalidated modules.
    std::string Text = disassembleToString(*M);
    if (llvm::Error Err = validateModule(*M)) {
      std::string Msg = llvm::toString(std::move(Err));
      EXPECT_EQ(Msg.rfind("mutant.brig: ", 0), 0u) << Msg;
      continue;
    }
    ++Valid;
    EXPECT_FALSE(Text.empty());
  }
  return Valid;
}

TEST(MutationTest, SampleModuleNeverCrashes) {
  SampleModule S = buildSampleModule();
  unsigned Valid = mutateMany(S.Bytes, 20000, 1);
  // Some mutations (e.g. of a register number) keep the module valid.
  EXPECT_GT(Valid, 0u);
}

TEST(MutationTest, CorpusModulesNeverCrash) {
  if (llvm::StringRef(OPENHSA_HSAILASM_PATH).empty())
    GTEST_SKIP() << "HSAILasm not found at configure time";
  llvm::SmallVector<llvm::StringRef, 16> Files;
  llvm::StringRef(OPENHSA_BRIG_CORPUS_FILES).split(Files, ';', -1, false);
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("openhsa-mut", Dir));
  uint64_t Key = 100;
  for (llvm::StringRef Src : Files) {
    std::string Brig = (Dir + "/m.brig").str();
    std::vector<llvm::StringRef> Argv = {OPENHSA_HSAILASM_PATH, Src, "-o",
                                         Brig};
    ASSERT_EQ(llvm::sys::ExecuteAndWait(OPENHSA_HSAILASM_PATH, Argv,
                                        std::nullopt, {}, 60),
              0);
    auto Buf =
        llvm::MemoryBuffer::getFile(Brig, false, false, false, llvm::Align(16));
    ASSERT_TRUE(bool(Buf));
    AlignedBytes Seed(llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>((*Buf)->getBufferStart()),
        (*Buf)->getBufferSize()));
    SCOPED_TRACE(Src.str());
    mutateMany(Seed, 3000, Key++);
  }
  llvm::sys::fs::remove_directories(Dir);
}

} // namespace
