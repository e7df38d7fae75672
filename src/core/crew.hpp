// Host threads kept for running a few bodies at once (the parts of a split
// product: src/multi/): starting a thread costs tens of microseconds, more
// than a part's whole analysis of a small product, so a handle keeps its
// threads from one call to the next.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace spgemm {

class Crew {
 public:
  Crew() = default;
  ~Crew();
  Crew(const Crew&) = delete;
  Crew& operator=(const Crew&) = delete;

  // Runs body(i) for every i in [0, n) at once, i = 0 on the caller's thread
  // and the others on the crew's (started as needed); returns once all have
  // ended, rethrowing the first failure. Calls from several threads take
  // turns.
  void run(int n, const std::function<void(int)>& body);

 private:
  void serve(int index);

  std::mutex turn_;  // one run at a time
  std::mutex m_;
  std::condition_variable go_, done_;
  std::vector<std::thread> threads_;  // threads_[i - 1] runs body(i)
  const std::function<void(int)>* body_ = nullptr;
  std::vector<std::exception_ptr> errors_;
  uint64_t round_ = 0;  // bumped by every run
  int n_ = 0, running_ = 0;
  bool stop_ = false;
};

}  // namespace spgemm
