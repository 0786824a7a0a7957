// Helper align46's attack on counted mbarrier phases through the ring
// position (encoder/trip_proof.cpp alignCountersToTheRing,
// checkFirstCopiesKeepCounters; docs/z3.md "Attacks on counted waits of a
// tile's first or last K iteration"). A counted wait (stage= without
// phase=: its phase is the process's count of earlier waits on the slot)
// that runs in one K iteration per tile grows by one phase per tile, not
// per ring index; the alignment sets counted phases to tile 0's at the same
// ring position. These pin that such a wait is never proved wrongly: its
// broken forms (one phase early or late, a release skipped on a tile, an
// arrival count off) are found by `cake check` and not proved, and the
// correct forms are either proved (humming's leader, whose wait is left out
// in tile 0; since session 47 the token barrier counted in the first K
// iteration only, helper tlx47) or refused by the proof (unknown), never
// reported.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "test_util.h"

using namespace cake;

namespace align46_test {

using cake::testing::replace;
namespace at = cake::testing::attacks;
using cake::testing::replace;

// humming's multicast GEMM (corpus twin fixed): the leader's counted wait
// `lm.wait(epi_done, stage=0)` in the first K iteration of every tile but
// the first (phase t - 1), the MMA role's counted release once per tile
// after its epilogue (phase t). Proved.
const std::string kHumming = "corpus/bugs/sync.race/humming_multicast_peer_epilogue_reuse_fixed.cake";
const std::string kLeaderWait = "                if rank == 0 and t > 0 and k == 0:\n                    lm.wait(epi_done, stage=0)\n";
const std::string kRelease = "            lm.arrive(epi_done, stage=0, cta=0)\n";
const std::string kEpiDone = "    epi_done = lm.barrier(count=1, prod=[math], cons=[load], init_count=2)\n";

std::string leaderWaitWhen(const std::string& guard) {
  return "                if " + guard + ":\n                    lm.wait(epi_done, stage=0)\n";
}

// The leader's wait and the MMA role's release of a token barrier `tok`,
// both counted and in the first K iteration of every tile (tile 0 too):
// the MMA role releases it once before its tile loop, then in each tile's
// first K iteration after the tile's first data came; the leader waits for
// it before each tile's loads. Correct: the wait of tile t (phase t) needs
// the release of tile t - 1, which needs only loads before the wait.
const std::string kTokWait = "                if rank == 0 and k == 0:\n                    lm.wait(tok, stage=0)\n";
const std::string kTokRelease = "                if rank == 0 and k == 0:\n                    lm.arrive(tok, stage=0)\n";
const std::string kTokPre = "        if rank == 0:\n            lm.arrive(tok, stage=0)\n";
const std::string kMathStart = "    with math:\n        lm.cluster_sync()\n";
const std::string kLoadRing = "                lm.wait(empty, iter=it - 2)\n                lm.expect_tx(full, 24576, iter=it)\n";
const std::string kMathRelease = "                lm.arrive(empty, iter=it, cta=1)\n";

std::string tokenSchedule() {
  std::string s = cake::testing::corpusText(kHumming);
  s = replace(s, kEpiDone, kEpiDone + "    tok      = lm.barrier(count=1, prod=[math], cons=[load], init_count=1)\n");
  s = replace(s, kLoadRing, kTokWait + kLoadRing);
  s = replace(s, kMathStart, kMathStart + kTokPre);
  return replace(s, kMathRelease, kMathRelease + kTokRelease);
}

std::string tokWhen(const std::string& line, const std::string& guard) {
  return replace(line, "if rank == 0 and k == 0:", "if " + guard + ":");
}

// Broken at `witness` (M, K), found by `cake check` and not proved.
void expectBrokenFoundNotProved(const std::string& text, std::initializer_list<std::pair<std::string, int64_t>> witness,
                                const char* what) {
  auto mod = cake::testing::compile(text);
  ASSERT_FALSE(mod.schedules.empty()) << what;
  const ir::Schedule& s = mod.schedules.at(0);
  EXPECT_TRUE(cake::testing::violatedAt(s, witness)) << what << ": not broken at its witness";
  auto [proved, rules, detail] = at::modelCheck(s);
  EXPECT_FALSE(proved) << what << ": cake check says proved: " << detail;
  EXPECT_FALSE(rules.empty()) << what << ": cake check finds nothing: " << detail;
}

}  // namespace align46_test

namespace a46 = align46_test;
namespace at = cake::testing::attacks;
using cake::testing::replace;

// The leader's first-iteration counted wait one phase late or early, the
// MMA role's counted release skipped on a tile, the barrier's arrival count
// off, and the wait moved to the tile's last K iteration: each broken at
// its witness, found, not proved (the base is proved: at::attack).
TEST(Align46, SlowFirstIterationCountedWaitMutantsAreFoundNotProved) {
  const std::vector<std::pair<std::string, int64_t>> two_tiles = {{"M", 129}, {"K", 1}};
  const std::vector<std::pair<std::string, int64_t>> one_tile_two_k = {{"M", 65}, {"K", 65}};
  at::attack(cake::testing::corpusText(a46::kHumming), {{"M", 129}, {"K", 65}},
             {
                 {{{a46::kLeaderWait, a46::kLeaderWait + a46::leaderWaitWhen("rank == 0 and t == 1 and k == 0")}},
                  "a second counted wait in tile 1: one phase late from there (a hang)",
                  {{"M", 65}, {"K", 1}}},
                 {{{a46::kLeaderWait, a46::leaderWaitWhen("rank == 0 and t > 0 and t != 1 and k == 0")}},
                  "tile 1 skips its counted wait: one phase early from tile 2",
                  {{"M", 193}, {"K", 1}}},
                 {{{a46::kLeaderWait, a46::leaderWaitWhen("rank == 0 and t > 1 and k == 0")}},
                  "the counted wait two tiles behind",
                  two_tiles},
                 {{{a46::kRelease, "            if t != 1:\n    " + a46::kRelease}},
                  "the counted release skipped on tile 1",
                  {{"M", 193}, {"K", 1}}},
                 {{{a46::kRelease, "            if rank == 0:\n    " + a46::kRelease}},
                  "one CTA of two releases (the arrival count off)",
                  two_tiles},
                 {{{"init_count=2)\n\n    k_tiles", "init_count=1)\n\n    k_tiles"}},
                  "the barrier expects one arrival of the two",
                  two_tiles},
                 {{{a46::kLeaderWait, a46::leaderWaitWhen("rank == 0 and t > 0 and k == k_tiles - 1")}},
                  "the counted wait in the tile's last K iteration (after its first multicast)",
                  one_tile_two_k},
             });
}

// The same epilogue and counted release moved into the MMA role's last K
// iteration (`if k == k_tiles - 1:`): both sides of epi_done in one K
// iteration per tile. The correct form is refused by the proof (the guard
// reads the K trip count), never reported; its broken forms are found.
TEST(Align46, SlowLastIterationCountedReleaseIsFoundOrRefused) {
  const std::string text = cake::testing::corpusText(a46::kHumming);
  const std::string epilogue =
      "            # epilogue: C staged over the A ring (a union)\n            lm.copy(smem_c[0], acc)\n"
      "            lm.fence_proxy()\n            smem_c.tma_store(C, coords=(m_blk, rank * 128), stage=0)\n"
      "            lm.tma_store_commit()\n            lm.tma_store_wait(pending=0)\n" + a46::kRelease;
  const std::string in_last =
      "                if k == k_tiles - 1:\n                    lm.copy(smem_c[0], acc)\n"
      "                    lm.fence_proxy()\n"
      "                    smem_c.tma_store(C, coords=(m_blk, rank * 128), stage=0)\n"
      "                    lm.tma_store_commit()\n                    lm.tma_store_wait(pending=0)\n"
      "                    lm.arrive(epi_done, stage=0, cta=0)\n";
  const std::string last = replace(replace(text, epilogue, std::string()), a46::kMathRelease, a46::kMathRelease + in_last);
  at::expectNoSyncFinding(last, "the release in the last K iteration");
  EXPECT_NE(at::proveDefault(cake::testing::compile(last).schedules.at(0)).outcome, encoder::Outcome::Proved);
  const std::string release_last = "                    lm.arrive(epi_done, stage=0, cta=0)\n";
  a46::expectBrokenFoundNotProved(
      replace(last, release_last, "                    if t != 1:\n    " + release_last), {{"M", 193}, {"K", 1}},
      "the last-iteration release skipped on tile 1");
  a46::expectBrokenFoundNotProved(
      replace(last, a46::kLeaderWait, a46::leaderWaitWhen("rank == 0 and t > 0 and t != 1 and k == 0")),
      {{"M", 193}, {"K", 1}}, "tile 1 skips its wait: one phase early from tile 2");
}

// Both sides of `tok` counted, in the first K iteration of every tile:
// in a run the wait of tile t means phase t, while tile 0's at the same
// ring position means phase 0, so the alignment does not hold at a tile's
// ring start. Until session 47 the proof refused it
// (checkFirstCopiesKeepCounters); now `tok`, counted in the first K
// iteration only, keeps the builder's phases (one more per tile, as in a
// run: alignCountersToTheRing's first_only, helper tlx47) and the correct
// form is proved; each broken form is found and not proved.
TEST(Align46, SlowCountedTokenOfEveryTilesFirstIterationIsProvedAndItsBugsFound) {
  const std::string tok = a46::tokenSchedule();
  at::expectNoSyncFinding(tok, "the token schedule");
  const auto r = at::proveDefault(cake::testing::compile(tok).schedules.at(0));
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
  const std::string release_t1 = a46::tokWhen(a46::kTokRelease, "rank == 0 and k == 0 and t != 1");
  a46::expectBrokenFoundNotProved(replace(tok, a46::kTokRelease, release_t1), {{"M", 129}, {"K", 1}},
                                  "the token's release skipped on tile 1 (a hang)");
  a46::expectBrokenFoundNotProved(replace(tok, a46::kTokWait, a46::tokWhen(a46::kTokWait, "rank == 0 and k == 0 and t != 1")),
                                  {{"M", 129}, {"K", 1}}, "tile 1 skips its counted wait: a phase lost");
  a46::expectBrokenFoundNotProved(replace(tok, a46::kTokPre, a46::kTokPre + "            lm.arrive(tok, stage=0)\n"),
                                  {{"M", 1}, {"K", 1}}, "released twice before the tile loop: one phase early");
  a46::expectBrokenFoundNotProved(replace(tok, a46::kTokRelease, a46::kTokRelease + a46::kTokRelease),
                                  {{"M", 65}, {"K", 1}}, "two releases per tile on a one-arrival barrier");
  a46::expectBrokenFoundNotProved(replace(tok, a46::kTokWait, a46::tokWhen(a46::kTokWait, "rank == 0 and k == k_tiles - 1")),
                                  {{"M", 1}, {"K", 65}}, "the wait in the last K iteration, the release in the first");
}

// The unit form of the test above, the proof alone (each `cake check` of
// the Slow tests takes 1-2 s): the token schedule is proved (until session
// 47 refused at the ring start: "adds or leaves out a counted mbarrier
// operation"); its broken forms are the Slow test's.
TEST(Align46, CountedTokenOfEveryTilesFirstIterationIsProvedByTheProof) {
  const auto r = at::proveDefault(cake::testing::compile(a46::tokenSchedule()).schedules.at(0));
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << r.detail;
}

// Defects past the tile counts a plain bounded check would try (tile 40,
// every 50th tile): found (the covering values follow the guards'
// constants), not proved.
TEST(Align46, SlowCountedWaitDefectsOnFarTilesAreFoundNotProved) {
  const std::string text = cake::testing::corpusText(a46::kHumming);
  a46::expectBrokenFoundNotProved(replace(text, a46::kRelease, "            if t != 40:\n    " + a46::kRelease),
                                  {{"M", 2625}, {"K", 1}}, "the release skipped on tile 40");
  a46::expectBrokenFoundNotProved(
      replace(text, a46::kLeaderWait, a46::leaderWaitWhen("rank == 0 and t > 0 and t % 50 != 49 and k == 0")),
      {{"M", 3137}, {"K", 1}}, "every 50th tile skips its wait");
  const std::string tok = a46::tokenSchedule();
  a46::expectBrokenFoundNotProved(
      replace(tok, a46::kTokRelease, a46::tokWhen(a46::kTokRelease, "rank == 0 and k == 0 and t != 40")),
      {{"M", 2625}, {"K", 1}}, "the token's release skipped on tile 40");
}
