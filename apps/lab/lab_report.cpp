#include "lab_report.hpp"

#include "lab_options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace scankit::lab {

namespace {

// Objects keep their keys in the order written: metadata as collected, a row's cells in column order.
using ordered_json = nlohmann::ordered_json;

// Null when empty, and for a real that is not finite (JSON has no NaN or infinity).
ordered_json json_value(const cell& c) {
  switch (c.what) {
    case cell::kind::empty: return nullptr;
    case cell::kind::text: return c.text_value;
    case cell::kind::integer: return c.integer_value;
    case cell::kind::real: return std::isfinite(c.real_value) ? ordered_json(c.real_value) : ordered_json(nullptr);
  }
  return nullptr;
}

// UTF-8 text stays as it is; bytes that are not UTF-8 become U+FFFD, so the output is always valid JSON.
std::string dump(const ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, ordered_json::error_handler_t::replace);
}

// CSV: the shortest "%.*g" form that reads back to the same double; "" for NaN and infinities.
std::string shortest_decimal(double v) {
  if (!std::isfinite(v)) return {};
  char buf[64];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

ordered_json table_json(const result_table& t) {
  ordered_json rows = ordered_json::array();
  for (const auto& r : t.rows) {
    ordered_json row = ordered_json::object();
    for (std::size_t c = 0; c < t.columns.size(); ++c) row[t.columns[c]] = json_value(r[c]);
    rows.push_back(std::move(row));
  }
  ordered_json j;
  j["name"] = t.name;
  j["title"] = t.title;
  j["columns"] = t.columns;
  j["rows"] = std::move(rows);
  return j;
}

}  // namespace

cell cell::of(std::string s) {
  cell c;
  c.what = kind::text;
  c.text_value = std::move(s);
  return c;
}

cell cell::of_int(long long v) {
  cell c;
  c.what = kind::integer;
  c.integer_value = v;
  return c;
}

cell cell::of_size(long long n) {
  cell c = of_int(n);
  c.text_value = format_size(n);
  return c;
}

cell cell::of_real(double v, int precision) {
  cell c;
  if (!std::isfinite(v)) return c;
  c.what = kind::real;
  c.real_value = v;
  c.precision = precision;
  return c;
}

std::string cell::display() const {
  switch (what) {
    case kind::empty: return "-";
    case kind::text: return text_value;
    case kind::integer: return text_value.empty() ? std::to_string(integer_value) : text_value;
    case kind::real: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.*f", precision, real_value);
      return buf;
    }
  }
  return {};
}

std::string cell::raw() const {
  switch (what) {
    case kind::empty: return {};
    case kind::text: return text_value;
    case kind::integer: return std::to_string(integer_value);
    case kind::real: return shortest_decimal(real_value);
  }
  return {};
}

std::string cell::json() const { return dump(json_value(*this), -1); }

void result_table::add_row(std::vector<cell> row) {
  if (row.size() != columns.size())
    throw std::invalid_argument("table " + name + ": row of " + std::to_string(row.size()) + " cells for " +
                                std::to_string(columns.size()) + " columns");
  rows.push_back(std::move(row));
}

std::string format_table(const result_table& table) {
  const std::size_t ncol = table.columns.size();
  std::vector<std::size_t> width(ncol, 0);
  std::vector<bool> numeric(ncol, true);
  for (std::size_t c = 0; c < ncol; ++c) width[c] = table.columns[c].size();
  for (const auto& row : table.rows) {
    for (std::size_t c = 0; c < ncol; ++c) {
      width[c] = std::max(width[c], row[c].display().size());
      if (row[c].what == cell::kind::text) numeric[c] = false;
    }
  }
  std::ostringstream os;
  auto put = [&](const std::string& s, std::size_t c) {
    const std::string pad(width[c] - std::min(width[c], s.size()), ' ');
    if (c > 0) os << "  ";
    if (numeric[c]) {
      os << pad << s;
    } else {
      os << s;
      if (c + 1 < ncol) os << pad;  // no trailing blanks
    }
  };
  for (std::size_t c = 0; c < ncol; ++c) put(table.columns[c], c);
  os << "\n";
  for (std::size_t c = 0; c < ncol; ++c) {
    if (c > 0) os << "  ";
    os << std::string(width[c], '-');
  }
  os << "\n";
  for (const auto& row : table.rows) {
    for (std::size_t c = 0; c < ncol; ++c) put(row[c].display(), c);
    os << "\n";
  }
  return os.str();
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

std::string to_csv(const result_table& table) {
  std::string out;
  for (std::size_t c = 0; c < table.columns.size(); ++c) out += (c ? "," : "") + csv_field(table.columns[c]);
  out += "\n";
  for (const auto& row : table.rows) {
    for (std::size_t c = 0; c < row.size(); ++c) out += (c ? "," : "") + csv_field(row[c].raw());
    out += "\n";
  }
  return out;
}

const cell* lab_report::find_metadata(const std::string& key) const {
  for (const auto& kv : metadata)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

std::string to_json(const lab_report& report) {
  ordered_json metadata = ordered_json::object();
  for (const auto& [key, value] : report.metadata) metadata[key] = json_value(value);
  ordered_json experiments = ordered_json::array();
  for (const auto& e : report.experiments) {
    ordered_json x;
    x["id"] = e.id;
    x["slug"] = e.slug;
    x["title"] = e.title;
    x["seed_says"] = e.seed_says;
    x["status"] = e.ran ? "ran" : "skipped";
    if (!e.ran) x["skipped_reason"] = e.skipped_reason;
    x["findings"] = e.findings;
    x["notices"] = e.notices;
    x["tables"] = ordered_json::array();
    for (const auto& t : e.tables) x["tables"].push_back(table_json(t));
    experiments.push_back(std::move(x));
  }
  ordered_json doc;
  doc["tool"] = "scankit lab";
  doc["metadata"] = std::move(metadata);
  doc["correct"] = report.mismatches.empty() && report.errors.empty();
  doc["mismatches"] = report.mismatches;
  doc["errors"] = report.errors;
  doc["notices"] = report.notices;
  doc["experiments"] = std::move(experiments);
  doc["measurements"] = table_json(report.measurements);
  return dump(doc, 2) + "\n";
}

std::string format_experiment(const experiment_report& e) {
  std::ostringstream os;
  const std::string heading = "Experiment " + std::to_string(e.id) + ": " + e.title;
  os << "\n" << heading << "\n" << std::string(heading.size(), '=') << "\n";
  os << "Seed: " << e.seed_says << "\n";
  if (!e.ran) {
    os << "skipped: " << e.skipped_reason << "\n";
    return os.str();
  }
  for (const auto& t : e.tables) {
    os << "\n";
    if (!t.title.empty()) os << t.title << "\n";
    os << format_table(t);
  }
  for (const auto& n : e.notices) os << "note: " << n << "\n";
  if (!e.findings.empty()) {
    os << "\nFindings:\n";
    for (const auto& f : e.findings) os << "  * " << f << "\n";
  }
  return os.str();
}

std::vector<std::string> write_report_files(const lab_report& report, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) throw std::runtime_error("cannot create the output folder '" + dir + "': " + ec.message());
  std::vector<std::string> written;
  auto write = [&](const std::string& name, const std::string& content) {
    const std::string path = (fs::path(dir) / name).string();
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << content;
    f.close();
    if (!f) throw std::runtime_error("cannot write '" + path + "'");
    written.push_back(path);
  };
  for (const auto& e : report.experiments)
    for (const auto& t : e.tables) write(t.name + ".csv", to_csv(t));
  if (!report.measurements.columns.empty()) write("measurements.csv", to_csv(report.measurements));
  write("lab.json", to_json(report));
  return written;
}

}  // namespace scankit::lab
