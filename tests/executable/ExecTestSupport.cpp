//===- tests/executable/ExecTestSupport.cpp - Helpers of the executable tests
//=//
#include "tests/executable/ExecTestSupport.h"

#include "brig/asm/Assembler.h"

#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace openhsa::test {

BrigBlob assemble(const std::string &Text) {
  auto Bytes = brig::assembler::assembleHsail(Text);
  if (!Bytes) {
    ADD_FAILURE() << brig::assembler::renderError(Bytes.takeError(),
                                                  "test.hsail", Text);
    return {};
  }
  return BrigBlob(*Bytes);
}

std::string moduleHeader(const std::string &Name, const std::string &Profile,
                         const std::string &Model,
                         const std::string &Rounding) {
  return "module &" + Name + ":1:0:" + Profile + ":" + Model + ":" + Rounding +
         ";\n";
}

const char *const VectorAddHsail = R"(module &vadd:1:0:$full:$large:$default;

prog global_u32 &bias = 5;
prog readonly_u32 &table[4] = u32[](10, 20, 30, 40);

prog kernel &vector_add(
    kernarg_u64 %a,
    kernarg_u64 %b,
    kernarg_u64 %c)
{
    workitemabsid_u32 $s0, 0;
    cvt_u64_u32 $d0, $s0;
    shl_u64 $d0, $d0, 2;
    ld_kernarg_u64 $d1, [%a];
    add_u64 $d1, $d1, $d0;
    ld_global_u32 $s2, [$d1];
    ld_kernarg_u64 $d2, [%b];
    add_u64 $d2, $d2, $d0;
    ld_global_u32 $s3, [$d2];
    add_u32 $s2, $s2, $s3;
    ld_kernarg_u64 $d3, [%c];
    add_u64 $d3, $d3, $d0;
    st_global_u32 $s2, [$d3];
    ret;
};

prog kernel &use_vars(kernarg_u64 %out)
{
    workitemabsid_u32 $s0, 0;
    and_b32 $s1, $s0, 3;
    cvt_u64_u32 $d0, $s1;
    shl_u64 $d0, $d0, 2;
    ld_readonly_u32 $s1, [&table][$d0];
    ld_global_u32 $s2, [&bias];
    add_u32 $s1, $s1, $s2;
    cvt_u64_u32 $d0, $s0;
    shl_u64 $d0, $d0, 2;
    ld_kernarg_u64 $d1, [%out];
    add_u64 $d1, $d1, $d0;
    st_global_u32 $s1, [$d1];
    ret;
};

prog kernel &ids(kernarg_u64 %out, kernarg_u32 %limit)
{
    workitemabsid_u32 $s0, 0;
    ld_kernarg_u32 $s9, [%limit];
    cmp_ge_b1_u32 $c0, $s0, $s9;
    cbr_b1 $c0, @skip;
    workgroupid_u32 $s1, 0;
    mul_u32 $s1, $s1, 1000;
    workitemid_u32 $s2, 0;
    add_u32 $s1, $s1, $s2;
    gridsize_u32 $s3, 0;
    mul_u32 $s3, $s3, 1000;
    workgroupsize_u32 $s4, 0;
    add_u32 $s3, $s3, $s4;
    cvt_u64_u32 $d0, $s0;
    shl_u64 $d0, $d0, 3;
    ld_kernarg_u64 $d1, [%out];
    add_u64 $d1, $d1, $d0;
    st_global_u32 $s1, [$d1];
    st_global_u32 $s3, [$d1+4];
    br @end;
@skip:
    mov_b32 $s5, 0;
@end:
    ret;
};

prog kernel &arith(kernarg_u64 %x, kernarg_u64 %y, kernarg_u64 %out)
{
    private_u32 %p;
    group_u32 %g[64];
    workitemabsid_u32 $s0, 0;
    workitemid_u32 $s10, 0;
    cvt_u64_u32 $d0, $s0;
    shl_u64 $d0, $d0, 2;
    ld_kernarg_u64 $d1, [%x];
    add_u64 $d1, $d1, $d0;
    ld_global_u32 $s1, [$d1];
    ld_kernarg_u64 $d2, [%y];
    add_u64 $d2, $d2, $d0;
    ld_global_u32 $s2, [$d2];
    mul_u32 $s3, $s0, 36;
    cvt_u64_u32 $d3, $s3;
    ld_kernarg_u64 $d4, [%out];
    add_u64 $d4, $d4, $d3;
    add_u32 $s5, $s1, $s2;
    st_global_u32 $s5, [$d4];
    sub_u32 $s5, $s1, $s2;
    st_global_u32 $s5, [$d4+4];
    mul_u32 $s5, $s1, $s2;
    st_global_u32 $s5, [$d4+8];
    div_u32 $s5, $s1, $s2;
    st_global_u32 $s5, [$d4+12];
    shl_u32 $s5, $s1, 3;
    st_global_u32 $s5, [$d4+16];
    shr_u32 $s5, $s1, 2;
    st_global_u32 $s5, [$d4+20];
    and_b32 $s5, $s1, $s2;
    st_private_u32 $s5, [%p];
    ld_private_u32 $s6, [%p];
    st_global_u32 $s6, [$d4+24];
    or_b32 $s5, $s1, $s2;
    shl_u32 $s11, $s10, 2;
    st_group_u32 $s5, [%g][$s11];
    ld_group_u32 $s6, [%g][$s11];
    st_global_u32 $s6, [$d4+28];
    xor_b32 $s5, $s1, $s2;
    mov_b32 $s7, $s5;
    st_global_u32 $s7, [$d4+32];
    ret;
};
)";

void sealCodeObjectBytes(std::vector<uint8_t> &Bytes) {
  const uint64_t Hash = llvm::xxh3_64bits(llvm::ArrayRef(Bytes).drop_front(16));
  std::memcpy(Bytes.data() + 8, &Hash, 8);
}

hsa_ext_control_directives_t noDirectives() {
  hsa_ext_control_directives_t D;
  std::memset(&D, 0, sizeof(D));
  return D;
}

int runChild(const std::vector<std::string> &Args, const char *EnvName,
             const std::string &EnvValue) {
  char Self[PATH_MAX];
  ssize_t N = readlink("/proc/self/exe", Self, sizeof(Self) - 1);
  if (N <= 0)
    return -1;
  Self[N] = 0;
  pid_t Pid = fork();
  if (Pid < 0)
    return -1;
  if (Pid == 0) {
    setenv(EnvName, EnvValue.c_str(), 1);
    std::vector<char *> Argv;
    Argv.push_back(Self);
    for (const std::string &A : Args)
      Argv.push_back(const_cast<char *>(A.c_str()));
    Argv.push_back(nullptr);
    execv(Self, Argv.data());
    _exit(127);
  }
  int Status = 0;
  while (waitpid(Pid, &Status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return WIFEXITED(Status) ? WEXITSTATUS(Status) : -1;
}

//===----------------------------------------------------------------------===//
// ExecTest
//===----------------------------------------------------------------------===//

namespace {

/// The CPU kernel agent.
hsa_status_t findCpu(hsa_agent_t A, void *Data) {
  hsa_device_type_t Type;
  uint32_t Feature = 0;
  if (hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &Type) !=
          HSA_STATUS_SUCCESS ||
      hsa_agent_get_info(A, HSA_AGENT_INFO_FEATURE, &Feature) !=
          HSA_STATUS_SUCCESS)
    return HSA_STATUS_ERROR;
  if (Type != HSA_DEVICE_TYPE_CPU ||
      !(Feature & HSA_AGENT_FEATURE_KERNEL_DISPATCH))
    return HSA_STATUS_SUCCESS;
  *static_cast<hsa_agent_t *>(Data) = A;
  return HSA_STATUS_INFO_BREAK;
}

hsa_status_t findKernarg(hsa_region_t R, void *Data) {
  hsa_region_segment_t Segment;
  uint32_t Flags = 0;
  hsa_region_get_info(R, HSA_REGION_INFO_SEGMENT, &Segment);
  if (Segment != HSA_REGION_SEGMENT_GLOBAL)
    return HSA_STATUS_SUCCESS;
  hsa_region_get_info(R, HSA_REGION_INFO_GLOBAL_FLAGS, &Flags);
  if (!(Flags & HSA_REGION_GLOBAL_FLAG_KERNARG))
    return HSA_STATUS_SUCCESS;
  *static_cast<hsa_region_t *>(Data) = R;
  return HSA_STATUS_INFO_BREAK;
}

hsa_status_t allocate(size_t Size, hsa_callback_data_t, void **Address) {
  *Address = std::malloc(Size);
  return *Address ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_OUT_OF_RESOURCES;
}

} // namespace

void ExecTest::SetUp() {
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_iterate_agents(findCpu, &Cpu), HSA_STATUS_INFO_BREAK);
  ASSERT_EQ(hsa_agent_get_info(Cpu, HSA_AGENT_INFO_ISA, &Isa),
            HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_agent_iterate_regions(Cpu, findKernarg, &Kernarg),
            HSA_STATUS_INFO_BREAK);
}

void ExecTest::TearDown() {
  if (Queue) {
    EXPECT_EQ(hsa_queue_destroy(Queue), HSA_STATUS_SUCCESS);
  }
  EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS);
}

hsa_ext_program_t
ExecTest::makeProgram(const std::vector<const BrigBlob *> &Modules) {
  hsa_ext_program_t P{0};
  EXPECT_EQ(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, HSA_PROFILE_FULL,
                                   HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                   nullptr, &P),
            HSA_STATUS_SUCCESS);
  for (const BrigBlob *M : Modules)
    EXPECT_EQ(hsa_ext_program_add_module(P, M->module()), HSA_STATUS_SUCCESS);
  return P;
}

hsa_code_object_t ExecTest::finalizeText(const std::string &Text) {
  BrigBlob Module = assemble(Text);
  hsa_code_object_t CO{0};
  if (Module.empty())
    return CO;
  hsa_ext_program_t P = makeProgram({&Module});
  ::testing::internal::CaptureStderr();
  hsa_status_t S = hsa_ext_program_finalize(
      P, Isa, HSA_EXT_FINALIZER_CALL_CONVENTION_AUTO, noDirectives(), nullptr,
      HSA_CODE_OBJECT_TYPE_PROGRAM, &CO);
  std::string Err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(S, HSA_STATUS_SUCCESS) << Err;
  // Code objects outlive their program.
  EXPECT_EQ(hsa_ext_program_destroy(P), HSA_STATUS_SUCCESS);
  return CO;
}

std::vector<uint8_t> ExecTest::serialize(hsa_code_object_t CO) {
  void *Data = nullptr;
  size_t Size = 0;
  EXPECT_EQ(hsa_code_object_serialize(CO, allocate, {0}, nullptr, &Data, &Size),
            HSA_STATUS_SUCCESS);
  std::vector<uint8_t> Bytes(static_cast<uint8_t *>(Data),
                             static_cast<uint8_t *>(Data) + Size);
  std::free(Data);
  return Bytes;
}

hsa_executable_t ExecTest::makeExecutable() {
  hsa_executable_t E{0};
  EXPECT_EQ(hsa_executable_create_alt(HSA_PROFILE_FULL,
                                      HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR,
                                      nullptr, &E),
            HSA_STATUS_SUCCESS);
  return E;
}

std::string ExecTest::symbolName(hsa_executable_symbol_t S) {
  uint32_t Length =
      symbolInfo<uint32_t>(S, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH);
  std::string Name(Length, '\0');
  EXPECT_EQ(hsa_executable_symbol_get_info(S, HSA_EXECUTABLE_SYMBOL_INFO_NAME,
                                           Name.data()),
            HSA_STATUS_SUCCESS);
  return Name;
}

uint64_t ExecTest::submit(hsa_queue_t *Q,
                          const hsa_kernel_dispatch_packet_t &P) {
  const uint64_t Index = hsa_queue_add_write_index_scacq_screl(Q, 1);
  while (Index - hsa_queue_load_read_index_scacquire(Q) >= Q->size)
    std::this_thread::yield();
  auto *Slot =
      reinterpret_cast<hsa_kernel_dispatch_packet_t *>(Q->base_address) +
      (Index & (Q->size - 1));
  std::memcpy(reinterpret_cast<char *>(Slot) + 4,
              reinterpret_cast<const char *>(&P) + 4, sizeof(P) - 4);
  const uint16_t Header = uint16_t(
      (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
  const uint32_t Word = Header | (uint32_t(P.setup) << 16);
  std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t *>(Slot))
      .store(Word, std::memory_order_release);
  hsa_signal_store_screlease(Q->doorbell_signal, hsa_signal_value_t(Index));
  return Index;
}

bool ExecTest::dispatch(hsa_executable_symbol_t Kernel, const void *Args,
                        size_t ArgBytes, uint32_t Grid, uint16_t WorkGroup) {
  return dispatch(Kernel, Args, ArgBytes, 1, {Grid, 1, 1}, {WorkGroup, 1, 1});
}

bool ExecTest::dispatch(hsa_executable_symbol_t Kernel, const void *Args,
                        size_t ArgBytes, unsigned Dims,
                        const std::array<uint32_t, 3> &Grid,
                        const std::array<uint16_t, 3> &WorkGroup) {
  if (!Queue &&
      hsa_queue_create(Cpu, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr,
                       UINT32_MAX, UINT32_MAX, &Queue) != HSA_STATUS_SUCCESS) {
    ADD_FAILURE() << "hsa_queue_create failed";
    return false;
  }
  const uint64_t Object =
      symbolInfo<uint64_t>(Kernel, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT);
  const uint32_t KernargSize = symbolInfo<uint32_t>(
      Kernel, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE);
  const uint32_t GroupSize = symbolInfo<uint32_t>(
      Kernel, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE);
  const uint32_t PrivateSize = symbolInfo<uint32_t>(
      Kernel, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE);
  EXPECT_GE(KernargSize, ArgBytes);
  void *KernargMem = nullptr;
  if (hsa_memory_allocate(Kernarg, std::max<size_t>(KernargSize, 16),
                          &KernargMem) != HSA_STATUS_SUCCESS) {
    ADD_FAILURE() << "kernarg allocation failed";
    return false;
  }
  std::memset(KernargMem, 0, std::max<size_t>(KernargSize, 16));
  std::memcpy(KernargMem, Args, ArgBytes);
  hsa_signal_t Done;
  EXPECT_EQ(hsa_signal_create(1, 0, nullptr, &Done), HSA_STATUS_SUCCESS);

  hsa_kernel_dispatch_packet_t P;
  std::memset(&P, 0, sizeof(P));
  P.setup = uint16_t(Dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
  P.workgroup_size_x = WorkGroup[0];
  P.workgroup_size_y = WorkGroup[1];
  P.workgroup_size_z = WorkGroup[2];
  P.grid_size_x = Grid[0];
  P.grid_size_y = Grid[1];
  P.grid_size_z = Grid[2];
  P.group_segment_size = GroupSize;
  P.private_segment_size = PrivateSize;
  P.kernel_object = Object;
  P.kernarg_address = KernargMem;
  P.completion_signal = Done;

  submit(Queue, P);

  bool Completed = false;
  uint64_t Frequency = 0; // Ticks per second: each wait lasts at most 1 s.
  hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &Frequency);
  const auto Deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < Deadline) {
    if (hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_EQ, 0, Frequency,
                                  HSA_WAIT_STATE_BLOCKED) == 0) {
      Completed = true;
      break;
    }
  }
  EXPECT_EQ(hsa_signal_destroy(Done), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_memory_free(KernargMem), HSA_STATUS_SUCCESS);
  return Completed;
}

} // namespace openhsa::test
