/*
 * openhsa - public C API of the HSA Runtime, version 1.2 (core part).
 *
 * Written for the openhsa project. Names, signatures, numeric values and
 * structure layouts follow the HSA Foundation's Runtime Programmer's
 * Reference so that programs built against any conforming hsa.h link and
 * run against libhsa-runtime64 from openhsa without recompilation.
 */
#ifndef OPENHSA_INCLUDE_HSA_HSA_H
#define OPENHSA_INCLUDE_HSA_HSA_H

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

/* ------------------------------------------------------------------------ */
/* Linkage and platform macros                                              */
/* ------------------------------------------------------------------------ */

/* Calling-convention decorator for API entry points (empty on ELF). */
#ifndef HSA_CALL
#define HSA_CALL
#endif

/* Marks a symbol as exported from the runtime shared object. */
#ifndef HSA_EXPORT_DECORATOR
#if defined(__GNUC__) || defined(__clang__)
#define HSA_EXPORT_DECORATOR __attribute__((visibility("default")))
#else
#define HSA_EXPORT_DECORATOR
#endif
#endif

#define HSA_API_EXPORT HSA_EXPORT_DECORATOR HSA_CALL
#define HSA_API_IMPORT HSA_CALL

/*
 * HSA_API decorates every core entry point. The runtime itself defines
 * HSA_EXPORT (or OPENHSA_BUILDING_RUNTIME) so that the declarations carry
 * default visibility; applications get the plain import form.
 */
#ifndef HSA_API
#if defined(HSA_EXPORT) || defined(OPENHSA_BUILDING_RUNTIME)
#define HSA_API HSA_API_EXPORT
#else
#define HSA_API HSA_API_IMPORT
#endif
#endif

/* Defined when pointers are 64 bits wide (the large machine model). */
#undef HSA_LARGE_MODEL
#if defined(__LP64__) || defined(_M_X64) || defined(_M_ARM64) ||               \
    (defined(__SIZEOF_POINTER__) && __SIZEOF_POINTER__ == 8)
#define HSA_LARGE_MODEL
#endif

/* Host byte order; users may preset LITTLEENDIAN_CPU or BIGENDIAN_CPU. */
#if !defined(LITTLEENDIAN_CPU) && !defined(BIGENDIAN_CPU)
#if defined(__i386__) || defined(__x86_64__) || defined(_M_IX86) ||            \
    defined(_M_X64) || defined(_M_ARM64) ||                                    \
    (defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) &&            \
     __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#define LITTLEENDIAN_CPU
#elif defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) &&              \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define BIGENDIAN_CPU
#endif
#endif

#undef HSA_LITTLE_ENDIAN
#if defined(LITTLEENDIAN_CPU)
#define HSA_LITTLE_ENDIAN
#elif !defined(BIGENDIAN_CPU)
#error "hsa.h: define LITTLEENDIAN_CPU or BIGENDIAN_CPU for this target"
#endif

/* Decorates entry points superseded in HSA 1.1/1.2; empty unless preset. */
#ifndef HSA_DEPRECATED
#define HSA_DEPRECATED
#endif

/* Version of the HSA Runtime API declared here (1.0 and later). */
#define HSA_VERSION_1_0 1

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Status codes                                                             */
/* ------------------------------------------------------------------------ */

/* Result of every API call that can fail. */
typedef enum {
  HSA_STATUS_SUCCESS = 0x0,                   /* Success. */
  HSA_STATUS_INFO_BREAK = 0x1,                /* Iteration stopped early. */
  HSA_STATUS_ERROR = 0x1000,                  /* Generic error. */
  HSA_STATUS_ERROR_INVALID_ARGUMENT = 0x1001, /* Bad argument. */
  HSA_STATUS_ERROR_INVALID_QUEUE_CREATION = 0x1002, /* Bad queue request. */
  HSA_STATUS_ERROR_INVALID_ALLOCATION = 0x1003,     /* Bad allocation. */
  HSA_STATUS_ERROR_INVALID_AGENT = 0x1004,          /* Bad agent handle. */
  HSA_STATUS_ERROR_INVALID_REGION = 0x1005,         /* Bad region handle. */
  HSA_STATUS_ERROR_INVALID_SIGNAL = 0x1006,         /* Bad signal handle. */
  HSA_STATUS_ERROR_INVALID_QUEUE = 0x1007,          /* Bad queue. */
  HSA_STATUS_ERROR_OUT_OF_RESOURCES = 0x1008,       /* Resources exhausted. */
  HSA_STATUS_ERROR_INVALID_PACKET_FORMAT = 0x1009,  /* Malformed AQL packet. */
  HSA_STATUS_ERROR_RESOURCE_FREE = 0x100A,          /* Resource still in use. */
  HSA_STATUS_ERROR_NOT_INITIALIZED = 0x100B,        /* hsa_init not called. */
  HSA_STATUS_ERROR_REFCOUNT_OVERFLOW = 0x100C,      /* Too many hsa_init. */
  HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS = 0x100D, /* Arguments disagree. */
  HSA_STATUS_ERROR_INVALID_INDEX = 0x100E,          /* Index out of range. */
  HSA_STATUS_ERROR_INVALID_ISA = 0x100F,            /* Bad ISA handle. */
  HSA_STATUS_ERROR_INVALID_ISA_NAME = 0x1017,       /* Unknown ISA name. */
  HSA_STATUS_ERROR_INVALID_CODE_OBJECT = 0x1010,    /* Bad code object. */
  HSA_STATUS_ERROR_INVALID_EXECUTABLE = 0x1011,     /* Bad executable. */
  HSA_STATUS_ERROR_FROZEN_EXECUTABLE = 0x1012,      /* Executable is frozen. */
  HSA_STATUS_ERROR_INVALID_SYMBOL_NAME = 0x1013,    /* No such symbol. */
  HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED = 0x1014, /* Variable redefined. */
  HSA_STATUS_ERROR_VARIABLE_UNDEFINED = 0x1015,  /* Variable not defined. */
  HSA_STATUS_ERROR_EXCEPTION = 0x1016,           /* HSAIL exception hit. */
  HSA_STATUS_ERROR_INVALID_CODE_SYMBOL = 0x1018, /* Bad code symbol. */
  HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL = 0x1019, /* Bad exec symbol. */
  HSA_STATUS_ERROR_INVALID_FILE = 0x1020, /* Bad file descriptor. */
  HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER = 0x1021, /* Bad reader. */
  HSA_STATUS_ERROR_INVALID_CACHE = 0x1022,              /* Bad cache handle. */
  HSA_STATUS_ERROR_INVALID_WAVEFRONT = 0x1023,     /* Bad wavefront handle. */
  HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP = 0x1024,  /* Bad signal group. */
  HSA_STATUS_ERROR_INVALID_RUNTIME_STATE = 0x1025, /* Runtime state wrong. */
  HSA_STATUS_ERROR_FATAL = 0x1026                  /* Unrecoverable error. */
} hsa_status_t;

/* Gives a human-readable, runtime-owned string for a status code. */
hsa_status_t HSA_API hsa_status_string(hsa_status_t status,
                                       const char **status_string);

/* ------------------------------------------------------------------------ */
/* Common definitions                                                       */
/* ------------------------------------------------------------------------ */

/* Three-dimensional extent or offset. */
typedef struct hsa_dim3_s {
  uint32_t x; /* Width. */
  uint32_t y; /* Height. */
  uint32_t z; /* Depth. */
} hsa_dim3_t;

/* Access rights granted on memory or images. */
typedef enum {
  HSA_ACCESS_PERMISSION_RO = 1, /* Read only. */
  HSA_ACCESS_PERMISSION_WO = 2, /* Write only. */
  HSA_ACCESS_PERMISSION_RW = 3  /* Read and write. */
} hsa_access_permission_t;

/* Platform file descriptor. */
typedef int hsa_file_t;

/* ------------------------------------------------------------------------ */
/* Initialization and shutdown                                              */
/* ------------------------------------------------------------------------ */

/* Starts the runtime, or bumps its reference count. */
hsa_status_t HSA_API hsa_init(void);

/* Drops one reference; the last one tears the runtime down. */
hsa_status_t HSA_API hsa_shut_down(void);

/* ------------------------------------------------------------------------ */
/* System and agent information                                             */
/* ------------------------------------------------------------------------ */

/* Byte order. */
typedef enum {
  HSA_ENDIANNESS_LITTLE = 0, /* Least significant byte first. */
  HSA_ENDIANNESS_BIG = 1     /* Most significant byte first. */
} hsa_endianness_t;

/* Machine model (pointer width). */
typedef enum {
  HSA_MACHINE_MODEL_SMALL = 0, /* 32-bit addresses. */
  HSA_MACHINE_MODEL_LARGE = 1  /* 64-bit addresses. */
} hsa_machine_model_t;

/* HSA profile. */
typedef enum {
  HSA_PROFILE_BASE = 0, /* Base profile. */
  HSA_PROFILE_FULL = 1  /* Full profile. */
} hsa_profile_t;

/* Attributes readable with hsa_system_get_info. */
typedef enum {
  HSA_SYSTEM_INFO_VERSION_MAJOR = 0,       /* uint16_t */
  HSA_SYSTEM_INFO_VERSION_MINOR = 1,       /* uint16_t */
  HSA_SYSTEM_INFO_TIMESTAMP = 2,           /* uint64_t */
  HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY = 3, /* uint64_t, Hz */
  HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT = 4,     /* uint64_t, timestamp ticks */
  HSA_SYSTEM_INFO_ENDIANNESS = 5,          /* hsa_endianness_t */
  HSA_SYSTEM_INFO_MACHINE_MODEL = 6,       /* hsa_machine_model_t */
  HSA_SYSTEM_INFO_EXTENSIONS = 7           /* uint8_t[128] bit mask */
} hsa_system_info_t;

/* Reads one system attribute into value. */
hsa_status_t HSA_API hsa_system_get_info(hsa_system_info_t attribute,
                                         void *value);

/* Standard extension identifiers. */
typedef enum {
  HSA_EXTENSION_FINALIZER = 0,            /* HSAIL finalization. */
  HSA_EXTENSION_IMAGES = 1,               /* Images and samplers. */
  HSA_EXTENSION_PERFORMANCE_COUNTERS = 2, /* Performance counters. */
  HSA_EXTENSION_PROFILING_EVENTS = 3,     /* Profiling events. */
  HSA_EXTENSION_STD_LAST = 3              /* Largest standard identifier. */
} hsa_extension_t;

/* Gives the name of an extension. */
hsa_status_t HSA_API hsa_extension_get_name(uint16_t extension,
                                            const char **name);

/* 1.0 query: is this exact extension version supported by the system? */
hsa_status_t HSA_API HSA_DEPRECATED
hsa_system_extension_supported(uint16_t extension, uint16_t version_major,
                               uint16_t version_minor, bool *result);

/* Is a major version of an extension supported; reports its minor version. */
hsa_status_t HSA_API
hsa_system_major_extension_supported(uint16_t extension, uint16_t version_major,
                                     uint16_t *version_minor, bool *result);

/* 1.0 query: copies an extension's function table into table. */
hsa_status_t HSA_API HSA_DEPRECATED
hsa_system_get_extension_table(uint16_t extension, uint16_t version_major,
                               uint16_t version_minor, void *table);

/* Copies up to table_length bytes of an extension's function table. */
hsa_status_t HSA_API
hsa_system_get_major_extension_table(uint16_t extension, uint16_t version_major,
                                     size_t table_length, void *table);

/* Opaque agent handle. */
typedef struct hsa_agent_s {
  uint64_t handle; /* Runtime-private value. */
} hsa_agent_t;

/* Agent capabilities (bit mask). */
typedef enum {
  HSA_AGENT_FEATURE_KERNEL_DISPATCH = 1, /* Runs kernel dispatch packets. */
  HSA_AGENT_FEATURE_AGENT_DISPATCH = 2   /* Runs agent dispatch packets. */
} hsa_agent_feature_t;

/* Hardware kind of an agent. */
typedef enum {
  HSA_DEVICE_TYPE_CPU = 0, /* Processor. */
  HSA_DEVICE_TYPE_GPU = 1, /* Graphics processor. */
  HSA_DEVICE_TYPE_DSP = 2  /* Signal processor. */
} hsa_device_type_t;

/* Default floating-point rounding mode. */
typedef enum {
  HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT = 0, /* Use the default. */
  HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO = 1,    /* Round toward zero. */
  HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR = 2     /* Round to nearest even. */
} hsa_default_float_rounding_mode_t;

/* Attributes readable with hsa_agent_get_info. */
typedef enum {
  HSA_AGENT_INFO_NAME = 0,                        /* char[64] */
  HSA_AGENT_INFO_VENDOR_NAME = 1,                 /* char[64] */
  HSA_AGENT_INFO_FEATURE = 2,                     /* hsa_agent_feature_t */
  HSA_AGENT_INFO_MACHINE_MODEL = 3,               /* hsa_machine_model_t */
  HSA_AGENT_INFO_PROFILE = 4,                     /* hsa_profile_t */
  HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE = 5, /* rounding mode */
  HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES = 23, /* mask */
  HSA_AGENT_INFO_FAST_F16_OPERATION = 24,                        /* bool */
  HSA_AGENT_INFO_WAVEFRONT_SIZE = 6,                             /* uint32_t */
  HSA_AGENT_INFO_WORKGROUP_MAX_DIM = 7,  /* uint16_t[3] */
  HSA_AGENT_INFO_WORKGROUP_MAX_SIZE = 8, /* uint32_t */
  HSA_AGENT_INFO_GRID_MAX_DIM = 9,       /* hsa_dim3_t */
  HSA_AGENT_INFO_GRID_MAX_SIZE = 10,     /* uint32_t */
  HSA_AGENT_INFO_FBARRIER_MAX_SIZE = 11, /* uint32_t */
  HSA_AGENT_INFO_QUEUES_MAX = 12,        /* uint32_t */
  HSA_AGENT_INFO_QUEUE_MIN_SIZE = 13,    /* uint32_t */
  HSA_AGENT_INFO_QUEUE_MAX_SIZE = 14,    /* uint32_t */
  HSA_AGENT_INFO_QUEUE_TYPE = 15,        /* hsa_queue_type32_t */
  HSA_AGENT_INFO_NODE = 16,              /* uint32_t */
  HSA_AGENT_INFO_DEVICE = 17,            /* hsa_device_type_t */
  HSA_AGENT_INFO_CACHE_SIZE = 18,        /* uint32_t[4] */
  HSA_AGENT_INFO_ISA = 19,               /* hsa_isa_t */
  HSA_AGENT_INFO_EXTENSIONS = 20,        /* uint8_t[128] */
  HSA_AGENT_INFO_VERSION_MAJOR = 21,     /* uint16_t */
  HSA_AGENT_INFO_VERSION_MINOR = 22      /* uint16_t */
} hsa_agent_info_t;

/* Reads one agent attribute into value. */
hsa_status_t HSA_API hsa_agent_get_info(hsa_agent_t agent,
                                        hsa_agent_info_t attribute,
                                        void *value);

/* Calls callback once per agent in the system. */
hsa_status_t HSA_API hsa_iterate_agents(
    hsa_status_t (*callback)(hsa_agent_t agent, void *data), void *data);

/* Reaction to an HSAIL exception (bit mask). */
typedef enum {
  HSA_EXCEPTION_POLICY_BREAK = 1, /* Stop the wavefront. */
  HSA_EXCEPTION_POLICY_DETECT = 2 /* Record and continue. */
} hsa_exception_policy_t;

/* 1.0 query of the exception policies of an agent for a profile. */
hsa_status_t HSA_API HSA_DEPRECATED hsa_agent_get_exception_policies(
    hsa_agent_t agent, hsa_profile_t profile, uint16_t *mask);

/* Opaque cache handle. */
typedef struct hsa_cache_s {
  uint64_t handle; /* Runtime-private value. */
} hsa_cache_t;

/* Attributes readable with hsa_cache_get_info. */
typedef enum {
  HSA_CACHE_INFO_NAME_LENGTH = 0, /* uint32_t */
  HSA_CACHE_INFO_NAME = 1,        /* char[NAME_LENGTH], not terminated */
  HSA_CACHE_INFO_LEVEL = 2,       /* uint8_t */
  HSA_CACHE_INFO_SIZE = 3         /* uint32_t, bytes */
} hsa_cache_info_t;

/* Reads one cache attribute into value. */
hsa_status_t HSA_API hsa_cache_get_info(hsa_cache_t cache,
                                        hsa_cache_info_t attribute,
                                        void *value);

/* Calls callback once per cache of an agent. */
hsa_status_t HSA_API hsa_agent_iterate_caches(
    hsa_agent_t agent, hsa_status_t (*callback)(hsa_cache_t cache, void *data),
    void *data);

/* 1.0 query: is this exact extension version supported by the agent? */
hsa_status_t HSA_API HSA_DEPRECATED hsa_agent_extension_supported(
    uint16_t extension, hsa_agent_t agent, uint16_t version_major,
    uint16_t version_minor, bool *result);

/* Is a major version of an extension supported by the agent. */
hsa_status_t HSA_API hsa_agent_major_extension_supported(
    uint16_t extension, hsa_agent_t agent, uint16_t version_major,
    uint16_t *version_minor, bool *result);

/* ------------------------------------------------------------------------ */
/* Signals                                                                  */
/* ------------------------------------------------------------------------ */

/* Opaque signal handle. */
typedef struct hsa_signal_s {
  uint64_t handle; /* Runtime-private value; 0 means no signal. */
} hsa_signal_t;

/* Value held by a signal: as wide as a pointer. */
#ifdef HSA_LARGE_MODEL
typedef int64_t hsa_signal_value_t;
#else
typedef int32_t hsa_signal_value_t;
#endif

/* Creates a signal; consumers lists the agents that may wait on it. */
hsa_status_t HSA_API hsa_signal_create(hsa_signal_value_t initial_value,
                                       uint32_t num_consumers,
                                       const hsa_agent_t *consumers,
                                       hsa_signal_t *signal);

/* Destroys a signal. */
hsa_status_t HSA_API hsa_signal_destroy(hsa_signal_t signal);

/* Atomic reads of a signal value. */
hsa_signal_value_t HSA_API hsa_signal_load_scacquire(hsa_signal_t signal);
hsa_signal_value_t HSA_API hsa_signal_load_relaxed(hsa_signal_t signal);
/* 1.0 name of hsa_signal_load_scacquire. */
hsa_signal_value_t HSA_API HSA_DEPRECATED
hsa_signal_load_acquire(hsa_signal_t signal);

/* Atomic writes of a signal value (waiters are woken). */
void HSA_API hsa_signal_store_relaxed(hsa_signal_t signal,
                                      hsa_signal_value_t value);
void HSA_API hsa_signal_store_screlease(hsa_signal_t signal,
                                        hsa_signal_value_t value);
/* 1.0 name of hsa_signal_store_screlease. */
void HSA_API HSA_DEPRECATED hsa_signal_store_release(hsa_signal_t signal,
                                                     hsa_signal_value_t value);

/* Atomic writes that need not wake waiters. */
void HSA_API hsa_signal_silent_store_relaxed(hsa_signal_t signal,
                                             hsa_signal_value_t value);
void HSA_API hsa_signal_silent_store_screlease(hsa_signal_t signal,
                                               hsa_signal_value_t value);

/* Atomic exchange; returns the previous value. */
hsa_signal_value_t HSA_API
hsa_signal_exchange_scacq_screl(hsa_signal_t signal, hsa_signal_value_t value);
/* 1.0 name of hsa_signal_exchange_scacq_screl. */
hsa_signal_value_t HSA_API HSA_DEPRECATED
hsa_signal_exchange_acq_rel(hsa_signal_t signal, hsa_signal_value_t value);
hsa_signal_value_t HSA_API
hsa_signal_exchange_scacquire(hsa_signal_t signal, hsa_signal_value_t value);
/* 1.0 name of hsa_signal_exchange_scacquire. */
hsa_signal_value_t HSA_API HSA_DEPRECATED
hsa_signal_exchange_acquire(hsa_signal_t signal, hsa_signal_value_t value);
hsa_signal_value_t HSA_API
hsa_signal_exchange_relaxed(hsa_signal_t signal, hsa_signal_value_t value);
hsa_signal_value_t HSA_API
hsa_signal_exchange_screlease(hsa_signal_t signal, hsa_signal_value_t value);
/* 1.0 name of hsa_signal_exchange_screlease. */
hsa_signal_value_t HSA_API HSA_DEPRECATED
hsa_signal_exchange_release(hsa_signal_t signal, hsa_signal_value_t value);

/* Atomic compare-and-swap; returns the previous value. */
hsa_signal_value_t HSA_API hsa_signal_cas_scacq_screl(
    hsa_signal_t signal, hsa_signal_value_t expected, hsa_signal_value_t value);
/* 1.0 name of hsa_signal_cas_scacq_screl. */
hsa_signal_value_t HSA_API HSA_DEPRECATED hsa_signal_cas_acq_rel(
    hsa_signal_t signal, hsa_signal_value_t expected, hsa_signal_value_t value);
hsa_signal_value_t HSA_API hsa_signal_cas_scacquire(hsa_signal_t signal,
                                                    hsa_signal_value_t expected,
                                                    hsa_signal_value_t value);
/* 1.0 name of hsa_signal_cas_scacquire. */
hsa_signal_value_t HSA_API HSA_DEPRECATED hsa_signal_cas_acquire(
    hsa_signal_t signal, hsa_signal_value_t expected, hsa_signal_value_t value);
hsa_signal_value_t HSA_API hsa_signal_cas_relaxed(hsa_signal_t signal,
                                                  hsa_signal_value_t expected,
                                                  hsa_signal_value_t value);
hsa_signal_value_t HSA_API hsa_signal_cas_screlease(hsa_signal_t signal,
                                                    hsa_signal_value_t expected,
                                                    hsa_signal_value_t value);
/* 1.0 name of hsa_signal_cas_screlease. */
hsa_signal_value_t HSA_API HSA_DEPRECATED hsa_signal_cas_release(
    hsa_signal_t signal, hsa_signal_value_t expected, hsa_signal_value_t value);

/* Atomic add. */
void HSA_API hsa_signal_add_scacq_screl(hsa_signal_t signal,
                                        hsa_signal_value_t value);
/* 1.0 name of hsa_signal_add_scacq_screl. */
void HSA_API HSA_DEPRECATED hsa_signal_add_acq_rel(hsa_signal_t signal,
                                                   hsa_signal_value_t value);
void HSA_API hsa_signal_add_scacquire(hsa_signal_t signal,
                                      hsa_signal_value_t value);
/* 1.0 name of hsa_signal_add_scacquire. */
void HSA_API HSA_DEPRECATED hsa_signal_add_acquire(hsa_signal_t signal,
                                                   hsa_signal_value_t value);
void HSA_API hsa_signal_add_relaxed(hsa_signal_t signal,
                                    hsa_signal_value_t value);
void HSA_API hsa_signal_add_screlease(hsa_signal_t signal,
                                      hsa_signal_value_t value);
/* 1.0 name of hsa_signal_add_screlease. */
void HSA_API HSA_DEPRECATED hsa_signal_add_release(hsa_signal_t signal,
                                                   hsa_signal_value_t value);

/* Atomic subtract. */
void HSA_API hsa_signal_subtract_scacq_screl(hsa_signal_t signal,
                                             hsa_signal_value_t value);
/* 1.0 name of hsa_signal_subtract_scacq_screl. */
void HSA_API HSA_DEPRECATED
hsa_signal_subtract_acq_rel(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API hsa_signal_subtract_scacquire(hsa_signal_t signal,
                                           hsa_signal_value_t value);
/* 1.0 name of hsa_signal_subtract_scacquire. */
void HSA_API HSA_DEPRECATED
hsa_signal_subtract_acquire(hsa_signal_t signal, hsa_signal_value_t value);
void HSA_API hsa_signal_subtract_relaxed(hsa_signal_t signal,
                                         hsa_signal_value_t value);
void HSA_API hsa_signal_subtract_screlease(hsa_signal_t signal,
                                           hsa_signal_value_t value);
/* 1.0 name of hsa_signal_subtract_screlease. */
void HSA_API HSA_DEPRECATED
hsa_signal_subtract_release(hsa_signal_t signal, hsa_signal_value_t value);

/* Atomic bitwise AND. */
void HSA_API hsa_signal_and_scacq_screl(hsa_signal_t signal,
                                        hsa_signal_value_t value);
/* 1.0 name of hsa_signal_and_scacq_screl. */
void HSA_API HSA_DEPRECATED hsa_signal_and_acq_rel(hsa_signal_t signal,
                                                   hsa_signal_value_t value);
void HSA_API hsa_signal_and_scacquire(hsa_signal_t signal,
                                      hsa_signal_value_t value);
/* 1.0 name of hsa_signal_and_scacquire. */
void HSA_API HSA_DEPRECATED hsa_signal_and_acquire(hsa_signal_t signal,
                                                   hsa_signal_value_t value);
void HSA_API hsa_signal_and_relaxed(hsa_signal_t signal,
                                    hsa_signal_value_t value);
void HSA_API hsa_signal_and_screlease(hsa_signal_t signal,
                                      hsa_signal_value_t value);
/* 1.0 name of hsa_signal_and_screlease. */
void HSA_API HSA_DEPRECATED hsa_signal_and_release(hsa_signal_t signal,
                                                   hsa_signal_value_t value);

/* Atomic bitwise OR. */
void HSA_API hsa_signal_or_scacq_screl(hsa_signal_t signal,
                                       hsa_signal_value_t value);
/* 1.0 name of hsa_signal_or_scacq_screl. */
void HSA_API HSA_DEPRECATED hsa_signal_or_acq_rel(hsa_signal_t signal,
                                                  hsa_signal_value_t value);
void HSA_API hsa_signal_or_scacquire(hsa_signal_t signal,
                                     hsa_signal_value_t value);
/* 1.0 name of hsa_signal_or_scacquire. */
void HSA_API HSA_DEPRECATED hsa_signal_or_acquire(hsa_signal_t signal,
                                                  hsa_signal_value_t value);
void HSA_API hsa_signal_or_relaxed(hsa_signal_t signal,
                                   hsa_signal_value_t value);
void HSA_API hsa_signal_or_screlease(hsa_signal_t signal,
                                     hsa_signal_value_t value);
/* 1.0 name of hsa_signal_or_screlease. */
void HSA_API HSA_DEPRECATED hsa_signal_or_release(hsa_signal_t signal,
                                                  hsa_signal_value_t value);

/* Atomic bitwise XOR. */
void HSA_API hsa_signal_xor_scacq_screl(hsa_signal_t signal,
                                        hsa_signal_value_t value);
/* 1.0 name of hsa_signal_xor_scacq_screl. */
void HSA_API HSA_DEPRECATED hsa_signal_xor_acq_rel(hsa_signal_t signal,
                                                   hsa_signal_value_t value);
void HSA_API hsa_signal_xor_scacquire(hsa_signal_t signal,
                                      hsa_signal_value_t value);
/* 1.0 name of hsa_signal_xor_scacquire. */
void HSA_API HSA_DEPRECATED hsa_signal_xor_acquire(hsa_signal_t signal,
                                                   hsa_signal_value_t value);
void HSA_API hsa_signal_xor_relaxed(hsa_signal_t signal,
                                    hsa_signal_value_t value);
void HSA_API hsa_signal_xor_screlease(hsa_signal_t signal,
                                      hsa_signal_value_t value);
/* 1.0 name of hsa_signal_xor_screlease. */
void HSA_API HSA_DEPRECATED hsa_signal_xor_release(hsa_signal_t signal,
                                                   hsa_signal_value_t value);

/* Comparison used by signal waits. */
typedef enum {
  HSA_SIGNAL_CONDITION_EQ = 0, /* Equal. */
  HSA_SIGNAL_CONDITION_NE = 1, /* Not equal. */
  HSA_SIGNAL_CONDITION_LT = 2, /* Less than. */
  HSA_SIGNAL_CONDITION_GTE = 3 /* Greater than or equal. */
} hsa_signal_condition_t;

/* Hint for how a waiter should wait. */
typedef enum {
  HSA_WAIT_STATE_BLOCKED = 0, /* Sleep in the kernel. */
  HSA_WAIT_STATE_ACTIVE = 1   /* Spin. */
} hsa_wait_state_t;

/* Waits until the condition holds or the hint expires; returns the value. */
hsa_signal_value_t HSA_API hsa_signal_wait_scacquire(
    hsa_signal_t signal, hsa_signal_condition_t condition,
    hsa_signal_value_t compare_value, uint64_t timeout_hint,
    hsa_wait_state_t wait_state_hint);

/* As hsa_signal_wait_scacquire, with relaxed ordering. */
hsa_signal_value_t HSA_API
hsa_signal_wait_relaxed(hsa_signal_t signal, hsa_signal_condition_t condition,
                        hsa_signal_value_t compare_value, uint64_t timeout_hint,
                        hsa_wait_state_t wait_state_hint);

/* 1.0 name of hsa_signal_wait_scacquire. */
hsa_signal_value_t HSA_API HSA_DEPRECATED
hsa_signal_wait_acquire(hsa_signal_t signal, hsa_signal_condition_t condition,
                        hsa_signal_value_t compare_value, uint64_t timeout_hint,
                        hsa_wait_state_t wait_state_hint);

/* Opaque signal group handle. */
typedef struct hsa_signal_group_s {
  uint64_t handle; /* Runtime-private value. */
} hsa_signal_group_t;

/* Creates a group of signals that can be waited on together. */
hsa_status_t HSA_API hsa_signal_group_create(uint32_t num_signals,
                                             const hsa_signal_t *signals,
                                             uint32_t num_consumers,
                                             const hsa_agent_t *consumers,
                                             hsa_signal_group_t *signal_group);

/* Destroys a signal group (not its signals). */
hsa_status_t HSA_API hsa_signal_group_destroy(hsa_signal_group_t signal_group);

/* Waits until any signal in the group meets its condition. */
hsa_status_t HSA_API hsa_signal_group_wait_any_scacquire(
    hsa_signal_group_t signal_group, const hsa_signal_condition_t *conditions,
    const hsa_signal_value_t *compare_values, hsa_wait_state_t wait_state_hint,
    hsa_signal_t *signal, hsa_signal_value_t *value);

/* As hsa_signal_group_wait_any_scacquire, with relaxed ordering. */
hsa_status_t HSA_API hsa_signal_group_wait_any_relaxed(
    hsa_signal_group_t signal_group, const hsa_signal_condition_t *conditions,
    const hsa_signal_value_t *compare_values, hsa_wait_state_t wait_state_hint,
    hsa_signal_t *signal, hsa_signal_value_t *value);

/* ------------------------------------------------------------------------ */
/* Queues                                                                   */
/* ------------------------------------------------------------------------ */

/* Opaque memory region handle. */
typedef struct hsa_region_s {
  uint64_t handle; /* Runtime-private value. */
} hsa_region_t;

/* Producer model of a queue. */
typedef enum {
  HSA_QUEUE_TYPE_MULTI = 0,      /* Any number of producers. */
  HSA_QUEUE_TYPE_SINGLE = 1,     /* One producer at a time. */
  HSA_QUEUE_TYPE_COOPERATIVE = 2 /* Multi-producer, work-groups co-resident. */
} hsa_queue_type_t;

/* Fixed-width carrier for hsa_queue_type_t values. */
typedef uint32_t hsa_queue_type32_t;

/* Packet kinds a queue accepts (bit mask). */
typedef enum {
  HSA_QUEUE_FEATURE_KERNEL_DISPATCH = 1, /* Kernel dispatch packets. */
  HSA_QUEUE_FEATURE_AGENT_DISPATCH = 2   /* Agent dispatch packets. */
} hsa_queue_feature_t;

/* User-mode queue descriptor shared with the packet processor. */
typedef struct hsa_queue_s {
  hsa_queue_type32_t type; /* hsa_queue_type_t value. */
  uint32_t features;       /* hsa_queue_feature_t mask. */
#ifdef HSA_LARGE_MODEL
  void *base_address; /* Ring buffer of packets. */
#elif defined HSA_LITTLE_ENDIAN
  void *base_address;    /* Ring buffer of packets. */
  uint32_t reserved0;    /* Pads the pointer to 64 bits. */
#else
  uint32_t reserved0;    /* Pads the pointer to 64 bits. */
  void *base_address;    /* Ring buffer of packets. */
#endif
  hsa_signal_t doorbell_signal; /* Rung after writing packets. */
  uint32_t size;                /* Capacity in packets (power of two). */
  uint32_t reserved1;           /* Must be 0. */
  uint64_t id;                  /* Unique queue identifier. */
} hsa_queue_t;

/* Creates a queue on a kernel or agent dispatch agent. */
hsa_status_t HSA_API hsa_queue_create(
    hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
    void (*callback)(hsa_status_t status, hsa_queue_t *source, void *data),
    void *data, uint32_t private_segment_size, uint32_t group_segment_size,
    hsa_queue_t **queue);

/* Creates a queue serviced by software, in the given region. */
hsa_status_t HSA_API hsa_soft_queue_create(hsa_region_t region, uint32_t size,
                                           hsa_queue_type32_t type,
                                           uint32_t features,
                                           hsa_signal_t doorbell_signal,
                                           hsa_queue_t **queue);

/* Destroys a queue. */
hsa_status_t HSA_API hsa_queue_destroy(hsa_queue_t *queue);

/* Stops a queue from processing further packets. */
hsa_status_t HSA_API hsa_queue_inactivate(hsa_queue_t *queue);

/* Atomic reads of the read index. */
uint64_t HSA_API hsa_queue_load_read_index_scacquire(const hsa_queue_t *queue);
uint64_t HSA_API hsa_queue_load_read_index_relaxed(const hsa_queue_t *queue);
/* 1.0 name of hsa_queue_load_read_index_scacquire. */
uint64_t HSA_API HSA_DEPRECATED
hsa_queue_load_read_index_acquire(const hsa_queue_t *queue);

/* Atomic reads of the write index. */
uint64_t HSA_API hsa_queue_load_write_index_scacquire(const hsa_queue_t *queue);
uint64_t HSA_API hsa_queue_load_write_index_relaxed(const hsa_queue_t *queue);
/* 1.0 name of hsa_queue_load_write_index_scacquire. */
uint64_t HSA_API HSA_DEPRECATED
hsa_queue_load_write_index_acquire(const hsa_queue_t *queue);

/* Atomic writes of the write index. */
void HSA_API hsa_queue_store_write_index_relaxed(const hsa_queue_t *queue,
                                                 uint64_t value);
void HSA_API hsa_queue_store_write_index_screlease(const hsa_queue_t *queue,
                                                   uint64_t value);
/* 1.0 name of hsa_queue_store_write_index_screlease. */
void HSA_API HSA_DEPRECATED
hsa_queue_store_write_index_release(const hsa_queue_t *queue, uint64_t value);

/* Atomic compare-and-swap of the write index; returns the previous value. */
uint64_t HSA_API hsa_queue_cas_write_index_scacq_screl(const hsa_queue_t *queue,
                                                       uint64_t expected,
                                                       uint64_t value);
/* 1.0 name of hsa_queue_cas_write_index_scacq_screl. */
uint64_t HSA_API HSA_DEPRECATED hsa_queue_cas_write_index_acq_rel(
    const hsa_queue_t *queue, uint64_t expected, uint64_t value);
uint64_t HSA_API hsa_queue_cas_write_index_scacquire(const hsa_queue_t *queue,
                                                     uint64_t expected,
                                                     uint64_t value);
/* 1.0 name of hsa_queue_cas_write_index_scacquire. */
uint64_t HSA_API HSA_DEPRECATED hsa_queue_cas_write_index_acquire(
    const hsa_queue_t *queue, uint64_t expected, uint64_t value);
uint64_t HSA_API hsa_queue_cas_write_index_relaxed(const hsa_queue_t *queue,
                                                   uint64_t expected,
                                                   uint64_t value);
uint64_t HSA_API hsa_queue_cas_write_index_screlease(const hsa_queue_t *queue,
                                                     uint64_t expected,
                                                     uint64_t value);
/* 1.0 name of hsa_queue_cas_write_index_screlease. */
uint64_t HSA_API HSA_DEPRECATED hsa_queue_cas_write_index_release(
    const hsa_queue_t *queue, uint64_t expected, uint64_t value);

/* Atomic add to the write index; returns the previous value. */
uint64_t HSA_API hsa_queue_add_write_index_scacq_screl(const hsa_queue_t *queue,
                                                       uint64_t value);
/* 1.0 name of hsa_queue_add_write_index_scacq_screl. */
uint64_t HSA_API HSA_DEPRECATED
hsa_queue_add_write_index_acq_rel(const hsa_queue_t *queue, uint64_t value);
uint64_t HSA_API hsa_queue_add_write_index_scacquire(const hsa_queue_t *queue,
                                                     uint64_t value);
/* 1.0 name of hsa_queue_add_write_index_scacquire. */
uint64_t HSA_API HSA_DEPRECATED
hsa_queue_add_write_index_acquire(const hsa_queue_t *queue, uint64_t value);
uint64_t HSA_API hsa_queue_add_write_index_relaxed(const hsa_queue_t *queue,
                                                   uint64_t value);
uint64_t HSA_API hsa_queue_add_write_index_screlease(const hsa_queue_t *queue,
                                                     uint64_t value);
/* 1.0 name of hsa_queue_add_write_index_screlease. */
uint64_t HSA_API HSA_DEPRECATED
hsa_queue_add_write_index_release(const hsa_queue_t *queue, uint64_t value);

/* Atomic writes of the read index (packet processor side). */
void HSA_API hsa_queue_store_read_index_relaxed(const hsa_queue_t *queue,
                                                uint64_t value);
void HSA_API hsa_queue_store_read_index_screlease(const hsa_queue_t *queue,
                                                  uint64_t value);
/* 1.0 name of hsa_queue_store_read_index_screlease. */
void HSA_API HSA_DEPRECATED
hsa_queue_store_read_index_release(const hsa_queue_t *queue, uint64_t value);

/* ------------------------------------------------------------------------ */
/* Architected Queuing Language (AQL) packets                               */
/* ------------------------------------------------------------------------ */

/* Packet type, stored in the low bits of the header. */
typedef enum {
  HSA_PACKET_TYPE_VENDOR_SPECIFIC = 0, /* Vendor-defined layout. */
  HSA_PACKET_TYPE_INVALID = 1,         /* Slot is free. */
  HSA_PACKET_TYPE_KERNEL_DISPATCH = 2, /* hsa_kernel_dispatch_packet_t */
  HSA_PACKET_TYPE_BARRIER_AND = 3,     /* hsa_barrier_and_packet_t */
  HSA_PACKET_TYPE_AGENT_DISPATCH = 4,  /* hsa_agent_dispatch_packet_t */
  HSA_PACKET_TYPE_BARRIER_OR = 5       /* hsa_barrier_or_packet_t */
} hsa_packet_type_t;

/* Scope of a packet's acquire or release fence. */
typedef enum {
  HSA_FENCE_SCOPE_NONE = 0,  /* No fence. */
  HSA_FENCE_SCOPE_AGENT = 1, /* Agent scope. */
  HSA_FENCE_SCOPE_SYSTEM = 2 /* System scope. */
} hsa_fence_scope_t;

/* Bit offsets of the fields of a packet header. */
typedef enum {
  HSA_PACKET_HEADER_TYPE = 0,                   /* hsa_packet_type_t */
  HSA_PACKET_HEADER_BARRIER = 8,                /* Barrier bit. */
  HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE = 9,  /* hsa_fence_scope_t */
  HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE = 9,    /* 1.0 name. */
  HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE = 11, /* hsa_fence_scope_t */
  HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE = 11    /* 1.0 name. */
} hsa_packet_header_t;

/* Bit widths of the fields of a packet header. */
typedef enum {
  HSA_PACKET_HEADER_WIDTH_TYPE = 8,
  HSA_PACKET_HEADER_WIDTH_BARRIER = 1,
  HSA_PACKET_HEADER_WIDTH_SCACQUIRE_FENCE_SCOPE = 2,
  HSA_PACKET_HEADER_WIDTH_ACQUIRE_FENCE_SCOPE = 2,
  HSA_PACKET_HEADER_WIDTH_SCRELEASE_FENCE_SCOPE = 2,
  HSA_PACKET_HEADER_WIDTH_RELEASE_FENCE_SCOPE = 2
} hsa_packet_header_width_t;

/* Bit offsets of the fields of a kernel dispatch packet's setup word. */
typedef enum {
  HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS = 0 /* Number of dimensions. */
} hsa_kernel_dispatch_packet_setup_t;

/* Bit widths of the fields of a kernel dispatch packet's setup word. */
typedef enum {
  HSA_KERNEL_DISPATCH_PACKET_SETUP_WIDTH_DIMENSIONS = 2
} hsa_kernel_dispatch_packet_setup_width_t;

/* Launches a kernel on a kernel agent (64 bytes). */
typedef struct hsa_kernel_dispatch_packet_s {
  uint16_t header;               /* Packet header. */
  uint16_t setup;                /* Dimensions (1 to 3). */
  uint16_t workgroup_size_x;     /* Work-items per work-group, x. */
  uint16_t workgroup_size_y;     /* Work-items per work-group, y. */
  uint16_t workgroup_size_z;     /* Work-items per work-group, z. */
  uint16_t reserved0;            /* Must be 0. */
  uint32_t grid_size_x;          /* Work-items in the grid, x. */
  uint32_t grid_size_y;          /* Work-items in the grid, y. */
  uint32_t grid_size_z;          /* Work-items in the grid, z. */
  uint32_t private_segment_size; /* Private bytes per work-item. */
  uint32_t group_segment_size;   /* Group bytes per work-group. */
  uint64_t kernel_object;        /* Address of the kernel code descriptor. */
#ifdef HSA_LARGE_MODEL
  void *kernarg_address; /* Kernel arguments. */
#elif defined HSA_LITTLE_ENDIAN
  void *kernarg_address; /* Kernel arguments. */
  uint32_t reserved1;    /* Pads the pointer to 64 bits. */
#else
  uint32_t reserved1;    /* Pads the pointer to 64 bits. */
  void *kernarg_address; /* Kernel arguments. */
#endif
  uint64_t reserved2;             /* Must be 0. */
  hsa_signal_t completion_signal; /* Decremented on completion, or 0. */
} hsa_kernel_dispatch_packet_t;

/* Asks an agent to run a built-in function (64 bytes). */
typedef struct hsa_agent_dispatch_packet_s {
  uint16_t header;    /* Packet header. */
  uint16_t type;      /* Function to run (application defined). */
  uint32_t reserved0; /* Must be 0. */
#ifdef HSA_LARGE_MODEL
  void *return_address; /* Where the result goes. */
#elif defined HSA_LITTLE_ENDIAN
  void *return_address;  /* Where the result goes. */
  uint32_t reserved1;    /* Pads the pointer to 64 bits. */
#else
  uint32_t reserved1;    /* Pads the pointer to 64 bits. */
  void *return_address;  /* Where the result goes. */
#endif
  uint64_t arg[4];                /* Function arguments. */
  uint64_t reserved2;             /* Must be 0. */
  hsa_signal_t completion_signal; /* Decremented on completion, or 0. */
} hsa_agent_dispatch_packet_t;

/* Waits until all dependency signals reach 0 (64 bytes). */
typedef struct hsa_barrier_and_packet_s {
  uint16_t header;                /* Packet header. */
  uint16_t reserved0;             /* Must be 0. */
  uint32_t reserved1;             /* Must be 0. */
  hsa_signal_t dep_signal[5];     /* Dependencies; 0 handles are ignored. */
  uint64_t reserved2;             /* Must be 0. */
  hsa_signal_t completion_signal; /* Decremented on completion, or 0. */
} hsa_barrier_and_packet_t;

/* Waits until any dependency signal reaches 0 (64 bytes). */
typedef struct hsa_barrier_or_packet_s {
  uint16_t header;                /* Packet header. */
  uint16_t reserved0;             /* Must be 0. */
  uint32_t reserved1;             /* Must be 0. */
  hsa_signal_t dep_signal[5];     /* Dependencies; 0 handles are ignored. */
  uint64_t reserved2;             /* Must be 0. */
  hsa_signal_t completion_signal; /* Decremented on completion, or 0. */
} hsa_barrier_or_packet_t;

/* ------------------------------------------------------------------------ */
/* Memory                                                                   */
/* ------------------------------------------------------------------------ */

/* Memory segment a region belongs to. */
typedef enum {
  HSA_REGION_SEGMENT_GLOBAL = 0,   /* Global segment. */
  HSA_REGION_SEGMENT_READONLY = 1, /* Read-only segment. */
  HSA_REGION_SEGMENT_PRIVATE = 2,  /* Private segment. */
  HSA_REGION_SEGMENT_GROUP = 3,    /* Group segment. */
  HSA_REGION_SEGMENT_KERNARG = 4   /* Kernel argument segment. */
} hsa_region_segment_t;

/* Properties of a global-segment region (bit mask). */
typedef enum {
  HSA_REGION_GLOBAL_FLAG_KERNARG = 1,       /* Usable for kernel arguments. */
  HSA_REGION_GLOBAL_FLAG_FINE_GRAINED = 2,  /* Coherent across agents. */
  HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED = 4 /* Coherent at dispatch bounds. */
} hsa_region_global_flag_t;

/* Attributes readable with hsa_region_get_info. */
typedef enum {
  HSA_REGION_INFO_SEGMENT = 0,                          /* segment */
  HSA_REGION_INFO_GLOBAL_FLAGS = 1,                     /* uint32_t mask */
  HSA_REGION_INFO_SIZE = 2,                             /* size_t */
  HSA_REGION_INFO_ALLOC_MAX_SIZE = 4,                   /* size_t */
  HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE = 8, /* uint32_t */
  HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED = 5,            /* bool */
  HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE = 6,            /* size_t */
  HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT = 7           /* size_t */
} hsa_region_info_t;

/* Reads one region attribute into value. */
hsa_status_t HSA_API hsa_region_get_info(hsa_region_t region,
                                         hsa_region_info_t attribute,
                                         void *value);

/* Calls callback once per region visible to an agent. */
hsa_status_t HSA_API hsa_agent_iterate_regions(
    hsa_agent_t agent,
    hsa_status_t (*callback)(hsa_region_t region, void *data), void *data);

/* Allocates size bytes from a region. */
hsa_status_t HSA_API hsa_memory_allocate(hsa_region_t region, size_t size,
                                         void **ptr);

/* Frees memory obtained from hsa_memory_allocate. */
hsa_status_t HSA_API hsa_memory_free(void *ptr);

/* Copies size bytes between any two global addresses. */
hsa_status_t HSA_API hsa_memory_copy(void *dst, const void *src, size_t size);

/* Gives an agent ownership of a coarse-grained buffer. */
hsa_status_t HSA_API hsa_memory_assign_agent(void *ptr, hsa_agent_t agent,
                                             hsa_access_permission_t access);

/* Registers host memory for use by agents (base profile). */
hsa_status_t HSA_API hsa_memory_register(void *ptr, size_t size);

/* Undoes hsa_memory_register. */
hsa_status_t HSA_API hsa_memory_deregister(void *ptr, size_t size);

/* ------------------------------------------------------------------------ */
/* Instruction set architectures                                            */
/* ------------------------------------------------------------------------ */

/* Opaque ISA handle. */
typedef struct hsa_isa_s {
  uint64_t handle; /* Runtime-private value. */
} hsa_isa_t;

/* Looks an ISA up by its name. */
hsa_status_t HSA_API hsa_isa_from_name(const char *name, hsa_isa_t *isa);

/* Calls callback once per ISA an agent supports. */
hsa_status_t HSA_API hsa_agent_iterate_isas(
    hsa_agent_t agent, hsa_status_t (*callback)(hsa_isa_t isa, void *data),
    void *data);

/* Attributes readable with hsa_isa_get_info_alt. */
typedef enum {
  HSA_ISA_INFO_NAME_LENGTH = 0,           /* uint32_t */
  HSA_ISA_INFO_NAME = 1,                  /* char[NAME_LENGTH] */
  HSA_ISA_INFO_CALL_CONVENTION_COUNT = 2, /* uint32_t (1.0 only) */
  HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE = 3,              /* 1.0 */
  HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT = 4, /* 1.0 */
  HSA_ISA_INFO_MACHINE_MODELS = 5,                            /* bool[2] */
  HSA_ISA_INFO_PROFILES = 6,                                  /* bool[2] */
  HSA_ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES = 7,              /* bool[3] */
  HSA_ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES = 8, /* bool[3] */
  HSA_ISA_INFO_FAST_F16_OPERATION = 9,                        /* bool */
  HSA_ISA_INFO_WORKGROUP_MAX_DIM = 12,                        /* uint16_t[3] */
  HSA_ISA_INFO_WORKGROUP_MAX_SIZE = 13,                       /* uint32_t */
  HSA_ISA_INFO_GRID_MAX_DIM = 14,                             /* hsa_dim3_t */
  HSA_ISA_INFO_GRID_MAX_SIZE = 16,                            /* uint64_t */
  HSA_ISA_INFO_FBARRIER_MAX_SIZE = 17                         /* uint32_t */
} hsa_isa_info_t;

/* 1.0 query of an ISA attribute; index selects a call convention. */
hsa_status_t HSA_API HSA_DEPRECATED hsa_isa_get_info(hsa_isa_t isa,
                                                     hsa_isa_info_t attribute,
                                                     uint32_t index,
                                                     void *value);

/* Reads one ISA attribute into value. */
hsa_status_t HSA_API hsa_isa_get_info_alt(hsa_isa_t isa,
                                          hsa_isa_info_t attribute,
                                          void *value);

/* Exception policies an ISA supports for a profile. */
hsa_status_t HSA_API hsa_isa_get_exception_policies(hsa_isa_t isa,
                                                    hsa_profile_t profile,
                                                    uint16_t *mask);

/* Floating-point type. */
typedef enum {
  HSA_FP_TYPE_16 = 1, /* Half precision. */
  HSA_FP_TYPE_32 = 2, /* Single precision. */
  HSA_FP_TYPE_64 = 4  /* Double precision. */
} hsa_fp_type_t;

/* Denormal handling. */
typedef enum {
  HSA_FLUSH_MODE_FTZ = 1,    /* Flush denormals to zero. */
  HSA_FLUSH_MODE_NON_FTZ = 2 /* Keep denormals. */
} hsa_flush_mode_t;

/* Rounding method of an ISA. */
typedef enum {
  HSA_ROUND_METHOD_SINGLE = 1, /* Single rounding. */
  HSA_ROUND_METHOD_DOUBLE = 2  /* Double rounding. */
} hsa_round_method_t;

/* Rounding method an ISA uses for a type and flush mode. */
hsa_status_t HSA_API hsa_isa_get_round_method(hsa_isa_t isa,
                                              hsa_fp_type_t fp_type,
                                              hsa_flush_mode_t flush_mode,
                                              hsa_round_method_t *round_method);

/* Opaque wavefront handle. */
typedef struct hsa_wavefront_s {
  uint64_t handle; /* Runtime-private value. */
} hsa_wavefront_t;

/* Attributes readable with hsa_wavefront_get_info. */
typedef enum {
  HSA_WAVEFRONT_INFO_SIZE = 0 /* uint32_t, work-items */
} hsa_wavefront_info_t;

/* Reads one wavefront attribute into value. */
hsa_status_t HSA_API hsa_wavefront_get_info(hsa_wavefront_t wavefront,
                                            hsa_wavefront_info_t attribute,
                                            void *value);

/* Calls callback once per wavefront kind of an ISA. */
hsa_status_t HSA_API hsa_isa_iterate_wavefronts(
    hsa_isa_t isa,
    hsa_status_t (*callback)(hsa_wavefront_t wavefront, void *data),
    void *data);

/* 1.0 query: can code for code_object_isa run on agent_isa? */
hsa_status_t HSA_API HSA_DEPRECATED hsa_isa_compatible(
    hsa_isa_t code_object_isa, hsa_isa_t agent_isa, bool *result);

/* ------------------------------------------------------------------------ */
/* Code object readers and executables                                      */
/* ------------------------------------------------------------------------ */

/* Opaque code object reader handle. */
typedef struct hsa_code_object_reader_s {
  uint64_t handle; /* Runtime-private value. */
} hsa_code_object_reader_t;

/* Creates a reader over a code object stored in a file. */
hsa_status_t HSA_API hsa_code_object_reader_create_from_file(
    hsa_file_t file, hsa_code_object_reader_t *code_object_reader);

/* Creates a reader over a code object in memory (not copied). */
hsa_status_t HSA_API hsa_code_object_reader_create_from_memory(
    const void *code_object, size_t size,
    hsa_code_object_reader_t *code_object_reader);

/* Destroys a code object reader. */
hsa_status_t HSA_API
hsa_code_object_reader_destroy(hsa_code_object_reader_t code_object_reader);

/* Opaque executable handle. */
typedef struct hsa_executable_s {
  uint64_t handle; /* Runtime-private value. */
} hsa_executable_t;

/* Life-cycle state of an executable. */
typedef enum {
  HSA_EXECUTABLE_STATE_UNFROZEN = 0, /* Loading allowed. */
  HSA_EXECUTABLE_STATE_FROZEN = 1    /* Ready to run; immutable. */
} hsa_executable_state_t;

/* 1.0 form of executable creation. */
hsa_status_t HSA_API HSA_DEPRECATED hsa_executable_create(
    hsa_profile_t profile, hsa_executable_state_t executable_state,
    const char *options, hsa_executable_t *executable);

/* Creates an empty, unfrozen executable. */
hsa_status_t HSA_API hsa_executable_create_alt(
    hsa_profile_t profile,
    hsa_default_float_rounding_mode_t default_float_rounding_mode,
    const char *options, hsa_executable_t *executable);

/* Destroys an executable. */
hsa_status_t HSA_API hsa_executable_destroy(hsa_executable_t executable);

/* Opaque handle of a code object loaded into an executable. */
typedef struct hsa_loaded_code_object_s {
  uint64_t handle; /* Runtime-private value. */
} hsa_loaded_code_object_t;

/* Loads a program code object (no agent-allocated parts). */
hsa_status_t HSA_API hsa_executable_load_program_code_object(
    hsa_executable_t executable, hsa_code_object_reader_t code_object_reader,
    const char *options, hsa_loaded_code_object_t *loaded_code_object);

/* Loads an agent code object for the given agent. */
hsa_status_t HSA_API hsa_executable_load_agent_code_object(
    hsa_executable_t executable, hsa_agent_t agent,
    hsa_code_object_reader_t code_object_reader, const char *options,
    hsa_loaded_code_object_t *loaded_code_object);

/* Freezes an executable so that its kernels can run. */
hsa_status_t HSA_API hsa_executable_freeze(hsa_executable_t executable,
                                           const char *options);

/* Attributes readable with hsa_executable_get_info. */
typedef enum {
  HSA_EXECUTABLE_INFO_PROFILE = 1,                    /* hsa_profile_t */
  HSA_EXECUTABLE_INFO_STATE = 2,                      /* state */
  HSA_EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE = 3 /* rounding mode */
} hsa_executable_info_t;

/* Reads one executable attribute into value. */
hsa_status_t HSA_API hsa_executable_get_info(hsa_executable_t executable,
                                             hsa_executable_info_t attribute,
                                             void *value);

/* Supplies the address of an external program-allocated global variable. */
hsa_status_t HSA_API hsa_executable_global_variable_define(
    hsa_executable_t executable, const char *variable_name, void *address);

/* Supplies the address of an external agent-allocated global variable. */
hsa_status_t HSA_API hsa_executable_agent_global_variable_define(
    hsa_executable_t executable, hsa_agent_t agent, const char *variable_name,
    void *address);

/* Supplies the address of an external readonly variable. */
hsa_status_t HSA_API hsa_executable_readonly_variable_define(
    hsa_executable_t executable, hsa_agent_t agent, const char *variable_name,
    void *address);

/* Checks an executable; result is 0 when it is valid. */
hsa_status_t HSA_API hsa_executable_validate(hsa_executable_t executable,
                                             uint32_t *result);

/* As hsa_executable_validate, with options. */
hsa_status_t HSA_API hsa_executable_validate_alt(hsa_executable_t executable,
                                                 const char *options,
                                                 uint32_t *result);

/* Opaque executable symbol handle. */
typedef struct hsa_executable_symbol_s {
  uint64_t handle; /* Runtime-private value. */
} hsa_executable_symbol_t;

/* 1.0 symbol lookup by module and symbol name. */
hsa_status_t HSA_API HSA_DEPRECATED hsa_executable_get_symbol(
    hsa_executable_t executable, const char *module_name,
    const char *symbol_name, hsa_agent_t agent, int32_t call_convention,
    hsa_executable_symbol_t *symbol);

/* Looks a symbol up by name; agent is NULL for program symbols. */
hsa_status_t HSA_API hsa_executable_get_symbol_by_name(
    hsa_executable_t executable, const char *symbol_name,
    const hsa_agent_t *agent, hsa_executable_symbol_t *symbol);

/* Kind of a symbol. */
typedef enum {
  HSA_SYMBOL_KIND_VARIABLE = 0,         /* Variable. */
  HSA_SYMBOL_KIND_KERNEL = 1,           /* Kernel. */
  HSA_SYMBOL_KIND_INDIRECT_FUNCTION = 2 /* Indirect function. */
} hsa_symbol_kind_t;

/* Linkage of a symbol. */
typedef enum {
  HSA_SYMBOL_LINKAGE_MODULE = 0, /* Visible in its module only. */
  HSA_SYMBOL_LINKAGE_PROGRAM = 1 /* Visible program-wide. */
} hsa_symbol_linkage_t;

/* Allocation of a variable. */
typedef enum {
  HSA_VARIABLE_ALLOCATION_AGENT = 0,  /* One instance per agent. */
  HSA_VARIABLE_ALLOCATION_PROGRAM = 1 /* One instance per program. */
} hsa_variable_allocation_t;

/* Segment of a variable. */
typedef enum {
  HSA_VARIABLE_SEGMENT_GLOBAL = 0,  /* Global segment. */
  HSA_VARIABLE_SEGMENT_READONLY = 1 /* Readonly segment. */
} hsa_variable_segment_t;

/* Attributes readable with hsa_executable_symbol_get_info. */
typedef enum {
  HSA_EXECUTABLE_SYMBOL_INFO_TYPE = 0,                /* hsa_symbol_kind_t */
  HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH = 1,         /* uint32_t */
  HSA_EXECUTABLE_SYMBOL_INFO_NAME = 2,                /* char[] */
  HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME_LENGTH = 3,  /* uint32_t (1.0) */
  HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME = 4,         /* char[] (1.0) */
  HSA_EXECUTABLE_SYMBOL_INFO_AGENT = 20,              /* hsa_agent_t */
  HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS = 21,   /* uint64_t */
  HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE = 5,             /* linkage */
  HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION = 17,      /* bool */
  HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALLOCATION = 6, /* allocation (1.0) */
  HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SEGMENT = 7,    /* segment (1.0) */
  HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALIGNMENT = 8,  /* uint32_t (1.0) */
  HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE = 9,       /* uint32_t */
  HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST = 10,  /* bool (1.0) */
  HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT = 22,      /* uint64_t */
  HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE = 11, /* uint32_t */
  HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT = 12, /* u32 */
  HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE = 13,   /* uint32_t */
  HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE = 14, /* uint32_t */
  HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK = 15,    /* bool */
  HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_CALL_CONVENTION = 18,      /* u32 (1.0) */
  HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_OBJECT = 23,    /* uint64_t */
  HSA_EXECUTABLE_SYMBOL_INFO_INDIRECT_FUNCTION_CALL_CONVENTION = 16 /* 1.0 */
} hsa_executable_symbol_info_t;

/* Reads one symbol attribute into value. */
hsa_status_t HSA_API hsa_executable_symbol_get_info(
    hsa_executable_symbol_t executable_symbol,
    hsa_executable_symbol_info_t attribute, void *value);

/* 1.0 iteration over every symbol of an executable. */
hsa_status_t HSA_API HSA_DEPRECATED hsa_executable_iterate_symbols(
    hsa_executable_t executable,
    hsa_status_t (*callback)(hsa_executable_t exec,
                             hsa_executable_symbol_t symbol, void *data),
    void *data);

/* Calls callback once per agent symbol of an executable for one agent. */
hsa_status_t HSA_API hsa_executable_iterate_agent_symbols(
    hsa_executable_t executable, hsa_agent_t agent,
    hsa_status_t (*callback)(hsa_executable_t exec, hsa_agent_t agent,
                             hsa_executable_symbol_t symbol, void *data),
    void *data);

/* Calls callback once per program symbol of an executable. */
hsa_status_t HSA_API hsa_executable_iterate_program_symbols(
    hsa_executable_t executable,
    hsa_status_t (*callback)(hsa_executable_t exec,
                             hsa_executable_symbol_t symbol, void *data),
    void *data);

/* ------------------------------------------------------------------------ */
/* HSA 1.0 code objects (deprecated)                                        */
/* ------------------------------------------------------------------------ */

/* Opaque 1.0 code object handle. */
typedef struct hsa_code_object_s {
  uint64_t handle; /* Runtime-private value. */
} hsa_code_object_t;

/* Opaque value passed back to an application callback. */
typedef struct hsa_callback_data_s {
  uint64_t handle; /* Application-defined value. */
} hsa_callback_data_t;

/* Serializes a code object into memory obtained from alloc_callback. */
hsa_status_t HSA_API HSA_DEPRECATED hsa_code_object_serialize(
    hsa_code_object_t code_object,
    hsa_status_t (*alloc_callback)(size_t size, hsa_callback_data_t data,
                                   void **address),
    hsa_callback_data_t callback_data, const char *options,
    void **serialized_code_object, size_t *serialized_code_object_size);

/* Rebuilds a code object from its serialized form. */
hsa_status_t HSA_API HSA_DEPRECATED hsa_code_object_deserialize(
    void *serialized_code_object, size_t serialized_code_object_size,
    const char *options, hsa_code_object_t *code_object);

/* Destroys a code object. */
hsa_status_t HSA_API HSA_DEPRECATED
hsa_code_object_destroy(hsa_code_object_t code_object);

/* Kind of a 1.0 code object. */
typedef enum {
  HSA_CODE_OBJECT_TYPE_PROGRAM = 0 /* Holds code for one or more agents. */
} hsa_code_object_type_t;

/* Attributes readable with hsa_code_object_get_info. */
typedef enum {
  HSA_CODE_OBJECT_INFO_VERSION = 0,                    /* char[64] */
  HSA_CODE_OBJECT_INFO_TYPE = 1,                       /* type */
  HSA_CODE_OBJECT_INFO_ISA = 2,                        /* hsa_isa_t */
  HSA_CODE_OBJECT_INFO_MACHINE_MODEL = 3,              /* machine model */
  HSA_CODE_OBJECT_INFO_PROFILE = 4,                    /* hsa_profile_t */
  HSA_CODE_OBJECT_INFO_DEFAULT_FLOAT_ROUNDING_MODE = 5 /* rounding mode */
} hsa_code_object_info_t;

/* Reads one code object attribute into value. */
hsa_status_t HSA_API HSA_DEPRECATED
hsa_code_object_get_info(hsa_code_object_t code_object,
                         hsa_code_object_info_t attribute, void *value);

/* Loads a 1.0 code object into an executable for an agent. */
hsa_status_t HSA_API HSA_DEPRECATED hsa_executable_load_code_object(
    hsa_executable_t executable, hsa_agent_t agent,
    hsa_code_object_t code_object, const char *options);

/* Opaque 1.0 code symbol handle. */
typedef struct hsa_code_symbol_s {
  uint64_t handle; /* Runtime-private value. */
} hsa_code_symbol_t;

/* Looks a code object symbol up by name. */
hsa_status_t HSA_API HSA_DEPRECATED
hsa_code_object_get_symbol(hsa_code_object_t code_object,
                           const char *symbol_name, hsa_code_symbol_t *symbol);

/* Looks a code object symbol up by module and symbol name. */
hsa_status_t HSA_API HSA_DEPRECATED hsa_code_object_get_symbol_from_name(
    hsa_code_object_t code_object, const char *module_name,
    const char *symbol_name, hsa_code_symbol_t *symbol);

/* Attributes readable with hsa_code_symbol_get_info. */
typedef enum {
  HSA_CODE_SYMBOL_INFO_TYPE = 0,                              /* kind */
  HSA_CODE_SYMBOL_INFO_NAME_LENGTH = 1,                       /* uint32_t */
  HSA_CODE_SYMBOL_INFO_NAME = 2,                              /* char[] */
  HSA_CODE_SYMBOL_INFO_MODULE_NAME_LENGTH = 3,                /* uint32_t */
  HSA_CODE_SYMBOL_INFO_MODULE_NAME = 4,                       /* char[] */
  HSA_CODE_SYMBOL_INFO_LINKAGE = 5,                           /* linkage */
  HSA_CODE_SYMBOL_INFO_IS_DEFINITION = 17,                    /* bool */
  HSA_CODE_SYMBOL_INFO_VARIABLE_ALLOCATION = 6,               /* allocation */
  HSA_CODE_SYMBOL_INFO_VARIABLE_SEGMENT = 7,                  /* segment */
  HSA_CODE_SYMBOL_INFO_VARIABLE_ALIGNMENT = 8,                /* uint32_t */
  HSA_CODE_SYMBOL_INFO_VARIABLE_SIZE = 9,                     /* uint32_t */
  HSA_CODE_SYMBOL_INFO_VARIABLE_IS_CONST = 10,                /* bool */
  HSA_CODE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE = 11,      /* uint32_t */
  HSA_CODE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT = 12, /* uint32_t */
  HSA_CODE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE = 13,        /* uint32_t */
  HSA_CODE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE = 14,      /* uint32_t */
  HSA_CODE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK = 15,         /* bool */
  HSA_CODE_SYMBOL_INFO_KERNEL_CALL_CONVENTION = 18,           /* uint32_t */
  HSA_CODE_SYMBOL_INFO_INDIRECT_FUNCTION_CALL_CONVENTION = 16 /* uint32_t */
} hsa_code_symbol_info_t;

/* Reads one code symbol attribute into value. */
hsa_status_t HSA_API HSA_DEPRECATED
hsa_code_symbol_get_info(hsa_code_symbol_t code_symbol,
                         hsa_code_symbol_info_t attribute, void *value);

/* Calls callback once per symbol of a code object. */
hsa_status_t HSA_API HSA_DEPRECATED hsa_code_object_iterate_symbols(
    hsa_code_object_t code_object,
    hsa_status_t (*callback)(hsa_code_object_t code_object,
                             hsa_code_symbol_t symbol, void *data),
    void *data);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* OPENHSA_INCLUDE_HSA_HSA_H */
