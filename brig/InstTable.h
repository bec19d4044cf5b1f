//===- brig/InstTable.h - One description of every HSAIL opcode -*- C++ -*-===//
//
// Part of openhsa. A single table, indexed by BrigOpcode, describes each
// instruction's BRIG encoding (PRM 18.7): the BrigInst* formats it may use,
// its operands and what kind of operand each slot accepts, the types it
// accepts, its vector operand and its default width. The validator checks
// instructions against it and the disassembler prints them from it.
//
//===----------------------------------------------------------------------===//

#ifndef OPENHSA_BRIG_INSTTABLE_H
#define OPENHSA_BRIG_INSTTABLE_H

#include "brig/BrigFormat.h"

namespace openhsa::brig {

/// What an operand slot accepts (PRM 18.7 operand descriptions).
enum class OperandRule : uint8_t {
  None,      ///< No operand.
  Reg,       ///< dest / reg: an OperandRegister.
  Src,       ///< src: register, constant bytes or wavesize.
  SrcNoWs,   ///< float src: register or constant bytes.
  Imm,       ///< number: constant bytes.
  Addr,      ///< address: an OperandAddress.
  Label,     ///< label: a code ref to a label.
  Labels,    ///< labels: a code list of labels.
  DstVec,    ///< reg-or-vector: register or a list of registers.
  SrcVec,    ///< reg-or-vector-or-num: src, or a list of srcs.
  RegList,   ///< dest-vector / 4-vector-reg: a list of registers.
  SrcList,   ///< src-vector: a list of srcs.
  FbarOrReg, ///< a register or a code ref to an fbarrier.
  Fbar,      ///< a code ref to an fbarrier.
  Func,      ///< a code ref to a function or indirect function.
  Funcs,     ///< a code list of functions.
  Args,      ///< a code list of arg variables.
  Signature, ///< a code ref to a signature.
};

/// Which instruction types an opcode accepts (coarse; see InstTable.cpp).
enum class TypeRule : uint8_t {
  None,    ///< BRIG_TYPE_NONE only.
  Any,     ///< Any non-array type other than NONE.
  Numeric, ///< Integer, float or packed types.
  Float,   ///< Float or packed float types.
  Bits,    ///< Bit types (and packed types, e.g. cmov).
  Int,     ///< Integer types (s/u, not packed).
  B1,      ///< b1 only (cbr).
};

struct InstInfo {
  uint32_t Formats;    ///< Bit (kind - BRIG_KIND_INST_BEGIN) per format.
  uint8_t NumOperands; ///< Operand slots (atomics/signals: the most).
  OperandRule Operands[5];
  int8_t VectorOperand; ///< Slot that may hold an _vN vector, or -1.
  uint8_t DefaultWidth; ///< BrigWidth implied when no width is written.
  TypeRule Types;
};

inline constexpr uint32_t instFormatBit(unsigned Kind) {
  return 1u << (Kind - BRIG_KIND_INST_BEGIN);
}

/// The description of \p Opcode, or nullptr for opcodes outside the manual.
const InstInfo *instInfo(unsigned Opcode);

/// The number of operands an instruction takes; for atomic, atomicnoret,
/// signal and signalnoret this depends on the atomic operation.
unsigned expectedOperandCount(unsigned Opcode, unsigned AtomicOperation);

/// The rounding the text form implies when no rounding modifier is written
/// (BRIG_ROUND_INTEGER_ZERO for float-to-integer cvt, else NONE / DEFAULT).
unsigned defaultRounding(unsigned Opcode, unsigned Type, unsigned SourceType);

} // namespace openhsa::brig

#endif // OPENHSA_BRIG_INSTTABLE_H
