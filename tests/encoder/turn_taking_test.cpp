// A one-slot scratch that several processes take turns writing
// (docs/rules/data.stale-read.md "A write handed over in barrier order",
// session 44): every access ordered by barriers, each process reading the
// slot after each write. Counting a reader's returns made its second read
// of a round mean the next lap of a slot each writer rewrites once a
// round (a false data.stale-read: MLX's contiguous_scan written with the
// stage index `ss[0]`, docs/known-limits.md). The read now means the lap
// of the write the barriers hand it. Broken twins stay found: a barrier
// dropped (sync.race), a reader that reads before its turn (the write it
// finds is the one its previous read found: data.stale-read). FlashMLA's
// row max (kRunningMax): a write that answers the reader's own write of
// the round before is what its next read means.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "encoder/barrier_order.h"
#include "encoder/simulator.h"
#include "engine_agreement.h"
#include "test_util.h"
#include "tests/common/text_edit.h"
#include "turn_taking_kernels.h"

using namespace cake;
using namespace cake::encoder;

namespace turn_taking_test {

using cake::testing::kMbarrierTurns;
using cake::testing::kRunningMax;
using cake::testing::scratchKernel;

using Rules = std::set<std::string>;
using Vals = std::initializer_list<std::pair<std::string, int64_t>>;

// The rules the simulator finds (every rule, not the first) for one
// binding.
Rules rulesOf(const std::string& text, Vals vals) {
  ir::Module mod = cake::testing::compile(text);
  EXPECT_FALSE(mod.schedules.empty());
  if (mod.schedules.empty()) return {"(no schedule)"};
  const System sys = cake::testing::build(mod.schedules[0], cake::testing::bind(mod.schedules[0], vals));
  const ModelCheckResult sim = cake::testing::exploreEveryRule(sys);
  EXPECT_NE(sim.outcome, Outcome::Unknown) << sim.detail;
  return cake::testing::ruleSet(sim);
}

// docs/known-limits.md's reproducer: two warps of one role write ss[0] in
// turn, once each a round, and each reads it after each write; one named
// barrier (lm.sync) between every two accesses.
const std::string kSyncTurns = scratchKernel("sm_80", R"(    simd = lm.role(warps=[0, 1], group=1)
    tg   = lm.named_barrier(roles=[simd])
    with simd:
        g = lm.instance()
        lm.fill(x, 1.0)
        for r in lm.range(0, n):
            if g == 0:
                lm.copy(ss[0][0:1, 0:1], x)
            lm.sync(tg)
            lm.copy(y, ss[0][0:1, 0:1])
            lm.sync(tg)
            if g == 1:
                lm.copy(ss[0][0:1, 0:1], y)
            lm.sync(tg)
            lm.copy(x, ss[0][0:1, 0:1])
            lm.sync(tg)
        lm.copy(Out, x, coords=(lm.block_idx(0), g))
)");

// Two writer warps take turns; a third warp only reads, after each write.
const std::string kReaderOfTwoWriters = scratchKernel("sm_80", R"(    w    = lm.role(warps=[0, 1], group=1)
    rd   = lm.role(warps=[2])
    tg   = lm.named_barrier(roles=[w, rd])
    with w:
        g = lm.instance()
        lm.fill(x, 1.0)
        for r in lm.range(0, n):
            if g == 0:
                lm.copy(ss[0][0:1, 0:1], x)
            lm.sync(tg)
            lm.sync(tg)
            if g == 1:
                lm.copy(ss[0][0:1, 0:1], x)
            lm.sync(tg)
            lm.sync(tg)
    with rd:
        for r in lm.range(0, n):
            lm.sync(tg)
            lm.copy(y, ss[0][0:1, 0:1])
            lm.sync(tg)
            lm.sync(tg)
            lm.copy(x, ss[0][0:1, 0:1])
            lm.sync(tg)
            lm.copy(Out, y, coords=(lm.block_idx(0), 2 * r))
            lm.copy(Out, x, coords=(lm.block_idx(0), 2 * r + 1))
)");

// The same hand-over through two named barriers, one per direction: the
// writer lm.bar_arrives, the other lm.syncs.
std::string namedBarrierTurns() {
  std::string t = cake::test::replaceAll(kMbarrierTurns, "sm_90a", "sm_80");
  t = cake::test::replaceAll(t, "lm.barrier(count=1, prod=[ping], cons=[pong], init_count=1)",
                                "lm.named_barrier(roles=[ping, pong])");
  t = cake::test::replaceAll(t, "lm.barrier(count=1, prod=[pong], cons=[ping], init_count=1)",
                                "lm.named_barrier(roles=[ping, pong])");
  for (const char* b : {"p2q", "q2p"}) {
    t = cake::test::replaceAll(t, std::string("lm.arrive(") + b + ", iter=r)", std::string("lm.bar_arrive(") + b + ")");
    t = cake::test::replaceAll(t, std::string("lm.wait(") + b + ", iter=r)", std::string("lm.sync(") + b + ")");
  }
  return t;
}
const std::string kNamedBarrierTurns = namedBarrierTurns();

// A per-batch table read twice per entry, across an mbarrier wait between
// the two reads (docs/known-limits.md "A slot read twice per round across
// a barrier"): the second read of tb[c] in one iteration of c re-reads the
// first's data, which the barriers order no write between.
// A kernel over a table of one-word f32 slots (`tb`, `stages` of them) and
// two one-element fragments, n >= 1 rounds: the header the table forms
// below share, then `body`.
std::string tableKernel(int stages, const std::string& body) {
  return "@cake.schedule(target=\"sm_90a\")\n"
         "def k(lm, Out: LM.gmem, n: LM.i32):\n"
         "    lm.assume(n >= 1)\n"
         "    pool = lm.smem(" + std::to_string(16 * stages) + ")\n"
         "    tb   = pool.view(offset=0, shape=(1, 4), dtype=lm.f32, stages=" + std::to_string(stages) + ")\n"
         "    x    = lm.regs(shape=(1, 1), dtype=lm.f32)\n"
         "    y    = lm.regs(shape=(1, 1), dtype=lm.f32)\n" +
         body;
}

const std::string kRereadAcrossWait = tableKernel(4, R"(    prod = lm.role(warps=[0])
    cons = lm.role(warps=[1])
    full  = lm.barrier(count=1, prod=[prod], cons=[cons], init_count=1)
    step  = lm.barrier(count=4, prod=[prod], cons=[cons], init_count=1)
    empty = lm.barrier(count=1, prod=[cons], cons=[prod], init_count=1)
    with prod:
        lm.fill(x, 1.0)
        for b in lm.range(0, n):
            lm.wait(empty, iter=b - 1)
            for c in lm.range(0, 4):
                lm.copy(tb[c][0:1, 0:1], x)
            lm.arrive(full, iter=b)
            for c in lm.range(0, 4):
                lm.arrive(step, iter=4 * b + c)
    with cons:
        for b in lm.range(0, n):
            lm.wait(full, iter=b)
            for c in lm.range(0, 4):
                lm.copy(y, tb[c][0:1, 0:1])
                lm.wait(step, iter=4 * b + c)
                lm.copy(y, tb[c][0:1, 0:1])
                lm.copy(Out, y, coords=(lm.block_idx(0), 4 * b + c))
            lm.arrive(empty, iter=b)
)");

// FlashMLA's rescale sScale1, minimal (session 45): warpgroup 1 writes the
// word once a round; warpgroup 0 reads it twice a round, across a second
// named barrier, and hands the turn back (lm.bar_arrive go) only after
// both reads. The index names no loop variable: the re-read is keyed on
// the loop around it (it was "meaning lap 1 ..., but it holds the data of
// lap 0" at n=2).
const std::string kRereadOfALoopFreeIndex = scratchKernel("sm_80", R"(    wg0  = lm.role(warps=[0])
    wg1  = lm.role(warps=[1])
    go    = lm.named_barrier(roles=[wg0, wg1])
    ready = lm.named_barrier(roles=[wg0, wg1])
    mid   = lm.named_barrier(roles=[wg0, wg1])
    with wg0:
        for j in lm.range(0, n):
            lm.bar_arrive(go)
            lm.sync(ready)
            lm.copy(x, ss[0][0:1, 0:1])
            lm.sync(mid)
            lm.copy(y, ss[0][0:1, 0:1])
            lm.copy(Out, y, coords=(lm.block_idx(0), j))
    with wg1:
        lm.fill(x, 1.0)
        for j in lm.range(0, n):
            lm.sync(go)
            lm.copy(ss[0][0:1, 0:1], x)
            lm.bar_arrive(ready)
            lm.bar_arrive(mid)
)");

// FlashMLA's sparse FP8 decode, minimal (session 45): a producer fills a
// two-slot ring, consumer c0 reads each slot twice (across a named barrier
// with c1), and both consumers release the slot on one mbarrier
// (init_count=2) that the producer waits on before the refill. c0 and c1
// take turns (s_ready, s_free), so neither brings a phase's arrival before
// the other's of the phase before: the release orders the refill after
// c0's second read (it was "meaning lap 1 ..., but it holds the data of
// lap 0" at n=4).
const std::string kRereadReleasedByTwo = tableKernel(2, R"(    prod = lm.role(warps=[0])
    c0   = lm.role(warps=[1])
    c1   = lm.role(warps=[2])
    ready   = lm.barrier(count=2, prod=[prod], cons=[c0], init_count=1)
    avail   = lm.barrier(count=2, prod=[c0, c1], cons=[prod], init_count=2)
    s_ready = lm.named_barrier(roles=[c0, c1])
    s_free  = lm.named_barrier(roles=[c0, c1])
    with prod:
        lm.fill(x, 1.0)
        for i in lm.range(0, n):
            if i >= 2:
                lm.wait(avail, stage=i % 2)
            lm.copy(tb[i % 2][0:1, 0:1], x)
            lm.arrive(ready, stage=i % 2)
    with c0:
        for i in lm.range(0, n):
            lm.wait(ready, stage=i % 2)
            lm.copy(y, tb[i % 2][0:1, 0:1])
            if i > 0:
                lm.sync(s_free)
            lm.copy(y, tb[i % 2][0:1, 0:1])
            lm.bar_arrive(s_ready)
            lm.arrive(avail, stage=i % 2)
            lm.copy(Out, y, coords=(lm.block_idx(0), i))
    with c1:
        for i in lm.range(0, n):
            lm.sync(s_ready)
            lm.arrive(avail, stage=i % 2)
            if i + 1 < n:
                lm.bar_arrive(s_free)
)");

// FlashMLA's sK1 V-right tile, minimal (session 45): ld0 loads the tile at
// each batch's start, rd reloads it per pair; rd arms each phase and reads
// the tile after its wait. The loads' laps are each loader's count, the
// read means the phase it waited for (it was "meaning lap 2 ..., but it
// holds the data of lap 1" at nb=3, np=3).
const std::string kReloadsSharedByTwo = R"(@cake.schedule(target="sm_90a")
def k(lm, T: LM.tma2d, Out: LM.gmem, nb: LM.i32, np: LM.i32):
    lm.assume(nb >= 1)
    lm.assume(np >= 1)
    pool = lm.smem(8192)
    tile = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=1)
    x    = lm.regs(shape=(64, 64), dtype=lm.bf16)
    ld0  = lm.role(warps=[0])
    rd   = lm.role(warps=[1])
    full = lm.barrier(count=1, prod=[ld0, rd], cons=[rd], init_count=1)
    free = lm.barrier(count=1, prod=[rd], cons=[ld0], init_count=1)
    with ld0:
        for b in lm.range(0, nb):
            if b > 0:
                lm.wait(free, iter=b - 1)
            tile[0].tma_load(T, coords=(64 * b, 0), stage=0, phase=b * np, barrier=full)
    with rd:
        for b in lm.range(0, nb):
            lm.expect_tx(full, 8192, stage=0)
            lm.wait(full, stage=0)
            lm.copy(x, tile[0])
            lm.fence_proxy()
            lm.copy(Out, x, coords=(64 * b, 0))
            for j in lm.range(0, np):
                if j + 1 < np:
                    tile[0].tma_load(T, coords=(64 * b, 64 * j + 64), stage=0, phase=b * np + j + 1, barrier=full)
                    lm.expect_tx(full, 8192, stage=0)
                    lm.wait(full, stage=0)
                    lm.copy(x, tile[0])
                    lm.fence_proxy()
                    lm.copy(Out, x, coords=(64 * b, 64 * j + 64))
            lm.arrive(free, iter=b)
)";

// The system of `text` at n rounds.
System systemAt(const std::string& text, int64_t n) {
  ir::Module mod = cake::testing::compile(text);
  EXPECT_FALSE(mod.schedules.empty());
  if (mod.schedules.empty()) return {};
  return cake::testing::build(mod.schedules[0], cake::testing::bind(mod.schedules[0], {{"n", n}}));
}

std::string edit(const std::string& text, const std::string& from, const std::string& to) {
  return cake::testing::replace(text, from, to);
}

}  // namespace turn_taking_test

namespace tt = turn_taking_test;

// The reproducer and its variants verify at 1 to 3 rounds on every engine
// (the reproducer was data.stale-read at n = 3: "meaning lap 2 ..., but it
// holds the data of lap 1").
TEST(TurnTaking, CorrectTurnsAreNotStale) {
  for (int64_t n : {1, 2, 3}) {
    EXPECT_EQ(tt::rulesOf(tt::kSyncTurns, {{"n", n}}), tt::Rules{}) << "lm.sync, n=" << n;
    EXPECT_EQ(tt::rulesOf(tt::kReaderOfTwoWriters, {{"n", n}}), tt::Rules{}) << "reader of two, n=" << n;
    EXPECT_EQ(tt::rulesOf(tt::kMbarrierTurns, {{"n", n}}), tt::Rules{}) << "mbarriers, n=" << n;
    EXPECT_EQ(tt::rulesOf(tt::kNamedBarrierTurns, {{"n", n}}), tt::Rules{}) << "bar.arrive, n=" << n;
    EXPECT_EQ(tt::rulesOf(tt::kRunningMax, {{"n", n}}), tt::Rules{}) << "running max, n=" << n;
  }
}

// A re-read across an mbarrier wait means the first read's generation
// (it was "meaning lap 1 ..., but it holds the data of lap 0", n=2); a
// producer that skips a batch's table is still found at the batch's first
// read (from the third batch: with two, lap 0 is the only lap written),
// and a write between the two reads unordered with them races.
TEST(TurnTaking, RereadAcrossAnMbarrierWait) {
  for (int64_t n : {1, 2, 3})
    EXPECT_EQ(tt::rulesOf(tt::kRereadAcrossWait, {{"n", n}}), tt::Rules{}) << "n=" << n;
  const std::string skipped = tt::edit(tt::kRereadAcrossWait, "                lm.copy(tb[c][0:1, 0:1], x)\n",
                                       "                if b != 1:\n                    lm.copy(tb[c][0:1, 0:1], x)\n");
  EXPECT_EQ(tt::rulesOf(skipped, {{"n", 2}}), tt::Rules{}) << "lap 0 is the only lap written: the cap";
  EXPECT_EQ(tt::rulesOf(skipped, {{"n", 3}}), tt::Rules{"data.stale-read"});
  const std::string rewritten = tt::edit(tt::kRereadAcrossWait, "                lm.arrive(step, iter=4 * b + c)\n",
                                         "                lm.copy(tb[c][0:1, 0:1], x)\n                lm.arrive(step, iter=4 * b + c)\n");
  EXPECT_TRUE(tt::rulesOf(rewritten, {{"n", 1}}).count("sync.race"));
}

// A barrier dropped: the write and the read it was to order race.
TEST(TurnTaking, ABarrierDroppedRaces) {
  // lm.sync: warp 1's write no longer ordered before warp 0's second read
  const std::string sync_dropped = tt::edit(tt::kSyncTurns,
                                            "                lm.copy(ss[0][0:1, 0:1], y)\n            lm.sync(tg)\n",
                                            "                lm.copy(ss[0][0:1, 0:1], y)\n");
  EXPECT_TRUE(tt::rulesOf(sync_dropped, {{"n", 2}}).count("sync.race"));
  // mbarriers: ping reads pong's word before waiting for it
  const std::string read_early = tt::edit(tt::kMbarrierTurns,
                                          "            lm.wait(q2p, iter=r)\n            lm.copy(x, ss[0][0:1, 0:1])\n",
                                          "            lm.copy(x, ss[0][0:1, 0:1])\n            lm.wait(q2p, iter=r)\n");
  EXPECT_TRUE(tt::rulesOf(read_early, {{"n", 2}}).count("sync.race"));
  // bar.arrive: pong arrives before its write
  const std::string arrive_early = tt::edit(tt::kNamedBarrierTurns,
                                            "            lm.copy(x, ss[0][0:1, 0:1])\n            lm.bar_arrive(q2p)\n",
                                            "            lm.bar_arrive(q2p)\n            lm.copy(x, ss[0][0:1, 0:1])\n");
  EXPECT_TRUE(tt::rulesOf(arrive_early, {{"n", 2}}).count("sync.race"));
  // running max: warpgroup 0 reads the next round's word without waiting
  const std::string no_wait = tt::edit(tt::kRunningMax, "            lm.bar_arrive(to1)\n            lm.sync(to0)\n",
                                       "            lm.bar_arrive(to1)\n");
  EXPECT_TRUE(tt::rulesOf(no_wait, {{"n", 2}}).count("sync.race"));
}

// The reader reads before its turn: its second read of the round comes
// one barrier before warp 1's write (no race: the write now follows it),
// so it finds warp 0's write again, which its first read found.
TEST(TurnTaking, AReaderBeforeItsTurnIsStale) {
  std::string early = tt::edit(tt::kReaderOfTwoWriters,
                               "            lm.sync(tg)\n            lm.sync(tg)\n            if g == 1:\n",
                               "            lm.sync(tg)\n            lm.sync(tg)\n            lm.sync(tg)\n            if g == 1:\n");
  early = tt::edit(early, "            lm.sync(tg)\n            lm.sync(tg)\n    with rd:\n",
                   "            lm.sync(tg)\n    with rd:\n");
  early = tt::edit(early,
                   "            lm.sync(tg)\n            lm.sync(tg)\n            lm.copy(x, ss[0][0:1, 0:1])\n            lm.sync(tg)\n",
                   "            lm.sync(tg)\n            lm.copy(x, ss[0][0:1, 0:1])\n            lm.sync(tg)\n            lm.sync(tg)\n");
  EXPECT_EQ(tt::rulesOf(early, {{"n", 1}}), tt::Rules{}) << "one round: lap 0 is all that is written";
  EXPECT_EQ(tt::rulesOf(early, {{"n", 2}}), tt::Rules{"data.stale-read"});
  // warp 1 skips its write on round 1: the reader's second read finds
  // warp 0's write of the round again
  const std::string skipped = tt::edit(tt::kReaderOfTwoWriters, "            if g == 1:\n",
                                       "            if g == 1 and r != 1:\n");
  EXPECT_EQ(tt::rulesOf(skipped, {{"n", 3}}), tt::Rules{"data.stale-read"});
}

// The order the barriers fix: lm.sync generations, an mbarrier slot one
// process arrives on, and a two-process lm.bar_arrive hand-over (into the
// passes of the process that only syncs). Process 0's first write is
// ordered before process 1's last instruction, never the other way; a
// slot that two processes arrive on orders nothing (an arrival may land
// in another phase than the one it means).
TEST(TurnTaking, BarrierOrderFollowsTheBarriers) {
  auto orderOf = [](const std::string& text) {
    const System sys = tt::systemAt(text, 2);
    const std::optional<BarrierOrder> order = BarrierOrder::of(sys);
    EXPECT_TRUE(order.has_value());
    const int last1 = static_cast<int>(sys.procs.at(1).program.size()) - 1;
    return order ? std::make_pair(order->before(0, 1, 1, last1), order->before(1, last1, 0, 1))
                 : std::make_pair(false, true);
  };
  for (const std::string* text : {&tt::kSyncTurns, &tt::kMbarrierTurns, &tt::kNamedBarrierTurns})
    EXPECT_EQ(orderOf(*text), std::make_pair(true, false)) << *text;
  // pong arrives on p2q too (twice a round in all, two processes)
  const std::string two = tt::edit(tt::edit(tt::kMbarrierTurns, "prod=[ping], cons=[pong], init_count=1",
                                            "prod=[ping, pong], cons=[pong], init_count=2"),
                                   "            lm.wait(p2q, iter=r)\n", "            lm.arrive(p2q, iter=r)\n            lm.wait(p2q, iter=r)\n");
  EXPECT_EQ(orderOf(two), std::make_pair(false, false));
}

// A read of an index that names no loop variable, twice a round (FlashMLA's
// sScale1): the second read re-reads the first's data; every engine agrees.
// Broken twins: the writer's next write not waiting for the reader (race),
// a write between the two reads unordered with the first (race), a writer
// that skips a round (stale).
TEST(TurnTaking, RereadOfALoopFreeIndex) {
  for (int64_t n : {1, 2, 3})
    EXPECT_EQ(tt::rulesOf(tt::kRereadOfALoopFreeIndex, {{"n", n}}), tt::Rules{}) << "n=" << n;
  const std::string no_turn = tt::edit(tt::kRereadOfALoopFreeIndex, "            lm.sync(go)\n", "");
  EXPECT_TRUE(tt::rulesOf(no_turn, {{"n", 2}}).count("sync.race"));
  const std::string between = tt::edit(tt::kRereadOfALoopFreeIndex, "            lm.bar_arrive(ready)\n",
                                       "            lm.bar_arrive(ready)\n            lm.copy(ss[0][0:1, 0:1], x)\n");
  EXPECT_TRUE(tt::rulesOf(between, {{"n", 1}}).count("sync.race"));
  const std::string skipped = tt::edit(tt::kRereadOfALoopFreeIndex, "            lm.copy(ss[0][0:1, 0:1], x)\n",
                                       "            if j != 1:\n                lm.copy(ss[0][0:1, 0:1], x)\n");
  EXPECT_EQ(tt::rulesOf(skipped, {{"n", 3}}), tt::Rules{"data.stale-read"});
}

// A re-read whose refill waits on a slot two consumers release: clean at 1
// to 5 iterations. Broken twins: c0 releases before its second read, and c1
// arrives without taking turns (it may bring two phases' arrivals before
// c0's first, completing the phase the refill waits for): the refill races
// with the re-read; a producer that skips a refill: stale.
TEST(TurnTaking, RereadReleasedByTwo) {
  for (int64_t n : {1, 2, 3, 4, 5})
    EXPECT_EQ(tt::rulesOf(tt::kRereadReleasedByTwo, {{"n", n}}), tt::Rules{}) << "n=" << n;
  const std::string early = tt::edit(
      tt::kRereadReleasedByTwo,
      "            lm.copy(y, tb[i % 2][0:1, 0:1])\n            lm.bar_arrive(s_ready)\n            lm.arrive(avail, stage=i % 2)\n",
      "            lm.bar_arrive(s_ready)\n            lm.arrive(avail, stage=i % 2)\n            lm.copy(y, tb[i % 2][0:1, 0:1])\n");
  EXPECT_TRUE(tt::rulesOf(early, {{"n", 3}}).count("sync.race"));
  const std::string run_ahead = tt::edit(tt::kRereadReleasedByTwo, "            lm.sync(s_ready)\n", "");
  EXPECT_TRUE(tt::rulesOf(run_ahead, {{"n", 3}}).count("sync.race"));
  const std::string skipped = tt::edit(tt::kRereadReleasedByTwo, "            lm.copy(tb[i % 2][0:1, 0:1], x)\n",
                                       "            if i != 2:\n                lm.copy(tb[i % 2][0:1, 0:1], x)\n");
  EXPECT_TRUE(tt::rulesOf(skipped, {{"n", 5}}).count("data.stale-read"));
}

// A TMA-filled tile whose loads two processes share: the read means the
// load of the phase it waited for. Broken twins: the batch-start load not
// waiting for the reader's release, and a read before its wait: races.
TEST(TurnTaking, ReloadsSharedByTwo) {
  for (int64_t nb : {1, 2, 3})
    for (int64_t np : {1, 2, 3})
      EXPECT_EQ(tt::rulesOf(tt::kReloadsSharedByTwo, {{"nb", nb}, {"np", np}}), tt::Rules{}) << nb << " " << np;
  const std::string no_release = tt::edit(tt::kReloadsSharedByTwo, "            if b > 0:\n                lm.wait(free, iter=b - 1)\n", "");
  EXPECT_TRUE(tt::rulesOf(no_release, {{"nb", 2}, {"np", 2}}).count("sync.race"));
  const std::string read_early = tt::edit(tt::kReloadsSharedByTwo,
                                          "            lm.wait(full, stage=0)\n            lm.copy(x, tile[0])\n",
                                          "            lm.copy(x, tile[0])\n            lm.wait(full, stage=0)\n");
  EXPECT_TRUE(tt::rulesOf(read_early, {{"nb", 2}, {"np", 2}}).count("sync.race"));
}

// The order of a slot two processes release in turn (kRereadReleasedByTwo):
// the producer's refill of slot 0 (its third iteration) follows c1's first
// release; without c1's s_ready pass, c1 may run ahead and the slot orders
// nothing.
TEST(TurnTaking, ASlotTwoReleaseInTurnOrders) {
  auto refillAfterRelease = [](const std::string& text) {
    const System sys = tt::systemAt(text, 3);
    const std::optional<BarrierOrder> order = BarrierOrder::of(sys);
    EXPECT_TRUE(order.has_value());
    auto pcOf = [&](int p, InstrKind kind, int nth) {
      for (size_t pc = 0; pc < sys.procs[p].program.size(); ++pc)
        if (sys.procs[p].program[pc].kind == kind && nth-- == 0) return static_cast<int>(pc);
      return -1;
    };
    const int release = pcOf(2, InstrKind::Arrive, 0), refill_wait = pcOf(0, InstrKind::Wait, 0);
    EXPECT_GE(release, 0);
    EXPECT_GE(refill_wait, 0);
    return order && order->before(2, release, 0, refill_wait);
  };
  EXPECT_TRUE(refillAfterRelease(tt::kRereadReleasedByTwo));
  EXPECT_FALSE(refillAfterRelease(tt::edit(tt::kRereadReleasedByTwo, "            lm.sync(s_ready)\n", "")));
}
