//===- tests/finalizer/KernelRunner.h - Run finalized kernels directly -*- C++
//-*-===//
//
// Test harness below the C API: HSAIL text -> assembler -> finalizer ->
// JIT loader, then every work-group of a grid run in order on this thread
// with a dispatch context built here, as the CPU agent would build it.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_TESTS_FINALIZER_KERNELRUNNER_H
#define OPENHSA_TESTS_FINALIZER_KERNELRUNNER_H

#include "abi/CpuDispatchContext.h"
#include "abi/CpuWavefront.h"
#include "brig/BrigModule.h"
#include "brig/Validator.h"
#include "brig/asm/Assembler.h"
#include "cpu_agent/CallsJitCode.h"
#include "cpu_agent/GroupSlices.h"
#include "finalizer/Finalizer.h"
#include "finalizer/JitLoader.h"
#include "finalizer/WorkItemVectorizer.h"
#include "hsa/hsa_ext_openhsa.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

// openhsa_finalizer_all, built to run the tests on another machine, can
// also run them on a GPU agent (GpuRunner.h, OPENHSA_TEST_AGENT=gpu).
#ifdef OPENHSA_TEST_GPU_AGENT
#include "GpuRunner.h"
#endif

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace openhsa::test {

/// The kernel tests run on a GPU agent (OPENHSA_TEST_AGENT=gpu,
/// GpuRunner.h); tests of host-only behaviour skip themselves then.
inline bool runsOnGpu() {
#ifdef OPENHSA_TEST_GPU_AGENT
  return gpu::enabled();
#else
  return false;
#endif
}

/// WAVESIZE of a program finalized with the default width: 32 on a GPU
/// agent; on the CPU agent its SIMD lanes (abi/CpuWavefront.h), 1 with
/// OPENHSA_VECTORIZE=0.
inline unsigned defaultWavefrontSize() {
  return runsOnGpu() ? 32 : abi::cpuWavefrontSize();
}

struct FinalizedProgram {
  std::vector<uint8_t> Brig;
  finalizer::CodeObject Code;
  std::unique_ptr<finalizer::LoadedObject> Loaded; // Host code.
#ifdef OPENHSA_TEST_GPU_AGENT
  std::shared_ptr<gpu::Loaded> Gpu; // Or the GPU agent's.
#endif

  const finalizer::KernelSymbol *kernel(const std::string &Name) const {
    for (const auto &K : Code.Kernels)
      if (K.Name == Name)
        return &K;
    return nullptr;
  }
};

/// The code handle icall takes for indirect function F of P (PRM 10.8):
/// its host address, or on a GPU agent its device function's.
inline llvm::Expected<uint64_t>
indirectHandle(const FinalizedProgram &P,
               const finalizer::IndirectFunctionSymbol &F) {
#ifdef OPENHSA_TEST_GPU_AGENT
  if (P.Gpu) {
    if (uint64_t H = gpu::indirectHandle(*P.Gpu, F.Name))
      return H;
    return llvm::createStringError("no indirect function " + F.Name);
  }
#endif
  auto Address = P.Loaded->address(F.ObjectSymbol);
  if (!Address)
    return Address.takeError();
  return uint64_t(reinterpret_cast<uintptr_t>(*Address));
}

/// Assembles, validates, finalizes and loads Source; the error text on
/// failure. VectorWidth: work-items at once (finalizer::FinalizeRequest;
/// 0: the host's, or scalar with OPENHSA_VECTORIZE=0). Directives: those
/// given to the finalizer (hsa_ext_program_finalize's).
inline llvm::Expected<FinalizedProgram>
finalizeText(const std::string &Source, unsigned VectorWidth = 0,
             const finalizer::ControlDirectives &Directives = {},
             bool DeferShapeVariantCode = false) {
  FinalizedProgram P;
  auto Brig = brig::assembler::assembleHsail(Source);
  if (!Brig)
    return Brig.takeError();
  P.Brig = std::move(*Brig);
  auto M = brig::loadValidatedModule(P.Brig, "test.brig");
  if (!M)
    return M.takeError();
  finalizer::FinalizeRequest R;
  R.Modules.push_back(std::move(*M));
  R.VectorWidth = VectorWidth;
  R.Directives = Directives;
  R.DeferShapeVariantCode = DeferShapeVariantCode;
#ifdef OPENHSA_TEST_GPU_AGENT
  if (gpu::enabled()) {
    if (!gpu::session())
      return llvm::createStringError("OPENHSA_TEST_AGENT=gpu: no GPU agent");
    R.IsaName = gpu::session()->IsaName;
  }
#endif
  auto CO = finalizer::finalize(R);
  if (!CO)
    return CO.takeError();
  P.Code = std::move(*CO);
#ifdef OPENHSA_TEST_GPU_AGENT
  if (gpu::enabled()) {
    auto G = gpu::load(P.Code);
    if (!G)
      return G.takeError();
    P.Gpu = std::move(*G);
    return P;
  }
#endif
  auto L = finalizer::LoadedObject::load(P.Code, {});
  if (!L)
    return L.takeError();
  P.Loaded = std::move(*L);
  return P;
}

/// Source finalized at the host's vector width and at 1 (scalar work-item
/// loops), each checked to have vectorized (or not) as asked: the same
/// kernel both ways, for results that must agree. Empty, and a failure,
/// if either finalization fails or lacks Kernel.
inline std::vector<FinalizedProgram> bothWays(const std::string &Source,
                                              const std::string &Kernel) {
  std::vector<FinalizedProgram> R;
  for (unsigned Width : {finalizer::hostVectorWidth(), 1u}) {
    auto P = finalizeText(Source, Width);
    if (!P) {
      ADD_FAILURE() << llvm::toString(P.takeError());
      return {};
    }
    const auto *K = P->kernel(Kernel);
    if (!K) {
      ADD_FAILURE() << "no kernel " << Kernel;
      return {};
    }
    // The work-item vectorizer is the CPU's: on a GPU the lanes are threads.
    if (!runsOnGpu()) {
      EXPECT_EQ(K->VectorWidth, Width) << K->ScalarReason;
    }
    R.push_back(std::move(*P));
  }
  return R;
}

/// Expects Kernel of P, finalized at the default width, to run vectorized
/// on the CPU agent unless OPENHSA_VECTORIZE=0: for tests of per-lane
/// behaviour that a silent fall back to scalar work-item loops would pass.
inline void expectVectorized(const FinalizedProgram &P,
                             const std::string &Kernel) {
  if (runsOnGpu() || !finalizer::vectorizationEnabled())
    return;
  const auto *K = P.kernel(Kernel);
  ASSERT_NE(K, nullptr) << "no kernel " << Kernel;
  EXPECT_GT(K->VectorWidth, 1u) << K->ScalarReason;
}

/// Source finalized W wide with Directives, with the dump variable Var
/// (OPENHSA_DUMP_IR, OPENHSA_DUMP_ASM) set to a fresh directory: the files
/// written there, by path, read before the directory goes; Finalized
/// false, and a failure, if finalizing fails.
struct DumpedFiles {
  bool Finalized = false;
  std::vector<std::pair<std::string, std::string>> Files;
};
inline DumpedFiles
dumpedFiles(const char *Var, const char *Source, unsigned W,
            const finalizer::ControlDirectives &Directives = {}) {
  DumpedFiles Result;
  llvm::SmallString<64> Dir;
  if (llvm::sys::fs::createUniqueDirectory("openhsa-dump", Dir)) {
    ADD_FAILURE() << "no directory for " << Var;
    return Result;
  }
  setenv(Var, Dir.c_str(), 1);
  auto Dumped = finalizeText(Source, W, Directives);
  unsetenv(Var);
  Result.Finalized = bool(Dumped);
  if (!Dumped)
    ADD_FAILURE() << llvm::toString(Dumped.takeError());
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    const std::string Path = It->path();
    if (auto Buf = llvm::MemoryBuffer::getFile(Path))
      Result.Files.emplace_back(Path, (*Buf)->getBuffer().str());
    llvm::sys::fs::remove(Path);
  }
  llvm::sys::fs::remove(Dir);
  return Result;
}

/// The assembly of Source finalized W wide (0: the default) with
/// Directives, as OPENHSA_DUMP_ASM writes it; empty, and a failure, if
/// finalizing fails.
inline std::string
dumpedAssembly(const char *Source, unsigned W = 0,
               const finalizer::ControlDirectives &Directives = {}) {
  std::string Asm;
  for (const auto &[Path, Text] :
       dumpedFiles("OPENHSA_DUMP_ASM", Source, W, Directives).Files)
    if (llvm::StringRef(Path).ends_with(".s"))
      Asm += Text;
  return Asm;
}

/// What OPENHSA_DUMP_IR writes for Source finalized W wide with
/// Directives: the IR as the optimization pipeline left it (<module>.ll)
/// and the finalizer's report on its kernels (<module>.vectorize.txt);
/// both empty, and a failure, if finalizing fails.
struct DumpedFinalization {
  std::string Ir, Report;
  std::string Lowered; // The IR as built, before LLVM's pipeline.
};
inline DumpedFinalization
dumpFinalization(const char *Source, unsigned W,
                 const finalizer::ControlDirectives &Directives = {}) {
  DumpedFinalization Result;
  const DumpedFiles D = dumpedFiles("OPENHSA_DUMP_IR", Source, W, Directives);
  for (const auto &[Name, Text] : D.Files) {
    const llvm::StringRef Path = Name;
    if (Path.ends_with(".lowered.ll"))
      Result.Lowered += Text;
    else if (Path.ends_with(".ll"))
      Result.Ir += Text;
    else if (Path.ends_with(".vectorize.txt"))
      Result.Report += Text;
  }
  if (D.Finalized && Result.Ir.empty())
    ADD_FAILURE() << "no optimized IR dumped";
  return Result;
}

/// The IR of Source finalized W wide, as the optimization pipeline left it.
inline std::string optimizedIr(const char *Source, unsigned W) {
  return dumpFinalization(Source, W).Ir;
}

#ifdef OPENHSA_BENCH_KERNELS_DIR
/// The HSAIL text of benchmarks/kernels/Name; empty, and a failure, if it
/// cannot be read.
inline std::string benchmarkKernel(const char *Name) {
  auto Buf = llvm::MemoryBuffer::getFile(
      std::string(OPENHSA_BENCH_KERNELS_DIR) + "/" + Name);
  if (!Buf) {
    ADD_FAILURE() << "cannot read " << Name;
    return "";
  }
  return (*Buf)->getBuffer().str();
}
#endif

/// Like finalizeText, for a program of several modules (each its own
/// text); P.Brig holds the first module.
inline llvm::Expected<FinalizedProgram>
finalizeTexts(const std::vector<std::string> &Sources) {
  FinalizedProgram P;
  std::vector<std::vector<uint8_t>> Brigs;
  finalizer::FinalizeRequest R;
  for (size_t I = 0; I < Sources.size(); ++I) {
    auto Brig = brig::assembler::assembleHsail(Sources[I]);
    if (!Brig)
      return Brig.takeError();
    Brigs.push_back(std::move(*Brig));
  }
  for (size_t I = 0; I < Brigs.size(); ++I) {
    auto M = brig::loadValidatedModule(Brigs[I],
                                       "test" + std::to_string(I) + ".brig");
    if (!M)
      return M.takeError();
    R.Modules.push_back(std::move(*M));
  }
#ifdef OPENHSA_TEST_GPU_AGENT
  if (gpu::enabled()) {
    if (!gpu::session())
      return llvm::createStringError("OPENHSA_TEST_AGENT=gpu: no GPU agent");
    R.IsaName = gpu::session()->IsaName;
  }
#endif
  auto CO = finalizer::finalize(R);
  if (!CO)
    return CO.takeError();
  P.Brig = std::move(Brigs.front());
  P.Code = std::move(*CO);
#ifdef OPENHSA_TEST_GPU_AGENT
  if (gpu::enabled()) {
    auto G = gpu::load(P.Code);
    if (!G)
      return G.takeError();
    P.Gpu = std::move(*G);
    return P;
  }
#endif
  auto L = finalizer::LoadedObject::load(P.Code, {});
  if (!L)
    return L.takeError();
  P.Loaded = std::move(*L);
  return P;
}

/// The T stored (maybe unaligned) at byte Off of a kernel's output.
template <typename T> T loadAt(const uint8_t *Bytes, size_t Off) {
  T V;
  std::memcpy(&V, Bytes + Off, sizeof(T));
  return V;
}

struct Grid {
  uint32_t Size[3] = {1, 1, 1};
  uint32_t WorkGroup[3] = {1, 1, 1};
  uint32_t Dims = 1;
  uint32_t DynamicGroupBytes = 0;
};

/// Runs work-group (X, Y, Z) of kernel K through its work-group function
/// Fn. Where K may run in slices (KernelSymbol::SliceStep) and Sliced
/// holds, the group runs as the CPU agent runs the groups of a small
/// dispatch (cpu_agent/GroupSlices.h), cut as finely as it can be: one
/// slice per wave (or work-item) along the dimension with the most, one
/// after the other; the kernel's results must not change.
OPENHSA_CALLS_JIT_CODE
inline void runWorkGroup(hsa_ext_openhsa_workgroup_fn_t Fn,
                         const finalizer::KernelSymbol &K, const void *Kernarg,
                         abi::CpuDispatchContext &C, uint32_t X, uint32_t Y,
                         uint32_t Z, bool Sliced) {
  C.wholeGroup();
  if (!K.SliceStep || !Sliced)
    return Fn(Kernarg, &C.Public, X, Y, Z);
  const cpu::GroupSlices S =
      cpu::finestSlices(K.SliceStep, C.Public.workgroup_size);
  for (uint32_t Part = 0; Part < S.Parts; ++Part) {
    S.select(Part, C);
    Fn(Kernarg, &C.Public, X, Y, Z);
  }
}

/// Runs work-groups X to X + Run - 1 (along X, Run > 1, each whole along
/// X) of a kernel that runs runs of groups (KernelSymbol::GroupRuns) in one
/// call, row by row.
OPENHSA_CALLS_JIT_CODE
inline void runWorkGroupRun(hsa_ext_openhsa_workgroup_fn_t Fn,
                            const void *Kernarg, abi::CpuDispatchContext &C,
                            uint32_t X, uint32_t Y, uint32_t Z, uint32_t Run) {
  C.wholeGroup();
  C.RunGroups = Run;
  Fn(Kernarg, &C.Public, X, Y, Z);
}

/// Runs every work-group of G, in order, on this thread, in the ways the
/// CPU agent may run them (cpu_agent/GroupSlices.h,
/// abi/CpuDispatchContext.h): where the kernel and the groups allow, every
/// third in a run of up to three groups along X, else the even ones
/// (flattened) in slices (runWorkGroup) and the odd ones whole.
OPENHSA_CALLS_JIT_CODE
inline void runKernel(const FinalizedProgram &P, const std::string &Name,
                      const Grid &G, const void *Kernarg) {
  const finalizer::KernelSymbol *K = P.kernel(Name);
  ASSERT_NE(K, nullptr) << "no kernel " << Name;
#ifdef OPENHSA_TEST_GPU_AGENT
  if (P.Gpu)
    return gpu::dispatch(*P.Gpu, *K, G.Size, G.WorkGroup, G.Dims,
                         K->GroupSegmentSize + G.DynamicGroupBytes, Kernarg,
                         K->KernargSegmentSize);
#endif
  auto Entry = P.Loaded->address(K->EntrySymbol);
  ASSERT_TRUE(bool(Entry)) << llvm::toString(Entry.takeError());
  auto Fn = reinterpret_cast<hsa_ext_openhsa_workgroup_fn_t>(*Entry);

  hsa_kernel_dispatch_packet_t Packet{};
  abi::CpuDispatchContext Cdc{};
  hsa_ext_openhsa_dispatch_context_t &C = Cdc.Public;
  C.packet = &Packet;
  C.dimensions = G.Dims;
  uint64_t WgItems = 1;
  for (unsigned D = 0; D < 3; ++D) {
    C.grid_size[D] = G.Size[D];
    C.workgroup_size[D] = G.WorkGroup[D];
    C.grid_groups[D] = (G.Size[D] + G.WorkGroup[D] - 1) / G.WorkGroup[D];
    WgItems *= G.WorkGroup[D];
  }
  C.group_segment_size = K->GroupSegmentSize + G.DynamicGroupBytes;
  C.private_segment_size = K->PrivateSegmentSize;
  std::vector<uint8_t> Group(C.group_segment_size + 64);
  std::vector<uint8_t> Private(size_t(C.private_segment_size) * WgItems + 64);
  C.group_base = Group.data();
  C.private_base = Private.data();
  uint64_t Flat = 0;
  const uint32_t WholeX = G.Size[0] / G.WorkGroup[0]; // Whole along X.
  for (uint32_t Z = 0; Z < C.grid_groups[2]; ++Z)
    for (uint32_t Y = 0; Y < C.grid_groups[1]; ++Y)
      for (uint32_t X = 0; X < C.grid_groups[0];) {
        if (K->GroupRuns && Flat % 3 == 2 && X + 1 < WholeX) {
          const uint32_t Run = std::min(3u, WholeX - X);
          runWorkGroupRun(Fn, Kernarg, Cdc, X, Y, Z, Run);
          X += Run;
          Flat += Run;
          continue;
        }
        runWorkGroup(Fn, *K, Kernarg, Cdc, X, Y, Z, Flat++ % 2 == 0);
        ++X;
      }
}

/// A kernel around a few instructions, run once per element of arrays:
/// register <class>I is loaded from element i of input array I (classes
/// 'c' (a u32 0 or 1 in memory), 's', 'd', 'q'), Body runs, and register
/// <Out>4 is stored to element i of the output array. Body may use
/// registers 0-7 of each class.
struct ElementwiseKernel {
  std::string Header = "module &m:1:0:$full:$large:$default;";
  std::string Body;
  std::string In; // One class per input (at most 4).
  char Out = 's';
};

inline unsigned elementwiseBytes(char Class) {
  return Class == 'd' ? 8 : Class == 'q' ? 16 : 4;
}

/// The ld/st type moving one element of a register class: ld and st take
/// no b32/b64 (PRM Tables 6-1, 6-2), so u32/u64, and b128 for q registers.
inline std::string elementwiseMemoryType(char Class) {
  return Class == 'q' ? std::string("b128")
                      : "u" + std::to_string(elementwiseBytes(Class) * 8);
}

inline std::string elementwiseSource(const ElementwiseKernel &K) {
  std::string S = K.Header + "\nkernel &elementwise(kernarg_u64 %in0, "
                             "kernarg_u64 %in1, kernarg_u64 %in2, "
                             "kernarg_u64 %in3, kernarg_u64 %out)\n{\n"
                             "\tworkitemabsid_u32 $s8, 0;\n"
                             "\tcvt_u64_u32 $d8, $s8;\n";
  auto Address = [&](const std::string &Arg, char Class) {
    S += "\tmul_u64 $d9, $d8, " + std::to_string(elementwiseBytes(Class)) +
         ";\n\tld_kernarg_align(8)_width(all)_u64 $d10, [%" + Arg +
         "];\n\tadd_u64 $d10, $d10, $d9;\n";
  };
  for (size_t I = 0; I < K.In.size(); ++I) {
    const char C = K.In[I];
    const std::string N = std::to_string(I);
    Address("in" + N, C);
    if (C == 'c')
      S += "\tld_global_u32 $s9, [$d10];\n\tcmp_ne_b1_u32 $c" + N +
           ", $s9, 0;\n";
    else
      S += "\tld_global_" + elementwiseMemoryType(C) + " $" + C + N +
           ", [$d10];\n";
  }
  S += K.Body + "\n";
  Address("out", K.Out);
  if (K.Out == 'c')
    S += "\tcvt_u32_b1 $s9, $c4;\n\tst_global_u32 $s9, [$d10];\n";
  else
    S += "\tst_global_" + elementwiseMemoryType(K.Out) + " $" + K.Out +
         "4, [$d10];\n";
  return S + "\tret;\n};\n";
}

/// Runs K over the elements of Inputs (as many as K.In, each of the size of
/// its class), returning the output elements (R of the output's size).
template <typename R, typename... A>
llvm::Expected<std::vector<R>> runElementwise(const ElementwiseKernel &K,
                                              const std::vector<A> &...Inputs) {
  static_assert(sizeof...(A) <= 4, "at most four inputs");
  const void *Ptrs[4] = {nullptr, nullptr, nullptr, nullptr};
  size_t Sizes[] = {Inputs.size()..., 0};
  size_t Elem[] = {sizeof(A)..., 0};
  const void *Datas[] = {static_cast<const void *>(Inputs.data())..., nullptr};
  const size_t N = sizeof...(A) ? Sizes[0] : 1;
  if (K.In.size() != sizeof...(A))
    return llvm::createStringError("elementwise: input count mismatch");
  for (size_t I = 0; I < sizeof...(A); ++I) {
    if (Sizes[I] != N || Elem[I] != elementwiseBytes(K.In[I]))
      return llvm::createStringError("elementwise: input " + std::to_string(I) +
                                     " mismatch");
    Ptrs[I] = Datas[I];
  }
  if (sizeof(R) != elementwiseBytes(K.Out))
    return llvm::createStringError("elementwise: output size mismatch");
  auto P = finalizeText(elementwiseSource(K));
  if (!P)
    return P.takeError();
  // Straight-line code vectorizes: a silent fall back to scalar work-item
  // loops would leave the per-lane paths these kernels test untested.
  if (!runsOnGpu() && finalizer::vectorizationEnabled())
    if (const auto *Symbol = P->kernel("&elementwise");
        Symbol && Symbol->VectorWidth <= 1)
      return llvm::createStringError(
          "elementwise: the kernel fell back to scalar work-item loops: " +
          Symbol->ScalarReason);
  std::vector<R> Out(N);
  struct {
    const void *In[4];
    void *Out;
  } Args{{Ptrs[0], Ptrs[1], Ptrs[2], Ptrs[3]}, Out.data()};
  Grid G;
  G.Size[0] = uint32_t(N);
  G.WorkGroup[0] = 64;
  runKernel(*P, "&elementwise", G, &Args);
  return Out;
}

/// How runKernelWith runs a grid.
struct RunOptions {
  /// Threads calling the work-group function at once, each with its own
  /// context and segments like the CPU agent's workers; thread T takes
  /// work-groups from a shared counter and reports compute unit T.
  unsigned Threads = 1;
  /// The dispatch's queue (context.queue); may stay null.
  hsa_queue_t *Queue = nullptr;
  /// Fill group and private memory with this byte instead of zeros, as
  /// memory reused from earlier work-groups would be.
  int PoisonByte = -1;
};

/// Runs every work-group of G as O says (the even ones in slices where the
/// kernel allows, as runKernel).
OPENHSA_CALLS_JIT_CODE
inline void runKernelWith(const FinalizedProgram &P, const std::string &Name,
                          const Grid &G, const void *Kernarg,
                          const RunOptions &O) {
  const finalizer::KernelSymbol *K = P.kernel(Name);
  ASSERT_NE(K, nullptr) << "no kernel " << Name;
#ifdef OPENHSA_TEST_GPU_AGENT
  // The GPU runs its own way: the options of a host run do not apply.
  if (P.Gpu)
    return gpu::dispatch(*P.Gpu, *K, G.Size, G.WorkGroup, G.Dims,
                         K->GroupSegmentSize + G.DynamicGroupBytes, Kernarg,
                         K->KernargSegmentSize);
#endif
  auto Entry = P.Loaded->address(K->EntrySymbol);
  ASSERT_TRUE(bool(Entry)) << llvm::toString(Entry.takeError());
  auto Fn = reinterpret_cast<hsa_ext_openhsa_workgroup_fn_t>(*Entry);

  hsa_kernel_dispatch_packet_t Packet{};
  hsa_ext_openhsa_dispatch_context_t Base{};
  Base.packet = &Packet;
  Base.queue = O.Queue;
  Base.dimensions = G.Dims;
  uint64_t WgItems = 1;
  for (unsigned D = 0; D < 3; ++D) {
    Base.grid_size[D] = G.Size[D];
    Base.workgroup_size[D] = G.WorkGroup[D];
    Base.grid_groups[D] = (G.Size[D] + G.WorkGroup[D] - 1) / G.WorkGroup[D];
    WgItems *= G.WorkGroup[D];
  }
  Base.group_segment_size = K->GroupSegmentSize + G.DynamicGroupBytes;
  Base.private_segment_size = K->PrivateSegmentSize;
  const unsigned Threads = std::max(1u, O.Threads);
  Base.max_compute_unit_id = Threads - 1;
  const uint64_t Gx = Base.grid_groups[0], Gxy = Gx * Base.grid_groups[1];
  const uint64_t Total = Gxy * Base.grid_groups[2];
  std::atomic<uint64_t> Next{0};
  auto Worker = [&](unsigned T) OPENHSA_CALLS_JIT_CODE {
    abi::CpuDispatchContext Cdc{};
    Cdc.Public = Base;
    hsa_ext_openhsa_dispatch_context_t &C = Cdc.Public;
    C.compute_unit_id = T;
    const uint8_t Fill = O.PoisonByte < 0 ? 0 : uint8_t(O.PoisonByte);
    std::vector<uint8_t> Group(C.group_segment_size + 64, Fill);
    std::vector<uint8_t> Private(size_t(C.private_segment_size) * WgItems + 64,
                                 Fill);
    C.group_base = Group.data();
    C.private_base = Private.data();
    for (uint64_t N; (N = Next.fetch_add(1)) < Total;) {
      const uint64_t Z = N / Gxy, Y = (N % Gxy) / Gx, X = N % Gx;
      runWorkGroup(Fn, *K, Kernarg, Cdc, uint32_t(X), uint32_t(Y), uint32_t(Z),
                   N % 2 == 0);
    }
  };
  std::vector<std::thread> Pool;
  for (unsigned T = 1; T < Threads; ++T)
    Pool.emplace_back(Worker, T);
  Worker(0);
  for (std::thread &Th : Pool)
    Th.join();
}

#ifdef OPENHSA_BENCH_KERNELS_DIR
/// Runs the benchmarks' tree reduction (benchmarks/kernels/reduction.hsail,
/// finalized in P) over In in whole groups of Group and returns the
/// groups' partial sums; the kernel's bound n is In's size, or Bound.
inline std::vector<float> runReduction(const FinalizedProgram &P,
                                       std::vector<float> &In, uint32_t Group,
                                       std::optional<uint32_t> Bound = {}) {
  const uint32_t N = uint32_t(In.size());
  std::vector<float> Partial(N / Group, -1.0f);
  struct {
    float *In, *Partial;
    uint32_t N;
  } Args{In.data(), Partial.data(), Bound.value_or(N)};
  Grid G;
  G.Size[0] = N;
  G.WorkGroup[0] = Group;
  runKernel(P, "&reduce", G, &Args);
  return Partial;
}
#endif

} // namespace openhsa::test

#endif
