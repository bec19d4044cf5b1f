//===- tests/core/KernelFaultsTest.cpp - Leaving kernel code early --------===//
//
// cpu_agent/KernelFaults.h: kernel code that faults is left through the
// thread's recovery point, past the epilogues of its frames. What those
// epilogues put back must be put back by runKernelCode instead: the MXCSR,
// whose FTZ and DAZ bits a base-profile program's work-group function sets
// for its own code (finalizer/Finalizer.cpp).
//
//===----------------------------------------------------------------------===//
#include "cpu_agent/KernelFaults.h"

#include <gtest/gtest.h>

#include <csignal>

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace {

#if defined(__x86_64__)
constexpr unsigned FtzDaz = 0x8040;

// As a base-profile work-group function starts, then a store through a bad
// address before it could put the MXCSR back.
void flushThenFault(void *Target) {
  _mm_setcsr(_mm_getcsr() | FtzDaz);
  *static_cast<volatile int *>(Target) = 1;
}

// The caller's own mode (rounding toward zero here, which a program may
// choose for its host code) is what the thread has again: neither the
// kernel's flushing nor the fault handler's fresh state (Linux starts a
// handler with the default MXCSR, and the jump out of it keeps that).
TEST(KernelFaults, AFaultLeavesTheMxcsrAsItWas) {
  openhsa::cpu::installFaultHandler();
  const unsigned Default = _mm_getcsr();
  constexpr unsigned TowardZero = 0x6000;
  _mm_setcsr(Default | TowardZero);
  const unsigned Before = _mm_getcsr();
  const int Sig =
      openhsa::cpu::runKernelCode(&flushThenFault, reinterpret_cast<void *>(8));
  const unsigned After = _mm_getcsr();
  _mm_setcsr(Default);
  EXPECT_EQ(Sig, SIGSEGV);
  EXPECT_EQ(After, Before) << "the fault changed this thread's MXCSR";
  openhsa::cpu::removeFaultHandler();
}
#endif

} // namespace
