// `scankit lab`: the helpers the experiments share (see lab_experiment_common.hpp).
#include "lab_experiment_common.hpp"

#include <cstdarg>
#include <cstdio>
#include <utility>

namespace scankit::lab {

std::string fmt(const char* format, ...) {
  char buf[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

experiment_report new_experiment(int id) {
  const auto& info = experiment(id);
  experiment_report e;
  e.id = id;
  e.slug = info.slug;
  e.title = info.title;
  e.seed_says = info.seed_says;
  e.ran = true;
  return e;
}

result_table new_table(int id, const std::string& suffix, const std::string& title, std::vector<std::string> columns) {
  result_table t;
  t.name = "exp" + std::to_string(id) + "_" + (suffix.empty() ? std::string(experiment(id).slug) : suffix);
  t.title = title;
  t.columns = std::move(columns);
  return t;
}

cell ms_cell(double ms) { return cell::of_real(ms, 4); }
cell ratio_cell(double r) { return cell::of_real(r, 2); }

}  // namespace scankit::lab
