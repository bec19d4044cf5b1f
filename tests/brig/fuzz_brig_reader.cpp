//===- tests/brig/fuzz_brig_reader.cpp - libFuzzer entry point ------------===//
//
// Part of openhsa. Feeds arbitrary bytes to the BRIG reader, validator and
// disassembler (built with -DOPENHSA_BUILD_FUZZERS=ON under clang).
//
//===----------------------------------------------------------------------===//

#include "brig/Disassembler.h"
#include "brig/Validator.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

using namespace openhsa::brig;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  // Modules must be 16-byte aligned; libFuzzer's buffer need not be.
  std::unique_ptr<uint8_t[]> Copy(new (std::align_val_t(16)) uint8_t[Size + 1]);
  if (Size)
    std::memcpy(Copy.get(), Data, Size);
  auto M = BrigModule::create(llvm::ArrayRef<uint8_t>(Copy.get(), Size),
                              "fuzz.brig");
  if (!M) {
    llvm::consumeError(M.takeError());
    return 0;
  }
  (void)disassembleToString(*M);
  if (llvm::Error E = validateModule(*M))
    llvm::consumeError(std::move(E));
  return 0;
}
