//===- finalizer/PerfMap.cpp - Symbols of JIT code for perf ---------------===//
#include "finalizer/PerfMap.h"

#include "llvm/ExecutionEngine/JITLink/JITLink.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unistd.h>

namespace openhsa::finalizer {

namespace {

class PerfMapPlugin final : public llvm::orc::ObjectLinkingLayer::Plugin {
public:
  void modifyPassConfig(llvm::orc::MaterializationResponsibility &,
                        llvm::jitlink::LinkGraph &,
                        llvm::jitlink::PassConfiguration &Config) override {
    // Asked at each link: the linker outlives any one setting.
    const char *Setting = std::getenv("OPENHSA_PERF_MAP");
    if (!Setting || !*Setting || std::strcmp(Setting, "0") == 0)
      return;
    // After fixups the symbols have their final addresses.
    Config.PostFixupPasses.push_back(&writeSymbols);
  }
  llvm::Error
  notifyFailed(llvm::orc::MaterializationResponsibility &) override {
    return llvm::Error::success();
  }
  llvm::Error notifyRemovingResources(llvm::orc::JITDylib &,
                                      llvm::orc::ResourceKey) override {
    return llvm::Error::success();
  }
  void notifyTransferringResources(llvm::orc::JITDylib &,
                                   llvm::orc::ResourceKey,
                                   llvm::orc::ResourceKey) override {}

private:
  static llvm::Error writeSymbols(llvm::jitlink::LinkGraph &G) {
    // One file per process, appended to by every load; perf reads the
    // last entry for an address that was reused.
    static std::mutex Lock;
    std::lock_guard Guard(Lock);
    char Path[64];
    std::snprintf(Path, sizeof Path, "/tmp/perf-%d.map",
                  static_cast<int>(getpid()));
    std::FILE *F = std::fopen(Path, "a");
    if (!F) // profiling is best effort: never fail a load for it
      return llvm::Error::success();
    for (llvm::jitlink::Symbol *S : G.defined_symbols())
      if (S->hasName() && S->isCallable() && S->getSize() != 0)
        std::fprintf(
            F, "%llx %llx %s\n",
            static_cast<unsigned long long>(S->getAddress().getValue()),
            static_cast<unsigned long long>(S->getSize()),
            S->getName().str().c_str());
    std::fclose(F);
    return llvm::Error::success();
  }
};

} // namespace

std::unique_ptr<llvm::orc::ObjectLinkingLayer::Plugin> makePerfMapPlugin() {
  return std::make_unique<PerfMapPlugin>();
}

} // namespace openhsa::finalizer
