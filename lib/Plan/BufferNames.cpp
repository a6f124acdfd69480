//===- BufferNames.cpp - the names of a plan's runtime buffers -------------===//
#include "mt/Plan/BufferNames.h"

namespace mt {
namespace buffers {

std::string_view prefixOf(Role role) {
  switch (role) {
  case Role::Gradient:
    return "grad:";
  case Role::GradAccumulator:
    return "grad_acc:";
  case Role::GradShard:
    return "grad_shard:";
  case Role::GradSquare:
    return "grad_sq:";
  case Role::ExpAvg:
    return "exp_avg:";
  case Role::ExpAvgSq:
    return "exp_avg_sq:";
  case Role::ParamShard:
    return "param_shard:";
  }
  return "";
}

std::string of(Role role, std::string_view param) {
  std::string name(prefixOf(role));
  name += param;
  return name;
}

std::string metric(std::string_view name) { return "metric:" + std::string(name); }

bool isMetric(std::string_view name) { return name.substr(0, 7) == "metric:"; }

std::string batch(std::string_view what) {
  std::string name = "batch:";
  name += what;
  return name;
}

bool isBatch(std::string_view name) { return name.substr(0, 6) == "batch:"; }

std::string kvCache(std::string_view which) {
  std::string name = "kv_cache:";
  name += which;
  return name;
}

bool isKvCache(std::string_view name) { return name.substr(0, 9) == "kv_cache:"; }

std::string saved(int64_t index) { return "saved:" + std::to_string(index); }

bool isSaved(std::string_view name) { return unstaged(name).substr(0, 6) == "saved:"; }

std::string stagePrefix(int64_t stage, int64_t numStages) {
  return numStages > 1 ? "s" + std::to_string(stage) + "/" : "";
}

std::string staged(std::string_view name, int64_t stage, bool pipelined) {
  if (!pipelined || name == kLoss || name == kHyper || isBatch(name) || isMetric(name))
    return std::string(name);
  return "s" + std::to_string(stage) + "/" + std::string(name);
}

std::string_view unstaged(std::string_view name) {
  size_t slash = name.find('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

std::string categoryOf(std::string_view name, const std::set<std::string> &params) {
  std::string_view base = unstaged(name);
  auto startsWith = [&](Role r) { return base.substr(0, prefixOf(r).size()) == prefixOf(r); };
  if (params.count(std::string(base)))
    return "parameters";
  for (Role r : {Role::Gradient, Role::GradAccumulator, Role::GradSquare})
    if (startsWith(r))
      return "gradients";
  for (Role r : {Role::ExpAvg, Role::ExpAvgSq, Role::ParamShard})
    if (startsWith(r))
      return "optimizer state";
  if (isKvCache(base))
    return "KV cache";
  if (isSaved(base))
    return "saved activations";
  return "batch, stage and loss tensors";
}

} // namespace buffers
} // namespace mt
