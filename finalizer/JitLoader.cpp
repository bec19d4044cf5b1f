//===- finalizer/JitLoader.cpp - Code objects into executable memory ------===//
#include "finalizer/JitLoader.h"

#include "finalizer/Codegen.h"
#include "finalizer/LaneRowsAccess.h"
#include "finalizer/ObjectCheck.h"
#include "finalizer/PerfMap.h"
#include "finalizer/RuntimeHelpers.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ExecutionEngine/JITLink/JITLinkMemoryManager.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/ExecutorProcessControl.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

#include <atomic>
#include <dlfcn.h>
#include <memory>
#include <mutex>
#include <string>

namespace openhsa::finalizer {

LoadedObject::~LoadedObject() = default;

namespace {

/// Functions finalized code may call: what LLVM lowers some operations to
/// (memory intrinsics, 128-bit division, half-precision conversions,
/// floating-point remainders; memcmp and bcmp where code generation merges
/// a chain of comparisons of adjacent memory into one call too long to
/// expand). Nothing else of the process is visible.
const char *const RuntimeSymbols[] = {
    "memcpy",
    "memmove",
    "memset",
    "memcmp",
    "bcmp",
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

/// Where the current thread's load keeps ORC's reasons for a failed
/// materialization: the session reports them to one handler, and
/// materialization runs on the thread that looks the symbol up (the
/// session's dispatcher works in place), so each load sees its own.
thread_local std::string *LoadReasons = nullptr;

/// One ORC session and linking layer for the whole process, never
/// destroyed (code may be loaded while the process exits). Each code object
/// gets a JITDylib of its own, removed with it. A session and a linker per
/// object, as LLJIT builds them, cost a load about 0.1 ms to build and tear
/// down: more than half of a finalization the cache serves.
class SharedJit {
public:
  static llvm::Expected<SharedJit &> get() {
    static std::once_flag Once;
    static SharedJit *Jit = nullptr;
    static std::string Failure;
    std::call_once(Once, [] {
      llvm::InitializeNativeTarget();
      llvm::InitializeNativeTargetAsmPrinter();
      auto J = create();
      if (J)
        Jit = J->release();
      else
        Failure = llvm::toString(J.takeError());
    });
    if (!Jit)
      return llvm::createStringError("cannot start the JIT linker: " + Failure);
    return *Jit;
  }

  llvm::orc::ExecutionSession &session() { return *ES; }
  llvm::orc::ObjectLinkingLayer &linker() { return *Linker; }
  llvm::orc::SymbolStringPtr mangle(llvm::StringRef Name) {
    return Mangle(Name);
  }
  /// The runtime's symbols, which every object's JITDylib links against.
  llvm::orc::JITDylib &runtime() { return *Runtime; }
  std::string nextName() {
    return "code-object-" + std::to_string(NextId.fetch_add(1));
  }

private:
  SharedJit(std::unique_ptr<llvm::orc::ExecutionSession> S)
      : ES(std::move(S)), Mangle(*ES, hostDataLayout()) {}

  static llvm::Expected<std::unique_ptr<SharedJit>> create() {
    auto EPC = llvm::orc::SelfExecutorProcessControl::Create();
    if (!EPC)
      return EPC.takeError();
    auto ES = std::make_unique<llvm::orc::ExecutionSession>(std::move(*EPC));
    ES->setErrorReporter([](llvm::Error E) {
      std::string Reason = llvm::toString(std::move(E));
      if (!LoadReasons)
        return; // Not during a load: the lookup's error says enough.
      if (!LoadReasons->empty())
        *LoadReasons += "; ";
      *LoadReasons += Reason;
    });
    std::unique_ptr<SharedJit> J(new SharedJit(std::move(ES)));
    auto MemMgr = llvm::jitlink::InProcessMemoryManager::Create();
    if (!MemMgr)
      return MemMgr.takeError();
    J->Linker = std::make_unique<llvm::orc::ObjectLinkingLayer>(
        *J->ES, std::move(*MemMgr));
    J->Linker->addPlugin(makePerfMapPlugin());

    J->Runtime = &J->ES->createBareJITDylib("openhsa-runtime");
    llvm::orc::SymbolMap Symbols;
    auto Define = [&](llvm::StringRef Name, const void *Addr) {
      Symbols[J->mangle(Name)] = {llvm::orc::ExecutorAddr::fromPtr(Addr),
                                  llvm::JITSymbolFlags::Exported};
    };
    for (const char *Name : RuntimeSymbols)
      if (void *Addr = dlsym(RTLD_DEFAULT, Name))
        Define(Name, Addr);
    // The finalizer's own helper, in every code object's reach.
    Define(LaneRowsAccessSymbol,
           reinterpret_cast<const void *>(&__openhsa_lane_rows));
    if (auto Err =
            J->Runtime->define(llvm::orc::absoluteSymbols(std::move(Symbols))))
      return Err;
    return J;
  }

  std::unique_ptr<llvm::orc::ExecutionSession> ES;
  llvm::orc::MangleAndInterner Mangle;
  std::unique_ptr<llvm::orc::ObjectLinkingLayer> Linker;
  llvm::orc::JITDylib *Runtime = nullptr;
  std::atomic<uint64_t> NextId{0};
};

class OrcLoadedObject final : public LoadedObject {
public:
  OrcLoadedObject(SharedJit &Jit, llvm::orc::JITDylib &Lib)
      : Jit(Jit), Lib(Lib) {}
  ~OrcLoadedObject() override {
    // Frees the object's memory; nothing can report a failure here, and
    // the session stays usable whatever happened.
    llvm::consumeError(Jit.session().removeJITDylib(Lib));
  }
  llvm::Expected<void *> address(llvm::StringRef Symbol) override {
    auto Def = Jit.session().lookup(llvm::orc::makeJITDylibSearchOrder(&Lib),
                                    Jit.mangle(Symbol));
    if (!Def)
      return Def.takeError();
    return Def->getAddress().toPtr<void *>();
  }

private:
  SharedJit &Jit;
  llvm::orc::JITDylib &Lib;
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
  auto Shared = SharedJit::get();
  if (!Shared)
    return Shared.takeError();
  SharedJit &Jit = *Shared;

  llvm::orc::JITDylib &Lib = Jit.session().createBareJITDylib(Jit.nextName());
  // From here on the object owns Lib and removes it, whatever fails.
  auto L = std::make_unique<OrcLoadedObject>(Jit, Lib);
  Lib.addToLinkOrder(Jit.runtime());

  // The runtime's helpers (registered by the agents, maybe after the
  // session started) and the executable's variables: this object's own.
  llvm::orc::SymbolMap Symbols;
  for (const RuntimeHelper &H : registeredRuntimeHelpers())
    Symbols[Jit.mangle(H.Name)] = {llvm::orc::ExecutorAddr::fromPtr(H.Address),
                                   llvm::JITSymbolFlags::Exported};
  for (const auto &[Name, Addr] : External)
    Symbols[Jit.mangle(Name)] = {llvm::orc::ExecutorAddr::fromPtr(Addr),
                                 llvm::JITSymbolFlags::Exported};
  if (!Symbols.empty())
    if (auto Err = Lib.define(llvm::orc::absoluteSymbols(std::move(Symbols))))
      return Err;

  // Every object of the code object in one symbol space: the kernels of a
  // program finalized in parallel may share nothing but the runtime's
  // symbols, each object defining its own copies of what they call
  // (ParallelKernels.h).
  auto Add = [&](const std::vector<uint8_t> &O) {
    return Jit.linker().add(
        Lib,
        llvm::MemoryBuffer::getMemBufferCopy(
            llvm::StringRef(reinterpret_cast<const char *>(O.data()), O.size()),
            "code-object"));
  };
  if (auto Err = Add(CO.Object))
    return Err;
  for (const std::vector<uint8_t> &O : CO.MoreObjects)
    if (auto Err = Add(O))
      return Err;
  // Resolve every kernel now so a missing symbol is an error at load time,
  // not at the first dispatch. (Kernels whose code was deferred have none
  // here.) ORC reports why materialization failed (which symbols are
  // missing) to the session, and returns only "Failed to materialize
  // symbols" from the lookup: keep the reason for the error we return.
  std::string Reasons;
  LoadReasons = &Reasons;
  auto Forget = llvm::make_scope_exit([] { LoadReasons = nullptr; });
  for (const KernelSymbol &K : CO.Kernels)
    if (K.CodeDeferred)
      continue;
    else if (auto A = L->address(K.EntrySymbol); !A) {
      std::string Message = llvm::toString(A.takeError());
      if (!Reasons.empty())
        Message = Reasons + " (" + Message + ")";
      return llvm::createStringError("cannot load the code object: " + Message);
    }
  return L;
}

} // namespace openhsa::finalizer
