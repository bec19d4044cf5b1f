//===- brig/BrigNames.h - HSAIL spellings of BRIG values --------*- C++ -*-===//
//
// Part of openhsa. Maps BRIG enumeration values to their HSAIL text form
// (without the leading '_' of modifiers). Every function returns nullptr for
// a value that has no spelling, so callers can report or mark it; a value
// whose spelling is empty in HSAIL (e.g. the flat segment) returns "".
//
//===----------------------------------------------------------------------===//

#ifndef OPENHSA_BRIG_BRIGNAMES_H
#define OPENHSA_BRIG_BRIGNAMES_H

#include "brig/BrigFormat.h"

namespace openhsa::brig {

const char *opcodeName(unsigned Opcode);        // "add"
const char *typeName(unsigned Type);            // "u32", "u8x4"; NONE -> ""
const char *kindName(unsigned Kind);            // "BRIG_KIND_INST_MEM"
const char *segmentName(unsigned Segment);      // "global"; FLAT/NONE -> ""
const char *packName(unsigned Pack);            // "pp_sat"; NONE -> ""
const char *compareName(unsigned Compare);      // "lt"
const char *roundName(unsigned Round);          // "zeroi"; NONE/DEFAULT -> ""
const char *atomicOpName(unsigned Op);          // "wait_gte"
const char *memoryOrderName(unsigned Order);    // "scacq"; NONE -> ""
const char *memoryScopeName(unsigned Scope);    // "agent"; NONE -> ""
const char *geometryName(unsigned Geometry);    // "2da"
const char *imageQueryName(unsigned Query);     // "channelorder"
const char *samplerQueryName(unsigned Query);   // "addressing"
const char *widthName(unsigned Width);          // "width(4)"; NONE -> ""
const char *alignValueName(unsigned Align);     // "16" ; NONE -> ""
const char *controlName(unsigned Control);      // "maxflatgridsize"
const char *channelOrderName(unsigned Order);   // "rgba"
const char *channelTypeName(unsigned Type);     // "unorm_int8"
const char *samplerCoordName(unsigned Coord);   // "normalized"
const char *samplerFilterName(unsigned Filter); // "linear"
const char *samplerAddressingName(unsigned Addressing); // "clamp_to_edge"
const char *registerPrefix(unsigned RegKind);           // "$s"

/// Whether \p Type is one of the BrigType enumerators.
inline bool isValidType(unsigned Type) {
  return Type <= 0xffff && typeName(Type) != nullptr;
}

/// Size in bits of a (non-array) type; 0 for NONE and unknown types.
unsigned typeBits(unsigned Type);
/// Natural alignment of a non-array type, as a BrigAlignment value.
unsigned naturalAlignment(unsigned Type);
/// Bytes an alignment value stands for (BRIG_ALIGNMENT_8 -> 8); 0 for NONE.
inline unsigned alignBytes(unsigned Align) {
  return Align == 0 || Align > BRIG_ALIGNMENT_MAX ? 0 : 1u << (Align - 1);
}

bool isSignedIntType(unsigned T);   // s8..s64
bool isUnsignedIntType(unsigned T); // u8..u64
inline bool isIntType(unsigned T) {
  return isSignedIntType(T) || isUnsignedIntType(T);
}
bool isFloatType(unsigned T); // f16, f32, f64
bool isBitType(unsigned T);   // b1..b128
bool isImageType(unsigned T); // roimg, woimg, rwimg
inline bool isSignalType(unsigned T) {
  return T == BRIG_TYPE_SIG32 || T == BRIG_TYPE_SIG64;
}
inline bool isPackedType(unsigned T) {
  return !brigTypeIsArray(T) && brigTypeIsPacked(T);
}

} // namespace openhsa::brig

#endif // OPENHSA_BRIG_BRIGNAMES_H
