//===- tests/executable/ShapeVariantsTest.cpp - Kernels for a shape -------===//
//
// A kernel with barriers finalized without a group shape runs, in the
// dispatches of whole groups, a variant the runtime finalizes for their
// shape at the first such dispatch: a lockstep group where the shape is
// 1-D and whole vectors (runtime/ShapeVariants.h). Through the C API only:
// results equal in every shape, a variant's finalization seen in what
// OPENHSA_DUMP_IR writes (the report names the shape, and the lockstep group
// where the shape makes one), none for programs with variables or with
// lockstep groups off. The kernel's own code, which partial groups run, is
// finalized at the first dispatch that needs it, and serialized code
// objects have it.
//
//===----------------------------------------------------------------------===//
#include "tests/executable/ExecTestSupport.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace openhsa::test;

namespace {

// A tree reduction (benchmarks/kernels/reduction.hsail, without the bounds
// check): each group sums its elements in group memory, a barrier in the
// halving loop, and writes one partial sum.
const char *Reduce = R"(module &variants:1:0:$full:$large:$default;
prog kernel &reduce(kernarg_u64 %in, kernarg_u64 %partial)
{
	group_u32 %scratch[256];
	workitemid_u32	$s0, 0;
	workitemabsid_u32	$s1, 0;
	cvt_u64_u32	$d0, $s1;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%in];
	add_u64	$d1, $d1, $d0;
	ld_global_u32	$s3, [$d1];
	shl_u32	$s6, $s0, 2;
	st_group_u32	$s3, [%scratch][$s6];
	barrier;
	currentworkgroupsize_u32	$s5, 0;
	shr_u32	$s5, $s5, 1;
@step:
	cmp_eq_b1_u32	$c1, $s5, 0;
	cbr_b1	$c1, @write;
	cmp_ge_b1_u32	$c2, $s0, $s5;
	cbr_b1	$c2, @wait;
	add_u32	$s7, $s0, $s5;
	shl_u32	$s7, $s7, 2;
	ld_group_u32	$s8, [%scratch][$s6];
	ld_group_u32	$s9, [%scratch][$s7];
	add_u32	$s8, $s8, $s9;
	st_group_u32	$s8, [%scratch][$s6];
@wait:
	barrier;
	shr_u32	$s5, $s5, 1;
	br	@step;
@write:
	cmp_ne_b1_u32	$c3, $s0, 0;
	cbr_b1	$c3, @end;
	ld_group_u32	$s8, [%scratch];
	workgroupid_u32	$s2, 0;
	cvt_u64_u32	$d2, $s2;
	shl_u64	$d2, $d2, 2;
	ld_kernarg_align(8)_width(all)_u64	$d3, [%partial];
	add_u64	$d3, $d3, $d2;
	st_global_u32	$s8, [$d3];
@end:
	ret;
};
)";

// A kernel without barriers: each work-item doubles its element.
const char *TwiceKernel = R"(prog kernel &twice(kernarg_u64 %data)
{
	workitemabsid_u32	$s0, 0;
	cvt_u64_u32	$d0, $s0;
	shl_u64	$d0, $d0, 2;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%data];
	add_u64	$d1, $d1, $d0;
	ld_global_u32	$s1, [$d1];
	add_u32	$s1, $s1, $s1;
	st_global_u32	$s1, [$d1];
	ret;
};
)";

class ShapeVariants : public ExecTest {
protected:
  void TearDown() override {
    if (Exec.handle) {
      EXPECT_EQ(hsa_executable_destroy(Exec), HSA_STATUS_SUCCESS);
    }
    std::filesystem::remove_all(Dumps);
    ExecTest::TearDown();
  }

  hsa_executable_symbol_t load(const std::string &Text) {
    return loadCodeObject(finalizeText(Text));
  }

  /// Loads CO into Exec, frozen, and destroys CO; returns Kernel's symbol.
  hsa_executable_symbol_t loadCodeObject(hsa_code_object_t CO,
                                         const char *Kernel = "&reduce") {
    Exec = makeExecutable();
    EXPECT_EQ(hsa_executable_load_code_object(Exec, Cpu, CO, nullptr),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_executable_freeze(Exec, nullptr), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
    hsa_executable_symbol_t S{0};
    EXPECT_EQ(hsa_executable_get_symbol_by_name(Exec, Kernel, &Cpu, &S),
              HSA_STATUS_SUCCESS);
    return S;
  }

  /// Runs &reduce over Grid[0] * Grid[1] items in groups of Wg and checks
  /// every group's sum; with OPENHSA_DUMP_IR set to Dumps meanwhile.
  void reduceAndCheck(hsa_executable_symbol_t K, unsigned Dims,
                      std::array<uint32_t, 3> Grid,
                      std::array<uint16_t, 3> Wg) {
    const uint32_t N = Grid[0] * Grid[1];
    const uint32_t Group = uint32_t(Wg[0]) * Wg[1];
    std::vector<uint32_t> In(N), Partial((N + Group - 1) / Group, ~0u);
    for (uint32_t I = 0; I < N; ++I)
      In[I] = I * 2654435761u >> 22;
    struct {
      uint32_t *In, *Partial;
    } Args{In.data(), Partial.data()};
    std::filesystem::create_directories(Dumps);
    {
      ScopedEnv Dump("OPENHSA_DUMP_IR", Dumps.c_str());
      ASSERT_TRUE(dispatch(K, &Args, sizeof(Args), Dims, Grid, Wg));
    }
    // 1-D groups have sums to compare here, a partial last group too where
    // its size is a power of two (the tree's halvings then add every item).
    if (Dims != 1)
      return;
    const uint32_t Last = N % Group;
    if (Last & (Last - 1))
      return;
    for (uint32_t G = 0; G < Partial.size(); ++G) {
      const uint32_t Items = std::min(Group, N - G * Group);
      uint32_t Sum = 0;
      for (uint32_t I = 0; I < Items; ++I)
        Sum += In[G * Group + I];
      ASSERT_EQ(Partial[G], Sum) << "group " << G << " of " << Items;
    }
  }

  /// What the last finalization during a dispatch reported, or "" if none
  /// ran; removes it.
  std::string takeReport() {
    const std::filesystem::path P = Dumps / "hsail-program.vectorize.txt";
    std::ifstream F(P);
    std::stringstream S;
    S << F.rdbuf();
    std::filesystem::remove(P);
    return S.str();
  }

  /// CO serialized, destroyed and deserialized: a code object without the
  /// program it was finalized from.
  hsa_code_object_t serializedAndBack(hsa_code_object_t CO) {
    const std::vector<uint8_t> Bytes = serialize(CO);
    EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
    hsa_code_object_t Back{0};
    EXPECT_EQ(hsa_code_object_deserialize(const_cast<uint8_t *>(Bytes.data()),
                                          Bytes.size(), nullptr, &Back),
              HSA_STATUS_SUCCESS);
    return Back;
  }

  /// A program of &twice alone, finalized.
  hsa_code_object_t finalizeTwice() {
    return finalizeText(
        std::string("module &waves:1:0:$full:$large:$default;\n") +
        TwiceKernel);
  }

  /// Doubles Data's first Grid elements with &twice (K) in groups of
  /// Group, checks all of Data against Want (doubled likewise), and
  /// returns what a finalization during the dispatch reported ("" if none).
  std::string twiceOver(hsa_executable_symbol_t K, std::vector<uint32_t> &Data,
                        std::vector<uint32_t> &Want, uint32_t Grid,
                        uint16_t Group) {
    uint32_t *Ptr = Data.data();
    std::filesystem::create_directories(Dumps);
    {
      ScopedEnv Dump("OPENHSA_DUMP_IR", Dumps.c_str());
      EXPECT_TRUE(dispatch(K, &Ptr, sizeof(Ptr), Grid, Group));
    }
    for (uint32_t I = 0; I < Grid; ++I)
      Want[I] *= 2;
    for (uint32_t I = 0; I < Data.size(); ++I)
      if (Data[I] != Want[I]) {
        ADD_FAILURE() << "element " << I << " is " << Data[I] << ", not "
                      << Want[I] << " (grid " << Grid << ", groups of " << Group
                      << ")";
        break;
      }
    return takeReport();
  }

  /// Data and Want for twiceOver: 0, 1, 2, ...
  static std::vector<uint32_t> iota(size_t N) {
    std::vector<uint32_t> V(N);
    for (uint32_t I = 0; I < N; ++I)
      V[I] = I;
    return V;
  }

  hsa_executable_t Exec{0};
  const std::filesystem::path Dumps =
      std::filesystem::temp_directory_path() /
      ("openhsa-variants-" + std::to_string(getpid()));
};

TEST_F(ShapeVariants, EachShapeOfWholeGroupsGetsAVariantOnce) {
  hsa_executable_symbol_t K = load(Reduce);
  uint32_t W = 0;
  hsa_wavefront_t Wave{0};
  ASSERT_EQ(hsa_isa_iterate_wavefronts(
                Isa,
                [](hsa_wavefront_t Wf, void *Data) {
                  *static_cast<hsa_wavefront_t *>(Data) = Wf;
                  return HSA_STATUS_INFO_BREAK;
                },
                &Wave),
            HSA_STATUS_INFO_BREAK);
  ASSERT_EQ(hsa_wavefront_get_info(Wave, HSA_WAVEFRONT_INFO_SIZE, &W),
            HSA_STATUS_SUCCESS);
  if (W < 2)
    GTEST_SKIP() << "no vectors: no lockstep groups";
  const uint16_t Group = uint16_t(4 * W);
  // The first dispatch of the shape finalizes the variant.
  reduceAndCheck(K, 1, {Group * 37u, 1, 1}, {Group, 1, 1});
  const std::string First = takeReport();
  EXPECT_NE(First.find("the group in lockstep"), std::string::npos) << First;
  EXPECT_NE(First.find("group shape fixed: " + std::to_string(Group) +
                       "x1x1, whole groups"),
            std::string::npos)
      << First;
  // Later ones of that shape run it.
  reduceAndCheck(K, 1, {Group * 5u, 1, 1}, {Group, 1, 1});
  EXPECT_EQ(takeReport(), "");
  // Another width, another variant.
  reduceAndCheck(K, 1, {2 * W * 9u, 1, 1}, {uint16_t(2 * W), 1, 1});
  EXPECT_NE(takeReport().find("the group in lockstep"), std::string::npos);
  std::string Report;
  // Partial groups run the kernel's own code, for any shape, which the
  // first such dispatch finalizes: the finalization of the program left it
  // out (FinalizeRequest::DeferShapeVariantCode).
  reduceAndCheck(K, 1, {Group * 3u + W, 1, 1}, {Group, 1, 1});
  Report = takeReport();
  EXPECT_NE(Report.find("&reduce: vectorized"), std::string::npos) << Report;
  EXPECT_EQ(Report.find("group shape fixed"), std::string::npos) << Report;
  EXPECT_EQ(Report.find("code deferred"), std::string::npos) << Report;
  // Once: other partial shapes run it too.
  reduceAndCheck(K, 1, {Group * 5u + 2 * W, 1, 1}, {Group, 1, 1});
  reduceAndCheck(K, 1, {W * 4u + W / 2, 1, 1}, {uint16_t(W), 1, 1});
  EXPECT_EQ(takeReport(), "");
  // 2-D groups whose rows are whole vectors get a lockstep group too;
  // groups narrower than a vector a variant with their shape fixed, not a
  // lockstep group. (The tree sums groups whose size is a power of two.)
  reduceAndCheck(K, 2, {W, 8, 1}, {uint16_t(W), 4, 1});
  Report = takeReport();
  EXPECT_NE(Report.find("group shape fixed: " + std::to_string(W) +
                        "x4x1, whole groups"),
            std::string::npos)
      << Report;
  EXPECT_NE(Report.find("the group in lockstep"), std::string::npos) << Report;
  reduceAndCheck(K, 1, {W / 2 * 7, 1, 1}, {uint16_t(W / 2), 1, 1});
  Report = takeReport();
  EXPECT_NE(Report.find("group shape fixed: " + std::to_string(W / 2) +
                        "x1x1, whole groups"),
            std::string::npos)
      << Report;
  EXPECT_EQ(Report.find("the group in lockstep"), std::string::npos) << Report;
}

TEST_F(ShapeVariants, NoneWhereTheProgramHasVariablesOrLockstepIsOff) {
  // A program variable: a second code object would have its own copy.
  std::string WithVariable = Reduce;
  WithVariable.insert(WithVariable.find("prog kernel"),
                      "prog global_u32 &counter = 0;\n");
  hsa_executable_symbol_t K = load(WithVariable);
  reduceAndCheck(K, 1, {64u * 16, 1, 1}, {64, 1, 1});
  EXPECT_EQ(takeReport(), "");
  ASSERT_EQ(hsa_executable_destroy(Exec), HSA_STATUS_SUCCESS);
  Exec = {0};
  // Lockstep groups off when the kernel was finalized.
  {
    ScopedEnv Off("OPENHSA_LOCKSTEP_GROUPS", "0");
    K = load(Reduce);
  }
  reduceAndCheck(K, 1, {64u * 16, 1, 1}, {64, 1, 1});
  EXPECT_EQ(takeReport(), "");
}

// OPENHSA_DEFER_VARIANT_CODE=0: the program's finalization compiles the
// kernel's code for any shape, which partial groups then run as it is.
TEST_F(ShapeVariants, WithoutDeferralPartialGroupsFinalizeNothing) {
  hsa_executable_symbol_t K;
  {
    ScopedEnv Off("OPENHSA_DEFER_VARIANT_CODE", "0");
    K = load(Reduce);
  }
  reduceAndCheck(K, 1, {64u * 5 + 32, 1, 1}, {64, 1, 1});
  EXPECT_EQ(takeReport(), "");
}

// The finalizer left the kernel's code for any shape out of the code
// object; its serialized form has it all, for a process that has not the
// program to finalize it from.
TEST_F(ShapeVariants, SerializedCodeObjectsHaveTheDeferredCode) {
  hsa_executable_symbol_t K =
      loadCodeObject(serializedAndBack(finalizeText(Reduce)));
  const uint16_t Group = 64;
  // Partial and whole groups run the code the bytes hold: nothing is
  // finalized (there is no source to finalize from).
  reduceAndCheck(K, 1, {Group * 3u + 16, 1, 1}, {Group, 1, 1});
  EXPECT_EQ(takeReport(), "");
  reduceAndCheck(K, 1, {Group * 4u, 1, 1}, {Group, 1, 1});
  EXPECT_EQ(takeReport(), "");
}

// A code object that lacks a kernel's code and has no source is refused at
// load, not run. The finalization cache stores such objects (the runtime
// gives them back their source); hsa_code_object_serialize never writes
// them.
TEST_F(ShapeVariants, ACodeObjectWithoutCodeOrSourceIsRefused) {
  hsa_code_object_t Full = finalizeText(Reduce);
  std::vector<uint8_t> Bytes = serialize(Full);
  ASSERT_EQ(hsa_code_object_destroy(Full), HSA_STATUS_SUCCESS);
  // The kernel marked as without code, the hash made right.
  const std::string From = "\"code_deferred\":false",
                    To = "\"code_deferred\":true ";
  auto It = std::search(Bytes.begin(), Bytes.end(), From.begin(), From.end());
  ASSERT_NE(It, Bytes.end());
  std::copy(To.begin(), To.end(), It);
  sealCodeObjectBytes(Bytes);
  hsa_code_object_t CO{0};
  ASSERT_EQ(
      hsa_code_object_deserialize(Bytes.data(), Bytes.size(), nullptr, &CO),
      HSA_STATUS_SUCCESS);
  Exec = makeExecutable();
  EXPECT_EQ(hsa_executable_load_code_object(Exec, Cpu, CO, nullptr),
            HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
}

// A program with a second kernel, without barriers: its code is in the
// code object and runs at once; the reduction's deferred code comes from
// the program finalized again, both kernels in it.
TEST_F(ShapeVariants, OnlyTheVariantsKernelDefersItsCode) {
  std::string TwoKernels = Reduce;
  TwoKernels += TwiceKernel;
  hsa_executable_symbol_t Reduction = load(TwoKernels);
  hsa_executable_symbol_t Twice{0};
  ASSERT_EQ(hsa_executable_get_symbol_by_name(Exec, "&twice", &Cpu, &Twice),
            HSA_STATUS_SUCCESS);
  // Whole waves (a grid of partial waves would finalize their code:
  // PartialWavesFinalizeTheirCodeAtTheirFirstDispatch).
  std::vector<uint32_t> Data(1024);
  for (uint32_t I = 0; I < Data.size(); ++I)
    Data[I] = I;
  uint32_t *Ptr = Data.data();
  std::filesystem::create_directories(Dumps);
  {
    ScopedEnv Dump("OPENHSA_DUMP_IR", Dumps.c_str());
    ASSERT_TRUE(dispatch(Twice, &Ptr, sizeof(Ptr), uint32_t(Data.size()), 64));
  }
  EXPECT_EQ(takeReport(), ""); // Nothing finalized: its code was there.
  for (uint32_t I = 0; I < Data.size(); ++I)
    ASSERT_EQ(Data[I], 2 * I) << I;
  reduceAndCheck(Reduction, 1, {64u * 3 + 32, 1, 1}, {64, 1, 1});
  const std::string Report = takeReport();
  EXPECT_NE(Report.find("&reduce: vectorized"), std::string::npos) << Report;
  EXPECT_NE(Report.find("&twice: vectorized"), std::string::npos) << Report;
  // Whole groups: a variant.
  reduceAndCheck(Reduction, 1, {64u * 4, 1, 1}, {64, 1, 1});
  EXPECT_NE(takeReport().find("group shape fixed"), std::string::npos);
}

// Four queues at once: two dispatch whole groups (the first finalizes the
// variant for them), two a partial last group (the first finalizes the
// kernel's deferred code); each finalization once, the others wait for it.
TEST_F(ShapeVariants, ConcurrentFirstDispatchesOfAShapeOnTwoQueues) {
  hsa_executable_symbol_t K = load(Reduce);
  const uint16_t Group = 128;

  std::vector<std::thread> Threads;
  std::vector<std::vector<uint32_t>> Partials(4);
  std::vector<uint32_t> In(Group * 64);
  for (size_t I = 0; I < In.size(); ++I)
    In[I] = uint32_t(I * 7 % 1000);
  auto ItemsOf = [&](size_t T) {
    return uint32_t(In.size() - (T % 2 ? Group / 2 : 0));
  };
  const uint64_t Object =
      symbolInfo<uint64_t>(K, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT);
  for (size_t T = 0; T < Partials.size(); ++T)
    Threads.emplace_back([&, T] {
      Partials[T].assign(In.size() / Group, ~0u);
      hsa_queue_t *Q = nullptr;
      ASSERT_EQ(hsa_queue_create(Cpu, 16, HSA_QUEUE_TYPE_SINGLE, nullptr,
                                 nullptr, UINT32_MAX, UINT32_MAX, &Q),
                HSA_STATUS_SUCCESS);
      void *Args = nullptr;
      ASSERT_EQ(hsa_memory_allocate(Kernarg, 16, &Args), HSA_STATUS_SUCCESS);
      uint32_t *Ptrs[2] = {In.data(), Partials[T].data()};
      std::memcpy(Args, Ptrs, sizeof(Ptrs));
      hsa_signal_t Done;
      ASSERT_EQ(hsa_signal_create(1, 0, nullptr, &Done), HSA_STATUS_SUCCESS);
      hsa_kernel_dispatch_packet_t P{};
      P.setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
      P.workgroup_size_x = Group;
      P.workgroup_size_y = P.workgroup_size_z = 1;
      P.grid_size_x = ItemsOf(T);
      P.grid_size_y = P.grid_size_z = 1;
      P.group_segment_size = 1024;
      P.kernel_object = Object;
      P.kernarg_address = Args;
      P.completion_signal = Done;
      submit(Q, P);
      while (hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0,
                                       UINT64_MAX, HSA_WAIT_STATE_BLOCKED))
        ;
      EXPECT_EQ(hsa_signal_destroy(Done), HSA_STATUS_SUCCESS);
      EXPECT_EQ(hsa_memory_free(Args), HSA_STATUS_SUCCESS);
      EXPECT_EQ(hsa_queue_destroy(Q), HSA_STATUS_SUCCESS);
    });
  for (std::thread &T : Threads)
    T.join();
  for (size_t T = 0; T < Partials.size(); ++T)
    for (size_t G = 0; G < Partials[T].size(); ++G) {
      const uint32_t Items = std::min<uint32_t>(Group, ItemsOf(T) - G * Group);
      uint32_t Sum = 0;
      for (uint32_t I = 0; I < Items; ++I)
        Sum += In[G * Group + I];
      ASSERT_EQ(Partials[T][G], Sum) << "queue " << T << ", group " << G;
    }
}

// A kernel without barriers, finalized by the program, has code for rows
// of whole waves only (FinalizeRequest::DeferPartialWaveCode): grids and
// groups whose X sizes are multiples of the vector width run it; the first
// other dispatch finalizes the kernel's code with partial waves, and later
// ones run that. Elements past the grid stay as they were.
TEST_F(ShapeVariants, PartialWavesFinalizeTheirCodeAtTheirFirstDispatch) {
  hsa_executable_symbol_t Twice = loadCodeObject(finalizeTwice(), "&twice");
  std::vector<uint32_t> Data = iota(1040), Want = Data;
  // Whole waves: the program's code.
  EXPECT_EQ(twiceOver(Twice, Data, Want, 1024, 64), "");
  // A partial wave in the last group: finalized now.
  EXPECT_NE(twiceOver(Twice, Data, Want, 1000, 64).find("&twice: vectorized"),
            std::string::npos);
  // Groups of 2.5 waves: the same code, already there.
  EXPECT_EQ(twiceOver(Twice, Data, Want, 1024, 40), "");
  EXPECT_EQ(twiceOver(Twice, Data, Want, 1024, 64), "");
}

// A kernel whose control directives fix its groups at 24 work-items along
// X (not whole waves) gets its partial waves' code with the program: every
// dispatch would need it, and the first one would finalize it again.
TEST_F(ShapeVariants, GroupsFixedAtPartialWavesFinalizeNothingLater) {
  std::string Kernel = TwiceKernel;
  Kernel.insert(Kernel.find("\tworkitemabsid"),
                "\trequiredworkgroupsize 24, 1, 1;\n");
  hsa_executable_symbol_t Twice = loadCodeObject(
      finalizeText("module &waves:1:0:$full:$large:$default;\n" + Kernel),
      "&twice");
  std::vector<uint32_t> Data = iota(1040), Want = Data;
  EXPECT_EQ(twiceOver(Twice, Data, Want, 1032, 24), "");
  EXPECT_EQ(twiceOver(Twice, Data, Want, 1000, 24), "");
}

// OPENHSA_DEFER_PARTIAL_WAVES=0: the program's code has partial waves.
TEST_F(ShapeVariants, WithoutDeferralPartialWavesFinalizeNothing) {
  ScopedEnv NoDeferral("OPENHSA_DEFER_PARTIAL_WAVES", "0");
  hsa_executable_symbol_t Twice = loadCodeObject(finalizeTwice(), "&twice");
  std::vector<uint32_t> Data = iota(1040), Want = Data;
  EXPECT_EQ(twiceOver(Twice, Data, Want, 1000, 64), "");
}

// hsa_code_object_serialize writes the kernel's code with partial waves:
// the bytes loaded again run such a dispatch with nothing to finalize.
TEST_F(ShapeVariants, SerializedCodeObjectsHavePartialWaveCode) {
  hsa_executable_symbol_t Twice =
      loadCodeObject(serializedAndBack(finalizeTwice()), "&twice");
  std::vector<uint32_t> Data = iota(1040), Want = Data;
  EXPECT_EQ(twiceOver(Twice, Data, Want, 1000, 64), "");
}

} // namespace
