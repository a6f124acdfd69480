//===- NcclStandInTest.cpp - the NCCL loader and the tests' stand-in NCCL -===//
//
// The stand-in must keep NCCL's semantics where the runtime relies on them
// (in-place forms, issue order, groups, collective initialization and
// splits) and sum in rank order with the host transports' arithmetic, since
// the NCCL path of CUDA plans is checked against it.
//
//===----------------------------------------------------------------------===//
#include "mt/Runtime/Comm/ElementCombine.h"
#include "mt/Runtime/Comm/NcclLibrary.h"
#include "mt/Runtime/Comm/NcclWatchdog.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>

using namespace mt;

namespace {

/// The stand-in, loaded as mt-run loads NCCL.
const NcclLibrary &standIn() {
  static std::unique_ptr<NcclLibrary> library = [] {
    setenv("MT_NCCL_LIBRARY", MT_NCCL_STANDIN_PATH, 1);
    setenv("MT_NCCL_STANDIN_TIMEOUT", "20", 1);
    std::string error;
    std::unique_ptr<NcclLibrary> loaded = NcclLibrary::load(error);
    unsetenv("MT_NCCL_LIBRARY");
    EXPECT_TRUE(loaded) << error;
    return loaded;
  }();
  return *library;
}

/// Runs `body(rank, comm)` on `n` threads, each with its rank of one new
/// communicator, and destroys the communicators after.
void onRanks(int n, const std::function<void(int, nccl::Comm)> &body) {
  const nccl::Api &api = standIn().api();
  nccl::UniqueId id;
  ASSERT_EQ(api.GetUniqueId(&id), nccl::Success);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      nccl::Comm comm = nullptr;
      ASSERT_EQ(api.CommInitRank(&comm, n, id, r), nccl::Success);
      body(r, comm);
      api.CommDestroy(comm);
    });
  for (std::thread &t : threads)
    t.join();
}

std::vector<float> valuesOf(int rank, size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = 0.1f * static_cast<float>(rank + 1) + 1e-3f * static_cast<float>(i) / 3.0f;
  return v;
}

/// The host transports' sum of every rank's values, in rank order.
std::vector<float> rankOrderSum(int ranks, size_t n) {
  std::vector<float> sum = valuesOf(0, n);
  for (int r = 1; r < ranks; ++r)
    combineElements(sum.data(), valuesOf(r, n).data(), static_cast<int64_t>(n), ElementType::F32,
                    ReduceOp::Sum);
  return sum;
}

TEST(NcclStandIn, LoadsAsNccl228) {
  EXPECT_EQ(standIn().version(), 22809);
  EXPECT_EQ(standIn().path(), MT_NCCL_STANDIN_PATH);
}

TEST(NcclStandIn, AllReduceSumsInRankOrderInPlace) {
  std::vector<std::vector<float>> results(4);
  onRanks(4, [&](int rank, nccl::Comm comm) {
    std::vector<float> v = valuesOf(rank, 37);
    EXPECT_EQ(standIn().api().AllReduce(v.data(), v.data(), v.size(), nccl::Float32, nccl::Sum,
                                        comm, nullptr),
              nccl::Success);
    results[rank] = v;
  });
  std::vector<float> expected = rankOrderSum(4, 37);
  for (const std::vector<float> &r : results)
    EXPECT_EQ(0, std::memcmp(r.data(), expected.data(), expected.size() * sizeof(float)));
}

TEST(NcclStandIn, ReduceScatterAndAllGatherInPlace) {
  const size_t piece = 5;
  std::vector<std::vector<float>> scattered(4), gathered(4);
  onRanks(4, [&](int rank, nccl::Comm comm) {
    const nccl::Api &api = standIn().api();
    std::vector<float> v = valuesOf(rank, 4 * piece);
    // In place: the rank's piece of the send buffer receives.
    float *mine = v.data() + rank * piece;
    ASSERT_EQ(api.ReduceScatter(v.data(), mine, piece, nccl::Float32, nccl::Sum, comm, nullptr),
              nccl::Success);
    scattered[rank].assign(mine, mine + piece);
    // In place: the rank's piece of the receive buffer sends.
    ASSERT_EQ(api.AllGather(mine, v.data(), piece, nccl::Float32, comm, nullptr), nccl::Success);
    gathered[rank] = v;
  });
  std::vector<float> sum = rankOrderSum(4, 4 * piece);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(0, std::memcmp(scattered[r].data(), sum.data() + r * piece, piece * sizeof(float)));
    EXPECT_EQ(0, std::memcmp(gathered[r].data(), sum.data(), sum.size() * sizeof(float)));
  }
}

TEST(NcclStandIn, Bf16SumsRoundEachStepAsTheHostTransports) {
  std::vector<uint16_t> inputs[3] = {{0x3f80, 0x3c00}, {0x3b80, 0x3b80}, {0x3b80, 0x4000}};
  std::vector<uint16_t> expected = inputs[0];
  for (int r = 1; r < 3; ++r)
    combineElements(expected.data(), inputs[r].data(), 2, ElementType::BF16, ReduceOp::Sum);
  onRanks(3, [&](int rank, nccl::Comm comm) {
    std::vector<uint16_t> v = inputs[rank];
    ASSERT_EQ(standIn().api().AllReduce(v.data(), v.data(), 2, nccl::Bfloat16, nccl::Sum, comm,
                                        nullptr),
              nccl::Success);
    EXPECT_EQ(v, expected);
  });
}

TEST(NcclStandIn, SplitMakesAGroupPerColorOrderedByKey) {
  std::vector<float> results(4);
  onRanks(4, [&](int rank, nccl::Comm comm) {
    const nccl::Api &api = standIn().api();
    nccl::Comm half = nullptr;
    // Ranks {0, 2} and {1, 3}, numbered in reverse by their keys.
    ASSERT_EQ(api.CommSplit(comm, rank % 2, -rank, &half, nullptr), nccl::Success);
    ASSERT_NE(half, nullptr);
    float value = static_cast<float>(rank + 1);
    ASSERT_EQ(api.AllReduce(&value, &value, 1, nccl::Float32, nccl::Sum, half, nullptr),
              nccl::Success);
    results[rank] = value;
    nccl::Comm none = reinterpret_cast<nccl::Comm>(1);
    ASSERT_EQ(api.CommSplit(comm, rank == 0 ? 0 : nccl::kSplitNoColor, 0, &none, nullptr),
              nccl::Success);
    EXPECT_EQ(none == nullptr, rank != 0);
    api.CommDestroy(none);
    api.CommDestroy(half);
  });
  EXPECT_EQ(results, (std::vector<float>{4, 6, 4, 6}));
}

TEST(NcclStandIn, GroupedSendsAndReceivesExchange) {
  std::vector<float> received(2);
  onRanks(2, [&](int rank, nccl::Comm comm) {
    const nccl::Api &api = standIn().api();
    float out = static_cast<float>(10 + rank), in = 0;
    // Both ranks send first, in one group with the receive.
    ASSERT_EQ(api.GroupStart(), nccl::Success);
    ASSERT_EQ(api.Send(&out, 1, nccl::Float32, 1 - rank, comm, nullptr), nccl::Success);
    ASSERT_EQ(api.Recv(&in, 1, nccl::Float32, 1 - rank, comm, nullptr), nccl::Success);
    ASSERT_EQ(api.GroupEnd(), nccl::Success);
    received[rank] = in;
  });
  EXPECT_EQ(received, (std::vector<float>{11, 10}));
}

TEST(NcclStandIn, ASendOutsideAGroupGoesOnFromACopy) {
  // As on a side stream nothing waits on: rank 0's two sends return before
  // rank 1 receives, and each carries its data as it was when sent.
  std::vector<float> received(2);
  onRanks(2, [&](int rank, nccl::Comm comm) {
    const nccl::Api &api = standIn().api();
    if (rank == 0) {
      float out = 1;
      ASSERT_EQ(api.Send(&out, 1, nccl::Float32, 1, comm, nullptr), nccl::Success);
      out = 2;
      ASSERT_EQ(api.Send(&out, 1, nccl::Float32, 1, comm, nullptr), nccl::Success);
      out = 3;
      float done = 0;
      ASSERT_EQ(api.Recv(&done, 1, nccl::Float32, 1, comm, nullptr), nccl::Success);
      EXPECT_EQ(done, 9);
      return;
    }
    for (float &r : received)
      ASSERT_EQ(api.Recv(&r, 1, nccl::Float32, 0, comm, nullptr), nccl::Success);
    float done = 9;
    ASSERT_EQ(api.Send(&done, 1, nccl::Float32, 0, comm, nullptr), nccl::Success);
  });
  EXPECT_EQ(received, (std::vector<float>{1, 2}));
}

TEST(NcclStandIn, MismatchedCallsFailOnEveryRankNamingBoth) {
  std::vector<std::string> errors(2);
  onRanks(2, [&](int rank, nccl::Comm comm) {
    const nccl::Api &api = standIn().api();
    std::vector<float> v(8, 1.0f);
    nccl::Result result = api.AllReduce(v.data(), v.data(), rank == 0 ? 4 : 8, nccl::Float32,
                                        nccl::Sum, comm, nullptr);
    EXPECT_EQ(result, nccl::InvalidUsage);
    errors[rank] = standIn().describe(result, comm);
  });
  for (const std::string &e : errors) {
    EXPECT_NE(e.find("ncclAllReduce on rank 0 (4 elements"), std::string::npos) << e;
    EXPECT_NE(e.find("ncclAllReduce on rank 1 (8 elements"), std::string::npos) << e;
  }
}

TEST(NcclStandIn, AbortWakesAWaitingReceive) {
  onRanks(2, [&](int rank, nccl::Comm comm) {
    const nccl::Api &api = standIn().api();
    if (rank == 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      api.CommAbort(comm);
      return;
    }
    // Nobody sends: the receive waits until a watchdog aborts it.
    std::thread watchdog([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      api.CommAbort(comm);
    });
    float in = 0;
    nccl::Result result = api.Recv(&in, 1, nccl::Float32, 1, comm, nullptr);
    watchdog.join();
    EXPECT_EQ(result, nccl::RemoteError);
    nccl::Result async = nccl::Success;
    api.CommGetAsyncError(comm, &async);
    EXPECT_EQ(async, nccl::RemoteError);
    EXPECT_NE(std::string(api.GetLastError(comm)).find("aborted"), std::string::npos);
  });
}

TEST(NcclStandIn, ARoundLeftUnfinishedFailsTheLateRank) {
  standIn(); // loaded first: loading sets the tests' timeout
  setenv("MT_NCCL_STANDIN_TIMEOUT", "1", 1);
  std::vector<nccl::Result> results(2);
  std::vector<std::string> errors(2);
  onRanks(2, [&](int rank, nccl::Comm comm) {
    const nccl::Api &api = standIn().api();
    float v = 1;
    // Rank 1 comes after rank 0 gave up waiting: it must not run the round
    // with rank 0's buffers, which are gone.
    if (rank == 1)
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    results[rank] = api.AllReduce(&v, &v, 1, nccl::Float32, nccl::Sum, comm, nullptr);
    errors[rank] = api.GetLastError(comm);
  });
  setenv("MT_NCCL_STANDIN_TIMEOUT", "20", 1);
  EXPECT_EQ(results[0], nccl::RemoteError);
  EXPECT_EQ(results[1], nccl::RemoteError);
  EXPECT_NE(errors[1].find("rank 0 left a ncclAllReduce unfinished"), std::string::npos)
      << errors[1];
}

// The watchdog: a rank waiting on its GPU past the timeout gets its
// communicators aborted, which wakes a call still waiting in them.
TEST(NcclWatchdog, AWaitPastTheTimeoutAbortsTheCommunicators) {
  std::vector<nccl::Result> results(2, nccl::Success);
  std::string reason;
  onRanks(2, [&](int rank, nccl::Comm comm) {
    if (rank == 1)
      return; // never sends
    NcclWatchdog::Settings settings;
    settings.timeoutSeconds = 0.5;
    settings.graceSeconds = 60;
    settings.rank = 3;
    double since = NcclWatchdog::now();
    NcclWatchdog watchdog(standIn(), {{comm, "the communicator of ranks 3, 4"}},
                          [&] { return since; }, settings);
    float in = 0;
    results[0] = standIn().api().Recv(&in, 1, nccl::Float32, 1, comm, nullptr);
    EXPECT_TRUE(watchdog.tripped());
    reason = watchdog.reason();
  });
  EXPECT_EQ(results[0], nccl::RemoteError);
  EXPECT_NE(reason.find("rank 3: waited"), std::string::npos) << reason;
  EXPECT_NE(reason.find("more than --comm-timeout"), std::string::npos) << reason;
}

// NCCL's asynchronous error on a communicator (here a receive that timed
// out) trips it too, named with the communicator.
TEST(NcclWatchdog, NcclsAsynchronousErrorTripsIt) {
  standIn(); // loaded first: loading sets the tests' timeout
  setenv("MT_NCCL_STANDIN_TIMEOUT", "1", 1);
  std::string reason;
  onRanks(2, [&](int rank, nccl::Comm comm) {
    if (rank == 1)
      return;
    NcclWatchdog::Settings settings;
    settings.graceSeconds = 60;
    NcclWatchdog watchdog(standIn(), {{comm, "the communicator of ranks 0, 1"}}, nullptr,
                          settings);
    float in = 0;
    EXPECT_EQ(standIn().api().Recv(&in, 1, nccl::Float32, 1, comm, nullptr), nccl::RemoteError);
    for (int i = 0; i < 100 && !watchdog.tripped(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    reason = watchdog.reason();
  });
  setenv("MT_NCCL_STANDIN_TIMEOUT", "20", 1);
  EXPECT_NE(reason.find("rank 0: NCCL reported an error on the communicator of ranks 0, 1: "
                        "remote process exited or there was a network error"),
            std::string::npos)
      << reason;
}

TEST(NcclLibrary, SaysWhatItTriedWhenNcclIsMissing) {
  setenv("MT_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1);
  std::string error;
  EXPECT_FALSE(NcclLibrary::load(error));
  unsetenv("MT_NCCL_LIBRARY");
  EXPECT_NE(error.find("/nonexistent/libnccl.so.2"), std::string::npos) << error;
  EXPECT_NE(error.find("--collectives=host"), std::string::npos) << error;
}

TEST(NcclLibrary, RefusesALibraryThatIsNotNccl) {
  setenv("MT_NCCL_LIBRARY", "libm.so.6", 1);
  std::string error;
  EXPECT_FALSE(NcclLibrary::load(error));
  unsetenv("MT_NCCL_LIBRARY");
  EXPECT_NE(error.find("lacks ncclGetVersion"), std::string::npos) << error;
}

} // namespace
