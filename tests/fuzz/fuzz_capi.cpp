// SPDX-License-Identifier: Apache-2.0
// fuzz_capi: a libFuzzer target over libspgemm's C API on host memory.
//
// Each input decodes into one problem and a sequence of calls on it:
//   - the problem: C = alpha * op(A) * op(B), or + beta * D (an addend of any
//     pattern); a value type, an index layout (32/32, 64/32 or 64/64 bit
//     offsets/columns, zero- or one-based), operations (none, transpose,
//     conjugate transpose, unknown), shapes (0 rows or columns, 1 x N, N x 1,
//     up to 509), A, B and D in CSR with unsorted rows and repeated columns,
//     possibly broken on purpose (row offsets not starting at the base,
//     decreasing or disagreeing with nnz, columns out of range, extreme
//     values, NULL arrays; a lying nnz: a descriptor declaring more entries,
//     up to 2^36 or the offset type's limit, than its offsets end at and its
//     arrays, allocated to exactly that, hold), descriptors with unknown,
//     unsupported or mismatched types and layouts, bad sizes, mismatched
//     shapes or memory types, D missing or equal to C;
//   - the calls: analyze / symbolic / numeric in any order and any number of
//     times, with NULL or foreign handles and plans and NULL outputs, new
//     values, moved or NULL arrays, memory-type changes, input checks off and
//     on, a device allocator, queries, workspace sizes and buffers, plans
//     re-created, handles and plans destroyed in odd orders;
//   - hostile calls (docs/reliability.md, "Hostile input"): aliasing (C's
//     row offsets, column indices or values set into A's, B's or D's arrays,
//     or C's column indices or values into another array of C's: refused by
//     symbolic for C's row offsets, by numeric for all three); shared
//     descriptors (A or B passed as C to spgemmPlanCreate; a second plan on
//     C's descriptor, on other operands or on C's own structure with its rows
//     rotated, whose symbolic phase runs after the first plan's: the first
//     plan's numeric is refused for another nnz(C), and for rows that
//     disagree with C's row offsets); destroyed owners (the plan's handle
//     destroyed and a new one, often at its address, used with the plan).
// A small model of the documented behaviour (docs/api.md, spgemm.h) predicts
// every status, and the target traps (a "crash" for libFuzzer) when
//   - a status is not an enumerated spgemmStatus_t, or not the predicted one;
//   - a failed call leaves no "<function>: <detail>" last-error message, or
//     wrote its output argument, or (symbolic) C's row offsets; or a hostile
//     call was refused for another reason than its own;
//   - a successful symbolic or numeric phase disagrees with the serial oracle
//     (tests/support/reference.hpp, which sums repeated entries), compared
//     with compare_csr; or numeric, repeated on the same values, does not
//     give the same bits (the host backend is deterministic);
//   - the library wrote into A, B or D.
// ASan, UBSan and LeakSanitizer (tests/fuzz/run_fuzz.sh) report the rest.
//
// Environment: SPGEMM_FUZZ_VALID_ONLY=1 keeps the CSR structure of A, B and D
// valid (NULL arrays aside), as does compiling with -DSPGEMM_FUZZ_VALID_ONLY=1;
// SPGEMM_FUZZ_TRACE=1 prints every call and its status (to read a reproducer).
//
// Input format: bytes are read front to back; past the end every byte reads
// 0, which is the ordinary choice everywhere, so the empty input is a valid
// 0 x 0 product run through every phase.
#include <spgemm/spgemm.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "compare.hpp"
#include "csr_host.hpp"
#include "fuzz_generate.hpp"
#include "fuzz_model.hpp"
#include "reference.hpp"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/allocator_interface.h>  // __sanitizer_purge_allocator
#define SPGEMM_FUZZ_ASAN 1
#endif
#endif

namespace {

using namespace spgemm_fuzz;

// ---- one scenario: a problem and the calls on it -------------------------------

enum class Stage { created, analyzed, symbolic_done };
enum Which { kA = 0, kB = 1, kC = 2, kD = 3 };  // the descriptors
constexpr spgemmOperation_t kNoTranspose = SPGEMM_OPERATION_NON_TRANSPOSE;

class Scenario {
 public:
  explicit Scenario(Bytes& in) : in_(in) {}
  ~Scenario() { teardown(); }
  Scenario(const Scenario&) = delete;
  Scenario& operator=(const Scenario&) = delete;

  void run() {
    setup();
    int calls = 0;
    do {
      if (!step()) break;
    } while (!in_.empty() && ++calls < kMaxCalls);
  }

 private:
  // ---- setup: decode the problem, create handles, descriptors and a plan ----
  // C = alpha * op(A) * op(B) (+ beta * D), op(A) m x k, op(B) k x n.
  void setup() {
    type_ = in_.u8() % 2 ? CUDA_R_32F : CUDA_R_64F;
    Decl layout = decode_layout(in_);
    layout.value_type = type_;
    const int64_t m = decode_dim(in_), k = decode_dim(in_), n = decode_dim(in_);
    const uint8_t ops = in_.u8();  // mostly none; T, H (= T for real values), 3: unknown
    if (ops >= 0x80) {
      op_a_ = static_cast<spgemmOperation_t>(ops % 4);
      op_b_ = static_cast<spgemmOperation_t>((ops >> 2) % 4);
    }
    // Shape mismatches: op(B) not k x n, C or D not m x n.
    const uint8_t shape = in_.u8();
    const int64_t kb = k + (shape == 0xFD), mc = m + (shape == 0xFE), nc = n + (shape == 0xFF);
    const uint8_t misc = in_.u8();
    // An addend D (a plan made with spgemmPlanCreateWithAddend); 0xFE and
    // 0xFF pass NULL or C itself as D instead.
    const uint8_t addend = in_.u8();
    has_d_ = addend >= 0xC0;
    d_arg_ = addend == 0xFE ? DArg::null : addend == 0xFF ? DArg::c : DArg::d;

    A_.label = "A";
    B_.label = "B";
    D_.label = "D";
    A_.decl = B_.decl = D_.decl = c_decl_ = layout;
    // A and B are stored in the shapes op() turns into m x k and k x n.
    const bool t_a = transposes(op_a_), t_b = transposes(op_b_);
    fill_contents(in_, A_, t_a ? k : m, t_a ? m : k);
    add_defect(in_, A_);
    // B = A through A's own arrays (squaring, as users do) when A is square.
    alias_ = (misc & 1) && m == k && k == n && kb == k && A_.contents_valid() &&
             !A_.null_offsets && !A_.null_col && !A_.null_val;
    if (alias_) {
      copy_contents(A_, B_);
    } else {
      fill_contents(in_, B_, t_b ? n : kb, t_b ? kb : n);
      add_defect(in_, B_);
    }
    if (has_d_) {
      fill_contents(in_, D_, mc + (shape == 0xFC), nc);
      add_defect(in_, D_);
    }
    // Empty arrays: a zero-length allocation or NULL (both valid).
    for (Operand* op : {&A_, &B_, &D_})
      if (op->decl.nnz == 0 && (misc & 2)) op->null_col = op->null_val = true;

    c_decl_.rows = mc;
    c_decl_.cols = nc;
    c_decl_.nnz = (misc >> 2) & 7;  // overwritten by spgemmSymbolic
    add_descriptor_variant(in_, A_.decl);
    add_descriptor_variant(in_, B_.decl);
    add_descriptor_variant(in_, c_decl_);
    if (has_d_) add_descriptor_variant(in_, D_.decl);
    for (Operand* op : {&A_, &B_, &D_}) hold_what_offsets_promise(*op);
    compute_ = type_;
    if (in_.u8() >= 0xF0) {  // another compute type
      const uint8_t v = in_.u8();
      if (v % 2 == 0) compute_ = v % 4 ? static_cast<cudaDataType>(40) : CUDA_C_64F;
      if (v % 2 == 1) compute_ = type_ == CUDA_R_32F ? CUDA_R_64F : CUDA_R_32F;
    }
    // One descriptor left in device memory (mixed memory types), or all of
    // them where there is no GPU (see g_no_gpu).
    const uint8_t memory_variant = in_.u8();
    const int device_one = memory_variant < 0xF0 ? -1 : memory_variant % 5;

    if (g_trace) {
      describe(A_);
      if (!alias_) describe(B_);
      if (has_d_) describe(D_);
      for (const Operand* op : inputs())
        if (op->lying_nnz && op->decl.nnz > static_cast<int64_t>(op->col.size()))
          std::fprintf(stderr, "shape: lying nnz, %s declares %lld entries, its arrays hold %zu\n",
                       op->label, static_cast<long long>(op->decl.nnz), op->col.size());
      std::fprintf(stderr, "C: %lld x %lld; ops %d %d; compute type %d%s\n",
                   static_cast<long long>(c_decl_.rows), static_cast<long long>(c_decl_.cols),
                   static_cast<int>(op_a_), static_cast<int>(op_b_), static_cast<int>(compute_),
                   alias_ ? "; B = A (shared arrays)" : "");
    }
    trace("setup");
    handle_[0] = create_handle();
    handle_[1] = create_handle();

    A_.store();
    if (alias_)
      B_.shared = &A_;
    else
      B_.store();
    A_.desc = create_descriptor(A_.decl, A_.offsets_ptr(), A_.col_ptr(), A_.val_ptr());
    B_.desc = create_descriptor(B_.decl, B_.offsets_ptr(), B_.col_ptr(), B_.val_ptr());
    if (has_d_) {
      D_.store();
      D_.desc = create_descriptor(D_.decl, D_.offsets_ptr(), D_.col_ptr(), D_.val_ptr());
    }
    c_.off32 = Exact<int32_t>(static_cast<size_t>(mc) + 1);
    c_.off64 = Exact<int64_t>(static_cast<size_t>(mc) + 1);
    c_.off = (misc & 0x20) ? nullptr : c_.offsets_of(c_decl_);
    c_nnz_ = c_decl_.nnz;
    dc_ = create_descriptor(c_decl_, c_.off, nullptr, nullptr);

    for (int i = kA; i <= (has_d_ ? kD : kC); ++i) {
      memory_[i] = SPGEMM_MEMORY_DEVICE;  // the descriptors' default
      if (i != device_one && !(device_one == 4 && g_no_gpu)) set_memory(i, SPGEMM_MEMORY_HOST);
    }
    create_plan(0, false);
  }

  static bool transposes(spgemmOperation_t op) {
    return op == SPGEMM_OPERATION_TRANSPOSE || op == SPGEMM_OPERATION_CONJUGATE_TRANSPOSE;
  }

  spgemmHandle_t create_handle() {
    auto* const sentinel = reinterpret_cast<spgemmHandle_t>(&sentinel_);
    spgemmHandle_t h = sentinel;
    CALL(SPGEMM_STATUS_SUCCESS, spgemmCreate, &h);
    FUZZ_CHECK(h != nullptr && h != sentinel, "spgemmCreate succeeded without a handle");
    return h;
  }

  spgemmMatDescr_t create_descriptor(const Decl& d, void* off, void* col, void* val) {
    auto* const sentinel = reinterpret_cast<spgemmMatDescr_t>(&sentinel_);
    spgemmMatDescr_t desc = sentinel;
    const spgemmStatus_t s = CALL(expect_create_csr(d), spgemmCreateCsr, &desc, d.rows, d.cols,
                                  d.nnz, off, col, val, d.offset_type, d.index_type, d.base,
                                  d.value_type);
    if (s != SPGEMM_STATUS_SUCCESS) {
      FUZZ_CHECK(desc == sentinel, "spgemmCreateCsr failed but wrote its output");
      return nullptr;
    }
    FUZZ_CHECK(desc != nullptr && desc != sentinel, "spgemmCreateCsr succeeded without a descriptor");
    return desc;
  }

  // For SPGEMM_FUZZ_TRACE: an operand's descriptor and contents.
  static void describe(const Operand& m) {
    const Decl& d = m.decl;
    std::fprintf(stderr, "%s: %lld x %lld, nnz %lld, offsets %d-bit, columns %d-bit, base %d, type %d\n",
                 m.label, static_cast<long long>(d.rows), static_cast<long long>(d.cols),
                 static_cast<long long>(d.nnz), is64(d.offset_type) ? 64 : 32,
                 is64(d.index_type) ? 64 : 32, static_cast<int>(d.base),
                 static_cast<int>(d.value_type));
    const auto print = [](const char* what, const auto& v) {
      std::fprintf(stderr, "  %s:", what);
      for (size_t i = 0; i < v.size() && i < 64; ++i) std::fprintf(stderr, " %g", double(v[i]));
      std::fprintf(stderr, v.size() > 64 ? " ...\n" : "\n");
    };
    print("offsets", m.offsets);
    print("columns", m.col);
    print("values", m.val);
  }

  static void copy_contents(const Operand& from, Operand& to) {
    to.rows = from.rows;
    to.cols = from.cols;
    to.offsets = from.offsets;
    to.col = from.col;
    to.val = from.val;
    to.decl.rows = from.decl.rows;
    to.decl.cols = from.decl.cols;
    to.decl.nnz = from.decl.nnz;
  }

  // ---- the model ---------------------------------------------------------------

  spgemmMatDescr_t desc(int i) const {
    return i == kA ? A_.desc : i == kB ? B_.desc : i == kC ? dc_ : D_.desc;
  }
  const Decl& decl(int i) const {
    return i == kA ? A_.decl : i == kB ? B_.decl : i == kC ? c_decl_ : D_.decl;
  }
  // The input operands of this scenario's plans: A, B and, with an addend, D.
  std::vector<const Operand*> inputs() const {
    std::vector<const Operand*> v{&A_, &B_};
    if (has_d_) v.push_back(&D_);
    return v;
  }
  int64_t c_rows() const { return c_decl_.rows; }
  // The value type of C, alpha, beta and the oracle: the compute type (a plan
  // accepts only matrices of that type, which variants can change from the
  // problem's type_ all together).
  bool float_product() const { return compute_ == CUDA_R_32F; }

  // What spgemmPlanCreateWithAddend gets as D.
  spgemmMatDescr_t d_arg() const {
    return d_arg_ == DArg::null ? nullptr : d_arg_ == DArg::c ? dc_ : D_.desc;
  }

  // A descriptor's layout, value type and sizes as a plan checks them
  // (SUCCESS if fine): the layouts 32/32, 64/32, 64/64, each like A's; rows
  // and columns within 32 bits, nnz within the offset type (less the base).
  Expect layout_status(const Decl& x) const {
    if (!is64(x.offset_type) && is64(x.index_type)) return SPGEMM_STATUS_NOT_SUPPORTED;
    if (x.offset_type != A_.decl.offset_type || x.index_type != A_.decl.index_type ||
        x.base != A_.decl.base)
      return SPGEMM_STATUS_NOT_SUPPORTED;
    if (!computed_type(x.value_type)) return SPGEMM_STATUS_NOT_SUPPORTED;
    if (x.rows > INT32_MAX || x.cols > INT32_MAX) return SPGEMM_STATUS_INDEX_OVERFLOW;
    if (x.nnz > type_max(x.offset_type) - x.base) return SPGEMM_STATUS_INDEX_OVERFLOW;
    return SPGEMM_STATUS_SUCCESS;
  }

  // spgemmPlanCreate's (and ...WithAddend's) checks, in the order of
  // docs/api.md and src/plan; as_c: the descriptor passed as C (kA or kB:
  // refused once the layouts are checked, the product is not in place).
  Expect expect_plan_create(spgemmHandle_t h, bool null_out, int as_c = kC,
                            bool* refused_as_c = nullptr) const {
    if (has_d_ && !d_arg()) return SPGEMM_STATUS_NOT_INITIALIZED;
    if (!h) return SPGEMM_STATUS_NOT_INITIALIZED;
    if (null_out) return SPGEMM_STATUS_INVALID_VALUE;
    if (!A_.desc || !B_.desc || !desc(as_c)) return SPGEMM_STATUS_NOT_INITIALIZED;
    if (!known_op(op_a_) || !known_op(op_b_) || !listed_type(compute_))
      return SPGEMM_STATUS_INVALID_VALUE;
    for (int i : {int{kA}, int{kB}, as_c})
      if (decl(i).value_type != compute_) return SPGEMM_STATUS_NOT_SUPPORTED;
    for (int i : {int{kA}, int{kB}, as_c})
      if (!layout_status(decl(i)).ok()) return layout_status(decl(i));
    if (as_c != kC) {
      if (refused_as_c) *refused_as_c = true;
      return SPGEMM_STATUS_INVALID_VALUE;
    }
    if (has_d_) {
      if (d_arg() == dc_) return SPGEMM_STATUS_INVALID_VALUE;
      if (D_.decl.value_type != compute_) return SPGEMM_STATUS_NOT_SUPPORTED;
      if (!layout_status(D_.decl).ok()) return layout_status(D_.decl);
      if (D_.decl.rows != c_decl_.rows || D_.decl.cols != c_decl_.cols)
        return SPGEMM_STATUS_INVALID_VALUE;
      if (memory_[kD] != memory_[kA]) return SPGEMM_STATUS_INVALID_VALUE;
    }
    const bool t_a = transposes(op_a_), t_b = transposes(op_b_);
    const int64_t m = t_a ? A_.decl.cols : A_.decl.rows, k = t_a ? A_.decl.rows : A_.decl.cols;
    const int64_t kb = t_b ? B_.decl.cols : B_.decl.rows, n = t_b ? B_.decl.rows : B_.decl.cols;
    if (k != kb || c_decl_.rows != m || c_decl_.cols != n) return SPGEMM_STATUS_INVALID_VALUE;
    // one memory for all, or C on the host with A and B on the device
    if (memory_[kA] != memory_[kB] ||
        (memory_[kA] != memory_[kC] && memory_[kA] != SPGEMM_MEMORY_DEVICE))
      return SPGEMM_STATUS_INVALID_VALUE;
    for (const Operand* op : inputs())
      if (op->arrays_missing()) return SPGEMM_STATUS_INVALID_VALUE;
    if (memory_[kA] == SPGEMM_MEMORY_DEVICE) return SPGEMM_STATUS_NO_DEVICE;  // see g_no_gpu
    return SPGEMM_STATUS_SUCCESS;
  }

  // The handle and plan arguments of a phase: mostly right, sometimes NULL
  // or the other handle.
  struct Args {
    spgemmHandle_t handle;
    spgemmPlan_t plan;
  };
  Args pick_args() {
    const uint8_t v = in_.u8() % 8;
    const spgemmHandle_t owner = handle_[plan_owner_];
    if (v == 5) return {handle_[1 - plan_owner_], plan_};
    if (v == 6) return {nullptr, plan_};
    if (v == 7) return {owner, nullptr};
    return {owner, plan_};
  }
  // require_plan(): the checks every phase starts with. A plan whose handle
  // was destroyed belongs to no handle there is now (not even to one made
  // at the same address).
  Expect expect_args(const Args& a) const {
    if (!a.handle || !a.plan) return SPGEMM_STATUS_NOT_INITIALIZED;
    if (owner_destroyed_ || a.handle != handle_[plan_owner_]) return SPGEMM_STATUS_INVALID_VALUE;
    return SPGEMM_STATUS_SUCCESS;
  }
  // What every phase refuses whatever the input checks: memory types changed
  // since spgemmPlanCreate, NULL input arrays.
  bool inputs_refused() const {
    for (int i = kA; i <= (has_d_ ? kD : kC); ++i)
      if (memory_[i] != SPGEMM_MEMORY_HOST) return true;
    for (const Operand* op : inputs())
      if (op->arrays_missing()) return true;
    return false;
  }
  // The operand the input checks refuse first (nullptr if none).
  const Operand* refused_structure() const {
    if (!checks_[plan_owner_]) return nullptr;
    for (const Operand* op : inputs())
      if (!op->structure_valid()) return op;
    return nullptr;
  }
  // Whatever NULL arrays come and go later, the inputs' contents are valid.
  bool contents_valid() const {
    for (const Operand* op : inputs())
      if (!op->contents_valid()) return false;
    return true;
  }

  // Whether an array of C as published overlaps an array of A, B or D, or
  // (entries: numeric, C's column indices and values counted too) another
  // of C's, each array as its descriptor declares it. Only asked once the
  // memory types are all host (inputs_refused() is false).
  bool c_overlaps(bool entries) const {
    std::vector<Span> in;
    for (const Operand* op : inputs())
      for (const Span& x : op->spans()) in.push_back(x);
    std::vector<Span> out = {
        span_of(c_.off, c_decl_.rows + 1, index_bytes(c_decl_.offset_type))};
    if (entries) {
      out.push_back(span_of(c_.col, c_nnz_, index_bytes(c_decl_.index_type)));
      out.push_back(span_of(c_.val, c_nnz_, value_bytes(c_decl_.value_type)));
    }
    for (size_t i = 0; i < out.size(); ++i) {
      for (const Span& x : in)
        if (out[i].overlaps(x)) return true;
      for (size_t j = 0; j < i; ++j)
        if (out[i].overlaps(out[j])) return true;
    }
    return false;
  }

  // The host numeric phase writes a row only where C's row offsets hold
  // exactly its entries, inside nnz(C): false if some row of this plan's
  // product disagrees with the offsets in C (another plan's symbolic phase
  // wrote them). Only asked with valid contents and C's offsets set.
  bool rows_agree_with_c() const {
    if (!c_offsets_foreign_) return true;  // this plan's symbolic wrote them, checked then
    const std::vector<int32_t> want = float_product() ? reference<float>(1, 1).C.row_offsets
                                                      : reference<double>(1, 1).C.row_offsets;
    for (int64_t r = 0; r < c_rows(); ++r) {
      const int64_t begin = c_.offset(c_decl_, r) - c_decl_.base;
      const int64_t end = c_.offset(c_decl_, r + 1) - c_decl_.base;
      if (begin < 0 || end - begin != want[r + 1] - want[r] || end > c_nnz_) return false;
    }
    return true;
  }

  void check_message_has(const char* function, const char* part) const {
    const std::string message = spgemmGetLastErrorMessage();
    FUZZ_CHECK(message.find(part) != std::string::npos,
               std::string(function) + " was refused for another reason than \"" + part +
                   "\": " + message);
  }

  void check_inputs_untouched(const char* after) const {
    for (const Operand* op : inputs())
      FUZZ_CHECK(op->untouched(),
                 std::string("the arrays of ") + op->label + " changed during " + after);
  }

  void check_names_operand(const char* function, const Operand& bad) const {
    const std::string message = spgemmGetLastErrorMessage();
    FUZZ_CHECK(message.find(std::string(": ") + bad.label + ": ") != std::string::npos,
               std::string(function) + " refused the structure of " + bad.label +
                   " but the message does not name it: " + message);
  }

  // The oracle's C for the current contents (valid ones only).
  template <class V>
  spgemm_test::ReferenceProduct<V> reference(double alpha, double beta) const {
    spgemm_test::HostCsr<V> a = host_copy<V>(A_), b = host_copy<V>(B_);
    if (transposes(op_a_)) a = spgemm_test::transpose(a);
    if (transposes(op_b_)) b = spgemm_test::transpose(b);
    if (!has_d_) return spgemm_test::reference_spgemm(a, b, static_cast<V>(alpha));
    const spgemm_test::HostCsr<V> d = host_copy<V>(D_);
    return spgemm_test::reference_spgemm(a, b, static_cast<V>(alpha), &d, static_cast<V>(beta));
  }

  // ---- calls ---------------------------------------------------------------------

  // One call decoded from the input; false ends the sequence.
  bool step() {
    switch (in_.u8() % 20) {
      case 0: op_product(); break;  // what an empty input does
      case 1: op_analyze(); break;
      case 2: op_symbolic(); break;
      case 3: op_numeric(); break;
      case 4: op_set_c_arrays(); break;
      case 5: op_move_c_offsets(); break;
      case 6: op_new_values(); break;
      case 7: op_move_operand(); break;
      case 8: op_repair(); break;
      case 9: op_memory_type(); break;
      case 10: op_input_checks(); break;
      case 11: op_allocator(); break;
      case 12: op_queries(); break;
      case 13: op_recreate_plan(); break;
      case 14: op_destroy_plan(); break;
      case 15: return op_destroy_handle_early();
      case 16: op_alias_c(); break;
      case 17: op_operand_as_c(); break;
      case 18: op_second_plan(); break;
      default: op_destroyed_owner(); break;
    }
    return true;
  }

  // symbolic, C's arrays, numeric: a whole product.
  void op_product() {
    trace("product");
    if (symbolic({handle_[plan_owner_], plan_}, false) == SPGEMM_STATUS_SUCCESS) {
      set_c_arrays(false);
      const uint8_t v = in_.u8();
      numeric({handle_[plan_owner_], plan_}, kAlphas[v % 8], false, kAlphas[v / 8 % 8], false,
              has_d_);
    }
  }

  void op_analyze() {
    trace("analyze");
    analyze(pick_args());
  }

  void analyze(const Args& a) {
    Expect e = expect_args(a);
    if (e.ok() && !inputs_refused()) analysis_begun_ = true;  // a failed input check too
    const Operand* bad = nullptr;
    if (e.ok() && inputs_refused()) {
      e = SPGEMM_STATUS_INVALID_VALUE;
    } else if (e.ok() && (bad = refused_structure()) != nullptr) {
      e = SPGEMM_STATUS_INVALID_VALUE;
    }
    const spgemmStatus_t s = CALL(e, spgemmAnalyze, a.handle, a.plan);
    check_inputs_untouched("spgemmAnalyze");
    if (bad) {
      check_names_operand("spgemmAnalyze", *bad);
      stage_ = Stage::created;  // a failed input check leaves the plan not analyzed
    }
    if (s == SPGEMM_STATUS_SUCCESS) stage_ = Stage::analyzed;
  }

  void op_symbolic() {
    trace("symbolic");
    symbolic(pick_args(), in_.u8() % 8 == 7);
  }

  spgemmStatus_t symbolic(const Args& a, bool null_out) {
    Expect e = expect_args(a);
    if (e.ok() && !null_out && !inputs_refused() && c_.off && stage_ == Stage::created)
      analysis_begun_ = true;  // the implicit spgemmAnalyze
    const Operand* bad = nullptr;
    bool overlap = false;
    if (e.ok() && (null_out || inputs_refused() || !c_.off)) {
      e = SPGEMM_STATUS_INVALID_VALUE;
    } else if (e.ok() && stage_ == Stage::created && (bad = refused_structure()) != nullptr) {
      e = SPGEMM_STATUS_INVALID_VALUE;  // the implicit spgemmAnalyze
    } else if (e.ok() && (overlap = c_overlaps(false))) {
      e = SPGEMM_STATUS_INVALID_VALUE;  // C's row offsets in an operand's arrays
    }
    // (the model's own consistency: a symbolic phase expected to write C's
    // row offsets while they point into an operand's array)
    FUZZ_CHECK(!e.ok() || !c_alias_[0], "fuzz model: symbolic expected to write into an operand");
    // Poison C's offsets: a failed call must leave them alone (they are put
    // back afterwards: an earlier symbolic's offsets stay valid), a successful
    // one must write every one of them.
    const size_t n = c_.off32.size();
    const std::vector<int32_t> saved32(c_.off32.data(), c_.off32.data() + n);
    const std::vector<int64_t> saved64(c_.off64.data(), c_.off64.data() + n);
    std::fill(c_.off32.data(), c_.off32.data() + n, -7);
    std::fill(c_.off64.data(), c_.off64.data() + n, -7);
    const int64_t sentinel = -12345;
    int64_t nnz = sentinel;
    const spgemmStatus_t s = CALL(e, spgemmSymbolic, a.handle, a.plan, null_out ? nullptr : &nnz);
    check_inputs_untouched("spgemmSymbolic");
    if (s != SPGEMM_STATUS_SUCCESS) {
      FUZZ_CHECK(nnz == sentinel, "spgemmSymbolic failed but wrote *nnzC");
      for (size_t i = 0; i < n; ++i)
        FUZZ_CHECK(c_.off32.data()[i] == -7 && c_.off64.data()[i] == -7,
                   "a failed spgemmSymbolic wrote C's row offsets");
      std::copy(saved32.begin(), saved32.end(), c_.off32.data());
      std::copy(saved64.begin(), saved64.end(), c_.off64.data());
      if (bad) check_names_operand("spgemmSymbolic", *bad);
      if (overlap) {
        trace("shape: aliasing refused by symbolic");
        check_message_has("spgemmSymbolic", "C's rowOffsets overlaps");
        // the implicit analysis ran before C's arrays were compared
        if (stage_ == Stage::created) stage_ = Stage::analyzed;
      }
      return s;
    }
    stage_ = Stage::symbolic_done;
    c_nnz_ = nnz;
    plan_nnz_ = nnz;
    c_offsets_foreign_ = false;
    check_structure_of_c(nnz);
    int64_t described = -1;
    CALL(SPGEMM_STATUS_SUCCESS, spgemmCsrGet, dc_, nullptr, nullptr, &described, nullptr, nullptr,
         nullptr, nullptr, nullptr, nullptr, nullptr);
    FUZZ_CHECK(described == nnz, "C's descriptor says nnz " + std::to_string(described) +
                                     ", spgemmSymbolic returned " + std::to_string(nnz));
    return s;
  }

  // After a successful symbolic phase: nnz and row offsets (with the index
  // base) as the oracle's.
  void check_structure_of_c(int64_t nnz) const {
    const std::vector<int32_t> want = float_product() ? reference<float>(1, 1).C.row_offsets
                                                      : reference<double>(1, 1).C.row_offsets;
    FUZZ_CHECK(nnz == want.back(), "spgemmSymbolic: nnz(C) " + std::to_string(nnz) +
                                       ", the oracle has " + std::to_string(want.back()));
    for (size_t i = 0; i < want.size(); ++i) {
      const int64_t got = c_.offset(c_decl_, i);
      FUZZ_CHECK(got == want[i] + c_decl_.base,
                 "spgemmSymbolic: C.rowOffsets[" + std::to_string(i) + "] = " +
                     std::to_string(got) + ", the oracle has " +
                     std::to_string(want[i] + c_decl_.base) + " (base included)");
    }
  }

  // spgemmNumeric, or spgemmNumericWithAddend (the one for plans with D:
  // spgemmNumeric refuses those; on other plans beta is ignored).
  void op_numeric() {
    trace("numeric");
    const Args a = pick_args();
    const uint8_t v = in_.u8(), w = in_.u8(), f = in_.u8();
    const bool with_addend = (f % 8 == 7) != has_d_;
    numeric(a, kAlphas[v % 8], v % 9 == 8, kAlphas[w % 8], w % 9 == 8, with_addend);
  }

  void numeric(const Args& a, double alpha, bool null_alpha, double beta, bool null_beta,
               bool with_addend) {
    // C's column indices and values must have nnz(C) entries when set.
    if (c_.col && static_cast<int64_t>(c_.col32.size()) != c_nnz_) set_c_arrays(false);
    Expect e = expect_args(a);
    if (e.ok() && has_d_ && !with_addend) {
      e = SPGEMM_STATUS_INVALID_VALUE;  // spgemmNumeric gives no beta
    } else if (e.ok() && stage_ != Stage::symbolic_done) {
      e = SPGEMM_STATUS_INVALID_STATE;
    } else if (e.ok() && (null_alpha || (has_d_ && null_beta) || inputs_refused() ||
                          (c_nnz_ > 0 && (!c_.col || !c_.val)))) {
      e = SPGEMM_STATUS_INVALID_VALUE;
    } else if (e.ok() && !c_.off) {
      // Numeric reads C's row offsets: NULL ones are refused like every other
      // NULL array (docs/api.md lists only colInd and values for C); with no
      // rows there is nothing to read, and both answers are fine.
      e = c_rows() > 0 ? Expect(SPGEMM_STATUS_INVALID_VALUE)
                       : Expect(SPGEMM_STATUS_INVALID_VALUE) | Expect(SPGEMM_STATUS_SUCCESS);
    }
    // Then what another plan on C's descriptor, or C's arrays set into
    // others, make of C (none of which can happen with no rows).
    const char* refusal = nullptr;  // the part of the message that says why
    const char* shape = nullptr;    // for SPGEMM_FUZZ_TRACE
    if (e.ok() && c_nnz_ != plan_nnz_) {
      refusal = "is C's descriptor shared with another plan?";
      shape = "shape: shared C, numeric refused for another nnz(C)";
    } else if (e.ok() && c_overlaps(true)) {
      refusal = "overlaps";
      shape = "shape: aliasing refused by numeric";
    } else if (e.ok() && !rows_agree_with_c()) {
      refusal = "entries but its row offsets give it";
      shape = "shape: shared C, numeric refused for a row";
    }
    if (refusal) e = SPGEMM_STATUS_INVALID_VALUE;
    FUZZ_CHECK(!e.ok() || c_nnz_ == 0 || (!c_alias_[1] && !c_alias_[2]),
               "fuzz model: numeric expected to write into an array that is not C's");
    // Poison C's columns and values: a successful call must write them all.
    std::fill(c_.col32.data(), c_.col32.data() + c_.col32.size(), INT32_MAX);
    std::fill(c_.col64.data(), c_.col64.data() + c_.col64.size(), INT64_MAX);
    std::fill(c_.f32.data(), c_.f32.data() + c_.f32.size(), std::numeric_limits<float>::quiet_NaN());
    std::fill(c_.f64.data(), c_.f64.data() + c_.f64.size(), std::numeric_limits<double>::quiet_NaN());
    // alpha and beta in the compute type
    const float alpha32 = static_cast<float>(alpha), beta32 = static_cast<float>(beta);
    const void* alpha_ptr = null_alpha        ? nullptr
                            : float_product() ? static_cast<const void*>(&alpha32)
                                              : static_cast<const void*>(&alpha);
    const void* beta_ptr = null_beta         ? nullptr
                           : float_product() ? static_cast<const void*>(&beta32)
                                             : static_cast<const void*>(&beta);
    const spgemmStatus_t s =
        with_addend ? CALL(e, spgemmNumericWithAddend, a.handle, a.plan, alpha_ptr, beta_ptr)
                    : CALL(e, spgemmNumeric, a.handle, a.plan, alpha_ptr);
    check_inputs_untouched("spgemmNumeric");
    if (refusal) {
      trace(shape);
      check_message_has(with_addend ? "spgemmNumericWithAddend" : "spgemmNumeric", refusal);
    }
    if (s != SPGEMM_STATUS_SUCCESS) return;
    if (float_product())
      check_product<float>(c_.f32, alpha, beta);
    else
      check_product<double>(c_.f64, alpha, beta);
    check_repeatable(alpha, has_d_ ? beta : 0);
  }

  // After a successful numeric phase: C (offsets, columns with the index
  // base, values) equals the oracle's product, as compare_csr sees it: same
  // structure, values within its tolerance.
  template <class V>
  void check_product(const Exact<V>& values, double alpha, double beta) const {
    const int64_t base = c_decl_.base;
    spgemm_test::HostCsr<V> got;
    got.rows = c_decl_.rows;
    got.cols = c_decl_.cols;
    got.row_offsets.clear();
    // Zero-based and 32-bit for compare_csr; a value that does not fit is
    // wrong anyway (and must not wrap into a right one).
    const auto narrow = [&](int64_t v, const char* what, int64_t i) {
      FUZZ_CHECK(v >= base && v <= base + INT32_MAX,
                 std::string("spgemmNumeric: C.") + what + "[" + std::to_string(i) +
                     "] = " + std::to_string(v) + " is out of range");
      return static_cast<int32_t>(v - base);
    };
    for (int64_t i = 0; i <= c_rows(); ++i)
      got.row_offsets.push_back(narrow(c_.offset(c_decl_, i), "rowOffsets", i));
    for (int64_t e = 0; e < c_nnz_; ++e) {
      got.col_ind.push_back(narrow(c_.column(c_decl_, e), "colInd", e));
      got.values.push_back(values.data()[e]);
    }
    const std::string diff = spgemm_test::compare_csr(got, reference<V>(alpha, beta),
                                                      spgemm_test::default_rtol<V>());
    FUZZ_CHECK(diff.empty(), "spgemmNumeric: C differs from the oracle: " + diff);
  }

  // The host backend is deterministic (docs/api.md, determinism): numeric on
  // the same values with the same alpha and beta gives the same bits,
  // whatever its threads did.
  void check_repeatable(double alpha, double beta) {
    std::string bits;
    const auto append = [&](const void* p, size_t bytes) {
      bits.append(static_cast<const char*>(p), bytes);
    };
    for (int64_t e = 0; e < c_nnz_; ++e) {
      const int64_t c = c_.column(c_decl_, e);
      append(&c, sizeof c);
      if (float_product())
        append(c_.f32.data() + e, sizeof(float));
      else
        append(c_.f64.data() + e, sizeof(double));
    }
    if (last_.bits && last_.version == contents_version_ && last_.alpha == alpha &&
        last_.beta == beta)
      FUZZ_CHECK(*last_.bits == bits, "spgemmNumeric gave other bits on the same input");
    last_.bits = std::make_unique<std::string>(std::move(bits));
    last_.version = contents_version_;
    last_.alpha = alpha;
    last_.beta = beta;
  }

  // New arrays for C's column indices and values (nnz(C) entries) or NULL ones.
  void op_set_c_arrays() {
    trace("set C arrays");
    set_c_arrays(in_.u8() % 4 == 3);
  }
  void set_c_arrays(bool null_arrays) {
    drop_c_aliases();  // they may point into the arrays replaced here
    // nnz(C) of a real product is at most 509 * 509; larger (declared) values
    // belong to descriptors no plan accepts and get no arrays
    const size_t n = c_nnz_ >= 0 && c_nnz_ <= (1 << 20) ? static_cast<size_t>(c_nnz_) : 0;
    c_.col32 = Exact<int32_t>(n);
    c_.col64 = Exact<int64_t>(n);
    c_.f32 = Exact<float>(float_product() ? n : 0);
    c_.f64 = Exact<double>(float_product() ? 0 : n);
    c_.col = null_arrays ? nullptr : c_.columns_of(c_decl_);
    c_.val = null_arrays       ? nullptr
             : float_product() ? static_cast<void*>(c_.f32.data())
                               : static_cast<void*>(c_.f64.data());
    publish_c();
  }

  // C's row offsets move to new arrays with the same contents (the library
  // must use the new one), or become NULL.
  void op_move_c_offsets() {
    trace("move C offsets");
    const bool to_null = in_.u8() % 4 == 3;
    drop_c_aliases();  // they may point into the arrays replaced here
    Exact<int32_t> moved32(c_.off32.size());
    Exact<int64_t> moved64(c_.off64.size());
    std::copy(c_.off32.data(), c_.off32.data() + c_.off32.size(), moved32.data());
    std::copy(c_.off64.data(), c_.off64.data() + c_.off64.size(), moved64.data());
    c_.off32 = std::move(moved32);
    c_.off64 = std::move(moved64);
    c_.off = to_null ? nullptr : c_.offsets_of(c_decl_);
    publish_c();
  }

  void publish_c() {
    CALL(dc_ ? SPGEMM_STATUS_SUCCESS : SPGEMM_STATUS_NOT_INITIALIZED, spgemmCsrSetPointers, dc_,
         c_.off, c_.col, c_.val);
  }

  // An input operand chosen by a byte: A or B, or D in a scenario with one.
  Operand& pick_operand() {
    const uint8_t v = in_.u8() % 3;
    if (v == 2 && has_d_) return D_;
    return v == 1 && !alias_ ? B_ : A_;  // B's arrays are A's when shared
  }

  // New values for an input, same structure (the values' arrays stay).
  void op_new_values() {
    trace("new values");
    Operand& op = pick_operand();
    for (double& v : op.val) v = kValues[in_.u8() % 16];
    op.store_values();
    if (alias_) B_.val = A_.val;
    ++contents_version_;
  }

  // An input's arrays move to new addresses (the old ones are freed: ASan
  // reports a library that kept them), or one of them becomes NULL, or all
  // are set again.
  void op_move_operand() {
    trace("move operand");
    Operand& op = pick_operand();
    const uint8_t v = in_.u8() % 6;
    op.null_offsets = v == 3;
    op.null_col = v == 4;
    op.null_val = v == 5;
    op.store();
    publish(op);
    drop_c_aliases();  // they may point into the arrays just freed
  }

  void publish(Operand& op) {
    CALL(op.desc ? SPGEMM_STATUS_SUCCESS : SPGEMM_STATUS_NOT_INITIALIZED, spgemmCsrSetPointers,
         op.desc, op.offsets_ptr(), op.col_ptr(), op.val_ptr());
    if (alias_ && &op == &A_)
      CALL(B_.desc ? SPGEMM_STATUS_SUCCESS : SPGEMM_STATUS_NOT_INITIALIZED, spgemmCsrSetPointers,
           B_.desc, B_.offsets_ptr(), B_.col_ptr(), B_.val_ptr());
  }

  // A broken input gets valid contents with its nnz (the plan stays usable
  // after the input checks refused it).
  void op_repair() {
    trace("repair");
    for (Operand* input : {&A_, &B_, &D_}) {
      Operand& op = *input;
      if ((&op == &D_ && !has_d_) || op.contents_valid() || alias_) continue;
      if (op.decl.rows != op.rows || op.decl.cols != op.cols ||
          op.decl.nnz != static_cast<int64_t>(op.col.size()))
        continue;  // a descriptor variant no plan accepts
      if (!refill_with_nnz(in_, op, op.decl.nnz)) continue;
      op.null_offsets = op.null_col = op.null_val = false;
      op.store();
      publish(op);
      drop_c_aliases();  // they may point into the arrays just freed
      ++contents_version_;
    }
  }

  void op_memory_type() {
    trace("memory type");
    const int i = in_.u8() % (has_d_ ? 4 : 3);
    const spgemmMemoryType_t m = in_.u8() % 2 ? SPGEMM_MEMORY_DEVICE : SPGEMM_MEMORY_HOST;
    set_memory(i, m);
  }

  void set_memory(int i, spgemmMemoryType_t m) {
    const spgemmMatDescr_t d = desc(i);
    const Expect e = d ? Expect(SPGEMM_STATUS_SUCCESS) : Expect(SPGEMM_STATUS_NOT_INITIALIZED);
    if (CALL(e, spgemmCsrSetMemoryType, d, m) == SPGEMM_STATUS_SUCCESS) memory_[i] = m;
    // starts as the other type: an unwritten output shows
    spgemmMemoryType_t got =
        memory_[i] == SPGEMM_MEMORY_HOST ? SPGEMM_MEMORY_DEVICE : SPGEMM_MEMORY_HOST;
    if (CALL(e, spgemmCsrGetMemoryType, d, &got) == SPGEMM_STATUS_SUCCESS)
      FUZZ_CHECK(got == memory_[i], "spgemmCsrGetMemoryType disagrees with the last set");
  }

  // Input checks off (only while the inputs are valid: invalid input is then
  // undefined behaviour), on again, or read back.
  void op_input_checks() {
    trace("input checks");
    const uint8_t v = in_.u8();
    const int which = v % 3;  // handle 0, handle 1, NULL
    const spgemmHandle_t h = which < 2 ? handle_[which] : nullptr;
    const Expect e = h ? Expect(SPGEMM_STATUS_SUCCESS) : Expect(SPGEMM_STATUS_NOT_INITIALIZED);
    switch ((v >> 2) % 4) {
      case 0:
        if (contents_valid()) {
          if (CALL(e, spgemmSetInputChecks, h, 0) == SPGEMM_STATUS_SUCCESS) checks_[which] = false;
          break;
        }
        [[fallthrough]];
      case 1: {
        const int on[] = {1, -3, 7, INT32_MIN};  // any non-zero turns them on
        if (CALL(e, spgemmSetInputChecks, h, on[v >> 6]) == SPGEMM_STATUS_SUCCESS)
          checks_[which] = true;
        break;
      }
      case 2: {
        int enabled = -1;
        if (CALL(e, spgemmGetInputChecks, h, &enabled) == SPGEMM_STATUS_SUCCESS)
          FUZZ_CHECK(enabled == (checks_[which] ? 1 : 0), "spgemmGetInputChecks disagrees");
        break;
      }
      default:
        CALL(h ? SPGEMM_STATUS_INVALID_VALUE : SPGEMM_STATUS_NOT_INITIALIZED, spgemmGetInputChecks,
             h, nullptr);
    }
  }

  // The host backend never asks for device memory.
  static int trap_alloc(void*, void**, size_t, cudaStream_t) {
    finding("the host backend called the device allocator");
  }
  static void trap_free(void*, void*, size_t, cudaStream_t) {
    finding("the host backend called the device free function");
  }

  void op_allocator() {
    trace("allocator");
    const uint8_t v = in_.u8();
    const spgemmHandle_t h = v % 4 == 3 ? nullptr : handle_[v % 2];
    const int kind = (v >> 2) % 4;  // both, none, alloc only, free only
    const spgemmDeviceAllocFn alloc = kind == 0 || kind == 2 ? trap_alloc : nullptr;
    const spgemmDeviceFreeFn free_fn = kind == 0 || kind == 3 ? trap_free : nullptr;
    const Expect e = !h         ? Expect(SPGEMM_STATUS_NOT_INITIALIZED)
                     : kind >= 2 ? Expect(SPGEMM_STATUS_INVALID_VALUE)
                                 : Expect(SPGEMM_STATUS_SUCCESS);
    CALL(e, spgemmSetDeviceAllocator, h, alloc, free_fn, this);
  }

  void op_queries() {
    trace("queries");
    const uint8_t v = in_.u8();
    const spgemmHandle_t h = v & 0x80 ? nullptr : handle_[(v >> 6) & 1];
    const Expect needs_h = h ? Expect(SPGEMM_STATUS_SUCCESS) : Expect(SPGEMM_STATUS_NOT_INITIALIZED);
    switch (v % 10) {
      case 0: query_descriptor(in_.u8() % (has_d_ ? 4 : 3), in_.u8()); break;
      case 5: workspace_size(); break;
      case 6: set_workspace(); break;
      case 7: row_blocks(); break;
      case 8: replica(in_.u8() % (has_d_ ? 4 : 3), in_.u8()); break;
      case 1: {  // no device workspace on the host backend
        size_t current = 99, peak = 99;
        const uint8_t which = in_.u8() % 4;  // both, current, peak, neither
        size_t* cur_ptr = which == 0 || which == 1 ? &current : nullptr;
        size_t* peak_ptr = which == 0 || which == 2 ? &peak : nullptr;
        const Expect e = !h         ? Expect(SPGEMM_STATUS_NOT_INITIALIZED)
                         : which == 3 ? Expect(SPGEMM_STATUS_INVALID_VALUE)
                                      : Expect(SPGEMM_STATUS_SUCCESS);
        if (CALL(e, spgemmGetMemoryUsage, h, cur_ptr, peak_ptr) == SPGEMM_STATUS_SUCCESS)
          FUZZ_CHECK((!cur_ptr || current == 0) && (!peak_ptr || peak == 0),
                     "device workspace in use on a handle that only ran the host backend");
        CALL(needs_h, spgemmResetPeakMemoryUsage, h);
        break;
      }
      case 2: {
        cudaStream_t s = reinterpret_cast<cudaStream_t>(&sentinel_);
        CALL(needs_h, spgemmSetStream, h, nullptr);
        if (CALL(needs_h, spgemmGetStream, h, &s) == SPGEMM_STATUS_SUCCESS)
          FUZZ_CHECK(s == nullptr, "spgemmGetStream disagrees with spgemmSetStream");
        CALL(h ? SPGEMM_STATUS_INVALID_VALUE : SPGEMM_STATUS_NOT_INITIALIZED, spgemmGetStream, h,
             nullptr);
        break;
      }
      case 3: {
        const int s = in_.u8() % 16;  // 10..15: unknown, inside the enum's range
        const std::string n = spgemmGetErrorName(static_cast<spgemmStatus_t>(s));
        const char* text = spgemmGetErrorString(static_cast<spgemmStatus_t>(s));
        FUZZ_CHECK(text && *text, "spgemmGetErrorString gave an empty string");
        FUZZ_CHECK((n == "SPGEMM_STATUS_UNKNOWN") == (s > SPGEMM_STATUS_NO_DEVICE),
                   "spgemmGetErrorName(" + std::to_string(s) + ") = " + n);
        break;
      }
      case 4: {
        int version = -1;
        CALL(SPGEMM_STATUS_SUCCESS, spgemmGetVersion, &version);
        FUZZ_CHECK(version == SPGEMM_VERSION, "spgemmGetVersion disagrees with spgemm.h");
        CALL(SPGEMM_STATUS_INVALID_VALUE, spgemmGetVersion, nullptr);
        break;
      }
      default: {
        int64_t rows = -1;
        CALL(SPGEMM_STATUS_NOT_INITIALIZED, spgemmCsrGet, nullptr, &rows, nullptr, nullptr,
             nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
        FUZZ_CHECK(rows == -1, "a failed spgemmCsrGet wrote an output");
        const spgemmMatDescr_t d = desc(in_.u8() % 3);
        CALL(d ? SPGEMM_STATUS_INVALID_VALUE : SPGEMM_STATUS_NOT_INITIALIZED,
             spgemmCsrGetMemoryType, d, nullptr);
      }
    }
  }

  // spgemmCsrGet with the outputs in mask (the others NULL): the declared
  // fields, the pointers last set, and for C the nnz of the last symbolic.
  void query_descriptor(int i, uint8_t mask) {
    const spgemmMatDescr_t d = desc(i);
    const Decl& x = decl(i);
    const Operand* op = i == kA ? &A_ : i == kB ? &B_ : i == kD ? &D_ : nullptr;
    const void* want_ptr[3] = {op ? op->offsets_ptr() : c_.off, op ? op->col_ptr() : c_.col,
                               op ? op->val_ptr() : c_.val};
    int64_t rows = -1, cols = -1, nnz = -1;
    void* ptr[3] = {&sentinel_, &sentinel_, &sentinel_};
    spgemmIndexType_t offset_type = SPGEMM_INDEX_32I, index_type = SPGEMM_INDEX_32I;
    spgemmIndexBase_t base = SPGEMM_INDEX_BASE_ZERO;
    cudaDataType value_type = CUDA_R_64F;
    const auto on = [&](int bit) { return (mask >> bit) & 1; };
    const spgemmStatus_t s = CALL(
        d ? SPGEMM_STATUS_SUCCESS : SPGEMM_STATUS_NOT_INITIALIZED, spgemmCsrGet, d,
        on(0) ? &rows : nullptr, on(0) ? &cols : nullptr, on(1) ? &nnz : nullptr,
        on(2) ? &ptr[0] : nullptr, on(2) ? &ptr[1] : nullptr, on(3) ? &ptr[2] : nullptr,
        on(4) ? &offset_type : nullptr, on(4) ? &index_type : nullptr, on(5) ? &base : nullptr,
        on(6) ? &value_type : nullptr);
    if (s != SPGEMM_STATUS_SUCCESS) return;
    const int64_t want_nnz = i == kC ? c_nnz_ : x.nnz;
    FUZZ_CHECK(!on(0) || (rows == x.rows && cols == x.cols), "spgemmCsrGet: sizes");
    FUZZ_CHECK(!on(1) || nnz == want_nnz, "spgemmCsrGet: nnz " + std::to_string(nnz) +
                                              ", expected " + std::to_string(want_nnz));
    FUZZ_CHECK(!on(2) || (ptr[0] == want_ptr[0] && ptr[1] == want_ptr[1]), "spgemmCsrGet: arrays");
    FUZZ_CHECK(!on(3) || ptr[2] == want_ptr[2], "spgemmCsrGet: values array");
    FUZZ_CHECK(!on(4) || (offset_type == x.offset_type && index_type == x.index_type),
               "spgemmCsrGet: index types");
    FUZZ_CHECK(!on(5) || base == x.base, "spgemmCsrGet: index base");
    FUZZ_CHECK(!on(6) || value_type == x.value_type, "spgemmCsrGet: value type");
  }

  // A replica set on a descriptor (its own arrays, or NULLs as the input
  // says, for a device in [-2, 17]), read back, and removed again: the
  // descriptor holds none between ops, so it never fills up.
  void replica(int i, uint8_t v) {
    const spgemmMatDescr_t d = desc(i);
    const Operand* op = i == kA ? &A_ : i == kB ? &B_ : i == kD ? &D_ : nullptr;
    void* arrays[3] = {const_cast<void*>(op ? op->offsets_ptr() : c_.off),
                       const_cast<void*>(op ? op->col_ptr() : c_.col),
                       const_cast<void*>(op ? op->val_ptr() : c_.val)};
    for (int k = 0; k < 3; ++k)
      if ((v >> k) & 1) arrays[k] = nullptr;
    const int device = static_cast<int>((v >> 3) % 20) - 2;
    const int64_t nnz = i == kC ? c_nnz_ : decl(i).nnz;
    const bool removal = !arrays[0];
    const bool half_given = !removal && nnz > 0 && (!arrays[1] || !arrays[2]);
    const Expect e = !d                        ? Expect(SPGEMM_STATUS_NOT_INITIALIZED)
                     : device < 0 || half_given ? Expect(SPGEMM_STATUS_INVALID_VALUE)
                                                : Expect(SPGEMM_STATUS_SUCCESS);
    if (CALL(e, spgemmCsrSetReplica, d, device, arrays[0], arrays[1], arrays[2]) !=
        SPGEMM_STATUS_SUCCESS)
      return;
    void* got[3] = {&sentinel_, &sentinel_, &sentinel_};
    CALL(SPGEMM_STATUS_SUCCESS, spgemmCsrGetReplica, d, device, &got[0], &got[1], &got[2]);
    FUZZ_CHECK(removal ? !got[0] && !got[1] && !got[2]
                       : got[0] == arrays[0] && got[1] == arrays[1] && got[2] == arrays[2],
               "spgemmCsrGetReplica disagrees with spgemmCsrSetReplica");
    CALL(SPGEMM_STATUS_SUCCESS, spgemmCsrSetReplica, d, device, nullptr, nullptr, nullptr);
    CALL(SPGEMM_STATUS_SUCCESS, spgemmCsrGetReplica, d, device, &got[0], &got[1], &got[2]);
    FUZZ_CHECK(!got[0] && !got[1] && !got[2], "a removed replica is still there");
  }

  // Host plans need no device workspace; they take a buffer (and never use
  // it) only before their first analysis.
  void workspace_size() {
    const Args a = pick_args();
    const bool null_out = in_.u8() % 8 == 7;
    Expect e = expect_args(a);
    if (e.ok() && null_out) e = SPGEMM_STATUS_INVALID_VALUE;
    size_t bytes = 99;
    if (CALL(e, spgemmPlanGetWorkspaceSize, a.handle, a.plan, null_out ? nullptr : &bytes) ==
        SPGEMM_STATUS_SUCCESS)
      FUZZ_CHECK(bytes == 0, "a host-memory plan asks for device workspace");
    else
      FUZZ_CHECK(bytes == 99, "spgemmPlanGetWorkspaceSize failed but wrote its output");
  }

  // The row blocks of a host plan's C, which is never distributed (whatever
  // the handle's setting, a handle without devices); the setting's round trip.
  void row_blocks() {
    const Args a = pick_args();
    const uint8_t v = in_.u8();
    const int capacity = v % 4 == 3 ? -1 : v % 4;
    const bool null_blocks = (v & 4) != 0, null_count = (v & 8) != 0;
    spgemmRowBlock_t blocks[2];
    int count = 99;
    Expect e = expect_args(a);
    if (e.ok() && (null_count || capacity < 0 || (capacity > 0 && null_blocks)))
      e = SPGEMM_STATUS_INVALID_VALUE;
    else if (e.ok())
      e = SPGEMM_STATUS_INVALID_STATE;
    CALL(e, spgemmPlanGetRowBlocks, a.handle, a.plan, capacity, null_blocks ? nullptr : blocks,
         null_count ? nullptr : &count);
    FUZZ_CHECK(count == 99, "a failed spgemmPlanGetRowBlocks wrote its count");
    if (!a.handle) return;
    const int want = (v & 16) ? 1 : 0;
    int on = -1;
    CALL(SPGEMM_STATUS_SUCCESS, spgemmSetOutputDistributed, a.handle, want);
    CALL(SPGEMM_STATUS_SUCCESS, spgemmGetOutputDistributed, a.handle, &on);
    FUZZ_CHECK(on == want, "spgemmGetOutputDistributed disagrees with spgemmSetOutputDistributed");
  }

  void set_workspace() {
    alignas(256) static unsigned char buffer[512];
    const Args a = pick_args();
    const uint8_t v = in_.u8();
    unsigned char* const choices[4] = {buffer, nullptr, buffer + 8, buffer + 256};
    unsigned char* const b = choices[v % 4];
    const size_t bytes = v & 4 ? 256 : 0;
    Expect e = expect_args(a);
    if (e.ok() && analysis_begun_)
      e = SPGEMM_STATUS_INVALID_STATE;
    else if (e.ok() && ((!b && bytes != 0) || b == buffer + 8))
      e = SPGEMM_STATUS_INVALID_VALUE;
    CALL(e, spgemmPlanSetWorkspace, a.handle, a.plan, b, bytes);
  }

  // A new plan on the same descriptors, maybe with the other handle or a NULL
  // output. A and B both in device memory (a GPU plan, whatever C's memory)
  // only without a GPU (g_no_gpu).
  void op_recreate_plan() {
    trace("recreate plan");
    if (!g_no_gpu && memory_[kA] == SPGEMM_MEMORY_DEVICE && memory_[kB] == SPGEMM_MEMORY_DEVICE)
      return;
    const uint8_t v = in_.u8();
    CALL(SPGEMM_STATUS_SUCCESS, spgemmPlanDestroy, plan_);
    plan_ = nullptr;
    create_plan(v % 4 == 3 ? 1 : 0, v % 16 == 15);
  }

  void create_plan(int owner, bool null_out) {
    auto* const sentinel = reinterpret_cast<spgemmPlan_t>(&sentinel_);
    spgemmPlan_t p = sentinel;
    spgemmPlan_t* out = null_out ? nullptr : &p;
    const Expect e = expect_plan_create(handle_[owner], null_out);
    const spgemmStatus_t s =
        has_d_ ? CALL(e, spgemmPlanCreateWithAddend, handle_[owner], out, op_a_, op_b_, A_.desc,
                      B_.desc, d_arg(), dc_, compute_)
               : CALL(e, spgemmPlanCreate, handle_[owner], out, op_a_, op_b_, A_.desc, B_.desc,
                      dc_, compute_);
    plan_owner_ = owner;
    if (s != SPGEMM_STATUS_SUCCESS) {
      FUZZ_CHECK(p == sentinel, "spgemmPlanCreate failed but wrote its output");
      return;
    }
    FUZZ_CHECK(p && p != sentinel, "spgemmPlanCreate succeeded without a plan");
    plan_ = p;
    stage_ = Stage::created;
    analysis_begun_ = false;
    owner_destroyed_ = false;
  }

  // ---- hostile calls (docs/reliability.md, "Hostile input") -----------------------

  // Aliasing: some of C's arrays set (spgemmCsrSetPointers) into an array of
  // A, B or D, or C's column indices or values into another array of C's,
  // at a 16-byte multiple inside what that array both declares and has
  // allocated (so the declared spans overlap whatever nnz(C) comes, unless
  // C's column indices and values have none). The library must refuse
  // every phase that would write there (see c_overlaps) and never write
  // into A, B or D; C's own arrays come back when an array pointed into
  // moves (drop_c_aliases).
  void op_alias_c() {
    trace("alias C");
    const uint8_t v = in_.u8();
    const int mask = v % 7 + 1;  // which of C's row offsets, column indices, values
    struct Target {
      void* p;
      size_t bytes;
    };
    std::vector<Target> operand_arrays;
    for (const Operand* op : inputs())
      for (int k = 0; k < 3; ++k) {
        const void* p = k == 0 ? op->offsets_ptr() : k == 1 ? op->col_ptr() : op->val_ptr();
        if (const size_t room = op->overlap_room(k))
          operand_arrays.push_back({const_cast<void*>(p), room});
      }
    for (int k = 0; k < 3; ++k) {
      if (!((mask >> k) & 1)) continue;
      std::vector<Target> targets = operand_arrays;
      // C's row offsets only into the operands (symbolic writes them where
      // they are unless they overlap an operand's array); the others also
      // into another of C's own arrays
      if (k >= 1) {
        targets.push_back({c_.offsets_of(c_decl_),
                           c_.off32.size() * index_bytes(c_decl_.offset_type)});
        if (k == 1) targets.push_back({own_c_values(), c_.col32.size() * value_bytes(compute_)});
        if (k == 2)
          targets.push_back(
              {c_.columns_of(c_decl_), c_.col32.size() * index_bytes(c_decl_.index_type)});
      }
      targets.erase(std::remove_if(targets.begin(), targets.end(),
                                   [](const Target& t) { return t.bytes == 0; }),
                    targets.end());
      if (targets.empty()) continue;
      const Target& t = targets[in_.u8() % targets.size()];
      void* const p = static_cast<unsigned char*>(t.p) + 16 * (in_.u8() % ((t.bytes + 15) / 16));
      (k == 0 ? c_.off : k == 1 ? c_.col : c_.val) = p;
      c_alias_[k] = true;
    }
    if (g_trace)
      std::fprintf(stderr, "shape: aliasing, C's arrays %s%s%s set into others\n",
                   c_alias_[0] ? "rowOffsets " : "", c_alias_[1] ? "colInd " : "",
                   c_alias_[2] ? "values " : "");
    publish_c();
  }

  void* own_c_values() const {
    return float_product() ? static_cast<void*>(c_.f32.data()) : static_cast<void*>(c_.f64.data());
  }

  // C's arrays set into others go back to C's own.
  void drop_c_aliases() {
    if (!c_alias_[0] && !c_alias_[1] && !c_alias_[2]) return;
    if (c_alias_[0]) c_.off = c_.offsets_of(c_decl_);
    if (c_alias_[1]) c_.col = c_.columns_of(c_decl_);
    if (c_alias_[2]) c_.val = own_c_values();
    c_alias_[0] = c_alias_[1] = c_alias_[2] = false;
    trace("C's own arrays again");
    publish_c();
  }

  // Shared descriptors: A or B passed as C, refused by spgemmPlanCreate
  // (the plan in use stays).
  void op_operand_as_c() {
    const uint8_t v = in_.u8();
    const int as_c = v % 2 ? kB : kA;
    trace(as_c == kA ? "shape: A passed as C" : "shape: B passed as C");
    const spgemmHandle_t h = handle_[(v >> 1) & 1];
    auto* const sentinel = reinterpret_cast<spgemmPlan_t>(&sentinel_);
    spgemmPlan_t p = sentinel;
    bool refused_as_c = false;
    const Expect e = expect_plan_create(h, false, as_c, &refused_as_c);
    const spgemmStatus_t s =
        has_d_ ? CALL(e, spgemmPlanCreateWithAddend, h, &p, op_a_, op_b_, A_.desc, B_.desc,
                      d_arg(), desc(as_c), compute_)
               : CALL(e, spgemmPlanCreate, h, &p, op_a_, op_b_, A_.desc, B_.desc, desc(as_c),
                      compute_);
    FUZZ_CHECK(s != SPGEMM_STATUS_SUCCESS, "spgemmPlanCreate took A or B as C");
    FUZZ_CHECK(p == sentinel, "spgemmPlanCreate failed but wrote its output");
    if (refused_as_c) {
      trace("shape: operand as C refused");
      check_message_has("spgemmPlanCreate", "C must not be A or B");
    }
  }

  // Shared descriptors: a second plan on C's descriptor whose symbolic
  // phase runs after this scenario's plan's, then is destroyed. Its product
  // is E * F of the same shape as C: random operands, or C's own structure
  // (the oracle's) with its rows rotated times the identity (the same
  // nnz(C), rows that agree only where the rotation keeps their lengths).
  // C's descriptor then holds that product's nnz and C's row offsets its
  // rows: the scenario's plan refuses numeric for another nnz, and for a row
  // that disagrees with them (rows_agree_with_c). Mostly that numeric phase
  // follows at once.
  void op_second_plan() {
    trace("second plan on C");
    const uint8_t v = in_.u8();
    if (!plan_ || (compute_ != CUDA_R_32F && compute_ != CUDA_R_64F)) return;
    drop_c_aliases();  // the second plan knows only its own operands
    // (the scenario's plan took C: its types, layout and sizes are A's)
    const int64_t m = c_decl_.rows, n = c_decl_.cols;
    Operand E, F;
    E.label = "E";
    F.label = "F";
    E.decl = F.decl = A_.decl;
    E.decl.value_type = F.decl.value_type = compute_;
    const bool rotated = v % 2 == 1 && contents_valid();
    if (rotated) {
      std::vector<int32_t> c_offsets, c_columns;
      const auto take = [&](const auto& product) {
        c_offsets = product.C.row_offsets;
        c_columns = product.C.col_ind;
      };
      if (float_product())
        take(reference<float>(1, 1));
      else
        take(reference<double>(1, 1));
      const int64_t shift = m > 0 ? in_.u8() % m : 0;
      const int64_t base = E.decl.base;
      E.rows = m;
      E.cols = n;
      E.offsets.assign(1, base);
      E.col.clear();
      for (int64_t r = 0; r < m; ++r) {
        const int64_t from = (r + shift) % m;
        for (int32_t i = c_offsets[from]; i < c_offsets[from + 1]; ++i)
          E.col.push_back(c_columns[i] + base);
        E.offsets.push_back(base + static_cast<int64_t>(E.col.size()));
      }
      E.val.assign(E.col.size(), 0.5);
      E.decl.rows = m;
      E.decl.cols = n;
      E.decl.nnz = static_cast<int64_t>(E.col.size());
      F.rows = F.cols = n;
      F.offsets.clear();
      for (int64_t i = 0; i <= n; ++i) F.offsets.push_back(base + i);
      F.col.clear();
      for (int64_t i = 0; i < n; ++i) F.col.push_back(base + i);
      F.val.assign(static_cast<size_t>(n), 1.0);
      F.decl.rows = F.decl.cols = F.decl.nnz = n;
    } else {
      const int64_t k = decode_dim(in_);
      fill_contents(in_, E, m, k);
      fill_contents(in_, F, k, n);
    }
    E.store();
    F.store();
    E.desc = create_descriptor(E.decl, E.offsets_ptr(), E.col_ptr(), E.val_ptr());
    F.desc = create_descriptor(F.decl, F.offsets_ptr(), F.col_ptr(), F.val_ptr());
    CALL(SPGEMM_STATUS_SUCCESS, spgemmCsrSetMemoryType, E.desc, SPGEMM_MEMORY_HOST);
    CALL(SPGEMM_STATUS_SUCCESS, spgemmCsrSetMemoryType, F.desc, SPGEMM_MEMORY_HOST);
    const spgemmHandle_t h = handle_[(v >> 1) & 1];
    spgemmPlan_t second = nullptr;
    // E and F in host memory take no C in device memory
    const Expect e = memory_[kC] == SPGEMM_MEMORY_HOST ? Expect(SPGEMM_STATUS_SUCCESS)
                                                       : Expect(SPGEMM_STATUS_INVALID_VALUE);
    if (CALL(e, spgemmPlanCreate, h, &second, kNoTranspose, kNoTranspose, E.desc, F.desc, dc_,
             compute_) == SPGEMM_STATUS_SUCCESS) {
      const size_t rows = c_.off32.size();
      const std::vector<int32_t> saved32(c_.off32.data(), c_.off32.data() + rows);
      const std::vector<int64_t> saved64(c_.off64.data(), c_.off64.data() + rows);
      int64_t nnz = -12345;
      const spgemmStatus_t s =
          CALL(c_.off ? Expect(SPGEMM_STATUS_SUCCESS) : Expect(SPGEMM_STATUS_INVALID_VALUE),
               spgemmSymbolic, h, second, &nnz);
      check_inputs_untouched("the second plan's spgemmSymbolic");
      FUZZ_CHECK(E.untouched() && F.untouched(), "the second plan's spgemmSymbolic changed E or F");
      if (s == SPGEMM_STATUS_SUCCESS) {
        const std::vector<int32_t> want = float_product() ? product_offsets<float>(E, F)
                                                          : product_offsets<double>(E, F);
        FUZZ_CHECK(nnz == want.back(), "the second plan's spgemmSymbolic: nnz(C) " +
                                           std::to_string(nnz) + ", the oracle has " +
                                           std::to_string(want.back()));
        for (size_t i = 0; i < want.size(); ++i)
          FUZZ_CHECK(c_.offset(c_decl_, i) == want[i] + c_decl_.base,
                     "the second plan's spgemmSymbolic: C.rowOffsets[" + std::to_string(i) +
                         "] differs from the oracle's");
        // the scenario's plan's offsets are in C no longer (unless the same)
        bool same = nnz == c_nnz_;
        for (size_t i = 0; same && i < rows; ++i)
          same = (is64(c_decl_.offset_type) ? c_.off64.data()[i] == saved64[i]
                                            : c_.off32.data()[i] == saved32[i]);
        c_offsets_foreign_ = c_offsets_foreign_ || !same;
        if (g_trace)
          std::fprintf(stderr, "shape: shared C, second plan's nnz(C) %lld, the plan's %lld%s%s\n",
                       static_cast<long long>(nnz), static_cast<long long>(plan_nnz_),
                       rotated ? " (rows rotated)" : "",
                       same ? ", C's row offsets unchanged" : "");
        c_nnz_ = nnz;
      }
      CALL(SPGEMM_STATUS_SUCCESS, spgemmPlanDestroy, second);
    }
    CALL(SPGEMM_STATUS_SUCCESS, spgemmDestroyMatrix, E.desc);
    CALL(SPGEMM_STATUS_SUCCESS, spgemmDestroyMatrix, F.desc);
    // and at once the scenario's plan's numeric phase, mostly
    if (v % 8 < 6) {
      trace("numeric after the second plan");
      const uint8_t w = in_.u8();
      numeric({handle_[plan_owner_], plan_}, kAlphas[w % 8], false, kAlphas[w / 8 % 8], false,
              has_d_);
    }
  }

  template <class V>
  static std::vector<int32_t> product_offsets(const Operand& a, const Operand& b) {
    return spgemm_test::reference_spgemm(host_copy<V>(a), host_copy<V>(b), V(1)).C.row_offsets;
  }

  // Destroyed owners: the plan's handle is destroyed (allowed: the plan
  // keeps its context) and a new one made, often at its address (ASan's
  // quarantine emptied first so the allocator may hand it out again); the
  // plan used with the new handle is refused, as it is with any handle
  // from now on (expect_args) until the plan is re-created.
  void op_destroyed_owner() {
    trace("destroy the plan's handle, make a new one");
    const int slot = plan_owner_;
    const auto old = reinterpret_cast<uintptr_t>(handle_[slot]);
    CALL(SPGEMM_STATUS_SUCCESS, spgemmDestroy, handle_[slot]);
    handle_[slot] = nullptr;
#ifdef SPGEMM_FUZZ_ASAN
    __sanitizer_purge_allocator();
#endif
    handle_[slot] = create_handle();
    checks_[slot] = true;  // a new handle's default
    owner_destroyed_ = true;
    if (g_trace)
      std::fprintf(stderr, "shape: destroyed owner, new handle %s\n",
                   reinterpret_cast<uintptr_t>(handle_[slot]) == old ? "at the same address"
                                                                      : "elsewhere");
    const Args a{handle_[slot], plan_};
    const uint8_t v = in_.u8();
    switch (v % 4) {
      case 0: analyze(a); break;
      case 1: symbolic(a, false); break;
      case 2: numeric(a, 1, false, 1, false, has_d_); break;
      default: {
        size_t bytes = 99;
        CALL(expect_args(a), spgemmPlanGetWorkspaceSize, a.handle, a.plan, &bytes);
        FUZZ_CHECK(bytes == 99, "spgemmPlanGetWorkspaceSize failed but wrote its output");
      }
    }
    if (plan_)
      check_message_has("a call with the plan", "the plan was created with a different handle");
  }

  void op_destroy_plan() {
    trace("destroy plan");
    CALL(SPGEMM_STATUS_SUCCESS, spgemmPlanDestroy, plan_);
    plan_ = nullptr;
  }

  // The plan's handle goes first (allowed: the plan keeps the context); the
  // sequence ends, as nothing but spgemmPlanDestroy may take the plan now.
  bool op_destroy_handle_early() {
    trace("destroy handle before plan");
    CALL(SPGEMM_STATUS_SUCCESS, spgemmDestroy, handle_[plan_owner_]);
    handle_[plan_owner_] = nullptr;
    return false;
  }

  // ---- teardown: every object destroyed, in one of four orders -----------------
  void teardown() {
    trace("teardown");
    const uint8_t order = in_.u8() % 4;
    const auto plan = [&] {
      CALL(SPGEMM_STATUS_SUCCESS, spgemmPlanDestroy, plan_);
      plan_ = nullptr;
    };
    const auto handles = [&] {
      for (spgemmHandle_t& h : handle_) {
        CALL(SPGEMM_STATUS_SUCCESS, spgemmDestroy, h);
        h = nullptr;
      }
    };
    const auto descriptors = [&](bool reverse) {
      spgemmMatDescr_t* d[4] = {&A_.desc, &B_.desc, &D_.desc, &dc_};
      if (reverse) std::reverse(d, d + 4);
      for (spgemmMatDescr_t* x : d) {
        CALL(SPGEMM_STATUS_SUCCESS, spgemmDestroyMatrix, *x);
        *x = nullptr;
      }
    };
    if (order == 1) handles();  // handles before their plan
    plan();                     // descriptors must outlive the plan
    descriptors(order == 2);
    if (order != 1) handles();
    CALL(SPGEMM_STATUS_SUCCESS, spgemmDestroy, nullptr);
    CALL(SPGEMM_STATUS_SUCCESS, spgemmDestroyMatrix, nullptr);
    CALL(SPGEMM_STATUS_SUCCESS, spgemmPlanDestroy, nullptr);
  }

  Bytes& in_;
  cudaDataType type_ = CUDA_R_64F;  // of an ordinary problem
  cudaDataType compute_ = CUDA_R_64F;
  spgemmOperation_t op_a_ = kNoTranspose, op_b_ = kNoTranspose;
  Operand A_, B_, D_;
  bool alias_ = false;   // B's descriptor uses A's arrays
  bool has_d_ = false;   // plans are made with spgemmPlanCreateWithAddend
  enum class DArg { d, null, c } d_arg_ = DArg::d;  // what they get as D
  uint64_t contents_version_ = 0;  // bumped whenever an input's contents change
  Decl c_decl_;
  int64_t c_nnz_ = 0;  // C's descriptor nnz: declared, then the last symbolic's
  int64_t plan_nnz_ = 0;  // nnz(C) of the plan's own last symbolic phase
  bool c_offsets_foreign_ = false;  // another plan's symbolic phase wrote C's offsets since
  bool c_alias_[3] = {false, false, false};  // C's offsets, columns, values set into others
  bool owner_destroyed_ = false;  // the plan's handle was destroyed
  Output c_;
  spgemmMatDescr_t dc_ = nullptr;
  spgemmMemoryType_t memory_[4] = {SPGEMM_MEMORY_HOST, SPGEMM_MEMORY_HOST, SPGEMM_MEMORY_HOST,
                                   SPGEMM_MEMORY_HOST};  // A, B, C, D
  spgemmHandle_t handle_[2] = {nullptr, nullptr};
  bool checks_[2] = {true, true};  // input checks of each handle
  spgemmPlan_t plan_ = nullptr;
  int plan_owner_ = 0;  // index into handle_
  Stage stage_ = Stage::created;
  bool analysis_begun_ = false;  // spgemmPlanSetWorkspace is too late
  struct {  // the last successful numeric's result, for check_repeatable
    std::unique_ptr<std::string> bits;
    uint64_t version = 0;
    double alpha = 0, beta = 0;
  } last_;
  int sentinel_ = 0;  // its address marks outputs a failed call must not write
};

}  // namespace

using namespace spgemm_fuzz;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* valid_only = std::getenv("SPGEMM_FUZZ_VALID_ONLY");
  if (valid_only && *valid_only && std::strcmp(valid_only, "0") != 0) g_invalid_structures = false;
  const char* t = std::getenv("SPGEMM_FUZZ_TRACE");
  g_trace = t && *t && std::strcmp(t, "0") != 0;
  // The CUDA runtime's one-time initialization happens here, not inside the
  // first input's leak check.
  int devices = 0;
  g_no_gpu = cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0;
  std::fprintf(stderr, "fuzz_capi: %s CSR structures; %s\n",
               g_invalid_structures ? "valid and invalid" : "valid only (SPGEMM_FUZZ_VALID_ONLY)",
               g_no_gpu ? "no GPU: device-memory plans expect NO_DEVICE"
                        : "a GPU: device-memory plans are never made");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  Scenario scenario(in);
  scenario.run();
  return 0;
}
