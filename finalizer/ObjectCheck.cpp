//===- finalizer/ObjectCheck.cpp - Bounds checks of a code object's ELF ---===//
//
// What JITLink (LLVM 19) relies on without checking, and so what is checked
// here, for every section, symbol and relocation of the object:
//  - the file is ELF64 little-endian, relocatable, for the host machine;
//  - sections: contents within the file, power-of-two alignment, address 0
//    (JITLink places blocks at sh_addr before layout), zero-fill sizes
//    bounded; one symbol table at most, no extended section numbering;
//  - symbols: names within the string table, a defined symbol's section
//    exists and [value, value + size) lies within it;
//  - relocations (RELA only, as x86-64 uses): the patched section exists
//    and has contents, the type is one JITLink handles, [offset, offset +
//    width) lies within the section (and the instruction bytes that GOT
//    relaxation rewrites before the offset too), the symbol exists.
// Every check is overflow-safe: a + b <= c is tested as a <= c && b <= c - a.
//
//===----------------------------------------------------------------------===//
#include "finalizer/ObjectCheck.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBufferRef.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace openhsa::finalizer {

namespace {

using ELFT = llvm::object::ELF64LE;
using Shdr = ELFT::Shdr;

/// Largest alignment a section or common symbol may ask for: the finalizer
/// never needs more than a page; absurd ones would overflow layout sums.
constexpr uint64_t MaxAlignment = uint64_t(1) << 16;
/// Largest zero-fill section or common symbol (no file bytes back it, so a
/// corrupt size would otherwise become an allocation of any size).
constexpr uint64_t MaxZeroFill = uint64_t(1) << 32;

llvm::Error bad(const llvm::Twine &Why) {
  return llvm::createStringError("invalid code object: ELF object: " + Why);
}

/// A + B <= Limit without overflow.
bool fits(uint64_t A, uint64_t B, uint64_t Limit) {
  return A <= Limit && B <= Limit - A;
}

/// The ELF machine of this process, the only one the loader can run.
uint16_t hostMachine() {
  switch (llvm::Triple(llvm::sys::getProcessTriple()).getArch()) {
  case llvm::Triple::x86_64:
    return llvm::ELF::EM_X86_64;
  case llvm::Triple::aarch64:
    return llvm::ELF::EM_AARCH64;
  default:
    return llvm::ELF::EM_NONE;
  }
}

/// Bytes a relocation of Type patches at its offset, and how many bytes
/// before the offset the linker may read or rewrite (GOT relaxation looks
/// at the instruction's opcode and ModRM, and its REX prefix); false for a
/// type the loader does not handle.
bool relocationExtent(uint16_t Machine, uint32_t Type, uint64_t &Width,
                      uint64_t &Before) {
  Before = 0;
  if (Machine == llvm::ELF::EM_X86_64) {
    switch (Type) {
    case llvm::ELF::R_X86_64_NONE:
      Width = 0;
      return true;
    case llvm::ELF::R_X86_64_8:
      Width = 1;
      return true;
    case llvm::ELF::R_X86_64_16:
      Width = 2;
      return true;
    case llvm::ELF::R_X86_64_PC32:
    case llvm::ELF::R_X86_64_32:
    case llvm::ELF::R_X86_64_32S:
    case llvm::ELF::R_X86_64_PLT32:
    case llvm::ELF::R_X86_64_GOTPCREL:
    case llvm::ELF::R_X86_64_TLSGD:
      Width = 4;
      return true;
    case llvm::ELF::R_X86_64_GOTPCRELX:
      Width = 4;
      Before = 2;
      return true;
    case llvm::ELF::R_X86_64_REX_GOTPCRELX:
      Width = 4;
      Before = 3;
      return true;
    case llvm::ELF::R_X86_64_64:
    case llvm::ELF::R_X86_64_PC64:
    case llvm::ELF::R_X86_64_GOTPC64:
    case llvm::ELF::R_X86_64_GOTPCREL64:
    case llvm::ELF::R_X86_64_GOT64:
    case llvm::ELF::R_X86_64_GOTOFF64:
      Width = 8;
      return true;
    default:
      return false;
    }
  }
  if (Machine == llvm::ELF::EM_AARCH64) {
    // Instruction relocations patch one 4-byte instruction; data ones
    // their own width.
    switch (Type) {
    case llvm::ELF::R_AARCH64_NONE:
      Width = 0;
      return true;
    case llvm::ELF::R_AARCH64_ABS64:
    case llvm::ELF::R_AARCH64_PREL64:
      Width = 8;
      return true;
    case llvm::ELF::R_AARCH64_ABS16:
    case llvm::ELF::R_AARCH64_PREL16:
      Width = 2;
      return true;
    default:
      Width = 4;
      return true;
    }
  }
  return false;
}

class Checker {
public:
  Checker(const llvm::object::ELFFile<ELFT> &Obj, uint16_t Machine)
      : Obj(Obj), Machine(Machine) {}

  llvm::Error run() {
    const auto &H = Obj.getHeader();
    if (H.e_type != llvm::ELF::ET_REL)
      return bad("not a relocatable object (e_type " + llvm::Twine(H.e_type) +
                 ")");
    if (H.e_machine != Machine)
      return bad("machine " + llvm::Twine(H.e_machine) +
                 " is not this host's (" + llvm::Twine(Machine) + ")");
    auto S = Obj.sections();
    if (!S)
      return bad("section headers: " + llvm::toString(S.takeError()));
    Sections = *S;
    if (H.e_shstrndx == llvm::ELF::SHN_XINDEX ||
        Sections.size() >= llvm::ELF::SHN_LORESERVE)
      return bad("extended section numbering is not supported");
    auto Names = Obj.getSectionStringTable(Sections);
    if (!Names)
      return bad("section names: " + llvm::toString(Names.takeError()));
    SectionNames = *Names;
    for (size_t I = 0; I < Sections.size(); ++I)
      if (llvm::Error E = checkSection(I))
        return E;
    if (SymTab)
      if (llvm::Error E = checkSymbols())
        return E;
    for (size_t I = 0; I < Sections.size(); ++I)
      if (Sections[I].sh_type == llvm::ELF::SHT_RELA)
        if (llvm::Error E = checkRelocations(I))
          return E;
    return llvm::Error::success();
  }

private:
  std::string nameOf(size_t Index) {
    auto N = Obj.getSectionName(Sections[Index], SectionNames);
    if (!N) {
      llvm::consumeError(N.takeError());
      return "#" + std::to_string(Index);
    }
    return "'" + N->str() + "' (#" + std::to_string(Index) + ")";
  }

  llvm::Error checkSection(size_t I) {
    const Shdr &Sec = Sections[I];
    if (Sec.sh_type == llvm::ELF::SHT_NULL)
      return llvm::Error::success();
    auto Name = Obj.getSectionName(Sec, SectionNames);
    if (!Name)
      return bad("section #" + llvm::Twine(I) + ": " +
                 llvm::toString(Name.takeError()));
    std::string What = "section " + nameOf(I);
    if (Sec.sh_addralign > MaxAlignment ||
        (Sec.sh_addralign && !llvm::isPowerOf2_64(Sec.sh_addralign)))
      return bad(What + ": alignment " + llvm::Twine(Sec.sh_addralign) +
                 " is not a power of two up to " + llvm::Twine(MaxAlignment));
    if (Sec.sh_addr != 0)
      return bad(What + ": address " + llvm::Twine(Sec.sh_addr) +
                 " in a relocatable object");
    if (Sec.sh_type == llvm::ELF::SHT_NOBITS) {
      if (Sec.sh_size > MaxZeroFill)
        return bad(What + ": zero-fill size " + llvm::Twine(Sec.sh_size) +
                   " is too large");
    } else if (!fits(Sec.sh_offset, Sec.sh_size, Obj.getBufSize())) {
      return bad(What + ": contents [" + llvm::Twine(Sec.sh_offset) + ", +" +
                 llvm::Twine(Sec.sh_size) + ") lie outside the file of " +
                 llvm::Twine(Obj.getBufSize()) + " bytes");
    }
    switch (Sec.sh_type) {
    case llvm::ELF::SHT_SYMTAB:
      if (SymTab)
        return bad("more than one symbol table");
      SymTab = &Sec;
      SymTabIndex = I;
      break;
    case llvm::ELF::SHT_SYMTAB_SHNDX:
      return bad(What + ": extended section indices are not supported");
    case llvm::ELF::SHT_REL:
      return bad(What + ": REL relocations are not supported (RELA only)");
    default:
      break;
    }
    return llvm::Error::success();
  }

  llvm::Error checkSymbols() {
    auto Syms = Obj.symbols(SymTab);
    if (!Syms)
      return bad("symbol table: " + llvm::toString(Syms.takeError()));
    auto Strings = Obj.getStringTableForSymtab(*SymTab, Sections);
    if (!Strings)
      return bad("symbol names: " + llvm::toString(Strings.takeError()));
    NumSymbols = Syms->size();
    for (size_t I = 1; I < Syms->size(); ++I) {
      const ELFT::Sym &Sym = (*Syms)[I];
      auto Name = Sym.getName(*Strings);
      if (!Name)
        return bad("symbol #" + llvm::Twine(I) + ": " +
                   llvm::toString(Name.takeError()));
      std::string What =
          "symbol '" + Name->str() + "' (#" + std::to_string(I) + ")";
      uint16_t Index = Sym.st_shndx;
      if (Index == llvm::ELF::SHN_UNDEF || Index == llvm::ELF::SHN_ABS)
        continue;
      if (Index == llvm::ELF::SHN_COMMON) {
        // A common symbol's value is its alignment.
        if (!llvm::isPowerOf2_64(Sym.st_value) || Sym.st_value > MaxAlignment ||
            Sym.st_size > MaxZeroFill)
          return bad(What + ": common symbol of size " +
                     llvm::Twine(Sym.st_size) + ", alignment " +
                     llvm::Twine(Sym.st_value) + " is out of range");
        continue;
      }
      if (Index >= llvm::ELF::SHN_LORESERVE)
        return bad(What + ": reserved section index " + llvm::Twine(Index) +
                   " is not supported");
      if (Index >= Sections.size())
        return bad(What + ": section index " + llvm::Twine(Index) +
                   " is out of range (" + llvm::Twine(Sections.size()) +
                   " sections)");
      const Shdr &Sec = Sections[Index];
      if (Sec.sh_type == llvm::ELF::SHT_NULL)
        return bad(What + ": defined in the null section");
      if (!fits(Sym.st_value, Sym.st_size, Sec.sh_size))
        return bad(What + ": [" + llvm::Twine(Sym.st_value) + ", +" +
                   llvm::Twine(Sym.st_size) + ") lies outside its section " +
                   nameOf(Index) + " of " + llvm::Twine(Sec.sh_size) +
                   " bytes");
    }
    return llvm::Error::success();
  }

  llvm::Error checkRelocations(size_t I) {
    const Shdr &RelSec = Sections[I];
    std::string What = "relocation section " + nameOf(I);
    if (RelSec.sh_info == 0 || RelSec.sh_info >= Sections.size())
      return bad(What + ": patched section index " +
                 llvm::Twine(RelSec.sh_info) + " is out of range");
    if (!SymTab || RelSec.sh_link != SymTabIndex)
      return bad(What + ": its symbol table (section " +
                 llvm::Twine(RelSec.sh_link) + ") is not the object's");
    const Shdr &Target = Sections[RelSec.sh_info];
    std::string Patched = nameOf(RelSec.sh_info);
    if (Target.sh_type == llvm::ELF::SHT_NULL ||
        Target.sh_type == llvm::ELF::SHT_NOBITS ||
        Target.sh_type == llvm::ELF::SHT_RELA ||
        Target.sh_type == llvm::ELF::SHT_SYMTAB ||
        Target.sh_type == llvm::ELF::SHT_STRTAB)
      return bad(What + ": patches section " + Patched + " of type " +
                 llvm::Twine(Target.sh_type) +
                 ", which has no code or data to patch");
    auto Relas = Obj.relas(RelSec);
    if (!Relas)
      return bad(What + ": " + llvm::toString(Relas.takeError()));
    size_t N = 0;
    for (const ELFT::Rela &R : *Relas) {
      uint32_t Type = R.getType(false);
      uint32_t Symbol = R.getSymbol(false);
      // Named only when refused: objects have thousands of relocations.
      auto Which = [&] {
        return "relocation #" + std::to_string(N) + " of " + nameOf(I) +
               " (type " +
               llvm::object::getELFRelocationTypeName(Machine, Type).str() +
               ", offset " + std::to_string(R.r_offset) + ")";
      };
      uint64_t Width, Before;
      if (!relocationExtent(Machine, Type, Width, Before))
        return bad(Which() + ": unsupported relocation type " +
                   llvm::Twine(Type));
      if (Width != 0 &&
          (R.r_offset < Before || !fits(R.r_offset, Width, Target.sh_size)))
        return bad(Which() + ": patches " + llvm::Twine(Width) +
                   " bytes (and " + llvm::Twine(Before) +
                   " before), outside its section " + Patched + " of " +
                   llvm::Twine(Target.sh_size) + " bytes");
      if (Width != 0 && Symbol >= NumSymbols)
        return bad(Which() + ": symbol index " + llvm::Twine(Symbol) +
                   " is out of range (" + llvm::Twine(NumSymbols) +
                   " symbols)");
      ++N;
    }
    return llvm::Error::success();
  }

  const llvm::object::ELFFile<ELFT> &Obj;
  uint16_t Machine;
  llvm::ArrayRef<Shdr> Sections;
  llvm::StringRef SectionNames;
  const Shdr *SymTab = nullptr;
  size_t SymTabIndex = 0;
  size_t NumSymbols = 0;
};

} // namespace

llvm::Error checkRelocatableObject(llvm::ArrayRef<uint8_t> Object) {
  llvm::MemoryBufferRef Buffer(
      llvm::StringRef(reinterpret_cast<const char *>(Object.data()),
                      Object.size()),
      "code-object");
  auto File = llvm::object::ObjectFile::createELFObjectFile(Buffer);
  if (!File)
    return bad(llvm::toString(File.takeError()));
  const auto *ELF =
      llvm::dyn_cast<llvm::object::ELFObjectFile<ELFT>>(File->get());
  if (!ELF)
    return bad("not a 64-bit little-endian ELF file");
  return Checker(ELF->getELFFile(), hostMachine()).run();
}

} // namespace openhsa::finalizer
