// SPDX-License-Identifier: Apache-2.0
// Where a real cuSPARSE sparse-matrix descriptor keeps nnz.
//
// cuSPARSE has no public setter for a descriptor's nnz, yet after
// cusparseSpGEMM_compute (or cusparseSpGEMMreuse_nnz) cusparseSpMatGetSize on
// C must give nnz(C), and C must work in every later cuSPARSE call. The
// drop-in finds the field once per process by probing descriptors that the
// real cusparseCreateCsr makes (a host-only call) with distinctive nnz
// values, and writes nnz(C) there, checking each write through the real
// getters. docs/dropin.md describes the probe and its checks.
#pragma once

#include "real_cusparse.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace spgemm_dropin {

struct NnzSlot {
  bool found = false;
  size_t offset = 0;   // byte offset of the int64_t nnz in the descriptor
  std::string detail;  // what the probe saw (found or not)
};

// Runs the probe with the given functions (no caching: real code calls it
// once, tests call it with fake layouts).
NnzSlot probe_nnz_slot(const RealCusparse& real);

// Writes nnz into C's slot. Checks first that the slot holds what the real
// cusparseSpMatGetSize reports for C, then that the getter reports the new
// value and that rows, cols and the array pointers are unchanged; restores
// the old value and returns false (with the reason) otherwise.
bool write_nnz(const RealCusparse& real, const NnzSlot& slot, cusparseSpMatDescr_t C,
               int64_t nnz, std::string* why);

}  // namespace spgemm_dropin
