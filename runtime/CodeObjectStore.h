//===- runtime/CodeObjectStore.h - Programs, code objects, executables -*- C++
//-*-===//
//
// The objects behind the handles of the finalizer extension and of the code
// object / executable part of hsa.h: hsa_ext_program_t, hsa_code_object_t,
// hsa_code_symbol_t, hsa_code_object_reader_t, hsa_executable_t and
// hsa_executable_symbol_t. Each handle is the object's address; the store
// owns the objects and every entry point checks a handle against it before
// following it. The Runtime owns one store and destroys it (executables
// first) when the last hsa_shut_down tears down.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_CODEOBJECTSTORE_H
#define OPENHSA_RUNTIME_CODEOBJECTSTORE_H

#include "finalizer/CodeObject.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_finalize.h"
#include "runtime/core/Registry.h"

#include "llvm/ADT/ArrayRef.h"

#include <map>
#include <memory>
#include <shared_mutex>
#include <vector>

namespace openhsa {

class Program;
class Executable;
struct ExecutableSymbol;
struct StoredCodeObject;

/// A symbol of a 1.0 code object (hsa_code_symbol_t): a kernel, a variable
/// or an indirect function of the code object's metadata.
struct CodeSymbol {
  const StoredCodeObject *Owner = nullptr;
  hsa_symbol_kind_t Kind = HSA_SYMBOL_KIND_VARIABLE;
  uint32_t Index = 0; // Into Kernels, Variables or IndirectFunctions.

  hsa_code_symbol_t handle() const {
    return {static_cast<uint64_t>(reinterpret_cast<uintptr_t>(this))};
  }
  static const CodeSymbol *fromHandle(hsa_code_symbol_t H) {
    return reinterpret_cast<const CodeSymbol *>(
        static_cast<uintptr_t>(H.handle));
  }
  const finalizer::KernelSymbol &kernel() const;
  const finalizer::VariableSymbol &variable() const;
  const finalizer::IndirectFunctionSymbol &indirectFunction() const;
  const std::string &name() const;
  const std::string &moduleName() const;
  bool programLinkage() const;
  hsa_status_t getInfo(uint32_t Attribute, void *Value) const;
};

/// A 1.0 code object (hsa_code_object_t). Executables that load it share
/// the CodeObject, so destroying the handle early does not pull it from
/// under them.
struct StoredCodeObject {
  std::shared_ptr<const finalizer::CodeObject> Object;
  /// Kernels, then variables, then indirect functions.
  std::vector<std::unique_ptr<CodeSymbol>> Symbols;

  hsa_code_object_t handle() const {
    return {static_cast<uint64_t>(reinterpret_cast<uintptr_t>(this))};
  }
  static StoredCodeObject *fromHandle(hsa_code_object_t H) {
    return reinterpret_cast<StoredCodeObject *>(
        static_cast<uintptr_t>(H.handle));
  }
  hsa_status_t getInfo(uint32_t Attribute, void *Value) const;
  /// The symbol named \p Name in module \p Module (empty: program linkage).
  const CodeSymbol *find(llvm::StringRef Module, llvm::StringRef Name) const;
};

/// A code object reader (hsa_code_object_reader_t): the bytes of a
/// serialized code object, copied from a file or borrowed from memory the
/// application keeps alive.
struct CodeObjectReader {
  std::vector<uint8_t> Owned; // File contents.
  const uint8_t *Data = nullptr;
  size_t Size = 0;

  llvm::ArrayRef<uint8_t> bytes() const { return {Data, Size}; }
  hsa_code_object_reader_t handle() const {
    return {static_cast<uint64_t>(reinterpret_cast<uintptr_t>(this))};
  }
  static CodeObjectReader *fromHandle(hsa_code_object_reader_t H) {
    return reinterpret_cast<CodeObjectReader *>(
        static_cast<uintptr_t>(H.handle));
  }
};

/// Objects owned by address, looked up by handle.
template <typename T> class OwningRegistry {
public:
  T *add(std::unique_ptr<T> Object) {
    T *Raw = Object.get();
    std::unique_lock Lock(Mutex);
    Objects.emplace(Raw, std::move(Object));
    return Raw;
  }
  T *get(const void *Address) const {
    std::shared_lock Lock(Mutex);
    auto It = Objects.find(static_cast<const T *>(Address));
    return It == Objects.end() ? nullptr : It->second.get();
  }
  /// Removes and returns the object (null when it is not registered).
  std::unique_ptr<T> take(const void *Address) {
    std::unique_lock Lock(Mutex);
    auto It = Objects.find(static_cast<const T *>(Address));
    if (It == Objects.end())
      return nullptr;
    std::unique_ptr<T> Object = std::move(It->second);
    Objects.erase(It);
    return Object;
  }
  /// Removes every object (destroyed by the caller, in its own order).
  std::vector<std::unique_ptr<T>> takeAll() {
    std::unique_lock Lock(Mutex);
    std::vector<std::unique_ptr<T>> All;
    for (auto &[Ptr, Object] : Objects)
      All.push_back(std::move(Object));
    Objects.clear();
    return All;
  }

private:
  mutable std::shared_mutex Mutex;
  std::map<const T *, std::unique_ptr<T>> Objects;
};

class CodeObjectStore {
public:
  CodeObjectStore();
  /// Destroys executables first (their kernels leave cpu::liveKernels()),
  /// then everything else.
  ~CodeObjectStore();

  OwningRegistry<Program> Programs;
  OwningRegistry<StoredCodeObject> CodeObjects;
  OwningRegistry<CodeObjectReader> Readers;
  OwningRegistry<Executable> Executables;
  /// Every symbol of a live code object / executable.
  Registry<CodeSymbol> CodeSymbols;
  Registry<ExecutableSymbol> ExecutableSymbols;

  Program *program(hsa_ext_program_t H) const {
    return Programs.get(reinterpret_cast<const void *>(H.handle));
  }
  StoredCodeObject *codeObject(hsa_code_object_t H) const {
    return CodeObjects.get(reinterpret_cast<const void *>(H.handle));
  }
  CodeObjectReader *reader(hsa_code_object_reader_t H) const {
    return Readers.get(reinterpret_cast<const void *>(H.handle));
  }
  Executable *executable(hsa_executable_t H) const {
    return Executables.get(reinterpret_cast<const void *>(H.handle));
  }
  const CodeSymbol *codeSymbol(hsa_code_symbol_t H) const {
    return CodeSymbols.contains(CodeSymbol::fromHandle(H))
               ? CodeSymbol::fromHandle(H)
               : nullptr;
  }
  const ExecutableSymbol *executableSymbol(hsa_executable_symbol_t H) const;

  /// Registers a finalized or deserialized code object with its symbols.
  StoredCodeObject *addCodeObject(finalizer::CodeObject CO);
  bool destroyCodeObject(hsa_code_object_t H);
};

} // namespace openhsa

#endif
