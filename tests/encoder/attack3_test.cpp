// Attacks on the bounded check's parameter values (helper attack3, session
// 26; docs/known-limits.md "Attacks on the bounded check"): broken
// schedules whose bug shows only at values the covering set used to miss,
// each with a correct twin. `cake check` (checks::checkSchedule) must
// report an error on the broken form (not exit 0) and pass the fixed one
// (no error, no unknown verdict: exit 0).
//  * an op's operand that reads a parameter, a block index or a grid size
//    outside any guard or loop bound (`smem_c[(i + T // 500) % 2]`,
//    `lm.block_idx(0) // 100`, `lm.grid_dim(0) // 200`, `min(1, max(0, T -
//    600))`, `(k + T) // 500`): the parameter kept its base value, exit 0;
//  * a vector of guard outcomes that needs a lap of the ring (`if T * T <
//    900000 or lm.instance() == 0:` around a release, block 5 alone):
//    the vector ran at K = 1 only, exit 0;
//  * a persistent kernel whose store slot follows the tile index (`tile %
//    2`): broken only when the grid is even;
//  * other rules behind guards and operands (async work at exit, a missing
//    fence, a tx count, an M tail) as regression cases.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "attack_pair.h"
#include "checks/check.h"
#include "test_util.h"

using namespace cake;

namespace attack3_test {

// test_util.h's 2-slot mainloop (two consumers, an epilogue through a
// two-slot staging view) over K > 0 iterations with a parameter T that is
// read only where an attack puts it (and by the store's coordinates).
const std::string& a3Ring() {
  static const std::string text = [] {
    std::string t = cake::testing::replace(cake::testing::kMainloop, "K: LM.i32):\n",
                                           "K: LM.i32, T: LM.i32):\n    lm.assume(K > 0)\n"
                                           "    lm.assume(T >= 0 and T < 1000)\n");
    return cake::testing::replace(t, "coords=(0, 0), stage=", "coords=(64 * lm.instance(), T), stage=");
  }();
  return text;
}

const std::string kA3Copy = "lm.copy(smem_c[lm.instance()], acc)";
const std::string kA3Store = "stage=lm.instance())";
const std::string kA3Wait = "lm.wait(full, iter=k)";
const std::string kA3Arrive = "            lm.arrive(empty, iter=k)\n";
const std::string kA3Epilogue =
    "        lm.copy(smem_c[lm.instance()], acc)\n"
    "        lm.fence_proxy()\n"
    "        smem_c.tma_store(C, coords=(64 * lm.instance(), T), stage=lm.instance())\n"
    "        lm.tma_store_commit()\n"
    "        lm.tma_store_wait(pending=0)\n";

// The epilogue under a guard (one level deeper).
std::string guardedEpilogue(const std::string& cond) {
  std::string out = "        if " + cond + ":\n";
  size_t at = 0;
  while (at < kA3Epilogue.size()) {
    size_t nl = kA3Epilogue.find('\n', at);
    out += "    " + kA3Epilogue.substr(at, nl + 1 - at);
    at = nl + 1;
  }
  return out;
}

}  // namespace attack3_test

using namespace attack3_test;
using namespace cake::testing::pairs;

// The base itself is correct (proved).
TEST(Attack3, RingBasePasses) {
  const checks::CheckResult r = checkText(a3Ring());
  EXPECT_FALSE(r.hasErrors()) << describe(r);
  EXPECT_FALSE(r.undecided()) << describe(r);
}

// A staging slot chosen by a parameter, a block index or a grid size
// through `//`: the copy and the store must agree on it.
TEST(Attack3, StagingSlotThroughADivision) {
  struct Case {
    const char* what;
    std::string slot;  // the slot expression
  };
  for (const Case& c : {Case{"T // 500", "(lm.instance() + T // 500) % 2"},
                        Case{"lm.block_idx(0) // 100", "(lm.instance() + lm.block_idx(0) // 100) % 2"},
                        Case{"lm.grid_dim(0) // 200", "(lm.instance() + lm.grid_dim(0) // 200) % 2"},
                        Case{"T % 100 == 77", "(lm.instance() + (T % 100 == 77)) % 2"}}) {
    const std::string copy = "lm.copy(smem_c[" + c.slot + "], acc)";
    expectPair(c.what, edited(a3Ring(), {{kA3Copy, copy}}), "sync.race",
               edited(a3Ring(), {{kA3Copy, copy}, {kA3Store, "stage=" + c.slot + ")"}}));
  }
}

// The consumers' wait names a later lap from some value on: a step of a
// non-affine operand (alone, or with the loop variable).
TEST(Attack3, WaitOperandStepsAtALargeValue) {
  for (const char* iter : {"k + T // 500", "k + (T * T) // 900000", "k + min(1, max(0, T - 600))", "k + (k + T) // 500"}) {
    const checks::CheckResult b = checkText(edited(a3Ring(), {{kA3Wait, std::string("lm.wait(full, iter=") + iter + ")"}}));
    EXPECT_TRUE(b.hasErrors()) << iter << ": the broken form exits 0\n" << describe(b);
  }
  // a negative value (no lm.assume bounds T), and a loop start that skips
  // the first iteration's release at T % 7 == 6
  EXPECT_TRUE(checkText(edited(a3Ring(), {{"    lm.assume(T >= 0 and T < 1000)\n", ""},
                                         {kA3Wait, "lm.wait(full, iter=k + (T < -300))"}}))
                  .hasErrors());
  EXPECT_TRUE(checkText(edited(a3Ring(), {{"        for k in lm.range(0, K):\n            lm.wait(full",
                                          "        for k in lm.range(T % 7 // 6, K):\n            lm.wait(full"}}))
                  .hasErrors());
}

// A guard that drops one consumer's release: the producer hangs only on
// its second lap, so the vector of outcomes must also run with K past the
// ring. The fixed twins skip the epilogue instead.
TEST(Attack3, GuardVectorNeedsALap) {
  for (const char* cond : {"T * T < 900000 or lm.instance() == 0", "lm.block_idx(0) != 5 or lm.instance() == 0",
                           "lm.block_idx(0) + 1 == lm.grid_dim(0) or lm.instance() == 0"}) {
    expectPair(cond,
               edited(a3Ring(), {{kA3Arrive, std::string("            if ") + cond + ":\n    " + kA3Arrive}}),
               "sync.arrival-underflow", edited(a3Ring(), {{kA3Epilogue, guardedEpilogue(cond)}}));
  }
}

// Other rules behind guards whose outcome flips far from the base values
// (found before this session too; kept as regression cases).
TEST(Attack3, OtherRulesBehindFarGuards) {
  expectPair("the store drained only while T * T < 900000",
             edited(a3Ring(), {{"        lm.tma_store_wait(pending=0)\n",
                               "        if T * T < 900000:\n            lm.tma_store_wait(pending=0)\n"}}),
             "sync.async-at-exit", "");
  expectPair("the fence only while T < 500",
             edited(a3Ring(), {{"        lm.fence_proxy()\n", "        if T // 500 == 0:\n            lm.fence_proxy()\n"}}),
             "proxy.missing-fence", "");
  expectPair("expect_tx grows with (k + T) // 500",
             edited(a3Ring(), {{"            smem_a.tma_load(A, coords=(0, k), iter=k, barrier=full)\n",
                               "            lm.expect_tx(full, 24576 + 8 * ((k + T) // 500), iter=k)\n"
                               "            smem_a.tma_load(A, coords=(0, k), iter=k, barrier=full)\n"}}),
             "sync.tx-imbalance", "");
}

// A persistent kernel whose store ring slot follows the tile's index
// instead of the CTA's tile count: slots repeat when the grid is even.
TEST(Attack3, PersistentStoreSlotFollowsTheTile) {
  const std::string base = cake::testing::corpusText("corpus/gemm/sm90_persistent_ws.cake");
  expectPair("s = 2 * lm.instance() + tile % 2",
             edited(base, {{"            s = 2 * lm.instance() + t % 2\n", "            s = 2 * lm.instance() + tile % 2\n"}}),
             "sync.race", "");
}

// A proof's violation whose binding breaks an lm.assume fact only through a
// parameter the synchronization does not read (`N == 2 * T`, T read by the
// store's coordinates, the proof listing N's values with T at 1): the
// driver said "checked ... which no parameter values allowed by the
// lm.assume facts give" and exited 0; now T is solved for (T = 37).
TEST(Attack3, ProofViolationWithAnUnreadTiedParameter) {
  const std::string broken = edited(a3Ring(), {{"K: LM.i32, T: LM.i32):", "K: LM.i32, T: LM.i32, N: LM.i32):\n    lm.assume(N == 2 * T)"},
                                              {kA3Wait, "lm.wait(full, iter=k + (N % 1000 == 74) * 100)"}});
  const checks::CheckResult b = checkText(broken);
  EXPECT_TRUE(b.hasErrors()) << describe(b);
}

// An MMA's init= that reads a parameter (`init=(k == T // 500)`: from T =
// 500 on, the first iteration accumulates into undefined registers). The
// covering values ran T = 500, but its system differed from T = 0's only in
// the register hazard, which the system fingerprint left out: it was
// skipped as the same system, exit 0.
TEST(Attack3, InitReadsAParameter) {
  expectPair("init=(k == T // 500)", edited(a3Ring(), {{"init=(k == 0)", "init=(k == T // 500)"}}), "data.uninitialized",
             edited(a3Ring(), {{"init=(k == 0)", "init=(k == T // 1000)"}}));
}
