//===- brig/asm/Lexer.h - HSAIL tokenizer -----------------------*- C++ -*-===//
//
// Part of openhsa. Splits HSAIL text (PRM 1.0 chapter 19.1, lexical grammar)
// into tokens. Comments are returned as Comment tokens, one per line: a
// "// text" comment keeps its spelling, each line of a "/* ... */" comment
// becomes "//" followed by the line's text. Instruction mnemonics are returned
// as a single Word token, including parenthesised modifiers such as
// "_align(8)", "_width(all)" and "_equiv(3)"; the parser splits them into
// opcode and modifiers.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_BRIG_ASM_LEXER_H
#define OPENHSA_BRIG_ASM_LEXER_H

#include "brig/asm/Diagnostic.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <string>

namespace openhsa::brig::assembler {

enum class Tok : uint8_t {
  Eof,
  Word,     // identifier-like word: keywords, mnemonics, property names
  GlobalId, // &name
  LocalId,  // %name
  LabelId,  // @name
  Register, // $c0, $s1, $d2, $q3
  DollarKw, // $full, $base, $small, $large, $default, $zero, $near
  Integer,  // decimal, octal or hexadecimal integer
  Float,    // any floating-point literal (see FloatKind / FloatForm)
  String,   // "..." with escapes decoded into Token::StrValue
  LCurly,   // {
  RCurly,   // }
  LParen,   // (
  RParen,   // )
  LBracket, // [
  RBracket, // ]
  Comma,    // ,
  Semi,     // ;
  Colon,    // :
  Plus,     // +
  Minus,    // -
  Equal,    // =
  Comment,  // one comment line; Token::StrValue holds the BRIG text
  Error,    // lexical error; Token::StrValue holds the message
};

/// Width of a floating-point literal.
enum class FloatKind : uint8_t { F16, F32, F64 };

/// How a floating-point literal was written.
enum class FloatForm : uint8_t {
  DecimalSuffix, // 1.5f, 1.5h, 1.5d
  Decimal,       // 1.5 (a double)
  RawBits,       // 0H3c00, 0F3f800000, 0D3ff0000000000000
  C99Hex,        // 0x1.8p1, optionally with an h/f/d suffix
};

enum class IntForm : uint8_t { Decimal, Octal, Hex };

struct Token {
  Tok Kind = Tok::Eof;
  llvm::StringRef Text; // exact source spelling
  SourceLoc Loc;
  FloatKind FKind = FloatKind::F64;
  FloatForm FForm = FloatForm::Decimal;
  IntForm IForm = IntForm::Decimal;
  std::string StrValue; // decoded string literal, or error message

  bool is(Tok K) const { return Kind == K; }
  bool isWord(llvm::StringRef W) const {
    return Kind == Tok::Word && Text == W;
  }
};

class Lexer {
public:
  explicit Lexer(llvm::StringRef Source);

  /// Returns the next token without consuming it.
  const Token &peek();
  /// Returns the token after the next one without consuming anything.
  const Token &peek2();
  /// Consumes and returns the next token.
  Token next();

  llvm::StringRef source() const { return Src; }

private:
  void lexInto();
  Token lexToken();
  void lexBlockComment(size_t Begin);
  void skipSpace();
  SourceLoc locAt(size_t Pos) const;
  Token make(Tok K, size_t Begin, size_t End);
  Token error(size_t Pos, std::string Msg);

  bool lexNumber(Token &T);
  Token lexWord(size_t Begin);
  Token lexString(size_t Begin);

  llvm::StringRef Src;
  size_t Pos = 0;
  uint32_t Line = 1;
  size_t LineStart = 0;
  std::deque<Token> Queue;
};

} // namespace openhsa::brig::assembler

#endif // OPENHSA_BRIG_ASM_LEXER_H
