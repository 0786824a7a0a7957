// The mutation engine: every operator applies, every mutant parses and
// type-checks, the header round-trips through the gate's parser, selection
// is deterministic.
#include "tests/common/build_paths.h"
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_set>

#include <gtest/gtest.h>

#include "gate/corpus_gate.h"
#include "gate/mutate.h"
#include "tests/common/corpus_files.h"
#include "tests/corpus/fixtures.h"
#include "ir/ast.h"
#include "ir/frontend.h"

namespace fs = std::filesystem;
using namespace cake::checks;
using namespace cake::checks::mutate;
using cake::test::kWs4;

namespace {

// One schedule with a site for every operator.
const char* kAllSites = R"(# A schedule with a site for every mutation operator.
# expect: pass
@cake.schedule(target="sm_90a")
def all_sites(lm, A: LM.tma2d, C: LM.tma2d, X: LM.gmem, K: LM.i32):
    lm.assume(K > 0)
    pool   = lm.smem(98304)
    smem_a = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    smem_c = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2)
    smem_x = pool.view(offset=32768, shape=(64, 64), dtype=lm.bf16, stages=2)
    acc    = lm.regs(shape=(64, 64), dtype=lm.f32)
    pr     = lm.regs(shape=(64, 64), dtype=lm.f32)
    prod = lm.role(warps=[0])
    cons = lm.role(warps=[4, 5, 6, 7])
    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[prod], cons=[cons], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[cons], cons=[prod], pipeline=pipe)
    xf    = lm.barrier(count=3, prod=[prod], cons=[cons], init_count=2)
    nb    = lm.named_barrier(roles=[prod, cons])
    with prod:
        for k in lm.range(0, K):
            lm.wait(empty, iter=k - 2)
            lm.expect_tx(full, 8192, iter=k)
            smem_a.tma_load(A, coords=(0, k * 64), iter=k, barrier=full)
        for j in lm.range(0, 2):
            if j >= 1:
                lm.wait(empty, stage=j % 2, phase=0)
            lm.arrive(xf, stage=j)
        lm.bar_arrive(nb)
        lm.fill(pr, 0.0)
    with cons:
        for k in lm.range(0, K):
            lm.wait(full, iter=k)
            lm.mma(acc, smem_a[k], smem_a[k], init=(k == 0))
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=k)
        for j in lm.range(0, 2):
            lm.wait(xf, stage=j)
        lm.sync(nb)
        lm.copy(smem_c[0], acc)
        lm.fence_proxy()
        smem_c.tma_store(C, coords=(0, 0), stage=0)
        lm.tma_store_commit()
        lm.tma_store_wait(pending=1)
        lm.copy(smem_x[0], acc)
        lm.cp_async_commit()
        lm.cp_async_wait()
)";

using cake::test::readText;

// Parses and type-checks; returns the first front-end error, or "".
std::string frontEnd(const std::string& path, const std::string& text) {
  auto file = cake::ir::makeSourceFile(path, text);
  cake::ir::DiagnosticSink sink;
  auto m = cake::ir::compileModule(file, cake::ir::FrontendOptions{}, sink);
  for (const auto& f : sink.findings())
    if (f.severity == cake::ir::Severity::Error) return cake::ir::renderText(f);
  return m ? "" : "compileModule failed without a finding";
}

}  // namespace

TEST(Mutate, TheFixtureItselfIsValid) { EXPECT_EQ(frontEnd("all_sites.cake", kAllSites), ""); }

TEST(Mutate, EveryOperatorAppliesAndEveryMutantParses) {
  Original o{"corpus/test/all_sites.cake", kAllSites};
  ASSERT_TRUE(isEligible(o));
  std::string err;
  auto ms = enumerate(o, &err);
  ASSERT_EQ(err, "");
  std::set<std::string> seen;
  std::set<std::string> paths;
  for (const auto& m : ms) {
    seen.insert(m.op);
    EXPECT_TRUE(paths.insert(m.relativePath()).second) << "duplicate path " << m.relativePath();
    EXPECT_NE(m.body, o.text);
    EXPECT_GT(m.line, 0);
    EXPECT_FALSE(m.change.empty());
    // the original's expectation is gone
    EXPECT_EQ(m.body.find("# expect"), std::string::npos) << m.op;
    // every mutant is a valid file of the language
    std::string fe = frontEnd(m.relativePath(), m.body);
    EXPECT_EQ(fe, "") << m.op << " at line " << m.line << " (" << m.change << ")";
    // the rendered file round-trips through the gate's parsers
    Label l;
    l.kind = Label::Kind::Bad;
    l.rules = {"sync.deadlock", "sync.race"};
    l.method = "explicit-state simulator";
    l.bounds = "K in {1, 2}";
    std::string text = renderMutant(m, &l);
    auto h = gate::parseMutantHeader(text);
    ASSERT_TRUE(h.has_value());
    EXPECT_EQ(h->op, m.op);
    EXPECT_EQ(h->original, o.path);
    auto e = gate::parseExpectations(text);
    EXPECT_TRUE(e.problems.empty());
    EXPECT_EQ(e.any_of, l.rules);
    EXPECT_EQ(frontEnd("x.cake", text), "");
    // and back into a mutant (`cake mutate --relabel` reads it so)
    std::string perr;
    auto back = parseMutantFile("x.cake", text, &perr);
    ASSERT_TRUE(back.has_value()) << perr;
    EXPECT_EQ(back->op, m.op);
    EXPECT_EQ(back->original, m.original);
    EXPECT_EQ(back->line, m.line);
    EXPECT_EQ(back->line_text, m.line_text);
    EXPECT_EQ(back->change, m.change);
    EXPECT_EQ(back->body, m.body);
    EXPECT_EQ(renderMutant(*back, &l), text);
  }
  for (const auto& op : operators()) EXPECT_TRUE(seen.count(std::string(op.id))) << "operator never applied: " << op.id;
}

TEST(Mutate, EditsAreLocal) {
  Original o{"corpus/t.cake", kAllSites};
  for (const auto& m : enumerate(o)) {
    if (m.op == "drop-wait" && m.line_text == "lm.wait(full, iter=k)") {
      EXPECT_EQ(m.body.find("lm.wait(full, iter=k)"), std::string::npos);
      EXPECT_NE(m.body.find("lm.wait(empty, iter=k - 2)"), std::string::npos);
    }
    if (m.op == "iter-plus-1" && m.line_text == "lm.wait(empty, iter=k - 2)")
      EXPECT_NE(m.body.find("lm.wait(empty, iter=k - 1)"), std::string::npos);
    if (m.op == "phase-const" && m.line_text == "lm.wait(full, iter=k)")
      EXPECT_NE(m.body.find("lm.wait(full, stage=k % 2, phase=0)"), std::string::npos) << m.body;
    if (m.op == "pending-plus-1" && m.line_text == "lm.cp_async_wait()")
      EXPECT_NE(m.body.find("lm.cp_async_wait(pending=1)"), std::string::npos);
    if (m.op == "misalign-swizzle") EXPECT_NE(m.body.find("offset=16,"), std::string::npos) << m.body;
    if (m.op == "wait-after-use" && m.line_text == "lm.wait(full, iter=k)") {
      auto a = m.body.find("lm.mma(acc"), b = m.body.find("lm.wait(full, iter=k)");
      EXPECT_LT(a, b);
    }
    if (m.op == "drop-wait" && m.line_text == "lm.wait(empty, stage=j % 2, phase=0)")
      EXPECT_NE(m.body.find("            if j >= 1:\n                pass\n"), std::string::npos) << m.body;
  }
}

TEST(Mutate, SelectionIsDeterministicAndCoversOperators) {
  std::vector<Original> os{{"corpus/t.cake", kAllSites}};
  auto a = generate(os, 80, 7), b = generate(os, 80, 7), c = generate(os, 80, 8);
  ASSERT_EQ(a.size(), 80u);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(renderMutant(a[i], nullptr), renderMutant(b[i], nullptr));
  std::set<std::string> ops;
  for (const auto& m : a) ops.insert(m.op);
  EXPECT_EQ(ops.size(), operators().size());   // round-robin: 80 >= number of operators
  bool differs = false;
  for (size_t i = 0; i < a.size(); ++i) differs |= a[i].relativePath() != c[i].relativePath();
  EXPECT_TRUE(differs);
  auto all = generate(os, 0, 1);
  std::set<std::string> bodies;
  for (const auto& m : enumerate(os[0])) bodies.insert(m.body);
  EXPECT_EQ(all.size(), bodies.size());   // every site, duplicates (same text) removed
}

TEST(Mutate, KnownBadOriginalsAreNotMutated) {
  std::string bad = kAllSites;
  bad.replace(bad.find("# expect: pass"), 14, "# expect: sync.race");
  EXPECT_FALSE(isEligible({"b.cake", bad}));
  EXPECT_TRUE(generate({{"b.cake", bad}}, 10, 1).empty());
}

TEST(Mutate, CorpusMutantsParse) {
  // every mutant of every known-good corpus file is a valid file. A text
  // that two operators (or sites) of one file give alike is compiled once:
  // the front end reads only the text (the path names it in a finding); of
  // the 35,652 mutants of session 49's corpus, 33,204 texts are distinct.
  std::vector<std::string> errs;
  auto cases = gate::discoverCases({std::string(CAKE_SOURCE_DIR) + "/corpus"}, errs);
  int n = 0;
  for (const auto& c : cases) {
    Original o{c.path, c.text};
    if (!isEligible(o)) continue;
    const std::vector<Mutant> mutants = enumerate(o);
    std::unordered_set<std::string_view> compiled;  // views of `mutants`' bodies
    for (const auto& m : mutants) {
      ++n;
      if (!compiled.insert(m.body).second) continue;
      EXPECT_EQ(frontEnd(m.relativePath(), m.body), "") << m.relativePath() << ": " << m.change;
    }
  }
  EXPECT_GT(n, 0);
}

// ------------------------------------------------------------------ labels

namespace {


const Mutant* find(const std::vector<Mutant>& ms, const std::string& op, const std::string& line_text) {
  for (const auto& m : ms)
    if (m.op == op && m.line_text == line_text) return &m;
  return nullptr;
}

bool has(const Label& l, const std::string& rule) {
  return std::find(l.rules.begin(), l.rules.end(), rule) != l.rules.end();
}

}  // namespace

TEST(Label, TheOracleSeparatesBugsFromEquivalentMutants) {
  auto ms = enumerate({"corpus/gemm/ws4.cake", kWs4});
  LabelOptions opts;

  // the consumer reads the slot before it is filled
  const Mutant* drop = find(ms, "drop-wait", "lm.wait(full, iter=k)");
  ASSERT_NE(drop, nullptr);
  Label l = labelMutant(*drop, opts);
  EXPECT_EQ(l.kind, Label::Kind::Bad) << l.text();
  EXPECT_TRUE(has(l, "data.stale-read") || has(l, "sync.race")) << l.text();
  EXPECT_NE(l.text().find("K in {"), std::string::npos) << "the bounds are stated: " << l.text();

  // releasing before the wgmma group retires
  const Mutant* early = find(ms, "wait-after-use", "lm.mma_wait(pending=0)");
  ASSERT_NE(early, nullptr);
  l = labelMutant(*early, opts);
  EXPECT_EQ(l.kind, Label::Kind::Bad) << l.text();
  EXPECT_TRUE(has(l, "sync.race")) << l.text();

  // waiting for the release of k-3 instead of k-4: stricter, equivalent
  const Mutant* strict = find(ms, "iter-plus-1", "lm.wait(empty, iter=k - 4)");
  ASSERT_NE(strict, nullptr);
  l = labelMutant(*strict, opts);
  EXPECT_EQ(l.kind, Label::Kind::Benign) << l.text();
  EXPECT_NE(l.text().find("benign: no violation under exhaustive exploration with"), std::string::npos);
  std::string file = renderMutant(*strict, &l);
  EXPECT_TRUE(cake::checks::gate::parseExpectations(file).pass);

  // layout and direction facts come from a direct computation
  const Mutant* mis = find(ms, "misalign-swizzle",
                           "smem_b = pool.view(offset=65536,  shape=(128, 64), dtype=lm.bf16, stages=4, swizzle=\"128B\")");
  ASSERT_NE(mis, nullptr);
  l = labelMutant(*mis, opts);
  EXPECT_TRUE(has(l, "layout.misaligned")) << l.text();
  bool direction = false;
  for (const auto& m : ms)
    if (m.op == "wrong-barrier" && m.line_text == "lm.wait(full, iter=k)")
      direction = has(labelMutant(m, opts), "struct.wrong-direction");
  EXPECT_TRUE(direction);
}
