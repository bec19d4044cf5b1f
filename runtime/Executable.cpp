//===- runtime/Executable.cpp - Executables and their symbols -------------===//
#include "runtime/Executable.h"

#include "brig/BrigFormat.h"
#include "cpu_agent/KernelDescriptor.h"
#include "gpu_backend/GpuAgent.h"
#include "gpu_backend/GpuCode.h"
#include "runtime/CodeObjectStore.h"
#include "runtime/ShapeVariants.h"
#include "runtime/core/Agent.h"
#include "runtime/core/Log.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace openhsa {

namespace {

std::string keyOf(llvm::StringRef Module, bool ProgramLinkage,
                  llvm::StringRef Name) {
  if (ProgramLinkage || Module.empty())
    return Name.str();
  return (Module + "::" + Name).str();
}

/// The object symbol through which the code of a code object reaches
/// variable \p V: the one it defines, or, for a declaration, the one the
/// loader binds to the address of the definition.
std::string objectSymbolOf(const finalizer::VariableSymbol &V) {
  return V.ObjectSymbol.empty() ? V.Name : V.ObjectSymbol;
}

hsa_variable_segment_t segmentOf(const finalizer::VariableSymbol &V) {
  return V.Segment == brig::BRIG_SEGMENT_READONLY
             ? HSA_VARIABLE_SEGMENT_READONLY
             : HSA_VARIABLE_SEGMENT_GLOBAL;
}

bool agentAllocated(const finalizer::VariableSymbol &V) {
  // Readonly variables are agent allocated whatever the directive says.
  return V.AgentAllocation || V.Segment == brig::BRIG_SEGMENT_READONLY;
}

template <typename T> void put(void *Value, T V) {
  std::memcpy(Value, &V, sizeof(T));
}

} // namespace

//===----------------------------------------------------------------------===//
// ExecutableSymbol
//===----------------------------------------------------------------------===//

hsa_status_t ExecutableSymbol::getInfo(uint32_t Attribute, void *Value) const {
  const bool IsVariable = Kind == HSA_SYMBOL_KIND_VARIABLE;
  const bool IsKernel = Kind == HSA_SYMBOL_KIND_KERNEL;
  switch (Attribute) {
  case HSA_EXECUTABLE_SYMBOL_INFO_TYPE:
    put<hsa_symbol_kind_t>(Value, Kind);
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH:
    put<uint32_t>(Value, uint32_t(Name.size()));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_NAME:
    std::memcpy(Value, Name.data(), Name.size());
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME_LENGTH:
    put<uint32_t>(Value, uint32_t(ModuleName.size()));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME:
    std::memcpy(Value, ModuleName.data(), ModuleName.size());
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_AGENT:
    put<hsa_agent_t>(Value, Owning ? Owning->handle() : hsa_agent_t{0});
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE:
    put<hsa_symbol_linkage_t>(Value, programLinkage()
                                         ? HSA_SYMBOL_LINKAGE_PROGRAM
                                         : HSA_SYMBOL_LINKAGE_MODULE);
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION:
    // Every symbol of an executable is defined: by a loaded code object or
    // by the application (external variables).
    put<bool>(Value, true);
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS:
    if (!IsVariable)
      break;
    put<uint64_t>(Value, Owner->frozen()
                             ? uint64_t(reinterpret_cast<uintptr_t>(Address))
                             : 0);
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALLOCATION:
    if (!IsVariable)
      break;
    put<hsa_variable_allocation_t>(Value, Allocation);
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SEGMENT:
    if (!IsVariable)
      break;
    put<hsa_variable_segment_t>(Value, Segment);
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALIGNMENT:
    if (!IsVariable)
      break;
    put<uint32_t>(Value, Alignment);
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE:
    if (!IsVariable)
      break;
    put<uint32_t>(Value, uint32_t(std::min<uint64_t>(Size, UINT32_MAX)));
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST:
    if (!IsVariable)
      break;
    put<bool>(Value, Constant);
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT:
    if (!IsKernel)
      break;
    put<uint64_t>(Value, Owner->frozen() ? Kernel->kernelObject() : 0);
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE:
    if (!IsKernel)
      break;
    put<uint32_t>(Value, Kernel->KernargSegmentSize);
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT:
    if (!IsKernel)
      break;
    put<uint32_t>(Value, Kernel->KernargSegmentAlignment);
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE:
    if (!IsKernel)
      break;
    put<uint32_t>(Value, Kernel->GroupSegmentSize);
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE:
    if (!IsKernel)
      break;
    put<uint32_t>(Value, Kernel->PrivateSegmentSize);
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK:
    if (!IsKernel)
      break;
    put<bool>(Value, DynamicCallStack);
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_CALL_CONVENTION:
    if (!IsKernel)
      break;
    put<uint32_t>(Value, 0); // The ISA's only call convention.
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_OBJECT: {
    if (Kind != HSA_SYMBOL_KIND_INDIRECT_FUNCTION)
      break;
    // 32 bits in the small machine model, 64 in the large one.
    const uint64_t Handle =
        Owner->frozen() ? uint64_t(reinterpret_cast<uintptr_t>(Address)) : 0;
    if (SmallModel)
      put<uint32_t>(Value, uint32_t(Handle));
    else
      put<uint64_t>(Value, Handle);
    return HSA_STATUS_SUCCESS;
  }
  case HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_CALL_CONVENTION:
    if (Kind != HSA_SYMBOL_KIND_INDIRECT_FUNCTION)
      break;
    put<uint32_t>(Value, 0); // The ISA's only call convention.
    return HSA_STATUS_SUCCESS;
  }
  // Unknown attributes, and attributes of another kind of symbol.
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

//===----------------------------------------------------------------------===//
// Executable
//===----------------------------------------------------------------------===//

Executable::LoadedCodeObject::~LoadedCodeObject() = default;

Executable::~Executable() {
  for (const auto &S : Symbols) {
    Store.ExecutableSymbols.remove(S.get());
    if (S->Kernel) {
      cpu::liveKernels().remove(S->Kernel);
      delete S->Kernel;
    }
  }
  Symbols.clear();
  // The code goes last: nothing refers to it any more.
  Loaded.clear();
}

bool Executable::frozen() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Frozen;
}

hsa_status_t Executable::getInfo(uint32_t Attribute, void *Value) const {
  switch (Attribute) {
  case HSA_EXECUTABLE_INFO_PROFILE:
    put<hsa_profile_t>(Value, Profile);
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_INFO_STATE:
    put<hsa_executable_state_t>(Value, frozen()
                                           ? HSA_EXECUTABLE_STATE_FROZEN
                                           : HSA_EXECUTABLE_STATE_UNFROZEN);
    return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
    put<hsa_default_float_rounding_mode_t>(Value, Rounding);
    return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

const ExecutableSymbol *Executable::findLocked(llvm::StringRef Key,
                                               const Agent *A) const {
  if (A)
    for (const auto &S : Symbols)
      if (S->Owning == A && S->key() == Key)
        return S.get();
  for (const auto &S : Symbols)
    if (!S->Owning && S->key() == Key)
      return S.get();
  return nullptr;
}

const ExecutableSymbol *Executable::find(llvm::StringRef Key,
                                         const Agent *A) const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return findLocked(Key, A);
}

std::vector<const ExecutableSymbol *> Executable::symbols() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  std::vector<const ExecutableSymbol *> Result;
  for (const auto &S : Symbols)
    Result.push_back(S.get());
  return Result;
}

hsa_status_t Executable::defineVariable(const Agent *A,
                                        hsa_variable_segment_t Segment,
                                        const char *Name, void *Address) {
  llvm::StringRef Key(Name);
  // "&name" (program linkage) or "&module::&name" (module linkage).
  llvm::StringRef Module, Base = Key;
  if (size_t Sep = Key.rfind("::"); Sep != llvm::StringRef::npos) {
    Module = Key.take_front(Sep);
    Base = Key.drop_front(Sep + 2);
  }
  if (Base.size() < 2 || Base[0] != '&' ||
      (!Module.empty() && (Module.size() < 2 || Module[0] != '&')))
    return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;

  std::lock_guard<std::mutex> Lock(Mutex);
  if (Frozen)
    return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  for (const auto &S : Symbols)
    if (S->Kind == HSA_SYMBOL_KIND_VARIABLE && S->key() == Key &&
        (!A || S->Owning == A || !S->Owning))
      return HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED;

  auto S = std::make_unique<ExecutableSymbol>();
  S->Owner = this;
  S->Kind = HSA_SYMBOL_KIND_VARIABLE;
  S->Name = Base.str();
  S->ModuleName = Module.str();
  S->Owning = A;
  S->Allocation =
      A ? HSA_VARIABLE_ALLOCATION_AGENT : HSA_VARIABLE_ALLOCATION_PROGRAM;
  S->Segment = Segment;
  S->Constant = Segment == HSA_VARIABLE_SEGMENT_READONLY;
  S->External = true;
  S->Address = Address;
  Store.ExecutableSymbols.add(S.get());
  Symbols.push_back(std::move(S));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t Executable::load(const Agent *A,
                              std::shared_ptr<const finalizer::CodeObject> CO,
                              hsa_loaded_code_object_t *LoadedHandle) {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (Frozen)
    return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;

  // Compatibility with the agent and with what is already loaded.
  if (A) {
    bool Supported = false;
    for (const Isa *I : A->isas())
      Supported |= I->Name == CO->IsaName;
    if (!Supported)
      return HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
  }
  if (CO->Profile != uint8_t(Profile))
    return HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
  for (const auto &L : Loaded)
    if (L->Object->MachineModel != CO->MachineModel)
      return HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
  if (Rounding != HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT &&
      CO->DefaultFloatRounding != HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT &&
      CO->DefaultFloatRounding != uint8_t(Rounding))
    return HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
  if (!A && ProgramObjectLoaded)
    return HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS; // At most once.
  if (A) {
    // A code object loads at most once per agent.
    auto LoadedFor = [&](const std::string &Key) {
      const ExecutableSymbol *Old = findLocked(Key, A);
      return Old && Old->Owning == A;
    };
    for (const finalizer::KernelSymbol &K : CO->Kernels)
      if (LoadedFor(keyOf(K.ModuleName, K.ProgramLinkage, K.Name)))
        return HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
    for (const finalizer::IndirectFunctionSymbol &F : CO->IndirectFunctions)
      if (LoadedFor(keyOf(F.ModuleName, F.ProgramLinkage, F.Name)))
        return HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
  }

  if (!A) {
    // The program code object: our code objects keep their variables with
    // their code, so program-allocation variables come into being when the
    // code object loads for an agent. Loading it checks and records it.
    ProgramObjectLoaded = true;
    auto L = std::make_unique<LoadedCodeObject>();
    L->A = nullptr;
    L->Object = std::move(CO);
    if (LoadedHandle)
      LoadedHandle->handle = uint64_t(reinterpret_cast<uintptr_t>(L.get()));
    Loaded.push_back(std::move(L));
    return HSA_STATUS_SUCCESS;
  }

  // Bind the variables the code object declares to their definitions.
  std::map<std::string, void *> Externals;
  struct NewVariable {
    const finalizer::VariableSymbol *V;
    const Agent *Owning;
  };
  std::vector<NewVariable> NewVariables;
  std::vector<std::pair<const finalizer::VariableSymbol *, ExecutableSymbol *>>
      Completed; // External symbols whose size the declaration tells.
  for (const finalizer::VariableSymbol &V : CO->Variables) {
    const Agent *Owning = agentAllocated(V) ? A : nullptr;
    const std::string Key = keyOf(V.ModuleName, V.ProgramLinkage, V.Name);
    ExecutableSymbol *Old = nullptr;
    for (const auto &S : Symbols)
      if (S->Kind == HSA_SYMBOL_KIND_VARIABLE && S->Owning == Owning &&
          S->key() == Key)
        Old = S.get();
    // A definition in another segment does not define this variable.
    if (Old && !V.Definition && Old->Segment != segmentOf(V))
      Old = nullptr;
    if (V.Definition) {
      if (Old && Old->External)
        return HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED;
      if (Old && Owning)
        return HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS; // Loaded twice.
      if (Old) {
        // A program-allocation variable that code of the program loaded for
        // another agent defines: one variable per program, so this code
        // uses that one (its own, weak, definition is discarded).
        Externals[objectSymbolOf(V)] = Old->Address;
        continue;
      }
      NewVariables.push_back({&V, Owning});
      continue;
    }
    if (!Old) {
      // Defined by the same code object (another module of its program):
      // the finalizer resolved the reference.
      bool DefinedHere = false;
      for (const finalizer::VariableSymbol &D : CO->Variables)
        DefinedHere |= D.Definition &&
                       keyOf(D.ModuleName, D.ProgramLinkage, D.Name) == Key;
      if (DefinedHere)
        continue;
      return HSA_STATUS_ERROR_VARIABLE_UNDEFINED;
    }
    Externals[objectSymbolOf(V)] = Old->Address;
    if (Old->External)
      Completed.push_back({&V, Old});
  }

  // Host code is JIT-linked here; GPU code is PTX the agent's driver
  // compiles (gpu_backend/GpuCode.h).
  std::unique_ptr<finalizer::LoadedObject> HostCode;
  std::unique_ptr<gpu::GpuModule> DeviceCode;
  if (CO->isGpu()) {
    if (A->deviceType() != HSA_DEVICE_TYPE_GPU)
      return HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
    if (!Externals.empty()) {
      log::write(log::Level::Error,
                 "cannot load code object: GPU code cannot use variables "
                 "defined outside its code object yet");
      return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    }
    auto M = gpu::GpuModule::load(
        static_cast<const gpu::GpuAgent &>(*A),
        llvm::StringRef(reinterpret_cast<const char *>(CO->Object.data()),
                        CO->Object.size()));
    if (!M) {
      log::write(log::Level::Error, "cannot load code object: %s",
                 llvm::toString(M.takeError()).c_str());
      return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    }
    DeviceCode = std::move(*M);
  } else {
    auto Code = finalizer::LoadedObject::load(*CO, Externals);
    if (!Code) {
      log::write(log::Level::Error, "cannot load code object: %s",
                 llvm::toString(Code.takeError()).c_str());
      return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    }
    HostCode = std::move(*Code);
  }
  auto AddressOf = [&](const std::string &Symbol) -> llvm::Expected<void *> {
    if (DeviceCode)
      return DeviceCode->variable(Symbol);
    return HostCode->address(Symbol);
  };

  std::vector<std::unique_ptr<ExecutableSymbol>> Added;
  std::vector<std::unique_ptr<ShapeVariants>> Variants;
  auto Fail = [&](llvm::Error E) {
    log::write(log::Level::Error, "cannot load code object: %s",
               llvm::toString(std::move(E)).c_str());
    for (const auto &S : Added)
      delete S->Kernel;
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  };
  for (const NewVariable &N : NewVariables) {
    const finalizer::VariableSymbol &V = *N.V;
    auto Address = AddressOf(objectSymbolOf(V));
    if (!Address)
      return Fail(Address.takeError());
    auto S = std::make_unique<ExecutableSymbol>();
    S->Owner = this;
    S->Kind = HSA_SYMBOL_KIND_VARIABLE;
    S->Name = V.Name;
    S->ModuleName = V.ProgramLinkage ? "" : V.ModuleName;
    S->Owning = N.Owning;
    S->Allocation = N.Owning ? HSA_VARIABLE_ALLOCATION_AGENT
                             : HSA_VARIABLE_ALLOCATION_PROGRAM;
    S->Segment = segmentOf(V);
    S->Alignment = V.Alignment;
    S->Size = V.Size;
    S->Constant = V.Constant;
    S->Address = *Address;
    Added.push_back(std::move(S));
  }
  for (const finalizer::KernelSymbol &K : CO->Kernels) {
    auto *D = new cpu::KernelDescriptor();
    if (DeviceCode) {
      // With calls (recursion, alloca: a dynamic call stack), the frame
      // of the kernel, private segment included, is on the device's call
      // stack, beside the callees' small frames.
      constexpr size_t CalleeFrames = 4096;
      auto Kernel = DeviceCode->kernel(
          K.EntrySymbol, K.GpuGridGuard,
          K.DynamicCallStack ? K.PrivateSegmentSize + CalleeFrames : 0);
      if (!Kernel) {
        delete D;
        return Fail(Kernel.takeError());
      }
      D->DeviceKernel = *Kernel;
    } else {
      // A kernel whose code the finalizer left for later has none to load:
      // its variants, and its generic code where a dispatch needs that,
      // come from the source it keeps (runtime/ShapeVariants.h).
      if ((K.CodeDeferred && (!K.ShapeVariants || !CO->Source)) ||
          ((K.WholeWaveRows || !K.Guard.empty()) && !CO->Source)) {
        delete D;
        return Fail(llvm::createStringError(
            "kernel " + K.Name +
            " has no code and nothing to finalize it from: load the code "
            "object hsa_code_object_serialize wrote, which has all code"));
      }
      if (!K.CodeDeferred) {
        auto Entry = HostCode->address(K.EntrySymbol);
        if (!Entry) {
          delete D;
          return Fail(Entry.takeError());
        }
        D->Entry = reinterpret_cast<hsa_ext_openhsa_workgroup_fn_t>(*Entry);
      }
      D->SliceStep = K.SliceStep;
      D->GroupRuns = K.GroupRuns;
      if ((K.ShapeVariants || K.WholeWaveRows || !K.Guard.empty()) &&
          CO->Source) {
        Variants.push_back(std::make_unique<ShapeVariants>(CO->Source, K, *D));
        D->Variants = Variants.back().get();
      }
    }
    D->Owner = A;
    D->GroupSegmentSize = K.GroupSegmentSize;
    D->PrivateSegmentSize = K.PrivateSegmentSize;
    // The API reports kernarg sizes in whole 16-byte units.
    D->KernargSegmentSize = (K.KernargSegmentSize + 15) / 16 * 16;
    D->KernargSegmentAlignment =
        std::max<uint32_t>(16, K.KernargSegmentAlignment);
    cpu::DispatchConstraints &C = D->Constraints;
    for (unsigned I = 0; I < 3; ++I) {
      C.RequiredGridSize[I] = K.RequiredGridSize[I];
      C.RequiredWorkgroupSize[I] = K.RequiredWorkgroupSize[I];
    }
    C.RequiredDim = K.RequiredDim;
    C.RequireNoPartialWorkgroups = K.RequireNoPartialWorkgroups;
    C.MaxFlatGridSize = K.MaxFlatGridSize;
    C.MaxFlatWorkgroupSize = K.MaxFlatWorkgroupSize;
    C.MaxDynamicGroupSize = K.MaxDynamicGroupSize;
    D->HasConstraints = C.any();
    auto S = std::make_unique<ExecutableSymbol>();
    S->Owner = this;
    S->Kind = HSA_SYMBOL_KIND_KERNEL;
    S->Name = K.Name;
    S->ModuleName = K.ProgramLinkage ? "" : K.ModuleName;
    S->Owning = A;
    S->Kernel = D;
    S->DynamicCallStack = K.DynamicCallStack;
    Added.push_back(std::move(S));
  }

  for (const finalizer::IndirectFunctionSymbol &F : CO->IndirectFunctions) {
    auto Handle = DeviceCode ? DeviceCode->indirectFunction(F.ObjectSymbol)
                             : AddressOf(F.ObjectSymbol);
    if (!Handle)
      return Fail(Handle.takeError());
    auto S = std::make_unique<ExecutableSymbol>();
    S->Owner = this;
    S->Kind = HSA_SYMBOL_KIND_INDIRECT_FUNCTION;
    S->Name = F.Name;
    S->ModuleName = F.ProgramLinkage ? "" : F.ModuleName;
    S->Owning = A;
    S->Address = *Handle;
    S->SmallModel = CO->MachineModel == HSA_MACHINE_MODEL_SMALL;
    Added.push_back(std::move(S));
  }

  // Commit.
  for (auto &[V, S] : Completed) {
    if (S->Size == 0)
      S->Size = V->Size;
    S->Alignment = std::max(S->Alignment, V->Alignment);
    S->Constant |= V->Constant;
  }
  for (auto &S : Added) {
    Store.ExecutableSymbols.add(S.get());
    Symbols.push_back(std::move(S));
  }
  auto L = std::make_unique<LoadedCodeObject>();
  L->A = A;
  L->Object = std::move(CO);
  L->Code = std::move(HostCode);
  L->DeviceCode = std::move(DeviceCode);
  L->Variants = std::move(Variants);
  if (LoadedHandle)
    LoadedHandle->handle = uint64_t(reinterpret_cast<uintptr_t>(L.get()));
  Loaded.push_back(std::move(L));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t Executable::freeze() {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (Frozen)
    return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  // Every declaration was bound when its code object loaded, so no
  // variable can be undefined here.
  for (const auto &S : Symbols)
    if (S->Kernel)
      cpu::liveKernels().add(S->Kernel);
  Frozen = true;
  return HSA_STATUS_SUCCESS;
}

uint32_t Executable::validate() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  uint32_t Result = Frozen ? 0u : uint32_t(NotFrozen);
  for (const auto &L : Loaded) {
    const finalizer::CodeObject &First = *Loaded.front()->Object;
    if (L->Object->MachineModel != First.MachineModel)
      Result |= MixedMachineModels;
    if (L->Object->Profile != uint8_t(Profile))
      Result |= MixedProfiles;
    if (L->Object->DefaultFloatRounding != First.DefaultFloatRounding)
      Result |= MixedRounding;
    if (!L->A)
      continue; // The program code object binds nothing.
    for (const finalizer::VariableSymbol &V : L->Object->Variables)
      if (!V.Definition &&
          !findLocked(keyOf(V.ModuleName, V.ProgramLinkage, V.Name), L->A)) {
        bool DefinedHere = false;
        for (const finalizer::VariableSymbol &D : L->Object->Variables)
          DefinedHere |= D.Definition && D.Name == V.Name &&
                         D.ProgramLinkage == V.ProgramLinkage;
        if (!DefinedHere)
          Result |= UndefinedVariable;
      }
  }
  return Result;
}

} // namespace openhsa
