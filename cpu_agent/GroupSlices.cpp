//===- cpu_agent/GroupSlices.cpp - Work-groups cut for idle threads -------===//
#include "cpu_agent/GroupSlices.h"

namespace openhsa::cpu {

GroupSlices finestSlices(uint32_t SliceStep, const uint32_t (&Wg)[3]) {
  const uint32_t Pieces[3] = {(Wg[0] + SliceStep - 1) / SliceStep, Wg[1],
                              Wg[2]};
  GroupSlices S;
  for (uint8_t D = 1; D < 3; ++D)
    if (Pieces[D] > Pieces[S.Dim])
      S.Dim = D;
  S.Parts = S.Pieces = Pieces[S.Dim];
  S.Step = S.Dim == 0 ? SliceStep : 1;
  return S;
}

GroupSlices chooseSlices(uint32_t SliceStep, const uint32_t (&Wg)[3],
                         uint64_t Groups, unsigned Runners) {
  constexpr uint64_t GroupsPerRunner = 8, SlicesPerRunner = 16;
  if (!SliceStep || Runners < 2 || Groups == 0 ||
      Groups >= GroupsPerRunner * Runners)
    return GroupSlices{};
  GroupSlices S = finestSlices(SliceStep, Wg);
  const uint64_t Wanted =
      (SlicesPerRunner * Runners + Groups - 1) / Groups; // At least 1.
  for (uint32_t P = 2; P < S.Pieces; ++P)
    if (P >= Wanted && S.Pieces % P == 0) {
      S.Parts = P;
      break;
    }
  return S.Parts < 2 ? GroupSlices{} : S;
}

} // namespace openhsa::cpu
