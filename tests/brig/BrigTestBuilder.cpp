//===- tests/brig/BrigTestBuilder.cpp - Hand-made BRIG modules ------------===//
//
// Part of openhsa.
//
//===----------------------------------------------------------------------===//

#include "BrigTestBuilder.h"

namespace openhsa::brig::test {

namespace {
uint32_t headerSize(llvm::StringRef Name) {
  return 16 + ((uint32_t(Name.size()) + 3) & ~3u);
}
uint32_t append(std::string &S, const void *P, size_t N) {
  uint32_t Off = uint32_t(S.size());
  S.append(static_cast<const char *>(P), N);
  return Off;
}
} // namespace

ModuleBuilder::ModuleBuilder()
    : Data(headerSize("hsa_data"), '\0'), Code(headerSize("hsa_code"), '\0'),
      Operands(headerSize("hsa_operand"), '\0') {}

uint32_t ModuleBuilder::data(llvm::StringRef Bytes) {
  uint32_t Len = uint32_t(Bytes.size());
  uint32_t Off = append(Data, &Len, 4);
  Data.append(Bytes.data(), Bytes.size());
  Data.append((4 - Bytes.size() % 4) % 4, '\0');
  return Off;
}

uint32_t ModuleBuilder::offsets(llvm::ArrayRef<uint32_t> List) {
  return data(llvm::StringRef(reinterpret_cast<const char *>(List.data()),
                              List.size() * 4));
}

uint32_t ModuleBuilder::code(const void *Entry, size_t Size) {
  return append(Code, Entry, Size);
}

uint32_t ModuleBuilder::operand(const void *Entry, size_t Size) {
  return append(Operands, Entry, Size);
}

uint32_t ModuleBuilder::moduleDirective(llvm::StringRef Name) {
  BrigDirectiveModule D{};
  D.base = {sizeof D, BRIG_KIND_DIRECTIVE_MODULE};
  D.name = data(Name);
  D.hsailMajor = 1;
  D.profile = BRIG_PROFILE_FULL;
  D.machineModel = BRIG_MACHINE_LARGE;
  D.defaultFloatRound = BRIG_ROUND_FLOAT_DEFAULT;
  return code(D);
}

uint32_t ModuleBuilder::reg(unsigned Kind, unsigned Num) {
  BrigOperandRegister R{};
  R.base = {sizeof R, BRIG_KIND_OPERAND_REGISTER};
  R.regKind = uint16_t(Kind);
  R.regNum = uint16_t(Num);
  return operand(R);
}

uint32_t ModuleBuilder::immU32(uint32_t V) {
  BrigOperandConstantBytes C{};
  C.base = {sizeof C, BRIG_KIND_OPERAND_CONSTANT_BYTES};
  C.type = BRIG_TYPE_U32;
  C.bytes = data(llvm::StringRef(reinterpret_cast<const char *>(&V), 4));
  return operand(C);
}

uint32_t ModuleBuilder::address(uint32_t Symbol, uint32_t Reg,
                                uint64_t Offset) {
  BrigOperandAddress A{};
  A.base = {sizeof A, BRIG_KIND_OPERAND_ADDRESS};
  A.symbol = Symbol;
  A.reg = Reg;
  A.offset = {uint32_t(Offset), uint32_t(Offset >> 32)};
  return operand(A);
}

uint32_t ModuleBuilder::codeRef(uint32_t Ref) {
  BrigOperandCodeRef R{};
  R.base = {sizeof R, BRIG_KIND_OPERAND_CODE_REF};
  R.ref = Ref;
  return operand(R);
}

uint32_t ModuleBuilder::inst(unsigned Opcode, unsigned Type,
                             llvm::ArrayRef<uint32_t> Ops, unsigned Kind) {
  // Room for the largest instruction format, zero filled.
  uint8_t Buf[24] = {};
  unsigned Size = 12;
  switch (Kind) {
  case BRIG_KIND_INST_BASIC:
    Size = sizeof(BrigInstBasic);
    break;
  case BRIG_KIND_INST_BR:
    Size = sizeof(BrigInstBr);
    Buf[12] = BRIG_WIDTH_ALL;
    break;
  case BRIG_KIND_INST_MEM:
    Size = sizeof(BrigInstMem);
    Buf[12] = BRIG_SEGMENT_KERNARG;
    Buf[13] = BRIG_ALIGNMENT_4;
    Buf[15] = BRIG_WIDTH_1;
    break;
  default:
    Size = 20;
    break;
  }
  BrigInstBase B{};
  B.base = {uint16_t(Size), uint16_t(Kind)};
  B.opcode = uint16_t(Opcode);
  B.type = uint16_t(Type);
  B.operands = offsets(Ops);
  std::memcpy(Buf, &B, sizeof B);
  return code(Buf, Size);
}

uint32_t ModuleBuilder::kernel(llvm::StringRef Name, unsigned InArgs) {
  BrigDirectiveExecutable E{};
  E.base = {sizeof E, BRIG_KIND_DIRECTIVE_KERNEL};
  E.name = data(Name);
  E.inArgCount = uint16_t(InArgs);
  E.modifier = BRIG_EXECUTABLE_DEFINITION;
  E.linkage = BRIG_LINKAGE_PROGRAM;
  return code(E);
}

BrigDirectiveExecutable &ModuleBuilder::executable(uint32_t Off) {
  return *reinterpret_cast<BrigDirectiveExecutable *>(&Code[Off]);
}

void ModuleBuilder::patchExecutable(uint32_t Off, uint32_t FirstInArg,
                                    uint32_t FirstCode, uint32_t Next) {
  BrigDirectiveExecutable E;
  std::memcpy(&E, &Code[Off], sizeof E);
  E.firstInArg = FirstInArg;
  E.firstCodeBlockEntry = FirstCode;
  E.nextModuleEntry = Next;
  std::memcpy(&Code[Off], &E, sizeof E);
}

AlignedBytes ModuleBuilder::finish(uint64_t *Bases) const {
  struct Sec {
    const std::string *Body;
    llvm::StringRef Name;
  } Secs[3] = {
      {&Data, "hsa_data"}, {&Code, "hsa_code"}, {&Operands, "hsa_operand"}};
  auto Align16 = [](uint64_t V) { return (V + 15) & ~uint64_t(15); };
  uint64_t IndexOff = sizeof(BrigModuleHeader);
  uint64_t Off = Align16(IndexOff + 3 * 8);
  uint64_t SecOff[3];
  for (int I = 0; I < 3; ++I) {
    SecOff[I] = Off;
    Off = Align16(Off + Secs[I].Body->size());
  }
  uint64_t Total = Off;
  std::vector<uint8_t> Out(Total, 0);
  BrigModuleHeader H{};
  std::memcpy(H.identification, BrigMagic, 8);
  H.brigMajor = BRIG_VERSION_BRIG_MAJOR;
  H.brigMinor = BRIG_VERSION_BRIG_MINOR;
  H.byteCount = Total;
  H.sectionCount = 3;
  H.sectionIndex = IndexOff;
  std::memcpy(Out.data(), &H, sizeof H);
  for (int I = 0; I < 3; ++I) {
    std::memcpy(Out.data() + IndexOff + 8 * I, &SecOff[I], 8);
    std::string Body = *Secs[I].Body;
    uint64_t Count = Body.size();
    uint32_t HSize = headerSize(Secs[I].Name);
    uint32_t NameLen = uint32_t(Secs[I].Name.size());
    std::memcpy(&Body[0], &Count, 8);
    std::memcpy(&Body[8], &HSize, 4);
    std::memcpy(&Body[12], &NameLen, 4);
    std::memcpy(&Body[16], Secs[I].Name.data(), NameLen);
    std::memcpy(Out.data() + SecOff[I], Body.data(), Body.size());
    if (Bases)
      Bases[I] = SecOff[I];
  }
  return AlignedBytes(Out);
}

SampleModule buildSampleModule() {
  SampleModule S;
  ModuleBuilder B;
  B.moduleDirective("&m");
  S.Kernel = B.kernel("&k", 1);
  S.KernelName = S.Kernel ? B.executable(S.Kernel).name : 0;
  BrigDirectiveVariable V{};
  V.base = {sizeof V, BRIG_KIND_DIRECTIVE_VARIABLE};
  V.name = B.data("%a");
  V.type = BRIG_TYPE_U32;
  V.segment = BRIG_SEGMENT_KERNARG;
  V.align = BRIG_ALIGNMENT_4;
  V.modifier = BRIG_VARIABLE_DEFINITION;
  V.linkage = BRIG_LINKAGE_ARG;
  V.allocation = BRIG_ALLOCATION_AUTOMATIC;
  S.Arg = B.code(V);
  uint32_t Body = B.nextCode();
  S.Reg = B.reg(BRIG_REGISTER_KIND_SINGLE, 1);
  uint32_t R2 = B.reg(BRIG_REGISTER_KIND_SINGLE, 2);
  S.Imm = B.immU32(3);
  S.Addr = B.address(S.Arg, 0, 0);
  S.Add = B.inst(BRIG_OPCODE_ADD, BRIG_TYPE_U32, {S.Reg, R2, S.Imm});
  S.AddOps = 0; // Filled below from the instruction.
  BrigDirectiveLabel L{};
  L.base = {sizeof L, BRIG_KIND_DIRECTIVE_LABEL};
  L.name = B.data("@L");
  S.Label = B.code(L);
  S.Br = B.inst(BRIG_OPCODE_BR, BRIG_TYPE_NONE, {B.codeRef(S.Label)},
                BRIG_KIND_INST_BR);
  S.Ld = B.inst(BRIG_OPCODE_LD, BRIG_TYPE_U32, {S.Reg, S.Addr},
                BRIG_KIND_INST_MEM);
  B.inst(BRIG_OPCODE_RET, BRIG_TYPE_NONE, {});
  B.patchExecutable(S.Kernel, S.Arg, Body, B.nextCode());
  uint64_t Bases[3];
  S.Bytes = B.finish(Bases);
  S.DataBase = Bases[0];
  S.CodeBase = Bases[1];
  S.OperandBase = Bases[2];
  S.AddOps = S.Bytes.get<uint32_t>(S.CodeBase + S.Add +
                                   offsetof(BrigInstBase, operands));
  return S;
}

} // namespace openhsa::brig::test
