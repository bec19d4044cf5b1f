//===- brig/BrigFormat.h - BRIG binary format definitions -------*- C++ -*-===//
//
// Part of openhsa. The enumerations and structures of the BRIG binary format
// as defined by the HSA Programmer's Reference Manual 1.0.2, chapter 18.
// Values and layouts are fixed by the specification and pinned by the
// static_asserts at the end of this header.
//
// Names follow the specification (BRIG_KIND_*, BrigInstBase, ...) so that text
// in the manual maps one-to-one onto code. All structures are plain
// trivially-copyable aggregates describing little-endian bytes in memory;
// entries in the standard sections are only 4-byte aligned.
//
//===----------------------------------------------------------------------===//

#ifndef OPENHSA_BRIG_BRIGFORMAT_H
#define OPENHSA_BRIG_BRIGFORMAT_H

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace openhsa::brig {

//===----------------------------------------------------------------------===//
// 18.3.1 Section offsets and scalar typedefs
//===----------------------------------------------------------------------===//

using BrigDataOffset32_t = uint32_t;
using BrigCodeOffset32_t = uint32_t;
using BrigOperandOffset32_t = uint32_t;
using BrigDataOffsetString32_t = BrigDataOffset32_t;
using BrigDataOffsetCodeList32_t = BrigDataOffset32_t;
using BrigDataOffsetOperandList32_t = BrigDataOffset32_t;

using BrigAlignment8_t = uint8_t;
using BrigAllocation8_t = uint8_t;
using BrigAluModifier8_t = uint8_t;
using BrigAtomicOperation8_t = uint8_t;
using BrigCompareOperation8_t = uint8_t;
using BrigControlDirective16_t = uint16_t;
using BrigExceptions32_t = uint32_t;
using BrigExecutableModifier8_t = uint8_t;
using BrigImageChannelOrder8_t = uint8_t;
using BrigImageChannelType8_t = uint8_t;
using BrigImageGeometry8_t = uint8_t;
using BrigImageQuery8_t = uint8_t;
using BrigKind16_t = uint16_t;
using BrigLinkage8_t = uint8_t;
using BrigMachineModel8_t = uint8_t;
using BrigMemoryModifier8_t = uint8_t;
using BrigMemoryOrder8_t = uint8_t;
using BrigMemoryScope8_t = uint8_t;
using BrigOpcode16_t = uint16_t;
using BrigPack8_t = uint8_t;
using BrigProfile8_t = uint8_t;
using BrigRegisterKind16_t = uint16_t;
using BrigRound8_t = uint8_t;
using BrigSamplerAddressing8_t = uint8_t;
using BrigSamplerCoordNormalization8_t = uint8_t;
using BrigSamplerFilter8_t = uint8_t;
using BrigSamplerQuery8_t = uint8_t;
using BrigSectionIndex32_t = uint32_t;
using BrigSegCvtModifier8_t = uint8_t;
using BrigSegment8_t = uint8_t;
using BrigType16_t = uint16_t;
using BrigVariableModifier8_t = uint8_t;
using BrigVersion32_t = uint32_t;
using BrigWidth8_t = uint8_t;

//===----------------------------------------------------------------------===//
// Enumerations (18.3.2 - 18.3.39)
//===----------------------------------------------------------------------===//

enum BrigAlignment : uint8_t {
  BRIG_ALIGNMENT_NONE = 0,
  BRIG_ALIGNMENT_1 = 1,
  BRIG_ALIGNMENT_2 = 2,
  BRIG_ALIGNMENT_4 = 3,
  BRIG_ALIGNMENT_8 = 4,
  BRIG_ALIGNMENT_16 = 5,
  BRIG_ALIGNMENT_32 = 6,
  BRIG_ALIGNMENT_64 = 7,
  BRIG_ALIGNMENT_128 = 8,
  BRIG_ALIGNMENT_256 = 9,
  BRIG_ALIGNMENT_LAST = BRIG_ALIGNMENT_256,
  BRIG_ALIGNMENT_MAX = BRIG_ALIGNMENT_256
};

enum BrigAllocation : uint8_t {
  BRIG_ALLOCATION_NONE = 0,
  BRIG_ALLOCATION_PROGRAM = 1,
  BRIG_ALLOCATION_AGENT = 2,
  BRIG_ALLOCATION_AUTOMATIC = 3
};

enum BrigAluModifierMask : uint8_t { BRIG_ALU_FTZ = 1 };

enum BrigAtomicOperation : uint8_t {
  BRIG_ATOMIC_ADD = 0,
  BRIG_ATOMIC_AND = 1,
  BRIG_ATOMIC_CAS = 2,
  BRIG_ATOMIC_EXCH = 3,
  BRIG_ATOMIC_LD = 4,
  BRIG_ATOMIC_MAX = 5,
  BRIG_ATOMIC_MIN = 6,
  BRIG_ATOMIC_OR = 7,
  BRIG_ATOMIC_ST = 8,
  BRIG_ATOMIC_SUB = 9,
  BRIG_ATOMIC_WRAPDEC = 10,
  BRIG_ATOMIC_WRAPINC = 11,
  BRIG_ATOMIC_XOR = 12,
  BRIG_ATOMIC_WAIT_EQ = 13,
  BRIG_ATOMIC_WAIT_NE = 14,
  BRIG_ATOMIC_WAIT_LT = 15,
  BRIG_ATOMIC_WAIT_GTE = 16,
  BRIG_ATOMIC_WAITTIMEOUT_EQ = 17,
  BRIG_ATOMIC_WAITTIMEOUT_NE = 18,
  BRIG_ATOMIC_WAITTIMEOUT_LT = 19,
  BRIG_ATOMIC_WAITTIMEOUT_GTE = 20
};

enum BrigCompareOperation : uint8_t {
  BRIG_COMPARE_EQ = 0,
  BRIG_COMPARE_NE = 1,
  BRIG_COMPARE_LT = 2,
  BRIG_COMPARE_LE = 3,
  BRIG_COMPARE_GT = 4,
  BRIG_COMPARE_GE = 5,
  BRIG_COMPARE_EQU = 6,
  BRIG_COMPARE_NEU = 7,
  BRIG_COMPARE_LTU = 8,
  BRIG_COMPARE_LEU = 9,
  BRIG_COMPARE_GTU = 10,
  BRIG_COMPARE_GEU = 11,
  BRIG_COMPARE_NUM = 12,
  BRIG_COMPARE_NAN = 13,
  BRIG_COMPARE_SEQ = 14,
  BRIG_COMPARE_SNE = 15,
  BRIG_COMPARE_SLT = 16,
  BRIG_COMPARE_SLE = 17,
  BRIG_COMPARE_SGT = 18,
  BRIG_COMPARE_SGE = 19,
  BRIG_COMPARE_SGEU = 20,
  BRIG_COMPARE_SEQU = 21,
  BRIG_COMPARE_SNEU = 22,
  BRIG_COMPARE_SLTU = 23,
  BRIG_COMPARE_SLEU = 24,
  BRIG_COMPARE_SNUM = 25,
  BRIG_COMPARE_SNAN = 26,
  BRIG_COMPARE_SGTU = 27
};

enum BrigControlDirective : uint16_t {
  BRIG_CONTROL_NONE = 0,
  BRIG_CONTROL_ENABLEBREAKEXCEPTIONS = 1,
  BRIG_CONTROL_ENABLEDETECTEXCEPTIONS = 2,
  BRIG_CONTROL_MAXDYNAMICGROUPSIZE = 3,
  BRIG_CONTROL_MAXFLATGRIDSIZE = 4,
  BRIG_CONTROL_MAXFLATWORKGROUPSIZE = 5,
  BRIG_CONTROL_REQUIREDDIM = 6,
  BRIG_CONTROL_REQUIREDGRIDSIZE = 7,
  BRIG_CONTROL_REQUIREDWORKGROUPSIZE = 8,
  BRIG_CONTROL_REQUIRENOPARTIALWORKGROUPS = 9
};

enum BrigExceptionsMask : uint32_t {
  BRIG_EXCEPTIONS_INVALID_OPERATION = 1u << 0,
  BRIG_EXCEPTIONS_DIVIDE_BY_ZERO = 1u << 1,
  BRIG_EXCEPTIONS_OVERFLOW = 1u << 2,
  BRIG_EXCEPTIONS_UNDERFLOW = 1u << 3,
  BRIG_EXCEPTIONS_INEXACT = 1u << 4,
  BRIG_EXCEPTIONS_FIRST_USER_DEFINED = 1u << 16
};

enum BrigExecutableModifierMask : uint8_t { BRIG_EXECUTABLE_DEFINITION = 1 };

enum BrigImageChannelOrder : uint8_t {
  BRIG_CHANNEL_ORDER_A = 0,
  BRIG_CHANNEL_ORDER_R = 1,
  BRIG_CHANNEL_ORDER_RX = 2,
  BRIG_CHANNEL_ORDER_RG = 3,
  BRIG_CHANNEL_ORDER_RGX = 4,
  BRIG_CHANNEL_ORDER_RA = 5,
  BRIG_CHANNEL_ORDER_RGB = 6,
  BRIG_CHANNEL_ORDER_RGBX = 7,
  BRIG_CHANNEL_ORDER_RGBA = 8,
  BRIG_CHANNEL_ORDER_BGRA = 9,
  BRIG_CHANNEL_ORDER_ARGB = 10,
  BRIG_CHANNEL_ORDER_ABGR = 11,
  BRIG_CHANNEL_ORDER_SRGB = 12,
  BRIG_CHANNEL_ORDER_SRGBX = 13,
  BRIG_CHANNEL_ORDER_SRGBA = 14,
  BRIG_CHANNEL_ORDER_SBGRA = 15,
  BRIG_CHANNEL_ORDER_INTENSITY = 16,
  BRIG_CHANNEL_ORDER_LUMINANCE = 17,
  BRIG_CHANNEL_ORDER_DEPTH = 18,
  BRIG_CHANNEL_ORDER_DEPTH_STENCIL = 19,
  BRIG_CHANNEL_ORDER_FIRST_USER_DEFINED = 128
};

enum BrigImageChannelType : uint8_t {
  BRIG_CHANNEL_TYPE_SNORM_INT8 = 0,
  BRIG_CHANNEL_TYPE_SNORM_INT16 = 1,
  BRIG_CHANNEL_TYPE_UNORM_INT8 = 2,
  BRIG_CHANNEL_TYPE_UNORM_INT16 = 3,
  BRIG_CHANNEL_TYPE_UNORM_INT24 = 4,
  BRIG_CHANNEL_TYPE_UNORM_SHORT_555 = 5,
  BRIG_CHANNEL_TYPE_UNORM_SHORT_565 = 6,
  BRIG_CHANNEL_TYPE_UNORM_INT_101010 = 7,
  BRIG_CHANNEL_TYPE_SIGNED_INT8 = 8,
  BRIG_CHANNEL_TYPE_SIGNED_INT16 = 9,
  BRIG_CHANNEL_TYPE_SIGNED_INT32 = 10,
  BRIG_CHANNEL_TYPE_UNSIGNED_INT8 = 11,
  BRIG_CHANNEL_TYPE_UNSIGNED_INT16 = 12,
  BRIG_CHANNEL_TYPE_UNSIGNED_INT32 = 13,
  BRIG_CHANNEL_TYPE_HALF_FLOAT = 14,
  BRIG_CHANNEL_TYPE_FLOAT = 15,
  BRIG_CHANNEL_TYPE_FIRST_USER_DEFINED = 128
};

enum BrigImageGeometry : uint8_t {
  BRIG_GEOMETRY_1D = 0,
  BRIG_GEOMETRY_2D = 1,
  BRIG_GEOMETRY_3D = 2,
  BRIG_GEOMETRY_1DA = 3,
  BRIG_GEOMETRY_2DA = 4,
  BRIG_GEOMETRY_1DB = 5,
  BRIG_GEOMETRY_2DDEPTH = 6,
  BRIG_GEOMETRY_2DADEPTH = 7,
  BRIG_GEOMETRY_FIRST_USER_DEFINED = 128
};

enum BrigImageQuery : uint8_t {
  BRIG_IMAGE_QUERY_WIDTH = 0,
  BRIG_IMAGE_QUERY_HEIGHT = 1,
  BRIG_IMAGE_QUERY_DEPTH = 2,
  BRIG_IMAGE_QUERY_ARRAY = 3,
  BRIG_IMAGE_QUERY_CHANNELORDER = 4,
  BRIG_IMAGE_QUERY_CHANNELTYPE = 5
};

// 18.3.15. The manual's PDF prints BRIG_KIND_OPERAND_WAVESIZE as "0x3009c";
// the value is 0x300c (the kinds are consecutive and OPERAND_END is 0x300d).
enum BrigKind : uint16_t {
  BRIG_KIND_NONE = 0x0000,

  BRIG_KIND_DIRECTIVE_BEGIN = 0x1000,
  BRIG_KIND_DIRECTIVE_ARG_BLOCK_END = 0x1000,
  BRIG_KIND_DIRECTIVE_ARG_BLOCK_START = 0x1001,
  BRIG_KIND_DIRECTIVE_COMMENT = 0x1002,
  BRIG_KIND_DIRECTIVE_CONTROL = 0x1003,
  BRIG_KIND_DIRECTIVE_EXTENSION = 0x1004,
  BRIG_KIND_DIRECTIVE_FBARRIER = 0x1005,
  BRIG_KIND_DIRECTIVE_FUNCTION = 0x1006,
  BRIG_KIND_DIRECTIVE_INDIRECT_FUNCTION = 0x1007,
  BRIG_KIND_DIRECTIVE_KERNEL = 0x1008,
  BRIG_KIND_DIRECTIVE_LABEL = 0x1009,
  BRIG_KIND_DIRECTIVE_LOC = 0x100a,
  BRIG_KIND_DIRECTIVE_MODULE = 0x100b,
  BRIG_KIND_DIRECTIVE_PRAGMA = 0x100c,
  BRIG_KIND_DIRECTIVE_SIGNATURE = 0x100d,
  BRIG_KIND_DIRECTIVE_VARIABLE = 0x100e,
  BRIG_KIND_DIRECTIVE_END = 0x100f,

  BRIG_KIND_INST_BEGIN = 0x2000,
  BRIG_KIND_INST_ADDR = 0x2000,
  BRIG_KIND_INST_ATOMIC = 0x2001,
  BRIG_KIND_INST_BASIC = 0x2002,
  BRIG_KIND_INST_BR = 0x2003,
  BRIG_KIND_INST_CMP = 0x2004,
  BRIG_KIND_INST_CVT = 0x2005,
  BRIG_KIND_INST_IMAGE = 0x2006,
  BRIG_KIND_INST_LANE = 0x2007,
  BRIG_KIND_INST_MEM = 0x2008,
  BRIG_KIND_INST_MEM_FENCE = 0x2009,
  BRIG_KIND_INST_MOD = 0x200a,
  BRIG_KIND_INST_QUERY_IMAGE = 0x200b,
  BRIG_KIND_INST_QUERY_SAMPLER = 0x200c,
  BRIG_KIND_INST_QUEUE = 0x200d,
  BRIG_KIND_INST_SEG = 0x200e,
  BRIG_KIND_INST_SEG_CVT = 0x200f,
  BRIG_KIND_INST_SIGNAL = 0x2010,
  BRIG_KIND_INST_SOURCE_TYPE = 0x2011,
  BRIG_KIND_INST_END = 0x2012,

  BRIG_KIND_OPERAND_BEGIN = 0x3000,
  BRIG_KIND_OPERAND_ADDRESS = 0x3000,
  BRIG_KIND_OPERAND_ALIGN = 0x3001,
  BRIG_KIND_OPERAND_CODE_LIST = 0x3002,
  BRIG_KIND_OPERAND_CODE_REF = 0x3003,
  BRIG_KIND_OPERAND_CONSTANT_BYTES = 0x3004,
  BRIG_KIND_OPERAND_RESERVED = 0x3005,
  BRIG_KIND_OPERAND_CONSTANT_IMAGE = 0x3006,
  BRIG_KIND_OPERAND_CONSTANT_OPERAND_LIST = 0x3007,
  BRIG_KIND_OPERAND_CONSTANT_SAMPLER = 0x3008,
  BRIG_KIND_OPERAND_OPERAND_LIST = 0x3009,
  BRIG_KIND_OPERAND_REGISTER = 0x300a,
  BRIG_KIND_OPERAND_STRING = 0x300b,
  BRIG_KIND_OPERAND_WAVESIZE = 0x300c,
  BRIG_KIND_OPERAND_END = 0x300d
};

enum BrigLinkage : uint8_t {
  BRIG_LINKAGE_NONE = 0,
  BRIG_LINKAGE_PROGRAM = 1,
  BRIG_LINKAGE_MODULE = 2,
  BRIG_LINKAGE_FUNCTION = 3,
  BRIG_LINKAGE_ARG = 4
};

enum BrigMachineModel : uint8_t {
  BRIG_MACHINE_SMALL = 0,
  BRIG_MACHINE_LARGE = 1
};

enum BrigMemoryModifierMask : uint8_t { BRIG_MEMORY_CONST = 1 };

enum BrigMemoryOrder : uint8_t {
  BRIG_MEMORY_ORDER_NONE = 0,
  BRIG_MEMORY_ORDER_RELAXED = 1,
  BRIG_MEMORY_ORDER_SC_ACQUIRE = 2,
  BRIG_MEMORY_ORDER_SC_RELEASE = 3,
  BRIG_MEMORY_ORDER_SC_ACQUIRE_RELEASE = 4
};

enum BrigMemoryScope : uint8_t {
  BRIG_MEMORY_SCOPE_NONE = 0,
  BRIG_MEMORY_SCOPE_WORKITEM = 1,
  BRIG_MEMORY_SCOPE_WAVEFRONT = 2,
  BRIG_MEMORY_SCOPE_WORKGROUP = 3,
  BRIG_MEMORY_SCOPE_AGENT = 4,
  BRIG_MEMORY_SCOPE_SYSTEM = 5
};

// 18.3.22. (The PDF prints GROUPBASEPTR as "1230"; the value is 130.)
enum BrigOpcode : uint16_t {
  BRIG_OPCODE_NOP = 0,
  BRIG_OPCODE_ABS = 1,
  BRIG_OPCODE_ADD = 2,
  BRIG_OPCODE_BORROW = 3,
  BRIG_OPCODE_CARRY = 4,
  BRIG_OPCODE_CEIL = 5,
  BRIG_OPCODE_COPYSIGN = 6,
  BRIG_OPCODE_DIV = 7,
  BRIG_OPCODE_FLOOR = 8,
  BRIG_OPCODE_FMA = 9,
  BRIG_OPCODE_FRACT = 10,
  BRIG_OPCODE_MAD = 11,
  BRIG_OPCODE_MAX = 12,
  BRIG_OPCODE_MIN = 13,
  BRIG_OPCODE_MUL = 14,
  BRIG_OPCODE_MULHI = 15,
  BRIG_OPCODE_NEG = 16,
  BRIG_OPCODE_REM = 17,
  BRIG_OPCODE_RINT = 18,
  BRIG_OPCODE_SQRT = 19,
  BRIG_OPCODE_SUB = 20,
  BRIG_OPCODE_TRUNC = 21,
  BRIG_OPCODE_MAD24 = 22,
  BRIG_OPCODE_MAD24HI = 23,
  BRIG_OPCODE_MUL24 = 24,
  BRIG_OPCODE_MUL24HI = 25,
  BRIG_OPCODE_SHL = 26,
  BRIG_OPCODE_SHR = 27,
  BRIG_OPCODE_AND = 28,
  BRIG_OPCODE_NOT = 29,
  BRIG_OPCODE_OR = 30,
  BRIG_OPCODE_POPCOUNT = 31,
  BRIG_OPCODE_XOR = 32,
  BRIG_OPCODE_BITEXTRACT = 33,
  BRIG_OPCODE_BITINSERT = 34,
  BRIG_OPCODE_BITMASK = 35,
  BRIG_OPCODE_BITREV = 36,
  BRIG_OPCODE_BITSELECT = 37,
  BRIG_OPCODE_FIRSTBIT = 38,
  BRIG_OPCODE_LASTBIT = 39,
  BRIG_OPCODE_COMBINE = 40,
  BRIG_OPCODE_EXPAND = 41,
  BRIG_OPCODE_LDA = 42,
  BRIG_OPCODE_MOV = 43,
  BRIG_OPCODE_SHUFFLE = 44,
  BRIG_OPCODE_UNPACKHI = 45,
  BRIG_OPCODE_UNPACKLO = 46,
  BRIG_OPCODE_PACK = 47,
  BRIG_OPCODE_UNPACK = 48,
  BRIG_OPCODE_CMOV = 49,
  BRIG_OPCODE_CLASS = 50,
  BRIG_OPCODE_NCOS = 51,
  BRIG_OPCODE_NEXP2 = 52,
  BRIG_OPCODE_NFMA = 53,
  BRIG_OPCODE_NLOG2 = 54,
  BRIG_OPCODE_NRCP = 55,
  BRIG_OPCODE_NRSQRT = 56,
  BRIG_OPCODE_NSIN = 57,
  BRIG_OPCODE_NSQRT = 58,
  BRIG_OPCODE_BITALIGN = 59,
  BRIG_OPCODE_BYTEALIGN = 60,
  BRIG_OPCODE_PACKCVT = 61,
  BRIG_OPCODE_UNPACKCVT = 62,
  BRIG_OPCODE_LERP = 63,
  BRIG_OPCODE_SAD = 64,
  BRIG_OPCODE_SADHI = 65,
  BRIG_OPCODE_SEGMENTP = 66,
  BRIG_OPCODE_FTOS = 67,
  BRIG_OPCODE_STOF = 68,
  BRIG_OPCODE_CMP = 69,
  BRIG_OPCODE_CVT = 70,
  BRIG_OPCODE_LD = 71,
  BRIG_OPCODE_ST = 72,
  BRIG_OPCODE_ATOMIC = 73,
  BRIG_OPCODE_ATOMICNORET = 74,
  BRIG_OPCODE_SIGNAL = 75,
  BRIG_OPCODE_SIGNALNORET = 76,
  BRIG_OPCODE_MEMFENCE = 77,
  BRIG_OPCODE_RDIMAGE = 78,
  BRIG_OPCODE_LDIMAGE = 79,
  BRIG_OPCODE_STIMAGE = 80,
  BRIG_OPCODE_IMAGEFENCE = 81,
  BRIG_OPCODE_QUERYIMAGE = 82,
  BRIG_OPCODE_QUERYSAMPLER = 83,
  BRIG_OPCODE_CBR = 84,
  BRIG_OPCODE_BR = 85,
  BRIG_OPCODE_SBR = 86,
  BRIG_OPCODE_BARRIER = 87,
  BRIG_OPCODE_WAVEBARRIER = 88,
  BRIG_OPCODE_ARRIVEFBAR = 89,
  BRIG_OPCODE_INITFBAR = 90,
  BRIG_OPCODE_JOINFBAR = 91,
  BRIG_OPCODE_LEAVEFBAR = 92,
  BRIG_OPCODE_RELEASEFBAR = 93,
  BRIG_OPCODE_WAITFBAR = 94,
  BRIG_OPCODE_LDF = 95,
  BRIG_OPCODE_ACTIVELANECOUNT = 96,
  BRIG_OPCODE_ACTIVELANEID = 97,
  BRIG_OPCODE_ACTIVELANEMASK = 98,
  BRIG_OPCODE_ACTIVELANEPERMUTE = 99,
  BRIG_OPCODE_CALL = 100,
  BRIG_OPCODE_SCALL = 101,
  BRIG_OPCODE_ICALL = 102,
  BRIG_OPCODE_RET = 103,
  BRIG_OPCODE_ALLOCA = 104,
  BRIG_OPCODE_CURRENTWORKGROUPSIZE = 105,
  BRIG_OPCODE_CURRENTWORKITEMFLATID = 106,
  BRIG_OPCODE_DIM = 107,
  BRIG_OPCODE_GRIDGROUPS = 108,
  BRIG_OPCODE_GRIDSIZE = 109,
  BRIG_OPCODE_PACKETCOMPLETIONSIG = 110,
  BRIG_OPCODE_PACKETID = 111,
  BRIG_OPCODE_WORKGROUPID = 112,
  BRIG_OPCODE_WORKGROUPSIZE = 113,
  BRIG_OPCODE_WORKITEMABSID = 114,
  BRIG_OPCODE_WORKITEMFLATABSID = 115,
  BRIG_OPCODE_WORKITEMFLATID = 116,
  BRIG_OPCODE_WORKITEMID = 117,
  BRIG_OPCODE_CLEARDETECTEXCEPT = 118,
  BRIG_OPCODE_GETDETECTEXCEPT = 119,
  BRIG_OPCODE_SETDETECTEXCEPT = 120,
  BRIG_OPCODE_ADDQUEUEWRITEINDEX = 121,
  BRIG_OPCODE_CASQUEUEWRITEINDEX = 122,
  BRIG_OPCODE_LDQUEUEREADINDEX = 123,
  BRIG_OPCODE_LDQUEUEWRITEINDEX = 124,
  BRIG_OPCODE_STQUEUEREADINDEX = 125,
  BRIG_OPCODE_STQUEUEWRITEINDEX = 126,
  BRIG_OPCODE_CLOCK = 127,
  BRIG_OPCODE_CUID = 128,
  BRIG_OPCODE_DEBUGTRAP = 129,
  BRIG_OPCODE_GROUPBASEPTR = 130,
  BRIG_OPCODE_KERNARGBASEPTR = 131,
  BRIG_OPCODE_LANEID = 132,
  BRIG_OPCODE_MAXCUID = 133,
  BRIG_OPCODE_MAXWAVEID = 134,
  BRIG_OPCODE_NULLPTR = 135,
  BRIG_OPCODE_WAVEID = 136,
  BRIG_OPCODE_FIRST_USER_DEFINED = 32768,
  /// One past the last standard opcode (not part of the manual's enum).
  BRIG_OPCODE_STANDARD_END = 137
};

enum BrigPack : uint8_t {
  BRIG_PACK_NONE = 0,
  BRIG_PACK_PP = 1,
  BRIG_PACK_PS = 2,
  BRIG_PACK_SP = 3,
  BRIG_PACK_SS = 4,
  BRIG_PACK_S = 5,
  BRIG_PACK_P = 6,
  BRIG_PACK_PPSAT = 7,
  BRIG_PACK_PSSAT = 8,
  BRIG_PACK_SPSAT = 9,
  BRIG_PACK_SSSAT = 10,
  BRIG_PACK_SSAT = 11,
  BRIG_PACK_PSAT = 12
};

enum BrigProfile : uint8_t { BRIG_PROFILE_BASE = 0, BRIG_PROFILE_FULL = 1 };

enum BrigRegisterKind : uint16_t {
  BRIG_REGISTER_KIND_CONTROL = 0,
  BRIG_REGISTER_KIND_SINGLE = 1,
  BRIG_REGISTER_KIND_DOUBLE = 2,
  BRIG_REGISTER_KIND_QUAD = 3
};

enum BrigRound : uint8_t {
  BRIG_ROUND_NONE = 0,
  BRIG_ROUND_FLOAT_DEFAULT = 1,
  BRIG_ROUND_FLOAT_NEAR_EVEN = 2,
  BRIG_ROUND_FLOAT_ZERO = 3,
  BRIG_ROUND_FLOAT_PLUS_INFINITY = 4,
  BRIG_ROUND_FLOAT_MINUS_INFINITY = 5,
  BRIG_ROUND_INTEGER_NEAR_EVEN = 6,
  BRIG_ROUND_INTEGER_ZERO = 7,
  BRIG_ROUND_INTEGER_PLUS_INFINITY = 8,
  BRIG_ROUND_INTEGER_MINUS_INFINITY = 9,
  BRIG_ROUND_INTEGER_NEAR_EVEN_SAT = 10,
  BRIG_ROUND_INTEGER_ZERO_SAT = 11,
  BRIG_ROUND_INTEGER_PLUS_INFINITY_SAT = 12,
  BRIG_ROUND_INTEGER_MINUS_INFINITY_SAT = 13,
  BRIG_ROUND_INTEGER_SIGNALING_NEAR_EVEN = 14,
  BRIG_ROUND_INTEGER_SIGNALING_ZERO = 15,
  BRIG_ROUND_INTEGER_SIGNALING_PLUS_INFINITY = 16,
  BRIG_ROUND_INTEGER_SIGNALING_MINUS_INFINITY = 17,
  BRIG_ROUND_INTEGER_SIGNALING_NEAR_EVEN_SAT = 18,
  BRIG_ROUND_INTEGER_SIGNALING_ZERO_SAT = 19,
  BRIG_ROUND_INTEGER_SIGNALING_PLUS_INFINITY_SAT = 20,
  BRIG_ROUND_INTEGER_SIGNALING_MINUS_INFINITY_SAT = 21
};

enum BrigSamplerAddressing : uint8_t {
  BRIG_ADDRESSING_UNDEFINED = 0,
  BRIG_ADDRESSING_CLAMP_TO_EDGE = 1,
  BRIG_ADDRESSING_CLAMP_TO_BORDER = 2,
  BRIG_ADDRESSING_REPEAT = 3,
  BRIG_ADDRESSING_MIRRORED_REPEAT = 4,
  BRIG_ADDRESSING_FIRST_USER_DEFINED = 128
};

enum BrigSamplerCoordNormalization : uint8_t {
  BRIG_COORD_UNNORMALIZED = 0,
  BRIG_COORD_NORMALIZED = 1
};

enum BrigSamplerFilter : uint8_t {
  BRIG_FILTER_NEAREST = 0,
  BRIG_FILTER_LINEAR = 1,
  BRIG_FILTER_FIRST_USER_DEFINED = 128
};

enum BrigSamplerQuery : uint8_t {
  BRIG_SAMPLER_QUERY_ADDRESSING = 0,
  BRIG_SAMPLER_QUERY_COORD = 1,
  BRIG_SAMPLER_QUERY_FILTER = 2
};

enum BrigSectionIndex : uint32_t {
  BRIG_SECTION_INDEX_DATA = 0,
  BRIG_SECTION_INDEX_CODE = 1,
  BRIG_SECTION_INDEX_OPERAND = 2,
  BRIG_SECTION_INDEX_BEGIN_IMPLEMENTATION_DEFINED = 3
};

enum BrigSegCvtModifierMask : uint8_t { BRIG_SEG_CVT_NONULL = 1 };

enum BrigSegment : uint8_t {
  BRIG_SEGMENT_NONE = 0,
  BRIG_SEGMENT_FLAT = 1,
  BRIG_SEGMENT_GLOBAL = 2,
  BRIG_SEGMENT_READONLY = 3,
  BRIG_SEGMENT_KERNARG = 4,
  BRIG_SEGMENT_GROUP = 5,
  BRIG_SEGMENT_PRIVATE = 6,
  BRIG_SEGMENT_SPILL = 7,
  BRIG_SEGMENT_ARG = 8,
  BRIG_SEGMENT_FIRST_USER_DEFINED = 128
};

// 18.3.35 BrigType encoding: base type in bits 0-4, packed size in bits 5-6,
// array flag in bit 7.
enum : uint16_t {
  BRIG_TYPE_BASE_SIZE = 5,
  BRIG_TYPE_PACK_SIZE = 2,
  BRIG_TYPE_ARRAY_SIZE = 1,
  BRIG_TYPE_BASE_SHIFT = 0,
  BRIG_TYPE_PACK_SHIFT = BRIG_TYPE_BASE_SHIFT + BRIG_TYPE_BASE_SIZE,
  BRIG_TYPE_ARRAY_SHIFT = BRIG_TYPE_PACK_SHIFT + BRIG_TYPE_PACK_SIZE,
  BRIG_TYPE_BASE_MASK = ((1 << BRIG_TYPE_BASE_SIZE) - 1)
                        << BRIG_TYPE_BASE_SHIFT,
  BRIG_TYPE_PACK_MASK = ((1 << BRIG_TYPE_PACK_SIZE) - 1)
                        << BRIG_TYPE_PACK_SHIFT,
  BRIG_TYPE_ARRAY_MASK = ((1 << BRIG_TYPE_ARRAY_SIZE) - 1)
                         << BRIG_TYPE_ARRAY_SHIFT,
  BRIG_TYPE_PACK_NONE = 0 << BRIG_TYPE_PACK_SHIFT,
  BRIG_TYPE_PACK_32 = 1 << BRIG_TYPE_PACK_SHIFT,
  BRIG_TYPE_PACK_64 = 2 << BRIG_TYPE_PACK_SHIFT,
  BRIG_TYPE_PACK_128 = 3 << BRIG_TYPE_PACK_SHIFT,
  BRIG_TYPE_ARRAY = 1 << BRIG_TYPE_ARRAY_SHIFT
};

enum BrigType : uint16_t {
  BRIG_TYPE_NONE = 0,
  BRIG_TYPE_U8 = 1,
  BRIG_TYPE_U16 = 2,
  BRIG_TYPE_U32 = 3,
  BRIG_TYPE_U64 = 4,
  BRIG_TYPE_S8 = 5,
  BRIG_TYPE_S16 = 6,
  BRIG_TYPE_S32 = 7,
  BRIG_TYPE_S64 = 8,
  BRIG_TYPE_F16 = 9,
  BRIG_TYPE_F32 = 10,
  BRIG_TYPE_F64 = 11,
  BRIG_TYPE_B1 = 12,
  BRIG_TYPE_B8 = 13,
  BRIG_TYPE_B16 = 14,
  BRIG_TYPE_B32 = 15,
  BRIG_TYPE_B64 = 16,
  BRIG_TYPE_B128 = 17,
  BRIG_TYPE_SAMP = 18,
  BRIG_TYPE_ROIMG = 19,
  BRIG_TYPE_WOIMG = 20,
  BRIG_TYPE_RWIMG = 21,
  BRIG_TYPE_SIG32 = 22,
  BRIG_TYPE_SIG64 = 23,

  BRIG_TYPE_U8X4 = BRIG_TYPE_U8 | BRIG_TYPE_PACK_32,
  BRIG_TYPE_U8X8 = BRIG_TYPE_U8 | BRIG_TYPE_PACK_64,
  BRIG_TYPE_U8X16 = BRIG_TYPE_U8 | BRIG_TYPE_PACK_128,
  BRIG_TYPE_U16X2 = BRIG_TYPE_U16 | BRIG_TYPE_PACK_32,
  BRIG_TYPE_U16X4 = BRIG_TYPE_U16 | BRIG_TYPE_PACK_64,
  BRIG_TYPE_U16X8 = BRIG_TYPE_U16 | BRIG_TYPE_PACK_128,
  BRIG_TYPE_U32X2 = BRIG_TYPE_U32 | BRIG_TYPE_PACK_64,
  BRIG_TYPE_U32X4 = BRIG_TYPE_U32 | BRIG_TYPE_PACK_128,
  BRIG_TYPE_U64X2 = BRIG_TYPE_U64 | BRIG_TYPE_PACK_128,
  BRIG_TYPE_S8X4 = BRIG_TYPE_S8 | BRIG_TYPE_PACK_32,
  BRIG_TYPE_S8X8 = BRIG_TYPE_S8 | BRIG_TYPE_PACK_64,
  BRIG_TYPE_S8X16 = BRIG_TYPE_S8 | BRIG_TYPE_PACK_128,
  BRIG_TYPE_S16X2 = BRIG_TYPE_S16 | BRIG_TYPE_PACK_32,
  BRIG_TYPE_S16X4 = BRIG_TYPE_S16 | BRIG_TYPE_PACK_64,
  BRIG_TYPE_S16X8 = BRIG_TYPE_S16 | BRIG_TYPE_PACK_128,
  BRIG_TYPE_S32X2 = BRIG_TYPE_S32 | BRIG_TYPE_PACK_64,
  BRIG_TYPE_S32X4 = BRIG_TYPE_S32 | BRIG_TYPE_PACK_128,
  BRIG_TYPE_S64X2 = BRIG_TYPE_S64 | BRIG_TYPE_PACK_128,
  BRIG_TYPE_F16X2 = BRIG_TYPE_F16 | BRIG_TYPE_PACK_32,
  BRIG_TYPE_F16X4 = BRIG_TYPE_F16 | BRIG_TYPE_PACK_64,
  BRIG_TYPE_F16X8 = BRIG_TYPE_F16 | BRIG_TYPE_PACK_128,
  BRIG_TYPE_F32X2 = BRIG_TYPE_F32 | BRIG_TYPE_PACK_64,
  BRIG_TYPE_F32X4 = BRIG_TYPE_F32 | BRIG_TYPE_PACK_128,
  BRIG_TYPE_F64X2 = BRIG_TYPE_F64 | BRIG_TYPE_PACK_128,

  BRIG_TYPE_U8_ARRAY = BRIG_TYPE_U8 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_U16_ARRAY = BRIG_TYPE_U16 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_U32_ARRAY = BRIG_TYPE_U32 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_U64_ARRAY = BRIG_TYPE_U64 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_S8_ARRAY = BRIG_TYPE_S8 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_S16_ARRAY = BRIG_TYPE_S16 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_S32_ARRAY = BRIG_TYPE_S32 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_S64_ARRAY = BRIG_TYPE_S64 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_F16_ARRAY = BRIG_TYPE_F16 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_F32_ARRAY = BRIG_TYPE_F32 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_F64_ARRAY = BRIG_TYPE_F64 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_B8_ARRAY = BRIG_TYPE_B8 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_B16_ARRAY = BRIG_TYPE_B16 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_B32_ARRAY = BRIG_TYPE_B32 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_B64_ARRAY = BRIG_TYPE_B64 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_B128_ARRAY = BRIG_TYPE_B128 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_SAMP_ARRAY = BRIG_TYPE_SAMP | BRIG_TYPE_ARRAY,
  BRIG_TYPE_ROIMG_ARRAY = BRIG_TYPE_ROIMG | BRIG_TYPE_ARRAY,
  BRIG_TYPE_WOIMG_ARRAY = BRIG_TYPE_WOIMG | BRIG_TYPE_ARRAY,
  BRIG_TYPE_RWIMG_ARRAY = BRIG_TYPE_RWIMG | BRIG_TYPE_ARRAY,
  BRIG_TYPE_SIG32_ARRAY = BRIG_TYPE_SIG32 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_SIG64_ARRAY = BRIG_TYPE_SIG64 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_U8X4_ARRAY = BRIG_TYPE_U8X4 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_U8X8_ARRAY = BRIG_TYPE_U8X8 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_U8X16_ARRAY = BRIG_TYPE_U8X16 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_U16X2_ARRAY = BRIG_TYPE_U16X2 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_U16X4_ARRAY = BRIG_TYPE_U16X4 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_U16X8_ARRAY = BRIG_TYPE_U16X8 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_U32X2_ARRAY = BRIG_TYPE_U32X2 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_U32X4_ARRAY = BRIG_TYPE_U32X4 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_U64X2_ARRAY = BRIG_TYPE_U64X2 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_S8X4_ARRAY = BRIG_TYPE_S8X4 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_S8X8_ARRAY = BRIG_TYPE_S8X8 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_S8X16_ARRAY = BRIG_TYPE_S8X16 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_S16X2_ARRAY = BRIG_TYPE_S16X2 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_S16X4_ARRAY = BRIG_TYPE_S16X4 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_S16X8_ARRAY = BRIG_TYPE_S16X8 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_S32X2_ARRAY = BRIG_TYPE_S32X2 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_S32X4_ARRAY = BRIG_TYPE_S32X4 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_S64X2_ARRAY = BRIG_TYPE_S64X2 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_F16X2_ARRAY = BRIG_TYPE_F16X2 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_F16X4_ARRAY = BRIG_TYPE_F16X4 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_F16X8_ARRAY = BRIG_TYPE_F16X8 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_F32X2_ARRAY = BRIG_TYPE_F32X2 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_F32X4_ARRAY = BRIG_TYPE_F32X4 | BRIG_TYPE_ARRAY,
  BRIG_TYPE_F64X2_ARRAY = BRIG_TYPE_F64X2 | BRIG_TYPE_ARRAY
};

enum BrigVariableModifierMask : uint8_t {
  BRIG_VARIABLE_DEFINITION = 1,
  BRIG_VARIABLE_CONST = 2
};

enum BrigVersion : uint32_t {
  BRIG_VERSION_HSAIL_MAJOR = 1,
  BRIG_VERSION_HSAIL_MINOR = 0,
  BRIG_VERSION_BRIG_MAJOR = 1,
  BRIG_VERSION_BRIG_MINOR = 0
};

enum BrigWidth : uint8_t {
  BRIG_WIDTH_NONE = 0,
  BRIG_WIDTH_1 = 1,
  BRIG_WIDTH_2 = 2,
  BRIG_WIDTH_4 = 3,
  BRIG_WIDTH_8 = 4,
  BRIG_WIDTH_16 = 5,
  BRIG_WIDTH_32 = 6,
  BRIG_WIDTH_64 = 7,
  BRIG_WIDTH_128 = 8,
  BRIG_WIDTH_256 = 9,
  BRIG_WIDTH_512 = 10,
  BRIG_WIDTH_1024 = 11,
  BRIG_WIDTH_2048 = 12,
  BRIG_WIDTH_4096 = 13,
  BRIG_WIDTH_8192 = 14,
  BRIG_WIDTH_16384 = 15,
  BRIG_WIDTH_32768 = 16,
  BRIG_WIDTH_65536 = 17,
  BRIG_WIDTH_131072 = 18,
  BRIG_WIDTH_262144 = 19,
  BRIG_WIDTH_524288 = 20,
  BRIG_WIDTH_1048576 = 21,
  BRIG_WIDTH_2097152 = 22,
  BRIG_WIDTH_4194304 = 23,
  BRIG_WIDTH_8388608 = 24,
  BRIG_WIDTH_16777216 = 25,
  BRIG_WIDTH_33554432 = 26,
  BRIG_WIDTH_67108864 = 27,
  BRIG_WIDTH_134217728 = 28,
  BRIG_WIDTH_268435456 = 29,
  BRIG_WIDTH_536870912 = 30,
  BRIG_WIDTH_1073741824 = 31,
  BRIG_WIDTH_2147483648 = 32,
  BRIG_WIDTH_WAVESIZE = 33,
  BRIG_WIDTH_ALL = 34
};

//===----------------------------------------------------------------------===//
// Structures
//===----------------------------------------------------------------------===//

/// 18.3.36: a 64-bit value split so entries need only 4-byte alignment.
struct BrigUInt64 {
  uint32_t lo;
  uint32_t hi;
  constexpr uint64_t value() const { return (uint64_t(hi) << 32) | lo; }
};

/// 18.3.21: first bytes of every module (hsa_ext_module_t points here).
struct BrigModuleHeader {
  char identification[8]; ///< "HSA BRIG", no terminator.
  BrigVersion32_t brigMajor;
  BrigVersion32_t brigMinor;
  uint64_t byteCount;
  uint8_t hash[64];
  uint32_t reserved;
  uint32_t sectionCount;
  uint64_t sectionIndex;
};

using BrigModule_t = BrigModuleHeader *;

/// 18.3.32: first bytes of every section.
struct BrigSectionHeader {
  uint64_t byteCount;
  uint32_t headerByteCount;
  uint32_t nameLength;
  uint8_t name[1]; ///< nameLength bytes.
};

/// 18.4: an hsa_data entry.
struct BrigData {
  uint32_t byteCount;
  uint8_t bytes[1]; ///< byteCount bytes, zero padded to a multiple of 4.
};

/// 18.3.6: first bytes of every hsa_code and hsa_operand entry.
struct BrigBase {
  uint16_t byteCount;
  BrigKind16_t kind;
};

// 18.5.1 Directives.
struct BrigDirectiveArgBlock {
  BrigBase base;
};

struct BrigDirectiveComment {
  BrigBase base;
  BrigDataOffsetString32_t name;
};

struct BrigDirectiveControl {
  BrigBase base;
  BrigControlDirective16_t control;
  uint16_t reserved;
  BrigDataOffsetOperandList32_t operands;
};

struct BrigDirectiveExecutable {
  BrigBase base;
  BrigDataOffsetString32_t name;
  uint16_t outArgCount;
  uint16_t inArgCount;
  BrigCodeOffset32_t firstInArg;
  BrigCodeOffset32_t firstCodeBlockEntry;
  BrigCodeOffset32_t nextModuleEntry;
  BrigExecutableModifier8_t modifier;
  BrigLinkage8_t linkage;
  uint16_t reserved;
};

struct BrigDirectiveExtension {
  BrigBase base;
  BrigDataOffsetString32_t name;
};

struct BrigDirectiveFbarrier {
  BrigBase base;
  BrigDataOffsetString32_t name;
  BrigVariableModifier8_t modifier;
  BrigLinkage8_t linkage;
  uint16_t reserved;
};

struct BrigDirectiveLabel {
  BrigBase base;
  BrigDataOffsetString32_t name;
};

struct BrigDirectiveLoc {
  BrigBase base;
  BrigDataOffsetString32_t filename;
  uint32_t line;
  uint32_t column;
};

struct BrigDirectiveModule {
  BrigBase base;
  BrigDataOffsetString32_t name;
  BrigVersion32_t hsailMajor;
  BrigVersion32_t hsailMinor;
  BrigProfile8_t profile;
  BrigMachineModel8_t machineModel;
  BrigRound8_t defaultFloatRound;
  uint8_t reserved;
};

/// 18.5.1.11: padding entry (kind BRIG_KIND_NONE), always ignored.
struct BrigDirectiveNone {
  BrigBase base;
};

struct BrigDirectivePragma {
  BrigBase base;
  BrigDataOffsetOperandList32_t operands;
};

struct BrigDirectiveVariable {
  BrigBase base;
  BrigDataOffsetString32_t name;
  BrigOperandOffset32_t init;
  BrigType16_t type;
  BrigSegment8_t segment;
  BrigAlignment8_t align;
  BrigUInt64 dim;
  BrigVariableModifier8_t modifier;
  BrigLinkage8_t linkage;
  BrigAllocation8_t allocation;
  uint8_t reserved;
};

// 18.5.2 Instructions.
struct BrigInstBase {
  BrigBase base;
  BrigOpcode16_t opcode;
  BrigType16_t type;
  BrigDataOffsetOperandList32_t operands;
};

struct BrigInstAddr {
  BrigInstBase base;
  BrigSegment8_t segment;
  uint8_t reserved[3];
};

struct BrigInstAtomic {
  BrigInstBase base;
  BrigSegment8_t segment;
  BrigMemoryOrder8_t memoryOrder;
  BrigMemoryScope8_t memoryScope;
  BrigAtomicOperation8_t atomicOperation;
  uint8_t equivClass;
  uint8_t reserved[3];
};

struct BrigInstBasic {
  BrigInstBase base;
};

struct BrigInstBr {
  BrigInstBase base;
  BrigWidth8_t width;
  uint8_t reserved[3];
};

struct BrigInstCmp {
  BrigInstBase base;
  BrigType16_t sourceType;
  BrigAluModifier8_t modifier;
  BrigCompareOperation8_t compare;
  BrigPack8_t pack;
  uint8_t reserved[3];
};

struct BrigInstCvt {
  BrigInstBase base;
  BrigType16_t sourceType;
  BrigAluModifier8_t modifier;
  BrigRound8_t round;
};

struct BrigInstImage {
  BrigInstBase base;
  BrigType16_t imageType;
  BrigType16_t coordType;
  BrigImageGeometry8_t geometry;
  uint8_t equivClass;
  uint16_t reserved;
};

struct BrigInstLane {
  BrigInstBase base;
  BrigType16_t sourceType;
  BrigWidth8_t width;
  uint8_t reserved;
};

struct BrigInstMem {
  BrigInstBase base;
  BrigSegment8_t segment;
  BrigAlignment8_t align;
  uint8_t equivClass;
  BrigWidth8_t width;
  BrigMemoryModifier8_t modifier;
  uint8_t reserved[3];
};

struct BrigInstMemFence {
  BrigInstBase base;
  BrigMemoryOrder8_t memoryOrder;
  BrigMemoryScope8_t globalSegmentMemoryScope;
  BrigMemoryScope8_t groupSegmentMemoryScope;
  BrigMemoryScope8_t imageSegmentMemoryScope;
};

// 18.5.2.12. The manual's struct listing shows pack before round, but its
// field list, and the BRIG that the HSA Foundation's tools read and write,
// put round at offset 13 and pack at offset 14. This follows the latter.
struct BrigInstMod {
  BrigInstBase base;
  BrigAluModifier8_t modifier;
  BrigRound8_t round;
  BrigPack8_t pack;
  uint8_t reserved;
};

struct BrigInstQueryImage {
  BrigInstBase base;
  BrigType16_t imageType;
  BrigImageGeometry8_t geometry;
  BrigImageQuery8_t query;
};

struct BrigInstQuerySampler {
  BrigInstBase base;
  BrigSamplerQuery8_t query;
  uint8_t reserved[3];
};

struct BrigInstQueue {
  BrigInstBase base;
  BrigSegment8_t segment;
  BrigMemoryOrder8_t memoryOrder;
  uint16_t reserved;
};

struct BrigInstSeg {
  BrigInstBase base;
  BrigSegment8_t segment;
  uint8_t reserved[3];
};

struct BrigInstSegCvt {
  BrigInstBase base;
  BrigType16_t sourceType;
  BrigSegment8_t segment;
  BrigSegCvtModifier8_t modifier;
};

struct BrigInstSignal {
  BrigInstBase base;
  BrigType16_t signalType;
  BrigMemoryOrder8_t memoryOrder;
  BrigAtomicOperation8_t signalOperation;
};

struct BrigInstSourceType {
  BrigInstBase base;
  BrigType16_t sourceType;
  uint16_t reserved;
};

// 18.6 Operands.
struct BrigOperandAddress {
  BrigBase base;
  BrigCodeOffset32_t symbol;
  BrigOperandOffset32_t reg;
  BrigUInt64 offset;
};

struct BrigOperandAlign {
  BrigBase base;
  BrigAlignment8_t align;
  uint8_t reserved[3];
};

struct BrigOperandCodeList {
  BrigBase base;
  BrigDataOffsetCodeList32_t elements;
};

struct BrigOperandCodeRef {
  BrigBase base;
  BrigCodeOffset32_t ref;
};

struct BrigOperandConstantBytes {
  BrigBase base;
  BrigType16_t type;
  uint16_t reserved;
  BrigDataOffsetString32_t bytes;
};

struct BrigOperandConstantImage {
  BrigBase base;
  BrigType16_t type;
  BrigImageGeometry8_t geometry;
  BrigImageChannelOrder8_t channelOrder;
  BrigImageChannelType8_t channelType;
  uint8_t reserved[3];
  BrigUInt64 width;
  BrigUInt64 height;
  BrigUInt64 depth;
  BrigUInt64 array;
};

struct BrigOperandConstantOperandList {
  BrigBase base;
  BrigType16_t type;
  uint16_t reserved;
  BrigDataOffsetOperandList32_t elements;
};

struct BrigOperandConstantSampler {
  BrigBase base;
  BrigType16_t type;
  BrigSamplerCoordNormalization8_t coord;
  BrigSamplerFilter8_t filter;
  BrigSamplerAddressing8_t addressing;
  uint8_t reserved[3];
};

struct BrigOperandOperandList {
  BrigBase base;
  BrigDataOffsetOperandList32_t elements;
};

struct BrigOperandRegister {
  BrigBase base;
  BrigRegisterKind16_t regKind;
  uint16_t regNum;
};

struct BrigOperandString {
  BrigBase base;
  BrigDataOffsetString32_t string;
};

struct BrigOperandWavesize {
  BrigBase base;
};

//===----------------------------------------------------------------------===//
// Small helpers on the encodings
//===----------------------------------------------------------------------===//

constexpr unsigned brigTypeBase(unsigned T) { return T & BRIG_TYPE_BASE_MASK; }
constexpr unsigned brigTypePack(unsigned T) { return T & BRIG_TYPE_PACK_MASK; }
constexpr bool brigTypeIsArray(unsigned T) {
  return (T & BRIG_TYPE_ARRAY_MASK) != 0;
}
constexpr bool brigTypeIsPacked(unsigned T) { return brigTypePack(T) != 0; }
/// Element type of an array type (the type without its array bit).
constexpr unsigned brigTypeArrayElement(unsigned T) {
  return T & ~unsigned(BRIG_TYPE_ARRAY_MASK);
}

constexpr bool brigKindIsDirective(unsigned K) {
  return K >= BRIG_KIND_DIRECTIVE_BEGIN && K < BRIG_KIND_DIRECTIVE_END;
}
constexpr bool brigKindIsInst(unsigned K) {
  return K >= BRIG_KIND_INST_BEGIN && K < BRIG_KIND_INST_END;
}
constexpr bool brigKindIsOperand(unsigned K) {
  return K >= BRIG_KIND_OPERAND_BEGIN && K < BRIG_KIND_OPERAND_END;
}

/// Magic bytes of BrigModuleHeader::identification.
inline constexpr char BrigMagic[8] = {'H', 'S', 'A', ' ', 'B', 'R', 'I', 'G'};

//===----------------------------------------------------------------------===//
// Layout pins (sizes and offsets from chapter 18)
//===----------------------------------------------------------------------===//

#define OPENHSA_BRIG_PIN(S, Size)                                              \
  static_assert(sizeof(S) == (Size), #S " size");                              \
  static_assert(std::is_trivially_copyable_v<S> && std::is_standard_layout_v<S>)
#define OPENHSA_BRIG_OFF(S, F, Off)                                            \
  static_assert(offsetof(S, F) == (Off), #S "::" #F " offset")

OPENHSA_BRIG_PIN(BrigUInt64, 8);
OPENHSA_BRIG_PIN(BrigModuleHeader, 104);
OPENHSA_BRIG_OFF(BrigModuleHeader, identification, 0);
OPENHSA_BRIG_OFF(BrigModuleHeader, brigMajor, 8);
OPENHSA_BRIG_OFF(BrigModuleHeader, brigMinor, 12);
OPENHSA_BRIG_OFF(BrigModuleHeader, byteCount, 16);
OPENHSA_BRIG_OFF(BrigModuleHeader, hash, 24);
OPENHSA_BRIG_OFF(BrigModuleHeader, reserved, 88);
OPENHSA_BRIG_OFF(BrigModuleHeader, sectionCount, 92);
OPENHSA_BRIG_OFF(BrigModuleHeader, sectionIndex, 96);

OPENHSA_BRIG_OFF(BrigSectionHeader, byteCount, 0);
OPENHSA_BRIG_OFF(BrigSectionHeader, headerByteCount, 8);
OPENHSA_BRIG_OFF(BrigSectionHeader, nameLength, 12);
OPENHSA_BRIG_OFF(BrigSectionHeader, name, 16);
OPENHSA_BRIG_OFF(BrigData, byteCount, 0);
OPENHSA_BRIG_OFF(BrigData, bytes, 4);

OPENHSA_BRIG_PIN(BrigBase, 4);
OPENHSA_BRIG_OFF(BrigBase, byteCount, 0);
OPENHSA_BRIG_OFF(BrigBase, kind, 2);

OPENHSA_BRIG_PIN(BrigDirectiveArgBlock, 4);
OPENHSA_BRIG_PIN(BrigDirectiveComment, 8);
OPENHSA_BRIG_PIN(BrigDirectiveControl, 12);
OPENHSA_BRIG_OFF(BrigDirectiveControl, control, 4);
OPENHSA_BRIG_OFF(BrigDirectiveControl, operands, 8);
OPENHSA_BRIG_PIN(BrigDirectiveExecutable, 28);
OPENHSA_BRIG_OFF(BrigDirectiveExecutable, name, 4);
OPENHSA_BRIG_OFF(BrigDirectiveExecutable, outArgCount, 8);
OPENHSA_BRIG_OFF(BrigDirectiveExecutable, inArgCount, 10);
OPENHSA_BRIG_OFF(BrigDirectiveExecutable, firstInArg, 12);
OPENHSA_BRIG_OFF(BrigDirectiveExecutable, firstCodeBlockEntry, 16);
OPENHSA_BRIG_OFF(BrigDirectiveExecutable, nextModuleEntry, 20);
OPENHSA_BRIG_OFF(BrigDirectiveExecutable, modifier, 24);
OPENHSA_BRIG_OFF(BrigDirectiveExecutable, linkage, 25);
OPENHSA_BRIG_OFF(BrigDirectiveExecutable, reserved, 26);
OPENHSA_BRIG_PIN(BrigDirectiveExtension, 8);
OPENHSA_BRIG_PIN(BrigDirectiveFbarrier, 12);
OPENHSA_BRIG_OFF(BrigDirectiveFbarrier, modifier, 8);
OPENHSA_BRIG_OFF(BrigDirectiveFbarrier, linkage, 9);
OPENHSA_BRIG_PIN(BrigDirectiveLabel, 8);
OPENHSA_BRIG_PIN(BrigDirectiveLoc, 16);
OPENHSA_BRIG_OFF(BrigDirectiveLoc, filename, 4);
OPENHSA_BRIG_OFF(BrigDirectiveLoc, line, 8);
OPENHSA_BRIG_OFF(BrigDirectiveLoc, column, 12);
OPENHSA_BRIG_PIN(BrigDirectiveModule, 20);
OPENHSA_BRIG_OFF(BrigDirectiveModule, name, 4);
OPENHSA_BRIG_OFF(BrigDirectiveModule, hsailMajor, 8);
OPENHSA_BRIG_OFF(BrigDirectiveModule, hsailMinor, 12);
OPENHSA_BRIG_OFF(BrigDirectiveModule, profile, 16);
OPENHSA_BRIG_OFF(BrigDirectiveModule, machineModel, 17);
OPENHSA_BRIG_OFF(BrigDirectiveModule, defaultFloatRound, 18);
OPENHSA_BRIG_OFF(BrigDirectiveModule, reserved, 19);
OPENHSA_BRIG_PIN(BrigDirectiveNone, 4);
OPENHSA_BRIG_PIN(BrigDirectivePragma, 8);
OPENHSA_BRIG_PIN(BrigDirectiveVariable, 28);
OPENHSA_BRIG_OFF(BrigDirectiveVariable, name, 4);
OPENHSA_BRIG_OFF(BrigDirectiveVariable, init, 8);
OPENHSA_BRIG_OFF(BrigDirectiveVariable, type, 12);
OPENHSA_BRIG_OFF(BrigDirectiveVariable, segment, 14);
OPENHSA_BRIG_OFF(BrigDirectiveVariable, align, 15);
OPENHSA_BRIG_OFF(BrigDirectiveVariable, dim, 16);
OPENHSA_BRIG_OFF(BrigDirectiveVariable, modifier, 24);
OPENHSA_BRIG_OFF(BrigDirectiveVariable, linkage, 25);
OPENHSA_BRIG_OFF(BrigDirectiveVariable, allocation, 26);
OPENHSA_BRIG_OFF(BrigDirectiveVariable, reserved, 27);

OPENHSA_BRIG_PIN(BrigInstBase, 12);
OPENHSA_BRIG_OFF(BrigInstBase, opcode, 4);
OPENHSA_BRIG_OFF(BrigInstBase, type, 6);
OPENHSA_BRIG_OFF(BrigInstBase, operands, 8);
OPENHSA_BRIG_PIN(BrigInstAddr, 16);
OPENHSA_BRIG_OFF(BrigInstAddr, segment, 12);
OPENHSA_BRIG_PIN(BrigInstAtomic, 20);
OPENHSA_BRIG_OFF(BrigInstAtomic, segment, 12);
OPENHSA_BRIG_OFF(BrigInstAtomic, memoryOrder, 13);
OPENHSA_BRIG_OFF(BrigInstAtomic, memoryScope, 14);
OPENHSA_BRIG_OFF(BrigInstAtomic, atomicOperation, 15);
OPENHSA_BRIG_OFF(BrigInstAtomic, equivClass, 16);
OPENHSA_BRIG_PIN(BrigInstBasic, 12);
OPENHSA_BRIG_PIN(BrigInstBr, 16);
OPENHSA_BRIG_OFF(BrigInstBr, width, 12);
OPENHSA_BRIG_PIN(BrigInstCmp, 20);
OPENHSA_BRIG_OFF(BrigInstCmp, sourceType, 12);
OPENHSA_BRIG_OFF(BrigInstCmp, modifier, 14);
OPENHSA_BRIG_OFF(BrigInstCmp, compare, 15);
OPENHSA_BRIG_OFF(BrigInstCmp, pack, 16);
OPENHSA_BRIG_PIN(BrigInstCvt, 16);
OPENHSA_BRIG_OFF(BrigInstCvt, sourceType, 12);
OPENHSA_BRIG_OFF(BrigInstCvt, modifier, 14);
OPENHSA_BRIG_OFF(BrigInstCvt, round, 15);
OPENHSA_BRIG_PIN(BrigInstImage, 20);
OPENHSA_BRIG_OFF(BrigInstImage, imageType, 12);
OPENHSA_BRIG_OFF(BrigInstImage, coordType, 14);
OPENHSA_BRIG_OFF(BrigInstImage, geometry, 16);
OPENHSA_BRIG_OFF(BrigInstImage, equivClass, 17);
OPENHSA_BRIG_OFF(BrigInstImage, reserved, 18);
OPENHSA_BRIG_PIN(BrigInstLane, 16);
OPENHSA_BRIG_OFF(BrigInstLane, sourceType, 12);
OPENHSA_BRIG_OFF(BrigInstLane, width, 14);
OPENHSA_BRIG_PIN(BrigInstMem, 20);
OPENHSA_BRIG_OFF(BrigInstMem, segment, 12);
OPENHSA_BRIG_OFF(BrigInstMem, align, 13);
OPENHSA_BRIG_OFF(BrigInstMem, equivClass, 14);
OPENHSA_BRIG_OFF(BrigInstMem, width, 15);
OPENHSA_BRIG_OFF(BrigInstMem, modifier, 16);
OPENHSA_BRIG_PIN(BrigInstMemFence, 16);
OPENHSA_BRIG_OFF(BrigInstMemFence, memoryOrder, 12);
OPENHSA_BRIG_OFF(BrigInstMemFence, globalSegmentMemoryScope, 13);
OPENHSA_BRIG_OFF(BrigInstMemFence, groupSegmentMemoryScope, 14);
OPENHSA_BRIG_OFF(BrigInstMemFence, imageSegmentMemoryScope, 15);
OPENHSA_BRIG_PIN(BrigInstMod, 16);
OPENHSA_BRIG_OFF(BrigInstMod, modifier, 12);
OPENHSA_BRIG_OFF(BrigInstMod, round, 13);
OPENHSA_BRIG_OFF(BrigInstMod, pack, 14);
OPENHSA_BRIG_PIN(BrigInstQueryImage, 16);
OPENHSA_BRIG_OFF(BrigInstQueryImage, imageType, 12);
OPENHSA_BRIG_OFF(BrigInstQueryImage, geometry, 14);
OPENHSA_BRIG_OFF(BrigInstQueryImage, query, 15);
OPENHSA_BRIG_PIN(BrigInstQuerySampler, 16);
OPENHSA_BRIG_OFF(BrigInstQuerySampler, query, 12);
OPENHSA_BRIG_PIN(BrigInstQueue, 16);
OPENHSA_BRIG_OFF(BrigInstQueue, segment, 12);
OPENHSA_BRIG_OFF(BrigInstQueue, memoryOrder, 13);
OPENHSA_BRIG_PIN(BrigInstSeg, 16);
OPENHSA_BRIG_OFF(BrigInstSeg, segment, 12);
OPENHSA_BRIG_PIN(BrigInstSegCvt, 16);
OPENHSA_BRIG_OFF(BrigInstSegCvt, sourceType, 12);
OPENHSA_BRIG_OFF(BrigInstSegCvt, segment, 14);
OPENHSA_BRIG_OFF(BrigInstSegCvt, modifier, 15);
OPENHSA_BRIG_PIN(BrigInstSignal, 16);
OPENHSA_BRIG_OFF(BrigInstSignal, signalType, 12);
OPENHSA_BRIG_OFF(BrigInstSignal, memoryOrder, 14);
OPENHSA_BRIG_OFF(BrigInstSignal, signalOperation, 15);
OPENHSA_BRIG_PIN(BrigInstSourceType, 16);
OPENHSA_BRIG_OFF(BrigInstSourceType, sourceType, 12);

OPENHSA_BRIG_PIN(BrigOperandAddress, 20);
OPENHSA_BRIG_OFF(BrigOperandAddress, symbol, 4);
OPENHSA_BRIG_OFF(BrigOperandAddress, reg, 8);
OPENHSA_BRIG_OFF(BrigOperandAddress, offset, 12);
OPENHSA_BRIG_PIN(BrigOperandAlign, 8);
OPENHSA_BRIG_OFF(BrigOperandAlign, align, 4);
OPENHSA_BRIG_PIN(BrigOperandCodeList, 8);
OPENHSA_BRIG_PIN(BrigOperandCodeRef, 8);
OPENHSA_BRIG_PIN(BrigOperandConstantBytes, 12);
OPENHSA_BRIG_OFF(BrigOperandConstantBytes, type, 4);
OPENHSA_BRIG_OFF(BrigOperandConstantBytes, bytes, 8);
OPENHSA_BRIG_PIN(BrigOperandConstantImage, 44);
OPENHSA_BRIG_OFF(BrigOperandConstantImage, type, 4);
OPENHSA_BRIG_OFF(BrigOperandConstantImage, geometry, 6);
OPENHSA_BRIG_OFF(BrigOperandConstantImage, channelOrder, 7);
OPENHSA_BRIG_OFF(BrigOperandConstantImage, channelType, 8);
OPENHSA_BRIG_OFF(BrigOperandConstantImage, width, 12);
OPENHSA_BRIG_OFF(BrigOperandConstantImage, height, 20);
OPENHSA_BRIG_OFF(BrigOperandConstantImage, depth, 28);
OPENHSA_BRIG_OFF(BrigOperandConstantImage, array, 36);
OPENHSA_BRIG_PIN(BrigOperandConstantOperandList, 12);
OPENHSA_BRIG_OFF(BrigOperandConstantOperandList, type, 4);
OPENHSA_BRIG_OFF(BrigOperandConstantOperandList, elements, 8);
OPENHSA_BRIG_PIN(BrigOperandConstantSampler, 12);
OPENHSA_BRIG_OFF(BrigOperandConstantSampler, type, 4);
OPENHSA_BRIG_OFF(BrigOperandConstantSampler, coord, 6);
OPENHSA_BRIG_OFF(BrigOperandConstantSampler, filter, 7);
OPENHSA_BRIG_OFF(BrigOperandConstantSampler, addressing, 8);
OPENHSA_BRIG_PIN(BrigOperandOperandList, 8);
OPENHSA_BRIG_PIN(BrigOperandRegister, 8);
OPENHSA_BRIG_OFF(BrigOperandRegister, regKind, 4);
OPENHSA_BRIG_OFF(BrigOperandRegister, regNum, 6);
OPENHSA_BRIG_PIN(BrigOperandString, 8);
OPENHSA_BRIG_PIN(BrigOperandWavesize, 4);

#undef OPENHSA_BRIG_PIN
#undef OPENHSA_BRIG_OFF

static_assert(BRIG_TYPE_PACK_SHIFT == 5 && BRIG_TYPE_ARRAY_SHIFT == 7);
static_assert(BRIG_TYPE_U8X4 == 33 && BRIG_TYPE_F64X2 == 107);
static_assert(BRIG_TYPE_U8_ARRAY == 129 && BRIG_TYPE_F64X2_ARRAY == 235);
static_assert(BRIG_KIND_OPERAND_WAVESIZE + 1 == BRIG_KIND_OPERAND_END);
static_assert(BRIG_OPCODE_WAVEID + 1 == BRIG_OPCODE_STANDARD_END);

} // namespace openhsa::brig

#endif // OPENHSA_BRIG_BRIGFORMAT_H
