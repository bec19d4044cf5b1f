//===- finalizer/LaneRowsAccess.cpp - Slow path of 2-D lockstep accesses -===//
#include "finalizer/LaneRowsAccess.h"

#include <cstring>

namespace {

/// One access of N bytes (a constant-size copy is a single move).
template <unsigned N> void copyElement(char *To, const char *From) {
  std::memcpy(To, From, N);
}

} // namespace

extern "C" {

// The kernel's own accesses, as a JIT-compiled lane loop made them: not the
// runtime's, which the sanitizers would check. A kernel's fault is the
// fault handler's to report (cpu_agent/KernelFaults.h).
__attribute__((no_sanitize("address", "thread"))) void
__openhsa_lane_rows(char *Base, uint32_t First, uint32_t RowDelta,
                    uint32_t Step, uint32_t Shift, uint32_t RowWidth,
                    uint32_t Lanes, const uint8_t *On, char *Values,
                    uint32_t Size, uint32_t Store) {
  for (uint32_t L = 0; L < Lanes; ++L) {
    if (!On[L])
      continue;
    const uint32_t X =
        First + (L / RowWidth) * RowDelta + (L % RowWidth) * Step;
    char *At = Base + (uint64_t(X) << Shift);
    char *Value = Values + uint64_t(L) * Size;
    char *To = Store ? At : Value;
    const char *From = Store ? Value : At;
    switch (Size) {
    case 1:
      copyElement<1>(To, From);
      break;
    case 2:
      copyElement<2>(To, From);
      break;
    case 4:
      copyElement<4>(To, From);
      break;
    case 8:
      copyElement<8>(To, From);
      break;
    default:
      std::memcpy(To, From, Size);
    }
  }
}

} // extern "C"
