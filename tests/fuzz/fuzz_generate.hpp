// SPDX-License-Identifier: Apache-2.0
// fuzz_capi's generation of problems from the input bytes, the oracle's copy
// of an operand, and C's arrays (tests/fuzz/fuzz_capi.cpp explains the
// target).
#pragma once

#include "csr_host.hpp"
#include "fuzz_model.hpp"

namespace spgemm_fuzz {

// ---- generation --------------------------------------------------------------

// Mostly 0..9 (empty, 1 x N, N x 1, small), sometimes up to 509 (the host
// backend uses its threads from 256 rows on).
int64_t decode_dim(Bytes& in) {
  const uint8_t b = in.u8();
  return b < 0xF0 ? b % 10 : 10 + in.below(500);
}

// The index layout of the problem: 32/32 mostly, 64/32 or 64/64; zero- or
// one-based.
Decl decode_layout(Bytes& in) {
  const uint8_t v = in.u8();
  Decl d;
  const int kind = v < 0x80 ? 0 : v % 3;
  d.offset_type = kind == 0 ? SPGEMM_INDEX_32I : SPGEMM_INDEX_64I;
  d.index_type = kind == 2 ? SPGEMM_INDEX_64I : SPGEMM_INDEX_32I;
  d.base = v & 0x40 ? SPGEMM_INDEX_BASE_ONE : SPGEMM_INDEX_BASE_ZERO;
  return d;
}

// Valid contents of a rows x cols matrix in m.decl's layout. Row styles:
// random columns (unsorted, repeated), sorted unique, full rows in
// descending order, bands.
void fill_contents(Bytes& in, Operand& m, int64_t rows, int64_t cols) {
  const int64_t base = m.decl.base;
  m.rows = rows;
  m.cols = cols;
  m.offsets.assign(1, base);
  m.col.clear();
  const uint32_t style = in.below(4);
  const int64_t max_len = std::min<int64_t>(32, 2 * cols);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t len = 0;
    if (cols > 0) len = style == 2 ? std::min<int64_t>(cols, 32) : in.below(max_len + 1);
    const size_t begin = m.col.size();
    for (int64_t j = 0; j < len && m.col.size() < kMaxEntries; ++j) {
      if (style == 2)
        m.col.push_back(base + cols - 1 - j);
      else if (style == 3)
        m.col.push_back(base + (r + j) % cols);
      else
        m.col.push_back(base + in.below(static_cast<uint32_t>(cols)));
    }
    if (style == 1) {
      std::sort(m.col.begin() + begin, m.col.end());
      m.col.erase(std::unique(m.col.begin() + begin, m.col.end()), m.col.end());
    }
    m.offsets.push_back(base + static_cast<int64_t>(m.col.size()));
  }
  m.val.resize(m.col.size());
  for (double& v : m.val) v = kValues[in.u8() % 16];
  m.decl.rows = rows;
  m.decl.cols = cols;
  m.decl.nnz = static_cast<int64_t>(m.col.size());
}

// Breaks m's CSR structure in one of the ways the input checks must refuse,
// or makes one of its arrays NULL (refused since before the input checks, so
// also in valid-only mode). Seven of the sixteen choices leave m alone.
void add_defect(Bytes& in, Operand& m) {
  const uint8_t kind = in.u8() % 16;
  if (kind < 7 || (!g_invalid_structures && kind != 15)) return;
  const auto nnz = static_cast<int64_t>(m.col.size());
  const int64_t base = m.decl.base;
  const int64_t small = 1 + in.below(3);
  const bool flag = in.u8() % 2;
  const spgemmIndexType_t ot = m.decl.offset_type, it = m.decl.index_type;
  switch (kind) {
    case 7: {  // lying nnz: the descriptor declares more entries than the arrays hold
      // The offsets end at what the arrays hold and the arrays are allocated
      // to exactly that (Operand::store), so ASan sees any read past them.
      // Only ever with the input checks on (op_input_checks turns them off
      // only for valid contents, which these never become again): without
      // them the behaviour is undefined.
      const uint8_t how = in.u8() % 3;
      m.decl.nnz = how == 0   ? nnz + small
                   : how == 1 ? type_max(ot) - base  // the most the offset type accepts
                              : nnz + (is64(ot) ? int64_t{1} << 36 : 64 * small);
      m.lying_nnz = true;
      break;
    }
    case 8:  // offsets[0] != base
      m.offsets[0] = flag ? base + small : base - small;
      break;
    case 9:  // offsets[rows] != nnz + base, a little or as far as the type goes
      m.offsets.back() = in.u8() % 2 ? type_max(ot) : m.offsets.back() + (flag ? small : -small);
      break;
    case 10:  // offsets decrease after row r, a little or to the type's minimum
      if (m.rows > 0) {
        const uint32_t r = in.below(static_cast<uint32_t>(m.rows));
        m.offsets[r + 1] = flag ? m.offsets[r] - small : type_min(ot);
      }
      break;
    case 11: {  // the descriptor's nnz (the arrays' length) disagrees with offsets[rows]
      const int64_t n = std::max<int64_t>(0, nnz + (flag ? small : -small));
      m.col.resize(static_cast<size_t>(n), base);
      m.val.resize(static_cast<size_t>(n), 1.0);
      m.decl.nnz = n;
      break;
    }
    case 12:  // column >= cols + base
    case 13:  // column < base
    case 14:  // extreme column
      if (nnz > 0) {
        int64_t& c = m.col[in.below(static_cast<uint32_t>(nnz))];
        if (kind == 12) c = m.cols + base + small - 1;
        if (kind == 13) c = base - small;
        if (kind == 14) c = flag ? type_max(it) : type_min(it);
      }
      break;
    default: {  // 15: a NULL array
      const uint8_t which = in.u8() % 3;
      m.null_offsets = which == 0;
      m.null_col = which == 1;
      m.null_val = which == 2;
    }
  }
}

// A lying nnz (add_defect) leaves the arrays holding what the offsets end
// at; a descriptor variant that then changes the declared index base from
// one to zero makes the last offset, read with that base, promise one entry
// more. The checks read min(nnz, rowOffsets[rows] - base) column indices
// (docs/reliability.md): arrays shorter than that, with nnz at least as
// large, are undefined behaviour, which the fuzzer must not produce. The
// arrays get the entries the offsets promise (columns at the base, values 1).
void hold_what_offsets_promise(Operand& m) {
  if (!m.lying_nnz) return;
  const int64_t last = as_stored(m.offsets.back(), m.decl.offset_type) - m.decl.base;
  const int64_t promised = std::min(m.decl.nnz, last);
  if (promised <= static_cast<int64_t>(m.col.size())) return;
  m.col.resize(static_cast<size_t>(promised), m.decl.base);
  m.val.resize(static_cast<size_t>(promised), 1.0);
}

// Valid contents with exactly nnz entries (a descriptor's nnz cannot change
// after creation), spread evenly over the rows. False when impossible.
bool refill_with_nnz(Bytes& in, Operand& m, int64_t nnz) {
  if (nnz > 0 && (m.rows == 0 || m.cols == 0)) return false;
  const int64_t base = m.decl.base;
  for (int64_t r = 0; r <= m.rows; ++r) m.offsets[r] = base + (m.rows ? r * nnz / m.rows : 0);
  m.col.resize(static_cast<size_t>(nnz));
  m.val.resize(static_cast<size_t>(nnz));
  for (int64_t& c : m.col) c = base + in.below(static_cast<uint32_t>(m.cols));
  for (double& v : m.val) v = kValues[in.u8() % 16];
  return true;
}

// Descriptor settings that spgemmCreateCsr or spgemmPlanCreate must refuse
// before reading any array: unknown, unsupported or (against A's) mismatched
// types and layouts, negative or oversized sizes. Unknown enum values stay
// inside the C++ enum's range (0 and 3 for spgemmIndexType_t, 40 for
// cudaDataType): outside it they are undefined behaviour on the C++ side of
// the API, which UBSan reports.
void add_descriptor_variant(Bytes& in, Decl& d) {
  const uint8_t v = in.u8();
  if (v < 0xD0) return;
  const int64_t over = int64_t{INT32_MAX} + 1 + in.below(3);
  const auto flip = [](spgemmIndexType_t t) { return is64(t) ? SPGEMM_INDEX_32I : SPGEMM_INDEX_64I; };
  switch (v % 12) {
    case 0: d.offset_type = flip(d.offset_type); break;
    case 1: d.index_type = flip(d.index_type); break;
    case 2: d.offset_type = static_cast<spgemmIndexType_t>(in.u8() % 2 ? 0 : 3); break;
    case 3:
      d.base = d.base == SPGEMM_INDEX_BASE_ZERO ? SPGEMM_INDEX_BASE_ONE : SPGEMM_INDEX_BASE_ZERO;
      break;
    case 4: {  // listed, never computed on
      const cudaDataType other[] = {CUDA_R_16F, CUDA_C_16F, CUDA_R_16BF, CUDA_C_16BF,
                                    CUDA_C_32F, CUDA_C_64F, CUDA_R_8I,   CUDA_C_8I,
                                    CUDA_R_32I, CUDA_C_32I};
      d.value_type = other[in.u8() % 10];
      break;
    }
    case 5: d.value_type = in.u8() % 2 ? CUDA_R_64I : static_cast<cudaDataType>(40); break;
    case 6: d.value_type = d.value_type == CUDA_R_32F ? CUDA_R_64F : CUDA_R_32F; break;
    case 7: d.rows = -1; break;
    case 8: d.nnz = -1; break;
    case 9: d.rows = over; break;
    case 10: d.cols = over; break;
    default:  // too many entries for 32-bit offsets (64-bit ones hold them: more rows)
      (is64(d.offset_type) ? d.rows : d.nnz) = over;
      break;
  }
}

// ---- the oracle --------------------------------------------------------------

// The contents as the oracle's zero-based 32-bit CSR (valid contents only).
template <class V>
spgemm_test::HostCsr<V> host_copy(const Operand& m) {
  spgemm_test::HostCsr<V> h;
  h.rows = m.rows;
  h.cols = m.cols;
  h.row_offsets.clear();
  for (int64_t o : m.offsets) h.row_offsets.push_back(static_cast<int32_t>(o - m.decl.base));
  for (int64_t c : m.col) h.col_ind.push_back(static_cast<int32_t>(c - m.decl.base));
  h.values.assign(m.val.begin(), m.val.end());
  return h;
}


// ---- C's arrays ----------------------------------------------------------------

// C's arrays in both widths (the descriptor gets those of its types), and the
// pointers last handed to the library.
struct Output {
  Exact<int32_t> off32, col32;
  Exact<int64_t> off64, col64;
  Exact<float> f32;
  Exact<double> f64;
  void *off = nullptr, *col = nullptr, *val = nullptr;

  void* offsets_of(const Decl& d) const {
    return is64(d.offset_type) ? static_cast<void*>(off64.data()) : off32.data();
  }
  void* columns_of(const Decl& d) const {
    return is64(d.index_type) ? static_cast<void*>(col64.data()) : col32.data();
  }
  int64_t offset(const Decl& d, size_t i) const {
    return is64(d.offset_type) ? off64.data()[i] : off32.data()[i];
  }
  int64_t column(const Decl& d, size_t i) const {
    return is64(d.index_type) ? col64.data()[i] : col32.data()[i];
  }
};

}  // namespace spgemm_fuzz
