//===- tests/core/WorkGroupPoolTest.cpp - How work-groups are handed out --===//
//
// cpu_agent/WorkGroupPool.h: a job's work-groups go out in chunks claimed
// in order, never smaller than the job's MinChunk where that many are left
// (unless the claimer asks for fewer), and a runner retires what it ran
// when it leaves the job: the job finishes when the last runner retires,
// once, having seen every work-group's effects.
//
//===----------------------------------------------------------------------===//
#include "cpu_agent/WorkGroupPool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <utility>
#include <vector>

namespace {

using openhsa::cpu::GroupJob;

/// Records the chunks it runs (one runner at a time) and its finish.
class RecordingJob final : public GroupJob {
public:
  using GroupJob::GroupJob;
  std::vector<std::pair<uint64_t, uint64_t>> Chunks;
  int Finished = 0;

protected:
  void run(uint64_t Begin, uint64_t End, unsigned) override {
    Chunks.push_back({Begin, End});
  }
  void finished() override { ++Finished; }
};

// The reduction's 65536 work-groups among 16 workers and the packet
// processor: guided chunks shrink to MinChunk, not to single work-groups;
// only the last chunk, the rest, may be smaller.
TEST(GroupJobTest, SharedChunksAreAtLeastMinChunk) {
  RecordingJob Job(65536, 123);
  GroupJob::Ran Mine;
  while (Job.runChunk(0, 17, UINT64_MAX, Mine))
    ;
  ASSERT_FALSE(Job.Chunks.empty());
  uint64_t Next = 0;
  for (size_t I = 0; I < Job.Chunks.size(); ++I) {
    const auto [Begin, End] = Job.Chunks[I];
    EXPECT_EQ(Begin, Next) << "chunk " << I << " is not the next in order";
    if (I + 1 < Job.Chunks.size()) {
      EXPECT_GE(End - Begin, 123u) << "chunk " << I;
    }
    Next = End;
  }
  EXPECT_EQ(Next, 65536u);
  // Guided at first: the first chunk is a share of the whole, not MinChunk.
  EXPECT_GT(Job.Chunks.front().second, 123u);
  EXPECT_EQ(Mine.Groups, 65536u);
  EXPECT_EQ(Job.Finished, 0) << "finished before the runner retired";
  Job.retire(Mine);
  EXPECT_EQ(Job.Finished, 1);
  EXPECT_EQ(Mine.Groups, 0u);
}

// The packet processor's own chunks start at one work-group, to measure:
// its MaxChunk wins over the job's MinChunk.
TEST(GroupJobTest, MaxChunkBoundsMinChunk) {
  RecordingJob Job(1000, 100);
  GroupJob::Ran Mine;
  ASSERT_TRUE(Job.runChunk(0, 17, 1, Mine));
  ASSERT_TRUE(Job.runChunk(0, 17, 2, Mine));
  ASSERT_EQ(Job.Chunks.size(), 2u);
  EXPECT_EQ(Job.Chunks[0], std::make_pair(uint64_t(0), uint64_t(1)));
  EXPECT_EQ(Job.Chunks[1], std::make_pair(uint64_t(1), uint64_t(3)));
  // Alone (one runner) a chunk is MaxChunk, whatever is left.
  ASSERT_TRUE(Job.runChunk(0, 1, 500, Mine));
  EXPECT_EQ(Job.Chunks[2], std::make_pair(uint64_t(3), uint64_t(503)));
  ASSERT_TRUE(Job.runChunk(0, 1, 10'000, Mine));
  EXPECT_EQ(Job.Chunks[3], std::make_pair(uint64_t(503), uint64_t(1000)));
  EXPECT_FALSE(Job.runChunk(0, 1, 10'000, Mine));
  Job.retire(Mine);
  EXPECT_EQ(Job.Finished, 1);
}

// Two runners: the job ends with the second one's retirement, not with
// its last chunk; claimed and skipped work-groups (a cancellation) count.
TEST(GroupJobTest, FinishesWhenTheLastRunnerRetires) {
  RecordingJob Job(100, 10);
  GroupJob::Ran First, Second;
  ASSERT_TRUE(Job.runChunk(0, 2, 40, First));
  ASSERT_TRUE(Job.runChunk(1, 2, 40, Second));
  const uint64_t Skipped = Job.claimRest();
  EXPECT_EQ(First.Groups + Second.Groups + Skipped, 100u);
  EXPECT_GE(First.Groups, 10u);
  EXPECT_GE(Second.Groups, 10u);
  EXPECT_FALSE(Job.runChunk(0, 2, 40, First));
  Job.retire(Skipped);
  Job.retire(First);
  EXPECT_EQ(Job.Finished, 0);
  Job.retire(Second);
  EXPECT_EQ(Job.Finished, 1);
  GroupJob::Ran Nothing;
  Job.retire(Nothing); // Nothing to retire: no second finish.
  EXPECT_EQ(Job.Finished, 1);
}

/// Marks each work-group it runs; at the finish, checks every mark.
class MarkingJob final : public GroupJob {
public:
  MarkingJob(uint64_t Total, uint64_t MinChunk)
      : GroupJob(Total, MinChunk), Marks(Total, 0) {}
  std::vector<uint8_t> Marks; // Plain memory: TSan checks the handoff.
  std::atomic<int> Finished{0};
  bool AllRanOnce = false;

protected:
  void run(uint64_t Begin, uint64_t End, unsigned) override {
    for (uint64_t G = Begin; G < End; ++G)
      ++Marks[G];
  }
  void finished() override {
    AllRanOnce = true;
    for (uint8_t M : Marks)
      AllRanOnce &= M == 1;
    Finished.fetch_add(1, std::memory_order_relaxed);
  }
};

// Eight threads share a job as the pool's workers do: every work-group
// runs once, the job finishes once, and the finishing thread sees every
// other thread's writes (its retirement is the release they acquire).
TEST(GroupJobTest, ThreadsRunEachWorkGroupOnceAndFinishOnce) {
  for (uint64_t MinChunk : {1u, 64u}) {
    MarkingJob Job(200'000, MinChunk);
    std::vector<std::thread> Threads;
    for (unsigned Slot = 0; Slot < 8; ++Slot)
      Threads.emplace_back([&Job, Slot] {
        GroupJob::Ran Mine;
        while (Job.runChunk(Slot, 8, UINT64_MAX, Mine))
          ;
        Job.retire(Mine);
      });
    for (std::thread &T : Threads)
      T.join();
    EXPECT_EQ(Job.Finished.load(), 1) << "MinChunk " << MinChunk;
    EXPECT_TRUE(Job.AllRanOnce) << "MinChunk " << MinChunk;
    EXPECT_TRUE(Job.exhausted());
  }
}

} // namespace
