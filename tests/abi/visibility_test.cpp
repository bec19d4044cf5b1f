// Checks that HSA_API exports API symbols from a library built with
// -fvisibility=hidden (the way libhsa-runtime64 is built).
#include <dlfcn.h>

#include <string>

#include <gtest/gtest.h>

namespace {

void expect_exports(const char *path) {
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  for (const char *name :
       {"hsa_init", "hsa_ext_program_destroy", "hsa_ext_sampler_destroy"})
    EXPECT_NE(dlsym(lib, name), nullptr) << name << " is not exported";
  EXPECT_EQ(dlsym(lib, "openhsa_visibility_probe_hidden"), nullptr)
      << "-fvisibility=hidden is not in effect for the probe";
  dlclose(lib);
}

TEST(AbiVisibility, OpenhsaBuildingRuntimeExportsAllThreeHeaders) {
  expect_exports(OPENHSA_PROBE_OPENHSA);
}

TEST(AbiVisibility, RocrExportMacrosExportAllThreeHeaders) {
  expect_exports(OPENHSA_PROBE_ROCR);
}

} // namespace
