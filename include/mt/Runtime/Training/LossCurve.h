//===- LossCurve.h - the loss curve of a training run as SVG ----*- C++ -*-===//
//
// mt-run --log-dir writes DIR/loss.svg with this: round ticks on both axes
// over a light grid, the raw training loss faint with a smoothed line over
// it (TensorBoard's debiased moving average), validation points, a legend
// and a title naming the model and its layout. Plain C++, no dependencies.
//
//===----------------------------------------------------------------------===//
#ifndef MT_RUNTIME_TRAINING_LOSSCURVE_H
#define MT_RUNTIME_TRAINING_LOSSCURVE_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mt {

/// What the chart shows. Points whose loss is not finite are left out.
struct LossCurve {
  std::string title; // e.g. "gpt 12L d768 — tp2 pp2 dp1, bf16"; none when empty
  std::vector<std::pair<int64_t, double>> train, valid; // (iteration, loss)
  /// TensorBoard's smoothing weight, in [0, 1); 0 draws the raw line alone.
  double smoothing = 0.6;
};

/// A standalone SVG document of the chart.
std::string lossCurveSvg(const LossCurve &curve);

/// Round ticks (steps of 1, 2 or 5 times a power of ten) about `target` of
/// them, from one at or below `lo` to one at or above `hi`, so that an axis
/// that runs from the first to the last tick covers [lo, hi]. An empty range
/// (lo == hi) is widened around its value. Empty when lo or hi is not finite
/// or the range overflows.
std::vector<double> niceTicks(double lo, double hi, int target);

/// The labels of `ticks` (as niceTicks makes them): as short as they can be
/// while distinct ticks read distinctly ("3.5", "4", "1000", "0.05").
std::vector<std::string> tickLabels(const std::vector<double> &ticks);

/// TensorBoard's smoothing: an exponential moving average with weight
/// `weight` (clamped to [0, 0.999]) divided by 1 - weight^n after n values,
/// so that the start is not pulled towards zero (the first output is the
/// first input). A value that is not finite passes through unsmoothed.
std::vector<double> smoothTensorBoard(const std::vector<double> &values, double weight);

} // namespace mt

#endif // MT_RUNTIME_TRAINING_LOSSCURVE_H
