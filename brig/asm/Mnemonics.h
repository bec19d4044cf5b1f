//===- brig/asm/Mnemonics.h - HSAIL opcode and modifier tables --*- C++ -*-===//
//
// Part of openhsa. Spellings of HSAIL opcodes and instruction modifiers
// (PRM 1.0 chapters 4-17) mapped to their BRIG encodings, the BRIG format of
// each instruction, and the type an immediate operand takes at each operand
// position.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_BRIG_ASM_MNEMONICS_H
#define OPENHSA_BRIG_ASM_MNEMONICS_H

#include "brig/BrigFormat.h"

#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <optional>

namespace openhsa::brig::assembler {

/// How the modifiers of a mnemonic are laid out (and which BRIG instruction
/// format results).
enum class MnemoFormat : uint8_t {
  Basic,       // op_type
  BasicNoType, // op
  BasicOrMod,  // op[_ftz][_round][_pack]_type  (InstMod if any modifier)
  SourceType,  // op[_vN]_dtype_stype
  Seg,         // op[_segment]_type
  Addr,        // op[_segment]_type
  Mem,        // op[_vN][_segment][_align(n)][_const][_equiv(n)][_width(n)]_type
  Br,         // op[_width(n)][_type]
  Cmp,        // op_cmpop[_ftz][_pack]_dtype_stype
  Cvt,        // op[_ftz][_round]_dtype_stype
  Atomic,     // op_atomicop[_segment]_order_scope[_equiv(n)]_type
  MemFence,   // op_order_scope
  Image,      // op[_vN]_geom[_equiv(n)]_dtype_imgtype_coordtype
  QueryImage, // op_geom_query_dtype_imgtype
  QuerySampler, // op_query_dtype
  Lane,         // op[_vN][_width(n)]_dtype[_stype]
  Queue,        // op[_segment]_order_type
  Signal,       // op_sigop_order_type_sigtype
  SegCvt,       // op[_segment][_nonull]_dtype[_stype]
  Nop,          // nop
};

/// The type an immediate takes at an operand position.
enum class OpType : uint8_t {
  None,        // no type known (malformed use): literal keeps its own type
  T,           // the instruction type
  ST,          // the source type
  U32,         // u32
  U64,         // u64
  B1,          // b1
  B32,         // b32 (shuffle control)
  CmovCond,    // b1 for bit types, the unsigned packed type for packed cmov
  Addr,        // address: 32- or 64-bit by segment and machine model
  Sig,         // the signal type
  ImgT,        // the image type
  Samp,        // samp
  Coord,       // the coordinate type
  WaitTimeout, // u64 for waittimeout signal operations, else the type
};

enum class OperandSyntax : uint8_t {
  Generic, // comma separated operands
  Call,    // call/scall/icall: target (outs) (ins) [table | signature]
  Sbr,     // sbr: index, [@l0, @l1, ...]
};

struct OpcodeInfo {
  llvm::StringLiteral Name;
  uint16_t Opcode;
  MnemoFormat Format;
  OperandSyntax Syntax;
  std::array<OpType, 6> Types;
};

/// Looks up an opcode by its spelling (the part of a mnemonic before the
/// first '_').
const OpcodeInfo *lookupOpcode(llvm::StringRef Name);

/// The table entry of a BRIG opcode (as read back from BRIG), or nullptr.
const OpcodeInfo *opcodeInfo(unsigned Opcode);

// Modifier spellings (without the leading '_'). Each returns the BRIG value.
std::optional<uint16_t> lookupType(llvm::StringRef S);
std::optional<uint8_t> lookupSegment(llvm::StringRef S);
std::optional<uint8_t> lookupRounding(llvm::StringRef S);
std::optional<uint8_t> lookupPacking(llvm::StringRef S);
std::optional<uint8_t> lookupCompare(llvm::StringRef S);
std::optional<uint8_t> lookupAtomicOp(llvm::StringRef S);
std::optional<uint8_t> lookupMemoryOrder(llvm::StringRef S);
std::optional<uint8_t> lookupMemoryScope(llvm::StringRef S);
std::optional<uint8_t> lookupGeometry(llvm::StringRef S);
std::optional<uint8_t> lookupImageQuery(llvm::StringRef S);
std::optional<uint8_t> lookupSamplerQuery(llvm::StringRef S);

// Keywords outside mnemonics.
std::optional<uint16_t> lookupControl(llvm::StringRef S);
std::optional<uint8_t> lookupImageGeometryProp(llvm::StringRef S);
std::optional<uint8_t> lookupChannelOrder(llvm::StringRef S);
std::optional<uint8_t> lookupChannelType(llvm::StringRef S);
std::optional<uint8_t> lookupSamplerCoord(llvm::StringRef S);
std::optional<uint8_t> lookupSamplerFilter(llvm::StringRef S);
std::optional<uint8_t> lookupSamplerAddressing(llvm::StringRef S);

/// All modifier spellings of one category, for longest-match splitting of a
/// mnemonic. Returns the length of the longest spelling of category \p Cat
/// that \p S starts with and that is followed by a non-alphanumeric
/// character (or the end).
enum class ModCat : uint8_t {
  Type,
  Segment,
  Rounding,
  Packing,
  Compare,
  AtomicOp,
  MemoryOrder,
  MemoryScope,
  Geometry,
  ImageQuery,
  SamplerQuery,
};
size_t matchModifier(ModCat Cat, llvm::StringRef S, unsigned &ValueOut);

//===----------------------------------------------------------------------===//
// Type helpers (BRIG type encodings)
//===----------------------------------------------------------------------===//

unsigned typeBits(unsigned T); // 0 for none / opaque-without-size
inline unsigned typeBytes(unsigned T) { return (typeBits(T) + 7) / 8; }
bool isBitType(unsigned T);
bool isSignedType(unsigned T);
bool isUnsignedType(unsigned T);
bool isFloatType(unsigned T);
bool isPackedType(unsigned T);
bool isFloatPackedType(unsigned T);
bool isImageType(unsigned T);
bool isSignalType(unsigned T);
unsigned bitTypeToUnsigned(unsigned T);
unsigned unsignedTypeOfSize(unsigned Bits);
unsigned bitTypeOfSize(unsigned Bits);
unsigned packedToUnsigned(unsigned T);
unsigned naturalAlignment(unsigned T);
/// log2-based BrigAlignment for a byte count; BRIG_ALIGNMENT_LAST+1 if not a
/// power of two in range.
unsigned alignmentFromBytes(uint64_t Bytes);
unsigned alignmentBytes(unsigned Align);

/// The rounding an InstMod gets when its text writes none (PRM 4.19.2):
/// float rounding for the arithmetic operations that round, none otherwise.
uint8_t defaultModRounding(unsigned Opcode, unsigned Type);
/// The rounding a cvt gets when its text writes none (PRM 5.19.3).
uint8_t defaultCvtRounding(unsigned Dst, unsigned Src);

} // namespace openhsa::brig::assembler

#endif // OPENHSA_BRIG_ASM_MNEMONICS_H
