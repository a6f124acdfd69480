//===- BufferStoreTest.cpp - named buffers and batch inputs ---------------===//
#include "mt/Runtime/Training/BufferStore.h"
#include "mt/Runtime/Training/BatchInputs.h"

#include "TrainingTestSupport.h"

#include <gtest/gtest.h>

using namespace mt;
using namespace mt::testing;

TEST(BufferStore, EnsureAllocatesZeroedOnceAndKeepsTheType) {
  BufferStore store;
  Buffer &a = store.ensure(spec("x", {2, 3}, plan::F64));
  EXPECT_EQ(a.numElements(), 6);
  EXPECT_EQ(a.as<double>()[5], 0.0);
  a.as<double>()[1] = 2.5;
  EXPECT_EQ(&store.ensure(spec("x", {2, 3}, plan::F64)), &a);
  EXPECT_EQ(store.dtype("x"), plan::F64);
  EXPECT_EQ(store.read("x", 1), 2.5);
  EXPECT_EQ(store.find("y"), nullptr);
  EXPECT_EQ(store.dtype("y"), plan::DTYPE_UNSPECIFIED);
  EXPECT_TRUE(store.allocationError().empty());
}

TEST(BufferStore, ExchangeSwapsSetsInAndOut) {
  BufferStore store;
  std::unique_ptr<Buffer> set = store.make(spec("s1/saved:0", {4}), "saved set 0");
  set->as<float>()[0] = 7;
  EXPECT_EQ(store.find("s1/saved:0"), nullptr); // made, not held
  store.exchange("s1/saved:0", set);
  EXPECT_EQ(set, nullptr);
  EXPECT_EQ(store.read("s1/saved:0"), 7.0);
  store.exchange("s1/saved:0", set);
  EXPECT_EQ(store.find("s1/saved:0"), nullptr);
  ASSERT_NE(set, nullptr);
  EXPECT_EQ(set->as<float>()[0], 7.0f);
}

TEST(BufferStore, ExchangeOfTwoHeldBuffers) {
  BufferStore store;
  store.ensure(spec("a", {1})).as<float>()[0] = 1;
  store.ensure(spec("a#next", {1})).as<float>()[0] = 2;
  store.exchange("a", "a#next");
  EXPECT_EQ(store.read("a"), 2.0);
  EXPECT_EQ(store.read("a#next"), 1.0);
}

namespace {

plan::Config batchConfig() {
  plan::Config c;
  c.set_micro_batch_size(1);
  c.set_seq_length(3);
  c.set_vocab_size(10);
  c.set_seed(1234);
  return c;
}

MicroBatch batchOf(std::vector<int32_t> tokens) {
  MicroBatch b;
  b.tokens = tokens;
  b.labels = tokens;
  b.lossMask.assign(tokens.size(), 1.0f);
  return b;
}

} // namespace

TEST(BatchInputs, WritesTokensSeedAndScale) {
  BufferStore store;
  store.ensure(spec(buffers::batch("tokens"), {1, 3}, plan::I32));
  store.ensure(spec(buffers::batch("loss_mask"), {1, 3}, plan::F64));
  store.ensure(spec(buffers::batch("dropout_seed"), {1}, plan::I64));
  store.ensure(spec(buffers::batch("loss_scale"), {1}));
  std::string error;
  MicroBatch b = batchOf({4, 5, 9});
  b.lossMask[1] = 0;
  ASSERT_TRUE(writeBatch(store, batchConfig(), b, 3, 5, 1024.0, error)) << error;
  EXPECT_EQ(store.find(buffers::batch("tokens"))->as<int32_t>()[2], 9);
  EXPECT_EQ(store.read(buffers::batch("loss_mask"), 1), 0.0);
  EXPECT_EQ(store.read(buffers::batch("loss_scale")), 1024.0);
  int64_t seed = store.find(buffers::batch("dropout_seed"))->as<int64_t>()[0];
  EXPECT_EQ(seed, dropoutSeed(1234, 3, 5));
  // Another micro-batch or step draws other masks.
  EXPECT_NE(seed, dropoutSeed(1234, 3, 6));
  EXPECT_NE(seed, dropoutSeed(1234, 4, 5));
}

TEST(BatchInputs, RefusesTokensOutsideTheVocabulary) {
  BufferStore store;
  store.ensure(spec(buffers::batch("tokens"), {1, 3}, plan::I32));
  std::string error;
  EXPECT_FALSE(writeBatch(store, batchConfig(), batchOf({1, 10, 2}), 1, 0, 1, error));
  EXPECT_EQ(error, "batch:tokens holds id 10 outside the model's vocabulary of 10");
  EXPECT_FALSE(writeBatch(store, batchConfig(), batchOf({1, 2}), 1, 0, 1, error));
  EXPECT_EQ(error, "a micro-batch must hold 3 tokens and 3 labels and mask values");
}

TEST(BatchInputs, ConvertsTheModelsFurtherInputs) {
  BufferStore store;
  store.ensure(spec(buffers::batch("padding_mask"), {1, 3}, plan::I1));
  store.ensure(spec(buffers::batch("weights"), {1, 3}, plan::F32));
  MicroBatch b = batchOf({1, 2, 3});
  b.inputs["padding_mask"] = {1, 0, 5};
  b.inputs["weights"] = {2, 3, 4};
  std::string error;
  ASSERT_TRUE(writeBatch(store, batchConfig(), b, 1, 0, 1, error)) << error;
  const uint8_t *mask = store.find(buffers::batch("padding_mask"))->as<uint8_t>();
  EXPECT_EQ(mask[0], 1);
  EXPECT_EQ(mask[1], 0);
  EXPECT_EQ(mask[2], 1);
  EXPECT_EQ(store.read(buffers::batch("weights"), 2), 4.0);
  b.inputs.erase("weights");
  EXPECT_FALSE(writeBatch(store, batchConfig(), b, 1, 0, 1, error));
  EXPECT_NE(error.find("the model takes batch input 'weights'"), std::string::npos) << error;
}
