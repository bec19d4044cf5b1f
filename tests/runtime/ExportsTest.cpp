//===- tests/runtime/ExportsTest.cpp - The library's dynamic symbols ------===//
//
// The HSA Runtime 1.2 API as a shared library: libhsa-runtime64.so exports
// exactly the functions
// of hsa.h, hsa_ext_finalize.h and hsa_ext_image.h
// (tests/abi/hsa_api_functions.txt) and nothing else: no helper, no C++
// symbol, no symbol of the libraries linked in statically (LLVM). Each
// carries the version node of ROCm's library, ROCR_1 (runtime/exports.map),
// so that binaries linked against ROCR bind to ours without warnings.
//
//===----------------------------------------------------------------------===//
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

/// Defined dynamic symbols of the library, as `nm -D --defined-only` lists
/// them, with their nm type letters.
std::multiset<std::pair<std::string, char>> definedDynamicSymbols() {
  std::multiset<std::pair<std::string, char>> Symbols;
  const std::string Command = std::string("'") + OPENHSA_TEST_NM +
                              "' -D --defined-only '" +
                              OPENHSA_TEST_RUNTIME_LIBRARY + "'";
  FILE *Pipe = popen(Command.c_str(), "r");
  if (!Pipe)
    return Symbols;
  char Line[4096];
  while (std::fgets(Line, sizeof(Line), Pipe)) {
    // "<address> <type> <name>[@<version>]"
    std::istringstream In(Line);
    std::string Address, Type, Name;
    if (!(In >> Address >> Type >> Name) || Type.size() != 1)
      continue;
    Symbols.insert({Name, Type[0]});
  }
  EXPECT_EQ(pclose(Pipe), 0) << Command;
  return Symbols;
}

std::set<std::string> apiFunctions() {
  std::ifstream In(OPENHSA_TEST_API_FUNCTIONS);
  std::set<std::string> Names;
  for (std::string Line; std::getline(In, Line);)
    if (!Line.empty() && Line[0] != '#')
      Names.insert(Line);
  return Names;
}

// HSA Runtime 1.2 API (hsa.h, hsa_ext_finalize.h, hsa_ext_image.h): the
// exported symbols are exactly the API functions, each as NAME@@ROCR_1.
TEST(Exports, ExactlyTheApiFunctions) {
  // ROCm's libhsa-runtime64.so.1 defines its API under this version node.
  const std::string Version = "ROCR_1";
  const auto Api = apiFunctions();
  ASSERT_GT(Api.size(), 100u) << "cannot read " OPENHSA_TEST_API_FUNCTIONS;
  const auto Symbols = definedDynamicSymbols();
  ASSERT_FALSE(Symbols.empty()) << "nm listed nothing";

  std::set<std::string> Exported;
  bool VersionNode = false;
  for (const auto &[Versioned, Type] : Symbols) {
    // The version definition itself: an absolute symbol named ROCR_1.
    if (Type == 'A' && Versioned.rfind(Version, 0) == 0) {
      VersionNode = true;
      continue;
    }
    const size_t At = Versioned.find("@@");
    EXPECT_NE(At, std::string::npos) << Versioned << " has no default version";
    const std::string Name = Versioned.substr(0, At);
    if (At != std::string::npos) {
      EXPECT_EQ(Versioned.substr(At + 2), Version)
          << Name << " has the wrong version";
    }
    EXPECT_EQ(Name.rfind("hsa_", 0), 0u) << "non-hsa_ symbol " << Name;
    EXPECT_TRUE(Type == 'T')
        << Name << " has type " << Type << ", not a function in .text";
    EXPECT_TRUE(Exported.insert(Name).second) << Name << " appears twice";
  }
  EXPECT_TRUE(VersionNode) << "no " << Version << " version definition";
  for (const std::string &Name : Api)
    EXPECT_TRUE(Exported.count(Name)) << Name << " is not exported";
  for (const std::string &Name : Exported)
    EXPECT_TRUE(Api.count(Name)) << Name << " is exported but not in the API";
  EXPECT_EQ(Exported.size(), Api.size());
}

} // namespace
