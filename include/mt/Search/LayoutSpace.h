//===- LayoutSpace.h - the layouts a model and a batch allow ---*- C++ -*-===//
//
// A layout is everything mtc's flags choose about how a step is spread and
// what it keeps: tensor, pipeline (and virtual) and data-parallel sizes,
// sequence parallelism, the distributed optimizer, the micro-batch size and
// the recomputation. The layout search enumerates those that divide the
// cluster, the layers and the global batch. Plain C++.
//
//===----------------------------------------------------------------------===//
#ifndef MT_SEARCH_LAYOUTSPACE_H
#define MT_SEARCH_LAYOUTSPACE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mt {

/// The recomputation a layout uses: none, each layer's attention core, or
/// whole layers (uniform, one layer a group).
enum class RecomputeChoice { None, Selective, Full };

struct Layout {
  int64_t tp = 1, pp = 1, virtualStages = 1, dp = 1, microBatch = 1;
  bool sequenceParallel = false, distributedOptimizer = false;
  RecomputeChoice recompute = RecomputeChoice::None;

  int64_t ranks() const { return tp * pp * dp; }
  /// Micro-batches each data-parallel rank runs per step.
  int64_t microBatches(int64_t globalBatch) const { return globalBatch / (dp * microBatch); }
  /// The mtc flags that select it, every choice spelled out.
  std::string flags() const;
  /// "tp 8 pp 16x6 dp 8 mbs 1 sp dist-opt rc=selective".
  std::string brief() const;
};

/// What the cluster, the model and the batch fix; zero or unset fields are
/// free (flags given with --search-layout fix them).
struct LayoutBounds {
  int64_t gpus = 1, layers = 1, globalBatch = 1;
  /// Largest micro-batch size tried.
  int64_t maxMicroBatch = 16;
  int64_t tp = 0, pp = 0, dp = 0, virtualStages = 0, microBatch = 0;
  std::optional<bool> sequenceParallel, distributedOptimizer;
  std::optional<RecomputeChoice> recompute;
};

/// Every layout of `bounds.gpus` ranks with tp x pp x dp = gpus, pp at most
/// the layers, the global batch a multiple of dp x micro-batch; interleaved
/// stages only where the layers split evenly into pp x v chunks and the
/// micro-batches are a multiple of pp (mtc's interleaved schedule). Sequence
/// parallelism and the distributed optimizer are tried on and off where
/// they mean something (tp > 1, dp > 1).
std::vector<Layout> enumerateLayouts(const LayoutBounds &bounds);

/// "none", "selective", "full".
const char *nameOf(RecomputeChoice choice);

} // namespace mt

#endif // MT_SEARCH_LAYOUTSPACE_H
