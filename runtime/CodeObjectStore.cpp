//===- runtime/CodeObjectStore.cpp - Programs, code objects, executables --===//
#include "runtime/CodeObjectStore.h"

#include "brig/BrigFormat.h"
#include "runtime/Executable.h"
#include "runtime/Program.h"
#include "runtime/Runtime.h"

#include <algorithm>
#include <cstring>

namespace openhsa {

namespace {

template <typename T> void put(void *Value, T V) {
  std::memcpy(Value, &V, sizeof(T));
}

/// The code objects' version (HSA_CODE_OBJECT_INFO_VERSION).
constexpr const char *CodeObjectVersion = "openhsa-cpu-1";

} // namespace

//===----------------------------------------------------------------------===//
// CodeSymbol
//===----------------------------------------------------------------------===//

const finalizer::KernelSymbol &CodeSymbol::kernel() const {
  return Owner->Object->Kernels[Index];
}

const finalizer::VariableSymbol &CodeSymbol::variable() const {
  return Owner->Object->Variables[Index];
}

const finalizer::IndirectFunctionSymbol &CodeSymbol::indirectFunction() const {
  return Owner->Object->IndirectFunctions[Index];
}

const std::string &CodeSymbol::name() const {
  switch (Kind) {
  case HSA_SYMBOL_KIND_KERNEL:
    return kernel().Name;
  case HSA_SYMBOL_KIND_INDIRECT_FUNCTION:
    return indirectFunction().Name;
  default:
    return variable().Name;
  }
}

const std::string &CodeSymbol::moduleName() const {
  switch (Kind) {
  case HSA_SYMBOL_KIND_KERNEL:
    return kernel().ModuleName;
  case HSA_SYMBOL_KIND_INDIRECT_FUNCTION:
    return indirectFunction().ModuleName;
  default:
    return variable().ModuleName;
  }
}

bool CodeSymbol::programLinkage() const {
  switch (Kind) {
  case HSA_SYMBOL_KIND_KERNEL:
    return kernel().ProgramLinkage;
  case HSA_SYMBOL_KIND_INDIRECT_FUNCTION:
    return indirectFunction().ProgramLinkage;
  default:
    return variable().ProgramLinkage;
  }
}

hsa_status_t CodeSymbol::getInfo(uint32_t Attribute, void *Value) const {
  const std::string &Name = name();
  const bool ProgramLinkage = programLinkage();
  // Module linkage only: program-linkage symbols report no module.
  const std::string Module = ProgramLinkage ? "" : moduleName();
  switch (Attribute) {
  case HSA_CODE_SYMBOL_INFO_TYPE:
    put<hsa_symbol_kind_t>(Value, Kind);
    return HSA_STATUS_SUCCESS;
  case HSA_CODE_SYMBOL_INFO_NAME_LENGTH:
    put<uint32_t>(Value, uint32_t(Name.size()));
    return HSA_STATUS_SUCCESS;
  case HSA_CODE_SYMBOL_INFO_NAME:
    std::memcpy(Value, Name.data(), Name.size());
    return HSA_STATUS_SUCCESS;
  case HSA_CODE_SYMBOL_INFO_MODULE_NAME_LENGTH:
    put<uint32_t>(Value, uint32_t(Module.size()));
    return HSA_STATUS_SUCCESS;
  case HSA_CODE_SYMBOL_INFO_MODULE_NAME:
    std::memcpy(Value, Module.data(), Module.size());
    return HSA_STATUS_SUCCESS;
  case HSA_CODE_SYMBOL_INFO_LINKAGE:
    put<hsa_symbol_linkage_t>(Value, ProgramLinkage
                                         ? HSA_SYMBOL_LINKAGE_PROGRAM
                                         : HSA_SYMBOL_LINKAGE_MODULE);
    return HSA_STATUS_SUCCESS;
  case HSA_CODE_SYMBOL_INFO_IS_DEFINITION:
    put<bool>(Value,
              Kind == HSA_SYMBOL_KIND_VARIABLE ? variable().Definition : true);
    return HSA_STATUS_SUCCESS;
  default:
    break;
  }
  if (Kind == HSA_SYMBOL_KIND_INDIRECT_FUNCTION) {
    if (Attribute != HSA_CODE_SYMBOL_INFO_INDIRECT_FUNCTION_CALL_CONVENTION)
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    put<uint32_t>(Value, 0); // The ISA's only call convention.
    return HSA_STATUS_SUCCESS;
  }
  if (Kind == HSA_SYMBOL_KIND_VARIABLE) {
    const finalizer::VariableSymbol &V = variable();
    switch (Attribute) {
    case HSA_CODE_SYMBOL_INFO_VARIABLE_ALLOCATION:
      put<hsa_variable_allocation_t>(
          Value, V.AgentAllocation || V.Segment == brig::BRIG_SEGMENT_READONLY
                     ? HSA_VARIABLE_ALLOCATION_AGENT
                     : HSA_VARIABLE_ALLOCATION_PROGRAM);
      return HSA_STATUS_SUCCESS;
    case HSA_CODE_SYMBOL_INFO_VARIABLE_SEGMENT:
      put<hsa_variable_segment_t>(Value,
                                  V.Segment == brig::BRIG_SEGMENT_READONLY
                                      ? HSA_VARIABLE_SEGMENT_READONLY
                                      : HSA_VARIABLE_SEGMENT_GLOBAL);
      return HSA_STATUS_SUCCESS;
    case HSA_CODE_SYMBOL_INFO_VARIABLE_ALIGNMENT:
      put<uint32_t>(Value, V.Alignment);
      return HSA_STATUS_SUCCESS;
    case HSA_CODE_SYMBOL_INFO_VARIABLE_SIZE:
      put<uint32_t>(Value, uint32_t(std::min<uint64_t>(V.Size, UINT32_MAX)));
      return HSA_STATUS_SUCCESS;
    case HSA_CODE_SYMBOL_INFO_VARIABLE_IS_CONST:
      put<bool>(Value, V.Constant);
      return HSA_STATUS_SUCCESS;
    default:
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
  }
  const finalizer::KernelSymbol &K = kernel();
  switch (Attribute) {
  case HSA_CODE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE:
    // A whole number of 16-byte units, as the API defines it.
    put<uint32_t>(Value, (K.KernargSegmentSize + 15) / 16 * 16);
    return HSA_STATUS_SUCCESS;
  case HSA_CODE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT:
    put<uint32_t>(Value, std::max<uint32_t>(16, K.KernargSegmentAlignment));
    return HSA_STATUS_SUCCESS;
  case HSA_CODE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE:
    put<uint32_t>(Value, K.GroupSegmentSize);
    return HSA_STATUS_SUCCESS;
  case HSA_CODE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE:
    put<uint32_t>(Value, K.PrivateSegmentSize);
    return HSA_STATUS_SUCCESS;
  case HSA_CODE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK:
    put<bool>(Value, K.DynamicCallStack);
    return HSA_STATUS_SUCCESS;
  case HSA_CODE_SYMBOL_INFO_KERNEL_CALL_CONVENTION:
    put<uint32_t>(Value, 0); // The ISA's only call convention.
    return HSA_STATUS_SUCCESS;
  default:
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

//===----------------------------------------------------------------------===//
// StoredCodeObject
//===----------------------------------------------------------------------===//

hsa_status_t StoredCodeObject::getInfo(uint32_t Attribute, void *Value) const {
  const finalizer::CodeObject &CO = *Object;
  switch (Attribute) {
  case HSA_CODE_OBJECT_INFO_VERSION: {
    char Version[64] = {};
    std::strncpy(Version, CodeObjectVersion, sizeof(Version) - 1);
    std::memcpy(Value, Version, sizeof(Version));
    return HSA_STATUS_SUCCESS;
  }
  case HSA_CODE_OBJECT_INFO_TYPE:
    put<hsa_code_object_type_t>(Value, HSA_CODE_OBJECT_TYPE_PROGRAM);
    return HSA_STATUS_SUCCESS;
  case HSA_CODE_OBJECT_INFO_ISA: {
    // The ISA of an agent of this system with the code object's ISA name;
    // a code object made for another machine has none.
    const Runtime *R = Runtime::current();
    if (R)
      for (const auto &A : R->agents())
        for (const Isa *I : A->isas())
          if (I->Name == CO.IsaName) {
            put<hsa_isa_t>(Value, I->handle());
            return HSA_STATUS_SUCCESS;
          }
    return HSA_STATUS_ERROR_INVALID_ISA;
  }
  case HSA_CODE_OBJECT_INFO_MACHINE_MODEL:
    put<hsa_machine_model_t>(Value, hsa_machine_model_t(CO.MachineModel));
    return HSA_STATUS_SUCCESS;
  case HSA_CODE_OBJECT_INFO_PROFILE:
    put<hsa_profile_t>(Value, hsa_profile_t(CO.Profile));
    return HSA_STATUS_SUCCESS;
  case HSA_CODE_OBJECT_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
    put<hsa_default_float_rounding_mode_t>(
        Value, hsa_default_float_rounding_mode_t(CO.DefaultFloatRounding));
    return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

const CodeSymbol *StoredCodeObject::find(llvm::StringRef Module,
                                         llvm::StringRef Name) const {
  for (const auto &S : Symbols) {
    if (S->name() != Name)
      continue;
    const bool Program = S->programLinkage();
    if (Module.empty() ? Program : (!Program && S->moduleName() == Module))
      return S.get();
  }
  return nullptr;
}

//===----------------------------------------------------------------------===//
// CodeObjectStore
//===----------------------------------------------------------------------===//

CodeObjectStore::CodeObjectStore() = default;

CodeObjectStore::~CodeObjectStore() {
  // Executables first: they unregister their kernels and symbols.
  Executables.takeAll().clear();
  for (auto &CO : CodeObjects.takeAll())
    for (const auto &S : CO->Symbols)
      CodeSymbols.remove(S.get());
  Readers.takeAll().clear();
  Programs.takeAll().clear();
}

const ExecutableSymbol *
CodeObjectStore::executableSymbol(hsa_executable_symbol_t H) const {
  return ExecutableSymbols.contains(ExecutableSymbol::fromHandle(H))
             ? ExecutableSymbol::fromHandle(H)
             : nullptr;
}

StoredCodeObject *CodeObjectStore::addCodeObject(finalizer::CodeObject CO) {
  auto Stored = std::make_unique<StoredCodeObject>();
  Stored->Object = std::make_shared<const finalizer::CodeObject>(std::move(CO));
  auto Add = [&](hsa_symbol_kind_t Kind, size_t Count) {
    for (uint32_t I = 0; I < Count; ++I) {
      auto S = std::make_unique<CodeSymbol>();
      S->Owner = Stored.get();
      S->Kind = Kind;
      S->Index = I;
      Stored->Symbols.push_back(std::move(S));
    }
  };
  Add(HSA_SYMBOL_KIND_KERNEL, Stored->Object->Kernels.size());
  Add(HSA_SYMBOL_KIND_VARIABLE, Stored->Object->Variables.size());
  Add(HSA_SYMBOL_KIND_INDIRECT_FUNCTION,
      Stored->Object->IndirectFunctions.size());
  for (const auto &S : Stored->Symbols)
    CodeSymbols.add(S.get());
  return CodeObjects.add(std::move(Stored));
}

bool CodeObjectStore::destroyCodeObject(hsa_code_object_t H) {
  std::unique_ptr<StoredCodeObject> CO =
      CodeObjects.take(reinterpret_cast<const void *>(H.handle));
  if (!CO)
    return false;
  for (const auto &S : CO->Symbols)
    CodeSymbols.remove(S.get());
  return true;
}

} // namespace openhsa
