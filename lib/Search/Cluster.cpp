//===- Cluster.cpp - the machines a layout is searched for ------------------===//
#include "mt/Search/Cluster.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace mt {

double ChipSpec::gemmEfficiency(int64_t m, int64_t n, int64_t k) const {
  if (gemm.empty())
    return 1.0;
  auto lg = [](int64_t v) { return std::log2(static_cast<double>(std::max<int64_t>(v, 1))); };
  // The four nearest measured shapes, weighted by 1 / distance^2.
  std::vector<std::pair<double, double>> near; // squared distance, efficiency
  for (const GemmPoint &p : gemm) {
    double dm = lg(m) - lg(p.m), dn = lg(n) - lg(p.n), dk = lg(k) - lg(p.k);
    near.emplace_back(dm * dm + dn * dn + dk * dk, p.efficiency);
  }
  size_t count = std::min<size_t>(4, near.size());
  std::partial_sort(near.begin(), near.begin() + static_cast<long>(count), near.end());
  if (near[0].first < 1e-12)
    return near[0].second;
  double weights = 0, sum = 0;
  for (size_t i = 0; i < count; ++i) {
    weights += 1 / near[i].first;
    sum += near[i].second / near[i].first;
  }
  return sum / weights;
}

std::string Cluster::describe() const {
  int64_t nodes = gpusPerNode ? gpus / gpusPerNode : 0;
  return std::to_string(nodes) + (nodes == 1 ? " node x " : " nodes x ") +
         std::to_string(gpusPerNode) + " " + chip.name + " (" +
         bytesText(static_cast<double>(chip.memoryBytes)) + " each, " +
         bytesText(static_cast<double>(usableBytes())) + " usable)";
}

LinkSpec Cluster::ringLink(const std::vector<int64_t> &ranks) const {
  if (insideOneNode(ranks, gpusPerNode))
    return intraNode;
  int64_t node = ranks.front() / gpusPerNode;
  double perNode = static_cast<double>(std::count_if(
      ranks.begin(), ranks.end(), [&](int64_t r) { return r / gpusPerNode == node; }));
  LinkSpec link = interNode;
  link.bandwidth = std::min(intraNode.bandwidth, std::max(perNode, 1.0) * interNode.bandwidth);
  return link;
}

double collectiveSeconds(CollectiveKind kind, double bytes, int64_t n, const LinkSpec &link) {
  if (n <= 1 || bytes <= 0)
    return 0;
  double share = static_cast<double>(n - 1) / static_cast<double>(n);
  double steps = static_cast<double>(n - 1);
  if (kind == CollectiveKind::AllReduce) {
    share *= 2;
    steps *= 2;
  }
  return steps * link.latency + share * bytes / link.bandwidth;
}

std::string bytesText(double bytes) {
  char text[32];
  if (bytes >= 1e9)
    std::snprintf(text, sizeof text, "%.2f GB", bytes / 1e9);
  else
    std::snprintf(text, sizeof text, "%.2f MB", bytes / 1e6);
  return text;
}

bool insideOneNode(const std::vector<int64_t> &ranks, int64_t gpusPerNode) {
  if (ranks.empty() || gpusPerNode <= 0)
    return true;
  int64_t node = ranks.front() / gpusPerNode;
  return std::all_of(ranks.begin(), ranks.end(),
                     [&](int64_t r) { return r / gpusPerNode == node; });
}

namespace {

/// Reads the fields of one JSON object into doubles, refusing unknown keys
/// and non-positive values.
class Fields {
public:
  Fields(const llvm::json::Object &object, std::string where, std::string &error)
      : object_(object), where_(std::move(where)), error_(error) {}

  /// `scale` times the field's value into `out`, if it is present.
  bool number(const char *key, double scale, double &out) {
    seen_.insert(key);
    const llvm::json::Value *v = object_.get(key);
    if (!v)
      return true;
    std::optional<double> d = v->getAsNumber();
    if (!d || !(*d > 0) || !std::isfinite(*d))
      return fail(std::string("\"") + key + "\" must be a positive number");
    out = *d * scale;
    return true;
  }
  bool bytes(const char *key, double scale, int64_t &out) {
    double d = static_cast<double>(out) / scale;
    if (!number(key, scale, d))
      return false;
    out = static_cast<int64_t>(d);
    return true;
  }
  bool allKnown() {
    for (const auto &entry : object_)
      if (!seen_.count(entry.first.str()))
        return fail("unknown field \"" + entry.first.str() + "\"");
    return true;
  }
  bool fail(const std::string &message) {
    error_ = where_ + ": " + message;
    return false;
  }
  void allow(const char *key) { seen_.insert(key); }

private:
  const llvm::json::Object &object_;
  std::string where_;
  std::string &error_;
  std::set<std::string> seen_;
};

bool readGemmTable(const llvm::json::Array &rows, ChipSpec &chip, Fields &f) {
  chip.gemm.clear();
  for (const llvm::json::Value &row : rows) {
    const llvm::json::Array *a = row.getAsArray();
    if (!a || a->size() != 4)
      return f.fail("\"gemm_efficiency\" rows are [M, N, K, share of peak]");
    std::optional<int64_t> m = (*a)[0].getAsInteger(), n = (*a)[1].getAsInteger(),
                           k = (*a)[2].getAsInteger();
    std::optional<double> e = (*a)[3].getAsNumber();
    if (!m || !n || !k || !e || *m < 1 || *n < 1 || *k < 1 || !(*e > 0) || *e > 1)
      return f.fail("\"gemm_efficiency\" rows are [M, N, K, share of peak] with positive sizes "
                    "and a share in (0, 1]");
    chip.gemm.push_back({*m, *n, *k, *e});
  }
  return true;
}

bool readChip(const llvm::json::Object &o, ChipSpec &chip, const std::string &where,
              std::string &error) {
  Fields f(o, where + " \"chip\"", error);
  if (!f.number("peak_tflops_16bit", 1e12, chip.peakFlops16) ||
      !f.number("peak_tflops_32bit", 1e12, chip.peakFlops32) ||
      !f.number("memory_bandwidth_gb_s", 1e9, chip.memoryBandwidth) ||
      !f.bytes("memory_gb", 1e9, chip.memoryBytes) ||
      !f.bytes("reserved_gb", 1e9, chip.reservedBytes) ||
      !f.number("kernel_overhead_us", 1e-6, chip.kernelOverhead))
    return false;
  f.allow("name");
  if (std::optional<llvm::StringRef> name = o.getString("name"))
    chip.name = name->str();
  f.allow("gemm_efficiency");
  if (const llvm::json::Value *table = o.get("gemm_efficiency")) {
    const llvm::json::Array *rows = table->getAsArray();
    if (!rows || !readGemmTable(*rows, chip, f))
      return rows ? false : f.fail("\"gemm_efficiency\" must be a list of [M, N, K, share]");
    chip.gemmSource = where;
  }
  return f.allKnown();
}

bool readLink(const llvm::json::Object &o, LinkSpec &link, const std::string &where,
              std::string &error) {
  Fields f(o, where, error);
  return f.number("bandwidth_gb_s", 1e9, link.bandwidth) &&
         f.number("latency_us", 1e-6, link.latency) && f.allKnown();
}

} // namespace

bool loadClusterFile(const std::string &path, Cluster &cluster, std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = "cannot read the cluster file '" + path + "': " + buffer.getError().message();
    return false;
  }
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse((*buffer)->getBuffer());
  if (!parsed) {
    error = "the cluster file '" + path + "' is not JSON: " + llvm::toString(parsed.takeError());
    return false;
  }
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root) {
    error = path + ": a cluster file is one JSON object";
    return false;
  }
  Cluster c;
  c.name = path;
  if (std::optional<llvm::StringRef> base = root->getString("base")) {
    if (!presetCluster(base->str(), c)) {
      error = path + ": \"base\" names no preset ('" + base->str() +
              "'; presets: " + presetNames() + ")";
      return false;
    }
    c.name = path + " (on " + base->str() + ")";
  }
  Fields f(*root, path, error);
  f.allow("base");
  f.allow("chip");
  f.allow("intra_node");
  f.allow("inter_node");
  double perNode = static_cast<double>(c.gpusPerNode);
  if (!f.number("gpus_per_node", 1, perNode))
    return false;
  c.gpusPerNode = static_cast<int64_t>(perNode);
  if (static_cast<double>(c.gpusPerNode) != perNode)
    return f.fail("\"gpus_per_node\" must be a whole number");
  const llvm::json::Object *chip = root->getObject("chip");
  const llvm::json::Object *intra = root->getObject("intra_node");
  const llvm::json::Object *inter = root->getObject("inter_node");
  if ((root->get("chip") && !chip) || (root->get("intra_node") && !intra) ||
      (root->get("inter_node") && !inter))
    return f.fail("\"chip\", \"intra_node\" and \"inter_node\" are objects");
  if ((chip && !readChip(*chip, c.chip, path, error)) ||
      (intra && !readLink(*intra, c.intraNode, path + " \"intra_node\"", error)) ||
      (inter && !readLink(*inter, c.interNode, path + " \"inter_node\"", error)) || !f.allKnown())
    return false;
  if (c.chip.name.empty())
    c.chip.name = path;
  const char *missing = !c.chip.peakFlops16       ? "chip.peak_tflops_16bit"
                        : !c.chip.peakFlops32     ? "chip.peak_tflops_32bit"
                        : !c.chip.memoryBandwidth ? "chip.memory_bandwidth_gb_s"
                        : !c.chip.memoryBytes     ? "chip.memory_gb"
                        : !c.gpusPerNode          ? "gpus_per_node"
                        : !c.intraNode.bandwidth  ? "intra_node.bandwidth_gb_s"
                        : !c.interNode.bandwidth  ? "inter_node.bandwidth_gb_s"
                                                  : nullptr;
  if (missing) {
    error = path + ": \"" + missing + "\" is missing (give it, or a \"base\" preset)";
    return false;
  }
  if (c.chip.reservedBytes >= c.chip.memoryBytes) {
    error = path + ": \"reserved_gb\" leaves no memory for the plan";
    return false;
  }
  cluster = c;
  return true;
}

bool makeCluster(const std::string &gpu, int64_t gpus, int64_t gpusPerNode, Cluster &cluster,
                 std::string &error) {
  Cluster c;
  if (!presetCluster(gpu, c)) {
    if (gpu.find('/') == std::string::npos && gpu.find(".json") == std::string::npos) {
      error = "--gpu: '" + gpu + "' is neither a preset (" + presetNames() + ") nor a cluster file";
      return false;
    }
    if (!loadClusterFile(gpu, c, error))
      return false;
  }
  if (gpusPerNode > 0)
    c.gpusPerNode = gpusPerNode;
  if (gpus < 1) {
    error = "--gpus must be at least 1";
    return false;
  }
  if (gpus < c.gpusPerNode)
    c.gpusPerNode = gpus;
  if (gpus % c.gpusPerNode != 0) {
    error = "--gpus " + std::to_string(gpus) + " is not a whole number of nodes of " +
            std::to_string(c.gpusPerNode) + " GPUs (--gpus-per-node)";
    return false;
  }
  c.gpus = gpus;
  cluster = c;
  return true;
}

} // namespace mt
