//===- brig/BrigModule.cpp - Zero-copy view over a BRIG module ------------===//
//
// Part of openhsa.
//
//===----------------------------------------------------------------------===//

#include "brig/BrigModule.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace llvm;

namespace openhsa::brig {

Error makeBrigError(StringRef Module, StringRef Where, uint64_t Offset,
                    const Twine &Message) {
  std::string S;
  raw_string_ostream OS(S);
  OS << Module << ": " << Where << "+0x";
  OS.write_hex(Offset);
  OS << ": " << Message;
  return make_error<StringError>(OS.str(), inconvertibleErrorCode());
}

/// Minimum byteCount of an entry of kind \p Kind; 0 for unknown kinds.
unsigned brigEntrySize(unsigned Kind) {
  switch (Kind) {
  case BRIG_KIND_NONE:
    return sizeof(BrigDirectiveNone);
  case BRIG_KIND_DIRECTIVE_ARG_BLOCK_END:
  case BRIG_KIND_DIRECTIVE_ARG_BLOCK_START:
    return sizeof(BrigDirectiveArgBlock);
  case BRIG_KIND_DIRECTIVE_COMMENT:
    return sizeof(BrigDirectiveComment);
  case BRIG_KIND_DIRECTIVE_CONTROL:
    return sizeof(BrigDirectiveControl);
  case BRIG_KIND_DIRECTIVE_EXTENSION:
    return sizeof(BrigDirectiveExtension);
  case BRIG_KIND_DIRECTIVE_FBARRIER:
    return sizeof(BrigDirectiveFbarrier);
  case BRIG_KIND_DIRECTIVE_FUNCTION:
  case BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION:
  case BRIG_KIND_DIRECTIVE_KERNEL:
  case BRIG_KIND_DIRECTIVE_SIGNATURE:
    return sizeof(BrigDirectiveExecutable);
  case BRIG_KIND_DIRECTIVE_LABEL:
    return sizeof(BrigDirectiveLabel);
  case BRIG_KIND_DIRECTIVE_LOC:
    return sizeof(BrigDirectiveLoc);
  case BRIG_KIND_DIRECTIVE_MODULE:
    return sizeof(BrigDirectiveModule);
  case BRIG_KIND_DIRECTIVE_PRAGMA:
    return sizeof(BrigDirectivePragma);
  case BRIG_KIND_DIRECTIVE_VARIABLE:
    return sizeof(BrigDirectiveVariable);
  case BRIG_KIND_INST_ADDR:
    return sizeof(BrigInstAddr);
  case BRIG_KIND_INST_ATOMIC:
    return sizeof(BrigInstAtomic);
  case BRIG_KIND_INST_BASIC:
    return sizeof(BrigInstBasic);
  case BRIG_KIND_INST_BR:
    return sizeof(BrigInstBr);
  case BRIG_KIND_INST_CMP:
    return sizeof(BrigInstCmp);
  case BRIG_KIND_INST_CVT:
    return sizeof(BrigInstCvt);
  case BRIG_KIND_INST_IMAGE:
    return sizeof(BrigInstImage);
  case BRIG_KIND_INST_LANE:
    return sizeof(BrigInstLane);
  case BRIG_KIND_INST_MEM:
    return sizeof(BrigInstMem);
  case BRIG_KIND_INST_MEM_FENCE:
    return sizeof(BrigInstMemFence);
  case BRIG_KIND_INST_MOD:
    return sizeof(BrigInstMod);
  case BRIG_KIND_INST_QUERY_IMAGE:
    return sizeof(BrigInstQueryImage);
  case BRIG_KIND_INST_QUERY_SAMPLER:
    return sizeof(BrigInstQuerySampler);
  case BRIG_KIND_INST_QUEUE:
    return sizeof(BrigInstQueue);
  case BRIG_KIND_INST_SEG:
    return sizeof(BrigInstSeg);
  case BRIG_KIND_INST_SEG_CVT:
    return sizeof(BrigInstSegCvt);
  case BRIG_KIND_INST_SIGNAL:
    return sizeof(BrigInstSignal);
  case BRIG_KIND_INST_SOURCE_TYPE:
    return sizeof(BrigInstSourceType);
  case BRIG_KIND_OPERAND_ADDRESS:
    return sizeof(BrigOperandAddress);
  case BRIG_KIND_OPERAND_ALIGN:
    return sizeof(BrigOperandAlign);
  case BRIG_KIND_OPERAND_CODE_LIST:
    return sizeof(BrigOperandCodeList);
  case BRIG_KIND_OPERAND_CODE_REF:
    return sizeof(BrigOperandCodeRef);
  case BRIG_KIND_OPERAND_CONSTANT_BYTES:
    return sizeof(BrigOperandConstantBytes);
  case BRIG_KIND_OPERAND_CONSTANT_IMAGE:
    return sizeof(BrigOperandConstantImage);
  case BRIG_KIND_OPERAND_CONSTANT_OPERAND_LIST:
    return sizeof(BrigOperandConstantOperandList);
  case BRIG_KIND_OPERAND_CONSTANT_SAMPLER:
    return sizeof(BrigOperandConstantSampler);
  case BRIG_KIND_OPERAND_OPERAND_LIST:
    return sizeof(BrigOperandOperandList);
  case BRIG_KIND_OPERAND_REGISTER:
    return sizeof(BrigOperandRegister);
  case BRIG_KIND_OPERAND_STRING:
    return sizeof(BrigOperandString);
  case BRIG_KIND_OPERAND_WAVESIZE:
    return sizeof(BrigOperandWavesize);
  default:
    return 0;
  }
}

std::string sectionName(const BrigModule &M, unsigned Index) {
  switch (Index) {
  case BRIG_SECTION_INDEX_DATA:
    return "hsa_data";
  case BRIG_SECTION_INDEX_CODE:
    return "hsa_code";
  case BRIG_SECTION_INDEX_OPERAND:
    return "hsa_operand";
  default:
    return "section " + std::to_string(Index);
  }
}

Expected<BrigModule> BrigModule::fromHeader(const BrigModuleHeader *Header,
                                            StringRef Name, uint64_t MaxBytes) {
  if (!Header)
    return makeBrigError(Name, "header", 0, "null module pointer");
  uint64_t Size = readAt<uint64_t>(reinterpret_cast<const uint8_t *>(Header) +
                                   offsetof(BrigModuleHeader, byteCount));
  if (Size > MaxBytes)
    return makeBrigError(Name, "header", offsetof(BrigModuleHeader, byteCount),
                         "module byteCount " + Twine(Size) +
                             " exceeds the available " + Twine(MaxBytes) +
                             " bytes");
  if (Size < sizeof(BrigModuleHeader))
    return makeBrigError(Name, "header", offsetof(BrigModuleHeader, byteCount),
                         "module byteCount " + Twine(Size) +
                             " is smaller than BrigModuleHeader (104 bytes)");
  return create(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Header),
                                  size_t(Size)),
                Name);
}

Expected<BrigModule> BrigModule::create(ArrayRef<uint8_t> Bytes,
                                        StringRef Name) {
  auto Err = [&](uint64_t Off, const Twine &Msg) {
    return makeBrigError(Name, "header", Off, Msg);
  };
  if (Bytes.size() < sizeof(BrigModuleHeader))
    return Err(0, "truncated module: " + Twine(Bytes.size()) +
                      " bytes, BrigModuleHeader needs 104");
  if (reinterpret_cast<uintptr_t>(Bytes.data()) % 16 != 0)
    return Err(0, "module is not 16-byte aligned in memory");
  const uint8_t *P = Bytes.data();
  BrigModuleHeader H = readAt<BrigModuleHeader>(P);
  if (std::memcmp(H.identification, BrigMagic, 8) != 0)
    return Err(0, "bad magic: identification is not \"HSA BRIG\"");
  if (H.brigMajor != BRIG_VERSION_BRIG_MAJOR ||
      H.brigMinor > BRIG_VERSION_BRIG_MINOR)
    return Err(offsetof(BrigModuleHeader, brigMajor),
               "unsupported BRIG version " + Twine(H.brigMajor) + "." +
                   Twine(H.brigMinor) + " (expected 1.0)");
  if (H.byteCount < sizeof(BrigModuleHeader) || H.byteCount > Bytes.size())
    return Err(offsetof(BrigModuleHeader, byteCount),
               "module byteCount " + Twine(H.byteCount) +
                   " does not match the " + Twine(Bytes.size()) +
                   " bytes available");
  if (H.byteCount % 16 != 0)
    return Err(offsetof(BrigModuleHeader, byteCount),
               "module byteCount " + Twine(H.byteCount) +
                   " is not a multiple of 16");
  if (H.reserved != 0)
    return Err(offsetof(BrigModuleHeader, reserved), "reserved field is not 0");
  if (H.sectionCount < 3)
    return Err(offsetof(BrigModuleHeader, sectionCount),
               "sectionCount " + Twine(H.sectionCount) +
                   " is less than the 3 standard sections");
  uint64_t Total = H.byteCount;
  if (H.sectionIndex % 8 != 0 || H.sectionIndex < sizeof(BrigModuleHeader) ||
      H.sectionIndex > Total || (Total - H.sectionIndex) / 8 < H.sectionCount)
    return Err(offsetof(BrigModuleHeader, sectionIndex),
               "section index at 0x" + Twine::utohexstr(H.sectionIndex) +
                   " with " + Twine(H.sectionCount) +
                   " entries is misaligned or out of bounds");

  BrigModule M;
  M.Bytes = Bytes.take_front(size_t(Total));
  M.Name = Name.str();
  M.Sections.reserve(H.sectionCount);
  // Regions [start, end) that must not overlap: header, index, sections.
  std::vector<std::pair<uint64_t, uint64_t>> Regions;
  Regions.push_back({0, sizeof(BrigModuleHeader)});
  Regions.push_back({H.sectionIndex, H.sectionIndex + 8 * H.sectionCount});
  static const char *const StdNames[] = {"hsa_data", "hsa_code", "hsa_operand"};
  for (uint32_t I = 0; I < H.sectionCount; ++I) {
    uint64_t IdxOff = H.sectionIndex + 8 * uint64_t(I);
    uint64_t Off = readAt<uint64_t>(P + IdxOff);
    std::string SName = sectionName(M, I);
    if (Off % 16 != 0 || Off < sizeof(BrigModuleHeader) || Off > Total ||
        Total - Off < 16)
      return Err(IdxOff, SName + " offset 0x" + Twine::utohexstr(Off) +
                             " is misaligned or out of bounds");
    BrigSectionHeader SH;
    std::memcpy(&SH, P + Off, 16);
    auto SErr = [&](uint64_t At, const Twine &Msg) {
      return makeBrigError(Name, SName, At, Msg);
    };
    if (SH.byteCount > Total - Off)
      return SErr(0, "section byteCount " + Twine(SH.byteCount) +
                         " runs past the end of the module");
    if (SH.byteCount % 4 != 0)
      return SErr(0, "section byteCount " + Twine(SH.byteCount) +
                         " is not a multiple of 4");
    if (SH.headerByteCount % 4 != 0 || SH.headerByteCount < 16 ||
        SH.headerByteCount > SH.byteCount ||
        SH.nameLength > SH.headerByteCount - 16)
      return SErr(8, "bad section header: headerByteCount " +
                         Twine(SH.headerByteCount) + ", nameLength " +
                         Twine(SH.nameLength) + ", byteCount " +
                         Twine(SH.byteCount));
    StringRef SecName(reinterpret_cast<const char *>(P + Off + 16),
                      SH.nameLength);
    if (I < 3) {
      if (SecName != StdNames[I])
        return SErr(16, "standard section " + Twine(I) + " must be named '" +
                            StdNames[I] + "' (found '" + SecName + "')");
      if (SH.byteCount > UINT32_MAX)
        return SErr(0, "standard section is larger than 4 GiB");
    }
    BrigSection S;
    S.Begin = P + Off;
    S.ByteCount = SH.byteCount;
    S.HeaderByteCount = SH.headerByteCount;
    S.ModuleOffset = Off;
    S.Name = SecName;
    M.Sections.push_back(S);
    Regions.push_back({Off, Off + SH.byteCount});
  }
  std::sort(Regions.begin(), Regions.end());
  for (size_t I = 1; I < Regions.size(); ++I)
    if (Regions[I].first < Regions[I - 1].second)
      return Err(Regions[I].first, "module elements overlap at offset 0x" +
                                       Twine::utohexstr(Regions[I].first));
  return M;
}

std::optional<StringRef> BrigModule::dataBytes(uint32_t Off) const {
  const BrigSection &S = data();
  if (Off == 0 || Off % 4 != 0 || Off < S.HeaderByteCount ||
      !S.contains(Off, 4))
    return std::nullopt;
  uint32_t Len = readAt<uint32_t>(S.Begin + Off);
  if (!S.contains(uint64_t(Off) + 4, Len))
    return std::nullopt;
  return StringRef(reinterpret_cast<const char *>(S.Begin + Off + 4), Len);
}

OffsetList BrigModule::offsetList(uint32_t Off) const {
  std::optional<StringRef> B = dataBytes(Off);
  if (!B || B->size() % 4 != 0)
    return {};
  return OffsetList(reinterpret_cast<const uint8_t *>(B->data()),
                    uint32_t(B->size() / 4));
}

BrigModule::EntryRange BrigModule::codeRange(uint32_t Begin,
                                             uint32_t End) const {
  const BrigSection &S = code();
  uint64_t Limit = std::min<uint64_t>(End, S.ByteCount);
  uint64_t Start = Begin < S.HeaderByteCount ? Limit : Begin;
  return {EntryIterator(&S, Start, Limit), EntryIterator(&S, Limit, Limit)};
}

EntryRef<BrigDirectiveModule> BrigModule::moduleDirective() const {
  for (EntryRef<> E : codeEntries()) {
    if (auto M = code<BrigDirectiveModule>(E.Offset))
      return M;
  }
  return {};
}

} // namespace openhsa::brig
