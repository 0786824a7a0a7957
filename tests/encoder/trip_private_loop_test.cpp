// Per-instance trip counts of private loops (helper inst41, session 41;
// docs/z3.md "Per-instance trip counts of private loops"). A symbolic loop
// whose bound reads lm.instance() in a role of several instances is refused
// by the lap induction (each instance runs its own count). Where the loop
// touches only its process's registers and reads tensors nobody writes (the
// causal FMHA K loop of each warp with the work-group barrier after it),
// the proofs run on a copy in which it runs its first iteration alone,
// under `if E > start:`. The broken twins keep a loop the copy must not
// take: a barrier inside it, a register slice that moves with the loop
// variable, a read of a tensor another warp writes.
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"
#include "encoder/system.h"
#include "encoder/trip_private.h"

using namespace cake;
using namespace cake::testing;
using namespace cake::testing::attacks;

namespace trip_private_loop_test {

// Four warps of one role, each its own instance, a loop bounded by the
// warp's causal count `bound` with `body` in it and the block barrier
// after it.
std::string privateLoop(const std::string& bound, const std::string& body, const std::string& after = "") {
  return R"(@cake.schedule(target="sm_80")
def private_loop(lm, X: LM.gmem, O: LM.gmem, n: LM.i32):
    lm.assume(n >= 1)
    r  = lm.regs(shape=(16, 64), dtype=lm.f32)
    a  = lm.regs(shape=(16, 16), dtype=lm.f32)
    sg = lm.role(warps=[0, 1, 2, 3], group=1)
    wg = lm.named_barrier(roles=[sg])
    with sg:
        lm.fill(a, 0.0)
        lm.copy(r[:, 0:16], X, coords=(16 * lm.instance(), 0))
        for kb in lm.range(0, )" +
         bound + R"():
)" + body + R"(        lm.sync(wg)
)" + after + R"(        lm.copy(O, a, coords=(16 * lm.instance(), 0))
)";
}

const std::string kCausal = "lm.cdiv(min(n, 16 * lm.instance() + 16), 32)";
// the loop's body: a load of X's next block and an add into a
const std::string kLoadAdd =
    "            lm.copy(r, X, coords=(16 * lm.instance(), kb * 64))\n"
    "            lm.binary(a, a, r[:, 0:16], op=\"add\")\n";

const ir::Schedule& first(const ir::Module& m) { return m.schedules.at(0); }

void expectProved(const std::string& text, const char* what) {
  auto m = compile(text);
  ASSERT_FALSE(m.schedules.empty()) << what;
  auto r = proveDefault(first(m));
  EXPECT_EQ(r.outcome, encoder::Outcome::Proved) << what << ": " << r.detail;
  EXPECT_NE(r.engine.find("first iteration alone"), std::string::npos) << what << ": " << r.engine;
}

// Whether the copy takes the schedule's per-instance loop.
bool collapsed(const std::string& text) {
  auto m = compile(text);
  return encoder::trip::collapsePrivateInstanceLoops(first(m)).has_value();
}

}  // namespace trip_private_loop_test

namespace tpl = trip_private_loop_test;

// Each warp its own causal count, the barrier after the loop: proved (the
// session-40 refusal said unknown), also as the K loop of a persistent
// kernel and with a guard on the instance inside the loop.
TEST(TripPrivateLoop, APrivateLoopWithItsOwnTripCountIsProved) {
  tpl::expectProved(tpl::privateLoop(tpl::kCausal, tpl::kLoadAdd), "the barrier after the loop");
  tpl::expectProved(tpl::privateLoop(tpl::kCausal,
                                     "            if lm.instance() % 2 == 0:\n"
                                     "                lm.copy(r, X, coords=(16 * lm.instance(), kb * 64))\n"
                                     "            lm.binary(a, a, r[:, 0:16], op=\"add\")\n"),
                    "an instance guard in the loop");
  tpl::expectProved(persistentWarpLoop("lm.cdiv(K + 32 * lm.instance(), 128)", false),
                    "the K loop of a persistent tile loop");
}

// The broken twins: found by cake check, not proved, and the copy does not
// take the loop.
TEST(TripPrivateLoop, ALoopThatIsNotPrivateIsFoundAndNotProved) {
  // the work-group barrier inside the loop (vllm-xpu-kernels PR #312's bug)
  const std::string in_loop = tpl::privateLoop(tpl::kCausal, tpl::kLoadAdd + "            lm.sync(wg)\n");
  EXPECT_FALSE(tpl::collapsed(in_loop));
  expectFoundNotProved(in_loop, "sync.deadlock", "warps 1..3 run one iteration more for n > 32");
  // a register slice that moves with the loop variable: r's columns 16..31
  // were never written, read from the second iteration on (warps 1..3)
  const std::string slice = tpl::privateLoop(tpl::kCausal, "            lm.copy(a, r[:, kb * 16:kb * 16 + 16])\n");
  EXPECT_FALSE(tpl::collapsed(slice));
  expectFoundNotProved(slice, "data.uninitialized", "the second iteration reads r's unwritten columns");
  // X read in the loop and written by warp 0 after it, unordered with
  // warp 1's read of the same block at its second iteration
  const std::string rw = tpl::privateLoop(tpl::kCausal,
                                          "            lm.copy(r, X, coords=(16, kb * 64))\n",
                                          "");
  const std::string rw_race = replace(rw, "        lm.sync(wg)\n",
                                      "        if lm.instance() == 0:\n"
                                      "            lm.copy(X, r, coords=(16, 64))\n"
                                      "        lm.sync(wg)\n");
  EXPECT_FALSE(tpl::collapsed(rw_race));
  expectFoundNotProved(rw_race, "sync.race", "warp 0 writes the block warps 2 and 3 read at their second iteration");
  // PR #312's FMHA under square causal attention (session 40's probe: proved
  // before the refusal), warps 0..3 one K block and 4..7 two for seq_q >= 80
  const std::string pr312 = "corpus/bugs/sync.deadlock/vllm_xpu_fmha_causal_per_subgroup_k_blocks.cake";
  const std::string square = replace(corpusText(pr312), "lm.assume(seq_k >= seq_q)", "lm.assume(seq_k == seq_q)");
  EXPECT_FALSE(tpl::collapsed(square));
  expectFoundNotProved(square, "sync.deadlock", "square causal FMHA, the barrier in each warp's K loop");
  // the persistent K loop with the barrier inside (TripInstanceBound's form)
  const std::string persistent = persistentWarpLoop("lm.cdiv(K + 32 * lm.instance(), 128)");
  EXPECT_FALSE(tpl::collapsed(persistent));
  expectFoundNotProved(persistent, "sync.deadlock", "the persistent K loop of warp 3 runs one iteration more");
}

// What privateLoopBody refuses, one condition at a time (the reason names
// the line).
TEST(TripPrivateLoop, PrivateLoopBodyNamesWhatIsShared) {
  auto why = [](const std::string& body) {
    auto m = compile(tpl::privateLoop(tpl::kCausal, body));
    const ir::Schedule& s = tpl::first(m);
    const ir::Stmt* loop = nullptr;
    for (const ir::Stmt& st : s.bodies.at(0).body)
      if (st.kind == ir::Stmt::Kind::For) loop = &st;
    return encoder::trip::privateLoopBody(s, *loop, encoder::readAndWrittenTensors(s));
  };
  EXPECT_EQ(why(tpl::kLoadAdd), "");
  EXPECT_NE(why("            lm.sync(wg)\n"), "");
  EXPECT_NE(why("            lm.copy(O, a, coords=(16 * lm.instance(), kb * 16))\n").find("writes no register"),
            std::string::npos);
  EXPECT_NE(why("            lm.copy(a, r[:, kb * 16:kb * 16 + 16])\n").find("reads the loop variable"),
            std::string::npos);
}
