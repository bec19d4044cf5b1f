//===- brig/asm/Lexer.cpp - HSAIL tokenizer -------------------------------===//

#include "brig/asm/Lexer.h"

#include "llvm/ADT/StringExtras.h"

namespace openhsa::brig::assembler {

namespace {

bool isAlpha(char C) { return llvm::isAlpha(C); }
bool isDigit(char C) { return llvm::isDigit(C); }
bool isHex(char C) { return llvm::isHexDigit(C); }
bool isAlnum(char C) { return llvm::isAlnum(C); }
bool isIdStart(char C) { return isAlpha(C) || C == '_'; }
bool isIdChar(char C) { return isAlnum(C) || C == '_' || C == '.'; }

} // namespace

Lexer::Lexer(llvm::StringRef Source) : Src(Source) {}

void Lexer::lexInto() {
  // A block comment may produce no token at all ("/**/"); keep lexing.
  while (Queue.empty()) {
    Token T = lexToken();
    bool Done = T.Kind == Tok::Eof || T.Kind == Tok::Error;
    if (T.Kind != Tok::Comment || !T.StrValue.empty() || Done)
      Queue.push_back(std::move(T));
    if (Done)
      break;
  }
}

const Token &Lexer::peek() {
  if (Queue.empty())
    lexInto();
  return Queue.front();
}

const Token &Lexer::peek2() {
  peek();
  while (Queue.size() < 2) {
    Tok K = Queue.back().Kind;
    if (K == Tok::Eof || K == Tok::Error)
      return Queue.back();
    Token T = lexToken();
    if (T.Kind == Tok::Comment && T.StrValue.empty())
      continue; // a block comment queued its lines itself
    Queue.push_back(std::move(T));
  }
  return Queue[1];
}

Token Lexer::next() {
  peek();
  Token T = std::move(Queue.front());
  Queue.pop_front();
  return T;
}

SourceLoc Lexer::locAt(size_t P) const {
  return SourceLoc{Line, static_cast<uint32_t>(P - LineStart + 1)};
}

Token Lexer::make(Tok K, size_t Begin, size_t End) {
  Token T;
  T.Kind = K;
  T.Text = Src.slice(Begin, End);
  T.Loc = locAt(Begin);
  return T;
}

Token Lexer::error(size_t P, std::string Msg) {
  Token T;
  T.Kind = Tok::Error;
  T.Text = Src.slice(P, P);
  T.Loc = locAt(P);
  T.StrValue = std::move(Msg);
  Pos = Src.size(); // stop lexing after an error
  return T;
}

void Lexer::skipSpace() {
  while (Pos < Src.size()) {
    char C = Src[Pos];
    // PRM 4.4: no carriage return in the character set; like HSAILasm, one
    // is taken only as part of a CR LF line end.
    if (C == ' ' || C == '\t' || C == '\f' || C == '\v' ||
        (C == '\r' && Pos + 1 < Src.size() && Src[Pos + 1] == '\n')) {
      ++Pos;
    } else if (C == '\n') {
      ++Pos;
      ++Line;
      LineStart = Pos;
    } else {
      return;
    }
  }
}

// Splits "/* ... */" into comment lines the way the HSA Foundation
// assembler does: every line becomes "//" + its text (the text of the first
// line starts right after "/*", a line ending at "*/" stops before it); an
// empty comment ("/**/") produces nothing.
void Lexer::lexBlockComment(size_t B) {
  size_t N = Src.size();
  auto IsNL = [&](size_t I) -> size_t {
    if (I < N && Src[I] == '\n')
      return 1;
    if (I + 1 < N && Src[I] == '\r' && Src[I + 1] == '\n')
      return 2;
    return 0;
  };
  auto IsEnd = [&](size_t I) {
    return I + 1 < N && Src[I] == '*' && Src[I + 1] == '/';
  };
  auto Emit = [&](size_t From, size_t To, SourceLoc L) {
    Token T;
    T.Kind = Tok::Comment;
    T.Text = Src.slice(From, To);
    T.Loc = L;
    T.StrValue = "//" + Src.slice(From, To).str();
    Queue.push_back(std::move(T));
  };
  size_t I = B + 2;
  SourceLoc StartLoc = locAt(B);
  if (IsEnd(I)) {
    Pos = I + 2;
  } else {
    size_t Begin = I;
    SourceLoc BeginLoc = locAt(B);
    if (size_t L = IsNL(I)) {
      I += L;
      ++Line;
      LineStart = I;
      Begin = I;
      BeginLoc = locAt(I);
    } else {
      ++I;
    }
    while (true) {
      if (I >= N || Src[I] == '\0') {
        Token E = error(B, "premature end of comment");
        E.Loc = StartLoc; // B lies on an earlier line than LineStart now
        Queue.push_back(std::move(E));
        return;
      }
      if (IsEnd(I)) {
        Emit(Begin, I, BeginLoc);
        Pos = I + 2;
        break;
      }
      if (size_t L = IsNL(I)) {
        Emit(Begin, I, BeginLoc);
        I += L;
        ++Line;
        LineStart = I;
        Begin = I;
        BeginLoc = locAt(I);
        continue;
      }
      ++I;
    }
  }
  // Whitespace is required between a comment and a following word.
  // (HSAILasm also wants white space between a comment and the end of file.)
  if (Pos >= N || Src[Pos] == '\0' || isAlpha(Src[Pos]) || Src[Pos] == '@' ||
      Src[Pos] == '/')
    Queue.push_back(error(Pos, "missing white space"));
}

// Tries to lex a numeric literal starting at Pos (no sign). On success fills
// T (kind, text end) and advances Pos.
bool Lexer::lexNumber(Token &T) {
  size_t B = Pos;
  size_t N = Src.size();
  auto At = [&](size_t I) -> char { return I < N ? Src[I] : '\0'; };
  if (!isDigit(At(B)) && !(At(B) == '.' && isDigit(At(B + 1))))
    return false;

  // Raw IEEE bit patterns: 0H + 4, 0F + 8, 0D + 16 hex digits.
  if (At(B) == '0') {
    char P = At(B + 1);
    unsigned Digits = 0;
    FloatKind K = FloatKind::F64;
    if (P == 'h' || P == 'H') {
      Digits = 4;
      K = FloatKind::F16;
    } else if (P == 'f' || P == 'F') {
      Digits = 8;
      K = FloatKind::F32;
    } else if (P == 'd' || P == 'D') {
      Digits = 16;
      K = FloatKind::F64;
    }
    if (Digits != 0) {
      bool Ok = true;
      for (unsigned I = 0; I < Digits; ++I)
        if (!isHex(At(B + 2 + I)))
          Ok = false;
      if (Ok) {
        Pos = B + 2 + Digits;
        T.Kind = Tok::Float;
        T.FKind = K;
        T.FForm = FloatForm::RawBits;
        return true;
      }
    }
    // C99 hexadecimal float or hexadecimal integer.
    if (P == 'x' || P == 'X') {
      size_t I = B + 2;
      size_t HexStart = I;
      while (isHex(At(I)))
        ++I;
      if (I > HexStart) {
        size_t IntEnd = I;
        size_t J = I;
        if (At(J) == '.') {
          ++J;
          while (isHex(At(J)))
            ++J;
        }
        if (At(J) == 'p' || At(J) == 'P') {
          size_t K2 = J + 1;
          if (At(K2) == '+' || At(K2) == '-')
            ++K2;
          if (isDigit(At(K2))) {
            while (isDigit(At(K2)))
              ++K2;
            T.Kind = Tok::Float;
            T.FForm = FloatForm::C99Hex;
            T.FKind = FloatKind::F64;
            char S = At(K2);
            if (S == 'h' || S == 'H') {
              T.FKind = FloatKind::F16;
              ++K2;
            } else if (S == 'f' || S == 'F') {
              T.FKind = FloatKind::F32;
              ++K2;
            } else if (S == 'd' || S == 'D') {
              ++K2;
            }
            Pos = K2;
            return true;
          }
        }
        Pos = IntEnd;
        T.Kind = Tok::Integer;
        T.IForm = IntForm::Hex;
        return true;
      }
    }
  }

  // Decimal float: DCD+ "." DCD* EXP? | "." DCD+ EXP? | DCD+ ("." DCD*)? EXP
  size_t I = B;
  while (isDigit(At(I)))
    ++I;
  size_t IntEnd = I;
  bool HasDot = false, HasExp = false;
  if (At(I) == '.') {
    size_t J = I + 1;
    while (isDigit(At(J)))
      ++J;
    if (IntEnd > B || J > I + 1) {
      HasDot = true;
      I = J;
    }
  }
  if (IntEnd > B || HasDot) {
    if (At(I) == 'e' || At(I) == 'E') {
      size_t J = I + 1;
      if (At(J) == '+' || At(J) == '-')
        ++J;
      if (isDigit(At(J))) {
        while (isDigit(At(J)))
          ++J;
        HasExp = true;
        I = J;
      }
    }
  }
  if (HasDot || HasExp) {
    T.Kind = Tok::Float;
    T.FKind = FloatKind::F64;
    T.FForm = FloatForm::Decimal;
    char S = At(I);
    if (S == 'h' || S == 'H') {
      T.FKind = FloatKind::F16;
      T.FForm = FloatForm::DecimalSuffix;
      ++I;
    } else if (S == 'f' || S == 'F') {
      T.FKind = FloatKind::F32;
      T.FForm = FloatForm::DecimalSuffix;
      ++I;
    } else if (S == 'd' || S == 'D') {
      T.FForm = FloatForm::DecimalSuffix;
      ++I;
    }
    Pos = I;
    return true;
  }

  // Integers.
  if (At(B) == '0') {
    size_t J = B + 1;
    while (At(J) >= '0' && At(J) <= '7')
      ++J;
    T.Kind = Tok::Integer;
    T.IForm = J > B + 1 ? IntForm::Octal : IntForm::Decimal;
    Pos = J;
    return true;
  }
  T.Kind = Tok::Integer;
  T.IForm = IntForm::Decimal;
  Pos = IntEnd;
  return true;
}

Token Lexer::lexWord(size_t B) {
  size_t N = Src.size();
  size_t I = B;
  while (I < N && isIdChar(Src[I]))
    ++I;
  // Mnemonic modifiers with an argument: "_align(8)", "_width(all)",
  // "_equiv(2)". Swallow the parenthesised part and continue the word.
  while (I < N && Src[I] == '(') {
    llvm::StringRef Word = Src.slice(B, I);
    size_t U = Word.rfind('_');
    if (U == llvm::StringRef::npos)
      break;
    llvm::StringRef Last = Word.substr(U + 1);
    if (Last != "align" && Last != "width" && Last != "equiv")
      break;
    size_t J = I + 1;
    while (J < N && Src[J] != ')' && Src[J] != '\n' && Src[J] != ';')
      ++J;
    if (J >= N || Src[J] != ')')
      break;
    I = J + 1;
    while (I < N && isIdChar(Src[I]))
      ++I;
  }
  Pos = I;
  return make(Tok::Word, B, I);
}

Token Lexer::lexString(size_t B) {
  size_t N = Src.size();
  size_t I = B + 1;
  std::string Val;
  while (true) {
    if (I >= N || Src[I] == '\n' || Src[I] == '\r')
      return error(B, "runaway string literal");
    char C = Src[I];
    if (C == '"') {
      ++I;
      break;
    }
    if (C != '\\') {
      Val.push_back(C);
      ++I;
      continue;
    }
    // Escape sequence.
    char E = I + 1 < N ? Src[I + 1] : '\0';
    if (E >= '0' && E <= '7') {
      unsigned V = 0;
      size_t J = I + 1;
      unsigned Count = 0;
      while (J < N && Count < 3 && Src[J] >= '0' && Src[J] <= '7') {
        V = V * 8 + unsigned(Src[J] - '0');
        ++J;
        ++Count;
      }
      if (V > 255)
        return error(I, "invalid character code");
      Val.push_back(static_cast<char>(V));
      I = J;
      continue;
    }
    if (E == 'x' || E == 'X') {
      unsigned V = 0;
      size_t J = I + 2;
      unsigned Count = 0;
      while (J < N && Count < 2 && isHex(Src[J])) {
        V = V * 16 + llvm::hexDigitValue(Src[J]);
        ++J;
        ++Count;
      }
      if (Count == 0)
        return error(I, "invalid escape sequence");
      Val.push_back(static_cast<char>(V));
      I = J;
      continue;
    }
    char Out;
    switch (E) {
    case '\\':
      Out = '\\';
      break;
    case '\'':
      Out = '\'';
      break;
    case '"':
      Out = '"';
      break;
    case '?':
      Out = '?';
      break;
    case 'a':
      Out = '\a';
      break;
    case 'b':
      Out = '\b';
      break;
    // HSAILasm maps \f to 0x06; keep byte-compatible output.
    case 'f':
      Out = '\x06';
      break;
    case 'n':
      Out = '\n';
      break;
    case 'r':
      Out = '\r';
      break;
    case 't':
      Out = '\t';
      break;
    case 'v':
      Out = '\v';
      break;
    default:
      return error(I, "invalid escape sequence");
    }
    Val.push_back(Out);
    I += 2;
  }
  Token T = make(Tok::String, B, I);
  T.StrValue = std::move(Val);
  Pos = I;
  return T;
}

Token Lexer::lexToken() {
  skipSpace();
  size_t N = Src.size();
  // A NUL character ends the source text, as in the reference assembler.
  if (Pos >= N || Src[Pos] == '\0')
    return make(Tok::Eof, Pos, Pos);

  size_t B = Pos;
  char C = Src[B];
  if (C == '/' && B + 1 < N && Src[B + 1] == '/') {
    size_t I = B;
    // A NUL ends the source text, a comment too (as in HSAILasm).
    while (I < N && Src[I] != '\n' && Src[I] != '\r' && Src[I] != '\0')
      ++I;
    if (I < N && Src[I] == '\0')
      return error(I, "NUL character in a comment");
    // HSAILasm wants white space between a comment and the end of the text.
    if (I >= N)
      return error(I, "missing white space");
    Pos = I;
    Token T = make(Tok::Comment, B, I);
    T.StrValue = T.Text.str();
    return T;
  }
  if (C == '/' && B + 1 < N && Src[B + 1] == '*') {
    lexBlockComment(B);
    Token T;
    T.Kind = Tok::Comment; // empty: dropped by lexInto
    return T;
  }
  Token T;
  auto Punct = [&](Tok K) {
    Pos = B + 1;
    return make(K, B, B + 1);
  };

  switch (C) {
  case '{':
    return Punct(Tok::LCurly);
  case '}':
    return Punct(Tok::RCurly);
  case '(':
    return Punct(Tok::LParen);
  case ')':
    return Punct(Tok::RParen);
  case '[':
    return Punct(Tok::LBracket);
  case ']':
    return Punct(Tok::RBracket);
  case ',':
    return Punct(Tok::Comma);
  case ';':
    return Punct(Tok::Semi);
  case ':':
    return Punct(Tok::Colon);
  case '=':
    return Punct(Tok::Equal);
  case '"':
    T = lexString(B);
    break;
  case '+':
  case '-': {
    // A sign directly followed by a floating-point literal is part of it.
    Pos = B + 1;
    Token Num;
    if (lexNumber(Num) && Num.Kind == Tok::Float) {
      Num.Text = Src.slice(B, Pos);
      Num.Loc = locAt(B);
      T = std::move(Num);
      break;
    }
    Pos = B + 1;
    return make(C == '+' ? Tok::Plus : Tok::Minus, B, B + 1);
  }
  case '&':
  case '%':
  case '@': {
    size_t I = B + 1;
    if (I >= N || !isIdStart(Src[I]))
      return error(B, "syntax error");
    while (I < N && isIdChar(Src[I]))
      ++I;
    Pos = I;
    T = make(C == '&'   ? Tok::GlobalId
             : C == '%' ? Tok::LocalId
                        : Tok::LabelId,
             B, I);
    break;
  }
  case '$': {
    size_t I = B + 1;
    while (I < N && (isAlnum(Src[I]) || Src[I] == '_'))
      ++I;
    llvm::StringRef W = Src.slice(B, I);
    Pos = I;
    if (W.size() >= 3 && llvm::StringRef("csdq").contains(W[1]) &&
        isDigit(W[2])) {
      llvm::StringRef Num = W.substr(2);
      if (!llvm::all_of(Num, isDigit) || (Num.size() > 1 && Num[0] == '0'))
        return error(B, "invalid register name");
      T = make(Tok::Register, B, I);
    } else if (W.size() > 1) {
      T = make(Tok::DollarKw, B, I);
    } else {
      return error(B, "syntax error");
    }
    break;
  }
  default:
    if (isIdStart(C)) {
      T = lexWord(B);
      break;
    }
    if (isDigit(C)) {
      // Image geometry keywords start with a digit: 1d, 2da, 2ddepth, ...
      size_t I = B;
      while (I < N && (isAlnum(Src[I]) || Src[I] == '_'))
        ++I;
      llvm::StringRef W = Src.slice(B, I);
      if (W == "1d" || W == "2d" || W == "3d" || W == "1da" || W == "2da" ||
          W == "1db" || W == "2ddepth" || W == "2dadepth") {
        Pos = I;
        T = make(Tok::Word, B, I);
        break;
      }
    }
    if (isDigit(C) || (C == '.' && B + 1 < N && isDigit(Src[B + 1]))) {
      Token Num;
      lexNumber(Num);
      Num.Text = Src.slice(B, Pos);
      Num.Loc = locAt(B);
      T = std::move(Num);
      break;
    }
    if (C == '\r')
      return error(B, "carriage return without a line feed");
    return error(B, "syntax error");
  }

  if (T.Kind == Tok::Error)
    return T;
  // Whitespace is required between tokens that can contain letters/digits.
  if (!T.Text.empty() && isAlnum(T.Text.back()) && Pos < N) {
    char Nx = Src[Pos];
    if (isAlpha(Nx) || llvm::StringRef("&%$@\".").contains(Nx))
      return error(Pos, "missing white space");
  }
  return T;
}

} // namespace openhsa::brig::assembler
