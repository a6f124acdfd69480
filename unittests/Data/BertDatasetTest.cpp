//===- BertDatasetTest.cpp - BERT samples from sentence-split documents ----===//
#include "mt/Data/BertDataset.h"

#include "TempDir.h"

#include <gtest/gtest.h>

using namespace mt;
using Ids = std::vector<int32_t>;

namespace {

constexpr int32_t kPad = 0, kCls = 2, kSep = 3, kMask = 4, kVocab = 100;

/// Writes documents of sentences (each a run of ids) and opens them.
void writeDataset(const mt::testing::TempDir &dir, const std::vector<std::vector<Ids>> &docs,
                  IndexedDataset &out) {
  IndexedDatasetWriter writer;
  std::string error;
  ASSERT_TRUE(writer.open(dir.file("d"), TokenDType::UInt16, error)) << error;
  for (const auto &doc : docs) {
    for (const Ids &sentence : doc)
      ASSERT_TRUE(writer.addSequence(sentence.data(), sentence.size(), error)) << error;
    writer.endDocument();
  }
  ASSERT_TRUE(writer.finish(error)) << error;
  ASSERT_TRUE(out.open(dir.file("d"), error)) << error;
}

BertSpecialIds specialIds() {
  BertSpecialIds ids;
  ids.pad = kPad;
  ids.cls = kCls;
  ids.sep = kSep;
  ids.mask = kMask;
  ids.vocabSize = kVocab;
  ids.isContinuation.assign(kVocab, false);
  for (int32_t id = 90; id < kVocab; ++id) // "##" pieces
    ids.isContinuation[static_cast<size_t>(id)] = true;
  return ids;
}

/// Sentence k of document d: 4 + (k % 3) ids from 10 + 10 * k.
std::vector<std::vector<Ids>> corpus(int documents, int sentences) {
  std::vector<std::vector<Ids>> docs(static_cast<size_t>(documents));
  for (int d = 0; d < documents; ++d)
    for (int k = 0; k < sentences; ++k) {
      Ids s;
      for (int i = 0; i < 4 + k % 3; ++i)
        s.push_back(10 + (10 * k + i) % 80);
      docs[static_cast<size_t>(d)].push_back(s);
    }
  return docs;
}

} // namespace

TEST(BertDataset, SamplesHaveBertsLayout) {
  mt::testing::TempDir dir;
  IndexedDataset data;
  writeDataset(dir, corpus(6, 7), data);
  BertSampleOptions options;
  options.seqLength = 24;
  BertDataset bert;
  std::string error;
  ASSERT_TRUE(bert.build(data, 0, 6, specialIds(), options, error)) << error;
  ASSERT_GT(bert.numSamples(), 6);
  int swapped = 0;
  for (int64_t i = 0; i < bert.numSamples(); ++i) {
    BertSample s;
    bert.sample(i, s);
    ASSERT_EQ(s.tokens.size(), 24u);
    EXPECT_EQ(s.tokens[0], kCls);
    int64_t real = 0;
    while (real < 24 && s.paddingMask[static_cast<size_t>(real)])
      ++real;
    EXPECT_LE(real, 24);
    EXPECT_EQ(s.tokens[static_cast<size_t>(real - 1)], kSep);
    for (int64_t p = real; p < 24; ++p) {
      EXPECT_EQ(s.tokens[static_cast<size_t>(p)], kPad);
      EXPECT_EQ(s.lossMask[static_cast<size_t>(p)], 0.0f);
    }
    // Segment B (type 1) follows the first [SEP] and is never empty.
    int64_t firstB = 0;
    while (s.tokenTypes[static_cast<size_t>(firstB)] == 0)
      ++firstB;
    EXPECT_EQ(s.tokens[static_cast<size_t>(firstB - 1)], kSep); // never masked
    EXPECT_LT(firstB, real - 1);
    int masked = 0;
    for (int64_t p = 0; p < real; ++p)
      if (s.lossMask[static_cast<size_t>(p)] == 1.0f) {
        ++masked;
        EXPECT_NE(s.labels[static_cast<size_t>(p)], kCls);
        EXPECT_NE(s.labels[static_cast<size_t>(p)], kSep);
      } else {
        EXPECT_EQ(s.labels[static_cast<size_t>(p)], 0);
      }
    EXPECT_GE(masked, 1);
    EXPECT_LE(masked, static_cast<int>(0.15 * 21) + 1);
    swapped += s.sentenceOrder;
  }
  EXPECT_GT(swapped, 0);
  EXPECT_LT(swapped, bert.numSamples());
}

TEST(BertDataset, SamplesAreReproducibleAndIndependent) {
  mt::testing::TempDir dir;
  IndexedDataset data;
  writeDataset(dir, corpus(5, 6), data);
  BertSampleOptions options;
  options.seqLength = 20;
  BertDataset a, b;
  std::string error;
  ASSERT_TRUE(a.build(data, 0, 5, specialIds(), options, error)) << error;
  ASSERT_TRUE(b.build(data, 0, 5, specialIds(), options, error)) << error;
  BertSample x, y;
  b.sample(3, y); // drawn first: sample 3 does not depend on the others
  a.sample(0, x);
  a.sample(3, x);
  EXPECT_EQ(x.tokens, y.tokens);
  EXPECT_EQ(x.labels, y.labels);
  EXPECT_EQ(x.sentenceOrder, y.sentenceOrder);
}

TEST(BertDataset, WholeWordsAreMaskedTogether) {
  mt::testing::TempDir dir;
  IndexedDataset data;
  // Every word is a start (20..29) followed by two "##" pieces (90..99).
  std::vector<std::vector<Ids>> docs(4);
  for (auto &doc : docs)
    for (int k = 0; k < 6; ++k)
      doc.push_back({20 + k, 90 + k, 91 + k, 21 + k, 92, 93});
  writeDataset(dir, docs, data);
  BertSampleOptions options;
  options.seqLength = 40;
  BertDataset bert;
  std::string error;
  ASSERT_TRUE(bert.build(data, 0, 4, specialIds(), options, error)) << error;
  for (int64_t i = 0; i < bert.numSamples(); ++i) {
    BertSample s;
    bert.sample(i, s);
    for (size_t p = 1; p + 1 < s.tokens.size(); ++p) {
      int32_t original = s.lossMask[p] == 1.0f ? s.labels[p] : s.tokens[p];
      bool piece = original >= 90;
      // (A segment cut at its front may start with a piece.)
      if (s.tokens[p - 1] == kCls || (s.tokens[p - 1] == kSep && s.lossMask[p - 1] == 0.0f))
        continue;
      // A masked "##" piece's word start is masked too, and the reverse.
      if (piece && s.paddingMask[p])
        EXPECT_EQ(s.lossMask[p], s.lossMask[p - 1]) << "sample " << i << " position " << p;
    }
  }
}

TEST(BertDataset, ShortDocumentsAndLongSentencesAreSkipped) {
  mt::testing::TempDir dir;
  IndexedDataset data;
  Ids longSentence(513, 11);
  writeDataset(dir, {{{10, 11, 12}}, {{10, 11}, longSentence}, {{10, 11}, {12, 13}}}, data);
  BertSampleOptions options;
  options.seqLength = 16;
  BertDataset bert;
  std::string error;
  ASSERT_TRUE(bert.build(data, 0, 3, specialIds(), options, error)) << error;
  EXPECT_EQ(bert.skippedDocuments(), 2);
  EXPECT_EQ(bert.numSamples(), 1);
}

TEST(BertDataset, Refusals) {
  mt::testing::TempDir dir;
  IndexedDataset data;
  writeDataset(dir, corpus(2, 3), data);
  BertSampleOptions options;
  options.seqLength = 4;
  BertDataset bert;
  std::string error;
  EXPECT_FALSE(bert.build(data, 0, 2, specialIds(), options, error));
  EXPECT_EQ(error,
            "a BERT sample of 4 tokens cannot hold [CLS] A [SEP] B [SEP]: use --seq-length >= 5");
  options.seqLength = 16;
  BertSpecialIds ids = specialIds();
  ids.mask = 500;
  EXPECT_FALSE(bert.build(data, 0, 2, ids, options, error));
  EXPECT_EQ(error, "special token id 500 is outside the vocabulary of 100");
}
