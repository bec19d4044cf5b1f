//===- finalizer/RuntimeHelpers.h - Runtime calls of kernels ----*- C++ -*-===//
//
// The finalizer's view of the helpers finalized code calls: their names,
// the signal operations and the registry the JIT loader binds them from.
// They are defined in abi/RuntimeHelpers.h, which agents include instead of
// this header.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_RUNTIMEHELPERS_H
#define OPENHSA_FINALIZER_RUNTIMEHELPERS_H

#include "abi/RuntimeHelpers.h"

namespace openhsa::finalizer {
namespace helper = abi::helper;
using abi::registeredRuntimeHelpers;
using abi::RuntimeHelper;
using abi::SignalOp;
} // namespace openhsa::finalizer

#endif
