// An empty tiles' loop whose roles hand off to one another every tile
// (docs/z3.md "An empty tiles' loop whose roles hand off through
// mbarriers"): the split at `t >= n_empty` leaves a first loop in which the
// load role waits the alias gate and signals `pair`, and the correction role
// waits `pair` and arrives on the gate (cudnn-frontend PR #575's fix,
// reduced). Proved now (main: unknown, "it reads the tile index outside
// coordinates"); the broken forms, each met by the bounded check, are never
// proved.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "prove_util.h"
#include "test_util.h"

using namespace cake;

namespace {

const char* kHandshake = R"(@cake.schedule(target="sm_100a")
def empty_tile_handshake(lm, Q: LM.tma2d, n_tiles: LM.i32, n_empty: LM.i32):
    lm.assume(n_empty >= 0)
    pool   = lm.smem(16384)
    smem_q = pool.view(offset=0, shape=(128, 64), dtype=lm.bf16, swizzle="128B")
    q_r    = lm.regs(shape=(128, 64), dtype=lm.bf16)
    corr = lm.role(warps=[0, 1, 2, 3])
    ldg  = lm.role(warps=[5])
    q_full = lm.barrier(count=1, prod=[ldg], cons=[corr], init_count=1)
    gate   = lm.barrier(count=1, prod=[corr], cons=[ldg], init_count=1)
    pair   = lm.barrier(count=1, prod=[ldg], cons=[corr], init_count=1)
    with ldg:
        for t in lm.range(0, n_tiles):
            lm.wait(gate, iter=t - 1)
            if t >= n_empty:
                smem_q.tma_load(Q, coords=(128 * t, 0), iter=t - n_empty, barrier=q_full)
            else:
                lm.arrive(pair, stage=0)
    with corr:
        for t in lm.range(0, n_tiles):
            if t >= n_empty:
                lm.wait(q_full, iter=t - n_empty)
                lm.copy(q_r, smem_q[0])
            else:
                lm.wait(pair, stage=0)
                lm.fill(q_r, 0.0)
            lm.fence_proxy()
            lm.arrive(gate, iter=t)
)";

using cake::testing::expectBrokenNotProved;
using cake::testing::proveSchedule;

// Does the bounded check meet a violation at some (n_tiles, n_empty) with
// up to 3 tiles?
bool brokenSomewhere(const ir::Schedule& s) {
  for (int64_t tiles : {1, 2, 3})
    for (int64_t empty = 0; empty <= tiles; ++empty)
      if (cake::testing::violatedAt(s, {{"n_tiles", tiles}, {"n_empty", empty}})) return true;
  return false;
}

std::string edited(const std::string& from, const std::string& to) {
  const std::string text = kHandshake;
  EXPECT_NE(text.find(from), std::string::npos) << from;
  return cake::testing::replace(text, from, to);
}

void expectHandshakeProved(const std::string& text, const std::string& what) {
  auto m = cake::testing::compile(text);
  ASSERT_FALSE(m.schedules.empty()) << what;
  EXPECT_FALSE(brokenSomewhere(m.schedules[0])) << what;
  auto r = proveSchedule(m.schedules[0]);
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << what << ": " << r.detail;
  EXPECT_NE(r.engine.find("hand off to one another"), std::string::npos) << what << ": " << r.engine;
}

}  // namespace

// The handshake proved: the gate's phases by iteration (`iter=t - 1`, a
// fixed slope in t) and by the kernel's parity bootstrap (`stage=0,
// phase=t - 1`, the corpus's respelled form).
TEST(TripHandshake, EmptyTileHandshakeIsProved) {
  expectHandshakeProved(kHandshake, "the handshake");
  expectHandshakeProved(edited("lm.wait(gate, iter=t - 1)", "lm.wait(gate, stage=0, phase=t - 1)"), "the parity bootstrap");
}

// Broken forms of the handshake, each met by the bounded check: the
// consumer skips it on empty tiles (cudnn-frontend's bug: the gate runs two
// phases ahead of the load role's wait), the producer skips it, the
// consumer's wait one phase early or late or on an iteration below 0 (no
// wait at all), the gate's wait two tiles behind, and the load role's gate
// wait on empty tiles only. None is proved.
TEST(TripHandshake, EmptyTileHandshakeBrokenFormsAreNotProved) {
  const std::vector<std::pair<std::string, std::string>> bugs = {
      {"                lm.wait(pair, stage=0)\n", ""},
      {"                lm.arrive(pair, stage=0)\n", "                lm.fence_proxy()\n"},
      {"lm.wait(pair, stage=0)", "lm.wait(pair, iter=t - 1)"},
      {"lm.wait(pair, stage=0)", "lm.wait(pair, iter=t + 1)"},
      // (an iteration below 0 passes at once: no pair wait in the first 10 tiles)
      {"lm.wait(pair, stage=0)", "lm.wait(pair, iter=t - 10)"},
      {"lm.wait(gate, iter=t - 1)", "lm.wait(gate, iter=t - 2)"},
      {"            lm.wait(gate, iter=t - 1)\n            if t >= n_empty:\n",
       "            if t >= n_empty:\n"},
  };
  for (const auto& [from, to] : bugs) {
    std::string text = edited(from, to);
    if (to == "            if t >= n_empty:\n")  // the gate waited on empty tiles only
      text = cake::testing::replace(text, "                lm.arrive(pair, stage=0)\n",
                                    "                lm.wait(gate, iter=t - 1)\n                lm.arrive(pair, stage=0)\n");
    expectBrokenNotProved(text, brokenSomewhere, to.empty() ? from : to);
  }
}

// A handshake skipped only at a later empty tile (t == 3: past the tiles
// the copies compare): the first loop reads t outside its phases, refused.
TEST(TripHandshake, HandshakeSkippedAtALaterTileIsNotProved) {
  const std::string text = edited("                lm.wait(pair, stage=0)\n",
                                  "                if t != 3:\n                    lm.wait(pair, stage=0)\n");
  expectBrokenNotProved(
      text, [](const ir::Schedule& s) { return cake::testing::violatedAt(s, {{"n_tiles", 5}, {"n_empty", 5}}); },
      "the wait skipped at t == 3");
}
