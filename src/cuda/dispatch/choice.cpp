// SPDX-License-Identifier: Apache-2.0
// The rules of choice.hpp. Host code only: a change of a rule rebuilds this
// file, not the kernels.
#include "cuda/dispatch/choice.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>

namespace spgemm::cuda {

BinLayout make_bin_layout(const DeviceLimits& limits, Phase phase, size_t entry_bytes,
                          size_t offset_bytes) {
  BinLayout layout;
  for (const HashBinSpec& spec : kHashBins) {
    const int rows_per_block =
        spec.group == Group::block ? 1 : spec.block_threads / static_cast<int>(spec.group);
    // tables + one counter per row in the block
    const size_t smem = static_cast<size_t>(rows_per_block) *
                        (static_cast<size_t>(spec.table_size) * entry_bytes + sizeof(int));
    // the numeric kernel's scratch of the ordered adds: behind the tables
    // for blocks, static for warps, sized for their largest block
    // (kernels/numeric/hash_rows.cuh)
    const bool numeric = phase == Phase::numeric;
    if (numeric && spec.max_size > NumericPolicy::hash_max_nnz) break;
    const bool block = spec.group == Group::block;
    const size_t scratch = ordered_scratch_bytes(
        block ? spec.block_threads : max_block_threads(Group::warp), offset_bytes);
    const size_t dynamic_smem = numeric && block ? scratch_offset(smem) + scratch : smem;
    const size_t static_smem = numeric && !block ? scratch : 0;
    if (dynamic_smem + static_smem > limits.max_smem_per_block) break;  // nor do larger bins
    if (numeric && block && layout.thresholds.block_bin < 0) {
      layout.thresholds.block_bin = static_cast<int>(layout.hash.size());
      layout.thresholds.block_terms = NumericPolicy::block_row_terms;
    }
    layout.thresholds.max_size[layout.hash.size()] = spec.max_size;
    layout.hash.push_back({spec, dynamic_smem, rows_per_block});
  }
  layout.thresholds.hash_bins = static_cast<int>(layout.hash.size());
  if (phase == Phase::numeric) {
    for (const int terms : kSortBinTerms)
      layout.thresholds.sort_terms[layout.thresholds.sort_bins++] = terms;
    layout.thresholds.heavy_terms = NumericPolicy::heavy_row_terms;
  } else {  // the thread bin (symbolic_thresholds leaves it out for few rows)
    layout.thresholds.sort_terms[layout.thresholds.sort_bins++] = BinPolicy::thread_row_terms;
  }
  return layout;
}

namespace {

const char* const kSymbolicNames[] = {
    "small_warp",        "small_block",    "thread_row",     "warp_hash",
    "warp_hash_matched", "warp_range_mask", "warp_range_mask_matched", "block_hash",
    "block_numbered",    "block_deferred", "dense_window"};
const char* const kNumericNames[] = {"thread_row", "sort_row_1", "sort_row_2",
                                     "warp_hash",  "block_hash", "block_hash_lean",
                                     "split_row",  "dense_window"};
static_assert(std::size(kSymbolicNames) == static_cast<size_t>(SymbolicKernel::count));
static_assert(std::size(kNumericNames) == static_cast<size_t>(NumericKernel::count));

Force force_of(const std::string& knob, const std::string& value, bool always_allowed) {
  if (value == "never") return Force::never;
  if (value == "always" && always_allowed) return Force::always;
  fail(SPGEMM_STATUS_INVALID_VALUE, "SPGEMM_TEST_GPU_CHOICE: '" + value + "' is not a value of '" +
                                        knob + "'");
}

// Whether `rows` rows of a small product take a block each (of the first
// block bin) rather than a warp: where so few rows leave the device mostly
// idle (SmallPolicy::block_rows_share).
bool small_rows_take_blocks(const BinLayout& layout, int rows, const DeviceLimits& limits) {
  const double resident = static_cast<double>(limits.sm_count) * limits.max_threads_per_sm;
  for (const HashBinLaunch& b : layout.hash)
    if (b.spec.group == Group::block)
      return static_cast<double>(rows) * b.spec.block_threads <=
             SmallPolicy::block_rows_share * resident;
  return false;
}

}  // namespace

const char* name_of(SymbolicKernel k) { return kSymbolicNames[static_cast<int>(k)]; }
const char* name_of(NumericKernel k) { return kNumericNames[static_cast<int>(k)]; }

ChoiceOverride ChoiceOverride::parse(const char* text) {
  ChoiceOverride o;
  std::string rest = text ? text : "";
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string item = rest.substr(0, comma);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    const size_t eq = item.find('=');
    const std::string knob = item.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (knob == "small") o.small = force_of(knob, value, false);
    else if (knob == "thread_rows") o.thread_rows = force_of(knob, value, true);
    else if (knob == "lean") o.lean = force_of(knob, value, true);
    else if (knob == "split") o.split = force_of(knob, value, true);
    else if (knob == "ranges") o.ranges = force_of(knob, value, true);
    else if (knob == "few_launches") o.few_launches = force_of(knob, value, false);
    else if (knob == "matched") o.matched = force_of(knob, value, false);
    else if (knob == "symbolic_block") {
      for (const SymbolicKernel k : {SymbolicKernel::block_numbered, SymbolicKernel::block_deferred,
                                     SymbolicKernel::block_hash})
        if (value == std::string(name_of(k)).substr(6)) o.symbolic_block = k;
      if (o.symbolic_block == SymbolicKernel::count) force_of(knob, value, false);  // (throws)
    } else {
      fail(SPGEMM_STATUS_INVALID_VALUE, "SPGEMM_TEST_GPU_CHOICE: no knob '" + knob + "'");
    }
  }
  return o;
}

// The file every choice is appended to, a line each: phase, kernel, the
// engine's types.
struct Choices::Log {
  std::string path;
  std::mutex mutex;
};

Choices::Choices(const DeviceLimits& limits, size_t value_bytes, size_t offset_bytes,
                 std::string type_name)
    : limits_(limits),
      offset_bytes_(offset_bytes),
      symbolic_(make_bin_layout(limits, Phase::symbolic, sizeof(int), 0)),
      numeric_(make_bin_layout(limits, Phase::numeric, sizeof(int) + value_bytes, offset_bytes)),
      forced_(ChoiceOverride::parse(std::getenv("SPGEMM_TEST_GPU_CHOICE"))),
      type_name_(std::move(type_name)) {
  if (const char* path = std::getenv("SPGEMM_TEST_GPU_CHOICE_LOG"); path && *path) {
    log_ = std::make_unique<Log>();
    log_->path = path;
  }
}

Choices::~Choices() = default;

void Choices::record(const char* phase, const char* kernel) const {
  if (!log_) return;
  std::lock_guard<std::mutex> lock(log_->mutex);
  if (std::FILE* f = std::fopen(log_->path.c_str(), "a")) {
    std::fprintf(f, "%s %s %s\n", phase, kernel, type_name_.c_str());
    std::fclose(f);
  }
}

// ---- the product's path ----

int Choices::small_bin(Phase phase, int rows, int size) const {
  const BinLayout& layout = this->layout(phase);
  const bool blocks = small_rows_take_blocks(symbolic_, rows, limits_);
  for (int bin = 0; bin < static_cast<int>(layout.hash.size()); ++bin) {
    const HashBinSpec& spec = layout.hash[bin].spec;
    if (blocks && spec.group != Group::block) continue;
    if (spec.max_size >= size)
      return static_cast<long long>(rows) * spec.table_size <= SmallPolicy::max_table_slots ? bin
                                                                                            : -1;
  }
  return -1;
}

int Choices::small_symbolic_bin(int rows, long long total, int most) const {
  if (forced_.small == Force::never || total > SmallPolicy::max_products) return -1;
  const int bin = small_bin(Phase::symbolic, rows, most);
  return bin >= 0 && small_bin(Phase::numeric, rows, most) >= 0 ? bin : -1;
}

int Choices::small_numeric_bin(int rows, int most_terms, int longest) const {
  const int sort = numeric_.thresholds.sort_bin(most_terms);
  return sort >= 0 ? sort : small_bin(Phase::numeric, rows, longest);
}

// The largest warp bin (for few rows: the first block bin) that small_bin
// allows for the rows and whose rows the numeric layout takes too, with rows
// of up to SmallPolicy::gate_load of its table where the numeric layout takes those;
// none for no rows, more than SmallPolicy::max_rows, or products estimated (as if
// every row of B had B's average length) above SmallPolicy::speculate_products; a
// larger bin where the rows are expected to be longer than its gate takes
// (SmallPolicy::speculate_row_margin). The estimate only picks the path: a skewed B
// that makes it miss costs one empty launch and a second readback.
Choices::Speculative Choices::speculative(int rows, double estimated_products) const {
  if (forced_.small == Force::never || rows == 0 || rows > SmallPolicy::max_rows ||
      estimated_products > static_cast<double>(SmallPolicy::speculate_products))
    return {};
  auto tried_in = [&](int bin) {
    const HashBinSpec& spec = symbolic_.hash[bin].spec;
    if (small_bin(Phase::symbolic, rows, spec.max_size) != bin ||
        small_bin(Phase::numeric, rows, spec.max_size) < 0)
      return Speculative{};
    const int fuller = static_cast<int>(spec.table_size * SmallPolicy::gate_load);
    return Speculative{bin,
                       small_bin(Phase::numeric, rows, fuller) >= 0 ? fuller : spec.max_size};
  };
  const Group group =
      small_rows_take_blocks(symbolic_, rows, limits_) ? Group::block : Group::warp;
  const int bins = static_cast<int>(symbolic_.hash.size());
  Speculative chosen;
  for (int bin = 0; bin < bins; ++bin) {
    const Speculative here = tried_in(bin);
    if (here.bin >= 0 && symbolic_.hash[bin].spec.group == group) {
      chosen = here;
      if (group == Group::block) break;
    }
  }
  const double wanted = SmallPolicy::speculate_row_margin * estimated_products / rows;
  for (int bin = chosen.bin + 1; chosen.bin >= 0 && chosen.gate_max_row < wanted && bin < bins;
       ++bin)
    if (const Speculative here = tried_in(bin); here.bin >= 0) chosen = here;
  return chosen;
}

// ---- the binning ----

bool Choices::measure_ranges(long long rows, bool b_examined) const {
  if (!b_examined || forced_.ranges == Force::never) return false;
  return forced_.ranges == Force::always ||
         rows > static_cast<long long>(SymbolicPolicy::span_min_rows_per_sm) * limits_.sm_count;
}

MaskCap Choices::mask_cap(long long rows, long long b_cols, const int* rows_beyond) const {
  const long long many =
      static_cast<long long>(SymbolicPolicy::mask_cap_rows_per_sm) * limits_.sm_count;
  if (rows < many) return {};
  const long long words = (b_cols + 31) / 32;
  for (const HashBinLaunch& b : symbolic_.hash)
    if (b.spec.group == Group::block && b.spec.table_size >= words)
      return {b.spec.max_size, symbolic_.hash.back().spec.max_size, rows_beyond,
              static_cast<int>(many)};
  return {};
}

BinThresholds Choices::symbolic_thresholds(int rows) const {
  BinThresholds t = symbolic_.thresholds;
  const bool thread_rows =
      forced_.thread_rows == Force::automatic
          ? rows >= static_cast<long long>(BinPolicy::thread_rows_min_per_sm) * limits_.sm_count
          : forced_.thread_rows == Force::always;
  if (!thread_rows) t.sort_bins = 0;
  return t;
}

BinThresholds Choices::numeric_thresholds(int rows, long long products) const {
  BinThresholds t = numeric_.thresholds;
  const long long sms = limits_.sm_count;
  const long long warps = sms * (limits_.max_threads_per_sm / 32);
  if (rows > NumericPolicy::block_rows_per_sm * sms)
    t.block_bin = -1;
  else if (rows <= NumericPolicy::few_products_rows_per_warp * warps && products >= 0 &&
           products <= NumericPolicy::few_products_per_sm * sms)
    t.block_terms = NumericPolicy::few_products_block_terms;
  return t;
}

bool Choices::few_launches(int rows) const {
  return forced_.few_launches != Force::never && rows <= SmallPolicy::few_launches_rows;
}

bool Choices::numeric_thread_rows(int rows, double products, long long nnz) const {
  if (forced_.thread_rows != Force::automatic) return forced_.thread_rows == Force::always;
  return rows >= static_cast<long long>(BinPolicy::thread_rows_min_per_sm) * limits_.sm_count &&
         products >= NumericPolicy::thread_row_min_compression * static_cast<double>(nnz);
}

int split_row_parts(long long rows_in_bin, int sm_count) {
  if (rows_in_bin <= 0 || 2 * rows_in_bin > sm_count) return 0;
  return static_cast<int>(
      std::min<long long>(NumericPolicy::split_rows_max_parts, sm_count / rows_in_bin));
}

int Choices::split_parts(bool addend, long long b_cols, int rows, double scratch_bytes,
                         double c_bytes) const {
  const int last = numeric_.dense_bin() - 1;
  if (addend || forced_.split == Force::never || last < 0 ||
      numeric_.hash[last].spec.group != Group::block ||
      b_cols > numeric_.hash[last].spec.table_size)
    return 0;
  if (forced_.split == Force::always)  // (at most a row an SM: the scratch stays small)
    return rows > 0 && rows <= limits_.sm_count
               ? std::max(2, split_row_parts(rows, limits_.sm_count))
               : 0;
  return scratch_bytes <= NumericPolicy::split_rows_max_share_of_c * c_bytes
             ? split_row_parts(rows, limits_.sm_count)
             : 0;
}

// ---- the bins' kernels ----

size_t Choices::numbered_symbolic_smem(int bin) const {
  const HashBinLaunch& b = symbolic_.hash[bin];
  return scratch_offset(b.smem_bytes) + ordered_scratch_bytes(b.spec.block_threads, offset_bytes_);
}

SymbolicKernel Choices::symbolic_kernel(const SymbolicLaunch& q) const {
  auto chosen = [&] {
    if (q.bin > symbolic_.dense_bin()) return SymbolicKernel::thread_row;
    if (q.bin == symbolic_.dense_bin()) return SymbolicKernel::dense_window;
    const HashBinSpec& spec = symbolic_.hash[q.bin].spec;
    if (q.small)
      return spec.group == Group::warp ? SymbolicKernel::small_warp : SymbolicKernel::small_block;
    if (spec.group == Group::warp) {
      // rows of few terms are only in the bins of few (a row's size is at
      // most its terms); the other bins are compiled without the match,
      // which slows them down (`spgemm-bench --gen uniform:500000:8`, rows
      // of 64 terms, sym); a bitmask over the row's range where B's columns
      // do not fit the table's bits but the range may
      const HashBinSpec& first = symbolic_.hash[q.first_bin].spec;
      const bool matched = q.terms && first.max_size <= SymbolicPolicy::matched_max_terms &&
                           forced_.matched != Force::never;
      const bool ranged = q.ranges && (q.b_cols + 31) / 32 > first.table_size;
      if (ranged)
        return matched ? SymbolicKernel::warp_range_mask_matched : SymbolicKernel::warp_range_mask;
      return matched ? SymbolicKernel::warp_hash_matched : SymbolicKernel::warp_hash;
    }
    // blocks number their rows' products where B's rows are short
    // (SymbolicPolicy::numbered_max_lanes) and the scratch fits; the last bin's put
    // long rows of B aside (SymbolicPolicy::deferred_b_rows)
    const bool numbered_fits = numbered_symbolic_smem(q.bin) <= limits_.max_smem_per_block;
    switch (forced_.symbolic_block) {
      case SymbolicKernel::block_numbered:
        if (numbered_fits) return SymbolicKernel::block_numbered;
        break;
      case SymbolicKernel::block_deferred:
      case SymbolicKernel::block_hash:
        return forced_.symbolic_block;
      default:
        break;
    }
    if (q.lanes <= SymbolicPolicy::numbered_max_lanes && numbered_fits)
      return SymbolicKernel::block_numbered;
    return q.bin == symbolic_.dense_bin() - 1 ? SymbolicKernel::block_deferred
                                              : SymbolicKernel::block_hash;
  };
  const SymbolicKernel k = chosen();
  record("symbolic", name_of(k));
  return k;
}

NumericKernel Choices::numeric_kernel(const NumericLaunch& q,
                                      const ResidentBlocks& resident) const {
  auto chosen = [&] {
    if (q.bin == numeric_.dense_bin()) return NumericKernel::dense_window;
    if (q.bin > numeric_.dense_bin()) {
      if (numeric_.thread_bin(q.bin) && q.thread_rows) return NumericKernel::thread_row;
      return numeric_.sort_registers(q.bin) == 1 ? NumericKernel::sort_row_1
                                                 : NumericKernel::sort_row_2;
    }
    const HashBinSpec& spec = numeric_.hash[q.bin].spec;
    if (q.split && q.bin + 1 == numeric_.dense_bin()) return NumericKernel::split_row;
    if (spec.group == Group::warp) return NumericKernel::warp_hash;
    if (spec.block_threads > NumericPolicy::lean_block_threads || forced_.lean == Force::never)
      return NumericKernel::block_hash;
    if (forced_.lean == Force::always) return NumericKernel::block_hash_lean;
    const int lean = resident(NumericKernel::block_hash_lean);
    const int regular = resident(NumericKernel::block_hash);
    return lean_block_pays(q.rows, lean, regular) ? NumericKernel::block_hash_lean
                                                  : NumericKernel::block_hash;
  };
  const NumericKernel k = chosen();
  record("numeric", name_of(k));
  return k;
}

}  // namespace spgemm::cuda
