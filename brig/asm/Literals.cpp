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
  // Same conversion as the HSA Foundation assembler: truncate to 10 mantissa
  // bits, then round up in magnitude when the first dropped bit is set (ties
  // away from zero); subnormal results are shifted one place further.
  uint32_t Sign = (F >> 16) & 0x8000u;
  if ((F & 0x7fffffffu) == 0)
    return uint16_t(Sign);
  int Exp = int((F >> 23) & 0xffu) - 127;
  uint32_t Mant = F & 0x7fffffu;
  if (Exp >= 16) {
    if (Exp == 128 && Mant != 0)
      return 0xfe00u;
    return uint16_t(Sign | 0x7c00u);
  }
  if (Exp <= -15) {
    int Shift = -15 - Exp;
    if (Shift > 10)
      return uint16_t(Sign);
    Exp = -15;
    Mant = (Mant | 0x800000u) >> (Shift + 1);
  }
  uint32_t Res = Sign | (uint32_t(Exp + 15) << 10) | (Mant >> 13);
  if (Mant & (1u << 12))
    ++Res;
  return uint16_t(Res);
}

namespace {

struct FloatFormat {
  unsigned MantBits;
  int MaxExp; // unbiased exponent of infinities
  int MinExp; // unbiased exponent of zeros/subnormals
};

constexpr FloatFormat Half{10, 16, -15};
constexpr FloatFormat Single{23, 128, -127};
constexpr FloatFormat Double{52, 1024, -1023};

/// Bits of a C99 hexadecimal float literal ("0x1.8p3", sign and suffix
/// already removed), read the way the HSA Foundation assembler reads it:
/// excess mantissa digits are truncated (no rounding) and subnormal results
/// are shifted one place less than IEEE would.
uint64_t readHexFloat(llvm::StringRef S, const FloatFormat &Fmt) {
  size_t P = 2; // "0x"
  auto At = [&](size_t I) -> char {
    return I < S.size() ? char(llvm::toLower(S[I])) : 'p';
  };
  auto BitLen = [](unsigned D) {
    return D >= 8 ? 4 : D >= 4 ? 3 : D >= 2 ? 2 : 1;
  };
  while (At(P) == '0')
    ++P;
  uint64_t Mant = 0;
  int Exp = 0;
  if (At(P) != 'p') {
    const int MaxBits = int(Fmt.MantBits) + 1;
    int BitCount = 0, ExpShift = 0;
    if (At(P) == '.') {
      ++P;
      while (At(P) == '0') {
        ExpShift -= 4;
        ++P;
      }
      if (At(P) != 'p') {
        unsigned D = llvm::hexDigitValue(At(P++));
        Mant = D;
        BitCount += BitLen(D);
        ExpShift -= 4 - BitLen(D);
      }
    } else {
      unsigned D = llvm::hexDigitValue(At(P++));
      Mant = D;
      BitCount += BitLen(D);
      ExpShift += BitLen(D);
      while (At(P) != 'p' && At(P) != '.' && BitCount < MaxBits) {
        Mant = (Mant << 4) | llvm::hexDigitValue(At(P++));
        BitCount += 4;
        ExpShift += 4;
      }
      while (At(P) != 'p' && At(P) != '.') {
        ExpShift += 4;
        ++P;
      }
      if (At(P) == '.')
        ++P;
    }
    while (At(P) != 'p' && BitCount < MaxBits) {
      Mant = (Mant << 4) | llvm::hexDigitValue(At(P++));
      BitCount += 4;
    }
    if (Mant) {
      while (At(P) != 'p')
        ++P;
      ++P;
      long long E = 0;
      llvm::StringRef ES = S.substr(P);
      if (ES.starts_with("+"))
        ES = ES.drop_front(1);
      ES.getAsInteger(10, E);
      Exp = int(E) + ExpShift - 1;
      if (BitCount > MaxBits)
        Mant >>= BitCount - MaxBits;
      else
        Mant <<= MaxBits - BitCount;
    }
  }
  if (!Mant)
    return 0;
  uint64_t MantMask = (uint64_t(1) << Fmt.MantBits) - 1;
  int Bias = Fmt.MaxExp - 1;
  if (Exp >= Fmt.MaxExp)
    return uint64_t(2 * Fmt.MaxExp - 1) << Fmt.MantBits; // infinity
  if (Exp <= Fmt.MinExp) {
    int Shift = Fmt.MinExp - Exp;
    if (Shift > int(Fmt.MantBits))
      return 0;
    Exp = Fmt.MinExp;
    Mant >>= Shift;
  }
  return (uint64_t(Exp + Bias) << Fmt.MantBits) | (Mant & MantMask);
}

} // namespace

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
  case FloatForm::C99Hex: {
    llvm::StringRef H = Text;
    if (!H.empty() && llvm::StringRef("hHfFdD").contains(H.back()))
      H = H.drop_back(1);
    Bits = readHexFloat(H, T.FKind == FloatKind::F16   ? Half
                           : T.FKind == FloatKind::F32 ? Single
                                                       : Double);
    break;
  }
  case FloatForm::Decimal:
  case FloatForm::DecimalSuffix: {
    std::string S = Text.str();
    if (T.FForm == FloatForm::DecimalSuffix)
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
