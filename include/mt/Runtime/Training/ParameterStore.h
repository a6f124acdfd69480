//===- ParameterStore.h - this rank's pieces of the parameters --*- C++ -*-===//
//
// Which piece of every parameter each of this rank's virtual stages holds
// (layers of a stacked parameter, a tensor-parallel slice), whether its
// gradient needs a sum over other ranks first (tied copies, tensor-parallel
// partial sums), and the initial values: keyed by the global element index,
// so every layout starts from the values of the unsplit model.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_PARAMETERSTORE_H
#define MT_RUNTIME_TRAINING_PARAMETERSTORE_H

#include "mt/Plan/BufferNames.h"
#include "mt/Runtime/Training/BufferStore.h"
#include "mt/Runtime/Training/RankPlace.h"

#include <string>
#include <vector>

namespace mt {

/// A parameter, or layers of a stacked one, held by one local stage.
struct ParameterSlice {
  const plan::Parameter *param = nullptr;
  int64_t stage = 0;          // the virtual stage holding it
  std::string prefix;         // its buffers' prefix ("s1/"; "" unpipelined)
  std::string buffer;         // stage-prefixed name of the values
  std::string accumulator;    // stage-prefixed name of the accumulated gradient
  TensorShard layout;         // which elements of the global tensor
  std::vector<int64_t> shape; // local shape
  int64_t elements = 0;
  bool ownsNorm = true; // counted in the gradient norm (replicated copies once)
  /// Ranks holding copies when several stages do (sorted; else empty).
  std::vector<int64_t> tiedRanks;
  bool partialOverTp = false; // the step leaves a tensor-parallel partial sum
  /// Elements of one data-parallel rank's shard (distributed optimizer).
  int64_t shardElements(int64_t dp) const { return (elements + dp - 1) / dp; }
  /// The name of one of the parameter's other buffers on this stage.
  std::string named(buffers::Role role) const;
};

/// The groups of ranks that sum a tied parameter's gradient (ParameterSlice::
/// tiedRanks), one entry per distinct set of pipeline ranks holding one, in
/// the same order on every rank: this rank's group there, or empty where it
/// holds none (the NCCL communicators are made from it).
std::vector<std::vector<int64_t>> tiedGroups(const plan::Plan &plan, const RankPlace &place);

class ParameterStore {
public:
  /// Lays out the slices each of `place`'s stages holds; false with `error`
  /// for a plan whose stages name unknown parameters or impossible pieces.
  bool layOut(const plan::Plan &plan, const RankPlace &place, std::string &error);
  /// The plan laid out.
  const plan::Plan &plan() const { return *plan_; }
  /// Every slice of this rank, by stage, then in the stage's order.
  const std::vector<ParameterSlice> &slices() const { return slices_; }
  /// Allocates every slice and its gradient accumulator in `buffers`, the
  /// values initialized from `seed` as the plan's initializers say.
  void initialize(BufferStore &buffers, uint64_t seed) const;

  /// The whole of `param` (prefix "": values, "grad_acc:": the accumulated
  /// gradient) assembled on rank 0 from the ranks holding its pieces. Every
  /// rank must call it, in the same order; `out` is filled on rank 0 only.
  bool gather(const std::string &prefix, const plan::Parameter &param, const BufferStore &buffers,
              std::vector<double> &out, std::string &error) const;

private:
  const plan::Plan *plan_ = nullptr;
  const RankPlace *place_ = nullptr;
  std::vector<ParameterSlice> slices_;
};

} // namespace mt

#endif // MT_RUNTIME_TRAINING_PARAMETERSTORE_H
