//===- runtime/api/ApiCommon.h - Shared checks of the C entry points -*- C++
//-*-===//
//
// Every entry point: check that the runtime is initialized, check the
// arguments, turn handles into objects through the runtime's registries,
// then act. Nothing thrown crosses the C boundary (the code throws nothing;
// allocation failure terminates as it would in C).
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_API_APICOMMON_H
#define OPENHSA_RUNTIME_API_APICOMMON_H

#include "runtime/Runtime.h"

#define OPENHSA_REQUIRE_RUNTIME(R)                                             \
  ::openhsa::Runtime *R = ::openhsa::Runtime::current();                       \
  if (!R)                                                                      \
  return HSA_STATUS_ERROR_NOT_INITIALIZED

#define OPENHSA_REQUIRE(Cond, Status)                                          \
  do {                                                                         \
    if (!(Cond))                                                               \
      return Status;                                                           \
  } while (false)

#endif
