// SPDX-License-Identifier: Apache-2.0
// An environment variable set for a scope: how tests force a backend's
// choices (SPGEMM_TEST_HOST_ROW_METHOD, SPGEMM_TEST_GPU_CHOICE) and name its
// log (SPGEMM_TEST_GPU_CHOICE_LOG).
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace spgemm_test {

// Sets an environment variable (nullopt: unsets it) for its lifetime.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() { unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

}  // namespace spgemm_test
