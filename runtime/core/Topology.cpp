//===- runtime/core/Topology.cpp - CPU topology from hwloc ----------------===//
#include "runtime/core/Topology.h"

#include <hwloc.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sys/mman.h>
#include <unistd.h>

namespace openhsa {

namespace {

std::string infoOf(hwloc_obj_t Obj, const char *Name) {
  for (hwloc_obj_t O = Obj; O; O = O->parent)
    if (const char *V = hwloc_obj_get_info_by_name(O, Name))
      return V;
  return {};
}

/// Highest maximum frequency the kernel reports for any of the PUs.
uint32_t maxClockMHz(const std::vector<unsigned> &Pus) {
  uint32_t Best = 0;
  for (unsigned Pu : Pus) {
    std::ifstream In("/sys/devices/system/cpu/cpu" + std::to_string(Pu) +
                     "/cpufreq/cpuinfo_max_freq");
    uint64_t KHz = 0;
    if (In >> KHz)
      Best = std::max<uint32_t>(Best, uint32_t(KHz / 1000));
    if (Best)
      break; // PUs of one node share the model; one reading is enough.
  }
  if (Best)
    return Best;
  // Virtual machines often lack cpufreq; /proc/cpuinfo has the current clock.
  std::ifstream CpuInfo("/proc/cpuinfo");
  std::string Line;
  while (std::getline(CpuInfo, Line)) {
    if (Line.rfind("cpu MHz", 0) == 0) {
      auto Colon = Line.find(':');
      if (Colon != std::string::npos)
        Best = std::max<uint32_t>(
            Best, uint32_t(std::atof(Line.c_str() + Colon + 1)));
    }
  }
  return Best;
}

/// The processing units the process may run on: its affinity mask, which
/// hwloc's topology (cgroup cpusets aside) does not reflect.
hwloc_cpuset_t processCpuset(hwloc_topology_t Topo) {
  hwloc_cpuset_t Set = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(Topo, Set, HWLOC_CPUBIND_PROCESS) != 0 ||
      hwloc_bitmap_iszero(Set))
    hwloc_bitmap_copy(Set, hwloc_topology_get_allowed_cpuset(Topo));
  hwloc_bitmap_and(Set, Set, hwloc_topology_get_topology_cpuset(Topo));
  return Set;
}

/// Fills Node's allowed units and cores: those of Cpuset in Allowed, or all
/// of Allowed where the two do not meet.
void describeAllowed(hwloc_topology_t Topo, hwloc_const_cpuset_t Cpuset,
                     hwloc_const_cpuset_t Allowed, CpuNodeInfo &Node) {
  hwloc_cpuset_t Usable = hwloc_bitmap_alloc();
  hwloc_bitmap_and(Usable, Cpuset, Allowed);
  if (hwloc_bitmap_iszero(Usable))
    hwloc_bitmap_copy(Usable, Allowed);
  unsigned Pu;
  hwloc_bitmap_foreach_begin(Pu, Usable) { Node.AllowedUnits.push_back(Pu); }
  hwloc_bitmap_foreach_end();
  // A core counts once any of its hardware threads is allowed.
  Node.AllowedCores = 0;
  for (hwloc_obj_t Core = nullptr;
       (Core = hwloc_get_next_obj_by_type(Topo, HWLOC_OBJ_CORE, Core));)
    Node.AllowedCores += hwloc_bitmap_intersects(Core->cpuset, Usable);
  if (Node.AllowedCores == 0)
    Node.AllowedCores = unsigned(Node.AllowedUnits.size());
  hwloc_bitmap_free(Usable);
}

CpuNodeInfo describe(hwloc_topology_t Topo, hwloc_cpuset_t Cpuset,
                     unsigned PackageIndex, hwloc_obj_t Numa,
                     hwloc_obj_t Anchor, hwloc_const_cpuset_t Allowed) {
  CpuNodeInfo Node;
  Node.PackageIndex = PackageIndex;
  Node.NumaNodeOsIndex = Numa ? int(Numa->os_index) : -1;
  unsigned Pu;
  hwloc_bitmap_foreach_begin(Pu, Cpuset) { Node.ProcessingUnits.push_back(Pu); }
  hwloc_bitmap_foreach_end();
  Node.CoreCount = unsigned(
      hwloc_get_nbobjs_inside_cpuset_by_type(Topo, Cpuset, HWLOC_OBJ_CORE));
  if (Node.CoreCount == 0)
    Node.CoreCount = unsigned(Node.ProcessingUnits.size());
  describeAllowed(Topo, Cpuset, Allowed, Node);
  Node.Vendor = infoOf(Anchor, "CPUVendor");
  Node.Model = infoOf(Anchor, "CPUModel");
  if (Node.Model.empty())
    Node.Model = "CPU";
  // One entry per cache level and kind, from the first PU's ancestors.
  hwloc_obj_t FirstPu = hwloc_get_next_obj_inside_cpuset_by_type(
      Topo, Cpuset, HWLOC_OBJ_PU, nullptr);
  for (hwloc_obj_t O = FirstPu; O; O = O->parent) {
    if (!hwloc_obj_type_is_cache(O->type) || !O->attr)
      continue;
    CacheLevelInfo C;
    C.Level = O->attr->cache.depth;
    C.SizeBytes = O->attr->cache.size;
    switch (O->attr->cache.type) {
    case HWLOC_OBJ_CACHE_DATA:
      C.Kind = "data";
      break;
    case HWLOC_OBJ_CACHE_INSTRUCTION:
      C.Kind = "instruction";
      break;
    default:
      C.Kind = "unified";
    }
    Node.Caches.push_back(C);
  }
  if (Numa)
    Node.LocalMemoryBytes = Numa->attr ? Numa->attr->numanode.local_memory : 0;
  if (Node.LocalMemoryBytes == 0) {
    hwloc_obj_t Root = hwloc_get_root_obj(Topo);
    Node.LocalMemoryBytes = Root->total_memory;
  }
  Node.MaxClockMHz = maxClockMHz(Node.ProcessingUnits);
  return Node;
}

} // namespace

llvm::Expected<std::unique_ptr<Topology>> Topology::discover() {
  std::unique_ptr<Topology> T(new Topology());
  if (hwloc_topology_init(&T->Hwloc) != 0)
    return llvm::createStringError("hwloc: cannot initialize a topology");
  if (hwloc_topology_load(T->Hwloc) != 0)
    return llvm::createStringError("hwloc: cannot load the machine topology");

  hwloc_topology_t Topo = T->Hwloc;
  hwloc_cpuset_t Allowed = processCpuset(Topo);
  int Packages = hwloc_get_nbobjs_by_type(Topo, HWLOC_OBJ_PACKAGE);
  if (Packages <= 0) {
    // Some virtual machines report no package: the whole machine is one.
    hwloc_obj_t Root = hwloc_get_root_obj(Topo);
    hwloc_obj_t Numa =
        hwloc_get_next_obj_by_type(Topo, HWLOC_OBJ_NUMANODE, nullptr);
    T->Nodes.push_back(describe(Topo, Root->cpuset, 0, Numa, Root, Allowed));
  }
  for (int P = 0; P < Packages; ++P) {
    hwloc_obj_t Pkg =
        hwloc_get_obj_by_type(Topo, HWLOC_OBJ_PACKAGE, unsigned(P));
    if (!Pkg->cpuset || hwloc_bitmap_iszero(Pkg->cpuset))
      continue;
    // NUMA nodes whose CPUs lie inside this package.
    std::vector<hwloc_obj_t> Numas;
    for (hwloc_obj_t N = nullptr;
         (N = hwloc_get_next_obj_by_type(Topo, HWLOC_OBJ_NUMANODE, N));) {
      if (N->cpuset && !hwloc_bitmap_iszero(N->cpuset) &&
          hwloc_bitmap_isincluded(N->cpuset, Pkg->cpuset))
        Numas.push_back(N);
    }
    if (Numas.size() > 1) {
      for (hwloc_obj_t N : Numas)
        T->Nodes.push_back(
            describe(Topo, N->cpuset, unsigned(P), N, Pkg, Allowed));
      continue;
    }
    // One node for the package; its memory is the NUMA node covering it.
    hwloc_obj_t Numa = Numas.empty() ? nullptr : Numas.front();
    if (!Numa) {
      for (hwloc_obj_t N = nullptr;
           (N = hwloc_get_next_obj_by_type(Topo, HWLOC_OBJ_NUMANODE, N));)
        if (N->cpuset && hwloc_bitmap_intersects(N->cpuset, Pkg->cpuset)) {
          Numa = N;
          break;
        }
    }
    T->Nodes.push_back(
        describe(Topo, Pkg->cpuset, unsigned(P), Numa, Pkg, Allowed));
  }
  hwloc_bitmap_free(Allowed);
  if (T->Nodes.empty())
    return llvm::createStringError("hwloc: no processing unit is available");
  if (T->Nodes.size() == 1) {
    // One agent owns all memory. Some virtual machines report a NUMA node
    // smaller than the memory the kernel actually manages; trust the kernel.
    long Pages = sysconf(_SC_PHYS_PAGES), PageSize = sysconf(_SC_PAGESIZE);
    if (Pages > 0 && PageSize > 0)
      T->Nodes[0].LocalMemoryBytes = std::max<uint64_t>(
          T->Nodes[0].LocalMemoryBytes, uint64_t(Pages) * uint64_t(PageSize));
  }
  return T;
}

Topology::~Topology() {
  if (Hwloc)
    hwloc_topology_destroy(Hwloc);
}

void *Topology::allocateOnNode(const CpuNodeInfo &Node, size_t Size) const {
  if (Size == 0)
    return nullptr;
  if (!isPartitioned() || Node.NumaNodeOsIndex < 0) {
    void *P = mmap(nullptr, Size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return P == MAP_FAILED ? nullptr : P;
  }
  hwloc_nodeset_t Set = hwloc_bitmap_alloc();
  hwloc_bitmap_only(Set, unsigned(Node.NumaNodeOsIndex));
  void *P = hwloc_alloc_membind(Hwloc, Size, Set, HWLOC_MEMBIND_BIND,
                                HWLOC_MEMBIND_BYNODESET);
  hwloc_bitmap_free(Set);
  if (!P) { // Binding refused (e.g. no permission): plain memory still works.
    P = mmap(nullptr, Size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
             -1, 0);
    return P == MAP_FAILED ? nullptr : P;
  }
  return P;
}

void Topology::freeOnNode(void *Ptr, size_t Size) const {
  if (!Ptr)
    return;
  if (isPartitioned())
    hwloc_free(Hwloc, Ptr, Size); // Also right for the mmap fallback above.
  else
    munmap(Ptr, Size);
}

bool Topology::bindThisThread(const CpuNodeInfo &Node) const {
  hwloc_cpuset_t Set = hwloc_bitmap_alloc();
  for (unsigned Pu : Node.AllowedUnits)
    hwloc_bitmap_set(Set, Pu);
  int Rc = hwloc_set_cpubind(Hwloc, Set, HWLOC_CPUBIND_THREAD);
  hwloc_bitmap_free(Set);
  return Rc == 0;
}

} // namespace openhsa
