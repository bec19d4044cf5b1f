//===- runtime/core/Clock.h - The HSA system timestamp ----------*- C++ -*-===//
//
// The HSA system timestamp (HSA_SYSTEM_INFO_TIMESTAMP, the HSAIL clock
// instruction) must count at a constant rate in the range 1-400 MHz (HSA
// Runtime 2.3.1 HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, PRM 11.4 clock, HSA
// System Architecture hsa_system_timestamp_frequency_mhz). We tick at the
// finest rate permitted, 400 MHz (2.5 ns per tick): the best resolution for
// profiling, and programs that pass seconds-since-epoch style hints as tick
// counts wait the shortest. The ticks are CLOCK_MONOTONIC (vDSO, monotonic
// across cores) scaled by 2/5; a 64-bit tick count overflows after 1461 years.
//
// Convert only through the helpers below: a tick is not a whole number of
// nanoseconds.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_CORE_CLOCK_H
#define OPENHSA_RUNTIME_CORE_CLOCK_H

#include <cstdint>
#include <ctime>

namespace openhsa {

inline constexpr uint64_t TimestampFrequencyHz = 400'000'000;
// Ticks per nanosecond as a reduced fraction: 400 MHz is 2 ticks per 5 ns.
inline constexpr uint64_t TicksPerNsNum = 2;
inline constexpr uint64_t TicksPerNsDen = 5;
static_assert(TimestampFrequencyHz * TicksPerNsDen ==
                  1'000'000'000 * TicksPerNsNum,
              "tick fraction out of step with the frequency");

inline uint64_t monotonicNanoseconds() {
  timespec Ts;
  clock_gettime(CLOCK_MONOTONIC, &Ts);
  return uint64_t(Ts.tv_sec) * 1'000'000'000u + uint64_t(Ts.tv_nsec);
}

/// Nanoseconds in \p Ticks timestamp ticks, rounded up (a timeout lasts at
/// least as long as asked); saturates at UINT64_MAX.
inline constexpr uint64_t ticksToNanoseconds(uint64_t Ticks) {
  if (Ticks >= UINT64_MAX / TicksPerNsDen)
    return UINT64_MAX;
  return (Ticks * TicksPerNsDen + TicksPerNsNum - 1) / TicksPerNsNum;
}

/// Whole timestamp ticks in \p Ns nanoseconds (rounded down).
inline constexpr uint64_t nanosecondsToTicks(uint64_t Ns) {
  // Split to avoid overflowing Ns * 2 for Ns beyond 292 years.
  return Ns / TicksPerNsDen * TicksPerNsNum +
         Ns % TicksPerNsDen * TicksPerNsNum / TicksPerNsDen;
}

inline uint64_t systemTimestamp() {
  return nanosecondsToTicks(monotonicNanoseconds());
}

} // namespace openhsa

#endif
