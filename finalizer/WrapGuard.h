//===- finalizer/WrapGuard.h - No index wraps, checked at dispatch -*- C++ -*-//
//
// The vectorizer turns a consecutive access whose index is a 32-bit value
// extended to 64 bits into one vector access only where no lane's index
// wrapped around 2^32 (or 2^31): lanes a step apart modulo 2^32 are a step
// apart in memory only then. Checked in the code, that is a branch and a
// gather per access, and a copy of each loop they are in
// (UniformConditions.h): a third of the median filter's and the stencil's
// finalization, and 5-8 % of their run time.
//
// Most such indices are sums and products of work-item ids, kernel
// arguments and constants (y * width + x). Over a dispatch, each of those is
// within a range the dispatch fixes: an id below its grid's size, an
// argument the one value it was given. A WrapGuard is that computation as
// intervals: where every index the code assumes does not wrap stays,
// computed exactly (in 128 bits), within its type's range over the whole
// grid, no index wraps in any work-item, so no lane's index does (lane L's
// index is then lane 0's plus L steps exactly: see WrapGuardBuilder.h). The
// finalizer compiles such accesses without their checks and records the
// guard in the kernel's symbol (FinalizeRequest::GuardIndexWraps); the
// runtime evaluates it for each dispatch, and where it fails runs the
// kernel finalized with its checks (runtime/ShapeVariants.h).
//
// The guard is a list of nodes, each an operation on nodes before it; a
// Fits node is a requirement. Evaluation knows nothing of LLVM, so that it
// also validates guards read from untrusted bytes (CodeObject::deserialize).
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_WRAPGUARD_H
#define OPENHSA_FINALIZER_WRAPGUARD_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace openhsa::finalizer {

/// What a guard reads of a dispatch.
struct DispatchGeometry {
  unsigned Dims = 1;
  uint32_t Grid[3] = {1, 1, 1};
  uint32_t Workgroup[3] = {1, 1, 1};
  const void *Kernarg = nullptr;
  size_t KernargBytes = 0; // Bytes readable at Kernarg.
};

struct WrapGuard {
  enum class Op : uint8_t {
    Const,         // Value.
    Kernarg,       // The Bits-bit argument at byte A of the kernarg segment.
    WorkItemId,    // Dimension A: [0, workgroup size - 1].
    WorkGroupId,   // [0, groups along A - 1].
    WorkGroupSize, // The packet's workgroup size along A.
    CurrentWorkGroupSize, // [1, the workgroup size along A].
    GridSize,             // The packet's grid size along A.
    GridGroups,           // Work-groups along A.
    Dim,                  // The dispatch's dimensions.
    Add,                  // A + B.
    Sub,                  // A - B.
    Mul,                  // A * B.
    Not,                  // -A - 1 (a bitwise not).
    ZExt,                 // A, which must lie in [0, 2^Bits).
    SExt,                 // A, which must lie in [-2^(Bits-1), 2^(Bits-1)).
    UDiv,                 // A / B, both in [0, 2^Bits), B at least 1.
    LShr,                 // A / 2^B (B a constant below 64), A in [0, 2^Bits).
    UMin,
    UMax, // Operands in [0, 2^Bits).
    SMin,
    SMax,    // Operands in the signed Bits-bit range.
    Hull,    // A or B (a select).
    Mask,    // A & Value, Value >= 0: [0, Value].
    Iterate, // A + n * B for n in [0, C]: an induction over a loop
             // whose back edge is taken at most C times.
    Fits,    // Requires A within [0, 2^Bits) (Signed: the signed
             // Bits-bit range); its value is A's.
  };
  struct Node {
    Op Kind = Op::Const;
    uint8_t Bits = 0;
    bool Signed = false;
    uint32_t A = 0, B = 0, C = 0;
    int64_t Value = 0;
    bool operator==(const Node &) const = default;
  };
  std::vector<Node> Nodes;

  bool empty() const { return Nodes.empty(); }
  /// Appends Other's nodes (both guards must hold).
  void append(const WrapGuard &Other);
  /// Empty where the nodes are well formed (operands before their node,
  /// widths and dimensions in range, at most MaxNodes), else why not.
  std::string validate() const;
  /// Whether every Fits node holds for the dispatch. Kernel arguments count
  /// as signed, and where that fails as unsigned (lane indices are one or
  /// the other). False where a guard reads past KernargBytes, or a value
  /// exceeds 128 bits. The guard must be valid.
  bool holds(const DispatchGeometry &D) const;

  /// The bytes of the kernarg segment it reads: the end of its last
  /// argument (0: none).
  size_t kernargExtent() const;

  static constexpr size_t MaxNodes = 4096;
  bool operator==(const WrapGuard &) const = default;
};

} // namespace openhsa::finalizer

#endif
