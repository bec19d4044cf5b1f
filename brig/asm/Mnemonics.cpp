//===- brig/asm/Mnemonics.cpp - HSAIL opcode and modifier tables ----------===//

#include "brig/asm/Mnemonics.h"

#include "llvm/ADT/StringExtras.h"

namespace openhsa::brig::assembler {

namespace {

using F = MnemoFormat;
using S = OperandSyntax;
using O = OpType;

constexpr O N = O::None;
constexpr O T = O::T;
constexpr O ST = O::ST;
constexpr O U32 = O::U32;

// Opcode table, sorted by name for binary search. Immediate types follow the
// operand descriptions of PRM chapters 5-12.
const OpcodeInfo Opcodes[] = {
    {"abs", BRIG_OPCODE_ABS, F::BasicOrMod, S::Generic, {T, T, N, N, N, N}},
    {"activelanecount",
     BRIG_OPCODE_ACTIVELANECOUNT,
     F::Lane,
     S::Generic,
     {T, ST, N, N, N, N}},
    {"activelaneid",
     BRIG_OPCODE_ACTIVELANEID,
     F::Lane,
     S::Generic,
     {T, N, N, N, N, N}},
    {"activelanemask",
     BRIG_OPCODE_ACTIVELANEMASK,
     F::Lane,
     S::Generic,
     {T, ST, N, N, N, N}},
    {"activelanepermute",
     BRIG_OPCODE_ACTIVELANEPERMUTE,
     F::Lane,
     S::Generic,
     {T, T, U32, T, O::B1, N}},
    {"add", BRIG_OPCODE_ADD, F::BasicOrMod, S::Generic, {T, T, T, N, N, N}},
    {"addqueuewriteindex",
     BRIG_OPCODE_ADDQUEUEWRITEINDEX,
     F::Queue,
     S::Generic,
     {T, O::Addr, T, N, N, N}},
    {"alloca", BRIG_OPCODE_ALLOCA, F::Mem, S::Generic, {T, T, N, N, N, N}},
    {"and", BRIG_OPCODE_AND, F::Basic, S::Generic, {T, T, T, N, N, N}},
    {"arrivefbar",
     BRIG_OPCODE_ARRIVEFBAR,
     F::Br,
     S::Generic,
     {U32, N, N, N, N, N}},
    {"atomic",
     BRIG_OPCODE_ATOMIC,
     F::Atomic,
     S::Generic,
     {T, O::Addr, T, T, N, N}},
    {"atomicnoret",
     BRIG_OPCODE_ATOMICNORET,
     F::Atomic,
     S::Generic,
     {O::Addr, T, T, N, N, N}},
    {"barrier", BRIG_OPCODE_BARRIER, F::Br, S::Generic, {N, N, N, N, N, N}},
    {"bitalign",
     BRIG_OPCODE_BITALIGN,
     F::Basic,
     S::Generic,
     {T, T, T, T, N, N}},
    {"bitextract",
     BRIG_OPCODE_BITEXTRACT,
     F::Basic,
     S::Generic,
     {T, T, U32, U32, N, N}},
    {"bitinsert",
     BRIG_OPCODE_BITINSERT,
     F::Basic,
     S::Generic,
     {T, T, T, U32, U32, N}},
    {"bitmask",
     BRIG_OPCODE_BITMASK,
     F::Basic,
     S::Generic,
     {T, U32, U32, N, N, N}},
    {"bitrev", BRIG_OPCODE_BITREV, F::Basic, S::Generic, {T, T, N, N, N, N}},
    {"bitselect",
     BRIG_OPCODE_BITSELECT,
     F::Basic,
     S::Generic,
     {T, T, T, T, N, N}},
    {"borrow", BRIG_OPCODE_BORROW, F::Basic, S::Generic, {T, T, T, N, N, N}},
    {"br", BRIG_OPCODE_BR, F::Br, S::Generic, {N, N, N, N, N, N}},
    {"bytealign",
     BRIG_OPCODE_BYTEALIGN,
     F::Basic,
     S::Generic,
     {T, T, T, T, N, N}},
    {"call", BRIG_OPCODE_CALL, F::Br, S::Call, {N, N, N, N, N, N}},
    {"carry", BRIG_OPCODE_CARRY, F::Basic, S::Generic, {T, T, T, N, N, N}},
    {"casqueuewriteindex",
     BRIG_OPCODE_CASQUEUEWRITEINDEX,
     F::Queue,
     S::Generic,
     {T, O::Addr, T, T, N, N}},
    {"cbr", BRIG_OPCODE_CBR, F::Br, S::Generic, {T, N, N, N, N, N}},
    {"ceil", BRIG_OPCODE_CEIL, F::BasicOrMod, S::Generic, {T, T, N, N, N, N}},
    {"class",
     BRIG_OPCODE_CLASS,
     F::SourceType,
     S::Generic,
     {T, ST, U32, N, N, N}},
    {"cleardetectexcept",
     BRIG_OPCODE_CLEARDETECTEXCEPT,
     F::Basic,
     S::Generic,
     {T, N, N, N, N, N}},
    {"clock", BRIG_OPCODE_CLOCK, F::Basic, S::Generic, {T, N, N, N, N, N}},
    {"cmov",
     BRIG_OPCODE_CMOV,
     F::Basic,
     S::Generic,
     {T, O::CmovCond, T, T, N, N}},
    {"cmp", BRIG_OPCODE_CMP, F::Cmp, S::Generic, {T, ST, ST, N, N, N}},
    {"combine",
     BRIG_OPCODE_COMBINE,
     F::SourceType,
     S::Generic,
     {T, ST, N, N, N, N}},
    {"copysign",
     BRIG_OPCODE_COPYSIGN,
     F::BasicOrMod,
     S::Generic,
     {T, T, T, N, N, N}},
    {"cuid", BRIG_OPCODE_CUID, F::Basic, S::Generic, {T, N, N, N, N, N}},
    {"currentworkgroupsize",
     BRIG_OPCODE_CURRENTWORKGROUPSIZE,
     F::Basic,
     S::Generic,
     {T, U32, N, N, N, N}},
    {"currentworkitemflatid",
     BRIG_OPCODE_CURRENTWORKITEMFLATID,
     F::Basic,
     S::Generic,
     {T, N, N, N, N, N}},
    {"cvt", BRIG_OPCODE_CVT, F::Cvt, S::Generic, {T, ST, N, N, N, N}},
    {"debugtrap",
     BRIG_OPCODE_DEBUGTRAP,
     F::Basic,
     S::Generic,
     {T, N, N, N, N, N}},
    {"dim", BRIG_OPCODE_DIM, F::Basic, S::Generic, {T, N, N, N, N, N}},
    {"div", BRIG_OPCODE_DIV, F::BasicOrMod, S::Generic, {T, T, T, N, N, N}},
    {"expand",
     BRIG_OPCODE_EXPAND,
     F::SourceType,
     S::Generic,
     {T, ST, N, N, N, N}},
    {"firstbit",
     BRIG_OPCODE_FIRSTBIT,
     F::SourceType,
     S::Generic,
     {T, ST, N, N, N, N}},
    {"floor", BRIG_OPCODE_FLOOR, F::BasicOrMod, S::Generic, {T, T, N, N, N, N}},
    {"fma", BRIG_OPCODE_FMA, F::BasicOrMod, S::Generic, {T, T, T, T, N, N}},
    {"fract", BRIG_OPCODE_FRACT, F::BasicOrMod, S::Generic, {T, T, N, N, N, N}},
    {"ftos", BRIG_OPCODE_FTOS, F::SegCvt, S::Generic, {T, ST, N, N, N, N}},
    {"getdetectexcept",
     BRIG_OPCODE_GETDETECTEXCEPT,
     F::Basic,
     S::Generic,
     {T, N, N, N, N, N}},
    {"gridgroups",
     BRIG_OPCODE_GRIDGROUPS,
     F::Basic,
     S::Generic,
     {T, U32, N, N, N, N}},
    {"gridsize",
     BRIG_OPCODE_GRIDSIZE,
     F::Basic,
     S::Generic,
     {T, U32, N, N, N, N}},
    {"groupbaseptr",
     BRIG_OPCODE_GROUPBASEPTR,
     F::Basic,
     S::Generic,
     {T, N, N, N, N, N}},
    {"icall", BRIG_OPCODE_ICALL, F::Br, S::Call, {N, N, N, N, N, N}},
    {"imagefence",
     BRIG_OPCODE_IMAGEFENCE,
     F::BasicNoType,
     S::Generic,
     {N, N, N, N, N, N}},
    {"initfbar",
     BRIG_OPCODE_INITFBAR,
     F::BasicNoType,
     S::Generic,
     {U32, N, N, N, N, N}},
    {"joinfbar", BRIG_OPCODE_JOINFBAR, F::Br, S::Generic, {U32, N, N, N, N, N}},
    {"kernargbaseptr",
     BRIG_OPCODE_KERNARGBASEPTR,
     F::Basic,
     S::Generic,
     {T, N, N, N, N, N}},
    {"laneid", BRIG_OPCODE_LANEID, F::Basic, S::Generic, {T, N, N, N, N, N}},
    {"lastbit",
     BRIG_OPCODE_LASTBIT,
     F::SourceType,
     S::Generic,
     {T, ST, N, N, N, N}},
    {"lda", BRIG_OPCODE_LDA, F::Addr, S::Generic, {T, O::Addr, N, N, N, N}},
    {"ld", BRIG_OPCODE_LD, F::Mem, S::Generic, {T, O::Addr, N, N, N, N}},
    {"ldf", BRIG_OPCODE_LDF, F::Basic, S::Generic, {T, U32, N, N, N, N}},
    {"ldimage",
     BRIG_OPCODE_LDIMAGE,
     F::Image,
     S::Generic,
     {T, O::ImgT, O::Coord, N, N, N}},
    {"ldqueuereadindex",
     BRIG_OPCODE_LDQUEUEREADINDEX,
     F::Queue,
     S::Generic,
     {T, O::Addr, N, N, N, N}},
    {"ldqueuewriteindex",
     BRIG_OPCODE_LDQUEUEWRITEINDEX,
     F::Queue,
     S::Generic,
     {T, O::Addr, N, N, N, N}},
    {"leavefbar",
     BRIG_OPCODE_LEAVEFBAR,
     F::Br,
     S::Generic,
     {U32, N, N, N, N, N}},
    {"lerp", BRIG_OPCODE_LERP, F::Basic, S::Generic, {T, T, T, T, N, N}},
    {"mad", BRIG_OPCODE_MAD, F::BasicOrMod, S::Generic, {T, T, T, T, N, N}},
    {"mad24", BRIG_OPCODE_MAD24, F::Basic, S::Generic, {T, T, T, T, N, N}},
    {"mad24hi", BRIG_OPCODE_MAD24HI, F::Basic, S::Generic, {T, T, T, T, N, N}},
    {"max", BRIG_OPCODE_MAX, F::BasicOrMod, S::Generic, {T, T, T, N, N, N}},
    {"maxcuid", BRIG_OPCODE_MAXCUID, F::Basic, S::Generic, {T, N, N, N, N, N}},
    {"maxwaveid",
     BRIG_OPCODE_MAXWAVEID,
     F::Basic,
     S::Generic,
     {T, N, N, N, N, N}},
    {"memfence",
     BRIG_OPCODE_MEMFENCE,
     F::MemFence,
     S::Generic,
     {N, N, N, N, N, N}},
    {"min", BRIG_OPCODE_MIN, F::BasicOrMod, S::Generic, {T, T, T, N, N, N}},
    {"mov", BRIG_OPCODE_MOV, F::Basic, S::Generic, {T, T, N, N, N, N}},
    {"mul", BRIG_OPCODE_MUL, F::BasicOrMod, S::Generic, {T, T, T, N, N, N}},
    {"mul24", BRIG_OPCODE_MUL24, F::Basic, S::Generic, {T, T, T, N, N, N}},
    {"mul24hi", BRIG_OPCODE_MUL24HI, F::Basic, S::Generic, {T, T, T, N, N, N}},
    {"mulhi", BRIG_OPCODE_MULHI, F::BasicOrMod, S::Generic, {T, T, T, N, N, N}},
    {"ncos", BRIG_OPCODE_NCOS, F::Basic, S::Generic, {T, T, N, N, N, N}},
    {"neg", BRIG_OPCODE_NEG, F::BasicOrMod, S::Generic, {T, T, N, N, N, N}},
    {"nexp2", BRIG_OPCODE_NEXP2, F::Basic, S::Generic, {T, T, N, N, N, N}},
    {"nfma", BRIG_OPCODE_NFMA, F::Basic, S::Generic, {T, T, T, T, N, N}},
    {"nlog2", BRIG_OPCODE_NLOG2, F::Basic, S::Generic, {T, T, N, N, N, N}},
    {"nop", BRIG_OPCODE_NOP, F::Nop, S::Generic, {N, N, N, N, N, N}},
    {"not", BRIG_OPCODE_NOT, F::Basic, S::Generic, {T, T, N, N, N, N}},
    {"nrcp", BRIG_OPCODE_NRCP, F::Basic, S::Generic, {T, T, N, N, N, N}},
    {"nrsqrt", BRIG_OPCODE_NRSQRT, F::Basic, S::Generic, {T, T, N, N, N, N}},
    {"nsin", BRIG_OPCODE_NSIN, F::Basic, S::Generic, {T, T, N, N, N, N}},
    {"nsqrt", BRIG_OPCODE_NSQRT, F::Basic, S::Generic, {T, T, N, N, N, N}},
    {"nullptr", BRIG_OPCODE_NULLPTR, F::Seg, S::Generic, {T, N, N, N, N, N}},
    {"or", BRIG_OPCODE_OR, F::Basic, S::Generic, {T, T, T, N, N, N}},
    {"pack",
     BRIG_OPCODE_PACK,
     F::SourceType,
     S::Generic,
     {T, T, ST, U32, N, N}},
    {"packcvt",
     BRIG_OPCODE_PACKCVT,
     F::SourceType,
     S::Generic,
     {T, ST, ST, ST, ST, N}},
    {"packetcompletionsig",
     BRIG_OPCODE_PACKETCOMPLETIONSIG,
     F::Basic,
     S::Generic,
     {T, N, N, N, N, N}},
    {"packetid",
     BRIG_OPCODE_PACKETID,
     F::Basic,
     S::Generic,
     {T, N, N, N, N, N}},
    {"popcount",
     BRIG_OPCODE_POPCOUNT,
     F::SourceType,
     S::Generic,
     {T, ST, N, N, N, N}},
    {"querysampler",
     BRIG_OPCODE_QUERYSAMPLER,
     F::QuerySampler,
     S::Generic,
     {T, O::Samp, N, N, N, N}},
    {"queryimage",
     BRIG_OPCODE_QUERYIMAGE,
     F::QueryImage,
     S::Generic,
     {T, O::ImgT, N, N, N, N}},
    {"rdimage",
     BRIG_OPCODE_RDIMAGE,
     F::Image,
     S::Generic,
     {T, O::ImgT, O::Samp, O::Coord, N, N}},
    {"releasefbar",
     BRIG_OPCODE_RELEASEFBAR,
     F::BasicNoType,
     S::Generic,
     {U32, N, N, N, N, N}},
    {"rem", BRIG_OPCODE_REM, F::Basic, S::Generic, {T, T, T, N, N, N}},
    {"ret", BRIG_OPCODE_RET, F::BasicNoType, S::Generic, {N, N, N, N, N, N}},
    {"rint", BRIG_OPCODE_RINT, F::BasicOrMod, S::Generic, {T, T, N, N, N, N}},
    {"sad", BRIG_OPCODE_SAD, F::SourceType, S::Generic, {T, ST, ST, U32, N, N}},
    {"sadhi",
     BRIG_OPCODE_SADHI,
     F::SourceType,
     S::Generic,
     {T, ST, ST, T, N, N}},
    {"sbr", BRIG_OPCODE_SBR, F::Br, S::Sbr, {T, N, N, N, N, N}},
    {"scall", BRIG_OPCODE_SCALL, F::Br, S::Call, {N, N, N, N, N, N}},
    {"segmentp",
     BRIG_OPCODE_SEGMENTP,
     F::SegCvt,
     S::Generic,
     {T, ST, N, N, N, N}},
    {"setdetectexcept",
     BRIG_OPCODE_SETDETECTEXCEPT,
     F::Basic,
     S::Generic,
     {T, N, N, N, N, N}},
    {"shl", BRIG_OPCODE_SHL, F::Basic, S::Generic, {T, T, U32, N, N, N}},
    {"shr", BRIG_OPCODE_SHR, F::Basic, S::Generic, {T, T, U32, N, N, N}},
    {"shuffle",
     BRIG_OPCODE_SHUFFLE,
     F::Basic,
     S::Generic,
     {T, T, T, O::B32, N, N}},
    {"signal",
     BRIG_OPCODE_SIGNAL,
     F::Signal,
     S::Generic,
     {T, O::Sig, T, O::WaitTimeout, N, N}},
    {"signalnoret",
     BRIG_OPCODE_SIGNALNORET,
     F::Signal,
     S::Generic,
     {O::Sig, T, N, N, N, N}},
    {"sqrt", BRIG_OPCODE_SQRT, F::BasicOrMod, S::Generic, {T, T, N, N, N, N}},
    {"st", BRIG_OPCODE_ST, F::Mem, S::Generic, {T, O::Addr, N, N, N, N}},
    {"stimage",
     BRIG_OPCODE_STIMAGE,
     F::Image,
     S::Generic,
     {T, O::ImgT, O::Coord, N, N, N}},
    {"stof", BRIG_OPCODE_STOF, F::SegCvt, S::Generic, {T, ST, N, N, N, N}},
    {"stqueuereadindex",
     BRIG_OPCODE_STQUEUEREADINDEX,
     F::Queue,
     S::Generic,
     {O::Addr, T, N, N, N, N}},
    {"stqueuewriteindex",
     BRIG_OPCODE_STQUEUEWRITEINDEX,
     F::Queue,
     S::Generic,
     {O::Addr, T, N, N, N, N}},
    {"sub", BRIG_OPCODE_SUB, F::BasicOrMod, S::Generic, {T, T, T, N, N, N}},
    {"trunc", BRIG_OPCODE_TRUNC, F::BasicOrMod, S::Generic, {T, T, N, N, N, N}},
    {"unpack",
     BRIG_OPCODE_UNPACK,
     F::SourceType,
     S::Generic,
     {T, ST, U32, N, N, N}},
    {"unpackcvt",
     BRIG_OPCODE_UNPACKCVT,
     F::SourceType,
     S::Generic,
     {T, ST, U32, N, N, N}},
    {"unpackhi",
     BRIG_OPCODE_UNPACKHI,
     F::Basic,
     S::Generic,
     {T, T, T, N, N, N}},
    {"unpacklo",
     BRIG_OPCODE_UNPACKLO,
     F::Basic,
     S::Generic,
     {T, T, T, N, N, N}},
    {"waitfbar", BRIG_OPCODE_WAITFBAR, F::Br, S::Generic, {U32, N, N, N, N, N}},
    {"wavebarrier",
     BRIG_OPCODE_WAVEBARRIER,
     F::Br,
     S::Generic,
     {N, N, N, N, N, N}},
    {"waveid", BRIG_OPCODE_WAVEID, F::Basic, S::Generic, {T, N, N, N, N, N}},
    {"workgroupid",
     BRIG_OPCODE_WORKGROUPID,
     F::Basic,
     S::Generic,
     {T, U32, N, N, N, N}},
    {"workgroupsize",
     BRIG_OPCODE_WORKGROUPSIZE,
     F::Basic,
     S::Generic,
     {T, U32, N, N, N, N}},
    {"workitemabsid",
     BRIG_OPCODE_WORKITEMABSID,
     F::Basic,
     S::Generic,
     {T, U32, N, N, N, N}},
    {"workitemflatabsid",
     BRIG_OPCODE_WORKITEMFLATABSID,
     F::Basic,
     S::Generic,
     {T, N, N, N, N, N}},
    {"workitemflatid",
     BRIG_OPCODE_WORKITEMFLATID,
     F::Basic,
     S::Generic,
     {T, N, N, N, N, N}},
    {"workitemid",
     BRIG_OPCODE_WORKITEMID,
     F::Basic,
     S::Generic,
     {T, U32, N, N, N, N}},
    {"xor", BRIG_OPCODE_XOR, F::Basic, S::Generic, {T, T, T, N, N, N}},
};

template <typename V> struct Spelling {
  llvm::StringLiteral Name;
  V Value;
};

const Spelling<uint16_t> Types[] = {
    {"u8", BRIG_TYPE_U8},       {"u16", BRIG_TYPE_U16},
    {"u32", BRIG_TYPE_U32},     {"u64", BRIG_TYPE_U64},
    {"s8", BRIG_TYPE_S8},       {"s16", BRIG_TYPE_S16},
    {"s32", BRIG_TYPE_S32},     {"s64", BRIG_TYPE_S64},
    {"f16", BRIG_TYPE_F16},     {"f32", BRIG_TYPE_F32},
    {"f64", BRIG_TYPE_F64},     {"b1", BRIG_TYPE_B1},
    {"b8", BRIG_TYPE_B8},       {"b16", BRIG_TYPE_B16},
    {"b32", BRIG_TYPE_B32},     {"b64", BRIG_TYPE_B64},
    {"b128", BRIG_TYPE_B128},   {"samp", BRIG_TYPE_SAMP},
    {"roimg", BRIG_TYPE_ROIMG}, {"woimg", BRIG_TYPE_WOIMG},
    {"rwimg", BRIG_TYPE_RWIMG}, {"sig32", BRIG_TYPE_SIG32},
    {"sig64", BRIG_TYPE_SIG64}, {"u8x4", BRIG_TYPE_U8X4},
    {"u8x8", BRIG_TYPE_U8X8},   {"u8x16", BRIG_TYPE_U8X16},
    {"u16x2", BRIG_TYPE_U16X2}, {"u16x4", BRIG_TYPE_U16X4},
    {"u16x8", BRIG_TYPE_U16X8}, {"u32x2", BRIG_TYPE_U32X2},
    {"u32x4", BRIG_TYPE_U32X4}, {"u64x2", BRIG_TYPE_U64X2},
    {"s8x4", BRIG_TYPE_S8X4},   {"s8x8", BRIG_TYPE_S8X8},
    {"s8x16", BRIG_TYPE_S8X16}, {"s16x2", BRIG_TYPE_S16X2},
    {"s16x4", BRIG_TYPE_S16X4}, {"s16x8", BRIG_TYPE_S16X8},
    {"s32x2", BRIG_TYPE_S32X2}, {"s32x4", BRIG_TYPE_S32X4},
    {"s64x2", BRIG_TYPE_S64X2}, {"f16x2", BRIG_TYPE_F16X2},
    {"f16x4", BRIG_TYPE_F16X4}, {"f16x8", BRIG_TYPE_F16X8},
    {"f32x2", BRIG_TYPE_F32X2}, {"f32x4", BRIG_TYPE_F32X4},
    {"f64x2", BRIG_TYPE_F64X2},
};

const Spelling<uint8_t> Segments[] = {
    {"global", BRIG_SEGMENT_GLOBAL},     {"group", BRIG_SEGMENT_GROUP},
    {"private", BRIG_SEGMENT_PRIVATE},   {"kernarg", BRIG_SEGMENT_KERNARG},
    {"readonly", BRIG_SEGMENT_READONLY}, {"spill", BRIG_SEGMENT_SPILL},
    {"arg", BRIG_SEGMENT_ARG},
    // No "flat": a flat address is written without a segment modifier.
};

const Spelling<uint8_t> Roundings[] = {
    {"near", BRIG_ROUND_FLOAT_NEAR_EVEN},
    {"zero", BRIG_ROUND_FLOAT_ZERO},
    {"up", BRIG_ROUND_FLOAT_PLUS_INFINITY},
    {"down", BRIG_ROUND_FLOAT_MINUS_INFINITY},
    {"neari", BRIG_ROUND_INTEGER_NEAR_EVEN},
    {"zeroi", BRIG_ROUND_INTEGER_ZERO},
    {"upi", BRIG_ROUND_INTEGER_PLUS_INFINITY},
    {"downi", BRIG_ROUND_INTEGER_MINUS_INFINITY},
    {"neari_sat", BRIG_ROUND_INTEGER_NEAR_EVEN_SAT},
    {"zeroi_sat", BRIG_ROUND_INTEGER_ZERO_SAT},
    {"upi_sat", BRIG_ROUND_INTEGER_PLUS_INFINITY_SAT},
    {"downi_sat", BRIG_ROUND_INTEGER_MINUS_INFINITY_SAT},
    {"sneari", BRIG_ROUND_INTEGER_SIGNALING_NEAR_EVEN},
    {"szeroi", BRIG_ROUND_INTEGER_SIGNALING_ZERO},
    {"supi", BRIG_ROUND_INTEGER_SIGNALING_PLUS_INFINITY},
    {"sdowni", BRIG_ROUND_INTEGER_SIGNALING_MINUS_INFINITY},
    {"sneari_sat", BRIG_ROUND_INTEGER_SIGNALING_NEAR_EVEN_SAT},
    {"szeroi_sat", BRIG_ROUND_INTEGER_SIGNALING_ZERO_SAT},
    {"supi_sat", BRIG_ROUND_INTEGER_SIGNALING_PLUS_INFINITY_SAT},
    {"sdowni_sat", BRIG_ROUND_INTEGER_SIGNALING_MINUS_INFINITY_SAT},
};

const Spelling<uint8_t> Packings[] = {
    {"pp", BRIG_PACK_PP},        {"ps", BRIG_PACK_PS},
    {"sp", BRIG_PACK_SP},        {"ss", BRIG_PACK_SS},
    {"s", BRIG_PACK_S},          {"p", BRIG_PACK_P},
    {"pp_sat", BRIG_PACK_PPSAT}, {"ps_sat", BRIG_PACK_PSSAT},
    {"sp_sat", BRIG_PACK_SPSAT}, {"ss_sat", BRIG_PACK_SSSAT},
    {"s_sat", BRIG_PACK_SSAT},   {"p_sat", BRIG_PACK_PSAT},
};

const Spelling<uint8_t> Compares[] = {
    {"eq", BRIG_COMPARE_EQ},     {"ne", BRIG_COMPARE_NE},
    {"lt", BRIG_COMPARE_LT},     {"le", BRIG_COMPARE_LE},
    {"gt", BRIG_COMPARE_GT},     {"ge", BRIG_COMPARE_GE},
    {"equ", BRIG_COMPARE_EQU},   {"neu", BRIG_COMPARE_NEU},
    {"ltu", BRIG_COMPARE_LTU},   {"leu", BRIG_COMPARE_LEU},
    {"gtu", BRIG_COMPARE_GTU},   {"geu", BRIG_COMPARE_GEU},
    {"num", BRIG_COMPARE_NUM},   {"nan", BRIG_COMPARE_NAN},
    {"seq", BRIG_COMPARE_SEQ},   {"sne", BRIG_COMPARE_SNE},
    {"slt", BRIG_COMPARE_SLT},   {"sle", BRIG_COMPARE_SLE},
    {"sgt", BRIG_COMPARE_SGT},   {"sge", BRIG_COMPARE_SGE},
    {"sgeu", BRIG_COMPARE_SGEU}, {"sequ", BRIG_COMPARE_SEQU},
    {"sneu", BRIG_COMPARE_SNEU}, {"sltu", BRIG_COMPARE_SLTU},
    {"sleu", BRIG_COMPARE_SLEU}, {"snum", BRIG_COMPARE_SNUM},
    {"snan", BRIG_COMPARE_SNAN}, {"sgtu", BRIG_COMPARE_SGTU},
};

const Spelling<uint8_t> AtomicOps[] = {
    {"add", BRIG_ATOMIC_ADD},
    {"and", BRIG_ATOMIC_AND},
    {"cas", BRIG_ATOMIC_CAS},
    {"exch", BRIG_ATOMIC_EXCH},
    {"ld", BRIG_ATOMIC_LD},
    {"max", BRIG_ATOMIC_MAX},
    {"min", BRIG_ATOMIC_MIN},
    {"or", BRIG_ATOMIC_OR},
    {"st", BRIG_ATOMIC_ST},
    {"sub", BRIG_ATOMIC_SUB},
    {"wrapdec", BRIG_ATOMIC_WRAPDEC},
    {"wrapinc", BRIG_ATOMIC_WRAPINC},
    {"xor", BRIG_ATOMIC_XOR},
    {"wait_eq", BRIG_ATOMIC_WAIT_EQ},
    {"wait_ne", BRIG_ATOMIC_WAIT_NE},
    {"wait_lt", BRIG_ATOMIC_WAIT_LT},
    {"wait_gte", BRIG_ATOMIC_WAIT_GTE},
    {"waittimeout_eq", BRIG_ATOMIC_WAITTIMEOUT_EQ},
    {"waittimeout_ne", BRIG_ATOMIC_WAITTIMEOUT_NE},
    {"waittimeout_lt", BRIG_ATOMIC_WAITTIMEOUT_LT},
    {"waittimeout_gte", BRIG_ATOMIC_WAITTIMEOUT_GTE},
};

const Spelling<uint8_t> MemoryOrders[] = {
    {"rlx", BRIG_MEMORY_ORDER_RELAXED},
    {"scacq", BRIG_MEMORY_ORDER_SC_ACQUIRE},
    {"screl", BRIG_MEMORY_ORDER_SC_RELEASE},
    {"scar", BRIG_MEMORY_ORDER_SC_ACQUIRE_RELEASE},
};

const Spelling<uint8_t> MemoryScopes[] = {
    {"wi", BRIG_MEMORY_SCOPE_WORKITEM},   {"wave", BRIG_MEMORY_SCOPE_WAVEFRONT},
    {"wg", BRIG_MEMORY_SCOPE_WORKGROUP},  {"agent", BRIG_MEMORY_SCOPE_AGENT},
    {"system", BRIG_MEMORY_SCOPE_SYSTEM},
};

const Spelling<uint8_t> Geometries[] = {
    {"1d", BRIG_GEOMETRY_1D},           {"2d", BRIG_GEOMETRY_2D},
    {"3d", BRIG_GEOMETRY_3D},           {"1da", BRIG_GEOMETRY_1DA},
    {"2da", BRIG_GEOMETRY_2DA},         {"1db", BRIG_GEOMETRY_1DB},
    {"2ddepth", BRIG_GEOMETRY_2DDEPTH}, {"2dadepth", BRIG_GEOMETRY_2DADEPTH},
};

const Spelling<uint8_t> ImageQueries[] = {
    {"width", BRIG_IMAGE_QUERY_WIDTH},
    {"height", BRIG_IMAGE_QUERY_HEIGHT},
    {"depth", BRIG_IMAGE_QUERY_DEPTH},
    {"array", BRIG_IMAGE_QUERY_ARRAY},
    {"channelorder", BRIG_IMAGE_QUERY_CHANNELORDER},
    {"channeltype", BRIG_IMAGE_QUERY_CHANNELTYPE},
};

const Spelling<uint8_t> SamplerQueries[] = {
    {"addressing", BRIG_SAMPLER_QUERY_ADDRESSING},
    {"coord", BRIG_SAMPLER_QUERY_COORD},
    {"filter", BRIG_SAMPLER_QUERY_FILTER},
};

const Spelling<uint16_t> Controls[] = {
    {"enablebreakexceptions", BRIG_CONTROL_ENABLEBREAKEXCEPTIONS},
    {"enabledetectexceptions", BRIG_CONTROL_ENABLEDETECTEXCEPTIONS},
    {"maxdynamicgroupsize", BRIG_CONTROL_MAXDYNAMICGROUPSIZE},
    {"maxflatgridsize", BRIG_CONTROL_MAXFLATGRIDSIZE},
    {"maxflatworkgroupsize", BRIG_CONTROL_MAXFLATWORKGROUPSIZE},
    {"requireddim", BRIG_CONTROL_REQUIREDDIM},
    {"requiredgridsize", BRIG_CONTROL_REQUIREDGRIDSIZE},
    {"requiredworkgroupsize", BRIG_CONTROL_REQUIREDWORKGROUPSIZE},
    {"requirenopartialworkgroups", BRIG_CONTROL_REQUIRENOPARTIALWORKGROUPS},
};

const Spelling<uint8_t> ChannelOrders[] = {
    {"a", BRIG_CHANNEL_ORDER_A},
    {"r", BRIG_CHANNEL_ORDER_R},
    {"rx", BRIG_CHANNEL_ORDER_RX},
    {"rg", BRIG_CHANNEL_ORDER_RG},
    {"rgx", BRIG_CHANNEL_ORDER_RGX},
    {"ra", BRIG_CHANNEL_ORDER_RA},
    {"rgb", BRIG_CHANNEL_ORDER_RGB},
    {"rgbx", BRIG_CHANNEL_ORDER_RGBX},
    {"rgba", BRIG_CHANNEL_ORDER_RGBA},
    {"bgra", BRIG_CHANNEL_ORDER_BGRA},
    {"argb", BRIG_CHANNEL_ORDER_ARGB},
    {"abgr", BRIG_CHANNEL_ORDER_ABGR},
    {"srgb", BRIG_CHANNEL_ORDER_SRGB},
    {"srgbx", BRIG_CHANNEL_ORDER_SRGBX},
    {"srgba", BRIG_CHANNEL_ORDER_SRGBA},
    {"sbgra", BRIG_CHANNEL_ORDER_SBGRA},
    {"intensity", BRIG_CHANNEL_ORDER_INTENSITY},
    {"luminance", BRIG_CHANNEL_ORDER_LUMINANCE},
    {"depth", BRIG_CHANNEL_ORDER_DEPTH},
    {"depth_stencil", BRIG_CHANNEL_ORDER_DEPTH_STENCIL},
};

const Spelling<uint8_t> ChannelTypes[] = {
    {"snorm_int8", BRIG_CHANNEL_TYPE_SNORM_INT8},
    {"snorm_int16", BRIG_CHANNEL_TYPE_SNORM_INT16},
    {"unorm_int8", BRIG_CHANNEL_TYPE_UNORM_INT8},
    {"unorm_int16", BRIG_CHANNEL_TYPE_UNORM_INT16},
    {"unorm_int24", BRIG_CHANNEL_TYPE_UNORM_INT24},
    {"unorm_short_555", BRIG_CHANNEL_TYPE_UNORM_SHORT_555},
    {"unorm_short_565", BRIG_CHANNEL_TYPE_UNORM_SHORT_565},
    {"unorm_int_101010", BRIG_CHANNEL_TYPE_UNORM_INT_101010},
    {"signed_int8", BRIG_CHANNEL_TYPE_SIGNED_INT8},
    {"signed_int16", BRIG_CHANNEL_TYPE_SIGNED_INT16},
    {"signed_int32", BRIG_CHANNEL_TYPE_SIGNED_INT32},
    {"unsigned_int8", BRIG_CHANNEL_TYPE_UNSIGNED_INT8},
    {"unsigned_int16", BRIG_CHANNEL_TYPE_UNSIGNED_INT16},
    {"unsigned_int32", BRIG_CHANNEL_TYPE_UNSIGNED_INT32},
    {"half_float", BRIG_CHANNEL_TYPE_HALF_FLOAT},
    {"float", BRIG_CHANNEL_TYPE_FLOAT},
};

const Spelling<uint8_t> SamplerCoords[] = {
    {"normalized", BRIG_COORD_NORMALIZED},
    {"unnormalized", BRIG_COORD_UNNORMALIZED},
};

const Spelling<uint8_t> SamplerFilters[] = {
    {"nearest", BRIG_FILTER_NEAREST},
    {"linear", BRIG_FILTER_LINEAR},
};

const Spelling<uint8_t> SamplerAddressings[] = {
    {"undefined", BRIG_ADDRESSING_UNDEFINED},
    {"clamp_to_edge", BRIG_ADDRESSING_CLAMP_TO_EDGE},
    {"clamp_to_border", BRIG_ADDRESSING_CLAMP_TO_BORDER},
    {"repeat", BRIG_ADDRESSING_REPEAT},
    {"mirrored_repeat", BRIG_ADDRESSING_MIRRORED_REPEAT},
};

template <typename V, size_t K>
std::optional<V> find(const Spelling<V> (&Table)[K], llvm::StringRef S) {
  for (const auto &E : Table)
    if (E.Name == S)
      return E.Value;
  return std::nullopt;
}

template <typename V, size_t K>
size_t longest(const Spelling<V> (&Table)[K], llvm::StringRef S,
               unsigned &Out) {
  size_t Best = 0;
  for (const auto &E : Table) {
    size_t L = E.Name.size();
    if (L <= Best || !S.starts_with(E.Name))
      continue;
    if (L < S.size() && llvm::isAlnum(S[L]))
      continue;
    Best = L;
    Out = E.Value;
  }
  return Best;
}

} // namespace

const OpcodeInfo *lookupOpcode(llvm::StringRef Name) {
  for (const OpcodeInfo &I : Opcodes)
    if (I.Name == Name)
      return &I;
  return nullptr;
}

const OpcodeInfo *opcodeInfo(unsigned Opcode) {
  for (const OpcodeInfo &I : Opcodes)
    if (I.Opcode == Opcode)
      return &I;
  return nullptr;
}

std::optional<uint16_t> lookupType(llvm::StringRef S) { return find(Types, S); }
std::optional<uint8_t> lookupSegment(llvm::StringRef S) {
  return find(Segments, S);
}
std::optional<uint8_t> lookupRounding(llvm::StringRef S) {
  return find(Roundings, S);
}
std::optional<uint8_t> lookupPacking(llvm::StringRef S) {
  return find(Packings, S);
}
std::optional<uint8_t> lookupCompare(llvm::StringRef S) {
  return find(Compares, S);
}
std::optional<uint8_t> lookupAtomicOp(llvm::StringRef S) {
  return find(AtomicOps, S);
}
std::optional<uint8_t> lookupMemoryOrder(llvm::StringRef S) {
  return find(MemoryOrders, S);
}
std::optional<uint8_t> lookupMemoryScope(llvm::StringRef S) {
  return find(MemoryScopes, S);
}
std::optional<uint8_t> lookupGeometry(llvm::StringRef S) {
  return find(Geometries, S);
}
std::optional<uint8_t> lookupImageQuery(llvm::StringRef S) {
  return find(ImageQueries, S);
}
std::optional<uint8_t> lookupSamplerQuery(llvm::StringRef S) {
  return find(SamplerQueries, S);
}
std::optional<uint16_t> lookupControl(llvm::StringRef S) {
  return find(Controls, S);
}
std::optional<uint8_t> lookupImageGeometryProp(llvm::StringRef S) {
  return find(Geometries, S);
}
std::optional<uint8_t> lookupChannelOrder(llvm::StringRef S) {
  return find(ChannelOrders, S);
}
std::optional<uint8_t> lookupChannelType(llvm::StringRef S) {
  return find(ChannelTypes, S);
}
std::optional<uint8_t> lookupSamplerCoord(llvm::StringRef S) {
  return find(SamplerCoords, S);
}
std::optional<uint8_t> lookupSamplerFilter(llvm::StringRef S) {
  return find(SamplerFilters, S);
}
std::optional<uint8_t> lookupSamplerAddressing(llvm::StringRef S) {
  return find(SamplerAddressings, S);
}

size_t matchModifier(ModCat Cat, llvm::StringRef S, unsigned &ValueOut) {
  switch (Cat) {
  case ModCat::Type:
    return longest(Types, S, ValueOut);
  case ModCat::Segment:
    return longest(Segments, S, ValueOut);
  case ModCat::Rounding:
    return longest(Roundings, S, ValueOut);
  case ModCat::Packing:
    return longest(Packings, S, ValueOut);
  case ModCat::Compare:
    return longest(Compares, S, ValueOut);
  case ModCat::AtomicOp:
    return longest(AtomicOps, S, ValueOut);
  case ModCat::MemoryOrder:
    return longest(MemoryOrders, S, ValueOut);
  case ModCat::MemoryScope:
    return longest(MemoryScopes, S, ValueOut);
  case ModCat::Geometry:
    return longest(Geometries, S, ValueOut);
  case ModCat::ImageQuery:
    return longest(ImageQueries, S, ValueOut);
  case ModCat::SamplerQuery:
    return longest(SamplerQueries, S, ValueOut);
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Type helpers
//===----------------------------------------------------------------------===//

unsigned typeBits(unsigned T) {
  if (T & BRIG_TYPE_PACK_MASK) {
    switch (T & BRIG_TYPE_PACK_MASK) {
    case BRIG_TYPE_PACK_32:
      return 32;
    case BRIG_TYPE_PACK_64:
      return 64;
    case BRIG_TYPE_PACK_128:
      return 128;
    }
  }
  switch (T & BRIG_TYPE_BASE_MASK) {
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
  case BRIG_TYPE_SIG32: // signal handles are 64-bit in both machine models
  case BRIG_TYPE_SIG64:
    return 64;
  case BRIG_TYPE_B128:
    return 128;
  case BRIG_TYPE_B1:
    return 1;
  default:
    return 0;
  }
}

bool isBitType(unsigned T) {
  return T == BRIG_TYPE_B1 || T == BRIG_TYPE_B8 || T == BRIG_TYPE_B16 ||
         T == BRIG_TYPE_B32 || T == BRIG_TYPE_B64 || T == BRIG_TYPE_B128;
}
bool isSignedType(unsigned T) {
  return T == BRIG_TYPE_S8 || T == BRIG_TYPE_S16 || T == BRIG_TYPE_S32 ||
         T == BRIG_TYPE_S64;
}
bool isUnsignedType(unsigned T) {
  return T == BRIG_TYPE_U8 || T == BRIG_TYPE_U16 || T == BRIG_TYPE_U32 ||
         T == BRIG_TYPE_U64;
}
bool isFloatType(unsigned T) {
  return T == BRIG_TYPE_F16 || T == BRIG_TYPE_F32 || T == BRIG_TYPE_F64;
}
bool isPackedType(unsigned T) {
  return !brigTypeIsArray(T) && (T & BRIG_TYPE_PACK_MASK) != 0;
}
bool isFloatPackedType(unsigned T) {
  return isPackedType(T) && isFloatType(T & BRIG_TYPE_BASE_MASK);
}
bool isImageType(unsigned T) {
  return T == BRIG_TYPE_ROIMG || T == BRIG_TYPE_WOIMG || T == BRIG_TYPE_RWIMG;
}
bool isSignalType(unsigned T) {
  return T == BRIG_TYPE_SIG32 || T == BRIG_TYPE_SIG64;
}

unsigned unsignedTypeOfSize(unsigned Bits) {
  switch (Bits) {
  case 8:
    return BRIG_TYPE_U8;
  case 16:
    return BRIG_TYPE_U16;
  case 32:
    return BRIG_TYPE_U32;
  case 64:
    return BRIG_TYPE_U64;
  default:
    return BRIG_TYPE_NONE;
  }
}

unsigned bitTypeOfSize(unsigned Bits) {
  switch (Bits) {
  case 1:
    return BRIG_TYPE_B1;
  case 8:
    return BRIG_TYPE_B8;
  case 16:
    return BRIG_TYPE_B16;
  case 32:
    return BRIG_TYPE_B32;
  case 64:
    return BRIG_TYPE_B64;
  case 128:
    return BRIG_TYPE_B128;
  default:
    return BRIG_TYPE_NONE;
  }
}

unsigned bitTypeToUnsigned(unsigned T) {
  switch (T) {
  case BRIG_TYPE_B8:
    return BRIG_TYPE_U8;
  case BRIG_TYPE_B16:
    return BRIG_TYPE_U16;
  case BRIG_TYPE_B32:
    return BRIG_TYPE_U32;
  case BRIG_TYPE_B64:
    return BRIG_TYPE_U64;
  case BRIG_TYPE_B128:
    return BRIG_TYPE_U8X16;
  case BRIG_TYPE_B1:
    return BRIG_TYPE_U8; // stored in one byte
  default:
    return T;
  }
}

unsigned packedToUnsigned(unsigned T) {
  if (!isPackedType(T))
    return T;
  unsigned Base = T & BRIG_TYPE_BASE_MASK;
  unsigned UBase = unsignedTypeOfSize(typeBits(Base));
  return UBase | (T & BRIG_TYPE_PACK_MASK);
}

unsigned alignmentFromBytes(uint64_t Bytes) {
  unsigned A = BRIG_ALIGNMENT_1;
  for (uint64_t V = 1; V <= 256; V <<= 1, ++A)
    if (V == Bytes)
      return A;
  return BRIG_ALIGNMENT_LAST + 1;
}

unsigned alignmentBytes(unsigned Align) {
  if (Align == BRIG_ALIGNMENT_NONE)
    return 0;
  return 1u << (Align - 1);
}

unsigned naturalAlignment(unsigned T) {
  unsigned Bits = typeBits(brigTypeArrayElement(T));
  if (Bits <= 8)
    return BRIG_ALIGNMENT_1;
  return alignmentFromBytes(Bits / 8);
}

/// Default rounding of an InstMod instruction (PRM 4.19.2): float rounding
/// for the arithmetic operations that round, none otherwise.
uint8_t defaultModRounding(unsigned Opcode, unsigned Type) {
  bool IsFloat = isFloatType(Type) || isFloatPackedType(Type);
  switch (Opcode) {
  case BRIG_OPCODE_ADD:
  case BRIG_OPCODE_SUB:
  case BRIG_OPCODE_MUL:
  case BRIG_OPCODE_DIV:
  case BRIG_OPCODE_MAD:
  case BRIG_OPCODE_FMA:
  case BRIG_OPCODE_SQRT:
  case BRIG_OPCODE_FRACT:
    return IsFloat ? BRIG_ROUND_FLOAT_DEFAULT : BRIG_ROUND_NONE;
  default:
    return BRIG_ROUND_NONE;
  }
}

/// Default rounding of cvt (PRM 5.19.3).
uint8_t defaultCvtRounding(unsigned Dst, unsigned Src) {
  bool DstF = isFloatType(Dst), SrcF = isFloatType(Src);
  bool DstInt = isSignedType(Dst) || isUnsignedType(Dst);
  bool SrcInt = isSignedType(Src) || isUnsignedType(Src);
  if (SrcInt && DstF)
    return BRIG_ROUND_FLOAT_DEFAULT;
  if (SrcF && DstInt)
    return BRIG_ROUND_INTEGER_ZERO;
  if (SrcF && DstF && typeBits(Dst) < typeBits(Src))
    return BRIG_ROUND_FLOAT_DEFAULT;
  return BRIG_ROUND_NONE;
}

} // namespace openhsa::brig::assembler
