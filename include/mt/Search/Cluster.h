//===- Cluster.h - the machines a layout is searched for -------*- C++ -*-===//
//
// What the layout search needs to know of a cluster: its chip (peak FLOP/s,
// memory bandwidth and size, what a kernel launch costs, how efficient GEMMs
// are by shape), how many chips a node holds, and the two link classes a
// collective can cross (inside a node, across nodes), each as a bandwidth
// and a per-step latency. Presets describe nodes of 8 A100-80GB, H100-80GB
// or H200 with NVLink and InfiniBand; a JSON file describes any other.
// Plain C++.
//
//===----------------------------------------------------------------------===//
#ifndef MT_SEARCH_CLUSTER_H
#define MT_SEARCH_CLUSTER_H

#include <cstdint>
#include <string>
#include <vector>

namespace mt {

/// A GEMM's share of the chip's peak at one shape: M (rows times batch),
/// N, K, as measured.
struct GemmPoint {
  int64_t m = 0, n = 0, k = 0;
  double efficiency = 0;
};

struct ChipSpec {
  std::string name;
  /// Dense FLOP/s for 16-bit GEMM inputs (bf16/fp16) and for f32.
  double peakFlops16 = 0, peakFlops32 = 0;
  /// Bytes/s between the chip and its memory.
  double memoryBandwidth = 0;
  /// Bytes of memory, and what the runtime and libraries take of it besides
  /// the plan's buffers (context, communicator and GEMM workspaces).
  int64_t memoryBytes = 0, reservedBytes = 0;
  /// Seconds a kernel costs beyond its work (launch and tail).
  double kernelOverhead = 0;
  /// CPU "chips" (rank threads): the cores they all share, 0 for GPUs; a
  /// GEMM takes `gemmThreads` of them (OpenBLAS's threads), any other
  /// kernel or copy one.
  double cores = 0, gemmThreads = 1;
  /// GEMM efficiency by shape; `gemmSource` says where it was measured.
  std::vector<GemmPoint> gemm;
  std::string gemmSource;

  /// The share of peak a GEMM of this shape reaches: the measured points
  /// nearest in log2(M), log2(N), log2(K), weighted by inverse squared
  /// distance (a measured shape is its own value).
  double gemmEfficiency(int64_t m, int64_t n, int64_t k) const;
};

/// One class of link: per-rank bandwidth of a ring collective (bytes/s, the
/// bus bandwidth NCCL's tests report) and the latency of each ring step.
struct LinkSpec {
  double bandwidth = 0, latency = 0;
};

struct Cluster {
  std::string name; // the preset or file it came from
  ChipSpec chip;
  int64_t gpus = 0, gpusPerNode = 0;
  LinkSpec intraNode, interNode;
  int64_t usableBytes() const { return chip.memoryBytes - chip.reservedBytes; }
  /// The link a ring over `ranks` (filling nodes in order) runs at: inside
  /// one node the node's; across nodes the NICs of the group's ranks in a
  /// node together (one NIC per chip), at most the node's link.
  LinkSpec ringLink(const std::vector<int64_t> &ranks) const;
  /// "128 nodes x 8 h100-80gb (80.0 GB each, 76.0 GB usable)".
  std::string describe() const;
};

/// The names --gpu takes for presets, for messages.
std::string presetNames();

/// Fills `chip` and the links of the preset `name`; false when there is no
/// such preset.
bool presetCluster(const std::string &name, Cluster &cluster);

/// A cluster described by the JSON file at `path` (docs/layout-search.md):
/// an optional "base" preset, then "chip", "gpus_per_node", "intra_node",
/// "inter_node" fields overriding it. False with `error` naming the field.
bool loadClusterFile(const std::string &path, Cluster &cluster, std::string &error);

/// `gpu` is a preset name or a file; `gpus` chips, `gpusPerNode` (0: the
/// preset's or the file's) a node. False with `error` when the cluster is
/// impossible (gpus not a multiple of gpusPerNode, missing figures).
bool makeCluster(const std::string &gpu, int64_t gpus, int64_t gpusPerNode, Cluster &cluster,
                 std::string &error);

enum class CollectiveKind { AllReduce, AllGather, ReduceScatter };

/// Seconds a ring collective over `n` ranks takes for a buffer of `bytes`
/// (the full tensor: an all-gather's output, a reduce-scatter's input):
/// all-reduce 2(n-1) steps moving 2(n-1)/n of it, the others (n-1) steps
/// moving (n-1)/n.
double collectiveSeconds(CollectiveKind kind, double bytes, int64_t n, const LinkSpec &link);

/// "12.34 GB", or "5.67 MB" under a gigabyte.
std::string bytesText(double bytes);

/// Whether the ranks of a group share a node when ranks fill nodes of
/// `gpusPerNode` in order.
bool insideOneNode(const std::vector<int64_t> &ranks, int64_t gpusPerNode);

} // namespace mt

#endif // MT_SEARCH_CLUSTER_H
