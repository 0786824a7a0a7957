// Slice bounds of one view that move past each other with a parameter
// (helper cover47, session 47; docs/known-limits.md "Closed: a slice bound
// that moves past another access's slice with a parameter"): two warps
// store their parts of a 128-float row, every warp then reads `0:READ` of
// it. Each broken form reads past the stored floats only from a parameter
// value no trip target, operand target or sample of main's covering values
// reached, so the bounded check alone exited 0 *checked* on main; each has
// a correct twin that must stay clean and decided. The bounded check alone
// (the proof finds these whole; the covering values must too).
#include <gtest/gtest.h>

#include <string>

#include "attack_pair.h"
#include "cover_kernels.h"
#include "test_util.h"

using namespace cake;
using cake::testing::cover::boundedVerdict;

namespace cover47_test {

// Warp w stores `n` floats at `32 * w` (n may read w, P and Q), every warp
// reads `0:read` after the barrier; 1 <= P <= p_max, 1 <= Q <= q_max.
std::string twoWarpRow(const std::string& n, const std::string& read, int p_max, int q_max = 64) {
  return "@cake.schedule(target=\"sm_80\")\n"
         "def slices(lm, Src: LM.gmem, Dst: LM.gmem, P: LM.i32, Q: LM.i32):\n"
         "    lm.assume(P >= 1)\n"
         "    lm.assume(P <= " + std::to_string(p_max) + ")\n"
         "    lm.assume(Q >= 1)\n"
         "    lm.assume(Q <= " + std::to_string(q_max) + ")\n"
         "    pool = lm.smem(1024)\n"
         "    buf = pool.view(offset=0, shape=(1, 128), dtype=lm.f32)\n"
         "    part = lm.regs(shape=(1, 128), dtype=lm.f32)\n"
         "    got = lm.regs(shape=(1, 128), dtype=lm.f32)\n"
         "    red = lm.regs(shape=(1, 1), dtype=lm.f32)\n"
         "    warps = lm.role(warps=[0, 1], group=1)\n"
         "    block = lm.named_barrier(roles=[warps])\n"
         "    with warps:\n"
         "        w = lm.instance()\n"
         "        n = " + n + "\n"
         "        lm.copy(part[0:1, 0:n], Src, coords=(lm.block_idx(0), 0))\n"
         "        lm.copy(buf[0][0:1, 32 * w:32 * w + n], part[0:1, 0:n])\n"
         "        lm.sync(block)\n"
         "        lm.copy(got[0:1, 0:" + read + "], buf[0][0:1, 0:" + read + "])\n"
         "        lm.reduce(red, got[0:1, 0:" + read + "], op=\"max\", axis=1)\n"
         "        lm.copy(Dst, red, coords=(lm.block_idx(0), w))\n";
}

// llama.cpp's one-pass fill (corpus llamacpp_fattn_combine_meta_fill_one_pass):
// warp w stores the floats of [32 * w, 64) below 2 * P.
const std::string kCombine = "min(32, max(1, 2 * P - 32 * w))";

void expectStale(const std::string& what, const std::string& text) {
  const cake::testing::cover::BoundedVerdict v = boundedVerdict(text);
  EXPECT_TRUE(v.rules.count("data.stale-read")) << what << ": the bounded check exits 0";
}
void expectClean(const std::string& what, const std::string& text) {
  const cake::testing::cover::BoundedVerdict v = boundedVerdict(text);
  EXPECT_TRUE(v.rules.empty()) << what << ": a correct twin is reported";
  EXPECT_FALSE(v.unknown) << what << ": a correct twin is unknown";
}

}  // namespace cover47_test

namespace c47 = cover47_test;

// The read `0:2 * P` leaves the 64 stored floats from P = 33 (the stores'
// `min` saturated since P = 32): the difference of the two bounds, placed
// at its first value past 0. Twins: P <= 32, and the read capped at 64.
TEST(Cover47, ReadPastSaturatedStores) {
  c47::expectStale("read 0:2P against the saturated stores", c47::twoWarpRow(c47::kCombine, "2 * P", 64));
  c47::expectClean("P <= 32", c47::twoWarpRow(c47::kCombine, "2 * P", 32));
  c47::expectClean("read 0:min(2P, 64)", c47::twoWarpRow(c47::kCombine, "min(2 * P, 64)", 64));
}

// Off by one at the crossing: a read capped at 65 instead of 64, and the
// facts allowing P = 33, one past the last value that fits (wrong only
// there). Twins: the cap at 64, P <= 32.
TEST(Cover47, OffByOneAtTheCrossing) {
  c47::expectStale("read 0:min(2P, 65)", c47::twoWarpRow(c47::kCombine, "min(2 * P, 65)", 64));
  c47::expectStale("P <= 33", c47::twoWarpRow(c47::kCombine, "2 * P", 33));
  c47::expectClean("read 0:min(2P, 64)", c47::twoWarpRow(c47::kCombine, "min(2 * P, 64)", 64));
  c47::expectClean("P <= 32", c47::twoWarpRow(c47::kCombine, "2 * P", 32));
}

// `0:P + Q` passes the 64 stored floats only where P and Q (each at most
// 40) are moved together: no one parameter moved from the base reaches it,
// the goal's target is solved for with both free (BindingSearch::jointTargets).
// Twins: the read capped at 64, and P, Q <= 32 (no values cross: Z3 says so).
TEST(Cover47, CrossingOnlyWithTwoParameters) {
  c47::expectStale("read 0:P + Q, P, Q <= 40", c47::twoWarpRow("32", "P + Q", 40, 40));
  c47::expectClean("read 0:min(P + Q, 64)", c47::twoWarpRow("32", "min(P + Q, 64)", 40, 40));
  c47::expectClean("P, Q <= 32", c47::twoWarpRow("32", "P + Q", 32, 32));
}

// Crossings through a `max`: the read's `max(2 * P - 2, 7)` passes 64 at P
// = 34, and stores spelled `32 - max(0, 32 * w - 2 * P)` (whole from P = 16)
// fall behind the read `0:2 * P` at P = 33. Twins: P <= 33 and P <= 32.
TEST(Cover47, CrossingThroughAMax) {
  c47::expectStale("read 0:max(2P - 2, 7)", c47::twoWarpRow("32", "max(2 * P - 2, 7)", 64));
  c47::expectClean("read 0:max(2P - 2, 7), P <= 33", c47::twoWarpRow("32", "max(2 * P - 2, 7)", 33));
  const std::string store = "32 - max(0, 32 * w - 2 * P)";
  c47::expectStale("stores through a max", c47::twoWarpRow(store, "2 * P", 64));
  c47::expectClean("stores through a max, P <= 32", c47::twoWarpRow(store, "2 * P", 32));
}
