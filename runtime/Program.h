//===- runtime/Program.h - HSAIL programs (hsa_ext_program_t) ---*- C++ -*-===//
//
// A program groups BRIG modules that the application owns (the runtime keeps
// pointers, not copies) and checks them as they are added: each is
// validated, must agree with the program's machine model, profile and
// rounding mode, and the program-linkage symbols it declares or defines must
// agree with those of the modules already added. Finalization hands the
// modules to finalizer::finalize().
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_PROGRAM_H
#define OPENHSA_RUNTIME_PROGRAM_H

#include "brig/BrigModule.h"
#include "finalizer/Finalizer.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_finalize.h"

#include "llvm/Support/Error.h"

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace openhsa {

struct Isa;

class Program {
public:
  Program(hsa_machine_model_t MachineModel, hsa_profile_t Profile,
          hsa_default_float_rounding_mode_t Rounding, std::string Options)
      : MachineModel(MachineModel), Profile(Profile), Rounding(Rounding),
        Options(std::move(Options)) {}

  hsa_ext_program_t handle() const {
    return {static_cast<uint64_t>(reinterpret_cast<uintptr_t>(this))};
  }
  static Program *fromHandle(hsa_ext_program_t H) {
    return reinterpret_cast<Program *>(static_cast<uintptr_t>(H.handle));
  }

  /// hsa_ext_program_add_module: every check, then the module is recorded.
  hsa_status_t addModule(hsa_ext_module_t Module);
  /// The modules in the order they were added.
  std::vector<hsa_ext_module_t> modules() const;
  hsa_status_t getInfo(uint32_t Attribute, void *Value) const;

  /// Finalizes every kernel of the program for the ISA named \p IsaName.
  llvm::Expected<finalizer::CodeObject>
  finalize(const std::string &IsaName,
           const finalizer::ControlDirectives &Directives,
           std::string FinalizeOptions) const;

  /// A program-linkage symbol as the modules declare or define it.
  struct LinkSymbol {
    uint16_t Kind = 0; // BrigKind of the directive.
    bool Definition = false;
    // Variables.
    uint8_t Segment = 0;
    uint16_t Type = 0;
    uint64_t Dim = 0;
    bool Const = false;
    uint8_t Allocation = 0;
    // Kernels and functions: the types of the output, then input arguments.
    uint16_t OutArgs = 0;
    std::vector<uint16_t> ArgTypes;
    size_t Module = 0; // Index of the module that introduced it.
  };

private:
  struct ModuleEntry {
    hsa_ext_module_t Handle;
    brig::BrigModule View;
  };

  const hsa_machine_model_t MachineModel;
  const hsa_profile_t Profile;
  const hsa_default_float_rounding_mode_t Rounding;
  const std::string Options;

  mutable std::mutex Mutex;
  std::vector<ModuleEntry> Modules;
  /// The rounding mode the first module that names one asked for
  /// (HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT while none has).
  hsa_default_float_rounding_mode_t ModuleRounding =
      HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT;
  std::map<std::string, LinkSymbol> Symbols; // By name.
};

} // namespace openhsa

#endif
