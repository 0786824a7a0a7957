// data.stale-read tracks the data's lap per byte range (issue 9 point 7,
// docs/rules/data.stale-read.md): a tile written once and read on every
// iteration, and bytes read through a second view, are not stale; the
// stale variants of both are. Every engine that decides the rule (the
// explicit-state simulator, Z3 BMC, Z3 partial order) gives the same rules.
#include "tests/common/build_paths.h"
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "encoder/simulator.h"
#include "encoder/z3_po.h"
#include "ir/frontend.h"
#include "engine_agreement.h"
#include "test_util.h"
#include "tests/common/text_edit.h"

using namespace cake;
using namespace cake::encoder;

namespace {

std::string corpusFile(const std::string& name) {
  std::string path = std::string(CAKE_SOURCE_DIR) + "/corpus/bugs/data.stale-read/" + name;
  std::string err;
  auto file = ir::readSourceFile(path, err);
  EXPECT_TRUE(file) << err;
  return file ? std::string(file->text) : std::string();
}

using Vals = std::initializer_list<std::pair<std::string, int64_t>>;

// `check` on the system of the first schedule of `text` for one binding
// (the module outlives the system, which points into it).
template <class Check>
auto onSystem(const std::string& text, Vals vals, Check&& check) -> decltype(check(System{})) {
  ir::Module mod = cake::testing::compile(text);
  EXPECT_FALSE(mod.schedules.empty());
  if (mod.schedules.empty()) return {};
  return check(cake::testing::build(mod.schedules[0], cake::testing::bind(mod.schedules[0], vals)));
}

// Whether agreedRules asks Z3 BMC too. Three systems' BMC runs were 24 of
// this suite's 36 CPU s (session 49, docs/ci.md "Session 49: ctest time"):
// their tests ask the simulator and z3-po (which decides all three), and
// StaleRead.SlowCostlySystemsAgreeWithZ3Bmc (label `slow`) asks all three
// engines on them.
enum class WithBmc { Yes, InTheLongFormOnly };

// The rules every engine finds on the schedule for one binding (all rules:
// no engine stops at the first).
std::set<std::string> agreedRules(const std::string& text, Vals vals, WithBmc bmc = WithBmc::Yes) {
  return onSystem(text, vals, [bmc](const System& sys) {
    const ModelCheckResult sim = cake::testing::exploreEveryRule(sys);
    EXPECT_NE(sim.outcome, Outcome::Unknown) << sim.detail;
    if (bmc == WithBmc::Yes) cake::testing::bmcAgrees(sys, sim);
    PoOptions po;
    po.limits.timeout_ms = 60000;
    PoResult z = poCheck(sys, po);
    EXPECT_FALSE(z.internal_error) << z.error;
    // z3-po refuses (unknown) generic reads of TMA-filled bytes; all else it
    // decides (and must, where BMC is left out: one engine besides the simulator)
    if (bmc == WithBmc::InTheLongFormOnly) EXPECT_NE(z.result.outcome, Outcome::Unknown) << z.result.detail;
    if (z.result.outcome != Outcome::Unknown)
      EXPECT_EQ(cake::testing::ruleSet(sim), cake::testing::ruleSet(z.result)) << "z3-po";
    return cake::testing::ruleSet(sim);
  });
}

using Rules = std::set<std::string>;

// One instance loads T and publishes it; another overwrites the same bytes
// through smem_o (its own data) and publishes that; a third reads. Nothing
// races. Reading smem_t, which the loader writes, means the loader's data:
// the other view's data there is stale. Reading smem_o is fine.
const std::string kClobber = R"(@cake.schedule(target="sm_90a")
def clobber(lm, T: LM.gmem, O: LM.gmem, Y: LM.gmem):
    pool   = lm.smem(8192)
    smem_t = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=1)
    smem_o = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=1)
    t = lm.regs(shape=(64, 64), dtype=lm.bf16)
    o = lm.regs(shape=(64, 64), dtype=lm.bf16)
    y = lm.regs(shape=(64, 64), dtype=lm.f32)
    load   = lm.role(warps=[0])
    writer = lm.role(warps=[1])
    reader = lm.role(warps=[2])
    t_ready = lm.named_barrier(roles=[load, writer])
    o_done  = lm.named_barrier(roles=[writer, reader])
    with load:
        lm.copy(t, T, coords=(0, 0))
        lm.copy(smem_t[0], t)
        lm.bar_arrive(t_ready)
    with writer:
        lm.copy(o, O, coords=(0, 0))
        lm.sync(t_ready)
        lm.copy(smem_o[0], o)
        lm.bar_arrive(o_done)
    with reader:
        lm.sync(o_done)
        lm.copy(y, smem_t[0])
        lm.copy(Y, y, coords=(0, 0))
)";

}  // namespace

// The simulator's rules on a corpus file for one binding.
std::set<std::string> simTextRules(const std::string& text, Vals vals) {
  return onSystem(text, vals, [](const System& sys) {
    ModelCheckResult r = explore(sys);
    EXPECT_NE(r.outcome, Outcome::Unknown) << r.detail;
    return cake::testing::ruleSet(r);
  });
}

std::set<std::string> simRules(const std::string& name, Vals vals) { return simTextRules(corpusFile(name), vals); }

// Small versions for the three engines: a tile stored once, read on every
// iteration after a per-iteration lm.sync; and a per-iteration 2-slot ring
// of ordinary stores read through one slot (bad) or its own (good).
const std::string kOnce = R"(@cake.schedule(target="sm_90a")
def once(lm, X: LM.gmem, K: LM.i32):
    pool   = lm.smem(8192)
    smem_b = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=1)
    b = lm.regs(shape=(64, 64), dtype=lm.bf16)
    y = lm.regs(shape=(64, 64), dtype=lm.f32)
    load    = lm.role(warps=[0])
    compute = lm.role(warps=[1])
    ready = lm.named_barrier(roles=[load, compute])
    tick  = lm.named_barrier(roles=[load, compute])
    with load:
        lm.copy(b, X, coords=(0, 0))
        lm.copy(smem_b[0], b)
        lm.bar_arrive(ready)
        for k in lm.range(0, K):
            lm.sync(tick)
    with compute:
        lm.sync(ready)
        for k in lm.range(0, K):
            lm.sync(tick)
            lm.copy(y, smem_b[0])
)";

const std::string kRingReadThroughSlot0 = R"(@cake.schedule(target="sm_90a")
def ring(lm, X: LM.gmem, K: LM.i32):
    pool   = lm.smem(16384)
    smem_b = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2)
    b = lm.regs(shape=(64, 64), dtype=lm.bf16)
    y = lm.regs(shape=(64, 64), dtype=lm.f32)
    load    = lm.role(warps=[0])
    compute = lm.role(warps=[1])
    full  = lm.barrier(count=2, prod=[load], cons=[compute], init_count=1)
    empty = lm.barrier(count=2, prod=[compute], cons=[load], init_count=1)
    with load:
        lm.fill(b, 0.0)
        for k in lm.range(0, K):
            lm.wait(empty, iter=k - 2)
            lm.copy(smem_b[k], b)
            lm.arrive(full, iter=k)
    with compute:
        for k in lm.range(0, K):
            lm.wait(full, iter=k)
            lm.copy(y, smem_b[0])
            lm.arrive(empty, iter=k)
)";

// Written once by one role, read on every iteration by another: lap 0 is
// the only lap written, so every read means it (it used to mean "lap 1" on
// the second iteration).
TEST(StaleRead, TileWrittenOnceIsReadOnEveryIteration) {
  EXPECT_EQ(agreedRules(kOnce, {{"K", 2}}), Rules{});
  EXPECT_EQ(simRules("sm90_bias_written_once_fixed.cake", {{"rows", 256}}), Rules{});
}

// The writers do write newer laps: reading one slot of a per-iteration
// ring every iteration still means the iteration's lap.
TEST(StaleRead, PerIterationRingReadThroughOneSlotIsStale) {
  // (Z3 BMC on this one: StaleRead.SlowCostlySystemsAgreeWithZ3Bmc)
  EXPECT_TRUE(agreedRules(kRingReadThroughSlot0, {{"K", 3}}, WithBmc::InTheLongFormOnly).count("data.stale-read"));
  std::string good = kRingReadThroughSlot0;
  good.replace(good.find("lm.copy(y, smem_b[0])"), 21, "lm.copy(y, smem_b[k])");
  EXPECT_EQ(agreedRules(good, {{"K", 3}}), Rules{});
  EXPECT_TRUE(simRules("sm90_bias_ring_read_one_slot.cake", {{"rows", 192}}).count("data.stale-read"));
  EXPECT_EQ(simRules("sm90_bias_ring_read_one_slot_fixed.cake", {{"rows", 192}}), Rules{});
}

// A second view over bytes nobody writes through it means the
// data of the view that wrote them, compared by laps.
TEST(StaleRead, SecondViewOfTheSameBytes) {
  EXPECT_EQ(agreedRules(corpusFile("sm90_second_view_halves_fixed.cake"), {}), Rules{});
  const std::string bad = corpusFile("sm90_second_view_halves_one_based.cake");
  onSystem(bad, {}, [&](const System& sys) {
    ModelCheckResult r = explore(sys);
    const Violation* v = cake::testing::find(r, "data.stale-read");
    EXPECT_NE(v, nullptr) << cake::testing::rules(r);
    if (!v) return false;
    EXPECT_EQ(cake::testing::primaryLine(sys, *v), cake::testing::lineOf(bad, "lm.copy(y, half_t[h])"));
    EXPECT_NE(v->message.find("meaning lap 1 of the slot (index 2), but it holds the data of lap 0 of the slot "
                              "(index 0), written through smem_t"),
              std::string::npos)
        << v->message;
    return true;
  });
  EXPECT_EQ(agreedRules(bad, {}), Rules{"data.stale-read"});
}

// A view that some instance writes means that view's data: bytes
// overwritten through another view are stale, even with the laps equal.
TEST(StaleRead, ViewWrittenByOthersMeansItsOwnData) {
  EXPECT_EQ(agreedRules(kClobber, {}), Rules{"data.stale-read"});
  std::string fixed = kClobber;
  fixed.replace(fixed.find("lm.copy(y, smem_t[0])"), 21, "lm.copy(y, smem_o[0])");
  EXPECT_EQ(agreedRules(fixed, {}), Rules{});
}

// Members of one union (pool.view(..., union=), docs/ir-extensions.md
// "Union members") hold the same data: the reader's smem_t, declared one
// union with the writer's smem_o, means the data written through smem_o
// (without union= it is stale: ViewWrittenByOthersMeansItsOwnData). A
// member of a chain (smem_z names smem_o) is in the same union; a view
// outside it (smem_x) or in another union over the same bytes (smem_y's)
// still overwrites the reader's data. A union orders nothing: without the
// barrier the read races with the write.
TEST(StaleRead, UnionMemberReadsTheOtherMembersData) {
  std::string decls = "    smem_o = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=1, union=smem_t)\n"
                      "    smem_z = pool.view(offset=0, shape=(64, 64), dtype=lm.f16, stages=1, union=smem_o)\n"
                      "    smem_x = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=1)\n"
                      "    smem_y = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=1, union=smem_x)\n";
  std::string unioned = kClobber;
  const std::string plain_o = "    smem_o = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=1)\n";
  unioned.replace(unioned.find(plain_o), plain_o.size(), decls);
  EXPECT_EQ(agreedRules(unioned, {}), Rules{});
  auto writtenThrough = [&](const std::string& slot) {
    std::string t = unioned;
    t.replace(t.find("lm.copy(smem_o[0], o)"), 21, "lm.copy(" + slot + ", o)");
    return t;
  };
  EXPECT_EQ(agreedRules(writtenThrough("smem_z[0]"), {}), Rules{});
  const std::string outside = writtenThrough("smem_x[0]");
  EXPECT_EQ(agreedRules(outside, {}), Rules{"data.stale-read"});
  onSystem(outside, {}, [&](const System& sys) {
    const Violation* v = cake::testing::find(explore(sys), "data.stale-read");
    EXPECT_NE(v, nullptr);
    if (v) EXPECT_NE(v->message.find("holds the data of smem_x (another view's data)"), std::string::npos) << v->message;
    return true;
  });
  EXPECT_EQ(agreedRules(writtenThrough("smem_y[0]"), {}), Rules{"data.stale-read"});
  std::string unordered = unioned;
  unordered.replace(unordered.find("        lm.sync(o_done)\n"), 24, "");
  EXPECT_TRUE(agreedRules(unordered, {}).count("sync.race"));
}

// CUB's BlockRadixRank with digit_counters and raking_grid as the two
// members of one union (corpus/reduction/sm80_cub_block_radix_rank_union_views.cake):
// the Upsweep reads counters stored through digit_counters as its raking
// row. It verifies; without union= it is the false data.stale-read of
// session 32; its twins stay reported.
TEST(StaleRead, CubRadixRankUnionOfCountersAndRakingGrid) {
  const std::string dir = std::string(CAKE_SOURCE_DIR) + "/corpus/";
  auto text = [&](const std::string& rel) {
    std::string err;
    auto file = ir::readSourceFile(dir + rel, err);
    EXPECT_TRUE(file) << err;
    return file ? std::string(file->text) : std::string();
  };
  const std::string fixed = text("reduction/sm80_cub_block_radix_rank_union_views.cake");
  EXPECT_EQ(simTextRules(fixed, {}), Rules{});
  std::string no_union = fixed;
  no_union.replace(no_union.find("stages=4, union=dc)"), 19, "stages=4)");  // the view, not the header comment
  EXPECT_EQ(simTextRules(no_union, {}), Rules{"data.stale-read"});
  EXPECT_EQ(simTextRules(text("bugs/data.stale-read/cub_radix_rank_union_ranks_after_exchange.cake"), {}),
            Rules{"data.stale-read"});
  EXPECT_TRUE(simTextRules(text("bugs/sync.race/cub_radix_rank_union_upsweep_no_sync.cake"), {}).count("sync.race"));
}

// A one-stage view used bare is its one slot, view[0] (IR.md): a Q tile
// refilled by TMA every tile (iter=t) and read bare after the tile's wait
// means the lap it waited for (a bare read used to be a whole-ring access
// pinned to lap 0: a false data.stale-read from tile 1 on). Reading
// q[t - 1] is still stale.
const std::string kBareQ = R"(@cake.schedule(target="sm_90a")
def bare_q(lm, Q: LM.tma2d, O: LM.gmem, tiles: LM.i32):
    pool   = lm.smem(8192)
    smem_q = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=1)
    r      = lm.regs(shape=(64, 64), dtype=lm.f32)
    load = lm.role(warps=[4])
    comp = lm.role(warps=[0, 1, 2, 3])
    q_full  = lm.barrier(count=1, prod=[load], cons=[comp], init_count=1)
    q_empty = lm.barrier(count=1, prod=[comp], cons=[load], init_count=1)
    with load:
        for t in lm.range(0, tiles):
            lm.wait(q_empty, iter=t - 1)
            smem_q.tma_load(Q, coords=(t * 64, 0), iter=t, barrier=q_full)
    with comp:
        for t in lm.range(0, tiles):
            lm.wait(q_full, iter=t)
            lm.copy(r, smem_q)
            lm.fence_proxy()
            lm.arrive(q_empty, iter=t)
            lm.copy(O, r, coords=(t * 64, 0))
)";

TEST(StaleRead, BareOneStageViewIsItsSlot) {
  EXPECT_EQ(agreedRules(kBareQ, {{"tiles", 2}}), Rules{});
  std::string previous = kBareQ;
  previous.replace(previous.find("lm.copy(r, smem_q)"), 18, "lm.copy(r, smem_q[t - 1])");
  EXPECT_TRUE(agreedRules(previous, {{"tiles", 2}}).count("data.stale-read"));
}

// Whether an op names stages or iterations is decided per operand view: an
// MMA that reads the one-slot Q tile by its stage (q[0], refilled every
// tile) and the KV ring by iterations (kv[it]) means the Q lap it waited
// for (the ring's iteration index used to make q[0] mean index 0,
// generation 1 on the second tile: a false data.stale-read). A Q read that
// names tile t - 1 (q[t - 1]) is stale on every tile.
const std::string kQAndRing = R"(@cake.schedule(target="sm_90a")
def q_and_ring(lm, Q: LM.tma2d, KV: LM.tma2d, O: LM.gmem, tiles: LM.i32):
    pool    = lm.smem(49152)
    smem_q  = pool.view(offset=0,     shape=(64, 64), dtype=lm.bf16, stages=1, swizzle="128B")
    smem_kv = pool.view(offset=16384, shape=(64, 64), dtype=lm.bf16, stages=2, swizzle="128B")
    acc     = lm.regs(shape=(64, 64), dtype=lm.f32)
    load = lm.role(warps=[4])
    comp = lm.role(warps=[0, 1, 2, 3])
    kv      = lm.pipeline(stages=2)
    full    = lm.barrier(prod=[load], cons=[comp], init_count=1, pipeline=kv)
    empty   = lm.barrier(prod=[comp], cons=[load], init_count=1, pipeline=kv)
    q_full  = lm.barrier(count=1, prod=[load], cons=[comp], init_count=1)
    q_empty = lm.barrier(count=1, prod=[comp], cons=[load], init_count=1)
    with load:
        for t in lm.range(0, tiles):
            lm.wait(q_empty, iter=t - 1)
            smem_q.tma_load(Q, coords=(t * 64, 0), iter=t, barrier=q_full)
            lm.wait(empty, iter=t - 2)
            smem_kv.tma_load(KV, coords=(t * 64, 0), iter=t, barrier=full)
    with comp:
        for t in lm.range(0, tiles):
            lm.wait(q_full, iter=t)
            lm.wait(full, iter=t)
            lm.mma(acc, smem_q[0], smem_kv[t], init=True)
            lm.mma_commit()
            lm.mma_wait(pending=0)
            lm.arrive(empty, iter=t)
            lm.arrive(q_empty, iter=t)
            lm.copy(O, acc, coords=(t * 64, 0))
)";

TEST(StaleRead, StagesOrIterationsPerOperandView) {
  // The KV index reaches `stages` on the third tile; the simulator only
  // (the Z3 engines take minutes on three tiles of two rings).
  EXPECT_EQ(simTextRules(kQAndRing, {{"tiles", 3}}), Rules{});
  std::string bare = kQAndRing;
  bare.replace(bare.find("smem_q[0], smem_kv[t]"), 9, "smem_q");
  EXPECT_EQ(simTextRules(bare, {{"tiles", 3}}), Rules{});
  std::string previous = kQAndRing;
  previous.replace(previous.find("smem_q[0], smem_kv[t]"), 9, "smem_q[t - 1]");
  EXPECT_TRUE(simTextRules(previous, {{"tiles", 3}}).count("data.stale-read"));
}

// A negative view index wraps to another slot and names an iteration (a
// lap), never a stage: reading the two-chunk resident tile as q[c - 1]
// multiplies chunk 1 where chunk 0 is meant and is stale, although no
// index of that operand reaches `stages` (corpus/mutants/knn/
// sm90_nn1_blocks/slot-minus-1-L48.cake).
const std::string kChunks = R"(@cake.schedule(target="sm_90a")
def chunks(lm, Q: LM.tma2d, O: LM.gmem):
    pool   = lm.smem(16384)
    smem_q = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2)
    r      = lm.regs(shape=(64, 64), dtype=lm.f32)
    load = lm.role(warps=[4])
    comp = lm.role(warps=[0, 1, 2, 3])
    q_full = lm.barrier(count=2, prod=[load], cons=[comp], init_count=1)
    with load:
        for c in lm.range(0, 2):
            smem_q.tma_load(Q, coords=(0, c * 64), stage=c, barrier=q_full)
    with comp:
        for c in lm.range(0, 2):
            lm.wait(q_full, stage=c)
        for c in lm.range(0, 2):
            lm.copy(r, smem_q[c])
            lm.copy(O, r, coords=(0, c * 64))
)";

TEST(StaleRead, NegativeViewIndexNamesAnIteration) {
  EXPECT_EQ(agreedRules(kChunks, {}), Rules{});
  std::string swapped = kChunks;
  swapped.replace(swapped.find("lm.copy(r, smem_q[c])"), 21, "lm.copy(r, smem_q[c - 1])");
  EXPECT_TRUE(agreedRules(swapped, {}).count("data.stale-read"));
}

// A shared-memory reduction whose result goes into the slot of a partial
// (docs/rules/data.stale-read.md): wave 0 writes band[0] twice (its
// partial, lap 0, then the reduced value, lap 1) and both waves read
// band[0] once after the second lm.sync. A stage-like read's lap is the
// least it means: wave 1's first read of the slot finds lap 1, written
// before the barrier it follows, which is what it waited for (it used to
// mean lap 0, counted from its returns to the slot: a false
// data.stale-read on a correct kernel, docs/known-limits.md). Without the
// second barrier the reduced value races with the read.
const std::string kReduceThenBroadcast = R"(@cake.schedule(target="sm_80")
def reduce_then_broadcast(lm, Out: LM.gmem):
    pool = lm.smem(8192)
    band = pool.view(offset=0, shape=(16, 64), dtype=lm.f32, stages=2)
    part = lm.regs(shape=(16, 64), dtype=lm.f32)
    waves = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[waves])
    with waves:
        w = lm.instance()
        lm.fill(part, 1.0)
        lm.copy(band[w], part)
        lm.sync(block)
        if w == 0:
            lm.fill(part, 2.0)
            lm.copy(band[0], part)
        lm.sync(block)
        lm.copy(part, band[0])
        lm.copy(Out, part, coords=(16 * w, 0))
)";

TEST(StaleRead, ReductionResultOverAPartialIsWhatTheReaderMeans) {
  EXPECT_EQ(agreedRules(kReduceThenBroadcast, {}), Rules{});
  // the result written after the read's barrier: a race, not a newer lap
  std::string unordered = kReduceThenBroadcast;
  const std::string second = "            lm.copy(band[0], part)\n        lm.sync(block)\n";
  unordered.replace(unordered.find(second), second.size(), "            lm.copy(band[0], part)\n");
  EXPECT_TRUE(agreedRules(unordered, {}).count("sync.race"));
  // an older lap is still stale (PerIterationRingReadThroughOneSlotIsStale):
  // the newer lap is accepted, not any lap
}

// The same reduction with the slots named by iteration (indices 2 and 3 of
// a 2-stage view reach `stages`, so every access names an iteration): wave
// 0 writes index 2 twice (its partial, then the result over it), wave 1
// reads index 2 once after the second barrier. The reader means generation
// 0 of index 2; the result is generation 1, another instance's newer data
// of the same index, ordered before the read: what it means (pytorch
// #177149's radixSelect counts, corpus/bugs/sync.race/
// pytorch_radix_select_find_pattern_overwrites_counts_iter_fixed.cake).
// Before, iteration-named reads had to match the generation exactly.
const std::string kReduceThenBroadcastByIteration =
    cake::test::replaceAll(cake::test::replaceAll(kReduceThenBroadcast, "band[w]", "band[2 + w]"), "band[0]", "band[2]");

// The reduction's read, wave 1 reading index 2 twice (two barriers apart),
// and wave 0's result write, which olderGenerationRead moves.
const std::string kReadTail = "        lm.copy(part, band[2])\n        lm.copy(Out, part, coords=(16 * w, 0))\n";
const std::string kReadTwice =
    "        if w == 1:\n"
    "            lm.copy(part, band[2])\n"
    "        lm.sync(block)\n"
    "        if w == 1:\n"
    "            lm.copy(part, band[2])\n"
    "        lm.copy(Out, part, coords=(16 * w, 0))\n";
const std::string kResultWrite = "        if w == 0:\n            lm.fill(part, 2.0)\n            lm.copy(band[2], part)\n";

// An older generation is still stale: wave 1 reads index 2 twice, after two
// barriers, while wave 0 writes it once more only after the reads
// (generation 1 meant, generation 0 found).
std::string olderGenerationRead() {
  std::string older = kReduceThenBroadcastByIteration;
  EXPECT_NE(older.find(kReadTail), std::string::npos);
  older.replace(older.find(kReadTail), kReadTail.size(),
                kReadTwice + "        lm.sync(block)\n        if w == 0:\n            lm.copy(band[2], part)\n");
  EXPECT_NE(older.find(kResultWrite), std::string::npos);
  older.replace(older.find(kResultWrite), kResultWrite.size(), "        if w == 0:\n            lm.fill(part, 2.0)\n");
  return older;
}

TEST(StaleRead, IterationNamedReductionResultIsANewerGeneration) {
  EXPECT_EQ(agreedRules(kReduceThenBroadcastByIteration, {}), Rules{});
  // the result written after the read's barrier: a race, not a newer generation
  std::string unordered = kReduceThenBroadcastByIteration;
  const std::string second = "            lm.copy(band[2], part)\n        lm.sync(block)\n";
  ASSERT_NE(unordered.find(second), std::string::npos);
  unordered.replace(unordered.find(second), second.size(), "            lm.copy(band[2], part)\n");
  EXPECT_TRUE(agreedRules(unordered, {}).count("sync.race"));
  // an older generation is still stale (Z3 BMC on this one:
  // StaleRead.SlowCostlySystemsAgreeWithZ3Bmc)
  EXPECT_TRUE(agreedRules(olderGenerationRead(), {}, WithBmc::InTheLongFormOnly).count("data.stale-read"));
  // without that later write nobody writes generation 1 of index 2: the
  // second read means at most the highest generation another instance
  // writes there (0, the partial, which nobody rewrote: not stale; before
  // session 23 an iteration-named read was not capped and this was a
  // data.stale-read, like the relay below)
  std::string reread = kReduceThenBroadcastByIteration;
  reread.replace(reread.find(kReadTail), kReadTail.size(), kReadTwice);
  reread.replace(reread.find(kResultWrite), kResultWrite.size(), "        if w == 0:\n            lm.fill(part, 2.0)\n");
  EXPECT_EQ(simTextRules(reread, {}), Rules{});
}

// A tree reduction that relays one slot through several writers, named by
// iteration (apex's cuWelfordMuSigma2 through ubuf, NVIDIA/apex PR #1184's
// fixed form, corpus/bugs/sync.race/apex_cu_apply_layer_norm_ubuf_next_row_no_barrier_fixed.cake):
// wave 2 writes index 2, wave 0 reads it, wave 1 writes it over, wave 0
// reads it again, each write the writer's first (generation 0) of the
// index. Wave 0's second read came back after synchronizing and counted as
// generation 1, which no instance writes: a false data.stale-read before
// session 23. An iteration-named read's generation is now capped, as a
// stage-like read's lap is, at the highest generation another instance
// writes of its index over its bytes (encoder/system.cpp resolveReads).
const std::string kRelayByIteration = R"(@cake.schedule(target="sm_80")
def relay_by_iteration(lm, Out: LM.gmem):
    pool = lm.smem(8192)
    band = pool.view(offset=0, shape=(16, 64), dtype=lm.f32, stages=2)
    part = lm.regs(shape=(16, 64), dtype=lm.f32)
    waves = lm.role(warps=[0, 1, 2], group=1)
    block = lm.named_barrier(roles=[waves])
    with waves:
        w = lm.instance()
        lm.fill(part, 1.0)
        if w == 2:
            lm.copy(band[2], part)
        lm.sync(block)
        if w == 0:
            lm.copy(part, band[2])
        lm.sync(block)
        if w == 1:
            lm.copy(band[2], part)
        lm.sync(block)
        if w == 0:
            lm.copy(part, band[2])
        lm.copy(Out, part, coords=(16 * w, 0))
)";

TEST(StaleRead, RelayedSlotNamedByIterationIsNotStale) {
  // the simulator (the generations are the system's, which every engine
  // reads; the three engines agree on it: 117 s at load 23, too slow here)
  EXPECT_EQ(simTextRules(kRelayByIteration, {}), Rules{});
  const auto gens = onSystem(kRelayByIteration, {}, [](const System& sys) {
    std::vector<int64_t> out;  // wave 0's read generations of band[2]
    for (const Process& p : sys.procs)
      for (const Instr& in : p.program)
        for (const Access& a : in.accesses)
          if (p.name == "waves[0]" && a.view >= 0 && !a.write && a.index == 2) out.push_back(a.gen);
    return out;
  });
  EXPECT_EQ(gens, (std::vector<int64_t>{0, 0}));
  // wave 1's write after the read's barrier instead of before it: a race
  std::string unordered = kRelayByIteration;
  const std::string relay = "        if w == 1:\n            lm.copy(band[2], part)\n        lm.sync(block)\n";
  ASSERT_NE(unordered.find(relay), std::string::npos);
  unordered.replace(unordered.find(relay), relay.size(), "        lm.sync(block)\n        if w == 1:\n            lm.copy(band[2], part)\n");
  EXPECT_TRUE(simTextRules(unordered, {}).count("sync.race"));
  // another index of the same bytes is still stale: wave 0's second read
  // means index 4 (the slot's next lap), which nobody writes: it finds
  // wave 1's index 2
  std::string wrong = kRelayByIteration;
  const std::string second = "        if w == 0:\n            lm.copy(part, band[2])\n        lm.copy(Out";
  ASSERT_NE(wrong.find(second), std::string::npos);
  wrong.replace(wrong.find(second), second.size(), "        if w == 0:\n            lm.copy(part, band[4])\n        lm.copy(Out");
  EXPECT_TRUE(simTextRules(wrong, {}).count("data.stale-read"));
}

// hipfire (warpfront/hipfire) #574/#575, qwen35_fa_prep: the sum of squares
// reduced through sdata, sdata[0] read by every wave, sdata reused by the
// RoPE stage. Fixed (a barrier before the reuse): no rule; broken: a race.
// The simulator only (four waves; the Z3 engines agree on the command
// line, `cake check --engine both`, docs/corpus.md).
TEST(StaleRead, HipfireReduceThenReuseSdata) {
  const std::string dir = "corpus/bugs/sync.race/";
  EXPECT_EQ(simTextRules(cake::testing::corpusText(dir + "hipfire_fa_prep_sdata_reuse_no_barrier_fixed.cake"), {}),
            Rules{});
  EXPECT_TRUE(simTextRules(cake::testing::corpusText(dir + "hipfire_fa_prep_sdata_reuse_no_barrier.cake"), {})
                  .count("sync.race"));
}

// Kokkos #5475 / #5540, cuda_inter_warp_reduction, with the slots named as
// the source names them (result[w], result[w - 4], result[0], result[i]):
// warp 4 reads result[0] (the join), writes it and reads it back (the final
// sum) once per call, while warp 0 rewrites it once per call. A read-back of
// an index the reader wrote since its last read means the lap of that write
// (encoder/system.cpp `tag`): warp 4's reads mean laps 0, 0, 1, 1, 2, 2 as
// its writes and warp 0's are laps 0, 1, 2. Counted as a return for the
// writers' next lap, the join of call 1 meant lap 2 and found lap 1 (a false
// data.stale-read, sessions 19-20); not counted at all (session 20's rb8a,
// reverted) a read-back kept its first generation while the writes' grew
// (TripProofGaps.ReadBackKeepsTheGenerationsInStep).
TEST(StaleRead, ReadBackOfItsOwnUpdateMeansItsWrite) {
  const std::string fixed = corpusFile("kokkos_inter_warp_reduction_stage_named_fixed.cake");
  // the generations, per process, of the accesses of result[0]
  const auto gens = onSystem(fixed, {{"n_calls", 3}}, [](const System& sys) {
    std::map<std::string, std::pair<std::vector<int64_t>, std::vector<int64_t>>> out;  // name -> (reads, writes)
    for (const Process& p : sys.procs)
      for (const Instr& in : p.program)
        for (const Access& a : in.accesses)
          if (a.view >= 0 && sys.schedule->views[a.view].name == "result" && a.index == 0)
            (a.write ? out[p.name].second : out[p.name].first).push_back(a.gen);
    return out;
  });
  using V = std::vector<int64_t>;
  ASSERT_TRUE(gens.count("team[4]") && gens.count("team[0]") && gens.count("team[1]"));
  EXPECT_EQ(gens.at("team[4]").first, (V{0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(gens.at("team[4]").second, (V{0, 1, 2}));
  EXPECT_EQ(gens.at("team[0]").first, (V{0, 1, 2}));  // its own write, then the sum: one read a call
  EXPECT_EQ(gens.at("team[0]").second, (V{0, 1, 2}));
  EXPECT_EQ(gens.at("team[1]").first, (V{0, 1, 2}));
  EXPECT_EQ(simTextRules(fixed, {{"n_calls", 3}}), Rules{});
  // the broken twin: no barrier between result[id] = value and the join,
  // so warp 4 reads result[0] before warp 0's write of the call is ordered
  // before it (nothing, or the previous call's sum)
  const Rules twin = simRules("kokkos_inter_warp_reduction_stage_named_join_before_sync.cake", {{"n_calls", 3}});
  EXPECT_TRUE(twin.count("data.stale-read"));
  EXPECT_TRUE(twin.count("sync.race"));
  // without the call's last barrier (the bug of #5475) it races
  const std::string last = "            lm.copy(Out, value, coords=(c, 32 * w))\n            lm.sync(bar)";
  std::string no_last = fixed;
  ASSERT_NE(no_last.find(last), std::string::npos);
  no_last.replace(no_last.find(last), last.size(), "            lm.copy(Out, value, coords=(c, 32 * w))\n");
  EXPECT_TRUE(simTextRules(no_last, {{"n_calls", 3}}).count("sync.race"));
  // only a read-back after its own write: with the join's write dropped,
  // warp 4 comes back to result[0] after a barrier that nobody rewrote it
  // before, and still means the writers' next lap (the lower bound of
  // docs/known-limits.md: reported)
  const std::string join = "                lm.copy(result[w - 4], joined)";
  std::string lost = fixed;
  ASSERT_NE(lost.find(join), std::string::npos);
  lost.replace(lost.find(join), join.size(), "                lm.copy(Out, joined, coords=(c, 0))");
  EXPECT_TRUE(simTextRules(lost, {{"n_calls", 3}}).count("data.stale-read"));
}

// A buffer read whole and rewritten in part (session 23, docs/rules/
// data.stale-read.md "A buffer read whole, rewritten in part"): llama.cpp's
// vector FlashAttention sets kqmax_shared[j][0..31] to -inf once (warp 0),
// then every KV tile each warp w rewrites entry w and every warp reads all
// 32 entries back (ggml-org/llama.cpp PR #13742's fixed form,
// corpus/bugs/sync.race/llamacpp_fattn_vec_masked_tile_skip_no_barrier_fixed.cake).
// Before, the read meant one lap for all its bytes: the entries nobody
// rewrites (lap 0 for good) were a false data.stale-read at the second tile,
// and warp 0's read-back (its own entry one write ahead: the -inf fill)
// made the other warps' entries one lap too old at the third. The
// simulator now finds none; dropping the barrier between the
// entry writes and the read-back is still sync.race.
// kqmax_shared of llama.cpp's vector FlashAttention: warp 0 fills the row
// once, every tile each warp writes its entry, a barrier, all read the row.
const std::string kKqmaxRow = R"(
@cake.schedule(target="sm_80")
def kqmax_row(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
    lm.assume(n >= 1)
    pool  = lm.smem(1024)
    kqmax = pool.view(offset=0, shape=(1, 32), dtype=lm.f16)
    mx    = lm.regs(shape=(1, 32), dtype=lm.f16)
    one   = lm.regs(shape=(1, 1), dtype=lm.f16)
    row   = lm.regs(shape=(1, 32), dtype=lm.f16)
    warps = lm.role(warps=[0, 1, 2, 3], group=1)
    block = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        if w == 0:
            lm.fill(mx, -65504.0)
            lm.copy(kqmax[0], mx)
        lm.sync(block)
        for k in lm.range(0, n):
            lm.copy(one, X, coords=(k, w))
            lm.copy(kqmax[0][:, w:w + 1], one)
            lm.sync(block)
            lm.copy(row, kqmax[0])
            lm.copy(Y, row, coords=(k, 32 * w))
            lm.sync(block)
)";

TEST(StaleRead, BufferReadWholeRewrittenInPart) {
  const std::string text = kKqmaxRow;
  // the simulator (Z3 BMC runs out of its resource limit on this one)
  auto rules = [](const std::string& t, int64_t n) {
    return onSystem(t, {{"n", n}}, [](const System& sys) {
      return cake::testing::ruleSet(cake::testing::exploreEveryRule(sys));
    });
  };
  for (const int64_t n : {1, 2, 3, 4}) EXPECT_EQ(rules(text, n), std::set<std::string>{}) << n;
  const std::string racy = cake::testing::replace(text, "            lm.copy(kqmax[0][:, w:w + 1], one)\n            lm.sync(block)\n",
                                                  "            lm.copy(kqmax[0][:, w:w + 1], one)\n");
  ASSERT_NE(racy, text);
  EXPECT_TRUE(rules(racy, 2).count("sync.race"));
}

// A row reset whole every round by warp 0, then rewritten entry by entry,
// and read back whole by every warp (corpus/reduction/
// sm80_row_reset_entries_read_whole.cake; docs/rules/data.stale-read.md "A
// read-back over entries others rewrite"). Warp 0 writes the row twice a
// round and each other entry once: its read-back means, over each entry,
// the lap of its own latest write *there*. Before: lap 2 over the others'
// entries at round 1 (the lap of its latest write over the whole row), a
// false data.stale-read at n = 3. Found by tests/encoder/trip_attacks_test.cpp's
// round of attacks.
TEST(StaleRead, RowResetEachRoundThenRewrittenInPart) {
  const std::string text = cake::testing::corpusText("corpus/reduction/sm80_row_reset_entries_read_whole.cake");
  auto rules = [](const std::string& t, int64_t n) {
    return onSystem(t, {{"n", n}}, [](const System& sys) {
      return cake::testing::ruleSet(cake::testing::exploreEveryRule(sys));
    });
  };
  for (const int64_t n : {1, 2, 3, 4, 5}) EXPECT_EQ(rules(text, n), std::set<std::string>{}) << n;
  // no barrier between the reset and the entries: the fill races them
  const std::string racy = cake::testing::replace(
      text, "            lm.sync(block)\n            lm.copy(one, X", "            lm.copy(one, X");
  EXPECT_TRUE(rules(racy, 2).count("sync.race"));
  // the entries read before they are written this round: a race too
  const std::string early = cake::testing::replace(
      text, "            lm.copy(row[0][:, w:w + 1], one)\n            lm.sync(block)\n",
      "            lm.copy(row[0][:, w:w + 1], one)\n");
  EXPECT_TRUE(rules(early, 2).count("sync.race"));
}

// A slot read twice per round across a barrier (docs/rules/data.stale-read.md
// "A slot read twice per round"): PyTorch's embedding_backward_feature_kernel
// (PR #187687) loads indices_batch once per batch and reads entry c before
// and after the __syncthreads() of chunk c. The second read is a re-read: it
// means the batch the first read means. It used to count as a new lap: a
// false data.stale-read on the fixed kernel ("meaning lap 1 ..., but it
// holds the data of lap 0").
namespace stale_read_twice_per_round {
const char* kPath = "corpus/bugs/sync.race/pytorch_embedding_bwd_feature_indices_batch_reload_fixed.cake";

// The first violation the simulator meets at n_batches = n ("" if none).
std::string firstRule(const std::string& text, int64_t n) {
  return onSystem(text, {{"n_batches", n}}, [](const System& sys) {
    ExploreOptions eo;
    eo.timeout_ms = cake::testing::kNoWallClockMs;
    eo.stop_at_first = true;
    const ModelCheckResult r = explore(sys, eo);
    EXPECT_NE(r.outcome, Outcome::Unknown) << r.detail;
    return r.violations.empty() ? std::string() : r.violations.front().rule;
  });
}
}  // namespace stale_read_twice_per_round

TEST(StaleRead, SlotReadTwicePerRoundAcrossABarrier) {
  using namespace stale_read_twice_per_round;
  const std::string fixed = cake::testing::corpusText(kPath);
  for (const int64_t n : {1, 2}) EXPECT_EQ(firstRule(fixed, n), "") << n;
  // the broken form (no barrier at the end of a batch): the next batch's
  // load races with a lagging warp's match test (and the match test reads
  // the older batch where the load has not run yet: data.stale-read)
  const std::string broken =
      cake::testing::replace(fixed, "            lm.sync(bar)                                 # the fix\n", "");
  const std::string first = firstRule(broken, 2);
  EXPECT_TRUE(first == "sync.race" || first == "data.stale-read") << first;
  // The batch's indices loaded once, before the loop; the two forms below
  // load the next batch's at different places.
  const std::string first_batch_only = cake::testing::replace(fixed,
                             "            lm.copy(idx, Indices, coords=(b, 32 * w))\n"
                             "            lm.copy(ibat[w], idx)",
                             "            if b == 0:\n"
                             "                lm.copy(idx, Indices, coords=(b, 32 * w))\n"
                             "                lm.copy(ibat[w], idx)");
  // The slot overwritten between the two reads of a round: the next batch's
  // indices loaded (barrier-ordered, no race) before the last chunk's match
  // test. The re-read does not hold there (a write of its bytes lies
  // between the two reads in barrier order): stale.
  const std::string early = cake::testing::replace(first_batch_only,
      "                lm.copy(peer, ibat[c])              # the match test\n",
      "                if c == 3:\n"
      "                    lm.copy(idx, Indices, coords=(b + 1, 32 * w))\n"
      "                    lm.copy(ibat[w], idx)\n"
      "                    lm.sync(bar)\n"
      "                lm.copy(peer, ibat[c])              # the match test\n");
  EXPECT_EQ(firstRule(early, 2), "data.stale-read");
  // The same load placed after the last chunk's match test (behind the
  // batch's barrier): a correct prefetch, not stale.
  const std::string late = cake::testing::replace(first_batch_only,
      "            lm.sync(bar)                                 # the fix\n",
      "            lm.sync(bar)                                 # the fix\n"
      "            lm.copy(idx, Indices, coords=(b + 1, 32 * w))\n"
      "            lm.copy(ibat[w], idx)\n");
  for (const int64_t n : {1, 2}) EXPECT_EQ(firstRule(late, n), "") << n;
}

// What a stage-like read means is counted per byte range, and a value the
// reader seeds and reads back first is no lap of the other writers
// (docs/rules/data.stale-read.md "Returns are counted per byte"; the
// reproducers of docs/known-limits.md "data.stale-read: a carried value
// read one round late, and a per-round table read many times", session 31).
namespace stale_read_per_byte {
// The simulator's rules, every rule (no first-violation stop).
std::set<std::string> perByteRules(const std::string& text, Vals vals) {
  return onSystem(text, vals, [](const System& sys) {
    const ModelCheckResult r = cake::testing::exploreEveryRule(sys);
    EXPECT_NE(r.outcome, Outcome::Unknown) << r.detail;
    return cake::testing::ruleSet(r);
  });
}

// A per-tile table written whole by warp 0 and read one entry per step,
// a barrier after each step (DeepGEMM's smem_sfb[0], FlashInfer
// merge-states' s_smem[e // 8]).
const std::string kTable = R"(@cake.schedule(target="sm_80")
def table(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
    lm.assume(n >= 1)
    pool  = lm.smem(1024)
    tab   = pool.view(offset=0, shape=(1, 4), dtype=lm.f32, stages=1)
    v     = lm.regs(shape=(1, 4), dtype=lm.f32)
    e     = lm.regs(shape=(1, 1), dtype=lm.f32)
    warps = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        for t in lm.range(0, n):
            if w == 0:
                lm.copy(v, X, coords=(t, 0))
                lm.copy(tab[0], v)
            lm.sync(block)
            for k in lm.range(0, 4):
                lm.copy(e, tab[0][:, k:k + 1])
                lm.copy(Y, e, coords=(t, 4 * w + k))
                lm.sync(block)
)";

// A value carried to the next round through a slot named by stage, seeded
// by its reader (causal-conv1d's smem_exchange[127]): warp 1 writes it after
// the round's reads, warp 0 reads it in the next round.
const std::string kCarried = R"(@cake.schedule(target="sm_80")
def carried(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
    lm.assume(n >= 1)
    pool  = lm.smem(1024)
    ex    = pool.view(offset=0, shape=(1, 4), dtype=lm.f32, stages=2)
    x     = lm.regs(shape=(1, 4), dtype=lm.f32)
    warps = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        if w == 0:
            lm.fill(x, 0.0)
            lm.copy(ex[1], x)
        for c in lm.range(0, n):
            lm.sync(block)
            if w == 0:
                lm.copy(x, ex[1])
                lm.copy(Y, x, coords=(c, 0))
            lm.sync(block)
            if w == 1:
                lm.copy(x, X, coords=(c, 0))
                lm.copy(ex[1], x)
)";

// A two-warp in-place stencil: warp w fills rows 2w, 2w+1 of a 4-row
// buffer; each round both warps read all four rows, a barrier, warp w
// rewrites row 2 - w (the row the other warp seeded) from its read, a
// barrier (arrayfire's flood_fill.cl in small). Shared by the seed tests
// below (StencilRowSeededByItsReaderUpdatedByAnother,
// AnUpdateBeforeTheFirstReadOverTheReadersSeedIsNoSeed).
const std::string kTwoWarpStencil = R"(@cake.schedule(target="sm_80")
def stencil(lm, X: LM.gmem, Y: LM.gmem, n: LM.i32):
    pool = lm.smem(1024)
    buf  = pool.view(offset=0, shape=(4, 8), dtype=lm.f32)
    two  = lm.regs(shape=(2, 8), dtype=lm.f32)
    all4 = lm.regs(shape=(4, 8), dtype=lm.f32)
    one  = lm.regs(shape=(1, 8), dtype=lm.f32)
    ws = lm.role(warps=[0, 1], group=1)
    bar = lm.named_barrier(roles=[ws])
    with ws:
        w = lm.instance()
        lm.copy(two, X, coords=(2 * w, 0))
        lm.copy(buf[0][2 * w:2 * w + 2, :], two)
        lm.sync(bar)
        for it in lm.range(0, n):
            lm.copy(all4, buf[0])
            lm.sync(bar)
            lm.copy(one, all4[1:2, :])
            lm.copy(buf[0][2 - w:3 - w, :], one)
            lm.sync(bar)
        lm.copy(Y, all4, coords=(4 * w, 0))
)";
}  // namespace stale_read_per_byte

TEST(StaleRead, PerRoundTableReadOneEntryPerStep) {
  using namespace stale_read_per_byte;
  // before: data.stale-read at n = 2 (each step's barrier counted as a return)
  for (const int64_t n : {1, 2, 3}) EXPECT_EQ(perByteRules(kTable, {{"n", n}}), Rules{}) << n;
  // the table refilled every other tile only: tile 1 reads tile 0's table
  const std::string skipped = cake::testing::replace(kTable, "            if w == 0:\n                lm.copy(v, X",
                                                     "            if w + t % 2 == 0:\n                lm.copy(v, X");
  ASSERT_NE(skipped, kTable);
  EXPECT_TRUE(perByteRules(skipped, {{"n", 3}}).count("data.stale-read"));
}

TEST(StaleRead, ValueSeededByItsReaderCarriedToTheNextRound) {
  using namespace stale_read_per_byte;
  // before: data.stale-read at n = 2 (the seed counted as the writer's lap 0)
  for (const int64_t n : {1, 2, 3}) EXPECT_EQ(perByteRules(kCarried, {{"n", n}}), Rules{}) << n;
  // and z3-po (Z3 BMC on this one: StaleRead.SlowCostlySystemsAgreeWithZ3Bmc)
  EXPECT_EQ(agreedRules(kCarried, {{"n", 2}}, WithBmc::InTheLongFormOnly), Rules{});
  // the writer skips round 0: round 2 means its lap 1 and finds lap 0
  const std::string first_skipped = cake::testing::replace(kCarried, "            if w == 1:\n                lm.copy(x, X",
                                                           "            if w * c >= 1:\n                lm.copy(x, X");
  ASSERT_NE(first_skipped, kCarried);
  EXPECT_TRUE(perByteRules(first_skipped, {{"n", 3}}).count("data.stale-read"));
  // the corpus pair: Mamba's causal-conv1d, the halo named by stage
  const std::string conv =
      cake::testing::corpusText("corpus/conv/sm80_causal_conv1d_fwd_halo_exchange_stage_indexed.cake");
  for (const int64_t s : {1, 1025, 2049, 3073}) EXPECT_EQ(perByteRules(conv, {{"seqlen", s}}), Rules{}) << s;
  EXPECT_TRUE(perByteRules(corpusFile("sm80_causal_conv1d_halo_stage_indexed_first_write_skipped.cake"), {{"seqlen", 2049}})
                  .count("data.stale-read"));
}

// kKqmaxRow with each warp's entry written after the tile's reads instead
// of before them (a writer one barrier late).
static std::string kqmaxEntryWrittenAfterTheReads() {
  return cake::testing::replace(kKqmaxRow,
                                "            lm.copy(kqmax[0][:, w:w + 1], one)\n"
                                "            lm.sync(block)\n"
                                "            lm.copy(row, kqmax[0])\n"
                                "            lm.copy(Y, row, coords=(k, 32 * w))\n"
                                "            lm.sync(block)\n",
                                "            lm.sync(block)\n"
                                "            lm.copy(row, kqmax[0])\n"
                                "            lm.copy(Y, row, coords=(k, 32 * w))\n"
                                "            lm.sync(block)\n"
                                "            lm.copy(kqmax[0][:, w:w + 1], one)\n");
}

// The seed rule does not hide a writer one barrier late where a reader
// other than the seeder reads (llama.cpp's kqmax_shared with each warp's
// entry written after the tile's reads instead of before them).
TEST(StaleRead, EntryWrittenOneBarrierLateIsStillStale) {
  using namespace stale_read_per_byte;
  const std::string text = kqmaxEntryWrittenAfterTheReads();
  ASSERT_NE(text, kKqmaxRow);
  EXPECT_EQ(perByteRules(text, {{"n", 1}}), Rules{});
  EXPECT_EQ(perByteRules(text, {{"n", 2}}), Rules{"data.stale-read"});
}

// A stencil whose first lap another instance wrote (arrayfire's
// flood_fill.cl, PR #3535's fixed form: sub-group w fills lmem rows 2w,
// 2w+1 and updates rows 2w+1, 2w+2, every round after a barrier): the
// reader's first read covers a row it filled itself and rows others
// filled; over the row it seeded that read is no lap of the row's updater,
// so its next return means the updater's lap 0. Before: "ws[0] reads
// buf[0] bytes [32, 64) meaning lap 1 of the slot (index 0), but it holds
// the data of lap 0" at n = 2 (the seed rule asked the whole first read to
// be the reader's own).
TEST(StaleRead, StencilRowSeededByItsReaderUpdatedByAnother) {
  using namespace stale_read_per_byte;
  const std::string text = kTwoWarpStencil;
  for (const int64_t n : {1, 2, 3}) EXPECT_EQ(perByteRules(text, {{"n", n}}), Rules{}) << n;
  // warp 1 updates its row in round 0 only: round 2 finds round 0's row
  const std::string skipped = cake::testing::replace(text, "            lm.copy(buf[0][2 - w:3 - w, :], one)\n",
                                                     "            if w == 0 or it == 0:\n"
                                                     "                lm.copy(buf[0][2 - w:3 - w, :], one)\n");
  ASSERT_NE(skipped, text);
  EXPECT_TRUE(perByteRules(skipped, {{"n", 3}}).count("data.stale-read"));
  // no barrier between a round's reads and its updates
  const std::string racy = cake::testing::replace(text, "            lm.copy(all4, buf[0])\n            lm.sync(bar)\n",
                                                  "            lm.copy(all4, buf[0])\n");
  ASSERT_NE(racy, text);
  EXPECT_TRUE(perByteRules(racy, {{"n", 2}}).count("sync.race"));
  // the corpus pair
  const std::string fixed = cake::testing::corpusText(
      "corpus/bugs/sync.race/arrayfire_flood_fill_barrier_or_no_trailing_barrier_fixed.cake");
  for (const int64_t n : {1, 2}) EXPECT_EQ(perByteRules(fixed, {{"iters", n}}), Rules{}) << n;
}

// A stencil whose last round skips its update (helper attack52's false
// alarm, session 52, docs/limits/stencil_last_round_update_skipped.cake):
// nothing reads the last round's update, so leaving it out changes no read.
// The skip rule took the last round's read for one that meant a write of
// its own round; here the loop writes after its reads, and a round's read
// means the previous round's update, which it finds (session 53, helper
// stale53). Before: "ws[0] reads buf[0] bytes [0, 128) meaning lap 1 ...,
// but it holds the data of lap 0" at n = 3. A round skipped before a read
// that follows it stays stale, as does a table the loop writes *before*
// its reads that its last round skips.
TEST(StaleRead, AStencilsLastRoundUpdateSkippedWhereNoReadFollows) {
  using namespace stale_read_per_byte;
  const std::string update = "            lm.copy(buf[0][2 - w:3 - w, :], one)\n";
  auto guarded = [&](const std::string& cond) {
    const std::string text = cake::testing::replace(kTwoWarpStencil, update, "            if " + cond + ":\n    " + update);
    EXPECT_NE(text, kTwoWarpStencil) << cond;
    return text;
  };
  for (const int64_t n : {1, 2, 3, 4}) EXPECT_EQ(perByteRules(guarded("it + 1 < n"), {{"n", n}}), Rules{}) << n;
  EXPECT_EQ(agreedRules(guarded("it + 1 < n"), {{"n", 3}}, WithBmc::InTheLongFormOnly), Rules{});
  EXPECT_EQ(perByteRules(guarded("w == 0 or it + 1 < n"), {{"n", 3}}), Rules{});
  // a skipped update that a later round reads
  for (const std::string cond : {"it + 2 < n", "it != 1", "w == 1 or it + 2 < n"})
    EXPECT_EQ(perByteRules(guarded(cond), {{"n", 3}}), Rules{"data.stale-read"}) << cond;
  // a table written before the round's reads, skipped in the last round
  const std::string table = cake::testing::replace(kTable, "            if w == 0:\n",
                                                   "            if w == 0 and (t == 0 or t + 1 < n):\n");
  ASSERT_NE(table, kTable);
  EXPECT_EQ(perByteRules(table, {{"n", 1}}), Rules{});
  EXPECT_EQ(perByteRules(table, {{"n", 2}}), Rules{"data.stale-read"});
}

// A column slice read over rows that other warps update every round and
// rows written once (helper hunt51's reproducer, session 51: arrayfire's
// flood-fill neighbourhood read as column slices). The strided read's
// runs mean different laps (row 3 holds its fill, lap 0, for good; row 1
// the other warp's latest update) though no write cuts any run. Before
// (session 52): "ws[0] reads buf[0][:, 1:9] bytes [124, 156) (run 4 of 4)
// meaning lap 1 ..., but it holds the data of lap 0" at n = 3 - the whole
// strided read was given the highest lap.
TEST(StaleRead, ColumnSliceOverRowsWrittenDifferentNumbersOfTimes) {
  using namespace stale_read_per_byte;
  const std::string text = cake::testing::corpusText(
      "corpus/bugs/data.stale-read/stencil_column_slice_row_updated_first_round_only_fixed.cake");
  for (const int64_t n : {1, 2, 3, 4}) EXPECT_EQ(perByteRules(text, {{"n", n}}), Rules{}) << n;
  // the engines agree (z3-po decides every rule here)
  EXPECT_EQ(agreedRules(text, {{"n", 3}}, WithBmc::InTheLongFormOnly), Rules{});
  // warp 1 updates its row in round 0 only: one run (row 1) is stale from round 2
  const std::string skipped = cake::testing::replace(text, "            lm.copy(buf[0][2 - w:3 - w, 1:9], one)",
                                                     "            if w == 0 or it == 0:\n"
                                                     "                lm.copy(buf[0][2 - w:3 - w, 1:9], one)");
  ASSERT_NE(skipped, text);
  EXPECT_EQ(perByteRules(skipped, {{"n", 3}}), Rules{"data.stale-read"});
  // warp 0 updates row 2 in round 0 only: stale to warp 1, which seeded it
  const std::string skipped0 = cake::testing::replace(text, "            lm.copy(buf[0][2 - w:3 - w, 1:9], one)",
                                                      "            if w == 1 or it == 0:\n"
                                                      "                lm.copy(buf[0][2 - w:3 - w, 1:9], one)");
  ASSERT_NE(skipped0, text);
  EXPECT_EQ(perByteRules(skipped0, {{"n", 3}}), Rules{"data.stale-read"});
  // no barrier between a round's reads and its updates
  const std::string racy =
      cake::testing::replace(text, "            lm.copy(sub, buf[0][:, 1:9])\n            lm.sync(bar)\n",
                             "            lm.copy(sub, buf[0][:, 1:9])\n");
  ASSERT_NE(racy, text);
  EXPECT_TRUE(perByteRules(racy, {{"n", 2}}).count("sync.race"));
  // the broken corpus twin
  EXPECT_TRUE(perByteRules(corpusFile("stencil_column_slice_row_updated_first_round_only.cake"), {{"n", 3}})
                  .count("data.stale-read"));
}

// A row seeded by one warp, updated by a second from the slot as the round
// read it, and read by a third (helper review51's reproducer, session 51).
// The third warp's first read finds the seed; the update that answers a
// round's reads is computed from them, so no order of the same computations
// puts it before them: that first read is no lap of the updater, and the
// next one means its lap 0. Before (session 52): "ws[1] reads buf[0]
// bytes [0, 32) meaning lap 1 ..., but it holds the data of lap 0" at
// n = 2. The same synchronization with the row loaded from the input
// before the reads and written after them (the late writer of
// EntryWrittenOneBarrierLateIsStillStale) stays stale.
TEST(StaleRead, RowSeededByOneWarpUpdatedFromTheSlotByAnother) {
  using namespace stale_read_per_byte;
  const std::string text =
      cake::testing::corpusText("corpus/bugs/data.stale-read/stencil_three_warps_row_update_skipped_once_fixed.cake");
  for (const int64_t n : {1, 2, 3}) EXPECT_EQ(perByteRules(text, {{"n", n}}), Rules{}) << n;
  EXPECT_EQ(agreedRules(text, {{"n", 2}}, WithBmc::InTheLongFormOnly), Rules{});
  const std::string update = "            lm.copy(buf[0][2 - w:3 - w, :], one)";
  // warp 2 skips round 1: round 2 reads round 0's row 0
  const std::string skipped = cake::testing::replace(text, update, "            if w != 2 or it != 1:\n    " + update);
  ASSERT_NE(skipped, text);
  EXPECT_EQ(perByteRules(skipped, {{"n", 3}}), Rules{"data.stale-read"});
  // warp 2 updates row 0 in round 0 only
  const std::string once = cake::testing::replace(text, update, "            if w != 2 or it == 0:\n    " + update);
  ASSERT_NE(once, text);
  EXPECT_EQ(perByteRules(once, {{"n", 3}}), Rules{"data.stale-read"});
  // warp 2 writes an input row loaded before the reads, after them: the
  // third warp reads before that write is ordered
  const std::string loaded = cake::testing::replace(
      text, "            lm.reduce(one, all6, op=\"max\", axis=0)          # column max of the six rows\n",
      "            lm.copy(one, X, coords=(8 + it, 0))\n");
  ASSERT_NE(loaded, text);
  EXPECT_EQ(perByteRules(loaded, {{"n", 1}}), Rules{});
  EXPECT_EQ(perByteRules(loaded, {{"n", 2}}), Rules{"data.stale-read"});
  // no barrier between a round's reads and its updates
  const std::string racy = cake::testing::replace(text, "            lm.copy(all6, buf[0])\n            lm.sync(bar)\n",
                                                  "            lm.copy(all6, buf[0])\n");
  ASSERT_NE(racy, text);
  EXPECT_TRUE(perByteRules(racy, {{"n", 2}}).count("sync.race"));
  // the broken corpus twins
  EXPECT_TRUE(perByteRules(corpusFile("stencil_three_warps_row_update_skipped_once.cake"), {{"n", 3}})
                  .count("data.stale-read"));
  EXPECT_TRUE(perByteRules(corpusFile("stencil_three_warps_loaded_row_written_after_the_reads.cake"), {{"n", 2}})
                  .count("data.stale-read"));
}

// llama.cpp's kqmax_shared with each warp's entry written after the tile's
// reads is stale (EntryWrittenOneBarrierLateIsStillStale: the entry is the
// tile's score, loaded before the reads). With the entry computed from the
// row the warp just read (a recurrence over the row: each tile's entries
// answer that tile's reads), the same synchronization is correct: no
// order of the same computations puts a tile's entry before its reads.
TEST(StaleRead, EntryComputedFromTheRowAfterItsReadsIsNoLateWrite) {
  using namespace stale_read_per_byte;
  const std::string late = kqmaxEntryWrittenAfterTheReads();
  ASSERT_NE(late, kKqmaxRow);
  const std::string recurrence =
      cake::testing::replace(late, "            lm.sync(block)\n            lm.copy(kqmax[0][:, w:w + 1], one)\n",
                             "            lm.sync(block)\n"
                             "            lm.copy(one, row[:, (w + 1) % 4:(w + 1) % 4 + 1])\n"
                             "            lm.copy(kqmax[0][:, w:w + 1], one)\n");
  ASSERT_NE(recurrence, late);
  EXPECT_EQ(perByteRules(late, {{"n", 2}}), Rules{"data.stale-read"});
  for (const int64_t n : {1, 2, 3}) EXPECT_EQ(perByteRules(recurrence, {{"n", n}}), Rules{}) << n;
}

// A writer one barrier late whose data is computed from the slot (helper
// stale53, session 53; session 52's documented gap): warp 2 computes each
// round's row 0 a round ahead (from its read before the loop, then from the
// previous round's read) and writes it after the round's reads. The data
// was there before those reads, which meant it: the same late write as the
// loaded kqmax entry (EntryWrittenOneBarrierLateIsStillStale). Its data
// path reaches reads of the slot that the barriers do not order before the
// reader's *first* read, so session 52's rule took it for an in-place update
// and the form was clean (and proved); an update now answers a round's
// reads only where it is computed from the slot as read in that round.
// Before: Rules{} at n = 2 and 3 for the broken forms below.
TEST(StaleRead, AWriterOneBarrierLateComputedFromTheSlotIsStale) {
  using namespace stale_read_per_byte;
  const std::string late = corpusFile("stencil_three_warps_row_computed_a_round_ahead.cake");
  EXPECT_EQ(perByteRules(late, {{"n", 1}}), Rules{});
  for (const int64_t n : {2, 3}) EXPECT_EQ(perByteRules(late, {{"n", n}}), Rules{"data.stale-read"}) << n;
  EXPECT_EQ(agreedRules(late, {{"n", 2}}, WithBmc::InTheLongFormOnly), Rules{"data.stale-read"});
  // the fix: row 0 computed from the round's read, as the other rows
  const std::string fixed = corpusFile("stencil_three_warps_row_computed_a_round_ahead_fixed.cake");
  for (const int64_t n : {1, 2, 3}) EXPECT_EQ(perByteRules(fixed, {{"n", n}}), Rules{}) << n;
  // warp 2's row a round ahead folded (elementwise max) with `cur`, which
  // `fill` sets, at line `at`
  const std::string decl = "    one  = lm.regs(shape=(1, 8), dtype=lm.f32)\n";
  const std::string with_cur = cake::testing::replace(late, decl, decl + "    cur  = lm.regs(shape=(1, 8), dtype=lm.f32)\n");
  ASSERT_NE(with_cur, late);
  auto folded = [&](const std::string& at, const std::string& fill) {
    const std::string text = cake::testing::replace(
        with_cur, at, "            if w == 2:\n                " + fill + "\n                lm.binary(one, one, cur, op=\"max\")\n" + at);
    EXPECT_NE(text, with_cur) << fill;
    return text;
  };
  // in part from the slot: folded with an input row loaded in the round
  // (all of it there before the round's reads)
  const std::string with_input = folded("            lm.copy(all6, buf[0])  # expect-error: data.stale-read\n",
                                        "lm.copy(cur, X, coords=(8 + it, 0))");
  EXPECT_EQ(perByteRules(with_input, {{"n", 2}}), Rules{"data.stale-read"});
  // in part from the round's read: folded with the round's column max
  // before the write, which then answers the round's reads
  const std::string with_round =
      folded("            lm.copy(buf[0][2 - w:3 - w, :], one)", "lm.reduce(cur, all6, op=\"max\", axis=0)");
  for (const int64_t n : {1, 2, 3}) EXPECT_EQ(perByteRules(with_round, {{"n", n}}), Rules{}) << n;
}

// The stencil above with each warp's row rewritten by its updater before
// the loop (a pre-update: warp 0 writes row 2, which warp 1 seeded; warp 1
// row 1, warp 0's seed). Each first read then finds the updater's lap 0,
// not the reader's seed, and counting it as the seed lowered every later
// read's meaning by one: a round-0 update skipped (round 1 finds the
// pre-update again, while the updater writes in the rounds after) was
// *proved* (helper attack52, session 52; the seed rule now holds only where
// no other write of the bytes lies between the seed and the first read in
// barrier order, Builder::checkSeeds).
TEST(StaleRead, AnUpdateBeforeTheFirstReadOverTheReadersSeedIsNoSeed) {
  using namespace stale_read_per_byte;
  const std::string pre = cake::testing::replace(kTwoWarpStencil, "        lm.sync(bar)\n        for it",
                                                 "        lm.sync(bar)\n"
                                                 "        lm.copy(buf[0][2 - w:3 - w, :], two[0:1, :])\n"
                                                 "        lm.sync(bar)\n"
                                                 "        for it");
  ASSERT_NE(pre, kTwoWarpStencil);
  for (const int64_t n : {1, 2, 3}) EXPECT_EQ(perByteRules(pre, {{"n", n}}), Rules{}) << n;
  const std::string update = "            lm.copy(buf[0][2 - w:3 - w, :], one)\n";
  for (const std::string cond : {"w == 1 or it != 0", "w == 0 or it != 0", "it != 0"}) {
    const std::string skipped =
        cake::testing::replace(pre, update, "            if " + cond + ":\n    " + update);
    ASSERT_NE(skipped, pre);
    EXPECT_EQ(perByteRules(skipped, {{"n", 1}}), Rules{}) << cond;
    EXPECT_TRUE(perByteRules(skipped, {{"n", 2}}).count("data.stale-read")) << cond;
  }
}

// A whole buffer rewritten and read back by one warp while the others
// clear their parts once a round (FlashInfer FilteredTopK's histogram,
// docs/known-limits.md "data.stale-read: what a stage-like read means is
// inferred"): the read-back finds warp 0's own data and is no lap of the
// others'. Before: "meaning lap 2 ..., but it holds the data of lap 1" at n = 3.
TEST(StaleRead, ReadBackOfAWholeRewriteIsNoLapOfTheOthers) {
  using namespace stale_read_per_byte;
  const std::string text = R"(@cake.schedule(target="sm_90a")
def rmw_whole_reads_quarters(lm, Counts: LM.gmem, Out: LM.gmem, n: LM.i32):
    lm.assume(n > 0)
    pool = lm.smem(1024)
    hist = pool.view(offset=0, shape=(1, 256), dtype=lm.i32, stages=1)
    zero = lm.regs(shape=(1, 128), dtype=lm.i32)
    h    = lm.regs(shape=(1, 256), dtype=lm.i32)
    warps = lm.role(warps=[0, 1], group=1)
    cta   = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        lm.fill(zero, 0)
        for r in lm.range(0, n):
            lm.copy(hist[0][:, 128 * w:128 * w + 128], zero)
            lm.sync(cta)
            if w == 0:
                lm.copy(h, hist[0])
                lm.copy(hist[0], h)
            lm.sync(cta)
            lm.copy(h, hist[0])
            lm.sync(cta)
        lm.copy(Out, h, coords=(lm.block_idx(0), 256 * w))
)";
  for (const int64_t n : {1, 2, 3, 4}) EXPECT_EQ(perByteRules(text, {{"n", n}}), Rules{}) << n;
  // warp 1 clears its half every other round and warp 0 only reads: round 1
  // means warp 1's lap 1 and finds lap 0
  std::string skipped = cake::testing::replace(text, "                lm.copy(hist[0], h)\n", "");
  skipped = cake::testing::replace(skipped, "            lm.copy(hist[0][:, 128 * w:128 * w + 128], zero)\n",
                                   "            if w * (r % 2) == 0:\n"
                                   "                lm.copy(hist[0][:, 128 * w:128 * w + 128], zero)\n");
  EXPECT_TRUE(perByteRules(skipped, {{"n", 3}}).count("data.stale-read"));
  // the last barrier of a round left out: the next clear races the reads
  const std::string racy = cake::testing::replace(text, "            lm.sync(cta)\n        lm.copy(Out", "        lm.copy(Out");
  ASSERT_NE(racy, text);
  EXPECT_TRUE(perByteRules(racy, {{"n", 2}}).count("sync.race"));
  // the kernel's stage-indexed form: warp 0 also reads the histogram again
  // at the end of the round, a re-read of its read-back (before:
  // data.stale-read at n_rounds = 3)
  const std::string topk =
      cake::testing::corpusText("corpus/bugs/sync.race/flashinfer_filtered_topk_histogram_stage_indexed_fixed.cake");
  for (const int64_t n : {1, 2, 3}) EXPECT_EQ(perByteRules(topk, {{"n_rounds", n}}), Rules{}) << n;
}

// Rows of a slot rewritten by every wave after one wave wrote it whole, the
// slot read back whole (docs/rules/data.stale-read.md "Rows rewritten by
// every wave, read whole", session 50; rocSOLVER's potf2_simple scales
// column k row-slice by row-slice, then reads it whole). Each wave writes the
// slot a different number of times, so no one lap counts for all its bytes:
// each range means what the barriers hand it.
namespace stale_read_rows_rewritten {

// waves[1] writes s[1] whole, waves[0] writes it whole, then every round
// each wave rescales its two rows and waves[1] reads the whole slot back
// (before: meaning lap 1, the data of lap 0, already at R = 1)
const std::string kRounds = R"(@cake.schedule(target="sm_80")
def rows_rounds(lm, A: LM.gmem, L: LM.gmem, R: LM.i32):
    pool = lm.smem(512)
    s    = pool.view(offset=0, shape=(6, 1), dtype=lm.f32, stages=2)
    c    = lm.regs(shape=(6, 1), dtype=lm.f32)
    h    = lm.regs(shape=(2, 1), dtype=lm.f32)
    waves = lm.role(warps=[0, 1, 2], group=1)
    block = lm.named_barrier(roles=[waves])
    with waves:
        w = lm.instance()
        if w == 1:
            lm.copy(c, A, coords=(0, 0))
            lm.copy(s[1], c)
        lm.sync(block)
        if w == 0:
            lm.copy(c, A, coords=(0, 0))
            lm.copy(s[1], c)
        lm.sync(block)
        for r in lm.range(0, R):
            lm.copy(h, s[1][2 * w:2 * w + 2, :])
            lm.copy(s[1][2 * w:2 * w + 2, :], h)
            lm.sync(block)
            if w == 1:
                lm.copy(c, s[1])
                lm.copy(L, c, coords=(0, r))
            lm.sync(block)
)";

// kRounds with each wave's rescale under `if cond:`.
std::string roundsRescaledIf(const std::string& cond) {
  return cake::testing::replace(kRounds,
                                "            lm.copy(h, s[1][2 * w:2 * w + 2, :])\n"
                                "            lm.copy(s[1][2 * w:2 * w + 2, :], h)\n",
                                "            if " + cond +
                                    ":\n"
                                    "                lm.copy(h, s[1][2 * w:2 * w + 2, :])\n"
                                    "                lm.copy(s[1][2 * w:2 * w + 2, :], h)\n");
}

}  // namespace stale_read_rows_rewritten

TEST(StaleRead, RowsRewrittenByEveryWaveReadWhole) {
  using stale_read_rows_rewritten::kRounds;
  for (const int64_t r : {1, 2, 3}) EXPECT_EQ(simTextRules(kRounds, {{"R", r}}), Rules{}) << r;
  // waves[2] rescales its rows in round 0 only: round 1 finds them a round old
  const std::string skipped = stale_read_rows_rewritten::roundsRescaledIf("w != 2 or r == 0");
  EXPECT_EQ(simTextRules(skipped, {{"R", 1}}), Rules{});
  EXPECT_TRUE(simTextRules(skipped, {{"R", 2}}).count("data.stale-read"));
  // no barrier between the rescale and the read: a race, not stale data
  const std::string racy = cake::testing::replace(kRounds, "            lm.sync(block)\n            if w == 1:\n                lm.copy(c, s[1])",
                                                  "            if w == 1:\n                lm.copy(c, s[1])");
  ASSERT_NE(racy, kRounds);
  EXPECT_TRUE(simTextRules(racy, {{"R", 1}}).count("sync.race"));
  // the corpus pair it came from (rocSOLVER PR #10909)
  EXPECT_EQ(simTextRules(cake::testing::corpusText(
                             "corpus/bugs/sync.race/rocsolver_potf2_simple_diag_read_vs_sqrt_store_fixed.cake"),
                         {}),
            Rules{});
  EXPECT_TRUE(simTextRules(cake::testing::corpusText(
                               "corpus/bugs/sync.race/rocsolver_potf2_simple_diag_read_vs_sqrt_store.cake"),
                           {})
                  .count("sync.race"));
}

// A wave that skips round 0's rescale only (`if w != s or r != 0:`; hunt50's
// open question, settled in session 51: docs/rules/data.stale-read.md "A
// wave that skips round 0"): no finding. Round 0's read of its rows is the
// first read of them and finds their newest write, the whole write before
// the loop that the barrier hands over; the synchronization is that of a
// kernel that peels round 0's rescale before the loop (the wave's own write
// there, correct). Skipping a later round is stale (another wave's rows).
TEST(StaleRead, AWaveThatSkipsRoundZerosRescaleReadsTheSeed) {
  const auto skipping = stale_read_rows_rewritten::roundsRescaledIf;
  for (const int wave : {0, 1, 2}) {
    const std::string w = std::to_string(wave);
    for (const int64_t r : {1, 2, 3})
      EXPECT_EQ(simTextRules(skipping("w != " + w + " or r != 0"), {{"R", r}}), Rules{}) << w << " R=" << r;
    // a later round skipped: stale, but for the reader's own rows (waves[1]'s:
    // its own data, never stale)
    EXPECT_EQ(simTextRules(skipping("w != " + w + " or r != 1"), {{"R", 2}}).count("data.stale-read") == 1, wave != 1)
        << w;
  }
  // round 0's rescale of waves[2] peeled before the loop: the same barriers
  const std::string peeled = cake::testing::replace(skipping("w != 2 or r != 0"), "        for r in lm.range(0, R):\n",
                                                    "        if w == 2:\n"
                                                    "            lm.copy(h, s[1][4:6, :])\n"
                                                    "            lm.copy(s[1][4:6, :], h)\n"
                                                    "        for r in lm.range(0, R):\n");
  for (const int64_t r : {1, 2, 3}) EXPECT_EQ(simTextRules(peeled, {{"R", r}}), Rules{}) << r;
}

// rocSOLVER's potf2_simple with column k re-read in every iteration of the
// rank-1 update's loop (`for j`), as the kernel reads A[i, kcol] per column
// it updates, no barrier between (docs/rules/data.stale-read.md "Rows
// rewritten by every wave, read whole", session 50). Each wave rescales its
// rows of column k at round k, and column k was written whole by the wave
// that updated it at round k - 1: at round k the reader's own rows were
// taken for a write the k loop skips (before: "waves[1] reads col[1] bytes
// [32, 64) meaning lap 1 ..., but it holds the data of lap 0", 4 x 4 and
// 8 x 8).
namespace stale_read_column_reread {

std::string columnReadPerUpdate(int n) {
  std::string text =
      cake::testing::corpusText("corpus/bugs/sync.race/rocsolver_potf2_simple_diag_read_vs_sqrt_store_fixed.cake");
  text = cake::testing::replace(text,
                                "            lm.copy(vi, col[k])                           # (3a) A22 -= vl21 vl21'\n"
                                "            for j in lm.range(k + 1 + w, 8, 4):\n",
                                "            for j in lm.range(k + 1 + w, 8, 4):\n"
                                "                lm.copy(vi, col[k])\n");
  if (n == 4) {
    text = cake::test::replaceAll(text, ", 8, 4)", ", 4, 4)");
    text = cake::test::replaceAll(text, "lm.range(0, 8)", "lm.range(0, 4)");
  }
  return text;
}
const std::string kRescale = "            lm.copy(v, col[k][2 * w:2 * w + 2, :])        # (2) vl21 = va21 / l11\n"
                             "            lm.binary(v, v, lkk, op=\"div\")\n"
                             "            lm.copy(col[k][2 * w:2 * w + 2, :], v)\n";

}  // namespace stale_read_column_reread

TEST(StaleRead, ColumnReReadInsideTheUpdateLoop) {
  using stale_read_column_reread::columnReadPerUpdate;
  using stale_read_column_reread::kRescale;
  for (const int n : {4, 8}) {
    const std::string text = columnReadPerUpdate(n);
    ASSERT_NE(text.find("                lm.copy(vi, col[k])\n"), std::string::npos);
    EXPECT_EQ(simTextRules(text, {}), Rules{}) << n;
    // a wave skips its rows of the column after round 0: the read finds them
    // as the previous round's update left them (the reader's own rows, wave
    // 1's, included)
    for (const int skipper : {0, 1, 2}) {
      const std::string skipped = cake::testing::replace(
          text, kRescale,
          "            if w != " + std::to_string(skipper) + " or k == 0:\n"
          "                lm.copy(v, col[k][2 * w:2 * w + 2, :])\n"
          "                lm.binary(v, v, lkk, op=\"div\")\n"
          "                lm.copy(col[k][2 * w:2 * w + 2, :], v)\n");
      ASSERT_NE(skipped, text);
      EXPECT_TRUE(simTextRules(skipped, {}).count("data.stale-read")) << n << " " << skipper;
    }
    // the column read before the round's last barrier: the rescale races it
    const std::string racy = cake::testing::replace(text, kRescale + "            lm.sync(block)\n", kRescale);
    ASSERT_NE(racy, text);
    EXPECT_TRUE(simTextRules(racy, {}).count("sync.race")) << n;
  }
}

// The long form of the three systems whose Z3 BMC cross-check the short
// forms leave out (PerIterationRingReadThroughOneSlotIsStale,
// IterationNamedReductionResultIsANewerGeneration,
// ValueSeededByItsReaderCarriedToTheNextRound): all three engines, the same
// rules (BMC 6.9, 12.9 and 4.5 CPU s at load 12, session 49).
TEST(StaleRead, SlowCostlySystemsAgreeWithZ3Bmc) {
  EXPECT_TRUE(agreedRules(kRingReadThroughSlot0, {{"K", 3}}).count("data.stale-read"));
  EXPECT_TRUE(agreedRules(olderGenerationRead(), {}).count("data.stale-read"));
  EXPECT_EQ(agreedRules(stale_read_per_byte::kCarried, {{"n", 2}}), Rules{});
}

// A stencil whose updates are left out of its last round: the body writes
// after it reads, so each round's read means the round before's update,
// and the last round's is read by no one. The loop-skip rule ("A write its
// loop skips") took the missing write at the read's own iteration for a
// skip and left the read uncapped: a false data.stale-read at n = 3
// (helper attack52's docs/limits/stencil_last_round_update_skipped.cake).
// Since helper attack53 (session 53) a write of the iteration before that
// lies between the read's instance there and the read covers its bytes.
// Left out of the last two rounds, the round before the last's update is
// missed by the last round's read: still stale.
TEST(StaleRead, AnUpdateTheLastRoundLeavesOutIsReadByNoOne) {
  using namespace stale_read_per_byte;
  const std::string dir = "corpus/bugs/data.stale-read/";
  const std::string fixed = cake::testing::corpusText(dir + "stencil_column_slice_update_skipped_in_last_two_rounds_fixed.cake");
  for (const int64_t n : {1, 2, 3, 4}) EXPECT_EQ(perByteRules(fixed, {{"n", n}}), Rules{}) << n;
  const std::string broken = cake::testing::corpusText(dir + "stencil_column_slice_update_skipped_in_last_two_rounds.cake");
  EXPECT_TRUE(perByteRules(broken, {{"n", 3}}).count("data.stale-read"));
  // the three-warp stencil (each row seeded by one warp, updated by another)
  const std::string three = cake::testing::corpusText(dir + "stencil_three_warps_row_update_skipped_once_fixed.cake");
  const std::string update = "            lm.copy(buf[0][2 - w:3 - w, :], one)";
  auto under = [&](const std::string& cond) {
    return cake::testing::replace(three, update, "            if " + cond + ":\n    " + update);
  };
  for (const std::string cond : {"it + 1 < n", "w != 2 or it + 1 < n"})
    for (const int64_t n : {1, 2, 3, 4}) EXPECT_EQ(perByteRules(under(cond), {{"n", n}}), Rules{}) << cond << " " << n;
  EXPECT_TRUE(perByteRules(under("it + 2 < n"), {{"n", 3}}).count("data.stale-read"));
  EXPECT_TRUE(perByteRules(under("w != 2 or it + 2 < n"), {{"n", 3}}).count("data.stale-read"));
}
