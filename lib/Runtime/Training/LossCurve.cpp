//===- LossCurve.cpp - the loss curve of a training run as SVG -------------===//
#include "mt/Runtime/Training/LossCurve.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace mt {

namespace {

constexpr double kWidth = 720, kHeight = 440;
constexpr const char *kTrainColor = "#1f77b4", *kValidColor = "#d62728";

using Series = std::vector<std::pair<int64_t, double>>;

/// A coordinate: a tenth of a pixel is finer than any screen shows, and a
/// long run's polyline stays small.
std::string px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string escapeXml(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

/// A width to divide by: 1 where the range is empty or not finite, so no
/// input can make a coordinate infinite.
double extent(double lo, double hi) {
  double d = hi - lo;
  return d > 0 && std::isfinite(d) ? d : 1;
}

/// The plotting area's pixel edges and the values its axes run over.
struct Plot {
  double left, top, right, bottom;
  double x0, x1, y0, y1;
  double x(double it) const { return left + (right - left) * (it - x0) / extent(x0, x1); }
  double y(double v) const { return bottom - (bottom - top) * (v - y0) / extent(y0, y1); }
};

Series finitePoints(const Series &series) {
  Series out;
  for (const auto &point : series)
    if (std::isfinite(point.second))
      out.push_back(point);
  return out;
}

/// Whole iterations: a range of fewer than six iterations asks for fewer
/// ticks, so the step never drops below one.
std::vector<double> iterationTicks(double lo, double hi) {
  lo = std::floor(lo);
  hi = std::ceil(hi);
  if (hi - lo < 2) { // one iteration: centre it
    lo -= 1;
    hi += 1;
  }
  return niceTicks(lo, hi, static_cast<int>(std::min(6.0, hi - lo)));
}

/// Ticks for [lo, hi], or the range itself where no round ticks exist.
std::vector<double> axisTicks(double lo, double hi, bool iterations) {
  std::vector<double> ticks = iterations ? iterationTicks(lo, hi) : niceTicks(lo, hi, 8);
  if (ticks.size() < 2)
    ticks = {lo, hi};
  return ticks;
}

void drawGrid(std::ostringstream &out, const Plot &p, const std::vector<double> &xTicks,
              const std::vector<double> &yTicks) {
  std::vector<std::string> xLabels = tickLabels(xTicks), yLabels = tickLabels(yTicks);
  out << "<g stroke=\"#e0e0e0\" stroke-width=\"1\">\n";
  for (double t : xTicks)
    out << "<line x1=\"" << px(p.x(t)) << "\" y1=\"" << px(p.top) << "\" x2=\"" << px(p.x(t))
        << "\" y2=\"" << px(p.bottom) << "\"/>\n";
  for (double t : yTicks)
    out << "<line x1=\"" << px(p.left) << "\" y1=\"" << px(p.y(t)) << "\" x2=\"" << px(p.right)
        << "\" y2=\"" << px(p.y(t)) << "\"/>\n";
  out << "</g>\n<g font-size=\"11\" fill=\"#444\">\n";
  for (size_t i = 0; i < xTicks.size(); ++i)
    out << "<text x=\"" << px(p.x(xTicks[i])) << "\" y=\"" << px(p.bottom + 17)
        << "\" text-anchor=\"middle\">" << xLabels[i] << "</text>\n";
  for (size_t i = 0; i < yTicks.size(); ++i)
    out << "<text x=\"" << px(p.left - 7) << "\" y=\"" << px(p.y(yTicks[i]) + 4)
        << "\" text-anchor=\"end\">" << yLabels[i] << "</text>\n";
  out << "</g>\n";
  // The axes' names: iterations along the bottom, the loss up the left side.
  out << "<text x=\"" << px((p.left + p.right) / 2) << "\" y=\"" << px(kHeight - 10)
      << "\" text-anchor=\"middle\" fill=\"#222\">iteration</text>\n"
      << "<text transform=\"translate(16 " << px((p.top + p.bottom) / 2)
      << ") rotate(-90)\" text-anchor=\"middle\" fill=\"#222\">loss</text>\n";
}

void drawLine(std::ostringstream &out, const Plot &p, const Series &points,
              const std::string &style) {
  out << "<polyline fill=\"none\" " << style << " points=\"";
  for (const auto &[it, loss] : points)
    out << px(p.x(static_cast<double>(it))) << "," << px(p.y(loss)) << " ";
  out << "\"/>\n";
}

struct LegendEntry {
  bool dot;
  std::string style, label;
};

/// The raw training loss faint under its smoothed line (TensorBoard's look),
/// or the raw line alone without smoothing, or a dot for a single point.
void drawTraining(std::ostringstream &out, const Plot &p, const Series &train, double smoothing,
                  std::vector<LegendEntry> &legend) {
  std::string solid = std::string("stroke=\"") + kTrainColor + "\" stroke-width=\"2\"";
  if (train.size() == 1) { // a polyline of one point draws nothing
    std::string dot = std::string("fill=\"") + kTrainColor + "\"";
    out << "<circle cx=\"" << px(p.x(static_cast<double>(train[0].first))) << "\" cy=\""
        << px(p.y(train[0].second)) << "\" r=\"3\" " << dot << "/>\n";
    legend.push_back({true, dot, "training loss"});
    return;
  }
  if (train.empty())
    return;
  if (!(smoothing > 0)) {
    drawLine(out, p, train, solid);
    legend.push_back({false, solid, "training loss"});
    return;
  }
  std::vector<double> losses;
  for (const auto &point : train)
    losses.push_back(point.second);
  std::vector<double> smooth = smoothTensorBoard(losses, smoothing);
  Series smoothed = train;
  for (size_t i = 0; i < smoothed.size(); ++i)
    smoothed[i].second = smooth[i];
  std::string faint =
      std::string("stroke=\"") + kTrainColor + "\" stroke-width=\"1\" stroke-opacity=\"0.35\"";
  drawLine(out, p, train, faint);
  drawLine(out, p, smoothed, solid);
  char weight[32];
  std::snprintf(weight, sizeof weight, "%g", std::min(smoothing, 0.999));
  legend.push_back({false, faint, "training loss, raw"});
  legend.push_back({false, solid, std::string("training loss, smoothed ") + weight});
}

/// The corner of the plot (top right first) whose legend box covers the
/// fewest points, so the legend hides as little of the curve as it can.
std::pair<double, double> legendCorner(const Plot &p, double w, double h,
                                       const std::vector<const Series *> &series) {
  const double pad = 8;
  std::pair<double, double> corners[] = {{p.right - pad - w, p.top + pad},
                                         {p.right - pad - w, p.bottom - pad - h},
                                         {p.left + pad, p.top + pad},
                                         {p.left + pad, p.bottom - pad - h}};
  std::pair<double, double> best = corners[0];
  size_t fewest = SIZE_MAX;
  for (const auto &[cx, cy] : corners) {
    size_t covered = 0;
    for (const Series *s : series)
      for (const auto &[it, loss] : *s) {
        double x = p.x(static_cast<double>(it)), y = p.y(loss);
        covered += x >= cx && x <= cx + w && y >= cy && y <= cy + h;
      }
    if (covered < fewest) {
      fewest = covered;
      best = {cx, cy};
    }
  }
  return best;
}

void drawLegend(std::ostringstream &out, const Plot &p, const std::vector<LegendEntry> &entries,
                const std::vector<const Series *> &series) {
  if (entries.empty())
    return;
  size_t longest = 0;
  for (const LegendEntry &e : entries)
    longest = std::max(longest, e.label.size());
  const double row = 18, w = 40 + 6.5 * static_cast<double>(longest),
               h = 8 + row * static_cast<double>(entries.size());
  auto [x, y] = legendCorner(p, w, h, series);
  out << "<g font-size=\"12\" fill=\"#222\">\n<rect x=\"" << px(x) << "\" y=\"" << px(y)
      << "\" width=\"" << px(w) << "\" height=\"" << px(h)
      << "\" fill=\"white\" fill-opacity=\"0.85\" stroke=\"#ccc\"/>\n";
  for (size_t i = 0; i < entries.size(); ++i) {
    double cy = y + 4 + row * (static_cast<double>(i) + 0.5);
    if (entries[i].dot)
      out << "<circle cx=\"" << px(x + 19) << "\" cy=\"" << px(cy) << "\" r=\"4\" "
          << entries[i].style << "/>\n";
    else
      out << "<line x1=\"" << px(x + 8) << "\" y1=\"" << px(cy) << "\" x2=\"" << px(x + 30)
          << "\" y2=\"" << px(cy) << "\" " << entries[i].style << "/>\n";
    out << "<text x=\"" << px(x + 36) << "\" y=\"" << px(cy + 4) << "\">" << entries[i].label
        << "</text>\n";
  }
  out << "</g>\n";
}

/// The title, smaller when it is long so that it fits the width (a bold
/// sans-serif glyph is about 0.62 em wide).
void drawTitle(std::ostringstream &out, const std::string &title) {
  if (title.empty())
    return;
  // Characters, not bytes: UTF-8 continuation bytes are 10xxxxxx.
  size_t chars = std::count_if(title.begin(), title.end(),
                               [](char c) { return (static_cast<unsigned char>(c) >> 6) != 2; });
  double size = std::clamp((kWidth - 20) / (0.62 * static_cast<double>(chars)), 7.0, 15.0);
  out << "<text x=\"" << px(kWidth / 2) << "\" y=\"24\" text-anchor=\"middle\" font-size=\""
      << px(size) << "\" font-weight=\"bold\" fill=\"#222\">" << escapeXml(title) << "</text>\n";
}

} // namespace

std::vector<double> niceTicks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi))
    return {};
  if (lo > hi)
    std::swap(lo, hi);
  if (!(hi > lo)) { // one value: widen around it by 5% (or 1 at zero)
    double d = lo != 0 ? std::abs(lo) * 0.05 : 1;
    lo -= d;
    hi += d;
  }
  double span = hi - lo, raw = span / std::clamp(target, 1, 100);
  if (!(span > 0) || !std::isfinite(span))
    return {};
  // The smallest of 1, 2, 5 and 10 times a power of ten at least `raw`
  // (give or take rounding: 0.2 / 4 is 0.05000000000000002).
  double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * magnitude;
  for (double m : {1.0, 2.0, 5.0})
    if (m * magnitude >= raw * (1 - 1e-9)) {
      step = m * magnitude;
      break;
    }
  // A little slack keeps 0.6 / 0.2 = 2.9999999999999996 from adding a tick.
  double first = std::floor(lo / step + 1e-9), last = std::ceil(hi / step - 1e-9);
  if (!(step > 0) || !std::isfinite(first) || !std::isfinite(last) || last - first > 1000)
    return {};
  std::vector<double> ticks;
  for (double k = first; k <= std::max(last, first + 1); ++k) {
    double t = k * step; // a multiple of the step, not a running sum's error
    if (!ticks.empty() && !(t > ticks.back()))
      return {}; // the step is below the values' precision
    ticks.push_back(t);
  }
  return ticks;
}

std::vector<std::string> tickLabels(const std::vector<double> &ticks) {
  double step = ticks.size() > 1 ? std::abs(ticks[1] - ticks[0]) : 0, largest = 0;
  for (double t : ticks)
    largest = std::max(largest, std::abs(t));
  // Decimals down to the step's first digit: 0.5 -> 1, 0.05 -> 2, 200 -> 0.
  int decimals = step > 0 ? std::max(0, static_cast<int>(std::ceil(-std::log10(step) - 1e-6))) : 0;
  bool fixed = step > 0 && largest < 1e9 && decimals <= 9;
  int digits = 6;
  if (step > 0 && largest > 0)
    digits = std::clamp(
        static_cast<int>(std::floor(std::log10(largest)) - std::floor(std::log10(step) + 1e-6)) + 1,
        1, 17);
  std::vector<std::string> labels;
  for (double t : ticks) {
    char buf[64];
    if (fixed)
      std::snprintf(buf, sizeof buf, "%.*f", decimals, t);
    else
      std::snprintf(buf, sizeof buf, "%.*g", digits, t);
    labels.push_back(buf);
  }
  return labels;
}

std::vector<double> smoothTensorBoard(const std::vector<double> &values, double weight) {
  // At 1 the average would never move and its debiasing would divide by zero.
  double w = std::isfinite(weight) ? std::clamp(weight, 0.0, 0.999) : 0.0;
  std::vector<double> out;
  out.reserve(values.size());
  double average = 0, bias = 1; // bias: w^n after n finite values
  for (double v : values) {
    if (!std::isfinite(v)) {
      out.push_back(v);
      continue;
    }
    average = average * w + (1 - w) * v;
    bias *= w;
    out.push_back(average / (1 - bias));
  }
  return out;
}

std::string lossCurveSvg(const LossCurve &curve) {
  Series train = finitePoints(curve.train), valid = finitePoints(curve.valid);
  // The ranges of the data; the smoothed line stays within the raw one.
  double xLo = 0, xHi = 10, yLo = 0, yHi = 1;
  bool any = !train.empty() || !valid.empty();
  if (any) {
    xLo = yLo = HUGE_VAL;
    xHi = yHi = -HUGE_VAL;
    for (const Series *s : {&train, &valid})
      for (const auto &[it, loss] : *s) {
        xLo = std::min(xLo, static_cast<double>(it));
        xHi = std::max(xHi, static_cast<double>(it));
        yLo = std::min(yLo, loss);
        yHi = std::max(yHi, loss);
      }
  }
  std::vector<double> xTicks = axisTicks(xLo, xHi, true), yTicks = axisTicks(yLo, yHi, false);
  const double top = curve.title.empty() ? 20 : 40;
  Plot p{64, top, kWidth - 32, kHeight - 48, 0, 0, 0, 0};
  p.x0 = xTicks.front(), p.x1 = xTicks.back(), p.y0 = yTicks.front(), p.y1 = yTicks.back();

  std::ostringstream out;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" viewBox=\"0 0 " << kWidth << " " << kHeight
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  drawTitle(out, curve.title);
  drawGrid(out, p, xTicks, yTicks);

  std::vector<LegendEntry> legend;
  drawTraining(out, p, train, curve.smoothing, legend);
  std::string dot = std::string("fill=\"") + kValidColor + "\" stroke=\"white\"";
  for (const auto &[it, loss] : valid)
    out << "<circle cx=\"" << px(p.x(static_cast<double>(it))) << "\" cy=\"" << px(p.y(loss))
        << "\" r=\"4\" " << dot << "/>\n";
  if (!valid.empty())
    legend.push_back({true, dot, "validation loss"});
  if (!any)
    out << "<text x=\"" << px((p.left + p.right) / 2) << "\" y=\"" << px((p.top + p.bottom) / 2)
        << "\" text-anchor=\"middle\" fill=\"#888\">no finite loss to show</text>\n";

  // The axes over the data, the legend over everything.
  out << "<rect x=\"" << px(p.left) << "\" y=\"" << px(p.top) << "\" width=\""
      << px(p.right - p.left) << "\" height=\"" << px(p.bottom - p.top)
      << "\" fill=\"none\" stroke=\"#444\"/>\n";
  drawLegend(out, p, legend, {&train, &valid});
  out << "</svg>\n";
  return out.str();
}

} // namespace mt
