#include "core/crew.hpp"

namespace spgemm {

Crew::~Crew() {
  {
    const std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  go_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void Crew::run(int n, const std::function<void(int)>& body) {
  if (n <= 0) return;
  const std::lock_guard<std::mutex> turn(turn_);
  {
    std::unique_lock<std::mutex> lock(m_);
    while (static_cast<int>(threads_.size()) < n - 1) {
      const int index = static_cast<int>(threads_.size()) + 1;
      threads_.emplace_back([this, index] { serve(index); });  // (throws: nothing started)
    }
    body_ = &body;
    errors_.assign(static_cast<size_t>(n), nullptr);
    n_ = n;
    running_ = n - 1;
    ++round_;
  }
  go_.notify_all();
  try {
    body(0);
  } catch (...) {
    errors_[0] = std::current_exception();
  }
  std::unique_lock<std::mutex> lock(m_);
  done_.wait(lock, [&] { return running_ == 0; });
  body_ = nullptr;
  for (const std::exception_ptr& e : errors_)
    if (e) std::rethrow_exception(e);
}

void Crew::serve(int index) {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(m_);
  for (;;) {
    go_.wait(lock, [&] { return stop_ || round_ != seen; });
    if (stop_) return;
    seen = round_;
    if (index >= n_) continue;  // not needed this round
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
    if (--running_ == 0) done_.notify_one();
  }
}

}  // namespace spgemm
