// Runs the model checker over corpus/**/*.cake and compares its sync.*,
// data.* and proxy.* findings with the files' inline expectations
// (docs/contributing.md "Corpus expectations").
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "checks/model_check.h"
#include "ir/frontend.h"

using namespace cake;
namespace fs = std::filesystem;

namespace {

bool mine(const std::string& rule) {
  return rule.rfind("sync.", 0) == 0 || rule.rfind("data.", 0) == 0 || rule.rfind("proxy.", 0) == 0;
}

struct Expectations {
  std::set<std::string> rules;              // # expect: <rule>
  bool pass = false;                        // # expect: pass
  std::map<std::string, std::set<int>> lines;  // # expect-error: <rule> -> lines
  std::set<std::string> any;                // # expect-any: r1 r2 ... (one of them)
  std::set<std::string> also;               // # may-also: r1 r2 ... (tolerated extras)
};

Expectations expectations(const std::string& text) {
  Expectations e;
  std::istringstream in(text);
  std::string line;
  std::regex whole(R"(^\s*#\s*expect:\s*([\w.\-]+))"), trailing(R"(#\s*expect-error:\s*([\w.\-]+))"),
      any(R"(^\s*#\s*expect-any:(.*))");
  for (int n = 1; std::getline(in, line); ++n) {
    std::smatch m;
    std::smatch mm;
    if (std::regex_search(line, mm, std::regex(R"(^\s*#\s*may-also:(.*))"))) {
      std::istringstream words(mm[1].str());
      for (std::string w; words >> w;) e.also.insert(w);
    } else if (std::regex_search(line, m, any)) {
      std::istringstream words(m[1].str());
      for (std::string w; words >> w;) e.any.insert(w);
    } else if (std::regex_search(line, m, whole)) {
      if (m[1] == "pass") e.pass = true;
      else e.rules.insert(m[1]);
    } else if (std::regex_search(line, m, trailing)) {
      e.lines[m[1]].insert(n);
    }
  }
  return e;
}

}  // namespace

TEST(CorpusSync, Expectations) {
  fs::path root = fs::path(CAKE_SOURCE_DIR) / "corpus";
  if (!fs::exists(root)) GTEST_SKIP() << "no corpus";
  std::vector<double> times;
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".cake") continue;
    std::string err;
    auto file = ir::readSourceFile(entry.path().string(), err);
    ASSERT_TRUE(file) << err;
    Expectations ex = expectations(file->text);
    ir::DiagnosticSink fe;
    auto mod = ir::compileModule(file, {}, fe);
    if (!mod) continue;  // front-end expectations are not ours
    ++files;
    std::vector<ir::Finding> findings;
    for (const auto& s : mod->schedules) {
      checks::CheckOptions opts;
      opts.target = s.target;
      ir::DiagnosticSink sink;
      std::vector<checks::PropertyVerdict> verdicts;
      auto t0 = std::chrono::steady_clock::now();
      checks::runModelChecker(s, opts, sink, verdicts);
      double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      times.push_back(sec);
      if (sec > 1.0) std::cout << "slow: " << entry.path() << " " << sec << " s\n";
      for (auto& f : sink.findings()) findings.push_back(f);
      // Unknown is fine where the file is about another stage's error
      // (e.g. a slot out of range makes the system unbuildable).
      bool others = std::any_of(ex.rules.begin(), ex.rules.end(), [](const std::string& r) { return !mine(r); }) ||
                    std::any_of(ex.any.begin(), ex.any.end(), [](const std::string& r) { return !mine(r); }) ||
                    std::any_of(ex.lines.begin(), ex.lines.end(), [](const auto& kv) { return !mine(kv.first); });
      for (auto& v : verdicts)
        if (v.kind == checks::VerdictKind::Error || (v.kind == checks::VerdictKind::Unknown && !others))
          ADD_FAILURE() << entry.path() << ": " << v.property << " " << checks::verdictName(v.kind) << " " << v.detail;
      if (getenv("CAKE_VERBOSE")) {
        std::cout << entry.path().lexically_relative(root) << " " << s.name << " " << sec << "s";
        for (auto& v : verdicts) std::cout << " [" << v.property << " " << checks::verdictName(v.kind) << " " << v.detail << "]";
        std::cout << "\n";
        for (auto& f : sink.findings()) std::cout << "  " << f.range.line << ": " << f.rule << ": " << f.message << "\n";
      }
    }
    std::set<std::string> reported;
    for (auto& f : findings)
      if (f.severity == ir::Severity::Error && mine(f.rule)) reported.insert(f.rule);
    std::string name = entry.path().lexically_relative(root).string();
    if (ex.pass) EXPECT_TRUE(reported.empty()) << name << ": expected pass, got " << *reported.begin();
    for (const std::string& r : ex.rules) {
      if (!mine(r)) continue;
      EXPECT_TRUE(reported.count(r)) << name << ": expected " << r;
    }
    // Extra rules (not expected, not tolerated): reported with CAKE_EXTRAS=1.
    if (getenv("CAKE_EXTRAS"))
      for (const std::string& r : reported)
        if (!ex.rules.count(r) && !ex.any.count(r) && !ex.also.count(r) && !ex.lines.count(r))
          std::cout << "extra: " << name << ": " << r << "\n";
    bool any_mine = std::any_of(ex.any.begin(), ex.any.end(), [](const std::string& r) { return mine(r); });
    bool any_other = std::any_of(ex.any.begin(), ex.any.end(), [](const std::string& r) { return !mine(r); });
    if (any_mine && !any_other)
      EXPECT_TRUE(std::any_of(ex.any.begin(), ex.any.end(), [&](const std::string& r) { return reported.count(r) > 0; }))
          << name << ": expected one of the expect-any rules";
    for (auto& [r, lines] : ex.lines) {
      if (!mine(r)) continue;
      bool hit = std::any_of(findings.begin(), findings.end(),
                             [&](const ir::Finding& f) { return f.rule == r && lines.count(f.range.line); });
      EXPECT_TRUE(hit) << name << ": expected " << r << " on one of the marked lines";
    }
  }
  std::sort(times.begin(), times.end());
  if (!times.empty())
    std::cout << "corpus: " << files << " files, " << times.size() << " schedules, median " << times[times.size() / 2]
              << " s, max " << times.back() << " s\n";
}
