// The FP8 promotion interval in a persistent kernel (helper fp8_51, session
// 51; docs/z3.md "Register hazards decided by true runs"): an `init=` and a
// guard on `k % 4` around register ops inside a tile loop whose ring index
// runs on across tiles. The persistent proof's grid decides register
// hazards walking every tile from ring index 0, which is not a run's walk
// when they read `k % 4` (through the ring start in a residue case); the
// true runs decide them instead (trip_proof.cpp regsDecidedByTrueRuns, over
// the builder's register states, BuildSemantics::regs_digests).
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>

#include "encoder/system_hook.h"
#include "encoder/trip_proof.h"
#include "test_util.h"

namespace fp8_interval51_test {

using cake::testing::bind;
using cake::testing::compile;
using cake::testing::exploreToFirst;
using cake::testing::kNoWallClockMs;
using cake::testing::kQueryRlimit;
namespace encoder = cake::encoder;
namespace ir = cake::ir;

// corpus/gemm/sm90_fp8_promotion_interval_persistent.cake (CUTLASS's
// GmmaFP8Accumulation, promotion interval 4, in the cooperative kernel's
// tile loop), with 2 stages and 64-wide K blocks to keep the proof short.
const char* kInterval = R"(@cake.schedule(target="sm_90a")
def fp8_interval(lm, A: LM.tma2d, B: LM.tma2d, C: LM.tma2d, M: LM.i32, K: LM.i32):
    lm.assume(M > 0)
    lm.assume(K > 0)
    pool   = lm.smem(98304)
    smem_a = pool.view(offset=0,     shape=(128, 64), dtype=lm.e4m3, stages=2, swizzle="64B")
    smem_b = pool.view(offset=16384, shape=(128, 64), dtype=lm.e4m3, stages=2, swizzle="64B")
    smem_c = pool.view(offset=32768, shape=(64, 128), dtype=lm.bf16, stages=4)
    tmp    = lm.regs(shape=(64, 128), dtype=lm.f32)
    acc    = lm.regs(shape=(64, 128), dtype=lm.f32)

    producer  = lm.role(warps=[0, 1, 2, 3], regs=40)
    consumers = lm.role(warps=[4, 5, 6, 7, 8, 9, 10, 11], group=4, regs=232)

    pipe  = lm.pipeline(stages=2)
    full  = lm.barrier(prod=[producer], cons=[consumers], init_count=1, pipeline=pipe)
    empty = lm.barrier(prod=[consumers], cons=[producer], init_count=2, pipeline=pipe)

    k_tiles = lm.cdiv(K, 64)
    tiles   = lm.cdiv(M, 128)

    with producer:
        for t in lm.range(0, tiles):
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(empty, iter=it - 2)
                smem_a.tma_load(A, coords=(t * 128, k * 64), iter=it, barrier=full)
                smem_b.tma_load(B, coords=(0, k * 64), iter=it, barrier=full)

    with consumers:
        m0 = 64 * lm.instance()
        for t in lm.range(0, tiles):
            lm.fill(acc, 0.0)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(tmp, smem_a[it][m0:m0 + 64, :], smem_b[it], init=(k % 4 == 0))
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
                if (k + 1) % 4 == 0:
                    lm.binary(acc, acc, tmp, op="add")
            if k_tiles % 4 != 0:
                lm.binary(acc, acc, tmp, op="add")
            s = 2 * lm.instance() + t % 2
            lm.tma_store_wait(pending=1)
            lm.copy(smem_c[s], acc)
            lm.fence_proxy()
            smem_c.tma_store(C, coords=(t * 128 + m0, 0), stage=s)
            lm.tma_store_commit()
        lm.tma_store_wait(pending=0)
)";

std::string edited(std::string t, const std::string& from, const std::string& to) {
  const size_t at = t.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) t.replace(at, from.size(), to);
  return t;
}

encoder::ModelCheckResult proveAt64(const ir::Schedule& s) {
  encoder::Binding b;
  for (int p = 0; p < static_cast<int>(s.params.size()); ++p) b.params[p] = 64;
  encoder::TripProofOptions o;
  o.timeout_ms = kNoWallClockMs;
  o.rlimit = kQueryRlimit;
  return encoder::proveEveryTripCount(s, s.target, {b}, o);
}

encoder::Outcome exploredAt(const ir::Schedule& s, int64_t tiles, int64_t k_blocks) {
  return exploreToFirst(s, bind(s, {{"M", 128 * tiles}, {"K", 64 * k_blocks}})).outcome;
}

TEST(Fp8Interval51, PromotionIntervalInAPersistentKernelIsProved) {
  auto mod = compile(kInterval);
  const ir::Schedule& s = mod.schedules.at(0);
  for (int64_t tiles : {1, 2, 3})
    for (int64_t k : {1, 3, 4, 5}) EXPECT_EQ(exploredAt(s, tiles, k), encoder::Outcome::Pass) << tiles << "x" << k;
  const encoder::ModelCheckResult r = proveAt64(s);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  EXPECT_NE(r.engine.find("for each residue of the K loop's trip count"), std::string::npos) << r.engine;
  EXPECT_NE(r.engine.find("register hazards decided by true runs"), std::string::npos) << r.engine;
  std::cout << "[ " << r.engine << " ]\n";
}

// Broken forms, each found by the explicit engine at `tiles` x `k_blocks`
// and none proved.
struct Fp8Bug {
  const char *from, *to, *what;
  int64_t tiles, k_blocks;
};

TEST(Fp8Interval51, BrokenPromotionsAreNotProved) {
  const Fp8Bug bugs[] = {
      {"                lm.mma_wait(pending=0)\n                lm.arrive(empty, iter=it)\n"
       "                if (k + 1) % 4 == 0:\n                    lm.binary(acc, acc, tmp, op=\"add\")\n",
       "                if (k + 1) % 4 == 0:\n                    lm.binary(acc, acc, tmp, op=\"add\")\n"
       "                lm.mma_wait(pending=0)\n                lm.arrive(empty, iter=it)\n",
       "the promotion reads the temporary before the wgmma's wait (sync.race)", 1, 4},
      {"if (k + 1) % 4 == 0:", "if k % 4 == 0:",
       "the promotion a k-block early: three products cleared unread (data.discarded-product)", 1, 5},
      {"init=(k % 4 == 0)", "init=(k % 4 == 1)",
       "the interval restarted a k-block late: the first wgmma adds to nothing written (data.uninitialized)", 1, 1},
      {"            if k_tiles % 4 != 0:\n                lm.binary(acc, acc, tmp, op=\"add\")\n", "",
       "the residue promotion dropped: the next tile clears it (data.discarded-product)", 2, 1},
      {"init=(k % 4 == 0)", "init=(k % 4 == 0 or k == 1)",
       "a second restart at k = 1 (not a residue of k: refused, data.discarded-product)", 1, 2},
      {"lm.wait(empty, iter=it - 2)", "lm.wait(empty, iter=it - 3)",
       "the producer's wait a lap early: a stage refilled under the wgmma (sync.race)", 1, 4},
  };
  for (const Fp8Bug& b : bugs) {
    auto mod = compile(edited(kInterval, b.from, b.to));
    const ir::Schedule& x = mod.schedules.at(0);
    EXPECT_EQ(exploredAt(x, b.tiles, b.k_blocks), encoder::Outcome::Violation) << b.what;
    const encoder::ModelCheckResult r = proveAt64(x);
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << b.what << ": " << r.engine;
    std::cout << b.what << ": " << r.detail.substr(0, 400) << "\n";
  }
}

// Tile t % 4 == 2 leaves its residue in the temporary and tile t % 4 == 3
// collects it first: only a run whose last tile is t % 4 == 2 (a tile
// count 3 modulo 4, k_tiles % 4 != 0) leaves the product unread, at its
// exit (data.discarded-product). The builder judges an exit in a plain
// build only, and the true runs are proof builds: they judged no exit, and
// this was proved (review51); now each tile count's exit is read off the
// true run (System::regs_lost_at_exit).
TEST(Fp8Interval51, ResidueLeftUnreadOnlyAtTheExitIsNotProved) {
  std::string text = edited(kInterval,
                            "            if k_tiles % 4 != 0:\n                lm.binary(acc, acc, tmp, op=\"add\")\n",
                            "            if k_tiles % 4 != 0:\n                if t % 4 != 2:\n"
                            "                    lm.binary(acc, acc, tmp, op=\"add\")\n");
  text = edited(text, "            lm.fill(acc, 0.0)\n",
                "            lm.fill(acc, 0.0)\n            if t % 4 == 3:\n"
                "                lm.binary(acc, acc, tmp, op=\"add\")\n");
  auto mod = compile(text);
  const ir::Schedule& x = mod.schedules.at(0);
  EXPECT_EQ(exploredAt(x, 3, 1), encoder::Outcome::Violation);
  EXPECT_EQ(exploredAt(x, 4, 1), encoder::Outcome::Pass);
  const encoder::ModelCheckResult r = proveAt64(x);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << "UNSOUND: " << r.engine;
  EXPECT_NE(r.detail.find("exits with an MMA product unread after 3 tiles"), std::string::npos) << r.detail;
}

// The register states a build records (BuildSemantics::regs_digests): one
// per instruction, the same number exactly for the same state. In one tile
// of 13 K blocks the consumer's state at a K iteration's start repeats
// with the interval from k = 5 on: before, nothing was written (k = 0),
// the temporary was not yet promoted (moved out, k = 1..3), or promoted but
// not yet restarted after it (refilled, k = 4). Within an interval the
// temporary holds an unread product at k % 4 != 0.
TEST(Fp8Interval51, RegisterStatesRepeatWithTheInterval) {
  auto mod = compile(kInterval);
  const ir::Schedule& s = mod.schedules.at(0);
  const encoder::EvalHook none = [](const ir::Expr&, const ir::EvalEnv&) -> std::optional<int64_t> {
    return std::nullopt;
  };
  encoder::BuildSemantics sem;
  sem.regs_digests = true;
  std::string err;
  const auto sys = encoder::buildSystemHooked(s, bind(s, {{"M", 128}, {"K", 64 * 13}}), s.target, none, &err, sem);
  ASSERT_TRUE(sys) << err;
  ASSERT_EQ(sys->regs_digests.size(), sys->procs.size());
  int checked = 0;
  for (size_t p = 0; p < sys->procs.size(); ++p) {
    const auto& prog = sys->procs[p].program;
    ASSERT_EQ(sys->regs_digests[p].size(), prog.size()) << sys->procs[p].name;
    std::vector<int64_t> at(13, -1);  // the state at each K iteration's first instruction
    for (size_t pc = 0; pc < prog.size(); ++pc) {
      const auto& loops = prog[pc].loops;  // (tile, k) inside the K loop
      if (loops.size() == 2 && at.at(loops[1].second) < 0) at[loops[1].second] = sys->regs_digests[p][pc];
    }
    if (std::count(at.begin(), at.end(), at[0]) == 13) continue;  // the producer: no fragment
    ++checked;
    for (int k = 5; k + 4 < 13; ++k) EXPECT_EQ(at[k], at[k + 4]) << sys->procs[p].name << " k=" << k;
    EXPECT_NE(at[0], at[4]) << sys->procs[p].name;
    EXPECT_NE(at[1], at[5]) << sys->procs[p].name;
    EXPECT_NE(at[4], at[8]) << sys->procs[p].name;
    EXPECT_NE(at[4], at[5]) << sys->procs[p].name;
    EXPECT_EQ(at[5], at[6]) << sys->procs[p].name;  // an unread product either way
  }
  EXPECT_EQ(checked, 2);  // the two consumer warpgroups
  // without the flag nothing is recorded
  const auto plain = encoder::buildSystemHooked(s, bind(s, {{"M", 128}, {"K", 64}}), s.target, none, &err);
  ASSERT_TRUE(plain) << err;
  EXPECT_TRUE(plain->regs_digests.empty());
}

}  // namespace fp8_interval51_test
