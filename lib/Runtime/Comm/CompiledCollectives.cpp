//===- CompiledCollectives.cpp - collectives called from compiled code -----===//
#include "mt/Runtime/Comm/CompiledCollectives.h"

#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

namespace mt {
namespace {

thread_local CollectiveContext *current = nullptr;

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
/// the kernels before the collective wrote, and with the collectives in
/// flight done, so that messages between two ranks keep the program's order.
CollectiveContext *withBuffersReady() {
  CollectiveContext *c = usable();
  if (c && c->device && !c->device->synchronize(c->error))
    return nullptr;
  return c;
}

/// Adds the time from its making to its end to the context's
/// `blockedSeconds`: the call's compute stood still for communication.
class Blocked {
public:
  explicit Blocked(CollectiveContext *c) : c_(c), start_(std::chrono::steady_clock::now()) {}
  ~Blocked() {
    if (c_)
      c_->blockedSeconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

private:
  CollectiveContext *c_;
  std::chrono::steady_clock::time_point start_;
};

/// With the collectives in flight done, so that messages between two ranks
/// keep the program's order; false after a failure.
bool drained(CollectiveContext &c) { return !c.inFlight || c.inFlight->drain(c.error); }

Group groupFor(CollectiveContext &c, const std::vector<std::string> &axes) {
  return Group{c.mesh->groupOf(c.rank, axes), groupName(axes)};
}

std::string label(CollectiveContext &c, const char *op, int64_t number) {
  return std::string(op) + " #" + std::to_string(number) + " of " + c.function;
}

/// A call's ABI codes, read.
struct Codes {
  ElementType type = ElementType::F32;
  ReduceOp op = ReduceOp::Sum;
  std::vector<std::string> axes;
};

/// Reads a call's codes; false, with the context's error, for a code the
/// ABI does not define (the plan's code and this runtime disagree).
bool decode(CollectiveContext &c, const char *op, int64_t number, int64_t dtype, int64_t reduction,
            int64_t mask, Codes &codes) {
  if (elementTypeOfCode(dtype, codes.type) && reduceOpOfCode(reduction, codes.op) &&
      meshAxesOfMask(mask, codes.axes))
    return true;
  if (c.error.empty())
    c.error = label(c, op, number) + " passed codes this runtime does not know (dtype " +
              std::to_string(dtype) + ", reduction " + std::to_string(reduction) + ", axes " +
              std::to_string(mask) + "): the plan was compiled by another mtc; recompile it";
  return false;
}

int64_t axisIndex(int64_t mask) {
  CollectiveContext *c = current;
  Codes codes;
  if (!c || !c->mesh ||
      !decode(*c, "axis_index", 0, MT_ABI_DTYPE_F32, MT_ABI_REDUCE_SUM, mask, codes))
    return 0;
  return c->mesh->indexInGroup(c->rank, codes.axes);
}

/// Under NCCL, the rank's stream takes up after the collectives started
/// on their own stream so far: so one communicator never has calls on two
/// streams at once (every rank issues them in the program's order), and
/// what follows reads their results. False after a failure.
bool joinStarted(CollectiveContext &c) {
  if (!c.startedPending)
    return true;
  c.startedPending = false;
  return c.device->streamWait(c.stream, c.startedStream, c.error);
}

/// The stream a collective started ahead of its wait runs on under NCCL:
/// the started collectives' own, ordered after the rank's work so far.
/// Null where it runs whole instead (no GPU stream: an emulated plan, or
/// --overlap-tp-comm=false), or after a failure (in the context's error).
void *startedStream(CollectiveContext &c) {
  if (!c.streamStarted || !c.device || !c.stream || !c.error.empty())
    return nullptr;
  if (!c.startedStream) {
    std::string error;
    c.startedStream = c.device->sideStream(DeviceCollectives::kStartedStream, error);
    if (!c.startedStream) {
      c.error = "the stream of started collectives: " + error;
      return nullptr;
    }
  }
  if (!c.device->streamWait(c.startedStream, c.stream, c.error))
    return nullptr;
  c.startedPending = true;
  return c.startedStream;
}

/// A collective as an NCCL call on the rank's stream: queued behind the
/// kernels that write its input, before those that read its output, so
/// nothing waits for the device.
void ncclAllReduce(CollectiveContext &c, int64_t data, int64_t count, const Codes &codes,
                   int64_t mask, int64_t number, void *stream) {
  if (c.mesh->groupOf(c.rank, codes.axes).size() > 1)
    c.nccl->allReduce(reinterpret_cast<void *>(data), count, codes.type, codes.op, mask, stream,
                      label(c, "all_reduce", number), c.error);
}

/// `height` rows of `width` bytes, `srcPitch` apart, to rows `dstPitch`
/// apart: on the GPU in `stream`'s order, or without one (an emulated plan,
/// whose stream is the calling thread) here. False with the context's error.
bool copyRows(CollectiveContext &c, void *stream, unsigned char *dst, size_t dstPitch,
              const unsigned char *src, size_t srcPitch, size_t width, size_t height) {
  if (c.device)
    return c.device->copy2d(stream, dst, dstPitch, src, srcPitch, width, height, c.error);
  for (size_t r = 0; r < height; ++r)
    std::memmove(dst + r * dstPitch, src + r * srcPitch, width);
  return true;
}

/// An all-gather ([outer, inner] -> [outer, members * inner]) or a
/// reduce-scatter (back) through NCCL, whose pieces are whole buffers: with
/// one outer row they are the pieces; with more, the rows are regrouped
/// through the rank's scratch buffer in NCCL's [members][outer][row]
/// layout, in `stream`'s order: no host wait.
void ncclResize(CollectiveContext &c, bool gather, int64_t in, int64_t out, int64_t outer,
                int64_t inner, const Codes &codes, int64_t mask, int64_t number, void *stream) {
  size_t members = c.mesh->groupOf(c.rank, codes.axes).size();
  size_t row = static_cast<size_t>(inner * elementBytes(codes.type));
  size_t rows = static_cast<size_t>(outer), piece = rows * row;
  const auto *src = reinterpret_cast<const unsigned char *>(in);
  auto *dst = reinterpret_cast<unsigned char *>(out);
  std::string what = label(c, gather ? "all_gather" : "reduce_scatter", number);
  if (members <= 1) {
    copyRows(c, stream, dst, piece, src, piece, piece, 1);
    return;
  }
  int64_t count = outer * inner;
  if (outer == 1) {
    if (gather)
      c.nccl->allGather(src, dst, count, codes.type, mask, stream, what, c.error);
    else
      c.nccl->reduceScatter(src, dst, count, codes.type, mask, stream, what, c.error);
    return;
  }
  unsigned char *staged = c.nccl->scratch(members * piece, c.device, c.error);
  if (!staged)
    return;
  if (gather) {
    if (!c.nccl->allGather(src, staged, count, codes.type, mask, stream, what, c.error))
      return;
    for (size_t p = 0; p < members; ++p)
      if (!copyRows(c, stream, dst + p * row, members * row, staged + p * piece, row, row, rows))
        return;
    return;
  }
  for (size_t p = 0; p < members; ++p)
    if (!copyRows(c, stream, staged + p * piece, row, src + p * row, members * row, row, rows))
      return;
  c.nccl->reduceScatter(staged, dst, count, codes.type, mask, stream, what, c.error);
}

void allReduce(int64_t data, int64_t count, int64_t dtype, int64_t reduction, int64_t mask,
               int64_t number) {
  if (CollectiveContext *n = usable(); n && n->nccl) {
    Codes codes;
    if (decode(*n, "all_reduce", number, dtype, reduction, mask, codes) && joinStarted(*n))
      ncclAllReduce(*n, data, count, codes, mask, number, n->stream);
    return;
  }
  CollectiveContext *c = withBuffersReady();
  Blocked blocked(c);
  Codes codes;
  if (!c || !drained(*c) || !decode(*c, "all_reduce", number, dtype, reduction, mask, codes))
    return;
  Group group = groupFor(*c, codes.axes);
  if (group.ranks.size() <= 1)
    return;
  c->comm->allReduce(group, reinterpret_cast<void *>(data), count, codes.type, codes.op,
                     label(*c, "all_reduce", number), c->error);
}

/// One all-gather or reduce-scatter with its input already read: the
/// rest touches only `out` and the communicator, so it can run later on
/// another thread.
struct Resize {
  Communicator *comm;
  Group group;
  std::vector<unsigned char> staged; // all-gather: this member's piece; reduce-scatter: the pieces
  unsigned char *out;
  size_t outer, inner, bytes;
  ElementType type;
  std::string what;

  size_t parts() const { return group.ranks.size(); }
  size_t piece() const { return outer * inner * bytes; }

  /// staged [outer, inner] -> out [outer, members * inner].
  bool gather(std::string &error) const {
    size_t row = inner * bytes;
    std::vector<unsigned char> gathered(parts() * piece());
    if (parts() <= 1)
      std::memcpy(gathered.data(), staged.data(), piece());
    else if (!comm->allGather(group, staged.data(), gathered.data(),
                              static_cast<int64_t>(outer * inner), type, what, error))
      return false;
    for (size_t o = 0; o < outer; ++o)
      for (size_t p = 0; p < parts(); ++p)
        std::memcpy(out + (o * parts() + p) * row, gathered.data() + p * piece() + o * row, row);
    return true;
  }

  /// staged pieces -> out [outer, inner], summed over members.
  bool scatter(std::string &error) const {
    if (parts() <= 1) {
      std::memcpy(out, staged.data(), piece());
      return true;
    }
    return comm->reduceScatter(group, staged.data(), out, static_cast<int64_t>(outer * inner), type,
                               ReduceOp::Sum, what, error);
  }
};

/// Reads the input of an all-gather (in [outer, inner]) or a reduce-scatter
/// (in [outer, members * inner], regrouped into the members' pieces).
Resize stage(CollectiveContext &c, bool gather, int64_t in, int64_t out, int64_t outer,
             int64_t inner, const Codes &codes, int64_t number) {
  Resize r{c.comm,
           groupFor(c, codes.axes),
           {},
           reinterpret_cast<unsigned char *>(out),
           static_cast<size_t>(outer),
           static_cast<size_t>(inner),
           static_cast<size_t>(elementBytes(codes.type)),
           codes.type,
           label(c, gather ? "all_gather" : "reduce_scatter", number)};
  const auto *src = reinterpret_cast<const unsigned char *>(in);
  if (gather) {
    r.staged.assign(src, src + r.piece());
    return r;
  }
  size_t row = r.inner * r.bytes;
  r.staged.resize(r.parts() * r.piece());
  for (size_t o = 0; o < r.outer; ++o)
    for (size_t p = 0; p < r.parts(); ++p)
      std::memcpy(r.staged.data() + p * r.piece() + o * row, src + (o * r.parts() + p) * row, row);
  return r;
}

void allGather(int64_t in, int64_t out, int64_t outer, int64_t inner, int64_t dtype, int64_t mask,
               int64_t number) {
  if (CollectiveContext *n = usable(); n && n->nccl) {
    Codes codes;
    if (decode(*n, "all_gather", number, dtype, MT_ABI_REDUCE_SUM, mask, codes) && joinStarted(*n))
      ncclResize(*n, true, in, out, outer, inner, codes, mask, number, n->stream);
    return;
  }
  CollectiveContext *c = withBuffersReady();
  Blocked blocked(c);
  Codes codes;
  if (c && drained(*c) && decode(*c, "all_gather", number, dtype, MT_ABI_REDUCE_SUM, mask, codes))
    stage(*c, true, in, out, outer, inner, codes, number).gather(c->error);
}

void reduceScatter(int64_t in, int64_t out, int64_t outer, int64_t inner, int64_t dtype,
                   int64_t mask, int64_t number) {
  if (CollectiveContext *n = usable(); n && n->nccl) {
    Codes codes;
    if (decode(*n, "reduce_scatter", number, dtype, MT_ABI_REDUCE_SUM, mask, codes) && joinStarted(*n))
      ncclResize(*n, false, in, out, outer, inner, codes, mask, number, n->stream);
    return;
  }
  CollectiveContext *c = withBuffersReady();
  Blocked blocked(c);
  Codes codes;
  if (c && drained(*c) &&
      decode(*c, "reduce_scatter", number, dtype, MT_ABI_REDUCE_SUM, mask, codes))
    stage(*c, false, in, out, outer, inner, codes, number).scatter(c->error);
}

/// The start of a collective waited for later: the input is read now, the
/// data moves on the rank's collective thread. The GPU's collectives are
/// not queued behind its kernels yet, and a transport only one thread may
/// use (MPI without MPI_THREAD_MULTIPLE) cannot lend it: there they run
/// whole here.
void startResize(bool gather, int64_t in, int64_t out, int64_t outer, int64_t inner, int64_t dtype,
                 int64_t mask, int64_t number) {
  CollectiveContext *c = usable();
  if (!c)
    return;
  if (c->nccl) {
    Codes codes;
    if (!decode(*c, gather ? "all_gather" : "reduce_scatter", number, dtype, MT_ABI_REDUCE_SUM,
                mask, codes))
      return;
    if (c->mesh->groupOf(c->rank, codes.axes).size() > 1)
      if (void *stream = startedStream(*c)) {
        ncclResize(*c, gather, in, out, outer, inner, codes, mask, number, stream);
        return;
      }
    if (!c->error.empty())
      return;
  }
  if (!c->queueStarted || c->device || c->nccl || !c->comm->transport().concurrent()) {
    (gather ? allGather : reduceScatter)(in, out, outer, inner, dtype, mask, number);
    return;
  }
  Codes codes;
  if (!decode(*c, gather ? "all_gather" : "reduce_scatter", number, dtype, MT_ABI_REDUCE_SUM, mask,
              codes))
    return;
  auto r = std::make_shared<Resize>(stage(*c, gather, in, out, outer, inner, codes, number));
  if (!c->inFlight)
    c->inFlight = std::make_unique<CollectiveQueue>();
  c->inFlight->start(r->out, [r, gather](std::string &error) {
    return gather ? r->gather(error) : r->scatter(error);
  });
}

/// The all-reduce works in place on a buffer of its own (the lowering's
/// copy), which the wait names: the thread reduces it there.
void allReduceStart(int64_t data, int64_t count, int64_t dtype, int64_t reduction, int64_t mask,
                    int64_t number) {
  CollectiveContext *c = usable();
  Codes codes;
  if (!c || !decode(*c, "all_reduce", number, dtype, reduction, mask, codes))
    return;
  Group group = groupFor(*c, codes.axes);
  if (c->nccl && group.ranks.size() > 1)
    if (void *stream = startedStream(*c)) {
      ncclAllReduce(*c, data, count, codes, mask, number, stream);
      return;
    }
  if (!c->error.empty())
    return;
  if (!c->queueStarted || c->device || c->nccl || !c->comm->transport().concurrent() ||
      group.ranks.size() <= 1) {
    allReduce(data, count, dtype, reduction, mask, number);
    return;
  }
  auto *buffer = reinterpret_cast<void *>(data);
  Communicator *comm = c->comm;
  std::string what = label(*c, "all_reduce", number);
  ElementType type = codes.type;
  ReduceOp op = codes.op;
  if (!c->inFlight)
    c->inFlight = std::make_unique<CollectiveQueue>();
  c->inFlight->start(buffer, [=](std::string &error) {
    return comm->allReduce(group, buffer, count, type, op, what, error);
  });
}

void allGatherStart(int64_t in, int64_t out, int64_t outer, int64_t inner, int64_t dtype,
                    int64_t mask, int64_t number) {
  startResize(true, in, out, outer, inner, dtype, mask, number);
}

void reduceScatterStart(int64_t in, int64_t out, int64_t outer, int64_t inner, int64_t dtype,
                        int64_t mask, int64_t number) {
  startResize(false, in, out, outer, inner, dtype, mask, number);
}

void waitCollective(int64_t out) {
  CollectiveContext *c = usable();
  // Under NCCL the rank's stream waits for the started ones, not the host.
  if (c && c->nccl) {
    joinStarted(*c);
    return;
  }
  Blocked blocked(c);
  if (c && c->inFlight)
    c->inFlight->wait(reinterpret_cast<const void *>(out), c->error);
}

void gradientReady(int64_t index) {
  CollectiveContext *c = current;
  if (c && c->gradients)
    c->gradients->ready(index);
}

} // namespace

bool installCollectiveHooks(CpuModule &module, std::string &error) {
  auto set = reinterpret_cast<MtSetRuntimeHooksFn>(module.symbol(MT_SET_RUNTIME_HOOKS));
  if (!set) {
    error = "the plan's native code has no " MT_SET_RUNTIME_HOOKS " (compiled by an older mtc); "
            "recompile it";
    return false;
  }
  static const MtRuntimeHooks hooks{axisIndex, allReduce, allGather, reduceScatter};
  set(&hooks);
  // Plans from before mt.collective_wait lack the setter: they start none.
  if (auto setAsync = reinterpret_cast<MtSetAsyncCollectiveHooksFn>(
          module.symbol(MT_SET_ASYNC_COLLECTIVE_HOOKS))) {
    static const MtAsyncCollectiveHooks async{allGatherStart, reduceScatterStart, waitCollective,
                                              allReduceStart};
    setAsync(&async);
  }
  // Plans from before mt.gradient_ready lack the setter: no signals to take.
  if (auto setReady =
          reinterpret_cast<MtSetGradientReadyHookFn>(module.symbol(MT_SET_GRADIENT_READY_HOOK)))
    setReady(gradientReady);
  return true;
}

bool elementTypeOfCode(int64_t code, ElementType &type) {
  switch (code) {
  case MT_ABI_DTYPE_F32:
    type = ElementType::F32;
    return true;
  case MT_ABI_DTYPE_F64:
    type = ElementType::F64;
    return true;
  case MT_ABI_DTYPE_BF16:
    type = ElementType::BF16;
    return true;
  case MT_ABI_DTYPE_F16:
    type = ElementType::F16;
    return true;
  }
  return false;
}

bool reduceOpOfCode(int64_t code, ReduceOp &op) {
  switch (code) {
  case MT_ABI_REDUCE_SUM:
    op = ReduceOp::Sum;
    return true;
  case MT_ABI_REDUCE_MAX:
    op = ReduceOp::Max;
    return true;
  }
  return false;
}

bool meshAxesOfMask(int64_t mask, std::vector<std::string> &axes) {
  axes.clear();
  if (mask < 0 || mask >= (int64_t{1} << MT_ABI_MESH_AXES))
    return false;
  for (int i = 0; i < MT_ABI_MESH_AXES; ++i)
    if (mask & (int64_t{1} << i))
      axes.push_back(abi::kMeshAxes[i]);
  return true;
}

void CollectiveContext::finish() {
  // What the compiled code did not wait for: the step reads it after the call.
  if (startedPending && !joinStarted(*this) && error.empty())
    error = "ordering the started collectives before the step goes on failed";
  if (inFlight && !inFlight->drain(error) && error.empty())
    error = "a collective in flight failed";
}

CollectiveScope::CollectiveScope(CollectiveContext &context) : previous_(current) {
  current = &context;
}

CollectiveScope::~CollectiveScope() { current = previous_; }

} // namespace mt
