/*
 * openhsa - images and samplers extension of the HSA Runtime (1.0 / 1.1).
 *
 * Written for the openhsa project. Names, signatures, numeric values and
 * structure layouts follow the HSA Foundation's Runtime Programmer's
 * Reference (images extension chapter).
 */
#ifndef OPENHSA_INCLUDE_HSA_HSA_EXT_IMAGE_H
#define OPENHSA_INCLUDE_HSA_HSA_EXT_IMAGE_H

#include "hsa.h"

/*
 * Entry points of this extension are exported by the runtime when it
 * defines HSA_EXPORT_IMAGES (or OPENHSA_BUILDING_RUNTIME).
 */
#undef HSA_API
#if defined(HSA_EXPORT_IMAGES) || defined(OPENHSA_BUILDING_RUNTIME)
#define HSA_API HSA_API_EXPORT
#else
#define HSA_API HSA_API_IMPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes added by the images extension. */
enum {
  HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED = 0x3000,      /* Bad format. */
  HSA_EXT_STATUS_ERROR_IMAGE_SIZE_UNSUPPORTED = 0x3001,        /* Bad size. */
  HSA_EXT_STATUS_ERROR_IMAGE_PITCH_UNSUPPORTED = 0x3002,       /* Bad pitch. */
  HSA_EXT_STATUS_ERROR_SAMPLER_DESCRIPTOR_UNSUPPORTED = 0x3003 /* Sampler. */
};

/* Agent attributes added by the images extension (hsa_agent_get_info). */
enum {
  HSA_EXT_AGENT_INFO_IMAGE_1D_MAX_ELEMENTS = 0x3000,           /* size_t */
  HSA_EXT_AGENT_INFO_IMAGE_1DA_MAX_ELEMENTS = 0x3001,          /* size_t */
  HSA_EXT_AGENT_INFO_IMAGE_1DB_MAX_ELEMENTS = 0x3002,          /* size_t */
  HSA_EXT_AGENT_INFO_IMAGE_2D_MAX_ELEMENTS = 0x3003,           /* size_t[2] */
  HSA_EXT_AGENT_INFO_IMAGE_2DA_MAX_ELEMENTS = 0x3004,          /* size_t[2] */
  HSA_EXT_AGENT_INFO_IMAGE_2DDEPTH_MAX_ELEMENTS = 0x3005,      /* size_t[2] */
  HSA_EXT_AGENT_INFO_IMAGE_2DADEPTH_MAX_ELEMENTS = 0x3006,     /* size_t[2] */
  HSA_EXT_AGENT_INFO_IMAGE_3D_MAX_ELEMENTS = 0x3007,           /* size_t[3] */
  HSA_EXT_AGENT_INFO_IMAGE_ARRAY_MAX_LAYERS = 0x3008,          /* size_t */
  HSA_EXT_AGENT_INFO_MAX_IMAGE_RD_HANDLES = 0x3009,            /* size_t */
  HSA_EXT_AGENT_INFO_MAX_IMAGE_RORW_HANDLES = 0x300A,          /* size_t */
  HSA_EXT_AGENT_INFO_MAX_SAMPLER_HANDLERS = 0x300B,            /* size_t */
  HSA_EXT_AGENT_INFO_IMAGE_LINEAR_ROW_PITCH_ALIGNMENT = 0x300C /* size_t */
};

/* Opaque image handle. */
typedef struct hsa_ext_image_s {
  uint64_t handle; /* Agent-specific value. */
} hsa_ext_image_t;

/* Shape of an image. */
typedef enum {
  HSA_EXT_IMAGE_GEOMETRY_1D = 0,      /* One dimension. */
  HSA_EXT_IMAGE_GEOMETRY_2D = 1,      /* Two dimensions. */
  HSA_EXT_IMAGE_GEOMETRY_3D = 2,      /* Three dimensions. */
  HSA_EXT_IMAGE_GEOMETRY_1DA = 3,     /* Array of 1D images. */
  HSA_EXT_IMAGE_GEOMETRY_2DA = 4,     /* Array of 2D images. */
  HSA_EXT_IMAGE_GEOMETRY_1DB = 5,     /* 1D image over a buffer. */
  HSA_EXT_IMAGE_GEOMETRY_2DDEPTH = 6, /* 2D depth image. */
  HSA_EXT_IMAGE_GEOMETRY_2DADEPTH = 7 /* Array of 2D depth images. */
} hsa_ext_image_geometry_t;

/* Storage type of each channel. */
typedef enum {
  HSA_EXT_IMAGE_CHANNEL_TYPE_SNORM_INT8 = 0,
  HSA_EXT_IMAGE_CHANNEL_TYPE_SNORM_INT16 = 1,
  HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8 = 2,
  HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT16 = 3,
  HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT24 = 4,
  HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_SHORT_555 = 5,
  HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_SHORT_565 = 6,
  HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_SHORT_101010 = 7,
  HSA_EXT_IMAGE_CHANNEL_TYPE_SIGNED_INT8 = 8,
  HSA_EXT_IMAGE_CHANNEL_TYPE_SIGNED_INT16 = 9,
  HSA_EXT_IMAGE_CHANNEL_TYPE_SIGNED_INT32 = 10,
  HSA_EXT_IMAGE_CHANNEL_TYPE_UNSIGNED_INT8 = 11,
  HSA_EXT_IMAGE_CHANNEL_TYPE_UNSIGNED_INT16 = 12,
  HSA_EXT_IMAGE_CHANNEL_TYPE_UNSIGNED_INT32 = 13,
  HSA_EXT_IMAGE_CHANNEL_TYPE_HALF_FLOAT = 14,
  HSA_EXT_IMAGE_CHANNEL_TYPE_FLOAT = 15
} hsa_ext_image_channel_type_t;

/* Fixed-width carrier for hsa_ext_image_channel_type_t values. */
typedef uint32_t hsa_ext_image_channel_type32_t;

/* Which channels an image has, and in what order. */
typedef enum {
  HSA_EXT_IMAGE_CHANNEL_ORDER_A = 0,
  HSA_EXT_IMAGE_CHANNEL_ORDER_R = 1,
  HSA_EXT_IMAGE_CHANNEL_ORDER_RX = 2,
  HSA_EXT_IMAGE_CHANNEL_ORDER_RG = 3,
  HSA_EXT_IMAGE_CHANNEL_ORDER_RGX = 4,
  HSA_EXT_IMAGE_CHANNEL_ORDER_RA = 5,
  HSA_EXT_IMAGE_CHANNEL_ORDER_RGB = 6,
  HSA_EXT_IMAGE_CHANNEL_ORDER_RGBX = 7,
  HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA = 8,
  HSA_EXT_IMAGE_CHANNEL_ORDER_BGRA = 9,
  HSA_EXT_IMAGE_CHANNEL_ORDER_ARGB = 10,
  HSA_EXT_IMAGE_CHANNEL_ORDER_ABGR = 11,
  HSA_EXT_IMAGE_CHANNEL_ORDER_SRGB = 12,
  HSA_EXT_IMAGE_CHANNEL_ORDER_SRGBX = 13,
  HSA_EXT_IMAGE_CHANNEL_ORDER_SRGBA = 14,
  HSA_EXT_IMAGE_CHANNEL_ORDER_SBGRA = 15,
  HSA_EXT_IMAGE_CHANNEL_ORDER_INTENSITY = 16,
  HSA_EXT_IMAGE_CHANNEL_ORDER_LUMINANCE = 17,
  HSA_EXT_IMAGE_CHANNEL_ORDER_DEPTH = 18,
  HSA_EXT_IMAGE_CHANNEL_ORDER_DEPTH_STENCIL = 19
} hsa_ext_image_channel_order_t;

/* Fixed-width carrier for hsa_ext_image_channel_order_t values. */
typedef uint32_t hsa_ext_image_channel_order32_t;

/* Channel type and order of an image. */
typedef struct hsa_ext_image_format_s {
  hsa_ext_image_channel_type32_t channel_type;   /* Channel type. */
  hsa_ext_image_channel_order32_t channel_order; /* Channel order. */
} hsa_ext_image_format_t;

/* Geometry, extent and format of an image. */
typedef struct hsa_ext_image_descriptor_s {
  hsa_ext_image_geometry_t geometry; /* Shape. */
  size_t width;                      /* Elements along x. */
  size_t height;                     /* Elements along y (0 if unused). */
  size_t depth;                      /* Elements along z (0 if unused). */
  size_t array_size;                 /* Layers of an array (0 if not one). */
  hsa_ext_image_format_t format;     /* Element format. */
} hsa_ext_image_descriptor_t;

/* What an agent can do with an image of a given format (bit mask). */
typedef enum {
  HSA_EXT_IMAGE_CAPABILITY_NOT_SUPPORTED = 0x0,
  HSA_EXT_IMAGE_CAPABILITY_READ_ONLY = 0x1,
  HSA_EXT_IMAGE_CAPABILITY_WRITE_ONLY = 0x2,
  HSA_EXT_IMAGE_CAPABILITY_READ_WRITE = 0x4,
  HSA_EXT_IMAGE_CAPABILITY_READ_MODIFY_WRITE = 0x8,
  HSA_EXT_IMAGE_CAPABILITY_ACCESS_INVARIANT_DATA_LAYOUT = 0x10
} hsa_ext_image_capability_t;

/* Memory layout of image data. */
typedef enum {
  HSA_EXT_IMAGE_DATA_LAYOUT_OPAQUE = 0x0, /* Agent-specific layout. */
  HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR = 0x1  /* Row-major, with pitches. */
} hsa_ext_image_data_layout_t;

/* Capabilities of an agent for a geometry and format (opaque layout). */
hsa_status_t HSA_API hsa_ext_image_get_capability(
    hsa_agent_t agent, hsa_ext_image_geometry_t geometry,
    const hsa_ext_image_format_t *image_format, uint32_t *capability_mask);

/* Capabilities of an agent for a geometry, format and data layout. */
hsa_status_t HSA_API hsa_ext_image_get_capability_with_layout(
    hsa_agent_t agent, hsa_ext_image_geometry_t geometry,
    const hsa_ext_image_format_t *image_format,
    hsa_ext_image_data_layout_t image_data_layout, uint32_t *capability_mask);

/* Size and alignment required for the backing store of an image. */
typedef struct hsa_ext_image_data_info_s {
  size_t size;      /* Bytes. */
  size_t alignment; /* Bytes; a power of two. */
} hsa_ext_image_data_info_t;

/* Backing-store requirements of an image with opaque layout. */
hsa_status_t HSA_API hsa_ext_image_data_get_info(
    hsa_agent_t agent, const hsa_ext_image_descriptor_t *image_descriptor,
    hsa_access_permission_t access_permission,
    hsa_ext_image_data_info_t *image_data_info);

/* Backing-store requirements of an image with an explicit layout. */
hsa_status_t HSA_API hsa_ext_image_data_get_info_with_layout(
    hsa_agent_t agent, const hsa_ext_image_descriptor_t *image_descriptor,
    hsa_access_permission_t access_permission,
    hsa_ext_image_data_layout_t image_data_layout, size_t image_data_row_pitch,
    size_t image_data_slice_pitch, hsa_ext_image_data_info_t *image_data_info);

/* Creates an agent-specific image handle over application memory. */
hsa_status_t HSA_API hsa_ext_image_create(
    hsa_agent_t agent, const hsa_ext_image_descriptor_t *image_descriptor,
    const void *image_data, hsa_access_permission_t access_permission,
    hsa_ext_image_t *image);

/* As hsa_ext_image_create, with an explicit data layout. */
hsa_status_t HSA_API hsa_ext_image_create_with_layout(
    hsa_agent_t agent, const hsa_ext_image_descriptor_t *image_descriptor,
    const void *image_data, hsa_access_permission_t access_permission,
    hsa_ext_image_data_layout_t image_data_layout, size_t image_data_row_pitch,
    size_t image_data_slice_pitch, hsa_ext_image_t *image);

/* Destroys an image handle (not its backing store). */
hsa_status_t HSA_API hsa_ext_image_destroy(hsa_agent_t agent,
                                           hsa_ext_image_t image);

/* Copies a block of elements between two images. */
hsa_status_t HSA_API hsa_ext_image_copy(hsa_agent_t agent,
                                        hsa_ext_image_t src_image,
                                        const hsa_dim3_t *src_offset,
                                        hsa_ext_image_t dst_image,
                                        const hsa_dim3_t *dst_offset,
                                        const hsa_dim3_t *range);

/* Block of image elements. */
typedef struct hsa_ext_image_region_s {
  hsa_dim3_t offset; /* First element. */
  hsa_dim3_t range;  /* Extent in elements. */
} hsa_ext_image_region_t;

/* Copies linear memory into part of an image. */
hsa_status_t HSA_API hsa_ext_image_import(
    hsa_agent_t agent, const void *src_memory, size_t src_row_pitch,
    size_t src_slice_pitch, hsa_ext_image_t dst_image,
    const hsa_ext_image_region_t *image_region);

/* Copies part of an image into linear memory. */
hsa_status_t HSA_API hsa_ext_image_export(
    hsa_agent_t agent, hsa_ext_image_t src_image, void *dst_memory,
    size_t dst_row_pitch, size_t dst_slice_pitch,
    const hsa_ext_image_region_t *image_region);

/* Fills part of an image with one element value. */
hsa_status_t HSA_API
hsa_ext_image_clear(hsa_agent_t agent, hsa_ext_image_t image, const void *data,
                    const hsa_ext_image_region_t *image_region);

/* Opaque sampler handle. */
typedef struct hsa_ext_sampler_s {
  uint64_t handle; /* Agent-specific value. */
} hsa_ext_sampler_t;

/* What a sampler returns for coordinates outside the image. */
typedef enum {
  HSA_EXT_SAMPLER_ADDRESSING_MODE_UNDEFINED = 0,
  HSA_EXT_SAMPLER_ADDRESSING_MODE_CLAMP_TO_EDGE = 1,
  HSA_EXT_SAMPLER_ADDRESSING_MODE_CLAMP_TO_BORDER = 2,
  HSA_EXT_SAMPLER_ADDRESSING_MODE_REPEAT = 3,
  HSA_EXT_SAMPLER_ADDRESSING_MODE_MIRRORED_REPEAT = 4
} hsa_ext_sampler_addressing_mode_t;

/* Fixed-width carrier for hsa_ext_sampler_addressing_mode_t values. */
typedef uint32_t hsa_ext_sampler_addressing_mode32_t;

/* Whether sampler coordinates are normalized. */
typedef enum {
  HSA_EXT_SAMPLER_COORDINATE_MODE_UNNORMALIZED = 0,
  HSA_EXT_SAMPLER_COORDINATE_MODE_NORMALIZED = 1
} hsa_ext_sampler_coordinate_mode_t;

/* Fixed-width carrier for hsa_ext_sampler_coordinate_mode_t values. */
typedef uint32_t hsa_ext_sampler_coordinate_mode32_t;

/* Filtering applied by a sampler. */
typedef enum {
  HSA_EXT_SAMPLER_FILTER_MODE_NEAREST = 0,
  HSA_EXT_SAMPLER_FILTER_MODE_LINEAR = 1
} hsa_ext_sampler_filter_mode_t;

/* Fixed-width carrier for hsa_ext_sampler_filter_mode_t values. */
typedef uint32_t hsa_ext_sampler_filter_mode32_t;

/* Properties of a sampler. */
typedef struct hsa_ext_sampler_descriptor_s {
  hsa_ext_sampler_coordinate_mode32_t coordinate_mode; /* Coordinates. */
  hsa_ext_sampler_filter_mode32_t filter_mode;         /* Filtering. */
  hsa_ext_sampler_addressing_mode32_t address_mode;    /* Out of range. */
} hsa_ext_sampler_descriptor_t;

/* Creates an agent-specific sampler handle. */
hsa_status_t HSA_API hsa_ext_sampler_create(
    hsa_agent_t agent, const hsa_ext_sampler_descriptor_t *sampler_descriptor,
    hsa_ext_sampler_t *sampler);

/* Destroys a sampler handle. */
hsa_status_t HSA_API hsa_ext_sampler_destroy(hsa_agent_t agent,
                                             hsa_ext_sampler_t sampler);

/* Marks that the 1.00 function table below is declared. */
#define hsa_ext_images_1_00

/* Function table of version 1.00 of the images extension. */
typedef struct hsa_ext_images_1_00_pfn_s {
  hsa_status_t (*hsa_ext_image_get_capability)(
      hsa_agent_t agent, hsa_ext_image_geometry_t geometry,
      const hsa_ext_image_format_t *image_format, uint32_t *capability_mask);
  hsa_status_t (*hsa_ext_image_data_get_info)(
      hsa_agent_t agent, const hsa_ext_image_descriptor_t *image_descriptor,
      hsa_access_permission_t access_permission,
      hsa_ext_image_data_info_t *image_data_info);
  hsa_status_t (*hsa_ext_image_create)(
      hsa_agent_t agent, const hsa_ext_image_descriptor_t *image_descriptor,
      const void *image_data, hsa_access_permission_t access_permission,
      hsa_ext_image_t *image);
  hsa_status_t (*hsa_ext_image_destroy)(hsa_agent_t agent,
                                        hsa_ext_image_t image);
  hsa_status_t (*hsa_ext_image_copy)(hsa_agent_t agent,
                                     hsa_ext_image_t src_image,
                                     const hsa_dim3_t *src_offset,
                                     hsa_ext_image_t dst_image,
                                     const hsa_dim3_t *dst_offset,
                                     const hsa_dim3_t *range);
  hsa_status_t (*hsa_ext_image_import)(
      hsa_agent_t agent, const void *src_memory, size_t src_row_pitch,
      size_t src_slice_pitch, hsa_ext_image_t dst_image,
      const hsa_ext_image_region_t *image_region);
  hsa_status_t (*hsa_ext_image_export)(
      hsa_agent_t agent, hsa_ext_image_t src_image, void *dst_memory,
      size_t dst_row_pitch, size_t dst_slice_pitch,
      const hsa_ext_image_region_t *image_region);
  hsa_status_t (*hsa_ext_image_clear)(
      hsa_agent_t agent, hsa_ext_image_t image, const void *data,
      const hsa_ext_image_region_t *image_region);
  hsa_status_t (*hsa_ext_sampler_create)(
      hsa_agent_t agent, const hsa_ext_sampler_descriptor_t *sampler_descriptor,
      hsa_ext_sampler_t *sampler);
  hsa_status_t (*hsa_ext_sampler_destroy)(hsa_agent_t agent,
                                          hsa_ext_sampler_t sampler);
} hsa_ext_images_1_00_pfn_t;

/* Marks that the version 1 function table below is declared. */
#define hsa_ext_images_1

/* Function table of version 1.x (1.1 and later) of the images extension:
   the 1.00 entries followed by the explicit-layout entry points. */
typedef struct hsa_ext_images_1_pfn_s {
  hsa_status_t (*hsa_ext_image_get_capability)(
      hsa_agent_t agent, hsa_ext_image_geometry_t geometry,
      const hsa_ext_image_format_t *image_format, uint32_t *capability_mask);
  hsa_status_t (*hsa_ext_image_data_get_info)(
      hsa_agent_t agent, const hsa_ext_image_descriptor_t *image_descriptor,
      hsa_access_permission_t access_permission,
      hsa_ext_image_data_info_t *image_data_info);
  hsa_status_t (*hsa_ext_image_create)(
      hsa_agent_t agent, const hsa_ext_image_descriptor_t *image_descriptor,
      const void *image_data, hsa_access_permission_t access_permission,
      hsa_ext_image_t *image);
  hsa_status_t (*hsa_ext_image_destroy)(hsa_agent_t agent,
                                        hsa_ext_image_t image);
  hsa_status_t (*hsa_ext_image_copy)(hsa_agent_t agent,
                                     hsa_ext_image_t src_image,
                                     const hsa_dim3_t *src_offset,
                                     hsa_ext_image_t dst_image,
                                     const hsa_dim3_t *dst_offset,
                                     const hsa_dim3_t *range);
  hsa_status_t (*hsa_ext_image_import)(
      hsa_agent_t agent, const void *src_memory, size_t src_row_pitch,
      size_t src_slice_pitch, hsa_ext_image_t dst_image,
      const hsa_ext_image_region_t *image_region);
  hsa_status_t (*hsa_ext_image_export)(
      hsa_agent_t agent, hsa_ext_image_t src_image, void *dst_memory,
      size_t dst_row_pitch, size_t dst_slice_pitch,
      const hsa_ext_image_region_t *image_region);
  hsa_status_t (*hsa_ext_image_clear)(
      hsa_agent_t agent, hsa_ext_image_t image, const void *data,
      const hsa_ext_image_region_t *image_region);
  hsa_status_t (*hsa_ext_sampler_create)(
      hsa_agent_t agent, const hsa_ext_sampler_descriptor_t *sampler_descriptor,
      hsa_ext_sampler_t *sampler);
  hsa_status_t (*hsa_ext_sampler_destroy)(hsa_agent_t agent,
                                          hsa_ext_sampler_t sampler);
  hsa_status_t (*hsa_ext_image_get_capability_with_layout)(
      hsa_agent_t agent, hsa_ext_image_geometry_t geometry,
      const hsa_ext_image_format_t *image_format,
      hsa_ext_image_data_layout_t image_data_layout, uint32_t *capability_mask);
  hsa_status_t (*hsa_ext_image_data_get_info_with_layout)(
      hsa_agent_t agent, const hsa_ext_image_descriptor_t *image_descriptor,
      hsa_access_permission_t access_permission,
      hsa_ext_image_data_layout_t image_data_layout,
      size_t image_data_row_pitch, size_t image_data_slice_pitch,
      hsa_ext_image_data_info_t *image_data_info);
  hsa_status_t (*hsa_ext_image_create_with_layout)(
      hsa_agent_t agent, const hsa_ext_image_descriptor_t *image_descriptor,
      const void *image_data, hsa_access_permission_t access_permission,
      hsa_ext_image_data_layout_t image_data_layout,
      size_t image_data_row_pitch, size_t image_data_slice_pitch,
      hsa_ext_image_t *image);
} hsa_ext_images_1_pfn_t;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* OPENHSA_INCLUDE_HSA_HSA_EXT_IMAGE_H */
