//===- brig/asm/Ast.h - In-memory form of an HSAIL module -------*- C++ -*-===//
//
// Part of openhsa. The parser turns HSAIL text into this tree; the BRIG
// emitter walks it in source order. The tree stays close to the text: names
// are kept as spelled (symbol resolution happens in the emitter), while all
// instruction properties and immediate values are already decoded into their
// BRIG encodings (openhsa::brig enumerations).
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_BRIG_ASM_AST_H
#define OPENHSA_BRIG_ASM_AST_H

#include "brig/BrigFormat.h"
#include "brig/asm/Diagnostic.h"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace openhsa::brig::assembler {

/// An instruction, pragma or initializer operand.
struct Operand {
  enum class Kind : uint8_t {
    Register,        // $s1
    Constant,        // immediate or typed constant: Type + Bytes
    Wavesize,        // WAVESIZE
    Address,         // [&sym][$reg+offset]
    LabelRef,        // @label
    CodeRef,         // &name / %name naming a directive (function, fbarrier...)
    SignatureRef,    // signature name of icall
    OperandList,     // (v0, v1, ...) vector operand
    ArgList,         // call argument list: (%a, %b)
    FunctionList,    // scall target table: [&f, &g]
    LabelList,       // sbr jump table: [@a, @b]
    String,          // "text" (pragma)
    ConstantImage,   // rwimg(geometry = 2d, ...)
    ConstantSampler, // samp(coord = normalized, ...)
    ConstantList,    // aggregate or opaque-object array initializer
    Align,           // align(n) inside an aggregate
  };

  Kind K = Kind::Constant;
  SourceLoc Loc;

  // Register.
  uint16_t RegKind = 0;
  uint16_t RegNum = 0;

  // Constant: BRIG type of the OperandConstantBytes and its value bytes.
  // ConstantImage / ConstantSampler / ConstantList: the operand's type.
  uint16_t Type = BRIG_TYPE_NONE;
  std::string Bytes;

  // Address: optional symbol and register, and the offset. Names for
  // LabelRef, CodeRef, SignatureRef; String text.
  std::string Name;
  bool HasReg = false;
  uint64_t Offset = 0;

  // Names of ArgList / FunctionList / LabelList entries.
  std::vector<std::string> Names;
  std::vector<SourceLoc> NameLocs;

  // Elements of OperandList / ConstantList.
  std::vector<Operand> Elements;

  // ConstantImage.
  uint8_t Geometry = 0;
  uint8_t ChannelOrder = 0;
  uint8_t ChannelType = 0;
  uint64_t Width = 0, Height = 0, Depth = 0, Array = 0;

  // ConstantSampler.
  uint8_t Coord = 0;
  uint8_t Filter = 0;
  uint8_t Addressing = 0;

  // Align.
  uint8_t AlignValue = 0;
};

/// One instruction with every property decoded. Fields that do not belong to
/// the instruction's BRIG format are ignored by the emitter.
struct Instruction {
  SourceLoc Loc;
  uint16_t Kind = BRIG_KIND_INST_BASIC; // BRIG_KIND_INST_*
  uint16_t Opcode = 0;
  uint16_t Type = BRIG_TYPE_NONE;
  uint16_t SourceType = BRIG_TYPE_NONE;
  uint16_t ImageType = BRIG_TYPE_NONE;
  uint16_t CoordType = BRIG_TYPE_NONE;
  uint16_t SignalType = BRIG_TYPE_NONE;
  uint8_t Segment = 0;
  uint8_t Align = 0;
  uint8_t EquivClass = 0;
  uint8_t Width = 0;
  uint8_t Round = 0;
  uint8_t Pack = 0;
  uint8_t Compare = 0;
  uint8_t AtomicOp = 0; // also the signal operation
  uint8_t MemoryOrder = 0;
  uint8_t MemoryScope = 0;
  uint8_t GlobalScope = 0;
  uint8_t GroupScope = 0;
  uint8_t ImageScope = 0;
  uint8_t Geometry = 0;
  uint8_t Query = 0; // image or sampler query
  bool Ftz = false;
  bool RoundWritten = false; // Round was spelled out (not a default)
  bool IsConst = false;
  bool NoNull = false;
  std::vector<Operand> Operands;
};

struct Variable {
  SourceLoc Loc;
  std::string Name; // may be empty for signature arguments
  uint8_t Segment = 0;
  uint16_t Type = BRIG_TYPE_NONE; // element type as written (no array bit)
  std::optional<uint8_t> Align;
  bool IsConst = false;
  std::optional<uint8_t> Allocation;
  std::optional<uint8_t> Linkage;
  bool IsDecl = false;
  bool IsArray = false;
  bool IsFlexArray = false;  // "[]" without a size
  uint64_t Dim = 0;          // explicit or inferred from the initializer
  uint64_t InitElements = 0; // elements the initializer gives
  std::optional<Operand> Init;
};

struct Fbarrier {
  SourceLoc Loc;
  std::string Name;
  std::optional<uint8_t> Linkage;
  bool IsDecl = false;
  bool IsModuleLevel = false;
};

struct ModuleDirective {
  SourceLoc Loc;
  std::string Name;
  uint32_t Major = 0;
  uint32_t Minor = 0;
  uint8_t Profile = 0;
  uint8_t MachineModel = 0;
  uint8_t DefaultRound = 0;
};

struct ExtensionDirective {
  SourceLoc Loc;
  std::string Name;
};

struct PragmaDirective {
  SourceLoc Loc;
  std::vector<Operand> Operands;
};

struct ControlDirective {
  SourceLoc Loc;
  uint16_t Control = 0;
  std::vector<Operand> Operands;
};

struct LocDirective {
  SourceLoc Loc;
  uint32_t Line = 0;
  uint32_t Column = 1;
  std::string FileName; // the file name in effect (sticky across loc's)
};

struct CommentDirective {
  SourceLoc Loc;
  std::string Text; // "//..." as stored in BRIG
};

struct LabelDef {
  SourceLoc Loc;
  std::string Name;
};

struct Stmt;

struct ArgBlock {
  SourceLoc Loc;
  SourceLoc EndLoc;
  std::vector<Stmt> Body;
};

struct Executable {
  SourceLoc Loc;
  uint16_t Kind = BRIG_KIND_DIRECTIVE_FUNCTION; // FUNCTION, INDIRECT_FUNCTION,
                                                // KERNEL or SIGNATURE
  std::string Name;
  std::optional<uint8_t> Linkage;
  bool IsDecl = false;
  std::vector<Variable> OutArgs;
  std::vector<Variable> InArgs;
  bool HasBody = false;
  std::vector<Stmt> Body;
};

struct Stmt {
  std::variant<ModuleDirective, ExtensionDirective, PragmaDirective,
               ControlDirective, LocDirective, CommentDirective, LabelDef,
               Variable, Fbarrier, Executable, ArgBlock, Instruction>
      V;
};

/// A parsed HSAIL source: the statements of one or more modules in order.
struct Program {
  std::vector<Stmt> Stmts;
};

} // namespace openhsa::brig::assembler

#endif // OPENHSA_BRIG_ASM_AST_H
