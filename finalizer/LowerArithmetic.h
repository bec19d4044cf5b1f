//===- finalizer/LowerArithmetic.h - Arithmetic lowering helpers -*- C++
//-*-===//
//
// Private to finalizer/: what the arithmetic families (LowerArithmetic.cpp,
// LowerFloat.cpp, LowerConvert.cpp) share: instruction modifiers whatever
// the instruction format, the module's profile and default rounding, and
// packed values taken apart into elements and put back together.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_LOWERARITHMETIC_H
#define OPENHSA_FINALIZER_LOWERARITHMETIC_H

#include "finalizer/FloatEmitter.h"
#include "finalizer/KernelLowering.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace openhsa::finalizer::detail {

/// ftz, rounding and packing of an ALU instruction (InstMod, InstCmp,
/// InstCvt; none for other formats).
struct AluModifiers {
  bool Ftz = false;
  uint8_t Round = BRIG_ROUND_NONE;
  uint8_t Pack = BRIG_PACK_NONE;
};
AluModifiers aluModifiers(const BrigModule &B, EntryRef<BrigInstBase> I);

/// Whether B's module directive asks for the base profile.
bool baseProfile(const BrigModule &B);

/// The floating-point rounding Round (BRIG_ROUND_*) stands for: none and
/// default are the module's default rounding (near unless it says zero).
/// std::nullopt for an integer rounding.
/// The rounding of an instruction of module B with rounding modifier
/// Round; the default is B's ($zero, $near), or for a $default module the
/// program's (ProgramZero: toward zero, else to nearest even).
std::optional<FloatRound> floatRounding(const BrigModule &B, unsigned Round,
                                        bool ProgramZero);

/// Whether Round is a rounding written on the instruction (not none or
/// the default), which the base profile forbids for float roundings.
inline bool explicitFloatRounding(unsigned Round) {
  return Round == BRIG_ROUND_FLOAT_NEAR_EVEN ||
         Round == BRIG_ROUND_FLOAT_ZERO ||
         Round == BRIG_ROUND_FLOAT_PLUS_INFINITY ||
         Round == BRIG_ROUND_FLOAT_MINUS_INFINITY;
}

/// Element type (the base type) and element count of type T; a type that
/// is not packed is its own single element.
inline unsigned elementType(unsigned T) { return T & BRIG_TYPE_BASE_MASK; }
inline unsigned elementCount(unsigned T) {
  return isPacked(T) ? typeBytes(T) * 8 / typeBits(elementType(T)) : 1;
}
inline bool isFloatElement(unsigned T) {
  unsigned E = elementType(T);
  return E == BRIG_TYPE_F16 || E == BRIG_TYPE_F32 || E == BRIG_TYPE_F64;
}
/// The LLVM type of an element of T: half, float, double or iN.
llvm::Type *elementLlvmType(llvm::LLVMContext &C, unsigned T);

/// The elements of packed value V (an integer as wide as T), least
/// significant first, as values of elementLlvmType.
llvm::SmallVector<llvm::Value *, 16> splitPacked(llvm::IRBuilder<> &B,
                                                 llvm::Value *V, unsigned T);
/// The packed integer of type T made of Elements.
llvm::Value *joinPacked(llvm::IRBuilder<> &B,
                        llvm::ArrayRef<llvm::Value *> Elements, unsigned T);

/// Whether packing control Pack saturates.
bool packSaturates(unsigned Pack);

/// Applies Fn to the elements of packed sources Srcs (integers as wide as
/// T) as packing control Pack selects them (PRM 4.14): pp/p use every
/// element, ps and sp broadcast the lower element of the second or first
/// source, ss and s compute the lower element only and keep the others of
/// OldDest. Fn gets and returns values of elementLlvmType(T).
llvm::Value *
mapPacked(llvm::IRBuilder<> &B, unsigned T, unsigned Pack,
          llvm::ArrayRef<llvm::Value *> Srcs, llvm::Value *OldDest,
          llvm::function_ref<llvm::Value *(llvm::ArrayRef<llvm::Value *>)> Fn);

/// Whether Pack computes only the lower element (s, ss and their _sat).
inline bool packScalarOnly(unsigned Pack) {
  return Pack == BRIG_PACK_SS || Pack == BRIG_PACK_S ||
         Pack == BRIG_PACK_SSSAT || Pack == BRIG_PACK_SSAT;
}

} // namespace openhsa::finalizer::detail

#endif
