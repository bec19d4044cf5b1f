//===- tests/runtime/fuzz_packets.cpp - libFuzzer entry point -------------===//
//
// Part of openhsa. Turns each input into AQL packets over real and bogus
// kernel objects, signals and kernarg pointers and submits them to a fresh
// queue (PacketFuzzCheck.h): each packet must end in a completion or in an
// error through the queue's callback, never in a crash, a hang or a lost or
// doubled completion. Built with -DOPENHSA_BUILD_FUZZERS=ON under clang; see
// tests/brig/FUZZING.md.
//
//===----------------------------------------------------------------------===//

#include "PacketFuzzCheck.h"

#include <cstdio>
#include <cstdlib>

namespace {
openhsa::test::fuzz::PacketFuzzer Fuzzer;
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  std::string Error = Fuzzer.setUp();
  if (!Error.empty()) {
    std::fprintf(stderr, "fuzz_packets: cannot set up: %s\n", Error.c_str());
    std::exit(1);
  }
  // The pools go before the runtime's own statics do: what the runtime
  // still holds at exit without hsa_shut_down is what LeakSanitizer reports.
  std::atexit([] { Fuzzer.tearDown(); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Problem = Fuzzer.run(Data, Size);
  if (!Problem.empty()) {
    std::fprintf(stderr, "fuzz_packets: %s\n", Problem.c_str());
    std::abort();
  }
  return 0;
}
