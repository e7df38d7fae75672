// SPDX-License-Identifier: Apache-2.0
// Concurrent use of the library, written once for both memory types (Backend
// as in random_campaign.hpp). Several threads start together, each with its
// own ThreadHandle (its own handle; on the GPU also its own stream), and each
// multiplies its own set of products repeatedly: plan, symbolic, then
// numeric with new values in A and B every time. Every result must equal the
// result of the same product computed alone beforehand on one thread:
// bitwise where Backend::kBitwiseReproducible, else with identical structure
// and values within the oracle's tolerance. Every result is also checked
// against the oracle.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "compare.hpp"
#include "generators.hpp"
#include "random.hpp"
#include "random_cases.hpp"
#include "reference.hpp"

namespace spgemm_test {

struct ConcurrencySettings {
  int threads = 8;
  int passes = 3;  // each thread builds its products anew this many times
  int products_per_thread = 3;
  int rounds = 3;  // value sets per product, each numeric takes the next
};

// Defaults overridden by SPGEMM_CONCURRENCY_THREADS and
// SPGEMM_CONCURRENCY_PASSES (throws std::invalid_argument if malformed).
ConcurrencySettings concurrency_settings_from_env(int default_threads, int default_passes);

// Product j of thread t: a generator spec for j == 0 (larger products, so
// that the threads' work overlaps), a random case otherwise.
HostCsr<double> concurrency_product(int thread, int j, HostCsr<double>* B, std::string* name);

struct ConcurrencyResult {
  int64_t checks = 0;           // results compared (alone and in the threads)
  int64_t expected_checks = 0;  // what a complete run compares
  int max_in_flight = 0;        // most numeric calls seen running at once
  double seconds = 0;           // of the concurrent part
  std::vector<std::string> failures;
  std::string summary(const char* backend, const ConcurrencySettings& s) const;
};

namespace concurrency_detail {

template <class V>
struct Round {
  HostCsr<V> A, B;
  V alpha;
  ReferenceProduct<V> oracle;
  ReferenceProduct<V> alone;  // the single-thread result, with the oracle's bounds
};

template <class V>
struct Job {
  std::string name;
  std::vector<Round<V>> rounds;
};

template <class V>
std::vector<Job<V>> make_jobs(const ConcurrencySettings& s) {
  std::vector<Job<V>> jobs;
  for (int t = 0; t < s.threads; ++t)
    for (int j = 0; j < s.products_per_thread; ++j) {
      Job<V> job;
      HostCsr<double> B;
      const HostCsr<double> A = concurrency_product(t, j, &B, &job.name);
      Rng rng(mix64(static_cast<uint64_t>(t) * 1000 + static_cast<uint64_t>(j)));
      for (int r = 0; r < s.rounds; ++r) {
        Round<V> round{convert_values<V>(A), convert_values<V>(B), V(1), {}, {}};
        if (r > 0) {
          randomize_values(round.A, rng.next());
          randomize_values(round.B, rng.next());
        }
        round.alpha = static_cast<V>(rng.value());
        round.oracle = reference_spgemm(round.A, round.B, round.alpha);
        job.rounds.push_back(std::move(round));
      }
      jobs.push_back(std::move(job));
    }
  return jobs;
}

// "" or what is wrong with C, the result of round r of job.
template <class Backend, class V>
std::string check(const HostCsr<V>& C, const Round<V>& round) {
  std::string diff = compare_csr(C, round.oracle, default_rtol<V>());
  if (!diff.empty()) return "vs the oracle: " + diff;
  diff = Backend::kBitwiseReproducible ? compare_identical(C, round.alone.C)
                                       : compare_csr(C, round.alone, default_rtol<V>());
  return diff.empty() ? diff : "vs the same product alone: " + diff;
}

// The reference results: every job alone, on one thread and one handle.
template <class Backend, class V>
void run_alone(std::vector<Job<V>>& jobs, ConcurrencyResult& result) {
  typename Backend::ThreadHandle thread_handle;
  for (Job<V>& job : jobs) {
    try {
      typename Backend::template Product<V> product(thread_handle.handle(), job.rounds[0].A,
                                                    job.rounds[0].B);
      for (Round<V>& round : job.rounds) {
        product.set_values(round.A, round.B);
        round.alone.C = product.numeric(round.alpha);
        round.alone.abs_bound = round.oracle.abs_bound;
        ++result.checks;
        const std::string diff = compare_csr(round.alone.C, round.oracle, default_rtol<V>());
        if (!diff.empty()) result.failures.push_back(job.name + " alone: vs the oracle: " + diff);
      }
    } catch (const std::exception& e) {
      result.failures.push_back(job.name + " alone: exception: " + e.what());
    }
  }
}

struct ThreadLog {
  int64_t checks = 0;
  std::vector<std::string> failures;
};

template <class Backend, class V>
void run_thread(int t, const ConcurrencySettings& s, const std::vector<Job<V>>& jobs,
                std::atomic<int>& ready, std::atomic<int>& in_flight,
                std::atomic<int>& max_in_flight, ThreadLog& log) {
  using Product = typename Backend::template Product<V>;
  const std::string who = "thread " + std::to_string(t) + ": ";
  ++ready;
  while (ready.load() < s.threads) std::this_thread::yield();  // all start together
  try {
    typename Backend::ThreadHandle thread_handle;
    for (int pass = 0; pass < s.passes && log.failures.size() < 5; ++pass) {
      std::vector<std::unique_ptr<Product>> products;  // all alive at once, on one handle
      for (int j = 0; j < s.products_per_thread; ++j) {
        const Job<V>& job = jobs[static_cast<size_t>(t * s.products_per_thread + j)];
        products.push_back(
            std::make_unique<Product>(thread_handle.handle(), job.rounds[0].A, job.rounds[0].B));
      }
      // Rounds in a rotated order, so that consecutive numeric calls of a
      // product always see new values.
      for (int step = 0; step < s.rounds; ++step)
        for (int j = 0; j < s.products_per_thread; ++j) {
          const Job<V>& job = jobs[static_cast<size_t>(t * s.products_per_thread + j)];
          const Round<V>& round = job.rounds[static_cast<size_t>((step + pass + t) % s.rounds)];
          products[static_cast<size_t>(j)]->set_values(round.A, round.B);
          const int now = ++in_flight;
          for (int seen = max_in_flight.load();
               now > seen && !max_in_flight.compare_exchange_weak(seen, now);) {
          }
          const HostCsr<V> C = products[static_cast<size_t>(j)]->numeric(round.alpha);
          --in_flight;
          ++log.checks;
          const std::string diff = check<Backend>(C, round);
          if (!diff.empty())
            log.failures.push_back(who + job.name + " pass " + std::to_string(pass) + ": " + diff);
        }
    }
  } catch (const std::exception& e) {
    log.failures.push_back(who + "exception: " + e.what());
  }
}

}  // namespace concurrency_detail

template <class Backend, class V>
ConcurrencyResult run_concurrency_campaign(const ConcurrencySettings& s) {
  using namespace concurrency_detail;
  ConcurrencyResult result;
  const int64_t jobs_total = int64_t{s.threads} * s.products_per_thread;
  result.expected_checks = jobs_total * s.rounds * (1 + int64_t{s.passes});
  std::vector<Job<V>> jobs = make_jobs<V>(s);
  run_alone<Backend>(jobs, result);
  if (!result.failures.empty()) return result;  // nothing sound to compare with

  std::atomic<int> ready{0}, in_flight{0}, max_in_flight{0};
  std::vector<ThreadLog> logs(static_cast<size_t>(s.threads));
  const auto start = std::chrono::steady_clock::now();
  {
    std::vector<std::thread> threads;
    try {
      for (int t = 0; t < s.threads; ++t)
        threads.emplace_back(run_thread<Backend, V>, t, std::cref(s), std::cref(jobs),
                             std::ref(ready), std::ref(in_flight), std::ref(max_in_flight),
                             std::ref(logs[static_cast<size_t>(t)]));
    } catch (const std::exception& e) {  // could not start them all: release the others
      ready += s.threads;
      result.failures.push_back(std::string("starting the threads: ") + e.what());
    }
    for (std::thread& thread : threads) thread.join();
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.max_in_flight = max_in_flight.load();
  for (const ThreadLog& log : logs) {
    result.checks += log.checks;
    result.failures.insert(result.failures.end(), log.failures.begin(), log.failures.end());
  }
  return result;
}

}  // namespace spgemm_test
