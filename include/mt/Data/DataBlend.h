//===- DataBlend.h - datasets mixed by weight (Megatron's blend) -*- C++ -*-===//
//
// `--data-path 0.3 web 0.5 code 0.2 books` draws 30% of the samples from web,
// 50% from code and 20% from books, in Megatron's order: sample i of a blend
// of datasets with normalized weights w_d, of which c_d samples were drawn so
// far, comes from the dataset furthest behind its share, the first d with the
// largest w_d * max(i, 1) - c_d, and is that dataset's sample c_d (Megatron's
// build_blending_indices). The order depends on nothing but the weights.
//
//===----------------------------------------------------------------------===//
#ifndef MT_DATA_DATABLEND_H
#define MT_DATA_DATABLEND_H

#include "mt/Data/IndexArray.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mt {

struct DataBlend {
  std::vector<std::string> prefixes;
  /// Normalized to sum 1, one per prefix; empty when none were given (the
  /// datasets then weigh by their sizes).
  std::vector<double> weights;
  bool empty() const { return prefixes.empty(); }
};

/// Megatron's word list: "W1 P1 W2 P2 ..." (weights non-negative, not all 0)
/// or "P1 P2 ..." (no weights). False with `error` naming the bad word.
bool parseDataBlend(const std::vector<std::string> &words, DataBlend &blend, std::string &error);

/// The words of a blend file (--data-args-path): separated by any
/// whitespace, across lines.
bool readDataBlendWords(const std::string &path, std::vector<std::string> &words,
                        std::string &error);

/// Weights divided by their sum (as Megatron's normalize, in double).
std::vector<double> normalizeWeights(const std::vector<double> &weights);

/// Which dataset, and which of its samples, each sample of a blend is.
struct BlendingIndex {
  IndexArray<int16_t> dataset;
  IndexArray<int64_t> sample;
};

/// The first `size` samples of a blend of weights.size() datasets (at most
/// 32767), by the rule above.
BlendingIndex buildBlendingIndex(const std::vector<double> &weights, int64_t size);

/// The samples each dataset of a blend of `size` is built to hold, with
/// Megatron's 0.5% margin: ceil(ceil(size * w_d) * 1.005).
std::vector<int64_t> blendedDatasetSizes(const std::vector<double> &weights, int64_t size);

} // namespace mt

#endif // MT_DATA_DATABLEND_H
