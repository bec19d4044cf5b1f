//===- tests/support/ScopedEnv.h - An environment variable for a scope ----===//
//
// The runtime and the finalizer read their settings (OPENHSA_*) from the
// environment; tests set them for a scope with this, shared by every test
// directory.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_TESTS_SUPPORT_SCOPEDENV_H
#define OPENHSA_TESTS_SUPPORT_SCOPEDENV_H

#include <cstdlib>
#include <optional>
#include <string>

namespace openhsa::test {

/// Sets an environment variable (unsets it for nullptr) for a scope, then
/// restores what was there.
class ScopedEnv {
public:
  ScopedEnv(const char *Name, const char *Value) : Name(Name) {
    if (const char *Old = std::getenv(Name))
      Saved = Old;
    if (Value)
      setenv(Name, Value, 1);
    else
      unsetenv(Name);
  }
  ~ScopedEnv() {
    if (Saved)
      setenv(Name, Saved->c_str(), 1);
    else
      unsetenv(Name);
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  const char *Name;
  std::optional<std::string> Saved;
};

} // namespace openhsa::test

#endif
