//===- finalizer/Codegen.cpp - LLVM IR to a host object file --------------===//
#include "finalizer/Codegen.h"
#include "abi/CpuTarget.h"
#include "finalizer/DeadGroupStores.h"
#include "finalizer/ForwardVectorStores.h"
#include "finalizer/GroupBoundsChecks.h"
#include "finalizer/IntegerAddresses.h"
#include "finalizer/LaneWideMasks.h"
#include "finalizer/SplitWideShuffles.h"
#include "finalizer/SplitWideVectors.h"
#include "finalizer/UniformConditions.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/OptBisect.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Scalar/LoopUnrollPass.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>

namespace openhsa::finalizer {

const HostTarget &hostTarget() {
  static const HostTarget Host = [] {
    const abi::CpuTarget &T = abi::cpuTarget();
    HostTarget H;
    H.Triple = llvm::sys::getProcessTriple();
    H.Cpu = T.Cpu;
    H.Features = T.featureString();
    H.Problem = T.Problem;
    return H;
  }();
  return Host;
}

bool hostHasFeature(llvm::StringRef Name) { return abi::cpuTarget().has(Name); }

namespace {

void initializeNativeTarget() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    // Developers' knob: LLVM's own options (-pass-remarks=loop-vectorize,
    // -print-after=..., ...) for the finalizer, from the environment.
    if (std::getenv("OPENHSA_LLVM_ARGS")) {
      const char *Argv[] = {"openhsa-finalizer"};
      llvm::cl::ParseCommandLineOptions(1, Argv, "", &llvm::errs(),
                                        "OPENHSA_LLVM_ARGS");
    }
  });
}

/// Deletes the internal functions nothing calls: a vectorized kernel's
/// scalar body, the queries only it used. LLVM would find them dead too,
/// but only after its first function passes had optimized them.
void dropUnusedFunctions(llvm::Module &M) {
  for (bool Dropped = true; Dropped;) {
    Dropped = false;
    for (llvm::Function &F : llvm::make_early_inc_range(M))
      if (F.hasLocalLinkage() && F.use_empty()) {
        F.eraseFromParent();
        Dropped = true;
      }
  }
}

/// The passes code generation for the host runs: all of LLVM's but Loop
/// Strength Reduction. It rewrites a loop's address arithmetic as pointer
/// increments, which our wave loops (a few scalar instructions per vector
/// of work-items) and kernels' loops (a multiply beside a vector multiply-
/// add that waits on its accumulator) do not need, and it was the costliest
/// pass of code generation: a quarter to a half of it in kernels with loops
/// (stencil 10-14 -> 6.3 ms, naive sgemm 7.5 -> 5.4 ms on the 2-core EPYC).
/// A context's gate (LLVMContext::setOptPassGate) is how LLVM lets a client
/// skip a pass in one compilation, unlike -disable-lsr, a process-wide
/// option that the GPU's code generation reads too. LLVM's own gate
/// (-opt-bisect-limit in OPENHSA_LLVM_ARGS) still decides for every other
/// pass.
class HostCodegenPassGate final : public llvm::OptPassGate {
public:
  bool shouldRunPass(const llvm::StringRef PassName,
                     llvm::StringRef IRDescription) override {
    if (PassName == "Loop Strength Reduction")
      return false;
    llvm::OptPassGate &Global = llvm::getGlobalPassGate();
    return !Global.isEnabled() || Global.shouldRunPass(PassName, IRDescription);
  }
  bool isEnabled() const override { return true; }
};

} // namespace

llvm::OptPassGate &hostCodegenPassGate() {
  // Stateless, never destroyed: contexts of finalizations still running
  // at exit may hold it.
  static HostCodegenPassGate *Gate = new HostCodegenPassGate;
  return *Gate;
}

void dump(const char *Var, const llvm::Module &M, llvm::StringRef Ext,
          llvm::StringRef Text) {
  const char *Where = std::getenv(Var);
  if (!Where || !*Where)
    return;
  if (llvm::StringRef(Where) == "-") {
    llvm::errs() << Text;
    return;
  }
  std::error_code EC;
  llvm::raw_fd_ostream Out(
      (llvm::Twine(Where) + "/" + M.getName() + "." + Ext).str(), EC);
  if (!EC)
    Out << Text;
}

StandaloneAnalyses::StandaloneAnalyses() {
  llvm::PassBuilder PB;
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
}

void dumpModule(const llvm::Module &M, llvm::StringRef Ext) {
  if (!std::getenv("OPENHSA_DUMP_IR"))
    return;
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  M.print(OS, nullptr);
  dump("OPENHSA_DUMP_IR", M, Ext, Text);
}

namespace {

/// A target machine for the host and, once it has compiled a module, its
/// code generation pipeline, both kept between finalizations. Making a
/// target machine, with the subtargets that optimization and code
/// generation then build in it, cost about 2 ms a finalization; building
/// the legacy pass manager's pipeline of code generation (about 90 passes,
/// their analyses scheduled) a twentieth of a small kernel's finalization.
/// The pipeline runs once per module: its machine module info and object
/// streamer start afresh at each run's initialization.
class HostCompiler {
public:
  explicit HostCompiler(std::unique_ptr<llvm::TargetMachine> TM)
      : TM(std::move(TM)) {}
  llvm::TargetMachine *get() const { return TM.get(); }

  /// M compiled into a relocatable object.
  llvm::Expected<std::vector<uint8_t>> emitObject(llvm::Module &M) {
    if (!EmitObject) {
      ObjectStream = std::make_unique<llvm::raw_svector_ostream>(Object);
      auto PM = std::make_unique<llvm::legacy::PassManager>();
      if (TM->addPassesToEmitFile(*PM, *ObjectStream, nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
        return llvm::createStringError("LLVM cannot emit objects for " +
                                       hostTarget().Triple);
      EmitObject = std::move(PM);
    }
    Object.clear();
    EmitObject->run(M);
    std::vector<uint8_t> Bytes(Object.begin(), Object.end());
    Object.clear();
    return Bytes;
  }

private:
  std::unique_ptr<llvm::TargetMachine> TM;
  // Declared before the pass manager, whose object streamer writes here.
  llvm::SmallVector<char, 0> Object;
  std::unique_ptr<llvm::raw_svector_ostream> ObjectStream;
  std::unique_ptr<llvm::legacy::PassManager> EmitObject;
};

/// The host compilers kept. One serves one compilation at a time (LLVM's
/// target machines and pass managers are not thread-safe), so concurrent
/// finalizations each take one of their own.
class HostCompilerPool {
public:
  llvm::Expected<std::unique_ptr<HostCompiler>> take() {
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      if (!Free.empty()) {
        std::unique_ptr<HostCompiler> C = std::move(Free.back());
        Free.pop_back();
        return C;
      }
    }
    initializeNativeTarget();
    const HostTarget &Host = hostTarget();
    if (!Host.Problem.empty())
      return llvm::createStringError(Host.Problem);
    std::string Error;
    const llvm::Target *T =
        llvm::TargetRegistry::lookupTarget(Host.Triple, Error);
    if (!T)
      return llvm::createStringError("no LLVM target for " + Host.Triple +
                                     ": " + Error);
    llvm::TargetOptions Options;
    // A kernel whose every path is undefined behaviour (a store through a
    // register never written, say) optimizes to "unreachable": without a
    // trap its function has no code at all, and its entry is the next
    // function's or, alone in the object, address 0. A trap is a defined
    // end.
    Options.TrapUnreachable = true;
    Options.NoTrapAfterNoreturn = false;
    return std::make_unique<HostCompiler>(std::unique_ptr<llvm::TargetMachine>(
        T->createTargetMachine(Host.Triple, Host.Cpu, Host.Features, Options,
                               llvm::Reloc::PIC_, std::nullopt,
                               llvm::CodeGenOptLevel::Aggressive)));
  }
  void giveBack(std::unique_ptr<HostCompiler> C) {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (Free.size() < MaxKept)
      Free.push_back(std::move(C));
  }

private:
  static constexpr size_t MaxKept = 8;
  std::mutex Mutex;
  std::vector<std::unique_ptr<HostCompiler>> Free;
};

HostCompilerPool &hostCompilers() {
  // Never destroyed: finalizations may run while the process exits.
  static HostCompilerPool *Pool = new HostCompilerPool;
  return *Pool;
}

/// A host compiler taken from the pool for one compilation.
class PooledHostCompiler {
public:
  explicit PooledHostCompiler(std::unique_ptr<HostCompiler> C)
      : C(std::move(C)) {}
  ~PooledHostCompiler() { hostCompilers().giveBack(std::move(C)); }
  HostCompiler *operator->() const { return C.get(); }

private:
  std::unique_ptr<HostCompiler> C;
};

} // namespace

const llvm::DataLayout &hostDataLayout() {
  static const llvm::DataLayout Layout = [] {
    auto C = hostCompilers().take();
    if (!C) { // No target for the host: compileToObject says why.
      llvm::consumeError(C.takeError());
      return llvm::DataLayout("");
    }
    PooledHostCompiler Pooled(std::move(*C));
    return Pooled->get()->createDataLayout();
  }();
  return Layout;
}

llvm::Expected<std::vector<uint8_t>> compileToObject(llvm::Module &M) {
  auto Taken = hostCompilers().take();
  if (!Taken)
    return Taken.takeError();
  PooledHostCompiler Compiler(std::move(*Taken));
  llvm::TargetMachine *TM = Compiler->get();
  const HostTarget &Host = hostTarget();
  M.setTargetTriple(Host.Triple);
  M.setDataLayout(TM->createDataLayout());

  // A lowering bug, never the program's: the verifier's report is the
  // error's message (a library does not print to the program's stderr), and
  // fuzz_finalizer counts it as a finding (tests/brig/FUZZING.md).
  std::string Broken;
  llvm::raw_string_ostream BrokenOS(Broken);
  if (llvm::verifyModule(M, &BrokenOS))
    return llvm::createStringError(
        "internal error: the lowered IR of module '" + M.getName().str() +
        "' is invalid: " + llvm::StringRef(Broken).rtrim().str());

  dumpModule(M, "lowered.ll");
  dropUnusedFunctions(M);
  {
    llvm::LoopAnalysisManager LAM;
    llvm::FunctionAnalysisManager FAM;
    llvm::CGSCCAnalysisManager CGAM;
    llvm::ModuleAnalysisManager MAM;
    // No partial or runtime loop unrolling: the vectorizer still
    // interleaves, and unrolled remainder loops doubled code generation
    // time (finalizing a small kernel should take <= 20 ms) for little gain
    // in kernels. Loops of a few iterations known at compile time (a tile's
    // 16 k-steps) are unrolled in full, below.
    llvm::PipelineTuningOptions PTO;
    PTO.LoopUnrolling = false;
    // With OPENHSA_LLVM_ARGS, LLVM's instrumentation (-time-passes,
    // -print-after=...) sees the optimization pipeline too.
    llvm::PassInstrumentationCallbacks PIC;
    std::optional<llvm::StandardInstrumentations> SI;
    if (std::getenv("OPENHSA_LLVM_ARGS")) {
      SI.emplace(M.getContext(), /*DebugLogging=*/false);
      SI->registerCallbacks(PIC, &MAM);
    }
    llvm::PassBuilder PB(TM, PTO, std::nullopt, SI ? &PIC : nullptr);
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
    // After each instcombine, once registers are SSA values: addresses the
    // vectorizer can follow (finalizer/IntegerAddresses.h).
    PB.registerPeepholeEPCallback(
        [](llvm::FunctionPassManager &FPM, llvm::OptimizationLevel) {
          FPM.addPass(IntegerAddressesPass());
        });
    // Full unrolling of loops whose trip count is a small constant, where
    // the pipeline would run it with unrolling on (PTO.LoopUnrolling off
    // leaves it only for loops a pragma asks for): the loop's counter and
    // branch cost as much as a tile's fma.
    PB.registerLateLoopOptimizationsEPCallback(
        [](llvm::LoopPassManager &LPM, llvm::OptimizationLevel Level) {
          LPM.addPass(llvm::LoopFullUnrollPass(Level.getSpeedupLevel(),
                                               /*OnlyWhenForced=*/false));
        });
    // Once loops are unrolled: lanes that a group in lockstep exchanges
    // through group memory go from its stores to its loads in registers
    // (finalizer/ForwardVectorStores.h), and the stores that nothing reads
    // any more before the group ends go (finalizer/DeadGroupStores.h).
    // Then such a group runs without its bounds check's masks where the
    // check holds for all of it (finalizer/GroupBoundsChecks.h).
    PB.registerScalarOptimizerLateEPCallback(
        [](llvm::FunctionPassManager &FPM, llvm::OptimizationLevel) {
          FPM.addPass(ForwardVectorStoresPass());
          FPM.addPass(DeadGroupStoresPass());
          FPM.addPass(GroupBoundsChecksPass());
        });
    // Work-item loops whose bounds check holds for the whole group run a
    // copy without it, which vectorizes without masks. Before, once more,
    // the stores that nothing reads: a wave's private array that LLVM
    // keeps in registers was still read once after the sort that filled
    // it when they ran above, and those of every wave were kept
    // (benchmarks/kernels/median3x3.hsail).
    PB.registerVectorizerStartEPCallback(
        [](llvm::FunctionPassManager &FPM, llvm::OptimizationLevel) {
          FPM.addPass(DeadGroupStoresPass());
          FPM.addPass(UniformConditionsPass());
          FPM.addPass(llvm::SimplifyCFGPass());
        });
    // Last: a lockstep group's vectors of many registers as a value per
    // register (finalizer/SplitWideVectors.h), which code generation would
    // combine lane by lane before it cut them (the scan's finalization
    // 19.6 -> 14.5 ms on the 2-core EPYC); then other shuffles wider than
    // two registers, a register at a time, which code generation combines
    // in time linear in their lanes (finalizer/SplitWideShuffles.h). Without
    // mask registers, masks go from block to block in lanes of 32 bits
    // (finalizer/LaneWideMasks.h).
    PB.registerOptimizerLastEPCallback(
        [](llvm::ModulePassManager &MPM, llvm::OptimizationLevel) {
          llvm::FunctionPassManager FPM;
          FPM.addPass(SplitWideVectorsPass());
          FPM.addPass(SplitWideShufflesPass());
          FPM.addPass(LaneWideMasksPass());
          MPM.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(FPM)));
        });
    llvm::ModulePassManager MPM =
        PB.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    MPM.run(M, MAM);
  }
  // DeadGroupStores has used them: no code for the markers.
  eraseWorkItemsEndMarkers(M);
  dumpModule(M, "ll");
  // Code generation's passes ask the context's gate (the assembly dumped
  // below is that of the object). A lockstep group's unrolled loops keep
  // LSR: without it the tiled sgemm's 16 multiply-adds a k-step took their
  // broadcast operands at base + index addresses, which Intel's cores split
  // into two micro-operations each, and it ran 10-15 % slower on the Xeon.
  if (llvm::none_of(M, [](const llvm::Function &F) {
        return F.hasFnAttribute(KeepsLoopStrengthReductionAttr);
      }))
    M.getContext().setOptPassGate(hostCodegenPassGate());
  if (std::getenv("OPENHSA_DUMP_ASM")) {
    llvm::SmallVector<char, 0> Asm;
    llvm::raw_svector_ostream OS(Asm);
    llvm::legacy::PassManager PM;
    std::unique_ptr<llvm::Module> Copy = llvm::CloneModule(M);
    if (!TM->addPassesToEmitFile(PM, OS, nullptr,
                                 llvm::CodeGenFileType::AssemblyFile))
      PM.run(*Copy);
    dump("OPENHSA_DUMP_ASM", M, "s", llvm::StringRef(Asm.data(), Asm.size()));
  }

  auto Object = Compiler->emitObject(M);
  if (!Object)
    return Object.takeError();
  // The object beside the assembly: its offsets are the loaded code's, which
  // profiles of JIT code (OPENHSA_PERF_MAP) need; assembling the .s again
  // can pad and relax differently. Not on stderr ("-"): it is binary.
  if (const char *Where = std::getenv("OPENHSA_DUMP_ASM");
      Where && llvm::StringRef(Where) != "-")
    dump("OPENHSA_DUMP_ASM", M, "o",
         llvm::StringRef(reinterpret_cast<const char *>(Object->data()),
                         Object->size()));
  return Object;
}

} // namespace openhsa::finalizer
