// Pins the ABI of openhsa's public headers with literal numbers: struct
// sizes, member offsets and key enumeration values of HSA 1.2 on LP64
// little-endian hosts (and, where the layout is model independent, on every
// host). Independent of any reference header being installed.
#include <hsa/hsa.h>
#include <hsa/hsa_ext_finalize.h>
#include <hsa/hsa_ext_image.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <gtest/gtest.h>

#define EXPECT_SIZE(T, n) static_assert(sizeof(T) == (n), "sizeof " #T)
#define EXPECT_OFFSET(T, f, n)                                                 \
  static_assert(offsetof(T, f) == (n), "offsetof " #T "::" #f)
#define EXPECT_VALUE(e, n) static_assert((e) == (n), #e)

// Feature macros of the extension tables.
#ifndef hsa_ext_finalizer_1_00
#error "hsa_ext_finalizer_1_00 must be defined"
#endif
#ifndef hsa_ext_images_1_00
#error "hsa_ext_images_1_00 must be defined"
#endif
#ifndef hsa_ext_images_1
#error "hsa_ext_images_1 must be defined"
#endif
static_assert(HSA_VERSION_1_0 == 1, "HSA_VERSION_1_0");

namespace {

// --- Handles: one 64-bit opaque value each. -------------------------------
#define EXPECT_HANDLE(T)                                                       \
  EXPECT_SIZE(T, 8);                                                           \
  EXPECT_OFFSET(T, handle, 0);                                                 \
  static_assert(std::is_same<decltype(T::handle), uint64_t>::value, #T)
EXPECT_HANDLE(hsa_agent_t);
EXPECT_HANDLE(hsa_cache_t);
EXPECT_HANDLE(hsa_signal_t);
EXPECT_HANDLE(hsa_signal_group_t);
EXPECT_HANDLE(hsa_region_t);
EXPECT_HANDLE(hsa_isa_t);
EXPECT_HANDLE(hsa_wavefront_t);
EXPECT_HANDLE(hsa_code_object_reader_t);
EXPECT_HANDLE(hsa_executable_t);
EXPECT_HANDLE(hsa_loaded_code_object_t);
EXPECT_HANDLE(hsa_executable_symbol_t);
EXPECT_HANDLE(hsa_code_object_t);
EXPECT_HANDLE(hsa_callback_data_t);
EXPECT_HANDLE(hsa_code_symbol_t);
EXPECT_HANDLE(hsa_ext_program_t);
EXPECT_HANDLE(hsa_ext_image_t);
EXPECT_HANDLE(hsa_ext_sampler_t);

// --- Scalars and enums. ---------------------------------------------------
EXPECT_SIZE(hsa_status_t, 4);
EXPECT_SIZE(hsa_queue_type32_t, 4);
EXPECT_SIZE(hsa_file_t, sizeof(int));
EXPECT_SIZE(hsa_signal_value_t, sizeof(void *));
static_assert(std::is_signed<hsa_signal_value_t>::value, "signed value");
EXPECT_SIZE(hsa_ext_image_channel_type32_t, 4);
EXPECT_SIZE(hsa_ext_image_channel_order32_t, 4);
EXPECT_SIZE(hsa_ext_sampler_addressing_mode32_t, 4);
EXPECT_SIZE(hsa_ext_sampler_coordinate_mode32_t, 4);
EXPECT_SIZE(hsa_ext_sampler_filter_mode32_t, 4);

// --- hsa_dim3_t. ----------------------------------------------------------
EXPECT_SIZE(hsa_dim3_t, 12);
EXPECT_OFFSET(hsa_dim3_t, x, 0);
EXPECT_OFFSET(hsa_dim3_t, y, 4);
EXPECT_OFFSET(hsa_dim3_t, z, 8);

// --- hsa_queue_t: 40 bytes in both machine models. ------------------------
EXPECT_SIZE(hsa_queue_t, 40);
EXPECT_OFFSET(hsa_queue_t, type, 0);
EXPECT_OFFSET(hsa_queue_t, features, 4);
EXPECT_OFFSET(hsa_queue_t, doorbell_signal, 16);
EXPECT_OFFSET(hsa_queue_t, size, 24);
EXPECT_OFFSET(hsa_queue_t, reserved1, 28);
EXPECT_OFFSET(hsa_queue_t, id, 32);

// --- AQL packets: 64 bytes each. ------------------------------------------
EXPECT_SIZE(hsa_kernel_dispatch_packet_t, 64);
EXPECT_SIZE(hsa_agent_dispatch_packet_t, 64);
EXPECT_SIZE(hsa_barrier_and_packet_t, 64);
EXPECT_SIZE(hsa_barrier_or_packet_t, 64);

EXPECT_OFFSET(hsa_kernel_dispatch_packet_t, header, 0);
EXPECT_OFFSET(hsa_kernel_dispatch_packet_t, setup, 2);
EXPECT_OFFSET(hsa_kernel_dispatch_packet_t, workgroup_size_x, 4);
EXPECT_OFFSET(hsa_kernel_dispatch_packet_t, workgroup_size_y, 6);
EXPECT_OFFSET(hsa_kernel_dispatch_packet_t, workgroup_size_z, 8);
EXPECT_OFFSET(hsa_kernel_dispatch_packet_t, reserved0, 10);
EXPECT_OFFSET(hsa_kernel_dispatch_packet_t, grid_size_x, 12);
EXPECT_OFFSET(hsa_kernel_dispatch_packet_t, grid_size_y, 16);
EXPECT_OFFSET(hsa_kernel_dispatch_packet_t, grid_size_z, 20);
EXPECT_OFFSET(hsa_kernel_dispatch_packet_t, private_segment_size, 24);
EXPECT_OFFSET(hsa_kernel_dispatch_packet_t, group_segment_size, 28);
EXPECT_OFFSET(hsa_kernel_dispatch_packet_t, kernel_object, 32);
EXPECT_OFFSET(hsa_kernel_dispatch_packet_t, reserved2, 48);
EXPECT_OFFSET(hsa_kernel_dispatch_packet_t, completion_signal, 56);

EXPECT_OFFSET(hsa_agent_dispatch_packet_t, header, 0);
EXPECT_OFFSET(hsa_agent_dispatch_packet_t, type, 2);
EXPECT_OFFSET(hsa_agent_dispatch_packet_t, reserved0, 4);
EXPECT_OFFSET(hsa_agent_dispatch_packet_t, arg, 16);
EXPECT_SIZE(hsa_agent_dispatch_packet_t::arg, 32);
EXPECT_OFFSET(hsa_agent_dispatch_packet_t, reserved2, 48);
EXPECT_OFFSET(hsa_agent_dispatch_packet_t, completion_signal, 56);

EXPECT_OFFSET(hsa_barrier_and_packet_t, header, 0);
EXPECT_OFFSET(hsa_barrier_and_packet_t, reserved0, 2);
EXPECT_OFFSET(hsa_barrier_and_packet_t, reserved1, 4);
EXPECT_OFFSET(hsa_barrier_and_packet_t, dep_signal, 8);
EXPECT_SIZE(hsa_barrier_and_packet_t::dep_signal, 40);
EXPECT_OFFSET(hsa_barrier_and_packet_t, reserved2, 48);
EXPECT_OFFSET(hsa_barrier_and_packet_t, completion_signal, 56);

EXPECT_OFFSET(hsa_barrier_or_packet_t, header, 0);
EXPECT_OFFSET(hsa_barrier_or_packet_t, reserved0, 2);
EXPECT_OFFSET(hsa_barrier_or_packet_t, reserved1, 4);
EXPECT_OFFSET(hsa_barrier_or_packet_t, dep_signal, 8);
EXPECT_SIZE(hsa_barrier_or_packet_t::dep_signal, 40);
EXPECT_OFFSET(hsa_barrier_or_packet_t, reserved2, 48);
EXPECT_OFFSET(hsa_barrier_or_packet_t, completion_signal, 56);

// Pointer members and their 32-bit paddings.
#ifdef HSA_LARGE_MODEL
EXPECT_OFFSET(hsa_queue_t, base_address, 8);
EXPECT_OFFSET(hsa_kernel_dispatch_packet_t, kernarg_address, 40);
EXPECT_OFFSET(hsa_agent_dispatch_packet_t, return_address, 8);
#elif defined(HSA_LITTLE_ENDIAN)
EXPECT_OFFSET(hsa_queue_t, base_address, 8);
EXPECT_OFFSET(hsa_queue_t, reserved0, 12);
EXPECT_OFFSET(hsa_kernel_dispatch_packet_t, kernarg_address, 40);
EXPECT_OFFSET(hsa_kernel_dispatch_packet_t, reserved1, 44);
EXPECT_OFFSET(hsa_agent_dispatch_packet_t, return_address, 8);
EXPECT_OFFSET(hsa_agent_dispatch_packet_t, reserved1, 12);
#else
EXPECT_OFFSET(hsa_queue_t, reserved0, 8);
EXPECT_OFFSET(hsa_queue_t, base_address, 12);
EXPECT_OFFSET(hsa_kernel_dispatch_packet_t, reserved1, 40);
EXPECT_OFFSET(hsa_kernel_dispatch_packet_t, kernarg_address, 44);
EXPECT_OFFSET(hsa_agent_dispatch_packet_t, reserved1, 8);
EXPECT_OFFSET(hsa_agent_dispatch_packet_t, return_address, 12);
#endif

// --- Finalizer extension. -------------------------------------------------
EXPECT_SIZE(hsa_ext_control_directives_t, 144);
EXPECT_OFFSET(hsa_ext_control_directives_t, control_directives_mask, 0);
EXPECT_OFFSET(hsa_ext_control_directives_t, break_exceptions_mask, 8);
EXPECT_OFFSET(hsa_ext_control_directives_t, detect_exceptions_mask, 10);
EXPECT_OFFSET(hsa_ext_control_directives_t, max_dynamic_group_size, 12);
EXPECT_OFFSET(hsa_ext_control_directives_t, max_flat_grid_size, 16);
EXPECT_OFFSET(hsa_ext_control_directives_t, max_flat_workgroup_size, 24);
EXPECT_OFFSET(hsa_ext_control_directives_t, reserved1, 28);
EXPECT_OFFSET(hsa_ext_control_directives_t, required_grid_size, 32);
EXPECT_OFFSET(hsa_ext_control_directives_t, required_workgroup_size, 56);
EXPECT_OFFSET(hsa_ext_control_directives_t, required_dim, 68);
EXPECT_OFFSET(hsa_ext_control_directives_t, reserved2, 69);
EXPECT_SIZE(hsa_ext_control_directives_t::reserved2, 75);
EXPECT_SIZE(hsa_ext_module_t, sizeof(void *));
EXPECT_SIZE(hsa_ext_finalizer_1_00_pfn_t, 6 * sizeof(void (*)()));

// --- Images extension. ----------------------------------------------------
EXPECT_SIZE(hsa_ext_image_format_t, 8);
EXPECT_OFFSET(hsa_ext_image_format_t, channel_type, 0);
EXPECT_OFFSET(hsa_ext_image_format_t, channel_order, 4);
EXPECT_SIZE(hsa_ext_image_region_t, 24);
EXPECT_OFFSET(hsa_ext_image_region_t, offset, 0);
EXPECT_OFFSET(hsa_ext_image_region_t, range, 12);
EXPECT_SIZE(hsa_ext_sampler_descriptor_t, 12);
EXPECT_OFFSET(hsa_ext_sampler_descriptor_t, coordinate_mode, 0);
EXPECT_OFFSET(hsa_ext_sampler_descriptor_t, filter_mode, 4);
EXPECT_OFFSET(hsa_ext_sampler_descriptor_t, address_mode, 8);
EXPECT_SIZE(hsa_ext_images_1_00_pfn_t, 10 * sizeof(void (*)()));
EXPECT_SIZE(hsa_ext_images_1_pfn_t, 13 * sizeof(void (*)()));
#ifdef HSA_LARGE_MODEL
EXPECT_SIZE(hsa_ext_image_descriptor_t, 48);
EXPECT_OFFSET(hsa_ext_image_descriptor_t, geometry, 0);
EXPECT_OFFSET(hsa_ext_image_descriptor_t, width, 8);
EXPECT_OFFSET(hsa_ext_image_descriptor_t, height, 16);
EXPECT_OFFSET(hsa_ext_image_descriptor_t, depth, 24);
EXPECT_OFFSET(hsa_ext_image_descriptor_t, array_size, 32);
EXPECT_OFFSET(hsa_ext_image_descriptor_t, format, 40);
EXPECT_SIZE(hsa_ext_image_data_info_t, 16);
EXPECT_OFFSET(hsa_ext_images_1_pfn_t, hsa_ext_image_get_capability_with_layout,
              80);
EXPECT_OFFSET(hsa_ext_images_1_pfn_t, hsa_ext_image_create_with_layout, 96);
#endif

// --- Key enumeration values. ----------------------------------------------
EXPECT_VALUE(HSA_STATUS_SUCCESS, 0x0);
EXPECT_VALUE(HSA_STATUS_INFO_BREAK, 0x1);
EXPECT_VALUE(HSA_STATUS_ERROR, 0x1000);
EXPECT_VALUE(HSA_STATUS_ERROR_INVALID_ARGUMENT, 0x1001);
EXPECT_VALUE(HSA_STATUS_ERROR_INVALID_ISA_NAME, 0x1017);
EXPECT_VALUE(HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL, 0x1019);
EXPECT_VALUE(HSA_STATUS_ERROR_INVALID_FILE, 0x1020);
EXPECT_VALUE(HSA_STATUS_ERROR_FATAL, 0x1026);
EXPECT_VALUE(HSA_EXT_STATUS_ERROR_INVALID_PROGRAM, 0x2000);
EXPECT_VALUE(HSA_EXT_STATUS_ERROR_DIRECTIVE_MISMATCH, 0x2006);
EXPECT_VALUE(HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED, 0x3000);
EXPECT_VALUE(HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED, 0x3003);
EXPECT_VALUE(HSA_EXT_AGENT_INFO_IMAGE_1D_MAX_ELEMENTS, 0x3000);
EXPECT_VALUE(HSA_EXT_AGENT_INFO_IMAGE_LINEAR_ROW_PITCH_ALIGNMENT, 0x300C);
EXPECT_VALUE(HSA_SYSTEM_INFO_EXTENSIONS, 7);
EXPECT_VALUE(HSA_EXTENSION_FINALIZER, 0);
EXPECT_VALUE(HSA_EXTENSION_IMAGES, 1);
EXPECT_VALUE(HSA_EXTENSION_STD_LAST, 3);
EXPECT_VALUE(HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES, 23);
EXPECT_VALUE(HSA_AGENT_INFO_FAST_F16_OPERATION, 24);
EXPECT_VALUE(HSA_AGENT_INFO_VERSION_MINOR, 22);
EXPECT_VALUE(HSA_PACKET_TYPE_KERNEL_DISPATCH, 2);
EXPECT_VALUE(HSA_PACKET_TYPE_BARRIER_OR, 5);
EXPECT_VALUE(HSA_PACKET_HEADER_BARRIER, 8);
EXPECT_VALUE(HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE, 9);
EXPECT_VALUE(HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE, 11);
EXPECT_VALUE(HSA_PACKET_HEADER_WIDTH_TYPE, 8);
EXPECT_VALUE(HSA_KERNEL_DISPATCH_PACKET_SETUP_WIDTH_DIMENSIONS, 2);
EXPECT_VALUE(HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE, 8);
EXPECT_VALUE(HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED, 4);
EXPECT_VALUE(HSA_ISA_INFO_GRID_MAX_SIZE, 16);
EXPECT_VALUE(HSA_ISA_INFO_FBARRIER_MAX_SIZE, 17);
EXPECT_VALUE(HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, 22);
EXPECT_VALUE(HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_OBJECT, 23);
EXPECT_VALUE(HSA_CODE_SYMBOL_INFO_KERNEL_CALL_CONVENTION, 18);
EXPECT_VALUE(HSA_EXT_FINALIZER_CALL_CONVENTION_AUTO, -1);
EXPECT_VALUE(HSA_EXT_IMAGE_GEOMETRY_2DADEPTH, 7);
EXPECT_VALUE(HSA_EXT_IMAGE_CHANNEL_TYPE_FLOAT, 15);
EXPECT_VALUE(HSA_EXT_IMAGE_CHANNEL_ORDER_DEPTH_STENCIL, 19);
EXPECT_VALUE(HSA_EXT_IMAGE_CAPABILITY_ACCESS_INVARIANT_DATA_LAYOUT, 0x10);
EXPECT_VALUE(HSA_EXT_SAMPLER_ADDRESSING_MODE_MIRRORED_REPEAT, 4);

// --- Extension function tables hold exactly the declared entry points. ----
#define EXPECT_PFN(T, f)                                                       \
  static_assert(std::is_same<decltype(T::f), decltype(&f)>::value,             \
                #T "::" #f " matches the declaration of " #f)
EXPECT_PFN(hsa_ext_finalizer_1_00_pfn_t, hsa_ext_program_create);
EXPECT_PFN(hsa_ext_finalizer_1_00_pfn_t, hsa_ext_program_destroy);
EXPECT_PFN(hsa_ext_finalizer_1_00_pfn_t, hsa_ext_program_add_module);
EXPECT_PFN(hsa_ext_finalizer_1_00_pfn_t, hsa_ext_program_iterate_modules);
EXPECT_PFN(hsa_ext_finalizer_1_00_pfn_t, hsa_ext_program_get_info);
EXPECT_PFN(hsa_ext_finalizer_1_00_pfn_t, hsa_ext_program_finalize);
#define EXPECT_IMAGES_1_00_PFN(T)                                              \
  EXPECT_PFN(T, hsa_ext_image_get_capability);                                 \
  EXPECT_PFN(T, hsa_ext_image_data_get_info);                                  \
  EXPECT_PFN(T, hsa_ext_image_create);                                         \
  EXPECT_PFN(T, hsa_ext_image_destroy);                                        \
  EXPECT_PFN(T, hsa_ext_image_copy);                                           \
  EXPECT_PFN(T, hsa_ext_image_import);                                         \
  EXPECT_PFN(T, hsa_ext_image_export);                                         \
  EXPECT_PFN(T, hsa_ext_image_clear);                                          \
  EXPECT_PFN(T, hsa_ext_sampler_create);                                       \
  EXPECT_PFN(T, hsa_ext_sampler_destroy)
EXPECT_IMAGES_1_00_PFN(hsa_ext_images_1_00_pfn_t);
EXPECT_IMAGES_1_00_PFN(hsa_ext_images_1_pfn_t);
EXPECT_PFN(hsa_ext_images_1_pfn_t, hsa_ext_image_get_capability_with_layout);
EXPECT_PFN(hsa_ext_images_1_pfn_t, hsa_ext_image_data_get_info_with_layout);
EXPECT_PFN(hsa_ext_images_1_pfn_t, hsa_ext_image_create_with_layout);

// The 1.0 names are the same operations as their 1.1 replacements.
static_assert(std::is_same<decltype(hsa_signal_load_acquire),
                           decltype(hsa_signal_load_scacquire)>::value,
              "hsa_signal_load_acquire");
static_assert(std::is_same<decltype(hsa_signal_cas_acq_rel),
                           decltype(hsa_signal_cas_scacq_screl)>::value,
              "hsa_signal_cas_acq_rel");
static_assert(
    std::is_same<decltype(hsa_queue_cas_write_index_acq_rel),
                 decltype(hsa_queue_cas_write_index_scacq_screl)>::value,
    "hsa_queue_cas_write_index_acq_rel");

uint16_t make_header(hsa_packet_type_t type, bool barrier,
                     hsa_fence_scope_t acquire, hsa_fence_scope_t release) {
  return static_cast<uint16_t>(
      (type << HSA_PACKET_HEADER_TYPE) |
      ((barrier ? 1 : 0) << HSA_PACKET_HEADER_BARRIER) |
      (acquire << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
      (release << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
}

TEST(AbiLayout, PacketHeaderFieldsTileSixteenBits) {
  // Each sub-field starts where the previous one ends.
  auto end = [](int offset, int width) { return offset + width; };
  EXPECT_EQ(end(HSA_PACKET_HEADER_TYPE, HSA_PACKET_HEADER_WIDTH_TYPE),
            HSA_PACKET_HEADER_BARRIER);
  EXPECT_EQ(end(HSA_PACKET_HEADER_BARRIER, HSA_PACKET_HEADER_WIDTH_BARRIER),
            HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE);
  EXPECT_EQ(end(HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE,
                HSA_PACKET_HEADER_WIDTH_SCACQUIRE_FENCE_SCOPE),
            HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  EXPECT_LE(end(HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE,
                HSA_PACKET_HEADER_WIDTH_SCRELEASE_FENCE_SCOPE),
            16);
  EXPECT_EQ(HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE,
            HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE);
  EXPECT_EQ(HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE,
            HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  EXPECT_EQ(make_header(HSA_PACKET_TYPE_KERNEL_DISPATCH, true,
                        HSA_FENCE_SCOPE_SYSTEM, HSA_FENCE_SCOPE_SYSTEM),
            0x1502);
}

TEST(AbiLayout, PacketsShareTheHeaderAndCompletionSignalSlots) {
  // A queue slot is 64 bytes; every packet kind can be viewed through the
  // kernel dispatch layout for its header and completion signal.
  alignas(64) unsigned char slot[64];
  std::memset(slot, 0, sizeof slot);
  hsa_barrier_and_packet_t barrier{};
  barrier.header = make_header(HSA_PACKET_TYPE_BARRIER_AND, false,
                               HSA_FENCE_SCOPE_AGENT, HSA_FENCE_SCOPE_NONE);
  barrier.dep_signal[4].handle = 0xabcdef;
  barrier.completion_signal.handle = 0x1234;
  std::memcpy(slot, &barrier, sizeof barrier);
  hsa_kernel_dispatch_packet_t view;
  std::memcpy(&view, slot, sizeof view);
  EXPECT_EQ(view.header & 0xff, HSA_PACKET_TYPE_BARRIER_AND);
  EXPECT_EQ(view.completion_signal.handle, 0x1234u);
  uint64_t dep4;
  std::memcpy(&dep4, slot + 40, sizeof dep4);
  EXPECT_EQ(dep4, 0xabcdefu);
}

TEST(AbiLayout, PlatformMacros) {
#if defined(__x86_64__) || defined(__aarch64__)
#ifndef HSA_LARGE_MODEL
  ADD_FAILURE() << "HSA_LARGE_MODEL must be defined on 64-bit hosts";
#endif
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#ifndef HSA_LITTLE_ENDIAN
  ADD_FAILURE() << "HSA_LITTLE_ENDIAN must be defined on little-endian hosts";
#endif
#endif
  EXPECT_EQ(sizeof(hsa_signal_value_t), sizeof(void *));
  hsa_ext_control_directives_t directives;
  std::memset(&directives, 0xff, sizeof directives);
  directives.required_dim = 3;
  EXPECT_EQ(reinterpret_cast<unsigned char *>(&directives)[68], 3);
}

} // namespace
