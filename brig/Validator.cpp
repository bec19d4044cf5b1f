//===- brig/Validator.cpp - BRIG module validation ------------------------===//
//
// Part of openhsa.
//
// Order of the checks: the container (BrigModule::create), then every entry of
// hsa_data, hsa_operand and hsa_code on its own (size, kind, alignment), then
// the fields of every operand, then hsa_code as a sequence of module-scope
// entries, kernels and functions with their arguments and code blocks. Once an
// entry has passed the first walk, its fixed-size struct can be read in place.
//
//===----------------------------------------------------------------------===//

#include "brig/Validator.h"

#include "brig/BrigNames.h"
#include "brig/InstTable.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <vector>

using namespace llvm;

namespace openhsa::brig {

namespace {

const char *ruleText(OperandRule R) {
  switch (R) {
  case OperandRule::None:
    return "absent";
  case OperandRule::Reg:
    return "a register";
  case OperandRule::Src:
    return "a register, constant or wavesize";
  case OperandRule::SrcNoWs:
    return "a register or constant";
  case OperandRule::Imm:
    return "a constant";
  case OperandRule::Addr:
    return "an address";
  case OperandRule::Label:
    return "a reference to a label";
  case OperandRule::Labels:
    return "a list of labels";
  case OperandRule::DstVec:
    return "a register or a register vector";
  case OperandRule::SrcVec:
    return "a register, constant, wavesize or vector of them";
  case OperandRule::RegList:
    return "a register vector";
  case OperandRule::SrcList:
    return "a vector of registers, constants or wavesize";
  case OperandRule::FbarOrReg:
    return "a register or a reference to an fbarrier";
  case OperandRule::Fbar:
    return "a reference to an fbarrier";
  case OperandRule::Func:
    return "a reference to a function";
  case OperandRule::Funcs:
    return "a list of functions";
  case OperandRule::Args:
    return "a list of arg variables";
  case OperandRule::Signature:
    return "a reference to a signature";
  }
  return "?";
}

std::string kindText(unsigned Kind) {
  const char *N = kindName(Kind);
  return N ? std::string(N) : "kind 0x" + utohexstr(Kind, /*LowerCase=*/true);
}

class Validator {
public:
  explicit Validator(const BrigModule &M) : M(M) {}
  Error run();

private:
  // Diagnostics.
  Error err(unsigned Section, uint64_t Off, const Twine &Msg) const {
    return makeBrigError(M.name(), sectionName(M, Section), Off, Msg);
  }
  Error codeErr(uint64_t Off, const Twine &Msg) const {
    return err(BRIG_SECTION_INDEX_CODE, Off, Msg);
  }
  Error opErr(uint64_t Off, const Twine &Msg) const {
    return err(BRIG_SECTION_INDEX_OPERAND, Off, Msg);
  }

  // Pass 1: entries of each standard section.
  Error scanData();
  Error scanEntries(unsigned Section);

  // References.
  bool isDataEntry(uint32_t Off) const {
    return Off % 4 == 0 && Off / 4 < DataStarts.size() && DataStarts[Off / 4];
  }
  bool isCodeEntry(uint32_t Off) const {
    return Off % 4 == 0 && Off / 4 < CodeStarts.size() && CodeStarts[Off / 4];
  }
  bool isOperandEntry(uint32_t Off) const {
    return Off % 4 == 0 && Off / 4 < OperandStarts.size() &&
           OperandStarts[Off / 4];
  }
  uint16_t codeKind(uint32_t Off) const {
    return readAt<uint16_t>(M.code().Begin + Off + 2);
  }
  uint16_t operandKind(uint32_t Off) const {
    return readAt<uint16_t>(M.operands().Begin + Off + 2);
  }
  Error checkString(unsigned Sec, uint64_t At, uint32_t DataOff,
                    const Twine &What, bool AllowZero = false) const;
  Expected<OffsetList> checkList(unsigned Sec, uint64_t At, uint32_t DataOff,
                                 const Twine &What) const;
  Error checkOperandRef(unsigned Sec, uint64_t At, uint32_t Off,
                        const Twine &What) const;

  // Pass 2: operands.
  Error checkOperand(uint32_t Off);

  // Pass 3: code.
  Error checkModuleScope();
  Error checkExecutable(uint32_t Off, uint32_t &Next);
  Error checkBody(const BrigDirectiveExecutable &E, uint32_t ExecOff);
  Error checkDirective(uint32_t Off, bool InBody);
  Error checkVariable(uint32_t Off);
  Error checkInst(uint32_t Off, uint32_t ExecOff, uint32_t ExecEnd,
                  bool InArgBlock, uint32_t ArgBlockStart);
  Error checkOperandRule(uint32_t InstOff, const char *Name, unsigned Index,
                         OperandRule Rule, uint32_t OpOff, uint32_t ExecOff,
                         uint32_t ExecEnd, uint32_t ArgBlockStart);
  Error checkSymbolRef(uint32_t At, uint32_t Sym, uint32_t ExecOff,
                       uint32_t ExecEnd, unsigned Section, const Twine &What);

  const BrigModule &M;
  BitVector DataStarts, CodeStarts, OperandStarts;
  DenseSet<uint32_t> ModuleScope; ///< Offsets of module-scope code entries.
  std::vector<std::pair<uint32_t, uint32_t>> PendingLabelRefs;
  DenseSet<uint32_t> BodyLabels;
};

Error Validator::scanData() {
  const BrigSection &S = M.data();
  DataStarts.resize(size_t(S.ByteCount / 4) + 1);
  uint64_t Off = S.HeaderByteCount;
  while (Off < S.ByteCount) {
    if (S.ByteCount - Off < 4)
      return err(0, Off, "truncated hsa_data entry");
    uint32_t Len = readAt<uint32_t>(S.Begin + Off);
    uint64_t Padded = (uint64_t(Len) + 3) & ~uint64_t(3);
    if (Padded > S.ByteCount - Off - 4)
      return err(0, Off,
                 "hsa_data entry of " + Twine(Len) +
                     " bytes runs past the end of the section");
    for (uint64_t I = Len; I < Padded; ++I)
      if (S.Begin[Off + 4 + I] != 0)
        return err(0, Off, "padding after hsa_data entry is not zero");
    DataStarts.set(size_t(Off / 4));
    Off += 4 + Padded;
  }
  return Error::success();
}

Error Validator::scanEntries(unsigned Sec) {
  const BrigSection &S = M.section(Sec);
  BitVector &Starts =
      Sec == BRIG_SECTION_INDEX_CODE ? CodeStarts : OperandStarts;
  Starts.resize(size_t(S.ByteCount / 4) + 1);
  uint64_t Off = S.HeaderByteCount;
  while (Off < S.ByteCount) {
    if (S.ByteCount - Off < 4)
      return err(Sec, Off, "truncated entry");
    uint16_t Size = readAt<uint16_t>(S.Begin + Off);
    uint16_t Kind = readAt<uint16_t>(S.Begin + Off + 2);
    if (Size < 4 || Size % 4 != 0)
      return err(Sec, Off,
                 "entry byteCount " + Twine(Size) +
                     " is not a positive multiple of 4");
    if (Size > S.ByteCount - Off)
      return err(Sec, Off,
                 "entry byteCount " + Twine(Size) +
                     " runs past the end of the section");
    bool KindOk =
        Sec == BRIG_SECTION_INDEX_CODE
            ? (Kind == BRIG_KIND_NONE || brigKindIsDirective(Kind) ||
               brigKindIsInst(Kind))
            : (brigKindIsOperand(Kind) && Kind != BRIG_KIND_OPERAND_RESERVED);
    if (!KindOk)
      return err(Sec, Off,
                 "invalid entry kind " + kindText(Kind) + " in " +
                     sectionName(M, Sec));
    unsigned Need = brigEntrySize(Kind);
    if (Size < Need)
      return err(Sec, Off,
                 kindText(Kind) + " entry byteCount " + Twine(Size) +
                     " is smaller than its " + Twine(Need) + "-byte struct");
    Starts.set(size_t(Off / 4));
    Off += Size;
  }
  return Error::success();
}

Error Validator::checkString(unsigned Sec, uint64_t At, uint32_t DataOff,
                             const Twine &What, bool AllowZero) const {
  if (DataOff == 0 && AllowZero)
    return Error::success();
  if (!isDataEntry(DataOff))
    return err(Sec, At,
               What + " offset 0x" + utohexstr(DataOff, /*LowerCase=*/true) +
                   " is not an hsa_data entry");
  return Error::success();
}

Expected<OffsetList> Validator::checkList(unsigned Sec, uint64_t At,
                                          uint32_t DataOff,
                                          const Twine &What) const {
  if (!isDataEntry(DataOff))
    return err(Sec, At,
               What + " list offset 0x" +
                   utohexstr(DataOff, /*LowerCase=*/true) +
                   " is not an hsa_data entry");
  std::optional<StringRef> B = M.dataBytes(DataOff);
  if (!B || B->size() % 4 != 0)
    return err(Sec, At,
               What + " list at hsa_data+0x" +
                   utohexstr(DataOff, /*LowerCase=*/true) +
                   " has a byte count that is not a multiple of 4");
  return M.offsetList(DataOff);
}

Error Validator::checkOperandRef(unsigned Sec, uint64_t At, uint32_t Off,
                                 const Twine &What) const {
  if (!isOperandEntry(Off))
    return err(Sec, At,
               What + " offset 0x" + utohexstr(Off, /*LowerCase=*/true) +
                   " is not an hsa_operand entry");
  return Error::success();
}

bool isConstantKind(unsigned K) {
  return K == BRIG_KIND_OPERAND_CONSTANT_BYTES ||
         K == BRIG_KIND_OPERAND_CONSTANT_IMAGE ||
         K == BRIG_KIND_OPERAND_CONSTANT_SAMPLER ||
         K == BRIG_KIND_OPERAND_CONSTANT_OPERAND_LIST;
}

Error Validator::checkOperand(uint32_t Off) {
  const unsigned OS = BRIG_SECTION_INDEX_OPERAND;
  unsigned Kind = operandKind(Off);
  switch (Kind) {
  case BRIG_KIND_OPERAND_ADDRESS: {
    auto A = *M.operand<BrigOperandAddress>(Off);
    if (A.symbol != 0) {
      if (!isCodeEntry(A.symbol) ||
          codeKind(A.symbol) != BRIG_KIND_DIRECTIVE_VARIABLE)
        return opErr(Off, "address symbol 0x" +
                              utohexstr(A.symbol, /*LowerCase=*/true) +
                              " is not a variable directive");
    }
    if (A.reg != 0) {
      if (!isOperandEntry(A.reg) ||
          operandKind(A.reg) != BRIG_KIND_OPERAND_REGISTER)
        return opErr(Off, "address register 0x" +
                              utohexstr(A.reg, /*LowerCase=*/true) +
                              " is not a register operand");
      auto R = *M.operand<BrigOperandRegister>(A.reg);
      if (R.regKind != BRIG_REGISTER_KIND_SINGLE &&
          R.regKind != BRIG_REGISTER_KIND_DOUBLE)
        return opErr(Off, "address register must be an s or d register");
    }
    return Error::success();
  }
  case BRIG_KIND_OPERAND_ALIGN: {
    auto A = *M.operand<BrigOperandAlign>(Off);
    if (A.align == BRIG_ALIGNMENT_NONE || A.align > BRIG_ALIGNMENT_MAX)
      return opErr(Off, "invalid alignment " + Twine(unsigned(A.align)));
    return Error::success();
  }
  case BRIG_KIND_OPERAND_CODE_LIST: {
    auto L = *M.operand<BrigOperandCodeList>(Off);
    auto List = checkList(OS, Off, L.elements, "code");
    if (!List)
      return List.takeError();
    for (uint32_t I = 0; I < List->size(); ++I)
      if (!isCodeEntry((*List)[I]))
        return opErr(Off, "code list element " + Twine(I) + " (0x" +
                              utohexstr((*List)[I], /*LowerCase=*/true) +
                              ") is not an hsa_code entry");
    return Error::success();
  }
  case BRIG_KIND_OPERAND_CODE_REF: {
    auto R = *M.operand<BrigOperandCodeRef>(Off);
    if (!isCodeEntry(R.ref))
      return opErr(Off, "code reference 0x" +
                            utohexstr(R.ref, /*LowerCase=*/true) +
                            " is not an hsa_code entry");
    return Error::success();
  }
  case BRIG_KIND_OPERAND_CONSTANT_BYTES: {
    auto C = *M.operand<BrigOperandConstantBytes>(Off);
    // An array of no type too (the element type is what a value has).
    if (brigTypeArrayElement(C.type) == BRIG_TYPE_NONE ||
        !isValidType(brigTypeArrayElement(C.type)))
      return opErr(Off, "constant has invalid type " + Twine(C.type));
    if (Error E = checkString(OS, Off, C.bytes, "constant bytes"))
      return E;
    uint64_t Size = M.dataBytes(C.bytes)->size();
    // Signal handles are 64-bit in BRIG constants whatever the signal type.
    unsigned EltType = brigTypeArrayElement(C.type);
    // PRM 18.6.6: integer, float, packed or signal values (or arrays of
    // them); HSAIL has no bit-typed constants, and images and samplers are
    // BrigOperandConstantImage / BrigOperandConstantSampler.
    if (isBitType(EltType) || isImageType(EltType) || EltType == BRIG_TYPE_SAMP)
      return opErr(Off, "constant bytes cannot have type " +
                            Twine(typeName(EltType)) +
                            " (only integer, float, packed and signal "
                            "values)");
    unsigned Bits = isSignalType(EltType) ? 64 : typeBits(EltType);
    unsigned Elt = Bits <= 8 ? 1 : Bits / 8;
    if (brigTypeIsArray(C.type) ? Size % Elt != 0 : Size != Elt)
      return opErr(Off, "constant of type " +
                            Twine(typeName(brigTypeArrayElement(C.type))) +
                            (brigTypeIsArray(C.type) ? "[]" : "") + " has " +
                            Twine(Size) + " bytes");
    return Error::success();
  }
  case BRIG_KIND_OPERAND_CONSTANT_IMAGE: {
    auto I = *M.operand<BrigOperandConstantImage>(Off);
    if (!isImageType(I.type))
      return opErr(Off, "image constant has non-image type " + Twine(I.type));
    if (!geometryName(I.geometry) || !channelOrderName(I.channelOrder) ||
        !channelTypeName(I.channelType))
      return opErr(Off, "image constant has an invalid geometry, channel "
                        "order or channel type");
    return Error::success();
  }
  case BRIG_KIND_OPERAND_CONSTANT_SAMPLER: {
    auto S = *M.operand<BrigOperandConstantSampler>(Off);
    if (S.type != BRIG_TYPE_SAMP)
      return opErr(Off, "sampler constant must have type samp");
    if (!samplerCoordName(S.coord) || !samplerFilterName(S.filter) ||
        !samplerAddressingName(S.addressing))
      return opErr(Off, "sampler constant has an invalid coord, filter or "
                        "addressing");
    return Error::success();
  }
  case BRIG_KIND_OPERAND_CONSTANT_OPERAND_LIST:
  case BRIG_KIND_OPERAND_OPERAND_LIST: {
    bool Constant = Kind == BRIG_KIND_OPERAND_CONSTANT_OPERAND_LIST;
    uint32_t Elements =
        Constant ? M.operand<BrigOperandConstantOperandList>(Off)->elements
                 : M.operand<BrigOperandOperandList>(Off)->elements;
    if (Constant) {
      unsigned T = M.operand<BrigOperandConstantOperandList>(Off)->type;
      if (T != BRIG_TYPE_NONE &&
          !(brigTypeIsArray(T) && isValidType(brigTypeArrayElement(T))))
        return opErr(Off, "constant list has invalid type " + Twine(T));
    }
    auto List = checkList(OS, Off, Elements, "operand");
    if (!List)
      return List.takeError();
    for (uint32_t I = 0; I < List->size(); ++I) {
      uint32_t E = (*List)[I];
      if (Error Er = checkOperandRef(OS, Off, E, "list element " + Twine(I)))
        return Er;
      unsigned EK = operandKind(E);
      bool Ok = Constant ? (EK == BRIG_KIND_OPERAND_CONSTANT_BYTES ||
                            EK == BRIG_KIND_OPERAND_CONSTANT_IMAGE ||
                            EK == BRIG_KIND_OPERAND_CONSTANT_SAMPLER ||
                            EK == BRIG_KIND_OPERAND_ALIGN)
                         : (EK == BRIG_KIND_OPERAND_REGISTER ||
                            EK == BRIG_KIND_OPERAND_CONSTANT_BYTES ||
                            EK == BRIG_KIND_OPERAND_WAVESIZE);
      if (!Ok)
        return opErr(Off, "list element " + Twine(I) + " has kind " +
                              kindText(EK) + ", which a " +
                              (Constant ? "constant list" : "vector") +
                              " cannot hold");
    }
    if (!Constant && (List->size() < 2 || List->size() > 4))
      return opErr(Off, "vector operand has " + Twine(List->size()) +
                            " elements (expected 2 to 4)");
    return Error::success();
  }
  case BRIG_KIND_OPERAND_REGISTER: {
    auto R = *M.operand<BrigOperandRegister>(Off);
    if (R.regKind > BRIG_REGISTER_KIND_QUAD)
      return opErr(Off, "invalid register kind " + Twine(R.regKind));
    return Error::success();
  }
  case BRIG_KIND_OPERAND_STRING:
    return checkString(OS, Off, M.operand<BrigOperandString>(Off)->string,
                       "string");
  case BRIG_KIND_OPERAND_WAVESIZE:
    return Error::success();
  default:
    return opErr(Off, "invalid operand kind " + kindText(Kind));
  }
}

Error Validator::checkVariable(uint32_t Off) {
  auto V = *M.code<BrigDirectiveVariable>(Off);
  if (Error E = checkString(BRIG_SECTION_INDEX_CODE, Off, V.name,
                            "variable name", /*AllowZero=*/true))
    return E;
  unsigned Elt = brigTypeArrayElement(V.type);
  if (Elt == BRIG_TYPE_NONE || !isValidType(Elt) ||
      (brigTypeIsArray(V.type) && Elt == BRIG_TYPE_B1))
    return codeErr(Off, "variable '" + M.string(V.name) +
                            "' has invalid type " + Twine(V.type));
  if (V.segment == BRIG_SEGMENT_NONE || V.segment == BRIG_SEGMENT_FLAT ||
      V.segment > BRIG_SEGMENT_ARG)
    return codeErr(Off, "variable '" + M.string(V.name) +
                            "' has invalid segment " + Twine(V.segment));
  if (V.align > BRIG_ALIGNMENT_MAX || V.linkage > BRIG_LINKAGE_ARG ||
      V.allocation > BRIG_ALLOCATION_AUTOMATIC || (V.modifier & ~3u) != 0)
    return codeErr(Off, "variable '" + M.string(V.name) +
                            "' has an invalid align, linkage, allocation or "
                            "modifier");
  if (V.init != 0) {
    if (Error E = checkOperandRef(BRIG_SECTION_INDEX_CODE, Off, V.init,
                                  "variable initializer"))
      return E;
    if (!isConstantKind(operandKind(V.init)))
      return codeErr(Off, "variable initializer must be a constant (found " +
                              kindText(operandKind(V.init)) + ")");
  }
  return Error::success();
}

Error Validator::checkDirective(uint32_t Off, bool InBody) {
  const unsigned CS = BRIG_SECTION_INDEX_CODE;
  unsigned Kind = codeKind(Off);
  switch (Kind) {
  case BRIG_KIND_NONE:
    return Error::success();
  case BRIG_KIND_DIRECTIVE_COMMENT:
    return checkString(CS, Off, M.code<BrigDirectiveComment>(Off)->name,
                       "comment");
  case BRIG_KIND_DIRECTIVE_EXTENSION:
    if (InBody)
      return codeErr(Off, "extension directive inside a code block");
    return checkString(CS, Off, M.code<BrigDirectiveExtension>(Off)->name,
                       "extension name");
  case BRIG_KIND_DIRECTIVE_LOC:
    return checkString(CS, Off, M.code<BrigDirectiveLoc>(Off)->filename,
                       "loc filename", /*AllowZero=*/true);
  case BRIG_KIND_DIRECTIVE_LABEL:
    if (!InBody)
      return codeErr(Off, "label outside of a code block");
    BodyLabels.insert(Off);
    return checkString(CS, Off, M.code<BrigDirectiveLabel>(Off)->name,
                       "label name");
  case BRIG_KIND_DIRECTIVE_FBARRIER: {
    auto F = *M.code<BrigDirectiveFbarrier>(Off);
    if (F.linkage > BRIG_LINKAGE_ARG || (F.modifier & ~1u) != 0)
      return codeErr(Off, "fbarrier has an invalid linkage or modifier");
    return checkString(CS, Off, F.name, "fbarrier name");
  }
  case BRIG_KIND_DIRECTIVE_CONTROL: {
    auto C = *M.code<BrigDirectiveControl>(Off);
    if (!controlName(C.control))
      return codeErr(Off, "invalid control directive " + Twine(C.control));
    auto List = checkList(CS, Off, C.operands, "control operand");
    if (!List)
      return List.takeError();
    for (uint32_t I = 0; I < List->size(); ++I) {
      uint32_t O = (*List)[I];
      if (Error E = checkOperandRef(CS, Off, O, "control operand"))
        return E;
      unsigned K = operandKind(O);
      if (K != BRIG_KIND_OPERAND_CONSTANT_BYTES &&
          K != BRIG_KIND_OPERAND_WAVESIZE)
        return codeErr(Off, "control directive operand " + Twine(I) +
                                " must be a constant or wavesize (found " +
                                kindText(K) + ")");
    }
    return Error::success();
  }
  case BRIG_KIND_DIRECTIVE_PRAGMA: {
    auto P = *M.code<BrigDirectivePragma>(Off);
    auto List = checkList(CS, Off, P.operands, "pragma operand");
    if (!List)
      return List.takeError();
    for (uint32_t I = 0; I < List->size(); ++I) {
      uint32_t O = (*List)[I];
      if (Error E = checkOperandRef(CS, Off, O, "pragma operand"))
        return E;
      // PRM 13.3: a string, an immediate (typed constants of every type,
      // opaque ones included, and WAVESIZE), an aggregate constant, or an
      // identifier (a symbol, label or register).
      unsigned K = operandKind(O);
      if (K != BRIG_KIND_OPERAND_CONSTANT_BYTES &&
          K != BRIG_KIND_OPERAND_CONSTANT_IMAGE &&
          K != BRIG_KIND_OPERAND_CONSTANT_SAMPLER &&
          K != BRIG_KIND_OPERAND_CONSTANT_OPERAND_LIST &&
          K != BRIG_KIND_OPERAND_WAVESIZE && K != BRIG_KIND_OPERAND_STRING &&
          K != BRIG_KIND_OPERAND_CODE_REF && K != BRIG_KIND_OPERAND_REGISTER)
        return codeErr(Off, "pragma operand " + Twine(I) +
                                " must be a string, constant, WAVESIZE, "
                                "symbol, label or register (found " +
                                kindText(K) + ")");
      // An identifier names a symbol or a label (PRM 13.3), not any entry.
      if (K == BRIG_KIND_OPERAND_CODE_REF) {
        const uint32_t Ref = M.operand<BrigOperandCodeRef>(O)->ref;
        switch (codeKind(Ref)) {
        case BRIG_KIND_DIRECTIVE_VARIABLE:
        case BRIG_KIND_DIRECTIVE_KERNEL:
        case BRIG_KIND_DIRECTIVE_FUNCTION:
        case BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION:
        case BRIG_KIND_DIRECTIVE_SIGNATURE:
        case BRIG_KIND_DIRECTIVE_LABEL:
        case BRIG_KIND_DIRECTIVE_FBARRIER:
          break;
        default:
          return codeErr(Off, "pragma operand " + Twine(I) + " refers to a " +
                                  kindText(codeKind(Ref)) +
                                  ", not a symbol or label");
        }
      }
    }
    return Error::success();
  }
  case BRIG_KIND_DIRECTIVE_VARIABLE:
    return checkVariable(Off);
  case BRIG_KIND_DIRECTIVE_MODULE:
    return codeErr(Off, "module directive must come first and only once");
  case BRIG_KIND_DIRECTIVE_ARG_BLOCK_START:
  case BRIG_KIND_DIRECTIVE_ARG_BLOCK_END:
    if (!InBody)
      return codeErr(Off, "arg block outside of a code block");
    return Error::success();
  default:
    if (brigKindIsInst(Kind))
      return codeErr(Off, "instruction outside of a kernel or function");
    return codeErr(Off, kindText(Kind) + " not allowed here");
  }
}

Error Validator::checkModuleScope() {
  const BrigSection &S = M.code();
  uint64_t Off = S.HeaderByteCount;
  bool SeenModule = false;
  // Pass A: follow module-scope entries (executables skip their bodies) and
  // check every executable's layout; the walk strictly advances.
  std::vector<uint32_t> Executables;
  while (Off < S.ByteCount) {
    uint32_t O = uint32_t(Off);
    ModuleScope.insert(O);
    unsigned Kind = codeKind(O);
    uint32_t Next = O + readAt<uint16_t>(S.Begin + O);
    if (Kind == BRIG_KIND_DIRECTIVE_MODULE) {
      if (SeenModule)
        return codeErr(O, "more than one module directive");
      SeenModule = true;
      auto D = *M.code<BrigDirectiveModule>(O);
      if (Error E =
              checkString(BRIG_SECTION_INDEX_CODE, O, D.name, "module name"))
        return E;
      if (D.hsailMajor != BRIG_VERSION_HSAIL_MAJOR ||
          D.hsailMinor > BRIG_VERSION_HSAIL_MINOR)
        return codeErr(O, "unsupported HSAIL version " + Twine(D.hsailMajor) +
                              "." + Twine(D.hsailMinor));
      if (D.profile > BRIG_PROFILE_FULL || D.machineModel > BRIG_MACHINE_LARGE)
        return codeErr(O, "invalid profile or machine model");
      if (D.defaultFloatRound != BRIG_ROUND_FLOAT_DEFAULT &&
          D.defaultFloatRound != BRIG_ROUND_FLOAT_NEAR_EVEN &&
          D.defaultFloatRound != BRIG_ROUND_FLOAT_ZERO)
        return codeErr(O, "invalid default float rounding " +
                              Twine(unsigned(D.defaultFloatRound)));
    } else if (BrigKindOf<BrigDirectiveExecutable>::matches(Kind)) {
      if (!SeenModule)
        return codeErr(O, "kernel or function before the module directive");
      if (Error E = checkExecutable(O, Next))
        return E;
      Executables.push_back(O);
    } else if (Kind != BRIG_KIND_DIRECTIVE_COMMENT &&
               Kind != BRIG_KIND_DIRECTIVE_LOC &&
               Kind != BRIG_KIND_DIRECTIVE_PRAGMA && Kind != BRIG_KIND_NONE) {
      if (!SeenModule)
        return codeErr(O, kindText(Kind) + " before the module directive");
      if (Error E = checkDirective(O, /*InBody=*/false))
        return E;
    } else if (Error E = checkDirective(O, /*InBody=*/false)) {
      return E;
    }
    Off = Next;
  }
  if (!SeenModule)
    return codeErr(S.HeaderByteCount, "module has no module directive");
  // Pass B: code blocks, now that every module-scope symbol is known.
  for (uint32_t O : Executables) {
    auto E = *M.code<BrigDirectiveExecutable>(O);
    if (Error Er = checkBody(E, O))
      return Er;
  }
  return Error::success();
}

Error Validator::checkExecutable(uint32_t Off, uint32_t &Next) {
  const BrigSection &S = M.code();
  auto E = *M.code<BrigDirectiveExecutable>(Off);
  unsigned Kind = codeKind(Off);
  bool Kernel = Kind == BRIG_KIND_DIRECTIVE_KERNEL;
  bool Signature = Kind == BRIG_KIND_DIRECTIVE_SIGNATURE;
  if (Error Er =
          checkString(BRIG_SECTION_INDEX_CODE, Off, E.name, "executable name"))
    return Er;
  StringRef Name = M.string(E.name);
  auto IsPos = [&](uint32_t P) { return P == S.ByteCount || isCodeEntry(P); };
  uint32_t After = Off + readAt<uint16_t>(S.Begin + Off);
  if (!IsPos(E.nextModuleEntry) || E.nextModuleEntry < After)
    return codeErr(Off, "'" + Name + "': nextModuleEntry 0x" +
                            utohexstr(E.nextModuleEntry, /*LowerCase=*/true) +
                            " is not a following hsa_code entry");
  if (!IsPos(E.firstCodeBlockEntry) || E.firstCodeBlockEntry < After ||
      E.firstCodeBlockEntry > E.nextModuleEntry)
    return codeErr(Off,
                   "'" + Name + "': firstCodeBlockEntry 0x" +
                       utohexstr(E.firstCodeBlockEntry, /*LowerCase=*/true) +
                       " is outside the executable");
  if (!IsPos(E.firstInArg) || E.firstInArg < After ||
      E.firstInArg > E.firstCodeBlockEntry)
    return codeErr(Off, "'" + Name + "': firstInArg 0x" +
                            utohexstr(E.firstInArg, /*LowerCase=*/true) +
                            " is outside the argument list");
  if (Kernel && E.outArgCount != 0)
    return codeErr(Off, "kernel '" + Name + "' has output arguments");
  if ((E.modifier & ~1u) != 0 || E.linkage > BRIG_LINKAGE_ARG)
    return codeErr(Off, "'" + Name + "' has an invalid modifier or linkage");
  bool Definition = E.modifier & BRIG_EXECUTABLE_DEFINITION;
  if (Signature && !Definition)
    return codeErr(Off, "signature '" + Name + "' must be a definition");
  if ((!Definition || Signature) && E.firstCodeBlockEntry != E.nextModuleEntry)
    return codeErr(Off, "declaration '" + Name + "' has a code block");
  // Formal arguments: outArgCount then inArgCount variables, in order.
  uint32_t Pos = After;
  unsigned Seg = Kernel ? BRIG_SEGMENT_KERNARG : BRIG_SEGMENT_ARG;
  unsigned Total = unsigned(E.outArgCount) + E.inArgCount;
  for (unsigned I = 0; I < Total; ++I) {
    if (I == E.outArgCount && Pos != E.firstInArg)
      return codeErr(Off, "'" + Name + "': firstInArg 0x" +
                              utohexstr(E.firstInArg, /*LowerCase=*/true) +
                              " is not the first input argument (0x" +
                              utohexstr(Pos, /*LowerCase=*/true) + ")");
    if (Pos >= E.firstCodeBlockEntry ||
        codeKind(Pos) != BRIG_KIND_DIRECTIVE_VARIABLE)
      return codeErr(Off, "'" + Name + "' declares " + Twine(Total) +
                              " arguments but argument " + Twine(I) +
                              " is not a variable directive");
    if (Error Er = checkVariable(Pos))
      return Er;
    if (M.code<BrigDirectiveVariable>(Pos)->segment != Seg)
      return codeErr(Pos, "argument " + Twine(I) + " of '" + Name +
                              "' must be in the " + segmentName(Seg) +
                              " segment");
    Pos += readAt<uint16_t>(S.Begin + Pos);
  }
  if (E.inArgCount == 0 && E.firstInArg != E.firstCodeBlockEntry)
    return codeErr(Off, "'" + Name +
                            "' has no input arguments but firstInArg != "
                            "firstCodeBlockEntry");
  if (Pos != E.firstCodeBlockEntry)
    return codeErr(
        Off, "'" + Name + "': firstCodeBlockEntry 0x" +
                 utohexstr(E.firstCodeBlockEntry, /*LowerCase=*/true) +
                 " does not follow its " + Twine(Total) + " arguments (0x" +
                 utohexstr(Pos, /*LowerCase=*/true) + ")");
  Next = E.nextModuleEntry;
  return Error::success();
}

Error Validator::checkBody(const BrigDirectiveExecutable &E, uint32_t ExecOff) {
  const BrigSection &S = M.code();
  BodyLabels.clear();
  PendingLabelRefs.clear();
  bool InArgBlock = false;
  uint32_t ArgBlockStart = 0;
  uint32_t Off = E.firstCodeBlockEntry;
  while (Off < E.nextModuleEntry) {
    unsigned Kind = codeKind(Off);
    if (brigKindIsInst(Kind)) {
      if (Error Er = checkInst(Off, ExecOff, E.nextModuleEntry, InArgBlock,
                               ArgBlockStart))
        return Er;
    } else {
      if (BrigKindOf<BrigDirectiveExecutable>::matches(Kind) ||
          Kind == BRIG_KIND_DIRECTIVE_MODULE)
        return codeErr(Off, kindText(Kind) + " inside a code block");
      if (Kind == BRIG_KIND_DIRECTIVE_ARG_BLOCK_START) {
        if (InArgBlock)
          return codeErr(Off, "nested arg block");
        InArgBlock = true;
        ArgBlockStart = Off;
      } else if (Kind == BRIG_KIND_DIRECTIVE_ARG_BLOCK_END) {
        if (!InArgBlock)
          return codeErr(Off, "arg block end without a start");
        InArgBlock = false;
      } else if (Kind == BRIG_KIND_DIRECTIVE_VARIABLE) {
        if (Error Er = checkVariable(Off))
          return Er;
        unsigned Seg = M.code<BrigDirectiveVariable>(Off)->segment;
        if ((Seg == BRIG_SEGMENT_ARG) != InArgBlock)
          return codeErr(Off, InArgBlock ? "only arg variables may be "
                                           "declared in an arg block"
                                         : "arg variable outside an arg "
                                           "block");
      }
      if (Error Er = checkDirective(Off, /*InBody=*/true))
        return Er;
    }
    Off += readAt<uint16_t>(S.Begin + Off);
  }
  if (InArgBlock)
    return codeErr(ArgBlockStart, "arg block is not closed");
  for (auto [At, Target] : PendingLabelRefs)
    if (!BodyLabels.contains(Target))
      return codeErr(At, "branch target 0x" +
                             utohexstr(Target, /*LowerCase=*/true) +
                             " is not a label of the same code block");
  return Error::success();
}

Error Validator::checkSymbolRef(uint32_t At, uint32_t Sym, uint32_t ExecOff,
                                uint32_t ExecEnd, unsigned Section,
                                const Twine &What) {
  if (Sym > ExecOff && Sym < ExecEnd) {
    if (Sym > At)
      return codeErr(At, What + " 0x" + utohexstr(Sym, /*LowerCase=*/true) +
                             " is used before its declaration");
    return Error::success();
  }
  if (!ModuleScope.contains(Sym))
    return codeErr(At, What + " 0x" + utohexstr(Sym, /*LowerCase=*/true) +
                           " belongs to another kernel or function");
  return Error::success();
}

Error Validator::checkOperandRule(uint32_t InstOff, const char *Name,
                                  unsigned Index, OperandRule Rule,
                                  uint32_t OpOff, uint32_t ExecOff,
                                  uint32_t ExecEnd, uint32_t ArgBlockStart) {
  auto Bad = [&](const Twine &Found) {
    return codeErr(InstOff, "instruction '" + Twine(Name) + "' operand " +
                                Twine(Index) + " must be " + ruleText(Rule) +
                                " (found " + Found + ")");
  };
  if (!isOperandEntry(OpOff))
    return Bad("offset 0x" + utohexstr(OpOff, /*LowerCase=*/true) +
               ", not an hsa_operand entry");
  unsigned K = operandKind(OpOff);
  auto IsSrc = [](unsigned K) {
    return K == BRIG_KIND_OPERAND_REGISTER ||
           K == BRIG_KIND_OPERAND_CONSTANT_BYTES ||
           K == BRIG_KIND_OPERAND_WAVESIZE;
  };
  auto ListAll = [&](auto Pred) {
    auto L = M.operand<BrigOperandOperandList>(OpOff);
    OffsetList List = M.offsetList(L->elements);
    for (uint32_t I = 0; I < List.size(); ++I)
      if (!Pred(operandKind(List[I])))
        return false;
    return true;
  };
  auto CodeTarget = [&](uint32_t Target, auto KindOk,
                        const char *What) -> Error {
    if (!KindOk(codeKind(Target)))
      return Bad(Twine("a reference to ") + kindText(codeKind(Target)));
    if (Rule == OperandRule::Label)
      PendingLabelRefs.push_back({InstOff, Target});
    else if (Rule == OperandRule::Args)
      return checkSymbolRef(InstOff, Target, ExecOff, ExecEnd,
                            BRIG_SECTION_INDEX_CODE, What);
    else if (!ModuleScope.contains(Target) &&
             !(Target > ExecOff && Target < InstOff))
      return codeErr(InstOff, Twine(What) + " 0x" +
                                  utohexstr(Target, /*LowerCase=*/true) +
                                  " is not visible here");
    return Error::success();
  };
  auto IsLabel = [](unsigned K) { return K == BRIG_KIND_DIRECTIVE_LABEL; };
  auto IsFbar = [](unsigned K) { return K == BRIG_KIND_DIRECTIVE_FBARRIER; };
  auto IsFunc = [](unsigned K) {
    return K == BRIG_KIND_DIRECTIVE_FUNCTION ||
           K == BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION;
  };
  auto IsSig = [](unsigned K) { return K == BRIG_KIND_DIRECTIVE_SIGNATURE; };
  auto IsArg = [&](unsigned K) { return K == BRIG_KIND_DIRECTIVE_VARIABLE; };
  auto Ref = [&](auto KindOk, const char *What) -> Error {
    if (K != BRIG_KIND_OPERAND_CODE_REF)
      return Bad(kindText(K));
    return CodeTarget(M.operand<BrigOperandCodeRef>(OpOff)->ref, KindOk, What);
  };
  auto RefList = [&](auto KindOk, const char *What) -> Error {
    if (K != BRIG_KIND_OPERAND_CODE_LIST)
      return Bad(kindText(K));
    OffsetList List =
        M.offsetList(M.operand<BrigOperandCodeList>(OpOff)->elements);
    for (uint32_t I = 0; I < List.size(); ++I) {
      if (Error Er = CodeTarget(List[I], KindOk, What))
        return Er;
      if (Rule == OperandRule::Args) {
        auto V = *M.code<BrigDirectiveVariable>(List[I]);
        if (V.segment != BRIG_SEGMENT_ARG || List[I] < ArgBlockStart)
          return codeErr(InstOff, "call argument " + Twine(I) +
                                      " is not an arg variable of the "
                                      "enclosing arg block");
      }
    }
    return Error::success();
  };

  switch (Rule) {
  case OperandRule::None:
    return Bad(kindText(K));
  case OperandRule::Reg:
    return K == BRIG_KIND_OPERAND_REGISTER ? Error::success()
                                           : Bad(kindText(K));
  case OperandRule::Src:
    return IsSrc(K) ? Error::success() : Bad(kindText(K));
  case OperandRule::SrcNoWs:
    // WAVESIZE stands for an integer constant (PRM 2.6.2): a source of an
    // instruction of integer type may be WAVESIZE (abs_s32 $s0, WAVESIZE, as
    // HSAILasm accepts), one of float or packed type may not (ceil_f32,
    // fma_f64, abs_p_s8x4). checkModuleSemantics applies the full rule.
    if (K == BRIG_KIND_OPERAND_WAVESIZE &&
        isIntType(M.code<BrigInstBase>(InstOff)->type))
      return Error::success();
    return K == BRIG_KIND_OPERAND_REGISTER ||
                   K == BRIG_KIND_OPERAND_CONSTANT_BYTES
               ? Error::success()
               : Bad(kindText(K));
  case OperandRule::Imm:
    return K == BRIG_KIND_OPERAND_CONSTANT_BYTES ? Error::success()
                                                 : Bad(kindText(K));
  case OperandRule::Addr: {
    if (K != BRIG_KIND_OPERAND_ADDRESS)
      return Bad(kindText(K));
    uint32_t Sym = M.operand<BrigOperandAddress>(OpOff)->symbol;
    if (Sym != 0)
      return checkSymbolRef(InstOff, Sym, ExecOff, ExecEnd,
                            BRIG_SECTION_INDEX_CODE, "address symbol");
    return Error::success();
  }
  case OperandRule::DstVec:
  case OperandRule::RegList:
    if (K == BRIG_KIND_OPERAND_REGISTER && Rule == OperandRule::DstVec)
      return Error::success();
    if (K == BRIG_KIND_OPERAND_OPERAND_LIST &&
        ListAll([](unsigned E) { return E == BRIG_KIND_OPERAND_REGISTER; }))
      return Error::success();
    return Bad(kindText(K));
  case OperandRule::SrcVec:
  case OperandRule::SrcList:
    if (IsSrc(K) && Rule == OperandRule::SrcVec)
      return Error::success();
    if (K == BRIG_KIND_OPERAND_OPERAND_LIST)
      return Error::success(); // Elements were checked with the operand.
    return Bad(kindText(K));
  case OperandRule::Label:
    return Ref(IsLabel, "label");
  case OperandRule::Labels:
    if (K != BRIG_KIND_OPERAND_CODE_LIST)
      return Bad(kindText(K));
    {
      OffsetList List =
          M.offsetList(M.operand<BrigOperandCodeList>(OpOff)->elements);
      for (uint32_t I = 0; I < List.size(); ++I) {
        if (!IsLabel(codeKind(List[I])))
          return Bad("a list holding " + kindText(codeKind(List[I])));
        PendingLabelRefs.push_back({InstOff, List[I]});
      }
    }
    return Error::success();
  case OperandRule::FbarOrReg:
    if (K == BRIG_KIND_OPERAND_REGISTER)
      return Error::success();
    return Ref(IsFbar, "fbarrier");
  case OperandRule::Fbar:
    return Ref(IsFbar, "fbarrier");
  case OperandRule::Func:
    return Ref(IsFunc, "function");
  case OperandRule::Funcs:
    return RefList(IsFunc, "function");
  case OperandRule::Args:
    return RefList(IsArg, "call argument");
  case OperandRule::Signature:
    return Ref(IsSig, "signature");
  }
  return Error::success();
}

bool typeAllowed(TypeRule R, unsigned T) {
  if (brigTypeIsArray(T) || !isValidType(T))
    return false;
  switch (R) {
  case TypeRule::None:
    return T == BRIG_TYPE_NONE;
  case TypeRule::Any:
    return T != BRIG_TYPE_NONE;
  case TypeRule::Numeric:
    return isIntType(T) || isFloatType(T) || isPackedType(T);
  case TypeRule::Float:
    return isFloatType(T) || (isPackedType(T) && isFloatType(brigTypeBase(T)));
  case TypeRule::Bits:
    return isBitType(T) || isPackedType(T);
  case TypeRule::Int:
    return isIntType(T);
  case TypeRule::B1:
    return T == BRIG_TYPE_B1;
  }
  return false;
}

Error Validator::checkInst(uint32_t Off, uint32_t ExecOff, uint32_t ExecEnd,
                           bool InArgBlock, uint32_t ArgBlockStart) {
  unsigned Kind = codeKind(Off);
  auto I = *M.code<BrigInstBase>(Off);
  const InstInfo *Info = instInfo(I.opcode);
  if (!Info) {
    // PRM 13.1.3: opcodes from 0x8000 up belong to vendor extensions
    // (HSAILasm's amd:gcn, amd:mipmap...), whose instructions openhsa
    // cannot decode or finalize.
    if (I.opcode >= BRIG_OPCODE_FIRST_USER_DEFINED)
      return codeErr(Off, "unknown opcode " + Twine(I.opcode) +
                              " (a vendor extension's, which openhsa does "
                              "not support)");
    return codeErr(Off, "unknown opcode " + Twine(I.opcode));
  }
  const char *Name = opcodeName(I.opcode);
  auto Fail = [&](const Twine &Msg) {
    return codeErr(Off, "instruction '" + Twine(Name) + "' " + Msg);
  };
  if (!(Info->Formats & instFormatBit(Kind)))
    return Fail("cannot be encoded as " + kindText(Kind));
  if (!typeAllowed(Info->Types, I.type))
    return Fail("does not accept type " +
                Twine(isValidType(I.type) && !brigTypeIsArray(I.type)
                          ? (*typeName(I.type) ? typeName(I.type) : "none")
                          : "#" + std::to_string(I.type)));

  // Format-specific fields.
  const uint8_t *P = M.code().Begin + Off;
  auto BadField = [&](const char *Field, unsigned V) {
    return Fail("has invalid " + Twine(Field) + " " + Twine(V));
  };
  auto CheckSrcType = [&](unsigned T, bool AllowNone) -> Error {
    if ((T == BRIG_TYPE_NONE && !AllowNone) || brigTypeIsArray(T) ||
        !isValidType(T))
      return BadField("source type", T);
    return Error::success();
  };
  unsigned AtomicOp = 0;
  switch (Kind) {
  case BRIG_KIND_INST_ADDR: {
    auto X = readAt<BrigInstAddr>(P);
    if (!segmentName(X.segment) || X.segment == BRIG_SEGMENT_NONE)
      return BadField("segment", X.segment);
    break;
  }
  case BRIG_KIND_INST_ATOMIC: {
    auto X = readAt<BrigInstAtomic>(P);
    if (!segmentName(X.segment) || X.segment == BRIG_SEGMENT_NONE)
      return BadField("segment", X.segment);
    if (!memoryOrderName(X.memoryOrder))
      return BadField("memory order", X.memoryOrder);
    if (!memoryScopeName(X.memoryScope))
      return BadField("memory scope", X.memoryScope);
    if (!atomicOpName(X.atomicOperation) || X.atomicOperation > BRIG_ATOMIC_XOR)
      return BadField("atomic operation", X.atomicOperation);
    AtomicOp = X.atomicOperation;
    break;
  }
  case BRIG_KIND_INST_BR: {
    auto X = readAt<BrigInstBr>(P);
    if (!widthName(X.width))
      return BadField("width", X.width);
    break;
  }
  case BRIG_KIND_INST_CMP: {
    auto X = readAt<BrigInstCmp>(P);
    if (Error E = CheckSrcType(X.sourceType, false))
      return E;
    if (!compareName(X.compare))
      return BadField("comparison", X.compare);
    if (!packName(X.pack))
      return BadField("packing", X.pack);
    if (X.modifier & ~unsigned(BRIG_ALU_FTZ))
      return BadField("modifier", X.modifier);
    break;
  }
  case BRIG_KIND_INST_CVT: {
    auto X = readAt<BrigInstCvt>(P);
    if (Error E = CheckSrcType(X.sourceType, false))
      return E;
    if (!roundName(X.round))
      return BadField("rounding", X.round);
    if (X.modifier & ~unsigned(BRIG_ALU_FTZ))
      return BadField("modifier", X.modifier);
    break;
  }
  case BRIG_KIND_INST_IMAGE: {
    auto X = readAt<BrigInstImage>(P);
    if (!isImageType(X.imageType))
      return BadField("image type", X.imageType);
    if (Error E = CheckSrcType(X.coordType, true))
      return E;
    if (!geometryName(X.geometry))
      return BadField("geometry", X.geometry);
    break;
  }
  case BRIG_KIND_INST_LANE: {
    auto X = readAt<BrigInstLane>(P);
    if (Error E = CheckSrcType(X.sourceType, true))
      return E;
    if (!widthName(X.width))
      return BadField("width", X.width);
    break;
  }
  case BRIG_KIND_INST_MEM: {
    auto X = readAt<BrigInstMem>(P);
    if (!segmentName(X.segment))
      return BadField("segment", X.segment);
    if (X.align > BRIG_ALIGNMENT_MAX)
      return BadField("alignment", X.align);
    if (!widthName(X.width))
      return BadField("width", X.width);
    if (X.modifier & ~unsigned(BRIG_MEMORY_CONST))
      return BadField("modifier", X.modifier);
    break;
  }
  case BRIG_KIND_INST_MEM_FENCE: {
    auto X = readAt<BrigInstMemFence>(P);
    if (!memoryOrderName(X.memoryOrder))
      return BadField("memory order", X.memoryOrder);
    if (!memoryScopeName(X.globalSegmentMemoryScope) ||
        !memoryScopeName(X.groupSegmentMemoryScope) ||
        !memoryScopeName(X.imageSegmentMemoryScope))
      return Fail("has an invalid memory scope");
    break;
  }
  case BRIG_KIND_INST_MOD: {
    auto X = readAt<BrigInstMod>(P);
    if (!roundName(X.round))
      return BadField("rounding", X.round);
    if (!packName(X.pack))
      return BadField("packing", X.pack);
    if (X.modifier & ~unsigned(BRIG_ALU_FTZ))
      return BadField("modifier", X.modifier);
    break;
  }
  case BRIG_KIND_INST_QUERY_IMAGE: {
    auto X = readAt<BrigInstQueryImage>(P);
    if (!isImageType(X.imageType))
      return BadField("image type", X.imageType);
    if (!geometryName(X.geometry))
      return BadField("geometry", X.geometry);
    if (!imageQueryName(X.query))
      return BadField("query", X.query);
    break;
  }
  case BRIG_KIND_INST_QUERY_SAMPLER: {
    auto X = readAt<BrigInstQuerySampler>(P);
    if (!samplerQueryName(X.query))
      return BadField("query", X.query);
    break;
  }
  case BRIG_KIND_INST_QUEUE: {
    auto X = readAt<BrigInstQueue>(P);
    if (!segmentName(X.segment))
      return BadField("segment", X.segment);
    if (!memoryOrderName(X.memoryOrder))
      return BadField("memory order", X.memoryOrder);
    break;
  }
  case BRIG_KIND_INST_SEG: {
    auto X = readAt<BrigInstSeg>(P);
    if (!segmentName(X.segment))
      return BadField("segment", X.segment);
    break;
  }
  case BRIG_KIND_INST_SEG_CVT: {
    auto X = readAt<BrigInstSegCvt>(P);
    if (Error E = CheckSrcType(X.sourceType, false))
      return E;
    if (!segmentName(X.segment))
      return BadField("segment", X.segment);
    if (X.modifier & ~unsigned(BRIG_SEG_CVT_NONULL))
      return BadField("modifier", X.modifier);
    break;
  }
  case BRIG_KIND_INST_SIGNAL: {
    auto X = readAt<BrigInstSignal>(P);
    if (!isSignalType(X.signalType))
      return BadField("signal type", X.signalType);
    if (!memoryOrderName(X.memoryOrder))
      return BadField("memory order", X.memoryOrder);
    if (!atomicOpName(X.signalOperation))
      return BadField("signal operation", X.signalOperation);
    AtomicOp = X.signalOperation;
    break;
  }
  case BRIG_KIND_INST_SOURCE_TYPE: {
    auto X = readAt<BrigInstSourceType>(P);
    if (Error E = CheckSrcType(X.sourceType, false))
      return E;
    break;
  }
  default:
    break;
  }

  // Operands, driven by the table.
  auto List = checkList(BRIG_SECTION_INDEX_CODE, Off, I.operands, "operand");
  if (!List)
    return List.takeError();
  unsigned Need = expectedOperandCount(I.opcode, AtomicOp);
  if (List->size() != Need)
    return Fail("needs " + Twine(Need) + " operand" + (Need == 1 ? "" : "s") +
                " (found " + Twine(List->size()) + ")");
  // Atomic/signal forms whose operand list is shorter or longer than the
  // table row reuse the row's trailing rules.
  for (unsigned Idx = 0; Idx < Need; ++Idx) {
    OperandRule Rule = Info->Operands[Idx < 5 ? Idx : 4];
    if (Rule == OperandRule::None)
      Rule = OperandRule::Src;
    if (Error E = checkOperandRule(Off, Name, Idx, Rule, (*List)[Idx], ExecOff,
                                   ExecEnd, ArgBlockStart))
      return E;
  }
  bool IsCall = I.opcode == BRIG_OPCODE_CALL || I.opcode == BRIG_OPCODE_SCALL ||
                I.opcode == BRIG_OPCODE_ICALL;
  if (IsCall && !InArgBlock)
    return Fail("must be inside an arg block");
  return Error::success();
}

Error Validator::run() {
  if (Error E = scanData())
    return E;
  if (Error E = scanEntries(BRIG_SECTION_INDEX_OPERAND))
    return E;
  if (Error E = scanEntries(BRIG_SECTION_INDEX_CODE))
    return E;
  const BrigSection &OS = M.operands();
  for (uint64_t Off = OS.HeaderByteCount; Off < OS.ByteCount;
       Off += readAt<uint16_t>(OS.Begin + Off))
    if (Error E = checkOperand(uint32_t(Off)))
      return E;
  return checkModuleScope();
}

} // namespace

Error validateModule(const BrigModule &M) { return Validator(M).run(); }

Expected<BrigModule> loadValidatedModule(ArrayRef<uint8_t> Bytes,
                                         StringRef Name) {
  Expected<BrigModule> M = BrigModule::create(Bytes, Name);
  if (!M)
    return M.takeError();
  if (Error E = validateModule(*M))
    return E;
  return M;
}

} // namespace openhsa::brig
