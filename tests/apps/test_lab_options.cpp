// `scankit lab` command line: sizes, experiment lists, options, the plan, the help text.
#include <gtest/gtest.h>

#include <cstdint>
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
  expect_usage_error({"lab"}, "'lab'");
  expect_usage_error({"--out"}, "--out needs a value");
  expect_usage_error({"--out="}, "--out");
  expect_usage_error({"--repeat", "0"}, "--repeat");
  expect_usage_error({"--repeat", "1001"}, "--repeat");
  expect_usage_error({"--repeat", "x"}, "--repeat");
  expect_usage_error({"--seed", "-1"}, "--seed");
  expect_usage_error({"--type", "bogus"}, "bogus");
  expect_usage_error({"--sizes", "2^40"}, "2^40");
  expect_usage_error({"--experiments", "9"}, "9");
  expect_usage_error({"--quick", "--full"}, "exclude");
  expect_usage_error({"--no-plots=1"}, "takes no value");
  expect_usage_error({"--quick=yes"}, "takes no value");
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

TEST(LabFormat, SizesAsPowersOfTwo) {
  EXPECT_EQ(format_size(p2(20)), "2^20");
  EXPECT_EQ(format_size(2), "2^1");
  EXPECT_EQ(format_size(1), "1");
  EXPECT_EQ(format_size(1000000), "1000000");
  EXPECT_EQ(format_size(p2(30)), "2^30");
}

}  // namespace
}  // namespace scankit::lab
