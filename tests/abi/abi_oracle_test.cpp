// Proves that include/hsa is ABI-identical to the standard part of the
// reference HSA headers (Debian's ROCR, /usr/include/hsa): every enumeration
// constant, type size/alignment/identity, struct member offset/size/type and
// function signature listed in abi_items.def must agree.
#include <cstring>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "abi_table.h"

namespace {

using openhsa_abi::Entry;
using openhsa_abi::Table;

std::string describe(const Entry &e) {
  std::ostringstream os;
  os << e.kind << "(" << e.name << ") = ";
  if (*e.text)
    os << "'" << e.text << "'";
  else
    os << e.value;
  return os.str();
}

TEST(AbiOracle, OursTableCoversTheItemList) {
  Table ours = ours_table();
  // 320 enum constants, 93 types x3, 116 fields x3, 178 functions, 1 macro at
  // the time of writing; the exact count is not pinned, only that the list is
  // substantial and that every row is well formed.
  EXPECT_GT(ours.size, 1000u);
  std::size_t funcs = 0;
  for (std::size_t i = 0; i < ours.size; ++i) {
    ASSERT_NE(ours.entries[i].name, nullptr);
    if (std::strcmp(ours.entries[i].kind, "func") == 0)
      ++funcs;
  }
  EXPECT_GE(funcs, 170u);
}

TEST(AbiOracle, MatchesDebianRocrHeaders) {
#if OPENHSA_ABI_HAVE_ORACLE
  Table ours = ours_table();
  Table ref = oracle_table();
  ASSERT_EQ(ours.size, ref.size) << "both tables come from abi_items.def";
  std::ostringstream mismatches;
  std::size_t count = 0;
  for (std::size_t i = 0; i < ours.size; ++i) {
    const Entry &a = ours.entries[i];
    const Entry &b = ref.entries[i];
    ASSERT_STREQ(a.kind, b.kind);
    ASSERT_STREQ(a.name, b.name);
    if (a.value != b.value || std::strcmp(a.text, b.text) != 0) {
      ++count;
      mismatches << "  ours " << describe(a) << " vs reference " << describe(b)
                 << "\n";
    }
  }
  EXPECT_EQ(count, 0u) << count << " ABI mismatch(es) against "
                       << "/usr/include/hsa:\n"
                       << mismatches.str();
  RecordProperty("abi_items_compared", static_cast<int>(ours.size));
#else
  GTEST_SKIP() << "reference headers /usr/include/hsa/hsa.h not found at "
                  "configure time (install Debian's libhsa-runtime-dev and "
                  "re-run cmake to enable the ABI oracle comparison)";
#endif
}

} // namespace
