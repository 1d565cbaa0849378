// `scankit lab` results: cells, aligned tables, CSV, JSON, the files, and the arithmetic behind
// the findings.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab_analysis.hpp"
#include "lab_report.hpp"
#include "lab_test_util.hpp"

namespace scankit::lab {
namespace {

using testing::is_valid_json;
using testing::read_text;
using testing::temp_dir;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

result_table sample_table() {
  result_table t;
  t.name = "exp9_sample";
  t.title = "a sample";
  t.columns = {"n", "variant", "time_ms", "check"};
  t.add_row({cell::of_size(1 << 20), cell::of("decoupled_look_back/warp_of_warps/K16"), cell::of_real(0.0123456, 4),
             cell::of("ok")});
  t.add_row({cell::of_size(1000000), cell::of("a, \"quoted\" one"), cell::none(), cell::of("MISMATCH")});
  return t;
}

TEST(LabCell, DisplayRawAndJson) {
  EXPECT_EQ(cell::of("x").display(), "x");
  EXPECT_EQ(cell::of("x").json(), "\"x\"");
  EXPECT_EQ(cell::of_int(-42).display(), "-42");
  EXPECT_EQ(cell::of_int(-42).raw(), "-42");
  EXPECT_EQ(cell::of_real(3.14159, 2).display(), "3.14");
  EXPECT_EQ(cell::of_real(3.14159, 2).raw(), "3.14159");  // full precision in files
  EXPECT_EQ(cell::of_real(0.1, 1).json(), "0.1");
  EXPECT_EQ(cell::none().display(), "-");
  EXPECT_EQ(cell::none().raw(), "");
  EXPECT_EQ(cell::none().json(), "null");
  EXPECT_EQ(cell::of_real(std::numeric_limits<double>::quiet_NaN()).json(), "null");
  EXPECT_EQ(cell::of_real(std::numeric_limits<double>::infinity()).display(), "-");
  EXPECT_EQ(cell::of_size(1 << 20).display(), "2^20");
  EXPECT_EQ(cell::of_size(1 << 20).raw(), "1048576");
  EXPECT_EQ(cell::of_size(1 << 20).json(), "1048576");
  EXPECT_EQ(cell::of_size(1000).display(), "1000");
}

TEST(LabJson, StringsAndNumbers) {
  EXPECT_EQ(cell::of("a\"b\\c\nd\te").json(), "\"a\\\"b\\\\c\\nd\\te\"");
  EXPECT_EQ(cell::of(std::string("\x01", 1)).json(), "\"\\u0001\"");
  EXPECT_EQ(cell::of("한국어").json(), "\"한국어\"");  // UTF-8 passes through
  // Bytes that are not UTF-8 become U+FFFD: the document stays valid JSON.
  const std::string not_utf8 = cell::of("bad \xff byte").json();
  EXPECT_EQ(not_utf8, "\"bad \xef\xbf\xbd byte\"");
  EXPECT_TRUE(is_valid_json(not_utf8));
  for (double v : {0.0, 1.0, -2.5, 0.1, 1e-9, 123456789.123, 3099.7, 1.0 / 3.0, 1e300, -4.9e-324,
                   std::numeric_limits<double>::max()}) {
    const std::string s = cell::of_real(v).json();
    ASSERT_TRUE(is_valid_json(s)) << s;
    const nlohmann::json back = nlohmann::json::parse(s);
    EXPECT_TRUE(back.is_number_float()) << s;  // a real stays a real, even 1.0
    EXPECT_EQ(back.get<double>(), v) << s;     // and reads back to the same double
  }
  EXPECT_EQ(cell::of_real(0.25).json(), "0.25");
  EXPECT_EQ(cell::of_int(-7).json(), "-7");
  EXPECT_EQ(cell::of_real(std::numeric_limits<double>::infinity()).json(), "null");
  // A real cell built by hand with NaN or infinity: null in JSON, empty in CSV (neither has a NaN).
  for (double v : {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity()}) {
    cell c;
    c.what = cell::kind::real;
    c.real_value = v;
    EXPECT_EQ(c.json(), "null");
    EXPECT_EQ(c.raw(), "");
  }
}

TEST(LabTable, RowsMustFitTheColumns) {
  result_table t;
  t.columns = {"a", "b"};
  EXPECT_THROW(t.add_row({cell::of("x")}), std::invalid_argument);
  EXPECT_NO_THROW(t.add_row({cell::of("x"), cell::of_int(1)}));
}

TEST(LabTable, AlignedTextNumbersRight) {
  const auto lines = lines_of(format_table(sample_table()));
  ASSERT_EQ(lines.size(), 4u);  // header, rule, two rows
  EXPECT_EQ(lines[0].find("n"), lines[0].find_first_not_of(' '));
  EXPECT_NE(lines[1].find_first_of('-'), std::string::npos);
  EXPECT_EQ(lines[1].find_first_not_of("- "), std::string::npos);
  // Every column starts at the same offset on every line: the rule shows the column widths.
  const std::string& rule = lines[1];
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < rule.size(); ++i)
    if (rule[i] == '-' && (i == 0 || rule[i - 1] == ' ')) starts.push_back(i);
  ASSERT_EQ(starts.size(), 4u);
  // The numeric n column is right-aligned ("2^20" and "1000000"), text columns left-aligned.
  EXPECT_EQ(lines[2].substr(0, starts[1] - 2), "   2^20");
  EXPECT_EQ(lines[3].substr(0, starts[1] - 2), "1000000");
  EXPECT_EQ(lines[2].substr(starts[1], 8), "decouple");
  EXPECT_EQ(lines[3].substr(starts[2], rule.find(' ', starts[2]) - starts[2]), "      -");  // empty number cell
  for (const auto& line : lines) EXPECT_NE(line.back(), ' ') << "trailing blank in '" << line << "'";
}

TEST(LabCsv, QuotesOnlyWhereNeeded) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  const std::string csv = to_csv(sample_table());
  EXPECT_EQ(csv,
            "n,variant,time_ms,check\n"
            "1048576,decoupled_look_back/warp_of_warps/K16,0.0123456,ok\n"
            "1000000,\"a, \"\"quoted\"\" one\",,MISMATCH\n");
}

lab_report sample_report() {
  lab_report r;
  r.metadata.push_back({"gpu", cell::of("NVIDIA H200")});
  r.metadata.push_back({"l2_bytes", cell::of_int(62914560)});
  experiment_report ran;
  ran.id = 1;
  ran.slug = "three_launch_vs_cpu";
  ran.title = "Three-launch";
  ran.seed_says = "compare with the CPU";
  ran.ran = true;
  ran.tables.push_back(sample_table());
  ran.findings.push_back("n = 2^20: 45x faster");
  ran.notices.push_back("a \"quoted\" notice");
  r.experiments.push_back(ran);
  experiment_report skipped;
  skipped.id = 2;
  skipped.slug = "warp_vs_shared";
  skipped.title = "Warp";
  skipped.ran = false;
  skipped.skipped_reason = "not selected";
  r.experiments.push_back(skipped);
  r.measurements.name = "measurements";
  r.measurements.columns = {"variant", "n", "time_ms"};
  r.measurements.add_row({cell::of("cudaMemcpy D2D"), cell::of_int(1024), cell::of_real(0.002, 4)});
  return r;
}

TEST(LabJson, WholeReportIsValidJson) {
  lab_report r = sample_report();
  const std::string json = to_json(r);
  EXPECT_TRUE(is_valid_json(json));
  EXPECT_NE(json.find("\"correct\": true"), std::string::npos);
  EXPECT_NE(json.find("\"status\": \"skipped\""), std::string::npos);
  EXPECT_NE(json.find("\"skipped_reason\": \"not selected\""), std::string::npos);
  EXPECT_NE(json.find("\"n\": 1048576"), std::string::npos);
  EXPECT_NE(json.find("\"time_ms\": null"), std::string::npos);
  r.mismatches.push_back("x at n = 2^20: 3 elements differ");
  const std::string failed = to_json(r);
  EXPECT_TRUE(is_valid_json(failed));
  EXPECT_NE(failed.find("\"correct\": false"), std::string::npos);
  EXPECT_TRUE(is_valid_json(to_json(lab_report{})));
  ASSERT_NE(r.find_metadata("gpu"), nullptr);
  EXPECT_EQ(r.find_metadata("gpu")->display(), "NVIDIA H200");
  EXPECT_EQ(r.find_metadata("nothing"), nullptr);
}

// The layout that scripts/plot_lab.py and docs/scan-lab.md describe: keys in this order, values typed.
TEST(LabJson, LayoutOfTheReport) {
  lab_report r = sample_report();
  r.notices.push_back("run-wide");
  r.errors.push_back("a variant failed");
  // Not const: a missing key reads as null (a failed expectation) instead of an assertion.
  auto doc = nlohmann::ordered_json::parse(to_json(r));
  auto keys = [](const nlohmann::ordered_json& object) {
    std::vector<std::string> k;
    for (const auto& item : object.items()) k.push_back(item.key());
    return k;
  };
  EXPECT_EQ(keys(doc), (std::vector<std::string>{"tool", "metadata", "correct", "mismatches", "errors", "notices",
                                                 "experiments", "measurements"}));
  EXPECT_EQ(doc["tool"], "scankit lab");
  EXPECT_EQ(keys(doc["metadata"]), (std::vector<std::string>{"gpu", "l2_bytes"}));
  EXPECT_EQ(doc["metadata"]["gpu"], "NVIDIA H200");
  EXPECT_TRUE(doc["metadata"]["l2_bytes"].is_number_integer());
  EXPECT_EQ(doc["metadata"]["l2_bytes"], 62914560);
  EXPECT_EQ(doc["correct"], false);
  EXPECT_EQ(doc["mismatches"], nlohmann::ordered_json::array());
  EXPECT_EQ(doc["errors"], nlohmann::ordered_json::array({"a variant failed"}));
  EXPECT_EQ(doc["notices"], nlohmann::ordered_json::array({"run-wide"}));

  ASSERT_EQ(doc["experiments"].size(), 2u);
  auto& ran = doc["experiments"][0];
  EXPECT_EQ(keys(ran), (std::vector<std::string>{"id", "slug", "title", "seed_says", "status", "findings", "notices",
                                                 "tables"}));
  EXPECT_EQ(ran["id"], 1);
  EXPECT_EQ(ran["status"], "ran");
  EXPECT_EQ(ran["findings"], nlohmann::ordered_json::array({"n = 2^20: 45x faster"}));
  EXPECT_EQ(ran["notices"], nlohmann::ordered_json::array({"a \"quoted\" notice"}));
  ASSERT_EQ(ran["tables"].size(), 1u);
  auto& table = ran["tables"][0];
  EXPECT_EQ(keys(table), (std::vector<std::string>{"name", "title", "columns", "rows"}));
  EXPECT_EQ(table["name"], "exp9_sample");
  EXPECT_EQ(table["columns"], nlohmann::ordered_json::array({"n", "variant", "time_ms", "check"}));
  ASSERT_EQ(table["rows"].size(), 2u);
  // A row is an object of its cells, in column order.
  EXPECT_EQ(keys(table["rows"][0]), (std::vector<std::string>{"n", "variant", "time_ms", "check"}));
  EXPECT_EQ(table["rows"][0]["n"], 1048576);
  EXPECT_EQ(table["rows"][0]["variant"], "decoupled_look_back/warp_of_warps/K16");
  EXPECT_EQ(table["rows"][0]["time_ms"].get<double>(), 0.0123456);
  EXPECT_EQ(table["rows"][1]["variant"], "a, \"quoted\" one");
  EXPECT_TRUE(table["rows"][1]["time_ms"].is_null());

  auto& skipped = doc["experiments"][1];
  EXPECT_EQ(keys(skipped), (std::vector<std::string>{"id", "slug", "title", "seed_says", "status", "skipped_reason",
                                                     "findings", "notices", "tables"}));
  EXPECT_EQ(skipped["status"], "skipped");
  EXPECT_EQ(skipped["skipped_reason"], "not selected");
  EXPECT_EQ(skipped["tables"], nlohmann::ordered_json::array());

  EXPECT_EQ(doc["measurements"]["name"], "measurements");
  EXPECT_EQ(doc["measurements"]["rows"][0]["variant"], "cudaMemcpy D2D");
  EXPECT_EQ(doc["measurements"]["rows"][0]["n"], 1024);
  EXPECT_EQ(doc["measurements"]["rows"][0]["time_ms"].get<double>(), 0.002);

  // Empty parts are empty objects and arrays, not missing.
  auto empty = nlohmann::ordered_json::parse(to_json(lab_report{}));
  EXPECT_EQ(empty["metadata"], nlohmann::ordered_json::object());
  EXPECT_EQ(empty["experiments"], nlohmann::ordered_json::array());
  EXPECT_EQ(empty["measurements"]["columns"], nlohmann::ordered_json::array());
  EXPECT_EQ(empty["measurements"]["rows"], nlohmann::ordered_json::array());
}

TEST(LabReport, ExperimentOnTheTerminal) {
  const lab_report r = sample_report();
  const std::string ran = format_experiment(r.experiments[0]);
  EXPECT_NE(ran.find("Experiment 1: Three-launch"), std::string::npos);
  EXPECT_NE(ran.find("Seed: compare with the CPU"), std::string::npos);
  EXPECT_NE(ran.find("Findings:"), std::string::npos);
  EXPECT_NE(ran.find("45x faster"), std::string::npos);
  EXPECT_NE(ran.find("note: a \"quoted\" notice"), std::string::npos);
  const std::string skipped = format_experiment(r.experiments[1]);
  EXPECT_NE(skipped.find("skipped: not selected"), std::string::npos);
}

TEST(LabFiles, WritesCsvPerTableAndJson) {
  temp_dir dir;
  const auto out = dir.path() / "nested" / "out";
  const auto written = write_report_files(sample_report(), out.string());
  EXPECT_EQ(written.size(), 3u);
  EXPECT_EQ(read_text(out / "exp9_sample.csv"), to_csv(sample_table()));
  EXPECT_NE(read_text(out / "measurements.csv").find("cudaMemcpy D2D,1024,0.002"), std::string::npos);
  EXPECT_TRUE(is_valid_json(read_text(out / "lab.json")));
}

TEST(LabFiles, UnwritableFolderIsAnError) {
  temp_dir dir;
  const auto file = dir.path() / "a-file";
  { std::ofstream(file) << "x"; }
  EXPECT_THROW((void)write_report_files(sample_report(), (file / "sub").string()), std::runtime_error);
}

// --- analysis

TEST(LabAnalysis, Median) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median({7}), 7);
  EXPECT_TRUE(std::isnan(median({})));
}

TEST(LabAnalysis, LineFit) {
  const line_fit f = fit_line({1, 2, 3, 4}, {3, 5, 7, 9});
  ASSERT_TRUE(f.ok);
  EXPECT_NEAR(f.slope, 2.0, 1e-12);
  EXPECT_NEAR(f.intercept, 1.0, 1e-12);
  EXPECT_FALSE(fit_line({1}, {1}).ok);
  EXPECT_FALSE(fit_line({2, 2}, {1, 3}).ok);
}

TEST(LabAnalysis, TimeSavedAndTheLectureClaim) {
  EXPECT_NEAR(time_saved(0.65, 1.0), 0.35, 1e-12);
  EXPECT_TRUE(std::isnan(time_saved(1, 0)));
  EXPECT_EQ(compare_with_claim(0.35), "within the lecture's 30-40%");
  EXPECT_EQ(compare_with_claim(0.10), "below the lecture's 30-40%");
  EXPECT_EQ(compare_with_claim(0.55), "above the lecture's 30-40%");
  EXPECT_EQ(compare_with_claim(std::nan("")), "not measured");
  EXPECT_EQ(percent(0.1234), "12.3%");
  EXPECT_EQ(percent(-0.05), "-5.0%");
}

TEST(LabAnalysis, WhereOccupancyStartsToFall) {
  const auto drop = first_occupancy_drop({1, 2, 4, 8, 16}, {1.0, 1.0, 1.0, 0.75, 0.5});
  ASSERT_TRUE(drop.has_value());
  EXPECT_EQ(drop->k, 8);
  EXPECT_EQ(drop->previous_k, 4);
  EXPECT_EQ(drop->from, 1.0);
  EXPECT_EQ(drop->to, 0.75);
  EXPECT_FALSE(first_occupancy_drop({1, 2, 4}, {0.5, 0.5, 0.5}).has_value());
  EXPECT_FALSE(first_occupancy_drop({1, 2}, {0.5, 0.75}).has_value());  // a rise is not a fall
  EXPECT_FALSE(first_occupancy_drop({}, {}).has_value());
}

TEST(LabAnalysis, LinearScalingIsRecognised) {
  const std::int64_t l2 = 60 << 20;
  std::vector<std::int64_t> n;
  std::vector<double> linear, n_log_n, launch_bound;
  for (int k = 10; k <= 30; k += 2) {
    const std::int64_t x = std::int64_t(1) << k;
    n.push_back(x);
    linear.push_back(0.001 + x * 4.0 * 2 / 3.2e9);  // 1 us launch + 3.2 TB/s (bytes per ms)
    n_log_n.push_back(1e-7 * x * std::log2(static_cast<double>(x)));
    launch_bound.push_back(0.005);
  }
  const scaling_verdict v = judge_scaling(n, linear, 4, l2);
  EXPECT_EQ(v.points, 3);  // 2^26 .. 2^30 move at least 4 x 60 MiB (input + output)
  EXPECT_EQ(v.first_n, std::int64_t(1) << 26);
  EXPECT_EQ(v.last_n, std::int64_t(1) << 30);
  EXPECT_TRUE(v.flat);
  EXPECT_TRUE(v.linear);
  EXPECT_NEAR(v.exponent, 1.0, 0.01);
  EXPECT_NEAR(v.n_log_n_growth, 30.0 / 26.0 - 1.0, 1e-12);
  EXPECT_EQ(v.summary.rfind("linear", 0), 0u) << v.summary;

  const scaling_verdict bad = judge_scaling(n, n_log_n, 4, l2);
  EXPECT_FALSE(bad.flat);
  EXPECT_FALSE(bad.linear);
  EXPECT_GT(bad.spread, 0.15);  // 30/26 - 1 = 15.4% from 2^26 to 2^30
  EXPECT_NE(bad.summary.find("NOT linear"), std::string::npos);

  const scaling_verdict flat_time = judge_scaling(n, launch_bound, 4, l2);
  EXPECT_FALSE(flat_time.linear);  // constant time is not linear growth

  const scaling_verdict few = judge_scaling({1 << 10, 1 << 20}, {0.01, 0.02}, 4, l2);
  EXPECT_EQ(few.points, 0);
  EXPECT_FALSE(few.linear);
  EXPECT_NE(few.summary.find("not enough sizes"), std::string::npos);
}

}  // namespace
}  // namespace scankit::lab
