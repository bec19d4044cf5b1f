//===- brig/asm/Assembler.cpp - HSAIL text assembler entry point ----------===//

#include "brig/asm/Assembler.h"

#include "brig/asm/BrigEmitter.h"
#include "brig/asm/Parser.h"

namespace openhsa::brig::assembler {

llvm::Expected<std::vector<uint8_t>> assembleHsail(llvm::StringRef Source) {
  llvm::Expected<Program> P = parseHsail(Source);
  if (!P)
    return P.takeError();
  return emitBrig(*P);
}

} // namespace openhsa::brig::assembler
