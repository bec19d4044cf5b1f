//===- runtime/api/CodeObjectApi.cpp - Code objects and their readers -----===//
//
// The 1.0 code objects (hsa_code_object_*: serialize, deserialize, queries,
// symbols) and the 1.1 code object readers. A serialized code object is
// what finalizer::CodeObject::serialize() writes; readers hold those bytes
// until an executable loads them.
//
//===----------------------------------------------------------------------===//
#include "runtime/api/ApiCommon.h"
#include "runtime/api/EnumArg.h"

#include "runtime/CodeObjectStore.h"
#include "runtime/ShapeVariants.h"
#include "runtime/core/Log.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

using namespace openhsa;

namespace {

/// Reads the whole file behind \p Fd from its start; false on any error.
bool readWholeFile(int Fd, std::vector<uint8_t> &Out) {
  struct stat St;
  if (Fd < 0 || fstat(Fd, &St) != 0 || S_ISDIR(St.st_mode))
    return false;
  Out.clear();
  uint8_t Buffer[1 << 16];
  off_t Offset = 0;
  const bool Seekable = S_ISREG(St.st_mode) || S_ISBLK(St.st_mode);
  for (;;) {
    ssize_t N = Seekable ? pread(Fd, Buffer, sizeof(Buffer), Offset)
                         : read(Fd, Buffer, sizeof(Buffer));
    if (N < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    if (N == 0)
      return true;
    Out.insert(Out.end(), Buffer, Buffer + N);
    Offset += N;
  }
}

} // namespace

extern "C" {

hsa_status_t hsa_code_object_serialize(
    hsa_code_object_t code_object,
    hsa_status_t (*alloc_callback)(size_t size, hsa_callback_data_t data,
                                   void **address),
    hsa_callback_data_t callback_data, const char *options,
    void **serialized_code_object, size_t *serialized_code_object_size) {
  OPENHSA_REQUIRE_RUNTIME(R);
  StoredCodeObject *CO = R->codeObjects().codeObject(code_object);
  OPENHSA_REQUIRE(CO, HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  OPENHSA_REQUIRE(alloc_callback && serialized_code_object &&
                      serialized_code_object_size,
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // Kernels whose code the finalizer deferred (runtime/ShapeVariants.h)
  // get it now: the bytes must load where the source is not kept.
  auto Complete = withAllCode(CO->Object);
  if (!Complete) {
    log::write(log::Level::Error, "cannot serialize the code object: %s",
               llvm::toString(Complete.takeError()).c_str());
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  }
  const std::vector<uint8_t> Bytes = (*Complete)->serialize();
  void *Address = nullptr;
  if (hsa_status_t S = alloc_callback(Bytes.size(), callback_data, &Address);
      S != HSA_STATUS_SUCCESS)
    return S;
  OPENHSA_REQUIRE(Address, HSA_STATUS_ERROR_OUT_OF_RESOURCES);
  std::memcpy(Address, Bytes.data(), Bytes.size());
  *serialized_code_object = Address;
  *serialized_code_object_size = Bytes.size();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_code_object_deserialize(void *serialized_code_object,
                                         size_t serialized_code_object_size,
                                         const char *options,
                                         hsa_code_object_t *code_object) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(serialized_code_object && serialized_code_object_size &&
                      code_object,
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  auto CO = finalizer::CodeObject::deserialize(llvm::ArrayRef<uint8_t>(
      static_cast<const uint8_t *>(serialized_code_object),
      serialized_code_object_size));
  if (!CO) {
    llvm::consumeError(CO.takeError());
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  }
  *code_object = R->codeObjects().addCodeObject(std::move(*CO))->handle();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_code_object_destroy(hsa_code_object_t code_object) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(R->codeObjects().destroyCodeObject(code_object),
                  HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_code_object_get_info(hsa_code_object_t code_object,
                                      hsa_code_object_info_t attribute,
                                      void *value) {
  OPENHSA_REQUIRE_RUNTIME(R);
  StoredCodeObject *CO = R->codeObjects().codeObject(code_object);
  OPENHSA_REQUIRE(CO, HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  OPENHSA_REQUIRE(value, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  return CO->getInfo(enumBits(attribute), value);
}

hsa_status_t hsa_code_object_get_symbol(hsa_code_object_t code_object,
                                        const char *symbol_name,
                                        hsa_code_symbol_t *symbol) {
  OPENHSA_REQUIRE_RUNTIME(R);
  StoredCodeObject *CO = R->codeObjects().codeObject(code_object);
  OPENHSA_REQUIRE(CO, HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  OPENHSA_REQUIRE(symbol_name && symbol, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // "&name" for program linkage, "&module::&name" for module linkage.
  llvm::StringRef Name(symbol_name);
  const CodeSymbol *S = CO->find("", Name);
  if (!S)
    if (size_t Sep = Name.rfind("::"); Sep != llvm::StringRef::npos)
      S = CO->find(Name.take_front(Sep), Name.drop_front(Sep + 2));
  OPENHSA_REQUIRE(S, HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  *symbol = S->handle();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_code_object_get_symbol_from_name(hsa_code_object_t code_object,
                                                  const char *module_name,
                                                  const char *symbol_name,
                                                  hsa_code_symbol_t *symbol) {
  OPENHSA_REQUIRE_RUNTIME(R);
  StoredCodeObject *CO = R->codeObjects().codeObject(code_object);
  OPENHSA_REQUIRE(CO, HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  OPENHSA_REQUIRE(symbol_name && symbol, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  const CodeSymbol *S = CO->find(module_name ? module_name : "", symbol_name);
  OPENHSA_REQUIRE(S, HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  *symbol = S->handle();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_code_object_iterate_symbols(
    hsa_code_object_t code_object,
    hsa_status_t (*callback)(hsa_code_object_t code_object,
                             hsa_code_symbol_t symbol, void *data),
    void *data) {
  OPENHSA_REQUIRE_RUNTIME(R);
  StoredCodeObject *CO = R->codeObjects().codeObject(code_object);
  OPENHSA_REQUIRE(CO, HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  OPENHSA_REQUIRE(callback, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // The symbols of a code object never change.
  for (const auto &S : CO->Symbols)
    if (hsa_status_t St = callback(code_object, S->handle(), data);
        St != HSA_STATUS_SUCCESS)
      return St;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_code_symbol_get_info(hsa_code_symbol_t code_symbol,
                                      hsa_code_symbol_info_t attribute,
                                      void *value) {
  OPENHSA_REQUIRE_RUNTIME(R);
  const CodeSymbol *S = R->codeObjects().codeSymbol(code_symbol);
  OPENHSA_REQUIRE(S, HSA_STATUS_ERROR_INVALID_CODE_SYMBOL);
  OPENHSA_REQUIRE(value, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  return S->getInfo(enumBits(attribute), value);
}

hsa_status_t hsa_code_object_reader_create_from_file(
    hsa_file_t file, hsa_code_object_reader_t *code_object_reader) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(code_object_reader, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  auto Reader = std::make_unique<CodeObjectReader>();
  OPENHSA_REQUIRE(readWholeFile(file, Reader->Owned) && !Reader->Owned.empty(),
                  HSA_STATUS_ERROR_INVALID_FILE);
  Reader->Data = Reader->Owned.data();
  Reader->Size = Reader->Owned.size();
  *code_object_reader =
      R->codeObjects().Readers.add(std::move(Reader))->handle();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_code_object_reader_create_from_memory(
    const void *code_object, size_t size,
    hsa_code_object_reader_t *code_object_reader) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(code_object && size && code_object_reader,
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  auto Reader = std::make_unique<CodeObjectReader>();
  Reader->Data = static_cast<const uint8_t *>(code_object);
  Reader->Size = size;
  *code_object_reader =
      R->codeObjects().Readers.add(std::move(Reader))->handle();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t
hsa_code_object_reader_destroy(hsa_code_object_reader_t code_object_reader) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(R->codeObjects().Readers.take(reinterpret_cast<const void *>(
                      code_object_reader.handle)),
                  HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
  return HSA_STATUS_SUCCESS;
}

} // extern "C"
