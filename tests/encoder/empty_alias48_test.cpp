// The empty tiles' copies read without the caps (docs/z3.md "The empty
// tiles' copies read without the caps"): cudnn-frontend's zero-KV tiles
// (PR #575's fix, corpus pair
// sync.lost-phase/cudnn_fe_frost_d192_empty_tile_alias_gate_unpaired_fixed*)
// stage their zero tile through the Q u O alias that the later tiles' Q
// loads write. With the caps a read there means at most the highest lap
// another process writes over its bytes in the whole run, so the copies'
// text depends on how many tiles follow them, and the cut at the copies
// was refused (main: unknown). Reduced here: proved; broken twins met by
// the bounded check and never proved; and the builder's claim the proof
// stands on, that the caps only lower what a read means.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "encoder/system_hook.h"
#include "encoder/trip_cluster.h"
#include "encoder/trip_proof.h"
#include "prove_util.h"
#include "test_util.h"

namespace empty_alias48_test {

using cake::encoder::Outcome;
using cake::encoder::System;

// Three roles as in the corpus file, the MMA reduced to a copy of Q out of
// the alias: ldg waits the alias gate every tile, loads Q on tiles with KV
// and signals `pair` on empty ones; cons reads Q; corr writes its tile (a
// zero tile on empty tiles) into the alias and TMA-stores it from there,
// then arrives on the gate.
const char* kAlias = R"(@cake.schedule(target="sm_100a")
def empty_tile_alias(lm, Q: LM.tma2d, O: LM.tma2d, n_tiles: LM.i32, n_empty: LM.i32):
    lm.assume(n_empty >= 0)
    pool    = lm.smem(16384)
    smem_qo = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    q_r     = lm.regs(shape=(128, 64), dtype=lm.bf16)
    o_r     = lm.regs(shape=(128, 64), dtype=lm.bf16)
    corr = lm.role(warps=[0, 1, 2, 3])
    cons = lm.role(warps=[4])
    ldg  = lm.role(warps=[5])
    q_full = lm.barrier(count=1, prod=[ldg], cons=[cons], init_count=1)
    o_full = lm.barrier(count=1, prod=[cons], cons=[corr], init_count=1)
    gate   = lm.barrier(count=1, prod=[corr], cons=[ldg], init_count=1)
    pair   = lm.barrier(count=1, prod=[ldg], cons=[corr], init_count=1)
    with ldg:
        for t in lm.range(0, n_tiles):
            lm.wait(gate, iter=t - 1)
            if t >= n_empty:
                smem_qo.tma_load(Q, coords=(128 * t, 0), iter=t - n_empty, barrier=q_full)
            else:
                lm.arrive(pair, stage=0)
    with cons:
        for t in lm.range(0, n_tiles):
            if t >= n_empty:
                lm.wait(q_full, iter=t - n_empty)
                lm.copy(q_r, smem_qo[0])
                lm.fence_proxy()
                lm.arrive(o_full, iter=t - n_empty)
    with corr:
        for t in lm.range(0, n_tiles):
            if t >= n_empty:
                lm.wait(o_full, iter=t - n_empty)
            else:
                lm.wait(pair, stage=0)
            lm.fill(o_r, 0.0)
            lm.copy(smem_qo[0], o_r)
            lm.fence_proxy()
            smem_qo.tma_store(O, coords=(128 * t, 0), stage=0)
            lm.tma_store_commit()
            lm.tma_store_wait(pending=0)
            lm.arrive(gate, iter=t)
)";

std::string edited(const std::string& from, const std::string& to) {
  const std::string text = kAlias;
  EXPECT_NE(text.find(from), std::string::npos) << from;
  return cake::testing::replace(text, from, to);
}

// Does the bounded check meet a violation at some (n_tiles, n_empty) with
// up to 4 tiles? (The Q tile stored as O is met from two tiles with KV after
// an empty one.)
bool brokenSomewhere(const cake::ir::Schedule& s) {
  for (int64_t tiles = 1; tiles <= 4; ++tiles)
    for (int64_t empty = 0; empty <= tiles; ++empty)
      if (cake::testing::violatedAt(s, {{"n_tiles", tiles}, {"n_empty", empty}})) return true;
  return false;
}

void expectAliasProved(const std::string& text, const std::string& what) {
  auto m = cake::testing::compile(text);
  ASSERT_FALSE(m.schedules.empty()) << what;
  for (int64_t tiles = 1; tiles <= 3; ++tiles)
    for (int64_t empty = 0; empty <= tiles; ++empty)
      EXPECT_FALSE(cake::testing::violatedAt(m.schedules[0], {{"n_tiles", tiles}, {"n_empty", empty}}))
          << what << " at n_tiles=" << tiles << ", n_empty=" << empty;
  auto r = cake::testing::proveSchedule(m.schedules[0]);
  EXPECT_EQ(r.outcome, Outcome::Proved) << what << ": " << r.detail;
  EXPECT_NE(r.engine.find("with reads without the caps"), std::string::npos) << what << ": " << r.engine;
}

std::optional<System> buildWithCaps(const cake::ir::Schedule& s, int64_t tiles, int64_t empty, bool caps) {
  std::string err;
  const cake::encoder::EvalHook none = [](const cake::ir::Expr&, const cake::ir::EvalEnv&) -> std::optional<int64_t> {
    return std::nullopt;
  };
  auto sys = cake::encoder::buildSystemHooked(s, cake::testing::bind(s, {{"n_tiles", tiles}, {"n_empty", empty}}),
                                              cake::ir::Target::Unspecified, none, &err,
                                              {.cap_read_generations = caps});
  EXPECT_TRUE(sys.has_value()) << err;
  return sys;
}

// The bounded check's first rule on a system ("" where clean).
std::string firstRule(const System& sys) {
  cake::encoder::ExploreOptions eo;
  eo.timeout_ms = cake::testing::kNoWallClockMs;
  eo.stop_at_first = true;
  const auto r = cake::encoder::explore(sys, eo);
  return r.violations.empty() ? "" : r.violations.front().rule;
}

// A read-back over part of its bytes: warp r reads buf[0], rewrites its
// first 8 rows, and reads it again after a barrier, before warp w rewrites
// the last 8 rows (ordered after the read). The second read counts one
// return over rows 8..15 but means lap 0 over the whole index (a
// read-back: its own latest write's lap); with the caps, rows 8..15 are a
// piece of their own that means that return (lap 1, w writes lap 1 there
// later in the run) and find lap 0: data.stale-read. Without the caps the
// read must mean at least as much (Builder::uncappedGeneration).
const char* kPartialReadBack = R"(@cake.schedule(target="sm_80")
def partial_read_back(lm, A: LM.gmem, D: LM.gmem, n_tiles: LM.i32, n_empty: LM.i32):
    pool = lm.smem(4096)
    buf  = pool.view(offset=0, shape=(16, 32), dtype=lm.f32, stages=1)
    v    = lm.regs(shape=(16, 32), dtype=lm.f32)
    u    = lm.regs(shape=(8, 32), dtype=lm.f32)
    r    = lm.role(warps=[0])
    w    = lm.role(warps=[1])
    bar  = lm.named_barrier(roles=[r, w])
    with r:
        lm.copy(u, A, coords=(0, 0))
        lm.sync(bar)
        lm.copy(v, buf[0])
        lm.copy(buf[0][0:8, :], u)
        lm.sync(bar)
        lm.copy(v, buf[0])
        lm.sync(bar)
        lm.copy(D, v, coords=(0, 0))
    with w:
        lm.copy(v, A, coords=(0, 0))
        lm.copy(u, A, coords=(8, 0))
        lm.copy(buf[0], v)
        lm.sync(bar)
        lm.sync(bar)
        lm.sync(bar)
        lm.copy(buf[0][8:16, :], u)
)";

}  // namespace empty_alias48_test

// The reduced form proved, its parity-bootstrap spelling too (the corpus
// pair's two spellings), with the empty tiles' copies and S_h read
// without the caps; clean in the bounded check for n_empty <= n_tiles <= 3.
TEST(EmptyAlias48, ZeroTileStagedThroughTheAliasIsProved) {
  using empty_alias48_test::edited;
  using empty_alias48_test::expectAliasProved;
  expectAliasProved(empty_alias48_test::kAlias, "the zero tile staged through the alias");
  expectAliasProved(edited("lm.wait(gate, iter=t - 1)", "lm.wait(gate, stage=0, phase=t - 1)"),
                    "the parity bootstrap");
}

// Broken twins, each met by the bounded check, none proved:
//  * the empty tile's gate arrival before its store drains (the next
//    tile's Q load writes the alias while the zero tile is still being
//    stored: sync.race);
//  * the gate waited two tiles behind (the first Q load over the last
//    zero tile: sync.race);
//  * the store issued before its zero tile is written (each empty tile
//    stores the previous tile's zero tile, the first one nothing:
//    data.stale-read);
//  * the zero tile written on empty tiles only, so a tile with KV stores
//    the Q tile the alias holds (data.stale-read from n_empty = 1 with two
//    tiles with KV after it: the store's count runs one lap per tile, the
//    loads' laps from the first tile with KV);
//  * the `pair` wait dropped (cudnn-frontend's bug: sync.lost-phase).
TEST(EmptyAlias48, BrokenFormsAreNotProved) {
  using empty_alias48_test::edited;
  const std::string drain = "            lm.tma_store_wait(pending=0)\n            lm.arrive(gate, iter=t)\n";
  const std::string stage =
      "            lm.fill(o_r, 0.0)\n            lm.copy(smem_qo[0], o_r)\n            lm.fence_proxy()\n"
      "            smem_qo.tma_store(O, coords=(128 * t, 0), stage=0)\n            lm.tma_store_commit()\n"
      "            lm.tma_store_wait(pending=0)\n";
  const std::vector<std::pair<std::string, std::string>> twins = {
      {"the gate arrived before the empty tile's store drains",
       edited(drain, "            if t >= n_empty:\n                lm.tma_store_wait(pending=0)\n"
                     "                lm.arrive(gate, iter=t)\n            else:\n"
                     "                lm.arrive(gate, iter=t)\n                lm.tma_store_wait(pending=0)\n")},
      {"the gate waited two tiles behind", edited("lm.wait(gate, iter=t - 1)", "lm.wait(gate, iter=t - 2)")},
      {"the store before its zero tile",
       edited(stage, "            lm.fence_proxy()\n            smem_qo.tma_store(O, coords=(128 * t, 0), stage=0)\n"
                     "            lm.tma_store_commit()\n            lm.tma_store_wait(pending=0)\n"
                     "            lm.fill(o_r, 0.0)\n            lm.copy(smem_qo[0], o_r)\n            lm.fence_proxy()\n")},
      {"the Q tile stored as O",
       edited("                lm.wait(pair, stage=0)\n            lm.fill(o_r, 0.0)\n            lm.copy(smem_qo[0], o_r)\n",
              "                lm.wait(pair, stage=0)\n                lm.fill(o_r, 0.0)\n"
              "                lm.copy(smem_qo[0], o_r)\n")},
      {"the pair wait dropped", edited("                lm.wait(pair, stage=0)\n", "                lm.fill(o_r, 0.0)\n")},
  };
  for (const auto& [what, text] : twins)
    cake::testing::expectBrokenNotProved(text, empty_alias48_test::brokenSomewhere, what);
}

// The claim the proof stands on (trip::capsOnlyLowerReads): built with and
// without the caps, a text differs only in what reads mean, and each byte
// means no later lap with the caps. On the reduced form, the corr's
// zero-tile store reads its own rewrite back and means its own data from
// the second tile on (kOwnDataOnly: no lap that moves with the loads after
// it). On the partial read-back, the capped piece means one lap more than
// the read counts: without the caps it must too, else a run clean without
// them would be stale with them.
TEST(EmptyAlias48, ReadsWithoutTheCapsMeanAtLeastTheCapped) {
  using empty_alias48_test::buildWithCaps;
  using empty_alias48_test::firstRule;
  const auto alias = cake::testing::compile(empty_alias48_test::kAlias);
  ASSERT_FALSE(alias.schedules.empty());
  for (auto [tiles, empty] : {std::pair<int64_t, int64_t>{2, 2}, {4, 2}, {3, 1}, {3, 0}}) {
    const auto u = buildWithCaps(alias.schedules[0], tiles, empty, false);
    const auto c = buildWithCaps(alias.schedules[0], tiles, empty, true);
    ASSERT_TRUE(u && c);
    EXPECT_TRUE(cake::encoder::trip::capsOnlyLowerReads(*u, *c)) << tiles << ", " << empty;
    int own = 0;  // the stores that mean their own data
    for (const auto& p : u->procs)
      for (const auto& in : p.program)
        for (const cake::encoder::Access& a : in.accesses) own += !a.write && a.gen == cake::encoder::kOwnDataOnly;
    EXPECT_EQ(own, tiles - 1) << tiles << ", " << empty;
  }
  const auto part = cake::testing::compile(empty_alias48_test::kPartialReadBack);
  ASSERT_FALSE(part.schedules.empty());
  const auto u = buildWithCaps(part.schedules[0], 1, 0, false);
  const auto c = buildWithCaps(part.schedules[0], 1, 0, true);
  ASSERT_TRUE(u && c);
  EXPECT_TRUE(cake::encoder::trip::capsOnlyLowerReads(*u, *c));
  std::vector<int64_t> second;  // what r's reads of buf mean, without the caps
  for (const auto& in : u->procs[0].program)
    for (const cake::encoder::Access& a : in.accesses)
      if (!a.write && a.view >= 0) second.push_back(a.gen);
  EXPECT_EQ(second, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(firstRule(*c), "data.stale-read");
  EXPECT_EQ(firstRule(*u), "data.stale-read");
}
