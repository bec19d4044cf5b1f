//===- brig/BrigNames.cpp - HSAIL spellings of BRIG values ----------------===//
//
// Part of openhsa.
//
//===----------------------------------------------------------------------===//

#include "brig/BrigNames.h"

#include <iterator>

namespace openhsa::brig {

namespace {
template <size_t N>
const char *lookup(const char *const (&Table)[N], unsigned V) {
  return V < N ? Table[V] : nullptr;
}
} // namespace

const char *opcodeName(unsigned Opcode) {
  static const char *const Names[] = {"nop",
                                      "abs",
                                      "add",
                                      "borrow",
                                      "carry",
                                      "ceil",
                                      "copysign",
                                      "div",
                                      "floor",
                                      "fma",
                                      "fract",
                                      "mad",
                                      "max",
                                      "min",
                                      "mul",
                                      "mulhi",
                                      "neg",
                                      "rem",
                                      "rint",
                                      "sqrt",
                                      "sub",
                                      "trunc",
                                      "mad24",
                                      "mad24hi",
                                      "mul24",
                                      "mul24hi",
                                      "shl",
                                      "shr",
                                      "and",
                                      "not",
                                      "or",
                                      "popcount",
                                      "xor",
                                      "bitextract",
                                      "bitinsert",
                                      "bitmask",
                                      "bitrev",
                                      "bitselect",
                                      "firstbit",
                                      "lastbit",
                                      "combine",
                                      "expand",
                                      "lda",
                                      "mov",
                                      "shuffle",
                                      "unpackhi",
                                      "unpacklo",
                                      "pack",
                                      "unpack",
                                      "cmov",
                                      "class",
                                      "ncos",
                                      "nexp2",
                                      "nfma",
                                      "nlog2",
                                      "nrcp",
                                      "nrsqrt",
                                      "nsin",
                                      "nsqrt",
                                      "bitalign",
                                      "bytealign",
                                      "packcvt",
                                      "unpackcvt",
                                      "lerp",
                                      "sad",
                                      "sadhi",
                                      "segmentp",
                                      "ftos",
                                      "stof",
                                      "cmp",
                                      "cvt",
                                      "ld",
                                      "st",
                                      "atomic",
                                      "atomicnoret",
                                      "signal",
                                      "signalnoret",
                                      "memfence",
                                      "rdimage",
                                      "ldimage",
                                      "stimage",
                                      "imagefence",
                                      "queryimage",
                                      "querysampler",
                                      "cbr",
                                      "br",
                                      "sbr",
                                      "barrier",
                                      "wavebarrier",
                                      "arrivefbar",
                                      "initfbar",
                                      "joinfbar",
                                      "leavefbar",
                                      "releasefbar",
                                      "waitfbar",
                                      "ldf",
                                      "activelanecount",
                                      "activelaneid",
                                      "activelanemask",
                                      "activelanepermute",
                                      "call",
                                      "scall",
                                      "icall",
                                      "ret",
                                      "alloca",
                                      "currentworkgroupsize",
                                      "currentworkitemflatid",
                                      "dim",
                                      "gridgroups",
                                      "gridsize",
                                      "packetcompletionsig",
                                      "packetid",
                                      "workgroupid",
                                      "workgroupsize",
                                      "workitemabsid",
                                      "workitemflatabsid",
                                      "workitemflatid",
                                      "workitemid",
                                      "cleardetectexcept",
                                      "getdetectexcept",
                                      "setdetectexcept",
                                      "addqueuewriteindex",
                                      "casqueuewriteindex",
                                      "ldqueuereadindex",
                                      "ldqueuewriteindex",
                                      "stqueuereadindex",
                                      "stqueuewriteindex",
                                      "clock",
                                      "cuid",
                                      "debugtrap",
                                      "groupbaseptr",
                                      "kernargbaseptr",
                                      "laneid",
                                      "maxcuid",
                                      "maxwaveid",
                                      "nullptr",
                                      "waveid"};
  static_assert(std::size(Names) == BRIG_OPCODE_STANDARD_END);
  return lookup(Names, Opcode);
}

const char *typeName(unsigned Type) {
  static const char *const Base[] = {
      "",    "u8",   "u16",  "u32",   "u64",   "s8",    "s16",   "s32",
      "s64", "f16",  "f32",  "f64",   "b1",    "b8",    "b16",   "b32",
      "b64", "b128", "samp", "roimg", "woimg", "rwimg", "sig32", "sig64"};
  if (brigTypeIsArray(Type))
    return nullptr; // Arrays are spelled by their users ("u32[]").
  unsigned B = brigTypeBase(Type);
  switch (brigTypePack(Type)) {
  case BRIG_TYPE_PACK_NONE:
    return Type < std::size(Base) ? Base[Type] : nullptr;
  case BRIG_TYPE_PACK_32: {
    static const char *const P[] = {nullptr, "u8x4", "u16x2", nullptr,
                                    nullptr, "s8x4", "s16x2", nullptr,
                                    nullptr, "f16x2"};
    return lookup(P, B);
  }
  case BRIG_TYPE_PACK_64: {
    static const char *const P[] = {nullptr, "u8x8",  "u16x4", "u32x2",
                                    nullptr, "s8x8",  "s16x4", "s32x2",
                                    nullptr, "f16x4", "f32x2"};
    return lookup(P, B);
  }
  default: {
    static const char *const P[] = {nullptr, "u8x16", "u16x8", "u32x4",
                                    "u64x2", "s8x16", "s16x8", "s32x4",
                                    "s64x2", "f16x8", "f32x4", "f64x2"};
    return lookup(P, B);
  }
  }
}

const char *kindName(unsigned Kind) {
  static const char *const Dir[] = {"BRIG_KIND_DIRECTIVE_ARG_BLOCK_END",
                                    "BRIG_KIND_DIRECTIVE_ARG_BLOCK_START",
                                    "BRIG_KIND_DIRECTIVE_COMMENT",
                                    "BRIG_KIND_DIRECTIVE_CONTROL",
                                    "BRIG_KIND_DIRECTIVE_EXTENSION",
                                    "BRIG_KIND_DIRECTIVE_FBARRIER",
                                    "BRIG_KIND_DIRECTIVE_FUNCTION",
                                    "BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION",
                                    "BRIG_KIND_DIRECTIVE_KERNEL",
                                    "BRIG_KIND_DIRECTIVE_LABEL",
                                    "BRIG_KIND_DIRECTIVE_LOC",
                                    "BRIG_KIND_DIRECTIVE_MODULE",
                                    "BRIG_KIND_DIRECTIVE_PRAGMA",
                                    "BRIG_KIND_DIRECTIVE_SIGNATURE",
                                    "BRIG_KIND_DIRECTIVE_VARIABLE"};
  static const char *const Inst[] = {
      "BRIG_KIND_INST_ADDR",          "BRIG_KIND_INST_ATOMIC",
      "BRIG_KIND_INST_BASIC",         "BRIG_KIND_INST_BR",
      "BRIG_KIND_INST_CMP",           "BRIG_KIND_INST_CVT",
      "BRIG_KIND_INST_IMAGE",         "BRIG_KIND_INST_LANE",
      "BRIG_KIND_INST_MEM",           "BRIG_KIND_INST_MEM_FENCE",
      "BRIG_KIND_INST_MOD",           "BRIG_KIND_INST_QUERY_IMAGE",
      "BRIG_KIND_INST_QUERY_SAMPLER", "BRIG_KIND_INST_QUEUE",
      "BRIG_KIND_INST_SEG",           "BRIG_KIND_INST_SEG_CVT",
      "BRIG_KIND_INST_SIGNAL",        "BRIG_KIND_INST_SOURCE_TYPE"};
  static const char *const Opnd[] = {"BRIG_KIND_OPERAND_ADDRESS",
                                     "BRIG_KIND_OPERAND_ALIGN",
                                     "BRIG_KIND_OPERAND_CODE_LIST",
                                     "BRIG_KIND_OPERAND_CODE_REF",
                                     "BRIG_KIND_OPERAND_CONSTANT_BYTES",
                                     "BRIG_KIND_OPERAND_RESERVED",
                                     "BRIG_KIND_OPERAND_CONSTANT_IMAGE",
                                     "BRIG_KIND_OPERAND_CONSTANT_OPERAND_LIST",
                                     "BRIG_KIND_OPERAND_CONSTANT_SAMPLER",
                                     "BRIG_KIND_OPERAND_OPERAND_LIST",
                                     "BRIG_KIND_OPERAND_REGISTER",
                                     "BRIG_KIND_OPERAND_STRING",
                                     "BRIG_KIND_OPERAND_WAVESIZE"};
  if (Kind == BRIG_KIND_NONE)
    return "BRIG_KIND_NONE";
  if (brigKindIsDirective(Kind))
    return Dir[Kind - BRIG_KIND_DIRECTIVE_BEGIN];
  if (brigKindIsInst(Kind))
    return Inst[Kind - BRIG_KIND_INST_BEGIN];
  if (brigKindIsOperand(Kind))
    return Opnd[Kind - BRIG_KIND_OPERAND_BEGIN];
  return nullptr;
}

const char *segmentName(unsigned Segment) {
  static const char *const Names[] = {"",         "",        "global",
                                      "readonly", "kernarg", "group",
                                      "private",  "spill",   "arg"};
  return lookup(Names, Segment);
}

const char *packName(unsigned Pack) {
  static const char *const Names[] = {
      "",       "pp",     "ps",     "sp",     "ss",    "s",    "p",
      "pp_sat", "ps_sat", "sp_sat", "ss_sat", "s_sat", "p_sat"};
  return lookup(Names, Pack);
}

const char *compareName(unsigned Compare) {
  static const char *const Names[] = {
      "eq",   "ne",   "lt",   "le",   "gt",   "ge",   "equ",
      "neu",  "ltu",  "leu",  "gtu",  "geu",  "num",  "nan",
      "seq",  "sne",  "slt",  "sle",  "sgt",  "sge",  "sgeu",
      "sequ", "sneu", "sltu", "sleu", "snum", "snan", "sgtu"};
  return lookup(Names, Compare);
}

const char *roundName(unsigned Round) {
  static const char *const Names[] = {
      "",          "",          "near",    "zero",       "up",
      "down",      "neari",     "zeroi",   "upi",        "downi",
      "neari_sat", "zeroi_sat", "upi_sat", "downi_sat",  "sneari",
      "szeroi",    "supi",      "sdowni",  "sneari_sat", "szeroi_sat",
      "supi_sat",  "sdowni_sat"};
  return lookup(Names, Round);
}

const char *atomicOpName(unsigned Op) {
  static const char *const Names[] = {"add",
                                      "and",
                                      "cas",
                                      "exch",
                                      "ld",
                                      "max",
                                      "min",
                                      "or",
                                      "st",
                                      "sub",
                                      "wrapdec",
                                      "wrapinc",
                                      "xor",
                                      "wait_eq",
                                      "wait_ne",
                                      "wait_lt",
                                      "wait_gte",
                                      "waittimeout_eq",
                                      "waittimeout_ne",
                                      "waittimeout_lt",
                                      "waittimeout_gte"};
  return lookup(Names, Op);
}

const char *memoryOrderName(unsigned Order) {
  static const char *const Names[] = {"", "rlx", "scacq", "screl", "scar"};
  return lookup(Names, Order);
}

const char *memoryScopeName(unsigned Scope) {
  static const char *const Names[] = {"",   "wi",    "wave",
                                      "wg", "agent", "system"};
  return lookup(Names, Scope);
}

const char *geometryName(unsigned Geometry) {
  static const char *const Names[] = {"1d",  "2d",  "3d",      "1da",
                                      "2da", "1db", "2ddepth", "2dadepth"};
  return lookup(Names, Geometry);
}

const char *imageQueryName(unsigned Query) {
  static const char *const Names[] = {"width", "height",       "depth",
                                      "array", "channelorder", "channeltype"};
  return lookup(Names, Query);
}

const char *samplerQueryName(unsigned Query) {
  static const char *const Names[] = {"addressing", "coord", "filter"};
  return lookup(Names, Query);
}

const char *widthName(unsigned Width) {
  static const char *const Names[] = {"",
                                      "width(1)",
                                      "width(2)",
                                      "width(4)",
                                      "width(8)",
                                      "width(16)",
                                      "width(32)",
                                      "width(64)",
                                      "width(128)",
                                      "width(256)",
                                      "width(512)",
                                      "width(1024)",
                                      "width(2048)",
                                      "width(4096)",
                                      "width(8192)",
                                      "width(16384)",
                                      "width(32768)",
                                      "width(65536)",
                                      "width(131072)",
                                      "width(262144)",
                                      "width(524288)",
                                      "width(1048576)",
                                      "width(2097152)",
                                      "width(4194304)",
                                      "width(8388608)",
                                      "width(16777216)",
                                      "width(33554432)",
                                      "width(67108864)",
                                      "width(134217728)",
                                      "width(268435456)",
                                      "width(536870912)",
                                      "width(1073741824)",
                                      "width(2147483648)",
                                      "width(WAVESIZE)",
                                      "width(all)"};
  return lookup(Names, Width);
}

const char *alignValueName(unsigned Align) {
  static const char *const Names[] = {"",   "1",  "2",  "4",   "8",
                                      "16", "32", "64", "128", "256"};
  return lookup(Names, Align);
}

const char *controlName(unsigned Control) {
  static const char *const Names[] = {nullptr,
                                      "enablebreakexceptions",
                                      "enabledetectexceptions",
                                      "maxdynamicgroupsize",
                                      "maxflatgridsize",
                                      "maxflatworkgroupsize",
                                      "requireddim",
                                      "requiredgridsize",
                                      "requiredworkgroupsize",
                                      "requirenopartialworkgroups"};
  return lookup(Names, Control);
}

const char *channelOrderName(unsigned Order) {
  static const char *const Names[] = {
      "a",     "r",         "rx",        "rg",    "rgx",
      "ra",    "rgb",       "rgbx",      "rgba",  "bgra",
      "argb",  "abgr",      "srgb",      "srgbx", "srgba",
      "sbgra", "intensity", "luminance", "depth", "depth_stencil"};
  return lookup(Names, Order);
}

const char *channelTypeName(unsigned Type) {
  static const char *const Names[] = {"snorm_int8",      "snorm_int16",
                                      "unorm_int8",      "unorm_int16",
                                      "unorm_int24",     "unorm_short_555",
                                      "unorm_short_565", "unorm_int_101010",
                                      "signed_int8",     "signed_int16",
                                      "signed_int32",    "unsigned_int8",
                                      "unsigned_int16",  "unsigned_int32",
                                      "half_float",      "float"};
  return lookup(Names, Type);
}

const char *samplerCoordName(unsigned Coord) {
  static const char *const Names[] = {"unnormalized", "normalized"};
  return lookup(Names, Coord);
}

const char *samplerFilterName(unsigned Filter) {
  static const char *const Names[] = {"nearest", "linear"};
  return lookup(Names, Filter);
}

const char *samplerAddressingName(unsigned Addressing) {
  static const char *const Names[] = {"undefined", "clamp_to_edge",
                                      "clamp_to_border", "repeat",
                                      "mirrored_repeat"};
  return lookup(Names, Addressing);
}

const char *registerPrefix(unsigned RegKind) {
  static const char *const Names[] = {"$c", "$s", "$d", "$q"};
  return lookup(Names, RegKind);
}

unsigned typeBits(unsigned Type) {
  if (brigTypeIsArray(Type))
    return 0;
  switch (brigTypePack(Type)) {
  case BRIG_TYPE_PACK_32:
    return typeName(Type) ? 32 : 0;
  case BRIG_TYPE_PACK_64:
    return typeName(Type) ? 64 : 0;
  case BRIG_TYPE_PACK_128:
    return typeName(Type) ? 128 : 0;
  default:
    break;
  }
  switch (Type) {
  case BRIG_TYPE_B1:
    return 1;
  case BRIG_TYPE_U8:
  case BRIG_TYPE_S8:
  case BRIG_TYPE_B8:
    return 8;
  case BRIG_TYPE_U16:
  case BRIG_TYPE_S16:
  case BRIG_TYPE_F16:
  case BRIG_TYPE_B16:
    return 16;
  case BRIG_TYPE_U32:
  case BRIG_TYPE_S32:
  case BRIG_TYPE_F32:
  case BRIG_TYPE_B32:
    return 32;
  case BRIG_TYPE_U64:
  case BRIG_TYPE_S64:
  case BRIG_TYPE_F64:
  case BRIG_TYPE_B64:
  case BRIG_TYPE_SAMP:
  case BRIG_TYPE_ROIMG:
  case BRIG_TYPE_WOIMG:
  case BRIG_TYPE_RWIMG:
  case BRIG_TYPE_SIG32: // Signal handles are 64-bit in both machine models.
  case BRIG_TYPE_SIG64:
    return 64;
  case BRIG_TYPE_B128:
    return 128;
  default:
    return 0;
  }
}

unsigned naturalAlignment(unsigned Type) {
  unsigned Bits = typeBits(Type);
  unsigned Bytes = Bits <= 8 ? 1 : Bits / 8;
  unsigned A = 1;
  while ((1u << (A - 1)) < Bytes)
    ++A;
  return A;
}

bool isSignedIntType(unsigned T) {
  return T >= BRIG_TYPE_S8 && T <= BRIG_TYPE_S64;
}
bool isUnsignedIntType(unsigned T) {
  return T >= BRIG_TYPE_U8 && T <= BRIG_TYPE_U64;
}
bool isFloatType(unsigned T) {
  return T >= BRIG_TYPE_F16 && T <= BRIG_TYPE_F64;
}
bool isBitType(unsigned T) { return T >= BRIG_TYPE_B1 && T <= BRIG_TYPE_B128; }
bool isImageType(unsigned T) {
  return T >= BRIG_TYPE_ROIMG && T <= BRIG_TYPE_RWIMG;
}

} // namespace openhsa::brig
