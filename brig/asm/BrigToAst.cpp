//===- brig/asm/BrigToAst.cpp - The assembler's AST of a BRIG module ------===//
//
// Part of openhsa. The fields of the BRIG entries map one to one to those of
// Ast.h (which holds BRIG encodings already); what needs a decision is
// commented where it is decoded.
//
//===----------------------------------------------------------------------===//

#include "brig/asm/BrigToAst.h"

#include "brig/BrigNames.h"
#include "brig/InstTable.h"
#include "brig/asm/Mnemonics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

namespace openhsa::brig::assembler {

namespace {

std::string hex(uint64_t V) {
  return "0x" + llvm::utohexstr(V, /*LowerCase=*/true);
}

/// The allocation the emitter gives a variable whose text has no alloc()
/// (BrigEmitter.cpp; HSAILasm does the same).
unsigned textAllocation(unsigned Segment) {
  switch (Segment) {
  case BRIG_SEGMENT_GLOBAL:
    return BRIG_ALLOCATION_PROGRAM;
  case BRIG_SEGMENT_READONLY:
    return BRIG_ALLOCATION_AGENT;
  default:
    return BRIG_ALLOCATION_AUTOMATIC;
  }
}

const char *executableWord(unsigned Kind) {
  switch (Kind) {
  case BRIG_KIND_DIRECTIVE_KERNEL:
    return "kernel";
  case BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION:
    return "indirect function";
  case BRIG_KIND_DIRECTIVE_SIGNATURE:
    return "signature";
  default:
    return "function";
  }
}

class Decoder {
public:
  explicit Decoder(const BrigModule &M) : M(M) {}
  llvm::Expected<BrigAst> run();

private:
  /// A SourceLoc standing for the hsa_code entry at \p CodeOff.
  SourceLoc tag(uint32_t CodeOff) { return tag(BrigOrigin{CodeOff}); }
  SourceLoc tag(const BrigOrigin &O) {
    A.Origins.push_back(O);
    return SourceLoc{uint32_t(A.Origins.size()), 0};
  }
  llvm::Error bad(unsigned Section, uint64_t Off, const llvm::Twine &What) {
    return makeBrigError(M.name(), sectionName(M, Section), Off,
                         "cannot decode " + What +
                             " (the module was not validated)");
  }
  template <typename T> llvm::Expected<T> code(uint32_t Off) {
    EntryRef<T> R = M.code<T>(Off);
    if (!R)
      return bad(BRIG_SECTION_INDEX_CODE, Off, "this entry");
    return readAt<T>(reinterpret_cast<const uint8_t *>(R.Ptr));
  }
  template <typename T> llvm::Expected<T> operand(uint32_t Off) {
    EntryRef<T> R = M.operand<T>(Off);
    if (!R)
      return bad(BRIG_SECTION_INDEX_OPERAND, Off, "this operand");
    return readAt<T>(reinterpret_cast<const uint8_t *>(R.Ptr));
  }
  /// Size of the hsa_code entry at \p Off (0 when there is none).
  uint32_t entrySize(uint32_t Off) const {
    EntryRef<BrigBase> R = M.code(Off);
    return R ? R.byteCount() : 0;
  }
  std::string directiveName(uint32_t Off) const;

  llvm::Error decodeExecutable(uint32_t Off, Executable &E);
  llvm::Error decodeBody(uint32_t Begin, uint32_t End, std::vector<Stmt> &Body);
  llvm::Error decodeVariable(uint32_t Off, Variable &V);
  llvm::Error decodeInstruction(uint32_t Off, Instruction &I);
  /// Decodes the operand at \p Off, operand \p Index (element \p Element
  /// of a list) of the hsa_code entry \p Owner.
  llvm::Error decodeOperand(uint32_t Off, OperandRule Rule, uint32_t Owner,
                            int32_t Index, int32_t Element, Operand &O);

  const BrigModule &M;
  BrigAst A;
};

std::string Decoder::directiveName(uint32_t Off) const {
  if (auto L = M.code<BrigDirectiveLabel>(Off))
    return M.string(L->name).str();
  if (auto V = M.code<BrigDirectiveVariable>(Off))
    return M.string(V->name).str();
  if (auto F = M.code<BrigDirectiveFbarrier>(Off))
    return M.string(F->name).str();
  if (auto E = M.code<BrigDirectiveExecutable>(Off))
    return M.string(E->name).str();
  return "";
}

llvm::Expected<BrigAst> Decoder::run() {
  const BrigSection &S = M.code();
  uint64_t Off = S.HeaderByteCount;
  while (Off < S.ByteCount) {
    uint32_t O = uint32_t(Off);
    uint32_t Size = entrySize(O);
    if (Size == 0)
      return bad(BRIG_SECTION_INDEX_CODE, O, "this entry");
    uint64_t Next = Off + Size;
    EntryRef<BrigBase> Entry = M.code(O);
    unsigned Kind = Entry.kind();
    if (BrigKindOf<BrigDirectiveExecutable>::matches(Kind)) {
      Executable E;
      if (llvm::Error Err = decodeExecutable(O, E))
        return Err;
      Next = M.code<BrigDirectiveExecutable>(O)->nextModuleEntry;
      if (Next <= Off)
        return bad(BRIG_SECTION_INDEX_CODE, O, "nextModuleEntry");
      A.P.Stmts.push_back(Stmt{std::move(E)});
    } else if (Kind == BRIG_KIND_DIRECTIVE_MODULE) {
      auto D = code<BrigDirectiveModule>(O);
      if (!D)
        return D.takeError();
      ModuleDirective MD;
      MD.Name = M.string(D->name).str();
      MD.Loc = tag(O);
      MD.Major = D->hsailMajor;
      MD.Minor = D->hsailMinor;
      MD.Profile = D->profile;
      MD.MachineModel = D->machineModel;
      MD.DefaultRound = D->defaultFloatRound;
      A.Traits.Profile = MD.Profile;
      A.Traits.Model = MD.MachineModel;
      A.P.Stmts.push_back(Stmt{std::move(MD)});
    } else if (Kind == BRIG_KIND_DIRECTIVE_EXTENSION) {
      auto D = code<BrigDirectiveExtension>(O);
      if (!D)
        return D.takeError();
      ExtensionDirective X;
      X.Name = M.string(D->name).str();
      X.Loc = tag(O);
      // The text rule wants the extension before any use; BRIG that puts
      // it later is judged as if it came first.
      if (X.Name == "IMAGE")
        A.Traits.ImageExtension = true;
      A.P.Stmts.push_back(Stmt{std::move(X)});
    } else if (Kind == BRIG_KIND_DIRECTIVE_VARIABLE) {
      Variable V;
      if (llvm::Error Err = decodeVariable(O, V))
        return Err;
      A.P.Stmts.push_back(Stmt{std::move(V)});
    } else if (Kind == BRIG_KIND_DIRECTIVE_FBARRIER) {
      auto D = code<BrigDirectiveFbarrier>(O);
      if (!D)
        return D.takeError();
      Fbarrier F;
      F.Name = M.string(D->name).str();
      F.Loc = tag(O);
      if (D->linkage != BRIG_LINKAGE_NONE)
        F.Linkage = D->linkage;
      F.IsDecl = !(D->modifier & BRIG_VARIABLE_DEFINITION);
      F.IsModuleLevel = true;
      A.P.Stmts.push_back(Stmt{std::move(F)});
    }
    Off = Next;
  }
  return A;
}

llvm::Error Decoder::decodeExecutable(uint32_t Off, Executable &E) {
  auto D = code<BrigDirectiveExecutable>(Off);
  if (!D)
    return D.takeError();
  E.Kind = M.code(Off).kind();
  E.Name = M.string(D->name).str();
  E.Loc = tag(Off);
  if (D->linkage != BRIG_LINKAGE_NONE)
    E.Linkage = D->linkage;
  bool Definition = D->modifier & BRIG_EXECUTABLE_DEFINITION;
  bool Signature = E.Kind == BRIG_KIND_DIRECTIVE_SIGNATURE;
  E.IsDecl = !Signature && !Definition;
  E.HasBody = !Signature && Definition;
  // The formal arguments follow the directive: outArgCount, then
  // inArgCount variables.
  uint32_t Pos = Off + entrySize(Off);
  unsigned Total = unsigned(D->outArgCount) + D->inArgCount;
  for (unsigned I = 0; I < Total; ++I) {
    Variable V;
    if (llvm::Error Err = decodeVariable(Pos, V))
      return Err;
    (I < D->outArgCount ? E.OutArgs : E.InArgs).push_back(std::move(V));
    Pos += entrySize(Pos);
  }
  if (!E.HasBody)
    return llvm::Error::success();
  return decodeBody(D->firstCodeBlockEntry, D->nextModuleEntry, E.Body);
}

llvm::Error Decoder::decodeBody(uint32_t Begin, uint32_t End,
                                std::vector<Stmt> &Body) {
  std::optional<ArgBlock> Open;
  uint32_t Off = Begin;
  while (Off < End) {
    uint32_t Size = entrySize(Off);
    if (Size == 0)
      return bad(BRIG_SECTION_INDEX_CODE, Off, "this entry");
    unsigned Kind = M.code(Off).kind();
    std::vector<Stmt> &Out = Open ? Open->Body : Body;
    if (brigKindIsInst(Kind)) {
      Instruction I;
      if (llvm::Error Err = decodeInstruction(Off, I))
        return Err;
      Out.push_back(Stmt{std::move(I)});
    } else if (Kind == BRIG_KIND_DIRECTIVE_VARIABLE) {
      Variable V;
      if (llvm::Error Err = decodeVariable(Off, V))
        return Err;
      Out.push_back(Stmt{std::move(V)});
    } else if (Kind == BRIG_KIND_DIRECTIVE_ARG_BLOCK_START) {
      if (Open)
        return bad(BRIG_SECTION_INDEX_CODE, Off, "a nested arg block");
      Open.emplace();
      // Rules about the whole block (checkArgBlock) are reported at its
      // start, the entry that opens it.
      Open->Loc = Open->EndLoc = tag(Off);
    } else if (Kind == BRIG_KIND_DIRECTIVE_ARG_BLOCK_END) {
      if (!Open)
        return bad(BRIG_SECTION_INDEX_CODE, Off, "an unopened arg block");
      Body.push_back(Stmt{std::move(*Open)});
      Open.reset();
    } else if (Kind == BRIG_KIND_DIRECTIVE_LABEL) {
      LabelDef L;
      L.Name = directiveName(Off);
      L.Loc = tag(Off);
      Out.push_back(Stmt{std::move(L)});
    } else if (Kind == BRIG_KIND_DIRECTIVE_FBARRIER) {
      auto D = code<BrigDirectiveFbarrier>(Off);
      if (!D)
        return D.takeError();
      Fbarrier F;
      F.Name = M.string(D->name).str();
      F.Loc = tag(Off);
      F.IsDecl = !(D->modifier & BRIG_VARIABLE_DEFINITION);
      Out.push_back(Stmt{std::move(F)});
    }
    Off += Size;
  }
  if (Open)
    return bad(BRIG_SECTION_INDEX_CODE, Begin, "an unclosed arg block");
  return llvm::Error::success();
}

llvm::Error Decoder::decodeVariable(uint32_t Off, Variable &V) {
  auto D = code<BrigDirectiveVariable>(Off);
  if (!D)
    return D.takeError();
  V.Name = M.string(D->name).str();
  V.Loc = tag(Off);
  V.Segment = D->segment;
  V.Type = uint16_t(brigTypeArrayElement(D->type));
  V.IsArray = brigTypeIsArray(D->type);
  // BRIG always states the alignment (the emitter writes the natural one
  // when the text has no align()), so it is always judged.
  V.Align = D->align;
  V.IsConst = D->modifier & BRIG_VARIABLE_CONST;
  V.IsDecl = !(D->modifier & BRIG_VARIABLE_DEFINITION);
  if (D->linkage != BRIG_LINKAGE_NONE)
    V.Linkage = D->linkage;
  if (D->allocation != textAllocation(D->segment))
    V.Allocation = D->allocation;
  V.Dim = D->dim.value();
  // A dimension of 0 is what "[]" without an initializer leaves; with one,
  // the emitter writes the element count, which is then checked against it.
  V.IsFlexArray = V.IsArray && V.Dim == 0;
  if (D->init != 0) {
    Operand Init;
    if (llvm::Error Err = decodeOperand(D->init, OperandRule::None, Off,
                                        BrigOrigin::Initializer, -1, Init))
      return Err;
    V.InitElements = initializerElements(Init, V.Type);
    V.Init = std::move(Init);
  }
  return llvm::Error::success();
}

llvm::Error Decoder::decodeInstruction(uint32_t Off, Instruction &I) {
  auto B = code<BrigInstBase>(Off);
  if (!B)
    return B.takeError();
  I.Kind = M.code(Off).kind();
  I.Opcode = B->opcode;
  I.Type = B->type;
  I.Loc = tag(Off);

  // Reads the format's struct, or returns the error.
#define OPENHSA_READ(T)                                                        \
  auto X = code<T>(Off);                                                       \
  if (!X)                                                                      \
    return X.takeError();
  switch (I.Kind) {
  case BRIG_KIND_INST_ADDR: {
    OPENHSA_READ(BrigInstAddr)
    I.Segment = X->segment;
    break;
  }
  case BRIG_KIND_INST_ATOMIC: {
    OPENHSA_READ(BrigInstAtomic)
    I.Segment = X->segment;
    I.MemoryOrder = X->memoryOrder;
    I.MemoryScope = X->memoryScope;
    I.AtomicOp = X->atomicOperation;
    I.EquivClass = X->equivClass;
    break;
  }
  case BRIG_KIND_INST_BR: {
    OPENHSA_READ(BrigInstBr)
    I.Width = X->width;
    break;
  }
  case BRIG_KIND_INST_CMP: {
    OPENHSA_READ(BrigInstCmp)
    I.SourceType = X->sourceType;
    I.Ftz = X->modifier & BRIG_ALU_FTZ;
    I.Compare = X->compare;
    I.Pack = X->pack;
    break;
  }
  case BRIG_KIND_INST_CVT: {
    OPENHSA_READ(BrigInstCvt)
    I.SourceType = X->sourceType;
    I.Ftz = X->modifier & BRIG_ALU_FTZ;
    I.Round = X->round;
    // Semantics.cpp judges roundings the text writes; the one the text
    // gives without a modifier is always allowed, any other was written.
    I.RoundWritten = I.Round != defaultCvtRounding(I.Type, I.SourceType);
    break;
  }
  case BRIG_KIND_INST_IMAGE: {
    OPENHSA_READ(BrigInstImage)
    I.ImageType = X->imageType;
    I.CoordType = X->coordType;
    I.Geometry = X->geometry;
    I.EquivClass = X->equivClass;
    break;
  }
  case BRIG_KIND_INST_LANE: {
    OPENHSA_READ(BrigInstLane)
    I.SourceType = X->sourceType;
    I.Width = X->width;
    break;
  }
  case BRIG_KIND_INST_MEM: {
    OPENHSA_READ(BrigInstMem)
    I.Segment = X->segment;
    I.Align = X->align;
    I.EquivClass = X->equivClass;
    I.Width = X->width;
    I.IsConst = X->modifier & BRIG_MEMORY_CONST;
    break;
  }
  case BRIG_KIND_INST_MEM_FENCE: {
    OPENHSA_READ(BrigInstMemFence)
    I.MemoryOrder = X->memoryOrder;
    I.GlobalScope = X->globalSegmentMemoryScope;
    I.GroupScope = X->groupSegmentMemoryScope;
    I.ImageScope = X->imageSegmentMemoryScope;
    break;
  }
  case BRIG_KIND_INST_MOD: {
    OPENHSA_READ(BrigInstMod)
    I.Ftz = X->modifier & BRIG_ALU_FTZ;
    I.Round = X->round;
    I.Pack = X->pack;
    // As for cvt: only a rounding other than the text's default was
    // written (an InstBasic has none, as the text without modifiers).
    I.RoundWritten = I.Round != defaultModRounding(I.Opcode, I.Type);
    break;
  }
  case BRIG_KIND_INST_QUERY_IMAGE: {
    OPENHSA_READ(BrigInstQueryImage)
    I.ImageType = X->imageType;
    I.Geometry = X->geometry;
    I.Query = X->query;
    break;
  }
  case BRIG_KIND_INST_QUERY_SAMPLER: {
    OPENHSA_READ(BrigInstQuerySampler)
    I.Query = X->query;
    break;
  }
  case BRIG_KIND_INST_QUEUE: {
    OPENHSA_READ(BrigInstQueue)
    I.Segment = X->segment;
    I.MemoryOrder = X->memoryOrder;
    break;
  }
  case BRIG_KIND_INST_SEG: {
    OPENHSA_READ(BrigInstSeg)
    I.Segment = X->segment;
    break;
  }
  case BRIG_KIND_INST_SEG_CVT: {
    OPENHSA_READ(BrigInstSegCvt)
    I.SourceType = X->sourceType;
    I.Segment = X->segment;
    I.NoNull = X->modifier & BRIG_SEG_CVT_NONULL;
    break;
  }
  case BRIG_KIND_INST_SIGNAL: {
    OPENHSA_READ(BrigInstSignal)
    I.SignalType = X->signalType;
    I.MemoryOrder = X->memoryOrder;
    I.AtomicOp = X->signalOperation;
    break;
  }
  case BRIG_KIND_INST_SOURCE_TYPE: {
    OPENHSA_READ(BrigInstSourceType)
    I.SourceType = X->sourceType;
    break;
  }
  default:
    break;
  }
#undef OPENHSA_READ

  const InstInfo *Info = instInfo(I.Opcode);
  OffsetList List = M.offsetList(B->operands);
  for (uint32_t Idx = 0; Idx < List.size(); ++Idx) {
    OperandRule Rule =
        Info ? Info->Operands[Idx < 5 ? Idx : 4] : OperandRule::None;
    Operand O;
    if (llvm::Error Err =
            decodeOperand(List[Idx], Rule, Off, int32_t(Idx), -1, O))
      return Err;
    I.Operands.push_back(std::move(O));
  }
  return llvm::Error::success();
}

llvm::Error Decoder::decodeOperand(uint32_t Off, OperandRule Rule,
                                   uint32_t Owner, int32_t Index,
                                   int32_t Element, Operand &O) {
  O.Loc = tag(BrigOrigin{Owner, Off, Index, Element});
  EntryRef<BrigBase> Entry = M.operand(Off);
  if (!Entry)
    return bad(BRIG_SECTION_INDEX_OPERAND, Off, "this operand");
  using K = Operand::Kind;
  switch (Entry.kind()) {
  case BRIG_KIND_OPERAND_REGISTER: {
    auto R = operand<BrigOperandRegister>(Off);
    if (!R)
      return R.takeError();
    O.K = K::Register;
    O.RegKind = R->regKind;
    O.RegNum = R->regNum;
    return llvm::Error::success();
  }
  case BRIG_KIND_OPERAND_CONSTANT_BYTES: {
    auto C = operand<BrigOperandConstantBytes>(Off);
    if (!C)
      return C.takeError();
    O.K = K::Constant;
    O.Type = C->type;
    O.Bytes = M.dataBytes(C->bytes).value_or(llvm::StringRef()).str();
    return llvm::Error::success();
  }
  case BRIG_KIND_OPERAND_WAVESIZE:
    O.K = K::Wavesize;
    return llvm::Error::success();
  case BRIG_KIND_OPERAND_ADDRESS: {
    auto Ad = operand<BrigOperandAddress>(Off);
    if (!Ad)
      return Ad.takeError();
    O.K = K::Address;
    if (Ad->symbol != 0) {
      O.Name = directiveName(Ad->symbol);
      // The rules only ask whether an address names a variable.
      if (O.Name.empty())
        O.Name = "<variable at hsa_code+" + hex(Ad->symbol) + ">";
    }
    if (Ad->reg != 0) {
      auto R = operand<BrigOperandRegister>(Ad->reg);
      if (!R)
        return R.takeError();
      O.HasReg = true;
      O.RegKind = R->regKind;
      O.RegNum = R->regNum;
    }
    O.Offset = Ad->offset.value();
    return llvm::Error::success();
  }
  case BRIG_KIND_OPERAND_CODE_REF: {
    auto R = operand<BrigOperandCodeRef>(Off);
    if (!R)
      return R.takeError();
    EntryRef<BrigBase> Target = M.code(R->ref);
    unsigned TK = Target ? Target.kind() : 0;
    O.K = TK == BRIG_KIND_DIRECTIVE_LABEL       ? K::LabelRef
          : TK == BRIG_KIND_DIRECTIVE_SIGNATURE ? K::SignatureRef
                                                : K::CodeRef;
    O.Name = directiveName(R->ref);
    return llvm::Error::success();
  }
  case BRIG_KIND_OPERAND_CODE_LIST: {
    auto L = operand<BrigOperandCodeList>(Off);
    if (!L)
      return L.takeError();
    OffsetList Elems = M.offsetList(L->elements);
    // What the list holds follows from the operand's place; elsewhere
    // (the validator rejects that) from its first element.
    EntryRef<BrigBase> First = M.code(Elems[0]);
    unsigned FirstKind = First ? First.kind() : 0;
    if (Rule == OperandRule::Labels ||
        (Rule != OperandRule::Args && Rule != OperandRule::Funcs &&
         FirstKind == BRIG_KIND_DIRECTIVE_LABEL))
      O.K = K::LabelList;
    else if (Rule == OperandRule::Funcs ||
             (Rule != OperandRule::Args &&
              (FirstKind == BRIG_KIND_DIRECTIVE_FUNCTION ||
               FirstKind == BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION)))
      O.K = K::FunctionList;
    else
      O.K = K::ArgList;
    for (uint32_t I = 0; I < Elems.size(); ++I) {
      O.Names.push_back(directiveName(Elems[I]));
      O.NameLocs.push_back(O.Loc);
    }
    return llvm::Error::success();
  }
  case BRIG_KIND_OPERAND_OPERAND_LIST:
  case BRIG_KIND_OPERAND_CONSTANT_OPERAND_LIST: {
    uint32_t ElemList;
    if (Entry.kind() == BRIG_KIND_OPERAND_OPERAND_LIST) {
      auto L = operand<BrigOperandOperandList>(Off);
      if (!L)
        return L.takeError();
      O.K = K::OperandList;
      ElemList = L->elements;
    } else {
      auto L = operand<BrigOperandConstantOperandList>(Off);
      if (!L)
        return L.takeError();
      O.K = K::ConstantList;
      O.Type = L->type;
      ElemList = L->elements;
    }
    // The validator allows one level of lists (their elements are
    // registers, constants, wavesize, images, samplers or align).
    if (Element >= 0)
      return bad(BRIG_SECTION_INDEX_OPERAND, Off, "a nested operand list");
    OffsetList Elems = M.offsetList(ElemList);
    for (uint32_t I = 0; I < Elems.size(); ++I) {
      Operand E;
      if (llvm::Error Err = decodeOperand(Elems[I], OperandRule::None, Owner,
                                          Index, int32_t(I), E))
        return Err;
      O.Elements.push_back(std::move(E));
    }
    return llvm::Error::success();
  }
  case BRIG_KIND_OPERAND_CONSTANT_IMAGE: {
    auto C = operand<BrigOperandConstantImage>(Off);
    if (!C)
      return C.takeError();
    O.K = K::ConstantImage;
    O.Type = C->type;
    O.Geometry = C->geometry;
    O.ChannelOrder = C->channelOrder;
    O.ChannelType = C->channelType;
    O.Width = C->width.value();
    O.Height = C->height.value();
    O.Depth = C->depth.value();
    O.Array = C->array.value();
    return llvm::Error::success();
  }
  case BRIG_KIND_OPERAND_CONSTANT_SAMPLER: {
    auto C = operand<BrigOperandConstantSampler>(Off);
    if (!C)
      return C.takeError();
    O.K = K::ConstantSampler;
    O.Type = C->type;
    O.Coord = C->coord;
    O.Filter = C->filter;
    O.Addressing = C->addressing;
    return llvm::Error::success();
  }
  case BRIG_KIND_OPERAND_ALIGN: {
    auto Al = operand<BrigOperandAlign>(Off);
    if (!Al)
      return Al.takeError();
    O.K = K::Align;
    O.AlignValue = Al->align;
    return llvm::Error::success();
  }
  case BRIG_KIND_OPERAND_STRING: {
    auto S = operand<BrigOperandString>(Off);
    if (!S)
      return S.takeError();
    O.K = K::String;
    O.Name = M.string(S->string).str();
    return llvm::Error::success();
  }
  default:
    return bad(BRIG_SECTION_INDEX_OPERAND, Off, "this operand");
  }
}

} // namespace

std::string describeOrigin(const BrigModule &M, const BrigOrigin &O) {
  std::string S;
  EntryRef<BrigBase> E = M.code(O.CodeOffset);
  unsigned Kind = E ? E.kind() : 0;
  auto Named = [&](const char *What, uint32_t Name) {
    S = std::string(What) + " '" + M.string(Name).str() + "'";
  };
  if (auto I = M.code<BrigInstBase>(O.CodeOffset)) {
    const char *N = brig::opcodeName(I->opcode);
    S = std::string("instruction '") + (N ? N : "?") + "'";
  } else if (auto V = M.code<BrigDirectiveVariable>(O.CodeOffset)) {
    Named("variable", V->name);
  } else if (auto X = M.code<BrigDirectiveExecutable>(O.CodeOffset)) {
    Named(executableWord(Kind), X->name);
  } else if (auto F = M.code<BrigDirectiveFbarrier>(O.CodeOffset)) {
    Named("fbarrier", F->name);
  } else if (auto L = M.code<BrigDirectiveLabel>(O.CodeOffset)) {
    Named("label", L->name);
  } else if (auto D = M.code<BrigDirectiveModule>(O.CodeOffset)) {
    Named("module", D->name);
  } else if (auto X = M.code<BrigDirectiveExtension>(O.CodeOffset)) {
    Named("extension", X->name);
  } else if (Kind == BRIG_KIND_DIRECTIVE_ARG_BLOCK_START) {
    S = "arg block";
  } else {
    S = "entry";
  }
  if (O.Operand == BrigOrigin::NoOperand)
    return S;
  S += O.Operand == BrigOrigin::Initializer
           ? std::string(", initializer")
           : ", operand " + std::to_string(O.Operand);
  if (O.Element >= 0)
    S += " element " + std::to_string(O.Element);
  return S + " (hsa_operand+" + hex(O.OperandOffset) + ")";
}

llvm::Expected<BrigAst> brigToAst(const BrigModule &M) {
  return Decoder(M).run();
}

} // namespace openhsa::brig::assembler
