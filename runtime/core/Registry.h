//===- runtime/core/Registry.h - Sets of live objects -----------*- C++ -*-===//
//
// Handles from the application are addresses; before the runtime follows
// one it checks that the address names a live object of the right kind.
// Lookups are frequent and concurrent (the packet processor checks every
// completion signal and kernel object it launches), insertions rare, so a
// shared mutex guards a hash set.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_CORE_REGISTRY_H
#define OPENHSA_RUNTIME_CORE_REGISTRY_H

#include <mutex>
#include <shared_mutex>
#include <unordered_set>
#include <vector>

namespace openhsa {

template <typename T> class Registry {
public:
  void add(const T *Object) {
    std::unique_lock Lock(Mutex);
    Objects.insert(Object);
  }
  /// Returns false when Object was not registered.
  bool remove(const T *Object) {
    std::unique_lock Lock(Mutex);
    return Objects.erase(Object) != 0;
  }
  bool contains(const void *Object) const {
    std::shared_lock Lock(Mutex);
    return Objects.count(static_cast<const T *>(Object)) != 0;
  }
  size_t size() const {
    std::shared_lock Lock(Mutex);
    return Objects.size();
  }
  /// A snapshot, for tear-down.
  std::vector<const T *> snapshot() const {
    std::shared_lock Lock(Mutex);
    return {Objects.begin(), Objects.end()};
  }

private:
  mutable std::shared_mutex Mutex;
  std::unordered_set<const T *> Objects;
};

class Signal;
/// Every signal the application may name (created and not yet destroyed).
Registry<Signal> &liveSignals();

} // namespace openhsa

#endif
