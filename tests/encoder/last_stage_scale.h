// The kernel of docs/z3.md "Register fragments no branch can leave
// behind" (helper dgcol, session 34): shared by trip_regs_tail_test.cpp
// and sound35_attacks_test.cpp (its broken twins).
#pragma once

#include <string>

#include "test_util.h"

namespace cake::testing {

// test_util.h's kRingEnd with a consumer that adds each K iteration's
// product into `out`, reset at every tile's start, and scales `out` in the
// tile's last K iteration only (an epilogue folded into the last stage),
// storing it to C after the K loop; every MMA overwrites `acc` (init=True).
inline std::string lastStageScale() {
  const std::string ring = cake::testing::kRingEnd;
  std::string text = ring.substr(0, ring.find("    with consumer:\n")) + R"(    with consumer:
        for t in lm.range(0, tiles):
            lm.fill(out, 0.0)
            for k in lm.range(0, k_tiles):
                it = t * k_tiles + k
                lm.wait(full, iter=it)
                lm.mma(acc, smem_a[it], smem_b[it], init=True)
                lm.mma_commit()
                lm.mma_wait(pending=0)
                lm.arrive(empty, iter=it)
                if k + 1 < k_tiles:
                    lm.binary(out, out, acc, op="add")
                else:
                    lm.copy(tmp, acc)
                    lm.binary(out, out, tmp, op="add")
                    lm.binary(out, out, 0.5, op="mul")
            lm.copy(C, out, coords=(t * 64, 0))
)";
  text = cake::testing::replace(text, "M: LM.i32, K: LM.i32):", "C: LM.gmem, M: LM.i32, K: LM.i32):");
  return cake::testing::replace(text, "    producer = lm.role(",
                                "    tmp    = lm.regs(shape=(64, 128), dtype=lm.f32)\n    producer = lm.role(");
}

}  // namespace cake::testing
