//===- tests/asm/AsmCoverageTest.cpp - What the HSAIL corpus exercises ----===//
//
// Assembles every corpus file (tests/asm/corpus and tests/brig/corpus) and
// counts, over the resulting BRIG, each opcode (PRM 18.7, the IMAGE
// extension's included), each directive kind, each instruction format and
// each operand kind (PRM 18.3.15). The report is printed; the test fails if
// any of them is never exercised. BRIG_KIND_NONE (padding) and
// BRIG_KIND_OPERAND_RESERVED are not part of HSAIL and are not counted.
//
//===----------------------------------------------------------------------===//

#include "AsmTestSupport.h"

#include "brig/BrigModule.h"
#include "brig/BrigNames.h"
#include "brig/asm/Assembler.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <iostream>
#include <map>

using namespace openhsa;
using namespace openhsa::brig;
using namespace openhsa::asmtest;

namespace {

struct Counts {
  std::map<unsigned, uint64_t> Opcodes, Kinds;
};

void count(const BrigModule &M, Counts &C) {
  for (EntryRef<BrigBase> E : M.codeEntries()) {
    ++C.Kinds[E.kind()];
    if (auto I = M.code<BrigInstBase>(E.Offset))
      ++C.Opcodes[I->opcode];
  }
  for (EntryRef<BrigBase> E : M.operandEntries())
    ++C.Kinds[E.kind()];
}

TEST(AsmCoverage, CorpusExercisesEveryOpcodeDirectiveAndOperandKind) {
  Counts C;
  unsigned Files = 0;
  for (const char *Dir : {OPENHSA_ASM_CORPUS_DIR, OPENHSA_BRIG_TEXT_CORPUS_DIR})
    for (const std::string &Stem : listHsailFiles(Dir)) {
      std::string Path = std::string(Dir) + "/" + Stem + ".hsail";
      std::optional<std::string> Text = readFile(Path);
      ASSERT_TRUE(Text) << "cannot read " << Path;
      llvm::Expected<std::vector<uint8_t>> Brig =
          brig::assembler::assembleHsail(*Text);
      if (!Brig)
        FAIL() << brig::assembler::renderError(Brig.takeError(), Path, *Text);
      llvm::Expected<BrigModule> M = BrigModule::create(*Brig, Stem);
      ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
      count(*M, C);
      ++Files;
    }

  std::vector<std::string> Missing;
  std::string Report;
  llvm::raw_string_ostream OS(Report);
  OS << "BRIG coverage of " << Files << " corpus files\n";
  auto Line = [&](const std::string &Name, uint64_t N) {
    OS << llvm::format("  %-40s %8llu", Name.c_str(), (unsigned long long)N)
       << (N ? "" : "   <-- not exercised") << '\n';
    if (!N)
      Missing.push_back(Name);
  };
  OS << "opcodes:\n";
  for (unsigned Op = 0; Op < BRIG_OPCODE_STANDARD_END; ++Op)
    Line(std::string("BRIG_OPCODE_") + llvm::StringRef(opcodeName(Op)).upper(),
         C.Opcodes[Op]);
  auto Range = [&](const char *Title, unsigned Begin, unsigned End) {
    OS << Title << ":\n";
    for (unsigned K = Begin; K < End; ++K)
      if (K != BRIG_KIND_OPERAND_RESERVED)
        Line(kindName(K), C.Kinds[K]);
  };
  Range("directive kinds", BRIG_KIND_DIRECTIVE_BEGIN, BRIG_KIND_DIRECTIVE_END);
  Range("instruction kinds", BRIG_KIND_INST_BEGIN, BRIG_KIND_INST_END);
  Range("operand kinds", BRIG_KIND_OPERAND_BEGIN, BRIG_KIND_OPERAND_END);
  std::cout << Report;
  RecordProperty("report", Report);
  EXPECT_TRUE(Missing.empty())
      << "not exercised by the corpus: " << llvm::join(Missing, ", ");
}

} // namespace
