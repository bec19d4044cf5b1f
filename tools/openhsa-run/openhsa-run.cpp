//===- tools/openhsa-run/openhsa-run.cpp - Run one HSAIL kernel -----------===//
//
//   openhsa-run FILE.hsail|FILE.brig -k &kernel [--agent cpu|gpu|N|all]
//               [options] [--arg SPEC]...
//
// Finalizes the file for a kernel agent through the standard HSA API,
// dispatches the kernel --repeat times and prints the finalization time
// and the dispatch times (AgentRun.h). With --agent all it does so on every
// kernel agent in turn, with fresh buffers each time, and prints a table:
// one row per agent, its outputs compared byte for byte with the first
// agent's (the "same kernel on the CPU and the GPU" comparison). Argument
// specs:
//   u32:V s32:V u64:V s64:V f32:V f64:V    scalars
//   buf:BYTES[:fill=BYTE|:iota32|:file=PATH][:dump=PATH][:print=u32|s32|f32|f64]
//                                          a buffer; its address is passed
// dump and print show the first agent's buffers. --fixed-shape finalizes
// for the dispatch's grid and group alone (the control directives
// requireddim, requiredgridsize, requiredworkgroupsize): code without the
// paths other shapes need, which finalizes faster. OPENHSA_DUMP_IR /
// OPENHSA_DUMP_ASM (a directory, or "-" for stderr) dump the optimized LLVM
// IR and the assembly of a kernel finalized for the CPU.
//
//===----------------------------------------------------------------------===//
#include "AgentRun.h"
#include "RunOptions.h"

#include "brig/asm/Assembler.h"
#include "brig/asm/ModuleSemantics.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace openhsa::run;

namespace {

std::vector<uint8_t> readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    die("cannot read '" + Path + "'");
  return {std::istreambuf_iterator<char>(In), std::istreambuf_iterator<char>()};
}

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return V[V.size() / 2];
}

/// How Run's outputs compare with Reference's: "same", or the first
/// buffer and byte that differ.
std::string compareOutputs(const AgentRun &Run, const AgentRun &Reference,
                           const RunOptions &O) {
  for (size_t I = 0, B = 0; I < O.Args.size(); ++I) {
    if (O.Args[I].Kind != "buf")
      continue;
    const auto &Mine = Run.Buffers[B], &Theirs = Reference.Buffers[B];
    ++B;
    auto [M, T] = std::mismatch(Mine.begin(), Mine.end(), Theirs.begin());
    if (M != Mine.end())
      return "DIFFERENT: arg " + std::to_string(I) + " byte " +
             std::to_string(M - Mine.begin());
  }
  return "same";
}

/// --dump and --print of the buffers of Run.
void showBuffers(const AgentRun &Run, const RunOptions &O) {
  for (size_t I = 0, B = 0; I < O.Args.size(); ++I) {
    const ArgSpec &A = O.Args[I];
    if (A.Kind != "buf")
      continue;
    const std::vector<uint8_t> &Bytes = Run.Buffers[B++];
    if (!A.Dump.empty()) {
      std::ofstream Out(A.Dump, std::ios::binary);
      Out.write(reinterpret_cast<const char *>(Bytes.data()),
                std::streamsize(Bytes.size()));
      if (!Out)
        die("cannot write '" + A.Dump + "'");
    }
    if (A.Print.empty())
      continue;
    const size_t Elem = A.Print == "f64" ? 8 : 4;
    const size_t Count = std::min<size_t>(A.Bytes / Elem, 16);
    std::printf("arg %zu:", I);
    for (size_t J = 0; J < Count; ++J) {
      const uint8_t *P = Bytes.data() + J * Elem;
      if (A.Print == "f32") {
        float V;
        std::memcpy(&V, P, 4);
        std::printf(" %g", V);
      } else if (A.Print == "f64") {
        double V;
        std::memcpy(&V, P, 8);
        std::printf(" %g", V);
      } else if (A.Print == "s32") {
        int32_t V;
        std::memcpy(&V, P, 4);
        std::printf(" %d", V);
      } else {
        uint32_t V;
        std::memcpy(&V, P, 4);
        std::printf(" %u", V);
      }
    }
    std::printf("%s\n", A.Bytes / Elem > Count ? " ..." : "");
  }
}

} // namespace

int main(int argc, char **argv) {
  // The library is quiet unless asked (README): a tool shows why a code
  // object or a finalization was refused. OPENHSA_DEBUG=0 silences it.
  setenv("OPENHSA_DEBUG", "warning", /*overwrite=*/0);
  const RunOptions O = parseRunOptions(argc, argv);

  // BRIG from the file, assembling HSAIL text first.
  std::vector<uint8_t> Brig = readFile(O.Input);
  if (O.Input.size() > 6 && O.Input.substr(O.Input.size() - 6) == ".hsail") {
    auto Assembled = openhsa::brig::assembler::assembleHsail(llvm::StringRef(
        reinterpret_cast<const char *>(Brig.data()), Brig.size()));
    if (!Assembled) {
      std::string Msg = llvm::toString(Assembled.takeError());
      std::fprintf(stderr, "%s\n", Msg.c_str());
      return 1;
    }
    Brig = std::move(*Assembled);
  }
  // The runtime's hsa_ext_program_add_module can only say "Invalid module"
  // (and must trust the module's byteCount): check the file here first, as
  // hsa_ext_program_add_module will, and print what is wrong and where,
  // e.g. "m.brig: header+0x0: bad magic: identification is not "HSA BRIG"".
  if (auto Checked = openhsa::brig::assembler::loadCheckedModule(Brig, O.Input);
      !Checked)
    die(llvm::toString(Checked.takeError()));

  if (hsa_status_t S = hsa_init(); S != HSA_STATUS_SUCCESS) {
    const char *Text = "unknown status";
    hsa_status_string(S, &Text);
    die(std::string("hsa_init: ") + Text);
  }
  const std::vector<KernelAgent> Agents = selectAgents(kernelAgents(), O.Agent);

  int Status = 0;
  if (O.Agent != "all") {
    const KernelAgent &A = Agents.front();
    AgentRun Run = runOnAgent(A, Brig, O);
    if (!Run.Error.empty())
      die("agent " + std::to_string(A.Number) + " (" + A.Name +
          "): " + Run.Error);
    std::vector<double> Sorted = Run.DispatchSeconds;
    std::sort(Sorted.begin(), Sorted.end());
    std::printf("%s %s on agent %u (%s, %s): finalize %.2f ms; dispatch x%u: "
                "min %.3f ms, median %.3f ms, max %.3f ms\n",
                O.Input.c_str(), O.Kernel.c_str(), A.Number,
                deviceTypeName(A.Type), A.Name.c_str(),
                Run.FinalizeSeconds * 1e3, O.Repeat, Sorted.front() * 1e3,
                median(Sorted) * 1e3, Sorted.back() * 1e3);
    showBuffers(Run, O);
  } else {
    // Every kernel agent in turn; the first one that runs the kernel is
    // the reference the others' outputs are compared with.
    std::printf("%s %s, dispatch x%u:\n", O.Input.c_str(), O.Kernel.c_str(),
                O.Repeat);
    std::printf("%-5s %-4s %-28s %-24s %11s %11s %11s  %s\n", "agent", "type",
                "name", "ISA", "finalize ms", "median ms", "min ms", "outputs");
    std::vector<AgentRun> Runs;
    Runs.reserve(Agents.size()); // Reference points into it.
    const AgentRun *Reference = nullptr;
    for (const KernelAgent &A : Agents) {
      Runs.push_back(runOnAgent(A, Brig, O));
      const AgentRun &Run = Runs.back();
      std::printf("%-5u %-4s %-28.28s %-24.24s ", A.Number,
                  deviceTypeName(A.Type), A.Name.c_str(), A.Isa.c_str());
      if (!Run.Error.empty()) {
        std::printf("%s: %s\n", Run.Incompatible ? "skipped" : "FAILED",
                    Run.Error.c_str());
        Status |= !Run.Incompatible;
        continue;
      }
      std::string Outputs = "reference";
      if (Reference)
        Outputs = compareOutputs(Run, *Reference, O);
      else
        Reference = &Run;
      if (Outputs.rfind("DIFFERENT", 0) == 0)
        Status = 1;
      std::printf("%11.2f %11.3f %11.3f  %s\n", Run.FinalizeSeconds * 1e3,
                  median(Run.DispatchSeconds) * 1e3,
                  *std::min_element(Run.DispatchSeconds.begin(),
                                    Run.DispatchSeconds.end()) *
                      1e3,
                  Outputs.c_str());
    }
    if (Reference)
      showBuffers(*Reference, O);
  }
  hsa_shut_down();
  return Status;
}
