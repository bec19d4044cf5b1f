//===- brig/asm/Literals.h - Numeric literal conversion ---------*- C++ -*-===//
//
// Part of openhsa. Converts the spelling of HSAIL integer and floating-point
// literals (PRM 1.0 section 4.8) into raw bits.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_BRIG_ASM_LITERALS_H
#define OPENHSA_BRIG_ASM_LITERALS_H

#include "brig/asm/Lexer.h"

#include <cstdint>
#include <optional>

namespace openhsa::brig::assembler {

/// Value of an integer literal token; nullopt if it does not fit in 64 bits.
std::optional<uint64_t> integerValue(const Token &T);

/// Raw IEEE bits of a floating-point literal token, in the width given by
/// T.FKind (16, 32 or 64 bits, zero-extended); nullopt if the literal is out
/// of range for its type.
std::optional<uint64_t> floatBits(const Token &T);

/// IEEE half from IEEE single, rounding to nearest even.
uint16_t floatToHalfBits(uint32_t FloatBits);

} // namespace openhsa::brig::assembler

#endif // OPENHSA_BRIG_ASM_LITERALS_H
