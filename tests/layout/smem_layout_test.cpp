// One shared-memory layout (ir/smem_layout.h) for the checks and the
// lowering: what is verified is what is emitted.
//   * the layout itself: pools at multiples of 1024, mbarriers and the TMEM
//     slot after them, a 16-byte aligned end, the reduction-scratch bound;
//   * layout.smem-limit counts the alignment slack the launch requests, so
//     a layout within 1024 bytes of the limit is refused (it did not lower);
//   * for every corpus schedule that lowers as written, the offsets the
//     checker reports (report.resources) are the offsets in the generated
//     CUDA, and the launch requests the size the checker bounded.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>

#include "gate/corpus_gate.h"
#include "ir/expr_build.h"
#include "ir/smem_layout.h"
#include "ir/target.h"
#include "layout_test_util.h"
#include "lowering/lower.h"

namespace cake {
namespace {

using layout_test::lineOf;
using layout_test::readFile;
using layout_test::runGates;
using layout_test::sourceDir;

ir::Module compile(const std::string& text, ir::Target target = ir::Target::Unspecified) {
  ir::DiagnosticSink sink;
  ir::FrontendOptions fo;
  fo.target_override = target;
  auto m = ir::compileModule(ir::makeSourceFile("t.cake", text), fo, sink);
  EXPECT_TRUE(m && !sink.hasErrors());
  return m ? std::move(*m) : ir::Module{};
}

int64_t valueOf(const ir::ExprPtr& e) {
  auto v = ir::constValue(e);
  EXPECT_TRUE(v.has_value());
  return v.value_or(-1);
}

// Two pools, three mbarriers, a TMEM region, a 4-warp role that reduces.
const char* kTwoPools = R"(@cake.schedule(target="sm_100a")
def two_pools(lm, X: LM.tma2d, Y: LM.gmem):
    a      = lm.smem(1000)
    b      = lm.smem(3000)
    smem_a = a.view(offset=0, shape=(4, 64), dtype=lm.bf16)
    smem_b = b.view(offset=0, shape=(8, 64), dtype=lm.bf16)
    acc    = lm.tmem(cols=0, width=32, shape=(128, 32), dtype=lm.f32)
    x      = lm.regs(shape=(128, 64), dtype=lm.f32)
    part   = lm.regs(shape=(128, 1), dtype=lm.f32)
    one    = lm.role(warps=[0])
    red    = lm.role(warps=[4, 5, 6, 7])
    pipe = lm.pipeline(stages=2)
    full = lm.barrier(prod=[one], cons=[red], init_count=1, pipeline=pipe)
    done = lm.barrier(prod=[red], cons=[one], init_count=1, count=1)
    with one:
        lm.arrive(full, iter=0)
    with red:
        lm.wait(full, iter=0)
        lm.fill(x, 0.0)
        lm.reduce(part, x, op="sum", axis=1)
        lm.arrive(done, iter=0)
)";

TEST(SmemLayout, PoolsAlignedToTheSlackBoundaryThenBarriersThenTmemSlot) {
  ir::Module m = compile(kTwoPools);
  ASSERT_EQ(m.schedules.size(), 1u);
  const ir::Schedule& s = m.schedules[0];
  const ir::SmemLayout L = ir::smemLayout(s);
  ASSERT_EQ(L.pool_base.size(), 2u);
  EXPECT_EQ(valueOf(L.pool_base[0]), 0);
  EXPECT_EQ(valueOf(L.pool_end[0]), 1000);
  EXPECT_EQ(valueOf(L.pool_base[1]), 1024);  // not 1008: every pool starts at a multiple of 1024
  EXPECT_EQ(valueOf(L.pool_end[1]), 4024);
  EXPECT_EQ(valueOf(L.barrier_base), 4024);
  EXPECT_EQ(L.barrier_slots, 3);
  EXPECT_EQ(L.barrier_slot_base, (std::vector<int64_t>{0, 2}));
  ASSERT_TRUE(L.tmem_slot);
  EXPECT_EQ(valueOf(L.tmem_slot), 4048);
  EXPECT_EQ(valueOf(L.total), 4064);  // 4056, 16-byte aligned
  EXPECT_EQ(valueOf(L.requested), ir::requestedSmemBytes(4064));
  EXPECT_EQ(valueOf(L.scratch_base), 4064);
  ASSERT_EQ(L.scratch_roles.size(), 1u);
  EXPECT_EQ(s.roles[L.scratch_roles[0]].name, "red");
  EXPECT_EQ(L.scratch_bound, 4 * 32 * 8 * 8);
  EXPECT_EQ(ir::reductionScratchStride(s, L.scratch_roles[0]), 4 * 32 * 8 * 8);
}

TEST(SmemLayout, SymbolicSizesStayExpressions) {
  const std::string src = R"(@cake.schedule(target="sm_90a")
def sym(lm, X: LM.tma2d, BM: LM.i32):
    lm.assume(BM >= 8)
    lm.assume(BM <= 64)
    p = lm.smem(BM * 100)
    q = lm.smem(64)
    v = p.view(offset=0, shape=(BM, 8), dtype=lm.bf16)
    w = q.view(offset=0, shape=(4, 8), dtype=lm.bf16)
    r = lm.role(warps=[0])
    with r:
        lm.fence_proxy()
)";
  ir::Module m = compile(src);
  ASSERT_EQ(m.schedules.size(), 1u);
  const ir::SmemLayout L = ir::smemLayout(m.schedules[0]);
  EXPECT_FALSE(ir::constValue(L.pool_base[1]).has_value());
  for (int64_t bm : {8, 10, 11, 64}) {
    ir::EvalEnv env;
    env.params[1] = bm;
    const int64_t q = (bm * 100 + 1023) / 1024 * 1024;
    EXPECT_EQ(ir::evaluate(*L.pool_base[1], env), q) << bm;
    EXPECT_EQ(ir::evaluate(*L.total, env), (q + 64 + 15) / 16 * 16) << bm;
  }
  EXPECT_TRUE(L.scratch_roles.empty());
  EXPECT_EQ(L.scratch_bound, 0);
}

// ------------------------------------------- the limit counts the slack

// layout_test::ring with one pool of `pool` bytes, a 2-stage 128x64 bf16
// view and 4 mbarrier slots (32 B).
std::string ring(const std::string& pool) {
  return layout_test::ring("", "", pool,
                           R"(pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B"))");
}

TEST(SmemLayout, LimitRefusesALayoutWithinTheSlack) {
  // 232448 - 1024 - 32: the layout plus the slack is exactly the limit.
  auto fits = runGates(ring("231392"));
  EXPECT_FALSE(fits->has("layout.smem-limit")) << fits->describe();
  ASSERT_NE(fits->verdict("layout.smem-limit"), nullptr);
  EXPECT_EQ(fits->verdict("layout.smem-limit")->kind, checks::VerdictKind::Proved);
  EXPECT_EQ(fits->resources["blocks_per_sm"]["smem"]["requested"].get<int64_t>(), 232448);
  // 16 bytes more: the layout (231440 B) is under the limit, the request
  // (232464 B) is not. Before the slack was counted this passed `cake
  // check` and failed `cake lower`.
  const std::string text = ring("231408");
  auto over = runGates(text);
  auto fs = over->rule("layout.smem-limit");
  ASSERT_EQ(fs.size(), 1u) << over->describe();
  const ir::Finding& f = *fs[0];
  EXPECT_EQ(f.severity, ir::Severity::Error);
  // The pool with the slack just fits (231408 + 1024 <= 232448): the
  // mbarriers after it cross the limit.
  EXPECT_EQ(f.range.line, lineOf(text, "full  = lm.barrier"));
  EXPECT_NE(f.message.find("the 4 mbarrier(s) end at byte 231440"), std::string::npos) << f.message;
  EXPECT_EQ(f.data["bytes"].get<int64_t>(), 231440);
  EXPECT_EQ(f.data["requested"].get<int64_t>(), 232464);
  EXPECT_EQ(f.data["align_slack"].get<int64_t>(), ir::hw::kSmemAlignSlack);
  EXPECT_EQ(f.data["limit"].get<int64_t>(), 232448);
  EXPECT_NE(f.message.find("232464 bytes of shared memory (231440 of layout + 1024 alignment slack)"),
            std::string::npos)
      << f.message;
  EXPECT_EQ(over->verdict("layout.smem-limit")->kind, checks::VerdictKind::Counterexample);

  // The lowering agrees at both edges.
  for (const auto& [pool, lowers] : {std::pair{std::string("231392"), true}, {std::string("231408"), false}}) {
    ir::Module m = compile(ring(pool));
    ASSERT_EQ(m.schedules.size(), 1u);
    auto r = lowering::lowerToCuda(m.schedules[0]);
    std::string why;
    for (const auto& fd : r.findings) why += ir::renderText(fd) + "\n";
    bool limit_error = why.find("exceeds the 232448 B a block can have") != std::string::npos;
    EXPECT_EQ(limit_error, !lowers) << pool << "\n" << why;
    if (r.ok) EXPECT_LE(r.launch.smem_bytes, 232448) << pool;
  }
}

TEST(SmemLayout, CorpusSlackTwins) {
  const auto dir = sourceDir() / "corpus" / "layout";
  auto good = runGates(readFile(dir / "good_smem_limit_slack_bm_224.cake"));
  EXPECT_EQ(good->errors(), 0u) << good->describe();
  EXPECT_EQ(good->verdict("layout.smem-limit")->kind, checks::VerdictKind::Proved) << good->describe();
  const std::string text = readFile(dir / "bad_smem_limit_slack_bm_226.cake");
  auto bad = runGates(text);
  auto fs = bad->rule("layout.smem-limit");
  ASSERT_EQ(fs.size(), 1u) << bad->describe();
  EXPECT_EQ(fs[0]->range.line, lineOf(text, "full  = lm.barrier"));
  EXPECT_EQ(fs[0]->data["counterexample"]["BM"].get<int64_t>(), 226);
  EXPECT_EQ(bad->errors(), 1u) << bad->describe();
  // The layout alone fits (231552 <= 232448): only the slack is over.
  EXPECT_LE(fs[0]->data["bytes"].get<int64_t>(), 232448);
  EXPECT_GT(fs[0]->data["requested"].get<int64_t>(), 232448);
}

TEST(SmemLayout, ScratchThatMayNotFitIsUndecidedNotPassed) {
  // A 4-warp role reducing registers may get 8192 bytes of reduction
  // scratch from the lowering; with the layout 4 KB under the limit the
  // gate cannot tell whether it will (the lowering's fragment layout
  // decides): unknown, never proved.
  std::string src = R"(@cake.schedule(target="sm_90a")
def red(lm, Y: LM.gmem):
    pool = lm.smem(POOL)
    v    = pool.view(offset=0, shape=(128, 64), dtype=lm.f32)
    x    = lm.regs(shape=(128, 64), dtype=lm.f32)
    part = lm.regs(shape=(128, 1), dtype=lm.f32)
    red  = lm.role(warps=[0, 1, 2, 3])
    with red:
        lm.copy(x, v)
        lm.reduce(part, x, op="sum", axis=0)
        lm.copy(Y, part, coords=(0, 0))
)";
  auto with = [&](int64_t pool) {
    std::string t = src;
    t.replace(t.find("POOL"), 4, std::to_string(pool));
    return t;
  };
  auto tight = runGates(with(232448 - 1024 - 4096));
  EXPECT_FALSE(tight->has("layout.smem-limit")) << tight->describe();
  ASSERT_NE(tight->verdict("layout.smem-limit"), nullptr);
  EXPECT_EQ(tight->verdict("layout.smem-limit")->kind, checks::VerdictKind::Unknown) << tight->describe();
  EXPECT_NE(tight->verdict("layout.smem-limit")->detail.find("reduction scratch"), std::string::npos);
  EXPECT_EQ(tight->resources["smem"]["scratch"]["bound"].get<int64_t>(), 8192);
  auto roomy = runGates(with(65536));
  EXPECT_EQ(roomy->verdict("layout.smem-limit")->kind, checks::VerdictKind::Proved) << roomy->describe();
}

// --------------------------------- the checker's offsets are the emitted ones

struct Emitted {
  std::vector<int64_t> pools, views, barriers;
  std::optional<int64_t> tmem_slot, scratch, layout_bytes;
};

Emitted parseEmitted(const std::string& cu) {
  Emitted e;
  std::istringstream in(cu);
  std::string line;
  const std::regex pool(R"(const uint32_t cake_pool_\w+ = cake_smem \+ (\d+);)");
  const std::regex view(R"(const uint32_t \w+ = cake_pool_\w+ \+ (\d+);)");
  const std::regex bar(R"(const uint32_t \w+ = cake_smem \+ (\d+);  // \d+ mbarriers?)");
  const std::regex tmem(R"(cake_tmem_alloc\(cake_smem \+ (\d+),)");
  const std::regex scratch(R"(cake_scratch = cake_smem \+ (\d+) \+)");
  const std::regex total(R"(threads, (\d+) B shared memory \(\+)");
  std::smatch m;
  while (std::getline(in, line)) {
    // Every pattern holds one of these words: a line without them matches
    // none (std::regex over every line of the lowered corpus was 40 % of
    // the corpus test's CPU; docs/ci.md, session 36).
    if (line.find("cake_smem") == std::string::npos && line.find("cake_pool_") == std::string::npos &&
        line.find(" B shared memory") == std::string::npos)
      continue;
    if (std::regex_search(line, m, pool)) e.pools.push_back(std::stoll(m[1]));
    else if (std::regex_search(line, m, view)) e.views.push_back(std::stoll(m[1]));
    else if (std::regex_search(line, m, bar)) e.barriers.push_back(std::stoll(m[1]));
    if (std::regex_search(line, m, tmem)) e.tmem_slot = std::stoll(m[1]);
    if (std::regex_search(line, m, scratch) && !e.scratch) e.scratch = std::stoll(m[1]);
    if (std::regex_search(line, m, total) && !e.layout_bytes) e.layout_bytes = std::stoll(m[1]);
  }
  return e;
}

// Lowers `s` as written and, when it lowers, compares the generated CUDA's
// offsets with the checker's report; false when it does not lower.
bool emittedMatchesChecker(const ir::Schedule& s, ir::Target target, bool* scratch = nullptr) {
  lowering::LowerOptions o;
  o.target = target;
  auto r = lowering::lowerToCuda(s, o);
  if (!r.ok) return false;
  checks::CheckOptions co;
  co.target = r.target;
  ir::DiagnosticSink gsink;
  nlohmann::json rep;
  std::vector<checks::PropertyVerdict> verdicts;
  checks::runLayoutGates(s, co, gsink, rep, verdicts);
  const auto& smem = rep["smem"];
  const Emitted e = parseEmitted(r.source);
  EXPECT_EQ(e.pools.size(), smem["pools"].size());
  std::vector<int64_t> views(s.views.size(), -1);
  for (size_t p = 0; p < e.pools.size() && p < smem["pools"].size(); ++p) {
    EXPECT_EQ(e.pools[p], smem["pools"][p]["base"].get<int64_t>()) << "pool " << p;
    for (const auto& v : smem["pools"][p]["views"])  // the report lists views by pool; map them back by name
      for (size_t k = 0; k < s.views.size(); ++k)
        if (s.views[k].name == v["name"].get<std::string>()) views[k] = v["offset"].get<int64_t>();
  }
  EXPECT_EQ(e.views, views);
  EXPECT_EQ(e.barriers.size(), s.barriers.size());
  int64_t slot = smem["barriers"]["base"].get<int64_t>();
  for (size_t b = 0; b < s.barriers.size() && b < e.barriers.size(); ++b) {
    EXPECT_EQ(e.barriers[b], slot) << "barrier " << s.barriers[b].name;
    slot += 8 * s.barriers[b].count;
  }
  if (e.tmem_slot) EXPECT_EQ(*e.tmem_slot, smem["tmem_slot"].get<int64_t>());
  EXPECT_TRUE(e.layout_bytes.has_value());
  const int64_t total = smem["total"].get<int64_t>(), emitted = e.layout_bytes.value_or(-1);
  if (e.scratch) {
    EXPECT_TRUE(smem["scratch"].is_object());
    if (smem["scratch"].is_object()) {
      EXPECT_EQ(*e.scratch, smem["scratch"]["base"].get<int64_t>());
      EXPECT_LE(emitted, total + smem["scratch"]["bound"].get<int64_t>());
    }
    EXPECT_GT(emitted, total);
  } else {
    EXPECT_EQ(emitted, total);
    EXPECT_EQ(r.launch.smem_bytes, rep["blocks_per_sm"]["smem"]["requested"].get<int64_t>());
  }
  EXPECT_EQ(r.launch.smem_bytes, ir::requestedSmemBytes(emitted));
  if (scratch) *scratch = e.scratch.has_value();
  return true;
}

TEST(SmemLayout, CheckerOffsetsAreTheEmittedOffsetsOnTheCorpus) {
  namespace fs = std::filesystem;
  const fs::path root = sourceDir() / "corpus";
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().extension() == ".cake" &&
        fs::relative(e.path(), root).string().rfind("mutants/", 0) != 0)
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  int lowered = 0, with_scratch = 0;
  for (const auto& path : files) {
    const std::string text = readFile(path);
    const std::string rel = fs::relative(path, root).string();
    const ir::FrontendOptions fe = checks::gate::frontendOptionsFor(text);
    ir::DiagnosticSink sink;
    auto mod = ir::compileModule(ir::makeSourceFile(rel, text), fe, sink);
    if (!mod) continue;
    for (const auto& s : mod->schedules) {
      SCOPED_TRACE(rel + " " + s.name);
      bool scratch = false;
      if (!emittedMatchesChecker(s, s.target == ir::Target::Unspecified ? fe.target_override : ir::Target::Unspecified,
                                 &scratch))
        continue;
      ++lowered;
      with_scratch += scratch;
    }
  }
  std::printf("[ smem-layout ] %d corpus schedules (mutants aside) lowered and compared, %d with reduction scratch\n",
              lowered, with_scratch);
  EXPECT_GT(lowered, 200);
  EXPECT_GT(with_scratch, 0);
}

TEST(SmemLayout, CheckerOffsetsAreTheEmittedOffsetsWithTwoPools) {
  // No corpus schedule that lowers has two pools: split the TMA ring's pool
  // so that the second starts after a 49168-byte first pool. Its views need
  // 128 bytes (TMA, no swizzle): placed by their alignment alone it would
  // start at 49280; the one placement puts it at 50176, in the checks and
  // in the kernel alike.
  std::string text = readFile(sourceDir() / "corpus/copy/sm90_tma_load_store_ring.cake");
  auto edit = [&](const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  edit("    pool   = lm.smem(81920)\n", "    pool   = lm.smem(49168)\n    pool_y = lm.smem(32768)\n");
  edit(R"(smem_y = pool.view(offset=49152, shape=(128, 64), dtype=lm.bf16, stages=2, swizzle="128B"))",
       R"(smem_y = pool_y.view(offset=0, shape=(128, 64), dtype=lm.bf16, stages=2))");
  ir::Module m = compile(text);
  ASSERT_EQ(m.schedules.size(), 1u);
  const ir::SmemLayout L = ir::smemLayout(m.schedules[0]);
  EXPECT_EQ(valueOf(L.pool_base[1]), 50176);
  EXPECT_TRUE(emittedMatchesChecker(m.schedules[0], ir::Target::Unspecified));
}

}  // namespace
}  // namespace cake
