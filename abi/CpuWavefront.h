//===- abi/CpuWavefront.h - The CPU agent's wavefront size ------*- C++ -*-===//
//
// One rule for the CPU agent (which reports the size: HSA_AGENT_INFO_
// WAVEFRONT_SIZE, the ISA's call convention, hsa_wavefront_get_info) and the
// finalizer (which lowers WAVESIZE and the cross-lane operations for it and
// runs a kernel's wavefronts in the lanes of SIMD registers): a wavefront is
// as many work-items as 32-bit lanes fit a vector register of the target
// (the host's CPU, or OPENHSA_CPU_TARGET's: abi/CpuTarget.h), 16 with
// AVX-512, 8 with AVX/AVX2, 4 otherwise (SSE, NEON).
// OPENHSA_VECTOR_WIDTH (a power of two, 2-64) overrides the lanes, and with
// OPENHSA_VECTORIZE=0 (scalar work-item loops, for comparisons) wavefronts
// are one work-item wide. Both are read at each call: a finalization
// follows the environment of its time.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_ABI_CPUWAVEFRONT_H
#define OPENHSA_ABI_CPUWAVEFRONT_H

#include "abi/CpuTarget.h"

#include <cstdlib>
#include <string_view>

namespace openhsa::abi {

/// Lanes of 32 bits per vector register of the target (or
/// OPENHSA_VECTOR_WIDTH).
inline unsigned cpuVectorWidth() {
  if (const char *E = std::getenv("OPENHSA_VECTOR_WIDTH")) {
    const unsigned W = unsigned(std::strtoul(E, nullptr, 10));
    if (W >= 2 && W <= 64 && (W & (W - 1)) == 0)
      return W;
  }
  static const unsigned Target = [] {
    const CpuTarget &T = cpuTarget();
    if (T.has("avx512f"))
      return 16u;
    if (T.has("avx") || T.has("avx2"))
      return 8u;
    return 4u;
  }();
  return Target;
}

/// Whether kernels run vectorized: yes unless OPENHSA_VECTORIZE=0.
inline bool cpuVectorization() {
  const char *E = std::getenv("OPENHSA_VECTORIZE");
  return !E || std::string_view(E) != "0";
}

/// The CPU agent's wavefront size.
inline unsigned cpuWavefrontSize() {
  return cpuVectorization() ? cpuVectorWidth() : 1;
}

} // namespace openhsa::abi

#endif
