// A guard on the remainder of the block index by a parameter (helper
// hunt46b, session 46; HeCBench's FWrem_64 runs its diagonal step where
// `blockIdx.x % subm1 == x`): the bit-vector solver spent the whole budget
// on one query of a 64-bit remainder by a free divisor, so the bounded
// check never explored the broken form (unknown, not the race) and the
// proof of its barrier twin was unknown too. The value search and the
// proof's guard enumeration now ask the integer solver first (a small
// resource cap): none there rules the values out; one there lets the
// proof take the outcomes as possible (docs/z3.md "Guards on a remainder
// by a parameter").
#include <gtest/gtest.h>

#include <string>

#include "attack_util.h"

// (using-directives at file scope would make the unity build's two
// RandomSchedule structs ambiguous)
using cake::testing::attacks::expectCheckedAndProved;
using cake::testing::attacks::expectFoundNotProved;

namespace mod_guard46_test {

// Two warps stage their halves of a row; under the guard each reads the
// other's half. `sync` is the barrier between (empty: none).
std::string remainderGuard(const std::string& sync) {
  return R"(@cake.schedule(target="sm_80")
def k(lm, X: LM.gmem, n: LM.i32, x: LM.i32):
    lm.assume(n >= 1)
    lm.assume(x >= 0)
    lm.assume(x < n)
    pool = lm.smem(256)
    v = pool.view(offset=0, shape=(1, 64), dtype=lm.f32)
    r = lm.regs(shape=(1, 32), dtype=lm.f32)
    warps = lm.role(warps=[0, 1], group=1)
    block = lm.named_barrier(roles=[warps])
    with warps:
        w = lm.instance()
        b = lm.block_idx(0)
        lm.copy(r, X, coords=(0, 32 * w))
        lm.copy(v[0][0:1, 32 * w:32 * w + 32], r)
)" + sync + R"(        if b % n == x:
            lm.copy(r, v[0][0:1, 32 - 32 * w:64 - 32 * w])
        lm.copy(X, r, coords=(1, 32 * w))
)";
}

}  // namespace mod_guard46_test

namespace mg = mod_guard46_test;

// The race under the guard: main's bounded check used its budget up on the
// guard's values (unknown).
TEST(ModGuard46, ARaceUnderABlockIndexRemainderGuardIsFound) {
  expectFoundNotProved(mg::remainderGuard(""), "sync.race", "each warp reads the other's half unordered");
}

// The barrier twin: main's proof used its budget up enumerating the
// guard's outcomes (unknown).
TEST(ModGuard46, ItsBarrierTwinIsProved) {
  expectCheckedAndProved(mg::remainderGuard("        lm.sync(block)\n"), "the halves ordered by the barrier");
}
