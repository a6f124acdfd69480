//===- TrainerSaved.cpp - activations a pipeline stage keeps ---------------===//
//
// A stage compiled by mt-split-stage-step writes, in its forward, the values
// its backward reads ("s<k>/saved:<i>"). A micro-batch's set lives from its
// forward to its backward; the schedule decides how many are alive at once,
// and exactly that many sets are allocated up front, as the memory report
// counts them.
//
//===----------------------------------------------------------------------===//
#include "mt/Runtime/Trainer.h"

#include "mt/Plan/BufferNames.h"

#include <algorithm>

namespace mt {

bool Trainer::collectSaved(Stage &st, std::string &error) {
  // The forward writes every saved buffer the training step reads.
  for (const plan::TensorSpec &in : st.trainStep->inputs()) {
    if (!buffers::isSaved(in.name()))
      continue;
    if (std::none_of(st.forward->outputs().begin(), st.forward->outputs().end(),
                     [&](const plan::TensorSpec &o) { return o.name() == in.name(); })) {
      error = "the plan is corrupt: the training step of stage " + std::to_string(st.index) +
              " reads the saved activation '" + in.name() + "', which its forward does not write";
      return false;
    }
    st.saved.push_back(in);
  }
  return true;
}

bool Trainer::allocateSaved(std::string &error) {
  if (numStages_ == 1)
    return true;
  const plan::Config &c = plan_.config();
  int64_t micro = c.global_batch_size() / (c.micro_batch_size() * dp_);
  int64_t virtualStages = numStages_ / pp_;
  pipelineSchedule_ = virtualStages > 1 ? scheduleInterleaved(pp_, virtualStages, micro, error)
                                        : schedule1F1B(pp_, micro);
  if (pipelineSchedule_.empty())
    return false;
  for (Stage &st : stages_) {
    int64_t sets = st.saved.empty() ? 0 : mostInFlight(pipelineSchedule_, ppIndex_, st.chunk);
    for (int64_t n = 0; n < sets; ++n) {
      SavedSet set;
      for (const plan::TensorSpec &spec : st.saved) {
        set.push_back(
            std::make_unique<Buffer>(std::vector<int64_t>(spec.shape().begin(), spec.shape().end()),
                                     dtypeBytes(spec.dtype()), cuda_.get()));
        if (!set.back()->allocated() && allocationError_.empty())
          allocationError_ = "saved activation '" + spec.name() + "' of micro-batch set " +
                             std::to_string(n) + ": " + set.back()->allocationError();
        dtypes_[spec.name()] = spec.dtype();
        int64_t bytes = dtypeBytes(spec.dtype());
        for (int64_t d : spec.shape())
          bytes *= d;
        savedBytes_ += bytes;
      }
      st.freeSets.push_back(std::move(set));
    }
  }
  return true;
}

void Trainer::swapSaved(Stage &st, SavedSet &set) {
  for (size_t i = 0; i < st.saved.size(); ++i)
    std::swap(buffers_[st.saved[i].name()], set[i]);
}

} // namespace mt
