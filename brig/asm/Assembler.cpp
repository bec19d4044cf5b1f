//===- brig/asm/Assembler.cpp - HSAIL text assembler entry point ----------===//

#include "brig/asm/Assembler.h"

#include "brig/asm/BrigEmitter.h"
#include "brig/asm/Parser.h"

namespace openhsa::brig::assembler {

llvm::Expected<std::vector<uint8_t>>
assembleHsail(llvm::StringRef Source, const AssembleOptions &Options) {
  llvm::Expected<Program> P = parseHsail(Source, Options.CheckSemantics);
  if (!P)
    return P.takeError();
  return emitBrig(*P);
}

} // namespace openhsa::brig::assembler
