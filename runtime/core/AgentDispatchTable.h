//===- runtime/core/AgentDispatchTable.h - Agent dispatch handlers -*- C++
//-*-===//
//
// HSA_PACKET_TYPE_AGENT_DISPATCH packets carry a 16-bit type naming a
// function the agent performs. The runtime owns the table from type to
// handler (installed through the openhsa extension); packet processors look
// handlers up when they meet such a packet.
//
//===----------------------------------------------------------------------===//
#ifndef OPENHSA_RUNTIME_CORE_AGENTDISPATCHTABLE_H
#define OPENHSA_RUNTIME_CORE_AGENTDISPATCHTABLE_H

#include "hsa/hsa_ext_openhsa.h"

#include <mutex>
#include <optional>
#include <shared_mutex>
#include <unordered_map>

namespace openhsa {

class AgentDispatchTable {
public:
  struct Handler {
    hsa_ext_openhsa_agent_dispatch_fn_t Function;
    void *Data;
  };

  /// Installs Function for Type; a null Function removes the entry.
  void set(uint16_t Type, hsa_ext_openhsa_agent_dispatch_fn_t Function,
           void *Data) {
    std::unique_lock Lock(Mutex);
    if (Function)
      Handlers[Type] = {Function, Data};
    else
      Handlers.erase(Type);
  }

  std::optional<Handler> find(uint16_t Type) const {
    std::shared_lock Lock(Mutex);
    auto It = Handlers.find(Type);
    if (It == Handlers.end())
      return std::nullopt;
    return It->second;
  }

private:
  mutable std::shared_mutex Mutex;
  std::unordered_map<uint16_t, Handler> Handlers;
};

} // namespace openhsa

#endif
