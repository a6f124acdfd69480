//===- LinkTraffic.cpp - a rank's communication by the links it crosses ---===//
#include "mt/Plan/LinkTraffic.h"

#include <cstdio>

namespace mt {

void LinkTraffic::add(const std::string &kind, const std::vector<int64_t> &group, double bytes) {
  if (bytes <= 0 || group.empty())
    return;
  bool inside = true;
  for (int64_t r : group)
    inside = inside && r / gpusPerNode_ == group.front() / gpusPerNode_;
  (inside ? inside_ : across_)[kind] += bytes;
}

std::string LinkTraffic::describe() const {
  auto part = [](const char *where, const std::map<std::string, double> &byKind) {
    double total = 0;
    std::string kinds;
    for (auto &[kind, bytes] : byKind) {
      total += bytes;
      char text[32];
      std::snprintf(text, sizeof text, " %.3f MB", bytes / 1e6);
      kinds += (kinds.empty() ? "" : ", ") + kind + text;
    }
    char head[64];
    std::snprintf(head, sizeof head, "%s %.3f MB", where, total / 1e6);
    return std::string(head) + (kinds.empty() ? "" : " (" + kinds + ")");
  };
  return part("inside a node", inside_) + ", " + part("across nodes", across_);
}

std::vector<int64_t> meshGroup(int64_t rank, int64_t pp, int64_t dp, int64_t tp, int64_t mask) {
  int64_t coords[3] = {rank / (dp * tp), rank / tp % dp, rank % tp};
  int64_t sizes[3] = {pp, dp, tp};
  std::vector<int64_t> group = {0};
  // Row-major over [pp, dp, tp]: each axis multiplies the ranks so far.
  for (int axis = 0; axis < 3; ++axis) {
    std::vector<int64_t> next;
    bool varies = mask & (int64_t{1} << axis);
    for (int64_t g : group)
      for (int64_t c = varies ? 0 : coords[axis]; c < (varies ? sizes[axis] : coords[axis] + 1);
           ++c)
        next.push_back(g * sizes[axis] + c);
    group = std::move(next);
  }
  return group;
}

} // namespace mt
