//===- tests/executable/ExecTestSupport.h - Helpers of the executable tests
//===//
//
// The runtime is reached through its public C API only (hsa.h,
// hsa_ext_finalize.h); BRIG modules are built from HSAIL text with the
// assembler library (brig/asm). The fixture brings the runtime up, finds
// the CPU agent and its ISA; the helpers assemble, finalize, load and
// dispatch.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_TESTS_EXECUTABLE_EXECTESTSUPPORT_H
#define OPENHSA_TESTS_EXECUTABLE_EXECTESTSUPPORT_H

#include "hsa/hsa.h"
#include "hsa/hsa_ext_finalize.h"
#include "tests/support/ScopedEnv.h"

#include <gtest/gtest.h>

#include <array>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace openhsa::test {

/// A BRIG module in memory, 16-byte aligned as BRIG requires.
class BrigBlob {
public:
  BrigBlob() = default;
  explicit BrigBlob(const std::vector<uint8_t> &Bytes)
      : Storage((Bytes.size() + 15) / 16), Size(Bytes.size()) {
    std::memcpy(Storage.data(), Bytes.data(), Bytes.size());
  }
  hsa_ext_module_t module() const {
    return reinterpret_cast<hsa_ext_module_t>(
        const_cast<Aligned *>(Storage.data()));
  }
  uint8_t *data() { return reinterpret_cast<uint8_t *>(Storage.data()); }
  size_t size() const { return Size; }
  bool empty() const { return Size == 0; }

private:
  struct alignas(16) Aligned {
    uint8_t Bytes[16];
  };
  std::vector<Aligned> Storage;
  size_t Size = 0;
};

/// Assembles HSAIL text; an assembler error fails the test (empty blob).
BrigBlob assemble(const std::string &Text);

/// "module &<name>:1:0:$full:$large:$default;" and a newline.
std::string moduleHeader(const std::string &Name,
                         const std::string &Profile = "$full",
                         const std::string &Model = "$large",
                         const std::string &Rounding = "$default");

/// HSAIL of a module with the kernels the end-to-end tests run.
extern const char *const VectorAddHsail;

/// Recomputes the content hash of serialized code object bytes (format 02,
/// finalizer/CodeObject.cpp: the magic, the xxh3_64bits of every byte after
/// the hash, then the rest) after a test edited them.
void sealCodeObjectBytes(std::vector<uint8_t> &Bytes);

/// No control directives.
hsa_ext_control_directives_t noDirectives();

/// Runs the whole test binary again in a child process with \p Args and
/// the environment variable \p EnvName set to \p EnvValue; returns its exit
/// status (-1 when it did not exit normally).
int runChild(const std::vector<std::string> &Args, const char *EnvName,
             const std::string &EnvValue);

class ExecTest : public ::testing::Test {
public:
  void SetUp() override;
  void TearDown() override;

  /// Program (large, full, default rounding) holding the given modules.
  hsa_ext_program_t makeProgram(const std::vector<const BrigBlob *> &Modules);
  /// Finalizes HSAIL text for the CPU agent; fails the test on error.
  hsa_code_object_t finalizeText(const std::string &Text);
  /// Serializes a code object into a byte vector.
  std::vector<uint8_t> serialize(hsa_code_object_t CO);
  /// An unfrozen executable (full profile, round to nearest).
  hsa_executable_t makeExecutable();

  /// A symbol's attribute of type T.
  template <typename T>
  T symbolInfo(hsa_executable_symbol_t S, hsa_executable_symbol_info_t A) {
    T V{};
    EXPECT_EQ(hsa_executable_symbol_get_info(S, A, &V), HSA_STATUS_SUCCESS)
        << "attribute " << A;
    return V;
  }
  std::string symbolName(hsa_executable_symbol_t S);

  /// Dispatches a 1D kernel on the CPU agent and waits for it; false when
  /// the completion signal did not reach 0 in time.
  bool dispatch(hsa_executable_symbol_t Kernel, const void *Args,
                size_t ArgBytes, uint32_t Grid, uint16_t WorkGroup);
  /// The same in Dims dimensions (unused ones 1).
  bool dispatch(hsa_executable_symbol_t Kernel, const void *Args,
                size_t ArgBytes, unsigned Dims,
                const std::array<uint32_t, 3> &Grid,
                const std::array<uint16_t, 3> &WorkGroup);

  /// Writes P (but its header) into Q's next slot, then its header (a
  /// kernel dispatch, system-scope fences) with release order, and rings
  /// Q's doorbell; returns the packet's index.
  static uint64_t submit(hsa_queue_t *Q, const hsa_kernel_dispatch_packet_t &P);

  hsa_agent_t Cpu{0};
  hsa_isa_t Isa{0};
  hsa_region_t Kernarg{0};
  hsa_queue_t *Queue = nullptr;
};

} // namespace openhsa::test

#endif
