//===- cpu_agent/CallsJitCode.h - Calls into JIT code -----------*- C++ -*-===//
#ifndef OPENHSA_CPU_AGENT_CALLSJITCODE_H
#define OPENHSA_CPU_AGENT_CALLSJITCODE_H

/// On a function that calls JIT-compiled code through a pointer. clang's
/// -fsanitize=function (part of UBSan) reads a type signature just before
/// the callee's first byte, which JIT code has not; a kernel entry at the
/// start of its mapping then faults on that read.
#if defined(__clang__)
#define OPENHSA_CALLS_JIT_CODE __attribute__((no_sanitize("function")))
#else
#define OPENHSA_CALLS_JIT_CODE
#endif

#endif
