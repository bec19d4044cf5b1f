//===- tests/runtime/PacketFuzzTest.cpp - Replays fuzz_packets inputs -----===//
//
// HSA Runtime 2.8, 2.9: every input of tests/runtime/fuzz_seeds (the seeds
// of fuzz_packets) and tests/runtime/fuzz_regressions (inputs that found a
// bug) through the fuzzer's own path (PacketFuzzCheck.h): random AQL packets
// over real and bogus kernel objects, signals and kernarg pointers end in a
// completion or an error through the queue's callback, each exactly once.
//
//===----------------------------------------------------------------------===//
#include "PacketFuzzCheck.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace openhsa::test {
namespace {

std::vector<std::string> inputs() {
  std::vector<std::string> Files;
  for (const char *Dir : {OPENHSA_PACKET_FUZZ_DIR "/fuzz_seeds",
                          OPENHSA_PACKET_FUZZ_DIR "/fuzz_regressions"}) {
    std::error_code EC;
    for (const auto &E : std::filesystem::directory_iterator(Dir, EC))
      if (E.path().extension() == ".bin")
        Files.push_back(E.path().string());
  }
  std::sort(Files.begin(), Files.end());
  return Files;
}

class PacketFuzz : public ::testing::TestWithParam<std::string> {};

TEST_P(PacketFuzz, EveryPacketCompletesOrFailsOnce) {
  std::ifstream F(GetParam(), std::ios::binary);
  ASSERT_TRUE(F) << GetParam();
  std::vector<uint8_t> Data((std::istreambuf_iterator<char>(F)),
                            std::istreambuf_iterator<char>());
  fuzz::PacketFuzzer Fuzzer;
  ASSERT_EQ(Fuzzer.setUp(), "");
  EXPECT_EQ(Fuzzer.run(Data.data(), Data.size()), "");
  Fuzzer.tearDown();
  // The seeds do what make_fuzz_seeds.py wrote them for, so the harness is
  // known to see completions, work-groups, handler calls and errors.
  const auto &L = Fuzzer.Last;
  const std::string Name = std::filesystem::path(GetParam()).stem().string();
  if (Name == "dispatches") {
    EXPECT_EQ(L.Consumed, 4u);
    EXPECT_EQ(L.Errors, 0);
    EXPECT_EQ(L.WorkGroups, 3u + 9u + 8u + 1u);
  } else if (Name == "barriers") {
    EXPECT_EQ(L.Consumed, 4u);
    EXPECT_EQ(L.Errors, 0);
    EXPECT_EQ(L.WorkGroups, 6u); // Two dispatches of 10 items in groups of 4.
  } else if (Name == "agent_dispatch") {
    EXPECT_EQ(L.Consumed, 2u);
    EXPECT_EQ(L.HandlerCalls, 2u);
    EXPECT_EQ(L.ErrorStatus, HSA_STATUS_ERROR_OUT_OF_RESOURCES);
  } else if (Name == "destroyed_kernel") {
    EXPECT_EQ(L.Consumed, 1u);
    EXPECT_EQ(L.WorkGroups, 3u);
    EXPECT_EQ(L.ErrorStatus, HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, PacketFuzz, ::testing::ValuesIn(inputs()),
    [](const ::testing::TestParamInfo<std::string> &I) {
      std::string Name = std::filesystem::path(I.param).stem().string();
      for (char &C : Name)
        if (!std::isalnum(static_cast<unsigned char>(C)))
          C = '_';
      std::string Dir =
          std::filesystem::path(I.param).parent_path().filename().string();
      return (Dir == "fuzz_seeds" ? "seed_" : "regression_") + Name;
    });

} // namespace
} // namespace openhsa::test
