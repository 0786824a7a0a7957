// Soundness review, session 34 (docs/z3.md "Soundness review, session 34
// (helper sound34)"): broken twins of proved schedules, each broken only
// where one proof argument reasons specially, asked to the proof and to
// `cake check`'s model checker. None may be proved; each must be found.
//   * lm.assume facts that restrict the trip count or another parameter:
//     a bug at a boundary value or one residue the facts allow;
//   * two passes over one ring read as tiles of two kinds (softmax2);
//   * the copies that run after a refusal: the block index as a parameter
//     (bidx), loops counted from 0 (tmem3), guards the loops' ranges decide
//     (dg3);
//   * a named barrier whose generation moves with the ring (cgroup2);
//   * the bounded check's starts of a loop whose start reads a parameter
//     (placeStarts): a split-K loop that holds a loop got no start placed,
//     and a ring indexed by the split's k, not k - k0, exited 0 *checked*.
// The twins run as one test per area (the `Slow` ones: each asks the proof
// under `cake check`'s default budget).
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "attack_util.h"
#include "block_rounds.h"
#include "split_k_range.h"
#include "tile_sync.h"
#include "two_stage_ring.h"

using namespace cake;
using namespace cake::testing;
using namespace cake::testing::attacks;

namespace sound34_attacks_test {

// A twin whose witness needs a block index (the split-K CTA, the rounds
// kernel): the binding is given whole.
struct BlockTwin {
  std::string text;
  const char* what;
  encoder::Binding witness;
};

encoder::Binding s34Binding(const ir::Schedule& s, const std::vector<std::pair<std::string, int64_t>>& vals, int dim,
                            int64_t block, int64_t grid) {
  encoder::Binding b;
  for (const auto& [name, v] : vals) setParam(s, b, name, v);
  b.block_idx[dim] = block;
  b.grid_dim[dim] = grid;
  return b;
}

// Each twin broken at its witness, not proved under `cake check`'s budget,
// and found by `cake check`'s model checker.
void s34ExpectCaught(const BlockTwin& t) {
  auto mod = compile(t.text);
  ASSERT_FALSE(mod.schedules.empty()) << t.what;
  const ir::Schedule& s = mod.schedules.at(0);
  encoder::ExploreOptions eo;
  eo.timeout_ms = kNoWallClockMs;
  eo.stop_at_first = true;
  EXPECT_EQ(encoder::explore(build(s, t.witness), eo).outcome, encoder::Outcome::Violation)
      << t.what << ": not broken at its witness";
  auto r = proveDefault(s);
  EXPECT_NE(r.outcome, encoder::Outcome::Proved) << t.what << ": UNSOUND, proved: " << r.engine;
  auto [proved, rules, detail] = modelCheck(s);
  EXPECT_FALSE(proved) << t.what << ": cake check says proved: " << detail;
  EXPECT_FALSE(rules.empty()) << t.what << ": cake check finds nothing: " << detail;
  std::cout << t.what << "\n  proof: " << r.detail << "\n  cake check: " << join(rules) << "\n";
}

// The split-K CTA (split_k_range.h) whose loops hold a loop: the producer
// loads A in two 64-row boxes (an explicit expect_tx for the three loads),
// the consumers issue the MMA as four 16-wide K steps.
std::string splitKInner() {
  std::string t = kSplitKRange;
  t = replace(t, "shape=(128, 64), dtype=lm.bf16, stages=4, swizzle=\"128B\")\n    smem_b",
              "shape=(64, 64), dtype=lm.bf16, stages=8, swizzle=\"128B\")\n    smem_b");
  t = replace(t, "            smem_a.tma_load(A, coords=(0, k * 64), iter=k - k0, barrier=full)\n",
              "            lm.expect_tx(full, 32768, iter=k - k0)\n"
              "            for h in lm.range(0, 2):\n"
              "                smem_a[2 * ((k - k0) % 4) + h].tma_load(A, coords=(64 * h, k * 64), iter=k - k0, "
              "barrier=full)\n");
  return replace(t, "            lm.mma(acc, smem_a[k - k0][m0:m0 + 64, :], smem_b[k - k0], init=False)\n",
                 "            for kk in lm.range(0, 4):\n"
                 "                lm.mma(acc, smem_a[2 * ((k - k0) % 4) + lm.instance()][:, 16 * kk:16 * kk + 16], "
                 "smem_b[k - k0][:, 16 * kk:16 * kk + 16], init=False)\n");
}

// Every `from` in `text` replaced by `to`.
std::string s34ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
    text.replace(at, from.size(), to);
  return text;
}

// Both roles index the ring by the split's k, not k - k0.
std::string ringAtK(const std::string& text) {
  return s34ReplaceAll(s34ReplaceAll(text, "k - k0 - 4", "k - 4"), "k - k0", "k");
}

const std::string kWsBase = corpusText("corpus/gemm/sm90_ws_4stage.cake");
const std::string kKFact = "    lm.assume(K > 0)\n";
const std::string kFullWait = "            lm.wait(full, iter=k)\n";

// The consumers' full wait kept only where `cond` holds.
std::pair<std::string, std::string> waitOnlyIf(const std::string& cond) {
  return {kFullWait, "            if " + cond + ":\n                lm.wait(full, iter=k)\n"};
}
std::pair<std::string, std::string> fact(const std::string& f) {
  return {kKFact, kKFact + "    lm.assume(" + f + ")\n"};
}



}  // namespace sound34_attacks_test

namespace s34 = sound34_attacks_test;

// The bounded check's starts (placeStarts): a ring indexed by the split's
// k where k - k0 was meant ran from k0 = 0 only, and exited 0 *checked*,
// where the k loop holds a loop (finding 1: no start was placed for such a
// loop) or its split is a constant (finding 2: `lm.block_idx(1) * 3`, no
// parameter in the start, and no S + 1 iterations from it). Each broken
// form is met at its witness and found by `cake check`'s model checker;
// the correct forms are clean there.
TEST(Sound34, BoundedCheckPlacesEveryLoopStart) {
  const std::string inner = s34::splitKInner();
  std::string split3 = replace(replace(kSplitKRange, ", kpc: LM.i32)", ")"), "    lm.assume(kpc > 0)\n", "");
  split3 = replace(replace(split3, "k0 = lm.block_idx(1) * kpc", "k0 = lm.block_idx(1) * 3"), "k0 + kpc", "k0 + 3");
  const std::string fixed4 = replace(replace(split3, "lm.block_idx(1) * 3", "lm.block_idx(1) * 4"),
                                     "k1 = min(k0 + 3, k_tiles)", "k1 = k0 + 4");
  struct Form {
    const char* what;
    std::string good, broken;
    std::vector<std::pair<std::string, int64_t>> witness;  // with block 1 of 2
  };
  const Form forms[] = {
      {"a split of kpc k-blocks, the k loop around four MMA K steps",
       inner,
       s34::ringAtK(inner),
       {{"K", 64 * 12}, {"kpc", 4}}},
      {"the consumers only, the k loop around four MMA K steps",
       inner,
       replace(replace(inner, "lm.wait(full, iter=k - k0)", "lm.wait(full, iter=k)"), "lm.arrive(empty, iter=k - k0)",
               "lm.arrive(empty, iter=k)"),
       {{"K", 64 * 12}, {"kpc", 4}}},
      {"a split of 3 k-blocks", split3, s34::ringAtK(split3), {{"K", 64 * 10}}},
      {"a split of 4 k-blocks, 4 iterations", fixed4, s34::ringAtK(fixed4), {}},
  };
  for (const Form& f : forms) {
    auto good = compile(f.good);
    EXPECT_TRUE(modelCheck(good.schedules.at(0)).rules.empty()) << f.what << ": the correct form is clean";
    auto mod = compile(f.broken);
    const ir::Schedule& s = mod.schedules.at(0);
    EXPECT_TRUE(violatedAt(s, s34::s34Binding(s, f.witness, 1, 1, 2))) << f.what;
    auto [proved, rules, detail] = modelCheck(s);
    EXPECT_FALSE(proved) << f.what;
    EXPECT_FALSE(rules.empty()) << f.what << ": cake check finds nothing: " << detail;
  }
}

TEST(Sound34, SlowFactsThatRestrictParametersKeepBugsTheyAllow) {
  using s34::fact;
  using s34::waitOnlyIf;
  const std::string arrive = "            lm.arrive(empty, iter=k)\n";
  attack(
      s34::kWsBase, {{"M", 128}, {"N", 128}, {"K", 320}},
      {
          {{fact("K <= 384"), waitOnlyIf("k != 5")},
           "wait skipped at k = 5, the facts' largest K 384",
           {{"M", 128}, {"N", 128}, {"K", 384}}},
          {{fact("K % 128 == 0"), waitOnlyIf("k + 1 < k_tiles or k % 4 != 1")},
           "last wait skipped at k_tiles % 4 == 2, facts k_tiles even",
           {{"M", 128}, {"N", 128}, {"K", 128}}},
          {{fact("lm.cdiv(K, 64) % 4 != 3"), waitOnlyIf("k + 1 < k_tiles or k % 4 != 1")},
           "last wait skipped at k_tiles % 4 == 2, facts exclude % 4 == 3",
           {{"M", 128}, {"N", 128}, {"K", 128}}},
          {{fact("K >= 448"), waitOnlyIf("k_tiles != 7 or k != 6")},
           "only at the least K the facts allow",
           {{"M", 128}, {"N", 128}, {"K", 448}}},
          {{fact("M <= 256"), waitOnlyIf("M != 256 or k != 1")},
           "only at the facts' largest M",
           {{"M", 256}, {"N", 128}, {"K", 128}}},
          {{fact("M % 64 == 0"), waitOnlyIf("M % 128 != 64 or k != 1")},
           "only at M % 128 == 64, facts M % 64 == 0",
           {{"M", 64}, {"N", 128}, {"K", 128}}},
          {{waitOnlyIf("k_tiles != 41 or k != 3")}, "only at k_tiles == 41", {{"M", 128}, {"N", 128}, {"K", 64 * 41}}},
          {{fact("K % 128 == 64"), waitOnlyIf("k_tiles != 41 or k != 3")},
           "only at k_tiles == 41, facts k_tiles odd",
           {{"M", 128}, {"N", 128}, {"K", 64 * 41}}},
          {{fact("lm.cdiv(K, 64) % 7 != 4"), waitOnlyIf("k_tiles % 7 != 3 or k != 2")},
           "only at k_tiles % 7 == 3, facts exclude % 7 == 4",
           {{"M", 128}, {"N", 128}, {"K", 192}}},
          {{{arrive, "            if k_tiles % 6 != 5 or k != 0:\n                lm.arrive(empty, iter=k)\n"}},
           "first release skipped at k_tiles % 6 == 5",
           {{"M", 128}, {"N", 128}, {"K", 320}}},
          {{fact("K <= 64 * 40"), waitOnlyIf("k != 37")},
           "wait skipped at k = 37, facts k_tiles <= 40",
           {{"M", 128}, {"N", 128}, {"K", 64 * 38}}},
          {{fact("M % 128 == 0"), fact("M <= 512"), waitOnlyIf("M != 384 or k != 1")},
           "only at M == 384, facts M in {128, 256, 384, 512} (proved value by value)",
           {{"M", 384}, {"N", 128}, {"K", 128}}},
          {{fact("M % 64 == 0"), waitOnlyIf("M != 64 * k_tiles or k != 2")},
           "only at M == 64 * k_tiles",
           {{"M", 192}, {"N", 128}, {"K", 192}}},
      });
}

TEST(Sound34, SlowPassesReadAsTilesKeepTheirBugs) {
  const std::string base = corpusText("corpus/normalization/sm90_softmax_two_pass_ring.cake");
  const std::string fence2 =
      "            lm.copy(x, smem_x[n + k])\n            lm.fence_proxy()\n            lm.arrive(empty, iter=n + k)\n";
  const std::string fence1 =
      "            lm.copy(x, smem_x[k])\n            lm.fence_proxy()\n            lm.arrive(empty, iter=k)\n";
  const std::string lapped = "3 * lm.cdiv(n, 3) + k";
  attack(
      base, {{"V", 385}},
      {
          {{{fence2, "            lm.copy(x, smem_x[n + k])\n            lm.arrive(empty, iter=n + k)\n"}},
           "pass 2 without its fence",
           {{"V", 385}}},
          {{{fence1, "            lm.copy(x, smem_x[k])\n            lm.arrive(empty, iter=k)\n"},
            {fence2, "            lm.copy(x, smem_x[n + k])\n            lm.arrive(empty, iter=n + k)\n"}},
           "both passes without their fence",
           {{"V", 385}}},
          {{{"            lm.fence_proxy()\n            lm.arrive(empty, iter=k)\n",
             "            lm.fence_proxy()\n            if k + 1 < n:\n                lm.arrive(empty, iter=k)\n"}},
           "pass 1's last release skipped",
           {{"V", 385}}},
          {{{"            lm.wait(empty, iter=n + k - 3)\n", "            lm.wait(empty, iter=k - 3)\n"}},
           "the producer's pass 2 waits for pass 1's releases",
           {{"V", 385}}},
          {{{"            lm.wait(empty, iter=n + k - 3)\n", "            lm.wait(empty, iter=" + lapped + " - 3)\n"},
            {"iter=n + k, barrier=full)", "iter=" + lapped + ", barrier=full)"},
            {"            lm.wait(full, iter=n + k)\n", "            lm.wait(full, iter=" + lapped + ")\n"},
            {"smem_x[n + k]", "smem_x[" + lapped + "]"},
            {"lm.arrive(empty, iter=n + k)", "lm.arrive(empty, iter=" + lapped + ")"}},
           "pass 2 from the next lap boundary (broken where n % 3 != 0)",
           {{"V", 512}}},
          {{{"            lm.wait(full, iter=k)\n            lm.copy(x, smem_x[k])\n",
             "            lm.copy(x, smem_x[k])\n            lm.wait(full, iter=k)\n"},
            {"            lm.wait(full, iter=n + k)\n            lm.copy(x, smem_x[n + k])\n",
             "            lm.copy(x, smem_x[n + k])\n            lm.wait(full, iter=n + k)\n"}},
           "both passes read before their wait",
           {{"V", 385}}},
          // between the passes the consumer reads pass 1's last slot again,
          // after its release: the producer's pass 2 refills it at k = 2
          {{{"        lm.unary(l, l, op=\"recip\")\n",
             "        lm.unary(l, l, op=\"recip\")\n        lm.copy(x, smem_x[n - 1])\n"}},
           "the part between the passes reads pass 1's last slot after its release",
           {{"V", 385}}},
      });
}

TEST(Sound34, SlowCopiesAfterARefusalKeepTheirBugs) {
  // loops counted from 0 (tmem3): the split-K CTA
  const std::string split = kSplitKRange;
  auto splitAt = [](const std::string& text, int64_t k, int64_t kpc, int64_t blk, int64_t grid) {
    auto mod = compile(text);
    return s34::s34Binding(mod.schedules.at(0), {{"K", k}, {"kpc", kpc}}, 1, blk, grid);
  };
  const std::string init_at_k0 =
      replace(replace(split, "        lm.fill(acc, 0.0)\n", ""), "init=False)", "init=(k == k0))");
  s34::s34ExpectCaught({init_at_k0, "tmem3: init=(k == k0), no fill: an empty split copies an unwritten accumulator",
                        splitAt(init_at_k0, 64, 1, 8, 9)});
  const std::string ring_k4 =
      replace(s34::ringAtK(split), "    lm.assume(kpc > 0)\n", "    lm.assume(kpc > 0)\n    lm.assume(kpc % 4 == 0)\n");
  s34::s34ExpectCaught({ring_k4, "tmem3: the ring at the split's k, facts kpc % 4 == 0 (broken at odd laps)",
                        splitAt(ring_k4, 64 * 12, 4, 1, 2)});
  const std::string first_wait =
      replace(split, "            lm.wait(full, iter=k - k0)\n",
              "            if k > k0 or k0 == 0:\n                lm.wait(full, iter=k - k0)\n");
  s34::s34ExpectCaught({first_wait, "tmem3: the first wait skipped where the split starts past 0",
                        splitAt(first_wait, 64 * 4, 1, 1, 2)});
  // the block index as a parameter (bidx): the rounds kernel's first sync
  // skipped at one residue or range of the block index
  auto roundsAt = [](const std::string& text, int64_t blk, int64_t grid) {
    auto mod = compile(text);
    return s34::s34Binding(mod.schedules.at(0), {}, 0, blk, grid);
  };
  for (const auto& [guard, what, blk] :
       {std::tuple<const char*, const char*, int64_t>{
            "if b % 3 != 2 or c > 0:", "bidx: round 0's sync skipped at blocks % 3 == 2", 2},
        {"if (b + c) % 5 != 4:", "bidx: the sync skipped where b + c == 4 mod 5", 4},
        {"if c != 6 or b < 9:", "bidx: round 6's sync skipped from block 9 on", 9}}) {
    const std::string text = blockRounds(std::string(guard) + "\n                lm.sync(block)");
    s34::s34ExpectCaught({text, what, roundsAt(text, blk, blk + 1)});
  }
  const std::string release_late =
      replace(split, "            lm.wait(empty, iter=k - k0 - 4)\n", "            lm.wait(empty, iter=k - 4)\n");
  s34::s34ExpectCaught({release_late, "tmem3: the producer's wait at the split's k, its loads at k - k0",
                        splitAt(release_late, 64 * 12, 4, 1, 2)});
}

// Guards the loops' ranges decide (dg3): DeepGEMM's tail stages.
TEST(Sound34, SlowGuardsTheLoopsRangesDecideKeepTheirBugs) {
  const std::string consumer_guard = "if 2 * k + s < k_blocks:\n                        lm.mma";
  attack(
      deepGemmTailStages(), {{"M", 128}, {"K", 256}},
      {
          {{{"lm.assume(K % 128 == 0)", "lm.assume(K % 64 == 0)"},
            {consumer_guard, "if 2 * k + s < 2 * k_pairs:\n                        lm.mma"}},
           "the consumer's guard over the pairs (taken by the ranges), K odd in blocks: a stage never loaded is read",
           {{"M", 64}, {"K", 192}}},
          {{{"                        lm.arrive(empty, iter=it)\n                        lm.binary",
             "                        if (2 * k + s) % 4 != 3 or k_pairs < 2:\n"
             "                            lm.arrive(empty, iter=it)\n                        lm.binary"}},
           "the consumer's release skipped at stages % 4 == 3 once a tile has 2 pairs",
           {{"M", 64}, {"K", 512}}},
      });
}

TEST(Sound34, SlowNamedBarrierMovingWithTheRingKeepsItsBugs) {
  attack(
      kTileSyncTwoWarps, {{"n_tiles", 2}, {"kb", 2}},
      {
          {{{"            lm.sync(cta)\n            lm.copy(ids[w], v)\n",
             "            if t == 0 or kb % 2 == 0:\n                lm.sync(cta)\n            lm.copy(ids[w], v)\n"}},
           "the table's sync skipped from tile 1 on where kb is odd",
           {{"n_tiles", 2}, {"kb", 1}}},
          {{{"                lm.copy(xs[w], v)\n                lm.sync(cta)\n",
             "                lm.copy(xs[w], v)\n                if k + 1 < kb or t + 1 == n_tiles:\n"
             "                    lm.sync(cta)\n"}},
           "the exchange's first sync skipped in the last K iteration but in the last tile",
           {{"n_tiles", 2}, {"kb", 1}}},
          {{{"                lm.sync(cta)\n                lm.copy(v, xs[1 - w])\n",
             "                if (t * kb + k) % 3 != 2:\n                    lm.sync(cta)\n"
             "                lm.copy(v, xs[1 - w])\n"}},
           "the exchange's first sync skipped at ring index % 3 == 2",
           {{"n_tiles", 3}, {"kb", 1}}},
      });
}
