//===- finalizer/FloatEmitter.h - Exact floating-point IR -------*- C++ -*-===//
//
// Private to finalizer/: the IR for HSAIL floating-point semantics that the
// host's default arithmetic does not give by itself (PRM 4.19, 5.11-5.14,
// 5.18, 5.19): the four rounding modes, flush to zero, NaN propagation and
// quieting, f16 arithmetic, and conversions with their rounding modes.
//
// Everything is target-neutral IR that assumes the default floating-point
// environment of the thread running it (round to nearest even, no flushing
// of subnormals): the host's own operations are used where they round as
// the instruction must (round to nearest even without ftz; f32 with ftz
// where the exact result decides tininess cheaply). An operation that needs
// another rounding, or flushing of tiny results, is computed exactly in f64
// (error-free transformations: the rounded result and the sign of its
// error) and rounded to its destination format in integer arithmetic.
// Tininess for ftz is detected after rounding (IEEE 754-2008 7.5, as the
// x86 MXCSR.FTZ flag does), for every instruction alike. With detect(),
// the exact path also yields the IEEE exceptions each operation raises.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_FLOATEMITTER_H
#define OPENHSA_FINALIZER_FLOATEMITTER_H

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

namespace openhsa::finalizer::detail {

/// A floating-point rounding mode (PRM 4.19.2).
enum class FloatRound : uint8_t { NearEven, Zero, Up, Down };

/// How an instruction rounds and flushes.
struct FloatMode {
  FloatRound Round = FloatRound::NearEven;
  bool Ftz = false;
};

/// Emits HSAIL floating-point operations on scalar half, float and double
/// values; sources and results of an operation share one type unless said
/// otherwise.
class FloatEmitter {
public:
  /// The target is the triple of the module B inserts into: it decides
  /// whether the hardware's own NaN results already follow PRM 4.19.4.
  explicit FloatEmitter(llvm::IRBuilder<> &B);

  // DETECT exceptions (PRM 11.2, 12.2). With detect(), every operation
  // takes the exact path and records the IEEE exceptions it raises; the
  // caller ORs raised() into the work-item's flags.
  static constexpr uint32_t InvalidOperation = 1, DivideByZero = 2,
                            Overflow = 4, Underflow = 8, Inexact = 16;
  void detect() { Detect = true; }
  /// The exceptions raised since the last call (an i32 of the bits
  /// above); 0 without detect().
  llvm::Value *takeRaised();

  // Arithmetic (PRM 5.11, 5.12): correctly rounded in mode M.
  llvm::Value *add(llvm::Value *X, llvm::Value *Y, FloatMode M);
  llvm::Value *sub(llvm::Value *X, llvm::Value *Y, FloatMode M);
  llvm::Value *mul(llvm::Value *X, llvm::Value *Y, FloatMode M);
  llvm::Value *div(llvm::Value *X, llvm::Value *Y, FloatMode M);
  llvm::Value *fma(llvm::Value *X, llvm::Value *Y, llvm::Value *Z, FloatMode M);
  llvm::Value *sqrt(llvm::Value *X, FloatMode M);
  llvm::Value *fract(llvm::Value *X, FloatMode M);
  /// ceil, floor, rint and trunc: Id is llvm.ceil, llvm.floor,
  /// llvm.roundeven or llvm.trunc.
  llvm::Value *integral(llvm::Intrinsic::ID Id, llvm::Value *X, bool Ftz);
  /// IEEE 754-2008 minNum/maxNum; -0 orders below +0.
  llvm::Value *minMax(llvm::Value *X, llvm::Value *Y, bool Max, bool Ftz);

  // Bit operations (PRM 5.13): no flushing, NaNs untouched.
  llvm::Value *abs(llvm::Value *X);
  llvm::Value *neg(llvm::Value *X);
  llvm::Value *copySign(llvm::Value *X, llvm::Value *Y);
  /// class: an i1, true if X is in any class of the i32 mask Cond.
  llvm::Value *classify(llvm::Value *X, llvm::Value *Cond);
  /// Whether X is a signaling NaN (an i1).
  llvm::Value *isSignaling(llvm::Value *X);

  // Native operations (PRM 5.14): approximations, computed in f64 without
  // calls into a math library.
  llvm::Value *nativeSin(llvm::Value *X);
  llvm::Value *nativeCos(llvm::Value *X);
  llvm::Value *nativeExp2(llvm::Value *X);
  llvm::Value *nativeLog2(llvm::Value *X);

  /// An i1: the comparison Pred (an FCMP_* predicate) of X and Y. A
  /// signaling comparison (PRM 5.18: seq, slt...) is invalid on any NaN.
  llvm::Value *compare(llvm::CmpInst::Predicate Pred, llvm::Value *X,
                       llvm::Value *Y, bool Ftz, bool Signaling = false);

  // Conversions (PRM 5.19).
  /// Float to float of another size; rounds in M when narrowing.
  llvm::Value *convert(llvm::Value *X, llvm::Type *To, FloatMode M);
  /// Integer (i8..i64) to float, rounded in R.
  llvm::Value *fromInt(llvm::Value *X, bool Signed, llvm::Type *To,
                       FloatRound R);
  /// Float to integer: rounded to an integral value by Id (as integral())
  /// and converted saturating (NaN gives 0), which is also the defined
  /// result this finalizer gives the non-saturating forms.
  /// For DETECT: a non-\p Saturating conversion of a NaN, an infinity or
  /// a value out of range is invalid; a \p SignalingInexact rounding
  /// (the _s*i forms) raises inexact for a non-integral value.
  llvm::Value *toInt(llvm::Value *X, llvm::IntegerType *To, bool Signed,
                     llvm::Intrinsic::ID Id, bool Ftz, bool Saturating = true,
                     bool SignalingInexact = false);

  /// Subnormal values become zero of the same sign.
  llvm::Value *flush(llvm::Value *X);
  /// NaNs become quiet (payload kept).
  llvm::Value *quiet(llvm::Value *X);

private:
  struct Unpacked;
  struct Format;
  static Format formatOf(llvm::Type *T);

  llvm::Value *i64(uint64_t V) { return B.getInt64(V); }
  llvm::Value *i32(int32_t V) { return B.getInt32(uint32_t(V)); }
  llvm::Value *bits(llvm::Value *X);
  llvm::Value *fromBits(llvm::Value *I, llvm::Type *T);
  llvm::Value *isNaN(llvm::Value *X) { return B.CreateFCmpUNO(X, X); }
  llvm::Value *convertNaN(llvm::Value *X, llvm::Type *To);
  llvm::Value *convertValue(llvm::Value *X, llvm::Type *To, FloatMode M);
  llvm::Value *signBit(llvm::Value *X);
  llvm::Value *sign(llvm::Value *X); // i32 -1, 0, 1 of a double
  llvm::Value *relative(llvm::Value *Dir, llvm::Value *Neg);
  std::pair<llvm::Value *, llvm::Value *> twoSum(llvm::Value *X,
                                                 llvm::Value *Y);
  llvm::Value *fmaIntrinsic(llvm::Value *X, llvm::Value *Y, llvm::Value *Z);
  llvm::Value *propagateNaN(llvm::Value *R, llvm::ArrayRef<llvm::Value *> Srcs);
  /// propagateNaN, unless R is the target's own instruction for a fast mode
  /// and that instruction already propagates NaN sources.
  llvm::Value *propagateNaNOf(llvm::Value *R,
                              llvm::ArrayRef<llvm::Value *> Srcs, bool Native);
  bool fast(llvm::Type *T, FloatMode M, bool Fused = false) const;
  bool nearFtz32(llvm::Type *T, FloatMode M) const;
  /// Records exception Bit where Cond (an i1) holds.
  void raise(llvm::Value *Cond, uint32_t Bit);
  /// Records an i32 of exception bits.
  void raiseBits(llvm::Value *Bits);
  /// Invalid on a signaling NaN among Srcs, or on a NaN result R of
  /// non-NaN sources (inf - inf, 0 * inf, 0 / 0, sqrt(-1)...).
  void raiseInvalid(llvm::Value *R, llvm::ArrayRef<llvm::Value *> Srcs);
  llvm::Value *flushTiny(llvm::Value *R, llvm::Value *Tiny);
  llvm::Value *tinyNear32(llvm::Value *D);

  Unpacked unpack(llvm::Value *D);
  llvm::Value *roundPack(const Format &F, FloatMode M, llvm::Value *Neg,
                         llvm::Value *Sig, llvm::Value *Exp,
                         llvm::Value *Sticky);
  llvm::Value *narrow(llvm::Value *D, llvm::Value *Sticky, llvm::Type *To,
                      FloatMode M);
  llvm::Value *finish64(llvm::Value *Neg, llvm::Value *Sig, llvm::Value *Exp,
                        llvm::Value *Sticky, llvm::Value *Special,
                        llvm::Value *SpecialValue, FloatMode M);
  llvm::Value *zeroSum(llvm::Value *X, llvm::Value *Y, llvm::Value *S,
                       FloatMode M);
  llvm::Value *mantissa(const Unpacked &U);
  llvm::Value *add64(llvm::Value *X, llvm::Value *Y, FloatMode M);
  llvm::Value *mul64(llvm::Value *X, llvm::Value *Y, FloatMode M);
  llvm::Value *div64(llvm::Value *X, llvm::Value *Y, FloatMode M);
  llvm::Value *sqrt64(llvm::Value *X, FloatMode M);
  llvm::Value *fma64(llvm::Value *X, llvm::Value *Y, llvm::Value *Z,
                     FloatMode M);

  llvm::IRBuilder<> &B;
  bool Detect = false;
  llvm::Value *Raised = nullptr;
  /// The exceptions of the last roundPack(), for its caller to keep unless
  /// the result is special (NaN, infinite or exact by construction).
  llvm::Value *RoundRaised = nullptr;
  bool HardwarePropagatesNaN = false;
  /// The target flushes f32 subnormal sources and results itself in every
  /// f32 operation (module flag NativeFtz32Flag): round-to-nearest ftz f32
  /// arithmetic is the target's own instruction.
  bool NativeFtz32 = false;

public:
  /// Module flags a target sets before lowering (finalizer/GpuTarget.h).
  static constexpr const char *NativeFtz32Flag = "openhsa.native-ftz32";
  /// Any quiet NaN will do (the base profile, PRM 4.19.4): the target's
  /// NaN results need no selection of a source's payload.
  static constexpr const char *AnyQuietNaNFlag = "openhsa.any-quiet-nan";
};

} // namespace openhsa::finalizer::detail

#endif
