// SPDX-License-Identifier: Apache-2.0
// The drop-in's internals without any libcusparse: which requests it takes
// (policy), and the nnz probe against descriptor layouts made up here.
#include "nnz_slot.hpp"
#include "policy.hpp"

#include <catch2/catch.hpp>

#include <complex>
#include <cstring>
#include <map>

using namespace spgemm_dropin;

namespace {

MatInfo csr(int64_t rows, int64_t cols, cusparseIndexType_t index = CUSPARSE_INDEX_32I,
            cudaDataType type = CUDA_R_64F) {
  MatInfo m;
  m.readable = true;
  m.rows = rows;
  m.cols = cols;
  m.nnz = 3;
  static char arrays[64];
  m.offsets = m.columns = m.values = arrays;
  m.offset_type = m.index_type = index;
  m.value_type = type;
  return m;
}

Request plain(cudaDataType type = CUDA_R_64F, cusparseIndexType_t index = CUSPARSE_INDEX_32I) {
  static const double zero[2] = {0, 0}, one[2] = {1, 0};
  Request q;
  q.api = Api::plain;
  q.compute_type = type;
  q.alpha = one;
  q.beta = zero;
  q.a = csr(4, 5, index, type);
  q.b = csr(5, 6, index, type);
  q.c = csr(4, 6, index, type);
  q.c.nnz = 0;
  q.c.offsets = q.c.columns = q.c.values = nullptr;
  return q;
}

}  // namespace

TEST_CASE("policy: what the drop-in takes", "[policy]") {
  for (cudaDataType t : {CUDA_R_32F, CUDA_R_64F, CUDA_C_32F, CUDA_C_64F})
    for (cusparseIndexType_t i : {CUSPARSE_INDEX_32I, CUSPARSE_INDEX_64I}) {
      CHECK(decide(plain(t, i)).take);
    }
  Request q = plain();
  q.alg = CUSPARSE_SPGEMM_ALG1;
  CHECK(decide(q).take);
  q = plain();
  q.api = Api::reuse;
  for (auto alg : {CUSPARSE_SPGEMM_DEFAULT, CUSPARSE_SPGEMM_CSR_ALG_DETERMINITIC,
                   CUSPARSE_SPGEMM_CSR_ALG_NONDETERMINITIC}) {
    q.alg = alg;
    CHECK(decide(q).take);
  }
  // reuse reads no alpha, beta or pointer mode at the decision
  q.alpha = q.beta = nullptr;
  q.pointer_mode = CUSPARSE_POINTER_MODE_DEVICE;
  CHECK(decide(q).take);
  q = plain();
  q.a.base = q.b.base = q.c.base = CUSPARSE_INDEX_BASE_ONE;
  CHECK(decide(q).take);
}

TEST_CASE("policy: what falls back, with its reason", "[policy]") {
  auto reason = [](const Request& q) {
    const Decision d = decide(q);
    CHECK_FALSE(d.take);
    return d.reason;
  };
  Request q = plain();
  q.alg = CUSPARSE_SPGEMM_ALG2;
  CHECK(reason(q) == "algorithm 4");
  q.alg = CUSPARSE_SPGEMM_ALG3;
  CHECK(reason(q) == "algorithm 5");
  q = plain();
  q.alg = CUSPARSE_SPGEMM_CSR_ALG_DETERMINITIC;  // a reuse-only algorithm
  CHECK(reason(q) == "algorithm 1");
  q = plain();
  q.api = Api::reuse;
  q.alg = CUSPARSE_SPGEMM_ALG2;
  CHECK(reason(q) == "algorithm 4");
  q = plain(CUDA_R_16F);
  CHECK(reason(q) == "value type R_16F");
  q = plain(CUDA_R_16BF);
  CHECK(reason(q) == "value type R_16BF");
  q = plain();
  q.compute_type = CUDA_R_32F;
  CHECK(reason(q) == "compute type differs from the value type");
  q = plain();
  q.b.value_type = CUDA_R_32F;
  CHECK(reason(q) == "value types of A, B, C differ");
  q = plain();
  q.a.offset_type = CUSPARSE_INDEX_64I;
  CHECK(reason(q) == "row offsets and column indices of different types");
  q = plain(CUDA_R_64F, CUSPARSE_INDEX_64I);
  q.c.offset_type = q.c.index_type = CUSPARSE_INDEX_32I;
  CHECK(reason(q) == "index types of A, B, C differ");
  q = plain(CUDA_R_64F, CUSPARSE_INDEX_16U);
  CHECK(reason(q) == "16-bit indices");
  q = plain(CUDA_R_64F, CUSPARSE_INDEX_64I);
  q.api = Api::reuse;
  CHECK(reason(q) == "reuse API with indices other than 32-bit");
  q = plain();
  q.b.base = CUSPARSE_INDEX_BASE_ONE;
  CHECK(reason(q) == "index bases of A, B, C differ");
  q = plain();
  q.op_b = CUSPARSE_OPERATION_TRANSPOSE;
  CHECK(reason(q) == "opA/opB other than NON_TRANSPOSE (cuSPARSE's own status)");
  q = plain();
  q.a.format = CUSPARSE_FORMAT_COO;
  CHECK(reason(q) == "a matrix is not CSR");
  q = plain();
  q.c.batches = 2;
  CHECK(reason(q) == "batched matrices");
  q = plain();
  q.b.rows = 7;
  CHECK(reason(q) == "dimensions do not match (cuSPARSE's own status)");
  q = plain();
  q.a.values = nullptr;
  CHECK(reason(q) == "A or B has NULL arrays (cuSPARSE's own status)");
  q = plain();
  q.pointer_mode = CUSPARSE_POINTER_MODE_DEVICE;
  CHECK(reason(q) == "device pointer mode");
  q = plain();
  static const double nonzero = 0.5;
  q.beta = &nonzero;
  CHECK(reason(q) == "beta != 0");
  q = plain();
  q.b.readable = false;
  CHECK(reason(q) == "a matrix descriptor the real getters refuse");
}

TEST_CASE("scalars: zero in every value type", "[policy]") {
  const float f0 = 0.0f, f1 = 1.0f, fm = -0.0f;
  const double d0 = 0.0, d1 = 2.0;
  const std::complex<float> c0(0, 0), ci(0, 1);
  const std::complex<double> z0(0, 0), zr(3, 0);
  CHECK(scalar_is_zero(&f0, CUDA_R_32F));
  CHECK(scalar_is_zero(&fm, CUDA_R_32F));
  CHECK_FALSE(scalar_is_zero(&f1, CUDA_R_32F));
  CHECK(scalar_is_zero(&d0, CUDA_R_64F));
  CHECK_FALSE(scalar_is_zero(&d1, CUDA_R_64F));
  CHECK(scalar_is_zero(&c0, CUDA_C_32F));
  CHECK_FALSE(scalar_is_zero(&ci, CUDA_C_32F));
  CHECK(scalar_is_zero(&z0, CUDA_C_64F));
  CHECK_FALSE(scalar_is_zero(&zr, CUDA_C_64F));
  CHECK_FALSE(scalar_is_zero(nullptr, CUDA_R_64F));
  CHECK(value_bytes(CUDA_C_64F) == 16);
  CHECK(value_bytes(CUDA_R_16F) == 0);
  CHECK(index_bytes(CUSPARSE_INDEX_64I) == 8);
}

// ---- the probe against made-up descriptor layouts -------------------------

namespace {

enum class Layout { single, twin, low_half_copy, cached, absent };
Layout g_layout = Layout::single;
std::map<const void*, int64_t> g_side;  // Layout::cached: what the getters read

struct FakeMat {
  uint64_t magic = 42;
  int64_t rows = 0, cols = 0;
  const void* arrays[3] = {};
  int32_t index = 0, type = 0;
  int64_t nnz = 0;       // at byte 48
  int64_t twin = 0;      // Layout::twin
  int32_t low = 0;       // Layout::low_half_copy
  int32_t pad = 0;
  int64_t nnz_lo = 0, nnz_hi = 0;  // Layout::absent: nnz split in two
  char tail[256] = {};
};

int64_t nnz_of(const FakeMat* m) {
  switch (g_layout) {
    case Layout::cached: return g_side[m];
    case Layout::absent: return m->nnz_lo + m->nnz_hi;
    default: return m->nnz;
  }
}

cusparseStatus_t fake_create(cusparseSpMatDescr_t* d, int64_t rows, int64_t cols, int64_t nnz,
                             void* r, void* c, void* v, cusparseIndexType_t index,
                             cusparseIndexType_t, cusparseIndexBase_t, cudaDataType type) {
  auto* m = new FakeMat;
  m->rows = rows;
  m->cols = cols;
  m->arrays[0] = r;
  m->arrays[1] = c;
  m->arrays[2] = v;
  m->index = index;
  m->type = type;
  if (g_layout == Layout::absent) {
    m->nnz_lo = nnz / 2;
    m->nnz_hi = nnz - nnz / 2;
  } else {
    m->nnz = nnz;
  }
  if (g_layout == Layout::twin) m->twin = nnz;
  if (g_layout == Layout::low_half_copy) m->low = static_cast<int32_t>(nnz);
  if (g_layout == Layout::cached) g_side[m] = nnz;
  *d = reinterpret_cast<cusparseSpMatDescr_t>(m);
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t fake_destroy(cusparseConstSpMatDescr_t d) {
  delete reinterpret_cast<const FakeMat*>(d);
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t fake_size(cusparseConstSpMatDescr_t d, int64_t* rows, int64_t* cols,
                           int64_t* nnz) {
  auto* m = reinterpret_cast<const FakeMat*>(d);
  *rows = m->rows;
  *cols = m->cols;
  *nnz = nnz_of(m);
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t fake_get(cusparseConstSpMatDescr_t d, int64_t* rows, int64_t* cols,
                          int64_t* nnz, const void** r, const void** c, const void** v,
                          cusparseIndexType_t* ri, cusparseIndexType_t* ci,
                          cusparseIndexBase_t* base, cudaDataType* type) {
  auto* m = reinterpret_cast<const FakeMat*>(d);
  fake_size(d, rows, cols, nnz);
  *r = m->arrays[0];
  *c = m->arrays[1];
  *v = m->arrays[2];
  *ri = *ci = static_cast<cusparseIndexType_t>(m->index);
  *base = CUSPARSE_INDEX_BASE_ZERO;
  *type = static_cast<cudaDataType>(m->type);
  return CUSPARSE_STATUS_SUCCESS;
}

RealCusparse fake_table() {
  RealCusparse r;
  r.create_csr = fake_create;
  r.destroy_sp_mat = fake_destroy;
  r.sp_mat_get_size = fake_size;
  r.const_csr_get = fake_get;
  return r;
}

}  // namespace

TEST_CASE("probe: one int64 field holding nnz is found and written", "[probe]") {
  g_layout = Layout::single;
  const RealCusparse real = fake_table();
  const NnzSlot slot = probe_nnz_slot(real);
  REQUIRE(slot.found);
  CHECK(slot.offset == offsetof(FakeMat, nnz));
  cusparseSpMatDescr_t C;
  fake_create(&C, 10, 12, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
              CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
  std::string why;
  REQUIRE(write_nnz(real, slot, C, 77, &why));
  int64_t rows, cols, nnz;
  fake_size(C, &rows, &cols, &nnz);
  CHECK(nnz == 77);
  CHECK(rows == 10);
  // A second write (C computed again) starts from the value written.
  REQUIRE(write_nnz(real, slot, C, 5, &why));
  fake_size(C, &rows, &cols, &nnz);
  CHECK(nnz == 5);
  // A descriptor whose field does not hold what the getter says is refused
  // and left as it was.
  g_layout = Layout::cached;
  g_side[C] = 999;
  CHECK_FALSE(write_nnz(real, slot, C, 6, &why));
  CHECK(why == "C's nnz field does not hold what cusparseConstCsrGet reports");
  CHECK(reinterpret_cast<FakeMat*>(C)->nnz == 5);
  // One whose getter does not follow the field: the old value is restored.
  g_side[C] = 5;
  CHECK_FALSE(write_nnz(real, slot, C, 6, &why));
  CHECK(why == "the written nnz is not what cusparseConstCsrGet reports");
  CHECK(reinterpret_cast<FakeMat*>(C)->nnz == 5);
  g_layout = Layout::single;
  fake_destroy(C);
}

TEST_CASE("probe: two fields holding nnz disable the drop-in", "[probe]") {
  g_layout = Layout::twin;
  const NnzSlot slot = probe_nnz_slot(fake_table());
  CHECK_FALSE(slot.found);
  CHECK(slot.detail == "more than one field holds nnz");
  g_layout = Layout::single;
}

TEST_CASE("probe: a 32-bit copy of nnz disables the drop-in", "[probe]") {
  g_layout = Layout::low_half_copy;
  const NnzSlot slot = probe_nnz_slot(fake_table());
  CHECK_FALSE(slot.found);
  CHECK(slot.detail == "a 32-bit copy of nnz was found beside the 64-bit field");
  g_layout = Layout::single;
}

TEST_CASE("probe: getters that do not read the field disable the drop-in", "[probe]") {
  g_layout = Layout::cached;
  const NnzSlot slot = probe_nnz_slot(fake_table());
  CHECK_FALSE(slot.found);
  CHECK_THAT(slot.detail, Catch::Contains("is not what the real getters report"));
  g_layout = Layout::single;
}

TEST_CASE("probe: no field holding nnz disables the drop-in", "[probe]") {
  g_layout = Layout::absent;
  const NnzSlot slot = probe_nnz_slot(fake_table());
  CHECK_FALSE(slot.found);
  CHECK(slot.detail == "no field holds nnz in every probe descriptor");
  g_layout = Layout::single;
}

TEST_CASE("probe: missing functions disable the drop-in", "[probe]") {
  RealCusparse none;
  const NnzSlot slot = probe_nnz_slot(none);
  CHECK_FALSE(slot.found);
  CHECK(slot.detail == "the real descriptor functions were not found");
}
