//===- runtime/core/Topology.h - CPU topology from hwloc --------*- C++ -*-===//
//
// Discovers the CPU kernel agents of this machine: one per package (socket),
// or one per NUMA node where a package holds several. Each node knows its
// processing units, cores, caches and memory, and can allocate memory bound
// to its NUMA node.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_CORE_TOPOLOGY_H
#define OPENHSA_RUNTIME_CORE_TOPOLOGY_H

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct hwloc_topology;

namespace openhsa {

struct CacheLevelInfo {
  unsigned Level = 0;     // 1, 2, 3...
  uint64_t SizeBytes = 0; // One instance's size.
  std::string Kind;       // "data", "instruction" or "unified".
};

struct CpuNodeInfo {
  unsigned PackageIndex = 0; // Logical index of the package.
  int NumaNodeOsIndex = -1;  // -1 where the machine reports no NUMA node.
  std::vector<unsigned> ProcessingUnits; // OS indices, all of the node's.
  unsigned CoreCount = 0;
  /// The processing units and cores of the node that this process may run
  /// on (its CPU affinity mask at discovery, e.g. under taskset or a
  /// cpuset): the agent runs one worker per allowed unit and reports the
  /// allowed cores as its compute units. A node the mask excludes entirely
  /// gets the units of the whole mask instead: its work-groups can only
  /// run there.
  std::vector<unsigned> AllowedUnits;
  unsigned AllowedCores = 0;
  std::string Vendor;                 // e.g. "GenuineIntel".
  std::string Model;                  // e.g. "Intel(R) Xeon(R) ...".
  std::vector<CacheLevelInfo> Caches; // Distinct levels seen by this node.
  uint64_t LocalMemoryBytes = 0;
  uint32_t MaxClockMHz = 0; // 0 where unknown.
};

class Topology {
public:
  static llvm::Expected<std::unique_ptr<Topology>> discover();
  ~Topology();

  const std::vector<CpuNodeInfo> &nodes() const { return Nodes; }
  /// True where the agents partition the machine, so each must bind its
  /// threads and memory to its own node.
  bool isPartitioned() const { return Nodes.size() > 1; }

  /// Allocates Size bytes bound to Node's NUMA node where the machine has
  /// several; page aligned. Null on failure.
  void *allocateOnNode(const CpuNodeInfo &Node, size_t Size) const;
  void freeOnNode(void *Ptr, size_t Size) const;

  /// Binds the calling thread to Node's allowed processing units. Returns false
  /// where the OS refuses.
  bool bindThisThread(const CpuNodeInfo &Node) const;

private:
  Topology() = default;
  hwloc_topology *Hwloc = nullptr;
  std::vector<CpuNodeInfo> Nodes;
};

} // namespace openhsa

#endif
