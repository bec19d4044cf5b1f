//===- tests/finalizer/CodeObjectCheckTest.cpp - Damaged code objects -----===//
//
// Issue 14 item 4: serialized code objects (hsa_code_object_serialize) with
// bytes overwritten must be refused with a message or load correctly, never
// crash the process (JITLink applies relocations without bounds checks).
// Two defences are tested: the content hash of the serialized form
// (accidental damage) and the bounds checks of the ELF object
// (finalizer/ObjectCheck.h), which must hold for objects crafted with a
// valid hash too.
//
//===----------------------------------------------------------------------===//
#include "FloatReference.h"
#include "KernelRunner.h"

#include "finalizer/ObjectCheck.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <unistd.h>

using namespace openhsa::test;
using openhsa::finalizer::CodeObject;
using openhsa::finalizer::LoadedObject;

namespace {

// A kernel with calls to runtime helpers, a global variable and a
// switch-like branch, so that its object has several relocation kinds.
const char *Source = R"(
module &m:1:0:$full:$large:$default;
prog global_u32 &table[4] = u32[](1, 2, 3, 4);
kernel &k(kernarg_u64 %out)
{
	workitemabsid_u32	$s0, 0;
	and_b32	$s1, $s0, 3;
	cvt_u64_u32	$d1, $s1;
	shl_u64	$d1, $d1, 2;
	ld_global_u32	$s2, [&table][$d1];
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d3, [%out];
	add_u64	$d3, $d3, $d0;
	st_global_u32	$s2, [$d3];
	ret;
};
)";

/// Where the serialized form's object starts: after the magic, the hash,
/// the metadata length and metadata, and the object length.
size_t objectOffset(const std::vector<uint8_t> &Bytes) {
  uint32_t MetaLen;
  std::memcpy(&MetaLen, Bytes.data() + 16, 4);
  return 16 + 4 + MetaLen + 8;
}

/// Deserializes and loads Bytes; true when it loaded (and its kernel
/// resolves), false when refused, with the refusal's message in Why.
bool deserializeAndLoad(const std::vector<uint8_t> &Bytes, std::string &Why) {
  auto CO = CodeObject::deserialize(Bytes);
  if (!CO) {
    Why = llvm::toString(CO.takeError());
    return false;
  }
  auto L = LoadedObject::load(*CO, {});
  if (!L) {
    Why = llvm::toString(L.takeError());
    return false;
  }
  for (const auto &K : CO->Kernels)
    if (auto A = (*L)->address(K.EntrySymbol); !A) {
      Why = llvm::toString(A.takeError());
      return false;
    }
  return true;
}

class CodeObjectCheckTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (runsOnGpu())
      GTEST_SKIP() << "checks of the host's ELF code objects";
    auto P = finalizeText(Source);
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    Code = std::move(P->Code);
    Bytes = Code.serialize();
    Object = objectOffset(Bytes);
    ASSERT_EQ(Bytes.size() - Object, Code.Object.size());
  }

  /// The object's ELF view, over Bytes (edits show through).
  llvm::object::ELFFile<llvm::object::ELF64LE> elf(std::vector<uint8_t> &B) {
    auto F = llvm::object::ELFFile<llvm::object::ELF64LE>::create(
        llvm::StringRef(reinterpret_cast<const char *>(B.data() + Object),
                        B.size() - Object));
    EXPECT_TRUE(bool(F));
    return std::move(*F);
  }

  CodeObject Code;
  std::vector<uint8_t> Bytes;
  size_t Object = 0;
};

// The serialized form round-trips and its version is 02 (with the hash).
TEST_F(CodeObjectCheckTest, IntactObjectLoads) {
  EXPECT_EQ(std::string(Bytes.begin(), Bytes.begin() + 8), "OHSACO02");
  std::string Why;
  EXPECT_TRUE(deserializeAndLoad(Bytes, Why)) << Why;
  EXPECT_FALSE(bool(openhsa::finalizer::checkRelocatableObject(Code.Object)));
}

// OPENHSA_PERF_MAP=1: loading writes the work-group function's address
// and size to /tmp/perf-<pid>.map, where perf names samples in JIT code;
// unset, nothing is written.
TEST_F(CodeObjectCheckTest, PerfMapNamesTheLoadedFunctions) {
  const std::string Path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
  auto Read = [&] {
    std::ifstream In(Path);
    return std::string(std::istreambuf_iterator<char>(In), {});
  };
  std::remove(Path.c_str());
  std::string Why;
  ASSERT_EQ(unsetenv("OPENHSA_PERF_MAP"), 0);
  ASSERT_TRUE(deserializeAndLoad(Bytes, Why)) << Why;
  EXPECT_EQ(Read(), "");
  ASSERT_EQ(setenv("OPENHSA_PERF_MAP", "1", 1), 0);
  const bool Loaded = deserializeAndLoad(Bytes, Why);
  unsetenv("OPENHSA_PERF_MAP");
  ASSERT_TRUE(Loaded) << Why;
  const std::string Map = Read();
  std::remove(Path.c_str());
  // "<hex address> <hex size> <name>" per line.
  const std::string Entry = Code.Kernels.at(0).EntrySymbol;
  const size_t At = Map.find(" " + Entry + "\n");
  ASSERT_NE(At, std::string::npos) << Map;
  const size_t Line =
      Map.rfind('\n', At) == std::string::npos ? 0 : Map.rfind('\n', At) + 1;
  unsigned long long Address = 0, Size = 0;
  ASSERT_EQ(std::sscanf(Map.c_str() + Line, "%llx %llx", &Address, &Size), 2)
      << Map;
  EXPECT_NE(Address, 0u);
  EXPECT_GT(Size, 0u);
}

// Accidental damage: 1-8 random bytes overwritten anywhere. The hash
// refuses every change; an overwrite with the same bytes still loads.
TEST_F(CodeObjectCheckTest, OverwrittenBytesAreRefusedByTheHash) {
  fp::Rng R(14);
  unsigned Refused = 0;
  for (unsigned Seed = 0; Seed < 2000; ++Seed) {
    std::vector<uint8_t> B = Bytes;
    for (unsigned N = 1 + R.next() % 8; N-- > 0;)
      B[R.next() % B.size()] = uint8_t(R.next());
    std::string Why;
    const bool Loaded = deserializeAndLoad(B, Why);
    if (B == Bytes) {
      EXPECT_TRUE(Loaded) << Why;
      continue;
    }
    ASSERT_FALSE(Loaded) << "seed " << Seed << ": damaged object loaded";
    EXPECT_EQ(Why.rfind("invalid code object: ", 0), 0u) << Why;
    ++Refused;
  }
  EXPECT_GT(Refused, 1900u);
}

// A version 01 object (no hash) is refused by name, not misread.
TEST_F(CodeObjectCheckTest, OlderVersionIsRefused) {
  std::vector<uint8_t> B = Bytes;
  B[7] = '1';
  std::string Why;
  ASSERT_FALSE(deserializeAndLoad(B, Why));
  EXPECT_NE(Why.find("unsupported version '01'"), std::string::npos) << Why;
}

// Damage behind a valid hash (as a crafted or re-sealed file would be):
// 1-8 bytes of the ELF object overwritten, half of the time in its section
// headers, symbol table or relocations, where JITLink trusts the values.
// Each must be refused with a message or load; the process must live.
TEST_F(CodeObjectCheckTest, OverwrittenObjectBytesUnderAValidHashNeverCrash) {
  // The byte ranges of the object's tables.
  std::vector<std::pair<size_t, size_t>> Tables;
  {
    auto F = elf(Bytes);
    const auto &H = F.getHeader();
    Tables.push_back({0, sizeof(H)});
    Tables.push_back({H.e_shoff, H.e_shnum * sizeof(llvm::ELF::Elf64_Shdr)});
    auto Sections = F.sections();
    ASSERT_TRUE(bool(Sections));
    bool HasRela = false;
    for (const auto &S : *Sections)
      if (S.sh_type == llvm::ELF::SHT_SYMTAB ||
          S.sh_type == llvm::ELF::SHT_RELA) {
        Tables.push_back({S.sh_offset, S.sh_size});
        HasRela |= S.sh_type == llvm::ELF::SHT_RELA && S.sh_size;
      }
    ASSERT_TRUE(HasRela) << "the test kernel's object has no relocations";
  }
  const size_t ObjSize = Bytes.size() - Object;
  // OPENHSA_MUTATIONS=<count>[,<seed>] runs longer (3000 in CI, ~1 s).
  unsigned Count = 3000;
  uint64_t First = 1414;
  if (const char *E = std::getenv("OPENHSA_MUTATIONS")) {
    char *End = nullptr;
    Count = unsigned(std::strtoul(E, &End, 10));
    if (*End == ',')
      First = std::strtoull(End + 1, nullptr, 10);
  }
  fp::Rng R(First);
  unsigned Refused = 0, Loaded = 0;
  for (unsigned Seed = 0; Seed < Count; ++Seed) {
    std::vector<uint8_t> B = Bytes;
    for (unsigned N = 1 + R.next() % 8; N-- > 0;) {
      size_t Pos;
      if (R.next() & 1) {
        const auto &[Start, Size] = Tables[R.next() % Tables.size()];
        Pos = Start + R.next() % Size;
      } else {
        Pos = R.next() % ObjSize;
      }
      B[Object + Pos] = uint8_t(R.next());
    }
    openhsa::finalizer::sealCodeObject(B);
    std::string Why;
    if (deserializeAndLoad(B, Why)) {
      ++Loaded;
    } else {
      ++Refused;
      EXPECT_FALSE(Why.empty());
    }
  }
  // Both outcomes occur: damaged tables are refused, damaged code loads.
  EXPECT_GT(Refused, Count / 30);
  EXPECT_GT(Loaded, Count / 30);
}

/// The first relocation section's first entry in B's object.
llvm::object::ELF64LE::Rela *
firstRelocation(llvm::object::ELFFile<llvm::object::ELF64LE> &F,
                std::vector<uint8_t> &B, size_t Object,
                const llvm::object::ELF64LE::Shdr **Patched) {
  auto Sections = F.sections();
  if (!Sections)
    return nullptr;
  for (const auto &S : *Sections)
    if (S.sh_type == llvm::ELF::SHT_RELA && S.sh_size) {
      *Patched = &(*Sections)[S.sh_info];
      return reinterpret_cast<llvm::object::ELF64LE::Rela *>(B.data() + Object +
                                                             S.sh_offset);
    }
  return nullptr;
}

// A crafted object with a valid hash and a relocation that points past the
// end of its section: refused at deserialize, and by the loader when such
// an object reaches it without deserialize, with a message naming it.
TEST_F(CodeObjectCheckTest, RelocationOutsideItsSectionIsRefused) {
  std::vector<uint8_t> B = Bytes;
  auto F = elf(B);
  const llvm::object::ELF64LE::Shdr *Patched = nullptr;
  auto *Rel = firstRelocation(F, B, Object, &Patched);
  ASSERT_NE(Rel, nullptr);
  Rel->r_offset = Patched->sh_size + 4096;
  openhsa::finalizer::sealCodeObject(B);

  auto CO = CodeObject::deserialize(B);
  ASSERT_FALSE(bool(CO));
  std::string Why = llvm::toString(CO.takeError());
  EXPECT_NE(Why.find("relocation #0"), std::string::npos) << Why;
  EXPECT_NE(Why.find("outside its section"), std::string::npos) << Why;

  CodeObject Crafted = Code;
  Crafted.Object.assign(B.begin() + Object, B.end());
  auto L = LoadedObject::load(Crafted, {});
  ASSERT_FALSE(bool(L));
  Why = llvm::toString(L.takeError());
  EXPECT_NE(Why.find("outside its section"), std::string::npos) << Why;

  // Straddling the end by one byte is refused too.
  Rel->r_offset = Patched->sh_size - 3;
  openhsa::finalizer::sealCodeObject(B);
  CO = CodeObject::deserialize(B);
  ASSERT_FALSE(bool(CO));
  Why = llvm::toString(CO.takeError());
  EXPECT_NE(Why.find("outside its section"), std::string::npos) << Why;
}

// Symbols: a section index past the section table, and a value past the
// end of its section, are refused by name.
TEST_F(CodeObjectCheckTest, SymbolOutsideItsSectionIsRefused) {
  for (bool BadIndex : {true, false}) {
    std::vector<uint8_t> B = Bytes;
    auto F = elf(B);
    auto Sections = F.sections();
    ASSERT_TRUE(bool(Sections));
    llvm::object::ELF64LE::Sym *Target = nullptr;
    for (const auto &S : *Sections) {
      if (S.sh_type != llvm::ELF::SHT_SYMTAB)
        continue;
      auto *Syms = reinterpret_cast<llvm::object::ELF64LE::Sym *>(
          B.data() + Object + S.sh_offset);
      for (size_t I = 1; I < S.sh_size / sizeof(*Syms); ++I)
        if (Syms[I].st_shndx != llvm::ELF::SHN_UNDEF &&
            Syms[I].st_shndx < llvm::ELF::SHN_LORESERVE) {
          Target = &Syms[I];
          break;
        }
    }
    ASSERT_NE(Target, nullptr);
    if (BadIndex)
      Target->st_shndx = uint16_t(Sections->size() + 5);
    else
      Target->st_value = (*Sections)[Target->st_shndx].sh_size + 1;
    openhsa::finalizer::sealCodeObject(B);
    auto CO = CodeObject::deserialize(B);
    ASSERT_FALSE(bool(CO));
    std::string Why = llvm::toString(CO.takeError());
    EXPECT_NE(Why.find(BadIndex ? "section index" : "lies outside its section"),
              std::string::npos)
        << Why;
  }
}

// A section whose contents lie past the end of the file is refused.
TEST_F(CodeObjectCheckTest, SectionOutsideTheFileIsRefused) {
  std::vector<uint8_t> B = Bytes;
  auto F = elf(B);
  const auto &H = F.getHeader();
  auto *Shdrs = reinterpret_cast<llvm::object::ELF64LE::Shdr *>(
      B.data() + Object + H.e_shoff);
  for (unsigned I = 1; I < H.e_shnum; ++I)
    if (Shdrs[I].sh_type == llvm::ELF::SHT_PROGBITS) {
      Shdrs[I].sh_size = B.size();
      break;
    }
  openhsa::finalizer::sealCodeObject(B);
  auto CO = CodeObject::deserialize(B);
  ASSERT_FALSE(bool(CO));
  std::string Why = llvm::toString(CO.takeError());
  EXPECT_NE(Why.find("lie outside the file"), std::string::npos) << Why;
}

} // namespace
