//===- finalizer/WrapGuard.cpp - No index wraps, checked at dispatch ------===//

#include "finalizer/WrapGuard.h"

#include <algorithm>
#include <cstring>
#include <optional>

namespace openhsa::finalizer {

namespace {

using Int = __int128;

/// A closed interval of exact values; empty optional: unknown (a bound
/// overflowed 128 bits, or a requirement of the operation failed).
struct Range {
  Int Lo, Hi;
};
using MaybeRange = std::optional<Range>;

MaybeRange exact(Int V) { return Range{V, V}; }

MaybeRange add(Range A, Range B) {
  Range R;
  if (__builtin_add_overflow(A.Lo, B.Lo, &R.Lo) ||
      __builtin_add_overflow(A.Hi, B.Hi, &R.Hi))
    return std::nullopt;
  return R;
}

MaybeRange sub(Range A, Range B) {
  Range R;
  if (__builtin_sub_overflow(A.Lo, B.Hi, &R.Lo) ||
      __builtin_sub_overflow(A.Hi, B.Lo, &R.Hi))
    return std::nullopt;
  return R;
}

MaybeRange mul(Range A, Range B) {
  Int P[4];
  if (__builtin_mul_overflow(A.Lo, B.Lo, &P[0]) ||
      __builtin_mul_overflow(A.Lo, B.Hi, &P[1]) ||
      __builtin_mul_overflow(A.Hi, B.Lo, &P[2]) ||
      __builtin_mul_overflow(A.Hi, B.Hi, &P[3]))
    return std::nullopt;
  return Range{*std::min_element(P, P + 4), *std::max_element(P, P + 4)};
}

Int unsignedMax(unsigned Bits) { return (Int(1) << Bits) - 1; }
Int signedMin(unsigned Bits) { return -(Int(1) << (Bits - 1)); }
Int signedMax(unsigned Bits) { return (Int(1) << (Bits - 1)) - 1; }

bool within(Range R, Int Lo, Int Hi) { return R.Lo >= Lo && R.Hi <= Hi; }
bool fitsUnsigned(Range R, unsigned Bits) {
  return within(R, 0, unsignedMax(Bits));
}
bool fitsSigned(Range R, unsigned Bits) {
  return within(R, signedMin(Bits), signedMax(Bits));
}

/// The Bits-bit argument at Offset, as signed or unsigned.
MaybeRange kernarg(const DispatchGeometry &D, uint64_t Offset, unsigned Bits,
                   bool Signed) {
  const size_t Bytes = Bits / 8;
  if (!D.Kernarg || Offset > D.KernargBytes || D.KernargBytes - Offset < Bytes)
    return std::nullopt;
  uint64_t Raw = 0;
  std::memcpy(&Raw, static_cast<const char *>(D.Kernarg) + Offset, Bytes);
  if (Bits == 64)
    return exact(Signed ? Int(int64_t(Raw)) : Int(Raw));
  const uint64_t Sign = uint64_t(1) << (Bits - 1);
  if (Signed && (Raw & Sign))
    return exact(Int(Raw) - (Int(1) << Bits));
  return exact(Int(Raw));
}

bool validWidth(unsigned Bits) {
  return Bits == 8 || Bits == 16 || Bits == 32 || Bits == 64;
}

unsigned operands(WrapGuard::Op K) {
  using Op = WrapGuard::Op;
  switch (K) {
  case Op::Const:
  case Op::Kernarg:
  case Op::WorkItemId:
  case Op::WorkGroupId:
  case Op::WorkGroupSize:
  case Op::CurrentWorkGroupSize:
  case Op::GridSize:
  case Op::GridGroups:
  case Op::Dim:
    return 0;
  case Op::Not:
  case Op::ZExt:
  case Op::SExt:
  case Op::LShr:
  case Op::Mask:
  case Op::Fits:
    return 1;
  case Op::Iterate:
    return 3;
  default:
    return 2;
  }
}

bool isQuery(WrapGuard::Op K) {
  using Op = WrapGuard::Op;
  return K == Op::WorkItemId || K == Op::WorkGroupId ||
         K == Op::WorkGroupSize || K == Op::CurrentWorkGroupSize ||
         K == Op::GridSize || K == Op::GridGroups;
}

/// Evaluates G with arguments signed or not; false where a Fits fails or a
/// value is unknown.
bool evaluate(const WrapGuard &G, const DispatchGeometry &D,
              bool SignedArguments) {
  using Op = WrapGuard::Op;
  // Most guards are a few dozen nodes: their ranges on the stack (a heap
  // allocation was most of an evaluation's 0.2 us).
  constexpr size_t OnStack = 128;
  Range Local[OnStack];
  std::vector<Range> Heap;
  Range *V = Local;
  if (G.Nodes.size() > OnStack) {
    Heap.resize(G.Nodes.size());
    V = Heap.data();
  }
  size_t Done = 0;
  auto Size = [&](unsigned Dim, const uint32_t(&Of)[3]) -> Int {
    return Dim < D.Dims ? Int(Of[Dim]) : Int(1);
  };
  for (const WrapGuard::Node &N : G.Nodes) {
    const Range *A = operands(N.Kind) > 0 ? &V[N.A] : nullptr;
    const Range *B = operands(N.Kind) > 1 ? &V[N.B] : nullptr;
    MaybeRange R;
    switch (N.Kind) {
    case Op::Const:
      R = exact(N.Value);
      break;
    case Op::Kernarg:
      R = kernarg(D, N.A, N.Bits, SignedArguments);
      break;
    case Op::WorkItemId:
    case Op::WorkGroupId:
    case Op::WorkGroupSize:
    case Op::CurrentWorkGroupSize:
    case Op::GridSize:
    case Op::GridGroups: {
      const Int Grid = Size(N.A, D.Grid), Wg = Size(N.A, D.Workgroup);
      if (Grid == 0 || Wg == 0)
        return false;
      const Int Groups = (Grid + Wg - 1) / Wg;
      R = N.Kind == Op::WorkItemId             ? Range{0, Wg - 1}
          : N.Kind == Op::WorkGroupId          ? Range{0, Groups - 1}
          : N.Kind == Op::WorkGroupSize        ? Range{Wg, Wg}
          : N.Kind == Op::CurrentWorkGroupSize ? Range{1, Wg}
          : N.Kind == Op::GridSize             ? Range{Grid, Grid}
                                               : Range{Groups, Groups};
      break;
    }
    case Op::Dim:
      R = exact(D.Dims);
      break;
    case Op::Add:
      R = add(*A, *B);
      break;
    case Op::Sub:
      R = sub(*A, *B);
      break;
    case Op::Mul:
      R = mul(*A, *B);
      break;
    case Op::Not:
      R = sub(Range{-1, -1}, *A);
      break;
    case Op::ZExt:
      if (fitsUnsigned(*A, N.Bits))
        R = *A;
      break;
    case Op::SExt:
      if (fitsSigned(*A, N.Bits))
        R = *A;
      break;
    case Op::UDiv:
      if (fitsUnsigned(*A, N.Bits) && fitsUnsigned(*B, N.Bits) && B->Lo > 0)
        R = Range{A->Lo / B->Hi, A->Hi / B->Lo};
      break;
    case Op::LShr:
      if (fitsUnsigned(*A, N.Bits) && N.B < 64)
        R = Range{A->Lo >> N.B, A->Hi >> N.B};
      break;
    case Op::UMin:
    case Op::UMax:
    case Op::SMin:
    case Op::SMax: {
      const bool Signed = N.Kind == Op::SMin || N.Kind == Op::SMax;
      const bool Min = N.Kind == Op::UMin || N.Kind == Op::SMin;
      if (Signed ? fitsSigned(*A, N.Bits) && fitsSigned(*B, N.Bits)
                 : fitsUnsigned(*A, N.Bits) && fitsUnsigned(*B, N.Bits))
        R = Min ? Range{std::min(A->Lo, B->Lo), std::min(A->Hi, B->Hi)}
                : Range{std::max(A->Lo, B->Lo), std::max(A->Hi, B->Hi)};
      break;
    }
    case Op::Hull:
      R = Range{std::min(A->Lo, B->Lo), std::max(A->Hi, B->Hi)};
      break;
    case Op::Mask:
      R = Range{0, Int(N.Value)};
      break;
    case Op::Iterate: {
      const Range &Count = V[N.C];
      if (Count.Lo < 0)
        return false;
      if (MaybeRange Steps = mul(Range{0, Count.Hi}, *B))
        R = add(*A, *Steps);
      break;
    }
    case Op::Fits:
      if (N.Signed ? fitsSigned(*A, N.Bits) : fitsUnsigned(*A, N.Bits))
        R = *A;
      break;
    }
    if (!R)
      return false;
    V[Done++] = *R;
  }
  return true;
}

} // namespace

void WrapGuard::append(const WrapGuard &Other) {
  const uint32_t Base = uint32_t(Nodes.size());
  for (Node N : Other.Nodes) {
    const unsigned Count = operands(N.Kind);
    if (Count > 0)
      N.A += Base;
    if (Count > 1)
      N.B += Base;
    if (Count > 2)
      N.C += Base;
    Nodes.push_back(N);
  }
}

std::string WrapGuard::validate() const {
  if (Nodes.size() > MaxNodes)
    return "more than " + std::to_string(MaxNodes) + " nodes";
  for (size_t I = 0; I < Nodes.size(); ++I) {
    const Node &N = Nodes[I];
    const std::string At = "node " + std::to_string(I) + ": ";
    if (N.Kind > Op::Fits)
      return At + "unknown operation";
    const unsigned Count = operands(N.Kind);
    if ((Count > 0 && N.A >= I) || (Count > 1 && N.B >= I) ||
        (Count > 2 && N.C >= I))
      return At + "an operand that does not come before it";
    if (isQuery(N.Kind) && N.A > 2)
      return At + "a dimension above 2";
    const bool Sized = N.Kind == Op::Kernarg || N.Kind == Op::ZExt ||
                       N.Kind == Op::SExt || N.Kind == Op::UDiv ||
                       N.Kind == Op::LShr || N.Kind == Op::UMin ||
                       N.Kind == Op::UMax || N.Kind == Op::SMin ||
                       N.Kind == Op::SMax || N.Kind == Op::Fits;
    if (Sized && !validWidth(N.Bits))
      return At + "a width other than 8, 16, 32 or 64 bits";
    if (N.Kind == Op::LShr && N.B >= 64)
      return At + "a shift of 64 bits or more";
    if (N.Kind == Op::Mask && N.Value < 0)
      return At + "a negative mask";
  }
  return "";
}

size_t WrapGuard::kernargExtent() const {
  size_t End = 0;
  for (const Node &N : Nodes)
    if (N.Kind == Op::Kernarg)
      End = std::max<size_t>(End, size_t(N.A) + N.Bits / 8);
  return End;
}

bool WrapGuard::holds(const DispatchGeometry &D) const {
  return evaluate(*this, D, /*SignedArguments=*/true) ||
         evaluate(*this, D, /*SignedArguments=*/false);
}

} // namespace openhsa::finalizer
