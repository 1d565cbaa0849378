// The end of the plain-main() sweeps (tune_scan, tune_compact): the JSON result file
// {<head>, "rows": [one object per row]} and the exit status (1 if any row's output mismatched
// its reference, so a sweep never reports a fast wrong variant as a success).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace scankit_bench {

// `row_fields(row)` gives one row's JSON members ("\"ms\": 0.5, ..."); rows have a bool `ok`.
template <class Row, class RowFields>
int finish_sweep(const char* json_path, const std::string& head, const std::vector<Row>& rows, RowFields row_fields) {
  if (json_path != nullptr) {
    FILE* f = std::fopen(json_path, "w");
    if (f == nullptr) return 1;
    std::fprintf(f, "{\n  %s,\n  \"rows\": [\n", head.c_str());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      std::fprintf(f, "    {%s, \"ok\": %s}%s\n", row_fields(rows[i]).c_str(), rows[i].ok ? "true" : "false",
                   i + 1 < rows.size() ? "," : "");
    }
    std::fprintf(f, "  ]\n}\n");
    std::fclose(f);
  }
  for (const auto& r : rows)
    if (!r.ok) return 1;
  return 0;
}

// printf-style formatting into a std::string (for row_fields).
template <class... Args>
std::string format(const char* pattern, Args... args) {
  char buffer[512];
  std::snprintf(buffer, sizeof(buffer), pattern, args...);
  return buffer;
}

}  // namespace scankit_bench
