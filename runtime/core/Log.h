//===- runtime/core/Log.h - The library's diagnostics ----------*- C++ -*-===//
//
// libhsa-runtime64 is a library: it reports failures through status codes
// and writes nothing to the program's stderr unless asked to. Every message
// goes through here; OPENHSA_DEBUG chooses how much is written:
//   unset, empty, 0, none  nothing (the default)
//   1, error               errors (a code object refused, finalization failed)
//   2, warning             and warnings (a function not available yet)
//   3, info, all           and information
// Any other value means warning. The variable is read at each message, so a
// program (or a test) may set it at any time; the tools (tools/) set it to
// warning unless it is already set.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_CORE_LOG_H
#define OPENHSA_RUNTIME_CORE_LOG_H

namespace openhsa::log {

enum class Level { None = 0, Error = 1, Warning = 2, Info = 3 };

/// The level OPENHSA_DEBUG asks for now.
Level threshold();

/// Writes "openhsa: <message>\n" to stderr when \p L is at or below the
/// threshold; one write, so messages of concurrent threads do not interleave.
[[gnu::format(printf, 2, 3)]] void write(Level L, const char *Format, ...);

} // namespace openhsa::log

#endif
