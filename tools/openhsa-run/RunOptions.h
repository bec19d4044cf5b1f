//===- tools/openhsa-run/RunOptions.h - openhsa-run's command line -*- C++ -*-//
//
// What openhsa-run was asked to do: the file, the kernel, the geometry, the
// arguments, and on which agents. Bad options end the process with a
// message (die) or the usage (exit status 2).
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_TOOLS_RUN_RUNOPTIONS_H
#define OPENHSA_TOOLS_RUN_RUNOPTIONS_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace openhsa::run {

[[noreturn]] void die(const std::string &Message);

/// One --arg: a scalar, or a buffer whose address is passed.
struct ArgSpec {
  std::string Kind; // u32, s32, u64, s64, f32, f64, buf
  std::string Value;
  size_t Bytes = 0;
  std::string Fill, File, Dump, Print;
};

struct RunOptions {
  std::string Input, Kernel;
  uint32_t Grid[3] = {1, 1, 1}, Group[3] = {1, 1, 1}, Dims = 1;
  uint32_t DynamicGroup = 0;
  unsigned Repeat = 1;
  /// --fixed-shape: finalize for this dispatch's shape alone (requireddim,
  /// requiredworkgroupsize and requiredgridsize: finalizer/FixedGroupShape.h).
  bool FixedShape = false;
  /// cpu, gpu, all, or an agent's number (as openhsa-info prints it).
  std::string Agent = "cpu";
  std::vector<ArgSpec> Args;
};

RunOptions parseRunOptions(int Argc, char **Argv);

} // namespace openhsa::run

#endif
