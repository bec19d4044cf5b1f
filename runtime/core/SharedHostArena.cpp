//===- runtime/core/SharedHostArena.cpp - Memory devices share ------------===//
//
// First fit over a map of free ranges, merged with their neighbours as they
// are given back. Allocations are rare (a queue's creation) and few (at
// most 128 queues an agent), so a mutex and a map are enough.
//
//===----------------------------------------------------------------------===//
#include "runtime/core/SharedHostArena.h"

#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>

namespace openhsa::SharedHostArena {

namespace {
struct Block {
  std::mutex Mutex;
  char *Base = nullptr;
  size_t Size = 0;
  std::map<size_t, size_t> Free;      // Offset -> bytes.
  std::map<size_t, size_t> Allocated; // Offset -> bytes.
};
Block &block() {
  static Block *B = new Block; // Outlives every other static.
  return *B;
}
size_t roundUp(size_t N) { return (N + Alignment - 1) / Alignment * Alignment; }
} // namespace

std::pair<void *, size_t> reserve(size_t Bytes) {
  Block &B = block();
  std::lock_guard<std::mutex> Lock(B.Mutex);
  if (!B.Base && Bytes) {
    B.Base = static_cast<char *>(std::aligned_alloc(4096, Bytes));
    if (!B.Base)
      return {nullptr, 0};
    B.Size = Bytes;
    B.Free.emplace(0, Bytes);
  }
  return {B.Base, B.Size};
}

void *allocate(size_t Bytes) {
  Block &B = block();
  const size_t Need = roundUp(Bytes ? Bytes : 1);
  std::lock_guard<std::mutex> Lock(B.Mutex);
  for (auto It = B.Free.begin(); It != B.Free.end(); ++It) {
    if (It->second < Need)
      continue;
    const size_t Offset = It->first, Left = It->second - Need;
    B.Free.erase(It);
    if (Left)
      B.Free.emplace(Offset + Need, Left);
    B.Allocated.emplace(Offset, Need);
    return B.Base + Offset;
  }
  return nullptr;
}

bool free(void *P) {
  Block &B = block();
  std::lock_guard<std::mutex> Lock(B.Mutex);
  auto *C = static_cast<char *>(P);
  if (!B.Base || C < B.Base || C >= B.Base + B.Size)
    return false;
  auto Used = B.Allocated.find(size_t(C - B.Base));
  if (Used == B.Allocated.end())
    return false;
  size_t Offset = Used->first, Size = Used->second;
  B.Allocated.erase(Used);
  // Merge with the free ranges on either side.
  auto Next = B.Free.lower_bound(Offset);
  if (Next != B.Free.end() && Next->first == Offset + Size) {
    Size += Next->second;
    Next = B.Free.erase(Next);
  }
  if (Next != B.Free.begin()) {
    auto Prev = std::prev(Next);
    if (Prev->first + Prev->second == Offset) {
      Prev->second += Size;
      return true;
    }
  }
  B.Free.emplace(Offset, Size);
  return true;
}

bool contains(const void *P) {
  Block &B = block();
  std::lock_guard<std::mutex> Lock(B.Mutex);
  auto *C = static_cast<const char *>(P);
  return B.Base && C >= B.Base && C < B.Base + B.Size;
}

} // namespace openhsa::SharedHostArena
