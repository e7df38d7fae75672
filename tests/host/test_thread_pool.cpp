// SPDX-License-Identifier: Apache-2.0
// The thread pool that runs a split product's parts at once
// (src/core/thread_pool.hpp): every body runs once per call, all at once (each
// waits for the others to start), on threads kept from one call to the
// next, or on the caller's where no pool thread has taken it yet; a failure
// comes back to the caller after all have ended; calls from several threads
// take turns.
#include "core/thread_pool.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

using spgemm::ThreadPool;

namespace {

// Waits (at most 10 s) until `count` reaches n; whether it did.
bool all_arrive(std::atomic<int>& count, int n) {
  ++count;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (count.load() < n)
    if (std::chrono::steady_clock::now() > until) return false;
  return true;
}

}  // namespace

TEST_CASE("a thread pool runs every body once, all at once, again and again") {
  ThreadPool pool;
  for (int n : {4, 2, 5, 1, 3}) {
    std::vector<std::atomic<int>> runs(static_cast<size_t>(n));
    std::atomic<int> arrived{0}, met{0};
    std::vector<std::thread::id> ids(static_cast<size_t>(n));
    pool.run(n, [&](int i) {
      ++runs[static_cast<size_t>(i)];
      ids[static_cast<size_t>(i)] = std::this_thread::get_id();
      if (all_arrive(arrived, n)) ++met;
    });
    INFO("n = " << n);
    for (auto& r : runs) CHECK(r.load() == 1);
    CHECK(met.load() == n);  // none finished before all had started
    CHECK(ids[0] == std::this_thread::get_id());
    CHECK(std::set<std::thread::id>(ids.begin(), ids.end()).size() == static_cast<size_t>(n));
  }
}

TEST_CASE("a thread pool keeps its threads between calls") {
  ThreadPool pool;
  std::thread::id first{}, second{};
  // body(0) waits for body(1), which a pool thread must then have taken
  auto on_pool = [&](std::thread::id& id) {
    std::atomic<int> arrived{0};
    pool.run(2, [&](int i) {
      if (i == 1) id = std::this_thread::get_id();
      all_arrive(arrived, 2);
    });
  };
  on_pool(first);
  on_pool(second);
  CHECK(first == second);
  CHECK(first != std::this_thread::get_id());
}

TEST_CASE("a thread pool's failure reaches the caller once all bodies have ended") {
  ThreadPool pool;
  std::atomic<int> ended{0};
  CHECK_THROWS_WITH(pool.run(4,
                             [&](int i) {
                               std::this_thread::sleep_for(std::chrono::milliseconds(5 * i));
                               ++ended;
                               if (i == 2) throw std::runtime_error("part 2 failed");
                             }),
                    "part 2 failed");
  CHECK(ended.load() == 4);
  std::atomic<int> runs{0};
  pool.run(4, [&](int) { ++runs; });  // still serves
  CHECK(runs.load() == 4);
}

TEST_CASE("calls on one thread pool from several threads take turns") {
  ThreadPool pool;
  std::atomic<int> inside{0}, most{0}, runs{0};
  auto caller = [&] {
    for (int k = 0; k < 50; ++k)
      pool.run(3, [&](int) {
        const int now = ++inside;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        ++runs;
        --inside;
      });
  };
  std::thread a(caller), b(caller);
  a.join();
  b.join();
  CHECK(runs.load() == 2 * 50 * 3);
  CHECK(most.load() <= 3);  // never two calls' bodies at once
}

// A body that no pool thread has taken by the time the caller has run
// body(0) runs on the caller's thread; either way each runs once per call,
// and a failure reaches the caller from whichever thread ran it.
TEST_CASE("a thread pool's bodies run once each, on whichever thread takes them first") {
  ThreadPool pool;
  pool.run(3, [](int) {});  // the threads started
  for (int round = 0; round < 200; ++round) {
    std::vector<std::atomic<int>> runs(4);
    // the thread pool's threads asleep in some rounds, polling in others
    if (round % 2) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    pool.run(4, [&](int i) { ++runs[static_cast<size_t>(i)]; });
    for (auto& r : runs) REQUIRE(r.load() == 1);
  }
  std::atomic<int> ended{0};
  for (int round = 0; round < 20; ++round)
    CHECK_THROWS_WITH(pool.run(3,
                               [&](int i) {
                                 ++ended;
                                 if (i == 2) throw std::runtime_error("part 2 failed");
                               }),
                      "part 2 failed");
  CHECK(ended.load() == 20 * 3);
}
