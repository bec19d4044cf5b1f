//===- brig/BrigFormat.cpp - BRIG format layout checks --------------------===//
//
// Part of openhsa. The layout of every BRIG structure is pinned by the
// static_asserts in BrigFormat.h; this translation unit makes sure they are
// compiled with the library even when no other source includes the header.
//
//===----------------------------------------------------------------------===//

#include "brig/BrigFormat.h"
