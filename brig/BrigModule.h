//===- brig/BrigModule.h - Zero-copy view over a BRIG module ----*- C++ -*-===//
//
// Part of openhsa. A BrigModule is a non-owning, read-only view over a BRIG
// module that lies in memory (an hsa_ext_module_t points at its
// BrigModuleHeader). BrigModule::create() checks just enough of the container
// (header, section index, section headers) for every accessor below to stay
// in bounds; the rules of PRM chapter 18 are checked by brig/Validator.h.
//
// Every accessor that follows an offset checks it first and returns an empty
// value (nullptr, std::nullopt, an empty list) when the offset does not point
// at something of the requested shape, so code walking an unvalidated module
// cannot read out of bounds.
//
//===----------------------------------------------------------------------===//

#ifndef OPENHSA_BRIG_BRIGMODULE_H
#define OPENHSA_BRIG_BRIGMODULE_H

#include "brig/BrigFormat.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace openhsa::brig {

/// Reads a little-endian scalar (or trivially copyable struct) at \p P.
template <typename T> inline T readAt(const uint8_t *P) {
  T V;
  std::memcpy(&V, P, sizeof(T));
  return V;
}

/// Maps an entry structure to the BrigKind values that may carry it.
template <typename T> struct BrigKindOf;
#define OPENHSA_BRIG_KIND1(S, K)                                               \
  template <> struct BrigKindOf<S> {                                           \
    static constexpr bool matches(unsigned Kind) { return Kind == (K); }       \
  }
OPENHSA_BRIG_KIND1(BrigDirectiveComment, BRIG_KIND_DIRECTIVE_COMMENT);
OPENHSA_BRIG_KIND1(BrigDirectiveControl, BRIG_KIND_DIRECTIVE_CONTROL);
OPENHSA_BRIG_KIND1(BrigDirectiveExtension, BRIG_KIND_DIRECTIVE_EXTENSION);
OPENHSA_BRIG_KIND1(BrigDirectiveFbarrier, BRIG_KIND_DIRECTIVE_FBARRIER);
OPENHSA_BRIG_KIND1(BrigDirectiveLabel, BRIG_KIND_DIRECTIVE_LABEL);
OPENHSA_BRIG_KIND1(BrigDirectiveLoc, BRIG_KIND_DIRECTIVE_LOC);
OPENHSA_BRIG_KIND1(BrigDirectiveModule, BRIG_KIND_DIRECTIVE_MODULE);
OPENHSA_BRIG_KIND1(BrigDirectiveNone, BRIG_KIND_NONE);
OPENHSA_BRIG_KIND1(BrigDirectivePragma, BRIG_KIND_DIRECTIVE_PRAGMA);
OPENHSA_BRIG_KIND1(BrigDirectiveVariable, BRIG_KIND_DIRECTIVE_VARIABLE);
OPENHSA_BRIG_KIND1(BrigInstAddr, BRIG_KIND_INST_ADDR);
OPENHSA_BRIG_KIND1(BrigInstAtomic, BRIG_KIND_INST_ATOMIC);
OPENHSA_BRIG_KIND1(BrigInstBasic, BRIG_KIND_INST_BASIC);
OPENHSA_BRIG_KIND1(BrigInstBr, BRIG_KIND_INST_BR);
OPENHSA_BRIG_KIND1(BrigInstCmp, BRIG_KIND_INST_CMP);
OPENHSA_BRIG_KIND1(BrigInstCvt, BRIG_KIND_INST_CVT);
OPENHSA_BRIG_KIND1(BrigInstImage, BRIG_KIND_INST_IMAGE);
OPENHSA_BRIG_KIND1(BrigInstLane, BRIG_KIND_INST_LANE);
OPENHSA_BRIG_KIND1(BrigInstMem, BRIG_KIND_INST_MEM);
OPENHSA_BRIG_KIND1(BrigInstMemFence, BRIG_KIND_INST_MEM_FENCE);
OPENHSA_BRIG_KIND1(BrigInstMod, BRIG_KIND_INST_MOD);
OPENHSA_BRIG_KIND1(BrigInstQueryImage, BRIG_KIND_INST_QUERY_IMAGE);
OPENHSA_BRIG_KIND1(BrigInstQuerySampler, BRIG_KIND_INST_QUERY_SAMPLER);
OPENHSA_BRIG_KIND1(BrigInstQueue, BRIG_KIND_INST_QUEUE);
OPENHSA_BRIG_KIND1(BrigInstSeg, BRIG_KIND_INST_SEG);
OPENHSA_BRIG_KIND1(BrigInstSegCvt, BRIG_KIND_INST_SEG_CVT);
OPENHSA_BRIG_KIND1(BrigInstSignal, BRIG_KIND_INST_SIGNAL);
OPENHSA_BRIG_KIND1(BrigInstSourceType, BRIG_KIND_INST_SOURCE_TYPE);
OPENHSA_BRIG_KIND1(BrigOperandAddress, BRIG_KIND_OPERAND_ADDRESS);
OPENHSA_BRIG_KIND1(BrigOperandAlign, BRIG_KIND_OPERAND_ALIGN);
OPENHSA_BRIG_KIND1(BrigOperandCodeList, BRIG_KIND_OPERAND_CODE_LIST);
OPENHSA_BRIG_KIND1(BrigOperandCodeRef, BRIG_KIND_OPERAND_CODE_REF);
OPENHSA_BRIG_KIND1(BrigOperandConstantBytes, BRIG_KIND_OPERAND_CONSTANT_BYTES);
OPENHSA_BRIG_KIND1(BrigOperandConstantImage, BRIG_KIND_OPERAND_CONSTANT_IMAGE);
OPENHSA_BRIG_KIND1(BrigOperandConstantOperandList,
                   BRIG_KIND_OPERAND_CONSTANT_OPERAND_LIST);
OPENHSA_BRIG_KIND1(BrigOperandConstantSampler,
                   BRIG_KIND_OPERAND_CONSTANT_SAMPLER);
OPENHSA_BRIG_KIND1(BrigOperandOperandList, BRIG_KIND_OPERAND_OPERAND_LIST);
OPENHSA_BRIG_KIND1(BrigOperandRegister, BRIG_KIND_OPERAND_REGISTER);
OPENHSA_BRIG_KIND1(BrigOperandString, BRIG_KIND_OPERAND_STRING);
OPENHSA_BRIG_KIND1(BrigOperandWavesize, BRIG_KIND_OPERAND_WAVESIZE);
#undef OPENHSA_BRIG_KIND1
template <> struct BrigKindOf<BrigDirectiveArgBlock> {
  static constexpr bool matches(unsigned K) {
    return K == BRIG_KIND_DIRECTIVE_ARG_BLOCK_START ||
           K == BRIG_KIND_DIRECTIVE_ARG_BLOCK_END;
  }
};
template <> struct BrigKindOf<BrigDirectiveExecutable> {
  static constexpr bool matches(unsigned K) {
    return K == BRIG_KIND_DIRECTIVE_KERNEL ||
           K == BRIG_KIND_DIRECTIVE_FUNCTION ||
           K == BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION ||
           K == BRIG_KIND_DIRECTIVE_SIGNATURE;
  }
};
template <> struct BrigKindOf<BrigInstBase> {
  static constexpr bool matches(unsigned K) { return brigKindIsInst(K); }
};
template <> struct BrigKindOf<BrigBase> {
  static constexpr bool matches(unsigned) { return true; }
};

/// A list of 32-bit offsets stored in an hsa_data entry (code or operand
/// lists). Elements are read with memcpy; the list never outlives the module.
class OffsetList {
public:
  OffsetList() = default;
  OffsetList(const uint8_t *Data, uint32_t Count) : Data(Data), Count(Count) {}
  uint32_t size() const { return Count; }
  bool empty() const { return Count == 0; }
  uint32_t operator[](uint32_t I) const {
    return I < Count ? readAt<uint32_t>(Data + 4 * size_t(I)) : 0;
  }

private:
  const uint8_t *Data = nullptr;
  uint32_t Count = 0;
};

/// One section of the module.
struct BrigSection {
  const uint8_t *Begin = nullptr; ///< The BrigSectionHeader.
  uint64_t ByteCount = 0;         ///< Whole section, header included.
  uint32_t HeaderByteCount = 0;   ///< Offset of the first entry.
  uint64_t ModuleOffset = 0;      ///< Where the section starts in the module.
  llvm::StringRef Name;
  bool contains(uint64_t Off, uint64_t Size) const {
    return Off <= ByteCount && Size <= ByteCount - Off;
  }
};

/// A code or operand entry: its offset in its section and its bytes.
template <typename T = BrigBase> struct EntryRef {
  uint32_t Offset = 0;
  const T *Ptr = nullptr;
  explicit operator bool() const { return Ptr != nullptr; }
  const T *operator->() const { return Ptr; }
  const T &operator*() const { return *Ptr; }
  uint16_t kind() const {
    return reinterpret_cast<const BrigBase *>(Ptr)->kind;
  }
  uint16_t byteCount() const {
    return reinterpret_cast<const BrigBase *>(Ptr)->byteCount;
  }
};

class BrigModule {
public:
  /// Wraps \p Bytes (which must stay alive) after checking the header, the
  /// section index and the section headers. \p Name is used in diagnostics.
  static llvm::Expected<BrigModule> create(llvm::ArrayRef<uint8_t> Bytes,
                                           llvm::StringRef Name = "module");

  /// Wraps a module given as hsa_ext_module_t: a pointer to its header, with
  /// the size taken from the header's byteCount (which is checked against
  /// \p MaxBytes when given).
  static llvm::Expected<BrigModule> fromHeader(const BrigModuleHeader *Header,
                                               llvm::StringRef Name = "module",
                                               uint64_t MaxBytes = UINT64_MAX);

  llvm::StringRef name() const { return Name; }
  llvm::ArrayRef<uint8_t> bytes() const { return Bytes; }
  const BrigModuleHeader &header() const {
    return *reinterpret_cast<const BrigModuleHeader *>(Bytes.data());
  }

  unsigned sectionCount() const { return unsigned(Sections.size()); }
  const BrigSection &section(unsigned I) const { return Sections[I]; }
  const BrigSection &data() const { return Sections[BRIG_SECTION_INDEX_DATA]; }
  const BrigSection &code() const { return Sections[BRIG_SECTION_INDEX_CODE]; }
  const BrigSection &operands() const {
    return Sections[BRIG_SECTION_INDEX_OPERAND];
  }

  //===--- hsa_data -------------------------------------------------------===//

  /// The bytes of the hsa_data entry at \p Off, or nullopt when the entry
  /// does not fit in the section (offset 0 is never an entry).
  std::optional<llvm::StringRef> dataBytes(uint32_t Off) const;
  /// Like dataBytes(); an invalid offset yields "".
  llvm::StringRef string(uint32_t Off) const {
    return dataBytes(Off).value_or(llvm::StringRef());
  }
  /// The hsa_data entry at \p Off read as a list of 32-bit offsets; empty
  /// when the entry is invalid or its size is not a multiple of 4.
  OffsetList offsetList(uint32_t Off) const;

  //===--- hsa_code / hsa_operand entries ---------------------------------===//

  /// The entry at \p Off, or an empty ref when it is out of bounds, not
  /// 4-byte aligned, or its byteCount is too small for T / its kind is not
  /// one T describes.
  template <typename T = BrigBase> EntryRef<T> code(uint32_t Off) const {
    return entry<T>(code(), Off);
  }
  template <typename T = BrigBase> EntryRef<T> operand(uint32_t Off) const {
    return entry<T>(operands(), Off);
  }

  /// Iterates over the entries of a code or operand section in order, each
  /// located by the previous one's byteCount. Iteration stops early (and
  /// hasError() turns true) at an entry that is malformed.
  class EntryIterator {
  public:
    /// Iterates from \p Off up to \p Limit (at most the section's size).
    EntryIterator(const BrigSection *S, uint64_t Off, uint64_t Limit)
        : S(S), Off(Off), Limit(Limit < S->ByteCount ? Limit : S->ByteCount) {
      check();
    }
    EntryRef<BrigBase> operator*() const {
      return {uint32_t(Off),
              reinterpret_cast<const BrigBase *>(S->Begin + Off)};
    }
    EntryIterator &operator++() {
      if (Off < Limit) {
        Off += readAt<uint16_t>(S->Begin + Off);
        check();
      }
      return *this;
    }
    bool operator==(const EntryIterator &O) const { return Off == O.Off; }
    bool operator!=(const EntryIterator &O) const { return Off != O.Off; }

  private:
    void check() {
      if (Off >= Limit || Off % 4 != 0 || Limit - Off < 4) {
        Off = Limit;
        return;
      }
      uint16_t Size = readAt<uint16_t>(S->Begin + Off);
      if (Size < 4 || Size % 4 != 0 || Size > Limit - Off)
        Off = Limit; // Stop at a malformed entry: the validator reports it.
    }
    const BrigSection *S;
    uint64_t Off;
    uint64_t Limit;
  };
  struct EntryRange {
    EntryIterator B, E;
    EntryIterator begin() const { return B; }
    EntryIterator end() const { return E; }
  };
  EntryRange codeEntries() const { return entries(code()); }
  EntryRange operandEntries() const { return entries(operands()); }
  /// Entries of a code range [Begin, End) (e.g. a kernel's code block).
  EntryRange codeRange(uint32_t Begin, uint32_t End) const;

  /// The module's BrigDirectiveModule, if the first code entries have one.
  EntryRef<BrigDirectiveModule> moduleDirective() const;

private:
  BrigModule() = default;
  template <typename T>
  EntryRef<T> entry(const BrigSection &S, uint32_t Off) const {
    if (Off == 0 || Off % 4 != 0 || Off < S.HeaderByteCount ||
        !S.contains(Off, sizeof(BrigBase)))
      return {};
    uint16_t Size = readAt<uint16_t>(S.Begin + Off);
    uint16_t Kind = readAt<uint16_t>(S.Begin + Off + 2);
    if (Size < sizeof(T) || !S.contains(Off, Size) ||
        !BrigKindOf<T>::matches(Kind))
      return {};
    return {Off, reinterpret_cast<const T *>(S.Begin + Off)};
  }
  EntryRange entries(const BrigSection &S) const {
    return {EntryIterator(&S, S.HeaderByteCount, S.ByteCount),
            EntryIterator(&S, S.ByteCount, S.ByteCount)};
  }

  llvm::ArrayRef<uint8_t> Bytes;
  std::string Name;
  std::vector<BrigSection> Sections;
};

/// Size of the struct an entry of kind \p Kind must hold at least (its
/// byteCount may be larger); 0 for kinds outside the manual.
unsigned brigEntrySize(unsigned Kind);

/// Name of a section for diagnostics ("hsa_code", or "section 3").
std::string sectionName(const BrigModule &M, unsigned Index);

/// A diagnostic in the form "<module>: <where>+0x<off>: <message>", e.g.
/// "k.brig: hsa_code+0x1a4: instruction 'add' needs 3 operands (found 2)".
llvm::Error makeBrigError(llvm::StringRef Module, llvm::StringRef Where,
                          uint64_t Offset, const llvm::Twine &Message);

} // namespace openhsa::brig

#endif // OPENHSA_BRIG_BRIGMODULE_H
