// SPDX-License-Identifier: Apache-2.0
// Small, portable random numbers for test data.
//
// The standard distributions (uniform_real_distribution, ...) are allowed to
// differ between standard libraries, so a matrix generated from "seed 7" could
// change with the compiler. Everything here is plain integer arithmetic, so a
// seed names the same matrix everywhere.
#pragma once

#include <cstdint>

namespace spgemm_test {

// SplitMix64 finaliser: a good 64-bit mixer, also used to hash (row, col)
// keys into reproducible values.
inline uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Uniform double in [0, 1) from the top 53 bits.
inline double unit_from_bits(uint64_t bits) {
  return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);
}

// A matrix value: magnitude in [0.5, 1.5], random sign, never zero. Non-zero
// values keep "structurally present" and "numerically present" the same
// thing, so a kernel that drops an entry cannot hide behind a zero.
inline double value_from_bits(uint64_t bits) {
  const double magnitude = 0.5 + unit_from_bits(bits);
  return (bits & 1u) ? -magnitude : magnitude;
}

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(mix64(seed ^ 0x5deece66dULL)) {}

  uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  // Uniform integer in [0, n), n > 0. Multiply-shift keeps the bias below
  // 2^-32 for the sizes used here, far below anything a test could notice.
  uint64_t below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }

  double unit() { return unit_from_bits(next()); }
  double value() { return value_from_bits(next()); }

 private:
  uint64_t state_;
};

}  // namespace spgemm_test
