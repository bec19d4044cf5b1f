//===- finalizer/ParallelKernels.cpp - A program's kernels on threads -----===//
#include "finalizer/ParallelKernels.h"

#include "finalizer/Codegen.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/MemoryBufferRef.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <optional>
#include <thread>

namespace openhsa::finalizer {

unsigned finalizeThreads() {
  if (const char *E = std::getenv("OPENHSA_FINALIZE_THREADS"); E && *E) {
    char *End = nullptr;
    const unsigned long N = std::strtoul(E, &End, 10);
    if (End && *End == '\0' && N >= 1)
      return unsigned(std::min<unsigned long>(N, 64));
  }
  return std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
}

namespace {

using GlobalSet = llvm::SmallPtrSet<const llvm::GlobalValue *, 16>;

/// The global values Entry's code reaches: what its body calls and refers
/// to, and what those do, through constants too.
GlobalSet reachedFrom(const llvm::Function &Entry) {
  GlobalSet Seen{&Entry};
  llvm::SmallVector<const llvm::GlobalValue *, 16> Work{&Entry};
  llvm::SmallPtrSet<const llvm::Constant *, 32> SeenConstants;
  llvm::SmallVector<const llvm::Value *, 32> Values;
  auto Visit = [&](const llvm::Value *Start) {
    Values.push_back(Start);
    while (!Values.empty()) {
      const llvm::Value *V = Values.pop_back_val();
      if (const auto *GV = llvm::dyn_cast<llvm::GlobalValue>(V)) {
        if (Seen.insert(GV).second)
          Work.push_back(GV);
      } else if (const auto *C = llvm::dyn_cast<llvm::Constant>(V)) {
        if (SeenConstants.insert(C).second)
          for (const llvm::Use &U : C->operands())
            Values.push_back(U.get());
      }
    }
  };
  while (!Work.empty()) {
    const llvm::GlobalValue *GV = Work.pop_back_val();
    if (const auto *F = llvm::dyn_cast<llvm::Function>(GV)) {
      for (const llvm::Instruction &I : llvm::instructions(*F))
        for (const llvm::Use &U : I.operands())
          Visit(U.get());
    } else if (const auto *V = llvm::dyn_cast<llvm::GlobalVariable>(GV);
               V && V->hasInitializer()) {
      Visit(V->getInitializer());
    }
  }
  return Seen;
}

/// Entry and what it reaches, copied out of M: the rest only declared
/// where used (unused declarations dropped), and everything defined but
/// Entry internal (each module has its own copies; nothing else is looked
/// up in the objects).
std::unique_ptr<llvm::Module> kernelModule(const llvm::Module &M,
                                           const llvm::Function &Entry) {
  const GlobalSet Reached = reachedFrom(Entry);
  llvm::ValueToValueMapTy Map;
  std::unique_ptr<llvm::Module> K =
      llvm::CloneModule(M, Map, [&](const llvm::GlobalValue *GV) {
        return Reached.contains(GV);
      });
  K->setModuleIdentifier((M.getName() + "." + Entry.getName()).str());
  for (llvm::Function &F : llvm::make_early_inc_range(*K)) {
    if (F.isDeclaration()) {
      if (F.use_empty())
        F.eraseFromParent();
    } else if (F.getName() != Entry.getName()) {
      F.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  }
  for (llvm::GlobalVariable &V : llvm::make_early_inc_range(K->globals())) {
    if (V.getName().starts_with("llvm."))
      continue;
    if (V.isDeclaration() && V.use_empty())
      V.eraseFromParent();
    else if (!V.isDeclaration())
      V.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  return K;
}

} // namespace

bool mayShareState(const llvm::Module &M) {
  for (const llvm::GlobalVariable &V : M.globals())
    if (!V.getName().starts_with("llvm.") &&
        (V.isDeclaration() || !V.isConstant()))
      return true;
  return !M.aliases().empty() || !M.ifuncs().empty();
}

llvm::Expected<std::vector<std::vector<uint8_t>>>
compileKernels(llvm::Module &M, llvm::ArrayRef<std::string> Entries,
               unsigned Threads,
               llvm::DiagnosticHandler::DiagnosticHandlerTy Diagnostics) {
  std::vector<const llvm::Function *> Kernels;
  for (const std::string &Name : Entries)
    if (const llvm::Function *F = M.getFunction(Name);
        F && !F->isDeclaration() && !llvm::is_contained(Kernels, F))
      Kernels.push_back(F);
  if (Threads < 2 || Kernels.size() < 2 || mayShareState(M)) {
    auto Object = compileToObject(M);
    if (!Object)
      return Object.takeError();
    return std::vector<std::vector<uint8_t>>{std::move(*Object)};
  }
  // Each kernel's module as bitcode, read back into a context of its own
  // on the thread that compiles it.
  std::vector<llvm::SmallVector<char, 0>> Bitcode(Kernels.size());
  // Each module's name, which the bitcode reader takes from its buffer
  // (the dumps of OPENHSA_DUMP_IR and OPENHSA_DUMP_ASM are named by it).
  std::vector<std::string> Names(Kernels.size());
  for (size_t I = 0; I < Kernels.size(); ++I) {
    std::unique_ptr<llvm::Module> K = kernelModule(M, *Kernels[I]);
    Names[I] = K->getModuleIdentifier();
    llvm::raw_svector_ostream OS(Bitcode[I]);
    llvm::WriteBitcodeToFile(*K, OS);
  }
  std::vector<std::vector<uint8_t>> Objects(Kernels.size());
  std::vector<std::optional<std::string>> Errors(Kernels.size());
  std::atomic<size_t> Next{0};
  auto Work = [&] {
    for (size_t I; (I = Next.fetch_add(1)) < Kernels.size();) {
      llvm::LLVMContext Context;
      Context.setDiagnosticHandlerCallBack(Diagnostics, nullptr,
                                           /*RespectFilters=*/true);
      auto K = llvm::parseBitcodeFile(
          llvm::MemoryBufferRef(
              llvm::StringRef(Bitcode[I].data(), Bitcode[I].size()), Names[I]),
          Context);
      if (!K) {
        Errors[I] = "internal error: a kernel's module did not read back: " +
                    llvm::toString(K.takeError());
        continue;
      }
      auto Object = compileToObject(**K);
      if (!Object)
        Errors[I] = llvm::toString(Object.takeError());
      else
        Objects[I] = std::move(*Object);
    }
  };
  std::vector<std::thread> Helpers;
  const size_t HelperCount = std::min<size_t>(Threads, Kernels.size()) - 1;
  for (size_t T = 0; T < HelperCount; ++T)
    Helpers.emplace_back(Work);
  Work();
  for (std::thread &T : Helpers)
    T.join();
  for (std::optional<std::string> &E : Errors)
    if (E)
      return llvm::createStringError(*E);
  return Objects;
}

} // namespace openhsa::finalizer
