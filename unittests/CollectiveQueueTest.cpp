//===- CollectiveQueueTest.cpp - collectives in flight, in start order ----===//
#include "mt/Runtime/Comm/CollectiveQueue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

using namespace mt;

namespace {

TEST(CollectiveQueue, RunsInStartOrderAndWaitsByBuffer) {
  CollectiveQueue queue;
  std::vector<int> order;
  std::atomic<bool> release{false};
  int a = 0, b = 0;
  // The first holds the thread until released: the second waits behind it.
  queue.start(&a, [&](std::string &) {
    while (!release)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    order.push_back(1);
    a = 1;
    return true;
  });
  queue.start(&b, [&](std::string &) {
    order.push_back(2);
    b = 2;
    return true;
  });
  EXPECT_FALSE(queue.idle());
  release = true;
  std::string error;
  ASSERT_TRUE(queue.wait(&b, error)) << error;
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 2);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  // A buffer nothing is pending for (waited already) returns at once.
  EXPECT_TRUE(queue.wait(&a, error));
  EXPECT_TRUE(queue.idle());
}

TEST(CollectiveQueue, AFailureStopsTheRestAndReachesEveryWait) {
  CollectiveQueue queue;
  int a = 0, b = 0;
  bool ranSecond = false;
  queue.start(&a, [](std::string &error) {
    error = "rank 1 has died";
    return false;
  });
  queue.start(&b, [&](std::string &) {
    ranSecond = true;
    return true;
  });
  std::string error;
  EXPECT_FALSE(queue.wait(&b, error));
  EXPECT_EQ(error, "rank 1 has died");
  EXPECT_FALSE(ranSecond);
  std::string again;
  EXPECT_FALSE(queue.drain(again));
  EXPECT_EQ(again, "rank 1 has died");
}

TEST(CollectiveQueue, DestroyingFinishesWhatWasStarted) {
  int a = 0;
  {
    CollectiveQueue queue;
    queue.start(&a, [&](std::string &) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      a = 7;
      return true;
    });
  }
  EXPECT_EQ(a, 7);
}

} // namespace
