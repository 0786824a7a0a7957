// The layout gates on the corpus: every hand-written `.cake` file under corpus/ is
// compiled and run through runLayoutGates alone (one test, all files).
//  * An expected rule of the gates' families (`# expect:` / `# expect-error:`)
//    must be reported, at one of the marked lines when lines are marked.
//  * A known-bad file whose expected rules are all other engines' must get
//    no error from the gates (unless a `# may-also:` names a gate rule).
//  * No gate verdict may be unknown or an internal error.
// Files labelled `# expect: pass` are the corpus gate's alone (CI runs it on
// every file): there an error is a false positive and an undecided verdict
// an unknown case, and either fails the gate (docs/ci.md, session 52).
#include <algorithm>
#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "gate/corpus_gate.h"
#include "layout_test_util.h"

namespace cake {
namespace {

namespace fs = std::filesystem;
using layout_test::readFile;
using layout_test::sourceDir;

// The gates' rules, and the static case of sync.tx-imbalance they report too.
bool gateRule(const std::string& r) {
  const ir::RuleInfo* info = ir::findRule(r);
  return (info && info->owner == ir::RuleOwner::Gates) || r == "sync.tx-imbalance";
}

std::vector<std::string> corpusFiles() {
  std::vector<std::string> out;
  fs::path root = sourceDir() / "corpus";
  if (!fs::exists(root)) return out;
  // The hand-written files only: the corpus gate judges the 1,200 mutants
  // with the whole check (layout gates included) against their labels, and
  // running the gates over them again here made this CI's longest test
  // (94 s of ctest's 165 s on 2 cores).
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().extension() != ".cake") continue;
    std::string rel = fs::relative(e.path(), root).string();
    if (!rel.starts_with("mutants/")) out.push_back(rel);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void gatesAgreeWithExpectations(const std::string& rel) {
  fs::path path = sourceDir() / "corpus" / rel;
  std::string text = readFile(path);
  checks::gate::Expectation ex = checks::gate::parseExpectations(text);
  if (ex.empty()) return;  // the corpus gate reports it (invalid case)
  // A known-good file: the corpus gate (CI's `cake corpus`, every file)
  // asserts all of it, and more: any error finding is a false positive,
  // and any verdict unknown or an error (the gates' included) leaves the
  // case unknown; both fail the gate (docs/corpus-gate.md "The numbers").
  // What it does not see is on the known-bad files (below).
  if (ex.pass) return;

  ir::SourceFilePtr file = ir::makeSourceFile(path.string(), text);
  const ir::FrontendOptions fo = checks::gate::frontendOptionsFor(text);
  const ir::Target target = fo.target_override;
  ir::DiagnosticSink fsink;
  auto mod = ir::compileModule(file, fo, fsink);
  if (!mod) return;  // front-end cases: the corpus gate judges them

  const std::set<std::string> allowed(ex.may_also.begin(), ex.may_also.end());
  for (const ir::Schedule& s : mod->schedules) {
    ir::DiagnosticSink sink;
    nlohmann::json res;
    std::vector<checks::PropertyVerdict> verdicts;
    checks::CheckOptions opts;
    opts.target = target;
    checks::runLayoutGates(s, opts, sink, res, verdicts);
    std::string all;
    for (const auto& f : sink.findings())
      all += std::string(ir::severityName(f.severity)) + " " + f.rule + " line " + std::to_string(f.range.line) + ": " +
             f.message + "\n";
    SCOPED_TRACE(s.name + ":\n" + all);

    for (const auto& v : verdicts)
      EXPECT_TRUE(v.kind != checks::VerdictKind::Unknown && v.kind != checks::VerdictKind::Error)
          << v.property << ": " << v.detail;
    EXPECT_TRUE(res.is_object() && res.contains("smem"));

    // Required gate rules.
    for (const std::string& rule : ex.requiredRules()) {
      // sync.tx-imbalance is the model checker's rule; the gates report its
      // static case only (every load of the phase in the expect_tx's block,
      // no multicast), so a file may get it from the model checker alone
      // (bugs/sync.tx-imbalance/deepgemm_kgrouped_multicast_straddle.cake);
      // the corpus gate judges it with the whole check.
      if (!gateRule(rule) || rule == "sync.tx-imbalance") continue;
      auto it = ex.lines.find(rule);
      bool found = false;
      for (const auto& f : sink.findings()) {
        if (f.rule != rule || f.severity != ir::Severity::Error) continue;
        if (it == ex.lines.end() ||
            std::find(it->second.begin(), it->second.end(), f.range.line) != it->second.end())
          found = true;
      }
      EXPECT_TRUE(found) << "expected " << rule << " from the gates";
    }
    // No other gate errors.
    std::set<std::string> required;
    for (const auto& r : ex.requiredRules()) required.insert(r);
    for (const auto& r : ex.any_of) required.insert(r);
    for (const auto& f : sink.findings()) {
      if (f.severity != ir::Severity::Error) continue;
      EXPECT_TRUE(required.count(f.rule) || allowed.count(f.rule))
          << "unexpected gate error " << f.rule << " at line " << f.range.line << ": " << f.message;
    }
  }
}

}  // namespace

// One test over every hand-written known-bad file: the gates alone are cheap, and a test
// case per file cost a process start each. The corpus gate (`cake corpus`) judges the
// whole check, the known-good files' gates included (any error or undecided verdict
// fails it); this adds what it does not on the known-bad files, where a finding
// decides the case: no gate verdict is undecided, no gate error is unexpected, and an
// expected rule of the gates is the gates' own, at its marked line.
TEST(CorpusLayout, GatesAgreeWithExpectations) {
  const std::vector<std::string> files = corpusFiles();
  ASSERT_GT(files.size(), 100u);
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    gatesAgreeWithExpectations(f);
  }
}

}  // namespace cake
