//===- brig/asm/Semantics.cpp - HSAIL instruction rules -------------------===//
//
// Part of openhsa. Each rule cites the PRM table it comes from; where
// HSAILasm (the oracle of tests/asm) is narrower than the table, the comment
// says so.
//
//===----------------------------------------------------------------------===//

#include "brig/asm/Semantics.h"

#include "brig/BrigNames.h"
#include "brig/InstTable.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <initializer_list>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace openhsa::brig::assembler {

namespace {

//===----------------------------------------------------------------------===//
// Type sets
//===----------------------------------------------------------------------===//

/// Sets of types an opcode accepts, as a bit mask.
enum TypeSet : uint32_t {
  SU3264 = 1u << 0, ///< s32 s64 u32 u64
  S3264 = 1u << 1,  ///< s32 s64
  SU32 = 1u << 2,   ///< s32 u32
  U32 = 1u << 3,    ///< u32
  U64 = 1u << 4,    ///< u64
  U3264 = 1u << 5,  ///< u32 u64
  F = 1u << 6,      ///< f16 f32 f64
  F32 = 1u << 7,    ///< f32
  B1 = 1u << 8,     ///< b1
  B3264 = 1u << 9,  ///< b32 b64
  B128 = 1u << 10,  ///< b128
  PSU = 1u << 11,   ///< packed s and u, every length
  PS = 1u << 12,    ///< packed s, every length
  PF = 1u << 13,    ///< f16x2 f16x4 f16x8 f32x2 f32x4 f64x2
  PSHUF = 1u << 14, ///< s, u, f of 8x4 8x8 16x2 16x4 32x2
  B32 = 1u << 15,   ///< b32
  B64 = 1u << 16,   ///< b64
  U8X4 = 1u << 17,  ///< u8x4
  IMG = 1u << 18,   ///< roimg woimg rwimg
  SAMP = 1u << 19,  ///< samp
  SIG = 1u << 20,   ///< sig32 sig64
  PALL = PSU | PF,  ///< every packed type
};

unsigned baseOf(unsigned T) { return T & BRIG_TYPE_BASE_MASK; }

unsigned elementCount(const Operand &O) {
  return O.K == Operand::Kind::OperandList ? unsigned(O.Elements.size()) : 1;
}

bool isIntScalar(unsigned T) { return isSignedType(T) || isUnsignedType(T); }

bool inSet(unsigned T, uint32_t Set) {
  if (T == BRIG_TYPE_NONE || (T & BRIG_TYPE_ARRAY))
    return false;
  unsigned Bits = typeBits(T);
  if (isPackedType(T)) {
    unsigned B = baseOf(T);
    bool Fl = isFloatType(B), Sg = isSignedType(B);
    if ((Set & PSU) && !Fl)
      return true;
    if ((Set & PS) && Sg)
      return true;
    if ((Set & PF) && Fl)
      return true;
    if ((Set & U8X4) && T == BRIG_TYPE_U8X4)
      return true;
    if (Set & PSHUF) {
      unsigned EB = typeBits(B);
      unsigned N = Bits / EB;
      bool Len = (EB == 8 && (N == 4 || N == 8)) ||
                 (EB == 16 && (N == 2 || N == 4)) || (EB == 32 && N == 2);
      if (Len)
        return true;
    }
    return false;
  }
  if (isIntScalar(T)) {
    bool Sg = isSignedType(T), Big = Bits == 32 || Bits == 64;
    if ((Set & SU3264) && Big)
      return true;
    if ((Set & S3264) && Big && Sg)
      return true;
    if ((Set & SU32) && Bits == 32)
      return true;
    if ((Set & U32) && T == BRIG_TYPE_U32)
      return true;
    if ((Set & U64) && T == BRIG_TYPE_U64)
      return true;
    if ((Set & U3264) && Big && !Sg)
      return true;
    return false;
  }
  if (isFloatType(T))
    return (Set & F) || ((Set & F32) && T == BRIG_TYPE_F32);
  switch (T) {
  case BRIG_TYPE_B1:
    return Set & B1;
  case BRIG_TYPE_B32:
    return Set & (B3264 | B32);
  case BRIG_TYPE_B64:
    return Set & (B3264 | B64);
  case BRIG_TYPE_B128:
    return Set & B128;
  case BRIG_TYPE_ROIMG:
  case BRIG_TYPE_WOIMG:
  case BRIG_TYPE_RWIMG:
    return Set & IMG;
  case BRIG_TYPE_SAMP:
    return Set & SAMP;
  case BRIG_TYPE_SIG32:
  case BRIG_TYPE_SIG64:
    return Set & SIG;
  default:
    return false;
  }
}

const char *tn(unsigned T) {
  const char *N = brig::typeName(T);
  return N && *N ? N : "none";
}

llvm::Error error(SourceLoc L, const llvm::Twine &Msg) {
  return llvm::make_error<AsmError>(L, Msg.str());
}

/// The opcode as written ("add"), for diagnostics.
const char *opName(const Instruction &I) {
  const char *N = brig::opcodeName(I.Opcode);
  return N ? N : "instruction";
}

llvm::Error badType(const Instruction &I, const char *What, unsigned T) {
  if (T == BRIG_TYPE_NONE)
    return error(I.Loc, llvm::Twine(opName(I)) + " needs a " + What);
  return error(I.Loc, llvm::Twine(opName(I)) + " does not support " + What +
                          " " + tn(T));
}

//===----------------------------------------------------------------------===//
// Arithmetic, bit and copy instructions (PRM 5.2-5.16)
//===----------------------------------------------------------------------===//

enum class Ctrl : uint8_t {
  None,      ///< no packed form, or packed without a control (shifts)
  Unary,     ///< p, s
  Binary,    ///< pp, ps, sp, ss
  BinarySat, ///< pp, ps, sp, ss and, for integer types, their _sat forms
};

struct ArithRule {
  uint16_t Opcode;
  uint32_t Types;
  Ctrl Control;
  bool FloatRound; ///< float types take up/down/zero/near (Tables 5-15/16)
  bool Ftz;        ///< float types take ftz
};

// clang-format off
const ArithRule ArithRules[] = {
  // Tables 5-1, 5-2, 5-18, 5-19.
  {BRIG_OPCODE_ABS, S3264 | F | PS | PF, Ctrl::Unary, false, false},
  {BRIG_OPCODE_NEG, S3264 | F | PS | PF, Ctrl::Unary, false, false},
  // Tables 5-1, 5-2, 5-15, 5-16.
  {BRIG_OPCODE_ADD, SU3264 | F | PSU | PF, Ctrl::BinarySat, true, true},
  {BRIG_OPCODE_SUB, SU3264 | F | PSU | PF, Ctrl::BinarySat, true, true},
  {BRIG_OPCODE_MUL, SU3264 | F | PSU | PF, Ctrl::BinarySat, true, true},
  {BRIG_OPCODE_DIV, SU3264 | F | PF, Ctrl::Binary, true, true},
  {BRIG_OPCODE_MAX, SU3264 | F | PSU | PF, Ctrl::Binary, false, true},
  {BRIG_OPCODE_MIN, SU3264 | F | PSU | PF, Ctrl::Binary, false, true},
  {BRIG_OPCODE_MULHI, SU3264 | PSU, Ctrl::Binary, false, false},
  {BRIG_OPCODE_BORROW, SU3264, Ctrl::None, false, false},
  {BRIG_OPCODE_CARRY, SU3264, Ctrl::None, false, false},
  {BRIG_OPCODE_REM, SU3264, Ctrl::None, false, false},
  // Tables 5-3, 5-17.
  {BRIG_OPCODE_MAD, SU3264 | F, Ctrl::None, true, true},
  {BRIG_OPCODE_FMA, F, Ctrl::None, true, true},
  {BRIG_OPCODE_CEIL, F | PF, Ctrl::Unary, false, true},
  {BRIG_OPCODE_FLOOR, F | PF, Ctrl::Unary, false, true},
  {BRIG_OPCODE_RINT, F | PF, Ctrl::Unary, false, true},
  {BRIG_OPCODE_TRUNC, F | PF, Ctrl::Unary, false, true},
  {BRIG_OPCODE_FRACT, F | PF, Ctrl::Unary, true, true},
  {BRIG_OPCODE_SQRT, F | PF, Ctrl::Unary, true, true},
  {BRIG_OPCODE_COPYSIGN, F | PF, Ctrl::Binary, false, false},
  // Table 5-4.
  {BRIG_OPCODE_MAD24, SU32, Ctrl::None, false, false},
  {BRIG_OPCODE_MAD24HI, SU32, Ctrl::None, false, false},
  {BRIG_OPCODE_MUL24, SU32, Ctrl::None, false, false},
  {BRIG_OPCODE_MUL24HI, SU32, Ctrl::None, false, false},
  // Table 5-5: packed shifts take no control (src1 is a u32 amount).
  {BRIG_OPCODE_SHL, SU3264 | PSU, Ctrl::None, false, false},
  {BRIG_OPCODE_SHR, SU3264 | PSU, Ctrl::None, false, false},
  // Tables 5-6, 5-8.
  {BRIG_OPCODE_AND, B1 | B3264, Ctrl::None, false, false},
  {BRIG_OPCODE_OR, B1 | B3264, Ctrl::None, false, false},
  {BRIG_OPCODE_XOR, B1 | B3264, Ctrl::None, false, false},
  {BRIG_OPCODE_NOT, B1 | B3264, Ctrl::None, false, false},
  {BRIG_OPCODE_BITEXTRACT, SU3264, Ctrl::None, false, false},
  {BRIG_OPCODE_BITINSERT, SU3264, Ctrl::None, false, false},
  {BRIG_OPCODE_BITMASK, B3264, Ctrl::None, false, false},
  {BRIG_OPCODE_BITREV, B3264, Ctrl::None, false, false},
  {BRIG_OPCODE_BITSELECT, B3264, Ctrl::None, false, false},
  // Tables 5-11, 5-14.
  {BRIG_OPCODE_SHUFFLE, PSHUF, Ctrl::None, false, false},
  {BRIG_OPCODE_UNPACKHI, PSHUF, Ctrl::None, false, false},
  {BRIG_OPCODE_UNPACKLO, PSHUF, Ctrl::None, false, false},
  {BRIG_OPCODE_CMOV, B1 | B3264 | PALL, Ctrl::None, false, false},
  // Table 5-20.
  {BRIG_OPCODE_NCOS, F32, Ctrl::None, false, false},
  {BRIG_OPCODE_NEXP2, F32, Ctrl::None, false, false},
  {BRIG_OPCODE_NLOG2, F32, Ctrl::None, false, false},
  {BRIG_OPCODE_NSIN, F32, Ctrl::None, false, false},
  {BRIG_OPCODE_NFMA, F, Ctrl::None, false, false},
  {BRIG_OPCODE_NRCP, F, Ctrl::None, false, false},
  {BRIG_OPCODE_NRSQRT, F, Ctrl::None, false, false},
  {BRIG_OPCODE_NSQRT, F, Ctrl::None, false, false},
  // Table 5-21.
  {BRIG_OPCODE_BITALIGN, B32, Ctrl::None, false, false},
  {BRIG_OPCODE_BYTEALIGN, B32, Ctrl::None, false, false},
  {BRIG_OPCODE_LERP, U8X4, Ctrl::None, false, false},
};
// clang-format on

const ArithRule *arithRule(unsigned Opcode) {
  for (const ArithRule &R : ArithRules)
    if (R.Opcode == Opcode)
      return &R;
  return nullptr;
}

bool isFloatRound(unsigned R) {
  return R >= BRIG_ROUND_FLOAT_DEFAULT && R <= BRIG_ROUND_FLOAT_MINUS_INFINITY;
}
bool isIntRound(unsigned R) {
  return R >= BRIG_ROUND_INTEGER_NEAR_EVEN &&
         R <= BRIG_ROUND_INTEGER_SIGNALING_MINUS_INFINITY_SAT;
}

const char *packText(unsigned P) {
  const char *N = brig::packName(P);
  return N && *N ? N : "none";
}

llvm::Error checkArith(const ArithRule &R, const Instruction &I,
                       const ModuleTraits &M) {
  unsigned T = I.Type;
  if (!inSet(T, R.Types))
    return badType(I, "type", T);
  bool Fl = isFloatType(T) || isFloatPackedType(T);
  if (I.Ftz && !(Fl && R.Ftz))
    return error(I.Loc, llvm::Twine(opName(I)) +
                            " does not support ftz with type " + tn(T));
  if (I.RoundWritten && !(Fl && R.FloatRound && isFloatRound(I.Round)))
    return error(I.Loc, llvm::Twine(opName(I)) + " with type " + tn(T) +
                            " does not support this rounding modifier");
  if (M.Profile == BRIG_PROFILE_BASE && Fl && R.Ftz && !I.Ftz)
    return error(I.Loc, llvm::Twine(opName(I)) +
                            " needs the ftz modifier in the base profile");
  if (M.Profile == BRIG_PROFILE_BASE && I.RoundWritten)
    return error(I.Loc, llvm::Twine(opName(I)) +
                            " takes no rounding modifier in the base profile");
  if (!isPackedType(T) || R.Control == Ctrl::None) {
    if (I.Pack != BRIG_PACK_NONE)
      return error(I.Loc, llvm::Twine("packing control '") + packText(I.Pack) +
                              "' needs a packed type with a control");
    return llvm::Error::success();
  }
  bool Ok = false;
  unsigned P = I.Pack;
  switch (R.Control) {
  case Ctrl::Unary:
    Ok = P == BRIG_PACK_P || P == BRIG_PACK_S;
    break;
  case Ctrl::Binary:
    Ok = P >= BRIG_PACK_PP && P <= BRIG_PACK_SS;
    break;
  case Ctrl::BinarySat:
    Ok = (P >= BRIG_PACK_PP && P <= BRIG_PACK_SS) ||
         (!Fl && P >= BRIG_PACK_PPSAT && P <= BRIG_PACK_SSSAT);
    break;
  case Ctrl::None:
    break;
  }
  static const char *const Controls[] = {"", "p or s", "pp, ps, sp or ss",
                                         "pp, ps, sp or ss (or _sat)"};
  if (!Ok && P == BRIG_PACK_NONE)
    return error(I.Loc, llvm::Twine(opName(I)) + " with packed type " + tn(T) +
                            " needs a packing control: " +
                            Controls[unsigned(R.Control)]);
  if (!Ok)
    return error(I.Loc, llvm::Twine("invalid packing control '") + packText(P) +
                            "' for " + opName(I) + " with type " + tn(T));
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Instructions with a source type (PRM 5.7-5.10, 5.15-5.19, 9.4)
//===----------------------------------------------------------------------===//

/// The scalar type that carries one element of packed type \p P in pack and
/// unpack: s32/u32 for 8/16-bit integers, the element type otherwise.
unsigned packElementCarrier(unsigned P) {
  unsigned B = baseOf(P);
  if (isFloatType(B) || typeBits(B) == 64)
    return B;
  return isSignedType(B) ? BRIG_TYPE_S32 : BRIG_TYPE_U32;
}

bool cvtTypeOk(unsigned T) {
  return T == BRIG_TYPE_B1 || isIntScalar(T) || isFloatType(T);
}

llvm::Error checkCvt(const Instruction &I, const ModuleTraits &M) {
  // Table 5-29.
  unsigned D = I.Type, S = I.SourceType;
  if (!cvtTypeOk(D))
    return badType(I, "destination type", D);
  if (!cvtTypeOk(S))
    return badType(I, "source type", S);
  bool DF = isFloatType(D), SF = isFloatType(S);
  bool DI = isIntScalar(D), SI = isIntScalar(S);
  // Converting to the same type, or between integers of one size, is not a
  // conversion (HSAILasm rejects these).
  if (D == S || (DI && SI && typeBits(D) == typeBits(S)))
    return error(I.Loc, llvm::Twine("cvt from ") + tn(S) + " to " + tn(D) +
                            " is not a conversion");
  if (I.Ftz && !SF)
    return error(I.Loc, "ftz needs a floating-point source type");
  bool Base = M.Profile == BRIG_PROFILE_BASE;
  if (Base && SF && !I.Ftz)
    return error(I.Loc, llvm::Twine(opName(I)) +
                            " needs the ftz modifier in the base profile");
  // 16.2.1: the base profile has the default float rounding and the zeroi
  // integer roundings only.
  if (Base && I.RoundWritten &&
      !(I.Round == BRIG_ROUND_INTEGER_ZERO ||
        I.Round == BRIG_ROUND_INTEGER_ZERO_SAT ||
        I.Round == BRIG_ROUND_INTEGER_SIGNALING_ZERO ||
        I.Round == BRIG_ROUND_INTEGER_SIGNALING_ZERO_SAT))
    return error(I.Loc, "cvt in the base profile takes only the zeroi, "
                        "zeroi_sat, szeroi and szeroi_sat roundings");
  // Table 5-30.
  if (!I.RoundWritten)
    return llvm::Error::success();
  bool Ok;
  if (SF && DI)
    Ok = isIntRound(I.Round);
  else if ((SF && DF && typeBits(D) < typeBits(S)) || (SI && DF))
    Ok = isFloatRound(I.Round);
  else
    Ok = false;
  if (!Ok)
    return error(I.Loc, llvm::Twine("invalid rounding modifier for cvt from ") +
                            tn(S) + " to " + tn(D));
  return llvm::Error::success();
}

llvm::Error checkCmp(const Instruction &I, const ModuleTraits &M) {
  // Tables 5-24 and 5-25.
  unsigned D = I.Type, S = I.SourceType;
  unsigned C = I.Compare;
  if (isPackedType(S)) {
    if (!inSet(S, PALL))
      return badType(I, "source type", S);
    if (D != packedToUnsigned(S))
      return error(I.Loc, llvm::Twine("packed cmp with source type ") + tn(S) +
                              " needs destination type " +
                              tn(packedToUnsigned(S)));
    if (I.Pack != BRIG_PACK_PP)
      return error(I.Loc, "packed cmp needs the 'pp' packing control");
  } else {
    if (I.Pack != BRIG_PACK_NONE)
      return error(I.Loc, "packing control needs a packed source type");
    if (!inSet(S, B1 | B3264 | SU3264 | F))
      return badType(I, "source type", S);
    // Table 5-24 (HSAILasm also takes f16 destinations for any source).
    bool DOk = inSet(D, B1 | SU3264 | F);
    if (!DOk)
      return badType(I, "destination type", D);
  }
  bool SF = isFloatType(baseOf(S));
  if (I.Ftz && !SF)
    return error(I.Loc, "ftz needs a floating-point source type");
  if (M.Profile == BRIG_PROFILE_BASE && SF && !I.Ftz)
    return error(I.Loc, llvm::Twine(opName(I)) +
                            " needs the ftz modifier in the base profile");
  bool Ordered = C <= BRIG_COMPARE_GE;
  if (isBitType(S) && C != BRIG_COMPARE_EQ && C != BRIG_COMPARE_NE)
    return error(I.Loc, "bit sources can only be compared with eq and ne");
  if (!SF && !Ordered)
    return error(I.Loc, "this comparison needs floating-point sources");
  return llvm::Error::success();
}

llvm::Error checkSegmentConversion(const Instruction &I, const ModuleTraits &M);

llvm::Error checkSourceType(const Instruction &I, const ModuleTraits &M) {
  unsigned D = I.Type, S = I.SourceType;
  auto Need = [&](bool DOk, bool SOk) -> llvm::Error {
    if (!DOk)
      return badType(I, "destination type", D);
    if (!SOk)
      return badType(I, "source type", S);
    return llvm::Error::success();
  };
  switch (I.Opcode) {
  case BRIG_OPCODE_POPCOUNT: // Table 5-6
    return Need(D == BRIG_TYPE_U32, inSet(S, B3264));
  case BRIG_OPCODE_FIRSTBIT: // Table 5-8
  case BRIG_OPCODE_LASTBIT:
    return Need(D == BRIG_TYPE_U32, inSet(S, SU3264));
  case BRIG_OPCODE_COMBINE: // Table 5-10
  case BRIG_OPCODE_EXPAND: {
    bool C = I.Opcode == BRIG_OPCODE_COMBINE;
    if (llvm::Error E =
            C ? Need(D == BRIG_TYPE_B64 || D == BRIG_TYPE_B128,
                     (D == BRIG_TYPE_B64 && S == BRIG_TYPE_B32) ||
                         (D == BRIG_TYPE_B128 &&
                          (S == BRIG_TYPE_B32 || S == BRIG_TYPE_B64)))
              : Need(D == BRIG_TYPE_B32 || D == BRIG_TYPE_B64,
                     (D == BRIG_TYPE_B32 &&
                      (S == BRIG_TYPE_B64 || S == BRIG_TYPE_B128)) ||
                         (D == BRIG_TYPE_B64 && S == BRIG_TYPE_B128)))
      return E;
    unsigned Wide = C ? D : S, Narrow = C ? S : D;
    unsigned Want = typeBits(Wide) / typeBits(Narrow);
    unsigned VecIdx = C ? 1 : 0;
    if (I.Operands.size() > VecIdx && elementCount(I.Operands[VecIdx]) != Want)
      return error(I.Operands[VecIdx].Loc,
                   llvm::Twine("the vector must have ") + llvm::Twine(Want) +
                       " elements of " + tn(Narrow));
    return llvm::Error::success();
  }
  case BRIG_OPCODE_PACK: // Table 5-12
    return Need(inSet(D, PALL), isPackedType(D) && S == packElementCarrier(D));
  case BRIG_OPCODE_UNPACK:
    return Need(!isPackedType(S) || D == packElementCarrier(S), inSet(S, PALL));
  case BRIG_OPCODE_CLASS: // 5.13
    return Need(D == BRIG_TYPE_B1, inSet(S, F));
  case BRIG_OPCODE_PACKCVT: // Table 5-21
    return Need(D == BRIG_TYPE_U8X4, S == BRIG_TYPE_F32);
  case BRIG_OPCODE_UNPACKCVT:
    return Need(D == BRIG_TYPE_F32, S == BRIG_TYPE_U8X4);
  case BRIG_OPCODE_SAD:
    return Need(D == BRIG_TYPE_U32, S == BRIG_TYPE_U32 ||
                                        S == BRIG_TYPE_U16X2 ||
                                        S == BRIG_TYPE_U8X4);
  case BRIG_OPCODE_SADHI:
    return Need(D == BRIG_TYPE_U16X2, S == BRIG_TYPE_U8X4);
  case BRIG_OPCODE_SEGMENTP: { // Tables 5-22, 5-23
    if (I.Segment != BRIG_SEGMENT_GLOBAL && I.Segment != BRIG_SEGMENT_GROUP &&
        I.Segment != BRIG_SEGMENT_PRIVATE)
      return error(I.Loc, "segmentp needs the global, group or private "
                          "segment");
    unsigned Flat = addressBits(BRIG_SEGMENT_FLAT, M.Model);
    return Need(D == BRIG_TYPE_B1, isUnsignedType(S) && typeBits(S) == Flat);
  }
  case BRIG_OPCODE_FTOS:
  case BRIG_OPCODE_STOF:
    if (I.Segment != BRIG_SEGMENT_GROUP && I.Segment != BRIG_SEGMENT_PRIVATE)
      return error(I.Loc, "segment conversions need the group or private "
                          "segment");
    return checkSegmentConversion(I, M);
  default:
    return llvm::Error::success();
  }
}

llvm::Error checkSegmentConversion(const Instruction &I,
                                   const ModuleTraits &M) {
  unsigned D = I.Type, S = I.SourceType;
  auto Need = [&](bool DOk, bool SOk) -> llvm::Error {
    if (!DOk)
      return badType(I, "destination type", D);
    if (!SOk)
      return badType(I, "source type", S);
    return llvm::Error::success();
  };
  switch (I.Opcode) {
  case BRIG_OPCODE_FTOS: {
    unsigned Flat = addressBits(BRIG_SEGMENT_FLAT, M.Model);
    unsigned Seg = addressBits(I.Segment, M.Model);
    return Need(isUnsignedType(D) && typeBits(D) == Seg,
                isUnsignedType(S) && typeBits(S) == Flat);
  }
  default: {
    unsigned Flat = addressBits(BRIG_SEGMENT_FLAT, M.Model);
    unsigned Seg = addressBits(I.Segment, M.Model);
    return Need(isUnsignedType(D) && typeBits(D) == Flat,
                isUnsignedType(S) && typeBits(S) == Seg);
  }
  }
}

//===----------------------------------------------------------------------===//
// Memory, atomic and signal instructions (PRM chapter 6)
//===----------------------------------------------------------------------===//

bool isOpaque(unsigned T) { return inSet(T, IMG | SAMP | SIG); }

llvm::Error checkMem(const Instruction &I) {
  // Tables 6-1 and 6-2.
  unsigned T = I.Type;
  bool Ld = I.Opcode == BRIG_OPCODE_LD;
  bool Ok = T == BRIG_TYPE_B128 || isOpaque(T) ||
            (isIntScalar(T) && typeBits(T) >= 8) || isFloatType(T);
  if (!Ok)
    return badType(I, "type", T);
  unsigned S = I.Segment;
  if (!Ld && (S == BRIG_SEGMENT_READONLY || S == BRIG_SEGMENT_KERNARG))
    return error(I.Loc, llvm::Twine("cannot store to the ") +
                            brig::segmentName(S) + " segment");
  if (!Ld && inSet(T, IMG | SAMP) && S != BRIG_SEGMENT_ARG)
    return error(I.Loc, "images and samplers can only be stored to the arg "
                        "segment");
  if (!Ld && I.Width != BRIG_WIDTH_NONE)
    return error(I.Loc, "st does not take a width modifier");
  if (!Ld && I.IsConst)
    return error(I.Loc, "st does not take the const modifier");
  if (I.IsConst && !(S == BRIG_SEGMENT_GLOBAL || S == BRIG_SEGMENT_FLAT ||
                     S == BRIG_SEGMENT_READONLY))
    return error(I.Loc, "const is only allowed for the global segment or a "
                        "flat address");
  return llvm::Error::success();
}

enum OrderBits : uint8_t {
  RLX = 1 << BRIG_MEMORY_ORDER_RELAXED,
  ACQ = 1 << BRIG_MEMORY_ORDER_SC_ACQUIRE,
  REL = 1 << BRIG_MEMORY_ORDER_SC_RELEASE,
  AR = 1 << BRIG_MEMORY_ORDER_SC_ACQUIRE_RELEASE,
};

const char *orderText(unsigned O) {
  const char *N = brig::memoryOrderName(O);
  return N && *N ? N : "none";
}

const char *atomicText(unsigned Op) {
  const char *N = brig::atomicOpName(Op);
  return N ? N : "?";
}

llvm::Error checkOrder(const Instruction &I, uint8_t Allowed) {
  if (I.MemoryOrder > BRIG_MEMORY_ORDER_SC_ACQUIRE_RELEASE ||
      !(Allowed & (1u << I.MemoryOrder))) {
    bool HasOp =
        I.Opcode == BRIG_OPCODE_ATOMIC || I.Opcode == BRIG_OPCODE_ATOMICNORET ||
        I.Opcode == BRIG_OPCODE_SIGNAL || I.Opcode == BRIG_OPCODE_SIGNALNORET;
    return error(I.Loc, llvm::Twine(opName(I)) + (HasOp ? "_" : "") +
                            (HasOp ? atomicText(I.AtomicOp) : "") +
                            " does not support memory order " +
                            orderText(I.MemoryOrder));
  }
  return llvm::Error::success();
}

llvm::Error checkAtomic(const Instruction &I) {
  // Tables 6-3 and 6-4.
  bool Ret = I.Opcode == BRIG_OPCODE_ATOMIC;
  unsigned Op = I.AtomicOp, T = I.Type;
  uint32_t Types;
  switch (Op) {
  case BRIG_ATOMIC_LD:
  case BRIG_ATOMIC_ST:
  case BRIG_ATOMIC_AND:
  case BRIG_ATOMIC_OR:
  case BRIG_ATOMIC_XOR:
  case BRIG_ATOMIC_EXCH:
  case BRIG_ATOMIC_CAS:
    Types = B3264;
    break;
  case BRIG_ATOMIC_ADD:
  case BRIG_ATOMIC_SUB:
  case BRIG_ATOMIC_MAX:
  case BRIG_ATOMIC_MIN:
    Types = SU3264;
    break;
  case BRIG_ATOMIC_WRAPINC:
  case BRIG_ATOMIC_WRAPDEC:
    Types = U3264;
    break;
  default:
    return error(I.Loc, "invalid atomic operation");
  }
  if (Ret ? Op == BRIG_ATOMIC_ST
          : (Op == BRIG_ATOMIC_LD || Op == BRIG_ATOMIC_EXCH ||
             Op == BRIG_ATOMIC_CAS))
    return error(I.Loc, llvm::Twine(opName(I)) + " does not support the " +
                            atomicText(Op) + " operation");
  if (!inSet(T, Types))
    return badType(I, "type", T);
  unsigned S = I.Segment;
  if (S != BRIG_SEGMENT_GLOBAL && S != BRIG_SEGMENT_GROUP &&
      S != BRIG_SEGMENT_FLAT)
    return error(I.Loc, "atomics need the global or group segment or a flat "
                        "address");
  uint8_t Orders = RLX | ACQ | REL | AR;
  if (Op == BRIG_ATOMIC_LD)
    Orders = RLX | ACQ;
  else if (Op == BRIG_ATOMIC_ST)
    Orders = RLX | REL;
  if (llvm::Error E = checkOrder(I, Orders))
    return E;
  unsigned Sc = I.MemoryScope;
  bool ScOk =
      Sc == BRIG_MEMORY_SCOPE_WAVEFRONT || Sc == BRIG_MEMORY_SCOPE_WORKGROUP ||
      (S != BRIG_SEGMENT_GROUP &&
       (Sc == BRIG_MEMORY_SCOPE_AGENT || Sc == BRIG_MEMORY_SCOPE_SYSTEM));
  if (!ScOk)
    return error(I.Loc, "memory scope is not allowed for this segment");
  return llvm::Error::success();
}

llvm::Error checkSignal(const Instruction &I, const ModuleTraits &M) {
  // Table 6-5.
  bool Ret = I.Opcode == BRIG_OPCODE_SIGNAL;
  unsigned Op = I.AtomicOp, T = I.Type;
  bool Wait = Op >= BRIG_ATOMIC_WAIT_EQ && Op <= BRIG_ATOMIC_WAITTIMEOUT_GTE;
  uint32_t Types;
  uint8_t Orders = RLX | ACQ | REL | AR;
  switch (Op) {
  case BRIG_ATOMIC_LD:
    Types = B3264;
    Orders = RLX | ACQ;
    break;
  case BRIG_ATOMIC_ST:
    Types = B3264;
    Orders = RLX | REL;
    break;
  case BRIG_ATOMIC_AND:
  case BRIG_ATOMIC_OR:
  case BRIG_ATOMIC_XOR:
  case BRIG_ATOMIC_EXCH:
  case BRIG_ATOMIC_CAS:
    Types = B3264;
    break;
  case BRIG_ATOMIC_ADD:
  case BRIG_ATOMIC_SUB:
    Types = SU3264;
    break;
  default:
    if (!Wait)
      return error(I.Loc, "invalid signal operation");
    Types = S3264;
    Orders = RLX | ACQ;
  }
  bool RetOnly = Op == BRIG_ATOMIC_LD || Op == BRIG_ATOMIC_EXCH ||
                 Op == BRIG_ATOMIC_CAS || Wait;
  if (Ret ? Op == BRIG_ATOMIC_ST : RetOnly)
    return error(I.Loc, llvm::Twine(opName(I)) + " does not support the " +
                            atomicText(Op) + " operation");
  if (!inSet(T, Types))
    return badType(I, "type", T);
  unsigned Sig =
      M.Model == BRIG_MACHINE_LARGE ? BRIG_TYPE_SIG64 : BRIG_TYPE_SIG32;
  if (I.SignalType != Sig)
    return error(I.Loc, llvm::Twine("the signal type must be ") + tn(Sig) +
                            " in this machine model");
  if (typeBits(T) != (Sig == BRIG_TYPE_SIG64 ? 64u : 32u))
    return error(I.Loc, llvm::Twine("the type must match the value size of ") +
                            tn(Sig));
  return checkOrder(I, Orders);
}

//===----------------------------------------------------------------------===//
// Image instructions (PRM chapter 7)
//===----------------------------------------------------------------------===//

/// Coordinates a geometry needs (Table 7-1).
unsigned geometryDims(unsigned G) {
  switch (G) {
  case BRIG_GEOMETRY_1D:
  case BRIG_GEOMETRY_1DB:
    return 1;
  case BRIG_GEOMETRY_2D:
  case BRIG_GEOMETRY_1DA:
  case BRIG_GEOMETRY_2DDEPTH:
    return 2;
  default:
    return 3;
  }
}

bool isDepthGeometry(unsigned G) {
  return G == BRIG_GEOMETRY_2DDEPTH || G == BRIG_GEOMETRY_2DADEPTH;
}

llvm::Error checkImage(const Instruction &I) {
  // Tables 7-6 to 7-9 (HSAILasm also allows f16 destinations).
  unsigned Op = I.Opcode, G = I.Geometry;
  bool Rd = Op == BRIG_OPCODE_RDIMAGE, St = Op == BRIG_OPCODE_STIMAGE;
  if (!(I.Type == BRIG_TYPE_S32 || I.Type == BRIG_TYPE_U32 ||
        I.Type == BRIG_TYPE_F32 || I.Type == BRIG_TYPE_F16))
    return badType(I, "type", I.Type);
  unsigned Img = I.ImageType;
  bool ImgOk = Rd   ? Img == BRIG_TYPE_ROIMG
               : St ? (Img == BRIG_TYPE_WOIMG || Img == BRIG_TYPE_RWIMG)
                    : (Img == BRIG_TYPE_ROIMG || Img == BRIG_TYPE_RWIMG);
  if (!ImgOk)
    return badType(I, "image type", Img);
  bool CoordOk =
      Rd ? (I.CoordType == BRIG_TYPE_F32 || I.CoordType == BRIG_TYPE_S32)
         : I.CoordType == BRIG_TYPE_U32;
  if (!CoordOk)
    return badType(I, "coordinate type", I.CoordType);
  if (Rd && G == BRIG_GEOMETRY_1DB)
    return error(I.Loc, "rdimage does not support the 1db geometry");
  if (I.Operands.empty())
    return llvm::Error::success();
  unsigned Want = isDepthGeometry(G) ? 1 : 4;
  if (elementCount(I.Operands[0]) != Want)
    return error(I.Operands[0].Loc, llvm::Twine("this geometry needs ") +
                                        llvm::Twine(Want) +
                                        (Want == 1 ? " value" : " values"));
  const Operand &Coord = I.Operands.back();
  unsigned Dims = geometryDims(G);
  if (I.Operands.size() >= (Rd ? 4u : 3u) && elementCount(Coord) != Dims)
    return error(Coord.Loc, llvm::Twine("this geometry needs ") +
                                llvm::Twine(Dims) +
                                (Dims == 1 ? " coordinate" : " coordinates"));
  return llvm::Error::success();
}

llvm::Error checkQueryImage(const Instruction &I) {
  // Table 7-11: which properties each geometry has.
  unsigned G = I.Geometry, Q = I.Query;
  bool Ok;
  switch (Q) {
  case BRIG_IMAGE_QUERY_WIDTH:
  case BRIG_IMAGE_QUERY_CHANNELORDER:
  case BRIG_IMAGE_QUERY_CHANNELTYPE:
    Ok = true;
    break;
  case BRIG_IMAGE_QUERY_HEIGHT:
    Ok = geometryDims(G) >= 2 && G != BRIG_GEOMETRY_1DA;
    break;
  case BRIG_IMAGE_QUERY_DEPTH:
    Ok = G == BRIG_GEOMETRY_3D;
    break;
  case BRIG_IMAGE_QUERY_ARRAY:
    Ok = G == BRIG_GEOMETRY_1DA || G == BRIG_GEOMETRY_2DA ||
         G == BRIG_GEOMETRY_2DADEPTH;
    break;
  default:
    Ok = false;
  }
  if (!Ok)
    return error(I.Loc, "the image geometry has no such property");
  if (I.Type != BRIG_TYPE_U32)
    return badType(I, "type", I.Type);
  if (!inSet(I.ImageType, IMG))
    return badType(I, "image type", I.ImageType);
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Fixed types (PRM chapters 5, 9-11)
//===----------------------------------------------------------------------===//

/// The type sets of the instructions whose type is one of a few fixed ones;
/// 0 when the opcode is not of this kind.
uint32_t fixedTypes(unsigned Opcode) {
  switch (Opcode) {
  case BRIG_OPCODE_CURRENTWORKGROUPSIZE: // Table 11-1
  case BRIG_OPCODE_CURRENTWORKITEMFLATID:
  case BRIG_OPCODE_DIM:
  case BRIG_OPCODE_GRIDGROUPS:
  case BRIG_OPCODE_WORKGROUPID:
  case BRIG_OPCODE_WORKGROUPSIZE:
  case BRIG_OPCODE_WORKITEMFLATID:
  case BRIG_OPCODE_WORKITEMID:
  case BRIG_OPCODE_CLEARDETECTEXCEPT: // Table 11-2
  case BRIG_OPCODE_GETDETECTEXCEPT:
  case BRIG_OPCODE_SETDETECTEXCEPT:
  case BRIG_OPCODE_CUID: // Table 11-4
  case BRIG_OPCODE_DEBUGTRAP:
  case BRIG_OPCODE_GROUPBASEPTR:
  case BRIG_OPCODE_LANEID:
  case BRIG_OPCODE_MAXCUID:
  case BRIG_OPCODE_MAXWAVEID:
  case BRIG_OPCODE_WAVEID:
  case BRIG_OPCODE_LDF:             // Table 9-2
  case BRIG_OPCODE_ACTIVELANECOUNT: // Table 9-3
  case BRIG_OPCODE_ACTIVELANEID:
  case BRIG_OPCODE_ALLOCA: // Table 10-5
    return U32;
  case BRIG_OPCODE_GRIDSIZE:
  case BRIG_OPCODE_WORKITEMABSID:
  case BRIG_OPCODE_WORKITEMFLATABSID:
    return U3264;
  case BRIG_OPCODE_PACKETID:
  case BRIG_OPCODE_CLOCK:
  case BRIG_OPCODE_ADDQUEUEWRITEINDEX: // Table 11-3
  case BRIG_OPCODE_CASQUEUEWRITEINDEX:
  case BRIG_OPCODE_LDQUEUEREADINDEX:
  case BRIG_OPCODE_LDQUEUEWRITEINDEX:
  case BRIG_OPCODE_STQUEUEREADINDEX:
  case BRIG_OPCODE_STQUEUEWRITEINDEX:
    return U64;
  case BRIG_OPCODE_ACTIVELANEMASK:
    return B64;
  case BRIG_OPCODE_ACTIVELANEPERMUTE:
    return B1 | B3264 | B128;
  case BRIG_OPCODE_CBR: // Table 8-1
    return B1;
  case BRIG_OPCODE_SBR:
  case BRIG_OPCODE_SCALL: // Table 10-2
  case BRIG_OPCODE_ICALL: // Table 10-3
    return U3264;
  default:
    return 0;
  }
}

llvm::Error checkQueue(const Instruction &I) {
  // Table 11-3.
  if (I.Segment != BRIG_SEGMENT_GLOBAL && I.Segment != BRIG_SEGMENT_FLAT)
    return error(I.Loc, "queue instructions need the global segment or a "
                        "flat address");
  switch (I.Opcode) {
  case BRIG_OPCODE_LDQUEUEREADINDEX:
  case BRIG_OPCODE_LDQUEUEWRITEINDEX:
    return checkOrder(I, RLX | ACQ);
  case BRIG_OPCODE_STQUEUEREADINDEX:
  case BRIG_OPCODE_STQUEUEWRITEINDEX:
    return checkOrder(I, RLX | REL);
  default:
    return checkOrder(I, RLX | ACQ | REL | AR);
  }
}

/// Source types of the cross-lane instructions that take one (Table 9-3).
bool laneSourceOk(const Instruction &I) {
  switch (I.Opcode) {
  case BRIG_OPCODE_ACTIVELANECOUNT:
  case BRIG_OPCODE_ACTIVELANEMASK:
    return I.SourceType == BRIG_TYPE_B1;
  default:
    return I.SourceType == BRIG_TYPE_NONE;
  }
}

/// sig32 belongs to the small machine model and sig64 to the large one
/// (PRM 2.9).
llvm::Error checkSignalModel(SourceLoc L, unsigned T, const ModuleTraits &M) {
  unsigned Wrong =
      M.Model == BRIG_MACHINE_LARGE ? BRIG_TYPE_SIG32 : BRIG_TYPE_SIG64;
  if (T == Wrong)
    return error(L, llvm::Twine(tn(T)) + " is not supported by the " +
                        (M.Model == BRIG_MACHINE_LARGE ? "large" : "small") +
                        " machine model");
  return llvm::Error::success();
}

/// 16.2.1: the base profile has no f64 or f64x2.
llvm::Error checkBaseProfileType(SourceLoc L, unsigned T,
                                 const ModuleTraits &M) {
  if (M.Profile == BRIG_PROFILE_BASE &&
      baseOf(T & ~unsigned(BRIG_TYPE_ARRAY)) == BRIG_TYPE_F64)
    return error(L, "f64 and f64x2 types are not supported by the base "
                    "profile");
  return llvm::Error::success();
}

bool isImageOpcode(unsigned Op) {
  switch (Op) {
  case BRIG_OPCODE_RDIMAGE:
  case BRIG_OPCODE_LDIMAGE:
  case BRIG_OPCODE_STIMAGE:
  case BRIG_OPCODE_IMAGEFENCE:
  case BRIG_OPCODE_QUERYIMAGE:
  case BRIG_OPCODE_QUERYSAMPLER:
    return true;
  default:
    return false;
  }
}

const char *const NoImageExtension =
    "image and sampler types and instructions need extension \"IMAGE\"";

llvm::Error checkTypes(const OpcodeInfo &Info, const Instruction &I,
                       const ModuleTraits &M) {
  // PRM 7.1: the image instructions and the image and sampler types belong
  // to the IMAGE extension.
  if (!M.ImageExtension &&
      (isImageOpcode(I.Opcode) || inSet(I.Type, IMG | SAMP) ||
       inSet(I.SourceType, IMG | SAMP)))
    return error(I.Loc, NoImageExtension);
  for (unsigned T : {I.Type, I.SourceType}) {
    if (llvm::Error E = checkSignalModel(I.Loc, T, M))
      return E;
    if (llvm::Error E = checkBaseProfileType(I.Loc, T, M))
      return E;
  }
  if (const ArithRule *R = arithRule(I.Opcode))
    return checkArith(*R, I, M);
  if (uint32_t Set = fixedTypes(I.Opcode)) {
    if (!inSet(I.Type, Set))
      return badType(I, "type", I.Type);
    if (Info.Format == MnemoFormat::Queue)
      return checkQueue(I);
    if (Info.Format == MnemoFormat::Lane && !laneSourceOk(I))
      return badType(I, "source type", I.SourceType);
    return llvm::Error::success();
  }
  switch (I.Opcode) {
  case BRIG_OPCODE_CVT:
    return checkCvt(I, M);
  case BRIG_OPCODE_CMP:
    return checkCmp(I, M);
  case BRIG_OPCODE_LD:
  case BRIG_OPCODE_ST:
    return checkMem(I);
  case BRIG_OPCODE_ATOMIC:
  case BRIG_OPCODE_ATOMICNORET:
    return checkAtomic(I);
  case BRIG_OPCODE_SIGNAL:
  case BRIG_OPCODE_SIGNALNORET:
    return checkSignal(I, M);
  case BRIG_OPCODE_MEMFENCE: // Table 6-6
    if (llvm::Error E = checkOrder(I, ACQ | REL | AR))
      return E;
    if (I.GlobalScope < BRIG_MEMORY_SCOPE_WAVEFRONT ||
        I.GlobalScope > BRIG_MEMORY_SCOPE_SYSTEM)
      return error(I.Loc, "memfence needs the wave, wg, agent or system "
                          "scope");
    return llvm::Error::success();
  case BRIG_OPCODE_RDIMAGE:
  case BRIG_OPCODE_LDIMAGE:
  case BRIG_OPCODE_STIMAGE:
    return checkImage(I);
  case BRIG_OPCODE_QUERYIMAGE:
    return checkQueryImage(I);
  case BRIG_OPCODE_QUERYSAMPLER:
    if (I.Type != BRIG_TYPE_U32)
      return badType(I, "type", I.Type);
    return llvm::Error::success();
  case BRIG_OPCODE_MOV: { // Table 5-10
    unsigned T = I.Type;
    unsigned Sig =
        M.Model == BRIG_MACHINE_LARGE ? BRIG_TYPE_SIG64 : BRIG_TYPE_SIG32;
    if (!(inSet(T, B1 | B3264 | B128 | SU3264 | F | IMG | SAMP) || T == Sig))
      return badType(I, "type", T);
    return llvm::Error::success();
  }
  case BRIG_OPCODE_NULLPTR: // Table 11-4
    if (I.Segment == BRIG_SEGMENT_GLOBAL || I.Segment == BRIG_SEGMENT_READONLY)
      return error(I.Loc, "nullptr needs the group, private or kernarg "
                          "segment, or none");
    [[fallthrough]];
  case BRIG_OPCODE_LDA: // Table 5-10
    if (!isUnsignedType(I.Type) ||
        typeBits(I.Type) != addressBits(I.Segment, M.Model))
      return error(I.Loc, llvm::Twine("the type must be u") +
                              llvm::Twine(addressBits(I.Segment, M.Model)) +
                              ", the address size of the segment");
    return llvm::Error::success();
  case BRIG_OPCODE_KERNARGBASEPTR: {
    unsigned Bits = addressBits(BRIG_SEGMENT_KERNARG, M.Model);
    if (!isUnsignedType(I.Type) || typeBits(I.Type) != Bits)
      return error(I.Loc, llvm::Twine("the type must be u") +
                              llvm::Twine(Bits) +
                              ", the address size of the kernarg segment");
    return llvm::Error::success();
  }
  case BRIG_OPCODE_PACKETCOMPLETIONSIG: {
    unsigned Sig =
        M.Model == BRIG_MACHINE_LARGE ? BRIG_TYPE_SIG64 : BRIG_TYPE_SIG32;
    if (I.Type != Sig)
      return badType(I, "type", I.Type);
    return llvm::Error::success();
  }
  default:
    return checkSourceType(I, M);
  }
}

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

/// Bits of the register that holds a value of type \p T (b1 in c registers,
/// up to 32 bits in s registers).
unsigned registerBitsFor(unsigned T) {
  unsigned B = typeBits(T);
  if (B == 0)
    return 0;
  if (B == 1)
    return 1;
  return B <= 32 ? 32 : B;
}

unsigned registerBits(unsigned Kind) {
  switch (Kind) {
  case BRIG_REGISTER_KIND_CONTROL:
    return 1;
  case BRIG_REGISTER_KIND_SINGLE:
    return 32;
  case BRIG_REGISTER_KIND_DOUBLE:
    return 64;
  default:
    return 128;
  }
}

const char *registerClassFor(unsigned Bits) {
  switch (Bits) {
  case 1:
    return "a $c register";
  case 32:
    return "a $s register";
  case 64:
    return "a $d register";
  default:
    return "a $q register";
  }
}

llvm::Error checkRegister(const Operand &O, unsigned Idx, unsigned Type) {
  if (O.K != Operand::Kind::Register)
    return llvm::Error::success();
  unsigned Want = registerBitsFor(Type);
  if (Want == 0 || registerBits(O.RegKind) == Want)
    return llvm::Error::success();
  return error(O.Loc, llvm::Twine("operand ") + llvm::Twine(Idx) +
                          " size does not match its type " + tn(Type) +
                          ": expected " + registerClassFor(Want));
}

bool isDestinationVector(unsigned Opcode) {
  switch (Opcode) {
  case BRIG_OPCODE_LD:
  case BRIG_OPCODE_EXPAND:
  case BRIG_OPCODE_RDIMAGE:
  case BRIG_OPCODE_LDIMAGE:
  case BRIG_OPCODE_ACTIVELANEMASK:
    return true;
  default:
    return false;
  }
}

/// Instructions whose operand 1 is a dimension number (Table 11-1).
bool takesDimension(unsigned Opcode) {
  switch (Opcode) {
  case BRIG_OPCODE_CURRENTWORKGROUPSIZE:
  case BRIG_OPCODE_GRIDGROUPS:
  case BRIG_OPCODE_GRIDSIZE:
  case BRIG_OPCODE_WORKGROUPID:
  case BRIG_OPCODE_WORKGROUPSIZE:
  case BRIG_OPCODE_WORKITEMABSID:
  case BRIG_OPCODE_WORKITEMID:
    return true;
  default:
    return false;
  }
}

/// WAVESIZE is an integer: it can stand for an operand whose type is a
/// scalar integer or bit type up to 64 bits (HSAILasm's rule).
bool wavesizeFits(unsigned T) {
  return !isPackedType(T) &&
         (isIntScalar(T) || (isBitType(T) && typeBits(T) <= 64));
}

const char *ruleText(OperandRule R) {
  switch (R) {
  case OperandRule::Reg:
    return "a register";
  case OperandRule::Src:
  case OperandRule::SrcNoWs:
    return "a register or an immediate";
  case OperandRule::Imm:
    return "an immediate";
  case OperandRule::Addr:
    return "an address";
  case OperandRule::Label:
    return "a label";
  case OperandRule::Labels:
    return "a list of labels";
  case OperandRule::DstVec:
    return "a register or a vector of registers";
  case OperandRule::SrcVec:
    return "a register, an immediate or a vector of them";
  case OperandRule::RegList:
    return "a vector of registers";
  case OperandRule::SrcList:
    return "a vector of registers or immediates";
  case OperandRule::FbarOrReg:
    return "an fbarrier or a register";
  case OperandRule::Fbar:
    return "an fbarrier";
  default:
    return "no operand";
  }
}

/// Whether operand \p O (of type \p T) has a kind that \p R accepts.
bool kindFits(OperandRule R, const Operand &O, unsigned T) {
  using K = Operand::Kind;
  bool Reg = O.K == K::Register, Imm = O.K == K::Constant;
  bool Ws = O.K == K::Wavesize && wavesizeFits(T);
  auto ListOf = [&](bool AllowImm) {
    if (O.K != K::OperandList)
      return false;
    for (const Operand &E : O.Elements)
      if (!(E.K == K::Register ||
            (AllowImm &&
             (E.K == K::Constant || (E.K == K::Wavesize && wavesizeFits(T))))))
        return false;
    return true;
  };
  switch (R) {
  case OperandRule::Reg:
    return Reg;
  case OperandRule::Src:
  case OperandRule::SrcNoWs:
    return Reg || Imm || Ws;
  case OperandRule::Imm:
    return Imm;
  case OperandRule::Addr:
    return O.K == K::Address;
  case OperandRule::Label:
    return O.K == K::LabelRef;
  case OperandRule::Labels:
    return O.K == K::LabelList;
  case OperandRule::DstVec:
    return Reg || ListOf(false);
  case OperandRule::SrcVec:
    return Reg || Imm || Ws || ListOf(true);
  case OperandRule::RegList:
    return ListOf(false);
  case OperandRule::SrcList:
    return ListOf(true);
  case OperandRule::FbarOrReg:
    return Reg || O.K == K::CodeRef;
  case OperandRule::Fbar:
    return O.K == K::CodeRef;
  default:
    return true; // call operands are parsed by their own syntax
  }
}

/// The parser converts every immediate to the type of its position
/// (Parser.cpp, parseConstant), a bit type becoming the unsigned type of its
/// size, so text always satisfies this; BRIG states the constant's type,
/// which must be that one (PRM 4.8, 18.6.6).
llvm::Error checkImmediate(const Operand &O, unsigned Idx, unsigned Type) {
  if (O.K != Operand::Kind::Constant || Type == BRIG_TYPE_NONE)
    return llvm::Error::success();
  unsigned Want = isBitType(Type) ? bitTypeToUnsigned(Type) : Type;
  if (O.Type == Want)
    return llvm::Error::success();
  return error(O.Loc, llvm::Twine("operand ") + llvm::Twine(Idx) + " is a " +
                          tn(O.Type) + " constant where its type is " +
                          tn(Want));
}

uint64_t constantValue(const Operand &O) {
  uint64_t V = 0;
  for (size_t I = 0; I < O.Bytes.size() && I < 8; ++I)
    V |= uint64_t(uint8_t(O.Bytes[I])) << (8 * I);
  return V;
}

llvm::Error checkOperands(const OpcodeInfo &Info, const Instruction &I,
                          const ModuleTraits &M) {
  if (Info.Syntax == OperandSyntax::Sbr) {
    if (I.Operands.empty())
      return llvm::Error::success();
    if (llvm::Error E = checkImmediate(I.Operands[0], 0, I.Type))
      return E;
    return checkRegister(I.Operands[0], 0, I.Type);
  }
  if (Info.Syntax != OperandSyntax::Generic)
    return llvm::Error::success();
  unsigned Want = expectedOperandCount(I.Opcode, I.AtomicOp);
  if (I.Operands.size() > Want)
    return error(I.Operands[Want].Loc,
                 llvm::Twine("unexpected operand ") + llvm::Twine(Want) + ": " +
                     opName(I) + " takes " + llvm::Twine(Want) +
                     (Want == 1 ? " operand" : " operands"));
  if (I.Operands.size() < Want)
    return error(I.Loc, llvm::Twine(opName(I)) + " takes " + llvm::Twine(Want) +
                            " operands (found " +
                            llvm::Twine(I.Operands.size()) + ")");
  const InstInfo *Table = instInfo(I.Opcode);
  for (unsigned Idx = 0; Idx < I.Operands.size(); ++Idx) {
    const Operand &O = I.Operands[Idx];
    unsigned T = operandType(Info, I, Idx, M);
    // PRM 18.7: what kind of operand each position takes (brig/InstTable.h).
    OperandRule R = Table && Idx < 5 ? Table->Operands[Idx] : OperandRule::None;
    bool NoWavesize =
        I.Opcode == BRIG_OPCODE_CLASS && Idx == 2; // 5.13: "u32 register or
                                                   // immediate"
    if (!kindFits(R, O, T) || (NoWavesize && O.K == Operand::Kind::Wavesize))
      return error(O.Loc, llvm::Twine("invalid operand ") + llvm::Twine(Idx) +
                              ": expected " + ruleText(R));
    if (O.K == Operand::Kind::Address) {
      // PRM 4.18: arg and spill addresses name a variable.
      if (O.Name.empty() && Info.Types[Idx] == OpType::Addr &&
          (I.Segment == BRIG_SEGMENT_ARG || I.Segment == BRIG_SEGMENT_SPILL))
        return error(O.Loc, "an address in the arg or spill segment must "
                            "name a variable");
      // PRM 4.18: the register of an address has the segment's size.
      if (O.HasReg && Info.Types[Idx] == OpType::Addr) {
        unsigned Want = addressBits(I.Segment, M.Model);
        if (registerBits(O.RegKind) != Want)
          return error(O.Loc, llvm::Twine("address register must be ") +
                                  registerClassFor(Want) +
                                  " for this segment and machine model");
      }
      continue;
    }
    if (O.K == Operand::Kind::OperandList) {
      for (const Operand &E : O.Elements) {
        if (llvm::Error Err = checkImmediate(E, Idx, T))
          return Err;
        if (llvm::Error Err = checkRegister(E, Idx, T))
          return Err;
      }
      if (isDestinationVector(I.Opcode) && Idx == 0) {
        for (size_t A = 0; A < O.Elements.size(); ++A)
          for (size_t B = 0; B < A; ++B)
            if (O.Elements[A].K == Operand::Kind::Register &&
                O.Elements[B].K == Operand::Kind::Register &&
                O.Elements[A].RegKind == O.Elements[B].RegKind &&
                O.Elements[A].RegNum == O.Elements[B].RegNum)
              return error(O.Elements[A].Loc,
                           "a destination vector cannot hold the same "
                           "register twice");
      }
      continue;
    }
    if (llvm::Error Err = checkImmediate(O, Idx, T))
      return Err;
    if (llvm::Error Err = checkRegister(O, Idx, T))
      return Err;
  }
  if (I.Opcode == BRIG_OPCODE_UNPACKCVT && I.Operands.size() >= 3 &&
      constantValue(I.Operands[2]) > 3) // Table 5-21
    return error(I.Operands[2].Loc, "the element must be the constant 0, 1, "
                                    "2 or 3");
  if (takesDimension(I.Opcode) && I.Operands.size() >= 2) {
    const Operand &D = I.Operands[1];
    if (D.K != Operand::Kind::Constant || constantValue(D) > 2)
      return error(D.Loc, "the dimension must be the constant 0, 1 or 2");
  }
  return llvm::Error::success();
}

const char *segmentText(unsigned S) {
  const char *N = brig::segmentName(S);
  return N && *N ? N : "flat";
}

} // namespace

uint64_t aggregateBytes(const Operand &List) {
  uint64_t Size = 0;
  for (const Operand &E : List.Elements) {
    switch (E.K) {
    case Operand::Kind::Align: {
      uint64_t A = alignmentBytes(E.AlignValue);
      if (A > 1)
        Size = (Size + A - 1) / A * A;
      break;
    }
    case Operand::Kind::Constant:
      Size += E.Bytes.size();
      break;
    default:
      Size += 8; // image and sampler handles
      break;
    }
  }
  return Size;
}

uint64_t initializerElements(const Operand &Init, unsigned ElementType) {
  unsigned EB = typeBytes(ElementType);
  switch (Init.K) {
  case Operand::Kind::ConstantImage:
  case Operand::Kind::ConstantSampler:
    return 1;
  case Operand::Kind::ConstantList:
    // An image or sampler array (typed) counts its objects; an aggregate
    // (untyped) its bytes.
    if (Init.Type != BRIG_TYPE_NONE)
      return Init.Elements.size();
    return EB ? aggregateBytes(Init) / EB : 0;
  case Operand::Kind::Constant:
    return EB ? Init.Bytes.size() / EB : 0;
  default:
    return 0;
  }
}

llvm::Error checkVariable(const Variable &V, VarScope Scope,
                          const ModuleTraits &M) {
  unsigned S = V.Segment;
  SourceLoc L = V.Loc;
  switch (Scope) {
  case VarScope::KernelArg:
    if (S != BRIG_SEGMENT_KERNARG)
      return error(L, "kernel arguments must be in the kernarg segment");
    if (V.IsFlexArray)
      return error(L, "kernel array arguments must have a fixed size");
    break;
  case VarScope::FunctionArg:
    if (S != BRIG_SEGMENT_ARG)
      return error(L, "function and signature arguments must be in the arg "
                      "segment");
    break;
  case VarScope::ArgBlock:
    if (S != BRIG_SEGMENT_ARG)
      return error(L, "only arg segment variables can be defined in an arg "
                      "block");
    break;
  case VarScope::Module:
  case VarScope::Local:
    if (S == BRIG_SEGMENT_KERNARG)
      return error(L, "kernarg segment variables must be kernel arguments");
    if (S == BRIG_SEGMENT_ARG)
      return error(L, "arg segment variables must be function arguments or "
                      "be defined in an arg block");
    if (S == BRIG_SEGMENT_SPILL && Scope == VarScope::Module)
      return error(L, "spill segment variables must be local");
    break;
  }
  bool IsArg = Scope == VarScope::KernelArg || Scope == VarScope::FunctionArg;
  if (IsArg && V.IsConst)
    return error(L, "arguments cannot be const");
  if (IsArg && V.Init)
    return error(L, "arguments cannot have an initializer");
  if (V.IsConst && S != BRIG_SEGMENT_GLOBAL && S != BRIG_SEGMENT_READONLY)
    return error(L, "only global and readonly segment variables can be const");
  if (V.Allocation && S != BRIG_SEGMENT_GLOBAL)
    return error(L, llvm::Twine("allocation cannot be specified for ") +
                        segmentText(S) + " segment variables");
  if (V.Init && S != BRIG_SEGMENT_GLOBAL && S != BRIG_SEGMENT_READONLY &&
      !IsArg)
    return error(L, "only global and readonly segment variables can have an "
                    "initializer");
  if (inSet(V.Type, IMG | SAMP) &&
      (S == BRIG_SEGMENT_GROUP || S == BRIG_SEGMENT_PRIVATE ||
       S == BRIG_SEGMENT_SPILL))
    return error(L, "images and samplers can only be defined in the arg, "
                    "kernarg, global and readonly segments");
  if (V.IsDecl && V.Init)
    return error(L, "a variable declaration cannot have an initializer");
  if (V.IsConst && !V.IsDecl && !V.Init)
    return error(L, "const variable definitions must have an initializer");
  if (V.IsFlexArray && !V.Init && !IsArg &&
      !(Scope == VarScope::Module && V.IsDecl))
    return error(L, "an array without a size must be a declaration or have "
                    "an initializer");
  if (V.Init && S == BRIG_SEGMENT_GLOBAL && inSet(V.Type, IMG | SAMP) &&
      !V.Allocation)
    return error(L, "initialized images and samplers must have agent "
                    "allocation");
  if (V.Align && *V.Align < naturalAlignment(V.Type))
    return error(L, "the alignment must be at least the natural alignment "
                    "of the type");
  if (llvm::Error E = checkBaseProfileType(L, V.Type, M))
    return E;
  if (!M.ImageExtension && inSet(V.Type, IMG | SAMP))
    return error(L, NoImageExtension);
  // HSAILasm accepts arrays of the other model's signal type.
  if (!V.IsArray)
    if (llvm::Error E = checkSignalModel(L, V.Type, M))
      return E;
  if (V.Init && V.IsArray) {
    bool Aggregate = V.Init->K == Operand::Kind::ConstantList &&
                     !inSet(V.Type, IMG | SAMP | SIG);
    if (isBitType(V.Type) && !Aggregate)
      return error(V.Init->Loc, "a bit-type array needs an aggregate "
                                "initializer ({...})");
    if (!isBitType(V.Type) && Aggregate)
      return error(V.Init->Loc,
                   llvm::Twine("expected a ") + tn(V.Type) + "[] constant");
    unsigned Lit = V.Init->Type;
    if (!isBitType(V.Type) && V.Init->K == Operand::Kind::Constant &&
        !(Lit & BRIG_TYPE_ARRAY))
      return error(V.Init->Loc,
                   llvm::Twine("expected a ") + tn(V.Type) + "[] constant");
    if (!isBitType(V.Type) && V.Init->K == Operand::Kind::Constant &&
        (Lit & BRIG_TYPE_ARRAY) && (Lit & ~unsigned(BRIG_TYPE_ARRAY)) != V.Type)
      return error(V.Init->Loc, llvm::Twine("expected a ") + tn(V.Type) +
                                    "[] constant, not " +
                                    tn(Lit & ~unsigned(BRIG_TYPE_ARRAY)) +
                                    "[]");
    if (!V.IsFlexArray && V.InitElements != V.Dim)
      return error(V.Init->Loc, llvm::Twine("the initializer has ") +
                                    llvm::Twine(V.InitElements) +
                                    " elements, the array " +
                                    llvm::Twine(V.Dim));
  }
  return llvm::Error::success();
}

namespace {

unsigned effectiveAlign(const Variable &V) {
  return V.Align ? *V.Align : naturalAlignment(V.Type);
}

uint8_t linkageOf(std::optional<uint8_t> L) {
  return L ? *L : uint8_t(BRIG_LINKAGE_MODULE);
}

/// Whether two arguments (or a declared and a defined variable) have the
/// same segment, type and shape.
bool sameShape(const Variable &A, const Variable &B) {
  if (A.Segment != B.Segment || A.Type != B.Type || A.IsArray != B.IsArray)
    return false;
  return !A.IsArray || A.IsFlexArray || B.IsFlexArray || A.Dim == B.Dim;
}

bool sameVariable(const Variable &A, const Variable &B) {
  return sameShape(A, B) && effectiveAlign(A) == effectiveAlign(B) &&
         A.IsConst == B.IsConst && linkageOf(A.Linkage) == linkageOf(B.Linkage);
}

bool sameArgs(const std::vector<Variable> &A, const std::vector<Variable> &B) {
  if (A.size() != B.size())
    return false;
  for (size_t I = 0; I < A.size(); ++I)
    if (!sameShape(A[I], B[I]))
      return false;
  return true;
}

bool sameExecutable(const Executable &A, const Executable &B) {
  return A.Kind == B.Kind && linkageOf(A.Linkage) == linkageOf(B.Linkage) &&
         sameArgs(A.OutArgs, B.OutArgs) && sameArgs(A.InArgs, B.InArgs);
}

const Executable *findExecutable(const std::vector<Stmt> &Module,
                                 const std::string &Name) {
  const Executable *Found = nullptr;
  for (const Stmt &St : Module)
    if (const auto *E = std::get_if<Executable>(&St.V))
      if (E->Name == Name)
        Found = E;
  return Found;
}

/// Checks the actual arguments \p Actual (names of arg variables of \p A)
/// against the formal arguments \p Formal.
llvm::Error checkActuals(const Operand &Actual,
                         const std::vector<Variable> &Formal, const ArgBlock &A,
                         const char *Which) {
  if (Actual.Names.size() != Formal.size())
    return error(Actual.Loc, llvm::Twine("invalid number of ") + Which +
                                 " arguments: the callee takes " +
                                 llvm::Twine(Formal.size()));
  for (size_t I = 0; I < Formal.size(); ++I) {
    const Variable *V = nullptr;
    for (const Stmt &St : A.Body)
      if (const auto *Var = std::get_if<Variable>(&St.V))
        if (Var->Name == Actual.Names[I])
          V = Var;
    if (!V)
      continue; // an undefined name is reported when symbols are bound
    const Variable &F = Formal[I];
    if (V->Type != F.Type || V->IsArray != F.IsArray)
      return error(Actual.NameLocs[I],
                   llvm::Twine("argument ") + Actual.Names[I] + " (" +
                       tn(V->Type) + (V->IsArray ? "[]" : "") +
                       ") does not match the formal argument (" + tn(F.Type) +
                       (F.IsArray ? "[]" : "") + ")");
    if (V->IsArray && !F.IsFlexArray && V->Dim != F.Dim)
      return error(Actual.NameLocs[I],
                   llvm::Twine("argument ") + Actual.Names[I] +
                       " must be an array of the formal argument's size " +
                       llvm::Twine(F.Dim));
  }
  return llvm::Error::success();
}

} // namespace

namespace {

/// One past the highest register number of each kind in \p Stmts.
void registerHighWater(const std::vector<Stmt> &Stmts, uint32_t (&Max)[4]) {
  auto Note = [&](const Operand &O) {
    if ((O.K == Operand::Kind::Register ||
         (O.K == Operand::Kind::Address && O.HasReg)) &&
        O.RegKind < 4)
      Max[O.RegKind] = std::max<uint32_t>(Max[O.RegKind], O.RegNum + 1u);
  };
  for (const Stmt &St : Stmts) {
    if (const auto *I = std::get_if<Instruction>(&St.V)) {
      for (const Operand &O : I->Operands) {
        Note(O);
        for (const Operand &E : O.Elements)
          Note(E);
      }
    } else if (const auto *A = std::get_if<ArgBlock>(&St.V)) {
      registerHighWater(A->Body, Max);
    }
  }
}

} // namespace

llvm::Error checkRegisterLimits(const Executable &E) {
  uint32_t Max[4] = {0, 0, 0, 0};
  registerHighWater(E.Body, Max);
  const char *What =
      E.Kind == BRIG_KIND_DIRECTIVE_KERNEL ? "kernel" : "function";
  if (Max[BRIG_REGISTER_KIND_CONTROL] > 128)
    return error(E.Loc, llvm::Twine(What) + " " + E.Name + " uses " +
                            llvm::Twine(Max[BRIG_REGISTER_KIND_CONTROL]) +
                            " c registers (at most 128)");
  uint64_t Slots = uint64_t(Max[BRIG_REGISTER_KIND_SINGLE]) +
                   2 * uint64_t(Max[BRIG_REGISTER_KIND_DOUBLE]) +
                   4 * uint64_t(Max[BRIG_REGISTER_KIND_QUAD]);
  if (Slots > 2048)
    return error(E.Loc, llvm::Twine(What) + " " + E.Name + " uses " +
                            llvm::Twine(Slots) +
                            " register slots ($s + 2 $d + 4 $q, at most 2048)");
  return llvm::Error::success();
}

llvm::Error checkArgBlock(const ArgBlock &A, const std::vector<Stmt> &Module,
                          const Executable *Enclosing) {
  return checkArgBlock(A, [&](const std::string &Name) {
    return Enclosing && Enclosing->Name == Name ? Enclosing
                                                : findExecutable(Module, Name);
  });
}

llvm::Error checkArgBlock(const ArgBlock &A, CalleeLookup FindCallee) {
  const Instruction *Call = nullptr;
  unsigned Calls = 0;
  for (const Stmt &St : A.Body)
    if (const auto *I = std::get_if<Instruction>(&St.V))
      if (I->Opcode == BRIG_OPCODE_CALL || I->Opcode == BRIG_OPCODE_SCALL ||
          I->Opcode == BRIG_OPCODE_ICALL) {
        Call = I;
        ++Calls;
      }
  // PRM 10.2: an arg block holds exactly one call.
  if (Calls != 1)
    return error(A.EndLoc, "an arg block must contain exactly one call");
  if (Call->Operands.size() < 3)
    return llvm::Error::success();
  const Operand &Outs = Call->Operands[0], &Target = Call->Operands[1],
                &Ins = Call->Operands[2];
  // Every arg variable of the block is passed to the call.
  for (const Stmt &St : A.Body) {
    const auto *V = std::get_if<Variable>(&St.V);
    if (!V || V->Segment != BRIG_SEGMENT_ARG)
      continue;
    bool Used = false;
    for (const Operand *L : {&Outs, &Ins})
      for (const std::string &N : L->Names)
        Used |= N == V->Name;
    if (!Used)
      return error(A.EndLoc, llvm::Twine("the arg block defines ") + V->Name +
                                 ", which its call does not pass");
  }
  // The callees: the function of call, each function of an scall table, the
  // signature of icall.
  std::vector<const Executable *> Callees;
  auto Add = [&](const std::string &Name) {
    if (const Executable *E = FindCallee(Name))
      Callees.push_back(E);
  };
  if (Call->Opcode == BRIG_OPCODE_CALL && Target.K == Operand::Kind::CodeRef)
    Add(Target.Name);
  if (Call->Operands.size() > 3) {
    const Operand &Extra = Call->Operands[3];
    if (Extra.K == Operand::Kind::SignatureRef)
      Add(Extra.Name);
    else if (Extra.K == Operand::Kind::FunctionList)
      for (const std::string &N : Extra.Names)
        Add(N);
  }
  for (const Executable *E : Callees) {
    if (E->Kind == BRIG_KIND_DIRECTIVE_KERNEL)
      continue; // reported when symbols are bound
    if (llvm::Error Err = checkActuals(Outs, E->OutArgs, A, "output"))
      return Err;
    if (llvm::Error Err = checkActuals(Ins, E->InArgs, A, "input"))
      return Err;
  }
  return llvm::Error::success();
}

llvm::Error checkModuleLinkageDefinitions(const std::vector<Stmt> &Stmts) {
  // Every declaration and definition of a name agrees with each earlier one
  // (agreement is not transitive: an array without a size agrees with any).
  // Indexed by name, so that large modules stay linear.
  std::unordered_map<std::string_view, std::vector<const Variable *>> Vars;
  std::unordered_map<std::string_view, std::vector<const Executable *>> Execs;
  for (const Stmt &St : Stmts) {
    if (const auto *V = std::get_if<Variable>(&St.V)) {
      std::vector<const Variable *> &Earlier = Vars[V->Name];
      for (const Variable *First : Earlier)
        if (!sameVariable(*First, *V))
          return error(V->Loc, llvm::Twine("declarations of ") + V->Name +
                                   " do not agree");
      Earlier.push_back(V);
    } else if (const auto *E = std::get_if<Executable>(&St.V)) {
      std::vector<const Executable *> &Earlier = Execs[E->Name];
      for (const Executable *First : Earlier)
        if (!sameExecutable(*First, *E))
          return error(E->Loc, llvm::Twine("declarations of ") + E->Name +
                                   " do not agree");
      Earlier.push_back(E);
    }
  }

  struct Decl {
    std::string_view Name;
    SourceLoc Loc;
    const char *What;
  };
  std::vector<Decl> Decls;
  std::unordered_set<std::string_view> Defs;
  auto Note = [&](const std::string &Name, bool IsDecl,
                  std::optional<uint8_t> Linkage, SourceLoc L,
                  const char *What) {
    if (!IsDecl)
      Defs.insert(Name);
    else if (!Linkage || *Linkage == BRIG_LINKAGE_MODULE)
      Decls.push_back({Name, L, What});
  };
  for (const Stmt &St : Stmts) {
    if (const auto *V = std::get_if<Variable>(&St.V))
      Note(V->Name, V->IsDecl, V->Linkage, V->Loc, "variable");
    else if (const auto *F = std::get_if<Fbarrier>(&St.V))
      Note(F->Name, F->IsDecl, F->Linkage, F->Loc, "fbarrier");
    else if (const auto *E = std::get_if<Executable>(&St.V))
      if (E->Kind != BRIG_KIND_DIRECTIVE_SIGNATURE)
        Note(E->Name, E->IsDecl, E->Linkage, E->Loc,
             E->Kind == BRIG_KIND_DIRECTIVE_KERNEL ? "kernel" : "function");
  }
  for (const Decl &D : Decls)
    if (!Defs.count(D.Name))
      return error(D.Loc, llvm::Twine(D.What) + " " + D.Name +
                              " is declared with module linkage but never "
                              "defined");
  return llvm::Error::success();
}

unsigned addressBits(unsigned Segment, unsigned Model) {
  switch (Segment) {
  case BRIG_SEGMENT_FLAT:
  case BRIG_SEGMENT_GLOBAL:
  case BRIG_SEGMENT_READONLY:
  case BRIG_SEGMENT_KERNARG:
    return Model == BRIG_MACHINE_LARGE ? 64 : 32;
  default: // group, private, spill, arg
    return 32;
  }
}

unsigned operandType(const OpcodeInfo &Info, const Instruction &I, unsigned Idx,
                     const ModuleTraits &M) {
  if (Idx >= Info.Types.size())
    return BRIG_TYPE_NONE;
  switch (Info.Types[Idx]) {
  case OpType::None:
    return BRIG_TYPE_NONE;
  case OpType::T:
    return I.Type;
  case OpType::ST:
    return I.SourceType;
  case OpType::U32:
    return BRIG_TYPE_U32;
  case OpType::U64:
    return BRIG_TYPE_U64;
  case OpType::B1:
    return BRIG_TYPE_B1;
  case OpType::B32:
    return BRIG_TYPE_B32;
  case OpType::CmovCond:
    return isBitType(I.Type) ? unsigned(BRIG_TYPE_B1)
                             : packedToUnsigned(I.Type);
  case OpType::Addr:
    return addressBits(I.Segment, M.Model) == 64 ? BRIG_TYPE_U64
                                                 : BRIG_TYPE_U32;
  case OpType::Sig:
    return I.SignalType;
  case OpType::ImgT:
    return I.ImageType;
  case OpType::Samp:
    return BRIG_TYPE_SAMP;
  case OpType::Coord:
    return I.CoordType;
  case OpType::WaitTimeout:
    return I.AtomicOp >= BRIG_ATOMIC_WAITTIMEOUT_EQ ? unsigned(BRIG_TYPE_U64)
                                                    : unsigned(I.Type);
  }
  return BRIG_TYPE_NONE;
}

llvm::Error checkInstruction(const OpcodeInfo &Info, const Instruction &I,
                             const ModuleTraits &M) {
  if (llvm::Error E = checkTypes(Info, I, M))
    return E;
  return checkOperands(Info, I, M);
}

} // namespace openhsa::brig::assembler
