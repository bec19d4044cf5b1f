//===- finalizer/Finalizer.cpp - BRIG modules to a code object ------------===//
#include "finalizer/Finalizer.h"

#include "finalizer/Codegen.h"
#include "finalizer/CpuTarget.h"
#include "finalizer/Lowering.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

namespace openhsa::finalizer {

std::string hostIsaName() {
  const HostTarget &H = hostTarget();
  return "openhsa:" + llvm::Triple(H.Triple).getArchName().str() + ":" + H.Cpu;
}

namespace {
/// Checks a kernel against the control directives given to finalize and
/// records the constraints dispatches must then meet.
llvm::Error applyDirectives(const ControlDirectives &D, KernelSymbol &K) {
  K.MaxDynamicGroupSize = D.MaxDynamicGroupSize;
  K.MaxFlatGridSize = D.MaxFlatGridSize;
  K.MaxFlatWorkgroupSize = D.MaxFlatWorkgroupSize;
  K.RequiredDim = D.RequiredDim;
  for (unsigned I = 0; I < 3; ++I) {
    K.RequiredGridSize[I] = D.RequiredGridSize[I];
    K.RequiredWorkgroupSize[I] = D.RequiredWorkgroupSize[I];
  }
  return llvm::Error::success();
}
} // namespace

llvm::Expected<CodeObject> finalize(const FinalizeRequest &Request) {
  llvm::LLVMContext Context;
  auto M = std::make_unique<llvm::Module>("hsail-program", Context);
  auto Lowered = lowerProgram(Request.Modules, *M);
  if (!Lowered)
    return Lowered.takeError();
  buildCpuWorkGroupFunctions(*M, *Lowered);
  auto Object = compileToObject(*M);
  if (!Object)
    return Object.takeError();

  CodeObject CO;
  CO.IsaName = Request.IsaName.empty() ? hostIsaName() : Request.IsaName;
  CO.MachineModel = Request.MachineModel;
  CO.Profile = Request.Profile;
  CO.DefaultFloatRounding = Request.DefaultFloatRounding;
  for (LoweredKernel &K : Lowered->Kernels) {
    if (auto Err = applyDirectives(Request.Directives, K.Symbol))
      return std::move(Err);
    CO.Kernels.push_back(K.Symbol);
  }
  CO.Variables = Lowered->Variables;
  CO.Object = std::move(*Object);
  return std::move(CO);
}

} // namespace openhsa::finalizer
