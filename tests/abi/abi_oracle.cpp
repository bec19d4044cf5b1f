// ABI facts of Debian's ROCR headers (/usr/include/hsa, libhsa-runtime-dev),
// the reference the oracle test compares openhsa's headers against. This TU
// is built without openhsa's include directory.
#include <hsa/hsa.h>
#include <hsa/hsa_ext_finalize.h>
#include <hsa/hsa_ext_image.h>

#ifndef HSA_RUNTIME_INC_HSA_H_
#error "abi_oracle.cpp must see ROCR's hsa.h, not openhsa's"
#endif
#ifdef OPENHSA_INCLUDE_HSA_HSA_H
#error "abi_oracle.cpp picked up openhsa's hsa.h"
#endif

#define OPENHSA_ABI_TABLE_FN oracle_table
#include "abi_table_body.inc"
