//===- T5DatasetTest.cpp - T5 span-corruption samples --------------------===//
#include "mt/Data/T5Dataset.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace mt;
using Ids = std::vector<int32_t>;

namespace {

constexpr int32_t kBos = 1, kEos = 2, kFirstSentinel = 1000;

T5SpecialIds specialIds() {
  T5SpecialIds ids;
  ids.pad = 0;
  ids.eos = kEos;
  ids.bos = kBos;
  ids.decoderStart = kBos;
  ids.firstSentinel = kFirstSentinel;
  ids.numSentinels = 100;
  return ids;
}

/// A document of <s>, ids 10 .. 10 + n - 1, </s>.
Ids document(int32_t n) {
  Ids d{kBos};
  for (int32_t i = 0; i < n; ++i)
    d.push_back(10 + i);
  d.push_back(kEos);
  return d;
}

TEST(T5Dataset, NoiseShapeFollowsDensityAndSpanLength) {
  T5SampleOptions options;
  int64_t noise, spans;
  T5Dataset::noiseShape(100, options, noise, spans);
  EXPECT_EQ(noise, 15);
  EXPECT_EQ(spans, 5);
  T5Dataset::noiseShape(2, options, noise, spans); // at least one noise, one clean token
  EXPECT_EQ(noise, 1);
  EXPECT_EQ(spans, 1);
}

TEST(T5Dataset, SamplesReassembleTheirChunk) {
  InMemoryDocuments docs({document(300), document(40), document(1)});
  T5SampleOptions options;
  options.encoderLength = 64;
  options.decoderLength = 16;
  T5Dataset dataset;
  std::string error;
  ASSERT_TRUE(dataset.build(docs, 0, 3, specialIds(), options, error)) << error;
  ASSERT_GE(dataset.chunkLength(), 2);
  // 300 + 40 tokens in chunks of R; the one-token document gives none.
  int64_t r = dataset.chunkLength();
  EXPECT_EQ(dataset.numSamples(),
            (300 + r - 1) / r + (40 + r - 1) / r - (300 % r == 1) - (40 % r == 1));
  int64_t covered = 0;
  for (int64_t i = 0; i < dataset.numSamples(); ++i) {
    T5Sample s;
    dataset.sample(i, s);
    ASSERT_EQ(s.encoderTokens.size(), 64u);
    ASSERT_EQ(s.labels.size(), 16u);
    int64_t enc = std::accumulate(s.paddingMask.begin(), s.paddingMask.end(), int64_t{0});
    int64_t dec = static_cast<int64_t>(std::accumulate(s.lossMask.begin(), s.lossMask.end(), 0.0f));
    EXPECT_EQ(s.encoderTokens[static_cast<size_t>(enc - 1)], kEos);
    EXPECT_EQ(s.labels[static_cast<size_t>(dec - 1)], kEos);
    EXPECT_EQ(s.decoderTokens[0], kBos);
    // Replace each sentinel of the encoder by its span from the labels: the
    // chunk's tokens, consecutive ids of one document.
    Ids text;
    size_t l = 0;
    for (int64_t e = 0; e + 1 < enc; ++e) {
      int32_t t = s.encoderTokens[static_cast<size_t>(e)];
      if (t < kFirstSentinel) {
        text.push_back(t);
        continue;
      }
      ASSERT_EQ(s.labels[l], t);
      for (++l; s.labels[l] < kFirstSentinel && s.labels[l] != kEos; ++l)
        text.push_back(s.labels[l]);
    }
    ASSERT_FALSE(text.empty());
    for (size_t k = 1; k < text.size(); ++k)
      ASSERT_EQ(text[k], text[k - 1] + 1);
    covered += static_cast<int64_t>(text.size());
    for (size_t k = 1; k < static_cast<size_t>(dec); ++k)
      EXPECT_EQ(s.decoderTokens[k], s.labels[k - 1]); // shifted right
  }
  // Every token of the documents, once (but a dropped one-token remainder).
  EXPECT_EQ(covered, 300 - (300 % r == 1) + 40 - (40 % r == 1));
}

TEST(T5Dataset, SameSeedSameSamplesAndTooShortLengthsRefused) {
  InMemoryDocuments docs({document(200)});
  T5SampleOptions options;
  options.encoderLength = 32;
  options.decoderLength = 8;
  T5Dataset a, b;
  std::string error;
  ASSERT_TRUE(a.build(docs, 0, 1, specialIds(), options, error)) << error;
  ASSERT_TRUE(b.build(docs, 0, 1, specialIds(), options, error)) << error;
  for (int64_t i = 0; i < a.numSamples(); ++i) {
    T5Sample x, y;
    a.sample(i, x);
    b.sample(i, y);
    EXPECT_EQ(x.encoderTokens, y.encoderTokens);
    EXPECT_EQ(x.labels, y.labels);
  }
  options.decoderLength = 2;
  EXPECT_FALSE(a.build(docs, 0, 1, specialIds(), options, error));
  EXPECT_NE(error.find("at least 3"), std::string::npos) << error;
}

} // namespace
