//===- LossCurveTest.cpp - mt-run's loss.svg -------------------------------===//
#include "mt/Runtime/Training/LossCurve.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using mt::LossCurve;

namespace {

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

void expectTicks(const std::vector<double> &ticks, const std::vector<double> &expected) {
  ASSERT_EQ(ticks.size(), expected.size());
  for (size_t i = 0; i < ticks.size(); ++i)
    EXPECT_NEAR(ticks[i], expected[i], 1e-12) << "tick " << i;
}

LossCurve falling() {
  LossCurve c;
  c.title = "gpt 2L d64 \xe2\x80\x94 tp2 pp1 dp1, f32";
  for (int64_t it = 1; it <= 200; ++it)
    c.train.push_back({it, 3.45 + 3.55 * std::exp(-0.02 * static_cast<double>(it)) +
                               0.1 * std::sin(static_cast<double>(it))});
  for (int64_t it = 50; it <= 200; it += 50)
    c.valid.push_back({it, 3.5 + 3.5 * std::exp(-0.02 * static_cast<double>(it))});
  return c;
}

} // namespace

TEST(LossCurve, NiceTicksAreRoundAndCoverTheRange) {
  expectTicks(mt::niceTicks(3.45, 7.02, 5), {3, 4, 5, 6, 7, 8});
  expectTicks(mt::niceTicks(3.45, 7.02, 8), {3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5});
  expectTicks(mt::niceTicks(0, 1000, 5), {0, 200, 400, 600, 800, 1000});
  expectTicks(mt::niceTicks(1, 200, 6), {0, 50, 100, 150, 200});
  expectTicks(mt::niceTicks(0.6, 1.0, 4), {0.6, 0.7, 0.8, 0.9, 1.0});
  expectTicks(mt::niceTicks(-0.3, 0.25, 5), {-0.4, -0.2, 0, 0.2, 0.4});
  expectTicks(mt::niceTicks(0.6, 0.8, 4), {0.6, 0.65, 0.7, 0.75, 0.8});
  std::vector<double> t = mt::niceTicks(7.02, 3.45, 5); // reversed
  ASSERT_GE(t.size(), 2u);
  EXPECT_LE(t.front(), 3.45);
  EXPECT_GE(t.back(), 7.02);
}

TEST(LossCurve, NiceTicksOfOneValueOrNone) {
  std::vector<double> t = mt::niceTicks(2.5, 2.5, 8);
  ASSERT_GE(t.size(), 2u);
  EXPECT_LT(t.front(), 2.5);
  EXPECT_GT(t.back(), 2.5);
  expectTicks(mt::niceTicks(0, 0, 2), {-1, 0, 1});
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(mt::niceTicks(std::nan(""), 1, 5).empty());
  EXPECT_TRUE(mt::niceTicks(0, inf, 5).empty());
  EXPECT_TRUE(mt::niceTicks(-1e308, 1e308, 5).empty()); // the range overflows
}

TEST(LossCurve, TickLabelsAreShortAndDistinct) {
  EXPECT_EQ(mt::tickLabels({3, 3.5, 4}), (std::vector<std::string>{"3.0", "3.5", "4.0"}));
  EXPECT_EQ(mt::tickLabels({0, 200, 400}), (std::vector<std::string>{"0", "200", "400"}));
  EXPECT_EQ(mt::tickLabels(mt::niceTicks(0.6, 0.8, 4)),
            (std::vector<std::string>{"0.60", "0.65", "0.70", "0.75", "0.80"}));
  EXPECT_EQ(mt::tickLabels(mt::niceTicks(-0.3, 0.25, 5))[2], "0.0"); // not "-0.0"
  std::vector<std::string> big = mt::tickLabels({1e12, 2e12});
  EXPECT_NE(big[0], big[1]);
}

TEST(LossCurve, SmoothingIsTensorBoards) {
  std::vector<double> s = mt::smoothTensorBoard({4, 4, 4, 4}, 0.6);
  for (double v : s)
    EXPECT_NEAR(v, 4, 1e-12);
  // Debiased: the first value is the input, not (1 - w) times it.
  s = mt::smoothTensorBoard({10, 0}, 0.6);
  EXPECT_DOUBLE_EQ(s[0], 10);
  // (0.6 * 0.4 * 10 + 0.4 * 0) / (1 - 0.36)
  EXPECT_NEAR(s[1], 2.4 / 0.64, 1e-12);
  // Weight 0 leaves the values; non-finite values pass through unsmoothed.
  EXPECT_EQ(mt::smoothTensorBoard({1, 2, 3}, 0), (std::vector<double>{1, 2, 3}));
  s = mt::smoothTensorBoard({1, std::nan(""), 1}, 0.9);
  EXPECT_TRUE(std::isnan(s[1]));
  EXPECT_NEAR(s[2], 1, 1e-12);
  // Weight 1 (or above) would divide by zero: it is held below 1.
  for (double v : mt::smoothTensorBoard({5, 5, 5}, 1.5))
    EXPECT_TRUE(std::isfinite(v));
  EXPECT_TRUE(mt::smoothTensorBoard({}, 0.6).empty());
}

TEST(LossCurve, SvgHasTitleTicksGridAndBothLines) {
  std::string svg = mt::lossCurveSvg(falling());
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find(">gpt 2L d64 \xe2\x80\x94 tp2 pp1 dp1, f32</text>"), std::string::npos);
  EXPECT_EQ(count(svg, "<polyline"), 2u); // raw and smoothed
  EXPECT_NE(svg.find("stroke-opacity=\"0.35\""), std::string::npos);
  EXPECT_NE(svg.find("#e0e0e0"), std::string::npos);
  for (const char *label : {">0</text>", ">50</text>", ">200</text>", ">3.5</text>", ">7.0</text>"})
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  EXPECT_EQ(count(svg, "<circle"), 4u + 1u); // validation points and the legend's
  EXPECT_NE(svg.find("training loss"), std::string::npos);
  EXPECT_NE(svg.find("validation loss"), std::string::npos);
  // mt-run's lit test looks for these in this order.
  EXPECT_LT(svg.find("<polyline"), svg.find("training loss"));
}

TEST(LossCurve, TitleIsEscaped) {
  LossCurve c;
  c.title = "a<b> & c";
  c.train = {{1, 2.0}, {2, 1.0}};
  std::string svg = mt::lossCurveSvg(c);
  EXPECT_NE(svg.find("a&lt;b&gt; &amp; c"), std::string::npos);
  EXPECT_EQ(svg.find("a<b>"), std::string::npos);
}

TEST(LossCurve, OddInputsMakeAValidChart) {
  double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  auto sane = [](const std::string &svg) {
    EXPECT_EQ(svg.rfind("<svg", 0), 0u);
    EXPECT_NE(svg.find("</svg>"), std::string::npos);
    EXPECT_EQ(svg.find("nan"), std::string::npos);
    EXPECT_EQ(svg.find("inf"), std::string::npos);
  };
  std::string empty = mt::lossCurveSvg(LossCurve{});
  sane(empty);
  EXPECT_EQ(count(empty, "<polyline"), 0u);
  LossCurve one;
  one.train = {{1, 3.0}};
  std::string dot = mt::lossCurveSvg(one);
  sane(dot);
  EXPECT_EQ(count(dot, "<polyline"), 0u); // a dot instead
  EXPECT_EQ(count(dot, "<circle"), 2u);   // and the legend's
  LossCurve flat;
  for (int64_t it = 1; it <= 10; ++it)
    flat.train.push_back({it, 2.0});
  sane(mt::lossCurveSvg(flat));
  LossCurve broken;
  broken.train = {{1, nan}, {2, 5.0}, {3, inf}, {4, 4.0}, {5, -inf}};
  broken.valid = {{3, nan}};
  broken.smoothing = nan;
  std::string svg = mt::lossCurveSvg(broken);
  sane(svg);
  EXPECT_EQ(count(svg, "<polyline"), 1u); // no smoothing weight: the raw line alone
  LossCurve onlyNan;
  onlyNan.train = {{1, nan}};
  onlyNan.valid = {{1, inf}};
  sane(mt::lossCurveSvg(onlyNan));
}
