//===- runtime/ShapeVariants.cpp - Kernels finalized for a shape ----------===//

#include "runtime/ShapeVariants.h"

#include "finalizer/FinalizeCache.h"
#include "runtime/core/Log.h"

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
} // namespace

ShapeVariants::ShapeVariants(
    std::shared_ptr<const finalizer::FinalizeSource> Source, std::string Name,
    const cpu::KernelDescriptor &Original, unsigned WholeWaveWidth)
    : Source(std::move(Source)), Name(std::move(Name)), Original(Original),
      WholeWaveWidth(WholeWaveWidth) {}

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
ShapeVariants::variantFor(unsigned, const uint32_t (&Grid)[3],
                          const uint32_t (&Wg)[3]) {
  if (WholeWaveWidth) {
    // Rows are whole waves where the group's X size and the grid's are
    // (the grid's last group along X is then whole waves too).
    if (Wg[0] % WholeWaveWidth == 0 && Grid[0] % WholeWaveWidth == 0)
      return nullptr;
    std::lock_guard<std::mutex> Lock(Mutex);
    if (!Generic)
      Generic = finalizeGeneric();
    return Generic->Kernel ? Generic->Kernel.get() : &NoCode;
  }
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
    if (It->second.Kernel || !Deferred)
      return It->second.Kernel.get();
  }
  if (!Deferred)
    return nullptr;
  if (!Generic)
    Generic = finalizeGeneric();
  return Generic->Kernel.get();
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
  return load(R, "in groups of " + Groups, "a variant for them");
}

ShapeVariants::Variant ShapeVariants::finalizeGeneric() const {
  if (WholeWaveWidth)
    return load(requestWithAllCode(*Source), "with partial waves",
                "its code for them, finalized now");
  return load(requestWithAllCode(*Source), "without a variant",
              "its deferred code, finalized now");
}

ShapeVariants::Variant ShapeVariants::load(const finalizer::FinalizeRequest &R,
                                           const std::string &What,
                                           const char *Runs) const {
  // Without the code a dispatch asks for, it cannot run (the kernel's own
  // code runs only whole-wave rows).
  const bool Deferred = Original.Entry == nullptr || WholeWaveWidth;
  auto Refuse = [&](const std::string &Why) {
    log::write(Deferred ? log::Level::Error : log::Level::Info,
               "%s %s runs %s: %s", Name.c_str(), What.c_str(),
               Deferred ? "no code" : "as finalized", Why.c_str());
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
  return V;
}

llvm::Expected<std::shared_ptr<const finalizer::CodeObject>>
withAllCode(std::shared_ptr<const finalizer::CodeObject> CO) {
  if (llvm::none_of(CO->Kernels, [](const finalizer::KernelSymbol &K) {
        return K.CodeDeferred || K.WholeWaveRows;
      }))
    return CO;
  if (!CO->Source)
    return llvm::createStringError(
        "the code object has kernels without code and nothing to finalize "
        "them from");
  auto Full = finalizer::finalizeCached(requestWithAllCode(*CO->Source));
  if (!Full)
    return Full.takeError();
  Full->Source = CO->Source;
  return std::make_shared<const finalizer::CodeObject>(std::move(*Full));
}

} // namespace openhsa
