// buildSystem(): unrolling, slots and phases, derived expect_tx, byte
// ranges, named barriers, targets, refusals.
#include <gtest/gtest.h>

#include <cstdio>

#include "encoder/sim_model.h"
#include "encoder/simulator.h"
#include "encoder/system.h"
#include "test_util.h"

using namespace cake;
using cake::testing::bind;
using cake::testing::build;
using cake::testing::compile;
using cake::testing::violatedAt;
using encoder::InstrKind;

namespace {

// A 2-stage warp-specialized ring (tests/encoder/test_util.h).
const std::string kRing = cake::testing::wsRingSchedule(2);

std::vector<const encoder::Instr*> ofKind(const encoder::Process& p, InstrKind k) {
  std::vector<const encoder::Instr*> out;
  for (const auto& in : p.program)
    if (in.kind == k) out.push_back(&in);
  return out;
}

// Two warps each writing a column band t[0][:, C0:C1] of one 8 x 64 tile
// (8 runs), then a named barrier.
std::string columnBandsText(const std::string& c0, const std::string& c1) {
  const std::string base = R"(@cake.schedule(target="sm_80")
def bands(lm, X: LM.gmem, Y: LM.gmem):
    pool = lm.smem(4096)
    t    = pool.view(offset=0, shape=(8, 64), dtype=lm.f32, stages=1)
    band = lm.regs(shape=(8, 16), dtype=lm.f32)
    rows = lm.regs(shape=(4, 64), dtype=lm.f32)
    ws   = lm.role(warps=[0, 1], group=1)
    bar  = lm.named_barrier(roles=[ws])
    with ws:
        w = lm.instance()
        lm.copy(band, X, coords=(0, 16 * w))
        lm.copy(t[0][:, C0:C1], band)
        lm.sync(bar)
        lm.copy(Y, band, coords=(0, 16 * w))
)";
  return cake::testing::replace(cake::testing::replace(base, "C0", c0), "C1", c1);
}

}  // namespace

TEST(System, ProcessesPerInstance) {
  auto mod = compile(kRing);
  auto sys = build(mod.schedules[0], bind(mod.schedules[0], {{"K", 3}}));
  ASSERT_EQ(sys.procs.size(), 3u);
  EXPECT_EQ(sys.procs[0].name, "producer");
  EXPECT_EQ(sys.procs[1].name, "consumers[0]");
  EXPECT_EQ(sys.procs[2].instance, 1);
  EXPECT_EQ(sys.procs[2].warps, 4);
  EXPECT_EQ(sys.slots.size(), 4u);
  EXPECT_EQ(sys.slots[sys.slotOf(1, 1)].name, "empty[1]");
  EXPECT_EQ(sys.slots[sys.slotOf(1, 1)].init_count, 2);
  EXPECT_EQ(sys.target, ir::Target::SM90a);
}

TEST(System, NegativeIterationWaitsVanish) {
  auto mod = compile(kRing);
  auto sys = build(mod.schedules[0], bind(mod.schedules[0], {{"K", 3}}));
  auto waits = ofKind(sys.procs[0], InstrKind::Wait);
  ASSERT_EQ(waits.size(), 1u);  // k = 2 only: iter 0 -> empty[0] phase 0
  EXPECT_EQ(waits[0]->slot, sys.slotOf(1, 0));
  EXPECT_EQ(waits[0]->phase, 0);
  EXPECT_EQ(waits[0]->iteration, 0);
}

TEST(System, DerivedExpectTxPerBatch) {
  auto mod = compile(kRing);
  auto sys = build(mod.schedules[0], bind(mod.schedules[0], {{"K", 3}}));
  const auto& prog = sys.procs[0].program;
  // k=0: expect, load, load; k=1: expect, load, load; k=2: wait, expect, load, load
  ASSERT_EQ(prog.size(), 10u);
  EXPECT_EQ(prog[0].kind, InstrKind::ExpectTx);
  EXPECT_TRUE(prog[0].derived);
  EXPECT_EQ(prog[0].bytes, 128 * 64 * 2 + 64 * 64 * 2);
  EXPECT_EQ(prog[0].count, 1);
  EXPECT_EQ(prog[1].kind, InstrKind::TmaLoad);
  EXPECT_EQ(prog[1].bytes, 128 * 64 * 2);
  auto expects = ofKind(sys.procs[0], InstrKind::ExpectTx);
  ASSERT_EQ(expects.size(), 3u);
  EXPECT_EQ(expects[2]->slot, sys.slotOf(0, 0));  // iter 2 -> full[0]
  EXPECT_EQ(expects[2]->phase, 1);                // phase 2 // 2
}

TEST(System, ExplicitExpectTxIsNotDerived) {
  std::string text = kRing;
  text.replace(text.find("            smem_a.tma_load"), 0, "            lm.expect_tx(full, 100, iter=k)\n");
  auto mod = compile(text);
  auto sys = build(mod.schedules[0], bind(mod.schedules[0], {{"K", 1}}));
  auto expects = ofKind(sys.procs[0], InstrKind::ExpectTx);
  ASSERT_EQ(expects.size(), 1u);
  EXPECT_FALSE(expects[0]->derived);
  EXPECT_EQ(expects[0]->bytes, 100);
}

TEST(System, SlicedAndAliasedByteRanges) {
  auto mod = compile(kRing);
  auto sys = build(mod.schedules[0], bind(mod.schedules[0], {{"K", 2}}));
  auto mmas = ofKind(sys.procs[2], InstrKind::Mma);  // instance 1: rows 64..128
  ASSERT_EQ(mmas.size(), 2u);
  const auto& a = mmas[1]->accesses[0];  // smem_a[1][64:128, :]
  EXPECT_EQ(a.lo, 16384 + 64 * 64 * 2);
  EXPECT_EQ(a.hi, 32768);
  EXPECT_FALSE(a.write);
  EXPECT_TRUE(a.async);
  EXPECT_EQ(a.proxy, encoder::Proxy::Async);
  const auto& b = mmas[1]->accesses[1];  // smem_b[1]
  EXPECT_EQ(b.space, a.space);           // one pool: one space
  EXPECT_EQ(b.lo, 32768 + 8192);
  const auto& acc = mmas[1]->accesses[2];
  EXPECT_TRUE(acc.write);
  EXPECT_EQ(sys.spaces[acc.space].kind, encoder::MemSpace::Kind::Regs);
  EXPECT_EQ(sys.spaces[acc.space].process, 2);
}

TEST(System, StagePhasesAreCountedPerInstance) {
  auto mod = compile(R"(@cake.schedule(target="sm_90a")
def f(lm, X: LM.tma2d):
    pool = lm.smem(32768)
    v = pool.view(offset=0, shape=(64, 64), dtype=lm.bf16, stages=2)
    r = lm.regs(shape=(64, 64), dtype=lm.f32)
    load = lm.role(warps=[0])
    use  = lm.role(warps=[1])
    full = lm.barrier(count=2, prod=[load], cons=[use], init_count=1)
    with load:
        for j in lm.range(0, 4):
            v.tma_load(X, coords=(0, j), stage=j % 2, barrier=full)
    with use:
        for j in lm.range(0, 4):
            lm.wait(full, stage=j % 2)
            lm.copy(r, v[j % 2])
)");
  auto sys = build(mod.schedules[0], {});
  auto waits = ofKind(sys.procs[1], InstrKind::Wait);
  ASSERT_EQ(waits.size(), 4u);
  EXPECT_EQ(waits[2]->slot, sys.slotOf(0, 0));
  EXPECT_EQ(waits[2]->phase, 1);  // second wait on slot 0
  auto expects = ofKind(sys.procs[0], InstrKind::ExpectTx);
  ASSERT_EQ(expects.size(), 4u);
  EXPECT_EQ(expects[3]->phase, 1);
  auto loads = ofKind(sys.procs[0], InstrKind::TmaLoad);
  EXPECT_EQ(loads[3]->phase, 1);
  // data identity: the second fill of slot 1 is generation 1; the reader's
  // second read of index 1 (after a wait on full[1]) means generation 1
  EXPECT_EQ(loads[3]->accesses[0].gen, 1);
  EXPECT_TRUE(loads[3]->accesses[0].stage_like);
  auto copies = ofKind(sys.procs[1], InstrKind::Generic);
  EXPECT_EQ(copies[3]->accesses[0].gen, 1);
}

TEST(System, NamedBarriersSplitSync) {
  auto mod = compile(R"(@cake.schedule(target="sm_90a")
def f(lm):
    a = lm.role(warps=[0, 1, 2, 3])
    b = lm.role(warps=[4])
    nb = lm.named_barrier(roles=[a, b])
    with a:
        lm.bar_arrive(nb)
    with b:
        lm.sync(nb)
)");
  auto sys = build(mod.schedules[0], {});
  ASSERT_EQ(sys.named.size(), 1u);
  EXPECT_EQ(sys.named[0].expected_warps, 5);
  ASSERT_EQ(sys.procs[1].program.size(), 2u);
  EXPECT_EQ(sys.procs[1].program[0].kind, InstrKind::SyncArrive);
  EXPECT_EQ(sys.procs[1].program[1].kind, InstrKind::SyncWait);
  EXPECT_EQ(sys.procs[0].program[0].kind, InstrKind::BarArrive);
}

TEST(System, TargetInference) {
  auto mod = compile(R"(@cake.schedule()
def f(lm, Q: LM.tma2d):
    pool = lm.smem(32768)
    q = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16)
    t = lm.tmem(cols=0, width=64, shape=(128, 64), dtype=lm.f32)
    w = lm.role(warps=[0])
    full = lm.barrier(count=1, prod=[w], cons=[w], init_count=1)
    with w:
        q.tma_load(Q, coords=(0, 0), stage=0, barrier=full)
        lm.wait(full, stage=0)
        lm.mma(t, q[0], q[0])
        lm.mma_commit(barrier=full, stage=0)
)");
  auto sys = build(mod.schedules[0], {});
  EXPECT_EQ(sys.target, ir::Target::SM100a);
  auto commits = ofKind(sys.procs[0], InstrKind::MmaCommit);
  ASSERT_EQ(commits.size(), 1u);
  EXPECT_EQ(commits[0]->phase, 1);  // second arrive-type op on full[0]
}

TEST(System, RefusesWhatItCannotBuild) {
  auto mod = compile(kRing);
  std::string err;
  encoder::BuildLimits lim;
  lim.max_instrs = 50;
  auto sys = encoder::buildSystem(mod.schedules[0], bind(mod.schedules[0], {{"K", 100}}), ir::Target::Unspecified,
                                  &err, lim);
  EXPECT_FALSE(sys.has_value());
  EXPECT_NE(err.find("more than 50 instructions"), std::string::npos) << err;
  sys = encoder::buildSystem(mod.schedules[0], {}, ir::Target::Unspecified, &err);  // K unbound
  EXPECT_FALSE(sys.has_value());
  EXPECT_NE(err.find("does not evaluate"), std::string::npos) << err;
}

TEST(System, OpTextIsTheSource) {
  auto mod = compile(kRing);
  auto sys = build(mod.schedules[0], bind(mod.schedules[0], {{"K", 1}}));
  const auto& in = sys.procs[1].program[0];
  EXPECT_EQ(encoder::opText(mod.schedules[0], *in.stmt), "lm.wait(full, iter=k)");
  EXPECT_NE(encoder::instrToString(sys, 1, 0).find("wait full[0] phase 0"), std::string::npos);
}

// The builder does not need the front end: a schedule built by hand.
TEST(System, HandBuiltSchedule) {
  ir::Schedule s;
  s.name = "hand";
  s.target = ir::Target::SM90a;
  s.roles.push_back({"a", {0}, 0, std::nullopt, {}});
  s.roles.push_back({"b", {1}, 0, std::nullopt, {}});
  s.named_barriers.push_back({"nb", {0, 1}, {}});
  ir::Stmt arrive;
  arrive.op.kind = ir::OpKind::BarArrive;
  arrive.op.named_barrier = 0;
  ir::Stmt sync;
  sync.op.kind = ir::OpKind::Sync;
  sync.op.named_barrier = 0;
  s.bodies.push_back({0, {arrive}, {}});
  s.bodies.push_back({1, {sync}, {}});
  auto sys = build(s, {});
  EXPECT_EQ(sys.instrCount(), 3u);
  auto r = encoder::explore(sys);
  EXPECT_EQ(r.outcome, encoder::Outcome::Pass) << cake::testing::rules(r);
}

// A sub-tile sliced in an inner dimension (a column band per warp) is one
// access per contiguous run, not its bounding range: two warps writing
// disjoint column bands of one tile do not race, while overlapping bands,
// and a column band against a row band that crosses it, still do (the
// shape of cudnn-frontend PR #1049's dK staging buffer, written by column
// band and read by row band; corpus/bugs/sync.race/cudnn_fe_dsa_indexer_dk_staging_no_wg_barrier*.cake).
TEST(System, ColumnBandsAreExactRuns) {
  auto text = columnBandsText;
  {  // the accesses: 8 runs of 16 floats, 256 bytes apart
    auto mod = compile(text("16 * w", "16 * w + 16"));
    auto sys = build(mod.schedules[0], bind(mod.schedules[0], {}));
    ASSERT_EQ(sys.procs.size(), 2u);
    const encoder::Instr* st = nullptr;
    for (const auto& in : sys.procs[1].program)
      for (const auto& a : in.accesses)
        if (in.kind == InstrKind::Generic && a.write && sys.spaces[a.space].kind == encoder::MemSpace::Kind::Smem)
          st = &in;
    ASSERT_NE(st, nullptr);
    std::vector<std::pair<int64_t, int64_t>> smem;
    for (const auto& a : st->accesses)
      if (sys.spaces[a.space].kind == encoder::MemSpace::Kind::Smem) smem.push_back({a.lo, a.hi});
    ASSERT_EQ(smem.size(), 8u);
    for (int r = 0; r < 8; ++r) {
      EXPECT_EQ(smem[r].first, r * 256 + 64);
      EXPECT_EQ(smem[r].second, r * 256 + 128);
    }
  }
  // disjoint bands written at once: no race (the bounding ranges overlap)
  EXPECT_FALSE(violatedAt(compile(text("16 * w", "16 * w + 16")).schedules[0], {}));
  // overlapping bands: a race
  EXPECT_TRUE(violatedAt(compile(text("16 * w", "16 * w + 32")).schedules[0], {}));
  // a column band against a row band that crosses it: a race
  auto crossing = cake::testing::replace(
      text("16 * w", "16 * w + 16"), "        lm.sync(bar)\n",
      "        if w == 1:\n            lm.copy(rows, t[0][0:4, :])\n        lm.sync(bar)\n");
  EXPECT_TRUE(violatedAt(compile(crossing).schedules[0], {}));
}

// Bytes that every instruction accesses alike are one atom of the engines'
// Model (encoder/sim_state.cpp atomClasses; docs/z3.md "Atoms no
// instruction tells apart"): two warps' disjoint column bands are 8 runs
// each, but one atom each; the races of overlapping bands and of a row band
// crossing the bands are still found, and named by the bytes the two
// accesses share (one 64-byte run), not by the span of a merged atom. On
// the quack epilogue (corpus/bugs/sync.deadlock/quack_sm100_epi_load_barrier_two_warps_fixed.cake)
// the 256 runs of smem_d's two column halves are two atoms.
TEST(System, AtomsNoInstructionTellsApartAreOne) {
  auto text = columnBandsText;
  auto smemAtoms = [](const encoder::System& sys) {
    encoder::sim::Model m(sys);
    int n = 0;
    for (int x = 0; x < m.atoms; ++x) n += sys.spaces[m.atom_space[x]].kind == encoder::MemSpace::Kind::Smem;
    EXPECT_EQ(n, m.tracked);
    return n;
  };
  {  // 23 elementary atoms: per row band 0, band 1, and (but after the last) the bytes no access touches
    auto mod = compile(text("16 * w", "16 * w + 16"));
    EXPECT_EQ(smemAtoms(build(mod.schedules[0], bind(mod.schedules[0], {}))), 3);
    EXPECT_FALSE(violatedAt(mod.schedules[0], {}));
  }
  // One race's buffer: a single run of 64 bytes (16 floats) of one row.
  auto raceBytes = [&](const std::string& src) {
    auto mod = compile(src);
    auto r = encoder::explore(build(mod.schedules[0], bind(mod.schedules[0], {})));
    const encoder::Violation* v = cake::testing::find(r, "sync.race");
    EXPECT_NE(v, nullptr) << cake::testing::rules(r);
    if (!v) return int64_t{-1};
    int64_t lo = -1, hi = -1;
    const auto at = v->buffer.find(" bytes [");
    EXPECT_NE(at, std::string::npos) << v->buffer;
    if (at == std::string::npos || std::sscanf(v->buffer.c_str() + at, " bytes [%ld, %ld)", &lo, &hi) != 2) return int64_t{-1};
    return hi - lo;
  };
  // overlapping bands: a race on the 8 floats two bands share in a row
  EXPECT_EQ(raceBytes(text("16 * w", "16 * w + 24")), 32);
  // a column band against a row band that crosses it: a race on a band's run
  EXPECT_EQ(raceBytes(cake::testing::replace(
                text("16 * w", "16 * w + 16"), "        lm.sync(bar)\n",
                "        if w == 1:\n            lm.copy(rows, t[0][0:4, :])\n        lm.sync(bar)\n")),
            64);
  {  // the quack epilogue: smem_d's 2 x 128 runs are 2 atoms
    auto mod = compile(cake::testing::corpusText("corpus/bugs/sync.deadlock/quack_sm100_epi_load_barrier_two_warps_fixed.cake"));
    auto sys = build(mod.schedules[0], bind(mod.schedules[0], {{"K", 1}}));
    encoder::sim::Model m(sys);
    int smem_d = 0, runs = 0;
    for (int x = 0; x < m.atoms; ++x) smem_d += m.atom_lo[x] >= 98304 && sys.spaces[m.atom_space[x]].kind == encoder::MemSpace::Kind::Smem;
    for (const auto& p : sys.procs)
      for (const auto& in : p.program)
        for (const auto& a : in.accesses) runs += a.write && a.lo >= 98304 && sys.spaces[a.space].kind == encoder::MemSpace::Kind::Smem;
    EXPECT_EQ(runs, 256);
    EXPECT_EQ(smem_d, 2);
  }
}
