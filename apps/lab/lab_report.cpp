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

namespace scankit::lab {

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
    case kind::real: return json_number(real_value);
  }
  return {};
}

std::string cell::json() const {
  switch (what) {
    case kind::empty: return "null";
    case kind::text: return json_string(text_value);
    case kind::integer: return std::to_string(integer_value);
    case kind::real: return json_number(real_value);
  }
  return "null";
}

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

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (ch < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", ch);
          out += buf;
        } else {
          out += static_cast<char>(ch);
        }
    }
  }
  return out + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

const cell* lab_report::find_metadata(const std::string& key) const {
  for (const auto& kv : metadata)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

namespace {

std::string json_string_array(const std::vector<std::string>& items, const std::string& indent) {
  if (items.empty()) return "[]";
  std::string out = "[\n";
  for (std::size_t i = 0; i < items.size(); ++i)
    out += indent + "  " + json_string(items[i]) + (i + 1 < items.size() ? ",\n" : "\n");
  return out + indent + "]";
}

std::string json_table(const result_table& t, const std::string& indent) {
  std::string out = "{\n";
  out += indent + "  \"name\": " + json_string(t.name) + ",\n";
  out += indent + "  \"title\": " + json_string(t.title) + ",\n";
  out += indent + "  \"columns\": [";
  for (std::size_t c = 0; c < t.columns.size(); ++c) out += (c ? ", " : "") + json_string(t.columns[c]);
  out += "],\n";
  out += indent + "  \"rows\": [";
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    out += (r ? ",\n" : "\n") + indent + "    {";
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      out += (c ? ", " : "") + json_string(t.columns[c]) + ": " + t.rows[r][c].json();
    out += "}";
  }
  out += t.rows.empty() ? "]\n" : "\n" + indent + "  ]\n";
  return out + indent + "}";
}

}  // namespace

std::string to_json(const lab_report& report) {
  std::string out = "{\n";
  out += "  \"tool\": \"scankit lab\",\n";
  out += "  \"metadata\": {";
  for (std::size_t i = 0; i < report.metadata.size(); ++i)
    out += (i ? ",\n" : "\n") + std::string("    ") + json_string(report.metadata[i].first) + ": " +
           report.metadata[i].second.json();
  out += report.metadata.empty() ? "},\n" : "\n  },\n";
  out += "  \"correct\": " + std::string(report.mismatches.empty() && report.errors.empty() ? "true" : "false") + ",\n";
  out += "  \"mismatches\": " + json_string_array(report.mismatches, "  ") + ",\n";
  out += "  \"errors\": " + json_string_array(report.errors, "  ") + ",\n";
  out += "  \"notices\": " + json_string_array(report.notices, "  ") + ",\n";
  out += "  \"experiments\": [";
  for (std::size_t i = 0; i < report.experiments.size(); ++i) {
    const auto& e = report.experiments[i];
    out += (i ? ",\n" : "\n") + std::string("    {\n");
    out += "      \"id\": " + std::to_string(e.id) + ",\n";
    out += "      \"slug\": " + json_string(e.slug) + ",\n";
    out += "      \"title\": " + json_string(e.title) + ",\n";
    out += "      \"seed_says\": " + json_string(e.seed_says) + ",\n";
    out += "      \"status\": " + json_string(e.ran ? "ran" : "skipped") + ",\n";
    if (!e.ran) out += "      \"skipped_reason\": " + json_string(e.skipped_reason) + ",\n";
    out += "      \"findings\": " + json_string_array(e.findings, "      ") + ",\n";
    out += "      \"notices\": " + json_string_array(e.notices, "      ") + ",\n";
    out += "      \"tables\": [";
    for (std::size_t t = 0; t < e.tables.size(); ++t)
      out += (t ? ", " : "") + json_table(e.tables[t], "      ");
    out += "]\n    }";
  }
  out += report.experiments.empty() ? "],\n" : "\n  ],\n";
  out += "  \"measurements\": " + json_table(report.measurements, "  ") + "\n";
  return out + "}\n";
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
