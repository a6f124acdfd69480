//===- TrainerOverlap.cpp - which gradients reduce beside the backward -----===//
#include "TrainerInternals.h"
#include "mt/Plan/BufferNames.h"
#include "mt/Runtime/Trainer.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace mt {

using namespace trainer;

void Trainer::startOverlappedReduction(Stage &st) {
  activeGradients_ = nullptr;
  const plan::Function &fn = *st.trainStep;
  // Only a transport several threads may use at once (rank threads; MPI
  // with MPI_THREAD_MULTIPLE) lets the reduction run on a thread of its own.
  if (!overlapAllowed_ || dp_ <= 1 || cuda_ || !comm_ || st.accumulate ||
      fn.gradients_ready_size() == 0 || !comm_->transport().concurrent())
    return;
  bool distributed = plan_.config().parallel().distributed_optimizer();
  // An accumulator goes to the other thread when its signals cover it and
  // nothing else (a tensor-parallel partial sum) must come first.
  std::set<std::string> eligible;
  std::map<std::string, const Slice *> sliceOf;
  for (const Slice &sl : st.slices) {
    std::string acc = st.prefix + buffers::of(buffers::Role::GradAccumulator, sl.param->name());
    Buffer *b = buffer(acc);
    // Tensor-parallel partial sums and tied copies are summed over their
    // own groups first, after the step.
    if (!b || sl.param->grad_partial_over_size() > 0 || !sl.tiedRanks.empty())
      continue;
    Buffer *shard = nullptr;
    if (distributed) {
      shard = buffer(st.prefix + buffers::of(buffers::Role::GradShard, sl.param->name()));
      if (!shard || shard->numElements() != shardElements(sl))
        continue; // reduceGradients says what is wrong
    }
    sliceOf[acc] = &sl;
    std::vector<std::pair<int64_t, int64_t>> ranges;
    for (const plan::GradientSlice &g : fn.gradients_ready())
      if (g.accumulator() == acc)
        ranges.push_back({g.offset(), g.count()});
    std::sort(ranges.begin(), ranges.end());
    int64_t covered = 0;
    for (auto [offset, count] : ranges)
      if (offset == covered)
        covered += count;
    if (covered != b->numElements())
      continue;
    eligible.insert(acc);
    // The shard's padding past the accumulator's end is no slice's: zero,
    // as the zero-padded reduce-scatter after the backward leaves it.
    if (shard) {
      int64_t s = shardElements(sl), first = dpIndex_ * s;
      int64_t valid = std::clamp<int64_t>(b->numElements() - first, 0, s);
      int64_t bytes = dtypeBytes(sl.param->dtype());
      std::memset(static_cast<unsigned char *>(shard->data()) + valid * bytes, 0,
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
    Buffer &b = *buffer(g.accumulator());
    plan::DType dtype = dtypes_[g.accumulator()];
    bySignal.push_back(static_cast<int64_t>(slices.size()));
    OverlappedReduction::Slice slice;
    slice.data = static_cast<unsigned char *>(b.data()) + g.offset() * dtypeBytes(dtype);
    slice.count = g.count();
    slice.type = commType(dtype);
    slice.what = g.accumulator() + "[" + std::to_string(g.offset()) + ", +" +
                 std::to_string(g.count()) + ")";
    if (distributed) {
      const Slice &sl = *sliceOf.at(g.accumulator());
      slice.shard =
          buffer(st.prefix + buffers::of(buffers::Role::GradShard, sl.param->name()))->data();
      slice.offset = g.offset();
      slice.shardElements = shardElements(sl);
    }
    slices.push_back(std::move(slice));
  }
  if (slices.empty())
    return;
  if (!overlap_)
    overlap_ = std::make_unique<OverlappedReduction>(*comm_, dpGroup_);
  overlap_->start(std::move(slices), std::move(bySignal));
  activeGradients_ = overlap_.get();
  reducedEarly_.insert(eligible.begin(), eligible.end());
}

bool Trainer::finishOverlappedReduction(StepStats &stats, bool failed, std::string &error) {
  activeGradients_ = nullptr;
  if (!overlap_ || !overlap_->active())
    return !failed;
  double waited = 0;
  std::string reduceError;
  bool reduced = overlap_->finish(waited, reduceError);
  stats.exposedCommSeconds += waited;
  stats.overlapped = true;
  if (failed)
    return false;
  if (!reduced)
    error = reduceError;
  return reduced;
}

} // namespace mt
