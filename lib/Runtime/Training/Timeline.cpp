//===- Timeline.cpp - pictures of an executed pipeline schedule ------------===//
#include "mt/Runtime/Training/Timeline.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace mt {

namespace {

std::string label(const PipelineOp &op, bool chunks) {
  std::string s = (op.kind == PipelineOp::Forward ? "F" : "B") + std::to_string(op.microBatch);
  if (chunks)
    s += "." + std::to_string(op.chunk);
  return s;
}

bool hasChunks(const std::vector<TimelineEntry> &timeline) {
  return std::any_of(timeline.begin(), timeline.end(),
                     [](const TimelineEntry &e) { return e.op.chunk > 0; });
}

} // namespace

std::string timelineText(const std::vector<TimelineEntry> &timeline, int64_t stages) {
  bool chunks = hasChunks(timeline);
  double t0 = timeline.empty() ? 0 : timeline.front().start;
  for (const TimelineEntry &e : timeline)
    t0 = std::min(t0, e.start);
  std::ostringstream out;
  out << "# pass, start and end in seconds from the step's first pass\n";
  for (int64_t s = 0; s < stages; ++s) {
    std::vector<TimelineEntry> row;
    for (const TimelineEntry &e : timeline)
      if (e.stage == s)
        row.push_back(e);
    std::stable_sort(row.begin(), row.end(), [](const TimelineEntry &a, const TimelineEntry &b) {
      return a.start < b.start;
    });
    out << "stage " << s << ":";
    for (const TimelineEntry &e : row)
      out << " " << label(e.op, chunks);
    out << "\n";
    for (const TimelineEntry &e : row) {
      char line[128];
      std::snprintf(line, sizeof line, "  %-6s %12.6f %12.6f\n", label(e.op, chunks).c_str(),
                    e.start - t0, e.end - t0);
      out << line;
    }
  }
  return out.str();
}

std::string timelineSvg(const std::vector<TimelineEntry> &timeline, int64_t stages,
                        const std::string &title) {
  bool chunks = hasChunks(timeline);
  double t0 = timeline.empty() ? 0 : timeline.front().start, t1 = t0;
  for (const TimelineEntry &e : timeline) {
    t0 = std::min(t0, e.start);
    t1 = std::max(t1, e.end);
  }
  const double left = 70, top = 40, rowHeight = 32, width = 900;
  double scale = t1 > t0 ? width / (t1 - t0) : 1;
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << left + width + 20 << "\" height=\""
      << top + rowHeight * static_cast<double>(stages) + 40
      << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  svg << "<text x=\"" << left << "\" y=\"20\" font-size=\"14\">" << title << "</text>\n";
  for (int64_t s = 0; s < stages; ++s)
    svg << "<text x=\"5\" y=\"" << top + rowHeight * static_cast<double>(s) + 20 << "\">stage " << s
        << "</text>\n";
  for (const TimelineEntry &e : timeline) {
    double x = left + (e.start - t0) * scale, w = std::max(1.0, (e.end - e.start) * scale);
    double y = top + rowHeight * static_cast<double>(e.stage);
    bool fwd = e.op.kind == PipelineOp::Forward;
    // Later chunks are drawn darker, as in the paper's interleaved figure.
    const char *fill =
        fwd ? (e.op.chunk % 2 ? "#2b5fa8" : "#7fa7e0") : (e.op.chunk % 2 ? "#2f8a4a" : "#8fd19e");
    svg << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << w << "\" height=\""
        << rowHeight - 6 << "\" fill=\"" << fill << "\" stroke=\"#333\" stroke-width=\"0.5\"/>\n";
    svg << "<text x=\"" << x + w / 2 << "\" y=\"" << y + 17 << "\" text-anchor=\"middle\">"
        << label(e.op, chunks) << "</text>\n";
  }
  svg << "<text x=\"" << left << "\" y=\"" << top + rowHeight * static_cast<double>(stages) + 25
      << "\">time (s): " << 0 << " .. " << t1 - t0
      << "; F = forward, B = backward, number = micro-batch" << (chunks ? ".chunk" : "")
      << "</text>\n";
  svg << "</svg>\n";
  return svg.str();
}

} // namespace mt
