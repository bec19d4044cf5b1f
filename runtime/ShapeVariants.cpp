//===- runtime/ShapeVariants.cpp - Kernels finalized for a shape ----------===//

#include "runtime/ShapeVariants.h"

#include "finalizer/FinalizeCache.h"
#include "runtime/core/Log.h"

namespace openhsa {

ShapeVariants::ShapeVariants(
    std::shared_ptr<const finalizer::FinalizeSource> Source, std::string Name,
    const cpu::KernelDescriptor &Original)
    : Source(std::move(Source)), Name(std::move(Name)), Original(Original) {}

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
  if (!suitable(Grid, Wg))
    return nullptr;
  const Shape S{Wg[0], Wg[1], Wg[2]};
  std::lock_guard<std::mutex> Lock(Mutex);
  auto It = ByShape.find(S);
  if (It == ByShape.end())
    It = ByShape.emplace(S, finalizeFor(S)).first;
  return It->second.Kernel.get();
}

ShapeVariants::Variant ShapeVariants::finalizeFor(const Shape &S) const {
  // The program's request, the shape added as the directives a program
  // would give: requiredworkgroupsize and requirenopartialworkgroups.
  finalizer::FinalizeRequest R = Source->Request;
  R.Directives.ControlDirectivesMask |= uint64_t(1) << 8 | uint64_t(1) << 9;
  for (unsigned D = 0; D < 3; ++D)
    R.Directives.RequiredWorkgroupSize[D] = S[D];
  Variant V;
  const std::string Groups = std::to_string(S[0]) + "x" + std::to_string(S[1]) +
                             "x" + std::to_string(S[2]);
  auto Refuse = [&](const std::string &Why) {
    log::write(log::Level::Info, "%s in groups of %s runs as finalized: %s",
               Name.c_str(), Groups.c_str(), Why.c_str());
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
  log::write(log::Level::Info, "%s in groups of %s runs a variant for them%s",
             Name.c_str(), Groups.c_str(),
             K->Lockstep ? ", as a lockstep group" : "");
  V.Code = std::move(*Code);
  V.Kernel = std::move(D);
  return V;
}

} // namespace openhsa
