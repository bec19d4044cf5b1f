//===- runtime/api/SystemApi.cpp - hsa_init, system info, extensions ------===//
#include "runtime/api/ApiCommon.h"
#include "runtime/api/EnumArg.h"
#include "runtime/api/ExtensionTables.h"

#include "hsa/hsa_ext_finalize.h"
#include "hsa/hsa_ext_image.h"
#include "runtime/core/Clock.h"

#include <cstring>

using namespace openhsa;

extern "C" {

hsa_status_t hsa_init() { return Runtime::acquire(); }

hsa_status_t hsa_shut_down() { return Runtime::release(); }

hsa_status_t hsa_status_string(hsa_status_t status,
                               const char **status_string) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(status_string, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  const char *S = nullptr;
  switch (enumBits(status)) {
#define OPENHSA_STATUS(Code, Text)                                             \
  case Code:                                                                   \
    S = #Code ": " Text;                                                       \
    break;
    OPENHSA_STATUS(HSA_STATUS_SUCCESS,
                   "The function has been executed successfully.")
    OPENHSA_STATUS(HSA_STATUS_INFO_BREAK,
                   "A traversal over a list of elements has been interrupted "
                   "by the application before completing.")
    OPENHSA_STATUS(HSA_STATUS_ERROR, "A generic error has occurred.")
    OPENHSA_STATUS(
        HSA_STATUS_ERROR_INVALID_ARGUMENT,
        "One of the actual arguments does not meet a precondition stated in "
        "the documentation of the corresponding formal argument.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_QUEUE_CREATION,
                   "The requested queue creation is not valid.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_ALLOCATION,
                   "The requested allocation is not valid.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_AGENT, "The agent is invalid.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_REGION,
                   "The memory region is invalid.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_SIGNAL, "The signal is invalid.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_QUEUE, "The queue is invalid.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_OUT_OF_RESOURCES,
                   "The runtime failed to allocate the necessary resources.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT,
                   "The AQL packet is malformed.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_RESOURCE_FREE,
                   "An error has been detected while releasing a resource.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_NOT_INITIALIZED,
                   "An API other than hsa_init has been invoked while the "
                   "reference count of the runtime is zero.")
    OPENHSA_STATUS(
        HSA_STATUS_ERROR_REFCOUNT_OVERFLOW,
        "The maximum reference count for the object has been reached.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS,
                   "The arguments passed to a function are not compatible.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_INDEX, "The index is invalid.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_ISA,
                   "The instruction set architecture is invalid.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_ISA_NAME,
                   "The instruction set architecture name is invalid.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_CODE_OBJECT,
                   "The code object is invalid.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_EXECUTABLE,
                   "The executable is invalid.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_FROZEN_EXECUTABLE,
                   "The executable is frozen.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_SYMBOL_NAME,
                   "There is no symbol with the given name.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED,
                   "The variable is already defined.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_VARIABLE_UNDEFINED,
                   "The variable is undefined.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_EXCEPTION,
                   "An HSAIL operation resulted in a hardware exception.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_CODE_SYMBOL,
                   "The code object symbol is invalid.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL,
                   "The executable symbol is invalid.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_FILE,
                   "The file descriptor is invalid.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER,
                   "The code object reader is invalid.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_CACHE, "The cache is invalid.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_WAVEFRONT,
                   "The wavefront is invalid.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP,
                   "The signal group is invalid.")
    OPENHSA_STATUS(HSA_STATUS_ERROR_INVALID_RUNTIME_STATE,
                   "The runtime is not in the configuration state.")
    OPENHSA_STATUS(
        HSA_STATUS_ERROR_FATAL,
        "The queue received an error that may require process termination.")
    OPENHSA_STATUS(HSA_EXT_STATUS_ERROR_INVALID_PROGRAM, "Invalid program.")
    OPENHSA_STATUS(HSA_EXT_STATUS_ERROR_INVALID_MODULE, "Invalid module.")
    OPENHSA_STATUS(
        HSA_EXT_STATUS_ERROR_INCOMPATIBLE_MODULE,
        "Machine model or profile of the module do not match the program.")
    OPENHSA_STATUS(HSA_EXT_STATUS_ERROR_MODULE_ALREADY_INCLUDED,
                   "The module is already part of the program.")
    OPENHSA_STATUS(HSA_EXT_STATUS_ERROR_SYMBOL_MISMATCH,
                   "Compatibility mismatch between symbol declaration and "
                   "symbol definition.")
    OPENHSA_STATUS(HSA_EXT_STATUS_ERROR_FINALIZATION_FAILED,
                   "The finalization encountered an error while finalizing a "
                   "kernel or indirect function.")
    OPENHSA_STATUS(HSA_EXT_STATUS_ERROR_DIRECTIVE_MISMATCH,
                   "Mismatch between a directive in the control directive "
                   "structure and in the program.")
    OPENHSA_STATUS(HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED,
                   "Image format is not supported.")
    OPENHSA_STATUS(HSA_EXT_STATUS_ERROR_IMAGE_SIZE_UNSUPPORTED,
                   "Image size is not supported.")
    OPENHSA_STATUS(HSA_EXT_STATUS_ERROR_IMAGE_PITCH_UNSUPPORTED,
                   "Image pitch is not supported or invalid.")
    OPENHSA_STATUS(HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED,
                   "Sampler descriptor is not supported or invalid.")
#undef OPENHSA_STATUS
  default:
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  *status_string = S;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_system_get_info(hsa_system_info_t attribute, void *value) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(value, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  switch (enumBits(attribute)) {
  case HSA_SYSTEM_INFO_VERSION_MAJOR:
    *static_cast<uint16_t *>(value) = 1;
    break;
  case HSA_SYSTEM_INFO_VERSION_MINOR:
    *static_cast<uint16_t *>(value) = 2;
    break;
  case HSA_SYSTEM_INFO_TIMESTAMP:
    *static_cast<uint64_t *>(value) = systemTimestamp();
    break;
  case HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY:
    *static_cast<uint64_t *>(value) = TimestampFrequencyHz;
    break;
  case HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT:
    *static_cast<uint64_t *>(value) = UINT64_MAX; // Waits are unbounded.
    break;
  case HSA_SYSTEM_INFO_ENDIANNESS:
    *static_cast<hsa_endianness_t *>(value) = HSA_ENDIANNESS_LITTLE;
    break;
  case HSA_SYSTEM_INFO_MACHINE_MODEL:
    *static_cast<hsa_machine_model_t *>(value) = HSA_MACHINE_MODEL_LARGE;
    break;
  case HSA_SYSTEM_INFO_EXTENSIONS: {
    uint8_t *Mask = static_cast<uint8_t *>(value);
    std::memset(Mask, 0, 128);
    for (uint16_t Id : supportedExtensions())
      Mask[Id / 8] |= uint8_t(1u << (Id % 8));
    break;
  }
  default:
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_extension_get_name(uint16_t extension, const char **name) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(name, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  const char *N = extensionName(extension);
  OPENHSA_REQUIRE(N, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  *name = N;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_system_extension_supported(uint16_t extension,
                                            uint16_t version_major,
                                            uint16_t version_minor,
                                            bool *result) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(result, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OPENHSA_REQUIRE(extensionName(extension), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  uint16_t Minor = 0;
  *result = extensionSupported(extension, version_major, &Minor) &&
            version_minor <= Minor;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_system_major_extension_supported(uint16_t extension,
                                                  uint16_t version_major,
                                                  uint16_t *version_minor,
                                                  bool *result) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(result && version_minor, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OPENHSA_REQUIRE(extensionName(extension), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  *result = extensionSupported(extension, version_major, version_minor);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_system_get_extension_table(uint16_t extension,
                                            uint16_t version_major,
                                            uint16_t version_minor,
                                            void *table) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(table, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  uint16_t Minor = 0;
  OPENHSA_REQUIRE(extensionSupported(extension, version_major, &Minor) &&
                      version_minor <= Minor,
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  return copyExtensionTable(extension, version_major, SIZE_MAX, table);
}

hsa_status_t hsa_system_get_major_extension_table(uint16_t extension,
                                                  uint16_t version_major,
                                                  size_t table_length,
                                                  void *table) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(table, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  uint16_t Minor = 0;
  OPENHSA_REQUIRE(extensionSupported(extension, version_major, &Minor),
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  return copyExtensionTable(extension, version_major, table_length, table);
}

} // extern "C"
