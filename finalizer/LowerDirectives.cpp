//===- finalizer/LowerDirectives.cpp - Initializers, control directives ---===//
//
// Variable initializers (PRM 4.8, 4.10) as the bytes the variable starts
// with, and control directives (PRM 13.4) recorded into the kernel symbol.
// loc, pragma and comment directives carry nothing the CPU code needs.
//
//===----------------------------------------------------------------------===//
#include "finalizer/KernelLowering.h"

#include <cstring>
#include <functional>
#include <limits>

namespace openhsa::finalizer::detail {

llvm::Expected<std::string>
initializerBytes(const BrigModule &B, EntryRef<BrigDirectiveVariable> V) {
  std::string Out;
  if (!V->init)
    return Out;
  auto Fail = [&](const llvm::Twine &Why) {
    return makeBrigError(B.name(), "hsa_code", V.Offset,
                         "initializer of '" + B.string(V->name) + "': " + Why);
  };
  // Typed and array constants are bytes; an aggregate is a list of them
  // and alignment requests, laid end to end (4.8.4).
  std::function<llvm::Error(uint32_t, unsigned)> Add =
      [&](uint32_t Off, unsigned Depth) -> llvm::Error {
    if (auto C = B.operand<BrigOperandConstantBytes>(Off)) {
      Out += B.string(C->bytes);
      return llvm::Error::success();
    }
    if (auto A = B.operand<BrigOperandAlign>(Off)) {
      Out.resize(alignTo(Out.size(), alignmentBytes(A->align)), '\0');
      return llvm::Error::success();
    }
    if (auto L = B.operand<BrigOperandConstantOperandList>(Off)) {
      if (Depth > 4)
        return Fail("aggregates nest too deep");
      OffsetList Elems = B.offsetList(L->elements);
      for (unsigned J = 0; J < Elems.size(); ++J)
        if (auto Err = Add(Elems[J], Depth + 1))
          return Err;
      return llvm::Error::success();
    }
    if (B.operand<BrigOperandConstantImage>(Off) ||
        B.operand<BrigOperandConstantSampler>(Off))
      return Fail("image and sampler initializers are not supported: the "
                  "runtime would have to create the image or sampler "
                  "(PRM 7.1.7, 7.1.8)");
    return Fail("malformed constant");
  };
  if (auto Err = Add(V->init, 0))
    return Err;
  return Out;
}

llvm::Error
KernelLowering::recordControls(const BrigModule &M,
                               EntryRef<BrigDirectiveExecutable> X) {
  // Control directives come first in a code block (PRM 13.4), but reading
  // the whole block is cheap and forgiving.
  for (uint32_t Off = X->firstCodeBlockEntry; Off < X->nextModuleEntry;) {
    EntryRef<BrigBase> E = M.code<BrigBase>(Off);
    if (!E)
      return makeBrigError(M.name(), "hsa_code", Off, "malformed entry");
    if (auto C = M.code<BrigDirectiveControl>(Off))
      if (auto Err = recordControl(M, C))
        return Err;
    Off += E.byteCount();
  }
  return llvm::Error::success();
}

llvm::Error KernelLowering::recordControl(const BrigModule &M,
                                          EntryRef<BrigDirectiveControl> C) {
  OffsetList Ops = M.offsetList(C->operands);
  auto Fail = [&](const llvm::Twine &Why) {
    return makeBrigError(
        M.name(), "hsa_code", C.Offset,
        (Kind == BodyKind::Kernel ? "kernel '" : "function '") +
            B.string(K->name) + "': control directive '" +
            controlName(C->control) + "': " + Why);
  };
  // Operand J: an integer constant, or WAVESIZE (the target's).
  uint64_t Values[3] = {0, 0, 0};
  for (unsigned J = 0; J < Ops.size() && J < 3; ++J) {
    if (M.operand<BrigOperandWavesize>(Ops[J])) {
      Values[J] = P.wavefrontSize();
    } else if (auto CB = M.operand<BrigOperandConstantBytes>(Ops[J])) {
      llvm::StringRef Bytes = M.string(CB->bytes);
      std::memcpy(&Values[J], Bytes.data(), std::min<size_t>(Bytes.size(), 8));
    } else {
      return Fail("operand " + llvm::Twine(J) + " is not a constant");
    }
  }
  KernelSymbol &S = Result.Symbol;
  // Every directive of the kernel and the functions it calls must agree.
  auto Same = [&](auto &Field, uint64_t V) -> llvm::Error {
    using T = std::remove_reference_t<decltype(Field)>;
    if (V == 0 || V > std::numeric_limits<T>::max())
      return Fail("value " + llvm::Twine(V) + " is out of range");
    if (Field && Field != V)
      return Fail("conflicts with an earlier one (" + llvm::Twine(Field) +
                  " and " + llvm::Twine(V) + ")");
    Field = T(V);
    return llvm::Error::success();
  };
  switch (C->control) {
  case BRIG_CONTROL_ENABLEBREAKEXCEPTIONS:
    // The finalizer must refuse exceptions the agent cannot BREAK on
    // (13.4); the CPU agent supports the DETECT policy only.
    if (Values[0] & 0x1f)
      return Fail("the CPU agent supports no exception for the BREAK "
                  "policy");
    return llvm::Error::success();
  case BRIG_CONTROL_ENABLEDETECTEXCEPTIONS:
    S.EnabledDetectExceptions |= uint16_t(Values[0] & 0x1f); // The union.
    return llvm::Error::success();
  case BRIG_CONTROL_MAXDYNAMICGROUPSIZE:
    if (Values[0] > UINT32_MAX)
      return Fail("value is out of range");
    if (S.MaxDynamicGroupSize && S.MaxDynamicGroupSize != Values[0])
      return Fail("conflicts with an earlier one");
    S.MaxDynamicGroupSize = uint32_t(Values[0]);
    return llvm::Error::success();
  case BRIG_CONTROL_MAXFLATGRIDSIZE:
    return Same(S.MaxFlatGridSize, Values[0]);
  case BRIG_CONTROL_MAXFLATWORKGROUPSIZE:
    return Same(S.MaxFlatWorkgroupSize, Values[0]);
  case BRIG_CONTROL_REQUIREDDIM:
    if (Values[0] < 1 || Values[0] > 3)
      return Fail("the number of dimensions must be 1, 2 or 3");
    return Same(S.RequiredDim, Values[0]);
  case BRIG_CONTROL_REQUIREDGRIDSIZE:
  case BRIG_CONTROL_REQUIREDWORKGROUPSIZE: {
    // A grid dimension of a dispatch is 32 bits wide.
    uint32_t(&Dims)[3] = C->control == BRIG_CONTROL_REQUIREDGRIDSIZE
                             ? S.RequiredGridSize
                             : S.RequiredWorkgroupSize;
    for (unsigned D = 0; D < 3; ++D)
      if (auto Err = Same(Dims[D], Values[D]))
        return Err;
    return llvm::Error::success();
  }
  case BRIG_CONTROL_REQUIRENOPARTIALWORKGROUPS:
    S.RequireNoPartialWorkgroups = true;
    return llvm::Error::success();
  }
  return Fail("unknown control directive");
}

} // namespace openhsa::finalizer::detail
