//===- tests/asm/AsmTestSupport.cpp - Helpers for assembler tests ---------===//

#include "AsmTestSupport.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>

namespace openhsa::asmtest {

std::vector<std::string> listHsailFiles(const std::string &Dir) {
  std::vector<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::StringRef P = It->path();
    if (llvm::sys::path::extension(P) == ".hsail")
      Out.push_back(llvm::sys::path::stem(P).str());
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::string testNameFor(const std::string &Stem) {
  std::string S;
  for (char C : Stem)
    S.push_back(std::isalnum(static_cast<unsigned char>(C)) ? C : '_');
  return S;
}

std::optional<std::string> readFile(const std::string &Path) {
  auto B = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false);
  if (!B)
    return std::nullopt;
  return (*B)->getBuffer().str();
}

std::optional<std::vector<uint8_t>> readBinary(const std::string &Path) {
  auto B = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false);
  if (!B)
    return std::nullopt;
  llvm::StringRef S = (*B)->getBuffer();
  return std::vector<uint8_t>(S.begin(), S.end());
}

std::string oraclePath() {
  std::string P = OPENHSA_HSAILASM;
  if (P.empty() || !llvm::sys::fs::can_execute(P))
    return {};
  return P;
}

OracleResult runOracle(const std::string &HsailPath, const std::string &Tag) {
  OracleResult R;
  std::string Exe = oraclePath();
  if (Exe.empty())
    return R;
  std::string Dir = OPENHSA_ASM_TMP_DIR;
  llvm::sys::fs::create_directories(Dir);
  std::string Out = Dir + "/" + Tag + ".oracle.brig";
  std::string Log = Dir + "/" + Tag + ".oracle.log";
  llvm::sys::fs::remove(Out);
  std::vector<llvm::StringRef> Args = {Exe, HsailPath, "-o", Out};
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, Log, Log};
  std::string ErrMsg;
  R.ExitCode = llvm::sys::ExecuteAndWait(Exe, Args, std::nullopt, Redirects,
                                         /*SecondsToWait=*/60, 0, &ErrMsg);
  if (auto L = readFile(Log))
    R.Log = *L;
  if (R.ExitCode == 0) {
    if (auto B = readBinary(Out))
      R.Brig = std::move(*B);
    else
      R.ExitCode = -1;
  }
  return R;
}

std::optional<size_t> firstDifference(const std::vector<uint8_t> &A,
                                      const std::vector<uint8_t> &B) {
  size_t N = std::min(A.size(), B.size());
  for (size_t I = 0; I < N; ++I)
    if (A[I] != B[I])
      return I;
  if (A.size() != B.size())
    return N;
  return std::nullopt;
}

} // namespace openhsa::asmtest
