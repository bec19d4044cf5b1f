//===- runtime/ShapeVariants.cpp - Kernels finalized for a shape ----------===//

#include "runtime/ShapeVariants.h"

#include "cpu_agent/KernelFaults.h"
#include "finalizer/FinalizeCache.h"
#include "runtime/core/Log.h"

#include "llvm/ADT/SmallVector.h"

#include <cstring>

namespace openhsa {

namespace {
/// S's request, asking for the code of every kernel (none deferred).
finalizer::FinalizeRequest
requestWithAllCode(const finalizer::FinalizeSource &S) {
  finalizer::FinalizeRequest R = S.Request;
  R.DeferShapeVariantCode = false;
  R.DeferPartialWaveCode = false;
  return R;
}

/// R asking for all code, with every wrap check in it: for dispatches
/// whose guard fails, and for bytes that load where no guard is evaluated.
finalizer::FinalizeRequest withChecks(finalizer::FinalizeRequest R) {
  R.DeferShapeVariantCode = false;
  R.DeferPartialWaveCode = false;
  R.GuardIndexWraps = false;
  return R;
}
} // namespace

ShapeVariants::ShapeVariants(
    std::shared_ptr<const finalizer::FinalizeSource> Source,
    const finalizer::KernelSymbol &Symbol,
    const cpu::KernelDescriptor &Original)
    : Source(std::move(Source)), Name(Symbol.Name), Original(Original),
      ForShapes(Symbol.ShapeVariants),
      WholeWaveWidth(Symbol.WholeWaveRows ? Symbol.VectorWidth : 0) {
  OriginalCode.Request = this->Source->Request;
  OriginalCode.Guard = Symbol.Guard;
}

ShapeVariants::~ShapeVariants() = default;

bool ShapeVariants::suitable(const uint32_t (&Grid)[3],
                             const uint32_t (&Wg)[3]) {
  // Unused dimensions are 1 (the packet processor checks).
  for (unsigned D = 0; D < 3; ++D)
    if (Wg[D] == 0 || Grid[D] % Wg[D] != 0)
      return false;
  return true;
}

const cpu::KernelDescriptor *
ShapeVariants::variantFor(unsigned Dims, const uint32_t (&Grid)[3],
                          const uint32_t (&Wg)[3], const void *Kernarg) {
  Variant *Slot = nullptr;
  const cpu::KernelDescriptor *D = byShape(Grid, Wg, Slot);
  // A variant's guard does not change once it is made: no lock to read it.
  if (Slot->Guard.empty())
    return D;
  finalizer::DispatchGeometry G;
  G.Dims = Dims;
  for (unsigned I = 0; I < 3; ++I) {
    G.Grid[I] = Grid[I];
    G.Workgroup[I] = Wg[I];
  }
  // The arguments the guard reads, copied with the thread's recovery point
  // armed: a packet's bad kernarg address is the kernel's fault to report
  // (it reads them too), not a crash of the runtime. A guard that cannot
  // read them fails.
  llvm::SmallVector<uint8_t, 256> Args(std::min<size_t>(
      Slot->Guard.kernargExtent(), Original.KernargSegmentSize));
  if (!Args.empty() && Kernarg) {
    struct Copy {
      const void *From;
      void *To;
      size_t Bytes;
    } C{Kernarg, Args.data(), Args.size()};
    if (cpu::runKernelCode(
            [](void *Data) {
              auto *C = static_cast<Copy *>(Data);
              std::memcpy(C->To, C->From, C->Bytes);
            },
            &C) == 0) {
      G.Kernarg = Args.data();
      G.KernargBytes = Args.size();
    }
  }
  return guarded(*Slot, D, G);
}

const cpu::KernelDescriptor *ShapeVariants::byShape(const uint32_t (&Grid)[3],
                                                    const uint32_t (&Wg)[3],
                                                    Variant *&Slot) {
  Slot = &OriginalCode;
  if (WholeWaveWidth) {
    // Rows are whole waves where the group's X size and the grid's are
    // (the grid's last group along X is then whole waves too).
    if (Wg[0] % WholeWaveWidth == 0 && Grid[0] % WholeWaveWidth == 0)
      return nullptr;
    std::lock_guard<std::mutex> Lock(Mutex);
    if (!Generic)
      Generic = finalizeGeneric();
    Slot = &*Generic;
    return Generic->Kernel ? Generic->Kernel.get() : &NoCode;
  }
  if (!ForShapes)
    return nullptr; // A guard of its own only.
  const bool Deferred = Original.Entry == nullptr;
  const bool WholeGroups = suitable(Grid, Wg);
  if (!WholeGroups && !Deferred)
    return nullptr; // The kernel's own code, without the lock.
  std::lock_guard<std::mutex> Lock(Mutex);
  if (WholeGroups) {
    const Shape S{Wg[0], Wg[1], Wg[2]};
    auto It = ByShape.find(S);
    if (It == ByShape.end())
      It = ByShape.emplace(S, finalizeFor(S)).first;
    if (It->second.Kernel)
      Slot = &It->second;
    if (It->second.Kernel || !Deferred)
      return It->second.Kernel.get();
  }
  if (!Deferred)
    return nullptr;
  if (!Generic)
    Generic = finalizeGeneric();
  Slot = &*Generic;
  return Generic->Kernel.get();
}

const cpu::KernelDescriptor *
ShapeVariants::guarded(Variant &V, const cpu::KernelDescriptor *D,
                       const finalizer::DispatchGeometry &G) {
  if (V.Guard.holds(G))
    return D;
  std::lock_guard<std::mutex> Lock(Mutex);
  if (!V.Checked)
    V.Checked = std::make_unique<Variant>(
        load(withChecks(V.Request), "where its guard fails",
             "its code with wrap checks, finalized now", /*Needed=*/true));
  return V.Checked->Kernel ? V.Checked->Kernel.get() : &NoCode;
}

ShapeVariants::Variant ShapeVariants::finalizeFor(const Shape &S) const {
  // The program's request, the shape added as the directives a program
  // would give: requiredworkgroupsize and requirenopartialworkgroups.
  finalizer::FinalizeRequest R = Source->Request;
  R.Directives.ControlDirectivesMask |= uint64_t(1) << 8 | uint64_t(1) << 9;
  for (unsigned D = 0; D < 3; ++D)
    R.Directives.RequiredWorkgroupSize[D] = S[D];
  const std::string Groups = std::to_string(S[0]) + "x" + std::to_string(S[1]) +
                             "x" + std::to_string(S[2]);
  return load(R, "in groups of " + Groups, "a variant for them",
              /*Needed=*/Original.Entry == nullptr);
}

ShapeVariants::Variant ShapeVariants::finalizeGeneric() const {
  if (WholeWaveWidth)
    return load(requestWithAllCode(*Source), "with partial waves",
                "its code for them, finalized now", /*Needed=*/true);
  return load(requestWithAllCode(*Source), "without a variant",
              "its deferred code, finalized now", /*Needed=*/true);
}

ShapeVariants::Variant ShapeVariants::load(const finalizer::FinalizeRequest &R,
                                           const std::string &What,
                                           const char *Runs,
                                           bool Needed) const {
  // Without the code a dispatch asks for, it cannot run (the kernel's own
  // code runs only whole-wave rows, or where its guard holds).
  auto Refuse = [&](const std::string &Why) {
    log::write(Needed ? log::Level::Error : log::Level::Info,
               "%s %s runs %s: %s", Name.c_str(), What.c_str(),
               Needed ? "no code" : "as finalized", Why.c_str());
    return Variant{};
  };
  auto CO = finalizer::finalizeCached(R);
  if (!CO)
    return Refuse(llvm::toString(CO.takeError()));
  const finalizer::KernelSymbol *K = nullptr;
  for (const finalizer::KernelSymbol &Symbol : CO->Kernels)
    if (Symbol.Name == Name)
      K = &Symbol;
  if (!K)
    return Refuse("the kernel is gone");
  if (K->CodeDeferred || K->WholeWaveRows)
    return Refuse("its code was deferred again");
  if (K->KernargSegmentSize > Original.KernargSegmentSize ||
      K->GroupSegmentSize != Original.GroupSegmentSize)
    return Refuse("its segments differ");
  auto Code = finalizer::LoadedObject::load(*CO, {});
  if (!Code)
    return Refuse(llvm::toString(Code.takeError()));
  auto Entry = (*Code)->address(K->EntrySymbol);
  if (!Entry)
    return Refuse(llvm::toString(Entry.takeError()));
  auto D = std::make_unique<cpu::KernelDescriptor>();
  D->Entry = reinterpret_cast<hsa_ext_openhsa_workgroup_fn_t>(*Entry);
  D->Owner = Original.Owner;
  D->GroupSegmentSize = K->GroupSegmentSize;
  D->PrivateSegmentSize = K->PrivateSegmentSize;
  D->KernargSegmentSize = Original.KernargSegmentSize;
  D->KernargSegmentAlignment = Original.KernargSegmentAlignment;
  D->SliceStep = K->SliceStep;
  D->GroupRuns = K->GroupRuns;
  log::write(log::Level::Info, "%s %s runs %s%s", Name.c_str(), What.c_str(),
             Runs, K->Lockstep ? ", as a lockstep group" : "");
  Variant V;
  V.Code = std::move(*Code);
  V.Kernel = std::move(D);
  V.Request = R;
  V.Guard = K->Guard;
  return V;
}

llvm::Expected<std::shared_ptr<const finalizer::CodeObject>>
withAllCode(std::shared_ptr<const finalizer::CodeObject> CO) {
  if (llvm::none_of(CO->Kernels, [](const finalizer::KernelSymbol &K) {
        return K.CodeDeferred || K.WholeWaveRows || !K.Guard.empty();
      }))
    return CO;
  if (!CO->Source)
    return llvm::createStringError(
        "the code object has kernels without code and nothing to finalize "
        "them from");
  auto Full = finalizer::finalizeCached(withChecks(CO->Source->Request));
  if (!Full)
    return Full.takeError();
  Full->Source = CO->Source;
  return std::make_shared<const finalizer::CodeObject>(std::move(*Full));
}

} // namespace openhsa
