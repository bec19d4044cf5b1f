//===- finalizer/JitLoader.h - Code objects into executable memory -*- C++
//-*-===//
//
// Loads a code object's relocatable object with ORC (JITLink) for the host,
// into a JITDylib of its own in one session that the process shares. The object
// may call only a closed set of runtime symbols (memcpy and friends, the math
// functions LLVM lowers to calls, and the runtime's own helpers); variables it
// declares but does not define are bound to addresses the executable supplies.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_JITLOADER_H
#define OPENHSA_FINALIZER_JITLOADER_H

#include "finalizer/CodeObject.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <string>

namespace openhsa::finalizer {

class LoadedObject {
public:
  virtual ~LoadedObject();
  /// Loads CO's object; External maps object symbols of undefined variables
  /// to their addresses.
  static llvm::Expected<std::unique_ptr<LoadedObject>>
  load(const CodeObject &CO, const std::map<std::string, void *> &External);
  /// The address of an object symbol.
  virtual llvm::Expected<void *> address(llvm::StringRef Symbol) = 0;
};

} // namespace openhsa::finalizer

#endif
