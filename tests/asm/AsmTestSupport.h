//===- tests/asm/AsmTestSupport.h - Helpers for assembler tests -*- C++ -*-===//
#ifndef OPENHSA_TESTS_ASM_ASMTESTSUPPORT_H
#define OPENHSA_TESTS_ASM_ASMTESTSUPPORT_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace openhsa::asmtest {

/// Sorted base names (without ".hsail") of the .hsail files in \p Dir.
std::vector<std::string> listHsailFiles(const std::string &Dir);

/// Turns a file stem into a valid GoogleTest parameter name.
std::string testNameFor(const std::string &Stem);

std::optional<std::string> readFile(const std::string &Path);
std::optional<std::vector<uint8_t>> readBinary(const std::string &Path);

/// Path of the HSAILasm oracle, or empty when it is not installed.
std::string oraclePath();

struct OracleResult {
  int ExitCode = -1;
  std::vector<uint8_t> Brig; // valid when ExitCode == 0
  std::string Log;           // stdout + stderr
};

/// Runs HSAILasm on \p HsailPath, writing into the test temp directory.
OracleResult runOracle(const std::string &HsailPath, const std::string &Tag);

/// Offset of the first differing byte, or nullopt when equal.
std::optional<size_t> firstDifference(const std::vector<uint8_t> &A,
                                      const std::vector<uint8_t> &B);

} // namespace openhsa::asmtest

#endif // OPENHSA_TESTS_ASM_ASMTESTSUPPORT_H
