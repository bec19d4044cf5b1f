/*
 * openhsa - HSAIL finalization extension of the HSA Runtime (1.0 / 1.2).
 *
 * Written for the openhsa project. Names, signatures, numeric values and
 * structure layouts follow the HSA Foundation's Runtime Programmer's
 * Reference (finalization extension chapter).
 */
#ifndef OPENHSA_INCLUDE_HSA_HSA_EXT_FINALIZE_H
#define OPENHSA_INCLUDE_HSA_HSA_EXT_FINALIZE_H

#include "hsa.h"

/*
 * Entry points of this extension are exported by the runtime when it
 * defines HSA_EXPORT_FINALIZER (or OPENHSA_BUILDING_RUNTIME).
 */
#undef HSA_API
#if defined(HSA_EXPORT_FINALIZER) || defined(OPENHSA_BUILDING_RUNTIME)
#define HSA_API HSA_API_EXPORT
#else
#define HSA_API HSA_API_IMPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Header of an in-memory BRIG module (layout given by the HSAIL spec). */
struct BrigModuleHeader;

/* Pointer to an in-memory BRIG module. */
typedef struct BrigModuleHeader *BrigModule_t;

/* Status codes added by the finalization extension. */
enum {
  HSA_EXT_STATUS_ERROR_INVALID_PROGRAM = 0x2000,         /* Bad program. */
  HSA_EXT_STATUS_ERROR_INVALID_MODULE = 0x2001,          /* Bad BRIG module. */
  HSA_EXT_STATUS_ERROR_INCOMPATIBLE_MODULE = 0x2002,     /* Model/profile. */
  HSA_EXT_STATUS_ERROR_MODULE_ALREADY_INCLUDED = 0x2003, /* Added twice. */
  HSA_EXT_STATUS_ERROR_SYMBOL_MISMATCH = 0x2004,     /* Declarations clash. */
  HSA_EXT_STATUS_ERROR_FINALIZATION_FAILED = 0x2005, /* Finalizer failed. */
  HSA_EXT_STATUS_ERROR_DIRECTIVE_MISMATCH = 0x2006   /* Directives clash. */
};

/* A BRIG module handed to the finalizer. */
typedef BrigModule_t hsa_ext_module_t;

/* Opaque HSAIL program handle. */
typedef struct hsa_ext_program_s {
  uint64_t handle; /* Runtime-private value. */
} hsa_ext_program_t;

/* Creates an empty HSAIL program. */
hsa_status_t HSA_API hsa_ext_program_create(
    hsa_machine_model_t machine_model, hsa_profile_t profile,
    hsa_default_float_rounding_mode_t default_float_rounding_mode,
    const char *options, hsa_ext_program_t *program);

/* Destroys a program (not the modules added to it). */
hsa_status_t HSA_API hsa_ext_program_destroy(hsa_ext_program_t program);

/* Adds a BRIG module to a program; the module must outlive the program. */
hsa_status_t HSA_API hsa_ext_program_add_module(hsa_ext_program_t program,
                                                hsa_ext_module_t module);

/* Calls callback once per module of a program. */
hsa_status_t HSA_API hsa_ext_program_iterate_modules(
    hsa_ext_program_t program,
    hsa_status_t (*callback)(hsa_ext_program_t program, hsa_ext_module_t module,
                             void *data),
    void *data);

/* Attributes readable with hsa_ext_program_get_info. */
typedef enum {
  HSA_EXT_PROGRAM_INFO_MACHINE_MODEL = 0,              /* machine model */
  HSA_EXT_PROGRAM_INFO_PROFILE = 1,                    /* hsa_profile_t */
  HSA_EXT_PROGRAM_INFO_DEFAULT_FLOAT_ROUNDING_MODE = 2 /* rounding mode */
} hsa_ext_program_info_t;

/* Reads one program attribute into value. */
hsa_status_t HSA_API hsa_ext_program_get_info(hsa_ext_program_t program,
                                              hsa_ext_program_info_t attribute,
                                              void *value);

/* Call convention choices of the finalizer. */
typedef enum {
  HSA_EXT_FINALIZER_CALL_CONVENTION_AUTO = -1 /* Finalizer picks one. */
} hsa_ext_finalizer_call_convention_t;

/* Control directives applied to every kernel of a finalization. */
typedef struct hsa_ext_control_directives_s {
  uint64_t control_directives_mask;   /* Which directives below are set. */
  uint16_t break_exceptions_mask;     /* Exceptions that stop a wavefront. */
  uint16_t detect_exceptions_mask;    /* Exceptions to record. */
  uint32_t max_dynamic_group_size;    /* Dynamic group bytes requested. */
  uint64_t max_flat_grid_size;        /* Largest grid in work-items. */
  uint32_t max_flat_workgroup_size;   /* Largest work-group in work-items. */
  uint32_t reserved1;                 /* Must be 0. */
  uint64_t required_grid_size[3];     /* Exact grid size, per dimension. */
  hsa_dim3_t required_workgroup_size; /* Exact work-group size. */
  uint8_t required_dim;               /* Exact number of dimensions. */
  uint8_t reserved2[75];              /* Must be 0. */
} hsa_ext_control_directives_t;

/* Finalizes every kernel and function of a program for one ISA. */
hsa_status_t HSA_API hsa_ext_program_finalize(
    hsa_ext_program_t program, hsa_isa_t isa, int32_t call_convention,
    hsa_ext_control_directives_t control_directives, const char *options,
    hsa_code_object_type_t code_object_type, hsa_code_object_t *code_object);

/* Marks that the 1.00 function table below is declared. */
#define hsa_ext_finalizer_1_00

/* Function table of version 1.00 of the finalization extension. */
typedef struct hsa_ext_finalizer_1_00_pfn_s {
  hsa_status_t (*hsa_ext_program_create)(
      hsa_machine_model_t machine_model, hsa_profile_t profile,
      hsa_default_float_rounding_mode_t default_float_rounding_mode,
      const char *options, hsa_ext_program_t *program);
  hsa_status_t (*hsa_ext_program_destroy)(hsa_ext_program_t program);
  hsa_status_t (*hsa_ext_program_add_module)(hsa_ext_program_t program,
                                             hsa_ext_module_t module);
  hsa_status_t (*hsa_ext_program_iterate_modules)(
      hsa_ext_program_t program,
      hsa_status_t (*callback)(hsa_ext_program_t program,
                               hsa_ext_module_t module, void *data),
      void *data);
  hsa_status_t (*hsa_ext_program_get_info)(hsa_ext_program_t program,
                                           hsa_ext_program_info_t attribute,
                                           void *value);
  hsa_status_t (*hsa_ext_program_finalize)(
      hsa_ext_program_t program, hsa_isa_t isa, int32_t call_convention,
      hsa_ext_control_directives_t control_directives, const char *options,
      hsa_code_object_type_t code_object_type, hsa_code_object_t *code_object);
} hsa_ext_finalizer_1_00_pfn_t;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* OPENHSA_INCLUDE_HSA_HSA_EXT_FINALIZE_H */
