// The bounded check's reach past session 39 (helper cover40, session 40;
// docs/known-limits.md "Covering values: events two knobs place, a second
// loop's flips, each guard outcome, moving boxes"): broken schedules that
// exited 0 *checked* on main because no covering value reached their bug,
// each with a fixed twin that must stay clean (and decided where the proof
// decides it):
//  * a far event that the base's knobs do not place (`(k * T) // 640`
//    never steps at T = 0 and steps past the cap at T = 1): another knob is
//    moved to place it (BindingSearch::knobPlacing);
//  * a guard on a tile loop that flips after its first lap (`if t != 5`)
//    and a table column read only at a far K: the far K runs with the tile
//    loop past the flip (BindingSearch::flipBases);
//  * a guard outcome (block 3) that only the ninth vector of the guards'
//    outcomes gives: every guard's outcome meets the far trip counts
//    (BindingSearch::vectorBases);
//  * two global boxes that both move (`d + 64` against `2 * d`, `d`
//    against `128 + 32 * k`): placed at each other's edges
//    (GoalCollector::movingPairGoals).
// And what the values leave out is listed in the verdict's `unreached`.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "attack_pair.h"
#include "attack_util.h"
#include "cover_kernels.h"
#include "test_util.h"

using namespace cake;
using namespace cake::testing::pairs;

namespace cover40_test {

using cake::testing::cover::bandVectors;
using cake::testing::cover::bounded;
using cake::testing::cover::movingBoxes;
using cake::testing::cover::withTable;

const std::string& knobRing() {
  static const std::string text =
      cake::testing::cover::ringWithKnobs(", T: LM.i32", "    lm.assume(T >= 0)\n    lm.assume(T <= 10)\n");
  return text;
}

// Two warps read one column of a 64-column table per K step, on each of N
// tiles; warp 0 writes the table on every tile, its last column not on
// tile 5 in the broken form (read stale there at K = 64 only).
std::string bandTiles(bool broken) {
  std::string text = R"(@cake.schedule(target="sm_80")
def band_tiles(lm, Out: LM.gmem, K: LM.i32, N: LM.i32):
    lm.assume(K >= 1)
    lm.assume(K <= 64)
    lm.assume(N >= 1)
DECLS
    with warps:
        w = lm.instance()
        for t in lm.range(0, N):
            if w == 0:
                lm.fill(v, 1)
                if t != 5:
                    lm.copy(tab[0], v)
                else:
                    SHORT_WRITE
            lm.sync(cta)
            for k in lm.range(0, K):
                lm.copy(x, tab[0][:, k:k + 1])
                lm.copy(Out, x, coords=(64 * t + k, w))
            lm.sync(cta)
)";
  return withTable(text, broken);
}

// ... of a clean schedule: its sync verdict.
checks::PropertyVerdict boundedVerdict(const std::string& text) {
  const checks::CheckResult r = bounded(text);
  EXPECT_FALSE(r.hasErrors()) << describe(r);
  for (const auto& v : r.verdicts)
    if (v.property == "sync") return v;
  return {};
}
bool reports(const checks::CheckResult& r, const std::string& rule) {
  return std::any_of(r.findings.begin(), r.findings.end(),
                     [&](const ir::Finding& f) { return f.rule == rule && f.severity == ir::Severity::Error; });
}

bool lists(const checks::PropertyVerdict& v, const std::string& what) {
  return std::any_of(v.unreached.begin(), v.unreached.end(),
                     [&](const std::string& u) { return u.find(what) != std::string::npos; });
}

}  // namespace cover40_test

namespace c40 = cover40_test;

// `(k * T) // 640` steps at k = 64 for T = 10, never at T = 0 (the base),
// past the cap at T = 1. The fixed twin reads the same part where it
// changes nothing (`init=`), and is proved. Cost: 0.2 s.
TEST(Cover40, EventTheBaseDoesNotPlaceIsPlacedByAnotherKnob) {
  expectPair("wait at k - (k * T) // 640",
             edited(c40::knobRing(), {{"lm.wait(full, iter=k)", "lm.wait(full, iter=k - (k * T) // 640)"}}),
             "data.stale-read", edited(c40::knobRing(), {{"init=(k == 0)", "init=(k + (k * T) // 640 == 0)"}}));
}

// Tile 5's table is short a column, read at K = 64 only: K = 64 runs with
// the tile loop past its flip (N = 7). The bounded check alone (the proof
// of either form is unknown after 1.4 s: `k` is not a function of the ring
// index). Cost: 0.1 s.
TEST(Cover40, FarTripsRunPastASecondLoopsLaterFlip) {
  const checks::CheckResult broken = c40::bounded(c40::bandTiles(true));
  EXPECT_TRUE(c40::reports(broken, "data.stale-read")) << describe(broken);
  EXPECT_EQ(c40::boundedVerdict(c40::bandTiles(false)).kind, checks::VerdictKind::Checked);
}

// Block 3's vector is the ninth; it gives `lm.block_idx(0) != 3` the
// outcome no earlier base gives, so it meets K = 64. Cost: 0.3 s.
TEST(Cover40, EachGuardOutcomeMeetsTheFarTrips) {
  expectPair("block 3's band one column short", c40::bandVectors(true), "data.stale-read", c40::bandVectors(false));
}

// Both boxes move with d (`d + 64` against `2 * d`: they meet at 32 < d <
// 96), or the reader's with a loop (`128 + 32 * k`: d = 128 meets it at k
// = 0); the fixed twins write row 1. The loop's later iterations are
// listed as unreached. Cost: 0.1 s.
TEST(Cover40, MovingBoxesMeetAtTheirEdges) {
  using cake::testing::attacks::expectFoundNotProved;
  using cake::testing::attacks::expectNoSyncFinding;
  expectFoundNotProved(c40::movingBoxes("", "d + 64", "2 * d", 0, false), "sync.race", "d + 64 against 2 * d");
  expectNoSyncFinding(c40::movingBoxes("", "d + 64", "2 * d", 1, false), "d + 64 on row 1");
  const std::string k = ", K: LM.i32";
  expectFoundNotProved(c40::movingBoxes(k, "d", "128 + 32 * k", 0, true), "sync.race", "d against 128 + 32 * k");
  expectNoSyncFinding(c40::movingBoxes(k, "d", "128 + 32 * k", 1, true), "d on row 1");
  EXPECT_TRUE(c40::lists(c40::boundedVerdict(c40::movingBoxes(k, "d", "128 + 32 * k", 1, true)),
                         "between the first and the last iteration of `k`"));
}

// What the values leave out is in the verdict's `unreached` (and so in
// `cake check --format json`), not only in its text: a step past the cap,
// and vectors that combine guard outcomes the far bases already run.
// Cost: 0.1 s.
TEST(Cover40, UnreachedIsListed) {
  const checks::PropertyVerdict cap =
      c40::boundedVerdict(edited(c40::knobRing(), {{"lm.wait(full, iter=k)", "lm.wait(full, iter=k - k // 1000)"}}));
  EXPECT_EQ(cap.kind, checks::VerdictKind::Unknown) << cap.detail;  // a bug can hide past the step
  EXPECT_TRUE(c40::lists(cap, "the step of `k // 1000`")) << cap.detail;
  const checks::PropertyVerdict vectors = c40::boundedVerdict(c40::bandVectors(false));
  EXPECT_TRUE(c40::lists(vectors, "more vectors of the guards' outcomes")) << vectors.detail;
  EXPECT_TRUE(c40::boundedVerdict(c40::knobRing()).unreached.empty());
}
