//===- tests/executable/EndToEndTest.cpp - HSAIL to results on the CPU ----===//
//
// HSAIL text -> BRIG -> program -> finalize -> code object -> executable
// -> kernel dispatch on the CPU agent -> results, through the public API,
// including a code object written by one process and run by another.
//
//===----------------------------------------------------------------------===//
#include "tests/executable/ExecTestSupport.h"

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <unistd.h>

using namespace openhsa::test;

namespace {

/// Set in a child process: the file holding the code object to run.
constexpr const char *ChildEnv = "OPENHSA_EXEC_TEST_CODE_OBJECT";

class EndToEnd : public ExecTest {
protected:
  /// A frozen executable with CO loaded (the 1.0 way) for the CPU agent.
  hsa_executable_t loadFrozen(hsa_code_object_t CO) {
    hsa_executable_t E = makeExecutable();
    EXPECT_EQ(hsa_executable_load_code_object(E, Cpu, CO, nullptr),
              HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_executable_freeze(E, nullptr), HSA_STATUS_SUCCESS);
    return E;
  }
  hsa_executable_symbol_t kernel(hsa_executable_t E, const char *Name) {
    hsa_executable_symbol_t S{0};
    EXPECT_EQ(hsa_executable_get_symbol_by_name(E, Name, &Cpu, &S),
              HSA_STATUS_SUCCESS)
        << Name;
    return S;
  }

  /// Runs &vector_add on N elements in work-groups of Wg (the last one
  /// partial) and checks the sums and that nothing past N was written.
  void runVectorAdd(hsa_executable_t E, uint32_t N, uint16_t Wg) {
    std::vector<uint32_t> A(N), B(N), C(N + 64, 0xdeadbeef);
    for (uint32_t I = 0; I < N; ++I) {
      A[I] = I * 3 + 1;
      B[I] = 1000000 - I;
    }
    struct {
      uint32_t *A, *B, *C;
    } Args{A.data(), B.data(), C.data()};
    ASSERT_TRUE(dispatch(kernel(E, "&vector_add"), &Args, sizeof(Args), N, Wg));
    for (uint32_t I = 0; I < N; ++I)
      ASSERT_EQ(C[I], A[I] + B[I]) << "element " << I;
    for (uint32_t I = N; I < N + 64; ++I)
      ASSERT_EQ(C[I], 0xdeadbeefu) << "element " << I << " past the grid";
  }
};

// Issue 10 item 8: the HSA Foundation's PRM harness creates every program
// with ZERO and adds modules that declare $near. Each module's explicit
// mode governs its own code; the program's fills in for $default modules
// (PRM 4.19.2, 17.2).
TEST_F(EndToEnd, ModulesRoundTheirOwnWayAndDefaultModulesTheProgramsWay) {
  auto Module = [](const char *Name, const char *Round) {
    return std::string("module &m_") + Name + ":1:0:$full:$large:" + Round +
           ";\nprog kernel &" + Name + R"((kernarg_u64 %a, kernarg_u64 %out)
{
	ld_kernarg_align(8)_width(all)_u64	$d0, [%a];
	ld_global_f32	$s0, [$d0];
	ld_global_f32	$s1, [$d0+4];
	add_f32	$s2, $s0, $s1;
	ld_kernarg_align(8)_width(all)_u64	$d1, [%out];
	st_global_f32	$s2, [$d1];
	ret;
};
)";
  };
  for (auto ProgramRound : {HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO,
                            HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR}) {
    hsa_ext_program_t P{0};
    ASSERT_EQ(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, HSA_PROFILE_FULL,
                                     ProgramRound, nullptr, &P),
              HSA_STATUS_SUCCESS);
    std::vector<BrigBlob> Blobs;
    for (auto [Name, Round] :
         {std::pair{"near_mod", "$near"}, std::pair{"zero_mod", "$zero"},
          std::pair{"default_mod", "$default"}}) {
      Blobs.push_back(assemble(Module(Name, Round)));
      ASSERT_FALSE(Blobs.back().empty());
    }
    for (BrigBlob &B : Blobs)
      ASSERT_EQ(hsa_ext_program_add_module(P, B.module()), HSA_STATUS_SUCCESS);
    hsa_code_object_t CO{0};
    ASSERT_EQ(hsa_ext_program_finalize(P, Isa, 0, noDirectives(), nullptr,
                                       HSA_CODE_OBJECT_TYPE_PROGRAM, &CO),
              HSA_STATUS_SUCCESS);
    // The executable's rounding must be the code object's.
    hsa_executable_t E{0};
    ASSERT_EQ(
        hsa_executable_create_alt(HSA_PROFILE_FULL, ProgramRound, nullptr, &E),
        HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_executable_load_code_object(E, Cpu, CO, nullptr),
              HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_executable_freeze(E, nullptr), HSA_STATUS_SUCCESS);
    // 1 + 0.75 ulp: to nearest it is 1 + ulp, toward zero 1.
    float In[2] = {1.0f, 0x1.8p-24f};
    auto Run = [&](const char *Kernel) {
      float Out = 0;
      struct {
        float *In, *Out;
      } Args{In, &Out};
      EXPECT_TRUE(dispatch(this->kernel(E, Kernel), &Args, sizeof(Args), 1, 1));
      return Out;
    };
    EXPECT_EQ(Run("&near_mod"), 1.0f + 0x1p-23f);
    EXPECT_EQ(Run("&zero_mod"), 1.0f);
    EXPECT_EQ(Run("&default_mod"),
              ProgramRound == HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO
                  ? 1.0f
                  : 1.0f + 0x1p-23f);
    EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_ext_program_destroy(P), HSA_STATUS_SUCCESS);
  }
}

TEST_F(EndToEnd, VectorAddThroughSerializedCodeObject) {
  hsa_code_object_t CO = finalizeText(VectorAddHsail);
  ASSERT_NE(CO.handle, 0u);
  // Serialize, drop the original, deserialize: the copy runs.
  std::vector<uint8_t> Bytes = serialize(CO);
  ASSERT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
  hsa_code_object_t Copy{0};
  ASSERT_EQ(
      hsa_code_object_deserialize(Bytes.data(), Bytes.size(), nullptr, &Copy),
      HSA_STATUS_SUCCESS);
  hsa_executable_t E = loadFrozen(Copy);
  runVectorAdd(E, 1000, 64); // 15 full work-groups and one of 40.
  runVectorAdd(E, 1, 256);
  runVectorAdd(E, 4096, 256);
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(Copy), HSA_STATUS_SUCCESS);
}

TEST_F(EndToEnd, VectorAddThroughReader) {
  hsa_code_object_t CO = finalizeText(VectorAddHsail);
  ASSERT_NE(CO.handle, 0u);
  std::vector<uint8_t> Bytes = serialize(CO);
  ASSERT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
  hsa_code_object_reader_t Reader{0};
  ASSERT_EQ(hsa_code_object_reader_create_from_memory(Bytes.data(),
                                                      Bytes.size(), &Reader),
            HSA_STATUS_SUCCESS);
  hsa_executable_t E = makeExecutable();
  ASSERT_EQ(
      hsa_executable_load_program_code_object(E, Reader, nullptr, nullptr),
      HSA_STATUS_SUCCESS);
  hsa_loaded_code_object_t Loaded{0};
  ASSERT_EQ(
      hsa_executable_load_agent_code_object(E, Cpu, Reader, nullptr, &Loaded),
      HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_executable_freeze(E, nullptr), HSA_STATUS_SUCCESS);
  // The reader may go once loaded.
  ASSERT_EQ(hsa_code_object_reader_destroy(Reader), HSA_STATUS_SUCCESS);
  runVectorAdd(E, 777, 100);
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
}

TEST_F(EndToEnd, WorkItemQueriesAndBranches) {
  hsa_code_object_t CO = finalizeText(VectorAddHsail);
  ASSERT_NE(CO.handle, 0u);
  hsa_executable_t E = loadFrozen(CO);
  const uint32_t Grid = 300, Limit = 250;
  const uint16_t Wg = 64;
  std::vector<uint32_t> Out(2 * Grid, 0xffffffff);
  struct {
    uint32_t *Out;
    uint32_t Limit;
  } Args{Out.data(), Limit};
  ASSERT_TRUE(dispatch(kernel(E, "&ids"), &Args, sizeof(Args), Grid, Wg));
  for (uint32_t I = 0; I < Grid; ++I) {
    if (I >= Limit) {
      EXPECT_EQ(Out[2 * I], 0xffffffffu) << I;
      continue;
    }
    EXPECT_EQ(Out[2 * I], (I / Wg) * 1000 + I % Wg) << I;
    EXPECT_EQ(Out[2 * I + 1], Grid * 1000 + Wg) << I;
  }
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
}

// A 3-D dispatch through the runtime's dispatcher, whose workers claim
// chunks of work-groups that span rows and planes of the grid: every
// work-item sees its own work-group's ids and sizes, with partial
// work-groups in all three dimensions.
TEST_F(EndToEnd, PartialWorkGroupsInThreeDimensionsSeeTheirOwnIds) {
  hsa_code_object_t CO = finalizeText(R"(
module &m:1:0:$full:$large:$default;
prog kernel &ids3(kernarg_u64 %out)
{
	workitemflatabsid_u32	$s0;
	cvt_u64_u32	$d0, $s0;
	mul_u64	$d0, $d0, 32;
	ld_kernarg_u64	$d1, [%out];
	add_u64	$d1, $d1, $d0;
	workgroupid_u32	$s1, 0;
	st_global_u32	$s1, [$d1];
	workgroupid_u32	$s1, 1;
	st_global_u32	$s1, [$d1+4];
	workgroupid_u32	$s1, 2;
	st_global_u32	$s1, [$d1+8];
	workitemid_u32	$s1, 0;
	st_global_u32	$s1, [$d1+12];
	workitemid_u32	$s1, 1;
	st_global_u32	$s1, [$d1+16];
	workitemid_u32	$s1, 2;
	st_global_u32	$s1, [$d1+20];
	currentworkgroupsize_u32	$s1, 0;
	st_global_u32	$s1, [$d1+24];
	currentworkgroupsize_u32	$s1, 1;
	st_global_u32	$s1, [$d1+28];
};
)");
  ASSERT_NE(CO.handle, 0u);
  hsa_executable_t E = loadFrozen(CO);
  const std::array<uint32_t, 3> Grid{1000, 37, 3};
  const std::array<uint16_t, 3> Wg{16, 8, 2};
  const size_t Items = size_t(Grid[0]) * Grid[1] * Grid[2];
  std::vector<std::array<uint32_t, 8>> Out(Items);
  for (auto &R : Out)
    R.fill(0xffffffff);
  void *Args = Out.data();
  ASSERT_TRUE(dispatch(kernel(E, "&ids3"), &Args, sizeof(Args), 3, Grid, Wg));
  for (uint32_t Z = 0; Z < Grid[2]; ++Z)
    for (uint32_t Y = 0; Y < Grid[1]; ++Y)
      for (uint32_t X = 0; X < Grid[0]; ++X) {
        const uint32_t Gx = X / Wg[0], Gy = Y / Wg[1], Gz = Z / Wg[2];
        const std::array<uint32_t, 8> Expected{
            Gx,
            Gy,
            Gz,
            X % Wg[0],
            Y % Wg[1],
            Z % Wg[2],
            std::min<uint32_t>(Wg[0], Grid[0] - Gx * Wg[0]),
            std::min<uint32_t>(Wg[1], Grid[1] - Gy * Wg[1])};
        ASSERT_EQ(Out[X + Y * Grid[0] + size_t(Z) * Grid[0] * Grid[1]],
                  Expected)
            << "work-item (" << X << ", " << Y << ", " << Z << ")";
      }
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
}

TEST_F(EndToEnd, ArithmeticAndSegments) {
  hsa_code_object_t CO = finalizeText(VectorAddHsail);
  ASSERT_NE(CO.handle, 0u);
  hsa_executable_t E = loadFrozen(CO);
  const uint32_t N = 200;
  std::vector<uint32_t> X(N), Y(N), Out(9 * N, 0);
  for (uint32_t I = 0; I < N; ++I) {
    X[I] = 0x9e3779b9u * (I + 1);
    Y[I] = (I % 7) + 1 + (I << 4);
  }
  struct {
    uint32_t *X, *Y, *Out;
  } Args{X.data(), Y.data(), Out.data()};
  ASSERT_TRUE(dispatch(kernel(E, "&arith"), &Args, sizeof(Args), N, 64));
  for (uint32_t I = 0; I < N; ++I) {
    const uint32_t A = X[I], B = Y[I];
    const uint32_t Want[9] = {A + B,  A - B, A * B, A / B, A << 3,
                              A >> 2, A & B, A | B, A ^ B};
    for (int K = 0; K < 9; ++K)
      ASSERT_EQ(Out[9 * I + K], Want[K]) << "item " << I << " result " << K;
  }
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
}

TEST_F(EndToEnd, InitializedVariables) {
  hsa_code_object_t CO = finalizeText(VectorAddHsail);
  ASSERT_NE(CO.handle, 0u);
  hsa_executable_t E = loadFrozen(CO);
  std::vector<uint32_t> Out(10, 0);
  uint32_t *OutPtr = Out.data();
  ASSERT_TRUE(dispatch(kernel(E, "&use_vars"), &OutPtr, sizeof(OutPtr), 10, 4));
  const uint32_t Table[4] = {10, 20, 30, 40};
  for (uint32_t I = 0; I < 10; ++I)
    EXPECT_EQ(Out[I], Table[I % 4] + 5) << I;

  // The program variable is live memory the host sees and may change.
  hsa_executable_symbol_t Bias{0};
  ASSERT_EQ(hsa_executable_get_symbol_by_name(E, "&bias", nullptr, &Bias),
            HSA_STATUS_SUCCESS);
  auto *BiasPtr = reinterpret_cast<uint32_t *>(
      symbolInfo<uint64_t>(Bias, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS));
  ASSERT_NE(BiasPtr, nullptr);
  *BiasPtr = 100;
  ASSERT_TRUE(dispatch(kernel(E, "&use_vars"), &OutPtr, sizeof(OutPtr), 10, 4));
  for (uint32_t I = 0; I < 10; ++I)
    EXPECT_EQ(Out[I], Table[I % 4] + 100) << I;

  // A second executable gets its own copy of the variables.
  hsa_executable_t F = loadFrozen(CO);
  ASSERT_TRUE(dispatch(kernel(F, "&use_vars"), &OutPtr, sizeof(OutPtr), 10, 4));
  for (uint32_t I = 0; I < 10; ++I)
    EXPECT_EQ(Out[I], Table[I % 4] + 5) << I;
  EXPECT_EQ(hsa_executable_destroy(F), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
}

TEST_F(EndToEnd, ExternalVariablesBindToTheApplicationsAddress) {
  hsa_code_object_t CO = finalizeText(R"(module &ext:1:0:$full:$large:$default;

decl prog global_u32 &ext_value;
decl prog readonly_u32 &ext_table[2];

prog kernel &read_ext(kernarg_u64 %out)
{
    ld_kernarg_u64 $d0, [%out];
    ld_global_u32 $s0, [&ext_value];
    st_global_u32 $s0, [$d0];
    add_u32 $s0, $s0, 1;
    st_global_u32 $s0, [&ext_value];
    ld_readonly_u32 $s0, [&ext_table];
    st_global_u32 $s0, [$d0+4];
    ld_readonly_u32 $s0, [&ext_table][4];
    st_global_u32 $s0, [$d0+8];
    ret;
};
)");
  ASSERT_NE(CO.handle, 0u);
  hsa_executable_t E = makeExecutable();
  uint32_t Value = 41;
  const uint32_t Table[2] = {7, 9};
  ASSERT_EQ(hsa_executable_global_variable_define(E, "&ext_value", &Value),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_executable_readonly_variable_define(
                E, Cpu, "&ext_table", const_cast<uint32_t *>(Table)),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_executable_load_code_object(E, Cpu, CO, nullptr),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_executable_freeze(E, nullptr), HSA_STATUS_SUCCESS);
  uint32_t Out[3] = {0, 0, 0};
  uint32_t *OutPtr = Out;
  ASSERT_TRUE(dispatch(kernel(E, "&read_ext"), &OutPtr, sizeof(OutPtr), 1, 1));
  EXPECT_EQ(Out[0], 41u);
  EXPECT_EQ(Out[1], 7u);
  EXPECT_EQ(Out[2], 9u);
  EXPECT_EQ(Value, 42u); // The kernel wrote the application's variable.
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
}

TEST_F(EndToEnd, ProgramOfTwoModules) {
  // A kernel in one module uses a variable another module defines.
  BrigBlob Def = assemble(R"(module &def:1:0:$full:$large:$default;
prog global_u32 &shared = 1234;
)");
  BrigBlob Use = assemble(R"(module &use:1:0:$full:$large:$default;
decl prog global_u32 &shared;
prog kernel &read_shared(kernarg_u64 %out)
{
    ld_kernarg_u64 $d0, [%out];
    ld_global_u32 $s0, [&shared];
    st_global_u32 $s0, [$d0];
    ret;
};
)");
  ASSERT_FALSE(Def.empty() || Use.empty());
  hsa_ext_program_t P = makeProgram({&Use, &Def});
  hsa_code_object_t CO{0};
  ::testing::internal::CaptureStderr();
  hsa_status_t S = hsa_ext_program_finalize(
      P, Isa, HSA_EXT_FINALIZER_CALL_CONVENTION_AUTO, noDirectives(), nullptr,
      HSA_CODE_OBJECT_TYPE_PROGRAM, &CO);
  std::string Err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(S, HSA_STATUS_SUCCESS) << Err;
  EXPECT_EQ(hsa_ext_program_destroy(P), HSA_STATUS_SUCCESS);
  hsa_executable_t E = makeExecutable();
  ::testing::internal::CaptureStderr();
  S = hsa_executable_load_code_object(E, Cpu, CO, nullptr);
  Err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(S, HSA_STATUS_SUCCESS) << Err;
  ASSERT_EQ(hsa_executable_freeze(E, nullptr), HSA_STATUS_SUCCESS);
  uint32_t Out = 0;
  uint32_t *OutPtr = &Out;
  ASSERT_TRUE(
      dispatch(kernel(E, "&read_shared"), &OutPtr, sizeof(OutPtr), 1, 1));
  EXPECT_EQ(Out, 1234u);
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
}

TEST_F(EndToEnd, IndirectFunctionThroughItsObject) {
  hsa_code_object_t CO = finalizeText(R"(module &ind:1:0:$full:$large:$default;

signature &sig(arg_u32 %r)(arg_u32 %x);

prog indirect function &twice(arg_u32 %r)(arg_u32 %x)
{
    ld_arg_u32 $s0, [%x];
    add_u32 $s0, $s0, $s0;
    st_arg_u32 $s0, [%r];
    ret;
};

prog kernel &call_twice(kernarg_u64 %out, kernarg_u64 %fn)
{
    ld_kernarg_u64 $d0, [%out];
    ld_kernarg_u64 $d1, [%fn];
    {
        arg_u32 %r;
        arg_u32 %x;
        st_arg_u32 21, [%x];
        icall_u64 $d1 (%r) (%x) &sig;
        ld_arg_u32 $s0, [%r];
    }
    st_global_u32 $s0, [$d0];
    ret;
};
)");
  ASSERT_NE(CO.handle, 0u);
  hsa_code_symbol_t CodeSym{0};
  ASSERT_EQ(hsa_code_object_get_symbol(CO, "&twice", &CodeSym),
            HSA_STATUS_SUCCESS);
  hsa_symbol_kind_t Kind = HSA_SYMBOL_KIND_VARIABLE;
  EXPECT_EQ(hsa_code_symbol_get_info(CodeSym, HSA_CODE_SYMBOL_INFO_TYPE, &Kind),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(Kind, HSA_SYMBOL_KIND_INDIRECT_FUNCTION);
  uint32_t Convention = 7;
  EXPECT_EQ(hsa_code_symbol_get_info(
                CodeSym, HSA_CODE_SYMBOL_INFO_INDIRECT_FUNCTION_CALL_CONVENTION,
                &Convention),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(Convention, 0u);

  hsa_executable_t E = makeExecutable();
  ASSERT_EQ(hsa_executable_load_code_object(E, Cpu, CO, nullptr),
            HSA_STATUS_SUCCESS);
  hsa_executable_symbol_t F{0};
  ASSERT_EQ(hsa_executable_get_symbol_by_name(E, "&twice", &Cpu, &F),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(symbolInfo<hsa_symbol_kind_t>(F, HSA_EXECUTABLE_SYMBOL_INFO_TYPE),
            HSA_SYMBOL_KIND_INDIRECT_FUNCTION);
  EXPECT_EQ(symbolInfo<uint64_t>(
                F, HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_OBJECT),
            0u); // Not frozen yet.
  ASSERT_EQ(hsa_executable_freeze(E, nullptr), HSA_STATUS_SUCCESS);
  EXPECT_EQ(symbolInfo<hsa_agent_t>(F, HSA_EXECUTABLE_SYMBOL_INFO_AGENT).handle,
            Cpu.handle);
  EXPECT_EQ(
      symbolInfo<uint32_t>(
          F, HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_CALL_CONVENTION),
      0u);
  const uint64_t Object = symbolInfo<uint64_t>(
      F, HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_OBJECT);
  ASSERT_NE(Object, 0u);
  uint64_t Ignored;
  EXPECT_EQ(hsa_executable_symbol_get_info(
                F, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &Ignored),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);

  uint32_t Out = 0;
  struct {
    uint32_t *Out;
    uint64_t Fn;
  } Args{&Out, Object};
  ASSERT_TRUE(dispatch(kernel(E, "&call_twice"), &Args, sizeof(Args), 1, 1));
  EXPECT_EQ(Out, 42u);
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
}

// A code object serialized to a file here is loaded and run by another
// process (this binary, run again on the DISABLED_ test below).
TEST_F(EndToEnd, CodeObjectFromAnotherProcess) {
  hsa_code_object_t CO = finalizeText(VectorAddHsail);
  ASSERT_NE(CO.handle, 0u);
  std::vector<uint8_t> Bytes = serialize(CO);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
  char Path[] = "/tmp/openhsa-exec-co-XXXXXX";
  int Fd = mkstemp(Path);
  ASSERT_GE(Fd, 0);
  ASSERT_EQ(write(Fd, Bytes.data(), Bytes.size()), ssize_t(Bytes.size()));
  close(Fd);
  const int Status = runChild({"--gtest_also_run_disabled_tests",
                               "--gtest_filter=EndToEnd.DISABLED_ChildLoads"
                               "CodeObjectFromFile"},
                              ChildEnv, Path);
  unlink(Path);
  EXPECT_EQ(Status, 0) << "the child process failed";
}

TEST_F(EndToEnd, DISABLED_ChildLoadsCodeObjectFromFile) {
  const char *Path = std::getenv(ChildEnv);
  if (!Path)
    GTEST_SKIP() << "run by CodeObjectFromAnotherProcess";
  int Fd = open(Path, O_RDONLY);
  ASSERT_GE(Fd, 0) << Path;
  hsa_code_object_reader_t Reader{0};
  ASSERT_EQ(hsa_code_object_reader_create_from_file(Fd, &Reader),
            HSA_STATUS_SUCCESS);
  hsa_executable_t E = makeExecutable();
  ASSERT_EQ(
      hsa_executable_load_agent_code_object(E, Cpu, Reader, nullptr, nullptr),
      HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_executable_freeze(E, nullptr), HSA_STATUS_SUCCESS);
  runVectorAdd(E, 513, 128);
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_reader_destroy(Reader), HSA_STATUS_SUCCESS);
  close(Fd);
}

} // namespace

namespace {

/// Collects every CPU kernel agent (not the agent dispatch agents).
hsa_status_t collectCpus(hsa_agent_t A, void *Data) {
  hsa_device_type_t Type;
  uint32_t Feature = 0;
  if (hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &Type) !=
          HSA_STATUS_SUCCESS ||
      hsa_agent_get_info(A, HSA_AGENT_INFO_FEATURE, &Feature) !=
          HSA_STATUS_SUCCESS)
    return HSA_STATUS_ERROR;
  if (Type == HSA_DEVICE_TYPE_CPU &&
      (Feature & HSA_AGENT_FEATURE_KERNEL_DISPATCH))
    static_cast<std::vector<hsa_agent_t> *>(Data)->push_back(A);
  return HSA_STATUS_SUCCESS;
}

/// hwloc's synthetic topology with two packages: two CPU agents anywhere.
constexpr const char *TwoPackages = "pack:2 core:2 pu:1";

} // namespace

// One program loaded for two agents in one executable: its program-
// allocation variable is one variable (PRM 2.8.1), its agent-allocation
// variable one per agent. Run in a child process that sees two packages.
TEST_F(EndToEnd, ProgramVariablesAcrossTwoAgents) {
  const int Status = runChild({"--gtest_also_run_disabled_tests",
                               "--gtest_filter=EndToEnd.DISABLED_TwoAgents"
                               "ShareProgramVariables"},
                              "HWLOC_SYNTHETIC", TwoPackages);
  EXPECT_EQ(Status, 0) << "the child process failed";
}

TEST_F(EndToEnd, DISABLED_TwoAgentsShareProgramVariables) {
  const char *Synthetic = std::getenv("HWLOC_SYNTHETIC");
  if (!Synthetic || std::string(Synthetic) != TwoPackages)
    GTEST_SKIP() << "run by ProgramVariablesAcrossTwoAgents";
  std::vector<hsa_agent_t> Cpus;
  ASSERT_EQ(hsa_iterate_agents(collectCpus, &Cpus), HSA_STATUS_SUCCESS);
  ASSERT_EQ(Cpus.size(), 2u);

  // Each dispatch adds 1 to both counters and reports what it saw.
  hsa_code_object_t CO = finalizeText(moduleHeader("two_agents") + R"(
prog global_u32 &shared = 40;
prog alloc(agent) global_u32 &per_agent = 7;
prog kernel &bump(kernarg_u64 %out)
{
	ld_kernarg_u64	$d0, [%out];
	atomic_add_global_scar_agent_u32	$s0, [&shared], 1;
	atomic_add_global_scar_agent_u32	$s1, [&per_agent], 1;
	st_global_u32	$s0, [$d0];
	st_global_u32	$s1, [$d0 + 4];
	ret;
};
)");
  ASSERT_NE(CO.handle, 0u);
  hsa_executable_t E = makeExecutable();
  for (hsa_agent_t A : Cpus)
    ASSERT_EQ(hsa_executable_load_code_object(E, A, CO, nullptr),
              HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_executable_freeze(E, nullptr), HSA_STATUS_SUCCESS);

  auto Address = [&](const char *Name, hsa_agent_t A) {
    hsa_executable_symbol_t S{0};
    EXPECT_EQ(hsa_executable_get_symbol_by_name(E, Name, &A, &S),
              HSA_STATUS_SUCCESS)
        << Name;
    return symbolInfo<uint64_t>(S, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS);
  };
  EXPECT_EQ(Address("&shared", Cpus[0]), Address("&shared", Cpus[1]));
  EXPECT_NE(Address("&per_agent", Cpus[0]), Address("&per_agent", Cpus[1]));

  uint32_t Seen[2] = {0, 0};
  struct {
    uint32_t *Out;
  } Args{Seen};
  const uint32_t Expected[][2] = {{40, 7}, {41, 7}, {42, 8}};
  const unsigned On[] = {0, 1, 1};
  for (unsigned Step = 0; Step < 3; ++Step) {
    if (Queue) {
      ASSERT_EQ(hsa_queue_destroy(Queue), HSA_STATUS_SUCCESS);
      Queue = nullptr;
    }
    Cpu = Cpus[On[Step]]; // dispatch() queues on Cpu.
    hsa_executable_symbol_t K{0};
    ASSERT_EQ(hsa_executable_get_symbol_by_name(E, "&bump", &Cpu, &K),
              HSA_STATUS_SUCCESS);
    ASSERT_TRUE(dispatch(K, &Args, sizeof(Args), 1, 1));
    EXPECT_EQ(Seen[0], Expected[Step][0]) << "step " << Step;
    EXPECT_EQ(Seen[1], Expected[Step][1]) << "step " << Step;
  }
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
}
