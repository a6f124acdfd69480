//===- BatchInputs.h - a micro-batch into a plan's batch buffers -*- C++ -*-===//
#ifndef MT_RUNTIME_TRAINING_BATCHINPUTS_H
#define MT_RUNTIME_TRAINING_BATCHINPUTS_H

#include "mt/Runtime/Training/Batch.h"
#include "mt/Runtime/Training/BufferStore.h"

#include <string>

namespace mt {

/// Copies `batch` into the batch inputs `buffers` holds ("batch:tokens",
/// "batch:labels", the model's further inputs), checking sizes and token
/// ids. Global micro-batch `micro` of step `iteration` gets its own
/// dropout seed (evaluation: iteration 0); "batch:loss_scale" gets
/// `lossScale`. False with `error` for a batch the plan cannot take.
bool writeBatch(BufferStore &buffers, const plan::Config &config, const MicroBatch &batch,
                int64_t iteration, int64_t micro, double lossScale, std::string &error);

/// The dropout seed of global micro-batch `micro` of step `iteration`: a
/// function of the run's seed and the micro-batch's place in training,
/// never of the rank, so masks do not depend on the layout.
int64_t dropoutSeed(uint64_t runSeed, int64_t iteration, int64_t micro);

} // namespace mt

#endif // MT_RUNTIME_TRAINING_BATCHINPUTS_H
