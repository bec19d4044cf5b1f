//===- brig/asm/BrigEmitter.cpp - Program to BRIG bytes -------------------===//

#include "brig/asm/BrigEmitter.h"

#include "brig/asm/Mnemonics.h"

#include "llvm/ADT/Twine.h"

#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace openhsa::brig::assembler {

namespace {

/// One BRIG section being built: its bytes, starting with the header.
class Section {
public:
  explicit Section(llvm::StringRef Name) {
    // The header is the fixed part of BrigSectionHeader followed by the
    // name, padded to a multiple of 4 bytes.
    size_t Fixed = offsetof(BrigSectionHeader, name);
    size_t Hdr = (sizeof(BrigSectionHeader) - 1 + Name.size() + 3) & ~size_t(3);
    Bytes.assign(Hdr, 0);
    uint32_t HB = uint32_t(Hdr), NL = uint32_t(Name.size());
    std::memcpy(&Bytes[offsetof(BrigSectionHeader, headerByteCount)], &HB, 4);
    std::memcpy(&Bytes[offsetof(BrigSectionHeader, nameLength)], &NL, 4);
    std::memcpy(&Bytes[Fixed], Name.data(), Name.size());
  }

  uint32_t size() const { return uint32_t(Bytes.size()); }

  template <typename T> uint32_t append(const T &V) {
    uint32_t Off = size();
    const auto *P = reinterpret_cast<const uint8_t *>(&V);
    Bytes.insert(Bytes.end(), P, P + sizeof(T));
    return Off;
  }
  uint32_t appendRaw(const void *P, size_t N) {
    uint32_t Off = size();
    const auto *B = static_cast<const uint8_t *>(P);
    Bytes.insert(Bytes.end(), B, B + N);
    return Off;
  }
  template <typename T> T read(uint32_t Off) const {
    T V;
    std::memcpy(&V, &Bytes[Off], sizeof(T));
    return V;
  }
  template <typename T> void write(uint32_t Off, const T &V) {
    std::memcpy(&Bytes[Off], &V, sizeof(T));
  }
  uint32_t read32(uint32_t Off) const { return read<uint32_t>(Off); }
  void write32(uint32_t Off, uint32_t V) { write(Off, V); }

  /// Finalizes the header's byteCount and returns the bytes.
  const std::vector<uint8_t> &finish() {
    uint64_t BC = Bytes.size();
    std::memcpy(&Bytes[0], &BC, 8);
    return Bytes;
  }

private:
  std::vector<uint8_t> Bytes;
};

template <typename T> T zeroed() {
  T V;
  std::memset(&V, 0, sizeof V);
  return V;
}

BrigBase base(uint16_t Size, uint16_t Kind) { return BrigBase{Size, Kind}; }

BrigUInt64 u64(uint64_t V) {
  return BrigUInt64{uint32_t(V & 0xffffffffu), uint32_t(V >> 32)};
}

bool isLocalName(llvm::StringRef N) { return N.starts_with("%"); }

struct Symbol {
  uint32_t Offset;
  uint16_t Kind;
  bool IsDef = true;
};

using Scope = std::map<std::string, Symbol, std::less<>>;

/// A location holding a code offset that may need rewriting.
struct Slot {
  bool InData; // data section (list element) or operand section
  uint32_t Offset;
};

/// A module-level directive, for redirecting declarations to definitions.
struct TopEntry {
  uint32_t Offset;
  uint16_t Kind;
  std::string Name;
  bool IsDef;
  uint8_t Linkage;
};

struct PendingLabel {
  std::vector<Slot> Refs;
  SourceLoc FirstLoc;
};

class Emitter {
public:
  Emitter() : Data("hsa_data"), Code("hsa_code"), Opnds("hsa_operand") {}

  llvm::Expected<std::vector<uint8_t>> run(const Program &P);

private:
  bool fail(SourceLoc L, const llvm::Twine &Msg) {
    if (!Failed) {
      Failed = true;
      ErrLoc = L;
      ErrMsg = Msg.str();
    }
    return false;
  }

  uint32_t addString(llvm::StringRef S);
  uint32_t addList(const std::vector<uint32_t> &Offsets);

  const Symbol *find(llvm::StringRef Name,
                     std::optional<uint16_t> Kind = std::nullopt) const;
  bool declareGlobal(const std::string &Name, uint32_t Off, uint16_t Kind,
                     bool IsDef, SourceLoc L);
  bool declareIn(Scope &S, const std::string &Name, uint32_t Off, uint16_t Kind,
                 SourceLoc L);
  bool addLocalSymbol(const std::string &Name, uint32_t Off, uint16_t Kind,
                      bool IsDef, uint8_t Segment, SourceLoc L);

  bool emitStmt(const Stmt &S);
  bool emitStmts(const std::vector<Stmt> &Body);
  bool emitModule(const ModuleDirective &M);
  bool emitExtension(const ExtensionDirective &E);
  bool emitPragma(const PragmaDirective &P);
  bool emitControl(const ControlDirective &C);
  bool emitLoc(const LocDirective &L);
  bool emitLabel(const LabelDef &L);
  bool emitComment(const CommentDirective &C);
  bool emitVariable(const Variable &V);
  uint32_t emitParameter(const Variable &V);
  bool emitFbarrier(const Fbarrier &F);
  bool emitExecutable(const Executable &E);
  bool emitArgBlock(const ArgBlock &A);
  bool emitInstruction(const Instruction &I);
  bool emitOperand(const Operand &O, uint32_t &Off);
  void refLabel(const std::string &Name, Slot S, SourceLoc L);
  void patchDeclarations();

  Section Data, Code, Opnds;
  std::map<std::string, uint32_t, std::less<>> Strings;

  Scope Global;
  std::unique_ptr<Scope> Func;
  std::unique_ptr<Scope> Arg;
  std::map<std::string, uint32_t> Labels;
  std::map<uint32_t, PendingLabel> Pending; // keyed by label name offset

  std::vector<Slot> CodeRefs;
  std::vector<TopEntry> Top;

  bool Failed = false;
  SourceLoc ErrLoc;
  std::string ErrMsg;
};

uint32_t Emitter::addString(llvm::StringRef S) {
  auto It = Strings.find(S);
  if (It != Strings.end())
    return It->second;
  uint32_t Off = Data.size();
  uint32_t Len = uint32_t(S.size());
  Data.append(Len);
  Data.appendRaw(S.data(), S.size());
  static const uint8_t Zeros[4] = {0, 0, 0, 0};
  Data.appendRaw(Zeros, (4 - S.size() % 4) % 4);
  Strings.emplace(S.str(), Off);
  return Off;
}

uint32_t Emitter::addList(const std::vector<uint32_t> &Offsets) {
  uint32_t Off = Data.size();
  uint32_t Len = uint32_t(Offsets.size() * 4);
  Data.append(Len);
  if (!Offsets.empty())
    Data.appendRaw(Offsets.data(), Offsets.size() * 4);
  return Off;
}

const Symbol *Emitter::find(llvm::StringRef Name,
                            std::optional<uint16_t> Kind) const {
  const Scope *Scopes[] = {Arg.get(), Func.get(), &Global};
  for (const Scope *S : Scopes) {
    if (!S)
      continue;
    auto It = S->find(Name);
    if (It != S->end() && (!Kind || It->second.Kind == *Kind))
      return &It->second;
  }
  return nullptr;
}

// A global name may be declared any number of times and defined once, always
// as the same kind of entity; the first declaration stays the one that
// references bind to (definitions replace it when the module is finished).
bool Emitter::declareGlobal(const std::string &Name, uint32_t Off,
                            uint16_t Kind, bool IsDef, SourceLoc L) {
  auto [It, Inserted] = Global.emplace(Name, Symbol{Off, Kind, IsDef});
  if (Inserted)
    return true;
  Symbol &Old = It->second;
  if (Old.Kind != Kind || Kind == BRIG_KIND_DIRECTIVE_MODULE ||
      Kind == BRIG_KIND_DIRECTIVE_SIGNATURE || (Old.IsDef && IsDef))
    return fail(L, "invalid identifier redefinition: " + Name);
  Old.IsDef = Old.IsDef || IsDef;
  return true;
}

bool Emitter::declareIn(Scope &S, const std::string &Name, uint32_t Off,
                        uint16_t Kind, SourceLoc L) {
  if (!S.emplace(Name, Symbol{Off, Kind, true}).second)
    return fail(L, "invalid variable redefinition: " + Name);
  return true;
}

bool Emitter::addLocalSymbol(const std::string &Name, uint32_t Off,
                             uint16_t Kind, bool IsDef, uint8_t Segment,
                             SourceLoc L) {
  if (!isLocalName(Name))
    return declareGlobal(Name, Off, Kind, IsDef, L);
  if (!Arg && !Func)
    return true; // not visible anywhere (e.g. outside any code block)
  if (Segment != BRIG_SEGMENT_ARG)
    return !Func || declareIn(*Func, Name, Off, Kind, L);
  if (!Arg)
    return fail(L, "no argument scope available at this location");
  return declareIn(*Arg, Name, Off, Kind, L);
}

bool Emitter::emitStmts(const std::vector<Stmt> &Body) {
  for (const Stmt &S : Body)
    if (!emitStmt(S))
      return false;
  return true;
}

bool Emitter::emitStmt(const Stmt &S) {
  return std::visit(
      [&](const auto &N) -> bool {
        using T = std::decay_t<decltype(N)>;
        if constexpr (std::is_same_v<T, ModuleDirective>)
          return emitModule(N);
        else if constexpr (std::is_same_v<T, ExtensionDirective>)
          return emitExtension(N);
        else if constexpr (std::is_same_v<T, PragmaDirective>)
          return emitPragma(N);
        else if constexpr (std::is_same_v<T, ControlDirective>)
          return emitControl(N);
        else if constexpr (std::is_same_v<T, LocDirective>)
          return emitLoc(N);
        else if constexpr (std::is_same_v<T, LabelDef>)
          return emitLabel(N);
        else if constexpr (std::is_same_v<T, CommentDirective>)
          return emitComment(N);
        else if constexpr (std::is_same_v<T, Variable>)
          return emitVariable(N);
        else if constexpr (std::is_same_v<T, Fbarrier>)
          return emitFbarrier(N);
        else if constexpr (std::is_same_v<T, Executable>)
          return emitExecutable(N);
        else if constexpr (std::is_same_v<T, ArgBlock>)
          return emitArgBlock(N);
        else
          return emitInstruction(N);
      },
      S.V);
}

bool Emitter::emitModule(const ModuleDirective &M) {
  auto D = zeroed<BrigDirectiveModule>();
  uint32_t Off = Code.append(D);
  D.base = base(sizeof D, BRIG_KIND_DIRECTIVE_MODULE);
  D.name = addString(M.Name);
  D.hsailMajor = M.Major;
  D.hsailMinor = M.Minor;
  D.profile = M.Profile;
  D.machineModel = M.MachineModel;
  D.defaultFloatRound = M.DefaultRound;
  Code.write(Off, D);
  if (!declareGlobal(M.Name, Off, BRIG_KIND_DIRECTIVE_MODULE, true, M.Loc))
    return false;
  Top.push_back(TopEntry{Off, BRIG_KIND_DIRECTIVE_MODULE, M.Name, true, 0});
  return true;
}

bool Emitter::emitExtension(const ExtensionDirective &E) {
  auto D = zeroed<BrigDirectiveExtension>();
  uint32_t Off = Code.append(D);
  D.base = base(sizeof D, BRIG_KIND_DIRECTIVE_EXTENSION);
  D.name = addString(E.Name);
  Code.write(Off, D);
  return true;
}

bool Emitter::emitPragma(const PragmaDirective &P) {
  std::vector<uint32_t> Offs;
  for (const Operand &O : P.Operands) {
    uint32_t Off = 0;
    if (!emitOperand(O, Off))
      return false;
    Offs.push_back(Off);
  }
  auto D = zeroed<BrigDirectivePragma>();
  uint32_t Off = Code.append(D);
  D.base = base(sizeof D, BRIG_KIND_DIRECTIVE_PRAGMA);
  D.operands = addList(Offs);
  Code.write(Off, D);
  return true;
}

bool Emitter::emitControl(const ControlDirective &C) {
  auto D = zeroed<BrigDirectiveControl>();
  uint32_t Off = Code.append(D);
  D.base = base(sizeof D, BRIG_KIND_DIRECTIVE_CONTROL);
  D.control = C.Control;
  std::vector<uint32_t> Offs;
  for (const Operand &O : C.Operands) {
    uint32_t OO = 0;
    if (!emitOperand(O, OO))
      return false;
    Offs.push_back(OO);
  }
  D.operands = addList(Offs);
  Code.write(Off, D);
  return true;
}

bool Emitter::emitLoc(const LocDirective &L) {
  auto D = zeroed<BrigDirectiveLoc>();
  uint32_t Off = Code.append(D);
  D.base = base(sizeof D, BRIG_KIND_DIRECTIVE_LOC);
  D.filename = addString(L.FileName);
  D.line = L.Line;
  D.column = L.Column;
  Code.write(Off, D);
  return true;
}

bool Emitter::emitComment(const CommentDirective &C) {
  auto D = zeroed<BrigDirectiveComment>();
  uint32_t Off = Code.append(D);
  D.base = base(sizeof D, BRIG_KIND_DIRECTIVE_COMMENT);
  D.name = addString(C.Text);
  Code.write(Off, D);
  return true;
}

bool Emitter::emitLabel(const LabelDef &L) {
  if (!Func)
    return fail(L.Loc, "labels cannot be used outside of code blocks");
  if (Labels.count(L.Name))
    return fail(L.Loc, "duplicate label declaration");
  auto D = zeroed<BrigDirectiveLabel>();
  uint32_t Off = Code.append(D);
  D.base = base(sizeof D, BRIG_KIND_DIRECTIVE_LABEL);
  D.name = addString(L.Name);
  Code.write(Off, D);
  Labels.emplace(L.Name, Off);
  auto It = Pending.find(D.name);
  if (It != Pending.end()) {
    for (const Slot &S : It->second.Refs)
      (S.InData ? Data : Opnds).write32(S.Offset, Off);
    Pending.erase(It);
  }
  return true;
}

void Emitter::refLabel(const std::string &Name, Slot S, SourceLoc L) {
  auto It = Labels.find(Name);
  if (It != Labels.end()) {
    (S.InData ? Data : Opnds).write32(S.Offset, It->second);
    return;
  }
  uint32_t NameOff = addString(Name);
  PendingLabel &P = Pending[NameOff];
  if (P.Refs.empty())
    P.FirstLoc = L;
  P.Refs.push_back(S);
}

bool Emitter::emitVariable(const Variable &V) {
  auto D = zeroed<BrigDirectiveVariable>();
  uint32_t Off = Code.append(D);
  D.base = base(sizeof D, BRIG_KIND_DIRECTIVE_VARIABLE);
  D.name = addString(V.Name);
  D.segment = V.Segment;
  D.type = V.IsArray ? uint16_t(V.Type | BRIG_TYPE_ARRAY) : V.Type;
  D.align = uint8_t(naturalAlignment(V.Type));
  D.linkage = V.Segment == BRIG_SEGMENT_ARG ? BRIG_LINKAGE_ARG
              : Func                        ? BRIG_LINKAGE_FUNCTION
                                            : BRIG_LINKAGE_MODULE;
  D.allocation = V.Segment == BRIG_SEGMENT_GLOBAL ? BRIG_ALLOCATION_PROGRAM
                 : V.Segment == BRIG_SEGMENT_READONLY
                     ? BRIG_ALLOCATION_AGENT
                     : BRIG_ALLOCATION_AUTOMATIC;
  if (!addLocalSymbol(V.Name, Off, BRIG_KIND_DIRECTIVE_VARIABLE, !V.IsDecl,
                      V.Segment, V.Loc))
    return false;
  if (V.Align)
    D.align = *V.Align;
  if (V.Linkage)
    D.linkage = *V.Linkage;
  if (V.Allocation)
    D.allocation = *V.Allocation;
  if (V.IsArray)
    D.dim = u64(V.Dim);
  if (V.Init) {
    uint32_t IO = 0;
    if (!emitOperand(*V.Init, IO))
      return false;
    D.init = IO;
  }
  D.modifier = uint8_t((V.IsDecl ? 0 : BRIG_VARIABLE_DEFINITION) |
                       (V.IsConst ? BRIG_VARIABLE_CONST : 0));
  Code.write(Off, D);
  if (!Func && !Arg)
    Top.push_back(TopEntry{Off, BRIG_KIND_DIRECTIVE_VARIABLE, V.Name, !V.IsDecl,
                           D.linkage});
  return true;
}

uint32_t Emitter::emitParameter(const Variable &V) {
  auto D = zeroed<BrigDirectiveVariable>();
  uint32_t Off = Code.append(D);
  D.base = base(sizeof D, BRIG_KIND_DIRECTIVE_VARIABLE);
  D.name = addString(V.Name);
  D.segment = V.Segment;
  D.type = V.IsArray ? uint16_t(V.Type | BRIG_TYPE_ARRAY) : V.Type;
  D.align = uint8_t(V.Align ? *V.Align : naturalAlignment(V.Type));
  if (V.IsArray)
    D.dim = u64(V.Dim);
  if (V.Init) {
    uint32_t IO = 0;
    if (emitOperand(*V.Init, IO))
      D.init = IO;
  }
  D.linkage = BRIG_LINKAGE_NONE;
  D.allocation = BRIG_ALLOCATION_AUTOMATIC;
  D.modifier =
      uint8_t(BRIG_VARIABLE_DEFINITION | (V.IsConst ? BRIG_VARIABLE_CONST : 0));
  Code.write(Off, D);
  return Off;
}

bool Emitter::emitFbarrier(const Fbarrier &F) {
  auto D = zeroed<BrigDirectiveFbarrier>();
  uint32_t Off = Code.append(D);
  D.base = base(sizeof D, BRIG_KIND_DIRECTIVE_FBARRIER);
  D.name = addString(F.Name);
  if (isLocalName(F.Name)) {
    if (!Func)
      return fail(F.Loc, "local symbol declared at global scope");
    if (!declareIn(*Func, F.Name, Off, BRIG_KIND_DIRECTIVE_FBARRIER, F.Loc))
      return false;
  } else {
    if (!declareGlobal(F.Name, Off, BRIG_KIND_DIRECTIVE_FBARRIER, !F.IsDecl,
                       F.Loc))
      return false;
  }
  if (F.IsModuleLevel)
    D.linkage = F.Linkage ? *F.Linkage : uint8_t(BRIG_LINKAGE_MODULE);
  else
    D.linkage = BRIG_LINKAGE_FUNCTION;
  D.modifier = F.IsDecl ? 0 : BRIG_VARIABLE_DEFINITION;
  Code.write(Off, D);
  if (F.IsModuleLevel)
    Top.push_back(TopEntry{Off, BRIG_KIND_DIRECTIVE_FBARRIER, F.Name, !F.IsDecl,
                           D.linkage});
  return true;
}

bool Emitter::emitExecutable(const Executable &E) {
  auto D = zeroed<BrigDirectiveExecutable>();
  uint32_t Off = Code.append(D);
  D.base = base(sizeof D, E.Kind);
  D.name = addString(E.Name);
  bool IsDef = E.Kind == BRIG_KIND_DIRECTIVE_SIGNATURE || !E.IsDecl;
  if (!declareGlobal(E.Name, Off, E.Kind, IsDef, E.Loc))
    return false;
  D.firstInArg = D.firstCodeBlockEntry = D.nextModuleEntry = Code.size();
  if (E.Linkage)
    D.linkage = *E.Linkage;
  else if (E.Kind != BRIG_KIND_DIRECTIVE_SIGNATURE)
    D.linkage = BRIG_LINKAGE_MODULE;

  std::vector<std::pair<const Variable *, uint32_t>> Params;
  for (const Variable &V : E.OutArgs) {
    Params.emplace_back(&V, emitParameter(V));
    ++D.outArgCount;
    D.firstInArg = D.firstCodeBlockEntry = D.nextModuleEntry = Code.size();
  }
  for (const Variable &V : E.InArgs) {
    Params.emplace_back(&V, emitParameter(V));
    ++D.inArgCount;
    D.firstCodeBlockEntry = D.nextModuleEntry = Code.size();
  }
  if (Failed)
    return false;

  D.modifier = IsDef ? BRIG_EXECUTABLE_DEFINITION : 0;
  if (!E.HasBody) {
    Code.write(Off, D);
  } else {
    D.firstCodeBlockEntry = Code.size();
    Func = std::make_unique<Scope>();
    Labels.clear();
    Pending.clear();
    for (auto &[V, POff] : Params) {
      auto PD = Code.read<BrigDirectiveVariable>(POff);
      PD.linkage = BRIG_LINKAGE_FUNCTION;
      PD.allocation = BRIG_ALLOCATION_AUTOMATIC;
      Code.write(POff, PD);
      if (!declareIn(*Func, V->Name, POff, BRIG_KIND_DIRECTIVE_VARIABLE,
                     V->Loc))
        return false;
    }
    // Write the directive now so that the body can refer to it (recursion).
    Code.write(Off, D);
    if (!emitStmts(E.Body))
      return false;
    if (!Pending.empty())
      return fail(Pending.begin()->second.FirstLoc, "label doesn't exist");
    D.nextModuleEntry = Code.size();
    Code.write(Off, D);
    Func.reset();
    Labels.clear();
  }
  if (E.Kind != BRIG_KIND_DIRECTIVE_SIGNATURE)
    Top.push_back(TopEntry{Off, E.Kind, E.Name, IsDef, D.linkage});
  return true;
}

bool Emitter::emitArgBlock(const ArgBlock &A) {
  if (Arg)
    return fail(A.Loc, "nested argument scope is not allowed");
  auto S = BrigDirectiveArgBlock{
      base(sizeof(BrigDirectiveArgBlock), BRIG_KIND_DIRECTIVE_ARG_BLOCK_START)};
  Code.append(S);
  Arg = std::make_unique<Scope>();
  if (!emitStmts(A.Body))
    return false;
  Arg.reset();
  auto End = BrigDirectiveArgBlock{
      base(sizeof(BrigDirectiveArgBlock), BRIG_KIND_DIRECTIVE_ARG_BLOCK_END)};
  Code.append(End);
  return true;
}

static size_t instSize(uint16_t Kind) {
  switch (Kind) {
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
  default:
    return sizeof(BrigInstBasic);
  }
}

bool Emitter::emitInstruction(const Instruction &I) {
  size_t Size = instSize(I.Kind);
  std::vector<uint8_t> Buf(Size, 0);
  uint32_t Off = Code.appendRaw(Buf.data(), Size);

  // Operands are created in source order; for calls the target comes first
  // in the text but second in the operand list.
  std::vector<uint32_t> Offs(I.Operands.size(), 0);
  bool IsCall = I.Opcode == BRIG_OPCODE_CALL || I.Opcode == BRIG_OPCODE_SCALL ||
                I.Opcode == BRIG_OPCODE_ICALL;
  std::vector<size_t> Order;
  if (IsCall && I.Operands.size() >= 3) {
    Order = {1, 0, 2};
    for (size_t K = 3; K < I.Operands.size(); ++K)
      Order.push_back(K);
  } else {
    for (size_t K = 0; K < I.Operands.size(); ++K)
      Order.push_back(K);
  }
  for (size_t K : Order)
    if (!emitOperand(I.Operands[K], Offs[K]))
      return false;

  BrigInstBase B;
  B.base = base(uint16_t(Size), I.Kind);
  B.opcode = I.Opcode;
  B.type = I.Type;
  B.operands = addList(Offs);

  switch (I.Kind) {
  case BRIG_KIND_INST_ADDR: {
    auto X = zeroed<BrigInstAddr>();
    X.base = B;
    X.segment = I.Segment;
    Code.write(Off, X);
    break;
  }
  case BRIG_KIND_INST_ATOMIC: {
    auto X = zeroed<BrigInstAtomic>();
    X.base = B;
    X.segment = I.Segment;
    X.memoryOrder = I.MemoryOrder;
    X.memoryScope = I.MemoryScope;
    X.atomicOperation = I.AtomicOp;
    X.equivClass = I.EquivClass;
    Code.write(Off, X);
    break;
  }
  case BRIG_KIND_INST_BR: {
    auto X = zeroed<BrigInstBr>();
    X.base = B;
    X.width = I.Width;
    Code.write(Off, X);
    break;
  }
  case BRIG_KIND_INST_CMP: {
    auto X = zeroed<BrigInstCmp>();
    X.base = B;
    X.sourceType = I.SourceType;
    X.modifier = I.Ftz ? BRIG_ALU_FTZ : 0;
    X.compare = I.Compare;
    X.pack = I.Pack;
    Code.write(Off, X);
    break;
  }
  case BRIG_KIND_INST_CVT: {
    auto X = zeroed<BrigInstCvt>();
    X.base = B;
    X.sourceType = I.SourceType;
    X.modifier = I.Ftz ? BRIG_ALU_FTZ : 0;
    X.round = I.Round;
    Code.write(Off, X);
    break;
  }
  case BRIG_KIND_INST_IMAGE: {
    auto X = zeroed<BrigInstImage>();
    X.base = B;
    X.imageType = I.ImageType;
    X.coordType = I.CoordType;
    X.geometry = I.Geometry;
    X.equivClass = I.EquivClass;
    Code.write(Off, X);
    break;
  }
  case BRIG_KIND_INST_LANE: {
    auto X = zeroed<BrigInstLane>();
    X.base = B;
    X.sourceType = I.SourceType;
    X.width = I.Width;
    Code.write(Off, X);
    break;
  }
  case BRIG_KIND_INST_MEM: {
    auto X = zeroed<BrigInstMem>();
    X.base = B;
    X.segment = I.Segment;
    X.align = I.Align;
    X.equivClass = I.EquivClass;
    X.width = I.Width;
    X.modifier = I.IsConst ? BRIG_MEMORY_CONST : 0;
    Code.write(Off, X);
    break;
  }
  case BRIG_KIND_INST_MEM_FENCE: {
    auto X = zeroed<BrigInstMemFence>();
    X.base = B;
    X.memoryOrder = I.MemoryOrder;
    X.globalSegmentMemoryScope = I.GlobalScope;
    X.groupSegmentMemoryScope = I.GroupScope;
    X.imageSegmentMemoryScope = I.ImageScope;
    Code.write(Off, X);
    break;
  }
  case BRIG_KIND_INST_MOD: {
    auto X = zeroed<BrigInstMod>();
    X.base = B;
    X.modifier = I.Ftz ? BRIG_ALU_FTZ : 0;
    X.pack = I.Pack;
    X.round = I.Round;
    Code.write(Off, X);
    break;
  }
  case BRIG_KIND_INST_QUERY_IMAGE: {
    auto X = zeroed<BrigInstQueryImage>();
    X.base = B;
    X.imageType = I.ImageType;
    X.geometry = I.Geometry;
    X.query = I.Query;
    Code.write(Off, X);
    break;
  }
  case BRIG_KIND_INST_QUERY_SAMPLER: {
    auto X = zeroed<BrigInstQuerySampler>();
    X.base = B;
    X.query = I.Query;
    Code.write(Off, X);
    break;
  }
  case BRIG_KIND_INST_QUEUE: {
    auto X = zeroed<BrigInstQueue>();
    X.base = B;
    X.segment = I.Segment;
    X.memoryOrder = I.MemoryOrder;
    Code.write(Off, X);
    break;
  }
  case BRIG_KIND_INST_SEG: {
    auto X = zeroed<BrigInstSeg>();
    X.base = B;
    X.segment = I.Segment;
    Code.write(Off, X);
    break;
  }
  case BRIG_KIND_INST_SEG_CVT: {
    auto X = zeroed<BrigInstSegCvt>();
    X.base = B;
    X.sourceType = I.SourceType;
    X.segment = I.Segment;
    X.modifier = I.NoNull ? BRIG_SEG_CVT_NONULL : 0;
    Code.write(Off, X);
    break;
  }
  case BRIG_KIND_INST_SIGNAL: {
    auto X = zeroed<BrigInstSignal>();
    X.base = B;
    X.signalType = I.SignalType;
    X.memoryOrder = I.MemoryOrder;
    X.signalOperation = I.AtomicOp;
    Code.write(Off, X);
    break;
  }
  case BRIG_KIND_INST_SOURCE_TYPE: {
    auto X = zeroed<BrigInstSourceType>();
    X.base = B;
    X.sourceType = I.SourceType;
    Code.write(Off, X);
    break;
  }
  default: {
    BrigInstBasic X{B};
    Code.write(Off, X);
    break;
  }
  }
  return true;
}

bool Emitter::emitOperand(const Operand &O, uint32_t &Off) {
  using K = Operand::Kind;
  switch (O.K) {
  case K::Register: {
    BrigOperandRegister R{base(sizeof R, BRIG_KIND_OPERAND_REGISTER), O.RegKind,
                          O.RegNum};
    Off = Opnds.append(R);
    return true;
  }
  case K::Constant: {
    auto C = zeroed<BrigOperandConstantBytes>();
    C.base = base(sizeof C, BRIG_KIND_OPERAND_CONSTANT_BYTES);
    C.type = O.Type;
    Off = Opnds.append(C);
    C.bytes = addString(O.Bytes);
    Opnds.write(Off, C);
    return true;
  }
  case K::Wavesize: {
    BrigOperandWavesize W{base(sizeof W, BRIG_KIND_OPERAND_WAVESIZE)};
    Off = Opnds.append(W);
    return true;
  }
  case K::Address: {
    uint32_t RegOff = 0;
    if (O.HasReg) {
      BrigOperandRegister R{base(sizeof R, BRIG_KIND_OPERAND_REGISTER),
                            O.RegKind, O.RegNum};
      RegOff = Opnds.append(R);
    }
    uint32_t Sym = 0;
    if (!O.Name.empty()) {
      const Symbol *S = find(O.Name, BRIG_KIND_DIRECTIVE_VARIABLE);
      if (!S)
        return fail(O.Loc, "symbol not found: " + O.Name);
      Sym = S->Offset;
    }
    auto A = zeroed<BrigOperandAddress>();
    A.base = base(sizeof A, BRIG_KIND_OPERAND_ADDRESS);
    A.symbol = Sym;
    A.reg = RegOff;
    A.offset = u64(O.Offset);
    Off = Opnds.append(A);
    if (Sym)
      CodeRefs.push_back(
          Slot{false, Off + uint32_t(offsetof(BrigOperandAddress, symbol))});
    return true;
  }
  case K::LabelRef: {
    if (!Func)
      return fail(O.Loc, "labels cannot be used outside of code blocks");
    BrigOperandCodeRef R{base(sizeof R, BRIG_KIND_OPERAND_CODE_REF), 0};
    Off = Opnds.append(R);
    refLabel(O.Name,
             Slot{false, Off + uint32_t(offsetof(BrigOperandCodeRef, ref))},
             O.Loc);
    return true;
  }
  case K::CodeRef:
  case K::SignatureRef: {
    const Symbol *S = O.K == K::SignatureRef
                          ? find(O.Name, BRIG_KIND_DIRECTIVE_SIGNATURE)
                          : find(O.Name);
    if (!S)
      return fail(O.Loc, O.K == K::SignatureRef
                             ? "unknown signature: " + O.Name
                             : "identifier not found: " + O.Name);
    BrigOperandCodeRef R{base(sizeof R, BRIG_KIND_OPERAND_CODE_REF), S->Offset};
    Off = Opnds.append(R);
    CodeRefs.push_back(
        Slot{false, Off + uint32_t(offsetof(BrigOperandCodeRef, ref))});
    return true;
  }
  case K::OperandList:
  case K::ConstantList: {
    std::vector<uint32_t> Elems;
    for (const Operand &E : O.Elements) {
      uint32_t EO = 0;
      if (!emitOperand(E, EO))
        return false;
      Elems.push_back(EO);
    }
    if (O.K == K::OperandList) {
      BrigOperandOperandList L{base(sizeof L, BRIG_KIND_OPERAND_OPERAND_LIST),
                               0};
      Off = Opnds.append(L);
      L.elements = addList(Elems);
      Opnds.write(Off, L);
    } else {
      auto L = zeroed<BrigOperandConstantOperandList>();
      L.base = base(sizeof L, BRIG_KIND_OPERAND_CONSTANT_OPERAND_LIST);
      L.type = O.Type;
      Off = Opnds.append(L);
      L.elements = addList(Elems);
      Opnds.write(Off, L);
    }
    return true;
  }
  case K::ArgList:
  case K::FunctionList: {
    std::vector<uint32_t> Elems;
    for (size_t I = 0; I < O.Names.size(); ++I) {
      const std::string &N = O.Names[I];
      const Symbol *S = nullptr;
      if (O.K == K::ArgList) {
        S = find(N, BRIG_KIND_DIRECTIVE_VARIABLE);
        if (!S)
          return fail(O.NameLocs[I], "symbol not found: " + N);
      } else {
        S = find(N, BRIG_KIND_DIRECTIVE_FUNCTION);
        if (!S)
          S = find(N, BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION);
        if (!S)
          return fail(O.NameLocs[I], "function not found: " + N);
      }
      Elems.push_back(S->Offset);
    }
    BrigOperandCodeList L{base(sizeof L, BRIG_KIND_OPERAND_CODE_LIST), 0};
    Off = Opnds.append(L);
    L.elements = addList(Elems);
    Opnds.write(Off, L);
    for (size_t I = 0; I < Elems.size(); ++I)
      CodeRefs.push_back(Slot{true, L.elements + 4 + uint32_t(I * 4)});
    return true;
  }
  case K::LabelList: {
    if (!Func)
      return fail(O.Loc, "labels cannot be used outside of code blocks");
    BrigOperandCodeList L{base(sizeof L, BRIG_KIND_OPERAND_CODE_LIST), 0};
    Off = Opnds.append(L);
    L.elements = addList(std::vector<uint32_t>(O.Names.size(), 0));
    Opnds.write(Off, L);
    for (size_t I = 0; I < O.Names.size(); ++I)
      refLabel(O.Names[I], Slot{true, L.elements + 4 + uint32_t(I * 4)},
               O.NameLocs[I]);
    return true;
  }
  case K::String: {
    BrigOperandString S{base(sizeof S, BRIG_KIND_OPERAND_STRING), 0};
    Off = Opnds.append(S);
    S.string = addString(O.Name);
    Opnds.write(Off, S);
    return true;
  }
  case K::ConstantImage: {
    auto C = zeroed<BrigOperandConstantImage>();
    C.base = base(sizeof C, BRIG_KIND_OPERAND_CONSTANT_IMAGE);
    C.type = O.Type;
    C.geometry = O.Geometry;
    C.channelOrder = O.ChannelOrder;
    C.channelType = O.ChannelType;
    C.width = u64(O.Width);
    C.height = u64(O.Height);
    C.depth = u64(O.Depth);
    C.array = u64(O.Array);
    Off = Opnds.append(C);
    return true;
  }
  case K::ConstantSampler: {
    auto C = zeroed<BrigOperandConstantSampler>();
    C.base = base(sizeof C, BRIG_KIND_OPERAND_CONSTANT_SAMPLER);
    C.type = O.Type;
    C.coord = O.Coord;
    C.filter = O.Filter;
    C.addressing = O.Addressing;
    Off = Opnds.append(C);
    return true;
  }
  case K::Align: {
    auto A = zeroed<BrigOperandAlign>();
    A.base = base(sizeof A, BRIG_KIND_OPERAND_ALIGN);
    A.align = O.AlignValue;
    Off = Opnds.append(A);
    return true;
  }
  }
  return fail(O.Loc, "unsupported operand");
}

static bool isPatchable(uint16_t Kind) {
  return Kind == BRIG_KIND_DIRECTIVE_VARIABLE ||
         Kind == BRIG_KIND_DIRECTIVE_FBARRIER ||
         Kind == BRIG_KIND_DIRECTIVE_FUNCTION ||
         Kind == BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION ||
         Kind == BRIG_KIND_DIRECTIVE_KERNEL;
}

void Emitter::patchDeclarations() {
  // Program-linkage symbols: the definition wins over declarations.
  std::map<std::string, uint32_t> Overall;
  for (const TopEntry &T : Top) {
    if (!isPatchable(T.Kind) || T.Linkage != BRIG_LINKAGE_PROGRAM)
      continue;
    if (!T.IsDef)
      Overall.emplace(T.Name, T.Offset);
    else
      Overall[T.Name] = T.Offset;
  }
  std::map<uint32_t, uint32_t> DeclToDef;
  std::map<std::string, uint32_t> ModuleScope;
  for (const TopEntry &T : Top) {
    if (T.Kind == BRIG_KIND_DIRECTIVE_MODULE) {
      ModuleScope.clear();
      continue;
    }
    if (!isPatchable(T.Kind))
      continue;
    if (!T.IsDef) {
      bool First = ModuleScope.emplace(T.Name, T.Offset).second;
      if (First && T.Linkage == BRIG_LINKAGE_PROGRAM) {
        auto It = Overall.find(T.Name);
        if (It != Overall.end())
          DeclToDef[T.Offset] = It->second;
      }
    } else {
      auto It = ModuleScope.find(T.Name);
      if (It != ModuleScope.end())
        DeclToDef[It->second] = T.Offset;
      else
        ModuleScope.emplace(T.Name, T.Offset);
    }
  }
  if (DeclToDef.empty())
    return;
  for (const Slot &S : CodeRefs) {
    Section &Sec = S.InData ? Data : Opnds;
    uint32_t V = Sec.read32(S.Offset);
    auto It = DeclToDef.find(V);
    if (V != 0 && It != DeclToDef.end())
      Sec.write32(S.Offset, It->second);
  }
}

llvm::Expected<std::vector<uint8_t>> Emitter::run(const Program &P) {
  emitStmts(P.Stmts);
  if (Failed)
    return llvm::make_error<AsmError>(ErrLoc, ErrMsg);
  patchDeclarations();

  const std::vector<uint8_t> *Secs[] = {&Data.finish(), &Code.finish(),
                                        &Opnds.finish()};
  std::vector<uint8_t> Out(sizeof(BrigModuleHeader), 0);
  auto Pad = [&](size_t A) {
    while (Out.size() % A)
      Out.push_back(0);
  };
  Pad(8);
  uint64_t IndexPos = Out.size();
  Out.resize(Out.size() + 3 * sizeof(uint64_t), 0);
  uint64_t SecOff[3];
  for (int I = 0; I < 3; ++I) {
    Pad(16);
    SecOff[I] = Out.size();
    Out.insert(Out.end(), Secs[I]->begin(), Secs[I]->end());
    Pad(4);
  }
  Pad(16);
  std::memcpy(&Out[IndexPos], SecOff, sizeof SecOff);

  auto H = zeroed<BrigModuleHeader>();
  std::memcpy(H.identification, BrigMagic, sizeof BrigMagic);
  H.brigMajor = BRIG_VERSION_BRIG_MAJOR;
  H.brigMinor = BRIG_VERSION_BRIG_MINOR;
  H.byteCount = Out.size();
  H.sectionCount = 3;
  H.sectionIndex = IndexPos;
  std::memcpy(Out.data(), &H, sizeof H);
  return Out;
}

} // namespace

llvm::Expected<std::vector<uint8_t>> emitBrig(const Program &P) {
  Emitter E;
  return E.run(P);
}

} // namespace openhsa::brig::assembler
