//===- cpu_agent/GroupSlices.cpp - Work-groups cut for idle threads -------===//
#include "cpu_agent/GroupSlices.h"

namespace openhsa::cpu {

GroupSlices chooseSlices(uint32_t SliceStep, const uint32_t (&Wg)[3],
                         uint64_t Groups, unsigned Runners) {
  constexpr uint64_t GroupsPerRunner = 8, SlicesPerRunner = 16;
  GroupSlices S;
  if (!SliceStep || Runners < 2 || Groups == 0 ||
      Groups >= GroupsPerRunner * Runners)
    return S;
  const uint32_t Pieces[3] = {(Wg[0] + SliceStep - 1) / SliceStep, Wg[1],
                              Wg[2]};
  uint8_t Dim = 0;
  for (uint8_t D = 1; D < 3; ++D)
    if (Pieces[D] > Pieces[Dim])
      Dim = D;
  const uint64_t Wanted =
      (SlicesPerRunner * Runners + Groups - 1) / Groups; // At least 1.
  uint32_t Parts = Pieces[Dim];
  for (uint32_t P = 2; P < Pieces[Dim]; ++P)
    if (P >= Wanted && Pieces[Dim] % P == 0) {
      Parts = P;
      break;
    }
  if (Parts < 2)
    return S;
  S.Parts = Parts;
  S.Dim = Dim;
  S.Pieces = Pieces[Dim];
  S.Step = Dim == 0 ? SliceStep : 1;
  return S;
}

} // namespace openhsa::cpu
