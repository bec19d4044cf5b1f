//===- runtime/ShapeVariants.cpp - Kernels finalized for a shape ----------===//

#include "runtime/ShapeVariants.h"

#include "finalizer/FinalizeCache.h"
#include "finalizer/LockstepGroups.h"
#include "finalizer/WorkItemVectorizer.h"
#include "runtime/core/Log.h"

namespace openhsa {

ShapeVariants::ShapeVariants(
    std::shared_ptr<const finalizer::FinalizeSource> Source, std::string Name,
    const cpu::KernelDescriptor &Original)
    : Source(std::move(Source)), Name(std::move(Name)), Original(Original) {}

ShapeVariants::~ShapeVariants() = default;

bool ShapeVariants::suitable(unsigned Dims, const uint32_t (&Grid)[3],
                             const uint32_t (&Wg)[3]) {
  const unsigned W = finalizer::hostVectorWidth();
  return Dims == 1 && Grid[1] == 1 && Grid[2] == 1 && Wg[1] == 1 &&
         Wg[2] == 1 && W > 1 && Wg[0] % W == 0 &&
         Wg[0] <= finalizer::LockstepVectorsMax * W && Grid[0] % Wg[0] == 0;
}

const cpu::KernelDescriptor *
ShapeVariants::variantFor(unsigned Dims, const uint32_t (&Grid)[3],
                          const uint32_t (&Wg)[3]) {
  if (!suitable(Dims, Grid, Wg))
    return nullptr;
  std::lock_guard<std::mutex> Lock(Mutex);
  auto It = ByWidth.find(Wg[0]);
  if (It == ByWidth.end())
    It = ByWidth.emplace(Wg[0], finalizeFor(Wg[0])).first;
  return It->second.Kernel.get();
}

ShapeVariants::Variant ShapeVariants::finalizeFor(uint32_t Width) const {
  // The program's request, the shape added as the directives a program
  // would give: requiredworkgroupsize and requirenopartialworkgroups.
  finalizer::FinalizeRequest R = Source->Request;
  R.Directives.ControlDirectivesMask |= uint64_t(1) << 8 | uint64_t(1) << 9;
  R.Directives.RequiredWorkgroupSize[0] = Width;
  R.Directives.RequiredWorkgroupSize[1] = 1;
  R.Directives.RequiredWorkgroupSize[2] = 1;
  Variant V;
  auto Refuse = [&](const std::string &Why) {
    log::write(log::Level::Info, "%s in groups of %u runs as finalized: %s",
               Name.c_str(), Width, Why.c_str());
    return Variant{};
  };
  auto CO = finalizer::finalizeCached(R);
  if (!CO)
    return Refuse(llvm::toString(CO.takeError()));
  const finalizer::KernelSymbol *K = nullptr;
  for (const finalizer::KernelSymbol &S : CO->Kernels)
    if (S.Name == Name)
      K = &S;
  if (!K)
    return Refuse("the kernel is gone");
  // Only a lockstep group gains enough to be worth a second copy.
  if (!K->Lockstep)
    return Refuse("not a lockstep group (" + K->ScalarReason + ")");
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
  log::write(log::Level::Info, "%s in groups of %u runs as a lockstep group",
             Name.c_str(), Width);
  V.Code = std::move(*Code);
  V.Kernel = std::move(D);
  return V;
}

} // namespace openhsa
