//===- tests/executable/CodeObjectTest.cpp - Code objects and readers -----===//
//
// HSA 1.0 code objects (serialize, deserialize, queries, symbols) and the
// 1.1 code object readers, with their error paths.
//
//===----------------------------------------------------------------------===//
#include "tests/executable/ExecTestSupport.h"

#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cstdlib>
#include <fcntl.h>
#include <map>
#include <unistd.h>

using namespace openhsa::test;

namespace {

class CodeObject : public ExecTest {};

void seal(std::vector<uint8_t> &Bytes) { sealCodeObjectBytes(Bytes); }

const std::string ModuleLinkage = R"(module &mod:1:0:$full:$large:$default;

global_u32 &local_var = 7;
decl prog global_u64 &shared_var;
prog readonly_u32 &ro_var[3] = u32[](1, 2, 3);

kernel &local_kernel(kernarg_u64 %out, kernarg_u32 %n)
{
    ld_kernarg_u64 $d0, [%out];
    ld_global_u32 $s0, [&local_var];
    st_global_u32 $s0, [$d0];
    ret;
};

prog kernel &prog_kernel(kernarg_u64 %out)
{
    ld_kernarg_u64 $d0, [%out];
    ld_global_u64 $d1, [&shared_var];
    st_global_u64 $d1, [$d0];
    ret;
};
)";

hsa_status_t failingAlloc(size_t, hsa_callback_data_t Data, void **) {
  *reinterpret_cast<int *>(Data.handle) += 1;
  return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
}

hsa_status_t mallocAlloc(size_t Size, hsa_callback_data_t, void **Address) {
  *Address = std::malloc(Size);
  return HSA_STATUS_SUCCESS;
}

template <typename T>
T codeSymbolInfo(hsa_code_symbol_t S, hsa_code_symbol_info_t A) {
  T V{};
  EXPECT_EQ(hsa_code_symbol_get_info(S, A, &V), HSA_STATUS_SUCCESS)
      << "attribute " << A;
  return V;
}

std::string codeSymbolName(hsa_code_symbol_t S) {
  std::string Name(
      codeSymbolInfo<uint32_t>(S, HSA_CODE_SYMBOL_INFO_NAME_LENGTH), '\0');
  EXPECT_EQ(hsa_code_symbol_get_info(S, HSA_CODE_SYMBOL_INFO_NAME, Name.data()),
            HSA_STATUS_SUCCESS);
  return Name;
}

std::string codeSymbolModule(hsa_code_symbol_t S) {
  std::string Name(
      codeSymbolInfo<uint32_t>(S, HSA_CODE_SYMBOL_INFO_MODULE_NAME_LENGTH),
      '\0');
  EXPECT_EQ(hsa_code_symbol_get_info(S, HSA_CODE_SYMBOL_INFO_MODULE_NAME,
                                     Name.data()),
            HSA_STATUS_SUCCESS);
  return Name;
}

TEST_F(CodeObject, Info) {
  hsa_code_object_t CO = finalizeText(VectorAddHsail);
  ASSERT_NE(CO.handle, 0u);
  char Version[64];
  std::memset(Version, 0x55, sizeof(Version));
  ASSERT_EQ(hsa_code_object_get_info(CO, HSA_CODE_OBJECT_INFO_VERSION, Version),
            HSA_STATUS_SUCCESS);
  const size_t Length = strnlen(Version, sizeof(Version));
  EXPECT_GT(Length, 0u);
  EXPECT_LT(Length, 64u);
  for (size_t I = Length; I < 64; ++I)
    EXPECT_EQ(Version[I], 0) << I;
  hsa_code_object_type_t Type = hsa_code_object_type_t(5);
  EXPECT_EQ(hsa_code_object_get_info(CO, HSA_CODE_OBJECT_INFO_TYPE, &Type),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(Type, HSA_CODE_OBJECT_TYPE_PROGRAM);
  hsa_isa_t CodeIsa{0};
  EXPECT_EQ(hsa_code_object_get_info(CO, HSA_CODE_OBJECT_INFO_ISA, &CodeIsa),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(CodeIsa.handle, Isa.handle);
  hsa_machine_model_t Model;
  EXPECT_EQ(
      hsa_code_object_get_info(CO, HSA_CODE_OBJECT_INFO_MACHINE_MODEL, &Model),
      HSA_STATUS_SUCCESS);
  EXPECT_EQ(Model, HSA_MACHINE_MODEL_LARGE);
  hsa_profile_t Profile;
  EXPECT_EQ(
      hsa_code_object_get_info(CO, HSA_CODE_OBJECT_INFO_PROFILE, &Profile),
      HSA_STATUS_SUCCESS);
  EXPECT_EQ(Profile, HSA_PROFILE_FULL);
  hsa_default_float_rounding_mode_t Rounding;
  EXPECT_EQ(
      hsa_code_object_get_info(
          CO, HSA_CODE_OBJECT_INFO_DEFAULT_FLOAT_ROUNDING_MODE, &Rounding),
      HSA_STATUS_SUCCESS);
  EXPECT_EQ(Rounding, HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR);
  EXPECT_EQ(hsa_code_object_get_info(CO, hsa_code_object_info_t(6), &Model),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_code_object_get_info(CO, HSA_CODE_OBJECT_INFO_TYPE, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
  // Destroyed: every entry point refuses the handle.
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  EXPECT_EQ(hsa_code_object_get_info(CO, HSA_CODE_OBJECT_INFO_TYPE, &Type),
            HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
}

TEST_F(CodeObject, Symbols) {
  hsa_code_object_t CO = finalizeText(ModuleLinkage);
  ASSERT_NE(CO.handle, 0u);

  std::map<std::string, hsa_code_symbol_t> ByName;
  ASSERT_EQ(hsa_code_object_iterate_symbols(
                CO,
                [](hsa_code_object_t, hsa_code_symbol_t S, void *Data) {
                  (*static_cast<std::map<std::string, hsa_code_symbol_t> *>(
                      Data))[codeSymbolName(S)] = S;
                  return HSA_STATUS_SUCCESS;
                },
                &ByName),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(ByName.size(), 5u);
  for (const char *Name : {"&local_var", "&shared_var", "&ro_var",
                           "&local_kernel", "&prog_kernel"})
    ASSERT_TRUE(ByName.count(Name)) << Name;

  // Lookup by name: program linkage without a module, module linkage with.
  hsa_code_symbol_t S{0};
  EXPECT_EQ(hsa_code_object_get_symbol(CO, "&prog_kernel", &S),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(S.handle, ByName["&prog_kernel"].handle);
  EXPECT_EQ(hsa_code_object_get_symbol(CO, "&mod::&local_kernel", &S),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(S.handle, ByName["&local_kernel"].handle);
  EXPECT_EQ(hsa_code_object_get_symbol(CO, "&local_kernel", &S),
            HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  EXPECT_EQ(hsa_code_object_get_symbol(CO, "&nothing", &S),
            HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  EXPECT_EQ(hsa_code_object_get_symbol(CO, nullptr, &S),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_code_object_get_symbol(CO, "&prog_kernel", nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_code_object_get_symbol_from_name(CO, "&mod", "&local_var", &S),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(S.handle, ByName["&local_var"].handle);
  EXPECT_EQ(
      hsa_code_object_get_symbol_from_name(CO, nullptr, "&shared_var", &S),
      HSA_STATUS_SUCCESS);
  EXPECT_EQ(S.handle, ByName["&shared_var"].handle);
  EXPECT_EQ(
      hsa_code_object_get_symbol_from_name(CO, "&other", "&local_var", &S),
      HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  EXPECT_EQ(hsa_code_object_get_symbol_from_name(CO, nullptr, "&local_var", &S),
            HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
  EXPECT_EQ(hsa_code_object_get_symbol_from_name(CO, nullptr, nullptr, &S),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);

  // A module-linkage kernel.
  hsa_code_symbol_t K = ByName["&local_kernel"];
  EXPECT_EQ(codeSymbolInfo<hsa_symbol_kind_t>(K, HSA_CODE_SYMBOL_INFO_TYPE),
            HSA_SYMBOL_KIND_KERNEL);
  EXPECT_EQ(codeSymbolModule(K), "&mod");
  EXPECT_EQ(
      codeSymbolInfo<hsa_symbol_linkage_t>(K, HSA_CODE_SYMBOL_INFO_LINKAGE),
      HSA_SYMBOL_LINKAGE_MODULE);
  EXPECT_TRUE(codeSymbolInfo<bool>(K, HSA_CODE_SYMBOL_INFO_IS_DEFINITION));
  const uint32_t KernargSize = codeSymbolInfo<uint32_t>(
      K, HSA_CODE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE);
  EXPECT_GE(KernargSize, 12u);
  EXPECT_EQ(KernargSize % 16, 0u);
  EXPECT_GE(codeSymbolInfo<uint32_t>(
                K, HSA_CODE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT),
            16u);
  EXPECT_EQ(codeSymbolInfo<uint32_t>(
                K, HSA_CODE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE),
            0u);
  codeSymbolInfo<uint32_t>(K, HSA_CODE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE);
  EXPECT_FALSE(
      codeSymbolInfo<bool>(K, HSA_CODE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK));
  EXPECT_EQ(
      codeSymbolInfo<uint32_t>(K, HSA_CODE_SYMBOL_INFO_KERNEL_CALL_CONVENTION),
      0u);
  uint32_t Ignored;
  EXPECT_EQ(
      hsa_code_symbol_get_info(K, HSA_CODE_SYMBOL_INFO_VARIABLE_SIZE, &Ignored),
      HSA_STATUS_ERROR_INVALID_ARGUMENT);

  // Program-linkage kernel: no module name.
  EXPECT_EQ(codeSymbolModule(ByName["&prog_kernel"]), "");
  EXPECT_EQ(codeSymbolInfo<hsa_symbol_linkage_t>(ByName["&prog_kernel"],
                                                 HSA_CODE_SYMBOL_INFO_LINKAGE),
            HSA_SYMBOL_LINKAGE_PROGRAM);

  // Variables.
  hsa_code_symbol_t Local = ByName["&local_var"];
  EXPECT_EQ(codeSymbolInfo<hsa_symbol_kind_t>(Local, HSA_CODE_SYMBOL_INFO_TYPE),
            HSA_SYMBOL_KIND_VARIABLE);
  EXPECT_EQ(
      codeSymbolInfo<hsa_symbol_linkage_t>(Local, HSA_CODE_SYMBOL_INFO_LINKAGE),
      HSA_SYMBOL_LINKAGE_MODULE);
  EXPECT_EQ(codeSymbolModule(Local), "&mod");
  EXPECT_TRUE(codeSymbolInfo<bool>(Local, HSA_CODE_SYMBOL_INFO_IS_DEFINITION));
  EXPECT_EQ(codeSymbolInfo<hsa_variable_allocation_t>(
                Local, HSA_CODE_SYMBOL_INFO_VARIABLE_ALLOCATION),
            HSA_VARIABLE_ALLOCATION_PROGRAM);
  EXPECT_EQ(codeSymbolInfo<hsa_variable_segment_t>(
                Local, HSA_CODE_SYMBOL_INFO_VARIABLE_SEGMENT),
            HSA_VARIABLE_SEGMENT_GLOBAL);
  EXPECT_EQ(codeSymbolInfo<uint32_t>(Local, HSA_CODE_SYMBOL_INFO_VARIABLE_SIZE),
            4u);
  EXPECT_GE(
      codeSymbolInfo<uint32_t>(Local, HSA_CODE_SYMBOL_INFO_VARIABLE_ALIGNMENT),
      4u);
  EXPECT_FALSE(
      codeSymbolInfo<bool>(Local, HSA_CODE_SYMBOL_INFO_VARIABLE_IS_CONST));
  EXPECT_EQ(
      hsa_code_symbol_get_info(
          Local, HSA_CODE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &Ignored),
      HSA_STATUS_ERROR_INVALID_ARGUMENT);

  hsa_code_symbol_t Declared = ByName["&shared_var"];
  EXPECT_FALSE(
      codeSymbolInfo<bool>(Declared, HSA_CODE_SYMBOL_INFO_IS_DEFINITION));
  EXPECT_EQ(
      codeSymbolInfo<uint32_t>(Declared, HSA_CODE_SYMBOL_INFO_VARIABLE_SIZE),
      8u);

  hsa_code_symbol_t Readonly = ByName["&ro_var"];
  EXPECT_EQ(codeSymbolInfo<hsa_variable_segment_t>(
                Readonly, HSA_CODE_SYMBOL_INFO_VARIABLE_SEGMENT),
            HSA_VARIABLE_SEGMENT_READONLY);
  EXPECT_EQ(codeSymbolInfo<hsa_variable_allocation_t>(
                Readonly, HSA_CODE_SYMBOL_INFO_VARIABLE_ALLOCATION),
            HSA_VARIABLE_ALLOCATION_AGENT);
  EXPECT_EQ(
      codeSymbolInfo<uint32_t>(Readonly, HSA_CODE_SYMBOL_INFO_VARIABLE_SIZE),
      12u);

  // Errors.
  EXPECT_EQ(hsa_code_symbol_get_info(K, HSA_CODE_SYMBOL_INFO_TYPE, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_code_symbol_get_info(K, hsa_code_symbol_info_t(99), &Ignored),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_code_symbol_get_info({K.handle + 1}, HSA_CODE_SYMBOL_INFO_TYPE,
                                     &Ignored),
            HSA_STATUS_ERROR_INVALID_CODE_SYMBOL);
  EXPECT_EQ(hsa_code_object_iterate_symbols(CO, nullptr, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  int Calls = 0;
  EXPECT_EQ(hsa_code_object_iterate_symbols(
                CO,
                [](hsa_code_object_t, hsa_code_symbol_t, void *Data) {
                  ++*static_cast<int *>(Data);
                  return HSA_STATUS_INFO_BREAK;
                },
                &Calls),
            HSA_STATUS_INFO_BREAK);
  EXPECT_EQ(Calls, 1);

  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
  // The symbols died with their code object.
  EXPECT_EQ(hsa_code_symbol_get_info(K, HSA_CODE_SYMBOL_INFO_TYPE, &Ignored),
            HSA_STATUS_ERROR_INVALID_CODE_SYMBOL);
  EXPECT_EQ(hsa_code_object_get_symbol(CO, "&prog_kernel", &S),
            HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  EXPECT_EQ(hsa_code_object_iterate_symbols(
                CO,
                [](hsa_code_object_t, hsa_code_symbol_t, void *) {
                  return HSA_STATUS_SUCCESS;
                },
                nullptr),
            HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
}

TEST_F(CodeObject, SerializeRoundTrip) {
  hsa_code_object_t CO = finalizeText(VectorAddHsail);
  ASSERT_NE(CO.handle, 0u);
  void *Data = nullptr;
  size_t Size = 0;
  int Failures = 0;
  hsa_callback_data_t Counter{uint64_t(reinterpret_cast<uintptr_t>(&Failures))};
  EXPECT_EQ(hsa_code_object_serialize(CO, failingAlloc, Counter, nullptr, &Data,
                                      &Size),
            HSA_STATUS_ERROR_OUT_OF_RESOURCES);
  EXPECT_EQ(Failures, 1);
  EXPECT_EQ(hsa_code_object_serialize(CO, nullptr, {0}, nullptr, &Data, &Size),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(
      hsa_code_object_serialize(CO, mallocAlloc, {0}, nullptr, nullptr, &Size),
      HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(
      hsa_code_object_serialize(CO, mallocAlloc, {0}, nullptr, &Data, nullptr),
      HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_code_object_serialize({CO.handle + 16}, mallocAlloc, {0},
                                      nullptr, &Data, &Size),
            HSA_STATUS_ERROR_INVALID_CODE_OBJECT);

  std::vector<uint8_t> Bytes = serialize(CO);
  ASSERT_FALSE(Bytes.empty());
  hsa_code_object_t Copy{0};
  ASSERT_EQ(
      hsa_code_object_deserialize(Bytes.data(), Bytes.size(), nullptr, &Copy),
      HSA_STATUS_SUCCESS);
  EXPECT_NE(Copy.handle, CO.handle);
  EXPECT_EQ(serialize(Copy), Bytes);
  hsa_code_symbol_t S{0};
  EXPECT_EQ(hsa_code_object_get_symbol(Copy, "&vector_add", &S),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(Copy), HSA_STATUS_SUCCESS);
}

TEST_F(CodeObject, DeserializeRejectsGarbage) {
  hsa_code_object_t CO{0};
  std::vector<uint8_t> Garbage(4096);
  for (size_t I = 0; I < Garbage.size(); ++I)
    Garbage[I] = uint8_t(I * 131 + 7);
  EXPECT_EQ(
      hsa_code_object_deserialize(Garbage.data(), Garbage.size(), nullptr, &CO),
      HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  EXPECT_EQ(hsa_code_object_deserialize(nullptr, 16, nullptr, &CO),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_code_object_deserialize(Garbage.data(), 0, nullptr, &CO),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_code_object_deserialize(Garbage.data(), Garbage.size(), nullptr,
                                        nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);

  // Every truncation of a real code object is refused, never a crash.
  hsa_code_object_t Real = finalizeText(VectorAddHsail);
  ASSERT_NE(Real.handle, 0u);
  std::vector<uint8_t> Bytes = serialize(Real);
  for (size_t Cut = 1; Cut < Bytes.size(); Cut += std::max<size_t>(1, Cut / 3))
    EXPECT_EQ(hsa_code_object_deserialize(Bytes.data(), Cut, nullptr, &CO),
              HSA_STATUS_ERROR_INVALID_CODE_OBJECT)
        << Cut;
  EXPECT_EQ(hsa_code_object_destroy(Real), HSA_STATUS_SUCCESS);
}

// Issue 14 item 4: damaged code objects are refused through the C API,
// never a crash: bytes overwritten anywhere (the content hash), and bytes of
// the ELF object overwritten under a valid hash (the object's bounds
// checks), by hsa_code_object_deserialize and by a code object reader
// loaded into an executable. tests/finalizer/CodeObjectCheckTest has more.
TEST_F(CodeObject, DamagedCodeObjectsAreRefused) {
  hsa_code_object_t Real = finalizeText(VectorAddHsail);
  ASSERT_NE(Real.handle, 0u);
  const std::vector<uint8_t> Bytes = serialize(Real);
  uint32_t MetaLen;
  std::memcpy(&MetaLen, Bytes.data() + 16, 4);
  const size_t Object = 16 + 4 + MetaLen + 8;
  ASSERT_LT(Object, Bytes.size());
  uint64_t Rng = 0x14;
  auto Next = [&] { // xorshift64
    Rng ^= Rng << 13;
    Rng ^= Rng >> 7;
    Rng ^= Rng << 17;
    return Rng;
  };
  unsigned Loaded = 0;
  for (unsigned Seed = 0; Seed < 400; ++Seed) {
    const bool UnderHash = Seed & 1;
    std::vector<uint8_t> B = Bytes;
    for (unsigned N = 1 + Next() % 8; N-- > 0;) {
      const size_t Start = UnderHash ? Object : 0;
      B[Start + Next() % (B.size() - Start)] = uint8_t(Next());
    }
    if (UnderHash)
      seal(B);
    hsa_code_object_t CO{0};
    const hsa_status_t D =
        hsa_code_object_deserialize(B.data(), B.size(), nullptr, &CO);
    hsa_code_object_reader_t Reader{0};
    ASSERT_EQ(
        hsa_code_object_reader_create_from_memory(B.data(), B.size(), &Reader),
        HSA_STATUS_SUCCESS);
    hsa_executable_t E = makeExecutable();
    const hsa_status_t L =
        hsa_executable_load_agent_code_object(E, Cpu, Reader, nullptr, nullptr);
    if (B == Bytes || (UnderHash && D == HSA_STATUS_SUCCESS)) {
      EXPECT_EQ(D, HSA_STATUS_SUCCESS);
      EXPECT_TRUE(L == HSA_STATUS_SUCCESS ||
                  L == HSA_STATUS_ERROR_INVALID_CODE_OBJECT)
          << L;
      Loaded += L == HSA_STATUS_SUCCESS;
    } else {
      EXPECT_EQ(D, HSA_STATUS_ERROR_INVALID_CODE_OBJECT) << Seed;
      EXPECT_EQ(L, HSA_STATUS_ERROR_INVALID_CODE_OBJECT) << Seed;
    }
    if (D == HSA_STATUS_SUCCESS) {
      EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
    }
    EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
    EXPECT_EQ(hsa_code_object_reader_destroy(Reader), HSA_STATUS_SUCCESS);
  }
  EXPECT_GT(Loaded, 0u); // Damaged code (not tables) still loads.
  EXPECT_EQ(hsa_code_object_destroy(Real), HSA_STATUS_SUCCESS);
}

TEST_F(CodeObject, ReadersCheckTheirArguments) {
  hsa_code_object_reader_t Reader{0};
  const uint8_t Byte = 0;
  EXPECT_EQ(hsa_code_object_reader_create_from_memory(nullptr, 1, &Reader),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_code_object_reader_create_from_memory(&Byte, 0, &Reader),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_code_object_reader_create_from_memory(&Byte, 1, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(hsa_code_object_reader_create_from_file(-1, &Reader),
            HSA_STATUS_ERROR_INVALID_FILE);
  EXPECT_EQ(hsa_code_object_reader_create_from_file(987654, &Reader),
            HSA_STATUS_ERROR_INVALID_FILE);
  int Dir = open("/", O_RDONLY | O_DIRECTORY);
  ASSERT_GE(Dir, 0);
  EXPECT_EQ(hsa_code_object_reader_create_from_file(Dir, &Reader),
            HSA_STATUS_ERROR_INVALID_FILE);
  close(Dir);
  int Null = open("/dev/null", O_RDONLY);
  EXPECT_EQ(hsa_code_object_reader_create_from_file(Null, nullptr),
            HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // An empty file holds no code object.
  EXPECT_EQ(hsa_code_object_reader_create_from_file(Null, &Reader),
            HSA_STATUS_ERROR_INVALID_FILE);
  close(Null);

  ASSERT_EQ(hsa_code_object_reader_create_from_memory(&Byte, 1, &Reader),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_reader_destroy(Reader), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_reader_destroy(Reader),
            HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
  EXPECT_EQ(hsa_code_object_reader_destroy({0}),
            HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
}

TEST_F(CodeObject, ReaderFromFileReadsFromTheStart) {
  hsa_code_object_t CO = finalizeText(VectorAddHsail);
  ASSERT_NE(CO.handle, 0u);
  std::vector<uint8_t> Bytes = serialize(CO);
  char Path[] = "/tmp/openhsa-exec-XXXXXX";
  int Fd = mkstemp(Path);
  ASSERT_GE(Fd, 0);
  unlink(Path);
  ASSERT_EQ(write(Fd, Bytes.data(), Bytes.size()), ssize_t(Bytes.size()));
  // The descriptor is at the end of the file; the reader reads it whole.
  hsa_code_object_reader_t Reader{0};
  ASSERT_EQ(hsa_code_object_reader_create_from_file(Fd, &Reader),
            HSA_STATUS_SUCCESS);
  close(Fd); // The reader keeps a copy.
  hsa_executable_t E = makeExecutable();
  EXPECT_EQ(
      hsa_executable_load_agent_code_object(E, Cpu, Reader, nullptr, nullptr),
      HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_reader_destroy(Reader), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
}

TEST_F(CodeObject, ForeignIsaIsRefusedWhenLoaded) {
  hsa_code_object_t CO = finalizeText(VectorAddHsail);
  ASSERT_NE(CO.handle, 0u);
  std::vector<uint8_t> Bytes = serialize(CO);
  // Rename the ISA in the metadata, keeping its length.
  char IsaName[64] = {};
  ASSERT_EQ(hsa_isa_get_info_alt(Isa, HSA_ISA_INFO_NAME, IsaName),
            HSA_STATUS_SUCCESS);
  const std::string Name(IsaName);
  ASSERT_FALSE(Name.empty());
  auto It = std::search(Bytes.begin(), Bytes.end(), Name.begin(), Name.end());
  ASSERT_NE(It, Bytes.end());
  std::string Foreign = Name;
  Foreign.replace(Foreign.size() - 1, 1, Foreign.back() == 'q' ? "r" : "q");
  std::copy(Foreign.begin(), Foreign.end(), It);
  seal(Bytes);

  hsa_code_object_t Other{0};
  ASSERT_EQ(
      hsa_code_object_deserialize(Bytes.data(), Bytes.size(), nullptr, &Other),
      HSA_STATUS_SUCCESS);
  hsa_isa_t OtherIsa{0};
  EXPECT_EQ(
      hsa_code_object_get_info(Other, HSA_CODE_OBJECT_INFO_ISA, &OtherIsa),
      HSA_STATUS_ERROR_INVALID_ISA);
  hsa_executable_t E{0};
  ASSERT_EQ(hsa_executable_create(HSA_PROFILE_FULL,
                                  HSA_EXECUTABLE_STATE_UNFROZEN, nullptr, &E),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_load_code_object(E, Cpu, Other, nullptr),
            HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  hsa_code_object_reader_t Reader{0};
  ASSERT_EQ(hsa_code_object_reader_create_from_memory(Bytes.data(),
                                                      Bytes.size(), &Reader),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(
      hsa_executable_load_agent_code_object(E, Cpu, Reader, nullptr, nullptr),
      HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
  // Nothing was loaded: the real one still loads.
  EXPECT_EQ(hsa_executable_load_code_object(E, Cpu, CO, nullptr),
            HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_executable_destroy(E), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_reader_destroy(Reader), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(Other), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_code_object_destroy(CO), HSA_STATUS_SUCCESS);
}

} // namespace
