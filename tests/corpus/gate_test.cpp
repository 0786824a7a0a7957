// The corpus gate: expectation parsing, judging, sharding, JSON Lines,
// merge == one run, resume, baseline, reports.
#include "tests/common/build_paths.h"
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "gate/corpus_gate.h"
#include "tests/common/corpus_files.h"
#include "tests/corpus/fixtures.h"

namespace fs = std::filesystem;
using namespace cake::checks::gate;

namespace {

using cake::test::readText;

void writeAll(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

// A fresh scratch folder per test.
fs::path scratch(const std::string& name) {
  fs::path p = fs::path(CAKE_BINARY_DIR) / "test-scratch" / "corpus" / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

Case makeCase(std::string path, std::string text) {
  Case c;
  c.path = std::move(path);
  c.text = std::move(text);
  c.hash = contentHash(c.text);
  return c;
}

Observation errors(std::vector<Reported> e) {
  Observation o;
  o.errors = std::move(e);
  return o;
}

}  // namespace

// ------------------------------------------------------------ expectations

TEST(Expectations, PassAndRules) {
  auto e = parseExpectations("# a comment\n# expect: pass\n@cake.schedule()\n");
  EXPECT_TRUE(e.pass);
  EXPECT_TRUE(e.problems.empty());
  EXPECT_EQ(e.label(), "pass");

  e = parseExpectations("#   expect:   sync.deadlock  \n# expect: sync.race\n# expect: sync.race\n");
  EXPECT_FALSE(e.pass);
  EXPECT_EQ(e.rules, (std::vector<std::string>{"sync.deadlock", "sync.race"}));
  EXPECT_EQ(e.label(), "sync.deadlock+sync.race");
}

TEST(Expectations, TrailingExpectErrorLines) {
  const char* text =
      "# expect: sync.deadlock\n"
      "x = 1\n"
      "    lm.wait(full, iter=k)   # expect-error: sync.deadlock\n"
      "    lm.wait(empty, iter=k)  # expect-error: sync.deadlock\n"
      "    lm.arrive(a, stage=0)   # expect-error: sync.arrival-overflow\n";
  auto e = parseExpectations(text);
  EXPECT_TRUE(e.problems.empty());
  EXPECT_EQ(e.lines.at("sync.deadlock"), (std::vector<int>{3, 4}));
  EXPECT_EQ(e.lines.at("sync.arrival-overflow"), (std::vector<int>{5}));
  EXPECT_EQ(e.requiredRules(), (std::vector<std::string>{"sync.arrival-overflow", "sync.deadlock"}));
}

TEST(Expectations, ErrorLineAfterAnotherTrailingComment) {
  // `code  # a note  # expect-error: rule` (two corpus files wrote them so):
  // the expectation is read, not silently dropped
  auto e = parseExpectations(
      "# expect: sync.race\n"
      "    lm.copy(v, s[0])   # v_lo = s[1]   # expect-error: sync.race\n"
      "    lm.sync(bar)       # note          #expect-error: sync.deadlock\n");
  EXPECT_TRUE(e.problems.empty());
  EXPECT_EQ(e.lines.at("sync.race"), (std::vector<int>{2}));
  EXPECT_EQ(e.lines.at("sync.deadlock"), (std::vector<int>{3}));
}

TEST(Expectations, Problems) {
  // a full-line expect-error refers to no line
  EXPECT_FALSE(parseExpectations("# expect-error: sync.race\n").problems.empty());
  // not a rule id
  EXPECT_FALSE(parseExpectations("# expect: Deadlock!\n").problems.empty());
  // contradictory
  EXPECT_FALSE(parseExpectations("# expect: pass\n# expect: sync.race\n").problems.empty());
  // no expectation at all
  EXPECT_TRUE(parseExpectations("x = 1\n").empty());
  // a '#' inside a string is not a comment
  auto e = parseExpectations("s = \"# expect: sync.race\"\n# expect: pass\n");
  EXPECT_TRUE(e.pass);
  EXPECT_TRUE(e.rules.empty());
}

TEST(Expectations, ExpectAnyAndJsonRoundTrip) {
  auto e = parseExpectations("# expect-any: sync.race data.stale-read, sync.deadlock\n");
  EXPECT_EQ(e.any_of, (std::vector<std::string>{"sync.race", "data.stale-read", "sync.deadlock"}));
  EXPECT_EQ(e.label(), "any(sync.race|data.stale-read|sync.deadlock)");
  auto back = expectationFromJson(toJson(e));
  EXPECT_EQ(back.any_of, e.any_of);
  auto e2 = parseExpectations("# expect: sync.race\nx  # expect-error: sync.race\n");
  auto b2 = expectationFromJson(toJson(e2));
  EXPECT_EQ(b2.rules, e2.rules);
  EXPECT_EQ(b2.lines, e2.lines);
}

TEST(Expectations, TargetAnnotation) {
  EXPECT_EQ(parseTargetAnnotation("# target: sm_100a\n# expect: pass\n").value_or(""), "sm_100a");
  EXPECT_FALSE(parseTargetAnnotation("# expect: pass\n").has_value());
  auto r = judge(makeCase("a.cake", "# target: sm_99\n# expect: pass\n"), Observation{}, 0);
  EXPECT_EQ(r.outcome, Outcome::Invalid);
}

TEST(Expectations, MutantHeader) {
  auto h = parseMutantHeader(
      "# mutant: drop-wait\n# original: corpus/a.cake\n# line: 12: lm.wait(full, iter=k)\n"
      "# label: bad (sync.deadlock) by the explicit-state simulator\n# expect-any: sync.deadlock\n"
      "@cake.schedule()\n# mutant: not-a-header\n");
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->op, "drop-wait");
  EXPECT_EQ(h->original, "corpus/a.cake");
  EXPECT_EQ(h->line, "12: lm.wait(full, iter=k)");
  EXPECT_FALSE(parseMutantHeader("# expect: pass\n@cake.schedule()\n").has_value());
}

// ------------------------------------------------------------------- judge

TEST(Judge, Outcomes) {
  Case pass = makeCase("p.cake", "# expect: pass\n");
  Case bad = makeCase("b.cake", "# expect: sync.deadlock\n");
  EXPECT_EQ(judge(pass, Observation{}, 0).outcome, Outcome::Agree);
  EXPECT_EQ(judge(pass, errors({{"sync.race", 3, "m"}}), 0).outcome, Outcome::FalsePositive);
  EXPECT_EQ(judge(bad, Observation{}, 0).outcome, Outcome::FalseNegative);
  EXPECT_EQ(judge(bad, errors({{"sync.race", 3, "m"}}), 0).outcome, Outcome::FalseNegative);
  EXPECT_EQ(judge(bad, errors({{"sync.race", 3, ""}, {"sync.deadlock", 9, ""}}), 0).outcome, Outcome::Agree);

  Observation unknown;
  unknown.undecided = {"s: sync: unknown (timeout)"};
  EXPECT_EQ(judge(pass, unknown, 0).outcome, Outcome::Unknown);   // never agreement
  EXPECT_EQ(judge(bad, unknown, 0).outcome, Outcome::Unknown);
  // a finding of the expected rule decides the case even with another property unknown
  unknown.errors = {{"sync.deadlock", 4, ""}};
  EXPECT_EQ(judge(bad, unknown, 0).outcome, Outcome::Agree);
  // ... and an error decides a known-good case as a false positive
  EXPECT_EQ(judge(pass, unknown, 0).outcome, Outcome::FalsePositive);

  Observation crash;
  crash.crash = "boom";
  EXPECT_EQ(judge(pass, crash, 0).outcome, Outcome::Unknown);

  EXPECT_EQ(judge(makeCase("n.cake", "x = 1\n"), Observation{}, 0).outcome, Outcome::Invalid);
}

TEST(Judge, LinesAnyOneMatches) {
  Case c = makeCase("d.cake",
                    "# expect: sync.deadlock\n"
                    "a  # expect-error: sync.deadlock\n"
                    "b  # expect-error: sync.deadlock\n");
  EXPECT_EQ(judge(c, errors({{"sync.deadlock", 3, ""}}), 0).outcome, Outcome::Agree);
  EXPECT_EQ(judge(c, errors({{"sync.deadlock", 2, ""}}), 0).outcome, Outcome::Agree);
  auto r = judge(c, errors({{"sync.deadlock", 7, ""}}), 0);
  EXPECT_EQ(r.outcome, Outcome::FalseNegative);
  EXPECT_NE(r.reason.find("line 2, 3"), std::string::npos) << r.reason;
}

TEST(Judge, ExpectAny) {
  Case c = makeCase("m.cake", "# mutant: drop-wait\n# expect-any: sync.race data.stale-read\n");
  auto r = judge(c, errors({{"data.stale-read", 5, ""}}), 0);
  EXPECT_EQ(r.outcome, Outcome::Agree);
  EXPECT_EQ(r.kind, "mutant");
  EXPECT_EQ(judge(c, errors({{"sync.deadlock", 5, ""}}), 0).outcome, Outcome::FalseNegative);
  EXPECT_EQ(judge(c, Observation{}, 0).outcome, Outcome::FalseNegative);
}

TEST(Judge, FrontEnd) {
  Observation fe;
  fe.frontend_ok = false;
  fe.frontend_errors = {{"syntax.error", 2, "unexpected indent"}};
  EXPECT_EQ(judge(makeCase("p.cake", "# expect: pass\n"), fe, 0).outcome, Outcome::Unsupported);
  EXPECT_EQ(judge(makeCase("b.cake", "# expect: sync.race\n"), fe, 0).outcome, Outcome::Unsupported);
  EXPECT_EQ(judge(makeCase("s.cake", "# expect: syntax.error\n"), fe, 0).outcome, Outcome::Agree);
  EXPECT_EQ(judge(makeCase("t.cake", "# expect: type.mismatch\n"), fe, 0).outcome, Outcome::FalseNegative);
}

// ------------------------------------------------------------------ shards

TEST(Shards, Parse) {
  EXPECT_TRUE(parseShard("1/1"));
  EXPECT_TRUE(parseShard("3/4"));
  EXPECT_FALSE(parseShard("0/4"));
  EXPECT_FALSE(parseShard("5/4"));
  EXPECT_FALSE(parseShard("1/0"));
  EXPECT_FALSE(parseShard("a/b"));
  EXPECT_FALSE(parseShard("2"));
}

TEST(Shards, PartitionIsExactAndStable) {
  std::vector<std::string> hashes;
  for (int i = 0; i < 500; ++i) hashes.push_back(contentHash("case " + std::to_string(i)));
  for (int n = 1; n <= 6; ++n) {
    std::vector<int> per(n, 0);
    for (const auto& h : hashes) {
      int hits = 0;
      for (int i = 1; i <= n; ++i)
        if (inShard(h, Shard{i, n})) ++hits, ++per[i - 1];
      ASSERT_EQ(hits, 1) << "n=" << n;
    }
    for (int k : per) EXPECT_GT(k, 500 / n / 2) << "unbalanced shards, n=" << n;
  }
  EXPECT_EQ(contentHash("abc"), contentHash("abc"));
  EXPECT_NE(contentHash("abc"), contentHash("abd"));
  EXPECT_EQ(contentHash("").size(), 16u);
}

// --------------------------------------------------- merge == one run (unit)

namespace {

// A deterministic stand-in for the checks: the case text says what to report.
Observation fakeObserve(const Case& c) {
  Observation o;
  if (c.text.find("REPORT-RACE") != std::string::npos) o.errors.push_back({"sync.race", 2, "race"});
  if (c.text.find("REPORT-DEADLOCK") != std::string::npos) o.errors.push_back({"sync.deadlock", 3, "deadlock"});
  if (c.text.find("UNDECIDED") != std::string::npos) o.undecided.push_back("s: sync: unknown (timeout)");
  if (c.text.find("SYNTAX") != std::string::npos) {
    o.frontend_ok = false;
    o.frontend_errors.push_back({"syntax.error", 1, "bad"});
  }
  return o;
}

std::vector<Case> fakeUniverse() {
  std::vector<Case> cs;
  const char* bodies[] = {"# expect: pass\n", "# expect: pass\nREPORT-RACE\n", "# expect: sync.race\nREPORT-RACE\n",
                          "# expect: sync.deadlock\n", "# expect: sync.deadlock\nREPORT-RACE\n",
                          "# expect: pass\nUNDECIDED\n", "# expect: pass\nSYNTAX\n",
                          "# mutant: drop-wait\n# expect-any: sync.deadlock sync.race\nREPORT-DEADLOCK\n"};
  for (int i = 0; i < 40; ++i)
    cs.push_back(makeCase("c/" + std::to_string(100 + i) + ".cake",
                          std::string(bodies[i % 8]) + "# " + std::to_string(i) + "\n"));
  return cs;
}

}  // namespace

TEST(Merge, ShardsMergedEqualOneRun) {
  auto universe = fakeUniverse();
  auto one = buildReport(runCases(universe, fakeObserve, 1, nullptr, false));
  const std::string want = reportJson(one, true).dump();
  EXPECT_EQ(one.total.cases, 40);
  EXPECT_GT(one.total.fp, 0);
  EXPECT_GT(one.total.fn, 0);

  for (int n : {2, 3, 5}) {
    fs::path dir = scratch("merge-unit-" + std::to_string(n));
    std::vector<std::string> files;
    for (int i = n; i >= 1; --i) {   // shards run in any order
      Plan plan = planRun(universe, Shard{i, n}, {});
      auto recs = runCases(plan.todo, fakeObserve, 2, nullptr, false);
      std::string f = (dir / ("s" + std::to_string(i) + ".jsonl")).string();
      std::ofstream out(f);
      RunHeader h{Shard{i, n}, static_cast<int>(universe.size()), "u"};
      out << toJson(h).dump() << "\n";
      for (const auto& r : recs) out << toJson(r).dump() << "\n";
      files.push_back(f);
    }
    auto contents = readJsonl(files);
    EXPECT_TRUE(contents.errors.empty());
    Report merged = buildReport(contents.records);
    checkShardCoverage(merged, contents.headers);
    EXPECT_TRUE(merged.notes.empty()) << merged.notes.front();
    EXPECT_EQ(reportJson(merged, true).dump(), want) << "n=" << n;
    EXPECT_EQ(renderTextReport(merged, false), renderTextReport(one, false));
    EXPECT_EQ(renderHtmlReport(merged).size() > 0, true);
  }
}

TEST(Merge, MissingShardIsNoted) {
  auto universe = fakeUniverse();
  Plan plan = planRun(universe, Shard{1, 2}, {});
  auto recs = runCases(plan.todo, fakeObserve, 1, nullptr, false);
  Report r = buildReport(recs);
  checkShardCoverage(r, {RunHeader{Shard{1, 2}, 40, "u"}});
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("missing"), std::string::npos);
  EXPECT_TRUE(r.incomplete);
  EXPECT_TRUE(r.gateFailed());
}

TEST(Resume, SkipsCasesWhoseHashHasARecord) {
  auto universe = fakeUniverse();
  // a record for the first 10 cases
  std::map<std::string, CaseRecord> done;
  auto first = runCases(std::vector<Case>(universe.begin(), universe.begin() + 10), fakeObserve, 1, nullptr, false);
  for (const auto& r : first) done[r.hash] = r;
  Plan plan = planRun(universe, Shard{1, 1}, done);
  EXPECT_EQ(plan.carried.size(), 10u);
  EXPECT_EQ(plan.todo.size(), 30u);
  for (const auto& c : plan.todo) EXPECT_FALSE(done.count(c.hash));
  // a renamed file with the same content is not checked again
  auto renamed = universe;
  renamed[0].path = "c/renamed.cake";
  Plan p2 = planRun(renamed, Shard{1, 1}, done);
  ASSERT_EQ(p2.carried.size(), 10u);
  EXPECT_TRUE(std::any_of(p2.carried.begin(), p2.carried.end(),
                          [](const CaseRecord& r) { return r.path == "c/renamed.cake"; }));
  // the resumed report equals the one of a full run
  auto fresh = runCases(plan.todo, fakeObserve, 1, nullptr, false);
  auto all = plan.carried;
  all.insert(all.end(), fresh.begin(), fresh.end());
  EXPECT_EQ(reportJson(buildReport(all), true).dump(),
            reportJson(buildReport(runCases(universe, fakeObserve, 1, nullptr, false)), true).dump());
}

TEST(Jsonl, TruncatedLastLineIsSkipped) {
  fs::path dir = scratch("jsonl-truncated");
  auto recs = runCases(fakeUniverse(), fakeObserve, 1, nullptr, false);
  std::string text = toJson(RunHeader{}).dump() + "\n";
  for (const auto& r : recs) text += toJson(r).dump() + "\n";
  text += toJson(recs[0]).dump().substr(0, 30);   // interrupted mid-write
  writeAll(dir / "a.jsonl", text);
  auto c = readJsonl({(dir / "a.jsonl").string()});
  EXPECT_EQ(c.records.size(), recs.size());
  EXPECT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.headers.size(), 1u);
  // a record survives the round trip
  auto back = recordFromJson(toJson(recs[2]));
  EXPECT_EQ(toJson(back).dump(), toJson(recs[2]).dump());
}

// ----------------------------------------------------------------- report

TEST(Report, TalliesConfusionAndTimes) {
  std::vector<CaseRecord> recs;
  auto universe = fakeUniverse();
  for (size_t i = 0; i < universe.size(); ++i) recs.push_back(judge(universe[i], fakeObserve(universe[i]), double(i + 1)));
  Report r = buildReport(recs);
  EXPECT_EQ(r.total.cases, 40);
  EXPECT_EQ(r.total.agree + r.total.fp + r.total.fn + r.total.unknown + r.total.unsupported + r.total.invalid, 40);
  EXPECT_EQ(r.total.fp, 5);           // "pass + REPORT-RACE"
  EXPECT_EQ(r.total.fn, 10);          // deadlock accepted, deadlock reported as race
  EXPECT_EQ(r.total.unknown, 5);
  EXPECT_EQ(r.total.unsupported, 5);
  EXPECT_EQ(r.by_kind.at("mutant").cases, 5);
  EXPECT_EQ(r.rules.at("sync.deadlock").accepted, 5);
  EXPECT_EQ(r.rules.at("sync.deadlock").wrong, 5);
  EXPECT_EQ(r.confusion.at("sync.deadlock").at("pass"), 5);
  EXPECT_EQ(r.confusion.at("sync.deadlock").at("sync.race"), 5);
  EXPECT_EQ(r.confusion.at("pass").at("sync.race"), 5);
  EXPECT_EQ(r.rules.at("sync.race").spurious, 10);
  EXPECT_DOUBLE_EQ(r.max_ms, 40);
  EXPECT_DOUBLE_EQ(r.median_ms, 20);
  EXPECT_DOUBLE_EQ(r.p95_ms, 38);
  EXPECT_TRUE(r.gateFailed());
  auto text = renderTextReport(r);
  EXPECT_NE(text.find("false positives"), std::string::npos);
  EXPECT_NE(text.find("gate: FAIL"), std::string::npos);
  auto j = reportJson(r);
  EXPECT_EQ(j["summary"]["false_negatives"], 10);
  EXPECT_TRUE(j.contains("timings"));
  EXPECT_FALSE(reportJson(r, true).contains("timings"));
}

TEST(Report, HtmlIsSelfContainedAndEscaped) {
  CaseRecord rec = judge(makeCase("<b>&.cake", "# expect: pass\n"), errors({{"sync.race", 1, "<script>x</script>"}}), 1);
  std::string html = renderHtmlReport(buildReport({rec}));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;&amp;.cake"), std::string::npos);
  EXPECT_NE(html.find("</html>"), std::string::npos);
}

TEST(Baseline, RegressionAndImprovement) {
  auto universe = fakeUniverse();
  Report now = buildReport(runCases(universe, fakeObserve, 1, nullptr, false));
  nlohmann::json base = makeBaseline(now);
  compareBaseline(now, base);
  EXPECT_TRUE(now.regressions.empty());
  EXPECT_TRUE(now.improvements.empty());

  // a case that agreed and now does not; one that did not and now does; one gone
  const std::string agreed = now.cases[0].outcome == Outcome::Agree ? now.cases[0].path : "";
  ASSERT_FALSE(agreed.empty());
  base["cases"]["c/gone.cake"] = {{"hash", "0"}, {"expect", "pass"}, {"outcome", "agree"}};
  std::string fp_path;
  for (const auto& c : now.cases)
    if (c.outcome == Outcome::FalsePositive) fp_path = c.path;
  base["cases"][fp_path]["outcome"] = "agree";
  base["cases"][agreed]["outcome"] = "false-negative";
  compareBaseline(now, base);
  ASSERT_EQ(now.regressions.size(), 2u);
  EXPECT_EQ(now.improvements.size(), 1u);
  EXPECT_TRUE(now.gateFailed());
}

// ----------------------------------------------------------------- proofs

// The reasons `cake check` gives (texts of encoder/proof_budget.cpp,
// encoder/trip_proof.cpp and checks/model_check.cpp) and their kinds.
TEST(Proofs, KindOfTheReason) {
  const std::string values = "K in {1, 64, 65, 128}";
  EXPECT_EQ(proofKind(values + "; proof: unknown (work budget of 3000000000 units used up)"), "work-budget");
  EXPECT_EQ(proofKind(values + "; proof: unknown (state cap of 2000000 states exceeded after 12 work units)"),
            "state-cap");
  EXPECT_EQ(proofKind(values + "; proof: unknown (no steady period within 128 tiles of 24 K iterations)"),
            "no-steady-period");
  EXPECT_EQ(proofKind(values + "; proof: unknown (lap induction meets sync.race at trip count 3, which no parameter "
                                "values allowed by the lm.assume facts give)"),
            "outside-assumptions");
  EXPECT_EQ(proofKind(values + "; proof: unknown (a loop with an else block)"), "refused-shape");
  EXPECT_EQ(proofKind(values), "not-run");
  // the wall clock outranks whatever else the cut proof said
  EXPECT_EQ(proofKind(values + "; proof: unknown (work budget of 3000000000 units used up); wall-clock safety limit "
                                "of 120.0 s reached after 5 work units (of 3000000000); the machine is loaded or the "
                                "obligation's --timeout is short"),
            "time-limit");
  for (const char* k : {"work-budget", "state-cap", "no-steady-period", "outside-assumptions", "refused-shape", "not-run"})
    EXPECT_TRUE(deterministicProofMiss(k)) << k;
  EXPECT_FALSE(deterministicProofMiss("time-limit"));
}

TEST(Proofs, StatusOfACaseOverItsSchedules) {
  using V = std::pair<std::string, cake::checks::PropertyVerdict>;
  using cake::checks::VerdictKind;
  const cake::checks::PropertyVerdict proved{"sync", VerdictKind::Proved, "lap induction"};
  const cake::checks::PropertyVerdict wall{"sync", VerdictKind::Checked,
                                           "K in {1}; proof: unknown (wall-clock safety limit of 1.0 s reached)"};
  const cake::checks::PropertyVerdict work{"sync", VerdictKind::Checked,
                                           "K in {1}; proof: unknown (work budget of 5 units used up)"};
  EXPECT_EQ(proofStatus({V{"a", proved}, V{"b", proved}}).kind, "proved");
  EXPECT_EQ(proofStatus({V{"a", proved}, V{"b", wall}}).kind, "time-limit");
  // a deterministic miss in one schedule decides, whatever the wall clock did in another
  ProofStatus st = proofStatus({V{"a", wall}, V{"b", work}});
  EXPECT_EQ(st.kind, "work-budget");
  EXPECT_NE(st.detail.find("b: sync: checked: K in {1}"), std::string::npos) << st.detail;
}

namespace {

// fakeObserve, with a proof outcome where the text names one:
// PROOF-PROVED, PROOF-WORK (work budget), PROOF-WALL (wall-clock limit).
Observation proofObserve(const Case& c) {
  Observation o = fakeObserve(c);
  auto has = [&](const char* s) { return c.text.find(s) != std::string::npos; };
  if (has("PROOF-PROVED")) o.proof = ProofStatus{"proved", ""};
  if (has("PROOF-WORK"))
    o.proof = ProofStatus{"work-budget", "g: sync: checked: K in {1, 2}; proof: unknown (work budget of 3 units used up)"};
  if (has("PROOF-WALL"))
    o.proof = ProofStatus{"time-limit", "g: sync: checked: K in {1, 2}; proof: unknown (wall-clock safety limit of "
                                        "120.0 s reached after 2 work units (of 3))"};
  return o;
}

Report proofRun(const std::vector<std::pair<std::string, std::string>>& cases) {
  std::vector<Case> cs;
  for (const auto& [path, text] : cases) cs.push_back(makeCase(path, text));
  Report r = buildReport(runCases(cs, proofObserve, 1, nullptr, false));
  r.proofs_run = true;  // as `cake corpus --proofs` sets it
  return r;
}

// c/g.cake proved in the baseline, and now observed with `marker`; the
// report compared with that baseline.
Report provedThen(const std::string& marker) {
  nlohmann::json base = makeBaseline(proofRun({{"c/g.cake", "# expect: pass\nPROOF-PROVED\n"}}));
  EXPECT_EQ(base["cases"]["c/g.cake"]["proof"], "proved");
  Report now = proofRun({{"c/g.cake", "# expect: pass\n" + marker + "\n"}});
  EXPECT_EQ(now.total.agree, 1);   // the verdict is the same: only the proof differs
  compareBaseline(now, base);
  EXPECT_TRUE(now.regressions.empty());
  return now;
}

}  // namespace

// The baseline records each known-good case's proof; a known-bad case has none.
TEST(Proofs, BaselineRecordsTheProofOfKnownGoodCases) {
  Report r = proofRun({{"c/proved.cake", "# expect: pass\nPROOF-PROVED\n"},
                       {"c/budget.cake", "# expect: pass\nPROOF-WORK\n"},
                       {"c/bad.cake", "# expect: sync.race\nREPORT-RACE\n"}});
  nlohmann::json b = makeBaseline(r);
  EXPECT_EQ(b["cases"]["c/proved.cake"]["proof"], "proved");
  EXPECT_EQ(b["cases"]["c/budget.cake"]["proof"], "work-budget");
  EXPECT_FALSE(b["cases"]["c/bad.cake"].contains("proof"));
  EXPECT_EQ(r.proofs.at("proved"), 1);
  EXPECT_EQ(r.proofs.at("work-budget"), 1);
  EXPECT_NE(renderTextReport(r).find("proofs: 1 of 2 known-good cases proved (not proved: 1 work-budget)"),
            std::string::npos)
      << renderTextReport(r);
  // the JSON Lines record keeps it (merge, resume)
  const CaseRecord& rec = r.cases[1];   // sorted: bad, budget, proved
  ASSERT_EQ(rec.path, "c/budget.cake");
  CaseRecord back = recordFromJson(toJson(rec));
  EXPECT_EQ(back.proof.kind, "work-budget");
  EXPECT_EQ(back.proof.detail, rec.proof.detail);
}

// Proved in the baseline, not proved now for a deterministic reason (the
// work budget): a regression that fails the gate and names the case, the
// old and the new status and the reason.
TEST(Proofs, LostProofForTheWorkBudgetIsARegression) {
  Report now = provedThen("PROOF-WORK");
  ASSERT_EQ(now.proof_regressions.size(), 1u);
  EXPECT_EQ(now.proof_regressions[0].path, "c/g.cake");
  EXPECT_EQ(now.proof_regressions[0].was, "proved");
  EXPECT_EQ(now.proof_regressions[0].now, "work-budget");
  EXPECT_TRUE(now.proof_warnings.empty());
  EXPECT_TRUE(now.gateFailed());
  const std::string text = renderTextReport(now);
  EXPECT_NE(text.find("proof regression c/g.cake: proved -> work-budget (g: sync: checked: K in {1, 2}; proof: "
                      "unknown (work budget of 3 units used up))"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("gate: FAIL (1 proof regressions)"), std::string::npos) << text;
  EXPECT_EQ(reportJson(now)["baseline"]["proof_regressions"][0]["now"], "work-budget");
}

// The same for the wall-clock safety limit (a loaded machine): a warning,
// the gate passes.
TEST(Proofs, LostProofForTheWallClockIsAWarning) {
  Report now = provedThen("PROOF-WALL");
  EXPECT_TRUE(now.proof_regressions.empty());
  ASSERT_EQ(now.proof_warnings.size(), 1u);
  EXPECT_EQ(now.proof_warnings[0].now, "time-limit");
  EXPECT_FALSE(now.gateFailed());
  const std::string text = renderTextReport(now);
  EXPECT_NE(text.find("proof warning c/g.cake: proved -> time-limit"), std::string::npos) << text;
  EXPECT_NE(text.find("gate: pass"), std::string::npos) << text;
}

// Not proved in the baseline (or no proof recorded), proved now: an
// improvement, which --write-baseline keeps.
TEST(Proofs, NewProofIsAnImprovement) {
  nlohmann::json base = makeBaseline(proofRun({{"c/g.cake", "# expect: pass\nPROOF-WORK\n"},
                                               {"c/h.cake", "# expect: pass\nPROOF-PROVED\n"}}));
  base["cases"]["c/h.cake"].erase("proof");   // a baseline from before proofs were recorded
  Report now = proofRun({{"c/g.cake", "# expect: pass\nPROOF-PROVED\n"},
                         {"c/h.cake", "# expect: pass\nPROOF-PROVED\n"}});
  compareBaseline(now, base);
  EXPECT_TRUE(now.proof_regressions.empty());
  ASSERT_EQ(now.proof_improvements.size(), 2u);
  EXPECT_EQ(now.proof_improvements[0].was, "work-budget");
  EXPECT_EQ(now.proof_improvements[0].now, "proved");
  EXPECT_EQ(now.proof_improvements[1].was, "none");
  EXPECT_FALSE(now.gateFailed());
  EXPECT_NE(renderTextReport(now).find("proof improvement c/g.cake: work-budget -> proved"), std::string::npos);
  EXPECT_EQ(makeBaseline(now)["cases"]["c/g.cake"]["proof"], "proved");
  // and compared with the rewritten baseline, nothing is left to report
  compareBaseline(now, makeBaseline(now));
  EXPECT_TRUE(now.proof_improvements.empty());
}

// ------------------------------------------- the command, on real schedules

namespace {

const char* kGood = R"(# expect: pass
@cake.schedule(target="sm_90a")
def good(lm, Y: LM.gmem):
    x = lm.regs(shape=(64, 64), dtype=lm.f32)
    wg = lm.role(warps=[0, 1, 2, 3])
    with wg:
        lm.fill(x, 0.0)
        lm.copy(Y, x, coords=(0, 0))
)";

const char* kWrongDirection = R"(# expect: struct.wrong-direction
@cake.schedule(target="sm_90a")
def wrong_dir(lm, X: LM.tma2d):
    pool = lm.smem(16384)
    v = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=1)
    a = lm.role(warps=[0])
    b = lm.role(warps=[1])
    full = lm.barrier(count=1, prod=[a], cons=[b], init_count=1)
    with a:
        v.tma_load(X, coords=(0, 0), stage=0, barrier=full)
        lm.wait(full, stage=0)  # expect-error: struct.wrong-direction
    with b:
        lm.wait(full, stage=0)
)";

const char* kSyntax = "# expect: pass\n@cake.schedule()\ndef broken(lm:\n";

void writeMiniCorpus(const fs::path& dir) {
  writeAll(dir / "a/good.cake", kGood);
  writeAll(dir / "a/wrong_direction.cake", kWrongDirection);
  writeAll(dir / "b/broken.cake", kSyntax);
  for (int i = 0; i < 6; ++i)   // more cases so that every shard has some
    writeAll(dir / ("c/good" + std::to_string(i) + ".cake"), std::string(kGood) + "# copy " + std::to_string(i) + "\n");
  writeAll(dir / "c/notes.txt", "not a case\n");
}

nlohmann::json deterministic(const fs::path& report) {
  auto j = nlohmann::json::parse(readText(report));
  j.erase("timings");
  for (auto& c : j["cases"]) c.erase("time_ms");
  return j;
}

}  // namespace

TEST(Command, DiscoversCakeFilesSorted) {
  fs::path dir = scratch("discover");
  writeMiniCorpus(dir);
  std::vector<std::string> errs;
  auto cases = discoverCases({dir.string()}, errs);
  EXPECT_TRUE(errs.empty());
  ASSERT_EQ(cases.size(), 9u);
  EXPECT_TRUE(std::is_sorted(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.path < b.path; }));
  discoverCases({(dir / "nope").string()}, errs);
  EXPECT_EQ(errs.size(), 1u);
}

TEST(Command, TwoShardsMergedGiveExactlyTheReportOfOneRun) {
  fs::path dir = scratch("command-merge");
  writeMiniCorpus(dir / "corpus");
  const std::string corpus = (dir / "corpus").string();

  CorpusOptions one;
  one.paths = {corpus};
  one.json = (dir / "one.json").string();
  one.jsonl = (dir / "one.jsonl").string();
  one.quiet = true;
  const int rc_one = runCorpusCommand(one);

  for (int i = 1; i <= 2; ++i) {
    CorpusOptions s = one;
    s.shard = std::to_string(i) + "/2";
    s.json.reset();
    s.jsonl = (dir / ("shard" + std::to_string(i) + ".jsonl")).string();
    runCorpusCommand(s);
  }
  MergeOptions m;
  m.inputs = {(dir / "shard2.jsonl").string(), (dir / "shard1.jsonl").string()};
  m.json = (dir / "merged.json").string();
  m.html = (dir / "merged.html").string();
  m.quiet = true;
  const int rc_merged = runMergeCommand(m);

  EXPECT_EQ(rc_one, rc_merged);
  auto a = deterministic(dir / "one.json"), b = deterministic(dir / "merged.json");
  EXPECT_EQ(a.dump(2), b.dump(2));
  EXPECT_EQ(a["summary"]["cases"], 9);
  EXPECT_EQ(a["summary"]["unsupported"], 1);
  EXPECT_TRUE(fs::file_size(dir / "merged.html") > 0);
  // neither shard is empty, and together they hold every case once
  auto s1 = readJsonl({(dir / "shard1.jsonl").string()}), s2 = readJsonl({(dir / "shard2.jsonl").string()});
  EXPECT_GT(s1.records.size(), 0u);
  EXPECT_GT(s2.records.size(), 0u);
  EXPECT_EQ(s1.records.size() + s2.records.size(), 9u);
}

TEST(Command, ShardsCompareOnlyTheirOwnCasesWithTheBaseline) {
  fs::path dir = scratch("command-shard-baseline");
  writeMiniCorpus(dir / "corpus");
  CorpusOptions o;
  o.paths = {(dir / "corpus").string()};
  o.quiet = true;
  o.write_baseline = (dir / "baseline.json").string();
  runCorpusCommand(o);
  for (int i = 1; i <= 2; ++i) {
    CorpusOptions s = o;
    s.write_baseline.reset();
    s.baseline = (dir / "baseline.json").string();
    s.shard = std::to_string(i) + "/2";
    s.json = (dir / ("s" + std::to_string(i) + ".json")).string();
    runCorpusCommand(s);
    auto j = nlohmann::json::parse(readText(dir / ("s" + std::to_string(i) + ".json")));
    EXPECT_EQ(j["baseline"]["regressions"].size(), 0u) << "shard " << i;   // the other shard's cases are not missing
  }
  CorpusOptions w = o;
  w.shard = "1/2";
  EXPECT_EQ(runCorpusCommand(w), 2);   // a baseline needs every case
}

TEST(Command, ResumeSkipsRecordedCases) {
  fs::path dir = scratch("command-resume");
  writeMiniCorpus(dir / "corpus");
  CorpusOptions o;
  o.paths = {(dir / "corpus").string()};
  o.jsonl = (dir / "run.jsonl").string();
  o.json = (dir / "full.json").string();
  o.quiet = true;
  runCorpusCommand(o);

  // interrupt: keep the header and the first three records, and a torn line
  std::istringstream in(readText(dir / "run.jsonl"));
  std::string line, kept;
  for (int n = 0; n < 4 && std::getline(in, line); ++n) kept += line + "\n";
  kept += "{\"type\":\"case\",\"pa";   // torn mid-line, no newline
  writeAll(dir / "run.jsonl", kept);

  CorpusOptions r = o;
  r.resume = o.jsonl;
  r.json = (dir / "resumed.json").string();
  runCorpusCommand(r);
  auto c = readJsonl({*o.jsonl});
  EXPECT_EQ(c.records.size(), 9u);   // 3 kept + 6 new: the 3 were not checked again
  std::set<std::string> paths;
  for (const auto& x : c.records) paths.insert(x.path);
  EXPECT_EQ(paths.size(), 9u);
  EXPECT_EQ(deterministic(dir / "full.json").dump(), deterministic(dir / "resumed.json").dump());
}

namespace {

// dir/corpus/good.cake (kGood, or `text`) and its baseline,
// dir/baseline.json, written by the command; returns the options that wrote it.
CorpusOptions writeGoodBaseline(const fs::path& dir, const std::string& text = kGood) {
  writeAll(dir / "corpus/good.cake", text);
  CorpusOptions o;
  o.paths = {(dir / "corpus").string()};
  o.quiet = true;
  o.write_baseline = (dir / "baseline.json").string();
  EXPECT_EQ(runCorpusCommand(o), 0);
  return o;
}

}  // namespace

TEST(Command, ExitStatusAndBaseline) {
  fs::path dir = scratch("command-exit");
  CorpusOptions o = writeGoodBaseline(dir);

  // the same case now claims a rule the checks do not report: an FN, and a regression
  writeAll(dir / "corpus/good.cake", std::string(kGood).replace(0, 14, "# expect: sync.race"));
  CorpusOptions b = o;
  b.write_baseline.reset();
  b.baseline = (dir / "baseline.json").string();
  b.json = (dir / "r.json").string();
  EXPECT_EQ(runCorpusCommand(b), 1);
  auto j = nlohmann::json::parse(readText(dir / "r.json"));
  EXPECT_EQ(j["baseline"]["regressions"].size(), 1u);
  // the known-good case was proved by `cake check`'s proof, and recorded so
  auto base = nlohmann::json::parse(readText(dir / "baseline.json"));
  EXPECT_EQ(base["cases"].begin().value()["proof"], "proved") << base.dump(2);

  CorpusOptions bad;
  bad.paths = {(dir / "missing").string()};
  bad.quiet = true;
  EXPECT_EQ(runCorpusCommand(bad), 2);
  CorpusOptions sh = o;
  sh.shard = "3/2";
  EXPECT_EQ(runCorpusCommand(sh), 2);
}

// A case the baseline records as not proved keeps that status without the
// proof (it can only improve); --all-proofs runs it, and the new proof is an
// improvement.
TEST(Command, BaselineUnprovedCasesSkipTheProofUnlessAllProofs) {
  fs::path dir = scratch("command-proofs");
  CorpusOptions o = writeGoodBaseline(dir);
  auto base = nlohmann::json::parse(readText(dir / "baseline.json"));
  auto& entry = base["cases"].begin().value();
  ASSERT_EQ(entry["proof"], "proved");
  entry["proof"] = "work-budget";
  writeAll(dir / "baseline.json", base.dump(2));

  CorpusOptions b = o;
  b.write_baseline.reset();
  b.baseline = (dir / "baseline.json").string();
  b.json = (dir / "r.json").string();
  // without --proofs the known-good cases' proofs do not run at all
  EXPECT_EQ(runCorpusCommand(b), 0);
  auto j = nlohmann::json::parse(readText(dir / "r.json"));
  EXPECT_FALSE(j["proofs_run"].get<bool>());
  EXPECT_FALSE(j["cases"][0].contains("proof"));
  b.proofs = true;
  EXPECT_EQ(runCorpusCommand(b), 0);
  j = nlohmann::json::parse(readText(dir / "r.json"));
  EXPECT_TRUE(j["proofs_run"].get<bool>());
  EXPECT_EQ(j["cases"][0]["proof"], "work-budget");
  EXPECT_NE(j["cases"][0]["proof_detail"].get<std::string>().find("not run"), std::string::npos);
  EXPECT_TRUE(j["baseline"]["proof_improvements"].empty());

  b.all_proofs = true;
  EXPECT_EQ(runCorpusCommand(b), 0);
  j = nlohmann::json::parse(readText(dir / "r.json"));
  EXPECT_EQ(j["cases"][0]["proof"], "proved");
  ASSERT_EQ(j["baseline"]["proof_improvements"].size(), 1u);
  EXPECT_EQ(j["baseline"]["proof_improvements"][0]["was"], "work-budget");
}

// A known-good case whose bounded check leaves sync undecided (a guard that
// flips more often than the covering values run) is decided by the proof,
// which the baseline's run (--proofs) ran. Without --proofs the gate runs
// that proof too, as `cake check` does, so the two runs measure the same
// verdict (session 29: an SGLang fixed file agreed in the baseline and was
// an "agree -> unknown" regression without --proofs). Where the proof does
// not settle it either, the case is unknown and the regression stands.
TEST(Command, UndecidedKnownGoodCaseGetsItsProofWithoutProofs) {
  const std::string release = "            lm.arrive(empty, iter=k)\n";
  std::string good = cake::test::kWs4;
  const size_t at = good.find(release);
  ASSERT_NE(at, std::string::npos);
  // six flips past the depths: the bounded check is unknown, the proof proves it
  good.insert(at + release.size(), "            if k == 5 or k == 7 or k == 9:\n                lm.fence_proxy()\n");
  fs::path dir = scratch("command-undecided");
  CorpusOptions o = writeGoodBaseline(dir, good);
  auto base = nlohmann::json::parse(readText(dir / "baseline.json"));
  ASSERT_EQ(base["cases"].begin().value()["outcome"], "agree") << base.dump(2);

  CorpusOptions b = o;
  b.write_baseline.reset();
  b.baseline = (dir / "baseline.json").string();
  b.json = (dir / "r.json").string();
  EXPECT_EQ(runCorpusCommand(b), 0);   // without --proofs
  auto j = nlohmann::json::parse(readText(dir / "r.json"));
  EXPECT_EQ(j["cases"][0]["outcome"], "agree") << j["cases"][0].dump(2);
  EXPECT_TRUE(j["baseline"]["regressions"].empty());

  // a guard the proof cannot take either (it does not move by the same
  // amount every lap): unknown with and without the proof, a regression
  std::string undecided = good;
  undecided.replace(undecided.find("k == 9:"), 7, "k == 9 or k < 100000:");
  writeAll(dir / "corpus/good.cake", undecided);
  EXPECT_EQ(runCorpusCommand(b), 1);
  j = nlohmann::json::parse(readText(dir / "r.json"));
  EXPECT_EQ(j["cases"][0]["outcome"], "unknown") << j["cases"][0].dump(2);
  ASSERT_EQ(j["baseline"]["regressions"].size(), 1u);
  EXPECT_EQ(j["baseline"]["regressions"][0]["now"], "unknown");
}

TEST(Command, GeneratedMutantsAreLabelledShardedAndChecked) {
  fs::path dir = scratch("command-mutants");
  writeAll(dir / "corpus/ws4.cake", cake::test::kWs4);
  CorpusOptions o;
  o.paths = {(dir / "corpus").string()};
  o.mutants = 6;
  o.seed = 3;
  o.quiet = true;
  o.jsonl = (dir / "all.jsonl").string();
  o.json = (dir / "all.json").string();
  runCorpusCommand(o);
  auto all = readJsonl({*o.jsonl});
  ASSERT_EQ(all.records.size(), 7u);
  int mutants = 0;
  for (const auto& r : all.records) {
    if (r.kind != "mutant") continue;
    ++mutants;
    EXPECT_EQ(r.path.rfind("mutants:", 0), 0u) << r.path;
    ASSERT_TRUE(r.mutant.has_value());
    EXPECT_FALSE(r.mutant->label.empty());
    EXPECT_NE(r.outcome, Outcome::Invalid) << r.reason;   // every generated mutant carries a label
  }
  EXPECT_EQ(mutants, 6);
  // the same mutants, in two shards: each labels only its own, the merge is the one run
  for (int i = 1; i <= 2; ++i) {
    CorpusOptions s = o;
    s.json.reset();
    s.shard = std::to_string(i) + "/2";
    s.jsonl = (dir / ("m" + std::to_string(i) + ".jsonl")).string();
    runCorpusCommand(s);
  }
  MergeOptions m;
  m.inputs = {(dir / "m1.jsonl").string(), (dir / "m2.jsonl").string()};
  m.json = (dir / "merged.json").string();
  m.quiet = true;
  runMergeCommand(m);
  EXPECT_EQ(deterministic(dir / "all.json").dump(), deterministic(dir / "merged.json").dump());
}
