//===- tests/core/SharedHostArenaTest.cpp - Memory devices share ----------===//
//
// runtime/core/SharedHostArena: first fit, ranges merged as they are given
// back, null when full; and the runtime's queues taking their memory (the
// queue and an agent's ring) from it, so that GPU kernels reach them.
//
//===----------------------------------------------------------------------===//
#include "runtime/core/SharedHostArena.h"
#include "runtime/core/Queue.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace {

using namespace openhsa;

// The block is process-wide and reserved once: every test here uses the
// same 1 MiB and leaves it as it found it.
constexpr size_t ArenaBytes = size_t(1) << 20;

char *arena() {
  auto [Base, Bytes] = SharedHostArena::reserve(ArenaBytes);
  EXPECT_EQ(Bytes, ArenaBytes);
  return static_cast<char *>(Base);
}

TEST(SharedHostArena, AllocationsAreAlignedDisjointAndReused) {
  char *Base = arena();
  ASSERT_NE(Base, nullptr);
  EXPECT_EQ(SharedHostArena::reserve(4096).first, Base)
      << "a second reservation must return the first block";
  void *A = SharedHostArena::allocate(100);
  void *B = SharedHostArena::allocate(64);
  ASSERT_NE(A, nullptr);
  ASSERT_NE(B, nullptr);
  EXPECT_EQ(uintptr_t(A) % SharedHostArena::Alignment, 0u);
  EXPECT_EQ(uintptr_t(B) % SharedHostArena::Alignment, 0u);
  EXPECT_GE(static_cast<char *>(B) - static_cast<char *>(A), 128)
      << "100 bytes round up to two 64-byte units";
  EXPECT_TRUE(SharedHostArena::contains(A));
  EXPECT_TRUE(SharedHostArena::free(A));
  EXPECT_FALSE(SharedHostArena::free(A)) << "freed twice";
  // First fit: the range A had is taken again.
  void *C = SharedHostArena::allocate(128);
  EXPECT_EQ(C, A);
  EXPECT_TRUE(SharedHostArena::free(B));
  EXPECT_TRUE(SharedHostArena::free(C));
}

TEST(SharedHostArena, FreedNeighboursMergeIntoTheWholeBlock) {
  char *Base = arena();
  ASSERT_NE(Base, nullptr);
  void *Parts[4];
  for (void *&P : Parts) {
    P = SharedHostArena::allocate(ArenaBytes / 4);
    ASSERT_NE(P, nullptr);
  }
  EXPECT_EQ(SharedHostArena::allocate(64), nullptr) << "the block is full";
  // Given back out of order: the middle ones last, so both sides merge.
  for (int I : {0, 3, 1, 2})
    EXPECT_TRUE(SharedHostArena::free(Parts[I]));
  void *Whole = SharedHostArena::allocate(ArenaBytes);
  EXPECT_EQ(Whole, Base) << "the free ranges did not merge";
  EXPECT_TRUE(SharedHostArena::free(Whole));
}

TEST(SharedHostArena, MemoryOutsideIsNotFreed) {
  ASSERT_NE(arena(), nullptr);
  int OnStack = 0;
  EXPECT_FALSE(SharedHostArena::contains(&OnStack));
  EXPECT_FALSE(SharedHostArena::free(&OnStack));
  EXPECT_FALSE(SharedHostArena::free(nullptr));
}

// An agent's queue lives in the arena, ring included; a queue without an
// owner (a soft queue) keeps its ring where its allocator put it. When
// the arena is full, queues still come from ordinary memory.
TEST(SharedHostArena, AgentQueuesLiveInIt) {
  ASSERT_NE(arena(), nullptr);
  Queue::Config C;
  C.Owner = reinterpret_cast<const Agent *>(uintptr_t(64)); // Never used.
  C.Size = 64;
  {
    auto Q = Queue::create(C, 1);
    ASSERT_NE(Q, nullptr);
    EXPECT_TRUE(SharedHostArena::contains(Q.get()));
    EXPECT_TRUE(SharedHostArena::contains(Q->hsa()->base_address));
    EXPECT_EQ(Q->hsa()->size, 64u);
  }
  C.Owner = nullptr;
  {
    auto Q = Queue::create(C, 2);
    ASSERT_NE(Q, nullptr);
    EXPECT_FALSE(SharedHostArena::contains(Q->hsa()->base_address));
  }
  void *All = SharedHostArena::allocate(ArenaBytes);
  ASSERT_NE(All, nullptr) << "a queue's memory was not given back";
  auto Q = Queue::create(C, 3);
  ASSERT_NE(Q, nullptr);
  EXPECT_FALSE(SharedHostArena::contains(Q.get()));
  Q.reset();
  EXPECT_TRUE(SharedHostArena::free(All));
}

} // namespace
