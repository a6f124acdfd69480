//===- RelativePositionBuckets.cpp - T5's relative distance buckets -------===//
#include "mt/Support/RelativePositionBuckets.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace mt {

int64_t exactRelativeBuckets(int64_t numBuckets, bool bidirectional) {
  return (bidirectional ? numBuckets / 2 : numBuckets) / 2;
}

std::string bucketCountProblem(int64_t numBuckets, bool bidirectional) {
  int64_t least = bidirectional ? 4 : 2;
  if (numBuckets < least || numBuckets % 2 != 0)
    return "the bucket count must be even and >= " + std::to_string(least) + ", got " +
           std::to_string(numBuckets);
  return {};
}

std::string maxDistanceProblem(int64_t numBuckets, bool bidirectional, int64_t maxDistance) {
  int64_t exact = exactRelativeBuckets(numBuckets, bidirectional);
  if (maxDistance <= exact)
    return "max_distance must exceed the " + std::to_string(exact) +
           " exactly bucketed distances, got " + std::to_string(maxDistance);
  return {};
}

int64_t relativePositionBucket(int64_t distance, int64_t numBuckets, bool bidirectional,
                               int64_t maxDistance) {
  int64_t base = 0, n = numBuckets;
  if (bidirectional) {
    n /= 2;
    if (distance > 0)
      base = n;
    distance = std::llabs(distance);
  } else {
    distance = distance < 0 ? -distance : 0; // later keys are masked anyway
  }
  int64_t exact = n / 2;
  if (distance < exact)
    return base + distance;
  // In f32 and truncated, as Hugging Face's T5Attention does: a distance on a
  // bucket boundary lands where its reference implementation puts it.
  float ratio = std::log(static_cast<float>(distance) / static_cast<float>(exact));
  float scale =
      static_cast<float>(std::log(static_cast<double>(maxDistance) / static_cast<double>(exact)));
  float grown = ratio / scale * static_cast<float>(n - exact);
  int64_t large = exact + static_cast<int64_t>(grown);
  return base + std::min(large, n - 1);
}

std::vector<int32_t> relativePositionBuckets(int64_t queries, int64_t keys, int64_t numBuckets,
                                             bool bidirectional, int64_t maxDistance) {
  std::vector<int32_t> buckets;
  buckets.reserve(static_cast<size_t>(queries + keys - 1));
  for (int64_t d = -(queries - 1); d < keys; ++d)
    buckets.push_back(
        static_cast<int32_t>(relativePositionBucket(d, numBuckets, bidirectional, maxDistance)));
  return buckets;
}

} // namespace mt
