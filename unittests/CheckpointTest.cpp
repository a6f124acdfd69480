//===- CheckpointTest.cpp - which rank saves what; write, read, reshape ----===//
#include "mt/Checkpoint/CheckpointFiles.h"
#include "mt/Checkpoint/CheckpointReader.h"
#include "mt/Checkpoint/CheckpointWriter.h"
#include "mt/Plan/PlanFile.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <numeric>
#include <set>

namespace {

using namespace mt;

/// A plan of two parameters: a vocabulary table [rows, 4] split over tp
/// along dim 0, and a stacked [layers, 4] norm weight replicated over tp.
plan::Plan tinyPlan(int64_t tp, int64_t pp, int64_t dp, bool distributed, int64_t rows,
                    int64_t unpadded) {
  plan::Plan p;
  plan::Config &c = *p.mutable_config();
  c.set_model("tiny");
  c.mutable_parallel()->set_tensor_parallel_size(tp);
  c.mutable_parallel()->set_pipeline_parallel_size(pp);
  c.mutable_parallel()->set_data_parallel_size(dp);
  c.mutable_parallel()->set_distributed_optimizer(distributed);
  plan::Parameter &wte = *p.add_parameters();
  wte.set_name("wte");
  wte.add_shape(rows);
  wte.add_shape(4);
  wte.set_dtype(plan::F32);
  wte.mutable_tp_shard()->set_dim(0);
  wte.mutable_tp_shard()->set_segments(1);
  if (unpadded != rows)
    wte.set_unpadded_rows(unpadded);
  plan::Parameter &ln = *p.add_parameters();
  ln.set_name("ln");
  ln.add_shape(4);
  ln.add_shape(4);
  ln.set_dtype(plan::F32);
  ln.set_stacked_layers(4);
  if (pp > 1) {
    // The table tied on the first and last stage, layers split evenly.
    for (int64_t k = 0; k < pp; ++k) {
      plan::Stage &st = *p.add_stages();
      st.set_index(k);
      if (k == 0 || k == pp - 1)
        st.add_parameters()->set_name("wte");
      plan::StageParameter &sp = *st.add_parameters();
      sp.set_name("ln");
      sp.set_layer_begin(k * 4 / pp);
      sp.set_layer_end((k + 1) * 4 / pp);
    }
  }
  return p;
}

int64_t ranksOf(const plan::Plan &p) { return planMesh(p.config()).numRanks(); }

/// Global element -> number of ranks saving it, per (tensor name, role).
std::map<std::pair<std::string, int>, std::map<int64_t, int>> savedElements(const plan::Plan &p) {
  std::map<std::pair<std::string, int>, std::map<int64_t, int>> out;
  for (int64_t r = 0; r < ranksOf(p); ++r) {
    std::vector<SavedPiece> pieces;
    std::string error;
    EXPECT_TRUE(savedPieces(p, r, pieces, error)) << error;
    for (const SavedPiece &s : pieces) {
      const plan::Parameter &param = *s.held.param;
      TensorShard shard = s.held.shape.shard({param.shape().begin(), param.shape().end()});
      for (int64_t i = s.held.shape.flatBegin; i < s.held.shape.flatEnd; ++i)
        ++out[{param.name(), s.held.role}][shard.globalIndex(i)];
    }
  }
  return out;
}

TEST(CheckpointLayout, EveryElementSavedExactlyOnce) {
  for (bool distributed : {false, true})
    for (auto [tp, pp, dp] : std::vector<std::array<int64_t, 3>>{
             {1, 1, 1}, {2, 1, 1}, {2, 2, 2}, {1, 4, 1}, {2, 1, 3}}) {
      plan::Plan p = tinyPlan(tp, pp, dp, distributed, 8, 8);
      auto saved = savedElements(p);
      ASSERT_EQ(saved.size(), 6u) << tp << pp << dp;
      for (auto &[tensor, elements] : saved) {
        int64_t total = tensor.first == "wte" ? 32 : 16;
        EXPECT_EQ(static_cast<int64_t>(elements.size()), total) << tensor.first;
        for (auto &[g, n] : elements)
          EXPECT_EQ(n, 1) << tensor.first << " element " << g << " tp" << tp << " pp" << pp << " dp"
                          << dp << (distributed ? " zero" : "");
      }
    }
}

TEST(CheckpointLayout, DistributedOptimizerShardsTheMoments) {
  // 3 data-parallel ranks, 16 elements of ln: shards of 6, 6, 4.
  plan::Plan p = tinyPlan(1, 1, 3, true, 8, 8);
  std::vector<int64_t> sizes;
  for (int64_t r = 0; r < 3; ++r) {
    std::vector<HeldPiece> held;
    std::string error;
    ASSERT_TRUE(heldPieces(p, r, held, error)) << error;
    for (const HeldPiece &h : held)
      if (h.param->name() == "ln" && h.role == ckpt::EXP_AVG) {
        sizes.push_back(h.elements());
        EXPECT_TRUE(h.saves);
        EXPECT_EQ(h.buffer, "exp_avg:ln");
      }
  }
  EXPECT_EQ(sizes, (std::vector<int64_t>{6, 6, 4}));
}

TEST(CheckpointLayout, FingerprintIgnoresLayoutAndPadding) {
  std::string a = modelFingerprint(logicalTensors(tinyPlan(1, 1, 1, false, 6, 6)));
  std::string b = modelFingerprint(logicalTensors(tinyPlan(2, 2, 2, true, 8, 6)));
  EXPECT_EQ(a, b);
  std::string c = modelFingerprint(logicalTensors(tinyPlan(1, 1, 1, false, 8, 8)));
  EXPECT_NE(a, c);
  EXPECT_EQ(modelDifferences(logicalTensors(tinyPlan(1, 1, 1, false, 6, 6)),
                             logicalTensors(tinyPlan(2, 1, 1, false, 8, 6))),
            "");
  EXPECT_EQ(modelDifferences(logicalTensors(tinyPlan(1, 1, 1, false, 8, 8)),
                             logicalTensors(tinyPlan(1, 1, 1, false, 6, 6))),
            "tensor 'wte' has shape [8, 4] in the checkpoint but [6, 4] in the plan\n");
}

class CheckpointRoundTrip : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/mt-ckpt-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::string error;
    removeTree(dir_, error);
  }

  /// Saves `p` with every element of tensor (name, role) equal to a value
  /// made of its global index, its role and the name's first letter.
  void save(const plan::Plan &p, int64_t iteration) {
    std::string error;
    ASSERT_TRUE(beginCheckpoint(dir_, iteration, error)) << error;
    std::vector<std::vector<uint64_t>> sums(static_cast<size_t>(ranksOf(p)));
    for (int64_t r = 0; r < ranksOf(p); ++r) {
      std::vector<SavedPiece> pieces;
      ASSERT_TRUE(savedPieces(p, r, pieces, error)) << error;
      std::vector<std::vector<float>> data;
      for (const SavedPiece &s : pieces) {
        const plan::Parameter &param = *s.held.param;
        TensorShard shard = s.held.shape.shard({param.shape().begin(), param.shape().end()});
        std::vector<float> v;
        for (int64_t i = s.held.shape.flatBegin; i < s.held.shape.flatEnd; ++i)
          v.push_back(valueOf(param.name(), s.held.role, shard.globalIndex(i)));
        data.push_back(v);
      }
      ASSERT_TRUE(writeRankFile(
          dir_, iteration, r, pieces,
          [&](size_t i) { return static_cast<const void *>(data[i].data()); },
          sums[static_cast<size_t>(r)], error))
          << error;
    }
    ckpt::TrainingState state;
    state.set_iteration(iteration);
    ckpt::Manifest m;
    ASSERT_TRUE(describeCheckpoint(p, state, sums, m, error)) << error;
    ASSERT_TRUE(finishCheckpoint(dir_, iteration, m, 2, error)) << error;
  }

  static float valueOf(const std::string &name, int role, int64_t g) {
    return static_cast<float>(g * 10 + role) + (name[0] == 'w' ? 0.5f : 0.25f);
  }

  std::string dir_;
};

TEST_F(CheckpointRoundTrip, ReshapesIntoEveryLayoutAndPadding) {
  // Saved at tp 2, pp 2, dp 2 with the distributed optimizer, 8 table rows
  // of which 6 are real; loaded at tp 1 pp 1 with no padding and at tp 2
  // with 10 rows.
  save(tinyPlan(2, 2, 2, true, 8, 6), 7);
  for (auto [tp, rows] : std::vector<std::pair<int64_t, int64_t>>{{1, 6}, {2, 10}, {2, 8}}) {
    plan::Plan target = tinyPlan(tp, 1, 1, false, rows, 6);
    CheckpointReader reader;
    std::string error;
    ASSERT_TRUE(reader.open(dir_, error)) << error;
    EXPECT_EQ(reader.manifest().state().iteration(), 7);
    EXPECT_EQ(reader.differences(target), "");
    for (int64_t r = 0; r < ranksOf(target); ++r) {
      std::vector<HeldPiece> held;
      ASSERT_TRUE(heldPieces(target, r, held, error)) << error;
      for (const HeldPiece &h : held) {
        std::vector<float> got(static_cast<size_t>(h.elements()));
        ASSERT_TRUE(reader.fill(*h.param, h.role, h.shape, got.data(), error)) << error;
        TensorShard shard = h.shape.shard({h.param->shape().begin(), h.param->shape().end()});
        for (int64_t i = 0; i < h.elements(); ++i) {
          int64_t g = shard.globalIndex(h.shape.flatBegin + i);
          bool padding = h.param->name() == "wte" && g / 4 >= 6 && rows != 8;
          float want = padding ? 0.0f : valueOf(h.param->name(), h.role, g);
          ASSERT_EQ(got[static_cast<size_t>(i)], want)
              << h.buffer << " element " << g << " at tp " << tp << ", " << rows << " rows";
        }
      }
    }
  }
}

TEST_F(CheckpointRoundTrip, KeepsTheNewestAndPointsLatestAtIt) {
  plan::Plan p = tinyPlan(1, 1, 1, false, 6, 6);
  for (int64_t it : {1, 2, 3})
    save(p, it);
  EXPECT_EQ(listCheckpoints(dir_), (std::vector<int64_t>{2, 3}));
  std::string resolved, error;
  ASSERT_TRUE(resolveCheckpoint(dir_, resolved, error)) << error;
  EXPECT_EQ(resolved, dir_ + "/iter_0000003");
  // A save of an existing iteration (a resumed run) replaces it.
  save(p, 3);
  EXPECT_EQ(listCheckpoints(dir_), (std::vector<int64_t>{2, 3}));
}

} // namespace
