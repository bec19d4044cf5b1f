//===- tools/openhsa-as/openhsa-as.cpp - HSAIL assembler driver -----------===//
//
// Part of openhsa.
//
//   openhsa-as IN.hsail -o OUT.brig     assemble HSAIL text into BRIG
//   openhsa-as --validate IN.brig       check a BRIG module: well formed
//                                       (brig/Validator.h), then the rules
//                                       the assembler enforces on text
//                                       (brig/asm/ModuleSemantics.h)
//
// Errors are printed clang-style ("file:line:col: error: message"; for BRIG
// "error: file: hsa_code+0x40: message") and make the tool exit non-zero.
//
//===----------------------------------------------------------------------===//

#include "brig/asm/Assembler.h"

#if __has_include("brig/Validator.h")
#include "brig/asm/ModuleSemantics.h"
#define OPENHSA_AS_HAVE_VALIDATOR 1
#endif

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace openhsa::brig::assembler;

static cl::opt<std::string> InputFile(cl::Positional,
                                      cl::desc("<input.hsail | input.brig>"),
                                      cl::Required);
static cl::opt<bool> Validate("validate",
                              cl::desc("Validate a BRIG module instead of "
                                       "assembling HSAIL text"));
static cl::opt<std::string> OutputFile("o", cl::desc("Output BRIG file"),
                                       cl::value_desc("file"));
// For tests of BRIG consumers: BRIG that breaks the semantic rules
// (brig/asm/Semantics.h) is otherwise impossible to make from text.
static cl::opt<bool> NoSemanticChecks(
    "no-semantic-checks", cl::Hidden,
    cl::desc("Assemble without the semantic rules (the output may be BRIG "
             "that --validate rejects)"));

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv, "openhsa HSAIL assembler\n");

  ErrorOr<std::unique_ptr<MemoryBuffer>> In =
      MemoryBuffer::getFileOrSTDIN(InputFile, /*IsText=*/false);
  if (!In) {
    WithColor::error(errs(), "openhsa-as")
        << InputFile << ": " << In.getError().message() << '\n';
    return 1;
  }
  StringRef Text = (*In)->getBuffer();

  if (Validate) {
#ifdef OPENHSA_AS_HAVE_VALIDATOR
    ArrayRef<uint8_t> Bytes(reinterpret_cast<const uint8_t *>(Text.data()),
                            Text.size());
    Expected<openhsa::brig::BrigModule> M = loadCheckedModule(Bytes, InputFile);
    if (!M) {
      // The message names the file, section and offset:
      // "error: m.brig: hsa_code+0x40: instruction 'add': ...".
      handleAllErrors(M.takeError(), [](const ErrorInfoBase &E) {
        WithColor::error(errs()) << E.message() << '\n';
      });
      return 1;
    }
    return 0;
#else
    WithColor::error(errs(), "openhsa-as")
        << "--validate: this build has no BRIG validator\n";
    return 1;
#endif
  }

  AssembleOptions Options;
  Options.CheckSemantics = !NoSemanticChecks;
  Expected<std::vector<uint8_t>> Brig = assembleHsail(Text, Options);
  if (!Brig) {
    errs() << renderError(Brig.takeError(), InputFile, Text);
    return 1;
  }

  std::string Out = OutputFile;
  if (Out.empty()) {
    StringRef Base = InputFile;
    if (Base.ends_with(".hsail"))
      Base = Base.drop_back(6);
    Out = (Base + ".brig").str();
  }
  std::error_code EC;
  raw_fd_ostream OS(Out, EC, sys::fs::OF_None);
  if (EC) {
    WithColor::error(errs(), "openhsa-as")
        << Out << ": " << EC.message() << '\n';
    return 1;
  }
  OS.write(reinterpret_cast<const char *>(Brig->data()), Brig->size());
  OS.close();
  if (OS.has_error()) {
    WithColor::error(errs(), "openhsa-as")
        << Out << ": " << OS.error().message() << '\n';
    OS.clear_error();
    return 1;
  }
  return 0;
}
