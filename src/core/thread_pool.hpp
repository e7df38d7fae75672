// SPDX-License-Identifier: Apache-2.0
// Host threads kept for running a few bodies at once (the parts of a split
// product: src/multi/): starting a thread costs tens of microseconds, more
// than a part's whole analysis of a small product, so a handle keeps its
// threads from one call to the next. Waking a sleeping thread costs tens of
// microseconds too on the lent machines (a condition variable's notify to
// the thread running: 10-50 us, two H200s), and a split product's phases
// wake the pool three times, so a thread that has just finished a body (or
// the caller waiting for the others) polls for kPoolSpin before it sleeps.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace spgemm {

// How long a pool thread polls for the next call, and the caller for the
// others' ends, before sleeping: longer than the host's work between one
// phase of a split product and the next (20-50 us, spgemm-split-bench), far
// shorter than a numeric phase that the caller synchronizes with.
inline constexpr std::chrono::microseconds kPoolSpin{500};
// How long a body polls for what another body of the same run is making
// before it sleeps: longer than a split product's cut (0.1-0.5 ms), which
// the other parts' bodies wait for (GPU 1's part begins ~9 us after the cut
// is known with the poll, ~29 us with a wait on a future: `spgemm-split-bench
// --devices 0,1 --gen stencil27:64`, traced).
inline constexpr std::chrono::microseconds kPoolAwait{2000};

// Polls (yielding) until ready() holds or `limit` has passed; whether it
// holds.
template <class Ready>
bool poll_for(std::chrono::microseconds limit, Ready&& ready) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until)
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
      std::this_thread::yield();
    }
  return ready();
}

class ThreadPool {
 public:
  ThreadPool() = default;
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Runs body(i) for every i in [0, n) at once, i = 0 on the caller's thread
  // and the others on the pool's (started as needed), each taking the next
  // body not yet taken; a body still untaken once the caller has run body(0)
  // the caller runs itself (a pool thread can take 150-200 us to wake: a
  // split product's analysis on two H200s). Returns once all have ended,
  // rethrowing the first failure. Calls from several threads take turns.
  void run(int n, const std::function<void(int)>& body);

 private:
  void serve();
  // Runs the round's untaken bodies one after the other (m_ held on entry
  // and on return).
  void take(std::unique_lock<std::mutex>& lock);

  std::mutex turn_;  // one run at a time
  std::mutex m_;
  std::condition_variable go_, done_;
  std::vector<std::thread> threads_;  // n - 1 of them for a run of n bodies
  const std::function<void(int)>* body_ = nullptr;
  std::vector<std::exception_ptr> errors_;
  // changed under m_; atomic so that poll_for may read them without it
  std::atomic<uint64_t> round_{0};  // bumped by every run
  std::atomic<int> running_{0};
  std::atomic<bool> stop_{false};
  int n_ = 0, next_ = 0;  // the round's bodies, the next one not taken
};

}  // namespace spgemm
