//===- GradientSync.cpp - completing a step's gradients -------------------===//
#include "mt/Runtime/Training/GradientSync.h"

#include "TrainerInternals.h"
#include "mt/Runtime/Abi.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace mt {

using namespace trainer;

void GradientSync::zero() {
  for (const ParameterSlice &sl : params_.slices()) {
    Buffer &acc = *buffers_.find(sl.accumulator);
    size_t bytes = static_cast<size_t>(acc.numElements() * dtypeBytes(sl.param->dtype()));
    if (gpu_)
      gpu_->zero(acc.data(), bytes); // on the GPU: the pages stay there
    else
      std::memset(acc.data(), 0, bytes);
  }
  reducedEarly_.clear();
}

void *GradientSync::stream() const { return gpu_ ? gpu_->stream() : nullptr; }

bool GradientSync::reduce(std::string &error) {
  return reducePartial(error) && reduceTied(error) && reduceDataParallel(error);
}

bool GradientSync::reducePartial(std::string &error) {
  if (place_.tp == 1)
    return true;
  for (const ParameterSlice &sl : params_.slices()) {
    if (!sl.partialOverTp)
      continue;
    Buffer &acc = *buffers_.find(sl.accumulator);
    ElementType type = commType(sl.param->dtype());
    if (nccl_ ? !nccl_->allReduce(acc.data(), acc.numElements(), type, ReduceOp::Sum,
                                  MT_ABI_AXIS_TP, stream(), sl.accumulator, error)
              : !place_.comm->allReduce(place_.tpGroup, acc.data(), acc.numElements(), type,
                                        ReduceOp::Sum, sl.accumulator, error))
      return false;
  }
  return true;
}

bool GradientSync::reduceTied(std::string &error) {
  // A parameter held by several stages (a tied embedding; T5's shared
  // embedding and relative position tables) gets the sum of every copy's
  // gradient: this rank's copies (interleaved stages can hold two) are added
  // first, the sum all-reduced once over the holding ranks, in the plan's
  // parameter order on every rank, then written back to each copy.
  if (gpu_ && !gpu_->synchronize(error)) // managed buffers, read on the host below
    return false;
  for (const plan::Parameter &param : params_.plan().parameters()) {
    const plan::Parameter *p = &param;
    std::vector<Buffer *> copies;
    const ParameterSlice *tied = nullptr;
    for (const ParameterSlice &sl : params_.slices())
      if (sl.param == p && !sl.tiedRanks.empty()) {
        copies.push_back(buffers_.find(sl.accumulator));
        tied = &sl;
      }
    if (copies.empty())
      continue;
    Buffer &sum = *copies.front();
    bool wide = p->dtype() == plan::F64;
    for (size_t c = 1; c < copies.size(); ++c)
      for (int64_t i = 0; i < sum.numElements(); ++i) {
        if (wide)
          sum.as<double>()[i] += copies[c]->as<double>()[i];
        else
          sum.as<float>()[i] += copies[c]->as<float>()[i];
      }
    std::string what = buffers::of(buffers::Role::GradAccumulator, p->name());
    if (tied->tiedRanks.size() > 1 &&
        !(nccl_ ? nccl_->allReduceOver(tied->tiedRanks, sum.data(), sum.numElements(),
                                       commType(p->dtype()), ReduceOp::Sum, stream(), what,
                                       error) &&
                      (copies.size() < 2 || !gpu_ || gpu_->synchronize(error)) // read below
                : place_.comm->allReduce(Group{tied->tiedRanks, "tied " + p->name()},
                                         sum.data(), sum.numElements(), commType(p->dtype()),
                                         ReduceOp::Sum, what, error)))
      return false;
    for (size_t c = 1; c < copies.size(); ++c)
      std::memcpy(copies[c]->data(), sum.data(),
                  static_cast<size_t>(sum.numElements()) * (wide ? 8 : 4));
  }
  return true;
}

bool GradientSync::reduceDataParallel(std::string &error) {
  int64_t dp = place_.dp;
  // A one-rank run with NCCL still sums (a copy), so one GPU checks the
  // calls against the real library (issue #39).
  bool oneRankNccl = nccl_ && place_.mesh.numRanks() == 1;
  if (dp == 1 && !distributed_ && !oneRankNccl)
    return true;
  for (const ParameterSlice &sl : params_.slices()) {
    const plan::Parameter &p = *sl.param;
    Buffer &acc = *buffers_.find(sl.accumulator);
    ElementType type = commType(p.dtype());
    const std::string &what = sl.accumulator;
    if (reducedEarly_.count(what))
      continue; // reduced beside the backward
    if (!distributed_) {
      if (nccl_ ? !nccl_->allReduce(acc.data(), acc.numElements(), type, ReduceOp::Sum,
                                    MT_ABI_AXIS_DP, stream(), what, error)
                : !place_.comm->allReduce(place_.dpGroup, acc.data(), acc.numElements(), type,
                                          ReduceOp::Sum, what, error))
        return false;
      continue;
    }
    Buffer *shard = buffers_.find(sl.named(buffers::Role::GradShard));
    int64_t s = sl.shardElements(dp), bytes = dtypeBytes(p.dtype());
    if (!shard || shard->numElements() != s) {
      error = "the plan's optimizer does not take " + std::to_string(s) + "-element shards of '" +
              sl.buffer + "'";
      return false;
    }
    // Zero-padded to dp equal pieces; rank i keeps the sum of piece i.
    size_t paddedBytes = static_cast<size_t>(s * dp * bytes);
    if (nccl_) {
      // Padded in the scratch buffer, in stream order after the sums queued
      // before: no host wait.
      size_t accBytes = static_cast<size_t>(acc.numElements() * bytes);
      unsigned char *padded = nccl_->scratch(paddedBytes, gpu_, error);
      if (!padded || !copyOnStream(gpu_, padded, acc.data(), accBytes, error))
        return false;
      zeroOnStream(gpu_, padded + accBytes, paddedBytes - accBytes);
      if (!nccl_->reduceScatter(padded, shard->data(), s, type, MT_ABI_AXIS_DP, stream(), what,
                                error))
        return false;
      continue;
    }
    std::vector<unsigned char> padded(paddedBytes, 0);
    std::memcpy(padded.data(), acc.data(), static_cast<size_t>(acc.numElements() * bytes));
    if (dp == 1)
      std::memcpy(shard->data(), padded.data(), padded.size());
    else if (!place_.comm->reduceScatter(place_.dpGroup, padded.data(), shard->data(), s, type,
                                         ReduceOp::Sum, what, error))
      return false;
  }
  return true;
}

void GradientSync::startOverlap(const LocalStage &st) {
  runner_.signalGradientsTo(nullptr);
  const plan::Function &fn = *st.trainStep;
  Communicator *comm = place_.comm;
  // With NCCL the sums queue on a stream of their own. Else only a
  // transport several threads may use at once (rank threads; MPI with
  // MPI_THREAD_MULTIPLE) lets the reduction run on a thread of its own.
  bool onDevice = nccl_ != nullptr;
  bool onHost = !gpu_ && !nccl_ && comm && comm->transport().concurrent();
  if (!overlapAllowed_ || place_.dp <= 1 || !(onDevice || onHost) || st.accumulate ||
      fn.gradients_ready_size() == 0)
    return;
  // An accumulator goes to the other thread when its signals cover it and
  // nothing else (a tensor-parallel partial sum) must come first.
  std::set<std::string> eligible;
  std::map<std::string, const ParameterSlice *> sliceOf;
  for (const ParameterSlice &sl : params_.slices()) {
    if (sl.stage != st.index)
      continue;
    Buffer *b = buffers_.find(sl.accumulator);
    // Tensor-parallel partial sums and tied copies are summed over their
    // own groups first, after the step.
    if (!b || sl.param->grad_partial_over_size() > 0 || !sl.tiedRanks.empty())
      continue;
    Buffer *shard = nullptr;
    if (distributed_) {
      shard = buffers_.find(sl.named(buffers::Role::GradShard));
      if (!shard || shard->numElements() != sl.shardElements(place_.dp))
        continue; // reduceDataParallel says what is wrong
    }
    sliceOf[sl.accumulator] = &sl;
    std::vector<std::pair<int64_t, int64_t>> ranges;
    for (const plan::GradientSlice &g : fn.gradients_ready())
      if (g.accumulator() == sl.accumulator)
        ranges.push_back({g.offset(), g.count()});
    std::sort(ranges.begin(), ranges.end());
    int64_t covered = 0;
    for (auto [offset, count] : ranges)
      if (offset == covered)
        covered += count;
    if (covered != b->numElements())
      continue;
    eligible.insert(sl.accumulator);
    // The shard's padding past the accumulator's end is no slice's: zero,
    // as the zero-padded reduce-scatter after the backward leaves it.
    if (shard) {
      int64_t s = sl.shardElements(place_.dp), first = place_.dpIndex * s;
      int64_t valid = std::clamp<int64_t>(b->numElements() - first, 0, s);
      int64_t bytes = dtypeBytes(sl.param->dtype());
      zeroOnStream(gpu_, static_cast<unsigned char *>(shard->data()) + valid * bytes,
                   static_cast<size_t>((s - valid) * bytes));
    }
  }
  std::vector<OverlappedReduction::Slice> slices;
  std::vector<int64_t> bySignal;
  for (const plan::GradientSlice &g : fn.gradients_ready()) {
    if (!eligible.count(g.accumulator())) {
      bySignal.push_back(-1);
      continue;
    }
    Buffer &b = *buffers_.find(g.accumulator());
    plan::DType dtype = buffers_.dtype(g.accumulator());
    bySignal.push_back(static_cast<int64_t>(slices.size()));
    OverlappedReduction::Slice slice;
    slice.data = static_cast<unsigned char *>(b.data()) + g.offset() * dtypeBytes(dtype);
    slice.count = g.count();
    slice.type = commType(dtype);
    slice.what = g.accumulator() + "[" + std::to_string(g.offset()) + ", +" +
                 std::to_string(g.count()) + ")";
    if (distributed_) {
      const ParameterSlice &sl = *sliceOf.at(g.accumulator());
      slice.shard = buffers_.find(sl.named(buffers::Role::GradShard))->data();
      slice.offset = g.offset();
      slice.shardElements = sl.shardElements(place_.dp);
    }
    slices.push_back(std::move(slice));
  }
  if (slices.empty())
    return;
  if (onDevice) {
    if (!deviceOverlap_)
      deviceOverlap_ = std::make_unique<DeviceOverlappedReduction>(
          *nccl_, gpu_, MT_ABI_AXIS_DP, place_.dp, place_.dpIndex);
    deviceOverlap_->start(std::move(slices), std::move(bySignal));
    runner_.signalGradientsTo(deviceOverlap_.get());
    reducedEarly_.insert(eligible.begin(), eligible.end());
    return;
  }
  if (!overlap_)
    overlap_ = std::make_unique<OverlappedReduction>(*comm, place_.dpGroup);
  overlap_->start(std::move(slices), std::move(bySignal));
  runner_.signalGradientsTo(overlap_.get());
  reducedEarly_.insert(eligible.begin(), eligible.end());
}

bool GradientSync::finishOverlap(StepStats &stats, bool failed, std::string &error) {
  runner_.signalGradientsTo(nullptr);
  bool onDevice = deviceOverlap_ && deviceOverlap_->active();
  if (!onDevice && (!overlap_ || !overlap_->active()))
    return !failed;
  double waited = 0;
  std::string reduceError;
  bool reduced = onDevice ? deviceOverlap_->finish(waited, reduceError)
                          : overlap_->finish(waited, reduceError);
  stats.exposedCommSeconds += waited;
  stats.overlapped = true;
  if (failed)
    return false;
  if (!reduced)
    error = reduceError;
  return reduced;
}

} // namespace mt
