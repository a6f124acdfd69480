//===- RelativePositionBuckets.h - T5's relative distance buckets -*- C++ -*-===//
//
// The bucket of a relative distance (key position - query position) as T5
// and Hugging Face's T5Attention compute it, shared by the verifier of
// mt.relative_position_bias and its lowerings.
//
//===----------------------------------------------------------------------===//
#ifndef MT_SUPPORT_RELATIVEPOSITIONBUCKETS_H
#define MT_SUPPORT_RELATIVEPOSITIONBUCKETS_H

#include <cstdint>
#include <string>
#include <vector>

namespace mt {

/// The buckets that hold one exact distance each: a quarter of the buckets
/// when bidirectional (half of each direction's half), else half.
int64_t exactRelativeBuckets(int64_t numBuckets, bool bidirectional);

/// Why these bucket settings cannot work (empty when they can): the bucket
/// count must be even and >= 4 (bidirectional) or >= 2, and max_distance
/// beyond the exact buckets.
std::string bucketCountProblem(int64_t numBuckets, bool bidirectional);
std::string maxDistanceProblem(int64_t numBuckets, bool bidirectional, int64_t maxDistance);

/// bucket(distance) for distance = key - query.
int64_t relativePositionBucket(int64_t distance, int64_t numBuckets, bool bidirectional,
                               int64_t maxDistance);

/// The buckets of every distance between `queries` queries and `keys` keys:
/// element d is bucket(d - (queries - 1)), for d in [0, queries + keys - 1).
std::vector<int32_t> relativePositionBuckets(int64_t queries, int64_t keys, int64_t numBuckets,
                                             bool bidirectional, int64_t maxDistance);

} // namespace mt

#endif // MT_SUPPORT_RELATIVEPOSITIONBUCKETS_H
