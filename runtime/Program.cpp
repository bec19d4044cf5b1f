//===- runtime/Program.cpp - HSAIL programs (hsa_ext_program_t) -----------===//
#include "runtime/Program.h"

#include "finalizer/FinalizeCache.h"

#include "brig/Validator.h"
#include "brig/asm/ModuleSemantics.h"
#include "hsa/hsa_ext_finalize.h"

#include <cstdlib>
#include <cstring>

namespace openhsa {

namespace {

using brig::BrigModule;
using brig::EntryRef;

hsa_default_float_rounding_mode_t roundingOf(uint8_t BrigRound) {
  switch (BrigRound) {
  case brig::BRIG_ROUND_FLOAT_NEAR_EVEN:
    return HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR;
  case brig::BRIG_ROUND_FLOAT_ZERO:
    return HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO;
  default:
    return HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT;
  }
}

/// Reads the arguments of an executable directive: \p Count consecutive
/// variable directives from \p Off.
bool readArgs(const BrigModule &M, uint32_t Off, uint16_t Count,
              std::vector<uint16_t> &Types) {
  for (uint16_t I = 0; I < Count; ++I) {
    auto V = M.code<brig::BrigDirectiveVariable>(Off);
    if (!V)
      return false;
    Types.push_back(V->type);
    Off += V.byteCount();
  }
  return true;
}

/// The program-linkage symbols a (validated) module declares or defines.
/// Returns false when two of them clash inside the module.
bool collectSymbols(const BrigModule &M, size_t ModuleIndex,
                    std::map<std::string, Program::LinkSymbol> &Out) {
  const brig::BrigSection &S = M.code();
  uint64_t Off = S.HeaderByteCount;
  // Top-level entries only: an executable's nextModuleEntry skips its
  // arguments and body. Each step moves forward, so this terminates.
  while (Off < S.ByteCount) {
    EntryRef<> E = M.code(uint32_t(Off));
    if (!E)
      break;
    uint64_t Next = Off + E.byteCount();
    Program::LinkSymbol Sym;
    Sym.Module = ModuleIndex;
    std::string Name;
    bool Program = false;
    if (auto X = M.code<brig::BrigDirectiveExecutable>(uint32_t(Off))) {
      if (X->nextModuleEntry > Off)
        Next = X->nextModuleEntry;
      if (X.kind() != brig::BRIG_KIND_DIRECTIVE_SIGNATURE &&
          X->linkage == brig::BRIG_LINKAGE_PROGRAM) {
        Program = true;
        Name = M.string(X->name).str();
        Sym.Kind = X.kind();
        Sym.Definition = X->modifier & brig::BRIG_EXECUTABLE_DEFINITION;
        Sym.OutArgs = X->outArgCount;
        if (!readArgs(M, uint32_t(Off + E.byteCount()), X->outArgCount,
                      Sym.ArgTypes) ||
            !readArgs(M, X->firstInArg, X->inArgCount, Sym.ArgTypes))
          return false;
      }
    } else if (auto V = M.code<brig::BrigDirectiveVariable>(uint32_t(Off))) {
      if (V->linkage == brig::BRIG_LINKAGE_PROGRAM) {
        Program = true;
        Name = M.string(V->name).str();
        Sym.Kind = V.kind();
        Sym.Definition = V->modifier & brig::BRIG_VARIABLE_DEFINITION;
        Sym.Const = V->modifier & brig::BRIG_VARIABLE_CONST;
        Sym.Segment = V->segment;
        Sym.Type = V->type;
        Sym.Dim = uint64_t(V->dim.lo) | (uint64_t(V->dim.hi) << 32);
        Sym.Allocation = V->allocation;
      }
    } else if (auto F = M.code<brig::BrigDirectiveFbarrier>(uint32_t(Off))) {
      if (F->linkage == brig::BRIG_LINKAGE_PROGRAM) {
        Program = true;
        Name = M.string(F->name).str();
        Sym.Kind = F.kind();
        Sym.Definition = F->modifier & brig::BRIG_VARIABLE_DEFINITION;
      }
    }
    if (Program) {
      auto [It, New] = Out.emplace(Name, Sym);
      if (!New) {
        // A second mention inside the module: merge like across modules.
        Program::LinkSymbol &Old = It->second;
        if (Old.Kind != Sym.Kind || (Old.Definition && Sym.Definition))
          return false;
        if (Sym.Definition)
          Old = Sym;
      }
    }
    Off = Next;
  }
  return true;
}

/// Whether a declaration and a definition (or two declarations) of one
/// program-linkage symbol agree (PRM 4.12 symbol compatibility, as far as
/// the directives tell).
bool compatible(const Program::LinkSymbol &A, const Program::LinkSymbol &B) {
  if (A.Kind != B.Kind)
    return false;
  if (A.Definition && B.Definition)
    return false; // Defined twice.
  if (A.Kind == brig::BRIG_KIND_DIRECTIVE_VARIABLE) {
    if (A.Segment != B.Segment || A.Const != B.Const ||
        A.Allocation != B.Allocation)
      return false;
    if (A.Type != B.Type)
      return false;
    // A declaration may leave an array's size unspecified (dim 0).
    if (A.Dim != 0 && B.Dim != 0 && A.Dim != B.Dim)
      return false;
    return true;
  }
  if (A.Kind == brig::BRIG_KIND_DIRECTIVE_FBARRIER)
    return true;
  return A.OutArgs == B.OutArgs && A.ArgTypes == B.ArgTypes;
}

} // namespace

hsa_status_t Program::addModule(hsa_ext_module_t Module) {
  if (!Module)
    return hsa_status_t(HSA_EXT_STATUS_ERROR_INVALID_MODULE);
  std::lock_guard<std::mutex> Lock(Mutex);
  for (const ModuleEntry &E : Modules)
    if (E.Handle == Module)
      return hsa_status_t(HSA_EXT_STATUS_ERROR_MODULE_ALREADY_INCLUDED);

  const auto *Header = reinterpret_cast<const brig::BrigModuleHeader *>(Module);
  auto View = brig::BrigModule::fromHeader(Header, "module");
  if (!View) {
    llvm::consumeError(View.takeError());
    return hsa_status_t(HSA_EXT_STATUS_ERROR_INVALID_MODULE);
  }
  // Diagnostics (the finalizer's included) name the module as HSAIL does.
  if (auto D = View->moduleDirective()) {
    llvm::StringRef Name = View->string(D->name);
    if (!Name.empty())
      if (auto Named = brig::BrigModule::fromHeader(Header, Name))
        View = std::move(Named);
  }
  if (llvm::Error E = brig::validateModule(*View)) {
    llvm::consumeError(std::move(E));
    return hsa_status_t(HSA_EXT_STATUS_ERROR_INVALID_MODULE);
  }
  // Well formed is not enough: the rules HSAIL text must follow (types,
  // modifiers, operands per opcode...) hold for BRIG from any producer.
  if (llvm::Error E = brig::assembler::checkModuleSemantics(*View)) {
    llvm::consumeError(std::move(E));
    return hsa_status_t(HSA_EXT_STATUS_ERROR_INVALID_MODULE);
  }
  auto Directive = View->moduleDirective();
  if (!Directive)
    return hsa_status_t(HSA_EXT_STATUS_ERROR_INVALID_MODULE);
  if (Directive->machineModel != uint8_t(MachineModel) ||
      Directive->profile != uint8_t(Profile))
    return hsa_status_t(HSA_EXT_STATUS_ERROR_INCOMPATIBLE_MODULE);
  // A module's rounding mode never makes it incompatible (the 1.2 text
  // names only the machine model and the profile): a module that declares
  // $zero or $near rounds its own code so, and the program's mode governs
  // the $default modules' (finalizer::FinalizeRequest). The first explicit
  // mode is what code objects of a program created with the default report.
  const hsa_default_float_rounding_mode_t Round =
      roundingOf(Directive->defaultFloatRound);
  hsa_default_float_rounding_mode_t NewModuleRounding = ModuleRounding;
  if (Round != HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT &&
      ModuleRounding == HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT)
    NewModuleRounding = Round;

  std::map<std::string, LinkSymbol> Mine;
  if (!collectSymbols(*View, Modules.size(), Mine))
    return hsa_status_t(HSA_EXT_STATUS_ERROR_SYMBOL_MISMATCH);
  std::map<std::string, LinkSymbol> Merged = Symbols;
  for (auto &[Name, Sym] : Mine) {
    auto [It, New] = Merged.emplace(Name, Sym);
    if (New)
      continue;
    if (!compatible(It->second, Sym))
      return hsa_status_t(HSA_EXT_STATUS_ERROR_SYMBOL_MISMATCH);
    if (Sym.Definition)
      It->second = Sym;
  }

  Symbols = std::move(Merged);
  ModuleRounding = NewModuleRounding;
  Modules.push_back({Module, std::move(*View)});
  return HSA_STATUS_SUCCESS;
}

std::vector<hsa_ext_module_t> Program::modules() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  std::vector<hsa_ext_module_t> Result;
  for (const ModuleEntry &E : Modules)
    Result.push_back(E.Handle);
  return Result;
}

hsa_status_t Program::getInfo(uint32_t Attribute, void *Value) const {
  switch (Attribute) {
  case HSA_EXT_PROGRAM_INFO_MACHINE_MODEL:
    *static_cast<hsa_machine_model_t *>(Value) = MachineModel;
    return HSA_STATUS_SUCCESS;
  case HSA_EXT_PROGRAM_INFO_PROFILE:
    *static_cast<hsa_profile_t *>(Value) = Profile;
    return HSA_STATUS_SUCCESS;
  case HSA_EXT_PROGRAM_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
    *static_cast<hsa_default_float_rounding_mode_t *>(Value) = Rounding;
    return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

llvm::Expected<finalizer::CodeObject>
Program::finalize(const std::string &IsaName,
                  const finalizer::ControlDirectives &Directives,
                  std::string FinalizeOptions) const {
  finalizer::FinalizeRequest Request;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    for (const ModuleEntry &E : Modules)
      Request.Modules.push_back(E.View);
    hsa_default_float_rounding_mode_t Round =
        Rounding != HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT ? Rounding
                                                            : ModuleRounding;
    // Neither the program nor a module chose: round to nearest, the
    // default of every ISA this runtime finalizes for.
    if (Round == HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT)
      Round = HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR;
    Request.DefaultFloatRounding = uint8_t(Round);
    Request.ProgramFloatRounding = uint8_t(Rounding);
  }
  Request.IsaName = IsaName;
  Request.MachineModel = uint8_t(MachineModel);
  Request.Profile = uint8_t(Profile);
  Request.Directives = Directives;
  Request.Options = Options;
  if (!FinalizeOptions.empty()) {
    if (!Request.Options.empty())
      Request.Options += ' ';
    Request.Options += FinalizeOptions;
  }
  // The source is kept below wherever it is needed for this;
  // OPENHSA_DEFER_VARIANT_CODE=0 compiles everything now, for comparisons.
  const char *Defer = std::getenv("OPENHSA_DEFER_VARIANT_CODE");
  Request.DeferShapeVariantCode = !Defer || std::strcmp(Defer, "0") != 0;
  // OPENHSA_DEFER_PARTIAL_WAVES=0 compiles the code for partial waves now.
  const char *Waves = std::getenv("OPENHSA_DEFER_PARTIAL_WAVES");
  Request.DeferPartialWaveCode = !Waves || std::strcmp(Waves, "0") != 0;
  // OPENHSA_WRAP_GUARDS=0 keeps every wrap check in the code.
  const char *Guards = std::getenv("OPENHSA_WRAP_GUARDS");
  Request.GuardIndexWraps = !Guards || std::strcmp(Guards, "0") != 0;
  auto CO = finalizer::finalizeCached(Request);
  // What the runtime finalizes kernels again from, for the shapes of their
  // dispatches and for the code it deferred (runtime/ShapeVariants.h).
  if (CO && !CO->isGpu() &&
      llvm::any_of(CO->Kernels, [](const finalizer::KernelSymbol &K) {
        return K.ShapeVariants || K.WholeWaveRows || !K.Guard.empty();
      }))
    CO->Source = finalizer::FinalizeSource::copy(Request);
  return CO;
}

} // namespace openhsa
