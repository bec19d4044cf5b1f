//===- benchmarks/DispatchHelpers.h - Native-kernel dispatch for benchmarks -*-
// C++ -*-===//
//
// What the runtime benchmarks share: the CPU agent, a native kernel through
// the openhsa extension, and the AQL producer protocol (reserve a slot,
// write the body, publish the header with a release store, ring the
// doorbell).
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_BENCHMARKS_DISPATCHHELPERS_H
#define OPENHSA_BENCHMARKS_DISPATCHHELPERS_H

#include "hsa/hsa.h"
#include "hsa/hsa_ext_openhsa.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace openhsa::bench {

inline void check(hsa_status_t S, const char *What) {
  if (S != HSA_STATUS_SUCCESS && S != HSA_STATUS_INFO_BREAK) {
    std::fprintf(stderr, "%s failed: 0x%x\n", What, unsigned(S));
    std::abort();
  }
}

inline hsa_agent_t cpuAgent() {
  hsa_agent_t Found{0};
  hsa_iterate_agents(
      [](hsa_agent_t A, void *Data) {
        hsa_device_type_t T;
        uint32_t Feature = 0;
        hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &T);
        hsa_agent_get_info(A, HSA_AGENT_INFO_FEATURE, &Feature);
        if (T != HSA_DEVICE_TYPE_CPU ||
            !(Feature & HSA_AGENT_FEATURE_KERNEL_DISPATCH))
          return HSA_STATUS_SUCCESS;
        *static_cast<hsa_agent_t *>(Data) = A;
        return HSA_STATUS_INFO_BREAK;
      },
      &Found);
  return Found;
}

inline void emptyWorkGroup(const void *,
                           const hsa_ext_openhsa_dispatch_context_t *, uint32_t,
                           uint32_t, uint32_t) {}

/// A runtime, a CPU agent, one queue and an empty native kernel.
struct DispatchFixture {
  hsa_agent_t Agent{};
  hsa_queue_t *Queue = nullptr;
  uint64_t Kernel = 0;
  hsa_ext_openhsa_1_pfn_t Ext{};

  explicit DispatchFixture(uint32_t QueueSize = 1024) {
    check(hsa_init(), "hsa_init");
    Agent = cpuAgent();
    check(hsa_system_get_major_extension_table(HSA_EXTENSION_OPENHSA, 1,
                                               sizeof(Ext), &Ext),
          "extension table");
    hsa_ext_openhsa_native_kernel_t K{emptyWorkGroup, nullptr, 0, 0, 0, 16};
    check(Ext.hsa_ext_openhsa_native_kernel_create(Agent, &K, &Kernel),
          "native kernel");
    check(hsa_queue_create(Agent, QueueSize, HSA_QUEUE_TYPE_MULTI, nullptr,
                           nullptr, UINT32_MAX, UINT32_MAX, &Queue),
          "queue");
  }
  ~DispatchFixture() {
    hsa_queue_destroy(Queue);
    Ext.hsa_ext_openhsa_native_kernel_destroy(Kernel);
    hsa_shut_down();
  }

  /// Writes and publishes one 1-D dispatch; returns its index.
  uint64_t dispatch(uint32_t Grid, uint16_t WorkGroup, hsa_signal_t Done) {
    const uint64_t Index = hsa_queue_add_write_index_relaxed(Queue, 1);
    while (Index - hsa_queue_load_read_index_scacquire(Queue) >= Queue->size)
      ; // Queue full: wait for the processor.
    auto *P = static_cast<hsa_kernel_dispatch_packet_t *>(Queue->base_address) +
              (Index & (Queue->size - 1));
    std::memset(reinterpret_cast<char *>(P) + 4, 0, sizeof(*P) - 4);
    P->workgroup_size_x = WorkGroup;
    P->workgroup_size_y = P->workgroup_size_z = 1;
    P->grid_size_x = Grid;
    P->grid_size_y = P->grid_size_z = 1;
    P->kernel_object = Kernel;
    P->completion_signal = Done;
    const uint16_t Header =
        (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    const uint16_t Setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
    std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t *>(P))
        .store(Header | (uint32_t(Setup) << 16), std::memory_order_release);
    hsa_signal_store_screlease(Queue->doorbell_signal,
                               hsa_signal_value_t(Index));
    return Index;
  }
};

} // namespace openhsa::bench

#endif
