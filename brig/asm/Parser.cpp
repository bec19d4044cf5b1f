//===- brig/asm/Parser.cpp - HSAIL text to Program ------------------------===//

#include "brig/asm/Parser.h"

#include "brig/asm/Lexer.h"
#include "brig/asm/Literals.h"
#include "brig/asm/Mnemonics.h"
#include "brig/asm/Semantics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <cstring>

namespace openhsa::brig::assembler {

namespace {

enum class ImmKind { Any, Typed, Untyped };

/// Types that may start a typed constant such as u32(5) or f32x2(...).
bool isTypedLiteralWord(const Token &T, uint16_t &TypeOut) {
  if (T.Kind != Tok::Word)
    return false;
  std::optional<uint16_t> Ty = lookupType(T.Text);
  if (!Ty || isBitType(*Ty) || *Ty == BRIG_TYPE_SAMP || isImageType(*Ty))
    return false;
  TypeOut = *Ty;
  return true;
}

/// Image and sampler object keywords: rwimg, roimg, woimg, samp.
bool isOpaqueObjectWord(const Token &T, uint16_t &TypeOut) {
  if (T.Kind != Tok::Word)
    return false;
  std::optional<uint16_t> Ty = lookupType(T.Text);
  if (!Ty || !(isImageType(*Ty) || *Ty == BRIG_TYPE_SAMP))
    return false;
  TypeOut = *Ty;
  return true;
}

std::string typeName(unsigned T) {
  static const char *const Names[] = {
      "none", "u8",   "u16",  "u32",   "u64",   "s8",    "s16",   "s32",
      "s64",  "f16",  "f32",  "f64",   "b1",    "b8",    "b16",   "b32",
      "b64",  "b128", "samp", "roimg", "woimg", "rwimg", "sig32", "sig64"};
  unsigned Base = T & BRIG_TYPE_BASE_MASK;
  std::string S = Base < std::size(Names) ? Names[Base] : "?";
  if (isPackedType(T)) {
    unsigned N = typeBits(T) / typeBits(Base);
    S += "x" + std::to_string(N);
  }
  if (brigTypeIsArray(T))
    S += "[]";
  return S;
}

void writeBytes(std::string &Data, size_t Pos, const void *Src, size_t N) {
  if (Data.size() < Pos + N)
    Data.resize(Pos + N, '\0');
  std::memcpy(&Data[Pos], Src, N);
}

class Parser {
public:
  Parser(llvm::StringRef Source, bool CheckSemantics)
      : Lex(Source), CheckSemantics(CheckSemantics) {}

  llvm::Expected<Program> run();

private:
  // Token access --------------------------------------------------------
  // Comments are statements only at statement boundaries (see
  // collectComments); inside a statement they are skipped.
  void skipComments() {
    while (Lex.peek().Kind == Tok::Comment)
      Lex.next();
  }
  void collectComments(std::vector<Stmt> &Out) {
    while (Lex.peek().Kind == Tok::Comment) {
      Token C = Lex.next();
      Out.push_back(Stmt{CommentDirective{C.Loc, C.StrValue}});
    }
  }
  const Token &peek() {
    skipComments();
    const Token &T = Lex.peek();
    if (T.Kind == Tok::Error)
      fail(T.Loc, T.StrValue);
    return T;
  }
  Token next() {
    skipComments();
    Token T = Lex.next();
    if (T.Kind == Tok::Error)
      fail(T.Loc, T.StrValue);
    return T;
  }
  bool at(Tok K) { return peek().Kind == K; }
  bool atWord(llvm::StringRef W) { return peek().isWord(W); }
  bool tryEat(Tok K) {
    if (!at(K))
      return false;
    next();
    return true;
  }
  bool expect(Tok K, const char *What) {
    if (Failed)
      return false;
    if (at(K)) {
      next();
      return true;
    }
    return fail(peek().Loc, llvm::Twine("expected ") + What);
  }
  bool fail(SourceLoc L, const llvm::Twine &Msg) {
    if (!Failed) {
      Failed = true;
      ErrLoc = L;
      ErrMsg = Msg.str();
    }
    return false;
  }
  ModuleTraits traits() const {
    return ModuleTraits{Profile, Model, ImageExtension};
  }
  /// Records an AsmError produced elsewhere (brig/asm/Semantics.h).
  bool failWith(llvm::Error E) {
    llvm::handleAllErrors(
        std::move(E), [&](const AsmError &A) { fail(A.loc(), A.text()); },
        [&](const llvm::ErrorInfoBase &B) { fail(SourceLoc{}, B.message()); });
    return false;
  }

  // Statements ------------------------------------------------------------
  bool parseTopLevel(std::vector<Stmt> &Out);
  bool parseModule(std::vector<Stmt> &Out);
  bool parseExtension(std::vector<Stmt> &Out);
  bool parsePragma(std::vector<Stmt> &Out);
  bool parseControl(std::vector<Stmt> &Out);
  bool parseLoc(std::vector<Stmt> &Out);
  bool parseExecutable(std::vector<Stmt> &Out, bool IsDecl,
                       std::optional<uint8_t> Linkage, bool Indirect);
  bool parseFbarrier(std::vector<Stmt> &Out, bool ModuleLevel, bool IsDecl,
                     std::optional<uint8_t> Linkage);
  bool isVariableStart();
  bool parseVariable(Variable &V, bool NameRequired, bool ModuleLevel,
                     bool IsDecl, std::optional<uint8_t> Linkage);
  bool parseCodeBlock(std::vector<Stmt> &Body);
  bool parseBodyStatement(std::vector<Stmt> &Body, bool InArgBlock);
  bool parseArgBlock(std::vector<Stmt> &Body);

  // Instructions ------------------------------------------------------------
  bool parseInstruction(std::vector<Stmt> &Body);
  bool decodeMnemonic(const Token &W, const OpcodeInfo &Info, Instruction &I,
                      int &Vector);
  unsigned requiredType(const OpcodeInfo &Info, const Instruction &I,
                        unsigned Idx);
  bool parseOperands(const OpcodeInfo &Info, Instruction &I);
  bool parseCallOperands(const OpcodeInfo &Info, Instruction &I);
  bool parseArgList(Operand &Out);

  // Operands ----------------------------------------------------------------
  bool parseOperand(unsigned Required, Operand &Out);
  bool parseAddressOperand(unsigned Required, Operand &Out);
  bool parseAddressTail(Operand &Out, bool &HasReg, int64_t &Offset);
  bool parseConstant(unsigned Required, Operand &Out);
  bool parseImmediate(std::string &Data, unsigned Required, size_t Pos,
                      ImmKind Kind, unsigned &LiteralType);
  bool validateTypedConversion(unsigned Required, unsigned Actual, SourceLoc L);
  bool readInt(uint64_t &V);
  bool parseAlignParen(uint8_t &Align);
  bool parseOpaqueObject(Operand &Out);
  bool parseOpaqueArrayElements(uint16_t Type, std::vector<Operand> &Out);
  bool parseImageProperties(uint16_t Type, SourceLoc L, Operand &Out);
  bool parseSamplerProperties(SourceLoc L, Operand &Out);
  bool parseAggregate(Operand &Out);
  bool parseStringLiteral(std::string &Out);

  Lexer Lex;
  // Whether the rules of Semantics.h run; off only to build BRIG that breaks
  // them (tests of ModuleSemantics.h).
  bool CheckSemantics;
  bool Failed = false;
  SourceLoc ErrLoc;
  std::string ErrMsg;

  bool SeenModule = false;
  uint8_t Model = BRIG_MACHINE_LARGE;
  uint8_t Profile = BRIG_PROFILE_FULL;
  bool ImageExtension = false;                    // extension "IMAGE" seen
  const std::vector<Stmt> *ModuleStmts = nullptr; // the module so far
  // The function whose body is being parsed: the last executable of its
  // name, so a call to it (recursion) checks against its own arguments.
  const Executable *Enclosing = nullptr;
  std::string LocFile;
};

llvm::Expected<Program> Parser::run() {
  Program P;
  ModuleStmts = &P.Stmts;
  while (!Failed) {
    collectComments(P.Stmts);
    if (at(Tok::Eof))
      break;
    parseTopLevel(P.Stmts);
  }
  if (Failed)
    return llvm::make_error<AsmError>(ErrLoc, ErrMsg);
  if (!SeenModule)
    return llvm::make_error<AsmError>(SourceLoc{1, 1}, "missing module header");
  if (CheckSemantics)
    if (llvm::Error E = checkModuleLinkageDefinitions(P.Stmts))
      return E;
  return P;
}

bool Parser::readInt(uint64_t &V) {
  const Token &T = peek();
  if (T.Kind != Tok::Integer)
    return fail(T.Loc, "expected integer constant");
  std::optional<uint64_t> Val = integerValue(T);
  if (!Val)
    return fail(T.Loc, "invalid literal");
  V = *Val;
  next();
  return true;
}

bool Parser::parseStringLiteral(std::string &Out) {
  if (!at(Tok::String))
    return fail(peek().Loc, "expected string literal");
  // Adjacent string literals are concatenated.
  while (at(Tok::String))
    Out += next().StrValue;
  return true;
}

//===----------------------------------------------------------------------===//
// Module-level statements
//===----------------------------------------------------------------------===//

bool Parser::parseTopLevel(std::vector<Stmt> &Out) {
  const Token &T = peek();
  if (Failed)
    return false;
  if (T.isWord("module"))
    return parseModule(Out);
  if (T.isWord("pragma"))
    return parsePragma(Out);
  if (T.isWord("loc"))
    return parseLoc(Out);
  if (!SeenModule)
    return fail(T.Loc, "expected module header");
  if (T.isWord("extension"))
    return parseExtension(Out);
  if (T.Kind == Tok::Word && lookupControl(T.Text))
    return parseControl(Out);

  bool IsDecl = false;
  std::optional<uint8_t> Linkage;
  bool Indirect = false;
  if (atWord("decl")) {
    next();
    IsDecl = true;
  }
  if (atWord("prog")) {
    next();
    Linkage = BRIG_LINKAGE_PROGRAM;
  }
  if (atWord("indirect")) {
    next();
    Indirect = true;
    if (!atWord("function"))
      return fail(peek().Loc, "expected 'function'");
  }
  if (atWord("function") || atWord("kernel") || atWord("signature"))
    return parseExecutable(Out, IsDecl, Linkage, Indirect);
  if (atWord("fbarrier"))
    return parseFbarrier(Out, /*ModuleLevel=*/true, IsDecl, Linkage);
  if (isVariableStart()) {
    Variable V;
    if (!parseVariable(V, /*NameRequired=*/true, /*ModuleLevel=*/true, IsDecl,
                       Linkage))
      return false;
    if (CheckSemantics)
      if (llvm::Error E = checkVariable(V, VarScope::Module, traits()))
        return failWith(std::move(E));
    if (!expect(Tok::Semi, "';'"))
      return false;
    Out.push_back(Stmt{std::move(V)});
    return true;
  }
  return fail(peek().Loc, "unexpected token in module statement");
}

bool Parser::parseModule(std::vector<Stmt> &Out) {
  ModuleDirective M;
  M.Loc = next().Loc;
  if (SeenModule)
    return fail(M.Loc, "duplicate module directive");
  const Token &N = peek();
  if (N.Kind != Tok::GlobalId)
    return fail(N.Loc, "expected global identifier");
  SourceLoc NameLoc = N.Loc;
  M.Name = next().Text.str();
  uint64_t Major = 0, Minor = 0;
  if (!expect(Tok::Colon, "':'") || !readInt(Major) ||
      !expect(Tok::Colon, "':'") || !readInt(Minor) ||
      !expect(Tok::Colon, "':'"))
    return false;
  const Token &P = peek();
  if (P.Kind == Tok::DollarKw && P.Text == "$full")
    M.Profile = BRIG_PROFILE_FULL;
  else if (P.Kind == Tok::DollarKw && P.Text == "$base")
    M.Profile = BRIG_PROFILE_BASE;
  else
    return fail(P.Loc, "expected profile ($full or $base)");
  next();
  if (!expect(Tok::Colon, "':'"))
    return false;
  const Token &Mm = peek();
  if (Mm.Kind == Tok::DollarKw && Mm.Text == "$large")
    M.MachineModel = BRIG_MACHINE_LARGE;
  else if (Mm.Kind == Tok::DollarKw && Mm.Text == "$small")
    M.MachineModel = BRIG_MACHINE_SMALL;
  else
    return fail(Mm.Loc, "expected machine model ($small or $large)");
  next();
  if (!expect(Tok::Colon, "':'"))
    return false;
  const Token &R = peek();
  if (R.Kind == Tok::DollarKw && R.Text == "$default")
    M.DefaultRound = BRIG_ROUND_FLOAT_DEFAULT;
  else if (R.Kind == Tok::DollarKw && R.Text == "$near")
    M.DefaultRound = BRIG_ROUND_FLOAT_NEAR_EVEN;
  else if (R.Kind == Tok::DollarKw && R.Text == "$zero")
    M.DefaultRound = BRIG_ROUND_FLOAT_ZERO;
  else
    return fail(R.Loc, "expected default rounding ($default, $near or $zero)");
  next();
  if (!expect(Tok::Semi, "';'"))
    return false;
  if (Major > 0xffffffffull)
    return fail(M.Loc, "invalid major version number");
  if (Minor > 0xffffffffull)
    return fail(M.Loc, "invalid minor version number");
  // PRM 14.1: this is HSAIL 1.0.
  if (Major != 1 || Minor != 0)
    return fail(NameLoc, llvm::Twine("unsupported HSAIL version ") +
                             llvm::Twine(Major) + ":" + llvm::Twine(Minor) +
                             " (only 1:0 is supported)");
  M.Major = uint32_t(Major);
  M.Minor = uint32_t(Minor);
  SeenModule = true;
  Model = M.MachineModel;
  Profile = M.Profile;
  Out.push_back(Stmt{std::move(M)});
  return true;
}

bool Parser::parseExtension(std::vector<Stmt> &Out) {
  ExtensionDirective E;
  E.Loc = next().Loc;
  // PRM 14.2: extensions follow the module header, before any declaration
  // or definition.
  for (const Stmt &St : Out)
    if (!std::holds_alternative<ModuleDirective>(St.V) &&
        !std::holds_alternative<ExtensionDirective>(St.V) &&
        !std::holds_alternative<PragmaDirective>(St.V) &&
        !std::holds_alternative<LocDirective>(St.V) &&
        !std::holds_alternative<CommentDirective>(St.V))
      return fail(E.Loc, "extension directives must come before the "
                         "declarations and definitions of the module");
  if (!parseStringLiteral(E.Name) || !expect(Tok::Semi, "';'"))
    return false;
  if (E.Name == "IMAGE")
    ImageExtension = true;
  Out.push_back(Stmt{std::move(E)});
  return true;
}

bool Parser::parseLoc(std::vector<Stmt> &Out) {
  LocDirective L;
  L.Loc = next().Loc;
  uint64_t Line = 0, Col = 1;
  if (!readInt(Line))
    return false;
  if (at(Tok::Integer) && !readInt(Col))
    return false;
  if (at(Tok::String)) {
    LocFile.clear();
    if (!parseStringLiteral(LocFile))
      return false;
  }
  if (!expect(Tok::Semi, "';'"))
    return false;
  if (Line > 0xffffffffull)
    return fail(L.Loc, "invalid source line");
  if (Col > 0xffffffffull)
    return fail(L.Loc, "invalid source column");
  L.Line = uint32_t(Line);
  L.Column = uint32_t(Col);
  L.FileName = LocFile;
  Out.push_back(Stmt{std::move(L)});
  return true;
}

bool Parser::parsePragma(std::vector<Stmt> &Out) {
  PragmaDirective P;
  P.Loc = next().Loc;
  do {
    Operand O;
    const Token &T = peek();
    uint16_t Ty;
    if (Failed)
      return false;
    if (T.Kind == Tok::String) {
      O.K = Operand::Kind::String;
      O.Loc = T.Loc;
      if (!parseStringLiteral(O.Name))
        return false;
    } else if (isOpaqueObjectWord(T, Ty)) {
      if (!parseOpaqueObject(O))
        return false;
    } else if (T.Kind == Tok::GlobalId || T.Kind == Tok::LocalId) {
      O.K = Operand::Kind::CodeRef;
      O.Loc = T.Loc;
      O.Name = next().Text.str();
    } else if (T.Kind == Tok::LabelId) {
      O.K = Operand::Kind::LabelRef;
      O.Loc = T.Loc;
      O.Name = next().Text.str();
    } else if (T.Kind == Tok::Register) {
      if (!parseOperand(BRIG_TYPE_NONE, O))
        return false;
    } else if (T.Kind == Tok::LCurly) {
      if (!parseAggregate(O))
        return false;
    } else if (T.isWord("WAVESIZE")) {
      O.K = Operand::Kind::Wavesize;
      O.Loc = next().Loc;
    } else {
      O.K = Operand::Kind::Constant;
      O.Loc = T.Loc;
      unsigned LitType = 0;
      if (!parseImmediate(O.Bytes, BRIG_TYPE_NONE, 0, ImmKind::Any, LitType))
        return false;
      O.Type = uint16_t(LitType);
    }
    P.Operands.push_back(std::move(O));
  } while (tryEat(Tok::Comma));
  if (!expect(Tok::Semi, "';'"))
    return false;
  Out.push_back(Stmt{std::move(P)});
  return true;
}

static unsigned controlOperandType(unsigned Control, unsigned Idx) {
  switch (Control) {
  case BRIG_CONTROL_ENABLEBREAKEXCEPTIONS:
  case BRIG_CONTROL_ENABLEDETECTEXCEPTIONS:
  case BRIG_CONTROL_MAXDYNAMICGROUPSIZE:
  case BRIG_CONTROL_MAXFLATWORKGROUPSIZE:
  case BRIG_CONTROL_REQUIREDDIM:
    return Idx == 0 ? BRIG_TYPE_U32 : BRIG_TYPE_NONE;
  case BRIG_CONTROL_MAXFLATGRIDSIZE:
    return Idx == 0 ? BRIG_TYPE_U64 : BRIG_TYPE_NONE;
  case BRIG_CONTROL_REQUIREDGRIDSIZE:
    return Idx <= 2 ? BRIG_TYPE_U64 : BRIG_TYPE_NONE;
  case BRIG_CONTROL_REQUIREDWORKGROUPSIZE:
    return Idx <= 2 ? BRIG_TYPE_U32 : BRIG_TYPE_NONE;
  default:
    return BRIG_TYPE_NONE;
  }
}

bool Parser::parseControl(std::vector<Stmt> &Out) {
  ControlDirective C;
  Token W = next();
  C.Loc = W.Loc;
  C.Control = *lookupControl(W.Text);
  unsigned Idx = 0;
  if (!at(Tok::Semi)) {
    do {
      Operand O;
      O.Loc = peek().Loc;
      unsigned Ty = controlOperandType(C.Control, Idx);
      if (Ty == BRIG_TYPE_NONE)
        return fail(O.Loc, Idx == 0 ? "directive has no arguments"
                                    : "no more arguments expected");
      if (atWord("WAVESIZE")) {
        next();
        O.K = Operand::Kind::Wavesize;
      } else {
        uint64_t V = 0;
        if (!readInt(V))
          return false;
        if (Ty == BRIG_TYPE_U32)
          V &= 0xffffffffull;
        O.K = Operand::Kind::Constant;
        O.Type = uint16_t(Ty);
        writeBytes(O.Bytes, 0, &V, typeBytes(Ty));
      }
      C.Operands.push_back(std::move(O));
      ++Idx;
    } while (tryEat(Tok::Comma));
  }
  unsigned Needed = 0;
  while (controlOperandType(C.Control, Needed) != BRIG_TYPE_NONE)
    ++Needed;
  if (Idx < Needed && !Failed)
    return fail(C.Loc, llvm::Twine("insufficient number of operands: ") +
                           W.Text + " takes " + llvm::Twine(Needed));
  if (!expect(Tok::Semi, "';'"))
    return false;
  Out.push_back(Stmt{std::move(C)});
  return true;
}

bool Parser::parseFbarrier(std::vector<Stmt> &Out, bool ModuleLevel,
                           bool IsDecl, std::optional<uint8_t> Linkage) {
  Fbarrier F;
  next(); // fbarrier
  const Token &N = peek();
  if (N.Kind != (ModuleLevel ? Tok::GlobalId : Tok::LocalId))
    return fail(N.Loc, ModuleLevel ? "expected global identifier"
                                   : "expected local identifier");
  F.Loc = N.Loc;
  F.Name = next().Text.str();
  F.IsDecl = IsDecl;
  F.Linkage = Linkage;
  F.IsModuleLevel = ModuleLevel;
  if (!expect(Tok::Semi, "';'"))
    return false;
  Out.push_back(Stmt{std::move(F)});
  return true;
}

bool Parser::isVariableStart() {
  const Token &T = peek();
  if (T.Kind != Tok::Word)
    return false;
  if (T.Text == "align" || T.Text == "const" || T.Text == "alloc")
    return true;
  llvm::StringRef First = T.Text.split('_').first;
  return T.Text.contains('_') && lookupSegment(First).has_value();
}

bool Parser::parseAlignParen(uint8_t &Align) {
  uint64_t V = 0;
  if (!expect(Tok::LParen, "'('") || !readInt(V))
    return false;
  unsigned A = alignmentFromBytes(V);
  if (A > BRIG_ALIGNMENT_LAST)
    return fail(peek().Loc, "invalid alignment");
  Align = uint8_t(A);
  return expect(Tok::RParen, "')'");
}

bool Parser::parseVariable(Variable &V, bool NameRequired, bool ModuleLevel,
                           bool IsDecl, std::optional<uint8_t> Linkage) {
  if (atWord("alloc")) {
    next();
    if (!expect(Tok::LParen, "'('"))
      return false;
    if (!atWord("agent"))
      return fail(peek().Loc, "expected allocation kind 'agent'");
    next();
    V.Allocation = BRIG_ALLOCATION_AGENT;
    if (!expect(Tok::RParen, "')'"))
      return false;
  }
  if (atWord("align")) {
    next();
    uint8_t A = 0;
    if (!parseAlignParen(A))
      return false;
    V.Align = A;
  }
  if (atWord("const")) {
    next();
    V.IsConst = true;
  }
  const Token &SegTok = peek();
  if (Failed)
    return false;
  auto [SegName, TypeName] = SegTok.Text.split('_');
  std::optional<uint8_t> Seg;
  if (SegTok.Kind == Tok::Word)
    Seg = lookupSegment(SegName);
  if (!Seg)
    return fail(SegTok.Loc, "expected variable segment");
  std::optional<uint16_t> Ty = lookupType(TypeName);
  if (!Ty)
    return fail(SegTok.Loc, "expected variable type");
  V.Segment = *Seg;
  V.Type = *Ty;
  V.Loc = SegTok.Loc;
  next();

  if (NameRequired) {
    const Token &N = peek();
    if (N.Kind != (ModuleLevel ? Tok::GlobalId : Tok::LocalId))
      return fail(N.Loc, ModuleLevel ? "expected global identifier"
                                     : "expected local identifier");
    V.Loc = N.Loc;
    V.Name = next().Text.str();
  } else if (at(Tok::LocalId)) {
    V.Loc = peek().Loc;
    V.Name = next().Text.str();
  }
  V.Linkage = Linkage;
  V.IsDecl = IsDecl;

  if (V.Allocation && V.Segment == BRIG_SEGMENT_READONLY)
    return fail(V.Loc, "allocation cannot be specified because readonly "
                       "segment variables have implicit agent allocation");

  if (tryEat(Tok::LBracket)) {
    V.IsArray = true;
    if (at(Tok::RBracket)) {
      V.IsFlexArray = true;
    } else {
      SourceLoc DL = peek().Loc;
      if (!readInt(V.Dim))
        return false;
      if (V.Dim == 0)
        return fail(DL, "arrays must have dim > 0");
    }
    if (!expect(Tok::RBracket, "']'"))
      return false;
  }

  if (tryEat(Tok::Equal)) {
    uint16_t OpaqueTy;
    if (isOpaqueObjectWord(peek(), OpaqueTy)) {
      Operand O;
      if (!parseOpaqueObject(O))
        return false;
      V.Init = std::move(O);
    } else if (at(Tok::LCurly)) {
      Operand O;
      if (!parseAggregate(O))
        return false;
      V.Init = std::move(O);
    } else {
      Operand O;
      O.K = Operand::Kind::Constant;
      O.Loc = peek().Loc;
      unsigned Req = V.IsArray ? (V.Type | BRIG_TYPE_ARRAY) : V.Type;
      unsigned Lit = 0;
      if (!parseImmediate(O.Bytes, Req, 0, ImmKind::Any, Lit))
        return false;
      if (isBitType(V.Type) && !brigTypeIsArray(Lit) &&
          typeBytes(V.Type) == typeBytes(Lit))
        Lit = bitTypeToUnsigned(V.Type);
      O.Type = uint16_t(Lit);
      V.Init = std::move(O);
    }
    V.InitElements = initializerElements(*V.Init, V.Type);
    if (V.IsFlexArray)
      V.Dim = V.InitElements;
  }
  return true;
}

bool Parser::parseExecutable(std::vector<Stmt> &Out, bool IsDecl,
                             std::optional<uint8_t> Linkage, bool Indirect) {
  Executable E;
  Token Kw = next();
  bool IsSig = Kw.Text == "signature";
  bool IsKernel = Kw.Text == "kernel";
  if (IsSig)
    E.Kind = BRIG_KIND_DIRECTIVE_SIGNATURE;
  else if (IsKernel)
    E.Kind = BRIG_KIND_DIRECTIVE_KERNEL;
  else
    E.Kind = Indirect ? BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION
                      : BRIG_KIND_DIRECTIVE_FUNCTION;
  const Token &N = peek();
  if (N.Kind != Tok::GlobalId)
    return fail(N.Loc, "expected global identifier");
  E.Loc = N.Loc;
  E.Name = next().Text.str();
  E.Linkage = Linkage;
  E.IsDecl = IsDecl;

  auto ParseArgs = [&](std::vector<Variable> &Args) {
    if (!expect(Tok::LParen, "'('"))
      return false;
    if (tryEat(Tok::RParen))
      return true;
    do {
      Variable V;
      if (!parseVariable(V, /*NameRequired=*/!IsSig, /*ModuleLevel=*/false,
                         /*IsDecl=*/false, std::nullopt))
        return false;
      if (CheckSemantics)
        if (llvm::Error E = checkVariable(
                V, IsKernel ? VarScope::KernelArg : VarScope::FunctionArg,
                traits()))
          return failWith(std::move(E));
      Args.push_back(std::move(V));
    } while (tryEat(Tok::Comma));
    return expect(Tok::RParen, "')'");
  };

  if (!IsKernel && !ParseArgs(E.OutArgs))
    return false;
  if (!ParseArgs(E.InArgs))
    return false;

  if (IsSig) {
    if (IsDecl)
      return fail(E.Loc, "signatures cannot have declarations");
  } else if (!IsDecl) {
    E.HasBody = true;
    Enclosing = &E;
    const bool Parsed = parseCodeBlock(E.Body);
    Enclosing = nullptr;
    if (!Parsed)
      return false;
    if (CheckSemantics)
      if (llvm::Error Err = checkRegisterLimits(E))
        return failWith(std::move(Err));
  }
  if (!expect(Tok::Semi, "';'"))
    return false;
  Out.push_back(Stmt{std::move(E)});
  return true;
}

bool Parser::parseCodeBlock(std::vector<Stmt> &Body) {
  if (!expect(Tok::LCurly, "'{'"))
    return false;
  while (!Failed) {
    collectComments(Body);
    if (tryEat(Tok::RCurly))
      break;
    if (at(Tok::Eof))
      return fail(peek().Loc, "unexpected end of file in code block");
    if (!parseBodyStatement(Body, /*InArgBlock=*/false))
      return false;
  }
  return !Failed;
}

bool Parser::parseArgBlock(std::vector<Stmt> &Body) {
  ArgBlock A;
  A.Loc = next().Loc;
  while (!Failed) {
    collectComments(A.Body);
    if (at(Tok::RCurly))
      break;
    if (at(Tok::Eof))
      return fail(peek().Loc, "unexpected end of file in argument block");
    if (!parseBodyStatement(A.Body, /*InArgBlock=*/true))
      return false;
  }
  if (Failed)
    return false;
  A.EndLoc = next().Loc;
  if (CheckSemantics)
    if (llvm::Error E = checkArgBlock(A, *ModuleStmts, Enclosing))
      return failWith(std::move(E));
  Body.push_back(Stmt{std::move(A)});
  return true;
}

bool Parser::parseBodyStatement(std::vector<Stmt> &Body, bool InArgBlock) {
  const Token &T = peek();
  if (Failed)
    return false;
  switch (T.Kind) {
  case Tok::LabelId: {
    LabelDef L;
    L.Loc = T.Loc;
    L.Name = next().Text.str();
    if (!expect(Tok::Colon, "':'"))
      return false;
    Body.push_back(Stmt{std::move(L)});
    return true;
  }
  case Tok::LCurly:
    if (InArgBlock)
      return fail(T.Loc, "nested argument scope is not allowed");
    return parseArgBlock(Body);
  case Tok::Word:
    break;
  default:
    return fail(T.Loc, "unexpected token in body statement");
  }
  if (T.Text == "pragma")
    return parsePragma(Body);
  if (T.Text == "loc")
    return parseLoc(Body);
  if (lookupControl(T.Text)) {
    // PRM 13.1: control directives come first in a code block (after
    // pragmas, loc directives and comments at most).
    for (const Stmt &St : Body)
      if (!std::holds_alternative<ControlDirective>(St.V) &&
          !std::holds_alternative<PragmaDirective>(St.V) &&
          !std::holds_alternative<LocDirective>(St.V) &&
          !std::holds_alternative<CommentDirective>(St.V))
        return fail(T.Loc, "control directives must come before the other "
                           "statements of a code block");
    return parseControl(Body);
  }
  if (T.Text == "fbarrier")
    return parseFbarrier(Body, /*ModuleLevel=*/false, false, std::nullopt);
  if (isVariableStart()) {
    Variable V;
    if (!parseVariable(V, /*NameRequired=*/true, /*ModuleLevel=*/false, false,
                       std::nullopt))
      return false;
    if (CheckSemantics)
      if (llvm::Error E = checkVariable(
              V, InArgBlock ? VarScope::ArgBlock : VarScope::Local, traits()))
        return failWith(std::move(E));
    if (!expect(Tok::Semi, "';'"))
      return false;
    Body.push_back(Stmt{std::move(V)});
    return true;
  }
  return parseInstruction(Body);
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

/// Walks the modifiers of a mnemonic ("_global_u32" ...) left to right.
class ModReader {
public:
  ModReader(llvm::StringRef Rest) : Rest(Rest) {}

  bool atEnd() const { return Rest.empty(); }
  llvm::StringRef rest() const { return Rest; }

  std::optional<unsigned> tryCat(ModCat C) {
    if (!Rest.starts_with("_"))
      return std::nullopt;
    unsigned V = 0;
    size_t L = matchModifier(C, Rest.drop_front(1), V);
    if (L == 0)
      return std::nullopt;
    Rest = Rest.drop_front(1 + L);
    return V;
  }

  bool tryWord(llvm::StringRef W) {
    if (!Rest.starts_with("_") || !Rest.drop_front(1).starts_with(W))
      return false;
    llvm::StringRef After = Rest.drop_front(1 + W.size());
    if (!After.empty() && llvm::isAlnum(After[0]))
      return false;
    Rest = After;
    return true;
  }

  /// "_W(arg)": returns the trimmed argument text.
  std::optional<llvm::StringRef> tryParen(llvm::StringRef W) {
    llvm::StringRef Save = Rest;
    if (!tryWord(W))
      return std::nullopt;
    if (!Rest.starts_with("(")) {
      Rest = Save;
      return std::nullopt;
    }
    size_t Close = Rest.find(')');
    if (Close == llvm::StringRef::npos) {
      Rest = Save;
      return std::nullopt;
    }
    llvm::StringRef Arg = Rest.slice(1, Close).trim();
    Rest = Rest.drop_front(Close + 1);
    return Arg;
  }

  std::optional<unsigned> tryVector() {
    if (tryWord("v2"))
      return 2;
    if (tryWord("v3"))
      return 3;
    if (tryWord("v4"))
      return 4;
    return std::nullopt;
  }

private:
  llvm::StringRef Rest;
};

static std::optional<uint64_t> parseIntText(llvm::StringRef S) {
  Token T;
  T.Kind = Tok::Integer;
  T.Text = S;
  if (S.size() > 2 && S[0] == '0' && (S[1] == 'x' || S[1] == 'X'))
    T.IForm = IntForm::Hex;
  else if (S.size() > 1 && S[0] == '0')
    T.IForm = IntForm::Octal;
  else
    T.IForm = IntForm::Decimal;
  if (S.empty() || !llvm::all_of(S, [&](char C) {
        return T.IForm == IntForm::Hex
                   ? (llvm::isHexDigit(C) || C == 'x' || C == 'X')
                   : llvm::isDigit(C);
      }))
    return std::nullopt;
  return integerValue(T);
}

static uint8_t defaultBrWidth(unsigned Opcode) {
  switch (Opcode) {
  case BRIG_OPCODE_BR:
  case BRIG_OPCODE_BARRIER:
  case BRIG_OPCODE_CALL:
    return BRIG_WIDTH_ALL;
  case BRIG_OPCODE_WAVEBARRIER:
  case BRIG_OPCODE_JOINFBAR:
  case BRIG_OPCODE_LEAVEFBAR:
  case BRIG_OPCODE_WAITFBAR:
  case BRIG_OPCODE_ARRIVEFBAR:
    return BRIG_WIDTH_WAVESIZE;
  default:
    return BRIG_WIDTH_1;
  }
}

bool Parser::decodeMnemonic(const Token &W, const OpcodeInfo &Info,
                            Instruction &I, int &Vector) {
  ModReader M(W.Text.substr(Info.Name.size()));
  SourceLoc L = W.Loc;
  auto Need = [&](std::optional<unsigned> V, const char *What) {
    if (!V)
      return fail(L, llvm::Twine("expected ") + What + " in '" + W.Text + "'");
    return true;
  };
  auto Width = [&](uint8_t &Out) -> bool {
    std::optional<llvm::StringRef> A = M.tryParen("width");
    if (!A)
      return true;
    if (*A == "all") {
      Out = BRIG_WIDTH_ALL;
    } else if (*A == "WAVESIZE") {
      Out = BRIG_WIDTH_WAVESIZE;
    } else {
      std::optional<uint64_t> V = parseIntText(*A);
      if (!V || *V < 1 || *V > 2147483648ull)
        return fail(L, "invalid width");
      if (*V & (*V - 1))
        return fail(L, "width must be a power of two");
      Out = uint8_t(llvm::Log2_64(*V) + 1);
    }
    return true;
  };
  auto Equiv = [&](uint8_t &Out) -> bool {
    std::optional<llvm::StringRef> A = M.tryParen("equiv");
    if (!A)
      return true;
    std::optional<uint64_t> V = parseIntText(*A);
    if (!V)
      return fail(L, "invalid equivalence class");
    if (*V >= 256)
      return fail(L, "equivalence class should be in the 0..255 range");
    Out = uint8_t(*V);
    return true;
  };
  auto Type = [&](uint16_t &Out, const char *What) {
    std::optional<unsigned> T = M.tryCat(ModCat::Type);
    if (!Need(T, What))
      return false;
    Out = uint16_t(*T);
    return true;
  };

  I.Opcode = Info.Opcode;
  Vector = 1;
  switch (Info.Format) {
  case MnemoFormat::Nop:
    I.Kind = BRIG_KIND_INST_BASIC;
    break;
  case MnemoFormat::BasicNoType:
    I.Kind = BRIG_KIND_INST_BASIC;
    break;
  case MnemoFormat::Basic:
    I.Kind = BRIG_KIND_INST_BASIC;
    if (!Type(I.Type, "data type"))
      return false;
    break;
  case MnemoFormat::BasicOrMod: {
    bool Ftz = M.tryWord("ftz");
    std::optional<unsigned> Round = M.tryCat(ModCat::Rounding);
    std::optional<unsigned> Pack = M.tryCat(ModCat::Packing);
    if (!Type(I.Type, "data type"))
      return false;
    I.RoundWritten = Round.has_value();
    if (Ftz || Round || Pack) {
      I.Kind = BRIG_KIND_INST_MOD;
      I.Ftz = Ftz;
      I.Pack = Pack ? uint8_t(*Pack) : uint8_t(BRIG_PACK_NONE);
      I.Round = Round ? uint8_t(*Round) : defaultModRounding(I.Opcode, I.Type);
    } else {
      I.Kind = BRIG_KIND_INST_BASIC;
    }
    break;
  }
  case MnemoFormat::SourceType: {
    I.Kind = BRIG_KIND_INST_SOURCE_TYPE;
    if (std::optional<unsigned> V = M.tryVector())
      Vector = int(*V);
    if (!Type(I.Type, "destination type") || !Type(I.SourceType, "source type"))
      return false;
    break;
  }
  case MnemoFormat::Seg:
  case MnemoFormat::Addr: {
    I.Kind = Info.Format == MnemoFormat::Seg ? BRIG_KIND_INST_SEG
                                             : BRIG_KIND_INST_ADDR;
    std::optional<unsigned> Seg = M.tryCat(ModCat::Segment);
    if (!Type(I.Type, "data type"))
      return false;
    I.Segment = Seg ? uint8_t(*Seg) : uint8_t(BRIG_SEGMENT_FLAT);
    break;
  }
  case MnemoFormat::Mem: {
    I.Kind = BRIG_KIND_INST_MEM;
    if (std::optional<unsigned> V = M.tryVector())
      Vector = int(*V);
    std::optional<unsigned> Seg = M.tryCat(ModCat::Segment);
    if (I.Opcode == BRIG_OPCODE_ALLOCA && Seg)
      return fail(L, "segment modifier is not supported");
    I.Align = BRIG_ALIGNMENT_1;
    if (std::optional<llvm::StringRef> A = M.tryParen("align")) {
      std::optional<uint64_t> V = parseIntText(*A);
      unsigned Al = V ? alignmentFromBytes(*V) : BRIG_ALIGNMENT_LAST + 1;
      if (Al > BRIG_ALIGNMENT_LAST)
        return fail(L, "invalid alignment");
      I.Align = uint8_t(Al);
    }
    I.IsConst = M.tryWord("const");
    bool HasEquiv = false;
    {
      llvm::StringRef Before = M.rest();
      if (!Equiv(I.EquivClass))
        return false;
      HasEquiv = Before != M.rest();
    }
    if (I.Opcode == BRIG_OPCODE_ALLOCA && HasEquiv)
      return fail(L, "equiv modifier is not supported");
    uint8_t Wd = 0xff;
    if (!Width(Wd))
      return false;
    if (!Type(I.Type, "data type"))
      return false;
    I.Segment = Seg ? uint8_t(*Seg) : uint8_t(BRIG_SEGMENT_FLAT);
    if (Wd != 0xff)
      I.Width = Wd;
    else
      I.Width = I.Opcode == BRIG_OPCODE_LD ? BRIG_WIDTH_1 : BRIG_WIDTH_NONE;
    if (I.Opcode == BRIG_OPCODE_ALLOCA)
      I.Segment = BRIG_SEGMENT_PRIVATE;
    break;
  }
  case MnemoFormat::Br: {
    I.Kind = BRIG_KIND_INST_BR;
    uint8_t Wd = 0xff;
    if (!Width(Wd))
      return false;
    if (Wd != 0xff &&
        (I.Opcode == BRIG_OPCODE_WAVEBARRIER || I.Opcode == BRIG_OPCODE_CALL ||
         I.Opcode == BRIG_OPCODE_BR))
      return fail(L, "width modifier is not supported");
    if (std::optional<unsigned> T = M.tryCat(ModCat::Type))
      I.Type = uint16_t(*T);
    I.Width = Wd != 0xff ? Wd : defaultBrWidth(I.Opcode);
    break;
  }
  case MnemoFormat::Cmp: {
    I.Kind = BRIG_KIND_INST_CMP;
    std::optional<unsigned> C = M.tryCat(ModCat::Compare);
    if (!Need(C, "compare operation"))
      return false;
    I.Compare = uint8_t(*C);
    I.Ftz = M.tryWord("ftz");
    std::optional<unsigned> Pack = M.tryCat(ModCat::Packing);
    I.Pack = Pack ? uint8_t(*Pack) : uint8_t(BRIG_PACK_NONE);
    if (!Type(I.Type, "destination type") || !Type(I.SourceType, "source type"))
      return false;
    break;
  }
  case MnemoFormat::Cvt: {
    I.Kind = BRIG_KIND_INST_CVT;
    I.Ftz = M.tryWord("ftz");
    std::optional<unsigned> Round = M.tryCat(ModCat::Rounding);
    if (!Type(I.Type, "destination type") || !Type(I.SourceType, "source type"))
      return false;
    I.RoundWritten = Round.has_value();
    I.Round =
        Round ? uint8_t(*Round) : defaultCvtRounding(I.Type, I.SourceType);
    break;
  }
  case MnemoFormat::Atomic: {
    I.Kind = BRIG_KIND_INST_ATOMIC;
    std::optional<unsigned> Op = M.tryCat(ModCat::AtomicOp);
    if (!Need(Op, "atomic operation"))
      return false;
    I.AtomicOp = uint8_t(*Op);
    std::optional<unsigned> Seg = M.tryCat(ModCat::Segment);
    std::optional<unsigned> Ord = M.tryCat(ModCat::MemoryOrder);
    if (!Need(Ord, "memory order"))
      return false;
    std::optional<unsigned> Scope = M.tryCat(ModCat::MemoryScope);
    if (!Need(Scope, "memory scope"))
      return false;
    if (!Equiv(I.EquivClass) || !Type(I.Type, "data type"))
      return false;
    I.Segment = Seg ? uint8_t(*Seg) : uint8_t(BRIG_SEGMENT_FLAT);
    I.MemoryOrder = uint8_t(*Ord);
    I.MemoryScope = uint8_t(*Scope);
    break;
  }
  case MnemoFormat::MemFence: {
    I.Kind = BRIG_KIND_INST_MEM_FENCE;
    std::optional<unsigned> Ord = M.tryCat(ModCat::MemoryOrder);
    if (!Need(Ord, "memory order"))
      return false;
    std::optional<unsigned> Scope = M.tryCat(ModCat::MemoryScope);
    if (!Need(Scope, "memory scope"))
      return false;
    I.MemoryOrder = uint8_t(*Ord);
    I.GlobalScope = uint8_t(*Scope);
    I.GroupScope = uint8_t(*Scope);
    I.ImageScope = BRIG_MEMORY_SCOPE_NONE;
    break;
  }
  case MnemoFormat::Image: {
    I.Kind = BRIG_KIND_INST_IMAGE;
    if (std::optional<unsigned> V = M.tryVector())
      Vector = int(*V);
    std::optional<unsigned> G = M.tryCat(ModCat::Geometry);
    if (!Need(G, "geometry modifier"))
      return false;
    I.Geometry = uint8_t(*G);
    if (!Equiv(I.EquivClass) || !Type(I.Type, "destination type") ||
        !Type(I.ImageType, "image type") || !Type(I.CoordType, "coord type"))
      return false;
    break;
  }
  case MnemoFormat::QueryImage: {
    I.Kind = BRIG_KIND_INST_QUERY_IMAGE;
    std::optional<unsigned> G = M.tryCat(ModCat::Geometry);
    if (!Need(G, "geometry modifier"))
      return false;
    std::optional<unsigned> Q = M.tryCat(ModCat::ImageQuery);
    if (!Need(Q, "image query"))
      return false;
    I.Geometry = uint8_t(*G);
    I.Query = uint8_t(*Q);
    if (!Type(I.Type, "destination type") || !Type(I.ImageType, "image type"))
      return false;
    break;
  }
  case MnemoFormat::QuerySampler: {
    I.Kind = BRIG_KIND_INST_QUERY_SAMPLER;
    std::optional<unsigned> Q = M.tryCat(ModCat::SamplerQuery);
    if (!Need(Q, "sampler query"))
      return false;
    I.Query = uint8_t(*Q);
    if (!Type(I.Type, "destination type"))
      return false;
    break;
  }
  case MnemoFormat::Lane: {
    I.Kind = BRIG_KIND_INST_LANE;
    if (std::optional<unsigned> V = M.tryVector())
      Vector = int(*V);
    uint8_t Wd = 0xff;
    if (!Width(Wd) || !Type(I.Type, "data type"))
      return false;
    if (std::optional<unsigned> T = M.tryCat(ModCat::Type))
      I.SourceType = uint16_t(*T);
    I.Width = Wd != 0xff ? Wd : uint8_t(BRIG_WIDTH_1);
    break;
  }
  case MnemoFormat::Queue: {
    I.Kind = BRIG_KIND_INST_QUEUE;
    std::optional<unsigned> Seg = M.tryCat(ModCat::Segment);
    std::optional<unsigned> Ord = M.tryCat(ModCat::MemoryOrder);
    if (!Need(Ord, "memory order") || !Type(I.Type, "data type"))
      return false;
    I.Segment = Seg ? uint8_t(*Seg) : uint8_t(BRIG_SEGMENT_FLAT);
    I.MemoryOrder = uint8_t(*Ord);
    break;
  }
  case MnemoFormat::Signal: {
    I.Kind = BRIG_KIND_INST_SIGNAL;
    std::optional<unsigned> Op = M.tryCat(ModCat::AtomicOp);
    if (!Need(Op, "signal operation"))
      return false;
    std::optional<unsigned> Ord = M.tryCat(ModCat::MemoryOrder);
    if (!Need(Ord, "memory order"))
      return false;
    I.AtomicOp = uint8_t(*Op);
    I.MemoryOrder = uint8_t(*Ord);
    if (!Type(I.Type, "data type") || !Type(I.SignalType, "signal type"))
      return false;
    break;
  }
  case MnemoFormat::SegCvt: {
    I.Kind = BRIG_KIND_INST_SEG_CVT;
    std::optional<unsigned> Seg = M.tryCat(ModCat::Segment);
    I.NoNull = M.tryWord("nonull");
    if (!Type(I.Type, "destination type"))
      return false;
    if (std::optional<unsigned> T = M.tryCat(ModCat::Type))
      I.SourceType = uint16_t(*T);
    I.Segment = Seg ? uint8_t(*Seg) : uint8_t(BRIG_SEGMENT_FLAT);
    break;
  }
  }
  if (!M.atEnd())
    return fail(L, llvm::Twine("unexpected modifier '") + M.rest() + "' in '" +
                       W.Text + "'");
  return true;
}

unsigned Parser::requiredType(const OpcodeInfo &Info, const Instruction &I,
                              unsigned Idx) {
  return operandType(Info, I, Idx, traits());
}

/// Operand index whose vector size must match a _vN modifier, or -1.
static int vectorOperandIndex(unsigned Opcode) {
  switch (Opcode) {
  case BRIG_OPCODE_LD:
  case BRIG_OPCODE_ST:
  case BRIG_OPCODE_EXPAND:
  case BRIG_OPCODE_RDIMAGE:
  case BRIG_OPCODE_LDIMAGE:
  case BRIG_OPCODE_STIMAGE:
  case BRIG_OPCODE_ACTIVELANEMASK:
    return 0;
  case BRIG_OPCODE_COMBINE:
    return 1;
  default:
    return -1;
  }
}

bool Parser::parseInstruction(std::vector<Stmt> &Body) {
  Token W = next();
  llvm::StringRef OpName = W.Text.split('_').first;
  const OpcodeInfo *Info = lookupOpcode(OpName);
  if (!Info)
    return fail(W.Loc, llvm::Twine("unknown instruction '") + W.Text + "'");
  Instruction I;
  I.Loc = W.Loc;
  int Vector = 1;
  if (!decodeMnemonic(W, *Info, I, Vector))
    return false;

  if (Info->Syntax == OperandSyntax::Call) {
    if (!parseCallOperands(*Info, I))
      return false;
  } else if (Info->Syntax == OperandSyntax::Sbr) {
    Operand Idx;
    if (!parseOperand(I.Type, Idx))
      return false;
    I.Operands.push_back(std::move(Idx));
    Operand Tab;
    Tab.K = Operand::Kind::LabelList;
    Tab.Loc = peek().Loc;
    if (!expect(Tok::LBracket, "'['"))
      return false;
    do {
      const Token &T = peek();
      if (T.Kind != Tok::LabelId)
        return fail(T.Loc, "expected label");
      Tab.NameLocs.push_back(T.Loc);
      Tab.Names.push_back(next().Text.str());
    } while (tryEat(Tok::Comma));
    if (!expect(Tok::RBracket, "']'"))
      return false;
    I.Operands.push_back(std::move(Tab));
  } else if (!at(Tok::Semi)) {
    unsigned Idx = 0;
    do {
      Operand O;
      if (!parseOperand(requiredType(*Info, I, Idx), O))
        return false;
      I.Operands.push_back(std::move(O));
      ++Idx;
    } while (tryEat(Tok::Comma));
  }
  if (!expect(Tok::Semi, "';'"))
    return false;

  int VI = vectorOperandIndex(I.Opcode);
  if (VI >= 0) {
    if (Vector == 1) {
      if (size_t(VI) < I.Operands.size() &&
          I.Operands[VI].K == Operand::Kind::OperandList)
        return fail(I.Operands[VI].Loc,
                    "unexpected vector operand (or missing _vX suffix)");
    } else {
      if (size_t(VI) >= I.Operands.size())
        return fail(W.Loc, "insufficient number of operands");
      const Operand &O = I.Operands[VI];
      if (O.K != Operand::Kind::OperandList)
        return fail(O.Loc, llvm::Twine("expected vector operand (to match _v") +
                               llvm::Twine(Vector) + " suffix)");
      if (O.Elements.size() != size_t(Vector))
        return fail(O.Loc,
                    llvm::Twine("number of vector elements does not match _v") +
                        llvm::Twine(Vector) + " suffix");
    }
  }
  if (CheckSemantics)
    if (llvm::Error E = checkInstruction(*Info, I, traits()))
      return failWith(std::move(E));
  Body.push_back(Stmt{std::move(I)});
  return true;
}

bool Parser::parseArgList(Operand &Out) {
  Out.K = Operand::Kind::ArgList;
  Out.Loc = peek().Loc;
  if (!expect(Tok::LParen, "'('"))
    return false;
  while (!tryEat(Tok::RParen)) {
    if (Failed)
      return false;
    const Token &T = peek();
    if (T.Kind != Tok::LocalId)
      return fail(T.Loc, "expected local identifier");
    Out.NameLocs.push_back(T.Loc);
    Out.Names.push_back(next().Text.str());
    tryEat(Tok::Comma);
  }
  return !Failed;
}

bool Parser::parseCallOperands(const OpcodeInfo &Info, Instruction &I) {
  Operand Target;
  unsigned TargetType =
      isUnsignedType(I.Type) ? unsigned(I.Type) : unsigned(BRIG_TYPE_U64);
  if (!parseOperand(TargetType, Target))
    return false;
  Operand Outs, Ins;
  if (!at(Tok::LParen))
    return fail(peek().Loc, "missing call argument list");
  if (!parseArgList(Outs))
    return false;
  if (!at(Tok::LParen))
    return fail(peek().Loc, "missing call argument list");
  if (!parseArgList(Ins))
    return false;
  I.Operands.push_back(std::move(Outs));
  I.Operands.push_back(std::move(Target));
  I.Operands.push_back(std::move(Ins));
  if (I.Opcode != BRIG_OPCODE_CALL && !at(Tok::Semi)) {
    if (at(Tok::LBracket)) {
      Operand Tab;
      Tab.K = Operand::Kind::FunctionList;
      Tab.Loc = next().Loc;
      do {
        const Token &T = peek();
        if (T.Kind != Tok::GlobalId)
          return fail(T.Loc, "function not found");
        Tab.NameLocs.push_back(T.Loc);
        Tab.Names.push_back(next().Text.str());
      } while (tryEat(Tok::Comma));
      if (!expect(Tok::RBracket, "']'"))
        return false;
      I.Operands.push_back(std::move(Tab));
    } else {
      const Token &T = peek();
      if (T.Kind != Tok::GlobalId)
        return fail(T.Loc, "expected signature name");
      Operand Sig;
      Sig.K = Operand::Kind::SignatureRef;
      Sig.Loc = T.Loc;
      Sig.Name = next().Text.str();
      I.Operands.push_back(std::move(Sig));
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

bool Parser::parseOperand(unsigned Required, Operand &Out) {
  const Token &T = peek();
  if (Failed)
    return false;
  Out.Loc = T.Loc;
  uint16_t Ty;
  switch (T.Kind) {
  case Tok::LBracket:
    return parseAddressOperand(Required, Out);
  case Tok::LParen: {
    Out.K = Operand::Kind::OperandList;
    next();
    while (true) {
      Operand E;
      if (at(Tok::LParen))
        return fail(peek().Loc,
                    "register, wavesize or immediate constant value expected");
      if (!parseOperand(Required, E))
        return false;
      if (E.K != Operand::Kind::Register && E.K != Operand::Kind::Constant &&
          E.K != Operand::Kind::Wavesize)
        return fail(E.Loc,
                    "register, wavesize or immediate constant value expected");
      Out.Elements.push_back(std::move(E));
      if (!tryEat(Tok::Comma))
        break;
      if (Out.Elements.size() == 4)
        return fail(peek().Loc, "vector cannot contain more than 4 elements");
    }
    return expect(Tok::RParen, "')'");
  }
  case Tok::Plus:
  case Tok::Minus:
  case Tok::Integer:
  case Tok::Float:
    return parseConstant(Required, Out);
  case Tok::GlobalId:
  case Tok::LocalId:
    Out.K = Operand::Kind::CodeRef;
    Out.Name = next().Text.str();
    return true;
  case Tok::LabelId:
    Out.K = Operand::Kind::LabelRef;
    Out.Name = next().Text.str();
    return true;
  case Tok::Register: {
    Token R = next();
    Out.K = Operand::Kind::Register;
    switch (R.Text[1]) {
    case 'c':
      Out.RegKind = BRIG_REGISTER_KIND_CONTROL;
      break;
    case 's':
      Out.RegKind = BRIG_REGISTER_KIND_SINGLE;
      break;
    case 'd':
      Out.RegKind = BRIG_REGISTER_KIND_DOUBLE;
      break;
    default:
      Out.RegKind = BRIG_REGISTER_KIND_QUAD;
      break;
    }
    uint64_t N = 0;
    if (R.Text.size() > 7 || R.Text.drop_front(2).getAsInteger(10, N) ||
        N > 65535)
      return fail(R.Loc, "invalid register number");
    Out.RegNum = uint16_t(N);
    return true;
  }
  case Tok::Word:
    if (T.Text == "WAVESIZE") {
      next();
      Out.K = Operand::Kind::Wavesize;
      return true;
    }
    if (isTypedLiteralWord(T, Ty))
      return parseConstant(Required, Out);
    break;
  default:
    break;
  }
  return fail(T.Loc, "invalid operand");
}

bool Parser::parseAddressTail(Operand &Out, bool &HasReg, int64_t &Offset) {
  const Token &T = peek();
  if (T.Kind == Tok::Register) {
    Operand R;
    if (!parseOperand(BRIG_TYPE_NONE, R))
      return false;
    HasReg = true;
    Out.RegKind = R.RegKind;
    Out.RegNum = R.RegNum;
    Offset = 0;
    if (at(Tok::Plus) || at(Tok::Minus)) {
      bool Neg = next().Kind == Tok::Minus;
      uint64_t V = 0;
      if (!readInt(V))
        return false;
      Offset = int64_t(Neg ? 0 - V : V); // wraps, like HSAILasm
    }
    return true;
  }
  if (T.Kind == Tok::Plus || T.Kind == Tok::Minus) {
    bool Neg = next().Kind == Tok::Minus;
    uint64_t V = 0;
    if (!readInt(V))
      return false;
    Offset = int64_t(Neg ? 0 - V : V); // wraps, like HSAILasm
    return true;
  }
  if (T.Kind == Tok::Integer) {
    uint64_t V = 0;
    if (!readInt(V))
      return false;
    Offset = int64_t(V);
    return true;
  }
  return fail(T.Loc, "register or offset expected");
}

bool Parser::parseAddressOperand(unsigned Required, Operand &Out) {
  next(); // [
  const Token &T = peek();
  if (Failed)
    return false;
  if (T.Kind == Tok::RBracket)
    return fail(T.Loc, "invalid operand");
  if (T.Kind == Tok::LabelId) {
    Out.K = Operand::Kind::LabelRef;
    Out.Loc = T.Loc;
    Out.Name = next().Text.str();
    return expect(Tok::RBracket, "']'");
  }
  Out.K = Operand::Kind::Address;
  bool HasReg = false;
  int64_t Offset = 0;
  if (T.Kind == Tok::GlobalId || T.Kind == Tok::LocalId) {
    Out.Name = next().Text.str();
    if (!expect(Tok::RBracket, "']'"))
      return false;
    if (tryEat(Tok::LBracket)) {
      if (!parseAddressTail(Out, HasReg, Offset) ||
          !expect(Tok::RBracket, "']'"))
        return false;
    }
  } else {
    if (!parseAddressTail(Out, HasReg, Offset) || !expect(Tok::RBracket, "']'"))
      return false;
  }
  Out.HasReg = HasReg;
  Out.Offset = Required == BRIG_TYPE_U32 ? uint64_t(Offset) & 0xffffffffull
                                         : uint64_t(Offset);
  return true;
}

bool Parser::parseConstant(unsigned Required, Operand &Out) {
  Out.K = Operand::Kind::Constant;
  Out.Loc = peek().Loc;
  unsigned Lit = 0;
  if (!parseImmediate(Out.Bytes, Required, 0, ImmKind::Any, Lit))
    return false;
  if (brigTypeIsArray(Lit))
    return fail(Out.Loc, "array typed constants are not allowed as operands");
  if (isBitType(Required) && typeBytes(Required) == typeBytes(Lit))
    Lit = bitTypeToUnsigned(Required);
  Out.Type = uint16_t(Lit);
  return true;
}

bool Parser::validateTypedConversion(unsigned Required, unsigned Actual,
                                     SourceLoc L) {
  if (Required == Actual || Required == BRIG_TYPE_NONE)
    return true;
  unsigned ReqBits = brigTypeIsArray(Required) ? 0 : typeBits(Required);
  unsigned ActBits = brigTypeIsArray(Actual) ? 0 : typeBits(Actual);
  if (isBitType(Required) && ReqBits == ActBits &&
      (isPackedType(Actual) || isFloatType(Actual) || isSignedType(Actual) ||
       isUnsignedType(Actual)))
    return true;
  return fail(L, llvm::Twine(typeName(Actual)) +
                     " constant cannot be converted to " + typeName(Required));
}

bool Parser::parseImmediate(std::string &Data, unsigned Required, size_t Pos,
                            ImmKind Kind, unsigned &LiteralType) {
  bool HasMinus = false;
  bool HasSign = false;
  SourceLoc SignLoc;
  if (at(Tok::Plus) || at(Tok::Minus)) {
    Token S = next();
    HasSign = true;
    HasMinus = S.Kind == Tok::Minus;
    SignLoc = S.Loc;
  }
  const Token &T = peek();
  if (Failed)
    return false;
  uint16_t TypedTy = 0;
  bool IsTyped = isTypedLiteralWord(T, TypedTy);
  if (Kind == ImmKind::Typed && !IsTyped)
    return fail(T.Loc, "expected a typed constant");
  if (Kind == ImmKind::Untyped && IsTyped)
    return fail(T.Loc, "typed constants are not allowed");

  if (IsTyped) {
    Token TyTok = next();
    if (tryEat(Tok::LBracket)) {
      if (HasSign)
        return fail(SignLoc, "sign is not allowed before an array");
      if (!expect(Tok::RBracket, "']'") || !expect(Tok::LParen, "'('"))
        return false;
      do {
        SourceLoc EL = peek().Loc;
        unsigned ElemType = 0;
        if (!parseImmediate(Data, TypedTy, Data.size(), ImmKind::Any,
                            ElemType) ||
            !validateTypedConversion(TypedTy, ElemType, EL))
          return false;
      } while (tryEat(Tok::Comma));
      if (!expect(Tok::RParen, "')'"))
        return false;
      LiteralType = TypedTy | BRIG_TYPE_ARRAY;
      return true;
    }
    if (HasSign)
      return fail(SignLoc, "sign is not allowed before a typed constant");
    if (brigTypeIsArray(Required) || Required == BRIG_TYPE_NONE)
      Required = TypedTy;
    if (!validateTypedConversion(Required, TypedTy, TyTok.Loc))
      return false;
    if (!expect(Tok::LParen, "'('"))
      return false;
    unsigned Elem = TypedTy & BRIG_TYPE_BASE_MASK;
    unsigned ElemBytes = typeBytes(Elem);
    unsigned Count = typeBits(TypedTy) / typeBits(Elem);
    for (unsigned I = 0; I < Count; ++I) {
      if (I && !expect(Tok::Comma, "','"))
        return false;
      unsigned Ignored = 0;
      if (!parseImmediate(Data, Elem, Pos + (Count - I - 1) * ElemBytes,
                          ImmKind::Untyped, Ignored))
        return false;
    }
    if (!expect(Tok::RParen, "')'"))
      return false;
    LiteralType = TypedTy;
    return true;
  }

  if (T.Kind == Tok::Float) {
    Token F = next();
    unsigned FType = F.FKind == FloatKind::F16   ? BRIG_TYPE_F16
                     : F.FKind == FloatKind::F32 ? BRIG_TYPE_F32
                                                 : BRIG_TYPE_F64;
    if (brigTypeIsArray(Required) || Required == BRIG_TYPE_NONE)
      Required = FType;
    std::optional<uint64_t> Bits = floatBits(F);
    if (!Bits)
      return fail(F.Loc, "invalid literal");
    if (Required != FType && Required != bitTypeOfSize(typeBits(FType))) {
      const char *K = FType == BRIG_TYPE_F16   ? "f16"
                      : FType == BRIG_TYPE_F32 ? "f32"
                                               : "f64";
      return fail(F.Loc, llvm::Twine(K) + " constant cannot be converted to " +
                             typeName(Required));
    }
    uint64_t V = *Bits;
    if (HasMinus)
      V ^= 1ull << (typeBits(FType) - 1);
    writeBytes(Data, Pos, &V, typeBytes(FType));
    LiteralType = FType;
    return true;
  }

  if (T.Kind == Tok::Integer) {
    SourceLoc IL = T.Loc;
    uint64_t V = 0;
    if (!readInt(V))
      return false;
    if (brigTypeIsArray(Required) || Required == BRIG_TYPE_NONE) {
      Required = BRIG_TYPE_U64;
    } else if (isPackedType(Required) || isFloatType(Required) ||
               typeBits(Required) > 64) {
      return fail(IL, llvm::Twine("integer constant cannot be converted to ") +
                          typeName(Required));
    }
    if (HasMinus)
      V = 0 - V; // two's complement; -0x8000000000000000 is fine
    if (Required == BRIG_TYPE_B1)
      V = V ? 1 : 0;
    if (isSignalType(Required) && V != 0)
      return fail(IL, "signal handle can only be initialized with 0");
    writeBytes(Data, Pos, &V, typeBytes(Required));
    LiteralType = isSignedType(Required) ? Required
                  : isBitType(Required)
                      ? bitTypeToUnsigned(Required)
                      : unsignedTypeOfSize(typeBits(Required));
    return true;
  }

  if (T.Kind == Tok::LCurly && Required != BRIG_TYPE_NONE)
    return fail(T.Loc, llvm::Twine("aggregate constant cannot be converted "
                                   "to ") +
                           typeName(Required));
  return fail(T.Loc, "constant value expected");
}

bool Parser::parseOpaqueObject(Operand &Out) {
  Token W = next();
  uint16_t Ty = *lookupType(W.Text);
  if (at(Tok::LBracket)) {
    Out.K = Operand::Kind::ConstantList;
    Out.Loc = W.Loc;
    Out.Type = Ty | BRIG_TYPE_ARRAY;
    return parseOpaqueArrayElements(Ty, Out.Elements);
  }
  if (Ty == BRIG_TYPE_SAMP)
    return parseSamplerProperties(W.Loc, Out);
  return parseImageProperties(Ty, W.Loc, Out);
}

bool Parser::parseOpaqueArrayElements(uint16_t Ty, std::vector<Operand> &Out) {
  if (!expect(Tok::LBracket, "'['") || !expect(Tok::RBracket, "']'") ||
      !expect(Tok::LParen, "'('"))
    return false;
  do {
    const Token &T = peek();
    uint16_t ElemTy;
    if (!isOpaqueObjectWord(T, ElemTy) ||
        (Ty == BRIG_TYPE_SAMP) != (ElemTy == BRIG_TYPE_SAMP))
      return fail(T.Loc,
                  Ty == BRIG_TYPE_SAMP ? "expected sampler" : "expected image");
    if (ElemTy != Ty)
      return fail(T.Loc, llvm::Twine(typeName(Ty)) + " constant expected");
    Token W = next();
    Operand E;
    if (Ty == BRIG_TYPE_SAMP ? !parseSamplerProperties(W.Loc, E)
                             : !parseImageProperties(Ty, W.Loc, E))
      return false;
    Out.push_back(std::move(E));
  } while (tryEat(Tok::Comma));
  return expect(Tok::RParen, "')'");
}

bool Parser::parseImageProperties(uint16_t Ty, SourceLoc L, Operand &Out) {
  Out.K = Operand::Kind::ConstantImage;
  Out.Loc = L;
  Out.Type = Ty;
  bool HasGeom = false, HasOrder = false, HasType = false;
  if (!expect(Tok::LParen, "'('"))
    return false;
  do {
    const Token &P = peek();
    if (Failed)
      return false;
    if (P.Kind != Tok::Word)
      return fail(P.Loc, "invalid image property name");
    Token Name = next();
    if (!expect(Tok::Equal, "'='"))
      return false;
    auto IntProp = [&](uint64_t &Field, const char *What) {
      if (Field != 0)
        return fail(Name.Loc, llvm::Twine(What) + " already set");
      if (!readInt(Field))
        return false;
      if (Field == 0)
        return fail(Name.Loc, llvm::Twine(What) + " must be positive");
      return true;
    };
    if (Name.Text == "width") {
      if (!IntProp(Out.Width, "width"))
        return false;
    } else if (Name.Text == "height") {
      if (!IntProp(Out.Height, "height"))
        return false;
    } else if (Name.Text == "depth") {
      if (!IntProp(Out.Depth, "depth"))
        return false;
    } else if (Name.Text == "array") {
      if (!IntProp(Out.Array, "array"))
        return false;
    } else if (Name.Text == "channel_type") {
      if (HasType)
        return fail(Name.Loc, "channel type already set");
      std::optional<uint8_t> V;
      if (peek().Kind == Tok::Word)
        V = lookupChannelType(peek().Text);
      if (!V)
        return fail(peek().Loc, "expected image channel type");
      next();
      Out.ChannelType = *V;
      HasType = true;
    } else if (Name.Text == "channel_order") {
      if (HasOrder)
        return fail(Name.Loc, "channel order already set");
      std::optional<uint8_t> V;
      if (peek().Kind == Tok::Word)
        V = lookupChannelOrder(peek().Text);
      if (!V)
        return fail(peek().Loc, "expected image channel order");
      next();
      Out.ChannelOrder = *V;
      HasOrder = true;
    } else if (Name.Text == "geometry") {
      if (HasGeom)
        return fail(Name.Loc, "geometry already set");
      std::optional<uint8_t> V;
      if (peek().Kind == Tok::Word)
        V = lookupImageGeometryProp(peek().Text);
      if (!V)
        return fail(peek().Loc, "expected image geometry");
      next();
      Out.Geometry = *V;
      HasGeom = true;
    } else {
      return fail(Name.Loc, "invalid image property name");
    }
  } while (tryEat(Tok::Comma));
  if (!expect(Tok::RParen, "')'"))
    return false;

  if (!HasGeom)
    return fail(L, "missing image geometry");
  if (!HasOrder)
    return fail(L, "missing image channel order");
  if (!HasType)
    return fail(L, "missing image channel type");
  if (Out.Width == 0)
    return fail(L, "missing image width");
  unsigned G = Out.Geometry;
  bool NeedHeight = G == BRIG_GEOMETRY_2D || G == BRIG_GEOMETRY_3D ||
                    G == BRIG_GEOMETRY_2DA || G == BRIG_GEOMETRY_2DDEPTH ||
                    G == BRIG_GEOMETRY_2DADEPTH;
  if (NeedHeight && Out.Height == 0)
    return fail(L, "missing image height");
  if (!NeedHeight && Out.Height != 0)
    return fail(L, "image height cannot be specified for this image geometry");
  if (G == BRIG_GEOMETRY_3D && Out.Depth == 0)
    return fail(L, "missing image depth");
  if (G != BRIG_GEOMETRY_3D && Out.Depth != 0)
    return fail(L, "image depth cannot be specified for this image geometry");
  bool NeedArray = G == BRIG_GEOMETRY_1DA || G == BRIG_GEOMETRY_2DA ||
                   G == BRIG_GEOMETRY_2DADEPTH;
  if (NeedArray && Out.Array == 0)
    return fail(L, "missing image array");
  if (!NeedArray && Out.Array != 0)
    return fail(L, "image array cannot be specified for this image geometry");
  return true;
}

bool Parser::parseSamplerProperties(SourceLoc L, Operand &Out) {
  Out.K = Operand::Kind::ConstantSampler;
  Out.Loc = L;
  Out.Type = BRIG_TYPE_SAMP;
  bool HasAddr = false, HasCoord = false, HasFilter = false;
  if (!expect(Tok::LParen, "'('"))
    return false;
  do {
    const Token &P = peek();
    if (Failed)
      return false;
    if (P.Kind != Tok::Word)
      return fail(P.Loc, "invalid sampler object property name");
    Token Name = next();
    if (!expect(Tok::Equal, "'='"))
      return false;
    const Token &V = peek();
    std::optional<uint8_t> Val;
    bool *Seen = nullptr;
    uint8_t *Field = nullptr;
    if (Name.Text == "addressing") {
      Seen = &HasAddr;
      Field = &Out.Addressing;
      if (V.Kind == Tok::Word)
        Val = lookupSamplerAddressing(V.Text);
    } else if (Name.Text == "coord") {
      Seen = &HasCoord;
      Field = &Out.Coord;
      if (V.Kind == Tok::Word)
        Val = lookupSamplerCoord(V.Text);
    } else if (Name.Text == "filter") {
      Seen = &HasFilter;
      Field = &Out.Filter;
      if (V.Kind == Tok::Word)
        Val = lookupSamplerFilter(V.Text);
    } else {
      return fail(Name.Loc, "invalid sampler object property name");
    }
    if (*Seen)
      return fail(Name.Loc, "duplicate sampler property");
    if (!Val)
      return fail(V.Loc, llvm::Twine("invalid value for sampler property '") +
                             Name.Text + "'");
    next();
    *Seen = true;
    *Field = *Val;
  } while (tryEat(Tok::Comma));
  if (!expect(Tok::RParen, "')'"))
    return false;
  if (!HasAddr)
    return fail(L, "addressing value missing");
  if (!HasCoord)
    return fail(L, "coord value missing");
  if (!HasFilter)
    return fail(L, "filter value missing");
  return true;
}

bool Parser::parseAggregate(Operand &Out) {
  Out.K = Operand::Kind::ConstantList;
  Out.Loc = next().Loc; // {
  Out.Type = BRIG_TYPE_NONE;
  do {
    const Token &T = peek();
    if (Failed)
      return false;
    uint16_t Ty;
    if (T.isWord("align")) {
      Operand A;
      A.K = Operand::Kind::Align;
      A.Loc = next().Loc;
      if (!parseAlignParen(A.AlignValue))
        return false;
      Out.Elements.push_back(std::move(A));
    } else if (isOpaqueObjectWord(T, Ty)) {
      Token W = next();
      if (at(Tok::LBracket)) {
        if (!parseOpaqueArrayElements(Ty, Out.Elements))
          return false;
      } else {
        Operand E;
        if (Ty == BRIG_TYPE_SAMP ? !parseSamplerProperties(W.Loc, E)
                                 : !parseImageProperties(Ty, W.Loc, E))
          return false;
        Out.Elements.push_back(std::move(E));
      }
    } else {
      Operand E;
      E.K = Operand::Kind::Constant;
      E.Loc = T.Loc;
      unsigned Lit = 0;
      if (!parseImmediate(E.Bytes, BRIG_TYPE_NONE, 0, ImmKind::Typed, Lit))
        return false;
      E.Type = uint16_t(Lit);
      Out.Elements.push_back(std::move(E));
    }
  } while (tryEat(Tok::Comma));
  if (!expect(Tok::RCurly, "'}'"))
    return false;
  if (aggregateBytes(Out) == 0)
    return fail(Out.Loc, "an aggregate constant cannot consist of only "
                         "alignment request elements");
  return true;
}

} // namespace

llvm::Expected<Program> parseHsail(llvm::StringRef Source,
                                   bool CheckSemantics) {
  Parser P(Source, CheckSemantics);
  return P.run();
}

} // namespace openhsa::brig::assembler
