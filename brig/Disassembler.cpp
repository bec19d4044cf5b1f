//===- brig/Disassembler.cpp - BRIG to HSAIL text -------------------------===//
//
// Part of openhsa.
//
//===----------------------------------------------------------------------===//

#include "brig/Disassembler.h"

#include "brig/BrigNames.h"
#include "brig/InstTable.h"

#include "llvm/Support/Format.h"

#include <type_traits>

using namespace llvm;

namespace openhsa::brig {

namespace {

constexpr const char *Invalid = "/*INVALID*/";

const char *orInvalid(const char *S) { return S ? S : Invalid; }

/// Integers are printed in decimal unless they are large and "round" in hex
/// (powers of two above 8192, other values above 256 without a run of three
/// zero digits in decimal). Negative values print as their two's complement.
template <typename T> std::string intText(T Val) {
  using S = std::make_signed_t<T>;
  S Signed = static_cast<S>(Val);
  std::string Dec = std::to_string(static_cast<int64_t>(Signed));
  if (Signed == std::numeric_limits<S>::min())
    return Dec;
  int64_t Abs = Signed < 0 ? -int64_t(Signed) : int64_t(Signed);
  bool NotPow2 = (Abs & (Abs - 1)) != 0;
  if (Abs <= (NotPow2 ? 256 : 8192))
    return Dec;
  if (NotPow2 && Dec.find("000") != std::string::npos)
    return Dec;
  std::string Hex;
  raw_string_ostream H(Hex);
  H << "0x";
  H.write_hex(static_cast<std::make_unsigned_t<T>>(Val));
  return H.str();
}

template <typename T> T load(const uint8_t *P) { return readAt<T>(P); }

std::string hexBits(uint64_t Bits, unsigned Digits) {
  std::string S(Digits, '0');
  for (unsigned I = 0; I < Digits; ++I) {
    unsigned D = (Bits >> (4 * (Digits - 1 - I))) & 0xf;
    S[I] = char(D < 10 ? '0' + D : 'a' + D - 10);
  }
  return S;
}

/// One scalar of type \p T (a non-packed, non-array type) read from \p P.
std::string scalarText(unsigned T, const uint8_t *P) {
  switch (T) {
  case BRIG_TYPE_U8:
  case BRIG_TYPE_B8:
    return std::to_string(unsigned(P[0]));
  case BRIG_TYPE_S8:
    return std::to_string(int(int8_t(P[0])));
  case BRIG_TYPE_U16:
  case BRIG_TYPE_B16:
    return intText(load<uint16_t>(P));
  case BRIG_TYPE_S16:
    return intText(load<int16_t>(P));
  case BRIG_TYPE_U32:
  case BRIG_TYPE_B32:
    return intText(load<uint32_t>(P));
  case BRIG_TYPE_S32:
    return intText(load<int32_t>(P));
  case BRIG_TYPE_U64:
  case BRIG_TYPE_B64:
  case BRIG_TYPE_SIG32:
  case BRIG_TYPE_SIG64:
    return intText(load<uint64_t>(P));
  case BRIG_TYPE_S64:
    return intText(load<int64_t>(P));
  case BRIG_TYPE_F16:
    return "0H" + hexBits(load<uint16_t>(P), 4);
  case BRIG_TYPE_F32:
    return "0F" + hexBits(load<uint32_t>(P), 8);
  case BRIG_TYPE_F64:
    return "0D" + hexBits(load<uint64_t>(P), 16);
  case BRIG_TYPE_B1:
    return std::to_string(P[0] & 1u);
  default:
    return Invalid;
  }
}

/// Bytes one element of \p T occupies in a constant.
unsigned elementBytes(unsigned T) {
  // Signal handles are 64-bit in BRIG constants whatever the signal type.
  unsigned Bits = isSignalType(T) ? 64 : typeBits(T);
  return Bits <= 8 ? 1 : Bits / 8;
}

/// A value of non-array type \p T: scalars plainly, packed values as
/// "u8x4(4,3,2,1)" (highest lane first), signals as "sig64(0)".
std::string valueText(unsigned T, const uint8_t *P) {
  if (T == BRIG_TYPE_B128)
    T = BRIG_TYPE_U8X16;
  if (isPackedType(T)) {
    unsigned Elt = brigTypeBase(T);
    unsigned EB = elementBytes(Elt);
    unsigned N = typeBits(T) / 8 / EB;
    std::string S = std::string(orInvalid(typeName(T))) + "(";
    for (unsigned I = N; I-- > 0;) {
      S += scalarText(Elt, P + I * EB);
      if (I != 0)
        S += ",";
    }
    return S + ")";
  }
  if (isSignalType(T))
    return std::string(typeName(T)) + "(" + scalarText(T, P) + ")";
  return scalarText(T, P);
}

class Printer {
public:
  Printer(const BrigModule &M, raw_ostream &OS)
      : M(M), OS(OS), Budget(64 * uint64_t(M.bytes().size()) + 65536) {}

  void run() {
    const BrigSection &S = M.code();
    uint64_t Off = S.HeaderByteCount;
    // Each step moves forward by at least one entry, so this terminates.
    while (Off < S.ByteCount) {
      EntryRef<> E = M.code(uint32_t(Off));
      if (!E)
        break;
      uint64_t Next = Off + E.byteCount();
      if (auto X = M.code<BrigDirectiveExecutable>(uint32_t(Off)))
        if (X->nextModuleEntry > Off)
          Next = X->nextModuleEntry;
      printCodeFmt(uint32_t(Off));
      Off = Next;
    }
  }

  void printInstOnly(uint32_t Off) { printInst(Off); }

private:
  /// Charges \p N units of printing work. A malformed module can make
  /// entries share lists and constants so that the text grows much faster
  /// than the module; past the budget, the printer writes /*INVALID*/.
  bool spend(uint64_t N) {
    if (N > Budget) {
      Budget = 0;
      return false;
    }
    Budget -= N;
    return true;
  }

  void indent() {
    for (int I = 0; I < Indent; ++I)
      OS << '\t';
  }
  void mod(StringRef S) {
    if (!S.empty())
      OS << '_' << S;
  }
  void mod(const char *S) { mod(StringRef(S ? S : Invalid)); }
  StringRef str(uint32_t Off) { return M.string(Off); }

  void printCodeFmt(uint32_t Off) {
    EntryRef<> E = M.code(Off);
    if (!E)
      return;
    unsigned K = E.kind();
    // Everything below reads the entry's fixed-size struct in place.
    if (E.byteCount() < brigEntrySize(K) || brigEntrySize(K) == 0 ||
        !spend(1)) {
      indent();
      OS << Invalid << '\n';
      return;
    }
    if (brigKindIsInst(K)) {
      indent();
      printInst(Off);
      OS << '\n';
      return;
    }
    if (auto D = M.code<BrigDirectiveModule>(Off))
      Model = D->machineModel;
    if (K == BRIG_KIND_DIRECTIVE_LABEL || K == BRIG_KIND_DIRECTIVE_KERNEL ||
        K == BRIG_KIND_DIRECTIVE_FUNCTION)
      OS << '\n';
    if (K == BRIG_KIND_DIRECTIVE_ARG_BLOCK_END && Indent > 0)
      --Indent;
    if (K != BRIG_KIND_DIRECTIVE_LABEL)
      indent();
    if (K == BRIG_KIND_DIRECTIVE_ARG_BLOCK_START)
      ++Indent;
    printDirective(Off);
    OS << '\n';
  }

  //===--- Directives -----------------------------------------------------===//

  void printDirective(uint32_t Off) {
    EntryRef<> E = M.code(Off);
    switch (E.kind()) {
    case BRIG_KIND_DIRECTIVE_MODULE: {
      auto D = *M.code<BrigDirectiveModule>(Off);
      static const char *const Rounds[] = {nullptr, "$default", "$near",
                                           "$zero"};
      OS << "module " << str(D.name) << ':' << D.hsailMajor << ':'
         << D.hsailMinor << ':'
         << (D.profile == BRIG_PROFILE_FULL   ? "$full"
             : D.profile == BRIG_PROFILE_BASE ? "$base"
                                              : Invalid)
         << ':'
         << (D.machineModel == BRIG_MACHINE_LARGE   ? "$large"
             : D.machineModel == BRIG_MACHINE_SMALL ? "$small"
                                                    : Invalid)
         << ':'
         << orInvalid(D.defaultFloatRound < 4 ? Rounds[D.defaultFloatRound]
                                              : nullptr)
         << ';';
      return;
    }
    case BRIG_KIND_DIRECTIVE_KERNEL:
    case BRIG_KIND_DIRECTIVE_FUNCTION:
    case BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION:
    case BRIG_KIND_DIRECTIVE_SIGNATURE:
      printExecutable(Off);
      return;
    case BRIG_KIND_DIRECTIVE_VARIABLE:
      printVariable(Off);
      OS << ';';
      return;
    case BRIG_KIND_DIRECTIVE_LABEL:
      OS << str(M.code<BrigDirectiveLabel>(Off)->name) << ':';
      return;
    case BRIG_KIND_DIRECTIVE_COMMENT:
      for (char C : str(M.code<BrigDirectiveComment>(Off)->name))
        OS << (uint8_t(C) >= 32 && uint8_t(C) < 127 ? C : '.');
      return;
    case BRIG_KIND_DIRECTIVE_CONTROL:
      printControl(Off);
      return;
    case BRIG_KIND_DIRECTIVE_EXTENSION:
      OS << "extension ";
      printStringLiteral(str(M.code<BrigDirectiveExtension>(Off)->name));
      OS << ';';
      return;
    case BRIG_KIND_DIRECTIVE_LOC: {
      auto D = *M.code<BrigDirectiveLoc>(Off);
      OS << "loc " << D.line;
      if (D.column != 1)
        OS << ' ' << D.column;
      OS << ' ';
      printStringLiteral(str(D.filename));
      OS << ';';
      return;
    }
    case BRIG_KIND_DIRECTIVE_PRAGMA: {
      OS << "pragma ";
      OffsetList L = M.offsetList(M.code<BrigDirectivePragma>(Off)->operands);
      for (uint32_t I = 0; I < L.size(); ++I) {
        if (I)
          OS << ", ";
        printTypedOperand(L[I], /*Strict=*/false);
      }
      OS << ';';
      return;
    }
    case BRIG_KIND_DIRECTIVE_FBARRIER: {
      auto D = *M.code<BrigDirectiveFbarrier>(Off);
      if (!(D.modifier & BRIG_EXECUTABLE_DEFINITION))
        OS << "decl ";
      printLinkage(D.linkage);
      OS << "fbarrier " << str(D.name) << ';';
      return;
    }
    case BRIG_KIND_DIRECTIVE_ARG_BLOCK_START:
      OS << '{';
      return;
    case BRIG_KIND_DIRECTIVE_ARG_BLOCK_END:
      OS << '}';
      return;
    case BRIG_KIND_NONE:
      return;
    default:
      OS << "/* Unsupported Directive Kind " << E.kind() << " */";
      return;
    }
  }

  void printLinkage(unsigned Linkage) {
    if (Linkage == BRIG_LINKAGE_PROGRAM)
      OS << "prog ";
    else if (Linkage > BRIG_LINKAGE_ARG)
      OS << Invalid << ' ';
  }

  void printControl(uint32_t Off) {
    auto D = *M.code<BrigDirectiveControl>(Off);
    OffsetList L = M.offsetList(D.operands);
    OS << orInvalid(controlName(D.control));
    if (L.size() > 0)
      OS << ' ';
    for (uint32_t I = 0; I < L.size(); ++I) {
      if (I)
        OS << ", ";
      if (auto C = M.operand<BrigOperandConstantBytes>(L[I])) {
        std::optional<StringRef> B = M.dataBytes(C->bytes);
        const uint8_t *P =
            B ? reinterpret_cast<const uint8_t *>(B->data()) : nullptr;
        if (C->type == BRIG_TYPE_U32 && B && B->size() == 4) {
          printCtlValue(load<uint32_t>(P));
          continue;
        }
        if (C->type == BRIG_TYPE_U64 && B && B->size() == 8) {
          printCtlValue(load<uint64_t>(P));
          continue;
        }
      }
      printOperand(L[I]);
    }
    OS << ';';
  }

  template <typename T> void printCtlValue(T V) {
    std::string S = intText(V);
    if (!S.empty() && S[0] == '-') {
      OS << "0x";
      OS.write_hex(V);
    } else {
      OS << S;
    }
  }

  void printExecutable(uint32_t Off) {
    auto D = *M.code<BrigDirectiveExecutable>(Off);
    unsigned K = M.code(Off).kind();
    bool Def = D.modifier & BRIG_EXECUTABLE_DEFINITION;
    if (!Def)
      OS << "decl ";
    printLinkage(D.linkage);
    switch (K) {
    case BRIG_KIND_DIRECTIVE_KERNEL:
      OS << "kernel ";
      break;
    case BRIG_KIND_DIRECTIVE_FUNCTION:
      OS << "function ";
      break;
    case BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION:
      OS << "indirect function ";
      break;
    default:
      OS << "signature ";
      break;
    }
    OS << str(D.name);
    uint32_t After = Off + M.code(Off).byteCount();
    if (K != BRIG_KIND_DIRECTIVE_KERNEL)
      printArgs(After, D.outArgCount, D.nextModuleEntry);
    printArgs(D.firstInArg, D.inArgCount, D.nextModuleEntry);
    // Code blocks never nest; a malformed module that nests them gets its
    // inner executables printed without a body (this bounds the recursion).
    if (Def && K != BRIG_KIND_DIRECTIVE_SIGNATURE && D.firstCodeBlockEntry &&
        !InBody) {
      InBody = true;
      ++Indent;
      OS << "\n{\n";
      for (EntryRef<> E : M.codeRange(D.firstCodeBlockEntry, D.nextModuleEntry))
        printCodeFmt(E.Offset);
      OS << '}';
      --Indent;
      InBody = false;
    }
    OS << ';';
  }

  void printArgs(uint32_t Arg, unsigned Count, uint32_t Limit) {
    OS << '(';
    auto Next = [&](uint32_t A) -> uint32_t {
      EntryRef<> E = M.code(A);
      return E ? A + E.byteCount() : Limit;
    };
    if (!spend(Count)) {
      OS << Invalid << ')';
      return;
    }
    if (Count == 1) {
      printVariable(Arg);
    } else if (Count > 1) {
      ++Indent;
      for (unsigned I = Count; I > 0 && Arg < Limit; --I) {
        OS << '\n';
        indent();
        printVariable(Arg);
        if (I > 1)
          OS << ',';
        Arg = Next(Arg);
      }
      --Indent;
    }
    OS << ')';
  }

  /// The declaration part of a variable (no initializer, no ';').
  void printVariableDecl(const BrigDirectiveVariable &V) {
    unsigned Elt = brigTypeArrayElement(V.type);
    if (!(V.modifier & BRIG_VARIABLE_DEFINITION))
      OS << "decl ";
    printLinkage(V.linkage);
    if (V.allocation > BRIG_ALLOCATION_AUTOMATIC)
      OS << Invalid << ' ';
    else if (V.allocation == BRIG_ALLOCATION_AGENT &&
             V.segment != BRIG_SEGMENT_READONLY)
      OS << "alloc(agent) ";
    if (V.align > BRIG_ALIGNMENT_MAX)
      OS << Invalid << ' ';
    else if (V.align != BRIG_ALIGNMENT_NONE && V.align != naturalAlignment(Elt))
      OS << "align(" << alignValueName(V.align) << ") ";
    if (V.modifier & BRIG_VARIABLE_CONST)
      OS << "const ";
    OS << orInvalid(segmentName(V.segment));
    mod(typeName(Elt));
    StringRef Name = str(V.name);
    if (!Name.empty())
      OS << ' ' << Name;
    if (brigTypeIsArray(V.type)) {
      if (V.dim.value() == 0)
        OS << "[]";
      else
        OS << '[' << V.dim.value() << ']';
    }
  }

  void printVariable(uint32_t Off) {
    auto V = M.code<BrigDirectiveVariable>(Off);
    if (!V) {
      OS << Invalid;
      return;
    }
    printVariableDecl(*V);
    if (M.code(Off).kind() != BRIG_KIND_DIRECTIVE_VARIABLE || !V->init)
      return;
    // Initializers are printed only for variables at their own directive.
    if (InVariableInit)
      return;
    OS << " = ";
    unsigned K = M.operand(V->init) ? M.operand(V->init).kind() : 0;
    if (K == BRIG_KIND_OPERAND_CONSTANT_BYTES ||
        K == BRIG_KIND_OPERAND_CONSTANT_OPERAND_LIST ||
        K == BRIG_KIND_OPERAND_CONSTANT_IMAGE ||
        K == BRIG_KIND_OPERAND_CONSTANT_SAMPLER)
      printOperand(V->init);
    else
      OS << "***INVALID VARIABLE INITIALIZER***";
  }

  /// Escapes as HSAILasm does, except for a form feed (0x0c): HSAILasm
  /// prints "\f", which HSAIL (PRM 4.5, and HSAILasm's own lexer) reads as
  /// 0x06, so it is printed "\x0c" to reassemble to the same bytes.
  void printStringLiteral(StringRef S) {
    OS << '"';
    for (char Ch : S) {
      unsigned char C = uint8_t(Ch);
      switch (C) {
      case '\a':
        OS << "\\a";
        break;
      case '\b':
        OS << "\\b";
        break;
      case '\n':
        OS << "\\n";
        break;
      case '\r':
        OS << "\\r";
        break;
      case '\t':
        OS << "\\t";
        break;
      case '"':
        OS << "\\\"";
        break;
      case '\\':
        OS << "\\\\";
        break;
      default:
        if (C >= 32 && C < 127)
          OS << Ch;
        else
          OS << "\\x" << hexBits(C, 2);
      }
    }
    OS << '"';
  }

  //===--- Instructions ---------------------------------------------------===//

  std::string width(unsigned Opcode, unsigned W) {
    const InstInfo *Info = instInfo(Opcode);
    if (Info && Info->DefaultWidth == W)
      return "";
    return orInvalid(widthName(W));
  }

  std::string vector(uint32_t Off, const InstInfo *Info) {
    if (!Info || Info->VectorOperand < 0)
      return "";
    OffsetList L = M.offsetList(M.code<BrigInstBase>(Off)->operands);
    if (uint32_t(Info->VectorOperand) >= L.size())
      return "";
    uint32_t O = L[uint32_t(Info->VectorOperand)];
    if (auto V = M.operand<BrigOperandOperandList>(O)) {
      switch (M.offsetList(V->elements).size()) {
      case 2:
        return "v2";
      case 3:
        return "v3";
      case 4:
        return "v4";
      default:
        return Invalid;
      }
    }
    return "";
  }

  std::string align(unsigned A) {
    if (A > BRIG_ALIGNMENT_MAX)
      return Invalid;
    if (A <= BRIG_ALIGNMENT_1)
      return "";
    return std::string("align(") + alignValueName(A) + ")";
  }

  static std::string equiv(unsigned E) {
    return E ? "equiv(" + std::to_string(E) + ")" : "";
  }

  void rounding(unsigned Opcode, unsigned Type, unsigned Src, unsigned R) {
    if (R != defaultRounding(Opcode, Type, Src))
      mod(roundName(R));
  }

  void printInst(uint32_t Off) {
    auto I = M.code<BrigInstBase>(Off);
    if (!I || I.byteCount() < brigEntrySize(I.kind())) {
      OS << Invalid;
      return;
    }
    unsigned K = M.code(Off).kind();
    unsigned Op = I->opcode;
    const InstInfo *Info = instInfo(Op);
    const uint8_t *P = reinterpret_cast<const uint8_t *>(I.Ptr);
    OS << orInvalid(opcodeName(Op));
    switch (K) {
    case BRIG_KIND_INST_BASIC:
      mod(typeName(I->type));
      break;
    case BRIG_KIND_INST_MOD: {
      auto X = load<BrigInstMod>(P);
      if (X.modifier & BRIG_ALU_FTZ)
        OS << "_ftz";
      rounding(Op, I->type, BRIG_TYPE_NONE, X.round);
      mod(packName(X.pack));
      mod(typeName(I->type));
      break;
    }
    case BRIG_KIND_INST_ADDR:
      mod(segmentName(load<BrigInstAddr>(P).segment));
      mod(typeName(I->type));
      break;
    case BRIG_KIND_INST_BR:
      mod(width(Op, load<BrigInstBr>(P).width));
      mod(typeName(I->type));
      break;
    case BRIG_KIND_INST_MEM: {
      auto X = load<BrigInstMem>(P);
      mod(vector(Off, Info));
      if (Op != BRIG_OPCODE_ALLOCA)
        mod(segmentName(X.segment));
      mod(align(X.align));
      if (X.modifier & BRIG_MEMORY_CONST)
        OS << "_const";
      mod(equiv(X.equivClass));
      mod(width(Op, X.width));
      mod(typeName(I->type));
      break;
    }
    case BRIG_KIND_INST_SEG:
      mod(segmentName(load<BrigInstSeg>(P).segment));
      mod(typeName(I->type));
      break;
    case BRIG_KIND_INST_SEG_CVT: {
      auto X = load<BrigInstSegCvt>(P);
      mod(segmentName(X.segment));
      if (X.modifier & BRIG_SEG_CVT_NONULL)
        OS << "_nonull";
      mod(typeName(I->type));
      mod(typeName(X.sourceType));
      break;
    }
    case BRIG_KIND_INST_QUEUE: {
      auto X = load<BrigInstQueue>(P);
      mod(segmentName(X.segment));
      mod(memoryOrderName(X.memoryOrder));
      mod(typeName(I->type));
      break;
    }
    case BRIG_KIND_INST_SOURCE_TYPE:
      mod(vector(Off, Info));
      mod(typeName(I->type));
      mod(typeName(load<BrigInstSourceType>(P).sourceType));
      break;
    case BRIG_KIND_INST_CMP: {
      auto X = load<BrigInstCmp>(P);
      mod(compareName(X.compare));
      if (X.modifier & BRIG_ALU_FTZ)
        OS << "_ftz";
      mod(packName(X.pack));
      mod(typeName(I->type));
      mod(typeName(X.sourceType));
      break;
    }
    case BRIG_KIND_INST_CVT: {
      auto X = load<BrigInstCvt>(P);
      if (X.modifier & BRIG_ALU_FTZ)
        OS << "_ftz";
      rounding(Op, I->type, X.sourceType, X.round);
      mod(typeName(I->type));
      mod(typeName(X.sourceType));
      break;
    }
    case BRIG_KIND_INST_ATOMIC: {
      auto X = load<BrigInstAtomic>(P);
      mod(atomicOpName(X.atomicOperation));
      mod(segmentName(X.segment));
      mod(memoryOrderName(X.memoryOrder));
      mod(memoryScopeName(X.memoryScope));
      mod(equiv(X.equivClass));
      mod(typeName(I->type));
      break;
    }
    case BRIG_KIND_INST_IMAGE: {
      auto X = load<BrigInstImage>(P);
      mod(vector(Off, Info));
      mod(geometryName(X.geometry));
      mod(equiv(X.equivClass));
      mod(typeName(I->type));
      mod(typeName(X.imageType));
      mod(typeName(X.coordType));
      break;
    }
    case BRIG_KIND_INST_LANE: {
      auto X = load<BrigInstLane>(P);
      mod(vector(Off, Info));
      mod(width(Op, X.width));
      mod(typeName(I->type));
      if (X.sourceType != BRIG_TYPE_NONE)
        mod(typeName(X.sourceType));
      break;
    }
    case BRIG_KIND_INST_MEM_FENCE: {
      auto X = load<BrigInstMemFence>(P);
      mod(memoryOrderName(X.memoryOrder));
      mod(memoryScopeName(X.globalSegmentMemoryScope));
      mod(typeName(I->type));
      break;
    }
    case BRIG_KIND_INST_SIGNAL: {
      auto X = load<BrigInstSignal>(P);
      mod(atomicOpName(X.signalOperation));
      mod(memoryOrderName(X.memoryOrder));
      mod(typeName(I->type));
      mod(typeName(X.signalType));
      break;
    }
    case BRIG_KIND_INST_QUERY_IMAGE: {
      auto X = load<BrigInstQueryImage>(P);
      mod(geometryName(X.geometry));
      mod(imageQueryName(X.query));
      mod(typeName(I->type));
      mod(typeName(X.imageType));
      break;
    }
    case BRIG_KIND_INST_QUERY_SAMPLER:
      mod(samplerQueryName(load<BrigInstQuerySampler>(P).query));
      mod(typeName(I->type));
      break;
    default:
      OS << "/* Unsupported Instruction Format " << K << " */";
      break;
    }

    OffsetList L = M.offsetList(I->operands);
    bool IsCall = Op == BRIG_OPCODE_CALL || Op == BRIG_OPCODE_SCALL ||
                  Op == BRIG_OPCODE_ICALL;
    if (K == BRIG_KIND_INST_BR && IsCall && L.size() >= 3) {
      OS << '\t';
      printOperand(L[1]);
      if (M.operand<BrigOperandCodeList>(L[0])) {
        OS << ' ';
        printOperand(L[0]);
      }
      if (M.operand<BrigOperandCodeList>(L[2])) {
        OS << ' ';
        printOperand(L[2]);
      }
      if (L.size() > 3) {
        if (auto CL = M.operand<BrigOperandCodeList>(L[3])) {
          OS << " [";
          printSymbolList(CL->elements);
          OS << ']';
        } else if (auto R = M.operand<BrigOperandCodeRef>(L[3])) {
          OS << ' ' << symbolName(R->ref);
        }
      }
    } else if (K == BRIG_KIND_INST_BR && Op == BRIG_OPCODE_SBR &&
               L.size() >= 2) {
      OS << '\t';
      printOperand(L[0]);
      OS << ' ';
      if (auto CL = M.operand<BrigOperandCodeList>(L[1])) {
        OS << '[';
        printSymbolList(CL->elements);
        OS << ']';
      }
    } else if (L.size() > 0) {
      OS << '\t';
      for (uint32_t Idx = 0; Idx < L.size(); ++Idx) {
        if (Idx)
          OS << ", ";
        if (L[Idx])
          printOperand(L[Idx]);
        else
          OS << "NULL";
      }
    }
    OS << ';';
  }

  //===--- Operands -------------------------------------------------------===//

  StringRef symbolName(uint32_t CodeOff) {
    if (auto E = M.code<BrigDirectiveExecutable>(CodeOff))
      return str(E->name);
    if (auto V = M.code<BrigDirectiveVariable>(CodeOff))
      return str(V->name);
    if (auto L = M.code<BrigDirectiveLabel>(CodeOff))
      return str(L->name);
    if (auto F = M.code<BrigDirectiveFbarrier>(CodeOff))
      return str(F->name);
    if (auto D = M.code<BrigDirectiveModule>(CodeOff))
      return str(D->name);
    return Invalid;
  }

  void printSymbolList(uint32_t ListOff) {
    OffsetList L = M.offsetList(ListOff);
    if (!spend(L.size())) {
      OS << Invalid;
      return;
    }
    for (uint32_t I = 0; I < L.size(); ++I) {
      if (I)
        OS << ", ";
      OS << symbolName(L[I]);
    }
  }

  unsigned addressBits(const BrigOperandAddress &A) {
    unsigned ModelBits = Model == BRIG_MACHINE_LARGE ? 64 : 32;
    if (auto R = M.operand<BrigOperandRegister>(A.reg))
      return R->regKind == BRIG_REGISTER_KIND_DOUBLE ? 64 : 32;
    if (auto V = M.code<BrigDirectiveVariable>(A.symbol)) {
      switch (V->segment) {
      case BRIG_SEGMENT_GROUP:
      case BRIG_SEGMENT_PRIVATE:
      case BRIG_SEGMENT_SPILL:
      case BRIG_SEGMENT_ARG:
        return 32;
      default:
        return ModelBits;
      }
    }
    return ModelBits;
  }

  void printRegister(uint32_t Off) {
    auto R = M.operand<BrigOperandRegister>(Off);
    if (!R) {
      OS << Invalid;
      return;
    }
    OS << orInvalid(registerPrefix(R->regKind)) << R->regNum;
  }

  void printAddress(uint32_t Off) {
    auto A = *M.operand<BrigOperandAddress>(Off);
    int64_t Offset = int64_t(A.offset.value());
    if (addressBits(A) == 32)
      Offset = int32_t(uint32_t(Offset));
    if (A.symbol)
      OS << '[' << symbolName(A.symbol) << ']';
    if (A.reg) {
      OS << '[';
      printRegister(A.reg);
      if (Offset > 0)
        OS << '+' << Offset;
      if (Offset < 0)
        OS << '-' << (uint64_t(0) - uint64_t(Offset));
      OS << ']';
    } else if (Offset != 0 || !A.symbol) {
      if (A.symbol && Offset < 0)
        OS << "[-" << (uint64_t(0) - uint64_t(Offset)) << ']';
      else
        OS << '[' << A.offset.value() << ']';
    }
  }

  void printConstantBytes(uint32_t Off) {
    auto C = *M.operand<BrigOperandConstantBytes>(Off);
    std::optional<StringRef> B = M.dataBytes(C.bytes);
    unsigned Elt = brigTypeArrayElement(C.type);
    unsigned EB =
        elementBytes(Elt == BRIG_TYPE_B128 ? unsigned(BRIG_TYPE_U8X16) : Elt);
    bool Array = brigTypeIsArray(C.type);
    if (Array)
      OS << orInvalid(typeName(Elt)) << "[](";
    if (!B || !typeName(Elt) || Elt == BRIG_TYPE_NONE ||
        (Array ? B->size() % EB != 0 : B->size() < EB)) {
      OS << Invalid;
    } else {
      const uint8_t *P = reinterpret_cast<const uint8_t *>(B->data());
      size_t N = Array ? B->size() / EB : 1;
      if (!spend(N))
        N = 0, OS << Invalid;
      for (size_t I = 0; I < N; ++I) {
        if (I)
          OS << ", ";
        OS << valueText(Elt, P + I * EB);
      }
    }
    if (Array)
      OS << ')';
  }

  void printImage(uint32_t Off) {
    auto I = *M.operand<BrigOperandConstantImage>(Off);
    std::string L;
    auto Add = [&](const char *Name, const std::string &V) {
      if (V.empty())
        return;
      if (!L.empty())
        L += ", ";
      L += std::string(Name) + " = " + V;
    };
    auto Num = [](uint64_t V) { return V ? std::to_string(V) : ""; };
    Add("geometry", orInvalid(geometryName(I.geometry)));
    Add("width", Num(I.width.value()));
    Add("height", Num(I.height.value()));
    Add("depth", Num(I.depth.value()));
    Add("array", Num(I.array.value()));
    Add("channel_type", orInvalid(channelTypeName(I.channelType)));
    Add("channel_order", orInvalid(channelOrderName(I.channelOrder)));
    OS << orInvalid(typeName(I.type)) << '(' << L << ')';
  }

  void printSampler(uint32_t Off) {
    auto S = *M.operand<BrigOperandConstantSampler>(Off);
    OS << orInvalid(typeName(S.type))
       << "(coord = " << orInvalid(samplerCoordName(S.coord))
       << ", filter = " << orInvalid(samplerFilterName(S.filter))
       << ", addressing = " << orInvalid(samplerAddressingName(S.addressing))
       << ')';
  }

  /// A multi-line list of constants as in aggregate initializers.
  void printConstantList(OffsetList L, bool Typed) {
    uint32_t N = spend(L.size()) ? L.size() : 0;
    for (uint32_t I = 0; I < N; ++I) {
      if (I)
        OS << ", ";
      if (N > 1) {
        OS << '\n';
        indent();
        OS << '\t';
      }
      if (Typed)
        printTypedOperand(L[I], /*Strict=*/true);
      else
        printOperand(L[I]);
    }
    if (N > 1)
      OS << '\n';
  }

  void printTypedOperand(uint32_t Off, bool Strict) {
    if (auto C = M.operand<BrigOperandConstantBytes>(Off)) {
      unsigned T = C->type;
      bool Implicit = isIntType(T) || isFloatType(T);
      bool Allowed = !Strict && (T == BRIG_TYPE_U64 || isFloatType(T));
      if (Implicit && !Allowed) {
        OS << typeName(T) << '(';
        printOperand(Off);
        OS << ')';
        return;
      }
    }
    printOperand(Off);
  }

  void printOperand(uint32_t Off) {
    EntryRef<> E = M.operand(Off);
    if (!E || !spend(1)) {
      OS << Invalid;
      return;
    }
    switch (E.kind()) {
    case BRIG_KIND_OPERAND_REGISTER:
      printRegister(Off);
      return;
    case BRIG_KIND_OPERAND_ADDRESS:
      if (M.operand<BrigOperandAddress>(Off))
        printAddress(Off);
      return;
    case BRIG_KIND_OPERAND_WAVESIZE:
      OS << "WAVESIZE";
      return;
    case BRIG_KIND_OPERAND_CONSTANT_BYTES:
      if (M.operand<BrigOperandConstantBytes>(Off))
        printConstantBytes(Off);
      return;
    case BRIG_KIND_OPERAND_CODE_LIST:
      if (auto L = M.operand<BrigOperandCodeList>(Off)) {
        OS << '(';
        printSymbolList(L->elements);
        OS << ')';
      }
      return;
    case BRIG_KIND_OPERAND_CODE_REF:
      if (auto R = M.operand<BrigOperandCodeRef>(Off))
        OS << symbolName(R->ref);
      return;
    case BRIG_KIND_OPERAND_CONSTANT_IMAGE:
      if (M.operand<BrigOperandConstantImage>(Off))
        printImage(Off);
      return;
    case BRIG_KIND_OPERAND_CONSTANT_SAMPLER:
      if (M.operand<BrigOperandConstantSampler>(Off))
        printSampler(Off);
      return;
    case BRIG_KIND_OPERAND_OPERAND_LIST:
      if (auto L = M.operand<BrigOperandOperandList>(Off)) {
        OS << '(';
        OffsetList Els = M.offsetList(L->elements);
        if (!spend(Els.size()))
          Els = OffsetList();
        for (uint32_t I = 0; I < Els.size(); ++I) {
          if (I)
            OS << ", ";
          // Vector elements are never lists, so this does not recurse.
          if (M.operand<BrigOperandOperandList>(Els[I]))
            OS << Invalid;
          else
            printOperand(Els[I]);
        }
        OS << ')';
      }
      return;
    case BRIG_KIND_OPERAND_CONSTANT_OPERAND_LIST:
      if (auto L = M.operand<BrigOperandConstantOperandList>(Off)) {
        if (Depth > 0) { // Constant lists never nest.
          OS << Invalid;
          return;
        }
        ++Depth;
        OffsetList Els = M.offsetList(L->elements);
        if (L->type == BRIG_TYPE_NONE) {
          OS << '{';
          printConstantList(Els, /*Typed=*/true);
          OS << '}';
        } else {
          OS << orInvalid(typeName(brigTypeArrayElement(L->type))) << "[](";
          printConstantList(Els, /*Typed=*/false);
          indent();
          OS << ')';
        }
        --Depth;
      }
      return;
    case BRIG_KIND_OPERAND_STRING:
      if (auto S = M.operand<BrigOperandString>(Off))
        printStringLiteral(str(S->string));
      return;
    case BRIG_KIND_OPERAND_ALIGN:
      // An aggregate's align(1) is an element like any other: printed, or
      // the text would not assemble (HSAILasm's disassembler leaves it out
      // and fails the same way; its assembler takes align(1)).
      if (auto A = M.operand<BrigOperandAlign>(Off))
        OS << (A->align == BRIG_ALIGNMENT_1 ? std::string("align(1)")
                                            : align(A->align));
      return;
    default:
      OS << "/* Unsupported Operand Kind " << E.kind() << " */";
      return;
    }
  }

  const BrigModule &M;
  raw_ostream &OS;
  int Indent = 0;
  unsigned Model = BRIG_MACHINE_LARGE;
  unsigned Depth = 0;
  uint64_t Budget;
  bool InVariableInit = false;
  bool InBody = false;
};

} // namespace

void disassemble(const BrigModule &M, raw_ostream &OS) { Printer(M, OS).run(); }

std::string disassembleToString(const BrigModule &M) {
  std::string S;
  raw_string_ostream OS(S);
  disassemble(M, OS);
  return OS.str();
}

std::string disassembleInst(const BrigModule &M, uint32_t CodeOffset) {
  if (!M.code<BrigInstBase>(CodeOffset))
    return "";
  std::string S;
  raw_string_ostream OS(S);
  Printer(M, OS).printInstOnly(CodeOffset);
  return OS.str();
}

} // namespace openhsa::brig
