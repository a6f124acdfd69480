//===- CommunicatorTest.cpp - collectives over rank threads ----------------===//
#include "mt/Runtime/Comm/Communicator.h"
#include "mt/Runtime/Comm/GpuSharing.h"
#include "mt/Runtime/Comm/MpiTransport.h"
#include "mt/Runtime/Comm/ThreadTransport.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <thread>

using namespace mt;

namespace {

/// Runs `body(rank, comm)` on `n` rank threads with the given timeout.
void onRanks(int n, double timeout, const std::function<void(int, Communicator &)> &body) {
  ThreadWorld world(n);
  std::vector<std::unique_ptr<ThreadTransport>> transports;
  std::vector<std::unique_ptr<Communicator>> comms;
  for (int r = 0; r < n; ++r) {
    transports.push_back(std::make_unique<ThreadTransport>(world, r));
    comms.push_back(std::make_unique<Communicator>(*transports.back(), timeout));
  }
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] { body(r, *comms[r]); });
  for (auto &t : threads)
    t.join();
}

Group world(int n) {
  Group g{{}, "world"};
  for (int r = 0; r < n; ++r)
    g.ranks.push_back(r);
  return g;
}

TEST(Communicator, AllReduceSumsInGroupOrderOnEveryRank) {
  std::vector<std::vector<float>> results(4);
  onRanks(4, 10, [&](int r, Communicator &c) {
    std::vector<float> x = {1.0f * r, 1e8f, -1e8f, 0.1f * r};
    std::string error;
    ASSERT_TRUE(c.allReduce(world(4), x.data(), 4, ElementType::F32, ReduceOp::Sum, "x", error))
        << error;
    results[r] = x;
  });
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(results[r][0], 6.0f);
    // Bit-identical on every rank: the same order of additions.
    EXPECT_EQ(std::memcmp(results[r].data(), results[0].data(), 16), 0);
  }
}

/// 16-bit elements are summed in fp32 and rounded at each step: bf16 1.0 +
/// 2^-8 (half a bf16 ulp at 1) rounds to even (1.0); 1.0 + 3 * 2^-8 does not.
TEST(Communicator, SixteenBitAllReduceRoundsEachStep) {
  std::vector<std::vector<uint16_t>> bf16(3), f16(3);
  onRanks(3, 10, [&](int r, Communicator &c) {
    // bf16: 1.0 = 0x3f80, 2^-8 = 0x3b80, 2^-7 = 0x3c00; f16: 1.0 = 0x3c00, 0.5 = 0x3800.
    std::vector<uint16_t> b = {r == 0 ? uint16_t(0x3f80) : uint16_t(0x3b80),
                               r == 0 ? uint16_t(0x3f80) : uint16_t(0x3c00)};
    std::vector<uint16_t> h = {uint16_t(r == 2 ? 0x3c00 : 0x3800)};
    std::string error;
    ASSERT_TRUE(c.allReduce(world(3), b.data(), 2, ElementType::BF16, ReduceOp::Sum, "b", error))
        << error;
    ASSERT_TRUE(c.allReduce(world(3), h.data(), 1, ElementType::F16, ReduceOp::Max, "h", error))
        << error;
    bf16[r] = b;
    f16[r] = h;
  });
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(bf16[r][0], 0x3f80) << "1 + 2^-8 + 2^-8, each sum rounded to even";
    EXPECT_EQ(bf16[r][1], 0x3f82) << "1 + 2^-7 + 2^-7";
    EXPECT_EQ(f16[r][0], 0x3c00);
  }
}

TEST(Communicator, MaxAllGatherReduceScatterAndSubgroups) {
  onRanks(4, 10, [&](int r, Communicator &c) {
    std::string error;
    // Two groups of two: {0, 1} and {2, 3}.
    Group pair{{r / 2 * 2, r / 2 * 2 + 1}, "dp"};
    double m = r;
    ASSERT_TRUE(c.allReduce(pair, &m, 1, ElementType::F64, ReduceOp::Max, "m", error)) << error;
    EXPECT_EQ(m, r / 2 * 2 + 1);
    int64_t mine[2] = {10 * r, 10 * r + 1}, all[4];
    ASSERT_TRUE(c.allGather(pair, mine, all, 2, ElementType::I64, "g", error)) << error;
    EXPECT_EQ(all[0], 10 * pair.ranks[0]);
    EXPECT_EQ(all[3], 10 * pair.ranks[1] + 1);
    float in[4] = {1, 2, 3, 4}, out[2];
    ASSERT_TRUE(c.reduceScatter(pair, in, out, 2, ElementType::F32, ReduceOp::Sum, "rs", error))
        << error;
    int index = r % 2;
    EXPECT_EQ(out[0], 2 * in[2 * index]);
    EXPECT_EQ(out[1], 2 * in[2 * index + 1]);
  });
}

TEST(Communicator, ReduceScatterWithUnevenAndEmptyPieces) {
  // A slice of a sharded gradient cut at the shard boundaries: pieces of
  // 3, 0 and 2 elements; member 1 receives an empty sum.
  onRanks(3, 10, [&](int r, Communicator &c) {
    std::string error;
    float in[5] = {1.0f * r, 2, 3, 10.0f * r, 5}, out[3] = {-1, -1, -1};
    std::vector<int64_t> counts = {3, 0, 2};
    ASSERT_TRUE(
        c.reduceScatter(world(3), in, counts, out, ElementType::F32, ReduceOp::Sum, "rs", error))
        << error;
    if (r == 0) {
      EXPECT_EQ(out[0], 3.0f);
      EXPECT_EQ(out[2], 9.0f);
    } else if (r == 1) {
      EXPECT_EQ(out[0], -1.0f); // nothing written
    } else {
      EXPECT_EQ(out[0], 30.0f);
      EXPECT_EQ(out[1], 15.0f);
      EXPECT_EQ(out[2], -1.0f);
    }
  });
  // Members that disagree about the pieces fail with both labels.
  onRanks(2, 10, [&](int r, Communicator &c) {
    std::string error;
    float in[4] = {0, 0, 0, 0}, out[4];
    std::vector<int64_t> counts = r == 0 ? std::vector<int64_t>{2, 2} : std::vector<int64_t>{1, 3};
    EXPECT_FALSE(c.reduceScatter(world(2), in, counts, out, ElementType::F32, ReduceOp::Sum,
                                 "shard of rank " + std::to_string(r), error));
    EXPECT_NE(error.find("mismatched communication"), std::string::npos) << error;
  });
}

TEST(Communicator, SendAndRecvKeepChannelsApart) {
  onRanks(2, 10, [&](int r, Communicator &c) {
    std::string error;
    if (r == 0) {
      float a = 1, g = 2;
      ASSERT_TRUE(c.send(1, 0, &a, 1, ElementType::F32, "activation", error));
      ASSERT_TRUE(c.send(1, 1, &g, 1, ElementType::F32, "gradient", error));
    } else {
      float a = 0, g = 0;
      ASSERT_TRUE(c.recv(0, 1, &g, 1, ElementType::F32, "gradient", error)) << error;
      ASSERT_TRUE(c.recv(0, 0, &a, 1, ElementType::F32, "activation", error)) << error;
      EXPECT_EQ(a, 1);
      EXPECT_EQ(g, 2);
    }
  });
}

TEST(Communicator, MismatchedCollectivesNameBothSides) {
  std::vector<std::string> errors(2);
  onRanks(2, 10, [&](int r, Communicator &c) {
    float x[4] = {}, y[8] = {};
    if (r == 0)
      c.allReduce(world(2), x, 4, ElementType::F32, ReduceOp::Sum, "grad:wte", errors[r]);
    else
      c.allGather(world(2), x, y, 4, ElementType::F32, "param_shard:wte", errors[r]);
  });
  EXPECT_NE(errors[0].find("mismatched communication: rank 0 is in all_reduce 'grad:wte'"),
            std::string::npos)
      << errors[0];
  EXPECT_NE(errors[0].find("rank 1 is in all_gather 'param_shard:wte'"), std::string::npos)
      << errors[0];
}

TEST(Communicator, SilentPeerTimesOutWithTheOperationNamed) {
  std::string error;
  onRanks(2, 0.2, [&](int r, Communicator &c) {
    double v = 1;
    if (r == 0) {
      EXPECT_FALSE(c.allReduce(world(2), &v, 1, ElementType::F64, ReduceOp::Sum, "loss", error));
    }
  });
  EXPECT_NE(
      error.find("rank 0 waited 0.2 s for rank 1 in all_reduce 'loss' over the world group [0, 1]"),
      std::string::npos)
      << error;
}

TEST(Communicator, FailedPeerStopsWaitersAtOnce) {
  std::string error;
  onRanks(2, 60, [&](int r, Communicator &c) {
    double v = 1;
    if (r == 1)
      c.transport().fail("out of memory");
    else
      EXPECT_FALSE(c.allReduce(world(2), &v, 1, ElementType::F64, ReduceOp::Sum, "loss", error));
  });
  EXPECT_NE(error.find("because rank 1 failed: out of memory"), std::string::npos) << error;
}

TEST(Communicator, NonMemberIsRefused) {
  onRanks(1, 1, [&](int, Communicator &c) {
    std::string error;
    double v = 0;
    EXPECT_FALSE(
        c.allReduce(Group{{1, 2}, "tp"}, &v, 1, ElementType::F64, ReduceOp::Sum, "v", error));
    EXPECT_NE(error.find("is not a member"), std::string::npos) << error;
  });
}

} // namespace

// The GPU of a process under mpirun or srun is its index on its machine, as
// the launcher says it (Open MPI's first, then MPICH's, then Slurm's).
TEST(MpiTransport, LocalRankFromTheLaunchersEnvironment) {
  const char *vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"};
  for (const char *v : vars)
    unsetenv(v);
  EXPECT_EQ(MpiTransport::localRank(), -1);
  setenv("SLURM_LOCALID", "3", 1);
  EXPECT_EQ(MpiTransport::localRank(), 3);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
  EXPECT_EQ(MpiTransport::localRank(), 1);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "one", 1);
  EXPECT_EQ(MpiTransport::localRank(), 3); // not a number: the next launcher's word
  for (const char *v : vars)
    unsetenv(v);
}

// NCCL needs a GPU per rank: ranks reporting the same machine and bus id are
// named before NCCL would fail in its own words.
TEST(GpuSharing, NamesTheFirstTwoRanksOnOneGpu) {
  EXPECT_EQ(sharedGpuError({"a 0000:1b:00.0", "a 0000:1c:00.0", "b 0000:1b:00.0"}), "");
  std::string error = sharedGpuError({"a 0000:1b:00.0", "a 0000:1c:00.0", "a 0000:1b:00.0"});
  EXPECT_NE(error.find("ranks 0 and 2 would share the GPU 0000:1b:00.0 on a"), std::string::npos)
      << error;
  EXPECT_NE(error.find("--collectives=host"), std::string::npos) << error;
}

TEST(GpuSharing, GathersEveryRanksPlace) {
  std::vector<std::vector<std::string>> seen(3);
  onRanks(3, 10, [&](int r, Communicator &c) {
    std::string error;
    EXPECT_TRUE(gatherGpuPlaces(c, gpuPlace("bus" + std::to_string(r)), seen[r], error)) << error;
  });
  for (const auto &places : seen) {
    ASSERT_EQ(places.size(), 3u);
    EXPECT_EQ(places[2], gpuPlace("bus2"));
  }
}
