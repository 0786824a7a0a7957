// Every tests/frontend/malformed/*.cake starts with
//   # expect-error: <rule-id> @ LINE:COL
// and must be rejected with that rule at that location (the first finding).
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "test_util.h"

using namespace cake::ir;
using namespace cake::ir::test;
namespace fs = std::filesystem;

namespace {

struct Expectation {
  std::string rule;
  int line = 0, col = 0;
};

std::optional<Expectation> header(const std::string& text) {
  static const std::regex re(R"(^# expect-error: ([a-z]+\.[a-z-]+) @ (\d+):(\d+))");
  std::smatch m;
  std::string first = text.substr(0, text.find('\n'));
  if (!std::regex_search(first, m, re)) return std::nullopt;
  return Expectation{m[1], std::stoi(m[2]), std::stoi(m[3])};
}

std::vector<fs::path> malformedFiles() {
  std::vector<fs::path> out;
  fs::path dir = sourceDir() / "tests/frontend/malformed";
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".cake") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(Malformed, AtLeastFortyCases) { EXPECT_GE(malformedFiles().size(), 40u); }

TEST(Malformed, EveryRuleIsCovered) {
  std::set<std::string> seen;
  for (const fs::path& p : malformedFiles())
    if (auto h = header(readFile(p))) seen.insert(h->rule);
  for (const RuleInfo& r : frontendRules()) {
    if (r.id == "type.target-mismatch") continue;  // needs --target: see Resolver.TargetMismatch
    EXPECT_TRUE(seen.count(std::string(r.id))) << "no malformed case for " << r.id;
  }
}

class MalformedFile : public ::testing::TestWithParam<fs::path> {};

TEST_P(MalformedFile, ReportsTheExpectedLocatedError) {
  const fs::path& p = GetParam();
  std::string text = readFile(p);
  auto want = header(text);
  ASSERT_TRUE(want) << p << ": first line must be '# expect-error: <rule-id> @ LINE:COL'";
  ASSERT_TRUE(findRule(frontendRules(), want->rule)) << "unknown rule " << want->rule;
  auto file = src(text, p.filename().string());
  DiagnosticSink sink;
  auto m = compileModule(file, {}, sink);
  EXPECT_FALSE(m.has_value());
  ASSERT_FALSE(sink.findings().empty());
  const Finding& f = sink.findings().front();
  EXPECT_EQ(f.rule, want->rule) << describe(sink);
  EXPECT_EQ(f.range.line, want->line) << describe(sink);
  EXPECT_EQ(f.range.col, want->col) << describe(sink);
  EXPECT_EQ(f.severity, Severity::Error);
  EXPECT_TRUE(f.range.file == file);
  EXPECT_FALSE(f.message.empty());
  EXPECT_FALSE(renderText(f).empty());
  // syntax errors also stop the formatter, with the same finding
  DiagnosticSink fsink;
  auto formatted = formatSource(file, fsink);
  bool syntactic = want->rule.rfind("syntax.", 0) == 0 && f.message.find("after substituting") == std::string::npos;
  if (syntactic) {
    EXPECT_FALSE(formatted.has_value());
    ASSERT_FALSE(fsink.findings().empty());
    EXPECT_EQ(fsink.findings().front().rule, want->rule);
    EXPECT_EQ(fsink.findings().front().range.line, want->line);
  } else {
    ASSERT_TRUE(formatted.has_value()) << describe(fsink);
    DiagnosticSink s2;
    auto again = formatSource(src(*formatted), s2);
    ASSERT_TRUE(again.has_value());
    EXPECT_EQ(*again, *formatted);
  }
}

INSTANTIATE_TEST_SUITE_P(Files, MalformedFile, ::testing::ValuesIn(malformedFiles()),
                         [](const ::testing::TestParamInfo<fs::path>& i) { return i.param.stem().string(); });
