//===- brig/InstTable.cpp - One description of every HSAIL opcode ---------===//
//
// Part of openhsa. Rows follow PRM 18.7 (BRIG Syntax for Instructions).
//
//===----------------------------------------------------------------------===//

#include "brig/InstTable.h"

#include "brig/BrigNames.h"

#include <iterator>

namespace openhsa::brig {

namespace {

constexpr uint32_t BASIC = instFormatBit(BRIG_KIND_INST_BASIC);
constexpr uint32_t MOD = instFormatBit(BRIG_KIND_INST_MOD);
constexpr uint32_t BM = BASIC | MOD;
constexpr uint32_t SRCT = instFormatBit(BRIG_KIND_INST_SOURCE_TYPE);
constexpr uint32_t ADDR = instFormatBit(BRIG_KIND_INST_ADDR);
constexpr uint32_t ATOM = instFormatBit(BRIG_KIND_INST_ATOMIC);
constexpr uint32_t BR = instFormatBit(BRIG_KIND_INST_BR);
constexpr uint32_t CMP = instFormatBit(BRIG_KIND_INST_CMP);
constexpr uint32_t CVT = instFormatBit(BRIG_KIND_INST_CVT);
constexpr uint32_t IMG = instFormatBit(BRIG_KIND_INST_IMAGE);
constexpr uint32_t LANE = instFormatBit(BRIG_KIND_INST_LANE);
constexpr uint32_t MEM = instFormatBit(BRIG_KIND_INST_MEM);
constexpr uint32_t FENCE = instFormatBit(BRIG_KIND_INST_MEM_FENCE);
constexpr uint32_t QIMG = instFormatBit(BRIG_KIND_INST_QUERY_IMAGE);
constexpr uint32_t QSMP = instFormatBit(BRIG_KIND_INST_QUERY_SAMPLER);
constexpr uint32_t QUEUE = instFormatBit(BRIG_KIND_INST_QUEUE);
constexpr uint32_t SEG = instFormatBit(BRIG_KIND_INST_SEG);
constexpr uint32_t SEGCVT = instFormatBit(BRIG_KIND_INST_SEG_CVT);
constexpr uint32_t SIG = instFormatBit(BRIG_KIND_INST_SIGNAL);

using O = OperandRule;
using T = TypeRule;
constexpr O _ = O::None;
constexpr O R = O::Reg;
constexpr O S = O::Src;
constexpr O F = O::SrcNoWs;
constexpr O I = O::Imm;
constexpr O A = O::Addr;

constexpr uint8_t W0 = BRIG_WIDTH_NONE;
constexpr uint8_t W1 = BRIG_WIDTH_1;
constexpr uint8_t WALL = BRIG_WIDTH_ALL;
constexpr uint8_t WWS = BRIG_WIDTH_WAVESIZE;

// clang-format off
const InstInfo Table[] = {
  /* nop */          {BASIC, 0, {_, _, _, _, _}, -1, W0, T::None},
  /* abs */          {BM, 2, {R, F, _, _, _}, -1, W0, T::Numeric},
  /* add */          {BM, 3, {R, S, S, _, _}, -1, W0, T::Numeric},
  /* borrow */       {BM, 3, {R, S, S, _, _}, -1, W0, T::Numeric},
  /* carry */        {BM, 3, {R, S, S, _, _}, -1, W0, T::Numeric},
  /* ceil */         {BM, 2, {R, F, _, _, _}, -1, W0, T::Float},
  /* copysign */     {BM, 3, {R, F, F, _, _}, -1, W0, T::Float},
  /* div */          {BM, 3, {R, S, S, _, _}, -1, W0, T::Numeric},
  /* floor */        {BM, 2, {R, F, _, _, _}, -1, W0, T::Float},
  /* fma */          {BM, 4, {R, F, F, F, _}, -1, W0, T::Float},
  /* fract */        {BM, 2, {R, F, _, _, _}, -1, W0, T::Float},
  /* mad */          {BM, 4, {R, S, S, S, _}, -1, W0, T::Numeric},
  /* max */          {BM, 3, {R, S, S, _, _}, -1, W0, T::Numeric},
  /* min */          {BM, 3, {R, S, S, _, _}, -1, W0, T::Numeric},
  /* mul */          {BM, 3, {R, S, S, _, _}, -1, W0, T::Numeric},
  /* mulhi */        {BM, 3, {R, S, S, _, _}, -1, W0, T::Numeric},
  /* neg */          {BM, 2, {R, S, _, _, _}, -1, W0, T::Numeric},
  /* rem */          {BM, 3, {R, S, S, _, _}, -1, W0, T::Numeric},
  /* rint */         {BM, 2, {R, F, _, _, _}, -1, W0, T::Float},
  /* sqrt */         {BM, 2, {R, F, _, _, _}, -1, W0, T::Float},
  /* sub */          {BM, 3, {R, S, S, _, _}, -1, W0, T::Numeric},
  /* trunc */        {BM, 2, {R, F, _, _, _}, -1, W0, T::Float},
  /* mad24 */        {BASIC, 4, {R, S, S, S, _}, -1, W0, T::Int},
  /* mad24hi */      {BASIC, 4, {R, S, S, S, _}, -1, W0, T::Int},
  /* mul24 */        {BASIC, 3, {R, S, S, _, _}, -1, W0, T::Int},
  /* mul24hi */      {BASIC, 3, {R, S, S, _, _}, -1, W0, T::Int},
  /* shl */          {BM, 3, {R, S, S, _, _}, -1, W0, T::Numeric},
  /* shr */          {BM, 3, {R, S, S, _, _}, -1, W0, T::Numeric},
  /* and */          {BM, 3, {R, S, S, _, _}, -1, W0, T::Bits},
  /* not */          {BM, 2, {R, S, _, _, _}, -1, W0, T::Bits},
  /* or */           {BM, 3, {R, S, S, _, _}, -1, W0, T::Bits},
  /* popcount */     {SRCT, 2, {R, S, _, _, _}, -1, W0, T::Int},
  /* xor */          {BM, 3, {R, S, S, _, _}, -1, W0, T::Bits},
  /* bitextract */   {BASIC, 4, {R, S, S, S, _}, -1, W0, T::Int},
  /* bitinsert */    {BASIC, 5, {R, S, S, S, S}, -1, W0, T::Int},
  /* bitmask */      {BASIC, 3, {R, S, S, _, _}, -1, W0, T::Bits},
  /* bitrev */       {BM, 2, {R, S, _, _, _}, -1, W0, T::Bits},
  /* bitselect */    {BASIC, 4, {R, S, S, S, _}, -1, W0, T::Bits},
  /* firstbit */     {SRCT, 2, {R, S, _, _, _}, -1, W0, T::Int},
  /* lastbit */      {SRCT, 2, {R, S, _, _, _}, -1, W0, T::Int},
  /* combine */      {SRCT, 2, {R, O::SrcList, _, _, _}, 1, W0, T::Bits},
  /* expand */       {SRCT, 2, {O::RegList, S, _, _, _}, 0, W0, T::Bits},
  /* lda */          {ADDR, 2, {R, A, _, _, _}, -1, W0, T::Int},
  /* mov */          {BASIC, 2, {R, S, _, _, _}, -1, W0, T::Any},
  /* shuffle */      {BASIC, 4, {R, S, S, I, _}, -1, W0, T::Numeric},
  /* unpackhi */     {BASIC, 3, {R, S, S, _, _}, -1, W0, T::Numeric},
  /* unpacklo */     {BASIC, 3, {R, S, S, _, _}, -1, W0, T::Numeric},
  /* pack */         {SRCT, 4, {R, S, S, S, _}, -1, W0, T::Numeric},
  /* unpack */       {SRCT, 3, {R, S, S, _, _}, -1, W0, T::Numeric},
  /* cmov */         {BASIC, 4, {R, S, S, S, _}, -1, W0, T::Bits},
  /* class */        {SRCT, 3, {R, F, S, _, _}, -1, W0, T::Bits},
  /* ncos */         {BM, 2, {R, F, _, _, _}, -1, W0, T::Float},
  /* nexp2 */        {BM, 2, {R, F, _, _, _}, -1, W0, T::Float},
  /* nfma */         {BM, 4, {R, F, F, F, _}, -1, W0, T::Float},
  /* nlog2 */        {BM, 2, {R, F, _, _, _}, -1, W0, T::Float},
  /* nrcp */         {BM, 2, {R, F, _, _, _}, -1, W0, T::Float},
  /* nrsqrt */       {BM, 2, {R, F, _, _, _}, -1, W0, T::Float},
  /* nsin */         {BM, 2, {R, F, _, _, _}, -1, W0, T::Float},
  /* nsqrt */        {BM, 2, {R, F, _, _, _}, -1, W0, T::Float},
  /* bitalign */     {BASIC, 4, {R, S, S, S, _}, -1, W0, T::Bits},
  /* bytealign */    {BASIC, 4, {R, S, S, S, _}, -1, W0, T::Bits},
  /* packcvt */      {SRCT, 5, {R, S, S, S, S}, -1, W0, T::Numeric},
  /* unpackcvt */    {SRCT, 3, {R, S, I, _, _}, -1, W0, T::Numeric},
  /* lerp */         {BASIC, 4, {R, S, S, S, _}, -1, W0, T::Numeric},
  /* sad */          {SRCT, 4, {R, S, S, S, _}, -1, W0, T::Int},
  /* sadhi */        {SRCT, 4, {R, S, S, S, _}, -1, W0, T::Numeric},
  /* segmentp */     {SEGCVT, 2, {R, S, _, _, _}, -1, W0, T::B1},
  /* ftos */         {SEGCVT, 2, {R, S, _, _, _}, -1, W0, T::Int},
  /* stof */         {SEGCVT, 2, {R, S, _, _, _}, -1, W0, T::Int},
  /* cmp */          {CMP, 3, {R, S, S, _, _}, -1, W0, T::Any},
  /* cvt */          {CVT, 2, {R, S, _, _, _}, -1, W0, T::Any},
  /* ld */           {MEM, 2, {O::DstVec, A, _, _, _}, 0, W1, T::Any},
  /* st */           {MEM, 2, {O::SrcVec, A, _, _, _}, 0, W0, T::Any},
  /* atomic */       {ATOM, 4, {R, A, S, S, _}, -1, W0, T::Any},
  /* atomicnoret */  {ATOM, 2, {A, S, _, _, _}, -1, W0, T::Any},
  /* signal */       {SIG, 4, {R, R, S, S, _}, -1, W0, T::Any},
  /* signalnoret */  {SIG, 2, {R, S, _, _, _}, -1, W0, T::Any},
  /* memfence */     {FENCE, 0, {_, _, _, _, _}, -1, W0, T::None},
  /* rdimage */      {IMG, 4, {O::DstVec, R, R, O::SrcVec, _}, 0, W0, T::Any},
  /* ldimage */      {IMG, 3, {O::DstVec, R, O::SrcVec, _, _}, 0, W0, T::Any},
  /* stimage */      {IMG, 3, {O::SrcVec, R, O::SrcVec, _, _}, 0, W0, T::Any},
  /* imagefence */   {BASIC, 0, {_, _, _, _, _}, -1, W0, T::None},
  /* queryimage */   {QIMG, 2, {R, R, _, _, _}, -1, W0, T::Int},
  /* querysampler */ {QSMP, 2, {R, R, _, _, _}, -1, W0, T::Int},
  /* cbr */          {BR, 2, {S, O::Label, _, _, _}, -1, W1, T::B1},
  /* br */           {BR, 1, {O::Label, _, _, _, _}, -1, WALL, T::None},
  /* sbr */          {BR, 2, {S, O::Labels, _, _, _}, -1, W1, T::Int},
  /* barrier */      {BR, 0, {_, _, _, _, _}, -1, WALL, T::None},
  /* wavebarrier */  {BR, 0, {_, _, _, _, _}, -1, WWS, T::None},
  /* arrivefbar */   {BR, 1, {O::FbarOrReg, _, _, _, _}, -1, WWS, T::None},
  /* initfbar */     {BASIC, 1, {O::FbarOrReg, _, _, _, _}, -1, W0, T::None},
  /* joinfbar */     {BR, 1, {O::FbarOrReg, _, _, _, _}, -1, WWS, T::None},
  /* leavefbar */    {BR, 1, {O::FbarOrReg, _, _, _, _}, -1, WWS, T::None},
  /* releasefbar */  {BASIC, 1, {O::FbarOrReg, _, _, _, _}, -1, W0, T::None},
  /* waitfbar */     {BR, 1, {O::FbarOrReg, _, _, _, _}, -1, WWS, T::None},
  /* ldf */          {BASIC, 2, {R, O::Fbar, _, _, _}, -1, W0, T::Int},
  /* activelanecount */   {LANE, 2, {R, S, _, _, _}, -1, W1, T::Int},
  /* activelaneid */      {LANE, 1, {R, _, _, _, _}, -1, W1, T::Int},
  /* activelanemask */    {LANE, 2, {O::RegList, S, _, _, _}, 0, W1, T::Bits},
  /* activelanepermute */ {LANE, 5, {R, S, S, S, S}, -1, W1, T::Any},
  /* call */         {BR, 3, {O::Args, O::Func, O::Args, _, _}, -1, WALL, T::None},
  /* scall */        {BR, 4, {O::Args, S, O::Args, O::Funcs, _}, -1, W1, T::Int},
  /* icall */        {BR, 4, {O::Args, R, O::Args, O::Signature, _}, -1, W1, T::Int},
  /* ret */          {BASIC, 0, {_, _, _, _, _}, -1, W0, T::None},
  /* alloca */       {MEM, 2, {R, S, _, _, _}, -1, W0, T::Int},
  /* currentworkgroupsize */  {BASIC, 2, {R, I, _, _, _}, -1, W0, T::Int},
  /* currentworkitemflatid */ {BASIC, 1, {R, _, _, _, _}, -1, W0, T::Int},
  /* dim */          {BASIC, 1, {R, _, _, _, _}, -1, W0, T::Int},
  /* gridgroups */   {BASIC, 2, {R, I, _, _, _}, -1, W0, T::Int},
  /* gridsize */     {BASIC, 2, {R, I, _, _, _}, -1, W0, T::Int},
  /* packetcompletionsig */ {BASIC, 1, {R, _, _, _, _}, -1, W0, T::Any},
  /* packetid */     {BASIC, 1, {R, _, _, _, _}, -1, W0, T::Int},
  /* workgroupid */  {BASIC, 2, {R, I, _, _, _}, -1, W0, T::Int},
  /* workgroupsize */ {BASIC, 2, {R, I, _, _, _}, -1, W0, T::Int},
  /* workitemabsid */ {BASIC, 2, {R, I, _, _, _}, -1, W0, T::Int},
  /* workitemflatabsid */ {BASIC, 1, {R, _, _, _, _}, -1, W0, T::Int},
  /* workitemflatid */ {BASIC, 1, {R, _, _, _, _}, -1, W0, T::Int},
  /* workitemid */   {BASIC, 2, {R, I, _, _, _}, -1, W0, T::Int},
  /* cleardetectexcept */ {BASIC, 1, {I, _, _, _, _}, -1, W0, T::Int},
  /* getdetectexcept */   {BASIC, 1, {R, _, _, _, _}, -1, W0, T::Int},
  /* setdetectexcept */   {BASIC, 1, {I, _, _, _, _}, -1, W0, T::Int},
  /* addqueuewriteindex */ {QUEUE, 3, {R, A, S, _, _}, -1, W0, T::Int},
  /* casqueuewriteindex */ {QUEUE, 4, {R, A, S, S, _}, -1, W0, T::Int},
  /* ldqueuereadindex */   {QUEUE, 2, {R, A, _, _, _}, -1, W0, T::Int},
  /* ldqueuewriteindex */  {QUEUE, 2, {R, A, _, _, _}, -1, W0, T::Int},
  /* stqueuereadindex */   {QUEUE, 2, {A, S, _, _, _}, -1, W0, T::Int},
  /* stqueuewriteindex */  {QUEUE, 2, {A, S, _, _, _}, -1, W0, T::Int},
  /* clock */        {BASIC, 1, {R, _, _, _, _}, -1, W0, T::Int},
  /* cuid */         {BASIC, 1, {R, _, _, _, _}, -1, W0, T::Int},
  /* debugtrap */    {BASIC, 1, {S, _, _, _, _}, -1, W0, T::Int},
  /* groupbaseptr */ {BASIC, 1, {R, _, _, _, _}, -1, W0, T::Int},
  /* kernargbaseptr */ {BASIC, 1, {R, _, _, _, _}, -1, W0, T::Int},
  /* laneid */       {BASIC, 1, {R, _, _, _, _}, -1, W0, T::Int},
  /* maxcuid */      {BASIC, 1, {R, _, _, _, _}, -1, W0, T::Int},
  /* maxwaveid */    {BASIC, 1, {R, _, _, _, _}, -1, W0, T::Int},
  /* nullptr */      {SEG, 1, {R, _, _, _, _}, -1, W0, T::Int},
  /* waveid */       {BASIC, 1, {R, _, _, _, _}, -1, W0, T::Int},
};
// clang-format on
static_assert(std::size(Table) == BRIG_OPCODE_STANDARD_END,
              "one row per opcode");

} // namespace

const InstInfo *instInfo(unsigned Opcode) {
  return Opcode < std::size(Table) ? &Table[Opcode] : nullptr;
}

unsigned expectedOperandCount(unsigned Opcode, unsigned Op) {
  switch (Opcode) {
  case BRIG_OPCODE_ATOMIC:
    if (Op == BRIG_ATOMIC_LD)
      return 2;
    return Op == BRIG_ATOMIC_CAS ? 4 : 3;
  case BRIG_OPCODE_SIGNAL:
    if (Op == BRIG_ATOMIC_LD)
      return 2;
    if (Op == BRIG_ATOMIC_CAS ||
        (Op >= BRIG_ATOMIC_WAITTIMEOUT_EQ && Op <= BRIG_ATOMIC_WAITTIMEOUT_GTE))
      return 4;
    return 3;
  default: {
    const InstInfo *Info = instInfo(Opcode);
    return Info ? Info->NumOperands : 0;
  }
  }
}

unsigned defaultRounding(unsigned Opcode, unsigned Type, unsigned SourceType) {
  if (Opcode == BRIG_OPCODE_CVT && isFloatType(SourceType) && isIntType(Type))
    return BRIG_ROUND_INTEGER_ZERO;
  return BRIG_ROUND_NONE;
}

} // namespace openhsa::brig
