// Matrix Market reading and writing (scankit/sparse/matrix_market.hpp).
//
// Reading is two passes over the text after the size line, each split across threads at line
// boundaries: the first counts every chunk's entry lines and newlines (so each chunk knows its
// first entry and its first line number), the second parses the entries in place with
// std::from_chars. The first error by line number wins, whichever thread found it, so the
// message does not depend on the thread count.
#include "scankit/sparse/matrix_market.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <memory>
#include <sstream>
#include <thread>
#include <type_traits>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scankit/error.hpp"

namespace scankit::sparse {
namespace {

struct parse_failure {
  std::int64_t line = std::numeric_limits<std::int64_t>::max();
  std::string message;
  bool failed() const { return line != std::numeric_limits<std::int64_t>::max(); }
};

[[noreturn]] void fail(const std::string& source, std::int64_t line, const std::string& message) {
  throw error(source + ":" + std::to_string(line) + ": " + message);
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The line starting at `pos` without its newline (and without a trailing '\r'); pos moves past it.
std::string_view take_line(std::string_view text, std::size_t& pos) {
  const std::size_t end = text.find('\n', pos);
  const std::size_t stop = end == std::string_view::npos ? text.size() : end;
  std::string_view line = text.substr(pos, stop - pos);
  pos = end == std::string_view::npos ? text.size() : end + 1;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// A line with nothing but blanks, or a comment: not an entry.
bool skipped_line(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && is_blank(line[i])) ++i;
  return i == line.size() || line[i] == '%';
}

std::vector<std::string> lower_tokens(std::string_view line) {
  std::vector<std::string> tokens;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i])) ++i;
    std::size_t j = i;
    while (j < line.size() && !is_blank(line[j])) ++j;
    if (j > i) {
      std::string t(line.substr(i, j - i));
      for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      tokens.push_back(std::move(t));
    }
    i = j;
  }
  return tokens;
}

// Reads one whitespace-separated number from `line` at `pos`; false if there is none or it is
// not entirely a number of type T.
template <class T>
bool read_number(std::string_view line, std::size_t& pos, T& out) {
  while (pos < line.size() && is_blank(line[pos])) ++pos;
  if (pos == line.size()) return false;
  const char* first = line.data() + pos;
  const char* last = line.data() + line.size();
  if constexpr (std::is_floating_point_v<T>) {
    if (*first == '+') ++first;  // from_chars takes no leading '+'
  }
  const auto [end, ec] = std::from_chars(first, last, out);
  if (ec != std::errc() || (end != last && !is_blank(*end))) return false;
  pos = static_cast<std::size_t>(end - line.data());
  return true;
}

bool only_blanks_after(std::string_view line, std::size_t pos) {
  while (pos < line.size() && is_blank(line[pos])) ++pos;
  return pos == line.size();
}

// The value of a banner word from its table (the table's words are what the message offers).
template <class E>
E banner_word(const std::string& word, std::initializer_list<std::pair<const char*, E>> table, const char* what,
              const std::string& source) {
  std::string offered;
  for (const auto& [name, value] : table) {
    if (word == name) return value;
    if (std::string_view(name) != "double") offered += std::string(offered.empty() ? "" : ", ") + name;
  }
  fail(source, 1, std::string("unknown ") + what + " '" + word + "' (" + offered + ")");
}

// Parses the banner and the size line; `pos` ends after the size line, `line_number` at it.
matrix_market_header parse_header(std::string_view text, std::size_t& pos, std::int64_t& line_number,
                                  const std::string& source) {
  matrix_market_header h;
  line_number = 1;
  const std::string_view banner = take_line(text, pos);
  const std::vector<std::string> t = lower_tokens(banner);
  if (t.empty() || t[0] != "%%matrixmarket") fail(source, 1, "not a Matrix Market file (no %%MatrixMarket banner)");
  if (t.size() != 5) fail(source, 1, "the banner needs: %%MatrixMarket matrix <format> <field> <symmetry>");
  if (t[1] != "matrix") fail(source, 1, "object '" + t[1] + "' is not supported (only 'matrix')");
  if (t[3] == "complex") fail(source, 1, "complex matrices are not supported");
  if (t[4] == "hermitian") fail(source, 1, "hermitian matrices are not supported (they are complex)");
  h.format = banner_word<mm_format>(t[2], {{"coordinate", mm_format::coordinate}, {"array", mm_format::array}},
                                    "format", source);
  h.field = banner_word<mm_field>(
      t[3], {{"real", mm_field::real}, {"double", mm_field::real}, {"integer", mm_field::integer}, {"pattern", mm_field::pattern}},
      "field", source);
  h.symmetry = banner_word<mm_symmetry>(t[4],
                                        {{"general", mm_symmetry::general},
                                         {"symmetric", mm_symmetry::symmetric},
                                         {"skew-symmetric", mm_symmetry::skew_symmetric}},
                                        "symmetry", source);
  if (h.format == mm_format::array && h.field == mm_field::pattern) {
    fail(source, 1, "an array file cannot have the pattern field");
  }

  std::string_view size_line;
  for (;;) {
    if (pos >= text.size()) fail(source, line_number, "the file ends before the size line");
    ++line_number;
    size_line = take_line(text, pos);
    if (!skipped_line(size_line)) break;
  }
  std::size_t at = 0;
  const bool coordinate = h.format == mm_format::coordinate;
  const char* expected = coordinate ? "the size line needs three non-negative integers: rows, columns, entries"
                                    : "the size line needs two non-negative integers: rows, columns";
  if (!read_number(size_line, at, h.rows) || !read_number(size_line, at, h.cols)) fail(source, line_number, expected);
  if (coordinate && !read_number(size_line, at, h.entries)) fail(source, line_number, expected);
  if (!only_blanks_after(size_line, at) || h.rows < 0 || h.cols < 0 || h.entries < 0) {
    fail(source, line_number, expected);
  }
  if (h.symmetry != mm_symmetry::general && h.rows != h.cols) {
    fail(source, line_number, "a symmetric or skew-symmetric matrix must be square");
  }
  if (!coordinate) {
    const std::int64_t n = h.rows;
    if (h.symmetry == mm_symmetry::general) {
      if (h.cols != 0 && h.rows > std::numeric_limits<std::int64_t>::max() / h.cols) {
        fail(source, line_number, "the matrix is too large");
      }
      h.entries = h.rows * h.cols;
    } else {
      if (n > 3037000499ll) fail(source, line_number, "the matrix is too large");  // n (n + 1) overflows
      h.entries = h.symmetry == mm_symmetry::symmetric ? n * (n + 1) / 2 : n * (n - 1) / 2;
    }
  }
  return h;
}

// One thread's share of the entry lines: [begin, end) of the text.
struct chunk {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::int64_t entries = 0;       // entry lines in it
  std::int64_t newlines = 0;      // '\n' in it
  std::int64_t first_entry = 0;   // index of its first entry
  std::int64_t first_line = 0;    // line number of its first line
};

template <class Index, class Value>
struct raw_entries {
  std::vector<Index> row, col;  // coordinate only
  std::vector<Value> value;     // empty for pattern
};

template <class Index, class Value>
void parse_chunk(std::string_view text, const chunk& c, const matrix_market_header& h, raw_entries<Index, Value>& out,
                 parse_failure& failure) {
  std::size_t pos = c.begin;
  std::int64_t line_number = c.first_line;
  std::int64_t entry = c.first_entry;
  const bool coordinate = h.format == mm_format::coordinate;
  const auto report = [&](const std::string& message) {
    failure.line = line_number;
    failure.message = message;
  };
  while (pos < c.end) {
    const std::string_view line = take_line(text.substr(0, c.end), pos);
    if (skipped_line(line)) {
      ++line_number;
      continue;
    }
    std::size_t at = 0;
    if (coordinate) {
      std::int64_t r = 0, k = 0;
      if (!read_number(line, at, r) || !read_number(line, at, k)) return report("expected a row and a column index");
      if (r < 1 || r > h.rows) {
        return report("row index " + std::to_string(r) + " is out of range [1, " + std::to_string(h.rows) + "]");
      }
      if (k < 1 || k > h.cols) {
        return report("column index " + std::to_string(k) + " is out of range [1, " + std::to_string(h.cols) + "]");
      }
      if (h.symmetry == mm_symmetry::symmetric && k > r) {
        return report("an entry above the diagonal in a symmetric file (only the lower triangle is stored)");
      }
      if (h.symmetry == mm_symmetry::skew_symmetric && k >= r) {
        return report("an entry on or above the diagonal in a skew-symmetric file");
      }
      out.row[static_cast<std::size_t>(entry)] = static_cast<Index>(r - 1);
      out.col[static_cast<std::size_t>(entry)] = static_cast<Index>(k - 1);
    }
    if (h.field == mm_field::real) {
      double v = 0;
      if (!read_number(line, at, v)) return report("expected a real value");
      out.value[static_cast<std::size_t>(entry)] = static_cast<Value>(v);
    } else if (h.field == mm_field::integer) {
      std::int64_t v = 0;
      if (!read_number(line, at, v)) return report("expected an integer value");
      out.value[static_cast<std::size_t>(entry)] = static_cast<Value>(v);
    }
    if (!only_blanks_after(line, at)) return report("unexpected text after the entry");
    ++entry;
    ++line_number;
  }
}

unsigned thread_count(const matrix_market_read_options& options, std::size_t bytes) {
  unsigned threads = options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  const std::size_t per_thread = 1 << 20;  // below a MiB per thread, threads cost more than they save
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(threads, bytes / per_thread + 1)));
}

template <class Function>
void run_parallel(std::size_t count, Function&& f) {
  if (count == 1) {
    f(std::size_t{0});
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(count);
  for (std::size_t t = 0; t < count; ++t) threads.emplace_back([&f, t] { f(t); });
  for (std::thread& th : threads) th.join();
}

}  // namespace

template <class Index, class Value>
coo_matrix_host<Index, Value> parse_matrix_market(std::string_view text, const matrix_market_read_options& options,
                                                  matrix_market_header* header_out, const std::string& source) {
  static_assert(std::is_same_v<Index, std::int32_t> || std::is_same_v<Index, std::int64_t>, "int32 or int64 indices");
  static_assert(std::is_same_v<Value, float> || std::is_same_v<Value, double>, "float or double values");
  std::size_t pos = 0;
  std::int64_t size_line = 0;
  const matrix_market_header h = parse_header(text, pos, size_line, source);
  if (h.rows > std::numeric_limits<Index>::max() || h.cols > std::numeric_limits<Index>::max()) {
    fail(source, size_line, "the matrix has more rows or columns than the index type holds");
  }

  // Pass 1: chunks at line boundaries; entry lines and newlines per chunk.
  const std::size_t data = pos;
  const unsigned threads = thread_count(options, text.size() - data);
  std::vector<chunk> chunks(threads);
  for (unsigned t = 0; t < threads; ++t) {
    std::size_t begin = data + (text.size() - data) * t / threads;
    if (t > 0 && begin > data && text[begin - 1] != '\n') {
      const std::size_t next = text.find('\n', begin);
      begin = next == std::string_view::npos ? text.size() : next + 1;
    }
    chunks[t].begin = std::max(begin, t > 0 ? chunks[t - 1].begin : data);
  }
  for (unsigned t = 0; t < threads; ++t) chunks[t].end = t + 1 < threads ? chunks[t + 1].begin : text.size();
  run_parallel(threads, [&](std::size_t t) {
    chunk& c = chunks[t];
    std::size_t p = c.begin;
    while (p < c.end) {
      const std::string_view line = take_line(text.substr(0, c.end), p);
      if (!skipped_line(line)) ++c.entries;
    }
    c.newlines = std::count(text.begin() + static_cast<std::ptrdiff_t>(c.begin),
                            text.begin() + static_cast<std::ptrdiff_t>(c.end), '\n');
  });
  std::int64_t found = 0, line = size_line + 1;
  for (chunk& c : chunks) {
    c.first_entry = found;
    c.first_line = line;
    found += c.entries;
    line += c.newlines;
  }
  // The count is checked after the entries are parsed, so that the first problem by line number
  // is the one reported (a malformed entry before the end of a short file, say).
  parse_failure count_failure;
  if (found < h.entries) {
    count_failure.line = line - (text.empty() || text.back() == '\n' ? 1 : 0);
    count_failure.message =
        "the file ends after " + std::to_string(found) + " of " + std::to_string(h.entries) + " entries";
  } else if (found > h.entries) {  // at the line of entry number h.entries + 1
    std::size_t p = data;
    std::int64_t seen = 0, n = size_line;
    while (p < text.size()) {
      ++n;
      if (!skipped_line(take_line(text, p)) && ++seen > h.entries) break;
    }
    count_failure.line = n;
    count_failure.message = "more entries than the " + std::to_string(h.entries) + " the size line declares";
  }

  // Pass 2: every chunk parses its entries into place (every entry line found, so that a
  // malformed line after the declared count is still seen in order).
  const auto count = static_cast<std::size_t>(h.entries);
  const auto lines = static_cast<std::size_t>(found);
  raw_entries<Index, Value> raw;
  if (h.format == mm_format::coordinate) {
    raw.row.resize(lines);
    raw.col.resize(lines);
  }
  if (h.field != mm_field::pattern) raw.value.resize(lines);
  std::vector<parse_failure> failures(threads);
  run_parallel(threads, [&](std::size_t t) { parse_chunk(text, chunks[t], h, raw, failures[t]); });
  failures.push_back(count_failure);
  const auto first_failure = std::min_element(failures.begin(), failures.end(),
                                              [](const parse_failure& a, const parse_failure& b) { return a.line < b.line; });
  if (first_failure->failed()) fail(source, first_failure->line, first_failure->message);

  // Triplets: array positions become coordinates; the stored triangle of a symmetric matrix is
  // mirrored (negated when skew-symmetric) after each off-diagonal entry.
  coo_matrix_host<Index, Value> m;
  m.rows = static_cast<Index>(h.rows);
  m.cols = static_cast<Index>(h.cols);
  if (h.format == mm_format::array) {
    raw.row.resize(count);
    raw.col.resize(count);
    std::size_t k = 0;
    for (std::int64_t c = 0; c < h.cols; ++c) {
      const std::int64_t first_row =
          h.symmetry == mm_symmetry::general ? 0 : (h.symmetry == mm_symmetry::symmetric ? c : c + 1);
      for (std::int64_t r = first_row; r < h.rows; ++r, ++k) {
        raw.row[k] = static_cast<Index>(r);
        raw.col[k] = static_cast<Index>(c);
      }
    }
  }
  if (h.field == mm_field::pattern) raw.value.assign(count, Value{1});
  if (h.symmetry == mm_symmetry::general) {
    m.row = std::move(raw.row);
    m.col = std::move(raw.col);
    m.value = std::move(raw.value);
  } else {
    const bool skew = h.symmetry == mm_symmetry::skew_symmetric;
    std::size_t mirrored = 0;
    for (std::size_t k = 0; k < count; ++k) mirrored += raw.row[k] != raw.col[k] ? 1 : 0;
    m.row.reserve(count + mirrored);
    m.col.reserve(count + mirrored);
    m.value.reserve(count + mirrored);
    for (std::size_t k = 0; k < count; ++k) {
      m.row.push_back(raw.row[k]);
      m.col.push_back(raw.col[k]);
      m.value.push_back(raw.value[k]);
      if (raw.row[k] != raw.col[k]) {
        m.row.push_back(raw.col[k]);
        m.col.push_back(raw.row[k]);
        m.value.push_back(skew ? -raw.value[k] : raw.value[k]);
      }
    }
  }
  if (header_out != nullptr) *header_out = h;
  return m;
}

namespace {

// A whole file's bytes: mapped read-only where the system allows (no copy of a page-cached file),
// read into memory otherwise.
class file_text {
 public:
  explicit file_text(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) throw error(path + ": cannot open the file");
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
      void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (p != MAP_FAILED) {
        mapped_ = p;
        size_ = static_cast<std::size_t>(st.st_size);
      }
    }
    ::close(fd);
    if (mapped_ == nullptr) {
      std::ifstream in(path, std::ios::binary);
      if (!in) throw error(path + ": cannot open the file");
      std::ostringstream copy;
      copy << in.rdbuf();
      if (in.bad()) throw error(path + ": cannot read the file");
      copy_ = std::move(copy).str();
    }
  }
  ~file_text() {
    if (mapped_ != nullptr) ::munmap(mapped_, size_);
  }
  file_text(const file_text&) = delete;
  file_text& operator=(const file_text&) = delete;

  std::string_view view() const {
    return mapped_ != nullptr ? std::string_view(static_cast<const char*>(mapped_), size_) : std::string_view(copy_);
  }

 private:
  void* mapped_ = nullptr;
  std::size_t size_ = 0;
  std::string copy_;
};

}  // namespace

template <class Index, class Value>
coo_matrix_host<Index, Value> read_matrix_market(const std::string& path, const matrix_market_read_options& options,
                                                 matrix_market_header* header) {
  const file_text text(path);
  return parse_matrix_market<Index, Value>(text.view(), options, header, path);
}

template <class Index, class Value>
coo_matrix_host<Index, Value> parse_metis_graph(std::string_view text, const std::string& source) {
  std::size_t pos = 0;
  std::int64_t line_number = 0;
  std::string_view line;
  // The header: the first line that is not a comment.
  do {
    if (pos >= text.size()) fail(source, std::max<std::int64_t>(line_number, 1), "the file ends before the header");
    ++line_number;
    line = take_line(text, pos);
  } while (!line.empty() && line.front() == '%');
  std::int64_t n = 0, m = 0, fmt = 0, ncon = 0;
  std::size_t at = 0;
  if (!read_number(line, at, n) || !read_number(line, at, m) || n < 0 || m < 0) {
    fail(source, line_number, "the header needs the vertex and edge counts: n m [fmt [ncon]]");
  }
  if (read_number(line, at, fmt) && read_number(line, at, ncon) && ncon < 0) {
    fail(source, line_number, "a negative number of vertex weights");
  }
  if (!only_blanks_after(line, at) || fmt < 0 || fmt > 111 || fmt % 10 > 1 || fmt / 10 % 10 > 1 || fmt / 100 > 1) {
    fail(source, line_number, "the header's fmt must be three 0/1 digits (vertex sizes, vertex weights, edge weights)");
  }
  const bool sizes = fmt / 100 == 1;
  const std::int64_t weights = fmt / 10 % 10 == 1 ? std::max<std::int64_t>(ncon, 1) : 0;
  const bool edge_weights = fmt % 10 == 1;
  if (n > std::numeric_limits<Index>::max()) fail(source, line_number, "more vertices than the index type holds");

  if (m > std::numeric_limits<std::int64_t>::max() / 2) fail(source, line_number, "the edge count is too large");

  coo_matrix_host<Index, Value> g;
  g.rows = g.cols = static_cast<Index>(n);
  // The header's count is a claim until the lines bear it out: reserve no more than the text
  // can hold (two bytes per entry at least).
  const auto expected = static_cast<std::size_t>(std::min<std::int64_t>(2 * m, static_cast<std::int64_t>(text.size() / 2 + 1)));
  g.row.reserve(expected);
  g.col.reserve(expected);
  g.value.reserve(expected);
  for (std::int64_t v = 0; v < n; ++v) {
    // Vertex lines: comments are skipped, blank lines are vertices without neighbours.
    do {
      if (pos >= text.size()) {
        fail(source, line_number, "the file ends after " + std::to_string(v) + " of " + std::to_string(n) + " vertex lines");
      }
      ++line_number;
      line = take_line(text, pos);
    } while (!line.empty() && line.front() == '%');
    at = 0;
    std::int64_t skip = 0;
    for (std::int64_t k = 0; k < (sizes ? 1 : 0) + weights; ++k) {
      if (!read_number(line, at, skip)) fail(source, line_number, "expected the vertex's size and weights");
    }
    while (!only_blanks_after(line, at)) {
      std::int64_t u = 0, w = 1;
      if (!read_number(line, at, u)) fail(source, line_number, "expected a neighbour's index");
      if (u < 1 || u > n) {
        fail(source, line_number, "neighbour " + std::to_string(u) + " is out of range [1, " + std::to_string(n) + "]");
      }
      if (edge_weights && !read_number(line, at, w)) fail(source, line_number, "expected an edge weight");
      g.row.push_back(static_cast<Index>(v));
      g.col.push_back(static_cast<Index>(u - 1));
      g.value.push_back(static_cast<Value>(w));
    }
  }
  while (pos < text.size()) {  // nothing but comments and blank lines may follow
    ++line_number;
    if (!skipped_line(take_line(text, pos))) fail(source, line_number, "more vertex lines than the " + std::to_string(n) + " declared");
  }
  if (static_cast<std::int64_t>(g.nonzeros()) != 2 * m) {
    fail(source, line_number, std::to_string(g.nonzeros()) + " adjacency entries where the header's " +
                                  std::to_string(m) + " edges need " + std::to_string(2 * m));
  }
  return g;
}

template <class Index, class Value>
coo_matrix_host<Index, Value> read_metis_graph(const std::string& path) {
  const file_text text(path);
  return parse_metis_graph<Index, Value>(text.view(), path);
}

template <class Index, class Value>
void write_matrix_market(const std::string& path, const coo_matrix_host<Index, Value>& m, mm_field field) {
  if (m.row.size() != m.value.size() || m.col.size() != m.value.size()) {
    throw error(path + ": the triplet arrays differ in length");
  }
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!file) throw error(path + ": cannot open the file for writing");
  const char* field_name = field == mm_field::real ? "real" : field == mm_field::integer ? "integer" : "pattern";
  std::string buffer = std::string("%%MatrixMarket matrix coordinate ") + field_name + " general\n" +
                       std::to_string(m.rows) + " " + std::to_string(m.cols) + " " + std::to_string(m.nonzeros()) + "\n";
  char number[64];
  const auto append = [&](auto v) {
    const auto [end, ec] = std::to_chars(number, number + sizeof(number), v);
    buffer.append(number, end);
  };
  for (std::size_t k = 0; k < m.nonzeros(); ++k) {
    if (m.row[k] < 0 || m.row[k] >= m.rows || m.col[k] < 0 || m.col[k] >= m.cols) {
      throw error(path + ": triplet " + std::to_string(k) + " lies outside the matrix");
    }
    append(static_cast<std::int64_t>(m.row[k]) + 1);
    buffer.push_back(' ');
    append(static_cast<std::int64_t>(m.col[k]) + 1);
    if (field == mm_field::real) {
      buffer.push_back(' ');
      append(m.value[k]);  // shortest text that reads back the same value
    } else if (field == mm_field::integer) {
      buffer.push_back(' ');
      append(static_cast<std::int64_t>(m.value[k]));
    }
    buffer.push_back('\n');
    if (buffer.size() > (1 << 20)) {
      if (std::fwrite(buffer.data(), 1, buffer.size(), file.get()) != buffer.size()) throw error(path + ": write failed");
      buffer.clear();
    }
  }
  if (std::fwrite(buffer.data(), 1, buffer.size(), file.get()) != buffer.size()) throw error(path + ": write failed");
}

#define SCANKIT_MATRIX_MARKET(Index, Value)                                                                           \
  template coo_matrix_host<Index, Value> parse_matrix_market<Index, Value>(                                          \
      std::string_view, const matrix_market_read_options&, matrix_market_header*, const std::string&);               \
  template coo_matrix_host<Index, Value> read_matrix_market<Index, Value>(const std::string&,                        \
                                                                          const matrix_market_read_options&,         \
                                                                          matrix_market_header*);                    \
  template void write_matrix_market<Index, Value>(const std::string&, const coo_matrix_host<Index, Value>&, mm_field); \
  template coo_matrix_host<Index, Value> parse_metis_graph<Index, Value>(std::string_view, const std::string&);       \
  template coo_matrix_host<Index, Value> read_metis_graph<Index, Value>(const std::string&);
SCANKIT_MATRIX_MARKET(std::int32_t, float)
SCANKIT_MATRIX_MARKET(std::int32_t, double)
SCANKIT_MATRIX_MARKET(std::int64_t, float)
SCANKIT_MATRIX_MARKET(std::int64_t, double)
#undef SCANKIT_MATRIX_MARKET

}  // namespace scankit::sparse
