//===- abi/CpuTarget.h - The CPU that CPU-agent code is for ----*- C++ -*-===//
//
// One answer for the CPU agent (its ISA's name, its wavefront size) and the
// finalizer (the target machine its code is generated for): the host's CPU
// and features, or, with OPENHSA_CPU_TARGET=<cpu>, an x86-64 CPU that LLVM
// knows (x86-64-v3: AVX2 and FMA; x86-64-v2: SSE4.2; haswell, znver2, ...),
// whose every feature the host has. So the code a machine without AVX-512
// would run (8 or 4 lanes a wavefront, masks in vector registers, no
// scatters) is tested and measured on one that has it; the test suite runs
// the finalizer's tests that way too (tests/finalizer/CMakeLists.txt).
//
// A CPU LLVM does not know, one with a feature the host lacks (its code
// could fault with an illegal instruction), or a non-x86-64 host is a
// problem: the agent keeps the host's ISA and every CPU finalization fails,
// saying why. Read once per process, at first use.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_ABI_CPUTARGET_H
#define OPENHSA_ABI_CPUTARGET_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/TargetParser/X86TargetParser.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace openhsa::abi {

struct CpuTarget {
  /// LLVM's name of the CPU (the ISA name's last part).
  std::string Cpu;
  /// Its features by LLVM's names, on or off (a named CPU's: those it
  /// has, on; any other is off).
  llvm::StringMap<bool> Features;
  /// Why OPENHSA_CPU_TARGET cannot be had (then Cpu and Features are the
  /// host's); empty where it can, or is unset.
  std::string Problem;

  bool has(llvm::StringRef Feature) const { return Features.lookup(Feature); }

  /// The features as a target machine takes them: "+avx2,-avx512f,...",
  /// sorted, so that the same target is always the same string (the
  /// finalization cache's key has it).
  std::string featureString() const {
    std::vector<std::string> Parts;
    for (const auto &F : Features)
      Parts.push_back((F.second ? "+" : "-") + F.first().str());
    std::sort(Parts.begin(), Parts.end());
    std::string S;
    for (const std::string &P : Parts)
      S += (S.empty() ? "" : ",") + P;
    return S;
  }
};

/// The target that Requested (OPENHSA_CPU_TARGET's value; empty: the host)
/// names on a host of HostCpu with HostFeatures, whose triple is
/// HostTriple. Separate from the environment for tests.
inline CpuTarget chooseCpuTarget(std::string_view Requested,
                                 const std::string &HostTriple,
                                 const std::string &HostCpu,
                                 const llvm::StringMap<bool> &HostFeatures) {
  CpuTarget Host;
  Host.Cpu = HostCpu;
  for (const auto &F : HostFeatures)
    Host.Features[F.first()] = F.second;
  if (Requested.empty())
    return Host;
  const std::string Setting =
      "OPENHSA_CPU_TARGET=" + std::string(Requested) + ": ";
  if (llvm::Triple(HostTriple).getArch() != llvm::Triple::x86_64) {
    Host.Problem =
        Setting + "only x86-64 hosts take another CPU, not " + HostTriple;
    return Host;
  }
  const llvm::StringRef Name(Requested.data(), Requested.size());
  if (llvm::X86::parseArchX86(Name, /*Only64Bit=*/true) == llvm::X86::CK_None) {
    Host.Problem = Setting + "not an x86-64 CPU that LLVM knows (x86-64-v2, "
                             "x86-64-v3, haswell, znver3, ...)";
    return Host;
  }
  llvm::SmallVector<llvm::StringRef, 64> Listed;
  llvm::X86::getFeaturesForCPU(Name, Listed);
  CpuTarget T;
  T.Cpu = Name.str();
  // What the CPU's features imply (AVX2 implies AVX, SSE4.2 the SSEs
  // before it) is on too: the vector width rule asks for "avx".
  for (llvm::StringRef F : Listed) {
    T.Features[F] = true;
    llvm::X86::updateImpliedFeatures(F, true, T.Features);
  }
  std::vector<std::string> Missing;
  for (const auto &F : T.Features)
    if (F.second && HostFeatures.count(F.first()) &&
        !HostFeatures.lookup(F.first()))
      Missing.push_back(F.first().str());
  if (!Missing.empty()) {
    std::sort(Missing.begin(), Missing.end());
    std::string List;
    for (const std::string &M : Missing)
      List += (List.empty() ? "" : ", ") + M;
    Host.Problem = Setting + "this host (" + HostCpu + ") lacks " + List +
                   ", which its code would use";
    return Host;
  }
  // Only these: the target machine takes the rest from the CPU's name, not
  // from what the host has beyond it.
  return T;
}

/// The CPU agent's target: OPENHSA_CPU_TARGET's, or the host's.
inline const CpuTarget &cpuTarget() {
  static const CpuTarget Target = [] {
    const char *E = std::getenv("OPENHSA_CPU_TARGET");
    llvm::StringMap<bool> HostFeatures;
    for (const auto &F : llvm::sys::getHostCPUFeatures())
      HostFeatures[F.first()] = F.second;
    return chooseCpuTarget(E ? E : "", llvm::sys::getProcessTriple(),
                           llvm::sys::getHostCPUName().str(), HostFeatures);
  }();
  return Target;
}

} // namespace openhsa::abi

#endif
