//===- tests/executable/WrapGuardsTest.cpp - Wrap checks left to dispatch -===//
//
// A vectorized access at base + zext(index), index a 32-bit sum, is one
// vector access only where no lane's index wrapped around 2^32. The
// finalizer leaves that check to a guard the runtime evaluates at each
// dispatch (finalizer/WrapGuard.h); a dispatch whose indices may wrap runs
// the kernel finalized again with its checks (runtime/ShapeVariants.h).
// Through the C API: the right bytes in both kinds of dispatch, what
// OPENHSA_DUMP_IR reports of each finalization, serialized code objects
// (which have their checks), OPENHSA_WRAP_GUARDS=0, and queues that need
// the code with checks at once.
//
//===----------------------------------------------------------------------===//
#include "tests/executable/ExecTestSupport.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

using namespace openhsa::test;

namespace {

// out[i] = in[(i + offset) mod 2^32], bytes: lanes of one wave read
// consecutive bytes unless their indices wrap. Counting: with a variable
// of its own that counts its dispatches, whose count before the dispatch
// work-item 0 writes to out[64].
std::string shifted(bool Counting) {
  return std::string("module &wraps:1:0:$full:$large:$default;\n") +
         R"(prog kernel &shifted(kernarg_u64 %in, kernarg_u64 %out, kernarg_u32 %offset)
{
)" + (Counting ? "\tglobal_u32 %dispatches = 0;\n" : "") +
         R"(	workitemabsid_u32	$s0, 0;
	ld_kernarg_align(4)_width(all)_u32	$s1, [%offset];
	add_u32	$s2, $s0, $s1;
	cvt_u64_u32	$d0, $s2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%in];
	add_u64	$d1, $d1, $d0;
	ld_global_u8	$s3, [$d1];
	cvt_u64_u32	$d2, $s0;
	shl_u64	$d2, $d2, 2;
	ld_kernarg_align(8)_width(all)_u64	$d3, [%out];
	add_u64	$d2, $d3, $d2;
	st_global_u32	$s3, [$d2];
)" +
         (Counting ? R"(	cmp_ne_b1_u32	$c0, $s0, 0;
	cbr_b1	$c0, @done;
	atomic_add_global_scar_agent_u32	$s4, [%dispatches], 1;
	st_global_u32	$s4, [$d3+256];
@done:
)"
                   : "") +
         "\tret;\n};\n";
}

constexpr uint64_t FourGiB = uint64_t(1) << 32;

class WrapGuards : public ExecTest {
protected:
  void SetUp() override {
    ExecTest::SetUp();
    // 4 GiB and a page of address space, of which the test touches a
    // page at each end: index 2^32 - 8 is near the end, index 0 at the
    // start, and a vector load of 16 bytes at 2^32 - 8 (the wrong code)
    // reads the 8 bytes past 4 GiB, which hold other values.
    Span = FourGiB + 2 * Page;
    void *P = mmap(nullptr, Span, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ASSERT_NE(P, MAP_FAILED) << "cannot reserve 4 GiB of address space";
    In = static_cast<uint8_t *>(P);
    for (uint32_t I = 0; I < 64; ++I)
      In[I] = uint8_t(1 + I); // Index I.
    for (uint32_t I = 1; I <= 64; ++I)
      In[FourGiB - I] = uint8_t(0x80 + I); // Index 2^32 - I.
    for (uint32_t I = 0; I < 64; ++I)
      In[FourGiB + I] = 0xEE; // No index reaches these.
  }
  void TearDown() override {
    if (Exec.handle) {
      EXPECT_EQ(hsa_executable_destroy(Exec), HSA_STATUS_SUCCESS);
    }
    if (In)
      munmap(In, Span);
    std::filesystem::remove_all(Dumps);
    ExecTest::TearDown();
  }

  hsa_executable_symbol_t load(hsa_code_object_t CO) {
    Exec = makeExecutable();
    EXPECT_EQ(hsa_executable_load_code_object(Exec, Cpu, CO, nullptr),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_executable_freeze(Exec, nullptr), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
    hsa_executable_symbol_t S{0};
    EXPECT_EQ(hsa_executable_get_symbol_by_name(Exec, "&shifted", &Cpu, &S),
              HSA_STATUS_SUCCESS);
    return S;
  }

  /// Finalizes &shifted (shifted(Counting)), returning the report
  /// OPENHSA_DUMP_IR wrote.
  hsa_code_object_t finalize(std::string &Report, bool Counting = false) {
    std::filesystem::create_directories(Dumps);
    hsa_code_object_t CO;
    {
      ScopedEnv Dump("OPENHSA_DUMP_IR", Dumps.c_str());
      CO = finalizeText(shifted(Counting));
    }
    Report = takeReport();
    return CO;
  }

  /// Runs K over 64 work-items in groups of 32 with Offset, checks every
  /// result, and returns what a finalization during the dispatch reported
  /// ("" if none ran).
  std::string run(hsa_executable_symbol_t K, uint32_t Offset,
                  uint32_t *Count = nullptr) {
    std::vector<uint32_t> Out(65, ~0u);
    struct {
      uint8_t *In;
      uint32_t *Out;
      uint32_t Offset;
    } Args{In, Out.data(), Offset};
    std::filesystem::create_directories(Dumps);
    {
      ScopedEnv Dump("OPENHSA_DUMP_IR", Dumps.c_str());
      EXPECT_TRUE(dispatch(K, &Args, sizeof(Args), 64, 32));
    }
    for (uint32_t I = 0; I < 64; ++I) {
      const uint64_t Index = uint32_t(I + Offset);
      if (Out[I] != In[Index]) {
        ADD_FAILURE() << "work-item " << I << " read " << Out[I]
                      << ", not byte " << Index << "'s " << unsigned(In[Index])
                      << " (offset " << Offset << ")";
        break;
      }
    }
    if (Count)
      *Count = Out[64];
    return takeReport();
  }

  /// Submits to Q a dispatch of kernel object Object over 64 work-items
  /// in groups of 32.
  static void submit64(hsa_queue_t *Q, uint64_t Object, void *Args,
                       hsa_signal_t Done) {
    hsa_kernel_dispatch_packet_t P{};
    P.setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
    P.workgroup_size_x = 32;
    P.workgroup_size_y = P.workgroup_size_z = 1;
    P.grid_size_x = 64;
    P.grid_size_y = P.grid_size_z = 1;
    P.kernel_object = Object;
    P.kernarg_address = Args;
    P.completion_signal = Done;
    submit(Q, P);
  }

  std::string takeReport() {
    const std::filesystem::path P = Dumps / "hsail-program.vectorize.txt";
    std::ifstream F(P);
    std::stringstream S;
    S << F.rdbuf();
    std::filesystem::remove(P);
    return S.str();
  }

  const uint64_t Page = uint64_t(sysconf(_SC_PAGESIZE));
  uint64_t Span = 0;
  uint8_t *In = nullptr;
  hsa_executable_t Exec{0};
  const std::filesystem::path Dumps =
      std::filesystem::temp_directory_path() /
      ("openhsa-wrap-guards-" + std::to_string(getpid()));
};

bool vectorized(const std::string &Report) {
  return Report.find("&shifted: vectorized") != std::string::npos;
}

TEST_F(WrapGuards, TheProgramsCodeLeavesItsCheckToTheGuard) {
  std::string Report;
  hsa_executable_symbol_t K = load(finalize(Report));
  if (!vectorized(Report))
    GTEST_SKIP() << "not vectorized here: " << Report;
  EXPECT_NE(Report.find("(0 checked, 1 guarded at dispatch)"),
            std::string::npos)
      << Report;
  // No index wraps: the program's code, nothing finalized.
  EXPECT_EQ(run(K, 0), "");
  EXPECT_EQ(run(K, 5), "");
  EXPECT_EQ(run(K, uint32_t(FourGiB - 64)), "");
}

TEST_F(WrapGuards, DispatchesWhoseIndicesWrapRunTheCodeWithChecks) {
  std::string Report;
  hsa_executable_symbol_t K = load(finalize(Report));
  if (!vectorized(Report))
    GTEST_SKIP() << "not vectorized here: " << Report;
  // Work-items 0-7 read the last bytes below 4 GiB, the others the first
  // bytes: the first such dispatch finalizes the code with its check.
  const std::string Checked = run(K, uint32_t(FourGiB - 8));
  EXPECT_NE(Checked.find("(1 checked)"), std::string::npos) << Checked;
  EXPECT_EQ(run(K, uint32_t(FourGiB - 40)), ""); // That code again.
  EXPECT_EQ(run(K, 7), "");                      // The program's code.
  EXPECT_EQ(run(K, uint32_t(FourGiB - 1)), "");
}

// A kernel with a variable of its own keeps its checks: code finalized
// again would have a copy of the variable, and the dispatches that ran it
// would count apart from the others.
TEST_F(WrapGuards, KernelsWithVariablesOfTheirOwnKeepTheirChecks) {
  std::string Report;
  hsa_executable_symbol_t K = load(finalize(Report, /*Counting=*/true));
  if (!vectorized(Report))
    GTEST_SKIP() << "not vectorized here: " << Report;
  EXPECT_NE(Report.find("(1 checked)"), std::string::npos) << Report;
  uint32_t Count = ~0u;
  EXPECT_EQ(run(K, 5, &Count), "");
  EXPECT_EQ(Count, 0u);
  EXPECT_EQ(run(K, uint32_t(FourGiB - 8), &Count), "");
  EXPECT_EQ(Count, 1u);
  EXPECT_EQ(run(K, 6, &Count), "");
  EXPECT_EQ(Count, 2u);
}

// hsa_code_object_serialize writes code with its checks: where the bytes
// load, no source is kept to finalize them again.
TEST_F(WrapGuards, SerializedCodeObjectsHaveTheirChecks) {
  std::string Report;
  hsa_code_object_t Guarded = finalize(Report);
  if (!vectorized(Report))
    GTEST_SKIP() << "not vectorized here: " << Report;
  const std::vector<uint8_t> Bytes = serialize(Guarded);
  EXPECT_EQ(hsa_code_object_destroy(Guarded), HSA_STATUS_SUCCESS);
  hsa_code_object_t Back{0};
  ASSERT_EQ(hsa_code_object_deserialize(const_cast<uint8_t *>(Bytes.data()),
                                        Bytes.size(), nullptr, &Back),
            HSA_STATUS_SUCCESS);
  hsa_executable_symbol_t K = load(Back);
  EXPECT_EQ(run(K, uint32_t(FourGiB - 8)), "");
  EXPECT_EQ(run(K, 3), "");
}

TEST_F(WrapGuards, OffKeepsEveryCheckInTheCode) {
  std::string Report;
  hsa_code_object_t CO;
  {
    ScopedEnv Off("OPENHSA_WRAP_GUARDS", "0");
    CO = finalize(Report);
  }
  hsa_executable_symbol_t K = load(CO);
  if (!vectorized(Report))
    GTEST_SKIP() << "not vectorized here: " << Report;
  EXPECT_NE(Report.find("(1 checked)"), std::string::npos) << Report;
  EXPECT_EQ(run(K, uint32_t(FourGiB - 8)), "");
  EXPECT_EQ(run(K, 9), "");
}

// Four queues at once, two of them with dispatches whose indices wrap: the
// code with checks is finalized once (the others wait for it), and every
// dispatch reads the right bytes.
TEST_F(WrapGuards, ConcurrentDispatchesWithAndWithoutWraps) {
  std::string Report;
  hsa_executable_symbol_t K = load(finalize(Report));
  const uint64_t Object =
      symbolInfo<uint64_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT);
  const uint32_t Offsets[4] = {uint32_t(FourGiB - 8), 11,
                               uint32_t(FourGiB - 20), 0};
  std::vector<std::vector<uint32_t>> Outs(4, std::vector<uint32_t>(64, ~0u));
  std::vector<std::thread> Threads;
  for (size_t T = 0; T < 4; ++T)
    Threads.emplace_back([&, T] {
      hsa_queue_t *Q = nullptr;
      ASSERT_EQ(hsa_queue_create(Cpu, 16, HSA_QUEUE_TYPE_SINGLE, nullptr,
                                 nullptr, UINT32_MAX, UINT32_MAX, &Q),
                HSA_STATUS_SUCCESS);
      void *Args = nullptr;
      ASSERT_EQ(hsa_memory_allocate(Kernarg, 24, &Args), HSA_STATUS_SUCCESS);
      struct {
        uint8_t *In;
        uint32_t *Out;
        uint32_t Offset;
      } A{In, Outs[T].data(), Offsets[T]};
      std::memcpy(Args, &A, sizeof(A));
      hsa_signal_t Done;
      ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &Done), HSA_STATUS_SUCCESS);
      submit64(Q, Object, Args, Done);
      while (hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                       UINT64_MAX, HSA_WAIT_STATE_BLOCKED))
        ;
      EXPECT_EQ(hsa_signal_destroy(Done), HSA_STATUS_SUCCESS);
      EXPECT_EQ(hsa_memory_free(Args), HSA_STATUS_SUCCESS);
      EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
    });
  for (std::thread &T : Threads)
    T.join();
  for (size_t T = 0; T < 4; ++T)
    for (uint32_t I = 0; I < 64; ++I)
      ASSERT_EQ(Outs[T][I], In[uint32_t(I + Offsets[T])])
          << "queue " << T << ", work-item " << I;
}

// A kernarg address nothing may read: the guard cannot read its argument,
// the code with checks runs and faults reading it, and the queue reports
// that as the kernel's fault; the runtime reading the arguments for the
// guard does not crash the process.
TEST_F(WrapGuards, AnUnreadableKernargSegmentIsTheKernelsFault) {
  std::string Report;
  hsa_executable_symbol_t K = load(finalize(Report));
  if (!vectorized(Report))
    GTEST_SKIP() << "not vectorized here: " << Report;
  void *Unreadable =
      mmap(nullptr, Page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(Unreadable, MAP_FAILED);
  std::atomic<int> Errors{0};
  hsa_queue_t *Q = nullptr;
  ASSERT_EQ(hsa_queue_create(
                Cpu, 16, HSA_QUEUE_TYPE_SINGLE,
                [](hsa_status_t Status, hsa_queue_t *, void *Data) {
                  EXPECT_EQ(Status, HSA_STATUS_ERROR_EXCEPTION);
                  static_cast<std::atomic<int> *>(Data)->fetch_add(1);
                },
                &Errors, UINT32_MAX, UINT32_MAX, &Q),
            HSA_STATUS_SUCCESS);
  hsa_signal_t Done;
  ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &Done), HSA_STATUS_SUCCESS);
  submit64(Q, symbolInfo<uint64_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT),
           Unreadable, Done);
  const auto Deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (Errors.load() == 0 && std::chrono::steady_clock::now() < Deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(Errors.load(), 1) << "no fault reported";
  EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_signal_destroy(Done), HSA_STATUS_SUCCESS);
  munmap(Unreadable, Page);
}

} // namespace
