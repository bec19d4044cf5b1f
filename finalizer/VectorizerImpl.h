//===- finalizer/VectorizerImpl.h - Inside the vectorizer -------*- C++ -*-===//
//
// The parts of the work-item vectorizer (finalizer/WorkItemVectorizer.h),
// one file each, share this: the class that vectorizes one body, and the
// markers and layouts they pass between them.
//   WorkItemVectorizer.cpp  preparation, the register file's layout, run()
//   VectorizerAnalysis.cpp  varying values, strides, the shapes masks need
//   VectorizerWiden.cpp     masks, branches, widening, the finishing touches
//   VectorizerGroup.cpp     what the waves of a group share, and the waves of
//                           a row that have nothing to do
// Internal to finalizer/: nothing else includes it.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_VECTORIZERIMPL_H
#define OPENHSA_FINALIZER_VECTORIZERIMPL_H

#include "finalizer/Lowering.h"
#include "finalizer/PrivateInterleaving.h"
#include "finalizer/WorkItemVectorizer.h"
#include "finalizer/WrapGuard.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace openhsa::finalizer::vectorizer {

using namespace llvm;

inline Error unsupported(const Twine &Why) { return createStringError(Why); }

/// Marks the loads of resumable body F (before prepare() restructures its
/// entry's dispatch on the resume point) that it may run again in a later
/// region: those on a loop whose back-edge goes through a barrier (the
/// tiled sgemm's tile loads), which LoopInfo does not see, the body
/// returning at the barrier and resuming where its entry dispatches to.
/// The mark is metadata RepeatedLoad, which clones keep.
inline constexpr const char *RepeatedLoad = "openhsa.repeated";
void markLoadsRepeatedAcrossBarriers(Function &F);

inline bool isQuery(const Function *Callee, const char *Name) {
  return Callee && Callee->getName() == Name;
}

/// Whether a call has effects beyond its result, so that each lane must
/// make it.
inline bool hasEffects(const CallInst &CI) { return !CI.doesNotAccessMemory(); }

inline Type *vectorOf(Type *T, unsigned W) {
  return FixedVectorType::get(T, W);
}

/// Whether BB ends in a conditional branch on a value IsVar says varies.
bool branchesOn(const BasicBlock *BB, function_ref<bool(const Value *)> IsVar);

/// `i64 (i32 slot)`: the lane's index in the wave, 0 to W-1, for the
/// address of register file slot `slot`; only in bodies being vectorized
/// (the register file's layout below). Where the slot turns out uniform it
/// is 0: the wave keeps one copy, in lane 0's place.
inline constexpr const char *LaneMarker = "openhsa.vectorizer.lane";

/// `ptr (i32 slot, i1 store)`: where register file slot `slot`'s copies
/// start, for a load (false) or a store (true); only in bodies being
/// vectorized. finish() puts the address: the wave's file (per wave, lane
/// by lane), or for a slot the whole group shares the group's file, whose
/// loads read the copy the group had at the region's start and whose
/// stores write the copy it passes on (see findGroupSharedSlots).
inline constexpr const char *SlotBaseMarker = "openhsa.vectorizer.slotbase";

/// Where a body vectorized in rows tells the work-group function that its
/// register file has slots the group shares (a function attribute whose
/// value is the distance between the group's two copies, then each shared
/// slot's offset and size: "48;12:4,20:8"; see groupRegisterSlots).
inline constexpr const char *GroupRegistersAttr = "openhsa-group-registers";

/// The stores to each register file slot (interleaveRegisterFile).
using SlotStores = std::vector<std::pair<StoreInst *, unsigned>>;

/// The register file as the vectorizer lays it out (interleaveRegisterFile).
struct RegisterFileLayout {
  Value *Wave = nullptr;  // The wave's file (query::WaveRegisterFile).
  Value *Group = nullptr; // The group's (query::GroupRegisterFile).
  uint64_t Bytes = 0;     // The scalar file's size: one copy of each slot.
  std::vector<uint64_t> SlotOffsets; // Each slot's offset in the file.
  std::vector<unsigned> SlotBytes;
  /// Offsets of registers that a region may load after storing them (all
  /// of them where Unknown).
  std::set<uint64_t> ReadAfterWritten;
  bool Unknown = false;
};

/// An extension of a value whose lanes step by Step: the lanes stay
/// consecutive after it only if none wraps around in the narrower type,
/// which is tested at run time on lane 0's value.
struct WrapCheck {
  Value *Narrow;
  int64_t Step;
  bool Signed;
};

/// How a varying integer or pointer changes from lane to lane: lane L holds
/// lane 0's value + L * Step, provided the Checks hold. In a 2-D group in
/// lockstep (Vectorizer::RowWidth), lane L of a row holds the row's first
/// lane's value + L * Step.
struct LaneStride {
  int64_t Step = 0;
  SmallVector<WrapCheck, 1> Checks;
};

/// One per-lane copy of an instruction, to run only if its lane is active.
struct LaneOp {
  Instruction *Inst;
  Value *LaneActive;
};

/// A consecutive access whose lanes may have wrapped: run Fast if Cond
/// holds, else Slow (a gather or scatter). Fast is the last of FastParts
/// (one access per row and their concatenation, in a 2-D group in
/// lockstep), which run under Cond together; Slow the last of SlowParts,
/// or what SlowLoop emits.
struct CheckedAccess {
  Value *Cond;
  SmallVector<Instruction *, 1> FastParts, SlowParts;
  /// Where set, the slow path is a loop it emits at the builder (after
  /// SlowParts), returning the loaded vector (null for a store).
  std::function<Value *(IRBuilder<> &)> SlowLoop;
  Instruction *fast() const { return FastParts.back(); }
};

class Vectorizer {
public:
  Vectorizer(Function &F, unsigned W, const WorkItemStateLayout &State,
             SlotStores RegisterStores, RegisterFileLayout File,
             WaveLayout Layout, unsigned RowWidth, WrapGuard *Guard)
      : F(F), W(W), RowWidth(RowWidth), Layout(Layout), Guard(Guard),
        State(State), RegisterStores(std::move(RegisterStores)),
        File(std::move(File)), Ctx(F.getContext()),
        DL(F.getParent()->getDataLayout()), Active(F.getArg(F.arg_size() - 1)),
        WorkItem(F.getArg(1)) {}
  Error run();
  const VectorizeStats &stats() const { return Stats; }

private:
  // Analysis.
  Error checkInstructions();
  void findVarying();
  bool computeVarying(Instruction &I);
  /// Blocks every lane that entered the body runs (no varying branch or
  /// loop exit decides whether they do).
  DenseSet<const BasicBlock *> wholeWaveBlocks() const;
  /// Register slots whose every store is of a uniform value in a block
  /// the whole wave runs stay uniform: one copy per wave.
  void findVaryingSlots();
  bool isVarying(const Value *V) const { return Varying.count(V); }
  bool isDivergent(const BasicBlock *BB) const;
  /// Blocks every lane (every work-item of the group) that entered the body
  /// runs, where a branch or loop exit on a value IsVar says varies decides
  /// who runs the others.
  DenseSet<const BasicBlock *>
  wholeBlocks(function_ref<bool(const Value *)> IsVar) const;
  /// Whether a branch on a value IsVar says varies decides which of P's
  /// incoming edges a lane (work-item) comes by.
  bool mergesLanes(const PHINode &P,
                   function_ref<bool(const Value *)> IsVar) const;

  // What the waves of a group share (WaveLayout::Rows, resumable bodies).
  /// Values that may differ between the group's waves: the varying ones,
  /// and those computed from Y and Z ids, cross-lane operations, a wave's
  /// own register slots...
  bool computeGroupVarying(Instruction &I);
  /// Register slots whose every store is of a value the same in every
  /// work-item of the group, in a block the whole group runs, and that no
  /// load of the same region reads after a store: each wave's copy would
  /// hold the same value, so the group keeps one (two: see SlotBaseMarker).
  void findGroupSharedSlots();
  bool isGroupVarying(const Value *V) const { return GroupVarying.count(V); }
  /// Whether I changes anything the group's other waves or later regions
  /// could see, besides a store of a register slot the group shares.
  bool hasVisibleEffect(const Instruction &I) const;
  /// Whether the waves after this one in its row have nothing to do up to
  /// the next barrier (RowDoneBias): this wave's lanes were all on, it did
  /// nothing another wave could see (besides storing registers the group
  /// shares), and a later wave would take the same path. Varying if-thens
  /// that only work-items whose X id is below a bound the whole group
  /// shares enter (`if (lx < s)`), a later wave skips too once this one is
  /// past the bound.
  void findRowSkips();
  void emitRowSkips();
  struct RowSkip {
    BasicBlock *If, *Join;
    Value *X;
    CmpInst::Predicate Done; // X0 Done Bound: later waves have nothing to do.
    Value *Bound;
  };
  std::vector<RowSkip> RowSkips;
  /// Blocks (run: Join null) or varying ifs (skipped: the edge to Join)
  /// after which a later wave of the row might do what this one did not;
  /// for an if of RowSkips, unless the wave is past its bound.
  struct MayDifferAt {
    BasicBlock *At, *Join;
    const RowSkip *Bounded;
  };
  std::vector<MayDifferAt> MayDiffer;
  DenseSet<const Value *> GroupVarying;
  DenseSet<unsigned> GroupSharedSlots;
  /// Whether P's lanes may come from different incoming edges (a divergent
  /// join, or the exit of a loop lanes leave at different iterations).
  bool mergesLanes(const PHINode &P) const;
  /// Whether BB ends in its loop's back edge (and the loop's exit).
  bool isLatchBranch(const BasicBlock *BB) const;
  /// The block a varying if-then at BB joins at; nullptr for latches and
  /// uniform branches.
  BasicBlock *divergentJoin(const BasicBlock *BB) const;
  std::optional<LaneStride> strideOf(Value *V);
  /// Whether V is HSAIL's 32-bit workitemabsid along X as the lowering
  /// computes it (LowerWorkItem.cpp): the group's id times the group's
  /// size (its query, or a constant: a fixed shape's size folded in), plus
  /// the work-item's id. Its lanes need no wrap check: a work-item's id is
  /// below the grid's size, so a row's lanes, consecutive from lane 0's,
  /// never wrap where they are work-items, and lanes past the grid's end
  /// are off.
  bool isAbsoluteIdX(const Value *V) const;
  /// Lane Lane's value of V, computed with scalar instructions at B.
  Value *scalarAt(Value *V, unsigned Lane, IRBuilder<> &B);
  /// Whether S's wrap checks hold in row Row (nullptr: always; false:
  /// never).
  Value *noWrap(const LaneStride &S, unsigned Row, IRBuilder<> &B);
  /// In a 2-D group in lockstep, how integer V changes from one row's first
  /// lane to the next's where V is linear in the row modulo 2^bits (the Y
  /// id steps by one; uniform values, the X id and the lane's column by
  /// none; sums, differences, products by a uniform value and left shifts
  /// keep that), computed at B. Null where it may not be.
  Value *rowDelta(Value *V, IRBuilder<> &B);
  /// Whether S's wrap checks hold in every row, from row 0's value of each
  /// check's narrow value and its rowDelta: if row 0's and the last row's,
  /// computed in 64 bits without wrapping, are within the check's bounds,
  /// so is every row's in between, and each row's value is row 0's plus
  /// the delta times the row, exactly. Two comparisons where noWrap row by
  /// row made one chain of scalar instructions per row, which was a third
  /// of the tiled sgemm's finalization. Null where a narrow value is wider
  /// than 32 bits or not linear in the row.
  Value *noWrapInAllRows(const LaneStride &S, IRBuilder<> &B);
  /// Whether a consecutive access at Ptr in block BB, lanes a stride S
  /// apart, may be one vector access per row under Mask: noWrap, or (group
  /// segment) the row's first lane on, in every row. Linear says whether
  /// each row's index is then row 0's plus a multiple of the row delta,
  /// exactly (noWrapInAllRows; or group memory in a lockstep group's whole
  /// blocks, whose every lane's access is in bounds).
  Value *consecutiveHolds(Value *Ptr, const LaneStride &S, Value *Mask,
                          const BasicBlock *BB, IRBuilder<> &B,
                          bool *Linear = nullptr);
  /// consecutiveHolds as checked in the code, whatever the guard.
  Value *checkedConsecutive(Value *Ptr, const LaneStride &S, Value *Mask,
                            const BasicBlock *BB, IRBuilder<> &B, bool *Linear);
  /// With a guard (vectorizeWorkItemBody), the wrap checks of the body's
  /// accesses that the guard can take over (WrapGuardBuilder.h): their
  /// requirements go into it, before the body changes.
  void findGuardedWraps();
  /// Whether the guard covers every wrap check of S.
  bool guarded(const LaneStride &S) const;
  /// Whether Ptr points into group memory and BB is a block every lane of a
  /// lockstep group runs: every access there is in bounds, or undefined.
  bool inBoundsGroupAccess(const Value *Ptr, const BasicBlock *BB) const;
  /// The address of each row's first lane of Ptr: where Linear and Ptr is
  /// Base + zext(X) << Shift with X linear in the row, row 0's plus the row
  /// delta row by row; else scalarAt each row's first lane.
  SmallVector<Value *, 16> rowAddresses(Value *Ptr, Type *ElemTy, bool Linear,
                                        IRBuilder<> &B);
  /// The lanes of Mask in row Row.
  Value *rowMask(Value *Mask, unsigned Row, IRBuilder<> &B);
  /// A consecutive load of VT (W lanes) at Ptr under Mask: a masked load
  /// per row, concatenated. The instructions it made go to Parts (its
  /// result last).
  Value *loadRows(Type *VT, Value *Ptr, Align A, Value *Mask, IRBuilder<> &B,
                  SmallVectorImpl<Instruction *> &Parts, bool Linear = false);
  /// Stores Val's lanes consecutively at Ptr under Mask, a masked store
  /// per row; the stores go to Parts.
  void storeRows(Value *Val, Value *Ptr, Align A, Value *Mask, IRBuilder<> &B,
                 SmallVectorImpl<Instruction *> &Parts, bool Linear = false);
  /// A load whose lanes all read one address in each row (a 2-D group in
  /// lockstep: A's tile row, the same for the row's work-items): a scalar
  /// load per row that has a lane on, each row's value in all its lanes.
  Value *loadRowSplats(LoadInst &L, Value *Mask, IRBuilder<> &B);
  Error checkShape();

  // Masks.
  Value *maskOf(BasicBlock *BB); // A stand-in until buildMasks.
  /// The mask of BB's memory accesses: all on where BB is a block every
  /// lane of a lockstep group runs (the group is whole, and its one call
  /// has every lane on: CpuTarget.cpp), else maskOf(BB).
  Value *accessMask(BasicBlock *BB);
  Value *edgeMask(BasicBlock *P, BasicBlock *S);
  Value *laneCondition(IRBuilder<> &B, Value *Cond);
  void buildMasks();
  void rewriteBranches();
  bool runsWithoutBranch(BasicBlock *Then, BasicBlock *Join) const;

  // Widening.
  Value *vec(Value *V);
  Value *splat(Value *V, IRBuilder<> &B);
  Error widen(Instruction &I);
  /// Prefetches what consecutive load L, whose lane 0 reads First, would
  /// read prefetchGroupsAhead() work-groups further along X, where L is in
  /// a resumable body and may read memory other than the group's, the
  /// work-item's or the register file.
  void prefetchForLaterGroups(LoadInst &L, Value *First, IRBuilder<> &B);
  /// A masked gather of VT at Ptrs (VectorizerWiden.cpp): AVX2's gather
  /// instructions where Cold on targets without AVX-512, else LLVM's.
  Value *maskedGather(Type *VT, Value *Ptrs, Align Alignment, Value *Mask,
                      IRBuilder<> &B, bool Cold);
  /// Ptr as Base + zext(X) << Shift (VectorizerWiden.cpp), for AVX-512's
  /// accesses by 32-bit indices.
  std::optional<struct Index32Address> index32Address(Value *Ptr, Type *ElemTy,
                                                      IRBuilder<> &B,
                                                      bool ForGathers = true);
  /// In a 2-D group in lockstep, the slow path of a consecutive access at
  /// Ptr whose lanes may have wrapped their 32-bit index (Val: the stored
  /// vector; null for a load): a loop over the lanes, one scalar access
  /// each, in lane order, from each row's first index; the parts it needs
  /// beforehand go to Parts. Null where Ptr is not Base + zext(X) << Shift.
  /// A gather of the group's 64-bit addresses was half of the tiled sgemm's
  /// finalization, for a path that runs only where a row's index wraps.
  std::function<Value *(IRBuilder<> &)> laneLoopRows(Value *Ptr, Type *ElemTy,
                                                     Value *Mask, Value *Val,
                                                     IRBuilder<> &B);
  Value *gatherBy32BitIndices(LoadInst &L, Type *VT, Value *Mask,
                              IRBuilder<> &B);
  Error widenCall(CallInst &CI, IRBuilder<> &B);
  Error widenLoad(LoadInst &L, IRBuilder<> &B);
  Error widenStore(StoreInst &S, IRBuilder<> &B);
  Error widenPhi(PHINode &P, IRBuilder<> &B);
  Value *laneByLane(Instruction &I, IRBuilder<> &B,
                    SmallVectorImpl<Instruction *> *Copies = nullptr);
  Error widenCmpXchg(Instruction &I, IRBuilder<> &B);
  Value *laneWorkItem(IRBuilder<> &B, unsigned Lane);
  Value *laneIds();
  /// The lanes' offsets from lane 0's id along dimension D: <0, 1, ...>
  /// along X, or in a 2-D group in lockstep the lanes' columns (D 0) and
  /// rows (D 1).
  Value *laneOffsets(unsigned D);
  /// WaveLayout::Flat: the lanes' X, Y and Z ids, computed at the entry.
  std::array<Value *, 3> &flatIds();
  std::array<Value *, 3> FlatIds{};
  /// The cross-lane queries (query::Wave*) that stay uniform: ballots and
  /// wave barriers, once the masks they read exist.
  void lowerUniformWaveQueries();
  void guardLaneOps();
  Error finish();

  Function &F;
  unsigned W;
  /// Lanes per row: W, but for a 2-D group in lockstep, whose W / RowWidth
  /// rows each hold RowWidth lanes (lane L: X id + L mod RowWidth, Y id +
  /// L / RowWidth). Strides (LaneStride) are then from lane to lane within
  /// a row; each row starts where scalarAt says.
  unsigned RowWidth;
  bool inRows() const { return RowWidth < W; }
  unsigned rows() const { return W / RowWidth; }
  WaveLayout Layout;
  /// Where set, wrap checks it covers are left out of the code
  /// (findGuardedWraps).
  WrapGuard *Guard;
  WorkItemStateLayout State;
  SlotStores RegisterStores;
  RegisterFileLayout File; // The wave's register file, if any.
  DenseSet<unsigned> VaryingSlots;
  DenseSet<const BasicBlock *> WholeWave;
  /// Whether P points into the wave's or the group's register file, which
  /// nothing but the body's own register loads and stores reaches.
  bool isRegisterFile(const Value *P) const {
    if (!File.Wave)
      return false;
    const Value *U = getUnderlyingObject(P);
    auto *CI = dyn_cast<CallInst>(U);
    return U == File.Wave || U == File.Group ||
           (CI && isQuery(CI->getCalledFunction(), SlotBaseMarker));
  }
  /// Whether P points into the wave's interleaved private data
  /// (PrivateInterleaving.h), which only the body's private loads and
  /// stores reach: the wave's file query at the private data's offset.
  bool isPrivateArea(const Value *P) const {
    auto *CI = dyn_cast<CallInst>(getUnderlyingObject(P));
    if (!CI || CI == File.Wave ||
        !isQuery(CI->getCalledFunction(), query::WaveRegisterFile))
      return false;
    auto *Offset = dyn_cast<ConstantInt>(CI->getArgOperand(1));
    return Offset && Offset->getZExtValue() == State.WavePrivateOffset;
  }
  /// The slot a register file marker (LaneMarker, SlotBaseMarker) is for.
  static unsigned slotOf(const CallInst &Marker) {
    return unsigned(cast<ConstantInt>(Marker.getArgOperand(0))->getZExtValue());
  }
  void scopeRegisterFile();
  LLVMContext &Ctx;
  const DataLayout &DL;
  Value *Active, *WorkItem;
  DominatorTree DT;
  PostDominatorTree PDT;
  LoopInfo LI;
  std::vector<BasicBlock *> RPO;
  /// The body has group barriers: the wave is its whole group, in lockstep
  /// (LockstepGroups.h).
  bool LockstepGroup = false;

  DenseSet<const Value *> Varying;
  DenseSet<const Instruction *> KeepScalar; // Varying, but the scalar stays.
  DenseMap<Value *, std::optional<LaneStride>> Strides;
  DenseMap<Value *, Value *> Vec, Splats;
  /// Scalar phis for a lane of a varying phi (scalarAt, rows).
  DenseMap<std::pair<PHINode *, unsigned>, PHINode *> ScalarPhis;
  /// The phis rowDelta is looking through (a cycle is not linear).
  SmallPtrSet<const PHINode *, 4> RowDeltaPhis;
  /// By narrow value and signedness, whether Guard covers the wrap check.
  std::map<std::pair<const Value *, bool>, bool> GuardedWraps;
  DenseMap<BasicBlock *, Instruction *> StandInMasks;
  DenseMap<BasicBlock *, Value *> Masks;
  DenseMap<std::pair<BasicBlock *, BasicBlock *>, Value *> EdgeMasks;
  DenseMap<Loop *, Value *> LoopEntryMasks;
  std::vector<std::pair<PHINode *, PHINode *>> PendingPhis;
  std::vector<LaneOp> LaneOps;
  std::vector<CheckedAccess> CheckedAccesses;
  std::vector<Instruction *> Replaced;
  std::vector<Value *> LaneWorkItems;
  Value *LaneIdVector = nullptr;
  VectorizeStats Stats;
};

} // namespace openhsa::finalizer::vectorizer

#endif
