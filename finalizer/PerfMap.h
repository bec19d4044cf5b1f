//===- finalizer/PerfMap.h - Symbols of JIT code for perf -----*- C++ -*-===//
//
// With OPENHSA_PERF_MAP=1 each code object loaded into this process writes
// its functions' addresses and sizes to /tmp/perf-<pid>.map, the file
// `perf report` reads to name samples in anonymous executable memory.
// Without it, a profile of a dispatch shows the kernel's time as
// "[unknown]".
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_PERFMAP_H
#define OPENHSA_FINALIZER_PERFMAP_H

#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"

#include <memory>

namespace openhsa::finalizer {

/// The plugin that writes the map for each object linked while
/// OPENHSA_PERF_MAP is set to anything but "0".
std::unique_ptr<llvm::orc::ObjectLinkingLayer::Plugin> makePerfMapPlugin();

} // namespace openhsa::finalizer

#endif
