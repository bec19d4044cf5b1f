//===- runtime/core/Clock.h - The HSA system timestamp ----------*- C++ -*-===//
//
// HSA_SYSTEM_INFO_TIMESTAMP must tick at 1-400 MHz. We use CLOCK_MONOTONIC
// divided down to 100 MHz (10 ns per tick): fine enough for wait timeouts,
// cheap (vDSO), and monotonic across cores.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_CORE_CLOCK_H
#define OPENHSA_RUNTIME_CORE_CLOCK_H

#include <cstdint>
#include <ctime>

namespace openhsa {

inline constexpr uint64_t TimestampFrequencyHz = 100'000'000;
inline constexpr uint64_t NanosecondsPerTick =
    1'000'000'000 / TimestampFrequencyHz;

inline uint64_t monotonicNanoseconds() {
  timespec Ts;
  clock_gettime(CLOCK_MONOTONIC, &Ts);
  return uint64_t(Ts.tv_sec) * 1'000'000'000u + uint64_t(Ts.tv_nsec);
}

inline uint64_t systemTimestamp() {
  return monotonicNanoseconds() / NanosecondsPerTick;
}

} // namespace openhsa

#endif
