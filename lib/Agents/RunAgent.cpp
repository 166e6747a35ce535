//===- RunAgent.cpp - One agent for all stage passes of a run -------------===//
//
// A run's stage passes share one agent, so an LLM's budgets, request counts
// and "the endpoint is unusable" state span both stages, and its summary is
// printed once. The registry holds weak references: the agent lives while a
// pass holds it and dies with the run's pass manager.
//
//===----------------------------------------------------------------------===//

#include "egg/Agents/Agent.h"

#include <map>
#include <mutex>
#include <tuple>

using namespace mlir;
using namespace mlir::egg;

FailureOr<std::shared_ptr<Agent>>
mlir::egg::getRunAgent(StringRef name, StringRef decisionsPath,
                       MLIRContext *ctx, Location loc) {
  using Key = std::tuple<MLIRContext *, std::string, std::string>;
  static std::mutex mutex;
  static auto *agents = new std::map<Key, std::weak_ptr<Agent>>;
  std::lock_guard<std::mutex> lock(mutex);
  // Expired entries go first: a new context may reuse a dead one's address.
  for (auto it = agents->begin(); it != agents->end();)
    it = it->second.expired() ? agents->erase(it) : std::next(it);
  Key key{ctx, name.str(), decisionsPath.str()};
  if (auto it = agents->find(key); it != agents->end())
    if (std::shared_ptr<Agent> agent = it->second.lock())
      return agent;
  FailureOr<std::unique_ptr<Agent>> created =
      createAgent(name, decisionsPath, ctx, loc);
  if (failed(created))
    return failure();
  std::shared_ptr<Agent> agent = std::move(*created);
  (*agents)[key] = agent;
  return agent;
}
