//===- runtime/api/MemoryApi.cpp - Regions and hsa_memory_* (Runtime 2.7)
//--===//
#include "gpu_backend/GpuAgent.h"
#include "runtime/api/ApiCommon.h"
#include "runtime/api/EnumArg.h"

#include <cstring>

using namespace openhsa;

extern "C" {

hsa_status_t hsa_region_get_info(hsa_region_t region,
                                 hsa_region_info_t attribute, void *value) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Region *Reg = R->region(region);
  OPENHSA_REQUIRE(Reg, HSA_STATUS_ERROR_INVALID_REGION);
  OPENHSA_REQUIRE(value, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  return Reg->getInfo(enumBits(attribute), value);
}

hsa_status_t hsa_agent_iterate_regions(hsa_agent_t agent,
                                       hsa_status_t (*callback)(hsa_region_t,
                                                                void *),
                                       void *data) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Agent *A = R->agent(agent);
  OPENHSA_REQUIRE(A, HSA_STATUS_ERROR_INVALID_AGENT);
  OPENHSA_REQUIRE(callback, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  for (const auto &Reg : A->regions())
    if (hsa_status_t S = callback(Reg->handle(), data); S != HSA_STATUS_SUCCESS)
      return S;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_memory_allocate(hsa_region_t region, size_t size, void **ptr) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Region *Reg = R->region(region);
  OPENHSA_REQUIRE(Reg, HSA_STATUS_ERROR_INVALID_REGION);
  OPENHSA_REQUIRE(ptr && size != 0, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  return R->allocate(*Reg, size, ptr);
}

hsa_status_t hsa_memory_free(void *ptr) {
  OPENHSA_REQUIRE_RUNTIME(R);
  if (!ptr)
    return HSA_STATUS_SUCCESS; // Freeing NULL does nothing.
  return R->free(ptr);
}

hsa_status_t hsa_memory_copy(void *dst, const void *src, size_t size) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(dst && src, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // Memory of a GPU's own is copied by its driver; all other memory is host
  // memory: a plain copy, tolerant of overlap.
  const Region *Device = R->deviceRegionOf(dst);
  if (!Device)
    Device = R->deviceRegionOf(src);
  if (Device)
    return gpu::copyMemory(static_cast<const gpu::GpuAgent &>(Device->owner()),
                           dst, src, size)
               ? HSA_STATUS_SUCCESS
               : HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::memmove(dst, src, size);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_memory_assign_agent(void *ptr, hsa_agent_t agent,
                                     hsa_access_permission_t access) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Agent *A = R->agent(agent);
  OPENHSA_REQUIRE(A, HSA_STATUS_ERROR_INVALID_AGENT);
  OPENHSA_REQUIRE(ptr, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OPENHSA_REQUIRE(
      enumArg(access, {HSA_ACCESS_PERMISSION_RO, HSA_ACCESS_PERMISSION_WO,
                       HSA_ACCESS_PERMISSION_RW}),
      HSA_STATUS_ERROR_INVALID_ARGUMENT);
  return R->assignAgent(ptr, *A);
}

hsa_status_t hsa_memory_register(void *ptr, size_t size) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(!(size == 0 && ptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  if (!ptr)
    return HSA_STATUS_SUCCESS; // Nothing to register.
  // Host memory is already visible to every CPU agent; GPU agents need it
  // pinned and mapped (Runtime::registerMemory). The registration is
  // recorded so deregistration can be checked.
  return R->registerMemory(ptr, size);
}

hsa_status_t hsa_memory_deregister(void *ptr, size_t size) {
  OPENHSA_REQUIRE_RUNTIME(R);
  if (!ptr)
    return HSA_STATUS_SUCCESS;
  return R->deregisterMemory(ptr, size);
}

} // extern "C"
