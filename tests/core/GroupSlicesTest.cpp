//===- tests/core/GroupSlicesTest.cpp - How few work-groups are cut -------===//
//
// cpu_agent/GroupSlices.h: a dispatch of few work-groups of a kernel that
// allows it is cut into slices the threads share; many work-groups, or a
// kernel that runs whole groups only, are not.
//
//===----------------------------------------------------------------------===//
#include "cpu_agent/GroupSlices.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

using openhsa::abi::CpuDispatchContext;
using openhsa::cpu::chooseSlices;
using openhsa::cpu::GroupSlices;

/// The local-id ranges along S.Dim of each of S's slices.
std::vector<std::pair<uint32_t, uint32_t>> ranges(const GroupSlices &S) {
  std::vector<std::pair<uint32_t, uint32_t>> R;
  for (uint32_t Part = 0; Part < S.Parts; ++Part) {
    CpuDispatchContext C{};
    S.select(Part, C);
    for (unsigned D = 0; D < 3; ++D)
      if (D != S.Dim) {
        EXPECT_EQ(C.SliceBegin[D], 0u);
        EXPECT_EQ(C.SliceEnd[D], openhsa::abi::WholeSliceEnd);
      }
    // Along X both ends are whole steps (waves): the work-group function
    // of a group of whole waves runs no partial wave in a slice.
    EXPECT_EQ(C.SliceBegin[0] % S.Step, 0u);
    EXPECT_EQ(C.SliceEnd[0] % S.Step, 0u);
    R.push_back({C.SliceBegin[S.Dim], C.SliceEnd[S.Dim]});
  }
  return R;
}

// nbody's dispatch on 16 workers and the packet processor: 32 work-groups
// of 256 work-items in 16-lane waves. Each group is cut into its 16 waves.
TEST(GroupSlices, FewLongGroupsAreCutIntoWaves) {
  const uint32_t Wg[3] = {256, 1, 1};
  const GroupSlices S = chooseSlices(16, Wg, 32, 17);
  EXPECT_EQ(S.Dim, 0);
  EXPECT_EQ(S.Parts, 16u);
  const auto R = ranges(S);
  for (uint32_t P = 0; P < 16; ++P)
    EXPECT_EQ(R[P], std::make_pair(P * 16, P * 16 + 16)) << P;
}

// The slices cover the group once, in order, and are alike: the number of
// parts divides the pieces where one does.
TEST(GroupSlices, SlicesCoverTheGroupEvenly) {
  const uint32_t Wg[3] = {200, 1, 1}; // 13 waves, the last partial.
  const GroupSlices S = chooseSlices(16, Wg, 1, 3);
  EXPECT_EQ(S.Parts, 13u); // 13 is prime: a wave each.
  const auto R = ranges(S);
  EXPECT_EQ(R.front().first, 0u);
  EXPECT_GE(R.back().second, 200u);
  for (size_t P = 1; P < R.size(); ++P)
    EXPECT_EQ(R[P].first, R[P - 1].second);
  const uint32_t Rows[3] = {16, 12, 1}; // One wave a row: cut the rows.
  const GroupSlices T = chooseSlices(16, Rows, 4, 3);
  EXPECT_EQ(T.Dim, 1);
  EXPECT_EQ(T.Parts, 12u); // 16 * 3 / 4 = 12 wanted: a row each.
  const uint32_t Deep[3] = {64, 2, 8};
  const GroupSlices U = chooseSlices(16, Deep, 8, 2);
  EXPECT_EQ(U.Dim, 2);    // 8 planes against 4 waves and 2 rows.
  EXPECT_EQ(U.Parts, 4u); // 16 * 2 / 8 = 4 wanted, a divisor of 8.
  const auto Planes = ranges(U);
  EXPECT_EQ(Planes[1], std::make_pair(2u, 4u));
}

// Enough work-groups to go round, a kernel that runs whole groups only,
// one thread, or a group of one piece: no slices.
TEST(GroupSlices, WholeGroupsOtherwise) {
  const uint32_t Wg[3] = {256, 1, 1};
  EXPECT_EQ(chooseSlices(16, Wg, 8 * 17, 17).Parts, 1u);
  EXPECT_EQ(chooseSlices(0, Wg, 2, 17).Parts, 1u);
  EXPECT_EQ(chooseSlices(16, Wg, 2, 1).Parts, 1u);
  const uint32_t OneWave[3] = {16, 1, 1};
  EXPECT_EQ(chooseSlices(16, OneWave, 2, 17).Parts, 1u);
  EXPECT_GT(chooseSlices(16, Wg, 8 * 17 - 1, 17).Parts, 1u);
}

} // namespace
