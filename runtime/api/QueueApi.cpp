//===- runtime/api/QueueApi.cpp - hsa_queue_* (HSA Runtime 2.8) -----------===//
//
// Index operations are on the fast path: they trust the queue pointer as
// far as it is non-null and carries a live queue's magic.
//
//===----------------------------------------------------------------------===//
#include "runtime/api/ApiCommon.h"

#include <algorithm>

using namespace openhsa;

namespace {

bool isPowerOfTwo(uint32_t V) { return V && !(V & (V - 1)); }

// Types this runtime knows; the CPU agent serves MULTI and SINGLE (a
// cooperative queue would promise co-resident work-groups, which work-group
// loops on a thread pool cannot).
bool knownQueueType(hsa_queue_type32_t T) {
  return T == HSA_QUEUE_TYPE_MULTI || T == HSA_QUEUE_TYPE_SINGLE ||
         T == HSA_QUEUE_TYPE_COOPERATIVE;
}

Queue *plausible(const hsa_queue_t *Q) {
  return Q && Queue::fromHsa(Q)->isLive() ? Queue::fromHsa(Q) : nullptr;
}

} // namespace

extern "C" {

hsa_status_t
hsa_queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                 void (*callback)(hsa_status_t, hsa_queue_t *, void *),
                 void *data, uint32_t private_segment_size,
                 uint32_t group_segment_size, hsa_queue_t **queue) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Agent *A = R->agent(agent);
  OPENHSA_REQUIRE(A, HSA_STATUS_ERROR_INVALID_AGENT);
  OPENHSA_REQUIRE(queue && isPowerOfTwo(size) && knownQueueType(type),
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OPENHSA_REQUIRE(size <= A->queueMaxSize(), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  // The queue holds the larger of size and HSA_AGENT_INFO_QUEUE_MIN_SIZE.
  size = std::max(size, A->queueMinSize());
  OPENHSA_REQUIRE(type == HSA_QUEUE_TYPE_MULTI || type == HSA_QUEUE_TYPE_SINGLE,
                  HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
  QueueRequest Request{
      size, type, callback, data, private_segment_size, group_segment_size};
  return R->createQueue(*A, Request, queue);
}

hsa_status_t hsa_soft_queue_create(hsa_region_t region, uint32_t size,
                                   hsa_queue_type32_t type, uint32_t features,
                                   hsa_signal_t doorbell_signal,
                                   hsa_queue_t **queue) {
  OPENHSA_REQUIRE_RUNTIME(R);
  Region *Reg = R->region(region);
  OPENHSA_REQUIRE(Reg, HSA_STATUS_ERROR_INVALID_REGION);
  OPENHSA_REQUIRE(queue && isPowerOfTwo(size) && knownQueueType(type) &&
                      doorbell_signal.handle,
                  HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OPENHSA_REQUIRE(
      features != 0 &&
          (features & ~uint32_t(HSA_QUEUE_FEATURE_KERNEL_DISPATCH |
                                HSA_QUEUE_FEATURE_AGENT_DISPATCH)) == 0,
      HSA_STATUS_ERROR_INVALID_ARGUMENT);
  OPENHSA_REQUIRE(Reg->isAllocatable(), HSA_STATUS_ERROR_INVALID_REGION);
  Signal *Doorbell = R->signal(doorbell_signal);
  OPENHSA_REQUIRE(Doorbell, HSA_STATUS_ERROR_INVALID_SIGNAL);
  return R->createSoftQueue(*Reg, size, type, features, *Doorbell, queue);
}

hsa_status_t hsa_queue_destroy(hsa_queue_t *queue) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(queue, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  return R->destroyQueue(queue);
}

hsa_status_t hsa_queue_inactivate(hsa_queue_t *queue) {
  OPENHSA_REQUIRE_RUNTIME(R);
  OPENHSA_REQUIRE(queue, HSA_STATUS_ERROR_INVALID_ARGUMENT);
  Queue *Q = R->queue(queue);
  OPENHSA_REQUIRE(Q, HSA_STATUS_ERROR_INVALID_QUEUE);
  Q->inactivate();
  return HSA_STATUS_SUCCESS;
}

#define OPENHSA_QUEUE_LOAD(Name, Which, Order)                                 \
  uint64_t Name(const hsa_queue_t *queue) {                                    \
    Queue *Q = plausible(queue);                                               \
    return Q ? Q->load##Which(Order) : 0;                                      \
  }
OPENHSA_QUEUE_LOAD(hsa_queue_load_read_index_scacquire, Read,
                   std::memory_order_acquire)
OPENHSA_QUEUE_LOAD(hsa_queue_load_read_index_acquire, Read,
                   std::memory_order_acquire)
OPENHSA_QUEUE_LOAD(hsa_queue_load_read_index_relaxed, Read,
                   std::memory_order_relaxed)
OPENHSA_QUEUE_LOAD(hsa_queue_load_write_index_scacquire, Write,
                   std::memory_order_acquire)
OPENHSA_QUEUE_LOAD(hsa_queue_load_write_index_acquire, Write,
                   std::memory_order_acquire)
OPENHSA_QUEUE_LOAD(hsa_queue_load_write_index_relaxed, Write,
                   std::memory_order_relaxed)

#define OPENHSA_QUEUE_STORE(Name, Which, Order)                                \
  void Name(const hsa_queue_t *queue, uint64_t value) {                        \
    if (Queue *Q = plausible(queue))                                           \
      Q->store##Which(value, Order);                                           \
  }
OPENHSA_QUEUE_STORE(hsa_queue_store_write_index_relaxed, Write,
                    std::memory_order_relaxed)
OPENHSA_QUEUE_STORE(hsa_queue_store_write_index_screlease, Write,
                    std::memory_order_release)
OPENHSA_QUEUE_STORE(hsa_queue_store_write_index_release, Write,
                    std::memory_order_release)
OPENHSA_QUEUE_STORE(hsa_queue_store_read_index_relaxed, Read,
                    std::memory_order_relaxed)
OPENHSA_QUEUE_STORE(hsa_queue_store_read_index_screlease, Read,
                    std::memory_order_release)
OPENHSA_QUEUE_STORE(hsa_queue_store_read_index_release, Read,
                    std::memory_order_release)

#define OPENHSA_QUEUE_ORDERS(X)                                                \
  X(scacq_screl, std::memory_order_acq_rel)                                    \
  X(acq_rel, std::memory_order_acq_rel)                                        \
  X(scacquire, std::memory_order_acquire)                                      \
  X(acquire, std::memory_order_acquire)                                        \
  X(relaxed, std::memory_order_relaxed)                                        \
  X(screlease, std::memory_order_release)                                      \
  X(release, std::memory_order_release)

#define OPENHSA_QUEUE_CAS(Suffix, Order)                                       \
  uint64_t hsa_queue_cas_write_index_##Suffix(                                 \
      const hsa_queue_t *queue, uint64_t expected, uint64_t value) {           \
    Queue *Q = plausible(queue);                                               \
    return Q ? Q->casWrite(expected, value, Order) : 0;                        \
  }
OPENHSA_QUEUE_ORDERS(OPENHSA_QUEUE_CAS)

#define OPENHSA_QUEUE_ADD(Suffix, Order)                                       \
  uint64_t hsa_queue_add_write_index_##Suffix(const hsa_queue_t *queue,        \
                                              uint64_t value) {                \
    Queue *Q = plausible(queue);                                               \
    return Q ? Q->addWrite(value, Order) : 0;                                  \
  }
OPENHSA_QUEUE_ORDERS(OPENHSA_QUEUE_ADD)

} // extern "C"
