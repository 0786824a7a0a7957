// Guards whose branches build alike (docs/z3.md "Guards whose branches
// build alike", helper fa4, session 27, issue 11): an `if` on a parameter
// the proof cannot bound (`t < n_work`, n_work unbounded) whose two
// branches are equal in everything the builder reads and differ only in
// the values they write is read as taken, so the proof no longer reads the
// parameter. Each variant below whose branches differ in something the
// engines read (a byte range, a barrier, an arrival count, a wait's phase,
// a fence, an async commit) is broken in its else-branch only: its
// then-branch alone is proved, so reading such a guard as taken would prove
// it. Each is confirmed broken by the bounded check and is not proved.
#include <gtest/gtest.h>

#include <string>

#include "encoder/trip_guards.h"
#include "prove_util.h"
#include "test_util.h"

using namespace cake;

namespace trip_alike_test {

const char* kFa4Fixed = "corpus/bugs/sync.race/fa4_flex_empty_tile_stats_flush_no_wait_fixed.cake";
const char* kFa4Broken = "corpus/bugs/sync.race/fa4_flex_empty_tile_stats_flush_no_wait.cake";

// The FA4-flex statistics hand-off (the corpus file's shape) with places
// for declarations and for each role's tile body. O is a TMA tensor so that
// the correction may store the statistics with a TMA store.
const char* kTemplate = R"(@cake.schedule(target="sm_100a")
def alike(lm, O: LM.tma2d, G: LM.gmem, n_tiles: LM.i32, n_work: LM.i32):
    lm.assume(n_tiles >= 1)
    lm.assume(n_work >= 0)
    pool  = lm.smem(4096)
    stats = pool.view(offset=0, shape=(128, 2), dtype=lm.f32)
    wide  = pool.view(offset=0, shape=(256, 2), dtype=lm.f32)
    st_r  = lm.regs(shape=(128, 2), dtype=lm.f32)
    st_c  = lm.regs(shape=(128, 2), dtype=lm.f32)

    softmax = lm.role(warps=[0, 1, 2, 3])
    corr    = lm.role(warps=[4, 5, 6, 7])

    sc_full  = lm.barrier(count=1, prod=[softmax], cons=[corr], init_count=1)
    sc_empty = lm.barrier(count=1, prod=[corr], cons=[softmax], init_count=1)
    sc_early = lm.barrier(count=1, prod=[corr], cons=[softmax], init_count=1)

    with softmax:
        for t in lm.range(0, n_tiles):
SOFTMAX
    with corr:
        for t in lm.range(0, n_tiles):
CORR
)";

// The softmax tile body as in the corpus fix, a guard `t < n_work` in front.
const char* kSoftmax = R"(            GUARD
            lm.wait(sc_empty, iter=t - 1)
            lm.copy(stats[t], st_r)
            lm.arrive(sc_full, iter=t)
)";
const char* kCorr = R"(            lm.wait(sc_full, iter=t)
            lm.copy(st_c, stats[t])
            lm.arrive(sc_empty, iter=t)
            lm.copy(G, st_c, coords=(lm.block_idx(0) * 128, 2 * t))
)";
// The correction stores the statistics with a TMA store (an async-proxy
// read of what the softmax wrote through the generic proxy).
const char* kCorrStore = R"(            lm.wait(sc_full, iter=t)
            stats.tma_store(O, coords=(lm.block_idx(0) * 128, 2 * t), iter=t)
            COMMIT
            lm.tma_store_wait(pending=0)
            lm.arrive(sc_empty, iter=t)
)";

std::string indent(const std::string& lines, const std::string& by) {
  std::string out;
  size_t at = 0;
  while (at < lines.size()) {
    size_t nl = lines.find('\n', at);
    if (nl == std::string::npos) nl = lines.size();
    out += by + lines.substr(at, nl - at) + "\n";
    at = nl + 1;
  }
  return out;
}

// `if t < n_work:` with the two branches (lines without indentation, at
// the tile body's indentation), or the then-branch alone (`alone`).
std::string guard(const std::string& then, const std::string& orelse, bool alone) {
  if (alone) return indent(then, "            ");
  return "            if t < n_work:\n" + indent(then, "                ") + "            else:\n" +
         indent(orelse, "                ");
}

std::string schedule(const std::string& softmax, const std::string& corr) {
  std::string text = cake::testing::replace(kTemplate, "SOFTMAX\n", softmax);
  return cake::testing::replace(text, "CORR\n", corr);
}

// `GUARD` of the template's softmax body replaced.
std::string softmaxWith(const std::string& g) { return cake::testing::replace(kSoftmax, "            GUARD\n", g); }

const char* kFills = "lm.fill(st_r, 1.0)";
const char* kZeros = "lm.fill(st_r, 0.0)";

bool violatedAt(const std::string& text, int64_t n_tiles, int64_t n_work) {
  return cake::testing::violatedAt(cake::testing::compile(text).schedules.at(0),
                                   {{"n_tiles", n_tiles}, {"n_work", n_work}});
}

// A variant broken in its else-branch: broken at (n_tiles, n_work), clean
// where every tile takes the then-branch, the then-branch alone proved
// (so a guard read as taken would be proved), and the variant not proved.
void expectBrokenOnlyInTheElseBranch(const std::string& what, const std::string& variant, const std::string& alone,
                                     int64_t n_tiles, int64_t n_work) {
  SCOPED_TRACE(what);
  EXPECT_TRUE(violatedAt(variant, n_tiles, n_work));
  EXPECT_FALSE(violatedAt(variant, 3, 3));
  const auto a = cake::testing::proveText(alone);
  EXPECT_EQ(a.outcome, encoder::Outcome::Proved) << a.detail;
  const auto r = cake::testing::proveText(variant);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
  EXPECT_EQ(r.engine.find("build alike"), std::string::npos) << r.engine;
}

}  // namespace trip_alike_test

namespace alike_t = trip_alike_test;

// The corpus fix: its guard only chooses the value a fill writes. Proved,
// with the guard read as taken; its twin (the wait in the then-branch only)
// is broken and not proved.
TEST(TripAlike, FillValueGuardOnAnUnboundedParameterIsProved) {
  const auto r = cake::testing::proveText(cake::testing::corpusText(alike_t::kFa4Fixed));
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("1 guard whose branches build alike read as taken (t < n_work)"), std::string::npos)
      << r.engine;

  const std::string twin = cake::testing::corpusText(alike_t::kFa4Broken);
  EXPECT_TRUE(alike_t::violatedAt(twin, 2, 1));
  const auto b = cake::testing::proveText(twin);
  EXPECT_NE(b.outcome, encoder::Outcome::Proved) << b.engine;

  // the template's form of it, and branches that also synchronize alike
  // (the wait in both) and compute different values (op=)
  EXPECT_EQ(cake::testing::proveText(alike_t::schedule(alike_t::softmaxWith(alike_t::guard(alike_t::kFills, alike_t::kZeros, false)), alike_t::kCorr)).outcome,
            encoder::Outcome::Proved);
  const std::string both = alike_t::schedule(
      cake::testing::replace(alike_t::softmaxWith(alike_t::guard("lm.fill(st_r, 1.0)\nlm.wait(sc_empty, iter=t - 1)\n"
                                               "lm.unary(st_r, st_r, op=\"exp2\")",
                                               "lm.fill(st_r, 0.0)\nlm.wait(sc_empty, iter=t - 1)\n"
                                               "lm.unary(st_r, st_r, op=\"neg\")",
                                               false)),
                             "\n            lm.wait(sc_empty, iter=t - 1)\n", "\n"),
      alike_t::kCorr);
  const auto w = cake::testing::proveText(both);
  EXPECT_EQ(w.outcome, encoder::Outcome::Proved) << w.detail;
  EXPECT_NE(w.engine.find("build alike"), std::string::npos) << w.engine;
}

// Branches that differ in what the engines read: not read as taken, not
// proved, each broken in its else-branch (the then-branch alone proved).
TEST(TripAlike, BranchesThatDifferInWhatTheEnginesReadAreNotProved) {
  using cake::testing::replace;
  const std::string fills = alike_t::softmaxWith(alike_t::guard(alike_t::kFills, alike_t::kZeros, false));
  // the byte range: the else-branch stages its rows over the statistics
  // (wide's rows 0..127 are stats' bytes) before the wait, the then-branch
  // beside them
  {
    auto body = [&](bool alone) {
      return alike_t::schedule(replace(alike_t::kSoftmax, "            GUARD\n",
                              "            lm.fill(st_r, 1.0)\n" + alike_t::guard("lm.copy(wide[0][128:256, :], st_r)",
                                                                    "lm.copy(wide[0][0:128, :], st_r)", alone)),
                      alike_t::kCorr);
    };
    alike_t::expectBrokenOnlyInTheElseBranch("access range", body(false), body(true), 2, 0);
  }
  // the barrier: the else-branch waits on sc_early, which the correction
  // releases before it reads the statistics
  {
    const std::string corr = replace(alike_t::kCorr, "            lm.wait(sc_full, iter=t)\n",
                                     "            lm.wait(sc_full, iter=t)\n            lm.arrive(sc_early, iter=t)\n");
    auto body = [&](bool alone) {
      return alike_t::schedule(replace(fills, "\n            lm.wait(sc_empty, iter=t - 1)\n", "\n" +
                              alike_t::guard("lm.wait(sc_empty, iter=t - 1)", "lm.wait(sc_early, iter=t - 1)", alone)),
                      corr);
    };
    alike_t::expectBrokenOnlyInTheElseBranch("barrier", body(false), body(true), 2, 0);
  }
  // the arrival count: two arrivals on a slot that expects one
  {
    auto body = [&](bool alone) {
      return alike_t::schedule(replace(fills, "\n            lm.arrive(sc_full, iter=t)\n", "\n" +
                              alike_t::guard("lm.arrive(sc_full, iter=t)", "lm.arrive(sc_full, iter=t, count=2)", alone)),
                      alike_t::kCorr);
    };
    alike_t::expectBrokenOnlyInTheElseBranch("arrival count", body(false), body(true), 2, 0);
  }
  // the wait: the else-branch waits for an older phase of the empty slot
  {
    auto body = [&](bool alone) {
      return alike_t::schedule(replace(fills, "\n            lm.wait(sc_empty, iter=t - 1)\n", "\n" +
                              alike_t::guard("lm.wait(sc_empty, iter=t - 1)", "lm.wait(sc_empty, iter=t - 3)", alone)),
                      alike_t::kCorr);
    };
    alike_t::expectBrokenOnlyInTheElseBranch("wait phase", body(false), body(true), 3, 0);
  }
  // the fence: the statistics go out through a TMA store (the async proxy);
  // the else-branch leaves out the proxy fence after the generic write
  {
    const std::string corr = replace(alike_t::kCorrStore, "            COMMIT\n", "            lm.tma_store_commit()\n");
    auto body = [&](bool alone) {
      return alike_t::schedule(replace(fills, "\n            lm.arrive(sc_full, iter=t)\n", "\n" +
                              alike_t::guard("lm.fence_proxy()", "lm.fill(st_r, 0.0)", alone) +
                                  "            lm.arrive(sc_full, iter=t)\n"),
                      corr);
    };
    alike_t::expectBrokenOnlyInTheElseBranch("fence", body(false), body(true), 1, 0);
  }
  // the async commit: the else-branch does not commit the TMA store, so the
  // wait does not cover it and the next tile's write races with its read
  {
    const std::string softmax = replace(fills, "\n            lm.arrive(sc_full, iter=t)\n",
                                        "\n            lm.fence_proxy()\n            lm.arrive(sc_full, iter=t)\n");
    auto body = [&](bool alone) {
      return alike_t::schedule(softmax, replace(alike_t::kCorrStore, "            COMMIT\n",
                                       alike_t::guard("lm.tma_store_commit()", "lm.fill(st_c, 0.0)", alone)));
    };
    alike_t::expectBrokenOnlyInTheElseBranch("async commit", body(false), body(true), 2, 0);
  }
}

// Equal branches the argument does not take (the answer stays unknown, the
// parameter still read): a view slot named by the loop variable inside the
// guard (the builder marks stage-like ops per statement), a loop inside it
// (the stale-accumulator check keys on loop statements).
TEST(TripAlike, EqualBranchesOutsideTheArgumentAreNotRead) {
  using cake::testing::replace;
  const std::string slot = alike_t::schedule(
      replace(alike_t::kSoftmax, "            GUARD\n            lm.wait(sc_empty, iter=t - 1)\n            lm.copy(stats[t], st_r)\n",
              "            lm.fill(st_r, 1.0)\n            lm.wait(sc_empty, iter=t - 1)\n" +
                  alike_t::guard("lm.copy(stats[t], st_r)", "lm.copy(stats[t], st_r)", false)),
      alike_t::kCorr);
  EXPECT_FALSE(alike_t::violatedAt(slot, 3, 1));
  const auto a = cake::testing::proveText(slot);
  EXPECT_NE(a.outcome, encoder::Outcome::Proved) << a.engine;
  EXPECT_NE(a.detail.find("n_work"), std::string::npos) << a.detail;

  const std::string loop = alike_t::schedule(
      alike_t::softmaxWith(alike_t::guard("for j in lm.range(0, 2):\n    lm.fill(st_r, 1.0)",
                        "for j in lm.range(0, 2):\n    lm.fill(st_r, 0.0)", false)),
      alike_t::kCorr);
  const auto b = cake::testing::proveText(loop);
  EXPECT_NE(b.outcome, encoder::Outcome::Proved) << b.engine;
  EXPECT_NE(b.detail.find("n_work"), std::string::npos) << b.detail;

  // the comparison itself: the fill value and op= may differ, nothing else
  auto m = cake::testing::compile(alike_t::schedule(alike_t::softmaxWith(alike_t::guard(alike_t::kFills, alike_t::kZeros, false)), alike_t::kCorr));
  const ir::Stmt& g = m.schedules.at(0).bodies.at(0).body.at(0).body.at(0);
  ASSERT_EQ(g.kind, ir::Stmt::Kind::If);
  EXPECT_TRUE(encoder::trip::branchesBuildAlike(g.body, g.orelse));
  EXPECT_FALSE(encoder::trip::branchesBuildAlike(g.body, {}));
  ir::Block other = g.orelse;
  other.at(0).op.dst.index = 1;  // st_c
  EXPECT_FALSE(encoder::trip::branchesBuildAlike(g.body, other));
}

// The per-case copies of "Guards decided per case" splice the taken branch
// into the enclosing block, which joined derived expect_tx batches: with
// the B load under `if M > N:` (the else-branch loading B at other
// coordinates) both outcomes give `full` two derived arrivals per phase
// (an overflow), while each spliced copy had one batch of both loads and
// was proved. The copies now keep the `if`s where splicing changes the plan.
TEST(TripGuardSplice, SplicedCasesKeepTheDerivedExpectTx) {
  using cake::testing::replace;
  const std::string fixed = cake::testing::corpusText("corpus/basics/guard_two_params_fixed.cake");
  std::string text = replace(fixed, "            smem_b.tma_load(B, coords=(0, k * 64), iter=k, barrier=full)\n",
                             "            if M > N:\n"
                             "                smem_b.tma_load(B, coords=(0, k * 64), iter=k, barrier=full)\n"
                             "            else:\n"
                             "                smem_b.tma_load(B, coords=(64, k * 64), iter=k, barrier=full)\n");
  text = replace(text,
                 "            if M > N:\n                lm.mma_wait(pending=0)\n                lm.arrive(empty, iter=k)\n"
                 "            elif m_blk + 128 >= M:\n                lm.mma_wait(pending=0)\n"
                 "                lm.arrive(empty, iter=k)\n            else:\n                lm.mma_wait(pending=1)\n"
                 "                lm.mma_wait(pending=0)\n                lm.arrive(empty, iter=k)\n",
                 "            lm.mma_wait(pending=0)\n            lm.arrive(empty, iter=k)\n");
  auto m = cake::testing::compile(text);
  const ir::Schedule& s = m.schedules.at(0);
  EXPECT_TRUE(cake::testing::violatedAt(s, {{"M", 1}, {"N", 1}, {"K", 1}}));
  EXPECT_TRUE(cake::testing::violatedAt(s, {{"M", 2}, {"N", 1}, {"K", 1}}));
  const auto r = cake::testing::proveSchedule(s);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << r.engine;
  // the corpus file (no load under a guard) is still proved per outcome
  EXPECT_EQ(cake::testing::proveText(fixed).outcome, encoder::Outcome::Proved);
}
