// Left-out MMA reads near a tile's end (helper left49, session 49, issue
// 11; docs/z3.md "Left-out MMA reads near a tile's end"): a copy of a
// tile's last K iteration may leave out an MMA that reads views outside
// the K iterations (the next block's S issue of a persistent FMHA: Q K^T
// from `smem_q[0]` and `smem_k[it + 1]`), where no later read means
// otherwise without it (leftOutReadsChangeNoRead): a view the part before
// the K loop reads at the tile's ring start (ringStartReadsOncePerRun), or
// a read that is no return. The reduced reproducer: the store-warp FMHA's
// loader and MMA warp with a consumer warpgroup that reads S from TMEM and
// frees it. Proved (before: unknown at the probe); broken twins are found
// by `cake check` and not proved.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "s_ahead_kernel.h"
#include "test_util.h"

namespace trip_left_read_test {

using cake::testing::s_ahead::kSAhead;

// The one-ahead S issue, and the tile's first one before the K loop.
const char* kNextS =
    "                    lm.wait(k_full, iter=it + 1)\n"
    "                    lm.mma(tmem_s, smem_q[0], smem_k[it + 1], init=True)\n"
    "                    lm.mma_commit(barrier=k_empty, iter=it + 1)\n";
const char* kFirstS =
    "            lm.wait(q_full, iter=t)\n"
    "            lm.wait(k_full, iter=base)\n"
    "            lm.mma(tmem_s, smem_q[0], smem_k[base], init=True)\n"
    "            lm.mma_commit(barrier=k_empty, iter=base)\n";
const char* kQRelease = "            lm.mma_commit(barrier=q_empty, iter=t)\n";

// The proof's answer for `text` (its first schedule).
cake::encoder::ModelCheckResult proof(const std::string& text) {
  auto mod = cake::testing::compile(text);
  EXPECT_FALSE(mod.schedules.empty());
  if (mod.schedules.empty()) return {};
  return cake::testing::attacks::proveDefault(mod.schedules.at(0));
}

}  // namespace trip_left_read_test

// The reproducer proved; its one-ahead S issue's K slot released before the
// S reads it (met by the exploration), and the tile's Q waited after its
// first S reads it (refused: the left-out read of Q may be a return).
TEST(TripLeftRead, LeftOutSIssueIsProvedAndItsBrokenFormsAreNot) {
  namespace at = cake::testing::attacks;
  namespace tlr = trip_left_read_test;
  const std::string next = tlr::kNextS, first = tlr::kFirstS;
  const std::string k_wait = "                    lm.wait(k_full, iter=it + 1)\n";
  const std::string next_s = "                    lm.mma(tmem_s, smem_q[0], smem_k[it + 1], init=True)\n";
  const std::string next_release = "                    lm.mma_commit(barrier=k_empty, iter=it + 1)\n";
  at::attack(tlr::kSAhead, {{"seqlen_k", 3 * 128}, {"n_tiles", 3}},
             {
                 {{{next, k_wait + next_release + next_s}},
                  "the next block's K slot released before the S MMA reads it",
                  {{"seqlen_k", 385}, {"n_tiles", 2}}},
                 {{{first, "            lm.wait(k_full, iter=base)\n"
                           "            lm.mma(tmem_s, smem_q[0], smem_k[base], init=True)\n"
                           "            lm.wait(q_full, iter=t)\n"
                           "            lm.mma_commit(barrier=k_empty, iter=base)\n"}},
                  "the tile's Q waited after its first S reads it",
                  {{"seqlen_k", 1}, {"n_tiles", 1}}},
             });
}

// More broken forms: where the left-out S's read happens instead (the next
// tile's first S, the first access of its K index in a run) not waited
// for, waited a phase early, released early; Q released before the K
// loop's S issues, refilled a tile early by the loader, waited only by the
// one-ahead S issues.
TEST(TripLeftRead, SlowLeftOutSIssueBrokenForms) {
  namespace at = cake::testing::attacks;
  namespace tlr = trip_left_read_test;
  const std::string first = tlr::kFirstS, release = tlr::kQRelease;
  const std::string k_wait = "                    lm.wait(k_full, iter=it + 1)\n";
  at::attack(tlr::kSAhead, {{"seqlen_k", 3 * 128}, {"n_tiles", 3}},
             {
                 {{{"            lm.wait(k_full, iter=base)\n", ""}},
                  "the tile's first S does not wait for its K block",
                  {{"seqlen_k", 1}, {"n_tiles", 1}}},
                 {{{"lm.wait(k_full, iter=base)", "lm.wait(k_full, iter=base - 1)"}},
                  "the tile's first S waits for the block before",
                  {{"seqlen_k", 1}, {"n_tiles", 1}}},
                 {{{first, "            lm.wait(q_full, iter=t)\n            lm.wait(k_full, iter=base)\n"
                           "            lm.mma_commit(barrier=k_empty, iter=base)\n"
                           "            lm.mma(tmem_s, smem_q[0], smem_k[base], init=True)\n"}},
                  "the tile's first K slot released before its S reads it",
                  {{"seqlen_k", 257}, {"n_tiles", 2}}},
                 {{{release, ""},
                   {"            lm.mma_commit(barrier=s_full, iter=base)\n",
                    "            lm.mma_commit(barrier=s_full, iter=base)\n" + release}},
                  "Q released before the K loop's S MMAs read it",
                  {{"seqlen_k", 129}, {"n_tiles", 2}}},
                 {{{"lm.wait(q_empty, iter=t - 1)", "lm.wait(q_empty, iter=t - 2)"}},
                  "the loader refills Q a tile early",
                  {{"seqlen_k", 1}, {"n_tiles", 2}}},
                 {{{"            lm.wait(q_full, iter=t)\n", ""},
                   {k_wait, "                    lm.wait(q_full, iter=t)\n" + k_wait}},
                  "Q waited only by the one-ahead S issues",
                  {{"seqlen_k", 1}, {"n_tiles", 1}}},
             });
}

// Attacks on the left-out reads (helper attack50, session 50; docs/known-limits.md
// "Attacks on session 49's paths"): Q released before the one-ahead S of the
// K iteration before the tile's last (the left-out read's neighbour), only
// in tile 5, or only where the tile starts at an odd ring position; the
// one-ahead S reading the K slot two ahead only in tile 5's K iteration
// before its last. Each found by `cake check` (the bounded check runs
// n_tiles = 7, seqlen_k = 257 and n_tiles = 5, n_tiles = 6), none proved.
TEST(TripLeftRead, SlowAttack50BrokenForms) {
  namespace at = cake::testing::attacks;
  namespace tlr = trip_left_read_test;
  const std::string release = tlr::kQRelease, ahead = "                if j + 1 < n_blocks:\n";
  const std::string next_s = "                    lm.mma(tmem_s, smem_q[0], smem_k[it + 1], init=True)\n";
  auto releasedEarlyWhere = [&](const std::string& tile, const std::string& cond) {
    return std::vector<std::pair<std::string, std::string>>{
        {release, "            if not (n_blocks >= 2 and " + tile + "):\n    " + release},
        {ahead, "                if j + 2 == n_blocks and " + cond + ":\n"
                "                    lm.mma_commit(barrier=q_empty, iter=t)\n" + ahead}};
  };
  at::attack(tlr::kSAhead, {{"seqlen_k", 3 * 128}, {"n_tiles", 3}},
             {
                 {releasedEarlyWhere("t == 5", "t == 5"), "Q released before the last one-ahead S of tile 5",
                  {{"seqlen_k", 129}, {"n_tiles", 7}}},
                 {releasedEarlyWhere("(t * n_blocks) % 2 == 1", "(t * n_blocks) % 2 == 1"),
                  "Q released before the last one-ahead S of a tile at an odd ring start",
                  {{"seqlen_k", 257}, {"n_tiles", 5}}},
                 {{{next_s, "                    if t == 5 and j + 2 == n_blocks:\n    " +
                                cake::testing::replace(next_s, "smem_k[it + 1]", "smem_k[it + 2]") +
                                "                    else:\n    " + next_s}},
                  "tile 5's last one-ahead S reads the K slot two ahead",
                  {{"seqlen_k", 129}, {"n_tiles", 6}}},
             });
}

// The no-return case's scope: the MMA warp also reads Q after its K loop
// (a generic copy, fenced before the release): a read there shares the
// keying iteration of the part before the K loop (the tile's), so it could
// be a re-read without the left-out read and a return with it. Clean, but
// refused (here no wait lies between: it is no return either way, which the
// rule does not look for); certain on the grid as built (noReturnOnTheGrid),
// so refused at the probe, before the grids per ring start.
TEST(TripLeftRead, LeftOutReadBeforeAReadAfterTheKLoopIsRefused) {
  namespace tlr = trip_left_read_test;
  const std::string release = tlr::kQRelease;
  const std::string regs = "    s     = lm.regs(shape=(128, 128), dtype=lm.f32)\n";
  const std::string text = cake::testing::replace(
      cake::testing::replace(tlr::kSAhead, release,
                             "            lm.copy(qr, smem_q[0])\n            lm.fence_proxy()\n" + release),
      regs, regs + "    qr    = lm.regs(shape=(128, 64), dtype=lm.bf16)\n");
  const auto r = tlr::proof(text);
  EXPECT_NE(r.outcome, cake::encoder::Outcome::Proved);
  EXPECT_NE(r.detail.find("of mma differs when a K iteration is its tile's last, beyond operations that carry no "
                          "counter (an MMA with an access in TMEM left out that also accesses a view outside the K "
                          "iterations that no argument takes"),
            std::string::npos)
      << r.detail;
}

// The corpus kernel (CUTLASS example 77's FMHA with an epilogue store
// warp): past the probe and the left-out reads, it stops at the copies near
// the end per ring start (the PV MMA's read of smem_p[0] means generation 1
// in the tail grid at ring start 1 against 2 at 0: docs/z3.md "An MMA into
// TMEM left out near a tile's end", (c)). Slow: the grids per ring start
// and end (about 5 s user).
TEST(TripLeftRead, SlowStoreWarpFmhaStopsAtTheTailsPerRingStart) {
  auto mod = cake::testing::compile(
      cake::testing::corpusText("corpus/attention/sm100_fmha_persistent_store_warp.cake"));
  ASSERT_FALSE(mod.schedules.empty());
  const auto r = cake::testing::attacks::proveDefault(mod.schedules.at(0));
  EXPECT_NE(r.outcome, cake::encoder::Outcome::Proved);
  EXPECT_NE(r.detail.find("the K iteration at ring index 2 of tile 0 of mma differs when its tile starts at ring "
                          "position 1 and its K iterations are 1 from the tile's end"),
            std::string::npos)
      << r.detail;
}
