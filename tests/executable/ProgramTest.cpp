//===- tests/executable/ProgramTest.cpp - The finalizer extension ---------===//
//
// hsa_ext_program_* (HSA Runtime 3.2): the extension queries and table,
// programs and their modules, and every error path of finalization.
//
//===----------------------------------------------------------------------===//
#include "tests/executable/ExecTestSupport.h"

#include "brig/asm/Assembler.h"

#include <array>

using namespace openhsa::test;

namespace {

const std::string KernelBody = R"(
prog kernel &k(kernarg_u64 %out)
{
    ld_kernarg_u64 $d0, [%out];
    st_global_u32 1, [$d0];
    ret;
};
)";

class Program : public ExecTest {};

TEST(ProgramNoRuntime, EntryPointsNeedTheRuntime) {
  hsa_ext_program_t P{0};
  EXPECT_EQ(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, HSA_PROFILE_FULL,
                                   HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                   nullptr, &P),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_ext_program_destroy(P), HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_ext_program_add_module(P, nullptr),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
  hsa_code_object_t CO{0};
  EXPECT_EQ(hsa_ext_program_finalize(P, {0}, 0, noDirectives(), nullptr,
                                     HSA_CODE_OBJECT_TYPE_PROGRAM, &CO),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
  hsa_executable_t E{0};
  EXPECT_EQ(hsa_executable_create_alt(HSA_PROFILE_FULL,
                                      HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR,
                                      nullptr, &E),
            HSA_STATUS_ERROR_NOT_INITIALIZED);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_ERROR_NOT_INITIALIZED);
}

TEST_F(Program, ExtensionIsSupportedWithItsTable) {
  bool Supported = false;
  EXPECT_EQ(
      hsa_system_extension_supported(HSA_EXTENSION_FINALIZER, 1, 0, &Supported),
      HSA_STATUS_SUCCESS);
  EXPECT_TRUE(Supported);
  uint16_t Minor = 99;
  Supported = false;
  EXPECT_EQ(hsa_system_major_extension_supported(HSA_EXTENSION_FINALIZER, 1,
                                                 &Minor, &Supported),
            HSA_STATUS_SUCCESS);
  EXPECT_TRUE(Supported);
  EXPECT_EQ(Minor, 0);
  EXPECT_EQ(hsa_system_major_extension_supported(HSA_EXTENSION_FINALIZER, 2,
                                                 &Minor, &Supported),
            HSA_STATUS_SUCCESS);
  EXPECT_FALSE(Supported);

  hsa_ext_finalizer_1_00_pfn_t Table;
  std::memset(&Table, 0, sizeof(Table));
  ASSERT_EQ(
      hsa_system_get_extension_table(HSA_EXTENSION_FINALIZER, 1, 0, &Table),
      HSA_STATUS_SUCCESS);
  EXPECT_EQ(Table.hsa_ext_program_create, &hsa_ext_program_create);
  EXPECT_EQ(Table.hsa_ext_program_destroy, &hsa_ext_program_destroy);
  EXPECT_EQ(Table.hsa_ext_program_add_module, &hsa_ext_program_add_module);
  EXPECT_EQ(Table.hsa_ext_program_iterate_modules,
            &hsa_ext_program_iterate_modules);
  EXPECT_EQ(Table.hsa_ext_program_get_info, &hsa_ext_program_get_info);
  EXPECT_EQ(Table.hsa_ext_program_finalize, &hsa_ext_program_finalize);
  hsa_ext_finalizer_1_00_pfn_t Major;
  std::memset(&Major, 0, sizeof(Major));
  ASSERT_EQ(hsa_system_get_major_extension_table(HSA_EXTENSION_FINALIZER, 1,
                                                 sizeof(Major), &Major),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(std::memcmp(&Major, &Table, sizeof(Table)), 0);
  EXPECT_EQ(
      hsa_system_get_extension_table(HSA_EXTENSION_FINALIZER, 1, 1, &Table),
      HSA_STATUS_ERROR_INVALID_ARGUMENT);

  // The system and agent masks name it.
  std::array<uint8_t, 128> Mask{};
  ASSERT_EQ(hsa_system_get_info(HSA_SYSTEM_INFO_EXTENSIONS, Mask.data()),
            HSA_STATUS_SUCCESS);
  EXPECT_TRUE(Mask[0] & (1u << HSA_EXTENSION_FINALIZER));
  Mask.fill(0);
  ASSERT_EQ(hsa_agent_get_info(Cpu, HSA_AGENT_INFO_EXTENSIONS, Mask.data()),
            HSA_STATUS_SUCCESS);
  EXPECT_TRUE(Mask[0] & (1u << HSA_EXTENSION_FINALIZER));
  Supported = false;
  EXPECT_EQ(hsa_agent_extension_supported(HSA_EXTENSION_FINALIZER, Cpu, 1, 0,
                                          &Supported),
            HSA_STATUS_SUCCESS);
  EXPECT_TRUE(Supported);
}

TEST_F(Program, CreateChecksItsArguments) {
  hsa_ext_program_t P{0};
  EXPECT_EQ(hsa_ext_program_create(hsa_machine_model_t(2), HSA_PROFILE_FULL,
                                   HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                   nullptr, &P),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, hsa_profile_t(7),
                                   HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                   nullptr, &P),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, HSA_PROFILE_FULL,
                                   hsa_default_float_rounding_mode_t(3),
                                   nullptr, &P),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, HSA_PROFILE_FULL,
                                   HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                   nullptr, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(hsa_ext_program_create(HSA_MACHINE_MODEL_SMALL, HSA_PROFILE_BASE,
                                   HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO,
                                   "-vendor_option", &P),
            HSA_STATUS_SUCCESS);

  hsa_machine_model_t Model;
  hsa_profile_t Profile;
  hsa_default_float_rounding_mode_t Rounding;
  EXPECT_EQ(
      hsa_ext_program_get_info(P, HSA_EXT_PROGRAM_INFO_MACHINE_MODEL, &Model),
      HSA_STATUS_SUCCESS);
  EXPECT_EQ(Model, HSA_MACHINE_MODEL_SMALL);
  EXPECT_EQ(hsa_ext_program_get_info(P, HSA_EXT_PROGRAM_INFO_PROFILE, &Profile),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(Profile, HSA_PROFILE_BASE);
  EXPECT_EQ(hsa_ext_program_get_info(
                P, HSA_EXT_PROGRAM_INFO_DEFAULT_FLOAT_ROUNDING_MODE, &Rounding),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(Rounding, HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO);
  EXPECT_EQ(hsa_ext_program_get_info(P, hsa_ext_program_info_t(3), &Model),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_ext_program_get_info(P, HSA_EXT_PROGRAM_INFO_PROFILE, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_ext_program_destroy(P), HSA_STATUS_SUCCESS);
}

TEST_F(Program, HandlesAreChecked) {
  const hsa_ext_program_t Bogus{0x1234560};
  hsa_profile_t Profile;
  EXPECT_EQ(int(hsa_ext_program_destroy(Bogus)),
            HSA_EXT_STATUS_ERROR_INVALID_PROGRAM);
  EXPECT_EQ(int(hsa_ext_program_get_info(Bogus, HSA_EXT_PROGRAM_INFO_PROFILE,
                                         &Profile)),
            HSA_EXT_STATUS_ERROR_INVALID_PROGRAM);
  EXPECT_EQ(int(hsa_ext_program_add_module(Bogus, nullptr)),
            HSA_EXT_STATUS_ERROR_INVALID_PROGRAM);
  EXPECT_EQ(int(hsa_ext_program_iterate_modules(
                Bogus,
                [](hsa_ext_program_t, hsa_ext_module_t, void *) {
                  return HSA_STATUS_SUCCESS;
                },
                nullptr)),
            HSA_EXT_STATUS_ERROR_INVALID_PROGRAM);
  hsa_code_object_t CO{0};
  EXPECT_EQ(int(hsa_ext_program_finalize(Bogus, Isa, 0, noDirectives(), nullptr,
                                         HSA_CODE_OBJECT_TYPE_PROGRAM, &CO)),
            HSA_EXT_STATUS_ERROR_INVALID_PROGRAM);

  // A destroyed program is gone.
  hsa_ext_program_t P = makeProgram({});
  EXPECT_EQ(hsa_ext_program_destroy(P), HSA_STATUS_SUCCESS);
  EXPECT_EQ(int(hsa_ext_program_destroy(P)),
            HSA_EXT_STATUS_ERROR_INVALID_PROGRAM);
}

TEST_F(Program, AddModuleChecksTheModule) {
  hsa_ext_program_t P = makeProgram({});
  EXPECT_EQ(int(hsa_ext_program_add_module(P, nullptr)),
            HSA_EXT_STATUS_ERROR_INVALID_MODULE);

  // Not BRIG at all.
  BrigBlob Garbage(std::vector<uint8_t>(512, 0xab));
  EXPECT_EQ(int(hsa_ext_program_add_module(P, Garbage.module())),
            HSA_EXT_STATUS_ERROR_INVALID_MODULE);

  // A valid container whose code the validator rejects: an operand offset
  // pointing past the end of the operand section.
  BrigBlob Good = assemble(moduleHeader("m") + KernelBody);
  ASSERT_FALSE(Good.empty());
  BrigBlob Corrupt = Good;
  // Truncate: byteCount says more than the sections hold.
  uint64_t ByteCount;
  std::memcpy(&ByteCount, Corrupt.data() + 16, 8);
  uint64_t Smaller = ByteCount - 4;
  std::memcpy(Corrupt.data() + 16, &Smaller, 8);
  EXPECT_EQ(int(hsa_ext_program_add_module(P, Corrupt.module())),
            HSA_EXT_STATUS_ERROR_INVALID_MODULE);

  EXPECT_EQ(hsa_ext_program_add_module(P, Good.module()), HSA_STATUS_SUCCESS);
  EXPECT_EQ(int(hsa_ext_program_add_module(P, Good.module())),
            HSA_EXT_STATUS_ERROR_MODULE_ALREADY_INCLUDED);
  EXPECT_EQ(hsa_ext_program_destroy(P), HSA_STATUS_SUCCESS);
}

TEST_F(Program, AddModuleChecksTheSemanticRules) {
  // Well-formed BRIG that breaks a rule the assembler enforces on text (ftz
  // on an integer add), built with the assembler's rules off.
  const std::string Text = moduleHeader("m") + R"(
prog kernel &k(kernarg_u64 %out)
{
    add_ftz_u32 $s1, $s2, $s3;
    ret;
};
)";
  openhsa::brig::assembler::AssembleOptions NoRules;
  NoRules.CheckSemantics = false;
  auto Bytes = openhsa::brig::assembler::assembleHsail(Text, NoRules);
  ASSERT_TRUE(bool(Bytes)) << llvm::toString(Bytes.takeError());
  BrigBlob Bad(*Bytes);
  hsa_ext_program_t P = makeProgram({});
  EXPECT_EQ(int(hsa_ext_program_add_module(P, Bad.module())),
            HSA_EXT_STATUS_ERROR_INVALID_MODULE);
  EXPECT_EQ(hsa_ext_program_destroy(P), HSA_STATUS_SUCCESS);
}

// Runtime 2.6 (hsa_ext_program_add_module): only the machine model and the
// profile make a module incompatible; a module's own rounding mode does not
// (each module's explicit mode governs its code: EndToEnd.
// ModulesRoundTheirOwnWayAndDefaultModulesTheProgramsWay).
TEST_F(Program, AddModuleChecksModelAndProfileNotRounding) {
  hsa_ext_program_t P{0};
  ASSERT_EQ(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, HSA_PROFILE_FULL,
                                   HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR,
                                   nullptr, &P),
            HSA_STATUS_SUCCESS);
  BrigBlob Small = assemble(moduleHeader("s", "$full", "$small") + R"(
prog kernel &k(kernarg_u32 %out)
{
    ret;
};
)");
  BrigBlob Base = assemble(moduleHeader("b", "$base") + KernelBody);
  BrigBlob Zero =
      assemble(moduleHeader("z", "$full", "$large", "$zero") + KernelBody);
  BrigBlob Near =
      assemble(moduleHeader("n", "$full", "$large", "$near") + KernelBody);
  ASSERT_FALSE(Small.empty() || Base.empty() || Zero.empty() || Near.empty());
  EXPECT_EQ(int(hsa_ext_program_add_module(P, Small.module())),
            HSA_EXT_STATUS_ERROR_INCOMPATIBLE_MODULE);
  EXPECT_EQ(int(hsa_ext_program_add_module(P, Base.module())),
            HSA_EXT_STATUS_ERROR_INCOMPATIBLE_MODULE);
  EXPECT_EQ(hsa_ext_program_add_module(P, Zero.module()), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_ext_program_destroy(P), HSA_STATUS_SUCCESS);

  // A program of the default rounding takes modules of either mode too.
  BrigBlob NearOther =
      assemble(moduleHeader("n2", "$full", "$large", "$near") + R"(
prog kernel &k2(kernarg_u64 %out)
{
    ret;
};
)");
  ASSERT_FALSE(NearOther.empty());
  hsa_ext_program_t Q = makeProgram({&Zero});
  EXPECT_EQ(hsa_ext_program_add_module(Q, NearOther.module()),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_ext_program_destroy(Q), HSA_STATUS_SUCCESS);
}

TEST_F(Program, AddModuleChecksProgramSymbols) {
  BrigBlob A = assemble(moduleHeader("a") + KernelBody);
  BrigBlob B = assemble(moduleHeader("b") + KernelBody);
  BrigBlob VarDef = assemble(moduleHeader("vd") + "prog global_u32 &x = 1;\n");
  BrigBlob VarDecl =
      assemble(moduleHeader("vc") + "decl prog global_u32 &x;\n");
  BrigBlob VarDeclF32 =
      assemble(moduleHeader("vf") + "decl prog global_f32 &x;\n");
  BrigBlob VarDef2 = assemble(moduleHeader("v2") + "prog global_u32 &x = 2;\n");
  // Module linkage: the same name in two modules does not clash.
  BrigBlob LocalA = assemble(moduleHeader("la") + "global_u32 &y = 1;\n");
  BrigBlob LocalB = assemble(moduleHeader("lb") + "global_u32 &y = 2;\n");
  for (const BrigBlob *M :
       {&A, &B, &VarDef, &VarDecl, &VarDeclF32, &VarDef2, &LocalA, &LocalB})
    ASSERT_FALSE(M->empty());

  hsa_ext_program_t P = makeProgram({&A});
  // The same program-linkage kernel defined twice.
  EXPECT_EQ(int(hsa_ext_program_add_module(P, B.module())),
            HSA_EXT_STATUS_ERROR_SYMBOL_MISMATCH);
  // A declaration, then its definition, agree; a second definition does not.
  EXPECT_EQ(hsa_ext_program_add_module(P, VarDecl.module()),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_ext_program_add_module(P, VarDef.module()), HSA_STATUS_SUCCESS);
  EXPECT_EQ(int(hsa_ext_program_add_module(P, VarDef2.module())),
            HSA_EXT_STATUS_ERROR_SYMBOL_MISMATCH);
  // A declaration of another type does not match the definition.
  EXPECT_EQ(int(hsa_ext_program_add_module(P, VarDeclF32.module())),
            HSA_EXT_STATUS_ERROR_SYMBOL_MISMATCH);
  EXPECT_EQ(hsa_ext_program_add_module(P, LocalA.module()), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_ext_program_add_module(P, LocalB.module()), HSA_STATUS_SUCCESS);

  // Rejected modules were not added.
  std::vector<hsa_ext_module_t> Seen;
  EXPECT_EQ(hsa_ext_program_iterate_modules(
                P,
                [](hsa_ext_program_t, hsa_ext_module_t M, void *Data) {
                  static_cast<std::vector<hsa_ext_module_t> *>(Data)->push_back(
                      M);
                  return HSA_STATUS_SUCCESS;
                },
                &Seen),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(Seen, (std::vector<hsa_ext_module_t>{
                      A.module(), VarDecl.module(), VarDef.module(),
                      LocalA.module(), LocalB.module()}));
  EXPECT_EQ(hsa_ext_program_destroy(P), HSA_STATUS_SUCCESS);
}

TEST_F(Program, IterateModulesStopsOnRequest) {
  BrigBlob A = assemble(moduleHeader("a") + KernelBody);
  BrigBlob B = assemble(moduleHeader("b"));
  hsa_ext_program_t P = makeProgram({&A, &B});
  int Calls = 0;
  EXPECT_EQ(hsa_ext_program_iterate_modules(
                P,
                [](hsa_ext_program_t, hsa_ext_module_t, void *Data) {
                  ++*static_cast<int *>(Data);
                  return HSA_STATUS_INFO_BREAK;
                },
                &Calls),
            HSA_STATUS_INFO_BREAK);
  EXPECT_EQ(Calls, 1);
  EXPECT_EQ(hsa_ext_program_iterate_modules(P, nullptr, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_ext_program_destroy(P), HSA_STATUS_SUCCESS);
}

TEST_F(Program, FinalizeChecksItsArguments) {
  BrigBlob M = assemble(moduleHeader("m") + KernelBody);
  hsa_ext_program_t P = makeProgram({&M});
  hsa_code_object_t CO{0};
  const auto Auto = HSA_EXT_FINALIZER_CALL_CONVENTION_AUTO;
  EXPECT_EQ(hsa_ext_program_finalize(P, {0}, Auto, noDirectives(), nullptr,
                                     HSA_CODE_OBJECT_TYPE_PROGRAM, &CO),
            HSA_STATUS_ERROR_INVALID_ISA);
  EXPECT_EQ(hsa_ext_program_finalize(P, {Isa.handle + 8}, Auto, noDirectives(),
                                     nullptr, HSA_CODE_OBJECT_TYPE_PROGRAM,
                                     &CO),
            HSA_STATUS_ERROR_INVALID_ISA);
  // The ISA has one call convention (0); -1 lets the finalizer choose.
  EXPECT_EQ(hsa_ext_program_finalize(P, Isa, 1, noDirectives(), nullptr,
                                     HSA_CODE_OBJECT_TYPE_PROGRAM, &CO),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_ext_program_finalize(P, Isa, -2, noDirectives(), nullptr,
                                     HSA_CODE_OBJECT_TYPE_PROGRAM, &CO),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_ext_program_finalize(P, Isa, Auto, noDirectives(), nullptr,
                                     hsa_code_object_type_t(1), &CO),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_ext_program_finalize(P, Isa, Auto, noDirectives(), nullptr,
                                     HSA_CODE_OBJECT_TYPE_PROGRAM, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);

  // Malformed control directives.
  hsa_ext_control_directives_t D = noDirectives();
  D.control_directives_mask = 1; // Bit 0 names no directive.
  EXPECT_EQ(hsa_ext_program_finalize(P, Isa, Auto, D, nullptr,
                                     HSA_CODE_OBJECT_TYPE_PROGRAM, &CO),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  D = noDirectives();
  D.reserved2[10] = 1;
  EXPECT_EQ(hsa_ext_program_finalize(P, Isa, Auto, D, nullptr,
                                     HSA_CODE_OBJECT_TYPE_PROGRAM, &CO),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  D = noDirectives();
  D.control_directives_mask = 1u << 6; // BRIG_CONTROL_REQUIREDDIM
  D.required_dim = 4;
  EXPECT_EQ(hsa_ext_program_finalize(P, Isa, Auto, D, nullptr,
                                     HSA_CODE_OBJECT_TYPE_PROGRAM, &CO),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  D = noDirectives();
  D.control_directives_mask = 1u << 8; // BRIG_CONTROL_REQUIREDWORKGROUPSIZE
  D.required_workgroup_size = {64, 0, 1};
  EXPECT_EQ(hsa_ext_program_finalize(P, Isa, Auto, D, nullptr,
                                     HSA_CODE_OBJECT_TYPE_PROGRAM, &CO),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);

  // Well-formed directives finalize; the program outlives finalization.
  D = noDirectives();
  D.control_directives_mask = (1u << 6) | (1u << 5);
  D.required_dim = 1;
  D.max_flat_workgroup_size = 256;
  ::testing::internal::CaptureStderr();
  hsa_status_t S = hsa_ext_program_finalize(P, Isa, 0, D, "-hsa_option",
                                            HSA_CODE_OBJECT_TYPE_PROGRAM, &CO);
  std::string Err = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(S, HSA_STATUS_SUCCESS) << Err;
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_ext_program_destroy(P), HSA_STATUS_SUCCESS);
}

TEST_F(Program, FinalizationFailureSaysWhy) {
  // Finalization needs every function a kernel calls to be defined
  // (HSA Runtime 3.2.2, hsa_ext_program_finalize).
  BrigBlob M = assemble(moduleHeader("undef") + R"(
decl prog function &missing(arg_u32 %r)(arg_u32 %x);

prog kernel &k(kernarg_u64 %out)
{
    ld_kernarg_u64 $d0, [%out];
    {
        arg_u32 %r;
        arg_u32 %x;
        st_arg_u32 1, [%x];
        call &missing (%r) (%x);
        ld_arg_u32 $s0, [%r];
    }
    st_global_u32 $s0, [$d0];
    ret;
};
)");
  ASSERT_FALSE(M.empty());
  hsa_ext_program_t P = makeProgram({&M});
  hsa_code_object_t CO{0};
  auto Finalize = [&] {
    return int(hsa_ext_program_finalize(
        P, Isa, HSA_EXT_FINALIZER_CALL_CONVENTION_AUTO, noDirectives(), nullptr,
        HSA_CODE_OBJECT_TYPE_PROGRAM, &CO));
  };
  // The library is quiet unless OPENHSA_DEBUG asks (README).
  std::string Err;
  int S;
  {
    ScopedEnv Quiet("OPENHSA_DEBUG", nullptr);
    ::testing::internal::CaptureStderr();
    S = Finalize();
    Err = ::testing::internal::GetCapturedStderr();
  }
  EXPECT_EQ(S, HSA_EXT_STATUS_ERROR_FINALIZATION_FAILED);
  EXPECT_EQ(Err, "");
  {
    ScopedEnv Errors("OPENHSA_DEBUG", "error");
    ::testing::internal::CaptureStderr();
    S = Finalize();
    Err = ::testing::internal::GetCapturedStderr();
  }
  EXPECT_EQ(S, HSA_EXT_STATUS_ERROR_FINALIZATION_FAILED);
  // The finalizer's message, naming the module and the BRIG offset.
  EXPECT_NE(Err.find("openhsa: finalization failed:"), std::string::npos)
      << Err;
  EXPECT_NE(Err.find("&undef"), std::string::npos) << Err;
  EXPECT_NE(Err.find("hsa_code+0x"), std::string::npos) << Err;
  if (S == HSA_STATUS_SUCCESS) {
    EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
  }
  EXPECT_EQ(hsa_ext_program_destroy(P), HSA_STATUS_SUCCESS);
}

} // namespace
