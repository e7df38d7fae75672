// SPDX-License-Identifier: Apache-2.0
#include "matrix_market.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <sstream>
#include <system_error>
#include <stdexcept>
#include <utility>
#include <vector>

#include "random.hpp"

#ifdef SPGEMM_HAVE_ZLIB
#include <zlib.h>
#else
#include <sys/wait.h>
#endif

namespace spgemm_test {
namespace {

// ---- line sources ---------------------------------------------------------
// The parser only needs "give me the next line"; where the bytes come from
// (stdio, zlib, a gzip pipe) is hidden behind this.
class LineSource {
 public:
  virtual ~LineSource() = default;

  // Next line without its end-of-line characters; false at end of input.
  bool next(std::string& line) {
    line.clear();
    char buf[8192];
    while (read_chunk(buf, sizeof buf)) {
      line += buf;
      if (!line.empty() && line.back() == '\n') {
        line.pop_back();
        if (!line.empty() && line.back() == '\r') line.pop_back();
        return true;
      }
    }
    return !line.empty();  // last line without a trailing newline
  }

  // Throws if the source failed while being read (a truncated .gz, say),
  // so a damaged file is not mistaken for one with too few entries.
  virtual void check_read_error(const std::string& path) = 0;

 protected:
  // fgets semantics: NUL-terminated, stops after '\n', nullptr at the end.
  virtual char* read_chunk(char* buf, int size) = 0;
};

class StdioSource : public LineSource {
 public:
  StdioSource(FILE* f, bool is_pipe) : f_(f), is_pipe_(is_pipe) {}
  ~StdioSource() override { close(); }

  void check_read_error(const std::string& path) override {
    const bool read_failed = std::ferror(f_) != 0;
    const int status = close();
    if (read_failed) throw std::runtime_error(path + ": read error");
    if (is_pipe_ && status != 0) {
      const int code = WIFEXITED(status) ? WEXITSTATUS(status) : status;
      throw std::runtime_error(path + ": 'gzip -dc' failed (exit status " + std::to_string(code) +
                               "); is the file a valid .gz?");
    }
  }

 protected:
  char* read_chunk(char* buf, int size) override { return std::fgets(buf, size, f_); }

 private:
  int close() {
    if (!f_) return 0;
    const int status = is_pipe_ ? pclose(f_) : std::fclose(f_);
    f_ = nullptr;
    return status;
  }

  FILE* f_;
  bool is_pipe_;
};

#ifdef SPGEMM_HAVE_ZLIB
class ZlibSource : public LineSource {
 public:
  explicit ZlibSource(gzFile f) : f_(f) { gzbuffer(f_, 1 << 18); }
  ~ZlibSource() override { gzclose(f_); }

  void check_read_error(const std::string& path) override {
    int code = Z_OK;
    const char* msg = gzerror(f_, &code);
    if (code != Z_OK && code != Z_STREAM_END)
      throw std::runtime_error(path + ": gzip read error: " + (msg ? msg : "unknown"));
  }

 protected:
  char* read_chunk(char* buf, int size) override { return gzgets(f_, buf, size); }

 private:
  gzFile f_;
};
#endif

bool has_gzip_magic(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
  unsigned char magic[2] = {0, 0};
  const size_t got = std::fread(magic, 1, 2, f);
  std::fclose(f);
  return got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

std::unique_ptr<LineSource> open_source(const std::string& path) {
  const bool gz = has_gzip_magic(path);  // also reports a missing file
  if (gz) {
#ifdef SPGEMM_HAVE_ZLIB
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) throw std::runtime_error(path + ": gzopen failed");
    return std::make_unique<ZlibSource>(f);
#else
    // Quote for the shell: ' becomes '\''.
    std::string quoted = "'";
    for (char ch : path) quoted += (ch == '\'') ? std::string("'\\''") : std::string(1, ch);
    quoted += "'";
    const std::string cmd = "gzip -dc -- " + quoted;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) throw std::runtime_error(path + ": cannot run '" + cmd + "'");
    return std::make_unique<StdioSource>(p, true);
#endif
  }
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
  return std::make_unique<StdioSource>(f, false);
}

// ---- parsing helpers --------------------------------------------------------
std::vector<std::string> split_words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

bool is_blank(const std::string& line) {
  return std::all_of(line.begin(), line.end(),
                     [](char ch) { return std::isspace(static_cast<unsigned char>(ch)); });
}

// strtoll/strtod that also insist on a number being there.
bool parse_int(const char*& p, long long& out) {
  char* end = nullptr;
  errno = 0;
  out = std::strtoll(p, &end, 10);
  if (end == p || errno == ERANGE) return false;
  p = end;
  return true;
}

bool parse_real(const char*& p, double& out) {
  char* end = nullptr;
  out = std::strtod(p, &end);
  if (end == p) return false;
  p = end;
  return true;
}

enum class Field { real, integer, pattern };
enum class Symmetry { general, symmetric, skew };

// Pattern values: a hash of the unordered pair, so a_ij == a_ji after
// mirroring, and the same file always yields the same matrix.
double pattern_value(int64_t r, int64_t c) {
  const uint64_t lo = static_cast<uint64_t>(std::min(r, c));
  const uint64_t hi = static_cast<uint64_t>(std::max(r, c));
  return value_from_bits(mix64(mix64(lo ^ 0x6d61726b6574ULL) ^ hi));
}

struct Coo {
  std::vector<int32_t> row, col;
  std::vector<double> val;
  void add(int64_t r, int64_t c, double v) {
    row.push_back(static_cast<int32_t>(r));
    col.push_back(static_cast<int32_t>(c));
    val.push_back(v);
  }
};

// Sorted CSR, duplicates summed in file order (stable) so results are
// reproducible to the last bit.
HostCsr<double> coo_to_csr(int64_t rows, int64_t cols, const Coo& coo) {
  HostCsr<double> a;
  a.rows = rows;
  a.cols = cols;
  std::vector<int64_t> start(static_cast<size_t>(rows) + 1, 0);
  for (int32_t r : coo.row) ++start[static_cast<size_t>(r) + 1];
  for (int64_t r = 0; r < rows; ++r) start[r + 1] += start[r];

  std::vector<std::pair<int32_t, double>> by_row(coo.row.size());
  {
    std::vector<int64_t> next(start.begin(), start.end() - 1);
    for (size_t e = 0; e < coo.row.size(); ++e) by_row[next[coo.row[e]]++] = {coo.col[e], coo.val[e]};
  }

  a.row_offsets.assign(static_cast<size_t>(rows) + 1, 0);
  a.col_ind.reserve(by_row.size());
  a.values.reserve(by_row.size());
  for (int64_t r = 0; r < rows; ++r) {
    auto first = by_row.begin() + start[r], last = by_row.begin() + start[r + 1];
    std::stable_sort(first, last, [](const auto& x, const auto& y) { return x.first < y.first; });
    for (auto it = first; it != last; ++it) {
      if (a.col_ind.size() > static_cast<size_t>(a.row_offsets[r]) && a.col_ind.back() == it->first)
        a.values.back() += it->second;
      else {
        a.col_ind.push_back(it->first);
        a.values.push_back(it->second);
      }
    }
    a.row_offsets[r + 1] = static_cast<int32_t>(a.col_ind.size());
  }
  return a;
}

}  // namespace

HostCsr<double> read_matrix_market(const std::string& path) {
  auto src = open_source(path);
  std::string line;
  int64_t line_no = 0;
  auto fail = [&](const std::string& what) {
    throw std::runtime_error(path + ":" + std::to_string(line_no) + ": " + what);
  };

  // ---- banner
  if (!src->next(line)) fail("empty file (expected a %%MatrixMarket banner)");
  ++line_no;
  const auto banner = split_words(line);
  if (banner.empty() || banner[0] != "%%MatrixMarket")
    fail("not a Matrix Market file: the first line must start with %%MatrixMarket");
  if (banner.size() != 5)
    fail("malformed banner '" + line + "' (expected: %%MatrixMarket matrix coordinate <field> <symmetry>)");
  const std::string object = lower(banner[1]), format = lower(banner[2]),
                    field_word = lower(banner[3]), symmetry_word = lower(banner[4]);
  if (object != "matrix") fail("unsupported object '" + banner[1] + "' (only 'matrix')");
  if (format == "array") fail("dense 'array' format is not supported (only 'coordinate')");
  if (format != "coordinate") fail("unknown format '" + banner[2] + "'");

  Field field = Field::real;
  if (field_word == "real" || field_word == "double") field = Field::real;
  else if (field_word == "integer") field = Field::integer;
  else if (field_word == "pattern") field = Field::pattern;
  else if (field_word == "complex") fail("'complex' field is not supported");
  else fail("unknown field '" + banner[3] + "'");

  Symmetry symmetry = Symmetry::general;
  if (symmetry_word == "general") symmetry = Symmetry::general;
  else if (symmetry_word == "symmetric") symmetry = Symmetry::symmetric;
  else if (symmetry_word == "skew-symmetric") symmetry = Symmetry::skew;
  else if (symmetry_word == "hermitian") fail("'hermitian' symmetry is not supported");
  else fail("unknown symmetry '" + banner[4] + "'");

  // ---- size line (after comments and blank lines)
  bool have_size = false;
  while (src->next(line)) {
    ++line_no;
    if (!line.empty() && line[0] == '%') continue;
    if (is_blank(line)) continue;
    have_size = true;
    break;
  }
  if (!have_size) {
    src->check_read_error(path);
    fail("missing size line (rows cols entries)");
  }
  long long rows = 0, cols = 0, entries = 0;
  {
    const char* p = line.c_str();
    if (!parse_int(p, rows) || !parse_int(p, cols) || !parse_int(p, entries) || !is_blank(p))
      fail("malformed size line '" + line + "' (expected: rows cols entries)");
  }
  const long long index_max = std::numeric_limits<int32_t>::max();
  if (rows < 0 || cols < 0 || entries < 0) fail("negative size in '" + line + "'");
  if (rows > index_max || cols > index_max) fail("dimensions exceed 32-bit indices");
  if (symmetry != Symmetry::general && rows != cols)
    fail("a " + symmetry_word + " matrix must be square, got " + std::to_string(rows) + " x " +
         std::to_string(cols));

  // ---- entries
  Coo coo;
  const size_t expected_coo = static_cast<size_t>(entries) * (symmetry == Symmetry::general ? 1 : 2);
  coo.row.reserve(expected_coo);
  coo.col.reserve(expected_coo);
  coo.val.reserve(expected_coo);
  long long seen = 0;
  while (src->next(line)) {
    ++line_no;
    if (is_blank(line) || line[0] == '%') continue;
    if (seen == entries)
      fail("more entries than the " + std::to_string(entries) + " declared in the size line");
    const char* p = line.c_str();
    long long i = 0, j = 0;
    if (!parse_int(p, i) || !parse_int(p, j)) fail("malformed entry '" + line + "'");
    if (i < 1 || i > rows || j < 1 || j > cols)
      fail("index (" + std::to_string(i) + ", " + std::to_string(j) + ") out of range for a " +
           std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
    const int64_t r = i - 1, c = j - 1;
    double v = 0.0;
    if (field == Field::pattern) {
      v = pattern_value(r, c);
    } else if (field == Field::integer) {
      long long iv = 0;
      if (!parse_int(p, iv)) fail("missing or malformed integer value in '" + line + "'");
      v = static_cast<double>(iv);
    } else if (!parse_real(p, v)) {
      fail("missing or malformed value in '" + line + "'");
    }
    coo.add(r, c, v);
    if (symmetry != Symmetry::general && r != c) coo.add(c, r, symmetry == Symmetry::skew ? -v : v);
    ++seen;
  }
  src->check_read_error(path);
  if (seen != entries)
    fail("expected " + std::to_string(entries) + " entries, found " + std::to_string(seen));
  if (coo.row.size() > static_cast<size_t>(index_max))
    fail("too many entries for 32-bit offsets");
  return coo_to_csr(rows, cols, coo);
}

void write_matrix_market(const std::string& path, const HostCsr<double>& a) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error(path + ": cannot create: " + std::strerror(errno));
  std::fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n");
  std::fprintf(f, "%lld %lld %lld\n", static_cast<long long>(a.rows),
               static_cast<long long>(a.cols), static_cast<long long>(a.nnz()));
  for (int64_t r = 0; r < a.rows; ++r)
    for (int32_t e = a.row_offsets[r]; e < a.row_offsets[r + 1]; ++e)
      std::fprintf(f, "%lld %d %.17g\n", static_cast<long long>(r + 1), a.col_ind[e] + 1,
                   a.values[e]);
  const bool write_failed = std::ferror(f) != 0;
  if (std::fclose(f) != 0 || write_failed)
    throw std::runtime_error(path + ": write failed");
}

std::string matrix_dir(const char* configured) {
  const char* set = std::getenv("SPGEMM_MATRIX_DIR");
  return set && *set ? set : configured;
}

std::vector<std::string> matrix_market_files(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const auto ends_with = [&](const std::string& suffix) {
      return name.size() > suffix.size() &&
             name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (ends_with(".mtx") || ends_with(".mtx.gz")) files.push_back(it->path().string());
  }
  if (ec) throw std::runtime_error("cannot list '" + dir + "': " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace spgemm_test
