//===- CompiledCollectives.cpp - collectives called from compiled code -----===//
#include "mt/Runtime/CompiledCollectives.h"

#include <cstring>
#include <vector>

namespace mt {
namespace {

thread_local CollectiveContext *current = nullptr;

/// Must match MtRuntimeHooks in lib/Target/CPU/RuntimeHooks.c.
struct Hooks {
  int64_t (*axisIndex)(int64_t axes);
  void (*allReduce)(int64_t data, int64_t count, int64_t dtype, int64_t reduction, int64_t axes,
                    int64_t label);
  void (*allGather)(int64_t in, int64_t out, int64_t outer, int64_t inner, int64_t dtype,
                    int64_t axes, int64_t label);
  void (*reduceScatter)(int64_t in, int64_t out, int64_t outer, int64_t inner, int64_t dtype,
                        int64_t axes, int64_t label);
};

/// The axes of a mask (pp = 1, dp = 2, tp = 4) in mesh order.
std::vector<std::string> axesOf(int64_t mask) {
  std::vector<std::string> axes;
  const char *names[] = {"pp", "dp", "tp"};
  for (int i = 0; i < 3; ++i)
    if (mask & (int64_t{1} << i))
      axes.push_back(names[i]);
  return axes;
}

std::string groupName(const std::vector<std::string> &axes) {
  std::string name;
  for (const std::string &a : axes)
    name += (name.empty() ? "" : "x") + a;
  return name;
}

/// The context, unless there is none or the call already failed.
CollectiveContext *usable() {
  CollectiveContext *c = current;
  return c && c->comm && c->mesh && c->error.empty() ? c : nullptr;
}

/// The context with the GPU's queued work done, so the buffers hold what
/// the kernels before the collective wrote.
CollectiveContext *withBuffersReady() {
  CollectiveContext *c = usable();
  if (c && c->device && !c->device->synchronize(c->error))
    return nullptr;
  return c;
}

Group groupFor(CollectiveContext &c, int64_t mask) {
  std::vector<std::string> axes = axesOf(mask);
  return Group{c.mesh->groupOf(c.rank, axes), groupName(axes)};
}

std::string label(CollectiveContext &c, const char *op, int64_t number) {
  return std::string(op) + " #" + std::to_string(number) + " of " + c.function;
}

ElementType typeOf(int64_t dtype) { return dtype == 2 ? ElementType::F64 : ElementType::F32; }

int64_t axisIndex(int64_t mask) {
  CollectiveContext *c = current;
  if (!c || !c->mesh)
    return 0;
  return c->mesh->indexInGroup(c->rank, axesOf(mask));
}

void allReduce(int64_t data, int64_t count, int64_t dtype, int64_t reduction, int64_t mask,
               int64_t number) {
  CollectiveContext *c = withBuffersReady();
  if (!c)
    return;
  Group group = groupFor(*c, mask);
  if (group.ranks.size() <= 1)
    return;
  c->comm->allReduce(group, reinterpret_cast<void *>(data), count, typeOf(dtype),
                     reduction == 2 ? ReduceOp::Max : ReduceOp::Sum,
                     label(*c, "all_reduce", number), c->error);
}

/// in [outer, inner] per member -> out [outer, members * inner].
void allGather(int64_t in, int64_t out, int64_t outer, int64_t inner, int64_t dtype, int64_t mask,
               int64_t number) {
  CollectiveContext *c = withBuffersReady();
  if (!c)
    return;
  Group group = groupFor(*c, mask);
  size_t parts = group.ranks.size(), bytes = static_cast<size_t>(elementBytes(typeOf(dtype)));
  size_t piece = static_cast<size_t>(outer * inner) * bytes, row = static_cast<size_t>(inner) * bytes;
  std::vector<unsigned char> gathered(parts * piece);
  if (parts <= 1)
    std::memcpy(gathered.data(), reinterpret_cast<void *>(in), piece);
  else if (!c->comm->allGather(group, reinterpret_cast<void *>(in), gathered.data(), outer * inner,
                               typeOf(dtype), label(*c, "all_gather", number), c->error))
    return;
  auto *dst = reinterpret_cast<unsigned char *>(out);
  for (size_t o = 0; o < static_cast<size_t>(outer); ++o)
    for (size_t p = 0; p < parts; ++p)
      std::memcpy(dst + (o * parts + p) * row, gathered.data() + p * piece + o * row, row);
}

/// in [outer, members * inner] -> out [outer, inner], summed over members.
void reduceScatter(int64_t in, int64_t out, int64_t outer, int64_t inner, int64_t dtype,
                   int64_t mask, int64_t number) {
  CollectiveContext *c = withBuffersReady();
  if (!c)
    return;
  Group group = groupFor(*c, mask);
  size_t parts = group.ranks.size(), bytes = static_cast<size_t>(elementBytes(typeOf(dtype)));
  size_t piece = static_cast<size_t>(outer * inner) * bytes, row = static_cast<size_t>(inner) * bytes;
  std::vector<unsigned char> pieces(parts * piece);
  const auto *src = reinterpret_cast<const unsigned char *>(in);
  for (size_t o = 0; o < static_cast<size_t>(outer); ++o)
    for (size_t p = 0; p < parts; ++p)
      std::memcpy(pieces.data() + p * piece + o * row, src + (o * parts + p) * row, row);
  if (parts <= 1)
    std::memcpy(reinterpret_cast<void *>(out), pieces.data(), piece);
  else
    c->comm->reduceScatter(group, pieces.data(), reinterpret_cast<void *>(out), outer * inner,
                           typeOf(dtype), ReduceOp::Sum, label(*c, "reduce_scatter", number),
                           c->error);
}

void gradientReady(int64_t index) {
  CollectiveContext *c = current;
  if (c && c->gradients)
    c->gradients->ready(index);
}

} // namespace

bool installCollectiveHooks(CpuModule &module, std::string &error) {
  auto set = reinterpret_cast<void (*)(const Hooks *)>(module.symbol("mt_set_runtime_hooks"));
  if (!set) {
    error = "the plan's native code has no mt_set_runtime_hooks (compiled by an older mtc); "
            "recompile it";
    return false;
  }
  static const Hooks hooks{axisIndex, allReduce, allGather, reduceScatter};
  set(&hooks);
  // Plans from before mt.gradient_ready lack the setter: no signals to take.
  if (auto setReady = reinterpret_cast<void (*)(void (*)(int64_t))>(
          module.symbol("mt_set_gradient_ready_hook")))
    setReady(gradientReady);
  return true;
}

CollectiveScope::CollectiveScope(CollectiveContext &context) : previous_(current) {
  current = &context;
}

CollectiveScope::~CollectiveScope() { current = previous_; }

} // namespace mt
