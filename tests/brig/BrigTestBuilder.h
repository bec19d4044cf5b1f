//===- tests/brig/BrigTestBuilder.h - Hand-made BRIG modules ----*- C++ -*-===//
//
// Part of openhsa. A small builder for BRIG modules used by the tests: it
// appends raw entries to the three standard sections and lays out a module
// (header, section index, sections) in 16-byte aligned memory. It performs
// no checking, so tests can also build malformed modules.
//
//===----------------------------------------------------------------------===//

#ifndef OPENHSA_TESTS_BRIG_BRIGTESTBUILDER_H
#define OPENHSA_TESTS_BRIG_BRIGTESTBUILDER_H

#include "brig/BrigFormat.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace openhsa::brig::test {

/// Bytes in 16-byte aligned storage (BRIG modules must be 16-byte aligned).
class AlignedBytes {
public:
  AlignedBytes() = default;
  explicit AlignedBytes(llvm::ArrayRef<uint8_t> B) { assign(B); }
  AlignedBytes(const AlignedBytes &O) { assign(O.bytes()); }
  AlignedBytes &operator=(const AlignedBytes &O) {
    assign(O.bytes());
    return *this;
  }
  void assign(llvm::ArrayRef<uint8_t> B) {
    Size = B.size();
    Storage.assign((B.size() + 15) / 16 + 1, Chunk{});
    if (!B.empty())
      std::memcpy(data(), B.data(), B.size());
  }
  uint8_t *data() { return reinterpret_cast<uint8_t *>(Storage.data()); }
  const uint8_t *data() const {
    return reinterpret_cast<const uint8_t *>(Storage.data());
  }
  size_t size() const { return Size; }
  void resize(size_t N) { // Only shrinks.
    if (N < Size)
      Size = N;
  }
  llvm::ArrayRef<uint8_t> bytes() const { return {data(), Size}; }
  template <typename T> void put(size_t Off, T V) {
    std::memcpy(data() + Off, &V, sizeof(T));
  }
  template <typename T> T get(size_t Off) const {
    T V;
    std::memcpy(&V, data() + Off, sizeof(T));
    return V;
  }

private:
  struct alignas(16) Chunk {
    uint8_t B[16];
  };
  std::vector<Chunk> Storage;
  size_t Size = 0;
};

class ModuleBuilder {
public:
  ModuleBuilder();

  /// Appends an hsa_data entry; returns its offset.
  uint32_t data(llvm::StringRef Bytes);
  uint32_t offsets(llvm::ArrayRef<uint32_t> List);
  /// Appends a raw entry (struct bytes; byteCount/kind taken as given).
  uint32_t code(const void *Entry, size_t Size);
  uint32_t operand(const void *Entry, size_t Size);
  template <typename T> uint32_t code(const T &E) { return code(&E, sizeof E); }
  template <typename T> uint32_t operand(const T &E) {
    return operand(&E, sizeof E);
  }
  /// Offset the next code entry will get.
  uint32_t nextCode() const { return uint32_t(Code.size()); }

  // Convenience entries.
  uint32_t moduleDirective(llvm::StringRef Name = "&m");
  uint32_t reg(unsigned Kind, unsigned Num);
  uint32_t immU32(uint32_t V);
  uint32_t address(uint32_t Symbol, uint32_t Reg, uint64_t Offset);
  uint32_t codeRef(uint32_t Ref);
  /// An instruction of \p Kind (BrigInstBasic when 0) with the given operands.
  uint32_t inst(unsigned Opcode, unsigned Type,
                llvm::ArrayRef<uint32_t> Operands,
                unsigned Kind = BRIG_KIND_INST_BASIC);
  /// A kernel directive; fix its offsets up later with patchExecutable.
  uint32_t kernel(llvm::StringRef Name, unsigned InArgs = 0);
  BrigDirectiveExecutable &executable(uint32_t Off);
  /// Sets firstInArg/firstCodeBlockEntry/nextModuleEntry of an executable.
  void patchExecutable(uint32_t Off, uint32_t FirstInArg, uint32_t FirstCode,
                       uint32_t Next);

  /// Lays out the module; \p Bases receives the module offsets of the
  /// data, code and operand sections.
  AlignedBytes finish(uint64_t *Bases = nullptr) const;

private:
  std::string Data, Code, Operands;
};

/// A small valid module: module directive, kernel &k(kernarg_u32 %a) whose
/// body is "add_u32 $s1, $s2, 3; @L: br @L; ret;". Offsets of interest are
/// returned through the struct.
struct SampleModule {
  AlignedBytes Bytes;
  uint32_t Kernel = 0;     ///< hsa_code offset of the kernel.
  uint32_t Arg = 0;        ///< hsa_code offset of the kernarg.
  uint32_t Add = 0;        ///< hsa_code offset of the add.
  uint32_t Label = 0;      ///< hsa_code offset of @L.
  uint32_t Br = 0;         ///< hsa_code offset of the br.
  uint32_t Ld = 0;         ///< hsa_code offset of the ld.
  uint32_t AddOps = 0;     ///< hsa_data offset of the add's operand list.
  uint32_t Imm = 0;        ///< hsa_operand offset of the constant 3.
  uint32_t Reg = 0;        ///< hsa_operand offset of $s1.
  uint32_t Addr = 0;       ///< hsa_operand offset of an address [%a].
  uint32_t KernelName = 0; ///< hsa_data offset of "&k".
  /// Module offsets of the three sections (as laid out by finish()).
  uint64_t DataBase = 0, CodeBase = 0, OperandBase = 0;
};
SampleModule buildSampleModule();

} // namespace openhsa::brig::test

#endif // OPENHSA_TESTS_BRIG_BRIGTESTBUILDER_H
