//===- brig/asm/Literals.cpp - Numeric literal conversion -----------------===//

#include "brig/asm/Literals.h"

#include "llvm/ADT/StringExtras.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

namespace openhsa::brig::assembler {

std::optional<uint64_t> integerValue(const Token &T) {
  llvm::StringRef Digits = T.Text;
  unsigned Radix = 10;
  switch (T.IForm) {
  case IntForm::Decimal:
    break;
  case IntForm::Octal:
    Radix = 8;
    Digits = Digits.drop_front(1);
    break;
  case IntForm::Hex:
    Radix = 16;
    Digits = Digits.drop_front(2);
    break;
  }
  uint64_t V = 0;
  for (char C : Digits) {
    unsigned D = llvm::hexDigitValue(C);
    if (D >= Radix)
      return std::nullopt;
    if (V > (UINT64_MAX - D) / Radix)
      return std::nullopt;
    V = V * Radix + D;
  }
  return V;
}

uint16_t floatToHalfBits(uint32_t F) {
  uint32_t Sign = (F >> 16) & 0x8000u;
  uint32_t Exp = (F >> 23) & 0xffu;
  uint32_t Mant = F & 0x7fffffu;
  if (Exp == 0xff)
    return uint16_t(Sign | 0x7c00u | (Mant ? (0x200u | (Mant >> 13)) : 0u));
  if (Exp == 0) // zero or single-precision subnormal: far below half range
    return uint16_t(Sign);
  int32_t E = int32_t(Exp) - 127 + 15;
  if (E >= 31)
    return uint16_t(Sign | 0x7c00u);
  uint32_t M = Mant | 0x800000u;
  unsigned Shift = 13;
  if (E <= 0) {
    Shift = unsigned(14 - E);
    if (Shift > 24)
      return uint16_t(Sign);
    E = 0;
  }
  uint32_t H = M >> Shift;
  uint32_t Rem = M & ((1u << Shift) - 1);
  uint32_t Half = 1u << (Shift - 1);
  if (Rem > Half || (Rem == Half && (H & 1)))
    ++H;
  if (E == 0)
    return uint16_t(Sign | H);
  return uint16_t(Sign | ((uint32_t(E) << 10) + (H - 0x400u)));
}

std::optional<uint64_t> floatBits(const Token &T) {
  llvm::StringRef Text = T.Text;
  bool Negative = false;
  if (Text.starts_with("-") || Text.starts_with("+")) {
    Negative = Text[0] == '-';
    Text = Text.drop_front(1);
  }
  uint64_t SignBit = T.FKind == FloatKind::F16   ? 0x8000ull
                     : T.FKind == FloatKind::F32 ? 0x80000000ull
                                                 : 0x8000000000000000ull;
  uint64_t Bits = 0;
  switch (T.FForm) {
  case FloatForm::RawBits: {
    for (char C : Text.drop_front(2))
      Bits = Bits * 16 + llvm::hexDigitValue(C);
    break;
  }
  case FloatForm::Decimal:
  case FloatForm::DecimalSuffix:
  case FloatForm::C99Hex: {
    std::string S = Text.str();
    if (T.FForm == FloatForm::DecimalSuffix ||
        (T.FForm == FloatForm::C99Hex && !S.empty() &&
         llvm::StringRef("hHfFdD").contains(S.back())))
      S.pop_back();
    errno = 0;
    char *End = nullptr;
    if (T.FKind == FloatKind::F64) {
      double D = std::strtod(S.c_str(), &End);
      if (std::isinf(D))
        return std::nullopt;
      std::memcpy(&Bits, &D, sizeof D);
    } else {
      float F = std::strtof(S.c_str(), &End);
      if (std::isinf(F))
        return std::nullopt;
      uint32_t FB;
      std::memcpy(&FB, &F, sizeof F);
      Bits = T.FKind == FloatKind::F32 ? FB : floatToHalfBits(FB);
    }
    if (End == nullptr || *End != '\0')
      return std::nullopt;
    break;
  }
  }
  if (Negative)
    Bits ^= SignBit;
  return Bits;
}

} // namespace openhsa::brig::assembler
