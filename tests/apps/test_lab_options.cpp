// `scankit lab` command line: sizes, experiment lists, options, the plan, the help text.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "lab_options.hpp"

namespace scankit::lab {
namespace {

constexpr std::int64_t p2(int k) { return std::int64_t(1) << k; }

lab_options parse(std::vector<std::string> args) { return parse_lab_options(args); }

// The usage_error message must name what was wrong.
void expect_usage_error(const std::vector<std::string>& args, const std::string& mentions) {
  try {
    (void)parse_lab_options(args);
    ADD_FAILURE() << "no error for " << ::testing::PrintToString(args);
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos)
        << "message '" << e.what() << "' does not mention '" << mentions << "'";
  }
}

TEST(LabSizes, PowersOfTwoAndPlainNumbers) {
  EXPECT_EQ(parse_size("2^20"), p2(20));
  EXPECT_EQ(parse_size("2^0"), 1);
  EXPECT_EQ(parse_size(" 2^30 "), p2(30));
  EXPECT_EQ(parse_size("2^34"), p2(34));
  EXPECT_EQ(parse_size("1000000"), 1000000);
  EXPECT_EQ(parse_size("1"), 1);
}

TEST(LabSizes, RejectsWhatIsNotASize) {
  for (const char* bad : {"0", "-5", "3^4", "2^35", "2^", "^4", "1e6", "1M", "", "abc", "12 34", "2^-1", "+7",
                          "99999999999999999999999", "17179869185" /* 2^34 + 1 */}) {
    EXPECT_THROW((void)parse_size(bad), usage_error) << "'" << bad << "'";
  }
}

TEST(LabSizes, ListsAreSortedWithoutRepeats) {
  EXPECT_EQ(parse_size_list("2^20,1000000,2^10"), (std::vector<std::int64_t>{p2(10), 1000000, p2(20)}));
  EXPECT_EQ(parse_size_list("2^10, 1024 ,2^10"), (std::vector<std::int64_t>{p2(10)}));
  EXPECT_EQ(parse_size_list("2^10..2^13"), (std::vector<std::int64_t>{p2(10), p2(11), p2(12), p2(13)}));
  EXPECT_EQ(parse_size_list("2^4..2^4,7"), (std::vector<std::int64_t>{7, 16}));
  EXPECT_EQ(parse_size_list("1024..4096"), (std::vector<std::int64_t>{1024, 2048, 4096}));
}

TEST(LabSizes, BadListsAreRejected) {
  for (const char* bad : {"", "2^10,,2^12", ",", "2^13..2^10", "1000..2^20", "2^10..", "..2^10", "2^10;2^12"}) {
    EXPECT_THROW((void)parse_size_list(bad), usage_error) << "'" << bad << "'";
  }
}

TEST(LabExperiments, ListsRangesAndAll) {
  EXPECT_EQ(parse_experiment_list("all"), (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(parse_experiment_list("1,3-5,7"), (std::vector<int>{1, 3, 4, 5, 7}));
  EXPECT_EQ(parse_experiment_list("7,1,1"), (std::vector<int>{1, 7}));
  EXPECT_EQ(parse_experiment_list(" 4 "), (std::vector<int>{4}));
  for (const char* bad : {"", "0", "8", "5-3", "x", "1,,2", "1-", "-2", "all,1"}) {
    EXPECT_THROW((void)parse_experiment_list(bad), usage_error) << "'" << bad << "'";
  }
}

TEST(LabExperiments, EveryExperimentIsDescribed) {
  for (int id = 1; id <= experiment_count; ++id) {
    const auto& e = experiment(id);
    EXPECT_EQ(e.id, id);
    EXPECT_NE(std::string(e.slug), "");
    EXPECT_NE(std::string(e.title), "");
    EXPECT_NE(std::string(e.seed_says), "");
  }
  EXPECT_THROW((void)experiment(0), std::out_of_range);
  EXPECT_THROW((void)experiment(experiment_count + 1), std::out_of_range);
  // The coarsening sweep, the barrier count and the work count need describe_scan_kernel.
  EXPECT_TRUE(experiment(3).needs_kernel_variants);
  EXPECT_TRUE(experiment(4).needs_kernel_variants);
  EXPECT_TRUE(experiment(5).needs_kernel_variants);
  EXPECT_FALSE(experiment(7).needs_kernel_variants);
}

TEST(LabValueTypes, NamesSizesAndCapabilities) {
  const value_type all[] = {value_type::int8,  value_type::uint8,  value_type::int16,   value_type::uint16,
                            value_type::int32, value_type::uint32, value_type::int64,   value_type::uint64,
                            value_type::float32, value_type::float64};
  for (auto t : all) EXPECT_EQ(parse_value_type(to_string(t)), t);
  EXPECT_EQ(parse_value_type("float32"), value_type::float32);
  EXPECT_EQ(parse_value_type("float64"), value_type::float64);
  EXPECT_THROW((void)parse_value_type("int128"), usage_error);
  EXPECT_THROW((void)parse_value_type("Int32"), usage_error);
  EXPECT_EQ(size_of(value_type::int8), 1u);
  EXPECT_EQ(size_of(value_type::uint16), 2u);
  EXPECT_EQ(size_of(value_type::float32), 4u);
  EXPECT_EQ(size_of(value_type::float64), 8u);
  EXPECT_EQ(tuned_items_per_thread(value_type::int8), 64);
  EXPECT_EQ(tuned_items_per_thread(value_type::int32), 16);
  EXPECT_EQ(tuned_items_per_thread(value_type::float64), 8);
  EXPECT_TRUE(has_kernel_variants(value_type::int32));
  EXPECT_TRUE(has_kernel_variants(value_type::float32));
  EXPECT_FALSE(has_kernel_variants(value_type::int64));
  EXPECT_TRUE(cub_supports(value_type::int64));
  EXPECT_TRUE(cub_supports(value_type::float64));
  EXPECT_FALSE(cub_supports(value_type::uint8));
  EXPECT_TRUE(is_floating(value_type::float32));
  EXPECT_FALSE(is_floating(value_type::uint64));
}

TEST(LabOptions, Defaults) {
  const lab_options o = parse({});
  EXPECT_FALSE(o.full);
  EXPECT_EQ(o.type, value_type::int32);
  EXPECT_TRUE(o.sizes.empty());
  EXPECT_TRUE(o.experiments.empty());
  EXPECT_EQ(o.out_dir, "lab-out");
  EXPECT_EQ(o.repeat, 0);
  EXPECT_EQ(o.seed, 1u);
  EXPECT_TRUE(o.plots);
  EXPECT_FALSE(o.help);
}

TEST(LabOptions, EveryOption) {
  const lab_options o = parse({"--full", "--type", "float", "--sizes", "2^10,1000", "--scaling-sizes=2^10..2^12",
                               "--experiments", "2,4-5", "--out", "/tmp/x y", "--repeat", "7", "--seed=42",
                               "--no-plots"});
  EXPECT_TRUE(o.full);
  EXPECT_EQ(o.type, value_type::float32);
  EXPECT_TRUE(o.type_given);
  EXPECT_EQ(o.sizes, (std::vector<std::int64_t>{1000, 1024}));
  EXPECT_EQ(o.scaling_sizes, (std::vector<std::int64_t>{p2(10), p2(11), p2(12)}));
  EXPECT_EQ(o.experiments, (std::vector<int>{2, 4, 5}));
  EXPECT_EQ(o.out_dir, "/tmp/x y");
  EXPECT_EQ(o.repeat, 7);
  EXPECT_EQ(o.seed, 42u);
  EXPECT_FALSE(o.plots);
  EXPECT_TRUE(parse({"--quick"}).full == false);
  EXPECT_TRUE(parse({"-h"}).help);
  EXPECT_TRUE(parse({"--help"}).help);
}

TEST(LabOptions, ErrorsNameTheOption) {
  expect_usage_error({"--bogus"}, "--bogus");
  expect_usage_error({"lab"}, "not expected: lab");
  expect_usage_error({"--out"}, "--out: ");
  expect_usage_error({"--out="}, "--out: ");
  expect_usage_error({"--repeat", "0"}, "--repeat: ");
  expect_usage_error({"--repeat", "1001"}, "--repeat: ");
  expect_usage_error({"--repeat", "x"}, "--repeat: ");
  expect_usage_error({"--seed", "-1"}, "--seed: ");
  expect_usage_error({"--type", "bogus"}, "bogus");
  expect_usage_error({"--sizes", "2^40"}, "2^40");
  expect_usage_error({"--experiments", "9"}, "9");
  expect_usage_error({"--quick", "--full"}, "exclude");
  expect_usage_error({"--no-plots=1"}, "no-plots was given a disallowed flag override");
  expect_usage_error({"--quick=yes"}, "quick was given a disallowed flag override");
}

// A bad value: the message starts with the option's name and keeps the parser's reason.
TEST(LabOptions, BadValuesNameTheirOptionAndTheReason) {
  const struct {
    std::vector<std::string> args;
    const char* message;
  } cases[] = {
      {{"--type", "bogus"}, "--type: unknown value type 'bogus'"},
      {{"--type="}, "--type: "},
      {{"--sizes", "2^40"}, "--sizes: size '2^40' is too large"},
      {{"--sizes", ""}, "--sizes: empty size list"},
      {{"--scaling-sizes", "1000..2^20"}, "--scaling-sizes: size range '1000..2^20'"},
      {{"--experiments", "9"}, "--experiments: '9' is not an experiment"},
      {{"--experiments=5-3"}, "--experiments: range '5-3' runs backwards"},
      {{"--out", ""}, "--out: the folder name is empty"},
      {{"--repeat", "0"}, "--repeat: Value 0 not in range 1 to 1000"},
      {{"--repeat", "1001"}, "--repeat: Value 1001 not in range 1 to 1000"},
      {{"--repeat", "+7"}, "--repeat: '+7' is not a non-negative integer"},
      {{"--repeat", "0x10"}, "--repeat: '0x10' is not a non-negative integer"},
      {{"--seed", "-1"}, "--seed: '-1' is not a non-negative integer"},
      {{"--seed=0x10"}, "--seed: '0x10' is not a non-negative integer"},
      {{"--seed", "18446744073709551616"}, "--seed: '18446744073709551616' is not a non-negative integer"},
      {{"--seed", "1e3"}, "--seed: '1e3' is not a non-negative integer"},
  };
  for (const auto& c : cases) {
    try {
      (void)parse_lab_options(c.args);
      ADD_FAILURE() << "no error for " << ::testing::PrintToString(c.args);
    } catch (const usage_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind(c.message, 0), 0u)
          << "'" << e.what() << "' for " << ::testing::PrintToString(c.args);
    }
  }
  // The largest seed and repeat still count.
  EXPECT_EQ(parse({"--seed", "18446744073709551615"}).seed, 18446744073709551615u);
  EXPECT_EQ(parse({"--repeat", "1000"}).repeat, 1000);
  EXPECT_EQ(parse({"--repeat", "1"}).repeat, 1);
}

TEST(LabOptions, UnknownArgumentsAreRejected) {
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--bogus"}, {"-x"}, {"--rep", "3"}, {"-repeat", "3"}, {"--repeat", "3", "4"},
        {"--quick", "full"}, {"--", "--full"}}) {
    try {
      (void)parse_lab_options(bad);
      ADD_FAILURE() << "no error for " << ::testing::PrintToString(bad);
    } catch (const usage_error& e) {
      EXPECT_NE(std::string(e.what()).find("not expected"), std::string::npos) << e.what();
    }
  }
}

// Given twice, an option's last value counts; flags may repeat.
TEST(LabOptions, TheLastValueCounts) {
  const lab_options o = parse({"--type", "int64", "--sizes", "2^10", "--type=float", "--sizes", "2^12", "--out", "a",
                               "--out", "b", "--repeat", "2", "--repeat", "3", "--full", "--full", "--no-plots",
                               "--no-plots"});
  EXPECT_EQ(o.type, value_type::float32);
  EXPECT_EQ(o.sizes, (std::vector<std::int64_t>{p2(12)}));
  EXPECT_EQ(o.out_dir, "b");
  EXPECT_EQ(o.repeat, 3);
  EXPECT_TRUE(o.full);
  EXPECT_FALSE(o.plots);
  EXPECT_TRUE(parse({"--type", "int32"}).type_given);  // named, even as the default
  EXPECT_FALSE(parse({}).type_given);
  // A bad value is an error even when a good one follows.
  expect_usage_error({"--type", "bogus", "--type", "float"}, "--type: ");
}

TEST(LabPlan, QuickDefaults) {
  const lab_plan p = make_plan(parse({}));
  EXPECT_FALSE(p.full);
  EXPECT_EQ(p.repeat, 5);
  EXPECT_EQ(p.sizes, (std::vector<std::int64_t>{p2(20), p2(24)}));
  ASSERT_EQ(p.scaling_sizes.size(), 10u);
  EXPECT_EQ(p.scaling_sizes.front(), p2(10));
  EXPECT_EQ(p.scaling_sizes.back(), p2(28));
  EXPECT_EQ(p.scaling_sizes[1], p2(12));
  EXPECT_EQ(p.chained_scaling_limit, p2(26));
  EXPECT_EQ(p.experiments, (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(p.coarsening_factors, (std::vector<int>{1, 2, 4, 8, 16}));
  EXPECT_TRUE(p.notices.empty());
  EXPECT_EQ(p.largest_size(), p2(28));
  EXPECT_EQ(p.out_dir, "lab-out");
  EXPECT_TRUE(p.plots);
}

TEST(LabPlan, FullDefaults) {
  const lab_plan p = make_plan(parse({"--full"}));
  EXPECT_EQ(p.repeat, 10);
  EXPECT_EQ(p.sizes.back(), p2(28));
  EXPECT_EQ(p.scaling_sizes.size(), 21u);
  EXPECT_EQ(p.scaling_sizes.back(), p2(30));
  EXPECT_GE(p.chained_scaling_limit, p2(30));
  EXPECT_EQ(p.largest_size(), p2(30));
}

TEST(LabPlan, OverridesAndLargestSize) {
  const lab_plan p = make_plan(parse({"--sizes", "2^12", "--scaling-sizes", "2^14,2^16", "--repeat", "3",
                                      "--experiments", "1-2"}));
  EXPECT_EQ(p.repeat, 3);
  EXPECT_EQ(p.sizes, (std::vector<std::int64_t>{p2(12)}));
  EXPECT_EQ(p.experiments, (std::vector<int>{1, 2}));
  EXPECT_FALSE(p.runs(7));
  EXPECT_EQ(p.largest_size(), p2(12));  // experiment 7 does not run: its sizes do not count
  const lab_plan only7 = make_plan(parse({"--sizes", "2^25", "--scaling-sizes", "2^14,2^16", "--experiments", "7"}));
  EXPECT_EQ(only7.largest_size(), p2(16));
}

TEST(LabPlan, TypesWithoutKernelVariantsDropTheSweep) {
  const lab_plan p = make_plan(parse({"--type", "int64"}));
  EXPECT_EQ(p.experiments, (std::vector<int>{1, 2, 6, 7}));
  ASSERT_GE(p.notices.size(), 3u);
  EXPECT_NE(p.notices[0].find("experiment 3"), std::string::npos);
  // Asked for by number, an experiment that cannot run is an error, not a silent skip.
  EXPECT_THROW((void)make_plan(parse({"--type", "int64", "--experiments", "4"})), usage_error);
  EXPECT_NO_THROW((void)make_plan(parse({"--type", "double", "--experiments", "1,2,6,7"})));
  EXPECT_NO_THROW((void)make_plan(parse({"--type", "float", "--experiments", "3-5"})));
}

TEST(LabPlan, NoticesForCubAndScaling) {
  const lab_plan u8 = make_plan(parse({"--type", "uint8", "--experiments", "6"}));
  bool cub_notice = false;
  for (const auto& n : u8.notices) cub_notice = cub_notice || n.find("CUB") != std::string::npos;
  EXPECT_TRUE(cub_notice);
  const lab_plan one = make_plan(parse({"--scaling-sizes", "2^20", "--experiments", "7"}));
  bool fit_notice = false;
  for (const auto& n : one.notices) fit_notice = fit_notice || n.find("fewer than two sizes") != std::string::npos;
  EXPECT_TRUE(fit_notice);
}

TEST(LabUsage, ExplainsEveryOptionAndExperiment) {
  const std::string u = lab_usage();
  for (const char* option : {"--quick", "--full", "--type", "--sizes", "--scaling-sizes", "--experiments", "--out",
                             "--repeat", "--seed", "--no-plots", "--help"}) {
    EXPECT_NE(u.find(option), std::string::npos) << option;
  }
  for (int id = 1; id <= experiment_count; ++id) EXPECT_NE(u.find(experiment(id).title), std::string::npos) << id;
  EXPECT_NE(u.find("MISMATCH"), std::string::npos);
  EXPECT_NE(u.find("status 3"), std::string::npos);
}

// The options section: every option on one line, its description beside it.
TEST(LabUsage, ListsEveryOptionOnOneLineWithADescription) {
  const std::string u = lab_usage();
  ASSERT_NE(u.find("usage: scankit lab"), std::string::npos) << u;
  std::istringstream in(u.substr(u.find("\nOptions:\n") + 10));
  std::vector<std::string> names;
  for (std::string line; std::getline(in, line) && !line.empty();) {
    ASSERT_EQ(line.rfind("  -", 0), 0u) << "not an option line: '" << line << "'\n" << u;
    const auto end_of_name = line.find(' ', 2);
    const auto gap = line.find("  ", 2);  // the name column ends in two blanks or more
    ASSERT_NE(gap, std::string::npos) << "no description: '" << line << "'";
    EXPECT_NE(line.find_first_not_of(' ', gap), std::string::npos) << "no description: '" << line << "'";
    names.push_back(line.substr(2, std::min(end_of_name, gap) - 2));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"-h,--help", "--quick", "--full", "--type", "--sizes", "--scaling-sizes",
                                             "--experiments", "--out", "--repeat", "--seed", "--no-plots"}))
      << u;
}

TEST(LabFormat, SizesAsPowersOfTwo) {
  EXPECT_EQ(format_size(p2(20)), "2^20");
  EXPECT_EQ(format_size(2), "2^1");
  EXPECT_EQ(format_size(1), "1");
  EXPECT_EQ(format_size(1000000), "1000000");
  EXPECT_EQ(format_size(p2(30)), "2^30");
}

}  // namespace
}  // namespace scankit::lab
