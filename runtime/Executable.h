//===- runtime/Executable.h - Executables and their symbols -----*- C++ -*-===//
//
// An executable (hsa_executable_t) collects code objects loaded for agents
// and the variables they use. Loading a code object for the CPU agent
// JIT-links its object (finalizer/JitLoader.h) and makes one
// cpu::KernelDescriptor per kernel; the descriptors become valid kernel
// objects (cpu::liveKernels()) when the executable is frozen and stop being
// valid when it is destroyed.
//
// Variables: program-allocation variables exist once per executable and are
// shared by every agent's code; agent-allocation (and readonly) variables
// exist once per agent. An external variable is defined by the application
// (hsa_executable_*_variable_define, before loading the code objects that
// declare it): nothing is allocated, the code is bound to the address given.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_EXECUTABLE_H
#define OPENHSA_RUNTIME_EXECUTABLE_H

#include "finalizer/CodeObject.h"
#include "finalizer/JitLoader.h"
#include "hsa/hsa.h"

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace openhsa {

class Agent;
class CodeObjectStore;
class Executable;
class ShapeVariants;
namespace cpu {
struct KernelDescriptor;
}
namespace gpu {
class GpuModule;
}

/// A symbol of an executable (hsa_executable_symbol_t): a kernel, a
/// variable or an indirect function.
struct ExecutableSymbol {
  Executable *Owner = nullptr;
  hsa_symbol_kind_t Kind = HSA_SYMBOL_KIND_VARIABLE;
  std::string Name;       // HSAIL name, e.g. "&vector_add".
  std::string ModuleName; // Module linkage only.
  /// Kernels and agent-allocation variables: the agent; program-allocation
  /// variables: null.
  const Agent *Owning = nullptr;

  // Variables.
  hsa_variable_allocation_t Allocation = HSA_VARIABLE_ALLOCATION_PROGRAM;
  hsa_variable_segment_t Segment = HSA_VARIABLE_SEGMENT_GLOBAL;
  uint32_t Alignment = 0;
  uint64_t Size = 0; // 0: an external variable of unknown size.
  bool Constant = false;
  bool External = false; // Defined by the application.
  /// Variables: their address; indirect functions: their code handle.
  void *Address = nullptr;
  /// Indirect functions: the code's machine model is small (32-bit
  /// function objects).
  bool SmallModel = false;

  // Kernels.
  cpu::KernelDescriptor *Kernel = nullptr;
  bool DynamicCallStack = false;

  bool programLinkage() const { return ModuleName.empty(); }
  /// The name symbol lookups use: "&name", or "&module::&name" for module
  /// linkage.
  std::string key() const {
    return ModuleName.empty() ? Name : ModuleName + "::" + Name;
  }

  hsa_executable_symbol_t handle() const {
    return {static_cast<uint64_t>(reinterpret_cast<uintptr_t>(this))};
  }
  static const ExecutableSymbol *fromHandle(hsa_executable_symbol_t H) {
    return reinterpret_cast<const ExecutableSymbol *>(
        static_cast<uintptr_t>(H.handle));
  }
  hsa_status_t getInfo(uint32_t Attribute, void *Value) const;
};

class Executable {
public:
  Executable(CodeObjectStore &Store, hsa_profile_t Profile,
             hsa_default_float_rounding_mode_t Rounding, bool Frozen)
      : Store(Store), Profile(Profile), Rounding(Rounding), Frozen(Frozen) {}
  ~Executable();

  hsa_executable_t handle() const {
    return {static_cast<uint64_t>(reinterpret_cast<uintptr_t>(this))};
  }

  /// Loads \p CO for \p A (an agent code object), or, when \p A is null,
  /// as the program code object: only its program-allocation variables.
  hsa_status_t load(const Agent *A,
                    std::shared_ptr<const finalizer::CodeObject> CO,
                    hsa_loaded_code_object_t *Loaded);
  /// hsa_executable_{global,agent_global,readonly}_variable_define. \p A is
  /// null for program allocation.
  hsa_status_t defineVariable(const Agent *A, hsa_variable_segment_t Segment,
                              const char *Name, void *Address);
  hsa_status_t freeze();
  /// 0 when the executable is valid; otherwise a set of Problem bits.
  uint32_t validate() const;
  hsa_status_t getInfo(uint32_t Attribute, void *Value) const;
  bool frozen() const;

  /// The symbol with \p Key ("&name" or "&module::&name") for agent \p A:
  /// an agent symbol of \p A, else a program-allocation variable (only
  /// those when \p A is null).
  const ExecutableSymbol *find(llvm::StringRef Key, const Agent *A) const;
  std::vector<const ExecutableSymbol *> symbols() const;

  enum Problem : uint32_t {
    NotFrozen = 1,
    MixedMachineModels = 2,
    MixedProfiles = 4,
    MixedRounding = 8,
    UndefinedVariable = 16,
  };

private:
  struct LoadedCodeObject {
    const Agent *A; // Null for the program code object.
    std::shared_ptr<const finalizer::CodeObject> Object;
    std::unique_ptr<finalizer::LoadedObject> Code; // Host code, or
    std::unique_ptr<gpu::GpuModule> DeviceCode;    // a GPU's.
    /// The variants of its kernels for dispatch shapes, compiled as
    /// dispatches ask (runtime/ShapeVariants.h).
    std::vector<std::unique_ptr<ShapeVariants>> Variants;
    ~LoadedCodeObject();
  };

  const ExecutableSymbol *findLocked(llvm::StringRef Key, const Agent *A) const;

  CodeObjectStore &Store;
  const hsa_profile_t Profile;
  const hsa_default_float_rounding_mode_t Rounding;

  mutable std::mutex Mutex;
  bool Frozen;
  bool ProgramObjectLoaded = false;
  std::vector<std::unique_ptr<LoadedCodeObject>> Loaded;
  std::vector<std::unique_ptr<ExecutableSymbol>> Symbols;
};

} // namespace openhsa

#endif
