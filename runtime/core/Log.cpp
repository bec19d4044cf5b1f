//===- runtime/core/Log.cpp - The library's diagnostics -------------------===//
#include "runtime/core/Log.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace openhsa::log {

Level threshold() {
  const char *V = std::getenv("OPENHSA_DEBUG");
  if (!V)
    return Level::None;
  const std::string_view S(V);
  if (S.empty() || S == "0" || S == "none")
    return Level::None;
  if (S == "1" || S == "error")
    return Level::Error;
  if (S == "3" || S == "info" || S == "all")
    return Level::Info;
  return Level::Warning; // "2", "warning", or a value we do not know.
}

void write(Level L, const char *Format, ...) {
  if (L == Level::None || static_cast<int>(L) > static_cast<int>(threshold()))
    return;
  va_list Args, Again;
  va_start(Args, Format);
  va_copy(Again, Args);
  const int N = std::vsnprintf(nullptr, 0, Format, Args);
  va_end(Args);
  std::string Line = "openhsa: ";
  const size_t Prefix = Line.size();
  Line.resize(Prefix + std::max(N, 0) + 1);
  std::vsnprintf(Line.data() + Prefix, Line.size() - Prefix, Format, Again);
  va_end(Again);
  Line.back() = '\n'; // Where vsnprintf put its terminating NUL.
  std::fwrite(Line.data(), 1, Line.size(), stderr);
}

} // namespace openhsa::log
