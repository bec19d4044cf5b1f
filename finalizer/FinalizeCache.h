//===- finalizer/FinalizeCache.h - Code objects kept across finalizations ===//
//
// Compiling a program costs 20-100 ms (LLVM's optimization and code
// generation), and HSA programs finalize the same kernels at every start.
// finalizeCached() keeps what finalize() produced under a key that holds
// everything the result depends on: the modules' bytes, the request, the
// host CPU and its features, LLVM's version, the finalizer's own build (the
// file it was loaded from: path, size, modification time, as Mesa's shader
// cache does; where that file cannot be found, nothing is kept on disk) and
// the environment variables that change code (OPENHSA_VECTORIZE,
// OPENHSA_VECTOR_WIDTH, OPENHSA_PROMOTE_REGISTERS, OPENHSA_PREFETCH_GROUPS).
//
// Two levels: in the process (up to 64 MiB of serialized code objects),
// and on disk, one file per key under $OPENHSA_CACHE_DIR, else
// $XDG_CACHE_HOME/openhsa/finalizer, else ~/.cache/openhsa/finalizer.
// Files are written whole and renamed into place, so concurrent processes
// never read a torn one; a file read back is an untrusted code object
// (CodeObject::deserialize checks its hash and its object), and one that
// fails is finalized again and replaced. The directory is kept under
// $OPENHSA_CACHE_MAX_MB (default 256) by removing the least recently used
// files after each store.
//
// OPENHSA_FINALIZER_CACHE=0 turns it off, =memory keeps it in the process.
// Failed finalizations are not kept. A request that asks LLVM for output
// (OPENHSA_DUMP_IR, OPENHSA_DUMP_ASM, OPENHSA_LLVM_ARGS) always compiles.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_FINALIZER_FINALIZECACHE_H
#define OPENHSA_FINALIZER_FINALIZECACHE_H

#include "finalizer/Finalizer.h"

#include <cstdint>
#include <string>

namespace openhsa::finalizer {

/// finalize(Request), or the code object a finalization of the same
/// request produced before (in this process or, from disk, in another).
llvm::Expected<CodeObject> finalizeCached(const FinalizeRequest &Request);

/// What finalizeCached did since the process started.
struct FinalizeCacheStats {
  uint64_t MemoryHits = 0;
  uint64_t DiskHits = 0;
  uint64_t Misses = 0;   // Finalized (the cache on, nothing usable kept).
  uint64_t Bypassed = 0; // Finalized with the cache off or a dump asked.
  uint64_t Stored = 0;   // Files written.
  uint64_t Rejected = 0; // Files read back that were not a valid object.
  uint64_t Evicted = 0;  // Files removed to stay under the size limit.
};
FinalizeCacheStats finalizeCacheStats();

/// Empties the in-process level (tests: the next lookup goes to disk).
void clearFinalizeMemoryCache();

/// The directory of the on-disk level for the current environment ("" when
/// no place can be named: no HOME and no override).
std::string finalizeCacheDirectory();

} // namespace openhsa::finalizer

#endif
