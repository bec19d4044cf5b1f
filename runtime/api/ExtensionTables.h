//===- runtime/api/ExtensionTables.h - Which extensions, their tables -*- C++
//-*-===//
#ifndef OPENHSA_RUNTIME_API_EXTENSIONTABLES_H
#define OPENHSA_RUNTIME_API_EXTENSIONTABLES_H

#include "hsa/hsa.h"

#include <cstddef>
#include <vector>

namespace openhsa {

/// The name of a known extension (standard or ours), or null.
const char *extensionName(uint16_t Extension);
/// Extensions this runtime implements, for HSA_SYSTEM_INFO_EXTENSIONS.
const std::vector<uint16_t> &supportedExtensions();
/// Whether major version Major of Extension is implemented; its highest
/// minor version goes to *Minor.
bool extensionSupported(uint16_t Extension, uint16_t Major, uint16_t *Minor);
/// Copies at most Length bytes of the function table.
hsa_status_t copyExtensionTable(uint16_t Extension, uint16_t Major,
                                size_t Length, void *Table);

} // namespace openhsa

#endif
