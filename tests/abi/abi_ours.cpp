// ABI facts of openhsa's public headers (include/hsa).
#include <hsa/hsa.h>
#include <hsa/hsa_ext_finalize.h>
#include <hsa/hsa_ext_image.h>

#if !defined(OPENHSA_INCLUDE_HSA_HSA_H) ||                                     \
    !defined(OPENHSA_INCLUDE_HSA_HSA_EXT_FINALIZE_H) ||                        \
    !defined(OPENHSA_INCLUDE_HSA_HSA_EXT_IMAGE_H)
#error "abi_ours.cpp must see openhsa's include/hsa headers"
#endif
#ifdef HSA_RUNTIME_INC_HSA_H_
#error "abi_ours.cpp picked up ROCR's hsa.h"
#endif

#define OPENHSA_ABI_TABLE_FN ours_table
#include "abi_table_body.inc"
