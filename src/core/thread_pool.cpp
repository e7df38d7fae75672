// SPDX-License-Identifier: Apache-2.0
#include "core/thread_pool.hpp"

namespace spgemm {

ThreadPool::~ThreadPool() {
  {
    const std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  go_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadPool::run(int n, const std::function<void(int)>& body) {
  if (n <= 0) return;
  const std::lock_guard<std::mutex> turn(turn_);
  {
    std::unique_lock<std::mutex> lock(m_);
    while (static_cast<int>(threads_.size()) < n - 1)
      threads_.emplace_back([this] { serve(); });  // (throws: nothing started)
    body_ = &body;
    errors_.assign(static_cast<size_t>(n), nullptr);
    n_ = n;
    next_ = 1;
    running_.store(n - 1);
    round_.fetch_add(1);
  }
  go_.notify_all();
  try {
    body(0);
  } catch (...) {
    errors_[0] = std::current_exception();
  }
  std::unique_lock<std::mutex> lock(m_);
  take(lock);  // the bodies no pool thread has taken yet
  lock.unlock();
  poll_for(kPoolSpin, [&] { return running_.load() == 0; });
  lock.lock();
  done_.wait(lock, [&] { return running_.load() == 0; });
  body_ = nullptr;
  for (const std::exception_ptr& e : errors_)
    if (e) std::rethrow_exception(e);
}

void ThreadPool::take(std::unique_lock<std::mutex>& lock) {
  // (the round cannot end while m_ is held: run waits for running_ under it)
  while (next_ < n_) {
    const int index = next_++;
    const std::function<void(int)>* body = body_;
    lock.unlock();
    std::exception_ptr error;
    try {
      (*body)(index);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    errors_[static_cast<size_t>(index)] = error;
    if (running_.fetch_sub(1) == 1) done_.notify_one();
  }
}

void ThreadPool::serve() {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(m_);
  for (;;) {
    const auto called = [&] { return stop_.load() || round_.load() != seen; };
    if (!called()) {
      lock.unlock();
      poll_for(kPoolSpin, called);
      lock.lock();
    }
    go_.wait(lock, called);
    if (stop_) return;
    seen = round_.load();
    take(lock);
  }
}

}  // namespace spgemm
