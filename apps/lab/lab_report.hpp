// `scankit lab`: results as tables, and their terminal, CSV and JSON forms. Plain C++.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace scankit::lab {

// One table cell: text, an integer, a real number (shown with `precision` decimals on the
// terminal, written with full precision to CSV and JSON), or empty (no value).
struct cell {
  enum class kind { empty, text, integer, real };
  kind what = kind::empty;
  std::string text_value;
  long long integer_value = 0;
  double real_value = 0;
  int precision = 3;

  static cell none() { return {}; }
  static cell of(std::string s);
  static cell of(const char* s) { return of(std::string(s)); }
  static cell of_int(long long v);
  // An element count: an integer in CSV and JSON, shown as 2^k on the terminal where it is one.
  static cell of_size(long long n);
  static cell of_real(double v, int precision = 3);  // NaN and infinities become empty

  std::string display() const;  // as on the terminal
  std::string raw() const;      // as in CSV ("" when empty)
  std::string json() const;     // its value in lab.json, as JSON text (null when empty)
};

struct result_table {
  std::string name;  // file stem, e.g. exp4_coarsening
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<cell>> rows;

  // Throws std::invalid_argument if the row's width differs from the columns'.
  void add_row(std::vector<cell> row);
};

// An aligned text table: text columns to the left, numbers to the right, a rule under the header.
std::string format_table(const result_table& table);
// RFC 4180: header line, one line per row, fields quoted where they hold , " or a line break.
std::string to_csv(const result_table& table);
std::string csv_field(const std::string& s);

struct experiment_report {
  int id = 0;
  std::string slug;
  std::string title;
  std::string seed_says;
  bool ran = false;
  std::string skipped_reason;             // when !ran
  std::vector<result_table> tables;
  std::vector<std::string> findings;      // what the measurements say about the seed's claim
  std::vector<std::string> notices;       // sizes or variants left out, and why
};

struct lab_report {
  std::vector<std::pair<std::string, cell>> metadata;  // gpu, type, mode, repeat, seed, ...
  std::vector<experiment_report> experiments;
  result_table measurements;                 // every timed variant and size, once
  std::vector<std::string> mismatches;       // one line per variant that differed from the reference
  std::vector<std::string> errors;           // variants that failed (exceptions)
  std::vector<std::string> notices;          // run-wide notices

  const cell* find_metadata(const std::string& key) const;
};

// The whole report as one JSON document, written by nlohmann-json (see docs/scan-lab.md for its layout).
std::string to_json(const lab_report& report);
// The report printed on the terminal for one experiment: title, the seed's claim, tables, findings.
std::string format_experiment(const experiment_report& e);

// Writes DIR/lab.json, DIR/<table>.csv for every table and DIR/measurements.csv; creates DIR.
// Returns the paths written; throws std::runtime_error naming the path on an I/O failure.
std::vector<std::string> write_report_files(const lab_report& report, const std::string& dir);

}  // namespace scankit::lab
