// SPDX-License-Identifier: Apache-2.0
// fuzz_capi's model of the C API: reporting and status expectations, the
// input byte reader, and the descriptors and arrays of a problem
// (tests/fuzz/fuzz_capi.cpp explains the target).
#pragma once

#include <spgemm/spgemm.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#ifndef SPGEMM_FUZZ_VALID_ONLY
#define SPGEMM_FUZZ_VALID_ONLY 0
#endif

namespace spgemm_fuzz {


inline bool g_invalid_structures = !SPGEMM_FUZZ_VALID_ONLY;  // also break the inputs' structure
inline bool g_trace = false;
// Without a GPU, plans on device-memory descriptors are refused (NO_DEVICE);
// with one they would run the GPU backend on host pointers, so the fuzzer
// never makes them there.
inline bool g_no_gpu = false;

// ---- reporting -------------------------------------------------------------

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz_capi: FINDING: %s\n", what.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

// The message is only built when the check fails.
#define FUZZ_CHECK(condition, message) \
  do {                                 \
    if (!(condition)) finding(message); \
  } while (0)

void trace(const char* what) {
  if (g_trace) std::fprintf(stderr, "%s\n", what);
}

std::string name(spgemmStatus_t s) { return spgemmGetErrorName(s); }

// A set of statuses (bit mask).
struct Expect {
  uint32_t bits;
  explicit Expect(uint32_t mask) : bits(mask) {}
  Expect(spgemmStatus_t s) : bits(1u << static_cast<int>(s)) {}  // NOLINT: implicit on purpose
  Expect operator|(Expect other) const { return Expect(bits | other.bits); }
  bool has(spgemmStatus_t s) const { return (bits >> static_cast<int>(s)) & 1u; }
  bool ok() const { return has(SPGEMM_STATUS_SUCCESS); }
};

// Every call goes through here: its status must be enumerated and predicted,
// and a failure must leave "<function>: <detail>" as the last error message.
spgemmStatus_t check_status(const char* function, spgemmStatus_t got, Expect expected) {
  const int value = static_cast<int>(got);
  if (g_trace) std::fprintf(stderr, "  %s -> %s\n", function, spgemmGetErrorName(got));
  FUZZ_CHECK(value >= SPGEMM_STATUS_SUCCESS && value <= SPGEMM_STATUS_NO_DEVICE,
             std::string(function) + " returned " + std::to_string(value) +
                 ", not a spgemmStatus_t value");
  if (!expected.has(got)) {
    std::string want;
    for (int s = 0; s <= SPGEMM_STATUS_NO_DEVICE; ++s)
      if (expected.has(static_cast<spgemmStatus_t>(s)))
        want += (want.empty() ? "" : " or ") + name(static_cast<spgemmStatus_t>(s));
    finding(std::string(function) + " returned " + name(got) + ", expected " + want +
            (got != SPGEMM_STATUS_SUCCESS
                 ? std::string(" (message: ") + spgemmGetLastErrorMessage() + ")"
                 : std::string()));
  }
  if (got != SPGEMM_STATUS_SUCCESS) {
    const char* message = spgemmGetLastErrorMessage();
    const std::string prefix = std::string(function) + ": ";
    FUZZ_CHECK(message && std::strncmp(message, prefix.c_str(), prefix.size()) == 0 &&
                   std::strlen(message) > prefix.size(),
               std::string(function) + " failed with " + name(got) +
                   " but the last error message is \"" + (message ? message : "(NULL)") + "\"");
  }
  return got;
}

#define CALL(expected, function, ...) check_status(#function, function(__VA_ARGS__), (expected))

// ---- input bytes -----------------------------------------------------------

class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  bool empty() const { return p_ == end_; }
  uint8_t u8() { return p_ == end_ ? 0 : *p_++; }
  // A number in [0, n), n in [1, 65536].
  uint32_t below(uint32_t n) {
    if (n <= 256) return u8() % n;
    const uint32_t low = u8();
    return (low | uint32_t{u8()} << 8) % n;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

// Values and alphas are small dyadic numbers: every product is exact, so the
// only differences to the oracle are summation order (covered by rtol).
constexpr double kValues[16] = {1,    -1,   0.5, 2,    -0.25, 3,  0,     1.5,
                                -2,   0.75, -0.5, 4,   1.25,  -3, 0.125, -1.75};
constexpr double kAlphas[8] = {1, -2.5, 0.5, 0, -1, 2, 3, 0.25};

constexpr size_t kMaxEntries = 4096;  // per operand
constexpr int kMaxCalls = 48;         // per input

// ---- descriptors and arrays ----------------------------------------------------

// An exactly sized heap array (new T[n], also for n == 0, which is not NULL):
// ASan reports any access past the n elements a descriptor promises.
template <class T>
class Exact {
 public:
  Exact() = default;
  explicit Exact(size_t n) : data_(new T[n]()), size_(n) {}
  T* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  std::unique_ptr<T[]> data_;
  size_t size_ = 0;
};

// What a descriptor declares.
struct Decl {
  int64_t rows = 0, cols = 0, nnz = 0;
  spgemmIndexType_t offset_type = SPGEMM_INDEX_32I, index_type = SPGEMM_INDEX_32I;
  spgemmIndexBase_t base = SPGEMM_INDEX_BASE_ZERO;
  cudaDataType value_type = CUDA_R_64F;
};

bool is64(spgemmIndexType_t t) { return t == SPGEMM_INDEX_64I; }
// What an array of type t holds after storing v (a 32-bit one keeps the low
// 32 bits; only descriptors that no plan accepts get values that do not fit).
int64_t as_stored(int64_t v, spgemmIndexType_t t) {
  return is64(t) ? v : static_cast<int64_t>(static_cast<int32_t>(v));
}
int64_t type_max(spgemmIndexType_t t) {
  return is64(t) ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int32_t>::max();
}
int64_t type_min(spgemmIndexType_t t) {
  return is64(t) ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int32_t>::min();
}

bool known_index(spgemmIndexType_t t) { return t == SPGEMM_INDEX_32I || t == SPGEMM_INDEX_64I; }
bool known_op(spgemmOperation_t op) {
  return static_cast<int>(op) <= SPGEMM_OPERATION_CONJUGATE_TRANSPOSE;
}
// The cudaDataTypes spgemmCreateCsr accepts (docs/api.md).
bool listed_type(cudaDataType t) {
  for (cudaDataType l : {CUDA_R_16F, CUDA_C_16F, CUDA_R_16BF, CUDA_C_16BF, CUDA_R_32F, CUDA_C_32F,
                         CUDA_R_64F, CUDA_C_64F, CUDA_R_8I, CUDA_C_8I, CUDA_R_32I, CUDA_C_32I})
    if (t == l) return true;
  return false;
}
bool computed_type(cudaDataType t) {
  return t == CUDA_R_32F || t == CUDA_R_64F || t == CUDA_C_32F || t == CUDA_C_64F;
}

// The bytes of one element as the plans' aliasing checks count them.
size_t index_bytes(spgemmIndexType_t t) { return is64(t) ? 8 : 4; }
size_t value_bytes(cudaDataType t) {
  if (t == CUDA_R_32F) return 4;
  if (t == CUDA_R_64F || t == CUDA_C_32F) return 8;
  return 16;
}

// The bytes [begin, end) of one array as a descriptor declares it (count
// elements of `size` bytes from p): empty for a NULL array or no elements.
// The plans refuse an array of C whose span overlaps an operand's or another
// of C's (docs/reliability.md, "Hostile input").
struct Span {
  uintptr_t begin = 0, end = 0;
  bool overlaps(const Span& other) const { return begin < other.end && other.begin < end; }
};
Span span_of(const void* p, int64_t count, size_t size) {
  if (!p || count <= 0) return {};
  const auto begin = reinterpret_cast<uintptr_t>(p);
  const uintptr_t room = std::numeric_limits<uintptr_t>::max() - begin;
  const unsigned __int128 bytes = static_cast<unsigned __int128>(count) * size;
  return {begin, begin + (bytes > room ? room : static_cast<uintptr_t>(bytes))};
}

// spgemmCreateCsr's checks, in order.
Expect expect_create_csr(const Decl& d) {
  if (d.rows < 0 || d.cols < 0 || d.nnz < 0) return SPGEMM_STATUS_INVALID_VALUE;
  if (!known_index(d.offset_type) || !known_index(d.index_type)) return SPGEMM_STATUS_INVALID_VALUE;
  if (d.base != SPGEMM_INDEX_BASE_ZERO && d.base != SPGEMM_INDEX_BASE_ONE)
    return SPGEMM_STATUS_INVALID_VALUE;
  if (!listed_type(d.value_type)) return SPGEMM_STATUS_INVALID_VALUE;
  return SPGEMM_STATUS_SUCCESS;
}

// One operand (A or B): the contents the fuzzer chose (its own copy, which
// the arrays must still hold after every call, and what the oracle reads),
// what the descriptor declares, and the arrays handed to the library.
// Contents are the values as stored (the index base included): rows + 1
// offsets and decl.nnz columns and values, except for descriptor variants
// that spgemmCreateCsr or spgemmPlanCreate refuse before reading any array.
// The arrays exist in both widths; the descriptor gets those of its types.
// An operand can use another's arrays (B = A): then `shared` points to it.
struct Operand {
  const char* label = "A";
  int64_t rows = 0, cols = 0;
  std::vector<int64_t> offsets{0}, col;
  std::vector<double> val;
  Decl decl;
  bool null_offsets = false, null_col = false, null_val = false;
  bool lying_nnz = false;  // decl.nnz made larger than the arrays (add_defect)
  Exact<int32_t> off32, col32;
  Exact<int64_t> off64, col64;
  Exact<float> f32;
  Exact<double> f64;
  Exact<unsigned char> other;  // value types that are never computed on
  spgemmMatDescr_t desc = nullptr;
  const Operand* shared = nullptr;

  // The arrays as handed to the library (NULL where chosen so).
  const Operand& owner() const { return shared ? *shared : *this; }
  void* offsets_ptr() const {
    const Operand& s = owner();
    if (s.null_offsets) return nullptr;
    return is64(s.decl.offset_type) ? static_cast<void*>(s.off64.data()) : s.off32.data();
  }
  void* col_ptr() const {
    const Operand& s = owner();
    if (s.null_col) return nullptr;
    return is64(s.decl.index_type) ? static_cast<void*>(s.col64.data()) : s.col32.data();
  }
  void* val_ptr() const {
    const Operand& s = owner();
    if (s.null_val) return nullptr;
    if (s.decl.value_type == CUDA_R_32F) return s.f32.data();
    if (s.decl.value_type == CUDA_R_64F) return s.f64.data();
    return s.other.data();
  }

  // Fresh arrays (new addresses) holding the contents.
  void store() {
    off32 = Exact<int32_t>(offsets.size());
    off64 = Exact<int64_t>(offsets.size());
    for (size_t i = 0; i < offsets.size(); ++i) {
      off32.data()[i] = static_cast<int32_t>(offsets[i]);
      off64.data()[i] = offsets[i];
    }
    col32 = Exact<int32_t>(col.size());
    col64 = Exact<int64_t>(col.size());
    for (size_t i = 0; i < col.size(); ++i) {
      col32.data()[i] = static_cast<int32_t>(col[i]);
      col64.data()[i] = col[i];
    }
    f32 = Exact<float>(val.size());
    f64 = Exact<double>(val.size());
    other = Exact<unsigned char>(16 * val.size());  // room for any listed type
    store_values();
  }
  void store_values() {
    for (size_t i = 0; i < val.size(); ++i) {
      f32.data()[i] = static_cast<float>(val[i]);
      f64.data()[i] = val[i];
    }
  }
  // False when the library wrote into the input's arrays.
  bool untouched() const {
    if (shared) return true;  // checked with their owner
    for (size_t i = 0; i < offsets.size(); ++i)
      if (off32.data()[i] != static_cast<int32_t>(offsets[i]) || off64.data()[i] != offsets[i])
        return false;
    for (size_t i = 0; i < col.size(); ++i)
      if (col32.data()[i] != static_cast<int32_t>(col[i]) || col64.data()[i] != col[i]) return false;
    for (size_t i = 0; i < val.size(); ++i)
      if (f32.data()[i] != static_cast<float>(val[i]) || f64.data()[i] != val[i]) return false;
    return true;
  }

  // The declared spans of the arrays handed to the library: row offsets,
  // column indices, values.
  std::vector<Span> spans() const {
    return {span_of(offsets_ptr(), decl.rows + 1, index_bytes(decl.offset_type)),
            span_of(col_ptr(), decl.nnz, index_bytes(decl.index_type)),
            span_of(val_ptr(), decl.nnz, value_bytes(decl.value_type))};
  }
  // How many bytes of the arrays handed to the library (k: 0 row offsets,
  // 1 columns, 2 values) are both allocated and declared: where C's arrays
  // can be pointed to overlap them for sure.
  size_t overlap_room(int k) const {
    const Operand& s = owner();
    const void* p = k == 0 ? offsets_ptr() : k == 1 ? col_ptr() : val_ptr();
    if (!p) return 0;
    size_t allocated = 0;
    if (k == 0) allocated = s.offsets.size() * index_bytes(s.decl.offset_type);
    if (k == 1) allocated = s.col.size() * index_bytes(s.decl.index_type);
    if (k == 2)
      allocated = s.val.size() * (s.decl.value_type == CUDA_R_32F   ? 4
                                  : s.decl.value_type == CUDA_R_64F ? 8
                                                                    : 16);
    const Span declared = spans()[static_cast<size_t>(k)];
    return std::min<size_t>(allocated, declared.end - declared.begin);
  }

  // NULL arrays that plans refuse whatever the input checks (PlanCreate
  // and every phase): a 0 x n matrix without entries needs none.
  bool arrays_missing() const {
    return (!offsets_ptr() && (decl.rows > 0 || decl.nnz > 0)) ||
           (decl.nnz > 0 && (!col_ptr() || !val_ptr()));
  }
  // The structure as the input checks see it: valid contents, or no row
  // offsets at all (a 0 x n matrix without entries; other NULL arrays are
  // refused before the checks, see arrays_missing).
  bool structure_valid() const { return !offsets_ptr() || contents_valid(); }
  // The fuzzer's own check of the contents as the descriptor declares them:
  // offsets start at the base, never decrease and end at nnz + base; columns
  // in [base, cols + base). Unsorted rows and repeated columns are valid.
  // Only meaningful for descriptors a plan accepts.
  bool contents_valid() const {
    const int64_t base = decl.base;
    const auto offset = [&](size_t i) { return as_stored(offsets[i], decl.offset_type); };
    if (offset(0) != base || offset(offsets.size() - 1) != decl.nnz + base) return false;
    for (size_t r = 0; r + 1 < offsets.size(); ++r)
      if (offset(r + 1) < offset(r)) return false;
    for (int64_t c : col) {
      c = as_stored(c, decl.index_type);
      if (c < base || c >= cols + base) return false;
    }
    return true;
  }
};

}  // namespace spgemm_fuzz
