/* The C99 check again, as the runtime sees the headers: exported
   declarations and HSA_DEPRECATED set to a real attribute. */
#define OPENHSA_BUILDING_RUNTIME 1
#define HSA_DEPRECATED __attribute__((deprecated))
#define openhsa_c99_check_use openhsa_c99_check_use_export
#include "c99_headers_check.c"
