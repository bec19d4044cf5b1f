//===- runtime/api/EnumArg.h - C enum arguments as integers -----*- C++ -*-===//
//
// A C caller may pass any value of a C enum's underlying integer type (a
// typo, an attribute of an extension we do not know, garbage). In C++,
// loading an enum object whose value lies outside the enum's range is
// undefined behaviour (-fsanitize=enum traps it), so an entry point must not
// read such a parameter as its enum type before it has checked it. These
// helpers read the parameter's bytes as an integer; an entry point validates
// that integer and converts it to the enum only once it is known to be valid.
// Attributes of *_get_info stay integers all the way down (extension
// attributes such as 0xA001 lie outside the core enums' ranges).
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_API_ENUMARG_H
#define OPENHSA_RUNTIME_API_ENUMARG_H

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <type_traits>

namespace openhsa {

/// The value the caller passed for the C enum parameter \p Arg, as an
/// integer: \p Arg is read through its bytes, never as an E.
template <typename E> uint32_t enumBits(const E &Arg) {
  static_assert(std::is_enum_v<E> && sizeof(E) == sizeof(uint32_t),
                "HSA C enums are 32-bit");
  uint32_t Bits;
  std::memcpy(&Bits, &Arg, sizeof Bits);
  return Bits;
}

/// \p Arg as an E when the caller passed one of \p Allowed; std::nullopt
/// otherwise (the entry point then returns HSA_STATUS_ERROR_INVALID_ARGUMENT).
template <typename E>
std::optional<E> enumArg(const E &Arg, std::initializer_list<E> Allowed) {
  const uint32_t Bits = enumBits(Arg);
  for (E A : Allowed)
    if (uint32_t(A) == Bits)
      return A;
  return std::nullopt;
}

} // namespace openhsa

#endif
