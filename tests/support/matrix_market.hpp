// SPDX-License-Identifier: Apache-2.0
// Matrix Market I/O for the test matrices (SuiteSparse collection files).
#pragma once

#include <string>
#include <vector>

#include "csr_host.hpp"

namespace spgemm_test {

// Reads a `coordinate` Matrix Market file, plain or gzip'd (detected from
// the content, not the name). Fields real, integer and pattern; symmetry
// general, symmetric and skew-symmetric (the stored triangle is mirrored,
// negated for skew). Pattern entries get reproducible values keyed on
// (row, col), equal across a symmetric mirror. The result has rows sorted by
// column with duplicates summed.
// Throws std::runtime_error "<path>:<line>: <what>" on malformed or
// unsupported input.
HostCsr<double> read_matrix_market(const std::string& path);

// Writes `coordinate real general`, values with round-trip precision.
void write_matrix_market(const std::string& path, const HostCsr<double>& a);

// The *.mtx and *.mtx.gz files directly in dir, sorted by name. Empty when dir
// does not exist; std::runtime_error when it cannot be listed.
std::vector<std::string> matrix_market_files(const std::string& dir);

// The folder of the real matrices: the environment's SPGEMM_MATRIX_DIR where
// set and not empty (binaries run on another machine than they were built
// on), else `configured`, the build's (tests/CMakeLists.txt).
std::string matrix_dir(const char* configured);

}  // namespace spgemm_test
