//===- OpRecord.h - the kernels and collectives of a function --*- C++ -*-===//
//
// The layout search prices a compiled function from a record of what it
// runs, in order: kernels (bytes read and written, contraction FLOPs and
// GEMM shape), collectives (kind, full buffer, mesh axes, whether the code
// waits for it later) and the waits. A kernel costs its contraction at the
// chip's peak times the GEMM efficiency of its shape, or its bytes at memory
// speed if slower, plus the chip's kernel overhead. Collectives run on a
// communication stream beside the kernels when awaited later
// (mt-overlap-collectives), else in line, each at the ring model of the link
// its group crosses. Every figure of a record is affine in the micro-batch
// size, so records at sizes 1 and 2 give any other. Plain C++.
//
//===----------------------------------------------------------------------===//
#ifndef MT_SEARCH_OPRECORD_H
#define MT_SEARCH_OPRECORD_H

#include "mt/Search/Cluster.h"

#include <cstdint>
#include <vector>

namespace mt {

struct OpRecord {
  enum Kind : uint8_t { Kernel, Collective, Wait } kind = Kernel;
  /// Kernel: bytes read and written; a contraction's FLOPs and GEMM shape
  /// (M, N, K; 0 for other kernels); whether its inputs are 16-bit; whether
  /// it computes the forward once (neither backward nor recomputed).
  /// Collective: `bytes` of the full buffer over mesh `axes` (bit 0 pp,
  /// 1 dp, 2 tp), `async` when awaited later. Wait: `waitsFor`, the index of
  /// the collective's record.
  double bytes = 0, flops = 0, m = 0, n = 0, k = 0;
  bool sixteenBit = false, forward = false, async = false;
  CollectiveKind collective = CollectiveKind::AllReduce;
  int64_t axes = 0, waitsFor = -1;
};

/// Sizes of the mesh [pp, dp, tp] and the link each axis's ring runs at.
struct MeshLinks {
  int64_t sizes[3] = {1, 1, 1};
  LinkSpec links[3];
};

/// The links of the mesh on `cluster`, ranks filling nodes in mesh order
/// (tp fastest).
MeshLinks meshLinks(const Cluster &cluster, int64_t pp, int64_t dp, int64_t tp);

struct FunctionCost {
  /// Seconds until the last kernel and awaited collective end.
  double seconds = 0;
  /// Seconds of kernels, and of collectives (hidden or not).
  double kernels = 0, communication = 0;
  /// On a chip of shared cores: the whole machine's seconds it takes (a
  /// GEMM all the cores, anything else one).
  double machine = 0;
  /// FLOPs of its contractions; of those computing the forward once.
  double contractionFlops = 0, forwardFlops = 0;
  int64_t launches = 0;
};

FunctionCost costOf(const std::vector<OpRecord> &ops, const ChipSpec &chip, const MeshLinks &mesh);

/// The records at micro-batch size `m` from those at 1 (`one`) and 2
/// (`two`); false when the two are not the same ops.
bool recordsAt(const std::vector<OpRecord> &one, const std::vector<OpRecord> &two, double m,
               std::vector<OpRecord> &out);

} // namespace mt

#endif // MT_SEARCH_OPRECORD_H
