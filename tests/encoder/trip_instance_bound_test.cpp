// A symbolic loop bound that reads lm.instance() (helper hunt40, session
// 40; docs/z3.md "A symbolic bound that reads the instance"): an FMHA K
// loop whose per-warp causal bound `lm.cdiv(min(n, 16 * lm.instance() +
// 16), 64)` gives warps 4..7 one iteration more than warps 0..3 for n > 64,
// a block barrier in the loop: a deadlock. The proof read the bound as one
// trip count T for every instance and proved it (and the persistent proof
// did the same for a K bound of a tile loop); the bounded check valued the
// trip count at instance 0 only and never reached n > 64. Now the proofs
// refuse such a bound, and the bounded check places the values where an
// instance's count differs from instance 0's.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"

using namespace cake;
using namespace cake::testing;
using namespace cake::testing::attacks;

namespace trip_instance_bound_test {

// Eight warps of one role, each its own instance, a block barrier per
// iteration of a loop bounded by `bound`.
std::string warpLoop(const std::string& bound) {
  return R"(@cake.schedule(target="sm_80")
def warp_loop(lm, n: LM.i32):
    lm.assume(n >= 1)
    sg = lm.role(warps=[0, 1, 2, 3, 4, 5, 6, 7], group=1)
    wg = lm.named_barrier(roles=[sg])
    with sg:
        for kb in lm.range(0, )" + bound + R"():
            lm.sync(wg)
)";
}

const ir::Schedule& first(const ir::Module& m) { return m.schedules.at(0); }

}  // namespace trip_instance_bound_test

namespace tib = trip_instance_bound_test;

// The per-warp bounds: found by the bounded check, refused by the proof.
TEST(TripInstanceBound, APerWarpTripCountIsFoundAndNotProved) {
  expectFoundNotProved(tib::warpLoop("lm.cdiv(min(n, 16 * lm.instance() + 16), 64)"), "sync.deadlock",
                       "warps 4..7 run one iteration more for n > 64");
  expectFoundNotProved(tib::warpLoop("lm.cdiv(n + 16 * lm.instance(), 128)"), "sync.deadlock",
                       "warp 7 runs one iteration more for n % 128 in 17..128 - 112");
  // Two warps whose counts differ far from the ring's targets (n % 4096 in 3097..4095 or 0): main
  // proved it, no covering value was there.
  expectFoundNotProved(replace(tib::warpLoop("lm.cdiv(n + 1000 * lm.instance(), 4096)"),
                               "warps=[0, 1, 2, 3, 4, 5, 6, 7]", "warps=[0, 1]"),
                       "sync.deadlock", "warp 1 runs one iteration more for n = 3999");
  expectFoundNotProved(persistentWarpLoop("lm.cdiv(K + 32 * lm.instance(), 128)"), "sync.deadlock",
                       "the persistent K loop of warp 3 runs one iteration more for K % 128 in 33..128 - 96");
}

// The proofs alone (no bounded check before them): refused with the reason.
TEST(TripInstanceBound, TheProofsRefuseABoundThatReadsTheInstance) {
  for (const std::string& text : {tib::warpLoop("lm.cdiv(min(n, 16 * lm.instance() + 16), 64)"),
                                  persistentWarpLoop("lm.cdiv(K + 32 * lm.instance(), 128)")}) {
    auto m = compile(text);
    auto r = proveDefault(tib::first(m));
    EXPECT_NE(r.outcome, encoder::Outcome::Proved) << "UNSOUND, proved: " << r.engine;
    EXPECT_NE(r.detail.find("reads lm.instance()"), std::string::npos) << r.detail;
  }
}

// The twins with one bound for every warp are proved (the refusal is the
// bound's, not the role's).
TEST(TripInstanceBound, OneBoundForEveryWarpIsProved) {
  for (const std::string& text : {tib::warpLoop("lm.cdiv(n, 64)"), persistentWarpLoop("lm.cdiv(K, 128)")}) {
    auto m = compile(text);
    auto [proved, rules, detail] = modelCheck(tib::first(m));
    EXPECT_TRUE(proved) << join(rules) << ": " << detail;
  }
}
