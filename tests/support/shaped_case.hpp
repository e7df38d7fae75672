// SPDX-License-Identifier: Apache-2.0
// A product shaped to reach some path of a backend, C = alpha * A * B
// (+ beta * D), and its values in a test's value type with the oracle's
// results: once as given, once with new values on the same structure (a
// second numeric phase). Used by the tests that force each of a backend's
// choices (test_host_row_methods, test_gpu_kernel_choices), with
// scoped_env.hpp.
#pragma once

#include "csr_host.hpp"
#include "generators.hpp"
#include "reference.hpp"

#include <optional>
#include <string>

namespace spgemm_test {

// The product, in double; `name` says which rows it is shaped for.
struct Shaped {
  std::string name;
  HostCsr<double> A, B;
  std::optional<HostCsr<double>> D;
};

template <class V>
struct ShapedCase {
  std::string name;
  HostCsr<V> A, B, A2, B2;
  std::optional<HostCsr<V>> D, D2;
  ReferenceProduct<V> C, C2;
  static constexpr V alpha = V(-1.5);
  static constexpr V beta = V(0.75);

  explicit ShapedCase(const Shaped& s)
      : name(s.name), A(convert_values<V>(s.A)), B(convert_values<V>(s.B)), A2(A), B2(B) {
    randomize_values(A2, 21);
    randomize_values(B2, 22);
    if (s.D) {
      D = convert_values<V>(*s.D);
      D2 = *D;
      randomize_values(*D2, 23);
    }
    C = reference_spgemm(A, B, alpha, D ? &*D : nullptr, beta);
    C2 = reference_spgemm(A2, B2, alpha, D2 ? &*D2 : nullptr, beta);
  }
};

}  // namespace spgemm_test
