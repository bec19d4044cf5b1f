// One row of ABI facts about the public HSA headers, as seen by one
// translation unit. The oracle TU (Debian's ROCR headers) and the "ours" TU
// (include/hsa) each build a table from the same list, abi_items.def, so the
// rows line up one to one.
#ifndef OPENHSA_TESTS_ABI_ABI_TABLE_H
#define OPENHSA_TESTS_ABI_ABI_TABLE_H

#include <cstddef>

namespace openhsa_abi {

struct Entry {
  const char *kind; // macro, enum, sizeof, alignof, type, offsetof,
                    // field_size, field_type, func
  const char *name; // item as written in abi_items.def
  long long value;  // numeric fact (0 for the textual kinds)
  const char *text; // mangled type name for type/field_type/func, else ""
};

struct Table {
  const Entry *entries;
  std::size_t size;
};

} // namespace openhsa_abi

// Table built against include/hsa (abi_ours.cpp).
openhsa_abi::Table ours_table();
// Table built against /usr/include/hsa (abi_oracle.cpp); only linked in when
// those headers exist (OPENHSA_ABI_HAVE_ORACLE).
openhsa_abi::Table oracle_table();

#endif // OPENHSA_TESTS_ABI_ABI_TABLE_H
