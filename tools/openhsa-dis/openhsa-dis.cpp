//===- tools/openhsa-dis/openhsa-dis.cpp - BRIG disassembler tool ---------===//
//
// Part of openhsa.
//
//   openhsa-dis IN.brig [-o OUT.hsail]
//
// Validates the BRIG module and prints it as HSAIL text (to stdout without
// -o). On a malformed module it prints the diagnostic and exits with 1.
//
//===----------------------------------------------------------------------===//

#include "brig/Disassembler.h"
#include "brig/Validator.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::opt<std::string> InputFile(cl::Positional, cl::Required,
                                      cl::desc("<input .brig>"));
static cl::opt<std::string> OutputFile("o", cl::desc("Output file"),
                                       cl::value_desc("filename"),
                                       cl::init("-"));

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::ParseCommandLineOptions(argc, argv,
                              "openhsa BRIG disassembler: BRIG -> HSAIL\n");
  StringRef Tool = "openhsa-dis";
  auto Buf =
      MemoryBuffer::getFileOrSTDIN(InputFile, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false, Align(16));
  if (!Buf) {
    WithColor::error(errs(), Tool)
        << InputFile << ": " << Buf.getError().message() << '\n';
    return 1;
  }
  StringRef Name =
      InputFile == "-" ? StringRef("<stdin>") : StringRef(InputFile);
  ArrayRef<uint8_t> Bytes(
      reinterpret_cast<const uint8_t *>((*Buf)->getBufferStart()),
      (*Buf)->getBufferSize());
  auto M = openhsa::brig::loadValidatedModule(Bytes, Name);
  if (!M) {
    handleAllErrors(M.takeError(), [&](const ErrorInfoBase &E) {
      WithColor::error(errs()) << E.message() << '\n';
    });
    return 1;
  }
  std::error_code EC;
  raw_fd_ostream OS(OutputFile, EC, sys::fs::OF_None);
  if (EC) {
    WithColor::error(errs(), Tool)
        << OutputFile << ": " << EC.message() << '\n';
    return 1;
  }
  openhsa::brig::disassemble(*M, OS);
  OS.flush();
  if (OS.has_error()) {
    WithColor::error(errs(), Tool) << OutputFile << ": write failed\n";
    OS.clear_error();
    return 1;
  }
  return 0;
}
