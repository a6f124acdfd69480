//===- GptDatasetTest.cpp - splits and GPT samples --------------------------===//
#include "mt/Data/GptDataset.h"

#include "TempDir.h"

#include <algorithm>

#include <gtest/gtest.h>

using namespace mt;
using Ids = std::vector<int32_t>;

namespace {

constexpr int32_t kEod = 50256;

std::array<int64_t, 4> bounds(const std::string &split, int64_t documents) {
  std::array<double, 3> weights;
  std::string error;
  EXPECT_TRUE(parseSplit(split, weights, error)) << error;
  return splitBounds(weights, documents);
}

using Bounds = std::array<int64_t, 4>;

// Expected bounds are Megatron's _get_split_indices run in Python.
TEST(GptSplit, MegatronBounds) {
  EXPECT_EQ(bounds("949,50,1", 1000), (Bounds{0, 949, 999, 1000}));
  EXPECT_EQ(bounds("949,50,1", 100), (Bounds{0, 95, 100, 100}));
  EXPECT_EQ(bounds("949,50,1", 10), (Bounds{0, 10, 10, 10}));
  EXPECT_EQ(bounds("949,50,1", 12345), (Bounds{0, 11716, 12333, 12345}));
  EXPECT_EQ(bounds("98,2", 7), (Bounds{0, 7, 7, 7}));
  EXPECT_EQ(bounds("1", 5), (Bounds{0, 5, 5, 5}));
  EXPECT_EQ(bounds("1,1,1", 1), (Bounds{0, 1, 1, 1}));
  // Python rounds half to even: 1.5 -> 2 twice, then everything shifts by 1.
  EXPECT_EQ(bounds("2,1,1", 6), (Bounds{0, 2, 4, 6}));
  EXPECT_EQ(bounds(" 0.5 , 0.25,0.25", 4), (Bounds{0, 2, 3, 4}));
}

TEST(GptSplit, BoundsNeverLeaveTheDocuments) {
  // Megatron gives [0, -1, 1, 3] here (and then wraps to the last document).
  EXPECT_EQ(bounds("0,1,1", 3), (Bounds{0, 0, 1, 3}));
  EXPECT_EQ(bounds("949,50,1", 0), (Bounds{0, 0, 0, 0}));
}

TEST(GptSplit, BadSplitStrings) {
  std::array<double, 3> weights;
  std::string error;
  EXPECT_FALSE(parseSplit("949,50,1,0", weights, error));
  EXPECT_EQ(error,
            "bad split '949,50,1,0': 4 weights (expected up to three weights, e.g. 949,50,1)");
  EXPECT_FALSE(parseSplit("0,0,0", weights, error));
  EXPECT_EQ(error, "bad split '0,0,0': the weights must add up to more than 0 (expected up to "
                   "three weights, e.g. 949,50,1)");
  EXPECT_FALSE(parseSplit("90,-5,15", weights, error));
  EXPECT_EQ(error, "bad split '90,-5,15': '-5' is not a non-negative number (expected up to "
                   "three weights, e.g. 949,50,1)");
  EXPECT_FALSE(parseSplit("90,,10", weights, error));
  EXPECT_FALSE(parseSplit("", weights, error));
  EXPECT_FALSE(parseSplit("1.2.3", weights, error));
  EXPECT_FALSE(parseSplit(".", weights, error));
}

InMemoryDocuments threeDocuments() {
  return InMemoryDocuments({{1, 2, 3, 4, kEod}, {5, 6, kEod}, {7, 8, 9, kEod}});
}

GptSampleOptions options(int64_t seqLength, int64_t epochs = 1) {
  GptSampleOptions o;
  o.seqLength = seqLength;
  o.seed = 1234;
  o.numEpochs = epochs;
  return o;
}

/// The concatenated stream, from the dataset's document order.
Ids streamOf(const GptDataset &dataset, const DocumentSource &source) {
  Ids stream;
  for (int64_t d : dataset.documentOrder()) {
    Ids doc(source.documentLength(d));
    source.copyTokens(d, 0, doc.size(), doc.data());
    stream.insert(stream.end(), doc.begin(), doc.end());
  }
  return stream;
}

TEST(GptDataset, WindowsOfSeqLengthPlusOneSharingOneToken) {
  InMemoryDocuments docs = threeDocuments();
  GptDataset dataset;
  std::string error;
  ASSERT_TRUE(dataset.build(docs, 0, 3, options(3), error)) << error;
  EXPECT_EQ(dataset.tokensPerEpoch(), 12);
  ASSERT_EQ(dataset.numSamples(), 3); // (12 - 1) / 3
  Ids stream = streamOf(dataset, docs);
  std::vector<int64_t> starts;
  GptSample sample;
  for (int64_t i = 0; i < dataset.numSamples(); ++i) {
    dataset.sample(i, sample);
    int64_t start = dataset.sampleStart(i);
    starts.push_back(start);
    EXPECT_EQ(sample.tokens, Ids(stream.begin() + start, stream.begin() + start + 3));
    EXPECT_EQ(sample.labels, Ids(stream.begin() + start + 1, stream.begin() + start + 4));
    EXPECT_EQ(sample.lossMask, std::vector<float>(3, 1.0f));
  }
  std::sort(starts.begin(), starts.end());
  EXPECT_EQ(starts, (std::vector<int64_t>{0, 3, 6}));
}

// Pinned against an independent Python model of GptDataset.h's definition;
// a change here changes every run's data order.
TEST(GptDataset, OrderIsPinned) {
  InMemoryDocuments docs = threeDocuments();
  GptDataset dataset;
  std::string error;
  ASSERT_TRUE(dataset.build(docs, 0, 3, options(3), error)) << error;
  EXPECT_EQ(dataset.documentOrder(), (std::vector<int64_t>{0, 1, 2}));
  GptSample sample;
  dataset.sample(0, sample);
  EXPECT_EQ(sample.tokens, (Ids{6, kEod, 7}));
  EXPECT_EQ(sample.labels, (Ids{kEod, 7, 8}));
  dataset.sample(1, sample);
  EXPECT_EQ(sample.tokens, (Ids{4, kEod, 5}));
  dataset.sample(2, sample);
  EXPECT_EQ(sample.tokens, (Ids{1, 2, 3}));

  GptDataset twoEpochs;
  ASSERT_TRUE(twoEpochs.build(docs, 0, 3, options(3, 2), error)) << error;
  EXPECT_EQ(twoEpochs.documentOrder(), (std::vector<int64_t>{0, 1, 2, 1, 2, 0}));
  EXPECT_EQ(twoEpochs.numSamples(), 7);
  twoEpochs.sample(0, sample);
  EXPECT_EQ(twoEpochs.sampleStart(0), 18);
  EXPECT_EQ(sample.tokens, (Ids{kEod, 1, 2}));
  EXPECT_EQ(sample.labels, (Ids{1, 2, 3}));
}

TEST(GptDataset, SeedChangesTheOrderDeterministically) {
  InMemoryDocuments docs({{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}, {11, 12}, {13, 14}, {15, 16}});
  auto orderFor = [&](uint64_t seed) {
    GptSampleOptions o = options(1);
    o.seed = seed;
    GptDataset dataset;
    std::string error;
    EXPECT_TRUE(dataset.build(docs, 0, 8, o, error)) << error;
    std::vector<int64_t> starts;
    for (int64_t i = 0; i < dataset.numSamples(); ++i)
      starts.push_back(dataset.sampleStart(i));
    return std::make_pair(dataset.documentOrder(), starts);
  };
  EXPECT_EQ(orderFor(1), orderFor(1));
  EXPECT_NE(orderFor(1), orderFor(2));
}

TEST(GptDataset, EodMaskLoss) {
  InMemoryDocuments docs = threeDocuments();
  GptSampleOptions o = options(11);
  o.eodMaskLoss = true;
  GptDataset dataset;
  std::string error;
  ASSERT_TRUE(dataset.build(docs, 0, 3, o, error)) << error;
  ASSERT_EQ(dataset.numSamples(), 1);
  GptSample sample;
  dataset.sample(0, sample);
  ASSERT_EQ(sample.tokens.size(), 11u);
  for (size_t k = 0; k < sample.tokens.size(); ++k)
    EXPECT_EQ(sample.lossMask[k], sample.tokens[k] == kEod ? 0.0f : 1.0f) << k;
  EXPECT_EQ(std::count(sample.lossMask.begin(), sample.lossMask.end(), 0.0f), 2);
}

TEST(GptDataset, SplitRangesEmptyDocumentsAndTooLittleText) {
  InMemoryDocuments docs({{1, 2, 3}, {}, {4, 5}, {}, {6}});
  GptDataset dataset;
  std::string error;
  ASSERT_TRUE(dataset.build(docs, 1, 4, options(1), error)) << error;
  EXPECT_EQ(dataset.tokensPerEpoch(), 2);
  EXPECT_EQ(dataset.numSamples(), 1);
  GptSample sample;
  dataset.sample(0, sample);
  EXPECT_EQ(sample.tokens, (Ids{4}));
  EXPECT_EQ(sample.labels, (Ids{5}));

  ASSERT_TRUE(dataset.build(docs, 3, 4, options(1), error)) << error;
  EXPECT_EQ(dataset.numSamples(), 0);
  ASSERT_TRUE(dataset.build(docs, 0, 5, options(100), error)) << error;
  EXPECT_EQ(dataset.numSamples(), 0);
}

TEST(GptDataset, BadOptions) {
  InMemoryDocuments docs = threeDocuments();
  GptDataset dataset;
  std::string error;
  EXPECT_FALSE(dataset.build(docs, 0, 3, options(0), error));
  EXPECT_EQ(error, "sequence length must be at least 1, got 0");
  EXPECT_FALSE(dataset.build(docs, 0, 3, options(3, 0), error));
  EXPECT_EQ(error, "number of epochs must be at least 1, got 0");
  EXPECT_FALSE(dataset.build(docs, 2, 4, options(3), error));
  EXPECT_EQ(error, "document range [2, 4) is not within the 3 documents");
}

TEST(GptDataset, IndexedDocumentsJoinTheirSequences) {
  mt::testing::TempDir dir;
  IndexedDatasetWriter writer;
  std::string error;
  ASSERT_TRUE(writer.open(dir.file("d"), TokenDType::UInt16, error));
  Ids a{1, 2}, b{3}, c{4, 5, 6};
  ASSERT_TRUE(writer.addSequence(a.data(), a.size(), error));
  ASSERT_TRUE(writer.addSequence(b.data(), b.size(), error));
  writer.endDocument();
  ASSERT_TRUE(writer.addDocument(c.data(), c.size(), error));
  ASSERT_TRUE(writer.finish(error)) << error;

  IndexedDataset dataset;
  ASSERT_TRUE(dataset.open(dir.file("d"), error)) << error;
  IndexedDocuments docs;
  ASSERT_TRUE(docs.init(dataset, error)) << error;
  EXPECT_EQ(docs.numDocuments(), 2);
  EXPECT_EQ(docs.documentLength(0), 3);
  Ids out(2);
  docs.copyTokens(0, 1, 2, out.data()); // crosses from sequence 0 into 1
  EXPECT_EQ(out, (Ids{2, 3}));
}

TEST(GptDataset, IndexedDocumentsNeedInt32Tokens) {
  mt::testing::TempDir dir;
  IndexedDatasetWriter writer;
  std::string error;
  ASSERT_TRUE(writer.open(dir.file("d"), TokenDType::Int64, error));
  ASSERT_TRUE(writer.finish(error));
  IndexedDataset dataset;
  ASSERT_TRUE(dataset.open(dir.file("d"), error)) << error;
  IndexedDocuments docs;
  EXPECT_FALSE(docs.init(dataset, error));
  EXPECT_EQ(error, "GPT samples need integer token ids that fit int32; this dataset holds int64");
}

} // namespace
