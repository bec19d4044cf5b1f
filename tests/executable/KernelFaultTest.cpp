//===- tests/executable/KernelFaultTest.cpp - Finalized kernels that fault ===//
//
// HSA Runtime 2.8 (a queue's asynchronous errors): a finalized HSAIL kernel
// that loads or stores through a bad address ends its queue with
// HSA_STATUS_ERROR_EXCEPTION, not the process (cpu_agent/KernelFaults.h).
// Accesses to a constant null address are kept by the finalizer (LLVM's
// null_pointer_is_valid on every function it emits), so they fault and are
// reported too, vectorized or not. The native-kernel cases are in
// tests/runtime/DispatchFaultTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "tests/executable/ExecTestSupport.h"

#include <atomic>
#include <chrono>
#include <sys/mman.h>
#include <thread>

using namespace openhsa::test;

namespace {

const char *const FaultHsail = R"(
prog kernel &load_from(kernarg_u64 %p, kernarg_u64 %out)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%p];
	ld_global_u32	$s0, [$d0];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	st_global_u32	$s0, [$d1];
	ret;
};

prog kernel &store_to(kernarg_u64 %p, kernarg_u64 %out)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%p];
	st_global_u32	7, [$d0];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	st_global_u32	1, [$d1];
	ret;
};

prog kernel &load_null(kernarg_u64 %p, kernarg_u64 %out)
{
	ld_global_u32	$s0, [0];
	workitemabsid_u32	$s1, 0;
	cvt_u64_u32	$d2, $s1;
	shl_u64	$d2, $d2, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	add_u64	$d1, $d1, $d2;
	st_global_u32	$s0, [$d1];
	ret;
};

prog kernel &store_null(kernarg_u64 %p, kernarg_u64 %out)
{
	workitemabsid_u32	$s1, 0;
	st_global_u32	$s1, [0];
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	st_global_u32	$s1, [$d1];
	ret;
};
)";

class KernelFault : public ExecTest {
protected:
  static void onError(hsa_status_t Status, hsa_queue_t *Source, void *Data) {
    auto *Self = static_cast<KernelFault *>(Data);
    Self->Status.store(Status);
    Self->Source.store(Source);
    Self->Errors.fetch_add(1);
  }

  /// Finalizes FaultHsail (scalar when Vectorize is false) into a frozen
  /// executable.
  hsa_executable_t load(bool Vectorize) {
    ScopedEnv Env("OPENHSA_VECTORIZE", Vectorize ? nullptr : "0");
    hsa_code_object_t CO = finalizeText(moduleHeader("faults") + FaultHsail);
    hsa_executable_t E = makeExecutable();
    EXPECT_EQ(hsa_executable_load_code_object(E, Cpu, CO, nullptr),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_executable_freeze(E, nullptr), HSA_STATUS_SUCCESS);
    CodeObjects.push_back(CO);
    return E;
  }

  /// Dispatches kernel Name of E over Grid work-items (work-groups of Wg)
  /// with arguments {Pointer, Out} to a fresh queue and checks that the
  /// queue reports HSA_STATUS_ERROR_EXCEPTION, that the dispatch does not
  /// complete, and that nothing was written to Out.
  void expectFault(hsa_executable_t E, const char *Name, void *Pointer,
                   uint32_t Grid, uint16_t Wg) {
    SCOPED_TRACE(std::string(Name) + " over " + std::to_string(Grid));
    hsa_executable_symbol_t K{0};
    ASSERT_EQ(hsa_executable_get_symbol_by_name(E, Name, &Cpu, &K),
              HSA_STATUS_SUCCESS);
    hsa_queue_t *Q = nullptr;
    ASSERT_EQ(hsa_queue_create(Cpu, 16, HSA_QUEUE_TYPE_SINGLE, onError, this,
                               UINT32_MAX, UINT32_MAX, &Q),
              HSA_STATUS_SUCCESS);
    Errors.store(0);
    std::vector<uint32_t> Out(Grid, 0xdeadbeef);
    void *Args = nullptr;
    ASSERT_EQ(hsa_memory_allocate(Kernarg, 16, &Args), HSA_STATUS_SUCCESS);
    static_cast<void **>(Args)[0] = Pointer;
    static_cast<void **>(Args)[1] = Out.data();
    hsa_signal_t Done{0};
    ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &Done), HSA_STATUS_SUCCESS);

    hsa_kernel_dispatch_packet_t P;
    std::memset(&P, 0, sizeof(P));
    P.setup = uint16_t(1u << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
    P.workgroup_size_x = Wg;
    P.workgroup_size_y = P.workgroup_size_z = 1;
    P.grid_size_x = Grid;
    P.grid_size_y = P.grid_size_z = 1;
    P.kernel_object =
        symbolInfo<uint64_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT);
    P.private_segment_size = symbolInfo<uint32_t>(
        K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE);
    P.kernarg_address = Args;
    P.completion_signal = Done;
    submit(Q, P);

    const auto Deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (Errors.load() == 0 && std::chrono::steady_clock::now() < Deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(Errors.load(), 1) << "no fault reported";
    EXPECT_EQ(Status.load(), HSA_STATUS_ERROR_EXCEPTION);
    EXPECT_EQ(Source.load(), Q);
    EXPECT_EQ(hsa_signal_load_scacquire(Done), 1)
        << "a faulted dispatch completed";
    for (uint32_t I = 0; I < Grid; ++I)
      ASSERT_EQ(Out[I], 0xdeadbeefu)
          << "work-item " << I << " got past its fault";
    EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_signal_destroy(Done), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_memory_free(Args), HSA_STATUS_SUCCESS);
  }

  void TearDown() override {
    for (hsa_code_object_t CO : CodeObjects)
      EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
    ExecTest::TearDown();
  }

  std::vector<hsa_code_object_t> CodeObjects;
  std::atomic<int> Errors{0};
  std::atomic<hsa_status_t> Status{HSA_STATUS_SUCCESS};
  std::atomic<hsa_queue_t *> Source{nullptr};
};

/// A page nothing may touch.
struct Inaccessible {
  Inaccessible() {
    Page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(Page, MAP_FAILED);
  }
  ~Inaccessible() { munmap(Page, 4096); }
  void *Page;
};

// A kernarg pointer to an inaccessible page: loads and stores through it
// fault; the queue reports it and the process goes on.
TEST_F(KernelFault, BadLoadAndStoreEndTheirQueue) {
  Inaccessible Bad;
  for (bool Vectorize : {true, false}) {
    hsa_executable_t E = load(Vectorize);
    expectFault(E, "&load_from", Bad.Page, 1, 1);
    expectFault(E, "&store_to", Bad.Page, 1, 1);
    expectFault(E, "&load_from", Bad.Page, 256, 64);
    expectFault(E, "&store_to", Bad.Page, 256, 64);
    EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  }
}

// ld_global/st_global at the constant address 0 (PRM 6.3 leaves such
// accesses to the implementation): LLVM would delete them as undefined and
// the kernel would "succeed"; they fault and are reported instead.
TEST_F(KernelFault, NullAccessesAreKeptAndReported) {
  for (bool Vectorize : {true, false}) {
    SCOPED_TRACE(Vectorize ? "vectorized" : "scalar");
    hsa_executable_t E = load(Vectorize);
    expectFault(E, "&load_null", nullptr, 1, 1);
    expectFault(E, "&store_null", nullptr, 1, 1);
    expectFault(E, "&load_null", nullptr, 256, 64);
    expectFault(E, "&store_null", nullptr, 256, 64);
    EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  }
}

// After faults, kernels of the same executable on another queue run as
// before.
TEST_F(KernelFault, OtherQueuesKeepRunningKernels) {
  Inaccessible Bad;
  hsa_executable_t E = load(true);
  expectFault(E, "&load_from", Bad.Page, 64, 64);
  uint32_t Value = 42, Out = 0;
  struct {
    uint32_t *P, *Out;
  } Args{&Value, &Out};
  hsa_executable_symbol_t K{0};
  ASSERT_EQ(hsa_executable_get_symbol_by_name(E, "&load_from", &Cpu, &K),
            HSA_STATUS_SUCCESS);
  ASSERT_TRUE(dispatch(K, &Args, sizeof(Args), 1, 1));
  EXPECT_EQ(Out, 42u);
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
}

} // namespace
