//===- finalizer/ObjectCheck.h - Checks of untrusted ELF objects -*- C++
//-*-===//
//
// JITLink trusts the relocatable object it links: a relocation whose offset
// lies outside its section is applied there anyway (x86_64::applyFixup
// writes past the block), a symbol of a section that does not exist is
// looked up in a table it indexes without a check, and so on. A code object
// read back from bytes (hsa_code_object_deserialize, code object readers, a
// cache on disk) is untrusted input, so its object is checked here first:
// every section, symbol and relocation must lie within what it refers to.
// The content hash of the serialized form (finalizer/CodeObject.cpp) catches
// accidental damage; this check also refuses objects crafted with a valid
// hash.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_OBJECTCHECK_H
#define OPENHSA_FINALIZER_OBJECTCHECK_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace openhsa::finalizer {

/// Success when Object is a relocatable ELF object for this host whose
/// sections, symbols and relocations all lie within bounds; otherwise an
/// error naming the first problem found (which section, symbol or
/// relocation, and why).
llvm::Error checkRelocatableObject(llvm::ArrayRef<uint8_t> Object);

} // namespace openhsa::finalizer

#endif
