//===- tools/openhsa-run/openhsa-run.cpp - Run one HSAIL kernel -----------===//
//
//   openhsa-run FILE.hsail|FILE.brig -k &kernel [options] [--arg SPEC]...
//
// Finalizes the file for the CPU agent through the standard HSA API, lays
// the arguments out in the kernarg segment (each at its natural alignment,
// PRM 4.21), dispatches the kernel --repeat times and prints the
// finalization time and the dispatch times. Argument specs:
//   u32:V s32:V u64:V s64:V f32:V f64:V    scalars
//   buf:BYTES[:fill=BYTE|:iota32|:file=PATH][:dump=PATH][:print=u32|s32|f32|f64]
//                                          a buffer; its address is passed
// OPENHSA_DUMP_IR / OPENHSA_DUMP_ASM (a directory, or "-" for stderr) dump
// the optimized LLVM IR and the assembly of the finalized kernel.
//
//===----------------------------------------------------------------------===//
#include "brig/asm/Assembler.h"
#include "brig/asm/ModuleSemantics.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_finalize.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const std::string &Message) {
  std::fprintf(stderr, "openhsa-run: error: %s\n", Message.c_str());
  std::exit(1);
}

void check(hsa_status_t S, const char *What) {
  if (S == HSA_STATUS_SUCCESS || S == HSA_STATUS_INFO_BREAK)
    return;
  const char *Text = "unknown status";
  hsa_status_string(S, &Text);
  die(std::string(What) + ": " + Text);
}

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Arg {
  std::string Kind; // u32, s32, u64, s64, f32, f64, buf
  std::string Value;
  size_t Bytes = 0;
  std::string Fill, File, Dump, Print;
  void *Buffer = nullptr;
};

std::vector<std::string> split(const std::string &S, char Sep) {
  std::vector<std::string> Parts;
  std::stringstream In(S);
  for (std::string P; std::getline(In, P, Sep);)
    Parts.push_back(P);
  return Parts;
}

Arg parseArg(const std::string &Spec) {
  std::vector<std::string> P = split(Spec, ':');
  if (P.size() < 2)
    die("argument '" + Spec + "': expected KIND:VALUE");
  Arg A;
  A.Kind = P[0];
  if (A.Kind == "buf") {
    A.Bytes = std::strtoull(P[1].c_str(), nullptr, 0);
    if (!A.Bytes)
      die("argument '" + Spec + "': a buffer needs a size in bytes");
    for (size_t I = 2; I < P.size(); ++I) {
      auto Eq = P[I].find('=');
      std::string Key = P[I].substr(0, Eq);
      std::string Val = Eq == std::string::npos ? "" : P[I].substr(Eq + 1);
      if (Key == "fill" || Key == "iota32")
        A.Fill = Key == "iota32" ? "iota32" : Val;
      else if (Key == "file")
        A.File = Val;
      else if (Key == "dump")
        A.Dump = Val;
      else if (Key == "print")
        A.Print = Val;
      else
        die("argument '" + Spec + "': unknown buffer option '" + Key + "'");
    }
    return A;
  }
  static const char *Scalars[] = {"u32", "s32", "u64", "s64", "f32", "f64"};
  if (std::find_if(std::begin(Scalars), std::end(Scalars), [&](const char *S) {
        return A.Kind == S;
      }) == std::end(Scalars))
    die("argument '" + Spec + "': unknown kind '" + A.Kind + "'");
  A.Value = P[1];
  return A;
}

void parseDims(const std::string &S, uint32_t Out[3], uint32_t &Dims) {
  std::vector<std::string> P = split(S, ',');
  if (P.empty() || P.size() > 3)
    die("dimensions '" + S + "': expected X[,Y[,Z]]");
  Dims = std::max<uint32_t>(Dims, uint32_t(P.size()));
  for (size_t I = 0; I < P.size(); ++I) {
    Out[I] = uint32_t(std::strtoul(P[I].c_str(), nullptr, 0));
    if (!Out[I])
      die("dimensions '" + S + "': sizes must be positive");
  }
}

std::vector<uint8_t> readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    die("cannot read '" + Path + "'");
  return {std::istreambuf_iterator<char>(In), std::istreambuf_iterator<char>()};
}

// The CPU kernel agent (each node also has an agent dispatch agent).
hsa_status_t findCpu(hsa_agent_t A, void *Data) {
  hsa_device_type_t T;
  uint32_t Feature = 0;
  check(hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &T), "agent info");
  check(hsa_agent_get_info(A, HSA_AGENT_INFO_FEATURE, &Feature), "agent info");
  if (T != HSA_DEVICE_TYPE_CPU ||
      !(Feature & HSA_AGENT_FEATURE_KERNEL_DISPATCH))
    return HSA_STATUS_SUCCESS;
  *static_cast<hsa_agent_t *>(Data) = A;
  return HSA_STATUS_INFO_BREAK;
}

hsa_status_t findKernarg(hsa_region_t R, void *Data) {
  uint32_t Flags = 0;
  hsa_region_segment_t Seg;
  check(hsa_region_get_info(R, HSA_REGION_INFO_SEGMENT, &Seg), "region info");
  if (Seg != HSA_REGION_SEGMENT_GLOBAL)
    return HSA_STATUS_SUCCESS;
  check(hsa_region_get_info(R, HSA_REGION_INFO_GLOBAL_FLAGS, &Flags),
        "region info");
  if (!(Flags & HSA_REGION_GLOBAL_FLAG_KERNARG))
    return HSA_STATUS_SUCCESS;
  *static_cast<hsa_region_t *>(Data) = R;
  return HSA_STATUS_INFO_BREAK;
}

void usage() {
  std::fprintf(stderr,
               "usage: openhsa-run FILE.hsail|FILE.brig -k &KERNEL [--grid "
               "X[,Y[,Z]]] [--group X[,Y[,Z]]]\n"
               "                   [--dynamic-group BYTES] [--repeat N] [--arg "
               "SPEC]...\n"
               "  SPEC: u32:V s32:V u64:V s64:V f32:V f64:V\n"
               "        buf:BYTES[:fill=BYTE|:iota32|:file=PATH][:dump=PATH]"
               "[:print=u32|s32|f32|f64]\n");
  std::exit(2);
}

} // namespace

int main(int argc, char **argv) {
  // The library is quiet unless asked (README): a tool shows why a code
  // object or a finalization was refused. OPENHSA_DEBUG=0 silences it.
  setenv("OPENHSA_DEBUG", "warning", /*overwrite=*/0);
  std::string Input, Kernel;
  uint32_t Grid[3] = {1, 1, 1}, Group[3] = {1, 1, 1}, Dims = 1;
  uint32_t DynamicGroup = 0;
  unsigned Repeat = 1;
  std::vector<Arg> Args;
  for (int I = 1; I < argc; ++I) {
    std::string A = argv[I];
    auto Next = [&]() -> std::string {
      if (I + 1 >= argc)
        usage();
      return argv[++I];
    };
    if (A == "-k" || A == "--kernel")
      Kernel = Next();
    else if (A == "--grid")
      parseDims(Next(), Grid, Dims);
    else if (A == "--group")
      parseDims(Next(), Group, Dims);
    else if (A == "--dynamic-group")
      DynamicGroup = uint32_t(std::strtoul(Next().c_str(), nullptr, 0));
    else if (A == "--repeat")
      Repeat = std::max(1u, unsigned(std::strtoul(Next().c_str(), nullptr, 0)));
    else if (A == "--arg")
      Args.push_back(parseArg(Next()));
    else if (A == "-h" || A == "--help")
      usage();
    else if (Input.empty() && A[0] != '-')
      Input = A;
    else
      usage();
  }
  if (Input.empty() || Kernel.empty())
    usage();

  // BRIG from the file, assembling HSAIL text first.
  std::vector<uint8_t> Brig = readFile(Input);
  if (Input.size() > 6 && Input.substr(Input.size() - 6) == ".hsail") {
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
  if (auto Checked = openhsa::brig::assembler::loadCheckedModule(Brig, Input);
      !Checked)
    die(llvm::toString(Checked.takeError()));

  check(hsa_init(), "hsa_init");
  hsa_agent_t Agent{0};
  if (hsa_iterate_agents(findCpu, &Agent) != HSA_STATUS_INFO_BREAK)
    die("no CPU agent");
  hsa_region_t KernargRegion{0};
  hsa_agent_iterate_regions(Agent, findKernarg, &KernargRegion);
  if (!KernargRegion.handle)
    die("the CPU agent has no kernarg region");

  const double T0 = now();
  hsa_ext_program_t Program;
  check(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, HSA_PROFILE_FULL,
                               HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr,
                               &Program),
        "hsa_ext_program_create");
  const hsa_status_t Added = hsa_ext_program_add_module(
      Program, reinterpret_cast<hsa_ext_module_t>(Brig.data()));
  if (Added == hsa_status_t(HSA_EXT_STATUS_ERROR_INCOMPATIBLE_MODULE))
    die("hsa_ext_program_add_module: " + Input +
        ": the module's machine model and profile must be $large and $full "
        "(the program openhsa-run creates)");
  check(Added, "hsa_ext_program_add_module");
  hsa_isa_t Isa;
  check(hsa_agent_get_info(Agent, HSA_AGENT_INFO_ISA, &Isa), "agent ISA");
  hsa_ext_control_directives_t Directives;
  std::memset(&Directives, 0, sizeof(Directives));
  hsa_code_object_t Code;
  check(hsa_ext_program_finalize(Program, Isa, 0, Directives, nullptr,
                                 HSA_CODE_OBJECT_TYPE_PROGRAM, &Code),
        "hsa_ext_program_finalize");
  hsa_executable_t Exec;
  check(hsa_executable_create(HSA_PROFILE_FULL, HSA_EXECUTABLE_STATE_UNFROZEN,
                              nullptr, &Exec),
        "hsa_executable_create");
  check(hsa_executable_load_code_object(Exec, Agent, Code, nullptr),
        "hsa_executable_load_code_object");
  check(hsa_executable_freeze(Exec, nullptr), "hsa_executable_freeze");
  const double Finalize = now() - T0;

  hsa_executable_symbol_t Symbol;
  check(
      hsa_executable_get_symbol_by_name(Exec, Kernel.c_str(), &Agent, &Symbol),
      ("kernel '" + Kernel + "'").c_str());
  uint64_t Object;
  uint32_t KernargSize, GroupSize, PrivateSize;
  check(hsa_executable_symbol_get_info(
            Symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &Object),
        "kernel object");
  check(hsa_executable_symbol_get_info(
            Symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
            &KernargSize),
        "kernarg size");
  check(hsa_executable_symbol_get_info(
            Symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
            &GroupSize),
        "group size");
  check(hsa_executable_symbol_get_info(
            Symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
            &PrivateSize),
        "private size");

  // Kernarg segment: arguments in order, each naturally aligned.
  std::vector<uint8_t> Kernarg;
  auto Place = [&](const void *Data, size_t Size) {
    size_t Off = (Kernarg.size() + Size - 1) / Size * Size;
    Kernarg.resize(Off + Size);
    std::memcpy(Kernarg.data() + Off, Data, Size);
  };
  for (Arg &A : Args) {
    if (A.Kind == "buf") {
      check(hsa_memory_allocate(KernargRegion, A.Bytes, &A.Buffer), "buffer");
      auto *B = static_cast<uint8_t *>(A.Buffer);
      if (A.Fill == "iota32") {
        for (size_t I = 0; I + 4 <= A.Bytes; I += 4) {
          uint32_t V = uint32_t(I / 4);
          std::memcpy(B + I, &V, 4);
        }
      } else {
        std::memset(
            B,
            A.Fill.empty() ? 0 : int(std::strtoul(A.Fill.c_str(), nullptr, 0)),
            A.Bytes);
      }
      if (!A.File.empty()) {
        std::vector<uint8_t> Data = readFile(A.File);
        std::memcpy(B, Data.data(), std::min(Data.size(), A.Bytes));
      }
      uint64_t Address = reinterpret_cast<uintptr_t>(A.Buffer);
      Place(&Address, 8);
    } else if (A.Kind == "u32" || A.Kind == "s32") {
      uint32_t V = uint32_t(std::strtoll(A.Value.c_str(), nullptr, 0));
      Place(&V, 4);
    } else if (A.Kind == "u64" || A.Kind == "s64") {
      uint64_t V = A.Kind == "u64"
                       ? std::strtoull(A.Value.c_str(), nullptr, 0)
                       : uint64_t(std::strtoll(A.Value.c_str(), nullptr, 0));
      Place(&V, 8);
    } else if (A.Kind == "f32") {
      float V = std::strtof(A.Value.c_str(), nullptr);
      Place(&V, 4);
    } else {
      double V = std::strtod(A.Value.c_str(), nullptr);
      Place(&V, 8);
    }
  }
  uint32_t KernargAlign = 16;
  check(hsa_executable_symbol_get_info(
            Symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT,
            &KernargAlign),
        "kernarg alignment");
  // The segment's size may include padding up to its alignment.
  const size_t Padded =
      (Kernarg.size() + KernargAlign - 1) / KernargAlign * KernargAlign;
  if (Kernarg.size() > KernargSize || Padded < KernargSize)
    die("the arguments take " + std::to_string(Kernarg.size()) +
        " bytes of kernarg segment; kernel '" + Kernel + "' expects " +
        std::to_string(KernargSize));
  void *KernargMemory;
  check(hsa_memory_allocate(KernargRegion, std::max<size_t>(KernargSize, 16),
                            &KernargMemory),
        "kernarg");
  std::memset(KernargMemory, 0, std::max<size_t>(KernargSize, 16));
  std::memcpy(KernargMemory, Kernarg.data(), Kernarg.size());

  hsa_queue_t *Queue;
  check(hsa_queue_create(Agent, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr,
                         UINT32_MAX, UINT32_MAX, &Queue),
        "queue");
  hsa_signal_t Done;
  check(hsa_signal_create(1, 0, nullptr, &Done), "signal");
  std::vector<double> Times;
  for (unsigned R = 0; R < Repeat; ++R) {
    hsa_signal_store_relaxed(Done, 1);
    const uint64_t Index = hsa_queue_add_write_index_relaxed(Queue, 1);
    auto *P = static_cast<hsa_kernel_dispatch_packet_t *>(Queue->base_address) +
              (Index & (Queue->size - 1));
    std::memset(reinterpret_cast<char *>(P) + 4, 0, sizeof(*P) - 4);
    P->workgroup_size_x = uint16_t(Group[0]);
    P->workgroup_size_y = uint16_t(Group[1]);
    P->workgroup_size_z = uint16_t(Group[2]);
    P->grid_size_x = Grid[0];
    P->grid_size_y = Grid[1];
    P->grid_size_z = Grid[2];
    P->kernel_object = Object;
    P->kernarg_address = KernargMemory;
    P->group_segment_size = GroupSize + DynamicGroup;
    P->private_segment_size = PrivateSize;
    P->completion_signal = Done;
    const uint16_t Header =
        (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    const uint16_t Setup =
        uint16_t(Dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
    const double Start = now();
    __atomic_store_n(reinterpret_cast<uint32_t *>(P),
                     Header | (uint32_t(Setup) << 16), __ATOMIC_RELEASE);
    hsa_signal_store_screlease(Queue->doorbell_signal,
                               hsa_signal_value_t(Index));
    while (hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                     UINT64_MAX, HSA_WAIT_STATE_ACTIVE) != 0)
      ;
    Times.push_back(now() - Start);
  }
  std::vector<double> Sorted = Times;
  std::sort(Sorted.begin(), Sorted.end());
  std::printf("%s %s: finalize %.2f ms; dispatch x%u: min %.3f ms, median %.3f "
              "ms, max %.3f ms\n",
              Input.c_str(), Kernel.c_str(), Finalize * 1e3, Repeat,
              Sorted.front() * 1e3, Sorted[Sorted.size() / 2] * 1e3,
              Sorted.back() * 1e3);

  for (size_t I = 0; I < Args.size(); ++I) {
    const Arg &A = Args[I];
    if (A.Kind != "buf")
      continue;
    if (!A.Dump.empty()) {
      std::ofstream Out(A.Dump, std::ios::binary);
      Out.write(static_cast<const char *>(A.Buffer), std::streamsize(A.Bytes));
      if (!Out)
        die("cannot write '" + A.Dump + "'");
    }
    if (!A.Print.empty()) {
      const size_t Elem = A.Print == "f64" ? 8 : 4;
      const size_t Count = std::min<size_t>(A.Bytes / Elem, 16);
      std::printf("arg %zu:", I);
      for (size_t J = 0; J < Count; ++J) {
        const char *P = static_cast<const char *>(A.Buffer) + J * Elem;
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
    hsa_memory_free(A.Buffer);
  }
  hsa_memory_free(KernargMemory);
  hsa_signal_destroy(Done);
  hsa_queue_destroy(Queue);
  hsa_executable_destroy(Exec);
  hsa_code_object_destroy(Code);
  hsa_ext_program_destroy(Program);
  hsa_shut_down();
  return 0;
}
