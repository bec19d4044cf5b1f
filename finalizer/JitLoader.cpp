//===- finalizer/JitLoader.cpp - Code objects into executable memory ------===//
#include "finalizer/JitLoader.h"

#include "finalizer/Codegen.h"
#include "finalizer/LaneRowsAccess.h"
#include "finalizer/ObjectCheck.h"
#include "finalizer/PerfMap.h"
#include "finalizer/RuntimeHelpers.h"

#include "llvm/ExecutionEngine/JITLink/JITLinkMemoryManager.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

#include <dlfcn.h>
#include <memory>
#include <mutex>
#include <string>

namespace openhsa::finalizer {

LoadedObject::~LoadedObject() = default;

namespace {

/// Functions finalized code may call: what LLVM lowers some operations to
/// (memory intrinsics, 128-bit division, half-precision conversions,
/// floating-point remainders). Nothing else of the process is visible.
const char *const RuntimeSymbols[] = {
    "memcpy",
    "memmove",
    "memset",
    "fmod",
    "fmodf",
    "__divti3",
    "__udivti3",
    "__modti3",
    "__umodti3",
    "__extendhfsf2",
    "__truncsfhf2",
    "__truncdfhf2",
    "__gnu_h2f_ieee",
    "__gnu_f2h_ieee",
    "__powisf2",
    "__powidf2",
    "sqrt",
    "sqrtf",
    "floor",
    "floorf",
    "ceil",
    "ceilf",
    "trunc",
    "truncf",
    "rint",
    "rintf",
    "roundeven",
    "roundevenf",
    "fma",
    "fmaf",
    "fmin",
    "fminf",
    "fmax",
    "fmaxf",
    "copysign",
    "copysignf",
};

class OrcLoadedObject final : public LoadedObject {
public:
  explicit OrcLoadedObject(std::unique_ptr<llvm::orc::LLJIT> J)
      : Jit(std::move(J)) {}
  llvm::Expected<void *> address(llvm::StringRef Symbol) override {
    auto Addr = Jit->lookup(Symbol);
    if (!Addr)
      return Addr.takeError();
    return Addr->toPtr<void *>();
  }

private:
  std::unique_ptr<llvm::orc::LLJIT> Jit;
};

} // namespace

llvm::Expected<std::unique_ptr<LoadedObject>>
LoadedObject::load(const CodeObject &CO,
                   const std::map<std::string, void *> &External) {
  // JITLink applies relocations without bounds checks: whatever reaches it
  // must have been checked, whichever way the CodeObject was made.
  if (auto Err = checkRelocatableObject(CO.Object))
    return Err;
  for (const std::vector<uint8_t> &O : CO.MoreObjects)
    if (auto Err = checkRelocatableObject(O))
      return Err;
  static std::once_flag Once;
  std::call_once(Once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  // The host's target machine builder and data layout given, and a
  // compiler that makes a target machine only if IR is ever added (never:
  // code objects arrive compiled): LLJIT would otherwise detect the host
  // and build two target machines for each load.
  const HostTarget &Host = hostTarget();
  llvm::orc::JITTargetMachineBuilder Jtmb{llvm::Triple(Host.Triple)};
  Jtmb.setCPU(Host.Cpu);
  Jtmb.getFeatures() = llvm::SubtargetFeatures(Host.Features);
  auto J =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(std::move(Jtmb))
          .setDataLayout(hostDataLayout())
          .setCompileFunctionCreator(
              [](llvm::orc::JITTargetMachineBuilder B)
                  -> llvm::Expected<
                      std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                return std::make_unique<llvm::orc::ConcurrentIRCompiler>(
                    std::move(B));
              })
          .setObjectLinkingLayerCreator(
              [](llvm::orc::ExecutionSession &ES, const llvm::Triple &)
                  -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
                auto MemMgr = llvm::jitlink::InProcessMemoryManager::Create();
                if (!MemMgr)
                  return MemMgr.takeError();
                auto Layer = std::make_unique<llvm::orc::ObjectLinkingLayer>(
                    ES, std::move(*MemMgr));
                if (auto PerfMap = makePerfMapPlugin())
                  Layer->addPlugin(std::move(PerfMap));
                return Layer;
              })
          .create();
  if (!J)
    return J.takeError();

  llvm::orc::JITDylib &Lib = (*J)->getMainJITDylib();
  llvm::orc::SymbolMap Symbols;
  auto &ES = (*J)->getExecutionSession();
  // ORC reports why materialization failed (which symbols are missing)
  // here, and returns only "Failed to materialize symbols" from the lookup:
  // keep the reason for the error we return.
  auto Reasons = std::make_shared<std::string>();
  ES.setErrorReporter([Reasons](llvm::Error E) {
    if (!Reasons->empty())
      *Reasons += "; ";
    *Reasons += llvm::toString(std::move(E));
  });
  for (const char *Name : RuntimeSymbols)
    if (void *Addr = dlsym(RTLD_DEFAULT, Name))
      Symbols[ES.intern((*J)->mangle(Name))] = {
          llvm::orc::ExecutorAddr::fromPtr(Addr),
          llvm::JITSymbolFlags::Exported};
  // The finalizer's own helper, in every code object's reach.
  Symbols[ES.intern((*J)->mangle(LaneRowsAccessSymbol))] = {
      llvm::orc::ExecutorAddr::fromPtr(&__openhsa_lane_rows),
      llvm::JITSymbolFlags::Exported};
  for (const RuntimeHelper &H : registeredRuntimeHelpers())
    Symbols[ES.intern((*J)->mangle(H.Name))] = {
        llvm::orc::ExecutorAddr::fromPtr(H.Address),
        llvm::JITSymbolFlags::Exported};
  for (const auto &[Name, Addr] : External)
    Symbols[ES.intern((*J)->mangle(Name))] = {
        llvm::orc::ExecutorAddr::fromPtr(Addr), llvm::JITSymbolFlags::Exported};
  if (auto Err = Lib.define(llvm::orc::absoluteSymbols(std::move(Symbols))))
    return Err;

  // Every object in one symbol space: the kernels of a program finalized
  // in parallel may share nothing but the runtime's symbols, each object
  // defining its own copies of what they call (ParallelKernels.h).
  auto Add = [&](const std::vector<uint8_t> &O) {
    return (*J)->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(
        llvm::StringRef(reinterpret_cast<const char *>(O.data()), O.size()),
        "code-object"));
  };
  if (auto Err = Add(CO.Object))
    return Err;
  for (const std::vector<uint8_t> &O : CO.MoreObjects)
    if (auto Err = Add(O))
      return Err;
  std::unique_ptr<LoadedObject> L =
      std::make_unique<OrcLoadedObject>(std::move(*J));
  // Resolve every kernel now so a missing symbol is an error at load time,
  // not at the first dispatch.
  // (Kernels whose code was deferred have none here.)
  for (const KernelSymbol &K : CO.Kernels)
    if (K.CodeDeferred)
      continue;
    else if (auto A = L->address(K.EntrySymbol); !A) {
      std::string Message = llvm::toString(A.takeError());
      if (!Reasons->empty())
        Message = *Reasons + " (" + Message + ")";
      return llvm::createStringError("cannot load the code object: " + Message);
    }
  return L;
}

} // namespace openhsa::finalizer
