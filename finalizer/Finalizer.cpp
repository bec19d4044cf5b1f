//===- finalizer/Finalizer.cpp - BRIG modules to a code object ------------===//
#include "finalizer/Finalizer.h"

#include "finalizer/Codegen.h"
#include "finalizer/CpuTarget.h"
#include "finalizer/FixedGroupShape.h"
#include "finalizer/FloatEmitter.h"
#include "finalizer/GpuTarget.h"
#include "finalizer/LockstepGroups.h"
#include "finalizer/Lowering.h"
#include "finalizer/ParallelKernels.h"
#include "finalizer/WorkItemVectorizer.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/LLVMContext.h"

#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"
#include <cstdlib>

namespace openhsa::finalizer {

std::string hostIsaName() {
  const HostTarget &H = hostTarget();
  return "openhsa:" + llvm::Triple(H.Triple).getArchName().str() + ":" + H.Cpu;
}

namespace {
/// Checks a kernel against the control directives given to finalize and
/// records the constraints dispatches must then meet. The kernel's own
/// control directives (recorded by lowering) must agree with them (PRM
/// 13.4): the maxima given here may only lower the kernel's.
llvm::Error applyDirectives(const ControlDirectives &D, KernelSymbol &K) {
  auto Conflict = [&](const char *What) {
    return llvm::createStringError(
        "kernel '" + K.Name + "': " + What +
        " given to the finalizer conflicts with the kernel's control "
        "directive (PRM 13.4)");
  };
  auto Same = [&](auto &Field, auto Given, const char *What) -> llvm::Error {
    if (Given && Field && Field != Given)
      return Conflict(What);
    if (Given)
      Field = Given;
    return llvm::Error::success();
  };
  auto AtMost = [&](auto &Field, auto Given, const char *What) -> llvm::Error {
    if (Given && Field && Given > Field)
      return Conflict(What);
    if (Given)
      Field = Given;
    return llvm::Error::success();
  };
  if (D.BreakExceptions & 0x1f)
    return llvm::createStringError(
        "kernel '" + K.Name +
        "': the CPU agent supports no exception for the BREAK policy");
  K.EnabledDetectExceptions |= D.DetectExceptions & 0x1f;
  if (D.ControlDirectivesMask & (uint64_t(1) << 9))
    K.RequireNoPartialWorkgroups = true;
  if (auto E = Same(K.MaxDynamicGroupSize, D.MaxDynamicGroupSize,
                    "maxdynamicgroupsize"))
    return E;
  if (auto E = AtMost(K.MaxFlatGridSize, D.MaxFlatGridSize, "maxflatgridsize"))
    return E;
  if (auto E = AtMost(K.MaxFlatWorkgroupSize, D.MaxFlatWorkgroupSize,
                      "maxflatworkgroupsize"))
    return E;
  if (auto E = Same(K.RequiredDim, D.RequiredDim, "requireddim"))
    return E;
  for (unsigned I = 0; I < 3; ++I) {
    if (auto E = Same(K.RequiredGridSize[I], D.RequiredGridSize[I],
                      "requiredgridsize"))
      return E;
    if (auto E = Same(K.RequiredWorkgroupSize[I], D.RequiredWorkgroupSize[I],
                      "requiredworkgroupsize"))
      return E;
  }
  return llvm::Error::success();
}
} // namespace

namespace {
/// Kernels for a GPU agent: lowered with barriers as calls and 32-lane
/// wavefronts, then PTX (finalizer/GpuTarget.h).
llvm::Expected<CodeObject> finalizeForGpu(const FinalizeRequest &Request,
                                          unsigned SmVersion) {
  llvm::LLVMContext Context;
  auto M = std::make_unique<llvm::Module>("hsail-program", Context);
  M->setTargetTriple(NvptxTriple);
  // The base profile asks ftz of every f32 operation and any quiet NaN
  // (PRM 16.2.1, 4.19.4): PTX's .ftz instructions and canonical NaNs give
  // that, without the exact software paths of the full profile.
  if (Request.Profile == 0 /* BASE */) {
    M->addModuleFlag(llvm::Module::Override,
                     detail::FloatEmitter::NativeFtz32Flag, 1);
    M->addModuleFlag(llvm::Module::Override,
                     detail::FloatEmitter::AnyQuietNaNFlag, 1);
  }
  LoweringOptions Options;
  Options.DetectExceptions = Request.Directives.DetectExceptions;
  Options.DefaultRoundsToZero = Request.ProgramFloatRounding == 1 /* ZERO */;
  Options.NativeBarriers = true;
  Options.WavefrontSize = GpuWavefrontSize;
  Options.HostRuntimeHelpers = false;
  Options.ScopedAtomics = true;
  auto Lowered = lowerProgram(Request.Modules, *M, Options);
  if (!Lowered)
    return Lowered.takeError();
  if (auto Err = buildGpuKernels(*M, *Lowered))
    return Err;
  auto Ptx = compileToPtx(*M, SmVersion);
  if (!Ptx)
    return Ptx.takeError();
  CodeObject CO;
  CO.IsaName = Request.IsaName;
  CO.MachineModel = Request.MachineModel;
  CO.Profile = Request.Profile;
  CO.DefaultFloatRounding = Request.DefaultFloatRounding;
  for (LoweredKernel &K : Lowered->Kernels) {
    if (auto Err = applyDirectives(Request.Directives, K.Symbol))
      return Err;
    CO.Kernels.push_back(K.Symbol);
  }
  CO.Variables = Lowered->Variables;
  CO.IndirectFunctions = Lowered->IndirectFunctions;
  CO.Object.assign(Ptx->begin(), Ptx->end());
  return CO;
}
} // namespace

namespace {
/// Whether the CPU flushes f32 subnormals itself for this program: one of
/// base-profile modules, whose every floating-point instruction is ftz and
/// f32 or f16 (PRM 16.2.1: no f64; the validator refuses the others), on
/// x86-64, where the MXCSR's FTZ and DAZ flush results and sources as ftz
/// does. Its arithmetic is then the host's own instructions, as on the
/// GPU, rather than each operand and result compared and replaced (the
/// examples' mandelbrot: 193 -> 38 ms on the dev VM, its twin 39). Not with
/// DETECT, whose exact path computes the flags.
bool flushesInHardware(const FinalizeRequest &R) {
  if (R.Directives.DetectExceptions || R.Modules.empty() ||
      llvm::Triple(hostTarget().Triple).getArch() != llvm::Triple::x86_64)
    return false;
  for (const brig::BrigModule &B : R.Modules) {
    auto MD = B.moduleDirective();
    if (!MD || MD->profile != brig::BRIG_PROFILE_BASE)
      return false;
  }
  return true;
}

/// Makes the entry of a kernel's work-group function set the MXCSR's FTZ
/// and DAZ bits for the kernel's code and put the caller's back as it
/// returns: the function is renamed and inlined into a wrapper of its name.
/// (A fault or a cancellation that leaves the kernel's code early is put
/// back by cpu_agent's runKernelCode.)
void flushSubnormalsIn(llvm::Module &M, llvm::StringRef EntryName) {
  llvm::Function *Body = M.getFunction(EntryName);
  if (!Body)
    return;
  Body->setName(EntryName + ".flushing");
  Body->setLinkage(llvm::GlobalValue::InternalLinkage);
  Body->addFnAttr(llvm::Attribute::AlwaysInline);
  llvm::Function *Entry =
      llvm::Function::Create(Body->getFunctionType(),
                             llvm::GlobalValue::ExternalLinkage, EntryName, M);
  Entry->setAttributes(Body->getAttributes());
  Entry->removeFnAttr(llvm::Attribute::AlwaysInline);
  llvm::IRBuilder<> B(llvm::BasicBlock::Create(M.getContext(), "", Entry));
  llvm::Value *Saved = B.CreateAlloca(B.getInt32Ty());
  llvm::Value *Flushing = B.CreateAlloca(B.getInt32Ty());
  B.CreateIntrinsic(llvm::Intrinsic::x86_sse_stmxcsr, {}, {Saved});
  constexpr uint32_t FtzDaz = 0x8040; // FTZ (bit 15), DAZ (bit 6).
  B.CreateStore(B.CreateOr(B.CreateLoad(B.getInt32Ty(), Saved), FtzDaz),
                Flushing);
  B.CreateIntrinsic(llvm::Intrinsic::x86_sse_ldmxcsr, {}, {Flushing});
  llvm::SmallVector<llvm::Value *, 8> Args;
  for (llvm::Argument &A : Entry->args())
    Args.push_back(&A);
  B.CreateCall(Body, Args);
  B.CreateIntrinsic(llvm::Intrinsic::x86_sse_ldmxcsr, {}, {Saved});
  B.CreateRetVoid();
}
} // namespace

std::shared_ptr<const FinalizeSource>
FinalizeSource::copy(const FinalizeRequest &R) {
  auto S = std::make_shared<FinalizeSource>();
  S->Request = R;
  S->Request.Modules.clear();
  S->Bytes.reserve(R.Modules.size());
  for (const brig::BrigModule &M : R.Modules) {
    S->Bytes.emplace_back(M.bytes().begin(), M.bytes().end());
    auto Copy = brig::BrigModule::create(S->Bytes.back(), M.name());
    if (!Copy) { // The same bytes were a module a moment ago.
      llvm::consumeError(Copy.takeError());
      return nullptr;
    }
    S->Request.Modules.push_back(std::move(*Copy));
  }
  return S;
}

/// LLVM's diagnostics, as its default handler prints them, but for its
/// warnings that a loop the finalizer asked to unroll was not: it asks
/// for every loop with barriers of a lockstep group, not knowing their
/// trip counts before the group's shape is folded in (LockstepGroups.h),
/// and a loop over k-steps of a kernel argument's length stays a loop.
static void printDiagnostic(const llvm::DiagnosticInfo *Info, void *) {
  const llvm::DiagnosticInfo &DI = *Info;
  if (DI.getKind() == llvm::DK_OptimizationFailure)
    return;
  llvm::raw_ostream &OS = llvm::errs();
  llvm::DiagnosticPrinterRawOStream Printer(OS);
  OS << llvm::LLVMContext::getDiagnosticMessagePrefix(DI.getSeverity()) << ": ";
  DI.print(Printer);
  OS << "\n";
}

llvm::Expected<CodeObject> finalize(const FinalizeRequest &Request) {
  if (std::optional<unsigned> Sm = gpuIsaVersion(Request.IsaName))
    return finalizeForGpu(Request, *Sm);
  if (const std::string &Problem = hostTarget().Problem; !Problem.empty())
    return llvm::createStringError(Problem);
  llvm::LLVMContext Context;
  Context.setDiagnosticHandlerCallBack(printDiagnostic, nullptr,
                                       /*RespectFilters=*/true);
  std::unique_ptr<llvm::Module> M;
  // Lowering is target-neutral except where the target's instructions
  // already have HSAIL's semantics (FloatEmitter's NaN propagation).
  const bool HardwareFtz = flushesInHardware(Request);
  unsigned Width = Request.VectorWidth; // 0: each kernel's own.
  if (Width == 0 && !vectorizationEnabled())
    Width = 1;
  // WAVESIZE and the cross-lane operations follow the wavefront the agent
  // reports (abi/CpuWavefront.h), or the width the request asks for.
  LoweringOptions Options;
  Options.DetectExceptions = Request.Directives.DetectExceptions;
  Options.DefaultRoundsToZero = Request.ProgramFloatRounding == 1 /* ZERO */;
  Options.WavefrontSize = Width ? Width : hostVectorWidth();
  // Lowers the program into a fresh module, the directives applied: before
  // the work-group functions, a group shape the directives fix is a
  // constant there (FixedGroupShape.h).
  auto Lower = [&]() -> llvm::Expected<LoweredProgram> {
    M = std::make_unique<llvm::Module>("hsail-program", Context);
    M->setTargetTriple(hostTarget().Triple);
    if (HardwareFtz)
      M->addModuleFlag(llvm::Module::Override,
                       detail::FloatEmitter::NativeFtz32Flag, 1);
    auto Lowered = lowerProgram(Request.Modules, *M, Options);
    if (!Lowered)
      return Lowered.takeError();
    for (LoweredKernel &K : Lowered->Kernels)
      if (auto Err = applyDirectives(Request.Directives, K.Symbol))
        return Err;
    return Lowered;
  };
  auto Lowered = Lower();
  if (!Lowered)
    return Lowered.takeError();
  std::vector<VectorizeStats> Stats;
  // Kernels whose groups can run as one vector in lockstep are lowered
  // again for it (LockstepGroups.h). Kernels with barriers and no fixed
  // shape the runtime may finalize again for the shapes of their
  // dispatches (runtime/ShapeVariants.h), where the program has no
  // variables (a second code object would have copies of its own: those
  // declared inside kernels and functions count too, mayShareState) nor
  // indirect functions. The same holds for the code of partial waves that
  // the runtime finalizes later (FinalizeRequest::DeferPartialWaveCode),
  // and for code with wrap checks (FinalizeRequest::GuardIndexWraps).
  std::vector<std::string> WithShapeVariants;
  const bool Alone = Lowered->Variables.empty() &&
                     Lowered->IndirectFunctions.empty() && !mayShareState(*M);
  for (const LoweredKernel &K : Lowered->Kernels) {
    if (lockstepGroupWidth(K, Width))
      Options.LockstepKernels.push_back(K.Symbol.Name);
    else if (Alone && shapeVariantCandidate(K, Width) &&
             !fixedGroupShape(K.Symbol).fixed())
      WithShapeVariants.push_back(K.Symbol.Name);
  }
  WorkGroupCodeOptions Code;
  Code.DeferPartialWaves = Request.DeferPartialWaveCode && Alone;
  Code.GuardIndexWraps = Request.GuardIndexWraps && Alone;
  // A lockstep kernel that would not pay is lowered again as usual.
  bool Built = false;
  while (!Built && !Options.LockstepKernels.empty()) {
    auto Lockstep = Lower();
    if (!Lockstep)
      return Lockstep.takeError();
    std::vector<std::string> Refused;
    llvm::Error Err = buildCpuWorkGroupFunctions(
        *M, *Lockstep, Width, Options.WavefrontSize, &Stats, &Refused, Code);
    if (!Err) {
      Lowered = std::move(Lockstep);
      Built = true;
      break;
    }
    if (Refused.empty())
      return Err;
    llvm::consumeError(std::move(Err));
    llvm::erase_if(Options.LockstepKernels, [&](const std::string &Name) {
      return llvm::is_contained(Refused, Name);
    });
    if (Options.LockstepKernels.empty()) {
      Lowered = Lower();
      if (!Lowered)
        return Lowered.takeError();
    }
  }
  if (!Built)
    if (auto Err = buildCpuWorkGroupFunctions(
            *M, *Lowered, Width, Options.WavefrontSize, &Stats, nullptr, Code))
      return Err;
  for (LoweredKernel &K : Lowered->Kernels) {
    K.Symbol.Lockstep = K.Lockstep;
    K.Symbol.ShapeVariants =
        llvm::is_contained(WithShapeVariants, K.Symbol.Name);
    // Most dispatches of such a kernel run a variant for their shape: its
    // generic code (the vectorized barrier regions for any group shape,
    // which costs more to compile than the rest of the program) waits
    // until a dispatch or a serialization needs it. Its symbol keeps what
    // building that code found (widths, slices, segment sizes), so the
    // code compiled later matches it.
    if (K.Symbol.ShapeVariants && Request.DeferShapeVariantCode)
      if (llvm::Function *Entry = M->getFunction(K.Symbol.EntrySymbol);
          Entry && Entry->use_empty()) {
        Entry->eraseFromParent();
        K.Symbol.CodeDeferred = true;
      }
  }
  if (std::getenv("OPENHSA_DUMP_IR")) {
    std::string Report;
    for (size_t I = 0; I < Lowered->Kernels.size(); ++I) {
      const KernelSymbol &S = Lowered->Kernels[I].Symbol;
      Report +=
          S.Name + ": " +
          (S.VectorWidth > 1 ? "vectorized, " + std::to_string(S.VectorWidth) +
                                   " work-items at once; memory accesses: " +
                                   describe(Stats[I])
                             : "scalar work-item loops: " + S.ScalarReason);
      if (Lowered->Kernels[I].Lockstep)
        Report += "; the group in lockstep";
      if (S.CodeDeferred)
        Report += "; code deferred: variants for the shapes of dispatches";
      if (FixedGroupShape Shape = fixedGroupShape(S); Shape.fixed())
        Report += "; group shape fixed: " + Shape.describe();
      Report += "\n";
    }
    dump("OPENHSA_DUMP_IR", *M, "vectorize.txt", Report);
  }
  if (HardwareFtz) {
    for (const LoweredKernel &K : Lowered->Kernels)
      flushSubnormalsIn(*M, K.Symbol.EntrySymbol);
    // What LLVM may assume of f32 arithmetic there (as for the GPU).
    for (llvm::Function &F : *M)
      if (!F.isDeclaration())
        F.addFnAttr("denormal-fp-math-f32", "preserve-sign,preserve-sign");
  }
  // A program's kernels compile on threads of their own, each in an object
  // of its own, where they share nothing (ParallelKernels.h): not where the
  // program has variables or indirect functions, which the runtime finds
  // by their symbols.
  std::vector<std::string> Entries;
  for (const LoweredKernel &K : Lowered->Kernels)
    if (!K.Symbol.CodeDeferred)
      Entries.push_back(K.Symbol.EntrySymbol);
  auto Objects = compileKernels(*M, Entries, Alone ? finalizeThreads() : 1,
                                printDiagnostic);
  if (!Objects)
    return Objects.takeError();

  CodeObject CO;
  CO.IsaName = Request.IsaName.empty() ? hostIsaName() : Request.IsaName;
  CO.MachineModel = Request.MachineModel;
  CO.Profile = Request.Profile;
  CO.DefaultFloatRounding = Request.DefaultFloatRounding;
  for (LoweredKernel &K : Lowered->Kernels)
    CO.Kernels.push_back(K.Symbol);
  CO.Variables = Lowered->Variables;
  CO.IndirectFunctions = Lowered->IndirectFunctions;
  CO.Object = std::move(Objects->front());
  CO.MoreObjects.assign(std::make_move_iterator(Objects->begin() + 1),
                        std::make_move_iterator(Objects->end()));
  return CO;
}

} // namespace openhsa::finalizer
